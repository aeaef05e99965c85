/*
 * drops.h: what lirs merge and lirs atom leave out of their output, said
 * on standard error: how many records and why (from the future, fields
 * shifted by an unescaped comma, a line in Shift_JIS), with the FILE:LINE
 * of the first few, so that an empty feed is never a silent one.  lirs cat
 * skips the shifted and the Shift_JIS records the same way.
 */
#ifndef LIRSCMD_DROPS_H
#define LIRSCMD_DROPS_H

#include <stdint.h>

#include "lb_buf.h"
#include "lirs.h"

/* FILE:LINE places named per reason. */
#define LIRSCMD_DROPS_SHOWN 3

/* The reasons: lirs_merge_check_at()'s (lirs_merge.h), and two more: the
 * fields shifted by an unescaped ',', the text garbled by Shift_JIS. */
enum { LIRSCMD_DROP_SHIFTED = 4, LIRSCMD_DROP_SJIS, LIRSCMD_DROP__COUNT };

typedef struct lirscmd_drops {
	int64_t now, max_age, max_future;   /* the drop rules' parameters */
	const char *file;                   /* the input being read (display name;
					     * lirscmd_read_all() sets it) */
	const char *skip_file;              /* where an unescaped-comma or a */
	unsigned long skip_line;            /* shift-jis error was, */
	int skip_why;                       /* and which (LIRSCMD_DROP_*) */
	unsigned long n[LIRSCMD_DROP__COUNT];
	lb_buf where[LIRSCMD_DROP__COUNT];  /* "FILE:LINE, ..." of the first few */
} lirscmd_drops;

void lirscmd_drops_init(lirscmd_drops *d, int64_t now, int64_t max_age, int64_t max_future);
void lirscmd_drops_release(lirscmd_drops *d);
/* From on_diag: an unescaped-comma or a shift-jis error names the line
 * whose record follows it; that record is skipped.  (A shift-jis error
 * only when the file was not read as Shift_JIS: --charset cp932 reads the
 * text whole, and is named once with no line.) */
void lirscmd_drops_diag(lirscmd_drops *d, const lirs_diag *dg);
/*
 * From on_record: 0 when r is kept, else the reason (LIRS_MERGE_UNUSABLE,
 * _STALE, _FUTURE by lirs_merge_check_at(), LIRSCMD_DROP_SHIFTED or
 * LIRSCMD_DROP_SJIS), counted with its place.
 */
int lirscmd_drops_check(lirscmd_drops *d, const lirs_record *r);
/* The same for lirs cat: only LIRSCMD_DROP_SHIFTED and _SJIS (cat keeps
 * stale, unusable and future records: it shows what the file holds). */
int lirscmd_drops_skip(lirscmd_drops *d, const lirs_record *r);
/*
 * Prints a warning for the records dropped from the future and one for each
 * reason of skipping (stale and unusable records are routine: merge -v
 * counts them).
 * Returns 1 (LIRSCMD_PROBLEMS) when any was from the future or skipped
 * (lirs(1): the input has a problem its writer should fix), else 0.
 */
int lirscmd_drops_report(const lirscmd_drops *d);

#endif
