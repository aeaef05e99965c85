/*
 * t_noise: volatile tokens (ant_noise.h).  Table-driven: what
 * a text normalises to, pairs that must read the same and pairs that must
 * not; then a property test: random text with random numbers, dates and
 * times put in gives one hash, whatever the numbers, dates and times.
 */
#include "ant_noise.h"
#include "ant_page.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *norm(const char *s)
{
	lb_buf b = LB_BUF_INIT;
	size_t n = ant_noise_normalize(s, strlen(s), &b);

	if (n == (size_t)-1 || n != b.len) {
		printf("# normalize('%s') returned %zu for %zu bytes\n", s, n, b.len);
		exit(1);
	}
	return lb_buf_detach(&b, NULL);
}

static uint32_t h(const char *s)
{
	return ant_noise_hash(s, strlen(s));
}

/* What a text becomes. */
static const struct { const char *in, *out; } forms[] = {
	{ "体重 61.5kg、歩数 12034 歩。", "体重 #kg、歩数 # 歩。" },
	{ "あなたは 123567 人目の訪問者です。", "あなたは # 人目の訪問者です。" },
	{ "2026年11月25日(水) 12:34", "@" },
	{ "更新: 2026/11/25 12:34:56", "更新: @" },
	{ "Posted 3 comments, 5 hours ago", "Posted # comments, @" },
	{ "Mon, 25 Nov 2026 12:34:56 GMT", "@ GMT" },
	{ "第3回", "第#回" },
	{ "1, 2, 3", "#, #, #" },
	{ "May I help you", "May I help you" },
	{ "Sun is hot", "Sun is hot" },
	{ "I am here", "I am here" },
	{ "in 3 days", "in @" },
	{ "一昨日の日記", "@の日記" },
	{ "PV: 1,234", "PV: #" },
	{ "１２，３４５ 円", "# 円" },
	{ "iPhone 15", "iPhone #" },
	{ "1st place", "# place" },
	{ "三人", "#人" },
	{ "一緒に", "一緒に" },
	{ "月が綺麗", "月が綺麗" },
	{ "", "" },
	{ "no numbers here.", "no numbers here." },
	{ "updated 2 min ago", "updated @" },
	{ "(月・祝)", "@" },
	{ "about 3 people", "about # people" },
	{ "over 100 users", "over # users" },
	{ "約100人", "約#人" },
	{ "10年以上前から", "@から" },
	{ "current", "@" },
	{ "(current)", "@" },
	{ "the current version", "the current version" },
	{ "Buy now", "Buy now" },
};

/* Pairs that must normalise alike: a change only in volatile tokens. */
static const struct { const char *a, *b; } same[] = {
	/* numbers, ASCII and full-width, with separators */
	{ "あなたは 123567 人目の訪問者です。", "あなたは 123568 人目の訪問者です。" },
	{ "PV: 1,234", "PV: 98,765,432" },
	{ "気温 21.5 度", "気温 3 度" },
	{ "１２３ 件", "４５６７ 件" },
	{ "１２，３４５ 円", "999 円" },
	{ "views 12", "views 12,000" },
	{ "Likes: 0", "Likes: 1024" },
	{ "★5", "★4" },
	{ "第3回", "第125回" },
	{ "三人", "十二人" },
	/* clock times */
	{ "generated at 12:34", "generated at 23:59:59" },
	{ "現在 10:05", "現在 ２３：５９" },
	{ "午後 3時5分", "午前 11時59分" },
	{ "午後3時", "15:00" },
	{ "3:05 pm", "11:59 a.m." },
	{ "十二時", "三時" },
	/* dates, Japanese and English */
	{ "2026年11月25日", "2027年1月3日" },
	{ "11月25日", "12月1日" },
	{ "２０２６年１１月２５日", "2026年11月26日" },
	{ "2026/11/25", "2026/12/01" },
	{ "2026-11-25", "2027-01-31" },
	{ "2026.11.25", "2026.11.26" },
	{ "Nov 25, 2026", "Dec 1, 2026" },
	{ "25 November", "3 December" },
	{ "November 25", "Jan. 2" },
	{ "25th November 2026", "1st December 2026" },
	{ "Mon, 25 Nov 2026 12:34:56 GMT", "Tue, 26 Nov 2026 08:00:00 GMT" },
	{ "2026年11月25日(水) 12:34", "2026年11月26日（木） 09:00" },
	{ "11月23日(月・祝)", "11月24日(火)" },
	/* weekday names */
	{ "今日は月曜日です", "今日は金曜日です" },
	{ "月曜 休み", "日曜 休み" },
	{ "(月)", "（水）" },
	{ "Monday", "Sunday" },
	{ "Wed, Nov 25", "Thu, Nov 26" },
	/* relative times */
	{ "3 分前", "5 時間前" },
	{ "3分前", "2日前" },
	{ "たった今", "3 分前" },
	{ "さっき", "1 時間前" },
	{ "昨日", "2 日前" },
	{ "三日前", "数分前" },
	{ "1ヶ月前", "2か月前" },
	{ "5 hours ago", "just now" },
	{ "yesterday", "5 hours ago" },
	{ "a minute ago", "2 minutes ago" },
	/* ages as Rails and Redmine write them, and words where an age stands */
	{ "Updated less than a minute ago", "Updated 1 minute ago" },
	{ "Added by admin about 2 hours ago", "Added by admin 3 hours ago" },
	{ "約2時間前に更新", "3分前に更新" },
	{ "1分以内前に更新", "約2時間前に更新" },
	{ "now", "3 seconds ago" },
	{ "current", "2 hours ago" },
	{ "an hour ago", "a few seconds ago" },
	{ "in 3 days", "in 5 hours" },
	{ "updated 2 min ago", "updated 5h" },
	{ "posted today", "posted 3 days ago" },
	{ "先週の更新", "昨日の更新" },
	{ "今月のおすすめ", "来月のおすすめ" },
	{ "updated last week", "updated 2 hours ago" },
	{ "コメント (3) 5 分前", "コメント (12) たった今" },
	/* a whole widget */
	{ "このページは 2026年11月25日 12:34:56 に生成されました。",
	  "このページは 2026年11月25日 12:35:02 に生成されました。" },
	{ "Page generated in 0.123 seconds on Nov 25, 2026 at 12:34",
	  "Page generated in 0.456 seconds on Nov 25, 2026 at 12:35" },
};

