/*
 * noise_corpus.h: the noise corpus: NOISE_PAGES dynamic pages of
 * the kinds every diary and blog has, each with widgets that change on
 * every request or on every check, and real updates of several shapes on
 * some of them.  Header-only, deterministic: page k at check c answering
 * its r-th request (r counts every request of that page, re-fetches too).
 * Used by tests/unit/antenna/t_noise_corpus.c (the page analysis and the rule),
 * tests/unit/antenna/t_noise_update.c (ant_update() through its fetcher seam) and
 * the test server's /noise/ route (tests/noise/run.sh, make bench).
 *
 * Widgets (NOISE_KINDS; R = per request, C = per check):
 *   0 counter          R  "あなたは 123567 人目の訪問者です。"
 *   1 clock            R  "このページは 10:23:45 に生成されました。" / "Page generated at ..."
 *   2 quote            C  a quote of the day from a pool, one <p> in div#quote
 *   3 ad               R  a rotating "PR: ..." banner
 *   4 weather          C  "今日の天気: 晴れ 18℃"
 *   5 relative times   R  "(3 分前)", "(5 hours ago)"
 *   6 counts           R  views and likes, "1,234 views"
 *   7 shuffled links   R  a link list in another order on each request
 *   8 today            C  "今日は 2026年11月25日(水) です。"
 *   9 calendar         C  a month table, today's cell marked
 *  10 recent comments  R  names, texts and relative times
 *  11 session token    R  a random sid in a link's text
 *  12 recommended      R  3 of 10 titles picked per request
 *  13 English stamp    C  "Last updated: Wednesday, November 25, 2026 at 10:23 AM"
 *  14 full-width       R  "本日のアクセス：１２３４５"
 *  15 rate ticker      R  "1ドル = 151.23 円"
 *  16 ranking          C  the same titles in another order on each check
 *  17 stars            R  "★×12" under each entry
 * Layouts: tDiary-like, Hatena-Diary-like, a plain blog.  The widgets
 * stand in elements with neutral names (div.column, div.pr, not
 * div.sidebar, div.ad): the corpus tests the noise rule, which a name
 * the furniture rule knows would take out of its way (ant_furniture.h;
 * t_furniture and tests/template test that rule).
 *
 * Real updates (noise_real()): a new diary entry at the top (the oldest
 * day scrolls off), a new comment, an edited paragraph, an entry made of
 * numbers ("体重 61.5kg、歩数 12034 歩。").
 */
#ifndef NOISE_CORPUS_H
#define NOISE_CORPUS_H

#include <stdio.h>
#include <string.h>

#include "corpus_rand.h"
#include "lb_buf.h"

#define NOISE_PAGES 24
#define NOISE_KINDS 18
#define NOISE_CHECKS 6          /* checks after the first (a baseline) */

enum { NOISE_NONE, NOISE_ENTRY, NOISE_COMMENT, NOISE_EDIT, NOISE_NUMBERS };

/* Substrings of the widgets' text: never in an excerpt. */
static const char *const noise_markers[] = {
	"人目", "生成", "generated", "名言", "PR:", "天気", "分前", "時間前", "ago",
	"閲覧", "views", "likes", "リンク集", "今日は", "sid=", "おすすめ", "Last updated",
	"アクセス", "ドル", "ランキング", "★", "最近のコメント", NULL,
};

static const char *const noise_quotes[] = {
	"継続は力なり", "急がば回れ", "塵も積もれば山となる", "石の上にも三年", "七転び八起き",
	"笑う門には福来る", "案ずるより産むが易し",
};
static const char *const noise_ads[] = {
	"転職なら今すぐ登録", "格安SIMで月々節約", "今だけ送料無料キャンペーン",
	"英会話レッスン初回無料", "話題の健康食品をお試し",
};
static const char *const noise_weather[] = { "晴れ", "曇り", "雨", "雪", "晴れ時々曇り", "雷雨" };
static const char *const noise_wd[] = { "日", "月", "火", "水", "木", "金", "土" };
static const char *const noise_wd_en[] = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday",
					   "Friday", "Saturday" };
