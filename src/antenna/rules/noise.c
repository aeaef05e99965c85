/*
 * noise.c: volatile tokens normalised to "#" (numbers) and "@" (dates,
 * times, relative times); the classes are listed in ant_noise.h.
 *
 * One pass over the text.  At each place a token is read: a date word, a
 * number (with what follows it: a unit, am/pm, "ago"), a separator (space,
 * comma) or anything else (an ASCII word, or one character).  Number and
 * date tokens next to each other, apart by separators only, make a group;
 * a group with a sure date part (or a number and a word that is a date only
 * next to numbers, "Nov") is one "@", any other group is written as it is
 * with each number "#".  The same text always reads the same way, so the
 * groups can be read twice (the second time to write them) instead of kept.
 * Output goes to a buffer or straight into the hash: the segment hash of
 * every page must not allocate.
 */
#include "ant_noise.h"

#include <string.h>

typedef struct sink {
	lb_buf *buf;        /* NULL: hash only */
	uint64_t h;
	size_t n;
	int oom;            /* out of memory, or (with want) differing: stop */
	ant_noise_group *g; /* ant_noise_groups(): where each placeholder came from */
	size_t ng, gmax;
	const char *want;   /* ant_noise_normalize_prefix(): what to agree with */
	size_t wantlen;
	int differs;
} sink;

/* A placeholder written for s[off..off+len): noted for ant_noise_groups(). */
static void note(sink *k, char kind, size_t off, size_t len)
{
	if (k->g && k->ng < k->gmax)
		k->g[k->ng] = (ant_noise_group){ kind, (uint32_t)off, (uint32_t)len };
	k->ng++;
}

/* Do p[0..n), written at k->n, and k->want differ where both have bytes? */
static int disagrees(const sink *k, const char *p, size_t n)
{
	size_t m = k->n < k->wantlen ? k->wantlen - k->n : 0;

	return memcmp(p, k->want + k->n, n < m ? n : m) != 0;
}

/* emit() into a buffer: stops at no memory, or where want disagrees. */
static void emit_buf(sink *k, const char *p, size_t n)
{
	if (k->oom)
		return;
	if (k->want && disagrees(k, p, n)) {   /* the rest cannot agree: not read */
		k->differs = 1;
		k->oom = 1;
		return;
	}
	k->oom |= lb_buf_add(k->buf, p, n) < 0;
	k->n += n;
}

static inline void emit(sink *k, const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	if (k->buf) {
		emit_buf(k, p, n);
		return;
	}
	/* the hash: every segment of every page, the hot path */
	for (size_t i = 0; i < n; i++) {
		k->h ^= s[i];
		k->h *= 1099511628211ull;
	}
	k->n += n;
}

enum { T_OTHER, T_SEP, T_NUM, T_DATE, T_WEAK };

typedef struct token {
	int kind;
	size_t len;
} token;

/* ---- characters ------------------------------------------------------------ */

static int is_alpha(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Is c an ASCII letter of set (a mask of lowercase letters, LETTER())?
 * A strchr() of a few letters without the call: every number of every
 * segment asks it. */
#define LETTER(c) (1u << ((c) - 'a'))
static int letter_in(unsigned char c, uint32_t set)
{
	unsigned l = (unsigned)(c | 0x20) - 'a';

	return l < 26 && (set >> l & 1);
}
/* h m d s w y right after the digits: "5h", "3d" */
#define UNIT_LETTERS (LETTER('h') | LETTER('m') | LETTER('d') | LETTER('s') | LETTER('w') | LETTER('y'))

/* Bytes of the digit at s (ASCII or full-width ０-９, EF BC 90-99), or 0. */
static size_t digit_at(const unsigned char *s, size_t n)
{
	if (*s >= '0' && *s <= '9')
		return 1;
	if (n >= 3 && s[0] == 0xEF && s[1] == 0xBC && s[2] >= 0x90 && s[2] <= 0x99)
		return 3;
	return 0;
}

/* Bytes of a separator inside a number (, . : / - and ，．：／－), or 0;
 * *kind gets the ASCII form. */
static size_t numsep_at(const unsigned char *s, size_t n, char *kind)
{
	if (*s == ',' || *s == '.' || *s == ':' || *s == '/' || *s == '-') {
		*kind = (char)*s;
		return 1;
	}
	if (n >= 3 && s[0] == 0xEF && s[1] == 0xBC) {
		switch (s[2]) {
		case 0x8C: *kind = ','; return 3;
		case 0x8E: *kind = '.'; return 3;
		case 0x9A: *kind = ':'; return 3;
		case 0x8F: *kind = '/'; return 3;
		case 0x8D: *kind = '-'; return 3;
		}
	}
	return 0;
}

/* Table entries carry their length: this runs over every character of
 * every segment of every page. */
typedef struct str {
	const char *s;
	size_t n;
} str;
#define S(x) { x, sizeof x - 1 }
#define END { NULL, 0 }

/* Does s start with the UTF-8 string w?  Returns its length or 0. */
static size_t lit(const unsigned char *s, size_t n, const char *w, size_t k)
{
	return k <= n && memcmp(s, w, k) == 0 ? k : 0;
}
#define LIT(s, n, x) lit(s, n, x, sizeof x - 1)

/* The longest entry of a table that s starts with, or 0. */
static size_t longest(const unsigned char *s, size_t n, const str *tab)
{
	size_t best = 0;

	for (; tab->s; tab++)   /* the third byte tells most Japanese characters apart */
		if (tab->n > best && n >= 3 && (unsigned char)tab->s[2] == s[2] &&
		    lit(s, n, tab->s, tab->n))
			best = tab->n;
	return best;
}

/* Case-blind ASCII word w (k bytes, lowercase) at s, ending at a word
 * boundary; its length or 0.  w may hold spaces and dots ("a few", "a.m."). */
static size_t word(const unsigned char *s, size_t n, const char *w, size_t k)
{
	if (k > n)
		return 0;
	for (size_t i = 0; i < k; i++) {
		unsigned char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c + 32);
		if (c != (unsigned char)w[i])
			return 0;
	}
	return k < n && is_alpha(s[k]) ? 0 : k;
}

