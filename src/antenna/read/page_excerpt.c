/*
 * page_excerpt.c: a change's excerpt from the segments it picked
 * (ant_page.h ant_page_excerpt()): the picked segments' words, in page
 * order; segments that say only who or when (dates and numbers, one id,
 * a byline) stand in it only when the change has nothing else.
 */
#include "ant_clock.h"
#include "ant_limits.h"
#include "ant_noise.h"
#include "ant_page.h"
#include "lb_buf.h"
#include "lb_error.h"

#include <ctype.h>
#include <string.h>

/* Is s[0..n) one word of letters and digits with a digit in it (an id, a
 * hash)?  Spaces around it do not count. */
static int one_token(const char *s, size_t n)
{
	size_t i = 0, j;
	int digit = 0;

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	for (j = i; j < n && isalnum((unsigned char)s[j]); j++)
		digit |= isdigit((unsigned char)s[j]) != 0;
	while (j < n && isspace((unsigned char)s[j]))
		j++;
	return j == n && i < n && digit;
}

/* Words of s[0..n) (runs between spaces) and whether one is an e-mail
 * address (a '@' with a '.' after it inside the run). */
static size_t words_of(const char *s, size_t n, int *email)
{
	size_t w = 0;

	*email = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i, at = 0, dot = 0;

		while (i < n && isspace((unsigned char)s[i]))
			i++;
		for (j = i; j < n && !isspace((unsigned char)s[j]); j++) {
			if (s[j] == '@')
				at = j + 1;
			else if (s[j] == '.' && at)
				dot = 1;
		}
		if (j > i) {
			w++;
			*email |= at > i + 1 && dot;
		}
		i = j;
	}
	return w;
}

#define AGE_WORDS 4   /* words beside a relative age in a byline */

#define AGE_GROUPS 4  /* dates, times and numbers in such a byline */

/* A byline ending in a relative age, with at most AGE_WORDS words before
 * it: "Updated 3 hours ago.", "Added by Taro Yamada 30 minutes ago" (norm:
 * s normalised, g[0..k) its placeholders, k their count). */
static int byline_age(const char *s, size_t n, const char *norm, size_t nn, const ant_noise_group *g,
		      size_t k)
{
	ant_clock c;
	int email;

	if (!k || k > AGE_GROUPS || g[k - 1].kind != '@' || g[k - 1].off >= n ||
	    g[k - 1].off + g[k - 1].len + 2 < n || words_of(norm, nn, &email) > AGE_WORDS + k)
		return 0;
	ant_clock_read(s + g[k - 1].off, n - g[k - 1].off, s, g[k - 1].off, 0, &c);
	return c.kind == ANT_CLOCK_AGE;
}

/*
 * A segment that says who or when, not what: only dates, times and
 * numbers (a dated heading, "Sun 29 November 2026"), one id alone (a
 * commit's hash), or a byline (an e-mail address and a name, or a
 * relative age and a few words: "Updated 3 hours ago").  A change's
 * excerpt is its words; such segments stand in it only when the change
 * has nothing else.  LB_ENOMEM when out of memory (taken as not meta).
 */
static int meta_segment(const char *s, size_t n)
{
	lb_buf norm = LB_BUF_INIT;
	ant_noise_group g[AGE_GROUPS];
	size_t k;
	int email, meta = 1;

	if (one_token(s, n) || (words_of(s, n, &email) <= 5 && email))
		return 1;
	/* normalised and its placeholders found in one reading */
	if ((k = ant_noise_normalize_groups(s, n, &norm, g, AGE_GROUPS)) == (size_t)-1) {
		lb_buf_release(&norm);
		return LB_ENOMEM;
	}
	for (size_t i = 0; i < norm.len && meta; i++) {
		unsigned char c = (unsigned char)norm.data[i];

		/* letters (ASCII, or any multibyte character) left: words */
		meta = !(isalpha(c) || c >= 0x80);
	}
	if (!meta)
		meta = byline_age(s, n, norm.data, norm.len, g, k);
	lb_buf_release(&norm);
	return meta;
}

/* Segment i as meta_segment() judges it: a JSON value's "PATH: " is
 * left out (the path's words would make every date and id a sentence).
 * Judged once a segment (seg[i].meta): the excerpt's rules ask it of the
 * same segments again and again. */
static int seg_is_meta(const ant_page_info *p, size_t i)
{
	const char *s = p->text + p->seg[i].off, *path;
	size_t n = p->seg[i].len, k;
	int meta;

	if (p->seg[i].meta)
		return p->seg[i].meta - 1;
	path = ant_page_seg_path(p, i);
	k = strlen(path);
	if (p->json && k + 2 <= n && memcmp(s, path, k) == 0 && memcmp(s + k, ": ", 2) == 0)
		s += k + 2, n -= k + 2;
	if ((meta = meta_segment(s, n)) < 0)
		return 0;   /* not kept: judged again when memory allows */
	p->seg[i].meta = (unsigned char)(1 + meta);
	return meta;
}

