/*
 * update_check.c: one page's check in an update run (ant_update.h), as a
 * sequence of named steps:
 *
 *   answer   the fetch result as the update rules' input (ant_detect.h),
 *            a usable answer's validators kept
 *   analyse  an HTML body's title, charset, feed link, text checksum and
 *            segments (ant_page.h)
 *   text     the noise-proof text rule: decided on this answer, or the
 *            page is fetched again after a pause and decided with both
 *   feed     the page's feed joined: the one fetched beside the page, or
 *            one named for the first time, read in a second round first
 *            (update.c, defer_feeds): one event per update, dated by it
 *   decide   the update rules (ant_detect_apply), and what the page shows
 *   save     the page, and its update event, in the run's transaction
 *
 * A step that needs another answer parks what the check found so far
 * (struct upd_found) with the page (struct upd_check, update_int.h), its
 * wait naming that answer; the answer's callback goes on from there:
 * ant_upd_refetch_done (text), ant_upd_feed_done and ant_upd_new_feed_read
 * (feed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ant_feed.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "ant_pagestate.h"
#include "ant_target.h"
#include "ant_taught.h"
#include "ant_tokens.h"
#include "ant_when.h"
#include "lirs_merge.h"
#include "update_int.h"

/* A page's first answer, kept until its second one comes. */
struct upd_noise {
	ant_page_info info;      /* the first answer's analysis: the excerpt */
	ant_detect_seg *segs;
	ant_detect_noise ns;     /* the page's state, decoded */
};

static struct upd_check *check_of(struct upd *u, const ant_store_page *p)
{
	return &u->chk[p - u->pages];
}

static void found_release(struct upd_found *f)
{
	free(f->excerpt);
	free(f->had_feed);
	free(f->text);
	free(f->added);
	free(f->news);
	f->excerpt = f->had_feed = f->text = f->added = f->news = NULL;
}

/* The check waits for the answer w names, with what it found (moved). */
static void park(struct upd_check *c, enum upd_wait w, struct upd_found *f)
{
	c->wait = w;
	c->found = *f;
	memset(f, 0, sizeof *f);
}

/* The parked check taken back, to go on. */
static struct upd_found unpark(struct upd_check *c)
{
	struct upd_found f = c->found;

	c->wait = UPD_RUNNING;
	memset(&c->found, 0, sizeof c->found);
	return f;
}

/* ---- step answer ---------------------------------------------------- */

/* What the fetch result says, as the update rules' input into *f; a
 * usable answer's validators are kept (ETag, Last-Modified). */
static void step_answer(struct upd *u, ant_store_page *p, const ant_fetch_result *res,
			struct upd_found *f)
{
	char b[64];

	memset(f, 0, sizeof *f);
	f->in = (ant_detect_input){ .content_length = res->content_length,
				    .body_len = (int64_t)res->len,
				    .lm_time = res->last_modified_time, .date_time = res->date_time,
				    .status = res->status, .retry_after = res->retry_after,
				    .max_future = u->o->max_future };
	/* before the analysis, which may name another feed */
	f->had_feed = p->feed_url ? strdup(p->feed_url) : NULL;
	f->in.failed = ant_upd_http_failed(res);
	f->move = ant_pagestate_observe(p, res, u->now, u->o->move_after, u->o->gone_days);
	if (f->in.failed && p->gone_at) {   /* the visitor's word for it (publish_error.c) */
		ant_pagestate_gone_text(f->errtext, sizeof f->errtext, p, ant_upd_error_text(res, b, sizeof b));
		f->kind = ANT_FAIL_GONE;
	} else if (f->in.failed) {
		snprintf(f->errtext, sizeof f->errtext, "%s", ant_upd_error_text(res, b, sizeof b));
		f->kind = ant_fetch_fail_kind(res);
	} else {
		ant_upd_take_validators(&p->etag, &p->lm_header, res);
	}
}

/* ---- step analyse ------------------------------------------------------ */

/* Splits the page's ignore patterns (one per line) into an array. */
static char **split_ignore(const char *s, size_t *n)
{
	size_t cnt = 1, i = 0;
	char **v, *copy, *line, *save = NULL;

	*n = 0;
	if (!*s)
		return NULL;
	for (const char *q = s; *q; q++)
		cnt += *q == '\n';
	v = malloc(cnt * sizeof *v + strlen(s) + 1);
	if (!v)
		return NULL;
	copy = (char *)(v + cnt);
	strcpy(copy, s);
	/* strtok_r: a check may run on fetch's helper thread (done_aside) */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		v[i++] = line;
	*n = i;
	return v;
}

static int is_html(const char *content_type)
{
	return !content_type || strcasestr(content_type, "html") != NULL;
}

/* Is the answer's text analysed?  HTML, and JSON (by its type, or a
 * text/plain body that is a JSON object or array: ant_page.h). */
static int analysable(const ant_fetch_result *res)
{
	return is_html(res->content_type) || ant_page_is_json(res->body, res->len, res->content_type);
}


/* The page's advertised feed, resolved against where the page came from;
 * a feed given with 'add --feed' is never replaced. */
