/*
 * detect_noise.c: the noise-proof text rule (ant_detect.h, "the
 * noise-proof text rule"): from one comparison of a check with the last
 * (detect_noise_cmp.c), is the page updated, which of its blocks are
 * volatile (learned from a second answer or across checks), which small
 * swaps are held until the next check, and what the excerpt shows.  Pure:
 * no I/O, no clock; the state is stored by detect_noise_blob.c and
 * looked up by detect_noise_state.c.
 */
#include "detect_noise_cmp.h"

#include <stdlib.h>
#include <string.h>

void ant_detect_verdict_release(ant_detect_verdict *v)
{
	free(v->pick);
	free(v->aside);
	memset(v, 0, sizeof *v);
}

/* ---- suspects: small blocks seen swapping ------------------------------------------ */

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

static void suspect_note(ant_detect_suspect *s, const ant_noise_block *b, int64_t now)
{
	for (int k = 0; k < b->nlost_norm; k++)
		suspect_saw(s, b->lost_norm[k]);
	suspect_saw(s, b->first_new);
	s->changes++;
	s->last = now;
}

/* ---- what a block is ---------------------------------------------------------------- */

/* May block b join the volatile ones without their holding too much of the text? */
static int learnable(const ant_noise_cmp *c, const ant_noise_block *b)
{
	return (c->vol_len + b->len) * 100 <= (uint64_t)ANT_NOISE_VOLATILE_PCT * c->total;
}

/* A small block whose content was replaced one for one: a widget, or a small edit. */
static int swapped(const ant_noise_cmp *c, const ant_noise_block *b)
{
	return b->gained && b->gained == b->lost && b->nsegs <= ANT_NOISE_LONE_SEGS &&
	       b->len * 100 <= (uint64_t)ANT_NOISE_SMALL_PCT * c->total;
}

/* Was block b seen swapping before, recently or to this very text?  Then a
 * swap now makes it volatile. */
static int rotating(const ant_detect_suspect *s, const ant_noise_block *b, int64_t now)
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

/* A few segments of a block replaced one for one: a second answer can
 * tell the words made per request (a token) from the author's, whatever
 * the block's size (detect_noise_words.c). */
static int narrow(const ant_noise_block *b)
{
	return b->gained && b->gained == b->lost && b->gained <= ANT_NOISE_LONE_SEGS;
}

/* A copy of segs[0..ns) with n's volatile words masked out of the norms
 * (now: their last sighting, 0 none); NULL when out of memory. */
static ant_detect_seg *masked_copy(const ant_detect_noise *n, const ant_detect_seg *segs, size_t ns,
				   int64_t now)
{
	ant_detect_seg *m = malloc((ns ? ns : 1) * sizeof *m);

	if (!m)
		return NULL;
	if (ns)
		memcpy(m, segs, ns * sizeof *m);
	if (ant_noise_words_mask((ant_detect_noise *)n, m, ns, now) < 0) {
		free(m);
		return NULL;
	}
	return m;
}

void ant_detect_noise_scan(const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			   int learn, int64_t now, ant_detect_verdict *v)
{
	ant_noise_cmp c;
	int all_learnable = 1, all_known = 1, words = ncur && cur[0].text;
	ant_detect_seg *m;

	memset(v, 0, sizeof *v);
	if (!n->has_keys) {
		v->baseline = 1;
		return;
	}
	if (!(m = masked_copy(n, cur, ncur, 0)) || ant_noise_cmp_build(&c, n, m, ncur, NULL, 0) < 0) {
		free(m);
		v->news = 1;   /* out of memory: decide() will say */
		return;
	}
	for (size_t i = 0; i < c.nb; i++) {
		const ant_noise_block *b = &c.b[i];
		if (!b->gained)
			continue;
		v->news = 1;
		if (!learnable(&c, b) && !(words && narrow(b)))
			all_learnable = 0;
		/* a small block that swapped before will be learned from the
		 * checks: a second answer adds nothing */
		if (!swapped(&c, b) || !rotating(suspect_find((ant_detect_noise *)n, b->block), b, now))
			all_known = 0;
	}
	/* News in a block too big to be learned is an update whatever a second
	 * answer says (no re-fetch for it), unless it is narrow: then the
	 * second answer may show a word made per request. */
	v->refetch = learn && v->news && all_learnable && !all_known;
	ant_noise_cmp_free(&c);
	free(m);
}

/* ---- learning and the excerpt's marks ------------------------------------------------ */

