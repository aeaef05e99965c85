/*
 * buf.h: a growable byte buffer.  data is never NULL (it points at a
 * static "" until the first growth) and is always NUL-terminated, so it
 * can be used as a C string.  Ownership leaves only by lbuf_detach().
 */
#ifndef LIRS_BUF_H
#define LIRS_BUF_H

#include <stddef.h>

typedef struct lbuf {
	char *data;
	size_t len;
	size_t cap;   /* 0 while data is the static "" */
} lbuf;

#define LBUF_INIT { (char *)lbuf_empty, 0, 0 }
extern const char lbuf_empty[1];

void lbuf_init(lbuf *b);
/* Make room for extra more bytes (plus the NUL); -1 when out of memory. */
int lbuf_grow(lbuf *b, size_t extra);
int lbuf_add(lbuf *b, const void *p, size_t n);
int lbuf_addc(lbuf *b, int c);
int lbuf_adds(lbuf *b, const char *s);
int lbuf_addf(lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empty it, keeping the memory. */
void lbuf_reset(lbuf *b);
/* Free the memory; b is empty and usable again. */
void lbuf_release(lbuf *b);
/*
 * The one rule for growing an array: returns v, or a larger copy of it,
 * with room for at least need elements of size bytes, doubling *cap from
 * first.  Returns NULL when out of memory or when the size would overflow;
 * then v is untouched and still the caller's.
 */
void *lgrow(void *v, size_t *cap, size_t need, size_t size, size_t first);

/* Hand the memory to the caller (free() it); b is empty again. Never NULL
 * unless out of memory. */
char *lbuf_detach(lbuf *b, size_t *len);

#endif
