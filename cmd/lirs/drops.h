/*
 * drops.h: what lirs merge and lirs atom leave out of their output, said
 * on standard error: how many records and why (from the future, fields
 * shifted by an unescaped comma), with the FILE:LINE of the first few, so
 * that an empty feed is never a silent one.
 */
#ifndef LIRSCMD_DROPS_H
#define LIRSCMD_DROPS_H

#include <stdint.h>

#include "lb_buf.h"
#include "lirs.h"

/* FILE:LINE places named per reason. */
#define LIRSCMD_DROPS_SHOWN 3

/* The reasons: lirs_merge_check_at()'s (lirs_merge.h), and one more. */
enum { LIRSCMD_DROP_SHIFTED = 4, LIRSCMD_DROP__COUNT };

typedef struct lirscmd_drops {
	int64_t now, max_age, max_future;   /* the drop rules' parameters */
	const char *file;                   /* the input being read (display name;
					     * lirscmd_read_all() sets it) */
	const char *shifted_file;           /* where an unescaped-comma error was */
	unsigned long shifted_line;
	unsigned long n[LIRSCMD_DROP__COUNT];
	lb_buf where[LIRSCMD_DROP__COUNT];  /* "FILE:LINE, ..." of the first few */
} lirscmd_drops;

void lirscmd_drops_init(lirscmd_drops *d, int64_t now, int64_t max_age, int64_t max_future);
void lirscmd_drops_release(lirscmd_drops *d);
/* From on_diag: an unescaped-comma error names the line whose record
 * follows it; that record is skipped. */
void lirscmd_drops_diag(lirscmd_drops *d, const lirs_diag *dg);
/*
 * From on_record: 0 when r is kept, else the reason (LIRS_MERGE_UNUSABLE,
 * _STALE, _FUTURE by lirs_merge_check_at(), or LIRSCMD_DROP_SHIFTED), counted
 * with its place.
 */
int lirscmd_drops_check(lirscmd_drops *d, const lirs_record *r);
/*
 * Prints a warning for the records dropped from the future and one for the
 * shifted ones skipped (stale and unusable records are routine: merge -v
 * counts them).
 * Returns 1 (LIRSCMD_PROBLEMS) when any was from the future or shifted
 * (lirs(1): the input has a problem its writer should fix), else 0.
 */
int lirscmd_drops_report(const lirscmd_drops *d);

#endif
