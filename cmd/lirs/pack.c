/*
 * pack.c: `lirs pack` turns JSON Lines (the shape `lirs cat` writes) into a
 * LIRS file: EUC-JP and gzip by default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lb_afile.h"
#include "cmds.h"
#include "common.h"
#include "lirs_pack.h"

static const char help[] =
	"usage: lirs pack [-o FILE] [--format lirs|di] [--charset CS] [--utf8|--euc-jp] [--no-gzip]\n"
	"                 [--max-line BYTES] [FILE]\n"
	"\n"
	"Read JSON Lines records (the shape 'lirs cat' writes; FILE - or no FILE is\n"
	"standard input) and write them as a LIRS 2.1 file: EUC-JP, gzip.\n"
	"Missing keys read as 0 or \"\"; unknown keys are ignored; a key given twice\n"
	"takes its last value; blank lines are skipped.  A line that is not a record object is reported as FILE:LINE:COL\n"
	"and skipped.  Records written without a time (last_modified or last_detected\n"
	"0 or missing) are counted in a warning: readers drop them.  The gzip output is\n"
	"not written to a terminal: use -o FILE, a pipe, or --no-gzip.\n"
	"\n"
	"  -o, --output FILE      write FILE atomically (temporary file + rename)\n"
	"                         instead of standard output\n"
	"  -f, --format FMT       lirs (default): LIRS 2.1, EUC-JP;\n"
	"                         di: HINA-DI 2.1, UTF-8 as tama wrote it (lirs(5))\n"
	"      --euc-jp           write EUC-JP (with --format di)\n"
	"      --charset CS       euc-jp (default: strict JIS X 0208/0212, NEC and IBM\n"
	"                         extensions as readable forms, ① as (1), 髙 as 高),\n"
	"                         euc-jp-ms (keep their vendor codes), utf-8\n"
	"      --utf8             write UTF-8 instead of EUC-JP (--charset utf-8)\n"
	"      --no-gzip          write plain text\n"
	"      --max-line BYTES   leave out (with a warning) a record with a longer\n"
	"                         line, which a reader would skip (default 1M)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Characters EUC-JP cannot hold are written as U+3013, those it holds only as\n"
	"a look-alike (¥ as ￥, 〜 as ～; lirs(5)) as the look-alike, each counted in\n"
	"a warning.\n"
	"Exit status: 0 success, 1 some lines were skipped (the rest is written),\n"
	"2 usage error, unreadable input or a write error (FILE is left untouched).\n";

typedef struct pack {
	const char *name;          /* input, for diagnostics */
	const char *out;           /* -o FILE, NULL for standard output */
} pack;

/* lirs_pack_bad_fn: a skipped line, as FILE:LINE[:COL]. */
static void bad_line(void *ctx, unsigned long line, unsigned long col, const char *msg)
{
	const pack *p = ctx;

	if (col)
		fprintf(stderr, "%s:%lu:%lu: error: %s\n", cli_t(p->name), line, col, cli_t(msg));
	else
		fprintf(stderr, "%s:%lu: error: %s\n", cli_t(p->name), line, cli_t(msg));
}

/* Records without a time: one warning, with the first lines. */
static void untimed(const pack *p, const lirs_pack_stats *st)
{
	lb_buf b = LB_BUF_INIT;
	unsigned long n = st->untimed;

	if (!n)
		return;
	for (unsigned long i = 0; i < n && i < LIRS_PACK_UNTIMED_SHOWN; i++)
		lb_buf_addf(&b, "%s%s:%lu", i ? ", " : "", p->name, st->untimed_line[i]);
	if (n > LIRS_PACK_UNTIMED_SHOWN)
		lb_buf_addf(&b, " and %lu more", n - LIRS_PACK_UNTIMED_SHOWN);
	cli_error("warning: %lu record%s without a time (last_modified or last_detected 0 or "
		  "missing): readers drop %s (lirs validate: zero-time): %s", n, n == 1 ? "" : "s",
		  n == 1 ? "it" : "them", b.data ? cli_t(b.data) : "");
	lb_buf_release(&b);
}

/* Packs every line of in into w; CLI_OK, LIRSCMD_PROBLEMS (lines skipped), or
 * CLI_FATAL after printing why. */
