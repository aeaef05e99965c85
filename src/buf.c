#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char lbuf_empty[1];

void lbuf_init(lbuf *b)
{
	b->data = (char *)lbuf_empty;
	b->len = b->cap = 0;
}

int lbuf_grow(lbuf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 / 2 - b->len)
		return -1;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->cap ? b->data : NULL, cap);
	if (!p)
		return -1;
	if (!b->cap)
		p[0] = '\0';
	b->data = p;
	b->cap = cap;
	return 0;
}

int lbuf_add(lbuf *b, const void *p, size_t n)
{
	if (lbuf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int lbuf_addc(lbuf *b, int c)
{
	if (b->len + 1 < b->cap) {
		b->data[b->len++] = (char)c;
		b->data[b->len] = '\0';
		return 0;
	}
	{
		char ch = (char)c;
		return lbuf_add(b, &ch, 1);
	}
}

int lbuf_adds(lbuf *b, const char *s)
{
	return lbuf_add(b, s, strlen(s));
}

int lbuf_addf(lbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || lbuf_grow(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void *lgrow(void *v, size_t *cap, size_t need, size_t size, size_t first)
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

void lbuf_reset(lbuf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

void lbuf_release(lbuf *b)
{
	if (b->cap)
		free(b->data);
	lbuf_init(b);
}

char *lbuf_detach(lbuf *b, size_t *len)
{
	char *p;

	if (!b->cap && lbuf_grow(b, 0) < 0)
		return NULL;
	p = b->data;
	if (len)
		*len = b->len;
	lbuf_init(b);
	return p;
}
