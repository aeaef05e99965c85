/*
 * cat.c: `lirs cat` decodes LIRS files to standard output as JSON Lines
 * (the default), TSV or LIRS text.
 */
#include <string.h>

#include "cmds.h"
#include "common.h"
#include "drops.h"
#include "lirs_jsonw.h"

static const char help[] =
	"usage: lirs cat [--format jsonl|tsv|lirs|di] [--charset CS] [--utf8] [--gzip] [--max-decoded BYTES] [--max-line BYTES] [FILE...]\n"
	"\n"
	"Decode LIRS files (gzip or plain, EUC-JP or UTF-8) to standard output.\n"
	"HINA-DI and hina.txt files are read too, found by their first line (lirs(5)).\n"
	"With no FILE, or when FILE is -, read standard input.\n"
	"\n"
	"  -f, --format FMT       jsonl (default): one JSON object per record;\n"
	"                         tsv: tab-separated fields, \\t \\n \\r \\\\ escaped;\n"
	"                         lirs: LIRS text (EUC-JP, not compressed);\n"
	"                         di: HINA-DI text (UTF-8, not compressed)\n"
	"      --charset CS       with --format lirs: euc-jp (default, strict; NEC and\n"
	"                         IBM extensions as readable forms), euc-jp-ms, utf-8;\n"
	"                         cp932 (sjis, shift_jis): read the FILEs as Shift_JIS\n"
	"      --utf8             with --format lirs: write UTF-8 instead of EUC-JP\n"
	"      --gzip             with --format lirs or di: gzip the output\n"
	"      --max-decoded BYTES  stop an input that decodes to more (default 1G;\n"
	"                         K, M, G suffixes)\n"
	"      --max-line BYTES   skip longer lines (default 1M); with --format lirs or\n"
	"                         di, a record written with a longer line is left out\n"
	"  -h, --help             show this help\n"
	"\n"
	"Records that cannot be read are skipped with a diagnostic on standard error\n"
	"(FILE:LINE:COL: error: MESSAGE [RULE]), and so are records whose fields a ','\n"
	"not escaped moved (unescaped-comma) and Shift_JIS lines (shift-jis; read them\n"
	"with --charset cp932), counted with their FILE:LINE.  Exit status: 0 every\n"
	"record was read as written; 1 some records were skipped, or damaged (bytes\n"
	"replaced by U+FFFD); 2 usage error or unreadable input.\n";

enum fmt { FMT_JSONL, FMT_TSV, FMT_LIRS, FMT_DI };

typedef struct cat {
	enum fmt fmt;
	lb_buf out;
	lirs_writer *w;
	lirscmd_drops drops;      /* the shifted and Shift_JIS records skipped */
	unsigned long damaged;    /* records given with bytes replaced by U+FFFD */
	int failed;               /* writing failed: stop everything */
} cat;

/* TSV escaping (as sfeed(5)): \ -> \\, TAB -> \t, LF -> \n, CR -> \r. */
static int tsv_field(lb_buf *b, const char *s)
{
	const char *p = s;

	for (;;) {
		size_t run = strcspn(p, "\\\t\n\r");
		if (lb_buf_add(b, p, run) < 0)
			return -1;
		p += run;
		if (!*p)
			return 0;
		if (lb_buf_addc(b, '\\') < 0 ||
		    lb_buf_addc(b, *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : '\\') < 0)
			return -1;
		p++;
	}
}

static int tsv_record(lb_buf *b, const lirs_record *r)
{
	const char *strs[] = { r->url, r->title, r->author, r->source_url, r->extension };

	if (lb_buf_addf(b, "%lld\t%lld\t%lld\t%lld", (long long)r->last_modified,
		      (long long)r->last_detected, (long long)r->tz_offset,
		      (long long)r->content_length) < 0)
		return -1;
	for (size_t i = 0; i < 5; i++)
		if (lb_buf_addc(b, '\t') < 0 || tsv_field(b, strs[i]) < 0)
			return -1;
	for (size_t i = 0; i < r->nextra; i++)
		if (lb_buf_addc(b, '\t') < 0 || tsv_field(b, r->extra[i]) < 0)
			return -1;
	return lb_buf_addc(b, '\n');
}

static int on_record(void *ctx, const lirs_record *r)
{
	cat *c = ctx;
	int rc;

	if (lirscmd_drops_skip(&c->drops, r))
		return 0;
	switch (c->fmt) {
	case FMT_LIRS:
	case FMT_DI:
		if (lirs_writer_add(c->w, r) < 0) {
			cli_write_error(NULL);
			c->failed = 1;
		}
		return c->failed;
	case FMT_TSV:
		rc = tsv_record(&c->out, r);
		break;
	default:
		rc = lirs_record_to_json(&c->out, r);
		if (rc == 0)
			rc = lb_buf_addc(&c->out, '\n');
		break;
	}
	if (rc < 0) {
		cli_error("out of memory");
		c->failed = 1;
	} else if (cli_out_flush(&c->out, stdout, 0) < 0) {
		c->failed = 1;
	}
	return c->failed;
}

