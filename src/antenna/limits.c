/*
 * limits.c: clipping the texts the antenna takes in (ant_limits.h).
 */
#include "ant_limits.h"
#include "ant_page.h"
#include "lb_utf8.h"

#include <string.h>

char *ant_clip(const char *s, size_t max_chars)
{
	return ant_page_clip(s ? s : "", max_chars);
}

char *ant_clip_inplace(char *s, size_t max_chars)
{
	if (s)
		s[lb_utf8_prefix(s, strlen(s), max_chars)] = '\0';
	return s;
}
