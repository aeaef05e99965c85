/* t_buf.c: the growable buffer and the one array-growing rule. */
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "tap.h"

static void test_lgrow(void)
{
	int *v = NULL, *p;
	size_t cap = 0;

	p = lgrow(v, &cap, 1, sizeof *v, 16);
	OK(p != NULL && cap == 16, "first growth takes the first capacity (%zu)", cap);
	v = p;
	OK(lgrow(v, &cap, 16, sizeof *v, 16) == v && cap == 16, "no growth while it fits");
	p = lgrow(v, &cap, 17, sizeof *v, 16);
	OK(p != NULL && cap == 32, "then it doubles (%zu)", cap);
	v = p;
	p = lgrow(v, &cap, 100, sizeof *v, 16);
	OK(p != NULL && cap == 128, "doubles as often as needed (%zu)", cap);
	v = p;
	v[127] = 7;
	p = lgrow(v, &cap, SIZE_MAX / 2, sizeof *v, 16);
	OK(p == NULL && cap == 128 && v[127] == 7, "an overflowing size is refused, the array kept");
	free(v);
}

static void test_lbuf(void)
{
	lbuf b = LBUF_INIT;
	char *s;
	size_t n;

	OK(b.data != NULL && b.data[0] == '\0', "a new buffer is an empty string, never NULL");
	lbuf_adds(&b, "ab");
	lbuf_addc(&b, 'c');
	lbuf_addf(&b, "%d", 42);
	IS_STR(b.data, "abc42", "adds, addc and addf append");
	lbuf_reset(&b);
	IS_STR(b.data, "", "reset empties it");
	lbuf_add(&b, "xyz", 3);
	s = lbuf_detach(&b, &n);
	IS_STR(s, "xyz", "detach hands the string over");
	OK(n == 3 && b.len == 0 && b.data[0] == '\0', "...and leaves the buffer empty");
	free(s);
	lbuf_release(&b);
}

int main(void)
{
	test_lgrow();
	test_lbuf();
	TAP_DONE();
}
