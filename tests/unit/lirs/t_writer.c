/*
 * t_writer.c: the LIRS writer: exact bytes for known records, escaping,
 * EUC-JP with U+3013 replacement, gzip, sink errors (a fake sink and
 * /dev/full), and the round trip
 * read(write(r)) == r over a generated corpus, EUC-JP+gzip and UTF-8+plain.
 */
#include <errno.h>
#include <iconv.h>

#include "tap.h"
#include "lirs_test.h"
#include "lirs_charset.h"

static int sink_lbuf(void *ctx, const void *buf, size_t len)
{
	return lb_buf_add(ctx, buf, len);
}

static int sink_fail(void *ctx, const void *buf, size_t len)
{
	errno = ENOSPC;
	return -1;
}

static int wnew_ms;   /* the next wnew() writes EUC-JP-MS */

static lirs_writer *wnew(lb_buf *out, int utf8, int no_gzip)
{
	lirs_writer_opts o;

	memset(&o, 0, sizeof(o));
	o.euc_jp_ms = wnew_ms;
	o.utf8 = utf8;
	o.no_gzip = no_gzip;
	o.sink = sink_lbuf;
	o.ctx = out;
	return lirs_writer_new(&o);
}

static lirs_record rec(const char *url, const char *title, const char *author,
		       const char *src, const char *ext)
{
	lirs_record r;

	memset(&r, 0, sizeof(r));
	r.last_modified = 938779260;
	r.last_detected = 938781002;
	r.tz_offset = 32400;
	r.content_length = 49383;
	r.url = (char *)url;
	r.title = (char *)title;
	r.author = (char *)author;
	r.source_url = (char *)src;
	r.extension = (char *)ext;
	return r;
}

static void test_exact(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, 1, 1);
	lirs_record r = rec("http://hiya.ouchi.to/n/", "Tadayo Memories", "Hiya",
			    "http://amano.hauN.org/", "blah blah");
	char *extra[] = { "x,1", "", "0" };

	IS_INT(lirs_writer_comment(w, "made by\na test"), 0, "exact: comment");
	IS_INT(lirs_writer_add(w, &r), 0, "exact: add");
	r = rec("http://a/", "a\\", "b,c", "", "");
	r.tz_offset = -18000;
	IS_INT(lirs_writer_add(w, &r), 0, "exact: add escapes");
	r = rec("http://b/", "line\r\nbreak", "\\,", "0", "e\\");
	r.extra = extra;
	r.nextra = 3;
	r.last_modified = 0;
	IS_INT(lirs_writer_add(w, &r), 0, "exact: add extras");
	IS_INT(lirs_writer_finish(w), 0, "exact: finish");
	IS_INT(lirs_writer_error(w, NULL), 0, "exact: lirs_writer_error() is 0 when all went well");
	IS_STR(out.data,
	       "# made by a test\n"
	       "LIRS,938779260,938781002,32400,49383,http://hiya.ouchi.to/n/,Tadayo Memories,Hiya,http://amano.hauN.org/,blah blah,\n"
	       "LIRS,938779260,938781002,-18000,49383,http://a/,a\\\\,b\\,c,0,,\n"
	       "LIRS,0,938781002,32400,49383,http://b/,line  break,\\\\\\,,0,e\\\\,x\\,1,,0,\n",
	       "exact: escapes, CR/LF to space, 0 for blanks, extension blank, extras after it");
	IS_INT(lirs_writer_finish(w), LB_EINVAL, "exact: finish twice is LB_EINVAL");
	lirs_writer_free(w);
	lb_buf_release(&out);
}

