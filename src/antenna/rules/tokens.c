/*
 * tokens.c: volatility per token (ant_tokens.h): a segment changed only in
 * its numbers, dates or times is held for a check; it is an edit when it
 * stays, a counter when it changes again.
 *
 * A segment is known by its block and normalised text folded to 32 bits;
 * a key the page shows more than once (the same "コメント(#)" under every
 * entry) is ambiguous and left out, so a change is always one segment's.
 * So is a segment whose normalised text the page shows elsewhere with
 * other numbers (a calendar's cells, "28", "29"...): its numbers can move
 * to another place by markup alone -- the "today" class moving from 28 to
 * 29 makes td.today's number change with no word of the page changed --
 * and a change of markup is no change.
 */
#include "ant_tokens.h"

#include <stdlib.h>
#include <string.h>

#include "ant_clock.h"
#include "ant_noise.h"
#include "lb_buf.h"
#include "lb_error.h"

void ant_tokens_init(ant_tokens *t)
{
	memset(t, 0, sizeof *t);
}

void ant_tokens_release(ant_tokens *t)
{
	free(t->keys);
	ant_tokens_init(t);
}

int ant_tokens_has_number(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			return 1;
		/* ０-９: EF BC 90 - EF BC 99 */
		if (p[i] == 0xEF && i + 2 < n && p[i + 1] == 0xBC && p[i + 2] >= 0x90 && p[i + 2] <= 0x99)
			return 1;
	}
	return 0;
}

void ant_tokens_verdict_release(ant_tokens_verdict *v)
{
	free(v->pick);
	memset(v, 0, sizeof *v);
}

/* One segment of this check: its key, its text's 16 bits, its index, and
 * its tokens' marks and places (off: from the segment's start). */
typedef struct cur_seg {
	uint32_t key;
	uint16_t raw;
	uint32_t idx;
	uint8_t nmarks;
	uint8_t had;    /* the last check had its key */
	uint8_t same;   /* as the last check's, or moved only as clocks */
	uint32_t mark[ANT_TOKENS_MAX_MARKS];
	uint32_t off[ANT_TOKENS_MAX_MARKS];
} cur_seg;

/* The marks of a segment's numbers, dates and times (ant_clock.h); none
 * when it has more than ANT_TOKENS_MAX_MARKS. */
static void mark_seg(cur_seg *c, const char *s, size_t n, int64_t now)
{
	ant_noise_group g[ANT_TOKENS_MAX_MARKS];
	size_t ng = ant_noise_groups(s, n, g, ANT_TOKENS_MAX_MARKS);

	c->nmarks = 0;
	if (ng > ANT_TOKENS_MAX_MARKS)
		return;
	for (size_t i = 0; i < ng; i++) {
		ant_clock k;

		ant_clock_read(s + g[i].off, n - g[i].off, s, g[i].off, now, &k);
		c->mark[i] = ant_clock_mark(&k, s + g[i].off, g[i].len);
		c->off[i] = g[i].off;
	}
	c->nmarks = (uint8_t)ng;
}

static int cmp_cur(const void *a, const void *b)
{
	const cur_seg *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Leaves out of c[0..m) the segments whose normalised text the page shows
 * with another text as written too; returns how many stay (out of
 * memory: all, as before this rule). */
static size_t drop_mixed(const ant_page_seg *seg, cur_seg *c, size_t m)
{
	uint64_t *t = malloc((m ? m : 1) * sizeof *t);
	size_t nmixed = 0, kept = 0;

	if (!t)
		return m;
	for (size_t i = 0; i < m; i++)
		t[i] = (uint64_t)seg[c[i].idx].norm << 32 | seg[c[i].idx].raw;
	qsort(t, m, sizeof *t, cmp_u64);
	/* t[0..nmixed): the norms shown with two texts or more, sorted */
	for (size_t i = 0, j; i < m; i = j) {
		int mixed = 0;

		for (j = i + 1; j < m && t[j] >> 32 == t[i] >> 32; j++)
			mixed |= t[j] != t[i];
		if (mixed)
			t[nmixed++] = t[i] >> 32;
	}
	for (size_t i = 0; i < m; i++) {
		uint64_t norm = seg[c[i].idx].norm;

		if (!bsearch(&norm, t, nmixed, sizeof *t, cmp_u64))
			c[kept++] = c[i];
	}
	free(t);
	return kept;
}

/* This check's segments, sorted by key, the keys shown more than once out. */
static cur_seg *cur_of(const ant_page_seg *seg, size_t nseg, const unsigned char *skip, size_t *n)
{
	cur_seg *c = malloc((nseg ? nseg : 1) * sizeof *c);
	size_t m = 0, k = 0;

	if (!c)
		return NULL;
	for (size_t i = 0; i < nseg && i < ANT_TOKENS_MAX_KEYS; i++)
		if (!skip || !skip[i]) {
			memset(&c[m], 0, sizeof c[m]);
			c[m].key = seg[i].block * 0x9e3779b1u ^ seg[i].norm;
			c[m].raw = (uint16_t)(seg[i].raw ^ seg[i].raw >> 16);
			c[m].idx = (uint32_t)i;
			m++;
		}
	m = drop_mixed(seg, c, m);
	qsort(c, m, sizeof *c, cmp_cur);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;

		while (j < m && c[j].key == c[i].key)
			j++;
		if (j == i + 1)
			c[k++] = c[i];
		i = j;
	}
	*n = k;
	return c;
}

