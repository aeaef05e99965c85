/*
 * page_int.h: what the parts of the page analysis share; not for
 * commands.  page_charset.c picks the charset and converts the body to
 * UTF-8; page_pattern.c compiles the operator's --ignore/--only patterns
 * and runs their regular expressions in time linear in the text, within
 * a time limit (page_css.c translates css: ones to XPath); page.c walks
 * the HTML and cuts the text in segments (ant_page.h), page_tree.c
 * replays a tree into that walk for css: and xpath: ones; page_text.c, below the walk and the patterns, collapses
 * whitespace for both.
 */
#ifndef ANT_PAGE_INT_H
#define ANT_PAGE_INT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/parser.h>

#include "ant_page.h"
#include "lb_buf.h"
#include "lb_error.h"

/* ---- page_charset.c ---------------------------------------------------------- */

typedef struct ant_page_charset {
	char report[32];   /* ant_page_info.charset */
	char iconv[32];    /* what iconv_open gets */
} ant_page_charset;

/* Resolves a label ("Shift_JIS", " 'utf-8'") to a charset iconv can open:
 * 0, or LB_EICONV when it is unknown. */
int ant_page_charset_resolve(const char *label, size_t n, ant_page_charset *cs);

/* The charset of body (ant_page.h's order: forced, BOM, header, <meta>,
 * detection, UTF-8) into cs, out->charset and out->charset_from; *skip is
 * the length of the BOM. */
void ant_page_pick_charset(const char *body, size_t len, const char *content_type,
			   const char *forced, ant_page_info *out, size_t *skip,
			   ant_page_charset *cs);

/* body[0..len) as UTF-8 into out, each undecodable byte and each NUL
 * (libxml2 would stop there) as U+FFFD.  0, LB_EICONV (iconv cannot open
 * the charset) or LB_ENOMEM. */
int ant_page_to_utf8(const char *body, size_t len, const char *iconv_name, lb_buf *out);

/* 64-bit FNV-1a, step by step (the text hash, a block path's hash, a
 * JSON value's): inline, as it runs over every byte of every page. */
#define ANT_PAGE_FNV_BASIS 14695981039346656037ull

static inline uint64_t ant_page_fnv_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* ---- page_pattern.c ---------------------------------------------------------- */

enum { ANT_PAGE_PAT_ID, ANT_PAGE_PAT_CLASS, ANT_PAGE_PAT_REGEX,
       ANT_PAGE_PAT_CSS, ANT_PAGE_PAT_XPATH, ANT_PAGE_PAT_RANGE, ANT_PAGE_PAT_JSON };

/* A css:, xpath: or range: pattern made ready: the XPath expression the
 * tree is searched with (css: translated), or the range's two markers,
 * whitespace collapsed ("" for the page's start or end). */
typedef struct ant_page_sel {
	char *xpath;
	char *start, *end;
} ant_page_sel;

/* ---- page_jsonpath.c: `json:` patterns (ant_page.h) ---------------------------- */

#define ANT_PAGE_JSON_MAX_STEPS 32   /* steps of one JSON path (the states fit 64 bits) */

typedef struct ant_page_jstep {
	unsigned char kind;   /* key, index, any (page_jsonpath.c) */
	unsigned char desc;   /* '..': at any depth below */
	long long index;      /* [n]; negative counts from the end */
	const char *name;     /* a key: len bytes (NUL-terminated) */
	size_t len;
} ant_page_jstep;

typedef struct ant_page_jpath {
	ant_page_jstep *step;
	size_t n;
	char *names;          /* the keys' bytes */
} ant_page_jpath;

/* Compiles "json:$..." (the prefix included); 0, or LB_EINVAL with a
 * message naming the pattern and what it is for ("only", "ignore"). */
int ant_page_jpath_compile(ant_page_jpath *jp, const char *pattern, const char *what, lb_error *err);
void ant_page_jpath_release(ant_page_jpath *jp);
/* The states of a child from its parent's (the root's are 1): key[0..klen)
 * is its name in an object, or key NULL and index its place in an array
 * of alen elements. */
uint64_t ant_page_jpath_step(const ant_page_jpath *jp, uint64_t states, const char *key, size_t klen,
			     size_t index, size_t alen);
/* Does the path end at a node with these states? */
int ant_page_jpath_matches(const ant_page_jpath *jp, uint64_t states);

/* A compiled list of patterns (ignore or only). */
typedef struct ant_page_patterns {
	const char *const *pat;
	size_t n;
	const char *what;     /* "ignore", "only": for messages */
	regex_t *re;          /* one per pattern; compiled only for ANT_PAGE_PAT_REGEX */
	ant_page_jpath *jp;   /* one per pattern; compiled only for ANT_PAGE_PAT_JSON */
	unsigned char *kind;  /* ANT_PAGE_PAT_* */
	unsigned char *ctx;   /* the expression looks at what precedes its match
				 (\< \> \b \B \` \'): never reuse its last result */
	ant_page_sel *sel;    /* one per pattern; set for css:, xpath:, range: */
	size_t nalloc;        /* patterns allocated for */
	size_t nsel, nregex;  /* element selectors (#id .class css: xpath:), expressions */
	size_t ntree, nrange; /* css: and xpath: patterns (the tree is built), range: */
	size_t njson;         /* json: paths */
} ant_page_patterns;

