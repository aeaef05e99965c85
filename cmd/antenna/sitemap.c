/*
 * sitemap.c: what 'antenna update' (and run) says of sitemap sources:
 * the --sitemap-limit option's values, and a sitemap's bad entries told
 * on standard error with the file and line.
 */
#include <stdio.h>

#include "antenna.h"
#include "ant_sitemap.h"

int antcmd_sitemap_limit(ant_sitemap_limits *l, const char *spec)
{
	lb_error err = LB_ERROR_INIT;

	if (ant_sitemap_limit_set(l, spec, &err) < 0) {
		cli_error("--sitemap-limit: %s", lb_error_msg(&err));
		return -1;
	}
	return 0;
}

void antcmd_sitemap_warning(void *ctx, const char *where, unsigned long line, const char *msg)
{
	(void)ctx;
	/* cli_error makes the sitemap's words safe for a terminal */
	if (line)
		cli_error("warning: %s:%lu: %s", where, line, msg);
	else
		cli_error("warning: %s: %s", where, msg);
}
