/*
 * t_detect.c: the update decision and the schedule, rule by rule.
 */
#include "tap.h"

#include "ant_detect.h"
#include "ant_noise.h"

#include <stdlib.h>
#include <string.h>

static size_t diag_len;

#define T0 1700000000

/* A successful 200 answer. */
static ant_detect_input ok200(uint64_t hash, int64_t lm, int64_t date)
{
	ant_detect_input in = { .status = 200, .lm_time = lm, .date_time = date,
			    .content_length = -1, .body_len = 1000, .has_hash = 1,
			    .text_hash = hash };
	return in;
}

static void first_check(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, T0 - 5000, T0);

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0, &out);
	OK(out.first && !out.updated, "a new page's first check is a quiet baseline, no update");
	IS_INT(st.last_modified, T0 - 5000, "first check takes a trusted Last-Modified");
	IS_STR(st.detected_by, "header", "first check with a trusted header: header");
	IS_INT(st.last_detected, T0, "last detected is the check time");

	ant_detect_state_init(&st);
	in = ok200(1, T0, T0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated, "first check with an untrusted header: no update");
	IS_INT(st.last_modified, 0, "first check: Last-Modified == Date is not trusted, the time stays unknown");
	OK(st.detected_by == NULL, "first check without a trusted header has no rule");
	IS_INT(st.lm_header_time, 0, "an untrusted header is not remembered");

	ant_detect_state_init(&st);
	in = ok200(1, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	IS_INT(st.last_modified, 0, "first check without Last-Modified: unknown, never 'now'");
	IS_INT(st.interval, ANT_DETECT_MIN_INTERVAL, "  checked again in 5 minutes");
	ant_detect_apply(&st, &in, T0 + 300, &out);
	IS_INT(st.interval, 2 * ANT_DETECT_MIN_INTERVAL, "  unchanged with an unknown time: the interval doubles");
	in = ok200(2, 0, 0);
	ant_detect_apply(&st, &in, T0 + 900, &out);
	OK(out.updated && st.last_modified == T0 + 900, "  the next real change is an update at its check");
}

static void rules(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, T0 - 5000, T0);

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0, &out);

	in = ok200(1, T0 - 5000, T0 + 600);
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(!out.updated && out.unchanged, "same header, same text: unchanged");
	IS_INT(st.last_modified, T0 - 5000, "unchanged keeps the update time");

	in = ok200(2, T0 + 1000, T0 + 1200);
	ant_detect_apply(&st, &in, T0 + 1200, &out);
	OK(out.updated, "newer Last-Modified: updated");
	IS_STR(out.rule, "header", "rule: header");
	IS_INT(st.last_modified, T0 + 1000, "header rule takes the header's time");

	/* a rebuilt static site: a new Last-Modified on the same text */
	in = ok200(2, T0 + 1500, T0 + 1600);
	ant_detect_apply(&st, &in, T0 + 1600, &out);
	OK(!out.updated && out.unchanged, "newer Last-Modified, same text: no update");
	IS_INT(st.last_modified, T0 + 1000, "... the update time kept");
	IS_INT(st.lm_header_time, T0 + 1500, "... the header remembered");

	in = ok200(3, T0 + 1800, T0 + 1800);
	ant_detect_apply(&st, &in, T0 + 1800, &out);
	IS_STR(out.rule, "text", "Last-Modified == Date (dynamic) falls through to the text rule");
	IS_INT(st.last_modified, T0 + 1800, "text rule: update time = detection time");
	IS_INT(st.last_detected, T0 + 1800, "last detected = check time");

	in = ok200(3, T0 + 2400, T0 + 2400);
	in.body_len = 5000;
	ant_detect_apply(&st, &in, T0 + 2400, &out);
	OK(!out.updated, "same text, other size (ignored part, charset flip): not an update");

	in = ok200(0, 0, 0);
	in.has_hash = 0;
	in.body_len = 100;
	ant_detect_apply(&st, &in, T0 + 3000, &out);
	IS_STR(out.rule, "size", "no text checksum and another length: size");
	in.content_length = 100;
	ant_detect_apply(&st, &in, T0 + 3600, &out);
	OK(!out.updated, "same Content-Length: unchanged");
	in.content_length = 120;
	ant_detect_apply(&st, &in, T0 + 4200, &out);
	IS_STR(out.rule, "size", "another Content-Length: size");
	IS_INT(st.last_modified, T0 + 4200, "size rule: update time = detection time");
}

static void not_modified_and_errors(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, T0 - 100000, T0);
	ant_detect_input e = { .failed = 1, .status = 404 };

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0, &out);
	in = (ant_detect_input){ .status = 304, .content_length = -1 };
	ant_detect_apply(&st, &in, T0 + 900, &out);
	OK(out.unchanged && !out.updated, "304: unchanged");
	IS_INT(st.last_detected, T0 + 900, "304: last detected refreshed");
	IS_INT(st.text_hash, 1, "304 keeps the checksum");

	ant_detect_apply(&st, &e, T0 + 1000, &out);
	IS_INT(st.error_count, 1, "an error counts");
	IS_INT(st.last_modified, T0 - 100000, "an error keeps the update time");
	IS_INT(st.last_detected, T0 + 900, "an error keeps last detected");
	IS_INT(st.text_hash, 1, "an error keeps the checksum");
	IS_INT(st.last_status, 404, "an error records the status");
	int64_t d1 = st.next_check - (T0 + 1000);
	ant_detect_apply(&st, &e, T0 + 2000, &out);
	int64_t d2 = st.next_check - (T0 + 2000);
	ant_detect_apply(&st, &e, T0 + 3000, &out);
	int64_t d3 = st.next_check - (T0 + 3000);
	OK(d1 >= ANT_DETECT_MIN_INTERVAL && d3 <= ANT_DETECT_MAX_INTERVAL, "back-off within [5 min, 24 h]");
	OK(d2 >= d1 && d3 >= d2, "back-off grows after consecutive errors");

	e = (ant_detect_input){ .failed = 1, .status = 429, .retry_after = 7200 };
	ant_detect_state_init(&st);
	ant_detect_apply(&st, &e, T0, &out);
	IS_INT(st.next_check, T0 + 7200, "429 Retry-After honoured");
	e.retry_after = 30 * 86400;
	ant_detect_apply(&st, &e, T0, &out);
	IS_INT(st.next_check, T0 + ANT_DETECT_MAX_RETRY_AFTER, "a huge Retry-After is capped");

	in = ok200(5, 0, 0);
	ant_detect_apply(&st, &in, T0 + 10, &out);
	IS_INT(st.error_count, 0, "a success clears the error count");
}

static void schedule(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
	OK(ant_detect_due(&st, T0, 0), "a new page is due");
	ant_detect_apply(&st, &in, T0 - 600, &out);   /* the baseline */
	in = ok200(2, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	IS_INT(st.interval, ANT_DETECT_MIN_INTERVAL, "just changed: 5 min interval");
	OK(!ant_detect_due(&st, T0 + 60, 0), "not due before its interval");
	OK(ant_detect_due(&st, T0 + 60, 1), "--force makes it due");
	OK(ant_detect_due(&st, T0 + 300, 0), "due when the interval has passed");
	ant_detect_apply(&st, &in, T0 + 3 * 3600, &out);
	IS_INT(st.interval, 3 * 3600, "interval ~ time since the last change");
	ant_detect_apply(&st, &in, T0 + 40 * 3600, &out);
	IS_INT(st.interval, ANT_DETECT_MAX_INTERVAL, "interval at most 24 h");
}

static void relay(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0 - 600, &out);   /* the baseline */
	in = ok200(4, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!ant_detect_relay(&st, T0 - 10, T0, T0 + 100), "an older relayed update loses");
	OK(ant_detect_relay(&st, T0 + 50, T0 + 60, T0 + 100), "a newer relayed update wins");
	IS_STR(st.detected_by, "lirs", "detected by lirs");
	IS_INT(st.last_modified, T0 + 50, "relayed update time");
	OK(st.recheck && ant_detect_due(&st, T0 + 100, 0), "a relayed update asks for a re-check");
	in = ok200(2, 0, 0);
	ant_detect_apply(&st, &in, T0 + 120, &out);
	OK(!out.updated, "the re-check's text change is the relayed update, not a new one");
	IS_STR(st.detected_by, "lirs", "still detected by lirs");
	OK(!st.recheck, "the re-check clears the flag");
	in = ok200(3, 0, 0);
	ant_detect_apply(&st, &in, T0 + 1000, &out);
	IS_STR(out.rule, "text", "a later change is our own again");
}

