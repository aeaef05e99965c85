/*
 * trust.c: how far each source is believed (ant_trust.h): its score from
 * the claims our own checks judged, and the limits that score is held
 * to.  A rule: no I/O (the store reads the counts and calls it:
 * store/store_trust.c); the update engine's side (a source's newer time
 * for a watched page is a hint to check it early) is
 * update/update_trust.c's.
 */
#include "ant_trust.h"

void ant_trust_score_judge(ant_trust_score *sc, const ant_source_budget *b, int relay,
			   const ant_trust_limits *l)
{
	int64_t judged = sc->confirmed + sc->refuted;

	/* churn: the share of the records it gave before that came with a
	 * new Last-Modified at its last read (ant_source_budget.h); -1
	 * before a read gave any it knew */
	sc->churn = b->known > 0 ? b->changed * 100 / b->known : -1;
	sc->precision = judged ? (int)(sc->confirmed * 100 / judged) : 100;
	sc->scored = judged > 0 && judged >= l->min_claims;
	sc->hints = !sc->scored || sc->precision >= l->hint_min;
	/* a source that is not a relay has nothing to hold back */
	if (!relay)
		sc->held = 0;
}

int ant_trust_holds(const ant_trust_limits *l, int relay, const ant_trust_score *sc)
{
	return relay && sc->scored && sc->precision < l->relay_min;
}
