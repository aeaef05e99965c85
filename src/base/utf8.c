/*
 * utf8.c: the one UTF-8 decoder (lb_utf8.h).
 */
#include "lb_utf8.h"

#include <stdint.h>
#include <string.h>

size_t lb_utf8_decode(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t k = lb_utf8_len(str, n);

	switch (k) {
	case 1: *cp = s[0]; break;
	case 2: *cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F); break;
	case 3: *cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F); break;
	case 4:
		*cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
		      (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
		break;
	}
	return k;
}

int lb_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {   /* most text is ASCII: no call */
			i++;
			continue;
		}
		if (!(k = lb_utf8_len(s + i, n - i)))
			return 0;
		i += k;
	}
	return 1;
}

size_t lb_utf8_clip(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = n, want;

	/* back over at most three continuation bytes to a lead byte */
	while (i > 0 && n - i < 3 && (s[i - 1] & 0xC0) == 0x80)
		i--;
	if (i == 0 || s[i - 1] < 0xC0)
		return n;   /* ends on ASCII, or no lead close enough: as it is */
	want = s[i - 1] >= 0xF0 ? 4 : s[i - 1] >= 0xE0 ? 3 : 2;
	return n - (i - 1) < want ? i - 1 : n;
}

size_t lb_utf8_prefix(const char *s, size_t n, size_t max_chars)
{
	size_t i = 0, k;

	while (i < n && max_chars > 0) {
		k = lb_utf8_len(s + i, n - i);
		i += k ? k : 1;
		max_chars--;
	}
	return i;
}

/* 1 when none of the 8 bytes at p has its high bit set or is NUL: a
 * word of ASCII, 0x01..0x7F (the zero test is exact: a borrow starts only
 * at a zero byte). */
static int ascii8(const unsigned char *p)
{
	const uint64_t hi = 0x8080808080808080ull, one = 0x0101010101010101ull;
	uint64_t w;

	memcpy(&w, p, 8);
	return !(w & hi) && !((w - one) & ~w & hi);
}

/* The valid characters from s[i] on, up to the first byte to replace:
 * ASCII without a call, as in lb_utf8_valid(), and 8 bytes at a time (a
 * page's markup is mostly ASCII: a check scans every body once). */
static size_t valid_run(const char *s, size_t n, size_t i, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k;

	while (i < n) {
		while (i + 8 <= n && ascii8(p + i))
			i += 8;
		if (i >= n)
			break;
		if (p[i] - 1u < 0x7Fu) {   /* 0x01..0x7F */
			i++;
			continue;
		}
		if (p[i] == 0 && (flags & LB_UTF8_NUL))
			break;
		if (!(k = lb_utf8_len(s + i, n - i)))
			break;
		i += k;
	}
	return i;
}

/* Whole runs of valid text are copied at once: a page of text is one
 * lb_buf_add, not one a character. */
size_t lb_utf8_repair(lb_buf *out, const char *s, size_t n, unsigned flags, size_t *first_bad)
{
	size_t i = 0, end, bad = 0;

	while (i < n) {
		end = valid_run(s, n, i, flags);
		if (end > i && lb_buf_add(out, s + i, end - i) < 0)
			return (size_t)-1;
		if ((i = end) >= n)
			break;
		if (!bad++ && first_bad)
			*first_bad = out->len;
		if (lb_buf_add(out, LB_UTF8_FFFD, 3) < 0)
			return (size_t)-1;
		i++;
	}
	return bad;
}

size_t lb_utf8_repair_len(const char *s, size_t n, unsigned flags)
{
	return valid_run(s, n, 0, flags);
}
