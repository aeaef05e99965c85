/*
 * update_text.c: what a page's check adds to the noise-proof text rule
 * (update_check.c): the site's furniture left out of the answer
 * (ant_furniture.h, with the site's template of update_site.c), the token
 * rule after the noise rule's verdict (ant_tokens.h), the changes the two
 * rules hold confirmed otherwise than by the next answer's text (a 304, a
 * source, the page's feed: held.c), and the page's text state kept in its
 * one noise column (ant_textstate.h).
 */
#include "update_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ant_clock.h"
#include "ant_furniture.h"
#include "ant_noise.h"
#include "ant_textstate.h"
#include "ant_tokens.h"
#include "lirs_merge.h"

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

/* Checks in a row that must have found the page as the one before
 * (clocks aside; a 304 is such a check) for a change made once to be
 * believed in its own check: with the check it changed from, two answers
 * alike. */
#define STILL_CHECKS 1

/* Such checks in a row for a page's small change to be decided without a
 * second fetch (update_check.c unasked()): a word drawn per request from a
 * few (a tip, a variant) repeats by chance at one check in a few, at two
 * running far more rarely; an author's edit follows hours or days of a
 * still page. */
#define UNASKED_CHECKS 2

int ant_upd_was_still(const ant_store_page *p)
{
	ant_textstate ps;
	ant_tokens tk;
	int still;

	if (p->no_auto_ignore || ant_textstate_split(p->noise, p->noise_len, &ps) < 0 ||
	    ant_tokens_decode(&tk, ps.tokens, ps.tokens_len) < 0)
		return 0;
	still = tk.quiet >= UNASKED_CHECKS;
	ant_tokens_release(&tk);
	return still;
}

int ant_upd_noise_of(const ant_store_page *p, ant_detect_noise *ns)
{
	ant_textstate ps;

	if (ant_textstate_split(p->noise, p->noise_len, &ps) < 0 ||
	    ant_detect_noise_decode(ns, ps.noise, ps.noise_len) < 0) {
		ant_detect_noise_clear(ns);   /* none yet (a first check): empty */
		return LB_EPARSE;
	}
	return 0;
}

/* The token state kept; on a baseline none: what was kept before belongs
 * to another reading of the page (its patterns changed). */
static void tokens_of(const ant_store_page *p, int baseline, ant_tokens *tk)
{
	ant_textstate ps;

	if (baseline || ant_textstate_split(p->noise, p->noise_len, &ps) < 0 ||
	    ant_tokens_decode(tk, ps.tokens, ps.tokens_len) < 0)
		ant_tokens_init(tk);
}

/*
 * Changes held in this check (a small swap, numbers changed) that a
 * believed source dates within it -- after our last check, up to now: a
 * LIRS or Atom record of the page, a sitemap's lastmod -- are confirmed
 * now: in->noise_* say an update at that time.  So are those the page's
 * stillness vouches for (still: now, held_still()).  The page's own new
 * Last-Modified does not: a counter or a referer list moves with it (a
 * header dates a change the body shows, and a held change is not shown
 * yet).  On a page a cron job rebuilds (statistics, an export) it is the
 * rebuild's time and moves with whatever the build moved: taken as a
 * claim it announced 13 false updates in 52 checks of tests/realdyn's
 * statistics pages, all their counts.  What is held is the excerpt
 * should this check announce it.
 */
static void corroborate(struct upd *u, ant_store_page *p, ant_detect_noise *ns, ant_tokens *tk,
			const ant_page_info *info, ant_detect_input *in, int64_t still, char **excerpt)
{
	const ant_detect_seg *cur = NULL;
	ant_detect_seg *segs = NULL;
	unsigned char *pick;
	int64_t t = ant_upd_trust_corroborates(u, p, p->st.last_ok), swaps, numbers;
	ant_detect_noise nc = *ns;   /* copies: their tables only are changed */
	ant_tokens tc = *tk;

	if (!t && still) {
		t = still;
		tk->still = still;   /* for 'antenna show' */
	}
	if (!(pick = calloc(info->nseg ? info->nseg : 1, 1)))
		return;
	if ((segs = malloc((info->nseg ? info->nseg : 1) * sizeof *segs)) != NULL) {
		for (size_t i = 0; i < info->nseg; i++)
			segs[i] = (ant_detect_seg){ info->seg[i].block, info->seg[i].norm, info->seg[i].len,
						    info->text ? info->text + info->seg[i].off : NULL };
		cur = segs;
	}
	/* what is held is the excerpt should this check announce it: now, or
	 * when the page's feed dates it (ant_upd_feed_confirms()); kept for
	 * the check a 304 confirms it at (ant_upd_held_confirm()) */
	swaps = ant_detect_noise_confirm(t ? ns : &nc, u->now, cur, cur ? info->nseg : 0, pick);
	numbers = ant_tokens_confirm(t ? tk : &tc, u->now, info->seg, info->nseg, pick);
	if (!t && memchr(pick, 1, info->nseg)) {
		struct upd_check *c = &u->chk[p - u->pages];

		free(c->held);
		c->held = ant_page_excerpt(info, pick, u->o->excerpt_max);
	}
	if (!*excerpt && memchr(pick, 1, info->nseg))
		*excerpt = ant_page_excerpt(info, pick, u->o->excerpt_max);
	if (t && (swaps || numbers)) {
		if (!in->noise_updated || !in->noise_time || t < in->noise_time)
			in->noise_time = t;
		in->noise_updated = 1;
	}
	free(segs);
	free(pick);
}

