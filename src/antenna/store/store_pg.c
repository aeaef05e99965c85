/*
 * store_pg.c: the store on PostgreSQL (libpq), a backend of atom_db.h.
 * The antenna's database is a PostgreSQL one when its name is a
 * postgresql:// or postgres:// URI (ant_st_is_pg_name()); everything else
 * is SQLite's.  The SQL is SQLite's dialect, rewritten once per statement
 * by store_pgsql.c; this file runs it.
 *
 * A statement's first run goes as PQexecParams (one round trip, nothing
 * left on the server); run again (a cached statement, reset and bound
 * anew) it is prepared on the server once and run with PQexecPrepared.
 * Its parameters' types are those of the first bindings (integers int8,
 * blobs bytea, text and NULL left to the server to infer); a later run
 * whose kinds differ prepares it again.  Results come as text and are
 * read by row; blobs (bytea) are decoded when asked for.
 */
#include "store_int.h"
#include "lb_buf.h"
#include "lb_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <unistd.h>

#include <libpq-fe.h>

/*
 * libpq is loaded when a PostgreSQL database is opened (dlopen), not
 * linked: a SQLite antenna never pays for loading it and the libraries
 * it brings (TLS, Kerberos, LDAP), about a million instructions a run.
 */
#define PQ_FUNCS \
	X(PQclear) \
	X(PQcmdStatus) \
	X(PQcmdTuples) \
	X(PQconnectdb) \
	X(PQenterPipelineMode) \
	X(PQexitPipelineMode) \
	X(PQerrorMessage) \
	X(PQexec) \
	X(PQexecParams) \
	X(PQexecPrepared) \
	X(PQfinish) \
	X(PQfreemem) \
	X(PQftype) \
	X(PQgetisnull) \
	X(PQgetResult) \
	X(PQgetlength) \
	X(PQgetvalue) \
	X(PQnfields) \
	X(PQntuples) \
	X(PQpipelineSync) \
	X(PQprepare) \
	X(PQresultAlloc) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendQueryParams) \
	X(PQsendQueryPrepared) \
	X(PQsetNoticeProcessor) \
	X(PQstatus) \
	X(PQtransactionStatus) \
	X(PQunescapeBytea)

static struct {
#define X(f) __typeof__(f) *f;
	PQ_FUNCS
#undef X
} pq;

/* 0, or LB_EDB when libpq5 is missing. */
static int load_libpq(lb_error *err)
{
	static void *h;

	if (h)
		return 0;
	if (!(h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL)))
		return lb_err(err, LB_EDB, "a postgresql:// database needs libpq (apt-get install "
			      "libpq5): %s", dlerror());
#define X(f) if (!(pq.f = (__typeof__(f) *)dlsym(h, #f))) \
		return lb_err(err, LB_EDB, "libpq has no %s: too old a libpq5", #f);
	PQ_FUNCS
#undef X
	return 0;
}

/* Type OIDs (server/catalog/pg_type_d.h, stable since 7.x). */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_TEXT 25
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700

struct pgdb {
	PGconn *c;
	char *name;	 /* the URI without its password, for messages */
	char err[512];
	int code;	 /* ATOM_DB_* of the last error */
	int changes;
	unsigned next;	 /* statement names: a1, a2, ... */
	int piped;	 /* in libpq's pipeline mode: writes sent, answers owed */
	int pending;	 /* how many answers */
};

struct pgparam {
	int kind;	/* ATOM_DB_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL (0 unbound) */
	char num[32];
	const char *v;
	char *own;	/* a copy (ATOM_DB_TRANSIENT) */
	int len;
};

struct pgst {
	atom_db_st base;
	char *sql;
	int np, runs;
	uint64_t used;	/* ant_st_pg_sql()'s: the parameters the SQL names */
	int write;	/* an UPDATE, DELETE or upsert, no RETURNING: may be pipelined */
	struct pgparam *p;
	char name[16];	/* "" until prepared on the server */
	Oid *types;	/* of the prepared statement */
	/* one run's arguments to libpq, np each */
	const char **vals;
	int *lens, *fmts;
	Oid *argtypes;
	PGresult *res;
	int row, nrows, done;
	unsigned char **blob;	/* the current row's decoded bytea, by column */
	size_t *bloblen;
	/* atom_db_stream(): run as a cursor, fetched PG_BATCH rows at a time */
	int stream, more;	/* more: the cursor has rows past this batch */
	char cur[16];	/* the open cursor's name, "" when none */
	char *decl;	/* "DECLARE cur ... FOR sql", made at each run */
};

static struct pgdb *DB(atom_db *db) { return atom_db_impl(db); }

/* ---- errors --------------------------------------------------------------- */

