/*
 * clock.c: time-aware tokens (ant_clock.h): what a date, a time, an age,
 * a timing or a number says, and whether it moved as a clock.
 *
 * Two steps.  lex() cuts the start of the text into at most MAX_ITEMS
 * items (a number, a separator, an ASCII word lowercased, a Japanese unit
 * from a table), stopping at anything else; then the readers below match
 * the items against the shapes dates take, each a few lines, first match
 * wins.  Nothing is allocated; nothing reads past ANT_CLOCK_MAX_READ.
 */
#include "ant_clock.h"

#include <string.h>

#include "lb_date.h"

#define MAX_ITEMS 24
#define MARK_BITS 30
#define MARK_MASK ((UINT32_C(1) << MARK_BITS) - 1)
#define NOT_HERE (-1)   /* a reader's index: no match at i */

enum { I_NUM, I_SEP, I_WORD, I_JP };

/* Japanese items, longest first where one is the start of another. */
enum {
	J_YEAR = 1, J_MONTH, J_DAY, J_HOUR, J_MIN, J_SEC, J_MSEC, J_AGO, J_LATER, J_ABOUT, J_AM, J_PM,
	J_SPAN, J_MOD, J_WEEK, J_AGEWORD, J_WDAY
};

typedef struct jp_item {
	const char *s;
	int id;
} jp_item;

static const jp_item jp_items[] = {
	{ "ミリ秒", J_MSEC }, { "時間", J_HOUR }, { "分間", J_MIN }, { "秒間", J_SEC }, { "日間", J_DAY },
	{ "週間", J_WEEK }, { "年間", J_YEAR }, { "ヶ月", J_MONTH }, { "か月", J_MONTH }, { "カ月", J_MONTH },
	{ "ヵ月", J_MONTH }, { "午前", J_AM }, { "午後", J_PM }, { "以内", J_MOD }, { "未満", J_MOD },
	{ "以上", J_MOD }, { "ぶり", J_MOD }, { "くらい", J_MOD }, { "ほど", J_MOD }, { "およそ", J_ABOUT },
	{ "たった今", J_AGEWORD }, { "ついさっき", J_AGEWORD }, { "さっき", J_AGEWORD }, { "先ほど", J_AGEWORD },
	{ "先程", J_AGEWORD }, { "今日", J_AGEWORD }, { "本日", J_AGEWORD }, { "一昨日", J_AGEWORD },
	{ "昨日", J_AGEWORD }, { "今朝", J_AGEWORD }, { "昨夜", J_AGEWORD }, { "現在", J_AGEWORD },
	{ "曜日", J_WDAY }, { "曜", J_WDAY },
	{ "年", J_YEAR }, { "月", J_MONTH }, { "日", J_DAY }, { "時", J_HOUR }, { "分", J_MIN },
	{ "秒", J_SEC }, { "週", J_WEEK }, { "前", J_AGO }, { "後", J_LATER }, { "約", J_ABOUT },
	{ "頃", J_MOD }, { "弱", J_MOD }, { "強", J_MOD }, { "火", J_WDAY }, { "水", J_WDAY },
	{ "木", J_WDAY }, { "金", J_WDAY }, { "土", J_WDAY }, { "祝", J_WDAY }, { "・", J_WDAY },
	{ NULL, 0 }
};

typedef struct item {
	int type;
	int id;            /* I_JP: J_*; I_SEP: the ASCII character */
	int64_t v;         /* I_NUM: value (capped) */
	int digits;        /* I_NUM */
	char w[12];        /* I_WORD: lowercased, cut */
} item;

typedef struct lexed {
	item it[MAX_ITEMS];
	int n;
} lexed;

/* ---- lexing ------------------------------------------------------------------- */

static size_t digit_at(const unsigned char *s, size_t n, int *d)
{
	if (*s >= '0' && *s <= '9') {
		*d = *s - '0';
		return 1;
	}
	if (n >= 3 && s[0] == 0xEF && s[1] == 0xBC && s[2] >= 0x90 && s[2] <= 0x99) {
		*d = s[2] - 0x90;
		return 3;
	}
	return 0;
}

/* A separator: ASCII, or its full-width form (U+FF01..FF5E is ASCII + 0xFEE0),
 * or a space (U+3000 too); *c gets its ASCII form. */
