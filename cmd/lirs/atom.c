/*
 * atom.c: `lirs atom` records the update events in LIRS files in an
 * SQLite state (src/atom/atom_evstore.h) and writes RFC 5005 archived Atom feeds
 * (src/atom/atom.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atom.h"
#include "cmds.h"
#include "common.h"
#include "drops.h"
#include "atom_evstore.h"
#include "lirs_merge.h"

static const char help[] =
	"usage: lirs atom --state FILE --base URL --out DIR [--now EPOCH] [--page-size N]\n"
	"                 [--title T] [--author A] [--max-age SECONDS] [--lang en|ja] [-v] INPUT...\n"
	"\n"
	"Bridge LIRS files into Atom feeds.  Every distinct (URL, Last-Modified) pair of a\n"
	"usable, fresh record is an update event; the state FILE (SQLite, created on first\n"
	"use) remembers them all.  Each run adds the new events, then writes:\n"
	"  DIR/index.atom      the newest events not yet archived (RFC 5005 subscription document)\n"
	"  DIR/archive/N.atom  N = 1, 2, ... oldest first, --page-size events each; written once\n"
	"                      when full, later only its next-archive link is added\n"
	"  DIR/current.atom    one entry per URL for the records fresh now (fh:complete)\n"
	"\n"
	"      --state FILE       the SQLite state (required)\n"
	"      --base URL         absolute http(s) URL where DIR is served (required; fixed\n"
	"                         for the life of the state)\n"
	"      --out DIR          where the feeds go (required)\n"
	"      --now EPOCH        the time for the freshness rule (default: the clock)\n"
	"      --max-age SECONDS  drop records detected longer ago (default 28800)\n"
	"      --page-size N      events per archive (default 50; fixed for the life of the state)\n"
	"      --title T          feed title (default: \"HOST updates\")\n"
	"      --author A         feed author (default: the base URL's host)\n"
	"      --lang en|ja       the language of the entries' summaries (default en;\n"
	"                         an archive keeps the one it was sealed with)\n"
	"      --busy-timeout MS  wait this long for another run's lock (default 5000)\n"
	"      --charset CS       cp932 (or sjis, shift_jis): read the INPUTs as Shift_JIS\n"
	"  -v, --verbose          print counts on standard error\n"
	"  -h, --help             show this help\n"
	"\n"
	"Records dropped from the future (a time more than 3600 seconds after --now)\n"
	"and records whose fields a ',' not escaped moved are counted on standard\n"
	"error with their FILE:LINE.\n"
	"Exit status: 0 success; 1 some records were skipped or dropped from the\n"
	"future (feeds still written);\n"
	"2 usage error, unreadable input (nothing written), or a state that is locked,\n"
	"from a newer version, or made with another --base or --page-size.\n";

typedef struct actx {
	int64_t now, max_age;
	atom_ev_run *run;         /* every usable, fresh record: the events, staged on disk */
	lirscmd_drops drops;      /* what is left out, said on stderr */
	lb_error err;
	int failed;
} actx;

/* Atom dates run from year 0000 to 9999 (RFC 3339); later ones are unusable. */
#define MAX_TIME 253402300799LL

static int on_record(void *ctx, const lirs_record *r)
{
	actx *c = ctx;

	if (lirscmd_drops_check(&c->drops, r) != 0 || r->last_modified < 0 ||
	    r->last_modified > MAX_TIME || r->last_detected > MAX_TIME)
		return 0;
	atom_ev_event e = {
		.url = r->url, .last_modified = r->last_modified, .last_detected = r->last_detected,
		.tz_offset = r->tz_offset, .content_length = r->content_length,
		.title = r->title ? r->title : "", .author = r->author ? r->author : "",
		.source_url = r->source_url ? r->source_url : "",
	};

	if (atom_ev_run_add(c->run, &e, &c->err) != 0) {
		cli_error("%s", lb_error_msg(&c->err));
		c->failed = 1;
	}
	return c->failed;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	lirscmd_drops_diag(&((actx *)ctx)->drops, d);
	if (d->severity >= LIRS_SEV_ERROR)
		lirscmd_print_diag(stderr, d);
}

/* All inputs are read (into a temporary file: atom_ev_run) before the state
 * is touched. */
static int read_inputs(actx *c, char **files, int n, int charset)
{
	lirs_reader_opts ro = { .on_record = on_record, .on_diag = on_diag, .ctx = c,
				.charset = charset };
	int status;

	if (cli_check_inputs(files, n) != 0)
		return CLI_FATAL;
	status = lirscmd_read_all(files, n, &ro, &c->failed, &c->drops.file);
	if (status == CLI_FATAL)
		return status;
	return c->failed ? CLI_FATAL : status;
}

