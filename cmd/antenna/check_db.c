/*
 * check_db.c: antenna check-db: PRAGMA integrity_check, for the crash
 * tests (the sqlite3 shell may be missing) and for worried operators.
 */
#include <stdio.h>

#include "antenna.h"

static const char help[] =
	"usage: antenna [-d FILE] check-db\n\n"
	"Run SQLite's integrity check on the database; print 'ok' and exit 0 when it\n"
	"passes, else print the first problem and exit 2.\n";

int cmd_check_db(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	store *s;
	char err[512];
	int c, rc;

	while ((c = ant_getopt(argc, argv, "h", opts, help)) != -1)
		return c == 'h' ? ant_help(help) : ANT_FATAL;
	if (optind != argc)
		return ant_usage_error(help, "unexpected argument '%s'", argv[optind]);
	if (!(s = ant_open(STORE_OPEN_EXISTING)))
		return ANT_FATAL;
	rc = store_check(s, err, sizeof err);
	if (rc < 0)
		ant_error("%s", err);
	else
		printf("ok\n");
	store_close(s);
	return rc < 0 ? ANT_FATAL : ANT_OK;
}
