/*
 * robots.c: what the commands say of robots.txt (ant_robots.h): the
 * per-page override of 'antenna set URL --ignore-robots' with its
 * warning, the lines 'antenna show' gives, and update's options and words.
 */
#include <stdio.h>
#include <string.h>

#include "antenna.h"
#include "ant_robots.h"
#include "ant_update.h"

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
	else if (p->last_error && ant_robots_excluded(p->fail_kind))
		printf("robots.txt:     excluded: not fetched (%s)\n",
		       cli_t(p->last_error + (strncmp(p->last_error, ANT_ROBOTS_ERROR_PREFIX,
						       sizeof ANT_ROBOTS_ERROR_PREFIX - 1) ? 0 :
					      sizeof ANT_ROBOTS_ERROR_PREFIX - 1)));
}

int antcmd_robots_opt(int c, const char *arg, ant_update_opts *u)
{
	if (c == ANTCMD_OPT_ROBOTS_AGE)
		return cli_parse_int64("--robots-max-age", arg, 1, 30 * 86400, &u->robots_max_age) < 0 ? -1 : 0;
	return cli_parse_size("--robots-max-bytes", arg, &u->robots_max_bytes) < 0 ? -1 : 0;
}

int antcmd_robots_kept_out(const ant_store_page *p)
{
	return p->last_error && ant_robots_excluded(p->fail_kind);
}

void antcmd_robots_summary(const ant_update_stats *st)
{
	if (st->robots_excluded)
		printf("; %u kept out by robots.txt", st->robots_excluded);
}
