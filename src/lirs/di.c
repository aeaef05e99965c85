/*
 * di.c: HINA-DI and hina.txt blocks and lines <-> records (see di.h).
 *
 * The mapping follows what tama (wakaba/tama, lib/website.rb) does between
 * its DI, hina.txt and LIRS lines, so a page keeps the same record whatever
 * format it travelled in; lirs(5) has the table.  The one escaping path of
 * HINA-DI output is put_value(): a value cannot hold a line end and loses
 * the blanks at its ends, because "Field: value" lines have no escape.
 */
#include "di.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_date.h"
#include "lb_utf8.h"

static const char *const di_names[DI__NFIELDS] = {
	[DI_URL] = "URL", [DI_TITLE] = "Title", [DI_AUTHOR] = "Author-Name",
	[DI_VIRTUAL] = "Virtual", [DI_LM] = "Last-Modified",
	[DI_LD] = "Last-Modified-Detected", [DI_CL] = "Content-Length",
	[DI_AUTHORIZED] = "Authorized-url", [DI_METHOD] = "Method",
	[DI_XMETHOD] = "X-TAMA-Method", [DI_REMOTE] = "X-TAMA-Remote-URL",
	[DI_TZ] = "X-TAMA-Timezone", [DI_TIMEDIFF] = "X-LIRS-Time-Difference",
	[DI_EXTENSION] = "X-LIRS-Extension", [DI_WDB_TITLE] = "X-WDB-Title",
	[DI_WDB_AUTHOR] = "X-WDB-Author-Name", [DI_EXTRA] = "X-LIRS-Extra",
};

/* The method names tama writes in NATSU field 14; anything else there is
 * the URL of the antenna the record came from (website.rb, Website.lirs). */
static const char *const methods[] = { "GET", "HEAD", "CACHE", "FILE", "LENGTH", "KEYWORD" };

static int is_blank_c(int c)
{
	return c == ' ' || c == '\t';
}

/* s[0..*n) without blanks at both ends. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && is_blank_c((unsigned char)*s)) {
		s++;
		(*n)--;
	}
	while (*n && is_blank_c((unsigned char)s[*n - 1]))
		(*n)--;
	return s;
}

static void problem(lirs_di_problem *p, lirs_rule rule, unsigned long line, const char *field,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void problem(lirs_di_problem *p, lirs_rule rule, unsigned long line, const char *field,
		    const char *fmt, ...)
{
	va_list ap;

	p->rule = rule;
	p->line = line;
	p->field = field;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
}

/* ---- dates ----------------------------------------------------------- */

/* Zone names tama's tz2lag() knew, in hours east of UTC. */
static int zone_offset(const char *z, int64_t dflt, int64_t *off)
{
	static const struct { const char *name; int h; } zones[] = {
		{ "GMT", 0 }, { "UT", 0 }, { "UTC", 0 }, { "Z", 0 }, { "JST", 9 },
		{ "PST", -8 }, { "PDT", -7 }, { "MST", -7 }, { "MDT", -6 }, { "CST", -6 },
		{ "CDT", -5 }, { "EST", -5 }, { "EDT", -4 }, { "BST", 1 }, { "CET", 1 },
		{ "MET", 1 }, { "EET", 2 },
	};
	size_t i;

	while (is_blank_c((unsigned char)*z))
		z++;
	if (!*z) {
		*off = dflt;
		return 0;
	}
	if ((z[0] == '+' || z[0] == '-') && strspn(z + 1, "0123456789") == 4 && !z[5]) {
		int v = atoi(z + 1);
		if (v % 100 >= 60)
			return LB_EPARSE;
		*off = (z[0] == '-' ? -1 : 1) * (int64_t)(v / 100 * 3600 + v % 100 * 60);
		return 0;
	}
	for (i = 0; i < sizeof zones / sizeof zones[0]; i++)
		if (!strcasecmp(z, zones[i].name)) {
			*off = (int64_t)zones[i].h * 3600;
			return 0;
		}
	return LB_EPARSE;
}

