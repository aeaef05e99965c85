/*
 * ant_store.h: the antenna's state in one SQLite file.  The only file with SQL
 * for it (the Atom events live in the same file through atom_evstore.h, which
 * attaches to ant_store_db()).
 *
 * - Schema versioned by PRAGMA user_version, brought up to date by the
 *   migrations in store_schema.c; a file from a newer antenna is refused.
 * - WAL journal, a busy timeout, and every change of an update run inside
 *   transactions (ant_store_begin/ant_store_commit), so kill -9 at any moment
 *   leaves a consistent file that the next run carries on from.
 * - A run lock (ant_store_lock): an fcntl() write lock on the file "DB.lock"
 *   beside the database, held for the whole update (fetching included,
 *   which no SQLite transaction should span).  The kernel drops it when
 *   the process dies, so a killed run never leaves a stale lock.
 *
 * Strings returned in structs are owned by the struct: release with the
 * matching *_release().
 *
 * Errors (lb_error.h): a negative code, mostly LB_EDB with SQLite's
 * message and the database's name in err (which may be NULL); LB_ENOMEM.
 */
#ifndef ANT_STORE_H
#define ANT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "ant_detect.h"
#include "ant_settings.h"
#include "ant_source_budget.h"
#include "ant_trust.h"
#include "ant_outcome.h"

#define ANT_STORE_SCHEMA_VERSION 18
#define ANT_STORE_BUSY_TIMEOUT_MS 5000
#define ANT_STORE_LOCK_WAIT 3          /* seconds a second run waits for the lock */

typedef struct ant_store ant_store;
typedef struct atom_db atom_db;

enum { ANT_STORE_OPEN_EXISTING = 0, ANT_STORE_OPEN_CREATE = 1 };

/*
 * Opens (or with ANT_STORE_OPEN_CREATE creates) the database at path and
 * migrates it to ANT_STORE_SCHEMA_VERSION.  Returns 0, or a negative code with
 * a message: LB_ENOTFOUND (no such file), LB_EINVAL (not an antenna database
 * or a newer schema), LB_EDB.
 */
int ant_store_open(ant_store **out, const char *path, int mode, lb_error *err);
void ant_store_close(ant_store *s);
atom_db *ant_store_db(ant_store *s);
const char *ant_store_path(const ant_store *s);
/* 1 when ant_store_open() made the antenna's tables (a new database), else 0. */
int ant_store_created(const ant_store *s);
/* Copies every row of src's tables (the antenna's and its events': both
 * attached with atom_evstore_attach() first) into dst, whose rows of
 * them go, in one transaction; SQLite and PostgreSQL either way.  *rows:
 * the rows copied.  0, or < 0 (LB_EINVAL: src has a table no antenna
 * of this version has). */
int ant_store_copy(ant_store *src, ant_store *dst, int64_t *rows, lb_error *err);

/* Takes the run lock, waiting up to wait_seconds.  Released by ant_store_close(). */
int ant_store_lock(ant_store *s, int wait_seconds, lb_error *err);

int ant_store_begin(ant_store *s, lb_error *err);
int ant_store_commit(ant_store *s, lb_error *err);
void ant_store_rollback(ant_store *s);

/* PRAGMA integrity_check: 0 when "ok", else LB_EDB with the count of
 * problems, each given to finding (when not NULL) first: one line, every
 * row of the check's answer split at its newlines. */
int ant_store_check(ant_store *s, void (*finding)(void *ctx, const char *line), void *ctx,
		    lb_error *err);

/*
 * Gives the file's free pages back to the file system (after publish
 * pruned the history: a run of 50,000 changes leaves ~10 MB of them).
 * A file made by this antenna has auto_vacuum=INCREMENTAL: the free pages
 * are moved out, a cost proportional to them.  An older file is rewritten
 * once (VACUUM) when a quarter of it is free, and is incremental since.
 * Outside any transaction.  Returns 0 or LB_EDB/LB_EBUSY (another process
 * reading: the pages stay free and are reused, nothing is lost).
 */
int ant_store_compact(ant_store *s, lb_error *err);

/* ---- sizes (antenna check-db) ------------------------------------------ */
typedef struct ant_store_size {
	char *name;              /* a table; its indexes are counted with it */
	int64_t rows;            /* < 0 (LB_EDB) when it could not be counted */
	int64_t bytes;           /* pages of the table and its indexes; < 0
				    (LB_ENOTFOUND) unknown: no dbstat table */
} ant_store_size;

typedef struct ant_store_sizes {
	int64_t page_size, pages, free_pages;  /* the file: pages * page_size bytes */
	int exact;               /* bytes per table from SQLite's dbstat table */
	ant_store_size *t;           /* every table, by name */
	size_t n;
} ant_store_sizes;

/* Rows (count(*), a full read of each table) and bytes per table. */
int ant_store_sizes_get(ant_store *s, ant_store_sizes *out, lb_error *err);
void ant_store_sizes_free(ant_store_sizes *z);
/* The table's row count in z, and bytes: >= 0, or < 0 when unknown
 * (LB_ENOTFOUND: no such table in z, or no dbstat for the bytes; LB_EDB:
 * the count failed). */
