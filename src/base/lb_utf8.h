/*
 * lb_utf8.h: the one UTF-8 decoder (RFC 3629).  Every check in the
 * project of "is this well-formed UTF-8, and how long is the character"
 * is lb_utf8_len(); everything else here is built on it.
 *
 * The contract, the same for every caller:
 *   - an ASCII byte, NUL included, is a one-byte character: 1;
 *   - a well-formed multi-byte sequence (RFC 3629 §4's table: no overlong
 *     form, no surrogate U+D800..U+DFFF, nothing above U+10FFFF) is 2..4;
 *   - anything else is 0: a continuation byte 0x80..0xBF where a character
 *     should start, a lead 0xC0, 0xC1 or 0xF5..0xFF, a lead whose
 *     sequence is cut short by n, or a lead followed by a wrong byte.
 * It never reads past s[n - 1], and reads the bytes of a sequence in
 * order, stopping at the first wrong one (so a NUL-terminated string is
 * never read past its NUL).  Callers that give NUL a meaning of its own
 * (libxml2 stops at it) test for it themselves.
 */
#ifndef LB_UTF8_H
#define LB_UTF8_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"

/* U+FFFD REPLACEMENT CHARACTER in UTF-8: what stands for a byte that
 * cannot be decoded (Unicode §3.9, "U+FFFD substitution"). */
#define LB_UTF8_FFFD "\xEF\xBF\xBD"

/* The length of the character at s[0..n), or 0 (see above); 0 when n is 0.
 * Inline: the JSON, HTML and XML escapers call it once per character. */
static inline size_t lb_utf8_len(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c, lo = 0x80, hi = 0xBF;
	size_t k, i;

	if (n == 0)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4;
	else
		return 0;   /* a continuation byte, C0/C1 (always overlong), F5..FF */
	/* RFC 3629 §4: the second byte's range rules out overlong forms (E0,
	 * F0), surrogates (ED) and code points above U+10FFFF (F4). */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (n < 2 || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if (i >= n || (s[i] & 0xC0) != 0x80)
			return 0;
	return k;
}

/* lb_utf8_len(), and the character's code point in *cp when it is not 0. */
size_t lb_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Nonzero when s[0..n) is all well-formed UTF-8 (NULs allowed). */
int lb_utf8_valid(const char *s, size_t n);

/*
 * The length of the longest prefix of s[0..n) that does not end inside a
 * multi-byte character: a text cut at a byte limit is cut back to the
 * start of its last character when that character is incomplete.  Only
 * the last four bytes are looked at; malformed bytes are left as they are.
 */
size_t lb_utf8_clip(const char *s, size_t n);

/*
 * The length in bytes of the first max_chars characters of s[0..n) (all
 * of it when it has fewer): a text limited to a number of characters is
 * cut there, never inside one.  A byte lb_utf8_len() rejects counts as
 * one character.
 */
size_t lb_utf8_prefix(const char *s, size_t n, size_t max_chars);

/* What lb_utf8_repair() replaces besides malformed bytes. */
#define LB_UTF8_NUL 1   /* NUL too (for libxml2, which stops at one) */

/*
 * Appends s[0..n) to out with U+FFFD in place of each byte that does not
 * start a well-formed character (the "one replacement per bad byte"
 * practice: each byte lb_utf8_len() rejects is skipped alone).  When
 * first_bad is not NULL and a byte was replaced, *first_bad is the offset
 * in out of the first U+FFFD; it is left alone otherwise.  Returns the
 * number of replacements, or (size_t)-1 when out of memory.
 */
size_t lb_utf8_repair(lb_buf *out, const char *s, size_t n, unsigned flags, size_t *first_bad);

/* The length of the prefix of s[0..n) that lb_utf8_repair() with these
 * flags would copy unchanged: n when there is nothing to repair (so the
 * text can be used where it is). */
size_t lb_utf8_repair_len(const char *s, size_t n, unsigned flags);

#endif
