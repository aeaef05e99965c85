/*
 * fetch.c: concurrent HTTP(S) transfers with libcurl's multi interface.
 *
 * With fetch_addr.c (the internal-address guard) the transfers' side of
 * libcurl.  One ant_fetch_run() call drives every request to an end on
 * the calling thread; with limits->done_aside the answers are told on one
 * helper thread meanwhile (ant_worker.h), at most ANT_FETCH_ASIDE_MAX of
 * them waiting.  Scheduling is ours, not curl's: a request starts only
 * when fewer than limits->jobs transfers run in all, fewer than
 * limits->per_host run for its server (ant_polite.h: a registrable domain,
 * joined by the names seen at one address), the server's minimum delay
 * has passed and no Retry-After of its holds; a redirect's next hop is
 * such a request too (redirect_next, start_hops), libcurl following none,
 * so every request of a run counts against its server from the first.
 * CURLMOPT_MAX_HOST_CONNECTIONS
 * is set as well, as a second fence.  HTTP/2 multiplexes a server's
 * requests on one connection (CURLPIPE_MULTIPLEX, CURLOPT_PIPEWAIT: a
 * second request waits for the first connection's ALPN rather than open
 * another).  The multi handle, so its connection cache and DNS cache,
 * lives in an ant_fetch_pool, which a caller running in batches keeps for
 * the whole run (limits->pool).
 *
 * Thread rules: curl_global_init() runs once per process, guarded by
 * pthread_once, the first time ant_fetch_run() is called; after that several
 * threads may call ant_fetch_run() at once (each has its own handles).  Nothing
 * calls curl_global_cleanup(): the process exit releases it.  The done
 * callback runs on the thread that called ant_fetch_run(), or with
 * limits->done_aside on the run's one helper thread.
 *
 * Limits (ant_fetch.h): connect and total timeouts; max_body decoded bytes
 * (Content-Encoding is decoded by curl, CURLOPT_ACCEPT_ENCODING "", so a
 * gzip bomb is stopped in the write callback once it inflates past the
 * limit; a Content-Length over the limit is refused before the body);
 * max_redirects; http and https only (file:// when allow_file, and never
 * as a redirect target).
 *
 * Internal addresses (ant_addr.h, ant_fetch.h): decided where libcurl
 * opens a socket (CURLOPT_OPENSOCKETFUNCTION), on the address it is about
 * to connect, for the first request and for every redirect; and again
 * before each request is sent (CURLOPT_PREREQFUNCTION, libcurl 7.80),
 * because the multi handle's connections are shared: a transfer allowed
 * to reach an internal host leaves a connection another transfer, not
 * allowed there, could otherwise reuse without a socket being opened.
 */
#include "ant_fetch.h"
#include "ant_addr.h"
#include "ant_polite.h"
#include "fetch_int.h"
#include "lb_buf.h"
#include "lb_date.h"
#include "lirs.h"

#include <curl/curl.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- limits -------------------------------------------------------------- */

static long lim_or(long v, long def)
{
	return v > 0 ? v : def;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t max_body_of(const ant_fetch_limits *l)
{
	return l && l->max_body ? l->max_body : ANT_FETCH_DEFAULT_MAX_BODY;
}

static size_t max_header_of(const ant_fetch_limits *l)
{
	return l && l->max_header ? l->max_header : ANT_FETCH_DEFAULT_MAX_HEADER;
}

/* ---- response headers ---------------------------------------------------- */

static void xfer_clear_headers(xfer *x)
{
	free(x->etag);
	free(x->last_modified);
	free(x->date);
	free(x->content_type);
	free(x->retry_after);
	x->etag = x->last_modified = x->date = x->content_type = x->retry_after = NULL;
	x->reason[0] = '\0';
	x->content_length = -1;
}

/* Copies a header value, trimmed of surrounding blanks and the CRLF. */
static char *value_dup(const char *v, size_t n)
{
	char *s;

	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	s = malloc(n + 1);
	if (s) {
		memcpy(s, v, n);
		s[n] = '\0';
	}
	return s;
}

static void set_field(char **field, const char *v, size_t n)
{
	free(*field);
	*field = value_dup(v, n);
}

/* "HTTP/1.1 404 Not Found": keep "Not Found" for the error text. */
static void take_status_line(xfer *x, const char *line, size_t n)
{
	const char *p = memchr(line, ' ', n), *end = line + n;
	char *s;

	xfer_clear_headers(x);
	if (!p)
		return;
	p++;
	if (end - p >= 3 && p[0] == '3' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2])) {
		int code = (p[1] - '0') * 10 + (p[2] - '0');   /* 3xx: a redirect, or 304 */

		if (code == 1 || code == 8)
			x->redirects_permanent++;
		else if (code == 2 || code == 3 || code == 7)
			x->redirects_temporary++;
	}
	while (p < end && isdigit((unsigned char)*p))
		p++;
	s = value_dup(p, (size_t)(end - p));
	if (s) {
		snprintf(x->reason, sizeof x->reason, "%s", s);
		free(s);
	}
}

