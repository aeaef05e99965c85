/*
 * t_feed: the streaming feed reader (src/antenna/feed.c) on RSS 0.91/1.0/2.0 and
 * Atom, hostile documents (entity bombs, external entities, bad and absurd
 * dates, 10,000 entries), and chunk boundaries: one byte at a time gives
 * the same result as the whole body at once.
 */
#include "ant_feed.h"
#include "tap.h"

#include <stdlib.h>

#define NOW 1795000000   /* 2026-11-18 */

static const char rss2[] =
	"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Chan</title>"
	"<link>http://example.com/</link>"
	"<item><title>Older</title><link>http://example.com/1</link>"
	"<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>"
	"<item><title>  Newest\n  post </title><link>http://example.com/2</link>"
	"<pubDate>Tue, 17 Nov 2026 09:30:00 +0900</pubDate></item>"
	"<item><title>Future</title><pubDate>Fri, 01 Jan 2100 00:00:00 GMT</pubDate></item>"
	"<item><title>Ancient</title><pubDate>Thu, 01 Jan 1970 00:00:00 GMT</pubDate></item>"
	"<item><title>Garbage</title><pubDate>yesterday-ish</pubDate></item>"
	"</channel></rss>\n";

static const char rss1[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""
	" xmlns=\"http://purl.org/rss/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
	"<channel rdf:about=\"http://example.jp/\"><title>日記</title></channel>"
	"<item rdf:about=\"http://example.jp/a\"><title>春の散歩</title><link>http://example.jp/a</link>"
	"<dc:date>2026-11-10T08:00:00+09:00</dc:date></item>"
	"<item rdf:about=\"http://example.jp/b\"><title>桜の写真</title><link>http://example.jp/b</link>"
	"<dc:date>2026-11-12</dc:date></item>"
	"</rdf:RDF>\n";

static const char atom[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:fh=\"http://purl.org/syndication/history/1.0\">"
	"<title>A</title><id>urn:x</id><updated>2026-11-15T00:00:00Z</updated><fh:archive/>"
	"<link rel=\"self\" href=\"archive-3.atom\"/><link rel=\"current\" href=\"current.atom\"/>"
	"<link rel=\"prev-archive\" href=\"archive-2.atom\"/><link rel=\"next-archive\" href=\"archive-4.atom\"/>"
	"<entry><id>e1</id><title type=\"xhtml\"><div xmlns=\"http://www.w3.org/1999/xhtml\">Hello <b>bold</b> &amp; more</div></title>"
	"<link rel=\"edit\" href=\"http://e/edit\"/><link href=\"http://example.org/p1\"/>"
	"<published>2026-11-01T00:00:00Z</published><updated>2026-11-14T12:34:56.789+01:00</updated></entry>"
	"<entry><id>e2</id><title>No date</title><link rel=\"alternate\" href=\"http://example.org/p2\"/></entry>"
	"</feed>\n";

struct collect { int n; char last_title[256], last_link[256]; int64_t last_date; };

static int on_entry(void *ctx, const ant_feed_entry *e)
{
	struct collect *c = ctx;

	c->n++;
	snprintf(c->last_title, sizeof c->last_title, "%s", e->title);
	snprintf(c->last_link, sizeof c->last_link, "%s", e->link);
	c->last_date = e->date;
	return 0;
}

/* Parses doc fed `step` bytes at a time. */
static int parse_step(const char *doc, size_t len, size_t step, ant_feed_info *fi, struct collect *c,
		      lb_error *err)
{
	ant_feed_opts o = { .now = NOW, .on_entry = on_entry, .ctx = c };
	ant_feed_parser *p = ant_feed_parser_new(&o);
	int rc = 0;

	memset(c, 0, sizeof *c);
	for (size_t off = 0; off < len && rc == 0; off += step)
		rc = ant_feed_parse_chunk(p, doc + off, len - off < step ? len - off : step);
	rc = ant_feed_parse_finish(p, fi);   /* a chunk's failure too */
	lb_err(err, rc, "%s", ant_feed_error(p));
	ant_feed_parser_free(p);
	return rc;
}

static void same_by_chunks(const char *name, const char *doc)
{
	ant_feed_info a, b;
	struct collect ca, cb;
	lb_error err = LB_ERROR_INIT;
	int ra = parse_step(doc, strlen(doc), strlen(doc), &a, &ca, &err);
	int rb = parse_step(doc, strlen(doc), 1, &b, &cb, &err);

	OK(ra == rb && a.kind == b.kind && a.entries == b.entries && a.newest == b.newest &&
	   a.dated == b.dated && a.bad_dates == b.bad_dates && ca.n == cb.n &&
	   strcmp(ca.last_title, cb.last_title) == 0 &&
	   ((!a.newest_title && !b.newest_title) ||
	    (a.newest_title && b.newest_title && strcmp(a.newest_title, b.newest_title) == 0)),
	   "%s: one byte at a time gives the same result as the whole", name);
	ant_feed_info_release(&a);
	ant_feed_info_release(&b);
}

#define T0030 1794875400   /* 2026-11-17T00:30:00Z */

static void test_dates(void)
{
	IS_INT(ant_feed_parse_date("Tue, 17 Nov 2026 09:30:00 +0900"), T0030, "RFC 822 with a numeric zone");
	IS_INT(ant_feed_parse_date("2026-11-17T00:30:00Z"), T0030, "RFC 3339 UTC");
	IS_INT(ant_feed_parse_date("2026-11-17T09:30:00+09:00"), T0030, "RFC 3339 with an offset");
	IS_INT(ant_feed_parse_date("17 Nov 2026 09:30 JST"), T0030, "RFC 822 without weekday and seconds, JST");
	IS_INT(ant_feed_parse_date("Mon, 16 Nov 26 19:30:00 EST"), T0030, "RFC 822 two-digit year, EST");
	IS_INT(ant_feed_parse_date("2026-11-17"), T0030 - 1800, "W3C-DTF date only");
	IS_INT(ant_feed_parse_date("2026-11-17T09:30+09:00"), T0030, "W3C-DTF without seconds");
	IS_INT(ant_feed_parse_date("2026-02-30T00:00:00Z"), 0, "30 February is malformed");
	IS_INT(ant_feed_parse_date("2026-11-17T25:00:00Z"), 0, "hour 25 is malformed");
	IS_INT(ant_feed_parse_date("Tue, 17 Nov 2026 09:30:00 XYZ"), 0, "unknown zone is malformed");
	IS_INT(ant_feed_parse_date(""), 0, "empty is no date");
	IS_INT(ant_feed_parse_date("2026-11-17T00:30:00Z trailing"), 0, "trailing text is malformed");
	OK(!ant_feed_date_ok(ANT_FEED_MIN_TIME - 1, NOW, 0), "a date before 1990 is absurd");
	OK(!ant_feed_date_ok(NOW + ANT_FEED_DEFAULT_SKEW + 1, NOW, 0), "a date past the skew is absurd");
	OK(ant_feed_date_ok(NOW + ANT_FEED_DEFAULT_SKEW, NOW, 0), "a date within the skew is believed");
}

static void test_rss2(void)
{
	ant_feed_info fi;
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_feed_parse(rss2, strlen(rss2), &(ant_feed_opts){ .now = NOW }, &fi, &err), 0, "RSS 2.0 parses");
	IS_INT(fi.kind, ANT_FEED_RSS, "RSS 2.0 kind");
	IS_INT(fi.entries, 5, "RSS 2.0: five items");
	IS_INT(fi.dated, 2, "RSS 2.0: two usable dates");
	IS_INT(fi.bad_dates, 3, "RSS 2.0: future, 1970 and garbage are bad dates");
	IS_INT(fi.newest, T0030, "RSS 2.0 newest is the newest believable pubDate");
	IS_STR(fi.newest_title, "Newest post", "RSS 2.0 newest title, whitespace collapsed");
	IS_STR(fi.newest_link, "http://example.com/2", "RSS 2.0 newest link");
	ant_feed_info_release(&fi);
}

static void test_rss1(void)
{
	ant_feed_info fi;
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_feed_parse(rss1, strlen(rss1), &(ant_feed_opts){ .now = NOW }, &fi, &err), 0, "RSS 1.0 parses");
	IS_INT(fi.kind, ANT_FEED_RDF, "RSS 1.0 kind");
	IS_INT(fi.entries, 2, "RSS 1.0: two items");
	IS_INT(fi.newest, ant_feed_parse_date("2026-11-12"), "RSS 1.0 newest dc:date");
	IS_STR(fi.newest_title, "桜の写真", "RSS 1.0 newest title (UTF-8)");
	ant_feed_info_release(&fi);
}

