/*
 * validate.c: `lirs validate`, the linter.  The reader reports what is
 * wrong with the bytes and the syntax; the checker (src/lirs/validate.c) what
 * is wrong with the values; the report of both is built by
 * src/lirs/validate_report.c (lirs_vreport.h) and written out here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "common.h"
#include "lirs_vreport.h"

static const char help[] =
	"usage: lirs validate [--now EPOCH] [--max-age SECONDS] [--max-future SECONDS] [--format text|jsonl] [--charset CS] [-q] [-v] [--max-decoded BYTES] [--max-line BYTES] FILE...\n"
	"\n"
	"Check LIRS files (FILE - is standard input) against LIRS 2.1 and report\n"
	"each problem as FILE:LINE:COL: error|warning: MESSAGE [RULE], then one\n"
	"summary line per file: FILE: N records, N errors, N warnings.\n"
	"A warning that fires on more than 3 lines of a file is listed for its\n"
	"first 3 lines, then one note says how many more; a file in a known writer's\n"
	"layout (samidare, tama) is named so in one note, and a file that breaks a\n"
	"MUST of LIRS 2.1 gets one note with its class: nonconforming (readers cope)\n"
	"or error (data lost).  The rules and their classes are listed in lirs(5).\n"
	"\n"
	"      --now EPOCH        the time for the future/stale rules (default: now)\n"
	"      --max-age SECONDS  records last detected longer ago are stale\n"
	"                         (default 28800, LIRS 2.1 section 4)\n"
	"      --max-future SECONDS  clock skew lirs merge and lirs atom tolerate: a\n"
	"                         later time is an error, future-dropped (default 3600)\n"
	"  -f, --format FMT       text (default) or jsonl (json is the same): JSON Lines,\n"
	"                         one object per diagnostic (\"type\":\"diagnostic\") and\n"
	"                         per file (\"type\":\"summary\"); it lists every diagnostic\n"
	"      --charset CS       cp932 (or sjis, shift_jis): read the files as Shift_JIS\n"
	"  -q, --quiet            do not print warnings and notes (they are still counted)\n"
	"  -v, --verbose          list every line a rule fires on (no summarising)\n"
	"      --max-decoded BYTES  stop an input that decodes to more (default 1G)\n"
	"      --max-line BYTES   longer lines are errors (default 1M)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 the files conform (warnings of SHOULD rules allowed);\n"
	"1 some file breaks a MUST of LIRS 2.1 that readers cope with, nothing lost;\n"
	"2 data lost (any error), a file that cannot be read, or a usage error.\n";

/*
 * duplicate-url's URL keys go to an unlinked temporary file in $TMPDIR
 * (or /tmp): the checker keeps only 16 bytes per URL in memory.  Without
 * one, the keys stay in memory (a warning says so).
 */
static int scratch_file(void)
{
	const char *dir = getenv("TMPDIR");
	lb_buf path = LB_BUF_INIT;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	lb_buf_addf(&path, "%s/lirs-validate-XXXXXX", dir);
	if ((fd = mkstemp(path.data)) >= 0)
		unlink(path.data);
	else
		cli_error("warning: cannot create a temporary file in '%s': %s; the URL keys stay in memory",
			  dir, strerror(errno));
	lb_buf_release(&path);
	return fd;
}

/* Writes the report out once a chunk is full, and at the end of each file;
 * *failed (ctx) once a write failed. */
static int flush_out(void *ctx, lb_buf *out, int last)
{
	if (cli_out_flush(out, stdout, last) < 0)
		*(int *)ctx = 1;
	return *(int *)ctx ? LB_ESINK : 0;
}

