/*
 * pubfixture: writes DIR/index.html from a fixed set of
 * pages, for the browser test (tests/browser/run.sh) and for looking at
 * the page by eye.  Times are relative to now, so "ago" reads naturally.
 *
 *   pubfixture DIR [NOW]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ant_publish.h"

int main(int argc, char **argv)
{
	int64_t now = argc > 2 ? strtoll(argv[2], NULL, 10) : (int64_t)time(NULL);
	ant_pub_page p[] = {
		{ "https://diary.example.jp/?date=20240506", "はてなの日記", "山田太郎", "",
		  now - 180, now - 60, 32400, 4210, "text", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://news.example.com/feed#latest", "Example News: what's new & noteworthy",
		  "Example Corp.", "", now - 5 * 3600, now - 60, 0, 88000, "header", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://evil.example/", "<script>document.title='pwned'</script>Evil page",
		  "<img src=x onerror=\"document.title='pwned2'\">", "", now - 1200, now - 60,
		  32400, 10, "size", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "javascript:document.title='pwned3'", "Not a link", "", "", now - 2400, now - 60,
		  32400, 10, "lirs", "http://relay.example/lirs.gz", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "http://gone.example/old.html", "消えたページ", "", "", 0, 0, 32400, 0, "", "",
		  "404 Not Found", NULL, 0, NULL, ANT_FAIL_HTTP },
		{ "https://blog.example.org/", "A very long English blog title that has to wrap "
		  "nicely on a narrow phone screen without overflowing", "Jane Doe", "Friends",
		  now - 2 * 86400, now - 60, -18000, 500, "lirs", "http://peer.example/lirs.gz", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "https://tanaka.example.jp/diary/", "田中の雑記帳", "田中", "Friends",
		  now - 40 * 60, now - 60, 32400, 1200, "text", "", NULL, NULL, 0, NULL, ANT_FAIL_NONE },
		{ "https://slow.example.net/", "Slow server", "", "Friends", 0, 0, 32400, 0, "", "",
		  "timeout after 30 s", NULL, 0, NULL, ANT_FAIL_NONE },
	};
	ant_pub_site s;
	lb_error err = LB_ERROR_INIT;

	if (argc < 2) {
		fprintf(stderr, "usage: pubfixture DIR [NOW [LANG]]\n");
		return 2;
	}
	ant_pub_site_defaults(&s);
	s.title = "Fixture アンテナ";
	s.base = "http://antenna.example/";
	s.author = "fixture";
	s.now = now;
	s.prev_publish = now - 3600;
	if (argc > 3)
		s.lang = argv[3];   /* "en"; the default is Japanese */
	if (ant_publish_html(argv[1], &s, p, sizeof p / sizeof p[0], &err) < 0) {
		fprintf(stderr, "pubfixture: %s\n", lb_error_msg(&err));
		return 1;
	}
	return 0;
}
