/*
 * run.c: antenna run DIR [UPDATE OPTIONS]: update, then publish into DIR.
 * For cron: one line of summary from each step, none with -q; failures on
 * standard error; an exit status per outcome (RUN_*).  Publishes even when
 * the update failed for some pages (they are shown with their errors); not
 * when the update itself could not run (database or lock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"

static const char help[] =
	"usage: antenna [-d FILE] run [-q] [UPDATE-OPTION...] DIR\n\n"
	"Run 'antenna update' with the options given, then 'antenna publish DIR'\n"
	"(with the same --now and -q, if given).  See 'antenna update --help'.\n\n"
	"  -q, --quiet   nothing on standard output; what failed is still said on\n"
	"                standard error (for cron, which mails what is printed)\n\n"
	"Exit status: 0 all went well; 1 published, but some pages or sources failed\n"
	"(or archives were lost: see standard error); 2 usage error; 3 the update could\n"
	"not run (the database cannot be opened, or another run holds its lock); 4 the\n"
	"publish failed.\n";

/* The exit statuses (antenna(1) EXIT STATUS). */
enum { RUN_OK = 0, RUN_FAILURES = 1, RUN_USAGE = 2, RUN_NOT_RUN = 3, RUN_PUBLISH_FAILED = 4 };

/* One of update's options that takes its value as the next argument
 * ("--jobs 4", "-j 4"), by update's own table, so that no option is
 * forgotten here. */
static int takes_value(const char *a)
{
	const char *c;

	if (a[0] == '-' && a[1] != '-' && a[1] && !a[2])
		return (c = strchr(cmd_update_shortopts, a[1])) && c[1] == ':';
	if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
		return 0;
	for (const struct option *o = cmd_update_longopts; o->name; o++)
		if (!strcmp(a + 2, o->name))
			return o->has_arg == required_argument;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	char *uargv[64], *pargv[6], *dir = NULL;
	int un = 0, pn = 0, rc, quiet = 0;

	if (argc > 60)
		return cli_usage_error(help, "too many options");
	uargv[un++] = "update";
	pargv[pn++] = "publish";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return cli_help(help);
		if (argv[i][0] != '-') {
			if (dir)
				return cli_usage_error(help, "one DIR is needed");
			dir = argv[i];
			continue;
		}
		uargv[un++] = argv[i];
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			pargv[pn++] = "-q", quiet = 1;
		if (!strncmp(argv[i], "--now=", 6))
			pargv[pn++] = argv[i];
		if (takes_value(argv[i]) && i + 1 < argc) {
			if (!strcmp(argv[i], "--now")) {
				pargv[pn++] = "--now";
				pargv[pn++] = argv[i + 1];
			}
			uargv[un++] = argv[++i];
		}
	}
	if (!dir)
		return cli_usage_error(help, "one DIR is needed");
	uargv[un] = NULL;
	pargv[pn++] = dir;
	pargv[pn] = NULL;
	antcmd_notify_later = 1;   /* notify.c: after the publish, never before it */
	rc = cmd_update(un, uargv);
	if (antcmd_update_outcome.stage == ANTCMD_UPD_USAGE)
		return rc == CLI_OK ? CLI_OK : RUN_USAGE;   /* --help, or a bad option */
	if (antcmd_update_outcome.stage != ANTCMD_UPD_RAN)
		return RUN_NOT_RUN;
	rc = cmd_publish(pn, pargv);
	antcmd_notify_after_run(quiet, dir);
	if (rc != CLI_OK && rc != ANTCMD_NOTFOUND)
		return RUN_PUBLISH_FAILED;
	if (antcmd_update_outcome.failed)
		cli_error("%u page%s or source%s failed: see above, and 'antenna list'",
			  antcmd_update_outcome.failed, antcmd_update_outcome.failed == 1 ? "" : "s",
			  antcmd_update_outcome.failed == 1 ? "" : "s");
	return rc == ANTCMD_NOTFOUND || antcmd_update_outcome.failed ? RUN_FAILURES : RUN_OK;
}
