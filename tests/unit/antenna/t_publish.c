/*
 * t_publish.c: the published site.  index.html order, grouping, times in
 * JST, "ago" strings, escaping, links, ?MMDDHHMM, "new" marking, error
 * lines; lirs.gz read back with the real codec; atomic replacement when a
 * write fails; and 10,000 pages under the benchmark's 1 s.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "html.h"
#include "lirs.h"
#include "ant_publish.h"
#include "publish_error.h"
#include "tap.h"
#include "ant_settings.h"

#define T0 1700000000   /* 2023-11-14 22:13:20 UTC = 11/15 07:13 JST */

static char tmpdir[256];

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[512];
	FILE *fp;
	char *s;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	if (len)
		*len = (size_t)n;
	fclose(fp);
	return s;
}

/* Position of needle in hay, or -1. */
static long pos(const char *hay, const char *needle)
{
	const char *p = hay ? strstr(hay, needle) : NULL;

	return p ? (long)(p - hay) : -1;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	size_t l = strlen(needle);

	while (hay && (hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += l;
	}
	return n;
}

static void test_format(void)
{
	char b[64];
	lb_buf u = LB_BUF_INIT;

	ant_pub_format_time(b, sizeof b, T0, ANT_TZ_JST);
	IS_STR(b, "11/15 07:13", "time is MM/DD HH:MM in JST");
	ant_pub_format_time(b, sizeof b, T0, 0);
	IS_STR(b, "11/14 22:13", "time in UTC when display_tz is 0");
	ant_pub_format_time(b, sizeof b, 0, ANT_TZ_JST);
	IS_STR(b, "--/-- --:--", "unknown time is --/-- --:--");

	ant_pub_format_ago(b, sizeof b, T0, T0 - 30, "en");
	IS_STR(b, "just now", "ago: under a minute");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 180, "en");
	IS_STR(b, "3 min ago", "ago: minutes");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 5 * 3600 - 59, "en");
	IS_STR(b, "5 h ago", "ago: hours");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 2 * 86400 - 7, "en");
	IS_STR(b, "2 d ago", "ago: days");
	ant_pub_format_ago(b, sizeof b, T0, T0 + 600, "en");
	IS_STR(b, "just now", "ago: a time in the future is now");
	ant_pub_format_ago(b, sizeof b, T0, 0, "en");
	IS_STR(b, "", "ago: unknown is empty");
	/* Japanese, the default */
	ant_pub_format_ago(b, sizeof b, T0, T0 - 30, NULL);
	IS_STR(b, "たった今", "ago in Japanese (the default): under a minute");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 180, "ja");
	IS_STR(b, "3分前", "ago in Japanese: minutes");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 5 * 3600 - 59, "ja");
	IS_STR(b, "5時間前", "ago in Japanese: hours");
	ant_pub_format_ago(b, sizeof b, T0, T0 - 2 * 86400 - 7, "ja");
	IS_STR(b, "2日前", "ago in Japanese: days");

	ant_pub_visited_url(&u, "http://a.example/x", T0, ANT_TZ_JST);
	IS_STR(u.data, "http://a.example/x?11150713", "visited query appended with ?");
	lb_buf_reset(&u);
	ant_pub_visited_url(&u, "http://a.example/x?q=1", T0, ANT_TZ_JST);
	IS_STR(u.data, "http://a.example/x?q=1&11150713", "visited query appended with & to a query");
	lb_buf_reset(&u);
	ant_pub_visited_url(&u, "http://a.example/x#top", T0, ANT_TZ_JST);
	IS_STR(u.data, "http://a.example/x?11150713#top", "visited query goes before the fragment");
	lb_buf_reset(&u);
	ant_pub_visited_url(&u, "http://a.example/?a=b#f?g", T0, ANT_TZ_JST);
	IS_STR(u.data, "http://a.example/?a=b&11150713#f?g", "a ? in the fragment does not count");
	lb_buf_release(&u);
}

