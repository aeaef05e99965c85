/*
 * store_pages.c: the watched pages in the store (ant_store.h's pages):
 * one page's row read and written, the walks over all of them, the
 * batches update checks.  A row's columns are packed for a hub's million
 * pages (schema 5, store_schema.c): the key and source URL left NULL when
 * they are the URL, the rule by its number, an IMF-fixdate as its time.
 */
#include "store_int.h"
#include "ant_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lb_date.h"

#define PAGE_COLS \
	"id, url, url_key, title, title_set_by_user, author, grp, ignore, etag," \
	" last_modified_header, lm_header_time, last_modified, last_detected, last_ok," \
	" last_check, content_length, text_hash, charset, detected_by, source_url," \
	" last_error, last_status, next_check, interval, error_count, recheck, created," \
	" force_charset, imported," \
	" feed_url, feed_by_user, feed_etag, feed_lm_header, feed_time, feed_error, excerpt," \
	" noise, only, no_auto_ignore, check_url," \
	" redirect_count, redirect_to, moved_from, moved_at, failing_since, gone_at," \
	" (SELECT ignore FROM robots_pages WHERE page_id=pages.id), fail_kind, added_url," \
	" render, when_pats, when_hit, taught, news, news_at, prev_modified, prev_by"

void ant_store_page_init(ant_store_page *p)
{
	memset(p, 0, sizeof *p);
	ant_detect_state_init(&p->st);
}

void ant_store_page_release(ant_store_page *p)
{
	free(p->url); free(p->url_key); free(p->title); free(p->author);
	free(p->group); free(p->ignore); free(p->etag); free(p->lm_header);
	free(p->charset); free(p->source_url); free(p->last_error);
	free(p->force_charset);
	free(p->feed_url); free(p->feed_etag); free(p->feed_lm_header); free(p->feed_error);
	free(p->excerpt); free(p->noise);
	free(p->only); free(p->check_url);
	free(p->redirect_to); free(p->moved_from); free(p->added_url);
	free(p->when); free(p->when_hit); free(p->taught); free(p->news);
	ant_store_page_init(p);
}

/* detected_by: one of ant_detect.h's static strings, stored as its number
 * here (1-based; schema 5) or, written before, as the word. */
static const char *const rule_names[] = { "header", "text", "size", "lirs", "feed", "atom" };
#define NRULES (sizeof rule_names / sizeof rule_names[0])

const char *ant_st_rule_name(atom_db_st *st, int i)
{
	const unsigned char *t;

	if (atom_db_column_type(st, i) == ATOM_DB_INTEGER) {
		int64_t k = atom_db_column_int64(st, i);
		return k >= 1 && k <= (int64_t)NRULES ? rule_names[k - 1] : NULL;
	}
	t = atom_db_column_text(st, i);
	for (size_t k = 0; t && k < NRULES; k++)
		if (strcmp((const char *)t, rule_names[k]) == 0)
			return rule_names[k];
	return NULL;
}

static void bind_rule(atom_db_st *st, int i, const char *rule)
{
	for (size_t k = 0; rule && k < NRULES; k++)
		if (strcmp(rule, rule_names[k]) == 0) {
			atom_db_bind_int(st, i, (int)k + 1);
			return;
		}
	atom_db_bind_null(st, i);
}

/*
 * A Last-Modified validator is sent back verbatim (If-Modified-Since), so
 * it must come back byte for byte; but nearly every server sends the
 * IMF-fixdate, 29 bytes that say a 4-byte time.  Such a header is stored
 * as that time and formatted again when read; any other spelling stays
 * text.  The round trip through lb_date_imf() is the test: what is
 * stored as a number is exactly what formats back.
 */
static int lm_pack(const char *h, int64_t *t)
{
	char back[30];

	return h && lb_date_parse_imf(h, strlen(h), t) && lb_date_imf(back, *t) == 0 &&
	       strcmp(back, h) == 0;
}

