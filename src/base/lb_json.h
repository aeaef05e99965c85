/*
 * lb_json.h: the project's one JSON writer (RFC 8259).  Every layer that
 * writes JSON (the codec's JSON Lines, the antenna's export and list)
 * writes it with these functions; reading JSON is json-c's job, above base.
 *
 * Writing is hand-made (it is on the hot path of `lirs cat --format
 * jsonl`): everything appends to an lb_buf and returns 0, or LB_ENOMEM
 * (the buffer then holds a partial value; reset it).
 */
#ifndef LB_JSON_H
#define LB_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"

/*
 * Appends s[0..len) as a quoted JSON string.  Any bytes are accepted:
 * '"', '\\' and control characters are escaped (\n \r \t \b \f, others
 * as \u00XX), valid UTF-8 is copied as is, and each byte of an invalid
 * UTF-8 sequence (including encoded surrogates and overlongs) becomes
 * U+FFFD, so the output is always valid JSON in valid UTF-8.
 */
int lb_json_str(lb_buf *out, const char *s, size_t len);
/* lb_json_str() of a NUL-terminated string; NULL writes "". */
int lb_json_strz(lb_buf *out, const char *s);
/* lb_json_strz(), except that NULL writes null. */
int lb_json_strz_or_null(lb_buf *out, const char *s);
/* Appends a decimal integer. */
int lb_json_int(lb_buf *out, int64_t v);
/* Appends "key": (the key is written through lb_json_strz). */
int lb_json_key(lb_buf *out, const char *key);
/* Appends the lines of s (separated by '\n'; "" and NULL have none) as a
 * JSON array of strings: how a list kept one item a line (the antenna's
 * patterns) is written. */
int lb_json_lines(lb_buf *out, const char *s);

/*
 * A member after the first of an object: ',' then "key": and, but for
 * lb_json_next_key(), its value, written as by the function of the same
 * name above.
 */
int lb_json_next_key(lb_buf *out, const char *key);
int lb_json_next_int(lb_buf *out, const char *key, int64_t v);
/* The value true when v is nonzero, else false. */
int lb_json_next_bool(lb_buf *out, const char *key, int v);
int lb_json_next_strz_or_null(lb_buf *out, const char *key, const char *s);
int lb_json_next_lines(lb_buf *out, const char *key, const char *s);

#endif
