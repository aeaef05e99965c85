/*
 * publish.c: the antenna's static site, DIR/index.html and DIR/lirs.gz
 * (doc/NOTES-lirs-in-the-wild.md "What the listing page showed").  Each
 * file is written through one FILE* into a temporary file and renamed
 * over the old one (lb_afile.h), so a web server never serves half a page,
 * and a failed publish leaves the previous one in place; the HTML files
 * are renamed together, when all are written (publish_stage.c), so that
 * a failed publish never leaves them mixed.
 *
 * The order of index.html:
 *   - pages without a group first (no heading), then one section per group,
 *     groups in byte order of their names: a reader finds a group at the
 *     same place every time, and a table of contents links them;
 *   - inside each, pages with a known update and no error, newest update
 *     first, ties by shown title then URL; then the pages with no known
 *     update or whose last check failed, by title then URL, shown with
 *     "--/-- --:--" and the error.
 * Across files (a site of more than page_limit pages: index.html, then
 * index-2.html, ...) the pages come in the listing order without the
 * groups (ant_pub_src, ANT_PUB_LISTING), so index.html has the most
 * recent updates; each file holds at most page_limit of them and ends
 * before page_bytes (entries are measured by rendering them), and then
 * sorts its own by group as above.  Only three files' pages are held at
 * once: index.html's (written last, when the totals are known), the
 * previous one (written when it is known whether another follows) and
 * the one being filled.
 *
 * The times as shown and the opening and closing of the output files are
 * publish_common.c's, shared with the diff pages (publish_diff.c).
 */
#include "ant_publish.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "lb_afile.h"
#include "lb_date.h"
#include "html.h"
#include "ant_robots.h"
#include "publish_error.h"
#include "publish_stage.h"
#include "publish_int.h"
#include "ant_pubdiff.h"
#include "lb_url.h"
#include "lirs.h"
#include "ant_settings.h"

/* How an update was detected: the marker letters of classic antennas
 * (w3m-antenna and Tamatebako wrote T for time, S for size). */
static const struct {
	const char *by, *mark;
} detect_tab[] = {
	{ "header", "H" }, { "text", "T" }, { "size", "S" },
	{ "lirs", "L" }, { "feed", "F" }, { "atom", "A" },
};
#define NDETECT (sizeof detect_tab / sizeof detect_tab[0])

/*
 * Every word of index.html around the titles, one table per language
 * data, not branches.  Japanese is the default
 * (antenna init --lang); every one goes through the one HTML escaper.
 */
struct pub_words {
	const char *lang;              /* <html lang> and antenna init --lang */
	const char *updated;           /* before the publish time */
	const char *page_one, *pages;  /* "1 page", "N pages": the count is put
					  where the first "%" of pages is */
	const char *nnew;              /* "N new": likewise */
	const char *just_now, *min_ago, *h_ago, *d_ago;   /* after the count */
	const char *badge;
	const char *ungrouped;         /* the heading of the pages of no group */
	const char *contents;          /* the table of contents' label */
	const char *legend[NDETECT];   /* in detect_tab's order */
	const char *times;             /* the footer's note on times */
	const char *no_update, *not_checked, *no_pages;
	const char *page_no;           /* "page N" of index-N.html: likewise */
	const char *newer, *older, *pager;   /* the links between the pages, their nav's label */
	const char *more[4];           /* the last file of a capped site: "N" (a
					  count like pages), then the words before
					  the link to lirs.gz, before index.atom's
					  and after it */
	const char *robots;            /* a page robots.txt keeps out (ant_robots.h) */
};

static const struct pub_words words_tab[] = {
	{ "ja", "更新時刻", "1 ページ", "% ページ", "新着 %",
	  "たった今", "分前", "時間前", "日前", "新着", "グループなし", "目次",
	  { "HTTP の Last-Modified ヘッダ", "ページの本文が変わった", "ページの大きさが変わった",
	    "他のアンテナの LIRS ファイルから中継", "ページの RSS/Atom フィードに新しい項目",
	    "Atom フィードのアーカイブ (RFC 5005) から中継" },
	  "時刻は更新の時刻か、それに気づいた時刻です。",
	  "更新時刻不明", "未確認",
	  "まだページを登録していません:",
	  "% ページ目", "← 新しい更新", "古い更新 →", "ページ",
	  { "これより古い % ページはここに載せていません。", "新しい更新はすべて",
	    "に、更新の記録は", "から辿れる Atom のアーカイブにあります。" },
	  "[robots.txt により巡回対象外]" },
	{ "en", "Updated", "1 page", "% pages", "% new",
	  "just now", " min ago", " h ago", " d ago", "new", "Ungrouped", "Contents",
	  { "HTTP Last-Modified header", "the page's text changed", "the page's size changed",
	    "relayed from another antenna's LIRS file",
	    "the page's RSS or Atom feed has a newer entry",
	    "relayed from an Atom feed's archives (RFC 5005)" },
	  "Times are when the update happened or was noticed.",
	  "no update known yet", "not checked yet",
	  "No pages are watched yet:",
	  "page %", "← newer", "older →", "Pages",
	  { "% older pages are not listed here.", "Every fresh update is in",
	    "and the record of updates in the Atom archives linked from", "." },
	  "[excluded by robots.txt]" },
};

static const struct pub_words *words_of(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof words_tab / sizeof words_tab[0]; i++)
		if (strcmp(lang, words_tab[i].lang) == 0)
			return &words_tab[i];
	return &words_tab[0];
}

