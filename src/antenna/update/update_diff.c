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

/* What the run's diff work reuses from page to page: zlib's streams and
 * the buffers, so that a changed page costs its bytes, not allocations
 * (made at the first page that needs them, freed with the run). */
struct upd_diffs {
	ant_difftext_codec *codec;
	lb_buf text;             /* the compared text being built */
	lb_buf old;              /* the kept text, unpacked */
	lb_buf ser;              /* the diff, serialised */
	lb_buf ptext, pdiff;     /* the new text and the diff, packed */
	ant_store_text kept;     /* the page's row ant_upd_diff_kept() read, */
	int64_t kept_page;       /* its page (0: none), for the same check's save */
};

static struct upd_diffs *scratch(struct upd *u)
{
	struct upd_diffs *x = u->diffs;

	if (x || !(x = calloc(1, sizeof *x)))
		return x;
	if (!(x->codec = ant_difftext_codec_new())) {
		free(x);
		return NULL;
	}
	lb_buf_init(&x->text);
	lb_buf_init(&x->old);
	lb_buf_init(&x->ser);
	lb_buf_init(&x->ptext);
	lb_buf_init(&x->pdiff);
	return u->diffs = x;
}

void ant_upd_diff_free(struct upd *u)
{
	struct upd_diffs *x = u->diffs;

	if (!x)
		return;
	ant_difftext_codec_free(x->codec);
	lb_buf_release(&x->text);
	lb_buf_release(&x->old);
	lb_buf_release(&x->ser);
	lb_buf_release(&x->ptext);
	lb_buf_release(&x->pdiff);
	ant_store_text_release(&x->kept);
	free(x);
	u->diffs = NULL;
}

void ant_upd_diff_text(struct upd *u, const ant_store_page *p, const ant_page_info *info,
		       const ant_detect_noise *ns, struct upd_found *f)
{
	struct upd_diffs *x;

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
	/* built in the run's buffer, then one exact copy (the check may be
	 * parked with it until its re-fetch) */
	if (!(x = scratch(u)) || ant_difftext_build(info, ns, &x->text) != 0 ||
	    !(f->text = malloc(x->text.len + 1)))
		return;
	memcpy(f->text, x->text.data, x->text.len + 1);
	f->text_len = x->text.len;
}

const char *ant_upd_diff_kept(struct upd *u, const ant_store_page *p, size_t *len)
{
	struct upd_diffs *x;
	ant_store_text *t;

	*len = 0;
	if (!diff_max(u) || p->id <= 0 || !(x = scratch(u)))
		return NULL;
	/* the row stays for ant_upd_diff_save() of this check: read once */
	t = &x->kept;
	ant_store_text_release(t);
	x->kept_page = 0;
	if (ant_store_text_get(u->s, p->id, t, NULL) <= 0) {
		ant_store_text_release(t);
		return NULL;
	}
	x->kept_page = p->id;
	if (!t->text || ant_difftext_codec_unpack(x->codec, t->text, t->text_len, &x->old) < 0)
		return NULL;
	*len = x->old.len;
	return x->old.data;
}

/* The page's row as ant_upd_diff_kept() read it in this check (moved to
 * *t: only update_diff.c writes the rows, once a check), else read now:
 * > 0 a row, 0 none, < 0 an error. */
static int text_row(struct upd *u, struct upd_diffs *x, int64_t page, ant_store_text *t)
{
	if (x->kept_page == page) {
		*t = x->kept;
		memset(&x->kept, 0, sizeof x->kept);
		x->kept_page = 0;
		return 1;
	}
	return ant_store_text_get(u->s, page, t, NULL);
}

/* The diff of the kept text t->text against the new one, made now and
 * packed into x->pdiff: 1; 0 when the old text is not kept or nothing
 * shown changed; < 0 out of memory. */
static int make_diff(struct upd *u, struct upd_diffs *x, const struct upd_found *f,
		     const ant_store_text *t)
{
	if (!t->text || ant_difftext_codec_unpack(x->codec, t->text, t->text_len, &x->old) < 0)
		return 0;   /* no earlier text (over the limit, or unreadable): no diff */
	return ant_difftext_make(x->codec, x->old.data, x->old.len, f->text, f->text_len, diff_max(u),
				 &x->ser, &x->pdiff);
}

