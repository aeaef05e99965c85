/*
 * store.h: the antenna's state in one SQLite file.  The only file with SQL
 * for it (the Atom events live in the same file through evstore.h, which
 * attaches to store_db()).
 *
 * - Schema versioned by PRAGMA user_version, brought up to date by the
 *   migrations in store.c; a file from a newer antenna is refused.
 * - WAL journal, a busy timeout, and every change of an update run inside
 *   transactions (store_begin/store_commit), so kill -9 at any moment
 *   leaves a consistent file that the next run carries on from.
 * - A run lock (store_lock): an fcntl() write lock on the file "DB.lock"
 *   beside the database, held for the whole update (fetching included,
 *   which no SQLite transaction should span).  The kernel drops it when
 *   the process dies, so a killed run never leaves a stale lock.
 *
 * Strings returned in structs are owned by the struct: release with the
 * matching *_release().
 */
#ifndef LIRS_STORE_H
#define LIRS_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "detect.h"

#define STORE_SCHEMA_VERSION 3
#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_LOCK_WAIT 3          /* seconds a second run waits for the lock */

typedef struct store store;
struct sqlite3;

enum { STORE_OPEN_EXISTING = 0, STORE_OPEN_CREATE = 1 };

/*
 * Opens (or with STORE_OPEN_CREATE creates) the database at path and
 * migrates it to STORE_SCHEMA_VERSION.  Returns 0, or -1 with a message.
 */
int store_open(store **out, const char *path, int mode, char *err, size_t errlen);
void store_close(store *s);
struct sqlite3 *store_db(store *s);
const char *store_path(const store *s);

/* Takes the run lock, waiting up to wait_seconds.  Released by store_close(). */
int store_lock(store *s, int wait_seconds, char *err, size_t errlen);

int store_begin(store *s, char *err, size_t errlen);
int store_commit(store *s, char *err, size_t errlen);
void store_rollback(store *s);

/* PRAGMA integrity_check: 0 when "ok", else -1 with the first problem. */
int store_check(store *s, char *err, size_t errlen);

/* ---- sizes (antenna check-db) ------------------------------------------ */
typedef struct store_size {
	char *name;              /* a table; its indexes are counted with it */
	int64_t rows;
	int64_t bytes;           /* pages of the table and its indexes; -1 unknown */
} store_size;

typedef struct store_sizes {
	int64_t page_size, pages, free_pages;  /* the file: pages * page_size bytes */
	int exact;               /* bytes per table from SQLite's dbstat table */
	store_size *t;           /* every table, by name */
	size_t n;
} store_sizes;

/* Rows (count(*), a full read of each table) and bytes per table. */
int store_sizes_get(store *s, store_sizes *out, char *err, size_t errlen);
void store_sizes_free(store_sizes *z);

/* ---- config: key/value ------------------------------------------------- */
int store_config_set(store *s, const char *key, const char *value, char *err, size_t errlen);
/* A malloc'd copy of the value, or NULL when unset. */
char *store_config_get(store *s, const char *key);
int64_t store_config_int(store *s, const char *key, int64_t dflt);
int store_config_set_int(store *s, const char *key, int64_t v, char *err, size_t errlen);

/* ---- watched pages ------------------------------------------------------ */
typedef struct store_page {
	int64_t id;
	char *url;
	char *url_key;           /* merge.h normalisation: one page per key */
	char *title;             /* "" unknown */
	int title_set_by_user;   /* then <title> never replaces it */
	char *author;
	char *group;
	char *ignore;            /* page.h patterns, one per line; "" = none */
	char *etag;              /* validators as the server sent them, or NULL */
	char *lm_header;
	char *charset;           /* what the page was last decoded from, or NULL */
	char *source_url;        /* the page itself, or the relaying LIRS source */
	char *last_error;        /* NULL when the last check succeeded */
	int64_t created;
	/* feeds (issue 9) */
	char *feed_url;          /* the page's feed, or NULL (st.feed_time: its newest date) */
	int feed_by_user;        /* given by 'add --feed': never replaced by discovery */
	char *feed_etag;         /* the feed's validators */
	char *feed_lm_header;
	char *feed_error;        /* NULL when the last feed check succeeded */
	char *excerpt;           /* what the last update added; "" none */
	uint32_t *segs;          /* page.h segment hashes of the last text; malloc'd */
	size_t nsegs;
	detect_state st;
	char *force_charset;     /* page.h page_analyze_forced(); "" = none */
	int64_t imported;        /* when antenna import added it; 0 = not imported */
} store_page;

