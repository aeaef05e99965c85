/*
 * furniture.c: a page's own content told apart from its site's furniture
 * (sidebars, calendars, counters, menus, footers), from the paths of its
 * segments alone (ant_furniture.h).
 *
 * A path is "tag#id.class.class>tag..." from <body> down (ant_page.h);
 * a selector here is "tag", "tag.class", ".class", "#id" or "tag#id",
 * matched against one step of it.  The generators' marks and containers
 * are what their stock templates write (tDiary 5 header.rhtml, DokuWiki's
 * "dokuwiki" template, WordPress themes, Hatena, MediaWiki's skins).
 */
#include "ant_furniture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The generator whose mark a segment's path has, or NULL. */
static const struct generator *recognise(const ant_page_info *p)
{
	for (size_t g = 0; g < sizeof generators / sizeof *generators; g++)
		for (size_t i = 0; i < p->nseg; i++)
			if ((i == 0 || p->seg[i].path != p->seg[i - 1].path) &&
			    path_has(ant_page_seg_path(p, i), generators[g].mark))
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

static size_t mark_landmarks(const ant_page_info *p, unsigned char *mark, char *why, size_t room)
{
	unsigned seen = 0;
	size_t n = 0, w;

	for (size_t i = 0; i < p->nseg; i++) {
		const char *path = ant_page_seg_path(p, i), *l;

		if (i > 0 && p->seg[i].path == p->seg[i - 1].path) {   /* the same block */
			mark[i] = mark[i - 1];
			n += mark[i];
			continue;
		}
		l = in_head(path) ? NULL : landmark_of(path);

		mark[i] = l != NULL;
		n += mark[i];
		for (size_t k = 0; l && landmarks[k]; k++)
			if (landmarks[k] == l)
				seen |= 1u << k;
	}
	w = (size_t)snprintf(why, room, "landmarks:");
	for (size_t k = 0; landmarks[k] && w < room; k++)
		if (seen & (1u << k))
			w += (size_t)snprintf(why + w, room - w, "%s %s", w > 10 ? "," : "", landmarks[k]);
	return n;
}

size_t ant_furniture_mark(const ant_page_info *p, unsigned char *mark, ant_furniture *f)
{
	const struct generator *g = recognise(p);
	size_t n, own = 0;

	memset(f, 0, sizeof *f);
	if (!p->nseg)
		return 0;
	if (g && (n = mark_generator(p, g, mark)) > 0)
		snprintf(f->why, sizeof f->why, "%s: outside %s", g->name, g->what);
	else
		n = mark_landmarks(p, mark, f->why, sizeof f->why);
	for (size_t i = 0; i < p->nseg; i++)
		own += !mark[i] && !in_head(ant_page_seg_path(p, i));
	if (!n || !own) {   /* nothing, or nothing left: the page is read whole */
		memset(mark, 0, p->nseg);
		memset(f, 0, sizeof *f);
		return 0;
	}
	f->nseg = n;
	for (size_t i = 0; i < p->nseg; i++)
		f->bytes += mark[i] ? p->seg[i].len : 0;
	return n;
}

int ant_furniture_strip(ant_page_info *p, ant_furniture *f)
{
	unsigned char *mark = malloc(p->nseg ? p->nseg : 1);
	int parallel = p->segs && p->nsegs == p->nseg;
	size_t k = 0;

	if (!mark) {
		memset(f, 0, sizeof *f);
		return LB_ENOMEM;
	}
	if (ant_furniture_mark(p, mark, f)) {
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
