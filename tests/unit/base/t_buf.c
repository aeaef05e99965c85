/* t_buf.c: the growable buffer and the one array-growing rule. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <stdlib.h>

#include "lb_buf.h"
#include "tap.h"

static void test_lgrow(void)
{
	int *v = NULL, *p;
	size_t cap = 0;

	p = lb_grow(v, &cap, 1, sizeof *v, 16);
	OK(p != NULL && cap == 16, "first growth takes the first capacity (%zu)", cap);
	v = p;
	OK(lb_grow(v, &cap, 16, sizeof *v, 16) == v && cap == 16, "no growth while it fits");
	p = lb_grow(v, &cap, 17, sizeof *v, 16);
	OK(p != NULL && cap == 32, "then it doubles (%zu)", cap);
	v = p;
	p = lb_grow(v, &cap, 100, sizeof *v, 16);
	OK(p != NULL && cap == 128, "doubles as often as needed (%zu)", cap);
	v = p;
	v[127] = 7;
	p = lb_grow(v, &cap, SIZE_MAX / 2, sizeof *v, 16);
	OK(p == NULL && cap == 128 && v[127] == 7, "an overflowing size is refused, the array kept");
	free(v);
}

static void test_lbuf(void)
{
	lb_buf b = LB_BUF_INIT;
	char *s;
	size_t n;

	OK(b.data != NULL && b.data[0] == '\0', "a new buffer is an empty string, never NULL");
	lb_buf_adds(&b, "ab");
	lb_buf_addc(&b, 'c');
	lb_buf_addf(&b, "%d", 42);
	IS_STR(b.data, "abc42", "adds, addc and addf append");
	lb_buf_reset(&b);
	IS_STR(b.data, "", "reset empties it");
	lb_buf_add(&b, "xyz", 3);
	s = lb_buf_detach(&b, &n);
	IS_STR(s, "xyz", "detach hands the string over");
	OK(n == 3 && b.len == 0 && b.data[0] == '\0', "...and leaves the buffer empty");
	free(s);
	lb_buf_release(&b);
}

/* lb_buf_addf() formats %s %d %u %ld %lld %zu %% itself and hands anything
 * else to vsnprintf(): both must give what snprintf() gives. */
static void test_addf_like_snprintf(void)
{
#define SAME(...) do { \
		char want[256]; \
		lb_buf b = LB_BUF_INIT; \
		snprintf(want, sizeof want, __VA_ARGS__); \
		lb_buf_adds(&b, "<"); \
		OK(lb_buf_addf(&b, __VA_ARGS__) == 0 && strcmp(b.data + 1, want) == 0 && \
		   b.len == strlen(want) + 1, "addf gives what snprintf gives: '%s' (got '%s')", \
		   want, b.data + 1); \
		lb_buf_release(&b); \
	} while (0)
	SAME("plain text");
	SAME("%s", "");
	SAME("%s<%s>", "    ", "title");
	SAME("%d %d %d", 0, -1, INT_MIN);
	SAME("%d|%u", INT_MAX, UINT_MAX);
	SAME("%ld %lu", LONG_MIN, ULONG_MAX);
	SAME("%lld:%llu", LLONG_MIN, ULLONG_MAX);
	SAME("%lld", (long long)1700000000);
	SAME("%zu items", (size_t)12345);
	SAME("100%% %s", "sure");
	SAME("%%%d%%", 7);
	SAME("%02d:%02d", 5, 7);            /* widths: vsnprintf */
	SAME("%c%s", 'x', "y");
	SAME("%.3s|%5s|%-4d|", "abcdef", "ab", 3);
	SAME("%x %X %o", 255u, 255u, 8u);
	SAME("%%%02X", 0x2f);
	SAME("%zd %hd", (ssize_t)-3, (short)4);
	SAME("%.2f", 1.5);
#undef SAME
	{
		lb_buf b = LB_BUF_INIT;
		size_t i;
		for (i = 0; i < 1000; i++)
			lb_buf_addf(&b, "%zu,", i);
		OK(b.len == 3890 && strncmp(b.data + b.len - 4, "999,", 4) == 0,
		   "addf grows the buffer as it goes (%zu bytes)", b.len);
		lb_buf_release(&b);
	}
}

int main(void)
{
	TAP_PLAN(29);
	test_lgrow();
	test_lbuf();
	test_addf_like_snprintf();
	TAP_DONE();
}
