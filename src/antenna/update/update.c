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
 * held from start to end -- on SQLite, and on PostgreSQL unless asked to
 * share (opts lease_seconds, --lease): then several checkers hold it
 * together (ant_store_lock_shared(): never beside a run alone) and share
 * the pages by claims and leases (check_shared(), update_lease.c), and
 * the sources are read by one of them at a time.
 *
 * Bounded memory whatever the number of pages (hub scale): a source's
 * record finds its page through the url_key index (ant_store_page_get),
 * and the due pages are read in batches of opts->page_batch by id
 * (ant_store_pages_due), each fetched, decided, saved and committed
 * before the next is read; only the pages awaiting their second fetch
 * (the noise re-fetch) are carried into the next batch, so that the
 * pause runs while that batch is fetched instead of once per batch.
 *
 * This file is the run and its batches; the sources are read by
 * update_sources.c, a page's check is update_check.c's steps, and the
 * tools every step uses -- the fetch, the transaction, the save, the
 * events -- are update_run.c's, below them all (update_int.h).
 */
#include "ant_update.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_buf.h"
#include "atom_evstore.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "ant_pagestate.h"
#include "lirs.h"
#include "lirs_merge.h"   /* LIRS_DEFAULT_MAX_FUTURE */
#include "update_int.h"
#include "ant_settings.h"

/* One transfer of the pages' run: a page or its feed. */
struct job {
	ant_store_page *p;
	int feed;
	char *url, *etag, *lm;   /* a feed's: copies, as the page may name
				    another feed while this one is queued */
};

/* ---- the batches of pages ---------------------------------------------- */

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

/* Does the batch's page i await its second fetch (update_check.c)? */
static int awaits_refetch(const struct upd *u, size_t i)
{
	return u->chk[i].wait == UPD_WAIT_REFETCH;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first answer time up to which pages awaiting their second fetch
 * must go now so that at most keep of them are carried: the oldest go
 * first.  INT64_MIN when none must; LB_ENOMEM (-1) out of memory. */
static int64_t refetch_cut(struct upd *u, size_t keep)
{
	int64_t *t, cut;
	size_t n = 0;

	for (size_t i = 0; i < u->npages; i++)
		n += awaits_refetch(u, i);
	if (n <= keep)
		return INT64_MIN;
	if (!(t = malloc(n * sizeof *t)))
		return LB_ENOMEM;
	n = 0;
	for (size_t i = 0; i < u->npages; i++)
		if (awaits_refetch(u, i))
			t[n++] = u->chk[i].asked;
	qsort(t, n, sizeof *t, cmp_i64);
	cut = t[n - keep - 1];
	free(t);
	return cut;
}

/* Which pages awaiting their second fetch go now, marked in go[]: those
 * whose pause is over, and, so that at most a batch of them is carried
 * into the next batch (whose fetching is their pause), the oldest others
 * after the rest of their pause; on the last batch, all of them after
 * the rest of the newest one's.  Returns how many go, or LB_ENOMEM. */
static long refetch_pick(struct upd *u, int last, unsigned char *go)
{
	int64_t cut = refetch_cut(u, last ? 0 : u->batch), t;
	long n = 0;

	if (cut == LB_ENOMEM)
		return LB_ENOMEM;
	if (cut != INT64_MIN)
		pause_ms(u->o->refetch_pause_ms - (ant_upd_mono_ms() - cut));
	t = ant_upd_mono_ms();
	for (size_t i = 0; i < u->npages; i++) {
		go[i] = awaits_refetch(u, i) && (u->chk[i].asked <= cut ||
						 t - u->chk[i].asked >= u->o->refetch_pause_ms);
		n += go[i];
	}
	return n;
}

/* The pages that seemed changed, fetched again after the pause, with the
 * first answer's ETag (If-None-Match): a 304 says the second answer is
 * the first (update_check.c), and costs no body nor its analysis. */
static int refetch_pages(struct upd *u, int last)
{
	unsigned char *go = calloc(u->npages ? u->npages : 1, 1);
	unsigned char *render = calloc(u->npages ? u->npages : 1, 1);
	ant_fetch_req *reqs = calloc(u->npages ? u->npages : 1, sizeof *reqs);
	long pick = go && reqs && render ? refetch_pick(u, last, go) : LB_ENOMEM;
	size_t n = 0;
	int rc;

	if (pick <= 0) {
		free(go);
		free(render);
		free(reqs);
		return pick < 0 ? (int)pick : 0;
	}
	for (size_t i = 0; i < u->npages; i++)
		if (go[i] && awaits_refetch(u, i)) {
			render[n] = u->pages[i].render != 0;   /* rendered again: its second answer */
			/* the first answer's ETag: a 304 is that answer again (not a
			 * rendered page's: its answer is the browser's) */
			reqs[n] = (ant_fetch_req){ check_url(&u->pages[i]), render[n] ? NULL : u->pages[i].etag, NULL,
						   &u->pages[i], ant_pagestate_allow_url(&u->pages[i]) };
			n++;
		}
	rc = ant_upd_fetch_pages(u, reqs, render, n, ant_upd_refetch_done, u);
	free(render);
	/* a fetcher that did not answer them all: decide on the first answers */
	for (size_t i = 0; i < u->npages; i++)
		if (go[i] && awaits_refetch(u, i)) {
			ant_fetch_result none = { .status = 0, .err = ANT_FETCH_ERR_OTHER, .content_length = -1 };
			ant_upd_refetch_done(u, &(ant_fetch_req){ check_url(&u->pages[i]), NULL, NULL,
								 &u->pages[i], ant_pagestate_allow_url(&u->pages[i]) }, &none);
			u->st.refetched--;
		}
	free(go);
	free(reqs);
	return rc;
}

/* The second round: the feeds pages advertised for the first time, each
 * page's check decided once its feed was read (or could not be). */
static int defer_feeds(struct upd *u)
{
	ant_fetch_req *reqs = calloc(u->npages ? u->npages : 1, sizeof *reqs);
	size_t n = 0;
	int rc = 0;

	if (!reqs)
		return LB_ENOMEM;
	for (size_t i = 0; i < u->npages; i++)
		if (u->chk[i].wait == UPD_WAIT_NEW_FEED && ant_upd_robots_feed(u, &u->pages[i]))
			reqs[n++] = (ant_fetch_req){ u->pages[i].feed_url, NULL, NULL, &u->pages[i],
						     ant_pagestate_allow_url(&u->pages[i]) };
		else if (u->chk[i].wait == UPD_WAIT_NEW_FEED)
			ant_upd_new_feed_read(u, &u->pages[i]);   /* decided without it */
	if (n)
		rc = ant_upd_fetch(u, reqs, n, ant_upd_feed_done, u);
	for (size_t i = 0; i < n; i++)
		ant_upd_new_feed_read(u, reqs[i].user);
	free(reqs);
	return rc;
}

static void job_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	const struct job *j = req->user;
	ant_fetch_req r = *req;

	r.user = j->p;
	if (j->feed)
		ant_upd_feed_done(ctx, &r, res);
	else
		ant_upd_page_done(ctx, &r, res);
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
	reqs[n] = (ant_fetch_req){ j->url, j->etag, j->lm, j, ant_pagestate_allow_url(p) };
	u->chk[i].feed_pending = 1;
	return n + 1;
}

