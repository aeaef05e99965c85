/*
 * fetch_polite.c: a server's politeness kept by requests made outside
 * the transfers (a render, ant_render.h; fetch.c's own transfers keep it
 * in their loop).  A request's host name and the answer to a deferred
 * one are fetch_text.c's, shared with fetch.c.
 */
#include "fetch_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The longest a request outside the transfers waits for its server's
 * turn beyond the minimum delay (a server busy with transfers of another
 * thread frees its slot within a transfer's time). */
#define POLITE_MAX_EXTRA_MS 60000

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int ant_fetch_polite_begin(const ant_fetch_limits *lim, const char *url, long *host,
			   ant_fetch_result *res)
{
	ant_polite *pol = lim && lim->pool ? ant_fetch_pool_polite(lim->pool) : NULL;
	long per_host = lim->per_host > 0 ? lim->per_host : ANT_FETCH_DEFAULT_PER_HOST;
	int64_t delay = lim->min_delay_ms > 0 ? lim->min_delay_ms : 0, now = (int64_t)time(NULL);
	int64_t start = mono_ms(), until;
	char *h;

	*host = -1;
	if (!pol)
		return 0;
	if (!(h = ant_fetch_host_name(url)))
		return LB_ENOMEM;
	*host = ant_polite_host(pol, h);
	free(h);
	if (*host < 0)
		return (int)*host;
	if ((until = ant_polite_blocked(pol, *host, now))) {
		ant_fetch_deferred(res, ant_polite_wait_key(pol, *host), until, now);
		*host = -1;
		return 1;
	}
	for (int64_t t = start, wake = 0;
	     !ant_polite_may_start(pol, *host, per_host, t, &wake) && t - start < delay + POLITE_MAX_EXTRA_MS;
	     t = mono_ms(), wake = 0)
		sleep_ms(wake > t ? wake - t : 50);
	ant_polite_started(pol, *host, mono_ms(), delay);
	return 0;
}

void ant_fetch_polite_end(const ant_fetch_limits *lim, long host)
{
	if (host >= 0 && lim && lim->pool)
		ant_polite_ended(ant_fetch_pool_polite(lim->pool), host);
}