static void test_eucjp(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, 0, 1);
	lirs_record r = rec("http://a/", "漢字ｱ丂①", "\xf0\x9f\x98\x80 smile", "a\xff" "b", "〜");

	lirs_writer_add(w, &r);
	lirs_writer_finish(w);
	IS_STR(out.data,
	       "LIRS,938779260,938781002,32400,49383,http://a/,"
	       "\xb4\xc1\xbb\xfa\x8e\xb1\x8f\xb0\xa1(1),\xa2\xae smile,a\xa2\xae" "b,\xa1\xc1,\n",
	       "eucjp: kanji, kana, JIS X 0212, NEC as readable form; emoji and bad byte become U+3013");
	IS_INT(lirs_writer_replaced(w), 2, "eucjp: two characters replaced and counted");
	IS_INT(lirs_writer_approximated(w), 1, "eucjp: U+301C written as A1 C1 (reads as U+FF5E), counted");
	IS_INT(lirs_writer_substituted(w), 1, "eucjp: ① written as (1), counted");
	lirs_writer_free(w);
	lb_buf_release(&out);

	wnew_ms = 1;
	w = wnew(&out, 0, 1);
	wnew_ms = 0;
	lirs_writer_add(w, &r);
	lirs_writer_finish(w);
	IS_STR(out.data,
	       "LIRS,938779260,938781002,32400,49383,http://a/,"
	       "\xb4\xc1\xbb\xfa\x8e\xb1\x8f\xb0\xa1\xad\xa1,\xa2\xae smile,a\xa2\xae" "b,\xa1\xc1,\n",
	       "eucjp-ms: NEC row 13 code for ① (the bytes of 0.1)");
	IS_INT(lirs_writer_substituted(w), 0, "eucjp-ms: nothing substituted");
	lirs_writer_free(w);
	lb_buf_release(&out);
}

/* iconv of n bytes from -> to; NULL when iconv refuses them.  Static buffer. */
static const char *conv(const char *to, const char *from, const char *s, size_t n, size_t *outn)
{
	static char buf[4096];
	iconv_t cd = iconv_open(to, from);
	char *in = (char *)s, *op = buf;
	size_t il = n, ol = sizeof(buf) - 1;
	size_t r = iconv(cd, &in, &il, &op, &ol);

	iconv_close(cd);
	if (r == (size_t)-1 || il)
		return NULL;
	*op = '\0';
	if (outn)
		*outn = (size_t)(op - buf);
	return buf;
}

/* The title field's bytes of the one record in a plain-text output. */
static char *title_bytes(const lb_buf *out, size_t *n)
{
	char *p = out->data, *e;
	int i;

	for (i = 0; i < 6 && p; i++)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p || !(e = strchr(p, ',')))
		return NULL;
	*n = (size_t)(e - p);
	return p;
}

/* Writes one record with title t (default or EUC-JP-MS); returns the
 * writer's counts through the pointers, the output in out. */
static void write_title(lb_buf *out, const char *t, int ms, unsigned long *subst,
			unsigned long *repl, unsigned long *approx)
{
	lirs_record r = rec("http://a/", t, "a", "http://s/", "");
	lirs_writer *w;

	lb_buf_reset(out);
	wnew_ms = ms;
	w = wnew(out, 0, 1);
	wnew_ms = 0;
	lirs_writer_add(w, &r);
	lirs_writer_finish(w);
	*subst = lirs_writer_substituted(w);
	*repl = lirs_writer_replaced(w);
	*approx = lirs_writer_approximated(w);
	lirs_writer_free(w);
}

/*
 * LIRS 2.1 §7: by default every byte written decodes with glibc's strict
 * "EUC-JP"; each vendor character of the table becomes its readable form
 * (which a strict reader and ours read back), with --charset euc-jp-ms the
 * bytes are exactly glibc's EUC-JP-MS ones (0.1's), and ours reads them
 * back as the character.
 */
