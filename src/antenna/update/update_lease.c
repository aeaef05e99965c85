/*
 * update_lease.c: a checker among several over one PostgreSQL
 * (ant_store.h "several checkers", doc/DESIGN.md).  Instead of reading
 * every due page by id under the run lock, the run claims a few servers
 * and their due pages for a lease, checks them as any batch, and releases
 * them; it ends when nothing is claimable and no other checker holds a
 * server (a server another holds may still give back pages: a checker
 * killed, its lease expiring).
 *
 * Politeness is shared at the batch's grain, with no database round trip
 * per request: a server is held by one checker at a time (its slot), so
 * the limits of one run's pool (--per-host, --min-delay) hold across
 * checkers; a slot given back says when the server may next be asked,
 * and the servers' Retry-After (server_wait) are read at each claim and
 * written at each release.
 */
#include "ant_update.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lb_buf.h"
#include "ant_polite.h"
#include "ant_robots.h"
#include "update_int.h"

static int64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A page's server across checkers: the address its host resolves to
 * (ant_fetch_resolve(): ANTENNA_RESOLVE, else the DNS; of several, the
 * lowest), so that two names of one machine -- a hosting's tenants,
 * www and the bare domain on two registrable domains -- are one server,
 * as they are inside one run once connected (ant_polite_addr()).  A
 * host that does not resolve, or once the run's resolving time
 * (ANT_UPDATE_RESOLVE_MS) is spent, is keyed by its registrable domain
 * (ant_polite.h's key).  An origin is keyed once (origin_server): its
 * pages added later take the same key whatever the DNS says then.
 */
enum { KEYS = 4096 };
struct keys {
	ant_store *s;
	struct { char *origin, *key; } slot[KEYS];
	size_t used;
	int64_t until_ms;        /* the resolver asked until then */
};

static void keys_clear(struct keys *k)
{
	for (size_t i = 0; i < KEYS; i++) {
		free(k->slot[i].origin);
		free(k->slot[i].key);
		k->slot[i].origin = k->slot[i].key = NULL;
	}
	k->used = 0;
}

/* origin's slot: its entry, or the free one to put it in */
static size_t keys_find(const struct keys *k, const char *origin)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (const char *c = origin; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	for (i = h % KEYS; k->slot[i].origin && strcmp(k->slot[i].origin, origin) != 0; i = (i + 1) % KEYS)
		;
	return i;
}

/* the registrable domain of origin's host (an address: itself) */
static char *domain_of(char *origin)
{
	char *host = strstr(origin, "://"), *end;

	if (!host)
		return NULL;
	host += 3;
	if (*host == '[') {   /* an IPv6 address: without its brackets */
		host++;
		end = strchr(host, ']');
	} else {
		end = strrchr(host, ':');
	}
	if (end)
		*end = '\0';
	return ant_polite_domain(host);
}

static char *server_of(void *ctx, const char *url)
{
	struct keys *k = ctx;
	char origin[1024], dom[1024], addr[64], *key;
	const char *path;
	size_t i;

	if (ant_robots_origin(url, origin, sizeof origin, &path) < 0)
		return NULL;
	i = keys_find(k, origin);
	if (k->slot[i].origin)
		return strdup(k->slot[i].key);
	if (ant_store_origin_server(k->s, origin, &key, NULL) <= 0) {
		if (clock_ms() < k->until_ms && ant_fetch_resolve(url, addr, sizeof addr) == 0)
			key = strdup(addr);
		else
			key = domain_of(strcpy(dom, origin));
		if (!key || ant_store_origin_server_put(k->s, origin, key, NULL) < 0)
			return key;   /* kept next time, or its own "" server */
	}
	/* remembered for the run's next pages of origin (out of memory: not) */
	if (k->used < KEYS * 3 / 4 && (k->slot[i].key = strdup(key)) && !(k->slot[i].origin = strdup(origin))) {
		free(k->slot[i].key);
		k->slot[i].key = NULL;
	}
	k->used += k->slot[i].origin != NULL;
	return key;
}

int ant_upd_shared_begin(struct upd *u)
{
	struct keys *k;
	char name[200];
	int rc;

	if (u->o->checker && *u->o->checker)
		snprintf(u->checker, sizeof u->checker, "%s", u->o->checker);
	else {
		if (gethostname(name, sizeof name) < 0)
			snprintf(name, sizeof name, "localhost");
		name[sizeof name - 1] = '\0';
		snprintf(u->checker, sizeof u->checker, "%.200s:%ld:%lld", name, (long)getpid(),
			 (long long)clock_ms());
	}
	u->lease_ms = (u->o->lease_seconds > 0 ? u->o->lease_seconds : ANT_UPDATE_LEASE) * 1000;
	u->sharing = 1;
	if (!(k = calloc(1, sizeof *k)))
		return lb_err_code(&u->err, LB_ENOMEM);
	k->s = u->s;
	k->until_ms = clock_ms() + ANT_UPDATE_RESOLVE_MS;
	rc = ant_store_servers_fill(u->s, server_of, k, &u->err);
	keys_clear(k);
	free(k);
	if (rc < 0) {
		u->failed_db = 1;
		return LB_EDB;
	}
	/* a batch slower than its lease keeps its pages: renewed meanwhile */
	if (ant_store_renew_start(u->s, u->checker, u->lease_ms, &u->renewer, &u->err) < 0) {
		u->failed_db = 1;
		return LB_EDB;
	}
	return 0;
}

void ant_upd_shared_end(struct upd *u)
{
	u->st.lease_renewals += ant_store_renew_stop(u->renewer);
	u->renewer = NULL;
}

int ant_upd_lease_held(struct upd *u, const ant_store_page *p)
{
	int rc;

	if (!u->sharing)
		return 1;
	if (ant_upd_tx_need(u) < 0)
		return 0;
	if ((rc = ant_store_page_leased(u->s, p->id, u->checker, &u->err)) < 0) {
		u->failed_db = 1;
		return 0;
	}
	if (rc == 0)
		u->st.lease_lost++;
	return rc;
}

/* A server taken: not asked before next_at (another checker's last
 * request to it, plus the minimum delay), as if this run's last request
 * had been then. */
static void took_server(void *ctx, const char *server, int64_t next_at)
{
	struct upd *u = ctx;
	ant_polite *pol = u->pool ? ant_fetch_pool_polite(u->pool) : NULL;
	int64_t now = clock_ms();
	long h;

	u->st.servers_claimed++;
	(void)lb_buf_addf(&u->claimed, "%s\n", server);   /* out of memory: its leases run out instead */
	if (!pol || next_at <= now || (h = ant_polite_host(pol, server)) < 0)
		return;
	ant_polite_started(pol, h, ant_upd_mono_ms(), next_at - now);
	ant_polite_ended(pol, h);
}

static void wait_load(void *ctx, const char *server, int64_t until)
{
	ant_polite_block_key(ctx, server, until);   /* out of memory: forgotten */
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) < 0)
		;
}

