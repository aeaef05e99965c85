/*
 * store.c: the antenna's SQLite state (see ant_store.h).  Every SQL statement
 * about antenna state lives in this file.
 */
#include "ant_store.h"
#include "ant_page.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lb_buf.h"
#include "lb_date.h"

struct ant_store {
	sqlite3 *db;
	char *path;
	int lock_fd;
	sqlite3_stmt *save_page;  /* prepared once: the hot path of update */
	sqlite3_stmt *put_srcrec; /* prepared once: every record a source reads */
	sqlite3_stmt *get_page;   /* prepared once: every record looks up its page */
	sqlite3_stmt *due_pages;  /* prepared once: each batch of update's pages */
	sqlite3_stmt *relay_newest; /* prepared once: every record a relay source reads */
	sqlite3_stmt *srcrec_times; /* prepared once: every record a source reads */
};

/*
 * Migrations: entry i takes the schema from version i to i+1.  Never edit
 * a released entry; append a new one and bump ANT_STORE_SCHEMA_VERSION.
 */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE pages("
	" id INTEGER PRIMARY KEY,"
	" url TEXT NOT NULL,"
	" url_key TEXT NOT NULL UNIQUE,"
	" title TEXT NOT NULL DEFAULT '',"
	" title_set_by_user INTEGER NOT NULL DEFAULT 0,"
	" author TEXT NOT NULL DEFAULT '',"
	" grp TEXT NOT NULL DEFAULT '',"
	" ignore TEXT NOT NULL DEFAULT '',"
	" etag TEXT,"
	" last_modified_header TEXT,"
	" lm_header_time INTEGER NOT NULL DEFAULT 0,"
	" last_modified INTEGER NOT NULL DEFAULT 0,"
	" last_detected INTEGER NOT NULL DEFAULT 0,"
	" last_ok INTEGER NOT NULL DEFAULT 0,"
	" last_check INTEGER NOT NULL DEFAULT 0,"
	" content_length INTEGER NOT NULL DEFAULT -1,"
	" text_hash INTEGER,"
	" charset TEXT,"
	" detected_by TEXT,"
	" source_url TEXT NOT NULL DEFAULT '',"
	" last_error TEXT,"
	" last_status INTEGER NOT NULL DEFAULT 0,"
	" next_check INTEGER NOT NULL DEFAULT 0,"
	" interval INTEGER NOT NULL DEFAULT 0,"
	" error_count INTEGER NOT NULL DEFAULT 0,"
	" recheck INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE sources("
	" id INTEGER PRIMARY KEY,"
	" url TEXT NOT NULL,"
	" url_key TEXT NOT NULL UNIQUE,"
	" etag TEXT,"
	" last_modified_header TEXT,"
	" last_error TEXT,"
	" last_status INTEGER NOT NULL DEFAULT 0,"
	" last_fetch INTEGER NOT NULL DEFAULT 0,"
	" last_ok INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL DEFAULT 0,"
	" records_read INTEGER NOT NULL DEFAULT 0,"
	" records_skipped INTEGER NOT NULL DEFAULT 0,"
	" records_merged INTEGER NOT NULL DEFAULT 0,"
	" records_ignored INTEGER NOT NULL DEFAULT 0);",
	/* 1 -> 2: antenna import: a charset the operator forces (samidare's
	 * ForceCharset), and when a page was imported (its first check is a
	 * baseline, not an update: ant_detect.h quiet_first). */
	"ALTER TABLE pages ADD COLUMN force_charset TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE pages ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;",
	/* 2 -> 3: feeds: a page's feed and its validators, the newest
	 * entry date seen, the change excerpt and the text segment hashes the
	 * next excerpt is computed against; Atom (RFC 5005) sources and the
	 * archive documents already read from them (archives never change). */
	"ALTER TABLE pages ADD COLUMN feed_url TEXT;"
	"ALTER TABLE pages ADD COLUMN feed_by_user INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN feed_etag TEXT;"
	"ALTER TABLE pages ADD COLUMN feed_lm_header TEXT;"
	"ALTER TABLE pages ADD COLUMN feed_time INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN feed_error TEXT;"
	"ALTER TABLE pages ADD COLUMN excerpt TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE pages ADD COLUMN segments BLOB;"
	"ALTER TABLE sources ADD COLUMN kind TEXT NOT NULL DEFAULT 'lirs';"
	"ALTER TABLE sources ADD COLUMN last_entry INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sources ADD COLUMN archive_head TEXT;"
	"CREATE TABLE atom_archives("
	" url TEXT PRIMARY KEY,"
	" source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,"
	" prev_url TEXT,"
	" entries INTEGER NOT NULL DEFAULT 0,"
	" read_at INTEGER NOT NULL DEFAULT 0);",
	/* 3 -> 4: per-page settings: the region watched (only:
	 * ant_page.h patterns, one per line, like ignore; "" = the whole page),
	 * automatic ignoring turned off (no_auto_ignore), and the URL fetched
	 * to check the page when it is not the page's own (check_url: tama's
	 * Check-URL, samidare's URI beside a LinkURI; NULL = url).  One
	 * statement per column: the per-page state of change detection (what
	 * was learned volatile) is appended here while 0.3 is unreleased;
	 * and what each source last said of each URL (ant_store_srcrec), so
	 * that a page added later gets the update its sources relayed. */
	"ALTER TABLE pages ADD COLUMN only TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE pages ADD COLUMN no_auto_ignore INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN check_url TEXT;"
	"CREATE TABLE source_records("
	" url_key TEXT NOT NULL,"
	" source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,"
	" url TEXT NOT NULL,"
	" last_modified INTEGER NOT NULL,"
	" last_detected INTEGER NOT NULL,"
	" title TEXT NOT NULL DEFAULT '',"
	" excerpt TEXT NOT NULL DEFAULT '',"
	" PRIMARY KEY(url_key, source_id)) WITHOUT ROWID;"
	/* what the noise-proof text rule remembers of a page (ant_detect.h
	 * ant_detect_noise_encode(): the last check's multiset of segment
	 * keys, the blocks learned volatile with when and how, the small
	 * blocks seen changing); the excerpts' segment hashes it replaces are
	 * dropped (the column stays, empty) */
	"ALTER TABLE pages ADD COLUMN noise BLOB;"
	"UPDATE pages SET segments=NULL;",
	/* 4 -> 5: relay sources ('antenna add --lirs URL --relay'): every
	 * record such a source gives is published as a relayed page, never
	 * checked here (ant_store_relay_each()); the records keep what a
	 * relayed page shows and our LIRS writes again: author and
	 * Content-Length. */
	"ALTER TABLE sources ADD COLUMN relay INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE source_records ADD COLUMN author TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE source_records ADD COLUMN content_length INTEGER NOT NULL DEFAULT 0;"
	/* hub scale (a million pages): the pages table rebuilt smaller, the
	 * columns in the same order.  url_key and source_url are NULL when
	 * they are the url (most pages: the URL was stored three times, and
	 * a fourth in the key's index); the index on the key holds a 64-bit
	 * hash of it (key_hash, the last column: key_hash() below), not the
	 * URL, and ant_store_page_add() keeps the keys unique; detected_by
	 * is a rule's number (rule_names below), not its word;
	 * last_modified_header and feed_lm_header have no type, so that a
	 * Last-Modified that is its own IMF-fixdate is kept as the Unix time
	 * (4 bytes, not 29: lm_pack()), converted when the page is next
	 * saved; the dead segments column goes. */
	"CREATE TABLE pages_v5("
	" id INTEGER PRIMARY KEY,"
	" url TEXT NOT NULL,"
	" url_key TEXT,"
	" title TEXT NOT NULL DEFAULT '',"
	" title_set_by_user INTEGER NOT NULL DEFAULT 0,"
	" author TEXT NOT NULL DEFAULT '',"
	" grp TEXT NOT NULL DEFAULT '',"
	" ignore TEXT NOT NULL DEFAULT '',"
	" etag TEXT,"
	" last_modified_header,"
	" lm_header_time INTEGER NOT NULL DEFAULT 0,"
	" last_modified INTEGER NOT NULL DEFAULT 0,"
	" last_detected INTEGER NOT NULL DEFAULT 0,"
	" last_ok INTEGER NOT NULL DEFAULT 0,"
	" last_check INTEGER NOT NULL DEFAULT 0,"
	" content_length INTEGER NOT NULL DEFAULT -1,"
	" text_hash INTEGER,"
	" charset TEXT,"
	" detected_by INTEGER,"
	" source_url TEXT,"
	" last_error TEXT,"
	" last_status INTEGER NOT NULL DEFAULT 0,"
	" next_check INTEGER NOT NULL DEFAULT 0,"
	" interval INTEGER NOT NULL DEFAULT 0,"
	" error_count INTEGER NOT NULL DEFAULT 0,"
	" recheck INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL DEFAULT 0,"
	" force_charset TEXT NOT NULL DEFAULT '',"
	" imported INTEGER NOT NULL DEFAULT 0,"
	" feed_url TEXT,"
	" feed_by_user INTEGER NOT NULL DEFAULT 0,"
	" feed_etag TEXT,"
	" feed_lm_header,"
	" feed_time INTEGER NOT NULL DEFAULT 0,"
	" feed_error TEXT,"
	" excerpt TEXT NOT NULL DEFAULT '',"
	" noise BLOB,"
	" only TEXT NOT NULL DEFAULT '',"
	" no_auto_ignore INTEGER NOT NULL DEFAULT 0,"
	" check_url TEXT,"
	" key_hash INTEGER NOT NULL DEFAULT 0);"
	"INSERT INTO pages_v5 SELECT id, url, nullif(url_key, url), title, title_set_by_user, author,"
	" grp, ignore, etag, last_modified_header, lm_header_time, last_modified, last_detected,"
	" last_ok, last_check, content_length, text_hash, charset,"
	" CASE detected_by WHEN 'header' THEN 1 WHEN 'text' THEN 2 WHEN 'size' THEN 3"
	"  WHEN 'lirs' THEN 4 WHEN 'feed' THEN 5 WHEN 'atom' THEN 6"
	"  ELSE CASE typeof(detected_by) WHEN 'integer' THEN detected_by END END,"
	" CASE WHEN source_url IN ('', url) THEN NULL ELSE source_url END,"
	" last_error, last_status, next_check, interval, error_count, recheck, created,"
	" force_charset, imported, feed_url, feed_by_user, feed_etag, feed_lm_header, feed_time,"
	" feed_error, excerpt, noise, only, no_auto_ignore, check_url,"
	" ant_key_hash(coalesce(url_key, url)) FROM pages;"
	"DROP TABLE pages;"
	"ALTER TABLE pages_v5 RENAME TO pages;"
	"CREATE INDEX pages_key ON pages(key_hash);",
};
#define NMIGRATIONS (sizeof migrations / sizeof migrations[0])

