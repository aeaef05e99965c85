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

#include <sqlite3.h>

#include "ant_store.h"
#include "lirs.h"
#define LIRS_STR_(x) #x
#define LIRS_STR(x) LIRS_STR_(x)

static char dir[] = "/tmp/t_store.XXXXXX";
static char path[256];

static void pages(ant_store *s)
{
	ant_store_page p, q, *all;
	size_t n;
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
	IS_INT(ant_store_pages_load(s, &all, &n, &err), 0, "pages loaded");
	IS_INT(n, 1, "one page");
	IS_INT(all[0].st.last_modified, 100, "state round trip: last modified");
	IS_STR(all[0].st.detected_by, "text", "state round trip: rule");
	OK(all[0].st.has_hash && all[0].st.text_hash == 0xfedcba9876543210ull, "64-bit hash round trip");
	IS_STR(all[0].etag, "\"x\"", "etag round trip");
	IS_STR(all[0].last_error, "404 Not Found", "error round trip");
	ant_store_pages_free(all, n);
	IS_INT(ant_store_page_remove(s, "http://example.com/b", &err), 0, "removing an unknown page");
	IS_INT(ant_store_page_remove(s, "http://example.com/a", &err), 1, "page removed");
}

/* Per-page settings, and the quiet baseline after a change. */
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
	sqlite3 *db;
	ant_store *s;
	char p2[300];
	lb_error err = LB_ERROR_INIT;

	snprintf(p2, sizeof p2, "%s/newer.db", dir);
	OK(ant_store_open(&s, p2, STORE_OPEN_CREATE, &err) == 0, "second db created");
	ant_store_close(s);
	sqlite3_open(p2, &db);
	sqlite3_exec(db, "PRAGMA user_version=99", NULL, NULL, NULL);
	sqlite3_close(db);
	IS_INT(ant_store_open(&s, p2, STORE_OPEN_EXISTING, &err), LB_EINVAL, "newer schema refused: LB_EINVAL");
	char want[80];
	snprintf(want, sizeof want, "has schema version 99; this antenna knows up to %d",
		 STORE_SCHEMA_VERSION);
	OK(strstr(err.msg, want) != NULL, "newer schema message: %s", err.msg);
	snprintf(p2, sizeof p2, "%s/missing.db", dir);
	IS_INT(ant_store_open(&s, p2, STORE_OPEN_EXISTING, &err), LB_ENOTFOUND,
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
	IS_INT(ant_store_open(&s, p2, STORE_OPEN_CREATE, &err), LB_EDB,
	       "a store in a missing directory: LB_EDB");
	OK(strstr(err.msg, p2) != NULL && strncmp(err.msg, "cannot open database '", 22) == 0,
	   "the message names the path: %s", err.msg);
	IS_STR(lb_error_msg(&err), err.msg, "lb_error_msg() is the message");
	IS_INT(ant_store_open(&s, p2, STORE_OPEN_CREATE, NULL), LB_EDB, "NULL err accepted");
	IS_INT(ant_store_open(&s, p2, STORE_OPEN_EXISTING, NULL), LB_ENOTFOUND,
	       "NULL err accepted (missing file)");
	lb_error_clear(&err);
	IS_STR(lb_error_msg(&err), "success", "a cleared error");
	IS_INT(lb_err_sys(&err, "cannot read '%s'", "f"), LB_EIO, "lb_err_sys() is LB_EIO");
	OK(strncmp(err.msg, "cannot read 'f': ", 17) == 0, "with strerror appended: %s", err.msg);
	IS_STR(lb_strerror(LB_EDB), "database error", "lb_strerror()");
	IS_STR(lb_strerror(-999), "unknown error", "lb_strerror() of an unknown code");
	IS_STR(lirs_strerror(LIRS_ENOMEM), lb_strerror(LB_ENOMEM), "the codec's codes are the same");
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
		if (ant_store_open(&cs, path, STORE_OPEN_EXISTING, &err) < 0 ||
		    ant_store_lock(cs, 0, &err) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	close(fds[1]);
	OK(read(fds[0], &c, 1) == 1, "child holds the lock");
	ant_store_open(&s, path, STORE_OPEN_EXISTING, &err);
	IS_INT(ant_store_lock(s, 1, &err), LB_EBUSY, "a second run cannot take the lock: LB_EBUSY");
	OK(strstr(err.msg, "another antenna run holds the lock on") != NULL, "lock message: %s", err.msg);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	OK(ant_store_lock(s, 1, &err) == 0, "a killed run's lock is gone");
	ant_store_close(s);
	close(fds[0]);
}

int main(void)
{
	TAP_PLAN(71);
	ant_store *s;
	char *v;
	lb_error err = LB_ERROR_INIT;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/a.db", dir);
	OK(ant_store_open(&s, path, STORE_OPEN_EXISTING, &err) < 0, "no database before init");
	IS_INT(ant_store_open(&s, path, STORE_OPEN_CREATE, &err), 0, "database created");
	IS_INT(ant_store_config_set(s, "title", "T", &err), 0, "config set");
	v = ant_store_config_get(s, "title");
	IS_STR(v, "T", "config get");
	free(v);
	OK(ant_store_config_get(s, "nope") == NULL, "unset config is NULL");
	IS_INT(ant_store_config_int(s, "nope", 42), 42, "config int default");
	pages(s);
	settings(s);
	sources(s);
	IS_INT(ant_store_check(s, &err), 0, "integrity check");
	ant_store_close(s);
	IS_INT(ant_store_open(&s, path, STORE_OPEN_EXISTING, &err), 0, "reopened");
	ant_store_close(s);
	newer_schema();
	errors();
	lock();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	TAP_DONE();
}
