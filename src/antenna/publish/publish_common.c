/*
 * publish_common.c: what the files of a published site share
 * (publish_int.h): times as the site shows them, and the output files,
 * each replaced atomically (lb_afile.h).  Below publish.c (index.html)
 * and publish_diff.c (the diff pages) both: the listing links to the diff
 * pages, so the diff pages' helpers cannot live in the listing's file.
 */
#include "ant_publish.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_afile.h"
#include "lb_date.h"
#include "publish_int.h"

/* ---- times ------------------------------------------------------------- */

/* t shown in zone tz (seconds east of UTC); LB_EINVAL when t + tz
 * overflows or the year would not fit a struct tm's int: shown as
 * "--/-- --:--". */
int ant_pub_to_tm(int64_t t, int64_t tz, lb_tm *tm)
{
	if ((tz > 0 && t > INT64_MAX - tz) || (tz < 0 && t < INT64_MIN - tz))
		return LB_EINVAL;
	lb_date_split(t + tz, tm);
	return tm->year - 1900 > INT_MAX || tm->year - 1900 < INT_MIN ? LB_EINVAL : 0;
}

/* Two digits of v (0..99), at p; returns the end.  The listing formats
 * 50,000 dates: by hand, snprintf() was a third of writing index.html. */
static char *put2(char *p, int v)
{
	*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

/* Copies s[0..n) into buf as snprintf(buf, len, "%s", s) would. */
void ant_pub_copy_out(char *buf, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* "MM/DD HH:MM" of tm into b (12 bytes); returns the length, 11. */
size_t ant_pub_shown_tm(char *b, const lb_tm *tm)
{
	char *p = put2(b, tm->mon);

	*p++ = '/';
	p = put2(p, tm->mday);
	*p++ = ' ';
	p = put2(p, tm->hour);
	*p++ = ':';
	p = put2(p, tm->min);
	*p = '\0';
	return (size_t)(p - b);
}

void ant_pub_format_time(char *buf, size_t len, int64_t t, int64_t tz)
{
	lb_tm tm;
	char b[12];

	if (t == 0 || ant_pub_to_tm(t, tz, &tm) < 0)
		ant_pub_copy_out(buf, len, "--/-- --:--", 11);
	else
		ant_pub_copy_out(buf, len, b, ant_pub_shown_tm(b, &tm));
}

int ant_pub_visited_url(lb_buf *out, const char *url, int64_t t, int64_t tz)
{
	size_t base = strcspn(url, "#");
	lb_tm tm;
	char q[9], *p;

	if (ant_pub_to_tm(t, tz, &tm) < 0)
		return lb_buf_adds(out, url);
	q[0] = memchr(url, '?', base) ? '&' : '?';
	p = put2(q + 1, tm.mon);
	p = put2(p, tm.mday);
	p = put2(p, tm.hour);
	put2(p, tm.min);
	if (lb_buf_add(out, url, base) < 0 || lb_buf_add(out, q, sizeof q) < 0)
		return LB_ENOMEM;
	return lb_buf_adds(out, url + base);
}

/* ---- output files ------------------------------------------------------ */

const char *ant_pub_str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (p)
		snprintf(p, a + b + 2, "%s/%s", dir, name);
	return p;
}

/* Opens DIR/name for atomic replacement, creating DIR if need be. */
int ant_pub_open_out(lb_afile *f, const char *dir, const char *name, char **path,
		    lb_error *err)
{
	*path = join(dir, name);
	if (!*path)
		return lb_err_code(err, LB_ENOMEM);
	if (lb_mkdir_p(dir, 0755) < 0)
		return lb_err_sys(err, "cannot create '%s'", dir);
	if (lb_afile_open(f, *path) < 0)
		return lb_err_sys(err, "cannot write '%s'", *path);
	/* Fewer, larger writes: 10,000 pages are about 3 MB. */
	setvbuf(f->fp, NULL, _IOFBF, 1 << 16);
	return 0;
}

/* Commits f when ok, else drops it; the message names path and keeps
 * the reason (and code) already in err, if any. */
int ant_pub_close_out(lb_afile *f, int ok, const char *path, lb_error *err)
{
	char why[256];
	int code;

	if (!ok || ferror(f->fp)) {
		/* the reason's errno (the LIRS writer's sink's, say) stays in err->sys */
		int sys = err && err->code < 0 ? err->sys : errno ? errno : EIO;

		code = err && err->code < 0 ? err->code : LB_EIO;
		snprintf(why, sizeof why, "%s",
			 err && err->code < 0 ? lb_error_msg(err) : strerror(sys));
		lb_afile_abort(f);
		lb_err(err, code, "cannot write '%s': %s", path, why);
		if (err)
			err->sys = sys;
		return code;
	}
	if (lb_afile_commit(f) < 0)
		return lb_err_sys(err, "cannot write '%s'", path);
	return 0;
}
