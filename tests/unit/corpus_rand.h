/*
 * corpus_rand.h: the test corpora's per-request randomness (noise_corpus.h,
 * words_corpus.h): a fixed integer hash of the request's number, so that a
 * "random" token is the same in every run and on every machine.
 */
#ifndef CORPUS_RAND_H
#define CORPUS_RAND_H

static inline unsigned corpus_rand(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

#endif
