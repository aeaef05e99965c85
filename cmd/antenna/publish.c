/*
 * publish.c: antenna publish DIR: the static site from the database
 * (index.html, lirs.gz, sites.di.gz, index.atom, archive/N.atom,
 * current.atom), written by ant_publish_site() (ant_publish.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "antenna.h"
#include "ant_publish.h"
#include "ant_websub.h"

static const char help[] =
	"usage: antenna [-d FILE] publish [-q] [--now EPOCH] [--keep-events N|all] [--html-limit N]\n"
	"                                [--html-pages N] [--current-entries N]\n"
	"                                [--current-bytes N] [--wait S] DIR\n\n"
	"Write the antenna's site into DIR (created when missing; its parent must\n"
	"exist): index.html (the most recent updates; the rest in index-2.html,\n"
	"index-3.html, ...), lirs.gz (every page with a fresh update), sites.di.gz\n"
	"(the same as HINA-DI), index.atom, archive/N.atom and current.atom.  Each\n"
	"file is replaced atomically; the HTML files only when all are written.\n\n"
	"  -q, --quiet        nothing on standard output, no warnings about lirs.gz's\n"
	"                     characters (errors are still said)\n"
	"  --now EPOCH        the time of this publish (default: the clock)\n"
	"  --keep-events N    keep at least the N newest update events of archives\n"
	"                     already written, 'all' to keep every one (default: the\n"
	"                     database's, see 'antenna init --keep-events')\n"
	"  --html-limit N     updates listed per HTML file (default: the database's,\n"
	"                     see 'antenna init --html-limit'; else 1000)\n"
	"  --html-pages N, --current-entries N, --current-bytes N\n"
	"                     the caps of the HTML files and of current.atom, this\n"
	"                     once (default: the database's, see 'antenna init')\n"
	"  --wait S           on PostgreSQL, while another publish of the database\n"
	"                     runs, wait for it up to S seconds (default 60), then stop\n"
	"                     naming it; 0 stops at once (publish from one machine)\n";

/* What lirs.gz holds that is not exactly the pages' text (lirs(5)). */
static void lirs_warnings(const ant_pub_lirs_counts *n)
{
	if (n->replaced)
		cli_error("warning: lirs.gz: %lu characters EUC-JP cannot hold were written as U+3013",
			  n->replaced);
	if (n->approximated)
		cli_error("warning: lirs.gz: %lu characters written as their nearest EUC-JP "
			  "equivalent (e.g. ¥ as ￥)", n->approximated);
	if (n->substituted)
		cli_error("warning: lirs.gz: %lu vendor characters (NEC/IBM extensions) written as "
			  "their readable forms (e.g. ① as (1), 髙 as 高; 'antenna init --charset "
			  "euc-jp-ms' keeps them)", n->substituted);
	if (n->too_long)
		cli_error("warning: lirs.gz: %lu records left out: a line longer than a LIRS reader "
			  "keeps (1 MiB)", n->too_long);
}

/* Archives a pruned history cannot give again (ant_publish_result). */
static void lost_warning(const char *dir, const ant_publish_result *r)
{
	char keep[32];

	if (r->keep_events < 0)
		snprintf(keep, sizeof keep, "all");
	else
		snprintf(keep, sizeof keep, "%lld", (long long)r->keep_events);
	cli_error("warning: %lld archive%s from '%s/archive/%lld.atom' to '%lld.atom' "
		  "cannot be written again: their events were pruned (retention now: keep-events %s); "
		  "copy them from the old directory or a backup (archives never change)",
		  (long long)r->lost, r->lost == 1 ? "" : "s", dir, (long long)r->lost_first,
		  (long long)r->lost_last, keep);
}

/* After a publish with news: each WebSub hub hears which feeds changed.
 * Never fatal: a hub that is down is said, and pinged again at the next
 * publish with news. */
static void websub_after(ant_store *s, int quiet)
{
	ant_websub_hubs h;
	ant_websub_report r;
	char *base = ant_setting_text(s, ANT_SET_BASE);
	lb_buf dir = LB_BUF_INIT;

	ant_websub_hubs_load(s, &h);
	if (h.n && base && *base && lb_buf_adds(&dir, base) == 0 &&
	    (dir.data[dir.len - 1] == '/' || lb_buf_adds(&dir, "/") == 0)) {
		ant_websub_ping(&h, dir.data, &r);
		if (r.failed)
			cli_error("warning: WebSub: %zu of %zu pings failed: %s", r.failed,
				  r.failed + r.sent, lb_error_msg(&r.first));
		if (r.sent && !quiet)
			printf("told %zu WebSub hub%s of the changed feeds\n", h.n, h.n == 1 ? "" : "s");
	}
	free(base);
	lb_buf_release(&dir);
	ant_websub_hubs_free(&h);
}

