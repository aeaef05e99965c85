/*
 * detect.c: update decision and scheduling (see ant_detect.h).  No I/O.
 */
#include "ant_detect.h"
#include "lirs_merge.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ant_detect_state_init(ant_detect_state *st)
{
	memset(st, 0, sizeof *st);
	st->content_length = -1;
	st->detected_by = NULL;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * rAntenna's rule: dynamic pages send Last-Modified = Date ("now"), which
 * says nothing about the content.  A Last-Modified after the Date, or
 * after our clock when there is no Date, is no better.
 */
int ant_detect_lm_believable(int64_t lm_time, int64_t date_time, int64_t now,
			     int64_t max_future)
{
	if (lm_time <= 0)
		return 0;
	/* the --max-future rule judges the page's headers too: a server whose
	 * clock runs ahead would otherwise win for ever.  A Last-Modified that
	 * far ahead is not believed; nor is a Date: the Last-Modified is then
	 * judged against our clock, as when there is no Date. */
	if (lirs_merge_future(lm_time, now, max_future))
		return 0;
	if (date_time > 0 && !lirs_merge_future(date_time, now, max_future))
		return lm_time < date_time;
	return lm_time < now;
}

int ant_detect_lm_trusted(int64_t lm_time, int64_t date_time, int64_t now)
{
	return ant_detect_lm_believable(lm_time, date_time, now, 0);
}

/* Next check ~ time since the last change, in [5 min, 24 h] (samidare). */
void ant_detect_schedule_ok(ant_detect_state *st, int64_t now)
{
	int64_t since = ANT_DETECT_MAX_INTERVAL;

	if (st->last_modified > 0 && st->last_modified <= now)
		since = now - st->last_modified;
	st->interval = clamp64(since, ANT_DETECT_MIN_INTERVAL, ANT_DETECT_MAX_INTERVAL);
	st->next_check = now + st->interval;
}

/* Doubling back-off after consecutive errors; Retry-After is a floor. */
void ant_detect_schedule_error(ant_detect_state *st, int64_t now, int64_t retry_after)
{
	int shift = st->error_count > 1 ? st->error_count - 1 : 0;
	int64_t delay;

	if (shift > 20)
		shift = 20;
	delay = (int64_t)ANT_DETECT_MIN_INTERVAL << shift;
	if (delay < st->interval)
		delay = st->interval;
	delay = clamp64(delay, ANT_DETECT_MIN_INTERVAL, ANT_DETECT_MAX_INTERVAL);
	if (retry_after > 0) {
		retry_after = clamp64(retry_after, 1, ANT_DETECT_MAX_RETRY_AFTER);
		if (retry_after > delay)
			delay = retry_after;
	}
	st->next_check = now + delay;
}

static int64_t size_of(const ant_detect_input *in)
{
	return in->content_length >= 0 ? in->content_length : in->body_len;
}

/* Which rule (if any) says the content changed since the last check. */
static const char *changed_rule(const ant_detect_state *st, const ant_detect_input *in,
				int trusted, int first)
{
	if (trusted && in->lm_time > st->lm_header_time &&
	    in->lm_time > st->last_modified)
		return "header";
	if (first)
		return NULL;
	if (in->noise_decided)
		return in->noise_updated ? "text" : NULL;
	if (in->has_hash && st->has_hash)
		return in->text_hash != st->text_hash ? "text" : NULL;
	/* No text checksum on one side: fall back to the size (w3m-antenna's "S"). */
	if (st->content_length >= 0 && size_of(in) != st->content_length)
		return "size";
	return NULL;
}

/*
 * A change our own check sees after a LIRS (or Atom) source already
 * relayed an update since our previous check is that same update: keep
 * its time.
 */
static int already_relayed(const ant_detect_state *st)
{
	return st->detected_by && (strcmp(st->detected_by, "lirs") == 0 ||
				   strcmp(st->detected_by, "atom") == 0) &&
	       st->last_modified > st->last_ok;
}

static void remember(ant_detect_state *st, const ant_detect_input *in, int trusted,
		     int64_t now)
{
	st->text_hash = in->has_hash ? in->text_hash : 0;
	st->has_hash = in->has_hash;
	st->content_length = size_of(in);
	if (trusted)
		st->lm_header_time = in->lm_time;
}

static void succeeded(ant_detect_state *st, const ant_detect_input *in, int64_t now)
{
	st->last_status = in->status;
	st->error_count = 0;
	st->recheck = 0;
	if (now > st->last_detected)
		st->last_detected = now;
	st->last_ok = now;
}

/*
 * The feed decides: its newest entry date, when newer than what
 * the feed said before and than the update we know (a LIRS relay of the
 * same update may have come first), is the update time.
 */
static void feed_apply(ant_detect_state *st, const ant_detect_input *in, int first,
		       ant_detect_outcome *out)
{
	int64_t t = in->feed_time;

	if ((first && st->last_modified == 0) ||
	    (t > st->feed_time && t > st->last_modified)) {
		st->last_modified = t;
		st->detected_by = "feed";
		out->updated = 1;
		out->rule = "feed";
	}
	st->feed_time = t;
	out->unchanged = !out->updated;
}

void ant_detect_apply(ant_detect_state *st, const ant_detect_input *in, int64_t now,
		  ant_detect_outcome *out)
{
	int trusted, first;
	const char *rule;

	memset(out, 0, sizeof *out);
	st->last_check = now;
	if (in->failed) {
		st->last_status = in->status;
		st->error_count++;
		ant_detect_schedule_error(st, now, in->retry_after);
		return;
	}
	/* a time from the future that an older version kept (a
	 * Last-Modified of 9999) is forgotten, or it would win for ever */
	if (lirs_merge_future(st->lm_header_time, now, in->max_future))
		st->lm_header_time = 0;
	if (lirs_merge_future(st->feed_time, now, in->max_future))
		st->feed_time = 0;
	if (lirs_merge_future(st->last_modified, now, in->max_future)) {
		st->last_modified = 0;
		st->detected_by = NULL;
	}
	first = st->last_ok == 0;
	out->first = first;
	if (in->feed_usable && in->feed_time > 0) {
		feed_apply(st, in, first, out);
		if (in->status != 304)
			remember(st, in, ant_detect_lm_believable(in->lm_time, in->date_time, now,
								 in->max_future), now);
		succeeded(st, in, now);
		ant_detect_schedule_ok(st, now);
		return;
	}
	if (in->status == 304) {
		/* Not modified: validators are refreshed by the caller. */
		out->unchanged = 1;
		succeeded(st, in, now);
		ant_detect_schedule_ok(st, now);
		return;
	}
	trusted = ant_detect_lm_believable(in->lm_time, in->date_time, now, in->max_future);
	rule = changed_rule(st, in, trusted, first);
	if (rule && strcmp(rule, "header") == 0) {
		/* An imported page with no known time learns one: no event. */
		out->updated = !(first && st->quiet_first && st->last_modified == 0);
		st->last_modified = in->lm_time;
		st->detected_by = "header";
	} else if (first && st->last_modified == 0 && st->quiet_first) {
		/* Imported: "now" would be a made-up update time; stay unknown. */
	} else if (first && st->last_modified == 0) {
		/* The first check is the page's first known update time. */
		st->last_modified = now;
		st->detected_by = NULL;
		out->updated = 1;
	} else if (rule && !already_relayed(st)) {
		/* a held change confirmed: dated when it was first seen */
		if (in->noise_decided && in->noise_time > st->last_modified && in->noise_time < now)
			st->last_modified = in->noise_time;
		else
			st->last_modified = now;
		st->detected_by = rule;
		out->updated = 1;
	}
	out->rule = out->updated ? st->detected_by : NULL;
	out->unchanged = !out->updated;
	remember(st, in, trusted, now);
	succeeded(st, in, now);
	ant_detect_schedule_ok(st, now);
}

int ant_detect_relay(ant_detect_state *st, int64_t lm, int64_t ld, int64_t now)
{
	(void)now;   /* times from the future were dropped by lirs_merge_check_at() */
	if (lm <= 0 || lm <= st->last_modified)
		return 0;
	st->last_modified = lm;
	st->detected_by = "lirs";
	if (ld > st->last_detected)
		st->last_detected = ld;
	st->recheck = 1;
	return 1;
}

int ant_detect_due(const ant_detect_state *st, int64_t now, int force)
{
	return force || st->recheck || st->next_check <= now;
}

/* ---- the noise-proof text rule --------------------------------------------- */

void ant_detect_noise_init(ant_detect_noise *n)
{
	memset(n, 0, sizeof *n);
}

void ant_detect_noise_release(ant_detect_noise *n)
{
	free(n->keys);
	ant_detect_noise_init(n);
}

void ant_detect_verdict_release(ant_detect_verdict *v)
{
	free(v->pick);
	memset(v, 0, sizeof *v);
}

const ant_detect_vblock *ant_detect_noise_find(const ant_detect_noise *n, uint32_t block)
{
	for (size_t i = 0; i < n->nvol; i++)
		if (n->vol[i].block == block)
			return &n->vol[i];
	return NULL;
}

static ant_detect_suspect *suspect_find(ant_detect_noise *n, uint32_t block)
{
	for (size_t i = 0; i < n->nsus; i++)
		if (n->sus[i].block == block)
			return &n->sus[i];
	return NULL;
}

static void suspect_drop(ant_detect_noise *n, ant_detect_suspect *s)
{
	size_t i = (size_t)(s - n->sus);

	memmove(&n->sus[i], &n->sus[i + 1], (n->nsus - i - 1) * sizeof *s);
	n->nsus--;
}

/* A new suspect; when the table is full the one swapped longest ago goes. */
static ant_detect_suspect *suspect_add(ant_detect_noise *n, uint32_t block)
{
	ant_detect_suspect *s;

	if (n->nsus == ANT_NOISE_MAX_SUSPECTS) {
		size_t old = 0;
		for (size_t i = 1; i < n->nsus; i++)
			if (n->sus[i].last < n->sus[old].last)
				old = i;
		suspect_drop(n, &n->sus[old]);
	}
	s = &n->sus[n->nsus++];
	memset(s, 0, sizeof *s);
	s->block = block;
	return s;
}

static void suspect_saw(ant_detect_suspect *s, uint32_t norm)
{
	for (int i = 0; i < s->nseen; i++)
		if (s->seen[i] == norm)
			return;
	if (s->nseen < ANT_NOISE_MAX_SEEN)
		s->nseen++;
	memmove(&s->seen[1], &s->seen[0], (size_t)(s->nseen - 1) * sizeof s->seen[0]);
	s->seen[0] = norm;
}

/* A block's part in one comparison. */
struct nblock;
static void suspect_note(ant_detect_suspect *s, const struct nblock *b, int64_t now);

typedef struct nblock {
	uint32_t block;
	uint32_t nsegs;          /* segments of the check */
	uint64_t len;            /* their bytes */
	uint32_t gained, lost;   /* keys new, keys gone */
	uint32_t first_new;      /* the first new key's norm */
	uint32_t lost_norm[ANT_NOISE_MAX_SEEN];
	int nlost_norm;
	int unstable;            /* differs between the two answers */
	int volatile_;
} nblock;

typedef struct keyidx {
	uint64_t key;
	uint32_t idx;
} keyidx;

/* One comparison of a check with the last one. */
typedef struct cmp {
	const ant_detect_seg *cur;
	size_t ncur;
	keyidx *ck;              /* cur's keys, sorted, volatile blocks left out */
	size_t nck;
	nblock *b;               /* every block of cur, and of the keys lost */
	size_t nb;
	uint32_t *slot;          /* hash table: index into b + 1, 0 empty */
	size_t mask;
	unsigned char *isnew;    /* per segment of cur */
	unsigned char *unstable; /* per segment of cur: its key's count differs in
				    the second answer (NULL without one) */
	uint64_t total, vol_len; /* bytes of the check's text, of its volatile part */
} cmp;

/* The text half of a key keeps ANT_NOISE_NORM_BITS of the segment's
 * hash (ant_detect.h: what the stored state has room for). */
static uint32_t norm_of(const ant_detect_seg *s)
{
	return s->norm & ANT_NOISE_NORM_MASK;
}

static uint64_t key_of(const ant_detect_seg *s)
{
	return (uint64_t)s->block << 32 | norm_of(s);
}

static int keyidx_less(const keyidx *x, const keyidx *y)
{
	return x->key < y->key || (x->key == y->key && x->idx < y->idx);
}

/* Sorts by key, then by index (document order): a quicksort with
 * insertion sort for short runs, inline comparisons (qsort()'s calls were
 * most of a check's time), recursing on the smaller side. */
static void sort_keyidx(keyidx *a, size_t n)
{
	while (n > 16) {
		size_t i = 0, j = n - 1, m = n / 2;
		keyidx p, t;

		/* median of three as the pivot */
		if (keyidx_less(&a[m], &a[0]))
			t = a[m], a[m] = a[0], a[0] = t;
		if (keyidx_less(&a[n - 1], &a[0]))
			t = a[n - 1], a[n - 1] = a[0], a[0] = t;
		if (keyidx_less(&a[n - 1], &a[m]))
			t = a[n - 1], a[n - 1] = a[m], a[m] = t;
		p = a[m];
		for (;;) {
			while (keyidx_less(&a[i], &p))
				i++;
			while (keyidx_less(&p, &a[j]))
				j--;
			if (i >= j)
				break;
			t = a[i], a[i] = a[j], a[j] = t;
			i++, j--;
		}
		/* [0, j] and [j + 1, n): the smaller one first */
		if (j + 1 < n - j - 1) {
			sort_keyidx(a, j + 1);
			a += j + 1;
			n -= j + 1;
		} else {
			sort_keyidx(a + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		keyidx t = a[i];
		size_t k = i;
		while (k && keyidx_less(&t, &a[k - 1])) {
			a[k] = a[k - 1];
			k--;
		}
		a[k] = t;
	}
}

static void sort_u64(uint64_t *v, size_t n)
{
	keyidx *t;

	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1])
			goto unsorted;
	return;
unsorted:
	if (!(t = malloc(n * sizeof *t)))
		return;   /* then the comparison is wrong, not unsafe */
	for (size_t i = 0; i < n; i++)
		t[i] = (keyidx){ v[i], 0 };
	sort_keyidx(t, n);
	for (size_t i = 0; i < n; i++)
		v[i] = t[i].key;
	free(t);
}

static uint32_t block_slot(uint32_t block, size_t mask)
{
	return (uint32_t)((block ^ (block >> 15)) * 0x2c1b3c6dU & mask);
}

/* The block's entry (a hash table of indexes into c->b), or NULL. */
static nblock *block_of(cmp *c, uint32_t block)
{
	for (size_t h = block_slot(block, c->mask); c->slot[h]; h = (h + 1) & c->mask)
		if (c->b[c->slot[h] - 1].block == block)
			return &c->b[c->slot[h] - 1];
	return NULL;
}

static void block_add(cmp *c, uint32_t block)
{
	size_t h = block_slot(block, c->mask);

	for (; c->slot[h]; h = (h + 1) & c->mask)
		if (c->b[c->slot[h] - 1].block == block)
			return;
	c->b[c->nb] = (nblock){ .block = block };
	c->slot[h] = (uint32_t)++c->nb;
}

static void cmp_free(cmp *c)
{
	free(c->unstable);
	free(c->ck);
	free(c->b);
	free(c->slot);
	free(c->isnew);
}

/* Sorted keys of segs outside volatile blocks; NULL (and *nk 0) when none or OOM (*oom). */
static keyidx *sorted_keys(const ant_detect_noise *n, const ant_detect_seg *segs, size_t ns,
			   size_t *nk, int *oom)
{
	keyidx *k = malloc((ns ? ns : 1) * sizeof *k);
	size_t m = 0;

	*nk = 0;
	if (!k) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < ns; i++)
		if (!ant_detect_noise_find(n, segs[i].block))
			k[m++] = (keyidx){ key_of(&segs[i]), (uint32_t)i };
	sort_keyidx(k, m);
	*nk = m;
	return k;
}