_Static_assert(NMIGRATIONS == ANT_STORE_SCHEMA_VERSION, "one migration per schema version");

/*
 * What happened, in our words, for the failures an operator meets (SQLite's
 * own text, kept as detail, says "disk I/O error" or
 * "database disk image is malformed" without the file or what to do).
 */
static int dberr(ant_store *s, lb_error *err, const char *what)
{
	int rc = sqlite3_extended_errcode(s->db), sys = sqlite3_system_errno(s->db);
	const char *lib = sqlite3_errmsg(s->db);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return lb_err(err, LB_EBUSY, "database '%s' is locked by another process, "
			      "perhaps another antenna command (%s; sqlite: %s)", s->path, what, lib);
	case SQLITE_IOERR:
		return lb_err(err, LB_EDB, "cannot read or write database '%s': %s (%s; sqlite: %s)",
			      s->path, sys ? strerror(sys) : "I/O error", what, lib);
	case SQLITE_FULL:
		return lb_err(err, LB_EDB, "disk full: cannot write database '%s' (%s; sqlite: %s)",
			      s->path, what, lib);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return lb_err(err, LB_EDB, "database '%s' is damaged: restore a backup; 'antenna "
			      "check-db' tells more (%s; sqlite: %s)", s->path, what, lib);
	case SQLITE_READONLY:
		return lb_err(err, LB_EDB, "database '%s' cannot be written: read-only file or "
			      "directory (%s; sqlite: %s)", s->path, what, lib);
	case SQLITE_NOMEM:
		return lb_err(err, LB_ENOMEM, "out of memory (%s in '%s')", what, s->path);
	default:
		return lb_err(err, LB_EDB, "%s in '%s': %s", what, s->path, lib);
	}
}

static int exec(ant_store *s, const char *sql, lb_error *err)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dberr(s, err, "database error");
	return 0;
}

