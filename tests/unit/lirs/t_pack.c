/*
 * t_pack.c: lirs_pack() (lirs_pack.h): JSON Lines through the parser
 * threads into a writer, in order; skipped lines reported in line order;
 * a failing sink and an unreadable input are errors with their errno.
 */
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_buf.h"
#include "lirs.h"
#include "lirs_pack.h"

/* Skipped lines as "LINE:COL:MSG\n". */
static void on_bad(void *ctx, unsigned long line, unsigned long col, const char *msg)
{
	lb_buf_addf(ctx, "%lu:%lu:%s\n", line, col, msg);
}

static int buf_sink(void *ctx, const void *buf, size_t len)
{
	return lb_buf_add(ctx, buf, len);
}

static int full_sink(void *ctx, const void *buf, size_t len)
{
	errno = ENOSPC;
	return -1;
}

/* Packs text (plain UTF-8 LIRS) into out; the lirs_pack() code. */
static int pack_text(const char *text, lb_buf *out, lb_buf *bad, lirs_pack_stats *st,
		     lb_error *err)
{
	lirs_writer_opts wo = { .utf8 = 1, .no_gzip = 1, .sink = buf_sink, .ctx = out };
	lirs_pack_opts po = { .on_bad = on_bad, .ctx = bad };
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	lirs_writer *w = lirs_writer_new(&wo);
	int rc = lirs_pack(in, w, &po, st, err);

	if (rc == 0)
		lirs_writer_finish(w);
	lirs_writer_free(w);
	fclose(in);
	return rc;
}

static void test_lines(void)
{
	static const char in[] =
		"\xef\xbb\xbf{\"last_modified\":1000,\"url\":\"http://a/\",\"title\":\"A, \\\\ b\"}\n"
		"\n"
		"   \t\r\n"
		"{\"url\":1}\n"
		"not json\n"
		"{\"url\":\"http://b/\",\"author\":\"\xe3\x81\x82\"}";   /* no final LF */
	lb_buf out = LB_BUF_INIT, bad = LB_BUF_INIT;
	lirs_pack_stats st = { .records = 99, .bad = 99, .untimed = 99 };
	lb_error err = LB_ERROR_INIT;

	IS_INT(pack_text(in, &out, &bad, &st, &err), 0, "skipped lines are no failure");
	IS_STR(out.data, "LIRS,1000,0,0,0,http://a/,A\\, \\\\ b,0,0,,\n"
	       "LIRS,0,0,0,0,http://b/,0,\xe3\x81\x82,0,,\n",
	       "records in order, escaped, the BOM and blank lines dropped");
	IS_INT(st.records, 2, "two records");
	IS_INT(st.bad, 2, "two lines skipped");
	OK(strncmp(bad.data, "4:", 2) == 0 && strstr(bad.data, "'url' is not a string") &&
	   strstr(bad.data, "\n5:"), "skipped lines reported in order with their numbers");
	OK(strstr(bad.data, "\n5:") && strstr(bad.data, ":line is not JSON\n"), "not JSON: said so, with its line");
	IS_INT(st.untimed, 2, "both records lack a time (last_detected 0, both 0)");
	IS_INT(st.untimed_line[0] * 10 + st.untimed_line[1], 16, "... on lines 1 and 6");
	lb_buf_release(&out);
	lb_buf_release(&bad);
}

/* More lines than the ring holds (4 slots of 256): order is kept. */
static void test_many(void)
{
	enum { N = 5000 };
	lb_buf in = LB_BUF_INIT, out = LB_BUF_INIT, bad = LB_BUF_INIT, want = LB_BUF_INIT;
	lirs_pack_stats st;
	lb_error err = LB_ERROR_INIT;

	for (int i = 1; i <= N; i++) {
		if (i % 1000 == 0)
			lb_buf_adds(&in, "{\"url\":\"broken\n");
		else
			lb_buf_addf(&in, "{\"last_modified\":%d,\"url\":\"http://x/%d\"}\n", i, i);
	}
	for (int i = 1; i <= N; i++)
		if (i % 1000)
			lb_buf_addf(&want, "LIRS,%d,0,0,0,http://x/%d,0,0,0,,\n", i, i);
	IS_INT(pack_text(in.data, &out, &bad, &st, &err), 0, "5,000 lines packed");
	IS_INT(st.records, N - 5, "every good line written");
	IS_INT(st.bad, 5, "every broken line counted");
	OK(out.len == want.len && memcmp(out.data, want.data, out.len) == 0,
	   "records in input order across batches");
	OK(strncmp(bad.data, "1000:", 5) == 0 && strstr(bad.data, "\n5000:"),
	   "skipped lines numbered across batches");
	lb_buf_release(&in);
	lb_buf_release(&out);
	lb_buf_release(&bad);
	lb_buf_release(&want);
}

static void test_sink_fails(void)
{
	lb_buf in = LB_BUF_INIT;
	lirs_writer_opts wo = { .utf8 = 1, .no_gzip = 1, .sink = full_sink };
	lirs_pack_stats st;
	lb_error err = LB_ERROR_INIT;
	FILE *fp;
	lirs_writer *w = lirs_writer_new(&wo);
	int rc;

	for (int i = 0; i < 20000; i++)
		lb_buf_addf(&in, "{\"url\":\"http://example.com/a/long/path/%d\",\"title\":\"%0200d\"}\n",
			    i, i);
	fp = fmemopen(in.data, in.len, "r");
	rc = lirs_pack(fp, w, NULL, &st, &err);
	IS_INT(rc, LB_ESINK, "a failing sink stops the packing");
	IS_INT(err.code, LB_ESINK, "err holds the code");
	IS_INT(err.sys, ENOSPC, "err holds the sink's errno");
	OK(st.records < 20000, "nothing more is added after the failure");
	fclose(fp);
	lirs_writer_free(w);
	lb_buf_release(&in);
}

static void test_read_fails(void)
{
	lb_buf out = LB_BUF_INIT;
	lirs_writer_opts wo = { .utf8 = 1, .no_gzip = 1, .sink = buf_sink, .ctx = &out };
	lb_error err = LB_ERROR_INIT;
	lirs_writer *w = lirs_writer_new(&wo);
	FILE *dir = fopen("/", "r");    /* opens; reading it fails with EISDIR */

	OK(dir != NULL, "a directory opened as a stream");
	if (dir) {
		IS_INT(lirs_pack(dir, w, NULL, NULL, &err), LB_EIO, "a read error is LB_EIO");
		IS_INT(err.sys, EISDIR, "err holds the read's errno");
		fclose(dir);
	}
	lirs_writer_free(w);
	lb_buf_release(&out);
}

int main(void)
{
	TAP_PLAN(20);
	test_lines();
	test_many();
	test_sink_fails();
	test_read_fails();
	TAP_DONE();
}
