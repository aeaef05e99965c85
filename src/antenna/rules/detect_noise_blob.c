/*
 * detect_noise_blob.c: the noise-proof text rule's state of a page
 * (ant_detect_noise, ant_detect.h) as the compact blob the store keeps,
 * and back.  Decoding reads what the database holds: a damaged or foreign
 * blob is an error, never a crash (fuzz/fuzz_noise.c).
 */
#include "detect_noise_cmp.h"

#include <stdlib.h>
#include <string.h>

/* ---- the format -----------------------------------------------------------------
 *
 *   "N" 4                    magic and version
 *   varint G                 groups of the multiset, by block, plus one (0: none yet)
 *     u32 block, varint d << 1 | r, d * (u24 norm [, varint repeats if r])
 *                            d distinct keys; with r, each is followed by
 *                            how many more times it is there (a list of
 *                            items that differ in numbers alone is one key
 *                            many times: the bench page's 20 paragraphs
 *                            take 4 bytes, not 60)
 *   u8 V                     volatile blocks
 *     u32 block, varint since, u8 how, u8 P, P bytes of path, u8 L, L bytes
 *     of sample text, varint changed, u32 sig
 *   u8 S                     suspects
 *     u32 block, varint last, u8 changes, varint pending, u24 pending_norm,
 *     u8 k, k * u24 seen, varint raced, u32 raced_sig
 *   u8 W                     blocks with volatile words (version 4)
 *     u32 block, varint since, varint seen, u8 P, P bytes of path, u8 L,
 *     L bytes of sample, u8 c, c * (u32 left, u32 right, u8 words, u32 last)
 * Integers little-endian; times as unsigned varints (LEB128).  Version 1
 * (0.3.0) has "varint m, m * u32 norm" in a group, repeated keys written
 * out, and u32 norms elsewhere; it is read, its norms cut to 24
 * bits (the keys it held then match the next check's), and written again
 * as version 3.  Version 2 has no changed and sig in a volatile block nor
 * raced in a suspect (read as 0: not known); versions 1-3 have no
 * blocks with volatile words (read as none: a block that has them learns
 * them again at its next re-fetch).  The norms are 3 of the ~5 bytes a key costs: at a
 * million pages of ~50 segments, 4-byte norms were 50 MB more.
 */
typedef struct wbuf {
	unsigned char *p;
	size_t len, cap;
	int oom;
} wbuf;

static void w_byte(wbuf *w, unsigned c)
{
	if (w->len == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 256;
		unsigned char *np = realloc(w->p, nc);
		if (!np) {
			w->oom = 1;
			return;
		}
		w->p = np;
		w->cap = nc;
	}
	w->p[w->len++] = (unsigned char)c;
}

static void w_u32(wbuf *w, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w_byte(w, (v >> (8 * i)) & 0xFF);
}

static void w_u24(wbuf *w, uint32_t v)
{
	for (int i = 0; i < 3; i++)
		w_byte(w, (v >> (8 * i)) & 0xFF);
}