/*
 * The batch's due pages and their feeds in one set of transfers (a feed
 * does not wait for the pages, nor a page for the feeds); a page whose
 * answer comes before its feed's waits for it (update_check.c, step
 * feed), so that each update is decided once, with the feed.  Pages
 * carried from the last batch wait for their second fetch only.
 */
static int fetch_batch(struct upd *u)
{
	size_t cap = 2 * (u->npages ? u->npages : 1), n = 0;
	ant_fetch_req *reqs = calloc(cap, sizeof *reqs);
	struct job *jobs = calloc(cap, sizeof *jobs);
	unsigned char *due = calloc(cap, 1), *render = calloc(cap, 1);
	int rc;

	if (!reqs || !jobs || !due || !render) {
		free(reqs);
		free(jobs);
		free(due);
		free(render);
		return LB_ENOMEM;
	}
	for (size_t i = 0; i < u->npages; i++)
		due[i] = !awaits_refetch(u, i) && ant_detect_due(&u->pages[i].st, u->now, u->o->force);
	/* robots.txt first, once per origin (update_robots.c) */
	if ((rc = ant_upd_robots_prepare(u, due)) < 0) {
		free(reqs);
		free(jobs);
		free(due);
		free(render);
		return rc;
	}
	for (size_t i = 0; i < u->npages; i++) {
		ant_store_page *p = &u->pages[i];
		if (!due[i] || !ant_upd_robots_gate(u, p))
			continue;
		if (p->feed_url && ant_upd_robots_feed(u, p))
			n = queue_feed(u, i, reqs, jobs, n);
		jobs[n] = (struct job){ p, 0, NULL, NULL, NULL };
		/* a check URL (tama's Check-URL) is fetched; url is what is shown,
		 * and the host the operator added (ant_fetch.h: allow_host) */
		reqs[n] = (ant_fetch_req){ check_url(p), p->etag, p->lm_header, &jobs[n],
					   ant_pagestate_allow_url(p) };
		if ((render[n] = p->render != 0))   /* always a full render: no validators */
			reqs[n].etag = reqs[n].last_modified = NULL;
		n++;
	}
	/* the batch's checks on fetch's helper thread, while the transfers
	 * go on: this thread touches u again only once the fetch returns;
	 * the rendered pages after, one at a time, on this thread */
	u->lim.done_aside = 1;
	rc = ant_upd_fetch_pages(u, reqs, render, n, job_done, u);
	u->lim.done_aside = 0;
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].url);
		free(jobs[i].etag);
		free(jobs[i].lm);
	}
	free(jobs);
	free(reqs);
	free(due);
	free(render);
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
	if (rc == 0)
		rc = ant_upd_siblings(u);   /* the sites' templates (update_sibling.c) */
	ant_upd_site_forget(u);   /* their rows read for the batch */
	if (ant_upd_tx_commit(u) < 0)
		rc = 0;   /* the database's failure, told by run() */
	return rc;
}

