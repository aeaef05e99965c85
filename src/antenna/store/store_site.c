/*
 * store_site.c: the sites' templates in the store (ant_store.h,
 * ant_furniture.h): each site's few pages' segment keys, table
 * site_pages.  Keys are 32-bit, stored little-endian in one blob a page.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

void ant_store_sitepages_free(ant_store_sitepage *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].url);
		free(v[i].keys);
	}
	free(v);
}

/* The keys of a blob of n bytes (a multiple of 4; a short tail dropped). */
static int take_keys(ant_store_sitepage *pg, const unsigned char *b, size_t n)
{
	size_t k = n / 4;

	if (k > ANT_STORE_SITE_KEYS)
		k = ANT_STORE_SITE_KEYS;
	if (!k)
		return 0;
	if (!(pg->keys = malloc(k * sizeof *pg->keys)))
		return LB_ENOMEM;
	for (size_t i = 0; i < k; i++)
		pg->keys[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
			      (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
	pg->nkeys = k;
	return 0;
}

/* The rows st reads (url, sibling, seen, keys), at most max, into a
 * calloc'd array of max; st reset after.  0 or < 0 with err. */
static int take_rows(ant_store *s, atom_db_st *st, size_t max, ant_store_sitepage **out, size_t *n,
		     lb_error *err)
{
	ant_store_sitepage *v = calloc(max + 1, sizeof *v);
	size_t k = 0;
	int rc = LB_ENOMEM;

	while (v && (rc = atom_db_step(st)) == ATOM_DB_ROW && k < max) {
		ant_store_sitepage *pg = &v[k++];

		pg->url = ant_st_col_dup(st, 0, 0);
		pg->sibling = atom_db_column_int(st, 1);
		pg->seen = atom_db_column_int64(st, 2);
		if (!pg->url || take_keys(pg, atom_db_column_blob(st, 3), (size_t)atom_db_column_bytes(st, 3)) < 0) {
			rc = LB_ENOMEM;
			break;
		}
	}
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	if (rc != ATOM_DB_DONE && rc != ATOM_DB_ROW) {
		ant_store_sitepages_free(v, k);
		return rc == LB_ENOMEM ? lb_err_code(err, LB_ENOMEM) : ant_st_dberr(s, err, "cannot read a site's template");
	}
	*out = v;
	*n = k;
	return 0;
}

/* Newest first; the URL orders pages seen at the same time, so that the
 * store and update_site.c's copy of the rows give them in one order. */
int ant_store_site_get(ant_store *s, const char *site, const char *except_url, int64_t since,
		       ant_store_sitepage **out, size_t *n, lb_error *err)
{
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ant_st_cached(s, &s->site_get, "SELECT url, sibling, seen, keys FROM site_pages WHERE site=?1"
			      " AND url IS NOT ?2 AND seen >= ?3 ORDER BY seen DESC, url LIMIT ?4", err)) < 0)
		return rc;
	ant_st_bind_text(s->site_get, 1, site);
	ant_st_bind_text(s->site_get, 2, except_url);
	atom_db_bind_int64(s->site_get, 3, since);
	atom_db_bind_int(s->site_get, 4, ANT_STORE_SITE_PAGES);
	return take_rows(s, s->site_get, ANT_STORE_SITE_PAGES, out, n, err);
}

int ant_store_site_all(ant_store *s, const char *site, size_t max, ant_store_sitepage **out, size_t *n,
		       lb_error *err)
{
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ant_st_cached(s, &s->site_all, "SELECT url, sibling, seen, keys FROM site_pages WHERE site=?1"
			      " ORDER BY seen DESC, url LIMIT ?2", err)) < 0)
		return rc;
	ant_st_bind_text(s->site_all, 1, site);
	atom_db_bind_int64(s->site_all, 2, (int64_t)max);
	return take_rows(s, s->site_all, max, out, n, err);
}

/* Is url one of site's pages, or is there room (a free row, or one
 * not seen since stale, which goes)?  1 yes, 0 no, < 0. */
static int site_room(ant_store *s, const char *site, const char *url, int64_t stale, lb_error *err)
{
	atom_db_st *st;
	int rc, n = 0, known = 0;
	char *oldest = NULL;
	int64_t oldest_seen = 0;

	if ((rc = ant_st_cached(s, &s->site_list, "SELECT url, seen FROM site_pages WHERE site=?1 ORDER BY seen, url", err)) < 0)
		return rc;
	st = s->site_list;
	ant_st_bind_text(st, 1, site);
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *u = (const char *)atom_db_column_text(st, 0);

		known |= u && strcmp(u, url) == 0;
		if (!n++ && u) {
			oldest = strdup(u);
			oldest_seen = atom_db_column_int64(st, 1);
		}
	}
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	if (rc != ATOM_DB_DONE) {
		free(oldest);
		return ant_st_dberr(s, err, "cannot read a site's template");
	}
	if (known || n < ANT_STORE_SITE_PAGES) {
		free(oldest);
		return 1;
	}
	if (!oldest || oldest_seen >= stale) {
		free(oldest);
		return 0;
	}
	rc = ant_st_cached(s, &s->site_del, "DELETE FROM site_pages WHERE site=?1 AND url=?2", err);
	if (rc == 0) {
		st = s->site_del;
		ant_st_bind_text(st, 1, site);
		ant_st_bind_text(st, 2, oldest);
		rc = atom_db_step(st) == ATOM_DB_DONE ? 1 : ant_st_dberr(s, err, "cannot keep a site's template");
		atom_db_reset(st);
		atom_db_clear_bindings(st);
	}
	free(oldest);
	return rc;
}

int ant_store_site_put(ant_store *s, const char *site, const char *url, int sibling, int64_t seen,
		       int64_t stale, const uint32_t *keys, size_t nkeys, lb_error *err)
{
	atom_db_st *st;
	unsigned char *b;
	int rc;

	if ((rc = site_room(s, site, url, stale, err)) <= 0)
		return rc;
	if (nkeys > ANT_STORE_SITE_KEYS)
		nkeys = ANT_STORE_SITE_KEYS;
	if (!(b = malloc(4 * nkeys + 1)))
		return lb_err_code(err, LB_ENOMEM);
	for (size_t i = 0; i < nkeys; i++) {
		b[4 * i] = (unsigned char)keys[i];
		b[4 * i + 1] = (unsigned char)(keys[i] >> 8);
		b[4 * i + 2] = (unsigned char)(keys[i] >> 16);
		b[4 * i + 3] = (unsigned char)(keys[i] >> 24);
	}
	if ((rc = ant_st_cached(s, &s->site_put, "INSERT INTO site_pages(site, url, sibling, seen, keys)"
			      " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(site, url) DO UPDATE"
			      " SET sibling=?3, seen=?4, keys=?5", err)) < 0) {
		free(b);
		return rc;
	}
	st = s->site_put;
	ant_st_bind_text(st, 1, site);
	ant_st_bind_text(st, 2, url);
	atom_db_bind_int(st, 3, sibling);
	atom_db_bind_int64(st, 4, seen);
	if (nkeys)
		atom_db_bind_blob(st, 5, b, (int)(4 * nkeys), ATOM_DB_TRANSIENT);
	rc = atom_db_step(st);
	atom_db_reset(st);
	atom_db_clear_bindings(st);
	free(b);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot keep a site's template");
}
