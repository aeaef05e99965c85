/*
 * lirs_merge.h: one record per URL out of any number of LIRS inputs.
 *
 * - records are matched by lb_url_key() (lb_url.h: RFC 3986 §6.2.2.1 and
 *   §6.2.3: scheme and host lowercased, a default port dropped; the path,
 *   query and userinfo compared as written).
 * - lirs_merge_supersedes(): the winner rule, shared with the antenna.
 * - lirs_merge_check_at(): the drop rules (unusable, from the future, stale;
 *   LIRS 2.1 §4), shared with the antenna's relay of LIRS sources and
 *   lirs atom: one rule for every reader of other antennas' records.
 * - lirs_merge_table: an open-addressing hash table keyed by the URL key whose
 *   strings live in a chunked pool, so memory grows with the number of
 *   distinct URLs, not with the input size.
 */
#ifndef LIRS_MERGE_H
#define LIRS_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "lirs.h"

/*
 * The winner rule: nonzero when a record seen later (lm_new, ld_new)
 * replaces the one held (lm_old, ld_old): the greater Last-Modified; on a
 * tie the greater Last-Detected; on a tie the later one.
 */
int lirs_merge_supersedes(int64_t lm_new, int64_t ld_new, int64_t lm_old, int64_t ld_old);

/*
 * Clock skew tolerated in a record's times, in seconds: a Last-Modified or
 * Last-Detected later than now plus this is from a clock that runs ahead
 * (or a typo), not news.  One hour covers a peer a time zone off.
 * Overridable: lirs merge --max-future, antenna init --max-future.
 */
#define LIRS_DEFAULT_MAX_FUTURE 3600

/* What lirs_merge_check_at() says of a record. */
enum { LIRS_MERGE_USABLE = 0, LIRS_MERGE_UNUSABLE = 1, LIRS_MERGE_STALE = 2, LIRS_MERGE_FUTURE = 3 };
/*
 * The drop rules, in this order: LIRS_MERGE_UNUSABLE when Last-Modified or
 * Last-Detected is 0 (unknown) or the URL is blank; LIRS_MERGE_FUTURE when
 * Last-Modified or Last-Detected is more than max_future seconds after now
 * (0 means LIRS_DEFAULT_MAX_FUTURE, a negative max_future turns the rule
 * off): such a record is dropped, not clamped, so that a peer with a wrong
 * clock never wins over a valid record; LIRS_MERGE_STALE when Last-Detected is
 * more than max_age seconds before now (LIRS 2.1 §4; max_age 0 means
 * LIRS_DEFAULT_MAX_AGE, a negative max_age turns the rule off).
 */
int lirs_merge_check_at(const lirs_record *r, int64_t now, int64_t max_age, int64_t max_future);
/*
 * The one future rule, for a single time: nonzero when t is more than
 * max_future seconds after now (0 means LIRS_DEFAULT_MAX_FUTURE, a
 * negative max_future turns the rule off).  lirs_merge_check_at() applies
 * it to a record's times; the antenna to a page's Last-Modified and Date
 * headers (ant_detect.h) and to its feed's dates (ant_feed.h's skew).
 */
int lirs_merge_future(int64_t t, int64_t now, int64_t max_future);
/* lirs_merge_check_at() with the default max_future. */
int lirs_merge_check(const lirs_record *r, int64_t now, int64_t max_age);

/* ---- the table -------------------------------------------------------- */
typedef struct lirs_merge_opts {
	int64_t now;        /* Unix time for the freshness rule */
	int64_t max_age;    /* as for lirs_merge_check_at() */
	int64_t max_future; /* as for lirs_merge_check_at() */
} lirs_merge_opts;

typedef struct lirs_merge_stats {
	uint64_t read;              /* records offered to lirs_merge_add() */
	uint64_t kept;              /* distinct URLs held (the output size) */
	uint64_t replaced;          /* a held record replaced by a newer one */
	uint64_t superseded;        /* a record that lost to the one held */
	uint64_t dropped_unusable;  /* Last-Modified/Last-Detected 0, blank URL */
	uint64_t dropped_stale;     /* detected more than max_age before now */
	uint64_t dropped_future;    /* a time more than max_future after now */
} lirs_merge_stats;
/* read = kept + replaced + superseded + dropped_unusable + dropped_stale
 *        + dropped_future */

typedef struct lirs_merge_table lirs_merge_table;

/* NULL when out of memory. */
lirs_merge_table *lirs_merge_new(const lirs_merge_opts *opts);
/*
 * Offers one record (borrowed; copied only when it wins).  A record added
 * later wins ties (lirs_merge_supersedes()).  Returns 0, LB_ENOMEM, or
 * LB_ETOOBIG when the table outgrows its 32-bit references (over 2^31
 * URLs or 16 GiB of records).  After a failure every later call fails
 * with the same code.
 */
int lirs_merge_add(lirs_merge_table *t, const lirs_record *r);
/* The counts so far (records staged by lirs_merge_add() are looked up first). */
const lirs_merge_stats *lirs_merge_get_stats(lirs_merge_table *t);
/*
 * Calls fn for every held record in output order: Last-Modified
 * descending, then URL key ascending (bytewise; keys are distinct).  The record is borrowed,
 * valid during the call; its line field is 0.  Stops and returns fn's value
 * when fn returns nonzero; returns the code of an earlier
 * lirs_merge_add() failure or LB_ENOMEM, else 0.  Records may be added
 * again afterwards.
 */
int lirs_merge_each(lirs_merge_table *t, int (*fn)(void *ctx, const lirs_record *r), void *ctx);
void lirs_merge_free(lirs_merge_table *t);

#endif