#define WORD(s, n, x) word(s, n, x, sizeof x - 1)

static size_t longest_word(const unsigned char *s, size_t n, const str *tab)
{
	size_t best = 0;
	unsigned char c;

	if (!n)   /* at the end of the text */
		return 0;
	c = s[0] | 0x20;
	for (; tab->s; tab++)
		if ((unsigned char)tab->s[0] == c && tab->n > best && word(s, n, tab->s, tab->n))
			best = tab->n;
	return best;
}

/* One space (ASCII or the ideographic U+3000) at s: its bytes or 0. */
static size_t space_at(const unsigned char *s, size_t n)
{
	if (!n)   /* a number that ends the text */
		return 0;
	if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		return 1;
	return LIT(s, n, "\xe3\x80\x80");
}

/* ---- the tables ------------------------------------------------------------ */

/* Japanese words that are a date or a time on their own. */
static const str jp_date[] = {
	S("たった今"), S("ついさっき"), S("さっき"), S("先ほど"), S("先程"), S("今日"), S("本日"), S("昨日"),
	S("一昨日"), S("明日"), S("今朝"), S("昨夜"), S("今週"), S("先週"), S("来週"), S("今月"), S("先月"),
	S("来月"), S("今年"), S("昨年"), S("去年"), S("来年"),
	S("月曜日"), S("火曜日"), S("水曜日"), S("木曜日"), S("金曜日"), S("土曜日"), S("日曜日"),
	S("月曜"), S("火曜"), S("水曜"), S("木曜"), S("金曜"), S("土曜"), S("日曜"),
	END
};
/* Japanese words that are a date only next to a number. */
static const str jp_weak[] = { S("午前"), S("午後"), END };
/* Time units after a number, and what may follow them. */
static const str jp_unit[] = {
	S("時間"), S("週間"), S("日間"), S("年間"), S("分間"), S("秒間"), S("ヶ月"), S("か月"), S("カ月"), S("ヵ月"), S("ケ月"),
	S("箇月"), S("年"), S("月"), S("日"), S("時"), S("分"), S("秒"), S("週"), END
};
static const str jp_after[] = { S("前"), S("後"), S("ぶり"), S("頃"), END };
/* What may stand between a unit and 前: "1分以内前" (a Japanese age). */
static const str jp_mod[] = { S("以内"), S("未満"), S("以上"), S("弱"), S("強"), S("近く"), END };
/* Counters that make a kanji numeral a number (the time units too). */
static const str kanji_counter[] = {
	S("年"), S("月"), S("日"), S("時"), S("分"), S("秒"), S("週"), S("人"), S("件"), S("回"), S("個"), S("歳"), S("円"), S("度"), S("番"),
	S("位"), S("本"), S("枚"), S("台"), S("名"), END
};
static const str kanji_digit[] = {
	S("〇"), S("一"), S("二"), S("三"), S("四"), S("五"), S("六"), S("七"), S("八"), S("九"), S("十"), S("百"), S("千"), S("万"), S("数"),
	END
};
static const str weekday_kanji[] = { S("月"), S("火"), S("水"), S("木"), S("金"), S("土"), S("日"), END };

