/*
 * update.c: the update engine (ant_update.h): read the sources, then
 * check the pages that are due, concurrently, and record what changed.
 *
 * Order: sources first (one fetch run), then pages (a second run), so
 * that a source's newer Last-Modified for a watched page makes that page
 * due in the same run (samidare's "hint").  Each finished transfer is
 * analysed in the fetch callback and its body dropped at once, so memory
 * holds at most limits.jobs bodies.  Writes go through one prepared
 * statement, committed every ANT_UPDATE_BATCH checks: kill -9 loses at
 * most one batch, never consistency.  The run lock (ant_store_lock) is
 * held from start to end.
 *
 * Bounded memory whatever the number of pages (hub scale): a source's
 * record finds its page through the url_key index (ant_store_page_get),
 * and the due pages are read in batches of opts->page_batch by id
 * (ant_store_pages_due), each fetched, decided, saved and committed
 * before the next is read; only the pages awaiting their second fetch
 * (the noise re-fetch) are carried into the next batch, so that the
 * pause runs while that batch is fetched instead of once per batch.
 */
#include "ant_update.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "atom_evstore.h"
#include "ant_feed.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "ant_publish.h"   /* ANT_KEEP_EVENTS */
#include "lirs.h"
#include "lirs_merge.h"

/* What a page's feed said in this run, by page index in the batch. */
struct feedres {
	int checked;             /* fetched in this run */
	int usable;              /* believable newest entry date */
	int64_t newest;
	char *title;             /* the newest entry's title, malloc'd */
	int pending;             /* its fetch is under way */
	int waiting;             /* the page's check waits for the feed */
	int deferred;            /* the page waits for its newly found feed */
	ant_detect_input in;     /* then: its check, */
	char *excerpt;           /* what its text added, */
	char errtext[300];       /* and its error */
	/* a page fetched again before deciding */
	int refetch;
	int64_t asked;           /* monotonic ms of its first answer */
	struct noisecheck *nc;
};

/* A page's first answer, kept until its second one comes. */
struct noisecheck {
	ant_page_info info;      /* the first answer's analysis: the excerpt */
	ant_detect_seg *segs;
	ant_detect_noise ns;     /* the page's state, decoded */
	ant_detect_input in;     /* the check so far */
	char *had_feed;          /* the page's feed before this check */
};

/* One transfer of the pages' run: a page or its feed. */
struct job {
	ant_store_page *p;
	int feed;
	char *url, *etag, *lm;   /* a feed's: copies, as the page may name
				    another feed while this one is queued */
};

