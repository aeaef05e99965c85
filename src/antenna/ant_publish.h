/*
 * ant_publish.h: the antenna's static site: index.html, lirs.gz,
 * sites.di.gz and the Atom bridge, each written atomically (lb_afile.h).
 * The file writers (publish.c) take a plain array of page views, so they
 * know nothing of SQL or HTTP; ant_publish_site() (publish_site.c) writes
 * the whole site from the database.
 */
#ifndef ANT_PUBLISH_H
#define ANT_PUBLISH_H

#include "ant_settings.h"   /* the defaults */
#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "ant_store.h"

typedef struct ant_pub_page {
	const char *url;
	const char *title;        /* "" when unknown: the URL is shown */
	const char *author;       /* "" when unknown */
	const char *group;        /* "" = no group */
	int64_t last_modified;    /* 0 = no known update */
	int64_t last_detected;    /* time of the last successful check, 0 = never */
	int64_t tz_offset;        /* the page's own, for lirs.gz */
	int64_t content_length;
	const char *detected_by;  /* "header", "text", "size", "lirs", "feed", "atom" or "" */
	const char *source_url;   /* the page itself, or the relaying LIRS source */
	const char *last_error;   /* NULL when the last check succeeded */
	const char *excerpt;      /* what the last update added; NULL or "" = none */
	int found;                /* when the update was found: 1 since the
				     previous publish, -1 before it, 0 unknown (then
				     last_modified after prev_publish says "new") */
	const char *diff;         /* its diff page, "diff/NAME.html" (ant_pubdiff.h), or NULL */
	ant_fail_kind fail_kind;  /* last_error's kind (ant_outcome.h): what decides
				     the phrase shown; ANT_FAIL_NONE: last_error as it is */
} ant_pub_page;

typedef struct ant_pub_site {
	const char *title;        /* the antenna's name */
	const char *base;         /* absolute URL where DIR is served, for links in feeds */
	const char *author;
	int64_t now;              /* publish time */
	int64_t prev_publish;     /* 0: the first publish, nothing is marked new */
	int64_t display_tz;       /* seconds east of UTC for MM/DD HH:MM (JST = ANT_TZ_JST, ant_settings.h) */
	int visited_query;        /* append ?MMDDHHMM to links (default on) */
	int64_t max_age;          /* freshness for lirs.gz, 0 = LIRS_DEFAULT_MAX_AGE */
	int lirs_euc_jp_ms;       /* lirs.gz in EUC-JP-MS (vendor codes), not strict EUC-JP */
	struct ant_pub_lirs_counts *lirs_counts;   /* when set, receives lirs.gz's counts */
	const char *lang;         /* index.html's language: "ja" (NULL: the default)
				     or "en" (antenna init --lang) */
	size_t page_limit;        /* entries in index.html and each index-N.html;
				     0 = ANT_PUB_PAGE_LIMIT */
	size_t page_bytes;        /* bytes of each HTML file at most; 0 = ANT_PUB_PAGE_BYTES */
	size_t html_pages;        /* HTML files at most; 0 = ANT_PUB_HTML_PAGES */
	struct ant_pub_html_counts *html_counts;  /* when set, receives what the HTML holds */
	int64_t new_window;       /* seconds: an update this recent is "new"; 0 =
				     only those found since the previous publish */
} ant_pub_site;


/*
 * index.html stays small at any size: it lists the page_limit most recent
 * updates (a phone opens 1,000 entries, about 400 KB, at once; 100,000
 * were 37 MB), grouped as always; the rest follow in the same order in
 * index-2.html, index-3.html, ..., each with the same layout, linked
 * "newer"/"older" in a chain from index.html.  A file also ends before
 * page_bytes, whatever its titles and URLs (up to ANT_MAX_URL bytes each).
 * A site of at most page_limit pages gets one index.html, without links.
 */
#define ANT_PUB_PAGE_BYTES 1000000
/*
 * And the files are capped: index.html and index-2.html to
 * index-(html_pages).html, the 10,000 most recent updates by default
 * (nobody reads index-1000.html); the last file says how many pages it
 * does not list and links lirs.gz (every fresh update) and index.atom
 * (the archives).  index-N.html beyond the cap are removed.
 */
typedef struct ant_pub_html_counts {
	size_t pages;             /* the site's pages (listed or not) */
	size_t files;             /* index.html and the index-N.html */
	size_t listed;            /* the pages the files list */
} ant_pub_html_counts;