static const char *const noise_names[] = { "山田", "佐藤", "鈴木", "田中", "高橋" };
static const char *const noise_titles[] = {
	"自作キーボードの話", "京都の紅葉", "Emacs 設定まとめ", "週末の料理", "読書メモ: 坊っちゃん",
	"古いノートPCの再生", "Perl で CGI を書く", "梅田の古本屋", "自転車のチューブ交換", "秋の夜長に",
};

/* Distinct sentences of diary text, by (page, entry, paragraph). */
static inline void noise_sentence(lb_buf *b, int k, int e, int p)
{
	static const char *const subj[] = { "朝から", "昼休みに", "帰り道で", "夜更けに", "休日に",
					    "久しぶりに", "思い立って", "雨の中" };
	static const char *const obj[] = { "古い写真を整理した", "近所の喫茶店に寄った",
					   "新しい本を読み始めた", "部屋の掃除をした",
					   "友人と長電話をした", "パンを焼いてみた",
					   "川沿いを散歩した", "プログラムの虫を退治した",
					   "庭の柿を収穫した", "昔の日記を読み返した" };
	static const char *const tail[] = { "なかなか楽しかった", "少し疲れた", "また今度続きをしたい",
					    "思ったより時間がかかった", "気分が晴れた",
					    "次はもっと上手くやりたい" };
	unsigned h = (unsigned)(k * 7919 + e * 104729 + p * 1299709);

	lb_buf_addf(b, "%s%s。%sと思う、その%d。", subj[h % 8], obj[(h / 8) % 10], tail[(h / 80) % 6],
		    (int)(h % 997) + 1 + e * 1000);
	/* the number makes every sentence distinct yet normalises away: add a
	 * word of the page and entry so the normalised texts differ too */
	lb_buf_addf(b, "（%s%s）", noise_titles[(k + e) % 10], noise_wd[(e + p) % 7]);
}

/* The check at which page k has its real update, and its shape. */
static inline int noise_real(int k, int check)
{
	/* pages 0-15 have one update, at checks 1..6; pages 16-19 two; 20-23 none */
	static const int shape[4] = { NOISE_ENTRY, NOISE_COMMENT, NOISE_EDIT, NOISE_NUMBERS };

	if (k < 16)
		return check == 1 + k % NOISE_CHECKS ? shape[k % 4] : NOISE_NONE;
	if (k < 20)
		return check == 2 || check == 5 ? shape[(k + check) % 4] : NOISE_NONE;
	return NOISE_NONE;
}

/* How many of each shape page k has had by check c (inclusive). */
static inline int noise_count(int k, int check, int shape)
{
	int n = 0;

	for (int c = 1; c <= check; c++)
		n += noise_real(k, c) == shape;
	return n;
}

/* A substring the excerpt of page k's update at check c must hold. */
static inline void noise_expect(int k, int check, char *out, size_t n)
{
	switch (noise_real(k, check)) {
	case NOISE_ENTRY: snprintf(out, n, "新しい日記 %d-%d", k, check); break;
	case NOISE_COMMENT: snprintf(out, n, "コメント %d-%d", k, check); break;
	case NOISE_EDIT: snprintf(out, n, "追記 %d-%d", k, check); break;
	case NOISE_NUMBERS: snprintf(out, n, "体重"); break;
	default: *out = '\0';
	}
}


