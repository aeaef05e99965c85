/*
 * store_sources.c: the sources in the store (ant_store.h's sources): the
 * LIRS, HINA-DI and Atom documents read for updates, the RFC 5005
 * archives already read from Atom sources, and what each source last said
 * of each URL (table source_records).
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define SOURCE_COLS \
	"id, url, url_key, etag, last_modified_header, last_error, last_status," \
	" last_fetch, last_ok, created, records_read, records_skipped, records_merged," \
	" records_ignored, kind, last_entry, archive_head, relay"

void ant_store_source_init(ant_store_source *p)
{
	memset(p, 0, sizeof *p);
}

void ant_store_source_release(ant_store_source *p)
{
	free(p->url); free(p->url_key); free(p->etag); free(p->lm_header);
	free(p->last_error); free(p->archive_head);
	ant_store_source_init(p);
}

void ant_store_sources_free(ant_store_source *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ant_store_source_release(&p[i]);
	free(p);
}

int ant_st_source_kind(const unsigned char *t)
{
	int k = t ? ant_store_source_kind_of((const char *)t) : -1;

	return k < 0 ? ANT_STORE_SOURCE_LIRS : k;
}

const char *ant_store_source_kind_name(int kind)
{
	return kind == ANT_STORE_SOURCE_ATOM ? "atom" : kind == ANT_STORE_SOURCE_SITEMAP ? "sitemap"
									 : "lirs";
}

int ant_store_source_kind_of(const char *name)
{
	return !strcmp(name, "lirs") ? ANT_STORE_SOURCE_LIRS : !strcmp(name, "atom") ? ANT_STORE_SOURCE_ATOM
	       : !strcmp(name, "sitemap") ? ANT_STORE_SOURCE_SITEMAP : -1;
}

/* row: an ant_store_source (void: load_rows reads any table with it) */
static int source_from_row(atom_db_st *st, void *row)
{
	ant_store_source *p = row;

	ant_store_source_init(p);
	p->id = atom_db_column_int64(st, 0);
	p->url = ant_st_col_dup(st, 1, 0);
	p->url_key = ant_st_col_dup(st, 2, 0);
	p->etag = ant_st_col_dup(st, 3, 1);
	p->lm_header = ant_st_col_dup(st, 4, 1);
	p->last_error = ant_st_col_dup(st, 5, 1);
	p->last_status = atom_db_column_int(st, 6);
	p->last_fetch = atom_db_column_int64(st, 7);
	p->last_ok = atom_db_column_int64(st, 8);
	p->created = atom_db_column_int64(st, 9);
	p->records_read = atom_db_column_int64(st, 10);
	p->records_skipped = atom_db_column_int64(st, 11);
	p->records_merged = atom_db_column_int64(st, 12);
	p->records_ignored = atom_db_column_int64(st, 13);
	p->kind = ant_st_source_kind(atom_db_column_text(st, 14));
	p->last_entry = atom_db_column_int64(st, 15);
	p->archive_head = ant_st_col_dup(st, 16, 1);
	p->relay = atom_db_column_int(st, 17);
	if (!p->url || !p->url_key) {
		ant_store_source_release(p);
		return LB_ENOMEM;
	}
	return 0;
}

static void bind_new_source(atom_db_st *st, const void *arg)
{
	const ant_store_source *p = arg;

	ant_st_bind_text(st, 1, p->url);
	ant_st_bind_text(st, 2, p->url_key);
	atom_db_bind_int64(st, 3, p->created);
	ant_st_bind_text(st, 4, ant_store_source_kind_name(p->kind));
	atom_db_bind_int(st, 5, p->relay != 0);
}

int ant_store_source_add(ant_store *s, const ant_store_source *p, lb_error *err)
{
	/* a known source changes no row (no error: on PostgreSQL an error
	 * would end the caller's transaction, import's) */
	int rc = ant_st_run(s, "INSERT INTO sources(url, url_key, created, kind, relay)"
			    " VALUES(?1,?2,?3,?4,?5) ON CONFLICT(url_key) DO NOTHING", bind_new_source, p, err);

	return rc == LB_EEXIST || rc == 0 ? 1 : rc < 0 ? rc : 0;
}

static void bind_key(atom_db_st *st, const void *arg)
{
	ant_st_bind_text(st, 1, arg);
}

int ant_store_source_remove(ant_store *s, const char *url_key, lb_error *err)
{
	int rc = ant_st_run(s, "DELETE FROM sources WHERE url_key=?1", bind_key, url_key, err);

	return rc < 0 ? rc : rc > 0;
}

static void sources_free(void *v, size_t n)
{
	ant_store_sources_free(v, n);
}

int ant_store_sources_load(ant_store *s, ant_store_source **out, size_t *n, lb_error *err)
{
	static const struct ant_st_rows sources = { sizeof **out, 8, source_from_row, sources_free };
	void *v;
	int rc;

	rc = ant_st_load_rows(s, "SELECT " SOURCE_COLS " FROM sources ORDER BY url", &sources, &v, n, err);
	*out = v;
	return rc;
}