static void w_var(wbuf *w, uint64_t v)
{
	do {
		w_byte(w, (unsigned)(v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void w_str(wbuf *w, const char *s)
{
	size_t l = strlen(s);

	w_byte(w, (unsigned)l);
	for (size_t k = 0; k < l; k++)
		w_byte(w, (unsigned char)s[k]);
}

/* One group of the multiset: keys[0..m), all of one block. */
static void w_group(wbuf *w, const uint64_t *keys, size_t m)
{
	size_t distinct = 0;
	int dup = 0;

	for (size_t k = 0; k < m; k++) {
		distinct += k == 0 || keys[k] != keys[k - 1];
		dup |= k > 0 && keys[k] == keys[k - 1];
	}
	w_u32(w, (uint32_t)(keys[0] >> 32));
	w_var(w, (uint64_t)distinct << 1 | (unsigned)dup);
	for (size_t i = 0; i < m;) {
		size_t k = i;
		while (k < m && keys[k] == keys[i])
			k++;
		w_u24(w, (uint32_t)keys[i]);
		if (dup)
			w_var(w, k - i - 1);
		i = k;
	}
}

static void w_keys(wbuf *w, const ant_detect_noise *n)
{
	size_t groups = 0;

	for (size_t i = 0; i < n->nkeys; i++)
		groups += i == 0 || n->keys[i] >> 32 != n->keys[i - 1] >> 32;
	w_var(w, n->has_keys ? groups + 1 : 0);   /* 0: no multiset yet */
	for (size_t i = 0; i < n->nkeys;) {
		size_t j = i;
		while (j < n->nkeys && n->keys[j] >> 32 == n->keys[i] >> 32)
			j++;
		w_group(w, n->keys + i, j - i);
		i = j;
	}
}

static void w_volatile(wbuf *w, const ant_detect_noise *n)
{
	w_byte(w, (unsigned)n->nvol);
	for (size_t i = 0; i < n->nvol; i++) {
		const ant_detect_vblock *vb = &n->vol[i];
		w_u32(w, vb->block);
		w_var(w, vb->since > 0 ? (uint64_t)vb->since : 0);
		w_byte(w, (unsigned)vb->how);
		w_str(w, vb->path);
		w_str(w, vb->sample);
		w_var(w, vb->changed > 0 ? (uint64_t)vb->changed : 0);
		w_u32(w, vb->sig);
	}
}

static void w_suspects(wbuf *w, const ant_detect_noise *n)
{
	w_byte(w, (unsigned)n->nsus);
	for (size_t i = 0; i < n->nsus; i++) {
		const ant_detect_suspect *s = &n->sus[i];
		w_u32(w, s->block);
		w_var(w, s->last > 0 ? (uint64_t)s->last : 0);
		w_byte(w, (unsigned)(s->changes > 255 ? 255 : s->changes));
		w_var(w, s->pending > 0 ? (uint64_t)s->pending : 0);
		w_u24(w, s->pending_norm);
		w_byte(w, (unsigned)s->nseen);
		for (int k = 0; k < s->nseen; k++)
			w_u24(w, s->seen[k]);
		w_var(w, s->raced > 0 ? (uint64_t)s->raced : 0);
		w_u32(w, s->raced_sig);
	}
}

static void w_words(wbuf *w, const ant_detect_noise *n)
{
	w_byte(w, (unsigned)n->nwords);
	for (size_t i = 0; i < n->nwords; i++) {
		const ant_detect_wblock *wb = &n->words[i];
		w_u32(w, wb->block);
		w_var(w, wb->since > 0 ? (uint64_t)wb->since : 0);
		w_var(w, wb->seen > 0 ? (uint64_t)wb->seen : 0);
		w_str(w, wb->path);
		w_str(w, wb->sample);
		w_byte(w, (unsigned)wb->nctx);
		for (int k = 0; k < wb->nctx; k++) {
			w_u32(w, wb->ctx[k].left);
			w_u32(w, wb->ctx[k].right);
			w_byte(w, wb->ctx[k].words);
			w_u32(w, wb->ctx[k].last);
		}
	}
}

int ant_detect_noise_encode(const ant_detect_noise *n, unsigned char **blob, size_t *len)
{
	wbuf w = { 0 };

	*blob = NULL;
	*len = 0;
	w_byte(&w, 'N');
	w_byte(&w, 4);
	w_keys(&w, n);
	w_volatile(&w, n);
	w_suspects(&w, n);
	w_words(&w, n);
	if (w.oom) {
		free(w.p);
		return LB_ENOMEM;
	}
	*blob = w.p;
	*len = w.len;
	return 0;
}

typedef struct rbuf {
	const unsigned char *p, *end;
	int bad;
	int count_keys;          /* the keys counted, not kept (ant_detect_noise_holds()) */
} rbuf;

static unsigned r_byte(rbuf *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint32_t r_u32(rbuf *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)r_byte(r) << (8 * i);
	return v;
}

/* A norm: u32 in version 1, u24 since; either way ANT_NOISE_NORM_BITS. */
static uint32_t r_norm(rbuf *r, int version)
{
	uint32_t v = 0;

	for (int i = 0; i < (version == 1 ? 4 : 3); i++)
		v |= (uint32_t)r_byte(r) << (8 * i);
	return v & ANT_NOISE_NORM_MASK;
}

static uint64_t r_var(rbuf *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		unsigned c = r_byte(r);
		v |= (uint64_t)(c & 0x7F) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static void r_str(rbuf *r, char *dst, size_t size)
{
	unsigned l = r_byte(r);

	if (r->bad || l >= size || (size_t)(r->end - r->p) < l) {
		r->bad = 1;
		*dst = '\0';
		return;
	}
	memcpy(dst, r->p, l);
	dst[l] = '\0';
	r->p += l;
}

/* One group of the multiset, appended to n->keys (room for
 * ANT_NOISE_MAX_KEYS, malloc'd at the first group). */
static void r_group(rbuf *r, ant_detect_noise *n, int version)
{
	uint32_t block = r_u32(r);
	uint64_t m = r_var(r), dup = 0;
	size_t nb = version == 1 ? 4 : 3;

	if (version >= 2) {   /* distinct keys << 1 | repeats follow */
		dup = m & 1;
		m >>= 1;
	}
	if (m > ANT_NOISE_MAX_KEYS || n->nkeys + m > ANT_NOISE_MAX_KEYS ||
	    (size_t)(r->end - r->p) < nb * m) {
		r->bad = 1;
		return;
	}
	if (!r->count_keys && !n->keys && !(n->keys = malloc(ANT_NOISE_MAX_KEYS * sizeof *n->keys))) {
		r->bad = 1;
		return;
	}
	for (uint64_t k = 0; k < m && !r->bad; k++) {
		uint64_t key = (uint64_t)block << 32 | r_norm(r, version);
		uint64_t c = dup ? r_var(r) : 0;
		if (c >= ANT_NOISE_MAX_KEYS - n->nkeys) {
			r->bad = 1;
			return;
		}
		if (r->count_keys)
			n->nkeys += (size_t)c + 1;
		else
			for (uint64_t x = 0; x <= c; x++)
				n->keys[n->nkeys++] = key;
	}
}

static void r_keys(rbuf *r, ant_detect_noise *n, int version)
{
	uint64_t groups = r_var(r);

	n->has_keys = groups > 0;
	for (uint64_t g = 1; g < groups && !r->bad; g++)
		r_group(r, n, version);
}

static void r_volatile(rbuf *r, ant_detect_noise *n, int version)
{
	n->nvol = r->bad ? 0 : r_byte(r);
	if (n->nvol > ANT_NOISE_MAX_VOLATILE)
		r->bad = 1;
	for (size_t i = 0; i < n->nvol && !r->bad; i++) {
		ant_detect_vblock *vb = &n->vol[i];
		memset(vb, 0, sizeof *vb);   /* an older version's fields stay 0 */
		vb->block = r_u32(r);
		vb->since = (int64_t)r_var(r);
		vb->how = (int)r_byte(r);
		r_str(r, vb->path, sizeof vb->path);
		r_str(r, vb->sample, sizeof vb->sample);
		if (version >= 3) {
			vb->changed = (int64_t)r_var(r);
			vb->sig = r_u32(r);
		}
	}
}

static void r_suspects(rbuf *r, ant_detect_noise *n, int version)
{
	n->nsus = r->bad ? 0 : r_byte(r);
	if (n->nsus > ANT_NOISE_MAX_SUSPECTS)
		r->bad = 1;
	for (size_t i = 0; i < n->nsus && !r->bad; i++) {
		ant_detect_suspect *s = &n->sus[i];
		memset(s, 0, sizeof *s);
		s->block = r_u32(r);
		s->last = (int64_t)r_var(r);
		s->changes = (int)r_byte(r);
		s->pending = (int64_t)r_var(r);
		s->pending_norm = r_norm(r, version);
		s->nseen = (int)r_byte(r);
		if (s->nseen > ANT_NOISE_MAX_SEEN) {
			r->bad = 1;
			return;
		}
		for (int k = 0; k < s->nseen; k++)
			s->seen[k] = r_norm(r, version);
		if (version >= 3) {
			s->raced = (int64_t)r_var(r);
			s->raced_sig = r_u32(r);
		}
	}
}

static void r_words(rbuf *r, ant_detect_noise *n, int version)
{
	n->nwords = r->bad || version < 4 ? 0 : r_byte(r);
	if (n->nwords > ANT_NOISE_MAX_WBLOCKS)
		r->bad = 1;
	for (size_t i = 0; i < n->nwords && !r->bad; i++) {
		ant_detect_wblock *wb = &n->words[i];
		memset(wb, 0, sizeof *wb);
		wb->block = r_u32(r);
		wb->since = (int64_t)r_var(r);
		wb->seen = (int64_t)r_var(r);
		r_str(r, wb->path, sizeof wb->path);
		r_str(r, wb->sample, sizeof wb->sample);
		wb->nctx = (int)r_byte(r);
		if (wb->nctx > ANT_NOISE_MAX_WCTX) {
			r->bad = 1;
			return;
		}
		for (int k = 0; k < wb->nctx; k++) {
			wb->ctx[k].left = r_u32(r);
			wb->ctx[k].right = r_u32(r);
			wb->ctx[k].words = (unsigned char)r_byte(r);
			wb->ctx[k].last = r_u32(r);
		}
	}
}

/* The blob read into *n (its counts cleared first, its entries each as it
 * is read): 0, or LB_EPARSE (then the counts are 0, no keys). */
static int decode(rbuf *r, ant_detect_noise *n, const void *blob, size_t len)
{
	int version;

	ant_detect_noise_clear(n);
	if (!blob || len < 2)   /* NULL: no state yet (and NULL + len is undefined) */
		return LB_EPARSE;
	r->p = r->end = blob;
	r->end += len;
	if (r_byte(r) != 'N' || ((version = (int)r_byte(r)) < 1 || version > 4))
		return LB_EPARSE;
	r_keys(r, n, version);
	r_volatile(r, n, version);
	r_suspects(r, n, version);
	r_words(r, n, version);
	if (r->bad || r->p != r->end) {
		ant_detect_noise_release(n);
		return LB_EPARSE;
	}
	return 0;
}

int ant_detect_noise_decode(ant_detect_noise *n, const void *blob, size_t len)
{
	rbuf r = { NULL, NULL, 0, 0 };

	if (decode(&r, n, blob, len) < 0)
		return LB_EPARSE;
	/* a blob from elsewhere may not be sorted: the merge needs it */
	ant_noise_sort_u64(n->keys, n->nkeys);
	return 0;
}

int ant_detect_noise_holds(const void *blob, size_t len, int64_t from)
{
	rbuf r = { NULL, NULL, 0, 1 };
	ant_detect_noise n;   /* not cleared: decode() sets what it reads */

	if (decode(&r, &n, blob, len) < 0)
		return LB_EPARSE;
	for (size_t k = 0; k < n.nsus; k++)
		if (n.sus[k].pending && n.sus[k].pending >= from)
			return 1;
	return 0;
}
