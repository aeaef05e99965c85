/*
 * merge.c: URL keys, the winner rule and the merge table (merge.h).
 *
 * Memory: one 56-byte entry per distinct URL in a dense array, a 4-byte
 * slot per hash bucket, and each winner's strings packed into one blob in
 * a chunked pool.  A replacement reuses the blob when it fits; otherwise
 * the old blob becomes garbage, and the pool is compacted when garbage
 * outweighs live data, so memory stays within about twice the live size.
 */
#include "merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- URL keys (RFC 3986 §3, §6.2.2.1, §6.2.3) ---------------------------- */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

/* Length of "scheme" before ':' (§3.1), or 0 when there is none. */
static size_t scheme_len(const char *u)
{
	size_t i = 0;

	if (!is_alpha((unsigned char)u[0]))
		return 0;
	while (is_alpha((unsigned char)u[i]) || is_digit((unsigned char)u[i]) ||
	       u[i] == '+' || u[i] == '-' || u[i] == '.')
		i++;
	return u[i] == ':' ? i : 0;
}

/* Nonzero when port (n digits, maybe none) is the scheme's default. */
static int default_port(const char *scheme, size_t slen, const char *port, size_t n)
{
	unsigned long v = 0;
	size_t i;

	if (n == 0)
		return 1;   /* "host:" — §6.2.3: an empty port is the default */
	for (i = 0; i < n; i++) {
		if (!is_digit((unsigned char)port[i]) || v > 100000)
			return 0;
		v = v * 10 + (unsigned long)(port[i] - '0');
	}
	if (slen == 4 && strncmp(scheme, "http", 4) == 0)
		return v == 80;
	if (slen == 5 && strncmp(scheme, "https", 5) == 0)
		return v == 443;
	return 0;
}

/* Appends s[0..n) lowercased, leaving percent-escapes as written. */
static int add_lower(lbuf *out, const char *s, size_t n)
{
	size_t i;

	if (lbuf_grow(out, n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		out->data[out->len + i] = (char)lower((unsigned char)s[i]);
	out->len += n;
	out->data[out->len] = '\0';
	return 0;
}

int merge_url_key(lbuf *out, const char *url)
{
	size_t sl = scheme_len(url), start = out->len;
	const char *auth, *end, *at, *host, *colon, *p;
	char scheme[8];

	if (sl == 0 || strncmp(url + sl, "://", 3) != 0)
		return lbuf_adds(out, url);
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
	if (add_lower(out, url, sl + 3) != 0 || lbuf_add(out, auth, (size_t)(host - auth)) != 0 ||
	    add_lower(out, host, (size_t)((colon ? colon : end) - host)) != 0)
		return -1;
	memcpy(scheme, out->data + start, sl < sizeof scheme ? sl : sizeof scheme);
	if (colon && !default_port(scheme, sl, colon + 1, (size_t)(end - colon - 1)) &&
	    lbuf_add(out, colon, (size_t)(end - colon)) != 0)
		return -1;
	/* §6.2.3: an empty path is "/" for http and https */
	if (*end != '/' && ((sl == 4 && memcmp(scheme, "http", 4) == 0) ||
			    (sl == 5 && memcmp(scheme, "https", 5) == 0)) && lbuf_addc(out, '/') != 0)
		return -1;
	return lbuf_adds(out, end);
}

/* ---- rules ------------------------------------------------------------- */

int merge_supersedes(int64_t lm_new, int64_t ld_new, int64_t lm_old, int64_t ld_old)
{
	if (lm_new != lm_old)
		return lm_new > lm_old;
	return ld_new >= ld_old;   /* a tie goes to the later record */
}

int merge_check(const lirs_record *r, int64_t now, int64_t max_age)
{
	if (r->last_modified == 0 || r->last_detected == 0 || !r->url || !r->url[0])
		return MERGE_UNUSABLE;
	if (max_age == 0)
		max_age = LIRS_DEFAULT_MAX_AGE;
	/* LIRS 2.1 §4: discard records last detected more than max_age ago */
	if (max_age > 0 && r->last_detected < now - max_age)
		return MERGE_STALE;
	return MERGE_USABLE;
}

/* ---- the string pool ---------------------------------------------------- */

#define POOL_CHUNK ((size_t)1 << 20)

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
} chunk;

typedef struct pool {
	chunk *head;
	size_t live, garbage;  /* bytes */
} pool;

static char *pool_alloc(pool *p, size_t n)
{
	chunk *c = p->head;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > POOL_CHUNK ? n : POOL_CHUNK;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = p->head;
		p->head = c;
	}
	c->used += n;
	p->live += n;
	return c->data + c->used - n;
}

static void pool_release(pool *p)
{
	while (p->head) {
		chunk *c = p->head;
		p->head = c->next;
		free(c);
	}
	p->live = p->garbage = 0;
}