static int64_t pragma_int(ant_store *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int migrate(ant_store *s, lb_error *err)
{
	int64_t v = pragma_int(s, "PRAGMA user_version");
	char sql[64];
	int rc;

	if (v < 0)
		return dberr(s, err, "cannot read schema version");
	if (v > ANT_STORE_SCHEMA_VERSION)
		return lb_err(err, LB_EINVAL, "database '%s' has schema version %lld; this antenna knows up to %d",
			      s->path, (long long)v, ANT_STORE_SCHEMA_VERSION);
	if (v == ANT_STORE_SCHEMA_VERSION)
		return 0;
	if ((rc = exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	for (; v < ANT_STORE_SCHEMA_VERSION; v++)
		if ((rc = exec(s, migrations[v], err)) < 0)
			goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d", ANT_STORE_SCHEMA_VERSION);
	if ((rc = exec(s, sql, err)) < 0 || (rc = exec(s, "COMMIT", err)) < 0)
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * The pages' key index holds a 64-bit hash of the key (FNV-1a, ant_page.h's
 * text hash), not the key: 8 bytes an entry instead of a whole URL.  Two
 * keys of one hash are told apart by the key itself (the lookups compare
 * both), so a collision costs a second row read, never a wrong page.
 */
static int64_t key_hash(const char *key)
{
	return (int64_t)ant_page_hash64(key, strlen(key));
}

/* ant_key_hash(TEXT) for the migration that fills key_hash. */
static void sql_key_hash(sqlite3_context *c, int argc, sqlite3_value **v)
{
	const unsigned char *t = sqlite3_value_text(v[0]);

	(void)argc;
	if (t)
		sqlite3_result_int64(c, key_hash((const char *)t));
	else
		sqlite3_result_null(c);
}

/* An existing file that has no antenna tables is not ours to write into. */
static int is_antenna_db(ant_store *s)
{
	return pragma_int(s, "SELECT count(*) FROM sqlite_master WHERE name='pages'") > 0 ||
	       pragma_int(s, "PRAGMA user_version") > ANT_STORE_SCHEMA_VERSION;
}

int ant_store_open(ant_store **out, const char *path, int mode, lb_error *err)
{
	ant_store *s = calloc(1, sizeof *s);
	int flags = SQLITE_OPEN_READWRITE | (mode == ANT_STORE_OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
	int rc;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return lb_err_code(err, LB_ENOMEM);
	}
	s->lock_fd = -1;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		if (mode != ANT_STORE_OPEN_CREATE && access(path, F_OK) != 0)
			rc = lb_err(err, LB_ENOTFOUND, "cannot open database '%s': %s (run 'antenna init' first)",
				    path, strerror(errno ? errno : ENOENT));
		else
			rc = lb_err(err, LB_EDB, "cannot open database '%s': %s", path,
				    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		ant_store_close(s);
		return rc;
	}
	sqlite3_busy_timeout(s->db, ANT_STORE_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 1);
	if (mode != ANT_STORE_OPEN_CREATE && !is_antenna_db(s)) {
		rc = lb_err(err, LB_EINVAL, "'%s' is not an antenna database (run 'antenna init' first)", path);
		ant_store_close(s);
		return rc;
	}
	if (sqlite3_create_function(s->db, "ant_key_hash", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    sql_key_hash, NULL, NULL) != SQLITE_OK) {
		rc = dberr(s, err, "cannot register a function");
		ant_store_close(s);
		return rc;
	}
	/* A new file lets go of the pages the history's pruning frees
	 * (ant_store_compact()); only possible before its first table. */
	if (mode == ANT_STORE_OPEN_CREATE && pragma_int(s, "SELECT count(*) FROM sqlite_master") == 0 &&
	    (rc = exec(s, "PRAGMA auto_vacuum=INCREMENTAL", err)) < 0) {
		ant_store_close(s);
		return rc;
	}
	/* WAL: readers never block the update; NORMAL sync is crash-safe in WAL. */
	if ((rc = exec(s, "PRAGMA journal_mode=WAL", err)) < 0 ||
	    (rc = exec(s, "PRAGMA synchronous=NORMAL", err)) < 0 ||
	    (rc = exec(s, "PRAGMA foreign_keys=ON", err)) < 0 ||
	    (rc = migrate(s, err)) < 0) {
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
	sqlite3_finalize(s->save_page);
	sqlite3_finalize(s->put_srcrec);
	sqlite3_finalize(s->get_page);
	sqlite3_finalize(s->due_pages);
	sqlite3_finalize(s->relay_newest);
	sqlite3_finalize(s->srcrec_times);
	sqlite3_close(s->db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	free(s);
}

struct sqlite3 *ant_store_db(ant_store *s) { return s->db; }
const char *ant_store_path(const ant_store *s) { return s->path; }

int ant_store_lock(ant_store *s, int wait_seconds, lb_error *err)
{
	char *lp;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	int tries = wait_seconds * 10;

	if (s->lock_fd >= 0)
		return 0;
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
	return exec(s, "BEGIN IMMEDIATE", err);
}

int ant_store_commit(ant_store *s, lb_error *err)
{
	return exec(s, "COMMIT", err);
}

void ant_store_rollback(ant_store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int ant_store_check(ant_store *s, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
		return dberr(s, err, "cannot check");
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(st, 0);
		if (r && strcmp(r, "ok") == 0)
			rc = 0;
		else
			rc = lb_err(err, LB_EDB, "database '%s' is damaged: %s", s->path, r ? r : "?");
	} else {
		rc = dberr(s, err, "cannot check");
	}
	sqlite3_finalize(st);
	return rc;
}

int ant_store_compact(ant_store *s, lb_error *err)
{
	int64_t mode = pragma_int(s, "PRAGMA auto_vacuum"), free = pragma_int(s, "PRAGMA freelist_count");
	int64_t total = pragma_int(s, "PRAGMA page_count");
	int rc;

	if (free <= 0)
		return 0;
	if (mode == 2)   /* incremental: moves up to free pages, truncates the file */
		return exec(s, "PRAGMA incremental_vacuum", err);
	if (mode != 0 || free < 256 || free * 4 < total)
		return 0;
	/* A file from before 0.4 (auto_vacuum off) with a quarter of it free
	 * is rewritten once, and lets go of free pages incrementally since:
	 * one VACUUM, about the time of reading and writing the file. */
	if ((rc = exec(s, "PRAGMA auto_vacuum=INCREMENTAL", err)) < 0)
		return rc;
	return exec(s, "VACUUM", err);
}

/* ---- sizes ---------------------------------------------------------------- */

static int prep(ant_store *s, sqlite3_stmt **st, const char *sql, lb_error *err);
static void bind_text(sqlite3_stmt *st, int i, const char *v);

static int64_t one_int(ant_store *s, const char *sql, const char *arg, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

void ant_store_sizes_free(ant_store_sizes *z)
{
	for (size_t i = 0; i < z->n; i++)
		free(z->t[i].name);
	free(z->t);
	memset(z, 0, sizeof *z);
}

/* dbstat (SQLITE_ENABLE_DBSTAT_VTAB, in Debian's build) gives the pages of
 * each b-tree; without it only the file's total is known. */
int ant_store_sizes_get(ant_store *s, ant_store_sizes *z, lb_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	memset(z, 0, sizeof *z);
	z->page_size = pragma_int(s, "PRAGMA page_size");
	z->pages = pragma_int(s, "PRAGMA page_count");
	z->free_pages = pragma_int(s, "PRAGMA freelist_count");
	z->exact = sqlite3_prepare_v2(s->db, "SELECT 1 FROM dbstat LIMIT 1", -1, &st, NULL) == SQLITE_OK;
	if (z->exact)
		sqlite3_finalize(st);
	if ((rc = prep(s, &st, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
		       err)) < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ant_store_size *nt = lb_grow(z->t, &cap, z->n + 1, sizeof *nt, 16);
		char sql[256];
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (!nt || !(nt[z->n].name = strdup(name ? name : ""))) {
			if (nt)
				z->t = nt;
			sqlite3_finalize(st);
			ant_store_sizes_free(z);
			return lb_err_code(err, LB_ENOMEM);
		}
		z->t = nt;
		/* the name is one of sqlite_master's tables: quoted, not bound */
		snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", nt[z->n].name);
		nt[z->n].rows = strchr(nt[z->n].name, '"') ? -1 : one_int(s, sql, NULL, -1);
		nt[z->n].bytes = z->exact ? one_int(s, "SELECT sum(d.pgsize) FROM dbstat d"
			" JOIN sqlite_master m ON m.name = d.name WHERE m.tbl_name = ?1",
			nt[z->n].name, 0) : -1;
		z->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		ant_store_sizes_free(z);
		return dberr(s, err, "cannot read sizes");
	}
	return 0;
}

int64_t ant_store_sizes_rows(const ant_store_sizes *z, const char *table)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->t[i].name, table) == 0)
			return z->t[i].rows;
	return -1;
}

int64_t ant_store_sizes_bytes(const ant_store_sizes *z, const char *table)
{
	for (size_t i = 0; i < z->n; i++)
		if (strcmp(z->t[i].name, table) == 0)
			return z->t[i].bytes;
	return -1;
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
	sqlite3_stmt *st;
	lb_buf q = LB_BUF_INIT;
	int rc, oom = 0;

	*out = NULL;
	*n = 0;
	if (strchr(table, '"'))
		return lb_err(err, LB_EINVAL, "bad table name");
	if ((rc = prep(s, &st, "SELECT name FROM pragma_table_info(?1)", err)) < 0)
		return rc;
	bind_text(st, 1, table);
	oom |= lb_buf_adds(&q, "SELECT 0") < 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		ant_store_colsize *nc = lb_grow(c, &cap, *n + 1, sizeof *nc, 16);

		if (!nc || !name || strchr(name, '"') || !(nc[*n].name = strdup(name))) {
			c = nc ? nc : c;
			rc = SQLITE_NOMEM;
			break;
		}
		c = nc;
		c[(*n)++].bytes = 0;
		oom |= lb_buf_addf(&q, ", sum(CASE typeof(\"%s\") WHEN 'null' THEN 0 WHEN 'real' THEN 8"
			    " WHEN 'integer' THEN (CASE WHEN \"%s\" IN (0, 1) THEN 0"
			    " WHEN \"%s\" BETWEEN -128 AND 127 THEN 1 WHEN \"%s\" BETWEEN -32768 AND 32767 THEN 2"
			    " WHEN \"%s\" BETWEEN -8388608 AND 8388607 THEN 3"
			    " WHEN \"%s\" BETWEEN -2147483648 AND 2147483647 THEN 4"
			    " WHEN \"%s\" BETWEEN -140737488355328 AND 140737488355327 THEN 6 ELSE 8 END)"
			    " ELSE length(CAST(\"%s\" AS BLOB)) END)",
			    name, name, name, name, name, name, name, name) < 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || oom) {
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		lb_buf_release(&q);
		return rc == SQLITE_NOMEM || oom ? lb_err_code(err, LB_ENOMEM) : dberr(s, err, "cannot read columns");
	}
	oom |= lb_buf_addf(&q, " FROM \"%s\"", table) < 0;
	if (oom || (rc = prep(s, &st, q.data, err)) < 0) {
		rc = oom ? lb_err_code(err, LB_ENOMEM) : rc;
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		lb_buf_release(&q);
		return rc;
	}
	lb_buf_release(&q);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (size_t i = 0; i < *n; i++)
			c[i].bytes = sqlite3_column_int64(st, (int)i + 1);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		ant_store_column_sizes_free(c, *n);
		*n = 0;
		return dberr(s, err, "cannot read column sizes");
	}
	qsort(c, *n, sizeof *c, cmp_colsize);
	*out = c;
	return 0;
}

/* ---- statement helpers ------------------------------------------------- */

static int prep(ant_store *s, sqlite3_stmt **st, const char *sql, lb_error *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return dberr(s, err, "database error");
	return 0;
}

/* Binds a string, or NULL as SQL NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static char *col_dup(sqlite3_stmt *st, int i, int keep_null)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	if (!t)
		return keep_null ? NULL : strdup("");
	return strdup((const char *)t);
}

/* Runs a statement that returns no rows; returns changes or -1. */
static int step_done(ant_store *s, sqlite3_stmt *st, lb_error *err)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE) {
		if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			return LB_EEXIST;   /* no message: the callers say 1 */
		return dberr(s, err, "database error");
	}
	return sqlite3_changes(s->db);
}