static int pack_stream(pack *p, lirs_writer *w, FILE *in)
{
	lirs_pack_opts o = { .on_bad = bad_line, .ctx = p };
	lirs_pack_stats st;
	lb_error err = LB_ERROR_INIT;
	int rc = lirs_pack(in, w, &o, &st, &err);

	if (rc == LB_EIO)
		cli_error("cannot read '%s': %s", p->name, strerror(err.sys));
	else if (rc == LB_ESINK)
		errno = err.sys, cli_write_error(p->out);
	else if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	if (rc < 0)
		return CLI_FATAL;
	untimed(p, &st);
	return st.bad ? LIRSCMD_PROBLEMS : CLI_OK;
}

static int open_input(const char *path, FILE **in)
{
	if (!strcmp(path, "-")) {
		*in = stdin;
		return 0;
	}
	if (!(*in = fopen(path, "rb"))) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Writes everything to fp; returns the exit status. */
static int run(pack *p, lirs_writer_opts *wo, FILE *in, FILE *fp)
{
	lirs_writer *w;
	int status;

	wo->sink = lirs_sink_stdio;
	wo->ctx = fp;
	if (!(w = lirs_writer_new(wo))) {
		cli_error("cannot start the LIRS writer: %s", lb_strerror(LB_ENOMEM));
		return CLI_FATAL;
	}
	status = pack_stream(p, w, in);
	if (status != CLI_FATAL && lirs_writer_finish(w) < 0) {
		cli_write_error(p->out);
		status = CLI_FATAL;
	}
	lirscmd_writer_warnings(w);
	lirs_writer_free(w);
	return status;
}

static int run_to_file(pack *p, lirs_writer_opts *wo, FILE *in, const char *out)
{
	lb_afile af;
	int status;

	if (lb_afile_open(&af, out) < 0) {
		cli_error("cannot create '%s': %s", out, strerror(errno));
		return CLI_FATAL;
	}
	p->out = out;
	status = run(p, wo, in, af.fp);
	if (status == CLI_FATAL) {
		lb_afile_abort(&af);
	} else if (lb_afile_commit(&af) < 0) {
		cli_error("cannot write '%s': %s", out, strerror(errno));
		status = CLI_FATAL;
	}
	return status;
}

int cmd_pack(int argc, char **argv)
{
	enum { O_UTF8 = 256, O_NOGZIP, O_EUCJP, O_CHARSET, O_MAXLINE };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "utf8", no_argument, NULL, O_UTF8 },
		{ "euc-jp", no_argument, NULL, O_EUCJP },
		{ "no-gzip", no_argument, NULL, O_NOGZIP },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "max-line", required_argument, NULL, O_MAXLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lirs_writer_opts wo = { 0 };
	pack p = { 0 };
	const char *out = NULL, *path = "-";
	FILE *in;
	int opt, status, charset = -1;

	while ((opt = cli_getopt(argc, argv, "o:f:h", lopts, help)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'f':
			if (!strcmp(optarg, "di"))
				wo.format = LIRS_FORMAT_DI;
			else if (strcmp(optarg, "lirs") != 0)
				return cli_usage_error(help, "unknown format '%s'", optarg);
			break;
		case O_UTF8: charset = 1; wo.euc_jp_ms = 0; break;
		case O_EUCJP: charset = 0; wo.euc_jp_ms = 0; break;
		case O_NOGZIP: wo.no_gzip = 1; break;
		case O_CHARSET:
			if (lirscmd_parse_charset(help, optarg, &wo) < 0)
				return CLI_FATAL;
			charset = wo.utf8;
			break;
		case O_MAXLINE:
			if (cli_parse_size("--max-line", optarg, &wo.max_line) < 0)
				return CLI_FATAL;
			break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(help, "at most one FILE");
	/* LIRS 2.1 §2 says EUC-JP; tama wrote its HINA-DI in UTF-8 */
	wo.utf8 = charset >= 0 ? charset : wo.format == LIRS_FORMAT_DI;
	if (wo.format == LIRS_FORMAT_DI)
		wo.date = (int64_t)time(NULL);
	if (optind < argc)
		path = argv[optind];
	/* gzip bytes on a terminal garble it, as gzip itself refuses to */
	if (!out && !wo.no_gzip && isatty(STDOUT_FILENO))
		return cli_usage_error(help, "compressed data not written to a terminal; "
				       "use -o FILE, a pipe, or --no-gzip");
	p.name = cli_display_name(path);
	if (open_input(path, &in) < 0)
		return CLI_FATAL;
	if (out) {
		status = run_to_file(&p, &wo, in, out);
	} else {
		status = run(&p, &wo, in, stdout);
		if (cli_close_stdout() != CLI_OK)
			status = CLI_FATAL;
	}
	if (in != stdin)
		fclose(in);
	return status;
}
