/*
 * merge.c: `lirs merge` reads LIRS files into one table keyed by URL
 * (src/lirs/lirs_merge.h) and writes one record per URL, newest first.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lb_afile.h"
#include "cmds.h"
#include "common.h"
#include "drops.h"
#include "lirs_jsonw.h"
#include "lirs_merge.h"

static const char help[] =
	"usage: lirs merge [--now EPOCH] [--max-age SECONDS] [--max-future SECONDS]\n"
	"                  [--format lirs|jsonl] [--charset CS] [-o FILE] [-v] INPUT...\n"
	"\n"
	"Merge LIRS files into one, one record per URL.  INPUT - is standard input.\n"
	"URLs are compared with scheme and host lowercased and a default port\n"
	"(:80 for http, :443 for https) dropped; the path is compared as written.\n"
	"For each URL the record with the greater Last-Modified wins, then the\n"
	"greater Last-Detected, then the one from the later INPUT.  Records whose\n"
	"Last-Modified or Last-Detected is 0, or whose URL is blank, are dropped, and\n"
	"so are records last detected more than --max-age seconds before --now, and\n"
	"records whose Last-Modified or Last-Detected is more than --max-future\n"
	"seconds after --now (a peer's clock running ahead must not win).\n"
	"Output order: Last-Modified descending, then URL.\n"
	"\n"
	"      --now EPOCH        the time for the freshness rule (default: the clock)\n"
	"      --max-age SECONDS  drop records detected longer ago (default 28800, LIRS 2.1 4)\n"
	"      --max-future SECONDS  clock skew tolerated: drop records with a time later\n"
	"                         than --now plus this (default 3600; the antenna's rule)\n"
	"  -f, --format FMT       lirs (default): gzip, EUC-JP; jsonl: as lirs cat writes\n"
	"      --charset CS       with --format lirs: euc-jp (default, strict; NEC and\n"
	"                         IBM extensions as readable forms), euc-jp-ms, utf-8;\n"
	"                         cp932 (sjis, shift_jis): read the INPUTs as Shift_JIS\n"
	"      --utf8             with --format lirs: write UTF-8 instead of EUC-JP\n"
	"      --gzip-level N     with --format lirs: 1 (default, fastest) to 9 (smallest)\n"
	"  -o, --output FILE      write FILE atomically instead of standard output\n"
	"  -v, --verbose          print counts (read, kept, replaced, dropped) on standard error\n"
	"  -h, --help             show this help\n"
	"\n"
	"Records that cannot be read are skipped with a diagnostic on standard error,\n"
	"and so are records whose fields a ',' not escaped moved (unescaped-comma)\n"
	"and Shift_JIS lines read as EUC-JP (shift-jis; read them with --charset cp932);\n"
	"records dropped from the future are counted there with their FILE:LINE.\n"
	"Exit status: 0 success; 1 some records were skipped, or dropped from the\n"
	"future (the output is still written); 2 usage error, or an input that cannot\n"
	"be opened or decoded (nothing is written: with -o the target is left untouched).\n"
	"The gzip output is not written to a terminal: use -o FILE, a pipe, or\n"
	"--format jsonl.\n";

/* gzip level of the LIRS output: level 1 deflates about three times faster
 * than 6 for files about 20% larger; merging is on an antenna's hot path. */
#define MERGE_GZIP_LEVEL 1

typedef struct mctx {
	lirs_merge_table *t;
	lirscmd_drops drops;      /* what is left out, said on stderr */
	int jsonl;
	int failed;
	FILE *fp;
	lb_buf out;
	lirs_writer *w;
} mctx;

static int on_record(void *ctx, const lirs_record *r)
{
	mctx *m = ctx;
	/* the table drops by the same rule; here only what and where is noted */
	int why = lirscmd_drops_check(&m->drops, r);

	if (why == LIRSCMD_DROP_SHIFTED || why == LIRSCMD_DROP_SJIS)
		return 0;
	if (lirs_merge_add(m->t, r) != 0) {
		cli_error("out of memory");
		m->failed = 1;
	}
	return m->failed;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	lirscmd_drops_diag(&((mctx *)ctx)->drops, d);
	if (d->severity >= LIRS_SEV_ERROR)
		lirscmd_print_diag(stderr, d);
}

static int emit(void *ctx, const lirs_record *r)
{
	mctx *m = ctx;

	if (!m->jsonl)
		return lirs_writer_add(m->w, r) < 0 ? -1 : 0;
	if (lirs_record_to_json(&m->out, r) < 0 || lb_buf_addc(&m->out, '\n') < 0)
		return -1;
	return cli_out_flush(&m->out, m->fp, 0) < 0 ? -1 : 0;
}

/* Writes the table to fp, named path (NULL: standard output); 0 or -1
 * (message printed). */
static int write_out(mctx *m, const lirs_writer_opts *cs, int level, const char *path)
{
	lirs_writer_opts wo = { .utf8 = cs->utf8, .euc_jp_ms = cs->euc_jp_ms, .level = level,
				.sink = lirs_sink_stdio, .ctx = m->fp };
	int rc;

	if (!m->jsonl && !(m->w = lirs_writer_new(&wo))) {
		cli_error("cannot start the LIRS writer: %s", lb_strerror(LB_ENOMEM));
		return -1;
	}
	/* errno from here on is the output's: reading left iconv's behind */
	errno = 0;
	rc = lirs_merge_each(m->t, emit, m);
	if (rc == 0 && m->w)
		rc = lirs_writer_finish(m->w) < 0 ? -1 : 0;
	if (rc == 0 && m->jsonl)
		rc = cli_out_flush(&m->out, m->fp, 1);
	if (rc != 0 && !errno)
		cli_error("out of memory");
	else if (rc != 0)
		cli_write_error(path);
	else if (m->w)
		lirscmd_writer_warnings(m->w);
	lirs_writer_free(m->w);
	m->w = NULL;
	return rc;
}

