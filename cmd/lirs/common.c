/* common.c: see common.h. */
#include "common.h"
#include "lirs_vreport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void lirscmd_print_diag(FILE *fp, const lirs_diag *d)
{
	lb_buf b = LB_BUF_INIT;

	lirs_diag_format(&b, d);
	lb_buf_addc(&b, '\n');
	fwrite(b.data, 1, b.len, fp);
	lb_buf_release(&b);
}

/* Feeds fd to rd until EOF; LB_EIO after printing a read error. */
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
			return LB_EIO;
		}
		if (n == 0)
			return 0;
		if ((rc = lirs_reader_feed(rd, buf, (size_t)n)) < 0)
			return rc;
	}
}

static void print_lib_error(int rc, const char *name)
{
	if (rc == LB_ENOMEM || rc == LB_EICONV || rc == LB_EINVAL)
		cli_error("cannot read '%s': %s", name, lb_strerror(rc));
}

int lirscmd_read(const char *path, const lirs_reader_opts *opts, lirs_reader_stats *stats)
{
	lirs_reader_opts o = *opts;
	const char *name = cli_display_name(path);
	lirs_reader *rd;
	int fd = 0, rc;

	if (!o.filename)
		o.filename = name;
	if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) < 0) {
		cli_error("cannot open '%s': %s", name, strerror(errno));
		return LB_EIO;
	}
	if (!(rd = lirs_reader_new(&o))) {
		cli_error("cannot read '%s': %s", name, lb_strerror(LB_ENOMEM));
		rc = LB_ENOMEM;
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

void lirscmd_writer_warnings(const lirs_writer *w)
{
	unsigned long n, lost = lirs_writer_undecoded(w);

	/* --utf8 keeps what was read; what was never decoded it cannot bring back */
	if ((n = lirs_writer_replaced(w) - lost) > 0)
		cli_error("warning: %lu characters EUC-JP cannot hold were replaced by U+3013 "
			  "(use --utf8 to keep them)", n);
	if (lost > 0)
		cli_error("warning: %lu U+FFFD (bytes the reader could not decode: "
			  "invalid-encoding, nul-byte) written as U+3013; what they held was "
			  "lost on reading, no --utf8 keeps it: fix the input", lost);
	if ((n = lirs_writer_approximated(w)) > 0)
		cli_error("warning: %lu characters written as their nearest EUC-JP equivalent "
			  "(e.g. ¥ as ￥; use --utf8 to keep them)", n);
	if ((n = lirs_writer_skipped(w)) > 0)
		cli_error("warning: %lu records without a URL or with more than %d extra fields "
			  "left out (HINA-DI cannot hold them)", n, LIRS_DI_MAX_EXTRA);
	if ((n = lirs_writer_too_long(w)) > 0)
		cli_error("warning: %lu records with a line longer than --max-line left out "
			  "(a LIRS reader skips such a line; default %zu bytes)", n, LIRS_DEFAULT_MAX_LINE);
	if ((n = lirs_writer_substituted(w)) > 0)
		cli_error("warning: %lu vendor characters (NEC/IBM extensions) written as their "
			  "readable forms (e.g. ① as (1), 髙 as 高; use --charset euc-jp-ms "
			  "or --utf8 to keep them)", n);
}

int lirscmd_parse_charset(const char *help, const char *name, lirs_writer_opts *wo)
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

int lirscmd_input_charset(const char *name, int *cs)
{
	static const char *const sjis[] = { "cp932", "sjis", "shift_jis", "shift-jis", "windows-31j" };

	for (size_t i = 0; i < sizeof sjis / sizeof *sjis; i++)
		if (!strcasecmp(name, sjis[i])) {
			*cs = LIRS_CHARSET_CP932;
			return 1;
		}
	return 0;
}

int lirscmd_read_all(char **files, int n, const lirs_reader_opts *opts, const int *stop,
		     const char **current)
{
	lirs_reader_opts ro = *opts;
	int status = CLI_OK;

	for (int i = 0; i < n && !*stop; i++) {
		lirs_reader_stats st = { 0 };
		ro.filename = NULL;
		if (current)
			*current = cli_display_name(files[i]);
		if (lirscmd_read(files[i], &ro, &st) < 0)
			return CLI_FATAL;
		if (st.skipped > 0)
			status = LIRSCMD_PROBLEMS;
	}
	return *stop ? CLI_FATAL : status;
}
