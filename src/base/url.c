/*
 * url.c: the URL rules that need no parser (lb_url.h).
 */
#include "lb_url.h"

#include <string.h>
#include <strings.h>

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
