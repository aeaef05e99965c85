/*
 * url.c: the URL rules that need no parser, and the comparison key of a
 * URL (lb_url.h).
 */
#include "lb_url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_error.h"

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

size_t lb_url_scheme_len(const char *u)
{
	size_t i = 0;

	if (!is_alpha((unsigned char)u[0]))
		return 0;
	while (is_alpha((unsigned char)u[i]) || is_digit((unsigned char)u[i]) ||
	       u[i] == '+' || u[i] == '-' || u[i] == '.')
		i++;
	return u[i] == ':' ? i : 0;
}

unsigned lb_url_http_port(const char *s, size_t n)
{
	if (n == 4 && strncasecmp(s, "http", 4) == 0)
		return 80;
	if (n == 5 && strncasecmp(s, "https", 5) == 0)
		return 443;
	return 0;
}

size_t lb_url_http_prefix(const char *u)
{
	size_t n = lb_url_scheme_len(u);

	if (!lb_url_http_port(u, n) || u[n + 1] != '/' || u[n + 2] != '/')
		return 0;
	return n + 3;
}

/* The authority must hold a host: [userinfo@]host[:port], port all digits. */
static int authority_ok(const char *a, size_t n)
{
	const char *at = memchr(a, '@', n), *host, *end = a + n, *colon;

	host = at ? at + 1 : a;
	if (host < end && *host == '[') {            /* RFC 3986 §3.2.2 IP-literal */
		const char *rb = memchr(host, ']', (size_t)(end - host));
		if (!rb || rb == host + 1)
			return 0;
		colon = rb + 1 < end ? rb + 1 : NULL;
		if (colon && *colon != ':')
			return 0;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		if ((colon ? colon : end) == host)
			return 0;
	}
	if (colon)
		for (const char *p = colon + 1; p < end; p++)
			if (*p < '0' || *p > '9')
				return 0;
	return 1;
}

int lb_url_is_http(const char *s)
{
	size_t k = lb_url_http_prefix(s);

	if (!k)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	return authority_ok(s + k, strcspn(s + k, "/?#"));
}

/* ---- URL keys (RFC 3986 §3, §6.2.2.1, §6.2.3) ---------------------------- */

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

/* Nonzero when port (n digits, maybe none) is the scheme's default. */
static int default_port(const char *scheme, size_t slen, const char *port, size_t n)
{
	unsigned long v = 0, dflt = lb_url_http_port(scheme, slen);
	size_t i;

	if (n == 0)
		return 1;   /* "host:" — §6.2.3: an empty port is the default */
	for (i = 0; i < n; i++) {
		if (!is_digit((unsigned char)port[i]) || v > 100000)
			return 0;
		v = v * 10 + (unsigned long)(port[i] - '0');
	}
	return dflt && v == dflt;
}

static int has_upper(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			return 1;
	return 0;
}

/* Appends s[0..n) lowercased, leaving percent-escapes as written. */
static int add_lower(lb_buf *out, const char *s, size_t n)
{
	size_t i;

	if (lb_buf_grow(out, n) != 0)
		return LB_ENOMEM;
	for (i = 0; i < n; i++)
		out->data[out->len + i] = (char)lower((unsigned char)s[i]);
	out->len += n;
	out->data[out->len] = '\0';
	return 0;
}

int lb_url_key(lb_buf *out, const char *url)
{
	size_t sl = lb_url_scheme_len(url), start = out->len;
	const char *auth, *end, *at, *host, *colon, *p;
	char scheme[8];

	if (sl == 0 || strncmp(url + sl, "://", 3) != 0)
		return lb_buf_adds(out, url);
	auth = url + sl + 3;
	end = auth + strcspn(auth, "/?#");
	/* userinfo is case-sensitive: keep it as written */
	for (at = NULL, p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	host = at ? at + 1 : auth;
	/* The port follows the first ':' after the host (after the ']' of an
	 * IPv6 literal).  The first, not the last: in a malformed "h::" the
	 * rest is kept as written, so that a key is its own key (fuzz_url). */
	p = host;
	if (host < end && *host == '[') {
		const char *rb = memchr(host, ']', (size_t)(end - host));
		p = rb ? rb : end;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	/* The common case: already a key (lowercase, no port, a path). */
	if (!colon && *end == '/' && !has_upper(url, (size_t)(end - url)))
		return lb_buf_add(out, url, (size_t)(end - url) + strlen(end));
	if (add_lower(out, url, sl + 3) != 0 || lb_buf_add(out, auth, (size_t)(host - auth)) != 0 ||
	    add_lower(out, host, (size_t)((colon ? colon : end) - host)) != 0)
		return LB_ENOMEM;
	memcpy(scheme, out->data + start, sl < sizeof scheme ? sl : sizeof scheme);
	if (colon && !default_port(scheme, sl, colon + 1, (size_t)(end - colon - 1)) &&
	    lb_buf_add(out, colon, (size_t)(end - colon)) != 0)
		return LB_ENOMEM;
	/* §6.2.3: an empty path is "/" for http and https */
	if (*end != '/' && lb_url_http_port(scheme, sl) && lb_buf_addc(out, '/') != 0)
		return LB_ENOMEM;
	return lb_buf_adds(out, end);
}

char *lb_url_key_dup(const char *url)
{
	lb_buf b = LB_BUF_INIT;

	if (lb_url_key(&b, url) < 0) {
		lb_buf_release(&b);
		return NULL;
	}
	return lb_buf_detach(&b, NULL);
}

char *lb_url_page_key_dup(const char *url)
{
	char *bare = strndup(url, strcspn(url, "#")), *key;

	if (!bare)
		return NULL;
	key = lb_url_key_dup(bare);
	free(bare);
	return key;
}