static size_t sep_at(const unsigned char *s, size_t n, int *c)
{
	static const char seps[] = " \t\r\n-/.:,+()[]";

	if (*s < 0x80) {
		*c = *s == '\t' || *s == '\r' || *s == '\n' ? ' ' : *s;
		return *s && strchr(seps, *s) ? 1 : 0;
	}
	if (n >= 3 && s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80) {
		*c = ' ';
		return 3;
	}
	if (n >= 3 && s[0] == 0xEF && (s[1] == 0xBC || s[1] == 0xBD)) {
		unsigned cp = (unsigned)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
		int a = (int)(0xF000u + cp - 0xFEE0u);   /* U+FFxx - 0xFEE0 */

		if (a > 0 && a < 0x80 && strchr(seps, a)) {
			*c = a;
			return 3;
		}
	}
	return 0;
}

static int is_alpha(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* One item at s, or 0 bytes when none starts there. */
static size_t lex_one(const unsigned char *s, size_t n, item *it)
{
	size_t k, i;
	int d, c;

	memset(it, 0, sizeof *it);
	if ((k = digit_at(s, n, &d))) {
		it->type = I_NUM;
		for (i = 0; i < n && (k = digit_at(s + i, n - i, &d)); i += k) {
			if (it->v < INT64_C(100000000000000000))   /* capped, never overflows */
				it->v = it->v * 10 + d;
			it->digits++;
		}
		return i;
	}
	/* "a.m.", "p.m.": one word */
	if (n >= 4 && ((s[0] | 0x20) == 'a' || (s[0] | 0x20) == 'p') && s[1] == '.' && (s[2] | 0x20) == 'm' &&
	    s[3] == '.') {
		it->type = I_WORD;
		it->w[0] = (char)(s[0] | 0x20);
		it->w[1] = 'm';
		return 4;
	}
	if (is_alpha(*s)) {
		it->type = I_WORD;
		for (i = 0; i < n && is_alpha(s[i]); i++)
			if (i + 1 < sizeof it->w)
				it->w[i] = (char)(s[i] | 0x20);
		return i;
	}
	if (*s == 0xC2 && n >= 2 && s[1] == 0xB5 && n >= 3 && (s[2] | 0x20) == 's') {   /* µs */
		it->type = I_WORD;
		memcpy(it->w, "us", 2);
		return 3;
	}
	if ((k = sep_at(s, n, &c))) {
		it->type = I_SEP;
		it->id = c;
		/* spaces collapse */
		while (c == ' ' && k < n && (i = sep_at(s + k, n - k, &d)) && d == ' ')
			k += i;
		return k;
	}
	for (const jp_item *j = jp_items; j->s; j++) {
		size_t l = strlen(j->s);

		if (l <= n && memcmp(s, j->s, l) == 0) {
			it->type = I_JP;
			it->id = j->id;
			return l;
		}
	}
	return 0;
}

static void lex(const char *s, size_t n, lexed *x)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	if (n > ANT_CLOCK_MAX_READ)
		n = ANT_CLOCK_MAX_READ;
	x->n = 0;
	while (i < n && x->n < MAX_ITEMS && (k = lex_one(p + i, n - i, &x->it[x->n])))
		i += k, x->n++;
}

/* ---- items ---------------------------------------------------------------------- */

static const item *at(const lexed *x, int i)
{
	static const item none = { -1, 0, 0, 0, "" };

	return i >= 0 && i < x->n ? &x->it[i] : &none;
}

static int is_num(const lexed *x, int i, int lo, int hi)
{
	const item *t = at(x, i);

	return t->type == I_NUM && t->digits >= lo && t->digits <= hi;
}

static int is_sep(const lexed *x, int i, int c)
{
	return at(x, i)->type == I_SEP && at(x, i)->id == c;
}

static int is_jp(const lexed *x, int i, int id)
{
	return at(x, i)->type == I_JP && at(x, i)->id == id;
}

static int is_word(const lexed *x, int i, const char *w)
{
	return at(x, i)->type == I_WORD && strcmp(at(x, i)->w, w) == 0;
}