/* English words that are a date (T_DATE) or a date only next to a number
 * (T_WEAK), sorted: a word is looked up among those of its first letter. */
typedef struct en_entry {
	str w;
	int kind;
} en_entry;

static const en_entry en_words[] = {   /* a new entry's first letters go into en_maybe() */
	{ S("a.m."), T_WEAK }, { S("am"), T_WEAK }, { S("apr"), T_WEAK }, { S("apr."), T_WEAK },
	{ S("april"), T_WEAK }, { S("aug"), T_WEAK }, { S("aug."), T_WEAK },
	{ S("august"), T_WEAK }, { S("dec"), T_WEAK }, { S("dec."), T_WEAK },
	{ S("december"), T_WEAK }, { S("feb"), T_WEAK }, { S("feb."), T_WEAK },
	{ S("february"), T_WEAK }, { S("fri"), T_WEAK }, { S("fri."), T_WEAK },
	{ S("friday"), T_DATE }, { S("jan"), T_WEAK }, { S("jan."), T_WEAK },
	{ S("january"), T_WEAK }, { S("jul"), T_WEAK }, { S("jul."), T_WEAK },
	{ S("july"), T_WEAK }, { S("jun"), T_WEAK }, { S("jun."), T_WEAK }, { S("june"), T_WEAK },
	{ S("just now"), T_DATE }, { S("last month"), T_DATE }, { S("last night"), T_DATE },
	{ S("last week"), T_DATE }, { S("last year"), T_DATE }, { S("mar"), T_WEAK }, { S("mar."), T_WEAK },
	{ S("march"), T_WEAK }, { S("may"), T_WEAK }, { S("moments ago"), T_DATE },
	{ S("mon"), T_WEAK }, { S("mon."), T_WEAK }, { S("monday"), T_DATE }, { S("nov"), T_WEAK },
	{ S("nov."), T_WEAK }, { S("november"), T_WEAK }, { S("oct"), T_WEAK },
	{ S("oct."), T_WEAK }, { S("october"), T_WEAK }, { S("p.m."), T_WEAK }, { S("pm"), T_WEAK },
	{ S("sat"), T_WEAK }, { S("sat."), T_WEAK }, { S("saturday"), T_DATE },
	{ S("sep"), T_WEAK }, { S("sep."), T_WEAK }, { S("sept"), T_WEAK }, { S("sept."), T_WEAK },
	{ S("september"), T_WEAK }, { S("sun"), T_WEAK }, { S("sun."), T_WEAK },
	{ S("sunday"), T_DATE }, { S("thu"), T_WEAK }, { S("thu."), T_WEAK }, { S("thur"), T_WEAK },
	{ S("thur."), T_WEAK }, { S("thurs"), T_WEAK }, { S("thurs."), T_WEAK },
	{ S("thursday"), T_DATE }, { S("today"), T_DATE }, { S("tomorrow"), T_DATE },
	{ S("tue"), T_WEAK }, { S("tue."), T_WEAK }, { S("tues"), T_WEAK }, { S("tues."), T_WEAK },
	{ S("tuesday"), T_DATE }, { S("wed"), T_WEAK }, { S("wed."), T_WEAK },
	{ S("wednesday"), T_DATE }, { S("yesterday"), T_DATE },
};
static const str en_unit[] = {
	S("second"), S("seconds"), S("sec"), S("secs"), S("minute"), S("minutes"), S("min"), S("mins"), S("hour"), S("hours"),
	S("hr"), S("hrs"), S("day"), S("days"), S("week"), S("weeks"), S("month"), S("months"), S("year"), S("years"), S("yr"), S("yrs"),
	END
};
static const str en_article[] = { S("a"), S("an"), S("one"), S("a few"), S("few"), S("several"), END };
static const str en_ampm[] = { S("am"), S("pm"), S("a.m."), S("p.m."), END };
static const str en_ordinal[] = { S("st"), S("nd"), S("rd"), S("th"), END };

/* ---- tokens ---------------------------------------------------------------- */

/* Can a Japanese token start with the character at s?  The first
 * characters of the entries of jp_date, jp_weak, kanji_digit, of "（" and
 * of the ideographic space: one switch instead of every table. */
