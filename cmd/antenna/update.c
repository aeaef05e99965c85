/*
 * update.c: antenna update: read the LIRS sources, then check the pages
 * that are due, concurrently, and record what changed.
 *
 * Order: sources first (one fetch_run), then pages (a second fetch_run),
 * so that a source's newer Last-Modified for a watched page makes that
 * page due in the same run (samidare's "hint").  Each finished transfer is
 * analysed in the fetch callback and its body dropped at once, so memory
 * holds at most --jobs bodies.  Writes go through one prepared statement,
 * committed every UPD_BATCH checks: kill -9 loses at most one batch, never
 * consistency.  The run lock (store_lock) is held from start to end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "antenna.h"
#include "buf.h"
#include "evstore.h"
#include "fetch.h"
#include "lirs.h"
#include "merge.h"
#include "page.h"

#define UPD_BATCH 64       /* checks per transaction */

static const char help[] =
	"usage: antenna [-d FILE] update [--jobs N] [--now EPOCH] [--force] [-v]\n"
	"                           [--timeout S] [--connect-timeout S] [--max-body BYTES]\n"
	"                           [--max-redirects N] [--per-host N] [--allow-file]\n\n"
	"Read every LIRS source, then check the pages that are due, at most N at once.\n"
	"Prints a one-line summary; exit status 0 even when some pages failed (their\n"
	"errors are recorded: see 'antenna list' and 'antenna show').\n\n"
	"  --jobs N             transfers at once (default 16)\n"
	"  --now EPOCH          the time of this run (default: the clock)\n"
	"  --force              check every page, due or not\n"
	"  -v, --verbose        one line per check on standard error\n"
	"  --timeout S          whole-transfer timeout in seconds (default 30)\n"
	"  --connect-timeout S  connect timeout in seconds (default 10)\n"
	"  --max-body BYTES     largest decoded body, K/M/G suffixes (default 8M)\n"
	"  --max-redirects N    redirects followed (default 5)\n"
	"  --per-host N         transfers at once per host (default 2)\n"
	"  --allow-file         allow file:///... URLs (also 'init --allow-file')\n";

struct upd {
	store *s;
	evstore *ev;
	int64_t now, max_age, tz;
	int verbose;
	store_page *pages;       /* all pages, sorted by url_key */
	size_t npages;
	lbuf key;                /* scratch: a record's URL key */
	/* transaction batching */
	int in_tx;
	unsigned pending;
	int failed_db;
	char err[512];
	/* the source being read */
	store_source *src;
	/* counters for the summary */
	unsigned checked, updated, unchanged, failed;
	unsigned nsources, src_failed;
	int64_t rec_read, rec_merged, rec_ignored, rec_skipped;
};

/* ---- transactions ------------------------------------------------------ */