/* antenna import: an imported page's first check is a baseline. */
static void imported(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in;

	ant_detect_state_init(&st);
	st.quiet_first = 1;
	in = ok200(1, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated, "imported, no time: the first check is no update");
	IS_INT(st.last_modified, 0, "imported, no time: stays unknown, not 'now'");
	in = ok200(2, 0, 0);
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(out.updated && st.last_modified == T0 + 600, "imported: the next text change is an update");

	ant_detect_state_init(&st);
	st.quiet_first = 1;
	in = ok200(1, T0 - 5000, T0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated, "imported, no time: a trusted Last-Modified is learnt without an event");
	IS_INT(st.last_modified, T0 - 5000, "imported, no time: the header's time is taken");

	ant_detect_state_init(&st);
	st.quiet_first = 1;
	st.last_modified = T0 - 9000;   /* from the old antenna's LIRS file */
	st.detected_by = "lirs";
	in = ok200(1, T0 - 9000, T0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated && st.last_modified == T0 - 9000, "imported time = Last-Modified: no update");
	ant_detect_state_init(&st);
	st.quiet_first = 1;
	st.last_modified = T0 - 9000;
	in = ok200(1, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated && st.last_modified == T0 - 9000, "imported time, no validators: kept");
	ant_detect_state_init(&st);
	st.quiet_first = 1;
	st.last_modified = T0 - 9000;
	in = ok200(1, T0 - 100, T0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(out.updated && st.last_modified == T0 - 100, "imported time, newer Last-Modified: a real update");
}

/* The --max-future rule judges the page's own headers. */
#define Y9999 253402300799LL   /* Fri, 31 Dec 9999 23:59:59 GMT */
#define Y2100 4102444800LL     /* Fri, 01 Jan 2100 00:00:00 GMT */
#define Y2101 4133980800LL     /* Sat, 01 Jan 2101 00:00:00 GMT */

static void future_headers(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in;

	OK(!ant_detect_lm_trusted(Y9999, 0, T0), "Last-Modified 9999, no Date: not trusted");
	OK(!ant_detect_lm_trusted(Y2100, Y2101, T0),
	   "server clock ahead (Date 2101, Last-Modified 2100): not trusted");
	OK(!ant_detect_lm_trusted(T0 + 100, T0 + 4000, T0),
	   "Date over max-future ahead: its Last-Modified is judged against our clock");
	OK(ant_detect_lm_trusted(T0 - 100, T0 + 4000, T0), "... and a past one is still trusted");
	OK(ant_detect_lm_trusted(T0 + 1800, T0 + 3000, T0), "a clock a little ahead (within max-future): trusted");
	OK(!ant_detect_lm_believable(T0 + 100, T0 + 200, T0, 60), "max_future 60: Date 200 s ahead, not trusted");
	OK(ant_detect_lm_believable(Y2100, Y2101, T0, -1), "max_future < 0: the rule is off");

	ant_detect_state_init(&st);
	in = ok200(1, Y2100, Y2101);
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated && st.last_modified == 0, "Date 2101 / Last-Modified 2100: first check, time unknown");
	OK(st.detected_by == NULL && st.lm_header_time == 0, "... not \"by header\", not remembered");
	in = ok200(2, Y2100 + 10, Y2101 + 10);
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(out.updated && st.last_modified == T0 + 600, "... a change later is found by the text");
	IS_STR(st.detected_by, "text", "... by the text rule");

	ant_detect_state_init(&st);
	in = ok200(1, Y9999, 0);
	in.date_time = 0;
	ant_detect_apply(&st, &in, T0, &out);
	OK(st.last_modified == 0 && st.detected_by == NULL, "Last-Modified 9999 without Date: not taken");

	/* a state an older version left: last_modified and header in 9999 */
	ant_detect_state_init(&st);
	st.last_ok = st.last_check = st.last_detected = T0 - 600;
	st.last_modified = st.lm_header_time = Y9999;
	st.detected_by = "header";
	st.has_hash = 1;
	st.text_hash = 1;
	in = ok200(1, Y9999, 0);
	ant_detect_apply(&st, &in, T0, &out);
	OK(st.last_modified == 0 && st.lm_header_time == 0 && !out.updated,
	   "a kept 9999 is forgotten at the next check");
	in = ok200(2, T0 + 500, T0 + 600);
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(out.updated && st.last_modified == T0 + 500, "... and a true Last-Modified wins again");
}

/* ---- the noise-proof text rule ---- */

#define BIG 0xB16u       /* the main text's block */
#define SIDE 0x51DEu     /* a small widget */
#define AD 0xADu
#define MENU 0x3E7u

static ant_detect_seg S(uint32_t block, uint32_t norm, uint32_t len)
{
	return (ant_detect_seg){ block, norm, len, NULL };
}

/* A page: 10 paragraphs of the main text, a menu of 4, a quote and an ad. */
static size_t page(ant_detect_seg *v, uint32_t quote, uint32_t ad, uint32_t extra)
{
	size_t n = 0;

	if (extra)
		v[n++] = S(BIG, extra, 200);
	for (uint32_t i = 0; i < 10; i++)
		v[n++] = S(BIG, 100 + i, 200);
	for (uint32_t i = 0; i < 4; i++)
		v[n++] = S(MENU, 200 + i, 20);
	v[n++] = S(SIDE, quote, 60);
	v[n++] = S(AD, ad, 40);
	return n;
}

static int picked(const ant_detect_verdict *v, const ant_detect_seg *s, size_t n, uint32_t norm)
{
	for (size_t i = 0; i < n; i++)
		if (v->pick && v->pick[i] && s[i].norm == norm)
			return 1;
	return 0;
}

static size_t npicked(const ant_detect_verdict *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; v->pick && i < n; i++)
		k += v->pick[i];
	return k;
}

/* Two answers that differ in a block, at two checks half an hour apart:
 * the first race holds it back, the second learns it (ant_detect.h). */
static void decide_raced(ant_detect_noise *ns, const ant_detect_seg *a, size_t na, const ant_detect_seg *b,
			 size_t nb, int64_t now, ant_detect_verdict *v)
{
	ant_detect_noise_decide(ns, a, na, b, nb, 1, now - 1800, v);
	ant_detect_verdict_release(v);
	ant_detect_noise_decide(ns, a, na, b, nb, 1, now, v);
}

/* One answer taken in, nothing asked of the verdict: the state a test
 * then goes on from. */
static void take_first(ant_detect_noise *ns, const ant_detect_seg *a, size_t n, int64_t now)
{
	ant_detect_verdict v;

	ant_detect_noise_decide(ns, a, n, NULL, 0, 1, now, &v);
	ant_detect_verdict_release(&v);
}

