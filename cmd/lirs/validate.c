/*
 * validate.c: `lirs validate`, the linter.  The reader reports what is
 * wrong with the bytes and the syntax; the checker (src/validate.c) what
 * is wrong with the values.  Both arrive here as diagnostics.
 */
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "common.h"
#include "jsonw.h"

static const char help[] =
	"usage: lirs validate [--now EPOCH] [--max-age SECONDS] [--format text|json] [-q] [--max-decoded BYTES] [--max-line BYTES] FILE...\n"
	"\n"
	"Check LIRS files (FILE - is standard input) against LIRS 2.1 and report\n"
	"every problem as FILE:LINE:COL: error|warning: MESSAGE [RULE], then one\n"
	"summary line per file: FILE: N records, N errors, N warnings.\n"
	"The rules are listed in lirs(5).\n"
	"\n"
	"      --now EPOCH        the time for the future/stale rules (default: now)\n"
	"      --max-age SECONDS  records last detected longer ago are stale\n"
	"                         (default 28800, LIRS 2.1 section 4)\n"
	"  -f, --format FMT       text (default) or json: JSON Lines, one object per\n"
	"                         diagnostic (\"type\":\"diagnostic\") and per file\n"
	"                         (\"type\":\"summary\")\n"
	"  -q, --quiet            do not print warnings (they are still counted)\n"
	"      --max-decoded BYTES  stop an input that decodes to more (default 1G)\n"
	"      --max-line BYTES   longer lines are errors (default 1M)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage error or a\n"
	"file that cannot be read (missing, corrupt or truncated gzip, over the\n"
	"decompression limit).\n";

typedef struct vctx {
	int json, quiet;
	lbuf out;
	lirs_checker *chk;
	unsigned long errors, warnings;
	int failed;               /* writing failed */
} vctx;

static void emit_json(lbuf *b, const lirs_diag *d)
{
	lbuf_adds(b, "{\"type\":\"diagnostic\",\"file\":");
	jsonw_strz(b, d->file);
	lbuf_adds(b, ",\"line\":");
	jsonw_int(b, (int64_t)d->line);
	lbuf_adds(b, ",\"col\":");
	jsonw_int(b, (int64_t)d->col);
	lbuf_adds(b, ",\"severity\":");
	jsonw_strz(b, lirs_severity_name(d->severity));
	lbuf_adds(b, ",\"rule\":");
	jsonw_strz(b, lirs_rule_id(d->rule));
	lbuf_adds(b, ",\"field\":");
	if (d->field)
		jsonw_strz(b, d->field);
	else
		lbuf_adds(b, "null");
	lbuf_adds(b, ",\"message\":");
	jsonw_strz(b, d->message ? d->message : lirs_rule_summary(d->rule));
	lbuf_addf(b, ",\"skipped\":%s}\n", d->skipped ? "true" : "false");
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	vctx *v = ctx;

	if (d->severity == LIRS_SEV_ERROR)
		v->errors++;
	else if (d->severity == LIRS_SEV_WARNING)
		v->warnings++;
	if (v->quiet && d->severity < LIRS_SEV_ERROR)
		return;
	if (v->json) {
		emit_json(&v->out, d);
	} else {
		cli_format_diag(&v->out, d);
		lbuf_addc(&v->out, '\n');
	}
	if (cli_out_flush(&v->out, stdout, 0) < 0)
		v->failed = 1;
}

static int on_record(void *ctx, const lirs_record *r)
{
	vctx *v = ctx;

	lirs_checker_check(v->chk, r);
	return v->failed;
}

static void summary(vctx *v, const char *name, const lirs_reader_stats *st, int readable)
{
	if (!v->json) {
		lbuf_addf(&v->out, "%s: %lu records, %lu errors, %lu warnings\n",
			  name, st->records, v->errors, v->warnings);
		return;
	}
	lbuf_adds(&v->out, "{\"type\":\"summary\",\"file\":");
	jsonw_strz(&v->out, name);
	lbuf_addf(&v->out, ",\"readable\":%s,\"records\":%lu,\"skipped\":%lu,"
		  "\"errors\":%lu,\"warnings\":%lu}\n", readable ? "true" : "false",
		  st->records, st->skipped, v->errors, v->warnings);
}

/* Validates one file; returns its exit status. */
static int validate_file(vctx *v, const char *path, const lirs_reader_opts *ro,
			 const lirs_check_opts *co_in)
{
	lirs_check_opts co = *co_in;
	lirs_reader_stats st = { 0 };
	const char *name = cli_display_name(path);
	int rc;

	co.filename = name;
	co.on_diag = on_diag;
	co.ctx = v;
	if (!(v->chk = lirs_checker_new(&co))) {
		cli_error("out of memory");
		return CLI_FATAL;
	}
	v->errors = v->warnings = 0;
	rc = cli_read(path, ro, &st);
	lirs_checker_free(v->chk);
	v->chk = NULL;
	/* A file that could not be opened has no summary in text mode: the message said it. */
	if (rc != CLI_EIO || v->json)
		summary(v, name, &st, rc == 0);
	if (cli_out_flush(&v->out, stdout, 1) < 0 || v->failed)
		return CLI_FATAL;
	if (rc < 0)
		return CLI_FATAL;
	return v->errors ? CLI_PROBLEMS : CLI_OK;
}

int cmd_validate(int argc, char **argv)
{
	enum { O_NOW = 256, O_MAXAGE, O_MAXDEC, O_MAXLINE };
	static const struct option lopts[] = {
		{ "now", required_argument, NULL, O_NOW },
		{ "max-age", required_argument, NULL, O_MAXAGE },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-decoded", required_argument, NULL, O_MAXDEC },
		{ "max-line", required_argument, NULL, O_MAXLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	vctx v = { .out = LBUF_INIT };
	lirs_reader_opts ro = { .on_record = on_record, .on_diag = on_diag, .ctx = &v };
	lirs_check_opts co = { .now = (int64_t)time(NULL) };
	uint64_t u;
	int opt, status = CLI_OK;

	while ((opt = cli_getopt(argc, argv, "f:qh", lopts, help)) != -1) {
		switch (opt) {
		case O_NOW:
			if (cli_parse_int64("--now", optarg, 0, INT64_MAX / 2, &co.now) < 0)
				return CLI_FATAL;
			break;
		case O_MAXAGE:
			if (cli_parse_int64("--max-age", optarg, 1, INT64_MAX / 2, &co.max_age) < 0)
				return CLI_FATAL;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return cli_usage_error(help, "unknown format '%s'", optarg);
			v.json = !strcmp(optarg, "json");
			break;
		case 'q': v.quiet = 1; break;
		case O_MAXDEC:
			if (cli_parse_bytes("--max-decoded", optarg, &ro.max_decoded) < 0)
				return CLI_FATAL;
			break;
		case O_MAXLINE:
			if (cli_parse_bytes("--max-line", optarg, &u) < 0)
				return CLI_FATAL;
			ro.max_line = (size_t)u;
			break;
		case 'h': return cli_help(help);
		default: return CLI_FATAL;
		}
	}
	if (optind >= argc)
		return cli_usage_error(help, "no FILE given (use - for standard input)");
	for (int i = optind; i < argc; i++) {
		int rc = validate_file(&v, argv[i], &ro, &co);
		if (rc > status)
			status = rc;
		if (v.failed)
			break;
	}
	lbuf_release(&v.out);
	if (cli_close_stdout() != CLI_OK)
		status = CLI_FATAL;
	return status;
}
