/*
 * update_site.c: each site's template in a page's check (ant_furniture.h):
 * the keys of the site's other pages read from the store, the page's own
 * kept there for them, and, when the page is the only one known of its
 * site, a sibling page noted for update_sibling.c to fetch after the
 * batch.  A site is an origin ("https://host:443"): what one server
 * writes with one template, the unit robots.txt and the politeness
 * already speak of.  The registrable domain would join a company's blog
 * and wiki (two templates); a host with two installations (/~alice/,
 * /wiki/) costs nothing here: their parts' paths differ, so they share
 * nothing but what both write alike.
 */
#include "update_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ant_feed.h"
#include "ant_pagestate.h"
#include "ant_robots.h"

/* The site of url into b (n bytes); 0, or < 0 when it is not http(s). */
static int site_of(const char *url, char *b, size_t n)
{
	const char *path;

	return url ? ant_robots_origin(url, b, n, &path) : LB_EINVAL;
}

/* Assets and documents that are no page of the site's template. */
static int is_asset(const char *url)
{
	static const char *const ext[] = { ".css", ".js", ".png", ".jpg", ".jpeg", ".gif", ".svg",
					   ".ico", ".webp", ".xml", ".rss", ".atom", ".json", ".pdf",
					   ".zip", ".gz", ".txt", ".mp3", ".mp4", NULL };
	size_t n = strcspn(url, "?#");

	for (size_t i = 0; ext[i]; i++) {
		size_t l = strlen(ext[i]);

		if (n > l && strncasecmp(url + n - l, ext[i], l) == 0)
			return 1;
	}
	return 0;
}

/* The same page (the fragment aside)? */
static int same_page(const char *a, const char *b)
{
	size_t na = strcspn(a, "#"), nb = strcspn(b, "#");

	return na == nb && strncmp(a, b, na) == 0;
}

/* A sibling page: the first link of the page to another page of its site
 * (the first links are its header and navigation: the site's root, its
 * "about", the previous entry), no query, no asset; malloc'd, or NULL.
 * The body is looked at up to ANT_TEMPLATE_LINK_SCAN bytes. */
char *ant_upd_site_sibling(const char *base, const char *site, const char *body, size_t len)
{
	const char *s = body, *end = body + (len < ANT_TEMPLATE_LINK_SCAN ? len : ANT_TEMPLATE_LINK_SCAN);
	char other[512], href[2048];

	for (int links = 0; s && s < end && links < 200; links++) {
		const char *a = s, *v;
		size_t n;
		char q;
		char *url;

		/* the next "<a " then its href */
		while (a + 3 < end && !(a[0] == '<' && (a[1] == 'a' || a[1] == 'A') &&
					 (a[2] == ' ' || a[2] == '\t' || a[2] == '\n' || a[2] == '\r')))
			a++;
		if (a + 3 >= end)
			return NULL;
		s = a + 3;
		while (s + 5 < end && *s != '>' && strncasecmp(s, "href=", 5) != 0)
			s++;
		if (s + 5 >= end || *s == '>')
			continue;
		v = s + 5;
		q = *v == '"' || *v == '\'' ? *v++ : 0;
		n = 0;
		while (v + n < end && n < sizeof href - 1 && v[n] != (q ? q : ' ') && v[n] != '>' && (q || v[n] != '\t'))
			n++;
		memcpy(href, v, n);
		href[n] = '\0';
		s = v + n;
		if (!n || strchr(href, '?') || href[0] == '#')
			continue;
		if (!(url = ant_feed_resolve(base, href)))
			continue;
		if (site_of(url, other, sizeof other) == 0 && strcmp(other, site) == 0 && !same_page(url, base) &&
		    !is_asset(url))
			return url;
		free(url);
	}
	return NULL;
}

/* The page's sibling: a link of its own, else its site's root. */
static char *sibling_url(const ant_store_page *p, const ant_fetch_result *res, const char *site)
{
	const char *base = res->effective_url ? res->effective_url : p->url;
	char *url = ant_upd_site_sibling(base, site, res->body, res->len);
	size_t n = strlen(site);

	if (url || !(url = malloc(n + 2)))
		return url;
	memcpy(url, site, n);
	strcpy(url + n, "/");
	if (same_page(url, base) || (strncmp(base, site, n) != 0 && strchr(base + strcspn(base, ":") + 3, '/') &&
				     strcmp(strchr(base + strcspn(base, ":") + 3, '/'), "/") == 0)) {
		free(url);
		return NULL;
	}
	return url;
}