static void take_feed_link(ant_store_page *p, const ant_fetch_result *res, const char *href)
{
	char *url;

	if (p->feed_by_user)
		return;
	url = href ? ant_feed_resolve(res->effective_url ? res->effective_url : p->url, href) : NULL;
	if ((!url && !p->feed_url) || (url && p->feed_url && strcmp(url, p->feed_url) == 0)) {
		free(url);
		return;
	}
	/* A new feed (or none): what the old one said is no longer comparable. */
	free(p->feed_url);
	p->feed_url = url;
	ant_upd_set_str(&p->feed_etag, NULL);
	ant_upd_set_str(&p->feed_lm_header, NULL);
	ant_upd_set_str(&p->feed_error, NULL);
	p->st.feed_time = 0;
}


/* The page's analysis options (ant_page.h): its ignore and --only patterns
 * (one per line) and forced charset.  Free pat[0] and pat[1] after the
 * analysis. */
static void page_opts(const struct upd *u, const ant_store_page *p, ant_page_opts *po,
		      char **pat[2])
{
	memset(po, 0, sizeof *po);
	po->regex_seconds = u->o->regex_seconds;
	po->forced_charset = p->force_charset;
	pat[0] = split_ignore(p->ignore, &po->nignore);
	pat[1] = split_ignore(p->only, &po->nonly);
	po->ignore = (const char *const *)pat[0];
	po->only = (const char *const *)pat[1];
}

/* The site's furniture out of info (ant_upd_furniture), what it left out
 * kept with the check when anything. */
static void keep_furniture(struct upd_check *c, struct upd *u, const ant_store_page *p,
			   const ant_fetch_result *res, ant_page_info *info)
{
	static const ant_furniture none;
	ant_furniture f;

	ant_upd_furniture(u, p, res, info, &f, 1);
	free(c->furn);
	c->furn = NULL;
	if (memcmp(&f, &none, sizeof f) != 0 && (c->furn = malloc(sizeof *c->furn)))
		*c->furn = f;
}

/* The body's title, charset, advertised feed, text checksum and segments
 * (ant_page.h) into *info (released by the caller), its furniture marked.
 * 0 when not HTML or not analysable: then the size rule decides.  The
 * operator's patterns going over their time on this page
 * (ANT_PAGE_MAX_REGEX_SECONDS, ANT_PAGE_XPATH_OPS), or an --only css:,
 * xpath: or range: pattern finding nothing (the page's layout changed),
 * fail the check with the pattern named: a rule that cannot be applied
 * must not let the size rule announce the page in its place. */
static int step_analyse(struct upd *u, ant_store_page *p, const ant_fetch_result *res,
			struct upd_found *f, ant_page_info *info)
{
	ant_detect_input *in = &f->in;
	lb_error err = LB_ERROR_INIT;
	ant_page_opts po;
	char **pat[2];
	int rc, fmt;

	if (!p->st.last_ok && !p->feed_by_user && (fmt = ant_target_body_format(res->body, res->len, p->url))) {
		char cmd[sizeof f->errtext];

		/* never a success: a source watched as a page, said with its
		 * command (a page watched through its feed alone has --feed) */
		in->failed = 1;
		snprintf(f->errtext, sizeof f->errtext, "this is %s: %s", ant_target_format_name(fmt),
			 ant_target_format_add(fmt, p->url, cmd, sizeof cmd));
		f->kind = ANT_FAIL_CHECK;
		return 0;
	}
	if (!analysable(res))
		return 0;
	page_opts(u, p, &po, pat);
	rc = ant_page_analyze(res->body, res->len, res->content_type, &po, info, &err);
	free(pat[0]);
	free(pat[1]);
	/* a JSON answer that is not JSON, or whose --only path is gone, is
	 * a failed check too: its data cannot be compared */
	if (rc < 0 && (((po.nignore || po.nonly) && (rc == LB_ETOOBIG || rc == LB_EINVAL)) ||
		       rc == LB_EPARSE || rc == LB_ENOTFOUND)) {
		in->failed = 1;
		snprintf(f->errtext, sizeof f->errtext, "%s", lb_error_msg(&err));
		f->kind = ANT_FAIL_CHECK;
	}
	if (rc < 0)
		return 0;
	/* a JSON answer's data has no template around it */
	if (!info->json)
		keep_furniture(&u->chk[p - u->pages], u, p, res, info);
	ant_taught_strip(info, p->taught);   /* 'set --not-news': out of the comparison */
	in->has_hash = 1;
	in->text_hash = info->text_hash;
	if (info->title && *info->title && !p->title_set_by_user)
		ant_upd_set_str(&p->title, info->title);
	ant_upd_set_str(&p->charset, info->charset);
	take_feed_link(p, res, info->feed_href);
	return 1;
}

/* ---- step text: the noise-proof text rule (ant_detect.h) ---------------------- */

static ant_detect_seg *segs_of(const ant_page_info *info)
{
	ant_detect_seg *v = malloc((info->nseg ? info->nseg : 1) * sizeof *v);

	for (size_t i = 0; v && i < info->nseg; i++)
		v[i] = (ant_detect_seg){ info->seg[i].block, info->seg[i].norm, info->seg[i].len,
					 info->text ? info->text + info->seg[i].off : NULL };
	return v;
}