struct upd {
	ant_store *s;
	const ant_update_opts *o;
	struct feedres *fr;      /* one per page of the batch */
	atom_evstore *ev;
	int64_t now;             /* o->now, used everywhere */
	/* the batch: pages carried for their re-fetch first, then those read */
	ant_store_page *pages;
	size_t npages;
	size_t batch;            /* pages read per batch (o->page_batch) */
	int64_t after;           /* the last id read: where the next batch starts */
	size_t held, max_held;   /* first answers kept for a re-fetch, and the bound */
	lb_buf key;              /* scratch: a record's URL key */
	/* transaction batching */
	int in_tx;
	unsigned pending;
	int failed_db;
	lb_error err;            /* the run's failure */
	/* the source being read */
	ant_store_source *src;
	int src_first_read;      /* never read successfully before this run */
	int64_t src_entry_floor; /* Atom: the newest entry date read before this run */
	ant_update_stats st;     /* counters for the summary */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The one way to the network: the caller's fetcher (tests), else libcurl. */
static int fetch(struct upd *u, const ant_fetch_req *reqs, size_t n, ant_fetch_done_fn done,
		 void *ctx)
{
	const ant_fetcher *f = u->o->fetcher;

	if (f)
		return f->run(f->self, &u->o->limits, reqs, n, done, ctx);
	return ant_fetch_run(&u->o->limits, reqs, n, done, ctx);
}

/* ---- transactions ------------------------------------------------------ */

static int tx_need(struct upd *u)
{
	if (u->failed_db)
		return -1;
	if (!u->in_tx) {
		if (ant_store_begin(u->s, &u->err) < 0) {
			u->failed_db = 1;
			return -1;
		}
		u->in_tx = 1;
	}
	return 0;
}

static int tx_commit(struct upd *u)
{
	if (!u->in_tx)
		return u->failed_db ? -1 : 0;
	u->in_tx = 0;
	u->pending = 0;
	if (ant_store_commit(u->s, &u->err) < 0) {
		ant_store_rollback(u->s);
		u->failed_db = 1;
		return -1;
	}
	return 0;
}

/* Called after each write: commits every ANT_UPDATE_BATCH. */
static void tx_tick(struct upd *u)
{
	if (++u->pending >= ANT_UPDATE_BATCH)
		tx_commit(u);
}

static void set_str(char **dst, const char *v)
{
	char *n = v ? strdup(v) : NULL;

	if (v && !n)
		return;   /* out of memory: keep the old value */
	free(*dst);
	*dst = n;
}

/* P's update came from the source at SRC_URL (a LIRS record or an Atom
 * entry whose title is TITLE): the excerpt is the source's (an Atom
 * entry's summary, already clipped) or none; its title fills a title
 * still unknown. */
static void relayed(ant_store_page *p, const char *src_url, const char *title,
		    const char *excerpt)
{
	set_str(&p->source_url, src_url);
	set_str(&p->excerpt, excerpt ? excerpt : "");
	if (!*p->title && *title && !p->title_set_by_user) {
		set_str(&p->title, title);
		ant_clip_inplace(p->title, ANT_MAX_TITLE);   /* a relayed text too */
	}
}

/* One update event for the Atom bridge, in the current transaction. */
static int add_event(struct upd *u, const ant_store_page *p)
{
	atom_ev_event e = {
		.url = p->url,
		.last_modified = p->st.last_modified,
		.last_detected = p->st.last_detected,
		.tz_offset = u->o->tz,
		.content_length = p->st.content_length > 0 ? p->st.content_length : 0,
		.title = p->title ? p->title : "",
		.author = p->author ? p->author : "",
		.source_url = p->source_url ? p->source_url : p->url,
		.excerpt = p->excerpt,
	};

	/* A second update of the page in the same second: the event of that
	 * second takes the latest excerpt and title, unless it is sealed. */
	if (atom_evstore_put(u->ev, &e, &u->err) < 0) {
		u->failed_db = 1;
		return -1;
	}
	return 0;
}

/* The excerpt shown for the last update: at most the excerpt limit of
 * characters, cut at a character boundary (ant_page.h). */
static void set_excerpt(ant_store_page *p, const char *text, size_t max)
{
	char *x = ant_page_clip(text, max);

	if (x) {
		free(p->excerpt);
		p->excerpt = x;
	}
}

static int save_page(struct upd *u, ant_store_page *p, int event)
{
	if (tx_need(u) < 0)
		return -1;
	/* A title or author kept whole by an older version is cut now. */
	ant_clip_inplace(p->title, ANT_MAX_TITLE);
	ant_clip_inplace(p->author, ANT_MAX_AUTHOR);
	if (ant_store_page_save(u->s, p, &u->err) < 0) {
		u->failed_db = 1;
		return -1;
	}
	if (event && add_event(u, p) < 0)
		return -1;
	tx_tick(u);
	return 0;
}

/* ---- LIRS sources ---------------------------------------------------- */

/* The watched page of url_key into *p (1), none (0), or a database
 * failure (-1, the run's): an indexed lookup, no page held in memory. */
static int find_page(struct upd *u, const char *key, ant_store_page *p)
{
	int rc = ant_store_page_get(u->s, key, p, &u->err);

	if (rc < 0)
		u->failed_db = 1;
	return rc;
}

/*
 * A relay source's record of a page not watched here: is it news, to be
 * an update event (so that the hub's Atom files carry what it relays, and
 * a hub of hubs works over Atom too)?  Only when newer than what every
 * relay source held for the URL (four shards naming one update make one
 * event), and never on a source's first read: that is a baseline, like
 * an import; the updates in it were announced by the source itself, and
 * 100,000 of them at once would be 2,000 archives of old news.  Nor is
 * an Atom entry older than the newest one read before this run: the
 * archives a walk reaches only in a later run (ANT_UPDATE_MAX_ARCHIVES)
 * are the source's history, not news.  Asked (by remember()) before the
 * record is kept, when it is newer than the source's own.  1 news, 0 not,
 * < 0 error.
 */
static int relay_news(struct upd *u, const char *key, int64_t lm)
{
	int64_t newest;

	if (!u->src->relay || u->src_first_read ||
	    (u->src->kind == ANT_STORE_SOURCE_ATOM && lm <= u->src_entry_floor))
		return 0;
	if ((newest = ant_store_srcrec_relay_newest(u->s, key, &u->err)) < 0) {
		u->failed_db = 1;
		return -1;
	}
	return lm > newest;
}

/* What SRC says of the URL with key KEY, kept for a page added later
 * (ant_store.h, ant_store_srcrec), and for a relay source the page it relays:
 * texts clipped as any text taken in.  A record the source gave before
 * (a shard's lirs.gz read again holds mostly those) is not written again.
 * With news (a page not watched here), *news says whether it is news
 * (relay_news()). */
static int remember(struct upd *u, const ant_store_source *src, const char *key,
		    const char *url, int64_t lm, int64_t ld, const char *title,
		    const char *excerpt, const char *author, int64_t length, int *news)
{
	ant_store_srcrec r = { .url_key = key, .source_id = src->id, .url = url,
			       .last_modified = lm, .last_detected = ld, .excerpt = excerpt,
			       .content_length = length };
	int64_t had_lm, had_ld;
	char *t, *a;
	int rc;

	if (news)
		*news = 0;
	/* a source read for the first time has no rows to compare with (nor
	 * news: relay_news()); the put keeps the newer record either way */
	if (u->src_first_read)
		rc = 0;
	else if ((rc = ant_store_srcrec_times(u->s, key, src->id, &had_lm, &had_ld, &u->err)) < 0) {
		u->failed_db = 1;
		return rc;
	}
	/* what ant_store_srcrec_put() would keep anyway: nothing to write */
	if (rc == 1 && (had_lm > lm || (had_lm == lm && had_ld >= ld)))
		return 0;
	if (news && !u->src_first_read && (rc == 0 || lm > had_lm) &&
	    (*news = relay_news(u, key, lm)) < 0)
		return -1;
	t = ant_clip(title ? title : "", ANT_MAX_TITLE);
	a = ant_clip(author ? author : "", ANT_MAX_AUTHOR);
	r.title = t;
	r.author = a;
	if (!t || !a)
		rc = lb_err_code(&u->err, LB_ENOMEM);
	else if ((rc = tx_need(u)) == 0 && (rc = ant_store_srcrec_put(u->s, &r, &u->err)) < 0)
		u->failed_db = 1;
	free(t);
	free(a);
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
	char *t = ant_clip(e.title, ANT_MAX_TITLE), *a = ant_clip(e.author, ANT_MAX_AUTHOR);
	int rc = -1;

	if (t && a && tx_need(u) == 0) {
		e.title = t;
		e.author = a;
		if ((rc = atom_evstore_add(u->ev, &e, &u->err)) < 0)
			u->failed_db = 1;
	}
	free(t);
	free(a);
	return rc < 0 ? -1 : 0;
}

/* A record from a source: remembered, and relayed into the page it names,
 * if watched; a relay source's record of another page is that page's
 * (the store publishes it) and, when news, an update event. */
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

static int on_record(void *ctx, const lirs_record *r)
{
	struct upd *u = ctx;
	ant_store_page p;
	int rc, news;

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
	if (remember(u, u->src, u->key.data, r->url, r->last_modified, r->last_detected,
		     r->title, "", r->author, r->content_length, rc ? NULL : &news) < 0) {
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
	rc = 0;
	if (ant_detect_relay(&p.st, r->last_modified, r->last_detected, u->now)) {
		relayed(&p, u->src->url, r->title, "");
		u->src->records_merged++;
		rc = save_page(u, &p, 1) < 0;
	}
	ant_store_page_release(&p);
	return rc;
}

/* The bounds of what a source is remembered to have said (ant_store.h): the
 * 8-hour rule for LIRS and HINA-DI records, the history retention for an
 * Atom source's entries. */
static int64_t prune_records(struct upd *u, ant_store_source *src)
{
	int64_t age = u->o->max_age ? u->o->max_age : LIRS_DEFAULT_MAX_AGE;

	if (src->kind == ANT_STORE_SOURCE_ATOM)
		return ant_store_srcrec_prune(u->s, src->id, 0, u->o->keep_records, &u->err);
	return ant_store_srcrec_prune(u->s, src->id, age < 0 ? 0 : u->now - age, -1, &u->err);
}

/* A source (LIRS, DI or Atom) is read: its counts go into the run's, its
 * state is saved, in one transaction per source. */
static void source_finish(struct upd *u, ant_store_source *src, int notmodified)
{
	u->st.records_read += src->records_read;
	u->st.records_merged += src->records_merged;
	if (src->relay)
		u->st.records_relayed += src->records_ignored;
	else
		u->st.records_ignored += src->records_ignored;
	u->st.records_skipped += src->records_skipped;
	if (u->o->on_source)
		u->o->on_source(u->o->ctx, src, notmodified);
	if (tx_need(u) == 0 && (ant_store_source_save(u->s, src, &u->err) < 0 ||
				prune_records(u, src) < 0))
		u->failed_db = 1;
	tx_commit(u);
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
		set_str(&src->last_error, "not a LIRS file but a feed: to relay an archived Atom "
			"feed, remove this source and add it with --atom");
	else
		set_str(&src->last_error, "not a LIRS file but markup (an HTML page?): "
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
	if (!(rd = lirs_reader_new(&o))) {
		set_str(&src->last_error, "out of memory");
		return;
	}
	rc = lirs_reader_feed(rd, res->body, res->len);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	/* Records the reader could not read count as skipped. */
	src->records_read += lirs_reader_get_stats(rd)->skipped;
	src->records_skipped += lirs_reader_get_stats(rd)->skipped;
	lirs_reader_free(rd);
	if (rc < 0 && rc != LIRS_ESTOP) {
		char msg[128];
		snprintf(msg, sizeof msg, "bad LIRS file: %s", lirs_strerror(rc));
		set_str(&src->last_error, msg);
	} else if (src->records_read && src->records_read == src->records_skipped) {
		u->st.sources_failed += not_lirs(src, res);   /* counted as failed */
	}
}

static int http_failed(const ant_fetch_result *res)
{
	return res->err != ANT_FETCH_OK || res->status >= 400 || res->status < 200;
}

static const char *error_text(const ant_fetch_result *res, char *b, size_t n)
{
	if (res->error[0])
		return res->error;
	snprintf(b, n, "HTTP status %ld", res->status);
	return b;
}

/* Validators: replaced by a 200's (even by none), refreshed by a 304's. */
static void take_validators(char **etag, char **lm, const ant_fetch_result *res)
{
	if (res->status != 304 || res->etag)
		set_str(etag, res->etag);
	if (res->status != 304 || res->last_modified)
		set_str(lm, res->last_modified);
}

static void source_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_source *src = req->user;
	char b[64];

	src->last_fetch = u->now;
	src->last_status = res->status;
	u->src = src;
	u->src_first_read = src->last_ok == 0;
	if (http_failed(res)) {
		set_str(&src->last_error, error_text(res, b, sizeof b));
		u->st.sources_failed++;
	} else {
		set_str(&src->last_error, NULL);
		src->last_ok = u->now;
		take_validators(&src->etag, &src->lm_header, res);
		if (res->status != 304)
			read_source(u, src, res);
	}
	source_finish(u, src, res->status == 304);
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
	char *prev;              /* its prev-archive, resolved */
	int64_t entries;
	lb_buf url;
	char err[400];
};

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
	    !(summary = ant_page_clip(e->summary ? e->summary : "", u->o->excerpt_max))) {
		free(url);
		return 1;
	}
	if ((watched = find_page(u, u->key.data, &p)) < 0) {
		free(url);
		free(summary);
		return 1;
	}
	/* the entry's summary is the source's excerpt: carried */
	rc = remember(u, w->src, u->key.data, url, e->date, u->now, e->title, summary, "", 0,
		      watched ? NULL : &news);
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

