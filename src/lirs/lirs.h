/*
 * lirs.h: the LIRS 2.1 codec (reader, writer, diagnostics).
 *
 * The codec never does I/O policy: it never opens files, prints or exits.
 * Bytes go in through lirs_reader_feed(); records and diagnostics come out
 * through callbacks.  Bytes go out of the writer through a sink callback.
 *
 * Spec: doc/specs/lirs-2.1.txt (LIRS 2.1).  What real files do instead:
 * doc/NOTES-lirs-in-the-wild.md.
 */
#ifndef LIRS_H
#define LIRS_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

/* The release: the one place it is written.  Both commands' --version, the
 * User-Agent, the HINA-DI header and index.html's generator say it; the
 * Makefile reads VERSION from this line; tests/version checks that all of
 * them and the ChangeLog's head entry agree. */
#define LIRS_VERSION "0.7.0-dev"

/* ---- errors: the library's one set, LB_E* and lb_strerror() (lb_error.h) */

/* ---- limits: named, documented (lirs(5), README), overridable -------- */
/* Decoded (inflated) bytes one input may produce: a gzip bomb stops here. */
#define LIRS_DEFAULT_MAX_DECODED ((uint64_t)1 << 30)   /* 1 GiB */
/* Longest line the reader keeps; longer lines are skipped with a diagnostic. */
#define LIRS_DEFAULT_MAX_LINE ((size_t)1 << 20)        /* 1 MiB */
/* LIRS 2.1 §4: records last detected longer ago than this are discarded. */
#define LIRS_DEFAULT_MAX_AGE 28800
/* Japan's time zone (JST), seconds east of UTC: the classic antennas' and
 * HINA-DI's zone. */
#define LIRS_TZ_JST 32400
/* HINA-DI: X-LIRS-Extra values one block may carry (more: block skipped). */
#define LIRS_DI_MAX_EXTRA 64

/* ---- formats: what the reader detected, what the writer writes --------- */
enum {
	LIRS_FORMAT_LIRS = 0,    /* LIRS 2.1 */
	LIRS_FORMAT_DI,          /* HINA-DI 2.x ("HINA/2.1" first line) */
	LIRS_FORMAT_HINA,        /* hina.txt (reader only) */
};

/* ---- records --------------------------------------------------------- */
/*
 * One record, decoded to UTF-8.  Text fields are NUL-terminated and never
 * NULL.  A field written as "0" (the spec's blank, §2) reads as "" for url,
 * title, author and source_url; the extension is kept as written.
 * extra[] holds fields after the 9th, in order (tama-style files).
 */
/* Marks of one kind in a record: how many, the first one's field (1-based)
 * and column. */
typedef struct lirs_bs_marks {
	unsigned n, field;
	unsigned long col;
} lirs_bs_marks;

typedef struct lirs_record {
	int64_t last_modified;   /* §3.1, Unix time, 0 = unknown */
	int64_t last_detected;   /* §3.2 */
	int64_t tz_offset;       /* §3.3, seconds east of UTC */
	int64_t content_length;  /* §3.4 */
	char *url;               /* §3.5 */
	char *title;             /* §3.6 */
	char *author;            /* §3.7 */
	char *source_url;        /* §3.8 */
	char *extension;         /* §3.9 */
	char **extra;            /* nextra fields beyond the 9th */
	size_t nextra;
	unsigned long line;      /* line it started on in its input, 0 if none */
	/* 1-based character column where each of the 9 fields starts in its
	 * line, 0 = unknown (records not read from a file, a missing extension) */
	unsigned long col[9];
	/* How the line was written (the reader fills these; 0 for records not
	 * read from a file): the number of fields, whether it ended in ',',
	 * and the first field whose raw text (before unescaping) holds "\,"
	 * or whose value ends in a backslash (1-based, 0 = none) with the
	 * column of that backslash.  Both are what a writer that forgot to
	 * double a backslash leaves (lirs(5), backslash-shift). */
	unsigned nfields;
	unsigned char trailing_comma;
	unsigned bs_field;
	unsigned long bs_col;
	/* What such a writer may have moved, the line's last ',' aside (it
	 * changes no count): each "\," may be a '\' and a separator it
	 * swallowed (one field fewer than written), each ',' after a field
	 * whose value ends in '\' ("\\,") may be a comma it split at (one
	 * more).  A correct writer's record needs no such move to have the
	 * file's usual count (lirs_checker_finish()). */
	lirs_bs_marks bs_comma, bs_sep;
} lirs_record;

