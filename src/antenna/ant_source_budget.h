/*
 * ant_source_budget.h: how much one source may cost a run, and what it
 * remembers of its last read to tell:
 *
 * - the news it turns into update events (a relay source's records of
 *   pages not watched here that are newer than what any relay source
 *   said: relay_news() in update_sources.c), per run and per UTC day;
 *   news beyond the budget is still kept and published (index.html,
 *   lirs.gz), only no event is made of it, so the Atom archives, which
 *   never change once written (RFC 5005 §4), grow by a bounded number of
 *   files per run and per day;
 * - the records read from one LIRS or HINA-DI body per run (the reader
 *   is stopped there): the run's time is linear in the records, and
 *   bounded;
 * - churn: a source most of whose records get a new Last-Modified at
 *   every read (a hostile or broken peer) is flagged after
 *   ANT_SOURCE_CHURN_READS such reads in a row, and its news budgets
 *   drop to a tenth;
 * - the digest of the last body read: a body whose digest is the same
 *   is not decompressed or parsed again (a source whose server answers
 *   no conditional GET costs a hash, not a parse).
 *
 * The state is one row per source (table source_reads); the pure rules
 * are here, their SQL in store_budget.c, the engine's hooks in
 * update_budget.c.  Documented in antenna(1) (LIMITS) and README
 * ("Limits").
 */
#ifndef ANT_SOURCE_BUDGET_H
#define ANT_SOURCE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

/* Relayed news made update events per source and run (update
 * --max-source-news): 250 is five Atom archives of 50 entries (some
 * 120 KB), more than a shard of 25,000 pages finds changed in a
 * 10-minute cron cycle; beyond it a run's news are still published,
 * only not in the Atom files. */
#define ANT_SOURCE_MAX_NEWS 250
/* ... and per source and UTC day (update --max-source-news-day): 5,000
 * is 100 archives (some 2.4 MB) a day, a fifth of a 25,000-page shard
 * changing every day. */
#define ANT_SOURCE_MAX_NEWS_DAY 5000
/* Records read from one LIRS or HINA-DI body per run (update
 * --max-source-records): a million, the largest relay a hub is meant
 * for (some 15 s of a run, 150 MB of database); the rest of a bigger
 * body is not read, and the source says so ("cut"). */
#define ANT_SOURCE_MAX_RECORDS 1000000
/* A read tells churn only when the source had at least this many of the
 * records before (a small list changing whole is no sign)... */
#define ANT_SOURCE_CHURN_MIN 100
/* ... and more than half of those came with a new Last-Modified; so many
 * such reads in a row flag the source as churning (one is an ordinary
 * big update, say a shard checking everything after a pause). */
#define ANT_SOURCE_CHURN_READS 2
/* A churning source's news budgets are this fraction of the others'. */
#define ANT_SOURCE_CHURN_DIVISOR 10

/* The budgets of a run (ant_update_opts; -1: no bound). */
typedef struct ant_source_limits {
	int64_t max_news;         /* ANT_SOURCE_MAX_NEWS */
	int64_t max_news_day;     /* ANT_SOURCE_MAX_NEWS_DAY */
	int64_t max_records;      /* ANT_SOURCE_MAX_RECORDS */
} ant_source_limits;

void ant_source_limits_init(ant_source_limits *l);

/* A source's row of source_reads, and the run's counts while it is read. */
typedef struct ant_source_budget {
	int64_t source_id;
	/* what its last read body was (stored) */
	uint64_t digest;          /* ant_source_digest() of the body; 0: none yet */
	int64_t body_len;
	int by_fetch;             /* hina.txt: its records are dated by the fetch */
	int64_t unchanged;        /* bodies skipped in a row as the same */
	/* the news budget (stored) */
	int64_t day;              /* the UTC day news_day counts (now / 86400) */
	int64_t news_day;         /* events made that day */
	int64_t news;             /* events made by the last read */
	int64_t held;             /* news of the last read that made no event */
	/* churn (stored) */
	int64_t known;            /* records of the last read the source had before */
	int64_t changed;          /* of those, with a newer Last-Modified */
	int64_t churn_reads;      /* reads in a row where most of them changed */
	/* size (stored) */
	int cut;                  /* the last read stopped at max_records */
	int64_t records;          /* records taken from the last body read */
	int64_t pages_relayed;    /* a relay source: pages (URLs) it relays */
	/* the run (not stored) */
	int parsed;               /* a body was read in this run */
	int stored;               /* the row was in the store */
	int64_t added, dropped;   /* rows the read added, the pruning dropped */
} ant_source_budget;

/* 64-bit digest of a body (FNV-1a): equal bodies, equal digests; 0 is
 * never returned (0 is "none"). */
uint64_t ant_source_digest(const void *body, size_t len);

/* Starts a source's turn in a run at now: the day rolled over. */
void ant_source_budget_begin(ant_source_budget *b, int64_t now);
/* A body is about to be read: the last one's counts zeroed. */
void ant_source_budget_read(ant_source_budget *b);
/* 1 when a body of this digest and length is the one read last and
 * reading it again would give nothing more (not cut at a bound since
 * raised): it is not read again. */
int ant_source_budget_same(const ant_source_budget *b, const ant_source_limits *l, uint64_t digest,
			   size_t len);
/* 1: the source flags as churning (its budgets are divided). */
int ant_source_budget_churning(const ant_source_budget *b);
/* One news: 1 it may be an event (counted), 0 over a budget (held). */
int ant_source_budget_news(ant_source_budget *b, const ant_source_limits *l);
/* One more record: 1 read it, 0 the body's budget is spent (cut). */
int ant_source_budget_record(ant_source_budget *b, const ant_source_limits *l);
/* A record the source had before (had), with a newer Last-Modified (newer). */
void ant_source_budget_seen(ant_source_budget *b, int had, int newer);
/* The read is over: churn told from its counts. */
void ant_source_budget_end(ant_source_budget *b);

#endif
