/*
 * show_learned.c: what `antenna show` says of a page's learned state: the
 * blocks learned volatile, the site furniture left out, the numbers held
 * or learned as counters (and since when); and the one way show prints a
 * time.  Apart from show.c so that each stays a short file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "ant_taught.h"
#include "ant_textstate.h"
#include "ant_tokens.h"

const char *antcmd_when(char *b, size_t n, int64_t t, int64_t tz)
{
	time_t x = (time_t)(t + tz);
	struct tm tm;

	if (t <= 0 || !gmtime_r(&x, &tm))
		return "never";
	snprintf(b, n, "%04d-%02d-%02d %02d:%02d:%02d %+03lld%02lld (%lld)", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long long)(tz / 3600), (long long)(llabs(tz) % 3600 / 60), (long long)t);
	return b;
}

/* What the last check left out as the site's furniture (ant_furniture.h). */
static void show_furniture(const ant_textstate *ps)
{
	if (*ps->furniture.why)
		printf("furniture:      %zu text segment%s left out: %s\n", ps->furniture.nseg,
		       ps->furniture.nseg == 1 ? "" : "s", ps->furniture.why);
	else if (ps->noise)
		printf("furniture:      none found (the whole page is its own content)\n");
}

/* The token rule (ant_tokens.h): numbers and dates learned as counters,
 * a change of numbers held. */
static void show_tokens(const ant_textstate *ps, int64_t tz)
{
	ant_tokens t;
	char b[128];

	if (ant_tokens_decode(&t, ps->tokens, ps->tokens_len) < 0)
		return;
	for (size_t i = 0; i < t.nctr; i++)
		printf("  counter:      numbers of a sentence that changed at two checks in a row, since %s:\n"
		       "                ignored until they stay unchanged %d days\n",
		       antcmd_when(b, sizeof b, t.ctr[i].since, tz), ANT_TOKENS_STABLE / 86400);
	for (size_t i = 0; i < t.nheld; i++)
		printf("  held:         numbers or dates of a sentence changed, first seen %s\n"
		       "                (the numbers rule): announced, dated then, when the next answer\n"
		       "                still shows them (a 304 included) or a believed source dates a\n"
		       "                change of the page then; a counter if they change again\n",
		       antcmd_when(b, sizeof b, t.held[i].since, tz));
	if (t.still > 0)
		printf("  at once:      %s: one change (a sentence's numbers or a small part) announced\n"
		       "                in its own check, not held, as the page had held still (found\n"
		       "                as the check before, clocks aside) and nothing else moved\n",
		       antcmd_when(b, sizeof b, t.still, tz));
	if (t.unasked > 0)
		printf("  second fetch: skipped %s: the page held still two checks\n"
		       "                (found as the check before, clocks aside), so a word made per\n"
		       "                request would have moved: its small change was decided on one\n"
		       "                answer\n",
		       antcmd_when(b, sizeof b, t.unasked, tz));
	printf("  stillness:    %u check%s in a row found the page as the one before%s\n", t.quiet,
	       t.quiet == 1 ? "" : "s", t.quiet ? ": one change made once is announced at once" : "");
	ant_tokens_release(&t);
}

/* Blocks with volatile words (ant_detect.h): which words, shown as "…" in
 * the block's text; the rest of the block still counts. */
static void show_words(const ant_detect_noise *n, int64_t tz)
{
	char b[128];

	for (size_t i = 0; i < n->nwords; i++) {
		const ant_detect_wblock *w = &n->words[i];
		printf("  ignored words: %s\n", *w->path ? cli_t(w->path) : "(a part of the page)");
		if (*w->sample)
			printf("                \"%s\"\n", cli_t(w->sample));
		printf("                since %s: the words shown as \"…\"\n"
		       "                (%d place%s) differed between two fetches a moment apart;\n"
		       "                the part's other words still count\n",
		       antcmd_when(b, sizeof b, w->since, tz), w->nctx, w->nctx == 1 ? "" : "s");
	}
}

/* What the noise-proof text rule learned (ant_detect.h): the parts of the page
 * ignored automatically, since when and why; a small change held back. */
void antcmd_show_learned(const ant_store_page *p, int64_t tz)
{
	ant_detect_noise n;
	ant_textstate ps;
	char b[128];

	if (p->no_auto_ignore)
		return;   /* "auto ignore: off" above */
	if (ant_textstate_split(p->noise, p->noise_len, &ps) < 0)
		memset(&ps, 0, sizeof ps);
	show_furniture(&ps);
	if (ant_detect_noise_decode(&n, ps.noise, ps.noise_len) < 0) {
		printf("auto-ignored:   nothing yet (no check compared)\n");
		return;
	}
	if (!n.nvol && !n.nwords)
		printf("auto-ignored:   nothing (%zu text segments remembered)\n", n.nkeys);
	else if (!n.nvol)
		printf("auto-ignored:   words in %zu part%s of the page:\n", n.nwords, n.nwords == 1 ? "" : "s");
	else if (!n.nwords)
		printf("auto-ignored:   %zu part%s of the page:\n", n.nvol, n.nvol == 1 ? "" : "s");
	else
		printf("auto-ignored:   %zu part%s of the page, and words in %zu more:\n", n.nvol,
		       n.nvol == 1 ? "" : "s", n.nwords);
	for (size_t i = 0; i < n.nvol; i++) {
		const ant_detect_vblock *v = &n.vol[i];
		printf("  ignored:      %s\n", *v->path ? cli_t(v->path) : "(a part of the page)");
		if (*v->sample)
			printf("                \"%s\"\n", cli_t(v->sample));
		printf("                since %s: %s\n", antcmd_when(b, sizeof b, v->since, tz),
		       v->how == ANT_NOISE_REFETCH ? "differed between two fetches a moment apart"
						   : "changed check after check while the rest did not");
		if (v->changed)
			printf("                last changed %s: taken in again if unchanged %d days\n",
			       antcmd_when(b, sizeof b, v->changed, tz), ANT_NOISE_UNLEARN / 86400);
	}
	show_words(&n, tz);
	for (size_t i = 0; i < n.nsus; i++)
		if (n.sus[i].pending)
			printf("  held:         a small part replaced, first seen %s (the swap rule):\n"
			       "                announced, dated then, when the next answer still shows it (a\n"
			       "                304 included) or a believed source dates a change of the page\n"
			       "                then; ignored from then on if it changes again\n",
			       antcmd_when(b, sizeof b, n.sus[i].pending, tz));
	for (size_t i = 0; i < n.nsus; i++)
		if (n.sus[i].raced)
			printf("  held:         a part that differed between two fetches %s: announced if\n"
			       "                it stays as the second showed it, ignored if it differs again\n",
			       antcmd_when(b, sizeof b, n.sus[i].raced, tz));
	ant_detect_noise_release(&n);
	show_tokens(&ps, tz);
}

void antcmd_show_taught(const ant_store_page *p)
{
	ant_taught_run r[ANT_TAUGHT_MAX];
	size_t n = ant_taught_parse(p->taught, r, ANT_TAUGHT_MAX);

	if (!n)
		return;
	printf("taught noise:   %zu part%s of the page ('set --not-news'; 'set --forget-noise' undoes):\n",
	       n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		printf("  not news:     %s\n", *r[i].path ? cli_t(r[i].path) : "(a part of the page)");
		if (*r[i].sample)
			printf("                \"%s\"\n", cli_t(r[i].sample));
	}
}
