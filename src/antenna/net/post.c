/*
 * post.c: ant_post(), one bounded HTTP POST with libcurl's easy interface
 * (ant_post.h).  The target is the operator's own (a hub, a webhook), so
 * internal addresses are allowed, as for the pages added by hand; what
 * comes back is bounded and never shown.
 */
#include "ant_post.h"

#include <curl/curl.h>
#include <pthread.h>
#include <string.h>

#include "lb_url.h"
#include "lirs.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* What the server answers is read and dropped (never printed: it is
 * outside text); only its status counts. */
static size_t drop(char *p, size_t size, size_t n, void *ctx)
{
	return size * n;
}

int ant_post(const ant_post_req *r, long *status, lb_error *err)
{
	struct curl_slist *h = NULL;
	char hdr[256];
	long code = 0;
	CURLcode cc;
	CURL *e;

	if (status)
		*status = 0;
	if (!lb_url_is_http(r->url))
		return lb_err(err, LB_EINVAL, "'%s' is not an http or https URL", r->url);
	pthread_once(&once, global_init);
	if (global_rc != CURLE_OK || !(e = curl_easy_init()))
		return lb_err(err, LB_ENET, "%s: libcurl could not start", r->url);
	snprintf(hdr, sizeof hdr, "Content-Type: %s", r->content_type);
	h = curl_slist_append(h, hdr);
	curl_easy_setopt(e, CURLOPT_URL, r->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "lirs-antenna/" LIRS_VERSION);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, r->timeout > 0 ? r->timeout : (long)ANT_POST_TIMEOUT);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)ANT_POST_CONNECT_TIMEOUT);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, drop);
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)ANT_POST_MAX_ANSWER);
	cc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(e);
	curl_slist_free_all(h);
	if (status)
		*status = code;
	if (cc != CURLE_OK)
		return lb_err(err, LB_ENET, "%s: %s", r->url, curl_easy_strerror(cc));
	if (code < 200 || code > 299)
		return lb_err(err, LB_ENET, "%s: HTTP status %ld", r->url, code);
	return 0;
}