/* ---- the table ---------------------------------------------------------- */

typedef struct ment {
	uint64_t hash;
	char *blob;      /* key\0 url\0 title\0 author\0 source\0 ext\0 extra\0... */
	uint32_t cap;    /* bytes reserved at blob */
	uint32_t nextra;
	int64_t lm, ld, tz, len;
} ment;

struct merge_table {
	merge_opts opts;
	merge_stats st;
	ment *ents;
	size_t nents, capents;
	uint32_t *slots;   /* 0 = empty, else index + 1 */
	size_t nslots;     /* a power of two */
	pool pool;
	lbuf key;          /* scratch */
	char **extra;      /* scratch for merge_each() */
	size_t maxextra;
};

merge_table *merge_new(const merge_opts *opts)
{
	merge_table *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->opts = *opts;
	lbuf_init(&t->key);
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof *t->slots);
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void merge_free(merge_table *t)
{
	if (!t)
		return;
	pool_release(&t->pool);
	free(t->ents);
	free(t->slots);
	free(t->extra);
	lbuf_release(&t->key);
	free(t);
}

const merge_stats *merge_get_stats(const merge_table *t)
{
	return &t->st;
}

/* FNV-1a, 64 bits: URLs are short, and this is not on an attacker's path
 * that matters more than linear probing's worst case on one input. */
static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static int grow_slots(merge_table *t)
{
	size_t n = t->nslots * 2, i;
	uint32_t *s = calloc(n, sizeof *s);

	if (!s)
		return -1;
	for (i = 0; i < t->nents; i++) {
		size_t j = (size_t)t->ents[i].hash & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

static size_t fld_len(const char *s) { return strlen(s ? s : "") + 1; }

/* Bytes the blob of r needs, key included. */
static size_t blob_size(const merge_table *t, const lirs_record *r, int url_is_key)
{
	size_t n = t->key.len + 1 + (url_is_key ? 1 : fld_len(r->url)), i;

	n += fld_len(r->title) + fld_len(r->author) + fld_len(r->source_url) + fld_len(r->extension);
	for (i = 0; i < r->nextra; i++)
		n += fld_len(r->extra[i]);
	return n;
}

static char *put(char *p, const char *s)
{
	size_t n = fld_len(s);

	memcpy(p, s ? s : "", n);
	return p + n;
}

static void fill(merge_table *t, ment *e, const lirs_record *r, int url_is_key)
{
	char *p = e->blob;
	size_t i;

	memcpy(p, t->key.data, t->key.len + 1);
	p = put(p + t->key.len + 1, url_is_key ? "" : r->url);
	p = put(p, r->title);
	p = put(p, r->author);
	p = put(p, r->source_url);
	p = put(p, r->extension);
	for (i = 0; i < r->nextra; i++)
		p = put(p, r->extra[i]);
	e->nextra = (uint32_t)r->nextra;
	e->lm = r->last_modified;
	e->ld = r->last_detected;
	e->tz = r->tz_offset;
	e->len = r->content_length;
}

static size_t used_size(const ment *e)
{
	const char *p = e->blob;
	uint32_t i;

	for (i = 0; i < 6 + e->nextra; i++)
		p += strlen(p) + 1;
	return (size_t)(p - e->blob);
}

/* Copies every live blob into a fresh pool: garbage returns to malloc. */
static int compact(merge_table *t)
{
	pool np = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < t->nents; i++) {
		size_t n = used_size(&t->ents[i]);
		char *b = pool_alloc(&np, n);
		if (!b) {
			pool_release(&np);
			return -1;
		}
		memcpy(b, t->ents[i].blob, n);
		t->ents[i].blob = b;
		t->ents[i].cap = (uint32_t)n;
	}
	pool_release(&t->pool);
	t->pool = np;
	return 0;
}

/* Stores r's strings in e: in place when they fit, else in a new blob.
 * Never compacts: e may not be counted in t->nents yet (insert()). */
static int store(merge_table *t, ment *e, const lirs_record *r, int fresh)
{
	int url_is_key = strcmp(r->url, t->key.data) == 0;
	size_t n = blob_size(t, r, url_is_key);

	if (n > UINT32_MAX || r->nextra > UINT32_MAX - 6) {
		errno = EOVERFLOW;
		return -1;
	}
	if (fresh || n > e->cap) {
		char *b = pool_alloc(&t->pool, n);
		if (!b)
			return -1;
		if (!fresh) {
			t->pool.garbage += e->cap;
			t->pool.live -= e->cap;
		}
		e->blob = b;
		e->cap = (uint32_t)n;
	}
	fill(t, e, r, url_is_key);
	return 0;
}

/*
 * Compacts the pool once garbage outweighs live data.  Only between whole
 * operations (merge_add(), after the insert or replace is complete): every
 * entry, the newest included, is in t->ents[0..nents) and moves with it.
 */
static int maybe_compact(merge_table *t)
{
	if (t->pool.garbage > t->pool.live && t->pool.garbage > 8 * POOL_CHUNK)
		return compact(t);
	return 0;
}

/* The index of the entry for t->key, or -1; *slot is where it is or goes. */
static long lookup(merge_table *t, uint64_t h, size_t *slot)
{
	size_t j = (size_t)h & (t->nslots - 1);

	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		ment *e = &t->ents[t->slots[j] - 1];
		if (e->hash == h && strcmp(e->blob, t->key.data) == 0) {
			*slot = j;
			return (long)(t->slots[j] - 1);
		}
	}
	*slot = j;
	return -1;
}

