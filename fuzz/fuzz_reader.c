/*
 * fuzz_reader.c: libFuzzer target for the LIRS reader (and, through every
 * record it delivers, the writer).  The first input byte picks the chunk
 * size, so CRs, escapes and gzip headers split across feeds get fuzzed;
 * the second picks a small or the default line limit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lirs.h"

static int null_sink(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static int on_record(void *ctx, const lirs_record *r)
{
	lirs_record c;

	if (lirs_record_copy(&c, r) == 0) {
		lirs_writer_add(ctx, &c);
		lirs_record_release(&c);
	}
	return 0;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	(void)ctx;
	fuzz_touch_diag(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[8] = { 1, 2, 3, 7, 64, 4096, 65536, (size_t)-1 };
	lirs_reader_opts o;
	lirs_writer_opts wo;
	lirs_reader *rd;
	lirs_writer *w;
	size_t chunk;

	if (size < 2)
		return 0;
	chunk = chunks[data[0] & 7];
	memset(&wo, 0, sizeof(wo));
	wo.sink = null_sink;
	wo.utf8 = data[0] >> 7;
	wo.no_gzip = (data[0] >> 6) & 1;
	w = lirs_writer_new(&wo);
	memset(&o, 0, sizeof(o));
	o.max_line = data[1] & 1 ? 0 : 64 + data[1];
	o.max_decoded = data[1] & 2 ? 0 : 1 << 20;
	o.on_record = on_record;
	o.on_diag = on_diag;
	o.ctx = w;
	data += 2;
	size -= 2;
	rd = lirs_reader_new(&o);
	if (rd && w) {
		fuzz_feed(rd, data, size, chunk);
		lirs_writer_finish(w);
	}
	lirs_reader_free(rd);
	lirs_writer_free(w);
	return 0;
}
