/*
 * fuzz_clock: libFuzzer target for the time-aware tokens (rules/clock.c,
 * ant_clock.h) and the token rule's blob (rules/tokens.c).  The input is
 * a page's text: each placeholder ant_noise_groups() finds in it is read
 * as a clock at two times, marked, and judged (ant_clock_moved()) against
 * the mark of the one before; a reading must stay within its bounds (a
 * BARE clock within a day, a precision one of four).  The same bytes are
 * also decoded as a token state: a blob that decodes encodes and decodes
 * again to the same keys, and a time-aware check against it runs.
 */
#include "ant_clock.h"
#include "ant_noise.h"
#include "ant_tokens.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void judge_text(const char *s, size_t n)
{
	ant_noise_group g[64];
	size_t ng = ant_noise_groups(s, n, g, 64);
	uint32_t prev = 0;
	const int64_t now = 1795829400, last = now - 3600;

	if (ng > 64)
		ng = 64;
	for (size_t i = 0; i < ng; i++) {
		ant_clock c, d;

		if (g[i].off > n || g[i].len > n - g[i].off)
			abort();
		ant_clock_read(s + g[i].off, n - g[i].off, s, g[i].off, now, &c);
		ant_clock_read(s + g[i].off, n - g[i].off, s, g[i].off, last, &d);
		if (c.kind == ANT_CLOCK_BARE && (c.t < 0 || c.t >= 86400))
			abort();
		if ((c.kind == ANT_CLOCK_TIME || c.kind == ANT_CLOCK_BARE) && c.prec != 1 && c.prec != 60 &&
		    c.prec != 3600 && c.prec != 86400)
			abort();
		(void)ant_clock_moved(prev, &c, last, now);
		(void)ant_clock_moved(ant_clock_mark(&d, s + g[i].off, g[i].len), &c, last, now);
		prev = ant_clock_mark(&c, s + g[i].off, g[i].len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ant_tokens t, u;
	ant_tokens_verdict v;
	unsigned char *blob;
	size_t len;
	static const char text[] = "Generated on 2026-11-28 10:15 by x";
	ant_page_seg seg[1] = { { 7, 1, 2, 0, sizeof text - 1, 0 } };

	judge_text((const char *)data, size);
	if (ant_tokens_decode(&t, data, size) < 0)
		return 0;
	if (ant_tokens_encode(&t, &blob, &len) == 0) {
		if (ant_tokens_decode(&u, blob, len) != 0 || u.nkeys != t.nkeys || u.last != t.last ||
		    (t.nkeys && memcmp(u.keys, t.keys, t.nkeys * sizeof *t.keys) != 0))
			abort();
		ant_tokens_release(&u);
		free(blob);
	}
	if (ant_tokens_decide_text(&t, seg, 1, text, NULL, 0, 1795829400, &v) == 0)
		ant_tokens_verdict_release(&v);
	ant_tokens_release(&t);
	return 0;
}
