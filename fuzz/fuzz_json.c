/*
 * fuzz_json: libFuzzer target for the JSON Lines record parser that
 * `lirs pack` uses, and a property over the codec: a record parsed from
 * JSON, written as LIRS (EUC-JP) and read back, is the same record, once
 * the writer's documented normalisations are applied (CR/LF in a field
 * become a space; a blank url/title/author/source_url is written as "0",
 * which reads back blank).  Records with characters EUC-JP cannot hold
 * exactly (replaced, approximated, or vendor characters substituted by
 * readable forms) are not compared: the writer counts those and warns.
 */
#include "lirs_jsonw.h"
#include "lirs.h"
#include "lb_buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int sink(void *ctx, const void *p, size_t n)
{
	return lb_buf_add(ctx, p, n);
}

static int got_rec(void *ctx, const lirs_record *r)
{
	lirs_record *out = ctx;

	if (!out->url)
		lirs_record_copy(out, r);
	return 0;
}

/* What the writer makes of a text field, as the reader will give it back. */
static char *expect(const char *s)
{
	char *e = strdup(s), *p;

	for (p = e; *p; p++)
		if (*p == '\r' || *p == '\n')
			*p = ' ';
	if (strcmp(e, "0") == 0)
		e[0] = '\0';
	return e;
}

static void same(const char *a, const char *b)
{
	char *e = expect(a);

	if (strcmp(e, b) != 0)
		abort();
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lirs_json_record jr;
	lirs_writer_opts wo = { 0 };
	lirs_reader_opts ro = { 0 };
	lirs_record back = { 0 };
	lirs_writer *w;
	lirs_reader *rd;
	lb_buf out = LB_BUF_INIT;
	size_t i;

	if (lirs_record_from_json(&jr, (const char *)data, size, NULL) < 0)
		return 0;
	wo.no_gzip = 1;
	wo.sink = sink;
	wo.ctx = &out;
	if (!(w = lirs_writer_new(&wo)))
		abort();
	if (lirs_writer_add(w, &jr.rec) != 0 || lirs_writer_finish(w) != 0)
		abort();
	/* substituted: vendor characters written as their readable forms (lirs(5)) */
	if (lirs_writer_replaced(w) == 0 && lirs_writer_approximated(w) == 0 &&
	    lirs_writer_substituted(w) == 0) {
		ro.on_record = got_rec;
		ro.ctx = &back;
		if (!(rd = lirs_reader_new(&ro)))
			abort();
		lirs_reader_feed(rd, out.data, out.len);
		lirs_reader_finish(rd);
		lirs_reader_free(rd);
		/* Lines longer than the reader's limit are skipped by design. */
		if (back.url) {
			if (back.last_modified != jr.rec.last_modified ||
			    back.last_detected != jr.rec.last_detected ||
			    back.tz_offset != jr.rec.tz_offset ||
			    back.content_length != jr.rec.content_length)
				abort();
			same(jr.rec.url, back.url);
			same(jr.rec.title, back.title);
			same(jr.rec.author, back.author);
			same(jr.rec.source_url, back.source_url);
			if (back.nextra != jr.rec.nextra)
				abort();
			for (i = 0; i < back.nextra; i++) {
				char *e = expect(jr.rec.extra[i]);
				/* extras are kept as written: "0" stays "0" */
				if (strcmp(jr.rec.extra[i], "0") == 0)
					strcpy(e, "0");
				if (strcmp(e, back.extra[i]) != 0)
					abort();
				free(e);
			}
			lirs_record_release(&back);
		}
	}
	lirs_writer_free(w);
	lirs_json_record_release(&jr);
	lb_buf_release(&out);
	return 0;
}