int ant_page_seg_meta(const ant_page_info *p, size_t i)
{
	return p && p->text && i < p->nseg && seg_is_meta(p, i);
}

/* Is some picked segment more than who or when? */
int ant_page_picks_words(const ant_page_info *p, const unsigned char *pick)
{
	for (size_t i = 0; i < p->nseg; i++)
		if (pick[i] && !seg_is_meta(p, i))
			return 1;
	return 0;
}

void ant_page_pick_words(const ant_page_info *p, unsigned char *pick)
{
	if (!p || !pick || !p->text || !ant_page_picks_words(p, pick))
		return;
	for (size_t i = 0; i < p->nseg; i++) {
		if (!pick[i])
			continue;
		if (!seg_is_meta(p, i))
			break;
		pick[i] = 0;
	}
}

/* A token of prose: letters (a word with the punctuation around it:
 * "(plain)", "README:", "+Widget"), or two characters or more of a
 * script without spaces (Japanese).  "--quiet", "a/README", "1.4.3",
 * "main.c" are not. */
static int prose_token(const char *s, size_t n)
{
	size_t hi = 0, alpha = 0;

	if (n > 1 && strchr("+-(\"'", s[0]) && s[1] != s[0])
		s++, n--;
	while (n && strchr(".,;:!?)]}\"'", s[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80)
			hi += (c & 0xC0) != 0x80;
		else if (isalpha(c))
			alpha++;
	}
	return hi >= 2 || (alpha && alpha == n);
}

/* A git-style object name: 7 hexadecimal digits or more, digits and
 * letters both ("fa23ad8", a full SHA-1). */
static int hex_id(const char *s, size_t n)
{
	int digit = 0, letter = 0;

	while (n && strchr("()[],.:;", s[n - 1]))
		n--;
	while (n && strchr("()[]", s[0]))
		s++, n--;
	if (n < 7)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i]))
			digit = 1;
		else if (s[i] >= 'a' && s[i] <= 'f')
			letter = 1;
		else
			return 0;
	}
	return digit && letter;
}

/*
 * Is seg[i] prose: at least half its space-separated tokens words (a
 * sentence, a title, a commit message), not a line of paths, hashes,
 * options and code ("src/main.c", "diff --git a/README b/README",
 * "index fa23ad8..2cf465e 100644")?  A line naming an object by its hash
 * with fewer than three words ("blob: <sha1> (plain)") is an identifier.
 */
int ant_page_seg_prose(const ant_page_info *p, size_t i)
{
	const char *s, *e;
	size_t words = 0, tokens = 0;
	int id = 0;

	if (!p || !p->text || i >= p->nseg || seg_is_meta(p, i))   /* a byline says who and when */
		return 0;
	s = p->text + p->seg[i].off;
	e = s + p->seg[i].len;
	while (s < e) {
		const char *t = s;

		while (t < e && *t != ' ')
			t++;
		if (t > s) {
			tokens++;
			words += (size_t)prose_token(s, (size_t)(t - s));
			id |= hex_id(s, (size_t)(t - s));
		}
		s = t + (t < e);
	}
	return words && 2 * words >= tokens && !(id && words < 3);
}

/*
 * The picked segments before the first picked one that is prose are
 * unpicked (the commit message, not the diff's header above or below it,
 * starts the excerpt); returns 1 when a picked segment is prose, else 0
 * (nothing unpicked: the change is all identifiers and code).
 */
int ant_page_pick_prose(const ant_page_info *p, unsigned char *pick)
{
	size_t first = 0;

	if (!p || !pick)
		return 0;
	while (first < p->nseg && !(pick[first] && ant_page_seg_prose(p, first)))
		first++;
	if (first == p->nseg)
		return 0;
	memset(pick, 0, first);
	return 1;
}

char *ant_page_excerpt(const ant_page_info *p, const unsigned char *pick, size_t max_chars)
{
	lb_buf b = LB_BUF_INIT;
	char *x = NULL;
	size_t max = max_chars ? max_chars : ANT_PAGE_EXCERPT_MAX;
	int words;

	if (!p || !pick || !p->text)
		return NULL;
	words = ant_page_picks_words(p, pick);
	for (size_t i = 0; i < p->nseg; i++) {
		if (!pick[i] || (words && seg_is_meta(p, i)))
			continue;
		/* a little past max is enough: ant_clip() cuts it */
		if (b.len > 4 * max + 8)
			break;
		if ((b.len && lb_buf_addc(&b, ' ') < 0) ||
		    lb_buf_add(&b, p->text + p->seg[i].off, p->seg[i].len) < 0)
			goto out;
	}
	if (b.len)
		x = ant_clip(b.data, max + 1);
out:
	lb_buf_release(&b);
	return x;
}

/* ---- links to other pages ------------------------------------------------------ */

