/*
 * jsonw.c: the LIRS record <-> JSON mapping (lirs_jsonw.h): written with
 * base's JSON writer (lb_json.h), read with json-c.
 */
#include "lirs_jsonw.h"

#include <errno.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_error.h"

/* ,"key":value pairs; the literal keys need no escaping. */
static int kv_int(lb_buf *out, const char *lit, int64_t v)
{
	return lb_buf_adds(out, lit) < 0 ? LB_ENOMEM : lb_json_int(out, v);
}

static int kv_str(lb_buf *out, const char *lit, const char *s)
{
	return lb_buf_adds(out, lit) < 0 ? LB_ENOMEM : lb_json_strz(out, s);
}

int lirs_record_to_json(lb_buf *out, const lirs_record *r)
{
	if (kv_int(out, "{\"last_modified\":", r->last_modified) < 0 ||
	    kv_int(out, ",\"last_detected\":", r->last_detected) < 0 ||
	    kv_int(out, ",\"tz_offset\":", r->tz_offset) < 0 ||
	    kv_int(out, ",\"content_length\":", r->content_length) < 0 ||
	    kv_str(out, ",\"url\":", r->url) < 0 ||
	    kv_str(out, ",\"title\":", r->title) < 0 ||
	    kv_str(out, ",\"author\":", r->author) < 0 ||
	    kv_str(out, ",\"source_url\":", r->source_url) < 0 ||
	    kv_str(out, ",\"extension\":", r->extension) < 0)
		return LB_ENOMEM;
	if (r->nextra > 0) {
		if (lb_buf_adds(out, ",\"extra\":[") < 0)
			return LB_ENOMEM;
		for (size_t i = 0; i < r->nextra; i++)
			if ((i && lb_buf_addc(out, ',') < 0) || lb_json_strz(out, r->extra[i]) < 0)
				return LB_ENOMEM;
		if (lb_buf_addc(out, ']') < 0)
			return LB_ENOMEM;
	}
	/* tama's NATSU fields by name too (lirs(5)); extra[] stays as it was */
	if (lirs_record_method(r) &&
	    (kv_str(out, ",\"checked_url\":", lirs_record_checked_url(r)) < 0 ||
	     kv_str(out, ",\"method\":", lirs_record_method(r)) < 0))
		return LB_ENOMEM;
	return lb_buf_addc(out, '}');
}

/* ---- reading ------------------------------------------------------------ */

static const char *const int_keys[] = {
	"last_modified", "last_detected", "tz_offset", "content_length",
};
static const char *const str_keys[] = {
	"url", "title", "author", "source_url", "extension",
};

static int64_t *int_slot(lirs_record *r, size_t i)
{
	int64_t *slots[] = { &r->last_modified, &r->last_detected,
			     &r->tz_offset, &r->content_length };
	return slots[i];
}

static char **str_slot(lirs_record *r, size_t i)
{
	char **slots[] = { &r->url, &r->title, &r->author, &r->source_url,
			   &r->extension };
	return slots[i];
}

/* A value of root's member key, or NULL when missing or null. */
static struct json_object *member(struct json_object *root, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(root, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static int get_ints(lirs_record *r, struct json_object *root, lb_error *err)
{
	for (size_t i = 0; i < sizeof int_keys / sizeof *int_keys; i++) {
		struct json_object *v = member(root, int_keys[i]);
		int64_t n;

		if (!v)
			continue;
		if (!json_object_is_type(v, json_type_int)) {
			return lb_err(err, LB_EPARSE, "'%s' is not an integer", int_keys[i]);
		}
		/* json-c keeps integers above INT64_MAX as uint64, and clamps
		 * those below INT64_MIN to it, so INT64_MIN cannot be told from
		 * an overflow: refuse them all rather than change a number (no
		 * LIRS time or length is anywhere near -2^63). */
		n = json_object_get_int64(v);
		if ((n == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX) ||
		    n == INT64_MIN) {
			return lb_err(err, LB_EPARSE, "'%s' is out of the 64-bit range", int_keys[i]);
		}
		*int_slot(r, i) = n;
	}
	return 0;
}

/* The text of a JSON string value; NULL after a message in err. */
static char *get_text(struct json_object *v, const char *what, size_t i, lb_error *err)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string)) {
		lb_err(err, LB_EPARSE, i ? "'%s' item %zu is not a string" : "'%s' is not a string", what, i);
		return NULL;
	}
	s = json_object_get_string(v);
	/* "\u0000" would cut the C string short: refuse, never truncate. */
	if (strlen(s) != (size_t)json_object_get_string_len(v)) {
		lb_err(err, LB_EPARSE, "'%s' contains a NUL character (\\u0000)", what);
		return NULL;
	}
	return (char *)s;
}