int64_t ant_store_sizes_rows(const ant_store_sizes *z, const char *table);
int64_t ant_store_sizes_bytes(const ant_store_sizes *z, const char *table);

/* What each column of a table holds: the bytes of its values as SQLite
 * stores them in the rows (text and blobs their length, integers 0 to 8
 * bytes, NULL nothing; not the rows' headers nor the b-tree's own
 * overhead), summed over the rows; biggest first.  A full read of the
 * table.  table is one of sqlite_master's names. */
typedef struct ant_store_colsize {
	char *name;
	int64_t bytes;
} ant_store_colsize;
int ant_store_column_sizes(ant_store *s, const char *table, ant_store_colsize **out, size_t *n,
			   lb_error *err);
void ant_store_column_sizes_free(ant_store_colsize *c, size_t n);

/* ---- config: key/value ------------------------------------------------- */
/* The raw rows; a setting is read and written through ant_settings.h,
 * whose table holds the keys, their defaults and their bounds. */
int ant_store_config_set(ant_store *s, const char *key, const char *value, lb_error *err);
/* A malloc'd copy of the value, or NULL when unset. */
char *ant_store_config_get(ant_store *s, const char *key);
int64_t ant_store_config_int(ant_store *s, const char *key, int64_t dflt);
int ant_store_config_set_int(ant_store *s, const char *key, int64_t v, lb_error *err);

/* The settings of the table (ant_settings.h), through the config rows
 * (store/store_settings.c). */
/* The setting as stored, else its default: a number (a value that is not
 * one reads as the default; KEEP's "all" reads as -1), or a malloc'd text
 * (NULL: a text setting without a default left unset, or out of memory). */
int64_t ant_setting_int(ant_store *s, ant_setting_id id);
char *ant_setting_text(ant_store *s, ant_setting_id id);
/* 1 when the setting holds a value of its own (even one equal to its default). */
int ant_setting_is_set(ant_store *s, ant_setting_id id);
/* Stored after ant_setting_check(): 0, or < 0 with err. */
int ant_setting_set(ant_store *s, ant_setting_id id, const char *v, lb_error *err);
int ant_setting_set_int(ant_store *s, ant_setting_id id, int64_t v, lb_error *err);
/* Each ANT_SETF_CREATE setting not yet stored written as its default. */
int ant_settings_write_defaults(ant_store *s, lb_error *err);

/* ---- watched pages ------------------------------------------------------ */
typedef struct ant_store_page {
	int64_t id;
	char *url;
	char *url_key;           /* lirs_merge.h normalisation: one page per key */
	char *title;             /* "" unknown */
	int title_set_by_user;   /* then <title> never replaces it */
	char *author;
	char *group;
	char *ignore;            /* ant_page.h patterns, one per line; "" = none */
	char *etag;              /* validators as the server sent them, or NULL */
	char *lm_header;
	char *charset;           /* what the page was last decoded from, or NULL */
	char *source_url;        /* the page itself, or the relaying LIRS source */
	char *last_error;        /* NULL when the last check succeeded: the
				    operator's words (show, list) */
	ant_fail_kind fail_kind; /* what went wrong, as data (ant_outcome.h; schema
				    13): what decides; ANT_FAIL_NONE with no error */
	int64_t created;
	/* feeds */
	char *feed_url;          /* the page's feed, or NULL (st.feed_time: its newest date) */
	int feed_by_user;        /* given by 'add --feed': never replaced by discovery */
	char *feed_etag;         /* the feed's validators */
	char *feed_lm_header;
	char *feed_error;        /* NULL when the last feed check succeeded */
	char *excerpt;           /* what the last update added; "" none */
	unsigned char *noise;    /* ant_detect.h ant_detect_noise_encode(): what the
				    text rule remembers; NULL none */
	size_t noise_len;
	ant_detect_state st;
	char *force_charset;     /* ant_page.h ant_page_opts.forced_charset; "" = none */
	int64_t imported;        /* when antenna import added it; 0 = not imported */
	/* per-page settings (schema 4) */
	char *only;              /* ant_page.h patterns, one per line: only these parts
				    decide ('add --only'); "" = the whole page */
	int no_auto_ignore;      /* 'add --no-auto-ignore': learn no volatile parts */
	char *check_url;         /* the URL fetched to check the page (tama's
				    Check-URL), or NULL: url itself */
	/* moved and gone (schema 6; ant_pagestate.h) */
	int64_t redirect_count;  /* checks in a row answered through permanent
				    redirects to redirect_to */
	char *redirect_to;       /* or NULL */
	char *moved_from;        /* the URL it was watched at before its last move, or NULL */
	char *added_url;         /* the URL the operator added, when the page has moved
				    since; NULL: url (ant_pagestate_allow_url()) */
	int64_t moved_at;        /* when it moved; 0 never */
	int64_t failing_since;   /* the first check of its current run of 404, 410
				    or no such host; 0 none */
	int64_t gone_at;         /* when that run was found long enough: gone; 0 not */
	int ignore_robots;       /* 'set --ignore-robots' (read only: table
				    robots_pages, ant_robots.h, schema 7) */
	int render;                  /* 'add --render': fetched by headless chromium (net/render.c) */
	/* what the operator means (schema 16; ant_when.h, ant_taught.h) */
	char *when;              /* 'add --when' patterns, one per line: the page is
				    announced only when what an update added matches
				    one; "" = every update */
	char *when_hit;          /* the --when pattern that matched at the last
				    announced update, or NULL */
	char *taught;            /* noise taught by 'set --not-news' (ant_taught.h
				    lines); "" none.  Operator's settings: kept by a
				    rebaseline, gone with 'set --forget-noise' */
	char *news;              /* what the last announced update added, as
				    ant_taught.h lines ("" none found), or NULL:
				    no update to take back */
	int64_t news_at;         /* that update's time (st.last_modified then); 0 none */
	int64_t prev_modified;   /* the update time before it ('set --not-news' restores) */
	const char *prev_by;     /* and its rule (a static name, ant_detect.h), or NULL */
} ant_store_page;

