/*
 * ant_page.h: what an antenna needs to know of an HTML page: its title, its
 * charset, and a checksum of its *text* (tags, scripts, styles, comments
 * removed, whitespace collapsed, ignored parts removed), so that a page
 * whose markup, charset or ignored parts change is not "updated"; and its
 * text cut in segments, each with the place it stands in the document and
 * a hash that volatile tokens do not move (ant_noise.h), so that a change
 * that is only noise can be told from a real one.
 * Pure functions over bytes: no I/O.  HTML is streamed through libxml2's
 * SAX parser; no tree is built, but for a page with css: or xpath:
 * patterns (the same parse builds the tree, the patterns mark the
 * elements they select, and the same walk reads it).  A JSON answer is
 * read by its data with json-c (below, "JSON pages").
 */
#ifndef ANT_PAGE_H
#define ANT_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

/*
 * One segment of the page's text (a sentence of a block element, or one
 * match of an --only regular expression).
 */
typedef struct ant_page_seg {
	uint32_t block;  /* hash of the segment's place: the path of enclosing
			    elements from <body> (or <head>) down to the
			    innermost block element, each as tag plus #id and
			    .classes (sorted), no positions, each run of digits
			    in an id or class as '#' (post-123 is post-#) --
			    e.g. body>div#side>ul.quotes>li -- so the same
			    widget has the same key on every fetch */
	uint32_t norm;   /* ant_noise_hash() of the text: volatile tokens
			    (numbers, dates, times) do not change it */
	uint32_t raw;    /* hash of the text as it is (what segs[] holds) */
	uint32_t off, len; /* the segment's bytes in ant_page_info.text */
	uint32_t path;   /* offset of the block's path, as text, in
			    ant_page_info.paths (ant_page_seg_path()) */
	unsigned char link; /* per cent of the block's text that is the text
			    of links (<a href>): a menu, a list of other
			    pages' titles is nearly all links (ant_furniture.h) */
	unsigned char meta; /* ant_page_seg_meta() once judged, 1 + its verdict;
			    0 before (the excerpt's rules ask it of a segment
			    many times a check; set by read/page_excerpt.c) */
} ant_page_seg;

typedef struct ant_page_info {
	char *title;          /* UTF-8, whitespace collapsed; NULL when none */
	char charset[32];     /* what the page was decoded from, e.g. "UTF-8", "SHIFT_JIS" */
	const char *charset_from; /* "header", "bom", "meta", "detected", "default", "forced" */
	uint64_t text_hash;   /* of the UTF-8 text after removals; stable across charsets */
	size_t text_len;      /* bytes of that text */
	char *feed_href;      /* the first <link rel="alternate" type="application/
			         atom+xml|rss+xml" href>, as written; NULL when none */
	/* Change excerpts (excerpt: only with a prev in the options): */
	uint32_t *segs;       /* hashes of the text's segments, in order, at most
			         ANT_PAGE_MAX_SEGMENTS (seg[].raw); malloc'd */
	size_t nsegs;
	char *excerpt;        /* the first segments not in the previous version's
			         set: excerpt_max characters, then "…" when cut; NULL when none */
	/* Segments: */
	ant_page_seg *seg;    /* at most ANT_PAGE_MAX_SEGMENTS, in document order; malloc'd */
	size_t nseg;
	char *text;           /* the bytes seg[].off/len point into (NUL-terminated);
			         only for ant_page_excerpt(); malloc'd */
	char *paths;          /* the blocks' paths, NUL-separated; malloc'd */
	size_t only_matched;  /* with --only patterns: elements and regex
			         matches found (0: the watched part is missing);
			         1 without them */
	int json;             /* read as JSON (ant_page_is_json()): no title,
			         no feed, no furniture; paths are JSON paths */
} ant_page_info;

