/*
 * outcome.c: the kind of a page's failure (ant_outcome.h): its names.
 */
#include "ant_outcome.h"

#include <stddef.h>
#include <string.h>

static const struct {
	ant_fail_kind k;
	const char *name;
} kinds[] = {
	{ ANT_FAIL_DNS, "dns" }, { ANT_FAIL_CONNECT, "connect" }, { ANT_FAIL_TIMEOUT, "timeout" },
	{ ANT_FAIL_TLS, "tls" }, { ANT_FAIL_TOO_BIG, "too-big" }, { ANT_FAIL_REDIRECTS, "redirects" },
	{ ANT_FAIL_PROTOCOL, "protocol" }, { ANT_FAIL_OTHER, "other" },
	{ ANT_FAIL_HEADER_TOO_BIG, "header-too-big" }, { ANT_FAIL_INTERNAL, "internal" },
	{ ANT_FAIL_DEFERRED, "deferred" }, { ANT_FAIL_HTTP, "http" }, { ANT_FAIL_LOCAL, "local" },
	{ ANT_FAIL_CHECK, "check" }, { ANT_FAIL_GONE, "gone" }, { ANT_FAIL_ROBOTS, "robots-excluded" },
};

const char *ant_fail_kind_name(ant_fail_kind k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (kinds[i].k == k)
			return kinds[i].name;
	return NULL;
}

ant_fail_kind ant_fail_kind_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof kinds / sizeof *kinds; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return kinds[i].k;
	return ANT_FAIL_NONE;
}
