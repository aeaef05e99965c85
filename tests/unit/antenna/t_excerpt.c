/*
 * t_excerpt: change excerpts (ant_page_analyze with a prev, ant_clip), the feed
 * link a page advertises, and the feed rule of ant_detect_apply.
 */
#include "ant_detect.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ant_page_info an(const char *html, const ant_page_info *prev, size_t max, const char *ign)
{
	ant_page_prev pv = { prev ? prev->segs : NULL, prev ? prev->nsegs : 0, max };
	const char *igv[1] = { ign };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;

	ant_page_opts o = { .ignore = ign ? igv : NULL, .nignore = ign ? 1 : 0, .prev = &pv };

	if (ant_page_analyze(html, strlen(html), "text/html; charset=utf-8", &o, &pi, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(1);
	}
	return pi;
}

static void test_excerpts(void)
{
	ant_page_info a = an("<html><head><title>T</title><link rel=\"Alternate\" type=\"application/atom+xml\""
			 " href=\"/feed.atom\"></head><body><h1>Diary</h1><p>One. Two.</p>"
			 "<ul><li>old</li></ul></body></html>", NULL, 0, NULL);
	ant_page_info b, c, d, e, f;
	ant_page_info plain;
	lb_error err = LB_ERROR_INIT;

	IS_STR(a.feed_href, "/feed.atom", "the advertised Atom feed is found (rel case-insensitive)");
	OK(a.nsegs >= 4 && !a.excerpt, "segments kept, no excerpt without a previous version (%zu)", a.nsegs);
	b = an("<html><head><title>T</title></head><body><h1>Diary</h1><p>One. Added here! Two.</p>"
	       "<ul><li>new item</li><li>old</li></ul></body></html>", &a, 0, NULL);
	IS_STR(b.excerpt, "Added here!", "the first new sentence is the excerpt");
	OK(b.feed_href == NULL, "no feed link, none found");
	c = an("<html><body><h1>Diary</h1><p>One. Added here! Two.</p><ul><li>old</li></ul></body></html>", &b, 0, NULL);
	OK(c.excerpt == NULL, "a removal has no excerpt");
	d = an("<html><body><p>\xe6\x97\xa5\xe8\xa8\x98\xe3\x82\x92\xe6\x9b\xb8\xe3\x81\x8d\xe3\x81\xbe\xe3\x81\x97\xe3\x81\x9f\xe3\x80\x82"
	       "\xe6\x96\xb0\xe3\x81\x97\xe3\x81\x84\xe6\x96\x87\xe3\x80\x82</p></body></html>",
	       &(ant_page_info){ .segs = (uint32_t[]){ 0 }, .nsegs = 1 }, 3, NULL);
	IS_STR(d.excerpt, "\xe6\x97\xa5\xe8\xa8\x98\xe3\x82\x92\xe2\x80\xa6",
	       "Japanese sentences, clipped to 3 characters and an ellipsis");
	e = an("<html><body><p>Visitors: 1234</p><p>Same text.</p></body></html>", NULL, 0, "Visitors: [0-9]+");
	f = an("<html><body><p>Visitors: 99999</p><p>Same text.</p></body></html>", &e, 0, "Visitors: [0-9]+");
	OK(f.excerpt == NULL && e.text_hash == f.text_hash, "an ignored part that changes gives no excerpt");
	IS_INT(ant_page_analyze("<p>x</p>", 8, NULL, NULL, &plain, &err), 0, "page_analyze without options");
	OK(plain.nsegs == 1 && plain.excerpt == NULL, "without a prev: the segments, no excerpt");
	ant_page_info_release(&a); ant_page_info_release(&b); ant_page_info_release(&c);
	ant_page_info_release(&d); ant_page_info_release(&e); ant_page_info_release(&f); ant_page_info_release(&plain);
}

/* Who and when are left out of an excerpt that has words: a dated
 * heading, a commit's hash, a byline; kept when they are all it has. */
static void test_excerpt_words(void)
{
	static const struct { const char *seg; int meta; } t[] = {
		{ "Sun 29 November 2026", 1 },
		{ "2026\xe5\xb9\xb4""11\xe6\x9c\x88""29\xe6\x97\xa5", 1 },
		{ "4b2361603d6e", 1 },
		{ "Hanako Sato <hanako@example.org>", 1 },
		{ "Add a quiet option", 0 },
		{ "Release 1.4.3", 0 },
		{ "Harvest", 0 },
		{ "Updated less than a minute ago.", 1 },
		{ "Added by Taro Yamada 30 minutes ago", 1 },
		{ "\xe4\xbb\x8a\xe6\x97\xa5\xe3\x81\xae\xe4\xb8\x80\xe8\xa8\x80: words of the day", 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char h[512];
		ant_page_info a, b;

		snprintf(h, sizeof h, "<html><body><p>Old entry.</p></body></html>");
		a = an(h, NULL, 0, NULL);
		snprintf(h, sizeof h, "<html><body><p>%s</p><p>The new entry is here.</p><p>Old entry.</p></body></html>",
			 t[i].seg);
		b = an(h, &a, 0, NULL);
		OK(b.excerpt && (strstr(b.excerpt, t[i].seg) != NULL) == !t[i].meta,
		   "\"%s\" %s the excerpt beside words (%s)", t[i].seg, t[i].meta ? "left out of" : "kept in",
		   b.excerpt ? b.excerpt : "none");
		ant_page_info_release(&a);
		ant_page_info_release(&b);
	}
	{
		ant_page_info a = an("<html><body><p>Old entry.</p></body></html>", NULL, 0, NULL);
		ant_page_info b = an("<html><body><p>Sun 29 November 2026</p><p>Old entry.</p></body></html>", &a, 0, NULL);

		IS_STR(b.excerpt, "Sun 29 November 2026", "a change made only of a date: the date is its excerpt");
		ant_page_info_release(&a);
		ant_page_info_release(&b);
	}
}

static void test_segment_cap(void)
{
	size_t cap = 2000 * 40 + 100, len = 0;
	char *html = malloc(cap);
	ant_page_info a;

	len += (size_t)snprintf(html + len, cap - len, "<html><body>");
	for (int i = 0; i < 2000; i++)
		len += (size_t)snprintf(html + len, cap - len, "<p>paragraph %d</p>", i);
	snprintf(html + len, cap - len, "</body></html>");
	a = an(html, NULL, 0, NULL);
	IS_INT(a.nsegs, ANT_PAGE_MAX_SEGMENTS, "at most ANT_PAGE_MAX_SEGMENTS segment hashes per page");
	ant_page_info_release(&a);
	free(html);
}

static void test_clip(void)
{
	char *s;

	s = ant_clip("  a  b\n c  ", 10);
	IS_STR(s, "a b c", "clip collapses whitespace");
	free(s);
	s = ant_clip("abcdef", 3);
	IS_STR(s, "ab\xe2\x80\xa6", "clip cuts with an ellipsis, within the limit");
	free(s);
	s = ant_clip("ab\xff\xfe" "cd", 10);
	IS_STR(s, "abcd", "clip drops invalid UTF-8");
	free(s);
	s = ant_clip("abc", 3);
	IS_STR(s, "abc", "no ellipsis at exactly the limit");
	free(s);
	s = ant_clip("abc \n", 3);
	IS_STR(s, "abc", "a trailing space does not count");
	free(s);
	s = ant_clip("ab  \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 5);
	IS_STR(s, "ab \xe6\x97\xa5\xe2\x80\xa6", "cut on a character boundary, the collapsed space counting as one");
	free(s);
}

static void test_detect_feed(void)
{
	ant_detect_state st;
	ant_detect_input in = { .status = 200, .content_length = -1, .body_len = 10, .has_hash = 1,
			    .text_hash = 1, .feed_usable = 1, .feed_time = 5000 };
	ant_detect_outcome out;

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, 10000, &out);
	OK(!out.updated && out.rule && !strcmp(out.rule, "feed") && st.last_modified == 5000,
	   "first check with a feed: the feed's date taken quietly (a baseline), rule feed");
	in.text_hash = 2;
	ant_detect_apply(&st, &in, 11000, &out);
	OK(!out.updated && st.last_modified == 5000, "with a usable feed a text change is no update");
	in.feed_time = 10500;
	ant_detect_apply(&st, &in, 12000, &out);
	OK(!out.updated && st.last_modified == 5000 && st.feed_time == 10500,
	   "a newer entry on the same body is no update (its date kept as the feed's newest)");
	in.feed_time = 11500;
	in.text_hash = 5;
	ant_detect_apply(&st, &in, 12100, &out);
	OK(out.updated && st.last_modified == 11500 && !strcmp(st.detected_by, "feed"),
	   "a newer entry on a changed body is an update at its date");
	in.feed_usable = 0;
	in.feed_time = 0;
	in.text_hash = 3;
	ant_detect_apply(&st, &in, 13000, &out);
	OK(out.updated && !strcmp(out.rule, "text") && st.last_modified == 13000, "no usable feed: the text rule again");
	in.feed_usable = 1;
	in.feed_time = 12500;   /* older than the text update */
	ant_detect_apply(&st, &in, 14000, &out);
	OK(!out.updated && st.last_modified == 13000 && st.feed_time == 12500,
	   "a feed date older than the known update is no update, but remembered");
	OK(ant_detect_relay(&st, 13500, 13500, 14000) && !ant_detect_relay(&st, 13200, 13200, 14000),
	   "relays keep the greater Last-Modified");
	in.feed_time = 13400;   /* relayed 13500 already newer */
	ant_detect_apply(&st, &in, 15000, &out);
	OK(!out.updated && st.last_modified == 13500, "a feed entry older than a relayed update adds nothing");
	in.status = 304;
	in.feed_time = 14500;
	ant_detect_apply(&st, &in, 16000, &out);
	OK(!out.updated && out.unchanged && st.last_modified == 13500 && st.feed_time == 14500,
	   "a 304 page with a newer feed entry is no update: the page did not change");
}

/* A change our own check finds after an Atom relay is that update. */
static void test_atom_relay(void)
{
	ant_detect_state st;
	ant_detect_input in = { .status = 200, .content_length = -1, .body_len = 10, .has_hash = 1,
			    .text_hash = 1 };
	ant_detect_outcome out;

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, 1000, &out);
	OK(ant_detect_relay(&st, 1500, 1600, 2000), "an Atom entry is relayed");
	st.detected_by = "atom";
	in.text_hash = 2;
	ant_detect_apply(&st, &in, 2100, &out);
	OK(!out.updated && st.last_modified == 1500, "our own check after an Atom relay keeps its time");
}

/* pick: the segments whose text is one of want[] (NULL-terminated). */
static unsigned char *pick_of(const ant_page_info *p, const char *const *want)
{
	unsigned char *pick = calloc(p->nseg ? p->nseg : 1, 1);

	for (size_t i = 0; pick && i < p->nseg; i++)
		for (size_t k = 0; want[k]; k++)
			if (strlen(want[k]) == p->seg[i].len && memcmp(want[k], p->text + p->seg[i].off, p->seg[i].len) == 0)
				pick[i] = 1;
	return pick;
}

/* Is what the picked texts say only links on the page? */
static int links_only(const char *html, const char *const *want)
{
	ant_page_info p = an(html, NULL, 0, NULL);
	unsigned char *pick = pick_of(&p, want);
	int r = ant_page_picks_links_only(&p, pick, NULL);

	free(pick);
	ant_page_info_release(&p);
	return r;
}

/* An article's links to its neighbours (an archived message gaining a
 * follow-up and a "Next by thread" link) are not its words; a new entry
 * of a table of contents beside the article's text, an index's new link,
 * and a new sentence are. */
static void test_links_only(void)
{
	static const char msg[] =
		"<html><body>[<a href=\"m0.html\">Date Prev</a>][<a href=\"m2.html\">Date Next</a>]"
		"<h1>Meeting on 12/3</h1><ul><li><em>Subject</em>: Meeting on 12/3</li>"
		"<li><em>From</em>: Taro &lt;taro@example.org&gt;</li></ul>"
		"<pre>The next meeting is on 12/3 at the hall, bring the jars.</pre>"
		"<ul><li><strong>Follow-Ups</strong>:<ul><li><strong><a href=\"m5.html\">Re: Meeting on 12/3</a></strong>"
		"<ul><li><em>From:</em> Jiro &lt;jiro@example.org&gt;</li></ul></li></ul></li></ul>"
		"<ul><li>Next by thread: <strong><a href=\"m5.html\">Re: Meeting on 12/3</a></strong></li></ul>"
		"</body></html>";
	static const char toc[] =
		"<html><body><div class=\"body\"><section><h1>Handbook</h1><p>The garden club's handbook, kept by its members.</p>"
		"<ul><li><a href=\"market.html\">Plum market</a></li><li><a href=\"harvest.html\">Harvest festival</a></li></ul>"
		"</section></div></body></html>";
	static const char idx[] =
		"<html><body><h1>Mail Index</h1><ul><li><a href=\"m0.html\">Meeting on 12/3</a></li>"
		"<li><a href=\"m5.html\">Re: Meeting on 12/3</a></li></ul></body></html>";

	OK(links_only(msg, (const char *const[]){ "Follow-Ups:", "Re: Meeting on 12/3", "From: Jiro <jiro@example.org>",
						  "Next by thread: Re: Meeting on 12/3", NULL }),
	   "links only: a message's new follow-up, its label and byline, and its next link");
	OK(!links_only(msg, (const char *const[]){ "The next meeting is on 12/3 at the hall, bring the jars.", NULL }),
	   "links only: not the message's own text");
	OK(!links_only(toc, (const char *const[]){ "Harvest festival", NULL }),
	   "links only: not a table of contents' new entry beside the article's text");
	OK(!links_only(idx, (const char *const[]){ "Re: Meeting on 12/3", NULL }),
	   "links only: not an index's new link (no sentence of its own)");
}

/* Prose before paths, hashes and code (ant_page_seg_prose(),
 * ant_page_pick_prose()); a sentence of ages only is no segment. */
static void test_prose(void)
{
	ant_page_info a = an("<html><body><div>src/main.c</div><div>index fa23ad8..2cf465e 100644</div>"
			     "<div>blob: fa23ad87c3bbf7b99952e85c88f84868ac8077e8 (plain)</div>"
			     "<div>main.c: add a --quiet option</div><div>Release 1.4.3</div>"
			     "<div>\xe5\x80\xa4\xe6\xae\xb5\xe3\x82\x92\xe5\xa4\x89\xe3\x81\x88\xe3\x81\x9f</div>"
			     "<div>58 min.</div><div>diff --git a/README b/README</div></body></html>", NULL, 0, NULL);
	unsigned char pick[8] = { 1, 1, 0, 1, 1, 0, 0, 0 };

	IS_INT((int)a.nseg, 7, "the age cell is no segment");
	OK(!ant_page_seg_prose(&a, 0) && !ant_page_seg_prose(&a, 1) && !ant_page_seg_prose(&a, 2) &&
	   !ant_page_seg_prose(&a, 6), "a path, a diff's index line, a blob's hash line, a diff header are no prose");
	OK(ant_page_seg_prose(&a, 3) && ant_page_seg_prose(&a, 4) && ant_page_seg_prose(&a, 5),
	   "a commit message, a release's title, a Japanese sentence are prose");
	OK(ant_page_pick_prose(&a, pick) && !pick[0] && !pick[1] && pick[3] && pick[4],
	   "the excerpt starts at the first prose picked");
	memset(pick, 0, sizeof pick);
	pick[0] = pick[2] = 1;
	OK(!ant_page_pick_prose(&a, pick) && pick[0] && pick[2], "all code: nothing unpicked, 0");
	ant_page_info_release(&a);
}

int main(void)
{
	TAP_PLAN(47);
	test_atom_relay();
	test_prose();
	test_excerpts();
	test_excerpt_words();
	test_segment_cap();
	test_clip();
	test_detect_feed();
	test_links_only();
	TAP_DONE();
}
