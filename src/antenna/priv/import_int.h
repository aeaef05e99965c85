/*
 * import_int.h: what the importers (import*.c) share, from import_common.c;
 * not for commands.
 */
#ifndef ANT_IMPORT_INT_H
#define ANT_IMPORT_INT_H

#include "lb_buf.h"
#include "ant_import.h"

void ant_imp_diagf(const ant_imp_opts *o, ant_imp_severity sev, unsigned long line, unsigned long col,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* n bytes that page.c takes after '#' or '.' (letters, digits, '-', '_', non-ASCII). */
int ant_imp_name_ok(const char *s, size_t n);
/* Appends prefix + s[0..n) as one more pattern line; 0, or LB_ENOMEM. */
int ant_imp_add_pattern(lb_buf *ign, const char *prefix, const char *s, size_t n);
/* Appends a regular expression, bracketing a leading '#' or '.' so that
 * page.c does not take it for an id or a class. */
int ant_imp_add_regex(lb_buf *ign, const char *s, size_t n);

/*
 * A Perl (or Ruby) regular expression s[0..n) as a POSIX extended one, for
 * ant_page.h patterns: \d \D \s \S \w \W as bracket classes (in brackets
 * too), (?:...) and named groups as (...), lazy quantifiers (*? +? ??
 * {n,m}?) greedy, \t \n \r \f \v as [[:space:]] (the text's whitespace
 * is collapsed), an escaped punctuation character as itself, a '{' that
 * starts no interval as \{.  Returns 0 (out: the expression), LB_EINVAL
 * with *why naming the first construct with no POSIX equivalent
 * (lookaround, back-reference, \b, inline flags, possessive or atomic
 * groups, ...), or LB_ENOMEM.
 */
int ant_imp_perl_to_ere(const char *s, size_t n, lb_buf *out, char *why, size_t whylen);

#endif