/* Builds the comparison of cur with n->keys (and second, when given). */
static int cmp_build(cmp *c, const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
		     const ant_detect_seg *second, size_t nsecond)
{
	size_t i, j, cap = ncur + n->nkeys + 1, slots = 16;
	int oom = 0;

	memset(c, 0, sizeof *c);
	c->cur = cur;
	c->ncur = ncur;
	c->ck = sorted_keys(n, cur, ncur, &c->nck, &oom);
	while (slots < 2 * cap)
		slots *= 2;
	c->mask = slots - 1;
	c->b = malloc(cap * sizeof *c->b);
	c->slot = calloc(slots, sizeof *c->slot);
	c->isnew = calloc(ncur ? ncur : 1, 1);
	if (oom || !c->b || !c->slot || !c->isnew)
		goto oom;
	/* the blocks: cur's and the last check's */
	for (i = 0; i < ncur; i++)
		block_add(c, cur[i].block);
	for (i = 0; i < n->nkeys; i++)
		if (i == 0 || n->keys[i] >> 32 != n->keys[i - 1] >> 32)
			block_add(c, (uint32_t)(n->keys[i] >> 32));
	for (i = 0; i < c->nb; i++)
		c->b[i].volatile_ = ant_detect_noise_find(n, c->b[i].block) != NULL;
	for (i = 0; i < ncur; i++) {
		nblock *b = block_of(c, cur[i].block);
		b->nsegs++;
		b->len += cur[i].len;
		c->total += cur[i].len;
		if (b->volatile_)
			c->vol_len += cur[i].len;
	}
	/* merge the two sorted multisets: an excess in cur is new (its first
	 * occurrences in document order), an excess in the last check is lost */
	i = j = 0;
	while (i < c->nck || j < n->nkeys) {
		uint64_t k;
		size_t ci = i, pj = j, cc, pc;

		if (j >= n->nkeys || (i < c->nck && c->ck[i].key <= n->keys[j]))
			k = c->ck[i].key;
		else
			k = n->keys[j];
		while (i < c->nck && c->ck[i].key == k)
			i++;
		while (j < n->nkeys && n->keys[j] == k)
			j++;
		cc = i - ci;
		pc = j - pj;
		if (ant_detect_noise_find(n, (uint32_t)(k >> 32)))
			continue;   /* learned since the last check kept it */
		if (cc > pc) {
			nblock *b = block_of(c, (uint32_t)(k >> 32));
			if (!b->gained)
				b->first_new = (uint32_t)k;
			b->gained += (uint32_t)(cc - pc);
			for (size_t m = 0; m < cc - pc; m++)
				c->isnew[c->ck[ci + m].idx] = 1;
		} else if (pc > cc) {
			nblock *b = block_of(c, (uint32_t)(k >> 32));
			b->lost += (uint32_t)(pc - cc);
			if (b->nlost_norm < ANT_NOISE_MAX_SEEN)
				b->lost_norm[b->nlost_norm++] = (uint32_t)k;
		}
	}
	/* the second answer: keys whose count differs are unstable, and so
	 * are their blocks */
	if (second) {
		size_t ns;
		keyidx *sk = sorted_keys(n, second, nsecond, &ns, &oom);

		if (oom || !(c->unstable = calloc(ncur ? ncur : 1, 1))) {
			free(sk);
			goto oom;
		}
		i = j = 0;
		while (i < c->nck || j < ns) {
			uint64_t k;
			size_t ci = i, sj = j;
			nblock *b;

			if (j >= ns || (i < c->nck && c->ck[i].key <= sk[j].key))
				k = c->ck[i].key;
			else
				k = sk[j].key;
			while (i < c->nck && c->ck[i].key == k)
				i++;
			while (j < ns && sk[j].key == k)
				j++;
			if (i - ci == j - sj)
				continue;
			/* a block only the second answer has: nothing to hide */
			if ((b = block_of(c, (uint32_t)(k >> 32))))
				b->unstable = 1;
			for (size_t m = ci; m < i; m++)
				c->unstable[c->ck[m].idx] = 1;
		}
		free(sk);
	}
	return 0;
oom:
	cmp_free(c);
	memset(c, 0, sizeof *c);
	return -1;
}