const char *ant_pub_detect_words(const char *lang, const char *by)
{
	for (size_t i = 0; by && i < NDETECT; i++)
		if (strcmp(by, detect_tab[i].by) == 0)
			return words_of(lang)->legend[i];
	return NULL;
}

int ant_pub_lang_known(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof words_tab / sizeof words_tab[0]; i++)
		if (strcmp(lang, words_tab[i].lang) == 0)
			return 1;
	return 0;
}

void ant_pub_site_defaults(ant_pub_site *s)
{
	memset(s, 0, sizeof *s);
	s->display_tz = ANT_TZ_JST;
	s->visited_query = 1;
	s->lang = ANT_PUB_LANG_DEFAULT;
}

/* "N unit" for N > 0, as "%lld unit" */
static void count_of(char *buf, size_t len, long long n, const char *unit)
{
	char b[48], *p = b + 24;
	size_t u = strlen(unit);

	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	if (u > 23)
		u = 23;
	memcpy(b + 24, unit, u);
	ant_pub_copy_out(buf, len, p, (size_t)(b + 24 + u - p));
}

void ant_pub_format_ago(char *buf, size_t len, int64_t now, int64_t t, const char *lang)
{
	const struct pub_words *w = words_of(lang);
	int64_t d = now - t;

	if (t == 0)
		ant_pub_copy_out(buf, len, "", 0);
	else if (d < 60)   /* also a time in the future: clocks differ */
		ant_pub_copy_out(buf, len, w->just_now, strlen(w->just_now));
	else if (d < 3600)
		count_of(buf, len, (long long)(d / 60), w->min_ago);
	else if (d < 86400)
		count_of(buf, len, (long long)(d / 3600), w->h_ago);
	else
		count_of(buf, len, (long long)(d / 86400), w->d_ago);
}

/* ---- ordering --------------------------------------------------------- */

static const char *shown_title(const ant_pub_page *p)
{
	return ant_pub_str_or(p->title, ant_pub_str_or(p->url, ""));
}

/* At the end of its group: no known update, or the last check failed. */
/* A page whose checks fail, dated by a source (LIRS or Atom: antenna(1),
 * TRUST): listed with that time, its error beside it. */
static int source_dated(const ant_pub_page *p)
{
	return p->last_modified != 0 && p->detected_by &&
	       (strcmp(p->detected_by, "lirs") == 0 || strcmp(p->detected_by, "atom") == 0);
}

static int in_tail(const ant_pub_page *p)
{
	return p->last_modified == 0 || (p->last_error != NULL && !source_dated(p));
}

static int cmp_title_url(const ant_pub_page *a, const ant_pub_page *b)
{
	int c = strcmp(shown_title(a), shown_title(b));

	return c ? c : strcmp(ant_pub_str_or(a->url, ""), ant_pub_str_or(b->url, ""));
}

/* ANT_PUB_LISTING: the order of all the HTML files together */
int ant_pub_cmp_listing(const void *pa, const void *pb)
{
	const ant_pub_page *a = *(const ant_pub_page *const *)pa;
	const ant_pub_page *b = *(const ant_pub_page *const *)pb;

	if (in_tail(a) != in_tail(b))
		return in_tail(a) - in_tail(b);
	if (!in_tail(a) && a->last_modified != b->last_modified)
		return a->last_modified > b->last_modified ? -1 : 1;
	return cmp_title_url(a, b);
}

/* inside one HTML file: by group, then as listed */
static int cmp_html(const void *pa, const void *pb)
{
	const ant_pub_page *a = *(const ant_pub_page *const *)pa;
	const ant_pub_page *b = *(const ant_pub_page *const *)pb;
	int c = strcmp(ant_pub_str_or(a->group, ""), ant_pub_str_or(b->group, ""));

	return c ? c : ant_pub_cmp_listing(pa, pb);
}

/* ---- index.html --------------------------------------------------------- */