/* Spaces and commas skipped from i. */
static int skip_sp(const lexed *x, int i)
{
	while (is_sep(x, i, ' ') || is_sep(x, i, ','))
		i++;
	return i;
}

static int in_table(const char *w, const char *const *tab)
{
	for (; *tab; tab++)
		if (strcmp(w, *tab) == 0)
			return (int)1;
	return 0;
}

/* 1..12 for an English month name or abbreviation, 0 otherwise. */
static int month_of(const item *t)
{
	static const char *const names[] = { "january", "february", "march", "april", "may", "june", "july",
					     "august", "september", "october", "november", "december" };

	if (t->type != I_WORD || strlen(t->w) < 3)
		return 0;
	for (int m = 0; m < 12; m++)
		if (strncmp(names[m], t->w, strlen(t->w)) == 0 || (m == 8 && strcmp(t->w, "sept") == 0))
			return m + 1;
	return 0;
}

static int weekday_word(const item *t)
{
	static const char *const days[] = { "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
					    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
					    "sunday", NULL };

	return t->type == I_WORD && in_table(t->w, days);
}

/* ---- ages and timings -------------------------------------------------------------- */

enum { U_NONE, U_SUBSEC, U_SEC, U_MIN, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_YEAR };

static int en_unit(const item *t)
{
	static const struct { const char *w; int u; } units[] = {
		{ "ms", U_SUBSEC }, { "msec", U_SUBSEC }, { "msecs", U_SUBSEC }, { "us", U_SUBSEC },
		{ "ns", U_SUBSEC }, { "millisecond", U_SUBSEC }, { "milliseconds", U_SUBSEC },
		{ "s", U_SEC }, { "sec", U_SEC }, { "secs", U_SEC }, { "second", U_SEC }, { "seconds", U_SEC },
		{ "m", U_MIN }, { "min", U_MIN }, { "mins", U_MIN }, { "minute", U_MIN }, { "minutes", U_MIN },
		{ "h", U_HOUR }, { "hr", U_HOUR }, { "hrs", U_HOUR }, { "hour", U_HOUR }, { "hours", U_HOUR },
		{ "d", U_DAY }, { "day", U_DAY }, { "days", U_DAY }, { "w", U_WEEK }, { "week", U_WEEK },
		{ "weeks", U_WEEK }, { "month", U_MONTH }, { "months", U_MONTH }, { "y", U_YEAR },
		{ "yr", U_YEAR }, { "yrs", U_YEAR }, { "year", U_YEAR }, { "years", U_YEAR },
	};

	if (t->type != I_WORD)
		return U_NONE;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strcmp(t->w, units[i].w) == 0)
			return units[i].u;
	return U_NONE;
}

static int jp_unit(const item *t)
{
	if (t->type != I_JP)
		return U_NONE;
	switch (t->id) {
	case J_MSEC: return U_SUBSEC;
	case J_SEC: return U_SEC;
	case J_MIN: return U_MIN;
	case J_HOUR: return U_HOUR;
	case J_DAY: return U_DAY;
	case J_WEEK: return U_WEEK;
	case J_MONTH: return U_MONTH;
	case J_YEAR: return U_YEAR;
	}
	return U_NONE;
}

/* Words that are an age on their own, and words that may stand before one. */
static const char *const age_words[] = {
	"now", "current", "today", "yesterday", "tomorrow", "moments", "just", "right", NULL
};
static const char *const age_lead[] = { "about", "over", "almost", "nearly", "under", "less", "than", "around",
					"approximately", "in", NULL };
static const char *const articles[] = { "a", "an", "one", "few", "several", "some", NULL };

/* After a number and its unit (at i): an age ("ago", 前, "from now"),
 * or 0. */
static int age_tail(const lexed *x, int i)
{
	while (is_jp(x, i, J_MOD))
		i++;
	if (is_jp(x, i, J_AGO) || is_jp(x, i, J_LATER))
		return 1;
	i = skip_sp(x, i);
	if (is_sep(x, i, '.'))
		i = skip_sp(x, i + 1);   /* "3 min. ago" */
	return is_word(x, i, "ago") || (is_word(x, i, "from") && is_word(x, skip_sp(x, i + 1), "now"));
}

