/*
 * update_sitemap.c: the update engine reads a sitemap source ('antenna
 * add --sitemap'): the sitemap at the source's URL (conditional GET), and
 * when it is an index, the sitemaps it lists, index levels followed down
 * to the depth bound.  Only a <urlset> at the source's URL is asked for
 * with its validators: an index is fetched whole at every read, as the
 * sitemaps it lists change while it stays the same, and they are.  Each <url> whose <loc> is a watched page and whose
 * <lastmod> is newer than what we know of it is a hint: the page is
 * re-checked in this run and its own check decides (ant_upd_source_hint());
 * the record is kept like any source's (source_records), so it is scored
 * like any source.  URLs not watched here are counted, never kept.  Bad
 * entries are told with the file and line (opts->on_warning) and skipped.
 * Bounds (ant_sitemap.h, opts->sitemap): bytes and entries per file (the
 * parser's), child sitemaps, depth and seconds per source and run.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "atom.h"
#include "ant_feed.h"
#include "ant_limits.h"
#include "ant_sitemap.h"
#include "update_int.h"

/* One source's walk. */
struct swalk {
	struct upd *u;
	ant_store_source *src;
	const ant_sitemap_limits *lim;
	int64_t deadline_ms;
	int64_t children;        /* child sitemaps fetched */
	/* the document being read */
	const char *doc_url;
	int depth;
	char **kids;             /* an index's <loc>s, resolved */
	size_t nkids, capkids;
	int64_t ndiag;           /* bad entries told in this file */
	int notmodified;         /* the source's sitemap answered 304 */
	int root_ok;             /* the source's sitemap answered */
	char err[600];           /* the walk's first failure: the source's last_error */
};

static void walk_fail(struct swalk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void walk_fail(struct swalk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof w->err, fmt, ap);
	va_end(ap);
}

static void warn(struct swalk *w, unsigned long line, const char *msg)
{
	if (w->ndiag++ < ANT_SITEMAP_MAX_DIAGS && w->u->o->on_warning)
		w->u->o->on_warning(w->u->o->ctx, w->doc_url, line, msg);
}

static void on_diag(void *ctx, unsigned long line, const char *msg)
{
	warn(ctx, line, msg);
}

int ant_upd_source_hint(struct upd *u, const ant_store_source *src, ant_store_page *p, int64_t when)
{
	int dated = 0, rc;

	(void)src;   /* the source being read: u->src, its standing u->src_hints */
	/* never checked: due anyway, and its first check is a quiet baseline */
	if (!p->st.last_ok)
		return 0;
	/* update_trust.c: a claim judged by our next check, the page due now
	 * when the source is believed; dated by it only when we cannot check
	 * it */
	if ((rc = ant_upd_trust_hint(u, p, when, u->now, &dated)) <= 0)
		return rc;
	return ant_upd_save_page(u, p, dated) < 0 ? LB_EDB : 1;
}

/* A <url> of a <urlset>: a watched page's hint, or counted. */
static int page_entry(struct swalk *w, const ant_sitemap_entry *e, const char *url)
{
	struct upd *u = w->u;
	ant_store_page p;
	char msg[200];
	int rc;

	lb_buf_reset(&u->key);
	if (lb_url_key(&u->key, url) < 0)
		return LB_ENOMEM;
	if ((rc = ant_store_page_get(u->s, u->key.data, &p, &u->err)) < 0) {
		u->failed_db = 1;
		return rc;
	}
	if (rc == 0) {
		w->src->records_ignored++;   /* not watched here */
		return 0;
	}
	if (e->lastmod && !ant_feed_date_ok(e->lastmod, u->now, u->o->max_future)) {
		snprintf(msg, sizeof msg, "<lastmod> '%.40s' is %s: date left out", e->lastmod_text,
			 e->lastmod > u->now ? "in the future" : "before 1990");
		warn(w, e->line, msg);
		w->src->records_skipped++;
	} else if (e->lastmod) {
		if ((rc = ant_upd_remember(u, w->src, u->key.data, url, e->lastmod, u->now)) == 0 &&
		    (rc = ant_upd_source_hint(u, w->src, &p, e->lastmod)) > 0)
			w->src->records_merged++;
	}
	ant_store_page_release(&p);
	return rc < 0 ? rc : 0;
}

