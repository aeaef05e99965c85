/*
 * publish_jsonfeed.h: DIR/feed.json, the site's JSON Feed 1.1, written
 * entry for entry with current.atom (publish_jsonfeed.c); not for commands.
 */
#ifndef ANT_PUBLISH_JSONFEED_H
#define ANT_PUBLISH_JSONFEED_H

#include <stddef.h>

#include "atom_evstore.h"
#include "lb_error.h"

typedef struct ant_jsonfeed ant_jsonfeed;

typedef struct ant_jsonfeed_head {
	const char *title, *base, *author, *lang;   /* the site's (base ends in '/') */
	const char *const *hubs;                     /* WebSub hubs, as in the Atom feeds */
	size_t nhubs;
	const char *dir;         /* the site's directory: an item links its diff
				    page when DIR/diff has one (ant_pubdiff.h); NULL none */
} ant_jsonfeed_head;

/* Opens DIR/feed.json's temporary file and writes the feed's members up to
 * its items.  0, LB_EIO or LB_ENOMEM with err. */
int ant_jsonfeed_open(ant_jsonfeed **jf, const char *dir, const ant_jsonfeed_head *h,
		      lb_error *err);
/* atom_cfg.on_current: one item, e as current.atom's entry of the same id. */
int ant_jsonfeed_item(void *jf, const atom_ev_event *e, const char *id);
/* Ends the document and, when ok and every write succeeded, replaces
 * DIR/feed.json; else removes the temporary file.  Frees jf. */
int ant_jsonfeed_close(ant_jsonfeed *jf, int ok, lb_error *err);

#endif
