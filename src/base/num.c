/*
 * num.c: numbers read from text (lb_num.h).
 */
#include "lb_num.h"

#include "lb_error.h"

int lb_num_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char *p = s;
	int neg = 0;
	uint64_t v = 0, lim;
	int64_t n;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		return LB_EINVAL;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return LB_EINVAL;
		if (v > (lim - (uint64_t)(*p - '0')) / 10)
			goto range;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	n = neg ? (int64_t)(0 - v) : (int64_t)v;
	if (n < min || n > max)
		return LB_ETOOBIG;
	*out = n;
	return 0;
range:
	/* Digits that overflow are still checked for garbage after them. */
	while (*p >= '0' && *p <= '9')
		p++;
	return *p ? LB_EINVAL : LB_ETOOBIG;
}
