/*
 * t_noise_update.c: the noise corpus (noise_corpus.h) through the
 * update engine, ant_update(), with a fetcher that serves the corpus from
 * memory and a real store: NOISE_PAGES pages, a baseline check and
 * NOISE_CHECKS more, each an update run an hour after the last.  What
 * t_noise.c asserts of the rule, here end to end: the state saved and
 * loaded between runs, the re-fetch round, the excerpt as stored, the
 * events, and --no-auto-ignore (a page's no_auto_ignore) turning the
 * learning off.  With -b, one summary line for make bench.
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <unistd.h>

#include "atom_db.h"

#include "corpus_fetch.h"
#include "noise_corpus.h"
#include "ant_page.h"
#include "ant_textstate.h"
#include "ant_update.h"
#include "lirs_merge.h"

#define T0 1700000000

static char dir[] = "/tmp/t_noise_update.XXXXXX";

struct corpus_fetcher {
	int check;
	unsigned req[NOISE_PAGES];
	unsigned requests;
	int fail_second;           /* a page's second request in a run: 503 */
	int steady;                /* a second request in a run: the first's body */
	int validators;            /* an ETag (the body's hash) on every answer; a
				      second request in a run naming it: 304 */
	unsigned not_modified;     /* those 304s */
	int asked[NOISE_PAGES];    /* requests of the page in this run */
};

static int page_of(const char *url)
{
	return corpus_page_of(url, "/noise/");
}

static int corpus_run(void *self, const ant_fetch_limits *lim, const ant_fetch_req *reqs, size_t n,
		      ant_fetch_done_fn done, void *ctx)
{
	struct corpus_fetcher *f = self;

	for (size_t i = 0; i < n; i++) {
		int k = page_of(reqs[i].url);
		lb_buf b = LB_BUF_INIT;

		f->requests++;
		if (k < 0 || k >= NOISE_PAGES) {
			corpus_answer(done, ctx, &reqs[i], 404, NULL);
		} else if (f->fail_second && f->asked[k]++) {
			corpus_answer(done, ctx, &reqs[i], 503, NULL);
		} else {
			noise_page(&b, k, f->check, f->steady && f->asked[k] ? f->req[k] - 1 : f->req[k]++);
			if (!f->validators) {
				f->asked[k]++;
				corpus_answer(done, ctx, &reqs[i], 200, &b);
			} else {
				char etag[24];
				ant_fetch_result r = { .status = 200, .content_length = -1,
						       .content_type = (char *)"text/html; charset=utf-8",
						       .body = b.data, .len = b.len, .etag = etag };

				snprintf(etag, sizeof etag, "\"%016llx\"", (unsigned long long)ant_page_hash64(b.data, b.len));
				if (f->asked[k]++ && reqs[i].etag && !strcmp(reqs[i].etag, etag)) {
					r.status = 304;
					r.body = (char *)"";
					r.len = 0;
					f->not_modified++;
				}
				done(ctx, &reqs[i], &r);
			}
		}
		lb_buf_release(&b);
	}
	return 0;
}

struct outcome {
	int updated[NOISE_PAGES];
	char *excerpt[NOISE_PAGES];
};

static void on_page(void *ctx, const ant_store_page *p, const ant_detect_outcome *out)
{
	struct outcome *o = ctx;
	int k = page_of(p->url);

	if (k < 0 || k >= NOISE_PAGES)
		return;
	o->updated[k] = out->updated;
	free(o->excerpt[k]);
	o->excerpt[k] = out->updated && p->excerpt ? strdup(p->excerpt) : NULL;
}

static int noisy(const char *x)
{
	for (int i = 0; noise_markers[i]; i++)
		if (strstr(x, noise_markers[i]))
			return 1;
	return 0;
}

typedef struct tally {
	unsigned unchanged, false_updates, real, found, missed, bad_excerpts;
	unsigned requests, refetched, learned, steady_requests, steady_refetched;
	long events;
	int64_t state_bytes;
} tally;

/* The engine's batching for the next corpus() (0: its defaults). */
static size_t corpus_batch;
static size_t corpus_held;            /* opts.max_held (0: the default) */
static unsigned corpus_max_refetched;  /* the most re-fetches of one run */
static int64_t corpus_pause;

