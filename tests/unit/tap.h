/*
 * tap.h: the unit tests' tiny harness, TAP as tests/run.sh reads it.
 * main() starts with TAP_PLAN(N), the number of checks it runs ("1..N"),
 * so a check that never ran (a crash, a branch not taken) is a failure;
 * each check prints "ok - name" or "not ok - name"; a check that cannot
 * run here is a SKIP ("ok - name # SKIP reason"), counted apart from the
 * passes; main() ends with TAP_DONE(), which fails when the count is off.
 * Header-only on purpose.
 */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>
#include <string.h>

static int tap_failed, tap_run, tap_planned = -1;

#define TAP_PLAN(n) do { tap_planned = (n); printf("1..%d\n", tap_planned); fflush(stdout); } while (0)

#define OK(cond, ...) do { \
	int ok_ = (cond) ? 1 : 0; \
	tap_run++; \
	printf("%s - ", ok_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define IS_STR(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int ok_ = g_ && w_ && strcmp(g_, w_) == 0; \
	tap_run++; \
	printf("%s - ", ok_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (!ok_) { tap_failed++; printf("#   %s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } \
} while (0)

#define IS_INT(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	tap_run++; \
	printf("%s - ", g_ == w_ ? "ok" : "not ok"); printf(__VA_ARGS__); printf("\n"); \
	if (g_ != w_) { tap_failed++; printf("#   %s:%d: got %lld, want %lld\n", __FILE__, __LINE__, g_, w_); } \
} while (0)

/* A check that cannot run here: counted as skipped, never as passed. */
#define SKIP(reason, ...) do { \
	tap_run++; \
	printf("ok - "); printf(__VA_ARGS__); printf(" # SKIP %s\n", (reason)); \
} while (0)

/* Flushes before a child process or a signal can lose buffered lines. */
#define TAP_FLUSH() fflush(stdout)

#define TAP_DONE() do { \
	if (tap_planned >= 0 && tap_run != tap_planned) { \
		printf("# planned %d checks, ran %d\n", tap_planned, tap_run); \
		return 1; \
	} \
	return tap_failed ? 1 : 0; \
} while (0)
#endif
