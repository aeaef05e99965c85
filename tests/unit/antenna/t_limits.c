/*
 * t_limits.c: hostile lengths.  Every text the antenna takes
 * in is clipped to its limit on a character boundary (ant_limits.h), and
 * every record a writer writes is read back whole by our reader with its
 * default limits: a property over titles of 0 bytes to 10 MB, authors,
 * URLs up to and past ANT_MAX_URL, extensions, in LIRS (EUC-JP+gzip,
 * UTF-8 plain) and HINA-DI (UTF-8+gzip, EUC-JP plain), with ',' and '\'
 * (escaped: twice as long) and multi-byte characters.  A record the reader
 * would skip (line-too-long) is left out by the writer and counted; the
 * same records clipped as the antenna clips them are all written and all
 * read back.
 */
#include "tap.h"
#include "lirs_test.h"
#include "ant_limits.h"
#include "lb_utf8.h"

static int sink_lbuf(void *ctx, const void *buf, size_t len)
{
	return lb_buf_add(ctx, buf, len);
}

static lirs_writer *wnew(lb_buf *out, int format, int utf8, int no_gzip)
{
	lirs_writer_opts o;

	memset(&o, 0, sizeof o);
	o.format = format;
	o.utf8 = utf8;
	o.no_gzip = no_gzip;
	o.sink = sink_lbuf;
	o.ctx = out;
	return lirs_writer_new(&o);
}

/* n bytes of the pattern (whole characters only). */
static char *filled(const char *pat, size_t n)
{
	size_t k = strlen(pat), i = 0;
	char *s = malloc(n + 1);

	while (i + k <= n) {
		memcpy(s + i, pat, k);
		i += k;
	}
	s[i] = '\0';
	return s;
}

static char *url_of(size_t n)
{
	char *s = filled("a", n < 20 ? 20 : n);

	memcpy(s, "http://example.jp/", 18);
	return s;
}

#define MB ((size_t)1 << 20)
static const size_t lens[] = { 0, 1, 511, 512, 513, 2048, 8000, 8001, 65536,
			       MB / 2 - 40, MB / 2, MB - 200, MB - 1, MB, MB + 1, 10 * MB };
#define NLENS (sizeof lens / sizeof *lens)
static const char *const pats[] = { "a", ",", "\\", "\xe3\x81\x82" /* あ */ };
#define NPATS (sizeof pats / sizeof *pats)
/* Which field is hostile: title, author, url, source url, extension. */
#define NFIELDS 5
#define NRECS (NLENS * NPATS * NFIELDS)

static lirs_record recs[NRECS], clipped[NRECS];
static int url_refused[NRECS];   /* the antenna refuses the URL at add time */

static void make_records(void)
{
	size_t i = 0;

	for (size_t f = 0; f < NFIELDS; f++)
		for (size_t p = 0; p < NPATS; p++)
			for (size_t l = 0; l < NLENS; l++, i++) {
				lirs_record *r = &recs[i], *c = &clipped[i];
				char *h = f >= 2 && f <= 3 ? url_of(lens[l]) : filled(pats[p], lens[l]);

				memset(r, 0, sizeof *r);
				r->last_modified = 1700000000 + (int64_t)i;
				r->last_detected = 1700000100 + (int64_t)i;
				r->tz_offset = 32400;
				r->content_length = (int64_t)i;
				r->url = f == 2 ? h : url_of(30 + i % 7);
				r->title = f == 0 ? h : strdup("title");
				r->author = f == 1 ? h : strdup("");
				r->source_url = f == 3 ? h : strdup(r->url);
				r->extension = f == 4 ? h : strdup("");
				/* what the antenna keeps and publishes (publish.c: no extension) */
				memset(c, 0, sizeof *c);
				*c = *r;
				c->url = strdup(r->url);
				c->source_url = strdup(r->source_url);
				c->title = ant_clip(r->title, ANT_MAX_TITLE);
				c->author = ant_clip(r->author, ANT_MAX_AUTHOR);
				c->extension = strdup("");
				url_refused[i] = strlen(r->url) > ANT_MAX_URL ||
						 strlen(r->source_url) > ANT_MAX_URL;
			}
}

