/*
 * show_settings.c: antenna show without a URL: the antenna's settings
 * (every row of the settings table, ant_settings.h, by its config key,
 * "(default)" after a default) and its notification targets
 * with their state (pending news, deliveries, the last error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "lb_term.h"

/* v as shown: an SMTP URL's password (smtp://USER:PASSWORD@HOST) as ***;
 * made safe for the terminal (lb_term.h) into a. */
static const char *shown(lb_buf *a, ant_setting_id id, const char *v)
{
	const char *auth = strstr(v, "://"), *at, *colon;
	lb_buf m = LB_BUF_INIT;

	if (id != ANT_SET_SMTP || !auth || !(at = strchr(auth + 3, '@')) ||
	    !(colon = memchr(auth + 3, ':', (size_t)(at - auth - 3))))
		return lb_term(a, v);
	if (lb_buf_add(&m, v, (size_t)(colon + 1 - v)) < 0 || lb_buf_adds(&m, "***") < 0 ||
	    lb_buf_adds(&m, at) < 0)
		lb_buf_reset(&m);
	v = lb_term(a, m.len ? m.data : "(out of memory)");
	lb_buf_release(&m);
	return v;
}

int antcmd_show_settings(void)
{
	lb_error err = LB_ERROR_INIT;
	lb_buf a = LB_BUF_INIT;
	ant_store *s = antcmd_open(ANT_STORE_OPEN_EXISTING);
	int rc;

	if (!s)
		return CLI_FATAL;
	for (size_t i = 0; i < ANT_SET_COUNT; i++) {
		const ant_setting *d = &ant_settings[i];
		char b[32], *v;
		const char *dflt;
		int is_dflt;

		if (d->flags & ANT_SETF_STATE)   /* the library's own record */
			continue;
		v = ant_store_config_get(s, d->key);
		dflt = ant_setting_default(d, b, sizeof b);
		is_dflt = !v || (dflt && !strcmp(v, dflt));
		printf("%-19s %s%s\n", d->key, shown(&a, d->id, v ? v : dflt ? dflt : "(none)"),
		       is_dflt ? " (default)" : "");
		lb_buf_reset(&a);
		free(v);
	}
	lb_buf_release(&a);
	rc = antcmd_show_notify(s, ant_setting_int(s, ANT_SET_TZ), antcmd_now(0), &err);
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
