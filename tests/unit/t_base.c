/*
 * t_base.c: the base layer's one home per concept, as tables: UTF-8
 * (lb_utf8.h, RFC 3629), URL rules (lb_url.h, RFC 3986) and dates
 * (lb_date.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lb_buf.h"
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
}

int main(void)
{
	test_utf8_len();
	test_utf8_valid();
	test_utf8_clip();
	test_utf8_repair();
	TAP_DONE();
}