/*
 * Segments are the text of each block element (p, li, td, h1, br...), cut
 * again after each sentence ("。", "．", "！", "？", ". ", "! ", "? "), each
 * with the ignore patterns applied.  Only their 32-bit hashes are kept
 * between checks: ANT_PAGE_MAX_SEGMENTS of them, 4 bytes each.
 */
#define ANT_PAGE_MAX_SEGMENTS 512
#define ANT_PAGE_EXCERPT_MAX 140      /* characters of an excerpt */

typedef struct ant_page_prev {
	const uint32_t *segs;     /* the previous version's segment hashes */
	size_t nsegs;             /* 0: no excerpt (everything would be new) */
	size_t excerpt_max;       /* characters; 0 = ANT_PAGE_EXCERPT_MAX */
} ant_page_prev;

void ant_page_info_release(ant_page_info *p);

/* 0 when label names a charset ant_page_opts.forced_charset can use, else
 * LB_EINVAL and err. */
int ant_page_charset_check(const char *label, lb_error *err);

/*
 * How long one page's regular expressions (--ignore, --only) may run, in
 * seconds from the start of the first.  They run in time linear in the
 * text (an 8 MiB page of numbers takes about a second), so this stops
 * only an expression that is slow by nature (nested repetitions,
 * back-references, `a.*b` over a page of a's): the analysis fails with
 * LB_ETOOBIG, naming the pattern, rather than hold the store's lock for
 * minutes.  Overridden by ant_page_opts.regex_seconds.
 */
#define ANT_PAGE_MAX_REGEX_SECONDS 30.0

/*
 * JSON pages (page_json.c).  A body answered as JSON (application/json or
 * any type ending in +json), or one with no type or text/plain that parses
 * as a JSON object or array, is read by its data, not its bytes: every
 * leaf value (string, number, true, false, null) is one segment, in the
 * order of the document with each object's keys sorted (bytewise), its
 * text "PATH: VALUE" -- "$.items[*].price: 150" -- and its place the path.
 * Array positions are written [*] in both: an element's place is not its
 * identity (an item added at the top would make every later one new; the
 * same rule as HTML's keys, which have no positions), so items reordered,
 * or only removed, are no update, and the diff page's context lines show
 * the item's other values.  Keys re-ordered and whitespace re-indented
 * change nothing; strings have their whitespace collapsed as HTML text
 * has; numbers are compared by their decimal value (150, 150.0 and 1.5e2
 * are one; integers of any length are kept exactly, 1e999 stays 1e999);
 * a duplicate key's last value counts; invalid UTF-8 and NULs are U+FFFD;
 * empty objects and arrays are nothing.  The first ANT_PAGE_MAX_SEGMENTS
 * - 1 leaves are segments; the rest are compared together as one last
 * segment ("… and N more values", order-blind): a change there is found,
 * but its excerpt cannot name the value.  Bounded: a body over INT_MAX
 * bytes, nested deeper than ANT_PAGE_JSON_MAX_DEPTH, or with more than
 * ANT_PAGE_JSON_MAX_VALUES values (ANT_PAGE_JSON_MAX_OBJECTS objects) is
 * refused (LB_EPARSE, "cannot read JSON: ..."), as is one answered as
 * JSON that does not parse: a broken answer is a failed check, never a
 * text compared in place of the data.  JSON is read as UTF-8 (RFC 8259
 * §8.1), a BOM skipped, unless the forced charset, a UTF-16 BOM or the
 * type's charset parameter (a legacy API's Shift_JIS) names another;
 * never guessed.
 */
#define ANT_PAGE_JSON_MAX_DEPTH 64
#define ANT_PAGE_JSON_MAX_VALUES 200000
#define ANT_PAGE_JSON_MAX_OBJECTS 50000    /* json-c spends ~700 bytes on each */

/* 1 when the answer is to be read as JSON (its type, or the body sniffed
 * as above), else 0. */
int ant_page_is_json(const char *body, size_t len, const char *content_type);

