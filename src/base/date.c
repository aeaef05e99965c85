/*
 * date.c: the one calendar (lb_date.h).  The day arithmetic is Howard
 * Hinnant's days_from_civil / civil_from_days ("chrono-Compatible
 * Low-Level Date Algorithms"): exact for every int64_t year that fits, in
 * eras of 400 years (146097 days), with no table and no loop.
 */
#include "lb_date.h"

#include <string.h>

#include "lb_error.h"

/* x / y rounded down, y > 0 (C division rounds toward zero). */
static int64_t floor_div(int64_t x, int64_t y)
{
	return x / y - (x % y < 0);
}

int64_t lb_days_from_civil(int64_t y, int m, int d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = (unsigned)(y - era * 400);                               /* [0, 399] */
	doy = (unsigned)((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);   /* [0, 365] */
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                   /* [0, 146096] */
	return era * 146097 + (int64_t)doe - 719468;
}

void lb_date_split(int64_t t, lb_tm *tm)
{
	int64_t days = t / 86400, r = t % 86400, z, era;
	unsigned secs, doe, yoe, doy, mp;

	if (r < 0) {   /* round down, without days * 86400 (it overflows at INT64_MIN) */
		r += 86400;
		days--;
	}
	secs = (unsigned)r;

	z = days + 719468;
	era = floor_div(z, 146097);
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	tm->year = (int64_t)yoe + era * 400 + (tm->mon <= 2);
	tm->hour = (int)(secs / 3600);
	tm->min = (int)(secs / 60 % 60);
	tm->sec = (int)(secs % 60);
	tm->wday = (int)(days + 4 - 7 * floor_div(days + 4, 7));   /* 1970-01-01 was a Thursday */
}

int lb_date_is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int lb_date_valid(int64_t y, int mo, int d, int h, int mi, int s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !lb_date_is_leap(y)))
		return 0;
	return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 60;
}

static const char month_names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

int lb_date_month(const char *s)
{
	for (int i = 0; i < 12; i++) {
		int k = 0;

		while (k < 3 && (s[k] | 0x20) == (month_names[3 * i + k] | 0x20))
			k++;
		if (k == 3)
			return i + 1;
	}
	return 0;
}

/* Two digits of v (0..99) at p: by hand, snprintf() was a third of
 * writing sites.di.gz and a tenth of a publish. */
static char *put2(char *p, unsigned v)
{
	*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

int lb_date_iso(char out[20], const lb_tm *tm)
{
	char *p = out;

	if (tm->year < 0 || tm->year > 9999)
		return LB_EINVAL;
	p = put2(put2(p, (unsigned)(tm->year / 100)), (unsigned)(tm->year % 100));
	*p++ = '-';
	p = put2(p, (unsigned)tm->mon);
	*p++ = '-';
	p = put2(p, (unsigned)tm->mday);
	*p++ = 'T';
	p = put2(p, (unsigned)tm->hour);
	*p++ = ':';
	p = put2(p, (unsigned)tm->min);
	*p++ = ':';
	p = put2(p, (unsigned)tm->sec);
	*p = '\0';
	return 0;
}

/* The number of the n digits at p into *v: 1, or 0 when one is not a
 * digit. */
static int digits(const char *p, int n, int *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		*v = *v * 10 + (p[i] - '0');
	}
	return 1;
}

static int is_alpha3(const char *p)
{
	for (int i = 0; i < 3; i++)
		if (!((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'z'))
			return 0;
	return 1;
}

int lb_date_parse_imf(const char *s, size_t n, int64_t *t)
{
	int d, m, y, hh, mm, ss;

	/* "Sun, 06 Nov 1994 08:49:37 GMT": every field at its place */
	if (!s || n != 29 || !is_alpha3(s) || memcmp(s + 3, ", ", 2) != 0 || s[7] != ' ' ||
	    s[11] != ' ' || s[16] != ' ' || s[19] != ':' || s[22] != ':' ||
	    memcmp(s + 25, " GMT", 4) != 0)
		return 0;
	m = lb_date_month(s + 8);
	if (!m || !digits(s + 5, 2, &d) || !digits(s + 12, 4, &y) || !digits(s + 17, 2, &hh) ||
	    !digits(s + 20, 2, &mm) || !digits(s + 23, 2, &ss) || !lb_date_valid(y, m, d, hh, mm, ss))
		return 0;
	*t = lb_days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss;
	return 1;
}

int lb_date_imf(char out[30], int64_t t)
{
	static const char wd[] = "SunMonTueWedThuFriSat";
	lb_tm tm;
	char *p = out;

	lb_date_split(t, &tm);
	if (tm.year < 0 || tm.year > 9999)
		return LB_EINVAL;
	memcpy(p, wd + 3 * tm.wday, 3);
	p += 3;
	*p++ = ',';
	*p++ = ' ';
	p = put2(p, (unsigned)tm.mday);
	*p++ = ' ';
	memcpy(p, month_names + 3 * (tm.mon - 1), 3);
	p += 3;
	*p++ = ' ';
	p = put2(put2(p, (unsigned)(tm.year / 100)), (unsigned)(tm.year % 100));
	*p++ = ' ';
	p = put2(p, (unsigned)tm.hour);
	*p++ = ':';
	p = put2(p, (unsigned)tm.min);
	*p++ = ':';
	p = put2(p, (unsigned)tm.sec);
	memcpy(p, " GMT", 5);
	return 0;
}
