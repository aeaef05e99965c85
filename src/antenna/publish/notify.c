/*
 * notify.c: the notifications' messages and the run that sends them
 * (ant_notify.h): a target's digest as a mail (RFC 5322 with MIME: RFC
 * 2045, RFC 2047) or as a webhook's JSON document, in the antenna's
 * language; delivery is notify_send.c's, the SQL store_notify.c's.
 */
#include "ant_notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb_date.h"
#include "lb_json.h"
#include "lb_utf8.h"
#include "ant_publish.h"
#include "ant_pubdiff.h"
#include "ant_settings.h"

/* ---- targets ------------------------------------------------------------ */


/* ---- the options -------------------------------------------------------- */

int ant_notify_opts_load(ant_store *s, ant_notify_opts *o, int64_t now)
{
	char *lang = ant_setting_text(s, ANT_SET_LANG);

	*o = (ant_notify_opts){
		.now = now,
		.tz = ant_setting_int(s, ANT_SET_TZ),
		.lang = lang,
		.title = ant_setting_text(s, ANT_SET_TITLE),
		.base = ant_setting_text(s, ANT_SET_BASE),
		.smtp_url = ant_setting_text(s, ANT_SET_SMTP),
		.smtp_password_file = ant_setting_text(s, ANT_SET_SMTP_PASSWORD_FILE),
		.from = ant_setting_text(s, ANT_SET_SMTP_FROM),
		.timeout = (long)ant_setting_int(s, ANT_SET_NOTIFY_TIMEOUT),
		.connect_timeout = ANT_NOTIFY_CONNECT_TIMEOUT,
		.max_listed = (size_t)ant_setting_int(s, ANT_SET_NOTIFY_MAX),
		.max_age = ant_setting_int(s, ANT_SET_NOTIFY_MAX_AGE),
	};
	char *tls = ant_setting_text(s, ANT_SET_SMTP_TLS);

	o->smtp_tls_required = tls && !strcmp(tls, "require");
	free(tls);
	if (o->connect_timeout > o->timeout)
		o->connect_timeout = o->timeout;
	if (!o->lang || !o->title || !o->base || !o->smtp_url || !o->from) {
		ant_notify_opts_release(o);
		return LB_ENOMEM;
	}
	return 0;
}

void ant_notify_opts_release(ant_notify_opts *o)
{
	free((char *)o->lang);
	free((char *)o->title);
	free((char *)o->base);
	free((char *)o->smtp_url);
	free((char *)o->smtp_password_file);
	free((char *)o->from);
	memset(o, 0, sizeof *o);
}

/* ---- text --------------------------------------------------------------- */

/* s as one line of valid UTF-8: controls (CR, LF, TAB, ...) become spaces,
 * so that no outside text can start a header or a line of its own; at
 * most max characters (0: all), "…" marking a cut. */
static int one_line(lb_buf *out, const char *s, size_t max)
{
	size_t n = strlen(s), k = max ? lb_utf8_prefix(s, n, max) : n, from = out->len;

	if (lb_utf8_repair(out, s, k, LB_UTF8_NUL, NULL) == (size_t)-1)
		return LB_ENOMEM;
	for (size_t i = from; i < out->len; i++)
		if ((unsigned char)out->data[i] < ' ' || out->data[i] == 0x7f)
			out->data[i] = ' ';
	return k < n ? lb_buf_adds(out, "…") : 0;
}

static int is_ja(const ant_notify_opts *o)
{
	return strcmp(o->lang, "en") != 0;
}

/* "MM/DD HH:MM" in the antenna's zone, as index.html writes it. */
static void short_time(char b[16], int64_t t, int64_t tz)
{
	lb_tm tm;

	lb_date_split(t + tz, &tm);
	snprintf(b, 16, "%02d/%02d %02d:%02d", tm.mon, tm.mday, tm.hour, tm.min);
}

/* The address of it's diff page (publish's name for it: ant_pub_diff_href)
 * under the antenna's base into out, when o names the published
 * directory and the page is there; else NULL. */
static const char *diff_url(lb_buf *out, const ant_notify_opts *o, const ant_notify_item *it)
{
	lb_buf href = LB_BUF_INIT;
	const char *h = o->dir && o->base && *o->base ?
			ant_pub_diff_href(&href, o->dir, it->url_key, it->last_modified, it->method) : NULL;
	size_t n = o->base ? strlen(o->base) : 0;

	lb_buf_reset(out);
	if (h && lb_buf_addf(out, "%s%s%s", o->base, n && o->base[n - 1] == '/' ? "" : "/", h) < 0)
		h = NULL;
	lb_buf_release(&href);
	return h ? out->data : NULL;
}

