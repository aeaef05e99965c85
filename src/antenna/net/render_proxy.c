/*
 * render_proxy.c: the forward proxy every request of a rendering browser
 * goes through (render_int.h, ant_render.h): the internal-address guard
 * of our own fetches (ant_addr.h) applied to the browser.
 *
 * Chromium asks a proxy for an http:// URL in absolute form ("GET
 * http://host:port/path HTTP/1.1") and for anything else (https, wss, ws)
 * with CONNECT host:port.  Either way the proxy resolves the host itself
 * (ANTENNA_RESOLVE first, as fetch.c does), judges each address, and
 * connects to an address it judged, never to the name: a name re-bound
 * between judging and connecting changes nothing.  A refused request is
 * answered 403 with the reason, and the reason kept for the render's
 * result.  One request per connection ("Connection: close" both ways):
 * each is judged on its own.
 */
#include "ant_addr.h"
#include "ant_render.h"
#include "fetch_int.h"
#include "render_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX (64u << 10)   /* a request's or response's header block */
#define RELAY_BUF 16384

struct conn {
	rproxy *p;
	int cfd, sfd;
	int nav;                 /* this request is the navigation's */
	char host[256];
	char port[8];
	char hp[300];            /* "host:port" as judged, lower case */
};

/* Waits until fd is ready for ev, the stop pipe written, or ms passed:
 * 1 ready, 0 not (stopped, timed out, error). */
static int wait_fd(rproxy *p, int fd, short ev, int ms)
{
	struct pollfd f[2] = { { fd, ev, 0 }, { p->stop[0], POLLIN, 0 } };

	if (poll(f, 2, ms) <= 0 || f[1].revents)
		return 0;
	return f[0].revents != 0;
}

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return LB_EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads a header block ("...\r\n\r\n") into b (cap HEAD_MAX + 1): its
 * length with what followed it in *got; 0 when it did not come whole. */
static size_t read_head(rproxy *p, int fd, char *b, size_t *got)
{
	size_t n = 0;

	while (n < HEAD_MAX) {
		char *end;
		ssize_t r;

		if (!wait_fd(p, fd, POLLIN, 30000))
			return 0;
		if ((r = recv(fd, b + n, HEAD_MAX - n, 0)) <= 0)
			return 0;
		n += (size_t)r;
		b[n] = '\0';
		if ((end = strstr(b, "\r\n\r\n"))) {
			*got = n;
			return (size_t)(end + 4 - b);
		}
	}
	return 0;
}

static void answer(int fd, int status, const char *reason, const char *why)
{
	char b[700];
	int n = snprintf(b, sizeof b, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
			 status, reason, strlen(why) + 1, why);

	write_all(fd, b, n < (int)sizeof b ? (size_t)n : sizeof b - 1);
}

/* ---- the navigation: which requests are the page's own ---------------- */

/* Is the request (an absolute http URL, or CONNECT's "host:port") to the
 * page's server?  The server, not the URL: chromium writes the page's
 * URL its own way (a non-ASCII path percent-encoded, say). */
static int is_page(const rproxy *p, const char *target, int connect)
{
	char *hp;
	int same;

	if (!p->page_hp || !p->page_key)
		return 0;
	if (connect)
		return strncmp(p->page_key, "https:", 6) == 0 && strcasecmp(target, p->page_hp) == 0;
	if (strncmp(p->page_key, "http:", 5) != 0)
		return 0;
	hp = ant_fetch_host_port(target);
	same = hp && strcmp(hp, p->page_hp) == 0;
	free(hp);
	return same;
}

/* Which requests are the page's own: the first asking the page's server,
 * and the one after each redirect of it.  Before it, chromium's own requests
 * (its component updater and sign-in service ask before any page,
 * whatever the switches) are refused: -1.  1 the navigation's, 0 another. */
static int nav_take(rproxy *p, const char *target, int connect)
{
	int nav, page = is_page(p, target, connect);

	pthread_mutex_lock(&p->mu);
	p->requests++;
	if (!p->page_seen && !page) {
		p->early++;
		pthread_mutex_unlock(&p->mu);
		return LB_EIO;
	}
	nav = !p->page_seen || p->nav_open;
	p->page_seen = 1;
	p->nav_open = 0;
	pthread_mutex_unlock(&p->mu);
	return nav;
}

