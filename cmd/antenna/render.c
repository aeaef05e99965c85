/*
 * render.c: update's options for the pages added with --render
 * (ant_render.h): one table of their names and bounds.
 */
#include <stdint.h>

#include "antenna.h"
#include "ant_update.h"

int antcmd_render_opt(int c, const char *arg, ant_update_opts *u)
{
	static const struct { int code; const char *name; int64_t min, max; } opt[] = {
		{ ANTCMD_OPT_RENDER_TIMEOUT, "--render-timeout", 1, 3600 },
		{ ANTCMD_OPT_RENDER_MEMORY, "--render-memory", 16, 1 << 20 },
		{ ANTCMD_OPT_RENDER_SETTLE, "--render-settle", -1, 600000 },
		{ ANTCMD_OPT_RENDER_JOBS, "--render-jobs", 1, 64 },
	};
	long *field[] = { &u->render.timeout, &u->render.max_mb, &u->render.settle_ms, &u->render.jobs };
	int64_t v;

	for (size_t i = 0; i < sizeof opt / sizeof *opt; i++)
		if (opt[i].code == c) {
			if (cli_parse_int64(opt[i].name, arg, opt[i].min, opt[i].max, &v) < 0)
				return -1;
			*field[i] = (long)v;
			return 0;
		}
	return -1;
}
