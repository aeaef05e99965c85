/*
 * update_sibling.c: the sibling pages noted by update_site.c (a page the
 * only one known of its site), fetched after the batch's checks: one a
 * site, at most one a site in ANT_TEMPLATE_SIBLING_EVERY, none when
 * another page of the site was checked in the same batch, on the run's
 * fetch path -- its politeness (one server, its waits), its limits
 * (--max-body, timeouts) and its address rules (an internal address
 * only for the host the operator added) -- and only where the site's
 * robots.txt, known in this run, allows it.  What it answers is kept as
 * the site's template (hashes only); a failure is kept as the attempt.
 */
#include "update_int.h"

#include <stdlib.h>
#include <string.h>

#include "ant_page.h"

static int is_html(const char *ct)
{
	return !ct || !*ct || strncmp(ct, "text/html", 9) == 0 || strncmp(ct, "application/xhtml", 17) == 0;
}

/* The same page, its fragment aside? */
static int same_url(const char *a, const char *b)
{
	size_t na, nb;

	if (!a || !b)
		return 0;
	na = strcspn(a, "#");
	nb = strcspn(b, "#");
	return na == nb && strncmp(a, b, na) == 0;
}

static void sibling_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	const struct upd_sibling *sb = req->user;
	ant_page_info info = { 0 };

	/* a sibling that redirected to the page itself ("/" to "/index.html")
	 * is no other page: its keys would make the whole page "shared" */
	if (ant_upd_http_failed(res) || res->status != 200 || !is_html(res->content_type) ||
	    res->len > ANT_TEMPLATE_SIBLING_BYTES || same_url(res->effective_url, sb->page) ||
	    ant_page_analyze(res->body, res->len, res->content_type, NULL, &info, NULL) < 0 ||
	    info.json) {   /* JSON data is no template */
		if (info.json)
			ant_page_info_release(&info);
		ant_upd_site_keep(u, sb->url, 1, NULL);   /* the attempt */
		return;
	}
	/* the page itself under another URL is no sibling: the attempt only */
	ant_upd_site_keep(u, sb->url, 1, ant_upd_site_same_page(u, sb->site, sb->page, &info) ? NULL : &info);
	ant_page_info_release(&info);
}

int ant_upd_siblings(struct upd *u)
{
	struct upd_siblings *t = u->tmpl;
	ant_fetch_req *reqs;
	size_t n = 0;
	int rc = 0;

	if (!t || !t->n)
		return 0;
	if (!(reqs = calloc(t->n, sizeof *reqs)))
		return LB_ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		struct upd_sibling *sb = &t->v[i];

		if (sb->url && ant_upd_site_alone(u, sb->site, sb->page) && ant_upd_robots_url(u, sb->url))
			reqs[n++] = (ant_fetch_req){ sb->url, NULL, NULL, sb, sb->allow };
	}
	if (n)
		rc = ant_upd_fetch(u, reqs, n, sibling_done, u);
	free(reqs);
	ant_upd_siblings_free(u);
	return rc;
}

void ant_upd_siblings_free(struct upd *u)
{
	struct upd_siblings *t = u->tmpl;

	for (size_t i = 0; t && i < t->n; i++) {
		free(t->v[i].site);
		free(t->v[i].url);
		free(t->v[i].allow);
		free(t->v[i].page);
	}
	if (t) {
		free(t->v);
		t->v = NULL;
		t->n = 0;
	}
}
