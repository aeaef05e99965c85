/*
 * wait.c: a server's Retry-After as the operator sees and lifts it
 * (ant_polite.h, store_polite.c): the line 'antenna show URL' gives while
 * the page's server has asked us to wait, and 'antenna set --server HOST
 * --clear-wait', which forgets that wait (the server's registrable
 * domain's: the one the wait is kept and named under).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "antenna.h"
#include "ant_polite.h"

/* The host of an http(s) URL (userinfo, port, brackets left out), a new
 * string; NULL when out of memory. */
static char *url_host(const char *url)
{
	const char *h = strstr(url, "://"), *end, *at;
	size_t n;
	char *s;

	h = h ? h + 3 : url;
	end = h + strcspn(h, "/?#");
	if ((at = memchr(h, '@', (size_t)(end - h))))
		h = at + 1;
	if (*h == '[')
		n = strcspn(h, "]") + (h[strcspn(h, "]")] == ']');
	else
		n = strcspn(h, ":/?#");
	if (h + n > end)
		n = (size_t)(end - h);
	if ((s = malloc(n + 1))) {
		memcpy(s, h, n);
		s[n] = '\0';
	}
	return s;
}

void antcmd_show_wait(ant_store *s, const ant_store_page *p, int64_t tz)
{
	char *host = url_host(p->check_url ? p->check_url : p->url), *dom = host ? ant_polite_domain(host) : NULL;
	int64_t until = 0, now = (int64_t)time(NULL);
	char b[128];

	if (dom && ant_store_server_wait_get(s, dom, &until, NULL) == 0 && until > now)
		printf("server wait:    %s asked us to wait until %s (Retry-After, %lld s to go): not "
		       "asked before then; 'antenna set --server %s --clear-wait' lifts it\n",
		       cli_t(dom), antcmd_when(b, sizeof b, until, tz), (long long)(until - now), cli_t(dom));
	free(host);
	free(dom);
}

int antcmd_clear_wait(int argc, char **argv, const char *server, int clear)
{
	ant_store *s;
	char *dom;
	lb_error err = LB_ERROR_INIT;
	int rc = CLI_FATAL, n;

	if (!server || !clear)
		return cli_usage_error(antcmd_set_help, "--server HOST goes with --clear-wait");
	if (!(s = antcmd_open_no_operand(argc, argv, antcmd_set_help)))
		return CLI_FATAL;
	/* a run going on would write its view of the waits back: after it */
	if (ant_store_lock(s, ANT_STORE_LOCK_WAIT, &err) < 0) {
		cli_error("%s", lb_error_msg(&err));
		dom = NULL;
	} else if (!(dom = ant_polite_domain(server))) {
		cli_error("out of memory");
	} else if ((n = ant_store_server_wait_clear(s, dom, &err)) < 0) {
		cli_error("%s", lb_error_msg(&err));
	} else {
		printf(n ? "%s: its wait lifted (Retry-After forgotten)\n" :
		       "%s: no wait kept\n", cli_t(dom));
		rc = CLI_OK;
	}
	free(dom);
	ant_store_close(s);
	return rc;
}
