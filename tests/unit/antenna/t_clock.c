/*
 * t_clock: time-aware tokens (ant_clock.h), as data.  The first table says
 * what a token is read as; the second, whether a token that changed from
 * WAS (at the last check) to IS (at this one) moved as a clock (a stamp,
 * an age, a timing, a seconds counter) or was edited, given the two
 * checks' times.  The checks: 2026-11-28 01:30:00 UTC (10:30 in Japan),
 * the last one 30 minutes, a day or a week before.
 */
#include "ant_clock.h"
#include "lb_date.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>

#define MIN 60
#define HOUR 3600
#define DAY 86400

static int64_t now0(void)
{
	return lb_days_from_civil(2026, 11, 28) * DAY + 1 * HOUR + 30 * MIN;
}

static const char *kind_name(int k)
{
	static const char *const n[] = { "none", "age", "duration", "time", "bare", "number" };

	return k >= 0 && k <= ANT_CLOCK_NUMBER ? n[k] : "?";
}

static const struct rcase {
	const char *text, *before;
	const char *kind;
	const char *utc;     /* TIME: "YYYY-MM-DD HH:MM:SS" as UTC when zoned, local else; BARE: "HH:MM:SS" */
	int64_t prec;
} reads[] = {
	{ "3分前", "", "age", NULL, 0 },
	{ "約2時間前に更新", "", "age", NULL, 0 },
	{ "1分以内前に更新", "", "age", NULL, 0 },
	{ "2 hours ago", "", "age", NULL, 0 },
	{ "3 min. ago", "", "age", NULL, 0 },
	{ "about 1 hour ago", "updated ", "age", NULL, 0 },
	{ "less than a minute ago", "", "age", NULL, 0 },
	{ "a few seconds ago", "", "age", NULL, 0 },
	{ "yesterday", "", "age", NULL, 0 },
	{ "just now", "", "age", NULL, 0 },
	{ "now", "", "age", NULL, 0 },
	{ "current", "", "age", NULL, 0 },
	{ "たった今", "", "age", NULL, 0 },
	{ "5 days from now", "", "age", NULL, 0 },
	{ "0.003 s", "generated in ", "duration", NULL, 0 },
	{ "12 ms", "", "duration", NULL, 0 },
	{ "0.2 seconds", "in ", "duration", NULL, 0 },
	{ "0.01秒", "処理時間 ", "duration", NULL, 0 },
	{ "2 seconds", "generated in ", "duration", NULL, 0 },
	{ "30 seconds", "bake for ", "number", NULL, 0 },
	{ "3 days", "", "number", NULL, 0 },
	{ "2026-11-28 10:15 by admin", "Generated on ", "time", "2026-11-28 10:15:00", 60 },
	{ "2026-11-28T10:15:30+09:00", "", "time", "2026-11-28 01:15:30", 1 },
	{ "2026-11-28T01:15:30Z", "", "time", "2026-11-28 01:15:30", 1 },
	{ "2026/11/28", "", "time", "2026-11-28 00:00:00", DAY },
	{ "2026年11月28日 10時15分", "", "time", "2026-11-28 10:15:00", 60 },
	{ "2026年11月28日(土) 午後3時5分", "", "time", "2026-11-28 15:05:00", 60 },
	{ "11月28日", "", "time", "2026-11-28 00:00:00", DAY },
	{ "12月3日", "例会は", "time", "2026-12-03 00:00:00", DAY },
	{ "1月5日", "", "time", "2027-01-05 00:00:00", DAY },
	{ "Nov 28, 2026 10:15", "", "time", "2026-11-28 10:15:00", 60 },
	{ "November 28, 2026 at 10:15 pm", "", "time", "2026-11-28 22:15:00", 60 },
	{ "28 Nov 2026", "", "time", "2026-11-28 00:00:00", DAY },
	{ "Sat, 28 Nov 2026 01:15:00 GMT", "", "time", "2026-11-28 01:15:00", 1 },
	{ "28.11.2026 10:15", "", "time", "2026-11-28 10:15:00", 60 },
	{ "11/28/2026", "", "time", "2026-11-28 00:00:00", DAY },
	{ "11/28 10:15", "", "time", "2026-11-28 10:15:00", 60 },
	{ "10:20", "last updated at ", "bare", "10:20:00", 60 },
	{ "10:20:05 UTC", "", "bare", "10:20:05", 1 },
	{ "午後3時5分", "", "bare", "15:05:00", 60 },
	{ "1795829400", "", "number", NULL, 0 },
	{ "120円", "", "number", NULL, 0 },
	{ "1.4.3", "", "none", NULL, 0 },
	{ "2026-13-45", "", "none", NULL, 0 },
	{ "25:70", "", "none", NULL, 0 },
	{ "", "", "none", NULL, 0 },
};