/* A number (with a fraction: *frac) at i; the index after it. */
static int number(const lexed *x, int i, int *frac)
{
	*frac = 0;
	if (!is_num(x, i, 1, 19))
		return NOT_HERE;
	i++;
	if ((is_sep(x, i, '.') || is_sep(x, i, ',')) && is_num(x, i + 1, 1, 19) && !is_sep(x, i + 2, '.')) {
		*frac = 1;
		i += 2;
	}
	return i;
}

/* Does the text before a number of seconds say it is a timing ("generated
 * in", "took", "処理時間")?  Its last words, spaces and colons left out. */
static int timing_words(const char *before, size_t nb)
{
	static const char *const words[] = { "in", "took", "time", "elapsed", "処理時間", "生成時間", "実行時間",
					     "応答時間", "所要時間", "で生成", NULL };
	size_t n = nb;

	while (n && (before[n - 1] == ' ' || before[n - 1] == ':' || before[n - 1] == '='))
		n--;
	for (const char *const *w = words; *w; w++) {
		size_t k = strlen(*w);

		if (k <= n && memcmp(before + n - k, *w, k) == 0 &&
		    (k == n || (unsigned char)**w >= 0x80 || !is_alpha((unsigned char)before[n - k - 1])))
			return 1;
	}
	return 0;
}

/* "3分前", "約2時間前", "2 hours ago", "just now", "a minute ago", "0.003 s",
 * "処理時間 0.01秒": an AGE or a DURATION, or NONE. */
static int age_or_timing(const lexed *x, const char *before, size_t nb)
{
	int i = 0, frac, u, lead = 0;

	while (is_jp(x, i, J_ABOUT) || (at(x, i)->type == I_WORD && in_table(at(x, i)->w, age_lead))) {
		lead |= is_word(x, i, "in");
		i = skip_sp(x, i + 1);
	}
	if (is_jp(x, i, J_AGEWORD))
		return ANT_CLOCK_AGE;
	if (at(x, i)->type == I_WORD && in_table(at(x, i)->w, age_words) &&
	    (!is_word(x, i, "just") || is_word(x, skip_sp(x, i + 1), "now")) &&
	    (!is_word(x, i, "right") || is_word(x, skip_sp(x, i + 1), "now")) &&
	    (!is_word(x, i, "moments") || is_word(x, skip_sp(x, i + 1), "ago")))
		return ANT_CLOCK_AGE;
	if (at(x, i)->type == I_WORD && in_table(at(x, i)->w, articles)) {
		int j = skip_sp(x, i + 1);

		if (is_word(x, j, "few"))
			j = skip_sp(x, j + 1);
		if (en_unit(at(x, j)) > U_SUBSEC && age_tail(x, j + 1))
			return ANT_CLOCK_AGE;
		return ANT_CLOCK_NONE;
	}
	if ((i = number(x, i, &frac)) < 0)
		return ANT_CLOCK_NONE;
	if (is_sep(x, i, ' ') && at(x, i + 1)->type == I_WORD)
		i++;
	if ((u = en_unit(at(x, i))) == U_NONE && (u = jp_unit(at(x, i))) == U_NONE)
		return ANT_CLOCK_NONE;
	if (age_tail(x, i + 1))
		return ANT_CLOCK_AGE;
	/* a timing: under a second, a fraction of seconds, or "in N seconds" */
	if (u == U_SUBSEC || (u == U_SEC && (frac || lead || timing_words(before, nb))))
		return ANT_CLOCK_DURATION;
	return ANT_CLOCK_NONE;
}

/* ---- dates and times --------------------------------------------------------------- */

typedef struct when {
	int64_t y;
	int mo, d;          /* 0: no date */
	int h, mi, s;       /* h < 0: no time */
	int64_t prec;
	int zoned;
	int zone;           /* seconds east of UTC */
} when;

/* An offset or zone name at i ("Z", "GMT", "+09:00", "+0900", "JST"):
 * the index after it, or i when none. */
