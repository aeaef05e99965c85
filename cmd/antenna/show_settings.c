/*
 * show_settings.c: antenna show without a URL: the antenna's settings
 * (what init set, by their config keys) and its notification targets
 * with their state (pending news, deliveries, the last error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antenna.h"
#include "ant_notify.h"
#include "ant_pagestate.h"
#include "ant_websub.h"
#include "lb_term.h"

/* The settings shown, with what an unset one means. */
static const struct { const char *key, *unset; } keys[] = {
	{ CFG_TITLE, "antenna" }, { CFG_BASE, "http://localhost/" }, { CFG_AUTHOR, "" },
	{ CFG_LANG, ANT_PUB_LANG_DEFAULT }, { CFG_TZ, "32400" }, { CFG_MAX_AGE, "28800" },
	{ CFG_MAX_FUTURE, "3600" }, { CFG_PAGE_SIZE, "50" }, { CFG_LIRS_CHARSET, "euc-jp" },
	{ CFG_KEEP_EVENTS, "10000" }, { ANT_CFG_HTML_LIMIT, "1000" }, { ANT_CFG_NEW_HOURS, "3" },
	{ CFG_ALLOW_FILE, "0" }, { ANT_CFG_ALLOW_PRIVATE, "0" }, { CFG_VISITED, "1" },
	{ ANT_CFG_HUBS, "(none)" }, { ANT_CFG_MOVE_AFTER, "3" }, { ANT_CFG_GONE_DAYS, "7" },
	{ ANT_CFG_SMTP, ANT_NOTIFY_SMTP_DEFAULT }, { ANT_CFG_SMTP_FROM, ANT_NOTIFY_FROM_DEFAULT },
	{ ANT_CFG_SMTP_PASSWORD_FILE, "(none)" }, { ANT_CFG_SMTP_TLS, "try" },
	{ ANT_CFG_NOTIFY_TIMEOUT, "20" },     /* ANT_NOTIFY_TIMEOUT */
	{ ANT_CFG_NOTIFY_MAX, "50" },         /* ANT_NOTIFY_MAX_LISTED */
	{ ANT_CFG_NOTIFY_MAX_AGE, "604800" }, /* ANT_NOTIFY_MAX_AGE */
};

/* v as shown: an SMTP URL's password (smtp://USER:PASSWORD@HOST) as ***;
 * made safe for the terminal (lb_term.h) into a. */
static const char *shown(lb_buf *a, const char *key, const char *v)
{
	const char *auth = strstr(v, "://"), *at, *colon;
	lb_buf m = LB_BUF_INIT;

	if (strcmp(key, ANT_CFG_SMTP) || !auth || !(at = strchr(auth + 3, '@')) ||
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
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		char *v = ant_store_config_get(s, keys[i].key);
		printf("%-19s %s\n", keys[i].key, shown(&a, keys[i].key, v ? v : keys[i].unset));
		lb_buf_reset(&a);
		free(v);
	}
	lb_buf_release(&a);
	rc = antcmd_show_notify(s, ant_store_config_int(s, CFG_TZ, 32400), antcmd_now(0), &err);
	if (rc < 0)
		cli_error("%s", lb_error_msg(&err));
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
