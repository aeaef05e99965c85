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
	if (u->lease_lost)   /* the lease ran out before the answer came */
		printf(", %u answer%s not saved (the page%s another checker's once the lease ran out)",
		       u->lease_lost, u->lease_lost == 1 ? "" : "s", u->lease_lost == 1 ? " was" : "s were");
}

int antcmd_publish_lock(ant_store *s, int wait_seconds)
{
	lb_error err = LB_ERROR_INIT;
	int rc = ant_store_lock_named(s, ANT_STORE_LOCK_PUBLISH, wait_seconds, &err);
	char who[200], says[220] = "";

	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	if (rc != 0)
		return rc == 1 ? 0 : -1;
	if (ant_store_lock_holder(s, ANT_STORE_LOCK_PUBLISH, who, sizeof who))
		snprintf(says, sizeof says, " (%s)", who);
	if (wait_seconds > 0)
		cli_error("another 'antenna publish' of '%s' is running%s and still was after %d s "
			  "(--wait): this one stops; publish from one machine at a time", ant_store_path(s),
			  says, wait_seconds);
	else
		cli_error("another 'antenna publish' of '%s' is running%s: this one stops at once "
			  "(--wait 0); publish from one machine at a time", ant_store_path(s), says);
	return -1;
}
