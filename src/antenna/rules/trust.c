/*
 * trust.c: how far each source is believed (ant_trust.h): its score from
 * the claims our own checks judged, and the limits that score is held
 * to.  A rule: it reads the counts the store keeps and decides nothing
 * of a run; the update engine's side (a source's newer time for a
 * watched page is a hint to check it early) is update/update_trust.c's.
 */
#include <string.h>

#include "ant_trust.h"
#include "ant_source_budget.h"
#include "ant_settings.h"

void ant_trust_limits_load(ant_store *s, ant_trust_limits *l)
{
	l->hint_min = ant_setting_int(s, ANT_SET_TRUST_HINT);
	l->relay_min = ant_setting_int(s, ANT_SET_TRUST_RELAY);
	l->min_claims = ant_setting_int(s, ANT_SET_TRUST_CLAIMS);
}

int ant_trust_score_get(ant_store *s, int64_t source_id, int relay, const ant_trust_limits *l,
			ant_trust_score *sc, lb_error *err)
{
	int64_t judged;
	int rc;

	memset(sc, 0, sizeof *sc);
	ant_source_budget b;

	/* churn: the share of the records it gave before that came with a
	 * new Last-Modified at its last read (ant_source_budget.h); -1
	 * before a read gave any it knew */
	if ((rc = ant_store_budget_get(s, source_id, &b, err)) < 0)
		return rc;
	sc->churn = b.known > 0 ? b.changed * 100 / b.known : -1;
	if ((rc = ant_store_trust_counts(s, source_id, sc, err)) < 0)
		return rc;
	judged = sc->confirmed + sc->refuted;
	sc->precision = judged ? (int)(sc->confirmed * 100 / judged) : 100;
	sc->scored = judged > 0 && judged >= l->min_claims;
	sc->hints = !sc->scored || sc->precision >= l->hint_min;
	/* a source that is not a relay has nothing to hold back */
	if (!relay)
		sc->held = 0;
	return 0;
}
