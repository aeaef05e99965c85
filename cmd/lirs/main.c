/*
 * main.c: the lirs command: its table of subcommands (cmds.h, one file
 * each), run by the kit's dispatcher (cli.h).
 */
#include "cli.h"
#include "cmds.h"
#include "lirs.h"

static const struct cli_cmd cmds[] = {
	/* Keep sorted: --help lists them in this order. */
	{ "atom", cmd_atom, "bridge LIRS files into RFC 5005 archived Atom feeds" },
	{ "cat", cmd_cat, "decode LIRS files to JSON Lines, TSV or LIRS" },
	{ "merge", cmd_merge, "merge LIRS files into one, one record per URL" },
	{ "pack", cmd_pack, "write JSON Lines records as a LIRS file" },
	{ "validate", cmd_validate, "check LIRS files against LIRS 2.1 and report problems" },
};

static const struct cli_program lirs = {
	.name = "lirs",
	.version = "lirs " LIRS_VERSION,
	.usage = "usage: lirs COMMAND [OPTION...] [FILE...]\n"
		 "       lirs help COMMAND | --help | --version\n\n"
		 "Read, check and write LIRS 2.1 update-time files (and HINA-DI, tama's format).\n\n",
	.footer = "\nRun 'lirs COMMAND --help' for a command's options; "
		  "see lirs(1) and lirs(5).\n",
	.cmds = cmds,
	.ncmds = sizeof cmds / sizeof *cmds,
};

int main(int argc, char **argv)
{
	return cli_dispatch(&lirs, argc - 1, argv + 1);
}
