/*
 * ant_feed.h: a streaming reader of RSS 0.9x, RSS 1.0 (RDF), RSS 2.0 and Atom
 * (RFC 4287) feeds, with the RFC 5005 archive links, on libxml2's SAX2
 * push parser.  Library code: no I/O, no clock (the caller passes "now").
 *
 * Memory stays constant whatever the feed's size: the body is fed in
 * chunks (ant_feed_parse_chunk), each entry is handed to a callback and
 * forgotten, and every kept text is capped at ANT_FEED_MAX_TEXT bytes.
 *
 * Hostile feeds: no entity is ever expanded but the five predefined ones
 * (declarations are ignored: a billion-laughs bomb or an external entity
 * reads as nothing), no DTD is loaded, no network (XML_PARSE_NONET).
 * Dates: RFC 3339 / W3C-DTF (Atom, dc:date) and RFC 822 (pubDate); a date
 * that does not parse, is before ANT_FEED_MIN_TIME or after now + skew is
 * "absurd" and counts as no date.
 */
#ifndef ANT_FEED_H
#define ANT_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

#define ANT_FEED_MAX_TEXT 1024            /* bytes kept of a title, link or id */
#define ANT_FEED_MIN_TIME 631152000       /* 1990-01-01T00:00:00Z: older is absurd */
#define ANT_FEED_DEFAULT_SKEW 3600        /* a date later than now + this is absurd; the
				       antenna passes its max_future (lirs_merge.h's rule) */

typedef enum { ANT_FEED_NONE = 0, ANT_FEED_RSS, ANT_FEED_RDF, ANT_FEED_ATOM } ant_feed_kind;

typedef struct ant_feed_entry {
	const char *title;       /* UTF-8, whitespace collapsed; "" when none */
	const char *link;        /* Atom rel="alternate" href / RSS <link>, raw; "" */
	const char *id;          /* atom:id / guid / rdf:about; "" */
	int64_t date;            /* updated, else published (Atom); pubDate, else
				    dc:date (RSS); 0 when none or absurd */
	int bad_date;            /* a date was given but is malformed or absurd */
	const char *summary;     /* Atom <summary> as text (markup dropped), whitespace
				    collapsed, at most ANT_FEED_MAX_TEXT bytes; "" */
} ant_feed_entry;

/* Nonzero stops the parse (ant_feed_parse_chunk then returns LB_ESTOP, and
 * ant_feed_error() says "stopped"). */
typedef int (*ant_feed_entry_fn)(void *ctx, const ant_feed_entry *e);

typedef struct ant_feed_opts {
	int64_t now;             /* for absurd dates; 0 = no upper bound */
	int64_t skew;            /* 0 = ANT_FEED_DEFAULT_SKEW */
	ant_feed_entry_fn on_entry;  /* may be NULL */
	void *ctx;
} ant_feed_opts;

typedef struct ant_feed_info {
	ant_feed_kind kind;
	size_t entries;          /* entries (items) seen */
	size_t dated;            /* of which with a usable date */
	size_t bad_dates;        /* with a malformed or absurd date */
	int64_t newest;          /* newest usable entry date, 0 = none */
	char *newest_title;      /* that entry's title, malloc'd; NULL when none */
	char *newest_link;       /* that entry's link, malloc'd; NULL when none */
	/* RFC 5005 (Atom feed-level links), raw hrefs, malloc'd or NULL */
	char *prev_archive, *next_archive, *current, *self;
	char *home;              /* the feed's own page: Atom feed-level rel="alternate"
				    link, RSS channel <link>; raw href, malloc'd or NULL */
	int archive;             /* <fh:archive/>: an archive document (§4) */
	int entity_decls;        /* entity declarations seen (and ignored) */
} ant_feed_info;

typedef struct ant_feed_parser ant_feed_parser;

ant_feed_parser *ant_feed_parser_new(const ant_feed_opts *o);
/* Feeds len bytes.  0, or once the parse has ended the code it ended with,
 * the same on every later call (ant_feed_error() says why): LB_EPARSE the
 * document is known bad (malformed XML, not RSS or Atom), LB_ESTOP
 * on_entry stopped it, LB_ENOMEM out of memory. */
int ant_feed_parse_chunk(ant_feed_parser *p, const char *buf, size_t len);
/* Ends the document and fills *out (owned by the caller: ant_feed_info_release).
 * 0 for a well-formed RSS or Atom feed, else the code as for
 * ant_feed_parse_chunk (out still holds what was seen before the problem). */
int ant_feed_parse_finish(ant_feed_parser *p, ant_feed_info *out);
/* "not an RSS or Atom feed", "malformed XML at line 3: ...", ... */
const char *ant_feed_error(const ant_feed_parser *p);
void ant_feed_parser_free(ant_feed_parser *p);
void ant_feed_info_release(ant_feed_info *fi);

/* One call for a body in memory (fed in chunks of ANT_FEED_CHUNK bytes):
 * 0, or ant_feed_parse_finish()'s code with ant_feed_error()'s message in
 * err. */
#define ANT_FEED_CHUNK 16384
int ant_feed_parse(const char *buf, size_t len, const ant_feed_opts *o, ant_feed_info *out,
	       lb_error *err);

/* RFC 3339 / W3C-DTF ("2026-11-23T15:42:01+09:00", "2026-11-23") or RFC 822
 * ("Mon, 23 Nov 2026 15:42:01 +0900", obsolete zones, 2-digit years):
 * seconds since the epoch, or 0 when malformed. */
int64_t ant_feed_parse_date(const char *s);
/* Is t a believable entry date at now (ANT_FEED_MIN_TIME .. now + skew)? */
int ant_feed_date_ok(int64_t t, int64_t now, int64_t skew);

/* href resolved against base by atom_resolve() (atom.h: its one policy,
 * file: kept when base is file:), at most ANT_FEED_MAX_TEXT bytes: a malloc'd
 * string, or NULL when there is none. */
char *ant_feed_resolve(const char *base, const char *href);

/*
 * What a feed says about one page (feed_match.c).  A site's feed is
 * advertised on every page of the site; it speaks of a page only by an
 * entry whose link (or http(s) id) is the page, or by the page being the
 * feed's home (info.home), compared by lb_url_key() with the fragment
 * dropped, entry links resolved against feed_url.
 */
typedef struct ant_feed_about {
	ant_feed_info info;      /* the whole feed's parse */
	int home;                /* the feed's home is the page: all its entries are its news */
	size_t entries;          /* entries whose link is the page */
	int64_t newest_entry;    /* the newest date of those; 0 = none */
	char *entry_title;       /* that entry's title, malloc'd, or NULL */
	int64_t newest;          /* the date that dates the page: home: info.newest, else
				    newest_entry; 0 = the feed says nothing of the page
				    (a site-wide feed: at most a hint) */
	const char *title;       /* that date's entry title (points into info or
				    entry_title), or NULL */
	int64_t view_entry;      /* the newest date of an entry linked to a view of
				    the page: its URL with more query parameters (a
				    wiki page's revision or diff, "?id=P&rev=..&do=diff");
				    it dates a change the page's own check holds, never
				    the page; 0 = none */
} ant_feed_about;

/* ant_feed_parse() of a feed read for the page page_url (o->on_entry is
 * not used): 0, or its code (and LB_EINVAL when page_url is no URL).
 * *out is filled in either case: release it with ant_feed_about_release. */
int ant_feed_about_page(const char *body, size_t len, const char *feed_url, const char *page_url,
			const ant_feed_opts *o, ant_feed_about *out, lb_error *err);
void ant_feed_about_release(ant_feed_about *a);

/* Is this Content-Type, or else this body start, a feed's? */
int ant_feed_looks_like(const char *content_type, const char *body, size_t len);

#endif