static int jp_lead(const unsigned char *s, size_t n)
{
	unsigned cp;

	if (n < 3 || (s[0] & 0xF0) != 0xE0)
		return 0;
	cp = (unsigned)(s[0] & 0x0F) << 12 | (unsigned)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
	switch (cp) {
	case 0x305F: case 0x3064: case 0x3055: case 0x5148: case 0x4ECA: case 0x672C: /* たつさ先今本 */
	case 0x6628: case 0x4E00: case 0x660E: case 0x6708: case 0x706B: case 0x6C34: /* 昨一明月火水 */
	case 0x6728: case 0x91D1: case 0x571F: case 0x65E5: case 0x5348: case 0x3007: /* 木金土日午〇 */
	case 0x4E8C: case 0x4E09: case 0x56DB: case 0x4E94: case 0x516D: case 0x4E03: /* 二三四五六七 */
	case 0x516B: case 0x4E5D: case 0x5341: case 0x767E: case 0x5343: case 0x4E07: /* 八九十百千万 */
	case 0x6570: case 0xFF08: case 0x3000: case 0x6765: case 0x53BB: case 0x7D04:   /* 数（　来去約 */
		return 1;
	}
	return 0;
}

/* "(月)", "（水）", "(月・祝)": a weekday in brackets. */
static size_t bracket_weekday(const unsigned char *s, size_t n)
{
	size_t i, k;

	if ((i = LIT(s, n, "(")) == 0 && (i = LIT(s, n, "\xef\xbc\x88")) == 0)   /* （ */
		return 0;
	if (!(k = longest(s + i, n - i, weekday_kanji)))
		return 0;
	i += k;
	if ((k = LIT(s + i, n - i, "・"))) {
		static const str holiday[] = { S("祝"), S("祭"), S("休"), END };
		size_t h = longest(s + i + k, n - i - k, holiday);

		if (!h)
			return 0;
		i += k + h;
	}
	if ((k = LIT(s + i, n - i, ")")) || (k = LIT(s + i, n - i, "\xef\xbc\x89")))   /* ） */
		return i + k;
	return 0;
}