	if (e->date > w->src->last_entry)
		w->src->last_entry = e->date;
	/* Every entry is an update event (the archives are history); the
	 * event store keeps one per (page, time), so nothing doubles. */
	ev = (atom_ev_event){ .url = p->url, .last_modified = e->date, .last_detected = u->now,
			 .tz_offset = u->o->tz, .title = *p->title ? p->title : e->title,
			 .author = p->author, .source_url = w->src->url, .excerpt = summary };
	if (tx_need(u) < 0 || atom_evstore_add(u->ev, &ev, &u->err) < 0) {
		u->failed_db = 1;
		return 1;
	}
	if (ant_detect_relay(&p->st, e->date, u->now, u->now)) {
		p->st.detected_by = "atom";
		relayed(p, w->src->url, e->title, summary);
		w->src->records_merged++;
		return save_page(u, p, 0) < 0;
	}
	tx_tick(u);
	return 0;
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
	if (http_failed(res)) {
		snprintf(w->err, sizeof w->err, "'%s': %s", req->url, error_text(res, b, sizeof b));
		return;
	}
	if (req->etag || req->last_modified)
		take_validators(&w->src->etag, &w->src->lm_header, res);
	if (res->status == 304) {
		w->notmodified = 1;
		return;
	}
	w->doc_url = res->effective_url ? res->effective_url : req->url;
	if (!(fp = ant_feed_parser_new(&o))) {
		snprintf(w->err, sizeof w->err, "out of memory");
		return;
	}
	for (size_t off = 0; off < res->len && rc == 0; off += ANT_FEED_CHUNK)
		rc = ant_feed_parse_chunk(fp, res->body + off,
				      res->len - off < ANT_FEED_CHUNK ? res->len - off : ANT_FEED_CHUNK);
	if (ant_feed_parse_finish(fp, &fi) < 0 || rc < 0) {
		if (!w->u->failed_db)
			snprintf(w->err, sizeof w->err, "'%s': bad feed: %s", req->url, ant_feed_error(fp));
	} else if (fi.kind != ANT_FEED_ATOM) {
		snprintf(w->err, sizeof w->err, "'%s': not an Atom feed", req->url);
	} else {
		w->got = 1;
		w->prev = fi.prev_archive ? ant_feed_resolve(w->doc_url, fi.prev_archive) : NULL;
	}
	ant_feed_info_release(&fi);
	ant_feed_parser_free(fp);
}

/* Fetches and reads one document of the source (validators: the
 * subscription document only). */
