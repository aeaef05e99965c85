/*
 * ant_limits.h: how much of a text the antenna takes in, so that one
 * hostile page (an 8 MB <title>) cannot make every published file huge.
 *
 * Every text that comes from outside -- a page's <title>, a feed's entry
 * title, a title or author relayed by a LIRS, HINA-DI or Atom source or
 * read by `antenna import`, an operator's --title -- is clipped to its
 * limit on a character boundary (lb_utf8_prefix(); ant_clip() marks the
 * cut with "…").  A URL over ANT_MAX_URL is refused where it comes in
 * (add, import).  With these limits every LIRS or HINA-DI record the
 * antenna publishes is far below the LIRS reader's line limit
 * (LIRS_DEFAULT_MAX_LINE, 1 MiB): worst case 2 * ANT_MAX_URL bytes for
 * each of the URL and the Source URL, 8 * ANT_MAX_TITLE for the title
 * (4 bytes per character, each escaped) and 8 * ANT_MAX_AUTHOR; the
 * writer refuses a record its reader would skip (lirs.h).
 *
 * Documented in README ("Limits") and antenna(1) (LIMITS).
 */
#ifndef ANT_LIMITS_H
#define ANT_LIMITS_H

#include <stddef.h>

#define ANT_MAX_TITLE 512      /* characters of a title kept (a cut one ends in "…") */
#define ANT_MAX_AUTHOR 256     /* characters of an author kept */
#define ANT_MAX_URL 8000       /* bytes of a URL (RFC 9110 §4.1's "at least 8000") */

/*
 * The one clip function, for titles, authors and change excerpts: a
 * malloc'd copy of s (NULL is "") whose whitespace runs are collapsed to
 * one space, leading and trailing ones trimmed, invalid bytes dropped,
 * and, when longer than max_chars characters (at least 2), cut on a
 * character boundary to max_chars - 1 characters and "…": at most
 * max_chars characters in all (an excerpt of N characters and its "…" is
 * ant_clip(s, N + 1)).  NULL when out of memory.
 */
char *ant_clip(const char *s, size_t max_chars);

/* Cuts s in place after max_chars characters (no mark); returns s. */
char *ant_clip_inplace(char *s, size_t max_chars);

#endif
