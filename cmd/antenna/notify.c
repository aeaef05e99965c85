/*
 * notify.c: the commands' side of notifications (ant_notify.h): init's
 * --notify options, the delivery after update (or after run's publish)
 * with its lines, and the targets in show's settings view.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "ant_notify.h"
#include "lb_term.h"

/* init's options, gathered by antcmd_notify_opt() and applied together. */
#define MAX_OPTS 64
static struct { int c; const char *arg; const ant_setting *d; } given[MAX_OPTS];
static size_t ngiven;
static const char *group;   /* --notify-group: the --notify targets' */

/* One of init's notification options (c from ANTCMD_NOTIFY_OPTIONS):
 * checked and kept.  1 taken, 0 not one of them, -1 refused (printed). */
int antcmd_notify_opt(int c, const char *arg)
{
	lb_error err = LB_ERROR_INIT;

	switch (c) {
	case ANTCMD_OPT_NOTIFY:
		if (ant_target_kind(arg, &err) < 0)
			return cli_usage_error(antcmd_init_help, "--notify: %s", lb_error_msg(&err)), -1;
		break;
	case ANTCMD_OPT_NO_NOTIFY:
		if (strcmp(arg, "all") && ant_target_kind(arg, &err) < 0)
			return cli_usage_error(antcmd_init_help, "--no-notify: %s", lb_error_msg(&err)), -1;
		break;
	case ANTCMD_OPT_NOTIFY_GROUP:
		group = arg;
		return 1;
	default:
		return 0;
	}
	if (ngiven == MAX_OPTS)
		return cli_usage_error(antcmd_init_help, "more than %d notification options", MAX_OPTS), -1;
	given[ngiven].c = c;
	given[ngiven].d = NULL;
	given[ngiven++].arg = arg;
	return 1;
}

/* A setting of the table's ANT_SETF_NOTIFY rows, checked: kept with the
 * targets.  0, or -1 refused (printed). */
int antcmd_notify_setting(const ant_setting *d, const char *v)
{
	if (ngiven == MAX_OPTS)
		return cli_usage_error(antcmd_init_help, "more than %d notification options", MAX_OPTS), -1;
	given[ngiven].c = 0;
	given[ngiven].d = d;
	given[ngiven++].arg = v;
	return 0;
}

/* One setting written, said when it changed: 1 changed, 0 not, < 0. */
static int apply_setting(ant_store *s, const char *key, const char *v, lb_error *err)
{
	char *old = ant_store_config_get(s, key);
	int changed = !old || strcmp(old, v) != 0, rc = 0;

	if (changed && (rc = ant_store_config_set(s, key, v, err)) == 0)
		printf("%s: %s%s%s -> '%s'\n", key, old ? "'" : "", old ? old : "(unset)", old ? "'" : "", v);
	free(old);
	return rc < 0 ? rc : changed;
}

/* The options gathered, in the order given, in one transaction: the
 * number of changes (each said on standard output), or < 0 with err. */
/* A --notify-group no page is in yet: accepted (the group can come
 * later), with the groups there are. */
static int warn_group(ant_store *s, lb_error *err)
{
	lb_buf groups = LB_BUF_INIT;
	int has, rc = ant_store_page_groups(s, group, &has, &groups, err);

	if (rc == 0 && !has)
		cli_error("warning: no page is in group '%s' (groups: %s)", group,
			  groups.len ? groups.data : "none yet");
	lb_buf_release(&groups);
	return rc;
}