/*
 * css:, xpath: and range: patterns: at most ANT_PAGE_MAX_SELECTOR bytes;
 * an XPath expression (a css: selector's translation too) may take
 * ANT_PAGE_XPATH_OPS of libxml2's steps on a page, and a page's css: and
 * xpath: patterns together the regular expressions' seconds
 * (ANT_PAGE_MAX_REGEX_SECONDS, regex_seconds), else the analysis fails
 * with LB_ETOOBIG naming the pattern.
 */
#define ANT_PAGE_MAX_SELECTOR 1024
#define ANT_PAGE_XPATH_OPS 20000000UL

/*
 * The analysis options.  Patterns for ignore and only have the same syntax
 * (ant_page_pattern_check()):
 *   "#id"     the element with that id and its content
 *   ".class"  every element with that class and its content
 *   "css:S"   the elements CSS selector S selects (type, #id, .class,
 *             [a] [a=v] [a~=v] [a|=v] [a^=v] [a$=v] [a*=v], descendant,
 *             child, + and ~ combinators, :first-child, :last-child,
 *             :only-child, :nth-child(an+b|odd|even), :not(compound),
 *             lists with ','), and their content
 *   "xpath:E" the elements XPath 1.0 expression E selects (it must give a
 *             node-set; its text nodes stand for their elements)
 *   "range:START...END"  the text between the first START and the first
 *             END after it, both excluded (the first "..." splits; an
 *             empty START is the text's start, an empty END its end);
 *             inside the elements the selectors picked, if any
 *   "json:$.items[*].price"  on a JSON page, the values at that JSON path
 *             (a subset of JSONPath: $ .key ['key'] [n] [-1] [*] .* and
 *             ..key for any depth; page_jsonpath.c), with all below them;
 *             on a page that is not JSON the analysis fails (LB_EINVAL,
 *             naming the pattern), and an --only path that matches nothing
 *             fails it too (LB_ENOTFOUND, naming it: the data changed
 *             shape), never an empty page compared
 *   anything else is a POSIX extended regular expression over the text
 *             (on a JSON page, over each value's "PATH: VALUE" line)
 * An --only css:, xpath: or range: pattern that finds nothing on the page
 * fails the analysis with LB_ENOTFOUND naming it (the page's layout
 * changed: a silent empty page would hide it); an --ignore one that finds
 * nothing is fine.
 * ignore: those elements, and the text the expressions match, are removed.
 * only:   only the text inside the matching elements is read (the title
 *         still comes from <title>); with expressions, only the text they
 *         match within a block counts, each match one segment.  Selectors
 *         add up, expressions add up, and expressions look only inside the
 *         selected elements when both are given.
 */
typedef struct ant_page_opts {
	const char *forced_charset;   /* a charset the operator chose (samidare's
					 ForceCharset, 'antenna import'): when iconv
					 knows it, it beats the BOM, the header,
					 <meta> and detection (charset_from "forced");
					 NULL or "": pick it */
	const char *const *ignore;
	size_t nignore;
	const char *const *only;
	size_t nonly;
	const ant_page_prev *prev;    /* for the old excerpt field; may be NULL */
	double regex_seconds;         /* 0: ANT_PAGE_MAX_REGEX_SECONDS */
} ant_page_opts;

/*
 * The one entry point: title, charset, text_hash, feed_href, segments
 * (seg, segs), text and only_matched into out (released with
 * ant_page_info_release(), also after a failure); o may be NULL (no
 * patterns, no forced charset).  Returns 0, or a negative LB_E* code with
 * err (a bad pattern, or a json: one on a page that is not JSON,
 * LB_EINVAL; expressions over regex_seconds or an XPath over
 * ANT_PAGE_XPATH_OPS LB_ETOOBIG; a JSON answer that cannot be read
 * LB_EPARSE; an --only css:, xpath:, range: or json: pattern that finds
 * nothing LB_ENOTFOUND; out of memory LB_ENOMEM); err may be NULL.
 */