/* The run's note of a sibling to fetch for site (one a site a run). */
static void want_sibling(const struct upd *u, const ant_store_page *p, const char *site, char *url)
{
	struct upd_sibling *v;

	for (size_t i = 0; i < u->tmpl->n; i++)
		if (strcmp(u->tmpl->v[i].site, site) == 0) {
			free(url);
			return;
		}
	if (!(v = realloc(u->tmpl->v, (u->tmpl->n + 1) * sizeof *v))) {
		free(url);
		return;
	}
	u->tmpl->v = v;
	v[u->tmpl->n] = (struct upd_sibling){ strdup(site), url,
					      ant_pagestate_allow_url(p) ? strdup(ant_pagestate_allow_url(p)) : NULL,
					      strdup(p->url) };
	if (!v[u->tmpl->n].site || !v[u->tmpl->n].page) {
		free(url);
		free(v[u->tmpl->n].site);
		free(v[u->tmpl->n].allow);
		free(v[u->tmpl->n].page);
		return;
	}
	u->tmpl->n++;
}

/* ---- the sites' rows, read once a batch ------------------------------- */

static void rows_drop(struct upd_site_rows *e)
{
	ant_store_sitepages_free(e->rows, e->n);
	free(e->site);
	memset(e, 0, sizeof *e);
}

/* A slot for another site's rows: a free one, else the one used longest
 * ago that no check reads; NULL when every one is read. */
static struct upd_site_rows *rows_slot(struct upd_siblings *c)
{
	struct upd_site_rows *e = NULL;

	for (size_t i = 0; i < UPD_SITE_ROWS; i++) {
		struct upd_site_rows *r = &c->rows[i];

		if (r->refs)
			continue;
		if (!r->site)
			return r;
		if (!e || r->used < e->used)
			e = r;
	}
	if (e)
		rows_drop(e);
	return e;
}

/* Every row of site, read from the store at the batch's first ask (the
 * per-page query was a tenth of an update's CPU); NULL: ask the store
 * (a site holding more rows than ANT_STORE_SITE_PAGES, no slot, an
 * error).  The rows are the store's while our writes drop them
 * (rows_changed). */
static struct upd_site_rows *rows_of(const struct upd *u, const char *site)
{
	struct upd_siblings *c = u->tmpl;
	struct upd_site_rows *e;

	if (!c)
		return NULL;
	for (size_t i = 0; i < UPD_SITE_ROWS; i++) {
		e = &c->rows[i];
		if (e->site && !e->dead && strcmp(e->site, site) == 0) {
			e->used = ++c->tick;
			return e->rows ? e : NULL;
		}
	}
	if (!(e = rows_slot(c)) || !(e->site = strdup(site)))
		return NULL;
	e->used = ++c->tick;
	if (ant_store_site_all(u->s, site, ANT_STORE_SITE_PAGES + 1, &e->rows, &e->n, NULL) < 0) {
		rows_drop(e);
		return NULL;
	}
	if (e->n > ANT_STORE_SITE_PAGES) {   /* kept as such: the store answers for it */
		ant_store_sitepages_free(e->rows, e->n);
		e->rows = NULL;
		e->n = 0;
		return NULL;
	}
	return e;
}

/* site's rows were written: its copy goes (when a check reads it, once
 * that check is done). */
static void rows_changed(const struct upd *u, const char *site)
{
	struct upd_siblings *c = u->tmpl;

	for (size_t i = 0; c && i < UPD_SITE_ROWS; i++) {
		struct upd_site_rows *e = &c->rows[i];

		if (!e->site || e->dead || strcmp(e->site, site) != 0)
			continue;
		if (e->refs)
			e->dead = 1;
		else
			rows_drop(e);
	}
}

void ant_upd_site_forget(const struct upd *u)
{
	struct upd_siblings *c = u->tmpl;

	for (size_t i = 0; c && i < UPD_SITE_ROWS; i++) {
		if (c->rows[i].refs)
			c->rows[i].dead = 1;
		else if (c->rows[i].site)
			rows_drop(&c->rows[i]);
	}
}

/* Would ant_store_site_put keep nothing of url (no room among the site's
 * rows, none stale)?  Told from the rows alone, as store_site.c's
 * site_room tells it: url not among them, all ANT_STORE_SITE_PAGES
 * taken, the one seen longest ago (then the first URL) seen since stale. */
static int no_room(const struct upd_site_rows *e, const char *url, int64_t stale)
{
	const ant_store_sitepage *old = NULL;

	for (size_t i = 0; i < e->n; i++) {
		const ant_store_sitepage *r = &e->rows[i];

		if (strcmp(r->url, url) == 0)
			return 0;
		if (!old || r->seen < old->seen || (r->seen == old->seen && strcmp(r->url, old->url) < 0))
			old = r;
	}
	return e->n >= ANT_STORE_SITE_PAGES && old && old->seen >= stale;
}

/* ---- a page's template ------------------------------------------------- */