/* May block b join the volatile ones without their holding too much of the text? */
static int learnable(const cmp *c, const nblock *b)
{
	return (c->vol_len + b->len) * 100 <= (uint64_t)ANT_NOISE_VOLATILE_PCT * c->total;
}

/* A small block whose content was replaced one for one: a widget, or a small edit. */
static int swapped(const cmp *c, const nblock *b)
{
	return b->gained && b->gained == b->lost && b->nsegs <= ANT_NOISE_LONE_SEGS &&
	       b->len * 100 <= (uint64_t)ANT_NOISE_SMALL_PCT * c->total;
}

static void suspect_note(ant_detect_suspect *s, const nblock *b, int64_t now)
{
	for (int k = 0; k < b->nlost_norm; k++)
		suspect_saw(s, b->lost_norm[k]);
	suspect_saw(s, b->first_new);
	s->changes++;
	s->last = now;
}

/* Was block b seen swapping before, recently or to this very text?  Then a
 * swap now makes it volatile. */
static int rotating(const ant_detect_suspect *s, const nblock *b, int64_t now)
{
	if (!s)
		return 0;
	if (s->changes && now - s->last <= ANT_NOISE_WINDOW)
		return 1;
	for (int i = 0; i < s->nseen; i++)
		if (s->seen[i] == b->first_new)
			return 1;
	return 0;
}

