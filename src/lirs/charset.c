/*
 * charset.c: per-line EUC-JP decoding with the LIRS 2.1 §7 UTF-8
 * fallback, and EUC-JP encoding with U+3013 for what EUC-JP cannot hold.
 * Pure-ASCII lines (most of every LIRS file) never reach iconv.
 */
#include "lirs_charset.h"

#include "lb_utf8.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static const char geta[2] = { (char)0xa2, (char)0xae };   /* U+3013 in EUC-JP */

static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int tables_ok;
static void build_tables(void);

int lirs_cs_open(lirs_cs_conv *c, int dir)
{
	c->dec = c->enc = c->enc2 = (iconv_t)-1;
	c->seen_utf8 = 0;
	c->ms = 0;
	if (dir & 1) {
		pthread_once(&tables_once, build_tables);
		if (!tables_ok)
			goto fail;
	}
	if (dir & 2) {
		if ((c->enc = iconv_open("EUC-JP-MS", "UTF-8")) == (iconv_t)-1)
			goto fail;
		/* Plain EUC-JP: a second chance, and what strict output is checked against. */
		if ((c->enc2 = iconv_open("EUC-JP", "UTF-8")) == (iconv_t)-1)
			goto fail;
	}
	return 0;
fail:
	lirs_cs_close(c);
	return LB_EICONV;
}

void lirs_cs_close(lirs_cs_conv *c)
{
	if (c->dec != (iconv_t)-1)
		iconv_close(c->dec);
	if (c->enc != (iconv_t)-1)
		iconv_close(c->enc);
	if (c->enc2 != (iconv_t)-1)
		iconv_close(c->enc2);
	c->dec = c->enc = c->enc2 = (iconv_t)-1;
	c->seen_utf8 = 0;
}

int lirs_cs_is_ascii(const char *s, size_t n)
{
	uint64_t acc = 0, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		acc |= w;
	}
	for (; i < n; i++)
		acc |= (unsigned char)s[i];
	return (acc & UINT64_C(0x8080808080808080)) == 0;
}

int lirs_cs_is_sjis(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int pairs = 0;

	while (i < n) {
		unsigned c = p[i];
		if (c < 0x80 || (c >= 0xa1 && c <= 0xdf)) {
			i++;
			continue;
		}
		if (!((c >= 0x81 && c <= 0x9f) || (c >= 0xe0 && c <= 0xfc)) || i + 1 >= n)
			return 0;
		c = p[i + 1];
		if (c < 0x40 || c == 0x7f || c > 0xfc)
			return 0;
		pairs = 1;
		i += 2;
	}
	return pairs;
}

/* Bad bytes UTF-8 decoding would replace. */
static size_t utf8_bad(const unsigned char *p, size_t n)
{
	size_t i = 0, k, bad = 0;

	while (i < n) {
		k = lb_utf8_len((const char *)p + i, n - i);
		if (!k) {
			bad++;
			k = 1;
		}
		i += k;
	}
	return bad;
}

/* UTF-8 decoding with U+FFFD per bad byte. */
static int utf8_repair(const char *s, size_t n, lb_buf *out, size_t *bad)
{
	lb_buf_reset(out);
	*bad = (size_t)-1;
	return lb_utf8_repair(out, s, n, 0, bad) == (size_t)-1 ? LB_ENOMEM : 0;
}

/*
 * Decoding is table driven: iconv's EUC-JP-MS answers for every JIS X 0208
 * and JIS X 0212 code are asked once per process and kept in two tables,
 * so a line costs one pass and no iconv call (iconv spends more time per
 * call and per character than all of the rest of the reader).
 */
#define NCODE (94 * 94)
static uint32_t t0208[NCODE], t0212[NCODE];   /* code point, 0 = invalid */