void ant_store_page_init(ant_store_page *p);
void ant_store_page_release(ant_store_page *p);

/* Adds p (id ignored).  Returns 0, 1 when the url_key is already there,
 * < 0 (LB_EDB, LB_ENOMEM) on error. */
int ant_store_page_add(ant_store *s, const ant_store_page *p, lb_error *err);
/* Removes by url_key: returns 1 removed, 0 none, < 0 (LB_EDB, LB_EBUSY,
 * LB_ENOMEM) on error. */
int ant_store_page_remove(ant_store *s, const char *url_key, lb_error *err);
/* Looks up by url_key: 1 found (*out filled), 0 none, < 0 error. */
int ant_store_page_get(ant_store *s, const char *url_key, ant_store_page *out, lb_error *err);
/* Releases n pages and the array (a batch of ant_store_pages_due()). */
void ant_store_pages_free(ant_store_page *p, size_t n);
/* Calls fn for each page, by url,
 * one page in memory at a time: p is borrowed, valid during the call.  A
 * nonzero return of fn stops the walk and is returned; else 0 or < 0
 * (LB_EDB, LB_ENOMEM).  No other write may happen on s meanwhile. */
typedef int (*ant_store_page_fn)(void *ctx, const ant_store_page *p);
int ant_store_pages_each(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err);
/* The same by group ("" first), then by url (antenna export). */
int ant_store_pages_each_grouped(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err);
/* One batch of the pages due at now (ant_detect_due(): next_check <= now
 * or a recheck; every page with force) whose id is greater than after, by
 * id, at most max of them, into out[0..*n) (released by the caller with
 * ant_store_page_release()).  The next batch starts after the last id:
 * keyset pagination, so the batches of a run read the table once.
 * Returns 0 or < 0 (nothing left in out). */
int ant_store_pages_due(ant_store *s, int64_t after, int64_t now, int force, ant_store_page *out,
			size_t max, size_t *n, lb_error *err);
/* Pages watched (*n) and the earliest next_check among them (*first_due,
 * 0 when none), from SQL: 0 or < 0. */
int ant_store_pages_count(ant_store *s, int64_t *n, int64_t *first_due, lb_error *err);
/* The groups pages are in, sorted, ", " between them, appended to out
 * (init --notify-group warns of a group no page is in); *has is set when
 * group is one of them.  0 or < 0. */
int ant_store_page_groups(ant_store *s, const char *group, int *has, lb_buf *out, lb_error *err);
/* Writes back everything a check or a relay changes (by id). */
int ant_store_page_save(ant_store *s, const ant_store_page *p, lb_error *err);
/*
 * The page of id moves to url (its key url_key), keeping its row: history,
 * title, settings; moved_from is set to its old URL, moved_at to now, the
 * redirect count cleared.  When url_key is already watched, the two merge
 * into the page already there (its settings and history are kept; it
 * records moved_from) and the page of id is removed.  Returns 0 moved,
 * 1 merged, < 0 (LB_EDB, LB_ENOMEM).
 */
int ant_store_page_move(ant_store *s, int64_t id, const char *url, const char *url_key,
			int64_t now, lb_error *err);
/* Sets where the page of url_key moved from and when (antenna import). */
int ant_store_page_set_moved(ant_store *s, const char *url_key, const char *from, int64_t at,
			     lb_error *err);

/* Writes back what the operator sets (antenna import, antenna set): title
 * and whether the user set it, author, group, ignore, force_charset, only,
 * no_auto_ignore, check_url, feed_url and feed_by_user, render, when and
 * taught (by id).  The
 * page's history (update times, events, excerpt) is not touched. */
int ant_store_page_set_config(ant_store *s, const ant_store_page *p, lb_error *err);

