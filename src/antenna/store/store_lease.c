/*
 * store_lease.c: several checkers over one PostgreSQL (ant_store.h
 * "several checkers"; doc/DESIGN.md "Several checkers over one
 * PostgreSQL").  A checker claims servers, then the due pages of those
 * servers, both with FOR UPDATE SKIP LOCKED and a lease (who, until when):
 * two checkers never claim one page, nor ask one server at once, and a
 * checker killed mid-batch loses nothing: its leases expire and another
 * claims the pages.  The locks that must stay single (the sources, the
 * publish) are session advisory locks the server lets go of with the
 * connection.  On SQLite none of this runs: one run holds the run lock
 * (store.c), as ever.
 */
#include "store_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


int ant_store_shared(const ant_store *s)
{
	return atom_db_backend(s->db) == ATOM_DB_POSTGRES;
}

int ant_store_lock_named(ant_store *s, int which, int wait_seconds, lb_error *err)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	char sql[80];
	int64_t got;
	int tries = wait_seconds * 10;

	if (!ant_store_shared(s))
		return 1;   /* SQLite: the run lock or the one machine covers it */
	snprintf(sql, sizeof sql, "SELECT pg_try_advisory_lock(%lld)", ant_st_lock_key(which));
	while ((got = ant_st_pragma_int(s, sql)) == 0 && tries-- > 0)
		nanosleep(&pause, NULL);
	if (got < 0)
		return ant_st_dberr(s, err, "cannot take a lock");
	return got != 0;
}

void ant_store_unlock_named(ant_store *s, int which)
{
	char sql[80];

	if (!ant_store_shared(s))
		return;
	snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(%lld)", ant_st_lock_key(which));
	ant_st_pragma_int(s, sql);
}

/* ---- each page's server ---------------------------------------------------- */

struct fill { int64_t id; const char *server; };

static void bind_fill(atom_db_st *st, const void *arg)
{
	const struct fill *f = arg;

	atom_db_bind_int64(st, 1, f->id);
	ant_st_bind_text(st, 2, f->server);
}

/* One round of pages without a server: their keys written.  The count
 * read, or < 0. */
static int fill_round(ant_store *s, ant_store_server_fn key, void *ctx, lb_error *err)
{
	enum { ROUND = 1000 };
	int64_t ids[ROUND];
	char *urls[ROUND];
	atom_db_st *st;
	int n = 0, rc;

	if ((rc = ant_st_prep(s, &st, "SELECT id, coalesce(check_url, url) FROM pages"
			      " WHERE server IS NULL LIMIT 1000", err)) < 0)
		return rc;
	while (n < ROUND && (rc = atom_db_step(st)) == ATOM_DB_ROW) {
		ids[n] = atom_db_column_int64(st, 0);
		if (!(urls[n] = ant_st_col_dup(st, 1, 0))) {
			rc = LB_ENOMEM;
			break;
		}
		n++;
	}
	rc = rc == LB_ENOMEM ? lb_err_code(err, LB_ENOMEM) : rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 :
	     ant_st_dberr(s, err, "reading pages' servers");
	atom_db_finalize(st);
	for (int i = 0; i < n; i++) {
		char *k = key(ctx, urls[i]);
		struct fill f = { ids[i], k ? k : "" };   /* no key: its own "" server */

		/* the page's server, and the server's slot row (a claim locks
		 * rows only), in the same transaction: a checker that sees the
		 * one sees the other */
		if (rc == 0 && (rc = ant_st_run(s, "UPDATE pages SET server = ?2 WHERE id = ?1",
						bind_fill, &f, err)) > 0 &&
		    (rc = ant_st_run(s, "INSERT INTO server_slot(server) VALUES(?2)"
				     " ON CONFLICT(server) DO NOTHING", bind_fill, &f, err)) >= 0)
			rc = 0;
		free(k);
		free(urls[i]);
	}
	return rc < 0 ? rc : n;
}

struct origin { const char *origin, *key; };

static void bind_origin(atom_db_st *st, const void *arg)
{
	const struct origin *o = arg;

	ant_st_bind_text(st, 1, o->origin);
	ant_st_bind_text(st, 2, o->key);
}

int ant_store_origin_server(ant_store *s, const char *origin, char **key, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*key = NULL;
	if ((rc = ant_st_prep(s, &st, "SELECT server FROM origin_server WHERE origin = ?1", err)) < 0)
		return rc;
	bind_origin(st, &(struct origin){ origin, NULL });
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		rc = (*key = ant_st_col_dup(st, 0, 0)) ? 1 : lb_err_code(err, LB_ENOMEM);
	else
		rc = rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "reading an origin's server");
	atom_db_finalize(st);
	return rc;
}

int ant_store_origin_server_put(ant_store *s, const char *origin, const char *key, lb_error *err)
{
	int rc = ant_st_run(s, "INSERT INTO origin_server(origin, server) VALUES(?1, ?2)"
			    " ON CONFLICT(origin) DO NOTHING", bind_origin, &(struct origin){ origin, key }, err);

	return rc < 0 ? rc : 0;
}

