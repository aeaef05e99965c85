/*
 * merge.c: the merge table's hash table and its streaming
 * lirs_merge_add() (lirs_merge.h): one held record per URL key, looked up
 * MERGE_AHEAD records after it arrives.  The blobs it holds are in
 * merge_pool.c, the output order in merge_out.c, the rules it applies in
 * merge_rule.c; merge_int.h describes the memory layout.
 */
#include "merge_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lb_error.h"
#include "lb_url.h"

/*
 * Prefixes are interned freely up to this many hosts, then only while
 * there is at most one host for every 4 URLs: a table of URLs on distinct
 * hosts does not pay for interning what never repeats.
 */
#define HOSTS_FREE 65536

/*
 * The slot array, zeroed.  Big arrays are mapped and asked for huge pages:
 * every lookup lands on a random slot, and with 4 KiB pages each one was
 * also a TLB miss (perf: most of lirs_merge_add()'s time was that one load).
 */
#define SLOTS_MAP_MIN ((size_t)2 << 20)

static uint64_t *slots_new(size_t n)
{
	size_t bytes = n * sizeof(uint64_t);
	void *p;

	if (n > SIZE_MAX / sizeof(uint64_t))
		return NULL;
	if (bytes < SLOTS_MAP_MIN)
		return calloc(n, sizeof(uint64_t));
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE);   /* a hint: fine if refused */
#endif
	return p;
}

static void slots_free(uint64_t *s, size_t n)
{
	if (s && n * sizeof *s >= SLOTS_MAP_MIN)
		munmap(s, n * sizeof *s);
	else
		free(s);
}

lirs_merge_table *lirs_merge_new(const lirs_merge_opts *opts)
{
	lirs_merge_table *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->opts = *opts;
	for (size_t i = 0; i < MERGE_AHEAD; i++) {
		lb_buf_init(&t->pend[i].buf);
		lb_buf_init(&t->pend[i].key);
	}
	lb_buf_init(&t->key);
	lb_buf_init(&t->url);
	lb_buf_init(&t->hostbuf);
	t->bits = 10;
	t->nslots = (size_t)1 << t->bits;
	t->slots = slots_new(t->nslots);
	t->nhslots = 64;
	t->hslots = calloc(t->nhslots, sizeof *t->hslots);
	t->hostoff = lb_grow(NULL, &t->caphosts, 1, sizeof *t->hostoff, 64);
	if (!t->slots || !t->hslots || !t->hostoff || lb_buf_addc(&t->hostbuf, '\0') != 0) {
		lirs_merge_free(t);
		return NULL;
	}
	t->hostoff[0] = 0;
	t->nhosts = 1;
	return t;
}

void lirs_merge_free(lirs_merge_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < MERGE_AHEAD; i++) {
		lb_buf_release(&t->pend[i].buf);
		lb_buf_release(&t->pend[i].key);
		free(t->pend[i].off);
		free(t->pend[i].extra);
	}
	lirs_merge_pool_release(&t->pool);
	slots_free(t->slots, t->nslots);
	free(t->hslots);
	free(t->hostoff);
	free(t->extra);
	lb_buf_release(&t->hostbuf);
	lb_buf_release(&t->key);
	lb_buf_release(&t->url);
	free(t);
}

const lirs_merge_stats *lirs_merge_get_stats(lirs_merge_table *t)
{
	lirs_merge_flush(t);   /* a failure shows in lirs_merge_each() */
	return &t->st;
}

/* A 64-bit hash of the key, 8 bytes a step (multiply-xorshift mixing as in
 * splitmix64): faster than byte-wise FNV-1a on 30-60-byte URLs. */
static uint64_t hash_key(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x94D049BB133111EBULL;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 32);
}

static size_t home(const lirs_merge_table *t, uint32_t tag)
{
	return (size_t)(tag >> (32 - t->bits));
}

/* The length of key's "scheme://authority", or 0. */
static size_t prefix_len(const char *key)
{
	const char *c = strchr(key, ':');

	if (!c || c[1] != '/' || c[2] != '/')
		return 0;
	return (size_t)(c + 3 - key) + strcspn(c + 3, "/?#");
}

static int grow_hosts(lirs_merge_table *t)
{
	size_t n = t->nhslots * 2, i, j;
	uint64_t *s = calloc(n, sizeof *s);

	if (!s)
		return LB_ENOMEM;
	for (i = 0; i < t->nhslots; i++) {
		if (!t->hslots[i])
			continue;
		for (j = (size_t)(t->hslots[i] >> 32) & (n - 1); s[j]; j = (j + 1) & (n - 1))
			;
		s[j] = t->hslots[i];
	}
	free(t->hslots);
	t->hslots = s;
	t->nhslots = n;
	return 0;
}

