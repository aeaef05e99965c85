/*
 * fuzz_di.c: libFuzzer target for HINA-DI and hina.txt in the reader, and
 * a differential check of the HINA-DI writer: every record read (from DI,
 * hina.txt or LIRS) is written as DI, read back, and must come back as
 * lirs(5) says (CR and LF as spaces, blanks at the ends dropped, times
 * outside 1970-9999 as 0, a blank URL left out).
 * Byte 0: the chunk size (low 3 bits) and the format (bits 3-4: DI UTF-8,
 * DI Shift_JIS, hina.txt, as is); byte 1: the line limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "fuzz_common.h"
#include "lirs.h"

/* A broken promise: say which, then crash for libFuzzer. */
#define FAIL(...) do { fprintf(stderr, "fuzz_di: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

typedef struct recs {
	lirs_record *v;
	size_t n, cap;
} recs;

static int keep(void *ctx, const lirs_record *r)
{
	recs *rs = ctx;

	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		lirs_record *v = realloc(rs->v, cap * sizeof *v);
		if (!v)
			abort();
		rs->v = v;
		rs->cap = cap;
	}
	if (lirs_record_copy(&rs->v[rs->n], r) < 0)
		abort();
	rs->n++;
	return 0;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	(void)ctx;
	fuzz_touch_diag(d);
}

static void read_all(const void *p, size_t len, size_t chunk, size_t max_line, recs *rs)
{
	lirs_reader_opts o;
	lirs_reader *rd;

	memset(&o, 0, sizeof o);
	o.max_line = max_line;
	o.max_decoded = 1 << 20;
	o.on_record = keep;
	o.on_diag = on_diag;
	o.ctx = rs;
	if (!(rd = lirs_reader_new(&o)))
		abort();
	fuzz_feed(rd, p, len, chunk);
	lirs_reader_free(rd);
}

/* The writer's one escape, as the reader will see the value: CR and LF
 * are spaces, so blanks, CR and LF go from both ends. */
static void norm(const char *s, lb_buf *b)
{
	size_t a = 0, z = strlen(s), i;

	lb_buf_reset(b);
	while (a < z && strchr(" \t\r\n", s[a]))
		a++;
	while (z > a && strchr(" \t\r\n", s[z - 1]))
		z--;
	for (i = a; i < z; i++)
		lb_buf_addc(b, s[i] == '\r' || s[i] == '\n' ? ' ' : s[i]);
}

static int same_text(const char *want, const char *got, lb_buf *b)
{
	norm(want, b);
	return strcmp(b->data, got) == 0;
}

static int64_t as_written(int64_t t)
{
	return t >= 0 && t <= INT64_C(253402300799) ? t : 0;
}

static int mem_sink(void *ctx, const void *p, size_t n)
{
	return lb_buf_add(ctx, p, n);
}

static void round_trip(const recs *a)
{
	lirs_writer_opts wo;
	lirs_writer *w;
	lb_buf out = LB_BUF_INIT, b = LB_BUF_INIT;
	recs back = { 0 };
	size_t i, j, k;

	memset(&wo, 0, sizeof wo);
	wo.format = LIRS_FORMAT_DI;
	wo.utf8 = 1;
	wo.no_gzip = 1;
	wo.sink = mem_sink;
	wo.ctx = &out;
	if (!(w = lirs_writer_new(&wo)))
		abort();
	for (i = 0; i < a->n; i++)
		if (lirs_writer_add(w, &a->v[i]) < 0)
			abort();
	if (lirs_writer_finish(w) < 0)
		abort();
	read_all(out.data, out.len, out.len + 1, 0, &back);
	for (i = j = 0; i < a->n; i++) {
		const lirs_record *x = &a->v[i], *y;
		norm(x->url, &b);
		if (!b.len || x->nextra > LIRS_DI_MAX_EXTRA)
			continue;   /* left out by the writer */
		if (j >= back.n)
			FAIL("record %zu lost", i);
		y = &back.v[j++];
		if (as_written(x->last_modified) != y->last_modified ||
		    as_written(x->last_detected) != y->last_detected ||
		    x->tz_offset != y->tz_offset || x->content_length != y->content_length)
			FAIL("record %zu: a number changed", i);
		if (!same_text(x->url, y->url, &b) || !same_text(x->title, y->title, &b) ||
		    !same_text(x->author, y->author, &b) ||
		    !same_text(x->source_url, y->source_url, &b))
			FAIL("record %zu: url '%s' title '%s' author '%s' source '%s' became '%s' '%s' '%s' '%s'",
			     i, x->url, x->title, x->author, x->source_url, y->url, y->title, y->author,
			     y->source_url);
		if (!same_text(x->extension, y->extension, &b) || x->nextra != y->nextra)
			FAIL("record %zu: extension '%s' (%zu extras) became '%s' (%zu)", i,
			     x->extension, x->nextra, y->extension, y->nextra);
		for (k = 0; k < x->nextra; k++)
			if (!same_text(x->extra[k], y->extra[k], &b))
				FAIL("record %zu: extra %zu '%s' became '%s'", i, k, x->extra[k], y->extra[k]);
	}
	if (j != back.n)
		FAIL("%zu records read back, %zu written", back.n, j);
	for (i = 0; i < back.n; i++)
		lirs_record_release(&back.v[i]);
	free(back.v);
	lb_buf_release(&out);
	lb_buf_release(&b);
	lirs_writer_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[8] = { 1, 2, 3, 7, 64, 4096, 65536, (size_t)-1 };
	static const char *const heads[4] = {
		"HINA/2.1\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n",
		"HINA/2.1\r\nContent-Type: text/plain; charset=Shift_JIS\r\n\r\n",
		"<!--HINA_OK ",
		"",
	};
	lb_buf in = LB_BUF_INIT;
	recs rs = { 0 };
	size_t i;

	if (size < 2)
		return 0;
	lb_buf_adds(&in, heads[(data[0] >> 3) & 3]);
	lb_buf_add(&in, data + 2, size - 2);
	read_all(in.data, in.len, chunks[data[0] & 7], data[1] & 1 ? 0 : 64 + data[1], &rs);
	round_trip(&rs);
	for (i = 0; i < rs.n; i++)
		lirs_record_release(&rs.v[i]);
	free(rs.v);
	lb_buf_release(&in);
	return 0;
}