/* Does the page learn volatile parts?  Not with '--no-auto-ignore'. */
static int learns(const ant_store_page *p)
{
	return !p->no_auto_ignore;
}

/* Labels the blocks learned in this check (for 'antenna show'): the path
 * of the block and the start of its text, from the answer compared. */
static void label_learned(ant_detect_noise *ns, const ant_detect_verdict *v, const ant_page_info *info,
			  const ant_detect_seg *segs)
{
	unsigned char *pick;

	/* blocks with volatile words: their path (the rule wrote the sample) */
	for (size_t k = 0; k < v->nwlearned; k++)
		for (size_t i = 0; i < info->nseg; i++)
			if (segs[i].block == v->wlearned[k]) {
				ant_detect_noise_label(ns, v->wlearned[k], ant_page_seg_path(info, i), NULL);
				break;
			}
	if (!v->nlearned || !(pick = malloc(info->nseg ? info->nseg : 1)))
		return;
	for (size_t k = 0; k < v->nlearned; k++) {
		size_t first = info->nseg;
		char *text;

		for (size_t i = 0; i < info->nseg; i++) {
			pick[i] = segs[i].block == v->learned[k];
			if (pick[i] && first == info->nseg)
				first = i;
		}
		text = ant_page_excerpt(info, pick, 40);
		ant_detect_noise_label(ns, v->learned[k], first < info->nseg ? ant_page_seg_path(info, first) : NULL,
				       text);
		free(text);
	}
	free(pick);
}

/* What the update added, every run of it, before the excerpt keeps its
 * first: the text the --when patterns read and the runs 'set --not-news'
 * would teach (f->added, f->news). */
static void keep_added(const ant_store_page *p, const ant_page_info *info, const unsigned char *pick,
		       struct upd_found *f)
{
	lb_buf b = LB_BUF_INIT;

	free(f->added);
	free(f->news);
	f->added = *p->when ? ant_page_excerpt(info, pick, ANT_WHEN_TEXT_MAX) : NULL;
	f->news = ant_taught_news(info, pick, &b) == 0 ? lb_buf_detach(&b, NULL) : NULL;
	lb_buf_release(&b);
}

/* Is some flagged segment prose (ant_page_seg_prose())? */
static int prose_in(const ant_page_info *info, const unsigned char *flags)
{
	for (size_t i = 0; i < info->nseg; i++)
		if (flags[i] && ant_page_seg_prose(info, i))
			return 1;
	return 0;
}

/*
 * What a change says, not only who and when.  The excerpt is the first
 * run of its words: a new commit's or post's byline and hash stand before
 * its message.  The small swaps announced with it (aside: a message in a
 * block of its own, apart from its byline) join it after the byline the
 * news starts with, or give the words when the news has none; never
 * before the news (a widget above the content) nor the <title>.
 */
static void pick_aside(const ant_page_info *info, unsigned char *pick, unsigned char *aside)
{
	size_t first = 0;

	if (!aside) {
		ant_page_pick_words(info, pick);   /* a byline or an age before the words */
		return;
	}
	for (size_t i = 0; i < info->nseg; i++)
		aside[i] &= strncmp(ant_page_seg_path(info, i), "head", 4) != 0;
	while (first < info->nseg && !pick[first])
		first++;
	if (!ant_page_picks_words(info, pick)) {
		if (ant_page_picks_words(info, aside))
			memcpy(pick, aside, info->nseg);
	} else if (first < info->nseg && ant_page_seg_meta(info, first)) {
		for (size_t i = first + 1; i < info->nseg; i++)
			pick[i] |= aside[i];
	} else if (first < info->nseg && !ant_page_seg_prose(info, first) && prose_in(info, aside)) {
		/* the news starts with paths, hashes or code (a commit's
		 * diffstat and diff): the prose swapped with it (the commit's
		 * message above them) says it */
		for (size_t i = 0; i < info->nseg; i++)
			pick[i] |= aside[i];
	}
	ant_page_pick_words(info, pick);
}

/* Is every segment flagged in pick (and aside) a row whose labels moved
 * (ant_tokens_labels_moved(): a log's "HEAD master" gone to a newer row)
 * against the text kept for the page's diff?  Then the check saw its
 * rows' decorations move, no row's own words change. */
static int labels_moved_only(struct upd *u, const ant_store_page *p, const ant_page_info *info,
			     const unsigned char *pick, const unsigned char *aside)
{
	const char *old;
	size_t oldlen, n = 0, pagelen;

	if (!info->text || info->json || !info->nseg)
		return 0;
	pagelen = info->seg[info->nseg - 1].off + info->seg[info->nseg - 1].len;
	for (size_t i = 0; i < info->nseg; i++)
		n += pick[i] || (aside && aside[i]);
	if (!n || n > 4 || !(old = ant_upd_diff_kept(u, p, &oldlen)))
		return 0;
	for (size_t i = 0; i < info->nseg; i++)
		if ((pick[i] || (aside && aside[i])) &&
		    !ant_tokens_labels_moved(info->text + info->seg[i].off, info->seg[i].len, old, oldlen,
					     info->text, pagelen))
			return 0;
	return 1;
}