int lirs_di_parse_date(const char *s, int64_t dflt, int64_t *t)
{
	char mon[4] = "", zone[16] = "";
	int y, mo, d, h, mi, sec = 0, n = 0;
	int64_t off;
	const char *c;

	while (is_blank_c((unsigned char)*s))
		s++;
	if (sscanf(s, "%d/%d/%d %d:%d%n", &y, &mo, &d, &h, &mi, &n) == 5 && n > 0) {
		/* hina.txt, and Asahina's DI: "2001/05/12 13:45" */
		if (y <= 99)
			y += 1900;   /* as tama's str2unixtime() */
		zone[0] = '\0';
		if (sscanf(s + n, " %15s", zone) < 1)
			zone[0] = '\0';
	} else {
		if ((c = strchr(s, ',')))
			s = c + 1;   /* the weekday says nothing */
		if (sscanf(s, " %d %3s %d %d:%d:%d %15s", &d, mon, &y, &h, &mi, &sec, zone) >= 6) {
			/* IMF-fixdate */
		} else if (sscanf(s, " %d-%3s-%d %d:%d:%d %15s", &d, mon, &y, &h, &mi, &sec,
				  zone) >= 6) {
			if (y < 100)   /* RFC 850: two-digit year, as tama reads it */
				y += y < 70 ? 2000 : 1900;
		} else if (sscanf(s, " %*3s %3s %d %d:%d:%d %d", mon, &d, &h, &mi, &sec, &y) == 6) {
			zone[0] = '\0';   /* asctime: no zone */
		} else {
			return LB_EPARSE;
		}
		if (!(mo = lb_date_month(mon)))
			return LB_EPARSE;
	}
	if (y < 1 || y > 9999 || !lb_date_valid(y, mo, d, h, mi, sec) ||
	    zone_offset(zone, dflt, &off) < 0)
		return LB_EPARSE;
	*t = lb_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
	return 0;
}

int lirs_di_format_date(int64_t t, char out[40])
{
	if (t < 0 || t > INT64_C(253402300799))   /* 1970..9999 */
		return LB_EINVAL;
	return lb_date_imf(out, t);
}

/* ---- charsets --------------------------------------------------------- */

/* One undecodable byte: U+FFFD in its place; the first one's offset in
 * OUT goes to *BAD. */
static int add_fffd(lb_buf *out, int *replaced, size_t *bad)
{
	if (!*replaced)
		*bad = out->len;
	*replaced = 1;
	return lb_buf_add(out, LB_UTF8_FFFD, 3);
}

int lirs_di_decode_utf8(const char *s, size_t n, lb_buf *out, size_t *bad)
{
	size_t r;

	lb_buf_reset(out);
	r = lb_utf8_repair(out, s, n, 0, bad);
	return r == (size_t)-1 ? LB_ENOMEM : r > 0;
}

int lirs_di_decode_iconv(iconv_t cd, const char *s, size_t n, lb_buf *out, size_t *bad)
{
	char *in = (char *)s, *o;
	size_t left = n, room;
	int replaced = 0;

	lb_buf_reset(out);
	iconv(cd, NULL, NULL, NULL, NULL);
	while (left) {
		if (lb_buf_grow(out, left * 3 + 8) < 0)
			return LB_ENOMEM;
		o = out->data + out->len;
		room = out->cap - out->len - 1;
		if (iconv(cd, &in, &left, &o, &room) != (size_t)-1) {
			out->len = (size_t)(o - out->data);
			break;
		}
		out->len = (size_t)(o - out->data);
		if (errno == E2BIG)
			continue;
		/* EILSEQ or EINVAL: one bad byte becomes U+FFFD */
		if (add_fffd(out, &replaced, bad) < 0)
			return LB_ENOMEM;
		in++;
		left--;
		iconv(cd, NULL, NULL, NULL, NULL);
	}
	out->data[out->len] = '\0';
	return replaced;
}

