/*
 * buf.c: the growable byte buffer (lb_buf.h).
 */
#include "lb_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_error.h"

const char lb_buf_empty[1];

void lb_buf_init(lb_buf *b)
{
	b->data = (char *)lb_buf_empty;
	b->len = b->cap = 0;
}

int lb_buf_grow(lb_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 / 2 - b->len)
		return LB_ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->cap ? b->data : NULL, cap);
	if (!p)
		return LB_ENOMEM;
	if (!b->cap)
		p[0] = '\0';
	b->data = p;
	b->cap = cap;
	return 0;
}

int lb_buf_add(lb_buf *b, const void *p, size_t n)
{
	if (n < b->cap - b->len) {   /* room for n and the NUL: no lb_buf_grow() call */
		if (n)   /* p may be NULL then */
			memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return 0;
	}
	if (lb_buf_grow(b, n) < 0)
		return LB_ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int lb_buf_addc(lb_buf *b, int c)
{
	if (b->len + 1 < b->cap) {
		b->data[b->len++] = (char)c;
		b->data[b->len] = '\0';
		return 0;
	}
	{
		char ch = (char)c;
		return lb_buf_add(b, &ch, 1);
	}
}

int lb_buf_adds(lb_buf *b, const char *s)
{
	return lb_buf_add(b, s, strlen(s));
}

/* Appends the decimal digits of v (with '-' when neg). */
static int add_dec(lb_buf *b, unsigned long long v, int neg)
{
	char d[24];
	size_t k = sizeof d;

	do
		d[--k] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (neg)
		d[--k] = '-';
	return lb_buf_add(b, d + k, sizeof d - k);
}

/*
 * The formats most callers use, %s %d %ld %lld %u %zu %%, done here;
 * 1 when fmt has anything else (a flag, a width, %x...), before any
 * output.  vsnprintf() costs several times as much for them: it was a
 * fifth of writing an Atom archive.
 */
static int addf_simple(lb_buf *b, const char *fmt, va_list ap)
{
	const char *p, *q;

	for (p = fmt; (p = strchr(p, '%')) != NULL; p += 2) {
		q = p + 1;
		while (*q == 'l' || *q == 'z')
			q++;
		if (!*q || !strchr("sdu%", *q) || (*q == 's' && q != p + 1) || (*q == '%' && q != p + 1) ||
		    q - p > 3 || (q - p == 3 && (p[1] != 'l' || p[2] != 'l')) ||
		    (q - p == 2 && p[1] == 'z' && *q != 'u'))
			return 1;
		p = q - 1;
	}
	for (p = fmt; *p; p = q) {
		long long v;
		unsigned long long u;

		if (*p != '%') {
			q = strchr(p, '%');
			if (!q)
				q = p + strlen(p);
			if (lb_buf_add(b, p, (size_t)(q - p)) < 0)
				return LB_ENOMEM;
			continue;
		}
		q = p + 1;
		switch (*q) {
		case '%':
			if (lb_buf_addc(b, '%') < 0)
				return LB_ENOMEM;
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (lb_buf_adds(b, s ? s : "(null)") < 0)
				return LB_ENOMEM;
			break;
		}
		case 'd':
			v = va_arg(ap, int);
			if (add_dec(b, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, v < 0) < 0)
				return LB_ENOMEM;
			break;
		case 'u':
			u = va_arg(ap, unsigned);
			if (add_dec(b, u, 0) < 0)
				return LB_ENOMEM;
			break;
		case 'z':
			q++;
			u = va_arg(ap, size_t);
			if (add_dec(b, u, 0) < 0)
				return LB_ENOMEM;
			break;
		default:   /* 'l': %ld, %lu, %lld, %llu */
			if (q[1] == 'l') {
				q += 2;
				if (*q == 'd')
					v = va_arg(ap, long long), u = 0;
				else
					u = va_arg(ap, unsigned long long), v = 0;
			} else {
				q++;
				if (*q == 'd')
					v = va_arg(ap, long), u = 0;
				else
					u = va_arg(ap, unsigned long), v = 0;
			}
			if (*q == 'd')
				u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
			if (add_dec(b, u, *q == 'd' && v < 0) < 0)
				return LB_ENOMEM;
			break;
		}
		q++;
	}
	return 0;
}

int lb_buf_addf(lb_buf *b, const char *fmt, ...)
{
	size_t room, len0 = b->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = addf_simple(b, fmt, ap);
	va_end(ap);
	if (n <= 0) {
		if (n < 0 && b->cap) {   /* out of memory: nothing added */
			b->len = len0;
			b->data[len0] = '\0';
		}
		return n;
	}
	/* Straight into the room left, formatting twice only when it does
	 * not fit. */
	room = b->cap ? b->cap - b->len : 0;   /* with the '\0' */
	va_start(ap, fmt);
	n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (room)
			b->data[b->len] = '\0';
		return LB_EINVAL;
	}
	if ((size_t)n >= room) {
		if (lb_buf_grow(b, (size_t)n) < 0) {
			if (room)
				b->data[b->len] = '\0';
			return LB_ENOMEM;
		}
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return 0;
}

void *lb_grow(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return v;
	while (n < need) {
		if (n > (size_t)-1 / 2)
			return NULL;
		n *= 2;
	}
	if (size && n > (size_t)-1 / size)
		return NULL;
	if (!(p = realloc(v, n * size)))
		return NULL;
	*cap = n;
	return p;
}

void lb_buf_reset(lb_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

void lb_buf_release(lb_buf *b)
{
	if (b->cap)
		free(b->data);
	lb_buf_init(b);
}

char *lb_buf_detach(lb_buf *b, size_t *len)
{
	char *p;

	if (!b->cap && lb_buf_grow(b, 0) < 0)
		return NULL;
	p = b->data;
	if (len)
		*len = b->len;
	lb_buf_init(b);
	return p;
}
