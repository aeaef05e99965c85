/*
 * t_tokens: volatility per token (ant_tokens.h) on pages analysed by
 * ant_page.h: a date edited once is announced a check late, dated when
 * first seen; a counter is learned on its second change and never
 * announced; a change that comes with other news is not held; a counter
 * quiet for ANT_TOKENS_STABLE is forgotten; the state survives its blob.
 */
#include "ant_tokens.h"
#include "ant_page.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR 3600
static const int64_t T0 = 1800000000;

struct check {
	ant_tokens_verdict v;
	char excerpt[256];
	int rc;
};

/* One check of a page whose body is the given paragraphs. */
static struct check run(ant_tokens *t, const char *body, int other_news, int64_t now)
{
	struct check c;
	char html[2048];
	ant_page_opts o = { 0 };
	ant_page_info p = { 0 };

	memset(&c, 0, sizeof c);
	snprintf(html, sizeof html, "<html><head><title>例会</title></head><body>%s</body></html>", body);
	if (ant_page_analyze(html, strlen(html), "text/html", &o, &p, NULL) != 0) {
		printf("# cannot analyse\n");
		exit(1);
	}
	c.rc = ant_tokens_decide(t, p.seg, p.nseg, NULL, other_news, now, &c.v);
	if (c.v.pick) {
		char *x = ant_page_excerpt(&p, c.v.pick, 0);
		snprintf(c.excerpt, sizeof c.excerpt, "%s", x ? x : "");
		free(x);
	}
	free(c.v.pick);   /* the verdict's counts stay for the caller */
	c.v.pick = NULL;
	ant_page_info_release(&p);
	return c;
}

#define MEETING(d) "<p>会場は公民館です。</p><p>次回の例会は12月" d "日です。</p>"
#define COUNTER(n) "<p>会場は公民館です。</p><p>あなたは " n " 人目の訪問者です。</p>"

/* ant_tokens_confirm(): held changes confirmed without the next answer's
 * text (a 304: from 0; a source in the holding check: from = that check),
 * the edited sentence marked for the excerpt. */
static void confirm(void)
{
	ant_tokens t;
	struct check c;
	char html[2048];
	ant_page_opts o = { 0 };
	ant_page_info p = { 0 };
	unsigned char pick[64] = { 0 };
	char *x;

	ant_tokens_init(&t);
	run(&t, MEETING("3"), 0, T0);
	c = run(&t, MEETING("10"), 0, T0 + HOUR);
	OK(c.v.held == 1 && t.nheld == 1, "confirm: a change held");
	IS_INT(ant_tokens_confirm(&t, T0 + 2 * HOUR, NULL, 0, NULL), 0,
	       "confirm: none held from a later check: nothing confirmed");
	snprintf(html, sizeof html, "<html><head><title>例会</title></head><body>%s</body></html>", MEETING("10"));
	if (ant_page_analyze(html, strlen(html), "text/html", &o, &p, NULL) != 0 || p.nseg > sizeof pick)
		exit(1);
	IS_INT(ant_tokens_confirm(&t, T0 + HOUR, p.seg, p.nseg, pick), T0 + HOUR,
	       "confirm: held in that check: confirmed, dated when first seen");
	x = ant_page_excerpt(&p, pick, 0);
	IS_STR(x ? x : "", "次回の例会は12月10日です。", "confirm: the edited sentence is marked");
	free(x);
	c = run(&t, MEETING("10"), 0, T0 + 2 * HOUR);
	OK(t.nheld == 0 && !c.v.updated && !c.v.held, "confirm: no longer held: the next check announces nothing");
	ant_page_info_release(&p);
	ant_tokens_release(&t);
}

