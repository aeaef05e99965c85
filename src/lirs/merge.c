/*
 * merge.c: URL keys, the winner rule and the merge table (lirs_merge.h).
 *
 * Memory (the target: <= 100 B per distinct URL): an 8-byte hash slot
 * (load <= 1/2) and one blob per distinct URL, the record packed into
 * about the bytes of its text (varint numbers, the URL and the source
 * stored only when they differ from the key and the URL).  A replacement
 * reuses the blob when it fits; otherwise the old blob becomes garbage,
 * and the pool is compacted when garbage outweighs live data.  The output
 * is sorted in the hash table's free half: no extra array.
 */
#include "lirs_merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lb_url.h"

/* ---- URL keys (RFC 3986 §3, §6.2.2.1, §6.2.3) ---------------------------- */

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

/* Nonzero when port (n digits, maybe none) is the scheme's default. */
static int default_port(const char *scheme, size_t slen, const char *port, size_t n)
{
	unsigned long v = 0, dflt = lb_url_http_port(scheme, slen);
	size_t i;

	if (n == 0)
		return 1;   /* "host:" — §6.2.3: an empty port is the default */
	for (i = 0; i < n; i++) {
		if (!is_digit((unsigned char)port[i]) || v > 100000)
			return 0;
		v = v * 10 + (unsigned long)(port[i] - '0');
	}
	return dflt && v == dflt;
}

static int has_upper(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			return 1;
	return 0;
}