/* The charset parameter of a Content-Type value (RFC 2045 §5.1). */
int lirs_di_header_line(const char *s, size_t n, int *cs, char *unknown, size_t usz)
{
	static const struct { const char *name; int cs; } names[] = {
		{ "utf-8", DI_CS_UTF8 }, { "utf8", DI_CS_UTF8 },
		{ "euc-jp", DI_CS_AUTO }, { "x-euc-jp", DI_CS_AUTO }, { "eucjp", DI_CS_AUTO },
		{ "euc-jp-ms", DI_CS_AUTO }, { "cp51932", DI_CS_AUTO },
		{ "shift_jis", DI_CS_SJIS }, { "shift-jis", DI_CS_SJIS }, { "sjis", DI_CS_SJIS },
		{ "x-sjis", DI_CS_SJIS }, { "windows-31j", DI_CS_SJIS }, { "cp932", DI_CS_SJIS },
		{ "ms_kanji", DI_CS_SJIS },
	};
	char v[64];
	const char *p, *end = s + n;
	size_t k, i;

	if (n < 13 || strncasecmp(s, "Content-Type:", 13) != 0)
		return 0;
	for (p = s + 13; p + 8 <= end; p++)
		if (!strncasecmp(p, "charset=", 8))
			break;
	if (p + 8 > end)
		return 0;
	p += 8;
	if (p < end && *p == '"')
		p++;
	for (k = 0; p + k < end && !strchr("\"; \t", p[k]) && k + 1 < sizeof v; k++)
		v[k] = p[k];
	v[k] = '\0';
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(v, names[i].name)) {
			*cs = names[i].cs;
			return 0;
		}
	snprintf(unknown, usz, "%s", v);
	*cs = DI_CS_AUTO;
	return 1;
}

/* ---- reading blocks --------------------------------------------------- */

void lirs_di_block_init(lirs_di_block *b)
{
	memset(b, 0, sizeof *b);
	for (size_t i = 0; i < DI__NFIELDS; i++)
		lb_buf_init(&b->v[i]);
	lb_buf_init(&b->extra);
}

void lirs_di_block_reset(lirs_di_block *b)
{
	for (size_t i = 0; i < DI__NFIELDS; i++) {
		lb_buf_reset(&b->v[i]);
		b->at[i] = 0;
	}
	lb_buf_reset(&b->extra);
	b->nextra = 0;
	b->first = 0;
	b->has_err = 0;
}

void lirs_di_block_release(lirs_di_block *b)
{
	for (size_t i = 0; i < DI__NFIELDS; i++)
		lb_buf_release(&b->v[i]);
	lb_buf_release(&b->extra);
	free(b->xp);
	lirs_di_block_init(b);
}

/* What field_of() says of a name that is no field. */
#define DI_NOT_A_FIELD (-1)

static int field_of(const char *name, size_t n)
{
	for (int i = 0; i < DI__NFIELDS; i++)
		if (strlen(di_names[i]) == n && !strncasecmp(name, di_names[i], n))
			return i;
	/* tama reads "Expire" and "Expires"; we keep neither (lirs(5)). */
	return DI_NOT_A_FIELD;
}

int lirs_di_block_line(lirs_di_block *b, const char *s, size_t n, unsigned long line, lirs_di_problem *p)
{
	const char *colon = memchr(s, ':', n), *v;
	size_t nn, vn;
	int f;

	if (!b->first)
		b->first = line;
	nn = colon ? (size_t)(colon - s) : 0;
	if (!colon || !nn || memchr(s, ' ', nn) || memchr(s, '\t', nn)) {
		problem(p, LIRS_R_DI_BAD_LINE, line, NULL,
			"line is not \"Field: value\"; ignored");
		return 1;
	}
	vn = n - nn - 1;
	v = trim(colon + 1, &vn);
	if ((f = field_of(s, nn)) < 0)
		return 0;   /* Expires, Server, Authorized, X-...: not kept */
	if (f == DI_EXTRA) {
		if (b->nextra >= LIRS_DI_MAX_EXTRA) {
			if (!b->has_err) {
				problem(&b->err, LIRS_R_DI_TOO_MANY_EXTRA, line, "extra",
					"block has more than %d X-LIRS-Extra fields; skipped",
					LIRS_DI_MAX_EXTRA);
				b->has_err = 1;
			}
			return 0;
		}
		b->nextra++;
		return lb_buf_add(&b->extra, v, vn) < 0 || lb_buf_addc(&b->extra, '\0') < 0 ? LB_ENOMEM : 0;
	}
	lb_buf_reset(&b->v[f]);
	b->at[f] = line;
	return lb_buf_add(&b->v[f], v, vn) < 0 ? LB_ENOMEM : 0;
}