static size_t on_header(char *line, size_t size, size_t nitems, void *arg)
{
	xfer *x = arg;
	size_t n = size * nitems;
	const char *colon;
	size_t name_len;

	/* Each response of a redirect chain starts with a status line; keep
	 * only the last response's headers. */
	if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
		x->header_bytes = 0;
		x->headers_done = 0;
	}
	/* Our limit on one response's header block: stop before
	 * libcurl's own, which it reports as "Out of memory". */
	x->header_bytes += n;
	if (x->header_bytes > x->max_header) {
		x->header_too_big = 1;
		return 0;
	}
	if (n >= 5 && memcmp(line, "HTTP/", 5) == 0) {
		take_status_line(x, line, n);
		return n;
	}
	if ((n == 2 && line[0] == '\r' && line[1] == '\n') || (n == 1 && line[0] == '\n')) {
		x->headers_done = 1;
		return n;
	}
	colon = memchr(line, ':', n);
	if (!colon)
		return n;
	name_len = (size_t)(colon - line);
	colon++;
	n -= name_len + 1;
#define IS(name) (name_len == sizeof name - 1 && strncasecmp(line, name, name_len) == 0)
	if (IS("ETag"))
		set_field(&x->etag, colon, n);
	else if (IS("Last-Modified"))
		set_field(&x->last_modified, colon, n);
	else if (IS("Date"))
		set_field(&x->date, colon, n);
	else if (IS("Content-Type"))
		set_field(&x->content_type, colon, n);
	else if (IS("Retry-After"))
		set_field(&x->retry_after, colon, n);
	else if (IS("Content-Length")) {
		char *v = value_dup(colon, n), *end;
		long long len;

		if (v) {
			len = strtoll(v, &end, 10);
			if (end != v && *end == '\0' && len >= 0)
				x->content_length = len;
			free(v);
		}
	}
#undef IS
	return size * nitems;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	xfer *x = arg;
	size_t n = size * nmemb;

	/* Data arrives decoded, so this also catches decompression bombs. */
	if (n > x->max_body - x->body.len) {
		x->too_big = 1;
		return 0;
	}
	if (lb_buf_add(&x->body, data, n) < 0)
		return 0;
	return n;
}

/* ---- setting up one transfer --------------------------------------------- */

/* A stored validator is echoed only when it is a single clean line. */
static int header_safe(const char *v)
{
	return v && *v && !strpbrk(v, "\r\n");
}

static struct curl_slist *conditional_headers(const ant_fetch_req *r)
{
	struct curl_slist *l = NULL, *t;
	lb_buf b = LB_BUF_INIT;

	if (header_safe(r->etag) && lb_buf_addf(&b, "If-None-Match: %s", r->etag) == 0) {
		t = curl_slist_append(l, b.data);
		if (t)
			l = t;
	}
	lb_buf_reset(&b);
	if (header_safe(r->last_modified) &&
	    lb_buf_addf(&b, "If-Modified-Since: %s", r->last_modified) == 0) {
		t = curl_slist_append(l, b.data);
		if (t)
			l = t;
	}
	lb_buf_release(&b);
	return l;
}

static void xfer_free(xfer *x)
{
	if (!x)
		return;
	if (x->easy && x->run->pool->nidle < sizeof x->run->pool->idle / sizeof *x->run->pool->idle) {
		ant_fetch_pool *p = x->run->pool;

		/* its run's options stay; nothing of this transfer's that goes now */
		curl_easy_setopt(x->easy, CURLOPT_PRIVATE, NULL);
		curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, NULL);
		curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, NULL);
		p->idle_run[p->nidle] = x->run->run_no;
		p->idle[p->nidle++] = x->easy;
	} else if (x->easy) {
		curl_easy_cleanup(x->easy);
	}
	curl_slist_free_all(x->hdrs);
	xfer_clear_headers(x);
	lb_buf_release(&x->body);
	free(x->allow_hp);
	free(x->hop_url);
	free(x->hop_hp);
	free(x->next_url);
	free(x);
}

static void run_options(runner *r, const xfer *x, CURL *e);

/* An idle handle, or a new one; *same: it has this run's options already
 * (another run's are reset: its limits may differ). */
static CURL *take_handle(runner *r, int *same)
{
	ant_fetch_pool *p = r->pool;
	CURL *e;

	*same = 0;
	if (!p->nidle)
		return curl_easy_init();
	e = p->idle[--p->nidle];
	if (p->idle_run[p->nidle] == r->run_no)
		*same = 1;
	else
		curl_easy_reset(e);
	return e;
}

