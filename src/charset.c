/*
 * charset.c: per-line EUC-JP decoding with the LIRS 2.1 §7 UTF-8
 * fallback, and EUC-JP encoding with U+3013 for what EUC-JP cannot hold.
 * Pure-ASCII lines (most of every LIRS file) never reach iconv.
 */
#include "charset.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const char fffd[3] = { (char)0xef, (char)0xbf, (char)0xbd };
static const char geta[2] = { (char)0xa2, (char)0xae };   /* U+3013 in EUC-JP */

int cs_open(cs_conv *c, int dir)
{
	c->dec = c->enc = c->enc2 = (iconv_t)-1;
	if ((dir & 1) && (c->dec = iconv_open("UTF-8", "EUC-JP-MS")) == (iconv_t)-1)
		goto fail;
	if (dir & 2) {
		if ((c->enc = iconv_open("EUC-JP-MS", "UTF-8")) == (iconv_t)-1)
			goto fail;
		/* Plain EUC-JP is only a second chance; missing it is no error. */
		c->enc2 = iconv_open("EUC-JP", "UTF-8");
	}
	return 0;
fail:
	cs_close(c);
	return -1;
}

void cs_close(cs_conv *c)
{
	if (c->dec != (iconv_t)-1)
		iconv_close(c->dec);
	if (c->enc != (iconv_t)-1)
		iconv_close(c->enc);
	if (c->enc2 != (iconv_t)-1)
		iconv_close(c->enc2);
	c->dec = c->enc = c->enc2 = (iconv_t)-1;
}

int cs_is_ascii(const char *s, size_t n)
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

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 table), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
			(s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

int cs_is_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (!(k = utf8_len(p + i, n - i)))
			return 0;
		i += k;
	}
	return 1;
}

/* Bad bytes UTF-8 decoding would replace. */
static size_t utf8_bad(const unsigned char *p, size_t n)
{
	size_t i = 0, k, bad = 0;

	while (i < n) {
		k = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		if (!k) {
			bad++;
			k = 1;
		}
		i += k;
	}
	return bad;
}

/* UTF-8 decoding with U+FFFD per bad byte. */
static int utf8_repair(const char *s, size_t n, lbuf *out, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	lbuf_reset(out);
	*bad = (size_t)-1;
	while (i < n) {
		k = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		if (k) {
			if (lbuf_add(out, s + i, k) < 0)
				return -1;
			i += k;
			continue;
		}
		if (*bad == (size_t)-1)
			*bad = out->len;
		if (lbuf_add(out, fffd, 3) < 0)
			return -1;
		i++;
	}
	return 0;
}

/*
 * iconv's EUC-JP-MS decoder over s[0..n), appended to out.  With repair,
 * each byte it rejects becomes U+FFFD and decoding goes on; without, the
 * first rejection ends it.  Returns the bytes rejected (0 = clean), or -1.
 */
static long euc_decode(cs_conv *c, const char *s, size_t n, lbuf *out, int repair, size_t *bad)
{
	char *in = (char *)s, *op;
	size_t inleft = n, outleft, r;
	long nbad = 0;

	iconv(c->dec, NULL, NULL, NULL, NULL);
	while (inleft > 0) {
		/* EUC-JP never takes more than 2 UTF-8 bytes per input byte. */
		if (lbuf_grow(out, 2 * inleft + 4) < 0)
			return -1;
		op = out->data + out->len;
		outleft = out->cap - out->len - 1;
		r = iconv(c->dec, &in, &inleft, &op, &outleft);
		out->len = (size_t)(op - out->data);
		out->data[out->len] = '\0';
		if (r != (size_t)-1)
			break;
		if (errno == E2BIG)
			continue;
		/* EILSEQ, or EINVAL for a sequence cut by the line end */
		if (!repair)
			return 1;
		if (nbad++ == 0)
			*bad = out->len;
		if (lbuf_add(out, fffd, 3) < 0)
			return -1;
		in++;
		inleft--;
		iconv(c->dec, NULL, NULL, NULL, NULL);
	}
	return nbad;
}

