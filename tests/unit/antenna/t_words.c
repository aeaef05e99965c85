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
#include "t_db.h"

#include <stdlib.h>
#include <unistd.h>

#include "corpus_fetch.h"
#include "words_corpus.h"
#include "ant_textstate.h"
#include "ant_update.h"
#include "lb_url.h"
#include "ant_noise.h"

#define T0 1700000000

static char dir[] = "/tmp/t_words.XXXXXX";

struct fetcher {
	int check;
	unsigned req[WORDS_PAGES];
};

static int page_of(const char *url)
{
	return corpus_page_of(url, "/words/");
}

static int serve(void *self, const ant_fetch_limits *lim, const ant_fetch_req *reqs, size_t n,
		 ant_fetch_done_fn done, void *ctx)
{
	struct fetcher *f = self;

	for (size_t i = 0; i < n; i++) {
		int k = page_of(reqs[i].url);
		lb_buf b = LB_BUF_INIT;

		if (k < 0 || k >= WORDS_PAGES) {
			corpus_answer(done, ctx, &reqs[i], 404, NULL);
			continue;
		}
		words_page(&b, k, f->check, f->req[k]++);
		corpus_answer(done, ctx, &reqs[i], 200, &b);
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
	t_db_map(path, sizeof path);
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

/* ---- the rule alone: words learned from a race with the author ---------- */

#define BLK 0x1111u
#define OTHER 0x2222u

/* One answer: a notice block of four sentences (the second given) and
 * another block; segs point into texts. */
static size_t notice(ant_detect_seg *segs, const char *topic)
{
	static const char *const rest[] = { "The next meeting is on the first Monday.", "Bring a friend.",
					    "Tea is served after the meeting." };
	const char *t[4] = { rest[0], topic, rest[1], rest[2] };

	for (int i = 0; i < 4; i++)
		segs[i] = (ant_detect_seg){ BLK, ant_noise_hash(t[i], strlen(t[i])), (uint32_t)strlen(t[i]), t[i] };
	segs[4] = (ant_detect_seg){ OTHER, ant_noise_hash("About us.", 9), 9, "About us." };
	return 5;
}

/* The author saved between the two answers of a check: the word that
 * changed is learned as volatile; at the next checks it stays put, so it
 * is the author's and its context goes, and its next edit is news. */
static void race_with_author(void)
{
	ant_detect_noise n;
	ant_detect_verdict v;
	ant_detect_seg a[5], b[5];
	size_t na, nb;
	int64_t t = T0;
	char seq[8] = "";

	ant_detect_noise_init(&n);
	na = notice(a, "The topic is plums.");
	ant_detect_noise_decide(&n, a, na, NULL, 0, 1, t, &v);
	ant_detect_verdict_release(&v);
	na = notice(a, "The topic is plums.");
	nb = notice(b, "The topic is peaches.");   /* saved between the two requests */
	ant_detect_noise_decide(&n, a, na, b, nb, 1, t += 3600, &v);
	strcat(seq, v.updated ? "U" : ".");
	ant_detect_verdict_release(&v);
	OK(n.nwords == 1, "race with the author: the word that differed is learned first (%zu)", n.nwords);
	for (int c = 0; c < 2; c++) {   /* it stays put, check after check */
		na = notice(a, "The topic is peaches.");
		ant_detect_noise_decide(&n, a, na, NULL, 0, 1, t += 3600, &v);
		strcat(seq, v.updated ? "U" : ".");
		ant_detect_verdict_release(&v);
	}
	OK(n.nwords == 0, "race with the author: a learned word that stayed put is the author's, forgotten (%zu)",
	   n.nwords);
	na = notice(a, "The topic is pears and quinces.");
	ant_detect_noise_decide(&n, a, na, NULL, 0, 1, t += 3600, &v);
	strcat(seq, v.updated ? "U" : ".");
	ant_detect_verdict_release(&v);
	IS_STR(seq, "...U", "race with the author: its next edit of that word is an update");
	ant_detect_noise_release(&n);
}

/* ---- the rule alone: words that move between blocks ------------------------------ */

/* One segment of text t in block blk. */
static ant_detect_seg seg(uint32_t blk, const char *t)
{
	return (ant_detect_seg){ blk, ant_noise_hash(t, strlen(t)), (uint32_t)strlen(t), t };
}

/* The same words under other markup are no news; new words beside a
 * move still are; words that left without arriving anywhere are no news.
 * The second check decides without learning: the comparison alone (a
 * small swap would be held otherwise, the swap rule's business). */
static void moves(void)
{
	static const struct {
		const char *name;
		const char *before[4], *after[4];   /* "B:text", B the block's letter */
		int updated;
	} cases[] = {
		{ "an item's class moves to the next item", { "a:Plum jam", "b:A walk", "b:Mending", NULL },
		  { "b:Plum jam", "a:A walk", "b:Mending", NULL }, 0 },
		{ "a text moves to a block of its own", { "a:Fix the parser", "a:Add tests", NULL },
		  { "c:Fix the parser", "a:Add tests", NULL }, 0 },
		{ "a move and a new text beside it", { "a:Plum jam", "b:A walk", NULL },
		  { "b:Plum jam", "a:A walk", "a:Peach jam", NULL }, 1 },
		{ "a text edited while another moved", { "a:Plum jam", "b:A walk", "b:Mending", NULL },
		  { "b:Plum jam", "a:A walk", "b:Mending the old fence", NULL }, 1 },
		{ "a text gone from one block, none new", { "a:Plum jam", "b:A walk", NULL },
		  { "b:A walk", NULL }, 0 },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		ant_detect_noise n;
		ant_detect_verdict v;
		ant_detect_seg a[4], b[4];
		size_t na = 0, nb = 0;

		for (int i = 0; i < 4 && cases[k].before[i]; i++)
			a[na++] = seg(0x100u + (uint32_t)cases[k].before[i][0], cases[k].before[i] + 2);
		for (int i = 0; i < 4 && cases[k].after[i]; i++)
			b[nb++] = seg(0x100u + (uint32_t)cases[k].after[i][0], cases[k].after[i] + 2);
		ant_detect_noise_init(&n);
		ant_detect_noise_decide(&n, a, na, NULL, 0, 1, T0, &v);
		ant_detect_verdict_release(&v);
		ant_detect_noise_decide(&n, b, nb, NULL, 0, 0, T0 + 3600, &v);
		IS_INT(v.updated, cases[k].updated, "moves: %s: %s", cases[k].name,
		       cases[k].updated ? "an update" : "no update");
		ant_detect_verdict_release(&v);
		ant_detect_noise_release(&n);
	}
}

int main(void)
{
	struct fetcher f = { 0 };
	ant_fetcher fetcher = { serve, &f };
	ant_store *s;
	ant_detect_noise n;

	TAP_PLAN(WORDS_PAGES + 15);
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
	race_with_author();
	moves();
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# cannot remove %s\n", dir);
	}
	TAP_DONE();
}