static void test_atom(void)
{
	ant_feed_info fi;
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_feed_parse(atom, strlen(atom), &(ant_feed_opts){ .now = NOW }, &fi, &err), 0, "Atom parses");
	IS_INT(fi.kind, ANT_FEED_ATOM, "Atom kind");
	IS_INT(fi.entries, 2, "Atom: two entries");
	IS_INT(fi.dated, 1, "Atom: one dated");
	IS_INT(fi.newest, ant_feed_parse_date("2026-11-14T11:34:56Z"), "Atom: updated wins over published, fraction dropped");
	IS_STR(fi.newest_title, "Hello bold & more", "Atom xhtml title is its text");
	IS_STR(fi.newest_link, "http://example.org/p1", "Atom: the alternate link, not the edit one");
	OK(fi.archive, "fh:archive seen");
	IS_STR(fi.prev_archive, "archive-2.atom", "prev-archive link");
	IS_STR(fi.next_archive, "archive-4.atom", "next-archive link");
	IS_STR(fi.current, "current.atom", "current link");
	ant_feed_info_release(&fi);
}

/* type="html" text constructs hold escaped markup: their text is kept. */
struct html_seen { char title[256], summary[256]; };

static int on_html_entry(void *ctx, const ant_feed_entry *e)
{
	struct html_seen *h = ctx;

	snprintf(h->title, sizeof h->title, "%s", e->title);
	snprintf(h->summary, sizeof h->summary, "%s", e->summary ? e->summary : "");
	return 0;
}

