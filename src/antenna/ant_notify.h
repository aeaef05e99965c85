/*
 * ant_notify.h: telling the people who follow.  After a run that found
 * news, each notification target gets one digest of the update events it
 * was not yet told of: a mail (mailto:ADDR, through the antenna's SMTP
 * server) or a JSON document POSTed to a webhook (http:// or https://).
 *
 * - A target remembers the last update event (ev_events.seq) it was told
 *   of; what came after is pending.  A delivery that fails leaves it
 *   pending for the next run; pending news older than max_age are
 *   dropped (the digest would be stale), and a digest lists at most
 *   max_listed of them, newest first, then says how many more.
 * - Every delivery is bounded in time (timeout, connect_timeout), never
 *   follows a redirect, and its failure is a value: the run and the
 *   publish go on.
 * - The targets are the operator's own: internal addresses (loopback,
 *   10/8, ...) are allowed, as for pages added by hand.
 *
 * notify.c builds the messages (pure), notify_send.c delivers them
 * (libcurl), store_notify.c is the SQL of the targets.
 */
#ifndef ANT_NOTIFY_H
#define ANT_NOTIFY_H

#include "ant_settings.h"   /* the defaults */
#include "ant_target.h"
#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "ant_store.h"

/* The limits (antenna(1) NOTIFICATIONS), each overridable by init. */
#define ANT_NOTIFY_CONNECT_TIMEOUT 10    /* s to connect, within the above */
#define ANT_NOTIFY_MAX_TARGETS 32        /* targets per antenna */
#define ANT_NOTIFY_EXCERPT_CHARS 280     /* characters of an excerpt in a digest */

/* Their settings: ANT_SET_SMTP ... ANT_SET_NOTIFY_MAX_AGE (ant_settings.h). */

/* A target's kind: ant_target_kind() (ant_target.h). */

/* One target as stored; strings owned (ant_notify_target_release()). */
typedef struct ant_notify_target {
	int64_t id;
	char *target;          /* "mailto:a@example.org" or an http(s) URL */
	char *group;           /* only pages of this group; NULL: every update */
	int64_t after_seq;     /* the last event told of */
	int64_t created, last_try, last_ok, sent;   /* sent: digests delivered */
	char *last_error;      /* of the last try; NULL after a success */
	int64_t pending;       /* events waiting (ant_store_notify_each()) */
} ant_notify_target;

void ant_notify_target_release(ant_notify_target *t);


/* ---- store_notify.c ----------------------------------------------------- */

/* Adds target (group: NULL for all); told only of events after now's
 * newest.  1 added, 0 already there (its group set), LB_ERANGE over
 * ANT_NOTIFY_MAX_TARGETS (LB_ETOOBIG), or < 0. */
int ant_store_notify_add(ant_store *s, const char *target, const char *group, int64_t now,
			 lb_error *err);
/* Removes target, or every target when all: the number removed, or < 0. */
int ant_store_notify_remove(ant_store *s, const char *target, int all, lb_error *err);
/* Each target, oldest first, with its pending count (events after its
 * after_seq, newer than since, of its group); fn's nonzero return stops. */
typedef int (*ant_notify_target_fn)(void *ctx, const ant_notify_target *t);
int ant_store_notify_each(ant_store *s, int64_t since, ant_notify_target_fn fn, void *ctx,
			  lb_error *err);

/* One update as a digest lists it; strings owned by the digest. */
typedef struct ant_notify_item {
	char *url, *title, *excerpt, *source, *method;
	int64_t last_modified, last_detected;
} ant_notify_item;

typedef struct ant_notify_digest {
	ant_notify_item *items;   /* newest first */
	size_t n;
	int64_t more;             /* pending beyond the n listed */
	int64_t upto;             /* the newest event seen: after_seq on delivery */
} ant_notify_digest;

void ant_notify_digest_release(ant_notify_digest *d);
/* t's pending events newer than since into d (at most max listed).  0 or < 0. */
int ant_store_notify_digest(ant_store *s, const ant_notify_target *t, int64_t since, size_t max,
			    ant_notify_digest *d, lb_error *err);
/* Records a try of target id at now: delivered (after_seq = upto) or the
 * error (after_seq kept); error ANT_NOTIFY_NOTHING: nothing was pending
 * for it up to upto (no try).  0 or < 0. */
extern const char ant_notify_nothing[];
#define ANT_NOTIFY_NOTHING ant_notify_nothing
int ant_store_notify_tried(ant_store *s, int64_t id, int64_t now, int64_t upto, const char *error,
			   lb_error *err);

/* ---- notify.c: the messages --------------------------------------------- */

typedef struct ant_notify_opts {
	int64_t now;
	int64_t tz;               /* seconds east of UTC, for the mail's times */
	const char *lang;         /* "ja" or "en" */
	const char *title, *base; /* the antenna's */
	const char *smtp_url, *smtp_password_file, *from;
	int smtp_tls_required;    /* smtp://: no mail unless STARTTLS succeeds */
	long timeout, connect_timeout;
	size_t max_listed;
	int64_t max_age;
	/* Told of each target tried: rc 0 delivered (n updates), < 0 failed
	 * (err's message); targets with nothing pending are not tried. */
	void (*on_target)(void *ctx, const ant_notify_target *t, const ant_notify_digest *d, int rc,
			  const lb_error *err);
	void *ctx;
} ant_notify_opts;

/* The defaults, then the antenna's config (title, base, lang, tz, SMTP and
 * the limits).  Strings are held by o until ant_notify_opts_release(). */
int ant_notify_opts_load(ant_store *s, ant_notify_opts *o, int64_t now);
void ant_notify_opts_release(ant_notify_opts *o);

/* The mail of digest d to rcpt, CRLF line ends, ready for SMTP: MIME
 * headers (RFC 2047 subject and From name, RFC 5322 Date, Message-ID),
 * text/plain; charset=UTF-8 body in base64, lines of at most 76. */
int ant_notify_mail(lb_buf *out, const ant_notify_opts *o, const ant_notify_digest *d,
		    const char *rcpt);
/* The webhook's JSON document of digest d (antenna(1) has an example). */
int ant_notify_json(lb_buf *out, const ant_notify_opts *o, const ant_notify_digest *d);

/* Tries every target with news (one digest each, in turn, each within
 * o's timeout) and records the outcome.  The number of targets that
 * failed, or < 0 when the database failed. */
int ant_notify_run(ant_store *s, const ant_notify_opts *o, lb_error *err);

/* ---- notify_send.c: delivery -------------------------------------------- */

/* Sends msg to rcpt through o's SMTP server; POSTs json to url.  0, or
 * LB_EIO / LB_EINVAL with the reason in err. */
int ant_notify_send_mail(const ant_notify_opts *o, const char *rcpt, const lb_buf *msg,
			 lb_error *err);
int ant_notify_send_webhook(const ant_notify_opts *o, const char *url, const lb_buf *json,
			    lb_error *err);

#endif
