/*
 * store_budget.c: the SQL of what each source remembers of its last read
 * (table source_reads, ant_source_budget.h): the body's digest, the news
 * budget's counts, churn, and the pages a relay source relays.
 */
#include "store_int.h"

#include "ant_source_budget.h"

#define READS_COLS \
	"digest, body_len, by_fetch, unchanged, day, news_day, news, held, known, changed," \
	" churn_reads, cut, pages_relayed, records"

int ant_store_budget_get(ant_store *s, int64_t source_id, ant_source_budget *b, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*b = (ant_source_budget){ .source_id = source_id };
	if ((rc = ant_st_prep(s, &st, "SELECT " READS_COLS " FROM source_reads WHERE source_id=?1",
			      err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, source_id);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		b->digest = (uint64_t)atom_db_column_int64(st, 0);
		b->body_len = atom_db_column_int64(st, 1);
		b->by_fetch = atom_db_column_int(st, 2);
		b->unchanged = atom_db_column_int64(st, 3);
		b->day = atom_db_column_int64(st, 4);
		b->news_day = atom_db_column_int64(st, 5);
		b->news = atom_db_column_int64(st, 6);
		b->held = atom_db_column_int64(st, 7);
		b->known = atom_db_column_int64(st, 8);
		b->changed = atom_db_column_int64(st, 9);
		b->churn_reads = atom_db_column_int64(st, 10);
		b->cut = atom_db_column_int(st, 11);
		b->pages_relayed = atom_db_column_int64(st, 12);
		b->records = atom_db_column_int64(st, 13);
		b->stored = 1;
		rc = 0;
	} else {
		rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read a source's last read");
	}
	atom_db_finalize(st);
	return rc;
}

static void bind_budget(atom_db_st *st, const void *arg)
{
	const ant_source_budget *b = arg;
	const int64_t v[] = { (int64_t)b->digest, b->body_len, b->by_fetch, b->unchanged, b->day,
			      b->news_day, b->news, b->held, b->known, b->changed, b->churn_reads,
			      b->cut, b->pages_relayed, b->records };

	atom_db_bind_int64(st, 1, b->source_id);
	for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
		atom_db_bind_int64(st, i + 2, v[i]);
}

int ant_store_budget_put(ant_store *s, const ant_source_budget *b, lb_error *err)
{
	int rc = ant_st_run(s, "INSERT INTO source_reads(source_id, " READS_COLS ")"
			    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
			    " ON CONFLICT(source_id) DO UPDATE SET digest=?2, body_len=?3, by_fetch=?4,"
			    " unchanged=?5, day=?6, news_day=?7, news=?8, held=?9, known=?10, changed=?11,"
			    " churn_reads=?12, cut=?13, pages_relayed=?14, records=?15",
			    bind_budget, b, err);

	return rc < 0 ? rc : 0;
}

/* What the published listing takes of a relay source (store_published.c,
 * RELAYED_ROWS), counted per source: a URL another relay source names
 * too is counted by each (it is published once, newest record first). */
int64_t ant_store_budget_relayed(ant_store *s, int64_t source_id, lb_error *err)
{
	int64_t n;
	int rc = ant_st_count(s, "SELECT count(*) FROM source_records r WHERE r.source_id=?1"
			      " AND r.last_modified != 0 AND NOT EXISTS (SELECT 1 FROM pages p"
			      "  WHERE p.key_hash = ant_key_hash(r.url_key)"
			      "  AND coalesce(p.url_key, p.url) = r.url_key)", source_id, &n, err);

	return rc < 0 ? rc : n;
}

struct redetect { int64_t id, now; };

static void bind_redetect(atom_db_st *st, const void *arg)
{
	const struct redetect *r = arg;

	atom_db_bind_int64(st, 1, r->id);
	atom_db_bind_int64(st, 2, r->now);
}

int ant_store_budget_redetect(ant_store *s, int64_t source_id, int64_t now, lb_error *err)
{
	struct redetect r = { source_id, now };
	int rc = ant_st_run(s, "UPDATE source_records SET last_detected=?2"
			    " WHERE source_id=?1 AND last_detected < ?2", bind_redetect, &r, err);

	return rc < 0 ? rc : 0;
}