static void bind_lm(atom_db_st *st, int i, const char *h)
{
	int64_t t;

	if (lm_pack(h, &t))
		atom_db_bind_int64(st, i, t);
	else
		ant_st_bind_text(st, i, h);
}

/* A column of digits only: a packed time where the column has a type
 * (PostgreSQL's TEXT), as no Last-Modified is spelt in digits alone. */
static int all_digits(const unsigned char *t)
{
	if (!t || !*t)
		return 0;
	for (; *t; t++)
		if (*t < '0' || *t > '9')
			return 0;
	return 1;
}

/* A validator column back as the header's text: NULL stays NULL. */
static char *lm_dup(atom_db_st *st, int i)
{
	char b[30];
	int type = atom_db_column_type(st, i);

	if (type == ATOM_DB_INTEGER || (type == ATOM_DB_TEXT && all_digits(atom_db_column_text(st, i))))
		return lb_date_imf(b, atom_db_column_int64(st, i)) == 0 ? strdup(b) : strdup("");
	return ant_st_col_dup(st, i, 1);
}

/* url_key and source_url are NULL when they are the url (schema 5). */
static char *or_url(atom_db_st *st, int i, const char *url)
{
	return atom_db_column_type(st, i) == ATOM_DB_NULL ? (url ? strdup(url) : NULL) : ant_st_col_dup(st, i, 0);
}

static void bind_unless_url(atom_db_st *st, int i, const char *v, const char *url)
{
	ant_st_bind_text(st, i, v && *v && (!url || strcmp(v, url) != 0) ? v : NULL);
}

/* A BLOB column as a malloc'd copy (NULL when empty); LB_ENOMEM out of memory. */
static int blob_dup(atom_db_st *st, int i, unsigned char **out, size_t *n)
{
	const void *b = atom_db_column_blob(st, i);
	size_t len = (size_t)atom_db_column_bytes(st, i);

	*out = NULL;
	*n = 0;
	if (!b || !len)
		return 0;
	if (!(*out = malloc(len)))
		return LB_ENOMEM;
	memcpy(*out, b, len);
	*n = len;
	return 0;
}

