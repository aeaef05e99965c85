/*
 * t_reader.c: the LIRS reader against its cases: LIRS 2.1 §5's
 * example, escapes, line ends, field counts, charsets, gzip damage and
 * bombs, pathological lines; every text case is also fed 1 byte at a time
 * and must give the same transcript.
 */
#include <sys/resource.h>
#include <time.h>

#include "tap.h"
#include "lirs_test.h"
#include "lirs_charset.h"

#define S(lit) lit, sizeof(lit) - 1

static const char spec_example[] =
	"LIRS,938779260,938781002,32400,49383,http://hiya.ouchi.to/n/,"
	"Tadayo Memories,Hiya,http://amano.hauN.org/,blah blah,\r\n";

/* Reads s whole and 1 byte at a time: the transcripts must match. */
static void read_both(struct tr *t, const char *name, const char *s, size_t n)
{
	struct tr one;

	memset(&one, 0, sizeof(one));
	tr_read(t, s, n, 0);
	tr_read(&one, s, n, 1);
	IS_STR(one.text.data, t->text.data, "%s: 1-byte chunks give the same records and diagnostics", name);
	tr_free(&one);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_spec_example(void)
{
	struct tr t = { 0 };
	lirs_record *r;

	read_both(&t, "spec example", S(spec_example));
	IS_INT(t.rc, 0, "spec example: reads");
	IS_INT(t.nrecs, 1, "spec example: one record");
	if (t.nrecs != 1)
		return;
	r = &t.recs[0];
	IS_INT(r->last_modified, 938779260, "spec example: last_modified");
	IS_INT(r->last_detected, 938781002, "spec example: last_detected");
	IS_INT(r->tz_offset, 32400, "spec example: tz_offset");
	IS_INT(r->content_length, 49383, "spec example: content_length");
	IS_STR(r->url, "http://hiya.ouchi.to/n/", "spec example: url");
	IS_STR(r->title, "Tadayo Memories", "spec example: title");
	IS_STR(r->author, "Hiya", "spec example: author");
	IS_STR(r->source_url, "http://amano.hauN.org/", "spec example: source_url");
	IS_STR(r->extension, "blah blah", "spec example: extension");
	IS_INT(r->nextra, 0, "spec example: no extra fields");
	IS_INT(r->line, 1, "spec example: line 1");
	IS_INT(t.st.errors + t.st.warnings, 1, "spec example: only the not-gzip warning");
	IS_INT(t.ndiag[LIRS_R_NOT_GZIP], 1, "spec example: not-gzip reported");
	IS_INT(t.st.gzip, 0, "spec example: stats say plain");
	tr_free(&t);
}

static void test_escapes(void)
{
	struct tr t = { 0 };
	/* title "a\" (backslash right before the field's comma), author "b,c" */
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,a\\\\,b\\,c,s\\\\\\,x,e\\q\\,\n"
		"LIRS,1,2,3,4,http://b/,\\\\\\\\,\\,,\\,\\,,,\n"
		"LIRS,1,2,3,4,http://c/,t,a,s,ends in backslash\\";

	read_both(&t, "escapes", S(in));
	IS_INT(t.nrecs, 3, "escapes: three records");
	if (t.nrecs != 3)
		return;
	IS_STR(t.recs[0].title, "a\\", "escapes: \\\\ right before the comma ends the field");
	IS_STR(t.recs[0].author, "b,c", "escapes: \\, is a comma");
	IS_STR(t.recs[0].source_url, "s\\,x", "escapes: \\\\ then \\,");
	IS_STR(t.recs[0].extension, "e\\q,", "escapes: unknown escape kept as written");
	IS_STR(t.recs[1].title, "\\\\", "escapes: four backslashes are two");
	IS_STR(t.recs[1].author, ",", "escapes: a lone escaped comma");
	IS_STR(t.recs[1].source_url, ",,", "escapes: two escaped commas");
	IS_STR(t.recs[1].extension, "", "escapes: empty extension");
	IS_STR(t.recs[2].extension, "ends in backslash\\", "escapes: backslash at the end of the line kept");
	IS_INT(t.ndiag[LIRS_R_UNKNOWN_ESCAPE], 2, "escapes: two unknown-escape warnings");
	OK(strstr(t.text.data, "diag 1:") && strstr(t.text.data, "extension: unknown escape '\\q'"),
	   "escapes: message names the field and the escape");
	tr_free(&t);
}

static void test_line_ends(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,t,a,s,,\r\n"
		"LIRS,1,2,3,4,http://b/,t,a,s,,\n"
		"LIRS,1,2,3,4,http://c/,t,a,s,,\r\n"
		"LIRS,1,2,3,4,http://d/,t,a,s,,\r"
		"LIRS,1,2,3,4,http://e/,t,a,s,,\n"
		"\r\r\n"
		"LIRS,1,2,3,4,http://f/,t,a,s,,\r";

	read_both(&t, "line ends", S(in));
	IS_INT(t.rc, 0, "line ends: reads");
	IS_INT(t.nrecs, 6, "line ends: CRLF, LF and lone CR all end records");
	IS_INT(t.ndiag[LIRS_R_LONE_CR], 3, "line ends: three lone CRs reported");
	IS_INT(t.st.lines, 8, "line ends: a lone CR counts as a line end");
	OK(strstr(t.text.data, "diag 4:31: lone-cr kept") != NULL, "line ends: lone CR has line and column");
	if (t.nrecs == 6)
		IS_INT(t.recs[4].line, 5, "line ends: line numbers follow lone CRs");
	tr_free(&t);
}

static void test_comments(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"# a comment, with commas\n"
		"\n"
		"   \n"
		"#LIRS,1,2,3,4,http://x/,t,a,s,,\n"
		"LIRS,1,2,3,4,http://a/,t,a,s,,\n"
		"not a record\n"
		"LIRS;1,2\n";

	read_both(&t, "comments", S(in));
	IS_INT(t.nrecs, 1, "comments: comment and blank lines skipped");
	IS_INT(t.st.comments, 2, "comments: counted");
	IS_INT(t.ndiag[LIRS_R_NO_PREFIX], 2, "comments: lines without LIRS, are errors");
	IS_INT(t.st.skipped, 2, "comments: no-prefix lines are skipped");
	OK(strstr(t.text.data, "diag 6:1: no-prefix skipped") != NULL, "comments: no-prefix diag marked skipped");
	tr_free(&t);
}

static void test_field_counts(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,t,a,s,\n"                       /* 8 */
		"LIRS,1,2,3,4,http://b/,t,a,s,e,\n"                     /* 9 */
		"LIRS,1,2,3,4,http://c/,t,a,s,e,x1,x2,0,x5\n"            /* 13, no comma */
		"LIRS,1,2,3,4,http://d/,t,a,\n"                         /* 7 */
		"LIRS,\n";

	read_both(&t, "field counts", S(in));
	IS_INT(t.nrecs, 3, "field counts: 8, 9 and 13 fields read; 7 and 0 skipped");
	IS_INT(t.ndiag[LIRS_R_NO_EXTENSION], 1, "field counts: 8 fields warned");
	IS_INT(t.ndiag[LIRS_R_EXTRA_FIELDS], 1, "field counts: 13 fields warned");
	IS_INT(t.ndiag[LIRS_R_NO_TRAILING_COMMA], 1, "field counts: missing trailing comma warned");
	IS_INT(t.ndiag[LIRS_R_TOO_FEW_FIELDS], 2, "field counts: too few fields is an error");
	if (t.nrecs == 3) {
		IS_STR(t.recs[0].extension, "", "field counts: 8 fields give an empty extension");
		IS_INT(t.recs[2].nextra, 4, "field counts: 4 extra fields kept");
		if (t.recs[2].nextra == 4) {
			IS_STR(t.recs[2].extra[0], "x1", "field counts: extras in order (1)");
			IS_STR(t.recs[2].extra[2], "0", "field counts: extras kept as written");
			IS_STR(t.recs[2].extra[3], "x5", "field counts: last extra without comma");
		}
	}
	tr_free(&t);
}

static void test_numbers(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"LIRS,9223372036854775807,-9223372036854775808,+32400,-18000,http://a/,t,a,s,,\n"
		"LIRS,9223372036854775808,2,3,4,http://b/,t,a,s,,\n"
		"LIRS,1.5,2,3,4,http://c/,t,a,s,,\n"
		"LIRS,1,2,+,4,http://d/,t,a,s,,\n"
		"LIRS,1,2, 3,4,http://e/,t,a,s,,\n"
		"LIRS,1,,3,4,http://f/,0,0,,0,\n";

	read_both(&t, "numbers", S(in));
	IS_INT(t.nrecs, 2, "numbers: bad numbers skip their record");
	IS_INT(t.ndiag[LIRS_R_BAD_NUMBER], 4, "numbers: overflow, 1.5, lone sign, space are bad-number");
	if (t.nrecs == 2) {
		IS_INT(t.recs[0].last_modified, INT64_MAX, "numbers: int64 max");
		IS_INT(t.recs[0].last_detected, INT64_MIN, "numbers: int64 min");
		IS_INT(t.recs[0].tz_offset, 32400, "numbers: +32400");
		IS_INT(t.recs[0].content_length, -18000, "numbers: -18000");
		IS_INT(t.recs[1].last_detected, 0, "numbers: empty number reads 0");
		IS_STR(t.recs[1].title, "", "numbers: title 0 reads empty");
		IS_STR(t.recs[1].author, "", "numbers: author 0 reads empty");
		IS_STR(t.recs[1].extension, "0", "numbers: extension 0 kept as written");
	}
	IS_INT(t.ndiag[LIRS_R_BLANK_FIELD], 2, "numbers: empty number and source_url warned");
	OK(strstr(t.text.data, "diag 2:6: bad-number skipped last_modified") != NULL,
	   "numbers: bad-number has column and field");
	tr_free(&t);
}

static void test_charsets(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,\xb4\xc1\xbb\xfa,\x8e\xb1\x8e\xdd,\x8f\xb0\xa1,\xad\xa1\xad\xa2,\n"
		"LIRS,1,2,3,4,http://b/,\xe6\x97\xa5\xe6\x9c\xac\xe3\x81\x82,a,s,,\n"
		"LIRS,1,2,3,4,http://c/,x\xff\xfey,a,s,,\n"
		"LIRS,1,2,3,4,http://d/,a\0b,a,s,,\n";

	read_both(&t, "charsets", S(in));
	IS_INT(t.nrecs, 4, "charsets: all records kept");
	if (t.nrecs == 4) {
		IS_STR(t.recs[0].title, "漢字", "charsets: EUC-JP kanji");
		IS_STR(t.recs[0].author, "ｱﾝ", "charsets: half-width katakana (SS2)");
		IS_STR(t.recs[0].source_url, "丂", "charsets: JIS X 0212 (SS3)");
		IS_STR(t.recs[0].extension, "\xe2\x91\xa0\xe2\x91\xa1", "charsets: NEC row 13 circled digits U+2460");
		IS_STR(t.recs[1].title, "日本あ", "charsets: UTF-8 line decoded");
		IS_STR(t.recs[2].title, "x\xef\xbf\xbd\xef\xbf\xbdy", "charsets: invalid bytes become U+FFFD");
		IS_STR(t.recs[3].title, "a\xef\xbf\xbd" "b", "charsets: NUL becomes U+FFFD");
	}
	IS_INT(t.ndiag[LIRS_R_UTF8_FALLBACK], 1, "charsets: utf8-fallback warned");
	IS_INT(t.ndiag[LIRS_R_INVALID_ENCODING], 1, "charsets: invalid-encoding reported");
	IS_INT(t.ndiag[LIRS_R_NUL_BYTE], 1, "charsets: nul-byte reported");
	OK(strstr(t.text.data, "diag 3:25: invalid-encoding kept") != NULL, "charsets: invalid-encoding column");
	OK(strstr(t.text.data, "diag 4:25: nul-byte kept") != NULL, "charsets: nul-byte column");
	tr_free(&t);
	/* a column counts characters, not bytes */
	read_both(&t, "columns", S("LIRS,1,2,3,4,http://a/,\xb4\xc1\xbb\xfa,b,0,e\\q,\n"));
	OK(strstr(t.text.data, "diag 1:32: unknown-escape") != NULL, "charsets: column in characters after kanji");
	tr_free(&t);
	/* "é" and U+FFFD are valid EUC-JP bytes too; in a file already known
	 * to be UTF-8 they must stay UTF-8 (round trip of lirs pack --utf8). */
	read_both(&t, "sticky", S("LIRS,1,2,3,4,http://a/,\xe6\x97\xa5,a,s,,\n"
				   "LIRS,1,2,3,4,http://b/,caf\xc3\xa9 \xef\xbf\xbd,a,s,,\n"));
	IS_INT(t.nrecs, 2, "charsets: UTF-8 file read");
	if (t.nrecs == 2)
		IS_STR(t.recs[1].title, "caf\xc3\xa9 \xef\xbf\xbd", "charsets: a line valid in both stays UTF-8 in a UTF-8 file");
	tr_free(&t);
	read_both(&t, "euc-first", S("LIRS,1,2,3,4,http://b/,\xc3\xa9,a,s,,\n"));
	if (t.nrecs == 1)
		IS_STR(t.recs[0].title, "\xe8\xbe\xbf", "charsets: a line valid in both is EUC-JP when nothing says UTF-8");
	tr_free(&t);
}

static const char corpus[] =
	"# sites.lirs\n"
	"LIRS,938779260,938781002,32400,49383,http://hiya.ouchi.to/n/,Tadayo Memories,Hiya,http://amano.hauN.org/,blah blah,\r\n"
	"LIRS,1000,2000,+32400,10,http://a/,\xb4\xc1\xbb\xfa\\,\\\\,\x8e\xb1,0,,\n"
	"LIRS,1000,2000,-18000,10,http://b/,t,a,s,e,x,y,z\n"
	"LIRS,1000,2000,0,10,http://c/,\xe3\x81\x82,a,s,,\n";

static void test_gzip(void)
{
	struct tr t = { 0 }, plain = { 0 };
	lb_buf lirs_gz = LB_BUF_INIT;
	size_t i, mid;

	tr_read(&plain, S(corpus), 0);
	gzip_add(&lirs_gz, corpus, sizeof(corpus) - 1, 6);
	read_both(&t, "gzip", lirs_gz.data, lirs_gz.len);
	IS_INT(t.nrecs, 4, "gzip: records read");
	IS_INT(t.st.gzip, 1, "gzip: stats say gzip");
	IS_INT(t.ndiag[LIRS_R_NOT_GZIP], 0, "gzip: no not-gzip warning");
	tr_free(&t);

	/* two members, split in the middle of a line: one stream (RFC 1952 §2.2) */
	lb_buf_reset(&lirs_gz);
	mid = 60;
	gzip_add(&lirs_gz, corpus, mid, 6);
	gzip_add(&lirs_gz, corpus + mid, sizeof(corpus) - 1 - mid, 9);
	read_both(&t, "multi-member", lirs_gz.data, lirs_gz.len);
	IS_INT(t.rc, 0, "multi-member: reads");
	IS_INT(t.nrecs, 4, "multi-member: all records, line joined across members");
	if (t.nrecs == 4 && plain.nrecs == 4)
		IS_STR(t.recs[0].title, plain.recs[0].title, "multi-member: same as plain");
	tr_free(&t);

	/* trailing junk after the last member */
	lb_buf_add(&lirs_gz, "\0\0junk", 6);
	read_both(&t, "trailing", lirs_gz.data, lirs_gz.len);
	IS_INT(t.rc, 0, "trailing: not fatal");
	IS_INT(t.nrecs, 4, "trailing: records read");
	IS_INT(t.ndiag[LIRS_R_GZIP_TRAILING], 1, "trailing: warned");
	tr_free(&t);

	/* truncated: records before the damage, then an error */
	lb_buf_reset(&lirs_gz);
	gzip_add(&lirs_gz, corpus, sizeof(corpus) - 1, 0);   /* stored: bytes map 1:1 */
	read_both(&t, "truncated", lirs_gz.data, lirs_gz.len - 40);
	IS_INT(t.rc, LB_ETRUNC, "truncated: LB_ETRUNC");
	IS_INT(t.nrecs, 3, "truncated: the records before the damage are delivered");
	IS_INT(t.ndiag[LIRS_R_GZIP_TRUNCATED], 1, "truncated: gzip-truncated reported");
	tr_free(&t);
	read_both(&t, "truncated header", lirs_gz.data, 5);
	IS_INT(t.rc, LB_ETRUNC, "truncated header: LB_ETRUNC");
	tr_free(&t);
	read_both(&t, "magic only", lirs_gz.data, 2);
	IS_INT(t.rc, LB_ETRUNC, "magic only: LB_ETRUNC");
	tr_free(&t);

	/* corrupt: flip bytes in the middle of the deflate data */
	lb_buf_reset(&lirs_gz);
	gzip_add(&lirs_gz, corpus, sizeof(corpus) - 1, 6);
	for (i = lirs_gz.len / 2; i < lirs_gz.len / 2 + 8; i++)
		lirs_gz.data[i] ^= 0x55;
	read_both(&t, "corrupt", lirs_gz.data, lirs_gz.len);
	OK(t.rc == LB_EGZIP || t.rc == LB_ETRUNC, "corrupt: a gzip error (rc %d)", t.rc);
	IS_INT(t.ndiag[LIRS_R_GZIP_CORRUPT] + t.ndiag[LIRS_R_GZIP_TRUNCATED], 1, "corrupt: reported once");
	tr_free(&t);
	/* a bad CRC is corruption too */
	lb_buf_reset(&lirs_gz);
	gzip_add(&lirs_gz, corpus, sizeof(corpus) - 1, 6);
	lirs_gz.data[lirs_gz.len - 6] ^= 1;
	tr_read(&t, lirs_gz.data, lirs_gz.len, 0);
	IS_INT(t.rc, LB_EGZIP, "bad crc: LB_EGZIP");
	IS_INT(t.nrecs, 4, "bad crc: records delivered before the check");
	tr_free(&t);

	lb_buf_release(&lirs_gz);
	tr_free(&plain);
}

/*
 * A gzip bomb: 2 GiB of zeros in about 2 MB.  One MiB of zeros is
 * compressed once with Z_FULL_FLUSH (byte-aligned, no back references
 * across it) and that piece repeated 2048 times.
 */
static void make_bomb(lb_buf *out)
{
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	unsigned char *zeros = calloc(1, 1 << 20), piece[16384], tail[64];
	z_stream zs;
	size_t plen, i;

	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
	zs.next_in = zeros;
	zs.avail_in = 1 << 20;
	zs.next_out = piece;
	zs.avail_out = sizeof(piece);
	deflate(&zs, Z_FULL_FLUSH);
	plen = sizeof(piece) - zs.avail_out;
	zs.next_out = tail;
	zs.avail_out = sizeof(tail);
	deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	lb_buf_add(out, hdr, sizeof(hdr));
	for (i = 0; i < 2048; i++)
		lb_buf_add(out, piece, plen);
	lb_buf_add(out, tail, sizeof(tail) - zs.avail_out);
	/* trailer: CRC-32 and size mod 2^32 of 2 GiB of zeros */
	{
		uLong crc = crc32(0, zeros, 1 << 20), c = crc;
		unsigned char tr[8];
		for (i = 1; i < 2048; i++)
			c = crc32_combine(c, crc, 1 << 20);
		for (i = 0; i < 4; i++) {
			tr[i] = (unsigned char)(c >> (8 * i));
			tr[4 + i] = 0;
		}
		lb_buf_add(out, tr, 8);
	}
	free(zeros);
}

static void test_bomb(void)
{
	struct tr t = { 0 };
	lb_buf lirs_gz = LB_BUF_INIT;
	double t0;

	make_bomb(&lirs_gz);
	OK(lirs_gz.len < 4 << 20, "bomb: 2 GiB of zeros in %zu bytes", lirs_gz.len);
	t0 = now();
	tr_read_opts(&t, lirs_gz.data, lirs_gz.len, 65536, 1 << 20, 0);
	IS_INT(t.rc, LB_ETOOBIG, "bomb: small max_decoded stops with LB_ETOOBIG");
	OK(t.st.bytes_decoded <= 1 << 20, "bomb: no more than the cap decoded");
	IS_INT(t.ndiag[LIRS_R_TOO_BIG], 1, "bomb: too-big reported");
	OK(now() - t0 < 1.0, "bomb: small cap stops at once (%.3f s)", now() - t0);
	tr_free(&t);
	/* the default cap (1 GiB); skipped under valgrind, where it takes minutes */
	if (!getenv("LIRS_WRAP") || !*getenv("LIRS_WRAP")) {
		long rss0 = maxrss_kb();
		t0 = now();
		tr_read(&t, lirs_gz.data, lirs_gz.len, 1 << 20);
		IS_INT(t.rc, LB_ETOOBIG, "bomb: default cap stops with LB_ETOOBIG");
		OK(t.st.bytes_decoded <= LIRS_DEFAULT_MAX_DECODED &&
		   t.st.bytes_decoded > LIRS_DEFAULT_MAX_DECODED - (1 << 20), "bomb: stops at the default cap");
		OK(now() - t0 < 20.0, "bomb: bounded time (%.2f s)", now() - t0);
		OK(maxrss_kb() - rss0 < 8 * 1024, "bomb: bounded memory (%ld KiB more)", maxrss_kb() - rss0);
		IS_INT(t.ndiag[LIRS_R_LINE_TOO_LONG], 1, "bomb: the zeros are one over-long line");
		tr_free(&t);
	} else {
		SKIP("under valgrind", "bomb: default cap stops with LB_ETOOBIG");
		SKIP("under valgrind", "bomb: stops at the default cap");
		SKIP("under valgrind", "bomb: bounded time");
		SKIP("under valgrind", "bomb: bounded memory");
		SKIP("under valgrind", "bomb: the zeros are one over-long line");
	}
	lb_buf_release(&lirs_gz);
}

static void test_empty(void)
{
	struct tr t = { 0 };
	lb_buf lirs_gz = LB_BUF_INIT;

	tr_read(&t, "", 0, 0);
	IS_INT(t.rc, 0, "empty: reads");
	IS_INT(t.nrecs, 0, "empty: no records");
	IS_INT(t.st.errors + t.st.warnings, 1, "empty: one diagnostic");
	IS_INT(t.ndiag[LIRS_R_EMPTY_FILE], 1, "empty: named as such (empty-file)");
	tr_free(&t);
	gzip_add(&lirs_gz, "", 0, 6);
	tr_read(&t, lirs_gz.data, lirs_gz.len, 1);
	IS_INT(t.rc, 0, "empty gzip: reads");
	IS_INT(t.nrecs, 0, "empty gzip: no records");
	IS_INT(t.ndiag[LIRS_R_EMPTY_FILE], 0, "empty gzip: not an empty file");
	tr_free(&t);
	tr_read(&t, "L", 1, 0);
	IS_INT(t.ndiag[LIRS_R_NO_PREFIX], 1, "one byte: read as plain text");
	tr_free(&t);
	lb_buf_release(&lirs_gz);
}

/* A bare ',' in the title: the record as read, one error naming the fix
 * and the title as it probably was; none for a source URL, 0 or blank,
 * nor where a "\\," (backslash-shift) may explain it. */
static void test_unescaped_comma(void)
{
	struct tr t = { 0 };

	read_both(&t, "unescaped-comma", S("LIRS,1,2,3,4,http://a/,a,b,c,Auth,0,,\n"
		"LIRS,1,2,3,4,http://b/,t,Auth,http://s/,,\nLIRS,1,2,3,4,http://c/,t,Auth,0,,\n"
		"LIRS,1,2,3,4,http://d/,t,Auth,,,\nLIRS,1,2,3,4,http://e/,t\\\\,x,Auth,0,\n"
		"LIRS,1,2,3,4,http://f/,t,Auth,junk,\n"));
	IS_INT(t.nrecs, 6, "unescaped-comma: every record delivered as read");
	IS_STR(t.nrecs ? t.recs[0].source_url : "", "c", "unescaped-comma: the source URL field as read");
	IS_INT(t.ndiag[LIRS_R_UNESCAPED_COMMA], 2, "unescaped-comma: lines 1 and 6 only");
	OK(strstr(t.text.data, "diag 1:28: unescaped-comma kept source_url: source_url: 'c' is not a URL: "
		  "a ',' not escaped as '\\,' in the title? fields 6 to 8 read as one title give 'a,b,c' "
		  "and the author 'Auth'") != NULL, "unescaped-comma: the fix and the title named");
	OK(strstr(t.text.data, "diag 6:") && strstr(t.text.data, "'junk' is not a URL: a ',' not escaped "
		  "as '\\,' in the title or the author moved") != NULL,
	   "unescaped-comma: without a later source URL, the cause asked");
	tr_free(&t);
}

/* A 404 page, plain, after a BOM, and in gzip: one fatal error. */
static void test_html(void)
{
	static const char page[] = "\n\xef\xbb\xbf  <!DOCTYPE HTML>\n<html>\n<body>LIRS,1</body>\n";
	struct tr t = { 0 };
	lb_buf gz = LB_BUF_INIT;

	read_both(&t, "html", page, sizeof page - 1);
	IS_INT(t.rc, LB_EPARSE, "html: reading stops (LB_EPARSE)");
	IS_INT(t.ndiag[LIRS_R_NOT_LIRS], 1, "html: one not-lirs");
	IS_INT(t.ndiag[LIRS_R_NO_PREFIX], 0, "html: no cascade of no-prefix");
	OK(strstr(t.text.data, "diag 2:0: not-lirs skipped: this is an HTML page, not LIRS: a 404 page saved as "
		  "lirs.gz?") != NULL, "html: named, on its line");
	tr_free(&t);
	gzip_add(&gz, S("<html lang=ja><body>404</body></html>\n"), 6);
	tr_read(&t, gz.data, gz.len, 7);
	OK(t.rc == LB_EPARSE && strstr(t.text.data, "a gzip file holding an HTML page") != NULL,
	   "html: inside gzip too");
	tr_free(&t);
	tr_read(&t, S("<htmlish>\n"), 0);
	IS_INT(t.ndiag[LIRS_R_NOT_LIRS] * 10 + t.ndiag[LIRS_R_NO_PREFIX], 1, "html: '<htmlish' is not a page");
	tr_free(&t);
	lb_buf_release(&gz);
}

/* Reads s with --charset cp932. */
static void read_cp932(struct tr *t, const char *s, size_t n)
{
	lirs_reader_opts o = { .filename = "t.lirs", .on_record = tr_rec, .on_diag = tr_diag, .ctx = t,
			       .charset = LIRS_CHARSET_CP932 };
	lirs_reader *rd = lirs_reader_new(&o);

	t->rc = lirs_reader_feed(rd, s, n);
	if (t->rc == 0)
		t->rc = lirs_reader_finish(rd);
	lirs_reader_free(rd);
}

/* 日本語 and ソ (whose second byte is '\') in Shift_JIS. */
#define SJIS_TITLE "\x93\xfa\x96\x7b\x8c\xea\x83\x5c"

static void test_shift_jis(void)
{
	static const char line[] = "LIRS,1,2,3,4,http://a/," SJIS_TITLE ",0,0,,\n"
		"LIRS,1,2,3,4,http://b/," SJIS_TITLE ",0,0,,\n";
	struct tr t = { 0 };

	OK(lirs_cs_is_sjis(S(SJIS_TITLE)) && !lirs_cs_is_sjis(S("ascii")) &&
	   !lirs_cs_is_sjis(S("\x93")) && !lirs_cs_is_sjis(S("\xff\xfe")),
	   "shift-jis: lirs_cs_is_sjis() on pairs, ASCII, a cut pair, FF");
	tr_read(&t, S(line), 0);
	IS_INT(t.ndiag[LIRS_R_SHIFT_JIS], 2, "shift-jis: named on each line");
	IS_INT(t.ndiag[LIRS_R_INVALID_ENCODING], 0, "shift-jis: not invalid-encoding");
	OK(strstr(t.text.data, "convert the file with iconv -f CP932 -t EUC-JP in > out") &&
	   strstr(t.text.data, "not EUC-JP, as line 1"), "shift-jis: the iconv command, then a pointer back");
	tr_free(&t);
	read_cp932(&t, S(line));
	IS_STR(t.nrecs == 2 ? t.recs[1].title : "", "日本語ソ", "shift-jis: --charset cp932 reads it, '\\' trail bytes too");
	IS_INT(t.ndiag[LIRS_R_SHIFT_JIS], 1, "shift-jis: --charset cp932 still says it once");
	tr_free(&t);
}

/* Feeds a 10 MB line in 64 KiB pieces, never holding it whole. */
static void test_long_line(void)
{
	struct tr t = { 0 };
	lirs_reader_opts o;
	lirs_reader *rd;
	char *a = malloc(65536);
	long rss0;
	int i, rc = 0;
	static const char head[] = "LIRS,1,2,3,4,http://long/,";
	static const char next[] = ",a,s,,\nLIRS,1,2,3,4,http://next/,t,a,s,,\n";

	memset(a, 'a', 65536);
	memset(&o, 0, sizeof(o));
	o.on_record = tr_rec;
	o.on_diag = tr_diag;
	o.ctx = &t;
	rss0 = maxrss_kb();
	rd = lirs_reader_new(&o);
	rc |= lirs_reader_feed(rd, head, sizeof(head) - 1);
	for (i = 0; i < 160; i++)
		rc |= lirs_reader_feed(rd, a, 65536);
	rc |= lirs_reader_feed(rd, next, sizeof(next) - 1);
	rc |= lirs_reader_finish(rd);
	IS_INT(rc, 0, "10 MB line: not fatal");
	IS_INT(t.ndiag[LIRS_R_LINE_TOO_LONG], 1, "10 MB line: line-too-long reported once");
	IS_INT(t.nrecs, 1, "10 MB line: the next record is still read");
	if (t.nrecs == 1) {
		IS_STR(t.recs[0].url, "http://next/", "10 MB line: next record intact");
		IS_INT(t.recs[0].line, 2, "10 MB line: line numbers go on");
	}
	IS_INT(lirs_reader_get_stats(rd)->skipped, 1, "10 MB line: counted as skipped");
	OK(maxrss_kb() - rss0 < 6 * 1024, "10 MB line: memory bounded (%ld KiB more)", maxrss_kb() - rss0);
	lirs_reader_free(rd);
	tr_free(&t);
	free(a);

	/* the limit is an option; a line of exactly max_line bytes is fine */
	tr_read_opts(&t, S("LIRS,1,2,3,4,http://a/,t,a,s,,\nLIRS,1,2,3,4,http://bb/,t,a,s,,\n"), 1, 0, 30);
	IS_INT(t.nrecs, 1, "max_line: a line of max_line bytes is kept, a longer one skipped");
	IS_INT(t.ndiag[LIRS_R_LINE_TOO_LONG], 1, "max_line: line-too-long");
	OK(strstr(t.text.data, "diag 2:0: line-too-long skipped") != NULL, "max_line: diag on line 2, skipped");
	tr_free(&t);
}

/*
 * A line over max_line ends like any other line: at LF, CRLF or a lone CR,
 * wherever the chunks were cut (the skip used to stop at LF only, so a
 * lone CR swallowed the next record when the long line crossed a chunk).
 */
static void test_long_line_ends(void)
{
	struct tr whole = { 0 }, t = { 0 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,a,s,e,\r"
		"LIRS,1,2,3,4,http://b/,t,a,s,e,\n"
		"LIRS,1,2,3,4,http://c/,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,a,s,e,\r\n"
		"LIRS,1,2,3,4,http://d/,t,a,s,e,\r"
		"LIRS,1,2,3,4,http://e/,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,a,s,e,\n"
		"LIRS,1,2,3,4,http://f/,t,a,s,e,\n"
		"LIRS,1,2,3,4,http://g/,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,a,s,e,\r";
	size_t chunks[] = { 1, 2, 3, 7, 40, 64 }, i;
	int same = 1;

	tr_read_opts(&whole, S(in), 0, 0, 40);
	IS_INT(whole.rc, 0, "long line ends: reads");
	IS_INT(whole.nrecs, 3, "long line ends: the records after CR, CRLF and LF are read");
	IS_INT(whole.ndiag[LIRS_R_LINE_TOO_LONG], 4, "long line ends: four lines too long");
	IS_INT(whole.ndiag[LIRS_R_LONE_CR], 3, "long line ends: three lone CRs reported");
	IS_INT(whole.st.lines, 7, "long line ends: seven lines");
	if (whole.nrecs == 3) {
		IS_STR(whole.recs[0].url, "http://b/", "long line ends: record after a lone CR");
		IS_INT(whole.recs[0].line, 2, "long line ends: its line number");
		IS_INT(whole.recs[2].line, 6, "long line ends: line numbers go on");
	}
	OK(strstr(whole.text.data, "diag 1:0: lone-cr skipped") != NULL,
	   "long line ends: lone CR reported on the long line");
	OK(strstr(whole.text.data, "diag 7:0: lone-cr skipped") != NULL,
	   "long line ends: lone CR at the end of input");
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		tr_read_opts(&t, S(in), chunks[i], 0, 40);
		if (strcmp(t.text.data, whole.text.data) != 0) {
			same = 0;
			printf("#   %zu-byte chunks differ\n", chunks[i]);
		}
		tr_free(&t);
	}
	OK(same, "long line ends: every chunk size gives the same records and diagnostics");
	tr_free(&whole);
}

/* r->col[]: where each field starts, in characters, whatever the encoding. */
static void test_columns(void)
{
	struct tr t = { 0 };
	lb_buf big = LB_BUF_INIT;
	static const unsigned long want[9] = { 6, 8, 10, 12, 14, 24, 27, 29, 31 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,\xb4\xc1\xbb\xfa,a,s,e,\n"          /* EUC-JP 漢字 */
		"LIRS,1,2,3,4,http://b/,\xe6\xbc\xa2\xe5\xad\x97,a,s,e,\n" /* UTF-8 漢字 */
		"LIRS,1,2,3,4,http://c/,ab,a,s,e,\n"                        /* ASCII */
		"LIRS,1,2,3,4,http://d/,a\0,a,s,e,\n"                       /* NUL -> U+FFFD */
		"LIRS,1,2,3,4,http://e/,\\,,a,s,\n";                        /* escape; 8 fields */
	size_t i, k;
	int good;

	read_both(&t, "columns", S(in));
	IS_INT(t.nrecs, 5, "columns: five records");
	if (t.nrecs != 5)
		goto out;
	/* t.recs are lirs_record_copy() copies: the columns travel with them */
	for (k = 0; k < 4; k++) {
		good = 1;
		for (i = 0; i < 9; i++)
			if (t.recs[k].col[i] != want[i]) {
				good = 0;
				printf("#   field %zu: column %lu, want %lu\n", i, t.recs[k].col[i], want[i]);
			}
		OK(good, "columns: record %zu: every field's column, in characters", k + 1);
	}
	IS_INT(t.recs[4].col[6], 27, "columns: an escape counts as written");
	IS_INT(t.recs[4].col[8], 0, "columns: a missing extension has no column");
	tr_free(&t);

	/* a 3000-character title (9000 bytes, more words than a count lane holds)
	 * with an unknown escape before a kanji */
	lb_buf_adds(&big, "LIRS,1,2,3,4,http://a/,\\\xe6\xbc\xa2");
	for (i = 0; i < 2998; i++)
		lb_buf_adds(&big, "\xe3\x81\x82");
	lb_buf_adds(&big, ",a,s,e,\n");
	tr_read(&t, big.data, big.len, 0);
	IS_INT(t.nrecs, 1, "columns: long title read");
	if (t.nrecs == 1)
		IS_INT(t.recs[0].col[6], 24 + 3000 + 1, "columns: counted across a long field");
out:
	tr_free(&t);
	lb_buf_release(&big);
}

static void test_backslashes(void)
{
	struct tr t = { 0 };
	lb_buf in = LB_BUF_INIT;
	double t0;
	int i;

	lb_buf_adds(&in, "LIRS,1,2,3,4,http://a/,");
	for (i = 0; i < 100000; i++)
		lb_buf_addc(&in, '\\');
	lb_buf_adds(&in, ",a,s,");
	for (i = 0; i < 100000; i++)
		lb_buf_adds(&in, "\\q");
	lb_buf_adds(&in, ",\n");
	t0 = now();
	tr_read(&t, in.data, in.len, 0);
	IS_INT(t.nrecs, 1, "100000 backslashes: read");
	if (t.nrecs == 1) {
		IS_INT(strlen(t.recs[0].title), 50000, "100000 backslashes: 50000 in the title");
		IS_INT(strlen(t.recs[0].extension), 200000, "100000 unknown escapes: kept");
	}
	OK(t.ndiag[LIRS_R_UNKNOWN_ESCAPE] <= 11, "100000 unknown escapes: a bounded number of diagnostics (%lu)",
	   t.ndiag[LIRS_R_UNKNOWN_ESCAPE]);
	OK(now() - t0 < 2.0, "100000 backslashes: linear time");
	tr_free(&t);
	tr_read(&t, in.data, in.len, 7);
	IS_INT(t.nrecs, 1, "100000 backslashes: 7-byte chunks");
	tr_free(&t);
	lb_buf_release(&in);
}

static void test_duplicates_and_stop(void)
{
	struct tr t = { 0 };
	static const char in[] =
		"LIRS,1,2,3,4,http://a/,t,a,s,,\n"
		"LIRS,1,2,3,4,http://a/,t,a,s,,\n"
		"LIRS,1,2,3,4,http://a/,t,a,s,,\n";
	lirs_reader_opts o;
	lirs_reader *rd;

	read_both(&t, "duplicates", S(in));
	IS_INT(t.nrecs, 3, "duplicate lines: all delivered (duplicate-url is a record check)");
	tr_free(&t);

	t.stop_after = 1;
	memset(&o, 0, sizeof(o));
	o.on_record = tr_rec;
	o.ctx = &t;
	rd = lirs_reader_new(&o);
	IS_INT(lirs_reader_feed(rd, S(in)), LB_ESTOP, "stop: on_record nonzero gives LB_ESTOP");
	IS_INT(t.nrecs, 1, "stop: no record after the stop");
	IS_INT(lirs_reader_feed(rd, S(in)), LB_ESTOP, "stop: sticky on feed");
	IS_INT(lirs_reader_finish(rd), LB_ESTOP, "stop: sticky on finish");
	lirs_reader_free(rd);
	tr_free(&t);

	rd = lirs_reader_new(&o);
	IS_INT(lirs_reader_finish(rd), 0, "finish: empty input");
	IS_INT(lirs_reader_feed(rd, "x", 1), LB_EINVAL, "feed after finish: LB_EINVAL");
	lirs_reader_free(rd);
}

/* Random chunkings of the corpus, plain and gzip, give one transcript. */
static void test_chunking(void)
{
	struct tr a = { 0 }, b = { 0 };
	lb_buf lirs_gz = LB_BUF_INIT;
	size_t chunks[] = { 1, 2, 3, 5, 7, 13, 64 };
	size_t i;
	int same = 1;

	gzip_add(&lirs_gz, corpus, sizeof(corpus) - 1, 6);
	tr_read(&a, lirs_gz.data, lirs_gz.len, 0);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		tr_read(&b, lirs_gz.data, lirs_gz.len, chunks[i]);
		same &= strcmp(a.text.data, b.text.data) == 0;
		tr_free(&b);
		tr_read(&b, corpus, sizeof(corpus) - 1, chunks[i]);
		tr_free(&b);
	}
	OK(same, "chunking: gzip input gives the same records at every chunk size");
	tr_free(&a);
	lb_buf_release(&lirs_gz);
}

int main(void)
{
	TAP_PLAN(196);
	test_spec_example();
	test_escapes();
	test_line_ends();
	test_comments();
	test_field_counts();
	test_numbers();
	test_charsets();
	test_gzip();
	test_bomb();
	test_empty();
	test_unescaped_comma();
	test_html();
	test_shift_jis();
	test_long_line();
	test_long_line_ends();
	test_columns();
	test_backslashes();
	test_duplicates_and_stop();
	test_chunking();
	TAP_DONE();
}
