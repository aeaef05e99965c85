/*
 * fetch_addr.c: the internal-address guard of fetch.c's transfers
 * (ant_addr.h, ant_fetch.h): libcurl's open-socket and pre-request
 * callbacks judge every address connected and every request sent, and
 * the environment's proxies are known by their addresses.  Kept apart
 * from fetch.c, which schedules the transfers.
 */
#include "ant_addr.h"
#include "fetch_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* "host:port" of url, in lower case, the scheme's port when none is
 * written (so "http://a/" and "http://A:80/" are one host); NULL when
 * url has none or out of memory. */
char *ant_fetch_host_port(const char *url)
{
	CURLU *u = curl_url();
	char *h = NULL, *p = NULL, *s = NULL;

	if (u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		size_t n = strlen(h) + strlen(p) + 2;

		if ((s = malloc(n)))
			snprintf(s, n, "%s:%s", h, p);
		for (char *c = s; c && *c; c++)
			*c = (char)tolower((unsigned char)*c);
	}
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return s;
}

void ant_fetch_addr_text(const struct sockaddr *sa, char *out, size_t n)
{
	const void *a = sa->sa_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;

	if (!inet_ntop(sa->sa_family, a, out, (socklen_t)n))
		snprintf(out, n, "?");
}

/* Is sa the address and port of a proxy of the environment's? */
static int is_proxy(const runner *r, const struct sockaddr *sa)
{
	for (size_t i = 0; i < r->nproxies; i++) {
		const struct sockaddr *p = (const struct sockaddr *)&r->proxies[i];
		const struct sockaddr_in *p4 = (const void *)p, *a4 = (const void *)sa;
		const struct sockaddr_in6 *p6 = (const void *)p, *a6 = (const void *)sa;

		if (p->sa_family != sa->sa_family)
			continue;
		if (sa->sa_family == AF_INET && p4->sin_port == a4->sin_port &&
		    p4->sin_addr.s_addr == a4->sin_addr.s_addr)
			return 1;
		if (sa->sa_family == AF_INET6 && p6->sin6_port == a6->sin6_port &&
		    memcmp(&p6->sin6_addr, &a6->sin6_addr, sizeof p6->sin6_addr) == 0)
			return 1;
	}
	return 0;
}

/* "host:port" of the request's allow_host, parsed the first time it is
 * needed: a public address never needs it (parsing it for every
 * transfer was 3% of update's CPU). */
static const char *allowed_hp(xfer *x)
{
	const char *allow = x->run->reqs[x->idx].allow_host;

	if (!x->allow_hp_known) {
		x->allow_hp = allow ? ant_fetch_host_port(allow) : NULL;
		x->allow_hp_known = 1;
	}
	return x->allow_hp;
}

/* "host:port" of url, the hop being made (kept in x): each hop asks at
 * its connect and again before its request. */
static const char *hop_host_port(xfer *x, const char *url)
{
	const char *allow = x->run->reqs[x->idx].allow_host;

	if (!url)
		return NULL;
	if (allow && strcmp(url, allow) == 0)
		return allowed_hp(x);
	if (x->hop_url && strcmp(url, x->hop_url) == 0)
		return x->hop_hp;
	free(x->hop_url);
	free(x->hop_hp);
	x->hop_hp = ant_fetch_host_port(url);
	x->hop_url = x->hop_hp ? strdup(url) : NULL;
	return x->hop_hp;
}

/* addr, of kind k, is about to be connected (or asked through a proxy)
 * for x's current URL: refused, and why written in x->refused, unless
 * public, allowed for all, or the URL's host:port is the one allowed. */
static int refuse(xfer *x, ant_addr_kind k, const char *addr, const char *via)
{
	char *url = NULL;
	const char *hp, *allow = x->run->reqs[x->idx].allow_host, *ahp;
	int allowed;

	if (k == ANT_ADDR_PUBLIC || x->allow_private)
		return 0;
	/* the URL of this hop: libcurl moves it on at each redirect */
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &url);
	if (url && allow && strcmp(url, allow) == 0)
		return 0;   /* the allowed URL itself: its host and port, unparsed */
	hp = hop_host_port(x, url);
	ahp = allowed_hp(x);
	allowed = hp && ahp && strcmp(hp, ahp) == 0;
	if (!allowed && !x->refused[0])
		snprintf(x->refused, sizeof x->refused,
			 "refused to connect to internal address %s (%s) of %.80s%s: "
			 "init --allow-private allows it", addr, ant_addr_kind_name(k),
			 hp ? hp : "?", via);
	return !allowed;
}

curl_socket_t ant_fetch_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	xfer *x = arg;
	char text[INET6_ADDRSTRLEN];
	ant_addr_kind k;

	if (purpose == CURLSOCKTYPE_IPCXN && !is_proxy(x->run, &a->addr) &&
	    (k = ant_addr_classify(&a->addr)) != ANT_ADDR_PUBLIC) {
		ant_fetch_addr_text(&a->addr, text, sizeof text);
		if (refuse(x, k, text, ""))
			return CURL_SOCKET_BAD;   /* libcurl tries the host's next address */
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* Through a proxy the proxy resolves the name: only a host written as an
 * address, or "localhost" (RFC 6761 §6.3), can be judged here. */
static int refuse_via_proxy(xfer *x)
{
	char *url = NULL, *h = NULL;
	CURLU *u = curl_url();
	int k = -1, no = 0;
	size_t n;

	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &url);
	if (u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK) {
		n = strlen(h);
		k = ant_addr_classify_text(h);
		if (k < 0 && (strcasecmp(h, "localhost") == 0 ||
			      (n > 10 && strcasecmp(h + n - 10, ".localhost") == 0)))
			k = ANT_ADDR_LOOPBACK;
		if (k > 0)
			no = refuse(x, (ant_addr_kind)k, h, " through the proxy");
	}
	curl_free(h);
	curl_url_cleanup(u);
	return no;
}