/* row: an ant_store_page (void: load_rows reads any table with it) */
static int page_from_row(atom_db_st *st, void *row)
{
	ant_store_page *p = row;

	ant_store_page_init(p);
	p->id = atom_db_column_int64(st, 0);
	p->url = ant_st_col_dup(st, 1, 0);
	p->url_key = or_url(st, 2, p->url);
	p->title = ant_st_col_dup(st, 3, 0);
	p->title_set_by_user = atom_db_column_int(st, 4);
	p->author = ant_st_col_dup(st, 5, 0);
	p->group = ant_st_col_dup(st, 6, 0);
	p->ignore = ant_st_col_dup(st, 7, 0);
	p->etag = ant_st_col_dup(st, 8, 1);
	p->lm_header = lm_dup(st, 9);
	p->st.lm_header_time = atom_db_column_int64(st, 10);
	p->st.last_modified = atom_db_column_int64(st, 11);
	p->st.last_detected = atom_db_column_int64(st, 12);
	p->st.last_ok = atom_db_column_int64(st, 13);
	p->st.last_check = atom_db_column_int64(st, 14);
	p->st.content_length = atom_db_column_int64(st, 15);
	p->st.has_hash = atom_db_column_type(st, 16) != ATOM_DB_NULL;
	p->st.text_hash = (uint64_t)atom_db_column_int64(st, 16);
	p->charset = ant_st_col_dup(st, 17, 1);
	p->st.detected_by = ant_st_rule_name(st, 18);
	p->source_url = or_url(st, 19, p->url);
	p->last_error = ant_st_col_dup(st, 20, 1);
	p->st.last_status = atom_db_column_int(st, 21);
	p->st.next_check = atom_db_column_int64(st, 22);
	p->st.interval = atom_db_column_int64(st, 23);
	p->st.error_count = atom_db_column_int(st, 24);
	p->st.recheck = atom_db_column_int(st, 25);
	p->created = atom_db_column_int64(st, 26);
	p->force_charset = ant_st_col_dup(st, 27, 0);
	p->imported = atom_db_column_int64(st, 28);
	p->st.quiet_first = p->imported != 0;
	p->feed_url = ant_st_col_dup(st, 29, 1);
	p->feed_by_user = atom_db_column_int(st, 30);
	p->feed_etag = ant_st_col_dup(st, 31, 1);
	p->feed_lm_header = lm_dup(st, 32);
	p->st.feed_time = atom_db_column_int64(st, 33);
	p->feed_error = ant_st_col_dup(st, 34, 1);
	p->excerpt = ant_st_col_dup(st, 35, 0);
	p->only = ant_st_col_dup(st, 37, 0);
	p->no_auto_ignore = atom_db_column_int(st, 38);
	p->check_url = ant_st_col_dup(st, 39, 1);
	p->redirect_count = atom_db_column_int64(st, 40);
	p->redirect_to = ant_st_col_dup(st, 41, 1);
	p->moved_from = ant_st_col_dup(st, 42, 1);
	p->moved_at = atom_db_column_int64(st, 43);
	p->failing_since = atom_db_column_int64(st, 44);
	p->gone_at = atom_db_column_int64(st, 45);
	p->ignore_robots = atom_db_column_int(st, 46);
	p->fail_kind = ant_fail_kind_parse((const char *)atom_db_column_text(st, 47));
	p->added_url = ant_st_col_dup(st, 48, 1);
	p->render = atom_db_column_int(st, 49);
	p->when = ant_st_col_dup(st, 50, 0);
	p->when_hit = ant_st_col_dup(st, 51, 1);
	p->taught = ant_st_col_dup(st, 52, 0);
	p->news = ant_st_col_dup(st, 53, 1);
	p->news_at = atom_db_column_int64(st, 54);
	p->prev_modified = atom_db_column_int64(st, 55);
	p->prev_by = ant_st_rule_name(st, 56);
	if (blob_dup(st, 36, &p->noise, &p->noise_len) < 0 || !p->url || !p->url_key || !p->title ||
	    !p->author || !p->group || !p->ignore || !p->source_url || !p->excerpt || !p->force_charset ||
	    !p->only || !p->when || !p->taught) {
		ant_store_page_release(p);
		return LB_ENOMEM;
	}
	return 0;
}

/* 1 when a page of url_key is there, 0 not, < 0 error. */
static int page_exists(ant_store *s, const char *url_key, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "SELECT 1 FROM pages WHERE key_hash=?1 AND coalesce(url_key, url)=?2",
		       err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, ant_st_key_hash(url_key));
	ant_st_bind_text(st, 2, url_key);
	rc = atom_db_step(st);
	rc = rc == ATOM_DB_ROW ? 1 : rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
	atom_db_finalize(st);
	return rc;
}

static void bind_new_page(atom_db_st *st, const void *arg)
{
	const ant_store_page *p = arg;

	ant_st_bind_text(st, 14, p->only ? p->only : "");
	atom_db_bind_int(st, 15, p->no_auto_ignore);
	ant_st_bind_text(st, 16, p->check_url && *p->check_url ? p->check_url : NULL);
	ant_st_bind_text(st, 12, p->force_charset ? p->force_charset : "");
	atom_db_bind_int64(st, 13, p->imported);
	ant_st_bind_text(st, 1, p->url);
	bind_unless_url(st, 2, p->url_key, p->url);
	ant_st_bind_text(st, 3, p->title ? p->title : "");
	atom_db_bind_int(st, 4, p->title_set_by_user);
	ant_st_bind_text(st, 5, p->author ? p->author : "");
	ant_st_bind_text(st, 6, p->group ? p->group : "");
	ant_st_bind_text(st, 7, p->ignore ? p->ignore : "");
	bind_unless_url(st, 8, p->source_url, p->url);
	atom_db_bind_int64(st, 9, p->created);
	ant_st_bind_text(st, 10, p->feed_url);
	atom_db_bind_int(st, 11, p->feed_by_user);
	atom_db_bind_int64(st, 17, ant_st_key_hash(p->url_key));
	atom_db_bind_int(st, 18, p->render);
	ant_st_bind_text(st, 19, p->when ? p->when : "");
	ant_st_bind_text(st, 20, p->taught ? p->taught : "");
}

