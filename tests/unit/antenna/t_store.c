/*
 * t_store.c: the antenna's SQLite state: schema, config, pages, sources,
 * newer schema refused, run lock across processes.
 */
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atom_db.h"

#include "ant_robots.h"
#include "ant_store.h"
#include "lirs.h"
#define LIRS_STR_(x) #x
#define LIRS_STR(x) LIRS_STR_(x)

static char dir[] = "/tmp/t_store.XXXXXX";
static char path[256];

static void pages(ant_store *s)
{
	ant_store_page p, q;
	int64_t count, first;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = "http://example.com/a";
	p.url_key = "http://example.com/a";
	p.title = "A";
	p.title_set_by_user = 1;
	p.ignore = "#ad\n.clock";
	p.created = 1;
	IS_INT(ant_store_page_add(s, &p, &err), 0, "page added");
	IS_INT(ant_store_page_add(s, &p, &err), 1, "the same key twice is refused");
	IS_INT(ant_store_page_get(s, "http://example.com/a", &q, &err), 1, "page found");
	IS_STR(q.ignore, "#ad\n.clock", "ignore patterns kept");
	IS_STR(q.source_url, "http://example.com/a", "source url defaults to the page");
	OK(q.etag == NULL && q.last_error == NULL, "NULLs stay NULL");
	IS_INT(q.st.content_length, -1, "length unknown");
	q.st.last_modified = 100;
	q.st.detected_by = "text";
	q.st.has_hash = 1;
	q.st.text_hash = 0xfedcba9876543210ull;
	free(q.etag);
	q.etag = strdup("\"x\"");
	free(q.last_error);
	q.last_error = strdup("404 Not Found");
	OK(ant_store_begin(s, &err) == 0 && ant_store_page_save(s, &q, &err) == 0 &&
	   ant_store_commit(s, &err) == 0, "page saved in a transaction");
	ant_store_page_release(&q);
	IS_INT(ant_store_pages_count(s, &count, &first, &err), 0, "pages counted");
	IS_INT(count, 1, "one page");
	IS_INT(ant_store_page_get(s, "http://example.com/a", &q, &err), 1, "the page read back");
	IS_INT(q.st.last_modified, 100, "state round trip: last modified");
	IS_STR(q.st.detected_by, "text", "state round trip: rule");
	OK(q.st.has_hash && q.st.text_hash == 0xfedcba9876543210ull, "64-bit hash round trip");
	IS_STR(q.etag, "\"x\"", "etag round trip");
	IS_STR(q.last_error, "404 Not Found", "error round trip");
	ant_store_page_release(&q);
	IS_INT(ant_store_page_remove(s, "http://example.com/b", &err), 0, "removing an unknown page");
	IS_INT(ant_store_page_remove(s, "http://example.com/a", &err), 1, "page removed");
}

/* ---- the streams (hub scale) --------------------------------------------- */

struct walk {
	char seen[8][40];
	size_t n, stop_at;
};

static int walk_one(void *ctx, const ant_store_page *p)
{
	struct walk *w = ctx;

	if (w->n < 8)
		snprintf(w->seen[w->n], sizeof w->seen[0], "%s|%s", p->group, p->url);
	return ++w->n == w->stop_at ? 7 : 0;
}

/* 5 pages added out of order: streamed by url and by group, a walk
 * stopped by its callback, due batches by id, the counts. */
static void streams(ant_store *s)
{
	static const char *const urls[] = { "http://s.example/c", "http://s.example/a",
					    "http://s.example/e", "http://s.example/b",
					    "http://s.example/d" };
	static const char *const groups[] = { "", "g2", "g1", "", "g1" };
	struct walk w = { .n = 0 };
	ant_store_page p, batch[2];
	size_t n, total = 0;
	int64_t count, first, after = 0;
	lb_error err = LB_ERROR_INIT;

	for (int i = 0; i < 5; i++) {
		ant_store_page_init(&p);
		p.url = p.url_key = (char *)urls[i];
		p.group = (char *)groups[i];
		ant_store_page_add(s, &p, &err);
		ant_store_page_get(s, urls[i], &p, &err);
		p.st.next_check = i % 2 ? 500 : 100;   /* due at 200: c, e, d */
		ant_store_page_save(s, &p, &err);
		ant_store_page_release(&p);
	}
	IS_INT(ant_store_pages_each(s, walk_one, &w, &err), 0, "each: walks to the end");
	OK(w.n == 5 && !strcmp(w.seen[0], "g2|http://s.example/a") && !strcmp(w.seen[4], "g1|http://s.example/e"),
	   "each: by url");
	memset(&w, 0, sizeof w);
	IS_INT(ant_store_pages_each_grouped(s, walk_one, &w, &err), 0, "each grouped: walks to the end");
	OK(!strcmp(w.seen[0], "|http://s.example/b") && !strcmp(w.seen[1], "|http://s.example/c") &&
	   !strcmp(w.seen[2], "g1|http://s.example/d") && !strcmp(w.seen[4], "g2|http://s.example/a"),
	   "each grouped: by group, then by url");
	memset(&w, 0, sizeof w);
	w.stop_at = 2;
	IS_INT(ant_store_pages_each(s, walk_one, &w, &err), 7, "each: the callback's nonzero return stops it");
	IS_INT(w.n, 2, "each: no page after the stop");
	/* batches of 2 by id: c, e, then d; then nothing */
	do {
		IS_INT(ant_store_pages_due(s, after, 200, 0, batch, 2, &n, &err), 0, "due: a batch read");
		for (size_t i = 0; i < n; i++) {
			after = batch[i].id;
			total++;
			ant_store_page_release(&batch[i]);
		}
	} while (n == 2);
	IS_INT(total, 3, "due: the 3 due pages in batches of 2, none twice");
	ant_store_pages_due(s, 0, 200, 1, batch, 2, &n, &err);
	IS_INT(n, 2, "due: with force, every page");
	for (size_t i = 0; i < n; i++)
		ant_store_page_release(&batch[i]);
	OK(ant_store_pages_count(s, &count, &first, &err) == 0 && count == 5 && first == 100,
	   "count: 5 pages, the first due at 100");
	for (int i = 0; i < 5; i++)
		ant_store_page_remove(s, urls[i], &err);
	OK(ant_store_pages_count(s, &count, &first, &err) == 0 && count == 0 && first == 0,
	   "count: none left, first due 0");
}