static int same(const lirs_record *a, const lirs_record *b, int di)
{
	if (strcmp(a->url, b->url) || strcmp(a->title, b->title) || strcmp(a->author, b->author))
		return 0;
	if (di)   /* HINA-DI has no Source URL field of its own */
		return a->last_modified == b->last_modified && a->last_detected == b->last_detected;
	return a->last_modified == b->last_modified && a->last_detected == b->last_detected &&
	       a->tz_offset == b->tz_offset && a->content_length == b->content_length &&
	       !strcmp(a->source_url, b->source_url) && !strcmp(a->extension, b->extension);
}

/*
 * Writes v[0..NRECS) (those not skip[]ped) and reads them back with the
 * default limits: every record written comes back whole, in order, and
 * only records whose line is over the limit are left out.  Returns how
 * many were left out.
 */
static unsigned long property(const char *name, const lirs_record *v, const int *skip,
			      int format, int utf8, int no_gzip)
{
	static int left[NRECS];
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, format, utf8, no_gzip);
	struct tr t = { 0 };
	size_t i, k = 0, written = 0, bad = 0;
	unsigned long before, out_n;
	int rc = 0, di = format == LIRS_FORMAT_DI;

	for (i = 0; i < NRECS; i++) {
		left[i] = 1;
		if (skip && skip[i])
			continue;
		before = lirs_writer_too_long(w);
		rc |= lirs_writer_add(w, &v[i]);
		left[i] = lirs_writer_too_long(w) != before;
		written += !left[i];
	}
	rc |= lirs_writer_finish(w);
	out_n = lirs_writer_too_long(w);
	lirs_writer_free(w);
	IS_INT(rc, 0, "%s: written", name);
	tr_read(&t, out.data, out.len, 65536);
	IS_INT(t.rc, 0, "%s: read", name);
	IS_INT(t.ndiag[LIRS_R_LINE_TOO_LONG], 0, "%s: no line too long for our reader", name);
	IS_INT(t.st.skipped, 0, "%s: no record skipped by the reader", name);
	OK(written > 0 && t.nrecs == written, "%s: every record written is read (%zu of %zu)", name,
	   t.nrecs, written);
	for (i = 0; i < NRECS && k < t.nrecs; i++) {
		if (left[i])
			continue;
		if (!same(&v[i], &t.recs[k++], di) && bad++ == 0)
			printf("# %s: record %zu differs (title %zu bytes)\n", name, i, strlen(v[i].title));
	}
	IS_INT(bad, 0, "%s: ... and read back whole", name);
	tr_free(&t);
	lb_buf_release(&out);
	return out_n;
}

/* The exact edge: a LIRS line of LIRS_DEFAULT_MAX_LINE bytes is written and
 * read; one byte more is left out (and would be skipped by the reader). */
static void edge(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, LIRS_FORMAT_LIRS, 1, 1);
	lirs_record r;
	struct tr t = { 0 };
	size_t base;
	char *title;

	memset(&r, 0, sizeof r);
	r.last_modified = 1700000000;
	r.last_detected = 1700000001;
	r.url = "http://example.jp/";
	r.title = "";
	r.author = r.source_url = r.extension = "";
	{
		lb_buf one = LB_BUF_INIT;
		lirs_writer *w1 = wnew(&one, LIRS_FORMAT_LIRS, 1, 1);

		lirs_writer_add(w1, &r);
		lirs_writer_finish(w1);
		lirs_writer_free(w1);
		base = one.len - 1 - 1;   /* without LF, without the "0" of the blank title */
		lb_buf_release(&one);
	}
	title = filled("x", LIRS_DEFAULT_MAX_LINE - base);
	r.title = title;
	lirs_writer_add(w, &r);
	free(title);
	title = filled("x", LIRS_DEFAULT_MAX_LINE - base + 1);
	r.title = title;
	lirs_writer_add(w, &r);
	lirs_writer_finish(w);
	IS_INT(lirs_writer_too_long(w), 1, "edge: a line of max_line + 1 bytes is left out, max_line is not");
	lirs_writer_free(w);
	tr_read(&t, out.data, out.len, 0);
	IS_INT(t.nrecs, 1, "edge: the line of exactly max_line bytes is read back");
	OK(t.nrecs == 1 && strlen(t.recs[0].title) == LIRS_DEFAULT_MAX_LINE - base,
	   "edge: ... whole");
	free(title);
	tr_free(&t);
	lb_buf_release(&out);
}

