/*
 * store.c: the antenna's SQLite state (see ant_store.h): opening, locking
 * and transactions, the sizes check-db reports, and the config table.
 * The statement helpers the other store files build every query from
 * (priv/store_int.h) are store_db.c's; the schema is store_schema.c's;
 * the pages, the sources and what they said, and the published listing
 * have a file each (store_pages.c, store_sources.c, store_published.c).
 * Every SQL statement about antenna state lives in these files.
 */
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lb_buf.h"

/* ---- opening, locking, transactions -------------------------------------- */

/* What a file that is no antenna database is, said before SQLite blames
 * something else: a directory the journal cannot be created in (SQLite
 * needs path-wal and path-shm beside the file, even to read a WAL
 * database), a file that is not SQLite.  0 when neither. */
static int check_file(const char *path, int mode, lb_error *err)
{
	char head[16], *dir, *slash;
	int fd, rc = 0;
	ssize_t n;

	if (access(path, F_OK) != 0)
		return 0;
	if (!(dir = strdup(path)))
		return lb_err_code(err, LB_ENOMEM);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	if (access(slash ? dir : ".", W_OK | X_OK) != 0)
		rc = lb_err(err, LB_EDB, "cannot use database '%s': its directory '%s' is not writable "
			    "(%s), and SQLite creates its journal ('%s-wal') beside the file: make the "
			    "directory writable, or move the database to one that is", path,
			    slash ? dir : ".", strerror(errno), path);
	free(dir);
	if (rc < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return rc;
	n = read(fd, head, sizeof head);
	close(fd);
	if (n > 0 && (n < 16 || memcmp(head, "SQLite format 3", 16) != 0))
		rc = lb_err(err, LB_EINVAL, "'%s' is not an antenna database (it is not SQLite): %s", path,
			    mode == ANT_STORE_OPEN_CREATE ? "init leaves it as it is; name a new file: "
			    "'antenna -d FILE init'" : "name the antenna's database with 'antenna -d FILE', "
			    "or create one with 'antenna -d FILE init'");
	return rc;
}

/* A SQLite database without the antenna's tables: init adds them to an
 * empty one only, never to another program's. */
static int check_tables(ant_store *s, const char *path, int mode, lb_error *err)
{
	if (ant_st_is_antenna_db(s))
		return 0;
	if (mode != ANT_STORE_OPEN_CREATE)
		return lb_err(err, LB_EINVAL, "'%s' is not an antenna database (it has no antenna tables): "
			      "create them with 'antenna -d %s init', or name the antenna's database "
			      "with 'antenna -d FILE'", path, path);
	if (ant_st_pragma_int(s, "SELECT count(*) FROM sqlite_master") > 0)
		return lb_err(err, LB_EINVAL, "'%s' is not an antenna database (it is SQLite with no "
			      "antenna tables, but tables of its own): init leaves it as it is; name a new "
			      "file: 'antenna -d FILE init'", path);
	return 0;
}

int ant_store_open(ant_store **out, const char *path, int mode, lb_error *err)
{
	ant_store *s = calloc(1, sizeof *s);
	int flags = ATOM_DB_OPEN_READWRITE | (mode == ANT_STORE_OPEN_CREATE ? ATOM_DB_OPEN_CREATE : 0);
	int rc;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return lb_err_code(err, LB_ENOMEM);
	}
	s->lock_fd = -1;
	if (ant_st_is_pg_name(path)) {
		if ((rc = ant_st_pg_open(path, &s->db, err)) < 0) {
			ant_store_close(s);
			return rc;
		}
	} else if ((rc = check_file(path, mode, err)) < 0) {
		ant_store_close(s);
		return rc;
	} else if (atom_db_open(path, &s->db, flags) != ATOM_DB_OK) {
		if (mode != ANT_STORE_OPEN_CREATE && access(path, F_OK) != 0)
			rc = lb_err(err, LB_ENOTFOUND, "cannot open database '%s': %s (run 'antenna init' first)",
				    path, strerror(errno ? errno : ENOENT));
		else
			rc = lb_err(err, LB_EDB, "cannot open database '%s': %s", path,
				    s->db ? atom_db_errmsg(s->db) : "out of memory");
		ant_store_close(s);
		return rc;
	}
	atom_db_busy_timeout(s->db, ANT_STORE_BUSY_TIMEOUT_MS);
	atom_db_extended_result_codes(s->db, 1);
	if ((rc = check_tables(s, path, mode, err)) < 0) {
		ant_store_close(s);
		return rc;
	}
	if ((rc = ant_st_functions(s, err)) < 0) {
		ant_store_close(s);
		return rc;
	}
	/* A new file lets go of the pages the history's pruning frees
	 * (ant_store_compact()); only possible before its first table. */
	if (mode == ANT_STORE_OPEN_CREATE && ant_st_pragma_int(s, "SELECT count(*) FROM sqlite_master") == 0 &&
	    (rc = ant_st_exec(s, "PRAGMA auto_vacuum=INCREMENTAL", err)) < 0) {
		ant_store_close(s);
		return rc;
	}
	/* WAL: readers never block the update; NORMAL sync is crash-safe in WAL. */
	if ((rc = ant_st_exec(s, "PRAGMA journal_mode=WAL", err)) < 0 ||
	    (rc = ant_st_exec(s, "PRAGMA synchronous=NORMAL", err)) < 0 ||
	    (rc = ant_st_exec(s, "PRAGMA foreign_keys=ON", err)) < 0 ||
	    (rc = ant_st_migrate(s, err)) < 0) {
		ant_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void ant_store_close(ant_store *s)
{
	if (!s)
		return;
	atom_db_finalize(s->save_page);
	atom_db_finalize(s->put_srcrec);
	atom_db_finalize(s->get_page);
	atom_db_finalize(s->due_pages);
	atom_db_finalize(s->relay_newest);
	atom_db_finalize(s->srcrec_times);
	atom_db_finalize(s->trust_judge);
	free(s->pending.id);
	atom_db_finalize(s->text_has);
	atom_db_finalize(s->text_get);
	atom_db_finalize(s->text_put);
	atom_db_finalize(s->diff_of);
	atom_db_finalize(s->site_get);
	atom_db_finalize(s->site_all);
	atom_db_finalize(s->site_list);
	atom_db_finalize(s->site_del);
	atom_db_finalize(s->site_put);
	atom_db_close(s->db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	free(s);
}

atom_db *ant_store_db(ant_store *s) { return s->db; }
const char *ant_store_path(const ant_store *s) { return s->path; }
int ant_store_created(const ant_store *s) { return s->created; }

/* The advisory locks' keys on PostgreSQL (the run lock taken here, the
 * others by store_lease.c). */
long long ant_st_lock_key(int which)
{
	static const long long key[] = {
		[ANT_STORE_LOCK_SOURCES] = 4242000004LL,
		[ANT_STORE_LOCK_PUBLISH] = 4242000005LL,
		[ANT_STORE_LOCK_RUN] = 4242000002LL,
	};

	return key[which];
}

/* pg_locks shows an advisory lock on a bigint key as classid (its high
 * half) and objid (its low half), objsubid 1, in this database only. */
#define ADVISORY_KEY "l.locktype = 'advisory' AND l.granted AND l.objsubid = 1" \
	" AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())" \
	" AND l.classid::bigint * 4294967296 + l.objid::bigint = %lld AND l.pid <> pg_backend_pid()"

int ant_store_lock_holder(ant_store *s, int which, char *buf, size_t n)
{
	char sql[600];
	atom_db_st *st;
	int found = 0;

	if (n)
		buf[0] = '\0';
	if (atom_db_backend(s->db) != ATOM_DB_POSTGRES)
		return 0;
	snprintf(sql, sizeof sql, "SELECT coalesce(nullif(a.application_name, ''), 'a session')"
		 " || ', connected ' || to_char(a.backend_start, 'YYYY-MM-DD HH24:MI:SS TZ')"
		 " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE " ADVISORY_KEY
		 " ORDER BY a.backend_start LIMIT 1", ant_st_lock_key(which));
	if (atom_db_prepare(s->db, sql, &st) != ATOM_DB_OK)
		return 0;
	if (atom_db_step(st) == ATOM_DB_ROW && atom_db_column_text(st, 0)) {
		snprintf(buf, n, "%s", (const char *)atom_db_column_text(st, 0));
		found = 1;
	}
	atom_db_finalize(st);
	return found;
}

int ant_store_lock_count(ant_store *s, int which, int shared_mode)
{
	char sql[400];

	if (atom_db_backend(s->db) != ATOM_DB_POSTGRES)
		return 0;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_locks l WHERE l.mode = '%s' AND " ADVISORY_KEY,
		 shared_mode ? "ShareLock" : "ExclusiveLock", ant_st_lock_key(which));
	return (int)ant_st_pragma_int(s, sql);
}

/* On PostgreSQL the run lock is a session's advisory lock (the server
 * lets go of it when the connection ends, as the kernel does a killed
 * run's fcntl() lock).  A run alone takes it exclusive; the checkers that
 * share the pages (update --lease) take it shared, any number at once:
 * a run alone never runs beside them, nor they beside it. */
static int pg_lock(ant_store *s, int tries, int shared, lb_error *err)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	const char *sql = shared ? "SELECT pg_try_advisory_lock_shared(4242000002)"
				 : "SELECT pg_try_advisory_lock(4242000002)";
	char who[200], says[210] = "";
	int64_t got;
	int n;

	while ((got = ant_st_pragma_int(s, sql)) == 0 && tries-- > 0)
		nanosleep(&pause, NULL);
	if (got < 0)
		return ant_st_dberr(s, err, "cannot take the run lock");
	if (got) {
		s->pg_locked = shared ? 2 : 1;
		return 0;
	}
	if (!shared && (n = ant_store_lock_count(s, ANT_STORE_LOCK_RUN, 1)) > 0)
		return lb_err(err, LB_EBUSY, "%d checker%s with --lease %s sharing '%s' now: an update "
			      "there needs --lease too; anything else, run it when they are done",
			      n, n == 1 ? "" : "s", n == 1 ? "is" : "are", s->path);
	if (ant_store_lock_holder(s, ANT_STORE_LOCK_RUN, who, sizeof who))
		snprintf(says, sizeof says, " (%s)", who);
	if (shared)
		return lb_err(err, LB_EBUSY, "an antenna run without --lease holds the lock on '%s'%s: "
			      "this checker with --lease stops; give every checker of a shared database --lease",
			      s->path, says);
	return lb_err(err, LB_EBUSY, "another antenna run holds the lock on '%s'%s", s->path, says);
}

int ant_store_lock_shared(ant_store *s, int wait_seconds, lb_error *err)
{
	if (s->pg_locked || atom_db_backend(s->db) != ATOM_DB_POSTGRES)
		return 0;
	return pg_lock(s, wait_seconds * 10, 1, err);
}

int ant_store_lock(ant_store *s, int wait_seconds, lb_error *err)
{
	char *lp;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	int tries = wait_seconds * 10;

	if (s->lock_fd >= 0 || s->pg_locked)
		return 0;
	if (atom_db_backend(s->db) == ATOM_DB_POSTGRES)
		return pg_lock(s, tries, 0, err);
	if (asprintf(&lp, "%s.lock", s->path) < 0)
		return lb_err_code(err, LB_ENOMEM);
	s->lock_fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0) {
		int rc = lb_err_sys(err, "cannot open lock file '%s'", lp);

		free(lp);
		return rc;
	}
	free(lp);
	while (fcntl(s->lock_fd, F_SETLK, &fl) < 0) {
		if ((errno != EACCES && errno != EAGAIN) || tries-- <= 0) {
			close(s->lock_fd);
			s->lock_fd = -1;
			return lb_err(err, LB_EBUSY, "another antenna run holds the lock on '%s'", s->path);
		}
		nanosleep(&pause, NULL);
	}
	return 0;
}

