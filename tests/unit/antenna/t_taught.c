/*
 * t_taught.c: the noise the operator teaches ('set --not-news',
 * ant_taught.h) and the words that must appear ('add --when', ant_when.h):
 * runs found from what an update added, kept as text and read back, the
 * same place after the same text left out and another place kept, the
 * merge bounded; the --when patterns in order, "#word" as text, refused
 * when bad or too big, bounded in time on a hostile text.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ant_page.h"
#include "ant_taught.h"
#include "ant_when.h"

static int analyze(const char *html, ant_page_info *info)
{
	return ant_page_analyze(html, strlen(html), "text/html; charset=utf-8", NULL, info, NULL);
}

/* The index of the segment whose text starts with s, or nseg. */
static size_t seg_of(const ant_page_info *info, const char *s)
{
	for (size_t i = 0; i < info->nseg; i++)
		if (strncmp(info->text + info->seg[i].off, s, strlen(s)) == 0)
			return i;
	return info->nseg;
}

#define PAGE(recs, entries) \
	"<html><body><div id=\"main\"><h2>Diary</h2>" entries "</div><ul class=\"recs\">" \
	"<li>Try the " recs " tart.</li><li>Try the " recs " jam.</li></ul></body></html>"

static void runs(void)
{
	ant_page_info a, b, c;
	unsigned char pick[64] = { 0 }, mark[64];
	lb_buf news = LB_BUF_INIT;
	ant_taught_run r[4];
	size_t i, n, added;
	char *merged, *again;

	OK(analyze(PAGE("pear", "<p>First entry.</p>"), &a) == 0 && a.nseg < sizeof pick, "a page analysed");
	i = seg_of(&a, "Try the pear tart");
	OK(i + 1 < a.nseg, "the list's segments are there");
	pick[i] = pick[i + 1] = 1;
	IS_INT(ant_taught_news(&a, pick, &news), 0, "the picked segments as runs");
	n = ant_taught_parse(news.data, r, 4);
	IS_INT((int)n, 1, "two picked segments in a row are one run");
	IS_INT((int)r[0].nseg, 2, "... of two segments");
	OK(r[0].block == a.seg[i].block, "... known by its block");
	IS_INT((int)r[0].anchor, 0, "... first in its block: anchor 0");
	OK(strstr(r[0].path, "ul.recs>li") != NULL, "... its path kept (%s)", r[0].path);
	OK(strncmp(r[0].sample, "Try the pear tart", 17) == 0, "... its text kept (%s)", r[0].sample);

	/* the same place changed again, and a real edit elsewhere */
	OK(analyze(PAGE("plum", "<p>First entry.</p><p>Second entry.</p>"), &b) == 0, "the next answer");
	IS_INT((int)ant_taught_mark(&b, news.data, mark), 2, "the same place after the same text: marked");
	OK(mark[seg_of(&b, "Try the plum tart")] && mark[seg_of(&b, "Try the plum jam")], "... the list's two lines");
	OK(!mark[seg_of(&b, "Second entry")], "... a real edit elsewhere is not");
	n = b.nseg;
	IS_INT(ant_taught_strip(&b, news.data), 2, "strip leaves two segments out");
	IS_INT((int)b.nseg, (int)n - 2, "... of the page's");
	OK(seg_of(&b, "Second entry") < b.nseg, "... the real edit stays");

	/* merge: no run twice, the newest kept */
	merged = ant_taught_merge("", news.data, &added);
	IS_INT((int)added, 1, "merge into nothing adds the run");
	again = ant_taught_merge(merged, news.data, &added);
	IS_INT((int)added, 0, "the same run again is not added twice");
	IS_STR(again, merged, "... the text is the same");
	free(again);
	{
		lb_buf many = LB_BUF_INIT;
		ant_taught_run all[2 * ANT_TAUGHT_MAX];
		for (unsigned k = 0; k < ANT_TAUGHT_MAX; k++)
			lb_buf_addf(&many, "%08x 00000000 1\tp\tline %u\n", k + 1, k);
		again = ant_taught_merge(merged, many.data, &added);
		IS_INT((int)ant_taught_parse(again, all, 2 * ANT_TAUGHT_MAX), ANT_TAUGHT_MAX,
		       "merge keeps at most ANT_TAUGHT_MAX runs");
		OK(strstr(again, "line 31") != NULL && strstr(again, "Try the pear") == NULL, "... the newest");
		free(again);
		lb_buf_release(&many);
	}
	free(merged);
	IS_INT((int)ant_taught_parse("zz 0 1\tp\ts\n00000001 00000000 99\tp\ts\n00000001 00000002 3\tp\n", r, 4), 1,
	       "lines that are not runs are skipped");
	IS_INT((int)r[0].nseg, 3, "... a run without its sample is read");
	OK(analyze(PAGE("fig", "<h3>Other</h3>"), &c) == 0, "a page whose list moved into another place");
	IS_INT((int)ant_taught_mark(&c, "", mark), 0, "no taught noise: nothing marked");
	ant_page_info_release(&a);
	ant_page_info_release(&b);
	ant_page_info_release(&c);
	lb_buf_release(&news);
}

