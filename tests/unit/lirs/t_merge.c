/* t_merge: URL keys, the winner rule, drop rules, output order, memory reuse. */
#include <stdlib.h>

#include "lirs_merge.h"
#include "tap.h"

static const char *key(const char *url)
{
	static lb_buf b = LB_BUF_INIT;

	lb_buf_reset(&b);
	if (lb_url_key(&b, url) != 0)
		return NULL;
	return b.data;
}

static void test_keys(void)
{
	IS_STR(key("HTTP://Example.COM:80/a"), "http://example.com/a", "key: scheme, host lowercased, :80 dropped");
	IS_STR(key("http://example.com/a"), "http://example.com/a", "key: HTTP://Example.COM:80/a == http://example.com/a");
	IS_STR(key("https://EXAMPLE.com:443/X?Q=1#F"), "https://example.com/X?Q=1#F", "key: :443 dropped for https, path/query kept");
	IS_STR(key("http://example.com:443/"), "http://example.com:443/", "key: :443 kept for http");
	IS_STR(key("https://example.com:80/"), "https://example.com:80/", "key: :80 kept for https");
	IS_STR(key("http://example.com:8080/A"), "http://example.com:8080/A", "key: other port kept");
	IS_STR(key("http://example.com:/a"), "http://example.com/a", "key: empty port dropped");
	IS_STR(key("http://Example.com/A"), "http://example.com/A", "key: path case kept");
	IS_STR(key("http://User:PW@Example.com/"), "http://User:PW@example.com/", "key: userinfo kept as written");
	IS_STR(key("http://[2001:DB8::1]:80/x"), "http://[2001:db8::1]/x", "key: IPv6 literal lowercased, port dropped");
	IS_STR(key("http://[2001:db8::1]/x"), "http://[2001:db8::1]/x", "key: IPv6 literal without port");
	IS_STR(key("http://Example.com"), "http://example.com/", "key: empty path is / (RFC 3986 6.2.3)");
	IS_STR(key("http://Example.com?q"), "http://example.com/?q", "key: empty path before query");
	IS_STR(key("http://ex%41mple.com/"), "http://ex%41mple.com/", "key: percent-escape in host kept");
	IS_STR(key("mailto:Foo@Example.COM"), "mailto:Foo@Example.COM", "key: no authority: as written");
	IS_STR(key("/relative/Path"), "/relative/Path", "key: relative: as written");
	IS_STR(key(""), "", "key: empty");
}

static void test_rule(void)
{
	OK(lirs_merge_supersedes(200, 1, 100, 9), "winner: greater Last-Modified wins");
	OK(!lirs_merge_supersedes(100, 9, 200, 1), "winner: smaller Last-Modified loses");
	OK(lirs_merge_supersedes(100, 9, 100, 5), "winner: tie -> greater Last-Detected");
	OK(!lirs_merge_supersedes(100, 5, 100, 9), "winner: tie -> smaller Last-Detected loses");
	OK(lirs_merge_supersedes(100, 5, 100, 5), "winner: full tie -> later wins");
}

static lirs_record rec(const char *url, int64_t lm, int64_t ld, const char *title)
{
	lirs_record r;

	memset(&r, 0, sizeof r);
	r.url = (char *)url;
	r.title = (char *)title;
	r.author = (char *)"";
	r.source_url = (char *)"";
	r.extension = (char *)"";
	r.last_modified = lm;
	r.last_detected = ld;
	r.tz_offset = 32400;
	r.content_length = 10;
	return r;
}

static void test_check(void)
{
	lirs_record r = rec("http://a/", 100, 1000, "t");

	IS_INT(lirs_merge_check(&r, 1000, 0), LIRS_MERGE_USABLE, "check: fresh record usable");
	r.last_modified = 0;
	IS_INT(lirs_merge_check(&r, 1000, 0), LIRS_MERGE_UNUSABLE, "check: LM 0 unusable");
	r.last_modified = 100;
	r.last_detected = 0;
	IS_INT(lirs_merge_check(&r, 1000, 0), LIRS_MERGE_UNUSABLE, "check: LD 0 unusable");
	r.last_detected = 1000;
	IS_INT(lirs_merge_check(&r, 1000 + 28800, 0), LIRS_MERGE_USABLE, "check: exactly max_age old is fresh");
	IS_INT(lirs_merge_check(&r, 1000 + 28801, 0), LIRS_MERGE_STALE, "check: older than default 28800 is stale");
	IS_INT(lirs_merge_check(&r, 1000 + 61, 60), LIRS_MERGE_STALE, "check: --max-age honoured");
	IS_INT(lirs_merge_check(&r, 1000 + 99999, -1), LIRS_MERGE_USABLE, "check: negative max_age turns staleness off");
	r.url = (char *)"";
	IS_INT(lirs_merge_check(&r, 1000, 0), LIRS_MERGE_UNUSABLE, "check: blank URL unusable");
}

