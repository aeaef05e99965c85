/*
 * ant_post.h: one HTTP POST to a URL the operator named (a WebSub hub, a
 * webhook), bounded in time and in what is read back (post.c).  Not for
 * the pages and sources: those go through ant_fetch.h's checks.
 */
#ifndef ANT_POST_H
#define ANT_POST_H

#include <stddef.h>

#include "lb_error.h"

/* Seconds one POST may take, connecting included (ANT_POST_TIMEOUT), and
 * to connect (ANT_POST_CONNECT_TIMEOUT). */
#define ANT_POST_TIMEOUT 10
#define ANT_POST_CONNECT_TIMEOUT 5
/* Bytes of an answer: a longer one (by its Content-Length) fails the POST. */
#define ANT_POST_MAX_ANSWER (1L << 20)

typedef struct ant_post_req {
	const char *url;           /* http:// or https:// */
	const char *content_type;  /* "application/x-www-form-urlencoded", ... */
	const char *body;
	size_t len;
	long timeout;              /* seconds; 0 = ANT_POST_TIMEOUT */
} ant_post_req;

/*
 * POSTs r->body to r->url, following no redirect.  0 when the answer is
 * 2xx (*status set when status is not NULL); LB_ENET with a message naming
 * the URL and the status or libcurl's reason otherwise; LB_EINVAL when
 * the URL is not http(s).  The status of a non-2xx answer is set too.
 */
int ant_post(const ant_post_req *r, long *status, lb_error *err);

#endif