/* SQLSTATE to an ATOM_DB_* code: what the store tells an operator. */
static int code_of(const char *state)
{
	if (!state)
		return ATOM_DB_ERROR;
	if (!strcmp(state, "23505"))
		return ATOM_DB_CONSTRAINT_UNIQUE;
	if (!strncmp(state, "23", 2))
		return ATOM_DB_CONSTRAINT;
	if (!strcmp(state, "40P01") || !strcmp(state, "55P03") || !strcmp(state, "40001"))
		return ATOM_DB_BUSY;
	if (!strcmp(state, "53100"))
		return ATOM_DB_FULL;
	if (!strcmp(state, "53200"))
		return ATOM_DB_NOMEM;
	if (!strcmp(state, "25006") || !strcmp(state, "42501"))
		return ATOM_DB_READONLY;
	if (!strncmp(state, "08", 2) || !strncmp(state, "58", 2))
		return ATOM_DB_IOERR;
	if (!strcmp(state, "XX001") || !strcmp(state, "XX002"))
		return ATOM_DB_CORRUPT;
	return ATOM_DB_ERROR;
}

/* Keeps r's error (or the connection's) as the last; returns its code. */
static int pg_fail(struct pgdb *d, PGresult *r)
{
	const char *m = r ? pq.PQresultErrorMessage(r) : pq.PQerrorMessage(d->c);
	size_t n;

	d->code = r ? code_of(pq.PQresultErrorField(r, PG_DIAG_SQLSTATE)) : ATOM_DB_IOERR;
	snprintf(d->err, sizeof d->err, "%s", m && *m ? m : "PostgreSQL error");
	n = strlen(d->err);
	while (n && (d->err[n - 1] == '\n' || d->err[n - 1] == ' '))
		d->err[--n] = '\0';
	return d->code;
}

/* r's outcome: ATOM_DB_OK (r kept in *keep when given) or the error. */
static int pg_done(struct pgdb *d, PGresult *r, PGresult **keep)
{
	ExecStatusType s = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
	int rc;

	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_EMPTY_QUERY) {
		const char *n = pq.PQcmdTuples(r), *tag = pq.PQcmdStatus(r);

		/* the rows an INSERT, UPDATE or DELETE changed, as sqlite3_changes():
		 * a query leaves the count of the last change as it was */
		if (tag && (!strncmp(tag, "INSERT", 6) || !strncmp(tag, "UPDATE", 6) ||
			    !strncmp(tag, "DELETE", 6)))
			d->changes = n && *n ? atoi(n) : 0;
		d->code = ATOM_DB_OK;
		if (keep) {
			*keep = r;
			return ATOM_DB_OK;
		}
		pq.PQclear(r);
		return ATOM_DB_OK;
	}
	rc = pg_fail(d, r);
	pq.PQclear(r);
	return rc;
}

/* ---- pipelined writes ---------------------------------------------------------
 * Inside a transaction, a cached UPDATE, DELETE or upsert (INSERT ... ON
 * CONFLICT) without RETURNING is sent and not waited for (libpq's
 * pipeline mode): a checker saves each page so, and a round trip per
 * statement was most of its CPU over SQLite's (the bound: within 1.3x).
 * The answers are read when something needs one: the next statement
 * that returns rows or is not of that kind (sent in the same pipeline:
 * one round trip for all), an exec (COMMIT), atom_db_changes() or
 * last_id.  A pipelined write's error is that next call's error, with
 * the write's message; what follows it in the pipeline is not run (the
 * transaction is aborted, as it would be). */

/* SQL that may be pipelined: an UPDATE, a DELETE or an upsert, no rows
 * back (the rewritten SQL; its caller needs nothing but success). */
static int may_pipe(const char *q)
{
	while (*q == ' ' || *q == '\n' || *q == '\t')
		q++;
	if (strcasestr(q, "RETURNING"))
		return 0;
	return !strncasecmp(q, "UPDATE ", 7) || !strncasecmp(q, "DELETE ", 7) ||
	       (!strncasecmp(q, "INSERT ", 7) && strcasestr(q, "ON CONFLICT"));
}

/* Reads the answers owed and leaves pipeline mode: ATOM_DB_OK or the
 * first error.  keep: the last statement sent is one whose result is
 * wanted, kept there (NULL when an earlier write failed). */
static int pipe_drain(struct pgdb *d, PGresult **keep)
{
	int want = d->pending + (keep != NULL), rc = ATOM_DB_OK;
	PGresult *r;

	if (keep)
		*keep = NULL;
	if (!d->piped)
		return ATOM_DB_OK;
	if (!pq.PQpipelineSync(d->c))
		rc = pg_fail(d, NULL);
	for (int q = 0; q < want && rc != ATOM_DB_IOERR; q++) {
		int got = 0;

		while ((r = pq.PQgetResult(d->c))) {
			int e;

			got = 1;
			if (pq.PQresultStatus(r) == PGRES_PIPELINE_ABORTED) {
				pq.PQclear(r);   /* not run: an earlier one failed */
				continue;
			}
			e = pg_done(d, r, keep && q == want - 1 && !*keep ? keep : NULL);
			if (e != ATOM_DB_OK && rc == ATOM_DB_OK)
				rc = e;
		}
		if (!got)
			break;   /* the connection is gone */
	}
	while ((r = pq.PQgetResult(d->c))) {   /* the sync's own answer */
		int sync = pq.PQresultStatus(r) == PGRES_PIPELINE_SYNC;

		pq.PQclear(r);
		if (sync)
			break;
	}
	pq.PQexitPipelineMode(d->c);
	d->piped = d->pending = 0;
	if (rc != ATOM_DB_OK && keep && *keep) {
		pq.PQclear(*keep);
		*keep = NULL;
	}
	if (rc != ATOM_DB_OK)
		d->code = rc;   /* the write's error is the caller's */
	return rc;
}