typedef struct seen { lb_buf out; int n; } seen;

static const char *nzs(const char *x) { return x ? x : ""; }

/* Every field of r, on one line. */
static void describe(lb_buf *b, const lirs_record *r)
{
	size_t i;

	lb_buf_addf(b, "%lld %lld %lld %lld <%s> <%s> <%s> <%s> <%s>", (long long)r->last_modified,
		  (long long)r->last_detected, (long long)r->tz_offset, (long long)r->content_length,
		  nzs(r->url), nzs(r->title), nzs(r->author), nzs(r->source_url), nzs(r->extension));
	for (i = 0; i < r->nextra; i++)
		lb_buf_addf(b, " [%s]", nzs(r->extra[i]));
	lb_buf_addc(b, '\n');
}

static int collect_all(void *ctx, const lirs_record *r)
{
	seen *s = ctx;

	describe(&s->out, r);
	s->n++;
	return 0;
}

static int collect(void *ctx, const lirs_record *r)
{
	seen *s = ctx;

	lb_buf_addf(&s->out, "%lld %lld %s %s|", (long long)r->last_modified,
		  (long long)r->last_detected, r->url, r->title);
	s->n++;
	return 0;
}

/* One rule for a Last-Modified from the future (lirs_merge.h). */
static void test_future(void)
{
	const int64_t now = 1700000000;
	lirs_record r = rec("http://a/", now + 3600, now, "t");
	lirs_merge_opts o = { now, 0, 0 };
	lirs_merge_table *t;
	seen s = { LB_BUF_INIT, 0 };

	IS_INT(lirs_merge_check(&r, now, 0), LIRS_MERGE_USABLE, "future: LM now + 3600 is within the default skew");
	r.last_modified = now + 3601;
	IS_INT(lirs_merge_check(&r, now, 0), LIRS_MERGE_FUTURE, "future: LM now + 3601 is from the future");
	IS_INT(lirs_merge_check_at(&r, now, 0, 3601), LIRS_MERGE_USABLE, "future: max_future overrides the tolerance");
	IS_INT(lirs_merge_check_at(&r, now, 0, -1), LIRS_MERGE_USABLE, "future: a negative max_future turns the rule off");
	r.last_modified = now;
	r.last_detected = now + 86400;
	IS_INT(lirs_merge_check(&r, now, 0), LIRS_MERGE_FUTURE, "future: so is a Last-Detected a day ahead");
	r.last_modified = INT64_MAX;
	r.last_detected = INT64_MAX;
	IS_INT(lirs_merge_check_at(&r, INT64_MIN / 2, 0, INT64_MAX / 2), LIRS_MERGE_FUTURE, "future: no overflow at the extremes");

	/* --now 1700000000: a valid older record and the same URL a day ahead */
	t = lirs_merge_new(&o);
	r = rec("http://example.jp/a", 1699990000, 1699999000, "valid");
	lirs_merge_add(t, &r);
	r = rec("http://example.jp/a", 1700086400, 1700086400, "a day ahead");
	lirs_merge_add(t, &r);
	lirs_merge_each(t, collect, &s);
	IS_STR(s.out.data, "1699990000 1699999000 http://example.jp/a valid|", "future: the valid record is kept");
	IS_INT(lirs_merge_get_stats(t)->dropped_future, 1, "future: the record from the future is counted");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
}

/* Every field comes back as it went in, whatever the packing (varints,
 * interned hosts, URL and source elided, extra fields, a blob bigger than
 * a pool chunk, extreme numbers). */
