/* t_fetch_polite: a request made outside the transfers (a render) keeps
 * its server's politeness through the run's pool (ant_fetch.h,
 * fetch_polite.c): the minimum delay between two requests to one server,
 * none between two servers, a Retry-After's wait deferring it, named. */
#include "tap.h"
#include "ant_fetch.h"
#include "ant_polite.h"

#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* begin and end of one request to url; how long begin took, in s */
static double one(const ant_fetch_limits *lim, const char *url, int *rc, ant_fetch_result *res)
{
	double t = now_s();
	long host;

	memset(res, 0, sizeof *res);
	*rc = ant_fetch_polite_begin(lim, url, &host, res);
	t = now_s() - t;
	ant_fetch_polite_end(lim, host);
	return t;
}

int main(void)
{
	ant_fetch_limits lim = { 0 };
	ant_fetch_result res;
	double t;
	int rc;

	TAP_PLAN(9);
	lim.min_delay_ms = 400;
	one(&lim, "http://a.example/1", &rc, &res);
	IS_INT(rc, 0, "no pool: a request goes at once, nothing kept");
	lim.pool = ant_fetch_pool_new();
	one(&lim, "http://a.example/1", &rc, &res);
	t = one(&lim, "http://www.a.example/2", &rc, &res);
	IS_INT(rc, 0, "the second request to a server goes");
	OK(t >= 0.35 && t < 5, "... after the minimum delay (%.3f s)", t);
	t = one(&lim, "http://b.example/", &rc, &res);
	OK(rc == 0 && t < 0.3, "another server's request is not held (%.3f s)", t);
	ant_polite_block(ant_fetch_pool_polite(lim.pool),
			 ant_polite_host(ant_fetch_pool_polite(lim.pool), "c.example"), (int64_t)time(NULL) + 3600);
	t = one(&lim, "http://c.example/page", &rc, &res);
	IS_INT(rc, 1, "a server that asked us to wait: the request is not made");
	IS_INT(res.err, ANT_FETCH_ERR_DEFERRED, "... its answer is deferred");
	OK(res.retry_after > 3500 && res.retry_after <= 3600, "... for the wait left (%lld s)",
	   (long long)res.retry_after);
	OK(strncmp(res.error, "deferred: c.example asked us to wait until ", 43) == 0, "... named: %s", res.error);
	OK(t < 0.3, "... at once (%.3f s)", t);
	ant_fetch_pool_free(lim.pool);
	TAP_DONE();
}