static uint32_t ask_iconv(iconv_t cd, const unsigned char *b, size_t n)
{
	unsigned char out[8];
	char *in = (char *)b, *op = (char *)out;
	size_t il = n, ol = sizeof(out);

	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &in, &il, &op, &ol) == (size_t)-1 || il != 0 || ol != 4)
		return 0;
	return (uint32_t)out[0] | (uint32_t)out[1] << 8 | (uint32_t)out[2] << 16 |
	       (uint32_t)out[3] << 24;
}

static void build_tables(void)
{
	iconv_t cd = iconv_open("UTF-32LE", "EUC-JP-MS");
	unsigned char b[3];
	unsigned i, j;

	if (cd == (iconv_t)-1)
		return;
	for (i = 0; i < 94; i++)
		for (j = 0; j < 94; j++) {
			b[0] = (unsigned char)(0xa1 + i);
			b[1] = (unsigned char)(0xa1 + j);
			t0208[i * 94 + j] = ask_iconv(cd, b, 2);
			b[0] = 0x8f;
			b[1] = (unsigned char)(0xa1 + i);
			b[2] = (unsigned char)(0xa1 + j);
			t0212[i * 94 + j] = ask_iconv(cd, b, 3);
		}
	iconv_close(cd);
	tables_ok = t0208[(0xb0 - 0xa1) * 94] == 0x4e9c;   /* B0 A1 is U+4E9C */
}

static char *put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xc0 | c >> 6);
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | c >> 12);
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | c >> 18);
		*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

#define IS_GR(c) ((c) >= 0xa1 && (c) <= 0xfe)

/* The code point of the EUC-JP character at p[0..n), 0 if invalid; *k its length. */
static inline uint32_t euc_char(const unsigned char *p, size_t n, size_t *k)
{
	unsigned c = p[0];

	if (c >= 0xa1 && c <= 0xfe) {                 /* JIS X 0208 + NEC/IBM */
		*k = 2;
		return n >= 2 && IS_GR(p[1]) ? t0208[(c - 0xa1) * 94 + p[1] - 0xa1] : 0;
	}
	if (c == 0x8e) {                               /* SS2: half-width katakana */
		*k = 2;
		return n >= 2 && p[1] >= 0xa1 && p[1] <= 0xdf ? 0xff61 + p[1] - 0xa1 : 0;
	}
	if (c == 0x8f) {                               /* SS3: JIS X 0212 */
		*k = 3;
		return n >= 3 && IS_GR(p[1]) && IS_GR(p[2]) ?
			t0212[(p[1] - 0xa1) * 94 + p[2] - 0xa1] : 0;
	}
	*k = 1;                                        /* C1 and FF: never EUC-JP text */
	return 0;
}

/*
 * EUC-JP-MS to UTF-8, appended to out.  With repair, each byte that does
 * not start a valid character becomes U+FFFD and decoding goes on; without,
 * the first one ends it.  Returns the bytes rejected (0 = clean), or -1.
 */
static long euc_decode(const char *s, size_t n, lb_buf *out, int repair, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;
	long nbad = 0;
	uint32_t c;
	char *o;

	/* at most 3 bytes out per byte in (U+FFFD for one bad byte) */
	if (lb_buf_grow(out, 3 * n + 4) < 0)
		return LB_ENOMEM;
	o = out->data + out->len;
	while (i < n) {
		if (p[i] < 0x80) {
			*o++ = (char)p[i++];
			continue;
		}
		if ((c = euc_char(p + i, n - i, &k))) {
			o = put_utf8(o, c);
			i += k;
			continue;
		}
		if (!repair)
			return 1;
		if (nbad++ == 0)
			*bad = (size_t)(o - out->data);
		memcpy(o, LB_UTF8_FFFD, 3);
		o += 3;
		i++;
	}
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
	return nbad;
}

