/*
 * detect_noise_state.c: the life of the noise-proof text rule's state of a
 * page (ant_detect_noise, ant_detect.h): made empty, released, and asked
 * whether a block is volatile.  Below the rule's three files: the
 * comparison (detect_noise_cmp.c), the decision (detect_noise.c) and the
 * blob (detect_noise_blob.c) each ask it, and it asks none of them.
 */
#include "ant_detect.h"

#include <stdlib.h>
#include <string.h>

void ant_detect_noise_init(ant_detect_noise *n)
{
	memset(n, 0, sizeof *n);
}

void ant_detect_noise_clear(ant_detect_noise *n)
{
	n->keys = NULL;
	n->nkeys = 0;
	n->has_keys = 0;
	n->nvol = n->nsus = n->nwords = 0;
}

void ant_detect_noise_release(ant_detect_noise *n)
{
	free(n->keys);
	ant_detect_noise_clear(n);
}

void ant_detect_noise_copy(ant_detect_noise *dst, const ant_detect_noise *src)
{
	dst->keys = src->keys;
	dst->nkeys = src->nkeys;
	dst->has_keys = src->has_keys;
	dst->nvol = src->nvol;
	dst->nsus = src->nsus;
	dst->nwords = src->nwords;
	memcpy(dst->vol, src->vol, src->nvol * sizeof *src->vol);
	memcpy(dst->sus, src->sus, src->nsus * sizeof *src->sus);
	memcpy(dst->words, src->words, src->nwords * sizeof *src->words);
}

const ant_detect_vblock *ant_detect_noise_find(const ant_detect_noise *n, uint32_t block)
{
	for (size_t i = 0; i < n->nvol; i++)
		if (n->vol[i].block == block)
			return &n->vol[i];
	return NULL;
}

const ant_detect_wblock *ant_detect_noise_words(const ant_detect_noise *n, uint32_t block)
{
	for (size_t i = 0; i < n->nwords; i++)
		if (n->words[i].block == block)
			return &n->words[i];
	return NULL;
}