/* ---- connection ------------------------------------------------------------- */

static int pg_close(atom_db *db)
{
	struct pgdb *d = DB(db);

	pipe_drain(d, NULL);
	pq.PQfinish(d->c);
	free(d->name);
	free(d);
	return ATOM_DB_OK;
}

static int pg_exec(atom_db *db, const char *sql)
{
	struct pgdb *d = DB(db);
	char *q = ant_st_pg_sql(sql, NULL, NULL);

	if (!q)
		return d->code = ATOM_DB_NOMEM;
	/* a write that failed: its error, and no COMMIT (a ROLLBACK runs) */
	int rc = pipe_drain(d, NULL);

	if (rc != ATOM_DB_OK && strncasecmp(q, "ROLLBACK", 8) != 0) {
		free(q);
		return rc;
	}
	rc = pg_done(d, pq.PQexec(d->c, q), NULL);
	free(q);
	return rc;
}

static int pg_function(atom_db *db, const char *name, int64_t (*fn)(const char *))
{
	(void)fn;
	/* the store's one function is defined in SQL at connection (ant_st_pg_open) */
	if (strcmp(name, "ant_key_hash") != 0) {
		snprintf(DB(db)->err, sizeof DB(db)->err, "no function %s on PostgreSQL", name);
		return DB(db)->code = ATOM_DB_ERROR;
	}
	return ATOM_DB_OK;
}

static int pg_changes(atom_db *db)
{
	pipe_drain(DB(db), NULL);
	return DB(db)->changes;
}

static int64_t pg_last_id(atom_db *db)
{
	PGresult *r;
	int64_t v = 0;

	pipe_drain(DB(db), NULL);
	r = pq.PQexec(DB(db)->c, "SELECT lastval()");
	if (pq.PQresultStatus(r) == PGRES_TUPLES_OK && pq.PQntuples(r) == 1)
		v = strtoll(pq.PQgetvalue(r, 0, 0), NULL, 10);
	pq.PQclear(r);
	return v;
}

static int pg_autocommit(atom_db *db)
{
	if (DB(db)->piped)
		return 0;   /* writes are pipelined inside a transaction only */
	return pq.PQtransactionStatus(DB(db)->c) == PQTRANS_IDLE;
}

static const char *pg_errmsg(atom_db *db) { return DB(db)->err; }
static int pg_errcode(atom_db *db) { return DB(db)->code; }
static const char *pg_filename(atom_db *db) { return DB(db)->name; }

/* ---- statements ---------------------------------------------------------------- */

/* A statement and its buffers (any of them NULL: a prepare that ran out
 * of memory half way). */
static void st_free(struct pgst *s)
{
	if (!s)
		return;
	free(s->sql);
	free(s->p);
	free(s->types);
	free(s->vals);
	free(s->lens);
	free(s->fmts);
	free(s->argtypes);
	free(s->decl);
	free(s);
}

static int pg_prepare(atom_db *db, const char *sql, atom_db_st **out)
{
	struct pgst *s = calloc(1, sizeof *s);

	if (!s || !(s->sql = ant_st_pg_sql(sql, &s->np, &s->used)) ||
	    (s->np && (!(s->p = calloc((size_t)s->np, sizeof *s->p)) ||
		       !(s->vals = calloc((size_t)s->np, sizeof *s->vals)) ||
		       !(s->lens = calloc((size_t)s->np, sizeof *s->lens)) ||
		       !(s->fmts = calloc((size_t)s->np, sizeof *s->fmts)) ||
		       !(s->argtypes = calloc((size_t)s->np, sizeof *s->argtypes))))) {
		st_free(s);
		return DB(db)->code = ATOM_DB_NOMEM;
	}
	s->write = may_pipe(s->sql);
	s->base.db = db;
	*out = &s->base;
	return ATOM_DB_OK;
}

static void clear_row(struct pgst *s)
{
	int n = s->res ? pq.PQnfields(s->res) : 0;

	/* the decoded bytes live in the result's memory (PQresultAlloc) */
	for (int i = 0; s->blob && i < n; i++)
		s->blob[i] = NULL;
}

