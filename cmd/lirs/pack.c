/*
 * pack.c: `lirs pack` turns JSON Lines (the shape `lirs cat` writes) into a
 * LIRS file: EUC-JP and gzip by default.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "cmds.h"
#include "common.h"
#include "jsonw.h"

static const char help[] =
	"usage: lirs pack [-o FILE] [--utf8] [--no-gzip] [FILE]\n"
	"\n"
	"Read JSON Lines records (the shape 'lirs cat' writes; FILE - or no FILE is\n"
	"standard input) and write them as a LIRS 2.1 file: EUC-JP, gzip.\n"
	"Missing keys read as 0 or \"\"; unknown keys are ignored; blank lines are\n"
	"skipped.  A line that is not a record object is reported as FILE:LINE:COL\n"
	"and skipped.\n"
	"\n"
	"  -o, --output FILE      write FILE atomically (temporary file + rename)\n"
	"                         instead of standard output\n"
	"      --utf8             write UTF-8 instead of EUC-JP\n"
	"      --no-gzip          write plain text\n"
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
	lirs_writer *w;
	unsigned long records, bad;
} pack;

static void bad_line(pack *p, unsigned long line, unsigned long col, const char *msg)
{
	if (col)
		fprintf(stderr, "%s:%lu:%lu: error: %s\n", p->name, line, col, msg);
	else
		fprintf(stderr, "%s:%lu: error: %s\n", p->name, line, msg);
	p->bad++;
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", s[i]))
			return 0;
	return 1;
}

/* Packs one line; returns 0, or -1 when the writer failed. */
static int pack_line(pack *p, char *s, size_t n, unsigned long line)
{
	lirs_json_record jr;
	unsigned long col;
	char err[256];
	int rc;

	/* A UTF-8 byte order mark some editors add. */
	if (line == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3;
		n -= 3;
	}
	if (blank(s, n))
		return 0;
	if (lirs_record_from_json(&jr, s, n, &col, err, sizeof err) < 0) {
		bad_line(p, line, col, err);
		return 0;
	}
	jr.rec.line = line;
	rc = lirs_writer_add(p->w, &jr.rec);
	lirs_json_record_release(&jr);
	if (rc < 0)
		return -1;
	p->records++;
	return 0;
}

/* Reads every line of in; CLI_OK, or CLI_FATAL after printing why. */
static int pack_stream(pack *p, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	int status = CLI_OK;

	errno = 0;
	while ((n = getline(&line, &cap, in)) >= 0) {
		if (pack_line(p, line, (size_t)n, ++lineno) < 0) {
			cli_write_error(p->out);
			status = CLI_FATAL;
			break;
		}
	}
	if (status == CLI_OK && ferror(in)) {
		cli_error("cannot read '%s': %s", p->name, strerror(errno));
		status = CLI_FATAL;
	}
	free(line);
	return status;
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
	int status;

	wo->sink = lirs_sink_stdio;
	wo->ctx = fp;
	if (!(p->w = lirs_writer_new(wo))) {
		cli_error("cannot start the LIRS writer: %s", lirs_strerror(LIRS_ENOMEM));
		return CLI_FATAL;
	}
	status = pack_stream(p, in);
	if (status == CLI_OK && lirs_writer_finish(p->w) < 0) {
		cli_write_error(p->out);
		status = CLI_FATAL;
	}
	cli_writer_warnings(p->w);
	lirs_writer_free(p->w);
	if (status == CLI_OK && p->bad)
		status = CLI_PROBLEMS;
	return status;
}

static int run_to_file(pack *p, lirs_writer_opts *wo, FILE *in, const char *out)
{
	afile af;
	int status;

	if (afile_open(&af, out) < 0) {
		cli_error("cannot create '%s': %s", out, strerror(errno));
		return CLI_FATAL;
	}
	p->out = out;
	status = run(p, wo, in, af.fp);
	if (status == CLI_FATAL) {
		afile_abort(&af);
	} else if (afile_commit(&af) < 0) {
		cli_error("cannot write '%s': %s", out, strerror(errno));
		status = CLI_FATAL;
	}
	return status;
}

int cmd_pack(int argc, char **argv)
{
	enum { O_UTF8 = 256, O_NOGZIP };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "utf8", no_argument, NULL, O_UTF8 },
		{ "no-gzip", no_argument, NULL, O_NOGZIP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lirs_writer_opts wo = { 0 };
	pack p = { 0 };
	const char *out = NULL, *path = "-";
	FILE *in;
	int opt, status;

	while ((opt = cli_getopt(argc, argv, "o:h", lopts, help)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case O_UTF8: wo.utf8 = 1; break;
		case O_NOGZIP: wo.no_gzip = 1; break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(help, "at most one FILE");
	if (optind < argc)
		path = argv[optind];
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