/*
 * After a settings change, the next check of page id is a quiet baseline
 * (like ant_detect.h's quiet_first, but the update times stay):
 *   ANT_REBASE_TEXT  the text compared changed meaning (ignore, only,
 *                    forced charset, check URL): the text fingerprint
 *                    (text_hash, size, segments) and the validators are
 *                    forgotten, so the next check compares with nothing
 *                    and takes a new one without announcing an update;
 *   ANT_REBASE_FEED  another feed: its validators and newest date are
 *                    forgotten (a newer entry than the page's known update
 *                    time is still an update: that is news, not settings).
 * Either makes the page due now.  ANT_REBASE_TEXT also forgets what the
 * text rule learned (noise: the parts ignored automatically); columns
 * added later that hold what was learned from the page's text must be
 * reset here too.  What the operator taught ('set --not-news': taught)
 * is a setting like --ignore and stays, and so does what the last
 * update added (a --not-news after a settings change still takes it back).
 */
enum { ANT_REBASE_TEXT = 1, ANT_REBASE_FEED = 2 };
int ant_store_page_rebaseline(ant_store *s, int64_t id, unsigned what, lb_error *err);

/* ---- LIRS sources -------------------------------------------------------- */
typedef struct ant_store_source {
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
	int64_t records_ignored; /* records for pages this antenna does not watch:
				    for a relay source, the records it relays */
	int kind;                /* ANT_STORE_SOURCE_LIRS, _ATOM or _SITEMAP */
	int64_t last_entry;      /* Atom: newest entry updated time read so far */
	char *archive_head;      /* Atom: the subscription document's prev-archive */
	int relay;               /* 'add --relay': every record it gives is
				    published as a relayed page (schema 5) */
} ant_store_source;

enum { ANT_STORE_SOURCE_LIRS = 0, ANT_STORE_SOURCE_ATOM = 1,
       ANT_STORE_SOURCE_SITEMAP = 2 };   /* 'add --sitemap': lastmods are hints */
/* A kind's name as sources.kind, list, show, export and import write it
 * ("lirs", "atom", "sitemap"), and back (-1: none of them). */
const char *ant_store_source_kind_name(int kind);
int ant_store_source_kind_of(const char *name);

void ant_store_source_init(ant_store_source *p);
void ant_store_source_release(ant_store_source *p);
int ant_store_source_add(ant_store *s, const ant_store_source *p, lb_error *err);
/* Removes by url_key (its records with it): 1 removed, 0 none, < 0 error. */
int ant_store_source_remove(ant_store *s, const char *url_key, lb_error *err);
int ant_store_sources_load(ant_store *s, ant_store_source **out, size_t *n, lb_error *err);
void ant_store_sources_free(ant_store_source *p, size_t n);
int ant_store_source_save(ant_store *s, const ant_store_source *p, lb_error *err);

/* ---- RFC 5005 archives read from Atom sources (never fetched twice) -------- */
/* 1 when the source's archive at url was read completely before (*prev:
 * its prev-archive URL, malloc'd, NULL for the first), 0 when not, < 0 on error. */
int ant_store_archive_get(ant_store *s, int64_t source_id, const char *url, char **prev,
		      lb_error *err);
/* Remembers the archive at url as read, in the caller's transaction. */
int ant_store_archive_add(ant_store *s, int64_t source_id, const char *url, const char *prev_url,
		      int64_t entries, int64_t now, lb_error *err);
/* Archives read from a source; < 0 (LB_EDB, LB_ENOMEM) on error. */
int64_t ant_store_archive_count(ant_store *s, int64_t source_id, lb_error *err);

/* ---- what each source last said of each URL (table source_records) --------
 * One row per (source, URL key): the newest record a LIRS, HINA-DI or Atom
 * source gave for that URL, watched here or not, so that a page added
 * later (antenna add, antenna import) gets the update the relay would
 * have given it (ant_update_recall()).  Bounded: a LIRS source's rows
 * follow the 8-hour rule (last detected more than max_age ago: pruned),
 * an Atom source keeps its newest keep_events rows (the history
 * retention); both pruned each time the source is read. */
typedef struct ant_store_srcrec {
	const char *url_key;
	int64_t source_id;
	int source_kind;         /* of the source (when read back) */
	int source_relay;        /* the source relays ('add --relay'; when read back) */
	const char *source_url;  /* (when read back) */
	const char *url;         /* as the source wrote it */
	int64_t last_modified;
	int64_t last_detected;
	const char *title;       /* clipped (ant_limits.h); "" none */
	const char *excerpt;     /* an Atom entry's <summary>, clipped; "" none */
	const char *author;      /* clipped (ant_limits.h); "" none (schema 5) */
	int64_t content_length;  /* the record's; 0 unknown (schema 5) */
} ant_store_srcrec;

/* Keeps r unless the row there is newer (Last-Modified, then Last-Detected). */
int ant_store_srcrec_put(ant_store *s, const ant_store_srcrec *r, lb_error *err);
/* The times of the source's row of url_key: 1 (*lm, *ld set), 0 none,
 * < 0 an LB_E* code.  A record no newer needs no put. */
int ant_store_srcrec_times(ant_store *s, const char *url_key, int64_t source_id, int64_t *lm,
			   int64_t *ld, lb_error *err);
