/*
 * ant_fetch.h: concurrent HTTP(S) transfers with libcurl's multi interface.
 * The only file that calls curl.  The caller says what to fetch and with
 * which validators; fetch reports what happened.  One policy is fetch's
 * own, as only it sees the addresses connected: no connection to an
 * internal address (ant_addr.h) unless the request allows it.
 */
#ifndef ANT_FETCH_H
#define ANT_FETCH_H

#include "ant_settings.h"   /* the defaults */
#include "ant_target.h"    /* the contact's size */
#include "ant_outcome.h"   /* ant_fail_kind */
#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"
#include "ant_polite.h"

/* Limits: named, documented in antenna(1) and the README, overridable. */
#define ANT_FETCH_DEFAULT_CONNECT_TIMEOUT 10      /* seconds */
#define ANT_FETCH_DEFAULT_TIMEOUT 30              /* seconds, whole transfer */
#define ANT_FETCH_DEFAULT_MAX_BODY (8u << 20)     /* decoded bytes kept (8 MiB) */
#define ANT_FETCH_DEFAULT_MAX_REDIRECTS 5
#define ANT_FETCH_DEFAULT_PER_HOST 2              /* transfers at once per host */
#define ANT_FETCH_DEFAULT_JOBS 16                 /* transfers at once in all */
/* Bytes of one response's header block (status line and fields).  libcurl
 * has its own limit, CURL_MAX_HTTP_HEADER (100 KiB) per header line, which
 * it reports as "Out of memory"; both are reported as ANT_FETCH_ERR_HEADER_TOO_BIG. */
#define ANT_FETCH_DEFAULT_MAX_HEADER (64u << 10)

/* Connections, the DNS cache and the politeness state (ant_polite.h)
 * kept from one ant_fetch_run() to the next: a run in batches opens no
 * new connections at a batch seam, and a server's delay and Retry-After
 * hold across batches.  Used by one thread at a time. */
typedef struct ant_fetch_pool ant_fetch_pool;

typedef struct ant_fetch_limits {
	long connect_timeout;    /* 0 = default */
	long timeout;
	size_t max_body;
	size_t max_header;       /* 0 = ANT_FETCH_DEFAULT_MAX_HEADER */
	long max_redirects;      /* <0 = default; 0 = follow none */
	long per_host;
	long jobs;
	int allow_file;          /* also allow file:// URLs (the demo) */
	int allow_private;       /* connect to internal addresses for every request
				    (init --allow-private) */
	const char *user_agent;  /* NULL = "lirs-antenna/VERSION (+CONTACT)" when contact
				    is set, else "lirs-antenna/VERSION (update antenna; libcurl)" */
	char contact[ANT_TARGET_MAX_CONTACT + 1];  /* init --contact, "" none; checked
				    with ant_target_contact_check() */
	long min_delay_ms;       /* between starts to one server; 0 = none */
	long max_retry_after;    /* seconds; 0 = ANT_FETCH_DEFAULT_MAX_RETRY_AFTER */
	ant_fetch_pool *pool;    /* NULL: connections last one ant_fetch_run() */
	/* done() runs on one helper thread of the run's, in the order the
	 * answers come, while the other transfers go on (ant_worker.h): on two
	 * cores the check of a page no longer holds up the network loop.
	 * Never on two threads at once; on one core, on the caller's.  The
	 * caller's thread must leave alone what done() uses until
	 * ant_fetch_run() returns. */
	int done_aside;
} ant_fetch_limits;

/* Answers at most waiting for, or in, done() on the helper thread
 * (done_aside): their bodies are the memory a run holds beyond its
 * transfers'; the loop waits for a slot beyond. */
#define ANT_FETCH_ASIDE_MAX 64

