/*
 * lb_url.h: the URL rules that need no parser: the scheme (RFC 3986
 * §3.1), the http and https schemes (RFC 9110 §4.2), the one test of
 * "an absolute http or https URL with a host", and the one comparison key
 * of a URL (lb_url_key(): every layer that keys records or pages by URL
 * uses it).  Resolving a relative reference needs libxml2 and lives
 * above: atom_resolve() (atom.h).
 */
#ifndef LB_URL_H
#define LB_URL_H

#include <stddef.h>

#include "lb_buf.h"

/* The length of u's scheme, ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * followed by ':' (RFC 3986 §3.1), or 0 when u has none. */
size_t lb_url_scheme_len(const char *u);

/* The default port of scheme s[0..n) when it is http (80) or https (443),
 * in any case (schemes are case-insensitive, RFC 3986 §3.1); 0 for any
 * other scheme. */
unsigned lb_url_http_port(const char *s, size_t n);

/* The length of a leading "http://" or "https://" (scheme in any case):
 * 7 or 8; 0 otherwise. */
size_t lb_url_http_prefix(const char *u);

/* Nonzero when u is an absolute http or https URL with a host:
 * "http(s)://" [userinfo "@"] host [":" port], the host a reg-name or an
 * IP-literal (RFC 3986 §3.2.2), the port all digits (§3.2.3), and no
 * space or control character anywhere (§2: they are never part of a URL). */
int lb_url_is_http(const char *u);

/*
 * Appends the comparison key of url to out (out is not reset first): the
 * key records and pages are matched by (lirs merge, the antenna, lirs
 * atom).  Lowercases the scheme and the host (outside percent-escapes,
 * RFC 3986 §6.2.2.1), drops ":80" for http and ":443" for https (§6.2.3),
 * and an empty port ("host:"); an empty http(s) path is "/" (§6.2.3).
 * The path, query and userinfo are compared as written.  Strings that do
 * not look like "scheme://authority..." are their own key.  Returns 0, or
 * LB_ENOMEM.
 */
int lb_url_key(lb_buf *out, const char *url);
/* lb_url_key() of url as a malloc'd string; NULL when out of memory. */
char *lb_url_key_dup(const char *url);
/* The key of a watched page or a source (antenna add, import):
 * lb_url_key_dup() of url without its fragment ("#..."), which is never
 * sent to the server: "http://h/p#a" and "http://h/p" are one page.
 * NULL when out of memory. */
char *lb_url_page_key_dup(const char *url);

#endif