/*
 * EUC-JP-MS maps stray bytes 80-A0 to the C1 controls U+0080-U+009F.  No
 * real title holds those, while UTF-8 is full of such bytes, so a line
 * that decodes to C1 controls is taken as not EUC-JP.
 */
static int has_c1(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (p[i] == 0xc2 && p[i + 1] < 0xa0)
			return 1;
	return 0;
}

int cs_decode_line(cs_conv *c, const char *s, size_t n, lbuf *out, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t first = 0, last = n;
	long r;

	while (first < n && p[first] < 0x80)
		first++;
	if (first == n)
		return CS_ASCII;
	while (p[last - 1] < 0x80)
		last--;
	/* Only the span from the first to the last high byte goes through iconv. */
	lbuf_reset(out);
	if (lbuf_add(out, s, first) < 0)
		return -1;
	r = euc_decode(c, s + first, last - first, out, 0, bad);
	if (r < 0)
		return -1;
	if (r == 0 && !(has_c1(out->data + first, out->len - first) &&
			cs_is_utf8(s + first, last - first))) {
		if (lbuf_add(out, s + last, n - last) < 0)
			return -1;
		return CS_EUCJP;
	}
	if (cs_is_utf8(s + first, last - first))
		return CS_UTF8;
	/* Neither: repair with whichever decoding rejects fewer bytes. */
	lbuf_reset(out);
	if (lbuf_add(out, s, first) < 0)
		return -1;
	r = euc_decode(c, s + first, last - first, out, 1, bad);
	if (r < 0)
		return -1;
	if ((size_t)r > utf8_bad(p + first, last - first))
		return utf8_repair(s, n, out, bad) < 0 ? -1 : CS_INVALID;
	if (lbuf_add(out, s + last, n - last) < 0)
		return -1;
	return CS_INVALID;
}

/* Appends one character EUC-JP-MS lacks: plain EUC-JP, else U+3013. */
static int encode_one(cs_conv *c, const char *s, size_t k, lbuf *out, unsigned long *replaced)
{
	char tmp[8], *in = (char *)s, *op = tmp;
	size_t inleft = k, outleft = sizeof(tmp);

	if (k && c->enc2 != (iconv_t)-1) {
		iconv(c->enc2, NULL, NULL, NULL, NULL);
		if (iconv(c->enc2, &in, &inleft, &op, &outleft) != (size_t)-1 && inleft == 0)
			return lbuf_add(out, tmp, sizeof(tmp) - outleft);
	}
	(*replaced)++;
	return lbuf_add(out, geta, 2);
}

int cs_encode(cs_conv *c, const char *s, size_t n, lbuf *out, unsigned long *replaced)
{
	char *in = (char *)s, *op;
	size_t inleft = n, outleft, r, k;

	if (cs_is_ascii(s, n))
		return lbuf_add(out, s, n);
	iconv(c->enc, NULL, NULL, NULL, NULL);
	while (inleft > 0) {
		/* At most 2 bytes out per byte in (U+3013 for one bad byte). */
		if (lbuf_grow(out, 2 * inleft + 4) < 0)
			return -1;
		op = out->data + out->len;
		outleft = out->cap - out->len - 1;
		r = iconv(c->enc, &in, &inleft, &op, &outleft);
		out->len = (size_t)(op - out->data);
		out->data[out->len] = '\0';
		if (r != (size_t)-1)
			break;
		if (errno == E2BIG)
			continue;
		k = utf8_len((const unsigned char *)in, inleft);
		if (encode_one(c, in, k, out, replaced) < 0)
			return -1;
		k = k ? k : 1;
		in += k;
		inleft -= k;
		iconv(c->enc, NULL, NULL, NULL, NULL);
	}
	return 0;
}
