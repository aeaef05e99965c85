/*
 * diag.h: the one way reader.c and validate.c fill a lirs_diag, so that
 * both report a rule with the same severity and fields.
 */
#ifndef LIRS_DIAG_H
#define LIRS_DIAG_H

#include "lirs.h"

/* Zeroes *d (skipped 0) and sets the rest; severity is the rule's. */
void lirs_diag_fill(lirs_diag *d, const char *file, unsigned long line, unsigned long col,
		    lirs_rule rule, const char *field, const char *msg);

#endif
