/*
 * taught.c: noise the operator taught, as runs of segments (ant_taught.h).
 */
#include "ant_taught.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_error.h"

/* One field of a line copied into dst (n bytes), tabs and newlines as
 * spaces; from the end of src when tail (a path's end says most). */
static void field(char *dst, size_t n, const char *src, size_t len, int tail)
{
	size_t k;

	if (len > n - 1) {
		if (tail) {
			src += len - (n - 1);
			len = n - 1;
			/* not from the middle of a UTF-8 character */
			while (len && ((unsigned char)*src & 0xC0) == 0x80)
				src++, len--;
		} else {
			len = n - 1;
			while (len && ((unsigned char)src[len] & 0xC0) == 0x80)
				len--;
		}
	}
	for (k = 0; k < len; k++)
		dst[k] = src[k] == '\t' || src[k] == '\n' || src[k] == '\r' ? ' ' : src[k];
	dst[k] = '\0';
}

static int parse_line(const char *s, size_t len, ant_taught_run *r)
{
	unsigned long b, a;
	unsigned n;
	int used = 0;
	const char *t1, *t2;
	char head[64];

	t1 = memchr(s, '\t', len);
	if (!t1 || (size_t)(t1 - s) >= sizeof head)
		return 0;
	memcpy(head, s, (size_t)(t1 - s));
	head[t1 - s] = '\0';
	if (sscanf(head, "%8lx %8lx %u%n", &b, &a, &n, &used) != 3 || head[used] || n < 1 ||
	    n > ANT_TAUGHT_RUN_SEGS)
		return 0;
	r->block = (uint32_t)b;
	r->anchor = (uint32_t)a;
	r->nseg = n;
	t1++;
	t2 = memchr(t1, '\t', len - (size_t)(t1 - s));
	if (!t2)
		t2 = s + len;
	field(r->path, sizeof r->path, t1, (size_t)(t2 - t1), 1);
	r->sample[0] = '\0';
	if (t2 < s + len)
		field(r->sample, sizeof r->sample, t2 + 1, len - (size_t)(t2 + 1 - s), 0);
	return 1;
}

size_t ant_taught_parse(const char *text, ant_taught_run *out, size_t max)
{
	size_t n = 0;

	while (text && *text && n < max) {
		const char *e = strchr(text, '\n');
		size_t len = e ? (size_t)(e - text) : strlen(text);

		n += parse_line(text, len, &out[n]);
		text += len + (e != NULL);
	}
	return n;
}

/* The anchor of seg[i]: the norm of the nearest segment before it in
 * the same block (the block's text before the run: unchanged by edits in
 * other parts of the page), 0 when it is the block's first. */
static uint32_t anchor_of(const ant_page_info *info, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (info->seg[k].block == info->seg[i].block)
			return info->seg[k].norm;
	return 0;
}

static int format(lb_buf *out, const ant_taught_run *r)
{
	char head[40];

	snprintf(head, sizeof head, "%08lx %08lx %u\t", (unsigned long)r->block, (unsigned long)r->anchor,
		 r->nseg);
	if (lb_buf_adds(out, head) < 0 || lb_buf_adds(out, r->path) < 0 || lb_buf_addc(out, '\t') < 0 ||
	    lb_buf_adds(out, r->sample) < 0 || lb_buf_addc(out, '\n') < 0)
		return LB_ENOMEM;
	return 0;
}