static void test_atom_html(void)
{
	static const char doc[] =
		"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>h</id>"
		"<title type=\"html\">Tom &amp;amp; &lt;b&gt;Jerry&lt;/b&gt;</title>"
		"<summary type=\"html\">&lt;p&gt;x&lt;/p&gt;</summary>"
		"<updated>2026-11-14T00:00:00Z</updated></entry>"
		"<entry><id>t</id><title type=\"text\">&lt;b&gt; stays</title>"
		"<summary>a &lt;p&gt; as text</summary><updated>2026-11-13T00:00:00Z</updated></entry>"
		"</feed>";
	struct html_seen h[1] = { { "", "" } };
	ant_feed_info fi;

	IS_INT(ant_feed_parse(doc, strlen(doc), &(ant_feed_opts){ .now = NOW, .on_entry = on_html_entry,
		.ctx = h }, &fi, NULL), 0, "Atom with type=html parses");
	IS_STR(fi.newest_title, "Tom & Jerry", "type=html title: its text, entities decoded");
	ant_feed_info_release(&fi);
	IS_STR(h->title, "<b> stays", "type=text title: kept as written");
	IS_STR(h->summary, "a <p> as text", "type=text summary: kept as written");
}

static void test_atom_html_summary(void)
{
	static const char doc[] =
		"<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>h</id><title>t</title>"
		"<summary type=\"html\">&lt;p&gt;line one&lt;br&gt;line&amp;amp;two&lt;/p&gt;"
		"&lt;p&gt;&amp;lt;tag&amp;gt;&lt;/p&gt;</summary>"
		"<updated>2026-11-14T00:00:00Z</updated></entry></feed>";
	struct html_seen h[1] = { { "", "" } };
	ant_feed_info fi;

	ant_feed_parse(doc, strlen(doc), &(ant_feed_opts){ .now = NOW, .on_entry = on_html_entry,
		.ctx = h }, &fi, NULL);
	IS_STR(h->summary, "line one line&two <tag>", "type=html summary: text only, a space per element");
	ant_feed_info_release(&fi);
}