static int publish(actx *c, const char *state, const char *dir, const atom_cfg *cfg,
		   int busy_ms, int verbose)
{
	lb_error err = LB_ERROR_INIT;
	atom_evstore *st;
	atom_stats as;

	if (atom_evstore_open(&st, state, busy_ms, &err) != 0) {
		cli_error("%s", lb_error_msg(&err));
		return CLI_FATAL;
	}
	if (atom_publish_run(st, dir, cfg, c->run, &as, &err) != 0) {
		cli_error("%s", lb_error_msg(&err));
		atom_evstore_close(st);
		return CLI_FATAL;
	}
	atom_evstore_close(st);
	if (verbose)
		cli_error("%zu records, %zu new events; %lld archives sealed, %lld written, %lld in all;"
			  " %zu entries in current.atom", atom_ev_run_count(c->run), as.events_added,
			  (long long)as.archives_sealed, (long long)as.archives_written,
			  (long long)as.archives_total, as.current_entries);
	return CLI_OK;
}

int cmd_atom(int argc, char **argv)
{
	enum { O_STATE = 256, O_BASE, O_OUT, O_NOW, O_PAGE, O_TITLE, O_AUTHOR, O_MAXAGE, O_BUSY, O_LANG,
	       O_CHARSET };
	static const struct option lopts[] = {
		{ "state", required_argument, NULL, O_STATE },
		{ "base", required_argument, NULL, O_BASE },
		{ "out", required_argument, NULL, O_OUT },
		{ "now", required_argument, NULL, O_NOW },
		{ "page-size", required_argument, NULL, O_PAGE },
		{ "title", required_argument, NULL, O_TITLE },
		{ "author", required_argument, NULL, O_AUTHOR },
		{ "max-age", required_argument, NULL, O_MAXAGE },
		{ "busy-timeout", required_argument, NULL, O_BUSY },
		{ "lang", required_argument, NULL, O_LANG },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	atom_cfg cfg = { .now = (int64_t)time(NULL), .page_size = ATOM_DEFAULT_PAGE_SIZE };
	actx c = { .max_age = LIRS_DEFAULT_MAX_AGE };
	const char *state = NULL, *dir = NULL;
	int64_t v, busy = ATOM_EVSTORE_DEFAULT_BUSY_MS;
	int opt, verbose = 0, status, rc, incs = LIRS_CHARSET_AUTO;

	while ((opt = cli_getopt(argc, argv, "vh", lopts, help)) != -1) {
		switch (opt) {
		case O_STATE: state = optarg; break;
		case O_BASE: cfg.base = optarg; break;
		case O_OUT: dir = optarg; break;
		case O_TITLE: cfg.title = optarg; break;
		case O_AUTHOR: cfg.author = optarg; break;
		case O_NOW:
			if (cli_parse_int64("--now", optarg, 1, MAX_TIME, &cfg.now) < 0)
				return CLI_FATAL;
			break;
		case O_PAGE:
			if (cli_parse_int64("--page-size", optarg, 1, 1000000, &cfg.page_size) < 0)
				return CLI_FATAL;
			break;
		case O_MAXAGE:
			if (cli_parse_int64("--max-age", optarg, 1, INT64_MAX / 2, &v) < 0)
				return CLI_FATAL;
			c.max_age = v;
			break;
		case O_LANG:
			if (strcmp(optarg, "en") && strcmp(optarg, "ja"))
				return cli_usage_error(help, "--lang: '%s' is not en or ja", optarg);
			cfg.lang = optarg;
			break;
		case O_BUSY:
			if (cli_parse_int64("--busy-timeout", optarg, 1, 3600000, &busy) < 0)
				return CLI_FATAL;
			break;
		case O_CHARSET:
			if (!lirscmd_input_charset(optarg, &incs))
				return cli_usage_error(help, "--charset: unknown charset '%s' (cp932, sjis "
						       "or shift_jis)", optarg);
			break;
		case 'v': verbose = 1; break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (!state || !cfg.base || !dir)
		return cli_usage_error(help, "--state, --base and --out are required");
	if (optind >= argc)
		return cli_usage_error(help, "no INPUT given");
	c.now = cfg.now;
	if (atom_ev_run_open(&c.run, &c.err) != 0) {
		cli_error("%s", lb_error_msg(&c.err));
		return CLI_FATAL;
	}
	lirscmd_drops_init(&c.drops, c.now, c.max_age, 0);
	status = read_inputs(&c, argv + optind, argc - optind, incs);
	if (status != CLI_FATAL && lirscmd_drops_report(&c.drops) && status < LIRSCMD_PROBLEMS)
		status = LIRSCMD_PROBLEMS;
	lirscmd_drops_release(&c.drops);
	if (status != CLI_FATAL && (rc = publish(&c, state, dir, &cfg, (int)busy, verbose)) > status)
		status = rc;
	atom_ev_run_close(c.run);
	return status;
}