/* Pairs that must stay apart: the text changed, not only its tokens. */
static const struct { const char *a, *b; } differ[] = {
	{ "体重 61.5kg、歩数 12034 歩。", "体重 #kg" },
	{ "体重 61.5kg、歩数 12034 歩。", "体重 61.5kg、歩数 12034 歩" },
	{ "あなたは 123567 人目の訪問者です。", "あなたは 123567 人目のお客様です。" },
	{ "3 分前", "3 分前に買った" },
	{ "今日は晴れ", "今日は雨" },
	{ "May I help you", "June I help you" },
	{ "Sun is hot", "Moon is hot" },
	{ "PR: 転職なら今すぐ登録", "PR: 引越しなら今すぐ見積もり" },
	{ "1, 2, 3", "1, 2" },
	{ "第3回", "第3話" },
	{ "price 100 yen", "price 100 dollars" },
	{ "Monday meeting", "Monday party" },
	{ "new entry", "new entries" },
	{ "一緒に", "二緒に" },
	{ "abc", "abd" },
	{ "2026年11月25日 日記を書いた", "2026年11月25日 本を読んだ" },
	{ "3 apples", "3 pears" },
	{ "version 2", "release 2" },
	{ "last updated", "first updated" },
	{ "来客", "去客" },
};

static void test_tables(void)
{
	size_t nf = sizeof forms / sizeof *forms, ns = sizeof same / sizeof *same,
	       nd = sizeof differ / sizeof *differ;

	for (size_t i = 0; i < nf; i++) {
		char *got = norm(forms[i].in);

		IS_STR(got, forms[i].out, "'%s' normalises to '%s'", forms[i].in, forms[i].out);
		free(got);
	}
	for (size_t i = 0; i < ns; i++) {
		char *a = norm(same[i].a), *b = norm(same[i].b);

		OK(strcmp(a, b) == 0 && h(same[i].a) == h(same[i].b),
		   "same: '%s' ~ '%s' ('%s', '%s')", same[i].a, same[i].b, a, b);
		free(a);
		free(b);
	}
	for (size_t i = 0; i < nd; i++) {
		char *a = norm(differ[i].a), *b = norm(differ[i].b);

		OK(strcmp(a, b) != 0 && h(differ[i].a) != h(differ[i].b),
		   "differ: '%s' !~ '%s' ('%s', '%s')", differ[i].a, differ[i].b, a, b);
		free(a);
		free(b);
	}
	OK(nf + ns + nd >= 60, "at least 60 cases (%zu)", nf + ns + nd);
}

