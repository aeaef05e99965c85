/*
 * t_source_budget.c: a source's budgets (ant_source_budget.h): news made
 * events per run and per day, divided for a churning source; records per
 * body; churn told only after ANT_SOURCE_CHURN_READS reads in a row of
 * mostly changed records; an unchanged body told by its digest, except
 * when it was cut at a bound since raised; the row kept in the store.
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <unistd.h>

#include "atom_db.h"

#include "ant_source_budget.h"
#include "ant_store.h"

/* One read at now: `known` records the source had, `changed` of them newer. */
static void a_read(ant_source_budget *b, int64_t now, int known, int changed)
{
	ant_source_budget_begin(b, now);
	ant_source_budget_read(b);
	for (int i = 0; i < known; i++)
		ant_source_budget_seen(b, 1, i < changed);
	ant_source_budget_end(b);
}

static int news(ant_source_budget *b, const ant_source_limits *l, int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += ant_source_budget_news(b, l);
	return made;
}

int main(void)
{
	ant_source_budget b = { .source_id = 1 };
	ant_source_limits l;
	int64_t day0 = 20000 * (int64_t)86400;
	const char body[] = "LIRS,1,2,+32400,0,http://a.example/,a,0,http://s/,\n";

	TAP_PLAN(21);
	ant_source_limits_init(&l);
	IS_INT(l.max_news, ANT_SOURCE_MAX_NEWS, "default news budget");
	IS_INT(l.max_records, ANT_SOURCE_MAX_RECORDS, "default records budget");

	/* news per run, then per day */
	l.max_news = 10;
	l.max_news_day = 25;
	ant_source_budget_begin(&b, day0);
	ant_source_budget_read(&b);
	IS_INT(news(&b, &l, 100), 10, "a run makes at most max_news events");
	IS_INT(b.held, 90, "the rest is held and counted");
	ant_source_budget_begin(&b, day0 + 60);
	ant_source_budget_read(&b);
	IS_INT(news(&b, &l, 100), 10, "the next run again max_news");
	ant_source_budget_begin(&b, day0 + 120);
	ant_source_budget_read(&b);
	IS_INT(news(&b, &l, 100), 5, "the day's budget ends a third run early");
	ant_source_budget_begin(&b, day0 + 86400);
	ant_source_budget_read(&b);
	IS_INT(news(&b, &l, 100), 10, "a new UTC day starts a new day budget");
	l.max_news = l.max_news_day = -1;
	IS_INT(news(&b, &l, 1000), 1000, "-1: no bound");

	/* churn */
	b = (ant_source_budget){ .source_id = 1 };
	a_read(&b, day0, 1000, 1000);
	OK(!ant_source_budget_churning(&b), "one read of all changed is an ordinary big update");
	a_read(&b, day0, 1000, 501);
	OK(ant_source_budget_churning(&b), "two in a row of most changed: churning");
	l.max_news = 100;
	l.max_news_day = 5000;
	ant_source_budget_begin(&b, day0);
	ant_source_budget_read(&b);
	IS_INT(news(&b, &l, 100), 100 / ANT_SOURCE_CHURN_DIVISOR, "a churning source's budget is divided");
	b.churn_reads = 1;
	a_read(&b, day0, 1000, 500);
	OK(!ant_source_budget_churning(&b) && b.churn_reads == 0, "half changed is not most: the flag goes");
	a_read(&b, day0, ANT_SOURCE_CHURN_MIN - 1, ANT_SOURCE_CHURN_MIN - 1);
	a_read(&b, day0, ANT_SOURCE_CHURN_MIN - 1, ANT_SOURCE_CHURN_MIN - 1);
	OK(!ant_source_budget_churning(&b), "a small list changing whole is no sign");

	/* records, and the digest */
	l.max_records = 3;
	ant_source_budget_read(&b);
	IS_INT(ant_source_budget_record(&b, &l) + ant_source_budget_record(&b, &l) +
	       ant_source_budget_record(&b, &l) + ant_source_budget_record(&b, &l), 3,
	       "a body gives at most max_records");
	OK(b.cut, "and says it was cut");
	b.digest = ant_source_digest(body, sizeof body - 1);
	b.body_len = sizeof body - 1;
	OK(ant_source_budget_same(&b, &l, ant_source_digest(body, sizeof body - 1), sizeof body - 1),
	   "the same body at the same bound: not read again");
	OK(!ant_source_budget_same(&b, &l, ant_source_digest(body, sizeof body - 2), sizeof body - 2),
	   "another body: read");
	l.max_records = 4;
	OK(!ant_source_budget_same(&b, &l, b.digest, sizeof body - 1),
	   "a cut body read again when the bound was raised");
	OK(ant_source_digest("", 0) != 0, "0 is never a digest (it is none)");

	/* the row in the store */
	{
		char dir[] = "/tmp/t_source_budget.XXXXXX", path[256];
		ant_store *s = NULL;
		ant_store_source src;
		ant_source_budget got;
		lb_error err = LB_ERROR_INIT;
		int ok = mkdtemp(dir) != NULL;

		snprintf(path, sizeof path, "%s/a.db", dir);
		t_db_map(path, sizeof path);
		ant_store_source_init(&src);
		src.url = src.url_key = "http://s.example/lirs.gz";
		ok = ok && ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) == 0 &&
		     ant_store_source_add(s, &src, &err) == 0;
		b.source_id = atom_db_last_insert_rowid(ant_store_db(s));
		OK(ok && ant_store_budget_put(s, &b, &err) == 0 &&
		   ant_store_budget_get(s, b.source_id, &got, &err) == 0 && got.digest == b.digest &&
		   got.cut == 1 && got.records == 3 && got.churn_reads == b.churn_reads,
		   "the row round-trips through the store");
		OK(ant_store_budget_get(s, b.source_id + 1, &got, &err) == 0 && got.digest == 0,
		   "no row: a fresh budget");
		ant_store_close(s);
		unlink(path);
		rmdir(dir);
	}
	TAP_DONE();
}
