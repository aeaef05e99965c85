/*
 * atom_db.h: the one database interface of the store and the event store
 * (evstore.c, src/antenna/store/): a connection, statements that are
 * prepared, bound, stepped, read and reset, and the few things a caller
 * asks of a connection (rows changed, last id, in a transaction or not,
 * the error).  SQLite is built in (atom_db.c) and the default; another
 * backend (PostgreSQL: src/antenna/store/store_pg.c) plugs in through
 * struct atom_db_ops below, so this layer links no client library of its own.
 *
 * The calls mirror SQLite's C interface, and the codes are SQLite's
 * numbers, so the SQLite path is a direct call: no translation, no copy.
 * The SQL given to atom_db_prepare()/atom_db_exec() is SQLite's dialect restricted
 * to what a backend can rewrite in one place (the backend's file says
 * what it rewrites: placeholders, upserts, types, PRAGMAs).
 *
 * Ownership: a statement belongs to its connection and is freed by
 * atom_db_finalize(); text and blobs returned by atom_db_column_*() are valid
 * until the next step, reset or finalize of that statement.
 */
#ifndef ATOM_DB_H
#define ATOM_DB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

typedef struct atom_db atom_db;
typedef struct atom_db_st atom_db_st;

/* Result codes: SQLite's numbers (a backend maps its own errors to them). */
#define ATOM_DB_OK 0
#define ATOM_DB_ERROR 1
#define ATOM_DB_BUSY 5
#define ATOM_DB_LOCKED 6
#define ATOM_DB_NOMEM 7
#define ATOM_DB_READONLY 8
#define ATOM_DB_IOERR 10
#define ATOM_DB_CORRUPT 11
#define ATOM_DB_FULL 13
#define ATOM_DB_CANTOPEN 14
#define ATOM_DB_CONSTRAINT 19
#define ATOM_DB_MISUSE 21
#define ATOM_DB_NOTADB 26
#define ATOM_DB_ROW 100
#define ATOM_DB_DONE 101
/* Extended codes (atom_db_extended_result_codes() on): a unique key refused. */
#define ATOM_DB_CONSTRAINT_PRIMARYKEY (ATOM_DB_CONSTRAINT | (6 << 8))
#define ATOM_DB_CONSTRAINT_UNIQUE (ATOM_DB_CONSTRAINT | (8 << 8))

/* Column types (atom_db_column_type()). */
#define ATOM_DB_INTEGER 1
#define ATOM_DB_FLOAT 2
#define ATOM_DB_TEXT 3
#define ATOM_DB_BLOB 4
#define ATOM_DB_NULL 5

/* A bound text or blob: ATOM_DB_STATIC the caller keeps it until the
 * statement is reset or stepped to its end; ATOM_DB_TRANSIENT it is copied. */
#define ATOM_DB_STATIC 0
#define ATOM_DB_TRANSIENT 1

/* atom_db_open() flags: SQLite's. */
#define ATOM_DB_OPEN_READONLY 0x1
#define ATOM_DB_OPEN_READWRITE 0x2
#define ATOM_DB_OPEN_CREATE 0x4
#define ATOM_DB_OPEN_NOMUTEX 0x8000

/* Which backend a connection is (atom_db_backend()): for the few statements
 * that have no common form (an integrity check, a file's page counts). */
#define ATOM_DB_SQLITE 0
#define ATOM_DB_POSTGRES 1

/* ---- connection --------------------------------------------------------- */

/* Opens the SQLite file path ("" a private temporary one) with flags;
 * ATOM_DB_OK and *db, or a code with *db set when it can tell the error
 * (atom_db_errmsg(*db)); atom_db_close(*db) in both cases. */
int atom_db_open(const char *path, atom_db **db, int flags);
int atom_db_close(atom_db *db);
int atom_db_backend(atom_db *db);
/* The file's name ("" for a temporary or in-memory one), or the
 * connection's name for a server. */
const char *atom_db_filename(atom_db *db);
int atom_db_busy_timeout(atom_db *db, int ms);
int atom_db_extended_result_codes(atom_db *db, int on);
const char *atom_db_errmsg(atom_db *db);
const char *atom_db_errstr(int rc);
int atom_db_extended_errcode(atom_db *db);
int atom_db_system_errno(atom_db *db);
int atom_db_changes(atom_db *db);
int64_t atom_db_last_insert_rowid(atom_db *db);
/* 1 outside a transaction, 0 inside one. */
int atom_db_get_autocommit(atom_db *db);
/* Runs sql, one or more statements without parameters or rows. */
int atom_db_exec(atom_db *db, const char *sql);
/* Registers name(TEXT) -> INTEGER computed by fn (NULL gives NULL). */
int atom_db_create_function(atom_db *db, const char *name, int64_t (*fn)(const char *));

/* ---- statements --------------------------------------------------------- */

int atom_db_prepare(atom_db *db, const char *sql, atom_db_st **st);
int atom_db_bind_double(atom_db_st *st, int i, double v);
int atom_db_bind_parameter_count(atom_db_st *st);
int atom_db_finalize(atom_db_st *st);
/* Says st walks many rows (every page): a server's backend fetches them
 * in batches rather than holding the whole result in memory; SQLite
 * steps through its rows anyway (nothing to do).  Before the first step. */
int atom_db_stream(atom_db_st *st);
double atom_db_column_double(atom_db_st *st, int i);
/* The calls of every row (bind, step, reset, read a column) are inline,
 * below: on SQLite each is the library's call and nothing more. */

/* ---- for backends --------------------------------------------------------- */

/* A backend's statement begins with this struct (lite is NULL). */
struct atom_db_st {
	void *lite;	/* sqlite3_stmt *, when SQLite */
	atom_db *db;
};

