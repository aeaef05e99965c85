/*
 * furniture.c: a page's own content told apart from its site's furniture
 * (sidebars, calendars, counters, menus, footers), from the paths of its
 * segments alone (ant_furniture.h).
 *
 * A path is "tag#id.class.class>tag..." from <body> down (ant_page.h);
 * an element of the page is known by the prefix of the paths under it
 * ("body>div.wrap>div.side"): what stands in it is summed by that prefix
 * (struct parts).  Sibling elements written alike (two div.col-md-#) are
 * one part: the rules look for the deepest part holding the main
 * content, below where such twins usually stand.
 * a selector here is "tag", "tag.class", ".class", "#id" or "tag#id",
 * matched against one step of it.  The generators' marks and containers
 * are what their stock templates write (tDiary 5 header.rhtml, DokuWiki's
 * "dokuwiki" template, WordPress themes, Hatena, MediaWiki's skins).
 */
#include "ant_furniture.h"
#include "ant_noise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_error.h"

/* Does one step of a path (s, n bytes) match the selector sel? */
static int step_matches(const char *s, size_t n, const char *sel)
{
	size_t tl = strcspn(s, "#."), sl = strcspn(sel, "#.");
	const char *id = NULL, *cls;
	size_t idl = 0;

	if (tl > n)
		tl = n;
	if (sl && (sl != tl || memcmp(s, sel, tl) != 0))
		return 0;
	if (s[tl] == '#' && tl < n) {
		id = s + tl + 1;
		idl = strcspn(id, ".>");
		if (id + idl > s + n)
			idl = (size_t)(s + n - id);
	}
	sel += sl;
	if (*sel == '#')
		return id && strlen(sel + 1) == idl && memcmp(id, sel + 1, idl) == 0;
	if (*sel != '.')
		return 1;
	/* a class: one of the step's, each after a '.' */
	sel++;
	cls = id ? id + idl : s + tl;
	while (cls < s + n && *cls == '.') {
		size_t cl = strcspn(cls + 1, ".>");

		if (cls + 1 + cl > s + n)
			cl = (size_t)(s + n - cls - 1);
		if (cl == strlen(sel) && memcmp(cls + 1, sel, cl) == 0)
			return 1;
		cls += 1 + cl;
	}
	return 0;
}

/* Can path match selector sel at all?  Its name (id, class or tag) must
 * be in it: one strstr() spares most paths the step by step walk. */
static int may_have(const char *path, const char *sel)
{
	const char *name = sel + strcspn(sel, "#.");

	return strstr(path, *name ? name + 1 : sel) != NULL;
}

/* Does a step of path match one of the NULL-ended selectors?  Returns
 * the index of the first step that does plus one, or 0. */
static size_t path_has(const char *path, const char *const *sel)
{
	size_t k = 0;
	int any = 0;

	for (size_t i = 0; sel[i] && !any; i++)
		any = may_have(path, sel[i]);
	if (!any)
		return 0;

	for (const char *s = path; *s; k++) {
		size_t n = strcspn(s, ">");

		for (size_t i = 0; sel[i]; i++)
			if (step_matches(s, n, sel[i]))
				return k + 1;
		s += n;
		if (*s == '>')
			s++;
	}
	return 0;
}

#define GEN_SELS 6
/* The well-known generators: a mark only its markup has, the containers
 * of a page's own content, and its furniture's own containers (for a
 * path whose start was clipped, ant_page.h: the content container may be
 * in the part cut off). */
static const struct generator {
	const char *name;
	const char *mark[GEN_SELS];
	const char *content[GEN_SELS];
	const char *furniture[GEN_SELS];
	const char *what;
} generators[] = {
	{ "tDiary", { "div.whole-content", NULL }, { ".day", NULL },
	  { ".sidebar", ".adminmenu", ".footer", NULL }, "its days (div.day)" },
	{ "Hatena Diary", { "div.hatena-body", NULL }, { "div.day", NULL },
	  { ".sidebar", ".hatena-module", NULL }, "its days (div.day)" },
	{ "Hatena Blog", { "#box2", "#blog-title-inner", NULL },
	  { ".entry-title", ".entry-content", ".comment-box", NULL },
	  { "#box2", ".hatena-module", "#footer", NULL }, "its entries (.entry-content)" },
	{ "WordPress", { ".wp-site-blocks", ".widget-area", "#colophon", NULL },
	  { ".entry-title", ".entry-content", ".wp-block-post-title", ".wp-block-post-content",
	    ".comment-list", NULL },
	  { ".widget-area", ".widget", "#secondary", "#colophon", NULL }, "its posts (.entry-content)" },
	{ "DokuWiki", { "#dokuwiki__site", NULL }, { "div.page", NULL },
	  { "#dokuwiki__aside", "#dokuwiki__header", "#dokuwiki__footer", "#dokuwiki__pagetools",
	    ".docInfo", NULL }, "the wiki page (div.page)" },
	{ "MediaWiki", { "#mw-navigation", "#mw-panel", "#mw-head", NULL },
	  { "#firstHeading", "#mw-content-text", NULL },
	  { "#mw-navigation", "#mw-panel", "#mw-head", "#footer", "#catlinks", NULL },
	  "the article (#mw-content-text)" },
};

