/*
 * feed_match.c: which entries of a feed speak of one page (ant_feed.h,
 * ant_feed_about_page).  A site's feed is advertised on every page of the
 * site (DokuWiki, WordPress, tDiary, Hatena Blog): its newest entry is
 * news of the site, not of the page showing the link.  The feed speaks of
 * a page only by an entry whose link (or URL id) is the page, or by the
 * page being the feed's own home (its alternate link).  URLs are compared
 * by the one URL key (lb_url_key), without their fragment: an entry linked
 * to "day.html#p01" is a part of "day.html".
 */
#include <stdlib.h>
#include <string.h>

#include "ant_feed.h"
#include "lb_buf.h"
#include "lb_url.h"

struct about_ctx {
	const char *feed_url;    /* entry links are resolved against it */
	const char *page_key;    /* the page's key */
	lb_buf key;              /* scratch */
	ant_feed_about *out;
	int oom;
};

/* The key of href resolved against base, fragment dropped, into *key
 * (reset first): 1, or 0 when there is none (empty, unresolvable, out of
 * memory: *oom set). */
static int key_of(const char *base, const char *href, lb_buf *key, int *oom)
{
	char *url, *hash;
	int rc;

	lb_buf_reset(key);
	if (!href || !*href)
		return 0;
	url = ant_feed_resolve(base, href);
	if (!url)
		return 0;
	if ((hash = strchr(url, '#')))
		*hash = '\0';
	rc = lb_url_key(key, url);
	free(url);
	if (rc < 0)
		*oom = 1;
	return rc == 0 && key->len > 0;
}

static int same_page(struct about_ctx *c, const char *href)
{
	return key_of(c->feed_url, href, &c->key, &c->oom) && strcmp(c->key.data, c->page_key) == 0;
}

/* Is href a view of the page: the page's URL (with a query) and more
 * parameters after it?  A wiki's feed links a page's diff or revision so
 * ("doku.php?id=P&rev=1&do=diff", "index.php?title=P&diff=2&oldid=1"). */
static int view_of_page(struct about_ctx *c, const char *href)
{
	size_t n = strlen(c->page_key);

	return strchr(c->page_key, '?') && key_of(c->feed_url, href, &c->key, &c->oom) &&
	       c->key.len > n && strncmp(c->key.data, c->page_key, n) == 0 && c->key.data[n] == '&';
}

/* One entry: about the page when its link, or its id when that is an
 * http(s) URL (an RSS guid permalink, an Atom id that is the URL), is the
 * page; a link to a view of the page is noted apart (view_entry). */
static int on_entry(void *ctx, const ant_feed_entry *e)
{
	struct about_ctx *c = ctx;
	ant_feed_about *a = c->out;
	int about = same_page(c, e->link) || (lb_url_is_http(e->id) && same_page(c, e->id));

	if (!about && view_of_page(c, e->link) && e->date > a->view_entry)
		a->view_entry = e->date;
	if (!about)
		return 0;
	a->entries++;
	if (e->date > a->newest_entry) {
		char *t = strdup(e->title ? e->title : "");

		if (!t) {
			c->oom = 1;
			return 1;
		}
		a->newest_entry = e->date;
		free(a->entry_title);
		a->entry_title = t;
	}
	return c->oom;
}

int ant_feed_about_page(const char *body, size_t len, const char *feed_url, const char *page_url,
			const ant_feed_opts *o, ant_feed_about *out, lb_error *err)
{
	struct about_ctx c = { .feed_url = feed_url, .out = out };
	ant_feed_opts fo = o ? *o : (ant_feed_opts){ 0 };
	lb_buf pk;
	int rc;

	memset(out, 0, sizeof *out);
	lb_buf_init(&pk);
	lb_buf_init(&c.key);
	if (!key_of(page_url, page_url, &pk, &c.oom)) {
		rc = lb_err(err, c.oom ? LB_ENOMEM : LB_EINVAL, "no page URL to match the feed against");
		goto done;
	}
	c.page_key = pk.data;
	fo.on_entry = on_entry;
	fo.ctx = &c;
	rc = ant_feed_parse(body, len, &fo, &out->info, err);
	if (c.oom) {
		rc = lb_err(err, LB_ENOMEM, "out of memory");
	}
	if (rc < 0)
		goto done;
	out->home = same_page(&c, out->info.home);
	/* The feed's home: its every entry is news of the page.  Else only
	 * its entries about the page date it. */
	if (out->home) {
		out->newest = out->info.newest;
		out->title = out->info.newest_title;
	} else {
		out->newest = out->newest_entry;
		out->title = out->entry_title;
	}
done:
	lb_buf_release(&pk);
	lb_buf_release(&c.key);
	return rc;
}

void ant_feed_about_release(ant_feed_about *a)
{
	if (!a)
		return;
	ant_feed_info_release(&a->info);
	free(a->entry_title);
	memset(a, 0, sizeof *a);
}
