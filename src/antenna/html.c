#include "html.h"

#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD */

/* Length of the valid UTF-8 sequence starting at s (RFC 3629 §4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned lo = 0x80, hi = 0xBF;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	/* The second byte's range rules out overlongs, surrogates, > U+10FFFF. */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

size_t ant_html_span(const char *s, size_t len, const char **repl, size_t *skip)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned c = u[i];
		const char *r = NULL;

		if (c >= 0x80) {
			n = utf8_len(u + i, len - i);
			if (n) {
				i += n;
				continue;
			}
			r = REPLACEMENT;
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
					r = REPLACEMENT;
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
			return -1;
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
			return -1;
		s += n + skip;
		len -= n + skip;
	}
	return 0;
}
