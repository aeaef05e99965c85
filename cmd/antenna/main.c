/*
 * main.c: the antenna dispatcher.  Global options (-d FILE), then one
 * table, sorted by name, of the subcommands (one file each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "lirs.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	/* Keep sorted: lookup is a bsearch. */
	{ "add", cmd_add, "watch a page, or subscribe to a LIRS source (--lirs)" },
	{ "check-db", cmd_check_db, "run SQLite's integrity check on the database" },
	{ "export", cmd_export, "write the watch list as OPML, samidare's config.yml or JSON Lines" },
	{ "import", cmd_import, "add the pages of a samidare, tama, OPML or LIRS file (-n: dry run)" },
	{ "init", cmd_init, "create the database and set the antenna's name and options" },
	{ "list", cmd_list, "list watched pages (text or JSON Lines) or sources" },
	{ "publish", cmd_publish, "write index.html, lirs.gz and the Atom feeds into DIR" },
	{ "remove", cmd_remove, "stop watching a page or a LIRS source" },
	{ "run", cmd_run, "update, then publish into DIR (for cron)" },
	{ "show", cmd_show, "show one page's or source's state" },
	{ "update", cmd_update, "check the pages that are due and read the LIRS sources" },
};
#define NCMDS (sizeof cmds / sizeof *cmds)

static int cmp_cmd(const void *key, const void *elem)
{
	return strcmp(key, ((const struct cmd *)elem)->name);
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: antenna [-d FILE] COMMAND [OPTION...] [ARG...]\n"
		"       antenna help COMMAND | --help | --version\n\n"
		"An update antenna: watch pages and other antennas' LIRS files, publish\n"
		"the updates as HTML, LIRS and Atom.\n\n"
		"  -d, --db FILE   the state database (default $ANTENNA_DB, else ./antenna.db)\n\n"
		"Commands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(fp, "  %-9s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(fp, "\nRun 'antenna COMMAND --help' for a command's options; see antenna(1).\n");
}

static int run(const struct cmd *c, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof prog, "antenna %s", c->name);
	ant_prog = prog;
	return c->fn(argc, argv);
}

/* Global options come before the command. */
static int global_opts(int argc, char **argv)
{
	int i = 1;
	const char *env = getenv("ANTENNA_DB");

	if (env && *env)
		ant_db_path = env;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--db")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "antenna: option '%s' needs a value\n", argv[i]);
				return -1;
			}
			ant_db_path = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--db=", 5)) {
			ant_db_path = argv[i] + 5;
			i++;
		} else {
			break;
		}
	}
	return i;
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	int i = global_opts(argc, argv);

	if (i < 0)
		return ANT_FATAL;
	if (i >= argc) {
		usage(stderr);
		return ANT_FATAL;
	}
	if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
	    (!strcmp(argv[i], "help") && i + 1 == argc)) {
		usage(stdout);
		return ANT_OK;
	}
	if (!strcmp(argv[i], "--version")) {
		printf("antenna (lirs-antenna) %s\n", LIRS_VERSION);
		return ANT_OK;
	}
	if (!strcmp(argv[i], "help")) {
		char *hargv[] = { argv[i + 1], "--help", NULL };
		if (!(c = bsearch(argv[i + 1], cmds, NCMDS, sizeof *cmds, cmp_cmd))) {
			fprintf(stderr, "antenna: unknown command '%s'\n", argv[i + 1]);
			return ANT_FATAL;
		}
		return run(c, 2, hargv);
	}
	if (!(c = bsearch(argv[i], cmds, NCMDS, sizeof *cmds, cmp_cmd))) {
		fprintf(stderr, "antenna: unknown command '%s'\n", argv[i]);
		usage(stderr);
		return ANT_FATAL;
	}
	return run(c, argc - i, argv + i);
}
