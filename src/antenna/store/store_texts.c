/*
 * store_texts.c: the SQL of the texts behind the diff pages
 * (ant_difftext.h): table page_texts, one row per watched page, gone with
 * the page (ON DELETE CASCADE).
 */
#include "store_int.h"
#include "ant_difftext.h"

#include <stdlib.h>
#include <string.h>

/* (every page checked asks: the statements are prepared once a store) */
int ant_store_text_has(ant_store *s, int64_t page_id, lb_error *err)
{
	int rc;

	if ((rc = ant_st_cached(s, &s->text_has, "SELECT 1 FROM page_texts WHERE page_id=?1", err)) < 0)
		return rc;
	atom_db_bind_int64(s->text_has, 1, page_id);
	rc = atom_db_step(s->text_has);
	rc = rc == ATOM_DB_ROW ? 1 : rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read a page's text");
	atom_db_reset(s->text_has);
	return rc;
}

static int blob_dup(atom_db_st *st, int i, unsigned char **out, size_t *len)
{
	const void *b = atom_db_column_blob(st, i);
	size_t n = (size_t)atom_db_column_bytes(st, i);

	*out = NULL;
	*len = 0;
	if (!b || atom_db_column_type(st, i) == ATOM_DB_NULL)
		return 0;
	if (!(*out = malloc(n ? n : 1)))
		return LB_ENOMEM;
	memcpy(*out, b, n);
	*len = n;
	return 0;
}

/* The one row of page id into *t: 1, 0 none, < 0. */
static int get_row(ant_store *s, int64_t id, ant_store_text *t, lb_error *err)
{
	atom_db_st *st;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = ant_st_cached(s, &s->text_get, "SELECT page_id, text, diff, diff_time FROM page_texts"
				" WHERE page_id=?1", err)) < 0)
		return rc;
	st = s->text_get;
	atom_db_bind_int64(st, 1, id);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		t->page_id = atom_db_column_int64(st, 0);
		t->diff_time = atom_db_column_int64(st, 3);
		rc = blob_dup(st, 1, &t->text, &t->text_len) < 0 || blob_dup(st, 2, &t->diff, &t->diff_len) < 0
			     ? LB_ENOMEM : 1;
		if (rc < 0)
			ant_store_text_release(t);
	} else if (rc == ATOM_DB_DONE) {
		rc = 0;
	} else {
		rc = ant_st_dberr(s, err, "cannot read a page's text");
	}
	atom_db_reset(st);
	return rc == LB_ENOMEM ? lb_err_code(err, LB_ENOMEM) : rc;
}

int ant_store_text_get(ant_store *s, int64_t page_id, ant_store_text *t, lb_error *err)
{
	return get_row(s, page_id, t, err);
}

int ant_store_text_of_key(ant_store *s, const char *url_key, ant_store_text *t, lb_error *err)
{
	/* the key's hash finds the page (store_schema.c), the key confirms it */
	atom_db_st *st;
	int64_t id = 0;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = ant_st_prep(s, &st, "SELECT id FROM pages WHERE key_hash=?1 AND coalesce(url_key, url)=?2",
			      err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, ant_st_key_hash(url_key));
	atom_db_bind_text(st, 2, url_key, -1, ATOM_DB_STATIC);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		id = atom_db_column_int64(st, 0);
	else if (rc != ATOM_DB_DONE)
		rc = ant_st_dberr(s, err, "cannot find the page");
	atom_db_finalize(st);
	if (rc < 0)
		return rc;
	memset(t, 0, sizeof *t);
	if (!id)
		return lb_err(err, LB_ENOTFOUND, "no watched page '%s'", url_key);
	return ant_store_text_get(s, id, t, err);
}

static void bind_text_row(atom_db_st *st, const void *arg)
{
	const ant_store_text *t = arg;

	atom_db_bind_int64(st, 1, t->page_id);
	if (t->text)
		atom_db_bind_blob(st, 2, t->text, (int)t->text_len, ATOM_DB_STATIC);
	if (t->diff)
		atom_db_bind_blob(st, 3, t->diff, (int)t->diff_len, ATOM_DB_STATIC);
	atom_db_bind_int64(st, 4, t->diff_time);
}

int ant_store_text_put(ant_store *s, const ant_store_text *t, lb_error *err)
{
	int rc;

	if ((rc = ant_st_cached(s, &s->text_put, "INSERT INTO page_texts(page_id, text, diff,"
				" diff_time) VALUES(?1, ?2, ?3, ?4) ON CONFLICT(page_id)"
				" DO UPDATE SET text=?2, diff=?3, diff_time=?4", err)) < 0)
		return rc;
	bind_text_row(s->text_put, t);
	return ant_st_run_cached(s, s->text_put, err);
}

void ant_store_text_release(ant_store_text *t)
{
	free(t->text);
	free(t->diff);
	memset(t, 0, sizeof *t);
}

/* The diffs still listed: the page's last update is the one diffed. */
#define LISTED_DIFFS \
	"SELECT p.id, p.key_hash, p.url, p.title, t.diff, t.diff_time, t.text FROM page_texts t" \
	" JOIN pages p ON p.id = t.page_id" \
	" WHERE t.diff IS NOT NULL AND t.diff_time = p.last_modified"

int ant_store_diff_of(ant_store *s, const char *url_key, int64_t time, ant_store_diff_fn fn, void *ctx,
		      lb_error *err)
{
	/* the key's hash finds the page (store_schema.c), the key confirms it */
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_cached(s, &s->diff_of, LISTED_DIFFS " AND p.key_hash=?1"
				" AND coalesce(p.url_key, p.url)=?2 AND t.diff_time=?3", err)) < 0)
		return rc;
	st = s->diff_of;
	atom_db_bind_int64(st, 1, ant_st_key_hash(url_key));
	atom_db_bind_text(st, 2, url_key, -1, ATOM_DB_STATIC);
	atom_db_bind_int64(st, 3, time);
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		ant_store_diffrow r = {
			.page_id = atom_db_column_int64(st, 0),
			.key_hash = atom_db_column_int64(st, 1),
			.url = (const char *)atom_db_column_text(st, 2),
			.title = (const char *)atom_db_column_text(st, 3),
			.diff = atom_db_column_blob(st, 4),
			.diff_len = (size_t)atom_db_column_bytes(st, 4),
			.diff_time = atom_db_column_int64(st, 5),
			.text = atom_db_column_blob(st, 6),
			.text_len = (size_t)atom_db_column_bytes(st, 6),
		};

		rc = !r.url || !r.title ? lb_err_code(err, LB_ENOMEM) : fn(ctx, &r);
		rc = rc ? rc : 1;
	} else {
		rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read the diffs");
	}
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	return rc;
}

int ant_store_texts_size(ant_store *s, int64_t *bytes, int64_t *rows, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*bytes = *rows = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT coalesce(sum(coalesce(length(text), 0) + coalesce(length(diff), 0)), 0),"
			      " count(*) FROM page_texts", err)) < 0)
		return rc;
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		*bytes = atom_db_column_int64(st, 0);
		*rows = atom_db_column_int64(st, 1);
		rc = 0;
	} else {
		rc = ant_st_dberr(s, err, "cannot measure the texts");
	}
	atom_db_finalize(st);
	return rc;
}
