/* cli.c: see cli.h. */
#include "cli.h"
#include "lb_error.h"
#include "lb_num.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_help(const char *help)
{
	fputs(help, stdout);
	return CLI_OK;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *help)
{
	static char **last_argv;
	char spec[64];
	int c;

	if (argv != last_argv) {
		last_argv = argv;
		optind = 0;     /* glibc: 0 re-initialises, including permutation */
	}
	opterr = 0;
	/* A leading ':' makes getopt report a missing value as ':'. */
	snprintf(spec, sizeof spec, ":%s", shortopts);
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c == '?' || c == ':') {
		const char *bad = argv[optind - 1];
		char shortname[3] = { '-', (char)optopt, '\0' };

		/* For a short option in a cluster (-qx), name the letter; a long
		 * option (--help=x sets optopt too) is named as written. */
		if (optopt && bad[0] == '-' && bad[1] != '-')
			bad = shortname;
		if (c == '?')
			cli_usage_error(help, "unknown option '%s'", bad);
		else
			cli_usage_error(help, "option '%s' needs a value", bad);
		last_argv = NULL;
		return CLI_BADOPT;
	}
	if (c == -1)
		last_argv = NULL;
	return c;
}

int cli_parse_int64(const char *opt, const char *s, int64_t min, int64_t max,
		    int64_t *out)
{
	int rc = lb_num_int64(s, min, max, out);

	if (rc == LB_EINVAL)
		cli_error("%s: '%s' is not an integer", opt, s);
	else if (rc < 0)
		cli_error("%s: '%s' is out of range [%lld, %lld]", opt, s,
			  (long long)min, (long long)max);
	return rc < 0 ? -1 : 0;
}

/* Digits, then at most one of K, M, G (either case), then nothing. */
static int parse_bytes(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	static const char suffixes[] = "KkMmGg";
	const char *p = s, *suf;
	uint64_t v = 0;
	int shift = 0, over = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			over = 1;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p > s && *p && (suf = strchr(suffixes, *p))) {
		shift = 10 * (1 + (int)(suf - suffixes) / 2);
		p++;
	}
	if (p == s || *p) {
		cli_error("%s: '%s' is not a byte count", opt, s);
		return -1;
	}
	if (over || v == 0 || v > max >> shift) {
		cli_error("%s: '%s' is out of range [1, %llu]", opt, s, (unsigned long long)max);
		return -1;
	}
	*out = v << shift;
	return 0;
}

int cli_parse_bytes(const char *opt, const char *s, uint64_t *out)
{
	return parse_bytes(opt, s, INT64_MAX, out);
}

int cli_parse_size(const char *opt, const char *s, size_t *out)
{
	uint64_t max = SIZE_MAX < INT64_MAX ? (uint64_t)SIZE_MAX : (uint64_t)INT64_MAX;
	uint64_t v;

	if (parse_bytes(opt, s, max, &v) < 0)
		return -1;
	*out = (size_t)v;
	return 0;
}

const char *cli_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int cli_check_inputs(char **files, int n)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(files[i], "-") != 0 && access(files[i], R_OK) != 0) {
			cli_error("cannot open '%s': %s", files[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* One failed output is one message, however many writes fail after it. */
static int write_reported;

void cli_write_error(const char *path)
{
	const char *why = errno ? strerror(errno) : "I/O error";

	if (write_reported++)
		return;
	if (path)
		cli_error("cannot write '%s': %s", path, why);
	else
		cli_error("cannot write to standard output: %s", why);
}

int cli_out_flush(lb_buf *b, FILE *fp, int force)
{
	if (b->len == 0 || (!force && b->len < CLI_CHUNK))
		return 0;
	errno = 0;
	if (fwrite(b->data, 1, b->len, fp) != b->len) {
		if (fp == stdout)
			cli_write_error(NULL);
		lb_buf_reset(b);
		return -1;
	}
	lb_buf_reset(b);
	return 0;
}

int cli_close_stdout(void)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_write_error(NULL);
		return CLI_FATAL;
	}
	return CLI_OK;
}

static const struct cli_cmd *find_cmd(const struct cli_program *p, const char *name)
{
	for (size_t i = 0; i < p->ncmds; i++)
		if (strcmp(p->cmds[i].name, name) == 0)
			return &p->cmds[i];
	return NULL;
}

static void usage(const struct cli_program *p, FILE *fp)
{
	int w = 0;

	for (size_t i = 0; i < p->ncmds; i++)
		if ((int)strlen(p->cmds[i].name) > w)
			w = (int)strlen(p->cmds[i].name);
	fprintf(fp, "%sCommands:\n", p->usage);
	for (size_t i = 0; i < p->ncmds; i++)
		fprintf(fp, "  %-*s  %s\n", w, p->cmds[i].name, p->cmds[i].summary);
	fputs(p->footer, fp);
}

/* Runs c with argv[0] = its name; "lirs cat" prefixes its messages. */
static int run(const struct cli_program *p, const struct cli_cmd *c, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof prog, "%s %s", p->name, c->name);
	cli_prog = prog;
	return c->fn(argc, argv);
}

/* An unknown subcommand: the message, and the usage when asked to run it. */
/* The edit distance (Levenshtein) of a and b, counted up to 8. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[33];

	if (la > 32 || lb > 32)
		return 8;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] < 8 ? row[lb] : 8;
}

/* The command nearest to name when it is near enough (a typo), or NULL. */
static const char *nearest(const struct cli_program *p, const char *name)
{
	const char *best = NULL;
	size_t bd = 3;   /* at most 2 edits, and fewer than half the name */

	for (size_t i = 0; i < p->ncmds; i++) {
		size_t d = distance(name, p->cmds[i].name);

		if (d < bd && 2 * d < strlen(p->cmds[i].name)) {
			bd = d;
			best = p->cmds[i].name;
		}
	}
	return best;
}

static int unknown(const struct cli_program *p, const char *name, int show_usage)
{
	const char *near = name ? nearest(p, name) : NULL;

	if (near) {
		cli_error("unknown command '%s': did you mean '%s'?", name, near);
		return CLI_FATAL;
	}
	cli_error("unknown command '%s'", name);
	if (show_usage)
		usage(p, stderr);
	return CLI_FATAL;
}

int cli_dispatch(const struct cli_program *p, int argc, char **argv)
{
	const struct cli_cmd *c;

	cli_prog = p->name;
	if (argc < 1) {
		usage(p, stderr);
		return CLI_FATAL;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") ||
	    (!strcmp(argv[0], "help") && argc == 1)) {
		usage(p, stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[0], "--version")) {
		printf("%s\n", p->version);
		return CLI_OK;
	}
	if (!strcmp(argv[0], "help")) {
		char *hargv[] = { argv[1], "--help", NULL };

		if (!(c = find_cmd(p, argv[1])))
			return unknown(p, argv[1], 0);
		return run(p, c, 2, hargv);
	}
	if (!(c = find_cmd(p, argv[0])))
		return unknown(p, argv[0], 1);
	return run(p, c, argc, argv);
}