static void test_vendor_table(void)
{
	size_t n, i, bn, on;
	const struct lirs_cs_vendor_form *t = lirs_cs_vendor_table(&n);
	lb_buf out = LB_BUF_INIT;
	unsigned long subst, repl, approx;
	int sorted = 1, clean = 1, strict_ok = 0, form_ok = 0, ms_ok = 0, back_ok = 0, back_ms = 0;
	char u8[8];

	for (i = 0; i < n; i++) {
		const char *b, *dec, *ms;
		struct tr tt = { 0 };
		size_t k = 0;
		uint32_t c = t[i].cp;

		if (i && t[i - 1].cp >= c)
			sorted = 0;
		if (!*t[i].form || strpbrk(t[i].form, ",\\\r\n"))
			clean = 0;
		/* the character as UTF-8 */
		if (c < 0x800) {
			u8[k++] = (char)(0xc0 | c >> 6);
		} else {
			u8[k++] = (char)(0xe0 | c >> 12);
			u8[k++] = (char)(0x80 | ((c >> 6) & 0x3f));
		}
		u8[k++] = (char)(0x80 | (c & 0x3f));
		u8[k] = '\0';
		/* default: strict EUC-JP, decodes to the form */
		write_title(&out, u8, 0, &subst, &repl, &approx);
		b = title_bytes(&out, &bn);
		dec = b ? conv("UTF-8", "EUC-JP", out.data, out.len, NULL) : NULL;
		if (dec)
			strict_ok++;
		else
			printf("# U+%04X: not strict EUC-JP\n", (unsigned)c);
		if (b && (dec = conv("UTF-8", "EUC-JP", b, bn, NULL)) && !strcmp(dec, t[i].form) &&
		    subst == 1 && repl == 0 && approx == 0)
			form_ok++;
		else
			printf("# U+%04X: not written as '%s'\n", (unsigned)c, t[i].form);
		tr_read(&tt, out.data, out.len, 0);
		if (tt.nrecs == 1 && !strcmp(tt.recs[0].title, t[i].form) && !tt.st.errors)
			back_ok++;
		tr_free(&tt);
		/* euc-jp-ms: the bytes glibc's EUC-JP-MS writes, read back as the character */
		write_title(&out, u8, 1, &subst, &repl, &approx);
		b = title_bytes(&out, &bn);
		ms = conv("EUC-JP-MS", "UTF-8", u8, k, &on);
		if (b && ms && on == bn && !memcmp(b, ms, bn) && subst == 0 && repl == 0)
			ms_ok++;
		else
			printf("# U+%04X: EUC-JP-MS bytes differ\n", (unsigned)c);
		memset(&tt, 0, sizeof tt);
		tr_read(&tt, out.data, out.len, 0);
		if (tt.nrecs == 1 && !strcmp(tt.recs[0].title, u8) && !tt.st.errors)
			back_ms++;
		tr_free(&tt);
	}
	OK(n >= 130, "vendor: the table has %zu readable forms", n);
	OK(sorted, "vendor: the table is sorted by code point (bsearch)");
	OK(clean, "vendor: no form is empty or holds ',', '\\', CR or LF");
	IS_INT(strict_ok, (long)n, "vendor: every output decodes with strict glibc EUC-JP");
	IS_INT(form_ok, (long)n, "vendor: every character written as its form, counted once");
	IS_INT(back_ok, (long)n, "vendor: our reader reads the form back");
	IS_INT(ms_ok, (long)n, "vendor: --charset euc-jp-ms writes exactly EUC-JP-MS's bytes");
	IS_INT(back_ms, (long)n, "vendor: our reader reads the EUC-JP-MS bytes back as the character");
	lb_buf_release(&out);
}

/*
 * Every code EUC-JP-MS has beyond strict EUC-JP (NEC row 13, the IBM
 * extensions, user-defined rows): written by default, the output is
 * strict EUC-JP, and the character is either a table form or U+3013.
 */
