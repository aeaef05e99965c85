/*
 * ant_polite.h: politeness per server, the bookkeeping behind fetch.c's
 * scheduling: which host names are one server, how many requests each
 * server has running, when the next may start (the minimum delay), and
 * until when a server asked us to stay away (429/503 Retry-After).
 *
 * A server is a set of host names: the names of one registrable domain
 * (the Public Suffix List with its private section, libpsl: a.example.com
 * and b.example.com are one server, alice.github.io and bob.github.io are
 * two) and names seen connected to the same address (learned as
 * connections are made: ant_polite_addr()).  Each server has its key, the
 * registrable domain of its first name (or the name itself: an address, a
 * public suffix, "localhost").  A Retry-After belongs to the registrable
 * domain that asked (its wait key), never to the server it was merged
 * into: names sharing an address (a hosting's tenants) share the limit on
 * requests at once and the minimum delay, not one another's waits.
 *
 * No network and no curl here: fetch.c reports what it learns.  One
 * ant_polite is used by one thread at a time.
 */
#ifndef ANT_POLITE_H
#define ANT_POLITE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"


typedef struct ant_polite ant_polite;

/* NULL when out of memory. */
ant_polite *ant_polite_new(void);
void ant_polite_free(ant_polite *p);

/* The registrable domain of host (lower case, no brackets), or host
 * itself when it has none; a new string, NULL when out of memory. */
char *ant_polite_domain(const char *host);

/* The id of host (interned, compared in lower case): >= 0, or LB_ENOMEM. */
long ant_polite_host(ant_polite *p, const char *host);
/* The key of host's server (borrowed, valid until the next call). */
const char *ant_polite_key(ant_polite *p, long host);
/* The wait key of host: its registrable domain (or the name itself, as
 * above), under which a Retry-After it answered is kept and named.
 * Borrowed, valid until the next call. */
const char *ant_polite_wait_key(ant_polite *p, long host);
/* host was connected at addr (text form): its server and addr's are one
 * from now on.  0 or LB_ENOMEM. */
int ant_polite_addr(ant_polite *p, long host, const char *addr);

/* May a request to host start at now_ms (a monotonic clock)?  1 yes; 0
 * no, with *wake_ms set to when it may (the minimum delay) or left alone
 * (the server has per_server requests running). */
int ant_polite_may_start(ant_polite *p, long host, long per_server, int64_t now_ms,
			 int64_t *wake_ms);
/* A request to host started at now_ms; the next may start min_delay_ms later. */
void ant_polite_started(ant_polite *p, long host, int64_t now_ms, int64_t min_delay_ms);
void ant_polite_ended(ant_polite *p, long host);

/* Until when (seconds since the epoch) host's wait key asked us to wait,
 * 0 when it did not or that time is past now. */
int64_t ant_polite_blocked(ant_polite *p, long host, int64_t now);
/* host's wait key asked us to wait until then (a later time wins). */
void ant_polite_block(ant_polite *p, long host, int64_t until);
/* The same by wait key (a wait remembered from an earlier run): the
 * names of that registrable domain wait.  0 or LB_ENOMEM. */
int ant_polite_block_key(ant_polite *p, const char *key, int64_t until);
/* Calls fn for each wait key asked to wait until later than now. */
void ant_polite_each_block(ant_polite *p, int64_t now,
			   void (*fn)(void *ctx, const char *key, int64_t until), void *ctx);


#endif