/* --html-limit, --html-pages, --current-entries, --current-bytes */
static int parse_cap(int c, const char *v, ant_publish_opts *po)
{
	if (c == 'H')
		return cli_parse_int64("--html-limit", v, 1, 1000000, &po->html_limit);
	if (c == 'G')
		return cli_parse_int64("--html-pages", v, 1, 1000000, &po->html_pages);
	if (c == 'E')
		return cli_parse_int64("--current-entries", v, 1, INT64_MAX / 2, &po->current_entries);
	return cli_parse_int64("--current-bytes", v, 4096, INT64_MAX / 2, &po->current_bytes);
}

int cmd_publish(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "now", required_argument, NULL, 'n' },
		{ "keep-events", required_argument, NULL, 'k' },
		{ "html-limit", required_argument, NULL, 'H' },
		{ "html-pages", required_argument, NULL, 'G' },
		{ "current-entries", required_argument, NULL, 'E' },
		{ "current-bytes", required_argument, NULL, 'B' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_publish_opts po = { .now = 0, .keep_events = ANT_KEEP_DEFAULT, .html_limit = 0 };
	ant_publish_result res;
	lb_error err = LB_ERROR_INIT;
	const char *dir;
	ant_store *s;
	int64_t wait = ANTCMD_PUBLISH_WAIT;
	int c, rc, quiet = 0;

	while ((c = cli_getopt(argc, argv, "hq", opts, help)) != -1) {
		if (c == 'h')
			return cli_help(help);
		if (c == 'q') {
			quiet = 1;
			continue;
		}
		if (c == 'k') {
			if (antcmd_parse_keep("--keep-events", optarg, &po.keep_events) < 0)
				return CLI_FATAL;
			continue;
		}
		if (c == 'w') {
			if (cli_parse_int64("--wait", optarg, 0, 86400, &wait) < 0)
				return CLI_FATAL;
			continue;
		}
		if (c == 'H' || c == 'G' || c == 'E' || c == 'B') {
			if (parse_cap(c, optarg, &po) < 0)
				return CLI_FATAL;
			continue;
		}
		if (c != 'n' || cli_parse_int64("--now", optarg, 1, INT64_MAX / 2, &po.now) < 0)
			return CLI_FATAL;
	}
	if (optind + 1 != argc)
		return cli_usage_error(help, "one DIR is needed");
	if (!(s = antcmd_open(ANT_STORE_OPEN_EXISTING)))
		return CLI_FATAL;
	if (antcmd_publish_lock(s, (int)wait) < 0) {   /* PostgreSQL: one publish at a time */
		ant_store_close(s);
		return CLI_FATAL;
	}
	dir = argv[optind];
	po.now = antcmd_now(po.now);
	rc = ant_publish_site(s, dir, &po, &res, &err);
	if (res.lost)
		lost_warning(dir, &res);
	if (rc < 0) {
		cli_error("%s", lb_error_msg(&err));
	} else if (!quiet) {
		lirs_warnings(&res.counts);
		printf("published %zu page%s: %s/index.html", res.pages, res.pages == 1 ? "" : "s", dir);
		if (res.html_files > 1)
			printf(" (and index-2.html to index-%zu.html)", res.html_files);
		if (res.html_listed < res.pages)
			printf(", the newest %zu listed (--html-pages)", res.html_listed);
		putchar('\n');
		if (res.current_capped)
			printf("current.atom: the newest %zu, not complete (--current-entries, "
			       "--current-bytes)\n", res.current_entries);
	}
	if (rc >= 0 && res.news)
		websub_after(s, quiet);
	if (rc >= 0) {
		/* Publishing pruned the history: its pages go back to the file
		 * system.  A failure (another process reading) loses nothing,
		 * the pages stay free for the next update. */
		if (ant_store_compact(s, &err) < 0)
			cli_error("warning: database not compacted: %s", lb_error_msg(&err));
	}
	ant_store_close(s);
	/* 1: published, but archives lost with the directory stay lost */
	return rc < 0 ? CLI_FATAL : res.lost ? ANTCMD_NOTFOUND : CLI_OK;
}
