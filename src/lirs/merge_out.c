/*
 * merge_out.c: the merge table's output (lirs_merge_each(), lirs_merge.h):
 * the held records sorted, Last-Modified descending then URL key
 * ascending, in the hash table's free half, and unpacked one at a time.
 */
#include "merge_int.h"

#include <stdlib.h>
#include <string.h>

#include "lb_error.h"

static int64_t entry_lm(const lirs_merge_table *t, uint64_t s)
{
	const char *b = ref_ptr(&t->pool, SLOT_REF(s));
	uint32_t host;
	int64_t lm, ld;

	blob_nums(b, strlen(blob_key(b, &host)), t->opts.now, &lm, &ld);
	return lm;
}

/* Compares the whole keys (prefix + rest) of two slots bytewise. */
static int cmp_key(const void *a, const void *b, void *ctx)
{
	const lirs_merge_table *t = ctx;
	uint32_t ha, hb;
	const char *ra = blob_key(ref_ptr(&t->pool, SLOT_REF(*(const uint64_t *)a)), &ha);
	const char *rb = blob_key(ref_ptr(&t->pool, SLOT_REF(*(const uint64_t *)b)), &hb);
	const unsigned char *x = (const unsigned char *)host_str(t, ha);
	const unsigned char *y = (const unsigned char *)host_str(t, hb);

	if (ha == hb)
		return strcmp(ra, rb);
	for (;;) {
		if (!*x && ra) {
			x = (const unsigned char *)ra;
			ra = NULL;
		}
		if (!*y && rb) {
			y = (const unsigned char *)rb;
			rb = NULL;
		}
		if (*x != *y || !*x)
			return *x < *y ? -1 : *x > *y;
		x++;
		y++;
	}
}

/* The full order when Last-Modified does not fit the radix sort's 32 bits. */
static int cmp_full(const void *a, const void *b, void *ctx)
{
	const lirs_merge_table *t = ctx;
	int64_t x = entry_lm(t, *(const uint64_t *)a), y = entry_lm(t, *(const uint64_t *)b);

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_key(a, b, ctx);
}

/* Sorts v[0..n) by the top 32 bits (LSD radix, 8 bits a pass, tmp holds n). */
static void radix_hi(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t *orig = v;
	unsigned shift;

	for (shift = 32; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, i, sum = 0;
		uint64_t *swap;

		for (i = 0; i < n; i++)
			count[(v[i] >> shift) & 0xff]++;
		if (count[(v[0] >> shift) & 0xff] == n)
			continue;   /* every value has this digit */
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0xff]++] = v[i];
		swap = v;
		v = tmp;
		tmp = swap;
	}
	if (v != orig)   /* the result ended in the buffer */
		memcpy(orig, v, n * sizeof *v);
}

/*
 * Puts the refs in output order into slots[0..nents): Last-Modified
 * descending as a 32-bit rank (max - lm) radix-sorted in the free half of
 * the slots, then equal ranks by key.  The slots are no longer a hash
 * table afterwards (t->sorted).
 */
static void sort_entries(lirs_merge_table *t)
{
	uint64_t *v = t->slots;
	size_t n = 0, i, j;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (i = 0; i < t->nslots; i++)
		if (t->slots[i])
			v[n++] = SLOT_REF(t->slots[i]);
	t->sorted = 1;
	/* each Last-Modified decoded once, kept in the free half meanwhile */
	for (i = 0; i < n; i++) {
		int64_t lm;
		if (i + MERGE_AHEAD < n)   /* the blobs are in no useful order */
			__builtin_prefetch(ref_ptr(&t->pool, SLOT_REF(v[i + MERGE_AHEAD])));
		lm = entry_lm(t, v[i]);
		v[n + i] = (uint64_t)lm;
		lo = lm < lo ? lm : lo;
		hi = lm > hi ? lm : hi;
	}
	if (n < 2)
		return;
	if ((uint64_t)hi - (uint64_t)lo > UINT32_MAX) {
		qsort_r(v, n, sizeof *v, cmp_full, t);
		return;
	}
	for (i = 0; i < n; i++)
		v[i] |= ((uint64_t)hi - v[n + i]) << 32;
	radix_hi(v, v + n, n);   /* n <= nslots / 2: the free half */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] >> 32 == v[i] >> 32; j++)
			;
		if (j - i > 1)
			qsort_r(v + i, j - i, sizeof *v, cmp_key, t);
	}
}

static int emit(lirs_merge_table *t, const char *b, int (*fn)(void *, const lirs_record *), void *ctx)
{
	unsigned flags = (unsigned char)b[0];
	uint32_t host;
	const char *key = blob_key(b, &host), *p;
	size_t klen = strlen(key);
	lirs_record r;
	uint64_t v, i;

	memset(&r, 0, sizeof r);
	p = blob_nums(b, klen, t->opts.now, &r.last_modified, &r.last_detected);
	p = vget(p, &v);
	r.tz_offset = flags & B_TZH ? unzz(v) * 3600 : unzz(v);
	p = vget(p, &v);
	r.content_length = unzz(v);
	v = 0;
	if (flags & B_EXTRA)
		p = vget(p, &v);
	r.url = (char *)key;
	if (!(flags & B_URL) && host) {
		lb_buf_reset(&t->url);
		if (lb_buf_adds(&t->url, host_str(t, host)) != 0 || lb_buf_add(&t->url, key, klen) != 0)
			return LB_ENOMEM;
		r.url = t->url.data;
	}
	if (flags & B_URL) {
		r.url = (char *)p;
		p += strlen(p) + 1;
	}
	r.title = (char *)p;      p += strlen(p) + 1;
	r.author = (char *)p;     p += strlen(p) + 1;
	r.source_url = r.url;
	if (flags & B_SRC) {
		r.source_url = (char *)p;
		p += strlen(p) + 1;
	}
	r.extension = (char *)p;  p += strlen(p) + 1;
	if (v > t->maxextra) {
		char **x = realloc(t->extra, v * sizeof *x);
		if (!x)
			return LB_ENOMEM;
		t->extra = x;
		t->maxextra = v;
	}
	for (i = 0; i < v; i++) {
		t->extra[i] = (char *)p;
		p += strlen(p) + 1;
	}
	r.extra = v ? t->extra : NULL;
	r.nextra = v;
	return fn(ctx, &r);
}

int lirs_merge_each(lirs_merge_table *t, int (*fn)(void *ctx, const lirs_record *r), void *ctx)
{
	size_t i;
	int rc;

	if ((rc = lirs_merge_flush(t)) < 0 || (t->sorted && (rc = lirs_merge_rebuild(t)) < 0))
		return rc;
	sort_entries(t);
	for (i = 0; i < t->nents && rc == 0; i++) {
		if (i + MERGE_AHEAD < t->nents)
			__builtin_prefetch(ref_ptr(&t->pool, SLOT_REF(t->slots[i + MERGE_AHEAD])));
		rc = emit(t, ref_ptr(&t->pool, SLOT_REF(t->slots[i])), fn, ctx);
	}
	return rc;
}