static xfer *xfer_new(runner *r, size_t idx)
{
	const ant_fetch_limits *l = r->lim;
	const ant_fetch_req *q = &r->reqs[idx];
	xfer *x = calloc(1, sizeof *x);
	int same;
	CURL *e;

	if (!x)
		return NULL;
	x->idx = idx;
	x->host = r->host_of[idx];
	x->run = r;
	x->allow_private = l && l->allow_private;
	x->max_body = max_body_of(l);
	x->max_header = max_header_of(l);
	x->content_length = -1;
	lb_buf_init(&x->body);
	x->easy = e = take_handle(r, &same);
	if (!e) {
		free(x->allow_hp);
		free(x);
		return NULL;
	}
	x->hdrs = conditional_headers(q);
	/* this transfer's own options */
	curl_easy_setopt(e, CURLOPT_URL, q->url ? q->url : "");
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	/* the hops of a redirect set the rest of the chain's (start_hops) */
	curl_easy_setopt(e, CURLOPT_TIMEOUT, lim_or(l ? l->timeout : 0, ANT_FETCH_DEFAULT_TIMEOUT));
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
	curl_easy_setopt(e, CURLOPT_PREREQDATA, x);
	/* libcurl takes the list into its DNS cache at each start, then forgets it */
	if (r->pool->resolve)
		curl_easy_setopt(e, CURLOPT_RESOLVE, r->pool->resolve);
	if (!same)
		run_options(r, x, e);
	return x;
}

/* The options every transfer of the run shares, set once on a handle
 * (take_handle): kept while the handle goes from transfer to transfer. */
static void run_options(runner *r, const xfer *x, CURL *e)
{
	const ant_fetch_limits *l = r->lim;

	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, l && l->allow_file ? "http,https,file" : "http,https");
	/* redirects are ours (redirect_next): a hop waits for its server */
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, lim_or(l ? l->connect_timeout : 0, ANT_FETCH_DEFAULT_CONNECT_TIMEOUT));
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_body);
	curl_easy_setopt(e, CURLOPT_USERAGENT, r->ua);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	if (getenv("CURL_CA_BUNDLE") && *getenv("CURL_CA_BUNDLE"))
		curl_easy_setopt(e, CURLOPT_CAINFO, getenv("CURL_CA_BUNDLE"));
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	/* a file:// page's time (file_result); an HTTP answer's Last-Modified
	 * is parsed once, by us (libcurl's parse of it: sscanf, 0.5% of CPU) */
	if (l && l->allow_file)
		curl_easy_setopt(e, CURLOPT_FILETIME, 1L);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, ant_fetch_open_socket);
	curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, ant_fetch_prereq);
}

/* ---- host table and queue ------------------------------------------------ */

/* Interns every request's host in the politeness state. */
static int hosts_build(runner *r)
{
	for (size_t i = 0; i < r->n; i++) {
		char *h = ant_fetch_host_name(r->reqs[i].url);

		if (!h)
			return LB_ENOMEM;
		r->host_of[i] = ant_polite_host(r->pol, h);
		free(h);
		if (r->host_of[i] < 0)
			return LB_ENOMEM;
	}
	return 0;
}

/* ---- results ------------------------------------------------------------- */

static int64_t parse_date(const char *s)
{
	time_t t;
	int64_t imf;

	if (!s)
		return 0;
	/* the one spelling nearly every server sends, without libcurl's
	 * general parser (sscanf: 1.6% of update's CPU) */
	if (lb_date_parse_imf(s, strlen(s), &imf))
		return imf > 0 ? imf : 0;
	t = curl_getdate(s, NULL);
	return t > 0 ? (int64_t)t : 0;
}

/* RFC 9110 §10.2.3: delay-seconds or an HTTP-date, the latter taken
 * relative to the response's own Date (the server's clock), else ours. */
static int64_t retry_after_seconds(const char *v, int64_t date)
{
	char *end;
	long long s;
	int64_t t;

	if (!v || !*v)
		return 0;
	if (isdigit((unsigned char)*v)) {
		s = strtoll(v, &end, 10);
		if (*end == '\0')
			return s > 0 ? (int64_t)s : 0;
	}
	t = parse_date(v);
	if (!t)
		return 0;
	t -= date ? date : (int64_t)time(NULL);
	return t > 0 ? t : 0;
}

static ant_fetch_errkind kind_of(CURLcode rc, const xfer *x)
{
	/* our callbacks refused every address (open-socket) or the request (prereq) */
	if (x->refused[0] && (rc == CURLE_COULDNT_CONNECT || rc == CURLE_ABORTED_BY_CALLBACK))
		return ANT_FETCH_ERR_INTERNAL;
	switch (rc) {
	case CURLE_OK:
		return ANT_FETCH_OK;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return ANT_FETCH_ERR_DNS;
	case CURLE_COULDNT_CONNECT:
		return ANT_FETCH_ERR_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return ANT_FETCH_ERR_TIMEOUT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_USE_SSL_FAILED:
		return ANT_FETCH_ERR_TLS;
	case CURLE_FILESIZE_EXCEEDED:
		return ANT_FETCH_ERR_TOO_BIG;
	case CURLE_WRITE_ERROR:
		return x->header_too_big ? ANT_FETCH_ERR_HEADER_TOO_BIG :
		       x->too_big ? ANT_FETCH_ERR_TOO_BIG : ANT_FETCH_ERR_OTHER;
	case CURLE_OUT_OF_MEMORY:
		/* libcurl's words for a header line over CURL_MAX_HTTP_HEADER
		 * (its dynbuf limit), before any header block ended */
		return x->headers_done ? ANT_FETCH_ERR_OTHER : ANT_FETCH_ERR_HEADER_TOO_BIG;
#if LIBCURL_VERSION_NUM >= 0x080600
	case CURLE_TOO_LARGE:
		return x->headers_done ? ANT_FETCH_ERR_OTHER : ANT_FETCH_ERR_HEADER_TOO_BIG;
#endif
	case CURLE_TOO_MANY_REDIRECTS:
		return ANT_FETCH_ERR_REDIRECTS;
	case CURLE_UNSUPPORTED_PROTOCOL:
		return ANT_FETCH_ERR_PROTOCOL;
	default:
		return ANT_FETCH_ERR_OTHER;
	}
}

