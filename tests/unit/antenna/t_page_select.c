/*
 * t_page_select: css:, xpath: and range: patterns (ant_page.h).  The tree
 * walk they need reads a page exactly as the SAX walk does (pages real
 * software made -- sphinx and mkdocs in tests/selectors/data, and up to
 * 400 of Debian's HTML documentation -- read both ways give the same
 * text, segments and paths, and '.body' reads as 'css:.body'); each kind
 * picks what it names on a hand-made shop page and on those pages; an
 * --only one that finds nothing fails naming itself; hostile selectors
 * are errors, never a crash or a hang, slow ones stopped in time.
 */
#include "ant_page.h"
#include "lb_buf.h"
#include "page_int.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char shop[] =
	"<!DOCTYPE html><html><head><title>Shop</title></head><body>\n"
	"<div id=\"nav\"><a href=\"/\">Home</a> <a href=\"/b\">Other</a></div>\n"
	"<div id=\"main\"><h1>Green tea</h1><p>Fresh leaves from Shizuoka.</p>\n"
	"<p class=\"price big\">Price: <span itemprop=\"price\" data-cur=\"JPY-yen\">120</span>円</p>\n"
	"<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr>"
	"<tr><td>c</td><td>3</td></tr><tr><td>d</td><td>4</td></tr></table>\n"
	"<ul><li>first</li><li class=\"x\">second</li><li>third</li></ul>\n"
	"</div><div class=\"foot\">Copyright 2026</div></body></html>\n";

/* The page's text as its segments joined by " | "; NULL on failure (the
 * message in *msg when msg). */
static char *read_with(const char *page, size_t len, const char *const *only, size_t nonly,
		       const char *const *ig, size_t nig, int *rc, char *msg, size_t room)
{
	ant_page_opts o = { .only = only, .nonly = nonly, .ignore = ig, .nignore = nig };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	lb_buf b = LB_BUF_INIT;

	*rc = ant_page_analyze(page, len, "text/html; charset=utf-8", &o, &pi, &err);
	if (msg)
		snprintf(msg, room, "%s", *rc ? lb_error_msg(&err) : "");
	if (*rc) {
		ant_page_info_release(&pi);
		return NULL;
	}
	for (size_t i = 0; i < pi.nseg; i++) {
		if (i)
			lb_buf_adds(&b, " | ");
		lb_buf_add(&b, pi.text + pi.seg[i].off, pi.seg[i].len);
	}
	ant_page_info_release(&pi);
	return lb_buf_detach(&b, NULL);
}

static void only_is(const char *pattern, const char *want)
{
	const char *only[] = { pattern };
	char msg[300];
	int rc;
	char *got = read_with(shop, sizeof shop - 1, only, 1, NULL, 0, &rc, msg, sizeof msg);

	if (rc)
		printf("# %s\n", msg);
	IS_STR(got, want, "--only '%s'", pattern);
	free(got);
}

static void t_kinds(void)
{
	only_is("css:span[itemprop=price]", "120");
	only_is("css:span[itemprop=\"price\"]", "120");
	only_is("css:#main p.price > span", "120");
	only_is("css:table tr:nth-child(2)", "b | 2");
	only_is("css:tr:nth-child(even) td:first-child", "b | d");
	only_is("css:tr:nth-child(2n+3) > td:last-child", "3");
	only_is("css:tr:nth-child(-n+2) td:nth-child(2)", "1 | 2");
	only_is("css:li:not(.x)", "first | third");
	only_is("css:li.x + li", "third");
	only_is("css:li:first-child ~ li", "second | third");
	only_is("css:h1, .foot", "Green tea | Copyright 2026");
	only_is("css:[data-cur|=JPY]", "120");
	only_is("css:[data-cur^=JPY]", "120");
	only_is("css:[data-cur$=yen]", "120");
	only_is("css:[data-cur*=Y-y]", "120");
	only_is("css:p[class~=big] span", "120");
		only_is("xpath://span[@itemprop='price']", "120");
	only_is("xpath://table/tr[3]/td[1]/text()", "c");
	only_is("range:Price:...円", "120");
	only_is("range:Green tea...Price", "Fresh leaves from Shizuoka.");
	only_is("range:...Fresh", "Shop | Home Other | Green tea");
}

