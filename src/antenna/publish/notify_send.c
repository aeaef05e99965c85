/*
 * notify_send.c: delivering a notification (ant_notify.h) with libcurl:
 * a mail through the antenna's SMTP server (smtp:// with STARTTLS when the
 * server offers it, or smtps://); a JSON document POSTed to a webhook with
 * ant_post() (post.c).  Each transfer is bounded in time and follows no
 * redirect.
 */
#include "ant_notify.h"
#include "ant_post.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "lirs.h"   /* LIRS_VERSION */

#define NOTIFY_USER_AGENT "lirs-antenna/" LIRS_VERSION " (notification)"
#define NOTIFY_MAX_PASSWORD 1024

struct upload { const lb_buf *b; size_t off; };

static size_t read_cb(char *buf, size_t size, size_t nitems, void *ctx)
{
	struct upload *u = ctx;
	size_t n = u->b->len - u->off;

	if (n > size * nitems)
		n = size * nitems;
	memcpy(buf, u->b->data + u->off, n);
	u->off += n;
	return n;
}

/* The first line of the password file into pw.  0, or < 0 with err. */
static int read_password(const char *path, char pw[NOTIFY_MAX_PASSWORD], lb_error *err)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return lb_err_sys(err, "cannot open the SMTP password file '%s'", path);
	if (!fgets(pw, NOTIFY_MAX_PASSWORD, f)) {
		fclose(f);
		return lb_err(err, LB_EINVAL, "the SMTP password file '%s' is empty", path);
	}
	fclose(f);
	n = strcspn(pw, "\r\n");
	if (!pw[n] && n == NOTIFY_MAX_PASSWORD - 1)
		return lb_err(err, LB_ETOOBIG, "the SMTP password in '%s' is over %d bytes", path,
			      NOTIFY_MAX_PASSWORD - 2);
	pw[n] = '\0';
	return 0;
}

/* The options every notification transfer has: bounded, no redirect,
 * no signal (a timeout must not kill the run), our name. */
static void common(CURL *c, const ant_notify_opts *o, char *errbuf, const char *protocols)
{
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->connect_timeout);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, protocols);
	curl_easy_setopt(c, CURLOPT_USERAGENT, NOTIFY_USER_AGENT);
}


static int failed(lb_error *err, CURLcode rc, const char *errbuf, const char *what, const char *to)
{
	return lb_err(err, LB_ENET, "%s '%s': %s", what, to, *errbuf ? errbuf : curl_easy_strerror(rc));
}

int ant_notify_send_mail(const ant_notify_opts *o, const char *rcpt, const lb_buf *msg,
			 lb_error *err)
{
	char errbuf[CURL_ERROR_SIZE] = "", pw[NOTIFY_MAX_PASSWORD], addr[300];
	struct upload up = { msg, 0 };
	struct curl_slist *to = NULL;
	CURL *c;
	CURLcode cr;
	int rc = 0;

	if (!ant_target_smtp_url_ok(o->smtp_url))
		return lb_err(err, LB_EINVAL, "'%s' is not an smtp:// or smtps:// URL", o->smtp_url);
	if (o->smtp_password_file && *o->smtp_password_file &&
	    (rc = read_password(o->smtp_password_file, pw, err)) < 0)
		return rc;
	snprintf(addr, sizeof addr, "<%s>", rcpt);
	if (!(c = curl_easy_init()) || !(to = curl_slist_append(NULL, addr))) {
		curl_easy_cleanup(c);
		return lb_err(err, LB_ENOMEM, "out of memory");
	}
	common(c, o, errbuf, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_URL, o->smtp_url);
	/* STARTTLS when the server offers it (RFC 3207), or required (init
	 * --smtp-tls require); smtps:// is TLS from the start */
	curl_easy_setopt(c, CURLOPT_USE_SSL, (long)(o->smtp_tls_required ? CURLUSESSL_ALL : CURLUSESSL_TRY));
	if (o->smtp_password_file && *o->smtp_password_file)
		curl_easy_setopt(c, CURLOPT_PASSWORD, pw);
	snprintf(addr, sizeof addr, "<%s>", o->from);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, addr);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &up);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)msg->len);
	if ((cr = curl_easy_perform(c)) != CURLE_OK)
		rc = failed(err, cr, errbuf, "cannot mail", rcpt);
	memset(pw, 0, sizeof pw);
	curl_slist_free_all(to);
	curl_easy_cleanup(c);
	return rc;
}

/* The one bounded POST (ant_post.h, shared with WebSub's pings). */
int ant_notify_send_webhook(const ant_notify_opts *o, const char *url, const lb_buf *json,
			    lb_error *err)
{
	ant_post_req r = { .url = url, .content_type = "application/json", .body = json->data,
			   .len = json->len, .timeout = o->timeout };

	return ant_post(&r, NULL, err);
}
