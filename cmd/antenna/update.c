/*
 * update.c: antenna update: read the LIRS sources, then check the pages
 * that are due, and record what changed.  The engine is the library's
 * (ant_update.h); this file parses the options, fills them in from the
 * database's config, prints the verbose lines and the summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "ant_update.h"
#include "lb_term.h"

/* One table: run reads it too, to know which options take a value. */
const char cmd_update_shortopts[] = "hvqj:";
const struct option cmd_update_longopts[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "now", required_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "connect-timeout", required_argument, NULL, 'C' },
	{ "max-body", required_argument, NULL, 'B' },
	{ "max-header", required_argument, NULL, 'H' },
	{ "max-redirects", required_argument, NULL, 'R' },
	{ "per-host", required_argument, NULL, 'P' },
	{ "allow-file", no_argument, NULL, 'F' },
	{ "excerpt-chars", required_argument, NULL, 'X' },
	{ "max-archives", required_argument, NULL, 'M' },
	{ "refetch-pause", required_argument, NULL, 'W' },
	{ "regex-seconds", required_argument, NULL, 'G' },
	{ "page-batch", required_argument, NULL, 'b' },
	{ "max-source-news", required_argument, NULL, 'N' },
	{ "max-source-news-day", required_argument, NULL, 'D' },
	{ "max-source-records", required_argument, NULL, 'S' }, ANTCMD_ROBOTS_LONGOPTS,
	{ "sitemap-limit", required_argument, NULL, 'L' }, { "lease", required_argument, NULL, 'e' },
	ANTCMD_RENDER_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct upd_opts {
	ant_update_opts u;
	int verbose, quiet;
};

struct antcmd_update_outcome antcmd_update_outcome;

static int parse_opts(int argc, char **argv, struct upd_opts *o)
{
	int64_t v;
	int c;

	o->verbose = o->quiet = 0;
	ant_update_opts_init(&o->u);
	while ((c = cli_getopt(argc, argv, cmd_update_shortopts, cmd_update_longopts, antcmd_update_help)) != -1) {
		switch (c) {
		case 'h': cli_help(antcmd_update_help); return 1;
		case 'f': o->u.force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'q': o->quiet = 1; break;
		case 'F': o->u.limits.allow_file = 1; break;
		case 'L': if (antcmd_sitemap_limit(&o->u.sitemap, optarg) < 0) return -1; break;
		case 'B':
			if (cli_parse_size("--max-body", optarg, &o->u.limits.max_body) < 0)
				return -1;
			break;
		case 'H':
			if (cli_parse_size("--max-header", optarg, &o->u.limits.max_header) < 0)
				return -1;
			break;
		case 'X': case 'M':
			if (cli_parse_int64(c == 'X' ? "--excerpt-chars" : "--max-archives", optarg,
					    1, c == 'X' ? 10000 : 100000, &v) < 0)
				return -1;
			if (c == 'X') o->u.excerpt_max = (size_t)v;
			else o->u.max_archives = v;
			break;
		case 'W':
			if (cli_parse_int64("--refetch-pause", optarg, -1, 60000, &v) < 0)
				return -1;
			o->u.refetch_pause_ms = v;
			break;
		case 'e': if (antcmd_lease_opt(optarg, &o->u) < 0) return -1; break;
		case ANTCMD_OPT_ROBOTS_AGE: case ANTCMD_OPT_ROBOTS_BYTES:
			if (antcmd_robots_opt(c, optarg, &o->u) < 0) return -1;
			break;
		case ANTCMD_OPT_RENDER_TIMEOUT: case ANTCMD_OPT_RENDER_MEMORY:
		case ANTCMD_OPT_RENDER_SETTLE: case ANTCMD_OPT_RENDER_JOBS:
			if (antcmd_render_opt(c, optarg, &o->u) < 0) return -1;
			break;
		case 'G':
			if (cli_parse_int64("--regex-seconds", optarg, 1, 3600, &v) < 0)
				return -1;
			o->u.regex_seconds = (double)v;
			break;
		case 'N': case 'D': case 'S':
			if (cli_parse_int64(c == 'N' ? "--max-source-news" : c == 'D' ? "--max-source-news-day"
					    : "--max-source-records", optarg, -1, INT64_MAX / 2, &v) < 0)
				return -1;
			*(c == 'N' ? &o->u.budget.max_news : c == 'D' ? &o->u.budget.max_news_day
			  : &o->u.budget.max_records) = v;
			break;
		case 'j': case 'n': case 'T': case 'C': case 'R': case 'P': case 'b':
			if (cli_parse_int64(c == 'j' ? "--jobs" : c == 'n' ? "--now" : c == 'T' ? "--timeout" :
					    c == 'C' ? "--connect-timeout" : c == 'R' ? "--max-redirects" : c == 'b' ? "--page-batch" : "--per-host",
					    optarg, c == 'R' ? 0 : 1, c == 'n' ? INT64_MAX / 2 : 100000, &v) < 0)
				return -1;
			if (c == 'j') o->u.limits.jobs = v;
			else if (c == 'n') o->u.now = v;
			else if (c == 'T') o->u.limits.timeout = v;
			else if (c == 'C') o->u.limits.connect_timeout = v;
			else if (c == 'R') o->u.limits.max_redirects = v;
			else if (c == 'b') o->u.page_batch = (size_t)v;
			else o->u.limits.per_host = v;
			break;
		default: return -1;
		}
	}
	if (optind != argc)
		return cli_usage_error(antcmd_update_help, "unexpected argument '%s'", argv[optind]), -1;
	return 0;
}

