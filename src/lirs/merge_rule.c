/*
 * merge_rule.c: the rules every reader of other antennas' records shares
 * (lirs_merge.h): which of two records of one URL wins, and which records
 * are dropped (unusable, from the future, stale; LIRS 2.1 §4).
 */
#include "lirs_merge.h"

int lirs_merge_supersedes(int64_t lm_new, int64_t ld_new, int64_t lm_old, int64_t ld_old)
{
	if (lm_new != lm_old)
		return lm_new > lm_old;
	return ld_new >= ld_old;   /* a tie goes to the later record */
}

/* n seconds after now, beyond a tolerance: overflow-free (any int64). */
static int beyond(int64_t t, int64_t now, int64_t tolerance)
{
	return t > now && (uint64_t)t - (uint64_t)now > (uint64_t)tolerance;
}

int lirs_merge_future(int64_t t, int64_t now, int64_t max_future)
{
	if (max_future == 0)
		max_future = LIRS_DEFAULT_MAX_FUTURE;
	return max_future > 0 && beyond(t, now, max_future);
}

int lirs_merge_check_at(const lirs_record *r, int64_t now, int64_t max_age, int64_t max_future)
{
	if (r->last_modified == 0 || r->last_detected == 0 || !r->url || !r->url[0])
		return LIRS_MERGE_UNUSABLE;
	if (max_future == 0)
		max_future = LIRS_DEFAULT_MAX_FUTURE;
	/* A peer whose clock runs ahead must not win over every valid record
	 * (lirs_merge_supersedes()) nor stay fresh for ever: its record is dropped. */
	if (max_future > 0 && (beyond(r->last_modified, now, max_future) ||
			       beyond(r->last_detected, now, max_future)))
		return LIRS_MERGE_FUTURE;
	if (max_age == 0)
		max_age = LIRS_DEFAULT_MAX_AGE;
	/* LIRS 2.1 §4: discard records last detected more than max_age ago */
	if (max_age > 0 && r->last_detected < now - max_age)
		return LIRS_MERGE_STALE;
	return LIRS_MERGE_USABLE;
}

int lirs_merge_check(const lirs_record *r, int64_t now, int64_t max_age)
{
	return lirs_merge_check_at(r, now, max_age, 0);
}