/*
 * Sets t->khost and t->kpre for t->key: the id of its prefix, interning
 * it when new (and interning is open), else host 0 and the whole key.  A
 * prefix is interned at its first URL or never, so every key of a table
 * has one form.
 */
static int intern_host(lirs_merge_table *t)
{
	size_t pre = prefix_len(t->key.data), mask = t->nhslots - 1, j;
	uint32_t tag;
	uint32_t *o;

	t->khost = 0;
	t->kpre = 0;
	if (pre == 0)
		return 0;
	tag = (uint32_t)(hash_key(t->key.data, pre) >> 32);
	for (j = tag & mask; t->hslots[j]; j = (j + 1) & mask) {
		uint32_t id = SLOT_REF(t->hslots[j]);
		const char *h = host_str(t, id);
		if (SLOT_TAG(t->hslots[j]) == tag && strncmp(h, t->key.data, pre) == 0 && !h[pre]) {
			t->khost = id;
			t->kpre = pre;
			return 0;
		}
	}
	if (t->hosts_closed || (t->nhosts >= HOSTS_FREE && t->nhosts * 4 > t->nents)) {
		t->hosts_closed = 1;
		return 0;
	}
	if (t->nhosts >= UINT32_MAX || t->hostbuf.len > UINT32_MAX - pre - 1) {
		t->hosts_closed = 1;
		return 0;
	}
	if (!(o = lb_grow(t->hostoff, &t->caphosts, t->nhosts + 1, sizeof *o, 64)))
		return LB_ENOMEM;
	t->hostoff = o;
	o[t->nhosts] = (uint32_t)t->hostbuf.len;
	if (lb_buf_add(&t->hostbuf, t->key.data, pre) != 0 || lb_buf_addc(&t->hostbuf, '\0') != 0)
		return LB_ENOMEM;
	t->hslots[j] = (uint64_t)tag << 32 | (uint32_t)t->nhosts;
	t->khost = (uint32_t)t->nhosts++;
	t->kpre = pre;
	if (t->nhosts * 2 > t->nhslots)
		return grow_hosts(t);
	return 0;
}

/* Sets t->key to the whole key of blob b. */
static int whole_key(lirs_merge_table *t, const char *b)
{
	uint32_t host;
	const char *rest = blob_key(b, &host);

	lb_buf_reset(&t->key);
	return lb_buf_adds(&t->key, host_str(t, host)) != 0 ? LB_ENOMEM : lb_buf_adds(&t->key, rest);
}

static void place(uint64_t *slots, size_t mask, size_t j, uint64_t s)
{
	while (slots[j])
		j = (j + 1) & mask;
	slots[j] = s;
}