static int atom_read(struct awalk *w, const char *url, int conditional)
{
	ant_fetch_req r = { url, conditional ? w->src->etag : NULL,
			conditional ? w->src->lm_header : NULL, NULL, w->src->url };

	w->got = w->notmodified = 0;
	w->entries = 0;
	free(w->prev);
	w->prev = NULL;
	w->err[0] = '\0';
	if (fetch(w->u, &r, 1, atom_doc_done, w) < 0)
		snprintf(w->err, sizeof w->err, "cannot set up transfers");
	return w->err[0] ? -1 : 0;
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
				set_str(&w->src->last_error, w->err);
				break;
			}
			if (tx_need(u) < 0 ||
			    ant_store_archive_add(u->s, w->src->id, url, w->prev, w->entries, u->now,
					      &u->err) < 0 || tx_commit(u) < 0) {
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
	src->last_fetch = u->now;
	set_str(&src->last_error, NULL);
	if (atom_read(&w, src->url, 1) < 0) {
		set_str(&src->last_error, w.err);
		u->st.sources_failed++;
	} else {
		src->last_ok = u->now;
		/* 304: the head is as before, but a walk cut short goes on */
		if (!w.notmodified) {
			set_str(&src->archive_head, w.prev);
			if (tx_commit(u) < 0)
				return;
		}
		if (src->archive_head)
			atom_walk(&w, strdup(src->archive_head));
		if (src->last_error)
			u->st.sources_failed++;
	}
	free(w.prev);
	source_finish(u, src, w.notmodified);
}

static int read_sources(struct upd *u, ant_store_source *srcs, size_t n)
{
	ant_fetch_req *reqs = calloc(n ? n : 1, sizeof *reqs);
	int rc;

	size_t k = 0;

	if (!reqs)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (srcs[i].kind != ANT_STORE_SOURCE_LIRS)
			u->st.atom_sources++;
		else
			reqs[k++] = (ant_fetch_req){ srcs[i].url, srcs[i].etag, srcs[i].lm_header, &srcs[i],
							     srcs[i].url };
	u->st.sources = n;
	rc = k ? fetch(u, reqs, k, source_done, u) : 0;
	free(reqs);
	/* Atom sources one by one: each walk's next fetch depends on the last. */
	for (size_t i = 0; rc == 0 && i < n && !u->failed_db; i++)
		if (srcs[i].kind == ANT_STORE_SOURCE_ATOM)
			read_atom_source(u, &srcs[i]);
	return rc;
}

/* ---- pages ------------------------------------------------------------ */

/* Splits the page's ignore patterns (one per line) into an array. */
static char **split_ignore(const char *s, size_t *n)
{
	size_t cnt = 1, i = 0;
	char **v, *copy, *line;

	*n = 0;
	if (!*s)
		return NULL;
	for (const char *q = s; *q; q++)
		cnt += *q == '\n';
	v = malloc(cnt * sizeof *v + strlen(s) + 1);
	if (!v)
		return NULL;
	copy = (char *)(v + cnt);
	strcpy(copy, s);
	for (line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
		v[i++] = line;
	*n = i;
	return v;
}

static int is_html(const char *content_type)
{
	return !content_type || strcasestr(content_type, "html") != NULL;
}

/* ---- feeds -------------------------------------------------------------------- */

/* The page's advertised feed, resolved against where the page came from;
 * a feed given with 'add --feed' is never replaced. */
static void take_feed_link(ant_store_page *p, const ant_fetch_result *res, const char *href)
{
	char *url;

	if (p->feed_by_user)
		return;
	url = href ? ant_feed_resolve(res->effective_url ? res->effective_url : p->url, href) : NULL;
	if ((!url && !p->feed_url) || (url && p->feed_url && strcmp(url, p->feed_url) == 0)) {
		free(url);
		return;
	}
	/* A new feed (or none): what the old one said is no longer comparable. */
	free(p->feed_url);
	p->feed_url = url;
	set_str(&p->feed_etag, NULL);
	set_str(&p->feed_lm_header, NULL);
	set_str(&p->feed_error, NULL);
	p->st.feed_time = 0;
}

static void finish_page(struct upd *u, ant_store_page *p, const ant_detect_input *in,
			const char *errtext, const char *excerpt);

/* A page whose check waited for its feed (both fetched in one run). */
static void finish_waiting(struct upd *u, ant_store_page *p, struct feedres *fr)
{
	if (!fr->waiting)
		return;
	fr->waiting = 0;
	fr->in.feed_usable = fr->usable;
	fr->in.feed_time = fr->newest;
	finish_page(u, p, &fr->in, fr->in.failed ? fr->errtext : NULL, fr->excerpt);
	free(fr->excerpt);
	fr->excerpt = NULL;
}

static void feed_read(struct upd *u, ant_store_page *p, const ant_fetch_result *res);

static void feed_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct feedres *fr = &u->fr[p - u->pages];

	fr->pending = 0;
	/* the page may have named another feed meanwhile: this one is stale */
	if (p->feed_url && strcmp(req->url, p->feed_url) == 0)
		feed_read(u, p, res);
	finish_waiting(u, p, fr);
}

static void feed_read(struct upd *u, ant_store_page *p, const ant_fetch_result *res)
{
	struct feedres *fr = &u->fr[p - u->pages];
	ant_feed_info fi;
	lb_error fe = LB_ERROR_INIT;
	char b[300];

	fr->checked = 1;
	u->st.feeds_checked++;
	if (http_failed(res)) {
		set_str(&p->feed_error, error_text(res, b, sizeof b));
		u->st.feeds_failed++;
		return;
	}
	take_validators(&p->feed_etag, &p->feed_lm_header, res);
	if (res->status == 304) {
		/* a date kept from before is judged by today's clock */
		fr->usable = p->st.feed_time > 0 &&
			     !lirs_merge_future(p->st.feed_time, u->now, u->o->max_future);
		fr->newest = p->st.feed_time;
		return;   /* the error of the last 200, if any, still stands */
	}
	if (ant_feed_parse(res->body, res->len, &(ant_feed_opts){ .now = u->now, .skew = u->o->max_future }, &fi, &fe) < 0) {
		char msg[340];
		snprintf(msg, sizeof msg, "bad feed: %.*s", (int)sizeof b - 1, lb_error_msg(&fe));
		set_str(&p->feed_error, msg);
		u->st.feeds_failed++;
		/* the validators must not make the next check skip a fixed feed */
		set_str(&p->feed_etag, NULL);
		set_str(&p->feed_lm_header, NULL);
	} else if (!fi.newest) {
		/* Dates missing or absurd: the page's own rules decide. */
		snprintf(b, sizeof b, "feed has no believable entry date (%zu entries, %zu bad dates)",
			 fi.entries, fi.bad_dates);
		set_str(&p->feed_error, b);
	} else {
		set_str(&p->feed_error, NULL);
		fr->usable = 1;
		fr->newest = fi.newest;
		fr->title = fi.newest_title;
		fi.newest_title = NULL;
	}
	ant_feed_info_release(&fi);
}

/* The page's analysis options (ant_page.h): its ignore and --only patterns
 * (one per line) and forced charset.  Free pat[0] and pat[1] after the
 * analysis. */