int antcmd_notify_apply(ant_store *s, int64_t now, lb_error *err)
{
	int rc = 0, changes = 0;
	lb_buf a = LB_BUF_INIT;

	if (group && !ngiven)
		return lb_err(err, LB_EINVAL, "--notify-group needs --notify TARGET");
	if (!ngiven || (rc = ant_store_begin(s, err)) < 0)
		return rc;
	if (group && (rc = warn_group(s, err)) < 0) {
		ant_store_rollback(s);
		return rc;
	}
	for (size_t i = 0; rc >= 0 && i < ngiven; i++) {
		const char *t = given[i].arg, *k = given[i].d ? given[i].d->key : NULL;
		if (k)
			rc = apply_setting(s, k, t, err);
		else if (given[i].c == ANTCMD_OPT_NOTIFY && (rc = ant_store_notify_add(s, t, group, now, err)) >= 0)
			printf("notify: %s '%s'%s%s\n", rc ? "added" : "kept", lb_term(&a, t),
			       group ? " for group " : "", group ? group : "");
		else if (given[i].c == ANTCMD_OPT_NO_NOTIFY &&
			 (rc = ant_store_notify_remove(s, t, !strcmp(t, "all"), err)) >= 0)
			printf("notify: removed %d target%s\n", rc, rc == 1 ? "" : "s");
		changes += rc > 0 || given[i].c == ANTCMD_OPT_NOTIFY;
		lb_buf_reset(&a);
	}
	lb_buf_release(&a);
	if (rc >= 0 && (rc = ant_store_commit(s, err)) == 0)
		return changes;
	ant_store_rollback(s);
	return rc;
}

/* A target tried: a line on standard output when delivered (unless -q),
 * on standard error when not (the news stay pending). */
static void told(void *ctx, const ant_notify_target *t, const ant_notify_digest *d, int rc,
		 const lb_error *err)
{
	const int *quiet = ctx;
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	long long n = (long long)d->n + d->more;

	if (rc < 0)
		cli_error("notify: failed: %s; %lld update%s kept for the next run",
			  lb_term(&b, lb_error_msg(err)), n, n == 1 ? "" : "s");
	else if (!*quiet)
		printf("notified %s of %lld update%s\n", lb_term(&a, t->target), n, n == 1 ? "" : "s");
	lb_buf_release(&a);
	lb_buf_release(&b);
}

void antcmd_notify_send(ant_store *s, int64_t now, int quiet, const char *dir)
{
	ant_notify_opts o;
	lb_error err = LB_ERROR_INIT;

	if (ant_notify_opts_load(s, &o, now) < 0) {
		cli_error("notify: out of memory");
		return;
	}
	o.on_target = told;
	o.dir = dir;   /* run's DIR: the digests link its diff pages */
	o.ctx = &quiet;
	if (ant_notify_run(s, &o, &err) < 0)
		cli_error("notify: %s", lb_error_msg(&err));
	ant_notify_opts_release(&o);
}

int antcmd_notify_later;
int64_t antcmd_notify_now;

void antcmd_notify_after_run(int quiet, const char *dir)
{
	lb_error err = LB_ERROR_INIT;
	ant_store *s = antcmd_open(ANT_STORE_OPEN_EXISTING);

	if (!s)
		return;
	if (ant_store_lock(s, ANT_STORE_LOCK_WAIT, &err) < 0)
		cli_error("notify: %s; the news stay pending", lb_error_msg(&err));
	else
		antcmd_notify_send(s, antcmd_notify_now, quiet, dir);
	ant_store_close(s);
}

/* show's settings view: one line per target, with its state. */
static int show_target(void *ctx, const ant_notify_target *t)
{
	const int64_t *tz = ctx;
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	char b64[64];
	const char *ok = antcmd_when(b64, sizeof b64, t->last_ok, *tz);
	printf("notify:         %s%s%s\n", lb_term(&a, t->target), t->group ? " group=" : "",
	       t->group ? lb_term(&b, t->group) : "");
	printf("  pending:      %lld; delivered %lld, last %s\n", (long long)t->pending,
	       (long long)t->sent, ok);
	if (t->last_error) {
		lb_buf_reset(&a);
		printf("  last error:   %s\n", lb_term(&a, t->last_error));
	}
	lb_buf_release(&a);
	lb_buf_release(&b);
	return 0;
}

int antcmd_show_notify(ant_store *s, int64_t tz, int64_t now, lb_error *err)
{
	int64_t max_age = ant_setting_int(s, ANT_SET_NOTIFY_MAX_AGE);

	return ant_store_notify_each(s, now - max_age, show_target, &tz, err);
}
