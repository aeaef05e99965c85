/*
 * ant_tokens.h: volatility per token.  The noise-proof text rule
 * (ant_detect.h) compares segments with their numbers, dates and times
 * normalised away (ant_noise.h), so that a counter or a clock is no
 * update; but then "次回の例会は12月3日" -> "12月10日", a price or a
 * score edited on an otherwise stable page is no update either.  This
 * rule watches the segments whose normalised text stayed while their text
 * as written changed:
 *   - a segment changed only in its tokens is held, not announced;
 *   - when the next check finds it as it was held, the change stayed: an
 *     edit, announced then, dated when it was first seen;
 *   - when it changed again, it is a counter: learned, and its changes are
 *     no update from then on; a counter found unchanged for
 *     ANT_TOKENS_STABLE is forgotten (it may have become text);
 *   - a change that comes with other news of the page is part of that
 *     update, not held;
 *   - (ant_tokens_decide_text()) a change made only of clocks is no
 *     change at all: an age, a timing, a date or time moved forward to a
 *     moment since the last check (a "generated on" stamp), a seconds
 *     counter (ant_clock.h); each sentence's numbers, dates and times are
 *     kept as marks for that.
 * Pure logic over segment hashes and "now"; no I/O.
 */
#ifndef ANT_TOKENS_H
#define ANT_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "ant_page.h"

#define ANT_TOKENS_MAX_KEYS 512        /* segments remembered (= ANT_PAGE_MAX_SEGMENTS) */
#define ANT_TOKENS_MAX_HELD 16         /* held changes kept per page */
#define ANT_TOKENS_MAX_COUNTERS 32     /* learned counters kept per page */
#define ANT_TOKENS_STABLE (7 * 86400)  /* a counter unchanged this long is forgotten */

#define ANT_TOKENS_MAX_MARKS 6         /* tokens of a segment read as clocks (ant_clock.h);
					  a segment with more is judged as before */

/* A segment as this rule remembers it: its block and normalised text
 * folded to 32 bits, 16 bits of its text as written, and a mark of each
 * of its numbers, dates and times (ant_clock_mark(); nmarks 0: none
 * kept).  A segment whose normalised text stands elsewhere on the page
 * with other numbers (a calendar's cells) is left out: its numbers can
 * change place by markup alone. */
typedef struct ant_tokens_key {
	uint32_t key;
	uint16_t raw;
	uint8_t nmarks;
	uint32_t mark[ANT_TOKENS_MAX_MARKS];
} ant_tokens_key;

typedef struct ant_tokens_held {
	uint32_t key;
	uint16_t raw;            /* the text it changed to */
	int64_t since;           /* when the change was first seen */
} ant_tokens_held;

typedef struct ant_tokens_counter {
	uint32_t key;
	int64_t since;           /* learned */
	int64_t last;            /* its last change seen */
} ant_tokens_counter;

typedef struct ant_tokens {
	ant_tokens_key *keys;    /* last check's, sorted by key, each key once; malloc'd */
	size_t nkeys;
	int has_keys;            /* a check was seen */
	ant_tokens_held held[ANT_TOKENS_MAX_HELD];
	size_t nheld;
	ant_tokens_counter ctr[ANT_TOKENS_MAX_COUNTERS];
	size_t nctr;
	int64_t last;            /* the last check's time (0: unknown) */
	uint32_t shape;          /* the last check's segments, places and normalised
				    texts in order, hashed (with has_shape) */
	int has_shape;
	unsigned quiet;          /* checks in a row, up to the last one, that found
				    the page's text as the check before (clocks
				    aside): it held still (ANT_TOKENS_QUIET_MAX at most) */
	int64_t still;           /* the last change announced in its own check
				    because the page had held still (update_text.c);
				    0 = none */
	int64_t unasked;         /* the last check whose small change was decided
				    without a second fetch, as the page had held
				    still (update_check.c); 0 = none */
} ant_tokens;

#define ANT_TOKENS_QUIET_MAX 255

void ant_tokens_init(ant_tokens *t);
void ant_tokens_release(ant_tokens *t);

typedef struct ant_tokens_verdict {
	int updated;             /* a held token change stayed: an edit */
	int64_t since;           /* when it was first seen */
	size_t held;             /* changes held now */
	size_t learned;          /* counters learned now */
	size_t forgotten;        /* counters forgotten now */
	int same_shape;          /* (time-aware) the page's segments are the last
				    check's, in order, but for their numbers, dates
				    and times: nothing added, removed or reworded */
	size_t moved;            /* segments whose numbers changed, not as clocks
				    (learned counters included) */
	unsigned quiet;          /* the state's quiet before this check: checks in a
				    row that found the page as the one before */
	size_t clocks;           /* segments whose change was only clocks: stamps
				    moved to a moment since the last check, ages,
				    timings (ant_clock.h); no news, never held */
	int picked;              /* pick has a segment */
	unsigned char *pick;     /* per segment: 1 = the edit (or, with other news, a
				    sentence changed only in its numbers), for the
				    excerpt; malloc'd, NULL when none */
} ant_tokens_verdict;

