/*
 * page_text.c: whitespace collapsed as a page's text is built
 * (priv/page_int.h).  Below page.c's walk and page_pattern.c's removal of
 * ignored parts, which both build text with it: page.c calls the
 * patterns, so the patterns cannot call back into page.c.
 */
#include "lb_buf.h"
#include "page_int.h"

/* Room is made once per call: this runs over every byte of every page. */
int ant_page_add_collapsed(lb_buf *out, const char *s, size_t n, int *space)
{
	char *o;
	int sp = *space;

	if (lb_buf_grow(out, n) < 0)
		return LB_ENOMEM;
	o = out->data + out->len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			if (!sp)
				*o++ = ' ';
			sp = 1;
		} else {
			*o++ = (char)c;
			sp = 0;
		}
	}
	*o = '\0';
	out->len = (size_t)(o - out->data);
	*space = sp;
	return 0;
}