static const char *const landmarks[] = { "aside", "nav", "footer", "header", NULL };
static const char *const sections[] = { "article", "main", NULL };

static int in_head(const char *path)
{
	return strncmp(path, "head", 4) == 0 && (path[4] == '>' || path[4] == '\0');
}

/* The generator whose mark a segment's path has, or NULL.  Every mark
 * names an id or a class: a path without one ("body>p") is passed over,
 * found so once, not once per generator. */
static const struct generator *recognise(const ant_page_info *p)
{
	uint16_t cand[ANT_PAGE_MAX_SEGMENTS];   /* the segments with such a path, once */
	size_t nc = 0;

	if (p->nseg > ANT_PAGE_MAX_SEGMENTS)   /* never (the analysis stops there): read as it is */
		for (size_t g = 0; g < sizeof generators / sizeof *generators; g++)
			for (size_t i = 0; i < p->nseg; i++)
				if ((i == 0 || p->seg[i].path != p->seg[i - 1].path) &&
				    strpbrk(ant_page_seg_path(p, i), "#.") &&
				    path_has(ant_page_seg_path(p, i), generators[g].mark))
					return &generators[g];
	for (size_t i = 0; i < p->nseg && p->nseg <= ANT_PAGE_MAX_SEGMENTS; i++)
		if ((i == 0 || p->seg[i].path != p->seg[i - 1].path) && strpbrk(ant_page_seg_path(p, i), "#."))
			cand[nc++] = (uint16_t)i;
	for (size_t g = 0; nc && g < sizeof generators / sizeof *generators; g++)
		for (size_t k = 0; k < nc; k++)
			if (path_has(ant_page_seg_path(p, cand[k]), generators[g].mark))
				return &generators[g];
	return NULL;
}

/* The landmark path stands in, or NULL: <header> counts only outside an
 * <article> or a <main>. */
static const char *landmark_of(const char *path)
{
	for (size_t i = 0; landmarks[i]; i++) {
		const char *one[2] = { landmarks[i], NULL };
		size_t at = path_has(path, one), sec;

		if (!at)
			continue;
		sec = path_has(path, sections);
		if (i == 3 && sec && sec < at)
			continue;
		return landmarks[i];
	}
	return NULL;
}

static size_t mark_generator(const ant_page_info *p, const struct generator *g, unsigned char *mark)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);

		if (i > 0 && p->seg[i].path == p->seg[i - 1].path)   /* the same block */
			mark[i] = mark[i - 1];
		else if (in_head(path) || path_has(path, g->content))
			mark[i] = 0;
		else if (strncmp(path, "\xe2\x80\xa6", 3) == 0)   /* clipped: its container may be cut off */
			mark[i] = path_has(path, g->furniture) || landmark_of(path);
		else
			mark[i] = 1;
		n += mark[i];
	}
	return n;
}


/* ---- names: landmarks and the words templates name their parts with ------ */

enum { W_WORD = 1, W_PREFIX = 2, W_SUFFIX = 4, W_HEADER = 8 };

/* Words of a class or id that name a template's part, matched as a word
 * of the name ("site-footer", "sidebarLeft", "post_nav") or, with
 * W_PREFIX / W_SUFFIX, at the start or end of one run of letters
 * ("sphinxsidebar", "navbar", "adminmenu").  Common English layout
 * words, no product's own names.  W_HEADER: a header, the page's own
 * inside an <article>, a <main> or the main content. */
static const struct fword {
	const char *w;
	unsigned char how;
} fwords[] = {
	{ "ad", W_WORD }, { "ads", W_WORD }, { "advert", W_WORD | W_PREFIX },
	{ "banner", W_WORD | W_PREFIX | W_SUFFIX | W_HEADER }, { "breadcrumb", W_WORD | W_PREFIX },
	{ "breadcrumbs", W_WORD }, { "calendar", W_WORD | W_PREFIX | W_SUFFIX }, { "colophon", W_WORD },
	{ "copyright", W_WORD }, { "footer", W_WORD | W_PREFIX | W_SUFFIX },
	{ "header", W_WORD | W_PREFIX | W_SUFFIX | W_HEADER }, { "masthead", W_WORD | W_HEADER },
	{ "menu", W_WORD | W_PREFIX | W_SUFFIX }, { "nav", W_WORD | W_PREFIX | W_SUFFIX },
	{ "navbar", W_WORD }, { "navigation", W_WORD | W_PREFIX | W_SUFFIX }, { "navi", W_WORD },
	{ "recent", W_WORD }, { "related", W_WORD }, { "share", W_WORD }, { "side", W_WORD | W_PREFIX },
	{ "sidebar", W_WORD | W_PREFIX | W_SUFFIX }, { "social", W_WORD }, { "sponsor", W_WORD },
	{ "tagcloud", W_WORD | W_SUFFIX }, { "toolbar", W_WORD | W_SUFFIX },
	{ "widget", W_WORD | W_PREFIX | W_SUFFIX }, { "widgets", W_WORD },
};

