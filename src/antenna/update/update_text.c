/*
 * update_text.c: what a page's check adds to the noise-proof text rule
 * (update_check.c): the site's furniture left out of the answer
 * (ant_furniture.h, with the site's template of update_site.c), the token rule after the noise rule's verdict
 * (ant_tokens.h), and the page's text state kept in its one noise column
 * (ant_textstate.h).
 */
#include "update_int.h"

#include <stdlib.h>
#include <string.h>

#include "ant_furniture.h"
#include "ant_textstate.h"
#include "ant_tokens.h"

/* The site's furniture leaves the answer's segments: only the page's own
 * content decides an update and makes the excerpt.  Not when the
 * operator chose the part to watch (--only) or asked that every change
 * count (--no-auto-ignore). */
int ant_upd_furniture(struct upd *u, const ant_store_page *p, const ant_fetch_result *res,
		      ant_page_info *info, ant_furniture *f, int keep)
{
	struct upd_site t;
	ant_textstate ps;
	int rc;

	memset(f, 0, sizeof *f);
	if (p->no_auto_ignore || (p->only && *p->only))
		return 0;
	/* the site's template (update_site.c): its other pages' keys, and
	 * this page's kept for them, its furniture included; what the last
	 * check left out by it stays out (ant_furniture.h) */
	ant_upd_site_load(u, p, keep ? res : NULL, &t);
	if (ant_textstate_split(p->noise, p->noise_len, &ps) == 0) {
		t.site.sticky = ps.furniture.keys;
		t.site.nsticky = ps.furniture.nkeys;
	}
	if (keep)
		ant_upd_site_keep(u, p->url, 0, info);
	rc = ant_furniture_strip_site(info, &t.site, f);
	ant_upd_site_release(&t);
	return rc;
}

int ant_upd_had_furniture(const ant_store_page *p)
{
	ant_textstate ps;

	return ant_textstate_split(p->noise, p->noise_len, &ps) == 0 && ps.furniture.nseg > 0;
}

int ant_upd_noise_of(const ant_store_page *p, ant_detect_noise *ns)
{
	ant_textstate ps;

	if (ant_textstate_split(p->noise, p->noise_len, &ps) < 0 ||
	    ant_detect_noise_decode(ns, ps.noise, ps.noise_len) < 0) {
		ant_detect_noise_init(ns);
		return LB_EPARSE;
	}
	return 0;
}

/* Will the header or the feed rule announce this check (ant_detect_apply())?
 * Then a sentence changed only in its numbers is part of that update. */
static int other_rule_news(const ant_store_page *p, const ant_detect_input *in, int64_t now)
{
	if (in->feed_usable && in->feed_time > 0)
		return in->feed_time > p->st.feed_time;
	return ant_detect_lm_believable(in->lm_time, in->date_time, now, in->max_future) &&
	       in->lm_time > p->st.lm_header_time && in->lm_time > p->st.last_modified;
}

static void tokens_of(const ant_store_page *p, ant_tokens *tk)
{
	ant_textstate ps;

	if (ant_textstate_split(p->noise, p->noise_len, &ps) < 0 ||
	    ant_tokens_decode(tk, ps.tokens, ps.tokens_len) < 0)
		ant_tokens_init(tk);
}

void ant_upd_tokens(struct upd *u, ant_store_page *p, const ant_detect_noise *ns, const ant_page_info *info,
		    const ant_detect_verdict *v, ant_detect_input *in, char **excerpt)
{
	struct upd_check *c = &u->chk[p - u->pages];
	ant_tokens tk;
	ant_tokens_verdict tv;
	unsigned char *skip;

	if (p->no_auto_ignore || v->baseline || !(skip = calloc(info->nseg ? info->nseg : 1, 1)))
		return;
	/* learned blocks are the noise rule's; a sentence without a digit
	 * cannot change in its numbers alone */
	for (size_t i = 0; i < info->nseg; i++)
		skip[i] = ant_detect_noise_find(ns, info->seg[i].block) != NULL ||
			  !ant_tokens_has_number(info->text + info->seg[i].off, info->seg[i].len);
	tokens_of(p, &tk);
	if (ant_tokens_decide(&tk, info->seg, info->nseg, skip, v->updated || other_rule_news(p, in, u->now),
			      u->now, &tv) == 0) {
		if (tv.updated) {
			if (!in->noise_updated || !in->noise_time || tv.since < in->noise_time)
				in->noise_time = tv.since;
			in->noise_updated = 1;
		}
		if (!*excerpt && tv.pick)
			*excerpt = ant_page_excerpt(info, tv.pick, u->o->excerpt_max);
		free(c->tokens);
		c->tokens = NULL;
		c->tokens_len = 0;
		ant_tokens_encode(&tk, &c->tokens, &c->tokens_len);
		ant_tokens_verdict_release(&tv);
	}
	ant_tokens_release(&tk);
	free(skip);
}

void ant_upd_keep_text(struct upd *u, ant_store_page *p, const unsigned char *noise, size_t noise_len)
{
	struct upd_check *c = &u->chk[p - u->pages];
	ant_textstate ps;
	unsigned char *blob;
	size_t len;

	if (ant_textstate_split(p->noise, p->noise_len, &ps) < 0)
		memset(&ps, 0, sizeof ps);
	ps.noise = noise;
	ps.noise_len = noise_len;
	if (c->tokens) {
		ps.tokens = c->tokens;
		ps.tokens_len = c->tokens_len;
	}
	ps.furniture = c->furn;
	if (ant_textstate_join(&ps, &blob, &len) == 0) {
		free(p->noise);
		p->noise = blob;
		p->noise_len = len;
	}
	free(c->tokens);
	c->tokens = NULL;
	c->tokens_len = 0;
}