static int learn_block(ant_detect_noise *n, ant_noise_cmp *c, ant_noise_block *b, int how,
		       int64_t now, ant_detect_verdict *v)
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
static void unmark_swap(ant_noise_cmp *c, uint32_t block, unsigned char *aside)
{
	for (size_t i = 0; i < c->ncur; i++)
		if (c->cur[i].block == block && c->isnew[i]) {
			c->isnew[i] = 0;
			aside[i] = 1;
		}
}

static void join_aside(ant_noise_cmp *c, const unsigned char *aside)
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

static void unmark_block(ant_noise_cmp *c, uint32_t block)
{
	for (size_t i = 0; i < c->ncur; i++)
		if (c->cur[i].block == block)
			c->isnew[i] = 0;
}

/* Keeps the check's multiset (sorted keys ck, blocks volatile by now left
 * out) as the next reference. */
static int keep_keys(ant_detect_noise *n, const ant_noise_key *ck, size_t nck)
{
	uint64_t *k = malloc((nck ? nck : 1) * sizeof *k);
	size_t m = 0;
	int keep = 0;

	if (!k)
		return LB_ENOMEM;
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

/* ---- the decision, step by step -------------------------------------------------------
 *
 * ant_detect_noise_decide() runs these in order over one struct decision:
 *   1. drop_unstable     what differs between the two answers is no news
 *   2. confirm_held      changes held at the last check, unchanged since
 *      judge_races       blocks held back by a race: real, or a widget
 *   3. find_strong       news that is an update now
 *      settle_swaps      small swaps: learned, announced, or held
 *      settle_races      blocks held back by a race: settled
 *   4. watch_swaps       with strong news: a small swap beside it joins it
 *   5. forget_quiet      suspects that stopped swapping
 *      unlearn_steady    learned blocks steady for ANT_NOISE_UNLEARN
 *   6. give_verdict      updated, since, and the excerpt's pick
 */
typedef struct decision {
	ant_detect_noise *n;
	ant_noise_cmp c;
	int learn;
	int watched;             /* ANT_DETECT_WATCHED: no small swap is held */
	int64_t now;
	ant_detect_verdict *v;
	unsigned char *confirm;  /* per segment: a held change confirmed now */
	unsigned char *swapnew;  /* per segment: a small swap's news, kept aside
				    (in the same allocation as confirm) */
	int strong;              /* news that is an update now */
	int confirmed;           /* a held change was confirmed */
	int64_t since;           /* the earliest confirmed change's first sighting */
	const ant_detect_seg *second;  /* the re-fetched answer, or NULL */
	size_t nsecond;
} decision;

/* A block's text in segs, blind to order: a sum over its norms. */
static uint32_t block_sig(uint32_t block, const ant_detect_seg *segs, size_t n)
{
	uint32_t sig = 0;

	for (size_t i = 0; i < n; i++)
		if (segs[i].block == block)
			sig += ant_noise_norm_of(&segs[i]) * 2654435761u + 1;
	return sig;
}

/* Did block b differ between the two answers of a recent check? */
static ant_detect_suspect *raced(const decision *d, const ant_noise_block *b)
{
	ant_detect_suspect *s = suspect_find(d->n, b->block);

	return s && s->raced && d->now - s->raced <= ANT_NOISE_WINDOW ? s : NULL;
}

/* A block that differs between the two answers for the first time: held
 * back for this check, not learned (the author may have saved between
 * the two requests).  0 when it raced before: a widget, to be learned. */
static int hold_race(decision *d, ant_noise_block *b)
{
	ant_detect_suspect *s;

	if (raced(d, b) || !(s = suspect_find(d->n, b->block) ? suspect_find(d->n, b->block)
							      : suspect_add(d->n, b->block)))
		return 0;
	s->raced = d->now;
	s->raced_sig = block_sig(b->block, d->second, d->nsecond);
	s->last = d->now;
	unmark_block(&d->c, b->block);
	b->gained = 0;
	d->v->held = 1;
	return 1;
}

/* 1. What differs between the two answers is no news; its block is held
 *    back the first time, volatile the second when it may be (a widget),
 *    else only those keys are left out (a busy page: a post arrived
 *    between the two answers, the posts before it are news all the same). */
static void drop_unstable_one(decision *d, ant_noise_block *b)
{
	ant_noise_cmp *c = &d->c;
	ant_detect_suspect *s = raced(d, b);
	uint32_t left = 0;

	if (d->learn && learnable(c, b) && hold_race(d, b))
		return;
	if (d->learn && learn_block(d->n, c, b, ANT_NOISE_REFETCH, d->now, d->v)) {
		if (s)
			suspect_drop(d->n, s);
		unmark_block(c, b->block);
		b->gained = 0;
		return;
	}
	for (size_t k = 0; k < c->ncur; k++)
		if (c->cur[k].block == b->block && c->isnew[k]) {
			if (c->unstable[k])
				c->isnew[k] = 0;
			else
				left++;
		}
	b->gained = left;
}

/* The blocks that raced before go first: new races take suspects' places
 * and must not push them out before they are learned. */
static void drop_unstable(decision *d)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->c.nb; i++) {
			ant_noise_block *b = &d->c.b[i];

			if (b->unstable && (raced(d, b) != NULL) == (pass == 0))
				drop_unstable_one(d, b);
		}
}