/* Is the word s (n bytes, lower case) one that makes the layout word
 * after it a state of the element, not its role: "nosidebar",
 * "no-sidebar", "has-sidebar", "with-sidebar" name a page's main column
 * laid out without or beside a sidebar. */
static int state_word(const char *s, size_t n)
{
	static const char *const v[] = { "no", "non", "has", "with", "without", "hide" };

	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		if (strlen(v[i]) == n && memcmp(s, v[i], n) == 0)
			return 1;
	return 0;
}

/* Does the word s (n bytes, lower case) name a part?  Its flags, or 0. */
static unsigned word_how(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof fwords / sizeof *fwords; i++) {
		size_t l = strlen(fwords[i].w);

		if (l == n && memcmp(s, fwords[i].w, n) == 0)
			return fwords[i].how | 0x80;
		if (l < n && (fwords[i].how & W_PREFIX) && memcmp(s, fwords[i].w, l) == 0)
			return fwords[i].how | 0x80;
		if (l < n && (fwords[i].how & W_SUFFIX) && memcmp(s + n - l, fwords[i].w, l) == 0 &&
		    !state_word(s, n - l))
			return fwords[i].how | 0x80;
	}
	return 0;
}

/* The words of a name (s, n bytes): runs of letters, a capital starting a
 * new word ("sideBar" is "side", "bar"; "SIDEBAR" one).  Flags of the
 * first that names a part, or 0. */
static unsigned name_how(const char *s, size_t n)
{
	char w[48];
	size_t k = 0;
	unsigned how;
	int state = 0;   /* the last word was a state_word() */

	for (size_t i = 0; i <= n; i++) {
		int c = i < n ? (unsigned char)s[i] : 0;
		int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z';
		int split = up && k && i > 0 && s[i - 1] >= 'a' && s[i - 1] <= 'z';

		if ((!up && !lo) || split || k == sizeof w) {
			if (k && !state && (how = word_how(w, k)))
				return how;
			if (k)
				state = state_word(w, k);
			k = 0;
		}
		if (up || lo)
			w[k++] = (char)(up ? c + 32 : c);
	}
	return 0;
}

/* A step ("tag#id.a.b", n bytes) that names a part of a template: its
 * tag a landmark, or a word of its id or a class.  Its W_* flags, or 0. */
static unsigned step_how(const char *s, size_t n)
{
	size_t tl = strcspn(s, "#.");
	unsigned how = 0;

	if (tl > n)
		tl = n;
	if ((tl == 5 && memcmp(s, "aside", 5) == 0) || (tl == 3 && memcmp(s, "nav", 3) == 0) ||
	    (tl == 6 && memcmp(s, "footer", 6) == 0))
		return W_WORD;
	if (tl == 6 && memcmp(s, "header", 6) == 0)
		return W_WORD | W_HEADER;
	for (size_t i = tl; i < n && !how;) {
		size_t k = strcspn(s + i + 1, "#.");

		if (i + 1 + k > n)
			k = n - i - 1;
		how = name_how(s + i + 1, k);
		i += 1 + k;
	}
	return how;
}

/* ---- the page's parts ------------------------------------------------------- */

/* What stands in one part of the page (an element, by its path prefix). */
struct part {
	uint32_t h;        /* hash of the prefix; 0: a free slot */
	uint32_t seg;      /* a segment whose path has the prefix */
	uint32_t len;      /* the prefix's bytes */
	uint32_t depth;    /* its steps - 1 */
	size_t w[4];       /* weights summed (WEIGHT_*) */
	size_t bytes, link, shared;
};

enum { WEIGHT_GEN, WEIGHT_OWN, WEIGHT_ALL, WEIGHT_WORDS };

struct parts {
	struct part *v;
	size_t cap;        /* a power of two */
	uint32_t *idx;     /* each segment's parts, shallowest first: */
	uint32_t *first;   /* idx[first[i]], ... */
	uint16_t *n;       /* n[i] of them */
};

static uint32_t hash32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h ? h : 1;
}

static int clipped(const char *path)
{
	return strncmp(path, "\xe2\x80\xa6", 3) == 0;
}

static size_t part_slot(struct parts *t, uint32_t h, size_t len, size_t depth, size_t seg)
{
	size_t i = h & (t->cap - 1);

	while (t->v[i].h && (t->v[i].h != h || t->v[i].len != len))
		i = (i + 1) & (t->cap - 1);
	if (!t->v[i].h)
		t->v[i] = (struct part){ .h = h, .seg = (uint32_t)seg, .len = (uint32_t)len,
					 .depth = (uint32_t)depth };
	return i;
}

static struct part *part_get(struct parts *t, const char *path, size_t len, size_t depth, size_t seg)
{
	uint32_t h = hash32(path, len);
	size_t i = h & (t->cap - 1);

	while (t->v[i].h && (t->v[i].h != h || t->v[i].len != len))
		i = (i + 1) & (t->cap - 1);
	if (!t->v[i].h)
		t->v[i] = (struct part){ .h = h, .seg = (uint32_t)seg, .len = (uint32_t)len,
					 .depth = (uint32_t)depth };
	return &t->v[i];
}

