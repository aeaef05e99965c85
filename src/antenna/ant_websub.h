/*
 * ant_websub.h: the antenna as a WebSub publisher (W3C WebSub §4,
 * "Publishing"; websub.c).  The hubs are named in the live feeds
 * (index.atom, current.atom: <link rel="hub">; feed.json: "hubs"); after
 * a publish that wrote news, each hub is told which feeds changed, so
 * its subscribers hear of an update at once instead of at their next poll.
 */
#ifndef ANT_WEBSUB_H
#define ANT_WEBSUB_H

#include <stddef.h>

#include "ant_store.h"
#include "lb_error.h"

/* The hubs: setting ANT_SET_HUBS (antenna init --hub), one URL a line. */
/* At most this many hubs: each costs up to 3 POSTs of ANT_POST_TIMEOUT
 * seconds after a publish with news. */
#define ANT_WEBSUB_MAX_HUBS 4

typedef struct ant_websub_hubs {
	char *text;              /* the config value, split in place */
	const char *v[ANT_WEBSUB_MAX_HUBS];
	size_t n;
} ant_websub_hubs;

/* The hubs configured (none: n == 0).  0 or LB_ENOMEM. */
int ant_websub_hubs_load(ant_store *s, ant_websub_hubs *h);
void ant_websub_hubs_free(ant_websub_hubs *h);

/* The feeds a hub is pinged for, relative to the site's base: the topics. */
#define ANT_WEBSUB_TOPICS { "index.atom", "current.atom", "feed.json" }
#define ANT_WEBSUB_NTOPICS 3

typedef struct ant_websub_report {
	size_t sent, failed;     /* pings (one per hub and topic) */
	lb_error first;          /* the first failure's message */
} ant_websub_report;

/*
 * Tells each hub that the feeds under base (absolute, ending in '/')
 * changed: one POST hub.mode=publish&hub.url=TOPIC per hub and topic
 * (form-encoded), each bounded by ANT_POST_TIMEOUT.  Never fails: what
 * went wrong is counted in *r for the caller to report; nothing is retried
 * (the next publish with news pings again).
 */
void ant_websub_ping(const ant_websub_hubs *h, const char *base, ant_websub_report *r);

#endif