int ant_page_patterns_compile(ant_page_patterns *ps, const char *const *pat, size_t n,
			      const char *what, lb_error *err);
void ant_page_patterns_release(ant_page_patterns *ps);
/* The XPath expression for a CSS selector (without "css:"), into out;
 * 0, or LB_EINVAL with a message naming the bad part (what: "only",
 * "ignore"), or LB_ENOMEM (page_css.c). */
int ant_page_css_xpath(const char *sel, const char *what, lb_buf *out, lb_error *err);

/* Does an element with this id and class attribute match a selector? */
int ant_page_selector_hit(const ant_page_patterns *ps, const char *id, const char *cls);

/*
 * The time one page's regular expressions may take (ANT_PAGE_MAX_REGEX_SECONDS
 * by default), from the start of the first; going over is LB_ETOOBIG
 * with a message naming the pattern that was running.
 */
typedef struct ant_page_budget {
	double limit;      /* seconds */
	double start;      /* CLOCK_MONOTONIC seconds when the expressions began */
	double clock;      /* the clock's last reading */
	unsigned calls;    /* regexec() calls, for reading the clock now and then */
} ant_page_budget;

/* Starts the clock; limit 0 is ANT_PAGE_MAX_REGEX_SECONDS. */
void ant_page_budget_start(ant_page_budget *b, double limit);

/* Removes every match of every ignore expression from text, re-collapsed
 * (tmp is scratch).  0, LB_ENOMEM, or LB_ETOOBIG (budget) with err. */
int ant_page_remove_regex(lb_buf *text, const ant_page_patterns *ig, lb_buf *tmp,
			  ant_page_budget *b, lb_error *err);

/*
 * The --only expressions' matches in a block s[0..n), left to right: at
 * each place the leftmost match of any expression (the longest of those
 * that start there, the first expression on a tie), then again after it.
 * Each expression's next match is remembered and searched for again only
 * once the text before it has been passed, so k expressions cost k scans
 * of the block, not one per match.
 */
typedef struct ant_page_only_iter {
	const ant_page_patterns *only;
	const char *s;
	size_t n, pos;
	int started;
	struct ant_page_next { size_t so, eo; int state; } *next;  /* one per pattern */
} ant_page_only_iter;

/* 0, or LB_ENOMEM; the iterator is over s[0..n) (not copied). */
int ant_page_only_begin(ant_page_only_iter *it, const ant_page_patterns *only,
			const char *s, size_t n);
/* 1 with [*so, *eo) the next non-empty match, 0 at the end, or LB_ETOOBIG
 * (budget) with err. */
int ant_page_only_next(ant_page_only_iter *it, ant_page_budget *b, size_t *so, size_t *eo,
		       lb_error *err);
void ant_page_only_end(ant_page_only_iter *it);

/* ---- page_json.c --------------------------------------------------------------- */

/*
 * A JSON body's segments, text, paths, text_hash and only_matched into out
 * (ant_page.h, "JSON pages"; the excerpt is the caller's), with the
 * patterns' json: paths and expressions applied; read as UTF-8 unless
 * forced (the operator's charset), a UTF-16 BOM or the type's charset
 * parameter says another.  0; 1 when the body is
 * not to be read as JSON (its type says another, or, with no type or
 * text/plain, it is not a JSON object or array): read it as HTML; else
 * LB_EPARSE (answered as JSON but not JSON, or over a limit), LB_ENOTFOUND
 * (an --only path matched nothing), LB_ETOOBIG (the budget), LB_ENOMEM,
 * with err.
 */
int ant_page_json_read(const char *body, size_t len, const char *content_type, const char *forced,
		       const ant_page_patterns *ig, const ant_page_patterns *only,
		       ant_page_budget *budget, ant_page_info *out, lb_error *err);

/* ---- page_tree.c ---------------------------------------------------------------- */

/* What css: and xpath: patterns selected: the mark the tree walk sets
 * for the element it starts (ant_page_tree_walk()). */
enum { ANT_PAGE_MARK_ONLY = 1, ANT_PAGE_MARK_IGNORE = 2 };

/*
 * The page utf8[0..len) (at most 2 GiB) parsed into a tree as the SAX
 * walk parses it, the css: and xpath: patterns of ig and only evaluated
 * on it, and the tree replayed into h's handlers (start and end of
 * elements, characters, comments, PIs, the doctype) with ctx, in
 * document order: before each element's start, *mark holds its
 * ANT_PAGE_MARK_* (0 after).  0, LB_ENOMEM, or a pattern's failure with
 * err: LB_ETOOBIG (over ANT_PAGE_XPATH_OPS, or the patterns together over
 * seconds, 0 = ANT_PAGE_MAX_REGEX_SECONDS), LB_EINVAL (no node-set),
 * LB_ENOTFOUND (an --only one selects nothing).
 */
int ant_page_tree_walk(const char *utf8, size_t len, const ant_page_patterns *ig,
		       const ant_page_patterns *only, const xmlSAXHandler *h, void *ctx,
		       unsigned char *mark, double seconds, lb_error *err);

/* ---- page_text.c --------------------------------------------------------------- */

/* Appends s[0..n) with runs of whitespace collapsed to one space; *space
 * says whether out already ends in a space (or is empty).  0 or LB_ENOMEM. */
int ant_page_add_collapsed(lb_buf *out, const char *s, size_t n, int *space);

#endif
