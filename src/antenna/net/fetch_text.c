/*
 * fetch_text.c: the words of fetch.c's answers: each error kind's stable
 * name and its text, the reason phrase an HTTP/2 status line lacks, a
 * request's host name and a deferred request's answer (shared with
 * fetch_polite.c).  Kept apart from fetch.c, which holds the transfers.
 */
#include "ant_fetch.h"
#include "fetch_int.h"
#include "lb_date.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ant_fetch_errkind_name(ant_fetch_errkind k)
{
	static const char *const name[] = {
		[ANT_FETCH_OK] = "ok",
		[ANT_FETCH_ERR_DNS] = "dns",
		[ANT_FETCH_ERR_CONNECT] = "connect",
		[ANT_FETCH_ERR_TIMEOUT] = "timeout",
		[ANT_FETCH_ERR_TLS] = "tls",
		[ANT_FETCH_ERR_TOO_BIG] = "too-big",
		[ANT_FETCH_ERR_REDIRECTS] = "redirects",
		[ANT_FETCH_ERR_PROTOCOL] = "protocol",
		[ANT_FETCH_ERR_HEADER_TOO_BIG] = "header-too-big",
		[ANT_FETCH_ERR_INTERNAL] = "internal",
		[ANT_FETCH_ERR_DEFERRED] = "deferred",
		[ANT_FETCH_ERR_OTHER] = "other",
	};
	return (unsigned)k < sizeof name / sizeof *name ? name[k] : "other";
}

const char *ant_fetch_kind_text(ant_fetch_errkind k)
{
	static const char *const text[] = {
		[ANT_FETCH_OK] = "ok",
		[ANT_FETCH_ERR_DNS] = "cannot resolve host",
		[ANT_FETCH_ERR_CONNECT] = "cannot connect",
		[ANT_FETCH_ERR_TIMEOUT] = "timed out",
		[ANT_FETCH_ERR_TLS] = "tls error",
		[ANT_FETCH_ERR_TOO_BIG] = "body too big",
		[ANT_FETCH_ERR_REDIRECTS] = "too many redirects",
		[ANT_FETCH_ERR_PROTOCOL] = "protocol not allowed",
		[ANT_FETCH_ERR_HEADER_TOO_BIG] = "response header too large",
		[ANT_FETCH_ERR_INTERNAL] = "refused to connect to an internal address",
		[ANT_FETCH_ERR_DEFERRED] = "deferred: the server asked us to wait",
		[ANT_FETCH_ERR_OTHER] = "transfer failed",
	};
	return (unsigned)k < sizeof text / sizeof *text ? text[k] : "transfer failed";
}

/* HTTP/2 status lines carry no reason phrase. */
const char *ant_fetch_reason_of(long status)
{
	static const struct { long code; const char *text; } t[] = {
		{ 400, "Bad Request" }, { 401, "Unauthorized" }, { 403, "Forbidden" },
		{ 404, "Not Found" }, { 410, "Gone" }, { 429, "Too Many Requests" },
		{ 500, "Internal Server Error" }, { 502, "Bad Gateway" },
		{ 503, "Service Unavailable" }, { 504, "Gateway Timeout" },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (t[i].code == status)
			return t[i].text;
	return "HTTP error";
}

/* ---- the kind a page's failure is stored as (ant_outcome.h) ---- */

_Static_assert((int)ANT_FAIL_DNS == (int)ANT_FETCH_ERR_DNS &&
	       (int)ANT_FAIL_OTHER == (int)ANT_FETCH_ERR_OTHER &&
	       (int)ANT_FAIL_DEFERRED == (int)ANT_FETCH_ERR_DEFERRED,
	       "the fetch kinds keep fetch.c's numbers");

ant_fail_kind ant_fetch_fail_kind(const ant_fetch_result *res)
{
	if (res->local)
		return ANT_FAIL_LOCAL;
	if (res->err != ANT_FETCH_OK)
		return (ant_fail_kind)res->err;
	if (res->status >= 400 || res->status < 200)
		return ANT_FAIL_HTTP;
	return ANT_FAIL_NONE;
}

char *ant_fetch_host_name(const char *url)
{
	CURLU *u = curl_url();
	char *h = NULL, *s;

	if (u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK)
		curl_url_get(u, CURLUPART_HOST, &h, 0);
	curl_url_cleanup(u);
	s = strdup(h ? h : "");
	curl_free(h);
	for (char *p = s; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

void ant_fetch_deferred(ant_fetch_result *res, const char *key, int64_t until, int64_t now)
{
	char when[32];

	res->err = ANT_FETCH_ERR_DEFERRED;
	res->status = 0;
	res->retry_after = until - now;
	if (lb_date_imf(when, until) < 0)
		snprintf(when, sizeof when, "%lld", (long long)until);
	snprintf(res->error, sizeof res->error, "deferred: %.100s asked us to wait until %s "
		 "(Retry-After)", key, when);
}
