/*
 * run.c: antenna run DIR [UPDATE OPTIONS]: update, then publish into DIR.
 * For cron: one line of summary from each step.  Publishes even when the
 * update failed for some pages (they are shown with their errors); not
 * when the update itself could not run (database or lock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"

static const char help[] =
	"usage: antenna [-d FILE] run DIR [UPDATE-OPTION...]\n\n"
	"Run 'antenna update' with the options given, then 'antenna publish DIR'\n"
	"(with the same --now, if given).  See 'antenna update --help'.\n";

int cmd_run(int argc, char **argv)
{
	char *uargv[64], *pargv[5];
	int un = 0, pn = 0, rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return ant_help(help);
	if (argc < 2 || argv[1][0] == '-')
		return ant_usage_error(help, "DIR comes first");
	if (argc > 60)
		return ant_usage_error(help, "too many options");
	uargv[un++] = "update";
	pargv[pn++] = "publish";
	for (int i = 2; i < argc; i++) {
		uargv[un++] = argv[i];
		if (!strcmp(argv[i], "--now") && i + 1 < argc) {
			pargv[pn++] = "--now";
			pargv[pn++] = argv[i + 1];
		} else if (!strncmp(argv[i], "--now=", 6)) {
			pargv[pn++] = argv[i];
		}
	}
	uargv[un] = NULL;
	pargv[pn++] = argv[1];
	pargv[pn] = NULL;
	rc = cmd_update(un, uargv);
	if (rc != ANT_OK)
		return rc;
	return cmd_publish(pn, pargv);
}