/* The hash is the normalised text's, folded like the raw segment hash. */
static void test_hash(void)
{
	const char *s = "更新 3 分前: 体重 61.5kg";
	char *n = norm(s);
	uint64_t x = ant_page_hash64(n, strlen(n));

	IS_INT(h(s), (uint32_t)(x ^ (x >> 32)), "ant_noise_hash is FNV-1a of the normal form, folded");
	IS_INT(h(""), (uint32_t)(14695981039346656037ull ^ (14695981039346656037ull >> 32)),
	       "the empty text hashes to the folded offset basis");
	free(n);
}

/* ---- property: random text, random volatile tokens ----------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const char *const words[] = {
	"今日は", "日記", "を書きました", "猫が", "寝ている", "プログラム", "の", "更新", "です",
	"アンテナ", "ページ", "訪問者", "人目", "コメント", "note", "entry", "the", "cat", "is",
	"sleeping", "release", "page", "counter", "weather", "晴れ", "雨", "PR:", "★", "→",
	"「引用」", "ですね。", "!", "?", "-", "/", ":", "(", ")", "（", "）",
};

/* A volatile token of class c with fresh random values. */
static void token(lb_buf *b, int c)
{
	static const char *const wd_ja[] = { "月", "火", "水", "木", "金", "土", "日" };
	static const char *const wd_en[] = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
					     "Saturday", "Sunday" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
					   "Sep", "Oct", "Nov", "Dec", "November", "March" };
	static const char *const rel_ja[] = { "たった今", "さっき", "昨日", "一昨日", "今日" };
	static const char *const unit_ja[] = { "秒", "分", "時間", "日", "週間", "ヶ月", "年" };
	static const char *const unit_en[] = { "seconds", "minutes", "hours", "days", "weeks", "months",
					       "years", "min", "hrs" };
	static const char *const rel_en[] = { "just now", "yesterday", "today", "a minute ago",
					      "an hour ago", "a few seconds ago" };
	unsigned y = 1990 + rnd() % 50, m = 1 + rnd() % 12, d = 1 + rnd() % 31;

	switch (c) {
	case 0: lb_buf_addf(b, "%u", rnd() % 1000000); break;
	case 1: lb_buf_addf(b, "%u,%03u", 1 + rnd() % 999, rnd() % 1000); break;
	case 2: lb_buf_addf(b, "%u.%u", rnd() % 100, rnd() % 10); break;
	case 3: lb_buf_addf(b, "%u:%02u", rnd() % 24, rnd() % 60); break;
	case 4: lb_buf_addf(b, "%u:%02u:%02u", rnd() % 24, rnd() % 60, rnd() % 60); break;
	case 5: lb_buf_addf(b, "%u年%u月%u日", y, m, d); break;
	case 6: lb_buf_addf(b, "%u月%u日(%s)", m, d, wd_ja[rnd() % 7]); break;
	case 7: lb_buf_addf(b, "%u/%02u/%02u", y, m, d); break;
	case 8: lb_buf_addf(b, "%u-%02u-%02u", y, m, d); break;
	case 9: lb_buf_addf(b, "%s %u, %u", mon[rnd() % 14], d, y); break;
	case 10: lb_buf_addf(b, "%s", wd_en[rnd() % 7]); break;
	case 11:
		if (rnd() % 2)
			lb_buf_addf(b, "%s", rel_ja[rnd() % 5]);
		else
			lb_buf_addf(b, "%u%s%s前", 1 + rnd() % 59, rnd() % 2 ? " " : "", unit_ja[rnd() % 7]);
		break;
	case 12:
		if (rnd() % 2)
			lb_buf_addf(b, "%s", rel_en[rnd() % 6]);
		else
			lb_buf_addf(b, "%u %s ago", 2 + rnd() % 58, unit_en[rnd() % 9]);
		break;
	case 13: lb_buf_addf(b, "%s %u時%u分", rnd() % 2 ? "午前" : "午後", 1 + rnd() % 12, rnd() % 60); break;
	case 14: {   /* full-width digits */
		unsigned v = rnd() % 100000;
		char tmp[16];

		snprintf(tmp, sizeof tmp, "%u", v);
		for (char *p = tmp; *p; p++)
			lb_buf_addf(b, "\xef\xbc%c", (char)(0x90 + (*p - '0')));
		break;
	}
	default: lb_buf_addf(b, "%u %s", d, mon[rnd() % 14]); break;
	}
}

/* One text: the same words and the same token classes on every call with
 * the same seed; only the token values differ. */
