/*
 * publish_records.c: the antenna's record files, DIR/lirs.gz and
 * DIR/sites.di.gz, written in one pass over the fresh pages; and the
 * array form of the page source (ant_publish_html(), ant_publish_lirs(),
 * ant_publish_di()) for callers that hold their pages in memory.
 */
#include "ant_publish.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_afile.h"
#include "lb_url.h"
#include "lirs.h"
#include "publish_int.h"

/* ---- pages from an array (ant_publish_html() and the others) ------------ */

struct array_src {
	const ant_pub_page *pages;
	size_t n;
	int64_t now, max_age;
};

static int is_fresh(const ant_pub_page *p, int64_t now, int64_t max_age);

static int cmp_lirs(const void *pa, const void *pb)
{
	const ant_pub_page *a = *(const ant_pub_page *const *)pa;
	const ant_pub_page *b = *(const ant_pub_page *const *)pb;

	if (a->last_modified != b->last_modified)
		return a->last_modified > b->last_modified ? -1 : 1;
	return strcmp(ant_pub_str_or(a->url, ""), ant_pub_str_or(b->url, ""));
}

static int array_each(void *sctx, int order, ant_pub_fn fn, void *ctx, lb_error *err)
{
	const struct array_src *a = sctx;
	const ant_pub_page **v = malloc((a->n ? a->n : 1) * sizeof *v);
	size_t i, m = 0;
	int rc = 0;

	if (!v)
		return lb_err_code(err, LB_ENOMEM);
	for (i = 0; i < a->n; i++)
		if (order != ANT_PUB_FRESH || is_fresh(&a->pages[i], a->now, a->max_age))
			v[m++] = &a->pages[i];
	qsort(v, m, sizeof *v, order == ANT_PUB_FRESH ? cmp_lirs : ant_pub_cmp_listing);
	for (i = 0; i < m && rc == 0; i++)
		rc = fn(ctx, v[i]);
	free(v);
	return rc;
}

static struct array_src array_of(const ant_pub_site *site, const ant_pub_page *pages, size_t n)
{
	return (struct array_src){ pages, n, site->now ? site->now : (int64_t)time(NULL),
				   site->max_age ? site->max_age : LIRS_DEFAULT_MAX_AGE };
}

int ant_publish_html(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
		 size_t n, lb_error *err)
{
	struct array_src a = array_of(site, pages, n);
	ant_pub_src src = { array_each, &a };

	return ant_publish_html_src(dir, site, &src, err);
}

/* ---- lirs.gz ------------------------------------------------------------ */

/* LIRS 2.1 §4: only records detected within max_age are worth relaying;
 * §3.1: a record without a Last-Modified is unusable. */
static int is_fresh(const ant_pub_page *p, int64_t now, int64_t max_age)
{
	return p->last_modified != 0 && p->last_detected != 0 &&
	       now - p->last_detected <= max_age && lb_url_is_http(ant_pub_str_or(p->url, ""));
}

/* One file of records: lirs.gz or sites.di.gz (format LIRS_FORMAT_DI). */
struct rec_out {
	const char *name;
	int format;
	lb_afile f;
	char *path;
	lirs_writer *w;
};

struct rec_ctx {
	struct rec_out *o;
	size_t n;
	int64_t now, max_age;
};

/* ant_pub_fn: one fresh page into each LIRS writer */
static int write_record(void *ctx, const ant_pub_page *p)
{
	struct rec_ctx *c = ctx;
	lirs_record r;
	int rc = 0;

	if (!is_fresh(p, c->now, c->max_age))
		return 0;
	memset(&r, 0, sizeof r);
	r.last_modified = p->last_modified;
	r.last_detected = p->last_detected;
	r.tz_offset = p->tz_offset;
	r.content_length = p->content_length < 0 ? 0 : p->content_length;
	r.url = (char *)p->url;
	r.title = (char *)(p->title ? p->title : "");
	r.author = (char *)(p->author ? p->author : "");
	r.source_url = (char *)ant_pub_str_or(p->source_url, p->url);
	r.extension = (char *)"";
	for (size_t i = 0; i < c->n && rc == 0; i++)
		rc = lirs_writer_add(c->o[i].w, &r);
	return rc;
}

