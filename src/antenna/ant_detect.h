/*
 * detect.h: the antenna's update decision and check scheduling.  Pure
 * logic over numbers: no I/O, no clock (the caller passes "now"), so every
 * rule is unit-tested (tests/unit/t_detect.c).
 *
 * The rules, in the order the classic antennas tried them
 * (doc/NOTES-lirs-in-the-wild.md, "How antennas detect an update"):
 *   header  a trusted Last-Modified newer than the one seen before; a
 *           Last-Modified at or after the response's Date is "now" from a
 *           dynamic page and is not trusted;
 *   text    the checksum of the page's text changed (page.h removes tags,
 *           scripts, comments and the ignored parts, and is charset-blind,
 *           so a charset flip or an ignored-part change is no update);
 *   size    only when the page has no text checksum (not HTML, or it could
 *           not be analysed): Content-Length, else the body length, changed.
 *   feed    when the page has a feed (advertised by a <link
 *           rel="alternate"> or given with 'add --feed') whose newest
 *           entry has a believable date, that date decides alone: a newer
 *           one is an update at that time (mark F); the rules above are
 *           not used (a sidebar or a counter is no update).  A feed that
 *           failed or has no believable date falls back to them.
 * When the rule is not the header or the feed, the update time is the
 * detection time.
 */
#ifndef LIRS_DETECT_H
#define LIRS_DETECT_H

#include <stdint.h>

/* Scheduling limits (antenna(1)): interval ~ time since the last change. */
#define DETECT_MIN_INTERVAL 300          /* 5 minutes */
#define DETECT_MAX_INTERVAL 86400        /* 24 hours */
/* A Retry-After longer than this is capped (a week). */
#define DETECT_MAX_RETRY_AFTER (7 * 86400)

/* What the antenna remembers of a page between checks. */
typedef struct ant_detect_state {
	int64_t last_modified;   /* update time; 0 = no known update */
	int64_t last_detected;   /* last successful check (or relayed LIRS Last-Detected) */
	int64_t last_ok;         /* our own last successful check; 0 = never */
	int64_t last_check;      /* our own last attempt */
	int64_t lm_header_time;  /* last trusted Last-Modified header; 0 = none */
	int64_t content_length;  /* header value or body length; -1 = unknown */
	uint64_t text_hash;
	int has_hash;
	const char *detected_by; /* "header", "text", "size", "lirs", "feed", "atom" or NULL (static strings) */
	long last_status;        /* HTTP status of the last answer, 0 = none */
	int64_t next_check;      /* due at or after this; 0 = now */
	int64_t interval;        /* seconds between checks */
	int error_count;         /* consecutive failed checks */
	int recheck;             /* a LIRS source reported a newer update */
	int quiet_first;         /* imported (antenna import): the first check is a
				    baseline that announces no update of its own */
	int64_t feed_time;       /* the page's feed's newest entry date seen; 0 = none */
} ant_detect_state;

void ant_detect_state_init(ant_detect_state *st);

/* What one check brought back (from ant_fetch_result and ant_page_info). */
typedef struct ant_detect_input {
	int failed;              /* no usable answer: transport error or HTTP error */
	long status;             /* HTTP status, 0 = none */
	int64_t lm_time;         /* parsed Last-Modified, 0 = none */
	int64_t date_time;       /* parsed Date, 0 = none */
	int64_t content_length;  /* header, -1 = none */
	int64_t body_len;        /* bytes of the (decoded) body */
	int has_hash;            /* the body was analysed as HTML text */
	uint64_t text_hash;
	int64_t retry_after;     /* seconds, 0 = none */
	int feed_usable;         /* the page's feed answered with a believable newest
				    entry date (a 304 counts with the date seen before) */
	int64_t feed_time;       /* that date */
	int64_t max_future;      /* the --max-future rule (lirs_merge_future()):
				    0 = LIRS_DEFAULT_MAX_FUTURE, < 0 = off */
} ant_detect_input;

typedef struct ant_detect_outcome {
	int updated;             /* an update event: last_modified changed */
	const char *rule;        /* the rule that decided, or NULL */
	int first;               /* the page's first successful check */
	int unchanged;           /* success, nothing new (304 or same content) */
} ant_detect_outcome;

/* Is a Last-Modified trustworthy?  Not when it is the response's Date or
 * later, nor our clock or later when there is no Date; and not when it is
 * more than max_future ahead of our clock (the one --max-future rule,
 * lirs_merge_future()): such a header counts as no Last-Modified, the
 * other rules decide.  A Date that far ahead (a server whose clock runs
 * ahead) counts as no Date. */
int ant_detect_lm_believable(int64_t lm_time, int64_t date_time, int64_t now,
			     int64_t max_future);
/* ant_detect_lm_believable() with the default max_future. */
int ant_detect_lm_trusted(int64_t lm_time, int64_t date_time, int64_t now);

/*
 * Applies one check made at time now to *st and says what happened.  On a
 * failure the page's update state is kept; only the error count, status
 * and schedule change.
 */
void ant_detect_apply(ant_detect_state *st, const ant_detect_input *in, int64_t now,
		  ant_detect_outcome *out);

/*
 * A LIRS source reports (lm, ld) for a watched page.  When lm is newer
 * than the page's update time the record wins (merge rule: greater
 * Last-Modified), the page takes it as a "lirs" update and is flagged for
 * re-checking by the antenna itself.  The caller first drops records the
 * merge rule refuses (lirs_merge_check_at(): unusable, from the future, stale),
 * so that lirs merge and the antenna treat a record alike.  Returns 1 when
 * the record won.
 */
int ant_detect_relay(ant_detect_state *st, int64_t lm, int64_t ld, int64_t now);

/* The page is due at now (or force). */
int ant_detect_due(const ant_detect_state *st, int64_t now, int force);

/* Schedules the next check after a success / a failure (used by ant_detect_apply). */
void ant_detect_schedule_ok(ant_detect_state *st, int64_t now);
void ant_detect_schedule_error(ant_detect_state *st, int64_t now, int64_t retry_after);

#endif