/* Is picked segment i a button's or a link's label (two words at most,
 * 24 bytes) the page shows again, unpicked, word for word?  An entry's toolbar ("Actions", "Copy
 * link", "Reply") that came with a new entry: the same labels stand
 * beside every entry (their places may differ by a class: has-notes,
 * has-details).  A title of three words or more repeated by a new
 * entry ("Re: Meeting on 12/3") is the entry's news. */
static int repeated_label(const ant_page_info *info, const unsigned char *pick, size_t i)
{
	const ant_page_seg *g = &info->seg[i];
	const char *t = info->text + g->off;
	size_t words = 1;

	if (!g->len || g->len > 24)
		return 0;
	for (size_t k = 1; k < g->len; k++)
		words += t[k] != ' ' && t[k - 1] == ' ';
	if (words > 2)
		return 0;
	for (size_t j = 0; j < info->nseg; j++)
		if (j != i && !pick[j] && info->seg[j].raw == g->raw && info->seg[j].len == g->len)
			return 1;
	return 0;
}

/* The excerpt starts after such repeated labels when a picked segment
 * after them says something else (the entry's words). */
static void unpick_labels(const ant_page_info *info, unsigned char *pick)
{
	size_t other = 0;

	while (other < info->nseg && !(pick[other] && !repeated_label(info, pick, other)))
		other++;
	if (other == info->nseg)
		return;
	for (size_t i = 0; i < other; i++)
		pick[i] = 0;
}

/* Decides the text rule for the answer in info (second: the re-fetched
 * segments, or NULL), keeps the page's new state and fills f->in.noise_*,
 * f->excerpt (what the update added, malloc'd; NULL when nothing) and
 * f->added, f->news. */
static void noise_decide(struct upd *u, ant_store_page *p, ant_detect_noise *ns,
			 const ant_page_info *info, const ant_detect_seg *segs,
			 const ant_detect_seg *second, size_t nsecond, struct upd_found *f)
{
	ant_detect_input *in = &f->in;
	char **excerpt = &f->excerpt;
	ant_detect_verdict v;
	unsigned char *blob;
	size_t len;
	int prose = 1;
	char *code = NULL;

	*excerpt = NULL;
	if (ant_detect_noise_decide(ns, segs, info->nseg, second, nsecond,
				    learns(p) | (ant_upd_watched(p) ? ANT_DETECT_WATCHED : 0), u->now, &v) < 0)
		return;   /* out of memory: the text checksum decides */
	label_learned(ns, &v, info, segs);
	u->st.learned += (unsigned)(v.nlearned + v.nwlearned);
	/* only an article's links to other pages moved (a new reply's
	 * title, a next page): seen, not news (the reference moved on) */
	if (v.updated && v.pick && !ant_upd_watched(p) && ant_page_picks_links_only(info, v.pick, v.aside)) {
		v.updated = 0;
		free(v.pick);
		v.pick = NULL;
		free(v.aside);
		v.aside = NULL;
		u->st.links_quiet++;
	}
	/* only labels moved from a row to another, or off the page */
	if (v.updated && v.pick && !ant_upd_watched(p) && labels_moved_only(u, p, info, v.pick, v.aside)) {
		v.updated = 0;
		free(v.pick);
		v.pick = NULL;
		free(v.aside);
		v.aside = NULL;
	}
	in->noise_decided = !v.baseline;
	in->noise_updated = v.updated;
	in->noise_time = v.since;
	if (v.pick) {
		ant_tokens_place_pick(info->seg, info->nseg, v.pick);
		keep_added(p, info, v.pick, f);
		pick_aside(info, v.pick, v.aside);
		unpick_labels(info, v.pick);
		prose = ant_page_pick_prose(info, v.pick);
		ant_detect_pick_first_run(ns, segs, info->nseg, v.pick);
		*excerpt = ant_page_excerpt(info, v.pick, u->o->excerpt_max);
	}
	/* what the check added is all hashes and code (a file view's "blob:
	 * <sha1>" line): a sentence whose numbers changed beside it says
	 * the edit better ("Widget 1.4.3"); else it is the excerpt */
	if (!prose) {
		code = *excerpt;
		*excerpt = NULL;
	}
	ant_upd_tokens(u, p, ns, info, &v, in, excerpt);
	if (!*excerpt) {
		*excerpt = code;
		code = NULL;
	}
	free(code);
	ant_detect_verdict_release(&v);
	if (ant_detect_noise_encode(ns, &blob, &len) == 0) {
		ant_upd_keep_text(u, p, blob, len);
		free(blob);
	}
}


static void noise_free(struct upd_noise *nc)
{
	if (!nc)
		return;
	ant_page_info_release(&nc->info);
	free(nc->segs);
	ant_detect_noise_release(&nc->ns);
	free(nc);
}

/* The check parked for the page's second fetch, its first answer kept
 * (info, segs and ns moved): 1, or 0 when it is to be decided now
 * (re-fetching is off, max_held answers are kept already, or no memory). */