/* The step ends of a path: each '>' and the end. */
#define FOR_PREFIX(path, len, depth)                                                         \
	for (size_t len = strcspn(path, ">"), depth = 0, _more = 1; _more;                     \
	     _more = path[len] != '\0', len += _more ? 1 + strcspn(path + len + 1, ">") : 0, depth++)

static void parts_release(struct parts *t)
{
	free(t->v);
	free(t->idx);
	free(t->first);
	free(t->n);
	memset(t, 0, sizeof *t);
}

/* Each segment's parts found once (a segment whose path is the last
 * one's shares its list): the prefixes' hashes taken as the path is read. */
static void parts_index(struct parts *t, const ant_page_info *p)
{
	size_t k = 0;
	const char *last = NULL;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);
		uint32_t h = 2166136261u;
		size_t depth = 0, j = 0;

		if (last && strcmp(path, last) == 0) {
			t->first[i] = t->first[i - 1];
			t->n[i] = t->n[i - 1];
			continue;
		}
		last = path;
		t->first[i] = (uint32_t)k;
		t->n[i] = 0;
		if (in_head(path) || clipped(path))
			continue;
		for (;; j++) {
			if (path[j] == '>' || path[j] == '\0') {
				t->idx[k++] = (uint32_t)part_slot(t, h ? h : 1, j, depth++, i);
				t->n[i]++;
				if (!path[j])
					break;
			}
			h = (h ^ (unsigned char)path[j]) * 16777619u;
		}
	}
}

static int parts_init(struct parts *t, const ant_page_info *p)
{
	size_t steps = 0;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);

		for (const char *s = path; *s; s++)
			steps += *s == '>';
		steps++;
	}
	for (t->cap = 64; t->cap < 2 * steps; t->cap *= 2)
		;
	t->v = calloc(t->cap, sizeof *t->v);
	t->idx = malloc(steps * sizeof *t->idx);
	t->first = malloc((p->nseg ? p->nseg : 1) * sizeof *t->first);
	t->n = malloc((p->nseg ? p->nseg : 1) * sizeof *t->n);
	if (!t->v || !t->idx || !t->first || !t->n) {
		parts_release(t);
		return LB_ENOMEM;
	}
	parts_index(t, p);
	return 0;
}

/* A segment's part in the page's text: link text counts half. */
static size_t weight(const ant_page_info *p, size_t i)
{
	const ant_page_seg *s = &p->seg[i];

	return s->len - (size_t)s->len * s->link / 200;
}

/* A segment's part in the page's words, for most_of_page(): its text
 * without its dates, times and numbers (an archive's "Posted Sun Nov 29
 * 01:27:58 2026" and a calendar's day numbers weigh little beside a
 * sentence), link text counting half. */
static size_t words_weight(const ant_page_info *p, size_t i)
{
	const ant_page_seg *s = &p->seg[i];
	ant_noise_group g[16];
	size_t n = s->len, ng;

	if (p->text) {
		ng = ant_noise_groups(p->text + s->off, s->len, g, 16);
		for (size_t j = 0; j < ng && j < 16; j++)
			n -= g[j].len <= n ? g[j].len : n;
		if (ng > 16)   /* a table row of numbers: mostly none */
			n /= 2;
	}
	return n - n * s->link / 200;
}

/* Adds segment i's text to each part it stands in: its weight of a kind
 * (WEIGHT_*), or its bytes and link bytes (PARTS_TEXT), or its shared
 * bytes (PARTS_SHARE). */
enum { PARTS_TEXT = -1, PARTS_SHARE = -2 };
static void parts_add(struct parts *t, const ant_page_info *p, size_t i, int kind, size_t w,
		      int shared)
{
	const ant_page_seg *s = &p->seg[i];

	for (size_t j = 0; j < t->n[i]; j++) {
		struct part *x = &t->v[t->idx[t->first[i] + j]];

		if (kind >= 0) {
			x->w[kind] += w;
		} else if (kind == PARTS_TEXT) {
			x->bytes += s->len;
			x->link += (size_t)s->len * s->link / 100;
		} else {
			x->shared += shared ? s->len : 0;
		}
	}
}

/* The main content: the deepest part holding more than half of the
 * weight of that kind.  *m is its prefix (path, len); 0 when none. */
struct main_part {
	const char *path;
	size_t len;
};

/* Is the part's last step an item of a list or a table (li, dt, dd, tr,
 * td, th)?  An item is one of its list's kinds: the dates of an archive's
 * <dl> are not its content without the titles beside them. */
static int list_item(const ant_page_info *p, const struct part *x)
{
	const char *path = ant_page_seg_path(p, x->seg), *s = path + x->len;
	size_t n;

	while (s > path && s[-1] != '>')
		s--;
	n = strcspn(s, "#.>");
	if (s + n > path + x->len)
		n = (size_t)(path + x->len - s);
	return (n == 2 && (memcmp(s, "li", 2) == 0 || memcmp(s, "dt", 2) == 0 || memcmp(s, "dd", 2) == 0 ||
			   memcmp(s, "tr", 2) == 0 || memcmp(s, "td", 2) == 0 || memcmp(s, "th", 2) == 0));
}

