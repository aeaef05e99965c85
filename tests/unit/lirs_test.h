/*
 * lirs_test.h: helpers shared by the codec unit tests (header-only, like
 * tap.h): read a byte string in chunks of a given size into a transcript
 * of records and diagnostics, and gzip bytes in memory with real zlib.
 */
#ifndef LIRS_TEST_H
#define LIRS_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lb_buf.h"
#include "lirs.h"

/* What one read produced. */
struct tr {
	lb_buf text;               /* records and diagnostics, one per line */
	lirs_record *recs;       /* owned copies */
	size_t nrecs, cap;
	int rc;                  /* of the last feed or finish */
	lirs_reader_stats st;
	int stop_after;          /* >0: on_record asks to stop after this many */
	unsigned long ndiag[LIRS_R__COUNT];
};

static inline int tr_rec(void *ctx, const lirs_record *r)
{
	struct tr *t = ctx;
	size_t i;

	lb_buf_addf(&t->text, "rec %lu: %lld|%lld|%lld|%lld|%s|%s|%s|%s|%s", r->line,
		  (long long)r->last_modified, (long long)r->last_detected,
		  (long long)r->tz_offset, (long long)r->content_length,
		  r->url, r->title, r->author, r->source_url, r->extension);
	for (i = 0; i < r->nextra; i++)
		lb_buf_addf(&t->text, "|+%s", r->extra[i]);
	lb_buf_addc(&t->text, '\n');
	if (t->nrecs == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->recs = realloc(t->recs, t->cap * sizeof(*t->recs));
	}
	lirs_record_copy(&t->recs[t->nrecs++], r);
	return t->stop_after && (int)t->nrecs >= t->stop_after;
}

static inline void tr_diag(void *ctx, const lirs_diag *d)
{
	struct tr *t = ctx;

	lb_buf_addf(&t->text, "diag %lu:%lu: %s %s%s%s: %s\n", d->line, d->col, lirs_rule_id(d->rule),
		  d->skipped ? "skipped" : "kept", d->field ? " " : "", d->field ? d->field : "",
		  d->message);
	t->ndiag[d->rule]++;
}

static inline void tr_free(struct tr *t)
{
	size_t i;

	for (i = 0; i < t->nrecs; i++)
		lirs_record_release(&t->recs[i]);
	free(t->recs);
	lb_buf_release(&t->text);
	memset(t, 0, sizeof(*t));
}

/* Reads len bytes fed chunk bytes at a time (0 = all at once). */
static inline void tr_read_opts(struct tr *t, const void *buf, size_t len, size_t chunk,
			 uint64_t max_decoded, size_t max_line)
{
	lirs_reader_opts o;
	lirs_reader *rd;
	const char *p = buf;
	size_t off = 0, n;

	memset(&o, 0, sizeof(o));
	o.filename = "t.lirs";
	o.max_decoded = max_decoded;
	o.max_line = max_line;
	o.on_record = tr_rec;
	o.on_diag = tr_diag;
	o.ctx = t;
	rd = lirs_reader_new(&o);
	t->rc = 0;
	if (!chunk)
		chunk = len ? len : 1;
	while (off < len && t->rc == 0) {
		n = len - off < chunk ? len - off : chunk;
		t->rc = lirs_reader_feed(rd, p + off, n);
		off += n;
	}
	if (t->rc == 0)
		t->rc = lirs_reader_finish(rd);
	t->st = *lirs_reader_get_stats(rd);
	lb_buf_addf(&t->text, "rc %d records %lu skipped %lu lines %lu comments %lu\n", t->rc,
		  t->st.records, t->st.skipped, t->st.lines, t->st.comments);
	lirs_reader_free(rd);
}

static inline void tr_read(struct tr *t, const void *buf, size_t len, size_t chunk)
{
	tr_read_opts(t, buf, len, chunk, 0, 0);
}

/* gzip n bytes at level into out (appended): one member. */
static inline void gzip_add(lb_buf *out, const void *p, size_t n, int level)
{
	z_stream zs;
	unsigned char tmp[65536];
	int zr;

	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (unsigned char *)p;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = tmp;
		zs.avail_out = sizeof(tmp);
		zr = deflate(&zs, Z_FINISH);
		lb_buf_add(out, tmp, sizeof(tmp) - zs.avail_out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&zs);
}

#endif
