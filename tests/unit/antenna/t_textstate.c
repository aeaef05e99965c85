/*
 * t_textstate: the text rules' state of a page in one column
 * (ant_textstate.h): joined and split back, an old noise-only column read
 * as that, damaged columns refused.
 */
#include "ant_textstate.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	ant_textstate s, r;
	unsigned char *blob;
	size_t len;
	static const unsigned char noise[] = "N\002\000\000\000", tokens[] = "T\001\000\000\000";

	TAP_PLAN(10);
	memset(&s, 0, sizeof s);
	s.noise = noise;
	s.noise_len = sizeof noise - 1;
	s.tokens = tokens;
	s.tokens_len = sizeof tokens - 1;
	s.furniture.nseg = 42;
	strcpy(s.furniture.why, "tDiary: outside its days (div.day)");
	OK(ant_textstate_join(&s, &blob, &len) == 0 && ant_textstate_split(blob, len, &r) == 0,
	   "joined (%zu bytes) and split", len);
	OK(r.noise_len == s.noise_len && memcmp(r.noise, noise, r.noise_len) == 0 &&
	   r.tokens_len == s.tokens_len && memcmp(r.tokens, tokens, r.tokens_len) == 0,
	   "the two rules' blobs come back");
	OK(r.furniture.nseg == 42 && strcmp(r.furniture.why, s.furniture.why) == 0, "the furniture comes back");
	free(blob);
	s.furniture.nkeys = 3;
	s.furniture.keys[0] = 1;
	s.furniture.keys[1] = 0x80000000u;
	s.furniture.keys[2] = 0xffffffffu;
	OK(ant_textstate_join(&s, &blob, &len) == 0 && ant_textstate_split(blob, len, &r) == 0 &&
	   r.furniture.nkeys == 3 && r.furniture.keys[1] == 0x80000000u && r.furniture.keys[2] == 0xffffffffu &&
	   r.furniture.nseg == 42, "the keys the template left out come back");
	s.furniture.nkeys = 0;
	OK(ant_textstate_split(blob, len - 1, &r) == LB_EPARSE && !r.noise, "a cut column is refused");
	free(blob);
	OK(ant_textstate_split(noise, sizeof noise - 1, &r) == 0 && r.noise == noise && !r.tokens &&
	   !*r.furniture.why, "a column of the noise rule alone reads as that");
	OK(ant_textstate_split(NULL, 0, &r) == 0 && !r.noise && !r.tokens, "no column: nothing kept yet");
	s.held = "次回の例会は12月10日です。";
	s.held_len = strlen(s.held);
	OK(ant_textstate_join(&s, &blob, &len) == 0 && ant_textstate_split(blob, len, &r) == 0 &&
	   r.held_len == s.held_len && memcmp(r.held, s.held, r.held_len) == 0 && r.furniture.nseg == 42,
	   "a held change's text comes back after the rest");
	OK(ant_textstate_split(blob, len - 1, &r) == LB_EPARSE, "... cut, the column is refused");
	free(blob);
	memset(&s, 0, sizeof s);
	OK(ant_textstate_join(&s, &blob, &len) == 0 && ant_textstate_split(blob, len, &r) == 0 && !r.noise &&
	   !r.tokens && !r.furniture.nseg, "an empty state (%zu bytes)", len);
	free(blob);
	TAP_DONE();
}
