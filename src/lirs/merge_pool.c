/*
 * merge_pool.c: where the merge table keeps its winners: the pool of
 * 2 MiB chunks and the packed form of a record, its blob (merge_int.h
 * describes both).
 */
#include "merge_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lb_error.h"

/* ---- the blob pool ------------------------------------------------------ */

/*
 * A POOL_CHUNK-aligned mapping asked for a huge page: a duplicate URL
 * reads its blob at a random place (see slots_new() in merge.c).  NULL on
 * failure.
 */
static char *chunk_map(void)
{
	char *p, *a;
	size_t head;

	p = mmap(NULL, 2 * POOL_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + POOL_CHUNK - 1) & ~(uintptr_t)(POOL_CHUNK - 1));
	head = (size_t)(a - p);
	if (head)
		munmap(p, head);
	munmap(a + POOL_CHUNK, POOL_CHUNK - head);
#ifdef MADV_HUGEPAGE
	(void)madvise(a, POOL_CHUNK, MADV_HUGEPAGE);   /* a hint: fine if refused */
#endif
	return a;
}

/* Adds a chunk (size bytes, 0 for a regular one); its index in *idx. */
static int pool_chunk(pool *p, size_t size, size_t *idx)
{
	chunk *c;

	if (p->nchunks >= POOL_MAX_CHUNKS)
		return LB_ETOOBIG;   /* a ref has 13 bits for the chunk */
	if (!(c = lb_grow(p->chunks, &p->capchunks, p->nchunks + 1, sizeof *c, 16)))
		return LB_ENOMEM;
	p->chunks = c;
	c += p->nchunks;
	c->mapped = size == 0;
	if (!(c->p = size ? malloc(size) : chunk_map()))
		return LB_ENOMEM;
	*idx = p->nchunks++;
	return 0;
}

int lirs_merge_pool_alloc(pool *p, size_t n, uint32_t *ref, char **b)
{
	size_t c;
	int rc;

	n = round4(n);
	if (!p->nchunks || (n <= POOL_CHUNK - 4 && POOL_CHUNK - p->used < n)) {
		if ((rc = pool_chunk(p, 0, &c)) < 0)
			return rc;
		p->cur = c;
		p->used = c == 0 ? 4 : 0;   /* ref 0 means "empty slot" */
	}
	if (n > POOL_CHUNK - 4) {           /* a chunk of its own, never index 0 */
		if ((rc = pool_chunk(p, n, &c)) < 0)
			return rc;
		*ref = (uint32_t)c << REF_OFF_BITS;
	} else {
		*ref = (uint32_t)(p->cur << REF_OFF_BITS) | (uint32_t)(p->used >> 2);
		p->used += n;
	}
	p->live += n;
	*b = ref_ptr(p, *ref);
	return 0;
}

void lirs_merge_pool_release(pool *p)
{
	size_t i;

	for (i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].mapped)
			munmap(p->chunks[i].p, POOL_CHUNK);
		else
			free(p->chunks[i].p);
	}
	free(p->chunks);
	memset(p, 0, sizeof *p);
}

/* ---- blobs -------------------------------------------------------------- */

static size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static char *vput(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

static uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0); }
/* b - a, wrapping (no overflow). */
static int64_t ld_delta(int64_t a, int64_t b) { return (int64_t)((uint64_t)b - (uint64_t)a); }

/* A time zone in whole hours (JST's 32400) takes one byte (B_TZH). */
static uint64_t tz_code(int64_t tz)
{
	return tz % 3600 == 0 ? zz(tz / 3600) : zz(tz);
}

int lirs_merge_blob_plan(const lirs_record *r, const size_t *len, const lb_buf *key,
			 uint32_t host, size_t pre, int64_t base, plan *pl)
{
	const char *src = nz(r->source_url);
	size_t n = vlen(host) + key->len - pre + 1, i;

	memset(pl, 0, sizeof *pl);
	if (len[0] != key->len || memcmp(r->url, key->data, len[0]) != 0) {
		pl->flags |= B_URL;
		pl->len[0] = len[0];
		n += pl->len[0] + 1;
	}
	if (len[3] != len[0] || memcmp(src, r->url, len[0]) != 0) {
		pl->flags |= B_SRC;
		pl->len[3] = len[3];
		n += pl->len[3] + 1;
	}
	if (r->tz_offset % 3600 == 0)
		pl->flags |= B_TZH;
	pl->len[1] = len[1];
	pl->len[2] = len[2];
	pl->len[4] = len[4];
	n += pl->len[1] + pl->len[2] + pl->len[4] + 3;
	n += vlen(zz(ld_delta(base, r->last_modified))) +
	     vlen(zz(ld_delta(r->last_modified, r->last_detected))) +
	     vlen(tz_code(r->tz_offset)) + vlen(zz(r->content_length));
	if (r->nextra) {
		pl->flags |= B_EXTRA;
		n += vlen(r->nextra);
		for (i = 0; i < r->nextra; i++)
			n += strlen(nz(r->extra[i])) + 1;
	}
	pl->rest = n;
	pl->total = 1 + vlen(n) + n;
	if (pl->total > UINT32_MAX)
		return LB_ETOOBIG;   /* REST and the pool's sizes are 32-bit */
	return 0;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

void lirs_merge_blob_fill(char *b, const plan *pl, const lirs_record *r, const lb_buf *key,
			  uint32_t host, size_t pre, int64_t base)
{
	char *p = b;
	size_t i;

	*p++ = (char)pl->flags;
	p = vput(p, pl->rest);
	p = vput(p, host);
	p = put(p, key->data + pre, key->len - pre);
	p = vput(p, zz(ld_delta(base, r->last_modified)));
	p = vput(p, zz(ld_delta(r->last_modified, r->last_detected)));
	p = vput(p, tz_code(r->tz_offset));
	p = vput(p, zz(r->content_length));
	if (pl->flags & B_EXTRA)
		p = vput(p, r->nextra);
	if (pl->flags & B_URL)
		p = put(p, r->url, pl->len[0]);
	p = put(p, nz(r->title), pl->len[1]);
	p = put(p, nz(r->author), pl->len[2]);
	if (pl->flags & B_SRC)
		p = put(p, nz(r->source_url), pl->len[3]);
	p = put(p, nz(r->extension), pl->len[4]);
	for (i = 0; i < r->nextra; i++)
		p = put(p, nz(r->extra[i]), strlen(nz(r->extra[i])));
}