static void text(lb_buf *b, uint64_t shape, int variant)
{
	uint64_t save;
	int n, classes[16];

	lb_buf_reset(b);
	save = rng;
	rng = shape;
	n = 1 + (int)(rnd() % 6);
	for (int i = 0; i < n; i++)
		classes[i] = (int)(rnd() % 16);
	for (int i = 0; i < n; i++) {
		int nw = 1 + (int)(rnd() % 4);

		for (int k = 0; k < nw; k++) {
			lb_buf_adds(b, words[rnd() % (sizeof words / sizeof *words)]);
			lb_buf_adds(b, " ");
		}
		/* the token's values come from another stream */
		{
			uint64_t keep = rng;

			rng = save ^ ((uint64_t)variant * 0x2545F4914F6CDD1Dull) ^ (uint64_t)i * 7919;
			if (!rng)
				rng = 1;
			token(b, classes[i]);
			rng = keep;
		}
		lb_buf_adds(b, " ");
	}
	lb_buf_adds(b, words[rnd() % (sizeof words / sizeof *words)]);
	rng = save;
}

static void test_property(void)
{
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	int bad = 0, runs = 3000;

	for (int r = 0; r < runs; r++) {
		uint64_t shape = ((uint64_t)rnd() << 32 | rnd()) | 1;

		text(&a, shape, 1);
		text(&b, shape, 2 + r);
		if (ant_noise_hash(a.data, a.len) != ant_noise_hash(b.data, b.len)) {
			if (bad++ < 5) {
				char *x = norm(a.data), *y = norm(b.data);

				printf("# '%s' -> '%s'\n#  vs '%s' -> '%s'\n", a.data, x, b.data, y);
				free(x);
				free(y);
			}
		}
		rnd();
	}
	IS_INT(bad, 0, "%d random texts with random numbers, dates and times put in: one hash each", runs);
	lb_buf_release(&a);
	lb_buf_release(&b);
}

/* Widgets as real pages write them, tokens glued to the words around
 * them: each template with random values gives one hash. */
static void test_widgets(void)
{
	static const char *const tpl[] = {
		"あなたは%N人目の訪問者です。", "%D更新", "最終更新：%D %T", "%Rに更新されました",
		"このページは%D%Tに生成されました", "本日%N件、昨日%N件", "閲覧数%N回",
		"いいね！%N", "コメント(%N)", "%D(%W)の日記", "気温%N度、湿度%N%", "%T現在",
		"Visitors: %N", "Page generated %R", "Last updated %E", "%N views, %N likes",
		"Posted by admin %R", "Today is %V.", "Build #%N at %T", "(%N)",
	};
	static const char *const wd[] = { "月", "火", "水", "木", "金", "土", "日" };
	static const char *const wdv[] = { "Monday", "Tuesday", "Wednesday", "Sunday" };
	static const char *const rel[] = { "たった今", "3分前", "5 時間前", "昨日", "2日前", "just now",
					   "5 hours ago", "yesterday", "a minute ago", "3 days ago" };
	static const char *const mon[] = { "Nov", "December", "Jan.", "Sept." };
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	int bad = 0, runs = 2000;

	for (int r = 0; r < runs; r++) {
		const char *t = tpl[r % (sizeof tpl / sizeof *tpl)];
		lb_buf *o[2] = { &a, &b };

		for (int v = 0; v < 2; v++) {
			lb_buf_reset(o[v]);
			for (const char *p = t; *p; p++) {
				if (*p != '%' || !p[1]) {
					lb_buf_addc(o[v], *p);
					continue;
				}
				switch (*++p) {
				case 'N': lb_buf_addf(o[v], rnd() % 2 ? "%u" : "%u,%03u", rnd() % 1000 + 1,
						      rnd() % 1000); break;
				case 'D': lb_buf_addf(o[v], rnd() % 2 ? "%u年%u月%u日" : "%u/%u/%u",
						      2000 + rnd() % 30, 1 + rnd() % 12, 1 + rnd() % 28); break;
				case 'T': lb_buf_addf(o[v], "%u:%02u", rnd() % 24, rnd() % 60); break;
				case 'R': lb_buf_adds(o[v], rel[rnd() % 10]); break;
				case 'W': lb_buf_adds(o[v], wd[rnd() % 7]); break;
				case 'V': lb_buf_adds(o[v], wdv[rnd() % 4]); break;
				case 'E': lb_buf_addf(o[v], "%s %u, %u", mon[rnd() % 4], 1 + rnd() % 28,
						      2000 + rnd() % 30); break;
				default: lb_buf_addc(o[v], *p);
				}
			}
		}
		if (ant_noise_hash(a.data, a.len) != ant_noise_hash(b.data, b.len) && bad++ < 5) {
			char *x = norm(a.data), *y = norm(b.data);

			printf("# '%s' -> '%s'\n#  vs '%s' -> '%s'\n", a.data, x, b.data, y);
			free(x);
			free(y);
		}
	}
	IS_INT(bad, 0, "%d widgets with random values: one hash per widget", runs);
	lb_buf_release(&a);
	lb_buf_release(&b);
}