static const char css[] =
	":root{color-scheme:light dark;--fg:#222;--bg:#fff;--dim:#666;--line:#e4e4e4;"
	"--link:#0645ad;--visited:#7b3fa0;--new:#c0262d;--err:#a61b1b}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#ddd;--bg:#181818;--dim:#999;"
	"--line:#333;--link:#8ab4f8;--visited:#c58af9;--new:#ff6b6b;--err:#ff8a80}}\n"
	"body{font:16px/1.5 system-ui,-apple-system,\"Hiragino Sans\",\"Noto Sans CJK JP\","
	"sans-serif;color:var(--fg);background:var(--bg);max-width:60em;margin:0 auto;"
	"padding:0 .75em 2em}\n"
	"h1{font-size:1.4em;margin:.6em 0 0}\n"
	"h2{font-size:1.1em;margin:1.4em 0 .2em;padding-bottom:.1em;"
	"border-bottom:2px solid var(--line)}\n"
	".meta,footer{color:var(--dim);font-size:.875em}\n"
	"nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.2em 1em}\n"
	"ol{list-style:none;margin:0;padding:0}\n"
	"main li{display:flex;flex-wrap:wrap;column-gap:.75em;padding:.3em 0;"
	"border-bottom:1px solid var(--line)}\n"
	".when{flex:0 0 auto;white-space:nowrap;color:var(--dim);"
	"font-variant-numeric:tabular-nums}\n"
	"@media (min-width:40em){.when{flex-basis:14em}}\n"
	".when time,.when .t{display:inline-block;width:6.8em}\n"
	".ago{display:inline-block;width:6.6em;font-size:.8em}\n"
	".what{flex:1 1 18em;min-width:0;overflow-wrap:anywhere}\n"
	"a{color:var(--link)}a:visited{color:var(--visited)}\n"
	".by{display:inline-block;width:1.4em;text-align:center;font-size:.75em;"
	"font-weight:bold;border:1px solid var(--line);border-radius:3px;"
	"text-decoration:none;cursor:help}\n"
	".au{color:var(--dim);font-size:.875em;margin-left:.4em}\n"
	".new time{color:var(--new);font-weight:600}\n"
	".badge{color:#fff;background:var(--new);border-radius:3px;font-size:.7em;"
	"font-weight:bold;padding:0 .35em;margin-left:.4em;vertical-align:.15em}\n"
	".err .when,.undated .when{opacity:.7}.error{color:var(--err);margin-left:.4em}\n"
	".unknown{color:var(--dim);margin-left:.4em}\n"
	"dl{display:grid;grid-template-columns:auto 1fr;gap:.1em .6em}dd{margin:0}\n"
	".what .p-name{display:-webkit-box;-webkit-line-clamp:3;line-clamp:3;"
	"-webkit-box-orient:vertical;overflow:hidden}\n"
	".ex{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;"
	"overflow:hidden;color:var(--dim);font-size:.875em;overflow-wrap:anywhere}\n";

/*
 * The writers below do not check every fputs(): a write error sticks to
 * the stream, and ant_pub_close_out() checks ferror() once before the rename, so
 * a failed write never replaces the old file.  LB_ENOMEM from them
 * means out of memory, LB_EIO an early write error.
 */
typedef struct html_ctx {
	FILE *fp;
	const ant_pub_site *site;
	int64_t now;
	lb_buf url;      /* scratch for the ?MMDDHHMM link */
	char off[8];   /* tz_offset() of the display zone, "" until needed */
	const struct pub_words *w;   /* the site's language */
	size_t page_no;  /* 1: index.html, N: index-N.html */
	int paged;       /* the site has more than one HTML file */
	int has_next;    /* index-(page_no + 1).html follows */
	size_t more;     /* the last file of a capped site: the pages not listed */
} html_ctx;

/* A count into a word with a "%" (words_tab's pages, nnew): the text before
 * it, the count, the text after it, escaped; b is scratch. */
static void put_count(FILE *fp, lb_buf *b, const char *word, size_t n)
{
	const char *pct = strchr(word, '%');

	if (!pct) {
		ant_html_fputs(fp, word);
		return;
	}
	lb_buf_reset(b);
	if (lb_buf_add(b, word, (size_t)(pct - word)) < 0 || lb_buf_addf(b, "%zu", n) < 0 ||
	    lb_buf_adds(b, pct + 1) < 0)
		return;
	ant_html_fputs(fp, b->data);
}

/* "+09:00"; time zones are within a day of UTC (LIRS 2.1 §3.3 allows
 * -12 h..+14 h), anything else is shown modulo a day. */
static const char *tz_offset(int64_t tz, char buf[8])
{
	int m = (int)((tz < 0 ? -tz : tz) % 86400 / 60);

	snprintf(buf, 8, "%c%02d:%02d", tz < 0 ? '-' : '+', m / 60 % 100, m % 60);
	return buf;
}

static const char *tz_name(int64_t tz, char buf[12])
{
	char off[8];

	if (tz == ANT_TZ_JST)
		return "JST";
	snprintf(buf, 12, "UTC%s", tz_offset(tz, off));
	return buf;
}

/* <time datetime="2024-05-06T12:34:00+09:00">05/06 12:34</time> */
static void put_time(html_ctx *h, int64_t t)
{
	int64_t tz = h->site->display_tz;
	char shown[16], off[8], dt[20];
	lb_tm tm;

	if (t == 0 || ant_pub_to_tm(t, tz, &tm) < 0) {
		fputs("<span class=\"t\">--/-- --:--</span>", h->fp);
		return;
	}
	ant_pub_shown_tm(shown, &tm);
	if (lb_date_iso(dt, &tm) < 0) {   /* not a 4-digit year */
		fprintf(h->fp, "<time class=\"dt-updated\" datetime=\"%04lld-%02d-%02dT%02d:%02d:%02d%s\">%s</time>",
			(long long)tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec,
			tz_offset(tz, off), shown);
		return;
	}
	if (!h->off[0])   /* perf: one snprintf() per listing, not per page */
		tz_offset(tz, h->off);
	fputs("<time class=\"dt-updated\" datetime=\"", h->fp);
	fputs(dt, h->fp);
	fputs(h->off, h->fp);
	fputs("\">", h->fp);
	fputs(shown, h->fp);
	fputs("</time>", h->fp);
}

static int detect_index(const char *by)
{
	size_t i;

	for (i = 0; by && i < NDETECT; i++)
		if (strcmp(by, detect_tab[i].by) == 0)
			return (int)i;
	return LB_ENOTFOUND;   /* no marker: an unknown or no rule */
}

/* The title, linked only when the URL is http(s): a "javascript:" URL
 * from a hostile LIRS source must stay text. */