static void t_ignore(void)
{
	const char *ig[] = { "css:#nav, table", "range:Price...円" };
	const char *only[] = { "css:body" };
	int rc;
	char *got = read_with(shop, sizeof shop - 1, only, 1, ig, 2, &rc, NULL, 0);

	IS_STR(got, "Green tea | Fresh leaves from Shizuoka. | Price | 円 | first | second | third | Copyright 2026",
	       "--ignore css: and range: drop their parts");
	free(got);
	{
		const char *ig2[] = { "css:.no-such-thing", "range:nowhere...", "xpath://blink" };

		got = read_with(shop, sizeof shop - 1, NULL, 0, ig2, 3, &rc, NULL, 0);
		OK(rc == 0 && got && strstr(got, "Green tea"), "an --ignore that finds nothing is fine");
		free(got);
	}
}

static void fails_with(const char *pattern, int want, const char *part)
{
	const char *only[] = { pattern };
	char msg[400];
	int rc;
	char *got = read_with(shop, sizeof shop - 1, only, 1, NULL, 0, &rc, msg, sizeof msg);

	OK(rc == want && strstr(msg, part), "--only '%.60s' fails (%d): %s", pattern, rc, msg);
	free(got);
}

static void t_missing(void)
{
	fails_with("css:span[itemprop=cost]",
		   LB_ENOTFOUND, "--only 'css:span[itemprop=cost]' matched nothing on the page: has its layout changed?");
	fails_with("xpath://article", LB_ENOTFOUND, "'xpath://article' matched nothing");
	fails_with("range:Price...Yen", LB_ENOTFOUND, "'range:Price...Yen' matched nothing");
	fails_with("xpath:count(//p)", LB_EINVAL, "gives a number, not elements");
	fails_with("css:P.PRICE", LB_ENOTFOUND, "matched nothing");   /* classes are case-sensitive */
	{
		/* an empty body: nothing to find either */
		const char *only[] = { "css:p" };
		ant_page_opts o = { .only = only, .nonly = 1 };
		ant_page_info pi;
		lb_error err = LB_ERROR_INIT;

		IS_INT(ant_page_analyze("", 0, "text/html", &o, &pi, &err), LB_ENOTFOUND,
		       "an empty page has no css:p");
		ant_page_info_release(&pi);
	}
}

static void check_fails(const char *pattern, const char *part)
{
	lb_error err = LB_ERROR_INIT;
	int rc = ant_page_only_check(pattern, &err);

	OK(rc == LB_EINVAL && strstr(lb_error_msg(&err), part), "check '%.50s': %s", pattern,
	   lb_error_msg(&err));
}