static int park_refetch(struct upd *u, ant_store_page *p, ant_page_info *info, ant_detect_seg *segs,
			ant_detect_noise *ns, struct upd_found *f)
{
	struct upd_check *c = check_of(u, p);
	struct upd_noise *nc;

	/* every member is set below: not cleared first (ns is large) */
	if (u->o->refetch_pause_ms < 0 || u->held >= u->max_held || !(nc = malloc(sizeof *nc)))
		return 0;
	u->held++;
	nc->info = *info;
	memset(info, 0, sizeof *info);
	nc->segs = segs;
	ant_detect_noise_copy(&nc->ns, ns);   /* moved: ns is not released */
	c->nc = nc;
	c->asked = ant_upd_mono_ms();
	park(c, UPD_WAIT_REFETCH, f);
	return 1;
}

/*
 * Is the second fetch of a page whose news is all in small parts not
 * needed?  A page that held still at its last two checks (found as the
 * check before did, clocks and furniture aside; a 304 counts: the
 * stillness rule's count, update_text.c) has no word made per request the
 * second answer could show: a token, a random id, would have moved (two
 * checks, not one: a word drawn per request from a few repeats by chance
 * at one check in a few).  Its change is decided on this answer as if the
 * second had been the same, and the check says so (c->unasked, for
 * 'antenna show').  Not when re-fetching is off: the page is decided on
 * its one answer as before.
 */
static int unasked(struct upd *u, const ant_store_page *p)
{
	if (u->o->refetch_pause_ms < 0 || !ant_upd_was_still(p))
		return 0;
	check_of(u, p)->unasked = 1;
	u->st.unasked++;
	return 1;
}

/*
 * The text rule for a first answer: decided now (f->in.noise_*,
 * f->excerpt), or (1) the check is parked for the second fetch
 * (park_refetch; the caller stops there).
 */
static int noise_first(struct upd *u, ant_store_page *p, ant_page_info *info, struct upd_found *f)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg *segs = segs_of(info);
	int forget = 0;

	if (!segs)
		return 0;
	ant_upd_noise_of(p, &ns);   /* none yet, or unreadable: a baseline */
	if (!learns(p) && (ns.nvol || ns.nsus || ns.nwords || ant_upd_had_furniture(p))) {
		/* Automatic ignoring was turned off: what it learned goes (the
		 * furniture it left out comes back), and this check is the new
		 * reference, no update of its own. */
		ant_detect_noise_release(&ns);
		forget = 1;
	}
	ant_detect_noise_scan(&ns, segs, info->nseg, learns(p), u->now, &v);
	if (v.refetch && unasked(u, p)) {
		/* decided as if the second answer were this one (a 304 to
		 * our ETag: second_answer()), no request made */
		noise_decide(u, p, &ns, info, segs, segs, info->nseg, f);
		check_of(u, p)->unasked = 0;
	} else if (v.refetch && park_refetch(u, p, info, segs, &ns, f)) {
		return 1;
	} else {
		noise_decide(u, p, &ns, info, segs, NULL, 0, f);
	}
	ant_upd_diff_text(u, p, info, &ns, f);   /* diff page hook (update_diff.c) */
	if (forget) {
		f->in.noise_decided = 1;
		f->in.noise_updated = 0;
	}
	ant_detect_noise_release(&ns);
	free(segs);
	return 0;
}

/* The analysed answer's text judged: the part 'add --only' watches is
 * not on the page (renamed, moved): a failed check with the reason, so
 * that the operator sees it in list, show and index.html, instead of a
 * page compared as empty for ever.  Else the noise-proof rule decides
 * now, or parks the check for the second fetch (1). */
static int step_text(struct upd *u, ant_store_page *p, ant_page_info *info, struct upd_found *f)
{
	if (!info->only_matched) {
		f->in.failed = 1;
		snprintf(f->errtext, sizeof f->errtext, "the --only part is not on the page");
		f->kind = ANT_FAIL_CHECK;
		return 0;
	}
	return noise_first(u, p, info, f);
}

/* The segments of the page's second answer into *info (released by the
 * caller), or NULL when it has none usable.  A 304 to the first answer's
 * ETag is the first answer again (first, nfirst): its segments, copied. */
static ant_detect_seg *second_answer(struct upd *u, ant_store_page *p, const ant_fetch_result *res,
				     const ant_detect_seg *first, size_t nfirst, ant_page_info *info,
				     size_t *nsecond)
{
	ant_detect_seg *second = NULL;
	ant_furniture f;
	ant_page_opts po;
	char **pat[2];

	memset(info, 0, sizeof *info);
	*nsecond = 0;
	if (res->status == 304 && p->etag && !ant_upd_http_failed(res) &&
	    (second = malloc((nfirst ? nfirst : 1) * sizeof *second))) {
		if (nfirst)
			memcpy(second, first, nfirst * sizeof *second);
		*nsecond = nfirst;
		return second;
	}
	if (ant_upd_http_failed(res) || res->status == 304 || !analysable(res))
		return NULL;
	page_opts(u, p, &po, pat);
	if (ant_page_analyze(res->body, res->len, res->content_type, &po, info, NULL) == 0 &&
	    (info->json || ant_upd_furniture(u, p, res, info, &f, 0) == 0) &&
	    ant_taught_strip(info, p->taught) >= 0 &&
	    (second = segs_of(info)))
		*nsecond = info->nseg;
	free(pat[0]);
	free(pat[1]);
	return second;
}