static int put_title(html_ctx *h, const ant_pub_page *p, int dated)
{
	const char *url = ant_pub_str_or(p->url, "");

	if (!lb_url_is_http(url)) {
		fputs("<span class=\"nolink p-name\">", h->fp);
		ant_html_fputs(h->fp, shown_title(p));
		return fputs("</span>", h->fp) < 0 ? LB_EIO : 0;
	}
	lb_buf_reset(&h->url);
	if (dated && h->site->visited_query) {
		if (ant_pub_visited_url(&h->url, url, p->last_modified,
				    h->site->display_tz) < 0)
			return LB_ENOMEM;
		url = h->url.data;
	}
	fputs("<a class=\"p-name u-url\" href=\"", h->fp);
	ant_html_fputs(h->fp, url);
	fputs("\">", h->fp);
	ant_html_fputs(h->fp, shown_title(p));
	return fputs("</a>", h->fp) < 0 ? LB_EIO : 0;
}

/* "new": the update happened within the window (site->new_window: what a
 * visitor reads as new, whatever the runs in between found), or it was
 * found since the previous publish, not "happened" after it: from cron, a
 * check on a later run finds an update too late. */
static int is_new(const ant_pub_site *s, const ant_pub_page *p)
{
	if (in_tail(p))
		return 0;
	if (s->new_window > 0 && p->last_modified > s->now - s->new_window)
		return 1;
	if (!s->prev_publish)
		return 0;
	return p->found ? p->found > 0 : p->last_modified > s->prev_publish;
}

static int put_page(html_ctx *h, const ant_pub_page *p)
{
	int tail = in_tail(p);
	int isnew = is_new(h->site, p);
	int d = detect_index(p->detected_by), rc;
	char ago[48];

	/* microformats2: each row an h-entry of the page's h-feed */
	/* red for a failure; no known update time is no failure: grey */
	fputs(tail && p->last_error ? "<li class=\"h-entry err\"" : tail ? "<li class=\"h-entry undated\"" :
	      isnew ? "<li class=\"h-entry new\"" : "<li class=\"h-entry\"", h->fp);
	fputs("><span class=\"when\">", h->fp);
	put_time(h, tail ? 0 : p->last_modified);
	if (!tail) {
		ant_pub_format_ago(ago, sizeof ago, h->now, p->last_modified, h->w->lang);
		fputs(" <span class=\"ago\">", h->fp);
		ant_html_fputs(h->fp, ago);
		fputs("</span>", h->fp);
		if (d >= 0) {   /* the legend below says what the marker means */
			fputs(" <abbr class=\"by\">", h->fp);
			fputs(detect_tab[d].mark, h->fp);
			fputs("</abbr>", h->fp);
		}
	}
	fputs("</span> <span class=\"what\">", h->fp);
	if ((rc = put_title(h, p, !tail)) < 0)
		return rc;
	if (p->author && *p->author) {
		fputs(" <span class=\"au p-author\">", h->fp);
		ant_html_fputs(h->fp, p->author);
		fputs("</span>", h->fp);
	}
	if (isnew) {
		fputs(" <span class=\"badge\">", h->fp);
		ant_html_fputs(h->fp, h->w->badge);
		fputs("</span>", h->fp);
	}
	if (!tail && p->excerpt && *p->excerpt) {   /* what the update added */
		fputs(" <span class=\"ex p-summary\">", h->fp);
		ant_html_fputs(h->fp, p->excerpt);
		fputs("</span>", h->fp);
	}
	if (!tail && p->diff) {   /* its diff page (publish_diff.c) */
		fputs(" <a class=\"diff\" href=\"", h->fp);
		ant_html_fputs(h->fp, p->diff);
		fputs("\">", h->fp);
		ant_html_fputs(h->fp, ant_pub_diff_word(h->w->lang));
		fputs("</a>", h->fp);
	}
	if (p->last_error && ant_robots_excluded(p->fail_kind)) {   /* not fetched: the site's wish */
		fputs(" <span class=\"error\">", h->fp);
		ant_html_fputs(h->fp, h->w->robots);
		fputs("</span>", h->fp);
	} else if (p->last_error) {
		char phrase[128];
		const char *e = ant_pub_error_phrase(phrase, sizeof phrase, p->fail_kind,
						     ant_pub_str_or(p->last_error, "error"),
						     h->w->lang);
		int bracketed = e[0] == '[';

		fputs(" <span class=\"error\">", h->fp);
		fputs(bracketed ? "" : "[", h->fp);
		ant_html_fputs(h->fp, e);
		fputs(bracketed ? "" : "]", h->fp);
		fputs("</span>", h->fp);
	} else if (p->last_modified == 0) {
		fputs(" <span class=\"unknown\">", h->fp);
		ant_html_fputs(h->fp, p->last_detected ? h->w->no_update : h->w->not_checked);
		fputs("</span>", h->fp);
	}
	return fputs("</span></li>\n", h->fp) < 0 ? LB_EIO : 0;
}

