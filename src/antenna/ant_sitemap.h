/*
 * ant_sitemap.h: sitemaps (sitemaps.org protocol 0.9) read as sources:
 * a <urlset> lists pages with their <lastmod>, a <sitemapindex> lists
 * other sitemaps.  The parser has no I/O: it is given a body as fetched
 * (plain XML or gzip, told by its magic bytes), decodes it piece by
 * piece (lirs_gunzip.h) into libxml2's streaming reader (xmlTextReader:
 * no tree, memory flat whatever the file's size), and hands each (loc,
 * lastmod) to a callback.  update_sitemap.c fetches, walks indexes and
 * turns a <lastmod> into a hint (ant_update.h).
 *
 * Hostile input: no network (XML_PARSE_NONET), no entity substituted, no
 * DTD loaded; a body holding a <!DOCTYPE> is refused before libxml2 reads
 * it (a sitemap has none, and entities -- a "billion laughs" -- can only
 * be declared there).  Every bound is a named limit (antenna(1) LIMITS),
 * overridable with 'antenna update --sitemap-limit NAME=N'.
 */
#ifndef ANT_SITEMAP_H
#define ANT_SITEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

/* sitemaps.org: "no more than 50,000 URLs and must be no larger than 50MB
 * (52,428,800 bytes)" uncompressed, per file (a gzip bomb stops there). */
#define ANT_SITEMAP_MAX_BYTES ((uint64_t)52428800)
#define ANT_SITEMAP_MAX_URLS 50000
/* Child sitemaps fetched per source and run (an index's <sitemap>s, and
 * theirs): a bigger site is read up to here, the rest is an error. */
#define ANT_SITEMAP_MAX_CHILDREN 1000
/* Index levels followed below the source: 2 reads an index of indexes
 * of sitemaps; a deeper one is refused. */
#define ANT_SITEMAP_MAX_DEPTH 2
/* Seconds one source's read may take, all its files. */
#define ANT_SITEMAP_MAX_SECONDS 120
/* Bad entries told per file (the rest are counted). */
#define ANT_SITEMAP_MAX_DIAGS 10

typedef struct ant_sitemap_limits {
	uint64_t max_bytes;      /* decoded bytes per file */
	int64_t max_urls;        /* <url> or <sitemap> entries per file */
	int64_t max_children;    /* child sitemaps per source and run */
	int64_t max_depth;       /* index levels below the source */
	int64_t max_seconds;     /* per source and run */
} ant_sitemap_limits;

/* The defaults above. */
void ant_sitemap_limits_init(ant_sitemap_limits *l);
/* "bytes=N", "urls=N", "children=N", "depth=N" or "seconds=N" into *l: 0,
 * or LB_EINVAL with the reason in err. */
int ant_sitemap_limit_set(ant_sitemap_limits *l, const char *spec, lb_error *err);

typedef enum {
	ANT_SITEMAP_UNKNOWN = 0,
	ANT_SITEMAP_URLSET,      /* <urlset>: pages */
	ANT_SITEMAP_INDEX,       /* <sitemapindex>: sitemaps */
} ant_sitemap_kind;

/* One <url> (or <sitemap>) entry; borrowed, valid during the callback. */
typedef struct ant_sitemap_entry {
	ant_sitemap_kind kind;
	const char *loc;         /* <loc>, whitespace trimmed, as written */
	const char *lastmod_text;   /* <lastmod>, trimmed; "" none */
	int64_t lastmod;         /* W3C datetime as seconds since the epoch: 0 none
				    or malformed (told to on_diag) */
	int date_only;           /* lastmod had no time of day (start of that day, UTC) */
	unsigned long line;      /* of the entry's start tag */
} ant_sitemap_entry;

typedef struct ant_sitemap_opts {
	uint64_t max_bytes;      /* 0: ANT_SITEMAP_MAX_BYTES */
	int64_t max_urls;        /* 0: ANT_SITEMAP_MAX_URLS */
	size_t step;             /* decoded bytes handed to libxml2 at a time (the
				    tests' and fuzzer's chunk boundaries); 0: as
				    it asks */
	int64_t deadline_ms;     /* monotonic milliseconds (CLOCK_MONOTONIC) when
				    reading stops with LB_ETOOBIG; 0: none */
	/* Each entry with a <loc>; nonzero stops the parse (LB_ESTOP). */
	int (*on_entry)(void *ctx, const ant_sitemap_entry *e);
	/* A bad entry, skipped or its date left out: "line N: ..." is the
	 * caller's to add; msg quotes the input as written (for a terminal:
	 * lb_term()).  May be NULL. */
	void (*on_diag)(void *ctx, unsigned long line, const char *msg);
	void *ctx;
} ant_sitemap_opts;

typedef struct ant_sitemap_info {
	ant_sitemap_kind kind;
	int64_t entries;         /* entries read (with a <loc> or not) */
	int64_t bad_locs;        /* skipped: no <loc>, or one over ANT_MAX_URL bytes */
	int64_t bad_dates;       /* a <lastmod> that is no W3C datetime */
	int gzip;                /* the body was gzip */
	uint64_t bytes;          /* decoded bytes read */
} ant_sitemap_info;

/*
 * Reads the sitemap body[0..len) (plain or gzip): 0, or LB_EPARSE (not
 * well-formed, not a sitemap, a DTD), LB_ETOOBIG (over max_bytes decoded,
 * max_urls entries or the deadline: the entries before were delivered),
 * LB_EGZIP or LB_ETRUNC (bad gzip), LB_ESTOP, LB_ENOMEM; err says why,
 * with the line where known.  *info is filled in either case.
 */
int ant_sitemap_parse(const char *body, size_t len, const ant_sitemap_opts *o,
		      ant_sitemap_info *info, lb_error *err);

/* A W3C datetime (YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.s]]TZD):
 * seconds since the epoch, 0 when malformed; *date_only (may be NULL)
 * says it had no time of day. */
int64_t ant_sitemap_date(const char *s, int *date_only);

#endif
