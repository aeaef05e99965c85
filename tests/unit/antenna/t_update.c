/*
 * t_update.c: the update engine (ant_update.h) driven through its fetcher
 * seam, without a network, against a real store file in a temporary
 * directory: the decision cycle, the page/feed rendezvous in either order,
 * a LIRS source relaying a record, an Atom source's archive walk, a
 * source's newer record replacing its older one in the store, the URL
 * limit on a relay source's records (ANT_MAX_URL), batched transactions,
 * and the run's own failures (no transfers, the lock held).
 * Every check reads the store back.
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atom_db.h"

#include "lb_buf.h"
#include "ant_update.h"
#include "lirs_merge.h"
#include "lirs.h"
#include "atom_evstore.h"
#include "ant_publish.h"
#include "store_int.h"   /* ant_st_pg_open(): the probes' second connection */

#define T0 1700000000          /* 2023-11-14T22:13:20Z, the first run */

static char dir[] = "/tmp/t_update.XXXXXX";

/* ---- the fake fetcher: answers from a table, in an order the test picks -- */

struct answer {
	const char *url;
	long status;               /* 0 with err: a transport failure */
	ant_fetch_errkind err;
	const char *error;
	const char *body;
	const char *etag;
	int64_t lm_time;           /* also sent as a Last-Modified string */
	int64_t date_time;
	unsigned hits;             /* requests answered */
};

#define NMANY 300          /* pages of the batching test */

struct fake {
	struct answer a[NMANY];
	size_t n;
	int reverse;               /* answer a run's requests last to first */
	int fail_setup;            /* run() returns -1, as when curl cannot start */
	char order[8][64];         /* urls in the order answered (the first 8) */
	size_t nanswered;
	char sent_etag[64];        /* If-None-Match of the last request */
	unsigned requests;
	/* batching: after this many answers, count committed checks */
	size_t probe_at;
	const char *probe_db;
	int64_t probe_now;
	long probe_seen;
	size_t aside;            /* answers the run asked to be told aside */
};

static void fake_answer(struct fake *f, struct answer a)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->a[i].url, a.url)) {
			f->a[i] = a;
			return;
		}
	f->a[f->n++] = a;
}

static struct answer *fake_find(struct fake *f, const char *url)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->a[i].url, url))
			return &f->a[i];
	return NULL;
}

/* A second connection to the test's database, SQLite's or PostgreSQL's. */
static int probe_open(const char *db, atom_db **c, int flags)
{
	if (ant_st_is_pg_name(db)) {
		*c = NULL;
		return ant_st_pg_open(db, c, NULL) < 0 ? ATOM_DB_ERROR : ATOM_DB_OK;
	}
	return atom_db_open(db, c, flags);
}

/* Pages committed so far, seen through a second connection (WAL). */
static long committed(const char *db, int64_t now)
{
	atom_db *c;
	atom_db_st *st;
	long n = -1;

	if (probe_open(db, &c, ATOM_DB_OPEN_READONLY) == ATOM_DB_OK &&
	    atom_db_prepare(c, "SELECT count(*) FROM pages WHERE last_ok = ?", &st) == ATOM_DB_OK) {
		atom_db_bind_int64(st, 1, now);
		if (atom_db_step(st) == ATOM_DB_ROW)
			n = atom_db_column_int(st, 0);
		atom_db_finalize(st);
	}
	atom_db_close(c);
	return n;
}

static void answer_one(struct fake *f, const ant_fetch_limits *lim, const ant_fetch_req *req,
		       ant_fetch_done_fn done, void *ctx)
{
	struct answer *a = fake_find(f, req->url);
	ant_fetch_result r = { .status = 404, .content_length = -1 };
	char lm[32] = "";

	if (a) {
		a->hits++;
		r.status = a->status;
		r.err = a->err;
		snprintf(r.error, sizeof r.error, "%s", a->error ? a->error : "");
		r.body = (char *)(a->body ? a->body : "");
		r.len = strlen(r.body);
		r.etag = (char *)a->etag;
		if (a->lm_time) {
			snprintf(lm, sizeof lm, "@%lld", (long long)a->lm_time);
			r.last_modified = lm;
		}
		r.last_modified_time = a->lm_time;
		r.date_time = a->date_time;
	} else {
		r.body = "";
	}
	/* robots.txt (update_robots.c: 404 unless the table has it, every
	 * page allowed) is not one of the pages' requests counted here */
	if (strstr(req->url, "/robots.txt")) {
		done(ctx, req, &r);
		return;
	}
	snprintf(f->sent_etag, sizeof f->sent_etag, "%s", req->etag ? req->etag : "");
	if (f->nanswered < 8)
		snprintf(f->order[f->nanswered], sizeof f->order[0], "%s", req->url);
	f->nanswered++;
	f->requests++;
	f->aside += lim && lim->done_aside;
	done(ctx, req, &r);
	if (f->probe_db && f->nanswered == f->probe_at)
		f->probe_seen = committed(f->probe_db, f->probe_now);
}

static int fake_run(void *self, const ant_fetch_limits *lim, const ant_fetch_req *reqs, size_t n,
		    ant_fetch_done_fn done, void *ctx)
{
	struct fake *f = self;

	if (f->fail_setup)
		return -1;
	for (size_t i = 0; i < n; i++)
		answer_one(f, lim, &reqs[f->reverse ? n - 1 - i : i], done, ctx);
	return 0;
}

/* ---- the store ------------------------------------------------------- */

static ant_store *store_new(const char *name, char *path, size_t len)
{
	ant_store *s;
	lb_error err = LB_ERROR_INIT;

	snprintf(path, len, "%s/%s.db", dir, name);
	t_db_map(path, len);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", lb_error_msg(&err));
		return NULL;
	}
	return s;
}

static char *key_of(const char *url)
{
	lb_buf b = LB_BUF_INIT;

	lb_url_key(&b, url);
	return b.data;   /* malloc'd by the buffer */
}

static void page_add(ant_store *s, const char *url, const char *feed)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;
	char *key = key_of(url);

	ant_store_page_init(&p);
	p.url = (char *)url;
	p.url_key = key;
	p.source_url = (char *)url;
	p.created = T0 - 100;
	p.feed_url = (char *)feed;
	p.feed_by_user = feed != NULL;
	if (ant_store_page_add(s, &p, &err) != 0)
		printf("# %s\n", lb_error_msg(&err));
	free(key);
}

/* A source of kind (STORE_SOURCE_*), a relay source when relay is set. */
static void source_add_as(ant_store *s, const char *url, int kind, int relay)
{
	ant_store_source src;
	lb_error err = LB_ERROR_INIT;
	char *key = key_of(url);

	ant_store_source_init(&src);
	src.url = (char *)url;
	src.url_key = key;
	src.kind = kind;
	src.relay = relay;
	if (ant_store_source_add(s, &src, &err) != 0)
		printf("# %s\n", lb_error_msg(&err));
	free(key);
}

static void source_add(ant_store *s, const char *url, int kind)
{
	source_add_as(s, url, kind, 0);
}

/* The page as stored now; released by the caller. */
static int page_get(ant_store *s, const char *url, ant_store_page *p)
{
	lb_error err = LB_ERROR_INIT;
	char *key = key_of(url);
	int rc = ant_store_page_get(s, key, p, &err);

	free(key);
	return rc;
}

static long events(ant_store *s, const char *url)
{
	atom_db_st *st;
	long n = -1;

	if (atom_db_prepare(ant_store_db(s), "SELECT count(*) FROM ev_events WHERE url = ?", &st) != ATOM_DB_OK)
		return -1;
	atom_db_bind_text(st, 1, url, -1, ATOM_DB_STATIC);
	if (atom_db_step(st) == ATOM_DB_ROW)
		n = atom_db_column_int(st, 0);
	atom_db_finalize(st);
	return n;
}

/* The excerpt of the page's event at lm ("?" none); a static buffer. */
static const char *event_excerpt(ant_store *s, const char *url, int64_t lm)
{
	static char b[256];
	atom_db_st *st;

	snprintf(b, sizeof b, "?");
	if (atom_db_prepare(ant_store_db(s), "SELECT excerpt FROM ev_events WHERE url = ?"
			       " AND last_modified = ?", &st) != ATOM_DB_OK)
		return b;
	atom_db_bind_text(st, 1, url, -1, ATOM_DB_STATIC);
	atom_db_bind_int64(st, 2, lm);
	if (atom_db_step(st) == ATOM_DB_ROW)
		snprintf(b, sizeof b, "%s", (const char *)atom_db_column_text(st, 0));
	atom_db_finalize(st);
	return b;
}