/* Deep copy: *dst owns its strings; release with lirs_record_release(). */
int lirs_record_copy(lirs_record *dst, const lirs_record *src);
/* Frees the strings of a record made by lirs_record_copy(); zeroes it. */
void lirs_record_release(lirs_record *r);
/*
 * tama's NATSU-style records have 13 data fields (14 with "LIRS"): the 9th
 * (LIRS 2.1's extension, NATSU's field 10) is the URL actually checked, the
 * 13th (extra[3], NATSU's field 14) the check method (GET, HEAD, CACHE,
 * FILE, LENGTH, KEYWORD) or the URL of the antenna it came from.  Both
 * return NULL for a record with fewer fields.  lirs(5)
 */
const char *lirs_record_checked_url(const lirs_record *r);
const char *lirs_record_method(const lirs_record *r);

/* ---- diagnostics ----------------------------------------------------- */
typedef enum { LIRS_SEV_NOTE = 0, LIRS_SEV_WARNING, LIRS_SEV_ERROR } lirs_severity;

/*
 * Every rule has one stable id (used in messages, man page, JSON output).
 * The table lives in rules.c: lirs_rule_id(), lirs_rule_severity(),
 * lirs_rule_summary().  Keep this enum, the table and lirs(5) in step.
 */
typedef enum {
	/* input level (reader) */
	LIRS_R_NOT_GZIP,          /* warning: input is not gzip-compressed */
	LIRS_R_GZIP_CORRUPT,      /* error: corrupt gzip stream (fatal) */
	LIRS_R_GZIP_TRUNCATED,    /* error: gzip stream ends early (fatal) */
	LIRS_R_GZIP_TRAILING,     /* warning: non-gzip bytes after the last member */
	LIRS_R_TOO_BIG,           /* error: decoded size over the limit (fatal) */
	LIRS_R_INVALID_ENCODING,  /* error: neither EUC-JP nor UTF-8; U+FFFD used */
	LIRS_R_UTF8_FALLBACK,     /* warning: line decoded as UTF-8 (§7) */
	LIRS_R_LONE_CR,           /* error: CR not followed by LF (§2); taken as a line end */
	LIRS_R_NUL_BYTE,          /* error: NUL byte in a line; replaced by U+FFFD */
	LIRS_R_LINE_TOO_LONG,     /* error: line over max_line; record skipped */
	LIRS_R_NO_PREFIX,         /* error: line does not start with "LIRS,"; skipped */
	LIRS_R_TOO_FEW_FIELDS,    /* error: fewer than 8 fields; skipped */
	LIRS_R_NO_EXTENSION,      /* warning: 8 fields, the extension is missing */
	LIRS_R_EXTRA_FIELDS,      /* warning: more than 9 fields; extras kept */
	LIRS_R_NO_TRAILING_COMMA, /* warning: record does not end with ',' */
	LIRS_R_BAD_NUMBER,        /* error: a number field is not an integer; skipped */
	LIRS_R_UNKNOWN_ESCAPE,    /* warning: '\' not followed by ',' or '\'; kept */
	LIRS_R_BLANK_FIELD,       /* warning: empty field that SHOULD be "0" (§2) */
	/* record level (validate.c, lirs_check_record) */
	LIRS_R_TZ_RANGE,          /* error: time difference outside [-43200, 50400] */
	LIRS_R_NEGATIVE,          /* error: negative time or content length */
	LIRS_R_ZERO_TIME,         /* warning: Last-Modified or Last-Detected is 0 */
	LIRS_R_FUTURE,            /* warning: Last-Detected after now */
	LIRS_R_STALE,             /* warning: Last-Detected older than max_age (§4) */
	LIRS_R_MODIFIED_AFTER_DETECTED, /* warning */
	LIRS_R_BAD_URL,           /* error: URL not an absolute http(s) URL */
	LIRS_R_DUPLICATE_URL,     /* error: URL seen before in the file (§3.5) */
	LIRS_R_EXTENSION_ZERO,    /* warning: extension is "0" (§3.9) */
	/* HINA-DI and hina.txt (di.c) */
	LIRS_R_FORMAT,            /* note: the input is HINA-DI or hina.txt */
	LIRS_R_DI_BAD_LINE,       /* warning: a DI line that is not "Field: value"; ignored */
	LIRS_R_DI_NO_URL,         /* error: a DI block without URL; skipped */
	LIRS_R_DI_BAD_DATE,       /* error: a DI date that is not an HTTP date; skipped */
	LIRS_R_DI_CHARSET,        /* warning: a DI charset we do not know */
	LIRS_R_DI_TOO_MANY_EXTRA, /* error: over LIRS_DI_MAX_EXTRA X-LIRS-Extra; skipped */
	LIRS_R_HINA_BAD_LINE,     /* error: a hina.txt line that is not a record; skipped */
	LIRS_R_BACKSLASH_SHIFT,   /* error: fields shifted by an undoubled backslash */
	LIRS_R_LAYOUT,            /* note: the file's layout is a known writer's */
	LIRS_R_UNESCAPED_COMMA,   /* error: source URL not a URL: fields shifted by a ',' */
	LIRS_R_FUTURE_DROPPED,    /* error: a time past now + max_future: readers drop it */
	LIRS_R_SHIFT_JIS,         /* error: a line in Shift_JIS (CP932), not EUC-JP */
	LIRS_R_NOT_LIRS,          /* error: an HTML page, not LIRS (fatal) */
	LIRS_R_EMPTY_FILE,        /* warning: the file is empty (0 bytes) */
	LIRS_R_BOM,               /* error: a UTF-8 byte order mark starts the file */
	LIRS_R_CLASS,             /* note: what the file's problems amount to (validate) */
	LIRS_R__COUNT
} lirs_rule;

