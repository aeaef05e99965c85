/*
 * update_sources.c: the update engine reads its sources (ant_update.h):
 * LIRS and HINA-DI files, and Atom sources with their RFC 5005 archives;
 * each record or entry is remembered (ant_store_srcrec), relayed into the
 * page it names when watched here, and, from a relay source, is news of
 * a page not watched here.  Also what a page added later takes from what
 * the sources said (ant_update_recall()).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "atom_evstore.h"
#include "ant_feed.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "update_int.h"

/* P's update came from the source at SRC_URL (a LIRS record or an Atom
 * entry whose title is TITLE): the excerpt is the source's (an Atom
 * entry's summary, already clipped) or none; its title fills a title
 * still unknown. */
static void relayed(ant_store_page *p, const char *src_url, const char *title,
		    const char *excerpt)
{
	ant_upd_set_str(&p->source_url, src_url);
	ant_upd_set_str(&p->excerpt, excerpt ? excerpt : "");
	if (!*p->title && *title && !p->title_set_by_user) {
		ant_upd_set_str(&p->title, title);
		ant_clip_inplace(p->title, ANT_MAX_TITLE);   /* a relayed text too */
	}
}

/* ---- LIRS sources ---------------------------------------------------- */

/* The watched page of url_key into *p (1), none (0), or a database
 * failure (< 0, the run's): an indexed lookup, no page held in memory. */
static int find_page(struct upd *u, const char *key, ant_store_page *p)
{
	int rc = ant_store_page_get(u->s, key, p, &u->err);

	if (rc < 0)
		u->failed_db = 1;
	return rc;
}

/* The update event of a relayed page (relay_news()), in the current
 * transaction: dated and described by the record, credited to the source. */
static int relay_event(struct upd *u, const char *url, int64_t lm, int64_t ld, const char *title,
		       const char *author, int64_t length, const char *excerpt)
{
	atom_ev_event e = { .url = url, .last_modified = lm, .last_detected = ld,
			    .tz_offset = u->o->tz, .content_length = length > 0 ? length : 0,
			    .title = title ? title : "", .author = author ? author : "",
			    .source_url = u->src->url, .excerpt = excerpt };
	char *t, *a;
	int rc;

	/* news over the source's budget is published, but makes no event */
	if (!ant_upd_budget_news(u))
		return 0;
	t = ant_clip(e.title, ANT_MAX_TITLE);
	a = ant_clip(e.author, ANT_MAX_AUTHOR);
	rc = t && a ? ant_upd_tx_need(u) : LB_ENOMEM;
	if (rc == 0) {
		e.title = t;
		e.author = a;
		if ((rc = atom_evstore_add(u->ev, &e, &u->err)) < 0)
			u->failed_db = 1;
	}
	free(t);
	free(a);
	return rc < 0 ? rc : 0;
}

/* A URL a record may name: one 'antenna add' would take (http or https,
 * file:// where allowed, at most ANT_MAX_URL bytes).  Any other can be
 * no watched page, and a relay source must not make it a published one
 * (a javascript: link, a URL longer than our own pages may have). */
static int page_url_ok(const struct upd *u, const char *url)
{
	if (strlen(url) > ANT_MAX_URL)
		return 0;
	return lb_url_is_http(url) ||
	       (u->o->limits.allow_file && strncasecmp(url, "file://", 7) == 0);
}

/* A record from a source: remembered, and relayed into the page it names,
 * if watched; a relay source's record of another page is that page's
 * (the store publishes it) and, when news, an update event.  Nonzero
 * stops the reader: the run failed. */
