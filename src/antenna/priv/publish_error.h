/*
 * publish_error.h: a page's last error as index.html shows it to visitors
 * (publish_error.c); not for commands.
 */
#ifndef ANT_PUBLISH_ERROR_H
#define ANT_PUBLISH_ERROR_H

/*
 * The short phrase for error (a page's last_error, as update stored it) in
 * lang ("ja", else English), written to b (n bytes): a fetch failure by
 * its kind ("サーバが見つかりません", "8 MiB を超えました"), an HTTP status
 * as it is ("404 Not Found").  Returns b, or error itself when it is of no
 * kind known here (our own words already).  The details stay in 'antenna
 * show'.
 */
const char *ant_pub_error_phrase(char *b, size_t n, const char *error, const char *lang);

#endif
