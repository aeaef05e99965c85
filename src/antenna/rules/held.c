/*
 * held.c: changes the text rules hold for a check (a small swap,
 * detect_noise.c; numbers changed, tokens.c) confirmed by something other
 * than the next answer's text: a 304 to our conditional request (the
 * answer is the one that showed them: they stayed), or a source that
 * dates a change of the page within the check that held them (the
 * caller decides that: update_text.c).  Pure: no I/O, no clock.
 */
#include "ant_detect.h"
#include "ant_tokens.h"

/* The earlier of two first sightings (0: none). */
static int64_t earlier(int64_t a, int64_t b)
{
	return !a || (b && b < a) ? b : a;
}

int64_t ant_detect_noise_confirm(ant_detect_noise *n, int64_t from, const ant_detect_seg *cur,
				 size_t ncur, unsigned char *pick)
{
	int64_t since = 0;

	for (size_t k = 0; k < n->nsus; k++) {
		ant_detect_suspect *s = &n->sus[k];

		if (!s->pending || s->pending < from)
			continue;
		since = earlier(since, s->pending);
		for (size_t i = 0; pick && i < ncur; i++)
			if (cur[i].block == s->block &&
			    (cur[i].norm & ANT_NOISE_NORM_MASK) == (s->pending_norm & ANT_NOISE_NORM_MASK))
				pick[i] = 1;
		s->pending = 0;
	}
	return since;
}

int64_t ant_tokens_confirm(ant_tokens *t, int64_t from, const ant_page_seg *seg, size_t nseg,
			   unsigned char *pick)
{
	int64_t since = 0;

	for (size_t k = 0; k < t->nheld;) {
		const ant_tokens_held *h = &t->held[k];

		if (h->since < from) {
			k++;
			continue;
		}
		since = earlier(since, h->since);
		/* the key as tokens.c folds it: block and normalised text */
		for (size_t i = 0; pick && i < nseg && i < ANT_TOKENS_MAX_KEYS; i++)
			if ((seg[i].block * 0x9e3779b1u ^ seg[i].norm) == h->key)
				pick[i] = 1;
		t->held[k] = t->held[--t->nheld];
	}
	return since;
}
