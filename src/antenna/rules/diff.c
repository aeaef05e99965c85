/*
 * diff.c: the line and word diff of two versions of a page's text
 * (ant_diff.h), a longest common subsequence over a bounded table.
 *
 * Why not Myers: the texts are at most ANT_PAGE_MAX_SEGMENTS lines, the
 * common head and tail are cut first, and a table of 2-byte cells whose
 * count is checked before anything is allocated makes the cost plain:
 * O(cells) time and memory, refused beyond max_cells.
 */
#include "ant_diff.h"

#include <stdlib.h>
#include <string.h>

#include "lb_error.h"

/* Two sequences compared element by element. */
struct seq2 {
	int (*eq)(const void *ctx, size_t i, size_t j);
	const void *ctx;
};

/*
 * The edit script of a[0..n) into b[0..m) (only their lengths and s->eq
 * are needed): (*ops)[0..*nops) of SAME, DEL, ADD, deletions before
 * additions at each change.  LB_ETOOBIG over max_cells, LB_ENOMEM.
 */
static int lcs_ops(size_t n, size_t m, const struct seq2 *s, size_t max_cells, char **ops, size_t *nops)
{
	size_t w = m + 1, k = 0, i = 0, j = 0;
	uint16_t *t;
	char *o;

	*ops = NULL;
	*nops = 0;
	if (n + 1 > max_cells / w)
		return LB_ETOOBIG;
	/* min(n, m) < 2^16 since n * m <= max_cells: the cells cannot overflow */
	if (!(t = calloc((n + 1) * w, sizeof *t)) || !(o = malloc(n + m + 1))) {
		free(t);
		return LB_ENOMEM;
	}
	for (size_t a = n; a-- > 0;)
		for (size_t b = m; b-- > 0;) {
			uint16_t down = t[(a + 1) * w + b], right = t[a * w + b + 1];

			t[a * w + b] = s->eq(s->ctx, a, b) ? (uint16_t)(t[(a + 1) * w + b + 1] + 1)
							   : down > right ? down : right;
		}
	while (i < n && j < m) {
		if (s->eq(s->ctx, i, j)) {
			o[k++] = ANT_DIFF_SAME;
			i++, j++;
		} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
			o[k++] = ANT_DIFF_DEL;
			i++;
		} else {
			o[k++] = ANT_DIFF_ADD;
			j++;
		}
	}
	while (i++ < n)
		o[k++] = ANT_DIFF_DEL;
	while (j++ < m)
		o[k++] = ANT_DIFF_ADD;
	free(t);
	*ops = o;
	*nops = k;
	return 0;
}

/* ---- lines -------------------------------------------------------------- */

struct lines {
	ant_diff_line *v;   /* op unused */
	uint32_t *key;
	size_t n;
};

static uint32_t fnv32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int split_lines(const char *s, size_t len, ant_diff_key_fn key, struct lines *l)
{
	size_t cnt = 0, i = 0;

	for (size_t k = 0; k < len; k++)
		cnt += s[k] == '\n';
	cnt += len && s[len - 1] != '\n';
	l->n = 0;
	l->v = malloc((cnt ? cnt : 1) * sizeof *l->v);
	l->key = malloc((cnt ? cnt : 1) * sizeof *l->key);
	if (!l->v || !l->key)
		return LB_ENOMEM;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - s) : len;

		l->v[l->n] = (ant_diff_line){ ANT_DIFF_SAME, s + i, e - i };
		l->key[l->n++] = key ? key(s + i, e - i) : fnv32(s + i, e - i);
		i = e + 1;
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->v);
	free(l->key);
}

struct line_pair {
	const struct lines *a, *b;
	size_t off;         /* the common head, cut */
	ant_diff_key_fn key;
};