static void page_opts(const ant_store_page *p, ant_page_opts *po, char **pat[2])
{
	memset(po, 0, sizeof *po);
	po->forced_charset = p->force_charset;
	pat[0] = split_ignore(p->ignore, &po->nignore);
	pat[1] = split_ignore(p->only, &po->nonly);
	po->ignore = (const char *const *)pat[0];
	po->only = (const char *const *)pat[1];
}

/* The body's title, charset, advertised feed, text checksum and segments
 * (ant_page.h) into *info (released by the caller).  0 when not HTML or not
 * analysable: then the size rule decides. */
static int analyze(ant_store_page *p, const ant_fetch_result *res, ant_detect_input *in,
		   ant_page_info *info)
{
	ant_page_opts po;
	char **pat[2];
	int rc;

	if (!is_html(res->content_type))
		return 0;
	page_opts(p, &po, pat);
	rc = ant_page_analyze2(res->body, res->len, res->content_type, &po, info, NULL);
	free(pat[0]);
	free(pat[1]);
	if (rc < 0)
		return 0;
	in->has_hash = 1;
	in->text_hash = info->text_hash;
	if (info->title && *info->title && !p->title_set_by_user)
		set_str(&p->title, info->title);
	set_str(&p->charset, info->charset);
	take_feed_link(p, res, info->feed_href);
	return 1;
}

/* ---- the noise-proof text rule (ant_detect.h) ---------------------------------- */

static ant_detect_seg *segs_of(const ant_page_info *info)
{
	ant_detect_seg *v = malloc((info->nseg ? info->nseg : 1) * sizeof *v);

	for (size_t i = 0; v && i < info->nseg; i++)
		v[i] = (ant_detect_seg){ info->seg[i].block, info->seg[i].norm, info->seg[i].len };
	return v;
}

/* Does the page learn volatile parts?  Not with '--no-auto-ignore'. */
static int learns(const ant_store_page *p)
{
	return !p->no_auto_ignore;
}

/* Labels the blocks learned in this check (for 'antenna show'): the path
 * of the block and the start of its text, from the answer compared. */
static void label_learned(ant_detect_noise *ns, const ant_detect_verdict *v, const ant_page_info *info,
			  const ant_detect_seg *segs)
{
	unsigned char *pick;

	if (!v->nlearned || !(pick = malloc(info->nseg ? info->nseg : 1)))
		return;
	for (size_t k = 0; k < v->nlearned; k++) {
		size_t first = info->nseg;
		char *text;

		for (size_t i = 0; i < info->nseg; i++) {
			pick[i] = segs[i].block == v->learned[k];
			if (pick[i] && first == info->nseg)
				first = i;
		}
		text = ant_page_excerpt(info, pick, 40);
		ant_detect_noise_label(ns, v->learned[k], first < info->nseg ? ant_page_seg_path(info, first) : NULL,
				       text);
		free(text);
	}
	free(pick);
}

/* Decides the text rule for the answer in info (second: the re-fetched
 * segments, or NULL), keeps the page's new state and fills in->noise_* and
 * *excerpt (what the update added, malloc'd; NULL when nothing). */
static void noise_decide(struct upd *u, ant_store_page *p, ant_detect_noise *ns,
			 const ant_page_info *info, const ant_detect_seg *segs,
			 const ant_detect_seg *second, size_t nsecond, ant_detect_input *in,
			 char **excerpt)
{
	ant_detect_verdict v;
	unsigned char *blob;
	size_t len;

	*excerpt = NULL;
	if (ant_detect_noise_decide(ns, segs, info->nseg, second, nsecond, learns(p), u->now, &v) < 0)
		return;   /* out of memory: the text checksum decides */
	label_learned(ns, &v, info, segs);
	u->st.learned += (unsigned)v.nlearned;
	in->noise_decided = !v.baseline;
	in->noise_updated = v.updated;
	in->noise_time = v.since;
	if (v.pick) {
		ant_detect_pick_first_run(ns, segs, info->nseg, v.pick);
		*excerpt = ant_page_excerpt(info, v.pick, u->o->excerpt_max);
	}
	ant_detect_verdict_release(&v);
	if (ant_detect_noise_encode(ns, &blob, &len) == 0) {
		free(p->noise);
		p->noise = blob;
		p->noise_len = len;
	}
}

static void noisecheck_free(struct noisecheck *nc)
{
	if (!nc)
		return;
	ant_page_info_release(&nc->info);
	free(nc->segs);
	ant_detect_noise_release(&nc->ns);
	free(nc->had_feed);
	free(nc);
}

/*
 * The text rule for a first answer: decided now, or (1) the page is to be
 * fetched again, its first answer kept in fr->nc (the caller stops there).
 */
static int noise_first(struct upd *u, ant_store_page *p, struct feedres *fr, ant_page_info *info,
		       ant_detect_input *in, char **excerpt, const char *had_feed)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg *segs = segs_of(info);
	struct noisecheck *nc;
	int forget = 0;

	if (!segs)
		return 0;
	if (ant_detect_noise_decode(&ns, p->noise, p->noise_len) < 0)
		ant_detect_noise_init(&ns);   /* none yet, or unreadable: a baseline */
	if (!learns(p) && (ns.nvol || ns.nsus)) {
		/* Automatic ignoring was turned off: what it learned goes, and
		 * this check is the new reference, no update of its own. */
		ant_detect_noise_release(&ns);
		forget = 1;
	}
	ant_detect_noise_scan(&ns, segs, info->nseg, learns(p), u->now, &v);
	if (v.refetch && u->o->refetch_pause_ms >= 0 && u->held < u->max_held &&
	    (nc = calloc(1, sizeof *nc))) {
		u->held++;
		nc->info = *info;
		memset(info, 0, sizeof *info);
		nc->segs = segs;
		nc->ns = ns;
		nc->in = *in;
		nc->had_feed = had_feed ? strdup(had_feed) : NULL;
		fr->nc = nc;
		fr->refetch = 1;
		return 1;
	}
	noise_decide(u, p, &ns, info, segs, NULL, 0, in, excerpt);
	if (forget) {
		in->noise_decided = 1;
		in->noise_updated = 0;
	}
	ant_detect_noise_release(&ns);
	free(segs);
	return 0;
}