/* How it was found, in the antenna's language (index.html's legend). */
static const char *method_words(const ant_notify_opts *o, const char *method)
{
	const char *w = ant_pub_detect_words(o->lang, method);

	if (w)
		return w;
	if (!strcmp(method, "relay"))
		return is_ja(o) ? "他のアンテナから中継" : "relayed from another antenna";
	return *method ? method : "-";
}

/* RFC 3339 in UTC: "2026-11-26T19:20:01Z". */
static int rfc3339(char b[24], int64_t t)
{
	lb_tm tm;

	lb_date_split(t, &tm);
	if (lb_date_iso(b, &tm) < 0)
		return LB_EINVAL;
	strcat(b, "Z");
	return 0;
}

/* RFC 5322 §3.3 date-time in the antenna's zone: "Fri, 27 Nov 2026 04:20:01 +0900". */
static int mail_date(lb_buf *out, int64_t t, int64_t tz)
{
	static const char wd[][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char mon[][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int64_t a = tz < 0 ? -tz : tz;
	lb_tm tm;

	lb_date_split(t + tz, &tm);
	return lb_buf_addf(out, "%s, %02d %s %04lld %02d:%02d:%02d %c%02lld%02lld", wd[tm.wday],
			   tm.mday, mon[tm.mon - 1], (long long)tm.year, tm.hour, tm.min, tm.sec,
			   tz < 0 ? '-' : '+', (long long)(a / 3600), (long long)(a % 3600 / 60));
}

/* ---- MIME ---------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* s[0..n) in base64 (RFC 2045 §6.8); a CRLF after every wrap characters
 * when wrap > 0 (and at the end). */
static int base64(lb_buf *out, const unsigned char *s, size_t n, size_t wrap)
{
	size_t col = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);
		char q[4] = { b64[v >> 18], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=',
			      i + 2 < n ? b64[v & 63] : '=' };
		if (lb_buf_add(out, q, 4) < 0)
			return LB_ENOMEM;
		if (wrap && (col += 4) >= wrap && lb_buf_adds(out, "\r\n") < 0)
			return LB_ENOMEM;
		if (wrap && col >= wrap)
			col = 0;
	}
	return wrap && col ? lb_buf_adds(out, "\r\n") : 0;
}

/* s (one line, UTF-8) as RFC 2047 encoded-words "=?UTF-8?B?...?=", each of
 * at most 39 bytes of text (64 characters: §2 allows 75), never cutting a
 * character, folded onto continuation lines: every header line stays
 * under 78 characters (RFC 5322 §2.1.1). */
static int encoded_words(lb_buf *out, const char *s)
{
	size_t n = strlen(s), i = 0;

	if (!n)
		return 0;
	do {
		size_t k = n - i > 39 ? lb_utf8_clip(s + i, 39) : n - i;

		if (k == 0)
			k = 1;   /* a malformed byte: one_line() made none, but never loop */
		if ((i && lb_buf_adds(out, "\r\n ") < 0) || lb_buf_adds(out, "=?UTF-8?B?") < 0 ||
		    base64(out, (const unsigned char *)s + i, k, 0) < 0 || lb_buf_adds(out, "?=") < 0)
			return LB_ENOMEM;
		i += k;
	} while (i < n);
	return 0;
}

/* The words of a digest, per language. */
static int subject(lb_buf *b, const ant_notify_opts *o, int64_t total)
{
	if (one_line(b, o->title, 100) < 0)
		return LB_ENOMEM;
	if (is_ja(o))
		return lb_buf_addf(b, ": 更新 %lld 件", (long long)total);
	return lb_buf_addf(b, ": %lld update%s", (long long)total, total == 1 ? "" : "s");
}

/* The mail's text: each update's title, link, time and how it was found,
 * and its excerpt; then how many more, and the antenna's address. */