/* -v: one line per source read and per page checked, on standard error;
 * without it, the failures only (for cron).  URLs and errors: lb_term.h. */
static void verbose_source(void *ctx, const ant_store_source *src, int notmodified)
{
	const struct upd_opts *o = ctx;
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;

	if (o->verbose)
		fprintf(stderr, "%s: %s\n", lb_term(&a, src->url), src->last_error ?
			lb_term(&b, src->last_error) : notmodified ? "not modified" : "read");
	else if (src->last_error)
		cli_error("failed: %s: %s", lb_term(&a, src->url), lb_term(&b, src->last_error));
	lb_buf_release(&a);
	lb_buf_release(&b);
}

static void verbose_page(void *ctx, const ant_store_page *p, const ant_detect_outcome *out)
{
	const struct upd_opts *o = ctx;
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;

	if (o->verbose)
		fprintf(stderr, "%s: %s%s%s\n", lb_term(&a, p->url),
			p->last_error ? lb_term(&b, p->last_error) : out->updated ? "updated" : "unchanged",
			out->updated ? " by " : "",
			out->updated ? (out->rule ? out->rule : "first check") : "");
	else if (p->last_error && !antcmd_robots_kept_out(p) &&   /* counted apart */
		 p->fail_kind != ANT_FAIL_DEFERRED &&             /* waiting, not failed */
		 (p->fail_kind != ANT_FAIL_GONE || p->gone_at == o->u.now))   /* said once */
		cli_error("failed: %s: %s", lb_term(&a, p->url), lb_term(&b, p->last_error));
	lb_buf_release(&a);
	lb_buf_release(&b);
}

/* A page moved (ant_pagestate.h): said on standard output, unless -q. */
static void said_move(void *ctx, const char *from, const char *to, int merged)
{
	const struct upd_opts *o = ctx;
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;

	if (!o->quiet)
		printf("moved: %s -> %s%s\n", lb_term(&a, from), lb_term(&b, to),
		       merged ? " (already watched: merged into it)" : "");
	lb_buf_release(&a);
	lb_buf_release(&b);
}

static void summary(const ant_update_stats *u, double secs)
{
	printf("checked %u page%s: %u updated, %u unchanged, %u failed",
	       u->checked, u->checked == 1 ? "" : "s", u->updated, u->unchanged, u->failed);
	if (u->feeds_checked)
		printf("; %u feed%s checked (%u failed)", u->feeds_checked,
		       u->feeds_checked == 1 ? "" : "s", u->feeds_failed);
	if (u->sources) {
		printf("; read %u %ssource%s (%u failed): %lld records, %lld merged, ",
		       u->sources, u->atom_sources ? "" : "LIRS ", u->sources == 1 ? "" : "s",
		       u->sources_failed, (long long)u->records_read, (long long)u->records_merged);
		if (u->records_relayed)
			printf("%lld relayed, ", (long long)u->records_relayed);
		printf("%lld not watched, %lld skipped", (long long)u->records_ignored,
		       (long long)u->records_skipped);
		if (u->sources_same || u->news_held || u->sources_churning || u->sources_cut)
			printf(" (%u unchanged, %lld news over budget, %u churning, %u cut)",
			       u->sources_same, (long long)u->news_held, u->sources_churning,
			       u->sources_cut);
	}
	if (u->archives_read)
		printf("; %u Atom archive%s read", u->archives_read, u->archives_read == 1 ? "" : "s");
	if (u->moved || u->gone)
		printf("; %u moved, %u found gone", u->moved, u->gone);
	if (u->deferred || u->still_gone)
		printf("; %u deferred (Retry-After), %u still gone", u->deferred, u->still_gone);
	if (u->refetched || u->learned)
		printf("; %u page%s fetched again, %u noisy part%s learned", u->refetched,
		       u->refetched == 1 ? "" : "s", u->learned, u->learned == 1 ? "" : "s");
	if (u->unasked)   /* they held still: no word made per request to find */
		printf("; %u decided without a second fetch (held still)", u->unasked);
	if (u->when_quiet || u->links_quiet)   /* changes seen, not announced */
		printf("; %u change%s without the --when words, %u only of links to other pages", u->when_quiet,
		       u->when_quiet == 1 ? "" : "s", u->links_quiet);
	antcmd_robots_summary(u);
	antcmd_shared_summary(u);   /* PostgreSQL: this checker's share */
	printf("; %.2f s\n", secs);
}