static void test_hostile(void)
{
	static const char laughs[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE rss [\n<!ENTITY lol \"lol\">\n"
		"<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
		"<!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
		"<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
		"<!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
		"<!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
		"<!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
		"<!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
		"<!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
		"<!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n]>\n"
		"<rss version=\"2.0\"><channel><item><title>x&lol9;y</title>"
		"<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>\n";
	static const char xxe[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
		"<rss version=\"2.0\"><channel><item><title>a&xxe;b</title>"
		"<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>\n";
	static const char dtd[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE rss SYSTEM \"http://192.0.2.1/rss-0.91.dtd\">\n"
		"<rss version=\"0.91\"><channel><item><title>old</title></item></channel></rss>\n";
	ant_feed_info fi;
	lb_error err = LB_ERROR_INIT;
	int rc;

	rc = ant_feed_parse(laughs, strlen(laughs), &(ant_feed_opts){ .now = NOW }, &fi, &err);
	OK(rc == 0 && fi.newest_title && strlen(fi.newest_title) < 16 && fi.entity_decls == 10,
	   "billion laughs: nothing expanded (title '%s', rc %d %s)", fi.newest_title ? fi.newest_title : "", rc, err.msg);
	ant_feed_info_release(&fi);
	rc = ant_feed_parse(xxe, strlen(xxe), &(ant_feed_opts){ .now = NOW }, &fi, &err);
	IS_STR(rc == 0 ? fi.newest_title : err.msg, "ab", "external entity: never read");
	ant_feed_info_release(&fi);
	rc = ant_feed_parse(dtd, strlen(dtd), &(ant_feed_opts){ .now = NOW }, &fi, &err);
	OK(rc == 0 && fi.entries == 1 && fi.newest == 0, "external DTD not loaded; RSS 0.91 item without date (%s)", err.msg);
	ant_feed_info_release(&fi);
	rc = ant_feed_parse("<html><body>no</body></html>", 28, &(ant_feed_opts){ .now = NOW }, &fi, &err);
	OK(rc < 0 && strstr(err.msg, "not an RSS or Atom feed"), "HTML is not a feed: %s", err.msg);
	ant_feed_info_release(&fi);
	rc = ant_feed_parse("<rss><channel><item><title>cut", 30, &(ant_feed_opts){ .now = NOW }, &fi, &err);
	OK(rc < 0 && strstr(err.msg, "malformed"), "truncated feed is malformed: %s", err.msg);
	ant_feed_info_release(&fi);
	rc = ant_feed_parse("", 0, &(ant_feed_opts){ .now = NOW }, &fi, &err);
	OK(rc < 0, "empty body is no feed: %s", err.msg);
	ant_feed_info_release(&fi);
}

static int stop_at_first(void *ctx, const ant_feed_entry *e)
{
	return 1;
}

/* The codes of a parse that ended: by name, the same on every later call
 * and from finish, with the message ant_feed_error() gives. */
static void ended(const char *name, const char *doc, ant_feed_entry_fn fn, int want,
		  const char *msg)
{
	ant_feed_parser *p = ant_feed_parser_new(&(ant_feed_opts){ .now = NOW, .on_entry = fn });
	ant_feed_info fi;
	int rc = ant_feed_parse_chunk(p, doc, strlen(doc));
	int again = ant_feed_parse_chunk(p, "<more/>", 7);
	int fin = ant_feed_parse_finish(p, &fi);

	OK(rc == want && again == want && fin == want && strstr(ant_feed_error(p), msg),
	   "%s: chunk %d, next chunk %d, finish %d (want %d), '%s'", name, rc, again, fin, want,
	   ant_feed_error(p));
	ant_feed_info_release(&fi);
	ant_feed_parser_free(p);
}

static void test_codes(void)
{
	ant_feed_info fi;
	lb_error err = LB_ERROR_INIT;

	ended("malformed XML is LB_EPARSE", "<rss><channel><item><title>a</item>&&</rss><rss>",
	      NULL, LB_EPARSE, "malformed XML");
	ended("HTML is LB_EPARSE", "<html><body>no</body></html>", NULL, LB_EPARSE,
	      "not an RSS or Atom feed");
	ended("a callback's stop is LB_ESTOP", rss2, stop_at_first, LB_ESTOP, "stopped");
	IS_INT(ant_feed_parse("<html><body>no</body></html>", 28, &(ant_feed_opts){ .now = NOW }, &fi,
			      &err), LB_EPARSE, "ant_feed_parse: not a feed is LB_EPARSE");
	IS_INT(err.code, LB_EPARSE, "ant_feed_parse: ...and so says err");
	ant_feed_info_release(&fi);
}

static void test_many(void)
{
	size_t cap = 10000 * 160 + 256, len = 0;
	char *doc = malloc(cap);
	ant_feed_info fi;
	struct collect c;
	lb_error err = LB_ERROR_INIT;

	len += (size_t)snprintf(doc + len, cap - len, "<rss version=\"2.0\"><channel>");
	for (int i = 0; i < 10000; i++)
		len += (size_t)snprintf(doc + len, cap - len,
					"<item><title>t%d</title><link>http://e/%d</link>"
					"<pubDate>%s</pubDate></item>", i, i,
					i == 4321 ? "Sat, 14 Nov 2026 00:00:00 GMT" : "Sun, 01 Nov 2026 00:00:00 GMT");
	len += (size_t)snprintf(doc + len, cap - len, "</channel></rss>");
	IS_INT(parse_step(doc, len, 7, &fi, &c, &err), 0, "10,000 items parse");
	IS_INT(c.n, 10000, "10,000 items: every one handed to the callback");
	IS_STR(fi.newest_title, "t4321", "10,000 items: the newest found");
	ant_feed_info_release(&fi);
	free(doc);
}

int main(void)
{
	TAP_PLAN(61 + 5);
	test_dates();
	test_rss2();
	test_rss1();
	test_atom();
	test_atom_html();
	test_atom_html_summary();
	test_hostile();
	test_many();
	test_codes();
	same_by_chunks("RSS 2.0", rss2);
	same_by_chunks("RSS 1.0", rss1);
	same_by_chunks("Atom", atom);
	{
		ant_feed_info fi;
		lb_error err = LB_ERROR_INIT;
		char *r = ant_feed_resolve("http://example.com/a/b.html", "../feed.xml");
		IS_STR(r, "http://example.com/feed.xml", "relative href resolved");
		free(r);
		OK(ant_feed_resolve("http://example.com/", "javascript:alert(1)") == NULL, "non-http href refused");
		/* atom_resolve()'s policy: were NULL (xmlBuildURI refuses raw
		 * UTF-8) and "http:///x" (prefix only) before they were one */
		r = ant_feed_resolve("http://example.com/", "http://example.com/\xe6\x97\xa5\xe8\xa8\x98/");
		IS_STR(r, "http://example.com/\xe6\x97\xa5\xe8\xa8\x98/", "an absolute IRI link is kept");
		free(r);
		OK(ant_feed_resolve("http://example.com/", "http:///x") == NULL, "a link with no host refused");
		r = ant_feed_resolve("file:///tmp/site/feed.xml", "entry.html");
		IS_STR(r, "file:///tmp/site/entry.html", "file: kept when the base is file:");
		free(r);
		(void)fi; (void)err;
	}
	TAP_DONE();
}