/* Before each request, on a new or a reused connection. */
int ant_fetch_prereq(void *arg, char *ip, char *local_ip, int port, int local_port)
{
	xfer *x = arg;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	const struct sockaddr *sa;
	ant_addr_kind k;

	(void)local_ip;
	(void)local_port;
	if (ip && inet_pton(AF_INET, ip, &a4.sin_addr) == 1)
		sa = (const struct sockaddr *)&a4;
	else if (ip && inet_pton(AF_INET6, ip, &a6.sin6_addr) == 1)
		sa = (const struct sockaddr *)&a6;
	else
		return CURL_PREREQFUNC_OK;   /* no IP connection: file:// */
	if (is_proxy(x->run, sa))
		return refuse_via_proxy(x) ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK;
	k = ant_addr_classify(sa);
	return refuse(x, k, ip, "") ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK;
}

/* A proxy's addresses, resolved once per run (only when one is set).
 * libcurl's defaults: http:// when no scheme, port 1080 when none (443
 * for an https:// proxy). */
static int proxy_add(runner *r, const char *spec)
{
	CURLU *u = curl_url();
	char *h = NULL, *p = NULL, *s = NULL, host[256];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc = 0;

	if (!u)
		return LB_ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, spec, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) ==
	    CURLUE_OK && curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_SCHEME, &s, 0);
		if (curl_url_get(u, CURLUPART_PORT, &p, 0) != CURLUE_OK)
			p = NULL;
		snprintf(host, sizeof host, "%s", h[0] == '[' ? h + 1 : h);
		if (h[0] == '[' && strchr(host, ']'))
			*strchr(host, ']') = '\0';
		if (getaddrinfo(host, p ? p : s && strcasecmp(s, "https") == 0 ? "443" : "1080",
				&hints, &ai) != 0)
			ai = NULL;
	}
	for (struct addrinfo *a = ai; a && rc == 0; a = a->ai_next) {
		struct sockaddr_storage *t;

		if (a->ai_addrlen > sizeof *t)
			continue;
		if (!(t = realloc(r->proxies, (r->nproxies + 1) * sizeof *t))) {
			rc = LB_ENOMEM;
			break;
		}
		r->proxies = t;
		memset(&t[r->nproxies], 0, sizeof *t);
		memcpy(&t[r->nproxies++], a->ai_addr, a->ai_addrlen);
	}
	if (ai)
		freeaddrinfo(ai);
	curl_free(h);
	curl_free(p);
	curl_free(s);
	curl_url_cleanup(u);
	return rc;
}

/* The variables libcurl reads for its proxy (http_proxy has no upper
 * case form: a CGI's HTTP_PROXY is a request header). */
int ant_fetch_proxies_build(runner *r)
{
	static const char *const vars[] = {
		"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
	};

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v && proxy_add(r, v) < 0)
			return LB_ENOMEM;
	}
	return 0;
}

/* ---- a URL's server by its address (ant_fetch.h, ant_fetch_resolve) -------- */

/* ANTENNA_RESOLVE's address for hp ("host:port"), as fetch.c gives it
 * to libcurl: into out, 1; 0 when it names none. */
static int resolve_env(const char *hp, char *out, size_t n)
{
	const char *v = getenv("ANTENNA_RESOLVE");
	size_t len = strlen(hp);

	while (v && *v) {
		size_t w;

		v += strspn(v, " \t\n,");
		w = strcspn(v, " \t\n,");
		if (w > len + 1 && strncasecmp(v, hp, len) == 0 && v[len] == ':') {
			snprintf(out, n, "%.*s", (int)(w - len - 1), v + len + 1);
			return 1;
		}
		v += w;
	}
	return 0;
}

int ant_fetch_resolve(const char *url, char *out, size_t n)
{
	char *hp = ant_fetch_host_port(url), *colon, host[256];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int found = 0;

	if (!hp || !(colon = strrchr(hp, ':'))) {
		free(hp);
		return LB_ENOTFOUND;
	}
	if (resolve_env(hp, out, n)) {
		free(hp);
		return 0;
	}
	*colon = '\0';
	snprintf(host, sizeof host, "%s", hp[0] == '[' ? hp + 1 : hp);
	if (hp[0] == '[' && strchr(host, ']'))
		*strchr(host, ']') = '\0';
	/* the lowest of its addresses: the same whatever order the DNS
	 * rotates them in */
	if (getaddrinfo(host, colon + 1, &hints, &ai) == 0)
		for (struct addrinfo *a = ai; a; a = a->ai_next) {
			char t[64];

			if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
				continue;
			ant_fetch_addr_text(a->ai_addr, t, sizeof t);
			if (!found || strcmp(t, out) < 0)
				snprintf(out, n, "%s", t);
			found = 1;
		}
	if (ai)
		freeaddrinfo(ai);
	free(hp);
	return found ? 0 : LB_ENOTFOUND;
}