/*
 * What happened, in our words: libcurl's own text (kept after
 * it as detail) says "Out of memory" for a header over its limit and
 * "Failure when receiving data from the peer" for a reset connection.
 */
static void say_what_happened(char *out, size_t n, ant_fetch_errkind k, CURLcode rc, const xfer *x)
{
	const char *what = ant_fetch_kind_text(k), *lib = x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc);
	long oserr = 0;

	switch (k) {
	case ANT_FETCH_ERR_HEADER_TOO_BIG:
		if (x->header_too_big)
			snprintf(out, n, "response header too large: over %zu bytes (--max-header)",
				 x->max_header);
		else
			snprintf(out, n, "response header too large: a header line over %d bytes, "
				 "libcurl's limit (libcurl: %.100s)", CURL_MAX_HTTP_HEADER, lib);
		return;
	case ANT_FETCH_ERR_TOO_BIG:
		snprintf(out, n, "body too big: over %zu bytes (--max-body)", x->max_body);
		return;
	case ANT_FETCH_ERR_INTERNAL:
		snprintf(out, n, "%s", x->refused);
		return;
	case ANT_FETCH_ERR_CONNECT:
		curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &oserr);
		if (oserr == ECONNREFUSED)
			what = "connection refused";
		else if (oserr == EHOSTUNREACH || oserr == ENETUNREACH)
			what = "host unreachable";
		else if (oserr == ETIMEDOUT)
			what = "cannot connect: timed out";
		break;
	case ANT_FETCH_ERR_TLS:
		what = rc == CURLE_PEER_FAILED_VERIFICATION ? "TLS certificate not trusted" :
		       "TLS handshake failed";
		break;
	case ANT_FETCH_ERR_OTHER:
		switch (rc) {
		case CURLE_GOT_NOTHING: what = "empty reply: the server closed the connection"; break;
		case CURLE_RECV_ERROR: what = "connection broken while receiving"; break;
		case CURLE_SEND_ERROR: what = "connection broken while sending"; break;
		case CURLE_PARTIAL_FILE: what = "answer cut short"; break;
		case CURLE_BAD_CONTENT_ENCODING: what = "cannot decode the Content-Encoding"; break;
		case CURLE_WEIRD_SERVER_REPLY: what = "not an HTTP answer"; break;
		case CURLE_URL_MALFORMAT: what = "malformed URL"; break;
		case CURLE_HTTP2: case CURLE_HTTP2_STREAM: what = "HTTP/2 protocol error"; break;
		case CURLE_OUT_OF_MEMORY: what = "out of memory"; break;
		default: break;
		}
		break;
	default:
		break;
	}
	snprintf(out, n, "%s: %.200s", what, lib);
}

/* file:// answers carry no headers; give the caller the file's mtime in
 * HTTP-date form and a 200, so a file page looks like a plain HTTP one. */
static void file_result(ant_fetch_result *res, CURL *e)
{
	curl_off_t ft = -1;
	char buf[30];

	res->status = 200;
	if (curl_easy_getinfo(e, CURLINFO_FILETIME_T, &ft) != CURLE_OK || ft < 0 ||
	    lb_date_imf(buf, (int64_t)ft) < 0)
		return;
	res->last_modified = strdup(buf);
	res->last_modified_time = (int64_t)ft;
}

