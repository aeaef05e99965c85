/*
 * lirs_pack.h: JSON Lines records (the shape `lirs cat` writes,
 * lirs_jsonw.h) into a LIRS writer, in order: `lirs pack`'s engine.
 *
 * Parsing JSON is most of the work, as much as encoding and deflating
 * together, so lines are parsed by threads of their own while the calling
 * thread encodes the records in input order and the writer's thread
 * deflates: a pipeline like `iconv | gzip`.  The caller owns the input
 * and the writer; lirs_pack() neither opens, closes nor finishes them,
 * and never prints: lines it skips go to a callback, in line order, from
 * the calling thread.
 */
#ifndef LIRS_PACK_H
#define LIRS_PACK_H

#include <stdio.h>

#include "lb_error.h"
#include "lirs.h"

/* A line that is not a record object, skipped: its 1-based line, column
 * (0 when unknown) and a lowercase message ("out of memory" when the
 * parser could not be made). */
typedef void (*lirs_pack_bad_fn)(void *ctx, unsigned long line, unsigned long col,
				 const char *msg);

typedef struct lirs_pack_opts {
	lirs_pack_bad_fn on_bad;   /* NULL: skipped lines are only counted */
	void *ctx;
} lirs_pack_opts;

/* Lines of untimed records kept in lirs_pack_stats. */
#define LIRS_PACK_UNTIMED_SHOWN 3

typedef struct lirs_pack_stats {
	unsigned long records;     /* written to the writer */
	unsigned long bad;         /* skipped (on_bad was called) */
	/* written without a time: Last-Modified or Last-Detected 0 or missing
	 * (lirs validate: zero-time; readers drop such a record) */
	unsigned long untimed;
	unsigned long untimed_line[LIRS_PACK_UNTIMED_SHOWN];   /* the first ones' lines */
} lirs_pack_stats;

/*
 * Reads every line of in, parses each as one JSON record object and adds
 * it to w in input order (record.line is the input line).  Blank lines
 * are skipped silently; so is a UTF-8 byte order mark on line 1.  A line
 * that is not a record object is reported to opts->on_bad and skipped.
 * opts and stats may be NULL.
 *
 * Returns 0 (skipped lines are not a failure: see stats->bad), or:
 *   the writer's negative code (LB_ESINK, LB_ENOMEM) when adding a record
 *     failed: w's errno is kept in err->sys, and nothing more is added;
 *   LB_EIO when reading in failed, errno in err->sys (the records before
 *     were added);
 *   LB_ENOMEM when out of memory or a thread could not be started (err
 *     says which, with the system's reason in err->sys).
 */
int lirs_pack(FILE *in, lirs_writer *w, const lirs_pack_opts *opts, lirs_pack_stats *stats,
	      lb_error *err);

#endif
