/*
 * ant_textstate.h: what the text rules keep of a page between checks, in
 * the store's one noise column (ant_store_page.noise): the noise rule's
 * state (ant_detect_noise_encode()), the token rule's (ant_tokens_encode())
 * and what the last check treated as the site's furniture
 * (ant_furniture.h), for 'antenna show'.  A column written before the
 * token rule holds the noise rule's blob alone ('N'...): it reads as that,
 * with no token state and no furniture.
 */
#ifndef ANT_TEXTSTATE_H
#define ANT_TEXTSTATE_H

#include <stddef.h>

#include "ant_furniture.h"

typedef struct ant_textstate {
	const unsigned char *noise;   /* the noise rule's blob; NULL when none */
	size_t noise_len;
	const unsigned char *tokens;  /* the token rule's blob; NULL when none */
	size_t tokens_len;
	ant_furniture furniture;      /* what the last check left out; why "" = nothing */
	const char *held;             /* the text of the changes the last check held, the
					 excerpt of the check that confirms them by a 304
					 (not NUL-terminated); NULL when none */
	size_t held_len;
} ant_textstate;

/* Reads blob (len bytes; NULL or empty: nothing kept yet) into *s, whose
 * pointers point into blob.  Returns 0, or LB_EPARSE when the blob is
 * none of ours (then *s is empty: the next check is a baseline). */
int ant_textstate_split(const void *blob, size_t len, ant_textstate *s);

/* The column's bytes for *s: 0 and a malloc'd *blob, or LB_ENOMEM. */
int ant_textstate_join(const ant_textstate *s, unsigned char **blob, size_t *len);

#endif