typedef enum {
	ANT_FETCH_OK = 0,            /* an HTTP answer came (see status) */
	ANT_FETCH_ERR_DNS,
	ANT_FETCH_ERR_CONNECT,       /* refused, unreachable */
	ANT_FETCH_ERR_TIMEOUT,
	ANT_FETCH_ERR_TLS,
	ANT_FETCH_ERR_TOO_BIG,       /* body (after Content-Encoding) over max_body */
	ANT_FETCH_ERR_REDIRECTS,     /* more than max_redirects */
	ANT_FETCH_ERR_PROTOCOL,      /* scheme not allowed */
	ANT_FETCH_ERR_OTHER,
	ANT_FETCH_ERR_HEADER_TOO_BIG,  /* a response header over max_header, or a header
				      line over libcurl's CURL_MAX_HTTP_HEADER */
	ANT_FETCH_ERR_INTERNAL,      /* refused: an internal address not allowed */
	ANT_FETCH_ERR_DEFERRED,      /* not sent: its server asked us to wait (Retry-After;
					retry_after says how long still) */
} ant_fetch_errkind;

typedef struct ant_fetch_req {
	const char *url;
	const char *etag;           /* sent as If-None-Match, unchanged; may be NULL */
	const char *last_modified;  /* sent as If-Modified-Since, unchanged; may be NULL */
	void *user;                 /* the caller's */
	/* A URL whose host and port may be internal: the page or source the
	 * operator added (its check URL, feed, archives and redirects reach
	 * other internal hosts only with allow_private).  NULL: none. */
	const char *allow_host;
} ant_fetch_req;

typedef struct ant_fetch_result {
	ant_fetch_errkind err;
	char error[256];         /* human-readable when err != ANT_FETCH_OK, or status line for HTTP errors */
	long status;             /* HTTP status, 0 when none */
	char *body;              /* decoded body, NUL-terminated, never NULL */
	size_t len;
	char *etag;              /* response validators as sent, or NULL */
	char *last_modified;
	int64_t last_modified_time;  /* parsed Last-Modified, 0 when none */
	int64_t date_time;           /* parsed Date, 0 when none */
	char *content_type;      /* or NULL */
	int64_t content_length;  /* header value, -1 when none */
	int64_t retry_after;     /* seconds, from 429/503 Retry-After; 0 when none */
	char *effective_url;     /* after redirects */
	int redirect;            /* ANT_FETCH_REDIRECT_*: how the request reached it */
	int conditional_retried; /* a 412 to a conditional request was retried unconditionally */
	double seconds;          /* total transfer time */
	int local;               /* err is ANT_FETCH_ERR_OTHER for a request not made
				    or cut here: out of memory, curl refused it */
} ant_fetch_result;

/* How the redirects followed reached effective_url: none; only permanent
 * ones (301, 308: the page moved); at least one temporary (302, 303, 307). */
enum {
	ANT_FETCH_REDIRECT_NONE = 0,
	ANT_FETCH_REDIRECT_PERMANENT = 1,
	ANT_FETCH_REDIRECT_TEMPORARY = 2,
};

/* A new pool (connections are opened as needed); NULL when out of memory
 * or curl cannot be set up.  ant_fetch_pool_free(NULL) does nothing. */
ant_fetch_pool *ant_fetch_pool_new(void);
void ant_fetch_pool_free(ant_fetch_pool *pool);
/* The pool's politeness state, to load and save the servers' Retry-After. */
ant_polite *ant_fetch_pool_polite(ant_fetch_pool *pool);

/*
 * A request made outside the transfers (a render, ant_render.h) keeps its
 * server's politeness as a transfer does (fetch_polite.c), through
 * lim->pool's state: ant_fetch_polite_begin() returns 1 when the server
 * asked us to wait (Retry-After: res filled as that deferred answer, its
 * body left to the caller; the request is not to be made), else waits
 * for the server's turn (lim->min_delay_ms after its last request, at
 * most a minute more for a slot) and counts the request started: 0, and
 * ant_fetch_polite_end(lim, *host) after it.  No pool: 0 at once.  < 0
 * (LB_ENOMEM) on error.
 */
int ant_fetch_polite_begin(const ant_fetch_limits *lim, const char *url, long *host,
			   ant_fetch_result *res);
void ant_fetch_polite_end(const ant_fetch_limits *lim, long host);
/* Connections opened so far through the pool (CURLINFO_NUM_CONNECTS). */
long ant_fetch_pool_connects(const ant_fetch_pool *pool);

