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

typedef struct page_info {
	char *title;          /* UTF-8, whitespace collapsed; NULL when none */
	char charset[32];     /* what the page was decoded from, e.g. "UTF-8", "SHIFT_JIS" */
	const char *charset_from; /* "header", "bom", "meta", "detected", "default", "forced" */
	uint64_t text_hash;   /* of the UTF-8 text after removals; stable across charsets */
	size_t text_len;      /* bytes of that text */
} page_info;

/*
 * Ignore patterns (antenna add --ignore):
 *   "#id"     removes the element with that id and its content
 *   ".class"  removes every element with that class
 *   anything else is a POSIX extended regular expression removed from the
 *   extracted text wherever it matches
 * Returns 0, or -1 with a message in err (bad pattern, out of memory).
 */
int page_analyze(const char *body, size_t len, const char *content_type,
		 const char *const *ignore, size_t nignore, page_info *out,
		 char *err, size_t errlen);
void page_info_release(page_info *p);

/*
 * page_analyze() with a charset the operator chose (samidare's
 * ForceCharset, 'antenna import'): when forced names a charset iconv
 * knows, it beats the BOM, the header, <meta> and detection
 * (charset_from "forced").  NULL or "" is page_analyze().
 */
int page_analyze_forced(const char *body, size_t len, const char *content_type,
			const char *forced, const char *const *ignore, size_t nignore,
			page_info *out, char *err, size_t errlen);
/* 0 when label names a charset page_analyze_forced() can use, else -1 and err. */
int page_charset_check(const char *label, char *err, size_t errlen);

/* The hash behind text_hash: 64-bit FNV-1a (Fowler/Noll/Vo). */
uint64_t page_hash64(const void *p, size_t n);

/* Checks one ignore pattern; returns 0, or -1 with a message in err. */
int page_pattern_check(const char *pattern, char *err, size_t errlen);

#endif