static void nav_status(struct conn *c, long status)
{
	if (!c->nav)
		return;
	pthread_mutex_lock(&c->p->mu);
	c->p->nav_status = status;
	c->p->nav_open = status >= 300 && status < 400;
	pthread_mutex_unlock(&c->p->mu);
}

static void nav_failed(struct conn *c, ant_fetch_errkind k, const char *why)
{
	if (!c->nav)
		return;
	pthread_mutex_lock(&c->p->mu);
	c->p->nav_err = k;
	snprintf(c->p->nav_error, sizeof c->p->nav_error, "%s", why);
	pthread_mutex_unlock(&c->p->mu);
}

static void note_refusal(rproxy *p, const char *why)
{
	pthread_mutex_lock(&p->mu);
	p->refused++;
	if (!p->refusal[0])
		snprintf(p->refusal, sizeof p->refusal, "%s", why);
	pthread_mutex_unlock(&p->mu);
}

int ant_render_proxy_refused(rproxy *p)
{
	int r;

	pthread_mutex_lock(&p->mu);
	r = p->refused != 0;
	pthread_mutex_unlock(&p->mu);
	return r;
}

/* ---- resolving, judging, connecting ------------------------------------ */

/* ANTENNA_RESOLVE's address for host:port, into out; 1 found. */
static int resolve_env(const rproxy *p, const struct conn *c, char *out, size_t n)
{
	size_t hl = strlen(c->host), pl = strlen(c->port);
	const char *s = p->resolve;

	while (s && *s) {
		size_t len = strcspn(s, " \t\n,");

		if (len > hl + pl + 2 && strncasecmp(s, c->host, hl) == 0 && s[hl] == ':' &&
		    strncmp(s + hl + 1, c->port, pl) == 0 && s[hl + 1 + pl] == ':') {
			snprintf(out, n, "%.*s", (int)(len - hl - pl - 2), s + hl + pl + 2);
			return 1;
		}
		s += len;
		s += strspn(s, " \t\n,");
	}
	return 0;
}

static int connect_to(rproxy *p, const struct addrinfo *a)
{
	int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
	int err = 0;
	socklen_t el = sizeof err;
	long secs = p->connect_timeout > 0 ? p->connect_timeout : ANT_FETCH_DEFAULT_CONNECT_TIMEOUT;

	if (fd < 0)
		return LB_EIO;
	if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 &&
	    (errno != EINPROGRESS || !wait_fd(p, fd, POLLOUT, (int)(secs * 1000)) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err)) {
		close(fd);
		return LB_EIO;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* May the browser reach address sa of c's host? The words of
 * fetch_addr.c's refusal into why when not. */
static int allowed(const struct conn *c, const struct sockaddr *sa, char *why, size_t n)
{
	ant_addr_kind k = ant_addr_classify(sa);
	char text[INET6_ADDRSTRLEN];

	if (k == ANT_ADDR_PUBLIC || c->p->allow_private ||
	    (c->p->allow_hp && strcmp(c->hp, c->p->allow_hp) == 0))
		return 1;
	ant_fetch_addr_text(sa, text, sizeof text);
	snprintf(why, n, "refused to connect to internal address %s (%s) of %.80s, asked by the "
		 "rendered page: init --allow-private allows it", text, ant_addr_kind_name(k), c->hp);
	return 0;
}

/* Connects c->sfd to an allowed address of c's host; on failure answers
 * the browser (403 refused, 502 otherwise) and returns LB_EIO. */
static int open_server(struct conn *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *ai = NULL;
	char name[256], why[300] = "";
	int rc, fd = -1;
	const char *h = c->host;

	if (resolve_env(c->p, c, name, sizeof name)) {
		hints.ai_flags |= AI_NUMERICHOST;
		h = name;
	}
	if ((rc = getaddrinfo(h, c->port, &hints, &ai)) != 0) {
		snprintf(why, sizeof why, "cannot resolve host %.200s", c->host);
		nav_failed(c, ANT_FETCH_ERR_DNS, why);
		answer(c->cfd, 502, "Bad Gateway", why);
		return LB_EIO;
	}
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		char w[300];

		if (!allowed(c, a->ai_addr, w, sizeof w)) {
			if (!why[0])
				snprintf(why, sizeof why, "%s", w);
			continue;
		}
		fd = connect_to(c->p, a);
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		return c->sfd = fd;
	if (why[0]) {
		note_refusal(c->p, why);
		nav_failed(c, ANT_FETCH_ERR_INTERNAL, why);
		answer(c->cfd, 403, "Forbidden", why);
	} else {
		snprintf(why, sizeof why, "cannot connect to %.200s", c->hp);
		nav_failed(c, ANT_FETCH_ERR_CONNECT, why);
		answer(c->cfd, 502, "Bad Gateway", why);
	}
	return LB_EIO;
}

/* ---- parsing ------------------------------------------------------------ */

/* "host:port" or "[v6]:port" (an authority without userinfo) into c,
 * with dport when none is written.  0, or LB_EINVAL when it is not one. */
static int take_authority(struct conn *c, const char *s, size_t n, const char *dport)
{
	const char *colon;
	size_t hl;

	if (n == 0 || memchr(s, '@', n))
		return LB_EINVAL;
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close)
			return LB_EINVAL;
		hl = (size_t)(close - s) - 1;
		if (hl >= sizeof c->host)
			return LB_EINVAL;
		memcpy(c->host, s + 1, hl);
		c->host[hl] = '\0';
		colon = close + 1 < s + n && close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(s, ':', n);
		hl = colon ? (size_t)(colon - s) : n;
		if (hl == 0 || hl >= sizeof c->host)
			return LB_EINVAL;
		memcpy(c->host, s, hl);
		c->host[hl] = '\0';
	}
	if (colon) {
		size_t pl = (size_t)(s + n - colon - 1);

		if (pl == 0 || pl >= sizeof c->port || strspn(colon + 1, "0123456789") < pl)
			return LB_EINVAL;
		memcpy(c->port, colon + 1, pl);
		c->port[pl] = '\0';
	} else if (dport) {
		snprintf(c->port, sizeof c->port, "%s", dport);
	} else {
		return LB_EINVAL;
	}
	for (char *q = c->host; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	snprintf(c->hp, sizeof c->hp, strchr(c->host, ':') ? "[%s]:%s" : "%s:%s", c->host, c->port);
	return 0;
}