static void noise_order_and_removal(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[32], b[32];
	size_t na, nb;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	ant_detect_noise_scan(&ns, a, na, 1, T0, &v);
	OK(v.baseline && !v.refetch, "noise: no multiset yet: a baseline, no re-fetch");
	OK(ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0, &v) == 0 && v.baseline && !v.updated,
	   "noise: the first check is a baseline");
	ant_detect_verdict_release(&v);
	/* the same items in another order */
	for (size_t i = 0; i < na; i++)
		b[i] = a[na - 1 - i];
	ant_detect_noise_scan(&ns, b, na, 1, T0, &v);
	OK(!v.news && !v.refetch, "noise: same items in another order: no news");
	ant_detect_noise_decide(&ns, b, na, NULL, 0, 1, T0 + 3600, &v);
	OK(!v.updated && !v.news, "noise: reordered: no update");
	ant_detect_verdict_release(&v);
	/* removals alone */
	nb = page(b, 1, 1, 0) - 3;   /* menu items 3, quote and ad gone */
	ant_detect_noise_decide(&ns, b, nb, NULL, 0, 1, T0 + 7200, &v);
	OK(!v.updated && !v.news, "noise: items that disappeared alone: no update");
	ant_detect_verdict_release(&v);
	/* a new paragraph in the main text */
	na = page(a, 1, 1, 999);
	ant_detect_noise_scan(&ns, a, na, 1, T0, &v);
	OK(v.news && !v.refetch, "noise: news in the main text: no re-fetch (it cannot be volatile)");
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 10800, &v);
	OK(v.updated && picked(&v, a, na, 999), "noise: a new paragraph: update, in the excerpt");
	ant_detect_verdict_release(&v);
	/* a duplicate of an existing paragraph is new too (a multiset) */
	a[0] = S(BIG, 105, 200);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 14400, &v);
	OK(v.updated && npicked(&v, na) == 1, "noise: one more copy of a known text: new, once");
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 18000, &v);
	OK(!v.updated, "noise: announced once: the next check is quiet");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

static void noise_refetch(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[32], b[32];
	size_t na, nb;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, T0);
	/* an ad that changes on every request */
	na = page(a, 1, 2, 0);
	ant_detect_noise_scan(&ns, a, na, 1, T0, &v);
	OK(v.news && v.refetch, "re-fetch: news in a small block only: fetch again");
	ant_detect_noise_scan(&ns, a, na, 0, T0, &v);
	OK(!v.refetch, "re-fetch: never with --no-auto-ignore");
	nb = page(b, 1, 3, 0);
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 1800, &v);
	OK(!v.updated && v.nlearned == 0 && v.held, "re-fetch: a block that differs once is held back, not learned");
	ant_detect_verdict_release(&v);
	na = page(a, 1, 2, 0);
	nb = page(b, 1, 4, 0);
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 3600, &v);
	OK(!v.updated && v.nlearned == 1 && v.learned[0] == AD, "re-fetch: differing again, it is learned, no update");
	ant_detect_verdict_release(&v);
	OK(ant_detect_noise_find(&ns, AD) && ant_detect_noise_find(&ns, AD)->how == ANT_NOISE_REFETCH &&
	   ant_detect_noise_find(&ns, AD)->since == T0 + 3600, "re-fetch: how and since are kept");
	ant_detect_noise_label(&ns, AD, "body>div#wrapper>div#container>div#sidebar>div.module>div.module-body>div.ad>p",
			       "PR: \xe8\xbb\xa2\xe8\x81\xb7\xe3\x81\xaa\xe3\x82\x89\xe4\xbb\x8a\xe3\x81\x99\xe3\x81\x90\xe7\x99\xbb\xe9\x8c\xb2 "
			       "\xe8\xbb\xa2\xe8\x81\xb7\xe3\x81\xaa\xe3\x82\x89\xe4\xbb\x8a\xe3\x81\x99\xe3\x81\x90\xe7\x99\xbb\xe9\x8c\xb2 and a long tail");
	{
		const ant_detect_vblock *vb = ant_detect_noise_find(&ns, AD);
		size_t pl = strlen(vb->path);
		OK(pl < ANT_NOISE_PATH && strncmp(vb->path, "\xe2\x80\xa6", 3) == 0 &&
		   strcmp(vb->path + pl - 10, "div.ad>p") != 0 && strstr(vb->path, "div.ad>p"),
		   "label: a long path keeps its end (%s)", vb->path);
		OK(strlen(vb->sample) < ANT_NOISE_SAMPLE && strncmp(vb->sample, "PR: ", 4) == 0 &&
		   (((unsigned char)vb->sample[strlen(vb->sample) - 1] & 0xC0) != 0x80 ||
		    (unsigned char)vb->sample[strlen(vb->sample) - 3] >= 0xE0),
		   "label: a long text keeps its start, whole characters (%s)", vb->sample);
	}
	na = page(a, 1, 4, 0);
	ant_detect_noise_scan(&ns, a, na, 1, T0, &v);
	OK(!v.news && !v.refetch, "re-fetch: a volatile block is not fetched again for");
	/* a real update with the ad changing: found, the excerpt without the ad */
	na = page(a, 1, 5, 777);
	nb = page(b, 1, 6, 777);
	ant_detect_noise_scan(&ns, a, na, 1, T0, &v);
	OK(!v.refetch, "re-fetch: news in the main text: none");
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 7200, &v);
	OK(v.updated && npicked(&v, na) == 1 && picked(&v, a, na, 777), "update beside a volatile block: excerpt is the new text only");
	ant_detect_verdict_release(&v);
	/* --no-auto-ignore: a stable small change is an update at once */
	na = page(a, 9, 5, 777);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 0, T0 + 10800, &v);
	OK(v.updated && picked(&v, a, na, 9), "no-auto-ignore: a small change is an update at once");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

/* A race: the author saved between the two answers of a check.  Held back
 * for the check, announced at the next when it shows what the second
 * answer showed; a widget that changes again is learned instead; a
 * learned block steady for ANT_NOISE_UNLEARN is unlearned. */
static void noise_race(void)
{
	ant_detect_noise ns, back;
	ant_detect_verdict v;
	ant_detect_seg a[32], b[32];
	size_t na, nb;
	unsigned char *blob;
	size_t len;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, T0);
	na = page(a, 1, 1, 0);
	nb = page(b, 5, 1, 0);   /* the quote edited between the two requests */
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 3600, &v);
	OK(!v.updated && !v.nlearned && v.held, "race: held back for the check, not learned");
	ant_detect_verdict_release(&v);
	OK(ant_detect_noise_encode(&ns, &blob, &len) == 0 && ant_detect_noise_decode(&back, blob, len) == 0 &&
	   back.nsus == ns.nsus && back.nsus && back.sus[0].raced == T0 + 3600 &&
	   back.sus[0].raced_sig == ns.sus[0].raced_sig, "race: kept in the blob");
	free(blob);
	ant_detect_noise_release(&back);
	na = page(a, 5, 1, 0);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 7200, &v);
	OK(v.updated && picked(&v, a, na, 5) && !ant_detect_noise_find(&ns, SIDE),
	   "race: the next check shows what the second answer did: an update, not learned");
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 10800, &v);
	OK(!v.updated, "race: announced once");
	ant_detect_verdict_release(&v);
	/* a widget: differs between the answers, then shows a third text */
	na = page(a, 5, 2, 0);
	nb = page(b, 5, 3, 0);
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 14400, &v);
	ant_detect_verdict_release(&v);
	na = page(a, 5, 4, 0);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 18000, &v);
	OK(!v.updated && ant_detect_noise_find(&ns, AD), "race: a widget that changed again is learned, no update");
	ant_detect_verdict_release(&v);
	/* steady from then on: unlearned after ANT_NOISE_UNLEARN */
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 21600, &v);
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 18000 + ANT_NOISE_UNLEARN - 1, &v);
	OK(ant_detect_noise_find(&ns, AD) && !v.nunlearned, "unlearn: not before ANT_NOISE_UNLEARN");
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 18000 + ANT_NOISE_UNLEARN, &v);
	OK(!ant_detect_noise_find(&ns, AD) && v.nunlearned == 1 && !v.updated,
	   "unlearn: a learned block steady for ANT_NOISE_UNLEARN is unlearned, no update");
	ant_detect_verdict_release(&v);
	na = page(a, 5, 9, 0);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, T0 + 25200 + ANT_NOISE_UNLEARN, &v);
	OK(v.news || v.held || v.updated, "unlearn: its change counts again");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

