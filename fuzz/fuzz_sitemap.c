/*
 * fuzz_sitemap: libFuzzer target for the streaming sitemap reader
 * (src/antenna/sitemap.c).  The first byte picks the piece size handed to
 * libxml2 (0: one byte at a time, else 1..255 times 7 bytes); the rest is
 * the body (plain or gzip).  Beyond "no crash, no leak", it checks a
 * property: a body read whole either way gives the same result (kind,
 * counts, every entry) whatever the piece size, and no <loc> delivered is over ANT_MAX_URL
 * bytes.  Also runs ant_sitemap_date() over the input as text.
 */
#include "ant_limits.h"
#include "ant_sitemap.h"
#include "lb_buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int on_entry(void *ctx, const ant_sitemap_entry *e)
{
	lb_buf *b = ctx;

	if (strlen(e->loc) > ANT_MAX_URL)
		abort();
	lb_buf_addf(b, "%lu %s %lld %d\n", e->line, e->loc, (long long)e->lastmod, e->date_only);
	return 0;
}

static int parse(const uint8_t *d, size_t n, size_t step, lb_buf *out, ant_sitemap_info *info)
{
	/* small limits: the fuzzer reaches them */
	ant_sitemap_opts o = { .max_bytes = 1u << 20, .max_urls = 1000, .step = step,
			       .on_entry = on_entry, .ctx = out };
	lb_error err = LB_ERROR_INIT;

	return ant_sitemap_parse((const char *)d, n, &o, info, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	ant_sitemap_info ia, ib;
	size_t step;
	int ra, rb;
	char *s;

	if (size < 1)
		return 0;
	step = data[0] ? (size_t)data[0] * 7 : 1;
	ra = parse(data + 1, size - 1, 0, &a, &ia);
	rb = parse(data + 1, size - 1, step, &b, &ib);
	if (ra == 0 && rb == 0 && (ia.kind != ib.kind || ia.entries != ib.entries || ia.bad_locs != ib.bad_locs ||
	    ia.bad_dates != ib.bad_dates || a.len != b.len || memcmp(a.data, b.data, a.len)))
		abort();
	lb_buf_release(&a);
	lb_buf_release(&b);
	if ((s = malloc(size)) != NULL) {
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		(void)ant_sitemap_date(s, NULL);
		free(s);
	}
	return 0;
}