/*
 * What a rule's diagnostic means for the file (lirs(1), EXIT STATUS): a
 * note; advice (a SHOULD of LIRS 2.1 not followed); nonconforming (a MUST
 * broken that every reader copes with: nothing is lost); data lost (a
 * record or a field that readers drop or read wrong).  Every error rule
 * is LIRS_CLASS_LOST and every LIRS_CLASS_LOST rule an error.
 */
typedef enum {
	LIRS_CLASS_NOTE = 0, LIRS_CLASS_ADVICE, LIRS_CLASS_COPED, LIRS_CLASS_LOST
} lirs_class;
lirs_class lirs_rule_class(lirs_rule r);
/* "note", "advice (SHOULD)", "nonconforming (readers cope)", "error (data lost)" */
const char *lirs_class_name(lirs_class c);

/*
 * The one form in which a diagnostic quotes a time: the epoch and the UTC
 * date beside it, "1700000000 (2023-11-14 22:13:20 UTC)" (the epoch alone
 * when the year is outside 0..9999).  Writes at most n bytes with the NUL;
 * returns buf.  LIRS_TIME_STR is a size that always suffices.
 */
#define LIRS_TIME_STR 64
char *lirs_time_str(char *buf, size_t n, int64_t t);

/* The likely cause backslash-shift names (reader.c and validate.c). */
#define LIRS_SHIFT_CAUSE "every later field is shifted; the writer probably did not double " \
	"a backslash (tama) or made one of '¥' after escaping (samidare)"

const char *lirs_rule_id(lirs_rule r);        /* "lone-cr" */
lirs_severity lirs_rule_severity(lirs_rule r);
const char *lirs_rule_summary(lirs_rule r);   /* one line for docs/--help */
const char *lirs_severity_name(lirs_severity s); /* "error", "warning", "note" */

typedef struct lirs_diag {
	const char *file;        /* as given in the reader options, may be NULL */
	unsigned long line;      /* 1-based; 0 = the whole input */
	unsigned long col;       /* 1-based character column; 0 = unknown */
	lirs_rule rule;
	lirs_severity severity;  /* = lirs_rule_severity(rule) */
	int skipped;             /* the record on this line was not delivered */
	const char *field;       /* "title", "url"... or NULL */
	const char *message;     /* lowercase, problem first, no full stop */
} lirs_diag;

/* ---- reader: a push parser ------------------------------------------- */
/* Return nonzero from on_record to stop reading (feed returns LB_ESTOP). */
typedef int (*lirs_record_fn)(void *ctx, const lirs_record *r);
typedef void (*lirs_diag_fn)(void *ctx, const lirs_diag *d);

typedef struct lirs_reader_opts {
	const char *filename;    /* for diagnostics only */
	uint64_t max_decoded;    /* 0 = LIRS_DEFAULT_MAX_DECODED */
	size_t max_line;         /* 0 = LIRS_DEFAULT_MAX_LINE */
	lirs_record_fn on_record;
	lirs_diag_fn on_diag;    /* may be NULL */
	void *ctx;
	/* hina.txt has no Last-Detected: the reader takes this time (when the
	 * file was fetched, Unix time), or Last-Modified when it is 0. lirs(5) */
	int64_t fetched;
	/* LIRS_CHARSET_AUTO (0): EUC-JP, a line that is not falls back to
	 * UTF-8 (LIRS 2.1 §7); LIRS_CHARSET_CP932: every line is Shift_JIS
	 * (Windows' CP932), read because the user asked (--charset cp932). */
	int charset;
} lirs_reader_opts;
enum { LIRS_CHARSET_AUTO = 0, LIRS_CHARSET_CP932 = 1 };

