/*
 * pagestate.c: moved and gone pages (ant_pagestate.h).  A permanent
 * redirect is the server's word that the page lives elsewhere now, but
 * one answer can be a misconfiguration of an afternoon: the page moves
 * only after several checks in a row say the same, and never for a
 * temporary redirect (302, 303, 307), which says the page is still here.
 * Likewise one 404 can be a mistake being fixed; days of them, or of a
 * host that no longer resolves, say the page is gone: it is then checked
 * once a day, not at its old pace, until its first success.
 */
#include "ant_pagestate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lb_date.h"
#include "lb_url.h"
#include "ant_robots.h"

const char *ant_page_state_name(ant_page_state s)
{
	static const char *const names[] = { "ok", "failing", "moved", "gone", "robots-excluded" };

	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "ok";
}

ant_page_state ant_page_state_of(const ant_store_page *p)
{
	if (p->last_error && ant_robots_excluded(p->fail_kind))   /* not fetched: not failing */
		return ANT_PAGE_STATE_ROBOTS;
	if (p->gone_at && p->last_error)
		return ANT_PAGE_STATE_GONE;
	if (p->last_error)
		return ANT_PAGE_STATE_FAILING;
	if (p->redirect_count > 0 && p->redirect_to)
		return ANT_PAGE_STATE_MOVED;
	return ANT_PAGE_STATE_OK;
}

/* 1 when a and b are one page by the antenna's URL key (lb_url.h). */
static int same_page(const char *a, const char *b)
{
	lb_buf ka = LB_BUF_INIT, kb = LB_BUF_INIT;
	int same = lb_url_key(&ka, a) == 0 && lb_url_key(&kb, b) == 0 && strcmp(ka.data, kb.data) == 0;

	lb_buf_release(&ka);
	lb_buf_release(&kb);
	return same;
}

/* 404, 410, or a host that does not resolve: the page may be gone. */
static int says_gone(const ant_fetch_result *res)
{
	return res->err == ANT_FETCH_ERR_DNS ||
	       (res->err == ANT_FETCH_OK && (res->status == 404 || res->status == 410));
}

static void observe_redirect(ant_store_page *p, const ant_fetch_result *res, int ok)
{
	const char *to = res->effective_url;

	if (!ok || res->redirect != ANT_FETCH_REDIRECT_PERMANENT || !to || !lb_url_is_http(to) ||
	    same_page(to, p->url)) {
		p->redirect_count = 0;
		free(p->redirect_to);
		p->redirect_to = NULL;
		return;
	}
	if (p->redirect_to && strcmp(p->redirect_to, to) == 0) {
		p->redirect_count++;
		return;
	}
	free(p->redirect_to);
	p->redirect_to = strdup(to);
	p->redirect_count = p->redirect_to ? 1 : 0;
}

int ant_pagestate_observe(ant_store_page *p, const ant_fetch_result *res, int64_t now,
			 int64_t move_after, int64_t gone_days)
{
	int ok = res->err == ANT_FETCH_OK && res->status >= 200 && res->status < 400;

	if (move_after <= 0)
		move_after = ANT_MOVE_AFTER;
	if (gone_days <= 0)
		gone_days = ANT_GONE_DAYS;
	if (ok) {
		p->failing_since = p->gone_at = 0;   /* back at its first success */
	} else if (says_gone(res)) {
		if (!p->failing_since)
			p->failing_since = now;
		if (!p->gone_at && now - p->failing_since >= gone_days * 86400)
			p->gone_at = now;
	}
	if (p->check_url && *p->check_url)   /* what answers is not the page's own URL */
		return 0;
	observe_redirect(p, res, ok);
	return p->redirect_count >= move_after && p->redirect_to != NULL;
}

const char *ant_pagestate_allow_url(const ant_store_page *p)
{
	return p->added_url ? p->added_url : p->url;
}

void ant_pagestate_gone_text(char *b, size_t n, const ant_store_page *p, const char *why)
{
	lb_tm tm;

	lb_date_split(p->failing_since, &tm);
	snprintf(b, n, ANT_PAGE_GONE_PREFIX "(failing since %04lld-%02d-%02d): %s",
		 (long long)tm.year, tm.mon, tm.mday, why);
}