/* A pending diff (ant_difftext.h) made now, against the text it was
 * pending on, before that text is replaced without an update (a quiet
 * baseline): 1 made into x->pdiff, 0 none, < 0. */
static int settle_pending(struct upd *u, struct upd_diffs *x, const ant_store_text *t)
{
	if (!t->text || ant_difftext_codec_unpack(x->codec, t->diff + 1, t->diff_len - 1, &x->old) < 0 ||
	    ant_difftext_codec_unpack(x->codec, t->text, t->text_len, &x->ser) < 0)
		return 0;
	/* ser holds the later text: copied out, ser is the diff's */
	lb_buf_reset(&x->text);
	if (lb_buf_add(&x->text, x->ser.data, x->ser.len) < 0)
		return LB_ENOMEM;
	return ant_difftext_make(x->codec, x->old.data, x->old.len, x->text.data, x->text.len, diff_max(u),
				 &x->ser, &x->pdiff);
}

/* The update's diff kept pending on the earlier text as packed (no
 * inflate, no diff, no deflate: made when shown), into x->pdiff: 1; 0
 * when the text did not change at all (the same bytes packed). */
static int pend_diff(struct upd_diffs *x, const ant_store_text *t)
{
	if (t->text_len == x->ptext.len && memcmp(t->text, x->ptext.data, t->text_len) == 0)
		return 0;
	lb_buf_reset(&x->pdiff);
	if (lb_buf_addc(&x->pdiff, ANT_DIFFTEXT_PENDING) < 0 || lb_buf_add(&x->pdiff, t->text, t->text_len) < 0)
		return LB_ENOMEM;
	return 1;
}

void ant_upd_diff_save(struct upd *u, ant_store_page *p, const struct upd_found *f,
		       const ant_detect_outcome *out)
{
	struct upd_diffs *x;
	ant_store_text t;
	int rc, trc;

	if (!f->text || f->in.failed || !diff_max(u) || p->id <= 0 || ant_upd_tx_need(u) < 0)
		return;
	/* An unchanged check writes nothing; the first one keeps its text,
	 * and so does a quiet baseline (the text rule's reference reset by
	 * 'antenna set'): the next diff is against what is compared now. */
	if (!out->updated && f->in.noise_decided && ant_store_text_has(u->s, p->id, NULL) != 0)
		return;
	if (!(x = scratch(u)) || text_row(u, x, p->id, &t) < 0)
		return;
	t.page_id = p->id;
	/* over the limit the new text is not kept: the next change has no diff */
	if ((trc = ant_difftext_codec_pack(x->codec, f->text, f->text_len, diff_max(u), &x->ptext)) < 0 &&
	    trc != LB_ETOOBIG)
		goto out;
	/* every update whose text changed: found in the text (T), or first by
	 * a newer Last-Modified (H) or the feed (F).  Its diff is pending on
	 * the earlier text, made when shown; made now only when the new text
	 * is not kept (nothing to make it against later).  The blobs written
	 * are the run's buffers (borrowed: taken back before the release). */
	if (out->updated) {
		rc = !t.text ? 0 : trc == 0 ? pend_diff(x, &t) : make_diff(u, x, f, &t);
		if (rc < 0)
			goto out;
		free(t.diff);
		t.diff = rc ? (unsigned char *)x->pdiff.data : NULL;
		t.diff_len = rc ? x->pdiff.len : 0;
		t.diff_time = rc ? p->st.last_modified : 0;
	} else if (ant_difftext_pending(t.diff, t.diff_len)) {
		if ((rc = settle_pending(u, x, &t)) < 0)
			goto out;
		free(t.diff);
		t.diff = rc ? (unsigned char *)x->pdiff.data : NULL;
		t.diff_len = rc ? x->pdiff.len : 0;
		t.diff_time = rc ? t.diff_time : 0;
	}
	free(t.text);
	t.text = trc == 0 ? (unsigned char *)x->ptext.data : NULL;
	t.text_len = trc == 0 ? x->ptext.len : 0;
	ant_store_text_put(u->s, &t, NULL);   /* a failure costs a diff page, never the check */
out:
	if (t.diff == (unsigned char *)x->pdiff.data)
		t.diff = NULL;
	if (t.text == (unsigned char *)x->ptext.data)
		t.text = NULL;
	ant_store_text_release(&t);
}