/* Is the header line at l (up to its CRLF) one of the hop-by-hop fields
 * the proxy replaces? */
static int hop_field(const char *l)
{
	static const char *const f[] = { "connection:", "proxy-connection:", "keep-alive:",
					 "proxy-authorization:" };

	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		if (strncasecmp(l, f[i], strlen(f[i])) == 0)
			return 1;
	return 0;
}

/* The header block's fields after its first line, the hop-by-hop ones
 * left out, then "Connection: close", into out. */
static void copy_fields(lb_buf *out, const char *head, size_t hlen)
{
	const char *l = strstr(head, "\r\n"), *end = head + hlen - 2;

	for (l = l ? l + 2 : end; l < end;) {
		const char *e = strstr(l, "\r\n");

		if (!e || e > end)
			break;
		if (!hop_field(l))
			lb_buf_add(out, l, (size_t)(e - l) + 2);
		l = e + 2;
	}
	lb_buf_adds(out, "Connection: close\r\n\r\n");
}

/* ---- relaying ------------------------------------------------------------- */

/* Both ways until the server closes (one request a connection), either
 * side fails, or the proxy stops. */
static void relay(struct conn *c)
{
	char *b = malloc(RELAY_BUF);
	int open_c = 1;

	while (b) {
		struct pollfd f[3] = { { c->sfd, POLLIN, 0 }, { c->cfd, open_c ? POLLIN : 0, 0 },
				       { c->p->stop[0], POLLIN, 0 } };
		ssize_t r;

		if (poll(f, 3, 60000) <= 0 || f[2].revents)
			break;
		if (f[0].revents) {
			if ((r = recv(c->sfd, b, RELAY_BUF, 0)) <= 0 || write_all(c->cfd, b, (size_t)r) < 0)
				break;
		}
		if (open_c && f[1].revents) {
			if ((r = recv(c->cfd, b, RELAY_BUF, 0)) <= 0) {
				open_c = 0;
				shutdown(c->sfd, SHUT_WR);
			} else if (write_all(c->sfd, b, (size_t)r) < 0) {
				break;
			}
		}
	}
	free(b);
}

/* The server's response header block, its status noted (the navigation's)
 * and its hop-by-hop fields replaced; the rest relayed. */
