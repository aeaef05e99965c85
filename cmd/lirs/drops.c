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
	if (dg->rule == LIRS_R_UNESCAPED_COMMA) {
		d->shifted_file = dg->file;
		d->shifted_line = dg->line;
	}
}

int lirscmd_drops_check(lirscmd_drops *d, const lirs_record *r)
{
	int why = lirs_merge_check_at(r, d->now, d->max_age, d->max_future);

	if (r->line && r->line == d->shifted_line && d->file && d->shifted_file &&
	    !strcmp(d->file, d->shifted_file))
		why = LIRSCMD_DROP_SHIFTED;
	if (why <= 0 || why >= LIRSCMD_DROP__COUNT)
		return 0;
	if (d->n[why]++ < LIRSCMD_DROPS_SHOWN)
		lb_buf_addf(&d->where[why], "%s%s:%lu", d->n[why] > 1 ? ", " : "",
			    d->file ? d->file : "<stdin>", r->line);
	return why;
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
	lb_buf_release(&m);
	return d->n[LIRS_MERGE_FUTURE] || d->n[LIRSCMD_DROP_SHIFTED];
}