/* cat shows what it could not read; `lirs validate` shows the rest. */
static void on_diag(void *ctx, const lirs_diag *d)
{
	cat *c = ctx;

	lirscmd_drops_diag(&c->drops, d);
	if (d->severity < LIRS_SEV_ERROR)
		return;
	/* the reader's replacements: the record is given, not as written */
	if (d->rule == LIRS_R_INVALID_ENCODING || d->rule == LIRS_R_NUL_BYTE)
		c->damaged++;
	/* Keep stdout and stderr in order when both go to one terminal. */
	cli_out_flush(&c->out, stdout, 1);
	fflush(stdout);
	lirscmd_print_diag(stderr, d);
}

static int parse_format(const char *s, enum fmt *f)
{
	if (!strcmp(s, "jsonl"))
		*f = FMT_JSONL;
	else if (!strcmp(s, "tsv"))
		*f = FMT_TSV;
	else if (!strcmp(s, "lirs"))
		*f = FMT_LIRS;
	else if (!strcmp(s, "di"))
		*f = FMT_DI;
	else
		return -1;
	return 0;
}

/* Reads every file; returns the worst status. */
static int cat_files(cat *c, lirs_reader_opts *ro, char **files, int n)
{
	static char *stdin_only[] = { "-" };
	int status = CLI_OK;

	if (n == 0) {
		files = stdin_only;
		n = 1;
	}
	for (int i = 0; i < n && !c->failed; i++) {
		lirs_reader_stats st = { 0 };
		int rc;

		c->drops.file = cli_display_name(files[i]);
		if ((rc = lirscmd_read(files[i], ro, &st)) < 0)
			status = CLI_FATAL;
		else if ((st.skipped > 0) && status < LIRSCMD_PROBLEMS)
			status = LIRSCMD_PROBLEMS;
	}
	if ((lirscmd_drops_report(&c->drops) || c->damaged) && status < LIRSCMD_PROBLEMS)
		status = LIRSCMD_PROBLEMS;
	return c->failed ? CLI_FATAL : status;
}

static int finish_lirs(cat *c)
{
	if (lirs_writer_finish(c->w) < 0) {
		cli_write_error(NULL);
		return CLI_FATAL;
	}
	lirscmd_writer_warnings(c->w);
	return CLI_OK;
}

int cmd_cat(int argc, char **argv)
{
	enum { O_MAXDEC = 256, O_MAXLINE, O_UTF8, O_GZIP, O_CHARSET };
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "utf8", no_argument, NULL, O_UTF8 },
		{ "gzip", no_argument, NULL, O_GZIP },
		{ "charset", required_argument, NULL, O_CHARSET },
		{ "max-decoded", required_argument, NULL, O_MAXDEC },
		{ "max-line", required_argument, NULL, O_MAXLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cat c = { .fmt = FMT_JSONL, .out = LB_BUF_INIT };
	lirs_reader_opts ro = { .on_record = on_record, .on_diag = on_diag, .ctx = &c };
	lirs_writer_opts wo = { .no_gzip = 1, .sink = lirs_sink_stdio, .ctx = stdout };
	int opt, status, rc, charset_given = 0;

	while ((opt = cli_getopt(argc, argv, "f:h", lopts, help)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_format(optarg, &c.fmt) < 0)
				return cli_usage_error(help, "unknown format '%s'", optarg);
			break;
		case O_UTF8: wo.utf8 = 1; charset_given = 1; break;
		case O_GZIP: wo.no_gzip = 0; break;
		case O_CHARSET:
			if (lirscmd_input_charset(optarg, &ro.charset))
				break;
			if (lirscmd_parse_charset(help, optarg, &wo) < 0)
				return CLI_FATAL;
			charset_given = 1;
			break;
		case O_MAXDEC:
			if (cli_parse_bytes("--max-decoded", optarg, &ro.max_decoded) < 0)
				return CLI_FATAL;
			break;
		case O_MAXLINE:
			if (cli_parse_size("--max-line", optarg, &ro.max_line) < 0)
				return CLI_FATAL;
			break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (c.fmt == FMT_DI) {
		wo.format = LIRS_FORMAT_DI;
		if (!charset_given)
			wo.utf8 = 1;   /* as tama wrote it */
	}
	wo.max_line = ro.max_line;   /* what it reads whole, it writes whole */
	if ((c.fmt == FMT_LIRS || c.fmt == FMT_DI) && !(c.w = lirs_writer_new(&wo))) {
		cli_error("cannot start the LIRS writer: %s", lb_strerror(LB_ENOMEM));
		return CLI_FATAL;
	}
	lirscmd_drops_init(&c.drops, 0, 0, 0);
	status = cat_files(&c, &ro, argv + optind, argc - optind);
	lirscmd_drops_release(&c.drops);
	if (c.w) {
		if ((rc = finish_lirs(&c)) > status)
			status = rc;
		lirs_writer_free(c.w);
	}
	if (cli_out_flush(&c.out, stdout, 1) < 0)
		status = CLI_FATAL;
	lb_buf_release(&c.out);
	if ((rc = cli_close_stdout()) > status)
		status = rc;
	return status;
}
