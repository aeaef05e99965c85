/* drops.c: see drops.h. */
#include "drops.h"

#include <string.h>

#include "cli.h"
#include "lirs_merge.h"

void lirscmd_drops_init(lirscmd_drops *d, int64_t now, int64_t max_age, int64_t max_future)
{
	*d = (lirscmd_drops){ .now = now, .max_age = max_age, .max_future = max_future };
	for (int i = 0; i < LIRSCMD_DROP__COUNT; i++)
		lb_buf_init(&d->where[i]);
}

void lirscmd_drops_release(lirscmd_drops *d)
{
	for (int i = 0; i < LIRSCMD_DROP__COUNT; i++)
		lb_buf_release(&d->where[i]);
}

void lirscmd_drops_diag(lirscmd_drops *d, const lirs_diag *dg)
{
	/* a shift-jis error at a column is a line garbled by reading it as
	 * EUC-JP; the one --charset cp932 gives (column 0) names the file,
	 * read whole */
	int why = dg->rule == LIRS_R_UNESCAPED_COMMA ? LIRSCMD_DROP_SHIFTED
		: dg->rule == LIRS_R_SHIFT_JIS && dg->line && dg->col ? LIRSCMD_DROP_SJIS : 0;

	if (!why)
		return;
	/* the first cause named on a line is the reason: a Shift_JIS line
	 * read as EUC-JP may well look shifted too */
	if (d->skip_line == dg->line && d->skip_file && dg->file && !strcmp(d->skip_file, dg->file))
		return;
	d->skip_file = dg->file;
	d->skip_line = dg->line;
	d->skip_why = why;
}

/* r's reason in d, counted with its place; 0 when why is 0. */
static int count(lirscmd_drops *d, const lirs_record *r, int why)
{
	if (why <= 0 || why >= LIRSCMD_DROP__COUNT)
		return 0;
	if (d->n[why]++ < LIRSCMD_DROPS_SHOWN)
		lb_buf_addf(&d->where[why], "%s%s:%lu", d->n[why] > 1 ? ", " : "",
			    d->file ? d->file : "<stdin>", r->line);
	return why;
}

/* LIRSCMD_DROP_SHIFTED or _SJIS when an error named r's line, else 0. */
static int skipped(const lirscmd_drops *d, const lirs_record *r)
{
	if (r->line && r->line == d->skip_line && d->file && d->skip_file &&
	    !strcmp(d->file, d->skip_file))
		return d->skip_why;
	return 0;
}

int lirscmd_drops_check(lirscmd_drops *d, const lirs_record *r)
{
	int why = skipped(d, r);

	return count(d, r, why ? why : lirs_merge_check_at(r, d->now, d->max_age, d->max_future));
}

int lirscmd_drops_skip(lirscmd_drops *d, const lirs_record *r)
{
	return count(d, r, skipped(d, r));
}

/* "N record(s) WHY: FILE:LINE, ... and N more" */
static void say(const lirscmd_drops *d, int why, const char *what)
{
	unsigned long n = d->n[why];

	if (!n)
		return;
	if (n > LIRSCMD_DROPS_SHOWN)
		cli_error("warning: %lu record%s %s: %s and %lu more", n, n == 1 ? "" : "s", what,
			  d->where[why].data, n - LIRSCMD_DROPS_SHOWN);
	else
		cli_error("warning: %lu record%s %s: %s", n, n == 1 ? "" : "s", what, d->where[why].data);
}

int lirscmd_drops_report(const lirscmd_drops *d)
{
	char now[LIRS_TIME_STR];
	lb_buf m = LB_BUF_INIT;

	lirs_time_str(now, sizeof now, d->now);
	lb_buf_addf(&m, "dropped: Last-Modified or Last-Detected more than %lld seconds after "
		    "now, %s (lirs validate: future-dropped)",
		    (long long)(d->max_future ? d->max_future : LIRS_DEFAULT_MAX_FUTURE), now);
	say(d, LIRS_MERGE_FUTURE, m.data);
	say(d, LIRSCMD_DROP_SHIFTED, "skipped: the fields after the URL are shifted by a ',' "
	    "not escaped (lirs validate: unescaped-comma)");
	say(d, LIRSCMD_DROP_SJIS, "skipped: Shift_JIS (CP932), not EUC-JP, garbled when read "
	    "as EUC-JP (lirs validate: shift-jis; read with --charset cp932)");
	lb_buf_release(&m);
	return d->n[LIRS_MERGE_FUTURE] || d->n[LIRSCMD_DROP_SHIFTED] || d->n[LIRSCMD_DROP_SJIS];
}