static void relay_response(struct conn *c)
{
	char *b = malloc(HEAD_MAX + 1);
	size_t got = 0, hlen = b ? read_head(c->p, c->sfd, b, &got) : 0;
	lb_buf out = LB_BUF_INIT;
	long status = 0;

	if (!hlen || sscanf(b, "HTTP/%*d.%*d %ld", &status) != 1) {
		if (b)
			answer(c->cfd, 502, "Bad Gateway", "no HTTP answer from the server");
		nav_failed(c, ANT_FETCH_ERR_OTHER, "no HTTP answer from the server");
		free(b);
		return;
	}
	nav_status(c, status);
	lb_buf_add(&out, b, (size_t)(strstr(b, "\r\n") - b) + 2);
	copy_fields(&out, b, hlen);
	lb_buf_add(&out, b + hlen, got - hlen);
	free(b);
	if (write_all(c->cfd, out.data, out.len) == 0)
		relay(c);
	lb_buf_release(&out);
}

/* CONNECT: a tunnel, for TLS only (its first byte a handshake record,
 * RFC 8446 §5.1): a plain ws:// or any other text protocol is closed. */
static void tunnel(struct conn *c)
{
	unsigned char first;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	nav_status(c, 200);
	if (write_all(c->cfd, ok, sizeof ok - 1) < 0 || !wait_fd(c->p, c->cfd, POLLIN, 30000) ||
	    recv(c->cfd, &first, 1, MSG_PEEK) != 1 || first != 0x16)
		return;
	relay(c);
}

/* The value of the request's field name (with its colon), or NULL. */
static const char *field(const char *head, size_t hlen, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = strstr(head, "\r\n"); l && l + 2 < head + hlen; l = strstr(l + 2, "\r\n"))
		if (strncasecmp(l + 2, name, n) == 0)
			return l + 2 + n + strspn(l + 2 + n, " \t");
	return NULL;
}

/* The rest of the request's body (Content-Length) to the server, before
 * its answer is read: 0, or LB_EIO. */
static int send_body(struct conn *c, long long rest)
{
	char b[RELAY_BUF];

	while (rest > 0) {
		ssize_t r;

		if (!wait_fd(c->p, c->cfd, POLLIN, 30000) ||
		    (r = recv(c->cfd, b, rest < (long long)sizeof b ? (size_t)rest : sizeof b, 0)) <= 0 ||
		    write_all(c->sfd, b, (size_t)r) < 0)
			return LB_EIO;
		rest -= r;
	}
	return 0;
}

/* An absolute http:// request: sent on in origin form. */
static void forward(struct conn *c, const char *b, size_t hlen, size_t got, const char *method,
		    const char *target)
{
	const char *auth = target + 7, *path, *cl;
	size_t alen = strcspn(auth, "/?# ");
	lb_buf out = LB_BUF_INIT;

	if (take_authority(c, auth, alen, "80") < 0) {
		answer(c->cfd, 400, "Bad Request", "no host in the request");
		return;
	}
	path = auth + alen;
	if (field(b, hlen, "transfer-encoding:")) {   /* a streamed upload: not carried */
		answer(c->cfd, 411, "Length Required", "a request body needs a Content-Length");
		return;
	}
	if (open_server(c) < 0)
		return;
	lb_buf_addf(&out, "%s %s%.*s HTTP/1.1\r\n", method, *path == '/' ? "" : "/",
		    (int)strcspn(path, " "), path);
	copy_fields(&out, b, hlen);
	lb_buf_add(&out, b + hlen, got - hlen);   /* the body's start */
	cl = field(b, hlen, "content-length:");
	if (write_all(c->sfd, out.data, out.len) == 0 &&
	    send_body(c, (cl ? atoll(cl) : 0) - (long long)(got - hlen)) == 0)
		relay_response(c);
	lb_buf_release(&out);
}