static int find_main(const struct parts *t, const ant_page_info *p, int kind, size_t total,
		     struct main_part *m)
{
	const struct part *best = NULL;

	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].h && 2 * t->v[i].w[kind] > total && (!best || t->v[i].depth > best->depth) &&
		    !list_item(p, &t->v[i]))
			best = &t->v[i];
	m->path = best ? ant_page_seg_path(p, best->seg) : NULL;
	m->len = best ? best->len : 0;
	return best != NULL;
}

/* Does path stand in the main part? */
static int in_main(const char *path, const struct main_part *m)
{
	return m->path && strncmp(path, m->path, m->len) == 0 &&
	       (path[m->len] == '>' || path[m->len] == '\0');
}

/* Does the prefix path[0, len) hold the main part (is it it, or above it)? */
static int holds_main(const char *path, size_t len, const struct main_part *m)
{
	return m->path && m->len >= len && strncmp(path, m->path, len) == 0 &&
	       (m->path[len] == '>' || m->path[len] == '\0');
}

/* The part beside the main content path stands in: its shallowest part
 * that does not hold the main part.  NULL when path stands in the main
 * part or holds it. */
static const struct part *side_part(struct parts *t, const char *path, const struct main_part *m, size_t i)
{
	if (!m->path || in_main(path, m) || clipped(path))
		return NULL;
	for (size_t j = 0; j < t->n[i]; j++) {
		struct part *x = &t->v[t->idx[t->first[i] + j]];

		if (!holds_main(path, x->len, m))
			return x;
	}
	return NULL;
}

/* ---- the rules ---------------------------------------------------------------- */

#define LINK_DENSE 70     /* per cent of a block's text in links: a link list */
#define SIDE_LINKS 50     /* ... and of the part beside the main content */
#define SIDE_SHARED 60    /* per cent of a part's text shared with the site */
#define NEW_LINK 50       /* per cent of links in a new item of a shared list */
#define NAMES_SHOWN 4

struct marking {
	const ant_page_info *p;
	unsigned char *mark;   /* 0 own; M_* why furniture */
	struct parts t;
	struct main_part gen, own;
	char names[3][NAMES_SHOWN][48];   /* by reason: names, link lists, shared */
	size_t nnames[3];
	size_t shared_pages;   /* the most other pages one furniture segment was on */
	size_t total;          /* the page's weight (WEIGHT_ALL) */
	size_t words;          /* and its words' (WEIGHT_WORDS), once words_read */
	int words_read;
	struct { const char *path; const struct main_part *m; int ret; size_t at, len; } nc;  /* named_step's last */
};

enum { M_NAME = 1, M_LINKS = 2, M_SHARED = 4, M_STICKY = 8, M_GEN = 16 };

/* Does the part path[0, len) hold more than half of the page's text,
 * and of its words without dates, times and numbers?  Then it is the
 * page's content, whatever its name (an index page's ul.recent-posts, a
 * page laid out in one div.widget); a sidebar of dates and a calendar
 * beside a short page is not. */
static void read_words(struct marking *k);

static int most_of_page(struct marking *k, const char *path, size_t len)
{
	const struct part *x;

	if (!k || !k->total)
		return 0;
	x = part_get(&k->t, path, len, 0, 0);
	if (2 * x->w[WEIGHT_ALL] <= k->total)
		return 0;
	read_words(k);
	return 2 * x->w[WEIGHT_WORDS] > k->words;
}

/* The step of path naming a part of the template that makes it
 * furniture: not one holding the main content, nor a header in an
 * article, a main or the main content.  Its length (through the step)
 * into *len and its start into *at; 0 when none. */
static int named_step_of(struct marking *k, const char *path, const struct main_part *m, size_t *at,
			 size_t *len);

/* named_step_of(), once for a run of segments of one block path. */
static int named_step(struct marking *k, const char *path, const struct main_part *m, size_t *at, size_t *len)
{
	if (!k->nc.path || k->nc.m != m || strcmp(k->nc.path, path) != 0) {
		k->nc.path = path;
		k->nc.m = m;
		k->nc.ret = named_step_of(k, path, m, &k->nc.at, &k->nc.len);
	}
	*at = k->nc.at;
	*len = k->nc.len;
	return k->nc.ret;
}

static int named_step_of(struct marking *k, const char *path, const struct main_part *m, size_t *at,
			 size_t *len)
{
	size_t start = 0;
	int in_section = 0;

	*at = *len = 0;
	if (in_head(path))
		return 0;
	FOR_PREFIX(path, end, depth) {
		const char *s = path + start;
		size_t n = end - start;
		unsigned how;

		if (!start && clipped(path)) {   /* "…ct-widget": the end of a step cut, no name */
			start = end + 1;
			continue;
		}
		how = step_how(s, n);

		if ((n >= 7 && memcmp(s, "article", 7) == 0 && (n == 7 || strchr("#.", s[7]))) ||
		    (n >= 4 && memcmp(s, "main", 4) == 0 && (n == 4 || strchr("#.", s[4]))))
			in_section = 1;
		if (how && !holds_main(path, end, m) && !most_of_page(k, path, end) &&
		    !((how & W_HEADER) && (in_section || (m->len && end > m->len && in_main(path, m))))) {
			*at = start;
			*len = n;
			return 1;
		}
		start = end + 1;
	}
	return 0;
}