static int on_entry(void *ctx, const ant_sitemap_entry *e)
{
	struct swalk *w = ctx;
	lb_buf b = LB_BUF_INIT;
	int rc = 0;

	if (e->kind == ANT_SITEMAP_URLSET)
		w->src->records_read++;
	if (e->kind == ANT_SITEMAP_URLSET && *e->lastmod_text && !e->lastmod) {
		w->src->records_skipped++;   /* told by the parser (on_diag) */
		return 0;
	}
	if (atom_resolve(&b, w->doc_url, e->loc, w->u->o->limits.allow_file ? ATOM_RESOLVE_FILE : 0) < 0 ||
	    b.len > ANT_MAX_URL) {
		char msg[200];

		snprintf(msg, sizeof msg, "<loc> '%.60s' is no http(s) URL: entry skipped", e->loc);
		warn(w, e->line, msg);
		w->src->records_skipped++;
	} else if (e->kind == ANT_SITEMAP_URLSET) {
		rc = page_entry(w, e, b.data);
	} else if (w->nkids < (size_t)w->lim->max_children + 1) {
		/* one more than may be read: so we know there were more */
		void *v = lb_grow(w->kids, &w->capkids, w->nkids + 1, sizeof *w->kids, 16);

		if (!v)
			rc = LB_ENOMEM;
		else {
			w->kids = v;
			w->kids[w->nkids++] = lb_buf_detach(&b, NULL);
		}
	}
	lb_buf_release(&b);
	return rc < 0;
}

/* The fetcher's answer for one sitemap file: read, its children kept in
 * w->kids for read_doc(). */
static void doc_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct swalk *w = ctx;
	struct upd *u = w->u;
	ant_sitemap_opts o = { .max_bytes = w->lim->max_bytes, .max_urls = w->lim->max_urls,
			       .deadline_ms = w->deadline_ms, .on_entry = on_entry,
			       .on_diag = on_diag, .ctx = w };
	lb_error err = LB_ERROR_INIT;
	ant_sitemap_info info;
	char b[64];
	int rc;

	if (w->depth == 0)
		w->src->last_status = res->status;
	if (ant_upd_http_failed(res)) {
		walk_fail(w, "'%s': %s", req->url, ant_upd_error_text(res, b, sizeof b));
		return;
	}
	if (w->depth == 0) {
		w->root_ok = 1;
		ant_upd_take_validators(&w->src->etag, &w->src->lm_header, res);
	}
	if (res->status == 304) {
		w->notmodified = 1;   /* the counts stay those of the last read */
		return;
	}
	if (w->depth == 0) {
		w->src->records_read = w->src->records_skipped = 0;
		w->src->records_merged = w->src->records_ignored = 0;
	}
	w->doc_url = res->effective_url ? res->effective_url : req->url;
	rc = ant_sitemap_parse(res->body, res->len, &o, &info, &err);
	if (w->ndiag > ANT_SITEMAP_MAX_DIAGS && u->o->on_warning) {
		char msg[100];

		snprintf(msg, sizeof msg, "%" PRId64 " more bad entries (not told)",
			 w->ndiag - ANT_SITEMAP_MAX_DIAGS);
		u->o->on_warning(u->o->ctx, w->doc_url, 0, msg);
	}
	if (rc < 0 && !u->failed_db)
		walk_fail(w, "'%s': %s", req->url, lb_error_msg(&err));
	if (info.kind != ANT_SITEMAP_INDEX)
		w->nkids = 0;
	/* an index's sitemaps change while it stays the same, and a file not
	 * read whole (a limit) is read again whole: no 304 next time */
	if (w->depth == 0 && (info.kind == ANT_SITEMAP_INDEX || rc < 0)) {
		ant_upd_set_str(&w->src->etag, NULL);
		ant_upd_set_str(&w->src->lm_header, NULL);
	}
}