/* Per-page settings, and the quiet baseline after a change. */
/* Validators go back to the server verbatim: whatever the spelling, a
 * Last-Modified reads back byte for byte (an IMF-fixdate is kept as a
 * time, anything else as text), and every rule name comes back. */
static void validators(ant_store *s)
{
	static const char *const lm[] = {
		"Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
		"Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 06 Nov 1994 08:49:37 GMT" /* wrong day */,
		"sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun,  6 Nov 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "", "x", "Sun, 06 Nov 1994 08:49:37",
		"Sun, 06 Nov -994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
	};
	static const char *const rules[] = { "header", "text", "size", "lirs", "feed", "atom", NULL };
	ant_store_page p, q;
	lb_error err = LB_ERROR_INIT;
	size_t same = 0, rsame = 0, n = sizeof lm / sizeof lm[0];

	ant_store_page_init(&p);
	p.url = "http://example.com/lm";
	p.url_key = "http://example.com/lm";
	if (ant_store_page_add(s, &p, &err) != 0 || ant_store_page_get(s, p.url_key, &q, &err) != 1) {
		OK(0, "validators: a page to save");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ant_store_page r;
		char *keep = q.lm_header, *fkeep = q.feed_lm_header;
		q.lm_header = q.feed_lm_header = (char *)lm[i];
		q.st.detected_by = rules[i % 7];
		if (ant_store_page_save(s, &q, &err) == 0 && ant_store_page_get(s, p.url_key, &r, &err) == 1) {
			same += r.lm_header && r.feed_lm_header && strcmp(r.lm_header, lm[i]) == 0 &&
				strcmp(r.feed_lm_header, lm[i]) == 0;
			rsame += rules[i % 7] ? r.st.detected_by && strcmp(r.st.detected_by, rules[i % 7]) == 0 :
				!r.st.detected_by;
			ant_store_page_release(&r);
		}
		q.lm_header = keep;
		q.feed_lm_header = fkeep;
	}
	IS_INT(same, n, "validators: %zu Last-Modified spellings read back byte for byte", n);
	IS_INT(rsame, n, "validators: every rule name (and none) reads back");
	ant_store_page_release(&q);
	IS_INT(ant_store_page_remove(s, p.url_key, &err), 1, "validators: page removed");
}

static void settings(ant_store *s)
{
	ant_store_page p, q;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = p.url_key = "http://example.com/s";
	p.only = "#main\nUpdated [0-9]+";
	p.no_auto_ignore = 1;
	p.check_url = "http://example.com/s/check";
	p.created = 1;
	IS_INT(ant_store_page_add(s, &p, &err), 0, "settings: added");
	IS_INT(ant_store_page_get(s, "http://example.com/s", &q, &err), 1, "settings: found");
	IS_STR(q.only, "#main\nUpdated [0-9]+", "only patterns kept");
	IS_INT(q.no_auto_ignore, 1, "no_auto_ignore kept");
	IS_STR(q.check_url, "http://example.com/s/check", "check url kept");
	/* a check happened: history and a fingerprint */
	q.st.last_modified = 1000;
	q.st.last_ok = 1000;
	q.st.has_hash = 1;
	q.st.text_hash = 77;
	q.st.content_length = 500;
	q.st.next_check = 5000;
	free(q.etag);
	q.etag = strdup("\"e1\"");
	IS_INT(ant_store_page_save(s, &q, &err), 0, "settings: saved a check");
	free(q.only);
	q.only = strdup("");
	q.no_auto_ignore = 0;
	free(q.check_url);
	q.check_url = NULL;
	free(q.title);
	q.title = strdup("T");
	q.title_set_by_user = 1;
	IS_INT(ant_store_page_set_config(s, &q, &err), 0, "set_config");
	IS_INT(ant_store_page_rebaseline(s, q.id, ANT_REBASE_TEXT, &err), 0, "rebaseline");
	ant_store_page_release(&q);
	IS_INT(ant_store_page_get(s, "http://example.com/s", &q, &err), 1, "settings: found again");
	IS_STR(q.only, "", "only cleared");
	IS_INT(q.no_auto_ignore, 0, "no_auto_ignore cleared");
	OK(q.check_url == NULL, "check url cleared");
	IS_STR(q.title, "T", "title set");
	IS_INT(q.st.last_modified, 1000, "history kept: update time");
	IS_INT(q.st.last_ok, 1000, "history kept: last success (not a first check)");
	OK(!q.st.has_hash && q.st.content_length == -1 && q.noise_len == 0, "fingerprint forgotten, and what was learned");
	OK(q.etag == NULL && q.lm_header == NULL, "validators forgotten: the next answer is a 200");
	IS_INT(q.st.next_check, 0, "due now");
	ant_store_page_release(&q);
}