int ant_page_analyze(const char *body, size_t len, const char *content_type,
		     const ant_page_opts *o, ant_page_info *out, lb_error *err);

/*
 * The text of the picked segments (pick[i] != 0 for seg[i]; nseg flags), in
 * order, joined by " ", whitespace collapsed; segments that say only who or
 * when (only dates, times and numbers, one id with a digit, a byline with
 * an e-mail address) are left out when another picked segment has words; when longer than max_chars
 * characters (0 = ANT_PAGE_EXCERPT_MAX), its first max_chars and "…"
 * (ant_clip(s, max_chars + 1)), cut on a character boundary.
 * NULL when nothing is picked (or out of memory).  malloc'd.
 */
char *ant_page_excerpt(const ant_page_info *p, const unsigned char *pick, size_t max_chars);

/*
 * Unpicks the picked segments that say only who or when (as
 * ant_page_excerpt() leaves out) before the first picked segment with
 * words: then the first run of what a change added starts at its words,
 * not at the byline and hash a new commit or post starts with (pick: nseg
 * flags).  Those after it stay: a date between a new item's name and its
 * text keeps them one run (the excerpt leaves the date out).
 */
void ant_page_pick_words(const ant_page_info *p, unsigned char *pick);

/*
 * Is what the picked segments say (pick, and also when not NULL) only
 * links to other pages, beside an article's own text?  1 when every
 * picked segment is a link line (a block mostly link text: another
 * page's title, "Next by thread: TITLE"), a list's label ("Follow-Ups:")
 * or says only who or when, at least one is a link line, none is in
 * <head>; the page is an article (a sentence of its own not picked: no
 * link, not a heading nor a "Name: value" field, 24 bytes or more; its
 * own words, neither links nor who and when, 30% of its text or more);
 * and no picked link line shares an element below <body> with such a
 * sentence.  Then the article's links to its neighbours moved (a new
 * reply, a next message of an archive laid out without containers), its
 * words did not.  A link line in an element with the article's text (a
 * table of contents' new entry) and a page made of link lines (an index,
 * a list of entries or commits) are news.  0 otherwise.
 */
int ant_page_picks_links_only(const ant_page_info *p, const unsigned char *pick, const unsigned char *also);

/* Does seg[i] say only who or when (as ant_page_excerpt() judges)?  1 or 0. */
int ant_page_seg_meta(const ant_page_info *p, size_t i);

/* Does some picked segment say more than who or when?  1 or 0. */
int ant_page_picks_words(const ant_page_info *p, const unsigned char *pick);

/* Is seg[i] prose: at least half its tokens words, not a line of paths,
 * hashes, options or code ("src/main.c", "index fa23ad8..2cf465e 100644",
 * "blob: <sha1> (plain)")?  1 or 0. */
int ant_page_seg_prose(const ant_page_info *p, size_t i);

/* Unpicks the picked segments before the first picked one that is prose
 * (ant_page_seg_prose()); 1 when there is one, else 0 and pick is kept. */
int ant_page_pick_prose(const ant_page_info *p, unsigned char *pick);

/* The path of seg[i]'s block as text ("body>div#side>ul.quotes>li"; a long
 * one keeps its end after "…"); "" when unknown.  Points into p.  Inline:
 * the furniture rules ask it for every segment many times a check. */
static inline const char *ant_page_seg_path(const ant_page_info *p, size_t i)
{
	if (!p || i >= p->nseg || !p->paths)
		return "";
	return p->paths + p->seg[i].path;
}

/* The hash behind text_hash: 64-bit FNV-1a (Fowler/Noll/Vo). */
uint64_t ant_page_hash64(const void *p, size_t n);

/* Checks one ignore pattern; returns 0, or LB_EINVAL with a message in err. */
int ant_page_pattern_check(const char *pattern, lb_error *err);
/* The same for an --only pattern (the message says "only pattern"). */
int ant_page_only_check(const char *pattern, lb_error *err);

#endif
