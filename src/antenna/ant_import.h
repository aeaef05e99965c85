/*
 * ant_import.h: the watch lists of other antennas, read into entries.
 *
 *   samidare   config.yml (akr/samidare): a YAML sequence of URLs, entry
 *              mappings (URI: ...), default mappings and nested lists
 *   tama       sites.cfg / remote.cfg (wakaba/tama, "たまてばこ"): the
 *              "Version: 1.x" block format or the older CSV lines
 *   opml       an OPML outline (nested outlines are groups)
 *   jsonl      what 'antenna export --format jsonl' writes: one JSON
 *              object per page or source, with the pages' update times
 *
 * Parsers are pure: bytes in, entries and diagnostics out through
 * callbacks, no files, no printing.  The whole input is given at once
 * (configuration files are small; ANT_IMPORT_DEFAULT_MAX_BYTES bounds them in
 * the command).  Strings in entries and diagnostics are borrowed: valid
 * only during the callback.  antenna(1) "IMPORT" lists every mapping.
 */
#ifndef ANT_IMPORT_H
#define ANT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "ant_store.h"
#include "lb_error.h"

/* Largest configuration file antenna import reads (--max-bytes). */
#define ANT_IMPORT_DEFAULT_MAX_BYTES ((size_t)64 << 20)
/* Deepest nesting of YAML lists / OPML outlines followed. */
#define ANT_IMPORT_MAX_DEPTH 64
/* YAML nodes visited at most (aliases can make a small file huge). */
#define ANT_IMPORT_MAX_NODES 1000000

/* The namespace of OPML attributes antenna export adds (author, ignore,
 * charset, only, feed, check-url, no-auto-ignore; a source's relay). */
#define ANT_IMP_OPML_NS "tag:lirs-antenna,2026:opml"

typedef enum {
	ANT_IMP_FMT_UNKNOWN = 0,
	ANT_IMP_FMT_SAMIDARE,
	ANT_IMP_FMT_TAMA,
	ANT_IMP_FMT_OPML,
	ANT_IMP_FMT_LIRS,
	ANT_IMP_FMT_JSONL,
} ant_imp_format;

/* "samidare", "tama", "opml", "lirs", "jsonl"; NULL for unknown. */
const char *ant_imp_format_name(ant_imp_format f);
/* The format named s, or ANT_IMP_FMT_UNKNOWN. */
ant_imp_format ant_imp_format_from_name(const char *s);
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
} ant_imp_entry;

typedef enum {
	ANT_IMP_ERROR = 0,           /* bad input: the entry (or the file) is skipped */
	ANT_IMP_UNMAPPED,            /* a setting the antenna has no equivalent for */
	ANT_IMP_NOTE,                /* mapped, but not exactly */
	ANT_IMP_REPORT,              /* ant_import(): what was (or would be) changed */
} ant_imp_severity;

typedef struct ant_imp_diag {
	ant_imp_severity severity;
	unsigned long line, col; /* 1-based; 0 unknown */
	const char *message;     /* lowercase, problem first, no full stop */
} ant_imp_diag;

/* Return nonzero from on_entry to stop (the parser then returns -1). */
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

/* ---- ant_import(): the entries applied to a database ----------------------------- */

/*
 * What ant_import() says, in the order it happens.  ANT_IMP_ERROR,
 * _UNMAPPED and _NOTE are about file (at line and col, 0 unknown) when
 * file is not NULL; an ANT_IMP_ERROR without file is about a file that
 * could not be read (the message names it).  ANT_IMP_REPORT is a line of
 * the report: "add page URL; title '...'", "would update page URL: title",
 * "FILE (tama.cfg): 2 site files, 1 remote file".  message is borrowed.
 */
typedef struct ant_import_note {
	ant_imp_severity severity;
	const char *file;
	unsigned long line, col;
	const char *message;
} ant_import_note;

/* What one file (or, from ant_import(), all of them) did. */
typedef struct ant_import_stats {
	unsigned added, updated, same;   /* pages */
	unsigned src_added, src_same;    /* sources */
	unsigned timed;                  /* pages whose update times were taken */
	unsigned errors;                 /* entries (or files) skipped */
	unsigned unmapped;               /* settings with no equivalent here */
} ant_import_stats;

typedef struct ant_import_opts {
	const char *const *files;
	size_t nfiles;
	ant_imp_format from;     /* ANT_IMP_FMT_UNKNOWN: each file's own, from its content */
	const char *group;       /* for imported pages without one; NULL none */
	int64_t now;             /* the time of the import */
	size_t max_bytes;        /* largest file read; 0 ANT_IMPORT_DEFAULT_MAX_BYTES */
	int dry_run;             /* do it all, then roll it back */
	void (*on_note)(void *ctx, const ant_import_note *n);
	/* after each file read, with its counts */
	void (*on_file)(void *ctx, const char *file, ant_imp_format f, const ant_import_stats *st);
	void *ctx;
} ant_import_opts;

/*
 * Imports o->files into s (opened by the caller) in one transaction,
 * holding the run lock (ANT_STORE_LOCK_WAIT: an update running now would
 * write its older view back), committed unless o->dry_run.  Files are
 * read as antenna(1) "IMPORT" says; bad entries and unreadable files are
 * skipped with an ANT_IMP_ERROR note and counted in total->errors.
 * Returns 0, or a negative LB_E* code (LB_EDB, LB_EBUSY, LB_ENOMEM; err
 * says why), and then nothing is kept.  total may be NULL.
 */
int ant_import(ant_store *s, const ant_import_opts *o, ant_import_stats *total, lb_error *err);

#endif
