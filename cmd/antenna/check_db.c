/*
 * check_db.c: antenna check-db: PRAGMA integrity_check, for the crash
 * tests (the sqlite3 shell may be missing) and for worried operators;
 * then what the file holds: rows and bytes per table, and the history
 * retention in force (antenna sites run for years on small
 * machines, the operator must see whether the file stays bounded).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "atom_evstore.h"

static const char help[] =
	"usage: antenna [-d FILE] check-db [--quiet]\n\n"
	"Run SQLite's integrity check on the database; print 'ok' and exit 0 when it\n"
	"passes, else print every problem, one a line, and exit 2.  Then print the\n"
	"file's size, rows and bytes per table (indexes counted with their table), the\n"
	"bytes per watched page and per update event, what takes the most room\n"
	"(tables, and the pages table's columns), and the history retention in\n"
	"force with what it pruned so far.\n\n"
	"  -q, --quiet  print only 'ok'\n";

static void human(char *b, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(b, len, "?");
	else if (v < 10 * 1024)
		snprintf(b, len, "%" PRId64 " B", v);
	else if (v < 10 * 1024 * 1024)
		snprintf(b, len, "%.1f KiB", v / 1024.0);
	else
		snprintf(b, len, "%.1f MiB", v / 1048576.0);
}

/* "pages", "sources", "events", "archives": what the tables are for */
static const char *what(const char *table)
{
	static const struct { const char *t, *w; } tab[] = {
		{ "pages", "watched pages" }, { "sources", "sources" },
		{ "config", "settings" }, { "ev_events", "update events (history)" },
		{ "ev_archives", "Atom archives kept" }, { "ev_meta", "event state" },
		{ "notify_targets", "notification targets" },
		{ "page_texts", "the diff pages' texts (init --diff-text-max)" },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (strcmp(tab[i].t, table) == 0)
			return tab[i].w;
	return "";
}

/* The sources by kind (an Atom source is no LIRS source):
 * ": 2 LIRS, 1 Atom"; "" when there is none. */
static int source_kinds(ant_store *s, char *b, size_t len, lb_error *err)
{
	ant_store_source *x;
	size_t n, lirs = 0, atom = 0;

	if (ant_store_sources_load(s, &x, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		*(x[i].kind == ANT_STORE_SOURCE_ATOM ? &atom : &lirs) += 1;
	ant_store_sources_free(x, n);
	if (n)
		snprintf(b, len, ": %zu LIRS, %zu Atom", lirs, atom);
	else
		b[0] = '\0';
	return 0;
}

/* x / n rounded, or "-" when there is nothing to divide by */
static void per(char *b, size_t len, int64_t x, int64_t n)
{
	if (x < 0 || n <= 0)
		snprintf(b, len, "-");
	else
		snprintf(b, len, "%" PRId64, (x + n / 2) / n);
}

static int cmp_bytes(const void *a, const void *b)
{
	const ant_store_size *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

/*
 * The figures a hub (a million pages on one machine) is sized by: the
 * file and the pages table per watched page, the events per event, the
 * biggest tables and free pages as shares of the file, and the pages
 * table's biggest columns per page (the rows' own bytes; the rest of
 * the table's bytes are row headers, b-tree pages and the key index).
 */
static int per_page(ant_store *s, const ant_store_sizes *z, lb_error *err)
{
	int64_t file = z->pages * z->page_size, np = ant_store_sizes_rows(z, "pages");
	int64_t ne = ant_store_sizes_rows(z, "ev_events");
	ant_store_size *t;
	ant_store_colsize *c;
	size_t nc;
	char a[32], b[32];

	per(a, sizeof a, file, np);
	per(b, sizeof b, ant_store_sizes_bytes(z, "pages"), np);
	printf("per watched page: %s bytes of file, %s in table pages with its index\n", a, b);
	if (z->exact) {   /* the diff pages' texts have a budget of their own (ant_difftext.h) */
		int64_t texts = ant_store_sizes_bytes(z, "page_texts");

		per(a, sizeof a, file - texts, np);
		per(b, sizeof b, texts, np);
		printf("without the diff texts: %s bytes of file per watched page; the diff texts %s\n", a, b);
	}
	per(a, sizeof a, ant_store_sizes_bytes(z, "ev_events"), ne);
	printf("per update event: %s bytes in table ev_events with its index\n", a);
	if (z->exact && file > 0 && (t = malloc((z->n + 1) * sizeof *t))) {
		memcpy(t, z->t, z->n * sizeof *t);
		t[z->n] = (ant_store_size){ .name = "(free)", .bytes = z->free_pages * z->page_size };
		qsort(t, z->n + 1, sizeof *t, cmp_bytes);
		printf("biggest:");
		for (size_t i = 0; i < z->n + 1 && i < 4 && t[i].bytes > 0; i++)
			printf("%s %s %.0f%%", i ? "," : "", t[i].name, 100.0 * t[i].bytes / file);
		printf(" of the file\n");
		free(t);
	}
	if (np <= 0)
		return 0;
	if (ant_store_column_sizes(s, "pages", &c, &nc, err) < 0)
		return -1;
	printf("pages columns, bytes per page:");
	for (size_t i = 0; i < nc && i < 8 && c[i].bytes > 0; i++)
		printf("%s %s %.0f", i ? "," : "", c[i].name, (double)c[i].bytes / np);
	printf("\n");
	ant_store_column_sizes_free(c, nc);
	return 0;
}

static int report(ant_store *s, lb_error *err)
{
	ant_store_sizes z;
	atom_evstore *ev = NULL;
	int64_t keep = ant_setting_int(s, ANT_SET_KEEP_EVENTS), parch = 0, pev = 0;
	char b[32], kinds[64];

	if (source_kinds(s, kinds, sizeof kinds, err) < 0 || ant_store_sizes_get(s, &z, err) < 0)
		return -1;
	human(b, sizeof b, z.pages * z.page_size);
	printf("file: %s, %" PRId64 " pages of %" PRId64 " bytes, %" PRId64 " free\n",
	       b, z.pages, z.page_size, z.free_pages);
	printf("%-14s %10s %12s  %s\n", "table", "rows", "bytes", "");
	for (size_t i = 0; i < z.n; i++) {
		char rows[32], bytes[32];
		per(rows, sizeof rows, z.t[i].rows, 1);   /* unknown (< 0): "-" */
		per(bytes, sizeof bytes, z.t[i].bytes, 1);
		printf("%-14s %10s %12s  %s%s\n", z.t[i].name, rows, bytes,
		       what(z.t[i].name), strcmp(z.t[i].name, "sources") ? "" : kinds);
	}
	if (!z.exact)
		printf("(bytes per table need SQLite's dbstat table, not in this build)\n");
	if (per_page(s, &z, err) < 0) {
		ant_store_sizes_free(&z);
		return -1;
	}
	ant_store_sizes_free(&z);
	if (atom_evstore_attach(&ev, ant_store_db(s), err) < 0 ||
	    atom_evstore_pruned(ev, &parch, &pev, err) < 0) {
		atom_evstore_close(ev);
		return -1;
	}
	atom_evstore_close(ev);
	if (keep < 0)
		printf("retention: keep-events all (nothing is pruned)");
	else
		printf("retention: keep-events %" PRId64 " (events of archives already written"
		       " beyond the newest %" PRId64 " are pruned at publish)", keep, keep);
	if (pev)
		printf("; pruned so far: %" PRId64 " events, archives 1 to %" PRId64 "\n", pev, parch);
	else
		printf("; pruned so far: none\n");
	return 0;
}

/* One problem of the integrity check, escaped for the terminal on its own. */
static void print_finding(void *ctx, const char *line)
{
	cli_error("%s", line);
}

int cmd_check_db(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_store *s;
	lb_error err = LB_ERROR_INIT;
	int c, rc, quiet = 0;

	while ((c = cli_getopt(argc, argv, "hq", opts, help)) != -1) {
		if (c == 'h')
			return cli_help(help);
		if (c != 'q')
			return CLI_FATAL;
		quiet = 1;
	}
	if (!(s = antcmd_open_no_operand(argc, argv, help)))
		return CLI_FATAL;
	rc = ant_store_check(s, print_finding, NULL, &err);
	if (rc == 0) {
		printf("ok\n");
		if (!quiet)
			rc = report(s, &err);
	}
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