/* Appends s[0..n) lowercased, leaving percent-escapes as written. */
static int add_lower(lb_buf *out, const char *s, size_t n)
{
	size_t i;

	if (lb_buf_grow(out, n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		out->data[out->len + i] = (char)lower((unsigned char)s[i]);
	out->len += n;
	out->data[out->len] = '\0';
	return 0;
}

int lirs_merge_url_key(lb_buf *out, const char *url)
{
	size_t sl = lb_url_scheme_len(url), start = out->len;
	const char *auth, *end, *at, *host, *colon, *p;
	char scheme[8];

	if (sl == 0 || strncmp(url + sl, "://", 3) != 0)
		return lb_buf_adds(out, url);
	auth = url + sl + 3;
	end = auth + strcspn(auth, "/?#");
	/* userinfo is case-sensitive: keep it as written */
	for (at = NULL, p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	host = at ? at + 1 : auth;
	/* The port follows the first ':' after the host (after the ']' of an
	 * IPv6 literal).  The first, not the last: in a malformed "h::" the
	 * rest is kept as written, so that a key is its own key (fuzz_url). */
	p = host;
	if (host < end && *host == '[') {
		const char *rb = memchr(host, ']', (size_t)(end - host));
		p = rb ? rb : end;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	/* The common case: already a key (lowercase, no port, a path). */
	if (!colon && *end == '/' && !has_upper(url, (size_t)(end - url)))
		return lb_buf_add(out, url, (size_t)(end - url) + strlen(end));
	if (add_lower(out, url, sl + 3) != 0 || lb_buf_add(out, auth, (size_t)(host - auth)) != 0 ||
	    add_lower(out, host, (size_t)((colon ? colon : end) - host)) != 0)
		return -1;
	memcpy(scheme, out->data + start, sl < sizeof scheme ? sl : sizeof scheme);
	if (colon && !default_port(scheme, sl, colon + 1, (size_t)(end - colon - 1)) &&
	    lb_buf_add(out, colon, (size_t)(end - colon)) != 0)
		return -1;
	/* §6.2.3: an empty path is "/" for http and https */
	if (*end != '/' && lb_url_http_port(scheme, sl) && lb_buf_addc(out, '/') != 0)
		return -1;
	return lb_buf_adds(out, end);
}

/* ---- rules ------------------------------------------------------------- */

int lirs_merge_supersedes(int64_t lm_new, int64_t ld_new, int64_t lm_old, int64_t ld_old)
{
	if (lm_new != lm_old)
		return lm_new > lm_old;
	return ld_new >= ld_old;   /* a tie goes to the later record */
}

/* n seconds after now, beyond a tolerance: overflow-free (any int64). */
static int beyond(int64_t t, int64_t now, int64_t tolerance)
{
	return t > now && (uint64_t)t - (uint64_t)now > (uint64_t)tolerance;
}

int lirs_merge_future(int64_t t, int64_t now, int64_t max_future)
{
	if (max_future == 0)
		max_future = LIRS_DEFAULT_MAX_FUTURE;
	return max_future > 0 && beyond(t, now, max_future);
}

int lirs_merge_check_at(const lirs_record *r, int64_t now, int64_t max_age, int64_t max_future)
{
	if (r->last_modified == 0 || r->last_detected == 0 || !r->url || !r->url[0])
		return LIRS_MERGE_UNUSABLE;
	if (max_future == 0)
		max_future = LIRS_DEFAULT_MAX_FUTURE;
	/* A peer whose clock runs ahead must not win over every valid record
	 * (lirs_merge_supersedes()) nor stay fresh for ever: its record is dropped. */
	if (max_future > 0 && (beyond(r->last_modified, now, max_future) ||
			       beyond(r->last_detected, now, max_future)))
		return LIRS_MERGE_FUTURE;
	if (max_age == 0)
		max_age = LIRS_DEFAULT_MAX_AGE;
	/* LIRS 2.1 §4: discard records last detected more than max_age ago */
	if (max_age > 0 && r->last_detected < now - max_age)
		return LIRS_MERGE_STALE;
	return LIRS_MERGE_USABLE;
}

int lirs_merge_check(const lirs_record *r, int64_t now, int64_t max_age)
{
	return lirs_merge_check_at(r, now, max_age, 0);
}

/* ---- the blob pool ------------------------------------------------------ */

/*
 * Each winner is one blob in a pool of 2 MiB chunks, named by a 32-bit ref:
 * the chunk's index (13 bits) and the offset in 4-byte units (19 bits).  A
 * slot of the hash table is then 8 bytes (a hash tag and a ref) instead of
 * a pointer, a hash and an entry.  A blob longer than a chunk gets a chunk
 * of its own.  Ref 0 is never handed out (the first chunk starts at offset
 * 4), so 0 marks an empty slot.
 */
#define POOL_SHIFT 21
#define POOL_CHUNK ((size_t)1 << POOL_SHIFT)
#define REF_OFF_BITS (POOL_SHIFT - 2)
#define REF_OFF_MASK ((1u << REF_OFF_BITS) - 1)
#define POOL_MAX_CHUNKS ((size_t)1 << (32 - REF_OFF_BITS))

typedef struct chunk {
	char *p;
	int mapped;            /* a POOL_CHUNK mapping, else malloc()ed */
} chunk;

typedef struct pool {
	chunk *chunks;
	size_t nchunks, capchunks;
	size_t cur, used;      /* the chunk small blobs go to, bytes used in it */
	size_t live, garbage;  /* bytes, rounded as allocated */
} pool;

static size_t round4(size_t n) { return (n + 3) & ~(size_t)3; }

static char *ref_ptr(const pool *p, uint32_t ref)
{
	return p->chunks[ref >> REF_OFF_BITS].p + ((size_t)(ref & REF_OFF_MASK) << 2);
}

/*
 * A POOL_CHUNK-aligned mapping asked for a huge page: a duplicate URL
 * reads its blob at a random place (see slots_new()).  NULL on failure.
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

/* Adds a chunk (size bytes, 0 for a regular one); its index, or -1. */
static long pool_chunk(pool *p, size_t size)
{
	chunk *c;

	if (p->nchunks >= POOL_MAX_CHUNKS) {
		errno = EOVERFLOW;
		return -1;
	}
	if (!(c = lb_grow(p->chunks, &p->capchunks, p->nchunks + 1, sizeof *c, 16)))
		return -1;
	p->chunks = c;
	c += p->nchunks;
	c->mapped = size == 0;
	if (!(c->p = size ? malloc(size) : chunk_map()))
		return -1;
	return (long)p->nchunks++;
}

/* n bytes (rounded up to 4) named *ref; NULL when out of memory. */
static char *pool_alloc(pool *p, size_t n, uint32_t *ref)
{
	long c;

	n = round4(n);
	if (!p->nchunks || (n <= POOL_CHUNK - 4 && POOL_CHUNK - p->used < n)) {
		if ((c = pool_chunk(p, 0)) < 0)
			return NULL;
		p->cur = (size_t)c;
		p->used = c == 0 ? 4 : 0;   /* ref 0 means "empty slot" */
	}
	if (n > POOL_CHUNK - 4) {           /* a chunk of its own, never index 0 */
		if ((c = pool_chunk(p, n)) < 0)
			return NULL;
		*ref = (uint32_t)c << REF_OFF_BITS;
	} else {
		*ref = (uint32_t)(p->cur << REF_OFF_BITS) | (uint32_t)(p->used >> 2);
		p->used += n;
	}
	p->live += n;
	return ref_ptr(p, *ref);
}

static void pool_release(pool *p)
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

/*
 * A blob holds one record in about the bytes of its text:
 *
 *   flags, varint REST (bytes after it), varint HOST, key NUL,
 *   varints: zigzag (Last-Modified - now), zigzag (Last-Detected -
 *            Last-Modified), zigzag tz (in hours with B_TZH),
 *            zigzag Content-Length,
 *            [number of extra fields],
 *   [url NUL] title NUL author NUL [source NUL] extension NUL extra NUL...
 *
 * The key is stored without its "scheme://authority" prefix when that is
 * interned (HOST > 0, see intern_host()): the URLs of one site share it.
 * The URL is stored only when it differs from its key (B_URL), the source
 * only when it differs from the URL (B_SRC: the common "source = page").
 * The key comes first so that a lookup compares it without decoding.
 */
enum { B_URL = 1, B_SRC = 2, B_EXTRA = 4, B_TZH = 8 };

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

static const char *vget(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned s = 0;
	unsigned char c;

	do {
		c = (unsigned char)*p++;
		if (s < 64)
			x |= (uint64_t)(c & 0x7f) << s;
		s += 7;
	} while (c & 0x80);
	*v = x;
	return p;
}

static uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0); }
static int64_t unzz(uint64_t u) { return (int64_t)((u >> 1) ^ (0 - (u & 1))); }
/* b - a, wrapping (no overflow); a + d wrapping. */
static int64_t ld_delta(int64_t a, int64_t b) { return (int64_t)((uint64_t)b - (uint64_t)a); }
static int64_t ld_add(int64_t a, int64_t d) { return (int64_t)((uint64_t)a + (uint64_t)d); }

/* A time zone in whole hours (JST's 32400) takes one byte (B_TZH). */
static uint64_t tz_code(int64_t tz)
{
	return tz % 3600 == 0 ? zz(tz / 3600) : zz(tz);
}

static const char *nz(const char *s) { return s ? s : ""; }

/* What a record's blob will hold: flags, string lengths and sizes. */
typedef struct plan {
	unsigned flags;
	size_t len[5];      /* url (0 unless B_URL), title, author, source (0 unless B_SRC), ext */
	size_t rest, total;
} plan;

/* The key's part after the interned prefix; *host is the prefix's id. */
static const char *blob_key(const char *b, uint32_t *host)
{
	uint64_t v;

	b++;
	while (*b & 0x80)
		b++;
	b = vget(b + 1, &v);
	*host = (uint32_t)v;
	return b;
}

static size_t blob_total(const char *b)
{
	uint64_t rest;
	const char *p = vget(b + 1, &rest);

	return (size_t)(p - b) + (size_t)rest;
}

/* key is the record's key, of which the first pre bytes are host's. */
/* len: the lengths of url, title, author, source and extension. */
static int make_plan(const lirs_record *r, const size_t *len, const lb_buf *key, uint32_t host,
		     size_t pre, int64_t base, plan *pl)
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
	if (pl->total > UINT32_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	return 0;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}

static void fill(char *b, const plan *pl, const lirs_record *r, const lb_buf *key,
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

/* The numbers of a blob whose stored key is klen bytes long; returns the
 * first string. */
static const char *blob_nums(const char *b, size_t klen, int64_t base, int64_t *lm, int64_t *ld)
{
	uint32_t host;
	uint64_t v;
	const char *p = vget(blob_key(b, &host) + klen + 1, &v);

	*lm = ld_add(base, unzz(v));
	p = vget(p, &v);
	*ld = (int64_t)((uint64_t)*lm + (uint64_t)unzz(v));
	return p;
}

/* ---- the table ---------------------------------------------------------- */

/*
 * Records staged before their lookup: the slot (and the blob of a URL seen
 * before) is a cache miss on a big table, so lirs_merge_add() copies a record,
 * computes its key and prefetches, and looks it up MERGE_AHEAD records
 * later, when the memory has arrived.  The order of the lookups is the
 * order of the records: the result is the same.
 */
#define MERGE_AHEAD 8

struct lirs_merge_table {
	lirs_merge_opts opts;
	lirs_merge_stats st;
	/*
	 * Open addressing, linear probing, load <= 1/2.  A slot is
	 * (tag << 32 | ref), 0 when empty; tag is the top half of the key's
	 * hash, and its top bits are the home slot, so growing needs no key.
	 */
	uint64_t *slots;
	size_t nslots;      /* 1 << bits */
	unsigned bits;
	size_t nents;
	int sorted;         /* lirs_merge_each() reused the slots: rebuild first */
	pool pool;
	/* Interned key prefixes ("scheme://authority"); host 0 is "". */
	lb_buf hostbuf;       /* the prefixes, each NUL-terminated */
	uint32_t *hostoff;  /* where host i starts in hostbuf */
	size_t nhosts, caphosts;
	uint64_t *hslots;   /* (hash tag << 32 | id); load <= 1/2 */
	size_t nhslots;
	int hosts_closed;   /* too many distinct hosts: intern no more */
	lb_buf key;           /* scratch: the key of the record being added */
	uint32_t khost;     /* its host id */
	size_t kpre;        /* the length of its interned prefix (0 for host 0) */
	lb_buf url;           /* scratch for lirs_merge_each() */
	char **extra;
	size_t maxextra;
	/* records staged for their lookup (see lirs_merge_add()) */
	struct pend {
		lirs_record r;      /* its strings in buf */
		lb_buf buf, key;
		size_t *off, capoff;
		char **extra;
		uint32_t tag, khost;
		size_t kpre;
		size_t len[5];      /* strlen of url, title, author, source, extension */
	} pend[MERGE_AHEAD];
	size_t pfirst, npend;
	int failed;         /* a staged record could not be added */
};

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

#define SLOT_REF(s) ((uint32_t)(s))
#define SLOT_TAG(s) ((uint32_t)((s) >> 32))

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
	pool_release(&t->pool);
	slots_free(t->slots, t->nslots);
	free(t->hslots);
	free(t->hostoff);
	free(t->extra);
	lb_buf_release(&t->hostbuf);
	lb_buf_release(&t->key);
	lb_buf_release(&t->url);
	free(t);
}

static int flush(lirs_merge_table *t);

const lirs_merge_stats *lirs_merge_get_stats(lirs_merge_table *t)
{
	flush(t);   /* a failure shows in lirs_merge_each() */
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

static const char *host_str(const lirs_merge_table *t, uint32_t id)
{
	return t->hostbuf.data + t->hostoff[id];
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
		return -1;
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
		return -1;
	t->hostoff = o;
	o[t->nhosts] = (uint32_t)t->hostbuf.len;
	if (lb_buf_add(&t->hostbuf, t->key.data, pre) != 0 || lb_buf_addc(&t->hostbuf, '\0') != 0)
		return -1;
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
	return lb_buf_adds(&t->key, host_str(t, host)) != 0 ? -1 : lb_buf_adds(&t->key, rest);
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

	if (t->bits >= 32) {
		errno = EOVERFLOW;
		return -1;
	}
	if (!(s = slots_new(n)))
		return -1;
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
static int rebuild(lirs_merge_table *t)
{
	uint64_t *s = slots_new(t->nslots);
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < t->nents; i++) {
		uint32_t ref = SLOT_REF(t->slots[i]), tag;
		if (whole_key(t, ref_ptr(&t->pool, ref)) != 0) {
			slots_free(s, t->nslots);
			return -1;
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
		if (!(b = pool_alloc(&np, n, &ref))) {
			pool_release(&np);
			return -1;
		}
		memcpy(b, old, n);
		t->slots[i] = (s & ~(uint64_t)UINT32_MAX) | ref;
	}
	pool_release(&t->pool);
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

	if (make_plan(r, len, &t->key, t->khost, t->kpre, t->opts.now, &pl) != 0 ||
	    !(b = pool_alloc(&t->pool, pl.total, &ref)))
		return -1;
	fill(b, &pl, r, &t->key, t->khost, t->kpre, t->opts.now);
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

	if (make_plan(r, len, &t->key, t->khost, t->kpre, t->opts.now, &pl) != 0)
		return -1;
	if (round4(pl.total) > had) {
		if (!(b = pool_alloc(&t->pool, pl.total, &ref)))
			return -1;
		t->slots[slot] = (t->slots[slot] & ~(uint64_t)UINT32_MAX) | ref;
	} else {
		had -= round4(pl.total);   /* the tail left over */
	}
	t->pool.garbage += had;
	t->pool.live -= had;
	fill(b, &pl, r, &t->key, t->khost, t->kpre, t->opts.now);
	return 0;
}

/* Looks the staged record up: inserts it, replaces the held one or loses. */
static int process(lirs_merge_table *t, struct pend *p)
{
	const lirs_record *r = &p->r;
	lb_buf k = t->key;
	size_t slot;
	int64_t lm, ld;

	t->key = p->key;   /* the key moves back for the lookup */
	p->key = k;
	t->khost = p->khost;
	t->kpre = p->kpre;
	if (!lookup(t, p->tag, &slot))
		return insert(t, p->tag, slot, r, p->len) != 0 ? -1 : maybe_compact(t);
	blob_nums(ref_ptr(&t->pool, SLOT_REF(t->slots[slot])), t->key.len - t->kpre, t->opts.now, &lm, &ld);
	if (!lirs_merge_supersedes(r->last_modified, r->last_detected, lm, ld)) {
		t->st.superseded++;
		return 0;
	}
	t->st.replaced++;
	return replace(t, slot, r, p->len) != 0 ? -1 : maybe_compact(t);
}

/* Processes every staged record; -1 when one could not be added. */
static int flush(lirs_merge_table *t)
{
	while (t->npend) {
		struct pend *p = &t->pend[t->pfirst];
		t->pfirst = (t->pfirst + 1) % MERGE_AHEAD;
		t->npend--;
		if (process(t, p) != 0)
			t->failed = 1;
	}
	return t->failed ? -1 : 0;
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
		return -1;
	for (i = 0; i < 5; i++) {
		off[i] = p->buf.len;
		memcpy(p->buf.data + p->buf.len, f[i], p->len[i] + 1);
		p->buf.len += p->len[i] + 1;
	}
	if (r->nextra) {
		if (!(o = lb_grow(p->off, &p->capoff, r->nextra, sizeof *o, 4)))
			return -1;
		p->off = o;
		if (!(x = realloc(p->extra, p->capoff * sizeof *x)))
			return -1;
		p->extra = x;
		for (i = 0; i < r->nextra; i++) {
			p->off[i] = p->buf.len;
			if (lb_buf_add(&p->buf, nz(r->extra[i]), strlen(nz(r->extra[i])) + 1) != 0)
				return -1;
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
	if (t->failed || (t->sorted && rebuild(t) != 0))
		return -1;
	if (t->npend == MERGE_AHEAD) {
		p = &t->pend[t->pfirst];
		t->pfirst = (t->pfirst + 1) % MERGE_AHEAD;
		t->npend--;
		if (process(t, p) != 0) {
			t->failed = 1;
			return -1;
		}
	}
	p = &t->pend[(t->pfirst + t->npend) % MERGE_AHEAD];
	lb_buf_reset(&t->key);
	if (copy_record(p, r) != 0 || lirs_merge_url_key(&t->key, r->url) != 0 || intern_host(t) != 0) {
		t->failed = 1;
		return -1;
	}
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

/* ---- output ------------------------------------------------------------ */

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
			return -1;
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
			return -1;
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
	int rc = 0;

	if (flush(t) != 0 || (t->sorted && rebuild(t) != 0))
		return -1;
	sort_entries(t);
	for (i = 0; i < t->nents && rc == 0; i++) {
		if (i + MERGE_AHEAD < t->nents)
			__builtin_prefetch(ref_ptr(&t->pool, SLOT_REF(t->slots[i + MERGE_AHEAD])));
		rc = emit(t, ref_ptr(&t->pool, SLOT_REF(t->slots[i])), fn, ctx);
	}
	return rc;
}