static void print_counts(const lirs_merge_stats *s)
{
	cli_error("read %llu records: kept %llu (one per URL), replaced %llu, superseded %llu, "
		  "dropped %llu unusable, %llu stale and %llu from the future",
		  (unsigned long long)s->read, (unsigned long long)s->kept,
		  (unsigned long long)s->replaced, (unsigned long long)s->superseded,
		  (unsigned long long)s->dropped_unusable, (unsigned long long)s->dropped_stale,
		  (unsigned long long)s->dropped_future);
}

static int read_inputs(mctx *m, char **files, int n, int charset)
{
	lirs_reader_opts ro = { .on_record = on_record, .on_diag = on_diag, .ctx = m,
				.charset = charset };

	return lirscmd_read_all(files, n, &ro, &m->failed, &m->drops.file);
}

static int parse_format(const char *s, int *jsonl)
{
	if (!strcmp(s, "lirs"))
		*jsonl = 0;
	else if (!strcmp(s, "jsonl"))
		*jsonl = 1;
	else
		return -1;
	return 0;
}

/* Writes to -o FILE (atomically) or standard output. */
static int output(mctx *m, const char *path, const lirs_writer_opts *cs, int level)
{
	lb_afile a;

	if (!path) {
		m->fp = stdout;
		if (write_out(m, cs, level, NULL) != 0)
			return CLI_FATAL;
		return cli_close_stdout();
	}
	if (lb_afile_open(&a, path) != 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		return CLI_FATAL;
	}
	m->fp = a.fp;
	if (write_out(m, cs, level, path) != 0) {
		lb_afile_abort(&a);
		return CLI_FATAL;
	}
	if (lb_afile_commit(&a) != 0) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		return CLI_FATAL;
	}
	return CLI_OK;
}

int cmd_merge(int argc, char **argv)
{
	enum { O_NOW = 256, O_MAXAGE, O_UTF8, O_LEVEL, O_CHARSET, O_FUTURE };
	static const struct option lopts[] = {
		{ "now", required_argument, NULL, O_NOW },
		{ "max-age", required_argument, NULL, O_MAXAGE },
		{ "max-future", required_argument, NULL, O_FUTURE },
		{ "format", required_argument, NULL, 'f' },
		{ "utf8", no_argument, NULL, O_UTF8 },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "gzip-level", required_argument, NULL, O_LEVEL },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lirs_merge_opts mo = { .now = (int64_t)time(NULL), .max_age = LIRS_DEFAULT_MAX_AGE,
			  .max_future = LIRS_DEFAULT_MAX_FUTURE };
	mctx m = { .out = LB_BUF_INIT };
	const char *outpath = NULL;
	int64_t level = MERGE_GZIP_LEVEL;
	lirs_writer_opts cs = { 0 };   /* the output charset */
	int opt, verbose = 0, status, rc, incs = LIRS_CHARSET_AUTO;

	while ((opt = cli_getopt(argc, argv, "f:o:vh", lopts, help)) != -1) {
		switch (opt) {
		case O_NOW:
			if (cli_parse_int64("--now", optarg, 0, INT64_MAX / 2, &mo.now) < 0)
				return CLI_FATAL;
			break;
		case O_MAXAGE:
			if (cli_parse_int64("--max-age", optarg, 1, INT64_MAX / 2, &mo.max_age) < 0)
				return CLI_FATAL;
			break;
		case O_FUTURE:
			if (cli_parse_int64("--max-future", optarg, 1, INT64_MAX / 2, &mo.max_future) < 0)
				return CLI_FATAL;
			break;
		case 'f':
			if (parse_format(optarg, &m.jsonl) < 0)
				return cli_usage_error(help, "unknown format '%s'", optarg);
			break;
		case O_UTF8: cs.utf8 = 1; cs.euc_jp_ms = 0; break;
		case O_CHARSET:
			if (!lirscmd_input_charset(optarg, &incs) &&
			    lirscmd_parse_charset(help, optarg, &cs) < 0)
				return CLI_FATAL;
			break;
		case O_LEVEL:
			if (cli_parse_int64("--gzip-level", optarg, 1, 9, &level) < 0)
				return CLI_FATAL;
			break;
		case 'o': outpath = optarg; break;
		case 'v': verbose = 1; break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (optind >= argc)
		return cli_usage_error(help, "no INPUT given");
	/* gzip bytes on a terminal garble it, as gzip itself refuses to */
	if (!m.jsonl && !outpath && isatty(STDOUT_FILENO))
		return cli_usage_error(help, "compressed data not written to a terminal; "
				       "use -o FILE or --format jsonl");
	/* every input must open before any is read: nothing is written on failure */
	if (cli_check_inputs(argv + optind, argc - optind) != 0)
		return CLI_FATAL;
	if (!(m.t = lirs_merge_new(&mo))) {
		cli_error("out of memory");
		return CLI_FATAL;
	}
	lirscmd_drops_init(&m.drops, mo.now, mo.max_age, mo.max_future);
	status = read_inputs(&m, argv + optind, argc - optind, incs);
	if (verbose)
		print_counts(lirs_merge_get_stats(m.t));
	if (lirscmd_drops_report(&m.drops) && status < LIRSCMD_PROBLEMS)
		status = LIRSCMD_PROBLEMS;
	lirscmd_drops_release(&m.drops);
	if (status != CLI_FATAL && (rc = output(&m, outpath, &cs, (int)level)) > status)
		status = rc;
	lirs_merge_free(m.t);
	lb_buf_release(&m.out);
	return status;
}
