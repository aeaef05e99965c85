/*
 * validate.c: `lirs validate`, the linter.  The reader reports what is
 * wrong with the bytes and the syntax; the checker (src/lirs/validate.c) what
 * is wrong with the values.  Both arrive here as diagnostics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "common.h"
#include "lirs_jsonw.h"

static const char help[] =
	"usage: lirs validate [--now EPOCH] [--max-age SECONDS] [--format text|json] [-q] [-v] [--max-decoded BYTES] [--max-line BYTES] FILE...\n"
	"\n"
	"Check LIRS files (FILE - is standard input) against LIRS 2.1 and report\n"
	"each problem as FILE:LINE:COL: error|warning: MESSAGE [RULE], then one\n"
	"summary line per file: FILE: N records, N errors, N warnings.\n"
	"A warning that fires on more than 3 lines of a file is listed for its\n"
	"first 3 lines, then one note says how many more; a file in a known writer's\n"
	"layout (samidare, tama) is named so in one note.  The rules are listed\n"
	"in lirs(5).\n"
	"\n"
	"      --now EPOCH        the time for the future/stale rules (default: now)\n"
	"      --max-age SECONDS  records last detected longer ago are stale\n"
	"                         (default 28800, LIRS 2.1 section 4)\n"
	"  -f, --format FMT       text (default) or json: JSON Lines, one object per\n"
	"                         diagnostic (\"type\":\"diagnostic\") and per file\n"
	"                         (\"type\":\"summary\"); it lists every diagnostic\n"
	"  -q, --quiet            do not print warnings (they are still counted)\n"
	"  -v, --verbose          list every line a rule fires on (no summarising)\n"
	"      --max-decoded BYTES  stop an input that decodes to more (default 1G)\n"
	"      --max-line BYTES   longer lines are errors (default 1M)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage error or a\n"
	"file that cannot be read (missing, corrupt or truncated gzip, over the\n"
	"decompression limit).\n";

/* Lines of one rule listed per file before the rest are only counted. */
#define SUMMARY_AFTER 3
/* Diagnostics held back until the file's layout is decided (bounded:
 * past this many, they are printed as they come). */
#define HOLD_MAX 4096

/* A diagnostic held back: its message and field live in vctx.held_text. */
typedef struct held {
	lirs_diag d;
	size_t msg, field;        /* offsets into held_text; field (size_t)-1: NULL */
	size_t seq;
} held;

typedef struct vctx {
	int json, quiet, verbose;
	lb_buf out;
	lirs_checker *chk;
	unsigned long errors, warnings;
	/* per file and rule: diagnostics seen, the highest line, and printed */
	unsigned long count[LIRS_R__COUNT], last[LIRS_R__COUNT], shown[LIRS_R__COUNT];
	/* Until the checker decides the file's usual field count, whose
	 * backslash-shift errors for the first records come only then,
	 * diagnostics wait here and are printed in line order. */
	int holding;
	held *held;
	size_t nheld, heldcap;
	lb_buf held_text;
	int failed;               /* writing failed */
} vctx;

static void emit_json(lb_buf *b, const lirs_diag *d)
{
	lb_buf_adds(b, "{\"type\":\"diagnostic\",\"file\":");
	lirs_jsonw_strz(b, d->file);
	lb_buf_adds(b, ",\"line\":");
	lirs_jsonw_int(b, (int64_t)d->line);
	lb_buf_adds(b, ",\"col\":");
	lirs_jsonw_int(b, (int64_t)d->col);
	lb_buf_adds(b, ",\"severity\":");
	lirs_jsonw_strz(b, lirs_severity_name(d->severity));
	lb_buf_adds(b, ",\"rule\":");
	lirs_jsonw_strz(b, lirs_rule_id(d->rule));
	lb_buf_adds(b, ",\"field\":");
	if (d->field)
		lirs_jsonw_strz(b, d->field);
	else
		lb_buf_adds(b, "null");
	lb_buf_adds(b, ",\"message\":");
	lirs_jsonw_strz(b, d->message ? d->message : lirs_rule_summary(d->rule));
	lb_buf_addf(b, ",\"skipped\":%s}\n", d->skipped ? "true" : "false");
}

/* Text mode lists a warning rule's first SUMMARY_AFTER lines of a file
 * (all with -v), every error, and in JSON every diagnostic. */
static int listed(vctx *v, const lirs_diag *d)
{
	if (v->json || v->verbose || d->severity == LIRS_SEV_ERROR ||
	    v->shown[d->rule] < SUMMARY_AFTER) {
		v->shown[d->rule]++;
		return 1;
	}
	return 0;
}

static void print_diag(vctx *v, const lirs_diag *d)
{
	if (v->json) {
		emit_json(&v->out, d);
	} else {
		lirscmd_format_diag(&v->out, d);
		lb_buf_addc(&v->out, '\n');
	}
	if (cli_out_flush(&v->out, stdout, 0) < 0)
		v->failed = 1;
}

