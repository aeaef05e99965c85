/*
 * fuzz_validate.c: libFuzzer target for the record checker (validate.c)
 * behind the reader: duplicate-url's table with the hash cut short so that
 * the exact key comparison runs all the time (keys in memory, or in a
 * temporary file), backslash-shift and the layout.  The first byte picks
 * the chunk size and the key store, the second the hash bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lirs.h"

static lirs_checker *chk;

static int on_record(void *ctx, const lirs_record *r)
{
	(void)ctx;
	lirs_checker_check(chk, r);
	return 0;
}

static void on_diag(void *ctx, const lirs_diag *d)
{
	const char *p;

	(void)ctx;
	fuzz_touch_diag(d);
	/* A duplicate names an earlier line, never its own or a later one. */
	if (d->rule == LIRS_R_DUPLICATE_URL && (p = strstr(d->message, "appears on line ")) &&
	    strtoul(p + 16, NULL, 10) >= d->line)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[4] = { 1, 7, 4096, (size_t)-1 };
	lirs_reader_opts o;
	lirs_check_opts co;
	lirs_layout l;
	lirs_reader *rd;
	FILE *tmp = NULL;
	size_t chunk;

	if (size < 2)
		return 0;
	chunk = chunks[data[0] & 3];
	memset(&co, 0, sizeof co);
	co.now = 1700000000;
	co.on_diag = on_diag;
	co.test_hash_bits = data[1] & 63;
	if ((data[0] & 4) && (tmp = tmpfile())) {
		co.spill = 1;
		co.spill_fd = fileno(tmp);
	}
	chk = lirs_checker_new(&co);
	memset(&o, 0, sizeof o);
	o.on_record = on_record;
	o.on_diag = on_diag;
	o.max_decoded = 1 << 20;
	data += 2;
	size -= 2;
	rd = lirs_reader_new(&o);
	if (rd && chk) {
		fuzz_feed(rd, data, size, chunk);
		lirs_checker_finish(chk);
		lirs_checker_layout(chk, &l);
		if (l.nusual > 2 || (l.name && !l.records))
			abort();
	}
	lirs_reader_free(rd);
	lirs_checker_free(chk);
	if (tmp)
		fclose(tmp);
	return 0;
}