static void put_head(html_ctx *h, size_t n, size_t nnew)
{
	const ant_pub_site *s = h->site;
	const char *title = ant_pub_str_or(s->title, "Antenna");
	char tzb[12], shown[16];

	fputs("<!DOCTYPE html>\n<html lang=\"", h->fp);
	ant_html_fputs(h->fp, h->w->lang);
	fputs("\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"lirs-antenna " LIRS_VERSION "\">\n<title>",
	      h->fp);
	ant_html_fputs(h->fp, title);
	fputs("</title>\n"
	      "<link rel=\"alternate\" type=\"application/atom+xml\" href=\"index.atom\" title=\"Atom\">\n"
	      "<link rel=\"alternate\" type=\"application/feed+json\" href=\"feed.json\" title=\"JSON Feed\">\n"
	      "<link rel=\"alternate\" type=\"application/x-lirs\" href=\"lirs.gz\" title=\"LIRS\">\n"
	      "<style>\n", h->fp);
	fputs(css, h->fp);
	fputs("</style>\n</head>\n<body class=\"h-feed\">\n<header>\n<h1 class=\"p-name\">", h->fp);
	ant_html_fputs(h->fp, title);
	ant_pub_format_time(shown, sizeof shown, h->now, s->display_tz);
	fputs("</h1>\n<p class=\"meta\">", h->fp);
	ant_html_fputs(h->fp, h->w->updated);
	fprintf(h->fp, " %s %s · ", shown, tz_name(s->display_tz, tzb));
	if (h->page_no > 1)   /* the total is known only when index.html is written */
		put_count(h->fp, &h->url, h->w->page_no, h->page_no);
	else
		put_count(h->fp, &h->url, n == 1 ? h->w->page_one : h->w->pages, n);
	if (s->prev_publish || s->new_window > 0) {   /* the same on every file */
		fputs(" · ", h->fp);
		put_count(h->fp, &h->url, h->w->nnew, nnew);
	}
	fputs("</p>\n</header>\n", h->fp);
}

/* Table of contents: one link per group, in page order; the pages of no
 * group (first) under their own heading. */
static void put_nav(html_ctx *h, const ant_pub_page **v, size_t n)
{
	size_t i, g = 0;

	fputs("<nav aria-label=\"", h->fp);
	ant_html_fputs(h->fp, h->w->contents);
	fputs("\"><ul>\n", h->fp);
	for (i = 0; i < n; i++) {
		const char *grp = ant_pub_str_or(v[i]->group, "");

		if (i && strcmp(grp, ant_pub_str_or(v[i - 1]->group, "")) == 0)
			continue;
		if (!*grp) {
			fputs("<li><a href=\"#g0\">", h->fp);
			ant_html_fputs(h->fp, h->w->ungrouped);
			fputs("</a></li>\n", h->fp);
			continue;
		}
		fprintf(h->fp, "<li><a href=\"#g%zu\">", ++g);
		ant_html_fputs(h->fp, grp);
		fputs("</a></li>\n", h->fp);
	}
	fputs("</ul></nav>\n", h->fp);
}

static void put_foot(html_ctx *h)
{
	size_t i;

	fputs("<footer>\n<dl>\n", h->fp);
	for (i = 0; i < NDETECT; i++) {
		fputs("<dt><abbr class=\"by\">", h->fp);
		fputs(detect_tab[i].mark, h->fp);
		fputs("</abbr></dt><dd>", h->fp);
		ant_html_fputs(h->fp, h->w->legend[i]);
		fputs("</dd>\n", h->fp);
	}
	fputs("</dl>\n<p>", h->fp);
	ant_html_fputs(h->fp, h->w->times);
	fputs(" <a href=\"lirs.gz\">LIRS</a> · <a href=\"index.atom\">Atom</a>", h->fp);
	if (h->site->author && *h->site->author) {
		fputs(" · ", h->fp);
		ant_html_fputs(h->fp, h->site->author);
	}
	fputs("</p>\n</footer>\n", h->fp);
}

/* "index.html" for page 1, else "index-N.html", into buf */
static const char *page_name(char *buf, size_t len, size_t no)
{
	if (no <= 1)
		snprintf(buf, len, "index.html");
	else
		snprintf(buf, len, "index-%zu.html", no);
	return buf;
}

/* The links to the newer and the older page, in a site of several
 * files: plain links, the only way on without JavaScript. */
static void put_pager(html_ctx *h)
{
	char name[48];

	if (!h->paged)
		return;
	fputs("<nav class=\"pager\" aria-label=\"", h->fp);
	ant_html_fputs(h->fp, h->w->pager);
	fputs("\"><ul>\n", h->fp);
	if (h->page_no > 1) {
		fprintf(h->fp, "<li><a rel=\"prev\" href=\"%s\">",
			page_name(name, sizeof name, h->page_no - 1));
		ant_html_fputs(h->fp, h->w->newer);
		fputs("</a></li>\n", h->fp);
	}
	if (h->has_next) {
		fprintf(h->fp, "<li><a rel=\"next\" href=\"%s\">",
			page_name(name, sizeof name, h->page_no + 1));
		ant_html_fputs(h->fp, h->w->older);
		fputs("</a></li>\n", h->fp);
	}
	fputs("</ul></nav>\n", h->fp);
}

/* The last file of a site past its cap (ANT_PUB_HTML_PAGES) says where
 * the pages it does not list are: lirs.gz has every fresh update, the
 * Atom archives (reached from index.atom) the record of updates. */
static void put_more(html_ctx *h)
{
	if (!h->more)
		return;
	fputs("<p class=\"more\">", h->fp);
	put_count(h->fp, &h->url, h->w->more[0], h->more);
	fputs(" ", h->fp);
	ant_html_fputs(h->fp, h->w->more[1]);
	fputs(" <a href=\"lirs.gz\">lirs.gz</a> (LIRS; <a href=\"sites.di.gz\">sites.di.gz</a>,"
	      " HINA-DI) ", h->fp);
	ant_html_fputs(h->fp, h->w->more[2]);
	fputs(" <a href=\"index.atom\">index.atom</a>", h->fp);
	ant_html_fputs(h->fp, h->w->more[3]);
	fputs("</p>\n", h->fp);
}