/* The longest of en_words at s: its length (kind in *kind), or 0. */
static size_t en_word(const unsigned char *s, size_t n, int *kind)
{
	size_t lo = 0, hi = sizeof en_words / sizeof *en_words, best = 0;
	unsigned char c = s[0] | 0x20;

	while (lo < hi) {   /* the first entry of letter c */
		size_t mid = (lo + hi) / 2;

		if ((unsigned char)en_words[mid].w.s[0] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < sizeof en_words / sizeof *en_words && (unsigned char)en_words[lo].w.s[0] == c; lo++)
		if (en_words[lo].w.n > best && word(s, n, en_words[lo].w.s, en_words[lo].w.n)) {
			best = en_words[lo].w.n;
			*kind = en_words[lo].kind;
		}
	return best;
}

/* a/an/one/a few/few/several + unit + ago. */
static size_t en_relative(const unsigned char *s, size_t n)
{
	size_t i, k;
	unsigned char c = s[0] | 0x20;

	if (c != 'a' && c != 'o' && c != 'f' && c != 's')
		return 0;
	i = longest_word(s, n, en_article);

	if (!i || i >= n || s[i] != ' ')
		return 0;
	i++;
	if (!(k = longest_word(s + i, n - i, en_unit)))
		return 0;
	i += k;
	if (i >= n || s[i] != ' ' || !(k = WORD(s + i + 1, n - i - 1, "ago")))
		return 0;
	return i + 1 + k;
}

static token number_token(const unsigned char *s, size_t left);

/* "about", "over", "less than"... right before a relative time ("about 2
 * hours ago", "less than a minute ago", Redmine's and Rails' ages): its
 * length with the space after it, or 0. */
static size_t en_age_lead(const unsigned char *s, size_t n)
{
	static const str lead[] = { S("about"), S("over"), S("almost"), S("nearly"), S("less than"), S("around"),
				    S("under"), END };
	size_t i = longest_word(s, n, lead);

	if (!i || i + 1 >= n || s[i] != ' ')
		return 0;
	i++;
	if (digit_at(s + i, n - i))
		return number_token(s + i, n - i).kind == T_DATE ? i : 0;
	return en_relative(s + i, n - i) ? i : 0;
}

/* What follows a number that makes it a date or time: a unit (then 前,
 * "ago"...), am/pm.  Returns the bytes taken, 0 for none. */
static size_t number_tail(const unsigned char *s, size_t n, int kanji)
{
	size_t i = 0, k, sp;

	/* Japanese unit, right after or after one space (not for kanji numerals) */
	sp = kanji ? 0 : space_at(s, n);
	for (size_t pass = 0; pass < 2; pass++) {
		size_t at = pass ? sp : 0;

		if (pass && !sp)
			break;
		if (at >= n || s[at] < 0xE3)   /* every unit is kana or kanji */
			continue;
		if ((k = longest(s + at, n - at, jp_unit))) {
			i = at + k;
			i += longest(s + i, n - i, jp_mod);
			sp = i < n ? space_at(s + i, n - i) : 0;
			if ((k = longest(s + i, n - i, jp_after)))
				i += k;
			else if (sp && (k = longest(s + i + sp, n - i - sp, jp_after)))
				i += sp + k;
			return i;
		}
	}
	if (kanji)
		return 0;
	/* h m d s w y right after the digits: "5h", "3d" */
	if (n && letter_in(s[0], UNIT_LETTERS) && (n == 1 || !is_alpha(s[1])))
		return 1;
	/* English unit or am/pm, right after or after one space */
	for (size_t pass = 0; pass < 2; pass++) {
		size_t at = pass ? (n && s[0] == ' ' ? 1 : 0) : 0;

		if (pass && !at)
			break;
		/* the first letters of en_unit and en_ampm: "of", "views" are out at once */
		if (at >= n || !letter_in(s[at], LETTER('s') | LETTER('m') | LETTER('h') | LETTER('d') | LETTER('w') |
						   LETTER('y') | LETTER('a') | LETTER('p')))
			continue;
		if ((k = longest_word(s + at, n - at, en_unit))) {
			i = at + k;
			if (i + 1 < n && s[i] == ' ' && (k = WORD(s + i + 1, n - i - 1, "ago")))
				i += 1 + k;
			return i;
		}
		if ((k = longest_word(s + at, n - at, en_ampm)))
			return at + k;
	}
	return 0;
}

/* Bytes of the UTF-8 character at s (at most 4). */
static size_t char_len(const unsigned char *s, size_t left)
{
	size_t k = 1;

	while (k < left && k < 4 && (s[k] & 0xC0) == 0x80)
		k++;
	return k;
}

/* A Japanese token at s (*s >= 0x80): an ideographic space, a date word,
 * a weekday in brackets, 午前/午後; len 0 when none. */
static token jp_token(const unsigned char *s, size_t left)
{
	size_t k;

	if ((k = LIT(s, left, "\xe3\x80\x80")))   /* ideographic space */
		return (token){ T_SEP, k };
	if ((k = longest(s, left, jp_date)) || (k = bracket_weekday(s, left)))
		return (token){ T_DATE, k };
	if ((k = longest(s, left, jp_weak)))
		return (token){ T_WEAK, k };
	/* "約" before an age: "約2時間前" is one, as "3分前" */
	if ((k = LIT(s, left, "約")) && k < left && digit_at(s + k, left - k) &&
	    number_token(s + k, left - k).kind == T_DATE)
		return (token){ T_DATE, k };
	return (token){ T_OTHER, 0 };
}

/* An ASCII word at s: a date word (or a relative time) when it starts a
 * word, else the run of letters as it is. */
static token word_token(const unsigned char *s, size_t left, int word_start)
{
	size_t run = 1, k;

	if (word_start) {
		int kind;

		if ((k = en_relative(s, left)) || (k = en_age_lead(s, left)))
			return (token){ T_DATE, k };
		if ((k = en_word(s, left, &kind)))
			return (token){ kind, k };
	}
	while (run < left && is_alpha(s[run]))
		run++;
	return (token){ T_OTHER, run };
}

/* A number at s (a digit there): digits with separators between them,
 * then a unit or am/pm (a date), an ordinal suffix, or nothing; a clock
 * or three parts with one separator is a date too. */
static token number_token(const unsigned char *s, size_t left)
{
	size_t k, j = digit_at(s, left), parts = 1;
	int clock = 0, mixed = 0;
	char sep = 0;

	for (;;) {
		while (j < left && (k = digit_at(s + j, left - j)))
			j += k;
		char kind;
		size_t sl = j < left ? numsep_at(s + j, left - j, &kind) : 0;

		if (!sl || j + sl >= left || !digit_at(s + j + sl, left - j - sl))
			break;
		if (kind == ':')
			clock = 1;
		if (sep && kind != sep)
			mixed = 1;
		sep = kind;
		parts++;
		j += sl;
	}
	if ((k = number_tail(s + j, left - j, 0)))
		return (token){ T_DATE, j + k };
	if ((k = longest_word(s + j, left - j, en_ordinal)))
		return (token){ T_NUM, j + k };
	if (clock || (parts == 3 && !mixed && sep != ','))
		return (token){ T_DATE, j };
	return (token){ T_NUM, j };
}

/* Kanji numerals at s: a number only right before a counter, a date
 * before a time unit; len 0 when none. */
static token kanji_token(const unsigned char *s, size_t left)
{
	size_t j = longest(s, left, kanji_digit), k;

	if (!j)
		return (token){ T_OTHER, 0 };
	while ((k = longest(s + j, left - j, kanji_digit)))
		j += k;
	if (!longest(s + j, left - j, kanji_counter))
		return (token){ T_OTHER, 0 };
	if ((k = number_tail(s + j, left - j, 1)))
		return (token){ T_DATE, j + k };
	return (token){ T_NUM, j };
}

/* The token at s[i]; word_start: the byte before is no ASCII letter. */
static token token_at(const unsigned char *base, size_t i, size_t n)
{
	const unsigned char *s = base + i;
	size_t left = n - i, k;
	token t;

	if (*s == ' ' || *s == ',' || *s == '\t' || *s == '\n' || *s == '\r')
		return (token){ T_SEP, 1 };
	/* most of a Japanese text: no date word, no numeral starts here */
	if (*s >= 0x80 && !digit_at(s, left) && !jp_lead(s, left))
		return (token){ T_OTHER, char_len(s, left) };
	if (*s >= 0x80) {
		if ((t = jp_token(s, left)).len)
			return t;
	} else if (*s == '(') {
		if ((k = bracket_weekday(s, left)))
			return (token){ T_DATE, k };
	}
	if (is_alpha(*s))
		return word_token(s, left, i == 0 || !is_alpha(base[i - 1]));
	if (digit_at(s, left))
		return number_token(s, left);
	if (*s >= 0x80 && (t = kanji_token(s, left)).len)
		return t;
	/* anything else: one character */
	return (token){ T_OTHER, *s < 0x80 ? 1 : char_len(s, left) };
}

/* Can an English date word or en_relative() start with the word at s?
 * Its first three letters (fewer if it is shorter) against those of every
 * entry: nearly every English word is out after one switch. */
static int en_maybe(const unsigned char *s, size_t n)
{
	uint32_t key = 0;

	for (size_t i = 0; i < 3 && i < n && is_alpha(s[i]); i++)
		key = key << 8 | (uint32_t)(s[i] | 0x20);
#define K1(a) ((uint32_t)(a))
#define K2(a, b) ((uint32_t)(a) << 8 | (uint32_t)(b))
#define K3(a, b, c) ((uint32_t)(a) << 16 | (uint32_t)(b) << 8 | (uint32_t)(c))
	switch (key) {
	case K1('a'): case K2('a', 'm'): case K2('a', 'n'): case K2('p', 'm'): case K1('p'):
	case K3('a', 'p', 'r'): case K3('a', 'u', 'g'): case K3('d', 'e', 'c'): case K3('f', 'e', 'b'):
	case K3('f', 'r', 'i'): case K3('j', 'a', 'n'): case K3('j', 'u', 'l'): case K3('j', 'u', 'n'):
	case K3('j', 'u', 's'): case K3('l', 'a', 's'): case K3('m', 'a', 'r'): case K3('m', 'a', 'y'): case K3('m', 'o', 'm'):
	case K3('m', 'o', 'n'): case K3('n', 'o', 'v'): case K3('o', 'c', 't'): case K3('s', 'a', 't'):
	case K3('s', 'e', 'p'): case K3('s', 'u', 'n'): case K3('t', 'h', 'u'): case K3('t', 'o', 'd'):
	case K3('t', 'o', 'm'): case K3('t', 'u', 'e'): case K3('w', 'e', 'd'): case K3('y', 'e', 's'):
	case K3('o', 'n', 'e'): case K3('f', 'e', 'w'): case K3('s', 'e', 'v'):
	case K3('a', 'b', 'o'): case K3('o', 'v', 'e'): case K3('a', 'l', 'm'): case K3('n', 'e', 'a'):
	case K3('l', 'e', 's'): case K3('a', 'r', 'o'): case K3('u', 'n', 'd'):
		return 1;
	}
	return 0;
#undef K1
#undef K2
#undef K3
}

/* Bytes at base[i] that no token but "anything else" can start with
 * (they are written as they are), or 0: most of a text, read fast. */
static size_t plain_len(const unsigned char *base, size_t i, size_t n)
{
	const unsigned char *s = base + i;
	unsigned char c = *s;
	size_t k;

	if (c < 0x80) {
		if ((c >= '0' && c <= '9') || c == '(')
			return 0;
		if (is_alpha(c)) {
			if ((i == 0 || !is_alpha(base[i - 1])) && en_maybe(s, n - i))
				return 0;
			for (k = 1; i + k < n && is_alpha(s[k]); k++)
				;
			return k;
		}
		return 1;
	}
	if (digit_at(s, n - i) || jp_lead(s, n - i))
		return 0;
	for (k = 1; i + k < n && k < 4 && (s[k] & 0xC0) == 0x80; k++)
		;
	return k;
}

/* A word that stands where an age stands: alone in its segment (a table
 * cell of a code browser's "age" column), "now", "current", "(current)",
 * "right now", which the next answer may show as "3 seconds ago". */
static int lone_age(const unsigned char *s, size_t n)
{
	static const char *const words[] = { "now", "current", "right now", NULL };

	while (n && (*s == ' ' || *s == '('))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == ')'))
		n--;
	for (const char *const *w = words; *w; w++)
		if (strlen(*w) == n && word(s, n, *w, n))
			return 1;
	return 0;
}