static void cursor_close(struct pgst *s);

static void clear_result(struct pgst *s)
{
	cursor_close(s);
	clear_row(s);
	free(s->blob);
	free(s->bloblen);
	s->blob = NULL;
	s->bloblen = NULL;
	pq.PQclear(s->res);
	s->res = NULL;
	s->row = s->nrows = s->done = s->more = 0;
}

/* A text PostgreSQL would refuse (a UTF8 database takes no malformed
 * byte and no NUL; SQLite keeps them): bound with U+FFFD in their place,
 * what the store's readers make of them on SQLite anyway (export, publish). */
static int bind_repaired(struct pgparam *a, const char *p, size_t len)
{
	lb_buf b = LB_BUF_INIT;
	size_t n;

	if (lb_utf8_repair(&b, p, len, LB_UTF8_NUL, NULL) == (size_t)-1)
		return ATOM_DB_NOMEM;

	a->own = lb_buf_detach(&b, &n);
	a->len = (int)n;
	a->v = a->own;
	return a->own ? ATOM_DB_OK : ATOM_DB_NOMEM;
}

static int pg_bind(atom_db_st *st, int i, int kind, int64_t v, double f, const void *p, int n, int keep)
{
	struct pgst *s = (struct pgst *)st;
	struct pgparam *a;

	if (i < 1 || i > s->np)
		return ATOM_DB_ERROR;   /* SQLite's SQLITE_RANGE is 25; the store never asks */
	a = &s->p[i - 1];
	free(a->own);
	a->own = NULL;
	a->kind = kind;
	a->v = NULL;
	if (kind == ATOM_DB_INTEGER) {
		snprintf(a->num, sizeof a->num, "%lld", (long long)v);
		a->v = a->num;
	} else if (kind == ATOM_DB_FLOAT) {
		snprintf(a->num, sizeof a->num, "%.17g", f);
		a->v = a->num;
	} else if (kind == ATOM_DB_TEXT || kind == ATOM_DB_BLOB) {
		size_t len = n < 0 ? strlen(p) : (size_t)n;

		if (kind == ATOM_DB_TEXT && lb_utf8_repair_len(p, len, LB_UTF8_NUL) < len)
			return bind_repaired(a, p, len);

		/* libpq reads text to its NUL: a text of n bytes is copied */
		if (keep == ATOM_DB_TRANSIENT || (kind == ATOM_DB_TEXT && n >= 0)) {
			if (!(a->own = malloc(len + 1)))
				return ATOM_DB_NOMEM;
			memcpy(a->own, p, len);
			a->own[len] = '\0';
			p = a->own;
		}
		a->v = p;
		a->len = (int)len;
	}
	return ATOM_DB_OK;
}

static int pg_param_count(atom_db_st *st) { return ((struct pgst *)st)->np; }

/* Parameter i's type for the server: integers int8 (SQLite's are 64-bit),
 * blobs bytea, text and NULL left for the server to infer from where
 * they stand; one the SQL never names (a binder fills a fixed set) text,
 * as the server cannot infer the type of what is nowhere. */
static Oid type_of(const struct pgst *s, int i)
{
	int kind = s->p[i].kind;

	if (i < 64 && !(s->used & ((uint64_t)1 << i)))
		return OID_TEXT;
	return kind == ATOM_DB_INTEGER ? OID_INT8 : kind == ATOM_DB_FLOAT ? OID_FLOAT8 :
	       kind == ATOM_DB_BLOB ? OID_BYTEA : 0;
}

/* The prepared statement's types no longer fit this run's bindings. */
static int types_differ(const struct pgst *s)
{
	for (int i = 0; i < s->np; i++)
		if (s->p[i].kind != ATOM_DB_NULL && s->p[i].kind && type_of(s, i) != s->types[i])
			return 1;
	return 0;
}

/* Prepares s on the server under a name of its own, typed by this run. */
static int server_prepare(struct pgdb *d, struct pgst *s)
{
	PGresult *r;
	int rc;

	if ((rc = pipe_drain(d, NULL)) != ATOM_DB_OK)
		return rc;
	if (*s->name) {
		char q[40];

		snprintf(q, sizeof q, "DEALLOCATE %s", s->name);
		pq.PQclear(pq.PQexec(d->c, q));
		*s->name = '\0';
	}
	if (s->np && !s->types && !(s->types = calloc((size_t)s->np, sizeof *s->types)))
		return d->code = ATOM_DB_NOMEM;
	for (int i = 0; i < s->np; i++)
		s->types[i] = type_of(s, i);
	snprintf(s->name, sizeof s->name, "a%u", ++d->next);
	r = pq.PQprepare(d->c, s->name, s->sql, s->np, s->types);
	if (pq.PQresultStatus(r) != PGRES_COMMAND_OK) {
		*s->name = '\0';
		return pg_done(d, r, NULL);
	}
	pq.PQclear(r);
	return ATOM_DB_OK;
}

