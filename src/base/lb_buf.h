/*
 * lb_buf.h: a growable byte buffer.  data is never NULL (it points at a
 * static "" until the first growth) and is always NUL-terminated, so it
 * can be used as a C string.  Ownership leaves only by lb_buf_detach().
 */
#ifndef LB_BUF_H
#define LB_BUF_H

#include <stddef.h>

typedef struct lb_buf {
	char *data;
	size_t len;
	size_t cap;   /* 0 while data is the static "" */
} lb_buf;

#define LB_BUF_INIT { (char *)lb_buf_empty, 0, 0 }
extern const char lb_buf_empty[1];

void lb_buf_init(lb_buf *b);
/* Make room for extra more bytes (plus the NUL).  This and the lb_buf_add*
 * functions return 0, or LB_ENOMEM (lb_error.h) when out of memory;
 * lb_buf_addf() LB_EINVAL when vsnprintf() refuses the format. */
int lb_buf_grow(lb_buf *b, size_t extra);
int lb_buf_add(lb_buf *b, const void *p, size_t n);
int lb_buf_addc(lb_buf *b, int c);
int lb_buf_adds(lb_buf *b, const char *s);
int lb_buf_addf(lb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empty it, keeping the memory. */
void lb_buf_reset(lb_buf *b);
/* Free the memory; b is empty and usable again. */
void lb_buf_release(lb_buf *b);
/*
 * The one rule for growing an array: returns v, or a larger copy of it,
 * with room for at least need elements of size bytes, doubling *cap from
 * first.  Returns NULL when out of memory or when the size would overflow;
 * then v is untouched and still the caller's.
 */
void *lb_grow(void *v, size_t *cap, size_t need, size_t size, size_t first);

/* Hand the memory to the caller (free() it); b is empty again. Never NULL
 * unless out of memory. */
char *lb_buf_detach(lb_buf *b, size_t *len);

#endif