static int on_record(void *ctx, const lirs_record *r)
{
	struct upd *u = ctx;
	ant_store_page p;
	int rc, news;

	/* the body's budget of records (ant_source_budget.h): stop there */
	if (!ant_upd_budget_record(u))
		return 1;
	u->src->records_read++;
	/* the rule lirs merge applies (lirs_merge.h): unusable, future, stale */
	if (lirs_merge_check_at(r, u->now, u->o->max_age, u->o->max_future) != LIRS_MERGE_USABLE ||
	    !page_url_ok(u, r->url)) {
		u->src->records_skipped++;
		return 0;
	}
	lb_buf_reset(&u->key);
	if (lb_url_key(&u->key, r->url) < 0 || (rc = find_page(u, u->key.data, &p)) < 0)
		return 1;
	if (ant_upd_remember_record(u, u->src, u->key.data, r->url, r->last_modified,
				    r->last_detected, r->title, "", r->author, r->content_length,
				    rc ? NULL : &news) < 0) {
		if (rc)
			ant_store_page_release(&p);
		return 1;
	}
	if (!rc) {
		/* not watched here: not ours to list, unless relayed */
		u->src->records_ignored++;
		return news && relay_event(u, r->url, r->last_modified, r->last_detected, r->title,
					   r->author, r->content_length, "") < 0;
	}
	/* a hint, not the page's date (update_trust.c) */
	if ((rc = ant_upd_trust_hint(u, &p, r->last_modified, r->last_detected, &news)) > 0) {
		if (news) {
			relayed(&p, u->src->url, r->title, "");
			u->src->records_merged++;
		}
		rc = ant_upd_save_page(u, &p, news);
	}
	ant_store_page_release(&p);
	return rc < 0;
}

/* Nothing usable in a body of markup: the operator most likely added a
 * feed or a page with --lirs, and "N skipped" alone would not say so. */
static int not_lirs(ant_store_source *src, const ant_fetch_result *res)
{
	size_t i = 0, n = res->len < 512 ? res->len : 512;
	const char *b = res->body;

	while (i < n && strchr(" \t\r\n", b[i]))
		i++;
	if (i >= n || b[i] != '<')
		return 0;
	if (memmem(b, n, "<feed", 5) || memmem(b, n, "<rss", 4) || memmem(b, n, "<rdf:RDF", 8))
		ant_upd_set_str(&src->last_error, "not a LIRS file but a feed: to relay an archived Atom "
			"feed, remove this source and add it with --atom");
	else
		ant_upd_set_str(&src->last_error, "not a LIRS file but markup (an HTML page?): "
			"a LIRS source is a lirs.gz or sites.di.gz file");
	return 1;
}

static void read_source(struct upd *u, ant_store_source *src, const ant_fetch_result *res)
{
	/* hina.txt has no Last-Detected: this fetch is it (lirs(5)) */
	lirs_reader_opts o = { .filename = src->url, .on_record = on_record, .ctx = u,
			       .fetched = u->now };
	lirs_reader *rd;
	int rc;

	src->records_read = src->records_skipped = 0;
	src->records_merged = src->records_ignored = 0;
	ant_upd_budget_read(u);
	if (!(rd = lirs_reader_new(&o))) {
		ant_upd_set_str(&src->last_error, "out of memory");
		return;
	}
	rc = lirs_reader_feed(rd, res->body, res->len);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	/* Records the reader could not read count as skipped. */
	src->records_read += lirs_reader_get_stats(rd)->skipped;
	src->records_skipped += lirs_reader_get_stats(rd)->skipped;
	ant_upd_budget_body(u, res, lirs_reader_get_stats(rd)->format == LIRS_FORMAT_HINA);
	lirs_reader_free(rd);
	if (rc < 0 && rc != LB_ESTOP) {
		char msg[128];
		/* the reader stops at once on markup (lirs validate: not-lirs):
		 * say what it is rather than "malformed input" */
		if (not_lirs(src, res)) {
			u->st.sources_failed++;
			return;
		}
		snprintf(msg, sizeof msg, "bad LIRS file: %s", lb_strerror(rc));
		ant_upd_set_str(&src->last_error, msg);
	} else if (src->records_read && src->records_read == src->records_skipped) {
		u->st.sources_failed += not_lirs(src, res);   /* counted as failed */
	}
}