/* A statement run once per page or record in a batch: prepared on first
 * use into *slot (closed with the store) and reset for new bindings. */
static int cached(ant_store *s, sqlite3_stmt **slot, const char *sql, lb_error *err)
{
	int rc;

	if (!*slot && (rc = prep(s, slot, sql, err)) < 0)
		return rc;
	sqlite3_reset(*slot);
	return 0;
}

/* Runs a cached() statement to its end and lets go of its bindings (they
 * may point into the caller's strings). */
static int run_cached(ant_store *s, sqlite3_stmt *st, lb_error *err)
{
	int rc = step_done(s, st, err);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc < 0 ? rc : 0;
}

/* ---- config --------------------------------------------------------------- */

int ant_store_config_set(ant_store *s, const char *key, const char *value, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "INSERT INTO config(key, value) VALUES(?1, ?2) "
		       "ON CONFLICT(key) DO UPDATE SET value=excluded.value", err)) < 0)
		return rc;
	bind_text(st, 1, key);
	bind_text(st, 2, value ? value : "");
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
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
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(s->db, "SELECT value FROM config WHERE key=?1", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	bind_text(st, 1, key);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = col_dup(st, 0, 1);
	sqlite3_finalize(st);
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

/* ---- pages ------------------------------------------------------------------ */

#define PAGE_COLS \
	"id, url, url_key, title, title_set_by_user, author, grp, ignore, etag," \
	" last_modified_header, lm_header_time, last_modified, last_detected, last_ok," \
	" last_check, content_length, text_hash, charset, detected_by, source_url," \
	" last_error, last_status, next_check, interval, error_count, recheck, created," \
	" force_charset, imported," \
	" feed_url, feed_by_user, feed_etag, feed_lm_header, feed_time, feed_error, excerpt," \
	" noise, only, no_auto_ignore, check_url"

void ant_store_page_init(ant_store_page *p)
{
	memset(p, 0, sizeof *p);
	ant_detect_state_init(&p->st);
}

void ant_store_page_release(ant_store_page *p)
{
	free(p->url); free(p->url_key); free(p->title); free(p->author);
	free(p->group); free(p->ignore); free(p->etag); free(p->lm_header);
	free(p->charset); free(p->source_url); free(p->last_error);
	free(p->force_charset);
	free(p->feed_url); free(p->feed_etag); free(p->feed_lm_header); free(p->feed_error);
	free(p->excerpt); free(p->noise);
	free(p->only); free(p->check_url);
	ant_store_page_init(p);
}

/* detected_by: one of ant_detect.h's static strings, stored as its number
 * here (1-based; schema 5) or, written before, as the word. */
static const char *const rule_names[] = { "header", "text", "size", "lirs", "feed", "atom" };
#define NRULES (sizeof rule_names / sizeof rule_names[0])

static const char *rule_name(sqlite3_stmt *st, int i)
{
	const unsigned char *t;

	if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
		int64_t k = sqlite3_column_int64(st, i);
		return k >= 1 && k <= (int64_t)NRULES ? rule_names[k - 1] : NULL;
	}
	t = sqlite3_column_text(st, i);
	for (size_t k = 0; t && k < NRULES; k++)
		if (strcmp((const char *)t, rule_names[k]) == 0)
			return rule_names[k];
	return NULL;
}

static void bind_rule(sqlite3_stmt *st, int i, const char *rule)
{
	for (size_t k = 0; rule && k < NRULES; k++)
		if (strcmp(rule, rule_names[k]) == 0) {
			sqlite3_bind_int(st, i, (int)k + 1);
			return;
		}
	sqlite3_bind_null(st, i);
}

/*
 * A Last-Modified validator is sent back verbatim (If-Modified-Since), so
 * it must come back byte for byte; but nearly every server sends the
 * IMF-fixdate, 29 bytes that say a 4-byte time.  Such a header is stored
 * as that time and formatted again when read; any other spelling stays
 * text.  The round trip through lb_date_imf() is the test: what is
 * stored as a number is exactly what formats back.
 */
static int lm_pack(const char *h, int64_t *t)
{
	char wd[4], mon[4], back[30];
	int d, y, hh, mm, ss, m, n = 0;

	if (!h || strlen(h) != 29 ||
	    sscanf(h, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", wd, &d, mon, &y, &hh, &mm,
		   &ss, &n) != 7 || n != 29 || !(m = lb_date_month(mon)) ||
	    !lb_date_valid(y, m, d, hh, mm, ss))
		return 0;
	*t = lb_days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
	return lb_date_imf(back, *t) == 0 && strcmp(back, h) == 0;
}

static void bind_lm(sqlite3_stmt *st, int i, const char *h)
{
	int64_t t;

	if (lm_pack(h, &t))
		sqlite3_bind_int64(st, i, t);
	else
		bind_text(st, i, h);
}

/* A validator column back as the header's text: NULL stays NULL. */
static char *lm_dup(sqlite3_stmt *st, int i)
{
	char b[30];

	if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		return lb_date_imf(b, sqlite3_column_int64(st, i)) == 0 ? strdup(b) : strdup("");
	return col_dup(st, i, 1);
}

/* url_key and source_url are NULL when they are the url (schema 5). */
static char *or_url(sqlite3_stmt *st, int i, const char *url)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? (url ? strdup(url) : NULL) : col_dup(st, i, 0);
}

static void bind_unless_url(sqlite3_stmt *st, int i, const char *v, const char *url)
{
	bind_text(st, i, v && *v && (!url || strcmp(v, url) != 0) ? v : NULL);
}

/* A BLOB column as a malloc'd copy (NULL when empty); -1 out of memory. */
static int blob_dup(sqlite3_stmt *st, int i, unsigned char **out, size_t *n)
{
	const void *b = sqlite3_column_blob(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i);

	*out = NULL;
	*n = 0;
	if (!b || !len)
		return 0;
	if (!(*out = malloc(len)))
		return -1;
	memcpy(*out, b, len);
	*n = len;
	return 0;
}

