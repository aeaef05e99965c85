/*
 * t_term.c: lb_term (src/base/term.c): outside text made safe for a
 * terminal.  A table of the attacks seen (clear screen, window title,
 * a fake line, bidi reversal, C1 CSI), then a property over random bytes:
 * what comes out holds no control byte, no C1 or bidi control, and is
 * well-formed UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lb_term.h"
#include "lb_utf8.h"
#include "tap.h"

static const struct { const char *in, *want, *what; } cases[] = {
	{ "plain title", "plain title", "ASCII text is kept" },
	{ "日記 ①", "日記 ①", "UTF-8 text is kept" },
	{ "\x1b[2J\x1b[Hall ok", "\\x1B[2J\\x1B[Hall ok", "clear screen and cursor home are shown, not obeyed" },
	{ "\x1b]0;owned\x07", "\\x1B]0;owned\\x07", "a window-title sequence (OSC ... BEL) is shown" },
	{ "a\r\nok: 0 failed", "a\\r\\nok: 0 failed", "CR and LF cannot start a fake line" },
	{ "tab\there", "tab\\there", "TAB is shown as \\t" },
	{ "del\x7f", "del\\x7F", "DEL is shown" },
	{ "\xc2\x9b" "31m", "\\u009B31m", "a C1 CSI (U+009B) is shown" },
	{ "abc\xe2\x80\xae" "fed", "abc\\u202Efed", "a right-to-left override is shown" },
	{ "\xe2\x81\xa6x", "\\u2066x", "a bidi isolate is shown" },
	{ "bad\xff\xfe", "bad\\xFF\\xFE", "bytes that are not UTF-8 are shown" },
	{ "cut\xe6\x97", "cut\\xE6\\x97", "a cut multi-byte character is shown byte by byte" },
	{ "", "", "the empty text stays empty" },
};

static int safe(const char *s, size_t n)
{
	size_t i = 0, k;
	uint32_t cp;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7F)
			return 0;
		k = lb_utf8_decode(s + i, n - i, &cp);
		if (k == 0 || (cp >= 0x80 && cp <= 0x9F) || cp == 0x202E || cp == 0x2066)
			return 0;
		i += k;
	}
	return 1;
}

int main(void)
{
	size_t ncases = sizeof cases / sizeof cases[0], i, j;
	lb_buf b = LB_BUF_INIT;
	int bad = 0;

	TAP_PLAN((int)ncases + 4);
	for (i = 0; i < ncases; i++)
		IS_STR(lb_term(&b, cases[i].in), cases[i].want, "%s", cases[i].what);
	OK(lb_term(&b, NULL) == NULL, "NULL stays NULL");
	lb_buf_reset(&b);
	IS_INT(lb_term_add(&b, "a\0b", 3), 0, "lb_term_add takes a length: 0");
	IS_STR(b.data, "a\\x00b", "a NUL inside the text is shown");
	/* The property: 20,000 random texts of up to 64 bytes, biased towards
	 * the bytes that matter (controls, UTF-8 leads, C1 and bidi pieces). */
	srand(20261126);
	for (i = 0; i < 20000 && !bad; i++) {
		static const unsigned char pick[] = { 0x1b, '\r', '\n', 0x07, 0x7f, 0xc2, 0x9b, 0xe2, 0x80,
						      0xae, 0x81, 0xa6, 0xe6, 0x97, 0xa5, 'a', '\\', 0xff };
		char in[64];
		size_t n = (size_t)rand() % sizeof in;
		for (j = 0; j < n; j++)
			in[j] = (char)(rand() % 2 ? pick[rand() % sizeof pick] : rand() % 256);
		lb_buf_reset(&b);
		if (lb_term_add(&b, in, n) < 0 || !safe(b.data, b.len))
			bad = 1;
	}
	OK(!bad, "20,000 random texts: no control byte, C1 or bidi control comes out, and it is UTF-8");
	lb_buf_release(&b);
	TAP_DONE();
}
