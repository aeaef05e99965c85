/*
 * difftext.c: the texts behind the diff pages (ant_difftext.h): a page's
 * compared text built from its analysed answer, packed with zlib, and the
 * diff serialised and read back.
 */
#include "ant_difftext.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ant_noise.h"

uint32_t ant_difftext_key(const char *s, size_t n)
{
	return ant_noise_hash(s, n);
}

int ant_difftext_build(const ant_page_info *info, const ant_detect_noise *ns, lb_buf *out)
{
	lb_buf_reset(out);
	for (size_t i = 0; i < info->nseg; i++) {
		const ant_page_seg *g = &info->seg[i];
		size_t at = out->len;

		/* a part learned volatile is noise: it never shows as a change */
		if (ns && ant_detect_noise_find(ns, g->block))
			continue;
		if (lb_buf_add(out, info->text + g->off, g->len) < 0 || lb_buf_addc(out, '\n') < 0)
			return LB_ENOMEM;
		for (size_t k = at; k + 1 < out->len; k++) {
			unsigned char c = (unsigned char)out->data[k];

			/* one compare for nearly every byte: this runs over the
			 * whole text of every changed page */
			if (c <= '\r' && (c == '\n' || c == '\r'))
				out->data[k] = ' ';
		}
	}
	return 0;
}

int ant_difftext_pack(const char *s, size_t n, size_t max, unsigned char **out, size_t *outlen)
{
	uLongf len = compressBound((uLong)n);
	unsigned char *b;

	*out = NULL;
	*outlen = 0;
	if (!(b = malloc(len ? len : 1)))
		return LB_ENOMEM;
	if (compress2(b, &len, (const Bytef *)s, (uLong)n, 6) != Z_OK) {
		free(b);
		return LB_ENOMEM;   /* zlib fails only for want of memory here */
	}
	if (len > max) {
		free(b);
		return LB_ETOOBIG;
	}
	*out = b;
	*outlen = len;
	return 0;
}