static int tx_need(struct upd *u)
{
	if (u->failed_db)
		return -1;
	if (!u->in_tx) {
		if (store_begin(u->s, u->err, sizeof u->err) < 0) {
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
	if (store_commit(u->s, u->err, sizeof u->err) < 0) {
		store_rollback(u->s);
		u->failed_db = 1;
		return -1;
	}
	return 0;
}

/* Called after each write: commits every UPD_BATCH. */
static void tx_tick(struct upd *u)
{
	if (++u->pending >= UPD_BATCH)
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

/* One update event for the Atom bridge, in the current transaction. */
static int add_event(struct upd *u, const store_page *p)
{
	ev_event e = {
		.url = p->url,
		.last_modified = p->st.last_modified,
		.last_detected = p->st.last_detected,
		.tz_offset = u->tz,
		.content_length = p->st.content_length > 0 ? p->st.content_length : 0,
		.title = p->title ? p->title : "",
		.author = p->author ? p->author : "",
		.source_url = p->source_url ? p->source_url : p->url,
	};

	if (evstore_add(u->ev, &e, u->err, sizeof u->err) < 0) {
		u->failed_db = 1;
		return -1;
	}
	return 0;
}

static int save_page(struct upd *u, store_page *p, int event)
{
	if (tx_need(u) < 0)
		return -1;
	if (store_page_save(u->s, p, u->err, sizeof u->err) < 0) {
		u->failed_db = 1;
		return -1;
	}
	if (event && add_event(u, p) < 0)
		return -1;
	tx_tick(u);
	return 0;
}

/* ---- LIRS sources ---------------------------------------------------- */

static int cmp_page_key(const void *a, const void *b)
{
	return strcmp(((const store_page *)a)->url_key, ((const store_page *)b)->url_key);
}

static store_page *find_page(struct upd *u, const char *key)
{
	store_page k;

	k.url_key = (char *)key;
	return bsearch(&k, u->pages, u->npages, sizeof *u->pages, cmp_page_key);
}

/* A record from a source: relayed into the page it names, if watched. */
static int on_record(void *ctx, const lirs_record *r)
{
	struct upd *u = ctx;
	store_page *p;

	u->src->records_read++;
	if (merge_check(r, u->now, u->max_age) != MERGE_USABLE) {
		u->src->records_skipped++;
		return 0;
	}
	lbuf_reset(&u->key);
	if (merge_url_key(&u->key, r->url) < 0)
		return 1;
	if (!(p = find_page(u, u->key.data))) {
		u->src->records_ignored++;   /* not watched here: not ours to list */
		return 0;
	}
	if (!detect_relay(&p->st, r->last_modified, r->last_detected, u->now))
		return 0;
	set_str(&p->source_url, u->src->url);
	if (!*p->title && *r->title && !p->title_set_by_user)
		set_str(&p->title, r->title);
	u->src->records_merged++;
	return save_page(u, p, 1) < 0;
}

static void read_source(struct upd *u, store_source *src, const fetch_result *res)
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
	}
}

static int http_failed(const fetch_result *res)
{
	return res->err != FETCH_OK || res->status >= 400 || res->status < 200;
}

static const char *error_text(const fetch_result *res, char *b, size_t n)
{
	if (res->error[0])
		return res->error;
	snprintf(b, n, "HTTP status %ld", res->status);
	return b;
}

/* Validators: replaced by a 200's (even by none), refreshed by a 304's. */
static void take_validators(char **etag, char **lm, const fetch_result *res)
{
	if (res->status != 304 || res->etag)
		set_str(etag, res->etag);
	if (res->status != 304 || res->last_modified)
		set_str(lm, res->last_modified);
}

static void source_done(void *ctx, const fetch_req *req, const fetch_result *res)
{
	struct upd *u = ctx;
	store_source *src = req->user;
	char b[64];

	src->last_fetch = u->now;
	src->last_status = res->status;
	u->src = src;
	if (http_failed(res)) {
		set_str(&src->last_error, error_text(res, b, sizeof b));
		u->src_failed++;
	} else {
		set_str(&src->last_error, NULL);
		src->last_ok = u->now;
		take_validators(&src->etag, &src->lm_header, res);
		if (res->status != 304)
			read_source(u, src, res);
	}
	u->rec_read += src->records_read;
	u->rec_merged += src->records_merged;
	u->rec_ignored += src->records_ignored;
	u->rec_skipped += src->records_skipped;
	if (u->verbose)
		fprintf(stderr, "%s: %s\n", src->url, src->last_error ? src->last_error :
			res->status == 304 ? "not modified" : "read");
	if (tx_need(u) == 0 && store_source_save(u->s, src, u->err, sizeof u->err) < 0)
		u->failed_db = 1;
	tx_commit(u);   /* one transaction per source */
}

static int read_sources(struct upd *u, const fetch_limits *lim, store_source *srcs, size_t n)
{
	fetch_req *reqs = calloc(n ? n : 1, sizeof *reqs);
	int rc;

	if (!reqs)
		return -1;
	for (size_t i = 0; i < n; i++)
		reqs[i] = (fetch_req){ srcs[i].url, srcs[i].etag, srcs[i].lm_header, &srcs[i] };
	u->nsources = n;
	rc = fetch_run(lim, reqs, n, source_done, u);
	free(reqs);
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

/* The body's text checksum, title and charset (page.h); 0 when not HTML. */
static int analyze(store_page *p, const fetch_result *res, detect_input *in)
{
	page_info info;
	size_t nign;
	char **ign, err[256];
	int rc;

	if (!is_html(res->content_type))
		return 0;
	ign = split_ignore(p->ignore, &nign);
	rc = page_analyze_forced(res->body, res->len, res->content_type, p->force_charset,
				 (const char *const *)ign, nign, &info, err, sizeof err);
	free(ign);
	if (rc < 0)
		return 0;
	in->has_hash = 1;
	in->text_hash = info.text_hash;
	if (info.title && *info.title && !p->title_set_by_user)
		set_str(&p->title, info.title);
	set_str(&p->charset, info.charset);
	page_info_release(&info);
	return 1;
}

static void verbose_line(const store_page *p, const detect_outcome *out)
{
	fprintf(stderr, "%s: %s%s%s\n", p->url,
		p->last_error ? p->last_error : out->updated ? "updated" : "unchanged",
		out->updated ? " by " : "",
		out->updated ? (out->rule ? out->rule : "first check") : "");
}

static void page_done(void *ctx, const fetch_req *req, const fetch_result *res)
{
	struct upd *u = ctx;
	store_page *p = req->user;
	detect_input in = { .content_length = res->content_length, .body_len = (int64_t)res->len,
			    .lm_time = res->last_modified_time, .date_time = res->date_time,
			    .status = res->status, .retry_after = res->retry_after };
	detect_outcome out;
	char b[64];

	in.failed = http_failed(res);
	if (!in.failed && res->status != 304)
		analyze(p, res, &in);
	detect_apply(&p->st, &in, u->now, &out);
	if (in.failed) {
		set_str(&p->last_error, error_text(res, b, sizeof b));
		u->failed++;
	} else {
		set_str(&p->last_error, NULL);
		take_validators(&p->etag, &p->lm_header, res);
		if (out.updated)
			set_str(&p->source_url, p->url);
		u->updated += out.updated;
		u->unchanged += !out.updated;
	}
	u->checked++;
	if (u->verbose)
		verbose_line(p, &out);
	save_page(u, p, out.updated);
}

static int check_pages(struct upd *u, const fetch_limits *lim, int force)
{
	fetch_req *reqs = calloc(u->npages ? u->npages : 1, sizeof *reqs);
	size_t n = 0;
	int rc;

	if (!reqs)
		return -1;
	for (size_t i = 0; i < u->npages; i++) {
		store_page *p = &u->pages[i];
		if (detect_due(&p->st, u->now, force))
			reqs[n++] = (fetch_req){ p->url, p->etag, p->lm_header, p };
	}
	rc = fetch_run(lim, reqs, n, page_done, u);
	free(reqs);
	return rc;
}

/* ---- the command ------------------------------------------------------- */

struct upd_opts {
	fetch_limits lim;
	int64_t now;
	int force, verbose;
};

static int parse_bytes(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k') shift = 10, end++;
	else if (*end == 'M' || *end == 'm') shift = 20, end++;
	else if (*end == 'G' || *end == 'g') shift = 30, end++;
	if (*end || v == 0 || v > (~0ULL >> (shift + 1)))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

static int parse_opts(int argc, char **argv, struct upd_opts *o)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "now", required_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "connect-timeout", required_argument, NULL, 'C' },
		{ "max-body", required_argument, NULL, 'B' },
		{ "max-redirects", required_argument, NULL, 'R' },
		{ "per-host", required_argument, NULL, 'P' },
		{ "allow-file", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int64_t v;
	int c;

	memset(o, 0, sizeof *o);
	o->lim.max_redirects = -1;
	while ((c = ant_getopt(argc, argv, "hvj:", opts, help)) != -1) {
		switch (c) {
		case 'h': ant_help(help); return 1;
		case 'f': o->force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'F': o->lim.allow_file = 1; break;
		case 'B':
			if (parse_bytes(optarg, &o->lim.max_body) < 0)
				return ant_usage_error(help, "--max-body: '%s' is not a byte count", optarg), -1;
			break;
		case 'j': case 'n': case 'T': case 'C': case 'R': case 'P':
			if (ant_parse_int64(c == 'j' ? "--jobs" : c == 'n' ? "--now" : c == 'T' ? "--timeout" :
					    c == 'C' ? "--connect-timeout" : c == 'R' ? "--max-redirects" : "--per-host",
					    optarg, c == 'R' ? 0 : 1, c == 'n' ? INT64_MAX / 2 : 100000, &v) < 0)
				return -1;
			if (c == 'j') o->lim.jobs = v;
			else if (c == 'n') o->now = v;
			else if (c == 'T') o->lim.timeout = v;
			else if (c == 'C') o->lim.connect_timeout = v;
			else if (c == 'R') o->lim.max_redirects = v;
			else o->lim.per_host = v;
			break;
		default: return -1;
		}
	}
	if (optind != argc)
		return ant_usage_error(help, "unexpected argument '%s'", argv[optind]), -1;
	return 0;
}

static void summary(const struct upd *u, double secs)
{
	printf("checked %u page%s: %u updated, %u unchanged, %u failed",
	       u->checked, u->checked == 1 ? "" : "s", u->updated, u->unchanged, u->failed);
	if (u->nsources)
		printf("; read %u LIRS source%s (%u failed): %lld records, %lld merged, "
		       "%lld not watched, %lld skipped", u->nsources, u->nsources == 1 ? "" : "s",
		       u->src_failed, (long long)u->rec_read, (long long)u->rec_merged,
		       (long long)u->rec_ignored, (long long)u->rec_skipped);
	printf("; %.2f s\n", secs);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_update(struct upd *u, struct upd_opts *o)
{
	store_source *srcs = NULL;
	size_t nsrc = 0;
	int rc = 0;

	if (store_lock(u->s, STORE_LOCK_WAIT, u->err, sizeof u->err) < 0 ||
	    evstore_attach(&u->ev, store_db(u->s), u->err, sizeof u->err) < 0 ||
	    store_pages_load(u->s, &u->pages, &u->npages, u->err, sizeof u->err) < 0 ||
	    store_sources_load(u->s, &srcs, &nsrc, u->err, sizeof u->err) < 0)
		return -1;
	qsort(u->pages, u->npages, sizeof *u->pages, cmp_page_key);
	if (!o->lim.allow_file)
		o->lim.allow_file = store_config_int(u->s, CFG_ALLOW_FILE, 0) != 0;
	if ((nsrc && read_sources(u, &o->lim, srcs, nsrc) < 0) ||
	    check_pages(u, &o->lim, o->force) < 0) {
		snprintf(u->err, sizeof u->err, "cannot set up transfers");
		rc = -1;
	}
	if (tx_commit(u) < 0 || u->failed_db)
		rc = -1;
	store_sources_free(srcs, nsrc);
	return rc;
}

int cmd_update(int argc, char **argv)
{
	struct upd_opts o;
	struct upd u = { .key = LBUF_INIT };
	double t0 = mono();
	int rc;

	if ((rc = parse_opts(argc, argv, &o)) != 0)
		return rc > 0 ? ANT_OK : ANT_FATAL;
	if (!(u.s = ant_open(STORE_OPEN_EXISTING)))
		return ANT_FATAL;
	u.now = ant_now(o.now);
	u.verbose = o.verbose;
	u.max_age = store_config_int(u.s, CFG_MAX_AGE, LIRS_DEFAULT_MAX_AGE);
	u.tz = store_config_int(u.s, CFG_TZ, 32400);
	rc = run_update(&u, &o);
	if (rc < 0) {
		if (u.in_tx)
			store_rollback(u.s);
		ant_error("%s", u.err);
	} else {
		summary(&u, mono() - t0);
	}
	store_pages_free(u.pages, u.npages);
	lbuf_release(&u.key);
	evstore_close(u.ev);
	store_close(u.s);
	return rc < 0 ? ANT_FATAL : ANT_OK;
}
