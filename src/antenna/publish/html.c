/*
 * html.c: the one HTML escaper (priv/html.h): each byte of untrusted text
 * mapped once, so that nothing reaches a page raw or escaped twice.
 */
#include "html.h"

#include <string.h>

#include "lb_error.h"
#include "lb_utf8.h"

size_t ant_html_span(const char *s, size_t len, const char **repl, size_t *skip)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned c = u[i];
		const char *r = NULL;

		if (c >= 0x80) {
			n = lb_utf8_len(s + i, len - i);
			if (n) {
				i += n;
				continue;
			}
			r = LB_UTF8_FFFD;
		} else {
			switch (c) {
			case '&': r = "&amp;"; break;
			case '<': r = "&lt;"; break;
			case '>': r = "&gt;"; break;
			case '"': r = "&quot;"; break;
			case '\'': r = "&#39;"; break;
			case '\t': case '\n': case '\r': break;
			default:
				if (c < 0x20 || c == 0x7F)
					r = LB_UTF8_FFFD;
			}
			if (!r) {
				i++;
				continue;
			}
		}
		*repl = r;
		*skip = 1;
		return i;
	}
	*repl = NULL;
	*skip = 0;
	return i;
}

int ant_html_escape(lb_buf *out, const char *s, size_t len)
{
	while (len) {
		const char *r;
		size_t skip, n = ant_html_span(s, len, &r, &skip);

		if (lb_buf_add(out, s, n) < 0 || (r && lb_buf_adds(out, r) < 0))
			return LB_ENOMEM;
		s += n + skip;
		len -= n + skip;
	}
	return 0;
}

int ant_html_fputs(FILE *fp, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	while (len) {
		const char *r;
		size_t skip, n = ant_html_span(s, len, &r, &skip);

		if ((n && fwrite(s, 1, n, fp) != n) || (r && fputs(r, fp) == EOF))
			return LB_EIO;
		s += n + skip;
		len -= n + skip;
	}
	return 0;
}
