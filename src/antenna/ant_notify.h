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
#define ANT_NOTIFY_EXCERPT_CHARS 280     /* characters of an excerpt in a digest */

/* Their settings: ANT_SET_SMTP ... ANT_SET_NOTIFY_MAX_AGE (ant_settings.h). */

/* A target's kind: ant_target_kind() (ant_target.h). */

/* The targets, their digests and the SQL of them: ant_store.h
 * (store_notify.c). */

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
	const char *dir;          /* the published directory (antenna run's DIR):
				     an update's diff page there is linked
				     under base; NULL: none (not owned) */
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
