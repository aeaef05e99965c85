/*
 * t_pagestate.c: moved and gone (update/pagestate.c), as tables of answers: each
 * case feeds a page one answer per line and checks what it then is: its
 * state word, the redirects counted in a row, whether it moves now, since
 * when it fails and whether it is gone.
 */
#include <stdlib.h>
#include <string.h>

#include "ant_pagestate.h"
#include "tap.h"

#define DAY 86400
#define P ANT_FETCH_REDIRECT_PERMANENT
#define T ANT_FETCH_REDIRECT_TEMPORARY

struct answer {
	int err;          /* ant_fetch_errkind */
	long status;
	int redirect;
	const char *to;   /* effective URL; NULL: the page's own */
	int64_t at;       /* seconds after the first */
	/* what the page is then */
	const char *state;
	int64_t count;
	int move;
	int64_t failing_since;   /* -1: not failing */
	int gone;
};

#define NEW "https://new.example/diary/"
static const struct {
	const char *name;
	struct answer a[8];
} cases[] = {
	{ "three 301s in a row move the page (move_after 3)", {
	  { 0, 200, P, NEW, 0, "moved", 1, 0, -1, 0 },
	  { 0, 304, P, NEW, 10, "moved", 2, 0, -1, 0 },
	  { 0, 200, P, NEW, 20, "moved", 3, 1, -1, 0 } } },
	{ "a 302 between them starts again", {
	  { 0, 200, P, NEW, 0, "moved", 1, 0, -1, 0 },
	  { 0, 200, T, NEW, 10, "ok", 0, 0, -1, 0 },
	  { 0, 200, P, NEW, 20, "moved", 1, 0, -1, 0 } } },
	{ "a failure between them starts again", {
	  { 0, 200, P, NEW, 0, "moved", 1, 0, -1, 0 },
	  { ANT_FETCH_ERR_TIMEOUT, 0, 0, NULL, 10, "failing", 0, 0, -1, 0 },
	  { 0, 200, P, NEW, 20, "moved", 1, 0, -1, 0 } } },
	{ "another target starts again at 1", {
	  { 0, 200, P, NEW, 0, "moved", 1, 0, -1, 0 },
	  { 0, 200, P, "https://other.example/", 10, "moved", 1, 0, -1, 0 } } },
	{ "a redirect to the same page by its key (the host's case) is no move", {
	  { 0, 200, P, "http://OLD.Example/diary/", 0, "ok", 0, 0, -1, 0 } } },
	{ "a redirect to a javascript: URL is no move", {
	  { 0, 200, P, "javascript:alert(1)", 0, "ok", 0, 0, -1, 0 } } },
	{ "404s for the gone days: gone, and back at a success", {
	  { 0, 404, 0, NULL, 0, "failing", 0, 0, 0, 0 },
	  { 0, 410, 0, NULL, 3 * DAY, "failing", 0, 0, 0, 0 },
	  { 0, 404, 0, NULL, 7 * DAY, "gone", 0, 0, 0, 1 },
	  { 0, 404, 0, NULL, 8 * DAY, "gone", 0, 0, 0, 1 },
	  { 0, 200, 0, NULL, 9 * DAY, "ok", 0, 0, -1, 0 } } },
	{ "no such host counts; a 500 neither starts nor ends the run", {
	  { ANT_FETCH_ERR_DNS, 0, 0, NULL, 0, "failing", 0, 0, 0, 0 },
	  { 0, 500, 0, NULL, 4 * DAY, "failing", 0, 0, 0, 0 },
	  { ANT_FETCH_ERR_DNS, 0, 0, NULL, 7 * DAY, "gone", 0, 0, 0, 1 } } },
	{ "a 500 alone starts no run", {
	  { 0, 500, 0, NULL, 0, "failing", 0, 0, -1, 0 },
	  { 0, 503, 0, NULL, 8 * DAY, "failing", 0, 0, -1, 0 } } },
};

int main(void)
{
	const int64_t t0 = 1700000000;
	size_t nc = sizeof cases / sizeof cases[0];

	TAP_PLAN((int)nc + 4);
	for (size_t i = 0; i < nc; i++) {
		ant_store_page p;
		char url[] = "http://old.example/diary/", why[200] = "";

		ant_store_page_init(&p);
		p.url = url;
		for (size_t k = 0; k < 8 && cases[i].a[k].state && !*why; k++) {
			const struct answer *a = &cases[i].a[k];
			char eff[100];
			ant_fetch_result r = { .err = a->err, .status = a->status, .redirect = a->redirect };
			int move;

			strcpy(eff, a->to ? a->to : url);
			r.effective_url = eff;
			move = ant_pagestate_observe(&p, &r, t0 + a->at, 3, 7);
			p.last_error = a->err || a->status >= 400 ? "failed" : NULL;
			if (strcmp(ant_page_state_name(ant_page_state_of(&p)), a->state) ||
			    p.redirect_count != a->count || move != a->move ||
			    p.failing_since != (a->failing_since < 0 ? 0 : t0 + a->failing_since) ||
			    (p.gone_at != 0) != a->gone)
				snprintf(why, sizeof why, "answer %zu: %s count %lld move %d since %lld gone %lld",
					 k + 1, ant_page_state_name(ant_page_state_of(&p)),
					 (long long)p.redirect_count, move, (long long)p.failing_since,
					 (long long)p.gone_at);
		}
		OK(!*why, "%s%s%s", cases[i].name, *why ? ": " : "", why);
		free(p.redirect_to);
	}
	{
		ant_store_page p;
		ant_fetch_result r = { .status = 200, .redirect = P, .effective_url = (char *)NEW };
		int moves = 0;

		ant_store_page_init(&p);
		p.url = (char *)"http://old.example/diary/";
		p.check_url = (char *)"http://old.example/check";
		for (int k = 0; k < 5; k++)
			moves += ant_pagestate_observe(&p, &r, t0, 3, 7);
		OK(moves == 0 && p.redirect_count == 0, "a page checked through its check URL never moves");
	}
	{
		ant_store_page p;
		char b[200];

		ant_store_page_init(&p);
		p.failing_since = t0;
		ant_pagestate_gone_text(b, sizeof b, &p, "404 Not Found");
		IS_STR(b, "gone (failing since 2023-11-14): 404 Not Found", "a gone page's error names since when");
		OK(!strncmp(b, ANT_PAGE_GONE_PREFIX, strlen(ANT_PAGE_GONE_PREFIX)), "... beginning with the prefix");
	}
	IS_STR(ant_page_state_name(ANT_PAGE_STATE_ROBOTS), "robots-excluded", "the robots state's word");
	TAP_DONE();
}