int ant_store_begin(ant_store *s, lb_error *err)
{
	return ant_st_exec(s, "BEGIN IMMEDIATE", err);
}

int ant_store_commit(ant_store *s, lb_error *err)
{
	return ant_st_exec(s, "COMMIT", err);
}

void ant_store_rollback(ant_store *s)
{
	if (!atom_db_get_autocommit(s->db))
		atom_db_exec(s->db, "ROLLBACK");
}

int ant_store_check(ant_store *s, void (*finding)(void *ctx, const char *line), void *ctx,
		    lb_error *err)
{
	atom_db_st *st;
	size_t n = 0;
	int rc;

	if (atom_db_prepare(s->db, "PRAGMA integrity_check", &st) != ATOM_DB_OK)
		return ant_st_dberr(s, err, "cannot check");
	/* every row; one row may hold several lines (one per finding) */
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *r = (const char *)atom_db_column_text(st, 0);
		char *copy, *line, *save = NULL;

		if (r && strcmp(r, "ok") == 0)
			continue;
		if (!(copy = strdup(r ? r : "?"))) {
			atom_db_finalize(st);
			return lb_err_code(err, LB_ENOMEM);
		}
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "*** in database ", 16) == 0)
				continue;   /* a heading, no problem */
			n++;
			if (finding)
				finding(ctx, line);
		}
		free(copy);
	}
	if (rc != ATOM_DB_DONE)
		rc = ant_st_dberr(s, err, "cannot check");
	else if (n)
		rc = lb_err(err, LB_EDB, "database '%s' is damaged: %zu problem%s: restore a backup",
			    s->path, n, n == 1 ? "" : "s");
	else
		rc = 0;
	atom_db_finalize(st);
	return rc;
}