/* row: an ant_store_page (void: load_rows reads any table with it) */
static int page_from_row(sqlite3_stmt *st, void *row)
{
	ant_store_page *p = row;

	ant_store_page_init(p);
	p->id = sqlite3_column_int64(st, 0);
	p->url = col_dup(st, 1, 0);
	p->url_key = or_url(st, 2, p->url);
	p->title = col_dup(st, 3, 0);
	p->title_set_by_user = sqlite3_column_int(st, 4);
	p->author = col_dup(st, 5, 0);
	p->group = col_dup(st, 6, 0);
	p->ignore = col_dup(st, 7, 0);
	p->etag = col_dup(st, 8, 1);
	p->lm_header = lm_dup(st, 9);
	p->st.lm_header_time = sqlite3_column_int64(st, 10);
	p->st.last_modified = sqlite3_column_int64(st, 11);
	p->st.last_detected = sqlite3_column_int64(st, 12);
	p->st.last_ok = sqlite3_column_int64(st, 13);
	p->st.last_check = sqlite3_column_int64(st, 14);
	p->st.content_length = sqlite3_column_int64(st, 15);
	p->st.has_hash = sqlite3_column_type(st, 16) != SQLITE_NULL;
	p->st.text_hash = (uint64_t)sqlite3_column_int64(st, 16);
	p->charset = col_dup(st, 17, 1);
	p->st.detected_by = rule_name(st, 18);
	p->source_url = or_url(st, 19, p->url);
	p->last_error = col_dup(st, 20, 1);
	p->st.last_status = sqlite3_column_int(st, 21);
	p->st.next_check = sqlite3_column_int64(st, 22);
	p->st.interval = sqlite3_column_int64(st, 23);
	p->st.error_count = sqlite3_column_int(st, 24);
	p->st.recheck = sqlite3_column_int(st, 25);
	p->created = sqlite3_column_int64(st, 26);
	p->force_charset = col_dup(st, 27, 0);
	p->imported = sqlite3_column_int64(st, 28);
	p->st.quiet_first = p->imported != 0;
	p->feed_url = col_dup(st, 29, 1);
	p->feed_by_user = sqlite3_column_int(st, 30);
	p->feed_etag = col_dup(st, 31, 1);
	p->feed_lm_header = lm_dup(st, 32);
	p->st.feed_time = sqlite3_column_int64(st, 33);
	p->feed_error = col_dup(st, 34, 1);
	p->excerpt = col_dup(st, 35, 0);
	p->only = col_dup(st, 37, 0);
	p->no_auto_ignore = sqlite3_column_int(st, 38);
	p->check_url = col_dup(st, 39, 1);
	if (blob_dup(st, 36, &p->noise, &p->noise_len) < 0 || !p->url || !p->url_key || !p->title ||
	    !p->author || !p->group || !p->ignore || !p->source_url || !p->excerpt || !p->force_charset ||
	    !p->only) {
		ant_store_page_release(p);
		return -1;
	}
	return 0;
}

/* 1 when a page of url_key is there, 0 not, < 0 error. */
static int page_exists(ant_store *s, const char *url_key, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "SELECT 1 FROM pages WHERE key_hash=?1 AND coalesce(url_key, url)=?2",
		       err)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, key_hash(url_key));
	bind_text(st, 2, url_key);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
	sqlite3_finalize(st);
	return rc;
}

int ant_store_page_add(ant_store *s, const ant_store_page *p, lb_error *err)
{
	sqlite3_stmt *st;
	int rc, own = sqlite3_get_autocommit(s->db);

	/* One page per key: the index is on the key's hash, not unique, so
	 * the check and the insert are one transaction (the caller's, or
	 * ours) that no other process can slip a page into. */
	if (own && (rc = exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((rc = page_exists(s, p->url_key, err)) != 0)
		goto done;
	if ((rc = prep(s, &st, "INSERT INTO pages(url, url_key, title, title_set_by_user, author,"
		       " grp, ignore, source_url, created, feed_url, feed_by_user, force_charset, imported,"
		       " only, no_auto_ignore, check_url, key_hash)"
		       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
		       err)) < 0)
		goto done;
	bind_text(st, 14, p->only ? p->only : "");
	sqlite3_bind_int(st, 15, p->no_auto_ignore);
	bind_text(st, 16, p->check_url && *p->check_url ? p->check_url : NULL);
	bind_text(st, 12, p->force_charset ? p->force_charset : "");
	sqlite3_bind_int64(st, 13, p->imported);
	bind_text(st, 1, p->url);
	bind_unless_url(st, 2, p->url_key, p->url);
	bind_text(st, 3, p->title ? p->title : "");
	sqlite3_bind_int(st, 4, p->title_set_by_user);
	bind_text(st, 5, p->author ? p->author : "");
	bind_text(st, 6, p->group ? p->group : "");
	bind_text(st, 7, p->ignore ? p->ignore : "");
	bind_unless_url(st, 8, p->source_url, p->url);
	sqlite3_bind_int64(st, 9, p->created);
	bind_text(st, 10, p->feed_url);
	sqlite3_bind_int(st, 11, p->feed_by_user);
	sqlite3_bind_int64(st, 17, key_hash(p->url_key));
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	rc = rc < 0 ? rc : 0;
done:
	if (own) {
		int c = rc >= 0 ? exec(s, "COMMIT", err) : 0;

		if (rc >= 0 && c == 0)
			return rc;
		ant_store_rollback(s);
		rc = rc < 0 ? rc : c;
	}
	return rc;
}

static int remove_by_key(ant_store *s, const char *sql, const char *key, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, sql, err)) < 0)
		return rc;
	bind_text(st, 1, key);
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc < 0 ? -1 : rc > 0;
}

int ant_store_page_remove(ant_store *s, const char *url_key, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "DELETE FROM pages WHERE key_hash=?2 AND coalesce(url_key, url)=?1",
		       err)) < 0)
		return rc;
	bind_text(st, 1, url_key);
	sqlite3_bind_int64(st, 2, key_hash(url_key));
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc < 0 ? -1 : rc > 0;
}

int ant_store_page_get(ant_store *s, const char *url_key, ant_store_page *out, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	/* cached: an update looks up the page of every record its sources
	 * give (the key_hash index), instead of holding every page */
	ant_store_page_init(out);
	if ((rc = cached(s, &s->get_page, "SELECT " PAGE_COLS " FROM pages WHERE key_hash=?2 AND"
			 " coalesce(url_key, url)=?1", err)) < 0)
		return rc;
	st = s->get_page;
	bind_text(st, 1, url_key);
	sqlite3_bind_int64(st, 2, key_hash(url_key));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rc = page_from_row(st, out) < 0 ? lb_err_code(err, LB_ENOMEM) : 1;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = dberr(s, err, "database error");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

/* Every page of sql (one row of PAGE_COLS at a time) to fn. */
static int pages_walk(ant_store *s, const char *sql, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	sqlite3_stmt *st;
	ant_store_page p;
	int rc;

	if ((rc = prep(s, &st, sql, err)) < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (page_from_row(st, &p) < 0) {
			sqlite3_finalize(st);
			return lb_err_code(err, LB_ENOMEM);
		}
		rc = fn(ctx, &p);
		ant_store_page_release(&p);
		if (rc != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
	sqlite3_finalize(st);
	return rc;
}

/* ORDER BY: SQLite's sorter spills to a temporary file past its cache,
 * so memory stays bounded however many pages there are; BINARY collation
 * is strcmp(): the byte order of the URLs, as export and list always had. */
int ant_store_pages_each(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	return pages_walk(s, "SELECT " PAGE_COLS " FROM pages ORDER BY url", fn, ctx, err);
}

int ant_store_pages_each_grouped(ant_store *s, ant_store_page_fn fn, void *ctx, lb_error *err)
{
	return pages_walk(s, "SELECT " PAGE_COLS " FROM pages ORDER BY grp, url", fn, ctx, err);
}

int ant_store_pages_due(ant_store *s, int64_t after, int64_t now, int force, ant_store_page *out,
			size_t max, size_t *n, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	/* keyset pagination by id (the rowid: a range scan, no sort), so
	 * that the batches of a run are one pass over the table; the rule
	 * of ant_detect_due() */
	*n = 0;
	if ((rc = cached(s, &s->due_pages, "SELECT " PAGE_COLS " FROM pages WHERE id > ?1"
			 " AND (?2 OR recheck OR next_check <= ?3) ORDER BY id LIMIT ?4", err)) < 0)
		return rc;
	st = s->due_pages;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, force != 0);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)max);
	while (*n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (page_from_row(st, &out[*n]) < 0) {
			rc = lb_err_code(err, LB_ENOMEM);
			break;
		}
		(*n)++;
	}
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	else if (rc != LB_ENOMEM)
		rc = dberr(s, err, "database error");
	sqlite3_reset(st);
	if (rc < 0) {
		while (*n)
			ant_store_page_release(&out[--(*n)]);
	}
	return rc;
}

