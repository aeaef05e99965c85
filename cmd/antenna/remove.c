/*
 * remove.c: antenna remove: stop watching a page or reading a source.
 * The page's past update events stay in the Atom archives (an archive
 * never changes once written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"

static const char help[] =
	"usage: antenna [-d FILE] remove URL\n\n"
	"Stop watching the page at URL, or stop reading the LIRS or Atom source at\n"
	"URL; a relay source's relayed pages go with it (no longer published).\n"
	"Exit status 1 when URL is neither.\n";

/* The records a relay source holds (its relayed pages), which its removal
 * takes with it (ON DELETE CASCADE); -1 when key is no relay source. */
static int64_t relayed_held(ant_store *s, const char *key)
{
	ant_store_source *x;
	size_t n;
	int64_t held = -1;

	if (ant_store_sources_load(s, &x, &n, NULL) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (x[i].relay && !strcmp(x[i].url_key, key))
			held = ant_store_srcrec_count(s, x[i].id, NULL);
	ant_store_sources_free(x, n);
	return held;
}

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
	int64_t held = -1;

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
	if (rc == 0) {
		held = relayed_held(s, key);
		rc = ant_store_source_remove(s, key, &err);
	}
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc == 0)
		cli_error("'%s' is not watched", argv[optind]);
	else if (held >= 0)
		printf("removed '%s' and the %lld page%s it relayed\n", cli_t(argv[optind]), (long long)held,
		       held == 1 ? "" : "s");
	else
		printf("removed '%s'\n", cli_t(argv[optind]));
	free(key);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : rc == 0 ? ANTCMD_NOTFOUND : CLI_OK;
}
