/*
 * lb_date.h: the one calendar.  Times are int64_t seconds since
 * 1970-01-01T00:00:00Z without leap seconds (POSIX time); dates are in
 * the proleptic Gregorian calendar, year 0 being 1 BC (ISO 8601 §4.3.2).
 * No time zone, no locale, no libc time functions: the same answer for
 * every date on every machine, 2038 and years before 1970 included.
 */
#ifndef LB_DATE_H
#define LB_DATE_H

#include <stddef.h>
#include <stdint.h>

/* A broken-down UTC time, as lb_date_split() gives it. */
typedef struct lb_tm {
	int64_t year;      /* 1970, 2038, 0 (1 BC), -1 ... */
	int mon, mday;     /* 1..12, 1..31 */
	int hour, min, sec;   /* 0..23, 0..59, 0..59 */
	int wday;          /* 0 Sunday .. 6 Saturday */
} lb_tm;

/* Days from 1970-01-01 to year-mon-mday (negative before it).  mon 1..12
 * and mday 1..31; a day past the month's end counts on into the next. */
int64_t lb_days_from_civil(int64_t year, int mon, int mday);

/* t split into its UTC date and time; every int64_t t (years within
 * about ±2.9e11). */
void lb_date_split(int64_t t, lb_tm *tm);

/* Nonzero for a Gregorian leap year. */
int lb_date_is_leap(int64_t year);

/* Nonzero when year-mon-mday names a day (mday within the month, 29
 * February only in leap years) and hour:min:sec a time, sec 60 allowed
 * for a leap second (RFC 3339 §5.7, RFC 5322 §3.3). */
int lb_date_valid(int64_t year, int mon, int mday, int hour, int min, int sec);

/* 1..12 for an English month abbreviation ("Jan".."Dec", any case, the
 * first three characters of s; RFC 5322 §3.3), 0 otherwise. */
int lb_date_month(const char *s);

/* "YYYY-MM-DDTHH:MM:SS" (RFC 3339 §5.6 without the offset) and a NUL
 * into out; LB_EINVAL (out untouched) when the year is not 0..9999. */
int lb_date_iso(char out[20], const lb_tm *tm);

/* t as an IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110
 * §5.6.7, RFC 5322 §3.3's date-time in GMT), and a NUL into out; LB_EINVAL (out
 * untouched) when the year is not 0..9999. */
int lb_date_imf(char out[30], int64_t t);

/* An IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT" exactly (29 bytes at
 * s, then the end or a NUL is not required: n is its length), as a time
 * into *t: 1, or 0 when s is not one (another spelling, a day or time
 * that does not exist).  The weekday's letters are not judged: a parser
 * of HTTP dates takes the date (RFC 9110 §5.6.7); a round trip through
 * lb_date_imf() tells whether it was right. */
int lb_date_parse_imf(const char *s, size_t n, int64_t *t);

#endif
