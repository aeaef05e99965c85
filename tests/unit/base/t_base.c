/*
 * t_base.c: the base layer's one home per concept, as tables: UTF-8
 * (lb_utf8.h, RFC 3629), URL rules (lb_url.h, RFC 3986) and dates
 * (lb_date.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lb_date.h"
#include "lb_error.h"
#include "lb_num.h"
#include "lb_url.h"
#include "lb_utf8.h"
#include "tap.h"

#define S(s) (s), (sizeof(s) - 1)

/* ---- UTF-8 --------------------------------------------------------------- */

static void test_utf8_len(void)
{
	static const struct { const char *s; size_t n, want; uint32_t cp; const char *why; } t[] = {
		{ S("A"), 1, 'A', "ASCII is one byte" },
		{ "\0", 1, 1, 0, "NUL is a one-byte character (callers that mind test it)" },
		{ "", 0, 0, 0, "nothing left: 0" },
		{ S("\x7f"), 1, 0x7f, "DEL" },
		{ S("\xc2\x80"), 2, 0x80, "U+0080, the first two-byte one" },
		{ S("\xdf\xbf"), 2, 0x7ff, "U+07FF" },
		{ S("\xe0\xa0\x80"), 3, 0x800, "U+0800" },
		{ S("\xe3\x81\x82"), 3, 0x3042, "HIRAGANA A" },
		{ S("\xef\xbf\xbf"), 3, 0xffff, "U+FFFF (a noncharacter, but UTF-8)" },
		{ S("\xf0\x90\x80\x80"), 4, 0x10000, "U+10000" },
		{ S("\xf4\x8f\xbf\xbf"), 4, 0x10ffff, "U+10FFFF, the last" },
		{ S("\x80"), 0, 0, "a lone continuation byte" },
		{ S("\xbf"), 0, 0, "continuation 0xBF" },
		{ S("\xc0\x80"), 0, 0, "overlong NUL (C0 80)" },
		{ S("\xc1\xbf"), 0, 0, "overlong C1" },
		{ S("\xe0\x80\x80"), 0, 0, "overlong three-byte (E0 80 80)" },
		{ S("\xe0\x9f\xbf"), 0, 0, "overlong U+07FF in three bytes" },
		{ S("\xf0\x8f\xbf\xbf"), 0, 0, "overlong U+FFFF in four bytes" },
		{ S("\xed\xa0\x80"), 0, 0, "surrogate U+D800 (RFC 3629 §3)" },
		{ S("\xed\xbf\xbf"), 0, 0, "surrogate U+DFFF" },
		{ S("\xed\x9f\xbf"), 3, 0xd7ff, "U+D7FF, just below the surrogates" },
		{ S("\xf4\x90\x80\x80"), 0, 0, "U+110000, beyond Unicode" },
		{ S("\xf5\x80\x80\x80"), 0, 0, "lead F5" },
		{ S("\xff"), 0, 0, "byte FF" },
		{ S("\xc3"), 0, 0, "truncated two-byte" },
		{ S("\xe3\x81"), 0, 0, "truncated three-byte" },
		{ S("\xf0\x9f\x98"), 0, 0, "truncated four-byte" },
		{ "\xe3\x81\x82", 2, 0, 0, "n cuts a good sequence short" },
		{ S("\xe3\x41\x82"), 0, 0, "ASCII where a continuation should be" },
		{ S("\xe3\x81\xc3"), 0, 0, "a lead where a continuation should be" },
		{ "\xe3\0\x82", 3, 0, 0, "NUL inside a sequence stops it" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint32_t cp = 0xdead;
		size_t k = lb_utf8_decode(t[i].s, t[i].n, &cp);

		OK(k == t[i].want && lb_utf8_len(t[i].s, t[i].n) == k && (!k || cp == t[i].cp),
		   "utf8: %s (len %zu, U+%04X)", t[i].why, k, (unsigned)cp);
	}
}

/* RFC 3629 §3 read literally, bit by bit: the code point the bits give,
 * the shortest length for it, no surrogate, nothing above U+10FFFF.
 * Slow and obvious, the oracle for lb_utf8_len(). */
static size_t ref_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 :
		   (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	uint32_t c = k == 1 ? s[0] : k == 2 ? s[0] & 0x1Fu : k == 3 ? s[0] & 0x0Fu : s[0] & 0x07u;

	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3Fu);
	}
	if ((k == 2 && c < 0x80) || (k == 3 && c < 0x800) || (k == 4 && c < 0x10000) ||
	    (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
		return 0;
	return k;
}

static void test_utf8_oracle(void)
{
	unsigned char b[4];
	unsigned long bad = 0, tried = 0;

	/* every sequence of 1, 2 and 3 bytes, and every 4-byte one whose last
	 * two bytes are among a few that matter */
	for (unsigned x = 0; x < 0x1000000; x++) {
		b[0] = (unsigned char)(x >> 16);
		b[1] = (unsigned char)(x >> 8);
		b[2] = (unsigned char)x;
		for (size_t n = 1; n <= 3; n++, tried++)
			bad += lb_utf8_len((const char *)b, n) != ref_len(b, n);
	}
	for (unsigned x = 0; x < 0x10000; x++) {
		static const unsigned char tail[] = { 0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xFF };

		b[0] = (unsigned char)(x >> 8);
		b[1] = (unsigned char)x;
		for (size_t i = 0; i < sizeof tail; i++)
			for (size_t j = 0; j < sizeof tail; j++, tried++) {
				b[2] = tail[i];
				b[3] = tail[j];
				bad += lb_utf8_len((const char *)b, 4) != ref_len(b, 4);
			}
	}
	OK(bad == 0, "utf8: lb_utf8_len() agrees with RFC 3629 §3 bit by bit (%lu sequences, %lu differ)",
	   tried, bad);
}

static void test_utf8_valid(void)
{
	static const struct { const char *s; size_t n; int want; } t[] = {
		{ S(""), 1 },
		{ S("plain ASCII"), 1 },
		{ S("a\0b"), 1 },
		{ S("\xe6\x97\xa5\xe8\xa8\x98 diary"), 1 },
		{ S("\xe6\x97\xa5\xe8\xa8"), 0 },
		{ S("EUC-JP \xc6\xfc\xb5\xad"), 0 },
		{ S("\xed\xa0\x80\xed\xb0\x80"), 0 },   /* CESU-8 surrogate pair */
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		OK(lb_utf8_valid(t[i].s, t[i].n) == t[i].want, "utf8 valid: case %zu", i);
}

static void test_utf8_clip(void)
{
	static const struct { const char *s; size_t n, want; const char *why; } t[] = {
		{ S(""), 0, "empty" },
		{ S("abc"), 3, "ASCII: as it is" },
		{ S("a\xe3\x81\x82"), 4, "a whole character at the end" },
		{ S("a\xe3\x81"), 1, "two bytes of three: cut before the lead" },
		{ S("a\xe3"), 1, "a lone lead: cut" },
		{ S("\xf0\x9f\x98"), 0, "three bytes of four: nothing left" },
		{ S("\xc3\xa9\xc3"), 2, "cut after the last whole one" },
		{ S("a\x80\x80\x80\x80"), 5, "stray continuation bytes: left as they are" },
		{ S("\xe3\x81\x82\x80"), 4, "one continuation too many: left" },
		{ S("\xff\x80"), 0, "lead FF wants four: cut (malformed, never longer)" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		IS_INT(lb_utf8_clip(t[i].s, t[i].n), t[i].want, "utf8 clip: %s", t[i].why);
}

static void test_utf8_repair(void)
{
	static const struct { const char *s; size_t n; unsigned flags; const char *want; size_t bad, first; } t[] = {
		{ S("ok \xe3\x81\x82"), 0, "ok \xe3\x81\x82", 0, 99 },
		{ S("a\xe3\x81z"), 0, "a\xef\xbf\xbd\xef\xbf\xbdz", 2, 1 },
		{ S("\xc0\x80"), 0, "\xef\xbf\xbd\xef\xbf\xbd", 2, 0 },
		{ S("a\0b"), 0, "a", 0, 99 },                 /* NUL kept (compared by strcmp: "a") */
		{ S("a\0b"), LB_UTF8_NUL, "a\xef\xbf\xbd" "b", 1, 1 },
		{ S("ab\xed\xa0\x80"), 0, "ab\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3, 2 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		lb_buf b = LB_BUF_INIT;
		size_t first = 99, bad = lb_utf8_repair(&b, t[i].s, t[i].n, t[i].flags, &first);

		OK(bad == t[i].bad && first == t[i].first && strcmp(b.data, t[i].want) == 0,
		   "utf8 repair: case %zu (%zu bad, first at %zu)", i, bad, first);
		lb_buf_release(&b);
	}
	/* what page.c's and export.c's own copies did, now theirs: one U+FFFD a bad byte */
	{
		lb_buf b = LB_BUF_INIT;

		IS_INT(lb_utf8_repair(&b, S("\xe0\x80\x80x\xf0\x9f\x98"), 0, NULL), 6,
		       "utf8 repair: an overlong and a cut 4-byte sequence, one U+FFFD a byte");
		IS_STR(b.data, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		       "utf8 repair: the good byte between kept");
		lb_buf_release(&b);
	}
	IS_INT(lb_utf8_repair_len(S("ok \xe3\x81\x82"), LB_UTF8_NUL), 6, "utf8 repair len: all good");
	IS_INT(lb_utf8_repair_len(S("ab\xe3\x81"), 0), 2, "utf8 repair len: up to a cut character");
	IS_INT(lb_utf8_repair_len(S("a\0b"), 0), 3, "utf8 repair len: NUL kept without LB_UTF8_NUL");
	IS_INT(lb_utf8_repair_len(S("a\0b"), LB_UTF8_NUL), 1, "utf8 repair len: NUL stops with it");
	IS_INT(lb_utf8_repair_len("", 0, LB_UTF8_NUL), 0, "utf8 repair len: empty");
	{
		/* the 8-bytes-at-a-time ASCII path: the first byte to stop at is
		 * found at every place in and after a run of words */
		char b[40];
		int good = 1;

		for (size_t at = 0; at < 32; at++) {
			memset(b, 'x', sizeof b);
			b[at] = '\0';
			good &= lb_utf8_repair_len(b, sizeof b, LB_UTF8_NUL) == at;
			good &= lb_utf8_repair_len(b, sizeof b, 0) == sizeof b;
			b[at] = (char)0xff;
			good &= lb_utf8_repair_len(b, sizeof b, 0) == at;
			b[at] = 0x7f;
			good &= lb_utf8_repair_len(b, at + 1, LB_UTF8_NUL) == at + 1;
		}
		OK(good, "utf8 repair len: a NUL or a bad byte found at each of 32 places in ASCII words");
		memcpy(b, "0123456789abcdef\xe3\x81\x82xyz01234567\xe3\x81", 32);
		IS_INT(lb_utf8_repair_len(b, 32, LB_UTF8_NUL), 30, "utf8 repair len: words, a character, words, a cut one");
	}
}

/* ---- dates ---------------------------------------------------------------- */

static void test_days(void)
{
	static const struct { int64_t y; int m, d; int64_t days; const char *why; } t[] = {
		{ 1970, 1, 1, 0, "the epoch" },
		{ 1969, 12, 31, -1, "the day before" },
		{ 1970, 3, 1, 59, "1970 is not a leap year" },
		{ 1972, 3, 1, 790, "1972 is" },
		{ 2000, 2, 29, 11016, "2000: divisible by 400, leap" },
		{ 2000, 3, 1, 11017, "the day after 2000-02-29" },
		{ 1900, 3, 1, -25508, "1900: divisible by 100, not leap" },
		{ 2038, 1, 19, 24855, "the 32-bit time_t's last day" },
		{ 2100, 3, 1, 47541, "2100 is not a leap year" },
		{ 9999, 12, 31, 2932896, "the last four-digit year's last day" },
		{ 1, 1, 1, -719162, "0001-01-01" },
		{ 0, 3, 1, -719468, "0000-03-01, the algorithm's origin" },
		{ -1, 12, 31, -719529, "-0001-12-31, the day before year 0" },
		{ 0, 1, 1, -719528, "0000-01-01 (1 BC), a leap year" },
		{ -400, 1, 1, -865625, "-0400-01-01: one era (146097 days) before" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		lb_tm tm;

		IS_INT(lb_days_from_civil(t[i].y, t[i].m, t[i].d), t[i].days, "days: %s", t[i].why);
		lb_date_split(t[i].days * 86400 + 3723, &tm);
		OK(tm.year == t[i].y && tm.mon == t[i].m && tm.mday == t[i].d && tm.hour == 1 &&
		   tm.min == 2 && tm.sec == 3, "split: %s (%lld-%d-%d)", t[i].why, (long long)tm.year,
		   tm.mon, tm.mday);
	}
}

static void test_split(void)
{
	lb_tm tm;
	int ok = 1;

	lb_date_split(-1, &tm);
	OK(tm.year == 1969 && tm.mon == 12 && tm.mday == 31 && tm.hour == 23 && tm.min == 59 &&
	   tm.sec == 59 && tm.wday == 3, "split: one second before the epoch is a Wednesday");
	lb_date_split(0, &tm);
	OK(tm.wday == 4, "split: the epoch was a Thursday");
	lb_date_split(INT64_C(2147483648), &tm);
	OK(tm.year == 2038 && tm.mon == 1 && tm.mday == 19 && tm.hour == 3 && tm.min == 14 &&
	   tm.sec == 8 && tm.wday == 2, "split: 2^31 is 2038-01-19T03:14:08Z, a Tuesday");
	lb_date_split(INT64_MIN, &tm);
	OK(tm.year < -292000000000 && lb_date_imf((char[30]){ 0 }, INT64_MIN) < 0,
	   "split: INT64_MIN is a year near -2.9e11, no IMF-fixdate");
	lb_date_split(INT64_MAX, &tm);
	OK(tm.year > 292000000000 && tm.hour == 15 && tm.min == 30 && tm.sec == 7,
	   "split: INT64_MAX is a year near 2.9e11, 15:30:07");
	/* every day from 1900 to 2100 goes and comes back */
	for (int64_t d = -25567; d <= 47482 && ok; d++) {
		lb_date_split(d * 86400, &tm);
		ok = lb_days_from_civil(tm.year, tm.mon, tm.mday) == d &&
		     lb_date_valid(tm.year, tm.mon, tm.mday, 0, 0, 0) && tm.wday == (int)(((d + 4) % 7 + 7) % 7);
	}
	OK(ok, "split and days_from_civil agree on every day of 1900-2100");
}

static void test_valid(void)
{
	static const struct { int64_t y; int mo, d, h, mi, s, want; } t[] = {
		{ 2024, 2, 29, 0, 0, 0, 1 }, { 2023, 2, 29, 0, 0, 0, 0 }, { 1900, 2, 29, 0, 0, 0, 0 },
		{ 2000, 2, 29, 0, 0, 0, 1 }, { 2024, 4, 31, 0, 0, 0, 0 }, { 2024, 12, 31, 23, 59, 60, 1 },
		{ 2024, 13, 1, 0, 0, 0, 0 }, { 2024, 0, 1, 0, 0, 0, 0 }, { 2024, 1, 0, 0, 0, 0, 0 },
		{ 2024, 1, 1, 24, 0, 0, 0 }, { 2024, 1, 1, 0, 60, 0, 0 }, { 2024, 1, 1, 0, 0, 61, 0 },
		{ 2024, 1, 1, -1, 0, 0, 0 }, { -4, 2, 29, 0, 0, 0, 1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		OK(lb_date_valid(t[i].y, t[i].mo, t[i].d, t[i].h, t[i].mi, t[i].s) == t[i].want,
		   "valid: %lld-%02d-%02d %02d:%02d:%02d is %s", (long long)t[i].y, t[i].mo, t[i].d,
		   t[i].h, t[i].mi, t[i].s, t[i].want ? "a time" : "none");
}

/* lb_date_parse_imf: what lb_date_imf writes comes back, every other
 * spelling is refused (the caller's general parser takes those). */
static void test_parse_imf(void)
{
	static const struct { const char *s; int want; int64_t t; } t[] = {
		{ "Sun, 06 Nov 1994 08:49:37 GMT", 1, 784111777 },
		{ "sun, 06 nov 1994 08:49:37 GMT", 1, 784111777 },
		{ "Mon, 06 Nov 1994 08:49:37 GMT", 1, 784111777 },   /* weekday not judged */
		{ "Thu, 01 Jan 1970 00:00:00 GMT", 1, 0 },
		{ "Tue, 19 Jan 2038 03:14:08 GMT", 1, INT64_C(2147483648) },
		{ "Sun, 6 Nov 1994 08:49:37 GMT", 0, 0 },            /* 28 bytes */
		{ "Sunday, 06-Nov-94 08:49:37 GMT", 0, 0 },          /* RFC 850 */
		{ "Sun Nov  6 08:49:37 1994", 0, 0 },                /* asctime */
		{ "Sun, 06 Nov 1994 08:49:37 UTC", 0, 0 },
		{ "Sun, 31 Feb 1994 08:49:37 GMT", 0, 0 },
		{ "Sun, 06 Xyz 1994 08:49:37 GMT", 0, 0 },
		{ "Sun, 06 Nov 1994 24:49:37 GMT", 0, 0 },
		{ "Sun, 0x Nov 1994 08:49:37 GMT", 0, 0 },
		{ "Sun, 06 Nov 1994 08:49:3 GMTx", 0, 0 },
		{ "1,2 06 Nov 1994 08:49:37 GMT", 0, 0 },
	};
	char b[30];
	int64_t v;
	int ok = 1;

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		v = -1;
		OK(lb_date_parse_imf(t[i].s, strlen(t[i].s), &v) == t[i].want && (!t[i].want || v == t[i].t),
		   "parse_imf: \"%s\" is %s", t[i].s, t[i].want ? "that time" : "refused");
	}
	OK(!lb_date_parse_imf(NULL, 29, &v), "parse_imf: NULL refused");
	/* every hour of 1900-2100 through the writer and back */
	for (int64_t s = -2208988800; s < INT64_C(4102444800) && ok; s += 3599)
		ok = lb_date_imf(b, s) == 0 && lb_date_parse_imf(b, 29, &v) == 1 && v == s;
	OK(ok, "parse_imf: lb_date_imf's every hour of 1900-2100 comes back");
}

static void test_month(void)
{
	static const struct { const char *s; int want; } t[] = {
		{ "Jan", 1 }, { "dec", 12 }, { "SEP", 9 }, { "Sept", 9 }, { "Nov.", 11 },
		{ "Ja", 0 }, { "", 0 }, { "Foo", 0 }, { "J@n", 0 }, { "1an", 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		IS_INT(lb_date_month(t[i].s), t[i].want, "month: '%s'", t[i].s);
}

static void test_format(void)
{
	static const struct { int64_t t; const char *iso, *imf; } t[] = {
		{ 0, "1970-01-01T00:00:00", "Thu, 01 Jan 1970 00:00:00 GMT" },
		{ 784111777, "1994-11-06T08:49:37", "Sun, 06 Nov 1994 08:49:37 GMT" },
		{ 951782400, "2000-02-29T00:00:00", "Tue, 29 Feb 2000 00:00:00 GMT" },
		{ INT64_C(2147483647), "2038-01-19T03:14:07", "Tue, 19 Jan 2038 03:14:07 GMT" },
		{ INT64_C(253402300799), "9999-12-31T23:59:59", "Fri, 31 Dec 9999 23:59:59 GMT" },
		{ -1, "1969-12-31T23:59:59", "Wed, 31 Dec 1969 23:59:59 GMT" },
		{ INT64_C(-62167219200), "0000-01-01T00:00:00", "Sat, 01 Jan 0000 00:00:00 GMT" },
		{ INT64_C(253402300800), NULL, NULL },
		{ INT64_C(-62167219201), NULL, NULL },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char iso[20] = "untouched", imf[30] = "untouched";
		lb_tm tm;

		lb_date_split(t[i].t, &tm);
		if (t[i].iso) {
			OK(lb_date_iso(iso, &tm) == 0 && strcmp(iso, t[i].iso) == 0, "iso: %s", iso);
			OK(lb_date_imf(imf, t[i].t) == 0 && strcmp(imf, t[i].imf) == 0, "imf: %s", imf);
		} else {
			OK(lb_date_iso(iso, &tm) < 0 && strcmp(iso, "untouched") == 0 &&
			   lb_date_imf(imf, t[i].t) < 0 && strcmp(imf, "untouched") == 0,
			   "year %lld is not four digits: -1, nothing written", (long long)tm.year);
		}
	}
}

/* ---- URLs ------------------------------------------------------------------ */

static void test_scheme(void)
{
	static const struct { const char *u; size_t len, prefix; unsigned port; } t[] = {
		{ "http://a.example/", 4, 7, 80 },
		{ "HTTPS://a.example/", 5, 8, 443 },
		{ "hTtP://a.example", 4, 7, 80 },
		{ "http:relative", 4, 0, 80 },          /* a scheme, but not "//" */
		{ "http:/one-slash", 4, 0, 80 },
		{ "http:", 4, 0, 80 },
		{ "https+x://a/", 7, 0, 0 },
		{ "svn+ssh://h/r", 7, 0, 0 },
		{ "web+app://x", 7, 0, 0 },
		{ "a.b-c://x", 5, 0, 0 },
		{ "file:///tmp/x", 4, 0, 0 },
		{ "javascript:alert(1)", 10, 0, 0 },
		{ "urn:isbn:0", 3, 0, 0 },
		{ "httpx://a/", 5, 0, 0 },
		{ "1http://a/", 0, 0, 0 },             /* a scheme starts with a letter */
		{ "+x://a", 0, 0, 0 },
		{ "h ttp://a", 0, 0, 0 },
		{ "/path:with:colons", 0, 0, 0 },
		{ "page.html", 0, 0, 0 },
		{ "://a", 0, 0, 0 },
		{ "", 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		size_t n = lb_url_scheme_len(t[i].u);

		OK(n == t[i].len && lb_url_http_prefix(t[i].u) == t[i].prefix &&
		   lb_url_http_port(t[i].u, n) == t[i].port, "scheme: '%s' (%zu, prefix %zu, port %u)",
		   t[i].u, n, lb_url_http_prefix(t[i].u), lb_url_http_port(t[i].u, n));
	}
}

static void test_is_http(void)
{
	static const struct { const char *u; int want; } t[] = {
		{ "http://example.com/", 1 },
		{ "HTTPS://example.com", 1 },
		{ "http://user@example.com:8080/a?b#c", 1 },
		{ "http://[::1]:80/", 1 },
		{ "http://example.com:/", 1 },               /* empty port: the default */
		{ "http://example.com?q", 1 },
		{ "http://\xe4\xbe\x8b.jp/", 1 },         /* raw UTF-8 host (an IRI) */
		{ "ftp://example.com/", 0 },
		{ "/relative/path", 0 },
		{ "http:///path", 0 },
		{ "http://:80/", 0 },
		{ "http://user@/", 0 },
		{ "http://[]/", 0 },
		{ "http://[::1/", 0 },
		{ "http://[::1]x/", 0 },
		{ "http://example.com:80x/", 0 },
		{ "http://exa mple.com/", 0 },
		{ "http://example.com/a\tb", 0 },
		{ "http://example.com/\x7f", 0 },
		{ "http:example.com", 0 },
		{ "", 0 },
		{ "0", 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		IS_INT(lb_url_is_http(t[i].u), t[i].want, "is_http: '%s'", t[i].u);
}

/* lb_url_key_dup(): the one malloc'd key (the commands' and the import's) */
static void test_key_dup(void)
{
	char *k = lb_url_key_dup("HTTP://Example.JP:80");
	lb_buf b = LB_BUF_INIT;

	IS_STR(k, "http://example.jp/", "key_dup: the key of a URL");
	free(k);
	k = lb_url_key_dup("https://A.example:443/x?Q");
	lb_url_key(&b, "https://A.example:443/x?Q");
	IS_STR(k, b.data, "key_dup: the same as lb_url_key()");
	free(k);
	lb_buf_release(&b);
}

/* lb_num_int64(): the one reading of an integer (options, settings) */
static void test_num(void)
{
	static const struct { const char *s; int64_t min, max; int rc; int64_t v; } t[] = {
		{ "42", 0, 100, 0, 42 }, { "+7", 0, 100, 0, 7 }, { "-3", -5, 5, 0, -3 },
		{ "-9223372036854775808", INT64_MIN, INT64_MAX, 0, INT64_MIN },
		{ "101", 0, 100, LB_ETOOBIG, 0 }, { "99999999999999999999", 0, 100, LB_ETOOBIG, 0 },
		{ "99999999999999999999x", 0, 100, LB_EINVAL, 0 }, { "", 0, 100, LB_EINVAL, 0 },
		{ "-", 0, 100, LB_EINVAL, 0 }, { "1 ", 0, 100, LB_EINVAL, 0 }, { "0x10", 0, 100, LB_EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		int64_t v = 0;
		int rc = lb_num_int64(t[i].s, t[i].min, t[i].max, &v);

		IS_INT(rc, t[i].rc, "num: '%s' in [%lld, %lld]", t[i].s, (long long)t[i].min,
		       (long long)t[i].max);
		if (t[i].rc == 0)
			IS_INT(v == t[i].v, 1, "num: ... reads %lld", (long long)t[i].v);
	}
}

int main(void)
{
	TAP_PLAN(200 + 11 + 4 + 2);
	test_days();
	test_split();
	test_valid();
	test_month();
	test_parse_imf();
	test_format();
	test_scheme();
	test_is_http();
	test_key_dup();
	test_num();
	test_utf8_len();
	test_utf8_oracle();
	test_utf8_valid();
	test_utf8_clip();
	test_utf8_repair();
	TAP_DONE();
}