static int zone(const lexed *x, int i, when *w)
{
	static const struct { const char *n; int off; } names[] = {
		{ "z", 0 }, { "gmt", 0 }, { "utc", 0 }, { "ut", 0 }, { "jst", 9 * 3600 }, { "kst", 9 * 3600 },
	};
	int j = is_sep(x, i, ' ') ? i + 1 : i;

	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (is_word(x, j, names[k].n)) {
			w->zoned = 1;
			w->zone = names[k].off;
			j++;
			if ((is_sep(x, j, '+') || is_sep(x, j, '-')) && is_num(x, j + 1, 1, 4))
				j = i;   /* "GMT+9": not read, the zone stays GMT's */
			return j;
		}
	if ((is_sep(x, i, '+') || is_sep(x, i, '-')) && is_num(x, i + 1, 2, 4)) {
		int64_t v = at(x, i + 1)->v, hh, mm;
		int k = i + 2;

		if (at(x, i + 1)->digits == 4) {
			hh = v / 100, mm = v % 100;
		} else {
			hh = v, mm = 0;
			if (is_sep(x, k, ':') && is_num(x, k + 1, 2, 2))
				mm = at(x, k + 1)->v, k += 2;
		}
		if (hh > 14 || mm > 59)
			return i;
		w->zoned = 1;
		w->zone = (int)((hh * 3600 + mm * 60) * (is_sep(x, i, '-') ? -1 : 1));
		return k;
	}
	return i;
}

/* A time of day at i: "10:15", "10:15:30", "午後3時5分", "3 pm", "10時";
 * the index after it (and its zone), or -1. */
static int time_of_day(const lexed *x, int i, when *w)
{
	int pm = -1, j;

	if (is_jp(x, i, J_AM) || is_jp(x, i, J_PM)) {
		pm = is_jp(x, i, J_PM);
		i = skip_sp(x, i + 1);
	}
	if (!is_num(x, i, 1, 2) || at(x, i)->v > 24)
		return NOT_HERE;
	w->h = (int)at(x, i)->v;
	w->mi = w->s = 0;
	w->prec = 3600;
	if (is_sep(x, i + 1, ':') && is_num(x, i + 2, 2, 2)) {
		w->mi = (int)at(x, i + 2)->v;
		w->prec = 60;
		j = i + 3;
		if (is_sep(x, j, ':') && is_num(x, j + 1, 2, 2)) {
			w->s = (int)at(x, j + 1)->v;
			w->prec = 1;
			j += 2;
			if ((is_sep(x, j, '.') || is_sep(x, j, ',')) && is_num(x, j + 1, 1, 9))
				j += 2;
		}
	} else if (is_jp(x, i + 1, J_HOUR)) {
		j = i + 2;
		if (is_num(x, j, 1, 2) && is_jp(x, j + 1, J_MIN)) {
			w->mi = (int)at(x, j)->v;
			w->prec = 60;
			j += 2;
			if (is_num(x, j, 1, 2) && is_jp(x, j + 1, J_SEC)) {
				w->s = (int)at(x, j)->v;
				w->prec = 1;
				j += 2;
			}
		}
	} else if (pm < 0 && (is_word(x, skip_sp(x, i + 1), "am") || is_word(x, skip_sp(x, i + 1), "pm"))) {
		j = i + 1;
	} else {
		return NOT_HERE;
	}
	if (pm < 0) {
		int k = skip_sp(x, j);

		if (is_word(x, k, "am") || is_word(x, k, "pm")) {
			pm = is_word(x, k, "pm");
			j = k + 1;
		}
	}
	if (pm >= 0) {
		if (w->h > 12)
			return NOT_HERE;
		w->h = w->h % 12 + (pm ? 12 : 0);
	}
	if (w->mi > 59 || w->s > 60 || (w->h == 24 && (w->mi || w->s)))
		return NOT_HERE;
	return zone(x, j, w);
}

/* The date's time of day after it (at i: " 10:15", "T10:15Z", "、午後3時"). */
static void date_time_tail(const lexed *x, int i, when *w)
{
	int j;

	w->h = -1;
	w->prec = 86400;
	i = skip_sp(x, i);
	/* a weekday between: "(水)", "（月・祝）", "水曜日", "Wed" */
	if (is_sep(x, i, '(')) {
		for (j = i + 1; j < i + 6 && !is_sep(x, j, ')'); j++)
			;
		if (is_sep(x, j, ')'))
			i = skip_sp(x, j + 1);
	} else if (is_jp(x, i, J_WDAY) || weekday_word(at(x, i))) {
		while (is_jp(x, i, J_WDAY) || weekday_word(at(x, i)))
			i++;
		i = skip_sp(x, i);
	}
	if (is_word(x, i, "t") || is_word(x, i, "at"))
		i = skip_sp(x, i + 1);
	if (time_of_day(x, i, w) < 0) {
		w->h = -1;
		w->prec = 86400;
	}
}

