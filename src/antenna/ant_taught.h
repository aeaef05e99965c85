/*
 * ant_taught.h: noise the operator taught ('antenna set URL --not-news'),
 * as data.  Pure: no I/O, no clock.
 *
 * What an announced update added is kept as runs: each a run of
 * consecutive segments (ant_page.h) the noise-proof rule picked as new,
 * known by the block of its first segment and by its anchor, the
 * normalised text (ant_page_seg.norm: numbers and dates do not change it)
 * of the nearest segment before it in the same block, 0 when it is the
 * block's first.  'set --not-news' makes those runs the page's taught
 * noise: from then on, at every check, a segment of that block after a
 * segment of the block with that text (or first in the block), and the
 * run's other segments after it, are left out of the comparison before
 * the text rule sees them, as furniture is.  A real edit elsewhere on the
 * page (another place, or the same block after other text) is still news.
 * The place and the text before it are what a person points at when they
 * say "that line changes every day".
 *
 * Stored as text, one run a line: "BLOCK ANCHOR N\tPATH\tSAMPLE" (block
 * and anchor 8 hex digits, N segments; the path and the start of the
 * run's text for 'antenna show', tabs and newlines made spaces).  At most
 * ANT_TAUGHT_MAX runs a page, the newest kept.
 */
#ifndef ANT_TAUGHT_H
#define ANT_TAUGHT_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "ant_page.h"

#define ANT_TAUGHT_MAX 32         /* taught runs kept per page (the newest) */
#define ANT_TAUGHT_RUN_SEGS 16    /* segments one run covers, at most */
#define ANT_TAUGHT_PATH 64        /* bytes of a run's path kept (its end) */
#define ANT_TAUGHT_SAMPLE 64      /* bytes of its text kept (its start) */
#define ANT_TAUGHT_TEXT_MAX 8192  /* bytes of a page's taught (or news) text */
/* What an update added is kept in the page's row until the next update
 * (for 'set --not-news'): its first ANT_TAUGHT_NEWS_RUNS runs, each with
 * the first ANT_TAUGHT_NEWS_SAMPLE characters of its text, so that a
 * page's row stays small (tests/dbsize: 500 bytes a page in all). */
#define ANT_TAUGHT_NEWS_RUNS 8
#define ANT_TAUGHT_NEWS_SAMPLE 40

typedef struct ant_taught_run {
	uint32_t block;           /* the run's first segment's block */
	uint32_t anchor;          /* norm of the segment before it; 0: page start */
	unsigned nseg;            /* 1..ANT_TAUGHT_RUN_SEGS */
	char path[ANT_TAUGHT_PATH];
	char sample[ANT_TAUGHT_SAMPLE];
} ant_taught_run;

/* The runs of text (lines as above) into out[0..max): how many; a line
 * that is not one is skipped. */
size_t ant_taught_parse(const char *text, ant_taught_run *out, size_t max);

/* The runs of picked segments (pick[i] != 0 for info->seg[i]) as lines
 * appended to out, at most ANT_TAUGHT_NEWS_RUNS.  0 or LB_ENOMEM. */
int ant_taught_news(const ant_page_info *info, const unsigned char *pick, lb_buf *out);

/* Marks (mark[i] = 1) the segments of info that a run of taught covers;
 * returns how many. */
size_t ant_taught_mark(const ant_page_info *info, const char *taught, unsigned char *mark);

/* Leaves the segments ant_taught_mark() marks out of info (seg, and segs
 * when parallel), as furniture is: the count left out, or LB_ENOMEM. */
int ant_taught_strip(ant_page_info *info, const char *taught);

/* taught with news's runs added (a run already there by block and anchor
 * is not repeated), the newest ANT_TAUGHT_MAX kept: malloc'd, NULL out
 * of memory.  *added: news's runs that were new. */
char *ant_taught_merge(const char *taught, const char *news, size_t *added);

#endif