int ant_taught_news(const ant_page_info *info, const unsigned char *pick, lb_buf *out)
{
	unsigned char *one = malloc(info->nseg ? info->nseg : 1);
	size_t runs = 0;

	if (!one)
		return LB_ENOMEM;
	for (size_t i = 0; i < info->nseg && runs < ANT_TAUGHT_NEWS_RUNS; i++) {
		ant_taught_run r;
		const char *path = ant_page_seg_path(info, i);
		char *text;
		size_t k = i;

		if (!pick[i])
			continue;
		memset(one, 0, info->nseg);
		while (k < info->nseg && pick[k] && k - i < ANT_TAUGHT_RUN_SEGS)
			one[k++] = 1;
		r.block = info->seg[i].block;
		r.anchor = anchor_of(info, i);
		r.nseg = (unsigned)(k - i);
		field(r.path, sizeof r.path, path, strlen(path), 1);
		text = ant_page_excerpt(info, one, ANT_TAUGHT_NEWS_SAMPLE);
		field(r.sample, sizeof r.sample, text ? text : "", text ? strlen(text) : 0, 0);
		free(text);
		if (format(out, &r) < 0 || out->len > ANT_TAUGHT_TEXT_MAX) {
			free(one);
			return out->len > ANT_TAUGHT_TEXT_MAX ? 0 : LB_ENOMEM;
		}
		runs++;
		i = k - 1;
	}
	free(one);
	return 0;
}

size_t ant_taught_mark(const ant_page_info *info, const char *taught, unsigned char *mark)
{
	ant_taught_run r[ANT_TAUGHT_MAX];
	size_t n = ant_taught_parse(taught, r, ANT_TAUGHT_MAX), marked = 0;

	memset(mark, 0, info->nseg);
	for (size_t i = 0; n && i < info->nseg; i++) {
		uint32_t before = 0;
		int known = 0;

		for (size_t j = 0; j < n; j++) {
			if (r[j].block != info->seg[i].block)
				continue;
			if (!known)
				before = anchor_of(info, i), known = 1;
			if (r[j].anchor != before)
				continue;
			for (size_t k = i; k < info->nseg && k < i + r[j].nseg; k++)
				mark[k] = 1;
		}
	}
	for (size_t i = 0; i < info->nseg; i++)
		marked += mark[i];
	return marked;
}

int ant_taught_strip(ant_page_info *info, const char *taught)
{
	unsigned char *mark;
	int parallel = info->segs && info->nsegs == info->nseg;
	size_t k = 0, n;

	if (!taught || !*taught || !info->nseg)
		return 0;
	if (!(mark = malloc(info->nseg)))
		return LB_ENOMEM;
	n = ant_taught_mark(info, taught, mark);
	for (size_t i = 0; n && i < info->nseg; i++) {
		if (mark[i])
			continue;
		info->seg[k] = info->seg[i];
		if (parallel)
			info->segs[k] = info->segs[i];
		k++;
	}
	if (n) {
		info->nseg = k;
		if (parallel)
			info->nsegs = k;
	}
	free(mark);
	return (int)n;
}

char *ant_taught_merge(const char *taught, const char *news, size_t *added)
{
	ant_taught_run *r = malloc(2 * ANT_TAUGHT_MAX * sizeof *r);
	size_t n, m, first;
	lb_buf out = LB_BUF_INIT;
	char *res = NULL;

	*added = 0;
	if (!r)
		return NULL;
	n = ant_taught_parse(taught, r, ANT_TAUGHT_MAX);
	m = ant_taught_parse(news, r + n, ANT_TAUGHT_MAX);
	for (size_t j = n; j < n + m; j++) {
		int dup = 0;

		for (size_t i = 0; i < j && !dup; i++)
			dup = r[i].block == r[j].block && r[i].anchor == r[j].anchor;
		if (dup) {
			r[j].nseg = 0;   /* dropped below */
			continue;
		}
		(*added)++;
	}
	/* the newest ANT_TAUGHT_MAX: the oldest taught go first */
	first = n + *added > ANT_TAUGHT_MAX ? n + *added - ANT_TAUGHT_MAX : 0;
	for (size_t i = first; i < n + m; i++)
		if (r[i].nseg && format(&out, &r[i]) < 0)
			goto done;
	res = lb_buf_detach(&out, NULL);
done:
	lb_buf_release(&out);
	free(r);
	return res;
}