/* 2. Changes held at the last check: unchanged since, they were real. */
static void confirm_held(decision *d)
{
	ant_noise_cmp *c = &d->c;
	ant_detect_noise *n = d->n;

	for (size_t k = 0; k < n->nsus; k++) {
		ant_detect_suspect *s = &n->sus[k];
		ant_noise_block *b;

		if (!s->pending)
			continue;
		b = ant_noise_cmp_block(c, s->block);
		if (b && b->gained && swapped(c, b) && d->learn)
			continue;   /* swapped again: step 3 */
		for (size_t i = 0; b && i < c->ncur; i++)
			if (c->cur[i].block == s->block &&
			    ant_noise_norm_of(&c->cur[i]) == s->pending_norm) {
				d->confirm[i] = 1;
				d->confirmed = 1;
				if (!d->since || s->pending < d->since)
					d->since = s->pending;
			}
		s->pending = 0;
	}
}

/* 3. The news, block by block: strong news is an update now; a small swap
 *    alone is held (or learned, when it swapped before); a block held
 *    back by a race and changed, steady, now is news: its change was
 *    real (announced a check late). */
static int find_strong(const decision *d)
{
	const ant_noise_cmp *c = &d->c;

	for (size_t i = 0; i < c->nb; i++) {
		const ant_noise_block *b = &c->b[i];
		if (b->gained && (!d->learn || d->watched || !swapped(c, b) || raced(d, b) ||
				  (rotating(suspect_find(d->n, b->block), b, d->now) && !learnable(c, b))))
			return 1;
	}
	return 0;
}

/* 2b. Blocks held back by a race at an earlier check, steady now: changed
 *     to what the second answer showed then, the change was real (news,
 *     find_strong()); changed to something else again, a widget (learned). */
static void judge_races(decision *d)
{
	for (size_t i = 0; d->learn && i < d->c.nb; i++) {
		ant_noise_block *b = &d->c.b[i];
		ant_detect_suspect *s = raced(d, b);

		if (!s || b->unstable || s->raced >= d->now || !b->gained ||
		    block_sig(b->block, d->c.cur, d->c.ncur) == s->raced_sig)
			continue;
		if (learn_block(d->n, &d->c, b, ANT_NOISE_CHECKS, d->now, d->v)) {
			suspect_drop(d->n, s);
			unmark_block(&d->c, b->block);
			b->gained = 0;
		}
	}
}

/* A race settled at this check, one way or the other. */
static void settle_races(decision *d)
{
	for (size_t i = 0; i < d->c.nb; i++) {
		ant_noise_block *b = &d->c.b[i];
		ant_detect_suspect *s = raced(d, b);

		if (s && !b->unstable && s->raced < d->now)
			s->raced = 0;
	}
}

/* A small swap (with learn): learned when it swapped before, news when
 * too big to be learned, part of the strong news, or held.  A swap in a
 * check with strong news is never learned: a part that changes only
 * when the rest of the page has news (a code browser's latest commit
 * message, beside its new author and hash) is that news, not a widget;
 * a widget is learned at its next swap alone. */
static void settle_swap(decision *d, ant_noise_block *b)
{
	ant_detect_suspect *s = suspect_find(d->n, b->block);
	int rot = rotating(s, b, d->now);

	if (rot && !d->strong && learn_block(d->n, &d->c, b, ANT_NOISE_CHECKS, d->now, d->v)) {
		suspect_drop(d->n, s);
		unmark_block(&d->c, b->block);
		b->gained = 0;
		return;
	}
	if (s)
		s->pending = 0;
	if (rot && !(d->strong && learnable(&d->c, b)))
		return;   /* too much text to be volatile: news */
	if (d->strong) {
		/* announced with the rest; the excerpt shows the rest and what
		 * is next to it (step 4) */
		unmark_swap(&d->c, b->block, d->swapnew);
		return;
	}
	if (!s)
		s = suspect_add(d->n, b->block);
	suspect_note(s, b, d->now);
	s->pending = d->now;
	s->pending_norm = b->first_new;
	d->v->held = 1;
	unmark_block(&d->c, b->block);
}

