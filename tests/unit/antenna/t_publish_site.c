/*
 * t_publish_site.c: ant_publish_site() (ant_publish.h): the whole site
 * from a store (the configuration, the pages, the events), last_publish
 * recorded only on success, the retention taken from the database or the
 * options, a DIR that cannot be made or whose parent is missing, and a
 * killed publish's temporary files removed; a file that cannot be
 * written keeps the reason's errno in err->sys (ant_pub_close_out()).
 */
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atom_evstore.h"
#include "ant_difftext.h"
#include "ant_publish.h"
#include "ant_store.h"
#include "ant_settings.h"
#include "publish_int.h"

#define NOW 1700000000

static char dir[] = "/tmp/t_publish_site.XXXXXX";

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0;
	FILE *mem;
	int c;

	if (!fp)
		return NULL;
	mem = open_memstream(&s, &n);
	while ((c = getc(fp)) != EOF)
		putc(c, mem);
	fclose(mem);
	fclose(fp);
	return s;
}

static void add_page(ant_store *s, const char *url, const char *title, int64_t lm)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = p.url_key = (char *)url;
	p.title = (char *)title;
	p.created = 1;
	if (ant_store_page_add(s, &p, &err) != 0 ||
	    ant_store_page_get(s, url, &p, &err) != 1) {
		printf("# %s\n", err.msg);
		return;
	}
	p.st.last_modified = lm;
	p.st.last_detected = lm ? NOW - 60 : 0;
	p.st.detected_by = "text";
	ant_store_page_save(s, &p, &err);
	ant_store_page_release(&p);
}

static int exists(const char *site, const char *name)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", site, name);
	return stat(path, &sb) == 0 && sb.st_size > 0;
}

static void test_site(ant_store *s)
{
	ant_publish_opts o = { .now = NOW, .keep_events = ANT_KEEP_DEFAULT };
	ant_publish_result r;
	lb_error err = LB_ERROR_INIT;
	char site[300], path[400], *html, *cur;

	snprintf(site, sizeof site, "%s/site", dir);   /* made: its parent exists */
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published");
	IS_INT(r.pages, 2, "two pages");
	IS_INT(r.keep_events, ANT_KEEP_EVENTS, "the default retention");
	IS_INT(r.lost, 0, "no archive lost");
	OK(r.counts.replaced == 0 && r.counts.approximated == 0, "lirs.gz holds the text exactly");
	OK(exists(site, "index.html") && exists(site, "lirs.gz") && exists(site, "sites.di.gz") &&
	   exists(site, "index.atom") && exists(site, "current.atom"), "every file written");
	IS_INT(ant_setting_int(s, ANT_SET_LAST_PUBLISH), NOW, "last_publish recorded");
	snprintf(path, sizeof path, "%s/index.html", site);
	html = slurp(path);
	OK(html && strstr(html, "My &lt;site&gt;") && strstr(html, "Fresh page") &&
	   strstr(html, "Never updated"), "index.html: the configured title and both pages");
	free(html);
	snprintf(path, sizeof path, "%s/current.atom", site);
	cur = slurp(path);
	OK(cur && strstr(cur, "http://fresh.example/") && !strstr(cur, "http://never.example/"),
	   "current.atom: the page with a fresh update only");
	OK(cur && strstr(cur, "https://antenna.example/"), "current.atom: the configured base");
	free(cur);

	o.keep_events = ATOM_EVSTORE_KEEP_ALL;
	o.now = NOW + 60;
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published again");
	IS_INT(r.keep_events, ATOM_EVSTORE_KEEP_ALL, "the retention of the options");
	IS_INT(ant_setting_int(s, ANT_SET_LAST_PUBLISH), NOW + 60, "last_publish moves");
}

