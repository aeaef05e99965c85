/*
 * render_int.h: what render.c (the browser) shares with render_proxy.c
 * (the guard every request of the browser goes through).
 */
#ifndef ANT_RENDER_INT_H
#define ANT_RENDER_INT_H

#include <pthread.h>
#include <stdint.h>

#include "ant_fetch.h"

/* The forward proxy of one render: an accepting thread on 127.0.0.1 and a
 * thread per connection, all joined by ant_render_proxy_stop(). */
typedef struct rproxy {
	int lfd;                 /* the listening socket */
	int stop[2];             /* written once: every thread returns */
	int port;
	pthread_t acceptor;
	int started;
	int allow_private;
	char *allow_hp;          /* "host:port" that may be internal, or NULL */
	long connect_timeout;    /* seconds */
	char *resolve;           /* ANTENNA_RESOLVE, copied: "HOST:PORT:ADDRESS ..." */
	char *page_key;          /* lb_url_page_key_dup() of the page rendered */
	char *page_hp;           /* its "host:port" */
	pthread_mutex_t mu;      /* guards what follows */
	pthread_t *conns;        /* connection threads, joined at the end */
	size_t nconns, cap, live;
	unsigned requests, refused;
	unsigned early;          /* asked before the page: the browser's own, refused */
	int page_seen;           /* the page's own request came */
	char refusal[300];       /* the first refusal, "" none */
	/* the navigation: the first request, and the next after each 3xx of it */
	int nav_open;            /* the next request continues it */
	long nav_status;         /* its last answer's status (plain http only), 0 none */
	ant_fetch_errkind nav_err;   /* it could not be asked: DNS, CONNECT */
	char nav_error[256];
} rproxy;

/* Starts p listening on 127.0.0.1 (p->port); the fields allow_private,
 * allow_hp, page_key, page_hp and connect_timeout set by the caller
 * before (the strings malloc'd, freed by ant_render_proxy_stop()).  0, or LB_EIO,
 * LB_ENOMEM. */
int ant_render_proxy_start(rproxy *p);
/* Stops and joins every thread, closes the sockets; frees allow_hp. */
void ant_render_proxy_stop(rproxy *p);
/* Has the guard refused anything yet? (the caller may stop early) */
int ant_render_proxy_refused(rproxy *p);

#endif