/* y-m-d from the numbers at i, i+2, i+4 in the order given ("ymd", "mdy", "dmy"). */
static int ymd(const lexed *x, int i, const char *order, when *w)
{
	int64_t v[3] = { at(x, i)->v, at(x, i + 2)->v, at(x, i + 4)->v };

	for (int k = 0; k < 3; k++) {
		if (order[k] == 'y')
			w->y = v[k];
		else if (order[k] == 'm')
			w->mo = (int)(v[k] > 12 ? 13 : v[k]);
		else
			w->d = (int)(v[k] > 31 ? 32 : v[k]);
	}
	return lb_date_valid(w->y, w->mo, w->d, 0, 0, 0);
}

/* The numeric and Japanese shapes: 2026-11-28, 2026/11/28, 28.11.2026,
 * 11/28/2026, 2026年11月28日, 11月28日, 11/28. */
static int date_numeric(const lexed *x, when *w)
{
	int sep = at(x, 1)->id;

	if (is_num(x, 0, 4, 4) && is_jp(x, 1, J_YEAR) && is_num(x, 2, 1, 2) && is_jp(x, 3, J_MONTH) &&
	    is_num(x, 4, 1, 2) && is_jp(x, 5, J_DAY)) {
		w->y = at(x, 0)->v, w->mo = (int)at(x, 2)->v, w->d = (int)at(x, 4)->v;
		date_time_tail(x, 6, w);
		return lb_date_valid(w->y, w->mo, w->d, 0, 0, 0);
	}
	if (is_num(x, 0, 1, 2) && is_jp(x, 1, J_MONTH) && is_num(x, 2, 1, 2) && is_jp(x, 3, J_DAY)) {
		w->y = 0, w->mo = (int)at(x, 0)->v, w->d = (int)at(x, 2)->v;
		date_time_tail(x, 4, w);
		return w->mo >= 1 && w->mo <= 12 && w->d >= 1 && w->d <= 31;
	}
	if (at(x, 1)->type != I_SEP || (sep != '-' && sep != '/' && sep != '.'))
		return 0;
	if (is_num(x, 0, 4, 4) && is_num(x, 2, 1, 2) && is_sep(x, 3, sep) && is_num(x, 4, 1, 2) &&
	    ymd(x, 0, "ymd", w)) {
		date_time_tail(x, 5, w);
		return 1;
	}
	if (is_num(x, 0, 1, 2) && is_num(x, 2, 1, 2) && is_sep(x, 3, sep) && is_num(x, 4, 4, 4)) {
		/* 28.11.2026 and 28-11-2026 are day first; 11/28/2026 month first
		 * unless it cannot be */
		if ((sep == '/' && at(x, 0)->v <= 12 && ymd(x, 0, "mdy", w)) || ymd(x, 0, "dmy", w)) {
			date_time_tail(x, 5, w);
			return 1;
		}
		return 0;
	}
	if (sep == '/' && is_num(x, 0, 1, 2) && is_num(x, 2, 1, 2) && !is_sep(x, 3, '/') && at(x, 0)->v >= 1 &&
	    at(x, 0)->v <= 12 && at(x, 2)->v >= 1 && at(x, 2)->v <= 31) {
		w->y = 0, w->mo = (int)at(x, 0)->v, w->d = (int)at(x, 2)->v;
		date_time_tail(x, 3, w);
		return 1;
	}
	return 0;
}

/* The English shapes: "Nov 28, 2026 10:15", "28 Nov 2026", "Sat, 28 Nov
 * 2026 10:15:00 GMT", "November 28". */
