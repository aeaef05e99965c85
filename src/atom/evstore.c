/*
 * evstore.c: update events in SQLite (atom_evstore.h).
 *
 * Cost model: adding k events to a state of n events costs O(k log n):
 * inserts go through the UNIQUE(url_key, last_modified) index; sealing
 * reads only the events after the last archive (seq is the rowid); the
 * archives still to be written are found through a partial index.  No
 * query in a run scans the whole events table.
 */
#include "atom_evstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atom_db.h"

#include "lb_buf.h"
#include "lb_url.h"

struct atom_evstore {
	atom_db *db;
	int owned;
	char *name;          /* for messages */
	atom_db_st *ins;
	atom_db_st *put;     /* atom_evstore_put(), prepared at its first use */
	atom_db_st *max_lm;   /* atom_evstore_max_lm(), prepared once */
	atom_db_st *each;  /* atom_evstore_each_event(): one prepare per store */
	int each_busy;       /* a walk is under way (a callback may start another) */
	int64_t keep;        /* retention: events kept, ATOM_EVSTORE_KEEP_ALL */
	char lang[8];        /* sealed with new archives (atom_evstore_set_lang()) */
	lb_buf key;
};

/* Migrations: entry v-1 takes a state from schema v-1 to v.  Append only. */
static const char *const migrations[] = {
	/* 1 */
	"CREATE TABLE IF NOT EXISTS ev_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS ev_events("
	" seq INTEGER PRIMARY KEY,"
	" url TEXT NOT NULL, url_key TEXT NOT NULL,"
	" last_modified INTEGER NOT NULL, last_detected INTEGER NOT NULL,"
	" tz_offset INTEGER NOT NULL DEFAULT 0, content_length INTEGER NOT NULL DEFAULT 0,"
	" title TEXT NOT NULL DEFAULT '', author TEXT NOT NULL DEFAULT '',"
	" source_url TEXT NOT NULL DEFAULT '',"
	" UNIQUE(url_key, last_modified));"
	"CREATE TABLE IF NOT EXISTS ev_archives("
	" n INTEGER PRIMARY KEY, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,"
	" title TEXT NOT NULL, author TEXT NOT NULL,"
	" next_linked INTEGER NOT NULL DEFAULT 0, written INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS ev_archives_todo ON ev_archives(n)"
	" WHERE written = 0 OR next_linked = 0;",
	/* 2: change excerpts */
	"ALTER TABLE ev_events ADD COLUMN excerpt TEXT NOT NULL DEFAULT '';",
	/* 3: the language of an archive's summaries, sealed with it (the antenna's
	 * page language); '' is English, that of every archive sealed before */
	"ALTER TABLE ev_archives ADD COLUMN lang TEXT NOT NULL DEFAULT '';",
};

static int fail(atom_evstore *st, lb_error *err, int rc, const char *what)
{
	const char *lib = st->db ? atom_db_errmsg(st->db) : atom_db_errstr(rc);

	switch (rc & 0xff) {
	case ATOM_DB_BUSY:
	case ATOM_DB_LOCKED:
		return lb_err(err, LB_EBUSY, "state file '%s' is locked by another run", st->name);
	/* what happened in our words, SQLite's text as detail */
	case ATOM_DB_IOERR:
		return lb_err(err, LB_EDB, "cannot read or write state file '%s' (%s; sqlite: %s)",
			      st->name, what, lib);
	case ATOM_DB_FULL:
		return lb_err(err, LB_EDB, "disk full: cannot write state file '%s' (%s; sqlite: %s)",
			      st->name, what, lib);
	case ATOM_DB_CORRUPT:
	case ATOM_DB_NOTADB:
		return lb_err(err, LB_EDB, "state file '%s' is damaged: restore a backup (%s; sqlite: %s)",
			      st->name, what, lib);
	case ATOM_DB_READONLY:
		return lb_err(err, LB_EDB, "state file '%s' cannot be written: read-only (%s; sqlite: %s)",
			      st->name, what, lib);
	default:
		return lb_err(err, LB_EDB, "state file '%s': %s: %s", st->name, what, lib);
	}
}

static int exec(atom_evstore *st, const char *sql, lb_error *err)
{
	int rc = atom_db_exec(st->db, sql);

	return rc == ATOM_DB_OK ? 0 : fail(st, err, rc, "cannot update");
}

/* One integer from sql (no parameters), or dflt when no row. */
static int query_int(atom_evstore *st, const char *sql, int64_t a, int64_t *out, int64_t dflt,
		     lb_error *err)
{
	atom_db_st *s;
	int rc = atom_db_prepare(st->db, sql, &s);

	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	if (atom_db_bind_parameter_count(s) > 0)
		atom_db_bind_int64(s, 1, a);
	rc = atom_db_step(s);
	*out = dflt;
	if (rc == ATOM_DB_ROW && atom_db_column_type(s, 0) != ATOM_DB_NULL)
		*out = atom_db_column_int64(s, 0);
	atom_db_finalize(s);
	if (rc != ATOM_DB_ROW && rc != ATOM_DB_DONE)
		return fail(st, err, rc, "cannot read");
	return 0;
}

/* The schema this state is at: ev_meta's, or 0 when the tables are new. */
static int schema_of(atom_evstore *st, int64_t *v, lb_error *err)
{
	int64_t has;
	int rc;

	if ((rc = query_int(st, "SELECT count(*) FROM sqlite_master WHERE name = 'ev_meta'", 0,
			    &has, 0, err)) != 0)
		return rc;
	if (!has) {
		*v = 0;
		return 0;
	}
	return query_int(st, "SELECT CAST(value AS INTEGER) FROM ev_meta WHERE key = 'schema'",
			 0, v, 0, err);
}

