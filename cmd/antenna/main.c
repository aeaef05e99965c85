/*
 * main.c: the antenna command: its global option (-d FILE), then its
 * table of subcommands (one file each), run by the kit's dispatcher
 * (cli.h).
 */
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "lirs.h"

static const struct cli_cmd cmds[] = {
	/* Keep sorted: --help lists them in this order. */
	{ "add", cmd_add, "watch a page, or read a source: --lirs, --atom or --sitemap" },
	{ "check-db", cmd_check_db, "run SQLite's integrity check on the database" },
	{ "copy", cmd_copy, "copy the antenna into another database (SQLite or PostgreSQL)" },
	{ "diff", cmd_diff, "show the last change found in a watched page's text" },
	{ "export", cmd_export, "write the watch list as OPML, samidare's config.yml or JSON Lines" },
	{ "import", cmd_import, "add the pages of a samidare, tama, OPML or LIRS file (-n: dry run)" },
	{ "init", cmd_init, "create the database and set the antenna's name and options" },
	{ "list", cmd_list, "list watched pages (text or JSON Lines) or sources" },
	{ "publish", cmd_publish, "write index.html, lirs.gz and the Atom feeds into DIR" },
	{ "remove", cmd_remove, "stop watching a page or a source" },
	{ "run", cmd_run, "update, then publish into DIR (for cron)" },
	{ "set", cmd_set, "change a watched page's settings, keeping its history" },
	{ "show", cmd_show, "show one page's or source's state" },
	{ "update", cmd_update, "check the pages that are due and read the sources (LIRS, Atom)" },
};

static const struct cli_program antenna = {
	.name = "antenna",
	.version = "antenna (lirs-antenna) " LIRS_VERSION,
	.usage = "usage: antenna [-d FILE] COMMAND [OPTION...] [ARG...]\n"
		 "       antenna help COMMAND | --help | --version\n\n"
		 "An update antenna: watch pages, and other antennas' LIRS files and\n"
		 "archived Atom feeds (add --atom), publish the updates as HTML, LIRS and Atom.\n\n"
		 "  -d, --db FILE   the state database (default $ANTENNA_DB, else ./antenna.db)\n\n",
	.footer = "\nRun 'antenna COMMAND --help' for a command's options; see antenna(1).\n",
	.cmds = cmds,
	.ncmds = sizeof cmds / sizeof *cmds,
};

/* The global options, before the command: the index of the command, or -1 (printed). */
static int global_opts(int argc, char **argv)
{
	int i = 1;
	const char *env = getenv("ANTENNA_DB");

	if (env && *env)
		antcmd_db_path = env;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--db")) {
			if (i + 1 >= argc) {
				cli_error("option '%s' needs a value", argv[i]);
				return -1;
			}
			antcmd_db_path = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--db=", 5)) {
			antcmd_db_path = argv[i] + 5;
			i++;
		} else {
			break;
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	int i;

	cli_prog = antenna.name;
	if ((i = global_opts(argc, argv)) < 0)
		return CLI_FATAL;
	return cli_dispatch(&antenna, argc - i, argv + i);
}
