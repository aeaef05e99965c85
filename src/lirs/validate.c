/*
 * validate.c: record-level rules (the reader checks the syntax; this
 * checks what the values mean; URLs by lb_url_is_http(), lb_url.h).
 *
 * duplicate-url needs every URL key of the file (lb_url_key(), the key
 * merge uses).  Memory per URL is one 16-byte slot of an open-addressing
 * table: the 64-bit hash of the key and where the key lies in a scratch
 * store.  The keys themselves go to that store (a temporary file the
 * command gives, or memory), written once in order; a key is read back
 * only when its full hash matches a new one, to confirm the match exactly
 * (so a hash collision is never reported and no duplicate is missed), and
 * when the table doubles, it is rebuilt by one sequential read of the
 * store instead of keeping the old table and the new one at once.  So the
 * peak for 1,000,000 URLs is the 32 MiB table, and the time is linear.
 *
 * backslash-shift needs the file's usual field count: see
 * lirs_checker_finish() in lirs.h.
 */
#include "lirs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "lirs_merge.h"
#include "diag.h"

/* LIRS 2.1 §3.3 in practice: UTC-12 .. UTC+14. */
#define TZ_MIN (-43200)
#define TZ_MAX 50400

/* The scratch store's write buffer, and the read size of a rebuild. */
#define SPILL_BUF ((size_t)1 << 16)
#define REBUILD_CHUNK ((size_t)1 << 20)
/* A stored key: hash (8 bytes), line (8), key length (4), the key. */
#define REC_HDR 20

/* Field counts over this are counted as this (layout statistics). */
#define MAX_NF 64

typedef struct url_slot {
	uint64_t hash;
	uint64_t ref;             /* 1 + offset of the key in the store; 0 = empty */
} url_slot;

/* The scratch store: bytes [0, base) are in the file, [base, ...) in buf. */
typedef struct spill {
	int fd;                   /* -1: everything stays in buf */
	lb_buf buf;
	uint64_t base;
	lb_buf rd;                  /* what the last read returned */
} spill;

/* A record judged before the usual field count was known. */
struct pend {
	unsigned long line;
	unsigned nfields;
	lirs_bs_marks comma, sep;
};

struct lirs_checker {
	lirs_check_opts o;
	url_slot *slots;
	size_t cap, n;            /* cap is a power of two (or 0) */
	spill sp;
	lb_buf key;                 /* scratch: the URL key */
	uint64_t hash_mask;
	int failed;               /* a duplicate check was lost: its errno */
	/* layout: counts of records by [min(nfields, MAX_NF)][trailing comma] */
	unsigned long nrec, all[MAX_NF + 1][2], first[MAX_NF + 1][2], clean;
	int decided;
	unsigned usual_nf;
	int usual_trailing;
	struct pend pend[LIRS_LAYOUT_RECORDS];
	size_t npend;
	char msg[512];
};

/* ---- the scratch store ------------------------------------------------ */

