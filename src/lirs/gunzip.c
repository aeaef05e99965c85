/*
 * gunzip.c: gz.c's streaming gunzip turned into a pull reader
 * (lirs_gunzip.h): the input is fed LIRS_GUNZIP_STEP bytes at a time
 * and what it decodes waits in one buffer until the caller takes it.
 */
#include "lirs_gunzip.h"

#include <stdlib.h>
#include <string.h>

#include "gz.h"
#include "lb_buf.h"
#include "lirs.h"

struct lirs_gunzip {
	lirs_gz gz;
	lb_buf pending;          /* decoded, not yet read */
	size_t off;              /* read up to here */
	int finished;            /* lirs_gz_finish() called */
	int err;                 /* sticky */
};

static int take(void *ctx, const char *buf, size_t len)
{
	lirs_gunzip *g = ctx;

	return lb_buf_add(&g->pending, buf, len) < 0 ? LB_ENOMEM : 0;
}

lirs_gunzip *lirs_gunzip_new(uint64_t max_decoded)
{
	lirs_gunzip *g = calloc(1, sizeof *g);

	if (!g)
		return NULL;
	lb_buf_init(&g->pending);
	if (lirs_gz_init(&g->gz, max_decoded ? max_decoded : LIRS_DEFAULT_MAX_DECODED, take, NULL,
			 g) < 0) {
		free(g);
		return NULL;
	}
	return g;
}

/* Feeds input until something decoded waits, or the input ends. */
static int fill(lirs_gunzip *g, const char **in, size_t *len)
{
	int rc = 0;

	lb_buf_reset(&g->pending);
	g->off = 0;
	while (rc == 0 && g->pending.len == 0 && !g->finished) {
		size_t n = *len < LIRS_GUNZIP_STEP ? *len : LIRS_GUNZIP_STEP;

		if (n == 0) {
			g->finished = 1;
			rc = lirs_gz_finish(&g->gz);
			break;
		}
		rc = lirs_gz_feed(&g->gz, *in, n);
		*in += n;
		*len -= n;
	}
	return rc;
}

int64_t lirs_gunzip_read(lirs_gunzip *g, const char **in, size_t *len, char *out, size_t cap)
{
	size_t n;
	int rc;

	if (g->err)
		return g->err;
	if (g->off >= g->pending.len && (rc = fill(g, in, len)) < 0)
		return g->err = rc;
	n = g->pending.len - g->off;
	if (n > cap)
		n = cap;
	memcpy(out, g->pending.data + g->off, n);
	g->off += n;
	return (int64_t)n;
}

int lirs_gunzip_was_gzip(const lirs_gunzip *g)
{
	return lirs_gz_is_gzip(&g->gz);
}

uint64_t lirs_gunzip_total(const lirs_gunzip *g)
{
	return g->gz.total;
}

void lirs_gunzip_free(lirs_gunzip *g)
{
	if (!g)
		return;
	lirs_gz_release(&g->gz);
	lb_buf_release(&g->pending);
	free(g);
}