static void fill_result(ant_fetch_result *res, xfer *x, CURLcode rc)
{
	char *url = NULL, *scheme = NULL;
	double secs = 0;
	long status = 0;

	memset(res, 0, sizeof *res);
	res->content_length = -1;
	res->conditional_retried = x->retried;
	res->err = kind_of(rc, x);
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME, &secs);
	secs += x->spent;   /* the hops before (redirect_next) */
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &url);
	curl_easy_getinfo(x->easy, CURLINFO_SCHEME, &scheme);
	res->seconds = secs;
	res->effective_url = url ? strdup(url) : NULL;
	/* the last answer is not followed: a redirect only when it led on */
	res->redirect = x->redirects_temporary ? ANT_FETCH_REDIRECT_TEMPORARY :
			x->redirects_permanent ? ANT_FETCH_REDIRECT_PERMANENT : ANT_FETCH_REDIRECT_NONE;
	if (res->err != ANT_FETCH_OK) {
		res->status = status;
		say_what_happened(res->error, sizeof res->error, res->err, rc, x);
		res->local = res->err == ANT_FETCH_ERR_OTHER && rc == CURLE_OUT_OF_MEMORY;
		res->body = strdup("");
		return;
	}
	res->len = x->body.len;
	res->body = lb_buf_detach(&x->body, NULL);
	if (scheme && strcasecmp(scheme, "file") == 0) {
		file_result(res, x->easy);
		return;
	}
	res->status = status;
	res->etag = x->etag, x->etag = NULL;
	res->last_modified = x->last_modified, x->last_modified = NULL;
	res->content_type = x->content_type, x->content_type = NULL;
	res->content_length = x->content_length;
	res->last_modified_time = parse_date(res->last_modified);
	res->date_time = parse_date(x->date);
	if (status == 429 || status == 503)
		res->retry_after = retry_after_seconds(x->retry_after, res->date_time);
	if (status >= 400)
		snprintf(res->error, sizeof res->error, "%ld %s", status,
			 x->reason[0] ? x->reason : ant_fetch_reason_of(status));
}

static void result_release(ant_fetch_result *res)
{
	free(res->body);
	free(res->etag);
	free(res->last_modified);
	free(res->content_type);
	free(res->effective_url);
}

static void tell(runner *r, size_t idx, xfer *x, const ant_fetch_result *res);

/* A request that could not even be set up is still reported. */
static void report_failure(runner *r, size_t idx, const char *why)
{
	ant_fetch_result res;

	memset(&res, 0, sizeof res);
	res.err = ANT_FETCH_ERR_OTHER;
	res.local = 1;
	res.content_length = -1;
	res.body = (char *)lb_buf_empty;
	snprintf(res.error, sizeof res.error, "%s", why);
	tell(r, idx, NULL, &res);
}

/* A request to a server that asked us to wait until then: not sent. */
static void report_deferred(runner *r, size_t idx, int64_t until, int64_t now)
{
	ant_fetch_result res;

	memset(&res, 0, sizeof res);
	res.content_length = -1;
	res.body = (char *)lb_buf_empty;
	ant_fetch_deferred(&res, ant_polite_wait_key(r->pol, r->host_of[idx]), until, now);
	tell(r, idx, NULL, &res);
}

/* ---- the loop ------------------------------------------------------------ */

static void fill_result(ant_fetch_result *res, xfer *x, CURLcode rc);

/* The redirect hops waiting in r->hopq that their servers take now, in
 * the order they came: each counts against its own server's limit and
 * delay, as a first request does; one to a server that asked us to wait
 * is not sent (ANT_FETCH_ERR_DEFERRED). */
static void start_hops(runner *r, long jobs, long per_host, int64_t delay, int64_t now_ms,
		       int64_t now)
{
	xfer **pp = &r->hopq, *x;

	while ((x = *pp) && r->active < jobs) {
		int64_t until;
		long left;

		if ((until = ant_polite_blocked(r->pol, x->host, now))) {
			ant_fetch_result res;

			*pp = x->next_wait;
			r->live[x->idx] = NULL;
			fill_result(&res, x, CURLE_OK);
			free(res.body);
			res.body = strdup("");
			res.len = 0;
			free(res.effective_url);
			res.effective_url = x->next_url;
			x->next_url = NULL;
			ant_fetch_deferred(&res, ant_polite_wait_key(r->pol, x->host), until, now);
			tell(r, x->idx, x, &res);
			continue;
		}
		if (!ant_polite_may_start(r->pol, x->host, per_host, now_ms, &r->wake_ms)) {
			pp = &x->next_wait;
			continue;
		}
		*pp = x->next_wait;
		x->next_wait = NULL;
		/* the whole chain keeps to the one timeout */
		left = lim_or(r->lim ? r->lim->timeout : 0, ANT_FETCH_DEFAULT_TIMEOUT) * 1000 -
		       (long)(x->spent * 1000);
		curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, left > 1000 ? left : 1000L);
		curl_easy_setopt(x->easy, CURLOPT_URL, x->next_url);
		free(x->next_url);
		x->next_url = NULL;
		if (curl_multi_add_handle(r->multi, x->easy) != CURLM_OK) {
			ant_fetch_result res;

			r->live[x->idx] = NULL;
			fill_result(&res, x, CURLE_OUT_OF_MEMORY);
			res.local = 1;
			snprintf(res.error, sizeof res.error, "cannot follow the redirect: curl multi refused it");
			tell(r, x->idx, x, &res);
			continue;
		}
		ant_polite_started(r->pol, x->host, now_ms, delay);
		r->active++;
	}
}