int ant_upd_watched(const ant_store_page *p)
{
	return p->only && *p->only;
}

/* A sentence of three words or more, prose (not a hash, a path, a
 * date line), at least 12 bytes: "Price: 150円 a copy.", not "parent 4". */
static int number_sentence(const ant_page_info *info, size_t i)
{
	const char *t = info->text + info->seg[i].off;
	size_t words = 1;

	if (info->seg[i].len < 12 || !ant_page_seg_prose(info, i))
		return 0;
	for (size_t k = 1; k < info->seg[i].len; k++)
		words += t[k] != ' ' && t[k - 1] == ' ';
	return words >= 3;
}

/* A sentence of prose of three words or more, at least 12 bytes, for the
 * stillness rule: counted in half words, a word without a space between
 * them (Japanese) being a character -- "本日の価格は150円です。", "costs
 * 150円 this year", not "Visitors: 12" nor "価格: 150円". */
static int still_sentence(const ant_page_info *info, size_t i)
{
	const unsigned char *t = (const unsigned char *)info->text + info->seg[i].off;
	size_t n = info->seg[i].len, halves = 0;

	if (n < 12 || !ant_page_seg_prose(info, i))
		return 0;
	for (size_t k = 0; k < n;) {
		size_t wide = 0;
		int ascii = 0;

		while (k < n && t[k] == ' ')
			k++;
		for (; k < n && t[k] != ' '; k++) {
			wide += t[k] >= 0xC0;   /* a character's lead byte */
			ascii |= (t[k] >= '0' && t[k] <= '9') || ((t[k] | 0x20) >= 'a' && (t[k] | 0x20) <= 'z');
		}
		halves += wide + (ascii ? 2 : 0);
	}
	return halves >= 6;
}

/* Does the sentence hold a relative age ("less than a minute ago", "3分前",
 * "今日")?  Beside another sentence changed in its numbers, it is a
 * byline's ("Updated by Admin less than a minute ago · 2 revisions"): its
 * count moving with the edit is the edit's own record. */
static int has_age(const ant_page_info *info, size_t i)
{
	const char *t = info->text + info->seg[i].off;
	ant_noise_group g[ANT_TOKENS_MAX_MARKS];
	size_t n = ant_noise_groups(t, info->seg[i].len, g, ANT_TOKENS_MAX_MARKS);

	for (size_t k = 0; k < n && k < ANT_TOKENS_MAX_MARKS; k++) {
		ant_clock c;

		ant_clock_read(t + g[k].off, info->seg[i].len - g[k].off, t, g[k].off, 0, &c);
		if (c.kind == ANT_CLOCK_AGE)
			return 1;
	}
	return 0;
}

/*
 * Stillness vouches for what this check held: the page held still through
 * its last checks (tv->quiet) and now one thing changed, once -- one small
 * part replaced (the same new text in two places counts once), or one
 * sentence of prose changed in its numbers (still_sentence()), a byline's
 * count or age beside it (has_age()) -- with nothing else moving: no
 * other number, no part that differed between the answer and its
 * re-fetch, nothing learned.  What the hold protects
 * against moves at most checks (a counter, a rotating quote, a token):
 * it has no still checks to show, or moves more than one thing (a
 * visitor's count and the referer's); an author's edit of a quiet page
 * is one change.  Returns now when it vouches, else 0.
 */