static int migrate(atom_evstore *st, lb_error *err)
{
	int64_t v, uv = 0;
	char sql[128];
	int n = (int)(sizeof migrations / sizeof migrations[0]), rc;
	/* attached inside the owner's transaction (antenna import): a savepoint */
	int nested = !atom_db_get_autocommit(st->db);

	if (nested ? (rc = exec(st, "SAVEPOINT ev_migrate", err)) != 0
		   : (rc = atom_evstore_begin(st, err)) != 0)
		return rc;
	if ((rc = schema_of(st, &v, err)) != 0 ||
	    (st->owned && (rc = query_int(st, "PRAGMA user_version", 0, &uv, 0, err)) != 0))
		goto fail;
	if (uv > v)
		v = uv;
	if (v > ATOM_EVSTORE_SCHEMA) {
		rc = lb_err(err, LB_EINVAL, "state file '%s' has schema %lld, newer than this program's %d",
			    st->name, (long long)v, ATOM_EVSTORE_SCHEMA);
		goto fail;
	}
	for (; v < n; v++)
		if ((rc = exec(st, migrations[v], err)) != 0)
			goto fail;
	snprintf(sql, sizeof sql, "INSERT INTO ev_meta VALUES('schema', '%d')"
		 " ON CONFLICT(key) DO UPDATE SET value=excluded.value", ATOM_EVSTORE_SCHEMA);
	if ((rc = exec(st, sql, err)) != 0)
		goto fail;
	if (st->owned) {
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", ATOM_EVSTORE_SCHEMA);
		if ((rc = exec(st, sql, err)) != 0)
			goto fail;
	}
	if (nested)
		return exec(st, "RELEASE ev_migrate", err);
	return atom_evstore_commit(st, err);
fail:
	if (nested)
		atom_db_exec(st->db, "ROLLBACK TO ev_migrate; RELEASE ev_migrate");
	else
		atom_evstore_rollback(st);
	return rc;
}

static int setup(atom_evstore *st, lb_error *err)
{
	int rc;

	if ((rc = migrate(st, err)) != 0)
		return rc;
	rc = atom_db_prepare(st->db, "INSERT INTO ev_events(url, url_key, last_modified, last_detected,"
		" tz_offset, content_length, title, author, source_url, excerpt)"
		" VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING", &st->ins);
	return rc == ATOM_DB_OK ? 0 : fail(st, err, rc, "cannot prepare");
}

static atom_evstore *new_store(const char *name)
{
	atom_evstore *st = calloc(1, sizeof *st);

	if (!st)
		return NULL;
	st->name = strdup(name ? name : "");
	st->keep = ATOM_EVSTORE_KEEP_ALL;
	lb_buf_init(&st->key);
	if (!st->name) {
		free(st);
		return NULL;
	}
	return st;
}