static inline void noise_widget(lb_buf *b, int kind, int k, int c, unsigned r)
{
	unsigned x = corpus_rand((unsigned)(k * 1000003 + c * 7919) + r * 2654435761u);
	int day = 20 + c;   /* one day per check */

	switch (kind) {
	case 0:
		lb_buf_addf(b, "<div id=\"counter\">あなたは %u 人目の訪問者です。</div>\n",
			    123567u + (unsigned)c * 300 + r * 7);
		break;
	case 1:
		if (k % 2)
			lb_buf_addf(b, "<p class=\"generated\">このページは %02u:%02u:%02u に生成されました。</p>\n",
				    (10 + c) % 24, r % 60, x % 60);
		else
			lb_buf_addf(b, "<div id=\"gen\"><p>Page generated at 2026-11-%02d %02u:%02u:%02u in 0.%04u seconds.</p></div>\n",
				    day, (10 + c) % 24, r % 60, x % 60, x % 10000);
		break;
	case 2:
		lb_buf_addf(b, "<div id=\"quote\"><p>今日の名言: %s</p></div>\n", noise_quotes[(c + k) % 7]);
		break;
	case 3:
		lb_buf_addf(b, "<div class=\"pr\"><p>PR: %s</p></div>\n", noise_ads[(r + (unsigned)k) % 5]);
		break;
	case 4:
		lb_buf_addf(b, "<div id=\"weather\"><p>今日の天気: %s %u℃</p></div>\n",
			    noise_weather[(c + k) % 6], 10 + x % 15);
		break;
	case 5:
		lb_buf_addf(b, "<div class=\"updates\"><ul><li>日記を書きました (%u 分前)</li>"
			    "<li>写真を追加しました (%u 時間前)</li><li>Posted a link (%u hours ago)</li></ul></div>\n",
			    1 + (r * 3 + (unsigned)c) % 59, 1 + (r + (unsigned)c) % 23, 2 + (r + (unsigned)c) % 20);
		break;
	case 6:
		lb_buf_addf(b, "<div class=\"stats\"><p>閲覧数 %u ・ いいね %u</p><p>%u,%03u views · %u likes</p></div>\n",
			    1000 + r * 13 + (unsigned)c * 50, 40 + r % 9, 1 + r / 7, (r * 37) % 1000, 12 + r % 5);
		break;
	case 7: {
		static const char *const links[] = { "はてな", "tDiary", "日記才人", "読書記録",
						     "写真置き場", "旧サイト", "掲示板", "リンク元" };
		int ord[8];
		for (int i = 0; i < 8; i++)
			ord[i] = i;
		for (int i = 7; i > 0; i--) {
			int j = (int)(corpus_rand(x + (unsigned)i) % (unsigned)(i + 1)), t = ord[i];
			ord[i] = ord[j];
			ord[j] = t;
		}
		lb_buf_adds(b, "<div class=\"links\"><h3>リンク集</h3><ul>");
		for (int i = 0; i < 8; i++)
			lb_buf_addf(b, "<li><a href=\"/l%d\">%s</a></li>", ord[i], links[ord[i]]);
		lb_buf_adds(b, "</ul></div>\n");
		break;
	}
	case 8:
		lb_buf_addf(b, "<p class=\"today\">今日は 2026年11月%d日(%s) です。</p>\n", day, noise_wd[(day + 6) % 7]);
		break;
	case 9:
		lb_buf_adds(b, "<table class=\"month\"><caption>2026年11月</caption><tr>");
		for (int d = 1; d <= 30; d++) {
			if (d == day)
				lb_buf_addf(b, "<td class=\"today\"><a href=\"/d%d\">%d</a></td>", d, d);
			else
				lb_buf_addf(b, "<td>%d</td>", d);
			if (d % 7 == 0)
				lb_buf_adds(b, "</tr><tr>");
		}
		lb_buf_adds(b, "</tr></table>\n");
		break;
	case 10:
		lb_buf_adds(b, "<div id=\"talk\"><h3>最近のコメント</h3><ul>");
		for (int i = 0; i < 3; i++)
			lb_buf_addf(b, "<li>%s: 読みました (%u 分前)</li>", noise_names[i], 2 + (r * 5 + (unsigned)(c + i * 11)) % 58);
		lb_buf_adds(b, "</ul></div>\n");
		break;
	case 11:
		lb_buf_addf(b, "<p class=\"login\"><a href=\"/login?sid=%08x\">ログイン (sid=%08x)</a></p>\n", x, x);
		break;
	case 12:
		lb_buf_adds(b, "<div class=\"recommend\"><h3>おすすめ記事</h3><ul>");
		for (int i = 0; i < 3; i++)
			lb_buf_addf(b, "<li>%s</li>", noise_titles[(x + (unsigned)i * 3) % 10]);
		lb_buf_adds(b, "</ul></div>\n");
		break;
	case 13:
		lb_buf_addf(b, "<p class=\"stamp\">Last updated: %s, November %d, 2026 at %u:%02u AM</p>\n",
			    noise_wd_en[(day + 6) % 7], day, 1 + (unsigned)c % 11, (unsigned)(c * 7) % 60);
		break;
	case 14: {
		unsigned v = 12345 + r * 11, w = 6789 + (unsigned)c;
		char fw[64], fw2[64];
		size_t n = 0;
		char tmp[16];
		snprintf(tmp, sizeof tmp, "%u", v);
		for (char *p = tmp; *p; p++)
			n += (size_t)snprintf(fw + n, sizeof fw - n, "\xef\xbc%c", (char)(0x90 + (*p - '0')));
		n = 0;
		snprintf(tmp, sizeof tmp, "%u", w);
		for (char *p = tmp; *p; p++)
			n += (size_t)snprintf(fw2 + n, sizeof fw2 - n, "\xef\xbc%c", (char)(0x90 + (*p - '0')));
		lb_buf_addf(b, "<div class=\"access\">本日のアクセス：%s 昨日：%s</div>\n", fw, fw2);
		break;
	}
	case 15:
		lb_buf_addf(b, "<p class=\"rate\">1ドル = %u.%02u 円</p>\n", 140 + x % 20, (x / 20) % 100);
		break;
	case 16: {
		lb_buf_adds(b, "<div id=\"ranking\"><h3>人気ランキング</h3><ol>");
		for (int i = 0; i < 5; i++)
			lb_buf_addf(b, "<li>%s</li>", noise_titles[(i * 3 + c) % 5]);
		lb_buf_adds(b, "</ol></div>\n");
		break;
	}
	case 17:
		break;   /* drawn under each entry (noise_page) */
	}
}