/* After a batch: the pages still awaiting their second fetch move to the
 * front, with what their check found so far; the others go. */
static void carry(struct upd *u)
{
	size_t k = 0;

	for (size_t i = 0; i < u->npages; i++) {
		if (!awaits_refetch(u, i)) {
			ant_store_page_release(&u->pages[i]);
			ant_upd_check_release(&u->chk[i]);
			continue;
		}
		if (k != i) {
			u->pages[k] = u->pages[i];
			u->chk[k] = u->chk[i];
			memset(&u->chk[i], 0, sizeof u->chk[i]);
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
	u->chk = calloc(cap, sizeof *u->chk);
	if (!u->pages || !u->chk)
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

/* On PostgreSQL, several checkers: claim after claim (update_lease.c),
 * each a batch checked and committed, then given back.  A page awaiting
 * its second fetch is fetched again before its claim is given back (each
 * batch is a last one): a claim never outlives its batch. */
/* Sharing the pages with other checkers: asked for (--lease) on a store
 * that can (PostgreSQL).  Unasked, a checker on PostgreSQL holds the run
 * lock and decides exactly as on SQLite. */
static int shared(const struct upd *u)
{
	return u->o->lease_seconds > 0 && ant_store_shared(u->s);
}

static int check_shared(struct upd *u)
{
	size_t max = u->batch < ANT_UPDATE_CLAIM_MAX ? u->batch : ANT_UPDATE_CLAIM_MAX;
	size_t got;
	int rc = 0, more;

	u->pages = calloc(max, sizeof *u->pages);
	u->chk = calloc(max, sizeof *u->chk);
	if (!u->pages || !u->chk)
		return lb_err_code(&u->err, LB_ENOMEM);
	/* the sources' writes committed: a claim is a transaction of its own */
	if (ant_upd_tx_commit(u) < 0 || ant_upd_shared_begin(u) < 0)
		return 0;   /* u->failed_db: run() tells */
	while (rc == 0 && !u->failed_db && (more = ant_upd_claim(u, u->pages, max, &got)) > 0) {
		u->npages = got;
		u->st.claims++;
		if (check_batch(u, 1) < 0)
			rc = lb_err(&u->err, LB_ENET, "cannot set up transfers");
		carry(u);
		if (ant_upd_release(u) < 0)
			break;
	}
	ant_upd_shared_end(u);
	return rc;
}

static void batch_free(struct upd *u)
{
	for (size_t i = 0; i < u->npages; i++) {
		ant_store_page_release(&u->pages[i]);
		if (u->chk)
			ant_upd_check_release(&u->chk[i]);
	}
	free(u->pages);
	free(u->chk);
	u->pages = NULL;
	u->chk = NULL;
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
	o->tz = ANT_TZ_JST;             /* the classic antennas' zone */
	o->keep_records = ANT_KEEP_EVENTS;
	ant_source_limits_init(&o->budget);
	o->lock_wait = ANT_STORE_LOCK_WAIT;
	o->refetch_pause_ms = ANT_UPDATE_REFETCH_PAUSE_MS;
	o->page_batch = ANT_UPDATE_PAGE_BATCH;
	ant_sitemap_limits_init(&o->sitemap);
}

/* Everything the run reads before fetching (the pages come in batches,
 * check_pages): the lock first, so that a second run waits before it has
 * read anything. */
static int load(struct upd *u, ant_store_source **srcs, size_t *nsrc)
{
	int rc;

	/* on PostgreSQL the checkers sharing the pages by leases hold the
	 * run lock together, a run alone by itself (ant_store_lock_shared()) */
	if ((rc = shared(u) ? ant_store_lock_shared(u->s, u->o->lock_wait, &u->err) :
	     ant_store_lock(u->s, u->o->lock_wait, &u->err)) < 0 ||
	    (rc = atom_evstore_attach(&u->ev, ant_store_db(u->s), &u->err)) < 0 ||
	    (rc = ant_store_sources_load(u->s, srcs, nsrc, &u->err)) < 0)
		return rc;
	return 0;
}

/* The sources are read by one checker at a time (on SQLite the run lock
 * says so already): 1 read them, 0 another checker is reading them (this
 * one checks pages only), < 0 error. */
static int sources_lock(struct upd *u)
{
	int rc = ant_store_lock_named(u->s, ANT_STORE_LOCK_SOURCES, 0, &u->err);

	if (rc == 0)
		u->st.sources_skipped = 1;
	return rc;
}

static int run(struct upd *u)
{
	ant_store_source *srcs = NULL;
	size_t nsrc = 0;
	int rc = load(u, &srcs, &nsrc);

	if (rc < 0)
		return rc;
	if (nsrc && (rc = sources_lock(u)) < 0)
		;
	else if (nsrc && rc && ant_upd_read_sources(u, srcs, nsrc) < 0)
		rc = lb_err(&u->err, LB_ENET, "cannot set up transfers");
	else if (!u->failed_db)
		rc = shared(u) ? check_shared(u) : check_pages(u);
	if (nsrc && shared(u))
		ant_store_unlock_named(u->s, ANT_STORE_LOCK_SOURCES);
	/* A database failure in a callback stopped the writes; its message
	 * is the one to tell. */
	if (ant_upd_tx_commit(u) < 0 || u->failed_db)
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

/* ---- politeness across batches and runs (ant_fetch.h's pool) ------------ */

struct wait_load { ant_polite *pol; int64_t latest; };

/* A wait kept, no longer than --max-retry-after from now: a maximum
 * lowered since it was asked applies to it. */
static void wait_load(void *ctx, const char *server, int64_t until)
{
	struct wait_load *w = ctx;

	ant_polite_block_key(w->pol, server, until < w->latest ? until : w->latest);   /* out of memory: forgotten */
}

/* One pool for the whole run, so that a batch seam opens no new
 * connections; the servers' Retry-After read from the store into it. */
static void pool_open(struct upd *u)
{
	int64_t now = (int64_t)time(NULL);

	u->lim = u->o->limits;
	if (u->lim.pool || !(u->pool = ant_fetch_pool_new()))
		return;   /* the caller's pool, or none: one per fetch run */
	u->lim.pool = u->pool;
	ant_store_server_waits(u->s, now, wait_load, &(struct wait_load){
			       ant_fetch_pool_polite(u->pool), now + (u->lim.max_retry_after > 0 ?
			       u->lim.max_retry_after : ANT_FETCH_DEFAULT_MAX_RETRY_AFTER) }, NULL);
}

static void wait_save(void *ctx, const char *server, int64_t until)
{
	struct upd *u = ctx;

	if (ant_store_server_wait_set(u->s, server, until, &u->err) < 0)
		u->failed_db = 1;
}

/* The Retry-After still to come kept for the next run (the run's view,
 * which holds every wait it loaded, cut to --max-retry-after, and those
 * asked since, replaces the table's); the pool closed. */
static void pool_close(struct upd *u)
{
	ant_polite *pol = u->pool ? ant_fetch_pool_polite(u->pool) : NULL;
	int64_t now = (int64_t)time(NULL);

	u->st.connections = u->pool ? ant_fetch_pool_connects(u->pool) : 0;
	if (pol && !u->failed_db && ant_upd_tx_need(u) == 0) {
		/* shared: the others' waits stay (a later time wins, as ever) */
		if (!shared(u))
			ant_store_server_wait_clear(u->s, NULL, NULL);
		ant_polite_each_block(pol, now, wait_save, u);
		ant_upd_tx_commit(u);
	}
	ant_fetch_pool_free(u->pool);
	u->pool = NULL;
}

int ant_update(ant_store *store, const ant_update_opts *opts, ant_update_stats *stats,
	       lb_error *err)
{
	struct upd_siblings tmpl = { 0 };
	struct upd u = { .s = store, .o = opts, .now = opts->now, .key = LB_BUF_INIT,
			 .err = LB_ERROR_INIT, .tmpl = &tmpl, .claimed = LB_BUF_INIT };
	int rc;

	u.batch = opts->page_batch ? opts->page_batch : ANT_UPDATE_PAGE_BATCH;
	u.max_held = opts->max_held ? opts->max_held : ANT_UPDATE_MAX_HELD;
	pool_open(&u);
	rc = run(&u);
	if (rc == 0)
		pool_close(&u);
	ant_fetch_pool_free(u.pool);
	if (rc < 0 && u.in_tx)
		ant_store_rollback(u.s);
	summary(&u);
	if (stats)
		*stats = u.st;
	batch_free(&u);
	ant_upd_robots_free(&u);
	ant_upd_diff_free(&u);
	ant_upd_siblings_free(&u);
	ant_upd_site_forget(&u);
	lb_buf_release(&u.key);
	lb_buf_release(&u.claimed);
	atom_evstore_close(u.ev);
	if (rc < 0 && err) {
		*err = u.err;
		err->code = rc;
	}
	return rc < 0 ? rc : 0;
}