/* A page of words and a table of counts (texts known, so norms are the rule's). */
#define TABLE 0x7AB1Eu
static size_t counts_page(ant_detect_seg *v, const char *const *cells, size_t ncells)
{
	static const char *const words[] = { "Statistics of the club's web site, rebuilt every hour.",
					     "Visitors by hour of the day, and the traffic they made.",
					     "Hosts that visited the site most, and when they last came." };
	size_t n = 0;

	for (size_t i = 0; i < 3; i++)
		v[n++] = (ant_detect_seg){ BIG, ant_noise_hash(words[i], strlen(words[i])), (uint32_t)strlen(words[i]),
					   words[i] };
	for (size_t i = 0; i < ncells; i++)
		v[n++] = (ant_detect_seg){ TABLE, ant_noise_hash(cells[i], strlen(cells[i])), (uint32_t)strlen(cells[i]),
					   cells[i] };
	return n;
}

/* A table's empty cell filled with a count of a shape it shows already
 * ("0" to "29.29 KB" beside "12.50 KB") is its counters moving; a new
 * shape of count, or words, is news. */
static void noise_counters(void)
{
	static const char *const c0[] = { "22", "0", "12.50 KB", "(2.25 visits/visitor)", "Total" };
	static const char *const c1[] = { "22", "29.29 KB", "12.50 KB", "(2.25 visits/visitor)", "Total" };
	static const char *const c2[] = { "22", "29.29 KB", "12.50 KB", "(3.25 visits/visitor)", "(1.5 visits/visitor)" };
	static const char *const c3[] = { "22", "29.29 KB", "12.50 KB", "(3.25 visits/visitor)", "3 new members" };
	static const char *const c4[] = { "22", "29.29 KB", "12.50 KB", "(3.25 visits/visitor)", "3 new members", "7 MB" };
	static const char *const c5[] = { "22", "29.29 KB", "12.50 KB", "(3.25 visits/visitor)", "3 new members", "7 MB", "0" };
	static const char *const c6[] = { "22", "29.29 KB", "12.50 KB", "(3.25 visits/visitor)", "3 new members", "7 MB",
					  "550 Bytes" };
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[16];
	size_t na;
	int64_t t = T0;

	ant_detect_noise_init(&ns);
	na = counts_page(a, c0, 5);
	take_first(&ns, a, na, t);
	na = counts_page(a, c1, 5);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	OK(!v.updated && !v.news, "counters: an empty cell filled with a count of a shape the table shows: no news");
	ant_detect_verdict_release(&v);
	na = counts_page(a, c2, 5);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	OK(!v.updated && !v.news, "counters: a word cell become a count in parentheses of a shape shown: no news");
	ant_detect_verdict_release(&v);
	na = counts_page(a, c3, 5);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	OK(v.updated && picked(&v, a, na, ant_noise_hash("3 new members", 13)), "counters: words are news");
	ant_detect_verdict_release(&v);
	na = counts_page(a, c4, 6);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	OK(v.updated, "counters: a count of a shape the table never showed is news");
	ant_detect_verdict_release(&v);
	na = counts_page(a, c5, 7);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	ant_detect_verdict_release(&v);
	na = counts_page(a, c6, 7);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t += 3600, &v);
	OK(!v.updated && !v.news, "counters: a bare number become a count with a unit never shown (\"0\" to \"550 Bytes\"): no news");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

/* A small part that changes only with the rest of the page's news (a code
 * browser's latest commit message beside its new author and hash) is that
 * news: never learned then, kept aside for the excerpt; a widget is
 * learned at its next swap alone. */
static void noise_swaps_with_news(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[32];
	size_t na;
	int64_t t = T0;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, t);
	for (uint32_t c = 0; c < 3; c++) {
		na = page(a, 2 + c, 1, 500 + c);
		t += 3600;
		ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t, &v);
		OK(v.updated && picked(&v, a, na, 500 + c) && !picked(&v, a, na, 2 + c) && v.aside &&
			   v.aside[na - 2] && !ant_detect_noise_find(&ns, SIDE),
		   "swap with news %u: announced with it, kept aside for the excerpt, not learned", c);
		ant_detect_verdict_release(&v);
	}
	na = page(a, 9, 1, 502);
	t += 3600;
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t, &v);
	OK(!v.updated && ant_detect_noise_find(&ns, SIDE), "swap alone after those: a widget, learned");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

static void noise_across_checks(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[32];
	size_t na;
	int64_t t = T0;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, t);
	/* a quote of the day: the same within a check, another at the next */
	na = page(a, 2, 1, 0);
	t += 3600;
	ant_detect_noise_decide(&ns, a, na, a, na, 1, t, &v);
	OK(!v.updated && v.held, "quote: a small swap is held, not announced");
	ant_detect_verdict_release(&v);
	na = page(a, 3, 1, 0);
	t += 3600;
	ant_detect_noise_decide(&ns, a, na, a, na, 1, t, &v);
	OK(!v.updated && v.nlearned == 1 && ant_detect_noise_find(&ns, SIDE)->how == ANT_NOISE_CHECKS,
	   "quote: swapped again at the next check: volatile");
	ant_detect_verdict_release(&v);
	for (uint32_t q = 4; q < 8; q++) {
		na = page(a, q, 1, 0);
		t += 3600;
		ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t, &v);
		OK(!v.updated && !v.news, "quote %u: no update", q);
		ant_detect_verdict_release(&v);
	}
	ant_detect_noise_release(&ns);

	/* the same swaps in a part the operator named (ANT_DETECT_WATCHED):
	 * news in their own check, each time, never learned */
	ant_detect_noise_init(&ns);
	t = T0;
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, t);
	for (uint32_t q = 2; q < 5; q++) {
		na = page(a, q, 1, 0);
		t += 3600;
		ant_detect_noise_decide(&ns, a, na, a, na, 1 | ANT_DETECT_WATCHED, t, &v);
		OK(v.updated && !v.held && !v.nlearned && npicked(&v, na) >= 1,
		   "watched: swap %u announced in its check, not held or learned", q);
		ant_detect_verdict_release(&v);
	}
	ant_detect_noise_release(&ns);

	/* a small real edit: held, then confirmed by a check that finds it unchanged */
	ant_detect_noise_init(&ns);
	t = T0;
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, t);
	na = page(a, 50, 1, 0);
	ant_detect_noise_decide(&ns, a, na, a, na, 1, t + 3600, &v);
	OK(!v.updated && v.held, "small edit: held");
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t + 7200, &v);
	OK(v.updated && v.since == t + 3600 && npicked(&v, na) == 1 && picked(&v, a, na, 50),
	   "small edit: unchanged at the next check: an update dated when first seen, its text the excerpt");
	ant_detect_verdict_release(&v);
	ant_detect_noise_decide(&ns, a, na, NULL, 0, 1, t + 10800, &v);
	OK(!v.updated, "small edit: announced once");
	ant_detect_verdict_release(&v);
	/* back to a text it showed before: a rotation */
	na = page(a, 1, 1, 0);
	ant_detect_noise_decide(&ns, a, na, a, na, 1, t + 14400, &v);
	OK(!v.updated && ant_detect_noise_find(&ns, SIDE), "a block back to a text it showed: volatile");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

