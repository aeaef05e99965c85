/*
 * t_sibling: which page of its site a page alone on it has fetched for
 * reference (update_site.c, ant_upd_site_sibling()): the first link to
 * another page of the same origin, relative or absolute; never the page
 * itself, another origin, a URL with a query, an asset, a fragment.
 */
#include "update_int.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

struct sib {
	const char *name, *base, *site, *body, *want;   /* want NULL: none */
};

static const struct sib cases[] = {
	{ "a post: its header's link to the root", "https://b.example/2026/11/post.html", "https://b.example:443",
	  "<header><a class=\"t\" href=\"/\">Blog</a><a href=\"/about/\">About</a></header>", "https://b.example/" },
	{ "the root: its first link elsewhere, itself skipped", "https://b.example/", "https://b.example:443",
	  "<a href=\"/\">Blog</a> <a href='/about/'>About</a>", "https://b.example/about/" },
	{ "relative to the page's directory", "http://h.example:8080/~kim/diary/index.html", "http://h.example:8080",
	  "<A HREF=\"prev.html\">previous</A>", "http://h.example:8080/~kim/diary/prev.html" },
	{ "no query, no asset, no fragment, no other origin", "https://b.example/p.html", "https://b.example:443",
	  "<a href=\"#top\">top</a><a href=\"/feed.xml\">feed</a><a href=\"/s?q=1\">search</a>"
	  "<a href=\"https://other.example/\">friend</a><a href=\"http://b.example/\">plain http</a>"
	  "<a href=\"/style.css\">css</a><a href=\"/p.html#c1\">comment</a><a href=\"/tags/\">tags</a>",
	  "https://b.example/tags/" },
	{ "an anchor without href, then a link", "https://b.example/p.html", "https://b.example:443",
	  "<a name=\"x\">x</a><a id=\"y\" href=\"/q.html\">q</a>", "https://b.example/q.html" },
	{ "no link at all", "https://b.example/p.html", "https://b.example:443", "<p>alone</p>", NULL },
};

int main(void)
{
	TAP_PLAN(6);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct sib *c = &cases[i];
		char *got = ant_upd_site_sibling(c->base, c->site, c->body, strlen(c->body));

		IS_STR(got ? got : "(none)", c->want ? c->want : "(none)", "%s", c->name);
		free(got);
	}
	TAP_DONE();
}
