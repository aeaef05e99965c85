/*
 * store_polite.c: the servers' Retry-After kept across runs (table
 * server_wait, one row per server key, ant_polite.h): a server that
 * answered 429 or 503 "come back in an hour" is not asked again by the
 * next run ten minutes later.
 */
#include "ant_store.h"
#include "store_int.h"

#include "atom_db.h"

int ant_store_server_waits(ant_store *s, int64_t now,
			   void (*fn)(void *ctx, const char *server, int64_t until), void *ctx,
			   lb_error *err)
{
	atom_db_st *st;
	int rc;

	if ((rc = ant_st_prep(s, &st, "SELECT server, until FROM server_wait WHERE until > ?1", err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, now);
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		fn(ctx, (const char *)atom_db_column_text(st, 0), atom_db_column_int64(st, 1));
	atom_db_finalize(st);
	return rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "reading server_wait");
}

struct wait { const char *server; int64_t until; };

static void bind_wait(atom_db_st *st, const void *arg)
{
	const struct wait *w = arg;

	ant_st_bind_text(st, 1, w->server);
	atom_db_bind_int64(st, 2, w->until);
}

int ant_store_server_wait_set(ant_store *s, const char *server, int64_t until, lb_error *err)
{
	struct wait w = { server, until };
	int rc = ant_st_run(s, "INSERT INTO server_wait(server, until) VALUES(?1, ?2) "
			    "ON CONFLICT(server) DO UPDATE SET until=max(server_wait.until, excluded.until)",
			    bind_wait, &w, err);

	return rc < 0 ? rc : 0;
}

int ant_store_server_wait_get(ant_store *s, const char *server, int64_t *until, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*until = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT until FROM server_wait WHERE server = ?1", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, server);
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		*until = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "reading server_wait");
}

int ant_store_server_wait_clear(ant_store *s, const char *server, lb_error *err)
{
	struct wait w = { server, 0 };
	int rc = server ? ant_st_run(s, "DELETE FROM server_wait WHERE server = ?1", bind_wait, &w, err) :
			  ant_st_run(s, "DELETE FROM server_wait WHERE ?2 = 0", bind_wait, &w, err);

	return rc;
}
