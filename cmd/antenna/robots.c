/*
 * robots.c: what the commands say of robots.txt (ant_robots.h): the
 * per-page override of 'antenna set URL --ignore-robots' with its
 * warning, and the lines 'antenna show' gives.
 */
#include <stdio.h>

#include "antenna.h"
#include "ant_robots.h"

int antcmd_robots_set(ant_store *s, const ant_store_page *p, int ignore, lb_buf *ch, lb_error *err)
{
	int was = ant_store_robots_ignore_get(s, p->id, err);

	if (was < 0)
		return was;
	if (ignore)
		/* said every time: the operator goes against the site's wish */
		cli_error("warning: '%s' will be fetched whatever its site's robots.txt says: its "
			  "operator may have asked crawlers to keep away (RFC 9309)", p->url);
	if (was == ignore)
		return 0;
	lb_buf_adds(ch, ignore ? " ignore-robots" : " no-ignore-robots");
	return ant_store_robots_ignore_set(s, p->id, ignore, err);
}

void antcmd_show_robots(ant_store *s, const ant_store_page *p)
{
	int ign = ant_store_robots_ignore_get(s, p->id, NULL);

	if (ign > 0)
		printf("robots.txt:     ignored for this page (set --ignore-robots)\n");
	else if (ant_robots_excluded(p->last_error))
		printf("robots.txt:     excluded: not fetched (%s)\n",
		       cli_t(p->last_error + sizeof ANT_ROBOTS_ERROR_PREFIX - 1));
}
