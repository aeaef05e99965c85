/*
 * validate.c: record-level rules (the reader checks the syntax; this
 * checks what the values mean) and lirs_url_is_http().
 *
 * duplicate-url needs every URL of the file: they live in one open
 * addressing hash table whose strings are packed into large arena blocks,
 * so 1,000,000 URLs cost one allocation per MiB, not one per URL.
 */
#include "lirs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* LIRS 2.1 §3.3 in practice: UTC-12 .. UTC+14. */
#define TZ_MIN (-43200)
#define TZ_MAX 50400

#define ARENA_BLOCK ((size_t)1 << 20)

typedef struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	char data[];
} arena_blk;

typedef struct url_slot {
	const char *url;          /* in the arena; NULL = empty slot */
	uint64_t hash;
	unsigned long line;       /* where it was first seen */
} url_slot;

struct lirs_checker {
	lirs_check_opts o;
	url_slot *slots;
	size_t cap, n;            /* cap is a power of two */
	arena_blk *arena;
	char msg[512];
};

/* ---- URL set --------------------------------------------------------- */

/* FNV-1a, 64 bit: simple and good enough for URLs. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3u;
	}
	return h ? h : 1;
}

static const char *arena_dup(lirs_checker *c, const char *s)
{
	size_t n = strlen(s) + 1;
	arena_blk *b = c->arena;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->next = c->arena;
		b->used = 0;
		b->cap = cap;
		c->arena = b;
	}
	memcpy(b->data + b->used, s, n);
	b->used += n;
	return b->data + b->used - n;
}

static url_slot *find_slot(url_slot *slots, size_t cap, const char *url, uint64_t h)
{
	size_t i = (size_t)h & (cap - 1);

	while (slots[i].url && (slots[i].hash != h || strcmp(slots[i].url, url) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(lirs_checker *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	url_slot *s = calloc(cap, sizeof *s);

	if (!s)
		return -1;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].url)
			*find_slot(s, cap, c->slots[i].url, c->slots[i].hash) = c->slots[i];
	free(c->slots);
	c->slots = s;
	c->cap = cap;
	return 0;
}

/*
 * Remembers url first seen on line; returns the line of an earlier
 * occurrence, 0 when new, or -1 when out of memory.
 */
static long url_seen(lirs_checker *c, const char *url, unsigned long line)
{
	uint64_t h = hash_str(url);
	url_slot *s;

	/* Keep the load factor under 1/2 so probes stay short. */
	if ((c->n + 1) * 2 > c->cap && grow(c) < 0)
		return -1;
	s = find_slot(c->slots, c->cap, url, h);
	if (s->url)
		return (long)(s->line ? s->line : 1);
	if (!(s->url = arena_dup(c, url)))
		return -1;
	s->hash = h;
	s->line = line;
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
	return c;
}

