/*
 * textstate.c: the text rules' state of a page in one column
 * (ant_textstate.h).  'S', version 1, then three sections, each a varint
 * length and its bytes: the noise rule's blob, the token rule's blob, and
 * the furniture (a varint count of segments, then the reason's text); then,
 * only when a change is held or the template left keys out, a fourth: the
 * held change's text (empty when none), and, when any, a fifth: the keys
 * of what the template left out (a varint length, then 4 bytes each,
 * little-endian).  A column without them reads as before, by older
 * versions too.
 */
#include "ant_textstate.h"

#include <string.h>

#include "lb_buf.h"
#include "lb_error.h"

static void put_var(lb_buf *b, size_t v, int *oom)
{
	do {
		unsigned char c = (unsigned char)(v & 0x7f);

		v >>= 7;
		*oom |= lb_buf_addc(b, (char)(c | (v ? 0x80 : 0))) < 0;
	} while (v);
}

static void put_part(lb_buf *b, const void *p, size_t n, int *oom)
{
	put_var(b, n, oom);
	if (n)
		*oom |= lb_buf_add(b, p, n) < 0;
}

int ant_textstate_join(const ant_textstate *s, unsigned char **blob, size_t *len)
{
	lb_buf b = LB_BUF_INIT;
	int oom = lb_buf_adds(&b, "S\001") < 0;
	size_t why = strnlen(s->furniture.why, sizeof s->furniture.why - 1);

	*blob = NULL;
	*len = 0;
	put_part(&b, s->noise, s->noise ? s->noise_len : 0, &oom);
	put_part(&b, s->tokens, s->tokens ? s->tokens_len : 0, &oom);
	put_var(&b, s->furniture.nseg, &oom);
	put_part(&b, s->furniture.why, why, &oom);
	if ((s->held && s->held_len) || s->furniture.nkeys)
		put_part(&b, s->held, s->held ? s->held_len : 0, &oom);
	if (s->furniture.nkeys) {
		put_var(&b, 4 * s->furniture.nkeys, &oom);
		for (size_t i = 0; i < s->furniture.nkeys; i++) {
			uint32_t k = s->furniture.keys[i];
			char le[4] = { (char)(k & 0xff), (char)(k >> 8 & 0xff), (char)(k >> 16 & 0xff), (char)(k >> 24) };

			oom |= lb_buf_add(&b, le, 4) < 0;
		}
	}
	if (oom) {
		lb_buf_release(&b);
		return LB_ENOMEM;
	}
	*len = b.len;
	*blob = (unsigned char *)lb_buf_detach(&b, NULL);
	return *blob ? 0 : LB_ENOMEM;
}

/* A varint at *p (before end), or (size_t)-1 when cut or too long. */
static size_t get_var(const unsigned char **p, const unsigned char *end)
{
	size_t v = 0;

	for (int s = 0; s < 63 && *p < end; s += 7) {
		unsigned char c = *(*p)++;

		v |= (size_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	return (size_t)-1;
}

/* One section: its bytes at *part, or LB_EPARSE when it runs past end. */
static int get_part(const unsigned char **p, const unsigned char *end, const unsigned char **part,
		    size_t *n)
{
	*n = get_var(p, end);
	if (*n == (size_t)-1 || *n > (size_t)(end - *p))
		return LB_EPARSE;
	*part = *n ? *p : NULL;
	*p += *n;
	return 0;
}

/* The template's keys: a section of 4 bytes each. */
static int get_keys(const unsigned char **p, const unsigned char *end, ant_furniture *f)
{
	const unsigned char *k;
	size_t n;

	if (get_part(p, end, &k, &n) < 0 || n % 4 || n / 4 > ANT_FURNITURE_KEYS)
		return LB_EPARSE;
	f->nkeys = n / 4;
	for (size_t i = 0; i < f->nkeys; i++)
		f->keys[i] = (uint32_t)k[4 * i] | (uint32_t)k[4 * i + 1] << 8 | (uint32_t)k[4 * i + 2] << 16 |
			     (uint32_t)k[4 * i + 3] << 24;
	return 0;
}

int ant_textstate_split(const void *blob, size_t len, ant_textstate *s)
{
	const unsigned char *p = blob, *end = p + len, *why, *held = NULL;
	size_t whylen, heldlen = 0;

	memset(s, 0, sizeof *s);
	if (!blob || !len)
		return 0;
	if (p[0] == 'N') {   /* the noise rule's blob alone */
		s->noise = p;
		s->noise_len = len;
		return 0;
	}
	if (len < 2 || p[0] != 'S' || p[1] != 1)
		return LB_EPARSE;
	p += 2;
	if (get_part(&p, end, &s->noise, &s->noise_len) < 0 ||
	    get_part(&p, end, &s->tokens, &s->tokens_len) < 0 ||
	    (s->furniture.nseg = get_var(&p, end)) == (size_t)-1 ||
	    get_part(&p, end, &why, &whylen) < 0 || whylen >= sizeof s->furniture.why ||
	    (p < end && get_part(&p, end, &held, &heldlen) < 0) ||
	    (p < end && get_keys(&p, end, &s->furniture) < 0) || p != end) {
		memset(s, 0, sizeof *s);
		return LB_EPARSE;
	}
	if (whylen)
		memcpy(s->furniture.why, why, whylen);
	s->held = heldlen ? (const char *)held : NULL;
	s->held_len = heldlen;
	return 0;
}