static void test_vendor_all(void)
{
	iconv_t ms = iconv_open("UTF-8", "EUC-JP-MS"), st = iconv_open("UTF-8", "EUC-JP");
	lb_buf out = LB_BUF_INIT;
	unsigned long subst, repl, approx;
	unsigned char b[3];
	unsigned pl, i, j;
	int total = 0, strict = 0, accounted = 0, geta = 0;

	for (pl = 0; pl < 2; pl++)
		for (i = 0xa1; i <= 0xfe; i++)
			for (j = 0xa1; j <= 0xfe; j++) {
				char u8[16], x[16], *in, *op;
				size_t n = 0, il, ol;

				if (pl)
					b[n++] = 0x8f;
				b[n++] = (unsigned char)i;
				b[n++] = (unsigned char)j;
				in = (char *)b; il = n; op = u8; ol = sizeof(u8) - 1;
				iconv(ms, NULL, NULL, NULL, NULL);
				if (iconv(ms, &in, &il, &op, &ol) == (size_t)-1)
					continue;
				*op = '\0';
				in = (char *)b; il = n; op = x; ol = sizeof(x);
				iconv(st, NULL, NULL, NULL, NULL);
				if (iconv(st, &in, &il, &op, &ol) != (size_t)-1)
					continue;   /* strict EUC-JP has it */
				total++;
				write_title(&out, u8, 0, &subst, &repl, &approx);
				if (conv("UTF-8", "EUC-JP", out.data, out.len, NULL))
					strict++;
				if (subst + repl == 1 || (subst == 0 && repl == 0 && approx == 0))
					accounted++;   /* the last: a duplicate code of a JIS X 0208 one */
				geta += repl == 1;
			}
	iconv_close(ms);
	iconv_close(st);
	OK(total > 1000, "vendor: %d EUC-JP-MS codes beyond strict EUC-JP", total);
	IS_INT(strict, total, "vendor: each written by default as strict EUC-JP");
	IS_INT(accounted, total, "vendor: each counted as a readable form or U+3013 (or a 0208 duplicate)");
	OK(geta > 900, "vendor: %d without a readable form (user-defined rows, rare kanji) become U+3013", geta);
	lb_buf_release(&out);
}

/*
 * Characters EUC-JP holds only as a look-alike.  glibc writes U+00A5 and
 * U+203E as the ASCII bytes 5C (a backslash) and 7E: a title ending in
 * "¥" used to swallow the comma after it and shift every later field.
 */
static void test_lookalikes(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, 0, 1);
	lirs_record r = rec("http://a/", "price ¥", "‾〜‖−¢£¬", "http://s/", "e¥");
	char *extra[] = { "¥", "x" };
	struct tr t = { 0 };

	r.extra = extra;
	r.nextra = 2;
	IS_INT(lirs_writer_add(w, &r), 0, "look-alikes: add");
	IS_INT(lirs_writer_finish(w), 0, "look-alikes: finish");
	IS_STR(out.data,
	       "LIRS,938779260,938781002,32400,49383,http://a/,price \xa1\xef,"
	       "\xa1\xb1\xa1\xc1\xa1\xc2\xa1\xdd\xa1\xf1\xa1\xf2\xa2\xcc,http://s/,"
	       "e\xa1\xef,\xa1\xef,x,\n",
	       "look-alikes: full-width forms, never the ASCII bytes 5C or 7E");
	IS_INT(lirs_writer_replaced(w), 0, "look-alikes: nothing replaced");
	IS_INT(lirs_writer_approximated(w), 10, "look-alikes: every one counted");
	lirs_writer_free(w);
	tr_read(&t, out.data, out.len, 0);
	IS_INT(t.nrecs, 1, "look-alikes: read back");
	IS_INT(t.st.errors, 0, "look-alikes: read back without errors");
	if (t.nrecs == 1) {
		IS_STR(t.recs[0].title, "price ￥", "look-alikes: title ends in U+FFE5");
		IS_STR(t.recs[0].author, "￣～∥－￠￡￢", "look-alikes: the nearest characters");
		IS_STR(t.recs[0].source_url, "http://s/", "look-alikes: later fields in place");
		IS_STR(t.recs[0].extension, "e￥", "look-alikes: extension in place");
		IS_INT(t.recs[0].nextra, 2, "look-alikes: extras in place");
	}
	tr_free(&t);
	lb_buf_release(&out);

	/* UTF-8 holds them all: nothing approximated */
	w = wnew(&out, 1, 1);
	lirs_writer_add(w, &r);
	lirs_writer_finish(w);
	IS_INT(lirs_writer_approximated(w), 0, "look-alikes: UTF-8 output is exact");
	lirs_writer_free(w);
	lb_buf_release(&out);
}