/* A date field into *t (0 when absent); -1 with *p set when it is bad. */
static int block_date(lirs_di_block *b, int f, const char *fname, int64_t *t, lirs_di_problem *p)
{
	*t = 0;
	if (!b->at[f] || !b->v[f].len)
		return 0;
	if (lirs_di_parse_date(b->v[f].data, 0, t) == 0)
		return 0;
	problem(p, LIRS_R_DI_BAD_DATE, b->at[f], fname, "%s: not an HTTP date '%.60s'; skipped",
		di_names[f], b->v[f].data);
	return LB_EPARSE;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || *end || errno)
		return LB_EPARSE;
	*v = x;
	return 0;
}

/* X-LIRS-Time-Difference (seconds) or X-TAMA-Timezone (JST, +0900). */
static int block_tz(lirs_di_block *b, int64_t *tz, lirs_di_problem *p)
{
	*tz = 0;
	if (b->at[DI_TIMEDIFF] && parse_i64(b->v[DI_TIMEDIFF].data, tz) == 0)
		return 0;
	if (b->at[DI_TIMEDIFF]) {
		problem(p, LIRS_R_BAD_NUMBER, b->at[DI_TIMEDIFF], "tz_offset",
			"X-LIRS-Time-Difference: not an integer '%.40s'; skipped",
			b->v[DI_TIMEDIFF].data);
		return LB_EPARSE;
	}
	if (b->at[DI_TZ] && zone_offset(b->v[DI_TZ].data, 0, tz) < 0)
		*tz = 0;   /* tama's tz2lag(): an unknown zone is 0 */
	return 0;
}

/* NATSU field 14 from Method / X-TAMA-Method and X-TAMA-Remote-URL, as
 * tama's Website.di() and to_lirs() do: the first '/' part ("HEAD/200" is
 * HEAD), or the remote antenna's URL for REMOTE. */
static void block_method(lirs_di_block *b)
{
	int f = b->at[DI_XMETHOD] ? DI_XMETHOD : DI_METHOD;
	char *m = b->v[f].data, *slash = strchr(m, '/');
	size_t n = slash ? (size_t)(slash - m) : strlen(m);

	if (((n == 6 && !strncmp(m, "REMOTE", 6)) || (!b->at[f])) && b->at[DI_REMOTE]) {
		b->natsu[3] = b->v[DI_REMOTE].data;
		return;
	}
	if (slash)
		*slash = '\0';   /* never the static "" of an absent field */
	b->natsu[3] = m;
}

/* extension and extra[]: X-LIRS-Extension / X-LIRS-Extra as we write them,
 * else tama's NATSU layout when Virtual or a method is there. */
static int block_extras(lirs_di_block *b, lirs_record *r)
{
	static char empty[1];
	size_t i, off = 0;

	r->extension = b->at[DI_EXTENSION] ? b->v[DI_EXTENSION].data : b->v[DI_VIRTUAL].data;
	r->extra = NULL;
	r->nextra = 0;
	if (b->nextra) {
		char **x = lb_grow(b->xp, &b->xcap, b->nextra, sizeof *x, 8);
		if (!x)
			return LB_ENOMEM;
		b->xp = x;
		for (i = 0; i < b->nextra; i++) {
			x[i] = b->extra.data + off;
			off += strlen(x[i]) + 1;
		}
		r->extra = x;
		r->nextra = b->nextra;
	} else if (b->at[DI_VIRTUAL] || b->at[DI_METHOD] || b->at[DI_XMETHOD] ||
		   b->at[DI_REMOTE]) {
		b->natsu[0] = b->natsu[1] = b->natsu[2] = empty;
		block_method(b);
		r->extra = b->natsu;
		r->nextra = 4;
	}
	return 0;
}

