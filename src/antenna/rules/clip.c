/*
 * clip.c: clipping the texts the antenna takes in (ant_limits.h): the
 * one clip function, for titles, authors and change excerpts alike.
 */
#include "ant_limits.h"
#include "lb_buf.h"
#include "lb_utf8.h"

#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The characters of s once collapsed, trimmed and cleaned, counted up to
 * limit + 1 (enough to know whether it must be cut). */
static size_t chars_of(const char *s, size_t n, size_t limit)
{
	size_t i = 0, c = 0, k;
	int space = 1, pending = 0;

	while (i < n && c <= limit) {
		if (!(k = lb_utf8_len(s + i, n - i))) {   /* an invalid byte is dropped */
			i++;
			continue;
		}
		if (k == 1 && is_space((unsigned char)s[i])) {
			pending |= !space;   /* counted only when more follows: trimmed */
			space = 1;
		} else {
			c += 1 + pending;
			pending = space = 0;
		}
		i += k;
	}
	return c;
}

/*
 * Whitespace runs become one space, leading and trailing ones go, invalid
 * bytes are dropped; when more than max_chars characters remain, the first
 * max_chars - 1 are kept (trailing space trimmed) and "…" added.
 */
char *ant_clip(const char *s, size_t max_chars)
{
	lb_buf b = LB_BUF_INIT;
	size_t n, keep, chars = 0, k, run = 0, at = 0;
	int space = 1;

	if (!s)
		s = "";
	if (max_chars < 2)
		max_chars = 2;
	n = strlen(s);
	keep = chars_of(s, n, max_chars) > max_chars ? max_chars - 1 : max_chars;
	/* the characters kept as they are go in by runs (s[at, at + run)),
	 * not one call each: every excerpt of every change comes here */
	for (size_t i = 0; i < n && chars < keep; i += k ? k : 1) {
		k = lb_utf8_len(s + i, n - i);
		if (k && !(k == 1 && is_space((unsigned char)s[i]))) {
			at = run ? at : i;
			run += k;
			chars++;
			space = 0;
			continue;
		}
		if (run && lb_buf_add(&b, s + at, run) < 0)
			goto oom;
		run = 0;
		if (!k)   /* an invalid byte: dropped */
			continue;
		if (!space && lb_buf_addc(&b, ' ') < 0)
			goto oom;
		chars += !space;
		space = 1;
	}
	if (run && lb_buf_add(&b, s + at, run) < 0)
		goto oom;
	while (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	if (keep < max_chars && lb_buf_adds(&b, "\xe2\x80\xa6") < 0)   /* … */
		goto oom;
	return lb_buf_detach(&b, NULL);
oom:
	lb_buf_release(&b);
	return NULL;
}

char *ant_clip_inplace(char *s, size_t max_chars)
{
	if (s)
		s[lb_utf8_prefix(s, strlen(s), max_chars)] = '\0';
	return s;
}
