/*
 * detect_noise_cmp.c: one comparison of the noise-proof text rule
 * (ant_detect.h): a check's segments against the last check's multiset of
 * keys, block by block (what is new, what is gone, how much text each
 * block holds), and against a second answer to the same request (what
 * differs between the two).  Pure: detect_noise.c decides from the result
 * (priv/detect_noise_cmp.h).
 */
#include "detect_noise_cmp.h"

#include <stdlib.h>
#include <string.h>

#include "ant_noise.h"
#include "lb_buf.h"

static uint64_t key_of(const ant_detect_seg *s)
{
	return (uint64_t)s->block << 32 | ant_noise_norm_of(s);
}

static int key_less(const ant_noise_key *x, const ant_noise_key *y)
{
	return x->key < y->key || (x->key == y->key && x->idx < y->idx);
}

static void insertion_sort(ant_noise_key *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		ant_noise_key t = a[i];
		size_t k = i;
		while (k && key_less(&t, &a[k - 1])) {
			a[k] = a[k - 1];
			k--;
		}
		a[k] = t;
	}
}

/* Sorts by key, then by index (document order): a quicksort with
 * insertion sort for short runs, inline comparisons (qsort()'s calls were
 * most of a check's time), recursing on the smaller side. */
static void sort_keys(ant_noise_key *a, size_t n)
{
	while (n > 16) {
		size_t i = 0, j = n - 1, m = n / 2;
		ant_noise_key p, t;

		/* median of three as the pivot */
		if (key_less(&a[m], &a[0]))
			t = a[m], a[m] = a[0], a[0] = t;
		if (key_less(&a[n - 1], &a[0]))
			t = a[n - 1], a[n - 1] = a[0], a[0] = t;
		if (key_less(&a[n - 1], &a[m]))
			t = a[n - 1], a[n - 1] = a[m], a[m] = t;
		p = a[m];
		for (;;) {
			while (key_less(&a[i], &p))
				i++;
			while (key_less(&p, &a[j]))
				j--;
			if (i >= j)
				break;
			t = a[i], a[i] = a[j], a[j] = t;
			i++, j--;
		}
		/* [0, j] and [j + 1, n): the smaller one first */
		if (j + 1 < n - j - 1) {
			sort_keys(a, j + 1);
			a += j + 1;
			n -= j + 1;
		} else {
			sort_keys(a + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	insertion_sort(a, n);
}

void ant_noise_sort_u64(uint64_t *v, size_t n)
{
	ant_noise_key *t;
	size_t i = 1;

	while (i < n && v[i] >= v[i - 1])
		i++;
	if (i >= n || !(t = malloc(n * sizeof *t)))
		return;
	for (i = 0; i < n; i++)
		t[i] = (ant_noise_key){ v[i], 0 };
	sort_keys(t, n);
	for (i = 0; i < n; i++)
		v[i] = t[i].key;
	free(t);
}

ant_noise_key *ant_noise_sorted_keys(const ant_detect_noise *n, const ant_detect_seg *segs,
				     size_t ns, size_t *nk)
{
	ant_noise_key *k = malloc((ns ? ns : 1) * sizeof *k);
	size_t m = 0;

	*nk = 0;
	if (!k)
		return NULL;
	for (size_t i = 0; i < ns; i++)
		if (!ant_detect_noise_find(n, segs[i].block))
			k[m++] = (ant_noise_key){ key_of(&segs[i]), (uint32_t)i };
	sort_keys(k, m);
	*nk = m;
	return k;
}

/* ---- the blocks: a hash table of indexes into c->b ------------------------------- */

static uint32_t block_slot(uint32_t block, size_t mask)
{
	return (uint32_t)((block ^ (block >> 15)) * 0x2c1b3c6dU & mask);
}

ant_noise_block *ant_noise_cmp_block(ant_noise_cmp *c, uint32_t block)
{
	for (size_t h = block_slot(block, c->mask); c->slot[h]; h = (h + 1) & c->mask)
		if (c->b[c->slot[h] - 1].block == block)
			return &c->b[c->slot[h] - 1];
	return NULL;
}

static void block_add(ant_noise_cmp *c, uint32_t block)
{
	size_t h = block_slot(block, c->mask);

	for (; c->slot[h]; h = (h + 1) & c->mask)
		if (c->b[c->slot[h] - 1].block == block)
			return;
	c->b[c->nb] = (ant_noise_block){ .block = block };
	c->slot[h] = (uint32_t)++c->nb;
}

void ant_noise_cmp_free(ant_noise_cmp *c)
{
	free(c->unstable);
	free(c->ck);
	free(c->b);
	free(c->slot);
	free(c->isnew);
}

/* ---- the steps of a comparison ----------------------------------------------------- */

/* cur's sorted keys and room for every block of cur and of the last check. */
static int cmp_alloc(ant_noise_cmp *c, const ant_detect_noise *n, const ant_detect_seg *cur,
		     size_t ncur)
{
	size_t cap = ncur + n->nkeys + 1, slots = 16;

	memset(c, 0, sizeof *c);
	c->cur = cur;
	c->ncur = ncur;
	c->ck = ant_noise_sorted_keys(n, cur, ncur, &c->nck);
	while (slots < 2 * cap)
		slots *= 2;
	c->mask = slots - 1;
	c->b = malloc(cap * sizeof *c->b);
	c->slot = calloc(slots, sizeof *c->slot);
	c->isnew = calloc(ncur ? ncur : 1, 1);
	return c->ck && c->b && c->slot && c->isnew ? 0 : LB_ENOMEM;
}

/* The blocks of cur and of the last check, which are volatile, and how
 * much text each holds now. */
static void cmp_blocks(ant_noise_cmp *c, const ant_detect_noise *n)
{
	const ant_detect_seg *cur = c->cur;
	size_t i;

	for (i = 0; i < c->ncur; i++)
		block_add(c, cur[i].block);
	for (i = 0; i < n->nkeys; i++)
		if (i == 0 || n->keys[i] >> 32 != n->keys[i - 1] >> 32)
			block_add(c, (uint32_t)(n->keys[i] >> 32));
	for (i = 0; i < c->nb; i++)
		c->b[i].volatile_ = ant_detect_noise_find(n, c->b[i].block) != NULL;
	for (i = 0; i < c->ncur; i++) {
		ant_noise_block *b = ant_noise_cmp_block(c, cur[i].block);
		b->nsegs++;
		b->len += cur[i].len;
		c->total += cur[i].len;
		if (b->volatile_)
			c->vol_len += cur[i].len;
	}
}

/* Key k is cc times in cur (from c->ck[ci]) and pc times in the last check. */
static void cmp_count(ant_noise_cmp *c, uint64_t k, size_t ci, size_t cc, size_t pc)
{
	ant_noise_block *b = ant_noise_cmp_block(c, (uint32_t)(k >> 32));

	if (cc > pc) {
		if (!b->gained)
			b->first_new = (uint32_t)k;
		b->gained += (uint32_t)(cc - pc);
		for (size_t m = 0; m < cc - pc; m++)
			c->isnew[c->ck[ci + m].idx] = 1;
	} else if (pc > cc) {
		b->lost += (uint32_t)(pc - cc);
		if (b->nlost_norm < ANT_NOISE_MAX_SEEN)
			b->lost_norm[b->nlost_norm++] = (uint32_t)k;
	}
}

/* ---- words that only moved: a change of markup is no change ----------------------
 *
 * A key is (block, norm): the same words under another class, id or path
 * make another key.  A calendar that moves its "today" class from 28 to
 * 29, a list whose newest item loses its "new" class, a row whose
 * "odd"/"even" flips when one is inserted above: the page shows the same
 * words, only their markup changed, and that is no change.  So after a
 * merge by key, an excess of a norm in one block is matched with a
 * shortage of the same norm in another block (the words moved) and the
 * pair cancels out.  The words decide; the place is only the
 * tie-breaker, kept in the key because the rest of the rule names blocks
 * (learned volatile blocks, suspects, furniture) and because words that
 * did not move still compare block by block. */
typedef struct kdiff {
	uint32_t norm, block;
	int32_t delta;           /* cur's count minus the other's; moves cancelled */
	int32_t orig;            /* the same before the cancelling */
	uint32_t ci;             /* cur's first key of it in c->ck */
	uint32_t cc;             /* cur's count */
} kdiff;

static int kdiff_cmp(const void *a, const void *b)
{
	const kdiff *x = a, *y = b;

	if (x->norm != y->norm)
		return x->norm < y->norm ? -1 : 1;
	return (x->ci > y->ci) - (x->ci < y->ci);
}

/* Cancels, norm by norm, excesses against shortages in other blocks;
 * d[] is sorted by norm (then by place in cur) after. */
static void cancel_moves(kdiff *d, size_t nd)
{
	if (nd > 1)
		qsort(d, nd, sizeof *d, kdiff_cmp);
	for (size_t a = 0; a < nd;) {
		size_t e = a;

		while (e < nd && d[e].norm == d[a].norm)
			e++;
		for (size_t i = a; i < e; i++)
			for (size_t j = a; j < e && d[i].delta > 0; j++) {
				int32_t m;

				if (d[j].delta >= 0 || d[j].block == d[i].block)
					continue;
				m = d[i].delta < -d[j].delta ? d[i].delta : -d[j].delta;
				d[i].delta -= m;
				d[j].delta += m;
			}
		a = e;
	}
}

/* A counter's cell: one number and at most a short unit around it
 * ("3", "55.55 KB", "12 %", "(3.25 visits/visitor)"): its words,
 * numbers aside, are at most two and ANT_NOISE_COUNTER_UNIT bytes. */
#define ANT_NOISE_COUNTER_UNIT 20
static int counter_cell(const ant_detect_seg *s)
{
	lb_buf b = LB_BUF_INIT;
	int yes = 0;

	if (s->text && s->len && s->len <= 48 && ant_noise_normalize(s->text, s->len, &b) != (size_t)-1) {
		const char *h = b.len ? memchr(b.data, '#', b.len) : NULL;
		size_t words = 0;

		yes = h && !memchr(h + 1, '#', b.len - (size_t)(h + 1 - b.data)) &&
		      b.len <= ANT_NOISE_COUNTER_UNIT + 1 && !memchr(b.data, '@', b.len);
		for (size_t i = 0; yes && i < b.len; i++)
			words += b.data[i] != ' ' && b.data[i] != '#' && (!i || b.data[i - 1] == ' ' || b.data[i - 1] == '#');
		yes = yes && words <= 2;
	}
	lb_buf_release(&b);
	return yes;
}

/* Are the excess segments of a gain d (d->delta of them, from c->ck[d->ci])
 * counters' cells of a shape the block showed before?  Then a table of
 * counts gained a filled cell ("0" became "29.29 KB" beside the other
 * "N KB"): its counters moved, no words were added. */
static int counters_moved(const ant_noise_cmp *c, const kdiff *d)
{
	if (d->delta <= 0 || d->cc <= (uint32_t)d->orig)
		return 0;   /* the shape is new in the block */
	for (int32_t m = 0; m < d->delta; m++)
		if (!counter_cell(&c->cur[c->ck[d->ci + (uint32_t)m].idx]))
			return 0;
	return 1;
}

/* Are the excess segments of a gain d counters' cells that took the place
 * of bare numbers the block lost in the same check (d[0..nd))?  A cell
 * that held only a number now holds a number with its unit ("0" became
 * "550 Bytes"): a count moved, whatever its shape; each lost number
 * stands for one cell (its delta moves towards 0). */
static int count_replaced(const ant_noise_cmp *c, kdiff *all, size_t nd, const kdiff *d)
{
	static uint32_t bare;
	int32_t need = d->delta;

	if (!bare)
		bare = ant_noise_hash("0", 1) & ANT_NOISE_NORM_MASK;
	/* the bare numbers lost first: counter_cell() reads each cell's text */
	for (size_t j = 0; j < nd && need > 0; j++)
		if (all[j].block == d->block && all[j].norm == bare && all[j].delta < 0)
			need += all[j].delta;   /* at most what it lost */
	if (need > 0)
		return 0;
	for (int32_t m = 0; m < d->delta; m++)
		if (!counter_cell(&c->cur[c->ck[d->ci + (uint32_t)m].idx]))
			return 0;
	need = d->delta;
	for (size_t j = 0; j < nd && need > 0; j++)
		if (all[j].block == d->block && all[j].norm == bare && all[j].delta < 0) {
			int32_t m = -all[j].delta < need ? -all[j].delta : need;

			all[j].delta += m;
			need -= m;
		}
	return 1;
}

/* The merge with the last check, its moves cancelled: the differences
 * d[0..nd) (as cmp_merge_last() found them) become gained and lost. */
static void apply_last(ant_noise_cmp *c, kdiff *d, size_t nd)
{
	cancel_moves(d, nd);
	/* sorted by norm within a block, as the merge by key was: the first
	 * new key cmp_count() takes is the one it took */
	for (size_t i = 0; i < nd; i++) {
		ant_noise_block *b = ant_noise_cmp_block(c, d[i].block);
		int32_t was = d[i].orig;

		if (d[i].delta != was)
			b->moved += (uint32_t)(was > d[i].delta ? was - d[i].delta : d[i].delta - was);
		if (d[i].delta > 0 && !counters_moved(c, &d[i]) && !count_replaced(c, d, nd, &d[i]))
			cmp_count(c, (uint64_t)d[i].block << 32 | d[i].norm, d[i].ci, (size_t)d[i].delta, 0);
		else if (d[i].delta < 0)
			cmp_count(c, (uint64_t)d[i].block << 32 | d[i].norm, 0, 0, (size_t)-d[i].delta);
	}
}

/* Merges the two sorted multisets: an excess in cur is new (its first
 * occurrences in document order), an excess in the last check is lost;
 * words that only moved between blocks are neither (apply_last()). */
static int cmp_merge_last(ant_noise_cmp *c, const ant_detect_noise *n)
{
	size_t i = 0, j = 0, nd = 0;
	kdiff *d = malloc((c->nck + n->nkeys + 1) * sizeof *d);

	if (!d)
		return LB_ENOMEM;
	while (i < c->nck || j < n->nkeys) {
		uint64_t k;
		size_t ci = i, pj = j;

		if (j >= n->nkeys || (i < c->nck && c->ck[i].key <= n->keys[j]))
			k = c->ck[i].key;
		else
			k = n->keys[j];
		while (i < c->nck && c->ck[i].key == k)
			i++;
		while (j < n->nkeys && n->keys[j] == k)
			j++;
		if (ant_detect_noise_find(n, (uint32_t)(k >> 32)))
			continue;   /* learned since the last check kept it */
		if (i - ci != j - pj)
			d[nd++] = (kdiff){ (uint32_t)k, (uint32_t)(k >> 32),
					   (int32_t)(i - ci) - (int32_t)(j - pj),
					   (int32_t)(i - ci) - (int32_t)(j - pj), (uint32_t)ci, (uint32_t)(i - ci) };
	}
	apply_last(c, d, nd);
	free(d);
	return 0;
}

/* The second answer: keys whose count differs are unstable, and so are
 * their blocks; words that only moved to another block between the two
 * answers (a class that changes per request) are not. */
static int cmp_merge_second(ant_noise_cmp *c, const ant_detect_noise *n,
			    const ant_detect_seg *second, size_t nsecond)
{
	size_t ns, i = 0, j = 0, nd = 0;
	ant_noise_key *sk = ant_noise_sorted_keys(n, second, nsecond, &ns);
	kdiff *d = malloc((c->nck + ns + 1) * sizeof *d);

	if (!sk || !d || !(c->unstable = calloc(c->ncur ? c->ncur : 1, 1))) {
		free(sk);
		free(d);
		return LB_ENOMEM;
	}
	while (i < c->nck || j < ns) {
		uint64_t k;
		size_t ci = i, sj = j;

		if (j >= ns || (i < c->nck && c->ck[i].key <= sk[j].key))
			k = c->ck[i].key;
		else
			k = sk[j].key;
		while (i < c->nck && c->ck[i].key == k)
			i++;
		while (j < ns && sk[j].key == k)
			j++;
		if (i - ci != j - sj)
			d[nd++] = (kdiff){ (uint32_t)k, (uint32_t)(k >> 32),
					   (int32_t)(i - ci) - (int32_t)(j - sj),
					   (int32_t)(i - ci) - (int32_t)(j - sj), (uint32_t)ci,
					   (uint32_t)(i - ci) };
	}
	free(sk);
	cancel_moves(d, nd);
	for (size_t x = 0; x < nd; x++) {
		ant_noise_block *b;

		if (!d[x].delta)
			continue;
		/* a block only the second answer has: nothing to hide */
		if ((b = ant_noise_cmp_block(c, d[x].block)))
			b->unstable = 1;
		for (size_t m = d[x].ci; m < d[x].ci + d[x].cc; m++)
			c->unstable[c->ck[m].idx] = 1;
	}
	free(d);
	return 0;
}

int ant_noise_cmp_build(ant_noise_cmp *c, const ant_detect_noise *n, const ant_detect_seg *cur,
			size_t ncur, const ant_detect_seg *second, size_t nsecond)
{
	if (cmp_alloc(c, n, cur, ncur) < 0)
		goto oom;
	cmp_blocks(c, n);
	if (cmp_merge_last(c, n) < 0)
		goto oom;
	if (second && cmp_merge_second(c, n, second, nsecond) < 0)
		goto oom;
	return 0;
oom:
	ant_noise_cmp_free(c);
	memset(c, 0, sizeof *c);
	return LB_ENOMEM;
}
