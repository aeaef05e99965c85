/*
 * render-get: one page through ant_render() (ant_render.h), for
 * tests/render: the module alone, without a database.
 *
 *   render-get [--allow URL] [--allow-private] [--timeout S] [--memory MB]
 *              [--settle MS] [--max-body BYTES] [--browser PATH] [--lock]
 *              [--count N] URL
 *
 * Writes the DOM to standard output, and one line per render on standard
 * error: "render: seconds=S peak_kb=K procs=N requests=R refused=F
 * leftover=L status=C err=KIND".  --allow is the request's allow_host
 * (the operator's page: its host may be internal, as the update loop
 * passes it).  --count renders N times in a row (the DOM of the last
 * printed).  --lock takes ant_render_lock() around each render.  Exit
 * status: 0 every render succeeded, 1 one failed (its error on standard
 * error as "error: KIND: MESSAGE"), 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ant_render.h"

static int usage(void)
{
	fprintf(stderr, "usage: render-get [--allow URL] [--allow-private] [--timeout S] [--memory MB]\n"
		"                  [--settle MS] [--max-body BYTES] [--browser PATH] [--lock] [--count N] URL\n");
	return 2;
}

int main(int argc, char **argv)
{
	ant_fetch_limits fl = { 0 };
	ant_render_limits rl = { 0 };
	ant_fetch_req req = { 0 };
	int lock = 0, failed = 0;
	long count = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--allow-private")) { fl.allow_private = 1; continue; }
		if (!strcmp(a, "--lock")) { lock = 1; continue; }
		if (a[0] != '-') {
			if (req.url)
				return usage();
			req.url = a;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "--allow")) req.allow_host = v;
		else if (!strcmp(a, "--timeout")) rl.timeout = atol(v);
		else if (!strcmp(a, "--memory")) rl.max_mb = atol(v);
		else if (!strcmp(a, "--settle")) rl.settle_ms = atol(v);
		else if (!strcmp(a, "--max-body")) fl.max_body = (size_t)atol(v);
		else if (!strcmp(a, "--browser")) rl.browser = v;
		else if (!strcmp(a, "--count")) count = atol(v);
		else return usage();
	}
	if (!req.url || count < 1)
		return usage();
	for (long n = 0; n < count; n++) {
		ant_fetch_result res;
		ant_render_stats st;
		int lk = lock ? ant_render_lock(&rl, 0) : -1;

		if (lock && lk < 0) {
			fprintf(stderr, "error: lock: cannot take the render lock (%d)\n", lk);
			return 1;
		}
		ant_render(&fl, &rl, &req, &res, &st);
		ant_render_unlock(lk);
		fprintf(stderr, "render: seconds=%.2f peak_kb=%ld procs=%ld requests=%u refused=%u "
			"leftover=%ld status=%ld err=%s\n", st.seconds, st.peak_kb, st.peak_procs, st.requests,
			st.refused, st.leftover, res.status, ant_fetch_errkind_name(res.err));
		if (res.err != ANT_FETCH_OK) {
			fprintf(stderr, "error: %s: %s\n", ant_fetch_errkind_name(res.err), res.error);
			failed = 1;
		} else if (n == count - 1) {
			fwrite(res.body, 1, res.len, stdout);
		}
		ant_render_result_release(&res);
	}
	return failed;
}
