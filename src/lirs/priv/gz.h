/*
 * gz.h: the codec's one home for gzip (RFC 1952), internal to the codec.
 *
 * Reading, lirs_gz: streaming gunzip with a cap on decoded bytes.  Bytes
 * go in through lirs_gz_feed(); decoded bytes come out through the out
 * callback in pieces of at most GZ_OUT_SIZE bytes.  Input that does not
 * start with the gzip magic (1f 8b) is passed through as is.
 * Concatenated gzip members are one stream (RFC 1952 §2.2).
 *
 * Writing, lirs_gzw: streaming gzip.  Bytes go in through
 * lirs_gzw_write() and lirs_gzw_finish(); compressed bytes come out
 * through the out callback in pieces of at most GZ_OUT_SIZE bytes.  One
 * member with no name and MTIME 0 (RFC 1952 §2.3.1), so the same input
 * gives the same bytes.
 */
#ifndef LIRS_GZ_H
#define LIRS_GZ_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* Size of the fixed inflate output buffer: memory stays flat. */
#define GZ_OUT_SIZE ((size_t)128 << 10)

/* Returns 0 to go on, or a negative LIRS_E* code that lirs_gz_feed() passes up. */
typedef int (*lirs_gz_out_fn)(void *ctx, const char *buf, size_t len);

enum lirs_gz_event {
	GZ_EV_PLAIN,      /* the input is not gzip */
	GZ_EV_TRAILING,   /* non-gzip bytes after the last member; ignored */
};
typedef void (*lirs_gz_event_fn)(void *ctx, enum lirs_gz_event ev);

typedef struct lirs_gz {
	z_stream zs;
	int state;              /* enum in gz.c */
	int zinit;              /* inflateInit2 done */
	int err;                /* sticky LIRS_E* code */
	unsigned char magic[2]; /* first bytes of a member, until known */
	size_t nmagic;
	uint64_t max;           /* decoded-bytes cap */
	uint64_t total;         /* decoded bytes so far */
	unsigned char *out;     /* GZ_OUT_SIZE bytes */
	lirs_gz_out_fn on_out;
	lirs_gz_event_fn on_event;
	void *ctx;
} lirs_gz;

/* max = 0 means no cap.  Returns 0, or LB_ENOMEM. */
int lirs_gz_init(lirs_gz *g, uint64_t max, lirs_gz_out_fn out, lirs_gz_event_fn ev, void *ctx);
/* Returns 0 or a negative LIRS_E* code (sticky). */
int lirs_gz_feed(lirs_gz *g, const void *buf, size_t len);
/* End of input: LB_ETRUNC when a member is incomplete. */
int lirs_gz_finish(lirs_gz *g);
/* 1 when the input was recognised as gzip. */
int lirs_gz_is_gzip(const lirs_gz *g);
void lirs_gz_release(lirs_gz *g);

typedef struct lirs_gzw {
	z_stream zs;
	int zinit;              /* deflateInit2 done */
	unsigned char *out;     /* GZ_OUT_SIZE bytes */
	lirs_gz_out_fn on_out;
	void *ctx;
} lirs_gzw;

/* level 1..9 (anything else: 6).  Returns 0, or LB_ENOMEM. */
int lirs_gzw_init(lirs_gzw *g, int level, lirs_gz_out_fn out, void *ctx);
/* Compresses n bytes; returns 0, LB_ENOMEM, or the out callback's code. */
int lirs_gzw_write(lirs_gzw *g, const void *buf, size_t n);
/* The last n bytes (maybe none) and the gzip trailer; as lirs_gzw_write(). */
int lirs_gzw_finish(lirs_gzw *g, const void *buf, size_t n);
void lirs_gzw_release(lirs_gzw *g);

#endif