static const ant_tokens_key *find_key(const ant_tokens *t, uint32_t key)
{
	size_t lo = 0, hi = t->nkeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->keys[mid].key == key)
			return &t->keys[mid];
		if (t->keys[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static ant_tokens_held *find_held(ant_tokens *t, uint32_t key)
{
	for (size_t i = 0; i < t->nheld; i++)
		if (t->held[i].key == key)
			return &t->held[i];
	return NULL;
}

static ant_tokens_counter *find_ctr(ant_tokens *t, uint32_t key)
{
	for (size_t i = 0; i < t->nctr; i++)
		if (t->ctr[i].key == key)
			return &t->ctr[i];
	return NULL;
}

static void drop_held(ant_tokens *t, ant_tokens_held *h)
{
	*h = t->held[--t->nheld];
}

/* A counter learned now; when the table is full the one quiet longest goes. */
static void learn(ant_tokens *t, uint32_t key, int64_t now)
{
	size_t at = t->nctr;

	if (at == ANT_TOKENS_MAX_COUNTERS) {
		at = 0;
		for (size_t i = 1; i < t->nctr; i++)
			if (t->ctr[i].last < t->ctr[at].last)
				at = i;
	} else {
		t->nctr++;
	}
	t->ctr[at] = (ant_tokens_counter){ key, now, now };
}

/* Did the segment change only as clocks since the last check: every token
 * whose mark differs moved as one (ant_clock_moved())?  Only with both
 * checks' marks, the same number of them. */
static int clocks_only(const ant_tokens *t, const cur_seg *c, const ant_tokens_key *was, const ant_page_seg *seg,
		       const char *text, int64_t now)
{
	const char *s;
	size_t n;
	int moved = 0;

	if (!text || !was->nmarks || was->nmarks != c->nmarks || t->last <= 0)
		return 0;
	s = text + seg[c->idx].off;
	n = seg[c->idx].len;
	for (size_t i = 0; i < c->nmarks; i++) {
		ant_clock k;

		if (c->mark[i] == was->mark[i])
			continue;
		ant_clock_read(s + c->off[i], n - c->off[i], s, c->off[i], now, &k);
		if (!ant_clock_moved(was->mark[i], &k, t->last, now))
			return 0;
		moved = 1;
	}
	return moved;
}

/* Sentences of one check whose numbers moved (not as clocks) from which
 * a page is a table of counts moving (a statistics page rebuilt, a
 * scoreboard): there a held number that rests once rested by chance. */
#define MOVING_NUMBERS 3

/* One segment whose key the last check had: held, confirmed, or a counter.
 * same: its text is the last check's, or moved only as clocks.  moving:
 * the page's other numbers moved in this check (MOVING_NUMBERS). */
static void judge(ant_tokens *t, const cur_seg *c, int same, int moving, int other_news, int64_t now,
		  ant_tokens_verdict *v)
{
	ant_tokens_counter *k = find_ctr(t, c->key);
	ant_tokens_held *h = find_held(t, c->key);

	if (same) {
		/* A held number resting while the page's other numbers move
		 * stays held: a count that did not move this time, not an
		 * author's edit (a price edit leaves the page's numbers still). */
		if (h && moving && !(other_news & ANT_TOKENS_WATCHED))
			return;
		if (h) {   /* the held change stayed: an edit */
			if (!v->updated || h->since < v->since)
				v->since = h->since;
			v->updated = 1;
			if (v->pick)
				v->pick[c->idx] = 1;
			v->picked = 1;
			drop_held(t, h);
		}
		return;
	}
	if (other_news & ANT_TOKENS_WATCHED) {   /* the operator's part: news now */
		if (h)
			drop_held(t, h);
		if (!v->updated || now < v->since)
			v->since = now;
		v->updated = 1;
		if (v->pick)
			v->pick[c->idx] = 1;
		v->picked = 1;
	} else if (k) {
		k->last = now;
	} else if (h) {   /* changed again: a counter */
		drop_held(t, h);
		learn(t, c->key, now);
		v->learned++;
	} else if (other_news & ANT_TOKENS_OTHER_NEWS) {   /* part of the update: its excerpt */
		if (v->pick)
			v->pick[c->idx] = 1;
		v->picked = 1;
	} else if (t->nheld < ANT_TOKENS_MAX_HELD) {
		t->held[t->nheld++] = (ant_tokens_held){ c->key, c->raw, now };
		v->held++;
	}
}

/* Held changes whose segment is gone, and counters quiet for long, go. */
static void tidy(ant_tokens *t, const cur_seg *c, size_t n, int64_t now, ant_tokens_verdict *v)
{
	for (size_t i = 0; i < t->nheld;) {
		int found = 0;

		for (size_t j = 0; j < n && !found; j++)
			found = c[j].key == t->held[i].key;
		if (found)
			i++;
		else
			drop_held(t, &t->held[i]);
	}
	for (size_t i = 0; i < t->nctr;) {
		if (now - t->ctr[i].last >= ANT_TOKENS_STABLE) {
			t->ctr[i] = t->ctr[--t->nctr];
			v->forgotten++;
		} else {
			i++;
		}
	}
}

int ant_tokens_decide(ant_tokens *t, const ant_page_seg *seg, size_t nseg, const unsigned char *skip,
		      int other_news, int64_t now, ant_tokens_verdict *v)
{
	return ant_tokens_decide_text(t, seg, nseg, NULL, skip, other_news, now, v);
}

/* The page's segments, places and normalised texts in order, hashed: equal
 * when nothing but numbers, dates and times changed. */
static uint32_t shape_of(const ant_page_seg *seg, size_t nseg)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < nseg; i++)
		h = ((h ^ seg[i].block) * 16777619u ^ seg[i].norm) * 16777619u;
	return h ^ (uint32_t)nseg;
}