/* One diary entry. */
static inline int noise_real(int k, int check);

static inline void noise_entry(lb_buf *b, int layout, int k, int e, int day, int c, unsigned r,
			int stars, int edited, int comments, int numbers)
{
	unsigned x = corpus_rand((unsigned)(k * 31 + e) + r * 977);

	if (layout == 0)
		lb_buf_addf(b, "<div class=\"day\"><h2><span class=\"date\">2026年11月%d日(%s)</span> "
			    "<span class=\"title\">%s</span></h2><div class=\"body\"><div class=\"section\">",
			    day, noise_wd[(day + 6) % 7], noise_titles[(k + (e < 0 ? -e : e)) % 10]);
	else if (layout == 1)
		lb_buf_addf(b, "<div class=\"day\"><h2><a class=\"date\" href=\"/%d\">2026-11-%02d</a></h2>"
			    "<div class=\"body\"><div class=\"section\">", day, day);
	else
		lb_buf_addf(b, "<article class=\"entry\"><div class=\"entry-body\">");
	if (numbers) {
		lb_buf_addf(b, "<h3>ダイエット記録 %d</h3><p>体重 61.5kg、歩数 12034 歩。</p>", numbers);
	} else if (e < 0) {
		lb_buf_addf(b, "<h3>新しい日記 %d-%d</h3><p>", k, -e);
		noise_sentence(b, k, 50 - e, 0);
		lb_buf_adds(b, "</p><p>");
		noise_sentence(b, k, 50 - e, 1);
		lb_buf_adds(b, "</p>");
	} else {
		lb_buf_addf(b, "<h3>%s</h3>", noise_titles[(k * 3 + e) % 10]);
		for (int p = 0; p < 3; p++) {
			lb_buf_adds(b, "<p>");
			noise_sentence(b, k, e, p);
			if (p == 1 && edited)
				lb_buf_addf(b, "追記 %d-%d: 後で読み返したら誤字があったので直した。", k, edited);
			lb_buf_adds(b, "</p>");
		}
	}
	if (stars)
		lb_buf_addf(b, "<span class=\"hatena-star\">★×%u</span>", 1 + x % 30);
	if (layout == 1)
		lb_buf_addf(b, "<p class=\"sectionfooter\">Permalink | コメント(%d) | トラックバック(0)</p>", comments);
	lb_buf_adds(b, layout == 2 ? "</div>" : "</div></div>");
	if (comments) {
		int i = 0;
		lb_buf_addf(b, "<div class=\"comment\"><div class=\"caption\">本日のツッコミ(全%d件)</div>", comments);
		/* two old comments, then one per NOISE_COMMENT update so far */
		for (int c2 = -2; c2 <= c; c2++) {
			if (c2 >= 1 && noise_real(k, c2) != NOISE_COMMENT)
				continue;
			if (c2 == 0)
				continue;
			lb_buf_addf(b, "<div class=\"commentbody\"><span class=\"commentator\">%s</span>"
				    "<span class=\"commenttime\">(11-%02d 1%d:%02d)</span>",
				    noise_names[i % 5], day, i % 10, (i * 7) % 60);
			if (c2 < 1)
				lb_buf_addf(b, "<p>楽しく読ませていただきました。%s</p></div>", c2 == -2 ? "" : "また来ます。");
			else
				lb_buf_addf(b, "<p>コメント %d-%d です。とても参考になりました。</p></div>", k, c2);
			i++;
		}
		lb_buf_adds(b, "</div>");
	}
	lb_buf_adds(b, layout == 2 ? "</article>\n" : "</div>\n");
}