/* Tokens of a group kept as it is read, not read again when written. */
#define GROUP_TOKENS 32

static void normalize(const unsigned char *s, size_t n, sink *k)
{
	size_t i = 0;

	if (n <= 16 && lone_age(s, n)) {
		emit(k, "@", 1);
		note(k, '@', 0, n);
		return;
	}

	while (i < n && !k->oom) {
		token t, seen[GROUP_TOKENS];   /* the group's tokens as read, from i */
		size_t end, j, p, ns = 0;
		int date = 0, num = 0, weak = 0;

		for (j = i; j < n && (p = plain_len(s, j, n)); j += p)
			;
		if (j > i) {
			emit(k, (const char *)s + i, j - i);
			i = j;
			continue;
		}
		t = token_at(s, i, n);

		if (t.kind == T_OTHER || t.kind == T_SEP) {
			emit(k, (const char *)s + i, t.len);
			i += t.len;
			continue;
		}
		/* A group: date and number tokens, apart by separators only. */
		j = i;
		end = i;
		for (;;) {
			date |= t.kind == T_DATE;
			num |= t.kind == T_NUM;
			weak |= t.kind == T_WEAK;
			if (ns < GROUP_TOKENS)
				seen[ns] = t;
			ns++;
			j += t.len;
			end = j;
			while (j < n && (t = token_at(s, j, n)).kind == T_SEP) {
				if (ns < GROUP_TOKENS)
					seen[ns] = t;
				ns++;
				j += t.len;
			}
			if (j >= n || (t.kind != T_NUM && t.kind != T_DATE && t.kind != T_WEAK))
				break;
		}
		if (date || (num && weak)) {
			emit(k, "@", 1);
			note(k, '@', i, end - i);
		} else {
			/* numbers alone, or date words alone ("May I"): as they are,
			 * numbers "#"; the tokens read again from i are those seen */
			for (j = i, p = 0; j < end; j += t.len, p++) {
				t = p < GROUP_TOKENS ? seen[p] : token_at(s, j, n);
				if (t.kind == T_NUM) {
					emit(k, "#", 1);
					note(k, '#', j, t.len);
				} else {
					emit(k, (const char *)s + j, t.len);
				}
			}
		}
		i = end;
	}
}