/* A new store at dir/name.db holding the corpus's pages; NULL on failure. */
static ant_store *corpus_store(const char *name, int no_auto_ignore)
{
	char path[256];
	lb_error err = LB_ERROR_INIT;
	ant_store *s;

	snprintf(path, sizeof path, "%s/%s.db", dir, name);
	t_db_map(path, sizeof path);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", lb_error_msg(&err));
		return NULL;
	}
	for (int k = 0; k < NOISE_PAGES; k++) {
		ant_store_page p;
		char url[64];
		lb_buf key = LB_BUF_INIT;

		snprintf(url, sizeof url, "http://noise.example/noise/%d.html", k);
		lb_url_key(&key, url);
		ant_store_page_init(&p);
		p.url = url;
		p.url_key = key.data;
		p.source_url = url;
		p.created = T0 - 100;
		if (ant_store_page_add(s, &p, &err) != 0)
			printf("# %s\n", lb_error_msg(&err));
		lb_buf_release(&key);
	}
	/* what 'add --no-auto-ignore' sets */
	if (no_auto_ignore && atom_db_exec(ant_store_db(s), "UPDATE pages SET no_auto_ignore = 1") != ATOM_DB_OK)
		printf("# cannot set no_auto_ignore\n");
	return s;
}

/* Page k's outcome at check c against what the corpus planted. */
static void tally_page(tally *t, struct outcome *o, int k, int c, int quiet)
{
	int real = noise_real(k, c) != NOISE_NONE;
	char want[64];
	const char *x = o->excerpt[k];
	int bad;

	noise_expect(k, c, want, sizeof want);
	if (real) {
		t->real++;
		t->found += o->updated[k];
		t->missed += !o->updated[k];
	} else {
		t->unchanged++;
		t->false_updates += o->updated[k];
	}
	bad = o->updated[k] && (!x || noisy(x) || (real && !strstr(x, want)));
	t->bad_excerpts += bad;
	if (!quiet && (o->updated[k] != real || bad))
		printf("#   page %d check %d: %s%s %s\n", k, c, real ? "real update, " : "",
		       o->updated[k] ? "updated:" : "no update", x ? x : "");
	o->updated[k] = 0;
}

/* Check c: one update run an hour after the last; 0, or -1 when it failed. */
static int corpus_check(ant_store *s, tally *t, struct corpus_fetcher *f, struct outcome *o, int c,
			int quiet)
{
	ant_fetcher fetcher = { corpus_run, f };
	ant_update_opts opts;
	ant_update_stats st;
	lb_error e = LB_ERROR_INIT;
	unsigned rq = f->requests;

	ant_update_opts_init(&opts);
	opts.now = T0 + 3600 * c;
	opts.force = 1;
	opts.fetcher = &fetcher;
	opts.refetch_pause_ms = corpus_pause;
	opts.page_batch = corpus_batch;
	opts.max_held = corpus_held;
	opts.on_page = on_page;
	opts.ctx = o;
	f->check = c;
	memset(f->asked, 0, sizeof f->asked);
	if (ant_update(s, &opts, &st, &e) < 0) {
		printf("# ant_update: %s\n", lb_error_msg(&e));
		return -1;
	}
	t->refetched += st.refetched;
	if (st.refetched > corpus_max_refetched)
		corpus_max_refetched = st.refetched;
	t->learned += st.learned;
	if (c >= 3) {
		t->steady_requests += f->requests - rq;
		t->steady_refetched += st.refetched;
	}
	for (int k = 0; c > 0 && k < NOISE_PAGES; k++)
		tally_page(t, o, k, c, quiet);
	return 0;
}

/* The events written and the bytes of noise state the store holds. */
static void corpus_sizes(ant_store *s, tally *t)
{
	atom_db_st *st;

	if (atom_db_prepare(ant_store_db(s), "SELECT (SELECT count(*) FROM ev_events),"
			       " (SELECT sum(length(noise)) FROM pages)", &st) != ATOM_DB_OK)
		return;
	if (atom_db_step(st) == ATOM_DB_ROW) {
		t->events = atom_db_column_int(st, 0);
		t->state_bytes = atom_db_column_int64(st, 1);
	}
	atom_db_finalize(st);
}

static unsigned corpus_not_modified;   /* the 304s of the last corpus() */

/* mode: 1 a page's second request in a run fails; 2 it is answered
 * the first's body (a server that makes nothing per request); 3 that,
 * each answer with an ETag, the second request naming it answered 304. */