static void settle_swaps(decision *d)
{
	for (size_t i = 0; d->learn && !d->watched && i < d->c.nb; i++) {
		ant_noise_block *b = &d->c.b[i];

		if (b->gained && swapped(&d->c, b) && !raced(d, b))
			settle_swap(d, b);
	}
}

/* 4. With strong news, a small swap next to it is part of it (a new
 *    entry's heading); one elsewhere is a widget to watch. */
static void watch_swaps(decision *d)
{
	ant_noise_cmp *c = &d->c;

	join_aside(c, d->swapnew);
	for (size_t i = 0; i < c->nb; i++) {
		ant_noise_block *b = &c->b[i];
		ant_detect_suspect *s;
		int beside = 0;

		if (!b->gained || !swapped(c, b) || b->volatile_)
			continue;
		for (size_t k = 0; k < c->ncur && !beside; k++)
			beside = c->cur[k].block == b->block && d->swapnew[k] && c->isnew[k];
		if (beside)
			continue;
		if (!(s = suspect_find(d->n, b->block)))
			s = suspect_add(d->n, b->block);
		suspect_note(s, b, d->now);
	}
}

/* 5. Small blocks that stopped swapping are forgotten; learned blocks
 *    steady for ANT_NOISE_UNLEARN are unlearned (their keys join the
 *    reference kept next). */
static void forget_quiet(ant_detect_noise *n, int64_t now)
{
	for (size_t k = 0; k < n->nsus;)
		if (!n->sus[k].pending && now - n->sus[k].last > ANT_NOISE_WINDOW)
			suspect_drop(n, &n->sus[k]);
		else
			k++;
}

static void unlearn_steady(decision *d)
{
	ant_detect_noise *n = d->n;

	for (size_t k = 0; k < n->nvol;) {
		ant_detect_vblock *vb = &n->vol[k];
		uint32_t sig = 0;

		for (size_t i = 0; i < d->c.ncur; i++)
			if (d->c.cur[i].block == vb->block)
				sig += ant_noise_norm_of(&d->c.cur[i]) * 2654435761u + 1;
		if (!vb->changed || sig != vb->sig) {
			vb->sig = sig;
			vb->changed = d->now;
		} else if (d->now - vb->changed >= ANT_NOISE_UNLEARN) {
			memmove(vb, vb + 1, (n->nvol - k - 1) * sizeof *vb);
			n->nvol--;
			d->v->nunlearned++;
			continue;
		}
		k++;
	}
}

/* 6. The verdict: news, updated, since, and what the update added (the
 *    strong news and the confirmed changes, outside volatile blocks),
 *    whose array moves to v->pick. */
static void give_verdict(decision *d)
{
	ant_detect_verdict *v = d->v;
	const ant_detect_seg *cur = d->c.cur;
	size_t ncur = d->c.ncur;
	unsigned char *pick;
	int any = 0;

	for (size_t i = 0; i < d->c.nb; i++)
		if (d->c.b[i].gained)
			v->news = 1;
	v->updated = d->strong || d->confirmed;
	if (v->updated && !d->strong)
		v->since = d->since;
	if (!v->updated)
		return;
	pick = d->strong ? d->c.isnew : d->confirm;
	for (size_t i = 0; d->strong && i < ncur; i++)
		pick[i] |= d->confirm[i];
	for (size_t i = 0; i < ncur; i++)
		any |= pick[i] && !ant_detect_noise_find(d->n, cur[i].block);
	if (!any)
		return;
	v->pick = pick;
	if (d->strong)
		d->c.isnew = NULL;
	else
		d->confirm = NULL;
	for (size_t i = 0; i < ncur; i++)
		if (ant_detect_noise_find(d->n, cur[i].block))
			v->pick[i] = 0;
	/* the small swaps announced with the rest, not next to it: the
	 * excerpt's words when the rest says only who and when */
	for (size_t i = 0; d->strong && i < ncur; i++)
		if (d->swapnew[i] && !v->pick[i] && !ant_detect_noise_find(d->n, cur[i].block)) {
			if (!v->aside && !(v->aside = calloc(ncur, 1)))
				break;
			v->aside[i] = 1;
		}
}