size_t ant_noise_normalize(const char *s, size_t n, lb_buf *out)
{
	sink k = { .buf = out };

	normalize((const unsigned char *)s, n, &k);
	return k.oom ? (size_t)-1 : k.n;
}

size_t ant_noise_normalize_groups(const char *s, size_t n, lb_buf *out, ant_noise_group *g, size_t max)
{
	sink k = { .buf = out, .g = g, .gmax = max };

	normalize((const unsigned char *)s, n, &k);
	return k.oom ? (size_t)-1 : k.ng;
}

size_t ant_noise_normalize_prefix(const char *s, size_t n, const char *want, size_t wantlen, lb_buf *out)
{
	sink k = { .buf = out, .want = want, .wantlen = wantlen };

	/* a text starting with a letter starts so normalised, or with "@"
	 * (a date word, an age): most lines differ from want there */
	if (n && wantlen && is_alpha((unsigned char)s[0]) && want[0] != s[0] && want[0] != '@')
		return ANT_NOISE_DIFFERS;
	normalize((const unsigned char *)s, n, &k);
	if (k.differs)
		return ANT_NOISE_DIFFERS;
	return k.oom ? (size_t)-1 : k.n;
}

size_t ant_noise_groups(const char *s, size_t n, ant_noise_group *g, size_t max)
{
	sink k = { .h = 14695981039346656037ull, .g = g, .gmax = max };

	normalize((const unsigned char *)s, n, &k);
	return k.ng;
}

