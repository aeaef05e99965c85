/*
 * update_diff.c: what a page's check keeps for its diff page
 * (ant_difftext.h): the compared text of the answer, taken when the text
 * rule decides (update_check.c), and at the save step the page's kept
 * text and, for an update whose text changed (whichever rule found it),
 * the diff against the text of the previous announced update.
 */
#include "update_int.h"

#include <stdlib.h>
#include <string.h>

#include "ant_difftext.h"
#include "ant_settings.h"

/* The bound on each kept blob: init --diff-text-max, read once a run. */
static size_t diff_max(struct upd *u)
{
	if (!u->diff_max_read) {
		int64_t v = ant_setting_int(u->s, ANT_SET_DIFF_TEXT_MAX);

		u->diff_max = v > 0 ? (size_t)v : 0;
		u->diff_max_read = 1;
	}
	return u->diff_max;
}

void ant_upd_diff_text(struct upd *u, const ant_store_page *p, const ant_page_info *info,
		       const ant_detect_noise *ns, struct upd_found *f)
{
	lb_buf b = LB_BUF_INIT;

	free(f->text);
	f->text = NULL;
	f->text_len = 0;
	if (!diff_max(u))
		return;
	/* most checks: unchanged, its text kept (ant_upd_diff_save would
	 * write nothing): not built, the cost of a check stays the floor's.
	 * Built when a change is held: a Last-Modified may announce it now,
	 * and a number-only update has its diff too */
	if (f->in.noise_decided && !f->in.noise_updated && f->in.no_news && p->id > 0 &&
	    ant_store_text_has(u->s, p->id, NULL) > 0)
		return;
	if (ant_difftext_build(info, ns, &b) == 0)
		f->text = lb_buf_detach(&b, &f->text_len);
	lb_buf_release(&b);
}

/* The diff of the kept text against the new one, packed into t->diff;
 * nothing when the old text is not kept or nothing shown changed. */
static int make_diff(struct upd *u, const struct upd_found *f, ant_store_text *t, int64_t when)
{
	lb_buf old = LB_BUF_INIT, ser = LB_BUF_INIT;
	ant_diff d;
	int rc;

	free(t->diff);
	t->diff = NULL;
	t->diff_len = 0;
	t->diff_time = 0;
	if (!t->text || (rc = ant_difftext_unpack(t->text, t->text_len, &old)) < 0) {
		lb_buf_release(&old);
		return 0;   /* no earlier text (over the limit, or unreadable): no diff */
	}
	rc = ant_diff_lines(old.data, old.len, f->text, f->text_len, ANT_DIFF_CONTEXT, ANT_DIFF_MAX_CELLS,
			    ant_difftext_key, &d);
	if (rc == 0 && (d.too_many || d.n) && (rc = ant_difftext_serialise(&d, &ser)) == 0) {
		rc = ant_difftext_pack(ser.data, ser.len, diff_max(u), &t->diff, &t->diff_len);
		if (rc == LB_ETOOBIG)   /* kept, but as "too many changes to show" */
			rc = ant_difftext_pack("!\n", 2, diff_max(u), &t->diff, &t->diff_len);
		if (rc == 0)
			t->diff_time = when;
	}
	ant_diff_release(&d);
	lb_buf_release(&ser);
	lb_buf_release(&old);
	return rc == LB_ETOOBIG ? 0 : rc;
}

void ant_upd_diff_save(struct upd *u, ant_store_page *p, const struct upd_found *f,
		       const ant_detect_outcome *out)
{
	ant_store_text t;
	int rc;

	if (!f->text || f->in.failed || !diff_max(u) || p->id <= 0 || ant_upd_tx_need(u) < 0)
		return;
	/* An unchanged check writes nothing; the first one keeps its text,
	 * and so does a quiet baseline (the text rule's reference reset by
	 * 'antenna set'): the next diff is against what is compared now. */
	if (!out->updated && f->in.noise_decided && ant_store_text_has(u->s, p->id, NULL) != 0)
		return;
	if ((rc = ant_store_text_get(u->s, p->id, &t, NULL)) < 0)
		return;
	t.page_id = p->id;
	/* every update whose text changed: found in the text (T), or first by
	 * a newer Last-Modified (H) or the feed (F) */
	if (out->updated && make_diff(u, f, &t, p->st.last_modified) < 0)
		goto out;
	free(t.text);
	t.text = NULL;
	t.text_len = 0;
	/* over the limit the text is not kept: the next change has no diff */
	if ((rc = ant_difftext_pack(f->text, f->text_len, diff_max(u), &t.text, &t.text_len)) < 0 &&
	    rc != LB_ETOOBIG)
		goto out;
	ant_store_text_put(u->s, &t, NULL);   /* a failure costs a diff page, never the check */
out:
	ant_store_text_release(&t);
}