static void noise_cap(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[4], b[4];
	int updates = 0;

	/* a page that is one block changing on every check and request */
	ant_detect_noise_init(&ns);
	a[0] = S(BIG, 1, 500);
	a[1] = S(MENU, 2, 20);
	take_first(&ns, a, 2, T0);
	for (uint32_t i = 0; i < 6; i++) {
		a[0] = S(BIG, 10 + 2 * i, 500);
		b[0] = S(BIG, 11 + 2 * i, 500);
		b[1] = a[1];
		ant_detect_noise_decide(&ns, a, 2, b, 2, 1, T0 + 3600 * (i + 1), &v);
		updates += v.updated;
		ant_detect_verdict_release(&v);
	}
	IS_INT(ns.nvol, 0, "cap: the main text is never learned volatile");
	/* the differing answers hide the news: that page is the one caveat
	 * (its text differs per request); with equal answers it is news */
	for (uint32_t i = 0; i < 6; i++) {
		a[0] = S(BIG, 100 + i, 500);
		ant_detect_noise_decide(&ns, a, 2, a, 2, 1, T0 + 86400 + 3600 * i, &v);
		updates += v.updated;
		ant_detect_verdict_release(&v);
	}
	IS_INT(updates, 6, "cap: a page whose main text changes on every check is announced every time");
	ant_detect_noise_release(&ns);
}

/* ---- the cap on learned noise (ANT_NOISE_VOLATILE_PCT, 40%) ----
 * Pages of 1,000 bytes: the main text and widgets of the sizes the cap
 * tells apart.  Each test also names the figure that would let a wrong
 * cap through: 35% is learned (a cap under 35 fails), 45% is not, nor are
 * two 25% blocks together (a cap over 45, or one per block, fails). */

#define W1 0x3101u
#define W2 0x3102u
#define W3 0x3103u

/* The main text (main bytes in 10 segments) and the widgets wlen[k] bytes
 * long, one segment each, showing text wnorm[k]. */
static size_t cap_page(ant_detect_seg *v, uint32_t main, const uint32_t *wblock, const uint32_t *wlen,
		       const uint32_t *wnorm, size_t nw)
{
	size_t n = 0;

	for (uint32_t i = 0; i < 10; i++)
		v[n++] = S(BIG, 100 + i, main / 10);
	for (size_t k = 0; k < nw; k++)
		v[n++] = S(wblock[k], wnorm[k], wlen[k]);
	return n;
}

/* A widget of pct percent of the page, other text in each of two answers. */
static void cap_one(uint32_t pct, int learned)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[16], b[16];
	uint32_t blk[1] = { W1 }, len[1] = { 10 * pct }, t1[1] = { 1 }, t2[1] = { 2 }, t3[1] = { 3 };
	size_t na, nb;

	ant_detect_noise_init(&ns);
	na = cap_page(a, 1000 - len[0], blk, len, t1, 1);
	take_first(&ns, a, na, T0);
	na = cap_page(a, 1000 - len[0], blk, len, t2, 1);
	nb = cap_page(b, 1000 - len[0], blk, len, t3, 1);
	ant_detect_noise_scan(&ns, a, na, 1, T0 + 3600, &v);
	OK(v.news && v.refetch == learned, "cap: a %u%% widget that changed: %s", pct,
	   learned ? "may be noise, fetch again" : "too big to be noise, no re-fetch");
	decide_raced(&ns, a, na, b, nb, T0 + 3600, &v);
	OK(!v.updated && (ant_detect_noise_find(&ns, W1) != NULL) == learned &&
	   v.nlearned == (size_t)learned,
	   "cap: a %u%% widget that differs between two answers: %s", pct,
	   learned ? "learned volatile" : "not learned (its differing text alone is no news)");
	ant_detect_verdict_release(&v);
	/* the next change, the same in both answers */
	na = cap_page(a, 1000 - len[0], blk, len, (uint32_t[]){ 4 }, 1);
	ant_detect_noise_decide(&ns, a, na, a, na, 1, T0 + 7200, &v);
	OK(v.updated != learned, "cap: the %u%% widget changes again: %s", pct,
	   learned ? "no update (volatile)" : "an update (the widget is page text)");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

/* Widgets of 25% each: one is learned, the next would make 50%. */
static void cap_blocks(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[16], b[16];
	uint32_t blk[3] = { W1, W2, W3 }, len[3] = { 250, 250, 250 };
	uint32_t t[3] = { 1, 1, 1 }, u[3] = { 2, 2, 2 }, w[3] = { 3, 3, 3 };
	size_t na, nb;

	/* all three differ between the answers of one check */
	ant_detect_noise_init(&ns);
	na = cap_page(a, 250, blk, len, t, 3);
	take_first(&ns, a, na, T0);
	na = cap_page(a, 250, blk, len, u, 3);
	nb = cap_page(b, 250, blk, len, w, 3);
	decide_raced(&ns, a, na, b, nb, T0 + 3600, &v);
	OK(!v.updated && v.nlearned == 1 && ns.nvol == 1 && ant_detect_noise_find(&ns, W1) &&
	   !ant_detect_noise_find(&ns, W2) && !ant_detect_noise_find(&ns, W3),
	   "cap: three 25%% widgets in one check: the first is learned, 50%% would pass the cap");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);

	/* one at a time, check after check: the cap counts what is learned already */
	ant_detect_noise_init(&ns);
	na = cap_page(a, 250, blk, len, t, 3);
	take_first(&ns, a, na, T0);
	t[0] = 2;
	na = cap_page(a, 250, blk, len, t, 3);
	nb = cap_page(b, 250, blk, len, (uint32_t[]){ 3, 1, 1 }, 3);
	decide_raced(&ns, a, na, b, nb, T0 + 3600, &v);
	OK(!v.updated && v.nlearned == 1 && ant_detect_noise_find(&ns, W1),
	   "cap: a 25%% widget alone: learned");
	ant_detect_verdict_release(&v);
	t[1] = 2;
	na = cap_page(a, 250, blk, len, t, 3);
	nb = cap_page(b, 250, blk, len, (uint32_t[]){ 5, 3, 1 }, 3);
	ant_detect_noise_scan(&ns, a, na, 1, T0 + 7200, &v);
	OK(v.news && !v.refetch, "cap: a second 25%% widget would make 50%%: no re-fetch");
	ant_detect_noise_decide(&ns, a, na, b, nb, 1, T0 + 7200, &v);
	OK(v.nlearned == 0 && ns.nvol == 1 && !ant_detect_noise_find(&ns, W2),
	   "cap: ... and not learned from differing answers");
	ant_detect_verdict_release(&v);
	t[1] = 4;
	na = cap_page(a, 250, blk, len, t, 3);
	ant_detect_noise_decide(&ns, a, na, a, na, 1, T0 + 10800, &v);
	OK(v.updated && npicked(&v, na) == 1 && picked(&v, a, na, 4),
	   "cap: its next change is an update, its text the excerpt");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

/* Small widgets (15% each) learned across checks, each after its second
 * swap: two are 30%, a third would make 45%: it is announced instead. */
static void cap_checks(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[16];
	uint32_t blk[3] = { W1, W2, W3 }, len[3] = { 150, 150, 150 }, t[3] = { 1, 1, 1 };
	int64_t now = T0;
	size_t na;

	ant_detect_noise_init(&ns);
	na = cap_page(a, 550, blk, len, t, 3);
	take_first(&ns, a, na, now);
	for (size_t k = 0; k < 3; k++) {
		int held, learned, updated;

		t[k] = 2;
		na = cap_page(a, 550, blk, len, t, 3);
		ant_detect_noise_decide(&ns, a, na, a, na, 1, now += 3600, &v);
		held = v.held && !v.updated;
		ant_detect_verdict_release(&v);
		t[k] = 3;
		na = cap_page(a, 550, blk, len, t, 3);
		ant_detect_noise_decide(&ns, a, na, a, na, 1, now += 3600, &v);
		learned = v.nlearned == 1 && ant_detect_noise_find(&ns, blk[k]) != NULL;
		updated = v.updated;
		ant_detect_verdict_release(&v);
		if (k < 2)
			OK(held && learned && !updated,
			   "cap: small widget %zu (%zu%% learned with it): held, then learned at its second swap",
			   k + 1, 15 * (k + 1));
		else
			OK(held && !learned && updated && ns.nvol == 2,
			   "cap: small widget 3 would make 45%%: held, then announced at its second swap");
	}
	ant_detect_noise_release(&ns);
}

