/*
 * t_store.c: the antenna's SQLite state: schema, config, pages, sources,
 * newer schema refused, run lock across processes.
 */
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ant_store.h"
#define LIRS_STR_(x) #x
#define LIRS_STR(x) LIRS_STR_(x)

static char dir[] = "/tmp/t_store.XXXXXX";
static char path[256];

static void pages(ant_store *s)
{
	ant_store_page p, q, *all;
	size_t n;
	char err[256];

	ant_store_page_init(&p);
	p.url = "http://example.com/a";
	p.url_key = "http://example.com/a";
	p.title = "A";
	p.title_set_by_user = 1;
	p.ignore = "#ad\n.clock";
	p.created = 1;
	IS_INT(ant_store_page_add(s, &p, err, sizeof err), 0, "page added");
	IS_INT(ant_store_page_add(s, &p, err, sizeof err), 1, "the same key twice is refused");
	IS_INT(ant_store_page_get(s, "http://example.com/a", &q, err, sizeof err), 1, "page found");
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
	OK(ant_store_begin(s, err, sizeof err) == 0 && ant_store_page_save(s, &q, err, sizeof err) == 0 &&
	   ant_store_commit(s, err, sizeof err) == 0, "page saved in a transaction");
	ant_store_page_release(&q);
	IS_INT(ant_store_pages_load(s, &all, &n, err, sizeof err), 0, "pages loaded");
	IS_INT(n, 1, "one page");
	IS_INT(all[0].st.last_modified, 100, "state round trip: last modified");
	IS_STR(all[0].st.detected_by, "text", "state round trip: rule");
	OK(all[0].st.has_hash && all[0].st.text_hash == 0xfedcba9876543210ull, "64-bit hash round trip");
	IS_STR(all[0].etag, "\"x\"", "etag round trip");
	IS_STR(all[0].last_error, "404 Not Found", "error round trip");
	ant_store_pages_free(all, n);
	IS_INT(ant_store_page_remove(s, "http://example.com/b", err, sizeof err), 0, "removing an unknown page");
	IS_INT(ant_store_page_remove(s, "http://example.com/a", err, sizeof err), 1, "page removed");
}

static void sources(ant_store *s)
{
	ant_store_source x, *all;
	size_t n;
	char err[256];

	ant_store_source_init(&x);
	x.url = "http://peer.example/lirs.gz";
	x.url_key = x.url;
	IS_INT(ant_store_source_add(s, &x, err, sizeof err), 0, "source added");
	IS_INT(ant_store_sources_load(s, &all, &n, err, sizeof err), 0, "sources loaded");
	IS_INT(n, 1, "one source");
	all[0].records_read = 7;
	all[0].last_error = strdup("bad");
	IS_INT(ant_store_source_save(s, &all[0], err, sizeof err), 0, "source saved");
	ant_store_sources_free(all, n);
	ant_store_sources_load(s, &all, &n, err, sizeof err);
	IS_INT(all[0].records_read, 7, "source counts round trip");
	ant_store_sources_free(all, n);
	IS_INT(ant_store_source_remove(s, x.url_key, err, sizeof err), 1, "source removed");
}

static void newer_schema(void)
{
	sqlite3 *db;
	ant_store *s;
	char err[256], p2[300];

	snprintf(p2, sizeof p2, "%s/newer.db", dir);
	OK(ant_store_open(&s, p2, STORE_OPEN_CREATE, err, sizeof err) == 0, "second db created");
	ant_store_close(s);
	sqlite3_open(p2, &db);
	sqlite3_exec(db, "PRAGMA user_version=99", NULL, NULL, NULL);
	sqlite3_close(db);
	OK(ant_store_open(&s, p2, STORE_OPEN_EXISTING, err, sizeof err) < 0, "newer schema refused");
	char want[80];
	snprintf(want, sizeof want, "has schema version 99; this antenna knows up to %d",
		 STORE_SCHEMA_VERSION);
	OK(strstr(err, want) != NULL, "newer schema message: %s", err);
	snprintf(p2, sizeof p2, "%s/missing.db", dir);
	OK(ant_store_open(&s, p2, STORE_OPEN_EXISTING, err, sizeof err) < 0, "missing database refused");
	OK(strstr(err, "antenna init") != NULL, "missing database message: %s", err);
}

static void lock(void)
{
	ant_store *s;
	char err[256];
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		ant_store *cs;
		if (ant_store_open(&cs, path, STORE_OPEN_EXISTING, err, sizeof err) < 0 ||
		    ant_store_lock(cs, 0, err, sizeof err) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		sleep(30);
		_exit(0);
	}
	close(fds[1]);
	OK(read(fds[0], &c, 1) == 1, "child holds the lock");
	ant_store_open(&s, path, STORE_OPEN_EXISTING, err, sizeof err);
	OK(ant_store_lock(s, 1, err, sizeof err) < 0, "a second run cannot take the lock");
	OK(strstr(err, "another antenna run holds the lock on") != NULL, "lock message: %s", err);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	OK(ant_store_lock(s, 1, err, sizeof err) == 0, "a killed run's lock is gone");
	ant_store_close(s);
	close(fds[0]);
}

int main(void)
{
	ant_store *s;
	char err[256], *v;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/a.db", dir);
	OK(ant_store_open(&s, path, STORE_OPEN_EXISTING, err, sizeof err) < 0, "no database before init");
	IS_INT(ant_store_open(&s, path, STORE_OPEN_CREATE, err, sizeof err), 0, "database created");
	IS_INT(ant_store_config_set(s, "title", "T", err, sizeof err), 0, "config set");
	v = ant_store_config_get(s, "title");
	IS_STR(v, "T", "config get");
	free(v);
	OK(ant_store_config_get(s, "nope") == NULL, "unset config is NULL");
	IS_INT(ant_store_config_int(s, "nope", 42), 42, "config int default");
	pages(s);
	sources(s);
	IS_INT(ant_store_check(s, err, sizeof err), 0, "integrity check");
	ant_store_close(s);
	IS_INT(ant_store_open(&s, path, STORE_OPEN_EXISTING, err, sizeof err), 0, "reopened");
	ant_store_close(s);
	newer_schema();
	lock();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	TAP_DONE();
}