/* The page at url is added at now, as antenna add does: added, then what
 * the sources said of it.  ant_update_recall()'s answer. */
static int add_later(ant_store *s, const char *url, int64_t now)
{
	ant_update_opts o;
	lb_error err = LB_ERROR_INIT;
	char *key = key_of(url);
	int rc;

	page_add(s, url, NULL);
	ant_update_opts_init(&o);
	o.now = now;
	rc = ant_update_recall(s, key, &o, &err);
	if (rc < 0)
		printf("# recall: %s\n", lb_error_msg(&err));
	free(key);
	return rc;
}

static int64_t source_records(ant_store *s, const char *url)
{
	ant_store_source *srcs;
	size_t n;
	int64_t c = -1;
	lb_error err = LB_ERROR_INIT;

	if (ant_store_sources_load(s, &srcs, &n, &err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(srcs[i].url, url))
			c = ant_store_srcrec_count(s, srcs[i].id, &err);
	ant_store_sources_free(srcs, n);
	return c;
}

/* What the progress callbacks saw. */
struct seen {
	unsigned pages, sources;
	char rule[32];             /* of the last page: the rule, "first check" or "" */
};

static void seen_page(void *ctx, const ant_store_page *p, const ant_detect_outcome *out)
{
	struct seen *v = ctx;

	v->pages++;
	snprintf(v->rule, sizeof v->rule, "%s",
		 !out->updated ? "" : out->rule ? out->rule : "first check");
}

static void seen_source(void *ctx, const ant_store_source *src, int notmodified)
{
	((struct seen *)ctx)->sources++;
}

static int64_t keep_records = ANT_KEEP_EVENTS;   /* of the next run */
static size_t page_batch;                         /* of the next run; 0 default */
static int64_t refetch_pause = -2;                /* of the next run, ms; -2 the default */

static int run(ant_store *s, struct fake *f, int64_t now, int force, ant_update_stats *st,
	       struct seen *v)
{
	ant_fetcher fetcher = { fake_run, f };
	ant_update_opts o;
	lb_error err = LB_ERROR_INIT;
	int rc;

	ant_update_opts_init(&o);
	o.now = now;
	o.force = force;
	o.keep_records = keep_records;
	o.page_batch = page_batch;
	if (refetch_pause > -2)
		o.refetch_pause_ms = refetch_pause;
	o.fetcher = &fetcher;
	o.on_page = seen_page;
	o.on_source = seen_source;
	o.ctx = v;
	memset(v, 0, sizeof *v);
	f->nanswered = 0;
	rc = ant_update(s, &o, st, &err);
	if (rc < 0)
		printf("# ant_update: %s\n", lb_error_msg(&err));
	return rc;
}

/* ---- the decision cycle ------------------------------------------------- */

#define PA "http://a.example/p"

static void decisions(void)
{
	char path[256];
	ant_store *s = store_new("cycle", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;

	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<title>Pa</title><p>one</p>" });
	IS_INT(run(s, &f, T0, 0, &st, &v), 0, "first run succeeds");
	OK(st.checked == 1 && st.updated == 0 && st.unchanged == 1 && st.failed == 0,
	   "first check of a new page: a quiet baseline, not counted as updated");
	IS_STR(v.rule, "", "first check: the callback sees no update");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, 0, "first check without Last-Modified: the update time is unknown, not now");
	IS_STR(p.title, "Pa", "first check: the title is the page's <title>");
	OK(p.last_error == NULL && p.st.last_ok == T0, "first check: recorded as a success");
	IS_INT(events(s, PA), 0, "first check: no update event");
	ant_store_page_release(&p);

	IS_INT(run(s, &f, T0 + 100, 0, &st, &v), 0, "a run before the page is due");
	IS_INT(st.checked, 0, "a page not due is not checked");

	IS_INT(run(s, &f, T0 + 1000, 1, &st, &v), 0, "unchanged body: run succeeds");
	OK(st.checked == 1 && st.unchanged == 1 && st.updated == 0, "unchanged body: no update");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, 0, "unchanged body: the update time stays (unknown)");
	IS_INT(p.st.last_ok, T0 + 1000, "unchanged body: the check is recorded");
	IS_INT(events(s, PA), 0, "unchanged body: no event");
	ant_store_page_release(&p);

	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<title>Pa</title><p>one</p><p>two new words</p>",
					 .etag = "\"e1\"" });
	run(s, &f, T0 + 2000, 1, &st, &v);
	IS_INT(st.updated, 1, "changed body: an update");
	IS_STR(v.rule, "text", "changed body: by the text rule");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, T0 + 2000, "changed body: updated at the check");
	IS_STR(p.st.detected_by, "text", "changed body: stored as detected by text");
	IS_STR(p.excerpt, "two new words", "changed body: the excerpt is what was added");
	IS_STR(p.etag, "\"e1\"", "changed body: the validator is kept");
	IS_INT(events(s, PA), 1, "changed body: the first real change is the first event");
	ant_store_page_release(&p);

	fake_answer(&f, (struct answer){ .url = PA, .status = 304 });
	run(s, &f, T0 + 3000, 1, &st, &v);
	IS_STR(f.sent_etag, "\"e1\"", "304: the request carried If-None-Match");
	OK(st.unchanged == 1 && st.updated == 0 && st.failed == 0, "304: not modified is unchanged");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, T0 + 2000, "304: the update time stays");
	IS_STR(p.etag, "\"e1\"", "304: without a new ETag the old one stays");
	ant_store_page_release(&p);

	/* a rebuilt static site: a new Last-Modified, the same text */
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<title>Pa</title><p>one</p><p>two new words</p>",
					 .lm_time = T0 + 3200, .date_time = T0 + 3300 });
	run(s, &f, T0 + 3300, 1, &st, &v);
	OK(st.updated == 0 && st.unchanged == 1, "newer Last-Modified on the same text: no update");

	fake_answer(&f, (struct answer){ .url = PA, .status = 200,
					 .body = "<title>Pa</title><p>one</p><p>two new words</p><p>three</p>",
					 .lm_time = T0 + 3500, .date_time = T0 + 4000 });
	run(s, &f, T0 + 4000, 1, &st, &v);
	IS_STR(v.rule, "header", "newer Last-Modified on a new text: an update by the header");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, T0 + 3500, "newer Last-Modified: dated by the header");
	OK(p.etag == NULL, "a 200 without an ETag forgets the old one");
	ant_store_page_release(&p);

	fake_answer(&f, (struct answer){ .url = PA, .status = 500 });
	run(s, &f, T0 + 5000, 1, &st, &v);
	OK(st.checked == 1 && st.failed == 1 && st.updated == 0 && st.unchanged == 0,
	   "HTTP 500: counted as failed");
	page_get(s, PA, &p);
	IS_STR(p.last_error, "HTTP status 500", "HTTP 500: the error is recorded");
	IS_INT(p.st.last_modified, T0 + 3500, "HTTP 500: the page is not saved as updated");
	OK(p.st.last_ok == T0 + 4000 && p.st.error_count == 1, "HTTP 500: last success kept, one error");
	IS_INT(events(s, PA), 2, "HTTP 500: no event");
	ant_store_page_release(&p);

	fake_answer(&f, (struct answer){ .url = PA, .status = 0, .err = ANT_FETCH_ERR_TIMEOUT, .error = "timeout after 30 s" });
	run(s, &f, T0 + 6000, 1, &st, &v);
	page_get(s, PA, &p);
	IS_STR(p.last_error, "timeout after 30 s", "transport failure: its message is recorded");
	IS_INT(p.st.error_count, 2, "transport failure: errors counted in a row");
	ant_store_page_release(&p);
	ant_store_close(s);
}

/* ---- a page and its feed: the rendezvous ------------------------------ */

#define PB "http://b.example/p"
#define FB "http://b.example/feed.atom"
#define ATOM_HEAD "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>B</title>" \
	"<link rel=\"alternate\" href=\"" PB "\"/>"   /* the feed's home: the page */