int ant_tokens_decide_text(ant_tokens *t, const ant_page_seg *seg, size_t nseg, const char *text,
			   const unsigned char *skip, int other_news, int64_t now, ant_tokens_verdict *v)
{
	uint32_t shape = shape_of(seg, nseg);
	size_t n, moving = 0;
	cur_seg *c;
	ant_tokens_key *keys;

	memset(v, 0, sizeof *v);
	if (!(c = cur_of(seg, nseg, skip, &n)))
		return LB_ENOMEM;
	keys = malloc((n ? n : 1) * sizeof *keys);
	v->pick = t->has_keys ? calloc(nseg ? nseg : 1, 1) : NULL;
	if (!keys || (t->has_keys && !v->pick)) {
		free(c);
		free(keys);
		ant_tokens_verdict_release(v);
		return LB_ENOMEM;
	}
	for (size_t i = 0; text && i < n; i++) {
		const ant_tokens_key *was = t->has_keys ? find_key(t, c[i].key) : NULL;

		/* a sentence as it was has the marks it had: read once, not at
		 * every check */
		if (was && was->raw == c[i].raw && was->nmarks) {
			c[i].nmarks = was->nmarks;
			memcpy(c[i].mark, was->mark, sizeof c[i].mark);
		} else {
			mark_seg(&c[i], text + seg[c[i].idx].off, seg[c[i].idx].len, now);
		}
	}
	for (size_t i = 0; t->has_keys && i < n; i++) {
		const ant_tokens_key *was = find_key(t, c[i].key);
		int clocks;

		if (!was)
			continue;
		clocks = c[i].raw != was->raw && clocks_only(t, &c[i], was, seg, text, now);
		v->clocks += (size_t)clocks;
		c[i].had = 1;
		c[i].same = c[i].raw == was->raw || clocks;
		moving += !c[i].same;
	}
	for (size_t i = 0; t->has_keys && i < n; i++)
		if (c[i].had)
			judge(t, &c[i], c[i].same, moving >= MOVING_NUMBERS, other_news, now, v);
	tidy(t, c, n, now, v);
	for (size_t i = 0; i < n; i++) {
		memset(&keys[i], 0, sizeof keys[i]);
		keys[i].key = c[i].key;
		keys[i].raw = c[i].raw;
		keys[i].nmarks = c[i].nmarks;
		memcpy(keys[i].mark, c[i].mark, sizeof keys[i].mark);
	}
	t->last = now;
	v->moved = moving;
	v->quiet = t->quiet;
	if (text) {
		v->same_shape = t->has_shape && t->shape == shape;
		t->shape = shape;
		t->has_shape = 1;
		/* the page held still: nothing but clocks moved since the last
		 * check (update_text.c's corroboration of a change made once) */
		t->quiet = v->same_shape && !moving ? t->quiet + (t->quiet < ANT_TOKENS_QUIET_MAX) : 0;
	}
	free(t->keys);
	t->keys = keys;
	t->nkeys = n;
	t->has_keys = 1;
	free(c);
	if (!v->picked) {
		free(v->pick);
		v->pick = NULL;
	}
	return 0;
}

