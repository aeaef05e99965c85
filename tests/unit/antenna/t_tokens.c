/*
 * t_tokens: volatility per token (ant_tokens.h) on pages analysed by
 * ant_page.h: a date edited once is announced a check late, dated when
 * first seen; a counter is learned on its second change and never
 * announced; a change that comes with other news is not held; a counter
 * quiet for ANT_TOKENS_STABLE is forgotten; the state survives its blob.
 */
#include "ant_tokens.h"
#include "ant_page.h"
#include "lb_date.h"
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
static int with_text;   /* ant_tokens_decide_text(): time-aware */

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
	c.rc = with_text ? ant_tokens_decide_text(t, p.seg, p.nseg, p.text, NULL, other_news, now, &c.v)
			 : ant_tokens_decide(t, p.seg, p.nseg, NULL, other_news, now, &c.v);
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

/* t as the page's local time (UTC+9, not said): "2027-01-15 17:00" or "17:00". */
static const char *stamp(int64_t t, int bare)
{
	static char b[4][32];
	static int k;
	lb_tm tm;

	lb_date_split(t + 9 * HOUR, &tm);
	k = (k + 1) % 4;
	if (bare)
		snprintf(b[k], sizeof b[k], "%02d:%02d", tm.hour, tm.min);
	else
		snprintf(b[k], sizeof b[k], "%04d-%02d-%02d %02d:%02d", (int)tm.year, tm.mon, tm.mday, tm.hour, tm.min);
	return b[k];
}

/* The page with a footer of the given text, and a price. */
static const char *page(const char *footer, const char *price)
{
	static char b[512];

	snprintf(b, sizeof b, "<p>会場は公民館です。</p><p>本日の価格は %s です。</p><p>%s</p>", price, footer);
	return b;
}