int lirs_di_block_record(lirs_di_block *b, lirs_record *r, lirs_di_problem *p)
{
	memset(r, 0, sizeof *r);
	if (b->has_err) {
		*p = b->err;
		return LB_EPARSE;
	}
	if (!b->at[DI_URL] || !b->v[DI_URL].len) {
		problem(p, LIRS_R_DI_NO_URL, b->first, "url", "block has no URL; skipped");
		return LB_EPARSE;
	}
	if (block_date(b, DI_LM, "last_modified", &r->last_modified, p) < 0 ||
	    block_date(b, DI_LD, "last_detected", &r->last_detected, p) < 0 ||
	    block_tz(b, &r->tz_offset, p) < 0)
		return LB_EPARSE;
	if (b->at[DI_CL] && b->v[DI_CL].len && parse_i64(b->v[DI_CL].data, &r->content_length) < 0) {
		problem(p, LIRS_R_BAD_NUMBER, b->at[DI_CL], "content_length",
			"Content-Length: not an integer '%.40s'; skipped", b->v[DI_CL].data);
		return LB_EPARSE;
	}
	r->url = b->v[DI_URL].data;
	/* tama falls back on WDB's fields (Website#title, #author) */
	r->title = b->v[b->v[DI_TITLE].len ? DI_TITLE : DI_WDB_TITLE].data;
	r->author = b->v[b->v[DI_AUTHOR].len ? DI_AUTHOR : DI_WDB_AUTHOR].data;
	r->source_url = b->v[DI_AUTHORIZED].data;
	if (block_extras(b, r) < 0) {
		problem(p, LIRS_R_DI_NO_URL, b->first, NULL, "out of memory");
		return -2;
	}
	r->line = b->first;
	return 0;
}

/* ---- hina.txt ----------------------------------------------------------- */

/* The first case-insensitive occurrence of lit in s[0..n). */
static const char *find_ci(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, lit, k))
			return s + i;
	return NULL;
}

/* Appends s[0..n) to store with the five XML entities decoded, NUL-ended;
 * returns the offset. */
static long add_text(lb_buf *text, const char *s, size_t n)
{
	static const struct { const char *e; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
		{ "&#39;", '\'' },
	};
	size_t at = text->len, i, k;

	s = trim(s, &n);
	for (i = 0; i < n; i++) {
		int c = s[i];
		if (c == '&')
			for (k = 0; k < sizeof ents / sizeof ents[0]; k++) {
				size_t el = strlen(ents[k].e);
				if (i + el <= n && !strncasecmp(s + i, ents[k].e, el)) {
					c = ents[k].c;
					i += el - 1;
					break;
				}
			}
		if (lb_buf_addc(text, c) < 0)
			return LB_ENOMEM;
	}
	return lb_buf_addc(text, '\0') < 0 ? LB_ENOMEM : (long)at;
}

/* The statuses of hina.txt's comment (tama's Website.hina()); only HINA_OK
 * carries a time. */
static int known_status(const char *s, size_t n)
{
	static const char *const st[] = { "HINA_UNKNOWN", "HINA_REMOTE_OUT", "HINA_NOT_FOUND",
					  "HINA_BUSY", "HINA_TIMEOUT", "CERN" };

	for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
		if (strlen(st[i]) == n && !strncmp(s, st[i], n))
			return 1;
	return 0;
}

/* The comment's status and time into r->last_modified. */
static int hina_comment(const char *c, size_t cn, lirs_record *r, unsigned long line,
			lirs_di_problem *p)
{
	size_t sn = strcspn(c, " ");
	char date[64];

	if (sn > cn)
		sn = cn;
	if (sn == 7 && !strncmp(c, "HINA_OK", 7)) {
		/* "HINA_OK 2001/05/12 13:45 [0]": JST (tama: str2unixtime(d, "JST")) */
		const char *br = memchr(c, '[', cn);
		size_t dn = (br ? (size_t)(br - c) : cn) - sn;
		if (dn >= sizeof date)
			dn = sizeof date - 1;
		memcpy(date, c + sn, dn);
		date[dn] = '\0';
		if (lirs_di_parse_date(date, LIRS_TZ_JST, &r->last_modified) < 0 || r->last_modified <= 0) {
			problem(p, LIRS_R_HINA_BAD_LINE, line, "last_modified",
				"HINA_OK without a time \"YYYY/MM/DD HH:MM\"; skipped");
			return 1;
		}
		return 0;
	}
	if (known_status(c, sn))
		return 0;
	problem(p, LIRS_R_HINA_BAD_LINE, line, NULL, "unknown HINA status '%.*s'; skipped",
		(int)(sn > 40 ? 40 : sn), c);
	return 1;
}

