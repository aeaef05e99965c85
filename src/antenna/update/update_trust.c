/*
 * update_trust.c: the update engine's side of the sources' trust
 * (ant_trust.h, scored by rules/trust.c): a source's newer time for a
 * watched page is a hint to check it early, never its date, unless the
 * page cannot be checked (or its quiet first check has no time of its
 * own), save to confirm a change our check holds; our check of the page
 * judges the claim (update_int.h, ant_upd_trust_*).
 */
#include "ant_trust.h"
#include "ant_robots.h"
#include "lirs_merge.h"
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

/* ---- what the sources remembered say of a page (ant_store_srcrec) ---- */

/* Is the source of r believed (its hints not below --trust-hint; a source
 * not scored yet is)?  A database that cannot say believes it, as
 * ant_upd_trust_source(). */
static int believed(struct upd *u, const ant_store_srcrec *r)
{
	ant_trust_score sc;

	if (!u->trust_loaded) {
		ant_trust_limits_load(u->s, &u->trust);
		u->trust_loaded = 1;
	}
	if (ant_trust_score_get(u->s, r->source_id, r->source_relay, &u->trust, &sc, NULL) < 0)
		return 1;
	return sc.hints;
}

/* A record's time as a date of ours: never after our clock, nor after
 * the source's own Last-Detected (it cannot have seen a change later than
 * it looked: a time ahead when read stays clamped as it was then); 0 when
 * the --max-future rule drops it (a source whose clock runs ahead). */
static int64_t claim_time(const struct upd *u, const ant_store_srcrec *r)
{
	int64_t t = r->last_modified;

	if (t <= 0 || lirs_merge_future(t, u->now, u->o->max_future))
		return 0;
	if (r->last_detected > 0 && t > r->last_detected)
		t = r->last_detected;
	return t > u->now ? u->now : t;
}

struct corro {
	struct upd *u;
	int64_t after, found;
};

static int corro_one(void *ctx, const ant_store_srcrec *r)
{
	struct corro *c = ctx;
	int64_t t = claim_time(c->u, r);

	if (!t)
		return 0;   /* from the future: an older record may still do */
	if (t <= c->after)
		return 1;   /* newest first: none of the rest is in the window */
	if (!believed(c->u, r))
		return 0;
	c->found = t;
	return 1;
}

int64_t ant_upd_trust_corroborates(struct upd *u, const ant_store_page *p, int64_t after)
{
	struct corro c = { u, after, 0 };

	if (u->failed_db || ant_store_srcrec_each(u->s, p->url_key, corro_one, &c, NULL) < 0)
		return 0;
	return c.found;
}

struct srcdate {
	struct upd *u;
	ant_store_page *p;
	int64_t after;
	int first;
	int dated;
};

/* The newest believed record that dates the page; a sitemap's lastmod
 * never dates a first check (generators stamp every entry with the build
 * time: ant_update_recall() takes none either). */
static int srcdate_one(void *ctx, const ant_store_srcrec *r)
{
	struct srcdate *c = ctx;
	ant_store_page *p = c->p;
	int64_t t = claim_time(c->u, r), recheck = p->st.recheck;

	if ((c->first && r->source_kind == ANT_STORE_SOURCE_SITEMAP) || !t)
		return 0;
	/* newest first: none of the rest is newer; a time our own check
	 * saw after was refuted by it */
	if (t <= p->st.last_modified || t <= c->after)
		return 1;
	if (!believed(c->u, r))
		return 0;
	if (!ant_detect_relay(&p->st, t, r->last_detected, c->u->now))
		return 1;
	p->st.recheck = (int)recheck;   /* a date, not a hint: the schedule stands */
	if (r->source_kind == ANT_STORE_SOURCE_ATOM)
		p->st.detected_by = "atom";
	ant_upd_set_str(&p->source_url, r->source_url);
	ant_upd_set_str(&p->excerpt, r->excerpt ? r->excerpt : "");
	c->dated = 1;
	return 1;
}

int ant_upd_trust_date(struct upd *u, ant_store_page *p, int first)
{
	struct srcdate c = { u, p, first ? 0 : p->st.last_ok, first, 0 };

	if (u->failed_db || ant_store_srcrec_each(u->s, p->url_key, srcdate_one, &c, NULL) < 0)
		return 0;
	return c.dated;
}