/*
 * Page k at check c, its r-th request: the HTML (appended to b).
 */
static inline void noise_page(lb_buf *b, int k, int c, unsigned r)
{
	int layout = k % 3;
	int ncomment = noise_count(k, c, NOISE_COMMENT), last_edit = 0;
	int kinds[3] = { (k * 3) % NOISE_KINDS, (k * 3 + 1) % NOISE_KINDS, (k * 3 + 2) % NOISE_KINDS };
	int stars = kinds[0] == 17 || kinds[1] == 17 || kinds[2] == 17;
	int shown = 0;

	for (int c2 = 1; c2 <= c; c2++)
		if (noise_real(k, c2) == NOISE_EDIT)
			last_edit = c2;

	lb_buf_addf(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ノイズ日記 %d</title></head>\n"
		    "<body><h1>ノイズ日記 %d</h1>\n<div class=\"main\">\n", k, k);
	/* the top widget of some layouts sits above the entries */
	if (layout == 2)
		noise_widget(b, kinds[0], k, c, r);
	/* entries, newest first: the real ones (new entries), then the three
	 * base days; three days are shown, the oldest scroll off */
	for (int c2 = c; c2 >= 1 && shown < 3; c2--) {
		int s = noise_real(k, c2);
		if (s != NOISE_ENTRY && s != NOISE_NUMBERS)
			continue;
		noise_entry(b, layout, k, s == NOISE_ENTRY ? -c2 : 0, 20 + c2, c, r, stars, 0,
			    0, s == NOISE_NUMBERS ? c2 : 0);
		shown++;
	}
	for (int e = 0; shown < 3; e++, shown++)
		noise_entry(b, layout, k, e, 19 - e, c, r, stars, e == 0 ? last_edit : 0,
			    e == 0 ? 2 + ncomment : 0, 0);
	lb_buf_adds(b, "</div>\n<div class=\"column\">\n");
	for (int i = layout == 2 ? 1 : 0; i < 3; i++)
		noise_widget(b, kinds[i], k, c, r);
	lb_buf_adds(b, "</div>\n</body></html>\n");
}

#endif
