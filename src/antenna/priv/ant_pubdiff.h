/*
 * ant_pubdiff.h: the diff pages of a published site (publish_diff.c):
 * DIR/diff/NAME.html for each update whose text changed (found in the
 * text, or first by a newer Last-Modified or the feed) that the site
 * still lists (index.html's files, current.atom), showing what was removed and
 * added (<del>/<ins>) with a few lines of context, in the site's language,
 * readable at 360 px.  NAME is the page's key hash (16 hex digits) and the
 * update's time, so a new update gets a new page and an old one's name
 * never changes.  A page is written when it is missing; the pages of
 * updates no longer listed are removed at each publish, so DIR/diff/
 * holds at most one page per update listed (about 10,000 by default,
 * at any number of watched pages).
 */
#ifndef ANT_PUBDIFF_H
#define ANT_PUBDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "ant_publish.h"
#include "ant_store.h"

/* The folder of the diff pages in DIR. */
#define ANT_PUB_DIFF_DIR "diff"

/* The diff pages a publish keeps (ant_pub_diffs()): the links are told
 * from it, no file asked for each row. */
typedef struct ant_pub_diffset ant_pub_diffset;
void ant_pub_diffset_free(ant_pub_diffset *set);

/* Writes the missing diff pages into DIR/diff, each into the file of a
 * stale one (an update no longer listed) while there are such, else a
 * new file (ant_pub_diffs_prune() then removes the stale ones left):
 * the pages of the updates the site lists, in index.html's files (their
 * caps, site's) and in current.atom (at most current_entries of them;
 * 0: every fresh one), so as many as it lists, whatever its size.
 * 0 and *set (what DIR/diff holds now, ant_pub_diffset_free()), or < 0
 * with err. */
int ant_pub_diffs(ant_store *s, const char *dir, const ant_pub_site *site, int64_t current_entries,
		  ant_pub_diff_counts *counts, ant_pub_diffset **set, lb_error *err);
/* The pages in DIR/diff not in set (updates no longer listed, a killed
 * publish's temporary files) removed, counted in counts->removed; files
 * of other names are left alone.  No store: it may run on its own thread
 * while the listing is written (thousands of unlink(2) on a busy disk). */
void ant_pub_diffs_prune(const char *dir, const ant_pub_diffset *set, ant_pub_diff_counts *counts);

/* The diff page's link from DIR/index.html for a listed row, "diff/NAME.html"
 * in out, when its page exists (never for a relayed update, detected_by
 * "lirs" or "atom"); else NULL. */
const char *ant_pub_diff_href(lb_buf *out, const char *dir, const char *url_key, int64_t last_modified,
			      const char *detected_by);

/* atom_cfg.related (ctx: DIR): an Atom entry's diff page, when its
 * update has one in DIR/diff. */
struct atom_ev_event;
int ant_pub_diff_related(void *dir, const struct atom_ev_event *e, lb_buf *out);

/* The same two told from the set of the publish that wrote the pages
 * (a publish links thousands of rows and events: no stat(2) each). */
const char *ant_pub_diff_href_in(lb_buf *out, const ant_pub_diffset *set, const char *url_key,
				 int64_t last_modified, const char *detected_by);
int ant_pub_diff_related_in(void *set, const struct atom_ev_event *e, lb_buf *out);

/* The link's word in the site's language ("差分", "diff"). */
const char *ant_pub_diff_word(const char *lang);

#endif