/* One HTML file: v[0..n) sorted by cmp_html; total and nnew of the
 * whole site, for index.html's header. */
static int put_body(html_ctx *h, const ant_pub_page **v, size_t n, size_t total, size_t nnew)
{
	size_t i, g = 0;
	int grouped = n && *ant_pub_str_or(v[n - 1]->group, ""), rc;  /* "" sorts first */

	put_head(h, total, nnew);
	if (grouped)
		put_nav(h, v, n);
	put_pager(h);
	fputs("<main>\n", h->fp);
	for (i = 0; i < n; i++) {
		const char *grp = ant_pub_str_or(v[i]->group, "");
		int first = !i || strcmp(grp, ant_pub_str_or(v[i - 1]->group, "")) != 0;

		if (first && i)
			fputs("</ol>\n</section>\n", h->fp);
		if (first && *grp) {
			fprintf(h->fp, "<section id=\"g%zu\">\n<h2>", ++g);
			ant_html_fputs(h->fp, grp);
			fputs("</h2>\n<ol>\n", h->fp);
		} else if (first && grouped) {   /* the pages of no group, before the groups */
			fputs("<section id=\"g0\">\n<h2>", h->fp);
			ant_html_fputs(h->fp, h->w->ungrouped);
			fputs("</h2>\n<ol>\n", h->fp);
		} else if (first) {
			fputs("<section>\n<ol>\n", h->fp);
		}
		if ((rc = put_page(h, v[i])) < 0)
			return rc;
	}
	if (n)
		fputs("</ol>\n</section>\n", h->fp);
	else {
		fputs("<p>", h->fp);
		ant_html_fputs(h->fp, h->w->no_pages);
		fputs(" <code>antenna add URL</code></p>\n", h->fp);
	}
	fputs("</main>\n", h->fp);
	put_more(h);
	put_pager(h);
	put_foot(h);
	return fputs("</body>\n</html>\n", h->fp) < 0 ? LB_EIO : 0;
}

/* ---- the HTML files, a bounded number of entries each ------------------- */

/* What one HTML file lists: its own copies of the pages (each page's
 * strings in one block that starts at its url, freed through it). */
struct slice {
	ant_pub_page *v;
	size_t n, cap;
	size_t bytes;    /* an upper bound of what its entries and groups take */
	const char *last_group;
};

struct pager {
	html_ctx h;
	const char *dir;
	size_t limit, budget;
	struct slice front, prev, cur;   /* index.html (written last), the file
					    waiting to know if one follows, the
					    one being filled */
	size_t done;     /* slices completed */
	size_t total, nnew;   /* of the whole site (count_new()) */
	size_t listed;   /* pages in the files */
	size_t max_files;   /* ANT_PUB_HTML_PAGES */
	ant_pub_page **top;   /* the first pages of the listing, kept by the
				 counting pass (a heap, the last at [0]) */
	size_t ntop, maxtop;
	FILE *meas;      /* put_page() into memory, to measure an entry */
	char *measbuf;
	size_t measlen;
	ant_pub_staged staged;   /* the files written, renamed when all are */
	lb_error *err;
};

/* Room for the head, the style sheet, the footer and the pager links:
 * about 5 KB, with margin. */
#define PAGE_FIXED_BYTES 16384

static size_t slen(const char *p)
{
	return p ? strlen(p) + 1 : 0;
}

static char *put_str(char **at, const char *p)
{
	char *r = *at;

	if (!p)
		return NULL;
	memcpy(r, p, strlen(p) + 1);
	*at += strlen(p) + 1;
	return r;
}

/* A copy of p whose strings are in one malloc'd block at ->url. */
static int page_dup(ant_pub_page *d, const ant_pub_page *p)
{
	const char *url = ant_pub_str_or(p->url, "");
	char *blk, *at;

	blk = malloc(slen(url) + slen(p->title) + slen(p->author) + slen(p->group) +
		     slen(p->detected_by) + slen(p->source_url) + slen(p->last_error) +
		     slen(p->excerpt) + slen(p->diff));
	if (!(at = blk))
		return LB_ENOMEM;
	*d = *p;
	d->url = put_str(&at, url);
	d->title = put_str(&at, p->title);
	d->author = put_str(&at, p->author);
	d->group = put_str(&at, p->group);
	d->detected_by = put_str(&at, p->detected_by);
	d->source_url = put_str(&at, p->source_url);
	d->last_error = put_str(&at, p->last_error);
	d->excerpt = put_str(&at, p->excerpt);
	d->diff = put_str(&at, p->diff);
	return 0;
}