static int date_english(const lexed *x, when *w)
{
	int i = 0, m, j;

	if (weekday_word(at(x, 0))) {
		i = 1;
		if (is_sep(x, i, '.'))
			i++;
		i = skip_sp(x, i);
	}
	if ((m = month_of(at(x, i)))) {
		j = i + 1;
		if (is_sep(x, j, '.'))
			j++;
		j = skip_sp(x, j);
		if (!is_num(x, j, 1, 2))
			return 0;
		w->mo = m, w->d = (int)at(x, j)->v, w->y = 0;
		j++;
		if (at(x, j)->type == I_WORD && (is_word(x, j, "st") || is_word(x, j, "nd") || is_word(x, j, "rd") ||
						 is_word(x, j, "th")))
			j++;
		if (is_num(x, skip_sp(x, j), 4, 4))
			w->y = at(x, skip_sp(x, j))->v, j = skip_sp(x, j) + 1;
	} else if (is_num(x, i, 1, 2)) {
		j = i + 1;
		if (is_sep(x, j, '-'))
			j++;
		j = skip_sp(x, j);
		if (!(m = month_of(at(x, j))))
			return 0;
		w->mo = m, w->d = (int)at(x, i)->v, w->y = 0;
		j++;
		if (is_sep(x, j, '.'))
			j++;
		if (is_sep(x, j, '-'))
			j++;
		if (is_num(x, skip_sp(x, j), 4, 4))
			w->y = at(x, skip_sp(x, j))->v, j = skip_sp(x, j) + 1;
	} else {
		return 0;
	}
	date_time_tail(x, j, w);
	return w->d >= 1 && w->d <= 31 && (w->y == 0 || lb_date_valid(w->y, w->mo, w->d, 0, 0, 0));
}

/* A date without its year: the year that puts it nearest now. */
static int64_t nearest_year(const when *w, int64_t now)
{
	lb_tm tm;
	int64_t best = 0, bestd = INT64_MAX;

	lb_date_split(now, &tm);
	for (int64_t y = tm.year - 1; y <= tm.year + 1; y++) {
		int64_t t = lb_days_from_civil(y, w->mo, w->d) * 86400, d = t > now ? t - now : now - t;

		if (d < bestd)
			best = y, bestd = d;
	}
	return best;
}

static void as_time(const when *w, int64_t now, ant_clock *c)
{
	int64_t y = w->y ? w->y : nearest_year(w, now);

	c->kind = ANT_CLOCK_TIME;
	c->t = lb_days_from_civil(y, w->mo, w->d) * 86400;
	c->prec = 86400;
	if (w->h >= 0) {
		c->t += (int64_t)w->h * 3600 + w->mi * 60 + w->s;
		c->prec = w->prec;
	}
	c->zoned = w->zoned;
	if (w->zoned)
		c->t -= w->zone;
}

void ant_clock_read(const char *s, size_t n, const char *before, size_t nb, int64_t now, ant_clock *c)
{
	lexed x;
	when w;
	int kind;

	memset(c, 0, sizeof *c);
	memset(&w, 0, sizeof w);
	lex(s, n, &x);
	if (!x.n)
		return;
	if (date_numeric(&x, &w) || (memset(&w, 0, sizeof w), date_english(&x, &w))) {
		as_time(&w, now, c);
		return;
	}
	memset(&w, 0, sizeof w);
	if ((kind = age_or_timing(&x, before, nb)) != ANT_CLOCK_NONE) {
		c->kind = kind;
		return;
	}
	memset(&w, 0, sizeof w);
	if (time_of_day(&x, 0, &w) >= 0 && w.prec < 3600 + 1 && (w.prec < 3600 || is_jp(&x, 1, J_HOUR))) {
		c->kind = ANT_CLOCK_BARE;
		c->t = (int64_t)w.h * 3600 + w.mi * 60 + w.s;
		c->zoned = w.zoned;
		if (w.zoned)
			c->t = ((c->t - w.zone) % 86400 + 86400) % 86400;
		c->prec = w.prec;
		return;
	}
	/* a plain integer: not a part of "1,234", "1.4.2" or "2026-13-45" */
	if (x.it[0].type == I_NUM && !(at(&x, 1)->type == I_SEP && !is_sep(&x, 1, ' ') && is_num(&x, 2, 1, 19))) {
		c->kind = ANT_CLOCK_NUMBER;
		c->value = x.it[0].v;
		c->digits = x.it[0].digits;
	}
}

