/*
 * update_trust.c: the update engine's side of the sources' trust
 * (ant_trust.h, scored by rules/trust.c): a source's newer time for a
 * watched page is a hint to check it early, never its date, unless the
 * page cannot be checked; our check of the page judges the claim
 * (update_int.h, ant_upd_trust_*).
 */
#include "ant_trust.h"
#include "ant_robots.h"
#include "update_int.h"

void ant_upd_trust_source(struct upd *u, const ant_store_source *src)
{
	ant_trust_score sc;

	if (!u->trust_loaded) {
		ant_trust_limits_load(u->s, &u->trust);
		u->trust_loaded = 1;
	}
	/* a database that cannot say believes the source, as before scores */
	u->src_hints = 1;
	u->src_held = 0;
	if (ant_trust_score_get(u->s, src->id, src->relay, &u->trust, &sc, &u->err) < 0) {
		u->failed_db = 1;
		return;
	}
	u->src_hints = sc.hints;
	u->src_held = ant_trust_holds(&u->trust, src->relay, &sc);
}

void ant_upd_trust_finish(struct upd *u, const ant_store_source *src)
{
	if (u->failed_db || ant_upd_tx_need(u) < 0)
		return;
	if (ant_store_trust_keep(u->s, src->id, u->src_held, u->now, &u->err) < 0)
		u->failed_db = 1;
}

/* A page we cannot check: its last check failed (its checks fail; the
 * backoff spaces them), or its site's robots.txt keeps us out. */
static int cannot_check(const ant_store_page *p)
{
	return p->st.error_count > 0 || ant_robots_excluded(p->fail_kind);
}

int ant_upd_trust_hint(struct upd *u, ant_store_page *p, int64_t lm, int64_t ld, int *dated)
{
	int rc;

	*dated = 0;
	if (lm <= 0 || lm <= p->st.last_modified)
		return 0;
	if (cannot_check(p)) {
		/* the source's date, from a believed source only, never after
		 * our clock (ant_detect_relay() clamps) */
		if (!u->src_hints || !ant_detect_relay(&p->st, lm, ld, u->now))
			return 0;
		*dated = 1;
		return 1;
	}
	/* a check of ours after that time saw the page as it was then */
	if (lm <= p->st.last_ok)
		return 0;
	if ((rc = ant_upd_tx_need(u)) < 0 ||
	    (rc = ant_store_trust_claim(u->s, u->src->id, p->id, lm, u->now, &u->err)) < 0) {
		u->failed_db = 1;
		return rc;
	}
	/* told before, not believed, or already due: the page waits */
	if (rc == 0 || !u->src_hints)
		return 0;
	return ant_detect_claim(&p->st);
}

void ant_upd_trust_checked(struct upd *u, const ant_store_page *p, const ant_detect_outcome *out)
{
	/* a failed check judges nothing: the claims wait for a real one */
	if (p->last_error || u->failed_db || ant_upd_tx_need(u) < 0)
		return;
	if (ant_store_trust_judge(u->s, p->id, out->updated, out->first, p->st.last_modified, u->now,
				  &u->err) < 0)
		u->failed_db = 1;
}