static void source_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_source *src = req->user;
	char b[64];
	int same = 0;

	src->last_fetch = u->now;
	src->last_status = res->status;
	u->src = src;
	u->src_first_read = src->last_ok == 0;
	ant_upd_trust_source(u, src);   /* update_trust.c: believed, held back? */
	if (ant_upd_budget_begin(u, src) < 0)
		return;
	if (ant_upd_http_failed(res)) {
		ant_upd_set_str(&src->last_error, ant_upd_error_text(res, b, sizeof b));
		u->st.sources_failed++;
	} else if (res->status != 304 && (same = ant_upd_budget_same(u, res))) {
		/* the body read last time: as good as a 304, its error kept */
		src->last_ok = u->now;
		ant_upd_take_validators(&src->etag, &src->lm_header, res);
		u->st.sources_failed += src->last_error != NULL;
	} else {
		ant_upd_set_str(&src->last_error, NULL);
		src->last_ok = u->now;
		ant_upd_take_validators(&src->etag, &src->lm_header, res);
		if (res->status != 304)
			read_source(u, src, res);
	}
	ant_upd_source_finish(u, src, res->status == 304 || same);
}

/* ---- Atom sources: RFC 5005 §4 archived feeds ------------------------------ */

/*
 * An Atom source is a subscription document (another antenna's index.atom)
 * whose prev-archive links lead back through archives that never change.
 * Each run reads the subscription document (conditional GET), then walks
 * the prev-archive chain back: an archive read before is not fetched again
 * (its own prev-archive link is remembered with it), an archive never read
 * is fetched and read once.  So however long the antenna was offline, the
 * walk finds every archive sealed meanwhile, at most opts->max_archives fetches
 * per run; the rest is found by the next run.  An archive is remembered as
 * read in the same transaction as the events it brought.
 *
 * An entry maps to a watched page by its alternate link (the page URL);
 * its date (atom:updated) is an update event of that page, and when newer
 * than the page's update it is relayed like a LIRS record (mark A).
 * Entries for pages this antenna does not watch are counted and ignored,
 * as LIRS records are.
 */
struct awalk {
	struct upd *u;
	ant_store_source *src;
	const char *doc_url;     /* resolves the hrefs of the document being read */
	int got;                 /* the document was read completely */
	int notmodified;
	int head;                /* the document is the subscription document */
	char *prev;              /* its prev-archive, resolved */
	int64_t entries;
	lb_buf url;
	int code;                /* 0, or why the document was not read: */
	char err[400];           /* the source's last_error */
};

