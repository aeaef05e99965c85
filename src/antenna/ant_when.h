/*
 * ant_when.h: words that must appear ('antenna add --when TEXT'): a page
 * with --when patterns is announced only when what an update added (the
 * text of the segments the noise-proof rule picked as new, as the excerpt
 * reads it, every run of them, not only the first) holds a match of one.
 *
 * A pattern is a POSIX extended regular expression (a plain word is one),
 * always: "#sale" is the text "#sale" here, not an element id.  Bounded
 * like the --ignore and --only expressions (page_pattern.c): refused when
 * it would compile too big, run with the text's length, windowed, and in
 * at most the page's regex seconds; the text looked at is at most
 * ANT_WHEN_TEXT_MAX bytes (an update that added more is judged on its
 * start).
 */
#ifndef ANT_WHEN_H
#define ANT_WHEN_H

#include <stddef.h>

#include "lb_error.h"

#define ANT_WHEN_MAX 16                 /* --when patterns per page */
#define ANT_WHEN_TEXT_MAX (64 * 1024)   /* bytes of added text looked at */

/* 0 when pattern can be a --when pattern, else LB_EINVAL with err. */
int ant_when_check(const char *pattern, lb_error *err);

/*
 * The first of pats (one per line, in order) that matches somewhere in
 * text[0..len) (a string: text[len] or a byte after it is NUL, as
 * regexec() is given it, and sanitizers read it so): 1 with its index
 * in *hit, 0 none; < 0 with err: LB_EINVAL
 * (a bad pattern), LB_ETOOBIG (over seconds; 0: ANT_PAGE_MAX_REGEX_SECONDS),
 * LB_ENOMEM.
 */
int ant_when_match(const char *pats, const char *text, size_t len, double seconds, size_t *hit,
		   lb_error *err);

/* The index'th line of pats copied into buf (n bytes, cut when longer). */
void ant_when_nth(const char *pats, size_t index, char *buf, size_t n);

#endif
