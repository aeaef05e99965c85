/*
 * fuzz_robots: libFuzzer target for the robots.txt parser (robots.c): any
 * bytes parse, and each of a few paths gets a verdict that agrees with
 * the rule it names (an Allow rule allows, a Disallow rule disallows),
 * within a small max_bytes too.  The first byte picks max_bytes.
 */
#include "ant_robots.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void verdicts(const ant_robots *r)
{
	static const char *paths[] = { "", "/", "/a", "/a/b.gif", "/%E3%83%84?x=1", "/robots.txt",
				       "?q", "/private/x$" };

	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		ant_robots_rule why;
		int a = ant_robots_allowed(r, paths[i], &why);
		if (a != 0 && a != 1)
			abort();
		if (why.line && why.allow != a)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ant_robots *r;
	size_t max;

	if (size < 1)
		return 0;
	max = data[0] ? (size_t)data[0] * 64 : 0;
	if (ant_robots_parse((const char *)data + 1, size - 1, NULL, max, &r, NULL) != 0)
		return 0;
	verdicts(r);
	ant_robots_free(r);
	return 0;
}
