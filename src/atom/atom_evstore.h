/*
 * atom_evstore.h: the SQLite state of update events behind the Atom bridge.
 *
 * An update event is a distinct (URL key, Last-Modified) pair (lb_url_key() for
 * the key).  Events get a sequence number in the order they are added and
 * never change afterwards; archives are runs of page_size consecutive
 * events, sealed once and remembered here with what was written to disk.
 *
 * Two ways in: atom_evstore_open() on a file of its own (`lirs atom --state`),
 * or atom_evstore_attach() on a database someone else owns (the antenna's):
 * the tables are all named ev_*, created when missing.  The schema version
 * lives in ev_meta ('schema') and, for a file of its own, also in PRAGMA
 * user_version; a newer one is refused.  This is the only file with SQL
 * for events.  Errors: a negative LB_E* code (LB_EDB, LB_EBUSY when another
 * run holds the file, LB_ENOMEM) plus a message in err, which may be NULL.
 */
#ifndef ATOM_EVSTORE_H
#define ATOM_EVSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

typedef struct atom_db atom_db;

#define ATOM_EVSTORE_SCHEMA 3
/* How long a run waits for another run's lock before it gives up. */
#define ATOM_EVSTORE_DEFAULT_BUSY_MS 5000

typedef struct atom_ev_event {
	int64_t seq;              /* set by the store when read back */
	const char *url;          /* as written */
	int64_t last_modified;
	int64_t last_detected;
	int64_t tz_offset;        /* seconds east of UTC */
	int64_t content_length;
	const char *title;        /* "" when unknown; never NULL */
	const char *author;
	const char *source_url;   /* the LIRS file or page it came from */
	const char *excerpt;      /* what the update added (change excerpt); NULL or "" = none:
				     when set, the Atom entry's summary */
} atom_ev_event;

typedef struct atom_ev_archive {
	int64_t n;                /* 1 = the oldest */
	int64_t first_seq, last_seq;
	const char *title, *author; /* the feed's, as when it was sealed */
	const char *lang;         /* its summaries' language, as when it was sealed:
				     "" English, "ja" Japanese (atom_cfg.lang) */
	int next_linked;          /* the file on disk has its next-archive link */
	int written;              /* the file on disk is complete */
	int has_next;             /* archive n + 1 exists */
} atom_ev_archive;

typedef struct atom_evstore atom_evstore;

/* Retention (atom_evstore_set_retention): keep every event, never prune. */
#define ATOM_EVSTORE_KEEP_ALL (-1)

/*
 * Opens (creating when missing) the state file at path, in WAL mode, with
 * a busy timeout of busy_ms (0 = ATOM_EVSTORE_DEFAULT_BUSY_MS).  Returns 0 and
 * *out, or a negative LB_E* code with err ("state file 'x' is locked by another run",
 * "state file 'x' has schema 7, newer than this program's 1").
 */
int atom_evstore_open(atom_evstore **out, const char *path, int busy_ms, lb_error *err);
/* Uses db (borrowed; not closed by atom_evstore_close()); creates the ev_*
 * tables when missing.  The caller sets its own busy timeout. */
int atom_evstore_attach(atom_evstore **out, atom_db *db, lb_error *err);
void atom_evstore_close(atom_evstore *st);

/* BEGIN IMMEDIATE (takes the write lock now, waiting up to the timeout). */
int atom_evstore_begin(atom_evstore *st, lb_error *err);
/* COMMIT; with a retention set, atom_evstore_prune() runs first, in the same
 * transaction, so the events an archive written in it made unneeded go
 * with the commit that records the archive as written. */
int atom_evstore_commit(atom_evstore *st, lb_error *err);
void atom_evstore_rollback(atom_evstore *st);

/* ev_meta: small settings that must not change over a state's life.
 * get: 1 and *out (malloc'd) when set, 0 when not, < 0 on error. */
int atom_evstore_meta_get(atom_evstore *st, const char *key, char **out, lb_error *err);
int atom_evstore_meta_set(atom_evstore *st, const char *key, const char *value, lb_error *err);

