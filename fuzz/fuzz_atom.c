/*
 * fuzz_atom: libFuzzer target for the Atom writer (src/atom/atom.c).  The input
 * is NUL-separated strings: the feed title, the feed author, then per
 * event a URL, a title, an author and a source URL (at most 8 events).
 * They go through both paths that write Atom, as t_atom_prop does:
 * `lirs atom`'s (atom_ev_run + atom_publish_run() on a state of its own) and
 * the antenna's (atom_evstore_add() + atom_publish() with one event per page),
 * page size 2, into a fresh directory (under /dev/shm when there is one,
 * so fsync costs nothing).  Every document written must parse with
 * libxml2, validate against tests/atom/atom.rng and have IRI ids
 * (tests/unit/atom_check.h); anything else aborts.  Run from the top
 * directory (fuzz/run.sh does).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "atom.h"
#include "atom_evstore.h"

#include "../tests/unit/atom_check.h"

#define MAX_EVENTS 8

static ac_ctx checker;
static char root[256];

static void cleanup(void);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *top = getenv("TOP");
	char rng[4096];

	(void)argc;
	(void)argv;
	snprintf(rng, sizeof rng, "%s/tests/atom/atom.rng", top ? top : ".");
	if (ac_init(&checker, rng) != 0) {
		fprintf(stderr, "fuzz_atom: %s\n", checker.msg);
		abort();
	}
	snprintf(root, sizeof root, "%s/fuzz_atom.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	return 0;
}

static void cleanup(void)
{
	ac_rm_rf(root);
}

static void check(const char *dir, int64_t archives)
{
	char path[4096];

	for (int64_t n = -1; n <= archives; n++) {
		if (n == -1)
			snprintf(path, sizeof path, "%s/index.atom", dir);
		else if (n == 0)
			snprintf(path, sizeof path, "%s/current.atom", dir);
		else
			snprintf(path, sizeof path, "%s/archive/%lld.atom", dir, (long long)n);
		if (!ac_check_file(&checker, path)) {
			fprintf(stderr, "fuzz_atom: %s: %s\n", path, checker.msg);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *f[2 + 4 * MAX_EVENTS], dir[512];
	lb_error err = LB_ERROR_INIT;
	atom_ev_event ev[MAX_EVENTS];
	size_t nf = 0, n = 0, i;
	char *p;
	atom_evstore *st;
	atom_ev_run *run;
	sqlite3 *db;
	atom_stats stats;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf; p <= buf + size && nf < sizeof f / sizeof f[0]; p += strlen(p) + 1)
		f[nf++] = p;
	while (nf < 2)
		f[nf++] = "";
	for (i = 2; i < nf && n < MAX_EVENTS; i += 4, n++)
		ev[n] = (atom_ev_event){
			.url = f[i], .title = i + 1 < nf ? f[i + 1] : "", .author = i + 2 < nf ? f[i + 2] : "",
			.source_url = i + 3 < nf ? f[i + 3] : "",
			.last_modified = 1000000000 + (int64_t)((n * 7919 + size) % 900000000),
			.last_detected = 1700000000 - (int64_t)n, .tz_offset = 32400,
			.content_length = (int64_t)n * 100,
			.excerpt = n % 2 && i + 1 < nf ? f[i + 1] : NULL,   /* the antenna's change excerpt */
		};
	atom_cfg cfg = { .base = "http://feeds.example.org/x&y/", .title = *f[0] ? f[0] : NULL,
			 .author = f[1], .page_size = 2, .now = 1700000000 };

	/* lirs atom */
	snprintf(dir, sizeof dir, "%s/lirs", root);
	if (atom_evstore_open(&st, ":memory:", 0, &err) != 0 || atom_ev_run_open(&run, &err) != 0)
		abort();
	for (i = 0; i < n; i++)
		if (atom_ev_run_add(run, &ev[i], &err) != 0)
			abort();
	if (atom_publish_run(st, dir, &cfg, run, &stats, &err) != 0) {
		fprintf(stderr, "fuzz_atom: lirs path: %s\n", lb_error_msg(&err));
		abort();
	}
	check(dir, stats.archives_total);
	atom_ev_run_close(run);
	atom_evstore_close(st);
	ac_rm_rf(dir);

	/* the antenna */
	snprintf(dir, sizeof dir, "%s/antenna", root);
	if (sqlite3_open(":memory:", &db) != SQLITE_OK || atom_evstore_attach(&st, db, &err) != 0)
		abort();
	for (i = 0; i < n; i++)
		if (atom_evstore_add(st, &ev[i], &err) < 0)
			abort();
	if (atom_publish(st, dir, &cfg, NULL, 0, ev, n, &stats, &err) != 0) {
		fprintf(stderr, "fuzz_atom: antenna path: %s\n", lb_error_msg(&err));
		abort();
	}
	check(dir, stats.archives_total);
	atom_evstore_close(st);
	sqlite3_close(db);
	ac_rm_rf(dir);
	free(buf);
	return 0;
}