static void t_check(void)
{
	lb_error err = LB_ERROR_INIT;
	lb_buf big = LB_BUF_INIT;

	OK(ant_page_only_check("css:div#a > p.b:nth-child(2n+1), ul li:not(.c)", &err) == 0, "a good css: checks");
	OK(ant_page_pattern_check("xpath://div[@id='a']//p", &err) == 0, "a good xpath: checks");
	OK(ant_page_pattern_check("span[itemprop=price]", &err) == 0, "without a prefix it is a regex as before");
	check_fails("css:div[", "expected a name at '(end)'");
	check_fails("css:div[a=\"b]", "unterminated string");
	check_fails("css:p:hover", "unknown pseudo-class");
	check_fails("css:p:nth-child(x)", "expected an+b, odd or even at 'x)'");
	check_fails("css:p >", "expected a selector");
	check_fails("css:a,,b", "expected a selector");
	check_fails("css:p:not(:not(a))", ":not() inside :not()");
	check_fails("css:p)", "unexpected character at ')'");
	check_fails("xpath://p[", "bad only pattern 'xpath://p['");
	check_fails("xpath:", "empty only pattern");
	check_fails("range:abc", "a range is START...END");
	/* a regular expression still (no prefix): stacked repetitions made
	 * glibc's regcomp() take seconds (fuzz_selector found it) */
	check_fails(" 2moAzilion++++3+*+++++++++++++", "repeats too much");
	check_fails("a+*+*+*+*+*+*+*+*+*+*+*+*+*+*", "repeats too much");
	check_fails("range:...", "a range needs a START or an END");
	for (int i = 0; i < 600; i++)
		lb_buf_adds(&big, i ? " > div" : "css:div");
	check_fails(big.data, "too long");
	lb_buf_reset(&big);
	lb_buf_adds(&big, "css:");
	for (int i = 0; i < 100; i++)
		lb_buf_adds(&big, "a ");
	check_fails(big.data, "too many compound selectors");
	lb_buf_reset(&big);
	lb_buf_adds(&big, "xpath:");
	for (int i = 0; i < 500; i++)
		lb_buf_addc(&big, '(');
	check_fails(big.data, "bad only pattern");
	lb_buf_release(&big);
}

static int same_info(const ant_page_info *x, const ant_page_info *y);
static char *slurp(const char *path, size_t *len);