/* Decides and records one successful or failed check (in is complete). */
static void finish_page(struct upd *u, ant_store_page *p, const ant_detect_input *in,
			const char *errtext, const char *excerpt)
{
	struct feedres *fr = &u->fr[p - u->pages];
	ant_detect_outcome out;

	ant_detect_apply(&p->st, in, u->now, &out);
	if (in->failed) {
		set_str(&p->last_error, errtext);
		u->st.failed++;
	} else {
		set_str(&p->last_error, NULL);
		if (out.updated)
			set_str(&p->source_url, p->url);
		/* What changed: the newest entry's title, or the first new text
		 * (also when a newer Last-Modified decided first). */
		if (out.updated)
			set_excerpt(p, !out.rule ? "" : strcmp(out.rule, "feed") == 0 ?
				    (fr->title ? fr->title : "") : excerpt ? excerpt : "",
				    u->o->excerpt_max);
		u->st.updated += out.updated;
		u->st.unchanged += !out.updated;
	}
	u->st.checked++;
	if (u->o->on_page)
		u->o->on_page(u->o->ctx, p, &out);
	save_page(u, p, out.updated);
}

/* The rest of a page's check once its text is decided (excerpt: owned):
 * a feed found only now is read first (defer_feeds), a feed under way is
 * waited for (finish_waiting), else the check is recorded. */
static void page_tail(struct upd *u, ant_store_page *p, struct feedres *fr, ant_detect_input *in,
		      char *excerpt, const char *had_feed, const char *errtext)
{
	if (!in->failed && (p->feed_url ? !had_feed || strcmp(had_feed, p->feed_url) != 0 : had_feed != NULL)) {
		/* Another feed (or none) from now on: what the old one said in
		 * this run does not count. */
		fr->usable = 0;
		fr->newest = 0;
		free(fr->title);
		fr->title = NULL;
		/* A feed found only now is read before deciding, in a second
		 * round (defer_feeds): one event per update, dated by the feed. */
		if (p->feed_url) {
			fr->deferred = 1;
			fr->in = *in;
			fr->excerpt = excerpt;
			return;
		}
	}
	if (fr->pending) {   /* its feed has not answered yet */
		fr->waiting = 1;
		fr->in = *in;
		fr->excerpt = excerpt;
		snprintf(fr->errtext, sizeof fr->errtext, "%s", errtext ? errtext : "");
		return;
	}
	in->feed_usable = fr->usable;
	in->feed_time = fr->newest;
	finish_page(u, p, in, errtext, excerpt);
	free(excerpt);
}

/* The part 'add --only' watches is not on the page (renamed, moved): a
 * failed check with the reason, so that the operator sees it in list,
 * show and index.html, instead of a page compared as empty for ever. */
static const char *only_missing(ant_detect_input *in)
{
	in->failed = 1;
	return "the --only part is not on the page";
}

static void page_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct feedres *fr = &u->fr[p - u->pages];
	ant_detect_input in = { .content_length = res->content_length, .body_len = (int64_t)res->len,
			    .lm_time = res->last_modified_time, .date_time = res->date_time,
			    .status = res->status, .retry_after = res->retry_after,
			    .max_future = u->o->max_future };
	char *excerpt = NULL, *had_feed = p->feed_url ? strdup(p->feed_url) : NULL;
	ant_page_info info;
	char b[64];
	int later = 0;

	const char *why = NULL;

	in.failed = http_failed(res);
	if (!in.failed) {
		if (res->status != 304 && analyze(p, res, &in, &info)) {
			if (!info.only_matched)
				why = only_missing(&in);
			else
				later = noise_first(u, p, fr, &info, &in, &excerpt, had_feed);
			ant_page_info_release(&info);
		}
		take_validators(&p->etag, &p->lm_header, res);
	}
	if (later) {   /* decided when the second answer comes (refetch_pages) */
		fr->asked = mono_ms();
		free(had_feed);
		return;
	}
	if (in.failed && !why)
		why = error_text(res, b, sizeof b);
	page_tail(u, p, fr, &in, excerpt, had_feed, why);
	free(had_feed);
}

/* The second answer of a page that seemed changed: the text rule decides
 * with both (ant_detect.h), then the check goes on as any other. */
static void refetch_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct feedres *fr = &u->fr[p - u->pages];
	struct noisecheck *nc = fr->nc;
	ant_detect_seg *second = NULL;
	ant_page_info info;
	char *excerpt = NULL;

	u->st.refetched++;
	u->held--;
	fr->nc = NULL;
	fr->refetch = 0;
	memset(&info, 0, sizeof info);
	if (!http_failed(res) && res->status != 304 && is_html(res->content_type)) {
		ant_page_opts po;
		char **pat[2];

		page_opts(p, &po, pat);
		if (ant_page_analyze2(res->body, res->len, res->content_type, &po, &info, NULL) == 0)
			second = segs_of(&info);
		free(pat[0]);
		free(pat[1]);
	}
	/* no usable second answer: decided on the first alone */
	noise_decide(u, p, &nc->ns, &nc->info, nc->segs, second, second ? info.nseg : 0, &nc->in, &excerpt);
	free(second);
	ant_page_info_release(&info);
	page_tail(u, p, fr, &nc->in, excerpt, nc->had_feed, NULL);
	noisecheck_free(nc);
}

/* The URL fetched to check a page: its check URL (tama's Check-URL), else
 * its own. */
static const char *check_url(const ant_store_page *p)
{
	return p->check_url ? p->check_url : p->url;
}

/* Sleeps ms milliseconds (none when <= 0). */
static void pause_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0)
		;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first answer time up to which pages awaiting their second fetch
 * must go now so that at most keep of them are carried: the oldest go
 * first.  INT64_MIN when none must; -1 out of memory. */
static int64_t refetch_cut(struct upd *u, size_t keep)
{
	int64_t *t, cut;
	size_t n = 0;

	for (size_t i = 0; i < u->npages; i++)
		n += u->fr[i].refetch;
	if (n <= keep)
		return INT64_MIN;
	if (!(t = malloc(n * sizeof *t)))
		return -1;
	n = 0;
	for (size_t i = 0; i < u->npages; i++)
		if (u->fr[i].refetch)
			t[n++] = u->fr[i].asked;
	qsort(t, n, sizeof *t, cmp_i64);
	cut = t[n - keep - 1];
	free(t);
	return cut;
}

/* Which pages awaiting their second fetch go now, marked in go[]: those
 * whose pause is over, and, so that at most a batch of them is carried
 * into the next batch (whose fetching is their pause), the oldest others
 * after the rest of their pause; on the last batch, all of them after
 * the rest of the newest one's.  Returns how many go, or -1. */
static long refetch_pick(struct upd *u, int last, unsigned char *go)
{
	int64_t cut = refetch_cut(u, last ? 0 : u->batch), t;
	long n = 0;

	if (cut == -1)
		return -1;
	if (cut != INT64_MIN)
		pause_ms(u->o->refetch_pause_ms - (mono_ms() - cut));
	t = mono_ms();
	for (size_t i = 0; i < u->npages; i++) {
		go[i] = u->fr[i].refetch && (u->fr[i].asked <= cut ||
					     t - u->fr[i].asked >= u->o->refetch_pause_ms);
		n += go[i];
	}
	return n;
}

