/*
 * t_trust.c: the sources' trust scores (ant_trust.h) on a real SQLite
 * file: claims told once, judged by our checks, precision, the median
 * skew, the window, the limits from the config, relay sources held back.
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ant_store.h"
#include "ant_trust.h"
#include "ant_settings.h"

static char dir[] = "/tmp/t_trust.XXXXXX";

static int64_t source_new(ant_store *s, const char *url, int relay)
{
	ant_store_source x, *all;
	size_t n;
	int64_t id = -1;

	ant_store_source_init(&x);
	x.url = x.url_key = (char *)url;
	x.relay = relay;
	ant_store_source_add(s, &x, NULL);
	ant_store_sources_load(s, &all, &n, NULL);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].url, url))
			id = all[i].id;
	ant_store_sources_free(all, n);
	return id;
}

static int64_t page_new(ant_store *s, const char *url)
{
	ant_store_page p, q;
	int64_t id;

	ant_store_page_init(&p);
	p.url = p.url_key = (char *)url;
	p.created = 1;
	ant_store_page_add(s, &p, NULL);
	ant_store_page_get(s, url, &q, NULL);
	id = q.id;
	ant_store_page_release(&q);
	return id;
}

static ant_trust_score score(ant_store *s, int64_t src, int relay)
{
	ant_trust_limits l;
	ant_trust_score sc;

	ant_trust_limits_load(s, &l);
	if (ant_trust_score_get(s, src, relay, &l, &sc, NULL) < 0)
		memset(&sc, 0xff, sizeof sc);
	return sc;
}

/* A liar claims a newer time at every read; our checks find no change. */
static void liar(ant_store *s, int64_t src, int64_t page)
{
	ant_trust_score sc;
	int64_t t = 1700000000;

	IS_INT(ant_store_trust_claim(s, src, page, t + 60, t, NULL), 1, "liar: a first claim is new");
	IS_INT(ant_store_trust_claim(s, src, page, t + 60, t + 10, NULL), 0, "liar: told again, not counted again");
	IS_INT(ant_store_trust_claim(s, src, page, t + 30, t + 10, NULL), 0, "liar: an older claim is no claim");
	sc = score(s, src, 1);
	OK(sc.pending == 1 && sc.confirmed + sc.refuted == 0 && !sc.scored && sc.hints,
	   "liar: unscored while nothing is judged: believed");
	IS_INT(sc.ahead, 1, "liar: a claim dated after our clock is counted");
	IS_INT(ant_store_trust_judge(s, page, 0, 0, 0, t + 100, NULL), 0, "liar: our check judges the pending claim");
	IS_INT(score(s, src, 1).refuted, 1, "liar: refuted by it");
	for (int i = 2; i <= 5; i++) {
		ant_store_trust_claim(s, src, page, t + 60 * i, t + 100 * i, NULL);
		ant_store_trust_judge(s, page, 0, 0, 0, t + 100 * i + 50, NULL);
	}
	sc = score(s, src, 1);
	OK(sc.refuted == 5 && sc.confirmed == 0 && sc.scored && sc.precision == 0,
	   "liar: five refuted claims score 0%%");
	OK(!sc.hints && !sc.has_skew, "liar: its hints are ignored, no skew known");
	OK(!sc.held, "liar: held only once a read keeps it so");
	IS_INT(ant_store_trust_keep(s, src, 1, t + 999, NULL), 0, "liar: held back");
	sc = score(s, src, 1);
	OK(sc.held && sc.held_since == t + 999, "liar: held since that read");
	ant_store_trust_keep(s, src, 1, t + 2000, NULL);
	IS_INT(score(s, src, 1).held_since, t + 999, "liar: held since its first read held");
	IS_INT(score(s, src, 0).held, 0, "liar: a source that is not a relay is never held");
}

/* An honest source: confirmed claims, the median skew. */
static void honest(ant_store *s, int64_t src, int64_t page)
{
	static const int64_t skew[] = { -120, 30, -60, 600, -60 };
	ant_trust_score sc;
	int64_t t = 1700100000;

	for (int i = 0; i < 5; i++) {
		int64_t found = t + 1000 * i;
		ant_store_trust_claim(s, src, page, found + skew[i], found - 500, NULL);
		ant_store_trust_judge(s, page, 1, 0, found, found, NULL);
	}
	sc = score(s, src, 1);
	OK(sc.confirmed == 5 && sc.refuted == 0 && sc.scored && sc.precision == 100 && sc.hints,
	   "honest: five confirmed claims score 100%%");
	OK(sc.has_skew && sc.skew == -60, "honest: skew is the median (got %lld)", (long long)sc.skew);
	/* a first check (a baseline) judges nothing: its claims are dropped */
	ant_store_trust_claim(s, src, page, t + 9000, t + 8000, NULL);
	ant_store_trust_judge(s, page, 0, 1, 0, t + 9100, NULL);
	sc = score(s, src, 1);
	OK(sc.pending == 0 && sc.refuted == 0, "honest: a baseline drops the claim, judges nothing");
}