static void walk_fail(struct awalk *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void walk_fail(struct awalk *w, int code, const char *fmt, ...)
{
	va_list ap;

	w->code = code;
	va_start(ap, fmt);
	vsnprintf(w->err, sizeof w->err, fmt, ap);
	va_end(ap);
}

static int atom_entry_page(struct awalk *w, const ant_feed_entry *e, ant_store_page *p,
			   const char *summary);

static int atom_entry(void *ctx, const ant_feed_entry *e)
{
	struct awalk *w = ctx;
	struct upd *u = w->u;
	char *url, *summary;
	ant_store_page p;
	int rc, watched, news = 0;

	w->src->records_read++;
	w->entries++;
	url = *e->link ? ant_feed_resolve(w->doc_url, e->link) : NULL;
	if (!url || !e->date || !page_url_ok(u, url)) {
		w->src->records_skipped++;
		free(url);
		return 0;
	}
	lb_buf_reset(&u->key);
	if (lb_url_key(&u->key, url) < 0 ||
	    !(summary = ant_clip(e->summary ? e->summary : "", u->o->excerpt_max + 1))) {
		free(url);
		return 1;
	}
	if ((watched = find_page(u, u->key.data, &p)) < 0) {
		free(url);
		free(summary);
		return 1;
	}
	/* the entry's summary is the source's excerpt: carried */
	rc = ant_upd_remember_record(u, w->src, u->key.data, url, e->date, u->now, e->title,
				     summary, "", 0, watched ? NULL : &news);
	if (rc == 0 && news)
		rc = relay_event(u, url, e->date, u->now, e->title, "", 0, summary);
	free(url);
	/* a relay source's newest entry is of every page it gives */
	if (rc == 0 && (watched || w->src->relay) && e->date > w->src->last_entry)
		w->src->last_entry = e->date;
	if (rc < 0 || !watched) {
		w->src->records_ignored += rc == 0;   /* not watched here: not ours to list, unless relayed */
		if (watched)
			ant_store_page_release(&p);
		free(summary);
		return rc < 0;
	}
	rc = atom_entry_page(w, e, &p, summary);
	ant_store_page_release(&p);
	free(summary);
	return rc;
}

/* An entry of a watched page p: an update event, and relayed when newer
 * than the page's update. */
static int atom_entry_page(struct awalk *w, const ant_feed_entry *e, ant_store_page *p,
			   const char *summary)
{
	struct upd *u = w->u;
	atom_ev_event ev;
	int dated, rc;

	if (e->date > w->src->last_entry)
		w->src->last_entry = e->date;
	/* Every entry of a believed source (update_trust.c) is an update
	 * event, when not after our clock: the archives are history, and an
	 * antenna that was offline catches up with them; the event store
	 * keeps one per (page, time), so nothing doubles. */
	if (u->src_hints && e->date <= u->now) {
		ev = (atom_ev_event){ .url = p->url, .last_modified = e->date, .last_detected = u->now,
				      .tz_offset = u->o->tz, .title = *p->title ? p->title : e->title,
				      .author = p->author, .source_url = w->src->url, .excerpt = summary };
		if (ant_upd_tx_need(u) < 0 || atom_evstore_add(u->ev, &ev, &u->err) < 0) {
			u->failed_db = 1;
			return 1;
		}
		ant_upd_tx_tick(u);
	}
	/* the entry's date is a hint, not the page's (update_trust.c) */
	if ((rc = ant_upd_trust_hint(u, p, e->date, u->now, &dated)) <= 0)
		return rc < 0;
	if (dated) {
		p->st.detected_by = "atom";
		relayed(p, w->src->url, e->title, summary);
		w->src->records_merged++;
	}
	/* its event is the entry's, above */
	return ant_upd_save_page(u, p, 0) < 0;
}

static void atom_doc_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct awalk *w = ctx;
	ant_feed_opts o = { .now = w->u->now, .skew = w->u->o->max_future, .on_entry = atom_entry, .ctx = w };
	ant_feed_parser *fp;
	ant_feed_info fi;
	char b[64];
	int rc = 0;

	w->src->last_status = res->status;
	if (ant_upd_http_failed(res)) {
		walk_fail(w, LB_ENET, "'%s': %s", req->url, ant_upd_error_text(res, b, sizeof b));
		return;
	}
	if (req->etag || req->last_modified)
		ant_upd_take_validators(&w->src->etag, &w->src->lm_header, res);
	/* an unchanged subscription document (its digest) is as good as a 304 */
	if (res->status == 304 || (w->head && ant_upd_budget_same(w->u, res))) {
		w->notmodified = 1;
		return;
	}
	w->doc_url = res->effective_url ? res->effective_url : req->url;
	if (!(fp = ant_feed_parser_new(&o))) {
		walk_fail(w, LB_ENOMEM, "out of memory");
		return;
	}
	for (size_t off = 0; off < res->len && rc == 0; off += ANT_FEED_CHUNK)
		rc = ant_feed_parse_chunk(fp, res->body + off,
				      res->len - off < ANT_FEED_CHUNK ? res->len - off : ANT_FEED_CHUNK);
	if (ant_feed_parse_finish(fp, &fi) < 0 || rc < 0) {
		/* stopped by the database's failure: the run's, told by it */
		if (!w->u->failed_db)
			walk_fail(w, LB_EPARSE, "'%s': bad feed: %s", req->url, ant_feed_error(fp));
	} else if (fi.kind != ANT_FEED_ATOM) {
		walk_fail(w, LB_EPARSE, "'%s': not an Atom feed", req->url);
	} else {
		w->got = 1;
		if (w->head)
			ant_upd_budget_body(w->u, res, 0);
		w->prev = fi.prev_archive ? ant_feed_resolve(w->doc_url, fi.prev_archive) : NULL;
	}
	ant_feed_info_release(&fi);
	ant_feed_parser_free(fp);
}

