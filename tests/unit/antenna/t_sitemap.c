/*
 * t_sitemap: the streaming sitemap reader (src/antenna/sitemap.c): a
 * <urlset> and a <sitemapindex> to their entries with the lines they start
 * on, other namespaces' <loc>s (image sitemaps) left out, W3C datetimes in
 * every form and bad ones told with their line, gzip read as plain, and
 * hostile bodies refused with the reason: a gzip bomb, an entity bomb (a
 * <!DOCTYPE>, even cut across two pieces), too many entries, not XML, not
 * a sitemap.  Any piece size gives the same entries.
 */
#include "ant_sitemap.h"
#include "ant_limits.h"
#include "lb_buf.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

struct got {
	lb_buf out;              /* "line loc lastmod date_only\n" per entry */
	lb_buf diags;            /* "line: msg\n" */
	int stop_after;          /* stop at this entry (0: never) */
	int n;
};

static int on_entry(void *ctx, const ant_sitemap_entry *e)
{
	struct got *g = ctx;

	lb_buf_addf(&g->out, "%lu %s %lld %d\n", e->line, e->loc, (long long)e->lastmod, e->date_only);
	return g->stop_after && ++g->n >= g->stop_after;
}

static void on_diag(void *ctx, unsigned long line, const char *msg)
{
	struct got *g = ctx;

	lb_buf_addf(&g->diags, "%lu: %s\n", line, msg);
}

/* Parses body with pieces of step bytes: the code, entries in g. */
static int parse(const char *body, size_t len, size_t step, uint64_t max_bytes, int64_t max_urls,
		 struct got *g, ant_sitemap_info *info, lb_error *err)
{
	ant_sitemap_opts o = { .max_bytes = max_bytes, .max_urls = max_urls, .step = step,
			       .on_entry = on_entry, .on_diag = on_diag, .ctx = g };

	lb_buf_reset(&g->out);
	lb_buf_reset(&g->diags);
	g->n = 0;
	lb_error_clear(err);
	return ant_sitemap_parse(body, len, &o, info, err);
}