static void test_escape(void)
{
	lb_buf b = LB_BUF_INIT;
	const char *s = "<script>alert(1)</script>";

	ant_html_escape(&b, s, strlen(s));
	IS_STR(b.data, "&lt;script&gt;alert(1)&lt;/script&gt;", "escape: a script tag becomes text");
	lb_buf_reset(&b);
	ant_html_escape(&b, "\"&'", 3);
	IS_STR(b.data, "&quot;&amp;&#39;", "escape: quotes and ampersand");
	lb_buf_reset(&b);
	s = "日本語 ok";
	ant_html_escape(&b, s, strlen(s));
	IS_STR(b.data, s, "escape: UTF-8 copied as is");
	lb_buf_reset(&b);
	ant_html_escape(&b, "a\xff" "b\x01" "c\xed\xa0\x80" "d\xc0\xaf", 11);
	IS_STR(b.data, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
	       "d\xEF\xBF\xBD\xEF\xBF\xBD",
	       "escape: invalid UTF-8, surrogates, overlongs and controls become U+FFFD");
	lb_buf_release(&b);
}

/* The fixture: enough variety for every rule of the listing. */
static ant_pub_page fixture[] = {
	{ "http://a.example/old", "Old page", "Ann", "", T0 - 3 * 86400, T0 - 60, 32400, 100,
	  "size", "http://a.example/old", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://b.example/new?x=1#frag", "Newest page", "Bob", "", T0 - 120, T0 - 60, 32400, 100,
	  "text", "http://b.example/new?x=1#frag", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://c.example/", "<script>alert(1)</script>", "\"&'", "", T0 - 3600, T0 - 60, 32400, 100,
	  "header", "http://c.example/", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://d.example/gone", "Gone page", "", "", T0 - 7200, T0 - 60, 32400, 0,
	  "header", "http://d.example/gone", "404 Not Found", NULL, 0, NULL, ANT_FAIL_HTTP },
	{ "javascript:alert(2)", "Sneaky", "", "", T0 - 600, T0 - 60, 32400, 0,
	  "lirs", "http://relay.example/lirs.gz", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://e.example/", "", "", "", 0, 0, 32400, 0, "", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://g.example/1", "Zeta in group", "", "日記", T0 - 100, T0 - 60, 32400, 0,
	  "lirs", "http://relay.example/lirs.gz", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://g.example/2", "Alpha in group", "", "日記", T0 - 5000, T0 - 60, 32400, 0,
	  "header", "http://g.example/2", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://g.example/3", "Tie B", "", "Blogs", T0 - 50, T0 - 60, 32400, 0,
	  "text", "http://g.example/3", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://g.example/4", "Tie A", "", "Blogs", T0 - 50, T0 - 60, 32400, 0,
	  "text", "http://g.example/4", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	{ "http://g.example/5", "Broken in group", "", "Blogs", 0, 0, 32400, 0,
	  "", "", "connection refused", NULL, 0, NULL, ANT_FAIL_CONNECT },
};
#define NFIX (sizeof fixture / sizeof fixture[0])

static ant_pub_site fixture_site(void)
{
	ant_pub_site s;

	ant_pub_site_defaults(&s);
	s.title = "Test <Antenna>";
	s.base = "http://antenna.example/";
	s.author = "Tester";
	s.now = T0;
	s.prev_publish = T0 - 1800;
	s.lang = "en";   /* test_html's words; test_html_ja has the default's */
	return s;
}

static void test_html(void)
{
	ant_pub_site site = fixture_site();
	lb_error err = LB_ERROR_INIT;
	char *h;
	long g1, g2, ung;

	IS_INT(ant_publish_html(tmpdir, &site, fixture, NFIX, &err), 0, "publish_html succeeds");
	h = slurp(tmpdir, "index.html", NULL);
	OK(h != NULL, "index.html exists");
	if (!h)
		return;
	OK(strncmp(h, "<!DOCTYPE html>\n", 16) == 0, "starts with the HTML5 doctype");
	OK(pos(h, "<meta charset=\"utf-8\">") > 0, "declares UTF-8");
	OK(pos(h, "<meta name=\"viewport\"") > 0, "has a viewport for phones");
	OK(pos(h, "<script") < 0, "no script element anywhere");
	OK(pos(h, "<title>Test &lt;Antenna&gt;</title>") > 0, "site title escaped");

	/* Ungrouped first: newest first, then the error/unknown lines. */
	ung = pos(h, ">Newest page<");
	OK(ung > 0 && ung < pos(h, ">Sneaky<") &&
	   pos(h, ">Sneaky<") < pos(h, "&lt;script&gt;alert(1)&lt;/script&gt;") &&
	   pos(h, "&lt;script&gt;alert(1)&lt;/script&gt;") < pos(h, ">Old page<"),
	   "ungrouped pages newest update first (mixed with relayed ones)");
	OK(pos(h, ">Old page<") < pos(h, ">Gone page<") &&
	   pos(h, ">Gone page<") < pos(h, ">http://e.example/<"),
	   "error and unknown lines come after the dated ones, by title");
	OK(pos(h, "<script>alert(1)</script>") < 0, "a script title is not markup");
	OK(pos(h, "<span class=\"au p-author\">&quot;&amp;&#39;</span>") > 0, "author escaped");
	OK(pos(h, "[404 Not Found]") > pos(h, ">Gone page<"), "error shown as [404 Not Found]");
	OK(pos(h, "[cannot connect]") > 0 && pos(h, "connection refused") < 0,
	   "error in a group shown, in the page's words");
	/* no known time is no failure: grey words, not the red error span */
	OK(pos(h, "<li class=\"h-entry undated\">") > 0 &&
	   pos(h, "<span class=\"unknown\">not checked yet</span>") > 0, "never checked page says so, in grey");
	OK(count(h, "--/-- --:--") == 3, "error/unknown lines show --/-- --:-- (%d)", count(h, "--/-- --:--"));

	/* Groups: by name (byte order: "Blogs" < "日記"), after the ungrouped. */
	g1 = pos(h, "<h2>Blogs</h2>");
	g2 = pos(h, "<h2>日記</h2>");
	OK(g1 > pos(h, ">http://e.example/<") && g2 > g1, "group headings ordered by name, after ungrouped pages");
	OK(pos(h, "<a href=\"#g1\">Blogs</a>") > 0 && pos(h, "<a href=\"#g2\">日記</a>") > 0, "table of contents links the groups");
	OK(pos(h, ">Tie A<") > g1 && pos(h, ">Tie A<") < pos(h, ">Tie B<") &&
	   pos(h, ">Tie B<") < pos(h, ">Broken in group<") && pos(h, ">Broken in group<") < g2,
	   "ties by title; error at the end of its group");
	OK(pos(h, ">Zeta in group<") > g2 && pos(h, ">Zeta in group<") < pos(h, ">Alpha in group<"),
	   "newest first inside a group");

	/* Times, ago, markers. */
	OK(pos(h, ">11/15 07:11</time> <span class=\"ago\">2 min ago</span> <abbr class=\"by\">T</abbr>") > 0,
	   "dated line: JST time, ago, detection marker");
	OK(pos(h, "title=\"the page") < 0 && count(h, "<abbr class=\"by\" title=") == 0,
	   "a row's marker has no title: the legend says what it means, once");
	OK(pos(h, "datetime=\"2023-11-15T07:11:20+09:00\"") > 0, "machine-readable time with offset");
	OK(pos(h, "11/12 07:13</time> <span class=\"ago\">3 d ago</span>") > 0, "days ago");
	OK(pos(h, "<abbr class=\"by\">L</abbr></span> <span class=\"what\">") > 0, "LIRS marker");
	OK(pos(h, "<dt><abbr class=\"by\">L</abbr></dt><dd>relayed from another antenna&#39;s LIRS file</dd>") > 0 ||
	   pos(h, "<dt><abbr class=\"by\">L</abbr></dt><dd>relayed from another antenna's LIRS file</dd>") > 0,
	   "the legend explains L");
	OK(pos(h, "<dt><abbr class=\"by\">H</abbr></dt><dd>HTTP Last-Modified header</dd>") > 0, "legend");
	OK(pos(h, "Updated 11/15 07:13 JST") > 0, "publish time in JST");

	/* Links. */
	OK(pos(h, "<a class=\"p-name u-url\" href=\"http://b.example/new?x=1&amp;11150711#frag\">Newest page</a>") > 0,
	   "link with ?MMDDHHMM after an existing query, before the fragment, escaped");
	OK(pos(h, "<a class=\"p-name u-url\" href=\"http://a.example/old?11120713\">Old page</a>") > 0, "link with ?MMDDHHMM");
	OK(pos(h, "href=\"javascript") < 0 && pos(h, "<span class=\"nolink p-name\">Sneaky</span>") > 0,
	   "a non-http URL is shown as text, not linked");
	OK(pos(h, "<a class=\"p-name u-url\" href=\"http://d.example/gone\">Gone page</a>") > 0, "error line links without a visited query");

	/* New since the previous publish (T0 - 1800): Newest, Sneaky, Tie A,
	 * Tie B, Zeta; not the error line. */
	IS_INT(count(h, "<li class=\"h-entry new\">"), 5, "updates since the previous publish are marked new");
	IS_INT(count(h, "<span class=\"badge\">new</span>"), 5, "with a badge");
	OK(pos(h, " · 5 new</p>") > 0, "the header counts them");
	free(h);

	/* visited_query off, prev_publish 0: no query, nothing new. */
	site.visited_query = 0;
	site.prev_publish = 0;
	IS_INT(ant_publish_html(tmpdir, &site, fixture, NFIX, &err), 0, "publish again");
	h = slurp(tmpdir, "index.html", NULL);
	OK(pos(h, "<a class=\"p-name u-url\" href=\"http://a.example/old\">Old page</a>") > 0, "no visited query when off");
	IS_INT(count(h, "h-entry new"), 0, "nothing is new without a previous publish");
	free(h);

	/* No pages at all, no groups. */
	IS_INT(ant_publish_html(tmpdir, &site, NULL, 0, &err), 0, "publish zero pages");
	h = slurp(tmpdir, "index.html", NULL);
	OK(h && pos(h, "No pages are watched yet") > 0 && pos(h, "<nav>") < 0, "empty site says so");
	free(h);
}

/* The default language, Japanese: every word around the
 * titles, the first block's heading, through the one escaper. */
static void test_html_ja(void)
{
	ant_pub_site site = fixture_site();
	lb_error err = LB_ERROR_INIT;
	ant_pub_page found[NFIX];
	char *h;

	ant_pub_site_defaults(&site);
	site.title = "テスト";
	site.now = T0;
	site.prev_publish = T0 - 1800;
	IS_INT(ant_publish_html(tmpdir, &site, fixture, NFIX, &err), 0, "ja: publish_html succeeds");
	h = slurp(tmpdir, "index.html", NULL);
	OK(pos(h, "<html lang=\"ja\">") > 0, "ja: the default is Japanese");
	OK(pos(h, "更新時刻 11/15 07:13 JST · 11 ページ · 新着 5</p>") > 0, "ja: the header in Japanese");
	OK(pos(h, "<span class=\"ago\">2分前</span>") > 0 && pos(h, "<span class=\"ago\">3日前</span>") > 0,
	   "ja: how long ago");
	IS_INT(count(h, "<span class=\"badge\">新着</span>"), 5, "ja: the badge");
	OK(pos(h, "<dt><abbr class=\"by\">H</abbr></dt><dd>HTTP の Last-Modified ヘッダ</dd>") > 0 &&
	   pos(h, "<dt><abbr class=\"by\">T</abbr></dt><dd>ページの本文が変わった</dd>") > 0 &&
	   pos(h, "title=\"ページ") < 0, "ja: the legend explains the markers, the rows do not repeat it");
	OK(pos(h, "<span class=\"unknown\">未確認</span>") > 0 && pos(h, "not checked yet") < 0, "ja: a page never checked");
	OK(pos(h, "<section id=\"g0\">\n<h2>グループなし</h2>") > 0 &&
	   pos(h, "<a href=\"#g0\">グループなし</a>") > 0 &&
	   pos(h, "<h2>グループなし</h2>") < pos(h, "<h2>Blogs</h2>"),
	   "ja: the pages of no group get a heading and a link, first");
	OK(pos(h, "時刻は更新の時刻か") > 0 && pos(h, "Times are") < 0, "ja: the footer");
	OK(pos(h, "min ago") < 0 && pos(h, "Updated") < 0 && pos(h, ">new<") < 0,
	   "ja: no English word left around the titles");
	free(h);

	/* English: "1 page", not "1 pages"; the first block still headed */
	site.lang = "en";
	IS_INT(ant_publish_html(tmpdir, &site, fixture, 1, &err), 0, "en: one page");
	h = slurp(tmpdir, "index.html", NULL);
	OK(pos(h, "<html lang=\"en\">") > 0 && pos(h, " · 1 page · 0 new</p>") > 0, "en: 1 page");
	OK(pos(h, "<h2>") < 0, "en: no heading without groups");
	free(h);
	IS_INT(ant_publish_html(tmpdir, &site, fixture, NFIX, &err), 0, "en: all pages");
	h = slurp(tmpdir, "index.html", NULL);
	OK(pos(h, "<h2>Ungrouped</h2>") > 0, "en: the pages of no group headed Ungrouped");
	free(h);

	/* "new" is what was found since the previous publish:
	 * found beats last_modified both ways. */
	memcpy(found, fixture, sizeof found);
	for (size_t i = 0; i < NFIX; i++)
		found[i].found = -1;
	found[0].found = 1;   /* "Old page": 3 days old, found now */
	IS_INT(ant_publish_html(tmpdir, &site, found, NFIX, &err), 0, "found: publish");
	h = slurp(tmpdir, "index.html", NULL);
	IS_INT(count(h, "<span class=\"badge\">new</span>"), 1, "found: only the update found since is new");
	OK(pos(h, " · 1 new</p>") > 0 && pos(h, "<li class=\"h-entry new\">") < pos(h, ">Old page<"),
	   "found: counted, and it is the old page");
	free(h);
}

/* ---- lirs.gz read back ------------------------------------------------ */
typedef struct got {
	lirs_record r[64];
	size_t n;
	unsigned long diag_errors;
} got;

static int on_rec(void *ctx, const lirs_record *r)
{
	got *g = ctx;

	if (g->n < 64)
		lirs_record_copy(&g->r[g->n++], r);
	return 0;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	got *g = ctx;

	if (d->severity == LIRS_SEV_ERROR || d->rule == LIRS_R_UTF8_FALLBACK) {
		g->diag_errors++;
		printf("# %lu: %s: %s\n", d->line, lirs_rule_id(d->rule), d->message);
	}
}

static int read_lirs(const char *dir, got *g)
{
	lirs_reader_opts o;
	lirs_reader *rd;
	size_t len;
	char *data = slurp(dir, "lirs.gz", &len);
	int rc;

	memset(g, 0, sizeof *g);
	if (!data)
		return -1;
	memset(&o, 0, sizeof o);
	o.on_record = on_rec;
	o.on_diag = on_diag;
	o.ctx = g;
	rd = lirs_reader_new(&o);
	rc = rd ? lirs_reader_feed(rd, data, len) : -1;
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	if (rd && !lirs_reader_get_stats(rd)->gzip)
		rc = -2;
	lirs_reader_free(rd);
	free(data);
	return rc;
}

static void test_lirs(void)
{
	ant_pub_site site = fixture_site();
	ant_pub_page p[] = {
		{ "http://x.example/1", "日本語のタイトル, with comma \\ and backslash", "作者", "",
		  T0 - 100, T0 - 60, 32400, 1234, "text", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://x.example/2", "Relayed", "", "", T0 - 50, T0 - 28800, 0, 0, "lirs",
		  "http://relay.example/lirs.gz", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://x.example/stale", "Stale", "", "", T0 - 90000, T0 - 28801, 32400, 0,
		  "header", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://x.example/unknown", "Unknown", "", "", 0, T0 - 10, 32400, 0, "", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://x.example/never", "Never", "", "", T0 - 10, 0, 32400, 0, "", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "file:///etc/passwd", "Local", "", "", T0 - 10, T0 - 10, 32400, 0, "", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
	};
	lb_error err = LB_ERROR_INIT;
	got g;
	size_t i;

	IS_INT(ant_publish_lirs(tmpdir, &site, p, 6, &err), 0, "publish_lirs succeeds");
	IS_INT(read_lirs(tmpdir, &g), 0, "lirs.gz is gzip and reads back cleanly");
	IS_INT(g.diag_errors, 0, "no errors, EUC-JP throughout");
	IS_INT(g.n, 2, "only fresh, dated, http pages are written (8-hour rule)");
	if (g.n == 2) {
		IS_STR(g.r[0].url, "http://x.example/2", "newest first");
		IS_STR(g.r[0].source_url, "http://relay.example/lirs.gz", "relayed page keeps the LIRS source");
		IS_INT(g.r[0].last_detected, T0 - 28800, "last detected kept");
		IS_INT(g.r[0].tz_offset, 0, "its own time zone kept");
		IS_STR(g.r[1].title, "日本語のタイトル, with comma \\ and backslash", "title round-trips (EUC-JP, escapes)");
		IS_STR(g.r[1].author, "作者", "author round-trips");
		IS_STR(g.r[1].source_url, "http://x.example/1", "empty source URL becomes the page itself");
		IS_INT(g.r[1].last_modified, T0 - 100, "last modified kept");
		IS_INT(g.r[1].content_length, 1234, "content length kept");
		IS_INT(g.r[1].tz_offset, 32400, "tz kept");
	}
	for (i = 0; i < g.n; i++)
		lirs_record_release(&g.r[i]);

	IS_INT(ant_publish_lirs(tmpdir, &site, NULL, 0, &err), 0, "publish an empty lirs.gz");
	IS_INT(read_lirs(tmpdir, &g), 0, "empty lirs.gz is valid gzip");
	IS_INT(g.n, 0, "with no records");
}

/* ---- atomic replacement ------------------------------------------------- */
static int leftover_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static ant_pub_page *many(size_t n)
{
	ant_pub_page *v = calloc(n, sizeof *v);
	static char buf[10000][2][64];
	size_t i;

	for (i = 0; i < n && i < 10000; i++) {
		snprintf(buf[i][0], 64, "https://site%zu.example/diary/?page=%zu", i % 997, i);
		snprintf(buf[i][1], 64, "日記 & notes <%zu>", i);
		v[i].url = buf[i][0];
		v[i].title = buf[i][1];
		v[i].author = i % 3 ? "作者" : "";
		v[i].group = i % 5 ? "" : (i % 2 ? "Friends" : "News");
		v[i].last_modified = i % 50 ? T0 - (int64_t)(i * 37 % 90000) : 0;
		v[i].last_detected = T0 - 60;
		v[i].tz_offset = 32400;
		v[i].detected_by = i % 4 ? "text" : "lirs";
		v[i].source_url = v[i].url;
		v[i].last_error = i % 100 == 1 ? "404 Not Found" : NULL;
	}
	return v;
}

/* Drops CAP_DAC_OVERRIDE from this process's effective set, so that a
 * mode stops root too.  Returns 0 or -1. */
static int drop_dac_override(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
	return (int)syscall(SYS_capset, &h, d);
}

/* In the child: tmpdir read-only by a bind mount in a mount namespace
 * of its own, which goes with it. */
static int readonly_bind(void)
{
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount(tmpdir, tmpdir, NULL, MS_BIND, NULL) != 0 ||
	    mount(NULL, tmpdir, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0)
		return -1;
	return 0;
}

/* publish_unwritable(): nothing here could make the directory unwritable. */
#define NOT_UNWRITABLE 1

/*
 * Publishes into tmpdir made unwritable, in a child process: mode 0555
 * for a user; for root, whom no mode stops, a read-only bind mount of
 * tmpdir, or where mounting is not allowed, mode 0555 with
 * CAP_DAC_OVERRIDE dropped.  Returns publish's value (0 or a negative
 * code) with *err as the child's, or NOT_UNWRITABLE; *how says what made
 * the directory unwritable.
 */
static int publish_unwritable(const ant_pub_site *site, ant_pub_page *v, size_t n,
			      lb_error *err, const char **how)
{
	int fd[2], st, rc = NOT_UNWRITABLE;
	pid_t pid;
	lb_error cerr = LB_ERROR_INIT;

	*how = geteuid() != 0 ? "mode 0555" : "a read-only bind mount";
	if (pipe(fd) != 0)
		return NOT_UNWRITABLE;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int by = 0;   /* 1: by mode, 2: by the bind mount */

		close(fd[0]);
		if (geteuid() != 0 || readonly_bind() != 0) {
			if (chmod(tmpdir, 0555) == 0 && (geteuid() != 0 || drop_dac_override() == 0))
				by = 1;
		} else {
			by = 2;
		}
		if (by) {
			int prc = ant_publish_html(tmpdir, site, v, n, &cerr);

			if (write(fd[1], &by, sizeof by) < 0 || write(fd[1], &prc, sizeof prc) < 0 ||
			    write(fd[1], &cerr, sizeof cerr) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	if (pid > 0) {
		int by, prc;

		if (read(fd[0], &by, sizeof by) == sizeof by &&
		    read(fd[0], &prc, sizeof prc) == sizeof prc &&
		    read(fd[0], &cerr, sizeof cerr) == sizeof cerr) {
			rc = prc;
			if (by == 1 && geteuid() == 0)
				*how = "mode 0555 without CAP_DAC_OVERRIDE";
		}
		waitpid(pid, &st, 0);
	}
	close(fd[0]);
	chmod(tmpdir, 0755);
	cerr.msg[sizeof cerr.msg - 1] = '\0';
	*err = cerr;
	if (rc == NOT_UNWRITABLE)
		*how = "nothing here makes a directory unwritable";
	return rc;
}

static void test_atomic(void)
{
	const char *how;
	ant_pub_site site = fixture_site();
	/* one file of every page, as before paging: what is timed (or made
	 * to fail) is writing a big file */
	site.page_limit = 100000;
	site.page_bytes = (size_t)1 << 30;
	ant_pub_page *v = many(10000);
	struct rlimit old, lim;
	char blocker[512], sub[600];
	lb_error err = LB_ERROR_INIT;
	char *before, *after;
	int rc;

	ant_publish_html(tmpdir, &site, fixture, NFIX, &err);
	ant_publish_lirs(tmpdir, &site, fixture, NFIX, &err);
	before = slurp(tmpdir, "index.html", NULL);

	/* A write that fails half way (file size limit: EFBIG). */
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 64 * 1024;
	setrlimit(RLIMIT_FSIZE, &lim);
	rc = ant_publish_html(tmpdir, &site, v, 10000, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	IS_INT(rc, LB_EIO, "publish fails when the write fails: LB_EIO");
	printf("# %s\n", err.msg);
	OK(strstr(err.msg, "cannot write '") && strstr(err.msg, "index.html': File too large"),
	   "the message names the file and the reason");
	after = slurp(tmpdir, "index.html", NULL);
	OK(before && after && strcmp(before, after) == 0, "the old index.html is intact");
	IS_INT(leftover_tmp(tmpdir), 0, "no temporary file left behind");
	free(after);

	/* A directory that cannot be created. */
	snprintf(blocker, sizeof blocker, "%s/index.html", tmpdir);
	snprintf(sub, sizeof sub, "%s/sub", blocker);
	rc = ant_publish_html(sub, &site, fixture, NFIX, &err);
	IS_INT(rc, LB_EIO, "publish into a path under a file fails: LB_EIO");
	IS_INT(err.sys, ENOTDIR, "errno kept");
	OK(strstr(err.msg, "cannot create '") != NULL, "with a message: %s", err.msg);

	/* An unwritable directory, for root too (CI runs as root). */
	rc = publish_unwritable(&site, v, 100, &err, &how);
	printf("# unwritable by %s: %s\n", how, err.msg);
	if (rc == NOT_UNWRITABLE) {
		SKIP(how, "publish into an unwritable directory fails");
		SKIP(how, "publish into an unwritable directory: the old index.html is intact");
	} else {
		IS_INT(rc, LB_EIO, "publish into an unwritable directory fails: LB_EIO (%s)", how);
		after = slurp(tmpdir, "index.html", NULL);
		OK(after && strcmp(before, after) == 0,
		   "publish into an unwritable directory: the old index.html is intact");
		free(after);
	}
	free(before);
	free(v);
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_speed(void)
{
	ant_pub_site site = fixture_site();
	/* one file of every page, as before paging: what is timed (or made
	 * to fail) is writing a big file */
	site.page_limit = 100000;
	site.page_bytes = (size_t)1 << 30;
	ant_pub_page *v = many(10000);
	lb_error err = LB_ERROR_INIT;
	double t0, t1, t2;
	int a, b;
	size_t len = 0;
	char *h;

	t0 = secs();
	a = ant_publish_html(tmpdir, &site, v, 10000, &err);
	t1 = secs();
	b = ant_publish_lirs(tmpdir, &site, v, 10000, &err);
	t2 = secs();
	h = slurp(tmpdir, "index.html", &len);
	printf("# 10000 pages: index.html %.1f ms (%zu bytes), lirs.gz %.1f ms\n",
	       (t1 - t0) * 1e3, len, (t2 - t1) * 1e3);
	OK(a == 0 && b == 0, "10,000 pages publish");
	IS_INT(count(h, "</li>"), 10000 + 3, "every page is listed (plus the links to the two groups and to the pages of none)");
	/* The benchmark's target is 1 s for the whole `antenna publish`; this
	 * part takes tens of milliseconds, so 3 s holds under sanitizers.
	 * Under valgrind (make check-valgrind) the time means nothing. */
	if (getenv("VALGRIND") && strcmp(getenv("VALGRIND"), "1") == 0)
		SKIP("under valgrind", "10,000 pages publish in time (%.3f s)", t2 - t0);
	else
		OK(t2 - t0 < 3.0, "10,000 pages publish in under 3 s even under sanitizers (%.3f s)", t2 - t0);
	free(h);
	free(v);
}

/* The public page's phrase for each kind of failure; the details stay in
 * 'antenna show'. */
static void test_error_phrases(void)
{
	static const struct { ant_fail_kind kind; const char *error, *ja, *en; } t[] = {
		{ ANT_FAIL_DNS, "cannot resolve host: Could not resolve host: nx.example",
		  "サーバが見つかりません", "server not found" },
		{ ANT_FAIL_CONNECT, "connection refused: Failed to connect to 127.0.0.1 port 9",
		  "接続できません", "cannot connect" },
		{ ANT_FAIL_TIMEOUT, "timed out: Operation timed out after 30001 milliseconds", "時間切れ",
		  "timed out" },
		{ ANT_FAIL_TLS, "TLS handshake failed: OpenSSL/3.0.19: error:0A00010B:SSL routines::"
		  "wrong version number", "TLS エラー", "TLS error" },
		{ ANT_FAIL_TOO_BIG, "body too big: over 8388608 bytes (--max-body)", "8 MiB を超えました",
		  "over 8 MiB" },
		{ ANT_FAIL_HTTP, "404 Not Found", "404 Not Found", "404 Not Found" },
		{ ANT_FAIL_GONE, "gone (failing since 2024-05-06): 404 Not Found", "ページがなくなりました",
		  "the page is gone" },
		{ ANT_FAIL_DEFERRED, "deferred: a.example asked us to wait until Mon, 06 May 2024 "
		  "00:00:00 GMT (Retry-After)", "サーバの求めにより待機中です",
		  "waiting, as the server asked" },
		{ ANT_FAIL_LOCAL, "cannot start transfer: out of memory",
		  "読み込みに失敗しました", "transfer failed" },
		{ ANT_FAIL_INTERNAL, "refused to connect to internal address 10.0.0.1 (private) of "
		  "intra.example:80: init --allow-private allows it", "接続できません", "cannot connect" },
		{ ANT_FAIL_CHECK, "the --only part is not on the page", "ページを確かめられませんでした",
		  "the page could not be checked" },
		{ ANT_FAIL_TOO_BIG, "the answer was too big", "大きすぎます", "too large" },
	};
	char b[128];

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		IS_STR(ant_pub_error_phrase(b, sizeof b, t[i].kind, t[i].error, "ja"), t[i].ja, "ja: %s", t[i].ja);
		IS_STR(ant_pub_error_phrase(b, sizeof b, t[i].kind, t[i].error, "en"), t[i].en, "en: %s", t[i].en);
	}
}

/* The kind decides the phrase, never the words: last_error reworded (or
 * in words that once told another kind) shows the same phrase. */
static void test_error_reworded(void)
{
	static const struct { ant_fail_kind kind; const char *was, *now; } t[] = {
		{ ANT_FAIL_DNS, "cannot resolve host: nx.example", "no such host: nx.example" },
		{ ANT_FAIL_TIMEOUT, "timed out: after 30 s", "the server took longer than 30 s" },
		{ ANT_FAIL_OTHER, "transfer failed: oops", "connection reset by peer" },
		{ ANT_FAIL_GONE, "gone (failing since 2024-05-06): 404 Not Found",
		  "cannot resolve host: since 2024-05-06" },
		{ ANT_FAIL_TOO_BIG, "body too big: over 8388608 bytes", "the body went over 8388608 bytes" },
		{ ANT_FAIL_DEFERRED, "deferred: asked to wait", "timed out: Retry-After" },
	};
	char a[128], c[128];

	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		for (int en = 0; en < 2; en++)
			IS_STR(ant_pub_error_phrase(c, sizeof c, t[i].kind, t[i].now, en ? "en" : "ja"),
			       ant_pub_error_phrase(a, sizeof a, t[i].kind, t[i].was, en ? "en" : "ja"),
			       "reworded, kind %s (%s): the same phrase",
			       ant_fail_kind_name(t[i].kind), en ? "en" : "ja");
	/* and words of one kind under another kind: the kind's phrase */
	IS_STR(ant_pub_error_phrase(a, sizeof a, ANT_FAIL_HTTP, "timed out: 503", "en"),
	       "timed out: 503", "an HTTP failure whose words begin like a timeout: as it is");
	IS_STR(ant_pub_error_phrase(a, sizeof a, ANT_FAIL_CHECK, "cannot resolve host", "en"),
	       "the page could not be checked", "our own words that begin like a DNS failure: the check's phrase");
}

int main(void)
{
	TAP_PLAN(145);
	snprintf(tmpdir, sizeof tmpdir, "%s/t_publish.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("not ok - cannot create a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	test_format();
	test_escape();
	test_html();
	test_html_ja();
	test_error_phrases();
	test_error_reworded();
	test_lirs();
	test_atomic();
	test_speed();
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	TAP_DONE();
}