/* The page answers before its feed (reverse) or after it. */
static void rendezvous(int reverse)
{
	char path[256];
	ant_store *s = store_new(reverse ? "feed-rev" : "feed", path, sizeof path);
	struct fake f = { .reverse = reverse };
	const char *how = reverse ? "page first" : "feed first";
	ant_update_stats st;
	struct seen v;
	ant_store_page p;

	page_add(s, PB, FB);
	fake_answer(&f, (struct answer){ .url = PB, .status = 200, .body = "<title>Pb</title><p>sidebar 1</p>" });
	fake_answer(&f, (struct answer){ .url = FB, .status = 200, .body = ATOM_HEAD
		"<entry><title>Entry one</title><link href=\"http://b.example/1\"/>"
		"<updated>2023-11-14T21:00:00Z</updated></entry></feed>" });
	run(s, &f, T0, 0, &st, &v);
	IS_STR(f.order[0], reverse ? PB : FB, "%s: the fake answered in that order", how);
	OK(st.checked == 1 && st.feeds_checked == 1 && st.updated == 0,
	   "%s: one page, one feed, a quiet first check", how);
	IS_STR(v.rule, "", "%s: no update announced", how);
	page_get(s, PB, &p);
	IS_INT(p.st.last_modified, T0 - 4400, "%s: dated by the feed's newest entry", how);
	IS_STR(p.st.detected_by, "feed", "%s: by the feed", how);
	IS_INT(events(s, PB), 0, "%s: no event", how);
	ant_store_page_release(&p);

	/* a sidebar changes, the feed does not: the feed decides alone */
	fake_answer(&f, (struct answer){ .url = PB, .status = 200, .body = "<title>Pb</title><p>sidebar 2</p>" });
	run(s, &f, T0 + 1000, 1, &st, &v);
	OK(st.updated == 0 && st.unchanged == 1, "%s: a changed page with an unchanged feed is no update", how);

	fake_answer(&f, (struct answer){ .url = FB, .status = 200, .body = ATOM_HEAD
		"<entry><title>Entry two</title><link href=\"http://b.example/2\"/>"
		"<updated>2023-11-14T22:20:00Z</updated></entry></feed>" });
	run(s, &f, T0 + 2000, 1, &st, &v);
	page_get(s, PB, &p);
	OK(st.updated == 1 && p.st.last_modified == T0 + 400, "%s: a newer entry is an update at its date", how);
	/* the feed dates the change the page showed (held since T0 + 1000,
	 * the same now): the page's words say what changed, not the title */
	IS_STR(p.excerpt, "sidebar 2", "%s: the page's own change it dates is the excerpt, not the entry's title",
	       how);
	ant_store_page_release(&p);
	ant_store_close(s);
}

/* ---- sources ----------------------------------------------------------- */

#define SRC "http://peer.example/lirs"

static void lirs_source(void)
{
	char path[256], body[512];
	ant_store *s = store_new("lirs", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	ant_store_source *srcs;
	size_t n;
	lb_error err = LB_ERROR_INIT;

	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>same</p>" });
	run(s, &f, T0, 0, &st, &v);   /* first check: due again at T0 + 300 */
	snprintf(body, sizeof body,
		 "LIRS,%d,%d,32400,1000," PA ",Relayed title,Peer,0,\n"
		 "LIRS,%d,%d,32400,1000,http://unwatched.example/,Other,Peer,0,\n"
		 "LIRS,notanumber,%d,32400,1000," PA ",Bad,Peer,0,\n",
		 T0 + 150, T0 + 180, T0 + 150, T0 + 180, T0 + 180);
	source_add(s, SRC, ANT_STORE_SOURCE_LIRS);
	fake_answer(&f, (struct answer){ .url = SRC, .status = 200, .body = body });
	IS_INT(run(s, &f, T0 + 200, 0, &st, &v), 0, "LIRS source: run succeeds");
	OK(st.sources == 1 && st.sources_failed == 0 && st.atom_sources == 0, "LIRS source: read");
	OK(st.records_read == 3 && st.records_merged == 0 && st.records_ignored == 1 &&
	   st.records_skipped == 1, "LIRS source: 3 records, 0 merged (a hint), 1 not watched, 1 skipped");
	IS_INT(v.sources, 1, "LIRS source: the callback saw it");
	IS_INT(st.checked, 1, "LIRS source: the hinted page, not due, is checked in the same run");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, 0, "LIRS source: our check found it unchanged: the source does not date it");
	OK(p.st.detected_by == NULL, "LIRS source: not detected by lirs");
	IS_STR(p.source_url, PA, "LIRS source: the source is not credited");
	IS_INT(p.st.recheck, 0, "LIRS source: the recheck was done");
	IS_INT(events(s, PA), 0, "LIRS source: a hint is no event");
	ant_store_page_release(&p);
	ant_store_sources_load(s, &srcs, &n, &err);
	OK(n == 1 && srcs[0].last_ok == T0 + 200 && srcs[0].last_error == NULL &&
	   srcs[0].records_merged == 0, "LIRS source: its state is saved");
	ant_store_sources_free(srcs, n);

	/* a page we cannot check (its check fails) takes the source's date,
	 * never after our clock */
	fake_answer(&f, (struct answer){ .url = PA, .status = 500 });
	run(s, &f, T0 + 2000, 1, &st, &v);
	snprintf(body, sizeof body, "LIRS,%d,%d,32400,1000," PA ",Relayed title,Peer,0,\n",
		 T0 + 3000, T0 + 3000);
	fake_answer(&f, (struct answer){ .url = SRC, .status = 200, .body = body });
	run(s, &f, T0 + 2500, 0, &st, &v);
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, T0 + 2500, "LIRS source: a failing page takes its date, clamped to our clock");
	IS_STR(p.st.detected_by, "lirs", "LIRS source: detected by lirs");
	IS_STR(p.source_url, SRC, "LIRS source: the source is credited");
	IS_INT(events(s, PA), 1, "LIRS source: that date is an event");
	ant_store_page_release(&p);

	fake_answer(&f, (struct answer){ .url = SRC, .status = 404 });
	run(s, &f, T0 + 2000, 0, &st, &v);
	ant_store_sources_load(s, &srcs, &n, &err);
	OK(st.sources_failed == 1 && n == 1 && srcs[0].last_error &&
	   !strcmp(srcs[0].last_error, "HTTP status 404"), "LIRS source: a 404 is recorded with it");
	ant_store_sources_free(srcs, n);
	ant_store_close(s);
}

#define ASRC "http://peer.example/index.atom"
#define AARC "http://peer.example/archive-1.atom"

static void atom_source(void)
{
	char path[256];
	ant_store *s = store_new("atom", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;

	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>same</p>" });
	run(s, &f, T0, 0, &st, &v);
	source_add(s, ASRC, ANT_STORE_SOURCE_ATOM);
	fake_answer(&f, (struct answer){ .url = ASRC, .status = 200, .body = ATOM_HEAD
		"<link rel=\"prev-archive\" href=\"archive-1.atom\"/>"
		"<entry><title>Relayed</title><link href=\"" PA "\"/>"
		"<summary>What  the peer\nsaw</summary>"
		"<updated>2023-11-14T22:20:00Z</updated></entry></feed>" });
	fake_answer(&f, (struct answer){ .url = AARC, .status = 200, .body = ATOM_HEAD
		"<entry><title>Older</title><link href=\"" PA "\"/>"
		"<updated>2023-11-14T20:00:00Z</updated></entry></feed>" });
	run(s, &f, T0 + 1000, 0, &st, &v);
	OK(st.sources == 1 && st.atom_sources == 1 && st.archives_read == 1, "Atom source: read with one archive");
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, 0, "Atom source: an entry of a page we check is a hint, not its date");
	IS_INT(st.checked, 1, "Atom source: the hinted page is checked in the same run");
	IS_INT(events(s, PA), 2, "Atom source: each entry of a believed source is an event, its history");
	ant_store_page_release(&p);
	/* its check fails: the source's newest entry dates it */
	fake_answer(&f, (struct answer){ .url = PA, .status = 503 });
	run(s, &f, T0 + 1500, 1, &st, &v);
	fake_answer(&f, (struct answer){ .url = ASRC, .status = 200, .body = ATOM_HEAD
		"<link rel=\"prev-archive\" href=\"archive-1.atom\"/>"
		"<entry><title>Relayed</title><link href=\"" PA "\"/>"
		"<summary>What  the peer\nsaw</summary>"
		"<updated>2023-11-14T22:30:00Z</updated></entry></feed>" });
	run(s, &f, T0 + 2000, 0, &st, &v);
	page_get(s, PA, &p);
	IS_INT(p.st.last_modified, T0 + 1000, "Atom source: a failing page takes the entry's date");
	IS_STR(p.st.detected_by, "atom", "Atom source: detected by atom");
	IS_STR(p.excerpt, "What the peer saw", "Atom source: the entry's summary is the excerpt");
	IS_STR(event_excerpt(s, PA, T0 + 1000), "What the peer saw",
	       "Atom source: and the event's summary");
	ant_store_page_release(&p);
	OK(st.archives_read == 0 && fake_find(&f, AARC)->hits == 1,
	   "Atom source: an archive read before is not fetched again");
	run(s, &f, T0 + 2100, 0, &st, &v);
	IS_INT(events(s, PA), 3, "Atom source: nothing doubles (three entries)");
	ant_store_close(s);
}