/* Texts made only of ages (a code browser's Age cell) and texts that
 * are not: ant_noise_age_only(). */
static const struct { const char *s; int age; } ages[] = {
	{ "58 min.", 1 }, { "22 hours", 1 }, { "+4 days", 1 }, { "2 hours ago", 1 }, { "3分前", 1 },
	{ "約2時間前", 1 }, { "2ヶ月", 1 }, { "yesterday", 1 }, { "just now", 1 }, { "a minute ago", 1 },
	{ "about 2 hours ago", 1 }, { "5h", 1 }, { "(3 weeks ago)", 1 }, { "1.5 hours", 1 },
	{ "2026-11-29", 0 }, { "10:20", 0 }, { "11月29日", 0 }, { "3日", 0 }, { "Release 1.4.3", 0 },
	{ "Price 3 days", 0 }, { "120円", 0 }, { "", 0 }, { "3", 0 },
};

static void test_ages(void)
{
	for (size_t i = 0; i < sizeof ages / sizeof *ages; i++)
		IS_INT(ant_noise_age_only(ages[i].s, strlen(ages[i].s)), ages[i].age,
		       "'%s' is %san age only", ages[i].s, ages[i].age ? "" : "not ");
}

/* Is one of a[0..an), b[0..bn) the start of the other? */
static int prefix_either(const char *a, size_t an, const char *b, size_t bn)
{
	return memcmp(a, b, an < bn ? an : bn) == 0;
}

/* The one-pass and the early-stopping readings (ant_noise_normalize_groups,
 * ant_noise_normalize_prefix) against ant_noise_normalize and
 * ant_noise_groups, over every text of the tables: the same bytes and
 * placeholders; against another text's form, "differs" exactly when
 * neither form starts the other, else the whole form. */
static void test_readings(void)
{
	size_t nf = sizeof forms / sizeof *forms, bad_groups = 0, bad_prefix = 0, pairs = 0;

	for (size_t i = 0; i < nf; i++) {
		const char *s = forms[i].in;
		char *want = norm(s);
		lb_buf b = LB_BUF_INIT;
		ant_noise_group g[8], h8[8];
		size_t k = ant_noise_normalize_groups(s, strlen(s), &b, g, 8), kh = ant_noise_groups(s, strlen(s), h8, 8);

		bad_groups += k != kh || b.len != strlen(want) || memcmp(b.data, want, b.len) != 0;
		for (size_t m = 0; m < k && m < 8; m++)
			bad_groups += g[m].kind != h8[m].kind || g[m].off != h8[m].off || g[m].len != h8[m].len;
		lb_buf_release(&b);
		for (size_t j = 0; j < nf; j++, pairs++) {
			char *other = norm(forms[j].in);
			size_t r;

			lb_buf_init(&b);
			r = ant_noise_normalize_prefix(s, strlen(s), other, strlen(other), &b);
			if (!prefix_either(want, strlen(want), other, strlen(other)))
				bad_prefix += r != ANT_NOISE_DIFFERS;
			else
				bad_prefix += r != strlen(want) || b.len != r || memcmp(b.data, want, r) != 0;
			lb_buf_release(&b);
			free(other);
		}
		free(want);
	}
	OK(bad_groups == 0, "normalised with its placeholders in one reading: as apart, %zu texts (%zu differ)", nf,
	   bad_groups);
	OK(bad_prefix == 0, "read against another form: stops exactly when neither starts the other, %zu pairs (%zu wrong)",
	   pairs, bad_prefix);
}

int main(void)
{
	/* one check per table row, the count, two of the hash, two properties */
	TAP_PLAN((int)(sizeof forms / sizeof *forms + sizeof same / sizeof *same +
		       sizeof differ / sizeof *differ + sizeof ages / sizeof *ages) + 7);
	test_tables();
	test_hash();
	test_property();
	test_widgets();
	test_ages();
	test_readings();
	TAP_DONE();
}