/* The part named s (n bytes, a step of a path) was left out for reason r
 * (0 its name, 1 a link list, 2 shared): show names a few. */
static void name_seen(struct marking *k, int r, const char *s, size_t n)
{
	char b[48];

	snprintf(b, sizeof b, "%.*s", (int)(n < sizeof b - 1 ? n : sizeof b - 1), s);
	for (size_t i = 0; i < k->nnames[r]; i++)
		if (strcmp(k->names[r][i], b) == 0)
			return;
	if (k->nnames[r] < NAMES_SHOWN)
		strcpy(k->names[r][k->nnames[r]++], b);
}

/* The part a segment left out stands in, for show: the last two steps
 * of the part beside the main content (side, when known), else of its
 * block. */
static void part_seen(struct marking *k, int r, const char *path, const struct part *side)
{
	size_t end = side ? side->len : strlen(path), start = end;
	int steps = 0;

	/* its last two steps: "div.col-b>ul" tells more than "ul" */
	while (start && (path[start - 1] != '>' || ++steps < 2))
		start--;
	name_seen(k, r, path + start, end - start);
}

/* The parts' weights in the page's words (WEIGHT_WORDS, k->words), read
 * when most_of_page() first needs them: each segment's dates and numbers
 * found costs a reading of its text, and most pages name no part that
 * holds most of their text. */
static void read_words(struct marking *k)
{
	const ant_page_info *p = k->p;

	if (k->words_read)
		return;
	k->words_read = 1;
	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);
		size_t w;

		if (in_head(path) || clipped(path))
			continue;
		w = words_weight(p, i);
		parts_add(&k->t, p, i, WEIGHT_WORDS, w, 0);
		k->words += w;
	}
}

/* Landmarks, names and link lists: the signals of a single page. */
static void mark_signals(struct marking *k)
{
	static const struct main_part none;
	const ant_page_info *p = k->p;
	size_t total = 0, at, len;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);

		if (in_head(path) || clipped(path))
			continue;
		parts_add(&k->t, p, i, PARTS_TEXT, 0, 0);
		parts_add(&k->t, p, i, WEIGHT_ALL, weight(p, i), 0);
		k->total += weight(p, i);
	}
	/* the main content among what no name calls furniture, else among all */
	for (int pass = 0; pass < 2 && !total; pass++)
		for (size_t i = 0; i < p->nseg; i++) {
			const char *path = ant_page_seg_path(p, i);

			if (in_head(path) || clipped(path) || (!pass && named_step(k, path, &none, &at, &len)))
				continue;
			parts_add(&k->t, p, i, WEIGHT_GEN, weight(p, i), 0);
			total += weight(p, i);
		}
	find_main(&k->t, p, WEIGHT_GEN, total, &k->gen);
	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);
		const struct part *side;

		if (in_head(path))
			continue;
		if (named_step(k, path, &k->gen, &at, &len)) {
			k->mark[i] |= M_NAME;
			name_seen(k, 0, path + at, len);
		} else if (p->seg[i].link >= LINK_DENSE && (side = side_part(&k->t, path, &k->gen, i)) &&
			   side->link * 100 >= SIDE_LINKS * side->bytes) {
			k->mark[i] |= M_LINKS;
			part_seen(k, 1, path, side);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* On how many of the site's other pages is key? */
static size_t pages_with(const ant_furniture_site *site, uint32_t key)
{
	size_t n = 0;

	for (size_t j = 0; j < site->npages; j++)
		n += site->page[j].nkeys &&
		     bsearch(&key, site->page[j].keys, site->page[j].nkeys, sizeof key, cmp_u32) != NULL;
	return n;
}

uint32_t ant_furniture_key(const ant_page_seg *s)
{
	uint32_t h = s->block * 2654435761u ^ s->raw;

	return h ^ (h >> 15);
}

int ant_furniture_keys(const ant_page_info *p, uint32_t **keys, size_t *n)
{
	uint32_t *v = malloc((p->nseg ? p->nseg : 1) * sizeof *v);
	size_t k = 0;

	*keys = NULL;
	*n = 0;
	if (!v)
		return LB_ENOMEM;
	for (size_t i = 0; i < p->nseg; i++)
		if (!in_head(ant_page_seg_path(p, i)))
			v[k++] = ant_furniture_key(&p->seg[i]);
	qsort(v, k, sizeof *v, cmp_u32);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	if (!*n) {
		free(v);
		return 0;
	}
	*keys = v;
	return 0;
}

/*
 * The site's template: a segment (its block and words) on at least half
 * the site's other pages known is furniture wherever it stands: a
 * template is on every page, while two pages' own words meet on few (a
 * stock phrase, a quoted title), and what is shared is, by its key, the
 * same words as elsewhere: it hides nothing new (an edit of it is a new
 * key, judged afresh).  A new link (an item mostly link text) in a part
 * mostly made of shared text, beside the main content of the page's own
 * words, is furniture too: the new entry of a "recent posts" list.  In
 * the main content a new link is the page's own: an index page's new
 * entry, even when another page lists the older ones alike.
 */
static void mark_template(struct marking *k, const ant_furniture_site *site)
{
	const ant_page_info *p = k->p;
	unsigned char *shared = calloc(p->nseg ? p->nseg : 1, 1);
	/* each segment's pages_with(), read once (the second loop asks again) */
	size_t *ons = malloc((p->nseg ? p->nseg : 1) * sizeof *ons);
	size_t total = 0, pages = 0;

	if (!shared || !ons) {
		free(shared);
		free(ons);
		return;
	}
	for (size_t j = 0; j < site->npages; j++)
		pages += site->page[j].nkeys > 0;
	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);
		size_t on;

		if (in_head(path) || clipped(path))
			continue;
		on = ons[i] = pages_with(site, ant_furniture_key(&p->seg[i]));
		shared[i] = on > 0 && 2 * on >= pages;
		parts_add(&k->t, p, i, PARTS_SHARE, 0, shared[i]);
		if (!shared[i] && !k->mark[i]) {
			parts_add(&k->t, p, i, WEIGHT_OWN, weight(p, i), 0);
			total += weight(p, i);
		}
	}
	if (!total || !find_main(&k->t, p, WEIGHT_OWN, total, &k->own))
		k->own = k->gen;


	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);
		const struct part *side;
		size_t on;

		if (in_head(path) || clipped(path))
			continue;
		if (shared[i]) {
			if (!k->mark[i])
				part_seen(k, 2, path, side_part(&k->t, path, &k->own, i));
			k->mark[i] |= M_SHARED;
			on = ons[i];
			if (on > k->shared_pages)
				k->shared_pages = on;
		} else if (p->seg[i].link >= NEW_LINK && !in_main(path, &k->own) &&
			   (side = side_part(&k->t, path, &k->own, i)) &&
			   side->shared &&
			   side->shared * 100 >= SIDE_SHARED * side->bytes) {
			if (!k->mark[i])
				part_seen(k, 2, path, side);
			k->mark[i] |= M_SHARED;
		}
	}
	free(shared);
	free(ons);
}