/* ---- steps decide and save ------------------------------------------------ */

/* The excerpt shown for the last update: at most the excerpt limit of
 * characters, cut at a character boundary (ant_page.h). */
static void set_excerpt(ant_store_page *p, const char *text, size_t max)
{
	char *x = ant_clip(text, max + 1);   /* max characters, then "…" */

	if (x) {
		free(p->excerpt);
		p->excerpt = x;
	}
}

/*
 * 'add --when' (ant_when.h): is the update the rules found news to the
 * operator?  The text read is what the text rule found added (every run),
 * and the feed entry's title when the feed dated it.  1: announced, the
 * pattern that matched kept for 'show'; 0: taken as seen (the caller
 * keeps the page's update time; the text rule's reference has moved on,
 * so the same change is not announced later either).  A pattern that
 * cannot be applied (over its time) lets the update through: a rule the
 * antenna cannot apply must not hide news.
 */
static int when_announces(struct upd *u, ant_store_page *p, const struct upd_found *f,
			  const ant_detect_outcome *out)
{
	const struct upd_check *c = check_of(u, p);
	lb_buf t = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;
	char hit[512];
	size_t k;
	int rc;

	if (!p->when || !*p->when) {
		ant_upd_set_str(&p->when_hit, NULL);
		return 1;
	}
	if (f->added)
		lb_buf_adds(&t, f->added);
	else if (f->excerpt)
		lb_buf_adds(&t, f->excerpt);
	if (out->rule && strcmp(out->rule, "feed") == 0 && c->feed.title)
		lb_buf_adds(&t, "\n"), lb_buf_adds(&t, c->feed.title);
	rc = ant_when_match(p->when, t.data, t.len, u->o->regex_seconds, &k, &err);
	lb_buf_release(&t);
	if (rc == 0)
		return 0;   /* the last announced update's match stays */
	if (rc < 0) {
		ant_upd_set_str(&p->when_hit, NULL);
		return 1;
	}
	ant_when_nth(p->when, k, hit, sizeof hit);
	ant_upd_set_str(&p->when_hit, hit);
	return 1;
}

/*
 * The excerpt of an announced update.  A feed (or a newer date) only
 * dates the change; the page's own new words, when this check found them
 * (what the text rule added or holds, update_text.c), say what changed:
 * a diary's feed names the day ("New day", "Comment [2] (Hanako)") while
 * the page shows the words written.  The feed's entry title is the
 * excerpt only when the page's text gives none (a page without text; a
 * feed dates no update of a body that shows no change, ant_detect.h).
 */
static const char *update_excerpt(const struct upd_check *c, const struct upd_found *f,
				  const ant_detect_outcome *out)
{
	if (!out->rule)
		return "";
	if (f->excerpt && *f->excerpt)
		return f->excerpt;
	if (strcmp(out->rule, "feed") == 0 && c->feed.title)
		return c->feed.title;
	return "";
}

/* An announced update remembered for 'set --not-news' (ant_store.h):
 * what it added, its time, and the update time and rule before it. */
static void keep_news(ant_store_page *p, const struct upd_found *f, int64_t before,
		      const char *before_by)
{
	p->news_at = p->st.last_modified;
	p->prev_modified = before;
	p->prev_by = before_by;
	ant_upd_set_str(&p->news, f->news ? f->news : "");
}

/* The update rules with all the check found, its feed's answer too
 * (ant_detect_apply), and what the page shows: its error, or where the
 * update came from and what changed: the newest entry's title, or the
 * first new text (also when a newer Last-Modified decided first). */