int ant_store_servers_fill(ant_store *s, ant_store_server_fn key, void *ctx, lb_error *err)
{
	int rc, n;

	do {
		if ((rc = ant_store_begin(s, err)) < 0)
			return rc;
		/* one checker fills at a time: checkers starting together
		 * would write the same rows in other orders (a deadlock) */
		if ((rc = ant_st_exec(s, "SELECT pg_advisory_xact_lock(4242000006)", err)) < 0 ||
		    (rc = n = fill_round(s, key, ctx, err)) < 0 ||
		    (rc = ant_store_commit(s, err)) < 0) {
			ant_store_rollback(s);
			return rc;
		}
	} while (n == 1000);
	return 0;
}

/* ---- claims and leases --------------------------------------------------------- */

static void bind_claim(atom_db_st *st, const ant_store_claim *c)
{

	ant_st_bind_text(st, 1, c->checker);
	atom_db_bind_int64(st, 2, c->now);
	atom_db_bind_int64(st, 3, c->now_ms);
	atom_db_bind_int64(st, 4, c->lease_ms);
	atom_db_bind_int64(st, 5, (int64_t)c->servers);
	atom_db_bind_int(st, 6, c->force != 0);
	atom_db_bind_int64(st, 7, (int64_t)c->per_server);
}

/* A page this claim may take: due (ant_detect_due()), not leased, and not
 * given back by this run already (lease_by keeps the run's id after the
 * release: a page its check leaves due waits for the next run).  Not a
 * time: a run in the same second as the last must check what is due.
 * --force: every page not checked at or after this run's time, so that
 * checkers forced together check each page once, not once each (a page
 * another checker checked since is not asked again). */
#define CLAIMABLE(p) "((?6 <> 0 AND " p "last_check < ?2) OR " p "recheck <> 0 OR " p "next_check <= ?2) AND " \
	p "lease_until <= ?3 AND " p "lease_by IS DISTINCT FROM ?1"

/* The servers taken: up to c->servers whose slot is free and that have a
 * claimable page, their slots leased to c->checker; fn(ctx, server,
 * next_at) for each.  The count, or < 0. */
static int take_servers(ant_store *s, const ant_store_claim *c, lb_error *err)
{
	atom_db_st *st;
	int rc, n = 0;

	if ((rc = ant_st_prep(s, &st, "UPDATE server_slot SET checker = ?1, until = ?3 + ?4"
			      " WHERE server IN (SELECT ss.server FROM server_slot ss WHERE ss.until <= ?3"
			      " AND EXISTS(SELECT 1 FROM pages p WHERE p.server = ss.server AND "
			      CLAIMABLE("p.") ") ORDER BY ss.next_at, ss.server LIMIT ?5"
			      " FOR UPDATE SKIP LOCKED) RETURNING server, next_at", err)) < 0)
		return rc;
	bind_claim(st, c);
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		n++;
		if (c->on_server)
			c->on_server(c->ctx, (const char *)atom_db_column_text(st, 0), atom_db_column_int64(st, 1));
	}
	rc = rc == ATOM_DB_DONE ? n : ant_st_dberr(s, err, "claiming servers");
	atom_db_finalize(st);
	return rc;
}

int ant_store_pages_claim(ant_store *s, const ant_store_claim *c, ant_store_page *out, size_t max,
			  size_t *n, lb_error *err)
{
	int rc;

	*n = 0;
	if ((rc = ant_store_begin(s, err)) < 0)
		return rc;
	if ((rc = take_servers(s, c, err)) > 0)
		rc = ant_st_pages_leased(s, c, out, max, n, err);
	if (rc < 0 || (rc = ant_store_commit(s, err)) < 0) {
		ant_store_rollback(s);
		while (*n)
			ant_store_page_release(&out[--(*n)]);
		return rc;
	}
	return 0;
}

struct rel { const char *checker; int64_t next_at; const char *servers; };

static void bind_rel(atom_db_st *st, const void *arg)
{
	const struct rel *r = arg;

	ant_st_bind_text(st, 1, r->checker);
	atom_db_bind_int64(st, 2, r->next_at);
	ant_st_bind_text(st, 3, r->servers);
}

int ant_store_pages_release(ant_store *s, const char *checker, const char *servers, int64_t next_at,
			    lb_error *err)
{
	struct rel r = { checker, next_at, servers ? servers : "" };
	int rc;

	/* by the servers claimed, not by the slots still held: a slot whose
	 * lease ran out mid-batch may be another checker's now */
	if ((rc = ant_store_begin(s, err)) < 0)
		return rc;
	if ((rc = ant_st_run(s, "UPDATE pages SET lease_until = 0 WHERE server ="
			     " ANY(string_to_array(?3, chr(10))) AND lease_by = ?1 AND ?2 = ?2",
			     bind_rel, &r, err)) < 0 ||
	    (rc = ant_st_run(s, "UPDATE server_slot SET checker = NULL, until = 0,"
			     " next_at = max(next_at, ?2) WHERE checker = ?1 AND ?3 = ?3", bind_rel, &r, err)) < 0 ||
	    (rc = ant_store_commit(s, err)) < 0) {
		ant_store_rollback(s);
		return rc;
	}
	return 0;
}

