/*
 * detect_noise_words.c: volatility per word (ant_detect.h, "the noise-proof
 * text rule").  A block whose text differs between an answer and its
 * re-fetch a second later holds something made per request: a token, a
 * random id, a nonce.  When only some of its words differ, those words are
 * the volatile ones and the words that stayed put are the author's: the
 * block is not learned whole (then every later edit of it is missed), its
 * differing words are learned by their place in the text -- the words just
 * before and after them -- and masked from then on, so that the rest of
 * the block is compared as before.  A block most of whose text differs (a
 * rotating ad, a random list) is left to the block rule.
 *
 * Words: runs of ASCII letters, digits and "_-+/=." inside them (a token,
 * a base64 nonce, "req-7f3a9c2e" are one word), a run of other non-space
 * bytes (a phrase of Japanese text), or one ASCII punctuation mark.  A
 * word's hash folds each run of digits to one '#', as the normalised text
 * does, so a neighbour that is a counter does not move the place.
 * Pure: no I/O, no clock.
 */
#include "detect_noise_cmp.h"

#include <stdlib.h>
#include <string.h>

#include "ant_noise.h"
#include "lb_buf.h"

/* Words of one segment, or of a block's segments in a row (an edge between). */
typedef struct wlist {
	uint32_t *h;             /* hashes; ANT_NOISE_EDGE between segments */
	uint32_t *off, *len;     /* bytes in the segment's text */
	uint32_t *seg;           /* index of the segment (in its array) */
	size_t n, cap;
	int oom;
} wlist;

#define WORDS_MAX 512        /* words of a block diffed; more: the block rule */

static int ascii_word(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* Inside a word (between two word characters): "-+/=." join a token's parts. */
static int joiner(unsigned char c)
{
	return c == '-' || c == '+' || c == '/' || c == '=' || c == '.';
}

static uint32_t word_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= '0' && c <= '9') {
			while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
			c = '#';
		}
		h = (h ^ c) * 16777619u;
	}
	return h == ANT_NOISE_EDGE ? h + 1 : h;
}

static void wl_add(wlist *w, uint32_t h, size_t off, size_t len, size_t seg)
{
	if (w->n == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 64;
		uint32_t *a = realloc(w->h, 4 * nc * sizeof *a);

		if (!a) {
			w->oom = 1;
			return;
		}
		/* one allocation, four arrays: move the old ones to their new places */
		memmove(a + 3 * nc, a + 3 * w->cap, w->cap * sizeof *a);
		memmove(a + 2 * nc, a + 2 * w->cap, w->cap * sizeof *a);
		memmove(a + nc, a + w->cap, w->cap * sizeof *a);
		w->h = a;
		w->off = a + nc;
		w->len = a + 2 * nc;
		w->seg = a + 3 * nc;
		w->cap = nc;
	}
	w->h[w->n] = h;
	w->off[w->n] = (uint32_t)off;
	w->len[w->n] = (uint32_t)len;
	w->seg[w->n++] = (uint32_t)seg;
}

/* Appends the words of s[0..n) (segment seg). */
static void split_words(wlist *w, const char *s, size_t n, size_t seg)
{
	size_t i = 0;

	while (i < n && !w->oom) {
		unsigned char c = (unsigned char)s[i];
		size_t a = i;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		}
		if (ascii_word(c)) {
			while (i < n && (ascii_word((unsigned char)s[i]) ||
					 (joiner((unsigned char)s[i]) && i + 1 < n &&
					  ascii_word((unsigned char)s[i + 1]) && i > a)))
				i++;
		} else if (c >= 0x80) {
			while (i < n && (unsigned char)s[i] >= 0x80)
				i++;
		} else {
			i++;
		}
		wl_add(w, word_hash(s + a, i - a), a, i - a, seg);
	}
}

static void wl_free(wlist *w)
{
	free(w->h);
	memset(w, 0, sizeof *w);
}

/* ---- masking: a block's learned volatile words out of its segments' hashes ---- */

/* Does a learned run start at word i of w (one segment's words)?  Its length,
 * or 0; the context's index into *which when not NULL. */
static size_t run_at(const ant_detect_wblock *wb, const wlist *w, size_t i, int *which)
{
	for (int k = 0; k < wb->nctx; k++) {
		const ant_detect_wctx *x = &wb->ctx[k];
		size_t e = i + x->words;

		if (!x->words || e > w->n)
			continue;
		if ((i ? w->h[i - 1] : ANT_NOISE_EDGE) == x->left &&
		    (e < w->n ? w->h[e] : ANT_NOISE_EDGE) == x->right) {
			if (which)
				*which = k;
			return x->words;
		}
	}
	return 0;
}