static const char *footer(const char *fmt, const char *x)
{
	static char b[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(b[k], sizeof b[k], fmt, x);
	return b[k];
}

#define MEETING(d) "<p>会場は公民館です。</p><p>次回の例会は12月" d "日です。</p>"
#define COUNTER(n) "<p>会場は公民館です。</p><p>あなたは " n " 人目の訪問者です。</p>"

/* Field by field: the keys' padding bytes are not part of them. */
static int same_keys(const ant_tokens *a, const ant_tokens *b)
{
	for (size_t i = 0; i < a->nkeys; i++)
		if (a->keys[i].key != b->keys[i].key || a->keys[i].raw != b->keys[i].raw)
			return 0;
	return 1;
}

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

/* ANT_TOKENS_WATCHED: the operator named the part read (--only): a change
 * of its numbers is news in its own check, each time, never held nor
 * learned as a counter; a clock there is still none. */
static void watched(void)
{
	ant_tokens t;
	struct check c;
	char html[256];

	ant_tokens_init(&t);
	run(&t, MEETING("3"), ANT_TOKENS_WATCHED, T0);
	c = run(&t, MEETING("10"), ANT_TOKENS_WATCHED, T0 + HOUR);
	OK(c.v.updated && !c.v.held && c.v.since == T0 + HOUR, "watched: 12月3日 -> 12月10日 announced in its check");
	IS_STR(c.excerpt, "次回の例会は12月10日です。", "watched: its excerpt is the edited sentence");
	c = run(&t, MEETING("17"), ANT_TOKENS_WATCHED, T0 + 2 * HOUR);
	OK(c.v.updated && !c.v.learned && t.nctr == 0, "watched: changed again: announced again, no counter learned");
	c = run(&t, MEETING("17"), ANT_TOKENS_WATCHED, T0 + 3 * HOUR);
	OK(!c.v.updated && !c.v.held, "watched: unchanged: nothing");
	with_text = 1;
	snprintf(html, sizeof html, "<p>会場は公民館です。</p><p>更新 %s</p>", stamp(T0 + 3 * HOUR, 0));
	run(&t, html, ANT_TOKENS_WATCHED, T0 + 3 * HOUR + 60);
	snprintf(html, sizeof html, "<p>会場は公民館です。</p><p>更新 %s</p>", stamp(T0 + 4 * HOUR, 0));
	c = run(&t, html, ANT_TOKENS_WATCHED, T0 + 4 * HOUR + 60);
	OK(!c.v.updated && c.v.clocks == 1, "watched: a stamp moved to the check's time is still a clock");
	with_text = 0;
	ant_tokens_release(&t);
}

/* A statistics page: a held count that rests once while the page's other
 * counts move stays held (it rested by chance), and moving again it is a
 * counter; a price edited on a page whose other numbers are still is
 * confirmed at the next check, as ever. */
static void stats(void)
{
	ant_tokens t;
	struct check c;
	char b[512];
	int n[5][5] = {
		{ 10, 20, 30, 40, 50 },   /* the baseline */
		{ 11, 21, 31, 41, 55 },   /* all moved: the last one held, say */
		{ 12, 22, 32, 42, 55 },   /* the last rests, the others move */
		{ 13, 23, 33, 43, 56 },   /* it moves again */
		{ 13, 23, 33, 43, 56 },
	};

	ant_tokens_init(&t);
	for (int k = 0; k < 5; k++) {
		snprintf(b, sizeof b, "<p>Visits: %d</p><p>Pages: %d</p><p>Hits: %d</p><p>Bytes: %d</p><p>Robots: %d</p>",
			 n[k][0], n[k][1], n[k][2], n[k][3], n[k][4]);
		c = run(&t, b, 0, T0 + k * HOUR);
		if (k == 2)
			OK(!c.v.updated, "a statistics page: a count resting once while the others move is not an edit");
		if (k == 3)
			OK(!c.v.updated, "... nor when it moves again (a counter)");
		if (k == 4)
			OK(!c.v.updated, "... nor when every count rests");
	}
	ant_tokens_release(&t);
}

/* Labels that moved between rows (ant_tokens_labels_moved()). */
static void labels(void)
{
	const char *old = "Widget\nREADME: fix a typo HEAD master\ndocs: how to install\n";
	const char *page = "Widget docs: add FAQ HEAD master README: fix a typo docs: how to install ";
	const char *page2 = "Widget README: fix a typo docs: how to install ";
	const char *row = "README: fix a typo";

#define LM(s, o, p) ant_tokens_labels_moved(s, strlen(s), o, strlen(o), p, strlen(p))
	OK(LM(row, old, page), "a row whose labels moved to a newer row: no edit");
	OK(!LM(row, old, page2), "... not when the labels stand nowhere else (an author shortened it)");
	OK(LM(row, "Widget branches: master HEAD\nREADME: fix a typo HEAD master\n", page2),
	   "... yes when the old text shows them in another line (a branch list)");
	OK(LM("README: fix a typo HEAD master", "README: fix a typo\nHEAD master\n", "x"),
	   "a row gaining labels the page showed elsewhere: no edit");
	OK(!LM("A small tool that sorts peach jam jars.", "A small tool that sorts plum jam jars.\n", "peach"),
	   "a one-word edit (plum -> peach) is no label move");
	OK(!LM("fix a typo", "fix a small typo\n", "small"),
	   "... nor are dropped words between others");
	OK(!LM("typo", "typo HEAD\n", "HEAD"), "a row keeps two words of its own");
	OK(LM("README: new price draft", "README: new price draft default tip\n", "changeset (0) tip"),
	   "a branch's name only beside its head, the other label in the menu: no edit");
	OK(LM("README: fix a typo", "README: fix a typoHEADmaster\n", "switch branch master"),
	   "labels side by side, no space between them (two inline links)");
	OK(!LM("sorts jam jars", "sorts jam jarsplum\n", "x"), "... not when none stands elsewhere");
	OK(!LM("Price: 120 yen", "Price: 120 yen a copy\n", "a b c"), "\"a\" standing elsewhere proves nothing");
	OK(!LM("Price 150 yen", "Price 150 yen 2026\n", "2026"), "a dropped number is no label");
#undef LM
}

int main(void)
{
	ant_tokens t, u;
	struct check c;
	unsigned char *blob;
	size_t len;

	TAP_PLAN(68);
	labels();
	confirm();
	stats();
	watched();

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

	/* a calendar whose "today" class moves from 28 to 29: td.today's
	 * number changes, no number of the page does */
	ant_tokens_init(&t);
	run(&t, "<p>会場は公民館です。</p><table><tr><td>27</td><td class=\"today\">28</td><td>29</td></tr></table>",
	    0, T0);
	c = run(&t, "<p>会場は公民館です。</p><table><tr><td>27</td><td>28</td><td class=\"today\">29</td></tr></table>",
		0, T0 + HOUR);
	OK(!c.v.held && t.nheld == 0, "a calendar's today class moving is no change of numbers: nothing held");
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
	   u.ctr[0].last == t.ctr[0].last && same_keys(&u, &t),
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
	/* time-aware (ant_clock.h): clocks are no change */
	with_text = 1;
	ant_tokens_init(&t);
	run(&t, page(footer("Generated on %s by the site builder", stamp(T0 - 72 * HOUR, 0)), "120円"), 0, T0);
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + HOUR - 600, 0)), "120円"), 0, T0 + HOUR);
	OK(!c.v.updated && !c.v.held && c.v.clocks == 1, "a rebuilt page's \"Generated on\" moved to a moment since the last check: a stamp, not held");
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + HOUR - 600, 0)), "120円"), 0, T0 + 2 * HOUR);
	OK(!c.v.updated && !c.v.held && c.v.same_shape, "... the check after: nothing confirmed, the same sentences");
	c = run(&t, "<p>会場は公民館です。</p><p>本日の価格は 120円 です。</p>", 0, T0 + 2 * HOUR + 60);
	OK(!c.v.same_shape, "a sentence removed: not the same sentences (a Last-Modified may date it)");
	run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + HOUR - 600, 0)), "120円"), 0, T0 + 2 * HOUR + 120);
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + 3 * HOUR - 60, 0)), "150円"), 0, T0 + 3 * HOUR);
	OK(!c.v.updated && c.v.held == 1 && c.v.clocks == 1, "a price edited beside the stamp: held");
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + 4 * HOUR - 60, 0)), "150円"), 0, T0 + 4 * HOUR);
	OK(c.v.updated && c.v.since == T0 + 3 * HOUR, "... it stayed while the stamp moved on: announced a check late, dated when first seen");
	IS_STR(c.excerpt, "本日の価格は 150円 です。", "... its excerpt is the price, not the stamp");
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 - 1000 * HOUR, 0)), "150円"), 0, T0 + 5 * HOUR);
	OK(c.v.held == 1 && !c.v.clocks, "a stamp moved back, far from the window: news, held");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, page(footer("last updated at %s", stamp(T0 - 180, 1)), "120円"), 0, T0);
	for (int k = 1; k <= 4; k++) {
		int64_t now = T0 + k * 7 * 60;

		c = run(&t, page(footer("last updated at %s", stamp(now - now % 300, 1)), "120円"), 0, now);
		if (c.v.updated || c.v.held || !c.v.clocks)
			break;
	}
	OK(!c.v.updated && !c.v.held && c.v.clocks, "a cron page's \"last updated at HH:MM\", checked every 7 minutes: never held");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, page("generated in 0.003 s", "120円"), 0, T0);
	c = run(&t, page("generated in 0.005 s", "120円"), 0, T0 + HOUR);
	OK(!c.v.held && c.v.clocks == 1, "a timing that moved: a clock, not held");
	c = run(&t, page("generated in 0.005 s", "120円"), 0, T0 + 2 * HOUR);
	OK(!c.v.updated, "... repeating at the next check, no update");
	c = run(&t, page("posted 2 hours ago", "120円"), 0, T0 + 3 * HOUR);
	c = run(&t, page("posted 3 hours ago", "120円"), 0, T0 + 4 * HOUR);
	OK(!c.v.held && c.v.clocks == 1, "an age: \"2 hours ago\" -> \"3 hours ago\" is a clock");
	ant_tokens_release(&t);

	ant_tokens_init(&t);
	run(&t, MEETING("3"), 0, T0);
	c = run(&t, MEETING("10"), 0, T0 + HOUR);
	OK(c.v.held == 1 && !c.v.clocks, "an event's date edited (12月3日 -> 12月10日), time-aware: news, held");
	c = run(&t, MEETING("10"), 0, T0 + 2 * HOUR);
	OK(c.v.updated, "... and announced when it stays");
	ant_tokens_release(&t);

	/* stillness: checks in a row that found the page as the one before
	 * (update_text.c believes one change made once after them) */
	ant_tokens_init(&t);
	run(&t, page(footer("Generated on %s by the site builder", stamp(T0 - HOUR, 0)), "120円"), 0, T0);
	OK(t.quiet == 0, "stillness: none at a baseline");
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + HOUR - 60, 0)), "120円"), 0, T0 + HOUR);
	OK(t.quiet == 1 && c.v.quiet == 0 && c.v.moved == 0, "... a check that found the page as before (a stamp moved: a clock): 1");
	c = run(&t, page(footer("Generated on %s by the site builder", stamp(T0 + HOUR - 60, 0)), "150円"), 0, T0 + 2 * HOUR);
	OK(c.v.quiet == 1 && c.v.moved == 1 && c.v.held == 1 && t.quiet == 0,
	   "... a price edited: the verdict says 1 still check and 1 sentence moved; stillness starts again");
	t.still = T0 + 2 * HOUR;
	t.unasked = T0 + 2 * HOUR;
	OK(ant_tokens_encode(&t, &blob, &len) == 0 && blob[1] == 4 && ant_tokens_decode(&u, blob, len) == 0 &&
	   u.quiet == t.quiet && u.still == t.still && u.unasked == t.unasked && u.nheld == 1,
	   "... kept in the blob (version 4: the check decided without a second fetch too)");
	free(blob);
	ant_tokens_release(&u);
	{
		/* a version 3 blob (no check decided without a second fetch) is still read */
		static const unsigned char v3[] = { 'T', 3, 5, 1, 1, 2, 3, 4, 2, 9, 0, 0, 0 };

		OK(ant_tokens_decode(&u, v3, sizeof v3) == 0 && u.quiet == 2 && u.still == 9 && u.unasked == 0 &&
		   u.last == 5, "a version 3 blob reads with no check decided without a second fetch");
		ant_tokens_release(&u);
	}
	{
		/* a version 2 blob (no stillness kept) is still read */
		static const unsigned char v2[] = { 'T', 2, 5, 1, 1, 2, 3, 4, 0, 0, 0 };

		OK(ant_tokens_decode(&u, v2, sizeof v2) == 0 && u.quiet == 0 && u.still == 0 && u.last == 5,
		   "a version 2 blob reads as still 0 checks");
		ant_tokens_release(&u);
	}
	c = run(&t, COUNTER("7"), 0, T0 + 3 * HOUR);
	c = run(&t, COUNTER("8"), 0, T0 + 4 * HOUR);
	OK(t.quiet == 0 && c.v.moved == 1, "a counter that moves at every check: never still");
	ant_tokens_release(&t);
	TAP_DONE();
}
