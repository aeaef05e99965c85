/*
 * t_detect.c: the update decision and the schedule, rule by rule.
 */
#include "tap.h"

#include "ant_detect.h"

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
	OK(out.first && out.updated, "first check is the first known update");
	IS_INT(st.last_modified, T0 - 5000, "first check takes a trusted Last-Modified");
	IS_STR(st.detected_by, "header", "first check with a trusted header: header");
	IS_INT(st.last_detected, T0, "last detected is the check time");

	ant_detect_state_init(&st);
	in = ok200(1, T0, T0);
	ant_detect_apply(&st, &in, T0, &out);
	IS_INT(st.last_modified, T0, "first check: Last-Modified == Date is not trusted, check time used");
	OK(st.detected_by == NULL, "first check without a trusted header has no rule");
	IS_INT(st.lm_header_time, 0, "an untrusted header is not remembered");

	ant_detect_state_init(&st);
	in = ok200(1, 0, 0);
	ant_detect_apply(&st, &in, T0, &out);
	IS_INT(st.last_modified, T0, "first check without Last-Modified: check time");
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
	OK(d1 >= DETECT_MIN_INTERVAL && d3 <= DETECT_MAX_INTERVAL, "back-off within [5 min, 24 h]");
	OK(d2 >= d1 && d3 >= d2, "back-off grows after consecutive errors");

	e = (ant_detect_input){ .failed = 1, .status = 429, .retry_after = 7200 };
	ant_detect_state_init(&st);
	ant_detect_apply(&st, &e, T0, &out);
	IS_INT(st.next_check, T0 + 7200, "429 Retry-After honoured");
	e.retry_after = 30 * 86400;
	ant_detect_apply(&st, &e, T0, &out);
	IS_INT(st.next_check, T0 + DETECT_MAX_RETRY_AFTER, "a huge Retry-After is capped");

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
	ant_detect_apply(&st, &in, T0, &out);
	IS_INT(st.interval, DETECT_MIN_INTERVAL, "just changed: 5 min interval");
	OK(!ant_detect_due(&st, T0 + 60, 0), "not due before its interval");
	OK(ant_detect_due(&st, T0 + 60, 1), "--force makes it due");
	OK(ant_detect_due(&st, T0 + 300, 0), "due when the interval has passed");
	ant_detect_apply(&st, &in, T0 + 3 * 3600, &out);
	IS_INT(st.interval, 3 * 3600, "interval ~ time since the last change");
	ant_detect_apply(&st, &in, T0 + 40 * 3600, &out);
	IS_INT(st.interval, DETECT_MAX_INTERVAL, "interval at most 24 h");
}

static void relay(void)
{
	ant_detect_state st;
	ant_detect_outcome out;
	ant_detect_input in = ok200(1, 0, 0);

	ant_detect_state_init(&st);
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
	OK(out.updated && st.last_modified == T0, "Date 2101 / Last-Modified 2100: first check at our clock");
	OK(st.detected_by == NULL && st.lm_header_time == 0, "... not \"by header\", not remembered");
	in = ok200(2, Y2100 + 10, Y2101 + 10);
	ant_detect_apply(&st, &in, T0 + 600, &out);
	OK(out.updated && st.last_modified == T0 + 600, "... a change later is found by the text");
	IS_STR(st.detected_by, "text", "... by the text rule");

	ant_detect_state_init(&st);
	in = ok200(1, Y9999, 0);
	in.date_time = 0;
	ant_detect_apply(&st, &in, T0, &out);
	OK(st.last_modified == T0 && st.detected_by == NULL, "Last-Modified 9999 without Date: our clock");

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

int main(void)
{
	TAP_PLAN(62 + 14);
	future_headers();
	OK(!ant_detect_lm_trusted(T0, T0, T0), "Last-Modified == Date not trusted");
	OK(!ant_detect_lm_trusted(T0 + 5, T0, T0), "Last-Modified after Date not trusted");
	OK(ant_detect_lm_trusted(T0 - 5, T0, T0), "Last-Modified before Date trusted");
	OK(!ant_detect_lm_trusted(0, T0, T0), "no Last-Modified");
	first_check();
	rules();
	not_modified_and_errors();
	schedule();
	relay();
	imported();
	TAP_DONE();
}
