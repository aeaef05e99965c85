/*
 * trust.c: the sources' trust scores (ant_trust.h) for people: the
 * fields of 'list --sources' (text and JSON Lines), the lines of 'show
 * SOURCE', and what 'update' tells on standard error of a relay source
 * held back.
 */
#include <stdio.h>

#include "antenna.h"
#include "ant_trust.h"
#include "lb_json.h"
#include "lb_term.h"

/* x's score under the database's limits: 0, or < 0 (err). */
static int score_of(ant_store *s, const ant_store_source *x, ant_trust_limits *l,
		    ant_trust_score *sc, lb_error *err)
{
	ant_trust_limits_load(s, l);
	return ant_trust_score_get(s, x->id, x->relay, l, sc, err);
}

/* "80% of 5 claims", or "unscored (2 of 5 claims judged)". */
static int precision_text(lb_buf *o, const ant_trust_limits *l, const ant_trust_score *sc)
{
	int64_t judged = sc->confirmed + sc->refuted;

	if (!sc->scored)
		return lb_buf_addf(o, "unscored (%lld of %lld claims judged)", (long long)judged,
				   (long long)l->min_claims);
	return lb_buf_addf(o, "%d%% of %lld claims confirmed", sc->precision, (long long)judged);
}

int antcmd_trust_text(lb_buf *o, ant_store *s, const ant_store_source *x)
{
	ant_trust_limits l;
	ant_trust_score sc;

	if (score_of(s, x, &l, &sc, NULL) < 0)
		return lb_buf_adds(o, ", trust unknown (database error)");
	if (lb_buf_adds(o, ", trust ") < 0 || precision_text(o, &l, &sc) < 0 ||
	    (sc.has_skew && lb_buf_addf(o, ", skew %+lld s", (long long)sc.skew) < 0) ||
	    (sc.churn >= 0 && lb_buf_addf(o, ", churn %lld%%", (long long)sc.churn) < 0))
		return -1;
	if (sc.held)
		return lb_buf_adds(o, ", HELD BACK");
	return sc.hints ? 0 : lb_buf_adds(o, ", hints ignored");
}

int antcmd_trust_json(lb_buf *o, ant_store *s, const ant_store_source *x)
{
	ant_trust_limits l;
	ant_trust_score sc;

	if (score_of(s, x, &l, &sc, NULL) < 0)
		return -1;
	if (lb_json_next_key(o, "trust") < 0 ||
	    (sc.scored ? lb_json_int(o, sc.precision) : lb_buf_adds(o, "null")) < 0 ||
	    lb_json_next_int(o, "trust_confirmed", sc.confirmed) < 0 ||
	    lb_json_next_int(o, "trust_refuted", sc.refuted) < 0 ||
	    lb_json_next_int(o, "trust_pending", sc.pending) < 0 ||
	    lb_json_next_int(o, "trust_ahead", sc.ahead) < 0 ||
	    lb_json_next_key(o, "trust_skew") < 0 ||
	    (sc.has_skew ? lb_json_int(o, sc.skew) : lb_buf_adds(o, "null")) < 0 ||
	    lb_json_next_key(o, "churn") < 0 ||
	    (sc.churn >= 0 ? lb_json_int(o, sc.churn) : lb_buf_adds(o, "null")) < 0 ||
	    lb_json_next_bool(o, "hints", sc.hints) < 0)
		return -1;
	return lb_json_next_bool(o, "held", sc.held);
}

void antcmd_trust_show(ant_store *s, const ant_store_source *x, int64_t tz)
{
	ant_trust_limits l;
	ant_trust_score sc;
	lb_buf b = LB_BUF_INIT;
	char t[128];

	if (score_of(s, x, &l, &sc, NULL) < 0 || precision_text(&b, &l, &sc) < 0) {
		printf("trust:          unknown (database error)\n");
		lb_buf_release(&b);
		return;
	}
	printf("trust:          %s\n", b.data);
	printf("claims:         %lld confirmed, %lld refuted by our checks, %lld pending\n",
	       (long long)sc.confirmed, (long long)sc.refuted, (long long)sc.pending);
	if (sc.has_skew)
		printf("skew:           %+lld s (median of its time minus ours)\n", (long long)sc.skew);
	else
		printf("skew:           unknown (no confirmed claim)\n");
	printf("ahead of clock: %lld claims dated after our clock\n", (long long)sc.ahead);
	if (sc.churn >= 0)
		printf("churn:          %lld\n", (long long)sc.churn);
	else
		printf("churn:          unknown (not measured)\n");
	printf("hints:          %s\n", sc.hints ? "trigger early checks of watched pages"
			: "ignored: score below --trust-hint; pages wait for their schedule");
	if (x->relay)
		printf("held back:      %s\n", sc.held ? antcmd_when(t, sizeof t, sc.held_since, tz) :
		       "no");
	if (sc.held)
		printf("                score below --trust-relay %lld%%: its records are not "
		       "published nor relayed\n", (long long)l.relay_min);
	lb_buf_release(&b);
}

void antcmd_trust_report(ant_store *s)
{
	lb_error err = LB_ERROR_INIT;
	ant_store_source *x;
	ant_trust_limits l;
	ant_trust_score sc;
	lb_buf a = LB_BUF_INIT;
	size_t n;

	if (ant_store_sources_load(s, &x, &n, &err) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (x[i].relay && score_of(s, &x[i], &l, &sc, NULL) == 0 && sc.held)
			cli_error("held back: %s: trust %d%% of %lld claims, below --trust-relay %lld%%: "
				  "its records are not published ('antenna show' it)",
				  lb_term(&a, x[i].url), sc.precision,
				  (long long)(sc.confirmed + sc.refuted), (long long)l.relay_min);
	lb_buf_release(&a);
	ant_store_sources_free(x, n);
}