/* Adds one event unless its (URL key, Last-Modified) is known: 1 added,
 * 0 known, < 0 error.  Inside the caller's transaction, if any. */
int atom_evstore_add(atom_evstore *st, const atom_ev_event *e, lb_error *err);
/* As atom_evstore_add(), but an event already known whose archive is not
 * sealed yet takes e's fields (texts, Last-Detected, size): a second
 * update of a page within one second (the same Last-Modified) replaces the
 * first in the current feed document; a sealed archive's entries never
 * change.  0 (added, replaced, or known and sealed: one statement whose
 * outcome is not asked, so that PostgreSQL may pipeline it), < 0 error. */
int atom_evstore_put(atom_evstore *st, const atom_ev_event *e, lb_error *err);
/*
 * Adds a run of events in one transaction (its own unless one is open),
 * in Last-Modified order (then URL key).  Of events sharing a (URL key,
 * Last-Modified), the one with the greater Last-Detected, then the later
 * in ev[], is kept.  *added (may be NULL) counts the new ones.
 */
int atom_evstore_add_run(atom_evstore *st, const atom_ev_event *ev, size_t n, size_t *added,
		    lb_error *err);

/* Takes back the event of (url's URL key, last_modified) (the antenna's
 * 'set --not-news'): removed when no archive has sealed it, so the
 * current document and the "new" marks no longer have it; an archived
 * event stays, as the archive's entries never change.  1 removed, 2 in an
 * archive (kept), 0 no such event, < 0 error.  In the caller's
 * transaction, if any. */
int atom_evstore_withdraw(atom_evstore *st, const char *url, int64_t last_modified, lb_error *err);

/* The language sealed with the archives sealed from now on ("en", NULL or
 * "" English, stored as ""; "ja"): an archive's summaries stay in the
 * language it was sealed with when its file is written again. */
void atom_evstore_set_lang(atom_evstore *st, const char *lang);
/* Seals archives while page_size or more events follow the last one.
 * *sealed (may be NULL) counts the new archives. */
int atom_evstore_seal(atom_evstore *st, int64_t page_size, const char *title, const char *author,
		 int64_t *sealed, lb_error *err);
/* The seq of the last archived event, 0 when none; the number of archives. */
int atom_evstore_archived(atom_evstore *st, int64_t *last_seq, int64_t *count, lb_error *err);

typedef int (*atom_ev_archive_fn)(void *ctx, const atom_ev_archive *a);
typedef int (*atom_ev_event_fn)(void *ctx, const atom_ev_event *e);

/* Calls fn for archives whose file is not written or lacks a due
 * next-archive link (all = every archive), oldest first.  A nonzero
 * return from fn stops the walk and is returned. */
int atom_evstore_each_archive(atom_evstore *st, int all, atom_ev_archive_fn fn, void *ctx,
			 lb_error *err);
int atom_evstore_archive_done(atom_evstore *st, int64_t n, int next_linked, lb_error *err);
/* Events with first_seq <= seq <= last_seq (last_seq < 0: no bound),
 * newest (highest seq) first.  Borrowed, valid during the call. */
int atom_evstore_each_event(atom_evstore *st, int64_t first_seq, int64_t last_seq, atom_ev_event_fn fn,
		       void *ctx, lb_error *err);

/* The seq of the newest event, 0 when there is none.  Seqs only grow: the
 * events added after a reading of it are those with a greater seq (the
 * antenna's "new" marks: what was found since the previous publish). */
int atom_evstore_max_seq(atom_evstore *st, int64_t *seq, lb_error *err);

/* ---- cursors for writers that stream (atom.c) ---- */

/* The greatest Last-Modified of the events first_seq..last_seq (last_seq
 * < 0: no bound); *any = 0 when there are none. */
int atom_evstore_max_lm(atom_evstore *st, int64_t first_seq, int64_t last_seq, int64_t *max, int *any,
		   lb_error *err);
