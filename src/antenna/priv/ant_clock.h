/*
 * ant_clock.h: time-aware tokens.  ant_noise.h tells where a page's
 * numbers, dates, times and relative times are; this reads what one of
 * them says, so that the token rule (ant_tokens.h) can tell a clock from
 * an author's edit:
 *   - a relative age ("3分前", "約2時間前", "2 hours ago", "yesterday",
 *     "just now", "now" or "current" standing alone where an age stands)
 *     and a per-request timing ("0.003 s", "12 ms", "in 0.2 seconds",
 *     "処理時間 0.01秒") move with the clock: any change of them is one;
 *   - a date or a time (ISO 8601, 2026/11/28, 2026年11月28日 10時15分,
 *     "Nov 28, 2026 10:15", "28 Nov 2026", RFC 1123 dates, a bare clock
 *     "10:20", a Unix time of 10 or 13 digits) that moved forward to a
 *     moment since the last check is a stamp ("generated on", "last
 *     updated at"); a date moved elsewhere (an event's date, one in the
 *     future or far from the check window) is news;
 *   - a plain number that moved by about the seconds elapsed between two
 *     answers is a clock (an uptime, a seconds counter).
 * A time without a zone is the page's local time, the zone unknown: any
 * offset from -12 to +14 hours is allowed, and a time is compared at the
 * precision it is written in (a day, a minute, a second).
 * Pure: the caller passes the fetch time and the last check's; no clock,
 * no allocation; every read stops after ANT_CLOCK_MAX_READ bytes.
 */
#ifndef ANT_CLOCK_H
#define ANT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define ANT_CLOCK_MAX_READ 80        /* bytes one reading looks at */
#define ANT_CLOCK_SKEW 600           /* seconds a stamp may miss the window by
					(clocks apart, a cache a little stale) */
#define ANT_CLOCK_TZ_WEST (12 * 3600) /* offsets a page without a zone may have */
#define ANT_CLOCK_TZ_EAST (14 * 3600)
#define ANT_CLOCK_BARE_STEP 3600     /* a bare clock may move forward by at most
					the time elapsed and this much */

enum {
	ANT_CLOCK_NONE,       /* a number or a word as written: no clock */
	ANT_CLOCK_AGE,        /* a relative age: "3分前", "yesterday", "now" */
	ANT_CLOCK_DURATION,   /* a per-request timing: "0.003 s", "12 ms" */
	ANT_CLOCK_TIME,       /* a date and maybe a time of day: t, prec */
	ANT_CLOCK_BARE,       /* a time of day alone: t = seconds since midnight */
	ANT_CLOCK_NUMBER      /* a plain integer: value (maybe a seconds counter) */
};

typedef struct ant_clock {
	int kind;
	int64_t t;       /* TIME: seconds since 1970 (UTC when zoned, else the
			    page's local reading taken as UTC); BARE: 0..86399 */
	int64_t prec;    /* TIME, BARE: 1, 60, 3600 or 86400 seconds */
	int zoned;       /* TIME, BARE: the text gave its offset */
	int64_t value;   /* NUMBER: the integer */
	int digits;      /* NUMBER: how many digits */
} ant_clock;

/*
 * What the token that starts at s[0..n) says (s: where ant_noise_groups()
 * found a "@" or "#", and the rest of its segment); before[0..nb): the
 * text in front of it in its segment (for "generated in", "処理時間");
 * now: the fetch time (a date without a year is the one nearest it).
 * Never reads more than ANT_CLOCK_MAX_READ bytes of either.
 */
void ant_clock_read(const char *s, size_t n, const char *before, size_t nb, int64_t now, ant_clock *c);

/*
 * A 32-bit mark of a token for the next check: equal marks, the same
 * token; a TIME, a BARE clock or a NUMBER keeps its value (modulo 2^30),
 * anything else a hash of its bytes s[0..n).
 */
uint32_t ant_clock_mark(const ant_clock *c, const char *s, size_t n);

/*
 * Did the token whose mark was was (at the check at last) move as a clock
 * to c (read at now)?  1 for an age or a timing; for a date or a time,
 * when it moved forward to a moment within [last, now] (ANT_CLOCK_SKEW,
 * the offsets and its precision allowing); for a number, when it is a Unix
 * time in that window or moved by the seconds elapsed.  0 otherwise: an
 * edit.
 */
int ant_clock_moved(uint32_t was, const ant_clock *c, int64_t last, int64_t now);

#endif