int ant_store_page_add(ant_store *s, const ant_store_page *p, lb_error *err)
{
	int rc, own = atom_db_get_autocommit(s->db);

	/* One page per key: the index is on the key's hash, not unique, so
	 * the check and the insert are one transaction (the caller's, or
	 * ours) that no other process can slip a page into. */
	if (own && (rc = ant_st_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((rc = page_exists(s, p->url_key, err)) != 0)
		goto done;
	rc = ant_st_run(s, "INSERT INTO pages(url, url_key, title, title_set_by_user, author,"
			" grp, ignore, source_url, created, feed_url, feed_by_user, force_charset, imported,"
			" only, no_auto_ignore, check_url, key_hash, render, when_pats, taught)"
			" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
			bind_new_page, p, err);
	rc = rc < 0 ? rc : 0;
done:
	if (own) {
		int c = rc >= 0 ? ant_st_exec(s, "COMMIT", err) : 0;

		if (rc >= 0 && c == 0)
			return rc;
		ant_store_rollback(s);
		rc = rc < 0 ? rc : c;
	}
	return rc;
}

/* ?1 the key, ?2 its hash */
static void bind_key(atom_db_st *st, const void *arg)
{
	ant_st_bind_text(st, 1, arg);
	atom_db_bind_int64(st, 2, ant_st_key_hash(arg));
}

int ant_store_page_remove(ant_store *s, const char *url_key, lb_error *err)
{
	int rc = ant_st_run(s, "DELETE FROM pages WHERE key_hash=?2 AND coalesce(url_key, url)=?1",
			    bind_key, url_key, err);

	return rc < 0 ? rc : rc > 0;
}

int ant_store_page_get(ant_store *s, const char *url_key, ant_store_page *out, lb_error *err)
{
	atom_db_st *st;
	int rc;

	/* cached: an update looks up the page of every record its sources
	 * give (the key_hash index), instead of holding every page */
	ant_store_page_init(out);
	if ((rc = ant_st_cached(s, &s->get_page, "SELECT " PAGE_COLS " FROM pages WHERE key_hash=?2 AND"
			 " coalesce(url_key, url)=?1", err)) < 0)
		return rc;
	st = s->get_page;
	ant_st_bind_text(st, 1, url_key);
	atom_db_bind_int64(st, 2, ant_st_key_hash(url_key));
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		rc = page_from_row(st, out) < 0 ? lb_err_code(err, LB_ENOMEM) : 1;
	else if (rc == ATOM_DB_DONE)
		rc = 0;
	else
		rc = ant_st_dberr(s, err, "database error");
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	return rc;
}

/* Every page of sql (one row of PAGE_COLS at a time) to fn. */
static int pages_walk(ant_store *s, const char *sql, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	atom_db_st *st;
	ant_store_page p;
	int rc;

	if ((rc = ant_st_prep(s, &st, sql, err)) < 0)
		return rc;
	atom_db_stream(st);	/* every page: PostgreSQL's in batches */
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		if (page_from_row(st, &p) < 0) {
			atom_db_finalize(st);
			return lb_err_code(err, LB_ENOMEM);
		}
		rc = fn(ctx, &p);
		ant_store_page_release(&p);
		if (rc != 0) {
			atom_db_finalize(st);
			return rc;
		}
	}
	rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
	atom_db_finalize(st);
	return rc;
}

/* ORDER BY: SQLite's sorter spills to a temporary file past its cache,
 * so memory stays bounded however many pages there are; BINARY collation
 * is strcmp(): the byte order of the URLs, as export and list always had. */
int ant_store_pages_each(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	return pages_walk(s, "SELECT " PAGE_COLS " FROM pages ORDER BY url", fn, ctx, err);
}

int ant_store_pages_each_grouped(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	return pages_walk(s, "SELECT " PAGE_COLS " FROM pages ORDER BY grp, url", fn, ctx, err);
}

/* Steps st's rows into out after *n, up to max: 0, or < 0 with err set
 * (what names the walk in a database error); the caller resets st. */
static int pages_read(ant_store *s, atom_db_st *st, ant_store_page *out, size_t max, size_t *n,
		      const char *what, lb_error *err)
{
	int rc = ATOM_DB_DONE;

	while (*n < max && (rc = atom_db_step(st)) == ATOM_DB_ROW) {
		if (page_from_row(st, &out[*n]) < 0)
			return lb_err_code(err, LB_ENOMEM);
		(*n)++;
	}
	if (rc == ATOM_DB_ROW || rc == ATOM_DB_DONE)
		return 0;
	return ant_st_dberr(s, err, what);
}

int ant_store_pages_due(ant_store *s, int64_t after, int64_t now, int force, ant_store_page *out,
			size_t max, size_t *n, lb_error *err)
{
	atom_db_st *st;
	int rc;

	/* keyset pagination by id (the rowid: a range scan, no sort), so
	 * that the batches of a run are one pass over the table; the rule
	 * of ant_detect_due() */
	*n = 0;
	if ((rc = ant_st_cached(s, &s->due_pages, "SELECT " PAGE_COLS " FROM pages WHERE id > ?1"
			 " AND (?2 <> 0 OR recheck <> 0 OR next_check <= ?3) ORDER BY id LIMIT ?4", err)) < 0)
		return rc;
	st = s->due_pages;
	atom_db_bind_int64(st, 1, after);
	atom_db_bind_int(st, 2, force != 0);
	atom_db_bind_int64(st, 3, now);
	atom_db_bind_int64(st, 4, (int64_t)max);
	rc = pages_read(s, st, out, max, n, "database error", err);
	atom_db_reset(st);
	if (rc < 0) {
		while (*n)
			ant_store_page_release(&out[--(*n)]);
	}
	return rc;
}

/* The claim's pages (store_lease.c): up to c->per_server claimable pages of
 * each server the claim took, at most max in all, taken in turn from each
 * server (row_number: the first of each, then the second...), locked with SKIP
 * LOCKED and leased to c->checker, read into out.  0 or < 0; the caller
 * rolls back and releases out on an error.  PostgreSQL's SQL only. */
int ant_st_pages_leased(ant_store *s, const ant_store_claim *c, ant_store_page *out, size_t max,
			size_t *n, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "UPDATE pages SET lease_by = ?1, lease_until = ?3 + ?4"
			      " WHERE id IN (SELECT id FROM pages WHERE id IN (SELECT id FROM"
			      " (SELECT id, row_number() OVER (PARTITION BY server ORDER BY id) AS rn"
			      " FROM pages WHERE server IN (SELECT server FROM server_slot"
			      " WHERE checker = ?1 AND until > ?3) AND ((?6 <> 0 AND last_check < ?2) OR recheck <> 0 OR"
			      " next_check <= ?2) AND lease_until <= ?3 AND lease_by IS DISTINCT FROM ?1) t"
			      " WHERE rn <= ?7 ORDER BY rn, id LIMIT ?8) FOR UPDATE SKIP LOCKED)"
			      " RETURNING " PAGE_COLS, err)) < 0)
		return rc;
	/* store_lease.c's numbering: ?1 checker, ?2 now, ?3 now_ms, ?4 lease_ms,
	 * ?6 force, ?7 per_server, and ?8 max */
	ant_st_bind_text(st, 1, c->checker);
	atom_db_bind_int64(st, 2, c->now);
	atom_db_bind_int64(st, 3, c->now_ms);
	atom_db_bind_int64(st, 4, c->lease_ms);
	atom_db_bind_int(st, 6, c->force != 0);
	atom_db_bind_int64(st, 7, (int64_t)c->per_server);
	atom_db_bind_int64(st, 8, (int64_t)max);
	rc = pages_read(s, st, out, max, n, "claiming pages", err);
	atom_db_finalize(st);
	return rc;
}

