/*
 * lirscount: a program from outside the tree, built by tests/install/run.sh
 * against the installed library only (pkg-config lirs-codec): the public
 * codec API, nothing else.  For each FILE (gzip or plain LIRS, HINA-DI),
 * prints the summary line `lirs validate` prints:
 *   FILE: N records, E errors, W warnings
 * Usage: lirscount [--now UNIXTIME] FILE...; exit 1 when a file has errors,
 * 2 when one cannot be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lirs.h>

struct count {
	lirs_checker *checker;
	unsigned long records, errors, warnings;
};

static void on_diag(void *ctx, const lirs_diag *d)
{
	struct count *c = ctx;

	if (d->severity == LIRS_SEV_ERROR)
		c->errors++;
	else if (d->severity == LIRS_SEV_WARNING)
		c->warnings++;
}

static int on_record(void *ctx, const lirs_record *r)
{
	struct count *c = ctx;

	c->records++;
	lirs_checker_check(c->checker, r);
	return 0;
}

static int count_file(const char *name, long long now)
{
	struct count c = { 0 };
	lirs_check_opts co = { .now = now, .filename = name, .on_diag = on_diag, .ctx = &c };
	lirs_reader_opts ro = { .filename = name, .on_record = on_record, .on_diag = on_diag,
				.ctx = &c };
	char buf[4096];
	size_t n;
	int rc = 0;
	FILE *f = fopen(name, "rb");

	if (!f) {
		fprintf(stderr, "lirscount: cannot open '%s': %s\n", name, strerror(errno));
		return 2;
	}
	c.checker = lirs_checker_new(&co);
	lirs_reader *rd = c.checker ? lirs_reader_new(&ro) : NULL;
	if (!rd) {
		fprintf(stderr, "lirscount: out of memory\n");
		lirs_checker_free(c.checker);
		fclose(f);
		return 2;
	}
	while (rc == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0)
		rc = lirs_reader_feed(rd, buf, n);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	if (ferror(f)) {
		fprintf(stderr, "lirscount: cannot read '%s'\n", name);
		rc = 2;
	} else {
		lirs_checker_finish(c.checker);
		printf("%s: %lu records, %lu errors, %lu warnings\n", name, c.records, c.errors,
		       c.warnings);
		rc = c.errors ? 1 : 0;
	}
	lirs_reader_free(rd);
	lirs_checker_free(c.checker);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	long long now = (long long)time(NULL);
	int i = 1, worst = 0;

	if (argc > 2 && !strcmp(argv[1], "--now")) {
		now = strtoll(argv[2], NULL, 10);
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: lirscount [--now UNIXTIME] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		int rc = count_file(argv[i], now);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}