int ant_store_compact(ant_store *s, lb_error *err)
{
	int64_t mode = ant_st_pragma_int(s, "PRAGMA auto_vacuum"), free = ant_st_pragma_int(s, "PRAGMA freelist_count");
	int64_t total = ant_st_pragma_int(s, "PRAGMA page_count");
	int rc;

	if (free <= 0)
		return 0;
	if (mode == 2)   /* incremental: moves up to free pages, truncates the file */
		return ant_st_exec(s, "PRAGMA incremental_vacuum", err);
	if (mode != 0 || free < 256 || free * 4 < total)
		return 0;
	/* A file from before 0.4 (auto_vacuum off) with a quarter of it free
	 * is rewritten once, and lets go of free pages incrementally since:
	 * one VACUUM, about the time of reading and writing the file. */
	if ((rc = ant_st_exec(s, "PRAGMA auto_vacuum=INCREMENTAL", err)) < 0)
		return rc;
	return ant_st_exec(s, "VACUUM", err);
}

/* ---- sizes ---------------------------------------------------------------- */

static int64_t one_int(ant_store *s, const char *sql, const char *arg, int64_t dflt)
{
	atom_db_st *st;
	int64_t v = dflt;

	if (atom_db_prepare(s->db, sql, &st) != ATOM_DB_OK)
		return dflt;
	if (arg)
		atom_db_bind_text(st, 1, arg, -1, ATOM_DB_STATIC);
	if (atom_db_step(st) == ATOM_DB_ROW && atom_db_column_type(st, 0) != ATOM_DB_NULL)
		v = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return v;
}