static int open_rec(struct rec_out *o, const char *dir, const ant_pub_site *site, int64_t now,
		    lb_error *err)
{
	lirs_writer_opts wo;
	int rc;

	if ((rc = ant_pub_open_out(&o->f, dir, o->name, &o->path, err)) < 0)
		return rc;
	memset(&wo, 0, sizeof wo);
	wo.format = o->format;   /* sites.di.gz: UTF-8 and a Date, as tama's */
	wo.utf8 = o->format == LIRS_FORMAT_DI;
	wo.date = o->format == LIRS_FORMAT_DI ? now : 0;
	wo.sink = lirs_sink_stdio;
	wo.ctx = o->f.fp;
	wo.euc_jp_ms = site->lirs_euc_jp_ms;
	if (!(o->w = lirs_writer_new(&wo))) {
		lb_afile_abort(&o->f);
		return lb_err_code(err, LB_ENOMEM);
	}
	return 0;
}

/* Finishes o's file and replaces the old one when ok (wrc: 0 or the
 * stream's failure). */
static int close_rec(struct rec_out *o, int wrc, const ant_pub_site *site, lb_error *err)
{
	int ok;

	errno = 0;
	if (wrc == 0)
		wrc = lirs_writer_finish(o->w);
	ok = wrc == 0;
	if (ok && site->lirs_counts && o->format == LIRS_FORMAT_LIRS)   /* lirs.gz's, not sites.di.gz's (UTF-8) */
		*site->lirs_counts = (ant_pub_lirs_counts){ lirs_writer_replaced(o->w),
			lirs_writer_approximated(o->w), lirs_writer_substituted(o->w),
			lirs_writer_too_long(o->w) };
	if (!ok && !errno && !(err && err->code < 0))
		lb_err(err, wrc, "the LIRS writer failed");
	return ant_pub_close_out(&o->f, ok, o->path, err);
}

/* The files of o[0..n), the same records, written in one pass over src. */
static int publish_records(const char *dir, const ant_pub_site *site, const ant_pub_src *src,
			   struct rec_out *o, size_t n, lb_error *err)
{
	int64_t now = site->now ? site->now : (int64_t)time(NULL);
	struct rec_ctx c = { o, 0, now, site->max_age ? site->max_age : LIRS_DEFAULT_MAX_AGE };
	int rc = 0, wrc;

	lb_error_clear(err);
	while (c.n < n && (rc = open_rec(&o[c.n], dir, site, now, err)) == 0)
		c.n++;
	errno = 0;
	wrc = rc < 0 ? rc : src->each(src->ctx, ANT_PUB_FRESH, write_record, &c, err);
	for (size_t i = 0; i < c.n; i++) {
		int r = close_rec(&o[i], wrc, site, err);

		if (rc == 0)
			rc = r;
		lirs_writer_free(o[i].w);
		free(o[i].path);
	}
	if (rc < 0 && c.n < n)
		free(o[c.n].path);
	return rc;
}

int ant_publish_records_src(const char *dir, const ant_pub_site *site, const ant_pub_src *src,
			    lb_error *err)
{
	struct rec_out o[2] = { { .name = "lirs.gz", .format = LIRS_FORMAT_LIRS },
				{ .name = "sites.di.gz", .format = LIRS_FORMAT_DI } };

	return publish_records(dir, site, src, o, 2, err);
}

int ant_publish_lirs(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
		 size_t n, lb_error *err)
{
	struct array_src a = array_of(site, pages, n);
	ant_pub_src src = { array_each, &a };
	struct rec_out o = { .name = "lirs.gz", .format = LIRS_FORMAT_LIRS };

	return publish_records(dir, site, &src, &o, 1, err);
}

int ant_publish_di(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
	       size_t n, lb_error *err)
{
	struct array_src a = array_of(site, pages, n);
	ant_pub_src src = { array_each, &a };
	struct rec_out o = { .name = "sites.di.gz", .format = LIRS_FORMAT_DI };

	return publish_records(dir, site, &src, &o, 1, err);
}