static int line_eq(const void *ctx, size_t i, size_t j)
{
	const struct line_pair *p = ctx;
	const ant_diff_line *x = &p->a->v[p->off + i], *y = &p->b->v[p->off + j];

	if (p->a->key[p->off + i] != p->b->key[p->off + j])
		return 0;
	/* the key only narrows the search: lines are equal when their words
	 * are, numbers included, or a diary's new dated heading would pair
	 * with yesterday's and show as context */
	return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

/* The full script (every line, ops over all of a and b) into *all. */
static int full_script(const struct lines *a, const struct lines *b, ant_diff_key_fn key,
		       size_t max_cells, ant_diff_line **all, size_t *nall, ant_diff *out)
{
	struct line_pair lp = { a, b, 0, key };
	struct seq2 s = { line_eq, &lp };
	size_t head = 0, tail = 0, na, nb, nops, k = 0, i, j;
	char *ops;
	int rc;

	while (head < a->n && head < b->n && line_eq(&lp, head, head))
		head++;
	lp.off = 0;
	while (tail < a->n - head && tail < b->n - head) {
		size_t x = a->n - 1 - tail, y = b->n - 1 - tail;

		if (!line_eq(&lp, x, y))
			break;
		tail++;
	}
	lp.off = head;
	na = a->n - head - tail;
	nb = b->n - head - tail;
	if ((rc = lcs_ops(na, nb, &s, max_cells, &ops, &nops)) < 0)
		return rc;
	if (!(*all = malloc((head + nops + tail + 1) * sizeof **all))) {
		free(ops);
		return LB_ENOMEM;
	}
	for (i = 0; i < head; i++)
		(*all)[k++] = (ant_diff_line){ ANT_DIFF_SAME, b->v[i].s, b->v[i].len };
	i = j = head;
	for (size_t o = 0; o < nops; o++) {
		const ant_diff_line *l = ops[o] == ANT_DIFF_DEL ? &a->v[i] : &b->v[j];

		(*all)[k++] = (ant_diff_line){ ops[o], l->s, l->len };
		out->removed += ops[o] == ANT_DIFF_DEL;
		out->added += ops[o] == ANT_DIFF_ADD;
		i += ops[o] != ANT_DIFF_ADD;
		j += ops[o] != ANT_DIFF_DEL;
	}
	for (; j < b->n; j++)
		(*all)[k++] = (ant_diff_line){ ANT_DIFF_SAME, b->v[j].s, b->v[j].len };
	free(ops);
	*nall = k;
	return 0;
}

/* Only the changes and context lines around them, a GAP for each run left out. */
static int keep_context(const ant_diff_line *all, size_t n, size_t context, ant_diff *out)
{
	size_t last = (size_t)-1;   /* the last change's index, none yet */
	size_t next = 0;            /* the next change at or after k */
	int gap = 0;

	if (!(out->v = malloc((n * 2 + 1) * sizeof *out->v)))
		return LB_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		int near;

		if (next < k)
			next = k;
		while (next < n && all[next].op == ANT_DIFF_SAME)
			next++;
		if (all[k].op != ANT_DIFF_SAME)
			last = k;
		near = all[k].op != ANT_DIFF_SAME || (last != (size_t)-1 && k - last <= context) ||
		       (next < n && next - k <= context);
		if (!near) {
			gap = 1;
			continue;
		}
		if (gap)
			out->v[out->n++] = (ant_diff_line){ ANT_DIFF_GAP, "", 0 };
		gap = 0;
		out->v[out->n++] = all[k];
	}
	if (gap)
		out->v[out->n++] = (ant_diff_line){ ANT_DIFF_GAP, "", 0 };
	return 0;
}

int ant_diff_lines(const char *a, size_t alen, const char *b, size_t blen, size_t context,
		   size_t max_cells, ant_diff_key_fn key, ant_diff *out)
{
	struct lines la = { 0 }, lb = { 0 };
	ant_diff_line *all = NULL;
	size_t nall = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = split_lines(a, alen, key, &la)) == 0 && (rc = split_lines(b, blen, key, &lb)) == 0)
		rc = full_script(&la, &lb, key, max_cells, &all, &nall, out);
	if (rc == LB_ETOOBIG) {
		out->too_many = 1;
		out->removed = out->added = 0;
		rc = 0;
	} else if (rc == 0 && (out->removed || out->added)) {
		rc = keep_context(all, nall, context, out);
	}
	free(all);
	lines_free(&la);
	lines_free(&lb);
	if (rc < 0)
		ant_diff_release(out);
	return rc;
}

void ant_diff_release(ant_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof *d);
}

/* ---- words ---------------------------------------------------------------- */

struct words {
	ant_diff_line *v;   /* op unused */
	size_t n;
};

static int is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* The length of the word at s[0..n): see ant_diff_words(). */
static size_t word_len(const unsigned char *s, size_t n)
{
	size_t k = 1;

	if (is_alnum(s[0]) || s[0] == ' ' || s[0] == '\t') {
		int sp = s[0] == ' ' || s[0] == '\t';

		while (k < n && (sp ? s[k] == ' ' || s[k] == '\t' : is_alnum(s[k])))
			k++;
		return k;
	}
	/* one UTF-8 character: its continuation bytes follow (an invalid
	 * byte alone is a word of its own) */
	if (s[0] >= 0xc0)
		while (k < n && k < 4 && (s[k] & 0xc0) == 0x80)
			k++;
	return k;
}

static int split_words(const char *s, size_t len, struct words *w)
{
	w->n = 0;
	if (!(w->v = malloc((len ? len : 1) * sizeof *w->v)))
		return LB_ENOMEM;
	for (size_t i = 0, k; i < len; i += k) {
		k = word_len((const unsigned char *)s + i, len - i);
		w->v[w->n++] = (ant_diff_line){ ANT_DIFF_SAME, s + i, k };
	}
	return 0;
}