static void slice_clear(struct slice *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((char *)s->v[i].url);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* The bytes p's entry takes, rendered; a group heading, when the group
 * differs from the entry before it, is counted in full (in the table of
 * contents and the heading): more than the file will hold, never less. */
static int entry_bytes(struct pager *pg, const ant_pub_page *p, size_t *bytes)
{
	FILE *keep = pg->h.fp;
	const char *grp = ant_pub_str_or(p->group, "");
	long n;

	rewind(pg->meas);
	pg->h.fp = pg->meas;
	if (put_page(&pg->h, p) < 0)
		n = -1;
	else {
		if (*grp && (!pg->cur.last_group || strcmp(grp, pg->cur.last_group) != 0)) {
			ant_html_fputs(pg->meas, grp);
			ant_html_fputs(pg->meas, grp);
			fputs("<li><a href=\"#g0000000\"></a></li>\n<section id=\"g0000000\">\n"
			      "<h2></h2>\n<ol>\n</ol>\n</section>\n", pg->meas);
		}
		n = fflush(pg->meas) == 0 ? ftell(pg->meas) : -1;
	}
	pg->h.fp = keep;
	if (n < 0)
		return LB_ENOMEM;   /* the measure is a memory stream */
	*bytes = (size_t)n;
	return 0;
}

/* Writes DIR/index-N.html (index.html for 1) listing s's pages, staged:
 * renamed by pager_finish() when every file is written. */
static int write_file(struct pager *pg, struct slice *s, size_t no, int has_next)
{
	const ant_pub_page **v = malloc((s->n ? s->n : 1) * sizeof *v);
	char name[48], *path = NULL;
	lb_afile f;
	int rc;

	if (!v)
		return lb_err_code(pg->err, LB_ENOMEM);
	for (size_t i = 0; i < s->n; i++)
		v[i] = &s->v[i];
	qsort(v, s->n, sizeof *v, cmp_html);
	pg->h.page_no = no;
	pg->h.has_next = has_next;
	pg->h.more = !has_next ? pg->total - pg->listed : 0;
	rc = ant_pub_open_out(&f, pg->dir, page_name(name, sizeof name, no), &path, pg->err);
	if (rc == 0) {
		pg->h.fp = f.fp;
		errno = 0;
		rc = put_body(&pg->h, v, s->n, pg->total, pg->nnew);
		if (rc < 0 && !ferror(f.fp))
			lb_err_code(pg->err, rc);
		if (rc < 0 || ferror(f.fp))
			rc = ant_pub_close_out(&f, 0, path, pg->err);   /* removed, with the reason */
		else
			rc = ant_pub_stage_close(&pg->staged, &f, path, pg->err);
	}
	free(path);
	free(v);
	return rc;
}

/* The slice being filled is complete and another follows: the one
 * before it can be written now, knowing a next one exists. */
static int next_slice(struct pager *pg)
{
	int rc = 0;

	pg->h.paged = 1;
	if (pg->done == 0)
		pg->front = pg->cur;
	else {
		if (pg->done >= 2)
			rc = write_file(pg, &pg->prev, pg->done, 1);
		slice_clear(&pg->prev);
		pg->prev = pg->cur;
	}
	memset(&pg->cur, 0, sizeof pg->cur);
	pg->done++;
	return rc;
}

/* pager_add()'s "the last file is full": a positive return stops the pages. */
#define PAGER_FULL 1

/* ant_pub_fn: one page into the file being filled */
static int pager_add(void *ctx, const ant_pub_page *p)
{
	struct pager *pg = ctx;
	struct slice *c = &pg->cur;
	ant_pub_page *nv;
	size_t bytes;
	int rc;

	if (entry_bytes(pg, p, &bytes) < 0)
		return lb_err_code(pg->err, LB_ENOMEM);
	if (c->n && (c->n >= pg->limit || c->bytes + bytes > pg->budget)) {
		if (pg->done + 1 >= pg->max_files)
			return PAGER_FULL;   /* nobody reads index-1000.html */
		if ((rc = next_slice(pg)) < 0)
			return rc;
		if (entry_bytes(pg, p, &bytes) < 0)   /* a new file: its first group heading */
			return lb_err_code(pg->err, LB_ENOMEM);
	}
	if (!(nv = lb_grow(c->v, &c->cap, c->n + 1, sizeof *nv, 64)))
		return lb_err_code(pg->err, LB_ENOMEM);
	c->v = nv;
	if (page_dup(&c->v[c->n], p) < 0)
		return lb_err_code(pg->err, LB_ENOMEM);
	c->last_group = ant_pub_str_or(c->v[c->n].group, "");
	c->n++;
	c->bytes += bytes;
	pg->listed++;
	return 0;
}

/* ant_pub_fn: the first pass, counting the "new" marks, so that every HTML
 * file, written as the second pass goes, heads the same count as the
 * marks of the whole site. */
static int count_new(void *ctx, const ant_pub_page *p)
{
	struct pager *pg = ctx;

	pg->total++;
	pg->nnew += is_new(pg->h.site, p);
	return 0;
}

/* The heap of pg->top (ant_pub_cmp_listing: the one listed last at [0]):
 * top[i] moved down to its place. */
static void top_down(struct pager *pg, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		ant_pub_page *x;

		if (l < pg->ntop && ant_pub_cmp_listing(&pg->top[l], &pg->top[m]) > 0)
			m = l;
		if (r < pg->ntop && ant_pub_cmp_listing(&pg->top[r], &pg->top[m]) > 0)
			m = r;
		if (m == i)
			return;
		x = pg->top[i], pg->top[i] = pg->top[m], pg->top[m] = x;
		i = m;
	}
}

