/*
 * t_feed_match: which entries of a feed speak of a page
 * (src/antenna/feed_match.c): a site-wide feed dates no page but those its
 * entries link to and its own home; links are compared by the URL key,
 * relative ones resolved against the feed, fragments dropped.
 */
#include "ant_feed.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define NOW 1795000000   /* 2026-11-18 */

/* A wiki's whole-site feed: its home is the start page, entries link to
 * other pages (relative, with a query, one with a fragment). */
static const char rss2[] =
	"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Wiki</title>"
	"<link>http://Wiki.example:80/doku.php?id=start</link>"
	"<image><link>http://wiki.example/logo</link></image>"
	"<item><title>Edit of a</title><link>doku.php?id=a</link>"
	"<pubDate>Mon, 16 Nov 2026 10:00:00 GMT</pubDate></item>"
	"<item><title>Edit of b</title><link>http://wiki.example/doku.php?id=b#sec</link>"
	"<pubDate>Tue, 17 Nov 2026 10:00:00 GMT</pubDate></item>"
	"<item><title>Older edit of a</title><link>http://wiki.example/doku.php?id=a</link>"
	"<pubDate>Sun, 15 Nov 2026 10:00:00 GMT</pubDate></item>"
	"</channel></rss>\n";

static const char atom[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Blog</title><id>urn:b</id>"
	"<link rel=\"self\" href=\"http://blog.example/feed\"/>"
	"<link href=\"http://blog.example/\"/>"
	"<updated>2026-11-17T00:00:00Z</updated>"
	"<entry><id>http://blog.example/2026/11/post</id><title>Post</title>"
	"<link rel=\"edit\" href=\"http://blog.example/edit/1\"/>"
	"<updated>2026-11-16T00:00:00Z</updated></entry>"
	"<entry><id>urn:2</id><title>Other</title><link href=\"/2026/11/other\"/>"
	"<updated>2026-11-17T00:00:00Z</updated></entry>"
	"</feed>\n";

static const ant_feed_opts opts = { .now = NOW };

static void diag_fail(const char *m)
{
	OK(0, "ant_feed_about_page failed: %s", m);
}

static void about(const char *body, const char *feed, const char *page, ant_feed_about *a)
{
	lb_error err = LB_ERROR_INIT;

	if (ant_feed_about_page(body, strlen(body), feed, page, &opts, a, &err) < 0)
		diag_fail(lb_error_msg(&err));
}

static void test_site_feed(void)
{
	const char *feed = "http://wiki.example/feed.php";
	ant_feed_about a;

	about(rss2, feed, "http://wiki.example/doku.php?id=c", &a);
	OK(!a.home && a.entries == 0 && a.newest == 0 && a.title == NULL,
	   "a page no entry links to: the site feed says nothing of it");
	IS_INT(a.info.newest, 1794909600, "  though the feed's newest entry is known (a hint)");
	ant_feed_about_release(&a);

	about(rss2, feed, "http://wiki.example/doku.php?id=a", &a);
	OK(!a.home && a.entries == 2, "two entries link to page a (one relative)");
	IS_INT(a.newest, 1794823200, "page a is dated by its own newest entry, not the feed's");
	IS_STR(a.title, "Edit of a", "  with that entry's title");
	ant_feed_about_release(&a);

	about(rss2, feed, "http://wiki.example/doku.php?id=b", &a);
	IS_INT(a.newest, 1794909600, "an entry linked to a part of the page (#sec) is about the page");
	ant_feed_about_release(&a);

	about(rss2, feed, "http://wiki.example/doku.php?id=start", &a);
	OK(a.home, "the channel's <link> is the feed's home (host case and :80 ignored)");
	IS_INT(a.newest, 1794909600, "the home is dated by the feed's newest entry");
	IS_STR(a.title, "Edit of b", "  with its title");
	IS_STR(a.info.home, "http://Wiki.example:80/doku.php?id=start", "  image/link is not the home");
	ant_feed_about_release(&a);
}

static void test_atom(void)
{
	const char *feed = "http://blog.example/feed";
	ant_feed_about a;

	about(atom, feed, "http://blog.example/", &a);
	OK(a.home, "Atom: the feed-level alternate link is the home (self is not)");
	IS_INT(a.newest, 1794873600, "  dated by the newest entry");
	ant_feed_about_release(&a);

	about(atom, feed, "http://blog.example/2026/11/post", &a);
	OK(!a.home && a.entries == 1, "an Atom id that is the page's URL: the entry is about the page");
	IS_INT(a.newest, 1794787200, "  dated by it");
	ant_feed_about_release(&a);

	about(atom, feed, "http://blog.example/2026/11/other", &a);
	IS_INT(a.newest, 1794873600, "an entry link relative to the feed is resolved");
	ant_feed_about_release(&a);

	about(atom, feed, "http://blog.example/edit/1", &a);
	OK(a.entries == 0 && a.newest == 0, "a rel=edit link is not the entry's page");
	ant_feed_about_release(&a);
}

static void test_errors(void)
{
	ant_feed_about a;
	lb_error err = LB_ERROR_INIT;

	OK(ant_feed_about_page("<html/>", 7, "http://x/", "http://x/", &opts, &a, &err) == LB_EPARSE,
	   "not a feed: the parse's code");
	ant_feed_about_release(&a);
	OK(ant_feed_about_page(rss2, strlen(rss2), "http://x/", "", &opts, &a, &err) == LB_EINVAL,
	   "no page URL: LB_EINVAL");
	ant_feed_about_release(&a);
}

int main(void)
{
	TAP_PLAN(18);
	test_site_feed();
	test_atom();
	test_errors();
	TAP_DONE();
}
