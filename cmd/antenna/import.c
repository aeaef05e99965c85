/*
 * import.c: antenna import FILE...: bring another antenna's watch list in
 * (samidare's config.yml, tama's sites.cfg / remote.cfg / tama.cfg, OPML,
 * jsonl) and its last update times (its LIRS file, e.g. sites.lirs.gz).
 * The options are parsed here and what ant_import() (ant_import.h) says is
 * printed: changes and notes on standard output, errors on standard error,
 * one summary line per file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "ant_import.h"

static const char help[] =
	"usage: antenna [-d FILE] import [-n] [--from FORMAT] [--group G] [--now EPOCH]\n"
	"                           [--max-bytes N] FILE...\n\n"
	"Add the pages and sources of another antenna's configuration to this one, and\n"
	"carry over the update times of its LIRS file.  FORMAT is found from the\n"
	"content, or given: samidare (config.yml), tama (tama.cfg, which names its\n"
	"site files, or one sites.cfg or remote.cfg),\n"
	"opml, lirs (the old antenna's sites.lirs.gz), jsonl ('antenna export --format\n"
	"jsonl', with its update times).  Import the configuration first, then the\n"
	"LIRS file.  Importing twice adds nothing.  Settings with no\n"
	"equivalent here are listed as FILE:LINE: unmapped: ...  Exit 0 all read,\n"
	"1 some entries or files were skipped (errors on standard error), 2 usage or\n"
	"database errors.\n\n"
	"  -n, --dry-run     print what would change, change nothing\n"
	"  --from FORMAT     samidare, tama, opml, lirs or jsonl, for every FILE\n"
	"  --group G         the group of imported pages that have none\n"
	"  --now EPOCH       the time of the import (default: the clock)\n"
	"  --max-bytes N     largest FILE read (default 64M; K/M/G suffixes)\n";

struct printer {
	int dry;
};

static void on_note(void *ctx, const ant_import_note *n)
{
	const char *sev = n->severity == ANT_IMP_ERROR ? "error" :
			  n->severity == ANT_IMP_UNMAPPED ? "unmapped" : "note";
	FILE *fp = n->severity == ANT_IMP_ERROR ? stderr : stdout;

	(void)ctx;
	if (n->severity == ANT_IMP_REPORT) {
		printf("%s\n", cli_t(n->message));
		return;
	}
	if (!n->file) {
		cli_error("%s", n->message);
		return;
	}
	fprintf(fp, "%s", cli_t(n->file));
	if (n->line)
		fprintf(fp, ":%lu", n->line);
	if (n->line && n->col)
		fprintf(fp, ":%lu", n->col);
	fprintf(fp, ": %s: %s\n", sev, cli_t(n->message));
}

static void on_file(void *ctx, const char *file, ant_imp_format f, const ant_import_stats *st)
{
	const struct printer *p = ctx;

	printf("%s (%s): %s%u page%s added, %u updated, %u unchanged; %u source%s added, %u already there",
	       cli_t(file), ant_import_format_name(f), p->dry ? "dry run: " : "", st->added,
	       st->added == 1 ? "" : "s", st->updated, st->same, st->src_added,
	       st->src_added == 1 ? "" : "s", st->src_same);
	if (f == ANT_IMP_FMT_LIRS || f == ANT_IMP_FMT_JSONL)
		printf("; %u update time%s taken", st->timed, st->timed == 1 ? "" : "s");
	printf("; %u unmapped, %u error%s\n", st->unmapped, st->errors, st->errors == 1 ? "" : "s");
}

/* The options into o; 0, -1 after --help, or CLI_FATAL (printed). */
static int parse_opts(int argc, char **argv, ant_import_opts *o, struct printer *p)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "group", required_argument, NULL, 'g' },
		{ "now", required_argument, NULL, 'N' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->max_bytes = ANT_IMPORT_DEFAULT_MAX_BYTES;
	while ((c = cli_getopt(argc, argv, "hn", opts, help)) != -1) {
		switch (c) {
		case 'h': return cli_help(help), -1;
		case 'n': o->dry_run = p->dry = 1; break;
		case 'g': o->group = optarg; break;
		case 'f':
			if (!(o->from = ant_import_format_from_name(optarg)))
				return cli_usage_error(help, "--from: '%s' is not samidare, tama, opml, lirs or jsonl", optarg);
			break;
		case 'N':
			if (cli_parse_int64("--now", optarg, 1, INT64_MAX / 2, &o->now) < 0)
				return CLI_FATAL;
			break;
		case 'B':
			if (cli_parse_size("--max-bytes", optarg, &o->max_bytes) < 0)
				return CLI_FATAL;
			break;
		default: return CLI_FATAL;
		}
	}
	if (optind >= argc)
		return cli_usage_error(help, "a FILE to import is needed");
	if (o->group && strchr(o->group, '\n'))
		return cli_usage_error(help, "--group: a group cannot contain a newline");
	o->files = (const char *const *)argv + optind;
	o->nfiles = (size_t)(argc - optind);
	return 0;
}

int cmd_import(int argc, char **argv)
{
	struct printer pr = { 0 };
	ant_import_opts o = { .on_note = on_note, .on_file = on_file, .ctx = &pr };
	ant_import_stats st;
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	int rc;

	if ((rc = parse_opts(argc, argv, &o, &pr)) != 0)
		return rc < 0 ? CLI_OK : CLI_FATAL;
	/* Lines in the order they happen, errors (stderr) among them. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!(s = antcmd_open(ANT_STORE_OPEN_EXISTING)))
		return CLI_FATAL;
	o.now = antcmd_now(o.now);
	if ((rc = ant_import(s, &o, &st, &err)) < 0)
		cli_error("%s", lb_error_msg(&err));
	ant_store_close(s);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error("cannot write to standard output"), CLI_FATAL;
	return rc < 0 ? CLI_FATAL : st.errors ? ANTCMD_NOTFOUND : CLI_OK;
}
