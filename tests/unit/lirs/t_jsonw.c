/* t_jsonw.c: the JSON writer, record <-> JSON, and the record checker. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lirs_jsonw.h"
#include "lirs.h"
#include "tap.h"

static const char *str(const char *s, size_t n)
{
	static lb_buf b = LB_BUF_INIT;

	lb_buf_reset(&b);
	lb_json_str(&b, s, n);
	return b.data;
}

/* Whatever the bytes, a strict parser (json-c, validating UTF-8) must
 * accept the output as a JSON string. */
static int valid_json_string(const char *bytes, size_t n)
{
	lb_buf b = LB_BUF_INIT;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j;
	int ok;

	lb_json_str(&b, bytes, n);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	j = json_tokener_parse_ex(tok, b.data, (int)b.len);
	ok = j && json_object_is_type(j, json_type_string) &&
	     json_tokener_get_parse_end(tok) == b.len;
	json_object_put(j);
	json_tokener_free(tok);
	lb_buf_release(&b);
	return ok;
}

static void test_strings(void)
{
	lb_buf b = LB_BUF_INIT;

	IS_STR(str("abc", 3), "\"abc\"", "plain ASCII");
	IS_STR(str("a\"b\\c", 5), "\"a\\\"b\\\\c\"", "quote and backslash");
	IS_STR(str("\n\r\t\b\f\x01\x1f\x7f", 8), "\"\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\"",
	       "control characters");
	IS_STR(str("a\0b", 3), "\"a\\u0000b\"", "NUL byte");
	IS_STR(str("\xe6\x97\xa5\xe2\x91\xa0", 6), "\"\xe6\x97\xa5\xe2\x91\xa0\"", "UTF-8 copied");
	IS_STR(str("\xff", 1), "\"\xef\xbf\xbd\"", "invalid byte -> U+FFFD");
	IS_STR(str("\xe6\x97", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"", "truncated sequence -> U+FFFD each");
	IS_STR(str("\xed\xa0\x80", 3), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "surrogate refused");
	IS_STR(str("\xc0\xaf", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"", "overlong refused");
	IS_STR(str("\xf0\x9f\x98\x80", 4), "\"\xf0\x9f\x98\x80\"", "4-byte sequence kept");
	{
		unsigned char all[256];
		for (int i = 0; i < 256; i++)
			all[i] = (unsigned char)i;
		OK(valid_json_string((const char *)all, 256), "all 256 bytes give valid JSON");
	}
	lb_json_int(&b, 0); lb_buf_addc(&b, ' ');
	lb_json_int(&b, -18000); lb_buf_addc(&b, ' ');
	lb_json_int(&b, INT64_MAX); lb_buf_addc(&b, ' ');
	lb_json_int(&b, INT64_MIN);
	IS_STR(b.data, "0 -18000 9223372036854775807 -9223372036854775808", "integers");
	lb_buf_release(&b);
}

/* The object members base's writer offers (lb_json.h): the antenna's
 * list and export are written with them. */
static void test_members(void)
{
	lb_buf b = LB_BUF_INIT;

	OK(lb_buf_addc(&b, '{') == 0 && lb_json_key(&b, "url") == 0 && lb_json_strz(&b, "a\"b") == 0 &&
	   lb_json_next_strz_or_null(&b, "title", NULL) == 0 &&
	   lb_json_next_strz_or_null(&b, "author", "\n") == 0 &&
	   lb_json_next_int(&b, "n", -7) == 0 &&
	   lb_json_next_lines(&b, "ignore", "x\ny\n") == 0 &&
	   lb_json_next_lines(&b, "only", "") == 0 &&
	   lb_json_next_key(&b, "k") == 0 && lb_json_strz_or_null(&b, NULL) == 0 &&
	   lb_json_next_key(&b, "z") == 0 && lb_json_strz(&b, NULL) == 0 && lb_buf_addc(&b, '}') == 0,
	   "members: written");
	IS_STR(b.data, "{\"url\":\"a\\\"b\",\"title\":null,\"author\":\"\\n\",\"n\":-7,"
		       "\"ignore\":[\"x\",\"y\"],\"only\":[],\"k\":null,\"z\":\"\"}",
	       "members: ',\"key\":' then the value; NULL is null or \"\" as asked");
	lb_buf_release(&b);
}

static void test_record(void)
{
	char *extra[] = { "http://x/", "HEAD" };
	lirs_record r = { 938779260, 938781002, 32400, 49383, "http://hiya.ouchi.to/n/",
			  "Tadayo \"Memories\"", "Hiya", "http://amano.hauN.org/", "blah blah",
			  NULL, 0, 1, { 0 }, 0, 0, 0, 0, { 0 }, { 0 } };
	lirs_json_record jr;
	lb_buf b = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;

	lirs_record_to_json(&b, &r);
	IS_STR(b.data, "{\"last_modified\":938779260,\"last_detected\":938781002,"
	       "\"tz_offset\":32400,\"content_length\":49383,\"url\":\"http://hiya.ouchi.to/n/\","
	       "\"title\":\"Tadayo \\\"Memories\\\"\",\"author\":\"Hiya\","
	       "\"source_url\":\"http://amano.hauN.org/\",\"extension\":\"blah blah\"}",
	       "record without extras: exactly the nine keys");
	r.extra = extra;
	r.nextra = 2;
	lb_buf_reset(&b);
	lirs_record_to_json(&b, &r);
	OK(strstr(b.data, ",\"extra\":[\"http://x/\",\"HEAD\"]}") != NULL, "extras as an array");

	IS_INT(lirs_record_from_json(&jr, b.data, b.len, &err), 0, "parse back");
	IS_INT(jr.rec.last_modified, 938779260, "last_modified back");
	IS_INT(jr.rec.tz_offset, 32400, "tz_offset back");
	IS_STR(jr.rec.title, "Tadayo \"Memories\"", "title back");
	IS_INT(jr.rec.nextra, 2, "two extras back");
	IS_STR(jr.rec.extra[1], "HEAD", "extra back");
	lirs_json_record_release(&jr);

	IS_INT(lirs_record_from_json(&jr, "{\"url\":\"http://a/\",\"more\":1}", 28, NULL), 0,
	       "missing keys default, unknown ignored; NULL err accepted");
	IS_INT(jr.rec.last_detected, 0, "missing integer is 0");
	IS_STR(jr.rec.title, "", "missing string is empty");
	IS_INT(jr.rec.nextra, 0, "no extras");
	lirs_json_record_release(&jr);

	IS_INT(lirs_record_from_json(&jr, "{\"url\":1}", 9, &err), LB_EPARSE, "LB_EPARSE");
	OK(strstr(err.msg, "'url' is not a string") && err.code == LB_EPARSE, "url must be a string");
	IS_INT(lirs_record_from_json(&jr, "{\"url\":1}", 9, NULL), LB_EPARSE, "NULL err accepted");
	OK(lirs_record_from_json(&jr, "{\"tz_offset\":1.5}", 17, &err) < 0,
	   "a real is not an integer");
	OK(lirs_record_from_json(&jr, "[1]", 3, &err) < 0, "array refused");
	OK(lirs_record_from_json(&jr, "{\"url\":", 7, &err) < 0 &&
	   strncmp(err.msg, "line is not JSON", 16) == 0, "syntax error reported");
	IS_INT(err.col, 8, "its column");
	OK(lirs_record_from_json(&jr, "{\"title\":\"a\\u0000b\"}", 20, &err) < 0,
	   "NUL inside a string refused");
	lb_buf_release(&b);
}

static int counts[LIRS_R__COUNT];
static unsigned long dup_line_seen;

static void count_diag(void *ctx, const lirs_diag *d)
{
	(void)ctx;
	counts[d->rule]++;
	if (d->rule == LIRS_R_DUPLICATE_URL && strstr(d->message, "line 1"))
		dup_line_seen = d->line;
}

static void test_checker(void)
{
	lirs_check_opts o = { .now = 1000000000, .on_diag = count_diag };
	lirs_checker *c = lirs_checker_new(&o);
	lirs_record r = { 999999000, 999999500, 32400, 10, "http://a/", "", "", "", "",
			  NULL, 0, 1, { 0 }, 0, 0, 0, 0, { 0 }, { 0 } };
	char url[64];
	int errs;

	IS_INT(lirs_checker_check(c, &r), 0, "a clean record has no errors");
	r.line = 2;
	r.tz_offset = 50401;
	r.content_length = -1;
	r.last_modified = 0;
	r.extension = "0";
	errs = lirs_checker_check(c, &r);
	IS_INT(errs, 3, "tz-range, negative, duplicate-url are errors");
	IS_INT(counts[LIRS_R_TZ_RANGE], 1, "tz-range");
	IS_INT(counts[LIRS_R_NEGATIVE], 1, "negative");
	IS_INT(counts[LIRS_R_ZERO_TIME], 1, "zero-time");
	IS_INT(counts[LIRS_R_EXTENSION_ZERO], 1, "extension-zero");
	IS_INT(counts[LIRS_R_DUPLICATE_URL], 1, "duplicate-url");
	IS_INT(dup_line_seen, 2, "duplicate-url names the first line");
	r = (lirs_record){ 1000000100, 1000000050, -43200, 0, "mailto:x", "", "", "", "",
			   NULL, 0, 3, { 0 }, 0, 0, 0, 0, { 0 }, { 0 } };
	lirs_checker_check(c, &r);
	IS_INT(counts[LIRS_R_FUTURE], 1, "future");
	IS_INT(counts[LIRS_R_MODIFIED_AFTER_DETECTED], 1, "modified-after-detected");
	IS_INT(counts[LIRS_R_BAD_URL], 1, "bad-url");
	IS_INT(counts[LIRS_R_TZ_RANGE], 1, "-43200 is in range");
	r = (lirs_record){ 1, 1000000000 - 28801, 0, 0, "http://b/", "", "", "", "", NULL, 0, 4, { 0 }, 0, 0, 0, 0, { 0 }, { 0 } };
	lirs_checker_check(c, &r);
	IS_INT(counts[LIRS_R_STALE], 1, "stale");
	r.url = "http://c/";
	r.last_detected = 1000000000 - 28800;
	lirs_checker_check(c, &r);
	IS_INT(counts[LIRS_R_STALE], 1, "exactly max_age is not stale");
	/* The URL set scales: 200,000 distinct URLs, then one repeat. */
	memset(counts, 0, sizeof counts);
	r.last_detected = 999999999;
	for (int i = 0; i < 200000; i++) {
		snprintf(url, sizeof url, "http://host%d.example/page", i);
		r.url = url;
		lirs_checker_check(c, &r);
	}
	IS_INT(counts[LIRS_R_DUPLICATE_URL], 0, "200000 distinct URLs, no duplicate");
	r.url = "http://host123.example/page";
	lirs_checker_check(c, &r);
	IS_INT(counts[LIRS_R_DUPLICATE_URL], 1, "a repeat among 200000 is found");
	lirs_checker_free(c);
}

int main(void)
{
	TAP_PLAN(50);
	test_strings();
	test_members();
	test_record();
	test_checker();
	TAP_DONE();
}
