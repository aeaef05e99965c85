/* common.c: see common.h. */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char *cli_prog = "lirs";

const char *cli_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* The usage line is the help text's first line. */
static void usage_hint(const char *help)
{
	const char *nl = strchr(help, '\n');
	int n = nl ? (int)(nl - help) : (int)strlen(help);

	fprintf(stderr, "%.*s\nTry '%s --help' for more information.\n", n, help, cli_prog);
}

int cli_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	usage_hint(help);
	return CLI_FATAL;
}

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

		/* For an unknown short option in a cluster (-qx), name the letter. */
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
	const char *p = s;
	int neg = 0;
	uint64_t v = 0, lim;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		goto bad;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		if (v > (lim - (uint64_t)(*p - '0')) / 10)
			goto range;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	if (*out < min || *out > max)
		goto range;
	return 0;
bad:
	cli_error("%s: '%s' is not an integer", opt, s);
	return -1;
range:
	cli_error("%s: '%s' is out of range [%lld, %lld]", opt, s,
		  (long long)min, (long long)max);
	return -1;
}

int cli_parse_bytes(const char *opt, const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	int shift = 0;
	char digits[32];
	int64_t v;

	if (n > 0 && strchr("KkMmGg", s[n - 1])) {
		shift = strchr("Kk", s[n - 1]) ? 10 : strchr("Mm", s[n - 1]) ? 20 : 30;
		n--;
	}
	if (n == 0 || n >= sizeof digits || s[0] == '+' || s[0] == '-') {
		cli_error("%s: '%s' is not a byte count", opt, s);
		return -1;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (cli_parse_int64(opt, digits, 1, INT64_MAX >> shift, &v) < 0)
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_format_diag(lb_buf *out, const lirs_diag *d)
{
	const char *file = d->file ? d->file : "<stdin>";

	if (d->line && d->col)
		lb_buf_addf(out, "%s:%lu:%lu: ", file, d->line, d->col);
	else if (d->line)
		lb_buf_addf(out, "%s:%lu: ", file, d->line);
	else
		lb_buf_addf(out, "%s: ", file);
	return lb_buf_addf(out, "%s: %s [%s]", lirs_severity_name(d->severity),
			 d->message ? d->message : lirs_rule_summary(d->rule),
			 lirs_rule_id(d->rule));
}

void cli_print_diag(FILE *fp, const lirs_diag *d)
{
	lb_buf b = LB_BUF_INIT;

	cli_format_diag(&b, d);
	lb_buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, fp);
	lb_buf_release(&b);
}

/* Feeds fd to rd until EOF; CLI_EIO after printing a read error. */
static int feed_fd(lirs_reader *rd, int fd, const char *name)
{
	static char buf[CLI_CHUNK];
	ssize_t n;
	int rc;

	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_error("cannot read '%s': %s", name, strerror(errno));
			return CLI_EIO;
		}
		if (n == 0)
			return 0;
		if ((rc = lirs_reader_feed(rd, buf, (size_t)n)) < 0)
			return rc;
	}
}

static void print_lib_error(int rc, const char *name)
{
	if (rc == LIRS_ENOMEM || rc == LIRS_EICONV || rc == LIRS_EINVAL)
		cli_error("cannot read '%s': %s", name, lirs_strerror(rc));
}

int cli_read(const char *path, const lirs_reader_opts *opts, lirs_reader_stats *stats)
{
	lirs_reader_opts o = *opts;
	const char *name = cli_display_name(path);
	lirs_reader *rd;
	int fd = 0, rc;

	if (!o.filename)
		o.filename = name;
	if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) < 0) {
		cli_error("cannot open '%s': %s", name, strerror(errno));
		return CLI_EIO;
	}
	if (!(rd = lirs_reader_new(&o))) {
		cli_error("cannot read '%s': %s", name, lirs_strerror(LIRS_ENOMEM));
		rc = LIRS_ENOMEM;
		goto out;
	}
	rc = feed_fd(rd, fd, name);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	print_lib_error(rc, name);
	if (stats)
		*stats = *lirs_reader_get_stats(rd);
	lirs_reader_free(rd);
out:
	if (fd > 0)
		close(fd);
	return rc;
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

void cli_writer_warnings(const lirs_writer *w)
{
	unsigned long n;

	if ((n = lirs_writer_replaced(w)) > 0)
		cli_error("warning: %lu characters EUC-JP cannot hold were replaced by U+3013 "
			  "(use --utf8 to keep them)", n);
	if ((n = lirs_writer_approximated(w)) > 0)
		cli_error("warning: %lu characters written as their nearest EUC-JP equivalent "
			  "(e.g. ¥ as ￥; use --utf8 to keep them)", n);
	if ((n = lirs_writer_skipped(w)) > 0)
		cli_error("warning: %lu records without a URL or with more than %d extra fields "
			  "left out (HINA-DI cannot hold them)", n, LIRS_DI_MAX_EXTRA);
	if ((n = lirs_writer_substituted(w)) > 0)
		cli_error("warning: %lu vendor characters (NEC/IBM extensions) written as their "
			  "readable forms (e.g. ① as (1), 髙 as 高; use --charset euc-jp-ms "
			  "or --utf8 to keep them)", n);
}

int cli_parse_charset(const char *help, const char *name, lirs_writer_opts *wo)
{
	if (!strcasecmp(name, "euc-jp") || !strcasecmp(name, "eucjp")) {
		wo->utf8 = wo->euc_jp_ms = 0;
	} else if (!strcasecmp(name, "euc-jp-ms") || !strcasecmp(name, "eucjp-ms")) {
		wo->utf8 = 0;
		wo->euc_jp_ms = 1;
	} else if (!strcasecmp(name, "utf-8") || !strcasecmp(name, "utf8")) {
		wo->utf8 = 1;
		wo->euc_jp_ms = 0;
	} else {
		cli_usage_error(help, "--charset: unknown charset '%s' (euc-jp, euc-jp-ms or utf-8)",
				name);
		return -1;
	}
	return 0;
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

int cli_read_all(char **files, int n, const lirs_reader_opts *opts, const int *stop)
{
	lirs_reader_opts ro = *opts;
	int status = CLI_OK;

	for (int i = 0; i < n && !*stop; i++) {
		lirs_reader_stats st = { 0 };
		ro.filename = NULL;
		if (cli_read(files[i], &ro, &st) < 0)
			return CLI_FATAL;
		if (st.skipped > 0)
			status = CLI_PROBLEMS;
	}
	return *stop ? CLI_FATAL : status;
}