/* Validates one file; returns its exit status. */
static int validate_file(lirs_vreport *v, int json, const char *path, const lirs_reader_opts *ro,
			 const lirs_check_opts *co_in)
{
	lirs_check_opts co = *co_in;
	lirs_reader_stats st = { 0 };
	const char *name = cli_display_name(path);
	int rc, lost;

	co.filename = name;
	co.spill_fd = scratch_file();
	co.spill = co.spill_fd >= 0;
	if (lirs_vreport_begin(v, &co) < 0) {
		if (co.spill)
			close(co.spill_fd);
		cli_error("out of memory");
		return CLI_FATAL;
	}
	rc = lirscmd_read(path, ro, &st);
	if ((lost = lirs_vreport_finish(v)) != 0)
		cli_error("%s: the duplicate-url check is incomplete: %s", name, strerror(lost));
	/* A file that could not be opened has no summary in text mode: the message said it. */
	if (lirs_vreport_end(v, &st, rc == 0, rc != LB_EIO || json) < 0)
		rc = LB_ESINK;
	if (co.spill)
		close(co.spill_fd);
	if (rc < 0 || lost)
		return CLI_FATAL;
	/* lirs(1), EXIT STATUS: the file's class */
	switch (lirs_vreport_class(v)) {
	case LIRS_CLASS_LOST: return CLI_FATAL;
	case LIRS_CLASS_COPED: return LIRSCMD_PROBLEMS;
	default: return CLI_OK;
	}
}

/* The options into vo, ro and co; 0, -1 after --help, or CLI_FATAL (printed). */
static int parse_opts(int argc, char **argv, lirs_vreport_opts *vo, lirs_reader_opts *ro,
		      lirs_check_opts *co)
{
	enum { O_NOW = 256, O_MAXAGE, O_MAXDEC, O_MAXLINE, O_FUTURE, O_CHARSET };
	static const struct option lopts[] = {
		{ "now", required_argument, NULL, O_NOW },
		{ "max-age", required_argument, NULL, O_MAXAGE },
		{ "max-future", required_argument, NULL, O_FUTURE },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-decoded", required_argument, NULL, O_MAXDEC },
		{ "max-line", required_argument, NULL, O_MAXLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = cli_getopt(argc, argv, "f:qvh", lopts, help)) != -1) {
		switch (opt) {
		case O_NOW:
			if (cli_parse_int64("--now", optarg, 0, INT64_MAX / 2, &co->now) < 0)
				return CLI_FATAL;
			break;
		case O_MAXAGE:
			if (cli_parse_int64("--max-age", optarg, 1, INT64_MAX / 2, &co->max_age) < 0)
				return CLI_FATAL;
			break;
		case O_FUTURE:
			if (cli_parse_int64("--max-future", optarg, 1, INT64_MAX / 2, &co->max_future) < 0)
				return CLI_FATAL;
			break;
		case O_CHARSET:
			if (lirscmd_input_charset(optarg, &ro->charset) != 1)
				return cli_usage_error(help, "--charset: unknown charset '%s' (cp932, sjis "
						       "or shift_jis)", optarg);
			break;
		case 'f':
			/* jsonl as cat and merge say; json, its old name, stays */
			if (strcmp(optarg, "text") && strcmp(optarg, "jsonl") && strcmp(optarg, "json"))
				return cli_usage_error(help, "unknown format '%s'", optarg);
			vo->json = strcmp(optarg, "text") != 0;
			break;
		case 'q': vo->quiet = 1; break;
		case 'v': vo->verbose = 1; break;
		case O_MAXDEC:
			if (cli_parse_bytes("--max-decoded", optarg, &ro->max_decoded) < 0)
				return CLI_FATAL;
			break;
		case O_MAXLINE:
			if (cli_parse_size("--max-line", optarg, &ro->max_line) < 0)
				return CLI_FATAL;
			break;
		case 'h': return cli_help(help), -1;
		default: return CLI_FATAL;
		}
	}
	if (optind >= argc)
		return cli_usage_error(help, "no FILE given (use - for standard input)");
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	int failed = 0;
	lirs_vreport_opts vo = { .flush = flush_out, .ctx = &failed };
	lirs_reader_opts ro = { .on_record = lirs_vreport_record, .on_diag = lirs_vreport_diag };
	lirs_check_opts co = { .now = (int64_t)time(NULL) };
	lirs_vreport *v;
	int rc, status = CLI_OK;

	if ((rc = parse_opts(argc, argv, &vo, &ro, &co)) != 0)
		return rc < 0 ? CLI_OK : CLI_FATAL;
	if (!(v = lirs_vreport_new(&vo)))
		return cli_error("out of memory"), CLI_FATAL;
	ro.ctx = v;
	for (int i = optind; i < argc && !failed; i++) {
		rc = validate_file(v, vo.json, argv[i], &ro, &co);
		if (rc > status)
			status = rc;
	}
	lirs_vreport_free(v);
	if (cli_close_stdout() != CLI_OK)
		status = CLI_FATAL;
	return status;
}