static void sources(ant_store *s)
{
	ant_store_source x, *all;
	size_t n;
	lb_error err = LB_ERROR_INIT;

	ant_store_source_init(&x);
	x.url = "http://peer.example/lirs.gz";
	x.url_key = x.url;
	IS_INT(ant_store_source_add(s, &x, &err), 0, "source added");
	IS_INT(ant_store_sources_load(s, &all, &n, &err), 0, "sources loaded");
	IS_INT(n, 1, "one source");
	all[0].records_read = 7;
	all[0].last_error = strdup("bad");
	IS_INT(ant_store_source_save(s, &all[0], &err), 0, "source saved");
	ant_store_sources_free(all, n);
	ant_store_sources_load(s, &all, &n, &err);
	IS_INT(all[0].records_read, 7, "source counts round trip");
	ant_store_sources_free(all, n);
	IS_INT(ant_store_source_remove(s, x.url_key, &err), 1, "source removed");
}

static void newer_schema(void)
{
	atom_db *db;
	ant_store *s;
	char p2[300];
	lb_error err = LB_ERROR_INIT;

	snprintf(p2, sizeof p2, "%s/newer.db", dir);
	OK(ant_store_open(&s, p2, ANT_STORE_OPEN_CREATE, &err) == 0, "second db created");
	ant_store_close(s);
	atom_db_open(p2, &db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE);
	atom_db_exec(db, "PRAGMA user_version=99");
	atom_db_close(db);
	IS_INT(ant_store_open(&s, p2, ANT_STORE_OPEN_EXISTING, &err), LB_EINVAL, "newer schema refused: LB_EINVAL");
	char want[80];
	snprintf(want, sizeof want, "has schema version 99; this antenna knows up to %d",
		 ANT_STORE_SCHEMA_VERSION);
	OK(strstr(err.msg, want) != NULL, "newer schema message: %s", err.msg);
	snprintf(p2, sizeof p2, "%s/missing.db", dir);
	IS_INT(ant_store_open(&s, p2, ANT_STORE_OPEN_EXISTING, &err), LB_ENOTFOUND,
	       "missing database refused: LB_ENOTFOUND");
	OK(strstr(err.msg, "antenna init") != NULL, "missing database message: %s", err.msg);
	IS_INT(err.code, LB_ENOTFOUND, "err->code is the code returned");
	OK(s == NULL, "no store on failure");
}

/* The one error convention (lb_error.h): a negative code, a message that
 * names its subject, and err may be NULL. */
static void errors(void)
{
	ant_store *s;
	char p2[300];
	lb_error err = LB_ERROR_INIT;

	snprintf(p2, sizeof p2, "%s/no-such-dir/x.db", dir);
	IS_INT(ant_store_open(&s, p2, ANT_STORE_OPEN_CREATE, &err), LB_EDB,
	       "a store in a missing directory: LB_EDB");
	OK(strstr(err.msg, p2) != NULL && strncmp(err.msg, "cannot open database '", 22) == 0,
	   "the message names the path: %s", err.msg);
	IS_STR(lb_error_msg(&err), err.msg, "lb_error_msg() is the message");
	IS_INT(ant_store_open(&s, p2, ANT_STORE_OPEN_CREATE, NULL), LB_EDB, "NULL err accepted");
	IS_INT(ant_store_open(&s, p2, ANT_STORE_OPEN_EXISTING, NULL), LB_ENOTFOUND,
	       "NULL err accepted (missing file)");
	lb_error_clear(&err);
	IS_STR(lb_error_msg(&err), "success", "a cleared error");
	IS_INT(lb_err_sys(&err, "cannot read '%s'", "f"), LB_EIO, "lb_err_sys() is LB_EIO");
	OK(strncmp(err.msg, "cannot read 'f': ", 17) == 0, "with strerror appended: %s", err.msg);
	IS_STR(lb_strerror(LB_EDB), "database error", "lb_strerror()");
	IS_STR(lb_strerror(-999), "unknown error", "lb_strerror() of an unknown code");
	IS_STR(lb_strerror(-1), "unknown error", "no code is -1: a stray -1 never reads as out of memory");
	IS_INT(LB_ENOMEM, -2, "the codes start at -2");
}

/* The row counts say a failure by its code, never by -1 (LB_ENOMEM): a
 * table gone (a damaged or foreign file) is LB_EDB with a message, a table
 * not in the sizes is LB_ENOTFOUND. */
