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
 * ant_import() reads them into a database.  Its parsers (import_int.h,
 * the engine's own) are pure: bytes in, entries and diagnostics out through
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
const char *ant_import_format_name(ant_imp_format f);
/* The format named s, or ANT_IMP_FMT_UNKNOWN. */
ant_imp_format ant_import_format_from_name(const char *s);

typedef enum {
	ANT_IMP_ERROR = 0,           /* bad input: the entry (or the file) is skipped */
	ANT_IMP_UNMAPPED,            /* a setting the antenna has no equivalent for */
	ANT_IMP_NOTE,                /* mapped, but not exactly */
	ANT_IMP_REPORT,              /* ant_import(): what was (or would be) changed */
} ant_imp_severity;

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
