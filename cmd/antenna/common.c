/*
 * common.c: the helpers only the antenna subcommands share (antenna.h).
 */
#include "antenna.h"
#include "ant_limits.h"
#include "ant_update.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_buf.h"
#include "atom_evstore.h"
#include "lb_url.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "ant_page.h"

const char *antcmd_db_path = "antenna.db";

ant_store *antcmd_open(int mode)
{
	ant_store *s;
	lb_error err = LB_ERROR_INIT;

	if (ant_store_open(&s, antcmd_db_path, mode, &err) < 0) {
		cli_error("%s", lb_error_msg(&err));
		return NULL;
	}
	return s;
}

ant_store *antcmd_open_no_operand(int argc, char **argv, const char *help)
{
	if (optind != argc) {
		cli_usage_error(help, "unexpected argument '%s'", argv[optind]);
		return NULL;
	}
	return antcmd_open(ANT_STORE_OPEN_EXISTING);
}

ant_store *antcmd_open_url(const char *url, char **key)
{
	ant_store *s = antcmd_open(ANT_STORE_OPEN_EXISTING);

	if (s && !(*key = lb_url_page_key_dup(url))) {
		ant_store_close(s);
		cli_error("out of memory");
		return NULL;
	}
	return s;
}

int antcmd_check_url(const char *url, int allow_file)
{
	if (strlen(url) > ANT_MAX_URL) {
		cli_error("URL longer than %d bytes (%zu): not added", ANT_MAX_URL, strlen(url));
		return -1;
	}
	if (strchr(url, ' ')) {
		cli_error("'%s' has a space: write %%20 for a space", url);
		return -1;
	}
	if (lb_url_is_http(url))
		return 0;
	if (allow_file && strncmp(url, "file:///", 8) == 0)
		return 0;
	if (!strstr(url, "://") && *url != '/' && strlen(url) < ANT_MAX_URL - 8) {
		char with[ANT_MAX_URL + 9];

		snprintf(with, sizeof with, "http://%s", url);
		if (lb_url_is_http(with)) {
			cli_error("'%s' is not an absolute http or https URL: did you mean 'http://%s' or 'https://%s'?",
				  url, url, url);
			return -1;
		}
	}
	cli_error("'%s' is not an absolute http or https URL%s", url,
		  allow_file ? " (or file:///...)" : "");
	return -1;
}

int antcmd_one_url(int argc, const char *help)
{
	if (optind + 1 == argc)
		return 0;
	cli_usage_error(help, optind < argc ? "one URL at a time" : "a URL is needed");
	return -1;
}

void antcmd_clip_texts(const char *title, const char *author)
{
	ant_clip_inplace((char *)title, ANT_MAX_TITLE);
	ant_clip_inplace((char *)author, ANT_MAX_AUTHOR);
}

int antcmd_add_pattern(lb_buf *list, const char *opt, const char *pat)
{
	lb_error err = LB_ERROR_INIT;

	if (!*pat)
		return cli_error("%s: the pattern is empty", opt), -1;
	if (strchr(pat, '\n'))
		return cli_error("%s: a pattern cannot contain a newline", opt), -1;
	if ((strcmp(opt, "--only") && strcmp(opt, "--range") ? ant_page_pattern_check(pat, &err)
							     : ant_page_only_check(pat, &err)) < 0)
		return cli_error("%s: bad pattern '%s': %s", opt, pat, lb_error_msg(&err)), -1;
	if ((list->len && lb_buf_addc(list, '\n') < 0) || lb_buf_adds(list, pat) < 0)
		return cli_error("out of memory"), -1;
	return 0;
}

int antcmd_add_range(lb_buf *only, const char *range)
{
	lb_buf pat = LB_BUF_INIT;
	int rc;

	if (lb_buf_adds(&pat, "range:") < 0 || lb_buf_adds(&pat, range) < 0) {
		lb_buf_release(&pat);
		return cli_error("out of memory"), -1;
	}
	rc = antcmd_add_pattern(only, "--range", pat.data);
	lb_buf_release(&pat);
	return rc;
}

int64_t antcmd_now(int64_t now_opt)
{
	return now_opt > 0 ? now_opt : (int64_t)time(NULL);
}

int antcmd_parse_keep(const char *opt, const char *s, int64_t *out)
{
	if (strcmp(s, "all") == 0) {
		*out = ATOM_EVSTORE_KEEP_ALL;
		return 0;
	}
	if (*s < '0' || *s > '9') {   /* "-1" is not "all" */
		cli_error("%s: '%s' is neither 'all' nor an integer >= 0", opt, s);
		return -1;
	}
	return cli_parse_int64(opt, s, 0, INT64_MAX / 2, out);
}

int antcmd_recall(ant_store *s, const char *url_key, int64_t now, lb_error *err)
{
	ant_update_opts o;
	ant_store_page p;
	int rc;

	ant_update_opts_init(&o);
	ant_update_config(s, &o);
	o.now = now;
	if ((rc = ant_update_recall(s, url_key, &o, err)) <= 0)
		return rc;
	if (ant_store_page_get(s, url_key, &p, err) > 0) {
		char when[40];
		time_t t = (time_t)p.st.last_modified;
		struct tm tm;
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		printf("  updated %s, as source '%s' said\n", when, cli_t(p.source_url));
		ant_store_page_release(&p);
	}
	return 0;
}

void antcmd_time(char *b, size_t n, int64_t t, int64_t tz)
{
	int64_t a = tz < 0 ? -tz : tz;
	time_t x = (time_t)(t + tz);
	char zone[16], d[32];
	struct tm tm;

	if (tz == ANT_TZ_JST)
		snprintf(zone, sizeof zone, "JST");
	else if (tz == 0)
		snprintf(zone, sizeof zone, "UTC");
	else
		snprintf(zone, sizeof zone, "UTC%c%02lld:%02lld", tz < 0 ? '-' : '+',
			 (long long)(a / 3600 % 100), (long long)(a % 3600 / 60));
	if (t <= 0 || !gmtime_r(&x, &tm)) {
		snprintf(b, n, "%-*s", (int)(17 + strlen(zone)), "-");
		return;
	}
	strftime(d, sizeof d, "%Y-%m-%d %H:%M", &tm);
	snprintf(b, n, "%s %s", d, zone);
}

const char *antcmd_base_dir(const char *url)
{
	/* the copy lives to the end of the command, held here (the
	 * previous one freed) so that it is never lost */
	static char *d;
	const char *path = url + lb_url_http_prefix(url), *last, *dot;
	size_t n;

	path += strcspn(path, "/?#");
	if (strpbrk(path, "?#")) {
		cli_error("--base: '%s' has a query or fragment: give the URL of the published "
			  "directory", url);
		return NULL;
	}
	last = strrchr(path, '/');
	last = last ? last + 1 : path;
	dot = strrchr(last, '.');
	if (dot && dot > last && dot[1]) {   /* "index.html", "feed.cgi": a file */
		cli_error("--base: '%s' names a file ('%s'): give the URL of its directory, "
			  "'%.*s'", url, last, (int)(last - url), url);
		return NULL;
	}
	if (*path && !*last)
		return url;
	n = strlen(url);
	free(d);
	if (!(d = malloc(n + 2)))
		return cli_error("out of memory"), NULL;
	memcpy(d, url, n);
	memcpy(d + n, "/", 2);
	if (*path)   /* "http://host" alone needs no word: its path is "/" */
		cli_error("note: --base: '%s' taken as the directory '%s'", url, d);
	return d;
}
