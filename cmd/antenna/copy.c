/*
 * copy.c: antenna copy SRC DST: the whole antenna (pages, sources, what
 * they said, trust, the update events and the archives' state, settings)
 * from one database into another, SQLite or PostgreSQL either way
 * (ant_store_copy()).  DST is made when missing and must hold no pages or
 * sources; each database's run lock is held while it copies.
 */
#include <stdio.h>
#include <stdlib.h>

#include "antenna.h"
#include "atom_evstore.h"

static const char help[] =
	"usage: antenna copy SRC DST\n\n"
	"Copy the antenna in database SRC into database DST (made when missing):\n"
	"pages, sources, what they said, trust, the update events, the archives'\n"
	"state and the settings.  Either may be a SQLite file or a PostgreSQL\n"
	"database (postgresql://...).  DST must hold no pages or sources.\n";

/* The database at name, its events' tables made, its run lock held. */
static ant_store *open_locked(const char *name, int mode, lb_error *err)
{
	ant_store *s;
	atom_evstore *ev;

	if (ant_store_open(&s, name, mode, err) < 0)
		return NULL;
	if (ant_store_lock(s, ANT_STORE_LOCK_WAIT, err) < 0 ||
	    atom_evstore_attach(&ev, ant_store_db(s), err) < 0) {
		ant_store_close(s);
		return NULL;
	}
	atom_evstore_close(ev);
	return s;
}

static int64_t source_count(ant_store *s, lb_error *err)
{
	ant_store_source *x;
	size_t n;

	if (ant_store_sources_load(s, &x, &n, err) < 0)
		return LB_EDB;
	ant_store_sources_free(x, n);
	return (int64_t)n;
}

int cmd_copy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ant_store *src = NULL, *dst = NULL;
	lb_error err = LB_ERROR_INIT;
	int64_t rows = 0, pages = 0, sources = 0, due = 0;
	int c, rc = CLI_FATAL;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1)
		if (c == 'h')
			return cli_help(help);
		else
			return CLI_FATAL;
	if (optind + 2 != argc)
		return cli_usage_error(help, "SRC and DST are needed");
	if (!(src = open_locked(argv[optind], ANT_STORE_OPEN_EXISTING, &err)) ||
	    !(dst = open_locked(argv[optind + 1], ANT_STORE_OPEN_CREATE, &err)))
		cli_error("%s", lb_error_msg(&err));
	else if (ant_store_pages_count(dst, &pages, &due, &err) < 0 ||
		 (sources = source_count(dst, &err)) < 0)
		cli_error("%s", lb_error_msg(&err));
	else if (pages || sources)
		cli_error("'%s' already holds %lld pages and %lld sources: copy into a new database",
			  argv[optind + 1], (long long)pages, (long long)sources);
	else if (ant_store_copy(src, dst, &rows, &err) < 0)
		cli_error("%s", lb_error_msg(&err));
	else {
		printf("copied '%s' to '%s': %lld rows\n", argv[optind], argv[optind + 1], (long long)rows);
		rc = CLI_OK;
	}
	ant_store_close(dst);
	ant_store_close(src);
	return rc;
}
