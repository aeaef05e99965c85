/*
 * store_int.h: what the store's files (store*.c) share; not for commands.
 * The store handle itself, SQLite's error in our words, and the few
 * statement helpers every query is built from.
 */
#ifndef ANT_STORE_INT_H
#define ANT_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "atom_db.h"

#include "ant_store.h"
#include "lb_error.h"


struct ant_store {
	atom_db *db;
	char *path;
	int lock_fd;
	int pg_locked;	/* the run lock, on PostgreSQL (store.c): 1 alone, 2 shared */
	int created;	/* this open made the tables (store_schema.c) */
	atom_db_st *save_page;  /* prepared once: the hot path of update */
	atom_db_st *put_srcrec; /* prepared once: every record a source reads */
	atom_db_st *get_page;   /* prepared once: every record looks up its page */
	atom_db_st *due_pages;  /* prepared once: each batch of update's pages */
	atom_db_st *relay_newest; /* prepared once: every record a relay source reads */
	atom_db_st *srcrec_times; /* prepared once: every record a source reads */
	atom_db_st *trust_judge;  /* prepared once: every page checked (store_trust.c) */
	atom_db_st *text_has, *text_get, *text_put, *diff_of;  /* prepared once: every page
						       checked (store_texts.c) */
	atom_db_st *site_get, *site_all, *site_list, *site_del, *site_put;  /* prepared once: every
						       page checked (store_site.c) */
	/* The pages with a pending claim (store_trust.c), read at the first
	 * judgement and kept up with each claim: a page no source spoke of
	 * costs no UPDATE.  A superset: a claim deleted otherwise stays. */
	struct { int64_t *id; size_t n, cap; int loaded; } pending;
};

/* ---- store_db.c --------------------------------------------------------- */

/* SQLite's last error on s as an LB_E* code with our message (what: the
 * operation); returns the code. */
int ant_st_dberr(ant_store *s, lb_error *err, const char *what);
/* Runs sql (no rows, no parameters): 0 or < 0. */
int ant_st_exec(ant_store *s, const char *sql, lb_error *err);
/* The first column of sql's first row; LB_EDB when it cannot be read (only
 * for PRAGMAs and counts, where a negative number is never an answer). */
int64_t ant_st_pragma_int(ant_store *s, const char *sql);
/* Prepares sql into *st: 0 or < 0 (LB_EDB, LB_ENOMEM). */
int ant_st_prep(ant_store *s, atom_db_st **st, const char *sql, lb_error *err);
/* Binds a string, or NULL as SQL NULL. */
void ant_st_bind_text(atom_db_st *st, int i, const char *v);
/* A text column as a malloc'd copy; NULL as NULL when keep_null, else "". */
char *ant_st_col_dup(atom_db_st *st, int i, int keep_null);
/* Runs a statement that returns no rows: the rows it changed, LB_EEXIST
 * (no message) on a unique key, or another < 0 code. */
int ant_st_step_done(ant_store *s, atom_db_st *st, lb_error *err);

/* Binds a statement's parameters from arg (a caller's struct). */
typedef void (*ant_st_binder)(atom_db_st *st, const void *arg);
/* The one round of prepare, bind, step, finalize: sql prepared, bound by
 * bind(st, arg) (bind may be NULL), run to its end.  Returns the rows
 * changed, or < 0 as ant_st_step_done(). */
int ant_st_run(ant_store *s, const char *sql, ant_st_binder bind, const void *arg, lb_error *err);
/* The integer of sql's one row (count(*) with ?1 = id): 0 with *n, or
 * < 0 (LB_EDB, LB_ENOMEM). */
int ant_st_count(ant_store *s, const char *sql, int64_t id, int64_t *n, lb_error *err);
/* A statement run once per page or record in a batch: prepared on first
 * use into *slot (closed with the store) and reset for new bindings. */
int ant_st_cached(ant_store *s, atom_db_st **slot, const char *sql, lb_error *err);
/* Runs a cached statement to its end and lets go of its bindings (they
 * may point into the caller's strings): 0 or < 0. */
int ant_st_run_cached(ant_store *s, atom_db_st *st, lb_error *err);

/* One row reader, one free for a whole array: what ant_st_load_rows
 * needs to read any table into an array of its structs. */
struct ant_st_rows {
	size_t size;	/* one element */
	size_t first;	/* first allocation, in elements */
	int (*read)(atom_db_st *st, void *elem);   /* 0, or LB_ENOMEM */
	void (*free_all)(void *v, size_t n);
};
/* Every row of sql into a fresh array of k->size elements.  On an error
 * nothing is left allocated and *out stays NULL. */
int ant_st_load_rows(ant_store *s, const char *sql, const struct ant_st_rows *k, void **out,
		     size_t *n, lb_error *err);

/* ---- store_schema.c ------------------------------------------------------ */

/* The 64-bit hash the pages' key index holds (store_schema.c says why). */
int64_t ant_st_key_hash(const char *key);
/* 1 when s has the antenna's tables (or a newer schema), else 0. */
int ant_st_is_antenna_db(ant_store *s);
/* Registers the SQL functions the schema and the queries use. */
int ant_st_functions(ant_store *s, lb_error *err);
/* Brings the schema up to ANT_STORE_SCHEMA_VERSION: 0 or < 0. */
int ant_st_migrate(ant_store *s, lb_error *err);

/* ---- store_pg.c, store_pgsql.c: PostgreSQL ------------------------------- */

/* 1 when name is a PostgreSQL URI (postgresql://, postgres://). */
int ant_st_is_pg_name(const char *name);
/* Connects to the PostgreSQL database at uri: 0 and *db, or < 0 (LB_EDB
 * with the server's words, LB_ENOMEM). */
int ant_st_pg_open(const char *uri, atom_db **db, lb_error *err);
/* The advisory lock key of ANT_STORE_LOCK_* on PostgreSQL (store.c). */
long long ant_st_lock_key(int which);
/* sql (SQLite's dialect, one or more statements) as PostgreSQL's, malloc'd;
 * *nparams (when given) the highest parameter number, *used (when given)
 * a bit for each of the parameters 1..64 it names.  NULL: no memory. */
char *ant_st_pg_sql(const char *sql, int *nparams, uint64_t *used);

/* ---- store_pages.c -------------------------------------------------------- */

/* detected_by of column i: one of ant_detect.h's static strings, or NULL. */
const char *ant_st_rule_name(atom_db_st *st, int i);

/* The claim's pages read and leased (ant_store_pages_claim()): 0 or < 0. */
int ant_st_pages_leased(ant_store *s, const ant_store_claim *c, ant_store_page *out, size_t max,
			size_t *n, lb_error *err);

/* ---- store_sources.c ------------------------------------------------------ */

/* ANT_STORE_SOURCE_* of a sources.kind column. */
int ant_st_source_kind(const unsigned char *t);

#endif
