/*
 * update_srcrec.c: what a source said, remembered (ant_store_srcrec:
 * for a page added later, and for a relay source the news it relays),
 * and a source's read finished: its counts, its state and the pruning of
 * its records, in one transaction.  Below the readers of every kind of
 * source (update_sources.c: LIRS, HINA-DI, Atom; update_sitemap.c):
 * update_sources.c hands a sitemap source to update_sitemap.c, so what
 * both need cannot live in update_sources.c.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ant_limits.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "update_int.h"

/*
 * A relay source's record of a page not watched here: is it news, to be
 * an update event (so that the hub's Atom files carry what it relays, and
 * a hub of hubs works over Atom too)?  Only when newer than what every
 * relay source held for the URL (four shards naming one update make one
 * event), and never on a source's first read: that is a baseline, like
 * an import; the updates in it were announced by the source itself, and
 * 100,000 of them at once would be 2,000 archives of old news.  Nor is
 * an Atom entry older than the newest one read before this run: the
 * archives a walk reaches only in a later run (ANT_UPDATE_MAX_ARCHIVES)
 * are the source's history, not news.  Asked (by
 * ant_upd_remember_record()) before the record is kept, when it is newer
 * than the source's own.  1 news, 0 not, < 0 error.
 */
static int relay_news(struct upd *u, const char *key, int64_t lm)
{
	int64_t newest;

	if (!u->src->relay || u->src_first_read || u->src_held ||
	    (u->src->kind == ANT_STORE_SOURCE_ATOM && lm <= u->src_entry_floor))
		return 0;
	if ((newest = ant_store_srcrec_relay_newest(u->s, key, &u->err)) < 0) {
		u->failed_db = 1;
		return (int)newest;
	}
	return lm > newest;
}

/* What SRC says of the URL with key KEY, kept for a page added later
 * (ant_store.h, ant_store_srcrec), and for a relay source the page it relays:
 * texts clipped as any text taken in.  A record the source gave before
 * (a shard's lirs.gz read again holds mostly those) is not written again.
 * With news (a page not watched here), *news says whether it is news
 * (relay_news()). */
int ant_upd_remember_record(struct upd *u, const ant_store_source *src, const char *key,
			    const char *url, int64_t lm, int64_t ld, const char *title,
			    const char *excerpt, const char *author, int64_t length, int *news)
{
	ant_store_srcrec r = { .url_key = key, .source_id = src->id, .url = url,
			       .last_modified = lm, .last_detected = ld, .excerpt = excerpt,
			       .content_length = length };
	int64_t had_lm, had_ld;
	char *t, *a;
	int rc;

	if (news)
		*news = 0;
	/* a source read for the first time has no rows to compare with (nor
	 * news: relay_news()); the put keeps the newer record either way */
	if (u->src_first_read)
		rc = 0;
	else if ((rc = ant_store_srcrec_times(u->s, key, src->id, &had_lm, &had_ld, &u->err)) < 0) {
		u->failed_db = 1;
		return rc;
	}
	ant_upd_budget_seen(u, rc == 1, rc == 1 && lm > had_lm);   /* churn */
	/* what ant_store_srcrec_put() would keep anyway: nothing to write */
	if (rc == 1 && (had_lm > lm || (had_lm == lm && had_ld >= ld)))
		return 0;
	if (news && !u->src_first_read && (rc == 0 || lm > had_lm)) {
		int is_news = relay_news(u, key, lm);

		if (is_news < 0)
			return is_news;
		*news = is_news;
	}
	t = ant_clip(title ? title : "", ANT_MAX_TITLE);
	a = ant_clip(author ? author : "", ANT_MAX_AUTHOR);
	r.title = t;
	r.author = a;
	if (!t || !a)
		rc = lb_err_code(&u->err, LB_ENOMEM);
	else if ((rc = ant_upd_tx_need(u)) == 0 && (rc = ant_store_srcrec_put(u->s, &r, &u->err)) < 0)
		u->failed_db = 1;
	free(t);
	free(a);
	return rc;
}

int ant_upd_remember(struct upd *u, const ant_store_source *src, const char *key, const char *url,
		     int64_t lm, int64_t ld)
{
	return ant_upd_remember_record(u, src, key, url, lm, ld, "", "", "", 0, NULL);
}

/* The bounds of what a source is remembered to have said (ant_store.h): the
 * 8-hour rule for LIRS and HINA-DI records, the history retention for an
 * Atom source's entries. */
static int64_t prune_records(struct upd *u, ant_store_source *src)
{
	int64_t age = u->o->max_age ? u->o->max_age : LIRS_DEFAULT_MAX_AGE;

	if (src->kind == ANT_STORE_SOURCE_ATOM)
		return ant_store_srcrec_prune(u->s, src->id, 0, u->o->keep_records, &u->err);
	return ant_store_srcrec_prune(u->s, src->id, age < 0 ? 0 : u->now - age, -1, &u->err);
}

/* A source (LIRS, DI or Atom) is read: its counts go into the run's, its
 * state is saved, in one transaction per source. */
void ant_upd_source_finish(struct upd *u, ant_store_source *src, int notmodified)
{
	u->st.records_read += src->records_read;
	u->st.records_merged += src->records_merged;
	if (!src->relay)
		u->st.records_ignored += src->records_ignored;
	u->st.records_skipped += src->records_skipped;
	ant_upd_trust_finish(u, src);   /* update_trust.c: its standing kept */
	if (u->o->on_source)
		u->o->on_source(u->o->ctx, src, notmodified);
	if (ant_upd_tx_need(u) == 0 && (ant_store_source_save(u->s, src, &u->err) < 0 ||
					(u->bud.dropped = prune_records(u, src)) < 0))
		u->failed_db = 1;
	ant_upd_budget_finish(u, src);   /* after the pruning: what it relays */
	ant_upd_tx_commit(u);
}
