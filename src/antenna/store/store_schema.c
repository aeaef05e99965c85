/*
 * store_schema.c: the store's schema, as the migrations that build it
 * version by version, and the SQL function its key index needs.  Every
 * CREATE and ALTER of the antenna's tables lives here (the update events'
 * table is atom_evstore.h's).
 */
#include "store_int.h"
#include "ant_page.h"

#include <stdio.h>
#include <string.h>

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
	 * hash of it (key_hash, the last column: ant_st_key_hash() below), not the
	 * URL, and ant_store_page_add() keeps the keys unique; detected_by
	 * is a rule's number (store_pages.c rule_names), not its word;
	 * last_modified_header and feed_lm_header have no type, so that a
	 * Last-Modified that is its own IMF-fixdate is kept as the Unix time
	 * (4 bytes, not 29: store_pages.c lm_pack()), converted when the page is next
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
	/* 5 -> 6: moved and gone pages (update/pagestate.c): the permanent redirects
	 * seen in a row and where to, the URL a page moved from and when,
	 * since when it has answered 404/410 or had no such host, and when
 * it was found gone. */
	"ALTER TABLE pages ADD COLUMN redirect_count INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN redirect_to TEXT;"
	"ALTER TABLE pages ADD COLUMN moved_from TEXT;"
	"ALTER TABLE pages ADD COLUMN moved_at INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN failing_since INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN gone_at INTEGER NOT NULL DEFAULT 0;",
	/* 6 -> 7: notification targets (ant_notify.h): each with the last
	 * update event (ev_events.seq) it was told of; what is after it is
	 * pending, sent at the next run. */
	"CREATE TABLE notify_targets("
	" id INTEGER PRIMARY KEY,"
	" target TEXT NOT NULL UNIQUE,"
	" grp TEXT,"
	" after_seq INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL DEFAULT 0,"
	" last_try INTEGER NOT NULL DEFAULT 0,"
	" last_ok INTEGER NOT NULL DEFAULT 0,"
	" last_error TEXT,"
	" sent INTEGER NOT NULL DEFAULT 0);",
	/* 7 -> 8: trust (ant_trust.h): each source's claims of a newer update
	 * of a watched page, pending until our own next check judges them
	 * (a window of the newest judged kept per source), and the relay
	 * sources held back for a low score.  page_id has no foreign key, so
	 * that a later rebuild of pages needs no care here: a removed page's
	 * pending claims are dropped when its source is read. */
	"CREATE TABLE trust_claims("
	" id INTEGER PRIMARY KEY,"
	" source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,"
	" page_id INTEGER NOT NULL,"
	" claimed INTEGER NOT NULL,"
	" said_at INTEGER NOT NULL,"
	" verdict INTEGER NOT NULL DEFAULT 0,"
	" found INTEGER NOT NULL DEFAULT 0,"
	" judged_at INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX trust_claims_page ON trust_claims(page_id, verdict);"
	"CREATE INDEX trust_claims_source ON trust_claims(source_id, page_id);"
	"CREATE TABLE source_trust("
	" source_id INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,"
	" held INTEGER NOT NULL DEFAULT 0,"
	" held_since INTEGER NOT NULL DEFAULT 0);",
	/* 8 -> 9: a server's Retry-After, kept across runs (store_polite.c) */
	"CREATE TABLE IF NOT EXISTS server_wait(server TEXT PRIMARY KEY, until INTEGER NOT NULL) WITHOUT ROWID;",
	/* 9 -> 10: robots.txt (ant_robots.h, store_robots.c): the last answer
	 * per origin, and the pages whose operator ignores it (a trigger
	 * forgets a removed page's row, as its id may be given again; a later
	 * migration that rebuilds pages must create it again) */
	"CREATE TABLE robots("
	" origin TEXT PRIMARY KEY,"
	" fetched INTEGER NOT NULL,"
	" status INTEGER NOT NULL,"
	" verdict INTEGER NOT NULL,"
	" error TEXT,"
	" body BLOB);"
	"CREATE TABLE robots_pages("
	" page_id INTEGER PRIMARY KEY,"
	" ignore INTEGER NOT NULL DEFAULT 0);"
	"CREATE TRIGGER robots_pages_gone AFTER DELETE ON pages BEGIN"
	" DELETE FROM robots_pages WHERE page_id=old.id; END;",
	/* 10 -> 11: what each source remembers of its last read
	 * (ant_source_budget.h): the body's digest (an unchanged body is not
	 * parsed again), its news budget, churn, the pages it relays */
	"CREATE TABLE source_reads("
	" source_id INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,"
	" digest INTEGER NOT NULL DEFAULT 0, body_len INTEGER NOT NULL DEFAULT 0,"
	" by_fetch INTEGER NOT NULL DEFAULT 0, unchanged INTEGER NOT NULL DEFAULT 0,"
	" day INTEGER NOT NULL DEFAULT 0, news_day INTEGER NOT NULL DEFAULT 0,"
	" news INTEGER NOT NULL DEFAULT 0, held INTEGER NOT NULL DEFAULT 0,"
	" known INTEGER NOT NULL DEFAULT 0, changed INTEGER NOT NULL DEFAULT 0,"
	" churn_reads INTEGER NOT NULL DEFAULT 0, cut INTEGER NOT NULL DEFAULT 0,"
	" pages_relayed INTEGER NOT NULL DEFAULT 0, records INTEGER NOT NULL DEFAULT 0);",
	/* 11 -> 12: the texts behind the diff pages (ant_difftext.h): a
	 * page's compared text at its last announced update and the diff of
	 * its last update found in the text, zlib-compressed, bounded each */
	"CREATE TABLE page_texts("
	" page_id INTEGER PRIMARY KEY REFERENCES pages(id) ON DELETE CASCADE,"
	" text BLOB,"
	" diff BLOB,"
	" diff_time INTEGER NOT NULL DEFAULT 0);",
	/* 12 -> 13: the kind of a page's failure as data (ant_outcome.h):
	 * what index.html's phrase, the robots-excluded and gone states
	 * read, last_error kept as the operator's words.  Filled once from
	 * the words the kinds were told by until now: the only place they
	 * are still read (robots.txt's first, then publish_error.c's table
	 * in its order; a status line is "http"; what remains is our own). */
	"ALTER TABLE pages ADD COLUMN fail_kind TEXT;"
	"UPDATE pages SET fail_kind = CASE"
	" WHEN last_error GLOB 'robots.txt: *' THEN 'robots-excluded'"
	" WHEN last_error GLOB 'gone *' THEN 'gone'"
	" WHEN last_error GLOB 'cannot resolve host*' THEN 'dns'"
	" WHEN last_error GLOB 'connection refused*' OR last_error GLOB 'host unreachable*'"
	"  OR last_error GLOB 'cannot connect*' THEN 'connect'"
	" WHEN last_error GLOB 'timed out*' THEN 'timeout'"
	" WHEN last_error GLOB 'TLS *' OR last_error GLOB 'tls error*' THEN 'tls'"
	" WHEN last_error GLOB 'body too big*' THEN 'too-big'"
	" WHEN last_error GLOB 'response header too large*' THEN 'header-too-big'"
	" WHEN last_error GLOB 'too many redirects*' THEN 'redirects'"
	" WHEN last_error GLOB 'protocol not allowed*' THEN 'protocol'"
	" WHEN last_error GLOB 'empty reply*' OR last_error GLOB 'connection broken*'"
	"  OR last_error GLOB 'answer cut short*' OR last_error GLOB 'not an HTTP answer*'"
	"  OR last_error GLOB 'cannot decode the Content-Encoding*'"
	"  OR last_error GLOB 'HTTP/2 protocol error*' OR last_error GLOB 'transfer failed*'"
	"  OR last_error GLOB 'malformed URL*' THEN 'other'"
	" WHEN last_error GLOB 'deferred*' THEN 'deferred'"
	" WHEN last_error GLOB 'refused to connect to*' THEN 'internal'"
	" WHEN last_error GLOB 'HTTP status *' OR last_error GLOB '[0-9][0-9][0-9] *'"
	"  OR last_error GLOB '[0-9][0-9][0-9]' THEN 'http'"
	" WHEN last_error GLOB 'cannot start transfer*' OR last_error GLOB 'transfer aborted*'"
	"  OR last_error GLOB 'out of memory*' THEN 'local'"
	" WHEN last_error IS NOT NULL THEN 'check' END;",
	/* 13 -> 14: the URL the operator added, kept by a page's first move (ant_store.h:
	 * added_url): only its host:port may be internal (update/pagestate.c) */
	"ALTER TABLE pages ADD COLUMN added_url TEXT;",
	/* 14 -> 15: each site's template (ant_furniture.h): the segment keys
	 * (hashes only) of a few pages of one site (an origin), watched or
	 * fetched once for reference (sibling = 1); a sibling's row is also
	 * the date of its last attempt, kept when it failed (no keys). */
	"CREATE TABLE site_pages("
	" site TEXT NOT NULL,"
	" url TEXT NOT NULL,"
	" sibling INTEGER NOT NULL DEFAULT 0,"
	" seen INTEGER NOT NULL DEFAULT 0,"
	" keys BLOB,"
	" PRIMARY KEY(site, url));",
	/* 15 -> 16: what the operator means by a page: the page fetched by
	 * headless chromium (render); the words that must appear in what an
	 * update added (when_pats, one pattern a line) and the one that
	 * matched at the last announced update (when_hit); the noise taught
	 * by 'set --not-news' (taught, ant_taught.h lines); and what
	 * --not-news takes back: what the last announced update added
	 * (news, ant_taught.h lines; NULL none), its time (news_at) and the
	 * update time and rule before it (prev_modified, prev_by: a rule's
	 * number, store_pages.c). */
	"ALTER TABLE pages ADD COLUMN render INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN when_pats TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE pages ADD COLUMN when_hit TEXT;"
	"ALTER TABLE pages ADD COLUMN taught TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE pages ADD COLUMN news TEXT;"
	"ALTER TABLE pages ADD COLUMN news_at INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN prev_modified INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE pages ADD COLUMN prev_by INTEGER;",
	/* 16 -> 17: several checkers over one PostgreSQL (store_lease.c,
	 * doc/DESIGN.md "Several checkers"): each page's server (its
	 * politeness key, filled by the first shared run; NULL on SQLite,
	 * where one run holds the lock and none is needed) and its lease (the
	 * checker that claimed it, until when in ms since the epoch); each
	 * server's slot: the checker holding it for a batch, until when, and
	 * when the next request to it may start after a release. */
	"ALTER TABLE pages ADD COLUMN server TEXT;"
	"ALTER TABLE pages ADD COLUMN lease_by TEXT;"
	"ALTER TABLE pages ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX pages_server ON pages(server, next_check) WHERE server IS NOT NULL;"
	"CREATE TABLE server_slot("
	" server TEXT PRIMARY KEY,"
	" checker TEXT,"
	" until INTEGER NOT NULL DEFAULT 0,"
	" next_at INTEGER NOT NULL DEFAULT 0);",
	/* 17 -> 18: each origin's server key, found once (store_lease.c):
	 * the address its host resolves to, else its registrable domain, so
	 * that every page of an origin has one key whenever it was added and
	 * whatever the DNS said since; the keys filled under 17 (registrable
	 * domains alone) made again so. */
	"CREATE TABLE origin_server(origin TEXT PRIMARY KEY, server TEXT NOT NULL) WITHOUT ROWID;"
	"UPDATE pages SET server = NULL WHERE server IS NOT NULL;",
};
#define NMIGRATIONS (sizeof migrations / sizeof migrations[0])

