/*
 * t_publish_paging.c: the caps of the published listing, which only the
 * slow tests/paging suite checked: at most 1,000 entries (ANT_PUB_PAGE_LIMIT)
 * and 1,000,000 bytes (ANT_PUB_PAGE_BYTES) per HTML file, the rest in
 * index-2.html, index-3.html, ... in the listing order, chained by
 * newer/older links, stale numbered files removed; a publish that fails
 * half way leaves the old listing whole.  The figures are
 * written out here, not taken from the header: a changed cap fails.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ant_publish.h"
#include "tap.h"

#define T0 1700000000

static char dir[] = "/tmp/t_publish_paging.XXXXXX";

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *fp;
	char *s = NULL;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(fp = fopen(path, "rb")))
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && (s = malloc((size_t)n + 1))) {
		rewind(fp);
		if (fread(s, 1, (size_t)n, fp) != (size_t)n) {
			free(s);
			s = NULL;
		} else {
			s[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(fp);
	return s;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Entries of one HTML file (one "when" cell each); -1 when it is missing. */
static long entries(const char *name)
{
	char *s = slurp(name, NULL);
	long n = s ? (long)count(s, "<span class=\"when\">") : -1;

	free(s);
	return n;
}

static int exists(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* n pages, page i updated i minutes before T0 (so page 0 is the newest),
 * each URL url_len bytes long (at least ~40) and full of '&' past its head. */
static ant_pub_page *pages(size_t n, size_t url_len, char **blk)
{
	ant_pub_page *v = calloc(n, sizeof *v);
	size_t each = url_len + 64;
	char *b = calloc(n, each);

	*blk = b;
	for (size_t i = 0; v && b && i < n; i++) {
		char *u = b + i * each, *t = u + url_len + 1;
		int k = snprintf(u, url_len + 1, "https://p.example/%06zu?", i);

		for (; (size_t)k < url_len; k++)
			u[k] = (k & 1) ? '&' : 'a';
		u[url_len] = '\0';
		snprintf(t, 48, "page %06zu", i);
		v[i] = (ant_pub_page){ .url = u, .title = t, .author = "", .group = "",
				       .last_modified = T0 - 60 * (int64_t)i,
				       .last_detected = T0 - 30, .detected_by = "text",
				       .source_url = u };
	}
	return v;
}

static ant_pub_site site_of(size_t limit, ant_pub_html_counts *c)
{
	ant_pub_site s;

	ant_pub_site_defaults(&s);
	s.title = "Paging";
	s.base = "http://ant.example/";
	s.now = T0;
	s.prev_publish = T0 - 3600;
	s.lang = "en";
	s.page_limit = limit;
	s.html_counts = c;
	return s;
}

/* The entry cap: 1,000 per file by default, index.html the newest. */
static void entry_cap(void)
{
	ant_pub_html_counts c = { 0, 0, 0 };
	ant_pub_site s = site_of(0, &c);
	lb_error err = LB_ERROR_INIT;
	char *blk, *h;
	ant_pub_page *v = pages(2501, 40, &blk);

	IS_INT(ant_publish_html(dir, &s, v, 2501, &err), 0, "2,501 pages published");
	IS_INT(c.pages, 2501, "counts: every page listed");
	IS_INT(c.files, 3, "counts: three files of at most 1,000 entries");
	IS_INT(entries("index.html"), 1000, "index.html: 1,000 entries");
	IS_INT(entries("index-2.html"), 1000, "index-2.html: 1,000 entries");
	IS_INT(entries("index-3.html"), 501, "index-3.html: the 501 left");
	OK(!exists("index-4.html"), "no index-4.html");
	h = slurp("index.html", NULL);
	OK(h && strstr(h, ">page 000000<") && strstr(h, ">page 000999<") && !strstr(h, ">page 001000<"),
	   "index.html: the 1,000 newest");
	free(h);
	h = slurp("index-3.html", NULL);
	OK(h && strstr(h, ">page 002000<") && strstr(h, ">page 002500<") && !strstr(h, ">page 001999<"),
	   "index-3.html: the oldest");
	free(h);

	/* the boundary: 1,000 pages are one file, without links */
	IS_INT(ant_publish_html(dir, &s, v, 1000, &err), 0, "1,000 pages published");
	IS_INT(c.files, 1, "1,000 pages: one file");
	OK(!exists("index-2.html") && !exists("index-3.html"), "1,000 pages: the numbered files removed");
	h = slurp("index.html", NULL);
	OK(h && !strstr(h, "rel=\"next\""), "1,000 pages: no link to an older file");
	free(h);
	IS_INT(ant_publish_html(dir, &s, v, 1001, &err), 0, "1,001 pages published");
	IS_INT(c.files, 2, "1,001 pages: two files");
	IS_INT(entries("index-2.html"), 1, "1,001 pages: index-2.html holds the one over the cap");
	free(v);
	free(blk);
}

/* The byte cap: a file ends before 1,000,000 bytes however long the URLs
 * (8,000 bytes of '&', five times that escaped), and is filled close to it. */
static void byte_cap(void)
{
	ant_pub_html_counts c = { 0, 0, 0 };
	ant_pub_site s = site_of(0, &c);
	lb_error err = LB_ERROR_INIT;
	char *blk, name[32];
	ant_pub_page *v = pages(100, 8000, &blk);
	size_t len, biggest = 0, smallest = (size_t)-1, listed = 0;

	IS_INT(ant_publish_html(dir, &s, v, 100, &err), 0, "100 pages of 8,000-byte URLs published");
	OK(c.files >= 2, "more than one file (%zu)", c.files);
	for (size_t f = 1; f <= c.files; f++) {
		char *h;

		snprintf(name, sizeof name, f == 1 ? "index.html" : "index-%zu.html", f);
		h = slurp(name, &len);
		listed += h ? count(h, "<span class=\"when\">") : 0;
		if (h && len > biggest)
			biggest = len;
		if (h && f < c.files && len < smallest)
			smallest = len;
		free(h);
	}
	IS_INT(listed, 100, "every entry in some file");
	OK(biggest <= 1000000, "every file at most 1,000,000 bytes (biggest %zu)", biggest);
	/* each entry is ~24 KB here; a file ends when the next entry would
	 * not fit the 1,000,000 bytes less 16,384 for the head and foot */
	OK(smallest >= 1000000 - 16384 - 25000,
	   "every file but the last filled to within an entry of the cap (smallest %zu)", smallest);
	IS_INT(entries("index.html"), 40, "index.html: 40 entries of ~24 KB");
	IS_INT(entries("index-3.html"), 20, "index-3.html: the 20 left");
	IS_INT(c.files, 3, "3 files");
	free(v);
	free(blk);
}

/* The rule with a small limit: the files in order, chained newer/older,
 * stale ones removed when the site shrinks. */
static void chain(void)
{
	ant_pub_html_counts c = { 0, 0, 0 };
	ant_pub_site s = site_of(5, &c);
	lb_error err = LB_ERROR_INIT;
	char *blk, *h;
	ant_pub_page *v = pages(23, 40, &blk);

	IS_INT(ant_publish_html(dir, &s, v, 23, &err), 0, "23 pages, limit 5");
	IS_INT(c.files, 5, "five files");
	IS_INT(entries("index.html") + entries("index-2.html") + entries("index-3.html") +
	       entries("index-4.html"), 20, "four full files");
	IS_INT(entries("index-5.html"), 3, "index-5.html: the 3 left");
	h = slurp("index.html", NULL);
	OK(h && strstr(h, "rel=\"next\" href=\"index-2.html\"") && !strstr(h, "rel=\"prev\""),
	   "index.html: older is index-2.html, no newer");
	free(h);
	h = slurp("index-3.html", NULL);
	OK(h && strstr(h, "rel=\"prev\" href=\"index-2.html\"") &&
	   strstr(h, "rel=\"next\" href=\"index-4.html\"") && strstr(h, ">page 000010<") &&
	   strstr(h, ">page 000014<"), "index-3.html: pages 10-14, between index-2 and index-4");
	free(h);
	h = slurp("index-5.html", NULL);
	OK(h && strstr(h, "rel=\"prev\" href=\"index-4.html\"") && !strstr(h, "rel=\"next\""),
	   "index-5.html: the last, no older");
	free(h);
	IS_INT(ant_publish_html(dir, &s, v, 7, &err), 0, "7 pages, limit 5");
	OK(exists("index-2.html") && !exists("index-3.html") && !exists("index-5.html"),
	   "the site shrank: index-3.html to index-5.html removed");
	s.page_limit = 7;
	IS_INT(ant_publish_html(dir, &s, v, 7, &err), 0, "7 pages, limit 7");
	OK(!exists("index-2.html"), "a limit of the page count: one index.html");
	free(v);
	free(blk);
}

/* Temporary files our atomic writer leaves (lb_afile.h: NAME.tmp.XXXXXX). */
static int tmp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* The old listing's three files, to compare after a failed publish. */
static void keep_old(char *old[3])
{
	old[0] = slurp("index.html", NULL);
	old[1] = slurp("index-2.html", NULL);
	old[2] = slurp("index-3.html", NULL);
}

/* 1 when the three files are still those of old, byte for byte. */
static int same_old(char *old[3])
{
	char *now[3];
	int same = 1;

	keep_old(now);
	for (int i = 0; i < 3; i++) {
		same &= old[i] && now[i] && strcmp(old[i], now[i]) == 0;
		free(now[i]);
	}
	return same;
}

/* A publish that fails half way (a file too big to write, a target that
 * cannot be replaced) leaves the old listing whole: index.html and every
 * file it links as they were, never a new index-2.html beside the old
 * index.html; and no temporary file. */
static void failed_publish(void)
{
	ant_pub_site s = site_of(5, NULL);
	lb_error err = LB_ERROR_INIT;
	char *blk, *big, *old[3], path[600];
	ant_pub_page *v = pages(20, 40, &blk), *w = pages(20, 8000, &big);
	struct rlimit was, lim;
	int rc;

	IS_INT(ant_publish_html(dir, &s, v, 12, &err), 0, "old listing: 12 pages in 3 files");
	keep_old(old);

	/* index-4.html's place taken by a non-empty directory: rename fails
	 * even as root */
	snprintf(path, sizeof path, "%s/index-4.html", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/index-4.html/x", dir);
	fclose(fopen(path, "w"));
	s.now = T0 + 60;
	rc = ant_publish_html(dir, &s, v, 20, &err);
	IS_INT(rc, LB_EIO, "a target that is a directory: LB_EIO");
	OK(strstr(err.msg, "index-4.html") != NULL, "the message names it: %s", err.msg);
	OK(same_old(old), "the old index.html, index-2.html, index-3.html are untouched");
	IS_INT(tmp_files(), 0, "no temporary file left");
	unlink(path);
	snprintf(path, sizeof path, "%s/index-4.html", dir);
	rmdir(path);

	/* a write that fails half way (disk full, here a file size limit):
	 * the older pages' files are the big ones, index-2.html is written
	 * before the failing one */
	for (size_t i = 0; i < 10; i++)
		w[i] = v[i];
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &was);
	lim = was;
	lim.rlim_cur = 64 * 1024;
	setrlimit(RLIMIT_FSIZE, &lim);
	rc = ant_publish_html(dir, &s, w, 20, &err);
	setrlimit(RLIMIT_FSIZE, &was);
	IS_INT(rc, LB_EIO, "a file too big half way: LB_EIO");
	OK(strstr(err.msg, "index-3.html") != NULL, "the message names the file: %s", err.msg);
	OK(same_old(old), "the old listing is whole: no new index-2.html beside the old index.html");
	IS_INT(tmp_files(), 0, "no temporary file left");
	OK(!exists("index-4.html"), "no file of the failed publish");
	for (int i = 0; i < 3; i++)
		free(old[i]);
	free(v);
	free(blk);
	free(w);
	free(big);
}

int main(void)
{
	TAP_PLAN(45);
	if (!mkdtemp(dir))
		return 1;
	entry_cap();
	byte_cap();
	chain();
	failed_publish();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	TAP_DONE();
}