void ant_upd_site_load(const struct upd *u, const ant_store_page *p, const ant_fetch_result *res,
		       struct upd_site *t)
{
	char site[512];
	size_t fresh = 0, nv, taken = 0;
	int64_t tried = 0, since = u->now - ANT_TEMPLATE_MAX_AGE;
	const ant_store_sitepage *v;

	memset(t, 0, sizeof *t);
	if (site_of(p->url, site, sizeof site) < 0)
		return;
	if ((t->copy = rows_of(u, site))) {
		t->copy->refs++;
		v = t->copy->rows;
		nv = t->copy->n;
	} else if (ant_store_site_get(u->s, site, p->url, since, &t->rows, &t->nrows, NULL) < 0) {
		return;
	} else {
		v = t->rows;
		nv = t->nrows;
	}
	if (!(t->page = calloc(nv ? nv : 1, sizeof *t->page)))
		return;
	for (size_t i = 0; i < nv && taken < ANT_STORE_SITE_PAGES; i++) {
		const ant_store_sitepage *r = &v[i];

		/* the copy holds all the site's rows: the store's query here */
		if (t->copy && (strcmp(r->url, p->url) == 0 || r->seen < since))
			continue;
		taken++;
		if (r->sibling && r->seen > tried)
			tried = r->seen;
		if (!r->nkeys)
			continue;
		t->page[t->site.npages++] = (ant_furniture_page){ r->keys, r->nkeys, r->sibling, r->url, r->seen };
		fresh += !r->sibling || r->seen >= u->now - ANT_TEMPLATE_SIBLING_MAX_AGE;
	}
	t->site.page = t->page;
	/* the only page known of its site: a sibling for reference, at most
	 * one asked a site in ANT_TEMPLATE_SIBLING_EVERY */
	if (res && u->tmpl && !fresh && tried <= u->now - ANT_TEMPLATE_SIBLING_EVERY && res->body)
		want_sibling(u, p, site, sibling_url(p, res, site));
}

int ant_upd_site_alone(struct upd *u, const char *site, const char *url)
{
	ant_store_sitepage *rows;
	size_t n, others = 0;

	if (ant_store_site_get(u->s, site, url, u->now - ANT_TEMPLATE_MAX_AGE, &rows, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		others += rows[i].nkeys && !rows[i].sibling;
	ant_store_sitepages_free(rows, n);
	return others == 0;
}

/* How many of a's keys are in b (both sorted)? */
static size_t common(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t i = 0, j = 0, n = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j])
			n++, i++, j++;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return n;
}

int ant_upd_site_same_page(struct upd *u, const char *site, const char *url, const ant_page_info *info)
{
	ant_store_sitepage *rows;
	uint32_t *keys;
	size_t n, nk, both = 0, mine = 0;

	if (ant_furniture_keys(info, &keys, &nk) < 0)
		return 0;
	if (ant_store_site_get(u->s, site, NULL, 0, &rows, &n, NULL) < 0) {
		free(keys);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].url, url) == 0) {
			both = common(keys, nk, rows[i].keys, rows[i].nkeys);
			mine = rows[i].nkeys > nk ? rows[i].nkeys : nk;
		}
	ant_store_sitepages_free(rows, n);
	free(keys);
	return mine && both * 10 >= mine * 9;
}

void ant_upd_site_release(struct upd_site *t)
{
	ant_store_sitepages_free(t->rows, t->nrows);
	if (t->copy && t->copy->refs && !--t->copy->refs && t->copy->dead)
		rows_drop(t->copy);
	free(t->page);
	memset(t, 0, sizeof *t);
}

int ant_upd_site_keep(struct upd *u, const char *url, int sibling, const ant_page_info *info)
{
	char site[512];
	uint32_t *keys = NULL;
	size_t n = 0;
	int64_t stale = u->now - ANT_TEMPLATE_SIBLING_MAX_AGE;
	struct upd_site_rows *e;
	int rc;

	if (site_of(url, site, sizeof site) < 0)
		return 0;
	/* a site's rows all taken, and fresh: nothing to write (most pages
	 * of a big site), told without the store */
	if ((e = rows_of(u, site)) && no_room(e, url, stale))
		return u->failed_db ? LB_EDB : 0;
	if (info && (rc = ant_furniture_keys(info, &keys, &n)) < 0)
		return rc;
	if ((rc = ant_upd_tx_need(u)) < 0) {
		free(keys);
		return rc;
	}
	rc = ant_store_site_put(u->s, site, url, sibling, u->now, stale, keys, n, NULL);
	rows_changed(u, site);
	free(keys);
	/* a page's keys are part of its check, counted by its save
	 * (ANT_UPDATE_BATCH checks a transaction); a sibling's are a write
	 * of their own */
	if (rc == 0 && sibling)
		ant_upd_tx_tick(u);
	return rc;
}