/* ---- the blob: 'T', version 4 (3: without the last check decided
 * without a second fetch; 2: without the quiet checks and the last change
 * announced for them either; 1: without the marks and the last check's
 * time either; all still read), then varints and fixed little-endian
 * fields */

static void put_var(lb_buf *b, uint64_t v, int *oom)
{
	unsigned char x[10];
	size_t n = 0;

	do {
		x[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		x[n] |= v ? 0x80 : 0;
		n++;
	} while (v);
	*oom |= lb_buf_add(b, (const char *)x, n) < 0;
}

static void put_le(lb_buf *b, uint32_t v, size_t bytes, int *oom)
{
	unsigned char x[4];

	for (size_t i = 0; i < bytes; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	*oom |= lb_buf_add(b, (const char *)x, bytes) < 0;
}

int ant_tokens_encode(const ant_tokens *t, unsigned char **blob, size_t *len)
{
	lb_buf b = LB_BUF_INIT;
	int oom = 0;

	*blob = NULL;
	*len = 0;
	oom |= lb_buf_adds(&b, "T\004") < 0;
	put_var(&b, t->last > 0 ? (uint64_t)t->last : 0, &oom);
	put_var(&b, (uint64_t)(t->has_shape != 0), &oom);
	put_le(&b, t->shape, 4, &oom);
	put_var(&b, t->quiet, &oom);
	put_var(&b, t->still > 0 ? (uint64_t)t->still : 0, &oom);
	put_var(&b, t->unasked > 0 ? (uint64_t)t->unasked : 0, &oom);
	put_var(&b, t->has_keys ? t->nkeys + 1 : 0, &oom);
	for (size_t i = 0; i < t->nkeys; i++) {
		put_le(&b, t->keys[i].key, 4, &oom);
		put_le(&b, t->keys[i].raw, 2, &oom);
		put_var(&b, t->keys[i].nmarks, &oom);
		for (size_t k = 0; k < t->keys[i].nmarks; k++)
			put_le(&b, t->keys[i].mark[k], 4, &oom);
	}
	put_var(&b, t->nheld, &oom);
	for (size_t i = 0; i < t->nheld; i++) {
		put_le(&b, t->held[i].key, 4, &oom);
		put_le(&b, t->held[i].raw, 2, &oom);
		put_var(&b, t->held[i].since > 0 ? (uint64_t)t->held[i].since : 0, &oom);
	}
	put_var(&b, t->nctr, &oom);
	for (size_t i = 0; i < t->nctr; i++) {
		put_le(&b, t->ctr[i].key, 4, &oom);
		put_var(&b, t->ctr[i].since > 0 ? (uint64_t)t->ctr[i].since : 0, &oom);
		put_var(&b, t->ctr[i].last > 0 ? (uint64_t)t->ctr[i].last : 0, &oom);
	}
	if (oom) {
		lb_buf_release(&b);
		return LB_ENOMEM;
	}
	*len = b.len;
	*blob = (unsigned char *)lb_buf_detach(&b, NULL);
	return *blob ? 0 : LB_ENOMEM;
}

typedef struct rd {
	const unsigned char *p, *end;
	int bad;
} rd;

static uint64_t get_var(rd *r)
{
	uint64_t v = 0;

	for (int s = 0; s < 64; s += 7) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << s;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static uint32_t get_le(rd *r, size_t bytes)
{
	uint32_t v = 0;

	if ((size_t)(r->end - r->p) < bytes) {
		r->bad = 1;
		return 0;
	}
	for (size_t i = 0; i < bytes; i++)
		v |= (uint32_t)r->p[i] << (8 * i);
	r->p += bytes;
	return v;
}

int ant_tokens_decode(ant_tokens *t, const void *blob, size_t len)
{
	rd r = { blob, (const unsigned char *)blob + len, 0 };
	uint64_t n;

	int version;

	ant_tokens_init(t);
	if (!blob || len < 2 || r.p[0] != 'T' || r.p[1] < 1 || r.p[1] > 4)
		return LB_EPARSE;
	version = r.p[1];
	r.p += 2;
	if (version >= 2) {
		t->last = (int64_t)get_var(&r);
		t->has_shape = get_var(&r) != 0;
		t->shape = get_le(&r, 4);
	}
	if (version >= 3) {
		uint64_t q = get_var(&r);

		t->quiet = q > ANT_TOKENS_QUIET_MAX ? ANT_TOKENS_QUIET_MAX : (unsigned)q;
		t->still = (int64_t)get_var(&r);
	}
	if (version >= 4)
		t->unasked = (int64_t)get_var(&r);
	n = get_var(&r);
	t->has_keys = n > 0;
	n -= n > 0;
	if (n > ANT_TOKENS_MAX_KEYS || (size_t)(r.end - r.p) < 6 * n ||
	    !(t->keys = calloc(n ? n : 1, sizeof *t->keys)))
		r.bad = 1;
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		t->keys[i].key = get_le(&r, 4);
		t->keys[i].raw = (uint16_t)get_le(&r, 2);
		t->keys[i].nmarks = 0;
		if (version >= 2) {
			uint64_t m = get_var(&r);

			r.bad |= m > ANT_TOKENS_MAX_MARKS;
			for (uint64_t k = 0; k < m && !r.bad; k++)
				t->keys[i].mark[k] = get_le(&r, 4);
			t->keys[i].nmarks = r.bad ? 0 : (uint8_t)m;
		}
		/* sorted, each key once: find_key() needs it */
		r.bad |= i > 0 && t->keys[i].key <= t->keys[i - 1].key;
		t->nkeys++;
	}
	n = r.bad ? 0 : get_var(&r);
	r.bad |= n > ANT_TOKENS_MAX_HELD;
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		t->held[i].key = get_le(&r, 4);
		t->held[i].raw = (uint16_t)get_le(&r, 2);
		t->held[i].since = (int64_t)get_var(&r);
		t->nheld++;
	}
	n = r.bad ? 0 : get_var(&r);
	r.bad |= n > ANT_TOKENS_MAX_COUNTERS;
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		t->ctr[i].key = get_le(&r, 4);
		t->ctr[i].since = (int64_t)get_var(&r);
		t->ctr[i].last = (int64_t)get_var(&r);
		t->nctr++;
	}
	if (r.bad || r.p != r.end) {
		ant_tokens_release(t);
		return LB_EPARSE;
	}
	return 0;
}