/* ---- sources remember: a page added later gets its update ---------------- */

#define NREM 10

/* The case: an Atom source read first, ten pages added after; the
 * entries of eight of them sat in an archive, read once. */
static void remember_atom(void)
{
	static char urls[NREM][40];
	char path[256], doc[2048], arc[4096], *d = doc, *a = arc;
	ant_store *s = store_new("remember-atom", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	int got = 0, marked = 0, credited = 0, summed = 0, evs = 0;

	source_add(s, ASRC, ANT_STORE_SOURCE_ATOM);
	d += sprintf(d, ATOM_HEAD "<link rel=\"prev-archive\" href=\"archive-1.atom\"/>");
	a += sprintf(a, ATOM_HEAD);
	for (int i = 0; i < NREM; i++) {
		snprintf(urls[i], sizeof urls[i], "http://r.example/%d", i);
		char **w = i < 2 ? &d : &a;
		*w += sprintf(*w, "<entry><title>T%d</title><link href=\"%s\"/>"
			      "<summary>news %d</summary><updated>2023-11-14T%02d:00:00Z</updated></entry>",
			      i, urls[i], i, 10 + i);
	}
	sprintf(d, "</feed>");
	sprintf(a, "</feed>");
	fake_answer(&f, (struct answer){ .url = ASRC, .status = 200, .body = doc });
	fake_answer(&f, (struct answer){ .url = AARC, .status = 200, .body = arc });
	run(s, &f, T0, 0, &st, &v);
	OK(st.archives_read == 1 && st.records_read == NREM && st.records_ignored == NREM,
	   "remember: the Atom source read, no page watched yet (%lld entries)", (long long)st.records_read);
	IS_INT(source_records(s, ASRC), NREM, "remember: one record per URL kept");
	for (int i = 0; i < NREM; i++) {
		char want[32];
		int64_t lm = 1699956000 + 3600 * i;   /* 2023-11-14T10:00:00Z + i h */
		got += add_later(s, urls[i], T0 + 100) == 1;
		page_get(s, urls[i], &p);
		snprintf(want, sizeof want, "news %d", i);
		marked += p.st.last_modified == lm && p.st.detected_by && !strcmp(p.st.detected_by, "atom");
		credited += !strcmp(p.source_url, ASRC);
		summed += !strcmp(p.excerpt, want);
		evs += events(s, urls[i]) == 1 && !strcmp(event_excerpt(s, urls[i], lm), want);
		ant_store_page_release(&p);
	}
	IS_INT(got, NREM, "remember: all ten pages added later get their update");
	IS_INT(marked, NREM, "remember: at the entry's date, marked atom");
	IS_INT(credited, NREM, "remember: credited to the source");
	IS_INT(summed, NREM, "remember: the entry's summary is the page's excerpt");
	IS_INT(evs, NREM, "remember: one update event each, with the summary");
	page_get(s, urls[3], &p);
	IS_STR(p.title, "T3", "remember: the entry's title fills an unknown title");
	ant_store_page_release(&p);

	/* the first check of a page with a relayed update keeps it */
	for (int i = 0; i < NREM; i++)
		fake_answer(&f, (struct answer){ .url = urls[i], .status = 200, .body = "<p>x</p>" });
	run(s, &f, T0 + 200, 0, &st, &v);
	page_get(s, urls[9], &p);
	OK(st.checked == NREM && p.st.last_modified == 1699956000 + 3600 * 9,
	   "remember: their first own check keeps the relayed update");
	ant_store_page_release(&p);
	IS_INT(add_later(s, urls[0], T0 + 300), 0, "remember: nothing for a page already watched");

	/* bounded: an Atom source keeps its newest keep_records */
	keep_records = 3;
	run(s, &f, T0 + 400, 0, &st, &v);
	keep_records = ANT_KEEP_EVENTS;
	IS_INT(source_records(s, ASRC), 3, "remember: an Atom source keeps the history retention's count");
	ant_store_close(s);
}

#define RL "http://later.example/p"

static void remember_lirs(void)
{
	char path[256], body[512];
	ant_store *s = store_new("remember-lirs", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;

	source_add(s, SRC, ANT_STORE_SOURCE_LIRS);
	snprintf(body, sizeof body,
		 "LIRS,%d,%d,32400,1000," RL ",Later title,Peer,0,\n"
		 "LIRS,%d,%d,32400,1000," PB ",B title,Peer,0,\n",
		 T0 - 500, T0 - 100, T0 - 700, T0 - 600);
	fake_answer(&f, (struct answer){ .url = SRC, .status = 200, .body = body });
	run(s, &f, T0, 0, &st, &v);
	IS_INT(source_records(s, SRC), 2, "remember LIRS: the records are kept");
	IS_INT(add_later(s, RL, T0 + 60), 1, "remember LIRS: a page added later gets the update");
	page_get(s, RL, &p);
	OK(p.st.last_modified == T0 - 500 && p.st.last_detected == T0 - 100 &&
	   !strcmp(p.st.detected_by, "lirs") && !strcmp(p.source_url, SRC) &&
	   !strcmp(p.title, "Later title") && !strcmp(p.excerpt, ""),
	   "remember LIRS: its times, mark lirs, the source, the title");
	IS_INT(events(s, RL), 1, "remember LIRS: an update event");
	ant_store_page_release(&p);

	/* the 8-hour rule: last detected more than max_age before the add */
	IS_INT(add_later(s, PB, T0 - 600 + LIRS_DEFAULT_MAX_AGE + 1), 0,
	       "remember LIRS: a record older than 8 hours is not applied");
	page_get(s, PB, &p);
	OK(p.st.last_modified == 0 && events(s, PB) == 0, "remember LIRS: the page has no update");
	ant_store_page_release(&p);

	/* bounded: read again later, records older than 8 hours go */
	snprintf(body, sizeof body, "LIRS,%d,%d,32400,1000,http://new.example/,N,Peer,0,\n",
		 T0 + 28000, T0 + 28000);
	fake_answer(&f, (struct answer){ .url = SRC, .status = 200, .body = body });
	run(s, &f, T0 - 600 + LIRS_DEFAULT_MAX_AGE + 1, 0, &st, &v);
	IS_INT(source_records(s, SRC), 2, "remember LIRS: pruned by the 8-hour rule when read (2 of 3 left)");
	run(s, &f, T0 - 100 + LIRS_DEFAULT_MAX_AGE + 1, 0, &st, &v);
	IS_INT(source_records(s, SRC), 1, "remember LIRS: ...and the next one when its 8 hours are over");
	ant_store_close(s);
}


/* ---- relay sources ('add --relay'): the hub ------------------------------- */

#define RSRC "http://shard1.example/lirs.gz"
#define RSRC2 "http://shard2.example/lirs.gz"
#define RU1 "http://far.example/1"
#define RU2 "http://far.example/2"

static void relay_source_add(ant_store *s, const char *url, int kind)
{
	source_add_as(s, url, kind, 1);
}

/* What the store holds of url from the source at src_url. */
struct held { const char *src; char title[64], author[64]; int64_t length, lm, ld; int found; };

static int held_one(void *ctx, const ant_store_srcrec *r)
{
	struct held *h = ctx;

	if (strcmp(r->source_url, h->src))
		return 0;
	snprintf(h->title, sizeof h->title, "%s", r->title);
	snprintf(h->author, sizeof h->author, "%s", r->author);
	h->length = r->content_length;
	h->lm = r->last_modified;
	h->ld = r->last_detected;
	h->found = 1;
	return 1;
}

static struct held held_of(ant_store *s, const char *src, const char *url)
{
	struct held h = { .src = src };
	char *key = key_of(url);

	ant_store_srcrec_each(s, key, held_one, &h, NULL);
	free(key);
	return h;
}

static void relay_source(void)
{
	char path[256], body[1024], body2[256];   /* the fake keeps pointers to both */
	ant_store *s = store_new("relay", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	ant_store_source *srcs;
	size_t n;
	lb_error err = LB_ERROR_INIT;
	struct held h;

	/* a page checked here, its own update at T0 (Last-Modified) */
	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>same</p>",
					 .lm_time = T0 - 50 });
	run(s, &f, T0, 0, &st, &v);
	page_get(s, PA, &p);
	int64_t own = p.st.last_modified;
	ant_store_page_release(&p);

	relay_source_add(s, RSRC, ANT_STORE_SOURCE_LIRS);
	snprintf(body, sizeof body,
		 "LIRS,%d,%d,32400,1234," RU1 ",Far one,Writer\\, A,0,\n"
		 "LIRS,%d,%d,32400,99," RU2 ",Far two,B,0,\n"
		 "LIRS,%lld,%d,32400,5," PA ",Older news,C,0,\n",
		 T0 + 10, T0 + 20, T0 + 11, T0 + 21, (long long)own - 1000, T0 + 22);
	fake_answer(&f, (struct answer){ .url = RSRC, .status = 200, .body = body });
	IS_INT(run(s, &f, T0 + 100, 0, &st, &v), 0, "relay: run succeeds");
	OK(st.records_read == 3 && st.records_relayed == 2 && st.records_ignored == 0 &&
	   st.records_merged == 0, "relay: 3 records, 2 relayed, none 'not watched', none merged");
	h = held_of(s, RSRC, RU1);
	OK(h.found && !strcmp(h.author, "Writer, A") && h.length == 1234 && h.lm == T0 + 10,
	   "relay: the record keeps its author and Content-Length");
	OK(events(s, RU1) == 0 && events(s, RU2) == 0,
	   "relay: a source's first read is a baseline: no update events");
	page_get(s, PA, &p);
	OK(p.st.last_modified == own && !strcmp(p.source_url, PA),
	   "relay: a page checked here keeps its own newer update");
	ant_store_page_release(&p);
	ant_store_sources_load(s, &srcs, &n, &err);
	OK(n == 1 && srcs[0].relay == 1 && srcs[0].records_ignored == 2,
	   "relay: the source's relayed count is saved");
	ant_store_sources_free(srcs, n);

	/* the next read: RU1 updated, RU2 as before, PA newer than ours */
	snprintf(body, sizeof body,
		 "LIRS,%d,%d,32400,1300," RU1 ",Far one,Writer\\, A,0,\n"
		 "LIRS,%d,%d,32400,99," RU2 ",Far two,B,0,\n"
		 "LIRS,%lld,%d,32400,5," PA ",Newer news,C,0,\n",
		 T0 + 500, T0 + 510, T0 + 11, T0 + 600, (long long)own + 100, T0 + 600);
	fake_answer(&f, (struct answer){ .url = RSRC, .status = 200, .body = body });
	run(s, &f, T0 + 700, 0, &st, &v);
	h = held_of(s, RSRC, RU1);
	OK(h.found && h.lm == T0 + 500 && h.ld == T0 + 510 && h.length == 1300,
	   "relay: the newer record replaced the older one in the store (lm %+lld)",
	   (long long)(h.lm - T0));
	IS_INT(events(s, RU1), 1, "relay: a relayed page's news is an update event");
	IS_INT(events(s, RU2), 0, "relay: ...and a record as before is none");
	page_get(s, PA, &p);
	OK(p.st.last_modified == own && !strcmp(p.source_url, PA) && p.st.last_check == T0 + 700,
	   "relay: its newer news of a watched page is a hint: checked now, not dated by it");
	ant_store_page_release(&p);

	/* a second shard naming the same update: still one event */
	relay_source_add(s, RSRC2, ANT_STORE_SOURCE_LIRS);
	snprintf(body2, sizeof body2, "LIRS,%d,%d,32400,1,http://far.example/3,T,A,0,\n", T0 + 5, T0 + 6);
	fake_answer(&f, (struct answer){ .url = RSRC2, .status = 200, .body = body2 });
	run(s, &f, T0 + 800, 0, &st, &v);
	snprintf(body2, sizeof body2, "LIRS,%d,%d,32400,1300," RU1 ",Far one,A,0,\n", T0 + 500, T0 + 520);
	run(s, &f, T0 + 900, 0, &st, &v);
	IS_INT(events(s, RU1), 1, "relay: an update two relay sources name is one event");

	/* an Atom relay source: its entries are relayed pages too */
	relay_source_add(s, ASRC, ANT_STORE_SOURCE_ATOM);
	fake_answer(&f, (struct answer){ .url = ASRC, .status = 200, .body = ATOM_HEAD
		"<entry><title>Far four</title><link href=\"http://far.example/4\"/>"
		"<updated>2023-11-14T22:20:00Z</updated></entry></feed>" });
	run(s, &f, T0 + 1000, 0, &st, &v);
	/* "relayed" counts pages: RSRC's 2, RSRC2's 2 (far/3 from its first
	 * body is still fresh, and published), ASRC's 1 */
	OK(st.records_relayed == 2 + 2 + 1 && held_of(s, ASRC, "http://far.example/4").found,
	   "relay: an Atom relay source's entry is relayed");
	/* read again: a newer entry is news; an older one for a page not
	 * seen before (history, an archive's) is not */
	fake_answer(&f, (struct answer){ .url = ASRC, .status = 200, .body = ATOM_HEAD
		"<entry><title>Far four</title><link href=\"http://far.example/4\"/>"
		"<updated>2023-11-14T22:30:00Z</updated></entry>"
		"<entry><title>Far five</title><link href=\"http://far.example/5\"/>"
		"<updated>2023-11-14T21:00:00Z</updated></entry></feed>" });
	run(s, &f, T0 + 1100, 0, &st, &v);
	IS_INT(events(s, "http://far.example/4"), 1, "relay: an Atom relay source's newer entry is news");
	OK(events(s, "http://far.example/5") == 0 && held_of(s, ASRC, "http://far.example/5").found,
	   "relay: an entry older than the newest read before is relayed, not news");

	/* removed: its records go with it */
	{
		char *key = key_of(RSRC);
		IS_INT(ant_store_source_remove(s, key, &err), 1, "relay: the source is removed");
		free(key);
	}
	OK(!held_of(s, RSRC, RU1).found && held_of(s, RSRC2, RU1).found,
	   "relay: ...with its records, not another source's");
	ant_store_close(s);
}

/* ---- a source's newer record replaces its older one ----------------------- */

#define NR "http://newer.example/p"

/* The record of NR in a LIRS body (the fake keeps a pointer to b). */
static void record_of(char *b, size_t n, int64_t lm, int64_t ld, int length, const char *title)
{
	snprintf(b, n, "LIRS,%lld,%lld,32400,%d," NR ",%s,%s author,0,\n", (long long)lm,
		 (long long)ld, length, title, title);
}

/* What the store holds of a URL no page watches here (kept for a page
 * added later): each read of the source keeps its newest record. */
static void newer_record(void)
{
	char path[256], body[256];
	ant_store *s = store_new("newer", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	struct held h;

	source_add(s, SRC, ANT_STORE_SOURCE_LIRS);
	fake_answer(&f, (struct answer){ .url = SRC, .status = 200, .body = body });
	record_of(body, sizeof body, T0 - 900, T0 - 800, 100, "Old");
	run(s, &f, T0, 0, &st, &v);
	h = held_of(s, SRC, NR);
	OK(h.found && h.lm == T0 - 900 && !strcmp(h.title, "Old"), "newer record: the first read's is held");
	record_of(body, sizeof body, T0 - 50, T0 - 40, 200, "New");
	run(s, &f, T0 + 100, 0, &st, &v);
	h = held_of(s, SRC, NR);
	OK(h.found && h.lm == T0 - 50 && h.ld == T0 - 40 && h.length == 200 &&
	   !strcmp(h.title, "New") && !strcmp(h.author, "New author"),
	   "newer record: the second read's newer record replaced the older one (lm %+lld, '%s')",
	   (long long)(h.lm - T0), h.title);
	record_of(body, sizeof body, T0 - 50, T0 - 10, 300, "Later");
	run(s, &f, T0 + 200, 0, &st, &v);
	h = held_of(s, SRC, NR);
	OK(h.lm == T0 - 50 && h.ld == T0 - 10 && !strcmp(h.title, "Later"),
	   "newer record: the same update detected later replaces it too");
	record_of(body, sizeof body, T0 - 700, T0 - 5, 400, "Stale");
	run(s, &f, T0 + 300, 0, &st, &v);
	h = held_of(s, SRC, NR);
	OK(h.lm == T0 - 50 && !strcmp(h.title, "Later") && source_records(s, SRC) == 1,
	   "newer record: an older record replaces nothing; one record per URL");
	ant_store_close(s);
}

/* ---- the URL limit on a relay source's records ----------------------------- */

/* ant_limits.h: ANT_MAX_URL, written out so that a changed limit shows. */
#define URL_LIMIT 8000

/* A URL of n bytes: prefix, then 'x' up to n. */
static char *url_of(const char *prefix, size_t n)
{
	char *u = malloc(n + 1);
	size_t k = strlen(prefix);

	memcpy(u, prefix, k);
	memset(u + k, 'x', n - k);
	u[n] = '\0';
	return u;
}

static void relay_url_limit(void)
{
	char path[256];
	ant_store *s = store_new("url-limit", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	char *at = url_of("http://long.example/at/", URL_LIMIT);
	char *over = url_of("http://long.example/over/", URL_LIMIT + 1);
	size_t n = 2 * URL_LIMIT + 256;
	char *body = malloc(n);

	snprintf(body, n, "LIRS,%d,%d,32400,1,%s,At,A,0,\nLIRS,%d,%d,32400,1,%s,Over,A,0,\n",
		 T0 - 60, T0 - 50, at, T0 - 60, T0 - 50, over);
	relay_source_add(s, RSRC, ANT_STORE_SOURCE_LIRS);
	fake_answer(&f, (struct answer){ .url = RSRC, .status = 200, .body = body });
	run(s, &f, T0, 0, &st, &v);
	OK(st.records_read == 2 && st.records_skipped == 1 && st.records_relayed == 1,
	   "URL limit: of %d and %d bytes, one relayed, one skipped (%lld relayed, %lld skipped)",
	   URL_LIMIT, URL_LIMIT + 1, (long long)st.records_relayed, (long long)st.records_skipped);
	OK(held_of(s, RSRC, at).found, "URL limit: a record whose URL is %d bytes is kept", URL_LIMIT);
	OK(!held_of(s, RSRC, over).found, "URL limit: one of %d bytes is not", URL_LIMIT + 1);
	free(at);
	free(over);
	free(body);
	ant_store_close(s);
}

/* ---- two updates of a page in one second ------------------------------- */

static void same_second(void)
{
	char path[256];
	ant_store *s = store_new("second", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	atom_evstore *ev;
	lb_error err = LB_ERROR_INIT;

	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>one</p>" });
	run(s, &f, T0, 0, &st, &v);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>one</p><p>two</p>" });
	run(s, &f, T0 + 1000, 1, &st, &v);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>one</p><p>two</p><p>three</p>" });
	run(s, &f, T0 + 1000, 1, &st, &v);
	IS_INT(st.updated, 1, "same second: the second update is one");
	page_get(s, PA, &p);
	IS_STR(p.excerpt, "three", "same second: the page has the latest excerpt");
	IS_STR(event_excerpt(s, PA, T0 + 1000), "three", "same second: so has its event");
	IS_INT(events(s, PA), 1, "same second: still one event for that second");
	ant_store_page_release(&p);

	/* sealed in an archive: its entry never changes */
	if (atom_evstore_attach(&ev, ant_store_db(s), &err) == 0) {
		atom_evstore_seal(ev, 1, "t", "a", NULL, &err);
		atom_evstore_close(ev);
	}
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>four</p>" });
	run(s, &f, T0 + 1000, 1, &st, &v);
	page_get(s, PA, &p);
	OK(st.updated == 1 && !strcmp(p.excerpt, "four"), "same second, sealed: the page has the latest");
	IS_STR(event_excerpt(s, PA, T0 + 1000), "three", "same second, sealed: the archived entry stays");
	ant_store_page_release(&p);
	ant_store_close(s);
}

/* ---- many pages: batched transactions --------------------------------- */

/* ant_store_pages_each: the pages checked at T0 (a first check: a
 * baseline, the time unknown) */
static int count_fresh(void *ctx, const ant_store_page *p)
{
	*(size_t *)ctx += p->st.last_ok == T0 && p->st.last_modified == 0;
	return 0;
}

static void batching(void)
{
	static char urls[NMANY][40], bodies[NMANY][40];
	char path[256];
	ant_store *s = store_new("many", path, sizeof path);
	struct fake *f = calloc(1, sizeof *f);
	ant_update_stats st;
	struct seen v;
	size_t fresh = 0;
	lb_error err = LB_ERROR_INIT;

	for (int i = 0; i < NMANY; i++) {
		snprintf(urls[i], sizeof urls[i], "http://m.example/%03d", i);
		snprintf(bodies[i], sizeof bodies[i], "<p>page %d</p>", i);
		page_add(s, urls[i], NULL);
		fake_answer(f, (struct answer){ .url = urls[i], .status = 200, .body = bodies[i] });
	}
	f->probe_db = path;
	f->probe_at = ANT_UPDATE_BATCH + 36;
	f->probe_now = T0;
	IS_INT(run(s, f, T0, 0, &st, &v), 0, "many pages: run succeeds");
	IS_INT(st.checked, NMANY, "many pages: all checked");
	IS_INT(f->aside, NMANY, "many pages: every page's check asked of fetch's helper thread");
	IS_INT(f->probe_seen, ANT_UPDATE_BATCH, "many pages: after a batch and 36 checks, the batch is committed");
	ant_store_pages_each(s, count_fresh, &fresh, &err);
	IS_INT(fresh, NMANY, "many pages: every one saved");
	IS_INT(committed(path, T0), NMANY, "many pages: all committed when the run returns");
	free(f);
	ant_store_close(s);
}

/* ---- streamed batches (hub scale) -------------------------------------- */

static void set_next_check(const char *db, const char *url, int64_t t)
{
	atom_db *c;
	atom_db_st *st;

	if (probe_open(db, &c, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) == ATOM_DB_OK &&
	    atom_db_prepare(c, "UPDATE pages SET next_check = ? WHERE url = ?", &st) == ATOM_DB_OK) {
		atom_db_bind_int64(st, 1, t);
		atom_db_bind_text(st, 2, url, -1, ATOM_DB_STATIC);
		atom_db_step(st);
		atom_db_finalize(st);
	}
	atom_db_close(c);
}

/* The earliest next_check of the store's pages, read back. */
static int64_t first_due(ant_store *s)
{
	atom_db_st *st;
	int64_t t = -1;

	if (atom_db_prepare(ant_store_db(s), "SELECT min(next_check) FROM pages", &st) != ATOM_DB_OK)
		return -1;
	if (atom_db_step(st) == ATOM_DB_ROW)
		t = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return t;
}

/* 10 pages read 3 at a time: the due ones only, a record of a source
 * relayed into a page of a later batch, the counts from SQL, and each
 * batch committed before the next is fetched. */
static void streamed(void)
{
	static char urls[10][40];
	char path[256], body[256];
	ant_store *s = store_new("streamed", path, sizeof path);
	struct fake *f = calloc(1, sizeof *f);
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	int later = 0;

	for (int i = 0; i < 10; i++) {
		snprintf(urls[i], sizeof urls[i], "http://b.example/%d", i);
		page_add(s, urls[i], NULL);
		fake_answer(f, (struct answer){ .url = urls[i], .status = 200, .body = "<p>same</p>" });
	}
	page_batch = 3;
	IS_INT(run(s, f, T0, 0, &st, &v), 0, "batches: the first run succeeds");
	OK(st.checked == 10 && st.pages == 10, "batches: 10 pages in 4 batches of 3, all checked");
	IS_INT(st.next_due, first_due(s), "batches: next_due is the earliest next_check");
	OK(st.next_due > T0, "batches: after a run, nothing is due now");
	/* due at T0 + 200: pages 0, 3, 4 (one batch), 7, and 8 through a
	 * record of a LIRS source (the second batch) */
	set_next_check(path, urls[0], T0 + 10);
	set_next_check(path, urls[3], T0 + 10);
	set_next_check(path, urls[4], T0 + 10);
	set_next_check(path, urls[7], T0 + 10);
	snprintf(body, sizeof body, "LIRS,%d,%d,32400,1000,%s,Relayed,Peer,0,\n", T0 + 150, T0 + 180,
		 urls[8]);
	source_add(s, SRC, ANT_STORE_SOURCE_LIRS);
	fake_answer(f, (struct answer){ .url = SRC, .status = 200, .body = body });
	f->probe_db = path;
	f->probe_at = 5;   /* the source, the first batch's 3, the second's first */
	f->probe_now = T0 + 200;
	IS_INT(run(s, f, T0 + 200, 0, &st, &v), 0, "batches: the second run succeeds");
	OK(st.checked == 5 && st.records_merged == 0, "batches: the 5 due pages checked, one hinted");
	IS_INT(f->probe_seen, 3, "batches: the first batch is committed before the second is fetched");
	IS_INT(st.pages, 10, "batches: pages counted by SQL");
	IS_INT(st.next_due, first_due(s) > T0 + 200 ? first_due(s) : T0 + 200, "batches: next_due from SQL");
	page_get(s, urls[8], &p);
	OK(p.st.last_modified != T0 + 150 && p.st.last_check == T0 + 200 && p.st.recheck == 0,
	   "batches: the hinted page is checked in its later batch, not dated by the source");
	ant_store_page_release(&p);
	for (int i = 0; i < 10; i++) {
		page_get(s, urls[i], &p);
		later += p.st.last_check == T0 + 200;
		ant_store_page_release(&p);
	}
	IS_INT(later, 5, "batches: pages not due are not checked");
	IS_INT(committed(path, T0 + 200), 5, "batches: all committed when the run returns");
	page_batch = 0;
	free(f);
	ant_store_close(s);
}

/* ---- the run's own failures ------------------------------------------- */

static void setup_failure(void)
{
	char path[256];
	ant_store *s = store_new("fail", path, sizeof path);
	struct fake f = { .fail_setup = 1 };
	ant_fetcher fetcher = { fake_run, &f };
	ant_update_opts o;
	lb_error err = LB_ERROR_INIT;

	page_add(s, PA, NULL);
	ant_update_opts_init(&o);
	o.now = T0;
	o.fetcher = &fetcher;
	IS_INT(ant_update(s, &o, NULL, &err), LB_ENET, "transfers not set up: LB_ENET");
	IS_STR(lb_error_msg(&err), "cannot set up transfers", "transfers not set up: the message");
	ant_store_close(s);
}

/* Another process holds the run lock: the run does not start. */
static void lock_held(void)
{
	char path[256];
	ant_store *s = store_new("locked", path, sizeof path);
	struct fake f = { 0 };
	ant_fetcher fetcher = { fake_run, &f };
	ant_update_opts o;
	lb_error err = LB_ERROR_INIT;
	ant_store_page p;
	int ready[2], done[2];
	pid_t pid;
	char c;

	page_add(s, PA, NULL);
	fake_answer(&f, (struct answer){ .url = PA, .status = 200, .body = "<p>x</p>" });
	TAP_FLUSH();
	if (pipe(ready) < 0 || pipe(done) < 0 || (pid = fork()) < 0)
		return;
	if (pid == 0) {   /* the other run: holds the lock until told */
		ant_store *t;
		if (ant_store_open(&t, path, ANT_STORE_OPEN_EXISTING, NULL) < 0 ||
		    ant_store_lock(t, 0, NULL) < 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	OK(read(ready[0], &c, 1) == 1, "lock: another process holds it");
	ant_update_opts_init(&o);
	o.now = T0;
	o.lock_wait = 0;
	o.fetcher = &fetcher;
	IS_INT(ant_update(s, &o, NULL, &err), LB_EBUSY, "lock held: LB_EBUSY");
	OK(strstr(lb_error_msg(&err), "holds the lock") != NULL, "lock held: the message says so");
	IS_INT(f.requests, 0, "lock held: nothing fetched");
	page_get(s, PA, &p);
	IS_INT(p.st.last_ok, 0, "lock held: nothing saved");
	ant_store_page_release(&p);
	if (write(done[1], "x", 1) != 1)
		return;
	waitpid(pid, NULL, 0);
	ant_store_close(s);
}

/* ---- holds that resolve, sources that date (data: one row a run) ----------
 * A page's answer at each run (status 304 is an answer to our conditional
 * request: the page as it was), what a LIRS source says of it then (NULL:
 * no source yet, "" the same file again), and what must follow: the
 * page's update events so far, its update time (0 unknown) and rule. */
#define PH "http://h.example/p"
#define SRCH "http://peer.example/h.lirs"
#define P120 "<p>今日の価格は120円です。</p><p>ほかの話題がいくつか並んでいる長い段落です。</p>"
#define P150 "<p>今日の価格は150円です。</p><p>ほかの話題がいくつか並んでいる長い段落です。</p>"
#define PC(n) "<p>本日の来場者は" n "人でした。</p><p>ほかの話題がいくつか並んでいる長い段落です。</p>"
struct hold_step {
	int64_t at;                /* seconds after T0 */
	long status;
	const char *body;
	int64_t lm;                /* the page's Last-Modified, after T0; 0 none */
	int64_t src_lm;            /* the source's record of the page, after T0; 0 none */
	long events;
	int64_t want_lm;           /* after T0; -1: 0 (unknown) */
	const char *want_by;
	const char *why;
	const char *excerpt;       /* the event's excerpt at want_lm holds it; NULL: not asked */
};
struct hold_case {
	const char *name;
	struct hold_step step[5];
};
static const struct hold_case hold_cases[] = {
	{ "a price edited, then 304s", {
		{ 0, 200, P120, 0, 0, 0, -1, NULL, "baseline: quiet", NULL },
		{ 3600, 200, P150, 0, 0, 0, -1, NULL, "the first number change after the first check is held", NULL },
		{ 7200, 304, NULL, 0, 0, 1, 3600, "text", "a 304 still shows it: announced, dated when first seen, the held text its excerpt",
		  "150円" },
		{ 10800, 304, NULL, 0, 0, 1, 3600, "text", "another 304: nothing more", NULL } } },
	{ "a new Last-Modified on the same text", {
		{ 0, 200, P120, -500, 0, 0, -500, "header", "baseline dated by its header", NULL },
		{ 3600, 200, P120, 3500, 0, 0, -500, "header", "a rebuild: no update", NULL },
		{ 7200, 200, P150, 7100, 0, 1, 7100, "header",
		  "a number changed on a page that held still (the rebuild found it as before): announced at once, the header dates it",
		  "150円" },
		{ 10800, 304, NULL, 0, 0, 1, 7100, "header", "a 304: nothing more", NULL } } },
	{ "a number changed after a first check that moved", {
		{ 0, 200, P120, -500, 0, 0, -500, "header", "baseline dated by its header", NULL },
		{ 3600, 200, P150, 3500, 0, 0, -500, "header", "the first check after the baseline: no still check yet, held", NULL },
		{ 7200, 200, P150, 3500, 0, 1, 3600, "text", "the next answer still shows it: announced, dated when first seen", NULL } } },
	/* a page rebuilt by a cron job (statistics, a static export): its
	 * Last-Modified is the rebuild's, so it moves with whatever the build
	 * moved; dated after our last check, it claims no edit of the words */
	{ "a count rebuilt with its page", {
		{ 0, 200, PC("12"), -500, 0, 0, -500, "header", "baseline dated by its header", NULL },
		{ 3600, 200, PC("13"), 3500, 0, 0, -500, "header",
		  "the count moved with a new Last-Modified: held, the header dates the rebuild, not an edit", NULL },
		{ 7200, 200, PC("14"), 7100, 0, 0, -500, "header", "it moved again: a counter, never announced", NULL },
		{ 10800, 200, PC("15"), 10700, 0, 0, -500, "header", "and again: nothing", NULL } } },
	{ "two numbers changed on a page that held still", {
		{ 0, 200, P120 "<p>本日の来場者は12人でした。</p>", 0, 0, 0, -1, NULL, "baseline", NULL },
		{ 3600, 200, P120 "<p>本日の来場者は12人でした。</p>", 0, 0, 0, -1, NULL, "the same: the page held still", NULL },
		{ 7200, 200, P150 "<p>本日の来場者は13人でした。</p>", 0, 0, 0, -1, NULL,
		  "a price and a count at once: not one change made once, held", NULL },
		{ 10800, 200, P150 "<p>本日の来場者は14人でした。</p>", 0, 0, 1, 7200, "text",
		  "the price stayed (the count moved again: a counter): announced, dated when first seen", NULL } } },
	{ "a number changed, the header not new", {
		{ 0, 200, P120, -500, 0, 0, -500, "header", "baseline dated by its header", NULL },
		{ 3600, 200, P150, -500, 0, 0, -500, "header", "the same header: held", NULL },
		{ 7200, 200, P150, -500, 0, 1, 3600, "text", "the next answer still shows it: announced, dated when first seen", NULL } } },
	{ "a held change a source dates", {
		{ 0, 200, P120, 0, 0, 0, -1, NULL, "baseline", NULL },
		{ 3600, 200, P150, 0, 3000, 1, 3000, "text", "held, but the source dates a change since our check: announced now, at its time",
		  "150円" },
		{ 7200, 304, NULL, 0, 0, 1, 3000, "text", "a 304 then: not announced again", NULL } } },
	{ "a source's claim before our last check", {
		{ 0, 200, P120, 0, 0, 0, -1, NULL, "baseline", NULL },
		{ 3600, 200, P150, 0, -100, 0, -1, NULL, "a time our check saw after: it confirms nothing", NULL } } },
	{ "a quiet first check takes a source's earlier claim", {
		{ 0, 200, P120, 0, -900, 0, -900, "lirs", "no time of its own: the source's, no event", NULL },
		{ 3600, 200, P120, 0, 0, 0, -900, "lirs", "unchanged: kept", NULL } } },
	{ "a page we cannot check", {
		{ 0, 200, P120, 0, 0, 0, -1, NULL, "baseline", NULL },
		{ 3600, 503, "", 0, 3000, 1, 3000, "lirs", "its check fails: the source's date", NULL },
		{ 7200, 503, "", 0, 0, 1, 3000, "lirs", "fails again, the same record: no new event", NULL } } },
};

static void hold_case_run(const struct hold_case *c, int k)
{
	char path[256], name[32], body[512];
	ant_store *s;
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	int src = 0;

	snprintf(name, sizeof name, "holds%d", k);
	s = store_new(name, path, sizeof path);
	page_add(s, PH, NULL);
	for (size_t i = 0; i < sizeof c->step / sizeof c->step[0] && c->step[i].why; i++) {
		const struct hold_step *h = &c->step[i];
		int64_t now = T0 + h->at;

		fake_answer(&f, (struct answer){ .url = PH, .status = h->status, .body = h->body,
						 .etag = "\"e\"", .lm_time = h->lm ? T0 + h->lm : 0,
						 .date_time = now });
		if (h->src_lm) {
			if (!src++)
				source_add(s, SRCH, ANT_STORE_SOURCE_LIRS);
			snprintf(body, sizeof body, "LIRS,%lld,%lld,32400,1000," PH ",Relayed,Peer,0,\n",
				 (long long)(T0 + h->src_lm), (long long)now);
			fake_answer(&f, (struct answer){ .url = SRCH, .status = 200, .body = body });
		}
		run(s, &f, now, 1, &st, &v);
		page_get(s, PH, &p);
		if ((h->excerpt && !strstr(event_excerpt(s, PH, T0 + h->want_lm), h->excerpt)) ||
		    events(s, PH) != h->events || p.st.last_modified != (h->want_lm == -1 ? 0 : T0 + h->want_lm) ||
		    (h->want_by ? !p.st.detected_by || strcmp(p.st.detected_by, h->want_by) : p.st.detected_by != NULL)) {
			printf("# %s, run %zu: events %ld, last_modified %+lld, by %s\n", c->name, i,
			       events(s, PH), (long long)(p.st.last_modified ? p.st.last_modified - T0 : -1),
			       p.st.detected_by ? p.st.detected_by : "(none)");
			OK(0, "%s: %s", c->name, h->why);
		} else {
			OK(1, "%s: %s", c->name, h->why);
		}
		ant_store_page_release(&p);
	}
	ant_store_close(s);
}

/* A wiki's site-wide feed links each page's diff ("?id=P&rev=..&do=diff"):
 * not the page, so it never dates it; but an entry on a view of the page
 * dated after our last check confirms the change the check holds. */
#define PW "http://w.example/doku.php?id=club:meeting"
#define FW "http://w.example/feed.php"
#define WIKI(d) "<html><head><title>w</title><link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.php\"></head>" \
	"<body><p>次回の例会は12月" d "日です。</p><p>ほかの話題がいくつか並んでいる長い段落です。</p></body></html>"
static void feed_view(void)
{
	char path[256], feed[1024], date[64];
	ant_store *s = store_new("feedview", path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	ant_store_page p;
	time_t t = T0 + 3000;
	struct tm tm;

	page_add(s, PW, NULL);
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	snprintf(feed, sizeof feed, "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>w</title>"
		 "<link>http://w.example/doku.php</link><item><title>club:meeting</title>"
		 "<link>http://w.example/doku.php?id=club:meeting&amp;rev=%lld&amp;do=diff</link>"
		 "<pubDate>%s</pubDate></item></channel></rss>", (long long)t, date);
	fake_answer(&f, (struct answer){ .url = FW, .status = 200, .body = "<rss version=\"2.0\"><channel><title>w</title></channel></rss>" });
	fake_answer(&f, (struct answer){ .url = PW, .status = 200, .body = WIKI("3") });
	run(s, &f, T0, 1, &st, &v);
	fake_answer(&f, (struct answer){ .url = FW, .status = 200, .body = feed });
	fake_answer(&f, (struct answer){ .url = PW, .status = 200, .body = WIKI("10") });
	run(s, &f, T0 + 3600, 1, &st, &v);
	page_get(s, PW, &p);
	OK(events(s, PW) == 1 && p.st.last_modified == T0 + 3000 && p.st.feed_time == 0,
	   "feed view: an entry on the page's diff confirms the held date change, dated by it, "
	   "the feed not the page's");
	IS_STR(event_excerpt(s, PW, T0 + 3000), "次回の例会は12月10日です。", "feed view: the edit is the excerpt");
	ant_store_page_release(&p);
	ant_store_close(s);
}

/* The second fetch of a page whose news is a small part: not made when the
 * page held still at its last two checks (no word made per request to
 * find), the change decided on the one answer; made when it had not. */
#define PS "http://s.example/club"
#define CLUB(room) "<html><body><p>The next club meeting is in the " room " room of the town hall, as usual.</p>" \
	"<p>Another long paragraph about the spring walk along the river path and the old mill.</p></body></html>"
static void unasked_one(int still, const char *name)
{
	char path[256];
	ant_store *s = store_new(name, path, sizeof path);
	struct fake f = { 0 };
	ant_update_stats st;
	struct seen v;
	unsigned before;

	refetch_pause = 50;
	page_add(s, PS, NULL);
	fake_answer(&f, (struct answer){ .url = PS, .status = 200, .body = CLUB("blue"), .date_time = T0 });
	run(s, &f, T0, 1, &st, &v);
	for (int k = 1; k <= still; k++)   /* checks that find it as before */
		run(s, &f, T0 + k * 3600, 1, &st, &v);
	fake_answer(&f, (struct answer){ .url = PS, .status = 200, .body = CLUB("green"), .date_time = T0 });
	before = f.requests;
	run(s, &f, T0 + (still + 1) * 3600, 1, &st, &v);
	if (still >= 2) {
		OK(f.requests - before == 1 && st.refetched == 0 && st.unasked == 1,
		   "a page that held still two checks, one word edited: fetched once (%u requests, %u fetched again, %u not)",
		   f.requests - before, st.refetched, st.unasked);
		OK(st.updated == 1 && strstr(event_excerpt(s, PS, T0 + (still + 1) * 3600), "green room"),
		   "... announced in that check, the edit its excerpt");
	} else {
		OK(f.requests - before == 2 && st.refetched == 1 && st.unasked == 0,
		   "%d still check%s, then one word edited: fetched again (%u requests)", still,
		   still == 1 ? "" : "s", f.requests - before);
	}
	refetch_pause = -2;
	ant_store_close(s);
}

static void holds(void)
{
	for (size_t k = 0; k < sizeof hold_cases / sizeof hold_cases[0]; k++)
		hold_case_run(&hold_cases[k], (int)k);
	feed_view();
	unasked_one(2, "unasked");
	unasked_one(1, "asked1");
	unasked_one(0, "asked0");
}

int main(void)
{
	TAP_PLAN(122 + 15 + 1 + 4 + 3 + 6 + 1 + 1 + 21 + 2 + 7 + 4 + 4);
	if (!mkdtemp(dir))
		return 1;
	decisions();
	rendezvous(0);
	rendezvous(1);
	lirs_source();
	atom_source();
	remember_atom();
	remember_lirs();
	relay_source();
	newer_record();
	relay_url_limit();
	same_second();
	batching();
	streamed();
	setup_failure();
	lock_held();
	holds();
	if (!tap_failed) {
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return 1;
	}
	TAP_DONE();
}