static void noise_cap_sizes(void)
{
	cap_one(35, 1);
	cap_one(45, 0);
	cap_blocks();
	cap_checks();
}

static void noise_first_run(void)
{
	ant_detect_noise ns;
	ant_detect_seg a[6] = { S(1, 1, 9), S(1, 2, 9), S(AD, 3, 9), S(1, 4, 9), S(2, 5, 9), S(1, 6, 9) };
	unsigned char pick[6] = { 0, 1, 0, 1, 0, 1 };

	ant_detect_noise_init(&ns);
	ns.vol[0] = (ant_detect_vblock){ .block = AD };
	ns.nvol = 1;
	ant_detect_pick_first_run(&ns, a, 6, pick);
	OK(!pick[0] && pick[1] && !pick[2] && pick[3] && !pick[4] && !pick[5],
	   "first run: through a volatile block, up to the first known segment");
	/* nothing picked (a verdict without one has pick NULL): nothing kept */
	ant_detect_pick_first_run(&ns, a, 6, NULL);
	memset(pick, 0, sizeof pick);
	ant_detect_pick_first_run(&ns, a, 6, pick);
	OK(memchr(pick, 1, sizeof pick) == NULL, "first run: no pick, nothing to do");
}

/* A busy page: a post arrives between the two answers; the posts before it
 * are news all the same, in a block too big to be volatile. */
static void noise_busy(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[40], b[40];
	size_t n = 0;

	ant_detect_noise_init(&ns);
	for (uint32_t i = 0; i < 20; i++)
		a[n++] = S(BIG, 100 + i, 100);
	a[n++] = S(MENU, 1, 10);
	take_first(&ns, a, n, T0);
	/* first answer: posts 900, 901 new; second: 902 too */
	memmove(a + 2, a, n * sizeof *a);
	a[0] = S(BIG, 900, 100);
	a[1] = S(BIG, 901, 100);
	memcpy(b + 1, a, (n + 2) * sizeof *a);
	b[0] = S(BIG, 902, 100);
	ant_detect_noise_decide(&ns, a, n + 2, b, n + 3, 1, T0 + 3600, &v);
	OK(v.updated && npicked(&v, n + 2) == 2 && picked(&v, a, n + 2, 900) && picked(&v, a, n + 2, 901) &&
	   ns.nvol == 0, "busy page: a post between the answers hides neither the others nor the block");
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);
}

static void noise_blob(void)
{
	ant_detect_noise ns, back;
	ant_detect_verdict v;
	ant_detect_seg a[32];
	unsigned char *blob;
	size_t na, len;

	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	OK(ant_detect_noise_encode(&ns, &blob, &len) == 0 && ant_detect_noise_decode(&back, blob, len) == 0 &&
	   !back.has_keys, "blob: empty state round trip");
	free(blob);
	ant_detect_noise_release(&back);
	take_first(&ns, a, na, T0);
	na = page(a, 2, 2, 0);
	decide_raced(&ns, a, na, page(a + 16, 2, 3, 0) ? a + 16 : NULL, 16, T0 + 3600, &v);
	ant_detect_verdict_release(&v);
	ant_detect_noise_label(&ns, AD, "body>div.ad>p", "PR");
	OK(ant_detect_noise_encode(&ns, &blob, &len) == 0, "blob: encoded");
	diag_len = len;
	OK(ant_detect_noise_decode(&back, blob, len) == 0, "blob: decoded");
	OK(back.has_keys && back.nkeys == ns.nkeys && memcmp(back.keys, ns.keys, ns.nkeys * 8) == 0 &&
	   back.nvol == ns.nvol && back.vol[0].block == AD && strcmp(back.vol[0].sample, "PR") == 0 &&
	   strcmp(back.vol[0].path, "body>div.ad>p") == 0 &&
	   back.vol[0].since == T0 + 3600 && back.nsus == ns.nsus &&
	   (ns.nsus == 0 || (back.sus[0].pending == ns.sus[0].pending &&
			     back.sus[0].pending_norm == ns.sus[0].pending_norm)),
	   "blob: round trip (%zu bytes for %zu keys)", len, ns.nkeys);
	ant_detect_noise_release(&back);
	OK(ant_detect_noise_decode(&back, blob, len - 1) < 0 && !back.has_keys, "blob: a cut one is refused");
	{
		size_t cut = 0;
		for (size_t l = 0; l < len; l++)
			cut += ant_detect_noise_decode(&back, blob, l) < 0 && !back.has_keys && !back.keys;
		IS_INT(cut, len, "blob: every one of its %zu shorter prefixes is refused", len);
	}
	IS_INT(blob[1], 4, "blob: version 4 (24-bit text hashes, races, steadiness, volatile words)");
	blob[0] = 'X';
	OK(ant_detect_noise_decode(&back, blob, len) < 0, "blob: a foreign one is refused");
	OK(ant_detect_noise_decode(&back, NULL, 0) < 0, "blob: none is refused");
	free(blob);
	ant_detect_noise_release(&ns);
}

/* Blobs from a damaged database: refused or read, never a crash; a blob
 * read back encodes to itself. */
static void noise_blob_fuzz(void)
{
	unsigned seed = 99, refused = 0, read = 0, same = 0, holds = 0, held = 0, copied = 0;
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[32], b2[32];
	unsigned char *good, b[4096];
	size_t na, glen;

	/* a real state: keys, a learned block with its labels, a held swap */
	ant_detect_noise_init(&ns);
	na = page(a, 1, 1, 0);
	take_first(&ns, a, na, T0);
	na = page(a, 2, 2, 0);
	page(b2, 2, 3, 0);
	ant_detect_noise_decide(&ns, a, na, b2, na, 1, T0 + 3600, &v);
	ant_detect_verdict_release(&v);
	ant_detect_noise_label(&ns, AD, "body>div.ad>p", "PR: x");
	if (ant_detect_noise_encode(&ns, &good, &glen) < 0 || glen > sizeof b) {
		OK(0, "blob: a state to damage");
		return;
	}
	ant_detect_noise_release(&ns);
	for (int r = 0; r < 20000; r++) {
		ant_detect_noise n;
		size_t len = glen;

		memcpy(b, good, glen);
		for (int k = 0; k < 1 + r % 3; k++) {
			seed = seed * 1103515245u + 12345u;
			b[2 + (seed >> 8) % (glen - 2)] ^= (unsigned char)(1u << ((seed >> 4) % 8));
		}
		if (r % 5 == 0)
			len = 2 + (seed >> 12) % (glen - 1);   /* cut short */
		if (ant_detect_noise_decode(&n, b, len) < 0) {
			refused++;
			holds += ant_detect_noise_holds(b, len, 0) < 0 && ant_detect_noise_holds(b, len, T0 + 3600) < 0;
		} else {
			unsigned char *back, *cb;
			size_t blen, cl;
			ant_detect_noise c;
			int64_t from = r % 2 ? 0 : T0 + 3600;
			int want;

			read++;
			/* ant_detect_noise_holds(): what decode and confirm would say */
			want = ant_detect_noise_confirm(&n, from, NULL, 0, NULL) != 0;
			held += want;
			ant_detect_noise_release(&n);
			ant_detect_noise_decode(&n, b, len);
			holds += ant_detect_noise_holds(b, len, from) == want;
			if (ant_detect_noise_encode(&n, &back, &blen) == 0) {
				ant_detect_noise m;
				same += ant_detect_noise_decode(&m, back, blen) == 0 && m.nkeys == n.nkeys &&
					m.nvol == n.nvol && m.nsus == n.nsus;
				ant_detect_noise_release(&m);
				/* a copy as far as it is read encodes the same */
				ant_detect_noise_copy(&c, &n);
				if (ant_detect_noise_encode(&c, &cb, &cl) == 0) {
					copied += cl == blen && memcmp(cb, back, cl) == 0;
					free(cb);
				}
				free(back);
			}
		}
		ant_detect_noise_release(&n);
	}
	free(good);
	OK(refused + read == 20000 && refused > 0 && read > 0 && same == read,
	   "blob: 20000 damaged blobs, %u refused, %u read, each read one encodes and reads back", refused, read);
	OK(holds == 20000 && held > 0 && held < read,
	   "blob: ant_detect_noise_holds() says what decode and confirm say, each blob (%u hold a swap)", held);
	OK(copied == same, "blob: ant_detect_noise_copy() encodes as the state copied");
}