static void when(void)
{
	lb_error err = LB_ERROR_INIT;
	size_t hit = 99;
	char b[64], *big;
	struct timespec t0, t1;
	int rc;

	IS_INT(ant_when_match("在庫あり\nin stock", "Status: in stock now", 20, 0, &hit, NULL), 1, "a pattern matches");
	IS_INT((int)hit, 1, "... the second");
	ant_when_nth("在庫あり\nin stock", hit, b, sizeof b);
	IS_STR(b, "in stock", "... named");
	IS_INT(ant_when_match("在庫あり\nin stock", "残り 在庫あり in stock", strlen("残り 在庫あり in stock"), 0, &hit,
			      NULL), 1, "both match");
	IS_INT((int)hit, 0, "... the first given is named");
	IS_INT(ant_when_match("sold", "Status: in stock", 16, 0, &hit, NULL), 0, "no match");
	IS_INT(ant_when_match("#sale", "the #sale starts", 16, 0, &hit, NULL), 1, "'#sale' is text, not an id");
	IS_INT(ant_when_match("受付(開始|中)", "申込受付開始", strlen("申込受付開始"), 0, &hit, NULL), 1,
	       "an extended regular expression");
	IS_INT(ant_when_match("a*", "bbb", 3, 0, &hit, NULL), 0, "an empty match is no match");
	IS_INT(ant_when_check("(", &err), LB_EINVAL, "a bad pattern is refused");
	IS_INT(ant_when_check("((a{1,200}){1,200}){1,200}", &err), LB_EINVAL, "a pattern too big is refused");
	OK(strstr(lb_error_msg(&err), "repeats too much") != NULL, "... said (%s)", lb_error_msg(&err));
	IS_INT(ant_when_check("", &err), LB_EINVAL, "an empty pattern is refused");
	IS_INT(ant_when_check("a\nb", &err), LB_EINVAL, "a newline is refused");
	/* hostile: a slow expression over the most text looked at */
	big = malloc(ANT_WHEN_TEXT_MAX * 4 + 1);   /* a string, as callers pass (ASan's
						      regexec reads to its NUL) */
	memset(big, 'a', ANT_WHEN_TEXT_MAX * 4);
	big[ANT_WHEN_TEXT_MAX * 4] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = ant_when_match("(a|aa)*(a|aa)*(a|aa)*c", big, ANT_WHEN_TEXT_MAX * 4, 1, &hit, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	OK(rc == 0 || rc == LB_ETOOBIG, "a slow expression ends: no match or over its time (%d)", rc);
	OK((t1.tv_sec - t0.tv_sec) < 10, "... within its bound (%lld s)", (long long)(t1.tv_sec - t0.tv_sec));
	free(big);
}

int main(void)
{
	TAP_PLAN(41);
	runs();
	when();
	TAP_DONE();
}