void store_page_init(store_page *p);
void store_page_release(store_page *p);

/* Adds p (id ignored).  Returns 0, 1 when the url_key is already there, -1 on error. */
int store_page_add(store *s, const store_page *p, char *err, size_t errlen);
/* Removes by url_key: returns 1 removed, 0 none, -1 error. */
int store_page_remove(store *s, const char *url_key, char *err, size_t errlen);
/* Looks up by url_key: 1 found (*out filled), 0 none, -1 error. */
int store_page_get(store *s, const char *url_key, store_page *out, char *err, size_t errlen);
/* All pages, by url.  *out is malloc'd; free with store_pages_free(). */
int store_pages_load(store *s, store_page **out, size_t *n, char *err, size_t errlen);
void store_pages_free(store_page *p, size_t n);
/* Writes back everything a check or a relay changes (by id). */
int store_page_save(store *s, const store_page *p, char *err, size_t errlen);

/* Writes back what the operator sets (antenna import): title and whether
 * the user set it, author, group, ignore, force_charset (by id). */
int store_page_set_config(store *s, const store_page *p, char *err, size_t errlen);

/* ---- LIRS sources -------------------------------------------------------- */
typedef struct store_source {
	int64_t id;
	char *url;
	char *url_key;
	char *etag;
	char *lm_header;
	char *last_error;        /* NULL when the last fetch succeeded */
	long last_status;
	int64_t last_fetch;      /* last attempt */
	int64_t last_ok;         /* last successful fetch (200 or 304) */
	int64_t created;
	int64_t records_read;    /* of the last body read */
	int64_t records_skipped; /* bad records, stale or unusable ones */
	int64_t records_merged;  /* records that updated a watched page */
	int64_t records_ignored; /* records for pages this antenna does not watch */
	int kind;                /* STORE_SOURCE_LIRS or STORE_SOURCE_ATOM */
	int64_t last_entry;      /* Atom: newest entry updated time read so far */
	char *archive_head;      /* Atom: the subscription document's prev-archive */
} store_source;

enum { STORE_SOURCE_LIRS = 0, STORE_SOURCE_ATOM = 1 };

void store_source_init(store_source *p);
void store_source_release(store_source *p);
int store_source_add(store *s, const store_source *p, char *err, size_t errlen);
int store_source_remove(store *s, const char *url_key, char *err, size_t errlen);
int store_sources_load(store *s, store_source **out, size_t *n, char *err, size_t errlen);
void store_sources_free(store_source *p, size_t n);
int store_source_save(store *s, const store_source *p, char *err, size_t errlen);

/* ---- RFC 5005 archives read from Atom sources (never fetched twice) -------- */
/* 1 when the source's archive at url was read completely before (*prev:
 * its prev-archive URL, malloc'd, NULL for the first), 0 when not, -1. */
int store_archive_get(store *s, int64_t source_id, const char *url, char **prev,
		      char *err, size_t errlen);
/* Remembers the archive at url as read, in the caller's transaction. */
int store_archive_add(store *s, int64_t source_id, const char *url, const char *prev_url,
		      int64_t entries, int64_t now, char *err, size_t errlen);
/* Archives read from a source; -1 on error. */
int64_t store_archive_count(store *s, int64_t source_id);

#endif