int ant_store_pages_count(ant_store *s, int64_t *n, int64_t *first_due, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "SELECT count(*), min(next_check) FROM pages", err)) < 0)
		return rc;
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW) {
		*n = atom_db_column_int64(st, 0);
		*first_due = atom_db_column_int64(st, 1);   /* NULL (no page): 0 */
		rc = 0;
	} else {
		rc = ant_st_dberr(s, err, "database error");
	}
	atom_db_finalize(st);
	return rc;
}

int ant_store_page_groups(ant_store *s, const char *group, int *has, lb_buf *out, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*has = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT DISTINCT grp FROM pages WHERE grp != '' ORDER BY grp",
			      err)) < 0)
		return rc;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *g = (const char *)atom_db_column_text(st, 0);

		if (!g)
			continue;
		*has |= strcmp(g, group) == 0;
		if ((out->len && lb_buf_adds(out, ", ") < 0) || lb_buf_adds(out, g) < 0) {
			atom_db_finalize(st);
			return lb_err_code(err, LB_ENOMEM);
		}
	}
	rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "database error");
	atom_db_finalize(st);
	return rc;
}

void ant_store_pages_free(ant_store_page *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ant_store_page_release(&p[i]);
	free(p);
}

int ant_store_page_save(ant_store *s, const ant_store_page *p, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_cached(s, &s->save_page, "UPDATE pages SET title=?2, etag=?3, last_modified_header=?4,"
		       " lm_header_time=?5, last_modified=?6, last_detected=?7, last_ok=?8, last_check=?9,"
		       " content_length=?10, text_hash=?11, charset=?12, detected_by=?13, source_url=?14,"
		       " last_error=?15, last_status=?16, next_check=?17, interval=?18, error_count=?19,"
		       " recheck=?20, feed_url=?21, feed_etag=?22, feed_lm_header=?23, feed_time=?24,"
		       " feed_error=?25, excerpt=?26, noise=?27, redirect_count=?28, redirect_to=?29,"
		       " failing_since=?30, gone_at=?31, fail_kind=?32, when_hit=?33, news=?34, news_at=?35,"
		       " prev_modified=?36, prev_by=?37 WHERE id=?1", err)) < 0)
		return rc;
	st = s->save_page;
	atom_db_bind_int64(st, 1, p->id);
	ant_st_bind_text(st, 2, p->title ? p->title : "");
	ant_st_bind_text(st, 3, p->etag);
	bind_lm(st, 4, p->lm_header);
	atom_db_bind_int64(st, 5, p->st.lm_header_time);
	atom_db_bind_int64(st, 6, p->st.last_modified);
	atom_db_bind_int64(st, 7, p->st.last_detected);
	atom_db_bind_int64(st, 8, p->st.last_ok);
	atom_db_bind_int64(st, 9, p->st.last_check);
	atom_db_bind_int64(st, 10, p->st.content_length);
	if (p->st.has_hash)
		atom_db_bind_int64(st, 11, (int64_t)p->st.text_hash);
	else
		atom_db_bind_null(st, 11);
	ant_st_bind_text(st, 12, p->charset);
	bind_rule(st, 13, p->st.detected_by);
	bind_unless_url(st, 14, p->source_url, p->url);
	ant_st_bind_text(st, 15, p->last_error);
	atom_db_bind_int64(st, 16, p->st.last_status);
	atom_db_bind_int64(st, 17, p->st.next_check);
	atom_db_bind_int64(st, 18, p->st.interval);
	atom_db_bind_int(st, 19, p->st.error_count);
	atom_db_bind_int(st, 20, p->st.recheck);
	ant_st_bind_text(st, 21, p->feed_url);
	ant_st_bind_text(st, 22, p->feed_etag);
	bind_lm(st, 23, p->feed_lm_header);
	atom_db_bind_int64(st, 24, p->st.feed_time);
	ant_st_bind_text(st, 25, p->feed_error);
	ant_st_bind_text(st, 26, p->excerpt ? p->excerpt : "");
	if (p->noise_len)
		atom_db_bind_blob(st, 27, p->noise, (int)p->noise_len, ATOM_DB_STATIC);
	else
		atom_db_bind_null(st, 27);
	atom_db_bind_int64(st, 28, p->redirect_count);
	ant_st_bind_text(st, 29, p->redirect_to);
	/* not moved_from, moved_at: only a move writes them (ant_store_page_move()) */
	atom_db_bind_int64(st, 30, p->failing_since);
	atom_db_bind_int64(st, 31, p->gone_at);
	ant_st_bind_text(st, 32, p->last_error ? ant_fail_kind_name(p->fail_kind) : NULL);
	ant_st_bind_text(st, 33, p->when_hit);
	ant_st_bind_text(st, 34, p->news);
	atom_db_bind_int64(st, 35, p->news_at);
	atom_db_bind_int64(st, 36, p->prev_modified);
	bind_rule(st, 37, p->prev_by);
	return ant_st_run_cached(s, st, err);
}