static void noise_bounds(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[80], b[80];
	size_t n = 0;

	/* a long main text and 40 small widgets, all per request */
	ant_detect_noise_init(&ns);
	for (uint32_t i = 0; i < 40; i++)
		a[n++] = S(BIG, 1000 + i, 500);
	for (uint32_t i = 0; i < 40; i++)
		a[n++] = S(5000 + i, 1, 5);
	take_first(&ns, a, n, T0);
	for (uint32_t i = 0; i < 40; i++) {
		a[40 + i].norm = 2;
		b[40 + i] = a[40 + i];
		b[40 + i].norm = 3;
	}
	memcpy(b, a, 40 * sizeof *a);
	/* the suspects' table holds 16 races at a time: learned over checks */
	for (int k = 1; k <= 6; k++) {
		ant_detect_noise_decide(&ns, a, n, b, n, 1, T0 + 1800 * k, &v);
		if (k < 6)
			ant_detect_verdict_release(&v);
	}
	OK(!v.updated && ns.nvol == ANT_NOISE_MAX_VOLATILE,
	   "bounds: at most %d blocks learned per page (%zu)", ANT_NOISE_MAX_VOLATILE, ns.nvol);
	ant_detect_verdict_release(&v);
	ant_detect_noise_release(&ns);

	/* 20 small blocks swapped one after the other: the table keeps 16 */
	ant_detect_noise_init(&ns);
	n = 0;
	for (uint32_t i = 0; i < 40; i++)
		a[n++] = S(BIG, 1000 + i, 500);
	for (uint32_t i = 0; i < 20; i++)
		a[n++] = S(6000 + i, 1, 5);
	take_first(&ns, a, n, T0);
	for (uint32_t i = 0; i < 20; i++) {
		a[40 + i].norm = 9;
		take_first(&ns, a, n, T0 + 3600 * (i + 1));
	}
	OK(ns.nsus <= ANT_NOISE_MAX_SUSPECTS, "bounds: at most %d small blocks watched (%zu)",
	   ANT_NOISE_MAX_SUSPECTS, ns.nsus);
	ant_detect_noise_release(&ns);
}

/* Property: whatever the order and however volatile blocks change, no update. */
static void noise_property(void)
{
	ant_detect_noise ns;
	ant_detect_verdict v;
	ant_detect_seg a[64];
	unsigned seed = 12345, updates = 0, checks = 0;

	for (int round = 0; round < 50; round++) {
		size_t n = 20 + seed % 30;
		ant_detect_noise_init(&ns);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			a[i] = S(1 + (seed >> 16) % 6, (seed >> 8) % 1000, 10 + (seed >> 4) % 300);
		}
		take_first(&ns, a, n, T0);
		/* block 7 is a counter the re-fetch told volatile */
		ns.vol[0] = (ant_detect_vblock){ .block = 7, .since = T0, .how = ANT_NOISE_REFETCH };
		ns.nvol = 1;
		for (int k = 0; k < 6; k++) {
			/* shuffle, and a new volatile segment */
			for (size_t i = n - 1; i > 0; i--) {
				size_t j;
				ant_detect_seg t;
				seed = seed * 1103515245u + 12345u;
				j = (seed >> 16) % (i + 1);
				t = a[i], a[i] = a[j], a[j] = t;
			}
			a[n] = S(7, seed, 5);
			ant_detect_noise_decide(&ns, a, n + 1, NULL, 0, 1, T0 + 3600 * (k + 1), &v);
			updates += v.updated;
			checks++;
			ant_detect_verdict_release(&v);
		}
		ant_detect_noise_release(&ns);
	}
	IS_INT(updates, 0, "property: %u checks of shuffled pages whose volatile block changed: no update", checks);
}

static void noise_apply(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0, &out);
	in = ok200(2, 0, 0);
	in.noise_decided = 1;
	ant_detect_apply(&st, &in, T0 + 3600, &out);
	OK(!out.updated, "apply: the noise rule's no beats another text checksum");
	in.noise_updated = 1;
	in.noise_time = T0 + 1800;
	ant_detect_apply(&st, &in, T0 + 7200, &out);
	OK(out.updated && st.last_modified == T0 + 1800 && strcmp(out.rule, "text") == 0,
	   "apply: a held change confirmed is dated when first seen");
}

/* A feed about the page dates it; it never overrules a confirmed text
 * change (a cached feed that has not the edit yet). */
static void feed_and_text(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
	in.feed_usable = 1;
	in.feed_time = T0 - 3600;
	ant_detect_apply(&st, &in, T0, &out);
	OK(!out.updated && st.last_modified == T0 - 3600 && !strcmp(st.detected_by, "feed"),
	   "feed: a new page's first check takes the feed's date quietly");
	in = ok200(2, 0, 0);
	in.feed_usable = 1;
	in.feed_time = T0 - 3600;
	in.noise_decided = 1;
	in.noise_updated = 1;
	in.noise_time = T0 + 300;
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(out.updated && !strcmp(out.rule, "text") && st.last_modified == T0 + 300,
	   "feed unchanged, text change confirmed: announced, dated when first seen");
	in.text_hash = 3;
	in.noise_updated = 0;
	in.noise_time = 0;
	in.feed_time = T0 + 900;
	ant_detect_apply(&st, &in, T0 + 1200, &out);
	OK(!out.updated && out.unchanged && st.last_modified == T0 + 300 && st.feed_time == T0 + 900,
	   "a newer entry about the page, its text unchanged (the noise rule): no update, the date kept");
	in.text_hash = 4;
	in.noise_updated = 1;
	ant_detect_apply(&st, &in, T0 + 1800, &out);
	OK(out.updated && !strcmp(out.rule, "text") && st.last_modified == T0 + 1800,
	   "the next check's change, the feed saying the same: dated by the text rule, not the older entry");
	in.text_hash = 5;
	in.feed_time = T0 + 2100;
	ant_detect_apply(&st, &in, T0 + 2400, &out);
	OK(out.updated && !strcmp(out.rule, "feed") && st.last_modified == T0 + 2100,
	   "a newer entry about the page, its text changed: an update at its date");
	in.status = 304;
	in.noise_decided = in.noise_updated = 0;
	in.feed_time = T0 + 2700;
	ant_detect_apply(&st, &in, T0 + 3000, &out);
	OK(!out.updated && st.last_modified == T0 + 2100 && st.feed_time == T0 + 2700,
	   "a newer entry about a page answering 304: no update");
	in = ok200(6, 0, 0);
	in.feed_usable = 1;
	in.feed_time = T0 + 2700;
	in.no_news = 1;
	in.noise_decided = 1;
	in.feed_time = T0 + 3300;
	ant_detect_apply(&st, &in, T0 + 3600, &out);
	OK(!out.updated && st.last_modified == T0 + 2100,
	   "a newer entry about a page whose text moved only its clocks: no update");
	in.no_news = 0;
	in.noise_decided = 0;
	in.text_hash = 7;
	ant_detect_apply(&st, &in, T0 + 4200, &out);
	OK(!out.updated, "feed unchanged, text checksum changed unconfirmed: the feed decides");
}