/* The blob in z (initialised or reset) inflated into out (reset first). */
static int inflate_into(z_stream *z, const void *blob, size_t len, lb_buf *out)
{
	unsigned char chunk[16384];
	int zr = Z_OK, rc = 0;

	lb_buf_reset(out);
	z->next_in = (Bytef *)blob;
	z->avail_in = (uInt)len;
	while (rc == 0 && zr != Z_STREAM_END) {
		z->next_out = chunk;
		z->avail_out = sizeof chunk;
		zr = inflate(z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			rc = zr == Z_MEM_ERROR ? LB_ENOMEM : LB_EGZIP;
		else if (out->len + (sizeof chunk - z->avail_out) > ANT_DIFF_INFLATE_MAX)
			rc = LB_ETOOBIG;
		else if (lb_buf_add(out, chunk, sizeof chunk - z->avail_out) < 0)
			rc = LB_ENOMEM;
		else if (zr == Z_OK && z->avail_in == 0 && z->avail_out == sizeof chunk)
			rc = LB_EGZIP;   /* the blob ends early */
	}
	return rc;
}

int ant_difftext_unpack(const void *blob, size_t len, lb_buf *out)
{
	z_stream z;
	int rc;

	lb_buf_reset(out);
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return LB_ENOMEM;
	rc = inflate_into(&z, blob, len, out);
	inflateEnd(&z);
	return rc;
}

/* ---- the codec: zlib's streams kept across blobs ---------------------------- */

/* compress2()'s parameters at level 6: the blobs stay what they were. */
#define PACK_LEVEL 6

/*
 * A text of at most SMALL_MAX bytes is packed by a second stream made with
 * memLevel 6 instead of 8: deflateReset() clears the hash heads, 2^(memLevel
 * + 8) bytes, at every blob, 64 KiB for a 1.5 KB text (callgrind: 6% of a
 * first update's instructions).  Its blobs are the same bytes: the zlib
 * header does not name the memLevel, a text of under 2^(memLevel + 6) - 1
 * bytes fills no block early (deflate's symbol buffer), and the window is
 * the same; only a hash chain longer than level 6's 128 candidates could
 * end on another match (text repeated hundreds of times in 4 KB), a blob
 * as readable, never a different text.  Used only where no blob could
 * exceed max (compressBound), so LB_ETOOBIG is decided as before.
 */
#define SMALL_MEMLEVEL 6
#define SMALL_MAX 4000

struct ant_difftext_codec {
	z_stream def, inf, small;
	int def_ready, inf_ready, small_ready;
};

ant_difftext_codec *ant_difftext_codec_new(void)
{
	return calloc(1, sizeof(ant_difftext_codec));
}

void ant_difftext_codec_free(ant_difftext_codec *c)
{
	if (!c)
		return;
	if (c->def_ready)
		deflateEnd(&c->def);
	if (c->small_ready)
		deflateEnd(&c->small);
	if (c->inf_ready)
		inflateEnd(&c->inf);
	free(c);
}

/* The stream for n bytes under max, made or reset: NULL out of memory. */
static z_stream *def_stream(ant_difftext_codec *c, size_t n, size_t max)
{
	int small = n <= SMALL_MAX && compressBound((uLong)n) <= max;
	z_stream *z = small ? &c->small : &c->def;
	int *ready = small ? &c->small_ready : &c->def_ready;

	if (*ready)
		return deflateReset(z) == Z_OK ? z : NULL;
	if (deflateInit2(z, PACK_LEVEL, Z_DEFLATED, MAX_WBITS, small ? SMALL_MEMLEVEL : 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	*ready = 1;
	return z;
}

int ant_difftext_codec_pack(ant_difftext_codec *c, const char *s, size_t n, size_t max, lb_buf *out)
{
	z_stream *z;
	uLong bound;
	int zr;

	lb_buf_reset(out);
	if (!(z = def_stream(c, n, max)))
		return LB_ENOMEM;
	bound = deflateBound(z, (uLong)n);
	if (lb_buf_grow(out, bound) < 0)
		return LB_ENOMEM;
	z->next_in = (Bytef *)s;
	z->avail_in = (uInt)n;
	z->next_out = (Bytef *)out->data;
	z->avail_out = (uInt)bound;
	/* the bound holds it all: one call ends the stream */
	if ((zr = deflate(z, Z_FINISH)) != Z_STREAM_END)
		return zr == Z_MEM_ERROR ? LB_ENOMEM : LB_EGZIP;
	out->len = (size_t)(bound - z->avail_out);
	out->data[out->len] = '\0';
	return out->len > max ? LB_ETOOBIG : 0;
}

int ant_difftext_codec_unpack(ant_difftext_codec *c, const void *blob, size_t len, lb_buf *out)
{
	lb_buf_reset(out);
	if (!c->inf_ready) {
		if (inflateInit(&c->inf) != Z_OK)
			return LB_ENOMEM;
		c->inf_ready = 1;
	} else if (inflateReset(&c->inf) != Z_OK) {
		return LB_ENOMEM;
	}
	return inflate_into(&c->inf, blob, len, out);
}

int ant_difftext_serialise(const ant_diff *d, lb_buf *out)
{
	lb_buf_reset(out);
	if (d->too_many)
		return lb_buf_adds(out, "!\n") < 0 ? LB_ENOMEM : 0;
	for (size_t i = 0; i < d->n; i++)
		if (lb_buf_addc(out, (char)d->v[i].op) < 0 || lb_buf_addc(out, ' ') < 0 ||
		    lb_buf_add(out, d->v[i].s, d->v[i].len) < 0 || lb_buf_addc(out, '\n') < 0)
			return LB_ENOMEM;
	return 0;
}

int ant_difftext_parse(const char *s, size_t n, ant_diff *d)
{
	size_t cnt = 0, i = 0;

	memset(d, 0, sizeof *d);
	if (n == 2 && memcmp(s, "!\n", 2) == 0) {
		d->too_many = 1;
		return 0;
	}
	for (size_t k = 0; k < n; k++)
		cnt += s[k] == '\n';
	if (!(d->v = malloc((cnt ? cnt : 1) * sizeof *d->v)))
		return LB_ENOMEM;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;
		int op = (unsigned char)s[i];

		if (e - i < 2 || s[i + 1] != ' ' ||
		    (op != ANT_DIFF_SAME && op != ANT_DIFF_DEL && op != ANT_DIFF_ADD && op != ANT_DIFF_GAP)) {
			ant_diff_release(d);
			return LB_EPARSE;
		}
		d->v[d->n++] = (ant_diff_line){ op, s + i + 2, e - i - 2 };
		d->removed += op == ANT_DIFF_DEL;
		d->added += op == ANT_DIFF_ADD;
		i = e + 1;
	}
	return 0;
}

int ant_difftext_read(const void *blob, size_t len, lb_buf *raw, ant_diff *d)
{
	int rc = ant_difftext_unpack(blob, len, raw);

	memset(d, 0, sizeof *d);
	return rc < 0 ? rc : ant_difftext_parse(raw->data, raw->len, d);
}

/* ---- the diff made when it is shown ------------------------------------------ */

int ant_difftext_pending(const void *blob, size_t len)
{
	return blob && len > 0 && *(const unsigned char *)blob == ANT_DIFFTEXT_PENDING;
}

int ant_difftext_make(ant_difftext_codec *c, const char *a, size_t alen, const char *b, size_t blen,
		      size_t max, lb_buf *ser, lb_buf *packed)
{
	ant_difftext_codec *own = NULL;
	lb_buf tmp = LB_BUF_INIT;
	ant_diff d;
	int rc, have = 0;

	rc = ant_diff_lines(a, alen, b, blen, ANT_DIFF_CONTEXT, ANT_DIFF_MAX_CELLS, ant_difftext_key, &d);
	if (rc == 0 && (d.too_many || d.n) && (rc = ant_difftext_serialise(&d, ser)) == 0) {
		/* the blob not wanted (a diff shown at publish) and none could
		 * exceed max: not packed at all, the answer is the same */
		if (!packed && compressBound((uLong)ser->len) <= max) {
			ant_diff_release(&d);
			return 1;
		}
		if (!packed)
			packed = &tmp;
		if (!c && !(c = own = ant_difftext_codec_new()))
			rc = LB_ENOMEM;
		else
			rc = ant_difftext_codec_pack(c, ser->data, ser->len, max, packed);
		if (rc == LB_ETOOBIG) {   /* kept, but as "too many changes to show" */
			lb_buf_reset(ser);
			rc = lb_buf_adds(ser, "!\n") < 0 ? LB_ENOMEM :
			     ant_difftext_codec_pack(c, ser->data, ser->len, max, packed);
		}
		have = rc == 0;
	}
	if (rc == 0 && !have)
		lb_buf_reset(ser);
	ant_diff_release(&d);
	ant_difftext_codec_free(own);
	lb_buf_release(&tmp);
	return rc == LB_ETOOBIG ? 0 : rc < 0 ? rc : have;
}

int ant_difftext_read_kept(const void *diff, size_t dlen, const void *text, size_t tlen, size_t max,
			   lb_buf *raw, ant_diff *d)
{
	lb_buf a = LB_BUF_INIT, b = LB_BUF_INIT;
	int rc;

	if (!ant_difftext_pending(diff, dlen))
		return ant_difftext_read(diff, dlen, raw, d);
	memset(d, 0, sizeof *d);
	lb_buf_reset(raw);
	if ((rc = ant_difftext_unpack((const unsigned char *)diff + 1, dlen - 1, &a)) == 0 &&
	    (rc = text ? ant_difftext_unpack(text, tlen, &b) : LB_EGZIP) == 0 &&
	    (rc = ant_difftext_make(NULL, a.data, a.len, b.data, b.len, max, raw, NULL)) > 0)
		rc = ant_difftext_parse(raw->data, raw->len, d);
	lb_buf_release(&a);
	lb_buf_release(&b);
	return rc < 0 ? rc : 0;
}
