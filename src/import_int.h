/*
 * import_int.h: what the importers (import*.c) share; not for commands.
 */
#ifndef LIRS_IMPORT_INT_H
#define LIRS_IMPORT_INT_H

#include "buf.h"
#include "import.h"

void imp_diagf(const imp_opts *o, imp_severity sev, unsigned long line, unsigned long col,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* n bytes that page.c takes after '#' or '.' (letters, digits, '-', '_', non-ASCII). */
int imp_name_ok(const char *s, size_t n);
/* Appends prefix + s[0..n) as one more pattern line; 0, or -1 out of memory. */
int imp_add_pattern(lbuf *ign, const char *prefix, const char *s, size_t n);
/* Appends a regular expression, bracketing a leading '#' or '.' so that
 * page.c does not take it for an id or a class. */
int imp_add_regex(lbuf *ign, const char *s, size_t n);

#endif