static void test_no_dir(ant_store *s)
{
	ant_publish_opts o = { .now = NOW + 3600, .keep_events = ANT_KEEP_DEFAULT };
	ant_publish_result r;
	lb_error err = LB_ERROR_INIT;
	char file[300], site[400], want[512];
	FILE *fp;

	snprintf(file, sizeof file, "%s/plain", dir);
	fp = fopen(file, "w");
	if (fp)
		fclose(fp);
	snprintf(site, sizeof site, "%s/site", file);
	IS_INT(ant_publish_site(s, site, &o, &r, &err), LB_EIO, "a DIR under a file: LB_EIO");
	IS_INT(err.sys, ENOTDIR, "err holds the errno");
	snprintf(want, sizeof want, "cannot create '%s': %s", site, strerror(ENOTDIR));
	IS_STR(err.msg, want, "the message names DIR");
	IS_INT(r.pages, 0, "nothing published");
	OK(ant_setting_int(s, ANT_SET_LAST_PUBLISH) != NOW + 3600, "last_publish unchanged");
}

/* A mistyped DIR: only its last level is made;
 * a missing parent is an error that names it, and nothing is created. */
static void test_parent(ant_store *s)
{
	ant_publish_opts o = { .now = NOW + 7200, .keep_events = ANT_KEEP_DEFAULT };
	ant_publish_result r;
	lb_error err = LB_ERROR_INIT;
	char site[400], want[512];
	struct stat sb;

	snprintf(site, sizeof site, "%s/typo/deep/dir", dir);
	IS_INT(ant_publish_site(s, site, &o, &r, &err), LB_ENOTFOUND, "a missing parent: LB_ENOTFOUND");
	snprintf(want, sizeof want, "its parent directory '%s/typo/deep' does not exist", dir);
	OK(strstr(err.msg, want) != NULL, "the message names the parent: %s", err.msg);
	snprintf(site, sizeof site, "%s/typo", dir);
	OK(stat(site, &sb) != 0, "nothing created");
	OK(ant_setting_int(s, ANT_SET_LAST_PUBLISH) != NOW + 7200,
	   "last_publish unchanged: the new marks are not spent");
	snprintf(site, sizeof site, "%s/new//", dir);
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "a DIR whose parent exists is made");
	OK(exists(site, "index.html"), "and published into");
}

/* A killed publish's temporary files (lb_afile.h: TARGET.tmp.XXXXXX) are
 * removed at the next publish; any other file is left alone. */
static void test_leftovers(ant_store *s)
{
	static const char *const ours[] = {
		"index-33.html.tmp.Ab12Cd", "current.atom.tmp.x1Y2z3", "index.html.tmp.000000",
		"lirs.gz.tmp.ZZZZZZ", "sites.di.gz.tmp.a1b2c3", "index.atom.tmp.QwErTy",
		"archive/7.atom.tmp.AAAbbb",
	};
	static const char *const not_ours[] = {
		"notes.txt.tmp.abcdef", "index-33.html.tmp.abcde", "index.html.tmp.abc-de",
		"mine.tmp.ABCDEF", "index-01.html.tmp.abcdef", "index-1.html.tmp.abcdef",
		"index.html.tmp.abcdef.keep", "index-x.html.tmp.abcdef", "archive/x.atom.tmp.abcdef",
		"7.atom.tmp.abcdef", "archive/index.html.tmp.abcdef",
	};
	ant_publish_opts o = { .now = NOW + 7260, .keep_events = ANT_KEEP_DEFAULT };
	ant_publish_result r;
	lb_error err = LB_ERROR_INIT;
	char site[300], path[600];
	size_t gone = 0, kept = 0;
	FILE *fp;

	snprintf(site, sizeof site, "%s/new", dir);
	snprintf(path, sizeof path, "%s/archive", site);
	mkdir(path, 0755);
	for (size_t i = 0; i < sizeof ours / sizeof *ours + sizeof not_ours / sizeof *not_ours; i++) {
		const char *n = i < sizeof ours / sizeof *ours ? ours[i] : not_ours[i - sizeof ours / sizeof *ours];

		snprintf(path, sizeof path, "%s/%s", site, n);
		if ((fp = fopen(path, "w")))
			fclose(fp);
	}
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published over a killed publish's files");
	for (size_t i = 0; i < sizeof ours / sizeof *ours; i++) {
		snprintf(path, sizeof path, "%s/%s", site, ours[i]);
		gone += access(path, F_OK) != 0;
	}
	for (size_t i = 0; i < sizeof not_ours / sizeof *not_ours; i++) {
		snprintf(path, sizeof path, "%s/%s", site, not_ours[i]);
		kept += access(path, F_OK) == 0;
	}
	IS_INT(gone, sizeof ours / sizeof *ours, "every temporary file of ours removed");
	IS_INT(kept, sizeof not_ours / sizeof *not_ours, "every other file left");
}