/* The number of archives atom_evstore_each_archive() would visit. */
int atom_evstore_count_archives(atom_evstore *st, int all, int64_t *count, lb_error *err);
/* As atom_evstore_each_archive(), but only archives numbered below `below`
 * (< 0: no bound), newest first, at most limit of them: a caller walks
 * any number of archives in batches of bounded memory. */
int atom_evstore_each_archive_desc(atom_evstore *st, int all, int64_t below, int64_t limit,
			      atom_ev_archive_fn fn, void *ctx, lb_error *err);

/*
 * atom_ev_run: one run's events staged in a private temporary SQLite file
 * (deleted when closed), so that a run of any size costs bounded memory
 * (`lirs atom` with millions of records).  The page cache it may use:
 */
#define ATOM_EV_RUN_CACHE_KIB "4096"
typedef struct atom_ev_run atom_ev_run;

int atom_ev_run_open(atom_ev_run **out, lb_error *err);
void atom_ev_run_close(atom_ev_run *r);
/* Copies e (borrowed) into the run; 0, or a negative LB_E* code with err. */
int atom_ev_run_add(atom_ev_run *r, const atom_ev_event *e, lb_error *err);
size_t atom_ev_run_count(const atom_ev_run *r);
/* Adds the staged events exactly as atom_evstore_add_run() would add them as
 * an array in the order they were staged (same order, same winners). */
int atom_evstore_add_staged(atom_evstore *st, atom_ev_run *r, size_t *added, lb_error *err);
/* The run's record per URL key by lirs_merge_supersedes() (the later wins a
 * tie), Last-Modified descending then URL key ascending, like
 * lirs_merge_each().  Borrowed, valid during the call. */
int atom_ev_run_each_latest(atom_ev_run *r, atom_ev_event_fn fn, void *ctx, lb_error *err);
/* The greatest Last-Modified staged; *any = 0 when the run is empty. */
int atom_ev_run_max_lm(atom_ev_run *r, int64_t *max, int *any, lb_error *err);

/* ---- retention (the antenna's history; `lirs atom --state` keeps all) ----
 *
 * What must stay: every event not in an archive (index.atom lists them),
 * and the events of every archive whose file is not written or still
 * lacks its next-archive link (they are written again), which always
 * includes the newest archive (index.atom's date when it is empty).
 * Everything older is history only: an archive whose file is complete is
 * never written again, except when DIR/index.atom is missing (a new DIR),
 * where atom_publish() writes every archive still in the state.
 *
 * atom_evstore_prune() removes, oldest first and whole archives at a time,
 * the events of complete archives while at least keep_events newer events
 * remain, and the ev_archives rows of those archives; archives 1..M so
 * pruned cannot be written again (atom_evstore_pruned()).  Pruning loses the
 * (URL key, Last-Modified) duplicate check for those events: an old event
 * added again would be new; the antenna never adds one (its Last-Modified
 * only moves forward), a LIRS file read twice with `lirs atom` would, so
 * that keeps everything.
 */
/*
 * Forgets the archives and the base URL and page size the state was made
 * with, in the caller's transaction; the events and the tag of the ids
 * (atom_publish()) stay.  The next atom_publish() seals the events kept
 * into archives 1.. again under its base and page size and writes them:
 * the same entries with the same ids, in new documents (the antenna's
 * 'init --new-feeds' after a change of --base or --page-size).
 */
int atom_evstore_reseal(atom_evstore *st, lb_error *err);
/* keep_events >= 0, or ATOM_EVSTORE_KEEP_ALL (the default of a new evstore). */
void atom_evstore_set_retention(atom_evstore *st, int64_t keep_events);
int64_t atom_evstore_retention(const atom_evstore *st);
/* Prunes in the caller's transaction (atom_evstore_commit() calls it when a
 * retention is set).  *pruned (may be NULL): events removed now. */
int atom_evstore_prune(atom_evstore *st, int64_t keep_events, int64_t *pruned, lb_error *err);
/* Archives 1..*archives have no events any more (0 = none pruned);
 * *events: how many events were ever pruned. */
int atom_evstore_pruned(atom_evstore *st, int64_t *archives, int64_t *events, lb_error *err);

#endif