/* One fetch, with room for a sitemap's bytes whatever --max-body says. */
static void fetch_doc(struct swalk *w, const char *url, int conditional)
{
	ant_fetch_req r = { url, conditional ? w->src->etag : NULL,
			    conditional ? w->src->lm_header : NULL, NULL, w->src->url };
	ant_fetch_limits l = w->u->lim;   /* the run's pool: its politeness, one count */
	const ant_fetcher *f = w->u->o->fetcher;
	int rc;

	if (l.max_body < w->lim->max_bytes)
		l.max_body = (size_t)w->lim->max_bytes;
	rc = f ? f->run(f->self, &l, &r, 1, doc_done, w) : ant_fetch_run(&l, &r, 1, doc_done, w);
	if (rc < 0)
		walk_fail(w, "'%s': cannot set up transfers", url);
}

/* Reads the sitemap at url, depth index levels below the source, and
 * the sitemaps it lists when it is an index.  A child that fails is
 * told (the first failure is the source's error) and its siblings are
 * still read; a bound reached stops the walk. */
static int read_doc(struct swalk *w, const char *url, int depth, int conditional)
{
	const ant_sitemap_limits *lim = w->lim;
	char **kids;
	size_t n, total;
	int stop = 0;

	w->kids = NULL;
	w->nkids = w->capkids = 0;
	w->depth = depth;
	w->ndiag = 0;
	fetch_doc(w, url, conditional);
	kids = w->kids;
	n = total = w->nkids;
	w->kids = NULL;
	if (n && depth + 1 > lim->max_depth) {
		walk_fail(w, "'%s': a sitemap index %d levels below the source: its %zu sitemaps are "
			  "not read (limit depth=%" PRId64 ")", url, depth, n, lim->max_depth);
		n = 0;
	}
	for (size_t i = 0; i < n && !stop && !w->u->failed_db; i++) {
		if (w->children >= lim->max_children) {
			walk_fail(w, "'%s': more than %" PRId64 " child sitemaps: the rest is not read "
				  "(limit children=%" PRId64 ")", w->src->url, lim->max_children,
				  lim->max_children);
			stop = 1;
		} else if (ant_upd_mono_ms() > w->deadline_ms) {
			walk_fail(w, "'%s': out of time after %" PRId64 " s: the rest is not read "
				  "(limit seconds=%" PRId64 ")", w->src->url, lim->max_seconds,
				  lim->max_seconds);
			stop = 1;
		} else {
			w->children++;
			stop = read_doc(w, kids[i], depth + 1, 0);
		}
	}
	for (size_t i = 0; i < total; i++)
		free(kids[i]);
	free(kids);
	return stop;
}

void ant_upd_read_sitemap(struct upd *u, ant_store_source *src)
{
	struct swalk w = { .u = u, .src = src, .lim = &u->o->sitemap };

	u->src = src;
	u->src_first_read = src->last_ok == 0;
	ant_upd_trust_source(u, src);   /* update_trust.c: believed? */
	src->last_fetch = u->now;
	if (ant_upd_budget_begin(u, src) < 0)
		return;
	ant_upd_set_str(&src->last_error, NULL);
	w.deadline_ms = ant_upd_mono_ms() + w.lim->max_seconds * 1000;
	read_doc(&w, src->url, 0, 1);
	if (w.root_ok)
		src->last_ok = u->now;
	if (w.err[0]) {
		ant_upd_set_str(&src->last_error, w.err);
		u->st.sources_failed++;
	}
	ant_upd_source_finish(u, src, w.notmodified);
}