static void count_codes(void)
{
	ant_store *s;
	ant_store_source x;
	ant_store_sizes z;
	char p2[300];
	lb_error err = LB_ERROR_INIT;

	snprintf(p2, sizeof p2, "%s/counts.db", dir);
	if (ant_store_open(&s, p2, ANT_STORE_OPEN_CREATE, &err) < 0)
		return;
	ant_store_source_init(&x);
	x.url = x.url_key = "http://peer.example/counts.lirs.gz";
	ant_store_source_add(s, &x, &err);
	IS_INT(ant_store_srcrec_count(s, 1, &err), 0, "counts: no records held");
	IS_INT(ant_store_archive_count(s, 1, &err), 0, "counts: no archives read");
	IS_INT(ant_store_sizes_get(s, &z, &err), 0, "counts: sizes read");
	IS_INT(ant_store_sizes_rows(&z, "sources"), 1, "counts: one row in sources");
	IS_INT(ant_store_sizes_rows(&z, "no_such_table"), LB_ENOTFOUND,
	       "counts: a table not there: LB_ENOTFOUND");
	IS_INT(ant_store_sizes_bytes(&z, "no_such_table"), LB_ENOTFOUND,
	       "counts: its bytes: LB_ENOTFOUND");
	ant_store_sizes_free(&z);
	atom_db_exec(ant_store_db(s), "DROP TABLE source_records; DROP TABLE atom_archives;"
		     " DROP TABLE pages");
	lb_error_clear(&err);
	IS_INT(ant_store_srcrec_count(s, 1, &err), LB_EDB, "counts: records of a table gone: LB_EDB");
	OK(strstr(err.msg, "counts.db") != NULL, "counts: the message names the file: %s", err.msg);
	IS_INT(ant_store_archive_count(s, 1, &err), LB_EDB, "counts: archives of a table gone: LB_EDB");
	IS_INT(ant_store_page_remove(s, "http://example.com/", &err), LB_EDB,
	       "counts: removing from a table gone: LB_EDB, not -1");
	ant_store_close(s);
}

static void lock(void)
{
	ant_store *s;
	lb_error err = LB_ERROR_INIT;
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		ant_store *cs;
		if (ant_store_open(&cs, path, ANT_STORE_OPEN_EXISTING, &err) < 0 ||
		    ant_store_lock(cs, 0, &err) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	close(fds[1]);
	OK(read(fds[0], &c, 1) == 1, "child holds the lock");
	ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, &err);
	IS_INT(ant_store_lock(s, 1, &err), LB_EBUSY, "a second run cannot take the lock: LB_EBUSY");
	OK(strstr(err.msg, "another antenna run holds the lock on") != NULL, "lock message: %s", err.msg);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	OK(ant_store_lock(s, 1, &err) == 0, "a killed run's lock is gone");
	ant_store_close(s);
	close(fds[0]);
}

static long long one(ant_store *s, const char *sql)
{
	atom_db_st *st;
	long long v = -1;

	if (atom_db_prepare(ant_store_db(s), sql, &st) == ATOM_DB_OK && atom_db_step(st) == ATOM_DB_ROW)
		v = atom_db_column_int64(st, 0);
	atom_db_finalize(st);
	return v;
}

/*
 * A 0.3.0 file (schema 4) opens and keeps working: migration 5 rebuilds
 * the pages table (url_key and source_url NULL when the url, detected_by a
 * number) and every page reads back as it was written, its noise state
 * included; a save then stores an IMF-fixdate validator as a time.
 */
