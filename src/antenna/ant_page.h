/*
 * page.h: what an antenna needs to know of an HTML page: its title, its
 * charset, and a checksum of its *text* (tags, scripts, styles, comments
 * removed, whitespace collapsed, ignored parts removed), so that a page
 * whose markup, charset or ignored parts change is not "updated".
 * Pure functions over bytes: no I/O.  HTML is parsed with libxml2.
 */
#ifndef LIRS_PAGE_H
#define LIRS_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

typedef struct ant_page_info {
	char *title;          /* UTF-8, whitespace collapsed; NULL when none */
	char charset[32];     /* what the page was decoded from, e.g. "UTF-8", "SHIFT_JIS" */
	const char *charset_from; /* "header", "bom", "meta", "detected", "default", "forced" */
	uint64_t text_hash;   /* of the UTF-8 text after removals; stable across charsets */
	size_t text_len;      /* bytes of that text */
	char *feed_href;      /* the first <link rel="alternate" type="application/
			         atom+xml|rss+xml" href>, as written; NULL when none */
	/* Change excerpts (issue 9), filled by ant_page_analyze_excerpt() only: */
	uint32_t *segs;       /* hashes of the text's segments, in order, at most
			         PAGE_MAX_SEGMENTS; malloc'd */
	size_t nsegs;
	char *excerpt;        /* the first segments not in the previous version's
			         set, at most excerpt_max characters; NULL when none */
} ant_page_info;

/*
 * Segments are the text of each block element (p, li, td, h1, br...), cut
 * again after each sentence ("。", "．", "！", "？", ". ", "! ", "? "), each
 * with the ignore patterns applied.  Only their 32-bit hashes are kept
 * between checks: PAGE_MAX_SEGMENTS of them, 4 bytes each.
 */
#define PAGE_MAX_SEGMENTS 512
#define PAGE_EXCERPT_MAX 140      /* characters of an excerpt */

typedef struct ant_page_prev {
	const uint32_t *segs;     /* the previous version's segment hashes */
	size_t nsegs;             /* 0: no excerpt (everything would be new) */
	size_t excerpt_max;       /* characters; 0 = PAGE_EXCERPT_MAX */
} ant_page_prev;

/*
 * Ignore patterns (antenna add --ignore):
 *   "#id"     removes the element with that id and its content
 *   ".class"  removes every element with that class
 *   anything else is a POSIX extended regular expression removed from the
 *   extracted text wherever it matches
 * Returns 0, or LB_EINVAL (a bad pattern) or LB_ENOMEM with a message in err.
 */
int ant_page_analyze(const char *body, size_t len, const char *content_type,
		 const char *const *ignore, size_t nignore, ant_page_info *out,
		 lb_error *err);
void ant_page_info_release(ant_page_info *p);

/*
 * ant_page_analyze() with a charset the operator chose (samidare's
 * ForceCharset, 'antenna import'): when forced names a charset iconv
 * knows, it beats the BOM, the header, <meta> and detection
 * (charset_from "forced").  NULL or "" is ant_page_analyze().
 */
int ant_page_analyze_forced(const char *body, size_t len, const char *content_type,
			const char *forced, const char *const *ignore, size_t nignore,
			ant_page_info *out, lb_error *err);
/* 0 when label names a charset ant_page_analyze_forced() can use, else LB_EINVAL and err. */
int ant_page_charset_check(const char *label, lb_error *err);
/* ant_page_analyze_forced() that also fills segs, nsegs and (against prev, may be
 * NULL) excerpt. */
int ant_page_analyze_excerpt(const char *body, size_t len, const char *content_type,
			 const char *forced, const char *const *ignore, size_t nignore,
			 const ant_page_prev *prev, ant_page_info *out, lb_error *err);

/* A malloc'd copy of s with whitespace collapsed, cut to at most max
 * characters (UTF-8; "…" ends a cut one); NULL when out of memory. */
char *ant_page_clip(const char *s, size_t max);

/* The hash behind text_hash: 64-bit FNV-1a (Fowler/Noll/Vo). */
uint64_t ant_page_hash64(const void *p, size_t n);

/* Checks one ignore pattern; returns 0, or LB_EINVAL with a message in err. */
int ant_page_pattern_check(const char *pattern, lb_error *err);

#endif
