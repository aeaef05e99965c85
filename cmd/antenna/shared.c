/*
 * shared.c: what update says of several checkers over one PostgreSQL
 * (ant_store.h "several checkers"): its --lease, and its share of the
 * work in the summary line; publish's lock.
 */
#include <stdio.h>

#include "antenna.h"
#include "ant_store.h"
#include "ant_update.h"

int antcmd_lease_opt(const char *arg, ant_update_opts *u)
{
	return cli_parse_int64("--lease", arg, 1, 86400, &u->lease_seconds) < 0 ? -1 : 0;
}

void antcmd_shared_summary(const ant_update_stats *u)
{
	if (!u->claims && !u->sources_skipped)
		return;   /* SQLite, or nothing claimed */
	printf("; %u claim%s of %u server%s%s", u->claims, u->claims == 1 ? "" : "s",
	       u->servers_claimed, u->servers_claimed == 1 ? "" : "s",
	       u->sources_skipped ? ", sources left to the checker reading them" : "");
}

int antcmd_publish_lock(ant_store *s)
{
	lb_error err = LB_ERROR_INIT;
	int rc = ant_store_lock_named(s, ANT_STORE_LOCK_PUBLISH, ANTCMD_PUBLISH_WAIT, &err);

	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (rc == 0)
		cli_error("another 'antenna publish' of '%s' has been running for %d s (a shared "
			  "antenna publishes from one machine at a time): this one stops; publish from "
			  "one machine only", ant_store_path(s), ANTCMD_PUBLISH_WAIT);
	return rc == 1 ? 0 : -1;
}