typedef struct lirs_reader_stats {
	uint64_t bytes_in;       /* raw bytes fed */
	uint64_t bytes_decoded;  /* after gunzip */
	unsigned long lines;
	unsigned long records;   /* delivered */
	unsigned long skipped;   /* lines that looked like records but were not delivered */
	unsigned long comments;
	unsigned long errors, warnings;
	int gzip;                /* input was gzip */
	int format;              /* LIRS_FORMAT_*, known after the first line */
} lirs_reader_stats;

typedef struct lirs_reader lirs_reader;

/* Returns NULL when out of memory or iconv cannot be opened. */
lirs_reader *lirs_reader_new(const lirs_reader_opts *opts);
/*
 * Feed any number of bytes, any chunk size.  Records are delivered as
 * soon as their line is complete.  The record passed to on_record is
 * borrowed: valid only during the call.  Returns 0 or a negative LIRS_E*
 * code; a fatal error is also delivered as an error diagnostic, and after
 * one, feed and finish return it again.
 */
int lirs_reader_feed(lirs_reader *rd, const void *buf, size_t len);
/* End of input: delivers a last line without LF, checks gzip ended. */
int lirs_reader_finish(lirs_reader *rd);
const lirs_reader_stats *lirs_reader_get_stats(const lirs_reader *rd);
void lirs_reader_free(lirs_reader *rd);

/* ---- writer ---------------------------------------------------------- */
/* A sink takes bytes; returns 0, or a negative value on failure (errno
 * set).  It may be called from the writer's deflate thread.  The writer
 * functions that return LB_ESINK keep the sink's errno for
 * lirs_writer_error() (and set the caller's errno to it too). */
typedef int (*lirs_sink_fn)(void *ctx, const void *buf, size_t len);

typedef struct lirs_writer_opts {
	int utf8;                /* write UTF-8 instead of EUC-JP */
	int no_gzip;             /* write plain text */
	int level;               /* gzip level, 0 = default (6) */
	lirs_sink_fn sink;
	void *ctx;
	int format;              /* LIRS_FORMAT_LIRS (0) or LIRS_FORMAT_DI */
	int64_t date;            /* DI: the header's Date (Unix time), 0 = none */
	int euc_jp_ms;           /* write EUC-JP-MS: NEC and IBM extension codes
				  * (①, ㈱, 髙) as such, not their readable forms */
	size_t max_line;         /* a record with a longer line is left out (the
				  * reader with this max_line would skip it);
				  * 0 = LIRS_DEFAULT_MAX_LINE */
} lirs_writer_opts;

typedef struct lirs_writer lirs_writer;

lirs_writer *lirs_writer_new(const lirs_writer_opts *opts);
/* A "# text" comment line; newlines in text are replaced by spaces. */
int lirs_writer_comment(lirs_writer *w, const char *text);
/*
 * Writes one record: escapes '\' and ',', replaces CR/LF in fields by a
 * space, writes "0" for blank fields except the extension, ends with ","
 * and LF.  Characters EUC-JP cannot hold become U+3013 and are counted;
 * characters EUC-JP holds only as a look-alike are written so and counted;
 * vendor characters take their readable forms and are counted (unless
 * euc_jp_ms).  A record with a line longer than max_line is left out and
 * counted (lirs_writer_too_long()).
 */
int lirs_writer_add(lirs_writer *w, const lirs_record *r);
/* Flushes everything, writes the gzip trailer.  Call once. */
int lirs_writer_finish(lirs_writer *w);
/*
 * The writer's failure, which every later call returns again: 0 when
 * none, else its code, set in err (may be NULL) with a message; for
 * LB_ESINK the sink's errno is in err->sys, so that a caller need not
 * read errno (which the deflate thread cannot set for it).
 */
int lirs_writer_error(const lirs_writer *w, lb_error *err);
/* Characters replaced by U+3013 so far. */
unsigned long lirs_writer_replaced(const lirs_writer *w);
/*
 * Of those, the U+FFFD: bytes the reader could not decode (invalid-encoding,
 * nul-byte), whose characters are lost already; UTF-8 output would keep
 * only the U+FFFD.  Always 0 with utf8.
 */