/* The hash of s's normalised text with the runs of wb masked (each as one
 * U+2026), into *norm; the masked text into out when not NULL.  Returns
 * how many runs were masked (0: *norm untouched), or LB_ENOMEM. */
static int mask_text(const ant_detect_wblock *wb, const char *s, size_t n, uint32_t *norm, lb_buf *out)
{
	wlist w = { 0 };
	lb_buf b = LB_BUF_INIT;
	size_t at = 0;
	int runs = 0;

	split_words(&w, s, n, 0);
	for (size_t i = 0; i < w.n && !w.oom;) {
		size_t r = run_at(wb, &w, i, NULL);

		if (!r) {
			i++;
			continue;
		}
		w.oom |= lb_buf_add(&b, s + at, w.off[i] - at) < 0 || lb_buf_adds(&b, "\xe2\x80\xa6") < 0;
		at = w.off[i + r - 1] + w.len[i + r - 1];
		runs++;
		i += r;
	}
	if (runs && !w.oom)
		w.oom |= lb_buf_add(&b, s + at, n - at) < 0;
	if (w.oom) {
		wl_free(&w);
		lb_buf_release(&b);
		return LB_ENOMEM;
	}
	if (runs) {
		*norm = ant_noise_hash(b.data, b.len);
		if (out)
			w.oom |= lb_buf_add(out, b.data, b.len) < 0;
	}
	wl_free(&w);
	lb_buf_release(&b);
	return runs;
}

int ant_noise_words_mask(ant_detect_noise *n, ant_detect_seg *segs, size_t ns, int64_t now)
{
	int any = 0;

	for (size_t i = 0; n->nwords && i < ns; i++) {
		ant_detect_wblock *wb = (ant_detect_wblock *)ant_detect_noise_words(n, segs[i].block);
		int r;

		if (!wb || !segs[i].text)
			continue;
		if ((r = mask_text(wb, segs[i].text, segs[i].len, &segs[i].norm, NULL)) < 0)
			return LB_ENOMEM;
		if (r && now)
			wb->seen = now;
		any |= r > 0;
	}
	return any;
}

/* ---- checking: a learned word that stayed put is the author's -------------------
 *
 * A run learned from two answers that differed because the author saved
 * between them holds the author's words, not a token: at the next checks
 * it shows the same words.  A token made per request never does.  So each
 * context remembers what it masked at the last check (an order-blind sum
 * of the runs' hashes) and is dropped when it masks the same again. */

/* Adds to sum[k] the hashes of the runs of wb's context k in s[0..n);
 * 0 or LB_ENOMEM. */
static int run_sums(const ant_detect_wblock *wb, const char *s, size_t n, uint32_t *sum, int *hit)
{
	wlist w = { 0 };

	split_words(&w, s, n, 0);
	for (size_t i = 0; i < w.n && !w.oom;) {
		int k = 0;
		size_t r = run_at(wb, &w, i, &k);
		uint32_t h = 2166136261u;

		if (!r) {
			i++;
			continue;
		}
		for (size_t j = i; j < i + r; j++)
			h = (h ^ w.h[j]) * 16777619u;
		sum[k] += h * 2654435761u + 1;
		hit[k] = 1;
		i += r;
	}
	if (w.oom) {
		wl_free(&w);
		return LB_ENOMEM;
	}
	wl_free(&w);
	return 0;
}

/* Drops context k of wb. */
static void ctx_drop(ant_detect_wblock *wb, int k)
{
	memmove(&wb->ctx[k], &wb->ctx[k + 1], (size_t)(wb->nctx - k - 1) * sizeof wb->ctx[0]);
	wb->nctx--;
}

int ant_noise_words_verify(ant_detect_noise *n, const ant_detect_seg *segs, size_t ns)
{
	int dropped = 0;

	for (size_t b = 0; b < n->nwords;) {
		ant_detect_wblock *wb = &n->words[b];
		uint32_t sum[ANT_NOISE_MAX_WCTX] = { 0 };
		int hit[ANT_NOISE_MAX_WCTX] = { 0 };

		for (size_t i = 0; i < ns; i++)
			if (segs[i].block == wb->block && segs[i].text &&
			    run_sums(wb, segs[i].text, segs[i].len, sum, hit) < 0)
				return LB_ENOMEM;
		for (int k = wb->nctx; k-- > 0;) {
			if (!hit[k])
				continue;
			if (wb->ctx[k].last && wb->ctx[k].last == sum[k]) {
				ctx_drop(wb, k);   /* the same words again: the author's */
				dropped = 1;
			} else {
				wb->ctx[k].last = sum[k] ? sum[k] : 1;
			}
		}
		if (!wb->nctx)
			n->words[b] = n->words[--n->nwords];
		else
			b++;
	}
	return dropped;
}