static void corpus(tally *t, int no_auto_ignore, const char *name, int quiet, int mode)
{
	ant_store *s;
	struct corpus_fetcher f = { .fail_second = mode == 1, .steady = mode >= 2, .validators = mode == 3 };
	struct outcome o = { { 0 }, { 0 } };

	memset(t, 0, sizeof *t);
	if (!(s = corpus_store(name, no_auto_ignore)))
		return;
	for (int c = 0; c <= NOISE_CHECKS; c++)
		if (corpus_check(s, t, &f, &o, c, quiet) < 0)
			break;
	t->requests = f.requests;
	corpus_not_modified = f.not_modified;
	corpus_sizes(s, t);
	for (int k = 0; k < NOISE_PAGES; k++)
		free(o.excerpt[k]);
	ant_store_close(s);
}

static void show_page(const char *name, int k)
{
	char path[256], url[64];
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	ant_store_page p;
	lb_buf key = LB_BUF_INIT;
	ant_detect_noise n;
	ant_textstate ps;

	snprintf(path, sizeof path, "%s/%s.db", dir, name);
	t_db_map(path, sizeof path);
	snprintf(url, sizeof url, "http://noise.example/noise/%d.html", k);
	lb_url_key(&key, url);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, &err) < 0)
		return;
	if (ant_store_page_get(s, key.data, &p, &err) == 1) {
		OK(ant_textstate_split(p.noise, p.noise_len, &ps) == 0 &&
		   ant_detect_noise_decode(&n, ps.noise, ps.noise_len) == 0 && n.nvol >= 1,
		   "page %d: its learned parts are stored (%zu, %zu bytes)", k, n.nvol, p.noise_len);
		for (size_t i = 0; i < n.nvol; i++)
			printf("#   %s \"%s\" since %lld (%s)\n", n.vol[i].path, n.vol[i].sample,
			       (long long)n.vol[i].since, n.vol[i].how == ANT_NOISE_REFETCH ? "re-fetch" : "checks");
		ant_detect_noise_release(&n);
		ant_store_page_release(&p);
	}
	lb_buf_release(&key);
	ant_store_close(s);
}

/* Automatic ignoring turned off on pages that learned: the next check is
 * the new reference (no update), what was learned is gone. */
/* ant_store_pages_each: the parts learned volatile, over all pages */
static int count_learned(void *ctx, const ant_store_page *p)
{
	ant_detect_noise ns;

	if (ant_detect_noise_decode(&ns, p->noise, p->noise_len) == 0)
		*(size_t *)ctx += ns.nvol;
	ant_detect_noise_release(&ns);
	return 0;
}

static void turn_off(const char *name)
{
	char path[256];
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	struct corpus_fetcher f = { .check = NOISE_CHECKS };
	struct outcome o = { { 0 }, { 0 } };
	ant_fetcher fetcher = { corpus_run, &f };
	ant_update_opts opts;
	ant_update_stats st;
	size_t learned = 0;
	int updates = 0;

	snprintf(path, sizeof path, "%s/%s.db", dir, name);
	t_db_map(path, sizeof path);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, &err) < 0 ||
	    atom_db_exec(ant_store_db(s), "UPDATE pages SET no_auto_ignore = 1") != ATOM_DB_OK) {
		OK(0, "turned off: the database");
		return;
	}
	for (int k = 0; k < NOISE_PAGES; k++)
		f.req[k] = 100;   /* the widgets moved on */
	ant_update_opts_init(&opts);
	opts.now = T0 + 3600 * (NOISE_CHECKS + 1);
	opts.force = 1;
	opts.fetcher = &fetcher;
	opts.on_page = on_page;
	opts.ctx = &o;
	ant_update(s, &opts, &st, &err);
	for (int k = 0; k < NOISE_PAGES; k++) {
		updates += o.updated[k];
		free(o.excerpt[k]);
	}
	ant_store_pages_each(s, count_learned, &learned, &err);
	OK(updates == 0 && learned == 0 && st.refetched == 0,
	   "turned off after learning: a quiet new reference, nothing learned kept (%d updates, %zu parts)",
	   updates, learned);
	ant_store_close(s);
}