static int64_t held_still(const struct upd *u, const ant_detect_noise *ns, const ant_tokens *tk,
			  const ant_page_info *info, const ant_detect_verdict *v,
			  const ant_tokens_verdict *tv)
{
	size_t swaps = 0, plain = 0, aged = 0, meta = 0, numbers;
	uint32_t swapped = 0;

	if (tv->quiet < STILL_CHECKS || v->updated || v->nlearned || v->nwlearned)
		return 0;
	for (size_t k = 0; k < ns->nsus; k++) {
		if (ns->sus[k].raced == u->now)
			return 0;
		/* the same new text in two parts (a brief in a summary table
		 * and above its detail) is one edit shown twice */
		if (ns->sus[k].pending == u->now && (!swaps || ns->sus[k].pending_norm != swapped)) {
			swapped = ns->sus[k].pending_norm;
			swaps++;
		}
	}
	for (size_t k = 0; k < tk->nheld; k++) {
		size_t i = 0;

		if (tk->held[k].since != u->now)
			continue;
		while (i < info->nseg && i < ANT_TOKENS_MAX_KEYS &&
		       (info->seg[i].block * 0x9e3779b1u ^ info->seg[i].norm) != tk->held[k].key)
			i++;
		if (i == info->nseg || i == ANT_TOKENS_MAX_KEYS)
			return 0;
		if (ant_page_seg_meta(info, i))   /* who and when: never the edit */
			meta++;
		else if (!still_sentence(info, i))
			return 0;
		else if (has_age(info, i))
			aged++;
		else
			plain++;
	}
	/* the edit is the sentence without an age; a byline's count or age
	 * moving beside it ("Updated by Admin 2 minutes ago · 2 revisions")
	 * is its record.  Alone, a sentence with an age word is the edit
	 * ("今日の価格は180円です。"). */
	numbers = plain ? plain : aged;
	return swaps + numbers == 1 && tv->moved == plain + aged + meta ? u->now : 0;
}

/* The other news of a check took the excerpt (a commit's message above
 * the file it changed); a sentence of the page changed only in its
 * numbers in the same check ("Price: 120円" -> "150円") is what the page
 * itself says changed: it joins the excerpt after it, when there is room. */
static void join_numbers(struct upd *u, const ant_page_info *info, const unsigned char *pick, char **excerpt)
{
	unsigned char *one = calloc(info->nseg ? info->nseg : 1, 1);
	char *add = NULL, *both;
	size_t i = 0;

	while (one && i < info->nseg && !(pick[i] && number_sentence(info, i)))
		i++;
	if (one && i < info->nseg) {
		one[i] = 1;
		add = ant_page_excerpt(info, one, u->o->excerpt_max);
	}
	if (add && *add && !strstr(*excerpt, add) && strlen(*excerpt) + strlen(add) + 1 <= u->o->excerpt_max &&
	    (both = malloc(strlen(*excerpt) + strlen(add) + 2))) {
		sprintf(both, "%s %s", *excerpt, add);
		free(*excerpt);
		*excerpt = both;
	}
	free(add);
	free(one);
}

void ant_upd_tokens(struct upd *u, ant_store_page *p, ant_detect_noise *ns, const ant_page_info *info,
		    const ant_detect_verdict *v, ant_detect_input *in, char **excerpt)
{
	struct upd_check *c = &u->chk[p - u->pages];
	ant_tokens tk;
	ant_tokens_verdict tv;
	unsigned char *skip;

	/* a baseline too: the first number change after it is held like any
	 * (a stamp that moved is a clock) */
	if (p->no_auto_ignore || !(skip = calloc(info->nseg ? info->nseg : 1, 1)))
		return;
	/* learned blocks are the noise rule's; a sentence without a digit
	 * cannot change in its numbers alone */
	for (size_t i = 0; i < info->nseg; i++)
		skip[i] = ant_detect_noise_find(ns, info->seg[i].block) != NULL ||
			  !ant_tokens_has_number(info->text + info->seg[i].off, info->seg[i].len);
	tokens_of(p, v->baseline, &tk);
	if (ant_tokens_decide_text(&tk, info->seg, info->nseg, info->text, skip,
				   (v->updated ? ANT_TOKENS_OTHER_NEWS : 0) |
				   (ant_upd_watched(p) ? ANT_TOKENS_WATCHED : 0), u->now, &tv) == 0) {
		if (tv.updated) {
			if (!in->noise_updated || !in->noise_time || tv.since < in->noise_time)
				in->noise_time = tv.since;
			in->noise_updated = 1;
		}
		/* the page's own text changed in nothing but clocks (a stamp, an
		 * age: ant_clock.h): a rebuild, no news whatever its Last-Modified */
		in->no_news = !v->baseline && tv.same_shape && !tv.held && !tv.updated && !tv.picked &&
			      !v->updated && !v->held && !v->nlearned;
		if (!*excerpt && tv.pick)
			*excerpt = ant_page_excerpt(info, tv.pick, u->o->excerpt_max);
		else if (tv.pick)
			join_numbers(u, info, tv.pick, excerpt);
		if (v->held || tv.held)
			corroborate(u, p, ns, &tk, info, in, held_still(u, ns, &tk, info, v, &tv), excerpt);
		if (c->unasked)   /* for 'antenna show' */
			tk.unasked = u->now;
		free(c->tokens);
		c->tokens = NULL;
		c->tokens_len = 0;
		ant_tokens_encode(&tk, &c->tokens, &c->tokens_len);
		ant_tokens_verdict_release(&tv);
	}
	ant_tokens_release(&tk);
	free(skip);
}