_Static_assert(NMIGRATIONS == ANT_STORE_SCHEMA_VERSION, "one migration per schema version");

/*
 * A new PostgreSQL database starts at the schema the migrations leave in a
 * new SQLite database: they run in a private one in memory, and what its
 * catalogue holds (tables in the order made, then indexes and triggers) is
 * made on the server, rewritten by store_pgsql.c.  The migrations stay the
 * one description of the schema; those after this version run on both.
 */
static int pg_schema(ant_store *s, lb_error *err)
{
	atom_db *lite;
	atom_db_st *st = NULL;
	int rc = 0;

	if (atom_db_open(":memory:", &lite, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) != ATOM_DB_OK) {
		atom_db_close(lite);
		return lb_err_code(err, LB_ENOMEM);
	}
	if (atom_db_create_function(lite, "ant_key_hash", ant_st_key_hash) != ATOM_DB_OK)
		rc = lb_err(err, LB_EDB, "schema: %s", atom_db_errmsg(lite));
	for (size_t v = 0; rc == 0 && v < NMIGRATIONS; v++)
		if (atom_db_exec(lite, migrations[v]) != ATOM_DB_OK)
			rc = lb_err(err, LB_EDB, "schema %zu: %s", v + 1, atom_db_errmsg(lite));
	if (rc == 0 && atom_db_prepare(lite, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
				       " ORDER BY type <> 'table', type <> 'index', rowid", &st) != ATOM_DB_OK)
		rc = lb_err(err, LB_EDB, "schema: %s", atom_db_errmsg(lite));
	while (rc == 0 && atom_db_step(st) == ATOM_DB_ROW)
		rc = ant_st_exec(s, (const char *)atom_db_column_text(st, 0), err);
	atom_db_finalize(st);
	atom_db_close(lite);
	return rc;
}