static const char urlset[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"\n"
	"        xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\n"
	"  <url>\n"
	"    <loc>  http://example.com/a  </loc>\n"
	"    <lastmod>2026-11-20T10:00:00+09:00</lastmod>\n"
	"    <image:image><image:loc>http://example.com/a.png</image:loc></image:image>\n"
	"  </url>\n"
	"  <url><loc><![CDATA[http://example.com/b?x=1&y=2]]></loc><lastmod>2026-11-20</lastmod></url>\n"
	"  <url><loc>http://example.com/c&amp;d</loc></url>\n"
	"  <url><loc>http://example.com/d</loc><lastmod>20 Nov 2026</lastmod></url>\n"
	"  <url><lastmod>2026-11-20</lastmod></url>\n"
	"  <url/>\n"
	"</urlset>\n";

static const char urlset_want[] =
	"4 http://example.com/a 1795136400 0\n"
	"9 http://example.com/b?x=1&y=2 1795132800 1\n"
	"10 http://example.com/c&d 0 0\n"
	"11 http://example.com/d 0 0\n";

static const char urlset_diags[] =
	"11: <lastmod> '20 Nov 2026' is not a W3C datetime: date left out\n"
	"12: no <loc>: entry skipped\n"
	"13: no <loc>: entry skipped\n";

static void test_urlset(struct got *g)
{
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;
	int rc = parse(urlset, sizeof urlset - 1, 0, 0, 0, g, &info, &err);

	IS_INT(rc, 0, "urlset: read");
	IS_INT(info.kind, ANT_SITEMAP_URLSET, "urlset: the kind");
	IS_STR(g->out.data, urlset_want, "urlset: locs trimmed, CDATA and &amp; read, image:loc left out, lines");
	IS_STR(g->diags.data, urlset_diags, "urlset: a bad date and two entries without a loc, with their lines");
	IS_INT(info.entries, 6, "urlset: 6 entries");
	IS_INT(info.bad_locs, 2, "urlset: 2 without a loc");
	IS_INT(info.bad_dates, 1, "urlset: 1 bad date");
	IS_INT(info.gzip, 0, "urlset: not gzip");
	for (size_t step = 1; step <= 13; step += 3) {
		rc = parse(urlset, sizeof urlset - 1, step, 0, 0, g, &info, &err);
		OK(rc == 0 && !strcmp(g->out.data, urlset_want), "urlset in pieces of %zu bytes: the same entries", step);
	}
}

static void test_index(struct got *g)
{
	static const char idx[] =
		"<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
		"<sitemap><loc>http://example.com/s1.xml</loc><lastmod>2026-11</lastmod></sitemap>\n"
		"<sitemap><loc>http://example.com/s2.xml.gz</loc></sitemap>\n</sitemapindex>\n";
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;
	int rc = parse(idx, sizeof idx - 1, 0, 0, 0, g, &info, &err);

	IS_INT(rc, 0, "index: read");
	IS_INT(info.kind, ANT_SITEMAP_INDEX, "index: the kind");
	IS_STR(g->out.data, "3 http://example.com/s1.xml 1793491200 1\n4 http://example.com/s2.xml.gz 0 0\n",
	       "index: its sitemaps");
	/* a <url> in an index, a <sitemap> in a urlset: no entries */
	rc = parse("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>http://x/</loc>"
		   "</sitemap></urlset>", 104, 0, 0, 0, g, &info, &err);
	IS_STR(g->out.data, "", "a <sitemap> in a <urlset> is no entry");
}

static void test_dates(void)
{
	static const struct { const char *s; int64_t t; int date_only; } tab[] = {
		{ "2026", 1767225600, 1 },
		{ "2026-11", 1793491200, 1 },
		{ "2026-11-20", 1795132800, 1 },
		{ "2026-11-20T10:00+09:00", 1795136400, 0 },
		{ "2026-11-20T01:00:00Z", 1795136400, 0 },
		{ "2026-11-20T01:00:00.125Z", 1795136400, 0 },
		{ "2026-11-20T02:00:00+01:00", 1795136400, 0 },
		{ "2026-11-20T01:00:00", 0, 0 },         /* W3C: a time has a zone */
		{ "2026-11-20 01:00:00Z", 0, 0 },
		{ "2026-13-01", 0, 0 },
		{ "2026-02-30", 0, 0 },
		{ "Fri, 20 Nov 2026 01:00:00 GMT", 0, 0 },
		{ "", 0, 0 },
		{ "26-11-20", 0, 0 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		int d = -1;
		int64_t t = ant_sitemap_date(tab[i].s, &d);

		OK(t == tab[i].t && (t == 0 || d == tab[i].date_only), "W3C datetime '%s' -> %lld (date only %d)",
		   tab[i].s, (long long)t, d);
	}
}

/* gzip of s (one member), malloc'd, into *n. */
static char *gz(const char *s, size_t len, size_t *n)
{
	z_stream z = { 0 };
	size_t cap = compressBound(len) + 64;
	char *out = malloc(cap);

	deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)s;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	*n = z.total_out;
	deflateEnd(&z);
	return out;
}

static void test_gzip(struct got *g)
{
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;
	size_t n, big = 60u << 20;
	char *z = gz(urlset, sizeof urlset - 1, &n), *bomb;
	int rc = parse(z, n, 0, 0, 0, g, &info, &err);

	IS_INT(rc, 0, "gzip: read");
	IS_STR(g->out.data, urlset_want, "gzip: the same entries as plain");
	IS_INT(info.gzip, 1, "gzip: told");
	rc = parse(z, n - 5, 0, 0, 0, g, &info, &err);
	IS_INT(rc, LB_ETRUNC, "a gzip cut short: LB_ETRUNC (%s)", lb_error_msg(&err));
	free(z);
	/* a bomb: 60 MB of comments inflate past the 50 MB limit */
	bomb = malloc(big);
	memcpy(bomb, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">", 60);
	memset(bomb + 60, ' ', big - 60);
	for (size_t i = 60; i + 1000 <= big; i += 1000) {
		memcpy(bomb + i, "<!--", 4);
		memcpy(bomb + i + 997, "-->", 3);
	}
	z = gz(bomb, big, &n);
	free(bomb);
	rc = parse(z, n, 0, 0, 0, g, &info, &err);
	IS_INT(rc, LB_ETOOBIG, "a gzip bomb of %zu bytes: refused", n);
	IS_STR(lb_error_msg(&err), "over 52428800 bytes decompressed (a sitemap's limit: a bomb?)",
	       "... said so");
	OK(info.bytes <= ANT_SITEMAP_MAX_BYTES, "... after at most 50 MB (%llu)", (unsigned long long)info.bytes);
	free(z);
	rc = parse(urlset, sizeof urlset - 1, 0, 256, 0, g, &info, &err);
	IS_INT(rc, LB_ETOOBIG, "plain over max_bytes: refused");
	IS_STR(lb_error_msg(&err), "over 256 bytes long (a sitemap's limit: a bomb?)", "... said so");
}

static void test_hostile(struct got *g)
{
	static const char laughs[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n<!ENTITY a \"aaaaaaaaaa\">\n"
		"<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
		"<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
		"<!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n<!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\">\n]>\n"
		"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://x/&g;</loc></url></urlset>\n";
	static const char xxe[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE urlset SYSTEM \"http://127.0.0.1:9/x.dtd\">\n"
		"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://x/</loc></url></urlset>\n";
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;
	lb_buf many = LB_BUF_INIT, longloc = LB_BUF_INIT;
	int rc = parse(laughs, sizeof laughs - 1, 0, 0, 0, g, &info, &err), all = 1;

	IS_INT(rc, LB_EPARSE, "an entity bomb: refused");
	IS_STR(lb_error_msg(&err), "a <!DOCTYPE> in a sitemap: refused (entities are not expanded; an entity bomb?)",
	       "... said so");
	IS_STR(g->out.data, "", "... no entry read");
	for (size_t step = 1; step <= 12; step++) {
		rc = parse(laughs, sizeof laughs - 1, step, 0, 0, g, &info, &err);
		all &= rc == LB_EPARSE && !strcmp(g->out.data, "");
	}
	OK(all, "... in pieces of 1 to 12 bytes too (<!DOCTYPE cut in two)");
	rc = parse(xxe, sizeof xxe - 1, 0, 0, 0, g, &info, &err);
	IS_INT(rc, LB_EPARSE, "an external DTD: refused, never fetched");
	/* 50,000 entries, and one more */
	lb_buf_adds(&many, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
	for (int i = 0; i < 50001; i++)
		lb_buf_addf(&many, "<url><loc>http://example.com/%d</loc></url>\n", i);
	lb_buf_adds(&many, "</urlset>\n");
	rc = parse(many.data, many.len, 0, 0, 0, g, &info, &err);
	IS_INT(rc, LB_ETOOBIG, "50,001 entries: refused");
	IS_STR(lb_error_msg(&err), "line 50002: more than 50000 entries (a sitemap's limit): the rest is not read",
	       "... said so, with the line");
	g->out.len = 0;
	rc = parse(many.data, many.len, 0, 0, 50001, g, &info, &err);
	IS_INT(rc, 0, "... read with max_urls 50001");
	IS_INT(info.entries, 50001, "... all of them");
	g->stop_after = 3;
	rc = parse(many.data, many.len, 0, 0, 50001, g, &info, &err);
	g->stop_after = 0;
	IS_INT(rc, LB_ESTOP, "the callback stops the parse");
	/* a <loc> over ANT_MAX_URL bytes */
	lb_buf_adds(&longloc, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://x/");
	for (int i = 0; i < ANT_MAX_URL; i++)
		lb_buf_addc(&longloc, 'a');
	lb_buf_adds(&longloc, "</loc></url></urlset>");
	rc = parse(longloc.data, longloc.len, 0, 0, 0, g, &info, &err);
	OK(rc == 0 && info.bad_locs == 1 && !strcmp(g->out.data, ""), "a <loc> over ANT_MAX_URL bytes: skipped");
	IS_STR(g->diags.data, "1: <loc> over 8000 bytes: entry skipped\n", "... told");
	lb_buf_release(&many);
	lb_buf_release(&longloc);
}

static void test_not_sitemaps(struct got *g)
{
	static const struct { const char *body, *msg; } tab[] = {
		{ "<html><body>x</body></html>",
		  "line 1: the root element is <html>, not <urlset> or <sitemapindex>: not a sitemap" },
		{ "<urlset><url><loc>http://x/</loc></url>\n<url>",
		  "line 2: not well-formed XML: Extra content at the end of the document" },
		{ "", "an empty body: not a sitemap" },
		{ "\x1f\x8b\x08\x00garbage", "bad gzip data: gzip data ends early" },
	};
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;

	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		int rc = parse(tab[i].body, strlen(tab[i].body), 0, 0, 0, g, &info, &err);

		OK(rc < 0, "not a sitemap (%zu): refused", i);
		IS_STR(lb_error_msg(&err), tab[i].msg, "... said so");
	}
}

/* A body whose bytes libxml2's encoding conversion refuses (UCS-4 by its
 * first bytes, then garbage): an error value, and nothing on stderr. */
static void test_quiet(struct got *g)
{
	static const char ucs4[] = "\0\0\0<\0\0\0?\0\0\0x\0\0\0\xc0\0\0\0\"\xfe\xff\0\0\0\0";
	char path[] = "/tmp/t_sitemap.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), rc;
	ant_sitemap_info info;
	lb_error err = LB_ERROR_INIT;
	off_t size;

	fflush(stderr);
	dup2(fd, 2);
	rc = parse(ucs4, sizeof ucs4 - 1, 0, 0, 0, g, &info, &err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size = lseek(fd, 0, SEEK_END);
	close(fd);
	unlink(path);
	OK(rc < 0, "a body libxml2 cannot convert: refused (%s)", lb_error_msg(&err));
	IS_INT(size, 0, "... and nothing written on stderr");
}

static void test_limits(void)
{
	ant_sitemap_limits l;
	lb_error err = LB_ERROR_INIT;

	ant_sitemap_limits_init(&l);
	OK(l.max_bytes == 52428800 && l.max_urls == 50000 && l.max_children == 1000 && l.max_depth == 2 &&
	   l.max_seconds == 120, "the default limits");
	OK(ant_sitemap_limit_set(&l, "depth=3", &err) == 0 && l.max_depth == 3, "depth=3");
	OK(ant_sitemap_limit_set(&l, "bytes=1000000", &err) == 0 && l.max_bytes == 1000000, "bytes=1000000");
	OK(ant_sitemap_limit_set(&l, "urls=7", &err) == 0 && l.max_urls == 7, "urls=7");
	OK(ant_sitemap_limit_set(&l, "children=0", &err) == 0 && l.max_children == 0, "children=0");
	OK(ant_sitemap_limit_set(&l, "seconds=5", &err) == 0 && l.max_seconds == 5, "seconds=5");
	IS_INT(ant_sitemap_limit_set(&l, "depth=-1", &err), LB_EINVAL, "depth=-1 refused");
	IS_STR(lb_error_msg(&err), "sitemap limit 'depth=-1': depth is a number from 0 to 16", "... said so");
	IS_INT(ant_sitemap_limit_set(&l, "colour=3", &err), LB_EINVAL, "an unknown name refused");
	IS_INT(ant_sitemap_limit_set(&l, "urls=", &err), LB_EINVAL, "no number refused");
	IS_INT(ant_sitemap_limit_set(&l, "urls", &err), LB_EINVAL, "no '=' refused");
}

int main(void)
{
	struct got g = { LB_BUF_INIT, LB_BUF_INIT, 0, 0 };

	TAP_PLAN(73);
	test_urlset(&g);
	test_index(&g);
	test_dates();
	test_gzip(&g);
	test_hostile(&g);
	test_not_sitemaps(&g);
	test_quiet(&g);
	test_limits();
	lb_buf_release(&g.out);
	lb_buf_release(&g.diags);
	TAP_DONE();
}