static void test_keep(ant_store *s)
{
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_setting_int(s, ANT_SET_KEEP_EVENTS), ANT_KEEP_EVENTS, "keep_events unset: the default");
	ant_store_config_set(s, ant_settings[ANT_SET_KEEP_EVENTS].key, "all", &err);
	IS_INT(ant_setting_int(s, ANT_SET_KEEP_EVENTS), ATOM_EVSTORE_KEEP_ALL, "keep_events all");
	ant_store_config_set(s, ant_settings[ANT_SET_KEEP_EVENTS].key, "5", &err);
	IS_INT(ant_setting_int(s, ANT_SET_KEEP_EVENTS), 5, "keep_events 5");
	ant_store_config_set(s, ant_settings[ANT_SET_KEEP_EVENTS].key, "-3", &err);
	IS_INT(ant_setting_int(s, ANT_SET_KEEP_EVENTS), ATOM_EVSTORE_KEEP_ALL, "a negative keep_events keeps all");
}

/* A failed output file (the LIRS writer's sink ran out of space, or a
 * write with errno): the code, the file, the reason and its errno kept. */
/* ls DIR | grep -c .html */
static size_t count_html(const char *d)
{
	char cmd[512];
	FILE *fp;
	size_t n = 0;

	snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -c '\\.html$'", d);
	if ((fp = popen(cmd, "r"))) {
		if (fscanf(fp, "%zu", &n) != 1)
			n = 0;
		pclose(fp);
	}
	return n;
}

/* url's update at time lm, its diff pending from was to now. */
static int put_pending(ant_store *s, const char *url, int64_t lm, const char *was, const char *now)
{
	lb_error err = LB_ERROR_INIT;
	unsigned char *a = NULL, *b = NULL;
	size_t la, lb_;
	ant_store_page p;
	ant_store_text t = { 0 };
	lb_buf pend = LB_BUF_INIT;
	int ok;

	ant_store_page_init(&p);
	ok = ant_store_page_get(s, url, &p, &err) == 1 &&
	     ant_difftext_pack(was, strlen(was), ANT_DIFF_TEXT_MAX, &a, &la) == 0 &&
	     ant_difftext_pack(now, strlen(now), ANT_DIFF_TEXT_MAX, &b, &lb_) == 0;
	if (ok && p.st.last_modified != lm) {
		p.st.last_modified = lm;
		ok = ant_store_page_save(s, &p, &err) == 0;
	}
	if (ok) {
		lb_buf_addc(&pend, ANT_DIFFTEXT_PENDING);
		lb_buf_add(&pend, a, la);
		t = (ant_store_text){ .page_id = p.id, .text = b, .text_len = lb_, .diff = (unsigned char *)pend.data,
				      .diff_len = pend.len, .diff_time = lm };
		ok = ant_store_text_put(s, &t, &err) == 0;
	}
	free(a);
	free(b);
	lb_buf_release(&pend);
	ant_store_page_release(&p);
	return ok;
}

/* The files of dir a and b the same, byte for byte, each of mode 0644
 * (under the test's umask 022), and no temporary file left in a. */
