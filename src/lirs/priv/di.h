/*
 * di.h: HINA-DI and hina.txt, the other two exchange formats of the old
 * antennas (internal to the codec; the reader and writer call it).
 *
 * HINA-DI: a first line "HINA/2.x", a header block ("Field: value" lines,
 * Content-Type gives the charset), then one block per page, blocks
 * separated by blank lines, lines ending CRLF.  hina.txt: one HTML line
 * per page, "<!--HINA_OK 2001/05/12 13:45 [0]--><A HREF="URL">TITLE</A>
 * AUTHOR<br>", times in JST.  Both map onto lirs_record the way tama
 * (wakaba/tama lib/website.rb) maps them onto its LIRS lines; lirs(5)
 * has the table.  Nothing here does I/O or keeps state across inputs.
 */
#ifndef LIRS_DI_H
#define LIRS_DI_H

#include <iconv.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lirs.h"

/* The charset a HINA-DI header declares. */
enum lirs_di_charset {
	DI_CS_AUTO,   /* none, or EUC-JP: the LIRS decoder (EUC-JP, UTF-8 fallback) */
	DI_CS_UTF8,
	DI_CS_SJIS,   /* Shift_JIS, read as CP932 (its Windows superset) */
};

/* The fields of a block we map onto a record (lirs(5), HINA-DI). */
enum lirs_di_field {
	DI_URL, DI_TITLE, DI_AUTHOR, DI_VIRTUAL, DI_LM, DI_LD, DI_CL, DI_AUTHORIZED,
	DI_METHOD, DI_XMETHOD, DI_REMOTE, DI_TZ, DI_TIMEDIFF, DI_EXTENSION,
	DI_WDB_TITLE, DI_WDB_AUTHOR, DI_EXTRA,
	DI__NFIELDS
};

/* A problem found in a block or line: what the reader reports. */
typedef struct lirs_di_problem {
	lirs_rule rule;
	unsigned long line;
	const char *field;       /* record field name, or NULL */
	char msg[256];
} lirs_di_problem;

/*
 * One block being read.  Memory is bounded: a known field given twice keeps
 * its last value (as tama does), unknown fields are not kept, and at most
 * LIRS_DI_MAX_EXTRA X-LIRS-Extra values are.
 */
typedef struct lirs_di_block {
	lb_buf v[DI__NFIELDS];
	unsigned long at[DI__NFIELDS];   /* line it was set on; 0 = absent */
	lb_buf extra;              /* X-LIRS-Extra values, NUL-separated */
	size_t nextra;
	char **xp;               /* pointers into extra / natsu for the record */
	size_t xcap;
	char *natsu[4];
	unsigned long first;     /* the block's first line; 0 = none open */
	lirs_di_problem err;          /* the first error (block skipped); rule 0 = none */
	int has_err;
} lirs_di_block;

void lirs_di_block_init(lirs_di_block *b);
void lirs_di_block_reset(lirs_di_block *b);
void lirs_di_block_release(lirs_di_block *b);

/* Header line: when it is Content-Type with a charset, sets *cs; returns 1
 * when the charset is one we do not know (named in unknown). */
int lirs_di_header_line(const char *s, size_t n, int *cs, char *unknown, size_t usz);

/*
 * One non-blank line of a block, decoded to UTF-8.  Returns 0, 1 when the
 * line is not "Field: value" (*p says so; the line is ignored), or
 * LB_ENOMEM.
 */
int lirs_di_block_line(lirs_di_block *b, const char *s, size_t n, unsigned long line, lirs_di_problem *p);

/* The record of a complete block (borrowing the block's storage); 0,
 * LB_EPARSE with *p set when the block must be skipped, or LB_ENOMEM. */
int lirs_di_block_record(lirs_di_block *b, lirs_record *r, lirs_di_problem *p);

/*
 * One hina.txt line (decoded, not blank, not a comment) into r, its strings
 * kept in text.  fetched: when the file was fetched (0 = unknown), the
 * Last-Detected we assume (lirs(5)).  Returns 0, 1 when the line is not a
 * HINA record (*p set), LB_ENOMEM when out of memory.
 */
int lirs_hina_line(const char *s, size_t n, lb_buf *text, int64_t fetched, lirs_record *r,
	      lirs_di_problem *p);

/* Decoders for the declared charsets: out gets UTF-8, bad bytes become
 * U+FFFD; *bad is the offset in out of the first one.  Return 1 when bytes
 * were replaced, 0 when not, LB_ENOMEM when out of memory. */
int lirs_di_decode_utf8(const char *s, size_t n, lb_buf *out, size_t *bad);
int lirs_di_decode_iconv(iconv_t cd, const char *s, size_t n, lb_buf *out, size_t *bad);

/* ---- writing --------------------------------------------------------- */
/* The header block; date 0 leaves the Date field out. */
int lirs_di_write_header(lb_buf *b, int utf8, int64_t date);
/* One block and the blank line after it; 1 when the record has no URL or
 * more than LIRS_DI_MAX_EXTRA extra fields and nothing was written,
 * LB_ENOMEM when out of memory. */
int lirs_di_write_record(lb_buf *b, const lirs_record *r);

/* HTTP dates (RFC 9110 §5.6.7: IMF-fixdate, RFC 850, asctime) and the
 * "YYYY/MM/DD HH:MM" of hina.txt; zone names as tama knew them.  dflt is
 * the offset of a date without a zone.  0, or LB_EPARSE when it is none. */
int lirs_di_parse_date(const char *s, int64_t dflt, int64_t *t);
/* Writes "Sun, 06 Nov 1994 08:49:37 GMT"; LB_EINVAL when t is outside
 * years 1970-9999. */
int lirs_di_format_date(int64_t t, char out[40]);

#endif