int lirs_hina_line(const char *s, size_t n, lb_buf *text, int64_t fetched, lirs_record *r,
	      lirs_di_problem *p)
{
	const char *end = s + n, *cend, *a, *u, *ue, *t, *te;
	long ou, ot, oa;
	size_t un;

	memset(r, 0, sizeof *r);
	lb_buf_reset(text);
	s = trim(s, &n);
	end = s + n;
	if (n < 4 || strncmp(s, "<!--", 4) != 0 || !(cend = find_ci(s, n, "-->")) ||
	    !(a = find_ci(cend, (size_t)(end - cend), "<a href="))) {
		problem(p, LIRS_R_HINA_BAD_LINE, 0, NULL,
			"line is not \"<!--STATUS--><A HREF=URL>TITLE</A> AUTHOR\"; skipped");
		return 1;
	}
	if (hina_comment(s + 4, (size_t)(cend - s - 4), r, 0, p))
		return 1;
	u = a + 8;
	if (u < end && (*u == '"' || *u == '\'')) {
		ue = memchr(u + 1, *u, (size_t)(end - u - 1));
		u++;
	} else {
		ue = memchr(u, '>', (size_t)(end - u));
	}
	t = ue ? memchr(ue, '>', (size_t)(end - ue)) : NULL;
	te = t ? find_ci(t, (size_t)(end - t), "</a>") : NULL;
	if (!te || ue == u) {
		problem(p, LIRS_R_HINA_BAD_LINE, 0, "url", "the link has no URL or no </a>; skipped");
		return 1;
	}
	t++;
	un = (size_t)(ue - u);
	{
		/* the author: what follows </a>, without the <br> tama writes */
		const char *au = te + 4, *br = find_ci(au, (size_t)(end - au), "<br");
		size_t an = (size_t)((br ? br : end) - au);
		if ((ou = add_text(text, u, un)) < 0 || (ot = add_text(text, t, (size_t)(te - t))) < 0 ||
		    (oa = add_text(text, au, an)) < 0 || lb_buf_addc(text, '\0') < 0)
			return LB_ENOMEM;
	}
	r->url = text->data + ou;
	r->title = text->data + ot;
	r->author = text->data + oa;
	r->source_url = r->extension = text->data + text->len - 1;
	r->tz_offset = LIRS_TZ_JST;   /* hina.txt times are JST */
	/* lirs(5): no Last-Detected in hina.txt: the fetch time when known,
	 * else Last-Modified; a page without a time gets none. */
	if (r->last_modified)
		r->last_detected = fetched > r->last_modified ? fetched : r->last_modified;
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* The one escape of HINA-DI values: no CR or LF (each becomes a space), no
 * blanks at either end (a reader strips them: RFC 9110 §5.5 OWS). */
static int put_value(lb_buf *b, const char *name, const char *v)
{
	size_t n = strlen(v), i, at;

	if (lb_buf_adds(b, name) < 0 || lb_buf_add(b, ": ", 2) < 0)
		return LB_ENOMEM;
	at = b->len;
	if (lb_buf_add(b, v, n) < 0)
		return LB_ENOMEM;
	for (i = at; i < b->len; i++)
		if (b->data[i] == '\r' || b->data[i] == '\n')
			b->data[i] = ' ';
	n = b->len - at;
	{
		const char *t = trim(b->data + at, &n);
		memmove(b->data + at, t, n);
		b->len = at + n;
	}
	return lb_buf_add(b, "\r\n", 2);
}

static int put_if(lb_buf *b, const char *name, const char *v)
{
	return v && *v ? put_value(b, name, v) : 0;
}

static int put_date(lb_buf *b, const char *name, int64_t t)
{
	char d[40];

	if (!t || lirs_di_format_date(t, d) < 0)
		return 0;   /* lirs(5): a time outside 1970-9999 is left out */
	return put_value(b, name, d);
}

int lirs_di_write_header(lb_buf *b, int utf8, int64_t date)
{
	if (lb_buf_adds(b, "HINA/2.1\r\n") < 0 ||
	    put_value(b, "User-Agent", "lirs-antenna/" LIRS_VERSION) < 0 ||
	    put_date(b, "Date", date) < 0 ||
	    put_value(b, "Content-Type", utf8 ? "text/plain; charset=UTF-8"
					      : "text/plain; charset=EUC-JP") < 0)
		return LB_ENOMEM;
	return lb_buf_add(b, "\r\n", 2);
}

/* The value as a reader will see it: is it one of tama's method names? */
static int plain_method(const char *m)
{
	size_t n = strlen(m);
	const char *t = trim(m, &n);

	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (strlen(methods[i]) == n && !strncmp(t, methods[i], n))
			return 1;
	return n == 0;
}

/* NATSU field 14: a method name as X-TAMA-Method, anything else (the
 * remote antenna) as REMOTE plus X-TAMA-Remote-URL, as tama writes it. */
static int put_method(lb_buf *b, const char *m)
{
	if (plain_method(m))
		return put_value(b, "X-TAMA-Method", m);
	return put_value(b, "X-TAMA-Method", "REMOTE") | put_value(b, "X-TAMA-Remote-URL", m);
}

/* Two digits of v (0..99) at p. */
static void put_2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

static int put_tz(lb_buf *b, int64_t tz)
{
	char v[32];
	uint64_t a = tz < 0 ? (uint64_t)0 - (uint64_t)tz : (uint64_t)tz;

	if (!tz)
		return 0;
	if (a % 60 == 0 && a < 100 * 3600) {
		/* "%c%02u%02u", by hand (perf) */
		v[0] = tz < 0 ? '-' : '+';
		put_2(v + 1, (unsigned)(a / 3600));
		put_2(v + 3, (unsigned)(a % 3600 / 60));
		v[5] = '\0';
		return put_value(b, "X-TAMA-Timezone", v);
	}
	snprintf(v, sizeof v, "%lld", (long long)tz);
	return put_value(b, "X-LIRS-Time-Difference", v);
}

/* "%lld" of v into b (24 bytes), by hand: snprintf() per record was a
 * tenth of writing sites.di.gz (perf). */
static const char *dec_ll(char b[24], int64_t v)
{
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char *p = b + 23;

	*p = '\0';
	do
		*--p = (char)('0' + a % 10);
	while ((a /= 10) != 0);
	if (v < 0)
		*--p = '-';
	return p;
}

/* tama's layout: 4 fields after the 9th, the first three empty. */
static int is_natsu(const lirs_record *r)
{
	return r->nextra == 4 && !*r->extra[0] && !*r->extra[1] && !*r->extra[2];
}

int lirs_di_write_record(lb_buf *b, const lirs_record *r)
{
	char cl[24];
	int bad = 0;
	size_t i;

	if (!r->url || !r->url[strspn(r->url, " \t\r\n")])
		return 1;   /* a block needs a URL (di-no-url) */
	if (r->nextra > LIRS_DI_MAX_EXTRA)
		return 1;   /* a reader would skip it (di-too-many-extra) */
	bad |= put_value(b, "URL", r->url) | put_if(b, "Title", r->title) |
	       put_if(b, "Author-Name", r->author);
	bad |= put_date(b, "Last-Modified", r->last_modified) |
	       put_date(b, "Last-Modified-Detected", r->last_detected);
	if (r->content_length) {
		bad |= put_value(b, "Content-Length", dec_ll(cl, r->content_length));
	}
	bad |= put_if(b, "Authorized-url", r->source_url) | put_tz(b, r->tz_offset);
	if (is_natsu(r)) {
		bad |= put_if(b, "Virtual", r->extension) | put_method(b, r->extra[3]);
	} else {
		bad |= put_if(b, "X-LIRS-Extension", r->extension);
		for (i = 0; i < r->nextra; i++)
			bad |= put_value(b, "X-LIRS-Extra", r->extra[i]);
	}
	bad |= lb_buf_add(b, "\r\n", 2);
	return bad ? LB_ENOMEM : 0;
}