/* ---- marks and moves ----------------------------------------------------------------- */

enum { M_HASH, M_NUMBER, M_TIME, M_BARE };

uint32_t ant_clock_mark(const ant_clock *c, const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	switch (c->kind) {
	case ANT_CLOCK_TIME:
		return (uint32_t)M_TIME << MARK_BITS | ((uint32_t)(uint64_t)c->t & MARK_MASK);
	case ANT_CLOCK_BARE:
		return (uint32_t)M_BARE << MARK_BITS | (uint32_t)c->t;
	case ANT_CLOCK_NUMBER:
		return (uint32_t)M_NUMBER << MARK_BITS | ((uint32_t)(uint64_t)c->value & MARK_MASK);
	}
	for (size_t i = 0; i < n && i < ANT_CLOCK_MAX_READ; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h & MARK_MASK;
}

/* Does the local reading [t, t + prec) meet [lo, hi] at some offset east
 * of UTC in [-west, east]?  (UTC = local - offset.) */
static int meets(int64_t t, int64_t prec, int64_t lo, int64_t hi, int64_t west, int64_t east)
{
	int64_t a = t - hi, b = t + prec - lo;   /* offsets: a <= o < b */

	if (a < -west)
		a = -west;
	if (b > east + 1)
		b = east + 1;
	return a < b;
}

/* A time of day (seconds since midnight) within [lo, hi] on the circle of
 * a day, at an offset of whole quarter hours (every zone's). */
static int bare_meets(const ant_clock *c, int64_t lo, int64_t hi)
{
	int64_t span = hi - lo;

	if (span + c->prec >= 86400)
		return 1;
	for (int64_t o = c->zoned ? 0 : -ANT_CLOCK_TZ_WEST; o <= (c->zoned ? 0 : ANT_CLOCK_TZ_EAST); o += 900) {
		int64_t u = ((c->t - o - lo) % 86400 + 86400) % 86400;   /* from lo, forward */

		if (u <= span || u + c->prec > 86400)
			return 1;
	}
	return 0;
}

static int64_t mark_val(uint32_t m)
{
	return (int64_t)(m & MARK_MASK);
}

int ant_clock_moved(uint32_t was, const ant_clock *c, int64_t last, int64_t now)
{
	int64_t lo = last - ANT_CLOCK_SKEW, hi = now + ANT_CLOCK_SKEW, el = now - last, d;
	int tag = (int)(was >> MARK_BITS);

	if (last <= 0 || el < 0)
		return 0;
	switch (c->kind) {
	case ANT_CLOCK_AGE:
	case ANT_CLOCK_DURATION:
		return 1;
	case ANT_CLOCK_TIME:
		/* forward (within half the mark's range), and into the window */
		d = ((c->t & MARK_MASK) - mark_val(was)) & MARK_MASK;
		if (tag == M_TIME && d >= (int64_t)1 << (MARK_BITS - 1))
			return 0;
		return c->zoned ? meets(c->t, c->prec, lo, hi, 0, 0)
				: meets(c->t, c->prec, lo, hi, ANT_CLOCK_TZ_WEST, ANT_CLOCK_TZ_EAST);
	case ANT_CLOCK_BARE:
		if (tag == M_BARE && el + ANT_CLOCK_BARE_STEP < 86400) {
			d = ((c->t - mark_val(was)) % 86400 + 86400) % 86400;
			if (d > el + ANT_CLOCK_BARE_STEP)
				return 0;
		}
		return bare_meets(c, lo, hi);
	case ANT_CLOCK_NUMBER:
		/* a Unix time, in seconds or milliseconds */
		if (c->digits == 10 && c->value >= lo && c->value <= hi)
			return 1;
		if (c->digits == 13 && c->value / 1000 >= lo && c->value / 1000 <= hi)
			return 1;
		/* a count of seconds that went on with the clock */
		if (tag != M_NUMBER || c->value < 1000)
			return 0;
		d = ((c->value & MARK_MASK) - mark_val(was)) & MARK_MASK;
		return (d >= el - 5 - el / 100 && d <= el + 5 + el / 100);
	}
	return 0;
}