/* Called once per request, from ant_fetch_run()'s thread, as each finishes.
 * res is borrowed: it is freed after the callback returns. */
typedef void (*ant_fetch_done_fn)(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res);

/* A short stable name for an error kind ("dns", "connect", "timeout",
 * "tls", "too-big", "redirects", "protocol", "header-too-big", "internal", "deferred", "other"; "ok"),
 * for logs and JSON. */
const char *ant_fetch_errkind_name(ant_fetch_errkind k);

/*
 * Threads: curl_global_init() runs once, on the first ant_fetch_run(); then
 * ant_fetch_run() may run on several threads at once; done() runs on the
 * calling thread (with limits->done_aside, on a helper thread of the
 * run's).  file:// (allow_file only, never via a redirect) reports
 * status 200 and the file's mtime as Last-Modified.  Redirects are
 * followed by fetch, not libcurl: each hop is a request to its own
 * server, waiting for that server's slot, delay and Retry-After like a
 * first request; the whole chain keeps to one timeout.
 *
 * Internal addresses (ant_addr.h): every connection, each redirect's
 * included, is checked on the address actually connected (so a name that
 * resolves, or is re-bound, to one is caught), and every request on a
 * reused connection too.  An internal address is refused, the request
 * failing with ANT_FETCH_ERR_INTERNAL, unless limits->allow_private or
 * the URL being fetched has the host and port of req->allow_host.  A
 * proxy named in the environment (http_proxy, https_proxy, all_proxy, as
 * libcurl reads them) is the operator's: its own address is allowed, and
 * as the proxy resolves the names, a request through it is checked on
 * the URL's host only when that is an address or "localhost".
 *
 * Politeness per server (ant_polite.h): at most limits->per_host
 * requests at once per server (the names of one registrable domain, and
 * names seen at one address), their starts limits->min_delay_ms apart.
 * A 429 or 503 with Retry-After (seconds or an HTTP-date, at most
 * max_retry_after) keeps every request to that server from being sent
 * until then: each is reported at once as ANT_FETCH_ERR_DEFERRED.  HTTP/2
 * is used where a server offers it over TLS, the server's requests
 * multiplexed on one connection.  Environment: CURL_CA_BUNDLE names the
 * CA certificates to trust instead of the system's; ANTENNA_RESOLVE,
 * blank-separated HOST:PORT:ADDRESS entries, resolves those names so
 * (curl's --resolve), for tests and for a server not yet in the DNS.
 *
 * Runs all n requests, at most limits->jobs at once, and returns when all
 * are done.  Returns 0, or LB_ENET when
 * curl could not be set up or its multi handle failed (LB_ENOMEM when out
 * of memory); every request's own failure is reported per request.
 */
int ant_fetch_run(const ant_fetch_limits *limits, const ant_fetch_req *reqs, size_t n,
	      ant_fetch_done_fn done, void *ctx);

/* The address url's host and port resolve to, as a connection's would
 * (ANTENNA_RESOLVE's entry first, else the system's resolver; an address
 * written in the URL is itself), as text into out[n]: of several, the
 * lowest, so that a DNS rotating them gives the same one.  0, or
 * LB_ENOTFOUND when it does not resolve.  Blocks while the resolver answers. */
int ant_fetch_resolve(const char *url, char *out, size_t n);

/* The User-Agent limits send (its user_agent, else one naming its
 * contact, else the default), into out[n]: the one our fetches and the
 * rendering browser (ant_render.h) both send. */
void ant_fetch_user_agent(const ant_fetch_limits *limits, char *out, size_t n);

/* The kind of a failed answer, as a page's failure is stored
 * (ant_outcome.h): its error kind, or ANT_FAIL_HTTP for an HTTP answer of
 * an error status, ANT_FAIL_LOCAL for a request not made (res->local);
 * ANT_FAIL_NONE for a usable answer. */
ant_fail_kind ant_fetch_fail_kind(const ant_fetch_result *res);

#endif