/* ---- streaming: a cursor fetched in batches (atom_db_stream()) ------------- */

/* Rows per FETCH: a batch of pages is about a megabyte of text, and a
 * walk of 100,000 pages is a hundred round trips. */
#define PG_BATCH 1000

static int pg_stream(atom_db_st *st)
{
	((struct pgst *)st)->stream = 1;
	return ATOM_DB_OK;
}

static void cursor_close(struct pgst *s)
{
	char q[40];

	if (!*s->cur)
		return;
	pipe_drain(DB(s->base.db), NULL);
	snprintf(q, sizeof q, "CLOSE %s", s->cur);
	pq.PQclear(pq.PQexec(DB(s->base.db)->c, q));
	*s->cur = '\0';
	s->more = 0;
}

/* The cursor's next batch as s's result; a short batch is its last (the
 * cursor closed then, not left on the server). */
static int fetch_batch(struct pgst *s)
{
	struct pgdb *d = DB(s->base.db);
	char q[48];
	int rc;

	clear_row(s);
	pq.PQclear(s->res);
	s->res = NULL;
	if ((rc = pipe_drain(d, NULL)) != ATOM_DB_OK)
		return rc;
	snprintf(q, sizeof q, "FETCH %d FROM %s", PG_BATCH, s->cur);
	if ((rc = pg_done(d, pq.PQexec(d->c, q), &s->res)) != ATOM_DB_OK)
		return rc;
	s->nrows = pq.PQntuples(s->res);
	s->row = -1;
	s->more = s->nrows == PG_BATCH;
	if (!s->more)
		cursor_close(s);
	if (!s->blob && (!(s->blob = calloc((size_t)pq.PQnfields(s->res) + 1, sizeof *s->blob)) ||
			 !(s->bloblen = calloc((size_t)pq.PQnfields(s->res) + 1, sizeof *s->bloblen))))
		return d->code = ATOM_DB_NOMEM;
	return ATOM_DB_OK;
}

/* s run as a cursor WITH HOLD: it outlives a transaction the caller
 * commits between rows (a walk's callback may write), and may be declared
 * outside one; its parameters as run() set them. */
static int stream_open(struct pgst *s)
{
	struct pgdb *d = DB(s->base.db);
	int rc;

	if ((rc = pipe_drain(d, NULL)) != ATOM_DB_OK)
		return rc;
	snprintf(s->cur, sizeof s->cur, "c%u", ++d->next);
	free(s->decl);
	if (!(s->decl = malloc(strlen(s->sql) + 64)))
		return d->code = ATOM_DB_NOMEM;
	sprintf(s->decl, "DECLARE %s NO SCROLL CURSOR WITH HOLD FOR %s", s->cur, s->sql);
	rc = pg_done(d, pq.PQexecParams(d->c, s->decl, s->np, s->argtypes, s->vals, s->lens,
				       s->fmts, 0), NULL);
	if (rc != ATOM_DB_OK) {
		*s->cur = '\0';
		return rc;
	}
	s->runs++;
	return fetch_batch(s);
}

/* s sent in the pipeline, its answer owed (s has no rows: a write). */
static int pipe_send(struct pgdb *d, struct pgst *s)
{
	if (!d->piped) {
		if (!pq.PQenterPipelineMode(d->c))
			return pg_fail(d, NULL);
		d->piped = 1;
	}
	if (!pq.PQsendQueryPrepared(d->c, s->name, s->np, s->vals, s->lens, s->fmts, 0))
		return pg_fail(d, NULL);
	d->pending++;
	s->runs++;
	s->nrows = 0;
	s->row = -1;
	return ATOM_DB_OK;
}

static int run(struct pgst *s)
{
	struct pgdb *d = DB(s->base.db);
	const char **vals = s->vals;
	int *lens = s->lens, *fmts = s->fmts;
	Oid *types = s->argtypes;
	PGresult *r;
	int rc;

	for (int i = 0; i < s->np; i++) {
		vals[i] = s->p[i].kind == ATOM_DB_NULL || type_of(s, i) == OID_TEXT ? NULL : s->p[i].v;
		lens[i] = s->p[i].len;
		fmts[i] = s->p[i].kind == ATOM_DB_BLOB;
		types[i] = type_of(s, i);
	}
	if (s->stream)
		return stream_open(s);
	if (s->runs && (!*s->name || types_differ(s)) && (rc = server_prepare(d, s)) != ATOM_DB_OK)
		return rc;
	if (s->runs && s->write &&
	    (d->piped || pq.PQtransactionStatus(d->c) == PQTRANS_INTRANS))
		return pipe_send(d, s);
	if (d->piped) {   /* this one's answer wanted: after those owed */
		if (!(s->runs++ ? pq.PQsendQueryPrepared(d->c, s->name, s->np, vals, lens, fmts, 0)
				: pq.PQsendQueryParams(d->c, s->sql, s->np, types, vals, lens, fmts, 0)))
			rc = pg_fail(d, NULL);
		if ((rc = pipe_drain(d, &s->res)) != ATOM_DB_OK)
			return rc;
	} else {
		if (s->runs++ == 0)
			r = pq.PQexecParams(d->c, s->sql, s->np, types, vals, lens, fmts, 0);
		else
			r = pq.PQexecPrepared(d->c, s->name, s->np, vals, lens, fmts, 0);
		if ((rc = pg_done(d, r, &s->res)) != ATOM_DB_OK)
			return rc;
	}
	s->nrows = pq.PQresultStatus(s->res) == PGRES_TUPLES_OK ? pq.PQntuples(s->res) : 0;
	s->row = -1;
	if (s->nrows && !(s->blob = calloc((size_t)pq.PQnfields(s->res), sizeof *s->blob) ) )
		return d->code = ATOM_DB_NOMEM;
	if (s->nrows && !(s->bloblen = calloc((size_t)pq.PQnfields(s->res), sizeof *s->bloblen)))
		return d->code = ATOM_DB_NOMEM;
	return ATOM_DB_OK;
}

