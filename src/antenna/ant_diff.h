/*
 * ant_diff.h: what changed between two versions of a page's text, as the
 * diff page (publish_diff.c) and 'antenna diff' show it: lines removed
 * and added with a few lines of context, and within a changed line the
 * words removed and added.
 *
 * The texts are the pages' compared texts (ant_difftext.h): one line per
 * text segment, furniture and learned noise left out.  Lines are equal
 * when their words are, numbers included (a key function, such as
 * ant_noise_hash(), only narrows the search: a diary's new dated heading
 * is added, never paired with yesterday's; only the detection of noise
 * ignores numbers); words are compared as bytes.  Both levels are a longest common subsequence over a table
 * of at most max_cells cells (ANT_DIFF_MAX_CELLS, 2 bytes each) once
 * the common head and tail are taken off: beyond that the line diff
 * says "too many changes to show" (too_many) and the word diff shows
 * the lines whole.  Cost: O(cells) time and memory, never more.
 */
#ifndef ANT_DIFF_H
#define ANT_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* Table cells for one LCS (lines or words): 1 Mi cells, 2 MiB. */
#define ANT_DIFF_MAX_CELLS ((size_t)1 << 20)
/* Unchanged lines shown around each change. */
#define ANT_DIFF_CONTEXT 3

enum {
	ANT_DIFF_SAME = ' ',
	ANT_DIFF_DEL = '-',
	ANT_DIFF_ADD = '+',
	ANT_DIFF_GAP = '@'   /* unchanged lines left out here */
};

/* One line of a diff: op, and its bytes (borrowed from the texts given). */
typedef struct ant_diff_line {
	int op;
	const char *s;
	size_t len;
} ant_diff_line;

typedef struct ant_diff {
	ant_diff_line *v;     /* malloc'd; release with ant_diff_release() */
	size_t n;
	size_t removed, added; /* lines */
	int too_many;         /* over max_cells: v is empty */
} ant_diff;

/* The key two lines are compared by; NULL compares bytes. */
typedef uint32_t (*ant_diff_key_fn)(const char *s, size_t n);

/*
 * The lines of a[0..alen) and b[0..blen) ('\n' ends a line; a last line
 * without one counts) compared: out gets the changes with context lines
 * around them (ANT_DIFF_GAP where unchanged lines are left out).  A
 * SAME line shows b's bytes.  No change: out->n == 0.  0, or LB_ENOMEM.
 */
int ant_diff_lines(const char *a, size_t alen, const char *b, size_t blen, size_t context,
		   size_t max_cells, ant_diff_key_fn key, ant_diff *out);
void ant_diff_release(ant_diff *d);

/* One word-level piece of a changed line: SAME (b's bytes), DEL (a's) or ADD (b's). */
typedef struct ant_diff_word {
	int op;
	const char *s;
	size_t len;
} ant_diff_word;

/*
 * Line a against line b, word by word (a word: a run of ASCII letters and
 * digits, a run of spaces, or any other single character, so that
 * Japanese is compared character by character).  *out (malloc'd, free())
 * gets *n pieces in order, neighbours of one op merged.  LB_ETOOBIG when
 * the words need more than max_cells (show the lines whole), LB_ENOMEM.
 */
int ant_diff_words(const char *a, size_t alen, const char *b, size_t blen, size_t max_cells,
		   ant_diff_word **out, size_t *n);

/*
 * d as it is shown, line by line: fn(ctx, op, pieces, n) for each line
 * in order (GAP: n = 0).  A run of removed lines followed by added ones
 * is taken line for line as replaced: each such pair is shown as the
 * removed line with its removed words marked (DEL pieces) and the added
 * line with its added words marked (ADD pieces); other lines are one
 * SAME piece (nothing marked within).  A nonzero return of fn stops and
 * is returned; LB_ENOMEM.
 */
typedef int (*ant_diff_show_fn)(void *ctx, int op, const ant_diff_word *pieces, size_t n);
int ant_diff_show(const ant_diff *d, size_t max_cells, ant_diff_show_fn fn, void *ctx);

#endif