/* What the last check left out by the template or as a link list stays
 * out while it is on the page, unchanged (its key is its words). */
static void mark_sticky(struct marking *k, const ant_furniture_site *site)
{
	const ant_page_info *p = k->p;

	for (size_t i = 0; i < p->nseg; i++) {
		uint32_t key = ant_furniture_key(&p->seg[i]);

		if (!k->mark[i] && !in_head(ant_page_seg_path(p, i)) &&
		    bsearch(&key, site->sticky, site->nsticky, sizeof key, cmp_u32))
			k->mark[i] = M_STICKY;
	}
}

/* f->keys: the keys of the segments left out by the template, as a link
 * list or as before (mark[] holds the M_* reasons still). */
static void keep_keys(const ant_page_info *p, const unsigned char *why, ant_furniture *f)
{
	uint32_t v[ANT_PAGE_MAX_SEGMENTS];
	size_t n = 0;

	for (size_t i = 0; i < p->nseg && n < ANT_PAGE_MAX_SEGMENTS; i++)
		if (why[i] & (M_SHARED | M_LINKS | M_STICKY))
			v[n++] = ant_furniture_key(&p->seg[i]);
	qsort(v, n, sizeof *v, cmp_u32);
	f->nkeys = 0;
	for (size_t i = 0; i < n && f->nkeys < ANT_FURNITURE_KEYS; i++)
		if (!f->nkeys || f->keys[f->nkeys - 1] != v[i])
			f->keys[f->nkeys++] = v[i];
}

/* "; " between the reasons. */
static size_t why_add(char *why, size_t w, size_t room, const char *fmt, const char *a)
{
	if (w < room)
		w += (size_t)snprintf(why + w, room - w, "%s", w ? "; " : "");
	if (w < room)
		w += (size_t)snprintf(why + w, room - w, fmt, a);
	return w;
}

/* The newest sibling page among the site's, or NULL. */
static const ant_furniture_page *sibling_of(const ant_furniture_site *site)
{
	const ant_furniture_page *s = NULL;

	for (size_t j = 0; site && j < site->npages; j++)
		if (site->page[j].sibling && site->page[j].url && (!s || site->page[j].seen > s->seen))
			s = &site->page[j];
	return s;
}

/* "WHAT: a, b" of the parts named for reason r into b (n bytes). */
static void with_names(const struct marking *k, int r, const char *what, char *b, size_t n)
{
	size_t w = (size_t)snprintf(b, n, "%s", what);

	for (size_t i = 0; i < k->nnames[r] && w < n; i++)
		w += (size_t)snprintf(b + w, n - w, "%s%s", i ? ", " : ": ", k->names[r][i]);
}

