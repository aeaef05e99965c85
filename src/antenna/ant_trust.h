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
 * A source never dates a page we check ourselves: its claim is a hint.
 * Only a page we cannot check (its last check failed) takes a believed
 * source's date, clamped to our clock, and `show` says the date is the
 * source's.
 */
#ifndef ANT_TRUST_H
#define ANT_TRUST_H

#include <stdint.h>

#include "lb_error.h"
#include "ant_store.h"

#define ANT_TRUST_HINT_MIN 50      /* per cent: below it, claims trigger no early check */
#define ANT_TRUST_RELAY_MIN 50     /* per cent: below it, a relay source is held back */
#define ANT_TRUST_MIN_CLAIMS 5     /* judged claims before a score counts */
#define ANT_TRUST_WINDOW 100       /* judged claims kept per source: the score's window */


/* The thresholds in force (the database's config over the defaults). */
typedef struct ant_trust_limits {
	int64_t hint_min, relay_min, min_claims;
} ant_trust_limits;

void ant_trust_limits_load(ant_store *s, ant_trust_limits *l);

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

/* The score of source (relay: a relay source) under l: 0 or < 0. */
int ant_trust_score_get(ant_store *s, int64_t source_id, int relay, const ant_trust_limits *l,
			ant_trust_score *sc, lb_error *err);

/* ---- the store's side (store_trust.c, the only SQL of it) ---- */

/* Source's claim that page was updated at claimed, read at now: 1 a new
 * claim (pending), 0 told before (a claim as new or newer is kept), < 0. */
int ant_store_trust_claim(ant_store *s, int64_t source_id, int64_t page_id, int64_t claimed,
			  int64_t now, lb_error *err);
/* Our check of page at now judges its pending claims: updated (found: the
 * update's time) or not; drop: a baseline that can judge nothing drops
 * them.  0 or < 0. */
int ant_store_trust_judge(ant_store *s, int64_t page_id, int updated, int drop, int64_t found,
			  int64_t now, lb_error *err);
/* Counts (confirmed, refuted, pending, ahead) of source, the median skew
 * of its confirmed claims (*has_skew 0 when none), and whether it is held
 * (*held, *since).  0 or < 0. */
int ant_store_trust_counts(ant_store *s, int64_t source_id, ant_trust_score *sc, lb_error *err);
/* Source held back or not from now; also keeps its window (ANT_TRUST_WINDOW
 * judged claims) and drops pending claims of pages no longer watched. */
int ant_store_trust_keep(ant_store *s, int64_t source_id, int held, int64_t now, lb_error *err);

#endif
