/*
 * t_di.c: HINA-DI and hina.txt in the reader (any chunking gives the same
 * records and diagnostics), HTTP dates, and the DI writer's bytes.
 */
#include <stdlib.h>

#include "di.h"
#include "lirs_test.h"
#include "tap.h"

#define S(s) (s), (sizeof(s) - 1)

/* tama's sites.di: CRLF, UTF-8, the fields in Website#to_di's order. */
static const char tama_di[] =
	"HINA/2.1\r\nUser-Agent: TAMATEBAKO/1.1.66-mod1 (2010-06-13)\r\n"
	"Date: Sun, 09 Sep 2001 01:45:00 GMT\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n"
	"URL: http://a.example/\r\nTitle: A: \xe6\x97\xa5\xe8\xa8\x98\r\nAuthor-Name: Aoi\r\n"
	"Virtual: http://a.example/latest.html\r\n"
	"Last-Modified: Sun, 09 Sep 2001 01:30:00 GMT\r\n"
	"Last-Modified-Detected: Sun, 09 Sep 2001 01:45:00 GMT\r\n"
	"Expires: Sun, 09 Sep 2001 09:45:00 GMT\r\nExpire: Sun, 09 Sep 2001 09:45:00 GMT\r\n"
	"Content-Length: 1234\r\nX-TAMA-Timezone: JST\r\nMethod: HEAD/200\r\n"
	"Authorized: TAMATEBAKO/1.1.66-mod1 (2010-06-13)\r\n\r\n"
	"URL: http://d.example/\r\nX-TAMA-Remote-URL: http://amano.example/\r\n"
	"X-TAMA-Method: REMOTE\r\n\r\n\r\n\r\n"
	"Title: no URL\r\n\r\n"
	"URL: http://e.example/\r\nbroken line\r\nLast-Modified: tomorrow\r\n\r\n"
	"URL: http://z.example/\nX-LIRS-Extension: ext\nX-LIRS-Extra: one\nX-LIRS-Extra:\n"
	"X-LIRS-Time-Difference: -37";

static const char hina[] =
	"# tama's sites.txt\n"
	"<!--HINA_OK 2001/09/09 10:30 [0]--><A HREF=\"http://a.example/\">A &amp; B</A> Aoi<br>\r\n"
	"<!--HINA_UNKNOWN--><A HREF=\"http://c.example/\">C</A> <br>\r"
	"<p>junk</p>\n"
	"<!--HINA_OK 2001/09/09 10:30 [1]--><A HREF=\"http://d.example/\">D</A> Dai<br>";

/* Every chunk size up to 80, plain and gzip, gives the one-shot transcript. */
static void chunkings(const char *name, const char *in, size_t n)
{
	struct tr one = { 0 }, t;
	lb_buf lirs_gz = LB_BUF_INIT;
	size_t c;
	int same = 1;

	tr_read(&one, in, n, 0);
	gzip_add(&lirs_gz, in, n, 6);
	for (c = 1; c <= 80 && same; c++) {
		memset(&t, 0, sizeof t);
		tr_read(&t, in, n, c);
		if (strcmp(t.text.data, one.text.data)) {
			same = 0;
			printf("#   %zu-byte chunks differ:\n%s\n# want:\n%s", c, t.text.data, one.text.data);
		}
		tr_free(&t);
		memset(&t, 0, sizeof t);
		tr_read(&t, lirs_gz.data, lirs_gz.len, c);
		/* gzip adds nothing but the absent not-gzip warning */
		if (strcmp(strstr(t.text.data, "rec ") ? strstr(t.text.data, "rec ") : "",
			   strstr(one.text.data, "rec ") ? strstr(one.text.data, "rec ") : "")) {
			same = 0;
			printf("#   gzip, %zu-byte chunks differ:\n%s", c, t.text.data);
		}
		tr_free(&t);
	}
	OK(same, "%s: every chunk size 1..80, plain and gzip, gives the same transcript", name);
	tr_free(&one);
	lb_buf_release(&lirs_gz);
}

static void di_records(void)
{
	struct tr t = { 0 };

	tr_read(&t, S(tama_di), 0);
	IS_INT(t.nrecs, 3, "tama DI: 3 blocks delivered");
	IS_INT(t.st.skipped, 2, "tama DI: a block without URL and one with a bad date skipped");
	IS_INT(t.st.format, LIRS_FORMAT_DI, "tama DI: format found");
	IS_INT(t.ndiag[LIRS_R_DI_NO_URL], 1, "di-no-url");
	IS_INT(t.ndiag[LIRS_R_DI_BAD_DATE], 1, "di-bad-date");
	IS_INT(t.ndiag[LIRS_R_DI_BAD_LINE], 1, "di-bad-line");
	OK(strstr(t.text.data, "rec 6: 999999000|999999900|32400|1234|http://a.example/|A: "
		  "\xe6\x97\xa5\xe8\xa8\x98|Aoi||http://a.example/latest.html|+|+|+|+HEAD\n") != NULL,
	   "tama DI: the HEAD block, NATSU layout, HEAD/200 is HEAD");
	OK(strstr(t.text.data, "|http://d.example/|||||+|+|+|+http://amano.example/\n") != NULL,
	   "tama DI: REMOTE is the remote antenna's URL");
	OK(strstr(t.text.data, "0|0|-37|0|http://z.example/||||ext|+one|+\n") != NULL,
	   "our X-LIRS fields: extension, extras, time difference; the last block needs no blank line");
	tr_free(&t);
	chunkings("tama DI", S(tama_di));
}

