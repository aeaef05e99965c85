/*
 * store_copy.c: an antenna copied from one database to another, SQLite or
 * PostgreSQL either way (antenna copy): every row of every table, by the
 * one database interface, values as they are (integers, text, blobs).
 */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"

/* Every table of the antenna and of its events (atom_evstore.h), a
 * table before those whose rows name its rows.  A table not here is
 * refused: a migration that adds one adds it here. */
static const char *const tables[] = {
	"config", "pages", "sources", "atom_archives", "source_records", "notify_targets",
	"trust_claims", "source_trust", "server_wait", "robots", "robots_pages", "source_reads",
	"page_texts", "site_pages", "server_slot", "origin_server", "ev_meta", "ev_events", "ev_archives",
};
#define NTABLES (sizeof tables / sizeof *tables)

static int known(const char *name)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (!strcmp(name, tables[i]))
			return 1;
	return 0;
}

/* src's tables are all known ones. */
static int check_tables(ant_store *src, lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(src, &st, "SELECT name FROM sqlite_master WHERE type = 'table'", err)) < 0)
		return rc;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *n = (const char *)atom_db_column_text(st, 0);

		if (n && !known(n) && strncmp(n, "sqlite_", 7)) {
			rc = lb_err(err, LB_EINVAL, "copy: '%s' has a table this antenna does not know: '%s'",
				    src->path, n);
			break;
		}
	}
	atom_db_finalize(st);
	return rc == ATOM_DB_DONE ? 0 : rc < 0 ? rc : ant_st_dberr(src, err, "cannot list tables");
}

/* "SELECT c1, ..." and "INSERT INTO t(c1, ...) VALUES(?1, ...)" of t's
 * columns (as src has them); *n the count. */
static int statements(ant_store *src, const char *t, lb_buf *sel, lb_buf *ins, int *n, lb_error *err)
{
	atom_db_st *st;
	lb_buf cols = LB_BUF_INIT, marks = LB_BUF_INIT;
	int rc, oom = 0;

	*n = 0;
	if ((rc = ant_st_prep(src, &st, "SELECT name FROM pragma_table_info(?1)", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, t);
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *c = (const char *)atom_db_column_text(st, 0);

		oom |= lb_buf_addf(&cols, "%s\"%s\"", *n ? ", " : "", c ? c : "") < 0;
		oom |= lb_buf_addf(&marks, "%s?%d", *n ? ", " : "", *n + 1) < 0;
		(*n)++;
	}
	atom_db_finalize(st);
	if (rc == ATOM_DB_DONE && !oom) {
		oom |= lb_buf_addf(sel, "SELECT %s FROM \"%s\"", cols.data, t) < 0;
		oom |= lb_buf_addf(ins, "INSERT INTO \"%s\"(%s) VALUES(%s)", t, cols.data, marks.data) < 0;
	}
	lb_buf_release(&cols);
	lb_buf_release(&marks);
	if (oom)
		return lb_err_code(err, LB_ENOMEM);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(src, err, "cannot read columns");
}

/* Column i of the row at from, bound as parameter i + 1 of to. */
static void bind_as(atom_db_st *to, atom_db_st *from, int i)
{
	switch (atom_db_column_type(from, i)) {
	case ATOM_DB_INTEGER:
		atom_db_bind_int64(to, i + 1, atom_db_column_int64(from, i));
		break;
	case ATOM_DB_FLOAT:
		atom_db_bind_double(to, i + 1, atom_db_column_double(from, i));
		break;
	case ATOM_DB_BLOB:
		atom_db_bind_blob(to, i + 1, atom_db_column_blob(from, i), atom_db_column_bytes(from, i),
				  ATOM_DB_TRANSIENT);
		break;
	case ATOM_DB_NULL:
		atom_db_bind_null(to, i + 1);
		break;
	default:
		atom_db_bind_text(to, i + 1, (const char *)atom_db_column_text(from, i),
				  atom_db_column_bytes(from, i), ATOM_DB_TRANSIENT);
	}
}

static int copy_table(ant_store *src, ant_store *dst, const char *t, int64_t *rows, lb_error *err)
{
	lb_buf sel = LB_BUF_INIT, ins = LB_BUF_INIT;
	atom_db_st *from = NULL, *to = NULL;
	int n, rc;

	if ((rc = statements(src, t, &sel, &ins, &n, err)) < 0 ||
	    (rc = ant_st_prep(src, &from, sel.data, err)) < 0 || (rc = ant_st_prep(dst, &to, ins.data, err)) < 0)
		goto out;
	while ((rc = atom_db_step(from)) == ATOM_DB_ROW) {
		for (int i = 0; i < n; i++)
			bind_as(to, from, i);
		if ((rc = ant_st_step_done(dst, to, err)) < 0)
			goto out;
		atom_db_reset(to);
		atom_db_clear_bindings(to);
		(*rows)++;
	}
	rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(src, err, "cannot read rows");
out:
	atom_db_finalize(from);
	atom_db_finalize(to);
	lb_buf_release(&sel);
	lb_buf_release(&ins);
	return rc;
}

/* PostgreSQL numbers new rows from a sequence the copied ids did not
 * move: each starts after the highest id copied. */
static int renumber(ant_store *dst, const char *t, lb_error *err)
{
	atom_db_st *st;
	char *col = NULL, sql[256];
	int rc;

	/* the identity column, where the table has one */
	if ((rc = ant_st_prep(dst, &st, "SELECT column_name FROM information_schema.columns WHERE"
			      " table_schema = current_schema() AND table_name = ?1 AND is_identity = 'YES'",
			      err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, t);
	if (atom_db_step(st) == ATOM_DB_ROW)
		col = ant_st_col_dup(st, 0, 1);
	atom_db_finalize(st);
	if (!col || strchr(col, '"'))
		return 0;
	snprintf(sql, sizeof sql, "SELECT setval(pg_get_serial_sequence('\"%s\"', '%s'),"
		 " (SELECT coalesce(max(\"%s\"), 0) + 1 FROM \"%s\"), false)", t, col, col, t);
	free(col);
	return ant_st_pragma_int(dst, sql) < 0 ? ant_st_dberr(dst, err, "cannot number rows") : 0;
}

int ant_store_copy(ant_store *src, ant_store *dst, int64_t *rows, lb_error *err)
{
	int pg = atom_db_backend(dst->db) == ATOM_DB_POSTGRES;
	char sql[128];
	int rc;

	*rows = 0;
	if ((rc = check_tables(src, err)) < 0 || (rc = ant_st_exec(dst, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	for (size_t i = NTABLES; i-- > 0;) {
		snprintf(sql, sizeof sql, "DELETE FROM \"%s\"", tables[i]);
		if ((rc = ant_st_exec(dst, sql, err)) < 0)
			goto fail;
	}
	for (size_t i = 0; i < NTABLES; i++)
		if ((rc = copy_table(src, dst, tables[i], rows, err)) < 0 ||
		    (pg && (rc = renumber(dst, tables[i], err)) < 0))
			goto fail;
	if ((rc = ant_st_exec(dst, "COMMIT", err)) < 0)
		goto fail;
	return 0;
fail:
	atom_db_exec(dst->db, "ROLLBACK");
	return rc;
}