uint32_t ant_noise_hash(const char *s, size_t n)
{
	sink k = { .h = 14695981039346656037ull };

	normalize((const unsigned char *)s, n, &k);
	return (uint32_t)(k.h ^ (k.h >> 32));
}

/* ---- a text made of ages only ------------------------------------------------ */

/* Japanese units that say a duration on their own ("3時間", "2ヶ月"); the
 * others (年 月 日 時 分 秒 週) are a calendar's or a clock's part ("11月29日",
 * "10時5分") unless 前 or 後 follows them. */
static const str jp_span[] = {
	S("時間"), S("週間"), S("日間"), S("年間"), S("分間"), S("秒間"), S("ヶ月"), S("か月"), S("カ月"), S("ヵ月"),
	S("ケ月"), S("箇月"), END
};

/* After a number at s: a time unit making it an age ("58 min.", "2 hours
 * ago", "3分前", "2ヶ月", "5h"), its bytes with what follows it, or 0. */
static size_t age_tail(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	if (i < n && s[i] == ' ')
		i++;
	if ((k = longest(s + i, n - i, jp_span)) || (k = longest(s + i, n - i, jp_unit))) {
		int span = longest(s + i, n - i, jp_span) == k;
		size_t a;

		i += k;
		i += longest(s + i, n - i, jp_mod);
		a = longest(s + i, n - i, jp_after);
		return span || a ? i + a : 0;
	}
	if (!i && n && letter_in(s[0], UNIT_LETTERS) && (n == 1 || !is_alpha(s[1])))
		return 1;
	if (!(k = longest_word(s + i, n - i, en_unit)))
		return 0;
	i += k;
	if (i < n && s[i] == '.')   /* "58 min." */
		i++;
	if (i + 1 < n && s[i] == ' ' && (k = WORD(s + i + 1, n - i - 1, "ago")))
		i += 1 + k;
	else if (i + 1 < n && s[i] == ' ' && (k = WORD(s + i + 1, n - i - 1, "from now")))
		i += 1 + k;
	return i;
}

/* An age at s: a number and a time unit, "a minute ago", "about 2 hours
 * ago", a word that is one ("just now", "yesterday", 昨日, たった今); its
 * bytes or 0.  Dates and clocks ("2026-11-29", "10:20") are no age. */
static size_t age_at(const unsigned char *s, size_t n)
{
	static const char *const en[] = { "just now", "moments ago", "yesterday", "today", "now", NULL };
	static const str jp[] = { S("たった今"), S("ついさっき"), S("さっき"), S("先ほど"), S("先程"), S("昨日"),
				  S("一昨日"), S("今日"), S("本日"), END };
	size_t k, j;

	if (is_alpha(s[0])) {
		/* the first letters of the words below and of en_age_lead's and
		 * en_relative's: nearly every sentence is out at its first word */
		if (!letter_in(s[0], LETTER('a') | LETTER('f') | LETTER('j') | LETTER('l') | LETTER('m') | LETTER('n') |
					 LETTER('o') | LETTER('s') | LETTER('t') | LETTER('u') | LETTER('y')))
			return 0;
		if ((k = en_age_lead(s, n)))
			return (j = age_at(s + k, n - k)) ? k + j : 0;
		if ((k = en_relative(s, n)))
			return k;
		for (const char *const *w = en; *w; w++)
			if ((k = word(s, n, *w, strlen(*w))))
				return k;
		return 0;
	}
	if ((k = LIT(s, n, "約")) && k < n && digit_at(s + k, n - k))
		return (j = age_at(s + k, n - k)) ? k + j : 0;
	if ((k = longest(s, n, jp)))
		return k;
	for (j = 0; j < n && (k = digit_at(s + j, n - j)); j += k)
		;
	if (!j)
		return 0;
	if (j + 1 < n && s[j] == '.' && digit_at(s + j + 1, n - j - 1))   /* "1.5 hours" */
		for (j++; j < n && (k = digit_at(s + j, n - j)); j += k)
			;
	return (k = age_tail(s + j, n - j)) ? j + k : 0;
}

int ant_noise_age_only(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, k;
	int ages = 0;

	if (n > 64)   /* an age, or two, in a table's cell */
		return 0;
	while (i < n) {
		if (strchr(" \t\r\n.,;:+-~()[]/|", s[i]) && s[i]) {
			i++;
			continue;
		}
		if ((k = LIT(s + i, n - i, "\xe3\x80\x80")) || (k = LIT(s + i, n - i, "（")) ||
		    (k = LIT(s + i, n - i, "）"))) {
			i += k;
			continue;
		}
		if (!(k = age_at(s + i, n - i)))
			return 0;
		ages++;
		i += k;
	}
	return ages > 0;
}
