/*
 * store_trust.c: the sources' claims and the relay sources held back, in
 * the store (ant_trust.h; tables trust_claims and source_trust).
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#include "ant_trust.h"

/* verdict column: 0 pending, 1 confirmed, 2 refuted */
enum { PENDING = 0, CONFIRMED = 1, REFUTED = 2 };

/* The first row's integers of sql, its ?1.. bound to args[nargs], into
 * v[n]: 1 a row, 0 none, < 0. */
static int row_ints(ant_store *s, const char *sql, const int64_t *args, int nargs, int64_t *v,
		    int n, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, sql, err)) < 0)
		return rc;
	for (int i = 0; i < nargs; i++)
		atom_db_bind_int64(st, i + 1, args[i]);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		for (int i = 0; i < n; i++)
			v[i] = atom_db_column_int64(st, i);
	atom_db_finalize(st);
	if (rc != ATOM_DB_ROW && rc != ATOM_DB_DONE)
		return ant_st_dberr(s, err, "database error");
	return rc == ATOM_DB_ROW;
}

/* ---- the pages with a pending claim (struct ant_store's pending) ------ */

/* Where id is, or would go, in the sorted set. */
static size_t pending_at(const ant_store *s, int64_t id)
{
	size_t lo = 0, hi = s->pending.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pending.id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int pending_has(const ant_store *s, int64_t id)
{
	size_t i = pending_at(s, id);

	return i < s->pending.n && s->pending.id[i] == id;
}

static int pending_add(ant_store *s, int64_t id)
{
	size_t i = pending_at(s, id);

	if (i < s->pending.n && s->pending.id[i] == id)
		return 0;
	if (s->pending.n == s->pending.cap) {
		size_t cap = s->pending.cap ? 2 * s->pending.cap : 64;
		int64_t *v = realloc(s->pending.id, cap * sizeof *v);

		if (!v)
			return LB_ENOMEM;
		s->pending.id = v;
		s->pending.cap = cap;
	}
	memmove(s->pending.id + i + 1, s->pending.id + i, (s->pending.n - i) * sizeof *s->pending.id);
	s->pending.id[i] = id;
	s->pending.n++;
	return 0;
}

static void pending_drop(ant_store *s, int64_t id)
{
	size_t i = pending_at(s, id);

	if (i < s->pending.n && s->pending.id[i] == id) {
		memmove(s->pending.id + i, s->pending.id + i + 1,
			(s->pending.n - i - 1) * sizeof *s->pending.id);
		s->pending.n--;
	}
}

/* The set read from the table, once a store (ids come in order). */
static int pending_load(ant_store *s, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if (s->pending.loaded)
		return 0;
	if ((rc = ant_st_prep(s, &st, "SELECT DISTINCT page_id FROM trust_claims WHERE verdict=0"
			      " ORDER BY page_id", err)) < 0)
		return rc;
	s->pending.n = 0;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		if (pending_add(s, atom_db_column_int64(st, 0)) < 0) {
			atom_db_finalize(st);
			return lb_err_code(err, LB_ENOMEM);
		}
	atom_db_finalize(st);
	if (rc != ATOM_DB_DONE)
		return ant_st_dberr(s, err, "database error");
	s->pending.loaded = 1;
	return 0;
}

struct claim_row {
	int64_t source_id, page_id, claimed, now;
};

static void bind_claim(atom_db_st *st, const void *arg)
{
	const struct claim_row *c = arg;

	atom_db_bind_int64(st, 1, c->source_id);
	atom_db_bind_int64(st, 2, c->page_id);
	atom_db_bind_int64(st, 3, c->claimed);
	atom_db_bind_int64(st, 4, c->now);
}

int ant_store_trust_claim(ant_store *s, int64_t source_id, int64_t page_id, int64_t claimed,
			  int64_t now, lb_error *err)
{
	struct claim_row c = { source_id, page_id, claimed, now };
	int64_t args[3] = { source_id, page_id, claimed }, told = 0;
	int rc;

	/* told before: a claim of this page as new or newer, judged or not */
	if ((rc = row_ints(s, "SELECT EXISTS (SELECT 1 FROM trust_claims WHERE source_id=?1 AND"
			   " page_id=?2 AND claimed >= ?3)", args, 3, &told, 1, err)) < 0)
		return rc;
	if (told)
		return 0;
	/* a newer claim replaces the pending one: one per source and page */
	if ((rc = ant_st_run(s, "DELETE FROM trust_claims WHERE source_id=?1 AND page_id=?2 AND"
			     " verdict=0", bind_claim, &c, err)) < 0 ||
	    (rc = ant_st_run(s, "INSERT INTO trust_claims(source_id, page_id, claimed, said_at)"
			     " VALUES(?1,?2,?3,?4)", bind_claim, &c, err)) < 0)
		return rc;
	if (s->pending.loaded && pending_add(s, page_id) < 0)
		s->pending.loaded = 0;   /* read again at the next judgement */
	return 1;
}

int ant_store_trust_judge(ant_store *s, int64_t page_id, int updated, int drop, int64_t found,
			  int64_t now, lb_error *err)
{
	struct claim_row c = { 0, page_id, 0, 0 };
	atom_db_st *st;
	int rc;

	if ((rc = pending_load(s, err)) < 0)
		return rc;
	if (!pending_has(s, page_id))
		return 0;   /* no source spoke of it: nothing to judge */
	if (drop) {
		rc = ant_st_run(s, "DELETE FROM trust_claims WHERE page_id=?2 AND verdict=0",
				bind_claim, &c, err);
		if (rc >= 0)
			pending_drop(s, page_id);
		return rc < 0 ? rc : 0;
	}
	/* every page checked asks: prepared once, by the (page_id, verdict) index */
	if ((rc = ant_st_cached(s, &s->trust_judge, "UPDATE trust_claims SET verdict=?2, found=?3,"
				" judged_at=?4 WHERE page_id=?1 AND verdict=0", err)) < 0)
		return rc;
	st = s->trust_judge;
	atom_db_bind_int64(st, 1, page_id);
	atom_db_bind_int(st, 2, updated ? CONFIRMED : REFUTED);
	atom_db_bind_int64(st, 3, updated ? found : 0);
	atom_db_bind_int64(st, 4, now);
	if ((rc = ant_st_run_cached(s, st, err)) < 0)
		return rc;
	pending_drop(s, page_id);
	return 0;
}

int ant_store_trust_counts(ant_store *s, int64_t source_id, ant_trust_score *sc, lb_error *err)
{
	int64_t v[4] = { 0 }, h[2] = { 0 }, args[2] = { source_id, 0 };
	int rc;

	if ((rc = row_ints(s, "SELECT count(*) FILTER (WHERE verdict=1), count(*) FILTER (WHERE verdict=2),"
			   " count(*) FILTER (WHERE verdict=0), count(*) FILTER (WHERE claimed > said_at)"
			   " FROM trust_claims WHERE source_id=?1", args, 1, v, 4, err)) < 0)
		return rc;
	sc->confirmed = v[0];
	sc->refuted = v[1];
	sc->pending = v[2];
	sc->ahead = v[3];
	sc->has_skew = 0;
	/* the median: the middle one (the lower of two) in order */
	args[1] = (sc->confirmed - 1) / 2;
	if (sc->confirmed > 0 &&
	    (rc = row_ints(s, "SELECT claimed - found FROM trust_claims WHERE source_id=?1 AND"
			   " verdict=1 ORDER BY 1 LIMIT 1 OFFSET ?2", args, 2, &sc->skew, 1, err)) < 0)
		return rc;
	sc->has_skew = sc->confirmed > 0;
	if ((rc = row_ints(s, "SELECT held, held_since FROM source_trust WHERE source_id=?1",
			   args, 1, h, 2, err)) < 0)
		return rc;
	sc->held = h[0] != 0;
	sc->held_since = h[1];
	return 0;
}

static void bind_keep(atom_db_st *st, const void *arg)
{
	const int64_t *v = arg;

	atom_db_bind_int64(st, 1, v[0]);
	atom_db_bind_int64(st, 2, v[1]);
	atom_db_bind_int64(st, 3, v[2]);
}

int ant_store_trust_keep(ant_store *s, int64_t source_id, int held, int64_t now, lb_error *err)
{
	int64_t v[3] = { source_id, held != 0, now }, w[3] = { source_id, ANT_TRUST_WINDOW, 0 };
	int rc;

	/* held_since: when it was first held, kept while it stays so */
	if ((rc = ant_st_run(s, "INSERT INTO source_trust(source_id, held, held_since)"
			     " VALUES(?1, ?2, CASE WHEN ?2 <> 0 THEN ?3 ELSE 0 END)"
			     " ON CONFLICT(source_id) DO UPDATE SET held=excluded.held,"
			     " held_since=CASE WHEN excluded.held = 0 THEN 0 WHEN source_trust.held <> 0 THEN source_trust.held_since"
			     " ELSE excluded.held_since END", bind_keep, v, err)) < 0 ||
	    (rc = ant_st_run(s, "DELETE FROM trust_claims WHERE source_id=?1 AND verdict!=0 AND id NOT IN"
			     " (SELECT id FROM trust_claims WHERE source_id=?1 AND verdict!=0"
			     "  ORDER BY judged_at DESC, id DESC LIMIT ?2)", bind_keep, w, err)) < 0 ||
	    (rc = ant_st_run(s, "DELETE FROM trust_claims WHERE source_id=?1 AND verdict=0 AND"
			     " page_id NOT IN (SELECT id FROM pages)", bind_keep, w, err)) < 0)
		return rc;
	return 0;
}

/* ---- a source's score: its counts here, judged by the rule (rules/trust.c) ---- */

void ant_trust_limits_load(ant_store *s, ant_trust_limits *l)
{
	l->hint_min = ant_setting_int(s, ANT_SET_TRUST_HINT);
	l->relay_min = ant_setting_int(s, ANT_SET_TRUST_RELAY);
	l->min_claims = ant_setting_int(s, ANT_SET_TRUST_CLAIMS);
}

int ant_trust_score_get(ant_store *s, int64_t source_id, int relay, const ant_trust_limits *l,
			ant_trust_score *sc, lb_error *err)
{
	ant_source_budget b;
	int rc;

	memset(sc, 0, sizeof *sc);
	if ((rc = ant_store_budget_get(s, source_id, &b, err)) < 0)
		return rc;
	if ((rc = ant_store_trust_counts(s, source_id, sc, err)) < 0)
		return rc;
	ant_trust_score_judge(sc, &b, relay, l);
	return 0;
}