static void test_gzip_and_errors(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, 0, 0);
	lirs_writer_opts o;
	lirs_record r = rec("http://a/", "t", "a", "http://s/", "");
	struct tr t = { 0 };

	lirs_writer_add(w, &r);
	IS_INT(lirs_writer_finish(w), 0, "gzip: finish");
	OK(out.len > 10 && (unsigned char)out.data[0] == 0x1f && (unsigned char)out.data[1] == 0x8b,
	   "gzip: gzip by default");
	tr_read(&t, out.data, out.len, 0);
	IS_INT(t.nrecs, 1, "gzip: reads back");
	IS_INT(t.st.errors + t.st.warnings, 0, "gzip: reads back without diagnostics");
	tr_free(&t);
	lirs_writer_free(w);

	memset(&o, 0, sizeof(o));
	o.sink = sink_fail;
	w = lirs_writer_new(&o);
	lirs_writer_add(w, &r);
	errno = EILSEQ;   /* what iconv leaves behind in this thread */
	IS_INT(lirs_writer_finish(w), LB_ESINK, "sink failure: LB_ESINK");
	IS_INT(errno, ENOSPC, "sink failure: errno is the sink's, not a stale one");
	errno = 0;
	IS_INT(lirs_writer_add(w, &r), LB_ESINK, "sink failure: sticky");
	IS_INT(errno, ENOSPC, "sink failure: errno set again when the error is returned again");
	{
		lb_error e = LB_ERROR_INIT;

		errno = EILSEQ;
		IS_INT(lirs_writer_error(w, &e), LB_ESINK, "sink failure: lirs_writer_error() says LB_ESINK");
		IS_INT(e.code, LB_ESINK, "sink failure: err holds the code");
		IS_INT(e.sys, ENOSPC, "sink failure: err->sys is the sink's errno (from the deflate thread)");
		OK(strstr(e.msg, strerror(ENOSPC)) != NULL, "sink failure: the message says why");
		IS_INT(lirs_writer_error(w, NULL), LB_ESINK, "sink failure: err may be NULL");
	}
	lirs_writer_free(w);
	o.no_gzip = 1;
	w = lirs_writer_new(&o);
	lirs_writer_add(w, &r);
	errno = EILSEQ;
	IS_INT(lirs_writer_finish(w), LB_ESINK, "sink failure: plain output too");
	IS_INT(errno, ENOSPC, "sink failure: plain output: errno is the sink's");
	{
		lb_error e = LB_ERROR_INIT;

		IS_INT(lirs_writer_error(w, &e), LB_ESINK, "sink failure: plain output: lirs_writer_error()");
		IS_INT(e.sys, ENOSPC, "sink failure: plain output: err->sys is the sink's errno");
	}
	lirs_writer_free(w);
	lb_buf_release(&out);
}