static void clip(void)
{
	char *big = filled("a", 8 * MB), *x;
	const char *ja = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";   /* 日本語 */

	IS_INT(lb_utf8_prefix(ja, 9, 2), 6, "prefix: 2 characters of 日本語 are 6 bytes");
	IS_INT(lb_utf8_prefix(ja, 9, 5), 9, "prefix: fewer characters than asked: all");
	IS_INT(lb_utf8_prefix("\xff\xfe" "a", 3, 2), 2, "prefix: a bad byte is one character");
	x = ant_clip(big, ANT_MAX_TITLE);
	IS_INT(strlen(x), ANT_MAX_TITLE - 1 + 3, "clip: an 8 MB title keeps %d characters, '…' included", ANT_MAX_TITLE);
	free(x);
	free(big);
	big = filled("\xe3\x81\x82", 3 * 1000);
	x = ant_clip(big, ANT_MAX_TITLE);
	OK(lb_utf8_valid(x, strlen(x)) && strlen(x) == 3 * ANT_MAX_TITLE,
	   "clip: cut on a character boundary");
	free(x);
	x = ant_clip_inplace(big, 3);
	IS_STR(x, "\xe3\x81\x82\xe3\x81\x82\xe3\x81\x82", "clip in place: 3 characters, no mark");
	free(big);
	x = ant_clip("", ANT_MAX_TITLE);
	IS_STR(x, "", "clip: empty stays empty");
	free(x);
}

int main(void)
{
	unsigned long n;

	TAP_PLAN(7 + 7 * 6 + 7 + 3);
	clip();
	make_records();
	/* Raw hostile records: what our reader would skip is left out, the rest
	 * is read back whole. */
	n = property("raw LIRS EUC-JP+gzip", recs, NULL, LIRS_FORMAT_LIRS, 0, 0);
	OK(n > 0, "raw LIRS EUC-JP: %lu over-long records left out, not written", n);
	n = property("raw LIRS UTF-8", recs, NULL, LIRS_FORMAT_LIRS, 1, 1);
	OK(n > 0, "raw LIRS UTF-8: %lu over-long records left out, not written", n);
	n = property("raw DI UTF-8+gzip", recs, NULL, LIRS_FORMAT_DI, 1, 0);
	OK(n > 0, "raw DI UTF-8: %lu over-long records left out, not written", n);
	n = property("raw DI EUC-JP", recs, NULL, LIRS_FORMAT_DI, 0, 1);
	OK(n > 0, "raw DI EUC-JP: %lu over-long records left out, not written", n);
	/* As the antenna keeps them (clipped, long URLs refused at add):
	 * nothing is left out. */
	IS_INT(property("antenna lirs.gz (EUC-JP)", clipped, url_refused, LIRS_FORMAT_LIRS, 0, 0), 0,
	       "antenna lirs.gz: nothing left out");
	IS_INT(property("antenna lirs.gz (UTF-8)", clipped, url_refused, LIRS_FORMAT_LIRS, 1, 0), 0,
	       "antenna lirs.gz UTF-8: nothing left out");
	IS_INT(property("antenna sites.di.gz", clipped, url_refused, LIRS_FORMAT_DI, 1, 0), 0,
	       "antenna sites.di.gz: nothing left out");
	edge();
	for (size_t i = 0; i < NRECS; i++) {
		lirs_record_release(&recs[i]);
		lirs_record_release(&clipped[i]);
	}
	TAP_DONE();
}
