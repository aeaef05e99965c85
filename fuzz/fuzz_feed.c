/*
 * fuzz_feed: libFuzzer target for the streaming feed reader (src/antenna/feed.c).
 * The first byte picks the chunk size (0: one byte at a time, else 1..255
 * times 61 bytes); the rest is the feed.  Beyond "no crash, no leak", it
 * checks a property: the result (return code, kind, counts, newest date
 * and title, archive links) does not depend on how the body is cut.
 * Also runs ant_feed_parse_date() and ant_clip() over the input as text.
 */
#include "ant_feed.h"
#include "ant_limits.h"
#include "ant_page.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_entry(void *ctx, const ant_feed_entry *e)
{
	(*(size_t *)ctx) += strlen(e->title) + strlen(e->link) + strlen(e->id) > 3 * ANT_FEED_MAX_TEXT + 16;
	return 0;
}

static int parse(const uint8_t *d, size_t n, size_t step, ant_feed_info *fi, size_t *toolong)
{
	ant_feed_opts o = { .now = 1795000000, .on_entry = count_entry, .ctx = toolong };
	ant_feed_parser *p = ant_feed_parser_new(&o);
	int rc = 0;

	if (!p)
		abort();
	for (size_t off = 0; off < n && rc == 0; off += step)
		rc = ant_feed_parse_chunk(p, (const char *)d + off, n - off < step ? n - off : step);
	rc = ant_feed_parse_finish(p, fi);   /* a chunk's failure too */
	ant_feed_parser_free(p);
	return rc;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ant_feed_info a, b;
	size_t step, la = 0, lb = 0;
	int ra, rb;
	char *s, *c;

	if (size < 1)
		return 0;
	step = data[0] ? (size_t)data[0] * 61 : 1;
	ra = parse(data + 1, size - 1, size, &a, &la);
	rb = parse(data + 1, size - 1, step, &b, &lb);
	if (la || lb)
		abort();   /* a kept text longer than ANT_FEED_MAX_TEXT */
	if (ra == 0 && rb == 0 &&
	    (a.kind != b.kind || a.entries != b.entries || a.dated != b.dated ||
	     a.newest != b.newest || !same(a.newest_title, b.newest_title) ||
	     !same(a.prev_archive, b.prev_archive) || !same(a.next_archive, b.next_archive)))
		abort();
	ant_feed_info_release(&a);
	ant_feed_info_release(&b);
	if ((s = malloc(size)) != NULL) {
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		(void)ant_feed_parse_date(s);
		if ((c = ant_clip(s, data[0])) != NULL)
			free(c);
		free(s);
	}
	return 0;
}