static void bind_source(atom_db_st *st, const void *arg)
{
	const ant_store_source *p = arg;

	atom_db_bind_int64(st, 1, p->id);
	ant_st_bind_text(st, 2, p->etag);
	ant_st_bind_text(st, 3, p->lm_header);
	ant_st_bind_text(st, 4, p->last_error);
	atom_db_bind_int64(st, 5, p->last_status);
	atom_db_bind_int64(st, 6, p->last_fetch);
	atom_db_bind_int64(st, 7, p->last_ok);
	atom_db_bind_int64(st, 8, p->records_read);
	atom_db_bind_int64(st, 9, p->records_skipped);
	atom_db_bind_int64(st, 10, p->records_merged);
	atom_db_bind_int64(st, 11, p->records_ignored);
	atom_db_bind_int64(st, 12, p->last_entry);
	ant_st_bind_text(st, 13, p->archive_head);
}

int ant_store_source_save(ant_store *s, const ant_store_source *p, lb_error *err)
{
	int rc = ant_st_run(s, "UPDATE sources SET etag=?2, last_modified_header=?3, last_error=?4,"
			    " last_status=?5, last_fetch=?6, last_ok=?7, records_read=?8,"
			    " records_skipped=?9, records_merged=?10, records_ignored=?11,"
			    " last_entry=?12, archive_head=?13 WHERE id=?1", bind_source, p, err);

	return rc < 0 ? rc : 0;
}

/* ---- RFC 5005 archives read from Atom sources ---------------------------- */

int ant_store_archive_get(ant_store *s, int64_t source_id, const char *url, char **prev,
		      lb_error *err)
{
	atom_db_st *st;
	int rc;

	*prev = NULL;
	if ((rc = ant_st_prep(s, &st, "SELECT prev_url FROM atom_archives WHERE url=?1 AND source_id=?2",
		       err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, url);
	atom_db_bind_int64(st, 2, source_id);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		*prev = ant_st_col_dup(st, 0, 1);
		rc = atom_db_column_type(st, 0) != ATOM_DB_NULL && !*prev ? LB_ENOMEM : 1;
		atom_db_finalize(st);
		if (rc < 0)
			lb_err_code(err, LB_ENOMEM);
		return rc;
	}
	atom_db_finalize(st);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
}

struct archive_row {
	int64_t source_id, entries, now;
	const char *url, *prev_url;
};

static void bind_archive(atom_db_st *st, const void *arg)
{
	const struct archive_row *a = arg;

	ant_st_bind_text(st, 1, a->url);
	atom_db_bind_int64(st, 2, a->source_id);
	ant_st_bind_text(st, 3, a->prev_url);
	atom_db_bind_int64(st, 4, a->entries);
	atom_db_bind_int64(st, 5, a->now);
}

int ant_store_archive_add(ant_store *s, int64_t source_id, const char *url, const char *prev_url,
		      int64_t entries, int64_t now, lb_error *err)
{
	struct archive_row a = { source_id, entries, now, url, prev_url };
	int rc = ant_st_run(s, "INSERT INTO atom_archives(url, source_id, prev_url,"
			    " entries, read_at) VALUES(?1,?2,?3,?4,?5) ON CONFLICT(url) DO UPDATE"
			    " SET source_id=?2, prev_url=?3, entries=?4, read_at=?5", bind_archive, &a, err);

	return rc < 0 ? rc : 0;
}

int64_t ant_store_archive_count(ant_store *s, int64_t source_id, lb_error *err)
{
	int64_t n;
	int rc = ant_st_count(s, "SELECT count(*) FROM atom_archives WHERE source_id=?1", source_id,
			      &n, err);

	return rc < 0 ? rc : n;
}

/* ---- what the sources said, per URL ---------------------------------------- */

int ant_store_srcrec_put(ant_store *s, const ant_store_srcrec *r, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_cached(s, &s->put_srcrec, "INSERT INTO source_records(url_key, source_id, url,"
		       " last_modified, last_detected, title, excerpt, author, content_length)"
		       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)"
		       " ON CONFLICT(url_key, source_id) DO UPDATE SET url=excluded.url,"
		       " last_modified=excluded.last_modified, last_detected=excluded.last_detected,"
		       " title=excluded.title, excerpt=excluded.excerpt, author=excluded.author,"
		       " content_length=excluded.content_length"
		       " WHERE excluded.last_modified > source_records.last_modified OR"
		       " (excluded.last_modified = source_records.last_modified AND"
		       "  excluded.last_detected > source_records.last_detected)", err)) < 0)
		return rc;
	st = s->put_srcrec;
	ant_st_bind_text(st, 1, r->url_key);
	atom_db_bind_int64(st, 2, r->source_id);
	ant_st_bind_text(st, 3, r->url);
	atom_db_bind_int64(st, 4, r->last_modified);
	atom_db_bind_int64(st, 5, r->last_detected);
	ant_st_bind_text(st, 6, r->title ? r->title : "");
	ant_st_bind_text(st, 7, r->excerpt ? r->excerpt : "");
	ant_st_bind_text(st, 8, r->author ? r->author : "");
	atom_db_bind_int64(st, 9, r->content_length > 0 ? r->content_length : 0);
	return ant_st_run_cached(s, st, err);
}