static void from_schema4(void)
{
	static const char *const v4 =
		"CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE pages(id INTEGER PRIMARY KEY, url TEXT NOT NULL, url_key TEXT NOT NULL UNIQUE,"
		" title TEXT NOT NULL DEFAULT '', title_set_by_user INTEGER NOT NULL DEFAULT 0,"
		" author TEXT NOT NULL DEFAULT '', grp TEXT NOT NULL DEFAULT '', ignore TEXT NOT NULL DEFAULT '',"
		" etag TEXT, last_modified_header TEXT, lm_header_time INTEGER NOT NULL DEFAULT 0,"
		" last_modified INTEGER NOT NULL DEFAULT 0, last_detected INTEGER NOT NULL DEFAULT 0,"
		" last_ok INTEGER NOT NULL DEFAULT 0, last_check INTEGER NOT NULL DEFAULT 0,"
		" content_length INTEGER NOT NULL DEFAULT -1, text_hash INTEGER, charset TEXT, detected_by TEXT,"
		" source_url TEXT NOT NULL DEFAULT '', last_error TEXT, last_status INTEGER NOT NULL DEFAULT 0,"
		" next_check INTEGER NOT NULL DEFAULT 0, interval INTEGER NOT NULL DEFAULT 0,"
		" error_count INTEGER NOT NULL DEFAULT 0, recheck INTEGER NOT NULL DEFAULT 0,"
		" created INTEGER NOT NULL DEFAULT 0);"
		"CREATE TABLE sources(id INTEGER PRIMARY KEY, url TEXT NOT NULL, url_key TEXT NOT NULL UNIQUE,"
		" etag TEXT, last_modified_header TEXT, last_error TEXT, last_status INTEGER NOT NULL DEFAULT 0,"
		" last_fetch INTEGER NOT NULL DEFAULT 0, last_ok INTEGER NOT NULL DEFAULT 0,"
		" created INTEGER NOT NULL DEFAULT 0, records_read INTEGER NOT NULL DEFAULT 0,"
		" records_skipped INTEGER NOT NULL DEFAULT 0, records_merged INTEGER NOT NULL DEFAULT 0,"
		" records_ignored INTEGER NOT NULL DEFAULT 0);"
		"ALTER TABLE pages ADD COLUMN force_charset TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE pages ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;"
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
		"CREATE TABLE atom_archives(url TEXT PRIMARY KEY, source_id INTEGER NOT NULL REFERENCES"
		" sources(id) ON DELETE CASCADE, prev_url TEXT, entries INTEGER NOT NULL DEFAULT 0,"
		" read_at INTEGER NOT NULL DEFAULT 0);"
		"ALTER TABLE pages ADD COLUMN only TEXT NOT NULL DEFAULT '';"
		"ALTER TABLE pages ADD COLUMN no_auto_ignore INTEGER NOT NULL DEFAULT 0;"
		"ALTER TABLE pages ADD COLUMN check_url TEXT;"
		"CREATE TABLE source_records(url_key TEXT NOT NULL, source_id INTEGER NOT NULL REFERENCES"
		" sources(id) ON DELETE CASCADE, url TEXT NOT NULL, last_modified INTEGER NOT NULL,"
		" last_detected INTEGER NOT NULL, title TEXT NOT NULL DEFAULT '', excerpt TEXT NOT NULL DEFAULT '',"
		" PRIMARY KEY(url_key, source_id)) WITHOUT ROWID;"
		"ALTER TABLE pages ADD COLUMN noise BLOB;"
		"PRAGMA user_version=4;";
	char p4[300];
	atom_db *db;
	atom_db_st *st;
	ant_store *s;
	ant_store_page q, r;
	ant_detect_noise ns, back;
	unsigned char *blob = NULL;
	size_t blen = 0;
	uint64_t keys[3] = { (uint64_t)7 << 32 | 1, (uint64_t)7 << 32 | 0xcdef12u, (uint64_t)9 << 32 | 5 };  /* norms cut to 24 bits */
	lb_error err = LB_ERROR_INIT;
	int ok;

	/* a noise state as 0.3.0 wrote it (version 1: whole 32-bit text hashes) */
	static const unsigned char v1[] = { 'N', 1, 3, 7, 0, 0, 0, 2, 1, 0, 0, 0, 0x12, 0xef, 0xcd, 0xab,
					     9, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0 };
	snprintf(p4, sizeof p4, "%s/v4.db", dir);
	OK(atom_db_open(p4, &db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) == ATOM_DB_OK && atom_db_exec(db, v4) == ATOM_DB_OK &&
	   atom_db_exec(db, "INSERT INTO pages(url, url_key, title, etag, last_modified_header,"
			" lm_header_time, last_modified, detected_by, source_url, text_hash, excerpt)"
			" VALUES('http://example.com/v4', 'http://example.com/v4', 'Old', '\"e\"',"
			" 'Sun, 06 Nov 1994 08:49:37 GMT', 784111777, 784111777, 'text',"
			" 'http://example.com/v4', -5, 'new entry');"
			"INSERT INTO pages(url, url_key, detected_by, source_url, last_modified_header)"
			" VALUES('HTTP://Example.com/b', 'http://example.com/b', 'lirs',"
			" 'http://relay.example.jp/lirs.gz', 'Sunday, 06-Nov-94 08:49:37 GMT')") == ATOM_DB_OK &&
	   atom_db_prepare(db, "UPDATE pages SET noise=?1 WHERE id=1", &st) == ATOM_DB_OK &&
	   atom_db_bind_blob(st, 1, v1, sizeof v1, ATOM_DB_STATIC) == ATOM_DB_OK &&
	   atom_db_step(st) == ATOM_DB_DONE, "a schema-4 file with two pages, one with noise state");
	atom_db_finalize(st);
	atom_db_close(db);
	IS_INT(ant_store_open(&s, p4, ANT_STORE_OPEN_EXISTING, &err), 0, "the schema-4 file opens (migrated)");
	if (!s)
		return;
	IS_INT(ant_store_page_get(s, "http://example.com/v4", &q, &err), 1, "migrated: found by its key");
	ok = q.url_key && strcmp(q.url_key, "http://example.com/v4") == 0 && strcmp(q.title, "Old") == 0 &&
	     q.etag && strcmp(q.etag, "\"e\"") == 0 && q.lm_header &&
	     strcmp(q.lm_header, "Sun, 06 Nov 1994 08:49:37 GMT") == 0 && q.st.last_modified == 784111777 &&
	     q.st.detected_by && strcmp(q.st.detected_by, "text") == 0 && q.st.has_hash && q.st.text_hash == (uint64_t)-5 &&
	     strcmp(q.source_url, "http://example.com/v4") == 0 && strcmp(q.excerpt, "new entry") == 0;
	OK(ok, "migrated: the page reads back as written");
	OK(ant_detect_noise_decode(&ns, q.noise, q.noise_len) == 0 && ns.has_keys && ns.nkeys == 3 &&
	   memcmp(ns.keys, keys, sizeof keys) == 0, "migrated: its 0.3.0 noise state decodes");
	IS_INT(ant_store_page_get(s, "http://example.com/b", &r, &err), 1, "migrated: a key that is not the url");
	OK(r.url_key && strcmp(r.url, "HTTP://Example.com/b") == 0 && strcmp(r.url_key, "http://example.com/b") == 0 &&
	   strcmp(r.source_url, "http://relay.example.jp/lirs.gz") == 0 && r.st.detected_by &&
	   strcmp(r.st.detected_by, "lirs") == 0 && r.lm_header &&
	   strcmp(r.lm_header, "Sunday, 06-Nov-94 08:49:37 GMT") == 0, "migrated: its key, source and rfc850 validator kept");
	/* the next save writes the new format; the state comes back the same */
	if (ant_detect_noise_encode(&ns, &blob, &blen) == 0) {
		free(q.noise);
		q.noise = blob;
		q.noise_len = blen;
	}
	OK(ant_store_begin(s, &err) == 0 && ant_store_page_save(s, &q, &err) == 0 && ant_store_page_save(s, &r, &err) == 0 &&
	   ant_store_commit(s, &err) == 0, "migrated: pages saved");
	ant_store_page_release(&q);
	ant_store_page_release(&r);
	IS_INT(ant_store_page_get(s, "http://example.com/v4", &q, &err), 1, "saved: found");
	OK(q.lm_header && strcmp(q.lm_header, "Sun, 06 Nov 1994 08:49:37 GMT") == 0 &&
	   ant_detect_noise_decode(&back, q.noise, q.noise_len) == 0 && back.nkeys == 3 &&
	   memcmp(back.keys, keys, sizeof keys) == 0, "saved: validator and noise state round trip");
	ant_detect_noise_release(&back);
	ant_detect_noise_release(&ns);
	ant_store_page_release(&q);
	if (atom_db_prepare(ant_store_db(s), "SELECT typeof(last_modified_header), typeof(url_key),"
			       " typeof(source_url), typeof(detected_by) FROM pages ORDER BY id", &st) == ATOM_DB_OK) {
		char got[200] = "";
		while (atom_db_step(st) == ATOM_DB_ROW)
			for (int i = 0; i < 4; i++) {
				strcat(got, (const char *)atom_db_column_text(st, i));
				strcat(got, " ");
			}
		atom_db_finalize(st);
		IS_STR(got, "integer null null integer text text text integer ",
		       "saved: IMF-fixdate as a time, url twice as NULL, rule as a number; other spellings as text");
	}
	{
		ant_store_page d;
		ant_store_page_init(&d);
		d.url = "http://example.com/B";
		d.url_key = "http://example.com/b";
		IS_INT(ant_store_page_add(s, &d, &err), 1, "migrated: the key index still refuses a second page of a key");
		d.url = "http://example.com/v4";
		d.url_key = "http://example.com/v4";
		IS_INT(ant_store_page_add(s, &d, &err), 1, "migrated: ... also when the key is the url");
	}
	IS_INT(ant_store_check(s, NULL, NULL, &err), 0, "migrated: integrity check");
	/* a 0.3.0 file has auto_vacuum off: once a quarter of it is free,
	 * compacting rewrites it once, and it is incremental from then on */
	{
		char title[1000], url[64];
		int added = 0, gone = 0;
		ant_store_page d;

		memset(title, 'x', sizeof title - 1);
		title[sizeof title - 1] = '\0';
		OK(ant_store_begin(s, &err) == 0, "old file: a transaction");
		for (int i = 0; i < 1000; i++) {
			ant_store_page_init(&d);
			snprintf(url, sizeof url, "http://example.com/t%d", i);
			d.url = d.url_key = url;
			d.title = title;
			added += ant_store_page_add(s, &d, &err) == 0;
		}
		for (int i = 0; i < 1000; i++) {
			snprintf(url, sizeof url, "http://example.com/t%d", i);
			gone += ant_store_page_remove(s, url, &err) == 1;
		}
		OK(ant_store_commit(s, &err) == 0 && added == 1000 && gone == 1000, "old file: 1000 pages added and removed");
		OK(one(s, "PRAGMA auto_vacuum") == 0 && one(s, "PRAGMA freelist_count") > 256,
		   "old file: auto_vacuum off, %lld pages free", (long long)one(s, "PRAGMA freelist_count"));
		IS_INT(ant_store_compact(s, &err), 0, "old file: compacted");
		OK(one(s, "PRAGMA auto_vacuum") == 2 && one(s, "PRAGMA freelist_count") == 0,
		   "old file: rewritten, incremental since, nothing free");
		IS_INT(ant_store_page_get(s, "http://example.com/v4", &q, &err), 1, "old file: its pages kept");
		ant_store_page_release(&q);
	}
	ant_store_close(s);
}