/* Fetches and reads one document of the source (validators: the
 * subscription document only): 0, or the code of w->err. */
static int atom_read(struct awalk *w, const char *url, int conditional)
{
	ant_fetch_req r = { url, conditional ? w->src->etag : NULL,
			conditional ? w->src->lm_header : NULL, NULL, w->src->url };

	w->got = w->notmodified = 0;
	w->head = conditional;
	w->entries = 0;
	free(w->prev);
	w->prev = NULL;
	w->code = 0;
	w->err[0] = '\0';
	if (ant_upd_fetch(w->u, &r, 1, atom_doc_done, w) < 0)
		walk_fail(w, LB_ENET, "cannot set up transfers");
	return w->err[0] ? w->code : 0;
}

/* Walks back from url: cached archives by their remembered link, new ones
 * fetched (at most max_archives) and remembered once read. */
static void atom_walk(struct awalk *w, char *url)
{
	struct upd *u = w->u;
	int64_t fetched = 0;
	char *prev;

	for (long steps = 0; url && steps < ANT_UPDATE_MAX_WALK && !u->failed_db; steps++) {
		int r = ant_store_archive_get(u->s, w->src->id, url, &prev, &u->err);
		if (r < 0) {
			u->failed_db = 1;
			break;
		}
		if (r == 0) {
			if (fetched >= u->o->max_archives)
				break;   /* the next run goes on from here */
			fetched++;
			if (atom_read(w, url, 0) < 0) {
				ant_upd_set_str(&w->src->last_error, w->err);
				break;
			}
			if (ant_upd_tx_need(u) < 0 ||
			    ant_store_archive_add(u->s, w->src->id, url, w->prev, w->entries, u->now,
					      &u->err) < 0 || ant_upd_tx_commit(u) < 0) {
				u->failed_db = 1;
				break;
			}
			u->st.archives_read++;
			prev = w->prev;
			w->prev = NULL;
		}
		free(url);
		url = prev;
	}
	free(url);
}

static void read_atom_source(struct upd *u, ant_store_source *src)
{
	struct awalk w = { .u = u, .src = src };

	src->records_read = src->records_skipped = 0;
	src->records_merged = src->records_ignored = 0;
	u->src = src;
	u->src_first_read = src->last_ok == 0;
	u->src_entry_floor = src->last_entry;
	ant_upd_trust_source(u, src);   /* update_trust.c: believed, held back? */
	src->last_fetch = u->now;
	if (ant_upd_budget_begin(u, src) < 0)
		return;
	ant_upd_budget_read(u);   /* an Atom source's counts are its run's */
	ant_upd_set_str(&src->last_error, NULL);
	if (atom_read(&w, src->url, 1) < 0) {
		ant_upd_set_str(&src->last_error, w.err);
		u->st.sources_failed++;
	} else {
		src->last_ok = u->now;
		/* 304: the head is as before, but a walk cut short goes on */
		if (!w.notmodified) {
			ant_upd_set_str(&src->archive_head, w.prev);
			if (ant_upd_tx_commit(u) < 0) {
				free(w.prev);
				return;
			}
		}
		if (src->archive_head)
			atom_walk(&w, strdup(src->archive_head));
		if (src->last_error)
			u->st.sources_failed++;
	}
	free(w.prev);
	ant_upd_source_finish(u, src, w.notmodified);
}