static const struct mcase {
	const char *name, *was, *is, *before;
	int64_t elapsed;   /* since the last check */
	int clock;
} moves[] = {
	/* stamps: a date or time moved to a moment since the last check */
	{ "a rebuilt page's footer (local time, zone unknown)", "2026-11-20 09:00", "2026-11-28 10:15", "Generated on ", 30 * MIN, 1 },
	{ "the footer in UTC", "2026-11-20T09:00:00Z", "2026-11-28T01:20:00Z", "", 30 * MIN, 1 },
	{ "the footer with its offset", "2026-11-28T09:50:00+09:00", "2026-11-28T10:25:00+09:00", "", 60 * MIN, 1 },
	{ "an RFC 1123 stamp", "Sat, 28 Nov 2026 00:30:00 GMT", "Sat, 28 Nov 2026 01:29:59 GMT", "", HOUR, 1 },
	{ "a Japanese stamp", "2026年11月28日 9時10分", "2026年11月28日 10時25分", "最終更新: ", 2 * HOUR, 1 },
	{ "the date of the day after a day", "2026/11/27", "2026/11/28", "", DAY, 1 },
	{ "a cron page's bare clock, 5 minutes on", "10:20", "10:25", "last updated at ", 7 * MIN, 1 },
	{ "a bare clock after a day", "10:20", "10:25", "last updated at ", DAY, 1 },
	{ "a Unix time of the fetch", "1795700000", "1795829390", "", HOUR, 1 },
	{ "an uptime in seconds", "86400", "88200", "uptime ", 30 * MIN, 1 },
	/* ages and timings: any change */
	{ "an age", "2 hours ago", "3 hours ago", "", HOUR, 1 },
	{ "a word where an age stands", "current", "3 seconds ago", "", 30 * MIN, 1 },
	{ "a Japanese age", "3分前", "約2時間前", "", 2 * HOUR, 1 },
	{ "a timing", "0.003 s", "0.005 s", "generated in ", HOUR, 1 },
	{ "a Japanese timing", "0.01秒", "0.02秒", "処理時間 ", HOUR, 1 },
	/* edits: news */
	{ "an event's date, in the future", "12月3日", "12月10日", "例会は", HOUR, 0 },
	{ "a date moved back", "2026-11-28", "2026-11-20", "", DAY, 0 },
	{ "a date far from the window", "2026-11-01", "2026-11-15", "", HOUR, 0 },
	{ "a stamp moved back into the window", "2026-11-28 10:29", "2026-11-28 10:25", "", HOUR, 0 },
	{ "a zoned stamp an hour before the last check", "2026-11-28T00:00:00Z", "2026-11-28T00:10:00Z", "", 30 * MIN, 0 },
	{ "a price", "120円", "150円", "", HOUR, 0 },
	{ "a version", "1.4.2", "1.4.3", "", HOUR, 0 },
	{ "a counter", "123567", "123568", "", HOUR, 0 },
	{ "a bare clock moved too far for the time elapsed", "10:00", "15:00", "開始 ", 30 * MIN, 0 },
	{ "a bare clock moved back", "10:20", "10:10", "", 30 * MIN, 0 },
	{ "a Unix time far from the window", "1700000000", "1700000100", "", HOUR, 0 },
	{ "no last check", "10:20", "10:25", "", -1, 0 },
};

int main(void)
{
	int64_t now = now0();
	char name[256];

	TAP_PLAN((int)(sizeof reads / sizeof *reads + sizeof moves / sizeof *moves));
	for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
		const struct rcase *r = &reads[i];
		ant_clock c;
		char got[96];

		ant_clock_read(r->text, strlen(r->text), r->before, strlen(r->before), now, &c);
		if (c.kind == ANT_CLOCK_TIME) {
			lb_tm tm;

			lb_date_split(c.t, &tm);
			snprintf(got, sizeof got, "time %04d-%02d-%02d %02d:%02d:%02d %lld", (int)tm.year, tm.mon, tm.mday,
				 tm.hour, tm.min, tm.sec, (long long)c.prec);
		} else if (c.kind == ANT_CLOCK_BARE) {
			snprintf(got, sizeof got, "bare %02d:%02d:%02d %lld", (int)(c.t / 3600), (int)(c.t / 60 % 60),
				 (int)(c.t % 60), (long long)c.prec);
		} else {
			snprintf(got, sizeof got, "%s", kind_name(c.kind));
		}
		char want[96];

		if (r->utc)
			snprintf(want, sizeof want, "%s %s %lld", r->kind, r->utc, (long long)r->prec);
		else
			snprintf(want, sizeof want, "%s", r->kind);
		snprintf(name, sizeof name, "read '%s%s'", r->before, r->text);
		IS_STR(got, want, name);
	}
	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
		const struct mcase *m = &moves[i];
		int64_t last = m->elapsed < 0 ? 0 : now - m->elapsed;
		ant_clock was, is;
		uint32_t mark;

		ant_clock_read(m->was, strlen(m->was), m->before, strlen(m->before), last > 0 ? last : now, &was);
		mark = ant_clock_mark(&was, m->was, strlen(m->was));
		ant_clock_read(m->is, strlen(m->is), m->before, strlen(m->before), now, &is);
		snprintf(name, sizeof name, "%s: '%s' -> '%s' is %s", m->name, m->was, m->is,
			 m->clock ? "a clock" : "news");
		IS_INT(ant_clock_moved(mark, &is, last, now), m->clock, name);
	}
	TAP_DONE();
}
