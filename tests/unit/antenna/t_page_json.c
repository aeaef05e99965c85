/*
 * t_page_json: JSON pages (ant_page.h, "JSON pages"): read by their data,
 * keys sorted and whitespace ignored; one segment per leaf "PATH: VALUE";
 * numbers by value; json: paths for --only and --ignore (page_jsonpath.c)
 * and their messages; hostile input bounded.
 */
#include "ant_page.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const JSON = "application/json";

static int an(const char *body, size_t len, const char *ct, const char *const *ign, size_t nign,
	      const char *const *only, size_t nonly, ant_page_info *pi, lb_error *err)
{
	ant_page_opts o = { .ignore = ign, .nignore = nign, .only = only, .nonly = nonly };

	return ant_page_analyze(body, len, ct, &o, pi, err);
}

static ant_page_info read1(const char *body, const char *ct)
{
	lb_error err = LB_ERROR_INIT;
	ant_page_info pi;

	if (an(body, strlen(body), ct, NULL, 0, NULL, 0, &pi, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(1);
	}
	return pi;
}

static int find(const ant_page_info *p, const char *s)
{
	for (size_t i = 0; i < p->nseg; i++)
		if (p->seg[i].len == strlen(s) && memcmp(p->text + p->seg[i].off, s, p->seg[i].len) == 0)
			return (int)i;
	return -1;
}

/* Every segment's text, joined by " | ", for a message. */
static const char *all(const ant_page_info *p)
{
	static char b[2048];
	size_t o = 0;

	b[0] = '\0';
	for (size_t i = 0; i < p->nseg && o + 8 < sizeof b; i++)
		o += (size_t)snprintf(b + o, sizeof b - o, "%s%.*s", i ? " | " : "", (int)p->seg[i].len,
				      p->text + p->seg[i].off);
	return b;
}

static void test_data_not_bytes(void)
{
	ant_page_info a = read1("{\"items\":[{\"name\":\"Widget\",\"price\":120},{\"name\":\"Gadget\",\"price\":80}],"
				"\"total\":2}", JSON);
	ant_page_info b = read1("{\n  \"total\" : 2,\n  \"items\" : [\n    { \"price\" : 120, \"name\" : \"Widget\" },\n"
				"    {\"price\":80,   \"name\":\"Gadget\"}\n  ]\n}\n", "application/json; charset=utf-8");
	ant_page_info c = read1("{\"items\":[{\"name\":\"Widget\",\"price\":150},{\"name\":\"Gadget\",\"price\":80}],"
				"\"total\":2}", JSON);
	int same = a.nseg == b.nseg && a.text_hash == b.text_hash;

	for (size_t i = 0; same && i < a.nseg; i++)
		same = a.seg[i].raw == b.seg[i].raw && a.seg[i].block == b.seg[i].block;
	OK(a.json && b.json, "application/json is read as JSON");
	OK(same, "keys re-ordered and re-indented: the same segments and text hash");
	IS_INT(a.nseg, 5, "one segment per leaf value (%s)", all(&a));
	OK(find(&a, "$.items[*].price: 120") >= 0 && find(&a, "$.items[*].name: Widget") >= 0 &&
	   find(&a, "$.total: 2") >= 0, "each segment is 'PATH: VALUE', positions as [*]");
	OK(find(&a, "$.items[*].name: Gadget") < find(&a, "$.total: 2"), "keys sorted: items before total");
	OK(a.text_hash != c.text_hash && find(&c, "$.items[*].price: 150") >= 0, "a value changed: another text");
	OK(a.seg[find(&a, "$.items[*].price: 120")].block == c.seg[find(&c, "$.items[*].price: 150")].block &&
	   a.seg[find(&a, "$.items[*].price: 120")].norm != c.seg[find(&c, "$.items[*].price: 150")].norm,
	   "... in the same place; in an array, compared exactly (another norm)");
	OK(a.seg[find(&a, "$.total: 2")].norm != a.seg[find(&a, "$.total: 2")].raw,
	   "a value at a path of its own: its numbers normalised, as text's");
	IS_STR(ant_page_seg_path(&a, (size_t)find(&a, "$.total: 2")), "$.total", "the segment's path");
	OK(a.title == NULL && a.feed_href == NULL && strcmp(a.charset, "UTF-8") == 0, "no title, no feed, UTF-8");
	ant_page_info_release(&a);
	ant_page_info_release(&b);
	ant_page_info_release(&c);
}

static void test_reorder(void)
{
	ant_page_info a = read1("[{\"id\":\"a\"},{\"id\":\"b\"},{\"id\":\"c\"}]", JSON);
	ant_page_info b = read1("[{\"id\":\"c\"},{\"id\":\"a\"},{\"id\":\"b\"}]", JSON);
	uint32_t sa = 0, sb = 0;

	for (size_t i = 0; i < a.nseg; i++)
		sa += a.seg[i].raw;
	for (size_t i = 0; i < b.nseg; i++)
		sb += b.seg[i].raw;
	OK(a.nseg == 3 && b.nseg == 3 && sa == sb, "an array re-ordered: the same multiset of segments");
	ant_page_info_release(&a);
	ant_page_info_release(&b);
}

static void test_values(void)
{
	ant_page_info a = read1("{\"a\":150,\"b\":150.0,\"c\":1.5e2,\"d\":-0.0,\"e\":1e999,\"f\":123456789012345678901234567890,"
				"\"g\":123456789012345678901234567891,\"h\":0.00015,\"i\":1.5E-10,\"j\":true,\"k\":null,"
				"\"l\":\"  two\\n words \",\"m\":\"\",\"n\":{},\"o\":[],\"p\":\"x\\u0000y\",\"q\":NaN}", JSON);

	OK(find(&a, "$.a: 150") >= 0 && find(&a, "$.b: 150") >= 0 && find(&a, "$.c: 150") >= 0,
	   "150, 150.0 and 1.5e2 are one value (%s)", all(&a));
	OK(find(&a, "$.d: 0") >= 0 && find(&a, "$.e: 1e999") >= 0, "-0.0 is 0; 1e999 stays 1e999");
	OK(find(&a, "$.f: 123456789012345678901234567890") >= 0 && find(&a, "$.g: 123456789012345678901234567891") >= 0,
	   "integers past 64 bits kept exactly (json-c would clamp both to one)");
	OK(find(&a, "$.h: 0.00015") >= 0 && find(&a, "$.i: 1.5e-10") >= 0, "fractions: plain when short, else d.de-N");
	OK(find(&a, "$.j: true") >= 0 && find(&a, "$.k: null") >= 0, "true, null");
	OK(find(&a, "$.l: two words") >= 0 && find(&a, "$.m: \"\"") >= 0, "strings: whitespace collapsed; empty as \"\"");
	OK(find(&a, "$.p: x\xef\xbf\xbdy") >= 0, "a NUL in a string is U+FFFD");
	OK(find(&a, "$.q: NaN") >= 0, "NaN (json-c takes it) as written");
	IS_INT(a.nseg, 15, "empty objects and arrays are nothing");
	ant_page_info_release(&a);

	a = read1("{\"k\":\"\xff\xfe ok\",\"we ird.key\":1,\"it's\":2,\"*\":3}", JSON);
	OK(find(&a, "$.k: \xef\xbf\xbd\xef\xbf\xbd ok") >= 0, "invalid UTF-8: U+FFFD each byte (%s)", all(&a));
	OK(find(&a, "$['we ird.key']: 1") >= 0 && find(&a, "$['it\\'s']: 2") >= 0 && find(&a, "$['*']: 3") >= 0,
	   "keys that are not names are written ['...'], as a path reads them back");
	ant_page_info_release(&a);
	a = read1("{\"a\":1e21,\"b\":1e22,\"c\":19.990,\"d\":-1.50E+3,\"e\":0.000001,\"f\":1e0000000001,"
		  "\"g\":1e12345678901}", JSON);
	OK(find(&a, "$.a: 1000000000000000000000") >= 0 && find(&a, "$.b: 1e22") >= 0 && find(&a, "$.c: 19.99") >= 0 &&
	   find(&a, "$.d: -1500") >= 0 && find(&a, "$.e: 0.000001") >= 0 && find(&a, "$.f: 10") >= 0 &&
	   find(&a, "$.g: 1e12345678901") >= 0, "numbers: 21 zeros plain, more as 1e22; an exponent past 9 digits kept as written (%s)", all(&a));
	ant_page_info_release(&a);
	a = read1("{\"a\":1,\"a\":2}", JSON);
	OK(a.nseg == 1 && find(&a, "$.a: 2") >= 0, "a duplicate key: its last value");
	ant_page_info_release(&a);
}

static void test_sniff(void)
{
	ant_page_info a = read1("  {\"a\": 1}", NULL);
	ant_page_info b = read1("[1, 2]", "text/plain; charset=utf-8");
	ant_page_info c = read1("{not json <p>x</p>", NULL);
	ant_page_info d = read1("\xEF\xBB\xBF{\"a\":1}", "application/vnd.api+json");

	OK(a.json && find(&a, "$.a: 1") >= 0, "no type, a JSON object: JSON");
	OK(b.json && find(&b, "$[*]: 1") >= 0, "text/plain, a JSON array: JSON");
	OK(!c.json, "no type, not JSON: read as HTML");
	OK(d.json && find(&d, "$.a: 1") >= 0, "a +json type, a BOM skipped");
	OK(ant_page_is_json("[1]", 3, "text/plain") && !ant_page_is_json("1", 1, "text/plain") &&
	   !ant_page_is_json("[1]", 3, "text/html") && ant_page_is_json("x", 1, "application/json") &&
	   !ant_page_is_json("{", 1, NULL), "ant_page_is_json: by type, else a parsed object or array");
	ant_page_info_release(&a);
	ant_page_info_release(&b);
	ant_page_info_release(&c);
	ant_page_info_release(&d);
	/* charsets: a legacy API's Shift_JIS said in the type, UTF-16 with a BOM, forced */
	{
		static const char sjis[] = "{\"name\":\"\x95\x5c\x8e\xa6\"}";   /* 表示: 0x5C, a backslash in ASCII */
		static const char u16[] = "\xff\xfe{\0\"\0a\0\"\0:\0\"\0x\0\"\0}\0";
		lb_error err = LB_ERROR_INIT;
		ant_page_opts o = { .forced_charset = "Shift_JIS" };

		a = read1(sjis, "application/json; charset=Shift_JIS");
		OK(find(&a, "$.name: \xe8\xa1\xa8\xe7\xa4\xba") >= 0 && strcmp(a.charset, "SHIFT_JIS") == 0 &&
		   strcmp(a.charset_from, "header") == 0, "charset=Shift_JIS in the type: decoded (%s, %s)", all(&a), a.charset);
		ant_page_info_release(&a);
		OK(ant_page_is_json(sjis, sizeof sjis - 1, "text/plain; charset=Shift_JIS"), "... sniffed as JSON in that charset too");
		IS_INT(ant_page_analyze(u16, sizeof u16 - 1, JSON, NULL, &a, &err), 0, "UTF-16LE with a BOM");
		OK(find(&a, "$.a: x") >= 0, "... decoded (%s)", all(&a));
		ant_page_info_release(&a);
		IS_INT(ant_page_analyze(sjis, sizeof sjis - 1, JSON, &o, &a, &err), 0, "a forced charset");
		OK(find(&a, "$.name: \xe8\xa1\xa8\xe7\xa4\xba") >= 0 && strcmp(a.charset_from, "forced") == 0, "... beats UTF-8");
		ant_page_info_release(&a);
		a = read1("{\"a\":\"\xe8\xa1\xa8\"}", JSON);
		OK(strcmp(a.charset, "UTF-8") == 0 && strcmp(a.charset_from, "default") == 0, "no charset said: UTF-8, never guessed");
		ant_page_info_release(&a);
	}
}

static void test_paths(void)
{
	const char *doc = "{\"items\":[{\"name\":\"A\",\"price\":1,\"stock\":5},{\"name\":\"B\",\"price\":2,\"stock\":6}],"
			  "\"meta\":{\"time\":\"now\",\"deep\":{\"price\":9}}}";
	static const char *const p1[] = { "json:$.items[*].price" };
	static const char *const p2[] = { "json:$.meta" };
	static const char *const p3[] = { "json:$..price" };
	static const char *const p4[] = { "json:$.items[-1]['name']" };
	static const char *const p5[] = { "json:$.items[0].*" };
	static const char *const p6[] = { "json:$.nothere" };
	static const char *const p7[] = { "price: [0-9]+" };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;

	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p1, 1, &pi, &err), 0, "--only json:$.items[*].price");
	OK(pi.nseg == 2 && find(&pi, "$.items[*].price: 1") >= 0 && find(&pi, "$.items[*].price: 2") >= 0 &&
	   pi.only_matched == 2, "... the two prices only (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, p2, 1, NULL, 0, &pi, &err), 0, "--ignore json:$.meta");
	OK(pi.nseg == 6 && find(&pi, "$.meta.time: now") < 0, "... the subtree left out (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p3, 1, &pi, &err), 0, "--only json:$..price");
	OK(pi.nseg == 3 && find(&pi, "$.meta.deep.price: 9") >= 0, "... at any depth (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p4, 1, &pi, &err), 0, "--only json:$.items[-1]['name']");
	OK(pi.nseg == 1 && find(&pi, "$.items[*].name: B") >= 0, "... the last item's name (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p5, 1, &pi, &err), 0, "--only json:$.items[0].*");
	OK(pi.nseg == 3 && find(&pi, "$.items[*].name: A") >= 0, "... the first item's members (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, p3, 1, p2, 1, &pi, &err), 0, "--only $.meta --ignore $..price");
	OK(pi.nseg == 1 && find(&pi, "$.meta.time: now") >= 0, "... ignore wins inside only (%s)", all(&pi));
	ant_page_info_release(&pi);
	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p6, 1, &pi, &err), LB_ENOTFOUND,
	       "--only path matching nothing: LB_ENOTFOUND");
	OK(strstr(err.msg, "json:$.nothere") != NULL, "... naming it: %s", err.msg);
	IS_INT(an("<p>x</p>", 8, "text/html", NULL, 0, p1, 1, &pi, &err), LB_EINVAL, "a json: pattern on HTML: LB_EINVAL");
	OK(strstr(err.msg, "json:$.items[*].price") && strstr(err.msg, "text/html"), "... naming it: %s", err.msg);
	IS_INT(an("<p>x</p>", 8, "text/html", p2, 1, NULL, 0, &pi, &err), LB_EINVAL, "... as --ignore too");
	IS_INT(an(doc, strlen(doc), JSON, NULL, 0, p7, 1, &pi, &err), 0, "--only expression on a JSON page");
	OK(pi.nseg == 3 && find(&pi, "price: 2") >= 0 && find(&pi, "price: 9") >= 0, "... its matches in each line (%s)", all(&pi));
	ant_page_info_release(&pi);
}

static void test_check(void)
{
	static const struct { const char *p; int ok; const char *msg; } c[] = {
		{ "json:$", 1, NULL }, { "json:$.a.b['c d'][0][*]..e", 1, NULL }, { "json:$..*", 1, NULL },
		{ "json:$[\"x\\\"y\"]", 1, NULL }, { "json:$..[0]", 1, NULL },
		{ "json:a.b", 0, "starts with '$'" }, { "json:$.a[?(@.x)]", 0, "filters" },
		{ "json:$.a[0:2]", 0, "slices" }, { "json:$.a[0,1]", 0, "unions" },
		{ "json:$.a['b", 0, "unclosed" }, { "json:$.", 0, "a name" }, { "json:$x", 0, "expected" },
		{ "json:", 0, "'$'" },
	};
	lb_error err = LB_ERROR_INIT;
	char many[300] = "json:$";

	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		int rc = ant_page_only_check(c[i].p, &err);

		if (c[i].ok)
			IS_INT(rc, 0, "'%s' is a JSON path", c[i].p);
		else
			OK(rc == LB_EINVAL && strstr(err.msg, c[i].msg) && strstr(err.msg, "only pattern"),
			   "'%s' refused: %s", c[i].p, err.msg);
	}
	IS_INT(ant_page_pattern_check("json:$.x[", &err), LB_EINVAL, "ignore patterns are checked too");
	OK(strstr(err.msg, "ignore pattern") != NULL, "... said as an ignore pattern: %s", err.msg);
	for (int i = 0; i < 40; i++)
		strcat(many, ".a");
	IS_INT(ant_page_only_check(many, &err), LB_EINVAL, "over 32 steps refused: %s", err.msg);
}

static void test_hostile(void)
{
	size_t n = 1 << 20;
	char *b = malloc(2 * n + 16);
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	int rc;

	/* deep nesting */
	memset(b, '[', n);
	memset(b + n, ']', n);
	IS_INT(an(b, 2 * n, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "a million levels deep: LB_EPARSE");
	IS_INT(an(b + n - 100, 200, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "100 levels deep: LB_EPARSE");
	OK(strstr(err.msg, "ANT_PAGE_JSON_MAX_DEPTH") != NULL, "... said: %s", err.msg);
	memset(b, '[', 64);
	memset(b + 64, ']', 64);
	IS_INT(an(b, 128, JSON, NULL, 0, NULL, 0, &pi, &err), 0, "64 levels: read");
	ant_page_info_release(&pi);
	IS_INT(an(b, 2 * n, NULL, NULL, 0, NULL, 0, &pi, &err), 0, "no type and too deep: read as HTML, not refused");
	OK(!pi.json, "... not JSON");
	ant_page_info_release(&pi);
	/* a huge array */
	b[0] = '[';
	for (size_t i = 0; i < n / 2; i++)
		memcpy(b + 1 + 2 * i, "0,", 2);
	b[n] = '0';
	b[n + 1] = ']';
	IS_INT(an(b, n + 2, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "half a million values: refused");
	OK(strstr(err.msg, "ANT_PAGE_JSON_MAX_VALUES") != NULL, "... said: %s", err.msg);
	for (size_t i = 0; i < n / 4; i++)
		memcpy(b + 1 + 4 * i, "{},", 3), b[4 + 4 * i] = ' ';
	b[n] = '0';
	IS_INT(an(b, n + 2, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "a quarter million objects: refused");
	/* many leaves: the rest is one segment */
	{
		size_t k = 0;

		b[k++] = '[';
		for (int i = 0; i < 2000; i++)
			k += (size_t)sprintf(b + k, "%s%d", i ? "," : "", i);
		b[k++] = ']';
		IS_INT(an(b, k, JSON, NULL, 0, NULL, 0, &pi, &err), 0, "2000 values: read");
		IS_INT(pi.nseg, ANT_PAGE_MAX_SEGMENTS, "... %d segments", ANT_PAGE_MAX_SEGMENTS);
		OK(find(&pi, "\xe2\x80\xa6 and 1489 more values") >= 0, "... the last one the rest's");
		b[k - 2] = '8';   /* 1999 -> 1998 */
		{
			ant_page_info p2;
			int same;

			an(b, k, JSON, NULL, 0, NULL, 0, &p2, &err);
			same = p2.seg[p2.nseg - 1].raw == pi.seg[pi.nseg - 1].raw;
			OK(!same, "... a change past the segments changes the last one");
			ant_page_info_release(&p2);
		}
		ant_page_info_release(&pi);
	}
	/* a long string, a long key */
	b[0] = '{';
	b[1] = '"';
	memset(b + 2, 'k', n);
	memcpy(b + 2 + n, "\":\"", 3);
	memset(b + 5 + n, 'v', n - 10);
	memcpy(b + 5 + 2 * n - 10, "\"}", 2);
	rc = an(b, 2 * n - 3, JSON, NULL, 0, NULL, 0, &pi, &err);
	IS_INT(rc, 0, "a megabyte key and value: read");
	OK(pi.nseg == 1 && strlen(ant_page_seg_path(&pi, 0)) < 400, "... one segment, its path cut (%zu bytes)",
	   strlen(ant_page_seg_path(&pi, 0)));
	ant_page_info_release(&pi);
	IS_INT(an("{\"a\":1} x", 9, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "text after the value: LB_EPARSE");
	IS_INT(an("{\"a\":", 5, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "cut short: LB_EPARSE (%s)", err.msg);
	IS_INT(an("", 0, JSON, NULL, 0, NULL, 0, &pi, &err), LB_EPARSE, "empty: LB_EPARSE");
	IS_INT(an("\"just a string\"", 15, JSON, NULL, 0, NULL, 0, &pi, &err), 0, "a bare string is a document");
	OK(find(&pi, "$: just a string") >= 0, "... at $");
	ant_page_info_release(&pi);
	free(b);
}

static void test_excerpt(void)
{
	const char *v1 = "{\"items\":[{\"name\":\"A\",\"price\":120}],\"note\":\"hello\"}";
	const char *v2 = "{\"items\":[{\"name\":\"A\",\"price\":150}],\"note\":\"hello\"}";
	ant_page_info a = read1(v1, JSON), b;
	ant_page_prev prev = { a.segs, a.nsegs, 0 };
	ant_page_opts o = { .prev = &prev };
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_page_analyze(v2, strlen(v2), JSON, &o, &b, &err), 0, "with a prev");
	IS_STR(b.excerpt ? b.excerpt : "(none)", "$.items[*].price: 150", "the excerpt is the changed value");
	ant_page_info_release(&a);
	ant_page_info_release(&b);
	{
		ant_page_info c = read1("{\"date\":\"2026-11-29 07:30\",\"desc\":\"the meeting moved\",\"node\":\"3694b22c6e\"}", JSON);
		unsigned char pick[3] = { 1, 1, 1 };
		char *x = c.nseg == 3 ? ant_page_excerpt(&c, pick, 0) : NULL;

		IS_STR(x ? x : "(none)", "$.desc: the meeting moved",
		       "an excerpt of values: a date and an id alone left out beside words, as in HTML");
		free(x);
		ant_page_info_release(&c);
	}
}

int main(void)
{
	TAP_PLAN(94);
	test_data_not_bytes();
	test_reorder();
	test_values();
	test_sniff();
	test_paths();
	test_check();
	test_hostile();
	test_excerpt();
	TAP_DONE();
}