int lirs_cs_decode_line(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t first = 0;
	long r;

	while (first < n && p[first] < 0x80)
		first++;
	if (first == n)
		return LIRS_CS_ASCII;
	lb_buf_reset(out);
	if (lb_buf_add(out, s, first) < 0)
		return LB_ENOMEM;
	if (c->seen_utf8 && lb_utf8_valid(s + first, n - first))
		return LIRS_CS_UTF8;
	if ((r = euc_decode(s + first, n - first, out, 0, bad)) <= 0)
		return r < 0 ? LB_ENOMEM : LIRS_CS_EUCJP;
	if (lb_utf8_valid(s + first, n - first)) {
		c->seen_utf8 = 1;
		return LIRS_CS_UTF8;
	}
	/* Neither: repair with whichever decoding rejects fewer bytes. */
	out->len = first;
	out->data[first] = '\0';
	if ((r = euc_decode(s + first, n - first, out, 1, bad)) < 0)
		return LB_ENOMEM;
	if ((size_t)r > utf8_bad(p + first, n - first))
		return utf8_repair(s, n, out, bad) < 0 ? LB_ENOMEM : LIRS_CS_INVALID;
	return LIRS_CS_INVALID;
}

/*
 * Encoding is table driven too: for every character the decoding tables
 * hold, iconv's own UTF-8 -> EUC-JP-MS answer is asked once per process,
 * and kept when it reads back as the same character.  Characters outside
 * the table (U+301C WAVE DASH and other many-to-one mappings) go through
 * encode_one() one at a time.
 */
static uint32_t rev[0x10000];   /* EUC-JP-MS bytes, big-endian packed; 0 = ask iconv */
static uint32_t rev_s[0x10000]; /* the same, strict EUC-JP codes only (the default) */
static pthread_once_t rev_once = PTHREAD_ONCE_INIT;

/*
 * Strict EUC-JP is what glibc's "EUC-JP" decodes: JIS X 0208, SS2
 * half-width katakana, SS3 JIS X 0212; not NEC row 13, not the IBM
 * extensions (8F F3 F3 - 8F F4 FE), not the user-defined rows.  Which
 * codes those are is asked once, from the same iconv a strict reader uses.
 */
static uint8_t strict0208[NCODE], strict0212[NCODE];

static void build_strict(void)
{
	iconv_t cd = iconv_open("UTF-32LE", "EUC-JP");
	unsigned char b[3];
	unsigned i, j;

	if (cd == (iconv_t)-1)
		return;   /* nothing is strict: lirs_cs_open() already failed without it */
	for (i = 0; i < 94; i++)
		for (j = 0; j < 94; j++) {
			b[0] = (unsigned char)(0xa1 + i);
			b[1] = (unsigned char)(0xa1 + j);
			strict0208[i * 94 + j] = ask_iconv(cd, b, 2) != 0;
			b[0] = 0x8f;
			b[1] = (unsigned char)(0xa1 + i);
			b[2] = (unsigned char)(0xa1 + j);
			strict0212[i * 94 + j] = ask_iconv(cd, b, 3) != 0;
		}
	iconv_close(cd);
}

/* 1 when the packed EUC-JP bytes v are one strict EUC-JP character. */
static int is_strict(uint32_t v)
{
	unsigned a = v >> 16 & 0xff, b = v >> 8 & 0xff, c = v & 0xff;

	if (v > 0xffff)
		return a == 0x8f && IS_GR(b) && IS_GR(c) &&
			strict0212[(b - 0xa1) * 94 + c - 0xa1];
	if (b == 0x8e)
		return c >= 0xa1 && c <= 0xdf;
	return IS_GR(b) && IS_GR(c) && strict0208[(b - 0xa1) * 94 + c - 0xa1];
}

static uint32_t ask_enc(iconv_t cd, uint32_t u)
{
	char in8[4], out[4], *in = in8, *op = out;
	size_t il = (size_t)(put_utf8(in8, u) - in8), ol = sizeof(out), n, i;
	uint32_t v = 0;

	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &in, &il, &op, &ol) == (size_t)-1 || il != 0)
		return 0;
	n = sizeof(out) - ol;
	for (i = 0; i < n; i++)
		v = v << 8 | (unsigned char)out[i];
	return n >= 2 ? v : 0;
}