static int mail_text(lb_buf *b, const ant_notify_opts *o, const ant_notify_digest *d)
{
	char when[16];
	lb_buf diff = LB_BUF_INIT;
	int rc = subject(b, o, (int64_t)d->n + d->more);

	rc = rc < 0 ? rc : lb_buf_adds(b, "\n\n");
	for (size_t i = 0; rc >= 0 && i < d->n; i++) {
		const ant_notify_item *it = &d->items[i];
		short_time(when, it->last_modified, o->tz);
		rc = lb_buf_adds(b, is_ja(o) ? "■ " : "* ");
		rc = rc < 0 ? rc : one_line(b, *it->title ? it->title : it->url, 0);
		rc = rc < 0 ? rc : lb_buf_adds(b, "\n  ");
		rc = rc < 0 ? rc : one_line(b, it->url, 0);
		rc = rc < 0 ? rc : lb_buf_addf(b, "\n  %s (%s)\n", when, method_words(o, it->method));
		if (rc >= 0 && diff_url(&diff, o, it)) {
			rc = lb_buf_adds(b, is_ja(o) ? "  差分: " : "  Diff: ");
			rc = rc < 0 ? rc : one_line(b, diff.data, 0);
			rc = rc < 0 ? rc : lb_buf_adds(b, "\n");
		}
		if (rc >= 0 && *it->excerpt) {
			rc = lb_buf_adds(b, "  ");
			rc = rc < 0 ? rc : one_line(b, it->excerpt, ANT_NOTIFY_EXCERPT_CHARS);
			rc = rc < 0 ? rc : lb_buf_adds(b, "\n");
		}
		rc = rc < 0 ? rc : lb_buf_adds(b, "\n");
	}
	if (rc >= 0 && d->more)
		rc = lb_buf_addf(b, is_ja(o) ? "ほか %lld 件。\n\n" : "and %lld more.\n\n", (long long)d->more);
	rc = rc < 0 ? rc : lb_buf_adds(b, "-- \n");
	rc = rc < 0 ? rc : one_line(b, o->title, 0);
	rc = rc < 0 ? rc : lb_buf_adds(b, "\n");
	rc = rc < 0 ? rc : one_line(b, o->base, 0);
	lb_buf_release(&diff);
	return rc < 0 ? rc : lb_buf_adds(b, "\n");
}

/* The text's LF line ends as CRLF (RFC 5322 §2.3), then base64. */
static int mail_body(lb_buf *out, const lb_buf *text)
{
	lb_buf crlf = LB_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; rc >= 0 && i < text->len; i++)
		rc = text->data[i] == '\n' ? lb_buf_adds(&crlf, "\r\n") : lb_buf_addc(&crlf, text->data[i]);
	rc = rc < 0 ? rc : base64(out, (const unsigned char *)crlf.data, crlf.len, 76);
	lb_buf_release(&crlf);
	return rc;
}

/* The domain of the From address, for the Message-ID's right side. */
static const char *from_domain(const ant_notify_opts *o)
{
	const char *at = strrchr(o->from, '@');

	return at && at[1] ? at + 1 : "localhost";
}

int ant_notify_mail(lb_buf *out, const ant_notify_opts *o, const ant_notify_digest *d,
		    const char *rcpt)
{
	lb_buf b = LB_BUF_INIT, text = LB_BUF_INIT;
	static unsigned serial;
	int rc = one_line(&b, o->title, 100);

	rc = rc < 0 ? rc : lb_buf_adds(out, "From: ");
	if (rc >= 0 && b.len)   /* the antenna's title as the name, if it has one */
		rc = encoded_words(out, b.data) < 0 || lb_buf_adds(out, "\r\n ") < 0 ? LB_ENOMEM : 0;
	rc = rc < 0 ? rc : lb_buf_addf(out, "<%s>\r\nTo: <%s>\r\nSubject: ", o->from, rcpt);
	lb_buf_reset(&b);
	rc = rc < 0 ? rc : subject(&b, o, (int64_t)d->n + d->more);
	rc = rc < 0 ? rc : encoded_words(out, b.data);
	rc = rc < 0 ? rc : lb_buf_adds(out, "\r\nDate: ");
	rc = rc < 0 ? rc : mail_date(out, o->now, o->tz);
	rc = rc < 0 ? rc : lb_buf_addf(out, "\r\nMessage-ID: <%lld.%ld.%u.antenna@%s>\r\n",
				       (long long)o->now, (long)getpid(), serial++, from_domain(o));
	rc = rc < 0 ? rc : lb_buf_adds(out, "MIME-Version: 1.0\r\n"
				       "Content-Type: text/plain; charset=UTF-8\r\n"
				       "Content-Transfer-Encoding: base64\r\n"
				       "Auto-Submitted: auto-generated\r\n\r\n");
	rc = rc < 0 ? rc : mail_text(&text, o, d);
	rc = rc < 0 ? rc : mail_body(out, &text);
	lb_buf_release(&b);
	lb_buf_release(&text);
	return rc < 0 ? LB_ENOMEM : 0;
}

/* ---- the webhook's document ---------------------------------------------- */

static int json_time(lb_buf *out, const char *key, int64_t t)
{
	char b[24];

	if (rfc3339(b, t) < 0)
		return lb_json_next_strz_or_null(out, key, NULL);
	return lb_json_next_strz_or_null(out, key, b);
}

static int json_item(lb_buf *out, const ant_notify_opts *o, const ant_notify_item *it)
{
	lb_buf diff = LB_BUF_INIT;
	int rc = lb_buf_adds(out, "{");

	rc = rc < 0 ? rc : lb_json_key(out, "url");
	rc = rc < 0 ? rc : lb_json_strz(out, it->url);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "title", it->title);
	rc = rc < 0 ? rc : json_time(out, "time", it->last_modified);
	rc = rc < 0 ? rc : json_time(out, "detected", it->last_detected);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "method", *it->method ? it->method : NULL);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "excerpt", it->excerpt);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "source", it->source);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "diff", diff_url(&diff, o, it));
	lb_buf_release(&diff);
	return rc < 0 ? rc : lb_buf_adds(out, "}");
}

