/*
 * gz.c: streaming gzip for the writer, and streaming gunzip for the
 * reader.  Detects gzip by its magic bytes
 * (doc/NOTES-lirs-in-the-wild.md: names and headers lie), reads concatenated
 * members as one stream, and stops at a cap on decoded bytes so that a
 * decompression bomb (LIRS 2.1 §6) costs bounded time and memory.
 */
#include "gz.h"

#include <stdlib.h>
#include <string.h>

#include "lirs.h"

enum { ST_START, ST_PLAIN, ST_MEMBER, ST_BETWEEN, ST_TRAILING };

int lirs_gz_init(lirs_gz *g, uint64_t max, lirs_gz_out_fn out, lirs_gz_event_fn ev, void *ctx)
{
	memset(g, 0, sizeof(*g));
	g->max = max ? max : UINT64_MAX;
	g->on_out = out;
	g->on_event = ev;
	g->ctx = ctx;
	g->state = ST_START;
	g->out = malloc(GZ_OUT_SIZE);
	return g->out ? 0 : LB_ENOMEM;
}

void lirs_gz_release(lirs_gz *g)
{
	if (g->zinit)
		inflateEnd(&g->zs);
	free(g->out);
	g->out = NULL;
	g->zinit = 0;
}

int lirs_gz_is_gzip(const lirs_gz *g)
{
	return g->zinit;
}

static int fail(lirs_gz *g, int err)
{
	g->err = err;
	return err;
}

/* Hands decoded bytes on, enforcing the cap before anything is delivered. */
static int emit(lirs_gz *g, const unsigned char *p, size_t n)
{
	int r;

	if (!n)
		return 0;
	if (n > g->max - g->total)
		return fail(g, LB_ETOOBIG);
	g->total += n;
	r = g->on_out(g->ctx, (const char *)p, n);
	return r < 0 ? fail(g, r) : 0;
}

/* The stream's input, and its output: the one GZ_OUT_SIZE buffer, empty
 * (inflate and deflate alike). */
static void zs_in(z_stream *zs, const unsigned char *p, size_t n)
{
	zs->next_in = (unsigned char *)p;
	zs->avail_in = (uInt)n;
}

static void zs_out(z_stream *zs, unsigned char *out)
{
	zs->next_out = out;
	zs->avail_out = (uInt)GZ_OUT_SIZE;
}

/* Inflates n bytes of the current member; *used says how many it took
 * (less than n when the member ended inside them). */
static int inflate_some(lirs_gz *g, const unsigned char *p, size_t n, size_t *used)
{
	int zr, r;
	size_t got;

	zs_in(&g->zs, p, n);
	do {
		zs_out(&g->zs, g->out);
		zr = inflate(&g->zs, Z_NO_FLUSH);
		got = GZ_OUT_SIZE - g->zs.avail_out;
		if ((r = emit(g, g->out, got)) < 0)
			return r;
		if (zr == Z_STREAM_END) {
			inflateReset(&g->zs);
			g->state = ST_BETWEEN;
			g->nmagic = 0;
			break;
		}
		if (zr == Z_MEM_ERROR)
			return fail(g, LB_ENOMEM);
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return fail(g, LB_EGZIP);
		if (zr == Z_BUF_ERROR && got == 0)
			break;
	} while (g->zs.avail_in > 0 || g->zs.avail_out == 0);
	*used = n - g->zs.avail_in;
	return 0;
}

static int start_member(lirs_gz *g)
{
	if (!g->zinit) {
		/* 16 + MAX_WBITS: gzip wrapper only, so zlib checks CRC and size. */
		if (inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK)
			return fail(g, LB_ENOMEM);
		g->zinit = 1;
	}
	g->state = ST_MEMBER;
	return 0;
}

/* Collects the first two bytes of a member (or of the input) and decides
 * what follows.  Returns bytes consumed, or a negative code. */