void lirs_checker_free(lirs_checker *c)
{
	arena_blk *b, *next;

	if (!c)
		return;
	for (b = c->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	free(c->slots);
	free(c);
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

/* Delivers one diagnostic at the start of the field it names; returns 1
 * for an error so callers can count. */
static int diag(lirs_checker *c, const lirs_record *r, lirs_rule rule,
		const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int diag(lirs_checker *c, const lirs_record *r, lirs_rule rule,
		const char *field, const char *fmt, ...)
{
	lirs_diag d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
	memset(&d, 0, sizeof d);
	d.file = c->o.filename;
	d.line = r->line;
	d.col = field_col(r, field);
	d.rule = rule;
	d.severity = lirs_rule_severity(rule);
	d.field = field;
	d.message = c->msg;
	if (c->o.on_diag)
		c->o.on_diag(c->o.ctx, &d);
	return d.severity == LIRS_SEV_ERROR;
}

static int check_numbers(lirs_checker *c, const lirs_record *r)
{
	int errs = 0;

	/* §3.3; 32400 is Japan.  Wider than any real zone means a wrong unit. */
	if (r->tz_offset < TZ_MIN || r->tz_offset > TZ_MAX)
		errs += diag(c, r, LIRS_R_TZ_RANGE, "tz_offset",
			     "tz_offset: time difference %lld outside [-43200, 50400]",
			     (long long)r->tz_offset);
	if (r->last_modified < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "last_modified",
			     "last_modified: negative time %lld", (long long)r->last_modified);
	if (r->last_detected < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "last_detected",
			     "last_detected: negative time %lld", (long long)r->last_detected);
	if (r->content_length < 0)
		errs += diag(c, r, LIRS_R_NEGATIVE, "content_length",
			     "content_length: negative length %lld", (long long)r->content_length);
	return errs;
}

static int check_times(lirs_checker *c, const lirs_record *r)
{
	int64_t lm = r->last_modified, ld = r->last_detected, now = c->o.now;
	int errs = 0;

	/* §3.1, §3.2: 0 means the provider's detection failed. */
	if (lm == 0)
		errs += diag(c, r, LIRS_R_ZERO_TIME, "last_modified",
			     "last_modified: 0; the record is unusable");
	if (ld == 0)
		errs += diag(c, r, LIRS_R_ZERO_TIME, "last_detected",
			     "last_detected: 0; the record is unusable");
	if (ld > 0 && ld > now)
		errs += diag(c, r, LIRS_R_FUTURE, "last_detected",
			     "last_detected: %lld is %lld seconds in the future",
			     (long long)ld, (long long)(ld - now));
	/* §4: readers discard records last detected more than max_age ago. */
	if (ld > 0 && ld <= now && now - ld > c->o.max_age)
		errs += diag(c, r, LIRS_R_STALE, "last_detected",
			     "last_detected: %lld is %lld seconds old, over the maximum age of %lld",
			     (long long)ld, (long long)(now - ld), (long long)c->o.max_age);
	if (lm > 0 && ld > 0 && lm > ld)
		errs += diag(c, r, LIRS_R_MODIFIED_AFTER_DETECTED, "last_modified",
			     "last_modified: %lld is after last_detected %lld",
			     (long long)lm, (long long)ld);
	return errs;
}

static int check_url(lirs_checker *c, const lirs_record *r)
{
	long first;

	if (!r->url[0])
		return diag(c, r, LIRS_R_BAD_URL, "url", "url: blank");
	if (!lirs_url_is_http(r->url))
		return diag(c, r, LIRS_R_BAD_URL, "url",
			    "url: '%.200s' is not an absolute http or https URL", r->url);
	/* §3.5: a URL MUST NOT be repeated in the same file. */
	first = url_seen(c, r->url, r->line);
	if (first < 0)
		return 0;   /* out of memory: the check is lost, nothing worse */
	if (first > 0)
		return diag(c, r, LIRS_R_DUPLICATE_URL, "url",
			    "url: '%.200s' already appears on line %ld", r->url, first);
	return 0;
}

int lirs_checker_check(lirs_checker *c, const lirs_record *r)
{
	int errs = check_numbers(c, r) + check_times(c, r) + check_url(c, r);

	/* §3.9: "instead of 0 as the default for a blank field, this SHOULD be left empty". */
	if (r->extension && strcmp(r->extension, "0") == 0)
		errs += diag(c, r, LIRS_R_EXTENSION_ZERO, "extension",
			     "extension: \"0\"; a blank extension SHOULD be empty");
	return errs;
}

/* ---- URLs ------------------------------------------------------------ */

static int scheme_len(const char *s)
{
	if (strncasecmp(s, "http://", 7) == 0)
		return 7;
	if (strncasecmp(s, "https://", 8) == 0)
		return 8;
	return 0;
}

/* The authority must hold a host: [userinfo@]host[:port], port all digits. */
static int authority_ok(const char *a, size_t n)
{
	const char *at = memchr(a, '@', n), *host, *end = a + n, *colon;

	host = at ? at + 1 : a;
	if (host < end && *host == '[') {            /* RFC 3986 §3.2.2 IP-literal */
		const char *rb = memchr(host, ']', (size_t)(end - host));
		if (!rb || rb == host + 1)
			return 0;
		colon = rb + 1 < end ? rb + 1 : NULL;
		if (colon && *colon != ':')
			return 0;
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		if ((colon ? colon : end) == host)
			return 0;
	}
	if (colon)
		for (const char *p = colon + 1; p < end; p++)
			if (*p < '0' || *p > '9')
				return 0;
	return 1;
}

int lirs_url_is_http(const char *s)
{
	int k = scheme_len(s);
	size_t n;

	if (!k)
		return 0;
	/* Spaces and controls are never part of a URL (RFC 3986 §2). */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	n = strcspn(s + k, "/?#");
	return authority_ok(s + k, n);
}