/* "50 s", "4 min 50 s", "2 h 5 min", "1 d 3 h": d seconds, two largest units. */
static void span(char *b, size_t n, int64_t d)
{
	static const struct { int64_t s; const char *u; } unit[] = {
		{ 86400, "d" }, { 3600, "h" }, { 60, "min" }, { 1, "s" },
	};
	size_t i = 0;
	long long big, small;

	if (d < 0)
		d = 0;
	while (i < 3 && d < unit[i].s)
		i++;
	big = (long long)(d / unit[i].s);
	small = i < 3 ? (long long)(d % unit[i].s / unit[i + 1].s) : 0;
	if (small)
		snprintf(b, n, "%lld %s %lld %s", big, unit[i].u, small, unit[i + 1].u);
	else
		snprintf(b, n, "%lld %s", big, unit[i].u);
}

/* Nothing was checked: how many pages are due, when the next is (the
 * antenna's time zone, and how far), and that --force checks them all. */
static void none_due(const ant_update_stats *u, int64_t now, int64_t tz)
{
	char when[48], in[64];

	if (!u->pages) {
		/* a hub that only relays (sources, no pages): nothing of its own */
		if (!u->sources)
			printf("no page is watched: 'antenna add URL' adds one\n");
		return;
	}
	antcmd_time(when, sizeof when, u->next_due, tz);
	span(in, sizeof in, u->next_due - now);
	printf("0 of %u page%s due; the next at %s, in %s (--force checks every page now)\n",
	       u->pages, u->pages == 1 ? "" : "s", when, in);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_update(int argc, char **argv)
{
	struct upd_opts o;
	ant_update_stats st;
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	double t0 = mono();
	int rc;

	antcmd_update_outcome = (struct antcmd_update_outcome){ ANTCMD_UPD_USAGE, 0 };
	if ((rc = parse_opts(argc, argv, &o)) != 0)
		return rc > 0 ? CLI_OK : CLI_FATAL;
	antcmd_update_outcome.stage = ANTCMD_UPD_NOT_RUN;
	if (!(s = antcmd_open(ANT_STORE_OPEN_EXISTING)))
		return CLI_FATAL;
	o.u.now = antcmd_now(o.u.now);
	ant_update_config(s, &o.u);
	o.u.on_source = verbose_source;
	o.u.on_page = verbose_page;
	o.u.on_move = said_move;
	o.u.on_warning = antcmd_sitemap_warning;
	o.u.ctx = &o;
	rc = ant_update(s, &o.u, &st, &err);
	if (rc < 0) {
		cli_error("%s", lb_error_msg(&err));
	} else {
		antcmd_update_outcome.stage = ANTCMD_UPD_RAN;
		antcmd_update_outcome.failed = st.failed + st.sources_failed;   /* named on stderr */
		if (!o.quiet)
			summary(&st, mono() - t0);
		antcmd_notify_now = o.u.now;   /* notify.c: now, or after run's publish */
		if (!antcmd_notify_later)
			antcmd_notify_send(s, o.u.now, o.quiet, NULL);
		antcmd_trust_report(s);   /* relay sources held back, on stderr */
	}
	if (rc >= 0 && !st.checked && !o.u.force && !o.quiet)
		none_due(&st, o.u.now, o.u.tz);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
