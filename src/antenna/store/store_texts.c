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
	sqlite3_bind_int64(s->text_has, 1, page_id);
	rc = sqlite3_step(s->text_has);
	rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : ant_st_dberr(s, err, "cannot read a page's text");
	sqlite3_reset(s->text_has);
	return rc;
}

static int blob_dup(sqlite3_stmt *st, int i, unsigned char **out, size_t *len)
{
	const void *b = sqlite3_column_blob(st, i);
	size_t n = (size_t)sqlite3_column_bytes(st, i);

	*out = NULL;
	*len = 0;
	if (!b || sqlite3_column_type(st, i) == SQLITE_NULL)
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
	sqlite3_stmt *st;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = ant_st_cached(s, &s->text_get, "SELECT page_id, text, diff, diff_time FROM page_texts"
				" WHERE page_id=?1", err)) < 0)
		return rc;
	st = s->text_get;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		t->page_id = sqlite3_column_int64(st, 0);
		t->diff_time = sqlite3_column_int64(st, 3);
		rc = blob_dup(st, 1, &t->text, &t->text_len) < 0 || blob_dup(st, 2, &t->diff, &t->diff_len) < 0
			     ? LB_ENOMEM : 1;
		if (rc < 0)
			ant_store_text_release(t);
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = ant_st_dberr(s, err, "cannot read a page's text");
	}
	sqlite3_reset(st);
	return rc == LB_ENOMEM ? lb_err_code(err, LB_ENOMEM) : rc;
}

int ant_store_text_get(ant_store *s, int64_t page_id, ant_store_text *t, lb_error *err)
{
	return get_row(s, page_id, t, err);
}

int ant_store_text_of_key(ant_store *s, const char *url_key, ant_store_text *t, lb_error *err)
{
	/* the key's hash finds the page (store_schema.c), the key confirms it */
	sqlite3_stmt *st;
	int64_t id = 0;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = ant_st_prep(s, &st, "SELECT id FROM pages WHERE key_hash=?1 AND coalesce(url_key, url)=?2",
			      err)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, ant_st_key_hash(url_key));
	sqlite3_bind_text(st, 2, url_key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		rc = ant_st_dberr(s, err, "cannot find the page");
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	memset(t, 0, sizeof *t);
	if (!id)
		return lb_err(err, LB_ENOTFOUND, "no watched page '%s'", url_key);
	return ant_store_text_get(s, id, t, err);
}

static void bind_text_row(sqlite3_stmt *st, const void *arg)
{
	const ant_store_text *t = arg;

	sqlite3_bind_int64(st, 1, t->page_id);
	if (t->text)
		sqlite3_bind_blob(st, 2, t->text, (int)t->text_len, SQLITE_STATIC);
	if (t->diff)
		sqlite3_bind_blob(st, 3, t->diff, (int)t->diff_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, t->diff_time);
}

int ant_store_text_put(ant_store *s, const ant_store_text *t, lb_error *err)
{
	int rc;

	if ((rc = ant_st_cached(s, &s->text_put, "INSERT OR REPLACE INTO page_texts(page_id, text, diff,"
				" diff_time) VALUES(?1, ?2, ?3, ?4)", err)) < 0)
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
	sqlite3_stmt *st;
	int rc;

	if ((rc = ant_st_cached(s, &s->diff_of, LISTED_DIFFS " AND p.key_hash=?1"
				" AND coalesce(p.url_key, p.url)=?2 AND t.diff_time=?3", err)) < 0)
		return rc;
	st = s->diff_of;
	sqlite3_bind_int64(st, 1, ant_st_key_hash(url_key));
	sqlite3_bind_text(st, 2, url_key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, time);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ant_store_diffrow r = {
			.page_id = sqlite3_column_int64(st, 0),
			.key_hash = sqlite3_column_int64(st, 1),
			.url = (const char *)sqlite3_column_text(st, 2),
			.title = (const char *)sqlite3_column_text(st, 3),
			.diff = sqlite3_column_blob(st, 4),
			.diff_len = (size_t)sqlite3_column_bytes(st, 4),
			.diff_time = sqlite3_column_int64(st, 5),
			.text = sqlite3_column_blob(st, 6),
			.text_len = (size_t)sqlite3_column_bytes(st, 6),
		};

		rc = !r.url || !r.title ? lb_err_code(err, LB_ENOMEM) : fn(ctx, &r);
		rc = rc ? rc : 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : ant_st_dberr(s, err, "cannot read the diffs");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int ant_store_texts_size(ant_store *s, int64_t *bytes, int64_t *rows, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*bytes = *rows = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT coalesce(sum(coalesce(length(text), 0) + coalesce(length(diff), 0)), 0),"
			      " count(*) FROM page_texts", err)) < 0)
		return rc;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*bytes = sqlite3_column_int64(st, 0);
		*rows = sqlite3_column_int64(st, 1);
		rc = 0;
	} else {
		rc = ant_st_dberr(s, err, "cannot measure the texts");
	}
	sqlite3_finalize(st);
	return rc;
}
