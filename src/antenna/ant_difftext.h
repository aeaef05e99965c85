/*
 * ant_difftext.h: the texts behind the diff pages.  For each watched page
 * the store keeps (table page_texts, store_texts.c):
 *
 *   text       the compared text of its last announced update (or of its
 *              first check): the text segments the text rule compares, one
 *              line each, the site's furniture and the parts learned
 *              volatile left out (ant_difftext_build()), zlib-compressed;
 *   diff       the last update, when its text changed (whichever rule found it):
 *              the lines removed and added with ANT_DIFF_CONTEXT lines
 *              around them (ant_diff.h), serialised ("OP TEXT" lines) and
 *              zlib-compressed, and that update's time (diff_time).
 *
 * Both are written only when the page is announced (and once at its
 * first check), never on an unchanged check.  Bounded per page: each
 * blob at most ANT_DIFF_TEXT_MAX bytes compressed (64 KiB a page in all,
 * antenna init --diff-text-max); a text over it is not kept (the next
 * change shows no diff), a diff over it is kept as "too many changes".
 * In total: pages times what they keep (PERFORMANCE.md has the sizes at
 * 100,000 pages); 0 turns the diff pages off.
 */
#ifndef ANT_DIFFTEXT_H
#define ANT_DIFFTEXT_H

#include "ant_settings.h"   /* the defaults */
#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "ant_detect.h"
#include "ant_diff.h"
#include "ant_page.h"
#include "ant_store.h"

/* Setting ANT_SET_DIFF_TEXT_MAX overrides it (bytes; 0: no texts kept,
 * no diff pages; ant_settings.h). */
/* Bytes one blob may inflate to: a corrupt row cannot exhaust memory. */
#define ANT_DIFF_INFLATE_MAX ((size_t)4 << 20)

/* ---- the compared text ---------------------------------------------------- */

/*
 * The compared text of an analysed answer into out (reset first): each
 * segment of info (furniture already left out) not in a block ns learned
 * volatile (ns may be NULL), as one line, its line breaks made spaces.
 * 0 or LB_ENOMEM.
 */
int ant_difftext_build(const ant_page_info *info, const ant_detect_noise *ns, lb_buf *out);

/* s[0..n) deflated into *out (malloc'd): 0, LB_ETOOBIG over max bytes, LB_ENOMEM. */
int ant_difftext_pack(const char *s, size_t n, size_t max, unsigned char **out, size_t *outlen);
/* A packed blob inflated into out (reset first): 0, LB_EGZIP, LB_ETOOBIG, LB_ENOMEM. */
int ant_difftext_unpack(const void *blob, size_t len, lb_buf *out);

/* The diff as stored: "OP TEXT\n" per line, "!\n" alone when too many. */
int ant_difftext_serialise(const ant_diff *d, lb_buf *out);
/* Back into d (its lines borrowed from s): 0, LB_EPARSE, LB_ENOMEM. */
int ant_difftext_parse(const char *s, size_t n, ant_diff *d);

/* A stored diff blob unpacked into raw and parsed into d (its lines in raw). */
int ant_difftext_read(const void *blob, size_t len, lb_buf *raw, ant_diff *d);

/* The line key of the compared texts: ant_noise_hash() (a moved counter is no change). */
uint32_t ant_difftext_key(const char *s, size_t n);

/* ---- the store (store_texts.c) -------------------------------------------- */

typedef struct ant_store_text {
	int64_t page_id;
	unsigned char *text;     /* packed; NULL: none (or over the limit) */
	size_t text_len;
	unsigned char *diff;     /* packed; NULL: none */
	size_t diff_len;
	int64_t diff_time;       /* the update's last_modified; 0 none */
} ant_store_text;

/* Is there a row for the page?  1, 0, or < 0. */
int ant_store_text_has(ant_store *s, int64_t page_id, lb_error *err);
/* The page's row into *t (free with ant_store_text_release()): 1, 0 none, < 0. */
int ant_store_text_get(ant_store *s, int64_t page_id, ant_store_text *t, lb_error *err);
/* Writes t's row whole (a NULL blob is NULL): 0 or < 0. */
int ant_store_text_put(ant_store *s, const ant_store_text *t, lb_error *err);
void ant_store_text_release(ant_store_text *t);

/* One diff still listed: the page's last update is the one at diff_time
 * (pages.last_modified), so index.html shows it. */
typedef struct ant_store_diffrow {
	int64_t page_id, key_hash;
	const char *url, *title;
	const unsigned char *diff;
	size_t diff_len;
	int64_t diff_time;
} ant_store_diffrow;
typedef int (*ant_store_diff_fn)(void *ctx, const ant_store_diffrow *r);
/* fn for each listed diff (borrowed during the call), by page id; a
 * nonzero return stops and is returned. */
int ant_store_diffs_each(ant_store *s, ant_store_diff_fn fn, void *ctx, lb_error *err);
/* Is the diff of (key_hash, time) still listed?  1, 0, or < 0. */
int ant_store_diff_listed(ant_store *s, int64_t key_hash, int64_t time, lb_error *err);
/* The diff of the page with this URL key: its row into *t (1), 0 none, < 0. */
int ant_store_text_of_key(ant_store *s, const char *url_key, ant_store_text *t, lb_error *err);
/* Bytes the texts and diffs take in all (for 'antenna check-db' and the bench). */
int ant_store_texts_size(ant_store *s, int64_t *bytes, int64_t *rows, lb_error *err);

#endif