static int pg_step(atom_db_st *st)
{
	struct pgst *s = (struct pgst *)st;
	int rc;

	if (s->done)
		return ATOM_DB_DONE;
	if (!s->res && (rc = run(s)) != ATOM_DB_OK) {
		s->done = 1;
		return rc;
	}
	clear_row(s);
	if (++s->row < s->nrows)
		return ATOM_DB_ROW;
	if (s->more) {   /* a cursor's next batch */
		if ((rc = fetch_batch(s)) != ATOM_DB_OK) {
			s->done = 1;
			return rc;
		}
		if (++s->row < s->nrows)
			return ATOM_DB_ROW;
	}
	s->done = 1;
	return ATOM_DB_DONE;
}

static int pg_reset(atom_db_st *st)
{
	clear_result((struct pgst *)st);
	return ATOM_DB_OK;
}

static int pg_clear(atom_db_st *st)
{
	struct pgst *s = (struct pgst *)st;

	for (int i = 0; i < s->np; i++) {
		free(s->p[i].own);
		s->p[i].own = NULL;
		s->p[i].v = NULL;
		s->p[i].kind = ATOM_DB_NULL;
	}
	return ATOM_DB_OK;
}

static int pg_finalize(atom_db_st *st)
{
	struct pgst *s = (struct pgst *)st;
	struct pgdb *d = DB(st->db);

	clear_result(s);
	pg_clear(st);
	if (*s->name && pipe_drain(d, NULL) == ATOM_DB_OK) {
		char q[40];

		snprintf(q, sizeof q, "DEALLOCATE %s", s->name);
		pq.PQclear(pq.PQexec(d->c, q));
	}
	st_free(s);
	return ATOM_DB_OK;
}

/* ---- columns -------------------------------------------------------------------- */

static int has(const struct pgst *s, int i)
{
	return s->res && s->row >= 0 && s->row < s->nrows && i >= 0 && i < pq.PQnfields(s->res);
}

static int pg_col_type(atom_db_st *st, int i)
{
	struct pgst *s = (struct pgst *)st;

	if (!has(s, i) || pq.PQgetisnull(s->res, s->row, i))
		return ATOM_DB_NULL;
	switch (pq.PQftype(s->res, i)) {
	case OID_INT8: case OID_INT4: case OID_INT2: case OID_BOOL:
		return ATOM_DB_INTEGER;
	case OID_FLOAT4: case OID_FLOAT8:
		return ATOM_DB_FLOAT;
	case OID_NUMERIC:
		return strchr(pq.PQgetvalue(s->res, s->row, i), '.') ? ATOM_DB_FLOAT : ATOM_DB_INTEGER;
	case OID_BYTEA:
		return ATOM_DB_BLOB;
	default:
		return ATOM_DB_TEXT;
	}
}

static int64_t pg_col_int64(atom_db_st *st, int i)
{
	struct pgst *s = (struct pgst *)st;
	const char *v;

	if (!has(s, i) || pq.PQgetisnull(s->res, s->row, i))
		return 0;
	v = pq.PQgetvalue(s->res, s->row, i);
	if (*v == 't' || *v == 'f')   /* a boolean: SQLite's comparisons are 0 and 1 */
		return *v == 't';
	return strtoll(v, NULL, 10);
}

static double pg_col_double(atom_db_st *st, int i)
{
	struct pgst *s = (struct pgst *)st;

	return has(s, i) && !pq.PQgetisnull(s->res, s->row, i) ? strtod(pq.PQgetvalue(s->res, s->row, i), NULL) : 0;
}