int ant_store_leases_others(ant_store *s, const char *checker, int64_t now_ms, int64_t *until,
			    lb_error *err)
{
	atom_db_st *st;
	int rc;

	*until = 0;
	if ((rc = ant_st_prep(s, &st, "SELECT min(until) FROM server_slot WHERE until > ?2"
			      " AND checker <> ?1", err)) < 0)
		return rc;
	bind_rel(st, &(struct rel){ checker, now_ms, "" });
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		*until = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "reading leases");
}

/* ---- renewals (a claim worked on longer than its lease) ----------------------- */

struct ant_store_renewer {
	ant_store *s;            /* its own connection */
	char *checker;
	int64_t lease_ms;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	unsigned renewed;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct renew { const char *checker; int64_t until; };

static void bind_renew(atom_db_st *st, const void *arg)
{
	const struct renew *r = arg;

	ant_st_bind_text(st, 1, r->checker);
	atom_db_bind_int64(st, 2, r->until);
}

/* Autocommitted statements, each row skipped when another transaction
 * holds it: the run's own (a claim, a save, a release) sets it itself. */
static void renew_once(ant_store_renewer *r)
{
	struct renew a = { r->checker, now_ms() + r->lease_ms };

	if (ant_st_run(r->s, "UPDATE server_slot SET until = ?2 WHERE server IN (SELECT server FROM"
		       " server_slot WHERE checker = ?1 AND until > 0 FOR UPDATE SKIP LOCKED)",
		       bind_renew, &a, NULL) >= 0 &&
	    ant_st_run(r->s, "UPDATE pages SET lease_until = ?2 WHERE id IN (SELECT p.id FROM pages p"
		       " WHERE p.server IN (SELECT server FROM server_slot WHERE checker = ?1)"
		       " AND p.lease_by = ?1 AND p.lease_until > 0 FOR UPDATE SKIP LOCKED)",
		       bind_renew, &a, NULL) >= 0)
		r->renewed++;
}

static void *renew_main(void *arg)
{
	ant_store_renewer *r = arg;
	struct timespec at;
	int64_t t;

	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		t = now_ms() + (r->lease_ms / 3 > 0 ? r->lease_ms / 3 : 1);
		at.tv_sec = (time_t)(t / 1000);
		at.tv_nsec = (long)(t % 1000) * 1000000L;
		while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &at) == 0)
			;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->mu);
		renew_once(r);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void renewer_free(ant_store_renewer *r)
{
	ant_store_close(r->s);
	free(r->checker);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}

int ant_store_renew_start(ant_store *s, const char *checker, int64_t lease_ms, ant_store_renewer **out,
			  lb_error *err)
{
	ant_store_renewer *r;
	int rc;

	*out = NULL;
	if (!ant_store_shared(s))
		return 0;
	if (!(r = calloc(1, sizeof *r)))
		return lb_err_code(err, LB_ENOMEM);
	r->lease_ms = lease_ms;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (!(r->checker = strdup(checker)) || !(r->s = calloc(1, sizeof *r->s)) ||
	    !(r->s->path = strdup(s->path))) {
		renewer_free(r);
		return lb_err_code(err, LB_ENOMEM);
	}
	/* the connection only: the first opened the database (schema, migrations) */
	r->s->lock_fd = -1;
	if ((rc = ant_st_pg_open(s->path, &r->s->db, err)) < 0) {
		renewer_free(r);
		return rc;
	}
	if (pthread_create(&r->th, NULL, renew_main, r) != 0) {
		renewer_free(r);
		return lb_err(err, LB_ENOMEM, "cannot start the lease's renewals: no thread");
	}
	*out = r;
	return 0;
}

unsigned ant_store_renew_stop(ant_store_renewer *r)
{
	unsigned n;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	n = r->renewed;
	renewer_free(r);
	return n;
}

struct held { int64_t id; const char *checker; };

static void bind_held(atom_db_st *st, const void *arg)
{
	const struct held *h = arg;

	atom_db_bind_int64(st, 1, h->id);
	ant_st_bind_text(st, 2, h->checker);
}

int ant_store_page_leased(ant_store *s, int64_t id, const char *checker, lb_error *err)
{
	struct held h = { id, checker };
	atom_db_st *st;
	int rc;

	if (!ant_store_shared(s))
		return 1;
	if ((rc = ant_st_prep(s, &st, "SELECT 1 FROM pages WHERE id = ?1 AND lease_by = ?2 FOR UPDATE", err)) < 0)
		return rc;
	bind_held(st, &h);
	rc = atom_db_step(st);
	rc = rc == ATOM_DB_ROW ? 1 : rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "reading a page's lease");
	atom_db_finalize(st);
	return rc;
}
