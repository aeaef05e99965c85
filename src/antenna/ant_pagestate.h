/*
 * ant_pagestate.h: where a watched page is (update/pagestate.c): moved, when its
 * URL answers through permanent redirects (301, 308) check after check;
 * gone, when it has answered 404 or 410, or its host has not resolved,
 * for a long time; and the one word for a page's state that list, show
 * and export use.  Decisions only: update_check.c feeds it answers and
 * the store moves the row (ant_store_page_move()).
 */
#ifndef ANT_PAGESTATE_H
#define ANT_PAGESTATE_H

#include "ant_settings.h"   /* the defaults */
#include <stddef.h>
#include <stdint.h>

#include "ant_fetch.h"
#include "ant_store.h"

/* A gone page is checked once in ANT_GONE_INTERVAL seconds (its days:
 * ANT_GONE_DAYS, ant_settings.h). */
#define ANT_GONE_INTERVAL 86400

typedef enum {
	ANT_PAGE_STATE_OK = 0,
	ANT_PAGE_STATE_FAILING,      /* its last check failed */
	ANT_PAGE_STATE_MOVED,        /* answered through a permanent redirect to
					another URL: it moves there after
					move_after checks in a row */
	ANT_PAGE_STATE_GONE,         /* failing_since long enough: checked daily */
	ANT_PAGE_STATE_ROBOTS,       /* its site's robots.txt disallows it */
} ant_page_state;

/* "ok", "failing", "moved", "gone", "robots-excluded" */
const char *ant_page_state_name(ant_page_state s);
/* The state of p as its last check left it. */
ant_page_state ant_page_state_of(const ant_store_page *p);

/*
 * What a check's answer says of where p is, into p (its redirect count
 * and target, failing_since, gone_at), the page fetched at its own URL
 * (not a check URL): an answer reached only through permanent redirects
 * to another URL counts one more in a row (another target starts again
 * at 1); any other answer, a failure included, clears the count.  A 404,
 * 410 or unresolved host starts (or continues) the failing run, which
 * makes p gone after gone_days; a successful answer ends it.  Returns 1
 * when p should move now to p->redirect_to (the count reached
 * move_after), else 0.
 */
/*
 * The URL whose host and port may be internal for p's requests
 * (ant_fetch_req.allow_host): the one the operator added.  A move keeps
 * that permission only while the new URL's host and port are the added
 * one's: a page moved elsewhere is guarded like any other (a target name
 * resolving to 127.0.0.1 later is refused, never fetched and published).
 */
const char *ant_pagestate_allow_url(const ant_store_page *p);

int ant_pagestate_observe(ant_store_page *p, const ant_fetch_result *res, int64_t now,
			 int64_t move_after, int64_t gone_days);
/* A gone page's error: "gone (failing since YYYY-MM-DD): WHY", into b
 * (ANT_PAGE_GONE_PREFIX begins it), the operator's words; its kind,
 * ANT_FAIL_GONE (ant_outcome.h), is what publish_error.c reads. */
#define ANT_PAGE_GONE_PREFIX "gone "
void ant_pagestate_gone_text(char *b, size_t n, const ant_store_page *p, const char *why);

#endif