static int same_dirs(const char *a, const char *b)
{
	char cmd[2000];

	snprintf(cmd, sizeof cmd,
		 "diff -r '%s' '%s' >/dev/null && ! ls '%s' | grep -q tmp && "
		 "test -z \"$(find '%s' -type f ! -perm 0644)\"", a, b, a, a);
	return system(cmd) == 0;
}

/* The diff pages of 1,100 listed updates, their diffs pending: more than
 * one batch of 512 synced and renamed; then the listing capped to 100:
 * the 1,000 no longer listed removed (publish_diff.c). */
static void test_diff_pages(void)
{
	ant_publish_opts o = { .now = NOW, .keep_events = ANT_KEEP_DEFAULT };
	ant_publish_result r;
	lb_error err = LB_ERROR_INIT;
	char path[400], site[300], url[64];
	ant_store *s;
	int ok = 1;

	snprintf(path, sizeof path, "%s/diffs.db", dir);
	snprintf(site, sizeof site, "%s/dsite", dir);
	umask(022);   /* same_dirs()'s 0644 */
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", err.msg);
		return;
	}
	ant_store_begin(s, &err);
	for (int i = 0; i < 1100 && ok; i++) {
		char was[64], now[64];

		snprintf(url, sizeof url, "http://d%d.example/", i);
		add_page(s, url, "Diary", NOW - 600 - i);
		snprintf(was, sizeof was, "Hello\nDay %d: rain\n", i);
		snprintf(now, sizeof now, "Hello\nDay %d: sun\n", i);
		ok = put_pending(s, url, NOW - 600 - i, was, now);
	}
	ant_store_commit(s, &err);
	OK(ok, "1,100 pages with a pending diff each");
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published");
	snprintf(path, sizeof path, "%s/diff", site);
	OK(r.diffs.written == 1100 && count_html(path) == 1100,
	   "every listed update's diff page written, past a batch of 512 (%zu written)", r.diffs.written);
	{
		char *html;
		char f[400];

		snprintf(f, sizeof f, "%s/index.html", site);
		html = slurp(f);
		OK(html && strstr(html, "<a class=\"diff\" href=\"diff/"), "index.html links them");
		free(html);
	}
	o.now = NOW + 60;
	o.html_limit = 100;
	o.html_pages = 1;
	o.current_entries = 50;
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published with the listing capped to 100");
	OK(r.diffs.removed == 1000 && r.diffs.written == 0 && r.diffs.listed == 100 && count_html(path) == 100,
	   "the 1,000 no longer listed removed, none written again (%zu removed, %zu listed)",
	   r.diffs.removed, r.diffs.listed);
	/* 50 new updates of pages no longer listed: their pages written into
	 * the files of the 50 dropped from the listing (their texts shorter and
	 * longer), the same bytes as a publish into an empty folder writes */
	ant_store_begin(s, &err);
	for (int i = 1000; i < 1050 && ok; i++) {
		snprintf(url, sizeof url, "http://d%d.example/", i);
		ok = put_pending(s, url, NOW + 30 - (i - 1000), i % 2 ? "Hi\nX\n" : "Hello\nDay: a rather long line of rain\nand more\n",
				 i % 2 ? "Hi\nY\n" : "Hello\nDay: a rather long line of sun\nand more\n");
	}
	ant_store_commit(s, &err);
	o.now = NOW + 120;
	IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published after 50 new updates");
	OK(r.diffs.removed == 50 && r.diffs.written == 50 && r.diffs.listed == 100 && count_html(path) == 100,
	   "50 written in the files of the 50 no longer listed (%zu removed, %zu written, %zu listed)",
	   r.diffs.removed, r.diffs.written, r.diffs.listed);
	{
		char fresh[400], fdiff[420];

		snprintf(fresh, sizeof fresh, "%s/dsite-fresh", dir);
		snprintf(fdiff, sizeof fdiff, "%s/diff", fresh);
		IS_INT(ant_publish_site(s, fresh, &o, &r, &err), 0, "the same into an empty folder");
		OK(same_dirs(path, fdiff), "the reused files hold the same bytes as new ones, mode 0644, no temporary file");
	}
	/* the pages also linked from a backup (cp -al): never written over */
	{
		char cmd[2000], links[400], copy[400], fresh[400], fdiff[420];
		int same;

		snprintf(links, sizeof links, "%s/dlinks", dir);
		snprintf(copy, sizeof copy, "%s/dcopy", dir);
		snprintf(cmd, sizeof cmd, "cp -al '%s' '%s' && cp -a '%s' '%s'", path, links, path, copy);
		OK(system(cmd) == 0, "a backup of hard links made");
		ant_store_begin(s, &err);
		for (int i = 1050; i < 1100 && ok; i++) {
			snprintf(url, sizeof url, "http://d%d.example/", i);
			ok = put_pending(s, url, NOW + 90 - (i - 1050), "Hi\nX\n", "Hi\nY\n");
		}
		ant_store_commit(s, &err);
		o.now = NOW + 180;
		IS_INT(ant_publish_site(s, site, &o, &r, &err), 0, "published after 50 more new updates");
		snprintf(fresh, sizeof fresh, "%s/dsite-fresh2", dir);
		snprintf(fdiff, sizeof fdiff, "%s/diff", fresh);
		same = ant_publish_site(s, fresh, &o, &r, &err) == 0 && same_dirs(path, fdiff);
		OK(same && r.diffs.listed == 100, "the same pages as into an empty folder");
		snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null", links, copy);
		OK(system(cmd) == 0, "the backup's linked files unchanged");
	}
	o.html_limit = 0;
	o.html_pages = 0;
	o.current_entries = 0;
	ant_store_close(s);
}