/* ---- the round trip -------------------------------------------------- */

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Characters that survive UTF-8 -> EUC-JP-MS -> UTF-8 unchanged (pool);
 * those whose bytes are strict EUC-JP too (spool: the default writer's). */
static char pool[4000][8], spool[4000][8];
static size_t npool, nspool;
static char (*P)[8];   /* the pool rand_text() draws from */
static size_t NP;
static iconv_t strict_dec;

static void add_if_roundtrip(iconv_t dec, iconv_t enc, const char *euc, size_t n)
{
	char s8[8], *sin = (char *)euc, *sop = s8;
	size_t sil = n, sol = sizeof(s8);

	char u[8] = { 0 }, e[8], u2[8] = { 0 }, *in, *op;
	size_t il, ol;

	in = (char *)euc; il = n; op = u; ol = sizeof(u) - 1;
	if (iconv(dec, &in, &il, &op, &ol) == (size_t)-1)
		return;
	in = u; il = strlen(u); op = e; ol = sizeof(e);
	if (iconv(enc, &in, &il, &op, &ol) == (size_t)-1)
		return;
	in = e; il = sizeof(e) - ol; op = u2; ol = sizeof(u2) - 1;
	if (iconv(dec, &in, &il, &op, &ol) == (size_t)-1 || strcmp(u, u2) != 0)
		return;
	if (npool < sizeof(pool) / sizeof(pool[0]))
		strcpy(pool[npool++], u);
	iconv(strict_dec, NULL, NULL, NULL, NULL);
	if (iconv(strict_dec, &sin, &sil, &sop, &sol) != (size_t)-1 &&
	    nspool < sizeof(spool) / sizeof(spool[0]))
		strcpy(spool[nspool++], u);
}

static void build_pool(void)
{
	iconv_t dec = iconv_open("UTF-8", "EUC-JP-MS"), enc = iconv_open("EUC-JP-MS", "UTF-8");
	unsigned char b[3];
	unsigned i, j;

	strict_dec = iconv_open("UTF-8", "EUC-JP");

	for (i = 0xa1; i <= 0xfe; i += 3)          /* JIS X 0208 and NEC rows, sampled */
		for (j = 0xa1; j <= 0xfe; j += 5) {
			b[0] = (unsigned char)i; b[1] = (unsigned char)j;
			add_if_roundtrip(dec, enc, (char *)b, 2);
		}
	for (j = 0xa1; j <= 0xdf; j++) {            /* half-width katakana */
		b[0] = 0x8e; b[1] = (unsigned char)j;
		add_if_roundtrip(dec, enc, (char *)b, 2);
	}
	for (j = 0xa1; j <= 0xfe; j += 7) {         /* JIS X 0212 */
		b[0] = 0x8f; b[1] = 0xb0; b[2] = (unsigned char)j;
		add_if_roundtrip(dec, enc, (char *)b, 3);
	}
	for (j = 0xa1; j <= 0xfe; j += 2) {         /* IBM extensions */
		b[0] = 0x8f; b[1] = 0xf4; b[2] = (unsigned char)j;
		add_if_roundtrip(dec, enc, (char *)b, 3);
	}
	iconv_close(dec);
	iconv_close(enc);
	iconv_close(strict_dec);
}

static int cs_ascii_only(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* Random text: ASCII, escape-heavy, Japanese; utf8 adds emoji and always
 * a hiragana (so the line is not mistaken for EUC-JP). */
static void rand_text(lb_buf *b, int utf8, int allow_empty)
{
	static const char *const ascii[] = { "a", "Z", " ", "\\", ",", "\\\\", "\\,", "http://", "0", "-", "#", "\t" };
	unsigned n = rnd(12), i;

	lb_buf_reset(b);
	if (!n && allow_empty)
		return;
	if (utf8 && rnd(3) == 0)
		lb_buf_adds(b, "\xe3\x81\x82");
	for (i = 0; i <= n; i++) {
		switch (rnd(4)) {
		case 0: case 1: lb_buf_adds(b, ascii[rnd(12)]); break;
		case 2: lb_buf_adds(b, P[rnd((unsigned)NP)]); break;
		default:
			if (utf8)
				lb_buf_adds(b, rnd(2) ? "\xf0\x9f\x8d\xa3" : "\xe3\x83\xb4");
			else
				lb_buf_adds(b, P[rnd((unsigned)NP)]);
		}
	}
	if (utf8 && !cs_ascii_only(b->data))
		lb_buf_adds(b, "\xe3\x81\x84");
	/* "0" is the blank field: it reads back as "" */
	if (strcmp(b->data, "0") == 0)
		lb_buf_adds(b, "0");
}

static int64_t rand_num(void)
{
	switch (rnd(6)) {
	case 0: return INT64_MAX;
	case 1: return INT64_MIN;
	case 2: return -(int64_t)rnd(50400);
	case 3: return 0;
	default: return (int64_t)rnd(2000000000);
	}
}

static int rec_eq(const lirs_record *a, const lirs_record *b)
{
	size_t i;

	if (a->last_modified != b->last_modified || a->last_detected != b->last_detected ||
	    a->tz_offset != b->tz_offset || a->content_length != b->content_length ||
	    strcmp(a->url, b->url) || strcmp(a->title, b->title) || strcmp(a->author, b->author) ||
	    strcmp(a->source_url, b->source_url) || strcmp(a->extension, b->extension) ||
	    a->nextra != b->nextra)
		return 0;
	for (i = 0; i < a->nextra; i++)
		if (strcmp(a->extra[i], b->extra[i]))
			return 0;
	return 1;
}

#define NRT 3000

static void roundtrip(int utf8, int no_gzip, const char *name)
{
	static lirs_record recs[NRT];
	lb_buf f[5], x[4], out = LB_BUF_INIT;
	char *xp[4];
	lirs_writer *w = wnew(&out, utf8, no_gzip);
	struct tr t = { 0 };
	size_t i, j, bad = 0;
	int rc = 0;

	for (j = 0; j < 5; j++)
		lb_buf_init(&f[j]);
	for (j = 0; j < 4; j++)
		lb_buf_init(&x[j]);
	for (i = 0; i < NRT; i++) {
		lirs_record r;
		memset(&r, 0, sizeof(r));
		r.last_modified = rand_num();
		r.last_detected = rand_num();
		r.tz_offset = rand_num();
		r.content_length = rand_num();
		for (j = 0; j < 5; j++)
			rand_text(&f[j], utf8, 1);
		r.url = f[0].data; r.title = f[1].data; r.author = f[2].data;
		r.source_url = f[3].data; r.extension = f[4].data;
		r.nextra = rnd(8) == 0 ? 1 + rnd(4) : 0;
		for (j = 0; j < r.nextra; j++) {
			rand_text(&x[j], utf8, 1);
			xp[j] = x[j].data;
		}
		r.extra = xp;
		lirs_record_copy(&recs[i], &r);
		rc |= lirs_writer_add(w, &recs[i]);
	}
	rc |= lirs_writer_finish(w);
	IS_INT(rc, 0, "%s: %d random records written", name, NRT);
	IS_INT(lirs_writer_replaced(w), 0, "%s: nothing replaced", name);
	IS_INT(lirs_writer_approximated(w), 0, "%s: nothing approximated", name);
	IS_INT(lirs_writer_substituted(w), 0, "%s: no readable forms", name);
	lirs_writer_free(w);
	OK(!no_gzip == ((unsigned char)out.data[0] == 0x1f), "%s: gzip as asked", name);
	tr_read(&t, out.data, out.len, 4093);
	IS_INT(t.rc, 0, "%s: reads back", name);
	IS_INT(t.nrecs, NRT, "%s: every record read back", name);
	for (i = 0; i < NRT && i < t.nrecs; i++)
		if (!rec_eq(&recs[i], &t.recs[i]) && bad++ == 0)
			printf("# first difference at record %zu: title '%s' vs '%s'\n", i,
			       recs[i].title, t.recs[i].title);
	IS_INT(bad, 0, "%s: read(write(r)) == r", name);
	IS_INT(t.ndiag[LIRS_R_INVALID_ENCODING] + t.ndiag[LIRS_R_UTF8_FALLBACK] * !utf8, 0,
	       "%s: no encoding trouble", name);
	for (i = 0; i < NRT; i++)
		lirs_record_release(&recs[i]);
	for (j = 0; j < 5; j++)
		lb_buf_release(&f[j]);
	for (j = 0; j < 4; j++)
		lb_buf_release(&x[j]);
	tr_free(&t);
	lb_buf_release(&out);
}

static void test_record_copy(void)
{
	char *extra[] = { "a", "" };
	lirs_record r = rec("u", "t", "a", "s", "e"), c;

	r.extra = extra;
	r.nextra = 2;
	r.line = 7;
	IS_INT(lirs_record_copy(&c, &r), 0, "record copy: works");
	OK(rec_eq(&r, &c) && c.line == 7 && c.title != r.title && c.extra != r.extra,
	   "record copy: deep and equal");
	lirs_record_release(&c);
	OK(c.title == NULL && c.nextra == 0, "record release: zeroes the record");
}

/* Many batches: the deflate thread sees several jobs. */
static void test_big(void)
{
	lb_buf out = LB_BUF_INIT, title = LB_BUF_INIT;
	lirs_writer *w = wnew(&out, 0, 0);
	lirs_record r;
	struct tr t = { 0 };
	int i, rc = 0;

	for (i = 0; i < 40; i++)
		lb_buf_adds(&title, "日本語のタイトル");
	for (i = 0; i < 3000; i++) {
		r = rec("http://example.jp/", title.data, "作者", "0", "");
		r.content_length = i;
		rc |= lirs_writer_add(w, &r);
	}
	rc |= lirs_writer_finish(w);
	IS_INT(rc, 0, "big: 3000 records of 2 KB written");
	tr_read(&t, out.data, out.len, 65536);
	IS_INT(t.nrecs, 3000, "big: all read back");
	if (t.nrecs == 3000)
		OK(t.recs[2999].content_length == 2999 && strcmp(t.recs[2999].title, title.data) == 0,
		   "big: last record intact");
	tr_free(&t);
	lirs_writer_free(w);
	lb_buf_release(&out);
	lb_buf_release(&title);
}

/* A real full device through lirs_sink_stdio (unbuffered, so that the
 * writer's own write fails, not the caller's fclose): the failure keeps
 * the device's errno in err->sys and says it, gzip or plain. */
static void test_dev_full(void)
{
	lirs_record r;

	memset(&r, 0, sizeof r);
	r.last_modified = 1000000000;
	r.last_detected = 1000000001;
	r.url = (char *)"http://example.jp/";
	r.title = (char *)"full";
	for (int plain = 0; plain <= 1; plain++) {
		const char *what = plain ? "/dev/full, plain" : "/dev/full, gzip";
		FILE *fp = fopen("/dev/full", "w");
		lirs_writer_opts o;
		lirs_writer *w;
		lb_error e = LB_ERROR_INIT;

		if (!fp) {
			SKIP("no /dev/full", "%s: finish says LB_ESINK", what);
			SKIP("no /dev/full", "%s: err->sys is ENOSPC", what);
			SKIP("no /dev/full", "%s: the message says why", what);
			continue;
		}
		setvbuf(fp, NULL, _IONBF, 0);
		memset(&o, 0, sizeof o);
		o.sink = lirs_sink_stdio;
		o.ctx = fp;
		o.no_gzip = plain;
		w = lirs_writer_new(&o);
		lirs_writer_add(w, &r);
		errno = 0;
		IS_INT(lirs_writer_finish(w), LB_ESINK, "%s: finish says LB_ESINK", what);
		lirs_writer_error(w, &e);
		IS_INT(e.sys, ENOSPC, "%s: err->sys is ENOSPC", what);
		OK(strstr(lb_error_msg(&e), strerror(ENOSPC)) != NULL, "%s: the message says why (%s)", what,
		   lb_error_msg(&e));
		lirs_writer_free(w);
		fclose(fp);
	}
}

int main(void)
{
	TAP_PLAN(97);
	test_exact();
	test_eucjp();
	test_vendor_table();
	test_vendor_all();
	test_lookalikes();
	test_gzip_and_errors();
	test_dev_full();
	test_record_copy();
	build_pool();
	OK(npool > 500, "pool: %zu round-trip characters", npool);
	OK(nspool > 500 && nspool < npool, "pool: %zu of them strict EUC-JP", nspool);
	P = spool, NP = nspool;
	roundtrip(0, 0, "round trip EUC-JP+gzip");
	P = pool, NP = npool;
	wnew_ms = 1;
	roundtrip(0, 0, "round trip EUC-JP-MS+gzip");
	wnew_ms = 0;
	roundtrip(1, 1, "round trip UTF-8+plain");
	test_big();
	TAP_DONE();
}