/* Is segment i next to a picked segment? */
static int beside_pick(const unsigned char *pick, size_t n, size_t i)
{
	return (i > 0 && pick[i - 1]) || (i + 1 < n && pick[i + 1]);
}

void ant_tokens_place_pick(const ant_page_seg *seg, size_t n, unsigned char *pick)
{
	for (size_t i = 0; i < n; i++) {
		if (!pick[i] || beside_pick(pick, n, i))
			continue;
		for (size_t j = 0; j < n; j++)
			if (j != i && !pick[j] && seg[j].block == seg[i].block && seg[j].norm == seg[i].norm &&
			    beside_pick(pick, n, j)) {
				pick[i] = 0;
				pick[j] = 1;
				break;
			}
	}
}

/* ---- labels that moved between rows ---------------------------------- */

typedef struct lword {
	const char *p;
	size_t n;
} lword;

#define LABEL_ROW_WORDS 64

/* The words of a normalised text into w[0..LABEL_ROW_WORDS): their count,
 * or LABEL_ROW_WORDS + 1 when there are more (not a row). */
static size_t label_words(const char *s, size_t n, lword *w)
{
	size_t k = 0;

	for (size_t i = 0; i < n;) {
		size_t st;

		while (i < n && s[i] == ' ')
			i++;
		for (st = i; i < n && s[i] != ' '; i++)
			;
		if (i > st) {
			if (k == LABEL_ROW_WORDS)
				return k + 1;
			w[k++] = (lword){ s + st, i - st };
		}
	}
	return k;
}

static int word_byte(unsigned char c)
{
	return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_';
}

