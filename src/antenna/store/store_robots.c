/*
 * store_robots.c: robots.txt in the store (ant_robots.h): the last
 * answer of each origin's robots.txt (table robots, for at most
 * ANT_ROBOTS_MAX_AGE), and the pages whose operator said to ignore it
 * (table robots_pages, 'antenna set URL --ignore-robots').
 */
#include "store_int.h"
#include "ant_robots.h"

#include <stdlib.h>
#include <string.h>

void ant_robots_cached_release(ant_robots_cached *c)
{
	free(c->error);
	free(c->body);
	memset(c, 0, sizeof *c);
}

int ant_store_robots_get(ant_store *s, const char *origin, ant_robots_cached *out, lb_error *err)
{
	atom_db_st *st;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = ant_st_prep(s, &st, "SELECT fetched, status, verdict, error, body FROM robots"
			      " WHERE origin=?1", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, origin);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		const void *b = atom_db_column_blob(st, 4);
		int n = atom_db_column_bytes(st, 4);
		out->fetched = atom_db_column_int64(st, 0);
		out->status = (long)atom_db_column_int64(st, 1);
		out->verdict = atom_db_column_int(st, 2);
		out->error = ant_st_col_dup(st, 3, 1);
		if (b && (out->body = malloc((size_t)n + 1))) {
			memcpy(out->body, b, (size_t)n);
			out->body[n] = '\0';
			out->len = (size_t)n;
		}
		rc = b && !out->body ? lb_err_code(err, LB_ENOMEM) : 1;
	} else
		rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read robots.txt");
	atom_db_finalize(st);
	if (rc < 0)
		ant_robots_cached_release(out);
	return rc;
}

int ant_store_robots_put(ant_store *s, const char *origin, const ant_robots_cached *c, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "INSERT INTO robots(origin, fetched, status, verdict,"
			      " error, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(origin) DO UPDATE"
			      " SET fetched=?2, status=?3, verdict=?4, error=?5, body=?6", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, origin);
	atom_db_bind_int64(st, 2, c->fetched);
	atom_db_bind_int64(st, 3, c->status);
	atom_db_bind_int(st, 4, c->verdict);
	ant_st_bind_text(st, 5, c->error);
	if (c->body)
		atom_db_bind_blob(st, 6, c->body, c->len, ATOM_DB_STATIC);
	rc = ant_st_step_done(s, st, err);
	atom_db_finalize(st);
	return rc < 0 ? rc : 0;
}

int ant_store_robots_ignore_get(ant_store *s, int64_t page_id, lb_error *err)
{
	int64_t n;
	int rc = ant_st_count(s, "SELECT count(*) FROM robots_pages WHERE page_id=?1 AND ignore=1",
			      page_id, &n, err);

	return rc < 0 ? rc : n > 0;
}

struct ignore_arg {
	int64_t id;
	int ignore;
};

static void bind_ignore(atom_db_st *st, const void *arg)
{
	const struct ignore_arg *a = arg;

	atom_db_bind_int64(st, 1, a->id);
	atom_db_bind_int(st, 2, a->ignore);
}

int ant_store_robots_ignore_set(ant_store *s, int64_t page_id, int ignore, lb_error *err)
{
	struct ignore_arg a = { page_id, ignore ? 1 : 0 };
	int rc = ant_store_robots_ignore_get(s, page_id, err);

	if (rc < 0 || rc == a.ignore)
		return rc < 0 ? rc : 0;
	rc = ant_st_run(s, ignore ? "INSERT INTO robots_pages(page_id, ignore) VALUES (?1, ?2)"
				  " ON CONFLICT(page_id) DO UPDATE SET ignore=?2"
				  : "DELETE FROM robots_pages WHERE page_id=?1 AND ?2=0", bind_ignore, &a, err);
	/* a page kept out (or now to be kept out) is checked at the next update */
	if (rc >= 0)
		rc = ant_st_run(s, "UPDATE pages SET next_check=0 WHERE id=?1 AND ?2=?2", bind_ignore, &a, err);
	return rc < 0 ? rc : 0;
}

int ant_store_robots_ignored(ant_store *s, int64_t **ids, size_t *n, lb_error *err)
{
	atom_db_st *st;
	int64_t *v = NULL;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT page_id FROM robots_pages WHERE ignore=1 ORDER BY page_id",
			      err)) < 0)
		return rc;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		if (*n == cap) {
			int64_t *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!nv) {
				atom_db_finalize(st);
				free(v);
				return lb_err_code(err, LB_ENOMEM);
			}
			v = nv;
		}
		v[(*n)++] = atom_db_column_int64(st, 0);
	}
	rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read robots_pages");
	atom_db_finalize(st);
	if (rc < 0) {
		free(v);
		*n = 0;
		return rc;
	}
	*ids = v;
	return 0;
}

int ant_store_robots_ignore_key(ant_store *s, const char *url_key, lb_error *err)
{
	atom_db_st *st;
	int64_t id = 0;
	int rc;

	if ((rc = ant_st_prep(s, &st, "SELECT id FROM pages WHERE key_hash=?2 AND coalesce(url_key, url)=?1",
			      err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, url_key);
	atom_db_bind_int64(st, 2, ant_st_key_hash(url_key));
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		id = atom_db_column_int64(st, 0);
	rc = rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read pages");
	atom_db_finalize(st);
	if (rc < 0 || !id)
		return rc;   /* none: a dry run added nothing */
	return ant_store_robots_ignore_set(s, id, 1, err);
}