static void step_decide(struct upd *u, ant_store_page *p, struct upd_found *f,
			ant_detect_outcome *out)
{
	const struct upd_check *c = check_of(u, p);
	int64_t before = p->st.last_modified;
	const char *before_by = p->st.detected_by;

	f->in.feed_usable = c->feed.usable;
	f->in.feed_time = c->feed.newest;
	f->in.gone_interval = p->gone_at ? ANT_GONE_INTERVAL : 0;   /* daily, until its first success */
	ant_upd_feed_confirms(u, p, &f->in, c->feed.view);   /* update_text.c: a held change dated */
	/* so does a newer entry about the page: the feed dates only a change
	 * the body shows (ant_detect.h), and a held one is shown */
	if (c->feed.usable && c->feed.newest > p->st.feed_time)
		ant_upd_feed_confirms(u, p, &f->in, c->feed.newest);
	ant_detect_apply(&p->st, &f->in, u->now, out);
	if (f->in.failed) {
		ant_upd_set_str(&p->last_error, f->errtext);
		p->fail_kind = f->kind;
		if (f->kind == ANT_FAIL_DEFERRED)
			u->st.deferred++;
		else if (f->kind == ANT_FAIL_GONE && p->gone_at != u->now)
			u->st.still_gone++;
		else
			u->st.failed++;
		/* a page we cannot check: a believed source's date (update_trust.c) */
		if (f->kind != ANT_FAIL_DEFERRED && ant_upd_trust_date(u, p, 0)) {
			out->updated = 1;
			out->rule = p->st.detected_by;
		}
	} else {
		ant_upd_set_str(&p->last_error, NULL);
		p->fail_kind = ANT_FAIL_NONE;
		if (out->updated && !when_announces(u, p, f, out)) {
			/* not the words the operator waits for: seen, not news */
			p->st.last_modified = before;
			p->st.detected_by = before_by;
			out->updated = 0;
			out->unchanged = 1;
			u->st.when_quiet++;
		}
		if (out->updated) {
			ant_upd_set_str(&p->source_url, p->url);
			set_excerpt(p, update_excerpt(c, f, out), u->o->excerpt_max);
		} else if (out->first && out->rule && strcmp(out->rule, "feed") == 0) {
			/* a quiet first check dated by the feed's entry about
			 * the page: its title says what that date was */
			set_excerpt(p, c->feed.title ? c->feed.title : "", u->o->excerpt_max);
		} else if (out->first && !p->st.last_modified) {
			/* a quiet first check with no time of its own takes a
			 * believed source's earlier claim: it cannot refute it */
			ant_upd_trust_date(u, p, 1);
		}
		/* another rule announced the check that held a change: no
		 * longer held (or the next check would announce it again) */
		if (out->updated && !f->in.noise_updated)
			ant_upd_held_confirm(u, p, u->now, NULL);
		u->st.updated += out->updated;
		u->st.unchanged += !out->updated;
	}
	if (out->updated)
		keep_news(p, f, before, before_by);
	u->st.gone += p->gone_at && p->gone_at == u->now;
	u->st.checked++;
}

/* Told (on_page), then written: the page, and its event when updated. */
static void step_save(struct upd *u, ant_store_page *p, const ant_detect_outcome *out)
{
	if (u->o->on_page)
		u->o->on_page(u->o->ctx, p, out);
	ant_upd_trust_checked(u, p, out);   /* update_trust.c: the sources' claims judged */
	ant_upd_save_page(u, p, out->updated);
}

/* The last two steps of a check that waits for nothing more; f goes. */
static void decide_and_save(struct upd *u, ant_store_page *p, struct upd_found *f)
{
	ant_detect_outcome out;

	step_decide(u, p, f, &out);
	ant_upd_diff_save(u, p, f, &out);   /* diff page hook (update_diff.c) */
	step_save(u, p, &out);
	if (f->move)
		ant_upd_move_page(u, p);
	found_release(f);
}

/* ---- step feed ------------------------------------------------------------ */

/* The page's feed joined before deciding.  Another feed than before (or
 * none) from now on: what the old one said in this run does not count.
 * A feed named for the first time parks the check for a second round
 * (update.c, defer_feeds), a feed under way for its answer
 * (ant_upd_feed_done); else on to the decision.  f goes. */
static void step_feed(struct upd *u, ant_store_page *p, struct upd_found *f)
{
	struct upd_check *c = check_of(u, p);
	int other = !f->in.failed && (p->feed_url ? !f->had_feed ||
				      strcmp(f->had_feed, p->feed_url) != 0 : f->had_feed != NULL);

	free(f->had_feed);
	f->had_feed = NULL;
	if (other) {
		c->feed.usable = 0;
		c->feed.newest = 0;
		free(c->feed.title);
		c->feed.title = NULL;
		if (p->feed_url) {
			park(c, UPD_WAIT_NEW_FEED, f);
			return;
		}
	}
	if (c->feed_pending) {
		park(c, UPD_WAIT_FEED, f);
		return;
	}
	decide_and_save(u, p, f);
}

/* A feed read that says nothing of the page (a site-wide feed whose
 * entries are all about other pages): not its date.  The page was checked
 * in this run beside it, so the hint to check it now is taken already: its
 * own text decides.  feed_time 0 tells 'show' the feed only hinted. */
static void feed_hint_only(ant_store_page *p, struct upd_check *c)
{
	c->feed.usable = 0;
	c->feed.newest = 0;
	p->st.feed_time = 0;
}

/* A parsed feed's word on the page into c->feed: its date when it speaks
 * of the page (ant_feed_about_page), else a hint only.  A feed the
 * operator named the page's ('add --feed', samidare's LinkURI) is the
 * page's own: every entry is its news, as for the feed's home. */
static void feed_take(ant_store_page *p, struct upd_check *c, ant_feed_about *fa)
{
	char b[300];

	if (p->feed_by_user && fa->info.newest) {
		fa->newest = fa->info.newest;
		fa->title = fa->info.newest_title;
	}

	if (!fa->info.newest) {
		/* Dates missing or absurd: the page's own rules decide. */
		snprintf(b, sizeof b, "feed has no believable entry date (%zu entries, %zu bad dates)",
			 fa->info.entries, fa->info.bad_dates);
		ant_upd_set_str(&p->feed_error, b);
		return;
	}
	ant_upd_set_str(&p->feed_error, NULL);
	c->feed.view = fa->view_entry;
	if (!fa->newest) {
		feed_hint_only(p, c);
		return;
	}
	c->feed.usable = 1;
	c->feed.newest = fa->newest;
	ant_upd_set_str(&c->feed.title, fa->title);
}