void ant_detect_noise_scan(const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			   int learn, int64_t now, ant_detect_verdict *v)
{
	cmp c;
	int all_learnable = 1, all_known = 1;

	memset(v, 0, sizeof *v);
	if (!n->has_keys) {
		v->baseline = 1;
		return;
	}
	if (cmp_build(&c, n, cur, ncur, NULL, 0) < 0) {
		v->news = 1;   /* out of memory: decide() will say */
		return;
	}
	for (size_t i = 0; i < c.nb; i++) {
		const nblock *b = &c.b[i];
		if (!b->gained)
			continue;
		v->news = 1;
		if (!learnable(&c, b))
			all_learnable = 0;
		/* a small block that swapped before will be learned from the
		 * checks: a second answer adds nothing */
		if (!swapped(&c, b) || !rotating(suspect_find((ant_detect_noise *)n, b->block), b, now))
			all_known = 0;
	}
	/* News in a block too big to be learned is an update whatever a second
	 * answer says: no re-fetch for it. */
	v->refetch = learn && v->news && all_learnable && !all_known;
	cmp_free(&c);
}

static int learn_block(ant_detect_noise *n, cmp *c, nblock *b, int how, int64_t now,
		       ant_detect_verdict *v)
{
	ant_detect_vblock *vb;

	if (n->nvol >= ANT_NOISE_MAX_VOLATILE || !learnable(c, b))
		return 0;
	vb = &n->vol[n->nvol++];
	memset(vb, 0, sizeof *vb);
	vb->block = b->block;
	vb->since = now;
	vb->how = how;
	b->volatile_ = 1;
	c->vol_len += b->len;
	if (v->nlearned < ANT_NOISE_MAX_VOLATILE)
		v->learned[v->nlearned++] = b->block;
	return 1;
}