/* The first check with segments: its multiset is the reference. */
static int take_baseline(ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			 ant_detect_verdict *v)
{
	size_t nk;
	ant_noise_key *k = ant_noise_sorted_keys(n, cur, ncur, &nk);
	int rc = k ? keep_keys(n, k, nk) : LB_ENOMEM;

	v->baseline = 1;
	free(k);
	return rc;
}

/* The comparison and the per-segment marks of one decision. */
static int decision_start(decision *d, const ant_detect_seg *cur, size_t ncur,
			  const ant_detect_seg *second, size_t nsecond)
{
	size_t room = ncur ? ncur : 1;

	if (ant_noise_cmp_build(&d->c, d->n, cur, ncur, second, nsecond) < 0)
		return LB_ENOMEM;
	if (!(d->confirm = calloc(2 * room, 1))) {
		ant_noise_cmp_free(&d->c);
		return LB_ENOMEM;
	}
	d->swapnew = d->confirm + room;
	return 0;
}

/* 0. Blocks whose text differs between the two answers in a few words
 *    only: those words are learned volatile (detect_noise_words.c) and
 *    masked, and the comparison is made again.  A block learning its
 *    first volatile words cannot be compared this time in the segments
 *    that hold them (the last check's hashes have the old token in them):
 *    those are no news now; its other segments are, and from the next
 *    check on all of it is.  A block that had volatile words and learns
 *    more is compared as it is: its token moved because the words beside
 *    it changed, and that is the author's edit.  Returns 0 or LB_ENOMEM. */
static int learn_words(decision *d, const ant_detect_seg *cur, size_t ncur, const ant_detect_seg *second)
{
	uint32_t first[ANT_NOISE_MAX_WBLOCKS];
	size_t nfirst = 0, nl = 0;
	ant_detect_verdict *v = d->v;
	ant_detect_seg *m = (ant_detect_seg *)d->c.cur, *ms = (ant_detect_seg *)d->second;

	for (size_t i = 0; i < d->c.nb; i++) {
		ant_noise_block *b = &d->c.b[i];
		int r;

		if (!b->unstable || b->volatile_ || nl == ANT_NOISE_MAX_WBLOCKS ||
		    !(r = ant_noise_words_learn(d->n, b->block, d->c.cur, d->c.ncur, d->second, d->nsecond,
						d->now)))
			continue;
		v->wlearned[nl++] = b->block;
		if (r == 1)
			first[nfirst++] = b->block;
	}
	if (!nl)
		return 0;
	v->nwlearned = nl;
	/* again, with the words learned now masked */
	free(d->confirm);
	d->confirm = NULL;
	ant_noise_cmp_free(&d->c);
	memset(&d->c, 0, sizeof d->c);
	memcpy(m, cur, ncur * sizeof *cur);
	memcpy(ms, second, d->nsecond * sizeof *second);
	if (ant_noise_words_mask(d->n, m, ncur, d->now) < 0 || ant_noise_words_mask(d->n, ms, d->nsecond, 0) < 0 ||
	    decision_start(d, m, ncur, ms, d->nsecond) < 0)
		return LB_ENOMEM;
	for (size_t k = 0; k < nl; k++)
		ant_noise_words_sample(d->n, v->wlearned[k], d->c.cur, d->c.ncur);
	for (size_t k = 0; k < nfirst; k++) {
		ant_noise_block *b = ant_noise_cmp_block(&d->c, first[k]);

		for (size_t i = 0; b && i < d->c.ncur; i++)
			if (d->c.cur[i].block == first[k] && d->c.isnew[i] && d->c.cur[i].norm != cur[i].norm) {
				d->c.isnew[i] = 0;
				b->gained -= b->gained > 0;
				v->held = 1;
			}
	}
	return 0;
}

/* The learned words that stayed put since the last check are the
 * author's: their contexts go (ant_noise_words_verify()), and the
 * segments whose hash that changes are marked in *moved (malloc'd, ncur
 * bytes; NULL when none): their keys cannot be compared with the last
 * check's this once.  0 or LB_ENOMEM. */
