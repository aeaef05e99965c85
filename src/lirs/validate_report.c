/*
 * validate_report.c: the report of `lirs validate` built from the reader's
 * and the checker's diagnostics (lirs_vreport.h): held back in line order
 * until the file's layout is known, summarised per warning rule, with the
 * layout note and the summary, as text or JSON Lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lirs_jsonw.h"
#include "lirs_vreport.h"

int lirs_diag_format(lb_buf *out, const lirs_diag *d)
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
			   lirs_rule_id(d->rule)) < 0 ? LB_ENOMEM : 0;
}

/* Diagnostics held back until the file's layout is decided (bounded:
 * past this many, they are printed as they come). */
#define HOLD_MAX 4096

/* A diagnostic held back: its message and field live in vctx.held_text. */
typedef struct held {
	lirs_diag d;
	size_t msg, field;        /* offsets into held_text; field (size_t)-1: NULL */
	size_t seq;
} held;

struct lirs_vreport {
	int json, quiet, verbose;
	int (*flush)(void *ctx, lb_buf *out, int last);
	void *ctx;
	const char *name;         /* the file's */
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
	int format;               /* the file's, LIRS_FORMAT_* (lirs_vreport_end()) */
};
typedef struct lirs_vreport vctx;

static void emit_json(lb_buf *b, const lirs_diag *d)
{
	lb_buf_adds(b, "{\"type\":\"diagnostic\",\"file\":");
	lb_json_strz(b, d->file);
	lb_buf_adds(b, ",\"line\":");
	lb_json_int(b, (int64_t)d->line);
	lb_buf_adds(b, ",\"col\":");
	lb_json_int(b, (int64_t)d->col);
	lb_buf_adds(b, ",\"severity\":");
	lb_json_strz(b, lirs_severity_name(d->severity));
	lb_buf_adds(b, ",\"rule\":");
	lb_json_strz(b, lirs_rule_id(d->rule));
	lb_buf_adds(b, ",\"field\":");
	if (d->field)
		lb_json_strz(b, d->field);
	else
		lb_buf_adds(b, "null");
	lb_buf_adds(b, ",\"message\":");
	lb_json_strz(b, d->message ? d->message : lirs_rule_summary(d->rule));
	lb_buf_addf(b, ",\"skipped\":%s}\n", d->skipped ? "true" : "false");
}

/* Text mode lists a warning rule's first LIRS_VREPORT_LISTED lines of a file
 * (all with -v), every error, and in JSON every diagnostic. */
