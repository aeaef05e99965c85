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
 *              zlib-compressed, and that update's time (diff_time); or,
 *              until it is shown, pending: the earlier text as it was
 *              kept, the diff made from it and text when a diff page or
 *              'antenna diff' shows it (ANT_DIFFTEXT_PENDING, below).
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

/*
 * The same two with zlib's streams kept: a codec made once (its deflate
 * state is about 270 KiB, the inflate one 40 KiB, allocated at the first
 * use) and reset for each blob, so that a run packing thousands of texts
 * allocates (and page-faults in) zlib's state once, not twice a page.
 * A text of up to 4,000 bytes is packed by a stream with a smaller hash
 * table (memLevel 6: 16 KiB cleared at each blob, not 64 KiB).  The
 * blobs are byte for byte those of ant_difftext_pack().  One codec
 * per thread: it is not shared.
 */
typedef struct ant_difftext_codec ant_difftext_codec;
ant_difftext_codec *ant_difftext_codec_new(void);   /* NULL: out of memory */
void ant_difftext_codec_free(ant_difftext_codec *c);
/* s[0..n) deflated into out (reset first): 0, LB_ETOOBIG over max bytes, LB_ENOMEM. */
int ant_difftext_codec_pack(ant_difftext_codec *c, const char *s, size_t n, size_t max, lb_buf *out);
/* As ant_difftext_unpack(). */
int ant_difftext_codec_unpack(ant_difftext_codec *c, const void *blob, size_t len, lb_buf *out);

/* The diff as stored: "OP TEXT\n" per line, "!\n" alone when too many. */
int ant_difftext_serialise(const ant_diff *d, lb_buf *out);
/* Back into d (its lines borrowed from s): 0, LB_EPARSE, LB_ENOMEM. */
int ant_difftext_parse(const char *s, size_t n, ant_diff *d);

/* A stored diff blob unpacked into raw and parsed into d (its lines in raw). */
int ant_difftext_read(const void *blob, size_t len, lb_buf *raw, ant_diff *d);

/* ---- the diff made when it is shown ------------------------------------------ */

/*
 * An update's diff is kept pending: its blob is this byte and then the
 * earlier text as packed (a zlib stream never starts with it: its first
 * byte's low four bits are 8), and the diff is made from it and the
 * page's kept text (the update's) only when a diff page or 'antenna diff'
 * shows it: an update costs no inflate, no diff and no second deflate,
 * and only the updates the site lists are diffed.
 */
#define ANT_DIFFTEXT_PENDING 'P'

/* 1 when a kept diff blob is pending. */
int ant_difftext_pending(const void *blob, size_t len);

/*
 * The diff of a against b as kept (ant_diff_lines() with the stored
 * form's bounds): ser gets its serialised lines, or "!\n" when too many
 * to show or when they pack to more than max bytes.  1 a diff; 0 none
 * (nothing shown changed, or max cannot hold even "!\n"); LB_ENOMEM.
 * packed (when not NULL) gets ser packed, by c (NULL: a codec of its own);
 * with packed NULL, ser is packed only when it could come to more than
 * max (compressBound), to tell: a diff page at publish deflates nothing.
 */
int ant_difftext_make(ant_difftext_codec *c, const char *a, size_t alen, const char *b, size_t blen,
		      size_t max, lb_buf *ser, lb_buf *packed);

/*
 * A kept diff read as ant_difftext_read() reads a made one; a pending one
 * is made here against text (the page's kept text, packed) within max.
 * d->n == 0 and !d->too_many: nothing to show.  0, or < 0 (LB_EGZIP ...).
 */
int ant_difftext_read_kept(const void *diff, size_t dlen, const void *text, size_t tlen, size_t max,
			   lb_buf *raw, ant_diff *d);

/* The line key of the compared texts: ant_noise_hash(), a filter (ant_diff.h: lines
 * are equal when their words are, numbers included). */
uint32_t ant_difftext_key(const char *s, size_t n);

#endif
