/*
 * t_robots.c: the robots.txt parser and matcher (robots.c) on RFC 9309's
 * own examples (§2.2.2's percent-encoding table, §2.2.3's special
 * characters, §5.1 and §5.2) and the shapes real files have: a BOM,
 * CRLF and CR line ends, comments, unknown records, groups named twice,
 * our product token in any case, files past the 500 KiB limit, and a
 * hostile file of stars that must not cost more than reading it.
 */
#include "tap.h"

#include <stdlib.h>
#include <time.h>

#include "ant_robots.h"

/* Allowed for agent under body? */
static int ok_for(const char *body, const char *agent, const char *path)
{
	ant_robots *r;
	int a;

	if (ant_robots_parse(body, strlen(body), agent, 0, &r, NULL) < 0)
		return -1;
	a = ant_robots_allowed(r, path, NULL);
	ant_robots_free(r);
	return a;
}

static const char rfc51[] =
	"User-Agent: *\n"
	"Disallow: *.gif$\n"
	"Disallow: /example/\n"
	"Allow: /publications/\n"
	"\n"
	"User-Agent: foobot\n"
	"Disallow:/\n"
	"Allow:/example/page.html\n"
	"Allow:/example/allowed.gif\n"
	"\n"
	"User-Agent: barbot\n"
	"User-Agent: bazbot\n"
	"Disallow: /example/page.html\n"
	"\n"
	"User-Agent: quxbot\n"
	"\n"
	"EOF\n";

static void test_rfc(void)
{
	/* §5.1 */
	IS_INT(ok_for(rfc51, "foobot", "/example/page.html"), 1, "5.1 foobot: allowed page");
	IS_INT(ok_for(rfc51, "foobot", "/example/allowed.gif"), 1, "5.1 foobot: allowed gif");
	IS_INT(ok_for(rfc51, "foobot", "/other"), 0, "5.1 foobot: the rest disallowed");
	IS_INT(ok_for(rfc51, "barbot", "/example/page.html"), 0, "5.1 barbot: disallowed page");
	IS_INT(ok_for(rfc51, "bazbot", "/example/page.html"), 0, "5.1 bazbot: the same group");
	IS_INT(ok_for(rfc51, "bazbot", "/x.gif"), 1, "5.1 bazbot: '*' group does not apply");
	IS_INT(ok_for(rfc51, "quxbot", "/example/"), 1, "5.1 quxbot: an empty group allows all");
	IS_INT(ok_for(rfc51, "otherbot", "/a/b.gif"), 0, "5.1 '*': *.gif$ disallowed");
	IS_INT(ok_for(rfc51, "otherbot", "/a/b.gif?x"), 1, "5.1 '*': $ ends the match");
	IS_INT(ok_for(rfc51, "otherbot", "/example/x"), 0, "5.1 '*': /example/ disallowed");
	IS_INT(ok_for(rfc51, "otherbot", "/publications/x"), 1, "5.1 '*': allowed");
	/* §5.2: the longest match */
	{
		const char *b = "User-Agent: foobot\nAllow: /example/page/\n"
				"Disallow: /example/page/disallowed.gif\n";
		IS_INT(ok_for(b, "foobot", "/example/page/"), 1, "5.2 the shorter allow");
		IS_INT(ok_for(b, "foobot", "/example/page/disallowed.gif"), 0, "5.2 the longer disallow");
	}
	/* §2.2.3 */
	{
		const char *b = "User-agent: *\nallow: /this/*/exactly # comment\n"
				"disallow: /this/\ndisallow: /this/path/exactly$\n";
		IS_INT(ok_for(b, NULL, "/this/x/exactly"), 1, "2.2.3 '*' in the middle");
		IS_INT(ok_for(b, NULL, "/this/path/exactly"), 0, "2.2.3 the longer pattern with $");
		IS_INT(ok_for(b, NULL, "/this/path/exactly/more"), 1, "2.2.3 longest allow");
		IS_INT(ok_for(b, NULL, "/this/other"), 0, "2.2.3 disallowed");
	}
	/* §2.2.2's table: the pattern, a URL it matches */
	IS_INT(ok_for("User-agent: *\nDisallow: /foo/bar?baz=quz\n", NULL, "/foo/bar?baz=quz"), 0,
	       "2.2.2 query");
	IS_INT(ok_for("User-agent: *\nDisallow: /foo/bar/\xE3\x83\x84\n", NULL, "/foo/bar/%E3%83%84"), 0,
	       "2.2.2 UTF-8 pattern, encoded path");
	IS_INT(ok_for("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", NULL, "/foo/bar/%e3%83%84"), 0,
	       "2.2.2 encoded pattern, lower-case hex");
	IS_INT(ok_for("User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", NULL, "/foo/bar/baz"), 0,
	       "2.2.2 unreserved octets decoded");
	IS_INT(ok_for("User-agent: *\nDisallow: /a%2Fb\n", NULL, "/a/b"), 1,
	       "2.2.2 a reserved octet stays encoded");
	IS_INT(ok_for("User-agent: *\nDisallow: /\n", NULL, "/robots.txt"), 1,
	       "2.2.2 /robots.txt always allowed");
}