void ant_store_sizes_free(ant_store_sizes *z)
{
	for (size_t i = 0; i < z->n; i++)
		free(z->t[i].name);
	free(z->t);
	memset(z, 0, sizeof *z);
}

/* dbstat (ATOM_DB_ENABLE_DBSTAT_VTAB, in Debian's build) gives the pages of
 * each b-tree; without it only the file's total is known. */
int ant_store_sizes_get(ant_store *s, ant_store_sizes *z, lb_error *err)
{
	atom_db_st *st;
	size_t cap = 0;
	int rc, pg = atom_db_backend(s->db) == ATOM_DB_POSTGRES;

	memset(z, 0, sizeof *z);
	z->page_size = ant_st_pragma_int(s, "PRAGMA page_size");
	z->pages = ant_st_pragma_int(s, "PRAGMA page_count");
	z->free_pages = ant_st_pragma_int(s, "PRAGMA freelist_count");
	if (pg)
		z->exact = 1;   /* pg_total_relation_size() */
	else if ((z->exact = atom_db_prepare(s->db, "SELECT 1 FROM dbstat LIMIT 1", &st) == ATOM_DB_OK))
		atom_db_finalize(st);
	if ((rc = ant_st_prep(s, &st, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
		       err)) < 0)
		return rc;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		ant_store_size *nt = lb_grow(z->t, &cap, z->n + 1, sizeof *nt, 16);
		char sql[256];
		const char *name = (const char *)atom_db_column_text(st, 0);

		if (!nt || !(nt[z->n].name = strdup(name ? name : ""))) {
			if (nt)
				z->t = nt;
			atom_db_finalize(st);
			ant_store_sizes_free(z);
			return lb_err_code(err, LB_ENOMEM);
		}
		z->t = nt;
		/* the name is one of sqlite_master's tables: quoted, not bound */
		snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", nt[z->n].name);
		nt[z->n].rows = strchr(nt[z->n].name, '"') ? LB_EINVAL : one_int(s, sql, NULL, LB_EDB);
		nt[z->n].bytes = !z->exact ? LB_ENOTFOUND : one_int(s, pg ?
			"SELECT pg_total_relation_size(CAST(?1 AS regclass))" :
			"SELECT sum(d.pgsize) FROM dbstat d"
			" JOIN sqlite_master m ON m.name = d.name WHERE m.tbl_name = ?1",
			nt[z->n].name, 0);
		z->n++;
	}
	atom_db_finalize(st);
	if (rc != ATOM_DB_DONE) {
		ant_store_sizes_free(z);
		return ant_st_dberr(s, err, "cannot read sizes");
	}
	return 0;
}

