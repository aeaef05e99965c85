/*
 * ant_furniture.h: which segments of a page are its site's furniture, not
 * the page's own content.  A blog's "recent posts" list, a calendar, a
 * tag cloud, archive counts, a wiki's sidebar and footer change when
 * *another* page of the site changes (or when anyone visits); an antenna
 * that counts them says "updated" of every page of the site.  The
 * segments marked here take no part in the update decision, the excerpt
 * nor the diff: a page is updated only when its own content changed.
 *
 * Furniture is told apart by what the page shares with its site, and by
 * signals every template gives, never by a table of names alone:
 *   template   the site's template, learned (when the caller passes it):
 *              the segment keys (block path + words, ant_furniture_keys())
 *              of other pages of the same site -- other watched pages, or
 *              one sibling page fetched for reference.  Outside the
 *              page's main content, a segment another page also has is
 *              furniture, and so is a new segment in a part of the page
 *              whose text is mostly shared (a new entry in "recent posts");
 *   landmarks  <aside>, <nav>, <footer>, a <header> outside an <article>
 *              or <main>, and elements whose class or id has one of the
 *              common words of a template in it (sidebar, footer, header,
 *              nav, menu, widget, breadcrumb, banner... as words of the
 *              name: div.sidebar, div#site-footer, div.sphinxsidebar);
 *   link lists a link-dense block (most of its text is link text) in a
 *              part of the page, beside the main content, that is mostly
 *              links: menus, archives, tag clouds, other pages' titles.
 * The main content is where most of the page's own words are (links
 * count half): the deepest element holding more than half of them.
 * What stands in it -- an index page's list of entries, a post's
 * comments -- is the page's own, whatever its names; an element named
 * like furniture that holds the main content is not furniture.
 * A well-known generator's markup (a table: tDiary, Hatena, WordPress,
 * DokuWiki, MediaWiki) is a hint on top of these rules, never the rule:
 * what stands in its content containers is content, what stands in its
 * furniture's own containers is furniture, the rest is as the rules
 * above said.
 * The <head> (the title) is never furniture.  When the rules would leave
 * no own content, nothing is furniture (the page is read whole).
 *
 * Pure functions over an analysed page (ant_page.h): no I/O, no clock.
 */
#ifndef ANT_FURNITURE_H
#define ANT_FURNITURE_H

#include <stddef.h>
#include <stdint.h>

#include "ant_page.h"

#define ANT_FURNITURE_WHY 320   /* bytes of ant_furniture.why */
#define ANT_FURNITURE_KEYS 128  /* keys kept of what the template left out */

/* What was treated as furniture, for 'antenna show'. */
typedef struct ant_furniture {
	size_t nseg;                  /* segments marked */
	size_t bytes;                 /* their bytes of text */
	char why[ANT_FURNITURE_WHY];  /* "landmarks: div.sidebar, footer; link lists;
					 shared with 3 pages of the site";
					 "" when none */
	/* The keys (ant_furniture_key(), sorted, at most ANT_FURNITURE_KEYS)
	 * of the segments the site's template or a link list left out: they
	 * stay out at the next check while they are on the page, so that a
	 * template that moves (another page of the site changed, a sibling
	 * fetched again) never brings them back as news. */
	uint32_t keys[ANT_FURNITURE_KEYS];
	size_t nkeys;
} ant_furniture;

/* The site's template as known: other pages' keys (ant_furniture_keys()). */
typedef struct ant_furniture_page {
	const uint32_t *keys;         /* sorted, unique */
	size_t nkeys;
	int sibling;                  /* fetched for reference, not watched */
	const char *url;              /* for show; may be NULL */
	int64_t seen;                 /* when its keys were taken */
} ant_furniture_page;

typedef struct ant_furniture_site {
	const ant_furniture_page *page;
	size_t npages;
	const uint32_t *sticky;       /* the last check's ant_furniture.keys */
	size_t nsticky;
} ant_furniture_site;

/* The key of a segment as the template keeps it: its block and its
 * words as written (seg->raw: numbers included, so that a price two
 * product pages share is the page's own again once it is edited),
 * mixed. */
uint32_t ant_furniture_key(const ant_page_seg *s);

/* The sorted unique keys of p's segments outside <head> into *keys
 * (malloc'd, *n of them; NULL and 0 when none).  0 or LB_ENOMEM. */
int ant_furniture_keys(const ant_page_info *p, uint32_t **keys, size_t *n);

/*
 * Sets mark[i] (p->nseg bytes) to 1 for each furniture segment of p, 0 for
 * its own content, and fills *f.  site may be NULL (no template known).
 * Returns the count marked.
 */
size_t ant_furniture_mark_site(const ant_page_info *p, const ant_furniture_site *site,
			       unsigned char *mark, ant_furniture *f);
/* The same without a template. */
size_t ant_furniture_mark(const ant_page_info *p, unsigned char *mark, ant_furniture *f);

/*
 * ant_furniture_mark_site(), then the furniture segments removed from
 * p->seg (and p->segs when it parallels p->seg): the own content stays,
 * in document order, its text and paths where they were.  Returns 0, or
 * LB_ENOMEM (then p is unchanged and f says none).
 */
int ant_furniture_strip_site(ant_page_info *p, const ant_furniture_site *site, ant_furniture *f);
int ant_furniture_strip(ant_page_info *p, ant_furniture *f);

#endif