static void hina_records(void)
{
	struct tr t = { 0 };

	tr_read(&t, S(hina), 0);
	IS_INT(t.nrecs, 3, "hina.txt: 3 records");
	IS_INT(t.ndiag[LIRS_R_HINA_BAD_LINE], 1, "hina.txt: the junk line skipped");
	IS_INT(t.ndiag[LIRS_R_LONE_CR], 0, "hina.txt: a lone CR ends a line (no LIRS rule for it here)");
	OK(strstr(t.text.data, "999999000|999999000|32400|0|http://a.example/|A & B|Aoi||\n") != NULL,
	   "hina.txt: JST time, entities decoded, Last-Detected = Last-Modified without a fetch time");
	tr_free(&t);
	chunkings("hina.txt", S(hina));
}

static void fetched_time(void)
{
	lirs_reader_opts o = { 0 };
	struct tr t = { 0 };
	lirs_reader *rd;

	o.on_record = tr_rec;
	o.ctx = &t;
	o.fetched = 1000000000;
	rd = lirs_reader_new(&o);
	lirs_reader_feed(rd, S(hina));
	lirs_reader_finish(rd);
	lirs_reader_free(rd);
	OK(strstr(t.text.data, "999999000|1000000000|32400|0|http://a.example/") != NULL,
	   "hina.txt: Last-Detected is the fetch time when given");
	OK(strstr(t.text.data, "0|0|32400|0|http://c.example/") != NULL,
	   "hina.txt: no time, no Last-Detected");
	tr_free(&t);
}

static void dates(void)
{
	static const struct { const char *s; int64_t dflt, want; } ok[] = {
		{ "Sun, 09 Sep 2001 01:30:00 GMT", 0, 999999000 },
		{ "Sun,  9 Sep 2001 01:30:00 GMT", 0, 999999000 },
		{ "Sunday, 09-Sep-01 01:30:00 GMT", 0, 999999000 },
		{ "Sun Sep  9 01:30:00 2001", 0, 999999000 },
		{ "Sun, 09 Sep 2001 10:30:00 JST", 0, 999999000 },
		{ "Sun, 09 Sep 2001 10:30:00 +0900", 0, 999999000 },
		{ "Sat, 08 Sep 2001 21:30:00 EDT", 0, 999999000 },
		{ "2001/09/09 10:30", 32400, 999999000 },
		{ "01/09/09 10:30", 32400, -2155761000 },
		{ "Thu, 01 Jan 1970 00:00:00 GMT", 0, 0 },
		{ "Tue, 29 Feb 2000 00:00:00 GMT", 0, 951782400 },
	};
	static const char *const bad[] = {
		"", "yesterday", "Sun, 31 Feb 2001 01:30:00 GMT", "Sun, 09 Sep 2001 25:30:00 GMT",
		"Sun, 09 Foo 2001 01:30:00 GMT", "Sun, 09 Sep 2001 01:30:00 XYZ",
		"Mon, 29 Feb 2001 00:00:00 GMT", "2001/13/01 00:00",
	};
	char buf[40];
	int64_t t;
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		t = -1;
		if (lirs_di_parse_date(ok[i].s, ok[i].dflt, &t) < 0 || t != ok[i].want) {
			good = 0;
			printf("#   '%s' -> %lld\n", ok[i].s, (long long)t);
		}
	}
	OK(good, "HTTP dates (IMF, RFC 850, asctime, zones) and hina.txt dates (two-digit years are 19xx)");
	good = 1;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (lirs_di_parse_date(bad[i], 0, &t) == 0) {
			good = 0;
			printf("#   '%s' accepted\n", bad[i]);
		}
	OK(good, "impossible dates and unknown zones are refused");
	lirs_di_format_date(999999000, buf);
	IS_STR(buf, "Sun, 09 Sep 2001 01:30:00 GMT", "format: IMF-fixdate");
	lirs_di_format_date(253402300799LL, buf);
	IS_STR(buf, "Fri, 31 Dec 9999 23:59:59 GMT", "format: the last second of 9999");
	OK(lirs_di_format_date(-1, buf) < 0 && lirs_di_format_date(253402300800LL, buf) < 0,
	   "format: out of range refused");
	good = 1;
	srand(7);
	for (i = 0; i < 100000 && good; i++) {
		int64_t x = ((int64_t)rand() << 20 ^ rand()) % 253402300800LL, y = -1;
		if (lirs_di_format_date(x, buf) < 0 || lirs_di_parse_date(buf, 0, &y) < 0 || y != x) {
			good = 0;
			printf("#   %lld -> '%s' -> %lld\n", (long long)x, buf, (long long)y);
		}
	}
	OK(good, "parse(format(t)) == t for 100000 times");
}

