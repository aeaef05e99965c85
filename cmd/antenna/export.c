/*
 * export.c: antenna export --format opml|samidare|jsonl: the watch list
 * on standard output (ant_export.h writes it), so that nobody is locked
 * in.  opml and samidare output read back with 'antenna import' to the
 * same watch list (tests/import/run.sh checks it).
 */
#include <errno.h>
#include <stdio.h>

#include "antenna.h"
#include "ant_export.h"

static const char help[] =
	"usage: antenna [-d FILE] export [--format opml|samidare|jsonl]\n\n"
	"Write the watch list on standard output: every page with its group, ignore\n"
	"and --only patterns, author, forced charset, the title and feed the user set,\n"
	"its check URL and --no-auto-ignore, then the sources, LIRS, Atom and sitemap, with\n"
	"whether each is a relay source.  opml (the default) and samidare (a\n"
	"config.yml) read back with 'antenna import'; jsonl is one JSON object per\n"
	"page or source, with the update times.  Not written: the database's\n"
	"settings (antenna init) and the update history.\n\n"
	"  --format F   opml, samidare or jsonl\n";

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	int c, fmt = ANT_EXPORT_OPML, rc;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1) {
		switch (c) {
		case 'h': return cli_help(help);
		case 'f':
			if ((fmt = ant_export_format_from_name(optarg)) < 0)
				return cli_usage_error(help, "--format: '%s' is not opml, samidare or jsonl", optarg);
			break;
		default: return CLI_FATAL;
		}
	}
	if (!(s = antcmd_open_no_operand(argc, argv, help)))
		return CLI_FATAL;
	rc = ant_export(s, fmt, stdout, &err);
	ant_store_close(s);
	if (rc == LB_ESINK)   /* err->sys says why */
		return errno = err.sys, cli_write_error(NULL), CLI_FATAL;
	if (rc < 0)
		return cli_error("%s", lb_error_msg(&err)), CLI_FATAL;
	return cli_close_stdout();
}