static void start_more(runner *r)
{
	long jobs = lim_or(r->lim ? r->lim->jobs : 0, ANT_FETCH_DEFAULT_JOBS);
	long per_host = lim_or(r->lim ? r->lim->per_host : 0, ANT_FETCH_DEFAULT_PER_HOST);
	long delay = r->lim && r->lim->min_delay_ms > 0 ? r->lim->min_delay_ms : 0;
	int64_t now_ms = mono_ms(), now = (int64_t)time(NULL);

	r->wake_ms = 0;
	start_hops(r, jobs, per_host, delay, now_ms, now);
	while (r->next < r->n && r->started[r->next])
		r->next++;
	for (size_t i = r->next; i < r->n && r->active < jobs; i++) {
		int64_t until;
		xfer *x;

		if (r->started[i])
			continue;
		if ((until = ant_polite_blocked(r->pol, r->host_of[i], now))) {
			r->started[i] = 1;
			report_deferred(r, i, until, now);
			continue;
		}
		if (!ant_polite_may_start(r->pol, r->host_of[i], per_host, now_ms, &r->wake_ms))
			continue;
		r->started[i] = 1;
		x = xfer_new(r, i);
		if (!x) {
			report_failure(r, i, "cannot start transfer: out of memory");
			continue;
		}
		if (curl_multi_add_handle(r->multi, x->easy) != CURLM_OK) {
			xfer_free(x);
			report_failure(r, i, "cannot start transfer: curl multi refused it");
			continue;
		}
		ant_polite_started(r->pol, x->host, now_ms, delay);
		r->active++;
		r->live[i] = x;
	}
}

/* RFC 9110 §13.1.1: some servers answer 412 to If-None-Match; ask again
 * without conditions, once. */
static int retry_unconditional(runner *r, xfer *x)
{
	curl_multi_remove_handle(r->multi, x->easy);
	curl_slist_free_all(x->hdrs);
	x->hdrs = NULL;
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, NULL);
	lb_buf_reset(&x->body);
	xfer_clear_headers(x);
	x->errbuf[0] = '\0';
	x->too_big = 0;
	x->header_too_big = 0;
	x->header_bytes = 0;
	x->headers_done = 0;
	x->refused[0] = '\0';
	x->retried = 1;
	return curl_multi_add_handle(r->multi, x->easy) == CURLM_OK ? 0 : -1;
}

/* What the politeness state learns from a hop that ended: the address
 * its host was connected at (not through a proxy, whose address says
 * nothing of the server).  x->host is the hop's own host: redirects are
 * followed here, one hop a transfer of curl's. */
static void learn_addr(runner *r, xfer *x)
{
	long conns = 0;
	char *ip = NULL;

	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &conns);
	curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip);
	r->pool->connects += conns;
	if (!r->nproxies && ip && *ip)
		ant_polite_addr(r->pol, x->host, ip);   /* out of memory: not learned */
}

/* A redirect answer x got (rc CURLE_OK): the next hop queued in r->hopq
 * under its own server, to start when that server has a slot (start_hops),
 * x's slot freed; 1.  0: not a redirect to follow, the answer is x's
 * result; *why set to the error when it may not be followed (more than
 * max_redirects, a scheme other than http and https). */
static int redirect_next(runner *r, xfer *x, CURLcode *why)
{
	long status = 0, max = r->lim && r->lim->max_redirects >= 0 ? r->lim->max_redirects :
			       ANT_FETCH_DEFAULT_MAX_REDIRECTS;
	char *loc = NULL, *next, *h;
	double secs = 0;
	long host;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308)
		return 0;
	if (curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc || !*loc)
		return 0;
	if (x->hops >= max) {
		snprintf(x->errbuf, sizeof x->errbuf, "Maximum (%ld) redirects followed", max);
		*why = CURLE_TOO_MANY_REDIRECTS;
		return 0;
	}
	if (strncasecmp(loc, "http://", 7) != 0 && strncasecmp(loc, "https://", 8) != 0) {
		snprintf(x->errbuf, sizeof x->errbuf, "Protocol of the redirect not allowed: %.100s",
			 loc);
		*why = CURLE_UNSUPPORTED_PROTOCOL;
		return 0;
	}
	if (!(next = strdup(loc)) || !(h = ant_fetch_host_name(next))) {
		free(next);
		return 0;   /* out of memory: the redirect is the answer */
	}
	host = ant_polite_host(r->pol, h);
	free(h);
	if (host < 0) {
		free(next);
		return 0;
	}
	curl_multi_remove_handle(r->multi, x->easy);
	ant_polite_ended(r->pol, x->host);
	r->active--;
	learn_addr(r, x);
	curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME, &secs);
	x->spent += secs;
	x->hops++;
	x->host = host;
	free(x->next_url);
	x->next_url = next;
	lb_buf_reset(&x->body);
	x->errbuf[0] = '\0';
	x->header_bytes = 0;
	x->headers_done = 0;
	/* last in the queue: the hops start in the order they came */
	x->next_wait = NULL;
	{
		xfer **pp = &r->hopq;

		while (*pp)
			pp = &(*pp)->next_wait;
		*pp = x;
	}
	return 1;
}