int64_t ant_store_sizes_rows(const ant_store_sizes *z, const char *table)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->t[i].name, table) == 0)
			return z->t[i].rows;
	return LB_ENOTFOUND;
}

int64_t ant_store_sizes_bytes(const ant_store_sizes *z, const char *table)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->t[i].name, table) == 0)
			return z->t[i].bytes;
	return LB_ENOTFOUND;
}

void ant_store_column_sizes_free(ant_store_colsize *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

static int cmp_colsize(const void *a, const void *b)
{
	const ant_store_colsize *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->name, y->name);
}

/* One sum() per column in one pass: the bytes a value takes in a record
 * (sqlite.org/fileformat2.html, "Record Format"): integers by their range
 * (0 and 1 take none), text and blobs their bytes, NULL none. */
int ant_store_column_sizes(ant_store *s, const char *table, ant_store_colsize **out, size_t *n,
			   lb_error *err)
{
	ant_store_colsize *c = NULL;
	size_t cap = 0;
	atom_db_st *st;
	lb_buf q = LB_BUF_INIT;
	int rc, oom = 0;

	*out = NULL;
	*n = 0;
	if (strchr(table, '"'))
		return lb_err(err, LB_EINVAL, "bad table name");
	if ((rc = ant_st_prep(s, &st, "SELECT name FROM pragma_table_info(?1)", err)) < 0)
		return rc;
	ant_st_bind_text(st, 1, table);
	oom |= lb_buf_adds(&q, "SELECT 0") < 0;
	while ((rc = atom_db_step(st)) == ATOM_DB_ROW) {
		const char *name = (const char *)atom_db_column_text(st, 0);
		ant_store_colsize *nc = lb_grow(c, &cap, *n + 1, sizeof *nc, 16);

		if (!nc || !name || strchr(name, '"') || !(nc[*n].name = strdup(name))) {
			c = nc ? nc : c;
			rc = ATOM_DB_NOMEM;
			break;
		}
		c = nc;
		c[(*n)++].bytes = 0;
		if (atom_db_backend(s->db) == ATOM_DB_POSTGRES)   /* the server's own measure */
			oom |= lb_buf_addf(&q, ", sum(coalesce(pg_column_size(\"%s\"), 0))", name) < 0;
		else
			oom |= lb_buf_addf(&q, ", sum(CASE typeof(\"%s\") WHEN 'null' THEN 0 WHEN 'real' THEN 8"
			    " WHEN 'integer' THEN (CASE WHEN \"%s\" IN (0, 1) THEN 0"
			    " WHEN \"%s\" BETWEEN -128 AND 127 THEN 1 WHEN \"%s\" BETWEEN -32768 AND 32767 THEN 2"
			    " WHEN \"%s\" BETWEEN -8388608 AND 8388607 THEN 3"
			    " WHEN \"%s\" BETWEEN -2147483648 AND 2147483647 THEN 4"
			    " WHEN \"%s\" BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END)"
			    " ELSE length(CAST(\"%s\" AS BLOB)) END)",
			    name, name, name, name, name, name, name, name) < 0;
	}
	atom_db_finalize(st);
	if (rc != ATOM_DB_DONE || oom) {
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		lb_buf_release(&q);
		return rc == ATOM_DB_NOMEM || oom ? lb_err_code(err, LB_ENOMEM) : ant_st_dberr(s, err, "cannot read columns");
	}
	oom |= lb_buf_addf(&q, " FROM \"%s\"", table) < 0;
	if (oom || (rc = ant_st_prep(s, &st, q.data, err)) < 0) {
		rc = oom ? lb_err_code(err, LB_ENOMEM) : rc;
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		lb_buf_release(&q);
		return rc;
	}
	lb_buf_release(&q);
	if ((rc = atom_db_step(st)) == ATOM_DB_ROW)
		for (size_t i = 0; i < *n; i++)
			c[i].bytes = atom_db_column_int64(st, (int)i + 1);
	atom_db_finalize(st);
	if (rc != ATOM_DB_ROW) {
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		return ant_st_dberr(s, err, "cannot read column sizes");
	}
	qsort(c, *n, sizeof *c, cmp_colsize);
	*out = c;
	return 0;
}

