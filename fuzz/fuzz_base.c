/*
 * fuzz_base: libFuzzer target for the base layer's one home per concept.
 *   UTF-8 (RFC 3629): lb_utf8_repair() always gives well-formed UTF-8,
 *   and replaces nothing exactly when lb_utf8_valid() says the input is;
 *   with LB_UTF8_NUL no NUL is left; a well-formed text cut at any byte
 *   and clipped by lb_utf8_clip() is well-formed again, at most 3 bytes
 *   shorter; every decoded code point is a scalar value of its length.
 *   Dates: the first 8 bytes as a time split and joined again.
 *   URLs: a scheme (RFC 3986 §3.1) is followed by ':'; an http prefix
 *   is a scheme, and lb_url_is_http() implies one.
 */
#include "lb_buf.h"
#include "lb_date.h"
#include "lb_url.h"
#include "lb_utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void utf8_props(const char *s, size_t n)
{
	lb_buf out = LB_BUF_INIT, nonul = LB_BUF_INIT;
	size_t bad = lb_utf8_repair(&out, s, n, 0, NULL), i, k;
	uint32_t cp;

	if (bad == (size_t)-1 || lb_utf8_repair(&nonul, s, n, LB_UTF8_NUL, NULL) == (size_t)-1)
		abort();   /* out of memory: libFuzzer's limits are far below */
	if (!lb_utf8_valid(out.data, out.len) || (bad == 0) != lb_utf8_valid(s, n))
		abort();
	if (memchr(nonul.data, '\0', nonul.len) || !lb_utf8_valid(nonul.data, nonul.len))
		abort();
	for (i = 0; i < out.len; i += k) {
		static const uint32_t lo[] = { 0, 0, 0x80, 0x800, 0x10000 }, hi[] = { 0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF };

		k = lb_utf8_decode(out.data + i, out.len - i, &cp);
		if (!k || cp < lo[k] || cp > hi[k] || (cp >= 0xD800 && cp <= 0xDFFF))
			abort();
	}
	for (i = 0; i <= out.len; i += 1 + i / 8) {
		k = lb_utf8_clip(out.data, i);
		if (k > i || k + 3 < i || !lb_utf8_valid(out.data, k))
			abort();
	}
	lb_buf_release(&out);
	lb_buf_release(&nonul);
}

static void date_props(const uint8_t *d, size_t n)
{
	int64_t t = 0;
	lb_tm tm;

	memcpy(&t, d, n < 8 ? n : 8);
	lb_date_split(t, &tm);
	if (!lb_date_valid(tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.sec) || tm.wday < 0 || tm.wday > 6)
		abort();
	/* joining back multiplies days by 86400: only where that fits */
	if (t > -(INT64_C(1) << 50) && t < (INT64_C(1) << 50) &&
	    lb_days_from_civil(tm.year, tm.mon, tm.mday) * 86400 + tm.hour * 3600 + tm.min * 60 + tm.sec != t)
		abort();
}

static void url_props(const char *u)
{
	size_t n = lb_url_scheme_len(u), p = lb_url_http_prefix(u);

	if (n && u[n] != ':')
		abort();
	if (p && (p != n + 3 || !lb_url_http_port(u, n)))
		abort();
	if (lb_url_is_http(u) && !p)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *z;

	utf8_props((const char *)data, size);
	date_props(data, size);
	if (!(z = malloc(size + 1)))
		return 0;
	memcpy(z, data, size);
	z[size] = '\0';
	url_props(z);
	free(z);
	return 0;
}