static int insert(merge_table *t, uint64_t h, size_t slot, const lirs_record *r)
{
	ment *e;

	if (t->nents >= UINT32_MAX - 1) {
		errno = EOVERFLOW;
		return -1;
	}
	if (!(e = lgrow(t->ents, &t->capents, t->nents + 1, sizeof *e, 1024)))
		return -1;
	t->ents = e;
	e = &t->ents[t->nents];
	memset(e, 0, sizeof *e);
	e->hash = h;
	if (store(t, e, r, 1) != 0)
		return -1;
	t->slots[slot] = (uint32_t)(++t->nents);
	t->st.kept++;
	/* keep the load under 1/2 so probes stay short */
	if (t->nents * 2 > t->nslots)
		return grow_slots(t);
	return 0;
}

int merge_add(merge_table *t, const lirs_record *r)
{
	uint64_t h;
	size_t slot;
	long i;

	t->st.read++;
	switch (merge_check(r, t->opts.now, t->opts.max_age)) {
	case MERGE_UNUSABLE:
		t->st.dropped_unusable++;
		return 0;
	case MERGE_STALE:
		t->st.dropped_stale++;
		return 0;
	}
	lbuf_reset(&t->key);
	if (merge_url_key(&t->key, r->url) != 0)
		return -1;
	h = hash_str(t->key.data, t->key.len);
	i = lookup(t, h, &slot);
	if (i < 0)
		return insert(t, h, slot, r) != 0 ? -1 : maybe_compact(t);
	if (!merge_supersedes(r->last_modified, r->last_detected, t->ents[i].lm, t->ents[i].ld)) {
		t->st.superseded++;
		return 0;
	}
	t->st.replaced++;
	return store(t, &t->ents[i], r, 0) != 0 ? -1 : maybe_compact(t);
}

/* ---- output ------------------------------------------------------------ */

static const char *ent_url(const ment *e)
{
	const char *u = e->blob + strlen(e->blob) + 1;
	return *u ? u : e->blob;
}

static int cmp_out(const void *a, const void *b, void *ctx)
{
	const ment *ents = ctx;
	const ment *x = &ents[*(const uint32_t *)a], *y = &ents[*(const uint32_t *)b];

	if (x->lm != y->lm)
		return x->lm > y->lm ? -1 : 1;
	return strcmp(x->blob, y->blob);   /* the keys: distinct per entry */
}

static int emit(merge_table *t, const ment *e, int (*fn)(void *, const lirs_record *), void *ctx)
{
	lirs_record r;
	const char *p = e->blob;
	uint32_t i;

	memset(&r, 0, sizeof r);
	r.last_modified = e->lm;
	r.last_detected = e->ld;
	r.tz_offset = e->tz;
	r.content_length = e->len;
	r.url = (char *)ent_url(e);
	p += strlen(p) + 1;
	p += strlen(p) + 1;
	r.title = (char *)p;      p += strlen(p) + 1;
	r.author = (char *)p;     p += strlen(p) + 1;
	r.source_url = (char *)p; p += strlen(p) + 1;
	r.extension = (char *)p;  p += strlen(p) + 1;
	if (e->nextra > t->maxextra) {
		char **x = realloc(t->extra, e->nextra * sizeof *x);
		if (!x)
			return -1;
		t->extra = x;
		t->maxextra = e->nextra;
	}
	for (i = 0; i < e->nextra; i++) {
		t->extra[i] = (char *)p;
		p += strlen(p) + 1;
	}
	r.extra = e->nextra ? t->extra : NULL;
	r.nextra = e->nextra;
	return fn(ctx, &r);
}

int merge_each(merge_table *t, int (*fn)(void *ctx, const lirs_record *r), void *ctx)
{
	uint32_t *order = malloc((t->nents ? t->nents : 1) * sizeof *order);
	size_t i;
	int rc = 0;

	if (!order)
		return -1;
	for (i = 0; i < t->nents; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, t->nents, sizeof *order, cmp_out, t->ents);
	for (i = 0; i < t->nents && rc == 0; i++)
		rc = emit(t, &t->ents[order[i]], fn, ctx);
	free(order);
	return rc;
}
