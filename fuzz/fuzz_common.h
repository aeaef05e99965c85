/*
 * fuzz_common.h: what the reader's fuzz targets (fuzz_reader.c,
 * fuzz_validate.c, fuzz_di.c) share: feeding the input in chunks and
 * touching every diagnostic.  Static functions, so each target stays one
 * translation unit (fuzz/run.sh builds fuzz/fuzz_*.c one by one).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "lirs.h"

/* Feeds LEN bytes CHUNK at a time, so CRs, escapes and gzip headers split
 * across feeds get fuzzed, then finishes when every feed succeeded.
 * Returns the first feed's error, or 0. */
static int fuzz_feed(lirs_reader *rd, const void *p, size_t len, size_t chunk)
{
	const char *s = p;
	size_t off = 0, n;
	int rc = 0;

	while (off < len && rc == 0) {
		n = len - off < chunk ? len - off : chunk;
		rc = lirs_reader_feed(rd, s + off, n);
		off += n;
	}
	if (rc == 0)
		lirs_reader_finish(rd);
	return rc;
}

/* Touches every string of D: ASan finds dangling or unterminated ones. */
static void fuzz_touch_diag(const lirs_diag *d)
{
	if (strlen(d->message) == (size_t)-1 || (d->field && strlen(d->field) == (size_t)-1))
		abort();
}

#endif
