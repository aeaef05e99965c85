/*
 * main.c: the lirs dispatcher.  One table, sorted by name, of the
 * subcommands in cmds.h (one file each); everything else lives there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common.h"
#include "lirs.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	/* Keep sorted: lookup is a bsearch. */
	{ "atom", cmd_atom, "bridge LIRS files into RFC 5005 archived Atom feeds" },
	{ "cat", cmd_cat, "decode LIRS files to JSON Lines, TSV or LIRS" },
	{ "merge", cmd_merge, "merge LIRS files into one, one record per URL" },
	{ "pack", cmd_pack, "write JSON Lines records as a LIRS file" },
	{ "validate", cmd_validate, "check LIRS files against LIRS 2.1 and report problems" },
};
#define NCMDS (sizeof cmds / sizeof *cmds)

static int cmp_cmd(const void *key, const void *elem)
{
	return strcmp(key, ((const struct cmd *)elem)->name);
}

static const struct cmd *find_cmd(const char *name)
{
	return bsearch(name, cmds, NCMDS, sizeof *cmds, cmp_cmd);
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: lirs COMMAND [OPTION...] [FILE...]\n"
		"       lirs help COMMAND | --help | --version\n\n"
		"Read, check and write LIRS 2.1 update-time files.\n\nCommands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(fp, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(fp, "\nRun 'lirs COMMAND --help' for a command's options; "
		"see lirs(1) and lirs(5).\n");
}

/* Runs cmd with argv[0] = its name; "lirs cat" prefixes its messages. */
static int run(const struct cmd *c, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof prog, "lirs %s", c->name);
	cli_prog = prog;
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return CLI_FATAL;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("lirs %s\n", LIRS_VERSION);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { argv[2], "--help", NULL };
		if (!(c = find_cmd(argv[2]))) {
			fprintf(stderr, "lirs: unknown command '%s'\n", argv[2]);
			return CLI_FATAL;
		}
		return run(c, 2, hargv);
	}
	if (!(c = find_cmd(argv[1]))) {
		fprintf(stderr, "lirs: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return CLI_FATAL;
	}
	return run(c, argc - 1, argv + 1);
}