void ant_upd_feed_confirms(struct upd *u, ant_store_page *p, ant_detect_input *in, int64_t t)
{
	if (!t || in->failed || in->noise_updated || t <= p->st.last_ok ||
	    lirs_merge_future(t, u->now, u->o->max_future) || !ant_upd_held_confirm(u, p, u->now, NULL))
		return;
	in->noise_decided = 1;
	in->noise_updated = 1;
	in->noise_time = t > u->now ? u->now : t;
}

/*
 * Changes held at an earlier check confirmed by a 304 to our conditional
 * request (from 0: the answer is the one that showed them, they stayed),
 * or released when another rule announced the check that held them (from
 * = now: the feed dated it).  The page's column keeps the rest.  Returns
 * the earliest first sighting of those confirmed, 0 when none.
 */
int64_t ant_upd_held_confirm(struct upd *u, ant_store_page *p, int64_t from, char **excerpt)
{
	ant_textstate ps;
	ant_detect_noise ns;
	ant_tokens tk;
	unsigned char *nb = NULL, *tb = NULL, *blob;
	size_t nl = 0, tl = 0, len;
	int64_t a = 0, b = 0, since;

	(void)u;
	if (p->no_auto_ignore || !p->noise_len || ant_textstate_split(p->noise, p->noise_len, &ps) < 0)
		return 0;
	/* decoded only when it holds a swap to confirm (most do not) */
	if (ant_detect_noise_holds(ps.noise, ps.noise_len, from) > 0 &&
	    ant_detect_noise_decode(&ns, ps.noise, ps.noise_len) == 0) {
		a = ant_detect_noise_confirm(&ns, from, NULL, 0, NULL);
		if (a && ant_detect_noise_encode(&ns, &nb, &nl) == 0) {
			ps.noise = nb;
			ps.noise_len = nl;
		}
		ant_detect_noise_release(&ns);
	}
	if (ant_tokens_decode(&tk, ps.tokens, ps.tokens_len) == 0) {
		b = ant_tokens_confirm(&tk, from, NULL, 0, NULL);
		/* a 304: the page held still since the last check */
		if (!from && tk.has_shape)
			tk.quiet += tk.quiet < ANT_TOKENS_QUIET_MAX;
		if ((b || (!from && tk.has_shape)) && ant_tokens_encode(&tk, &tb, &tl) == 0) {
			ps.tokens = tb;
			ps.tokens_len = tl;
		}
		ant_tokens_release(&tk);
	}
	since = !a || (b && b < a) ? b : a;
	if (since && excerpt && ps.held_len && !*excerpt && (*excerpt = malloc(ps.held_len + 1))) {
		memcpy(*excerpt, ps.held, ps.held_len);
		(*excerpt)[ps.held_len] = '\0';
	}
	if (since) {   /* confirmed, or released: held no more */
		ps.held = NULL;
		ps.held_len = 0;
	}
	if ((since || tb) && ant_textstate_join(&ps, &blob, &len) == 0) {
		free(p->noise);   /* ps pointed into it: joined first */
		p->noise = blob;
		p->noise_len = len;
	}
	free(nb);
	free(tb);
	return since;
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
	if (c->furn)
		ps.furniture = *c->furn;
	else
		memset(&ps.furniture, 0, sizeof ps.furniture);
	ps.held = c->held;   /* this check's holds, or none */
	ps.held_len = c->held ? strlen(c->held) : 0;
	if (ant_textstate_join(&ps, &blob, &len) == 0) {
		free(p->noise);
		p->noise = blob;
		p->noise_len = len;
	}
	free(c->tokens);
	c->tokens = NULL;
	c->tokens_len = 0;
	free(c->held);
	c->held = NULL;
}