/* What the reader's tables decode the packed EUC-JP bytes v to, 0 if
 * they are not exactly one character. */
static uint32_t back(uint32_t v)
{
	unsigned char b[3];
	size_t n = 0, k;
	uint32_t c;

	if (v > 0xffff)
		b[n++] = (unsigned char)(v >> 16);
	b[n++] = (unsigned char)(v >> 8);
	b[n++] = (unsigned char)v;
	c = euc_char(b, n, &k);
	return k == n ? c : 0;
}

static void build_rev(void)
{
	iconv_t cd;
	size_t i;

	/* the table is built from the decoding tables, and checked with them */
	pthread_once(&tables_once, build_tables);
	if (!tables_ok || (cd = iconv_open("EUC-JP-MS", "UTF-8")) == (iconv_t)-1)
		return;
	for (i = 0; i < NCODE; i++) {
		if (t0208[i] && t0208[i] < 0x10000 && !rev[t0208[i]])
			rev[t0208[i]] = ask_enc(cd, t0208[i]);
		if (t0212[i] && t0212[i] < 0x10000 && !rev[t0212[i]])
			rev[t0212[i]] = ask_enc(cd, t0212[i]);
	}
	for (i = 0xff61; i <= 0xff9f; i++)
		rev[i] = ask_enc(cd, (uint32_t)i);
	iconv_close(cd);
	/* Only what reads back as itself stays in the table: the rest goes
	 * through encode_one(), which counts it as approximated. */
	for (i = 0; i < 0x10000; i++)
		if (rev[i] && back(rev[i]) != i)
			rev[i] = 0;
	build_strict();
	for (i = 0; i < 0x10000; i++)
		rev_s[i] = rev[i] && is_strict(rev[i]) ? rev[i] : 0;
}

/*
 * Tries converter cd on one (non-ASCII) character; returns the EUC-JP
 * bytes packed big-endian, 0 when it cannot.  glibc's EUC-JP and
 * EUC-JP-MS write U+00A5 YEN SIGN as 0x5C and U+203E OVERLINE as 0x7E
 * (JIS X 0201 Roman): an ASCII byte, a backslash even, that would end up
 * unescaped in the field.  A non-ASCII character must give non-ASCII
 * bytes, or it is refused.
 */
static uint32_t try_iconv(iconv_t cd, const char *s, size_t k)
{
	unsigned char tmp[8];
	char *in = (char *)s, *op = (char *)tmp;
	size_t inleft = k, outleft = sizeof(tmp), n, i;
	uint32_t v = 0;

	if (cd == (iconv_t)-1)
		return 0;
	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &in, &inleft, &op, &outleft) == (size_t)-1 || inleft != 0)
		return 0;
	n = sizeof(tmp) - outleft;
	if (n < 2 || n > 3)
		return 0;
	for (i = 0; i < n; i++) {
		if (tmp[i] < 0x80)
			return 0;
		v = v << 8 | tmp[i];
	}
	return v;
}

/* Characters iconv writes as ASCII, mapped to their full-width forms
 * (lirs(5), "Writing EUC-JP"). */
static uint32_t fullwidth(uint32_t u)
{
	switch (u) {
	case 0x00a5: return 0xa1ef;   /* YEN SIGN -> FULLWIDTH YEN SIGN */
	case 0x203e: return 0xa1b1;   /* OVERLINE -> FULLWIDTH MACRON */
	default: return 0;
	}
}

/* v, or 0 when strict output is wanted and v is a vendor code. */
static uint32_t allowed(const lirs_cs_conv *c, uint32_t v)
{
	return c->ms || is_strict(v) ? v : 0;
}