static void learn(runner *r, xfer *x, const ant_fetch_result *res)
{
	long max = r->lim && r->lim->max_retry_after > 0 ? r->lim->max_retry_after :
		   ANT_FETCH_DEFAULT_MAX_RETRY_AFTER;
	learn_addr(r, x);
	if (res && res->retry_after > 0)
		ant_polite_block(r->pol, x->host, (int64_t)time(NULL) +
				 (res->retry_after < max ? res->retry_after : max));
}

/* ---- answers told on a helper thread (limits->done_aside) ---------------- */

/* An answer on its way through the stage: its request, transfer (NULL for
 * one never sent) and result. */
struct ready {
	size_t idx;
	xfer *x;
	ant_fetch_result res;
};

/* On the stage's thread, one answer at a time, in order: done(). */
static void done_one(void *ctx, void *item)
{
	const runner *r = ctx;
	struct ready *d = item;

	r->done(r->ctx, &r->reqs[d->idx], &d->res);
}

/* On the stage's thread, an answer told: the loop's poll wakes. */
static void wake_loop(void *wctx)
{
	curl_multi_wakeup(((runner *)wctx)->multi);
}

/* An answer told, back on the loop's thread: its transfer goes (the
 * idle handles are the loop's). */
static void told(runner *r, struct ready *d)
{
	r->reported++;
	if (d->x)
		result_release(&d->res);
	xfer_free(d->x);
	free(d);
}

/* The answers told so far taken back; wait: every one inside, waiting
 * for them.  Returns how many. */
static int take_told(runner *r, int wait)
{
	struct ready *d;
	int k = 0;

	while (r->stage && (d = wait ? ant_worker_wait(r->stage) : ant_worker_take(r->stage))) {
		told(r, d);
		k++;
	}
	return k;
}

/* Request idx's answer to done(): on the stage's thread when there is
 * one (a full stage is waited for: done() never runs on two threads),
 * else here.  x (NULL: never sent) and res go.  A result of a request
 * never sent owns nothing (its body is lb_buf_empty). */
static void tell(runner *r, size_t idx, xfer *x, const ant_fetch_result *res)
{
	struct ready *d = r->stage ? malloc(sizeof *d) : NULL;

	if (d) {
		*d = (struct ready){ idx, x, *res };
		while (ant_worker_put(r->stage, d) != 0) {
			struct ready *back = ant_worker_wait(r->stage);

			if (back)
				told(r, back);
		}
		return;
	}
	take_told(r, 1);   /* out of memory: the stage's answers first */
	r->reported++;
	r->done(r->ctx, &r->reqs[idx], res);
	if (x) {
		ant_fetch_result own = *res;

		result_release(&own);
	}
	xfer_free(x);
}

/* The stage, when the caller asks for it and another core can work. */
static void stage_start(runner *r)
{
	if (r->lim && r->lim->done_aside && r->n > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		r->stage = ant_worker_new(ANT_FETCH_ASIDE_MAX, done_one, r, wake_loop, r);
}

static void finish(runner *r, CURL *e, CURLcode rc)
{
	xfer *x = NULL;
	ant_fetch_result res;
	long status = 0;

	curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&x);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	if (rc == CURLE_OK && status == 412 && x->hdrs && !x->retried &&
	    retry_unconditional(r, x) == 0)
		return;
	if (rc == CURLE_OK && redirect_next(r, x, &rc))
		return;
	curl_multi_remove_handle(r->multi, e);
	ant_polite_ended(r->pol, x->host);
	r->active--;
	r->live[x->idx] = NULL;
	fill_result(&res, x, rc);
	learn(r, x, &res);
	tell(r, x->idx, x, &res);
}

static int drain(runner *r)
{
	CURLMsg *m;
	int left, done = 0;

	while ((m = curl_multi_info_read(r->multi, &left)))
		if (m->msg == CURLMSG_DONE) {
			finish(r, m->easy_handle, m->data.result);
			done++;
		}
	return done;
}

/* Until every request is reported: slots free up when transfers end, and
 * a server's minimum delay ends at r->wake_ms (the poll sleeps until
 * then when nothing runs). */
static int run_loop(runner *r)
{
	int running = 0;

	start_more(r);
	while (r->reported < r->n) {
		int64_t wait = 1000;

		if (r->active > 0 && curl_multi_perform(r->multi, &running) != CURLM_OK)
			return LB_ENET;
		if (drain(r) || (r->wake_ms && mono_ms() >= r->wake_ms))
			start_more(r);
		take_told(r, 0);
		if (r->reported >= r->n)
			break;
		if (r->wake_ms) {
			wait = r->wake_ms - mono_ms();
			wait = wait < 0 ? 0 : wait > 1000 ? 1000 : wait;
		}
		if ((r->active == 0 || running > 0) &&
		    curl_multi_poll(r->multi, NULL, 0, (int)wait, NULL) != CURLM_OK)
			return LB_ENET;
	}
	return 0;
}

/* The multi handle broke down (out of memory): every request not yet
 * reported still gets its callback. */