static int spill_flush(spill *sp)
{
	size_t done = 0;

	while (sp->fd >= 0 && done < sp->buf.len) {
		ssize_t w = pwrite(sp->fd, sp->buf.data + done, sp->buf.len - done,
				   (off_t)(sp->base + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return LB_EIO;
		done += (size_t)w;
	}
	if (sp->fd >= 0) {
		sp->base += sp->buf.len;
		lb_buf_reset(&sp->buf);
	}
	return 0;
}

/* Appends a key record; returns its offset, or UINT64_MAX on failure. */
static uint64_t spill_add(spill *sp, uint64_t h, uint64_t line, const char *key, uint32_t n)
{
	unsigned char hdr[REC_HDR];
	uint64_t off;

	if (sp->fd >= 0 && sp->buf.len && sp->buf.len + REC_HDR + n > SPILL_BUF &&
	    spill_flush(sp) < 0)
		return UINT64_MAX;
	memcpy(hdr, &h, 8);
	memcpy(hdr + 8, &line, 8);
	memcpy(hdr + 16, &n, 4);
	off = sp->base + sp->buf.len;
	if (lb_buf_add(&sp->buf, hdr, REC_HDR) < 0 || lb_buf_add(&sp->buf, key, n) < 0)
		return UINT64_MAX;
	return off;
}

/* n bytes at off, valid until the next call; NULL on failure. */
static const unsigned char *spill_get(spill *sp, uint64_t off, size_t n)
{
	size_t done = 0;

	if (off >= sp->base)
		return (const unsigned char *)sp->buf.data + (off - sp->base);
	if (off + n > sp->base && spill_flush(sp) < 0)
		return NULL;
	lb_buf_reset(&sp->rd);
	if (lb_buf_grow(&sp->rd, n) < 0)
		return NULL;
	while (done < n) {
		ssize_t r = pread(sp->fd, sp->rd.data + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;   /* the file is shorter than what we wrote */
			return NULL;
		}
		done += (size_t)r;
	}
	return (const unsigned char *)sp->rd.data;
}

/* ---- the URL-key set ----------------------------------------------------- */

/* FNV-1a, 64 bit, then a finalizer (splitmix64) so that every bit of the
 * index depends on every byte. */
static uint64_t hash_key(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3u;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebu;
	return h ^ (h >> 31);
}

/* The home slot of h (the test hook leaves few bits: many collide). */
static size_t home(const lirs_checker *c, uint64_t h)
{
	return (size_t)(h * 0x9e3779b97f4a7c15u >> 32) & (c->cap - 1);
}

static void put(lirs_checker *c, uint64_t h, uint64_t off)
{
	size_t i = home(c, h);

	while (c->slots[i].ref)
		i = (i + 1) & (c->cap - 1);
	c->slots[i].hash = h;
	c->slots[i].ref = off + 1;
}

/* Inserts every record of the store [0, end) into the (empty) table. */
static int rebuild(lirs_checker *c, uint64_t end)
{
	uint64_t pos = 0;
	size_t want = REBUILD_CHUNK;

	while (pos < end) {
		size_t got = end - pos < want ? (size_t)(end - pos) : want, p = 0;
		const unsigned char *b = spill_get(&c->sp, pos, got);
		uint64_t h;
		uint32_t n;

		if (!b)
			return LB_EIO;   /* errno says why: the scratch file or memory */
		while (p + REC_HDR <= got) {
			memcpy(&n, b + p + 16, 4);
			if (p + REC_HDR + n > got)
				break;
			memcpy(&h, b + p, 8);
			put(c, h, pos + p);
			p += REC_HDR + n;
		}
		if (p == 0) {   /* one record longer than the chunk */
			memcpy(&n, b + 16, 4);
			want = REC_HDR + (size_t)n;
			continue;
		}
		pos += p;
		want = REBUILD_CHUNK;
	}
	return 0;
}

/*
 * The table: one random access per record.  Past the caches every probe
 * is a TLB miss too, unless the table sits in 2 MiB pages: map it aligned
 * and ask for them (transparent huge pages; only a hint).
 */
#define HUGE_PAGE ((size_t)2 << 20)

static url_slot *table_alloc(size_t cap)
{
	size_t n = cap * sizeof(url_slot);
	char *p, *a;

	if (n < HUGE_PAGE)
		return calloc(cap, sizeof(url_slot));
	p = mmap(NULL, n + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	munmap(a + n, (size_t)(p + HUGE_PAGE - a));
#ifdef MADV_HUGEPAGE
	madvise(a, n, MADV_HUGEPAGE);
#endif
	return (url_slot *)a;   /* anonymous pages read as zero: all empty */
}

static void table_free(url_slot *t, size_t cap)
{
	size_t n = cap * sizeof(url_slot);

	if (t && n < HUGE_PAGE)
		free(t);
	else if (t)
		munmap(t, n);
}

/* Doubles the table: the old one goes first, the store refills the new. */
static int grow(lirs_checker *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	uint64_t end = c->sp.base + c->sp.buf.len;

	table_free(c->slots, c->cap);
	c->slots = NULL;
	c->cap = 0;
	if (spill_flush(&c->sp) < 0)
		return LB_EIO;
	if (!(c->slots = table_alloc(cap)))
		return LB_ENOMEM;
	c->cap = cap;
	return rebuild(c, end);
}

/* 1 when the stored key at ref is key[0..n); *line gets its line. */
static int same_key(lirs_checker *c, uint64_t ref, const char *key, size_t n,
		    unsigned long *line)
{
	const unsigned char *b = spill_get(&c->sp, ref - 1, REC_HDR + n);
	uint64_t ln;
	uint32_t len;

	if (!b)
		return LB_EIO;   /* errno says why: the scratch file or memory */
	memcpy(&len, b + 16, 4);
	if (len != n || memcmp(b + REC_HDR, key, n) != 0)
		return 0;
	memcpy(&ln, b + 8, 8);
	*line = (unsigned long)ln;
	return 1;
}

/*
 * Remembers the key first seen on line; returns the line of an earlier
 * occurrence, 0 when new, or a negative code on failure (LB_ENOMEM,
 * LB_EIO for the scratch file or memory: errno says which; LB_ETOOBIG;
 * LB_ESTOP once the check is lost).
 */
static long key_seen(lirs_checker *c, const char *key, size_t n, unsigned long line)
{
	uint64_t h = hash_key(key, n) & c->hash_mask, off;
	size_t i;
	int rc;

	if (c->failed)
		return LB_ESTOP;   /* the check was lost already */
	if (n > UINT32_MAX)
		return LB_ETOOBIG;   /* a stored key's length is 32-bit */
	/* Keep the load factor at most 3/4: short probes, 16 bytes a slot. */
	if ((c->n + 1) * 4 > c->cap * 3 && (rc = grow(c)) < 0)
		return rc;
	for (i = home(c, h); c->slots[i].ref; i = (i + 1) & (c->cap - 1)) {
		unsigned long first = 0;
		int same;

		if (c->slots[i].hash != h)
			continue;
		/* The full hash matches: only the key itself can say. */
		if ((same = same_key(c, c->slots[i].ref, key, n, &first)) < 0)
			return same;
		if (same)
			return (long)(first ? first : 1);
	}
	if ((off = spill_add(&c->sp, h, line, key, (uint32_t)n)) == UINT64_MAX)
		return LB_EIO;   /* errno says why: the scratch file or memory */
	c->slots[i].hash = h;
	c->slots[i].ref = off + 1;
	c->n++;
	return 0;
}

/* ---- the checker ----------------------------------------------------- */

lirs_checker *lirs_checker_new(const lirs_check_opts *opts)
{
	lirs_checker *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->o = *opts;
	if (c->o.max_age <= 0)
		c->o.max_age = LIRS_DEFAULT_MAX_AGE;
	if (c->o.max_future <= 0)
		c->o.max_future = LIRS_DEFAULT_MAX_FUTURE;
	c->sp.fd = c->o.spill ? c->o.spill_fd : -1;
	lb_buf_init(&c->sp.buf);
	lb_buf_init(&c->sp.rd);
	lb_buf_init(&c->key);
	c->hash_mask = c->o.test_hash_bits && c->o.test_hash_bits < 64 ?
		((uint64_t)1 << c->o.test_hash_bits) - 1 : UINT64_MAX;
	return c;
}

void lirs_checker_free(lirs_checker *c)
{
	if (!c)
		return;
	lb_buf_release(&c->sp.buf);
	lb_buf_release(&c->sp.rd);
	lb_buf_release(&c->key);
	table_free(c->slots, c->cap);
	free(c);
}

int lirs_checker_failed(const lirs_checker *c)
{
	return c->failed;
}

/* The column where the named field starts in r's line, 0 when unknown. */
static unsigned long field_col(const lirs_record *r, const char *field)
{
	static const char *const names[9] = {
		"last_modified", "last_detected", "tz_offset", "content_length",
		"url", "title", "author", "source_url", "extension",
	};
	size_t i;

	for (i = 0; field && i < 9; i++)
		if (strcmp(field, names[i]) == 0)
			return r->col[i];
	return 0;
}

static int vdiag_at(lirs_checker *c, unsigned long line, unsigned long col, lirs_rule rule,
		    const char *field, const char *fmt, va_list ap)
{
	lirs_diag d;

	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	lirs_diag_fill(&d, c->o.filename, line, col, rule, field, c->msg);
	if (c->o.on_diag)
		c->o.on_diag(c->o.ctx, &d);
	return d.severity == LIRS_SEV_ERROR;
}

/* Delivers one diagnostic at the start of the field it names; returns 1
 * for an error so callers can count. */
static int diag(lirs_checker *c, const lirs_record *r, lirs_rule rule,
		const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int diag(lirs_checker *c, const lirs_record *r, lirs_rule rule,
		const char *field, const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = vdiag_at(c, r->line, field_col(r, field), rule, field, fmt, ap);
	va_end(ap);
	return e;
}

static int diag_at(lirs_checker *c, unsigned long line, unsigned long col, lirs_rule rule,
		   const char *field, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int diag_at(lirs_checker *c, unsigned long line, unsigned long col, lirs_rule rule,
		   const char *field, const char *fmt, ...)
{
	va_list ap;
	int e;

	va_start(ap, fmt);
	e = vdiag_at(c, line, col, rule, field, fmt, ap);
	va_end(ap);
	return e;
}

static int check_numbers(lirs_checker *c, const lirs_record *r)
{
	char t[LIRS_TIME_STR];
	int errs = 0;

	/* §3.3; LIRS_TZ_JST is Japan.  Wider than any real zone means a wrong unit. */
	if (r->tz_offset < TZ_MIN || r->tz_offset > TZ_MAX)
		errs += diag(c, r, LIRS_R_TZ_RANGE, "tz_offset",
			     "tz_offset: time difference %lld outside [-43200, 50400]",
			     (long long)r->tz_offset);
	if (r->last_modified < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "last_modified", "last_modified: negative time %s",
			     lirs_time_str(t, sizeof t, r->last_modified));
	if (r->last_detected < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "last_detected", "last_detected: negative time %s",
			     lirs_time_str(t, sizeof t, r->last_detected));
	if (r->content_length < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "content_length",
			     "content_length: negative length %lld", (long long)r->content_length);
	return errs;
}

/* A time more than max_future after now: every reader of ours drops the
 * record (lirs_merge_check_at()), so it is an error, not a mild warning. */
static int future_dropped(lirs_checker *c, const lirs_record *r, const char *field, int64_t v)
{
	char t[LIRS_TIME_STR], n[LIRS_TIME_STR];

	return diag(c, r, LIRS_R_FUTURE_DROPPED, field,
		    "%s: %s is %lld seconds after now, %s, over the %lld seconds of clock skew "
		    "tolerated: lirs merge, lirs atom and antennas drop this record",
		    field, lirs_time_str(t, sizeof t, v), (long long)(v - c->o.now),
		    lirs_time_str(n, sizeof n, c->o.now), (long long)c->o.max_future);
}

static int check_times(lirs_checker *c, const lirs_record *r)
{
	int64_t lm = r->last_modified, ld = r->last_detected, now = c->o.now;
	char t[LIRS_TIME_STR], t2[LIRS_TIME_STR];
	int errs = 0;

	/* §3.1, §3.2: 0 means the provider's detection failed. */
	if (lm == 0)
		errs += diag(c, r, LIRS_R_ZERO_TIME, "last_modified",
			     "last_modified: 0; the record is unusable");
	if (ld == 0)
		errs += diag(c, r, LIRS_R_ZERO_TIME, "last_detected",
			     "last_detected: 0; the record is unusable");
	if (lm > 0 && lirs_merge_future(lm, now, c->o.max_future))
		errs += future_dropped(c, r, "last_modified", lm);
	if (ld > 0 && lirs_merge_future(ld, now, c->o.max_future))
		errs += future_dropped(c, r, "last_detected", ld);
	else if (ld > 0 && ld > now)
		errs += diag(c, r, LIRS_R_FUTURE, "last_detected",
			     "last_detected: %s is %lld seconds in the future",
			     lirs_time_str(t, sizeof t, ld), (long long)(ld - now));
	/* §4: readers discard records last detected more than max_age ago. */
	if (ld > 0 && ld <= now && now - ld > c->o.max_age)
		errs += diag(c, r, LIRS_R_STALE, "last_detected",
			     "last_detected: %s is %lld seconds old, over the maximum age of %lld",
			     lirs_time_str(t, sizeof t, ld), (long long)(now - ld), (long long)c->o.max_age);
	if (lm > 0 && ld > 0 && lm > ld)
		errs += diag(c, r, LIRS_R_MODIFIED_AFTER_DETECTED, "last_modified",
			     "last_modified: %s is after last_detected %s",
			     lirs_time_str(t, sizeof t, lm), lirs_time_str(t2, sizeof t2, ld));
	return errs;
}

static int check_url(lirs_checker *c, const lirs_record *r)
{
	long first;

	if (!r->url[0])
		return diag(c, r, LIRS_R_BAD_URL, "url", "url: blank");
	if (!lb_url_is_http(r->url))
		return diag(c, r, LIRS_R_BAD_URL, "url",
			    "url: '%.200s' is not an absolute http or https URL", r->url);
	/* §3.5: a URL MUST NOT be repeated in the same file.  Compared by
	 * the key merge uses, so that what merge would fold is reported. */
	lb_buf_reset(&c->key);
	if (lb_url_key(&c->key, r->url) < 0 ||
	    (first = key_seen(c, c->key.data, c->key.len, r->line)) < 0) {
		/* The check is lost; the command says so. */
		if (!c->failed)
			c->failed = errno ? errno : ENOMEM;
		return 0;
	}
	if (first == 0)
		return 0;
	if (strcmp(c->key.data, r->url) == 0)
		return diag(c, r, LIRS_R_DUPLICATE_URL, "url",
			    "url: '%.200s' already appears on line %ld", r->url, first);
	return diag(c, r, LIRS_R_DUPLICATE_URL, "url",
		    "url: '%.200s' already appears on line %ld (compared as '%.200s')",
		    r->url, first, c->key.data);
}

/* ---- layout and backslash-shift ----------------------------------------- */

static const char *nth_field_name(unsigned i)
{
	static const char *const names[9] = {
		"last_modified", "last_detected", "tz_offset", "content_length",
		"url", "title", "author", "source_url", "extension",
	};
	return i >= 1 && i <= 9 ? names[i - 1] : "extra";
}

/*
 * A record is shifted when its count is off and a writer that did not
 * double '\' explains it: enough "\," that may be a swallowed separator
 * for too few fields, enough "\\," that may be a split comma for too
 * many.  A correctly escaped record with extension fields beyond the
 * usual count (samidare writes `x\,y\\z,second,`) has none of the
 * latter, so it is not one.  Emits the error at the first
 * mark that explains it; returns the number of errors.
 */
static int judge_shift(lirs_checker *c, unsigned long line, unsigned nf,
		       const lirs_bs_marks *comma, const lirs_bs_marks *sep)
{
	const lirs_bs_marks *m = NULL;
	const char *fn;

	if (nf < c->usual_nf && comma->n >= c->usual_nf - nf)
		m = comma;
	else if (nf > c->usual_nf && sep->n >= nf - c->usual_nf)
		m = sep;
	if (!m)
		return 0;
	fn = nth_field_name(m->field);
	return diag_at(c, line, m->col, LIRS_R_BACKSLASH_SHIFT, fn,
		       "%s: '\\' before a field separator and %u fields where this file has %u: %s",
		       fn, nf, c->usual_nf, LIRS_SHIFT_CAUSE);
}

/* The most common (count, trailing) of the first records: those without a
 * suspicious backslash when there are any (a shifted record must not
 * decide what is usual). */
static void decide(lirs_checker *c)
{
	unsigned long best = 0;

	c->decided = 1;
	for (unsigned nf = 0; nf <= MAX_NF; nf++)
		for (int t = 0; t < 2; t++)
			if (c->first[nf][t] > best) {
				best = c->first[nf][t];
				c->usual_nf = nf;
				c->usual_trailing = t;
			}
}

/* Decides the layout and judges the records that waited for it. */
static int settle(lirs_checker *c)
{
	int errs = 0;

	decide(c);
	for (size_t i = 0; i < c->npend; i++)
		errs += judge_shift(c, c->pend[i].line, c->pend[i].nfields,
				    &c->pend[i].comma, &c->pend[i].sep);
	c->npend = 0;
	return errs;
}

static int check_layout(lirs_checker *c, const lirs_record *r)
{
	unsigned nf = r->nfields < MAX_NF ? r->nfields : MAX_NF;
	int t = r->trailing_comma != 0;

	if (!r->nfields)
		return 0;   /* not read from a file: nothing to compare */
	c->all[nf][t]++;
	if (c->decided)
		return judge_shift(c, r->line, nf, &r->bs_comma, &r->bs_sep);
	/* Before the usual count is known: clean records vote (all records
	 * vote only while no clean one came), suspects wait. */
	if (!r->bs_field) {
		if (!c->clean++)
			memset(c->first, 0, sizeof c->first);
		c->first[nf][t]++;
	} else if (!c->clean) {
		c->first[nf][t]++;
	}
	if (r->bs_field)
		c->pend[c->npend++] = (struct pend){ r->line, nf, r->bs_comma, r->bs_sep };
	if (++c->nrec == LIRS_LAYOUT_RECORDS)
		return settle(c);
	return 0;
}

int lirs_checker_finish(lirs_checker *c)
{
	int errs = c->decided ? 0 : settle(c);

	return c->failed ? LB_ENOMEM : errs;
}

void lirs_checker_layout(const lirs_checker *c, lirs_layout *out)
{
	memset(out, 0, sizeof *out);
	out->decided = c->decided;
	if (!c->decided)
		return;
	out->nfields = c->usual_nf;
	out->trailing_comma = c->usual_trailing;
	out->records = c->all[c->usual_nf][c->usual_trailing];
	if (!out->records)
		return;   /* no record at all */
	if (c->usual_nf == 8 && c->usual_trailing)
		out->name = "samidare";
	else if (c->usual_nf == 13 && !c->usual_trailing)
		out->name = "tama";
	else if (c->usual_nf == 9 && c->usual_trailing)
		out->name = "lirs-2.1";
	/* The reader's warnings that this shape gives on every record. */
	if (c->usual_nf == 8)
		out->usual[out->nusual++] = LIRS_R_NO_EXTENSION;
	else if (c->usual_nf > 9)
		out->usual[out->nusual++] = LIRS_R_EXTRA_FIELDS;
	if (!c->usual_trailing)
		out->usual[out->nusual++] = LIRS_R_NO_TRAILING_COMMA;
}

int lirs_checker_check(lirs_checker *c, const lirs_record *r)
{
	int errs = check_numbers(c, r) + check_times(c, r) + check_url(c, r) +
		   check_layout(c, r);

	/* §3.9: "instead of 0 as the default for a blank field, this SHOULD be left empty". */
	if (r->extension && strcmp(r->extension, "0") == 0)
		errs += diag(c, r, LIRS_R_EXTENSION_ZERO, "extension",
			     "extension: \"0\"; a blank extension SHOULD be empty");
	return errs;
}

