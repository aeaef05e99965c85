/*
 * t_words.c: a change of markup is no change, and volatility is judged
 * per word (ant_detect.h), end to end: the pages of words_corpus.h (a
 * calendar whose "today" class moves, a code browser's latest commit
 * beside a per-request token, a notice block with a form token that its
 * author edits, a quote drawn per request) through the update engine,
 * ant_update(), with a fetcher that serves them from memory and a real
 * store, a baseline and WORDS_CHECKS more checks an hour apart.  Each
 * page's updates are compared with words_want[] check by check; then what
 * the store remembers: the token's block is not learned whole, its words
 * are (shown with "…" in its text), and the quote is learned as a block.
 */
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

#include "words_corpus.h"
#include "ant_textstate.h"
#include "ant_update.h"
#include "lb_url.h"

#define T0 1700000000

static char dir[] = "/tmp/t_words.XXXXXX";

struct fetcher {
	int check;
	unsigned req[WORDS_PAGES];
};

static int page_of(const char *url)
{
	const char *p = strstr(url, "/words/");

	return p ? atoi(p + 7) : -1;
}

static int serve(void *self, const ant_fetch_limits *lim, const ant_fetch_req *reqs, size_t n,
		 ant_fetch_done_fn done, void *ctx)
{
	struct fetcher *f = self;

	for (size_t i = 0; i < n; i++) {
		int k = page_of(reqs[i].url);
		lb_buf b = LB_BUF_INIT;
		ant_fetch_result r = { .status = 200, .content_length = -1,
				       .content_type = (char *)"text/html; charset=utf-8" };

		if (k < 0 || k >= WORDS_PAGES) {
			r.status = 404;
			r.body = (char *)"";
		} else {
			words_page(&b, k, f->check, f->req[k]++);
			r.body = b.data;
			r.len = b.len;
		}
		done(ctx, &reqs[i], &r);
		lb_buf_release(&b);
	}
	return 0;
}

static char got[WORDS_PAGES][WORDS_CHECKS + 2];

static void on_page(void *ctx, const ant_store_page *p, const ant_detect_outcome *out)
{
	int k = page_of(p->url), *check = ctx;

	if (k >= 0 && k < WORDS_PAGES)
		got[k][*check] = *check == 0 ? '-' : out->updated ? 'U' : '.';
}

static ant_store *open_store(void)
{
	char path[256];
	lb_error err = LB_ERROR_INIT;
	ant_store *s;

	snprintf(path, sizeof path, "%s/words.db", dir);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", lb_error_msg(&err));
		return NULL;
	}
	for (int k = 0; k < WORDS_PAGES; k++) {
		ant_store_page p;
		char url[64];
		lb_buf key = LB_BUF_INIT;

		snprintf(url, sizeof url, "http://words.example/words/%d.html", k);
		lb_url_key(&key, url);
		ant_store_page_init(&p);
		p.url = url;
		p.url_key = key.data;
		p.source_url = url;
		p.created = T0 - 100;
		if (ant_store_page_add(s, &p, &err) != 0)
			printf("# %s\n", lb_error_msg(&err));
		lb_buf_release(&key);
	}
	return s;
}

/* Page k's noise state as stored, into *n (released by the caller); 0 or -1. */
static int state_of(ant_store *s, int k, ant_detect_noise *n)
{
	char url[64];
	lb_buf key = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;
	ant_store_page p;
	ant_textstate ps;
	int rc = -1;

	ant_detect_noise_init(n);
	snprintf(url, sizeof url, "http://words.example/words/%d.html", k);
	lb_url_key(&key, url);
	if (ant_store_page_get(s, key.data, &p, &err) == 1) {
		if (ant_textstate_split(p.noise, p.noise_len, &ps) == 0 &&
		    ant_detect_noise_decode(n, ps.noise, ps.noise_len) == 0)
			rc = 0;
		ant_store_page_release(&p);
	}
	lb_buf_release(&key);
	return rc;
}