struct move_args {
	int64_t id, now;
	const char *url, *key;
	char *from;
};

static void bind_move(atom_db_st *st, const void *arg)
{
	const struct move_args *m = arg;

	atom_db_bind_int64(st, 1, m->id);
	ant_st_bind_text(st, 2, m->url);
	bind_unless_url(st, 3, m->key, m->url);
	atom_db_bind_int64(st, 4, ant_st_key_hash(m->key));
	ant_st_bind_text(st, 5, m->from);
	atom_db_bind_int64(st, 6, m->now);
	ant_st_bind_text(st, 7, m->key);   /* ?3 is NULL when the key is the URL */
}

/* The old URL of the page of id, malloc'd; NULL when none or out of memory. */
static char *url_of(ant_store *s, int64_t id)
{
	atom_db_st *st;
	char *u = NULL;

	if (ant_st_prep(s, &st, "SELECT url FROM pages WHERE id=?1", NULL) < 0)
		return NULL;
	atom_db_bind_int64(st, 1, id);
	if (atom_db_step(st) == ATOM_DB_ROW)
		u = ant_st_col_dup(st, 0, 0);
	atom_db_finalize(st);
	return u;
}

int ant_store_page_move(ant_store *s, int64_t id, const char *url, const char *url_key,
			int64_t now, lb_error *err)
{
	struct move_args m = { id, now, url, url_key, url_of(s, id) };
	int rc, merged;

	if (!m.from)
		return lb_err(err, LB_ENOMEM, "the moved page's URL could not be read");
	if ((merged = page_exists(s, url_key, err)) < 0)
		rc = merged;
	else if (!merged)
		rc = ant_st_run(s, "UPDATE pages SET url=?2, url_key=?3, key_hash=?4, moved_from=?5,"
				" added_url=coalesce(added_url, ?5), moved_at=?6, redirect_count=0, redirect_to=NULL, source_url=NULL"
				" WHERE id=?1", bind_move, &m, err);
	else if ((rc = ant_st_run(s, "UPDATE pages SET moved_from=?5, moved_at=?6"
				  " WHERE key_hash=?4 AND coalesce(url_key, url)=?7", bind_move, &m, err)) >= 0)
		rc = ant_st_run(s, "DELETE FROM pages WHERE id=?1", bind_move, &m, err);
	free(m.from);
	return rc < 0 ? rc : merged;
}