/* ---- learning: which words of a block differ between two answers ------------ */

/* The words of block's segments in segs, in a row, an edge between two. */
static void block_words(wlist *w, uint32_t block, const ant_detect_seg *segs, size_t ns)
{
	int first = 1;

	for (size_t i = 0; i < ns && !w->oom; i++) {
		if (segs[i].block != block)
			continue;
		if (!segs[i].text) {
			w->oom = 1;   /* no text: nothing to learn from */
			return;
		}
		if (!first)
			wl_add(w, ANT_NOISE_EDGE, 0, 0, i);
		first = 0;
		split_words(w, segs[i].text, segs[i].len, i);
	}
}

/* Marks in only_a / only_b the words of a and b outside their longest
 * common subsequence (both are at most WORDS_MAX words). */
static int diff_words(const wlist *a, const wlist *b, unsigned char *only_a, unsigned char *only_b)
{
	size_t na = a->n, nb = b->n;
	uint16_t *t = calloc((na + 1) * (nb + 1), sizeof *t);
	size_t i = na, j = nb;

	if (!t)
		return LB_ENOMEM;
#define T(x, y) t[(x) * (nb + 1) + (y)]
	for (size_t x = na; x-- > 0;)
		for (size_t y = nb; y-- > 0;)
			T(x, y) = a->h[x] == b->h[y] ? (uint16_t)(T(x + 1, y + 1) + 1)
				 : T(x + 1, y) > T(x, y + 1) ? T(x + 1, y) : T(x, y + 1);
	memset(only_a, 1, na);
	memset(only_b, 1, nb);
	for (i = 0, j = 0; i < na && j < nb;) {
		if (a->h[i] == b->h[j]) {
			only_a[i++] = 0;
			only_b[j++] = 0;
		} else if (T(i + 1, j) >= T(i, j + 1)) {
			i++;
		} else {
			j++;
		}
	}
#undef T
	free(t);
	return 0;
}

/* Adds the run of w's words [s, e) to the contexts in x[0..*nx) (at most
 * ANT_NOISE_MAX_WCTX); 0, or LB_ETOOBIG when there is no room. */
static int add_run(const wlist *w, size_t s, size_t e, ant_detect_wctx *x, int *nx)
{
	ant_detect_wctx c = { s ? w->h[s - 1] : ANT_NOISE_EDGE, e < w->n ? w->h[e] : ANT_NOISE_EDGE,
			      (unsigned char)(e - s > 255 ? 255 : e - s), 0 };

	for (int k = 0; k < *nx; k++)
		if (x[k].left == c.left && x[k].right == c.right && x[k].words == c.words)
			return 0;
	if (*nx == ANT_NOISE_MAX_WCTX)
		return LB_ETOOBIG;
	x[(*nx)++] = c;
	return 0;
}

/* The runs of w's words marked in only[], as contexts; their bytes into
 * *bytes.  0, or LB_ETOOBIG when they are too many to keep or one is a
 * whole segment. */
static int runs_of(const wlist *w, const unsigned char *only, ant_detect_wctx *x, int *nx,
		   uint64_t *bytes)
{
	for (size_t i = 0; i < w->n;) {
		size_t e = i;

		if (!only[i] || w->h[i] == ANT_NOISE_EDGE) {
			i++;
			continue;
		}
		while (e < w->n && only[e] && w->h[e] != ANT_NOISE_EDGE)
			*bytes += w->len[e++];
		/* a whole segment replaced (an item of a rotating list) has no
		 * words around it to know it by: the block rule's */
		if ((i == 0 || w->h[i - 1] == ANT_NOISE_EDGE) && (e == w->n || w->h[e] == ANT_NOISE_EDGE))
			return LB_ETOOBIG;
		if (add_run(w, i, e, x, nx) < 0)
			return LB_ETOOBIG;
		i = e;
	}
	return 0;
}

static uint64_t words_bytes(const wlist *w)
{
	uint64_t n = 0;

	for (size_t i = 0; i < w->n; i++)
		n += w->len[i];
	return n;
}

/* The block's entry for its volatile words, made when new (the one seen
 * longest ago goes when the table is full). */