/* The pages that seemed changed, fetched again after the pause (without
 * validators: the answer is compared, not its freshness). */
static int refetch_pages(struct upd *u, int last)
{
	unsigned char *go = calloc(u->npages ? u->npages : 1, 1);
	ant_fetch_req *reqs = calloc(u->npages ? u->npages : 1, sizeof *reqs);
	size_t n = 0;
	int rc = 0;

	long pick = go && reqs ? refetch_pick(u, last, go) : -1;

	if (pick <= 0) {
		rc = pick < 0 ? -1 : 0;
		free(go);
		free(reqs);
		return rc;
	}
	for (size_t i = 0; i < u->npages; i++)
		if (go[i] && u->fr[i].refetch)
			reqs[n++] = (ant_fetch_req){ check_url(&u->pages[i]), NULL, NULL, &u->pages[i],
						     u->pages[i].url };
	rc = fetch(u, reqs, n, refetch_done, u);
	/* a fetcher that did not answer them all: decide on the first answers */
	for (size_t i = 0; i < u->npages; i++)
		if (go[i] && u->fr[i].refetch) {
			ant_fetch_result none = { .status = 0, .err = ANT_FETCH_ERR_OTHER, .content_length = -1 };
			refetch_done(u, &(ant_fetch_req){ check_url(&u->pages[i]), NULL, NULL, &u->pages[i],
							  u->pages[i].url }, &none);
			u->st.refetched--;
		}
	free(go);
	free(reqs);
	return rc;
}

/* The second round: the feeds pages advertised for the first time. */
static int defer_feeds(struct upd *u)
{
	ant_fetch_req *reqs = calloc(u->npages ? u->npages : 1, sizeof *reqs);
	size_t n = 0;
	int rc = 0;

	if (!reqs)
		return -1;
	for (size_t i = 0; i < u->npages; i++)
		if (u->fr[i].deferred)
			reqs[n++] = (ant_fetch_req){ u->pages[i].feed_url, NULL, NULL, &u->pages[i],
						     u->pages[i].url };
	if (n)
		rc = fetch(u, reqs, n, feed_done, u);
	for (size_t i = 0; i < n; i++) {
		ant_store_page *p = reqs[i].user;
		struct feedres *fr = &u->fr[p - u->pages];
		fr->deferred = 0;
		fr->in.feed_usable = fr->usable;
		fr->in.feed_time = fr->newest;
		finish_page(u, p, &fr->in, NULL, fr->excerpt);
		free(fr->excerpt);
		fr->excerpt = NULL;
	}
	free(reqs);
	return rc;
}

static void job_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	const struct job *j = req->user;
	ant_fetch_req r = *req;

	r.user = j->p;
	if (j->feed)
		feed_done(ctx, &r, res);
	else
		page_done(ctx, &r, res);
}

/* The page's feed as a job of its own, with copies (struct job); out of
 * memory, the page goes alone.  Returns the new count of requests. */
static size_t queue_feed(struct upd *u, size_t i, ant_fetch_req *reqs, struct job *jobs, size_t n)
{
	ant_store_page *p = &u->pages[i];
	struct job *j = &jobs[n];

	*j = (struct job){ p, 1, strdup(p->feed_url),
			   p->feed_etag ? strdup(p->feed_etag) : NULL,
			   p->feed_lm_header ? strdup(p->feed_lm_header) : NULL };
	if (!j->url) {
		free(j->etag);
		free(j->lm);
		return n;
	}
	reqs[n] = (ant_fetch_req){ j->url, j->etag, j->lm, j, p->url };
	u->fr[i].pending = 1;
	return n + 1;
}

static void feedres_release(struct feedres *fr)
{
	free(fr->title);
	free(fr->excerpt);
	noisecheck_free(fr->nc);
	memset(fr, 0, sizeof *fr);
}

/*
 * The batch's due pages and their feeds in one set of transfers (a feed
 * does not wait for the pages, nor a page for the feeds); a page whose
 * answer comes before its feed's waits for it (finish_waiting), so that
 * each update is decided once, with the feed.  Pages carried from the
 * last batch (refetch set) wait for their second fetch only.
 */
static int fetch_batch(struct upd *u)
{
	size_t cap = 2 * (u->npages ? u->npages : 1), n = 0;
	ant_fetch_req *reqs = calloc(cap, sizeof *reqs);
	struct job *jobs = calloc(cap, sizeof *jobs);
	int rc;

	if (!reqs || !jobs) {
		free(reqs);
		free(jobs);
		return -1;
	}
	for (size_t i = 0; i < u->npages; i++) {
		ant_store_page *p = &u->pages[i];
		if (u->fr[i].refetch || !ant_detect_due(&p->st, u->now, u->o->force))
			continue;
		if (p->feed_url)
			n = queue_feed(u, i, reqs, jobs, n);
		jobs[n] = (struct job){ p, 0, NULL, NULL, NULL };
		/* a check URL (tama's Check-URL) is fetched; url is what is shown,
		 * and the host the operator added (ant_fetch.h: allow_host) */
		reqs[n] = (ant_fetch_req){ check_url(p), p->etag, p->lm_header, &jobs[n], p->url };
		n++;
	}
	rc = fetch(u, reqs, n, job_done, u);
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].url);
		free(jobs[i].etag);
		free(jobs[i].lm);
	}
	free(jobs);
	free(reqs);
	return rc;
}

/* One batch: fetched, its new feeds read, the pages whose pause is over
 * fetched again (and the feeds those found), all committed. */
static int check_batch(struct upd *u, int last)
{
	int rc = fetch_batch(u);

	if (rc == 0)
		rc = defer_feeds(u);
	if (rc == 0)
		rc = refetch_pages(u, last);
	if (rc == 0)
		rc = defer_feeds(u);
	if (tx_commit(u) < 0)
		rc = 0;   /* the database's failure, told by run() */
	return rc;
}

/* After a batch: the pages still awaiting their second fetch move to the
 * front, with what their check found so far; the others go. */
static void carry(struct upd *u)
{
	size_t k = 0;

	for (size_t i = 0; i < u->npages; i++) {
		if (!u->fr[i].refetch) {
			ant_store_page_release(&u->pages[i]);
			feedres_release(&u->fr[i]);
			continue;
		}
		if (k != i) {
			u->pages[k] = u->pages[i];
			u->fr[k] = u->fr[i];
			memset(&u->fr[i], 0, sizeof u->fr[i]);
		}
		k++;
	}
	u->npages = k;
}