int ant_store_page_set_moved(ant_store *s, const char *url_key, const char *from, int64_t at,
			     lb_error *err)
{
	struct move_args m = { 0, at, url_key, url_key, (char *)from };
	int rc = ant_st_run(s, "UPDATE pages SET moved_from=?5, moved_at=?6"
			    " WHERE key_hash=?4 AND coalesce(url_key, url)=?7", bind_move, &m, err);

	return rc < 0 ? rc : 0;
}

static void bind_config(atom_db_st *st, const void *arg)
{
	const ant_store_page *p = arg;

	atom_db_bind_int64(st, 1, p->id);
	ant_st_bind_text(st, 2, p->title ? p->title : "");
	atom_db_bind_int(st, 3, p->title_set_by_user);
	ant_st_bind_text(st, 4, p->author ? p->author : "");
	ant_st_bind_text(st, 5, p->group ? p->group : "");
	ant_st_bind_text(st, 6, p->ignore ? p->ignore : "");
	ant_st_bind_text(st, 7, p->force_charset ? p->force_charset : "");
	ant_st_bind_text(st, 8, p->only ? p->only : "");
	atom_db_bind_int(st, 9, p->no_auto_ignore);
	ant_st_bind_text(st, 10, p->check_url && *p->check_url ? p->check_url : NULL);
	ant_st_bind_text(st, 11, p->feed_url && *p->feed_url ? p->feed_url : NULL);
	atom_db_bind_int(st, 12, p->feed_by_user);
	atom_db_bind_int(st, 13, p->render);
	ant_st_bind_text(st, 14, p->when ? p->when : "");
	ant_st_bind_text(st, 15, p->taught ? p->taught : "");
}