#define LINK_LINE 50      /* per cent of a block's text in links: a link line */
#define LABEL_MAX 24      /* bytes of a list's label ("Follow-Ups:", "Related:") */
#define PROSE_MIN 24      /* bytes of a sentence of the page's own text */
#define OWN_SHARE 30      /* per cent of an article's text in its own words */

/* Is the path's last step a heading (h1-h6)? */
static int heading(const char *path)
{
	const char *s = strrchr(path, '>');

	s = s ? s + 1 : path;
	return s[0] == 'h' && s[1] >= '1' && s[1] <= '6' && (s[2] == '\0' || s[2] == '#' || s[2] == '.');
}

/* A list's label: a few words without a link, ending in ':' (the heading
 * of the links that follow it). */
static int label(const ant_page_info *p, size_t i)
{
	const char *s = p->text + p->seg[i].off;
	size_t n = p->seg[i].len;
	int email;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return !p->seg[i].link && n && n <= LABEL_MAX && (s[n - 1] == ':' || (n >= 3 && memcmp(s + n - 3, "：", 3) == 0)) &&
	       words_of(s, n, &email) <= 3;
}

/* A field: "Name: value" (a header's "Subject: ...", "Date: ..."), its
 * name one word of at most 16 bytes. */
static int field(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && k <= 16 && !isspace((unsigned char)s[k]) && s[k] != ':')
		k++;
	return k && k < n && k <= 16 && s[k] == ':' && k + 1 < n && isspace((unsigned char)s[k + 1]);
}

/* A sentence of the page's own text: no link in its block, more than who
 * or when, not a heading nor a field, PROSE_MIN bytes or more. */
static int prose(const ant_page_info *p, size_t i)
{
	const char *path = ant_page_seg_path(p, i);

	return !p->seg[i].link && p->seg[i].len >= PROSE_MIN && strncmp(path, "head", 4) != 0 &&
	       !heading(path) && !field(p->text + p->seg[i].off, p->seg[i].len) && !seg_is_meta(p, i);
}

/* Do two paths share an element below <body>: does their common part go
 * past their first step? */
static int share_element(const char *a, const char *b)
{
	size_t k = 0;
	int steps = 0;

	while (a[k] && a[k] == b[k])
		if (a[k++] == '>')
			steps++;
	/* a whole step in common after the first one */
	return steps >= 2 || (steps == 1 && (a[k] == '\0' || a[k] == '>') && (b[k] == '\0' || b[k] == '>'));
}

/* The picked segments (pick, also) are links, labels and who-and-when
 * only, one link line at least: 1; 0 when one is in <head> or says
 * something else. */
static int picks_links(const ant_page_info *p, const unsigned char *pick, const unsigned char *also)
{
	int links = 0;

	for (size_t i = 0; i < p->nseg; i++) {
		if (!pick[i] && !(also && also[i]))
			continue;
		if (strncmp(ant_page_seg_path(p, i), "head", 4) == 0)
			return 0;
		if (p->seg[i].link >= LINK_LINE)
			links = 1;
		else if (!label(p, i) && !seg_is_meta(p, i))
			return 0;
	}
	return links;
}

/* An article: a sentence of its own unpicked, and its own words (not who
 * or when, not links) OWN_SHARE of its text at least. */
static int article(const ant_page_info *p, const unsigned char *pick, const unsigned char *also)
{
	size_t all = 0, words = 0, i;

	for (i = 0; i < p->nseg; i++)
		if (!pick[i] && !(also && also[i]) && strncmp(ant_page_seg_path(p, i), "head", 4) != 0 &&
		    prose(p, i))
			break;
	if (i == p->nseg)
		return 0;
	for (i = 0; i < p->nseg; i++) {
		if (strncmp(ant_page_seg_path(p, i), "head", 4) == 0)
			continue;
		all += p->seg[i].len;
		words += seg_is_meta(p, i) ? 0 : p->seg[i].len - (size_t)p->seg[i].len * p->seg[i].link / 100;
	}
	return words * 100 >= OWN_SHARE * all;
}

int ant_page_picks_links_only(const ant_page_info *p, const unsigned char *pick, const unsigned char *also)
{
	/* the cheap verdicts first: most changes are more than links, and
	 * the article's words are read only for one that is not */
	if (!p || !pick || !p->text || p->json || !picks_links(p, pick, also) || !article(p, pick, also))
		return 0;
	/* a link line in an element with the article's text is its own: a
	 * table of contents' new entry, a list the author keeps; only one
	 * beside it, sharing nothing but <body> (an archive's page laid out
	 * without containers), is a link to its neighbours */
	for (size_t i = 0; i < p->nseg; i++) {
		if (!(pick[i] || (also && also[i])) || p->seg[i].link < LINK_LINE)
			continue;
		for (size_t j = 0; j < p->nseg; j++)
			if (!pick[j] && !(also && also[j]) && prose(p, j) &&
			    share_element(ant_page_seg_path(p, i), ant_page_seg_path(p, j)))
				return 0;
	}
	return 1;
}