/* Drops the source's rows detected before detected_before (0: none by age),
 * then all but its keep newest by Last-Modified (keep < 0: no bound).
 * Returns the rows dropped, or < 0. */
int64_t ant_store_srcrec_prune(ant_store *s, int64_t source_id, int64_t detected_before,
			       int64_t keep, lb_error *err);
/* Calls fn for each source's row of url_key, newest first (borrowed, valid
 * during the call); a nonzero return stops and is returned. */
typedef int (*ant_store_srcrec_fn)(void *ctx, const ant_store_srcrec *r);
int ant_store_srcrec_each(ant_store *s, const char *url_key, ant_store_srcrec_fn fn, void *ctx,
			  lb_error *err);
/* Rows of a source; < 0 (LB_EDB, LB_ENOMEM) on error. */
int64_t ant_store_srcrec_count(ant_store *s, int64_t source_id, lb_error *err);
/* The newest Last-Modified that a relay source ('add --relay') holds for
 * url_key: 0 none, < 0 an LB_E* code.  Whether a relayed record is news
 * (an update event) is decided against it. */
int64_t ant_store_srcrec_relay_newest(ant_store *s, const char *url_key, lb_error *err);

/* ---- what is published (antenna publish) ----------------------------------
 * The watched pages and, for each URL key that no watched page has, the
 * newest fresh record among the relay sources' (sources.relay = 1) rows of
 * source_records: a page checked here is never replaced by a relay's
 * record.  Streamed from one SQL statement (SQLite's sorter spills to
 * temporary files), so publishing a million pages holds one row at a time. */
enum {
	ANT_PUBQ_RECENT = 0,     /* last_modified newest first, then url (lirs.gz, Atom) */
	ANT_PUBQ_LISTING = 1,    /* index.html's: dated pages without an error first,
				    newest first, ties by shown title then url; then
				    the rest by shown title then url */
	ANT_PUBQ_ANY = 2         /* no order (counting: no sort at all) */
};

typedef struct ant_store_pubq {
	int order;               /* ANT_PUBQ_* */
	int fresh_only;          /* only rows with a known update detected at or
				    after fresh_since (the LIRS 8-hour rule) */
	int64_t fresh_since;     /* relayed rows always need it; 0: any */
	int64_t found_after;     /* seq of the newest update event at the previous
				    publish: found = 1 when an event of the row's
				    (URL key, Last-Modified) came after it, else -1;
				    < 0: unknown, found = 0 */
	int64_t limit;           /* at most this many rows (the first in the
				    order: SQLite keeps only them while sorting);
				    0: all */
} ant_store_pubq;

typedef struct ant_store_pubrow {
	const char *url, *url_key, *title, *author, *group;   /* never NULL */
	int64_t last_modified, last_detected, content_length;  /* content_length >= 0 */
	const char *detected_by;  /* ant_detect.h's names, "lirs"/"atom" relayed; NULL unknown */
	const char *source_url;   /* the page itself, or the (relaying) source */
	const char *last_error;   /* NULL when the last check succeeded */
	ant_fail_kind fail_kind;  /* its kind (ant_outcome.h); ANT_FAIL_NONE none */
	const char *excerpt;      /* "" none */
	int found;                /* see found_after */
	int relayed;              /* 1: a relay source's record, not a watched page */
} ant_store_pubrow;

/* Calls fn for each published row in q's order (borrowed, valid during
 * the call); a nonzero return stops and is returned. */
typedef int (*ant_store_pub_fn)(void *ctx, const ant_store_pubrow *r);
int ant_store_published_each(ant_store *s, const ant_store_pubq *q, ant_store_pub_fn fn,
			     void *ctx, lb_error *err);
/* Starts a read transaction on s that keeps its snapshot until ant_store_rollback()
 * or close: a second connection sees the events as they were before a
 * writer on the first prunes them. */
int ant_store_read_begin(ant_store *s, lb_error *err);

/* ---- server_wait: Retry-After across runs (store_polite.c) ---------------- */
/* fn for each server asked to wait until later than now; 0 or LB_EDB. */
int ant_store_server_waits(ant_store *s, int64_t now,
			   void (*fn)(void *ctx, const char *server, int64_t until), void *ctx,
			   lb_error *err);
/* server waits until then (a later time already kept wins); 0 or LB_EDB. */
int ant_store_server_wait_set(ant_store *s, const char *server, int64_t until, lb_error *err);
/* *until: server's wait kept (0: none, or one over if not yet forgotten);
 * 0 or LB_EDB. */
int ant_store_server_wait_get(ant_store *s, const char *server, int64_t *until, lb_error *err);
/* Forgets server's wait (NULL: every server's): the operator lifts it, or
 * the run writes its own view back (ant_update()).  The number of waits
 * forgotten, or LB_EDB. */
int ant_store_server_wait_clear(ant_store *s, const char *server, lb_error *err);

