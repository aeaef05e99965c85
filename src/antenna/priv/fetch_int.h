/*
 * fetch_int.h: what fetch.c shares with fetch_text.c (the words) and
 * fetch_addr.c (the internal-address guard): a transfer (xfer) and a
 * run (runner).
 */
#ifndef ANT_FETCH_INT_H
#define ANT_FETCH_INT_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ant_fetch.h"
#include "ant_polite.h"
#include "ant_worker.h"
#include "lb_buf.h"
#include "lirs.h"

#define FETCH_USER_AGENT "lirs-antenna/" LIRS_VERSION " (update antenna; libcurl)"

struct runner;

/* ---- fetch_text.c: shared with fetch_polite.c -------------------------------- */

/* The host of url, lower case (a new string; "" when url has none), or
 * NULL when out of memory. */
char *ant_fetch_host_name(const char *url);
/* res (its body the caller's) as the answer of a request not sent: its
 * server's wait key asked us to wait until then (Retry-After). */
void ant_fetch_deferred(ant_fetch_result *res, const char *key, int64_t until, int64_t now);

/* One request on its way. */
typedef struct xfer {
	size_t idx;              /* into reqs[] */
	long host;               /* ant_polite's host id */
	const struct runner *run;   /* its proxies */
	CURL *easy;
	char *allow_hp;          /* "host:port" of the request's allow_host, or NULL */
	int allow_hp_known;      /* allow_hp parsed (fetch_addr.c, allowed_hp) */
	char *hop_url, *hop_hp;  /* the last hop's URL and its "host:port" (hop_host_port) */
	int allow_private;       /* limits->allow_private */
	char refused[200];       /* why an internal address was refused, "" none */
	struct curl_slist *hdrs; /* conditional headers, NULL when none */
	char errbuf[CURL_ERROR_SIZE];
	size_t max_body;
	int too_big;
	size_t max_header;       /* bytes of one response's header block */
	size_t header_bytes;     /* of the current response so far */
	int header_too_big;      /* on_header() stopped the transfer */
	int headers_done;        /* the last response's header block ended */
	int retried;
	lb_buf body;
	/* captured from the last response's header block */
	char *etag, *last_modified, *date, *content_type, *retry_after;
	char reason[64];
	int64_t content_length;
	int redirects_permanent, redirects_temporary;   /* 3xx answers followed */
	/* Redirects are followed here, not by libcurl: each hop is a request
	 * to its own server, so it waits for a slot of that server's like
	 * any other (fetch.c, redirect_next). */
	int hops;                /* redirects followed */
	char *next_url;          /* the hop waiting to start (in runner's hopq), or NULL */
	struct xfer *next_wait;  /* the next in runner's hopq */
	double spent;            /* seconds of the hops before this one */
} xfer;

struct ant_fetch_pool {
	CURLM *multi;
	ant_polite *pol;
	struct curl_slist *resolve;   /* ANTENNA_RESOLVE */
	long connects;
	/* easy handles of finished transfers, kept for the next: making and
	 * freeing one a transfer cost 5% of update's CPU.  A handle keeps the
	 * options of the run that set them (idle_run: that run's number,
	 * runs counting them): the next transfer of the same run sets only
	 * its own (fetch.c, xfer_options); another run resets it first
	 * (curl_easy_reset and setting the 25 options again: 3% of CPU) */
	CURL *idle[128];
	unsigned idle_run[128];
	size_t nidle;
	unsigned runs;
};

typedef struct runner {
	const ant_fetch_limits *lim;
	const ant_fetch_req *reqs;
	size_t n;
	long *host_of;           /* per request: ant_polite's host id */
	ant_fetch_pool *pool;
	ant_fetch_pool *own;     /* pool made for this call, when limits has none */
	ant_polite *pol;
	size_t reported;         /* requests whose callback ran */
	int64_t wake_ms;         /* when a server's minimum delay ends, 0 none */
	char ua[ANT_TARGET_MAX_CONTACT + 64];
	unsigned run_no;         /* this run's number in its pool (idle_run) */
	unsigned char *started;  /* per request */
	struct xfer **live;      /* per request: its transfer while it runs */
	size_t next;             /* lowest request index that may still be unstarted */
	struct xfer *hopq;       /* redirect hops waiting for their server, oldest first */
	long active;
	CURLM *multi;
	ant_fetch_done_fn done;
	void *ctx;
	struct sockaddr_storage *proxies;  /* the environment's proxies' addresses */
	size_t nproxies;
	ant_worker *stage;        /* limits->prepare's helper thread, or NULL: inline */
} runner;

/* ---- fetch_addr.c ---------------------------------------------------- */

/* "host:port" of url, in lower case, the scheme's port when none is
 * written; NULL when url has none or out of memory (malloc'd). */
char *ant_fetch_host_port(const char *url);
/* CURLOPT_OPENSOCKETFUNCTION: an internal address refused (arg: xfer). */
curl_socket_t ant_fetch_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a);
/* CURLOPT_PREREQFUNCTION: each request judged again (arg: xfer). */
int ant_fetch_prereq(void *arg, char *ip, char *local_ip, int port, int local_port);
/* The environment's proxies' addresses into r: 0, or LB_ENOMEM. */
int ant_fetch_proxies_build(runner *r);
/* sa's address in text form into out[0..n) ("?" when it has none). */
void ant_fetch_addr_text(const struct sockaddr *sa, char *out, size_t n);

/* ---- fetch_text.c ---------------------------------------------------- */

/* An error kind in words ("cannot resolve host"). */
const char *ant_fetch_kind_text(ant_fetch_errkind k);
/* The reason phrase of an HTTP status ("Not Found"), "HTTP error" when unknown. */
const char *ant_fetch_reason_of(long status);

#endif
