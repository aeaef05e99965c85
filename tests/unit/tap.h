/*
 * tap.h: the unit tests' tiny harness.  Each check prints "ok - name" or
 * "not ok - name"; tests/run.sh counts them.  Header-only on purpose.
 */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>
#include <string.h>

static int tap_failed;

#define OK(cond, ...) do { \
	int ok_ = (cond) ? 1 : 0; \
	printf("%s - ", ok_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define IS_STR(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int ok_ = g_ && w_ && strcmp(g_, w_) == 0; \
	printf("%s - ", ok_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   %s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } \
} while (0)

#define IS_INT(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	printf("%s - ", g_ == w_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (g_ != w_) { tap_failed++; printf("#   %s:%d: got %lld, want %lld\n", __FILE__, __LINE__, g_, w_); } \
} while (0)

#define TAP_DONE() return tap_failed ? 1 : 0
#endif