void ant_tokens_verdict_release(ant_tokens_verdict *v);

/* Does the text hold a digit (ASCII or full-width)?  Only such segments
 * can change in their numbers alone: the others need not be remembered
 * (the caller skips them, and the state stays small). */
int ant_tokens_has_number(const char *s, size_t n);

/*
 * Decides one check of the page whose segments are seg (skip: per segment,
 * 1 = leave it out, e.g. a block the noise rule learned volatile; may be
 * NULL).  other_news: flags; ANT_TOKENS_OTHER_NEWS (or 1): the page is
 * announced for other news in this check (its token changes are part of
 * that update); ANT_TOKENS_WATCHED: the operator named the part read
 * (--only), so a change of its numbers is an update now, never held nor
 * learned as a counter (a change made only of clocks is still none).  Keeps the check as the
 * next one's reference.  Returns 0, or LB_ENOMEM (then *t is unchanged
 * and v says nothing).
 */
#define ANT_TOKENS_OTHER_NEWS 1
#define ANT_TOKENS_WATCHED 2

int ant_tokens_decide(ant_tokens *t, const ant_page_seg *seg, size_t nseg, const unsigned char *skip,
		      int other_news, int64_t now, ant_tokens_verdict *v);

/*
 * The same, time-aware: text is the page's text seg[].off/len point into
 * (ant_page_info.text).  A segment whose tokens changed only as clocks
 * (ant_clock_moved(): a date or a time moved forward to a moment since
 * the last check, an age, a timing, a seconds counter) is unchanged: a
 * stamp is not announced, not held, not confirmed later, and a change
 * held beside it is confirmed as if it had not moved.  A date edited to
 * anything else is held and announced as above.  v->same_shape says
 * whether the page's segments are the last check's but for their tokens.
 * text NULL: as ant_tokens_decide().
 */
int ant_tokens_decide_text(ant_tokens *t, const ant_page_seg *seg, size_t nseg, const char *text,
			   const unsigned char *skip, int other_news, int64_t now, ant_tokens_verdict *v);

/*
 * The noise rule picks what an update added by its keys; when the page
 * shows a key more than once ("本日のツッコミ(全#件)" under every day) and
 * one more of it now, the instance picked may be an old one.  This moves
 * a picked segment that stands alone to an instance of the same key that
 * stands next to other picked news (the new comment's caption).
 */
void ant_tokens_place_pick(const ant_page_seg *seg, size_t n, unsigned char *pick);

/*
 * Held changes first seen at or after from confirmed by something other
 * than the next answer's text (held.c, as ant_detect_noise_confirm()): a
 * 304 (from 0), or a source dating a change of the page in the check
 * that held them.  They are no longer held; pick (may be NULL) marks the
 * segments of seg that show them.  Returns the earliest first sighting of
 * those confirmed, 0 when none.
 */
int64_t ant_tokens_confirm(ant_tokens *t, int64_t from, const ant_page_seg *seg, size_t nseg,
			   unsigned char *pick);

/*
 * Labels that moved between rows: is the new segment s[0..n) a line of
 * the text the page showed before (old, one segment a line) but for at
 * most ANT_TOKENS_LABEL_WORDS short words at its end, dropped or gained,
 * no number among them, each of which but one stands elsewhere too (one
 * at least, of three bytes or more: "a", "of" stand everywhere) -- in
 * the page's text now (page, outside s) or in another line of the old
 * text?  A log's newest row loses its "default tip" to a newer commit
 * ("tip" also in the menu): the row's own words are unchanged.  Labels
 * side by side may have no space between them in the text ("typoHEAD
 * master", two inline links): a word standing elsewhere at either end of
 * such a run splits it.  Compared
 * normalised (numbers, dates and ages aside); the row keeps at least two
 * words of its own.  A sentence an author shortened drops words that
 * stand nowhere else: an edit.  1 or 0 (out of memory: 0).
 */
#define ANT_TOKENS_LABEL_WORDS 3
#define ANT_TOKENS_LABEL_LEN 24
int ant_tokens_labels_moved(const char *s, size_t n, const char *old, size_t oldlen, const char *page,
			    size_t pagelen);

/* The state as a compact blob and back (ant_detect_noise_encode()'s
 * conventions): encode 0 and a malloc'd *blob, or LB_ENOMEM; decode 0, or
 * LB_EPARSE (then *t is empty: the next check is a baseline). */
int ant_tokens_encode(const ant_tokens *t, unsigned char **blob, size_t *len);
int ant_tokens_decode(ant_tokens *t, const void *blob, size_t len);

#endif
