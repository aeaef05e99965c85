/*
 * t_segs: the segments of a page: ant_page_analyze() with its
 * block keys, noise hashes, text and paths; ant_page_excerpt(); --only
 * selectors and expressions; the old entry points reading pages as before.
 */
#include "ant_page.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ant_page_info an2(const char *html, const char *const *ign, size_t nign, const char *const *only,
			 size_t nonly)
{
	ant_page_opts o = { .ignore = ign, .nignore = nign, .only = only, .nonly = nonly };
	lb_error err = LB_ERROR_INIT;
	ant_page_info pi;

	if (ant_page_analyze(html, strlen(html), "text/html; charset=utf-8", &o, &pi, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(1);
	}
	return pi;
}

/* The index of the segment whose text is s, or -1. */
static int find(const ant_page_info *p, const char *s)
{
	for (size_t i = 0; i < p->nseg; i++)
		if (p->seg[i].len == strlen(s) && memcmp(p->text + p->seg[i].off, s, p->seg[i].len) == 0)
			return (int)i;
	return -1;
}

/* The segment hashes' definition (ant_noise.h): the 64-bit FNV-1a of the
 * bytes, folded to 32 bits (high ^ low); written out here so that the
 * expected values do not come from the code under test. */
static uint32_t fnv_fold(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

#define PAGE(counter, quote, entry) \
	"<html><head><title>Diary</title></head><body>" \
	"<div id=\"side\"><p class=\"counter\">あなたは " counter " 人目の訪問者です。</p>" \
	"<ul class=\"quotes  box\"><li>" quote "</li></ul></div>" \
	"<div id=\"main\"><h2>2026年11月25日</h2><p>" entry "</p></div>" \
	"<p>generated at 12:34:56</p></body></html>"

static void test_segments(void)
{
	ant_page_info a = an2(PAGE("123567", "今日の一言: 急がば回れ", "朝から雨。"), NULL, 0, NULL, 0);
	ant_page_info b = an2(PAGE("123568", "今日の一言: 石の上にも三年", "朝から雨。"), NULL, 0, NULL, 0);
	int ca = find(&a, "あなたは 123567 人目の訪問者です。"), cb = find(&b, "あなたは 123568 人目の訪問者です。");
	int qa = find(&a, "今日の一言: 急がば回れ"), qb = find(&b, "今日の一言: 石の上にも三年");
	int ea = find(&a, "朝から雨。"), eb = find(&b, "朝から雨。");

	OK(ca >= 0 && cb >= 0 && qa >= 0 && qb >= 0 && ea >= 0 && eb >= 0, "the segments are the text's (%d %d %d %d %d %d)",
	   ca, cb, qa, qb, ea, eb);
	if (ca < 0 || cb < 0 || qa < 0 || qb < 0 || ea < 0 || eb < 0)
		return;
	OK(a.seg[ca].raw != b.seg[cb].raw, "a counter that moved: another raw hash");
	OK(a.seg[ca].norm == b.seg[cb].norm, "... the same noise hash");
	OK(a.seg[ca].block == b.seg[cb].block, "... the same block");
	IS_STR(ant_page_seg_path(&a, (size_t)ca), "body>div#side>p.counter", "the counter's path");
	IS_STR(ant_page_seg_path(&a, (size_t)qa), "body>div#side>ul.box.quotes>li",
	       "classes sorted, no positions");
	OK(a.seg[qa].block == b.seg[qb].block && a.seg[qa].norm != b.seg[qb].norm,
	   "a rotating quote: same block, a new noise hash");
	OK(a.seg[qa].block != a.seg[ca].block, "two widgets, two blocks");
	OK(a.seg[ea].raw == b.seg[eb].raw && a.seg[ea].block == b.seg[eb].block, "the entry did not change");
	IS_STR(ant_page_seg_path(&a, (size_t)ea), "body>div#main>p", "the entry's path");
	{
		int t = find(&a, "Diary"), g = find(&a, "generated at 12:34:56");

		OK(t >= 0 && strcmp(ant_page_seg_path(&a, (size_t)t), "head>title") == 0, "the title is a segment of head>title");
		OK(g >= 0 && strcmp(ant_page_seg_path(&a, (size_t)g), "body>p") == 0, "a paragraph of the body");
		OK(a.seg[ca].raw == a.segs[ca] && a.nsegs == a.nseg, "segs[] holds the raw hashes, as before");
		/* the counter normalised is "あなたは # 人目の訪問者です。"; its hash by
		 * the definition (ant_noise.h), and as a number worked out apart */
		IS_INT(fnv_fold("あなたは # 人目の訪問者です。"), 0x9e858c6eu, "the definition of the noise hash");
		IS_INT(a.seg[ca].norm, 0x9e858c6eu, "norm is the noise hash of the counter's normalised text");
		IS_INT(b.seg[cb].norm, 0x9e858c6eu, "... and of the moved counter's");
		IS_INT(a.seg[ca].raw, fnv_fold("あなたは 123567 人目の訪問者です。"), "raw is the hash of the text as it is");
	}
	{
		unsigned char *pick = calloc(b.nseg, 1);
		char *x;

		OK(ant_page_excerpt(&b, pick, 0) == NULL, "nothing picked: no excerpt");
		pick[qb] = pick[eb] = 1;
		x = ant_page_excerpt(&b, pick, 0);
		IS_STR(x, "今日の一言: 石の上にも三年 朝から雨。", "the picked segments, in order, joined by a space");
		free(x);
		x = ant_page_excerpt(&b, pick, 5);
		IS_STR(x, "今日の一言\xe2\x80\xa6", "clipped to 5 characters");
		free(x);
		free(pick);
	}
	ant_page_info_release(&a);
	ant_page_info_release(&b);
}

/* The block of text outside any block element is its enclosing block's. */
static void test_blocks(void)
{
	ant_page_info p = an2("<body><div id=a>x<p></p>y<span class=s>z. w</span></div>tail</body>", NULL, 0, NULL, 0);
	int x = find(&p, "x"), y = find(&p, "yz."), w = find(&p, "w"), t = find(&p, "tail");

	OK(x >= 0 && y >= 0 && w >= 0 && t >= 0, "segments x, yz., w, tail (%d %d %d %d)", x, y, w, t);
	if (x >= 0 && y >= 0 && w >= 0 && t >= 0) {
		OK(p.seg[x].block == p.seg[y].block && p.seg[y].block == p.seg[w].block,
		   "an empty <p> between does not move the block; a span is no block");
		IS_STR(ant_page_seg_path(&p, (size_t)y), "body>div#a", "path of the div");
		IS_STR(ant_page_seg_path(&p, (size_t)t), "body", "text after the div is the body's");
	}
	ant_page_info_release(&p);
	{
		ant_page_info a = an2("<body><div id=post-123 class='entry c2 entry'><p>x</p></div></body>", NULL, 0, NULL, 0);
		ant_page_info b = an2("<body><div id=post-124 class='c7 entry'><p>y</p></div></body>", NULL, 0, NULL, 0);

		OK(a.nseg == 1 && b.nseg == 1 && a.seg[0].block == b.seg[0].block,
		   "ids and classes numbered by the server: one block (post-123, post-124)");
		IS_STR(ant_page_seg_path(&a, 0), "body>div#post-#.c#.entry>p", "digits as '#', classes sorted once");
		ant_page_info_release(&a);
		ant_page_info_release(&b);
	}
}

static void test_only(void)
{
	const char *page = "<html><head><title>T</title></head><body><div id=side>counter 1</div>"
			   "<div id=main><p>Entry one.</p><p class=x>Entry two.</p></div>"
			   "<p class=x>Other.</p><p>Price: 100 yen, tax 10 yen</p></body></html>";
	const char *id[] = { "#main" }, *cls[] = { ".x" }, *re[] = { "[0-9]+ yen" }, *none[] = { "#nothere" };
	const char *both[] = { "#main", "Entry [a-z]+" };
	ant_page_info a = an2(page, NULL, 0, id, 1), b = an2(page, NULL, 0, cls, 1), c = an2(page, NULL, 0, re, 1);
	ant_page_info d = an2(page, NULL, 0, none, 1), e = an2(page, NULL, 0, NULL, 0), f = an2(page, NULL, 0, both, 2);
	ant_page_info g;
	char *x;

	IS_INT(a.nseg, 2, "--only #main: its two sentences");
	IS_STR(a.title, "T", "... the title still comes from <title>");
	OK(a.only_matched == 1 && find(&a, "Entry one.") >= 0 && find(&a, "counter 1") < 0, "... nothing else");
	IS_INT(b.nseg, 2, "--only .x: two elements");
	OK(find(&b, "Entry two.") >= 0 && find(&b, "Other.") >= 0 && b.only_matched == 2, "... both read");
	IS_INT(c.nseg, 2, "--only REGEX: each match a segment");
	OK(find(&c, "100 yen") >= 0 && find(&c, "10 yen") >= 0 && c.only_matched == 2, "... the matches");
	IS_INT(d.only_matched, 0, "--only #nothere: the analysis says nothing matched");
	OK(d.nseg == 0 && d.text_len == 0, "... and there is no text");
	IS_INT(e.only_matched, 1, "without --only, only_matched is 1");
	IS_INT(f.nseg, 2, "a selector and an expression: the matches inside the element");
	OK(find(&f, "Entry one") >= 0 && find(&f, "Entry two") >= 0, "... 'Entry one', 'Entry two'");
	OK(a.text_hash != e.text_hash && c.text_hash != e.text_hash, "the watched part has its own text hash");
	g = an2("<html><body><div id=side>counter 2</div><div id=main><p>Entry one.</p><p class=x>Entry two.</p>"
		"</div><p class=x>Changed.</p></body></html>", NULL, 0, id, 1);
	IS_INT(g.text_hash, a.text_hash, "a change outside the watched part leaves its text hash");
	x = ant_page_excerpt(&c, (const unsigned char[]){ 1, 1 }, 0);
	IS_STR(x, "100 yen 10 yen", "the excerpt of an expression's matches");
	free(x);
	{
		const char *badre[] = { "(" };
		ant_page_opts o = { .only = badre, .nonly = 1 };
		lb_error err = LB_ERROR_INIT;
		ant_page_info z;

		IS_INT(ant_page_analyze(page, strlen(page), NULL, &o, &z, &err), LB_EINVAL, "a bad --only expression is refused");
		OK(strstr(err.msg, "only pattern") != NULL, "... and said so: %s", err.msg);
		lb_error_clear(&err);
		IS_INT(ant_page_only_check("(", &err), LB_EINVAL, "ant_page_only_check refuses it too");
		OK(strstr(err.msg, "bad only pattern '('") != NULL, "... as an only pattern: %s", err.msg);
		IS_INT(ant_page_only_check("#main", NULL), 0, "a selector passes");
		IS_INT(ant_page_only_check("", NULL), LB_EINVAL, "an empty one does not");
	}
	ant_page_info_release(&a); ant_page_info_release(&b); ant_page_info_release(&c);
	ant_page_info_release(&d); ant_page_info_release(&e); ant_page_info_release(&f);
	ant_page_info_release(&g);
}

/* The new entry point reads a page as the old ones did. */
static void test_same_as_before(void)
{
	const char *pages[] = {
		PAGE("1", "q", "e"),
		"<p>a</p></html>x<p>b",
		"<!DOCTYPE html><p>a</p></html>x<p>b",
		"<p>One. Two! Three? 四。五．</p><ul><li>x<li>y</ul><script>no</script><div class=ad>ad</div>",
		"",
		"plain text, no markup",
	};
	const char *ign[] = { ".ad", "T[a-z]+" };

	for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
		ant_page_info n = an2(pages[i], ign, 2, NULL, 0), o;
		lb_error err = LB_ERROR_INIT;
		int same;

		ant_page_analyze(pages[i], strlen(pages[i]), "text/html; charset=utf-8",
				 &(ant_page_opts){ .ignore = ign, .nignore = 2 }, &o, &err);
		same = n.text_hash == o.text_hash && n.nsegs == o.nsegs &&
		       (!n.nsegs || memcmp(n.segs, o.segs, n.nsegs * sizeof *n.segs) == 0);
		for (size_t k = 0; k < n.nseg; k++)
			same &= n.seg[k].off + n.seg[k].len <= strlen(n.text);
		OK(same, "page %zu: analyze2 and analyze_excerpt agree, segments inside the text", i);
		ant_page_info_release(&n);
		ant_page_info_release(&o);
	}
}

/* A page of 100000 nested elements neither overflows the stack nor keeps
 * a path per element. */
static void test_deep(void)
{
	size_t depth = 100000, len = 0;
	char *html = malloc(depth * 14 + 64);
	ant_page_info p;

	for (size_t i = 0; i < depth; i++)
		len += (size_t)sprintf(html + len, "<div class=a>");
	len += (size_t)sprintf(html + len, "deep text");
	html[len] = '\0';
	p = an2(html, NULL, 0, NULL, 0);
	OK(p.nseg == 1 && find(&p, "deep text") == 0, "deep nesting: one segment");
	OK(strlen(ant_page_seg_path(&p, 0)) < 300, "... its path is clipped for show (%zu bytes)", strlen(ant_page_seg_path(&p, 0)));
	ant_page_info_release(&p);
	free(html);
}

int main(void)
{
	TAP_PLAN(55);
	test_segments();
	test_blocks();
	test_only();
	test_same_as_before();
	test_deep();
	TAP_DONE();
}