static void abort_all(runner *r)
{
	take_told(r, 1);
	for (xfer *x = r->hopq; x; x = x->next_wait)
		x->host = -1;   /* waiting: not counted */
	r->hopq = NULL;
	for (size_t i = 0; i < r->n; i++) {
		if (r->live[i]) {
			curl_multi_remove_handle(r->multi, r->live[i]->easy);
			if (r->live[i]->host >= 0)
				ant_polite_ended(r->pol, r->live[i]->host);
			xfer_free(r->live[i]);
			r->live[i] = NULL;
			report_failure(r, i, "transfer aborted: curl multi failed");
		} else if (!r->started[i]) {
			r->started[i] = 1;
			report_failure(r, i, "transfer aborted: curl multi failed");
		}
	}
	take_told(r, 1);
}

static void runner_release(runner *r)
{
	ant_worker_free(r->stage);   /* empty: every answer was told */
	free(r->proxies);
	free(r->host_of);
	free(r->started);
	free(r->live);
	ant_fetch_pool_free(r->own);
}

/* ---- the pool -------------------------------------------------------------- */

/* ANTENNA_RESOLVE: "HOST:PORT:ADDRESS ..." as CURLOPT_RESOLVE entries. */
static int resolve_build(ant_fetch_pool *p)
{
	const char *v = getenv("ANTENNA_RESOLVE");
	char *copy, *tok, *save = NULL;

	if (!v || !*v)
		return 0;
	if (!(copy = strdup(v)))
		return LB_ENOMEM;
	for (tok = strtok_r(copy, " \t\n,", &save); tok; tok = strtok_r(NULL, " \t\n,", &save)) {
		struct curl_slist *t = curl_slist_append(p->resolve, tok);

		if (!t) {
			free(copy);
			return LB_ENOMEM;
		}
		p->resolve = t;
	}
	free(copy);
	return 0;
}

ant_fetch_pool *ant_fetch_pool_new(void)
{
	ant_fetch_pool *p;

	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK || !(p = calloc(1, sizeof *p)))
		return NULL;
	p->multi = curl_multi_init();
	p->pol = ant_polite_new();
	if (!p->multi || !p->pol || resolve_build(p) < 0) {
		ant_fetch_pool_free(p);
		return NULL;
	}
	curl_multi_setopt(p->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	return p;
}

void ant_fetch_pool_free(ant_fetch_pool *p)
{
	if (!p)
		return;
	while (p->nidle)
		curl_easy_cleanup(p->idle[--p->nidle]);
	if (p->multi)
		curl_multi_cleanup(p->multi);
	ant_polite_free(p->pol);
	curl_slist_free_all(p->resolve);
	free(p);
}

ant_polite *ant_fetch_pool_polite(ant_fetch_pool *p)
{
	return p->pol;
}

long ant_fetch_pool_connects(const ant_fetch_pool *p)
{
	return p->connects;
}

void ant_fetch_user_agent(const ant_fetch_limits *limits, char *out, size_t n)
{
	if (limits && limits->user_agent)
		snprintf(out, n, "%s", limits->user_agent);
	else if (limits && limits->contact[0])
		snprintf(out, n, "lirs-antenna/%s (+%s)", LIRS_VERSION, limits->contact);
	else
		snprintf(out, n, "%s", FETCH_USER_AGENT);
}

int ant_fetch_run(const ant_fetch_limits *limits, const ant_fetch_req *reqs, size_t n,
	      ant_fetch_done_fn done, void *ctx)
{
	runner r;
	int rc;

	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return LB_ENET;
	memset(&r, 0, sizeof r);
	r.lim = limits;
	r.reqs = reqs;
	r.n = n;
	r.done = done;
	r.ctx = ctx;
	if (n == 0)
		return 0;
	if (limits && limits->pool)
		r.pool = limits->pool;
	else if (!(r.pool = r.own = ant_fetch_pool_new()))
		return LB_ENOMEM;
	r.multi = r.pool->multi;
	r.pol = r.pool->pol;
	r.run_no = ++r.pool->runs;   /* never 0: a handle of no run yet has 0 */
	ant_fetch_user_agent(limits, r.ua, sizeof r.ua);
	r.host_of = calloc(n, sizeof *r.host_of);
	r.started = calloc(n, 1);
	r.live = calloc(n, sizeof *r.live);
	if (!r.host_of || !r.started || !r.live || hosts_build(&r) < 0 || ant_fetch_proxies_build(&r) < 0) {
		runner_release(&r);
		return LB_ENOMEM;
	}
	curl_multi_setopt(r.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
			  lim_or(limits ? limits->jobs : 0, ANT_FETCH_DEFAULT_JOBS));
	curl_multi_setopt(r.multi, CURLMOPT_MAX_HOST_CONNECTIONS,
			  lim_or(limits ? limits->per_host : 0, ANT_FETCH_DEFAULT_PER_HOST));
	stage_start(&r);
	rc = run_loop(&r);
	if (rc < 0)
		abort_all(&r);
	runner_release(&r);
	return rc;
}
