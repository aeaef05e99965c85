/*
 * publish_jsonfeed.c: DIR/feed.json, JSON Feed 1.1
 * (https://www.jsonfeed.org/version/1.1/), for the readers that speak JSON.
 * Its items are current.atom's entries, with the same ids, in the same
 * order and as many: the Atom writer calls ant_jsonfeed_item() for each
 * entry it writes (atom_cfg.on_current), so the two feeds never disagree
 * and the pages are read once.  Every string goes through lb_json, the one
 * JSON writer; the file is replaced atomically like the others.
 */
#include "publish_jsonfeed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ant_pubdiff.h"
#include "atom.h"
#include "html.h"
#include "lb_afile.h"
#include "lb_buf.h"
#include "lb_json.h"
#include "lb_url.h"

/* The buffer is written out past this many bytes: one item at a time
 * would be a write(2) each, the whole feed would be held in memory. */
#define JF_FLUSH_BYTES (1 << 16)

struct ant_jsonfeed {
	lb_afile f;
	char *path;
	char *base, *dir, *lang;   /* for the diff pages' links */
	lb_buf rel, html;
	lb_buf out;
	size_t items;
	int failed;    /* LB_ENOMEM or LB_EIO once a write failed */
};

static int flush(ant_jsonfeed *jf)
{
	if (jf->out.len && fwrite(jf->out.data, 1, jf->out.len, jf->f.fp) != jf->out.len)
		jf->failed = LB_EIO;
	lb_buf_reset(&jf->out);
	return jf->failed;
}

/* "authors":[{"name":NAME}] after a first member */
static int put_authors(lb_buf *o, const char *name)
{
	return lb_json_next_key(o, "authors") || lb_buf_adds(o, "[{") ||
	       lb_json_key(o, "name") || lb_json_strz(o, name) || lb_buf_adds(o, "}]") ? LB_ENOMEM : 0;
}

static int put_head(lb_buf *o, const ant_jsonfeed_head *h)
{
	lb_buf self = LB_BUF_INIT;
	int rc = lb_buf_addf(&self, "%sfeed.json", h->base) ||
		 lb_buf_adds(o, "{") || lb_json_key(o, "version") ||
		 lb_json_strz(o, "https://jsonfeed.org/version/1.1") ||
		 lb_json_next_key(o, "title") || lb_json_strz(o, h->title) ||
		 lb_json_next_key(o, "home_page_url") || lb_json_strz(o, h->base) ||
		 lb_json_next_key(o, "feed_url") || lb_json_strz(o, self.data);

	lb_buf_release(&self);

	if (rc == 0 && h->lang && *h->lang)
		rc = lb_json_next_key(o, "language") || lb_json_strz(o, h->lang);
	if (rc == 0 && h->author && *h->author)
		rc = put_authors(o, h->author);
	if (rc == 0 && h->nhubs) {
		rc = lb_json_next_key(o, "hubs") || lb_buf_adds(o, "[");
		for (size_t i = 0; rc == 0 && i < h->nhubs; i++)
			rc = lb_buf_adds(o, i ? ",{" : "{") || lb_json_key(o, "type") ||
			     lb_json_strz(o, "WebSub") || lb_json_next_key(o, "url") ||
			     lb_json_strz(o, h->hubs[i]) || lb_buf_adds(o, "}");
		rc = rc || lb_buf_adds(o, "]");
	}
	return rc || lb_json_next_key(o, "items") || lb_buf_adds(o, "[") ? LB_ENOMEM : 0;
}

int ant_jsonfeed_open(ant_jsonfeed **jfp, const char *dir, const ant_jsonfeed_head *h,
		      lb_error *err)
{
	ant_jsonfeed *jf = calloc(1, sizeof *jf);
	lb_buf path = LB_BUF_INIT;

	*jfp = NULL;
	if (!jf || lb_buf_addf(&path, "%s/feed.json", dir) < 0) {
		free(jf);
		return lb_err_code(err, LB_ENOMEM);
	}
	jf->path = lb_buf_detach(&path, NULL);
	lb_buf_init(&jf->out);
	lb_buf_init(&jf->rel);
	lb_buf_init(&jf->html);
	jf->base = strdup(h->base);
	jf->dir = h->dir ? strdup(h->dir) : NULL;
	jf->lang = strdup(h->lang ? h->lang : "");
	if (!jf->path || !jf->base || !jf->lang || (h->dir && !jf->dir) || put_head(&jf->out, h) < 0) {
		ant_jsonfeed_close(jf, 0, NULL);
		return lb_err_code(err, LB_ENOMEM);
	}
	if (lb_afile_open(&jf->f, jf->path) < 0) {
		int rc = lb_err_sys(err, "cannot write '%s'", jf->path);

		ant_jsonfeed_close(jf, 0, NULL);
		return rc;
	}
	*jfp = jf;
	return 0;
}