/* What a backend other than SQLite implements; the calls above dispatch
 * to it.  bind's kind is ATOM_DB_INTEGER (v), ATOM_DB_FLOAT (d), ATOM_DB_TEXT or
 * ATOM_DB_BLOB (p, n, keep) or ATOM_DB_NULL. */
struct atom_db_ops {
	const char *name;
	int (*close)(atom_db *db);
	int (*exec)(atom_db *db, const char *sql);
	int (*prepare)(atom_db *db, const char *sql, atom_db_st **st);
	int (*function)(atom_db *db, const char *name, int64_t (*fn)(const char *));
	int (*bind)(atom_db_st *st, int i, int kind, int64_t v, double d, const void *p, int n, int keep);
	int (*param_count)(atom_db_st *st);
	int (*step)(atom_db_st *st);
	int (*reset)(atom_db_st *st);
	int (*clear)(atom_db_st *st);
	int (*finalize)(atom_db_st *st);
	int (*col_type)(atom_db_st *st, int i);
	int64_t (*col_int64)(atom_db_st *st, int i);
	double (*col_double)(atom_db_st *st, int i);
	const unsigned char *(*col_text)(atom_db_st *st, int i);
	const void *(*col_blob)(atom_db_st *st, int i);
	int (*col_bytes)(atom_db_st *st, int i);
	int (*changes)(atom_db *db);
	int64_t (*last_id)(atom_db *db);
	int (*autocommit)(atom_db *db);
	const char *(*errmsg)(atom_db *db);
	int (*errcode)(atom_db *db);
	const char *(*filename)(atom_db *db);
	int (*stream)(atom_db_st *st);	/* NULL: results held whole */
};

/* A connection of backend ops over impl (the backend's own state):
 * ATOM_DB_OK or ATOM_DB_NOMEM.  atom_db_close() calls ops->close, then frees db. */
int atom_db_wrap(const struct atom_db_ops *ops, void *impl, int backend, atom_db **db);
/* The impl given to atom_db_wrap(). */
void *atom_db_impl(atom_db *db);

/* The ops of st's backend (atom_db.c), for the inline calls below. */
const struct atom_db_ops *atom_db_ops_of(const atom_db_st *st);

#define ATOM_DB_LITE(st) ((sqlite3_stmt *)(st)->lite)

static inline int atom_db_bind_int64(atom_db_st *st, int i, int64_t v)
{
	return st->lite ? sqlite3_bind_int64(ATOM_DB_LITE(st), i, v)
			: atom_db_ops_of(st)->bind(st, i, ATOM_DB_INTEGER, v, 0, NULL, 0, 0);
}

static inline int atom_db_bind_int(atom_db_st *st, int i, int v)
{
	return st->lite ? sqlite3_bind_int(ATOM_DB_LITE(st), i, v)
			: atom_db_ops_of(st)->bind(st, i, ATOM_DB_INTEGER, v, 0, NULL, 0, 0);
}

static inline int atom_db_bind_null(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_bind_null(ATOM_DB_LITE(st), i)
			: atom_db_ops_of(st)->bind(st, i, ATOM_DB_NULL, 0, 0, NULL, 0, 0);
}

static inline int atom_db_bind_text(atom_db_st *st, int i, const char *v, int n, int keep)
{
	if (st->lite)
		return sqlite3_bind_text(ATOM_DB_LITE(st), i, v, n, keep == ATOM_DB_STATIC ? SQLITE_STATIC : SQLITE_TRANSIENT);
	return v ? atom_db_ops_of(st)->bind(st, i, ATOM_DB_TEXT, 0, 0, v, n, keep) : atom_db_bind_null(st, i);
}

static inline int atom_db_bind_blob(atom_db_st *st, int i, const void *v, int n, int keep)
{
	if (st->lite)
		return sqlite3_bind_blob(ATOM_DB_LITE(st), i, v, n, keep == ATOM_DB_STATIC ? SQLITE_STATIC : SQLITE_TRANSIENT);
	return v ? atom_db_ops_of(st)->bind(st, i, ATOM_DB_BLOB, 0, 0, v, n, keep) : atom_db_bind_null(st, i);
}

/* ATOM_DB_ROW, ATOM_DB_DONE or an error code. */
static inline int atom_db_step(atom_db_st *st)
{
	return st->lite ? sqlite3_step(ATOM_DB_LITE(st)) : atom_db_ops_of(st)->step(st);
}

static inline int atom_db_reset(atom_db_st *st)
{
	return st->lite ? sqlite3_reset(ATOM_DB_LITE(st)) : atom_db_ops_of(st)->reset(st);
}

static inline int atom_db_clear_bindings(atom_db_st *st)
{
	return st->lite ? sqlite3_clear_bindings(ATOM_DB_LITE(st)) : atom_db_ops_of(st)->clear(st);
}

static inline int atom_db_column_type(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_type(ATOM_DB_LITE(st), i) : atom_db_ops_of(st)->col_type(st, i);
}

static inline int64_t atom_db_column_int64(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_int64(ATOM_DB_LITE(st), i) : atom_db_ops_of(st)->col_int64(st, i);
}

static inline int atom_db_column_int(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_int(ATOM_DB_LITE(st), i) : (int)atom_db_ops_of(st)->col_int64(st, i);
}

static inline const unsigned char *atom_db_column_text(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_text(ATOM_DB_LITE(st), i) : atom_db_ops_of(st)->col_text(st, i);
}

static inline const void *atom_db_column_blob(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_blob(ATOM_DB_LITE(st), i) : atom_db_ops_of(st)->col_blob(st, i);
}

static inline int atom_db_column_bytes(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_bytes(ATOM_DB_LITE(st), i) : atom_db_ops_of(st)->col_bytes(st, i);
}

#endif
