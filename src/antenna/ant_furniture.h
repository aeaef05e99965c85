/*
 * ant_furniture.h: which segments of a page are its site's furniture, not
 * the page's own content.  A diary's "recent comments" list, a calendar,
 * a counter, a wiki's sidebar and footer change when *another* page of
 * the site changes (or when anyone visits); an antenna that counts them
 * says "updated" of every page of the site.  The segments marked here
 * take no part in the update decision nor in the excerpt: a page is
 * updated only when its own content changed.
 *
 * Pure functions over an analysed page (ant_page.h), working for a single
 * watched page of a site: the decision reads only the page's segment
 * paths (body>div.whole-content>div.sidebar>ol.recent-comment>li).
 *   generator  the markup of a well-known generator (a table: tDiary,
 *              Hatena Diary, Hatena Blog, WordPress, DokuWiki, MediaWiki)
 *              is recognised by a mark only it writes; its own content is
 *              what stands in its content containers (tDiary's div.day,
 *              DokuWiki's div.page...) and the rest is furniture;
 *   landmarks  otherwise, what stands in <aside>, <nav>, <footer>, or in a
 *              <header> not inside an <article> or <main>.
 * The <head> (the title) is never furniture.  When the rules would leave
 * no own content, nothing is furniture (the page is read whole).
 */
#ifndef ANT_FURNITURE_H
#define ANT_FURNITURE_H

#include <stddef.h>

#include "ant_page.h"

#define ANT_FURNITURE_WHY 120   /* bytes of ant_furniture.why */

/* What was treated as furniture, for 'antenna show'. */
typedef struct ant_furniture {
	size_t nseg;                  /* segments marked */
	size_t bytes;                 /* their bytes of text */
	char why[ANT_FURNITURE_WHY];  /* "tDiary: outside the diary's days (div.day)",
					 "landmarks: aside, footer"; "" when none */
} ant_furniture;

/*
 * Sets mark[i] (p->nseg bytes) to 1 for each furniture segment of p, 0 for
 * its own content, and fills *f.  Returns the count marked.
 */
size_t ant_furniture_mark(const ant_page_info *p, unsigned char *mark, ant_furniture *f);

/*
 * ant_furniture_mark(), then the furniture segments removed from p->seg
 * (and p->segs when it parallels p->seg): the own content stays, in
 * document order, its text and paths where they were.  Returns 0, or
 * LB_ENOMEM (then p is unchanged and f says none).
 */
int ant_furniture_strip(ant_page_info *p, ant_furniture *f);

#endif