static void test_roundtrip(void)
{
	static char big[3 << 20];
	char *extra[3] = { (char *)"x1", (char *)"", (char *)"http://x/3" };
	lirs_record in[6];
	lirs_merge_opts o = { 1700000000, -1, -1 };
	lirs_merge_table *t = lirs_merge_new(&o);
	seen s = { LB_BUF_INIT, 0 };
	lb_buf want = LB_BUF_INIT;
	int i;

	memset(big, 'b', sizeof big - 1);
	in[0] = rec("http://Example.JP:80/a", 1699999999, 1700000000, "t0");
	in[0].source_url = (char *)"http://Example.JP:80/a";   /* = URL, not key */
	in[1] = rec("http://example.jp/b", INT64_MAX, INT64_MIN, "t1");
	in[1].tz_offset = -1;
	in[1].content_length = INT64_MIN;
	in[1].extra = extra;
	in[1].nextra = 3;
	in[2] = rec("mailto:someone@example.jp", -5, 7, "");
	in[2].tz_offset = INT64_MIN;
	in[2].source_url = (char *)"mailto:someone@example.jp";
	in[3] = rec("https://w.example.jp", 3, 4, big);
	in[3].author = (char *)"\xe8\x91\x97";
	in[3].extension = (char *)"X-Ext";
	in[3].tz_offset = -18000;
	in[4] = rec("http://example.jp/b2", 1, 1, "t4");
	in[4].source_url = NULL;
	in[4].title = NULL;
	in[5] = rec("x", INT64_MIN + 1, INT64_MAX, "t5");
	in[5].tz_offset = INT64_MAX;
	for (i = 0; i < 6; i++)
		OK(lirs_merge_add(t, &in[i]) == 0, "roundtrip: add");
	lirs_merge_each(t, collect_all, &s);
	/* the expected output order: LM descending, then key */
	{
		int order[6] = { 1, 0, 3, 4, 2, 5 };
		for (i = 0; i < 6; i++)
			describe(&want, &in[order[i]]);
	}
	IS_STR(s.out.data, want.data, "roundtrip: every field, in output order");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
	lb_buf_release(&want);
}

static void test_table(void)
{
	lirs_merge_opts o = { 10000, 1000, 0 };
	lirs_merge_table *t = lirs_merge_new(&o);
	seen s = { LB_BUF_INIT, 0 };
	lirs_record r;
	const lirs_merge_stats *st;

	r = rec("http://b.example/x", 500, 9000, "b1");        lirs_merge_add(t, &r);
	r = rec("HTTP://B.example:80/x", 500, 9000, "b2");     lirs_merge_add(t, &r);  /* tie: later wins */
	r = rec("http://b.example/x", 400, 9999, "b-old");     lirs_merge_add(t, &r);  /* older LM loses */
	r = rec("http://a.example/", 500, 9000, "a1");         lirs_merge_add(t, &r);
	r = rec("http://a.example/", 500, 9500, "a2-longer-title-forces-a-new-blob"); lirs_merge_add(t, &r);
	r = rec("http://a.example/", 500, 9400, "a3");         lirs_merge_add(t, &r);  /* smaller LD loses */
	r = rec("http://c.example/", 900, 9000, "c");          lirs_merge_add(t, &r);
	r = rec("http://C.example/", 800, 9000, "c-old");      lirs_merge_add(t, &r);
	r = rec("http://d.example/", 0, 9000, "unusable");     lirs_merge_add(t, &r);
	r = rec("http://e.example/", 100, 100, "stale");       lirs_merge_add(t, &r);
	r = rec("http://b.example/X", 100, 9000, "B");         lirs_merge_add(t, &r);  /* path case: distinct */
	lirs_merge_each(t, collect, &s);
	IS_STR(s.out.data,
	       "900 9000 http://c.example/ c|"
	       "500 9500 http://a.example/ a2-longer-title-forces-a-new-blob|"
	       "500 9000 HTTP://B.example:80/x b2|"
	       "100 9000 http://b.example/X B|",
	       "table: winners, URL as written by the winner, LM desc then URL key asc");
	st = lirs_merge_get_stats(t);
	IS_INT(st->read, 11, "stats: read");
	IS_INT(st->kept, 4, "stats: kept");
	IS_INT(st->replaced, 2, "stats: replaced");
	IS_INT(st->superseded, 3, "stats: superseded");
	IS_INT(st->dropped_unusable, 1, "stats: dropped unusable");
	IS_INT(st->dropped_stale, 1, "stats: dropped stale");
	IS_INT(st->read, st->kept + st->replaced + st->superseded + st->dropped_unusable + st->dropped_stale,
	       "stats: counts add up");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
}

/* Many distinct URLs, many replacements with growing blobs: exercises
 * table growth and pool compaction; every URL must survive with its winner. */