/* ?1 the source, ?2 the bound (a time or a count) */
struct prune {
	int64_t source_id, bound;
};

static void bind_prune(atom_db_st *st, const void *arg)
{
	const struct prune *p = arg;

	atom_db_bind_int64(st, 1, p->source_id);
	atom_db_bind_int64(st, 2, p->bound);
}

int64_t ant_store_srcrec_prune(ant_store *s, int64_t source_id, int64_t detected_before,
			       int64_t keep, lb_error *err)
{
	struct prune by_age = { source_id, detected_before }, by_count = { source_id, keep };
	int64_t gone = 0;
	int rc;

	if (detected_before > 0) {
		if ((rc = ant_st_run(s, "DELETE FROM source_records WHERE source_id=?1 AND"
				     " last_detected < ?2", bind_prune, &by_age, err)) < 0)
			return rc;
		gone += rc;
	}
	if (keep >= 0) {
		if ((rc = ant_st_run(s, "DELETE FROM source_records WHERE source_id=?1 AND url_key IN"
				     " (SELECT url_key FROM source_records WHERE source_id=?1"
				     "  ORDER BY last_modified DESC, url_key LIMIT -1 OFFSET ?2)",
				     bind_prune, &by_count, err)) < 0)
			return rc;
		gone += rc;
	}
	return gone;
}

int ant_store_srcrec_each(ant_store *s, const char *url_key, ant_store_srcrec_fn fn, void *ctx,
			  lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "SELECT r.source_id, s.kind, s.url, r.url, r.last_modified,"
		       " r.last_detected, r.title, r.excerpt, r.author, r.content_length, s.relay"
		       " FROM source_records r"
		       " JOIN sources s ON s.id = r.source_id WHERE r.url_key=?1"
		       " ORDER BY r.last_modified DESC, s.url", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, url_key);
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *t;
		ant_store_srcrec r = { .url_key = url_key };
		r.source_id = atom_db_column_int64(st, 0);
		r.source_kind = ant_st_source_kind(atom_db_column_text(st, 1));
		r.source_url = (t = (const char *)atom_db_column_text(st, 2)) ? t : "";
		r.url = (t = (const char *)atom_db_column_text(st, 3)) ? t : "";
		r.last_modified = atom_db_column_int64(st, 4);
		r.last_detected = atom_db_column_int64(st, 5);
		r.title = (t = (const char *)atom_db_column_text(st, 6)) ? t : "";
		r.excerpt = (t = (const char *)atom_db_column_text(st, 7)) ? t : "";
		r.author = (t = (const char *)atom_db_column_text(st, 8)) ? t : "";
		r.content_length = atom_db_column_int64(st, 9);
		r.source_relay = atom_db_column_int(st, 10);
		if ((rc = fn(ctx, &r)) != 0) {
			atom_db_finalize(st);
			return rc;
		}
	}
	atom_db_finalize(st);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
}

int64_t ant_store_srcrec_count(ant_store *s, int64_t source_id, lb_error *err)
{
	int64_t n;
	int rc = ant_st_count(s, "SELECT count(*) FROM source_records WHERE source_id=?1", source_id,
			      &n, err);

	return rc < 0 ? rc : n;
}

int ant_store_srcrec_times(ant_store *s, const char *url_key, int64_t source_id, int64_t *lm,
			   int64_t *ld, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*lm = *ld = 0;
	if ((rc = ant_st_cached(s, &s->srcrec_times, "SELECT last_modified, last_detected FROM source_records"
			 " WHERE url_key=?1 AND source_id=?2", err)) < 0)
		return rc;
	st = s->srcrec_times;
	ant_st_bind_text(st, 1, url_key);
	atom_db_bind_int64(st, 2, source_id);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		*lm = atom_db_column_int64(st, 0);
		*ld = atom_db_column_int64(st, 1);
		rc = 1;
	} else {
		rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
	}
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	return rc;
}

int64_t ant_store_srcrec_relay_newest(ant_store *s, const char *url_key, lb_error *err)
{
	atom_db_st *st;
	int64_t v = 0;
	int rc;

	/* the primary key (url_key, source_id) finds the rows of one URL */
	if ((rc = ant_st_cached(s, &s->relay_newest, "SELECT max(r.last_modified) FROM source_records r"
			 " JOIN sources s ON s.id = r.source_id WHERE r.url_key=?1 AND s.relay <> 0", err)) < 0)
		return rc;
	st = s->relay_newest;
	ant_st_bind_text(st, 1, url_key);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		v = atom_db_column_int64(st, 0);   /* NULL (no row): 0 */
	else if (rc != ATOM_DB_DONE)
		v = ant_st_dberr(s, err, "database error");
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	return v;
}