static int by_line(const void *a, const void *b)
{
	const held *x = a, *y = b;

	if (x->d.line != y->d.line)
		return x->d.line < y->d.line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Prints what was held, in line order, and stops holding. */
static void release(vctx *v)
{
	if (!v->holding)
		return;
	v->holding = 0;
	if (v->nheld)   /* qsort(NULL, 0, ...) is undefined */
		qsort(v->held, v->nheld, sizeof *v->held, by_line);
	for (size_t i = 0; i < v->nheld; i++) {
		held *h = &v->held[i];
		h->d.message = v->held_text.data + h->msg;
		h->d.field = h->field == (size_t)-1 ? NULL : v->held_text.data + h->field;
		if (listed(v, &h->d))
			print_diag(v, &h->d);
	}
	v->nheld = 0;
	lb_buf_reset(&v->held_text);
}

/* Keeps a copy of d; 0, or -1 when it cannot (then it is printed now). */
static int hold(vctx *v, const lirs_diag *d)
{
	held *h;

	if (v->nheld >= HOLD_MAX ||
	    !(h = lb_grow(v->held, &v->heldcap, v->nheld + 1, sizeof *h, 64)))
		return -1;
	v->held = h;
	h = &v->held[v->nheld];
	h->d = *d;
	h->seq = v->nheld;
	h->msg = v->held_text.len;
	h->field = (size_t)-1;
	if (lb_buf_add(&v->held_text, d->message ? d->message : lirs_rule_summary(d->rule),
		     strlen(d->message ? d->message : lirs_rule_summary(d->rule)) + 1) < 0)
		return -1;
	if (d->field) {
		h->field = v->held_text.len;
		if (lb_buf_add(&v->held_text, d->field, strlen(d->field) + 1) < 0)
			return -1;
	}
	v->nheld++;
	return 0;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	vctx *v = ctx;

	if (d->severity == LIRS_SEV_ERROR)
		v->errors++;
	else if (d->severity == LIRS_SEV_WARNING)
		v->warnings++;
	v->count[d->rule]++;
	if (d->line > v->last[d->rule])
		v->last[d->rule] = d->line;
	if (v->quiet && d->severity < LIRS_SEV_ERROR)
		return;
	if (v->holding && hold(v, d) == 0)
		return;
	release(v);   /* too many held: print them, then this one */
	if (listed(v, d))
		print_diag(v, d);
}

static int on_record(void *ctx, const lirs_record *r)
{
	vctx *v = ctx;

	lirs_checker_check(v->chk, r);
	if (v->holding) {
		lirs_layout l;
		lirs_checker_layout(v->chk, &l);
		if (l.decided)
			release(v);
	}
	return v->failed;
}

/* A note for the whole file (line 0), printed like any diagnostic. */
static void note(vctx *v, const char *name, lirs_rule rule, const char *msg)
{
	lirs_diag d = { .file = name, .rule = rule, .severity = LIRS_SEV_NOTE, .message = msg };

	if (!v->quiet)
		print_diag(v, &d);
}

/*
 * "layout: tama (13 fields, no trailing comma) on 6 of 7 records": once
 * per file whose records mostly have a shape other than LIRS 2.1's; for a
 * shape no known writer has, only when it is more than a few records'.
 */
static void layout_note(vctx *v, const char *name, const lirs_layout *l,
			unsigned long records)
{
	lb_buf m = LB_BUF_INIT;

	if (!l->records || !l->nusual || (!l->name && l->records <= SUMMARY_AFTER))
		return;
	lb_buf_addf(&m, "layout: %s%s%u fields, %s trailing comma%s on %lu of %lu records: ",
		  l->name ? l->name : "", l->name ? " (" : "", l->nfields,
		  l->trailing_comma ? "a" : "no", l->name ? ")" : " (no known writer)",
		  l->records, records);
	for (size_t i = 0; i < l->nusual; i++)
		lb_buf_addf(&m, "%s%s", i ? " and " : "", lirs_rule_id(l->usual[i]));
	lb_buf_adds(&m, " expected on each");
	note(v, name, LIRS_R_LAYOUT, m.data);
	lb_buf_release(&m);
}

/* "and N more": one note per warning rule whose lines were not all listed. */
static void more_notes(vctx *v, const char *name)
{
	char msg[256];

	if (v->json || v->verbose || v->quiet)
		return;
	for (int r = 0; r < LIRS_R__COUNT; r++) {
		if (v->count[r] <= v->shown[r] || lirs_rule_severity((lirs_rule)r) == LIRS_SEV_ERROR)
			continue;
		snprintf(msg, sizeof msg, "and %lu more %s %ss, the last on line %lu; -v lists every line",
			 v->count[r] - v->shown[r], lirs_rule_id((lirs_rule)r),
			 lirs_severity_name(lirs_rule_severity((lirs_rule)r)), v->last[r]);
		note(v, name, (lirs_rule)r, msg);
	}
}

static void summary(vctx *v, const char *name, const lirs_reader_stats *st, int readable,
		    const lirs_layout *l)
{
	int first = 1;

	if (!v->json) {
		lb_buf_addf(&v->out, "%s: %lu records, %lu errors, %lu warnings\n",
			  name, st->records, v->errors, v->warnings);
		return;
	}
	lb_buf_adds(&v->out, "{\"type\":\"summary\",\"file\":");
	lirs_jsonw_strz(&v->out, name);
	lb_buf_addf(&v->out, ",\"readable\":%s,\"records\":%lu,\"skipped\":%lu,"
		  "\"errors\":%lu,\"warnings\":%lu,\"layout\":", readable ? "true" : "false",
		  st->records, st->skipped, v->errors, v->warnings);
	if (l->records) {
		lb_buf_adds(&v->out, "{\"name\":");
		if (l->name)
			lirs_jsonw_strz(&v->out, l->name);
		else
			lb_buf_adds(&v->out, "null");
		lb_buf_addf(&v->out, ",\"fields\":%u,\"trailing_comma\":%s,\"records\":%lu}",
			  l->nfields, l->trailing_comma ? "true" : "false", l->records);
	} else {
		lb_buf_adds(&v->out, "null");
	}
	/* How often each rule fired (with -q too, like errors and warnings). */
	lb_buf_adds(&v->out, ",\"rules\":{");
	for (int r = 0; r < LIRS_R__COUNT; r++) {
		if (!v->count[r])
			continue;
		lb_buf_adds(&v->out, first ? "" : ",");
		lirs_jsonw_strz(&v->out, lirs_rule_id((lirs_rule)r));
		lb_buf_addf(&v->out, ":%lu", v->count[r]);
		first = 0;
	}
	lb_buf_adds(&v->out, "}}\n");
}

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

/* Validates one file; returns its exit status. */
static int validate_file(vctx *v, const char *path, const lirs_reader_opts *ro,
			 const lirs_check_opts *co_in)
{
	lirs_check_opts co = *co_in;
	lirs_reader_stats st = { 0 };
	lirs_layout lay;
	const char *name = cli_display_name(path);
	int rc, lost;

	co.filename = name;
	co.on_diag = on_diag;
	co.ctx = v;
	co.spill_fd = scratch_file();
	co.spill = co.spill_fd >= 0;
	if (!(v->chk = lirs_checker_new(&co))) {
		if (co.spill)
			close(co.spill_fd);
		cli_error("out of memory");
		return CLI_FATAL;
	}
	v->errors = v->warnings = 0;
	memset(v->count, 0, sizeof v->count);
	memset(v->last, 0, sizeof v->last);
	memset(v->shown, 0, sizeof v->shown);
	v->holding = 1;
	rc = lirscmd_read(path, ro, &st);
	/* Records judged before the file's usual field count was known. */
	lost = lirs_checker_finish(v->chk) < 0;
	release(v);
	if (lost)
		cli_error("%s: the duplicate-url check is incomplete: %s", name,
			  strerror(lirs_checker_failed(v->chk)));
	lirs_checker_layout(v->chk, &lay);
	lirs_checker_free(v->chk);
	v->chk = NULL;
	if (co.spill)
		close(co.spill_fd);
	/* A file that could not be opened has no summary in text mode: the message said it. */
	if (rc != LB_EIO || v->json) {
		layout_note(v, name, &lay, st.records);
		more_notes(v, name);
		summary(v, name, &st, rc == 0, &lay);
	}
	if (cli_out_flush(&v->out, stdout, 1) < 0 || v->failed)
		return CLI_FATAL;
	if (rc < 0 || lost)
		return CLI_FATAL;
	return v->errors ? LIRSCMD_PROBLEMS : CLI_OK;
}

int cmd_validate(int argc, char **argv)
{
	enum { O_NOW = 256, O_MAXAGE, O_MAXDEC, O_MAXLINE };
	static const struct option lopts[] = {
		{ "now", required_argument, NULL, O_NOW },
		{ "max-age", required_argument, NULL, O_MAXAGE },
		{ "format", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-decoded", required_argument, NULL, O_MAXDEC },
		{ "max-line", required_argument, NULL, O_MAXLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	vctx v = { .out = LB_BUF_INIT, .held_text = LB_BUF_INIT };
	lirs_reader_opts ro = { .on_record = on_record, .on_diag = on_diag, .ctx = &v };
	lirs_check_opts co = { .now = (int64_t)time(NULL) };
	int opt, status = CLI_OK;

	while ((opt = cli_getopt(argc, argv, "f:qvh", lopts, help)) != -1) {
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
		case 'v': v.verbose = 1; break;
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
	if (optind >= argc)
		return cli_usage_error(help, "no FILE given (use - for standard input)");
	for (int i = optind; i < argc; i++) {
		int rc = validate_file(&v, argv[i], &ro, &co);
		if (rc > status)
			status = rc;
		if (v.failed)
			break;
	}
	lb_buf_release(&v.out);
	lb_buf_release(&v.held_text);
	free(v.held);
	if (cli_close_stdout() != CLI_OK)
		status = CLI_FATAL;
	return status;
}