static void test_shapes(void)
{
	IS_INT(ok_for("\xEF\xBB\xBFUser-agent: *\nDisallow: /p\n", NULL, "/p"), 0, "BOM skipped");
	IS_INT(ok_for("User-agent: *\r\nDisallow: /p\r\nAllow: /p/q\r\n", NULL, "/p/q"), 1, "CRLF");
	IS_INT(ok_for("User-agent: *\r\nDisallow: /p\r\n", NULL, "/p"), 0, "CRLF disallowed");
	IS_INT(ok_for("User-agent: *\rDisallow: /p\r", NULL, "/p"), 0, "CR alone");
	IS_INT(ok_for("User-agent: *\nDisallow: /p\n", NULL, "/q"), 1, "no match allows");
	IS_INT(ok_for("User-agent: *\nDisallow: /p\nAllow: /p\n", NULL, "/p"), 1, "a tie: allow wins");
	IS_INT(ok_for("User-agent: *\nAllow: /p\nDisallow: /p\n", NULL, "/p"), 1, "a tie in any order");
	IS_INT(ok_for("Disallow: /\nUser-agent: *\nDisallow: /p\n", NULL, "/q"), 1,
	       "a rule before any group is ignored");
	IS_INT(ok_for("User-agent: *\nDisallow:\n", NULL, "/q"), 1, "an empty disallow is no rule");
	IS_INT(ok_for("  user-AGENT :  LIRS-Antenna/2.0  \n  DISALLOW :  /p  # why\n", NULL, "/p"), 0,
	       "our token in any case, with a version, blanks and a comment");
	IS_INT(ok_for("User-agent: lirs-antennas\nDisallow: /\n", NULL, "/p"), 1,
	       "a longer token is not ours");
	IS_INT(ok_for("User-agent: *\nDisallow: /\nUser-agent: lirs-antenna\nAllow: /x\n", NULL, "/p"), 1,
	       "our group replaces '*'");
	IS_INT(ok_for("User-agent: lirs-antenna\nDisallow: /a\n\nUser-agent: x\nDisallow: /\n\n"
		      "User-agent: lirs-antenna\nDisallow: /b\n", NULL, "/b"), 0,
	       "our groups combined");
	IS_INT(ok_for("User-agent: a\nSitemap: http://x/s.xml\nUser-agent: lirs-antenna\nDisallow: /p\n",
		      NULL, "/p"), 0, "an unknown record inside the agent lines");
	IS_INT(ok_for("User-agent: *\nDisallow: private\n", NULL, "/private/x"), 0,
	       "a pattern without '/' is a path");
	IS_INT(ok_for("User-agent: *\nDisallow: /*.php$\n", NULL, "/a.php?x=1"), 1, "$ and a query");
	IS_INT(ok_for("User-agent: *\nDisallow: /\n", NULL, ""), 0, "an empty path is /");
	IS_INT(ok_for("User-agent: *\nDisallow: /*a*b*c$\n", NULL, "/xaybzc"), 0, "stars between pieces");
	IS_INT(ok_for("User-agent: *\nDisallow: /*a*b*c$\n", NULL, "/xaybzcd"), 1, "stars and $ not at end");
	IS_INT(ok_for("User-agent: *\nDisallow: /*ab*ab$\n", NULL, "/abab"), 0, "pieces that overlap");
	IS_INT(ok_for("User-agent: *\nDisallow: /x$\n", NULL, "/x"), 0, "$ exact");
	IS_INT(ok_for("User-agent: *\nDisallow: /x$\n", NULL, "/xy"), 1, "$ exact, longer path");
	IS_INT(ok_for("User-agent: *\nDisallow: /x/\n", NULL, "/x/#frag"), 0, "fragment not matched");
}