/* The due pages, batch after batch: each read by id after the last
 * (ant_store_pages_due), checked and committed before the next. */
static int check_pages(struct upd *u)
{
	size_t cap = 2 * u->batch;   /* carried (at most a batch) + read */
	int rc = 0, last = 0;

	u->pages = calloc(cap, sizeof *u->pages);
	u->fr = calloc(cap, sizeof *u->fr);
	if (!u->pages || !u->fr)
		return lb_err_code(&u->err, LB_ENOMEM);
	while (!last && rc == 0 && !u->failed_db) {
		size_t got;
		if (ant_store_pages_due(u->s, u->after, u->now, u->o->force, u->pages + u->npages,
					u->batch, &got, &u->err) < 0) {
			u->failed_db = 1;
			break;
		}
		if (got)
			u->after = u->pages[u->npages + got - 1].id;
		u->npages += got;
		last = got < u->batch;   /* the end of the table */
		if (u->npages && check_batch(u, last) < 0)
			rc = lb_err(&u->err, LB_ENET, "cannot set up transfers");
		carry(u);
	}
	return rc;
}

static void batch_free(struct upd *u)
{
	for (size_t i = 0; i < u->npages; i++) {
		ant_store_page_release(&u->pages[i]);
		if (u->fr)
			feedres_release(&u->fr[i]);
	}
	free(u->pages);
	free(u->fr);
	u->pages = NULL;
	u->fr = NULL;
	u->npages = 0;
}

/* ---- the run ------------------------------------------------------------ */

void ant_update_opts_init(ant_update_opts *o)
{
	memset(o, 0, sizeof *o);
	o->limits.max_redirects = -1;   /* ant_fetch.h: the default */
	o->excerpt_max = ANT_PAGE_EXCERPT_MAX;
	o->max_archives = ANT_UPDATE_MAX_ARCHIVES;
	o->max_age = LIRS_DEFAULT_MAX_AGE;
	o->max_future = LIRS_DEFAULT_MAX_FUTURE;
	o->tz = 32400;                  /* JST, the classic antennas' zone */
	o->keep_records = ANT_KEEP_EVENTS;
	o->lock_wait = ANT_STORE_LOCK_WAIT;
	o->refetch_pause_ms = ANT_UPDATE_REFETCH_PAUSE_MS;
	o->page_batch = ANT_UPDATE_PAGE_BATCH;
}

/* Everything the run reads before fetching (the pages come in batches,
 * check_pages): the lock first, so that a second run waits before it has
 * read anything. */
static int load(struct upd *u, ant_store_source **srcs, size_t *nsrc)
{
	int rc;

	if ((rc = ant_store_lock(u->s, u->o->lock_wait, &u->err)) < 0 ||
	    (rc = atom_evstore_attach(&u->ev, ant_store_db(u->s), &u->err)) < 0 ||
	    (rc = ant_store_sources_load(u->s, srcs, nsrc, &u->err)) < 0)
		return rc;
	return 0;
}

static int run(struct upd *u)
{
	ant_store_source *srcs = NULL;
	size_t nsrc = 0;
	int rc = load(u, &srcs, &nsrc);

	if (rc < 0)
		return rc;
	if (nsrc && read_sources(u, srcs, nsrc) < 0)
		rc = lb_err(&u->err, LB_ENET, "cannot set up transfers");
	else if (!u->failed_db)
		rc = check_pages(u);
	/* A database failure in a callback stopped the writes; its message
	 * is the one to tell. */
	if (tx_commit(u) < 0 || u->failed_db)
		rc = u->err.code < 0 ? u->err.code : LB_EDB;
	ant_store_sources_free(srcs, nsrc);
	return rc;
}

/* What is due next, for a summary that says why nothing was checked: from
 * SQL, no page held in memory. */
static void summary(struct upd *u)
{
	int64_t n = 0, first = 0;

	if (ant_store_pages_count(u->s, &n, &first, NULL) < 0)
		return;
	u->st.pages = (unsigned)n;
	u->st.next_due = !n ? 0 : first > u->now ? first : u->now;
}

int ant_update(ant_store *store, const ant_update_opts *opts, ant_update_stats *stats,
	       lb_error *err)
{
	struct upd u = { .s = store, .o = opts, .now = opts->now, .key = LB_BUF_INIT,
			 .err = LB_ERROR_INIT };
	int rc;

	u.batch = opts->page_batch ? opts->page_batch : ANT_UPDATE_PAGE_BATCH;
	u.max_held = opts->max_held ? opts->max_held : ANT_UPDATE_MAX_HELD;
	rc = run(&u);
	if (rc < 0 && u.in_tx)
		ant_store_rollback(u.s);
	summary(&u);
	if (stats)
		*stats = u.st;
	batch_free(&u);
	lb_buf_release(&u.key);
	atom_evstore_close(u.ev);
	if (rc < 0 && err) {
		*err = u.err;
		err->code = rc;
	}
	return rc < 0 ? rc : 0;
}

/* ---- a page added later: what its sources said ------------------------- */

struct recall {
	const ant_update_opts *o;
	ant_store_page *p;
	int applied;
};

static int recall_one(void *ctx, const ant_store_srcrec *r)
{
	struct recall *c = ctx;
	int atom = r->source_kind == ANT_STORE_SOURCE_ATOM;
	lirs_record rec;

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
	struct recall c = { .o = opts, .p = &p };
	atom_evstore *ev = NULL;
	atom_ev_event e;
	int rc;

	if ((rc = ant_store_page_get(s, url_key, &p, err)) <= 0)
		return rc;
	rc = ant_store_srcrec_each(s, url_key, recall_one, &c, err);
	if (rc < 0 || !c.applied) {
		ant_store_page_release(&p);
		return rc < 0 ? rc : 0;
	}
	e = (atom_ev_event){ .url = p.url, .last_modified = p.st.last_modified,
			     .last_detected = p.st.last_detected, .tz_offset = opts->tz,
			     .content_length = p.st.content_length > 0 ? p.st.content_length : 0,
			     .title = p.title ? p.title : "", .author = p.author ? p.author : "",
			     .source_url = p.source_url ? p.source_url : p.url, .excerpt = p.excerpt };
	ant_clip_inplace(p.title, ANT_MAX_TITLE);
	if ((rc = ant_store_page_save(s, &p, err)) == 0 &&
	    (rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0)
		rc = atom_evstore_add(ev, &e, err);
	atom_evstore_close(ev);
	ant_store_page_release(&p);
	return rc < 0 ? rc : 1;
}