unsigned long lirs_writer_undecoded(const lirs_writer *w);
/*
 * Characters written so far as bytes that read back as another, look-alike
 * character: EUC-JP has one code for several Unicode characters (U+301C
 * WAVE DASH and U+FF5E FULLWIDTH TILDE are both A1 C1; U+00A5 YEN SIGN is
 * written as U+FFE5 FULLWIDTH YEN SIGN).  See lirs(5).
 */
unsigned long lirs_writer_approximated(const lirs_writer *w);
/* DI: records left out because they have no URL (a DI block needs one) or
 * more than LIRS_DI_MAX_EXTRA extra fields (a DI reader would skip them). */
unsigned long lirs_writer_skipped(const lirs_writer *w);
/* Records left out because one of their lines, as encoded, is longer than
 * max_line (default LIRS_DEFAULT_MAX_LINE): our reader would skip it
 * (line-too-long), so the writer never writes it; every record written is
 * read back whole by a reader with the same max_line. */
unsigned long lirs_writer_too_long(const lirs_writer *w);
/*
 * Vendor characters (NEC row 13, IBM extensions) written so far as their
 * readable forms, because strict EUC-JP cannot hold them: ① as "(1)",
 * ㈱ as "(株)", 髙 as 高.  Always 0 with euc_jp_ms or utf8.  See lirs(5).
 */
unsigned long lirs_writer_substituted(const lirs_writer *w);
void lirs_writer_free(lirs_writer *w);

/* A sink that appends to a stdio FILE* (ctx). */
int lirs_sink_stdio(void *ctx, const void *buf, size_t len);

/* ---- record checks (validate.c) -------------------------------------- */
typedef struct lirs_checker lirs_checker;
typedef struct lirs_check_opts {
	int64_t now;             /* Unix time for the freshness rules */
	int64_t max_age;         /* 0 = LIRS_DEFAULT_MAX_AGE */
	const char *filename;
	lirs_diag_fn on_diag;
	void *ctx;
	/*
	 * duplicate-url keeps a 16-byte slot per URL in memory and the URL
	 * keys themselves in a scratch store, read back only to confirm a
	 * hash match and when the table grows.  With spill set, spill_fd is an
	 * open, empty read-write file the caller made for it (an unlinked
	 * temporary file; the checker neither closes nor names it); otherwise
	 * the keys stay in memory.
	 */
	int spill;
	int spill_fd;
	/* Tests only: keep this many low bits of the URL-key hash (1..63) to
	 * force collisions; 0 = all 64. */
	unsigned test_hash_bits;
	/* future-dropped: a Last-Modified or Last-Detected more than this many
	 * seconds after now is dropped by lirs merge, lirs atom and antennas
	 * (lirs_merge_check_at()); 0 = LIRS_DEFAULT_MAX_FUTURE (lirs_merge.h). */
	int64_t max_future;
} lirs_check_opts;
/* Record-level rules over one file; remembers URLs for duplicate-url. */
lirs_checker *lirs_checker_new(const lirs_check_opts *opts);
/* Emits diagnostics for r; returns the number of errors found. */
int lirs_checker_check(lirs_checker *c, const lirs_record *r);
/*
 * backslash-shift compares a record's field count with the file's usual
 * count, decided from the first LIRS_LAYOUT_RECORDS records (their most
 * common count, records without a suspicious backslash first).  Records
 * before that are kept (a few numbers each) and judged when it is decided:
 * their diagnostics come then.  lirs_checker_finish() decides it for a
 * shorter file; call it once at the end of the input.  Returns the number
 * of errors it emitted, or LB_ENOMEM when a duplicate check failed (out
 * of memory, or its scratch file).
 */
#define LIRS_LAYOUT_RECORDS 16
int lirs_checker_finish(lirs_checker *c);

/* The file's usual shape, as far as decided. */
typedef struct lirs_layout {
	int decided;             /* after LIRS_LAYOUT_RECORDS records or finish */
	unsigned nfields;        /* the usual field count; 0 = no record yet */
	int trailing_comma;      /* its records usually end in ',' */
	unsigned long records;   /* records with that count and ending */
	const char *name;        /* "samidare" (8 fields and ','), "tama" (13,
				  * no ','), "lirs-2.1" (9 and ','), or NULL */
	lirs_rule usual[2];      /* the warnings this shape gives on every record */
	size_t nusual;
} lirs_layout;
void lirs_checker_layout(const lirs_checker *c, lirs_layout *out);
/* 0, or the errno of what lost the duplicate checks (out of memory, a
 * scratch file error): the diagnostics may then miss duplicates. */
int lirs_checker_failed(const lirs_checker *c);
void lirs_checker_free(lirs_checker *c);

#endif
