/* t_atom: the XML escaper, RFC 3339 times, link resolution, and the event
 * store through atom_evstore_attach() on an in-memory database. */
#include "atom_db.h"
#include <stdlib.h>

#include "atom.h"
#include "atom_evstore.h"
#include "lirs_merge.h"
#include "tap.h"

static const char *esc(const char *s, int attr)
{
	static lb_buf b = LB_BUF_INIT;

	lb_buf_reset(&b);
	atom_xml_escape(&b, s, attr);
	return b.data;
}

static void test_escape(void)
{
	IS_STR(esc("<a href=\"x\">&'</a>", 0), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;", "escape: < > & \" '");
	IS_STR(esc("a\x01" "b\x0b" "c\x1f" "d", 0), "abcd", "escape: C0 controls removed");
	IS_STR(esc("t\tl\nc\r.", 0), "t\tl\nc\r.", "escape: TAB LF CR kept in text");
	IS_STR(esc("t\tl\nc\r.", 1), "t&#9;l&#10;c&#13;.", "escape: TAB LF CR as references in attributes");
	IS_STR(esc("x\xEF\xBF\xBEy\xEF\xBF\xBFz", 0), "xyz", "escape: U+FFFE U+FFFF removed");
	IS_STR(esc("s\xED\xA0\x80!", 0), "s\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!", "escape: encoded surrogate -> U+FFFD per byte");
	IS_STR(esc("o\xC0\xAF!", 0), "o\xEF\xBF\xBD\xEF\xBF\xBD!", "escape: overlong -> U+FFFD");
	IS_STR(esc("t\xE3\x81", 0), "t\xEF\xBF\xBD\xEF\xBF\xBD", "escape: truncated sequence -> U+FFFD");
	IS_STR(esc("\xF4\x90\x80\x80", 0), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", "escape: beyond U+10FFFF -> U+FFFD");
	IS_STR(esc("日本語 \xF0\x9F\x98\x80", 0), "日本語 \xF0\x9F\x98\x80", "escape: valid UTF-8 kept");
	IS_STR(esc("\x7f\xC2\x85", 0), "\x7f\xC2\x85", "escape: DEL and C1 are XML Chars: kept");
	IS_STR(esc(NULL, 0), "", "escape: NULL is empty");
	IS_STR(esc("a&b'c\"<>", ATOM_XML_MIN), "a&amp;b'c\"&lt;&gt;", "escape: ATOM_XML_MIN escapes only & < >");
}

static const char *iri(const char *s, int mode)
{
	static lb_buf b = LB_BUF_INIT;

	lb_buf_reset(&b);
	atom_iri(&b, s, mode);
	return b.data;
}

static void test_iri(void)
{
	IS_STR(iri("http://example.jp/~u/a?b=1&c='2';d=(3)*+!$,@:", ATOM_IRI_TAG),
	       "http://example.jp/~u/a?b=1&c='2';d=(3)*+!$,@:", "iri: a valid URL is kept byte for byte");
	IS_STR(iri("http://example.jp/日記/ｶﾅ", ATOM_IRI_TAG), "http://example.jp/日記/ｶﾅ", "iri: ucschar kept");
	IS_STR(iri("http://x/a b\t\"<>{}|\\^`#", ATOM_IRI_TAG),
	       "http://x/a%20b%09%22%3C%3E%7B%7D%7C%5C%5E%60%23", "iri: space, controls, delimiters encoded");
	IS_STR(iri("http://x/%20", ATOM_IRI_TAG), "http://x/%2520", "iri: %% is data in a tag (as 0.1.0 wrote it)");
	IS_STR(iri("http://x/%20%zz", ATOM_IRI_REF), "http://x/%20%25zz", "iri: %% kept in a reference when it escapes");
	IS_STR(iri("x\xFFy\xED\xA0\x80z", ATOM_IRI_TAG), "x%FFy%ED%A0%80z", "iri: invalid UTF-8 and surrogates as bytes");
	IS_STR(iri("x\xC2\x85\xEF\xBF\xBE\xEF\xBF\xBD", ATOM_IRI_TAG), "x%C2%85%EF%BF%BE%EF%BF%BD",
	       "iri: C1, U+FFFE, U+FFFD are not ucschar: encoded");
	IS_STR(iri("/p\xEE\x80\x80?q\xEE\x80\x80", ATOM_IRI_TAG), "/p%EE%80%80?q\xEE\x80\x80",
	       "iri: iprivate only in the query");
	IS_STR(iri("http://[::1]:8/a[1]#f#g", ATOM_IRI_REF), "http://[::1]:8/a%5B1%5D#f%23g",
	       "iri: [ ] only in the authority, one #");
}

static void test_time(void)
{
	char b[32];

	atom_time(b, sizeof b, 0);
	IS_STR(b, "1970-01-01T00:00:00Z", "time: epoch");
	atom_time(b, sizeof b, 1700000000);
	IS_STR(b, "2023-11-14T22:13:20Z", "time: RFC 3339 UTC");
	atom_time(b, sizeof b, INT64_MAX);
	IS_STR(b, "9999-12-31T23:59:59Z", "time: clamped to year 9999");
}

static void test_resolve(void)
{
	lb_buf b = LB_BUF_INIT;

	OK(atom_resolve(&b, "http://f.example/feeds/", "https://Other.example/x?y", 0) == 0 &&
	   !strcmp(b.data, "https://Other.example/x?y"), "resolve: absolute kept as written");
	OK(atom_resolve(&b, "http://f.example/feeds/", "page.html", 0) == 0 &&
	   !strcmp(b.data, "http://f.example/feeds/page.html"), "resolve: relative path");
	OK(atom_resolve(&b, "http://f.example/feeds/", "/root", 0) == 0 &&
	   !strcmp(b.data, "http://f.example/root"), "resolve: absolute path");
	OK(atom_resolve(&b, "http://f.example/feeds/", "//h.example/p", 0) == 0 &&
	   !strcmp(b.data, "http://h.example/p"), "resolve: network path");
	IS_INT(atom_resolve(&b, "http://f.example/", "javascript:alert(1)", 0), LB_EINVAL, "resolve: non-http refused (LB_EINVAL)");
	IS_INT(atom_resolve(&b, "http://f.example/", "", 0), LB_EINVAL, "resolve: empty refused (LB_EINVAL)");
	/* the one policy the Atom writer and the feed reader share */
	OK(atom_resolve(&b, "http://f.example/", "http://\xe6\x97\xa5.example/a b", 0) == 0 &&
	   !strcmp(b.data, "http://\xe6\x97\xa5.example/a b"),
	   "resolve: an absolute IRI is kept as written (libxml2 would refuse it)");
	OK(atom_resolve(&b, "http://f.example/", "http:///x", 0) != 0, "resolve: no host refused");
	OK(atom_resolve(&b, "file:///site/feed.xml", "a.html", 0) != 0, "resolve: file: refused by default");
	OK(atom_resolve(&b, "file:///site/feed.xml", "a.html", ATOM_RESOLVE_FILE) == 0 &&
	   !strcmp(b.data, "file:///site/a.html"), "resolve: file: of a file: base with ATOM_RESOLVE_FILE");
	OK(atom_resolve(&b, "http://f.example/", "file:///etc/passwd", ATOM_RESOLVE_FILE) != 0,
	   "resolve: file: of an http: base refused even with ATOM_RESOLVE_FILE");
	lb_buf_release(&b);
}

static int count_cb(void *ctx, const atom_ev_event *e)
{
	lb_buf *b = ctx;

	lb_buf_addf(b, "%lld:%s:%s|", (long long)e->seq, e->url, e->title);
	return 0;
}

static void test_store(void)
{
	atom_db *db;
	atom_evstore *st;
	lb_error err = LB_ERROR_INIT;
	size_t added = 0;
	int64_t sealed = 0, last, count;
	lb_buf b = LB_BUF_INIT;
	atom_ev_event ev[] = {
		{ 0, "http://b.example/", 300, 1000, 0, 0, "b300", "", "", NULL },
		{ 0, "http://A.example:80/", 200, 1000, 0, 0, "a200 low LD", "", "", NULL },
		{ 0, "http://a.example/", 200, 2000, 0, 0, "a200 high LD", "", "", NULL },
		{ 0, "http://a.example/", 100, 1000, 0, 0, "a100", "", "", NULL },
		{ 0, "http://b.example/", 300, 1000, 0, 0, "b300 later", "", "", NULL },
	};

	if (atom_db_open(":memory:", &db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) != ATOM_DB_OK)
		return;
	OK(atom_evstore_attach(&st, db, &err) == 0, "store: attach creates the tables (%s)", err.msg);
	OK(atom_evstore_add_run(st, ev, 5, &added, &err) == 0, "store: add a run");
	IS_INT(added, 3, "store: distinct (URL key, LM) pairs added");
	atom_evstore_each_event(st, 1, -1, count_cb, &b, &err);
	IS_STR(b.data, "3:http://b.example/:b300 later|2:http://a.example/:a200 high LD|1:http://a.example/:a100|",
	       "store: seq in LM order; greater LD, then later, wins a (key, LM) tie");
	IS_INT(atom_evstore_add(st, &ev[1], &err), 0, "store: a known event is not added again");
	OK(atom_evstore_seal(st, 2, "T", "A", &sealed, &err) == 0 && sealed == 1, "store: one archive sealed");
	atom_evstore_archived(st, &last, &count, &err);
	IS_INT(last, 2, "store: archive 1 ends at seq 2");
	OK(atom_evstore_seal(st, 2, "T", "A", &sealed, &err) == 0 && sealed == 0, "store: sealing again seals nothing");
	atom_evstore_close(st);
	/* a newer schema in ev_meta is refused */
	atom_db_exec(db, "UPDATE ev_meta SET value = '99' WHERE key = 'schema'");
	IS_INT(atom_evstore_attach(&st, db, &err), LB_EINVAL, "store: newer schema is LB_EINVAL");
	OK(strstr(err.msg, "has schema 99, newer") != NULL, "store: newer schema refused (%s)", err.msg);
	IS_INT(atom_evstore_attach(&st, db, NULL), LB_EINVAL, "store: NULL err accepted");
	atom_db_close(db);
	/* lb_error.h: a state file that cannot be opened is LB_EDB, its path in the message */
	IS_INT(atom_evstore_open(&st, "/nonexistent.t_atom/state.db", 0, &err), LB_EDB,
	       "store: a state file in a missing directory is LB_EDB");
	OK(strstr(err.msg, "cannot open state file '/nonexistent.t_atom/state.db'") != NULL,
	   "store: the message names it (%s)", err.msg);
	OK(st == NULL, "store: none on failure");
	lb_buf_release(&b);
}

/* atom_ev_run gives what merge.c's table and atom_evstore_add_run() give. */
static int line_cb(void *ctx, const atom_ev_event *e)
{
	lb_buf_addf(ctx, "%s|%lld|%lld|%s\n", e->url, (long long)e->last_modified,
		  (long long)e->last_detected, e->title);
	return 0;
}

static int rec_cb(void *ctx, const lirs_record *r)
{
	lb_buf_addf(ctx, "%s|%lld|%lld|%s\n", r->url, (long long)r->last_modified,
		  (long long)r->last_detected, r->title);
	return 0;
}

static void test_run(void)
{
	static const char *const urls[] = { "http://a.example/", "http://A.example:80/", "http://b.example/x",
					     "http://c.example/", "https://c.example:443/", "http://d.example/?q" };
	enum { N = 2000 };
	atom_ev_event ev[N];
	char titles[N][16];
	lb_error err = LB_ERROR_INIT;
	lirs_merge_table *t = lirs_merge_new(&(lirs_merge_opts){ .now = 0, .max_age = -1 });
	atom_ev_run *run = NULL;
	lb_buf want = LB_BUF_INIT, got = LB_BUF_INIT, s1 = LB_BUF_INIT, s2 = LB_BUF_INIT;
	atom_db *d1, *d2;
	atom_evstore *e1, *e2;
	unsigned x = 12345;
	size_t a1 = 0, a2 = 0;

	OK(atom_ev_run_open(&run, &err) == 0, "run: opened (%s)", err.msg);
	for (int i = 0; i < N; i++) {
		x = x * 1103515245 + 12345;
		snprintf(titles[i], sizeof titles[i], "t%d", i);
		ev[i] = (atom_ev_event){ .url = urls[(x >> 8) % 6], .last_modified = 1 + (x >> 12) % 5,
				    .last_detected = 10 + (x >> 16) % 3, .title = titles[i], .author = "", .source_url = "" };
		lirs_record r = { .url = (char *)ev[i].url, .last_modified = ev[i].last_modified,
				  .last_detected = ev[i].last_detected, .title = titles[i], .author = "", .source_url = "" };
		lirs_merge_add(t, &r);
		atom_ev_run_add(run, &ev[i], &err);
	}
	lirs_merge_each(t, rec_cb, &want);
	atom_ev_run_each_latest(run, line_cb, &got, &err);
	IS_STR(got.data, want.data, "run: one record per URL key, the winner and the order of merge_each()");
	/* the same events added as an array and staged: the same sequence */
	atom_db_open(":memory:", &d1, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE);
	atom_db_open(":memory:", &d2, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE);
	atom_evstore_attach(&e1, d1, &err);
	atom_evstore_attach(&e2, d2, &err);
	atom_evstore_add_run(e1, ev, N, &a1, &err);
	atom_evstore_add_staged(e2, run, &a2, &err);
	atom_evstore_each_event(e1, 1, -1, line_cb, &s1, &err);
	atom_evstore_each_event(e2, 1, -1, line_cb, &s2, &err);
	OK(a1 == a2 && a1 > 0 && !strcmp(s1.data, s2.data), "run: staged events get the sequence an array gets (%zu events)", a2);
	atom_evstore_close(e1);
	atom_evstore_close(e2);
	atom_db_close(d1);
	atom_db_close(d2);
	atom_ev_run_close(run);
	lirs_merge_free(t);
	lb_buf_release(&want);
	lb_buf_release(&got);
	lb_buf_release(&s1);
	lb_buf_release(&s2);
}

int main(void)
{
	TAP_PLAN(53);
	test_escape();
	test_iri();
	test_time();
	test_resolve();
	test_store();
	test_run();
	TAP_DONE();
}