int ant_store_pages_count(ant_store *s, int64_t *n, int64_t *first_due, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "SELECT count(*), min(next_check) FROM pages", err)) < 0)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		*first_due = sqlite3_column_int64(st, 1);   /* NULL (no page): 0 */
		rc = 0;
	} else {
		rc = dberr(s, err, "database error");
	}
	sqlite3_finalize(st);
	return rc;
}

void ant_store_pages_free(ant_store_page *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ant_store_page_release(&p[i]);
	free(p);
}

/* One row reader, one free for a whole array: what load_rows needs to read
 * any table into an array of its structs. */
typedef int (*row_reader)(sqlite3_stmt *st, void *elem);
typedef void (*rows_freer)(void *v, size_t n);

struct row_kind {
	size_t size;	/* one element */
	size_t first;	/* first allocation, in elements */
	row_reader read;
	rows_freer free_all;
};

/* Every row of sql into a fresh array of k->size elements.  On an error
 * nothing is left allocated and *out stays NULL. */
static int load_rows(ant_store *s, const char *sql, const struct row_kind *k, void **out,
		     size_t *n, lb_error *err)
{
	sqlite3_stmt *st;
	char *v = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = prep(s, &st, sql, err)) < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *nv = lb_grow(v, &cap, len + 1, k->size, k->first);
		if (!nv)
			goto nomem;
		v = nv;
		if (k->read(st, v + len * k->size) < 0)
			goto nomem;
		len++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		k->free_all(v, len);
		return dberr(s, err, "database error");
	}
	*out = v;
	*n = len;
	return 0;
nomem:
	sqlite3_finalize(st);
	k->free_all(v, len);
	return lb_err_code(err, LB_ENOMEM);
}

int ant_store_page_save(ant_store *s, const ant_store_page *p, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = cached(s, &s->save_page, "UPDATE pages SET title=?2, etag=?3, last_modified_header=?4,"
		       " lm_header_time=?5, last_modified=?6, last_detected=?7, last_ok=?8, last_check=?9,"
		       " content_length=?10, text_hash=?11, charset=?12, detected_by=?13, source_url=?14,"
		       " last_error=?15, last_status=?16, next_check=?17, interval=?18, error_count=?19,"
		       " recheck=?20, feed_url=?21, feed_etag=?22, feed_lm_header=?23, feed_time=?24,"
		       " feed_error=?25, excerpt=?26, noise=?27 WHERE id=?1", err)) < 0)
		return rc;
	st = s->save_page;
	sqlite3_bind_int64(st, 1, p->id);
	bind_text(st, 2, p->title ? p->title : "");
	bind_text(st, 3, p->etag);
	bind_lm(st, 4, p->lm_header);
	sqlite3_bind_int64(st, 5, p->st.lm_header_time);
	sqlite3_bind_int64(st, 6, p->st.last_modified);
	sqlite3_bind_int64(st, 7, p->st.last_detected);
	sqlite3_bind_int64(st, 8, p->st.last_ok);
	sqlite3_bind_int64(st, 9, p->st.last_check);
	sqlite3_bind_int64(st, 10, p->st.content_length);
	if (p->st.has_hash)
		sqlite3_bind_int64(st, 11, (int64_t)p->st.text_hash);
	else
		sqlite3_bind_null(st, 11);
	bind_text(st, 12, p->charset);
	bind_rule(st, 13, p->st.detected_by);
	bind_unless_url(st, 14, p->source_url, p->url);
	bind_text(st, 15, p->last_error);
	sqlite3_bind_int64(st, 16, p->st.last_status);
	sqlite3_bind_int64(st, 17, p->st.next_check);
	sqlite3_bind_int64(st, 18, p->st.interval);
	sqlite3_bind_int(st, 19, p->st.error_count);
	sqlite3_bind_int(st, 20, p->st.recheck);
	bind_text(st, 21, p->feed_url);
	bind_text(st, 22, p->feed_etag);
	bind_lm(st, 23, p->feed_lm_header);
	sqlite3_bind_int64(st, 24, p->st.feed_time);
	bind_text(st, 25, p->feed_error);
	bind_text(st, 26, p->excerpt ? p->excerpt : "");
	if (p->noise_len)
		sqlite3_bind_blob(st, 27, p->noise, (int)p->noise_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 27);
	return run_cached(s, st, err);
}

int ant_store_page_set_config(ant_store *s, const ant_store_page *p, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "UPDATE pages SET title=?2, title_set_by_user=?3, author=?4, grp=?5,"
		       " ignore=?6, force_charset=?7, only=?8, no_auto_ignore=?9, check_url=?10,"
		       " feed_url=?11, feed_by_user=?12 WHERE id=?1", err)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, p->id);
	bind_text(st, 2, p->title ? p->title : "");
	sqlite3_bind_int(st, 3, p->title_set_by_user);
	bind_text(st, 4, p->author ? p->author : "");
	bind_text(st, 5, p->group ? p->group : "");
	bind_text(st, 6, p->ignore ? p->ignore : "");
	bind_text(st, 7, p->force_charset ? p->force_charset : "");
	bind_text(st, 8, p->only ? p->only : "");
	sqlite3_bind_int(st, 9, p->no_auto_ignore);
	bind_text(st, 10, p->check_url && *p->check_url ? p->check_url : NULL);
	bind_text(st, 11, p->feed_url && *p->feed_url ? p->feed_url : NULL);
	sqlite3_bind_int(st, 12, p->feed_by_user);
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int ant_store_page_rebaseline(ant_store *s, int64_t id, unsigned what, lb_error *err)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (what & ANT_REBASE_TEXT) {
		/* No fingerprint to compare with: the next check takes one and
		 * announces nothing (ant_detect.h: no text hash, no size, no noise
		 * state; what was learned volatile goes with it).  Without
		 * validators the next answer is a 200, not a 304 that would put
		 * the new baseline off. */
		if ((rc = prep(s, &st, "UPDATE pages SET text_hash=NULL, content_length=-1,"
			       " noise=NULL, etag=NULL, last_modified_header=NULL, next_check=0 WHERE id=?1",
			       err)) < 0)
			return rc;
		sqlite3_bind_int64(st, 1, id);
		rc = step_done(s, st, err);
		sqlite3_finalize(st);
		if (rc < 0)
			return rc;
	}
	if (what & ANT_REBASE_FEED) {
		/* Another feed: what the old one said is not comparable. */
		if ((rc = prep(s, &st, "UPDATE pages SET feed_etag=NULL, feed_lm_header=NULL, feed_time=0,"
			       " feed_error=NULL, next_check=0 WHERE id=?1", err)) < 0)
			return rc;
		sqlite3_bind_int64(st, 1, id);
		rc = step_done(s, st, err);
		sqlite3_finalize(st);
	}
	return rc < 0 ? rc : 0;
}

/* ---- sources --------------------------------------------------------------- */

#define SOURCE_COLS \
	"id, url, url_key, etag, last_modified_header, last_error, last_status," \
	" last_fetch, last_ok, created, records_read, records_skipped, records_merged," \
	" records_ignored, kind, last_entry, archive_head, relay"

void ant_store_source_init(ant_store_source *p)
{
	memset(p, 0, sizeof *p);
}

void ant_store_source_release(ant_store_source *p)
{
	free(p->url); free(p->url_key); free(p->etag); free(p->lm_header);
	free(p->last_error); free(p->archive_head);
	ant_store_source_init(p);
}

void ant_store_sources_free(ant_store_source *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ant_store_source_release(&p[i]);
	free(p);
}

static int store_source_kind(const unsigned char *t)
{
	return t && strcmp((const char *)t, "atom") == 0 ? ANT_STORE_SOURCE_ATOM : ANT_STORE_SOURCE_LIRS;
}

