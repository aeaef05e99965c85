/*
 * lirs_vreport.h: the report of `lirs validate`, built: the diagnostics of
 * the reader (bytes, syntax) and of the checker (values, lirs.h) for each
 * file, in line order; a warning rule's first LIRS_VREPORT_LISTED lines of
 * a file listed and the rest counted in one note; a note naming the file's
 * layout when it is a known writer's; a note naming its class when it
 * breaks a MUST of LIRS 2.1 (lirs_vreport_class()); one summary per file.  As text
 * (lirs_diag_format()) or JSON Lines, appended to a buffer the caller
 * empties through its flush callback: nothing is printed here.
 *
 * Use, per file: lirs_vreport_begin() (makes the checker), read the file
 * with lirs_vreport_record() and lirs_vreport_diag() as the reader's
 * callbacks (ctx: the report), lirs_vreport_finish(), lirs_vreport_end().
 */
#ifndef LIRS_VREPORT_H
#define LIRS_VREPORT_H

#include "lb_buf.h"
#include "lirs.h"

/* Lines of one warning rule listed per file before the rest are only counted. */
#define LIRS_VREPORT_LISTED 3

/*
 * The one text form of a diagnostic, without the newline, appended to out:
 *   FILE:LINE:COL: SEVERITY: MESSAGE [RULE-ID]
 * ":COL" is left out when the column is 0, ":LINE:COL" when the line is 0;
 * FILE is d->file, or "<stdin>" when NULL.  0, or LB_ENOMEM.
 */
int lirs_diag_format(lb_buf *out, const lirs_diag *d);

typedef struct lirs_vreport_opts {
	int json;                /* JSON Lines: an object per diagnostic and per file, every
				    diagnostic listed; else text */
	int quiet;               /* notes and warnings counted, not listed */
	int verbose;             /* every line a rule fires on, no "and N more" */
	/* Called with the report so far after each diagnostic (last 0) and
	 * at the end of each file (last 1); it writes out and empties it (or
	 * waits for more).  < 0: writing failed, the reading stops. */
	int (*flush)(void *ctx, lb_buf *out, int last);
	void *ctx;
} lirs_vreport_opts;

typedef struct lirs_vreport lirs_vreport;

/* NULL when out of memory. */
lirs_vreport *lirs_vreport_new(const lirs_vreport_opts *opts);
void lirs_vreport_free(lirs_vreport *v);

/*
 * Starts a file: a checker made from co (co->filename names the file in
 * the report and must stay valid until lirs_vreport_end(); its on_diag
 * and ctx are the report's).  0, or LB_ENOMEM.
 */
int lirs_vreport_begin(lirs_vreport *v, const lirs_check_opts *co);
/* The reader's callbacks, ctx the report. */
void lirs_vreport_diag(void *report, const lirs_diag *d);
int lirs_vreport_record(void *report, const lirs_record *r);
/*
 * After the reader finished: finishes the checker and lists what was held
 * back.  0, or the errno (> 0) that left the duplicate-url check
 * incomplete (lirs_checker_failed()).
 */
int lirs_vreport_finish(lirs_vreport *v);
/*
 * Ends the file: with summary, its notes (layout, "and N more") and its
 * summary line (readable: the file was read to its end; st: the reader's
 * counts), then flush(last 1).  Returns 0, or LB_ESINK when a flush
 * failed (now or before).
 */
int lirs_vreport_end(lirs_vreport *v, const lirs_reader_stats *st, int readable, int summary);
/* The file's errors so far (since lirs_vreport_begin()). */
unsigned long lirs_vreport_errors(const lirs_vreport *v);
/*
 * The worst class among the file's diagnostics so far (lirs.h,
 * lirs_rule_class()): LIRS_CLASS_NOTE or _ADVICE for a conforming file,
 * _COPED when it breaks a MUST readers cope with, _LOST when data is lost.
 * The exit status of lirs validate follows it (lirs(1)).
 */
lirs_class lirs_vreport_class(const lirs_vreport *v);
/* The file's diagnostics of class cls so far. */
unsigned long lirs_vreport_class_count(const lirs_vreport *v, lirs_class cls);

#endif
