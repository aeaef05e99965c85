/*
 * publish_error.h: a page's last error as index.html shows it to visitors
 * (publish_error.c); not for commands.
 */
#ifndef ANT_PUBLISH_ERROR_H
#define ANT_PUBLISH_ERROR_H

#include <stddef.h>

#include "ant_outcome.h"

/*
 * The short phrase for a page's failure of kind (ant_outcome.h) in lang
 * ("ja", else English), written to b (n bytes): a fetch failure by its
 * kind ("サーバが見つかりません", "8 MiB を超えました": only the limit is
 * read from error, the page's last_error), an HTTP status as it is
 * ("404 Not Found").  Returns b, or error itself for an HTTP status and
 * for ANT_FAIL_NONE (a page failed before the kinds were kept).  The details stay in 'antenna
 * show'.
 */
const char *ant_pub_error_phrase(char *b, size_t n, ant_fail_kind kind, const char *error,
				 const char *lang);

#endif