/* A schema-12 file: the pages' failure kinds filled from their last_error
 * words, once, by the migration (ant_outcome.h); then the words no longer
 * count, the kind does. */
static void from_schema12(void)
{
	static const struct { const char *error, *kind; } t[] = {
		{ NULL, NULL },
		{ "robots.txt: disallowed by http://a.example/robots.txt line 2 (Disallow: /)",
		  "robots-excluded" },
		{ "gone (failing since 2024-05-06): 404 Not Found", "gone" },
		{ "cannot resolve host: Could not resolve host: nx.example", "dns" },
		{ "connection refused: Failed to connect", "connect" },
		{ "host unreachable: No route", "connect" },
		{ "cannot connect: timed out", "connect" },
		{ "timed out: Operation timed out after 30001 milliseconds", "timeout" },
		{ "TLS handshake failed: OpenSSL", "tls" },
		{ "tls error: x", "tls" },
		{ "body too big: over 8388608 bytes (--max-body)", "too-big" },
		{ "response header too large: over 102400 bytes (--max-header)", "header-too-big" },
		{ "too many redirects: Maximum (5) redirects followed", "redirects" },
		{ "protocol not allowed: gopher", "protocol" },
		{ "empty reply: the server closed the connection", "other" },
		{ "answer cut short: x", "other" },
		{ "transfer failed: x", "other" },
		{ "malformed URL: x", "other" },
		{ "deferred: a.example asked us to wait until Mon, 06 May 2024 00:00:00 GMT (Retry-After)",
		  "deferred" },
		{ "refused to connect to internal address 10.0.0.1 (private) of a.example", "internal" },
		{ "404 Not Found", "http" },
		{ "HTTP status 599", "http" },
		{ "cannot start transfer: out of memory", "local" },
		{ "the --only part is not on the page", "check" },
	};
	char p12[300], url[64], sql[1000];
	atom_db *db;
	atom_db_st *st;
	ant_store *s;
	ant_store_page p, q;
	lb_error err = LB_ERROR_INIT;
	int ok = 1;

	snprintf(p12, sizeof p12, "%s/v12.db", dir);
	if (ant_store_open(&s, p12, ANT_STORE_OPEN_CREATE, &err) < 0)
		return;
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		ant_store_page_init(&p);
		snprintf(url, sizeof url, "http://example.com/%zu", i);
		p.url = p.url_key = url;
		ok &= ant_store_page_add(s, &p, &err) == 0;
	}
	ant_store_close(s);
	OK(ok && atom_db_open(p12, &db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) == ATOM_DB_OK, "a file of %zu pages", sizeof t / sizeof *t);
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		if (atom_db_prepare(db, "UPDATE pages SET last_error=?1 WHERE url=?2", &st) != ATOM_DB_OK)
			break;
		snprintf(url, sizeof url, "http://example.com/%zu", i);
		atom_db_bind_text(st, 1, t[i].error, -1, ATOM_DB_STATIC);
		atom_db_bind_text(st, 2, url, -1, ATOM_DB_STATIC);
		ok &= atom_db_step(st) == ATOM_DB_DONE;
		atom_db_finalize(st);
	}
	/* schema 13's added_url (a page's first move) dropped too, and schema 15's columns */
	snprintf(sql, sizeof sql, "ALTER TABLE pages DROP COLUMN fail_kind; "
		 "ALTER TABLE pages DROP COLUMN added_url; DROP TABLE site_pages; "
		 "ALTER TABLE pages DROP COLUMN render; ALTER TABLE pages DROP COLUMN when_pats; "
		 "ALTER TABLE pages DROP COLUMN when_hit; ALTER TABLE pages DROP COLUMN taught; "
		 "ALTER TABLE pages DROP COLUMN news; ALTER TABLE pages DROP COLUMN news_at; "
		 "ALTER TABLE pages DROP COLUMN prev_modified; ALTER TABLE pages DROP COLUMN prev_by; "
		 "DROP INDEX pages_server; ALTER TABLE pages DROP COLUMN server; "
		 "ALTER TABLE pages DROP COLUMN lease_by; ALTER TABLE pages DROP COLUMN lease_until; "
		 "DROP TABLE server_slot; DROP TABLE origin_server; PRAGMA user_version=%d", 12);
	OK(ok && atom_db_exec(db, sql) == ATOM_DB_OK,
	   "as schema 12 wrote it: last_error words, no kind");
	atom_db_close(db);
	IS_INT(ant_store_open(&s, p12, ANT_STORE_OPEN_EXISTING, &err), 0, "the schema-12 file opens (migrated)");
	if (!s)
		return;
	IS_INT(one(s, "PRAGMA user_version"), ANT_STORE_SCHEMA_VERSION, "at the schema version now");
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		snprintf(url, sizeof url, "http://example.com/%zu", i);
		if (ant_store_page_get(s, url, &q, &err) != 1) {
			OK(0, "page %zu found", i);
			continue;
		}
		IS_STR(q.fail_kind ? ant_fail_kind_name(q.fail_kind) : "(none)", t[i].kind ? t[i].kind : "(none)",
		       "'%s': kind %s", t[i].error ? t[i].error : "(none)",
		       t[i].kind ? t[i].kind : "(none)");
		ant_store_page_release(&q);
	}
	/* the kind decides from now on: a reworded robots.txt error is still one */
	ant_store_page_get(s, "http://example.com/1", &q, &err);
	free(q.last_error);
	q.last_error = strdup("kept out by robots.txt");
	IS_INT(ant_store_page_save(s, &q, &err), 0, "saved with other words");
	ant_store_page_release(&q);
	ant_store_page_get(s, "http://example.com/1", &q, &err);
	OK(q.fail_kind == ANT_FAIL_ROBOTS && ant_robots_excluded(q.fail_kind),
	   "reworded: still robots-excluded, by its kind");
	ant_store_page_release(&q);
	ant_store_close(s);
}