static int verify_words(ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur, unsigned char **moved)
{
	ant_detect_seg *before = masked_copy(n, cur, ncur, 0), *after = NULL;
	int r;

	*moved = NULL;
	if (!before)
		return LB_ENOMEM;
	if ((r = ant_noise_words_verify(n, cur, ncur)) <= 0) {
		free(before);
		return r;
	}
	if (!(after = masked_copy(n, cur, ncur, 0)) || !(*moved = calloc(ncur ? ncur : 1, 1))) {
		free(before);
		free(after);
		return LB_ENOMEM;
	}
	for (size_t i = 0; i < ncur; i++)
		(*moved)[i] = before[i].norm != after[i].norm;
	free(before);
	free(after);
	return 0;
}

/* Segments marked in moved (may be NULL) are no news in this check. */
static void unnews(decision *d, const unsigned char *moved)
{
	for (size_t i = 0; moved && i < d->c.ncur; i++)
		if (moved[i] && d->c.isnew[i]) {
			ant_noise_block *b = ant_noise_cmp_block(&d->c, d->c.cur[i].block);

			d->c.isnew[i] = 0;
			if (b && b->gained)
				b->gained--;
			d->v->held = 1;
		}
}

int ant_detect_noise_decide(ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			    const ant_detect_seg *second, size_t nsecond, int learn, int64_t now,
			    ant_detect_verdict *v)
{
	int watched = learn & ANT_DETECT_WATCHED;
	decision d;
	ant_detect_noise saved;
	ant_detect_seg *mcur = NULL, *msec = NULL;
	unsigned char *unmasked = NULL;
	int rc = 0;

	learn &= 1;
	d = (decision){ .n = n, .learn = learn, .watched = watched, .now = now, .v = v, .nsecond = nsecond };

	memset(v, 0, sizeof *v);
	if (ncur > ANT_NOISE_MAX_KEYS)
		ncur = ANT_NOISE_MAX_KEYS;
	ant_detect_noise_copy(&saved, n);   /* the tables, to undo on OOM (keys are replaced last) */
	/* the volatile words learned before are masked from the start, but
	 * for those that stayed put since the last check (the author's) */
	if ((learn && n->has_keys && n->nwords && verify_words(n, cur, ncur, &unmasked) < 0) ||
	    !(mcur = masked_copy(n, cur, ncur, learn ? now : 0)) ||
	    (second && !(msec = masked_copy(n, second, nsecond, 0)))) {
		free(mcur);
		free(unmasked);
		ant_detect_noise_copy(n, &saved);
		v->baseline = 1;
		return LB_ENOMEM;
	}
	d.second = msec;
	if (!n->has_keys) {
		rc = take_baseline(n, mcur, ncur, v);
		free(mcur);
		free(msec);
		return rc;
	}
	if (decision_start(&d, mcur, ncur, msec, nsecond) < 0) {
		free(mcur);
		free(msec);
		free(unmasked);
		ant_detect_noise_copy(n, &saved);
		v->baseline = 1;
		return LB_ENOMEM;
	}
	if (learn && msec && learn_words(&d, cur, ncur, second) < 0) {
		free(d.confirm);
		ant_noise_cmp_free(&d.c);
		free(mcur);
		free(msec);
		free(unmasked);
		ant_detect_noise_copy(n, &saved);
		ant_detect_verdict_release(v);
		v->baseline = 1;
		return LB_ENOMEM;
	}
	unnews(&d, unmasked);
	free(unmasked);
	drop_unstable(&d);
	confirm_held(&d);
	judge_races(&d);
	d.strong = find_strong(&d);
	settle_swaps(&d);
	settle_races(&d);
	if (d.strong && learn)
		watch_swaps(&d);
	forget_quiet(n, now);
	give_verdict(&d);
	if (learn) {
		unlearn_steady(&d);
		ant_noise_words_forget(n, now, &v->nunlearned);
	}
	free(d.confirm);
	if (keep_keys(n, d.c.ck, d.c.nck) < 0)
		rc = LB_ENOMEM;
	ant_noise_cmp_free(&d.c);
	free(mcur);
	free(msec);
	if (rc < 0) {
		ant_detect_noise_copy(n, &saved);
		ant_detect_verdict_release(v);
		v->baseline = 1;
	}
	return rc;
}

/* ---- the excerpt and the labels --------------------------------------------------------- */

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
	ant_detect_wblock *wb = (ant_detect_wblock *)ant_detect_noise_words(n, block);

	if (!vb && wb && path)
		clip_into(wb->path, sizeof wb->path, path, 1);
	if (!vb)
		return;
	if (path)
		clip_into(vb->path, sizeof vb->path, path, 1);
	if (text)
		clip_into(vb->sample, sizeof vb->sample, text, 0);
}