static void test_close_out(void)
{
	lb_afile f;
	char *path = NULL;
	lb_error err = LB_ERROR_INIT;

	IS_INT(ant_pub_open_out(&f, dir, "closed.txt", &path, &err), 0, "close_out: opened");
	lb_err(&err, LB_ESINK, "write failed: %s", strerror(ENOSPC));
	err.sys = ENOSPC;
	IS_INT(ant_pub_close_out(&f, 0, path, &err), LB_ESINK, "close_out: the writer's failure is the code");
	IS_INT(err.sys, ENOSPC, "close_out: its errno stays in err->sys");
	OK(strstr(err.msg, path) && strstr(err.msg, strerror(ENOSPC)),
	   "close_out: the message names the file and says why (%s)", err.msg);
	OK(access(path, F_OK) != 0, "close_out: nothing written");
	free(path);
	path = NULL;
	lb_error_clear(&err);
	IS_INT(ant_pub_open_out(&f, dir, "closed.txt", &path, &err), 0, "close_out: opened again");
	errno = ENOSPC;
	IS_INT(ant_pub_close_out(&f, 0, path, &err), LB_EIO, "close_out: a failure with errno is LB_EIO");
	IS_INT(err.sys, ENOSPC, "close_out: errno in err->sys");
	free(path);
}

int main(void)
{
	TAP_PLAN(53);
	ant_store *s;
	char path[300], cmd[64];
	lb_error err = LB_ERROR_INIT;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/antenna.db", dir);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", err.msg);
		return 1;
	}
	ant_store_config_set(s, ant_settings[ANT_SET_TITLE].key, "My <site>", &err);
	ant_store_config_set(s, ant_settings[ANT_SET_BASE].key, "https://antenna.example/", &err);
	add_page(s, "http://fresh.example/", "Fresh page", NOW - 600);
	add_page(s, "http://never.example/", "Never updated", 0);
	test_site(s);
	test_no_dir(s);
	test_parent(s);
	test_leftovers(s);
	test_keep(s);
	test_close_out();
	test_diff_pages();
	ant_store_close(s);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TAP_DONE();
}