/* The sites' templates: keys back as kept, the page itself left out,
 * at most ANT_STORE_SITE_PAGES a site, the same pages kept while seen. */
/* What the operator means (schema 16): --when, render and the taught
 * noise written by add and set_config, the last update's news by save;
 * a rebaseline keeps the taught noise. */
static void meaning(ant_store *s)
{
	ant_store_page p, q;
	lb_error err = LB_ERROR_INIT;
	char url[] = "http://example.com/meaning";

	ant_store_page_init(&p);
	p.url = p.url_key = url;
	p.when = "在庫あり\nin stock";
	p.render = 1;
	p.taught = "00000001 00000000 1\tbody>p\tx\n";
	IS_INT(ant_store_page_add(s, &p, &err), 0, "a page added with --when, --render, taught noise");
	IS_INT(ant_store_page_get(s, url, &q, &err), 1, "... read back");
	IS_STR(q.when, "在庫あり\nin stock", "... its --when patterns");
	IS_INT(q.render, 1, "... render");
	IS_STR(q.taught, p.taught, "... its taught noise");
	OK(!q.news && !q.when_hit && !q.news_at && !q.prev_by, "... no update to take back yet");
	q.st.last_modified = 2000;
	q.news_at = 2000;
	q.prev_modified = 1000;
	q.prev_by = "text";
	q.news = strdup("00000002 00000000 2\tbody>ul>li\ty\n");
	q.when_hit = strdup("in stock");
	IS_INT(ant_store_page_save(s, &q, &err), 0, "an announced update saved");
	ant_store_page_release(&q);
	ant_store_page_get(s, url, &q, &err);
	OK(q.news && !strcmp(q.news, "00000002 00000000 2\tbody>ul>li\ty\n") && q.news_at == 2000 &&
	   q.prev_modified == 1000 && q.prev_by && !strcmp(q.prev_by, "text") && q.when_hit &&
	   !strcmp(q.when_hit, "in stock"), "... what --not-news takes back, kept");
	free(q.when);
	q.when = strdup("");
	q.render = 0;
	IS_INT(ant_store_page_set_config(s, &q, &err), 0, "set_config clears --when and render");
	IS_INT(ant_store_page_rebaseline(s, q.id, ANT_REBASE_TEXT, &err), 0, "a text rebaseline");
	ant_store_page_release(&q);
	ant_store_page_get(s, url, &q, &err);
	OK(!*q.when && !q.render, "... cleared");
	IS_STR(q.taught, p.taught, "a rebaseline keeps the taught noise");
	OK(q.news != NULL, "... and what the last update added");
	ant_store_page_release(&q);
}