static long sniff(lirs_gz *g, const unsigned char *p, size_t n, int at_end)
{
	size_t take = 0, used;
	int r, was_start = g->state == ST_START;

	while (g->nmagic < 2 && take < n)
		g->magic[g->nmagic++] = p[take++];
	if (g->nmagic < 2 && !at_end)
		return (long)take;
	if (g->nmagic == 2 && g->magic[0] == 0x1f && g->magic[1] == 0x8b) {
		if ((r = start_member(g)) < 0)
			return r;
		if ((r = inflate_some(g, g->magic, 2, &used)) < 0)
			return r;
		return (long)take;
	}
	if (!was_start) {
		g->state = ST_TRAILING;
		if (g->on_event)
			g->on_event(g->ctx, GZ_EV_TRAILING);
		return (long)n;
	}
	g->state = ST_PLAIN;
	if (g->nmagic && g->on_event)
		g->on_event(g->ctx, GZ_EV_PLAIN);
	if ((r = emit(g, g->magic, g->nmagic)) < 0)
		return r;
	return (long)take;
}

int lirs_gz_feed(lirs_gz *g, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t used;
	long k;
	int r;

	if (g->err)
		return g->err;
	while (len > 0) {
		switch (g->state) {
		case ST_START:
		case ST_BETWEEN:
			if ((k = sniff(g, p, len, 0)) < 0)
				return (int)k;
			used = (size_t)k;
			break;
		case ST_PLAIN:
			if ((r = emit(g, p, len)) < 0)
				return r;
			used = len;
			break;
		case ST_MEMBER:
			/* zlib counts in uInt: feed at most 1 GiB at a time. */
			used = len > (1u << 30) ? (1u << 30) : len;
			if ((r = inflate_some(g, p, used, &used)) < 0)
				return r;
			break;
		default: /* ST_TRAILING */
			used = len;
			break;
		}
		p += used;
		len -= used;
	}
	return 0;
}

int lirs_gz_finish(lirs_gz *g)
{
	long k;

	if (g->err)
		return g->err;
	if ((g->state == ST_START && g->nmagic) || (g->state == ST_BETWEEN && g->nmagic)) {
		if ((k = sniff(g, NULL, 0, 1)) < 0)
			return (int)k;
	}
	if (g->state == ST_MEMBER)
		return fail(g, LB_ETRUNC);
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

int lirs_gzw_init(lirs_gzw *g, int level, lirs_gz_out_fn out, void *ctx)
{
	memset(g, 0, sizeof(*g));
	g->on_out = out;
	g->ctx = ctx;
	if (level < 1 || level > 9)
		level = 6;
	if (!(g->out = malloc(GZ_OUT_SIZE)))
		return LB_ENOMEM;
	/* 16 + MAX_WBITS: zlib writes the gzip wrapper, no name and MTIME 0 */
	if (deflateInit2(&g->zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		lirs_gzw_release(g);
		return LB_ENOMEM;
	}
	g->zinit = 1;
	return 0;
}

void lirs_gzw_release(lirs_gzw *g)
{
	if (g->zinit)
		deflateEnd(&g->zs);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

/* Compresses n bytes (flush: Z_NO_FLUSH or Z_FINISH) into the callback;
 * avail_in is a uInt, so a larger n goes in pieces. */
static int deflate_some(lirs_gzw *g, const unsigned char *p, size_t n, int flush)
{
	const size_t most = (size_t)1 << 30;
	int zr, r;

	do {
		size_t k = n < most ? n : most;
		int f = k == n ? flush : Z_NO_FLUSH;

		zs_in(&g->zs, p, k);
		do {
			zs_out(&g->zs, g->out);
			zr = deflate(&g->zs, f);
			if (zr == Z_STREAM_ERROR)
				return LB_ENOMEM;
			if (GZ_OUT_SIZE > g->zs.avail_out &&
			    (r = g->on_out(g->ctx, (const char *)g->out, GZ_OUT_SIZE - g->zs.avail_out)) < 0)
				return r;
		} while (g->zs.avail_out == 0 || (f == Z_FINISH && zr != Z_STREAM_END));
		p += k;
		n -= k;
	} while (n);
	return 0;
}

int lirs_gzw_write(lirs_gzw *g, const void *buf, size_t n)
{
	return deflate_some(g, buf, n, Z_NO_FLUSH);
}

int lirs_gzw_finish(lirs_gzw *g, const void *buf, size_t n)
{
	return deflate_some(g, buf, n, Z_FINISH);
}