static int grow_slots(lirs_merge_table *t)
{
	size_t n = t->nslots * 2, i;
	uint64_t *s;

	if (t->bits >= 32)
		return LB_ETOOBIG;   /* a slot's tag is 32 bits */
	if (!(s = slots_new(n)))
		return LB_ENOMEM;
	t->bits++;
	for (i = 0; i < t->nslots; i++)
		if (t->slots[i])
			place(s, n - 1, home(t, SLOT_TAG(t->slots[i])), t->slots[i]);
	slots_free(t->slots, t->nslots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

/*
 * After lirs_merge_each() the first nents slots hold the refs in output order:
 * hash every key again into a fresh array.
 */
int lirs_merge_rebuild(lirs_merge_table *t)
{
	uint64_t *s = slots_new(t->nslots);
	size_t i;

	if (!s)
		return LB_ENOMEM;
	for (i = 0; i < t->nents; i++) {
		uint32_t ref = SLOT_REF(t->slots[i]), tag;
		if (whole_key(t, ref_ptr(&t->pool, ref)) != 0) {
			slots_free(s, t->nslots);
			return LB_ENOMEM;
		}
		tag = (uint32_t)(hash_key(t->key.data, t->key.len) >> 32);
		place(s, t->nslots - 1, home(t, tag), (uint64_t)tag << 32 | ref);
	}
	slots_free(t->slots, t->nslots);
	t->slots = s;
	t->sorted = 0;
	return 0;
}

/* Copies every live blob into a fresh pool: garbage returns to malloc. */
static int compact(lirs_merge_table *t)
{
	pool np;
	size_t i;
	int rc;

	memset(&np, 0, sizeof np);
	for (i = 0; i < t->nslots; i++) {
		uint64_t s = t->slots[i];
		const char *old;
		uint32_t ref;
		size_t n;
		char *b;

		if (!s)
			continue;
		old = ref_ptr(&t->pool, SLOT_REF(s));
		n = blob_total(old);
		if ((rc = lirs_merge_pool_alloc(&np, n, &ref, &b)) < 0) {
			lirs_merge_pool_release(&np);
			return rc;
		}
		memcpy(b, old, n);
		t->slots[i] = (s & ~(uint64_t)UINT32_MAX) | ref;
	}
	lirs_merge_pool_release(&t->pool);
	t->pool = np;
	return 0;
}

/* Compacts the pool once garbage outweighs live data (whole operations
 * only: every blob is reachable from a slot). */
static int maybe_compact(lirs_merge_table *t)
{
	if (t->pool.garbage > t->pool.live && t->pool.garbage > 8 * POOL_CHUNK)
		return compact(t);
	return 0;
}

/* The slot holding t->key (1) or where it goes (0). */
static int lookup(const lirs_merge_table *t, uint32_t tag, size_t *slot)
{
	size_t mask = t->nslots - 1, j = home(t, tag);
	uint32_t host;
	uint64_t s;

	for (; (s = t->slots[j]) != 0; j = (j + 1) & mask) {
		const char *k;
		if (SLOT_TAG(s) != tag)
			continue;
		k = blob_key(ref_ptr(&t->pool, SLOT_REF(s)), &host);
		if (host == t->khost && strcmp(k, t->key.data + t->kpre) == 0)
			break;
	}
	*slot = j;
	return s != 0;
}

static int insert(lirs_merge_table *t, uint32_t tag, size_t slot, const lirs_record *r, const size_t *len)
{
	uint32_t ref;
	plan pl;
	char *b;
	int rc;

	if ((rc = lirs_merge_blob_plan(r, len, &t->key, t->khost, t->kpre, t->opts.now, &pl)) < 0 ||
	    (rc = lirs_merge_pool_alloc(&t->pool, pl.total, &ref, &b)) < 0)
		return rc;
	lirs_merge_blob_fill(b, &pl, r, &t->key, t->khost, t->kpre, t->opts.now);
	t->slots[slot] = (uint64_t)tag << 32 | ref;
	t->nents++;
	t->st.kept++;
	/* keep the load under 1/2 so probes stay short (and lirs_merge_each()
	 * finds its sorting space in the free half) */
	if (t->nents * 2 > t->nslots)
		return grow_slots(t);
	return 0;
}

/* Replaces the blob of the slot: in place when the new one fits. */
static int replace(lirs_merge_table *t, size_t slot, const lirs_record *r, const size_t *len)
{
	char *b = ref_ptr(&t->pool, SLOT_REF(t->slots[slot]));
	size_t had = round4(blob_total(b));
	uint32_t ref;
	plan pl;
	int rc;

	if ((rc = lirs_merge_blob_plan(r, len, &t->key, t->khost, t->kpre, t->opts.now, &pl)) < 0)
		return rc;
	if (round4(pl.total) > had) {
		if ((rc = lirs_merge_pool_alloc(&t->pool, pl.total, &ref, &b)) < 0)
			return rc;
		t->slots[slot] = (t->slots[slot] & ~(uint64_t)UINT32_MAX) | ref;
	} else {
		had -= round4(pl.total);   /* the tail left over */
	}
	t->pool.garbage += had;
	t->pool.live -= had;
	lirs_merge_blob_fill(b, &pl, r, &t->key, t->khost, t->kpre, t->opts.now);
	return 0;
}

/* Looks the staged record up: inserts it, replaces the held one or loses. */
static int process(lirs_merge_table *t, struct pend *p)
{
	const lirs_record *r = &p->r;
	lb_buf k = t->key;
	size_t slot;
	int64_t lm, ld;
	int rc;

	t->key = p->key;   /* the key moves back for the lookup */
	p->key = k;
	t->khost = p->khost;
	t->kpre = p->kpre;
	if (!lookup(t, p->tag, &slot))
		return (rc = insert(t, p->tag, slot, r, p->len)) < 0 ? rc : maybe_compact(t);
	blob_nums(ref_ptr(&t->pool, SLOT_REF(t->slots[slot])), t->key.len - t->kpre, t->opts.now, &lm, &ld);
	if (!lirs_merge_supersedes(r->last_modified, r->last_detected, lm, ld)) {
		t->st.superseded++;
		return 0;
	}
	t->st.replaced++;
	return (rc = replace(t, slot, r, p->len)) < 0 ? rc : maybe_compact(t);
}

int lirs_merge_flush(lirs_merge_table *t)
{
	int rc;

	while (t->npend) {
		struct pend *p = &t->pend[t->pfirst];
		t->pfirst = (t->pfirst + 1) % MERGE_AHEAD;
		t->npend--;
		if ((rc = process(t, p)) < 0 && !t->failed)
			t->failed = rc;
	}
	return t->failed;
}

/* Copies r into p (the reader's record is borrowed). */
static int copy_record(struct pend *p, const lirs_record *r)
{
	const char *f[5] = { r->url, nz(r->title), nz(r->author), nz(r->source_url), nz(r->extension) };
	size_t off[5], i, n = 0;
	size_t *o;
	char **x;

	for (i = 0; i < 5; i++) {
		p->len[i] = strlen(f[i]);
		n += p->len[i] + 1;
	}
	lb_buf_reset(&p->buf);
	if (lb_buf_grow(&p->buf, n) != 0)
		return LB_ENOMEM;
	for (i = 0; i < 5; i++) {
		off[i] = p->buf.len;
		memcpy(p->buf.data + p->buf.len, f[i], p->len[i] + 1);
		p->buf.len += p->len[i] + 1;
	}
	if (r->nextra) {
		if (!(o = lb_grow(p->off, &p->capoff, r->nextra, sizeof *o, 4)))
			return LB_ENOMEM;
		p->off = o;
		if (!(x = realloc(p->extra, p->capoff * sizeof *x)))
			return LB_ENOMEM;
		p->extra = x;
		for (i = 0; i < r->nextra; i++) {
			p->off[i] = p->buf.len;
			if (lb_buf_add(&p->buf, nz(r->extra[i]), strlen(nz(r->extra[i])) + 1) != 0)
				return LB_ENOMEM;
		}
	}
	p->r = *r;
	p->r.url = p->buf.data + off[0];
	p->r.title = p->buf.data + off[1];
	p->r.author = p->buf.data + off[2];
	p->r.source_url = p->buf.data + off[3];
	p->r.extension = p->buf.data + off[4];
	for (i = 0; i < r->nextra; i++)
		p->extra[i] = p->buf.data + p->off[i];
	p->r.extra = r->nextra ? p->extra : NULL;
	return 0;
}

/* Where the record half-way along the queue will look: the blob of its
 * URL, if held, is fetched too. */
static void prefetch_blob(const lirs_merge_table *t)
{
	const struct pend *p = &t->pend[(t->pfirst + t->npend / 2) % MERGE_AHEAD];
	size_t mask = t->nslots - 1, j = home(t, p->tag);
	uint64_t s;

	for (; (s = t->slots[j]) != 0; j = (j + 1) & mask)
		if (SLOT_TAG(s) == p->tag) {
			__builtin_prefetch(ref_ptr(&t->pool, SLOT_REF(s)));
			return;
		}
}

int lirs_merge_add(lirs_merge_table *t, const lirs_record *r)
{
	struct pend *p;
	int rc;

	t->st.read++;
	switch (lirs_merge_check_at(r, t->opts.now, t->opts.max_age, t->opts.max_future)) {
	case LIRS_MERGE_UNUSABLE:
		t->st.dropped_unusable++;
		return 0;
	case LIRS_MERGE_STALE:
		t->st.dropped_stale++;
		return 0;
	case LIRS_MERGE_FUTURE:
		t->st.dropped_future++;
		return 0;
	}
	if (t->failed)
		return t->failed;
	if (t->sorted && (rc = lirs_merge_rebuild(t)) < 0)
		return rc;
	if (t->npend == MERGE_AHEAD) {
		p = &t->pend[t->pfirst];
		t->pfirst = (t->pfirst + 1) % MERGE_AHEAD;
		t->npend--;
		if ((rc = process(t, p)) < 0)
			return t->failed = rc;
	}
	p = &t->pend[(t->pfirst + t->npend) % MERGE_AHEAD];
	lb_buf_reset(&t->key);
	if ((rc = copy_record(p, r)) < 0 || (rc = lb_url_key(&t->key, r->url)) < 0 ||
	    (rc = intern_host(t)) < 0)
		return t->failed = rc;
	p->tag = (uint32_t)(hash_key(t->key.data, t->key.len) >> 32);
	p->khost = t->khost;
	p->kpre = t->kpre;
	{
		lb_buf k = p->key;   /* the key moves to the staged record */
		p->key = t->key;
		t->key = k;
	}
	__builtin_prefetch(&t->slots[home(t, p->tag)]);
	t->npend++;
	if (t->npend > 1)
		prefetch_blob(t);
	return 0;
}