/* A bytea column decoded (once per row), NUL-terminated as SQLite's. */
static const unsigned char *bytes_of(struct pgst *s, int i, size_t *len)
{
	if (!s->blob[i]) {
		size_t n;
		unsigned char *b = pq.PQunescapeBytea((const unsigned char *)pq.PQgetvalue(s->res, s->row, i), &n);
		unsigned char *z = b ? pq.PQresultAlloc(s->res, n + 1) : NULL;

		if (!z) {
			pq.PQfreemem(b);
			return NULL;
		}
		memcpy(z, b, n);
		z[n] = '\0';
		pq.PQfreemem(b);
		s->blob[i] = z;
		s->bloblen[i] = n;
	}
	*len = s->bloblen[i];
	return s->blob[i];
}

static const unsigned char *pg_col_text(atom_db_st *st, int i)
{
	struct pgst *s = (struct pgst *)st;
	size_t n;

	if (!has(s, i) || pq.PQgetisnull(s->res, s->row, i))
		return NULL;
	if (pq.PQftype(s->res, i) == OID_BYTEA)
		return bytes_of(s, i, &n);
	return (const unsigned char *)pq.PQgetvalue(s->res, s->row, i);
}

static const void *pg_col_blob(atom_db_st *st, int i)
{
	return pg_col_text(st, i);
}

static int pg_col_bytes(atom_db_st *st, int i)
{
	struct pgst *s = (struct pgst *)st;
	size_t n = 0;

	if (!has(s, i) || pq.PQgetisnull(s->res, s->row, i))
		return 0;
	if (pq.PQftype(s->res, i) == OID_BYTEA)
		return bytes_of(s, i, &n) ? (int)n : 0;
	return pq.PQgetlength(s->res, s->row, i);
}

static const struct atom_db_ops pg_ops = {
	.name = "postgresql",
	.close = pg_close, .exec = pg_exec, .prepare = pg_prepare, .function = pg_function,
	.bind = pg_bind, .param_count = pg_param_count, .step = pg_step, .reset = pg_reset,
	.clear = pg_clear, .finalize = pg_finalize, .col_type = pg_col_type,
	.col_int64 = pg_col_int64, .col_double = pg_col_double, .col_text = pg_col_text,
	.col_blob = pg_col_blob, .col_bytes = pg_col_bytes, .changes = pg_changes,
	.last_id = pg_last_id, .autocommit = pg_autocommit, .errmsg = pg_errmsg,
	.errcode = pg_errcode, .filename = pg_filename, .stream = pg_stream,
};

/* ---- opening ------------------------------------------------------------------------ */

int ant_st_is_pg_name(const char *name)
{
	return !strncmp(name, "postgresql://", 13) || !strncmp(name, "postgres://", 11);
}

/* What the rewritten SQL relies on (store_pgsql.c), made once per
 * database (and again when PG_COMPAT grows) under a lock: two checkers
 * starting at once.  sqlite_master is a view of the schema's own tables
 * and indexes (a view is none of them). */
#define PG_COMPAT "1"
static const char compat_sql[] =
	"SELECT pg_advisory_xact_lock(4242000001);"
	"CREATE TABLE IF NOT EXISTS atom_db_meta(k TEXT PRIMARY KEY, v BIGINT NOT NULL);"
	"CREATE OR REPLACE FUNCTION typeof(anyelement) RETURNS text LANGUAGE sql IMMUTABLE AS $$"
	" SELECT CASE WHEN $1 IS NULL THEN 'null'"
	" WHEN pg_typeof($1) IN ('bigint'::regtype, 'integer'::regtype, 'smallint'::regtype,"
	"  'boolean'::regtype) THEN 'integer'"
	" WHEN pg_typeof($1) IN ('real'::regtype, 'double precision'::regtype, 'numeric'::regtype)"
	"  THEN 'real' WHEN pg_typeof($1) = 'bytea'::regtype THEN 'blob' ELSE 'text' END $$;"
	"CREATE OR REPLACE FUNCTION pragma_table_info(t text) RETURNS TABLE(name text)"
	" LANGUAGE sql STABLE AS $$ SELECT column_name::text FROM information_schema.columns"
	" WHERE table_schema = current_schema() AND table_name = t ORDER BY ordinal_position $$;"
	/* ant_st_key_hash(): FNV-1a over the UTF-8 bytes, as a signed 64-bit integer */
	"CREATE OR REPLACE FUNCTION ant_key_hash(t text) RETURNS bigint LANGUAGE plpgsql"
	" IMMUTABLE STRICT AS $$ DECLARE h numeric := 14695981039346656037;"
	" b bytea := convert_to(t, 'UTF8'); lo int; BEGIN"
	" FOR i IN 0 .. length(b) - 1 LOOP lo := (h % 256)::int;"
	"  h := h - lo + (lo # get_byte(b, i));"
	"  h := (h * 1099511628211) % 18446744073709551616; END LOOP;"
	" IF h >= 9223372036854775808 THEN h := h - 18446744073709551616; END IF;"
	" RETURN h::bigint; END $$;"
	"CREATE OR REPLACE VIEW sqlite_master AS"
	" SELECT 'table'::text AS type, c.relname::text AS name, c.relname::text AS tbl_name"
	" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
	" WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> 'atom_db_meta'"
	" UNION ALL SELECT 'index', i.relname::text, t.relname::text FROM pg_index x"
	" JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
	" JOIN pg_namespace n ON n.oid = t.relnamespace"
	" WHERE n.nspname = current_schema() AND t.relname <> 'atom_db_meta';"
	"INSERT INTO atom_db_meta(k, v) VALUES('compat', " PG_COMPAT ")"
	" ON CONFLICT(k) DO UPDATE SET v = excluded.v;"
	"COMMIT;";