/* The news of a small swapped block, kept aside: it joins the excerpt only
 * next to the other news (a diary entry's new heading), never alone (a
 * widget in the sidebar). */
static void unmark_swap(cmp *c, uint32_t block, unsigned char *aside)
{
	for (size_t i = 0; i < c->ncur; i++)
		if (c->cur[i].block == block && c->isnew[i]) {
			c->isnew[i] = 0;
			aside[i] = 1;
		}
}

static void join_aside(cmp *c, const unsigned char *aside)
{
	int more = 1;

	while (more) {
		more = 0;
		for (size_t i = 0; i < c->ncur; i++)
			if (aside[i] && !c->isnew[i] &&
			    ((i > 0 && c->isnew[i - 1]) || (i + 1 < c->ncur && c->isnew[i + 1]))) {
				c->isnew[i] = 1;
				more = 1;
			}
	}
}

static void unmark_block(cmp *c, uint32_t block)
{
	for (size_t i = 0; i < c->ncur; i++)
		if (c->cur[i].block == block)
			c->isnew[i] = 0;
}

/* Keeps the check's multiset (sorted keys ck, blocks volatile by now left
 * out) as the next reference. */
static int keep_keys(ant_detect_noise *n, const keyidx *ck, size_t nck)
{
	uint64_t *k = malloc((nck ? nck : 1) * sizeof *k);
	size_t m = 0;
	int keep = 0;

	if (!k)
		return -1;
	for (size_t i = 0; i < nck; i++) {
		/* sorted: a block's keys are together, looked up once */
		if (i == 0 || ck[i].key >> 32 != ck[i - 1].key >> 32)
			keep = !ant_detect_noise_find(n, (uint32_t)(ck[i].key >> 32));
		if (keep)
			k[m++] = ck[i].key;
	}
	free(n->keys);
	n->keys = k;
	n->nkeys = m;
	n->has_keys = 1;
	return 0;
}