static void say_why(const struct marking *k, const ant_furniture_site *site, unsigned seen, char *why,
		    size_t room)
{
	const ant_furniture_page *sib = sibling_of(site);
	size_t w = 0;
	char b[512], what[64];

	why[0] = '\0';
	if (seen & M_NAME) {
		with_names(k, 0, k->nnames[0] > 1 ? "landmarks" : "landmark", b, sizeof b);
		w = why_add(why, w, room, "%s", b);
	}
	if (seen & M_LINKS) {
		with_names(k, 1, "link lists beside the main content", b, sizeof b);
		w = why_add(why, w, room, "%s", b);
	}
	if ((seen & M_STICKY) && !(seen & M_SHARED))
		w = why_add(why, w, room, "%s", "left out at the last check and unchanged");
	if (seen & M_SHARED) {
		size_t pages = k->shared_pages ? k->shared_pages : 1;

		snprintf(what, sizeof what, "shared with %zu page%s of the site", pages, pages == 1 ? "" : "s");
		with_names(k, 2, what, b, sizeof b);
		w = why_add(why, w, room, "%s", b);
		if (sib) {
			time_t t = (time_t)sib->seen;
			struct tm tm;
			char when[48] = "";

			if (gmtime_r(&t, &tm))
				strftime(when, sizeof when, " checked at %Y-%m-%d %H:%M UTC", &tm);
			snprintf(b, sizeof b, "sibling page %.200s%s", sib->url, when);
			w = why_add(why, w, room, "%s", b);
		}
	}
}

/* A known generator's hint over the general rules' marks: what stands in
 * its content containers is content, what stands in its furniture's own
 * containers is furniture; the rest is as the general rules said. */
static size_t hint_generator(const ant_page_info *p, const struct generator *g, unsigned char *mark)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i);

		if (in_head(path))
			continue;
		if (path_has(path, g->content))
			mark[i] = 0;
		else if (path_has(path, g->furniture))
			mark[i] |= M_GEN;
		n += (mark[i] & M_GEN) != 0;
	}
	return n;
}

size_t ant_furniture_mark_site(const ant_page_info *p, const ant_furniture_site *site,
			       unsigned char *mark, ant_furniture *f)
{
	const struct generator *g = recognise(p);
	struct marking k = { .p = p, .mark = mark };
	size_t n = 0, own = 0;
	unsigned seen = 0;
	int generic = 0;

	memset(f, 0, sizeof *f);
	if (!p->nseg)
		return 0;
	memset(mark, 0, p->nseg);
	if (parts_init(&k.t, p) == 0) {
		generic = 1;
		mark_signals(&k);
		if (site && site->npages)
			mark_template(&k, site);
		if (site && site->nsticky)
			mark_sticky(&k, site);
		if (g)
			hint_generator(p, g, mark);
		for (size_t i = 0; i < p->nseg; i++)
			seen |= mark[i];
		say_why(&k, site, seen & ~M_GEN, f->why, sizeof f->why);
		if (seen & M_GEN) {   /* the generator named first */
			char rest[ANT_FURNITURE_WHY];
			int w;

			memcpy(rest, f->why, sizeof rest);
			w = snprintf(f->why, sizeof f->why, "%s: outside %s", g->name, g->what);
			if (*rest && w > 0 && (size_t)w + 2 < sizeof f->why)
				snprintf(f->why + w, sizeof f->why - (size_t)w, "; %.*s", (int)(sizeof f->why - (size_t)w - 3),
					 rest);
		}
		parts_release(&k.t);
	} else if (g) {
		mark_generator(p, g, mark);   /* out of memory for the general rules */
		snprintf(f->why, sizeof f->why, "%s: outside %s", g->name, g->what);
	}
	for (size_t i = 0; i < p->nseg; i++) {
		n += mark[i] != 0;
		own += !mark[i] && !in_head(ant_page_seg_path(p, i));
	}
	if (!n || !own) {   /* nothing, or nothing left: the page is read whole */
		memset(mark, 0, p->nseg);
		memset(f, 0, sizeof *f);
		return 0;
	}
	f->nseg = n;
	for (size_t i = 0; i < p->nseg; i++)
		f->bytes += mark[i] ? p->seg[i].len : 0;
	if (generic)
		keep_keys(p, mark, f);
	for (size_t i = 0; i < p->nseg; i++)
		mark[i] = mark[i] != 0;
	return n;
}

size_t ant_furniture_mark(const ant_page_info *p, unsigned char *mark, ant_furniture *f)
{
	return ant_furniture_mark_site(p, NULL, mark, f);
}

int ant_furniture_strip_site(ant_page_info *p, const ant_furniture_site *site, ant_furniture *f)
{
	unsigned char *mark = malloc(p->nseg ? p->nseg : 1);
	int parallel = p->segs && p->nsegs == p->nseg;
	size_t k = 0;

	if (!mark) {
		memset(f, 0, sizeof *f);
		return LB_ENOMEM;
	}
	if (ant_furniture_mark_site(p, site, mark, f)) {
		for (size_t i = 0; i < p->nseg; i++) {
			if (mark[i])
				continue;
			p->seg[k] = p->seg[i];
			if (parallel)
				p->segs[k] = p->segs[i];
			k++;
		}
		p->nseg = k;
		if (parallel)
			p->nsegs = k;
	}
	free(mark);
	return 0;
}

int ant_furniture_strip(ant_page_info *p, ant_furniture *f)
{
	return ant_furniture_strip_site(p, NULL, f);
}