/* ---- several checkers over one PostgreSQL (store_lease.c) ----------------
 * On PostgreSQL any number of 'antenna update' share the work: each claims
 * servers and their due pages for a lease (FOR UPDATE SKIP LOCKED), checks
 * them, saves, releases; a lease not released (a checker killed) expires.
 * On SQLite none of this is used: one run holds the run lock. */

/* 1 when several checkers may share s (PostgreSQL), 0 (SQLite). */
int ant_store_shared(const ant_store *s);

/* What must stay single among checkers: a session advisory lock on
 * PostgreSQL, let go of with ant_store_unlock_named() or the connection.
 * 1 taken (on SQLite at once: one machine, and update's run lock), 0
 * another holds it after wait_seconds, < 0 error. */
enum { ANT_STORE_LOCK_SOURCES, ANT_STORE_LOCK_PUBLISH, ANT_STORE_LOCK_RUN };
int ant_store_lock_named(ant_store *s, int which, int wait_seconds, lb_error *err);
void ant_store_unlock_named(ant_store *s, int which);
/* Who holds lock which (another session): "antenna on HOST pid N,
 * connected TIME" (the session's application_name) into buf; 1 found, 0
 * none or SQLite. */
int ant_store_lock_holder(ant_store *s, int which, char *buf, size_t n);
/* How many other sessions hold lock which in shared mode (shared_mode 1)
 * or alone (0); 0 on SQLite. */
int ant_store_lock_count(ant_store *s, int which, int shared_mode);
/* The run lock taken shared (PostgreSQL; at once on SQLite, where
 * nothing shares): any number of checkers with --lease hold it together,
 * and a run alone (ant_store_lock()) none of them.  Waits up to
 * wait_seconds for a run alone to end; 0 or LB_EBUSY (said: an update
 * without --lease holds it). */
int ant_store_lock_shared(ant_store *s, int wait_seconds, lb_error *err);

/* Every page's server key (pages.server) filled where missing, key(ctx,
 * url) giving it (malloc'd; NULL: ""), and each server's slot row made.
 * 0 or < 0. */
typedef char *(*ant_store_server_fn)(void *ctx, const char *url);
int ant_store_servers_fill(ant_store *s, ant_store_server_fn key, void *ctx, lb_error *err);
/* An origin's ("http://host:port") server key as kept (origin_server; the
 * key fn above finds it there first): 1 with *key (malloc'd), 0 none, < 0. */
int ant_store_origin_server(ant_store *s, const char *origin, char **key, lb_error *err);
/* origin's key kept, unless one is already (the first stays).  0 or < 0. */
int ant_store_origin_server_put(ant_store *s, const char *origin, const char *key, lb_error *err);

typedef struct ant_store_claim {
	const char *checker;     /* this checker's id */
	int64_t now;             /* the run's time (seconds): due, and not checked in this run */
	int64_t now_ms;          /* the clock (ms since the epoch): leases */
	int64_t lease_ms;        /* how long the claim holds */
	size_t servers;          /* servers taken at most */
	size_t per_server;       /* pages of each at most */
	int force;               /* every page due */
	/* each server taken, with the time (ms) before which it may not be asked */
	void (*on_server)(void *ctx, const char *server, int64_t next_at);
	void *ctx;
} ant_store_claim;
/* One claim, in its own transaction: free servers with claimable pages,
 * then their pages, leased, into out (max).  *n 0: nothing claimable
 * now.  0 or < 0. */
int ant_store_pages_claim(ant_store *s, const ant_store_claim *c, ant_store_page *out, size_t max,
			  size_t *n, lb_error *err);
/* checker's pages of the servers it claimed (servers: their keys, a
 * line each) and the slots it still holds let go of, those servers not
 * asked before next_at (ms).  0 or < 0. */
int ant_store_pages_release(ant_store *s, const char *checker, const char *servers, int64_t next_at,
			    lb_error *err);
/* While a claim is worked on, its lease renewed: every third of lease_ms
 * the slots checker holds and their pages it leased get until = now +
 * lease_ms, from a thread of its own on a connection of its own (a batch
 * slower than the lease -- slow servers, long waits -- keeps its pages;
 * a checker killed stops renewing, and its lease runs out as ever).  The
 * rows the run's own transaction holds are skipped (SKIP LOCKED: never a
 * deadlock with it); they are renewed the next time.  Given back (the
 * claim released), nothing is renewed.  *out NULL on SQLite.  0 or < 0
 * (no second connection: the run goes on unrenewed, said by the caller). */
typedef struct ant_store_renewer ant_store_renewer;
int ant_store_renew_start(ant_store *s, const char *checker, int64_t lease_ms, ant_store_renewer **out,
			  lb_error *err);
/* Stops and frees r (NULL: nothing); the renewals made. */
unsigned ant_store_renew_stop(ant_store_renewer *r);
/* Is page id still leased to checker?  1 yes, its row locked in the
 * current transaction until it ends (no other checker claims it
 * meanwhile: claims skip locked rows); 0 another checker took it after
 * this one's lease ran out: this checker's answer is not to be saved;
 * < 0 error.  1 on SQLite. */