int ant_notify_json(lb_buf *out, const ant_notify_opts *o, const ant_notify_digest *d)
{
	int rc = lb_buf_adds(out, "{");

	rc = rc < 0 ? rc : lb_json_key(out, "antenna");
	rc = rc < 0 ? rc : lb_buf_adds(out, "{");
	rc = rc < 0 ? rc : lb_json_key(out, "title");
	rc = rc < 0 ? rc : lb_json_strz(out, o->title);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "url", o->base);
	rc = rc < 0 ? rc : lb_json_next_strz_or_null(out, "lang", o->lang);
	rc = rc < 0 ? rc : lb_buf_adds(out, "}");
	rc = rc < 0 ? rc : json_time(out, "time", o->now);
	rc = rc < 0 ? rc : lb_json_next_int(out, "count", (int64_t)d->n + d->more);
	rc = rc < 0 ? rc : lb_json_next_int(out, "more", d->more);
	rc = rc < 0 ? rc : lb_json_next_key(out, "updates");
	rc = rc < 0 ? rc : lb_buf_adds(out, "[");
	for (size_t i = 0; rc >= 0 && i < d->n; i++) {
		rc = i ? lb_buf_adds(out, ",") : 0;
		rc = rc < 0 ? rc : json_item(out, o, &d->items[i]);
	}
	rc = rc < 0 ? rc : lb_buf_adds(out, "]}\n");
	return rc < 0 ? LB_ENOMEM : 0;
}

/* ---- the run ------------------------------------------------------------- */

struct targets { ant_notify_target t[ANT_TARGET_MAX_COUNT]; size_t n; };

static int collect(void *ctx, const ant_notify_target *t)
{
	struct targets *ts = ctx;
	ant_notify_target *c = &ts->t[ts->n];

	if (ts->n == ANT_TARGET_MAX_COUNT)
		return 1;
	*c = *t;
	c->target = strdup(t->target);
	c->group = t->group ? strdup(t->group) : NULL;
	c->last_error = NULL;
	if (t->group && !c->group) {   /* never "every update" for want of memory */
		free(c->target);
		c->target = NULL;
	}
	ts->n++;
	return 0;
}

/* One target's digest built and sent: 0 delivered, < 0 failed (err). */
static int deliver(const ant_notify_opts *o, const ant_notify_target *t,
		   const ant_notify_digest *d, lb_error *err)
{
	lb_buf msg = LB_BUF_INIT;
	int kind = ant_target_kind(t->target, err), rc = kind;

	if (kind == ANT_TARGET_MAIL && (rc = ant_notify_mail(&msg, o, d, t->target + 7)) == 0)
		rc = ant_notify_send_mail(o, t->target + 7, &msg, err);
	else if (kind == ANT_TARGET_WEBHOOK && (rc = ant_notify_json(&msg, o, d)) == 0)
		rc = ant_notify_send_webhook(o, t->target, &msg, err);
	if (rc == LB_ENOMEM)
		lb_err(err, rc, "out of memory");
	lb_buf_release(&msg);
	return rc;
}

int ant_notify_run(ant_store *s, const ant_notify_opts *o, lb_error *err)
{
	struct targets ts = { .n = 0 };
	int64_t since = o->now - o->max_age;
	int rc, failed = 0;

	if ((rc = ant_store_notify_each(s, since, collect, &ts, err)) < 0)
		goto out;
	for (size_t i = 0; rc >= 0 && i < ts.n; i++) {
		ant_notify_target *t = &ts.t[i];
		ant_notify_digest d;
		lb_error why = LB_ERROR_INIT;
		int r;

		if (!t->target) {
			rc = lb_err(err, LB_ENOMEM, "out of memory");
			break;
		}
		if ((rc = ant_store_notify_digest(s, t, since, o->max_listed, &d, err)) < 0)
			break;
		if (d.n == 0) {
			rc = d.upto > t->after_seq ?
			     ant_store_notify_tried(s, t->id, o->now, d.upto, ANT_NOTIFY_NOTHING, err) : 0;
			ant_notify_digest_release(&d);
			continue;
		}
		r = deliver(o, t, &d, &why);
		failed += r < 0;
		if (o->on_target)
			o->on_target(o->ctx, t, &d, r, &why);
		rc = ant_store_notify_tried(s, t->id, o->now, d.upto, r < 0 ? lb_error_msg(&why) : NULL, err);
		ant_notify_digest_release(&d);
	}
out:
	for (size_t i = 0; i < ts.n; i++)
		ant_notify_target_release(&ts.t[i]);
	return rc < 0 ? rc : failed;
}