static void test_many(void)
{
	lirs_merge_opts o = { 0, -1, 0 };
	lirs_merge_table *t = lirs_merge_new(&o);
	char url[64], title[256];
	int i, round, bad = 0;
	seen s = { LB_BUF_INIT, 0 };

	for (round = 0; round < 4; round++) {
		for (i = 0; i < 50000; i++) {
			lirs_record r;
			snprintf(url, sizeof url, "http://h%d.example/p/%d", i % 977, i);
			memset(title, 'x', (size_t)(round * 60));
			snprintf(title + round * 60, 20, "%d", round);
			r = rec(url, 1000 + round, 5, title);
			if (lirs_merge_add(t, &r) != 0)
				bad++;
		}
	}
	IS_INT(bad, 0, "many: every add succeeded");
	IS_INT(lirs_merge_get_stats(t)->kept, 50000, "many: 50000 distinct URLs kept");
	IS_INT(lirs_merge_get_stats(t)->replaced, 150000, "many: 150000 replacements");
	lirs_merge_each(t, collect, &s);
	IS_INT(s.n, 50000, "many: 50000 emitted");
	OK(strstr(s.out.data, "1003 5 http://h0.example/p/0 ") != NULL, "many: last round's record is the winner");
	OK(strstr(s.out.data, "1002 5 ") == NULL, "many: no older record left");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
}

/*
 * Inserts between replacements that keep growing: the pool is compacted
 * again and again, right after an insert or a replace (lirs_merge_add()
 * compacts only once the operation is complete, so the newest entry's
 * blob moves with the others; under ASan a blob left behind is a
 * use-after-free).  Every entry must hold its winner afterwards.
 */
static void test_compact_interleaved(void)
{
	lirs_merge_opts o = { 0, -1, 0 };
	lirs_merge_table *t = lirs_merge_new(&o);
	static char title[4200];
	char url[64], want[128];
	int i, round, bad = 0;
	seen s = { LB_BUF_INIT, 0 };

	for (round = 0; round < 100; round++) {
		for (i = 0; i < 1000; i++) {
			lirs_record r;
			snprintf(url, sizeof url, "http://new.example/%d/%d", round, i / 10);
			if (i % 10 == 0) {
				r = rec(url, 1, 5, "fresh");
				bad += lirs_merge_add(t, &r) != 0;
			}
			snprintf(url, sizeof url, "http://fixed.example/%d", i);
			memset(title, 'x', (size_t)(40 * round));
			snprintf(title + 40 * round, 20, "%d", round);
			r = rec(url, 1000 + round, 5, title);
			bad += lirs_merge_add(t, &r) != 0;
		}
	}
	IS_INT(bad, 0, "interleaved: every add succeeded");
	IS_INT(lirs_merge_get_stats(t)->kept, 1000 + 100 * 100, "interleaved: every URL kept");
	lirs_merge_each(t, collect, &s);
	IS_INT(s.n, 1000 + 100 * 100, "interleaved: every URL emitted");
	snprintf(want, sizeof want, "1099 5 http://fixed.example/999 ");
	OK(strstr(s.out.data, want) != NULL, "interleaved: the last replacement is there");
	OK(strstr(s.out.data, "1 5 http://new.example/99/99 fresh|") != NULL,
	   "interleaved: the last insert is there");
	OK(strstr(s.out.data, "1 5 http://new.example/0/0 fresh|") != NULL,
	   "interleaved: the first insert survived every compaction");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
}

/* A URL per host: past HOSTS_FREE hosts no new prefix is interned, and a
 * URL must still find its record whichever way its key was stored. */
static void test_many_hosts(void)
{
	lirs_merge_opts o = { 0, -1, -1 };
	lirs_merge_table *t = lirs_merge_new(&o);
	char url[64];
	int i, round, bad = 0;
	seen s = { LB_BUF_INIT, 0 };

	for (round = 0; round < 2; round++)
		for (i = 0; i < 100000; i++) {
			lirs_record r;
			snprintf(url, sizeof url, "http://h%d.example/", i);
			r = rec(url, 1000 + round, 5, round ? "new" : "old");
			bad += lirs_merge_add(t, &r) != 0;
		}
	IS_INT(bad, 0, "many hosts: every add succeeded");
	IS_INT(lirs_merge_get_stats(t)->kept, 100000, "many hosts: one record per URL");
	IS_INT(lirs_merge_get_stats(t)->replaced, 100000, "many hosts: every URL found again");
	lirs_merge_each(t, collect, &s);
	OK(strstr(s.out.data, "old") == NULL, "many hosts: only the newer records");
	OK(strstr(s.out.data, "1001 5 http://h99999.example/ new|") != NULL, "many hosts: the last host's URL");
	lirs_merge_free(t);
	lb_buf_release(&s.out);
}

int main(void)
{
	TAP_PLAN(70);
	test_keys();
	test_rule();
	test_check();
	test_table();
	test_future();
	test_roundtrip();
	test_many();
	test_compact_interleaved();
	test_many_hosts();
	TAP_DONE();
}