/* ---- config --------------------------------------------------------------- */

struct kv {
	const char *key, *value;
};

static void bind_kv(atom_db_st *st, const void *arg)
{
	const struct kv *kv = arg;

	ant_st_bind_text(st, 1, kv->key);
	ant_st_bind_text(st, 2, kv->value ? kv->value : "");
}

int ant_store_config_set(ant_store *s, const char *key, const char *value, lb_error *err)
{
	struct kv kv = { key, value };
	int rc = ant_st_run(s, "INSERT INTO config(key, value) VALUES(?1, ?2) "
			    "ON CONFLICT(key) DO UPDATE SET value=excluded.value", bind_kv, &kv, err);

	return rc < 0 ? rc : 0;
}

int ant_store_config_set_int(ant_store *s, const char *key, int64_t v, lb_error *err)
{
	char b[32];

	snprintf(b, sizeof b, "%lld", (long long)v);
	return ant_store_config_set(s, key, b, err);
}

char *ant_store_config_get(ant_store *s, const char *key)
{
	atom_db_st *st;
	char *v = NULL;

	if (atom_db_prepare(s->db, "SELECT value FROM config WHERE key=?1", &st) != ATOM_DB_OK)
		return NULL;
	ant_st_bind_text(st, 1, key);
	if (atom_db_step(st) == ATOM_DB_ROW)
		v = ant_st_col_dup(st, 0, 1);
	atom_db_finalize(st);
	return v;
}

int64_t ant_store_config_int(ant_store *s, const char *key, int64_t dflt)
{
	char *v = ant_store_config_get(s, key), *end;
	long long n;

	if (!v)
		return dflt;
	n = strtoll(v, &end, 10);
	if (end == v || *end)
		n = dflt;
	free(v);
	return n;
}