static int listed(vctx *v, const lirs_diag *d)
{
	if (v->json || v->verbose || d->severity == LIRS_SEV_ERROR ||
	    v->shown[d->rule] < LIRS_VREPORT_LISTED) {
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
		lirs_diag_format(&v->out, d);
		lb_buf_addc(&v->out, '\n');
	}
	if (v->flush && v->flush(v->ctx, &v->out, 0) < 0)
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

/* Keeps a copy of d; 0, or LB_ETOOBIG / LB_ENOMEM when it cannot (then
 * it is printed now). */
static int hold(vctx *v, const lirs_diag *d)
{
	held *h;

	if (v->nheld >= HOLD_MAX)
		return LB_ETOOBIG;
	if (!(h = lb_grow(v->held, &v->heldcap, v->nheld + 1, sizeof *h, 64)))
		return LB_ENOMEM;
	v->held = h;
	h = &v->held[v->nheld];
	h->d = *d;
	h->seq = v->nheld;
	h->msg = v->held_text.len;
	h->field = (size_t)-1;
	if (lb_buf_add(&v->held_text, d->message ? d->message : lirs_rule_summary(d->rule),
		     strlen(d->message ? d->message : lirs_rule_summary(d->rule)) + 1) < 0)
		return LB_ENOMEM;
	if (d->field) {
		h->field = v->held_text.len;
		if (lb_buf_add(&v->held_text, d->field, strlen(d->field) + 1) < 0)
			return LB_ENOMEM;
	}
	v->nheld++;
	return 0;
}

void lirs_vreport_diag(void *ctx, const lirs_diag *d)
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

int lirs_vreport_record(void *ctx, const lirs_record *r)
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

	if (!l->records || !l->nusual || (!l->name && l->records <= LIRS_VREPORT_LISTED))
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

/* Whether rule r counts towards the file's class: LIRS 2.1 §2's gzip and
 * EUC-JP are not HINA-DI's or hina.txt's MUSTs. */
static int counts(const vctx *v, int r)
{
	return v->count[r] && (v->format == LIRS_FORMAT_LIRS ||
			       (r != LIRS_R_NOT_GZIP && r != LIRS_R_UTF8_FALLBACK));
}

lirs_class lirs_vreport_class(const lirs_vreport *v)
{
	lirs_class worst = LIRS_CLASS_NOTE;

	for (int r = 0; r < LIRS_R__COUNT; r++)
		if (counts(v, r) && lirs_rule_class((lirs_rule)r) > worst)
			worst = lirs_rule_class((lirs_rule)r);
	return worst;
}

/* The rules of class cls that fired, "a, b", appended to m. */
static void class_rules(const vctx *v, lirs_class cls, lb_buf *m)
{
	int first = 1;

	for (int r = 0; r < LIRS_R__COUNT; r++)
		if (counts(v, r) && lirs_rule_class((lirs_rule)r) == cls) {
			lb_buf_addf(m, "%s%s", first ? "" : ", ", lirs_rule_id((lirs_rule)r));
			first = 0;
		}
}

/*
 * What the file's problems amount to (lirs(1), EXIT STATUS), once per file
 * that breaks a MUST: "nonconforming (readers cope): RULES; nothing is
 * lost", or "error (data lost): RULES", then the coped-with ones.
 */
static void class_note(vctx *v, const char *name)
{
	lirs_class c = lirs_vreport_class(v);
	lb_buf m = LB_BUF_INIT;

	if (c < LIRS_CLASS_COPED)
		return;
	lb_buf_addf(&m, "%s: ", lirs_class_name(c));
	class_rules(v, c, &m);
	if (c == LIRS_CLASS_COPED) {
		lb_buf_adds(&m, "; nothing is lost");
	} else if (lirs_vreport_class_count(v, LIRS_CLASS_COPED)) {
		lb_buf_addf(&m, "; also %s: ", lirs_class_name(LIRS_CLASS_COPED));
		class_rules(v, LIRS_CLASS_COPED, &m);
	}
	note(v, name, LIRS_R_CLASS, m.data);
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

/* The class as the JSON summary names it. */
static const char *class_key(lirs_class c)
{
	switch (c) {
	case LIRS_CLASS_ADVICE: return "advice";
	case LIRS_CLASS_COPED: return "nonconforming";
	case LIRS_CLASS_LOST: return "data-lost";
	default: return "conforming";
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
	lb_json_strz(&v->out, name);
	lb_buf_addf(&v->out, ",\"readable\":%s,\"records\":%lu,\"skipped\":%lu,"
		  "\"errors\":%lu,\"warnings\":%lu,\"class\":\"%s\",\"layout\":",
		  readable ? "true" : "false", st->records, st->skipped, v->errors, v->warnings,
		  class_key(lirs_vreport_class(v)));
	if (l->records) {
		lb_buf_adds(&v->out, "{\"name\":");
		if (l->name)
			lb_json_strz(&v->out, l->name);
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
		lb_json_strz(&v->out, lirs_rule_id((lirs_rule)r));
		lb_buf_addf(&v->out, ":%lu", v->count[r]);
		first = 0;
	}
	lb_buf_adds(&v->out, "}}\n");
}


lirs_vreport *lirs_vreport_new(const lirs_vreport_opts *o)
{
	lirs_vreport *v = calloc(1, sizeof *v);

	if (!v)
		return NULL;
	v->json = o->json;
	v->quiet = o->quiet;
	v->verbose = o->verbose;
	v->flush = o->flush;
	v->ctx = o->ctx;
	lb_buf_init(&v->out);
	lb_buf_init(&v->held_text);
	return v;
}

void lirs_vreport_free(lirs_vreport *v)
{
	if (!v)
		return;
	lirs_checker_free(v->chk);
	lb_buf_release(&v->out);
	lb_buf_release(&v->held_text);
	free(v->held);
	free(v);
}

int lirs_vreport_begin(lirs_vreport *v, const lirs_check_opts *co_in)
{
	lirs_check_opts co = *co_in;

	co.on_diag = lirs_vreport_diag;
	co.ctx = v;
	lirs_checker_free(v->chk);
	if (!(v->chk = lirs_checker_new(&co)))
		return LB_ENOMEM;
	v->name = co.filename;
	v->format = LIRS_FORMAT_LIRS;
	v->errors = v->warnings = 0;
	memset(v->count, 0, sizeof v->count);
	memset(v->last, 0, sizeof v->last);
	memset(v->shown, 0, sizeof v->shown);
	v->holding = 1;
	return 0;
}

int lirs_vreport_finish(lirs_vreport *v)
{
	/* Records judged before the file's usual field count was known. */
	int lost = lirs_checker_finish(v->chk) < 0;

	release(v);
	return lost ? lirs_checker_failed(v->chk) : 0;
}

int lirs_vreport_end(lirs_vreport *v, const lirs_reader_stats *st, int readable, int with_summary)
{
	lirs_layout lay;

	v->format = st->format;
	lirs_checker_layout(v->chk, &lay);
	lirs_checker_free(v->chk);
	v->chk = NULL;
	if (with_summary) {
		layout_note(v, v->name, &lay, st->records);
		more_notes(v, v->name);
		class_note(v, v->name);
		summary(v, v->name, st, readable, &lay);
	}
	if ((v->flush && v->flush(v->ctx, &v->out, 1) < 0) || v->failed) {
		v->failed = 1;
		return LB_ESINK;
	}
	return 0;
}

unsigned long lirs_vreport_class_count(const lirs_vreport *v, lirs_class cls)
{
	unsigned long n = 0;

	for (int r = 0; r < LIRS_R__COUNT; r++)
		if (counts(v, r) && lirs_rule_class((lirs_rule)r) == cls)
			n += v->count[r];
	return n;
}

unsigned long lirs_vreport_errors(const lirs_vreport *v)
{
	return v->errors;
}
