/*
 * remove.c: antenna remove: stop watching a page or reading a source.
 * The page's past update events stay in the Atom archives (an archive
 * never changes once written).
 */
#include <stdio.h>
#include <stdlib.h>

#include "antenna.h"

static const char help[] =
	"usage: antenna [-d FILE] remove URL\n\n"
	"Stop watching the page at URL, or stop reading the LIRS source at URL.\n"
	"Exit status 1 when URL is neither.\n";

int cmd_remove(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_store *s;
	char *key;
	lb_error err = LB_ERROR_INIT;
	int c, rc;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1)
		if (c == 'h')
			return cli_help(help);
		else
			return CLI_FATAL;
	if (optind + 1 != argc)
		return cli_usage_error(help, "one URL is needed");
	if (!(s = antcmd_open_url(argv[optind], &key)))
		return CLI_FATAL;
	rc = ant_store_page_remove(s, key, &err);
	if (rc == 0)
		rc = ant_store_source_remove(s, key, &err);
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc == 0)
		cli_error("'%s' is not watched", argv[optind]);
	else
		printf("removed '%s'\n", argv[optind]);
	free(key);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : rc == 0 ? ANTCMD_NOTFOUND : CLI_OK;
}