static int get_strs(lirs_record *r, struct json_object *root, lb_error *err)
{
	for (size_t i = 0; i < sizeof str_keys / sizeof *str_keys; i++) {
		struct json_object *v = member(root, str_keys[i]);

		if (v && !(*str_slot(r, i) = get_text(v, str_keys[i], 0, err)))
			return LB_EPARSE;
	}
	return 0;
}

static int get_extra(lirs_json_record *jr, struct json_object *root, lb_error *err)
{
	struct json_object *a = member(root, "extra");
	size_t n;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array)) {
		return lb_err(err, LB_EPARSE, "'extra' is not an array");
	}
	n = json_object_array_length(a);
	if (n == 0)
		return 0;
	jr->extra_ = calloc(n, sizeof *jr->extra_);
	if (!jr->extra_)
		return lb_err_code(err, LB_ENOMEM);
	for (size_t i = 0; i < n; i++)
		if (!(jr->extra_[i] = get_text(json_object_array_get_idx(a, i), "extra", i + 1, err)))
			return LB_EPARSE;
	jr->rec.extra = jr->extra_;
	jr->rec.nextra = n;
	return 0;
}

/* Parses text[0..len) as exactly one JSON value (strict RFC 8259, valid
 * UTF-8), white space around it allowed; NULL after a message and the
 * column in err. */
static struct json_object *parse(struct json_tokener *tok, const char *text, size_t len,
				 lb_error *err)
{
	struct json_object *root = NULL;
	enum json_tokener_error je;
	size_t end;

	if (len > INT_MAX) {
		lb_err(err, LB_ETOOBIG, "line longer than %d bytes", INT_MAX);
		return NULL;
	}
	json_tokener_reset(tok);
	root = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!root && je == json_tokener_continue)
		lb_err_at(err, LB_EPARSE, 0, (unsigned long)end + 1,
			  "line is not JSON: it ends inside a value");
	else if (!root)
		lb_err_at(err, LB_EPARSE, 0, (unsigned long)end + 1, "line is not JSON");
	else {
		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len) {
			lb_err_at(err, LB_EPARSE, 0, (unsigned long)end + 1,
				  "line is not JSON: text after the value");
			json_object_put(root);
			root = NULL;
		}
	}
	return root;
}

lirs_json_parser *lirs_json_parser_new(void)
{
	struct json_tokener *tok = json_tokener_new();

	if (tok)
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	return (lirs_json_parser *)tok;
}

void lirs_json_parser_free(lirs_json_parser *p)
{
	if (p)
		json_tokener_free((struct json_tokener *)p);
}

int lirs_record_from_json(lirs_json_record *jr, const char *text, size_t len, lb_error *err)
{
	lirs_json_parser *p = lirs_json_parser_new();
	int rc;

	if (!p) {
		memset(jr, 0, sizeof *jr);
		return lb_err_code(err, LB_ENOMEM);
	}
	rc = lirs_json_parse_record(p, jr, text, len, err);
	lirs_json_parser_free(p);
	return rc;
}

int lirs_json_parse_record(lirs_json_parser *p, lirs_json_record *jr, const char *text,
			   size_t len, lb_error *err)
{
	static char empty[1];
	struct json_object *root;
	int rc;

	memset(jr, 0, sizeof *jr);
	for (size_t i = 0; i < sizeof str_keys / sizeof *str_keys; i++)
		*str_slot(&jr->rec, i) = empty;
	/* A key given twice: the last one wins, as in jq and most JSON tools
	 * (RFC 8259 §4 leaves it open). */
	if (!(root = parse((struct json_tokener *)p, text, len, err)))
		return len > INT_MAX ? LB_ETOOBIG : LB_EPARSE;
	jr->doc_ = root;
	if (!json_object_is_type(root, json_type_object)) {
		rc = lb_err(err, LB_EPARSE, "not a JSON object");
		goto fail;
	}
	if ((rc = get_ints(&jr->rec, root, err)) < 0 ||
	    (rc = get_strs(&jr->rec, root, err)) < 0 ||
	    (rc = get_extra(jr, root, err)) < 0)
		goto fail;
	return 0;
fail:
	lirs_json_record_release(jr);
	return rc;
}

void lirs_json_record_release(lirs_json_record *jr)
{
	if (jr->doc_)
		json_object_put(jr->doc_);
	free(jr->extra_);
	memset(jr, 0, sizeof *jr);
}