/* The side doors to a page's schedule, decided in detect.c too: robots.txt
 * keeping a page out, a gone page's daily check, a source's claim, an
 * import's date. */
static void side_doors(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
	ant_detect_apply(&st, &in, T0 - 600, &out);
	st.recheck = 1;
	st.error_count = 2;
	ant_detect_keep_out(&st, T0, 3600);
	OK(st.last_check == T0 && st.last_status == 0 && st.next_check == T0 + 3600 && !st.recheck &&
	   st.error_count == 2, "kept out: checked without a status, again in an hour, errors kept");
	in = (ant_detect_input){ .failed = 1, .status = 404, .gone_interval = 86400 };
	ant_detect_apply(&st, &in, T0 + 10, &out);
	IS_INT(st.next_check, T0 + 10 + 86400, "gone and failing: checked once a day");
	in = ok200(2, 0, 0);
	in.gone_interval = 86400;
	ant_detect_apply(&st, &in, T0 + 20, &out);
	IS_INT(st.next_check, T0 + 20 + 86400, "gone (still, at this check): its daily check");
	st.recheck = 0;
	OK(ant_detect_claim(&st) && st.recheck && !ant_detect_claim(&st),
	   "a claim asks for a re-check once");
	OK(!ant_detect_imported(&st, st.last_modified, T0, "lirs") &&
	   ant_detect_imported(&st, T0 + 30, T0 - 5, "lirs") && st.last_modified == T0 + 30 &&
	   st.last_detected != T0 - 5 && !strcmp(st.detected_by, "lirs"),
	   "an import's date taken when newer, its detection time only when later");
}

/* The header rule on what the body shows, and a 304 that confirms a held
 * change: one row a second check (the first: text 1, Last-Modified T0-5000,
 * at T0). */
static const struct header_row {
	long status;
	uint64_t hash;           /* the text checksum */
	int noise;               /* 0 no verdict, 1 unchanged, 2 updated */
	int64_t noise_time;      /* a held change's first sighting; 0 now */
	int64_t lm;              /* Last-Modified, after T0; 0 none */
	int updated;
	const char *rule;
	int64_t want_lm;         /* after T0 */
	const char *why;
} header_rows[] = {
	{ 200, 1, 0, 0, 500, 0, NULL, -5000, "a new Last-Modified on the same text: no update" },
	{ 200, 2, 1, 0, 500, 0, NULL, -5000, "a new Last-Modified, the text rule found only noise moved: no update" },
	{ 200, 2, 2, 0, 500, 1, "header", 500, "a new Last-Modified on a changed text: the header dates it" },
	{ 200, 2, 0, 0, 500, 1, "header", 500, "no noise verdict, another checksum: the header dates it" },
	{ 200, 2, 2, 0, 0, 1, "text", 600, "a changed text without a header: now" },
	{ 304, 1, 0, 0, 0, 0, NULL, -5000, "a 304, nothing held: unchanged" },
	{ 304, 1, 2, 300, 0, 1, "text", 300, "a 304 with a change held: confirmed, dated when first seen" },
};

static void header_and_304(void)
{
	for (size_t i = 0; i < sizeof header_rows / sizeof header_rows[0]; i++) {
		const struct header_row *r = &header_rows[i];
		ant_detect_state st;
		ant_detect_outcome out;
		ant_detect_input in = ok200(1, T0 - 5000, T0);

		ant_detect_state_init(&st);
		ant_detect_apply(&st, &in, T0, &out);
		in = ok200(r->hash, r->lm ? T0 + r->lm : 0, T0 + 600);
		in.status = r->status;
		in.noise_decided = r->noise != 0;
		in.noise_updated = r->noise == 2;
		in.noise_time = r->noise_time ? T0 + r->noise_time : 0;
		ant_detect_apply(&st, &in, T0 + 600, &out);
		OK(out.updated == r->updated && st.last_modified == T0 + r->want_lm &&
		   (r->rule ? out.rule && strcmp(out.rule, r->rule) == 0 : out.rule == NULL), "%s", r->why);
	}
	{   /* 'antenna set' reset the text rule's reference: a quiet baseline */
		ant_detect_state st;
		ant_detect_outcome out;
		ant_detect_input in = ok200(1, T0 - 5000, T0);

		ant_detect_state_init(&st);
		ant_detect_apply(&st, &in, T0, &out);
		st.has_hash = 0;
		st.text_hash = 0;
		st.content_length = -1;
		in = ok200(2, T0 + 500, T0 + 600);
		ant_detect_apply(&st, &in, T0 + 600, &out);
		OK(!out.updated && st.last_modified == T0 - 5000 && st.has_hash,
		   "a reset reference, a new Last-Modified: a quiet baseline, no update, the time kept");
	}
}

/* ant_detect_noise_confirm(): a small swap held is confirmed by a 304 or a
 * source, its segment marked; one held at another check is left. */
static void noise_confirm(void)
{
	ant_detect_noise ns;
	ant_detect_seg cur[2] = { { 7, 42, 10, NULL }, { 8, 5, 10, NULL } };
	unsigned char pick[2] = { 0, 0 };

	ant_detect_noise_init(&ns);
	ns.nsus = 1;
	ns.sus[0].block = 7;
	ns.sus[0].pending = T0 + 100;
	ns.sus[0].pending_norm = 42;
	IS_INT(ant_detect_noise_confirm(&ns, T0 + 200, cur, 2, pick), 0,
	       "noise confirm: a swap held at an earlier check is not this check's");
	IS_INT(ant_detect_noise_confirm(&ns, 0, cur, 2, pick), T0 + 100,
	       "noise confirm: from 0 (a 304): confirmed, dated when first seen");
	OK(pick[0] == 1 && pick[1] == 0 && ns.sus[0].pending == 0 && ns.nsus == 1,
	   "noise confirm: its segment marked, no longer held, still watched");
	ant_detect_noise_release(&ns);
}

int main(void)
{
	TAP_PLAN(109 + 16 + 14 + 1 + 8 + 4 + 4 + 5 + 3 + 7 + 3 + 1 + 3 + 5 + 4 + 2 + 4);
	header_and_304();
	noise_confirm();
	future_headers();
	OK(!ant_detect_lm_trusted(T0, T0, T0), "Last-Modified == Date not trusted");
	OK(!ant_detect_lm_trusted(T0 + 5, T0, T0), "Last-Modified after Date not trusted");
	OK(ant_detect_lm_trusted(T0 - 5, T0, T0), "Last-Modified before Date trusted");
	OK(!ant_detect_lm_trusted(0, T0, T0), "no Last-Modified");
	first_check();
	feed_and_text();
	rules();
	not_modified_and_errors();
	schedule();
	relay();
	imported();
	side_doors();
	noise_order_and_removal();
	noise_refetch();
	noise_race();
	noise_across_checks();
	noise_swaps_with_news();
	noise_counters();
	noise_cap();
	noise_cap_sizes();
	noise_first_run();
	noise_busy();
	noise_blob();
	noise_blob_fuzz();
	noise_bounds();
	noise_property();
	noise_apply();
	printf("# noise state blob: %zu bytes\n", diag_len);
	TAP_DONE();
}