int main(void)
{
	struct fetcher f = { 0 };
	ant_fetcher fetcher = { serve, &f };
	ant_store *s;
	ant_detect_noise n;

	TAP_PLAN(WORDS_PAGES + 7);
	if (!mkdtemp(dir) || !(s = open_store())) {
		printf("not ok - a store\n");
		return 1;
	}
	for (int c = 0; c <= WORDS_CHECKS; c++) {
		ant_update_opts opts;
		ant_update_stats st;
		lb_error e = LB_ERROR_INIT;

		ant_update_opts_init(&opts);
		opts.now = T0 + 3600 * c;
		opts.force = 1;
		opts.fetcher = &fetcher;
		opts.on_page = on_page;
		opts.ctx = &c;
		f.check = c;
		if (ant_update(s, &opts, &st, &e) < 0)
			printf("# ant_update: %s\n", lb_error_msg(&e));
	}
	for (int k = 0; k < WORDS_PAGES; k++)
		IS_STR(got[k], words_want[k], "%s: updates check by check (U: an update, .: none)", words_name[k]);

	OK(state_of(s, 0, &n) == 0 && n.nvol == 0 && n.nwords == 0,
	   "calendar: nothing learned (%zu blocks, %zu with words): the moving class was never a change",
	   n.nvol, n.nwords);
	ant_detect_noise_release(&n);
	OK(state_of(s, 1, &n) == 0 && n.nvol == 0 && n.nwords == 1 && strstr(n.words[0].sample, "\xe2\x80\xa6") &&
	   strstr(n.words[0].path, "latest-commit"),
	   "browser: the token's words learned, not its block (%zu blocks; words in %s: \"%s\")", n.nvol,
	   n.nwords ? n.words[0].path : "-", n.nwords ? n.words[0].sample : "-");
	ant_detect_noise_release(&n);
	{
		unsigned char *blob = NULL;
		size_t len = 0, cut = 0;
		ant_detect_noise back;

		state_of(s, 1, &n);
		OK(ant_detect_noise_encode(&n, &blob, &len) == 0 && ant_detect_noise_decode(&back, blob, len) == 0 &&
		   back.nwords == n.nwords && n.nwords && back.words[0].nctx == n.words[0].nctx &&
		   memcmp(back.words[0].ctx, n.words[0].ctx, sizeof n.words[0].ctx) == 0 &&
		   strcmp(back.words[0].sample, n.words[0].sample) == 0 && back.words[0].since == n.words[0].since,
		   "the words round-trip through the stored blob (%zu bytes)", len);
		ant_detect_noise_release(&back);
		for (size_t l = 0; blob && l < len; l++)
			cut += ant_detect_noise_decode(&back, blob, l) < 0 && !back.has_keys && !back.nwords;
		IS_INT(cut, len, "every shorter prefix of that blob is refused");
		free(blob);
		ant_detect_noise_release(&n);
	}
	OK(state_of(s, 2, &n) == 0 && n.nvol == 0 && n.nwords == 1 && strstr(n.words[0].sample, "form key: \xe2\x80\xa6"),
	   "csrf: the form key learned as words (\"%s\"), the notice still compared",
	   n.nwords ? n.words[0].sample : "-");
	ant_detect_noise_release(&n);
	OK(state_of(s, 3, &n) == 0 && n.nvol == 1 && n.nwords == 0,
	   "quote: a block whose whole text is drawn per request is learned as a block (%zu, words %zu)",
	   n.nvol, n.nwords);
	ant_detect_noise_release(&n);
	/* an older state (version 3, no words) still decodes */
	{
		static const unsigned char v3[] = { 'N', 3, 1, 0, 0 };
		OK(ant_detect_noise_decode(&n, v3, sizeof v3) == 0 && n.has_keys && n.nwords == 0,
		   "a version 3 state decodes (no volatile words)");
		ant_detect_noise_release(&n);
	}
	ant_store_close(s);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# cannot remove %s\n", dir);
	}
	TAP_DONE();
}