int ant_detect_noise_decide(ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			    const ant_detect_seg *second, size_t nsecond, int learn, int64_t now,
			    ant_detect_verdict *v)
{
	ant_detect_noise saved;
	unsigned char *confirm = NULL, *swapnew;
	int strong = 0, confirmed = 0;
	int64_t since = 0;
	cmp c;

	memset(v, 0, sizeof *v);
	if (ncur > ANT_NOISE_MAX_KEYS)
		ncur = ANT_NOISE_MAX_KEYS;
	if (!n->has_keys) {
		size_t nk;
		int oom = 0;
		keyidx *k = sorted_keys(n, cur, ncur, &nk, &oom);

		v->baseline = 1;
		oom = oom || keep_keys(n, k, nk) < 0;
		free(k);
		return oom ? LB_ENOMEM : 0;
	}
	if (cmp_build(&c, n, cur, ncur, second, nsecond) < 0) {
		v->baseline = 1;
		return LB_ENOMEM;
	}
	if (!(confirm = calloc(2 * (ncur ? ncur : 1), 1))) {
		cmp_free(&c);
		v->baseline = 1;
		return LB_ENOMEM;
	}
	swapnew = confirm + (ncur ? ncur : 1);
	saved = *n;   /* the tables, to undo on OOM (keys are replaced last) */
	/* 1. what differs between the two answers is no news; its block is
	 *    volatile when it may be (a widget), else only those keys are
	 *    left out (a busy page: a post arrived between the two answers,
	 *    the posts before it are news all the same) */
	for (size_t i = 0; i < c.nb; i++) {
		nblock *b = &c.b[i];
		uint32_t left = 0;

		if (!b->unstable)
			continue;
		if (learn && learn_block(n, &c, b, ANT_NOISE_REFETCH, now, v)) {
			unmark_block(&c, b->block);
			b->gained = 0;
			continue;
		}
		for (size_t k = 0; k < ncur; k++)
			if (cur[k].block == b->block && c.isnew[k]) {
				if (c.unstable[k])
					c.isnew[k] = 0;
				else
					left++;
			}
		b->gained = left;
	}
	/* 2. changes held at the last check: unchanged since, they were real */
	for (size_t k = 0; k < n->nsus; k++) {
		ant_detect_suspect *s = &n->sus[k];
		nblock *b;

		if (!s->pending)
			continue;
		b = block_of(&c, s->block);
		if (b && b->gained && swapped(&c, b) && learn)
			continue;   /* swapped again: step 3 */
		for (size_t i = 0; b && i < ncur; i++)
			if (cur[i].block == s->block && norm_of(&cur[i]) == s->pending_norm) {
				confirm[i] = 1;
				confirmed = 1;
				if (!since || s->pending < since)
					since = s->pending;
			}
		s->pending = 0;
	}
	/* 3. the news, block by block: strong news is an update now; a small
	 *    swap alone is held (or learned, when it swapped before) */
	for (size_t i = 0; i < c.nb; i++) {
		nblock *b = &c.b[i];
		if (b->gained && (!learn || !swapped(&c, b) ||
				  (rotating(suspect_find(n, b->block), b, now) && !learnable(&c, b))))
			strong = 1;
	}
	for (size_t i = 0; learn && i < c.nb; i++) {
		nblock *b = &c.b[i];
		ant_detect_suspect *s;
		int rot;

		if (!b->gained || !swapped(&c, b))
			continue;
		s = suspect_find(n, b->block);
		rot = rotating(s, b, now);
		if (rot && learn_block(n, &c, b, ANT_NOISE_CHECKS, now, v)) {
			suspect_drop(n, s);
			unmark_block(&c, b->block);
			b->gained = 0;
			continue;
		}
		if (s)
			s->pending = 0;
		if (rot)
			continue;   /* too much text to be volatile: news */
		if (strong) {
			/* announced with the rest; the excerpt shows the rest
			 * and what is next to it (step 4) */
			unmark_swap(&c, b->block, swapnew);
			continue;
		}
		if (!s)
			s = suspect_add(n, b->block);
		suspect_note(s, b, now);
		s->pending = now;
		s->pending_norm = b->first_new;
		v->held = 1;
		unmark_block(&c, b->block);
	}
	/* 4. with strong news, a small swap next to it is part of it (a new
	 *    entry's heading); one elsewhere is a widget to watch */
	if (strong && learn) {
		join_aside(&c, swapnew);
		for (size_t i = 0; i < c.nb; i++) {
			nblock *b = &c.b[i];
			ant_detect_suspect *s;
			int beside = 0;

			if (!b->gained || !swapped(&c, b) || b->volatile_)
				continue;
			for (size_t k = 0; k < ncur && !beside; k++)
				beside = cur[k].block == b->block && swapnew[k] && c.isnew[k];
			if (beside || !(s = suspect_find(n, b->block) ? suspect_find(n, b->block)
								      : suspect_add(n, b->block)))
				continue;
			suspect_note(s, b, now);
		}
	}
	/* forget small blocks that stopped swapping */
	for (size_t k = 0; k < n->nsus;)
		if (!n->sus[k].pending && now - n->sus[k].last > ANT_NOISE_WINDOW)
			suspect_drop(n, &n->sus[k]);
		else
			k++;
	for (size_t i = 0; i < c.nb; i++)
		if (c.b[i].gained)
			v->news = 1;
	v->updated = strong || confirmed;
	if (v->updated && !strong)
		v->since = since;
	if (v->updated) {
		unsigned char *pick = strong ? c.isnew : confirm;
		int any = 0;

		for (size_t i = 0; strong && i < ncur; i++)
			pick[i] |= confirm[i];
		for (size_t i = 0; i < ncur; i++)
			any |= pick[i] && !ant_detect_noise_find(n, cur[i].block);
		if (any) {
			v->pick = pick;
			if (strong)
				c.isnew = NULL;
			else
				confirm = NULL;
			for (size_t i = 0; i < ncur; i++)
				if (ant_detect_noise_find(n, cur[i].block))
					v->pick[i] = 0;
		}
	}
	free(confirm);
	if (keep_keys(n, c.ck, c.nck) < 0) {
		cmp_free(&c);
		*n = saved;
		ant_detect_verdict_release(v);
		v->baseline = 1;
		return LB_ENOMEM;
	}
	cmp_free(&c);
	return 0;
}

void ant_detect_pick_first_run(const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			       unsigned char *pick)
{
	size_t i = 0;

	if (!pick)
		return;
	while (i < ncur && !pick[i])
		i++;
	while (i < ncur && (pick[i] || ant_detect_noise_find(n, cur[i].block)))
		i++;
	for (; i < ncur; i++)
		pick[i] = 0;
}

