/*
 * import_int.h: what the importers (import*.c) share; not for commands:
 * the parsers of each format (ant_import.h says what they read) and
 * their helpers (import_common.c).
 */
#ifndef ANT_IMPORT_INT_H
#define ANT_IMPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "ant_import.h"

/* ---- the parsers: bytes in, entries and diagnostics out (ant_import.h) ---- */

/* Guesses the format of an input from its first bytes (antenna(1) IMPORT). */
ant_imp_format ant_imp_detect(const char *buf, size_t len);

typedef enum { ANT_IMP_PAGE = 0, ANT_IMP_SOURCE } ant_imp_kind;

typedef struct ant_imp_entry {
	ant_imp_kind kind;
	int atom;                /* ANT_IMP_SOURCE: an Atom source ('add --atom'), else LIRS */
	int sitemap;             /* ANT_IMP_SOURCE: a sitemap ('add --sitemap'; atom 0) */
	int relay;               /* ANT_IMP_SOURCE: a relay source ('add --relay') */
	int64_t last_modified;   /* ANT_IMP_PAGE from jsonl: the page's times, 0 none */
	int64_t last_detected;
	const char *url;         /* as written (resolved for relative URLs) */
	const char *title;       /* "" none */
	int title_by_user;       /* the operator wrote the title (not a <title>) */
	const char *author;      /* "" none */
	const char *group;       /* "" none */
	const char *ignore;      /* ant_page.h patterns, one per line, "" none */
	const char *charset;     /* forced charset label, "" none */
	unsigned long line;      /* where the entry starts */
	/* region watching and checking; NULL or "" none: */
	const char *only;        /* ant_page.h patterns, one per line: only these
				    parts decide (tama's Regexp) */
	const char *feed;        /* the page's feed, as 'add --feed' (samidare's
				    URI when LinkURI names the page) */
	const char *check_url;   /* fetched to check the page, url is shown
				    (tama's Check-URL) */
	int no_auto_ignore;      /* 'add --no-auto-ignore' */
	const char *moved_from;  /* jsonl: the URL it moved from (ant_pagestate.h), "" none */
	int64_t moved_at;
	int ignore_robots;       /* 'set --ignore-robots' (JSON Lines) */
	/* what the operator means (schema 16); NULL or "" none: */
	const char *when;        /* 'add --when' patterns, one per line (ant_when.h) */
	const char *taught;      /* 'set --not-news' noise (ant_taught.h lines, JSON Lines) */
	int render;              /* 'add --render' */
} ant_imp_entry;

typedef struct ant_imp_diag {
	ant_imp_severity severity;
	unsigned long line, col; /* 1-based; 0 unknown */
	const char *message;     /* lowercase, problem first, no full stop */
} ant_imp_diag;

/* Return nonzero from on_entry to stop (the parser then returns LB_ESTOP). */
typedef struct ant_imp_opts {
	int (*on_entry)(void *ctx, const ant_imp_entry *e);
	void (*on_diag)(void *ctx, const ant_imp_diag *d);
	void *ctx;
	const char *name_hint;   /* the file name: tama's "remote" file is told by it */
} ant_imp_opts;

/*
 * Each parser returns 0 when the input was read (entries may still have
 * been skipped with error diagnostics); LB_EPARSE when it could not be
 * read at all (an error diagnostic says why); LB_ESTOP when on_entry
 * stopped it; LB_ENOMEM (an error diagnostic too).
 */
int ant_imp_parse_samidare(const char *buf, size_t len, const ant_imp_opts *o);
int ant_imp_parse_tama(const char *buf, size_t len, const ant_imp_opts *o);
int ant_imp_parse_opml(const char *buf, size_t len, const ant_imp_opts *o);
int ant_imp_parse_jsonl(const char *buf, size_t len, const ant_imp_opts *o);

/*
 * tama's tama.cfg (Ruby code): the files its $site hash names ("path" =>
 * "name") and its $remote_cfg_path, as string literals; the one
 * interpolation tama's own file uses, #{$tama_cfg_dirname}, becomes dir.
 * on_file gets each (remote 1 for the remote file); anything else in the
 * file is tama's output settings, not a watch list, and is skipped.
 * Returns 0, LB_EPARSE (an error diagnostic says why) when there is no
 * $site, or LB_ENOMEM.
 */
typedef struct ant_imp_tama_file {
	const char *path;
	const char *name;        /* the output name ("sites"); "" for remote */
	int remote;
	unsigned long line;
} ant_imp_tama_file;
int ant_imp_parse_tama_cfg(const char *buf, size_t len, const char *dir,
		       void (*on_file)(void *ctx, const ant_imp_tama_file *f), const ant_imp_opts *o);
/* 1 when buf looks like a tama.cfg (a line assigning $site). */
int ant_imp_is_tama_cfg(const char *buf, size_t len);

/*
 * Converts a configuration file to UTF-8: a BOM or valid UTF-8 is UTF-8;
 * else hint (a charset label, may be NULL); else EUC-JP (as EUC-JP-MS),
 * else Shift_JIS (as CP932), the first that decodes without error.  out
 * is reset and NUL-terminated.  Returns the charset used ("UTF-8",
 * "EUC-JP", "SHIFT_JIS" or the hint), or NULL when none decodes.
 */
struct lb_buf;
const char *ant_imp_to_utf8(const char *buf, size_t len, const char *hint, struct lb_buf *out);

void ant_imp_diagf(const ant_imp_opts *o, ant_imp_severity sev, unsigned long line, unsigned long col,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* n bytes that page.c takes after '#' or '.' (letters, digits, '-', '_', non-ASCII). */
int ant_imp_name_ok(const char *s, size_t n);
/* Appends prefix + s[0..n) as one more pattern line; 0, or LB_ENOMEM. */
int ant_imp_add_pattern(lb_buf *ign, const char *prefix, const char *s, size_t n);
/* Appends a regular expression, bracketing a leading '#' or '.' so that
 * page.c does not take it for an id or a class. */
int ant_imp_add_regex(lb_buf *ign, const char *s, size_t n);

/*
 * A Perl (or Ruby) regular expression s[0..n) as a POSIX extended one, for
 * ant_page.h patterns: \d \D \s \S \w \W as bracket classes (in brackets
 * too), (?:...) and named groups as (...), lazy quantifiers (*? +? ??
 * {n,m}?) greedy, \t \n \r \f \v as [[:space:]] (the text's whitespace
 * is collapsed), an escaped punctuation character as itself, a '{' that
 * starts no interval as \{.  Returns 0 (out: the expression), LB_EINVAL
 * with *why naming the first construct with no POSIX equivalent
 * (lookaround, back-reference, \b, inline flags, possessive or atomic
 * groups, ...), or LB_ENOMEM.
 */
int ant_imp_perl_to_ere(const char *s, size_t n, lb_buf *out, char *why, size_t whylen);

#endif
