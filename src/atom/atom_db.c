/*
 * atom_db.c: the database interface (atom_db.h) and its SQLite backend.
 * A SQLite statement is a direct call (st->lite set); any other backend's
 * goes through its struct atom_db_ops.  Codes are SQLite's, passed as they are.
 */
#include "atom_db.h"

#include <pthread.h>
#include <stdlib.h>

#include <sqlite3.h>

struct atom_db {
	sqlite3 *lite;			/* SQLite, or NULL */
	const struct atom_db_ops *ops;	/* another backend */
	void *impl;
	int backend;
};

#define LITE(st) ATOM_DB_LITE(st)

const struct atom_db_ops *atom_db_ops_of(const atom_db_st *st) { return st->db->ops; }

/* ---- connection --------------------------------------------------------- */

static pthread_once_t lite_once = PTHREAD_ONCE_INIT;

/* Before SQLite's first use: no memory statistics (nothing here reads
 * them), so that its every malloc and free does not take the global
 * memory mutex (callgrind: 90,000 lock pairs in an update of 2,000
 * pages).  Too late (SQLite already initialised): SQLITE_MISUSE, no
 * change. */
static void lite_setup(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int atom_db_open(const char *path, atom_db **db, int flags)
{
	atom_db *d = calloc(1, sizeof *d);
	int rc;

	*db = d;
	if (!d)
		return ATOM_DB_NOMEM;
	pthread_once(&lite_once, lite_setup);
	d->backend = ATOM_DB_SQLITE;
	rc = sqlite3_open_v2(path, &d->lite, flags, NULL);
	if (!d->lite) {
		free(d);
		*db = NULL;
	}
	return rc;
}

int atom_db_wrap(const struct atom_db_ops *ops, void *impl, int backend, atom_db **db)
{
	atom_db *d = calloc(1, sizeof *d);

	*db = d;
	if (!d)
		return ATOM_DB_NOMEM;
	d->ops = ops;
	d->impl = impl;
	d->backend = backend;
	return ATOM_DB_OK;
}

void *atom_db_impl(atom_db *db) { return db->impl; }
int atom_db_backend(atom_db *db) { return db->backend; }

int atom_db_close(atom_db *db)
{
	int rc;

	if (!db)
		return ATOM_DB_OK;
	rc = db->lite ? sqlite3_close(db->lite) : db->ops->close(db);
	free(db);
	return rc;
}

const char *atom_db_filename(atom_db *db)
{
	const char *f;

	if (!db->lite)
		return db->ops->filename(db);
	f = sqlite3_db_filename(db->lite, "main");
	return f ? f : "";
}

int atom_db_busy_timeout(atom_db *db, int ms)
{
	return db->lite ? sqlite3_busy_timeout(db->lite, ms) : ATOM_DB_OK;
}

int atom_db_extended_result_codes(atom_db *db, int on)
{
	return db->lite ? sqlite3_extended_result_codes(db->lite, on) : ATOM_DB_OK;
}

const char *atom_db_errmsg(atom_db *db)
{
	if (!db)
		return "out of memory";
	return db->lite ? sqlite3_errmsg(db->lite) : db->ops->errmsg(db);
}

const char *atom_db_errstr(int rc) { return sqlite3_errstr(rc); }

int atom_db_extended_errcode(atom_db *db)
{
	return db->lite ? sqlite3_extended_errcode(db->lite) : db->ops->errcode(db);
}

int atom_db_system_errno(atom_db *db)
{
	return db->lite ? sqlite3_system_errno(db->lite) : 0;
}

int atom_db_changes(atom_db *db)
{
	return db->lite ? sqlite3_changes(db->lite) : db->ops->changes(db);
}

int64_t atom_db_last_insert_rowid(atom_db *db)
{
	return db->lite ? sqlite3_last_insert_rowid(db->lite) : db->ops->last_id(db);
}

int atom_db_get_autocommit(atom_db *db)
{
	return db->lite ? sqlite3_get_autocommit(db->lite) : db->ops->autocommit(db);
}

int atom_db_exec(atom_db *db, const char *sql)
{
	return db->lite ? sqlite3_exec(db->lite, sql, NULL, NULL, NULL) : db->ops->exec(db, sql);
}

static void lite_function(sqlite3_context *c, int argc, sqlite3_value **v)
{
	int64_t (*fn)(const char *) = (int64_t (*)(const char *))sqlite3_user_data(c);
	const unsigned char *t = sqlite3_value_text(v[0]);

	(void)argc;
	if (t)
		sqlite3_result_int64(c, fn((const char *)t));
	else
		sqlite3_result_null(c);
}

int atom_db_create_function(atom_db *db, const char *name, int64_t (*fn)(const char *))
{
	if (!db->lite)
		return db->ops->function(db, name, fn);
	return sqlite3_create_function(db->lite, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				       (void *)fn, lite_function, NULL, NULL);
}

/* ---- statements --------------------------------------------------------- */

int atom_db_prepare(atom_db *db, const char *sql, atom_db_st **st)
{
	sqlite3_stmt *s;
	int rc;

	*st = NULL;
	if (!db->lite)
		return db->ops->prepare(db, sql, st);
	if ((rc = sqlite3_prepare_v2(db->lite, sql, -1, &s, NULL)) != SQLITE_OK)
		return rc;
	if (!(*st = malloc(sizeof **st))) {
		sqlite3_finalize(s);
		return ATOM_DB_NOMEM;
	}
	(*st)->lite = s;
	(*st)->db = db;
	return ATOM_DB_OK;
}



int atom_db_bind_double(atom_db_st *st, int i, double v)
{
	if (st->lite)
		return sqlite3_bind_double(LITE(st), i, v);
	return st->db->ops->bind(st, i, ATOM_DB_FLOAT, 0, v, NULL, 0, 0);
}




int atom_db_bind_parameter_count(atom_db_st *st)
{
	return st->lite ? sqlite3_bind_parameter_count(LITE(st)) : st->db->ops->param_count(st);
}




int atom_db_finalize(atom_db_st *st)
{
	int rc;

	if (!st)
		return ATOM_DB_OK;
	if (!st->lite)
		return st->db->ops->finalize(st);
	rc = sqlite3_finalize(LITE(st));
	free(st);
	return rc;
}




int atom_db_stream(atom_db_st *st)
{
	if (st->lite || !st->db->ops->stream)
		return ATOM_DB_OK;
	return st->db->ops->stream(st);
}

double atom_db_column_double(atom_db_st *st, int i)
{
	return st->lite ? sqlite3_column_double(LITE(st), i) : st->db->ops->col_double(st, i);
}



