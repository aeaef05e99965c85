/*
 * html.h: the project's one HTML escaper (one place for each escape, so
 * none is forgotten or done twice).  Everything that puts untrusted text
 * (titles, authors, URLs, error messages) into HTML goes through here.
 *
 * What it does to the bytes of s:
 *   & < > " '            become &amp; &lt; &gt; &quot; &#39;
 *   valid UTF-8          copied as is
 *   invalid UTF-8        each bad byte becomes U+FFFD (overlongs, surrogates
 *                        and code points over U+10FFFF included)
 *   C0 controls but TAB, LF, CR, and DEL
 *                        become U+FFFD (HTML forbids them in text)
 * so the result is safe in element content and in quoted attribute values,
 * and is always valid UTF-8.
 */
#ifndef ANT_HTML_H
#define ANT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "lb_buf.h"

/* Appends the escaped s[0..len) to out; 0, or LB_ENOMEM. */
int ant_html_escape(lb_buf *out, const char *s, size_t len);
/* Writes the escaped NUL-terminated s (NULL writes nothing) to fp;
 * 0, or LB_EIO on a write error (errno set by stdio). */
int ant_html_fputs(FILE *fp, const char *s);

/*
 * The escaper's one step, shared by both functions above: returns how many
 * bytes at s can be copied unchanged; at s + that count, *repl is the text
 * to write instead and *skip the input bytes it replaces (both 0/NULL at
 * the end of the input).
 */
size_t ant_html_span(const char *s, size_t len, const char **repl, size_t *skip);

#endif