/* row: an ant_store_source (void: load_rows reads any table with it) */
static int source_from_row(sqlite3_stmt *st, void *row)
{
	ant_store_source *p = row;

	ant_store_source_init(p);
	p->id = sqlite3_column_int64(st, 0);
	p->url = col_dup(st, 1, 0);
	p->url_key = col_dup(st, 2, 0);
	p->etag = col_dup(st, 3, 1);
	p->lm_header = col_dup(st, 4, 1);
	p->last_error = col_dup(st, 5, 1);
	p->last_status = sqlite3_column_int(st, 6);
	p->last_fetch = sqlite3_column_int64(st, 7);
	p->last_ok = sqlite3_column_int64(st, 8);
	p->created = sqlite3_column_int64(st, 9);
	p->records_read = sqlite3_column_int64(st, 10);
	p->records_skipped = sqlite3_column_int64(st, 11);
	p->records_merged = sqlite3_column_int64(st, 12);
	p->records_ignored = sqlite3_column_int64(st, 13);
	p->kind = store_source_kind(sqlite3_column_text(st, 14));
	p->last_entry = sqlite3_column_int64(st, 15);
	p->archive_head = col_dup(st, 16, 1);
	p->relay = sqlite3_column_int(st, 17);
	if (!p->url || !p->url_key) {
		ant_store_source_release(p);
		return -1;
	}
	return 0;
}

int ant_store_source_add(ant_store *s, const ant_store_source *p, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "INSERT INTO sources(url, url_key, created, kind, relay)"
		       " VALUES(?1,?2,?3,?4,?5)",
		       err)) < 0)
		return rc;
	bind_text(st, 1, p->url);
	bind_text(st, 2, p->url_key);
	sqlite3_bind_int64(st, 3, p->created);
	bind_text(st, 4, p->kind == ANT_STORE_SOURCE_ATOM ? "atom" : "lirs");
	sqlite3_bind_int(st, 5, p->relay != 0);
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc == LB_EEXIST ? 1 : rc < 0 ? rc : 0;
}

int ant_store_source_remove(ant_store *s, const char *url_key, lb_error *err)
{
	return remove_by_key(s, "DELETE FROM sources WHERE url_key=?1", url_key, err);
}

static void sources_free(void *v, size_t n)
{
	ant_store_sources_free(v, n);
}

int ant_store_sources_load(ant_store *s, ant_store_source **out, size_t *n, lb_error *err)
{
	static const struct row_kind sources = { sizeof **out, 8, source_from_row, sources_free };
	void *v;
	int rc;

	rc = load_rows(s, "SELECT " SOURCE_COLS " FROM sources ORDER BY url", &sources, &v, n, err);
	*out = v;
	return rc;
}

int ant_store_source_save(ant_store *s, const ant_store_source *p, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "UPDATE sources SET etag=?2, last_modified_header=?3, last_error=?4,"
		       " last_status=?5, last_fetch=?6, last_ok=?7, records_read=?8, records_skipped=?9,"
		       " records_merged=?10, records_ignored=?11, last_entry=?12, archive_head=?13"
		       " WHERE id=?1", err)) < 0)
		return rc;
	sqlite3_bind_int64(st, 1, p->id);
	bind_text(st, 2, p->etag);
	bind_text(st, 3, p->lm_header);
	bind_text(st, 4, p->last_error);
	sqlite3_bind_int64(st, 5, p->last_status);
	sqlite3_bind_int64(st, 6, p->last_fetch);
	sqlite3_bind_int64(st, 7, p->last_ok);
	sqlite3_bind_int64(st, 8, p->records_read);
	sqlite3_bind_int64(st, 9, p->records_skipped);
	sqlite3_bind_int64(st, 10, p->records_merged);
	sqlite3_bind_int64(st, 11, p->records_ignored);
	sqlite3_bind_int64(st, 12, p->last_entry);
	bind_text(st, 13, p->archive_head);
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

/* ---- RFC 5005 archives read from Atom sources ---------------------------- */

int ant_store_archive_get(ant_store *s, int64_t source_id, const char *url, char **prev,
		      lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*prev = NULL;
	if ((rc = prep(s, &st, "SELECT prev_url FROM atom_archives WHERE url=?1 AND source_id=?2",
		       err)) < 0)
		return rc;
	bind_text(st, 1, url);
	sqlite3_bind_int64(st, 2, source_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*prev = col_dup(st, 0, 1);
		rc = sqlite3_column_type(st, 0) != SQLITE_NULL && !*prev ? -1 : 1;
		sqlite3_finalize(st);
		if (rc < 0)
			lb_err_code(err, LB_ENOMEM);
		return rc;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
}

int ant_store_archive_add(ant_store *s, int64_t source_id, const char *url, const char *prev_url,
		      int64_t entries, int64_t now, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "INSERT OR REPLACE INTO atom_archives(url, source_id, prev_url, entries,"
		       " read_at) VALUES(?1,?2,?3,?4,?5)", err)) < 0)
		return rc;
	bind_text(st, 1, url);
	sqlite3_bind_int64(st, 2, source_id);
	bind_text(st, 3, prev_url);
	sqlite3_bind_int64(st, 4, entries);
	sqlite3_bind_int64(st, 5, now);
	rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc < 0 ? rc : 0;
}

int64_t ant_store_archive_count(ant_store *s, int64_t source_id)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM atom_archives WHERE source_id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, source_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* ---- what the sources said, per URL ---------------------------------------- */

int ant_store_srcrec_put(ant_store *s, const ant_store_srcrec *r, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = cached(s, &s->put_srcrec, "INSERT INTO source_records(url_key, source_id, url,"
		       " last_modified, last_detected, title, excerpt, author, content_length)"
		       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)"
		       " ON CONFLICT(url_key, source_id) DO UPDATE SET url=excluded.url,"
		       " last_modified=excluded.last_modified, last_detected=excluded.last_detected,"
		       " title=excluded.title, excerpt=excluded.excerpt, author=excluded.author,"
		       " content_length=excluded.content_length"
		       " WHERE excluded.last_modified > last_modified OR"
		       " (excluded.last_modified = last_modified AND"
		       "  excluded.last_detected > last_detected)", err)) < 0)
		return rc;
	st = s->put_srcrec;
	bind_text(st, 1, r->url_key);
	sqlite3_bind_int64(st, 2, r->source_id);
	bind_text(st, 3, r->url);
	sqlite3_bind_int64(st, 4, r->last_modified);
	sqlite3_bind_int64(st, 5, r->last_detected);
	bind_text(st, 6, r->title ? r->title : "");
	bind_text(st, 7, r->excerpt ? r->excerpt : "");
	bind_text(st, 8, r->author ? r->author : "");
	sqlite3_bind_int64(st, 9, r->content_length > 0 ? r->content_length : 0);
	return run_cached(s, st, err);
}

int64_t ant_store_srcrec_prune(ant_store *s, int64_t source_id, int64_t detected_before,
			       int64_t keep, lb_error *err)
{
	sqlite3_stmt *st;
	int64_t gone = 0;
	int rc;

	if (detected_before > 0) {
		if ((rc = prep(s, &st, "DELETE FROM source_records WHERE source_id=?1 AND"
			       " last_detected < ?2", err)) < 0)
			return rc;
		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, detected_before);
		rc = step_done(s, st, err);
		sqlite3_finalize(st);
		if (rc < 0)
			return rc;
		gone += rc;
	}
	if (keep >= 0) {
		if ((rc = prep(s, &st, "DELETE FROM source_records WHERE source_id=?1 AND url_key IN"
			       " (SELECT url_key FROM source_records WHERE source_id=?1"
			       "  ORDER BY last_modified DESC, url_key LIMIT -1 OFFSET ?2)", err)) < 0)
			return rc;
		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, keep);
		rc = step_done(s, st, err);
		sqlite3_finalize(st);
		if (rc < 0)
			return rc;
		gone += rc;
	}
	return gone;
}