/* Appends a readable form (vendor.c: ASCII and strict EUC-JP characters). */
static int put_form(const char *form, lb_buf *out)
{
	const unsigned char *p = (const unsigned char *)form;
	size_t k;
	uint32_t u, v;
	char b[3];

	for (; *p; p += k) {
		u = 0;
		k = lb_utf8_decode((const char *)p, strlen((const char *)p), &u);
		if (!k || (k > 1 && (u >= 0x10000 || !(v = rev_s[u]))))
			return lb_buf_add(out, geta, 2);   /* not reached: t_writer checks the table */
		if (k == 1) {
			if (lb_buf_addc(out, (char)u) < 0)
				return LB_ENOMEM;
			continue;
		}
		b[0] = (char)(v >> 16);
		b[1] = (char)(v >> 8);
		b[2] = (char)v;
		if (lb_buf_add(out, v > 0xffff ? b : b + 1, v > 0xffff ? 3 : 2) < 0)
			return LB_ENOMEM;
	}
	return 0;
}

/*
 * One character the table lacks (u its code point, 0 if s[0..k) is not
 * UTF-8): in strict mode a vendor character's readable form (counted in
 * *subst); else full-width form, EUC-JP-MS, plain EUC-JP (in strict mode
 * only strict codes), else U+3013.  The middle three can be many-to-one
 * (U+301C WAVE DASH is written A1 C1, which reads back as U+FF5E FULLWIDTH
 * TILDE): what does not read back as u is counted in *approx.
 */
static int encode_one(lirs_cs_conv *c, uint32_t u, const char *s, size_t k, lb_buf *out,
		      unsigned long *replaced, unsigned long *approx, unsigned long *subst)
{
	const char *form;
	uint32_t v = 0;
	char b[3];
	size_t n = 0;

	if (u && !c->ms && (form = lirs_cs_vendor_form(u))) {
		(*subst)++;
		return put_form(form, out);
	}
	if (u && !(v = fullwidth(u)) && !(v = allowed(c, try_iconv(c->enc, s, k))))
		v = allowed(c, try_iconv(c->enc2, s, k));
	if (!v) {
		(*replaced)++;
		return lb_buf_add(out, geta, 2);
	}
	if (back(v) != u)
		(*approx)++;
	if (v > 0xffff)
		b[n++] = (char)(v >> 16);
	b[n++] = (char)(v >> 8);
	b[n++] = (char)v;
	return lb_buf_add(out, b, n);
}

int lirs_cs_encode(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out, unsigned long *replaced,
	      unsigned long *approx)
{
	unsigned long subst = 0;

	return lirs_cs_encode_counted(c, s, n, out, replaced, approx, &subst);
}

int lirs_cs_encode_counted(lirs_cs_conv *c, const char *s, size_t n, lb_buf *out,
		      unsigned long *replaced, unsigned long *approx, unsigned long *subst)
{
	const unsigned char *p = (const unsigned char *)s;
	const uint32_t *tab;
	size_t i = 0, k;
	uint32_t u, v;

	if (lirs_cs_is_ascii(s, n))
		return lb_buf_add(out, s, n);
	pthread_once(&rev_once, build_rev);
	tab = c->ms ? rev : rev_s;
	/* at most 3 bytes out per byte in (SS3); encode_one grows on its own */
	if (lb_buf_grow(out, 3 * n + 4) < 0)
		return LB_ENOMEM;
	while (i < n) {
		if (p[i] < 0x80) {
			out->data[out->len++] = (char)p[i++];
			continue;
		}
		u = 0;
		k = lb_utf8_decode(s + i, n - i, &u);
		if (u && u < 0x10000 && (v = tab[u])) {
			char *o = out->data + out->len;
			if (v > 0xffff)
				*o++ = (char)(v >> 16);
			*o++ = (char)(v >> 8);
			*o++ = (char)v;
			out->len = (size_t)(o - out->data);
		} else if (encode_one(c, u, s + i, k, out, replaced, approx, subst) < 0 ||
			   lb_buf_grow(out, 3 * (n - i) + 4) < 0) {
			return LB_ENOMEM;
		}
		i += k ? k : 1;
	}
	out->data[out->len] = '\0';
	return 0;
}
