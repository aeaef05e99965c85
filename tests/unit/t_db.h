/*
 * t_db.h: the database a store's unit test opens, on SQLite or on
 * PostgreSQL.  T_DB_PG=1 (make check-pg, with a server of its own:
 * tests/lib/pg.sh, PG_HOST and PGBIN in the environment) names each
 * database file as a fresh database of that server, the one
 * tests/lib/pgwrap.sh --name gives the file (made at its first use, the
 * same one again for the same file: a test that reopens its file
 * reopens its database).  Without it, the file itself.  Header-only.
 */
#ifndef T_DB_H
#define T_DB_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when the store's tests run against PostgreSQL. */
static inline int t_db_pg(void)
{
	const char *v = getenv("T_DB_PG");

	return v && *v && strcmp(v, "0") != 0;
}

/* out (n bytes): the name the test opens for the file path; 0, or -1
 * (out "") when the server's name cannot be had (a loud failure later:
 * the store refuses ""). */
static inline int t_db_name(char *out, size_t n, const char *path)
{
	char cmd[4096];
	const char *top = getenv("TOP");
	FILE *f;
	size_t len;

	if (!t_db_pg()) {
		len = strlen(path);
		if (len >= n) {
			*out = '\0';
			return -1;
		}
		memcpy(out, path, len + 1);
		return 0;
	}
	*out = '\0';
	/* the test's paths are its own mkdtemp() names: no quote in them */
	snprintf(cmd, sizeof cmd, "sh '%s/tests/lib/pgwrap.sh' --name '%s'", top ? top : ".", path);
	if (!(f = popen(cmd, "r")))
		return -1;
	if (!fgets(out, (int)n, f))
		*out = '\0';
	pclose(f);
	len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	return len ? 0 : -1;
}

/* path (n bytes) replaced by the name the test opens for it. */
static inline int t_db_map(char *path, size_t n)
{
	char file[1024];

	snprintf(file, sizeof file, "%s", path);
	return t_db_name(path, n, file);
}
#endif