int ant_store_page_set_config(ant_store *s, const ant_store_page *p, lb_error *err)
{
	int rc = ant_st_run(s, "UPDATE pages SET title=?2, title_set_by_user=?3, author=?4, grp=?5,"
			    " ignore=?6, force_charset=?7, only=?8, no_auto_ignore=?9, check_url=?10,"
			    " feed_url=?11, feed_by_user=?12, render=?13, when_pats=?14, taught=?15"
			    " WHERE id=?1", bind_config, p, err);

	return rc < 0 ? rc : 0;
}

static void bind_id(atom_db_st *st, const void *arg)
{
	atom_db_bind_int64(st, 1, *(const int64_t *)arg);
}

int ant_store_page_rebaseline(ant_store *s, int64_t id, unsigned what, lb_error *err)
{
	int rc = 0;

	/* No fingerprint to compare with: the next check takes one and
	 * announces nothing (ant_detect.h: no text hash, no size, no noise
	 * state; what was learned volatile goes with it).  Without
	 * validators the next answer is a 200, not a 304 that would put
	 * the new baseline off. */
	if ((what & ANT_REBASE_TEXT) &&
	    (rc = ant_st_run(s, "UPDATE pages SET text_hash=NULL, content_length=-1, noise=NULL,"
			     " etag=NULL, last_modified_header=NULL, next_check=0 WHERE id=?1",
			     bind_id, &id, err)) < 0)
		return rc;
	/* Another feed: what the old one said is not comparable. */
	if (what & ANT_REBASE_FEED)
		rc = ant_st_run(s, "UPDATE pages SET feed_etag=NULL, feed_lm_header=NULL, feed_time=0,"
				" feed_error=NULL, next_check=0 WHERE id=?1", bind_id, &id, err);
	return rc < 0 ? rc : 0;
}