int atom_evstore_open(atom_evstore **out, const char *path, int busy_ms, lb_error *err)
{
	atom_evstore *st = new_store(path);
	int rc;

	*out = NULL;
	if (!st)
		return lb_err_code(err, LB_ENOMEM);
	st->owned = 1;
	/* NOMUTEX: a state file of its own is used by one thread */
	rc = atom_db_open(path, &st->db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE |
			     ATOM_DB_OPEN_NOMUTEX);
	if (rc != ATOM_DB_OK) {
		rc = lb_err(err, LB_EDB, "cannot open state file '%s': %s", path,
			    st->db ? atom_db_errmsg(st->db) : atom_db_errstr(rc));
		atom_evstore_close(st);
		return rc;
	}
	atom_db_busy_timeout(st->db, busy_ms > 0 ? busy_ms : ATOM_EVSTORE_DEFAULT_BUSY_MS);
	/* WAL: a web server or a second reader never blocks a run. */
	if ((rc = exec(st, "PRAGMA journal_mode = WAL", err)) != 0 ||
	    (rc = exec(st, "PRAGMA synchronous = NORMAL", err)) != 0 ||
	    (rc = setup(st, err)) != 0) {
		atom_evstore_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

int atom_evstore_attach(atom_evstore **out, atom_db *db, lb_error *err)
{
	const char *name = atom_db_filename(db);
	atom_evstore *st = new_store(name);
	int rc;

	*out = NULL;
	if (!st)
		return lb_err_code(err, LB_ENOMEM);
	st->db = db;
	if ((rc = setup(st, err)) != 0) {
		atom_evstore_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

void atom_evstore_close(atom_evstore *st)
{
	if (!st)
		return;
	atom_db_finalize(st->ins);
	atom_db_finalize(st->put);
	atom_db_finalize(st->max_lm);
	atom_db_finalize(st->each);
	if (st->owned)
		atom_db_close(st->db);
	lb_buf_release(&st->key);
	free(st->name);
	free(st);
}

int atom_evstore_begin(atom_evstore *st, lb_error *err)
{
	return exec(st, "BEGIN IMMEDIATE", err);
}

int atom_evstore_commit(atom_evstore *st, lb_error *err)
{
	int rc;

	if (st->keep != ATOM_EVSTORE_KEEP_ALL && !atom_db_get_autocommit(st->db) &&
	    (rc = atom_evstore_prune(st, st->keep, NULL, err)) != 0)
		return rc;
	return exec(st, "COMMIT", err);
}

void atom_evstore_rollback(atom_evstore *st)
{
	if (!atom_db_get_autocommit(st->db))
		atom_db_exec(st->db, "ROLLBACK");
}

int atom_evstore_meta_get(atom_evstore *st, const char *key, char **out, lb_error *err)
{
	atom_db_st *s;
	int rc = atom_db_prepare(st->db, "SELECT value FROM ev_meta WHERE key = ?", &s);

	*out = NULL;
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	atom_db_bind_text(s, 1, key, -1, ATOM_DB_STATIC);
	rc = atom_db_step(s);
	if (rc == ATOM_DB_ROW) {
		*out = strdup((const char *)atom_db_column_text(s, 0));
		atom_db_finalize(s);
		if (!*out)
			return lb_err_code(err, LB_ENOMEM);
		return 1;
	}
	atom_db_finalize(s);
	return rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot read");
}

int atom_evstore_meta_set(atom_evstore *st, const char *key, const char *value, lb_error *err)
{
	atom_db_st *s;
	int rc = atom_db_prepare(st->db, "INSERT INTO ev_meta VALUES(?1, ?2)"
		" ON CONFLICT(key) DO UPDATE SET value=?2", &s);

	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot update");
	atom_db_bind_text(s, 1, key, -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 2, value, -1, ATOM_DB_STATIC);
	rc = atom_db_step(s);
	atom_db_finalize(s);
	return rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot update");
}

static const char *nz(const char *s) { return s ? s : ""; }

/* Parameters 3 to 9 of an insert into ev_events or a run (after the URL
 * and its key): the event's fields, in the order both tables have them. */
static void bind_event(atom_db_st *s, const atom_ev_event *e)
{
	atom_db_bind_int64(s, 3, e->last_modified);
	atom_db_bind_int64(s, 4, e->last_detected);
	atom_db_bind_int64(s, 5, e->tz_offset);
	atom_db_bind_int64(s, 6, e->content_length);
	atom_db_bind_text(s, 7, nz(e->title), -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 8, nz(e->author), -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 9, nz(e->source_url), -1, ATOM_DB_STATIC);
}

int atom_evstore_add(atom_evstore *st, const atom_ev_event *e, lb_error *err)
{
	atom_db_st *s = st->ins;
	int rc;

	lb_buf_reset(&st->key);
	if (lb_url_key(&st->key, nz(e->url)) != 0)
		return lb_err_code(err, LB_ENOMEM);
	atom_db_reset(s);
	atom_db_bind_text(s, 1, nz(e->url), -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 2, st->key.data, (int)st->key.len, ATOM_DB_STATIC);
	bind_event(s, e);
	atom_db_bind_text(s, 10, nz(e->excerpt), -1, ATOM_DB_STATIC);
	rc = atom_db_step(s);
	atom_db_reset(s);
	if (rc != ATOM_DB_DONE)
		return fail(st, err, rc, "cannot add event");
	return atom_db_changes(st->db) > 0;
}

int atom_evstore_put(atom_evstore *st, const atom_ev_event *e, lb_error *err)
{
	atom_db_st *s;
	int rc;

	/* one upsert: a known event whose archive is not sealed takes e's
	 * texts; its outcome is not asked (PostgreSQL sends it in a pipeline
	 * inside the caller's transaction, no round trip of its own) */
	if (!st->put && (rc = atom_db_prepare(st->db, "INSERT INTO ev_events(url, url_key,"
		" last_modified, last_detected, tz_offset, content_length, title, author, source_url,"
		" excerpt) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10) ON CONFLICT(url_key, last_modified)"
		" DO UPDATE SET url=excluded.url, last_detected=excluded.last_detected,"
		" tz_offset=excluded.tz_offset, content_length=excluded.content_length,"
		" title=excluded.title, author=excluded.author, source_url=excluded.source_url,"
		" excerpt=excluded.excerpt"
		" WHERE ev_events.seq > (SELECT coalesce(max(last_seq), 0) FROM ev_archives)",
		&st->put)) != ATOM_DB_OK)
		return fail(st, err, rc, "cannot prepare");
	s = st->put;
	lb_buf_reset(&st->key);
	if (lb_url_key(&st->key, nz(e->url)) != 0)
		return lb_err_code(err, LB_ENOMEM);
	atom_db_reset(s);
	atom_db_bind_text(s, 1, nz(e->url), -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 2, st->key.data, (int)st->key.len, ATOM_DB_STATIC);
	bind_event(s, e);
	atom_db_bind_text(s, 10, nz(e->excerpt), -1, ATOM_DB_STATIC);
	rc = atom_db_step(s);
	atom_db_reset(s);
	if (rc != ATOM_DB_DONE)
		return fail(st, err, rc, "cannot add event");
	return 0;
}

int atom_evstore_withdraw(atom_evstore *st, const char *url, int64_t last_modified, lb_error *err)
{
	atom_db_st *s;
	int64_t sealed;
	int rc;

	lb_buf_reset(&st->key);
	if (lb_url_key(&st->key, nz(url)) != 0)
		return lb_err_code(err, LB_ENOMEM);
	rc = atom_db_prepare(st->db, "SELECT seq <= (SELECT coalesce(max(last_seq), 0) FROM ev_archives)"
				" FROM ev_events WHERE url_key=?1 AND last_modified=?2", &s);
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot withdraw event");
	atom_db_bind_text(s, 1, st->key.data, (int)st->key.len, ATOM_DB_STATIC);
	atom_db_bind_int64(s, 2, last_modified);
	rc = atom_db_step(s);
	sealed = rc == ATOM_DB_ROW ? atom_db_column_int64(s, 0) : 0;
	atom_db_finalize(s);
	if (rc == ATOM_DB_DONE)
		return 0;
	if (rc != ATOM_DB_ROW)
		return fail(st, err, rc, "cannot withdraw event");
	if (sealed)
		return 2;
	rc = atom_db_prepare(st->db, "DELETE FROM ev_events WHERE url_key=?1 AND last_modified=?2", &s);
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot withdraw event");
	atom_db_bind_text(s, 1, st->key.data, (int)st->key.len, ATOM_DB_STATIC);
	atom_db_bind_int64(s, 2, last_modified);
	rc = atom_db_step(s);
	atom_db_finalize(s);
	if (rc != ATOM_DB_DONE)
		return fail(st, err, rc, "cannot withdraw event");
	return 1;
}

/* Sorting a run: keys computed once. */
typedef struct run_item {
	const atom_ev_event *e;
	char *key;
	size_t idx;
} run_item;

static int cmp_run(const void *a, const void *b)
{
	const run_item *x = a, *y = b;
	int c;

	if (x->e->last_modified != y->e->last_modified)
		return x->e->last_modified < y->e->last_modified ? -1 : 1;
	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	/* the winner of a (key, LM) group first: ON CONFLICT DO NOTHING keeps it */
	if (x->e->last_detected != y->e->last_detected)
		return x->e->last_detected > y->e->last_detected ? -1 : 1;
	return x->idx > y->idx ? -1 : (x->idx < y->idx);
}

int atom_evstore_add_run(atom_evstore *st, const atom_ev_event *ev, size_t n, size_t *added,
		    lb_error *err)
{
	run_item *it = calloc(n ? n : 1, sizeof *it);
	lb_buf keys = LB_BUF_INIT;
	size_t i, nadd = 0;
	int own = atom_db_get_autocommit(st->db), rc = -1;

	if (!it)
		goto oom;
	/* keys in one buffer: offsets first, pointers once it stops moving */
	for (i = 0; i < n; i++) {
		it[i].e = &ev[i];
		it[i].idx = i;
		it[i].key = (char *)(uintptr_t)keys.len;
		if (lb_url_key(&keys, nz(ev[i].url)) != 0 || lb_buf_addc(&keys, '\0') != 0)
			goto oom;
	}
	for (i = 0; i < n; i++)
		it[i].key = keys.data + (uintptr_t)it[i].key;
	qsort(it, n, sizeof *it, cmp_run);
	if (own && (rc = atom_evstore_begin(st, err)) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		int r = atom_evstore_add(st, it[i].e, err);
		if (r < 0) {
			rc = r;
			goto out;
		}
		nadd += (size_t)r;
	}
	if (own && (rc = atom_evstore_commit(st, err)) != 0)
		goto out;
	if (added)
		*added = nadd;
	rc = 0;
	goto out;
oom:
	rc = lb_err_code(err, LB_ENOMEM);
out:
	if (rc != 0 && own)
		atom_evstore_rollback(st);
	lb_buf_release(&keys);
	free(it);
	return rc;
}

int atom_evstore_archived(atom_evstore *st, int64_t *last_seq, int64_t *count, lb_error *err)
{
	int rc;

	if ((rc = query_int(st, "SELECT last_seq FROM ev_archives ORDER BY n DESC LIMIT 1", 0,
			    last_seq, 0, err)) != 0)
		return rc;
	return query_int(st, "SELECT max(n) FROM ev_archives", 0, count, 0, err);
}

/*
 * Seals archives while page_size events follow the last one: one walk of
 * the events after it in seq order (a rowid range), one insert per
 * archive.  A first publish of 50,000 events seals 1,000 archives.
 */
int atom_evstore_seal(atom_evstore *st, int64_t page_size, const char *title, const char *author,
		 int64_t *sealed, lb_error *err)
{
	int64_t after, n, k = 0, first = 0, i = 0;
	atom_db_st *walk = NULL, *ins = NULL;
	int rc;

	if (page_size < 1)
		return lb_err(err, LB_EINVAL, "page size must be at least 1");
	if ((rc = atom_evstore_archived(st, &after, &n, err)) != 0)
		return rc;
	rc = atom_db_prepare(st->db, "SELECT seq FROM ev_events WHERE seq > ?1 ORDER BY seq", &walk);
	if (rc == ATOM_DB_OK)
		rc = atom_db_prepare(st->db, "INSERT INTO ev_archives(n, first_seq, last_seq,"
					" title, author, lang) VALUES(?,?,?,?,?,?)", &ins);
	if (rc != ATOM_DB_OK) {
		rc = fail(st, err, rc, "cannot prepare");
		goto out;
	}
	atom_db_bind_int64(walk, 1, after);
	atom_db_bind_text(ins, 4, nz(title), -1, ATOM_DB_STATIC);
	atom_db_bind_text(ins, 5, nz(author), -1, ATOM_DB_STATIC);
	atom_db_bind_text(ins, 6, st->lang, -1, ATOM_DB_STATIC);
	while ((rc = atom_db_step(walk)) == ATOM_DB_ROW) {
		int64_t seq = atom_db_column_int64(walk, 0);

		if (i++ == 0)
			first = seq;
		if (i < page_size)
			continue;
		atom_db_bind_int64(ins, 1, n + k + 1);
		atom_db_bind_int64(ins, 2, first);
		atom_db_bind_int64(ins, 3, seq);
		rc = atom_db_step(ins);
		atom_db_reset(ins);
		if (rc != ATOM_DB_DONE) {
			rc = fail(st, err, rc, "cannot seal archive");
			goto out;
		}
		k++;
		i = 0;
	}
	if (rc != ATOM_DB_DONE) {
		rc = fail(st, err, rc, "cannot read");
		goto out;
	}
	rc = 0;
out:
	atom_db_finalize(walk);
	atom_db_finalize(ins);
	if (sealed)
		*sealed = k;
	return rc;
}

/* The columns archive_walk() reads, in its order. */
#define ARCHIVE_COLS "n, first_seq, last_seq, title, author, next_linked, written, lang"

/* Calls FN for each archive SQL selects (the columns of ARCHIVE_COLS;
 * its parameters, when it has them, ?1 = BELOW and ?2 = LIMIT), stopping
 * at FN's first non-zero return, which is returned. */
static int archive_walk(atom_evstore *st, const char *sql, int64_t below, int64_t limit,
			atom_ev_archive_fn fn, void *ctx, lb_error *err)
{
	atom_db_st *s;
	int64_t count, last;
	int rc, r = 0;

	if ((rc = atom_evstore_archived(st, &last, &count, err)) != 0)
		return rc;
	rc = atom_db_prepare(st->db, sql, &s);
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	if (atom_db_bind_parameter_count(s) == 2) {
		atom_db_bind_int64(s, 1, below);
		atom_db_bind_int64(s, 2, limit);
	}
	while (r == 0 && (rc = atom_db_step(s)) == ATOM_DB_ROW) {
		atom_ev_archive a;
		a.n = atom_db_column_int64(s, 0);
		a.first_seq = atom_db_column_int64(s, 1);
		a.last_seq = atom_db_column_int64(s, 2);
		a.title = (const char *)atom_db_column_text(s, 3);
		a.author = (const char *)atom_db_column_text(s, 4);
		a.next_linked = atom_db_column_int(s, 5);
		a.written = atom_db_column_int(s, 6);
		a.lang = (const char *)atom_db_column_text(s, 7);
		a.has_next = a.n < count;
		r = fn(ctx, &a);
	}
	atom_db_finalize(s);
	if (r != 0)
		return r;
	return rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot read");
}

int atom_evstore_each_archive(atom_evstore *st, int all, atom_ev_archive_fn fn, void *ctx,
			 lb_error *err)
{
	return archive_walk(st, all ?
		"SELECT " ARCHIVE_COLS " FROM ev_archives ORDER BY n" :
		"SELECT " ARCHIVE_COLS " FROM ev_archives"
		" WHERE written = 0 OR next_linked = 0 ORDER BY n", 0, 0, fn, ctx, err);
}

int atom_evstore_archive_done(atom_evstore *st, int64_t n, int next_linked, lb_error *err)
{
	atom_db_st *s;
	int rc = atom_db_prepare(st->db, "UPDATE ev_archives SET written = 1, next_linked = ? WHERE n = ?", &s);

	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot update");
	atom_db_bind_int(s, 1, next_linked);
	atom_db_bind_int64(s, 2, n);
	rc = atom_db_step(s);
	atom_db_finalize(s);
	return rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot update");
}

int atom_evstore_each_event(atom_evstore *st, int64_t first_seq, int64_t last_seq, atom_ev_event_fn fn,
		       void *ctx, lb_error *err)
{
	static const char sql[] =
		"SELECT seq, url, last_modified, last_detected, tz_offset, content_length,"
		" title, author, source_url, excerpt FROM ev_events WHERE seq >= ?1 AND seq <= ?2"
		" ORDER BY seq DESC";
	atom_db_st *s = st->each;
	int rc = ATOM_DB_OK, r = 0, own = 0;

	/* A first run writes a thousand archives: one prepared statement for
	 * them all, unless a callback walks again (then a statement of its own). */
	if (st->each_busy || !s) {
		rc = atom_db_prepare(st->db, sql, &s);
		own = st->each_busy;
		if (!own && rc == ATOM_DB_OK)
			st->each = s;
	}
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	st->each_busy += !own;
	atom_db_bind_int64(s, 1, first_seq);
	atom_db_bind_int64(s, 2, last_seq < 0 ? INT64_MAX : last_seq);
	while (r == 0 && (rc = atom_db_step(s)) == ATOM_DB_ROW) {
		atom_ev_event e;
		e.seq = atom_db_column_int64(s, 0);
		e.url = (const char *)atom_db_column_text(s, 1);
		e.last_modified = atom_db_column_int64(s, 2);
		e.last_detected = atom_db_column_int64(s, 3);
		e.tz_offset = atom_db_column_int64(s, 4);
		e.content_length = atom_db_column_int64(s, 5);
		e.title = (const char *)atom_db_column_text(s, 6);
		e.author = (const char *)atom_db_column_text(s, 7);
		e.source_url = (const char *)atom_db_column_text(s, 8);
		e.excerpt = (const char *)atom_db_column_text(s, 9);
		r = fn(ctx, &e);
	}
	if (own) {
		atom_db_finalize(s);
	} else {
		atom_db_reset(s);
		st->each_busy = 0;
	}
	if (r != 0)
		return r;
	return rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot read");
}

int atom_evstore_max_seq(atom_evstore *st, int64_t *seq, lb_error *err)
{
	return query_int(st, "SELECT max(seq) FROM ev_events", 0, seq, 0, err);
}

/* ---- cursors for streaming writers (atom.c) ----------------------------- */

int atom_evstore_max_lm(atom_evstore *st, int64_t first_seq, int64_t last_seq, int64_t *max, int *any,
		   lb_error *err)
{
	atom_db_st *s;
	int rc = ATOM_DB_OK;

	if (!st->max_lm)
		rc = atom_db_prepare(st->db, "SELECT max(last_modified) FROM ev_events"
					" WHERE seq >= ?1 AND seq <= ?2", &st->max_lm);
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	s = st->max_lm;
	atom_db_bind_int64(s, 1, first_seq);
	atom_db_bind_int64(s, 2, last_seq < 0 ? INT64_MAX : last_seq);
	rc = atom_db_step(s);
	*any = rc == ATOM_DB_ROW && atom_db_column_type(s, 0) != ATOM_DB_NULL;
	*max = *any ? atom_db_column_int64(s, 0) : 0;
	atom_db_reset(s);
	return rc == ATOM_DB_ROW ? 0 : fail(st, err, rc, "cannot read");
}

int atom_evstore_count_archives(atom_evstore *st, int all, int64_t *count, lb_error *err)
{
	return query_int(st, all ? "SELECT count(*) FROM ev_archives" :
			 "SELECT count(*) FROM ev_archives WHERE written = 0 OR next_linked = 0",
			 0, count, 0, err);
}

int atom_evstore_each_archive_desc(atom_evstore *st, int all, int64_t below, int64_t limit,
			      atom_ev_archive_fn fn, void *ctx, lb_error *err)
{
	return archive_walk(st, all ?
		"SELECT " ARCHIVE_COLS " FROM ev_archives WHERE n < ?1 ORDER BY n DESC LIMIT ?2" :
		"SELECT " ARCHIVE_COLS " FROM ev_archives"
		" WHERE (written = 0 OR next_linked = 0) AND n < ?1 ORDER BY n DESC LIMIT ?2",
		below < 0 ? INT64_MAX : below, limit, fn, ctx, err);
}

/* ---- a run staged on disk (atom_ev_run) --------------------------------------- */

struct atom_ev_run {
	atom_db *db;
	atom_db_st *ins;
	lb_buf key;
	size_t n;
	int have_win;        /* the table win is filled */
};

/* The staged columns, in the order rows are read back (run_row()). */
#define RUN_COLS "url, key, lm, ld, tz, cl, title, author, source"

static int run_fail(atom_ev_run *r, lb_error *err, int rc, const char *what)
{
	return lb_err(err, LB_EDB, "temporary run file: %s: %s", what,
		      r->db ? atom_db_errmsg(r->db) : atom_db_errstr(rc));
}

int atom_ev_run_open(atom_ev_run **out, lb_error *err)
{
	atom_ev_run *r = calloc(1, sizeof *r);
	int rc;

	*out = NULL;
	if (!r)
		return lb_err_code(err, LB_ENOMEM);
	lb_buf_init(&r->key);
	/* "": a private on-disk database, deleted when closed; its page
	 * cache (and so the memory of a run of any size) stays bounded. */
	rc = atom_db_open("", &r->db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE |
			     ATOM_DB_OPEN_NOMUTEX);
	if (rc == ATOM_DB_OK)
		rc = atom_db_exec(r->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
			"PRAGMA cache_size = -" ATOM_EV_RUN_CACHE_KIB ";"
			"CREATE TABLE run(idx INTEGER PRIMARY KEY, url TEXT, key TEXT, lm INTEGER,"
			" ld INTEGER, tz INTEGER, cl INTEGER, title TEXT, author TEXT, source TEXT);"
			"BEGIN");
	if (rc == ATOM_DB_OK)
		rc = atom_db_prepare(r->db, "INSERT INTO run(" RUN_COLS ") VALUES(?,?,?,?,?,?,?,?,?)", &r->ins);
	if (rc != ATOM_DB_OK) {
		rc = run_fail(r, err, rc, "cannot create");
		atom_ev_run_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void atom_ev_run_close(atom_ev_run *r)
{
	if (!r)
		return;
	atom_db_finalize(r->ins);
	atom_db_close(r->db);
	lb_buf_release(&r->key);
	free(r);
}

size_t atom_ev_run_count(const atom_ev_run *r)
{
	return r->n;
}

int atom_ev_run_add(atom_ev_run *r, const atom_ev_event *e, lb_error *err)
{
	atom_db_st *s = r->ins;
	int rc;

	lb_buf_reset(&r->key);
	if (lb_url_key(&r->key, nz(e->url)) != 0)
		return lb_err_code(err, LB_ENOMEM);
	/* most URLs are their own key: then only the key is kept (a third
	 * less to write, sort and read back) */
	if (strcmp(nz(e->url), r->key.data) == 0)
		atom_db_bind_null(s, 1);
	else
		atom_db_bind_text(s, 1, nz(e->url), -1, ATOM_DB_STATIC);
	atom_db_bind_text(s, 2, r->key.data, (int)r->key.len, ATOM_DB_STATIC);
	bind_event(s, e);
	rc = atom_db_step(s);
	atom_db_reset(s);
	if (rc != ATOM_DB_DONE)
		return run_fail(r, err, rc, "cannot add event");
	r->n++;
	return 0;
}

static void run_row(atom_db_st *s, atom_ev_event *e)
{
	e->seq = 0;
	e->url = (const char *)atom_db_column_text(s, atom_db_column_type(s, 0) == ATOM_DB_NULL ? 1 : 0);
	e->last_modified = atom_db_column_int64(s, 2);
	e->last_detected = atom_db_column_int64(s, 3);
	e->tz_offset = atom_db_column_int64(s, 4);
	e->content_length = atom_db_column_int64(s, 5);
	e->title = (const char *)atom_db_column_text(s, 6);
	e->author = (const char *)atom_db_column_text(s, 7);
	e->source_url = (const char *)atom_db_column_text(s, 8);
	e->excerpt = NULL;   /* LIRS records have none */
}

/*
 * Calls fn for each event sql yields: rows of RUN_COLS, or (by_idx) rows
 * whose first column is an idx, each event then fetched by that rowid
 * (the sort behind sql moves only the narrow rows, not titles and URLs).
 */
static int run_each(atom_ev_run *r, const char *sql, int by_idx, atom_ev_event_fn fn, void *ctx,
		    lb_error *err)
{
	atom_db_st *s, *get = NULL;
	int rc, x = 0;

	rc = atom_db_prepare(r->db, sql, &s);
	if (rc == ATOM_DB_OK && by_idx)
		rc = atom_db_prepare(r->db, "SELECT " RUN_COLS " FROM run WHERE idx = ?", &get);
	if (rc != ATOM_DB_OK) {
		atom_db_finalize(s);
		return run_fail(r, err, rc, "cannot read");
	}
	while (x == 0 && (rc = atom_db_step(s)) == ATOM_DB_ROW) {
		atom_ev_event e;
		if (by_idx) {
			atom_db_bind_int64(get, 1, atom_db_column_int64(s, 0));
			if ((rc = atom_db_step(get)) != ATOM_DB_ROW)
				break;
		}
		run_row(by_idx ? get : s, &e);
		x = fn(ctx, &e);
		if (by_idx)
			atom_db_reset(get);
	}
	atom_db_finalize(s);
	atom_db_finalize(get);
	if (x != 0)
		return x;
	return rc == ATOM_DB_DONE ? 0 : run_fail(r, err, rc, "cannot read");
}

typedef struct add_ctx {
	atom_evstore *st;
	size_t added;
	lb_error *err;
} add_ctx;

static int add_one(void *ctx, const atom_ev_event *e)
{
	add_ctx *a = ctx;
	int r = atom_evstore_add(a->st, e, a->err);

	if (r < 0)
		return r;
	a->added += (size_t)r;
	return 0;
}

int atom_evstore_add_staged(atom_evstore *st, atom_ev_run *r, size_t *added, lb_error *err)
{
	add_ctx a = { st, 0, err };
	int own = atom_db_get_autocommit(st->db), rc;

	if (own && (rc = atom_evstore_begin(st, err)) != 0)
		return rc;
	/* The order of atom_evstore_add_run()'s cmp_run: sequence numbers, and so
	 * the archives' bytes, do not depend on how a run was passed in. */
	rc = run_each(r, "SELECT " RUN_COLS " FROM run ORDER BY lm, key, ld DESC, idx DESC", 0,
		      add_one, &a, err);
	if (rc == 0 && own)
		rc = atom_evstore_commit(st, err);
	if (rc != 0 && own)
		atom_evstore_rollback(st);
	if (rc == 0 && added)
		*added = a.added;
	return rc;
}

/* The winners, one per key, into the table win (made once). */
static int run_winners(atom_ev_run *r, lb_error *err)
{
	atom_db_st *s = NULL, *ins = NULL;
	lb_buf prev = LB_BUF_INIT;
	int rc, first = 1;

	if (r->have_win)
		return 0;
	/* lirs_merge_supersedes(): per key the greatest Last-Modified, then
	 * Last-Detected, then the later: the first row of each key here */
	rc = atom_db_exec(r->db, "CREATE TABLE win(idx INTEGER, lm INTEGER, key TEXT)");
	if (rc == ATOM_DB_OK)
		rc = atom_db_prepare(r->db, "SELECT idx, lm, key FROM run"
					" ORDER BY key, lm DESC, ld DESC, idx DESC", &s);
	if (rc == ATOM_DB_OK)
		rc = atom_db_prepare(r->db, "INSERT INTO win VALUES(?,?,?)", &ins);
	while (rc == ATOM_DB_OK && (rc = atom_db_step(s)) == ATOM_DB_ROW) {
		const char *key = (const char *)atom_db_column_text(s, 2);
		int len = atom_db_column_bytes(s, 2);

		rc = ATOM_DB_OK;
		if (!first && (size_t)len == prev.len && memcmp(key, prev.data, prev.len) == 0)
			continue;
		first = 0;
		lb_buf_reset(&prev);
		if (lb_buf_add(&prev, key, (size_t)len) != 0) {
			rc = ATOM_DB_NOMEM;
			break;
		}
		atom_db_bind_int64(ins, 1, atom_db_column_int64(s, 0));
		atom_db_bind_int64(ins, 2, atom_db_column_int64(s, 1));
		atom_db_bind_text(ins, 3, key, len, ATOM_DB_STATIC);
		rc = atom_db_step(ins);
		atom_db_reset(ins);
		rc = rc == ATOM_DB_DONE ? ATOM_DB_OK : rc;
	}
	atom_db_finalize(s);
	atom_db_finalize(ins);
	lb_buf_release(&prev);
	if (rc != ATOM_DB_DONE)
		return run_fail(r, err, rc, "cannot sort");
	r->have_win = 1;
	return 0;
}

int atom_ev_run_each_latest(atom_ev_run *r, atom_ev_event_fn fn, void *ctx, lb_error *err)
{
	int rc;

	if ((rc = run_winners(r, err)) != 0)
		return rc;
	/* lirs_merge_each()'s order */
	return run_each(r, "SELECT idx FROM win ORDER BY lm DESC, key", 1, fn, ctx, err);
}

int atom_ev_run_max_lm(atom_ev_run *r, int64_t *max, int *any, lb_error *err)
{
	atom_db_st *s;
	int rc = atom_db_prepare(r->db, "SELECT max(lm) FROM run", &s);

	if (rc != ATOM_DB_OK)
		return run_fail(r, err, rc, "cannot read");
	rc = atom_db_step(s);
	*any = rc == ATOM_DB_ROW && atom_db_column_type(s, 0) != ATOM_DB_NULL;
	*max = *any ? atom_db_column_int64(s, 0) : 0;
	atom_db_finalize(s);
	return rc == ATOM_DB_ROW ? 0 : run_fail(r, err, rc, "cannot read");
}

/* ---- retention ---------------------------------------------------------- */

void atom_evstore_set_lang(atom_evstore *st, const char *lang)
{
	snprintf(st->lang, sizeof st->lang, "%s", lang && strcmp(lang, "en") ? lang : "");
}

void atom_evstore_set_retention(atom_evstore *st, int64_t keep_events)
{
	st->keep = keep_events < 0 ? ATOM_EVSTORE_KEEP_ALL : keep_events;
}

int64_t atom_evstore_retention(const atom_evstore *st)
{
	return st->keep;
}

static int meta_int(atom_evstore *st, const char *key, int64_t *v, lb_error *err)
{
	char *s = NULL;
	int r = atom_evstore_meta_get(st, key, &s, err);

	*v = r == 1 ? strtoll(s, NULL, 10) : 0;
	free(s);
	return r < 0 ? r : 0;
}

static int meta_set_int(atom_evstore *st, const char *key, int64_t v, lb_error *err)
{
	char b[32];

	snprintf(b, sizeof b, "%lld", (long long)v);
	return atom_evstore_meta_set(st, key, b, err);
}

int atom_evstore_reseal(atom_evstore *st, lb_error *err)
{
	int rc;

	if ((rc = exec(st, "DELETE FROM ev_archives;"
		       " DELETE FROM ev_meta WHERE key IN ('atom_base', 'atom_page_size')", err)) != 0)
		return rc;
	return meta_set_int(st, "pruned_archives", 0, err);
}

int atom_evstore_pruned(atom_evstore *st, int64_t *archives, int64_t *events, lb_error *err)
{
	int64_t a, e;
	int rc;

	if ((rc = meta_int(st, "pruned_archives", &a, err)) != 0 ||
	    (rc = meta_int(st, "pruned_events", &e, err)) != 0)
		return rc;
	if (archives)
		*archives = a;
	if (events)
		*events = e;
	return 0;
}

/*
 * The newest archive that may go: complete (written, next-archive link
 * in place), like every archive before it, and with at least keep events
 * after its last one.  Only the archives still due are found through the
 * partial index, and the pruned ones have no rows, so both reads are
 * bounded by what is kept, not by the history.
 */
static int prune_point(atom_evstore *st, int64_t keep, int64_t *n, int64_t *last_seq,
		       lb_error *err)
{
	int64_t top, due;
	atom_db_st *s;
	int rc;

	*n = 0;
	if ((rc = query_int(st, "SELECT max(seq) FROM ev_events", 0, &top, 0, err)) != 0 ||
	    (rc = query_int(st, "SELECT min(n) FROM ev_archives WHERE written = 0 OR next_linked = 0",
			    0, &due, INT64_MAX, err)) != 0)
		return rc;
	rc = atom_db_prepare(st->db, "SELECT n, last_seq FROM ev_archives"
				" WHERE n < ?1 AND last_seq <= ?2 ORDER BY n DESC LIMIT 1", &s);
	if (rc != ATOM_DB_OK)
		return fail(st, err, rc, "cannot read");
	atom_db_bind_int64(s, 1, due);
	atom_db_bind_int64(s, 2, top - keep);
	rc = atom_db_step(s);
	if (rc == ATOM_DB_ROW) {
		*n = atom_db_column_int64(s, 0);
		*last_seq = atom_db_column_int64(s, 1);
	}
	atom_db_finalize(s);
	return rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 : fail(st, err, rc, "cannot read");
}

int atom_evstore_prune(atom_evstore *st, int64_t keep_events, int64_t *pruned, lb_error *err)
{
	int64_t n, last, done_a, done_e, gone;
	char sql[128];
	int rc;

	if (pruned)
		*pruned = 0;
	if (keep_events < 0)
		return 0;
	if ((rc = prune_point(st, keep_events, &n, &last, err)) != 0)
		return rc;
	if (n == 0)
		return 0;
	/* rowid ranges: the b-tree is cut from its start, O(removed + log n) */
	snprintf(sql, sizeof sql, "DELETE FROM ev_events WHERE seq <= %lld", (long long)last);
	if ((rc = exec(st, sql, err)) != 0)
		return rc;
	gone = atom_db_changes(st->db);
	snprintf(sql, sizeof sql, "DELETE FROM ev_archives WHERE n <= %lld", (long long)n);
	if ((rc = exec(st, sql, err)) != 0 ||
	    (rc = atom_evstore_pruned(st, &done_a, &done_e, err)) != 0 ||
	    (rc = meta_set_int(st, "pruned_archives", n, err)) != 0 ||
	    (rc = meta_set_int(st, "pruned_events", done_e + gone, err)) != 0)
		return rc;
	if (pruned)
		*pruned = gone;
	return 0;
}