/* Copies the start of s (keep_end 0) or its end into dst[size], cut on a
 * UTF-8 character boundary; a cut end starts with "…". */
static void clip_into(char *dst, size_t size, const char *s, int keep_end)
{
	size_t len = strlen(s), cut = 0;

	if (len < size) {
		memcpy(dst, s, len + 1);
		return;
	}
	if (!keep_end) {
		for (size_t i = 0; i < size; i++)
			if (((unsigned char)s[i] & 0xC0) != 0x80)
				cut = i;
		memcpy(dst, s, cut);
		dst[cut] = '\0';
		return;
	}
	/* "…" (3 bytes) and the last bytes that fit, from a character start */
	cut = len - (size - 4);
	while (cut < len && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut++;
	memcpy(dst, "\xe2\x80\xa6", 3);
	memcpy(dst + 3, s + cut, len - cut + 1);
}

void ant_detect_noise_label(ant_detect_noise *n, uint32_t block, const char *path, const char *text)
{
	ant_detect_vblock *vb = (ant_detect_vblock *)ant_detect_noise_find(n, block);

	if (!vb)
		return;
	if (path)
		clip_into(vb->path, sizeof vb->path, path, 1);
	if (text)
		clip_into(vb->sample, sizeof vb->sample, text, 0);
}

/* ---- the blob ------------------------------------------------------------------
 *
 *   "N" 2                    magic and version
 *   varint G                 groups of the multiset, by block, plus one (0: none yet)
 *     u32 block, varint d << 1 | r, d * (u24 norm [, varint repeats if r])
 *                            d distinct keys; with r, each is followed by
 *                            how many more times it is there (a list of
 *                            items that differ in numbers alone is one key
 *                            many times: the bench page's 20 paragraphs
 *                            take 4 bytes, not 60)
 *   u8 V                     volatile blocks
 *     u32 block, varint since, u8 how, u8 P, P bytes of path, u8 L, L bytes
 *     of sample text
 *   u8 S                     suspects
 *     u32 block, varint last, u8 changes, varint pending, u24 pending_norm,
 *     u8 k, k * u24 seen
 * Integers little-endian; times as unsigned varints (LEB128).  Version 1
 * (0.3.0) has "varint m, m * u32 norm" in a group, repeated keys written
 * out, and u32 norms elsewhere; it is read, its norms cut to 24
 * bits (the keys it held then match the next check's), and written again
 * as version 2.  The norms are 3 of the ~5 bytes a key costs: at a
 * million pages of ~50 segments, 4-byte norms were 50 MB more.
 */
typedef struct wbuf {
	unsigned char *p;
	size_t len, cap;
	int oom;
} wbuf;

static void w_byte(wbuf *w, unsigned c)
{
	if (w->len == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 256;
		unsigned char *np = realloc(w->p, nc);
		if (!np) {
			w->oom = 1;
			return;
		}
		w->p = np;
		w->cap = nc;
	}
	w->p[w->len++] = (unsigned char)c;
}

static void w_u32(wbuf *w, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w_byte(w, (v >> (8 * i)) & 0xFF);
}

static void w_u24(wbuf *w, uint32_t v)
{
	for (int i = 0; i < 3; i++)
		w_byte(w, (v >> (8 * i)) & 0xFF);
}

static void w_var(wbuf *w, uint64_t v)
{
	do {
		w_byte(w, (unsigned)(v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void w_str(wbuf *w, const char *s)
{
	size_t l = strlen(s);

	w_byte(w, (unsigned)l);
	for (size_t k = 0; k < l; k++)
		w_byte(w, (unsigned char)s[k]);
}

int ant_detect_noise_encode(const ant_detect_noise *n, unsigned char **blob, size_t *len)
{
	wbuf w = { 0 };
	size_t groups = 0;

	*blob = NULL;
	*len = 0;
	w_byte(&w, 'N');
	w_byte(&w, 2);
	for (size_t i = 0; i < n->nkeys; i++)
		groups += i == 0 || n->keys[i] >> 32 != n->keys[i - 1] >> 32;
	w_var(&w, n->has_keys ? groups + 1 : 0);   /* 0: no multiset yet */
	for (size_t i = 0; i < n->nkeys;) {
		size_t j = i;
		while (j < n->nkeys && n->keys[j] >> 32 == n->keys[i] >> 32)
			j++;
		size_t distinct = 0;
		int dup = 0;

		for (size_t k = i; k < j; k++) {
			distinct += k == i || n->keys[k] != n->keys[k - 1];
			dup |= k > i && n->keys[k] == n->keys[k - 1];
		}
		w_u32(&w, (uint32_t)(n->keys[i] >> 32));
		w_var(&w, (uint64_t)distinct << 1 | (unsigned)dup);
		while (i < j) {
			size_t k = i;
			while (k < j && n->keys[k] == n->keys[i])
				k++;
			w_u24(&w, (uint32_t)n->keys[i]);
			if (dup)
				w_var(&w, k - i - 1);
			i = k;
		}
	}
	w_byte(&w, (unsigned)n->nvol);
	for (size_t i = 0; i < n->nvol; i++) {
		const ant_detect_vblock *vb = &n->vol[i];
		w_u32(&w, vb->block);
		w_var(&w, vb->since > 0 ? (uint64_t)vb->since : 0);
		w_byte(&w, (unsigned)vb->how);
		w_str(&w, vb->path);
		w_str(&w, vb->sample);
	}
	w_byte(&w, (unsigned)n->nsus);
	for (size_t i = 0; i < n->nsus; i++) {
		const ant_detect_suspect *s = &n->sus[i];
		w_u32(&w, s->block);
		w_var(&w, s->last > 0 ? (uint64_t)s->last : 0);
		w_byte(&w, (unsigned)(s->changes > 255 ? 255 : s->changes));
		w_var(&w, s->pending > 0 ? (uint64_t)s->pending : 0);
		w_u24(&w, s->pending_norm);
		w_byte(&w, (unsigned)s->nseen);
		for (int k = 0; k < s->nseen; k++)
			w_u24(&w, s->seen[k]);
	}
	if (w.oom) {
		free(w.p);
		return LB_ENOMEM;
	}
	*blob = w.p;
	*len = w.len;
	return 0;
}

typedef struct rbuf {
	const unsigned char *p, *end;
	int bad;
} rbuf;

static unsigned r_byte(rbuf *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

static uint32_t r_u32(rbuf *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)r_byte(r) << (8 * i);
	return v;
}

/* A norm: u32 in version 1, u24 since; either way ANT_NOISE_NORM_BITS. */
static uint32_t r_norm(rbuf *r, int version)
{
	uint32_t v = 0;

	for (int i = 0; i < (version == 1 ? 4 : 3); i++)
		v |= (uint32_t)r_byte(r) << (8 * i);
	return v & ANT_NOISE_NORM_MASK;
}

static uint64_t r_var(rbuf *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		unsigned c = r_byte(r);
		v |= (uint64_t)(c & 0x7F) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static void r_str(rbuf *r, char *dst, size_t size)
{
	unsigned l = r_byte(r);

	if (r->bad || l >= size || (size_t)(r->end - r->p) < l) {
		r->bad = 1;
		*dst = '\0';
		return;
	}
	memcpy(dst, r->p, l);
	dst[l] = '\0';
	r->p += l;
}

int ant_detect_noise_decode(ant_detect_noise *n, const void *blob, size_t len)
{
	rbuf r = { blob, (const unsigned char *)blob + len, 0 };
	uint64_t groups;
	size_t cap = 0, nb;
	int version;

	ant_detect_noise_init(n);
	if (!blob || len < 2 || r_byte(&r) != 'N' || ((version = (int)r_byte(&r)) != 1 && version != 2))
		return LB_EPARSE;
	nb = version == 1 ? 4 : 3;
	groups = r_var(&r);
	n->has_keys = groups > 0;
	for (uint64_t g = 1; g < groups && !r.bad; g++) {
		uint32_t block = r_u32(&r);
		uint64_t m = r_var(&r), dup = 0;
		if (version >= 2) {   /* distinct keys << 1 | repeats follow */
			dup = m & 1;
			m >>= 1;
		}
		if (m > ANT_NOISE_MAX_KEYS || n->nkeys + m > ANT_NOISE_MAX_KEYS ||
		    (size_t)(r.end - r.p) < nb * m) {
			r.bad = 1;
			break;
		}
		if (!cap) {
			if (!(n->keys = malloc(ANT_NOISE_MAX_KEYS * sizeof *n->keys))) {
				r.bad = 1;
				break;
			}
			cap = ANT_NOISE_MAX_KEYS;
		}
		for (uint64_t k = 0; k < m && !r.bad; k++) {
			uint64_t key = (uint64_t)block << 32 | r_norm(&r, version);
			uint64_t c = dup ? r_var(&r) : 0;
			if (c >= ANT_NOISE_MAX_KEYS - n->nkeys) {
				r.bad = 1;
				break;
			}
			for (uint64_t x = 0; x <= c; x++)
				n->keys[n->nkeys++] = key;
		}
	}
	n->nvol = r.bad ? 0 : r_byte(&r);
	if (n->nvol > ANT_NOISE_MAX_VOLATILE)
		r.bad = 1;
	for (size_t i = 0; i < n->nvol && !r.bad; i++) {
		ant_detect_vblock *vb = &n->vol[i];
		vb->block = r_u32(&r);
		vb->since = (int64_t)r_var(&r);
		vb->how = (int)r_byte(&r);
		r_str(&r, vb->path, sizeof vb->path);
		r_str(&r, vb->sample, sizeof vb->sample);
	}
	n->nsus = r.bad ? 0 : r_byte(&r);
	if (n->nsus > ANT_NOISE_MAX_SUSPECTS)
		r.bad = 1;
	for (size_t i = 0; i < n->nsus && !r.bad; i++) {
		ant_detect_suspect *s = &n->sus[i];
		s->block = r_u32(&r);
		s->last = (int64_t)r_var(&r);
		s->changes = (int)r_byte(&r);
		s->pending = (int64_t)r_var(&r);
		s->pending_norm = r_norm(&r, version);
		s->nseen = (int)r_byte(&r);
		if (s->nseen > ANT_NOISE_MAX_SEEN) {
			r.bad = 1;
			break;
		}
		for (int k = 0; k < s->nseen; k++)
			s->seen[k] = r_norm(&r, version);
	}
	if (r.bad || r.p != r.end) {
		ant_detect_noise_release(n);
		return LB_EPARSE;
	}
	/* a blob from elsewhere may not be sorted: the merge needs it */
	sort_u64(n->keys, n->nkeys);
	return 0;
}