static int mem_sink(void *ctx, const void *p, size_t n)
{
	return lb_buf_add(ctx, p, n);
}

static void writer(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer_opts o = { .no_gzip = 1, .utf8 = 1, .format = LIRS_FORMAT_DI,
			       .sink = mem_sink, .ctx = &out };
	char *natsu[4] = { "", "", "", "http://relay.example/" };
	char *other[2] = { "x", " y\r\n" };
	lirs_record r = { .last_modified = 999999000, .last_detected = 999999900,
			  .tz_offset = 32400, .content_length = 12, .url = "http://a.example/",
			  .title = " Two\nlines ", .author = "", .source_url = "",
			  .extension = "http://a.example/x", .extra = natsu, .nextra = 4 };
	lirs_writer *w = lirs_writer_new(&o);

	lirs_writer_add(w, &r);
	r.extra = other;
	r.nextra = 2;
	r.tz_offset = 19;
	r.last_modified = -5;
	lirs_writer_add(w, &r);
	r.url = " \r\n";
	lirs_writer_add(w, &r);
	lirs_writer_comment(w, "no comments in DI");
	lirs_writer_finish(w);
	IS_STR(out.data,
	       "HINA/2.1\r\nUser-Agent: lirs-antenna/" LIRS_VERSION "\r\n"
	       "Content-Type: text/plain; charset=UTF-8\r\n\r\n"
	       "URL: http://a.example/\r\nTitle: Two lines\r\n"
	       "Last-Modified: Sun, 09 Sep 2001 01:30:00 GMT\r\n"
	       "Last-Modified-Detected: Sun, 09 Sep 2001 01:45:00 GMT\r\n"
	       "Content-Length: 12\r\nX-TAMA-Timezone: +0900\r\n"
	       "Virtual: http://a.example/x\r\nX-TAMA-Method: REMOTE\r\n"
	       "X-TAMA-Remote-URL: http://relay.example/\r\n\r\n"
	       "URL: http://a.example/\r\nTitle: Two lines\r\n"
	       "Last-Modified-Detected: Sun, 09 Sep 2001 01:45:00 GMT\r\n"
	       "Content-Length: 12\r\nX-LIRS-Time-Difference: 19\r\n"
	       "X-LIRS-Extension: http://a.example/x\r\nX-LIRS-Extra: x\r\nX-LIRS-Extra: y\r\n\r\n",
	       "DI writer: tama's order and layout, the one escape, ours for the rest");
	IS_INT(lirs_writer_skipped(w), 1, "DI writer: a record with a blank URL is left out and counted");
	{
		char *many[LIRS_DI_MAX_EXTRA + 1];
		size_t i;
		for (i = 0; i <= LIRS_DI_MAX_EXTRA; i++)
			many[i] = "x";
		r.url = "http://many.example/";
		r.extra = many;
		r.nextra = LIRS_DI_MAX_EXTRA + 1;
		lirs_writer_free(w);
		w = lirs_writer_new(&o);
		lirs_writer_add(w, &r);
		IS_INT(lirs_writer_skipped(w), 1,
		       "DI writer: a record with more extra fields than a reader keeps is left out (found by fuzz_di)");
	}
	lirs_writer_free(w);
	lb_buf_release(&out);
}

/* A block of 100000 X-LIRS-Extra lines and 100000 unknown fields: skipped
 * once, memory bounded by the limit (the extras beyond it are not kept). */
static void bounded(void)
{
	lb_buf in = LB_BUF_INIT;
	struct tr t = { 0 };
	int i;

	lb_buf_adds(&in, "HINA/2.1\n\nURL: http://a.example/\n");
	for (i = 0; i < 100000; i++)
		lb_buf_addf(&in, "X-LIRS-Extra: %d\nX-Unknown-%d: value\n", i, i);
	lb_buf_adds(&in, "\nURL: http://b.example/\n");
	tr_read(&t, in.data, in.len, 4096);
	IS_INT(t.nrecs, 1, "a block over LIRS_DI_MAX_EXTRA is skipped, the next one read");
	IS_INT(t.ndiag[LIRS_R_DI_TOO_MANY_EXTRA], 1, "di-too-many-extra reported once");
	tr_free(&t);
	lb_buf_release(&in);
}

/* Found by fuzz_di: a Virtual without a method wrote into the static ""
 * of the absent Method field. */
static void virtual_only(void)
{
	struct tr t = { 0 };

	tr_read(&t, S("HINA/2.1\n\nURL: http://a.example/\nVirtual: http://a.example/v\n"), 0);
	OK(strstr(t.text.data, "|http://a.example/v|+|+|+|+\n") != NULL,
	   "Virtual alone: NATSU layout with an empty method");
	tr_free(&t);
}

int main(void)
{
	TAP_PLAN(29);
	virtual_only();
	di_records();
	hina_records();
	fetched_time();
	dates();
	writer();
	bounded();
	TAP_DONE();
}
