/*
 * term.c: text from outside made safe for a terminal (lb_term.h).
 */
#include <string.h>

#include "lb_error.h"
#include "lb_term.h"
#include "lb_utf8.h"

/* The format controls that reorder text (Unicode's bidi controls): shown,
 * never obeyed, so a title cannot print backwards over its neighbours. */
static int bidi_control(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

static int add_shown(lb_buf *out, unsigned char c)
{
	switch (c) {
	case '\t': return lb_buf_adds(out, "\\t");
	case '\n': return lb_buf_adds(out, "\\n");
	case '\r': return lb_buf_adds(out, "\\r");
	default: return lb_buf_addf(out, "\\x%02X", c);
	}
}

int lb_term_add(lb_buf *out, const char *s, size_t n)
{
	size_t i = 0, k, run = 0;   /* s[run..i) is safe, not yet copied */
	uint32_t cp;
	int rc = 0;

	while (i < n && rc == 0) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7F) {
			i++;
			continue;
		}
		k = c < 0x80 ? 1 : lb_utf8_decode(s + i, n - i, &cp);
		if (k > 1 && !(cp >= 0x80 && cp <= 0x9F) && !bidi_control(cp)) {
			i += k;
			continue;
		}
		rc = lb_buf_add(out, s + run, i - run);
		if (rc == 0 && k > 1)
			rc = lb_buf_addf(out, "\\u%04X", (unsigned)cp);
		else if (rc == 0)
			rc = add_shown(out, c);
		i += k ? k : 1;
		run = i;
	}
	if (rc == 0)
		rc = lb_buf_add(out, s + run, n - run);
	return rc < 0 ? LB_ENOMEM : 0;
}

const char *lb_term(lb_buf *tmp, const char *s)
{
	if (!s)
		return NULL;
	lb_buf_reset(tmp);
	if (lb_term_add(tmp, s, strlen(s)) < 0)
		return "(out of memory)";
	return tmp->data;
}