static ant_detect_wblock *wblock_get(ant_detect_noise *n, uint32_t block, int64_t now)
{
	ant_detect_wblock *wb = (ant_detect_wblock *)ant_detect_noise_words(n, block);

	if (wb)
		return wb;
	if (n->nwords == ANT_NOISE_MAX_WBLOCKS) {
		size_t old = 0;

		for (size_t i = 1; i < n->nwords; i++)
			if (n->words[i].seen < n->words[old].seen)
				old = i;
		n->words[old] = n->words[--n->nwords];
	}
	wb = &n->words[n->nwords++];
	memset(wb, 0, sizeof *wb);
	wb->block = block;
	wb->since = now;
	return wb;
}

/* The contexts x[0..nx) join the block's, newest first, the oldest beyond
 * ANT_NOISE_MAX_WCTX dropped. */
static void wblock_take(ant_detect_wblock *wb, const ant_detect_wctx *x, int nx, int64_t now)
{
	ant_detect_wctx all[2 * ANT_NOISE_MAX_WCTX];
	int m = 0;

	for (int k = 0; k < nx; k++)
		all[m++] = x[k];
	for (int k = 0; k < wb->nctx; k++) {
		int dup = 0;

		for (int j = 0; j < nx; j++)
			dup |= x[j].left == wb->ctx[k].left && x[j].right == wb->ctx[k].right &&
			       x[j].words == wb->ctx[k].words;
		if (!dup)
			all[m++] = wb->ctx[k];
	}
	wb->nctx = m < ANT_NOISE_MAX_WCTX ? m : ANT_NOISE_MAX_WCTX;
	memcpy(wb->ctx, all, (size_t)wb->nctx * sizeof *wb->ctx);
	wb->seen = now;
}

int ant_noise_words_learn(ant_detect_noise *n, uint32_t block, const ant_detect_seg *a, size_t na,
			  const ant_detect_seg *b, size_t nb, int64_t now)
{
	wlist wa = { 0 }, wb = { 0 };
	unsigned char *only = NULL;
	ant_detect_wctx x[ANT_NOISE_MAX_WCTX];
	int nx = 0, rc = 0, had;
	uint64_t differ = 0, total;
	ant_detect_wblock *e;

	block_words(&wa, block, a, na);
	block_words(&wb, block, b, nb);
	if (wa.oom || wb.oom || !wa.n || !wb.n || wa.n > WORDS_MAX || wb.n > WORDS_MAX ||
	    !(only = malloc(wa.n + wb.n)) || diff_words(&wa, &wb, only, only + wa.n) < 0)
		goto out;
	total = words_bytes(&wa) > words_bytes(&wb) ? words_bytes(&wa) : words_bytes(&wb);
	if (runs_of(&wa, only, x, &nx, &differ) < 0 || runs_of(&wb, only + wa.n, x, &nx, &differ) < 0)
		goto out;
	/* differ counts both answers' words: half of it is one answer's */
	if (!nx || differ * 100 > (uint64_t)ANT_NOISE_WORD_PCT * 2 * total)
		goto out;
	had = ant_detect_noise_words(n, block) != NULL;
	e = wblock_get(n, block, now);
	wblock_take(e, x, nx, now);
	rc = had ? 2 : 1;
out:
	wl_free(&wa);
	wl_free(&wb);
	free(only);
	return rc;
}

void ant_noise_words_sample(ant_detect_noise *n, uint32_t block, const ant_detect_seg *segs, size_t ns)
{
	ant_detect_wblock *wb = (ant_detect_wblock *)ant_detect_noise_words(n, block);
	lb_buf b = LB_BUF_INIT;
	size_t cut = 0;

	if (!wb)
		return;
	for (size_t i = 0; i < ns && !b.len; i++) {
		uint32_t h;

		if (segs[i].block == block && segs[i].text &&
		    mask_text(wb, segs[i].text, segs[i].len, &h, &b) < 0)
			break;
	}
	if (!b.len)
		return;
	/* the start that fits, cut on a character boundary */
	for (size_t i = 0; i < b.len && i < sizeof wb->sample; i++)
		if (((unsigned char)b.data[i] & 0xC0) != 0x80)
			cut = i;
	if (b.len < sizeof wb->sample)
		cut = b.len;
	memcpy(wb->sample, b.data, cut);
	wb->sample[cut] = '\0';
	lb_buf_release(&b);
}

void ant_noise_words_forget(ant_detect_noise *n, int64_t now, size_t *forgotten)
{
	for (size_t i = 0; i < n->nwords;)
		if (now - n->words[i].seen >= ANT_NOISE_UNLEARN) {
			n->words[i] = n->words[--n->nwords];
			(*forgotten)++;
		} else {
			i++;
		}
}