int ant_st_migrate(ant_store *s, lb_error *err)
{
	int64_t v = ant_st_pragma_int(s, "PRAGMA user_version");
	int pg = atom_db_backend(s->db) == ATOM_DB_POSTGRES;
	char sql[64];
	int rc;

	if (v < 0)
		return ant_st_dberr(s, err, "cannot read schema version");
	if (v > ANT_STORE_SCHEMA_VERSION)
		return lb_err(err, LB_EINVAL, "database '%s' has schema version %lld; this antenna knows up to %d",
			      s->path, (long long)v, ANT_STORE_SCHEMA_VERSION);
	if (v == ANT_STORE_SCHEMA_VERSION)
		return 0;
	s->created = v == 0;
	if ((rc = ant_st_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	/* two checkers starting at once on one server: one migrates, the
	 * other waits for it and finds the schema done */
	if (pg && ((rc = ant_st_exec(s, "SELECT pg_advisory_xact_lock(4242000003)", err)) < 0 ||
		   (v = ant_st_pragma_int(s, "PRAGMA user_version")) < 0)) {
		rc = rc < 0 ? rc : ant_st_dberr(s, err, "cannot read schema version");
		goto fail;
	}
	s->created = v == 0;
	if (pg && v == 0) {
		if ((rc = pg_schema(s, err)) < 0)
			goto fail;
		v = ANT_STORE_SCHEMA_VERSION;
	}
	for (; v < ANT_STORE_SCHEMA_VERSION; v++)
		if ((rc = ant_st_exec(s, migrations[v], err)) < 0)
			goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d", ANT_STORE_SCHEMA_VERSION);
	if ((rc = ant_st_exec(s, sql, err)) < 0 || (rc = ant_st_exec(s, "COMMIT", err)) < 0)
		goto fail;
	return 0;
fail:
	atom_db_exec(s->db, "ROLLBACK");
	return rc;
}

/*
 * The pages' key index holds a 64-bit hash of the key (FNV-1a, ant_page.h's
 * text hash), not the key: 8 bytes an entry instead of a whole URL.  Two
 * keys of one hash are told apart by the key itself (the lookups compare
 * both), so a collision costs a second row read, never a wrong page.
 */
int64_t ant_st_key_hash(const char *key)
{
	return (int64_t)ant_page_hash64(key, strlen(key));
}

/* ant_key_hash(TEXT) for the migration that fills key_hash (and the
 * published listing's join of relayed records to pages). */
int ant_st_functions(ant_store *s, lb_error *err)
{
	if (atom_db_create_function(s->db, "ant_key_hash", ant_st_key_hash) != ATOM_DB_OK)
		return ant_st_dberr(s, err, "cannot register a function");
	return 0;
}

/* An existing file that has no antenna tables is not ours to write into. */
int ant_st_is_antenna_db(ant_store *s)
{
	return ant_st_pragma_int(s, "SELECT count(*) FROM sqlite_master WHERE name='pages'") > 0 ||
	       ant_st_pragma_int(s, "PRAGMA user_version") > ANT_STORE_SCHEMA_VERSION;
}
