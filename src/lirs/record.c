/*
 * record.c: owning copies of records (the reader only lends them).
 */
#include "lirs.h"

#include <stdlib.h>
#include <string.h>

static char *dup(const char *s)
{
	return strdup(s ? s : "");
}

int lirs_record_copy(lirs_record *dst, const lirs_record *src)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->last_modified = src->last_modified;
	dst->last_detected = src->last_detected;
	dst->tz_offset = src->tz_offset;
	dst->content_length = src->content_length;
	dst->line = src->line;
	memcpy(dst->col, src->col, sizeof(dst->col));
	dst->nfields = src->nfields;
	dst->trailing_comma = src->trailing_comma;
	dst->bs_field = src->bs_field;
	dst->bs_col = src->bs_col;
	dst->bs_comma = src->bs_comma;
	dst->bs_sep = src->bs_sep;
	if (!(dst->url = dup(src->url)) || !(dst->title = dup(src->title)) ||
	    !(dst->author = dup(src->author)) || !(dst->source_url = dup(src->source_url)) ||
	    !(dst->extension = dup(src->extension)))
		goto fail;
	if (src->nextra) {
		if (!(dst->extra = calloc(src->nextra, sizeof(*dst->extra))))
			goto fail;
		dst->nextra = src->nextra;
		for (i = 0; i < src->nextra; i++)
			if (!(dst->extra[i] = dup(src->extra[i])))
				goto fail;
	}
	return 0;
fail:
	lirs_record_release(dst);
	return LB_ENOMEM;
}

void lirs_record_release(lirs_record *r)
{
	size_t i;

	free(r->url);
	free(r->title);
	free(r->author);
	free(r->source_url);
	free(r->extension);
	for (i = 0; i < r->nextra; i++)
		free(r->extra[i]);
	free(r->extra);
	memset(r, 0, sizeof(*r));
}

/* NATSU-style: 4 or more fields after the 9th (tama writes exactly 4). */
const char *lirs_record_checked_url(const lirs_record *r)
{
	return r->nextra >= 4 ? r->extension : NULL;
}

const char *lirs_record_method(const lirs_record *r)
{
	return r->nextra >= 4 ? r->extra[3] : NULL;
}