/* The window: only the newest ANT_TRUST_WINDOW judged claims count, so a
 * source that mends its ways is believed again. */
static void window(ant_store *s, int64_t src, int64_t page)
{
	ant_trust_score sc;
	int64_t t = 1700200000;

	for (int i = 0; i < ANT_TRUST_WINDOW + 20; i++) {
		ant_store_trust_claim(s, src, page, t + 10 * i + 1, t + 10 * i, NULL);
		ant_store_trust_judge(s, page, i >= 20, 0, t + 10 * i + 1, t + 10 * i + 5, NULL);
	}
	ant_store_trust_keep(s, src, 0, t + 5000, NULL);
	sc = score(s, src, 1);
	OK(sc.confirmed == ANT_TRUST_WINDOW && sc.refuted == 0 && sc.precision == 100,
	   "window: %d judged kept, the old refuted ones gone", ANT_TRUST_WINDOW);
	OK(!sc.held, "window: no longer held");
}

/* The threshold: a relay exactly at --trust-relay (50%) is not held back,
 * one below it is (README: "below --trust-relay is held back"). */
static void threshold(ant_store *s, int64_t src, int64_t page)
{
	ant_trust_limits l;
	ant_trust_score sc;
	int64_t t = 1700300000;

	ant_trust_limits_load(s, &l);
	for (int i = 0; i < 10; i++) {
		ant_store_trust_claim(s, src, page, t + 100 * i + 1, t + 100 * i, NULL);
		ant_store_trust_judge(s, page, i % 2, 0, t + 100 * i + 1, t + 100 * i + 50, NULL);
	}
	sc = score(s, src, 1);
	OK(sc.scored && sc.confirmed == 5 && sc.refuted == 5 && sc.precision == 50,
	   "threshold: 5 of 10 confirmed score 50%% (got %d)", sc.precision);
	IS_INT(ant_trust_holds(&l, 1, &sc), 0, "threshold: a relay at exactly --trust-relay 50 is not held");
	ant_store_trust_claim(s, src, page, t + 2001, t + 2000, NULL);
	ant_store_trust_judge(s, page, 0, 0, t + 2001, t + 2050, NULL);
	sc = score(s, src, 1);
	OK(sc.precision == 45, "threshold: one more refuted: 5 of 11, 45%% (got %d)", sc.precision);
	IS_INT(ant_trust_holds(&l, 1, &sc), 1, "threshold: below it, held back");
	IS_INT(ant_trust_holds(&l, 0, &sc), 0, "threshold: a source that is not a relay never");
	l.relay_min = 45;
	IS_INT(ant_trust_holds(&l, 1, &sc), 0, "threshold: --trust-relay 45: 45%% is not held");
}

/* The limits come from the config, over the defaults. */
static void limits(ant_store *s, int64_t src)
{
	ant_trust_limits l;

	ant_trust_limits_load(s, &l);
	OK(l.hint_min == ANT_TRUST_HINT_MIN && l.relay_min == ANT_TRUST_RELAY_MIN &&
	   l.min_claims == ANT_TRUST_MIN_CLAIMS, "limits: the defaults");
	ant_setting_set_int(s, ANT_SET_TRUST_HINT, 0, NULL);
	ant_setting_set_int(s, ANT_SET_TRUST_CLAIMS, 50, NULL);
	ant_trust_limits_load(s, &l);
	OK(l.hint_min == 0 && l.min_claims == 50, "limits: init's settings");
	OK(score(s, src, 1).hints && !score(s, src, 1).scored,
	   "limits: fewer claims than --trust-claims: unscored");
}

int main(void)
{
	char path[256];
	ant_store *s;
	int64_t liar_id, honest_id, edge_id, pa, pb, pc;

	TAP_PLAN(28);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/a.db", dir);
	t_db_map(path, sizeof path);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, NULL) < 0)
		return 1;
	liar_id = source_new(s, "http://liar.example/lirs.gz", 1);
	honest_id = source_new(s, "http://honest.example/lirs.gz", 1);
	pa = page_new(s, "http://a.example/");
	pb = page_new(s, "http://b.example/");
	edge_id = source_new(s, "http://edge.example/lirs.gz", 1);
	pc = page_new(s, "http://c.example/");
	liar(s, liar_id, pa);
	honest(s, honest_id, pb);
	window(s, liar_id, pa);
	threshold(s, edge_id, pc);
	limits(s, honest_id);
	ant_store_close(s);
	unlink(path);
	rmdir(dir);
	TAP_DONE();
}
