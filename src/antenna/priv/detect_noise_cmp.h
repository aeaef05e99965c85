/*
 * detect_noise_cmp.h: one comparison of the noise-proof text rule
 * (detect_noise_cmp.c), for the files above it; not for commands.
 * detect_noise_cmp.c compares a check's segments with the last check's
 * multiset (and with a second answer) and fills an ant_noise_cmp;
 * detect_noise.c decides from it (ant_detect.h, "the noise-proof text
 * rule"); detect_noise_blob.c, which stores the state, sorts with it;
 * detect_noise_state.c, below them all, makes, frees and searches the
 * state (ant_detect.h).
 */
#ifndef ANT_DETECT_NOISE_CMP_H
#define ANT_DETECT_NOISE_CMP_H

#include <stddef.h>
#include <stdint.h>

#include "ant_detect.h"

/* A block's part in one comparison. */
typedef struct ant_noise_block {
	uint32_t block;
	uint32_t nsegs;          /* segments of the check */
	uint64_t len;            /* their bytes */
	uint32_t gained, lost;   /* keys new, keys gone */
	uint32_t first_new;      /* the first new key's norm */
	uint32_t lost_norm[ANT_NOISE_MAX_SEEN];
	int nlost_norm;
	int unstable;            /* differs between the two answers */
	int volatile_;
	uint32_t moved;          /* keys that are only its words moved from or to
				    another block (cancelled: neither new nor lost) */
} ant_noise_block;

/* A key (block << 32 | norm) and the index of its segment. */
typedef struct ant_noise_key {
	uint64_t key;
	uint32_t idx;
} ant_noise_key;

/* One comparison of a check with the last one. */
typedef struct ant_noise_cmp {
	const ant_detect_seg *cur;
	size_t ncur;
	ant_noise_key *ck;       /* cur's keys, sorted, volatile blocks left out */
	size_t nck;
	ant_noise_block *b;      /* every block of cur, and of the keys lost */
	size_t nb;
	uint32_t *slot;          /* hash table: index into b + 1, 0 empty */
	size_t mask;
	unsigned char *isnew;    /* per segment of cur */
	unsigned char *unstable; /* per segment of cur: its key's count differs in
				    the second answer (NULL without one) */
	uint64_t total, vol_len; /* bytes of the check's text, of its volatile part */
} ant_noise_cmp;

/* The text half of a key keeps ANT_NOISE_NORM_BITS of the segment's
 * hash (ant_detect.h: what the stored state has room for). */
static inline uint32_t ant_noise_norm_of(const ant_detect_seg *s)
{
	return s->norm & ANT_NOISE_NORM_MASK;
}

/*
 * Fills *c with the comparison of cur[0..ncur) with n->keys, and with
 * second[0..nsecond) when second is not NULL (then c->unstable is set).
 * Returns 0, or LB_ENOMEM (then *c is empty).  Release with
 * ant_noise_cmp_free().
 */
int ant_noise_cmp_build(ant_noise_cmp *c, const ant_detect_noise *n, const ant_detect_seg *cur,
			size_t ncur, const ant_detect_seg *second, size_t nsecond);
void ant_noise_cmp_free(ant_noise_cmp *c);

/* The block's entry in c->b, or NULL when neither answer has it. */
ant_noise_block *ant_noise_cmp_block(ant_noise_cmp *c, uint32_t block);

/* The keys of segs[0..ns) outside n's volatile blocks, sorted (by key,
 * then document order) in a malloc'd array of *nk; NULL (and *nk 0) when
 * out of memory. */
ant_noise_key *ant_noise_sorted_keys(const ant_detect_noise *n, const ant_detect_seg *segs,
				     size_t ns, size_t *nk);

/* ---- volatile words (detect_noise_words.c) ---- */

/* Masks the learned volatile words of n's blocks out of segs' norms (in
 * place; segments without text are left as they are); a block whose
 * words were found takes now as its last sighting (now 0: none).
 * Returns 1 when a word was masked, 0 when none, LB_ENOMEM. */
int ant_noise_words_mask(ant_detect_noise *n, ant_detect_seg *segs, size_t ns, int64_t now);

/* Learns which words of block differ between answers a and b (segments
 * with text): 1 when they are the block's first volatile words, 2 when
 * they joined those it had, 0 when nothing was learned (no text, too
 * many words, or too much of the block differs: a widget for the block
 * rule; or out of memory). */
int ant_noise_words_learn(ant_detect_noise *n, uint32_t block, const ant_detect_seg *a, size_t na,
			  const ant_detect_seg *b, size_t nb, int64_t now);

/* Drops the learned contexts that mask the same words as at the last
 * check (an author's words learned from answers the author saved between;
 * a token never repeats), remembering what the others mask now; a block
 * left with none is forgotten.  Returns 1 when one was dropped, 0 when
 * none, LB_ENOMEM. */
int ant_noise_words_verify(ant_detect_noise *n, const ant_detect_seg *segs, size_t ns);

/* The block's sample for 'antenna show': its first segment with volatile
 * words, those as "…". */
void ant_noise_words_sample(ant_detect_noise *n, uint32_t block, const ant_detect_seg *segs, size_t ns);

/* Blocks whose volatile words were not seen for ANT_NOISE_UNLEARN are
 * forgotten (the token is gone); each adds one to *forgotten. */
void ant_noise_words_forget(ant_detect_noise *n, int64_t now, size_t *forgotten);

/* Sorts v[0..n) in place (at once when sorted already); out of memory it
 * is left as it is: then the comparison is wrong, not unsafe. */
void ant_noise_sort_u64(uint64_t *v, size_t n);

#endif
