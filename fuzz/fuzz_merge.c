/*
 * fuzz_merge: libFuzzer target for the merge table (src/lirs/merge.c), checked
 * against a plain reference merge: records built from the input (URLs from
 * a small set with case and port variants, so that they collide; any
 * numbers; any non-NUL text; extra fields) go into a lirs_merge_table and into
 * an array searched linearly with the same key and winner rules.  The
 * table's output must be the reference's, field by field, in the
 * documented order (Last-Modified descending, then URL key), also after
 * more records are added to a table already read out (lirs_merge_each() reuses
 * the hash slots to sort).
 */
#include "lb_buf.h"
#include "lirs.h"
#include "lirs_merge.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXREC 48

typedef struct in { const uint8_t *p; size_t n; } in;

static unsigned byte(in *s)
{
	if (!s->n)
		return 0;
	s->n--;
	return *s->p++;
}

static int64_t num(in *s)
{
	uint64_t v = 0;
	unsigned i, k = byte(s) % 9;

	for (i = 0; i < k; i++)
		v = v << 8 | byte(s);
	if (k == 1)   /* small numbers near a few bases, to make ties */
		v = 1700000000 + (v & 7);
	return (int64_t)v;
}

/* A string of up to 15 non-NUL bytes (pool-heavy when repeated). */
static char *text(in *s)
{
	unsigned n = byte(s) % 16, i;
	char *t = malloc(n + 1);

	for (i = 0; i < n; i++) {
		t[i] = (char)byte(s);
		if (!t[i])
			t[i] = 'z';
	}
	t[n] = '\0';
	return t;
}

static const char *urls[] = {
	"http://a.example/x", "HTTP://A.example:80/x", "http://a.example/X", "http://b.example",
	"http://B.EXAMPLE/", "https://b.example:443/", "mailto:x@y", "http://u@a.example/x",
	"/relative", "http://[::1]:80/", "http://c.example:8080/p?q#f", "x",
};

typedef struct ref { lirs_record r; char key[64]; int used; } ref;

static void describe(lb_buf *b, const lirs_record *r)
{
	size_t i;

	lb_buf_addf(b, "%lld %lld %lld %lld <%s> <%s> <%s> <%s> <%s>", (long long)r->last_modified,
		  (long long)r->last_detected, (long long)r->tz_offset, (long long)r->content_length,
		  r->url, r->title ? r->title : "", r->author ? r->author : "",
		  r->source_url ? r->source_url : "", r->extension ? r->extension : "");
	for (i = 0; i < r->nextra; i++)
		lb_buf_addf(b, " [%s]", r->extra[i]);
	lb_buf_addc(b, '\n');
}

static int collect(void *ctx, const lirs_record *r)
{
	describe(ctx, r);
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const ref *x = a, *y = b;

	if (x->r.last_modified != y->r.last_modified)
		return x->r.last_modified > y->r.last_modified ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The reference output of recs[0..n) after the rules. */
static void reference(lb_buf *out, lirs_record *recs, size_t n, const lirs_merge_opts *o)
{
	ref held[MAXREC];
	size_t nh = 0, i, j;
	lb_buf k = LB_BUF_INIT;

	for (i = 0; i < n; i++) {
		if (lirs_merge_check_at(&recs[i], o->now, o->max_age, o->max_future) != LIRS_MERGE_USABLE)
			continue;
		lb_buf_reset(&k);
		lb_url_key(&k, recs[i].url);
		for (j = 0; j < nh && strcmp(held[j].key, k.data) != 0; j++)
			;
		if (j == nh) {
			nh++;
			snprintf(held[j].key, sizeof held[j].key, "%s", k.data);
		} else if (!lirs_merge_supersedes(recs[i].last_modified, recs[i].last_detected,
					     held[j].r.last_modified, held[j].r.last_detected)) {
			continue;
		}
		held[j].r = recs[i];
	}
	qsort(held, nh, sizeof *held, cmp_ref);
	for (i = 0; i < nh; i++) {
		lirs_record r = held[i].r;
		if (!r.source_url || !*r.source_url)
			r.source_url = (char *)"";
		describe(out, &r);
	}
	lb_buf_release(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in s = { data, size };
	lirs_record recs[MAXREC];
	lirs_merge_opts o;
	lirs_merge_table *t;
	lb_buf got = LB_BUF_INIT, want = LB_BUF_INIT;
	size_t n = 0, i, j, half;

	memset(recs, 0, sizeof recs);
	o.now = 1700000000;
	o.max_age = (byte(&s) & 1) ? -1 : 0;
	o.max_future = (byte(&s) & 1) ? -1 : 0;
	while (s.n && n < MAXREC) {
		lirs_record *r = &recs[n++];
		r->url = (char *)urls[byte(&s) % (sizeof urls / sizeof *urls)];
		r->last_modified = num(&s);
		r->last_detected = num(&s);
		r->tz_offset = num(&s);
		r->content_length = num(&s);
		r->title = text(&s);
		r->author = text(&s);
		r->source_url = (byte(&s) & 1) ? (char *)r->url : text(&s);
		r->extension = text(&s);
		r->nextra = byte(&s) % 3;
		r->extra = r->nextra ? malloc(r->nextra * sizeof *r->extra) : NULL;
		for (j = 0; j < r->nextra; j++)
			r->extra[j] = text(&s);
	}
	if (!(t = lirs_merge_new(&o)))
		abort();
	/* half, read out (the slots become the sorted order), then the rest */
	half = n / 2;
	for (i = 0; i < half; i++)
		if (lirs_merge_add(t, &recs[i]) != 0)
			abort();
	if (lirs_merge_each(t, collect, &got) != 0)
		abort();
	reference(&want, recs, half, &o);
	if (strcmp(got.data, want.data) != 0)
		abort();
	lb_buf_reset(&got);
	lb_buf_reset(&want);
	for (; i < n; i++)
		if (lirs_merge_add(t, &recs[i]) != 0)
			abort();
	if (lirs_merge_each(t, collect, &got) != 0)
		abort();
	reference(&want, recs, n, &o);
	if (strcmp(got.data, want.data) != 0)
		abort();
	lirs_merge_free(t);
	for (i = 0; i < n; i++) {
		lirs_record *r = &recs[i];
		free(r->title);
		free(r->author);
		if (r->source_url != r->url)
			free(r->source_url);
		free(r->extension);
		for (j = 0; j < r->nextra; j++)
			free(r->extra[j]);
		free(r->extra);
	}
	lb_buf_release(&got);
	lb_buf_release(&want);
	return 0;
}
