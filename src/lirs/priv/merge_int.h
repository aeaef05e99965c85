/*
 * merge_int.h: the insides of the merge table (lirs_merge.h), shared by
 * its three files, internal to the codec: merge_pool.c (the blob pool and
 * the packed form of a record), merge.c (the hash table and the streaming
 * lirs_merge_add()) and merge_out.c (the output order, lirs_merge_each()).
 *
 * Memory (the target: <= 100 B per distinct URL): an 8-byte hash slot
 * (load <= 1/2) and one blob per distinct URL, the record packed into
 * about the bytes of its text (varint numbers, the URL and the source
 * stored only when they differ from the key and the URL).  A replacement
 * reuses the blob when it fits; otherwise the old blob becomes garbage,
 * and the pool is compacted when garbage outweighs live data.  The output
 * is sorted in the hash table's free half: no extra array.
 *
 * The small readers of a blob are static inline here: they are on the hot
 * path of every lookup and of the output.
 */
#ifndef LIRS_MERGE_INT_H
#define LIRS_MERGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lirs_merge.h"

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

static inline size_t round4(size_t n) { return (n + 3) & ~(size_t)3; }

static inline char *ref_ptr(const pool *p, uint32_t ref)
{
	return p->chunks[ref >> REF_OFF_BITS].p + ((size_t)(ref & REF_OFF_MASK) << 2);
}

/* n bytes (rounded up to 4) named *ref at *b; 0, LB_ENOMEM, or
 * LB_ETOOBIG when the pool has used up its 32-bit refs. */
int lirs_merge_pool_alloc(pool *p, size_t n, uint32_t *ref, char **b);
void lirs_merge_pool_release(pool *p);

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
 * interned (HOST > 0, see intern_host() in merge.c): the URLs of one site
 * share it.  The URL is stored only when it differs from its key (B_URL),
 * the source only when it differs from the URL (B_SRC: the common "source
 * = page").  The key comes first so that a lookup compares it without
 * decoding.
 */
enum { B_URL = 1, B_SRC = 2, B_EXTRA = 4, B_TZH = 8 };

static inline const char *vget(const char *p, uint64_t *v)
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

static inline int64_t unzz(uint64_t u) { return (int64_t)((u >> 1) ^ (0 - (u & 1))); }
/* a + d, wrapping (no overflow). */
static inline int64_t ld_add(int64_t a, int64_t d) { return (int64_t)((uint64_t)a + (uint64_t)d); }

static inline const char *nz(const char *s) { return s ? s : ""; }

/* The key's part after the interned prefix; *host is the prefix's id. */
static inline const char *blob_key(const char *b, uint32_t *host)
{
	uint64_t v;

	b++;
	while (*b & 0x80)
		b++;
	b = vget(b + 1, &v);
	*host = (uint32_t)v;
	return b;
}

static inline size_t blob_total(const char *b)
{
	uint64_t rest;
	const char *p = vget(b + 1, &rest);

	return (size_t)(p - b) + (size_t)rest;
}

/* The numbers of a blob whose stored key is klen bytes long; returns the
 * first string. */
static inline const char *blob_nums(const char *b, size_t klen, int64_t base, int64_t *lm,
				    int64_t *ld)
{
	uint32_t host;
	uint64_t v;
	const char *p = vget(blob_key(b, &host) + klen + 1, &v);

	*lm = ld_add(base, unzz(v));
	p = vget(p, &v);
	*ld = (int64_t)((uint64_t)*lm + (uint64_t)unzz(v));
	return p;
}

/* What a record's blob will hold: flags, string lengths and sizes. */
typedef struct plan {
	unsigned flags;
	size_t len[5];      /* url (0 unless B_URL), title, author, source (0 unless B_SRC), ext */
	size_t rest, total;
} plan;

/* The plan of r's blob.  key is the record's key, of which the first pre
 * bytes are host's; len: the lengths of url, title, author, source and
 * extension.  0, or LB_ETOOBIG for a blob over 4 GiB. */
int lirs_merge_blob_plan(const lirs_record *r, const size_t *len, const lb_buf *key,
			 uint32_t host, size_t pre, int64_t base, plan *pl);
/* Writes r's blob, as planned, at b (pl->total bytes). */
void lirs_merge_blob_fill(char *b, const plan *pl, const lirs_record *r, const lb_buf *key,
			  uint32_t host, size_t pre, int64_t base);

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
	int failed;         /* a staged record could not be added: its code */
};

#define SLOT_REF(s) ((uint32_t)(s))
#define SLOT_TAG(s) ((uint32_t)((s) >> 32))

static inline const char *host_str(const lirs_merge_table *t, uint32_t id)
{
	return t->hostbuf.data + t->hostoff[id];
}

/* Processes every staged record; 0, or the code of the first that could
 * not be added. */
int lirs_merge_flush(lirs_merge_table *t);
/* After lirs_merge_each() (t->sorted): makes the slots a hash table again;
 * 0 or LB_ENOMEM. */
int lirs_merge_rebuild(lirs_merge_table *t);

#endif
