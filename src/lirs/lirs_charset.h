/*
 * lirs_charset.h: EUC-JP <-> UTF-8 for the codec (internal).
 *
 * Decoding works a line at a time, because LIRS 2.1 §7 lets a reader fall
 * back to UTF-8 when EUC-JP fails, and the natural unit for that choice is
 * the record.  EUC-JP means glibc's "EUC-JP-MS", which adds the NEC and IBM
 * extensions (① is A1 AD -> U+2460) to JIS X 0208, SS2 half-width katakana
 * and SS3 JIS X 0212.  Bytes 80-A0 (C1) and FF never start EUC-JP text:
 * such a line goes to the UTF-8 fallback.
 *
 * Encoding writes strict EUC-JP (JIS X 0201/0208/0212 only, what glibc's
 * "EUC-JP" and every other reader decode) unless the converter is asked
 * for EUC-JP-MS (ms = 1): then the NEC and IBM extensions are written as
 * their vendor codes, as before 0.2.  In strict mode the vendor characters
 * take their readable forms from the one table in vendor.c.
 */
#ifndef LIRS_CHARSET_H
#define LIRS_CHARSET_H

#include <iconv.h>
#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"

typedef struct lirs_cs_conv {
	iconv_t dec;     /* unused: decoding uses tables built from iconv once */
	iconv_t enc;     /* UTF-8 -> EUC-JP-MS */
	iconv_t enc2;    /* UTF-8 -> EUC-JP, for what EUC-JP-MS lacks */
	int seen_utf8;   /* a line of this input was UTF-8 and not EUC-JP */
	int ms;          /* encode: write EUC-JP-MS vendor codes (set after lirs_cs_open) */
} lirs_cs_conv;

/* What lirs_cs_decode_line() did. */
enum lirs_cs_result {
	LIRS_CS_ASCII,        /* nothing to convert: out untouched, use the input */
	LIRS_CS_EUCJP,        /* decoded from EUC-JP into out */
	LIRS_CS_UTF8,         /* not EUC-JP but valid UTF-8: use the input */
	LIRS_CS_INVALID,      /* neither: out holds UTF-8 with U+FFFD for bad bytes */
};

/* Opens the converters; LB_EICONV when iconv lacks them.  dir: 1 decode, 2 encode,
 * 3 both. */
int lirs_cs_open(lirs_cs_conv *c, int dir);
void lirs_cs_close(lirs_cs_conv *c);

/*
 * 1 when s[0..n) is Shift_JIS (CP932) throughout and holds at least one
 * two-byte character: ASCII, half-width katakana A1-DF, and pairs of a
 * lead byte 81-9F or E0-FC and a trail byte 40-7E or 80-FC.  Asked only
 * of a line that is neither EUC-JP nor UTF-8, to name the mistake.
 */
int lirs_cs_is_sjis(const char *s, size_t n);

/* 1 when the n bytes are all below 0x80. */
int lirs_cs_is_ascii(const char *s, size_t n);

/*
 * Decodes one line (without its line end).  A line valid as both EUC-JP
 * and UTF-8 is EUC-JP (§2), unless an earlier line of the same input was
 * UTF-8 only: then the input is a UTF-8 file, and so is the line.  On LIRS_CS_EUCJP and LIRS_CS_INVALID,
 * out is reset and filled (NUL-terminated); *bad is set to the offset in
 * out of the first U+FFFD put in for bad bytes (LIRS_CS_INVALID only).
 * Returns an enum lirs_cs_result, or -1 when out of memory.
 */
int lirs_cs_decode_line(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out, size_t *bad);

/*
 * Appends s (UTF-8, n bytes) to out in EUC-JP.  Characters EUC-JP cannot
 * hold, and bytes that are not UTF-8, become U+3013 (GETA MARK, EUC-JP
 * A2 AE) and are counted in *replaced.  Characters written as bytes that
 * decode to another character (U+00A5 YEN SIGN as A1 EF, FULLWIDTH YEN
 * SIGN; U+301C WAVE DASH as A1 C1, FULLWIDTH TILDE) are counted in
 * *approx.  Every non-ASCII character gives non-ASCII bytes.  Returns 0,
 * or -1 when out of memory.
 */
int lirs_cs_encode(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out, unsigned long *replaced,
	      unsigned long *approx);
/*
 * lirs_cs_encode() that also counts in *subst the vendor characters written
 * as their readable forms (strict mode: ① as "(1)", 髙 as 高); vendor
 * characters without one become U+3013 and count in *replaced.
 */
int lirs_cs_encode_counted(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out,
		      unsigned long *replaced, unsigned long *approx, unsigned long *subst);

/* The readable form table (vendor.c), sorted by code point. */
struct lirs_cs_vendor_form {
	uint32_t cp;         /* the vendor character */
	const char *form;    /* UTF-8, JIS X 0201/0208 characters only */
};
/* The form for code point u, or NULL when u is not in the table. */
const char *lirs_cs_vendor_form(uint32_t u);
/* The whole table (tests): *n entries. */
const struct lirs_cs_vendor_form *lirs_cs_vendor_table(size_t *n);

#endif
