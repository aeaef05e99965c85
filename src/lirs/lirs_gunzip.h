/*
 * lirs_gunzip.h: the codec's streaming gunzip (gz.c: gzip found by its
 * magic bytes, plain input passed through, concatenated members read as
 * one stream, a cap on decoded bytes) for the layers above, read as a
 * pull: a caller that pulls (libxml2's xmlTextReader) takes the decoded
 * bytes piece by piece, and memory stays flat whatever the input inflates
 * to.  One home for gzip: the layers above never call zlib themselves.
 */
#ifndef LIRS_GUNZIP_H
#define LIRS_GUNZIP_H

#include <stddef.h>
#include <stdint.h>

/* Compressed bytes fed to the inflater at a time: at most about 1,032
 * times as many decoded bytes (deflate's best ratio) are held waiting. */
#define LIRS_GUNZIP_STEP 1024

typedef struct lirs_gunzip lirs_gunzip;

/* A reader of gzip or plain input whose decoded bytes stop at max_decoded
 * (0: LIRS_DEFAULT_MAX_DECODED): NULL when out of memory.  Freed by
 * lirs_gunzip_free(). */
lirs_gunzip *lirs_gunzip_new(uint64_t max_decoded);

/*
 * Decoded bytes into out[0..cap), taking input from *in (*len bytes; both
 * advanced as the input is consumed; the caller keeps the input alive).
 * Returns the bytes written (> 0), 0 at the end (the input consumed and
 * the stream complete), or LB_ETOOBIG (over max_decoded: a bomb),
 * LB_EGZIP (corrupt), LB_ETRUNC (the last member ends early),
 * LB_ENOMEM.  Errors are sticky.
 */
int64_t lirs_gunzip_read(lirs_gunzip *g, const char **in, size_t *len, char *out, size_t cap);

/* 1 when the input was gzip; decoded bytes so far. */
int lirs_gunzip_was_gzip(const lirs_gunzip *g);
uint64_t lirs_gunzip_total(const lirs_gunzip *g);

void lirs_gunzip_free(lirs_gunzip *g);

#endif