/*
 * Servers per claim: enough to keep --jobs transfers going at --per-host
 * each, and no more, so that the other checkers find servers free;
 * their pages in turn up to the batch, whatever their number.
 */
static void claim_size(const struct upd *u, size_t max, size_t *servers, size_t *per)
{
	long jobs = u->lim.jobs > 0 ? u->lim.jobs : ANT_FETCH_DEFAULT_JOBS;
	long host = u->lim.per_host > 0 ? u->lim.per_host : ANT_FETCH_DEFAULT_PER_HOST;

	*servers = (size_t)((jobs + host - 1) / host);
	if (*servers < 1)
		*servers = 1;
	if (*servers > max)
		*servers = max;
	*per = max;   /* the claim takes from each server in turn (store_pages.c) */
}

int ant_upd_claim(struct upd *u, ant_store_page *out, size_t max, size_t *n)
{
	ant_polite *pol = u->pool ? ant_fetch_pool_polite(u->pool) : NULL;
	ant_store_claim c = { .checker = u->checker, .now = u->now, .lease_ms = u->lease_ms,
			      .force = u->o->force, .on_server = took_server, .ctx = u };
	int64_t until;

	claim_size(u, max, &c.servers, &c.per_server);
	for (;;) {
		c.now_ms = clock_ms();
		lb_buf_reset(&u->claimed);
		if (pol && ant_store_server_waits(u->s, (int64_t)time(NULL), wait_load, pol, &u->err) < 0)
			break;
		if (ant_store_pages_claim(u->s, &c, out, max, n, &u->err) < 0)
			break;
		if (*n)
			return 1;
		/* nothing free: done, unless another checker holds servers
		 * (it may die, and its pages come back when its lease ends) */
		if (ant_store_leases_others(u->s, u->checker, c.now_ms, &until, &u->err) < 0)
			break;
		if (!until)
			return 0;
		/* a quarter of a second: servers come free at each of their
		 * batches' ends, and the holders claim again at once */
		u->st.lease_waits++;
		sleep_ms(until - c.now_ms < 250 ? until - c.now_ms + 10 : 250);
	}
	u->failed_db = 1;
	return LB_EDB;
}

static void wait_save(void *ctx, const char *server, int64_t until)
{
	struct upd *u = ctx;

	if (ant_store_server_wait_set(u->s, server, until, &u->err) < 0)
		u->failed_db = 1;
}

int ant_upd_release(struct upd *u)
{
	ant_polite *pol = u->pool ? ant_fetch_pool_polite(u->pool) : NULL;
	int64_t delay = u->lim.min_delay_ms > 0 ? u->lim.min_delay_ms : 0;

	/* the waits servers asked for in this batch, for the others at once */
	if (pol && !u->failed_db && ant_upd_tx_need(u) == 0) {
		ant_polite_each_block(pol, (int64_t)time(NULL), wait_save, u);
		ant_upd_tx_commit(u);
	}
	if (u->failed_db)
		return LB_EDB;
	if (ant_store_pages_release(u->s, u->checker, u->claimed.data, clock_ms() + delay, &u->err) < 0) {
		u->failed_db = 1;
		return LB_EDB;
	}
	return 0;
}