int ant_store_page_leased(ant_store *s, int64_t id, const char *checker, lb_error *err);
/* *until: the earliest expiry (ms) of a server slot another checker holds
 * (0: none).  0 or < 0. */
int ant_store_leases_others(ant_store *s, const char *checker, int64_t now_ms, int64_t *until,
			    lb_error *err);

/* ---- the texts behind the diff pages (store_texts.c; ant_difftext.h) ---- */

typedef struct ant_store_text {
	int64_t page_id;
	unsigned char *text;     /* packed; NULL: none (or over the limit) */
	size_t text_len;
	unsigned char *diff;     /* packed; NULL: none */
	size_t diff_len;
	int64_t diff_time;       /* the update's last_modified; 0 none */
} ant_store_text;

/* Is there a row for the page?  1, 0, or < 0. */
int ant_store_text_has(ant_store *s, int64_t page_id, lb_error *err);
/* The page's row into *t (free with ant_store_text_release()): 1, 0 none, < 0. */
int ant_store_text_get(ant_store *s, int64_t page_id, ant_store_text *t, lb_error *err);
/* Writes t's row whole (a NULL blob is NULL): 0 or < 0. */
int ant_store_text_put(ant_store *s, const ant_store_text *t, lb_error *err);
void ant_store_text_release(ant_store_text *t);

/* One diff still listed: the page's last update is the one at diff_time
 * (pages.last_modified), so index.html shows it. */
typedef struct ant_store_diffrow {
	int64_t page_id, key_hash;
	const char *url, *title;
	const unsigned char *diff;
	size_t diff_len;
	int64_t diff_time;
	const unsigned char *text;   /* the page's kept text: a pending diff is made against it */
	size_t text_len;
} ant_store_diffrow;
typedef int (*ant_store_diff_fn)(void *ctx, const ant_store_diffrow *r);
/* fn for the diff of the page with this URL key when its last update is
 * the one at time and its diff is kept (borrowed during the call): 1
 * (fn returned 0), 0 none, fn's nonzero return, or < 0. */
int ant_store_diff_of(ant_store *s, const char *url_key, int64_t time, ant_store_diff_fn fn, void *ctx,
		      lb_error *err);
/* The diff of the page with this URL key: its row into *t (1), 0 none, < 0. */
int ant_store_text_of_key(ant_store *s, const char *url_key, ant_store_text *t, lb_error *err);
/* Bytes the texts and diffs take in all (for 'antenna check-db' and the bench). */
int ant_store_texts_size(ant_store *s, int64_t *bytes, int64_t *rows, lb_error *err);

/* ---- a source's budgets' rows (store_budget.c; ant_source_budget.h) ---- */

/* The row of source_id into *b (a fresh one, zero, when none): 0 or < 0. */
int ant_store_budget_get(ant_store *s, int64_t source_id, ant_source_budget *b, lb_error *err);
/* Writes b's row, in the caller's transaction: 0 or < 0. */
int ant_store_budget_put(ant_store *s, const ant_source_budget *b, lb_error *err);
/* The pages a relay source relays: its records of URLs no page watched
 * here has.  >= 0, or < 0 (LB_EDB, LB_ENOMEM). */
int64_t ant_store_budget_relayed(ant_store *s, int64_t source_id, lb_error *err);
/* A hina.txt body read again unchanged: its records are detected now
 * again (the fetch dates them, lirs(5)), as a parse would have said. */
int ant_store_budget_redetect(ant_store *s, int64_t source_id, int64_t now, lb_error *err);

/* ---- the sources' trust (store_trust.c, the only SQL of it; ant_trust.h) ---- */

/* The thresholds in force (the settings of --trust-hint, --trust-relay,
 * --trust-claims). */
void ant_trust_limits_load(ant_store *s, ant_trust_limits *l);
/* The score of source (relay: a relay source) under l, from its counts
 * and its last read (ant_trust_score_judge()): 0 or < 0. */
int ant_trust_score_get(ant_store *s, int64_t source_id, int relay, const ant_trust_limits *l,
			ant_trust_score *sc, lb_error *err);


/* Source's claim that page was updated at claimed, read at now: 1 a new
 * claim (pending), 0 told before (a claim as new or newer is kept), < 0. */
int ant_store_trust_claim(ant_store *s, int64_t source_id, int64_t page_id, int64_t claimed,
			  int64_t now, lb_error *err);
/* Our check of page at now judges its pending claims: updated (found: the
 * update's time) or not; drop: a baseline that can judge nothing drops
 * them.  0 or < 0. */
int ant_store_trust_judge(ant_store *s, int64_t page_id, int updated, int drop, int64_t found,
			  int64_t now, lb_error *err);
/* Counts (confirmed, refuted, pending, ahead) of source, the median skew
 * of its confirmed claims (*has_skew 0 when none), and whether it is held
 * (*held, *since).  0 or < 0. */
int ant_store_trust_counts(ant_store *s, int64_t source_id, ant_trust_score *sc, lb_error *err);
/* Source held back or not from now; also keeps its window (ANT_TRUST_WINDOW
 * judged claims) and drops pending claims of pages no longer watched. */