/* ---- a stream of pages (the writers read the database a row at a time) ---- */
enum {
	ANT_PUB_LISTING = 0,      /* every page: dated ones without an error newest
				     first (ties by shown title, then URL), then
				     the rest by shown title, then URL */
	ANT_PUB_FRESH = 1,        /* the fresh ones only (lirs.gz's rule), newest
				     first, ties by URL */
	ANT_PUB_ANY = 2           /* every page, in any order (counting) */
};
typedef int (*ant_pub_fn)(void *ctx, const ant_pub_page *p);
typedef struct ant_pub_src {
	/* calls fn for each page in order (borrowed, valid during the call);
	 * a nonzero return from fn stops it and is returned */
	int (*each)(void *src_ctx, int order, ant_pub_fn fn, void *ctx, lb_error *err);
	void *ctx;
} ant_pub_src;
/* The writers below, reading from a stream; the array forms wrap these. */
int ant_publish_html_src(const char *dir, const ant_pub_site *site, const ant_pub_src *src,
			 lb_error *err);
/* lirs.gz and sites.di.gz in one pass over src (one query, not two) */
int ant_publish_records_src(const char *dir, const ant_pub_site *site, const ant_pub_src *src,
			    lb_error *err);

/* index.html's languages: one table of words each (the default:
 * ANT_PUB_LANG_DEFAULT, ant_settings.h). */
/* 1 when lang is one of them ("ja", "en"). */
int ant_pub_lang_known(const char *lang);
/* How an update was detected (by: "header", "text", "size", "lirs",
 * "feed", "atom") in index.html's words for lang, its legend's; NULL for
 * another by. */
const char *ant_pub_detect_words(const char *lang, const char *by);

/* What ant_publish_lirs() wrote that is not exactly the page's text (lirs(5),
 * "Writing EUC-JP"): the writer's counts. */
typedef struct ant_pub_lirs_counts {
	unsigned long replaced;       /* as U+3013 */
	unsigned long approximated;   /* as a look-alike */
	unsigned long substituted;    /* vendor characters as readable forms */
	unsigned long too_long;       /* records left out: a line a reader would skip */
} ant_pub_lirs_counts;

/*
 * Writes DIR/index.html (DIR is created when missing).  Returns 0, or a
 * negative code (LB_EIO with errno in err->sys, LB_ENOMEM) with a message
 * in err; on failure the old file is untouched.
 *   order: pages without a group first (headed "グループなし"/"Ungrouped"
 *     when there are groups), then one section per group, groups
 *     by name (byte order); in each, dated pages newest first (ties by
 *     title, then URL), then pages with no known update or whose last check
 *     failed, shown as "--/-- --:--" with the error ("[404 Not Found]");
 *   the words around the titles in site->lang (Japanese by default);
 *   each line: MM/DD HH:MM in display_tz, "N min/h/d ago", the detection
 *     marker H (header), T (text), S (size), L (LIRS), F (feed), A (Atom
 *     source) with a legend, the title (the URL when empty) linked only
 *     for http(s) URLs, the author, the excerpt of what changed;
 *   "new": last_modified within new_window of now, or found since the
 *     previous publish (ant_pub_page.found; when it is unknown,
 *     last_modified after prev_publish; nothing when prev_publish is 0);
 *     the count in the head of every file is the marks of the whole site;
 *   links carry ?MMDDHHMM of the update when visited_query is set;
 *   more than site->page_limit pages (or page_bytes of HTML): the most
 *   recent in index.html, the rest in DIR/index-N.html (see
 *   ANT_PUB_PAGE_LIMIT), stale index-N.html removed.
 * Every text goes through the one HTML escaper (html.h).
 */
int ant_publish_html(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
		 size_t n, lb_error *err);
/*
 * Writes DIR/lirs.gz (EUC-JP, gzip; no comment lines, for old readers):
 * every http(s) page with last_modified != 0 and last_detected within
 * max_age of now (LIRS 2.1 §4), newest first; Source URL is source_url,
 * or the page itself when that is empty; the extension field is empty.
 * Strict EUC-JP unless site->lirs_euc_jp_ms; the counts go to
 * site->lirs_counts when set.
 */
int ant_publish_lirs(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
		 size_t n, lb_error *err);
/*
 * Writes DIR/sites.di.gz: the records of lirs.gz as HINA-DI 2.1 (UTF-8,
 * gzip, CRLF, as tama wrote its sites.di.gz; lirs(5)), atomically.
 */
int ant_publish_di(const char *dir, const ant_pub_site *site, const ant_pub_page *pages,
	       size_t n, lb_error *err);

/* ---- additions (publish.c) ------------------------------------------ */

/* Zeroes *s and sets the defaults: display_tz JST, visited_query on, lang "ja". */
void ant_pub_site_defaults(ant_pub_site *s);