/* The item's text: what the update added when it is known, else its
 * title (JSON Feed 1.1: content_html or content_text must be present). */
static const char *item_text(const atom_ev_event *e)
{
	if (e->excerpt && *e->excerpt)
		return e->excerpt;
	return *e->title ? e->title : e->url;
}

/* content_html when the update has a diff page: the item's text and the
 * page's link, through the one HTML escaper; 0 none, 1 made, LB_ENOMEM. */
static int diff_html(ant_jsonfeed *jf, const atom_ev_event *e, const char *text)
{
	lb_buf *h = &jf->html;

	lb_buf_reset(&jf->rel);
	lb_buf_reset(h);
	if (!jf->dir || ant_pub_diff_related(jf->dir, e, &jf->rel) <= 0 || !jf->rel.len)
		return 0;
	if (lb_buf_adds(h, "<p>") || ant_html_escape(h, text, strlen(text)) ||
	    lb_buf_adds(h, "</p><p><a href=\"") || ant_html_escape(h, jf->base, strlen(jf->base)) ||
	    ant_html_escape(h, jf->rel.data, jf->rel.len) || lb_buf_adds(h, "\">") ||
	    lb_buf_adds(h, ant_pub_diff_word(jf->lang)) || lb_buf_adds(h, "</a></p>"))
		return LB_ENOMEM;
	return 1;
}

int ant_jsonfeed_item(void *ctx, const atom_ev_event *e, const char *id)
{
	ant_jsonfeed *jf = ctx;
	lb_buf *o = &jf->out;
	char when[32];
	int rc;

	if (jf->failed)
		return jf->failed;
	atom_time(when, sizeof when, e->last_modified);
	rc = lb_buf_adds(o, jf->items ? ",\n{" : "\n{") || lb_json_key(o, "id") || lb_json_strz(o, id);
	if (rc == 0 && lb_url_is_http(e->url))   /* a hostile source's javascript: stays out */
		rc = lb_json_next_key(o, "url") || lb_json_strz(o, e->url);
	rc = rc || lb_json_next_key(o, "title") || lb_json_strz(o, *e->title ? e->title : e->url) ||
	     lb_json_next_key(o, "content_text") || lb_json_strz(o, item_text(e)) ||
	     lb_json_next_key(o, "date_modified") || lb_json_strz(o, when);
	if (rc == 0 && e->author && *e->author)
		rc = put_authors(o, e->author);
	if (rc == 0 && (rc = diff_html(jf, e, item_text(e))) == 1)
		rc = lb_json_next_key(o, "content_html") || lb_json_str(o, jf->html.data, jf->html.len);
	if (rc || lb_buf_adds(o, "}"))
		return jf->failed = LB_ENOMEM;
	jf->items++;
	return o->len > JF_FLUSH_BYTES ? flush(jf) : 0;
}

int ant_jsonfeed_close(ant_jsonfeed *jf, int ok, lb_error *err)
{
	int rc = 0;

	if (!jf)
		return 0;
	if (jf->f.fp) {
		if (ok && !jf->failed && lb_buf_adds(&jf->out, "\n]}\n") < 0)
			jf->failed = LB_ENOMEM;
		if (ok && !jf->failed)
			flush(jf);
		if (!ok || jf->failed || ferror(jf->f.fp)) {
			if (ok)
				rc = jf->failed == LB_ENOMEM ? lb_err_code(err, LB_ENOMEM)
							     : lb_err(err, LB_EIO, "cannot write '%s'", jf->path);
			lb_afile_abort(&jf->f);
		} else if (lb_afile_commit(&jf->f) < 0) {
			rc = lb_err_sys(err, "cannot write '%s'", jf->path);
		}
	}
	lb_buf_release(&jf->out);
	lb_buf_release(&jf->rel);
	lb_buf_release(&jf->html);
	free(jf->path);
	free(jf->base);
	free(jf->dir);
	free(jf->lang);
	free(jf);
	return rc;
}