int main(int argc, char **argv)
{
	tally t, off;
	int bench = argc > 1 && !strcmp(argv[1], "-b");

	if (!mkdtemp(dir)) {
		printf("not ok - mkdtemp\n");
		return 1;
	}
	corpus(&t, 0, "on", bench, 0);
	if (bench) {
		printf("noise corpus (ant_update): %d pages x %d checks: false updates %u of %u unchanged checks "
		       "(%.1f%%), real updates found %u of %u, bad excerpts %u, re-fetches %u of %u requests "
		       "(%.1f%%; %.1f%% once learned), %u parts learned, state %lld bytes per page\n",
		       NOISE_PAGES, NOISE_CHECKS, t.false_updates, t.unchanged,
		       t.unchanged ? 100.0 * t.false_updates / t.unchanged : 0.0, t.found, t.real,
		       t.bad_excerpts, t.refetched, t.requests, t.requests ? 100.0 * t.refetched / t.requests : 0.0,
		       t.steady_requests ? 100.0 * t.steady_refetched / t.steady_requests : 0.0, t.learned,
		       (long long)(t.state_bytes / NOISE_PAGES));
	} else {
		TAP_PLAN(15);
		OK(t.unchanged >= 100, "engine: %d pages, %u checks of unchanged content", NOISE_PAGES, t.unchanged);
		OK(t.false_updates * 20 <= t.unchanged, "engine: false updates %u of %u (<= 5%%)", t.false_updates, t.unchanged);
		IS_INT(t.false_updates, 0, "engine: no false update at all");
		IS_INT(t.found, t.real, "engine: every real update found at once (%u of %u)", t.found, t.real);
		IS_INT(t.events, t.real, "engine: one event per real update (a first check is a quiet baseline)");
		IS_INT(t.bad_excerpts, 0, "engine: every stored excerpt shows the update and no noise");
		OK(t.steady_refetched * 10 <= t.steady_requests,
		   "engine: once learned, re-fetches %u of %u requests (<= 10%%); while learning %u of %u",
		   t.steady_refetched, t.steady_requests, t.refetched, t.requests);
		OK(t.learned > 0, "engine: %u noisy parts learned", t.learned);
		printf("# state: %lld bytes per page in the database\n", (long long)(t.state_bytes / NOISE_PAGES));
		show_page("on", 1);
		turn_off("on");
		/* 5 pages a batch, a 30 ms pause: re-fetches carried from batch
		 * to batch (the fake fetcher answers at once), decided alike */
		corpus_batch = 5;
		corpus_pause = 30;
		corpus(&off, 0, "batched", 1, 0);
		corpus_batch = 0;
		corpus_pause = 0;
		OK(off.refetched == t.refetched && off.false_updates == t.false_updates &&
		   off.found == t.found && off.events == t.events && off.bad_excerpts == 0,
		   "batches of 5 with re-fetches carried: the same decisions (%u re-fetches)", off.refetched);
		/* at most 2 first answers held: the rest decided on their first
		 * answer, learned across checks; real updates still found */
		corpus_held = 2;
		corpus_max_refetched = 0;
		corpus(&off, 0, "held", 1, 0);
		corpus_held = 0;
		OK(off.refetched > 0 && corpus_max_refetched <= 2 && off.found == off.real &&
		   off.bad_excerpts == 0,
		   "max_held 2: at most 2 re-fetches a run (%u), real updates found (%u of %u), "
		   "%u false updates of %u", corpus_max_refetched, off.found, off.real,
		   off.false_updates, off.unchanged);
		corpus(&off, 1, "off", 1, 0);
		OK(off.refetched == 0 && off.learned == 0 && off.false_updates > t.false_updates,
		   "no_auto_ignore: no re-fetch, nothing learned (%u false updates)", off.false_updates);
		/* the re-fetch names the first answer's ETag: a server that
		 * says 304 (the same body) costs no second body, and the
		 * decisions are those of the second body itself */
		{
			tally same;

			corpus(&same, 0, "steady", 1, 2);
			corpus(&off, 0, "etag", 1, 3);
			OK(corpus_not_modified > 0 && off.refetched == same.refetched &&
			   off.false_updates == same.false_updates && off.found == same.found &&
			   off.events == same.events && off.learned == same.learned &&
			   off.bad_excerpts == same.bad_excerpts && off.state_bytes == same.state_bytes,
			   "re-fetches with the first answer's ETag: %u of %u answered 304, the decisions, "
			   "learning and state of the second body itself (%u false updates, %u found)",
			   corpus_not_modified, off.refetched, off.false_updates, off.found);
		}
		corpus(&off, 0, "failing", 1, 1);
		OK(off.refetched > 0 && off.found == off.real && off.bad_excerpts == 0 &&
		   off.false_updates * 20 <= off.unchanged,
		   "second answers that fail: decided on the first, real updates found (%u of %u), "
		   "%u false updates, no bad excerpt", off.found, off.real, off.false_updates);
	}
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# cannot remove %s\n", dir);
	}
	TAP_DONE();
}