/* "MM/DD HH:MM" of t in tz (seconds east of UTC); "--/-- --:--" when t is
 * 0.  buf holds at least 12 bytes. */
void ant_pub_format_time(char *buf, size_t len, int64_t t, int64_t tz);
/* How long ago t was at now, in lang (NULL: "ja"): "たった今", "3分前",
 * "5時間前", "2日前"; "just now", "3 min ago", "5 h ago", "2 d ago" in
 * "en"; "" when t is 0. */
void ant_pub_format_ago(char *buf, size_t len, int64_t now, int64_t t, const char *lang);
/* The classic visited-link URL: url with "?MMDDHHMM" of t in tz appended
 * to its query ("&MMDDHHMM" when it has one), before any #fragment.
 * Appends to out unescaped; 0, or -1 when out of memory. */
int ant_pub_visited_url(lb_buf *out, const char *url, int64_t t, int64_t tz);

/* ---- the whole site from the database (publish_site.c) --------------- */
#define ANT_KEEP_DEFAULT INT64_MIN    /* ant_publish_opts: the database's */

typedef struct ant_publish_opts {
	int64_t now;              /* the time of this publish (Unix time) */
	int64_t keep_events;      /* ATOM_EVSTORE_KEEP_ALL, >= 0, or ANT_KEEP_DEFAULT */
	int64_t html_limit;       /* entries per HTML file; 0: the database's
				     (ANT_SET_HTML_LIMIT), else ANT_PUB_PAGE_LIMIT */
	int64_t html_pages;       /* HTML files at most; 0: the database's
				     (ANT_SET_HTML_PAGES), else ANT_PUB_HTML_PAGES */
	int64_t current_entries;  /* current.atom's caps; 0: the database's */
	int64_t current_bytes;    /* (ANT_SET_CURRENT_ENTRIES, ANT_SET_CURRENT_BYTES), else atom.h's */
} ant_publish_opts;

/* The diff pages of a publish (ant_pubdiff.h). */
typedef struct ant_pub_diff_counts {
	size_t listed;    /* diff pages the site has after the publish */
	size_t written;   /* of them, written by this one */
	size_t removed;   /* stale pages removed */
} ant_pub_diff_counts;

typedef struct ant_publish_result {
	size_t pages;             /* in index.html and the index-N.html */
	size_t html_files;        /* index.html and the index-N.html */
	size_t html_listed;       /* the pages they list (html_pages' cap) */
	size_t current_entries;   /* in current.atom */
	int current_capped;       /* current.atom is not complete (its caps) */
	ant_pub_lirs_counts counts;   /* what lirs.gz holds not exactly */
	int64_t keep_events;      /* the retention applied */
	/* Archives of a pruned history that DIR lacks (a new DIR): they
	 * cannot be written again (RFC 5005 §4: archives never change). */
	int64_t lost, lost_first, lost_last;
	int news;                 /* update events were found since the previous
				     publish: the feeds changed (ant_websub.h) */
	ant_pub_diff_counts diffs;   /* DIR/diff/ (ant_pubdiff.h) */
} ant_publish_result;

/*
 * Writes the site into DIR (created when missing) from the store: the
 * configuration (title, base, author, display_tz, visited_query,
 * max_age, lirs_charset, atom_page_size, keep_events, ... read through
 * ant_settings.h), the pages and the update events; then records opts->now
 * as last_publish.  index.html, lirs.gz and sites.di.gz are written by a
 * second thread on a connection of its own while this one writes the
 * Atom files; each file is replaced atomically on its own, and a failure
 * in either leaves last_publish unchanged.
 *
 * Returns 0, or LB_EIO (DIR or a file could not be written), LB_EDB,
 * LB_ENOMEM, with the message in err.  *res is filled either way (lost
 * archives only when the Atom files were written).
 */
int ant_publish_site(ant_store *s, const char *dir, const ant_publish_opts *opts,
		     ant_publish_result *res, lb_error *err);

/*
 * The feeds against the settings: their base URL and page size are fixed
 * at their first publish (RFC 5005 archives never change, and their links
 * are built from the base), so a publish after 'init --base' or
 * '--page-size' changed either is refused.  Returns 0 when they agree (or
 * nothing is published yet); LB_EINVAL when they differ, err naming both
 * values and the way out; with anew, instead, 1: the archives are
 * forgotten in the caller's transaction (atom_evstore_reseal()), and the
 * next publish writes them again under the settings: the same entries,
 * ids and archive numbers (while no event was pruned), new links.  LB_EDB,
 * LB_ENOMEM.
 */
int ant_publish_feeds_moved(ant_store *s, int anew, lb_error *err);

#endif
