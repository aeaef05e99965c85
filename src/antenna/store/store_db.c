/*
 * store_db.c: the SQL tools every store file builds its queries from
 * (priv/store_int.h): errors in an operator's words, exec, prepare, bind,
 * step, cached statements and loading rows.  They sit below store.c and
 * store_schema.c both, so that opening a database (store.c) may migrate
 * its schema (store_schema.c) without the schema calling back up.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"

/*
 * What happened, in our words, for the failures an operator meets (SQLite's
 * own text, kept as detail, says "disk I/O error" or
 * "database disk image is malformed" without the file or what to do).
 */
int ant_st_dberr(ant_store *s, lb_error *err, const char *what)
{
	int rc = atom_db_extended_errcode(s->db), sys = atom_db_system_errno(s->db);
	const char *lib = atom_db_errmsg(s->db);

	switch (rc & 0xff) {
	case ATOM_DB_BUSY:
	case ATOM_DB_LOCKED:
		return lb_err(err, LB_EBUSY, "database '%s' is locked by another process, "
			      "perhaps another antenna command (%s; sqlite: %s)", s->path, what, lib);
	case ATOM_DB_IOERR:
		return lb_err(err, LB_EDB, "cannot read or write database '%s': %s (%s; sqlite: %s)",
			      s->path, sys ? strerror(sys) : "I/O error", what, lib);
	case ATOM_DB_FULL:
		return lb_err(err, LB_EDB, "disk full: cannot write database '%s' (%s; sqlite: %s)",
			      s->path, what, lib);
	case ATOM_DB_CORRUPT:
	case ATOM_DB_NOTADB:
		return lb_err(err, LB_EDB, "database '%s' is damaged: restore a backup; 'antenna "
			      "check-db' tells more (%s; sqlite: %s)", s->path, what, lib);
	case ATOM_DB_READONLY:
		return lb_err(err, LB_EDB, "database '%s' cannot be written: read-only file or "
			      "directory (%s; sqlite: %s)", s->path, what, lib);
	case ATOM_DB_NOMEM:
		return lb_err(err, LB_ENOMEM, "out of memory (%s in '%s')", what, s->path);
	default:
		return lb_err(err, LB_EDB, "%s in '%s': %s", what, s->path, lib);
	}
}

int ant_st_exec(ant_store *s, const char *sql, lb_error *err)
{
	if (atom_db_exec(s->db, sql) != ATOM_DB_OK)
		return ant_st_dberr(s, err, "database error");
	return 0;
}

int64_t ant_st_pragma_int(ant_store *s, const char *sql)
{
	atom_db_st *st;
	int64_t v = LB_EDB;

	if (atom_db_prepare(s->db, sql, &st) != ATOM_DB_OK)
		return LB_EDB;
	if (atom_db_step(st) == ATOM_DB_ROW)
		v = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return v;
}

/* ---- statement helpers ------------------------------------------------- */

int ant_st_prep(ant_store *s, atom_db_st **st, const char *sql, lb_error *err)
{
	if (atom_db_prepare(s->db, sql, st) != ATOM_DB_OK)
		return ant_st_dberr(s, err, "database error");
	return 0;
}

void ant_st_bind_text(atom_db_st *st, int i, const char *v)
{
	if (v)
		atom_db_bind_text(st, i, v, -1, ATOM_DB_TRANSIENT);
	else
		atom_db_bind_null(st, i);
}

char *ant_st_col_dup(atom_db_st *st, int i, int keep_null)
{
	const unsigned char *t = atom_db_column_text(st, i);

	if (!t)
		return keep_null ? NULL : strdup("");
	return strdup((const char *)t);
}

/* st stepped to its end: 0, LB_EEXIST or LB_EDB. */
static int step_only(ant_store *s, atom_db_st *st, lb_error *err)
{
	int rc = atom_db_step(st);

	if (rc != ATOM_DB_DONE) {
		if (rc == ATOM_DB_CONSTRAINT_UNIQUE || rc == ATOM_DB_CONSTRAINT_PRIMARYKEY)
			return LB_EEXIST;   /* no message: the callers say 1 */
		return ant_st_dberr(s, err, "database error");
	}
	return 0;
}

int ant_st_step_done(ant_store *s, atom_db_st *st, lb_error *err)
{
	int rc = step_only(s, st, err);

	return rc < 0 ? rc : atom_db_changes(s->db);
}

int ant_st_run(ant_store *s, const char *sql, ant_st_binder bind, const void *arg, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, sql, err)) < 0)
		return rc;
	if (bind)
		bind(st, arg);
	rc = ant_st_step_done(s, st, err);
	atom_db_finalize(st);
	return rc;
}

int ant_st_count(ant_store *s, const char *sql, int64_t id, int64_t *n, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*n = 0;
	if ((rc = ant_st_prep(s, &st, sql, err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, id);
	rc = atom_db_step(st);
	if (rc == ATOM_DB_ROW)
		*n = atom_db_column_int64(st, 0);
	rc = rc == ATOM_DB_ROW ? 0 : ant_st_dberr(s, err, "database error");
	atom_db_finalize(st);
	return rc;
}

int ant_st_cached(ant_store *s, atom_db_st **slot, const char *sql, lb_error *err)
{
	int rc;

	if (!*slot && (rc = ant_st_prep(s, slot, sql, err)) < 0)
		return rc;
	atom_db_reset(*slot);
	return 0;
}

int ant_st_run_cached(ant_store *s, atom_db_st *st, lb_error *err)
{
	/* not the rows changed: asking waits for PostgreSQL's answer, and a
	 * cached write inside a transaction is sent without waiting (store_pg.c) */
	int rc = step_only(s, st, err);

	atom_db_reset(st);
	atom_db_clear_bindings(st);
	return rc < 0 ? rc : 0;
}

int ant_st_load_rows(ant_store *s, const char *sql, const struct ant_st_rows *k, void **out,
		     size_t *n, lb_error *err)
{
	atom_db_st *st;
	char *v = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ant_st_prep(s, &st, sql, err)) < 0)
		return rc;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		char *nv = lb_grow(v, &cap, len + 1, k->size, k->first);
		if (!nv)
			goto nomem;
		v = nv;
		if (k->read(st, v + len * k->size) < 0)
			goto nomem;
		len++;
	}
	atom_db_finalize(st);
	if (rc != ATOM_DB_DONE) {
		k->free_all(v, len);
		return ant_st_dberr(s, err, "database error");
	}
	*out = v;
	*n = len;
	return 0;
nomem:
	atom_db_finalize(st);
	k->free_all(v, len);
	return lb_err_code(err, LB_ENOMEM);
}