static void sites(ant_store *s)
{
	static const uint32_t k1[] = { 1, 7, 0xfffffffeu }, k2[] = { 3 };
	lb_error err = LB_ERROR_INIT;
	ant_store_sitepage *v;
	size_t n;
	char url[64];
	int ok = 1;

	IS_INT(ant_store_site_put(s, "http://a.example:80", "http://a.example/1", 0, 100, 0, k1, 3, &err), 0,
	       "site: a page's keys kept");
	IS_INT(ant_store_site_put(s, "http://a.example:80", "http://a.example/s", 1, 100, 0, NULL, 0, &err), 0,
	       "site: a failed sibling's attempt kept");
	OK(ant_store_site_get(s, "http://a.example:80", "http://a.example/s", 0, &v, &n, &err) == 0 && n == 1 &&
	   v[0].nkeys == 3 && v[0].keys[2] == 0xfffffffeu && v[0].keys[0] == 1 && !v[0].sibling && v[0].seen == 100,
	   "site: the other page's keys come back, the asking page left out");
	ant_store_sitepages_free(v, n);
	OK(ant_store_site_get(s, "http://a.example:80", NULL, 101, &v, &n, &err) == 0 && n == 0,
	   "site: pages not seen since are not read");
	ant_store_sitepages_free(v, n);
	for (int i = 2; i < 10; i++) {
		snprintf(url, sizeof url, "http://a.example/%d", i);
		ok &= ant_store_site_put(s, "http://a.example:80", url, 0, 100 + i, 50, k2, 1, &err) == 0;
	}
	OK(ok && one(s, "SELECT count(*) FROM site_pages WHERE site='http://a.example:80'") == ANT_STORE_SITE_PAGES,
	   "site: at most %d pages a site", ANT_STORE_SITE_PAGES);
	OK(one(s, "SELECT count(*) FROM site_pages WHERE url='http://a.example/1'") == 1,
	   "site: the pages kept stay while seen (no churn)");
	IS_INT(ant_store_site_put(s, "http://a.example:80", "http://a.example/new", 0, 300, 150, k2, 1, &err), 0,
	       "site: a new page when one was not seen since the stale time...");
	OK(one(s, "SELECT count(*) FROM site_pages WHERE url='http://a.example/1'") == 0 &&
	   one(s, "SELECT count(*) FROM site_pages WHERE url='http://a.example/new'") == 1,
	   "... takes the place of the one seen longest ago");
}

/*
 * T_STORE_DB=postgresql://... (an empty database: tests/pgstore/run.sh
 * makes one on a server of its own) runs the store's checks against
 * PostgreSQL; the checks of SQLite files themselves (old schemas written
 * by hand, a newer schema, a file that is no database, auto_vacuum) are
 * SQLite's alone and not run there.
 */
int main(void)
{
	const char *pg = getenv("T_STORE_DB");
	ant_store *s;
	char *v;
	lb_error err = LB_ERROR_INIT;

	TAP_PLAN(pg && *pg ? 90 : 170);
	if (!mkdtemp(dir))
		return 1;
	if (pg && *pg)
		snprintf(path, sizeof path, "%s", pg);
	else
		snprintf(path, sizeof path, "%s/a.db", dir);
	OK(ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, &err) < 0, "no database before init");
	IS_INT(ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err), 0, "database created");
	if (!pg || !*pg)
		IS_INT(one(s, "PRAGMA auto_vacuum"), 2, "a new file gives free pages back (auto_vacuum=INCREMENTAL)");
	IS_INT(ant_store_config_set(s, "title", "T", &err), 0, "config set");
	v = ant_store_config_get(s, "title");
	IS_STR(v, "T", "config get");
	free(v);
	OK(ant_store_config_get(s, "nope") == NULL, "unset config is NULL");
	IS_INT(ant_store_config_int(s, "nope", 42), 42, "config int default");
	pages(s);
	validators(s);
	streams(s);
	settings(s);
	sources(s);
	sites(s);
	meaning(s);
	IS_INT(ant_store_check(s, NULL, NULL, &err), 0, "integrity check");
	ant_store_close(s);
	IS_INT(ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, &err), 0, "reopened");
	ant_store_close(s);
	if (!pg || !*pg) {
		newer_schema();
		from_schema4();
		from_schema12();
		errors();
		count_codes();
	}
	lock();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	TAP_DONE();
}