int ant_store_trust_keep(ant_store *s, int64_t source_id, int held, int64_t now, lb_error *err);

/* ---- notification targets and their digests (store_notify.c; ant_notify.h) ---- */

/* One target as stored; strings owned (ant_notify_target_release()). */
typedef struct ant_notify_target {
	int64_t id;
	char *target;          /* "mailto:a@example.org" or an http(s) URL */
	char *group;           /* only pages of this group; NULL: every update */
	int64_t after_seq;     /* the last event told of */
	int64_t created, last_try, last_ok, sent;   /* sent: digests delivered */
	char *last_error;      /* of the last try; NULL after a success */
	int64_t pending;       /* events waiting (ant_store_notify_each()) */
} ant_notify_target;

void ant_notify_target_release(ant_notify_target *t);



/* Adds target (group: NULL for all); told only of events after now's
 * newest.  1 added, 0 already there (its group set), LB_ERANGE over
 * ANT_TARGET_MAX_COUNT (LB_ETOOBIG), or < 0. */
int ant_store_notify_add(ant_store *s, const char *target, const char *group, int64_t now,
			 lb_error *err);
/* Removes target, or every target when all: the number removed, or < 0. */
int ant_store_notify_remove(ant_store *s, const char *target, int all, lb_error *err);
/* Each target, oldest first, with its pending count (events after its
 * after_seq, newer than since, of its group); fn's nonzero return stops. */
typedef int (*ant_notify_target_fn)(void *ctx, const ant_notify_target *t);
int ant_store_notify_each(ant_store *s, int64_t since, ant_notify_target_fn fn, void *ctx,
			  lb_error *err);

/* One update as a digest lists it; strings owned by the digest. */
typedef struct ant_notify_item {
	char *url, *title, *excerpt, *source, *method;
	char *url_key;            /* the page's URL key: its diff page's name */
	int64_t last_modified, last_detected;
} ant_notify_item;

typedef struct ant_notify_digest {
	ant_notify_item *items;   /* newest first */
	size_t n;
	int64_t more;             /* pending beyond the n listed */
	int64_t upto;             /* the newest event seen: after_seq on delivery */
} ant_notify_digest;

void ant_notify_digest_release(ant_notify_digest *d);
/* t's pending events newer than since into d (at most max listed).  0 or < 0. */
int ant_store_notify_digest(ant_store *s, const ant_notify_target *t, int64_t since, size_t max,
			    ant_notify_digest *d, lb_error *err);
/* Records a try of target id at now: delivered (after_seq = upto) or the
 * error (after_seq kept); error ANT_NOTIFY_NOTHING: nothing was pending
 * for it up to upto (no try).  0 or < 0. */
extern const char ant_notify_nothing[];
#define ANT_NOTIFY_NOTHING ant_notify_nothing
int ant_store_notify_tried(ant_store *s, int64_t id, int64_t now, int64_t upto, const char *error,
			   lb_error *err);

/*
 * The sites' templates (ant_furniture.h), table site_pages: for each site
 * (an origin, "https://host:443"), the sorted segment keys of at most
 * ANT_STORE_SITE_PAGES pages (the newest kept), each at most
 * ANT_STORE_SITE_KEYS keys: hashes only, 2 KiB a page.
 */
#define ANT_STORE_SITE_PAGES 6
#define ANT_STORE_SITE_KEYS 512

typedef struct ant_store_sitepage {
	char *url;
	int sibling;           /* fetched for reference, not a watched page */
	int64_t seen;          /* when taken (a sibling: when last asked) */
	uint32_t *keys;        /* sorted; NULL when none (a failed sibling) */
	size_t nkeys;
} ant_store_sitepage;

/* The pages of site other than except_url (may be NULL) seen since
 * (seconds), newest first (then by URL), into *out (malloc'd, *n of them; freed by
 * ant_store_sitepages_free()).  0 or < 0 with err. */
int ant_store_site_get(ant_store *s, const char *site, const char *except_url, int64_t since,
		       ant_store_sitepage **out, size_t *n, lb_error *err);
/* All of site's pages, newest first (at most max: one more than
 * ANT_STORE_SITE_PAGES tells a site holding more than that), for a copy
 * the caller keeps while nothing else writes them.  0 or < 0 with err. */
int ant_store_site_all(ant_store *s, const char *site, size_t max, ant_store_sitepage **out, size_t *n,
		       lb_error *err);
void ant_store_sitepages_free(ant_store_sitepage *v, size_t n);
/* Keeps a page's keys (nkeys of them, sorted; at most ANT_STORE_SITE_KEYS
 * are kept) for site.  The site's pages stay the same ones while they
 * are seen, so that its template does not move from check to check:
 * a page not among them is kept only when there is room, or in place of
 * the one seen longest ago when that is before stale (then 0 all the
 * same).  0 or < 0 with err. */
int ant_store_site_put(ant_store *s, const char *site, const char *url, int sibling, int64_t seen,
		       int64_t stale, const uint32_t *keys, size_t nkeys, lb_error *err);

#endif
