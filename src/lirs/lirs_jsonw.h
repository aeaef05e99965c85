/*
 * lirs_jsonw.h: the LIRS record <-> JSON mapping used by `lirs cat
 * --format jsonl`, `lirs pack`, `lirs merge --format jsonl` and anything
 * else that speaks JSON Lines.  Writing goes through base's JSON writer
 * (lb_json.h, included here), reading through json-c.
 *
 * The record object has exactly these keys, in this order:
 *   last_modified, last_detected, tz_offset, content_length   (integers)
 *   url, title, author, source_url, extension                 (strings)
 *   extra   (array of strings; present only when the record had more
 *            than 9 fields, i.e. nextra > 0)
 * and, for a record with tama's NATSU fields, checked_url and method
 * (strings, lirs(5)).
 */
#ifndef LIRS_JSONW_H
#define LIRS_JSONW_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_json.h"
#include "lirs.h"

/* Appends r as one JSON object (no newline).  See the key list above.
 * 0, or LB_ENOMEM (out then holds a partial value). */
int lirs_record_to_json(lb_buf *out, const lirs_record *r);

/*
 * A record parsed from JSON.  rec's strings are borrowed from the parsed
 * document held in the private members: they stay valid until
 * lirs_json_record_release().  Copy with lirs_record_copy() to keep them.
 */
typedef struct lirs_json_record {
	lirs_record rec;
	void *doc_;              /* private: the json-c document */
	char **extra_;           /* private: rec.extra's array */
} lirs_json_record;

/*
 * Parses one JSON object text[0..len) (one line of JSON Lines) into
 * jr->rec.  Missing keys and null read as 0 or "" (rec.line is 0); unknown
 * keys are ignored.  Integers must be JSON integers, strings JSON strings,
 * extra an array of strings; "\u0000" inside strings is refused.
 * Returns 0, or LB_EPARSE (LB_ENOMEM, LB_ETOOBIG) with a lowercase message
 * in err (may be NULL) and, for a syntax error, the 1-based column of the
 * problem in err->col.  On failure jr is released.
 */
int lirs_record_from_json(lirs_json_record *jr, const char *text, size_t len, lb_error *err);
/*
 * The same with a parser kept between lines, which saves an allocation
 * of its parse stack per line (`lirs pack`).  A parser is used by one
 * thread at a time.  lirs_json_parser_new() returns NULL when out of memory.
 */
typedef struct lirs_json_parser lirs_json_parser;
lirs_json_parser *lirs_json_parser_new(void);
void lirs_json_parser_free(lirs_json_parser *p);
int lirs_json_parse_record(lirs_json_parser *p, lirs_json_record *jr, const char *text,
			   size_t len, lb_error *err);
/* Frees what lirs_record_from_json() kept; jr may be reused. */
void lirs_json_record_release(lirs_json_record *jr);

#endif