static void serve(struct conn *c)
{
	char *b = malloc(HEAD_MAX + 1), method[16], target[8192];
	size_t got = 0, hlen = b ? read_head(c->p, c->cfd, b, &got) : 0;
	struct timeval tv = { 5, 0 };

	setsockopt(c->cfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (!hlen || sscanf(b, "%15s %8191s HTTP/", method, target) != 2) {
		free(b);
		return;
	}
	c->nav = nav_take(c->p, target, strcmp(method, "CONNECT") == 0);
	if (getenv("ANTENNA_RENDER_DEBUG"))
		fprintf(stderr, "render proxy: %s %s%s\n", method, target,
			c->nav > 0 ? " (the page)" : c->nav < 0 ? " (before the page: refused)" : "");
	if (c->nav < 0) {
		answer(c->cfd, 403, "Forbidden", "the browser's own request, before the page");
		c->nav = 0;
	} else if (strcmp(method, "CONNECT") == 0) {
		if (take_authority(c, target, strlen(target), NULL) < 0)
			answer(c->cfd, 400, "Bad Request", "CONNECT needs host:port");
		else if (open_server(c) >= 0) {
			setsockopt(c->sfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
			tunnel(c);
		}
	} else if (strncasecmp(target, "http://", 7) == 0) {
		forward(c, b, hlen, got, method, target);
	} else {
		char why[300];

		snprintf(why, sizeof why, "scheme not allowed in a render: %.200s", target);
		answer(c->cfd, 403, "Forbidden", why);
	}
	free(b);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;

	serve(c);
	if (c->sfd >= 0)
		close(c->sfd);
	close(c->cfd);
	pthread_mutex_lock(&c->p->mu);
	c->p->live--;
	pthread_mutex_unlock(&c->p->mu);
	free(c);
	return NULL;
}

/* ---- the proxy's life ---------------------------------------------------- */

/* A thread for the accepted connection fd, remembered to be joined. */
static void spawn(rproxy *p, int fd)
{
	struct conn *c = calloc(1, sizeof *c);
	pthread_t t, *grown;
	int ok = 0;

	pthread_mutex_lock(&p->mu);
	grown = lb_grow(p->conns, &p->cap, p->nconns + 1, sizeof *p->conns, 16);
	if (grown)
		p->conns = grown;
	if (c && grown && p->live < ANT_RENDER_MAX_CONNS) {
		*c = (struct conn){ .p = p, .cfd = fd, .sfd = -1 };
		if (pthread_create(&t, NULL, conn_main, c) == 0) {
			p->conns[p->nconns++] = t;
			p->live++;
			ok = 1;
		}
	}
	pthread_mutex_unlock(&p->mu);
	if (!ok) {
		free(c);
		close(fd);
	}
}

static void *accept_main(void *arg)
{
	rproxy *p = arg;

	for (;;) {
		struct pollfd f[2] = { { p->lfd, POLLIN, 0 }, { p->stop[0], POLLIN, 0 } };
		int fd;

		if (poll(f, 2, -1) < 0 && errno != EINTR)
			break;
		if (f[1].revents)
			break;
		if (f[0].revents && (fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
			spawn(p, fd);
	}
	return NULL;
}

int ant_render_proxy_start(rproxy *p)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	const char *res = getenv("ANTENNA_RESOLVE");

	p->lfd = p->stop[0] = p->stop[1] = -1;
	pthread_mutex_init(&p->mu, NULL);
	if (res && *res && !(p->resolve = strdup(res)))
		return LB_ENOMEM;
	if (pipe2(p->stop, O_CLOEXEC) < 0 ||
	    (p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(p->lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(p->lfd, 64) < 0 ||
	    getsockname(p->lfd, (struct sockaddr *)&a, &al) < 0)
		return LB_EIO;
	p->port = ntohs(a.sin_port);
	if (pthread_create(&p->acceptor, NULL, accept_main, p) != 0)
		return LB_EIO;
	p->started = 1;
	return 0;
}

void ant_render_proxy_stop(rproxy *p)
{
	if (p->stop[1] >= 0)
		(void)!write(p->stop[1], "x", 1);
	if (p->started)
		pthread_join(p->acceptor, NULL);
	/* no thread adds to conns now */
	for (size_t i = 0; i < p->nconns; i++)
		pthread_join(p->conns[i], NULL);
	free(p->conns);
	p->conns = NULL;
	p->nconns = p->cap = 0;
	if (p->lfd >= 0)
		close(p->lfd);
	if (p->stop[0] >= 0)
		close(p->stop[0]);
	if (p->stop[1] >= 0)
		close(p->stop[1]);
	p->lfd = p->stop[0] = p->stop[1] = -1;
	free(p->allow_hp);
	free(p->resolve);
	free(p->page_key);
	free(p->page_hp);
	p->allow_hp = p->resolve = p->page_key = p->page_hp = NULL;
	p->started = 0;
	pthread_mutex_destroy(&p->mu);
}