int ant_upd_read_sources(struct upd *u, ant_store_source *srcs, size_t n)
{
	ant_fetch_req *reqs = calloc(n ? n : 1, sizeof *reqs);
	size_t k = 0;
	int rc;

	if (!reqs)
		return LB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (srcs[i].kind != ANT_STORE_SOURCE_LIRS)
			u->st.atom_sources++;
		else
			reqs[k++] = (ant_fetch_req){ srcs[i].url, srcs[i].etag, srcs[i].lm_header, &srcs[i],
						     srcs[i].url };
	u->st.sources = n;
	rc = k ? ant_upd_fetch(u, reqs, k, source_done, u) : 0;
	free(reqs);
	/* Atom sources one by one: each walk's next fetch depends on the last. */
	for (size_t i = 0; rc == 0 && i < n && !u->failed_db; i++)
		if (srcs[i].kind == ANT_STORE_SOURCE_ATOM)
			read_atom_source(u, &srcs[i]);
		else if (srcs[i].kind == ANT_STORE_SOURCE_SITEMAP)
			ant_upd_read_sitemap(u, &srcs[i]);   /* update_sitemap.c */
	return rc;
}

/* ---- a page added later: what its sources said ------------------------- */

struct recall {
	ant_store *s;
	const ant_update_opts *o;
	ant_store_page *p;
	int applied;
	ant_trust_limits trust;
};

static int recall_one(void *ctx, const ant_store_srcrec *r)
{
	struct recall *c = ctx;
	int atom = r->source_kind == ANT_STORE_SOURCE_ATOM;
	ant_trust_score sc;
	lirs_record rec;

	if (r->source_kind == ANT_STORE_SOURCE_SITEMAP)
		return 0;   /* a hint, never a date: the page's first check decides */
	/* a source whose hints are ignored dates no page (update_trust.c) */
	if (ant_trust_score_get(c->s, r->source_id, r->source_relay, &c->trust, &sc, NULL) < 0 ||
	    !sc.hints)
		return 0;
	memset(&rec, 0, sizeof rec);
	rec.url = (char *)r->url;
	rec.last_modified = r->last_modified;
	rec.last_detected = r->last_detected;
	/* the rules of the relay: Atom entries are history (no 8-hour rule) */
	if (lirs_merge_check_at(&rec, c->o->now, atom ? -1 : c->o->max_age,
				c->o->max_future) != LIRS_MERGE_USABLE)
		return 0;   /* an older record of another source may still do */
	if (!ant_detect_relay(&c->p->st, r->last_modified, r->last_detected, c->o->now))
		return 1;   /* newest first: none of the rest is newer */
	if (atom)
		c->p->st.detected_by = "atom";
	relayed(c->p, r->source_url, r->title, r->excerpt);
	c->applied = 1;
	return 1;
}

int ant_update_recall(ant_store *s, const char *url_key, const ant_update_opts *opts,
		      lb_error *err)
{
	ant_store_page p;
	struct recall c = { .s = s, .o = opts, .p = &p };
	atom_evstore *ev = NULL;
	atom_ev_event e;
	int rc;

	if ((rc = ant_store_page_get(s, url_key, &p, err)) <= 0)
		return rc;
	ant_trust_limits_load(s, &c.trust);
	rc = ant_store_srcrec_each(s, url_key, recall_one, &c, err);
	if (rc < 0 || !c.applied) {
		ant_store_page_release(&p);
		return rc < 0 ? rc : 0;
	}
	e = ant_upd_event_of_page(&p, opts->tz);
	ant_clip_inplace(p.title, ANT_MAX_TITLE);
	if ((rc = ant_store_page_save(s, &p, err)) == 0 &&
	    (rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0)
		rc = atom_evstore_add(ev, &e, err);
	atom_evstore_close(ev);
	ant_store_page_release(&p);
	return rc < 0 ? rc : 1;
}
