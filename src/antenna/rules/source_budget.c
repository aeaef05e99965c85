/*
 * source_budget.c: the rules of a source's budgets (ant_source_budget.h):
 * news made events per run and per day, records read per body, churn,
 * and the digest that tells a body read before.  Pure: no I/O, no SQL.
 */
#include "ant_source_budget.h"

void ant_source_limits_init(ant_source_limits *l)
{
	l->max_news = ANT_SOURCE_MAX_NEWS;
	l->max_news_day = ANT_SOURCE_MAX_NEWS_DAY;
	l->max_records = ANT_SOURCE_MAX_RECORDS;
}

/* FNV-1a, 64 bits: some 1 GB/s, so a 8 MB body (update's --max-body) costs
 * a few milliseconds.  Not a defence against a source forging a collision:
 * it could only make us skip its own changed body, what a 304 does too. */
uint64_t ant_source_digest(const void *body, size_t len)
{
	const unsigned char *p = body;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h ? h : 1;
}

void ant_source_budget_begin(ant_source_budget *b, int64_t now)
{
	int64_t day = now / 86400;

	if (day != b->day) {
		b->day = day;
		b->news_day = 0;
	}
	b->parsed = 0;
}

/* A body is read: the counts of the last one give way (a body skipped
 * as the same keeps them: they still say what it holds). */
void ant_source_budget_read(ant_source_budget *b)
{
	b->news = b->held = 0;
	b->known = b->changed = 0;
	b->records = 0;
	b->cut = 0;
	b->parsed = 1;
	b->added = b->dropped = 0;
}

int ant_source_budget_same(const ant_source_budget *b, const ant_source_limits *l, uint64_t digest,
			   size_t len)
{
	if (!b->digest || b->digest != digest || b->body_len != (int64_t)len)
		return 0;
	/* a body cut at a bound since raised has more to give */
	return !b->cut || (l->max_records >= 0 && l->max_records <= b->records);
}

int ant_source_budget_churning(const ant_source_budget *b)
{
	return b->churn_reads >= ANT_SOURCE_CHURN_READS;
}

/* A bound divided for a churning source (-1 stays no bound). */
static int64_t bound(const ant_source_budget *b, int64_t v)
{
	return v < 0 || !ant_source_budget_churning(b) ? v : v / ANT_SOURCE_CHURN_DIVISOR;
}

int ant_source_budget_news(ant_source_budget *b, const ant_source_limits *l)
{
	int64_t run = bound(b, l->max_news), day = bound(b, l->max_news_day);

	if ((run >= 0 && b->news >= run) || (day >= 0 && b->news_day >= day)) {
		b->held++;
		return 0;
	}
	b->news++;
	b->news_day++;
	return 1;
}

int ant_source_budget_record(ant_source_budget *b, const ant_source_limits *l)
{
	if (l->max_records >= 0 && b->records >= l->max_records) {
		b->cut = 1;
		return 0;
	}
	b->records++;
	return 1;
}

void ant_source_budget_seen(ant_source_budget *b, int had, int newer)
{
	b->known += had != 0;
	b->added += !had;
	b->changed += had && newer;
}

/* Churn is "most records changed at every read": a read that does not
 * show it ends the run of churning reads (and the flag). */
void ant_source_budget_end(ant_source_budget *b)
{
	if (b->known >= ANT_SOURCE_CHURN_MIN && b->changed * 2 > b->known)
		b->churn_reads++;
	else
		b->churn_reads = 0;
}
