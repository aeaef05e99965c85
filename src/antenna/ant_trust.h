/*
 * ant_trust.h: how far each source (LIRS, HINA-DI, Atom; sitemaps through
 * the same path) is believed, from its own record.
 *
 * For a page we check ourselves, a source's newer time is a claim: "the
 * page was updated at T".  It is kept pending until our own next check of
 * the page judges it: the check found an update (confirmed; the skew is T
 * minus the time our check dated the update) or found the page unchanged
 * (refuted).  A claim is made only when T is newer than the page's update
 * and than our last successful check (a check after T already saw the
 * page as it was then); the same claim told again is not counted again,
 * but a source adding a minute at every read makes a new one each time.
 *
 * The score is the precision of the newest ANT_TRUST_WINDOW judged
 * claims (confirmed / judged, in per cent), counted once at least
 * min_claims are judged (before that the source is believed).  Below
 * hint_min a source's claims trigger no early check: the page waits for
 * its own schedule (the claims are still judged, so the score can rise
 * again).  A relay source below relay_min is held back: its records are
 * not published (index.html, lirs.gz, sites.di.gz, Atom) nor made update
 * events until its score is back; `antenna update` says so on standard
 * error, `list --sources` and `show` show it.  The limits are kept in the
 * database (antenna init --trust-hint, --trust-relay, --trust-claims).
 *
 * A source never dates a page we check ourselves: its claim is a hint,
 * save that a believed source's record dated after our last check
 * confirms a change the check holds (update_text.c).  Only a page we
 * cannot check (its check failed, robots.txt) takes a believed source's
 * date -- at the failing check, from what the source said since our last
 * successful one -- and a quiet first check with no time of its own the
 * newest such record; clamped to our clock and the source's Last-Detected,
 * and `show` says the date is the source's.
 */
#ifndef ANT_TRUST_H
#define ANT_TRUST_H

#include <stdint.h>

#include "lb_error.h"
#include "ant_source_budget.h"

#define ANT_TRUST_HINT_MIN 50      /* per cent: below it, claims trigger no early check */
#define ANT_TRUST_RELAY_MIN 50     /* per cent: below it, a relay source is held back */
#define ANT_TRUST_MIN_CLAIMS 5     /* judged claims before a score counts */
#define ANT_TRUST_WINDOW 100       /* judged claims kept per source: the score's window */


/* The thresholds in force (the database's config over the defaults). */
typedef struct ant_trust_limits {
	int64_t hint_min, relay_min, min_claims;
} ant_trust_limits;


/* One source's record. */
typedef struct ant_trust_score {
	int64_t confirmed, refuted;  /* judged claims in the window */
	int64_t pending;             /* claims our checks have not judged yet */
	int64_t ahead;               /* of all kept, claims dated after our clock when read */
	int has_skew;
	int64_t skew;                /* median of claimed minus found, confirmed claims, s */
	int scored;                  /* at least min_claims judged: the score counts */
	int precision;               /* confirmed * 100 / judged; 100 when none */
	int hints;                   /* its claims trigger early checks */
	int held;                    /* a relay source held back (as of its last read) */
	int64_t held_since;
	int64_t churn;               /* % of its known records changed at its last read
					(ant_source_budget.h); -1 none known yet */
} ant_trust_score;

/* The score from sc's counts (confirmed, refuted, held: as the store
 * keeps them) and the source's last read b, for a source (relay: a relay
 * source) under l: sets churn, precision, scored, hints, and held back
 * to 0 for a source that is not a relay. */
void ant_trust_score_judge(ant_trust_score *sc, const ant_source_budget *b, int relay,
			   const ant_trust_limits *l);

/* Whether a relay source (relay) with the judged score sc is held back
 * under l now: scored and strictly below relay_min.  A score exactly at
 * relay_min (50% by default) is not held. */
int ant_trust_holds(const ant_trust_limits *l, int relay, const ant_trust_score *sc);

#endif