int ant_store_srcrec_each(ant_store *s, const char *url_key, ant_store_srcrec_fn fn, void *ctx,
			  lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prep(s, &st, "SELECT r.source_id, s.kind, s.url, r.url, r.last_modified,"
		       " r.last_detected, r.title, r.excerpt, r.author, r.content_length, s.relay"
		       " FROM source_records r"
		       " JOIN sources s ON s.id = r.source_id WHERE r.url_key=?1"
		       " ORDER BY r.last_modified DESC, s.url", err)) < 0)
		return rc;
	bind_text(st, 1, url_key);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t;
		ant_store_srcrec r = { .url_key = url_key };
		r.source_id = sqlite3_column_int64(st, 0);
		r.source_kind = store_source_kind(sqlite3_column_text(st, 1));
		r.source_url = (t = (const char *)sqlite3_column_text(st, 2)) ? t : "";
		r.url = (t = (const char *)sqlite3_column_text(st, 3)) ? t : "";
		r.last_modified = sqlite3_column_int64(st, 4);
		r.last_detected = sqlite3_column_int64(st, 5);
		r.title = (t = (const char *)sqlite3_column_text(st, 6)) ? t : "";
		r.excerpt = (t = (const char *)sqlite3_column_text(st, 7)) ? t : "";
		r.author = (t = (const char *)sqlite3_column_text(st, 8)) ? t : "";
		r.content_length = sqlite3_column_int64(st, 9);
		r.source_relay = sqlite3_column_int(st, 10);
		if ((rc = fn(ctx, &r)) != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
}

int64_t ant_store_srcrec_count(ant_store *s, int64_t source_id)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM source_records WHERE source_id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, source_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int ant_store_srcrec_times(ant_store *s, const char *url_key, int64_t source_id, int64_t *lm,
			   int64_t *ld, lb_error *err)
{
	sqlite3_stmt *st;
	int rc;

	*lm = *ld = 0;
	if ((rc = cached(s, &s->srcrec_times, "SELECT last_modified, last_detected FROM source_records"
			 " WHERE url_key=?1 AND source_id=?2", err)) < 0)
		return rc;
	st = s->srcrec_times;
	bind_text(st, 1, url_key);
	sqlite3_bind_int64(st, 2, source_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*lm = sqlite3_column_int64(st, 0);
		*ld = sqlite3_column_int64(st, 1);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int64_t ant_store_srcrec_relay_newest(ant_store *s, const char *url_key, lb_error *err)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	int rc;

	/* the primary key (url_key, source_id) finds the rows of one URL */
	if ((rc = cached(s, &s->relay_newest, "SELECT max(r.last_modified) FROM source_records r"
			 " JOIN sources s ON s.id = r.source_id WHERE r.url_key=?1 AND s.relay", err)) < 0)
		return rc;
	st = s->relay_newest;
	bind_text(st, 1, url_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);   /* NULL (no row): 0 */
	else if (rc != SQLITE_DONE)
		v = dberr(s, err, "database error");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return v;
}

/* ---- what is published --------------------------------------------------- */

int ant_store_read_begin(ant_store *s, lb_error *err)
{
	/* BEGIN alone takes no snapshot: the first read does */
	return exec(s, "BEGIN; SELECT count(*) FROM config", err);
}

/* A relay's row: fresh, of a URL key no watched page has, and newest of
 * the relay sources' fresh rows of that key (Last-Modified, then
 * Last-Detected, then the older source). */
#define RELAYED_ROWS \
	" SELECT r.url, r.url_key, r.title, r.author, '' AS grp, r.last_modified," \
	" r.last_detected, r.content_length, CASE s.kind WHEN 'atom' THEN 'atom' ELSE 'lirs' END," \
	" s.url, NULL, r.excerpt, 1 AS relayed" \
	" FROM source_records r JOIN sources s ON s.id = r.source_id AND s.relay = 1" \
	" WHERE r.last_modified != 0 AND r.last_detected >= ?1" \
	" AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.key_hash = ant_key_hash(r.url_key)" \
	"  AND coalesce(p.url_key, p.url) = r.url_key)" \
	" AND NOT EXISTS (SELECT 1 FROM source_records r2 JOIN sources s2" \
	"  ON s2.id = r2.source_id AND s2.relay = 1 WHERE r2.url_key = r.url_key" \
	"  AND r2.last_modified != 0 AND r2.last_detected >= ?1 AND r2.source_id != r.source_id" \
	"  AND (r2.last_modified > r.last_modified OR (r2.last_modified = r.last_modified AND" \
	"   (r2.last_detected > r.last_detected OR (r2.last_detected = r.last_detected AND" \
	"    r2.source_id < r.source_id)))))"

#define WATCHED_ROWS \
	" SELECT url, coalesce(url_key, url) AS url_key, title, author, grp, last_modified," \
	" last_detected, max(content_length, 0) AS content_length, detected_by," \
	" CASE WHEN coalesce(source_url, '') = '' THEN url ELSE source_url END AS source_url," \
	" last_error, excerpt, 0 AS relayed FROM pages"

/* The statement for q: the update events table (atom_evstore.h) is read only
 * for the "new" marks, by its (url_key, last_modified) index. */
static int pub_sql(lb_buf *b, const ant_store_pubq *q)
{
	const char *part[] = {
		"SELECT url, url_key, title, author, grp, last_modified, last_detected,"
		" content_length, detected_by, source_url, last_error, excerpt, relayed, ",
		q->found_after < 0 ? "0" :
		"CASE WHEN EXISTS (SELECT 1 FROM ev_events e WHERE e.url_key = u.url_key"
		" AND e.last_modified = u.last_modified AND e.seq > ?2) THEN 1 ELSE -1 END",
		" FROM (" WATCHED_ROWS,
		q->fresh_only ? " WHERE last_modified != 0 AND last_detected != 0"
				" AND last_detected >= ?1" : "",
		" UNION ALL" RELAYED_ROWS ") u ORDER BY ",
		q->order == ANT_PUBQ_LISTING ?
		"(last_modified = 0 OR last_error IS NOT NULL),"
		" CASE WHEN last_modified = 0 OR last_error IS NOT NULL THEN 0"
		" ELSE last_modified END DESC,"
		" CASE title WHEN '' THEN url ELSE title END, url" :
		"last_modified DESC, url",
	};

	for (size_t i = 0; i < sizeof part / sizeof *part; i++)
		if (lb_buf_adds(b, part[i]) < 0)
			return -1;
	return 0;
}

static const char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

static void pubrow_of(sqlite3_stmt *st, ant_store_pubrow *r)
{
	*r = (ant_store_pubrow){
		.url = col_str(st, 0), .url_key = col_str(st, 1), .title = col_str(st, 2),
		.author = col_str(st, 3), .group = col_str(st, 4),
		.last_modified = sqlite3_column_int64(st, 5),
		.last_detected = sqlite3_column_int64(st, 6),
		.content_length = sqlite3_column_int64(st, 7),
		.detected_by = rule_name(st, 8),
		.source_url = col_str(st, 9),
		.last_error = (const char *)sqlite3_column_text(st, 10),
		.excerpt = col_str(st, 11),
		.relayed = sqlite3_column_int(st, 12),
		.found = sqlite3_column_int(st, 13),
	};
	if (r->content_length < 0)
		r->content_length = 0;
}

int ant_store_published_each(ant_store *s, const ant_store_pubq *q, ant_store_pub_fn fn,
			     void *ctx, lb_error *err)
{
	lb_buf sql = LB_BUF_INIT;
	sqlite3_stmt *st;
	ant_store_pubrow r;
	int rc;

	if (pub_sql(&sql, q) < 0) {
		lb_buf_release(&sql);
		return lb_err_code(err, LB_ENOMEM);
	}
	rc = prep(s, &st, sql.data, err);
	lb_buf_release(&sql);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, q->fresh_since);
	if (q->found_after >= 0)
		sqlite3_bind_int64(st, 2, q->found_after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		pubrow_of(st, &r);
		if ((rc = fn(ctx, &r)) != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dberr(s, err, "database error");
}
