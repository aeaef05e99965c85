/*
 * words_corpus.h: pages whose markup or a few of whose words change while
 * the author's words do not (ant_detect.h: a change of markup is no
 * change; volatility is judged per word).  Header-only, deterministic:
 * page k at check c answering its r-th request (r counts every request of
 * the page, re-fetches too).  Used by tests/unit/antenna/t_words.c
 * (ant_update() through its fetcher seam) and the test server's
 * /words/K.html route (tests/noise/run.sh).
 *
 *   0 calendar  a diary's month table whose class="today" cell moves one
 *               day at checks 1, 3 and 5 (the date turns), and a
 *               "recent posts" list whose class="new" item moves with it:
 *               the same words, other markup; the author edits the entry
 *               at check 6
 *   1 browser   a code browser's project page: the latest commit (its full
 *               message) beside a per-request token ("request 3f9a2c71"),
 *               a commit at checks 2, 4 and 5
 *   2 csrf      a club's page whose notice block holds a form token made
 *               per request; the author edits one sentence of the notice at
 *               checks 1, 2 and 3
 *   3 quote     a quote drawn per request, the whole of its block: learned
 *               as a block, as before; nothing else changes
 * words_want[k][c]: '-' the baseline, 'U' an update expected at check c,
 * '.' none.
 */
#ifndef WORDS_CORPUS_H
#define WORDS_CORPUS_H

#include <stdio.h>

#include "corpus_rand.h"
#include "lb_buf.h"

#define WORDS_PAGES 4
#define WORDS_CHECKS 6   /* checks after the first (a baseline) */

static const char *const words_name[WORDS_PAGES] = { "calendar", "browser", "csrf", "quote" };
static const char *const words_want[WORDS_PAGES] = { "-.....U", "-.U.UU.", "-UUU...", "-......" };


/* Stable prose: a site's own text, so the parts under test are a small
 * share of the page, as on real pages. */
static inline void words_prose(lb_buf *b, const char *topic)
{
	lb_buf_addf(b, "<div class=\"about\"><p>This page is about %s. It is kept by a small group of "
		    "volunteers who meet once a month.</p><p>Questions about %s are welcome at any meeting; "
		    "the archive below lists what was said before.</p><p>The archive is kept in plain text so "
		    "that anyone can read it with any program.</p></div>\n", topic, topic);
}

static inline void words_calendar(lb_buf *b, int c, unsigned r)
{
	int today = 27 + (c + 1) / 2;   /* 27, 28 at check 1, 29 at 3, 30 at 5 */
	static const char *const posts[] = { "Plum jam, second try", "A walk to the old mill",
					     "Mending the fence", "Notes on sourdough" };

	(void)r;
	lb_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Garden diary</title>"
		    "</head><body><h1>Garden diary</h1>\n<div class=\"main\"><div class=\"day\"><h2>The plums</h2>"
		    "<p>The plums are ripe at last. We picked two baskets before the rain.</p>"
		    "<p>The old tree gave the most. The young one gave a handful. Next year will tell.</p>");
	lb_buf_adds(b, c >= 6 ? "<p>Jam tomorrow, if the jars arrive in time.</p>"
			      : "<p>Jam tomorrow, if the jars arrive.</p>");
	lb_buf_adds(b, "</div></div>\n");
	words_prose(b, "gardening");
	lb_buf_adds(b, "<div class=\"sidebar\"><table class=\"calendar\"><caption>November</caption><tr>");
	for (int d = 1; d <= 30; d++) {
		lb_buf_addf(b, d == today ? "<td class=\"today\"><a href=\"/d/%d\">%d</a></td>" : "<td>%d</td>", d, d);
		if (d % 7 == 0)
			lb_buf_adds(b, "</tr><tr>");
	}
	lb_buf_adds(b, "</tr></table><ul class=\"recent\">");
	/* the newest post is marked "new" for a day: the mark moves */
	for (int i = 0; i < 4; i++)
		lb_buf_addf(b, i == today % 4 ? "<li class=\"new\">%s</li>" : "<li>%s</li>", posts[i]);
	lb_buf_adds(b, "</ul></div>\n</body></html>\n");
}

static inline void words_browser(lb_buf *b, int c, unsigned r)
{
	static const char *const msg[] = {
		"Parse empty files. The reader failed on a file of zero bytes. It now returns an empty list. A test covers it.",
		"Fix the date parser. Dates before 1970 were read as 1970. They are read as written now. Two tests added.",
		"Speed up the index. The index was rebuilt on every request. It is cached now. The cache is cleared on push.",
		"Document the options. Every option is in the manual now. The manual says which are new. Examples added.",
	};
	int n = (c >= 2) + (c >= 4) + (c >= 5);

	lb_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tinyparse - summary</title>"
		    "</head><body><h1>tinyparse</h1>\n");
	words_prose(b, "tinyparse, a small parser library");
	lb_buf_adds(b, "<table class=\"files\"><tr><th>name</th><th>size</th></tr><tr><td>README</td><td>2 KB</td>"
		    "</tr><tr><td>src</td><td>dir</td></tr><tr><td>tests</td><td>dir</td></tr></table>\n");
	/* the latest commit's message, and a token the server makes per
	 * request, in the one block */
	/* the commit's id a link, its message text (a cell that is all one
	 * link beside the main content reads as a link list: furniture) */
	lb_buf_addf(b, "<div class=\"latest-commit\"><a href=\"/commit/%x\">%x</a> %s <span class=\"req\">request "
		    "%08x</span></div>\n", 0xc0ffee + n, 0xc0ffee + n, msg[n], corpus_rand(r * 2654435761u + 17));
	lb_buf_adds(b, "</body></html>\n");
}

static inline void words_csrf(lb_buf *b, int c, unsigned r)
{
	static const char *const topic[] = { "The topic is plums.", "The topic is peaches.",
					     "The topic is pears and quinces.", "The topic is apples." };
	int e = c < 1 ? 0 : c > 3 ? 3 : c;

	lb_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Fruit club</title></head>"
		    "<body><h1>Fruit club</h1>\n");
	words_prose(b, "fruit growing");
	lb_buf_addf(b, "<form class=\"notice\" method=\"post\" action=\"/join\">The next meeting is on the first "
		    "Monday. %s Bring a friend. <span class=\"token\">form key: %08x%04x</span> "
		    "<button>Join</button></form>\n", topic[e], corpus_rand(r + 99), corpus_rand(r * 7 + 3) & 0xffff);
	lb_buf_adds(b, "</body></html>\n");
}

static inline void words_quote(lb_buf *b, int c, unsigned r)
{
	static const char *const q[] = { "Well begun is half done.", "Slow and steady wins the race.",
					 "Many hands make light work.", "Look before you leap.",
					 "Every cloud has a silver lining." };

	(void)c;
	lb_buf_adds(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Proverbs</title></head>"
		    "<body><h1>Proverbs</h1>\n");
	words_prose(b, "proverbs");
	lb_buf_addf(b, "<div class=\"quote\"><p>%s</p></div>\n</body></html>\n", q[corpus_rand(r + 5) % 5]);
}

/* Page k at check c, its r-th request: the HTML (appended to b). */
static inline void words_page(lb_buf *b, int k, int c, unsigned r)
{
	switch (k) {
	case 0: words_calendar(b, c, r); break;
	case 1: words_browser(b, c, r); break;
	case 2: words_csrf(b, c, r); break;
	default: words_quote(b, c, r); break;
	}
}

#endif
