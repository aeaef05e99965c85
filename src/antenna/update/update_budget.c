/*
 * update_budget.c: the update engine's side of a source's budgets
 * (ant_source_budget.h): the source's row loaded when its turn begins,
 * each record and each news asked for, an unchanged body told by its
 * digest, and the row written back with the run's counts.
 */
#include "ant_source_budget.h"
#include "update_int.h"

int ant_upd_budget_begin(struct upd *u, ant_store_source *src)
{
	int rc = ant_store_budget_get(u->s, src->id, &u->bud, &u->err);

	if (rc < 0)
		u->failed_db = 1;
	ant_source_budget_begin(&u->bud, u->now);
	return rc;
}

int ant_upd_budget_same(struct upd *u, const ant_fetch_result *res)
{
	uint64_t d = ant_source_digest(res->body, res->len);

	if (!ant_source_budget_same(&u->bud, &u->o->budget, d, res->len))
		return 0;
	u->bud.unchanged++;
	/* hina.txt has no Last-Detected: each fetch is it, as a parse says */
	if (u->bud.by_fetch && (ant_upd_tx_need(u) < 0 ||
				ant_store_budget_redetect(u->s, u->bud.source_id, u->now, &u->err) < 0))
		u->failed_db = 1;
	u->st.sources_same++;
	return 1;
}

void ant_upd_budget_read(struct upd *u)
{
	ant_source_budget_read(&u->bud);
}

void ant_upd_budget_body(struct upd *u, const ant_fetch_result *res, int by_fetch)
{
	u->bud.digest = ant_source_digest(res->body, res->len);
	u->bud.body_len = (int64_t)res->len;
	u->bud.by_fetch = by_fetch;
	u->bud.unchanged = 0;
}

int ant_upd_budget_record(struct upd *u)
{
	return ant_source_budget_record(&u->bud, &u->o->budget);
}

int ant_upd_budget_news(struct upd *u)
{
	return ant_source_budget_news(&u->bud, &u->o->budget);
}

void ant_upd_budget_seen(struct upd *u, int had, int newer)
{
	ant_source_budget_seen(&u->bud, had, newer);
}

void ant_upd_budget_finish(struct upd *u, ant_store_source *src)
{
	ant_source_budget *b = &u->bud;

	if (b->parsed) {
		ant_source_budget_end(b);
		/* what the body (and the pruning after it) left it relaying:
		 * counted again only when it may have changed (a scan of the
		 * records; a shard's cycle adds no URL and drops none) */
		if (src->relay && (b->added || b->dropped || !b->stored)) {
			int64_t n = ant_store_budget_relayed(u->s, src->id, &u->err);

			if (n < 0)
				u->failed_db = 1;
			else
				b->pages_relayed = n;
		}
	}
	if (src->relay)
		u->st.records_relayed += b->pages_relayed;
	u->st.news_held += b->parsed ? b->held : 0;
	u->st.sources_churning += ant_source_budget_churning(b);
	u->st.sources_cut += b->parsed && b->cut;
	if (!u->failed_db && (ant_upd_tx_need(u) < 0 || ant_store_budget_put(u->s, b, &u->err) < 0))
		u->failed_db = 1;
}
