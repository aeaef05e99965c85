/*
 * limits.c: clipping the texts the antenna takes in (ant_limits.h).
 */
#include "ant_limits.h"
#include "ant_page.h"
#include "lb_utf8.h"

#include <stdlib.h>
#include <string.h>

static size_t chars_of(const char *s)
{
	size_t n = strlen(s), i = 0, c = 0, k;

	while (i < n) {
		k = lb_utf8_len(s + i, n - i);
		i += k ? k : 1;
		c++;
	}
	return c;
}

/* ant_page_clip() keeps max characters and adds "…" when it cuts: one
 * fewer then, so that the result, mark included, is within max. */
char *ant_clip(const char *s, size_t max_chars)
{
	char *r;

	if (max_chars < 2)
		max_chars = 2;
	r = ant_page_clip(s ? s : "", max_chars);
	if (r && chars_of(r) > max_chars) {
		free(r);
		r = ant_page_clip(s, max_chars - 1);
	}
	return r;
}

char *ant_clip_inplace(char *s, size_t max_chars)
{
	if (s)
		s[lb_utf8_prefix(s, strlen(s), max_chars)] = '\0';
	return s;
}