/* 1 when the database has compat_sql's objects, this version of them
 * (a new database answers an error, once: no atom_db_meta yet). */
static int have_compat(struct pgdb *d)
{
	PGresult *r = pq.PQexec(d->c, "SELECT v FROM atom_db_meta WHERE k = 'compat'");
	int have = pq.PQresultStatus(r) == PGRES_TUPLES_OK && pq.PQntuples(r) == 1 &&
		   atoi(pq.PQgetvalue(r, 0, 0)) == atoi(PG_COMPAT);

	pq.PQclear(r);
	return have;
}

static void quiet(void *arg, const char *message) { (void)arg; (void)message; }

/* The URI for messages: without a password (user:secret@ -> user@). */
static char *shown_name(const char *uri)
{
	char *s = strdup(uri), *at, *colon, *start;

	if (!s || !(start = strstr(s, "://")) || !(at = strchr(start + 3, '@')))
		return s;
	colon = memchr(start + 3, ':', (size_t)(at - start - 3));
	if (colon)
		memmove(colon, at, strlen(at) + 1);
	return s;
}

/* compat_sql run once, when the database lacks it: 0 or LB_EDB. */
static int make_compat(struct pgdb *d, lb_error *err)
{
	PGresult *r;
	int rc = 0;

	if (have_compat(d))
		return 0;
	pq.PQclear(pq.PQexec(d->c, "BEGIN"));
	r = pq.PQexec(d->c, compat_sql);
	if (pq.PQresultStatus(r) != PGRES_COMMAND_OK) {
		rc = lb_err(err, LB_EDB, "cannot prepare database '%s': %s", d->name,
			    pq.PQresultErrorMessage(r));
		pq.PQclear(pq.PQexec(d->c, "ROLLBACK"));
	}
	pq.PQclear(r);
	return rc;
}

/* The session's application_name, "antenna on HOST pid N": what a
 * second publisher or checker names when this one holds a lock
 * (ant_store_lock_holder()).  The host name's plain characters only (it
 * goes into the SQL); a failure costs the name only. */
static void name_session(struct pgdb *d)
{
	char host[64] = "", sql[160];
	size_t k = 0;

	if (gethostname(host, sizeof host) < 0)
		host[0] = '\0';
	host[sizeof host - 1] = '\0';
	for (size_t i = 0; host[i]; i++)
		if ((host[i] >= 'a' && host[i] <= 'z') || (host[i] >= 'A' && host[i] <= 'Z') ||
		    (host[i] >= '0' && host[i] <= '9') || host[i] == '.' || host[i] == '-' || host[i] == '_')
			host[k++] = host[i];
	host[k] = '\0';
	snprintf(sql, sizeof sql, "SET application_name = 'antenna on %s pid %ld'", k ? host : "?", (long)getpid());
	pq.PQclear(pq.PQexec(d->c, sql));
}

int ant_st_pg_open(const char *uri, atom_db **out, lb_error *err)
{
	struct pgdb *d = calloc(1, sizeof *d);
	int rc;

	*out = NULL;
	if ((rc = load_libpq(err)) < 0) {
		free(d);
		return rc;
	}
	if (!d || !(d->name = shown_name(uri))) {
		free(d);
		return lb_err_code(err, LB_ENOMEM);
	}
	d->c = pq.PQconnectdb(uri);
	if (!d->c || pq.PQstatus(d->c) != CONNECTION_OK) {
		rc = lb_err(err, LB_EDB, "cannot connect to database '%s': %s", d->name,
			    d->c ? pq.PQerrorMessage(d->c) : "out of memory");
		pq.PQfinish(d->c);
		free(d->name);
		free(d);
		return rc;
	}
	pq.PQsetNoticeProcessor(d->c, quiet, NULL);
	name_session(d);
	if ((rc = make_compat(d, err)) < 0) {
		pq.PQfinish(d->c);
		free(d->name);
		free(d);
		return rc;
	}
	if (atom_db_wrap(&pg_ops, d, ATOM_DB_POSTGRES, out) != ATOM_DB_OK) {
		pq.PQfinish(d->c);
		free(d->name);
		free(d);
		return lb_err_code(err, LB_ENOMEM);
	}
	return 0;
}