/* The feed's answer into c->feed (and the page's feed_* fields). */
static void feed_read(struct upd *u, ant_store_page *p, const ant_fetch_result *res)
{
	struct upd_check *c = check_of(u, p);
	ant_feed_about fa;
	lb_error fe = LB_ERROR_INIT;
	char b[300];

	u->st.feeds_checked++;
	if (ant_upd_http_failed(res)) {
		ant_upd_set_str(&p->feed_error, ant_upd_error_text(res, b, sizeof b));
		u->st.feeds_failed++;
		return;
	}
	ant_upd_take_validators(&p->feed_etag, &p->feed_lm_header, res);
	if (res->status == 304) {
		/* a date kept from before is judged by today's clock; a feed
		 * that only hinted before kept no date (feed_hint_only) */
		c->feed.usable = p->st.feed_time > 0 &&
				 !lirs_merge_future(p->st.feed_time, u->now, u->o->max_future);
		c->feed.newest = p->st.feed_time;
		return;   /* the error of the last 200, if any, still stands */
	}
	if (ant_feed_about_page(res->body, res->len, p->feed_url, p->url,
				&(ant_feed_opts){ .now = u->now, .skew = u->o->max_future }, &fa, &fe) < 0) {
		char msg[340];
		snprintf(msg, sizeof msg, "bad feed: %.*s", (int)sizeof b - 1, lb_error_msg(&fe));
		ant_upd_set_str(&p->feed_error, msg);
		u->st.feeds_failed++;
		/* the validators must not make the next check skip a fixed feed */
		ant_upd_set_str(&p->feed_etag, NULL);
		ant_upd_set_str(&p->feed_lm_header, NULL);
	} else {
		feed_take(p, c, &fa);
	}
	ant_feed_about_release(&fa);
}

void ant_upd_feed_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct upd_check *c = check_of(u, p);
	struct upd_found f;

	c->feed_pending = 0;
	/* the page may have named another feed meanwhile: this one is stale */
	if (p->feed_url && strcmp(req->url, p->feed_url) == 0)
		feed_read(u, p, res);
	if (c->wait != UPD_WAIT_FEED)
		return;
	f = unpark(c);
	decide_and_save(u, p, &f);
}

void ant_upd_new_feed_read(struct upd *u, ant_store_page *p)
{
	struct upd_check *c = check_of(u, p);
	struct upd_found f;

	if (c->wait != UPD_WAIT_NEW_FEED)
		return;
	f = unpark(c);
	decide_and_save(u, p, &f);
}

/* ---- the check's answers --------------------------------------------------- */

/* The page's answer: answer, analyse, text, then feed, decide and save
 * unless a step parked the check. */
void ant_upd_page_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct upd_found f;
	ant_page_info info;
	int parked = 0;

	/* several checkers: the page another's now (this lease ran out): its
	 * check, and this answer, are that checker's */
	if (!ant_upd_lease_held(u, p))
		return;
	step_answer(u, p, res, &f);
	if (!f.in.failed && res->status == 304 && (f.in.noise_time = ant_upd_held_confirm(u, p, 0, &f.excerpt)) > 0) {
		/* the answer that showed the held changes, still: they stayed */
		f.in.noise_decided = 1;
		f.in.noise_updated = 1;
	}
	if (!f.in.failed && res->status != 304 && step_analyse(u, p, res, &f, &info)) {
		parked = step_text(u, p, &info, &f);
		ant_page_info_release(&info);
	}
	if (!parked)
		step_feed(u, p, &f);
}

/* The second answer of a page that seemed changed: the text rule decides
 * with both (ant_detect.h), or on the first alone when the second is not
 * usable; then the check goes on as any other. */
void ant_upd_refetch_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res)
{
	struct upd *u = ctx;
	ant_store_page *p = req->user;
	struct upd_check *c = check_of(u, p);
	struct upd_noise *nc = c->nc;
	struct upd_found f = unpark(c);
	ant_page_info info;
	size_t nsecond;
	ant_detect_seg *second;

	if (!ant_upd_lease_held(u, p)) {   /* another checker's now: dropped */
		u->held--;
		c->nc = NULL;
		noise_free(nc);
		found_release(&f);
		return;
	}
	second = second_answer(u, p, res, nc->segs, nc->info.nseg, &info, &nsecond);
	u->st.refetched++;
	u->held--;
	c->nc = NULL;
	noise_decide(u, p, &nc->ns, &nc->info, nc->segs, second, nsecond, &f);
	ant_upd_diff_text(u, p, &nc->info, &nc->ns, &f);   /* diff page hook (update_diff.c) */
	free(second);
	ant_page_info_release(&info);
	step_feed(u, p, &f);
	noise_free(nc);
}

void ant_upd_check_release(struct upd_check *c)
{
	free(c->feed.title);
	free(c->tokens);
	free(c->held);
	free(c->furn);
	found_release(&c->found);
	noise_free(c->nc);
	memset(c, 0, sizeof *c);
}