/* A slow expression over a big page stops at ANT_PAGE_XPATH_OPS. */
static void t_slow(void)
{
	lb_buf page = LB_BUF_INIT;
	const char *only[] = { "xpath://*[count(//*[count(//*) > 1]) > 1]" };
	ant_page_opts o = { .only = only, .nonly = 1 };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	struct timespec a, b;
	int rc;

	lb_buf_adds(&page, "<html><body>");
	for (int i = 0; i < 3000; i++)
		lb_buf_adds(&page, "<div><p>x</p></div>");
	lb_buf_adds(&page, "</body></html>");
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = ant_page_analyze(page.data, page.len, "text/html", &o, &pi, &err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	OK(rc == LB_ETOOBIG && strstr(lb_error_msg(&err), "XPath steps"), "a quadratic xpath stops: %s",
	   lb_error_msg(&err));
	OK(b.tv_sec - a.tv_sec < 20, "within seconds (%ld s)", (long)(b.tv_sec - a.tv_sec));
	ant_page_info_release(&pi);
	/* node-set merges libxml2 counts as one step each: stopped by the
	 * clock (--regex-seconds), not after minutes */
	lb_buf_reset(&page);
	lb_buf_adds(&page, "<ul>");
	for (int i = 0; i < 5000; i++)
		lb_buf_addf(&page, "<li>item %d</li>", i);
	only[0] = "xpath://li/following-sibling::li";
	o.regex_seconds = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = ant_page_analyze(page.data, page.len, "text/html", &o, &pi, &err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	OK(rc == LB_ETOOBIG && strstr(lb_error_msg(&err), "takes over 1 s") && b.tv_sec - a.tv_sec < 5,
	   "a slow merge stops at --regex-seconds 1 (%ld s): %s", (long)(b.tv_sec - a.tv_sec), lb_error_msg(&err));
	ant_page_info_release(&pi);
	o.regex_seconds = 0;
	/* deep nesting: the tree walk has no stack to overflow */
	only[0] = "xpath://nothing";
	o.ignore = only, o.nignore = 1, o.only = NULL, o.nonly = 0;
	for (int depth = 1000; depth <= 100000; depth += 99000) {
		ant_page_info sax;
		int rs;

		lb_buf_reset(&page);
		for (int i = 0; i < depth; i++)
			lb_buf_adds(&page, "<div>");
		lb_buf_adds(&page, "deep");
		rc = ant_page_analyze(page.data, page.len, "text/html", &o, &pi, &err);
		rs = ant_page_analyze(page.data, page.len, "text/html", NULL, &sax, NULL);
		OK(rc == 0 && rs == 0 && same_info(&pi, &sax), "%d nested divs: the tree walk as the SAX walk", depth);
		ant_page_info_release(&sax);
		ant_page_info_release(&pi);
	}
	lb_buf_release(&page);
}

/* Two readings are the same page: title, hash, text, every segment. */
static int same_info(const ant_page_info *x, const ant_page_info *y)
{
	if (x->text_hash != y->text_hash || x->nseg != y->nseg || x->text_len != y->text_len ||
	    !!x->title != !!y->title || (x->title && strcmp(x->title, y->title)) ||
	    !!x->feed_href != !!y->feed_href || (x->feed_href && strcmp(x->feed_href, y->feed_href)))
		return 0;
	for (size_t i = 0; i < x->nseg; i++) {
		const ant_page_seg *a = &x->seg[i], *b = &y->seg[i];

		if (a->block != b->block || a->norm != b->norm || a->raw != b->raw || a->len != b->len ||
		    a->link != b->link || memcmp(x->text + a->off, y->text + b->off, a->len) ||
		    strcmp(ant_page_seg_path(x, i), ant_page_seg_path(y, i)))
			return 0;
	}
	return 1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	lb_buf b = LB_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		lb_buf_add(&b, chunk, n);
	fclose(f);
	return lb_buf_detach(&b, len);
}

/* Every HTML file the tests keep, read by the SAX walk and by the tree
 * walk (an --ignore xpath: that finds nothing makes the tree): the same;
 * and --only '#main' like --only 'css:#main'. */
static void t_same_walk(void)
{
	/* pages made by real software: Debian's HTML documentation (sphinx,
	 * docbook, pandoc, doxygen...), 400 of them at most */
	FILE *list = popen("{ find tests -name '*.htm*'; find /usr/share/doc -name '*.htm*' -size -2048k | sort | head -400; } 2>/dev/null", "r");
	char path[1024];
	size_t files = 0, same = 0, idsame = 0, found = 0;
	const char *tree_ig[] = { "xpath://no-such-element" };
	const char *id_only[] = { "#main", ".body", ".content", ".document", ".section" };
	const char *css_only[] = { "css:#main", "css:.body", "css:.content", "css:.document", "css:.section" };

	while (list && fgets(path, sizeof path, list)) {
		size_t len;
		char *page;
		ant_page_info a, b;
		ant_page_opts sax = { 0 }, tree = { .ignore = tree_ig, .nignore = 1 };
		int ra, rb;

		path[strcspn(path, "\n")] = '\0';
		if (!(page = slurp(path, &len)))
			continue;
		files++;
		ra = ant_page_analyze(page, len, NULL, &sax, &a, NULL);
		rb = ant_page_analyze(page, len, NULL, &tree, &b, NULL);
		if (ra == rb && (ra || same_info(&a, &b)))
			same++;
		else
			printf("# differs: %s\n", path);
		ant_page_info_release(&a);
		ant_page_info_release(&b);
		for (size_t k = 0; k < sizeof id_only / sizeof *id_only; k++) {
			sax = (ant_page_opts){ .only = &id_only[k], .nonly = 1 };
			tree = (ant_page_opts){ .only = &css_only[k], .nonly = 1 };
			ra = ant_page_analyze(page, len, NULL, &sax, &a, NULL);
			rb = ant_page_analyze(page, len, NULL, &tree, &b, NULL);
			/* not there: the SAX walk finds no part (only_matched 0), css: fails */
			if ((ra == 0 && a.only_matched == 0 && rb == LB_ENOTFOUND) ||
			    (ra == 0 && rb == 0 && same_info(&a, &b)))
				idsame++;
			else
				printf("# --only %s differs: %s\n", id_only[k], path);
			found += ra == 0 && a.only_matched;
			ant_page_info_release(&a);
			ant_page_info_release(&b);
		}
		free(page);
	}
	if (list)
		pclose(list);
	OK(files >= 3, "%zu HTML files made by real software (tests/selectors/data, /usr/share/doc)", files);
	IS_INT(same, files, "the tree walk reads each as the SAX walk does");
	IS_INT(idsame, files * 5, "--only 'css:#main', 'css:.body'... read each as '#main', '.body'... do (%zu parts found)",
	       found);
	{
		const char *o1[] = { "#main" }, *o2[] = { "css:#main" };
		ant_page_opts x = { .only = o1, .nonly = 1 }, y = { .only = o2, .nonly = 1 };
		ant_page_info a, b;

		ant_page_analyze(shop, sizeof shop - 1, NULL, &x, &a, NULL);
		ant_page_analyze(shop, sizeof shop - 1, NULL, &y, &b, NULL);
		OK(a.nseg > 3 && same_info(&a, &b), "the shop's #main: %zu segments alike", a.nseg);
		ant_page_info_release(&a);
		ant_page_info_release(&b);
	}
}

static void t_translate(void)
{
	lb_buf x = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;

	ant_page_css_xpath("div > p", "only", &x, &err);
	IS_STR(x.data, "//*[self::p and parent::*[self::div]]", "child combinator, right to left");
	ant_page_css_xpath("[title=\"it's\"]", "only", &x, &err);
	IS_STR(x.data, "//*[@title=\"it's\"]", "a value with a quote");
	ant_page_css_xpath("[title='a\"b\\'c']", "only", &x, &err);
	OK(ant_page_css_xpath("[title='a\"b']", "only", &x, &err) == 0, "a value with the other quote");
	lb_buf_release(&x);
}

/* Selectors on pages Debian's sphinx 5.3 and mkdocs 1.4 built (saved in
 * tests/selectors/data): a table's row, the main part, a range. */
static void real_is(const char *file, const char *pattern, const char *want)
{
	char path[256], msg[300];
	size_t len;
	char *page, *got;
	const char *only[] = { pattern };
	int rc;

	snprintf(path, sizeof path, "tests/selectors/data/%s", file);
	if (!(page = slurp(path, &len))) {
		OK(0, "%s: cannot read it (run from the top directory)", path);
		return;
	}
	got = read_with(page, len, only, 1, NULL, 0, &rc, msg, sizeof msg);
	if (rc)
		printf("# %s\n", msg);
	IS_STR(got, want, "%s: --only '%s'", file, pattern);
	free(got);
	free(page);
}

static void t_real(void)
{
	real_is("sphinx-5.3-classic.html", "css:div.body tbody tr:nth-child(2) > td:last-child", "120");
	real_is("sphinx-5.3-classic.html", "xpath://div[@role='main']//section[@id='news']//li", "The greenhouse is open. | Seeds are in.");
	real_is("sphinx-5.3-alabaster.html", "css:table.docutils tr:nth-child(odd) td:first-child", "Jam");
	real_is("sphinx-5.3-alabaster.html", "range:Plum jam costs...a jar", "400 yen");
	real_is("mkdocs-1.4.html", "css:div[role=main] h2 + p", "The spring market opens at 9:00 on 12 April. | Plum jam costs 400 yen a jar.");
	/* its Markdown read the reST table as nested lists: the last item of each */
	real_is("mkdocs-1.4.html", "css:div[role=main] li:last-child", "Price | 400 | Tea | 120 | Seeds are in.");
}

int main(void)
{
	TAP_PLAN(22 + 2 + 5 + 20 + 5 + 4 + 3 + 6);
	t_kinds();
	t_ignore();
	t_missing();
	t_check();
	t_slow();
	t_same_walk();
	t_real();
	t_translate();
	TAP_DONE();
}