struct word_pair {
	const struct words *a, *b;
};

static int word_eq(const void *ctx, size_t i, size_t j)
{
	const struct word_pair *p = ctx;
	const ant_diff_line *x = &p->a->v[i], *y = &p->b->v[j];

	return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

/* Appends a piece, merged with the last when of the same op and adjacent. */
static void put_piece(ant_diff_word *v, size_t *n, int op, const ant_diff_line *w)
{
	if (*n && v[*n - 1].op == op && v[*n - 1].s + v[*n - 1].len == w->s) {
		v[*n - 1].len += w->len;
		return;
	}
	v[(*n)++] = (ant_diff_word){ op, w->s, w->len };
}

int ant_diff_words(const char *a, size_t alen, const char *b, size_t blen, size_t max_cells,
		   ant_diff_word **out, size_t *n)
{
	struct words wa = { 0 }, wb = { 0 };
	struct word_pair wp = { &wa, &wb };
	struct seq2 s = { word_eq, &wp };
	size_t nops = 0, i = 0, j = 0;
	char *ops = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = split_words(a, alen, &wa)) == 0 && (rc = split_words(b, blen, &wb)) == 0 &&
	    (rc = lcs_ops(wa.n, wb.n, &s, max_cells, &ops, &nops)) == 0 &&
	    !(*out = malloc((nops ? nops : 1) * sizeof **out)))
		rc = LB_ENOMEM;
	for (size_t o = 0; rc == 0 && o < nops; o++) {
		if (ops[o] == ANT_DIFF_DEL)
			put_piece(*out, n, ANT_DIFF_DEL, &wa.v[i++]);
		else if (ops[o] == ANT_DIFF_ADD)
			put_piece(*out, n, ANT_DIFF_ADD, &wb.v[j++]);
		else {
			put_piece(*out, n, ANT_DIFF_SAME, &wb.v[j++]);
			i++;
		}
	}
	free(ops);
	free(wa.v);
	free(wb.v);
	return rc;
}

/* ---- a diff as it is shown ------------------------------------------------ */

/* Line line of d shown whole: one unmarked piece. */
static int show_whole(const ant_diff_line *l, ant_diff_show_fn fn, void *ctx)
{
	ant_diff_word w = { ANT_DIFF_SAME, l->s, l->len };

	return fn(ctx, l->op, &w, l->op == ANT_DIFF_GAP ? 0 : 1);
}

/* The removed line a and the added line b that replaced it, each with the
 * words that changed marked (DEL pieces on a's, ADD pieces on b's). */
static int show_pair(const ant_diff_line *a, const ant_diff_line *b, size_t max_cells,
		     ant_diff_show_fn fn, void *ctx)
{
	ant_diff_word *w, *side;
	size_t n, k;
	int rc;

	if ((rc = ant_diff_words(a->s, a->len, b->s, b->len, max_cells, &w, &n)) == LB_ETOOBIG)
		return (rc = show_whole(a, fn, ctx)) != 0 ? rc : show_whole(b, fn, ctx);
	if (rc < 0)
		return rc;
	if (!(side = malloc((n ? n : 1) * sizeof *side))) {
		free(w);
		return LB_ENOMEM;
	}
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		int drop = pass ? ANT_DIFF_DEL : ANT_DIFF_ADD;

		k = 0;
		for (size_t i = 0; i < n; i++)
			if (w[i].op != drop)
				side[k++] = w[i];
		rc = fn(ctx, pass ? ANT_DIFF_ADD : ANT_DIFF_DEL, side, k);
	}
	free(side);
	free(w);
	return rc;
}

int ant_diff_show(const ant_diff *d, size_t max_cells, ant_diff_show_fn fn, void *ctx)
{
	size_t i = 0;
	int rc = 0;

	while (rc == 0 && i < d->n) {
		size_t dels = 0, adds = 0, pairs;

		if (d->v[i].op != ANT_DIFF_DEL) {
			rc = show_whole(&d->v[i++], fn, ctx);
			continue;
		}
		while (i + dels < d->n && d->v[i + dels].op == ANT_DIFF_DEL)
			dels++;
		while (i + dels + adds < d->n && d->v[i + dels + adds].op == ANT_DIFF_ADD)
			adds++;
		/* the k-th line removed is taken as replaced by the k-th added */
		pairs = dels < adds ? dels : adds;
		for (size_t k = 0; rc == 0 && k < pairs; k++)
			rc = show_pair(&d->v[i + k], &d->v[i + dels + k], max_cells, fn, ctx);
		for (size_t k = pairs; rc == 0 && k < dels; k++)
			rc = show_whole(&d->v[i + k], fn, ctx);
		for (size_t k = pairs; rc == 0 && k < adds; k++)
			rc = show_whole(&d->v[i + dels + k], fn, ctx);
		i += dels + adds;
	}
	return rc;
}