/* Does w stand as a whole word in t[0..tn) outside [ex, ex + exn)? */
static int stands_in(const char *t, size_t tn, lword w, const char *ex, size_t exn)
{
	const char *p = t, *end = t + tn;

	while (p && (size_t)(end - p) >= w.n && (p = memmem(p, (size_t)(end - p), w.p, w.n))) {
		int whole = (p == t || !word_byte((unsigned char)p[-1])) &&
			    (p + w.n == end || !word_byte((unsigned char)p[w.n]));

		if (whole && (!ex || p < ex || p >= ex + exn))
			return 1;
		p++;
	}
	return 0;
}

/* Where a label stands: page outside s, old outside its line. */
typedef struct label_ctx {
	const char *s, *line, *old, *page;
	size_t n, linelen, oldlen, pagelen;
} label_ctx;

static int label_stands(const label_ctx *x, const char *w, size_t wn)
{
	lword v = { w, wn };

	/* three bytes or more: "a", "of" stand everywhere */
	return wn >= 3 && (stands_in(x->page, x->pagelen, v, x->s, x->n) ||
			   stands_in(x->old, x->oldlen, v, x->line, x->linelen));
}

/* Is r[0..rn) (what the longer text has after the shorter one) a few
 * labels, each but one standing elsewhere?  Labels written side by side
 * have no space between them in the text ("typoHEADmaster": two inline
 * links): a word standing elsewhere at either end of a run splits it. */
static int label_rest(const label_ctx *x, const char *r, size_t rn)
{
	size_t pieces = 0, seen = 0;

	for (size_t i = 0; i < rn;) {
		size_t st, cn, k;

		while (i < rn && r[i] == ' ')
			i++;
		for (st = i; i < rn && r[i] != ' '; i++)
			;
		if (!(cn = i - st))
			continue;
		if (cn > ANT_TOKENS_LABEL_LEN || memchr(r + st, '#', cn))
			return 0;
		if (label_stands(x, r + st, cn)) {
			pieces++, seen++;
			continue;
		}
		for (k = 2; k + 2 <= cn; k++)
			if (label_stands(x, r + st, k) || label_stands(x, r + st + k, cn - k))
				break;
		if (k + 2 <= cn) {
			pieces += 2;
			seen += (size_t)label_stands(x, r + st, k) + (size_t)label_stands(x, r + st + k, cn - k);
		} else if (cn >= 2) {
			pieces++;
		} else {
			return 0;   /* a letter added to a word: "jar" -> "jars" */
		}
	}
	return pieces && pieces <= ANT_TOKENS_LABEL_WORDS && seen && seen + 1 >= pieces;
}

/* Is the normalised text b[0..bn) the normalised a[0..an) (two words at
 * least) and a few labels after it? */
static int label_tail(const label_ctx *x, const char *a, size_t an, const char *b, size_t bn)
{
	lword w[LABEL_ROW_WORDS];

	if (bn <= an || memcmp(a, b, an) != 0 || label_words(a, an, w) < 2)
		return 0;
	return label_rest(x, b + an, bn - an);
}

int ant_tokens_labels_moved(const char *s, size_t n, const char *old, size_t oldlen, const char *page,
			    size_t pagelen)
{
	lb_buf ns = LB_BUF_INIT, nl = LB_BUF_INIT;
	label_ctx x = { s, NULL, old, page, n, 0, oldlen, pagelen };
	int yes = 0;

	if (!s || !n || !old || !oldlen || ant_noise_normalize(s, n, &ns) == (size_t)-1)
		goto out;
	for (const char *l = old, *end = old + oldlen; !yes && l < end;) {
		const char *e = memchr(l, '\n', (size_t)(end - l));
		size_t ll = e ? (size_t)(e - l) : (size_t)(end - l), r;

		lb_buf_reset(&nl);
		x.line = l;
		x.linelen = ll;
		/* a line is read only while it agrees with the segment: either
		 * must be the other's start, and most lines differ at once */
		r = ll && ll < 4 * n + 256 ? ant_noise_normalize_prefix(l, ll, ns.data, ns.len, &nl) : (size_t)-1;
		if (r != (size_t)-1 && r != ANT_NOISE_DIFFERS)
			yes = label_tail(&x, ns.data, ns.len, nl.data, nl.len) ||
			      label_tail(&x, nl.data, nl.len, ns.data, ns.len);
		l += ll + 1;
	}
out:
	lb_buf_release(&ns);
	lb_buf_release(&nl);
	return yes;
}