static void top_up(struct pager *pg, size_t i)
{
	while (i && ant_pub_cmp_listing(&pg->top[i], &pg->top[(i - 1) / 2]) > 0) {
		ant_pub_page *x = pg->top[i];

		pg->top[i] = pg->top[(i - 1) / 2], pg->top[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

/* ant_pub_fn: counting, in any order, and keeping the maxtop pages listed
 * first: one pass over the pages, not a count and a sorted listing. */
static int count_keep(void *ctx, const ant_pub_page *p)
{
	struct pager *pg = ctx;
	ant_pub_page *c, *q = (ant_pub_page *)p;

	count_new(ctx, p);
	if (pg->ntop == pg->maxtop && ant_pub_cmp_listing(&q, &pg->top[0]) >= 0)
		return 0;   /* listed after all of them */
	if (!(c = malloc(sizeof *c)) || page_dup(c, p) < 0) {
		free(c);
		return lb_err_code(pg->err, LB_ENOMEM);
	}
	if (pg->ntop == pg->maxtop) {
		free((char *)pg->top[0]->url);
		free(pg->top[0]);
		pg->top[0] = c;
		top_down(pg, 0);
	} else {
		pg->top[pg->ntop++] = c;
		top_up(pg, pg->ntop - 1);
	}
	return 0;
}

static void top_free(struct pager *pg)
{
	while (pg->ntop) {
		ant_pub_page *c = pg->top[--pg->ntop];

		free((char *)c->url);
		free(c);
	}
	free(pg->top);
}

/* The pages, counted and listed: with the files' cap at most ANT_PUB_TOP_MAX
 * pages, in one pass (the first kept in memory); above, in two, the
 * second sorted by SQLite. */
#define ANT_PUB_TOP_MAX 100000
static int list_pages(struct pager *pg, const ant_pub_src *src, lb_error *err)
{
	size_t i;
	int rc;

	pg->maxtop = pg->max_files * pg->limit;
	if (pg->maxtop / pg->limit != pg->max_files || pg->maxtop > ANT_PUB_TOP_MAX) {
		rc = src->each(src->ctx, ANT_PUB_ANY, count_new, pg, err);
		if (rc == 0)
			rc = src->each(src->ctx, ANT_PUB_LISTING, pager_add, pg, err);
		return rc == PAGER_FULL ? 0 : rc;
	}
	if (!(pg->top = malloc((pg->maxtop ? pg->maxtop : 1) * sizeof *pg->top)))
		return lb_err_code(err, LB_ENOMEM);
	if ((rc = src->each(src->ctx, ANT_PUB_ANY, count_keep, pg, err)) != 0)
		return rc;
	qsort(pg->top, pg->ntop, sizeof *pg->top, ant_pub_cmp_listing);
	for (i = 0, rc = 0; i < pg->ntop && rc == 0; i++)
		rc = pager_add(pg, pg->top[i]);
	return rc == PAGER_FULL ? 0 : rc;
}

/* index-N.html beyond the last one written (a bigger site's, before):
 * removed, so no link or bookmark finds pages that are not the site's. */
static void remove_stale(const char *dir, size_t last)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096], tail[8];
	size_t no;

	while (d && (e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "index-%zu.htm%7s", &no, tail) != 2 ||
		    strcmp(tail, "l") != 0 || no <= last)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

/* After the last page: the last files, index.html (now that the totals
 * are known) last of all. */
static int pager_finish(struct pager *pg)
{
	size_t last = pg->done + 1;
	int rc = 0;

	if (pg->done == 0) {
		rc = write_file(pg, &pg->cur, 1, 0);
		last = 1;
	} else {
		if (pg->done >= 2)
			rc = write_file(pg, &pg->prev, pg->done, 1);
		if (rc == 0)
			rc = write_file(pg, &pg->cur, last, 0);
		if (rc == 0)
			rc = write_file(pg, &pg->front, 1, 1);
	}
	if (rc == 0)
		rc = ant_pub_stage_commit(&pg->staged, pg->err);
	if (rc == 0)
		remove_stale(pg->dir, last);
	return rc;
}

int ant_publish_html_src(const char *dir, const ant_pub_site *site, const ant_pub_src *src,
			 lb_error *err)
{
	struct pager pg = { .h = { NULL, site, site->now ? site->now : (int64_t)time(NULL),
				   LB_BUF_INIT, "", words_of(site->lang), 1, 0, 0 },
			    .dir = dir, .err = err };
	size_t bytes = site->page_bytes ? site->page_bytes : ANT_PUB_PAGE_BYTES;
	int rc;

	lb_error_clear(err);
	pg.limit = site->page_limit ? site->page_limit : ANT_PUB_PAGE_LIMIT;
	pg.max_files = site->html_pages ? site->html_pages : ANT_PUB_HTML_PAGES;
	pg.budget = bytes > 2 * PAGE_FIXED_BYTES ? bytes - PAGE_FIXED_BYTES : bytes / 2;
	if (!(pg.meas = open_memstream(&pg.measbuf, &pg.measlen)))
		return lb_err_code(err, LB_ENOMEM);
	rc = list_pages(&pg, src, err);
	if (rc == 0)
		rc = pager_finish(&pg);
	else if (rc > 0)
		rc = lb_err_code(err, LB_ENOMEM);
	if (rc == 0 && site->html_counts)
		*site->html_counts = (ant_pub_html_counts){ pg.total, pg.done + 1, pg.listed };
	ant_pub_stage_release(&pg.staged);   /* a failed publish's temporary files */
	fclose(pg.meas);
	free(pg.measbuf);
	top_free(&pg);
	slice_clear(&pg.front);
	slice_clear(&pg.prev);
	slice_clear(&pg.cur);
	lb_buf_release(&pg.h.url);
	return rc;
}
