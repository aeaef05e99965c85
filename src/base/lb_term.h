/*
 * lb_term.h: text from outside made safe for a terminal.
 *
 * A page title, an HTTP reason phrase, a source's record: anything the
 * network or an imported file gave us may hold ESC sequences (clear the
 * screen, set the window title, move the cursor to overwrite a line),
 * CR and LF (a fake "all pages ok" line), C1 controls or bidi overrides
 * (text that reads backwards).  Every command prints such text through
 * this one function, so none of it reaches a terminal raw; the published
 * files have their own escapers (HTML, XML, JSON, LIRS).
 *
 * What is kept: well-formed UTF-8 that is not a control.  What is shown
 * instead: TAB, LF and CR as "\t", "\n", "\r"; every other C0 control and
 * DEL as "\xHH"; a C1 control (U+0080..U+009F) and the bidi controls
 * (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) as "\uHHHH";
 * a byte that is not UTF-8 as "\xHH".  The result holds no byte below
 * 0x20 and no DEL, and is well-formed UTF-8.
 */
#ifndef LB_TERM_H
#define LB_TERM_H

#include <stddef.h>

#include "lb_buf.h"

/* Appends s[0..n) to out, made safe (above).  0, or LB_ENOMEM. */
int lb_term_add(lb_buf *out, const char *s, size_t n);

/*
 * The NUL-terminated s made safe, in tmp (reset first): returns tmp->data,
 * or a fixed "(out of memory)" when tmp cannot grow; NULL stays NULL.
 * For printf("%s", lb_term(&tmp, title)).
 */
const char *lb_term(lb_buf *tmp, const char *s);

#endif