/* A file past the limit: what is after it is not read, nor the line it cuts. */
static void test_long(void)
{
	size_t max = ANT_ROBOTS_MAX_BYTES, n = 0;
	char *b = malloc(max + 4096);
	ant_robots *r;
	ant_robots_info info;
	ant_robots_rule why;

	n += (size_t)sprintf(b, "User-agent: *\nDisallow: /first\n");
	while (n < max - 40)
		n += (size_t)sprintf(b + n, "# padding padding padding padding\n");
	/* "Allow: /first/ok" straddles the limit; "Disallow: /late" after it */
	memset(b + n, ' ', max - 10 - n);
	n = max - 10;
	n += (size_t)sprintf(b + n, "Allow: /first/ok\nDisallow: /late\n");
	OK(ant_robots_parse(b, n, NULL, 0, &r, &info) == 0, "a file of 500 KiB and more parses");
	IS_INT(info.truncated, 1, "it says it was cut");
	IS_INT(ant_robots_allowed(r, "/first/ok", &why), 0, "the line the limit cuts is not read");
	IS_INT(why.line, 2, "the verdict names its line");
	IS_INT(ant_robots_allowed(r, "/late", NULL), 1, "what follows the limit is not read");
	ant_robots_free(r);
	OK(ant_robots_parse(b, n, NULL, n, &r, &info) == 0 && !info.truncated &&
	   ant_robots_allowed(r, "/late", NULL) == 0, "a higher limit reads it all");
	ant_robots_free(r);
	free(b);
}

/* 500 KiB of "Disallow: /a*a*a...": linear per rule, so quick. */
static void test_hostile(void)
{
	size_t max = ANT_ROBOTS_MAX_BYTES, n = 0;
	char *b = malloc(max + 64), path[8001];
	ant_robots *r;
	clock_t t0;
	int a;

	n += (size_t)sprintf(b, "User-agent: *\n");
	while (n < max - 100) {
		n += (size_t)sprintf(b + n, "Disallow: /");
		for (int k = 0; k < 40; k++)
			b[n++] = k % 2 ? '*' : 'a';
		n += (size_t)sprintf(b + n, "b$\n");
	}
	memset(path, 'a', 8000);
	path[0] = '/';
	path[8000] = 0;
	t0 = clock();
	OK(ant_robots_parse(b, n, NULL, 0, &r, NULL) == 0, "a file of stars parses");
	a = ant_robots_allowed(r, path, NULL);
	IS_INT(a, 1, "an 8,000-byte path against it");
	OK((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "in under 2 s (%.3f s)",
	   (double)(clock() - t0) / CLOCKS_PER_SEC);
	ant_robots_free(r);
	free(b);
}

static void test_origin(void)
{
	char o[64];
	const char *path;

	OK(ant_robots_origin("HTTP://Example.COM/a/b?c#d", o, sizeof o, &path) == 0, "origin parses");
	IS_STR(o, "http://example.com:80", "scheme and host lower case, the port written");
	IS_STR(path, "/a/b?c#d", "the path follows");
	OK(ant_robots_origin("https://u:p@h.example:8443?q", o, sizeof o, &path) == 0, "with userinfo");
	IS_STR(o, "https://h.example:8443", "userinfo left out, port kept");
	IS_STR(path, "?q", "a query without a path");
	OK(ant_robots_origin("http://[::1]:81/x", o, sizeof o, NULL) == 0 &&
	   strcmp(o, "http://[::1]:81") == 0, "an IPv6 literal");
	IS_INT(ant_robots_origin("file:///etc/x", o, sizeof o, NULL), LB_EINVAL, "file: has none");
	IS_INT(ant_robots_origin("http://a-long-host-name.example/", o, 16, NULL), LB_ETOOBIG, "too small");
	OK(ant_robots_excluded(ANT_FAIL_ROBOTS) && !ant_robots_excluded(ANT_FAIL_HTTP) &&
	   !ant_robots_excluded(ANT_FAIL_NONE), "a robots exclusion told from a failure, by its kind");
}

static void test_all(void)
{
	ant_robots *a = ant_robots_all(1), *d = ant_robots_all(0);

	IS_INT(ant_robots_allowed(a, "/x", NULL), 1, "allow all (4xx)");
	IS_INT(ant_robots_allowed(d, "/x", NULL), 0, "disallow all (5xx)");
	ant_robots_free(a);
	ant_robots_free(d);
}

int main(void)
{
	TAP_PLAN(67);
	test_rfc();
	test_shapes();
	test_long();
	test_hostile();
	test_origin();
	test_all();
	TAP_DONE();
}
