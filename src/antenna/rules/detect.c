/*
 * detect.c: update decision and scheduling (see ant_detect.h).  No I/O.
 * The noise-proof text rule, whose verdict the text rule takes, is
 * detect_noise.c (with detect_noise_cmp.c and detect_noise_blob.c).
 */
#include "ant_detect.h"
#include "lirs_merge.h"

#include <string.h>

void ant_detect_state_init(ant_detect_state *st)
{
	memset(st, 0, sizeof *st);
	st->content_length = -1;
	st->detected_by = NULL;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * rAntenna's rule: dynamic pages send Last-Modified = Date ("now"), which
 * says nothing about the content.  A Last-Modified after the Date, or
 * after our clock when there is no Date, is no better.
 */
int ant_detect_lm_believable(int64_t lm_time, int64_t date_time, int64_t now,
			     int64_t max_future)
{
	if (lm_time <= 0)
		return 0;
	/* the --max-future rule judges the page's headers too: a server whose
	 * clock runs ahead would otherwise win for ever.  A Last-Modified that
	 * far ahead is not believed; nor is a Date: the Last-Modified is then
	 * judged against our clock, as when there is no Date. */
	if (lirs_merge_future(lm_time, now, max_future))
		return 0;
	if (date_time > 0 && !lirs_merge_future(date_time, now, max_future))
		return lm_time < date_time;
	return lm_time < now;
}

int ant_detect_lm_trusted(int64_t lm_time, int64_t date_time, int64_t now)
{
	return ant_detect_lm_believable(lm_time, date_time, now, 0);
}

/* Next check ~ time since the last change, in [5 min, 24 h] (samidare). */
void ant_detect_schedule_ok(ant_detect_state *st, int64_t now)
{
	int64_t since = ANT_DETECT_MAX_INTERVAL;

	if (st->last_modified > 0 && st->last_modified <= now)
		since = now - st->last_modified;
	else if (st->last_modified == 0 && !st->quiet_first)
		/* A page added with no known time (its first check is a quiet
		 * baseline): as if it changed when we first saw it, the
		 * interval doubling from 5 minutes. */
		since = st->interval * 2;
	st->interval = clamp64(since, ANT_DETECT_MIN_INTERVAL, ANT_DETECT_MAX_INTERVAL);
	st->next_check = now + st->interval;
}

/* Doubling back-off after consecutive errors; Retry-After is a floor. */
void ant_detect_schedule_error(ant_detect_state *st, int64_t now, int64_t retry_after)
{
	int shift = st->error_count > 1 ? st->error_count - 1 : 0;
	int64_t delay;

	if (shift > 20)
		shift = 20;
	delay = (int64_t)ANT_DETECT_MIN_INTERVAL << shift;
	if (delay < st->interval)
		delay = st->interval;
	delay = clamp64(delay, ANT_DETECT_MIN_INTERVAL, ANT_DETECT_MAX_INTERVAL);
	if (retry_after > 0) {
		retry_after = clamp64(retry_after, 1, ANT_DETECT_MAX_RETRY_AFTER);
		if (retry_after > delay)
			delay = retry_after;
	}
	st->next_check = now + delay;
}

static int64_t size_of(const ant_detect_input *in)
{
	return in->content_length >= 0 ? in->content_length : in->body_len;
}

/* Does the body show a change since the last check? */
enum body { BODY_SAME, BODY_CHANGED, BODY_UNKNOWN };

/*
 * The noise-proof rule's verdict when it decided (a stamp or a counter
 * that moved is no change), else the text checksum; unknown with no text
 * on one side (the size rule's case).
 */
static enum body body_changed(const ant_detect_state *st, const ant_detect_input *in)
{
	/* the text rule's reference was reset ('antenna set': a quiet
	 * baseline): this text is the new reference, nothing to compare */
	if (in->has_hash && !st->has_hash && !in->noise_decided)
		return BODY_SAME;
	if (in->noise_decided)
		return in->noise_updated ? BODY_CHANGED : BODY_SAME;
	if (in->has_hash && st->has_hash)
		return in->text_hash != st->text_hash ? BODY_CHANGED : BODY_SAME;
	return BODY_UNKNOWN;
}

/* Which rule (if any) says the content changed since the last check. */
static const char *changed_rule(const ant_detect_state *st, const ant_detect_input *in,
				int trusted, int first)
{
	/* A header dates a change the body shows, and makes none: a new
	 * Last-Modified on the same text, or on a text the noise-proof rule
	 * finds unchanged (a rebuilt static site whose stamp moved, a purged
	 * cache), is no update.  A first check has no body to compare: the
	 * header dates it (quietly, content_apply()). */
	enum body changed = first ? BODY_UNKNOWN : body_changed(st, in);

	/* nor is a rebuild whose only change is its "generated on" stamp */
	if (!first && in->no_news)
		changed = BODY_SAME;

	if (trusted && in->lm_time > st->lm_header_time &&
	    in->lm_time > st->last_modified && changed != BODY_SAME)
		return "header";
	if (first)
		return NULL;
	if (changed != BODY_UNKNOWN)
		return changed == BODY_CHANGED ? "text" : NULL;
	/* No text checksum on one side: fall back to the size (w3m-antenna's "S"). */
	if (st->content_length >= 0 && size_of(in) != st->content_length)
		return "size";
	return NULL;
}

/*
 * A change our own check sees after a LIRS (or Atom) source already
 * relayed an update since our previous check is that same update: keep
 * its time.
 */
static int already_relayed(const ant_detect_state *st)
{
	return st->detected_by && (strcmp(st->detected_by, "lirs") == 0 ||
				   strcmp(st->detected_by, "atom") == 0) &&
	       st->last_modified > st->last_ok;
}

static void remember(ant_detect_state *st, const ant_detect_input *in, int trusted,
		     int64_t now)
{
	st->text_hash = in->has_hash ? in->text_hash : 0;
	st->has_hash = in->has_hash;
	st->content_length = size_of(in);
	if (trusted)
		st->lm_header_time = in->lm_time;
}

static void succeeded(ant_detect_state *st, const ant_detect_input *in, int64_t now)
{
	st->last_status = in->status;
	st->error_count = 0;
	st->recheck = 0;
	if (now > st->last_detected)
		st->last_detected = now;
	st->last_ok = now;
}

/*
 * Does our own check show the page's body changed, for the feed rule?  A
 * 304, the same text, or a text the noise-proof rule finds unchanged (only
 * clocks, furniture or learned noise moved) shows none; a change it
 * confirmed (a held one too: by a 304, or dated within this check by a
 * source or the feed itself, update_text.c) does.  With nothing to compare
 * (no text on one side, a reference just reset) the body cannot refute
 * the feed: it dates the page as before.
 */
static int feed_body_changed(const ant_detect_state *st, const ant_detect_input *in)
{
	if (in->noise_decided && in->noise_updated)
		return 1;
	if (in->status == 304 || in->no_news || in->noise_decided)
		return 0;
	if (in->has_hash && st->has_hash)
		return in->text_hash != st->text_hash;
	return 1;
}

/*
 * The feed dates a change when it speaks of the page (update_check.c: an
 * entry whose link is the page, or the page being the feed's home): its
 * newest such entry date, when newer than what the feed said before and
 * than the update we know (a LIRS relay of the same update may have come
 * first), is the update time -- when our own check shows the body
 * changed.  A newer entry on a page whose body did not change is no
 * update (a feed entry alone, like a Last-Modified, dates a change and
 * makes none): its date is kept as the feed's newest seen, a hint only,
 * and the change the next check finds is dated by the rules then.  A new
 * page's first check takes that date quietly (a baseline, like an
 * import): a page new to us has no news yet.
 */
static void feed_apply(ant_detect_state *st, const ant_detect_input *in, int first,
		       ant_detect_outcome *out)
{
	int64_t t = in->feed_time;

	if (t > st->feed_time && t > st->last_modified && (first || feed_body_changed(st, in))) {
		out->updated = !(first && st->last_modified == 0);
		st->last_modified = t;
		st->detected_by = "feed";
		out->rule = "feed";
	}
	st->feed_time = t;
	out->unchanged = !out->updated;
}

/*
 * A feed never overrules a text change confirmed on the page (the
 * noise-proof rule's verdict): a cached feed that does not have the edit
 * yet, or one that never lists this page's edits, must not hide it.  The
 * change is announced, dated when it was first seen.
 */
static void confirmed_text(ant_detect_state *st, const ant_detect_input *in, int first,
			   int64_t now, ant_detect_outcome *out)
{
	if (out->updated || first || !in->noise_decided || !in->noise_updated || already_relayed(st))
		return;
	if (in->noise_time > st->last_modified && in->noise_time < now)
		st->last_modified = in->noise_time;
	else
		st->last_modified = now;
	st->detected_by = "text";
	out->updated = 1;
	out->rule = "text";
	out->unchanged = 0;
}

/* A time from the future that an older version kept (a Last-Modified of
 * 9999) is forgotten, or it would win for ever. */
static void forget_future(ant_detect_state *st, int64_t now, int64_t max_future)
{
	if (lirs_merge_future(st->lm_header_time, now, max_future))
		st->lm_header_time = 0;
	if (lirs_merge_future(st->feed_time, now, max_future))
		st->feed_time = 0;
	if (lirs_merge_future(st->last_modified, now, max_future)) {
		st->last_modified = 0;
		st->detected_by = NULL;
	}
}

/* A page without a usable feed: the header, text and size rules decide. */
static void content_apply(ant_detect_state *st, const ant_detect_input *in, int trusted,
			  int first, int64_t now, ant_detect_outcome *out)
{
	const char *rule = changed_rule(st, in, trusted, first);

	if (rule && strcmp(rule, "header") == 0) {
		/* A new page's first check learns its time: a baseline, no
		 * event; a time known before (imported, relayed) is beaten. */
		out->updated = !(first && st->last_modified == 0);
		st->last_modified = in->lm_time;
		st->detected_by = "header";
	} else if (first) {
		/* A page new to us (added or imported): its first check is a
		 * quiet baseline.  "Now" would be a made-up update time; the
		 * time stays what it was (unknown, or a relayed one). */
	} else if (rule && !already_relayed(st)) {
		/* a held change confirmed: dated when it was first seen */
		if (in->noise_decided && in->noise_time > st->last_modified && in->noise_time < now)
			st->last_modified = in->noise_time;
		else
			st->last_modified = now;
		st->detected_by = rule;
		out->updated = 1;
	}
	out->rule = out->updated ? st->detected_by : NULL;
	out->unchanged = !out->updated;
}

void ant_detect_apply(ant_detect_state *st, const ant_detect_input *in, int64_t now,
		  ant_detect_outcome *out)
{
	int trusted, first;

	memset(out, 0, sizeof *out);
	st->last_check = now;
	if (in->failed) {
		st->last_status = in->status;
		st->error_count++;
		ant_detect_schedule_error(st, now, in->retry_after);
		if (in->gone_interval > 0)   /* once in it, until its first success */
			st->next_check = now + in->gone_interval;
		return;
	}
	forget_future(st, now, in->max_future);
	first = st->last_ok == 0;
	out->first = first;
	trusted = ant_detect_lm_believable(in->lm_time, in->date_time, now, in->max_future);
	if (in->feed_usable && in->feed_time > 0) {
		feed_apply(st, in, first, out);
		confirmed_text(st, in, first, now, out);
		if (in->status != 304)
			remember(st, in, trusted, now);
	} else if (in->status == 304) {
		/* Not modified: validators are refreshed by the caller.  The
		 * answer still shows what the last one showed: a change held
		 * then is confirmed (the caller says so in noise_*). */
		out->unchanged = 1;
		confirmed_text(st, in, first, now, out);
	} else {
		content_apply(st, in, trusted, first, now, out);
		remember(st, in, trusted, now);
	}
	succeeded(st, in, now);
	ant_detect_schedule_ok(st, now);
	if (in->gone_interval > 0)
		st->next_check = now + in->gone_interval;
}

void ant_detect_keep_out(ant_detect_state *st, int64_t now, int64_t again)
{
	st->last_check = now;
	st->last_status = 0;
	st->next_check = now + again;
	st->recheck = 0;
}

int ant_detect_claim(ant_detect_state *st)
{
	if (st->recheck)
		return 0;
	st->recheck = 1;
	return 1;
}

int ant_detect_imported(ant_detect_state *st, int64_t lm, int64_t ld, const char *by)
{
	if (lm <= st->last_modified)
		return 0;
	st->last_modified = lm;
	if (ld > st->last_detected)
		st->last_detected = ld;
	st->detected_by = by;
	return 1;
}

int ant_detect_relay(ant_detect_state *st, int64_t lm, int64_t ld, int64_t now)
{
	/* times far in the future were dropped by lirs_merge_check_at();
	 * those within --max-future never date a page after our clock */
	if (lm > now)
		lm = now;
	if (ld > now)
		ld = now;
	if (lm <= 0 || lm <= st->last_modified)
		return 0;
	st->last_modified = lm;
	st->detected_by = "lirs";
	if (ld > st->last_detected)
		st->last_detected = ld;
	st->recheck = 1;
	return 1;
}

int ant_detect_due(const ant_detect_state *st, int64_t now, int force)
{
	return force || st->recheck || st->next_check <= now;
}