int main(void)
{
	ant_tokens t, u;
	struct check c;
	unsigned char *blob;
	size_t len;

	TAP_PLAN(22 + 5);
	confirm();

	ant_tokens_init(&t);
	c = run(&t, MEETING("3"), 0, T0);
	OK(c.rc == 0 && !c.v.updated && !c.v.held, "the first check is a baseline");
	c = run(&t, MEETING("3"), 0, T0 + HOUR);
	OK(!c.v.updated && !c.v.held, "nothing changed: nothing held");
	c = run(&t, MEETING("10"), 0, T0 + 2 * HOUR);
	OK(!c.v.updated && c.v.held == 1, "12月3日 -> 12月10日: held for a check, not announced yet");
	c = run(&t, MEETING("10"), 0, T0 + 3 * HOUR);
	OK(c.v.updated, "... it stayed: an edit, announced a check late");
	IS_INT(c.v.since, T0 + 2 * HOUR, "... dated when it was first seen");
	IS_STR(c.excerpt, "次回の例会は12月10日です。", "... its excerpt is the edited sentence");
	c = run(&t, MEETING("10"), 0, T0 + 4 * HOUR);
	OK(!c.v.updated && !c.v.held, "... announced once");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, COUNTER("100"), 0, T0);
	c = run(&t, COUNTER("101"), 0, T0 + HOUR);
	OK(!c.v.updated && c.v.held == 1, "a counter's first change is held");
	c = run(&t, COUNTER("102"), 0, T0 + 2 * HOUR);
	OK(!c.v.updated && c.v.learned == 1, "... its second change makes it a counter, no update");
	c = run(&t, COUNTER("102"), 0, T0 + 3 * HOUR);
	OK(!c.v.updated, "... a counter that rests is no edit");
	c = run(&t, COUNTER("103"), 0, T0 + 4 * HOUR);
	OK(!c.v.updated && !c.v.held && t.nctr == 1, "... nor when it moves again");
	c = run(&t, COUNTER("103"), 0, T0 + 4 * HOUR + ANT_TOKENS_STABLE);
	IS_INT(c.v.forgotten, 1, "a counter quiet for ANT_TOKENS_STABLE is forgotten");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, MEETING("3"), 0, T0);
	c = run(&t, MEETING("10"), 1, T0 + HOUR);
	OK(!c.v.held && !c.v.updated, "a token change with other news of the page is part of that update, not held");
	IS_STR(c.excerpt, "次回の例会は12月10日です。", "... and its excerpt");
	c = run(&t, MEETING("10"), 0, T0 + 2 * HOUR);
	OK(!c.v.updated, "... and not announced again");
	c = run(&t, MEETING("17"), 0, T0 + 3 * HOUR);
	c = run(&t, "<p>会場は公民館です。</p>", 0, T0 + 4 * HOUR);
	OK(!c.v.updated && t.nheld == 0, "a held change whose sentence went is dropped");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, "<p>コメント(1)</p><p>コメント(2)</p>", 0, T0);
	c = run(&t, "<p>コメント(1)</p><p>コメント(3)</p>", 0, T0 + HOUR);
	OK(!c.v.held, "a sentence the page shows twice is ambiguous: left out");
	ant_tokens_release(&t);

	{
		/* days newest first, each with its comment caption: the older
		 * day got its first comment; the first caption is picked by key */
		static const char day[] =
			"<html><body><div class=\"day\"><p class=\"cap\">本日のツッコミ(全2件)</p><p>古いコメント</p></div>"
			"<div class=\"day\"><p class=\"cap\">本日のツッコミ(全1件)</p><p>新しいコメント</p></div></body></html>";
		ant_page_opts o = { 0 };
		ant_page_info p = { 0 };
		unsigned char pick[4] = { 1, 0, 0, 1 };
		char *x;

		ant_page_analyze(day, strlen(day), "text/html", &o, &p, NULL);
		ant_tokens_place_pick(p.seg, p.nseg, pick);
		x = ant_page_excerpt(&p, pick, 0);
		IS_STR(x, "本日のツッコミ(全1件) 新しいコメント", "place_pick: the caption next to the new comment is the new one");
		free(x);
		ant_page_info_release(&p);
	}

	ant_tokens_init(&t);
	run(&t, COUNTER("100"), 0, T0);
	run(&t, COUNTER("101"), 0, T0 + HOUR);
	run(&t, COUNTER("102"), 0, T0 + 2 * HOUR);
	run(&t, MEETING("3"), 0, T0 + 3 * HOUR);
	run(&t, MEETING("10"), 0, T0 + 4 * HOUR);
	OK(ant_tokens_encode(&t, &blob, &len) == 0 && ant_tokens_decode(&u, blob, len) == 0,
	   "the state to a blob (%zu bytes) and back", len);
	OK(u.nkeys == t.nkeys && u.nheld == 1 && u.nctr == 1 && u.held[0].since == T0 + 4 * HOUR &&
	   u.ctr[0].last == t.ctr[0].last && memcmp(u.keys, t.keys, t.nkeys * sizeof *t.keys) == 0,
	   "... the same keys, held change and counter");
	c = run(&u, MEETING("10"), 0, T0 + 5 * HOUR);
	OK(c.v.updated && c.v.since == T0 + 4 * HOUR, "... and decides on from there");
	blob[len - 1] ^= 0x80;
	ant_tokens_release(&u);   /* decode starts from an empty state */
	OK(ant_tokens_decode(&u, blob, len - 1) == LB_EPARSE && ant_tokens_decode(&u, "N\002", 2) == LB_EPARSE,
	   "a cut or foreign blob is refused");
	free(blob);
	ant_tokens_release(&u);
	ant_tokens_release(&t);
	TAP_DONE();
}
