/*
 * common.c: what the antenna subcommands share (see antenna.h).
 */
#include "antenna.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>

#include "lb_buf.h"
#include "atom_evstore.h"
#include "lirs.h"
#include "lirs_merge.h"

const char *ant_prog = "antenna";
const char *ant_db_path = "antenna.db";

static void vant_error(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", ant_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ant_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vant_error(fmt, ap);
	va_end(ap);
}

static void usage_line(const char *help)
{
	const char *nl = strchr(help, '\n');

	fprintf(stderr, "%.*s\nTry '%s --help' for more information.\n",
		(int)(nl ? nl - help : (long)strlen(help)), help, ant_prog);
}

int ant_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vant_error(fmt, ap);
	va_end(ap);
	usage_line(help);
	return ANT_FATAL;
}

int ant_help(const char *help)
{
	fputs(help, stdout);
	return ANT_OK;
}

int ant_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *help)
{
	static char **seen;
	char so[64];
	int c;

	if (seen != argv) {
		seen = argv;
		optind = 0;    /* glibc: 0 re-initialises fully */
	}
	snprintf(so, sizeof so, ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, so, longopts, NULL);
	if (c == '?') {
		if (optopt)
			ant_usage_error(help, "unknown option '-%c'", optopt);
		else
			ant_usage_error(help, "unknown option '%s'", argv[optind - 1]);
		return ANT_BADOPT;
	}
	if (c == ':') {
		ant_usage_error(help, "option '%s' needs a value", argv[optind - 1]);
		return ANT_BADOPT;
	}
	return c;
}

int ant_parse_int64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		ant_error("%s: '%s' is not an integer in [%lld, %lld]", opt, s,
			  (long long)min, (long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

ant_store *ant_open(int mode)
{
	ant_store *s;
	char err[512];

	if (ant_store_open(&s, ant_db_path, mode, err, sizeof err) < 0) {
		ant_error("%s", err);
		return NULL;
	}
	return s;
}

char *ant_url_key(const char *url)
{
	lb_buf b = LB_BUF_INIT;

	if (lirs_merge_url_key(&b, url) < 0) {
		lb_buf_release(&b);
		return NULL;
	}
	return lb_buf_detach(&b, NULL);
}

ant_store *ant_open_no_operand(int argc, char **argv, const char *help)
{
	if (optind != argc) {
		ant_usage_error(help, "unexpected argument '%s'", argv[optind]);
		return NULL;
	}
	return ant_open(STORE_OPEN_EXISTING);
}

ant_store *ant_open_url(const char *url, char **key)
{
	ant_store *s = ant_open(STORE_OPEN_EXISTING);

	if (s && !(*key = ant_url_key(url))) {
		ant_store_close(s);
		ant_error("out of memory");
		return NULL;
	}
	return s;
}

int ant_check_url(const char *url, int allow_file)
{
	if (lirs_url_is_http(url))
		return 0;
	if (allow_file && strncmp(url, "file:///", 8) == 0)
		return 0;
	ant_error("'%s' is not an absolute http or https URL%s", url,
		  allow_file ? " (or file:///...)" : "");
	return -1;
}

int64_t ant_now(int64_t now_opt)
{
	return now_opt > 0 ? now_opt : (int64_t)time(NULL);
}

/* A byte count with an optional K, M or G suffix, more than 0. */
int ant_parse_bytes(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k') shift = 10, end++;
	else if (*end == 'M' || *end == 'm') shift = 20, end++;
	else if (*end == 'G' || *end == 'g') shift = 30, end++;
	if (*end || v == 0 || v > (~0ULL >> (shift + 1)))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

int ant_parse_keep(const char *opt, const char *s, int64_t *out)
{
	if (strcmp(s, "all") == 0) {
		*out = EVSTORE_KEEP_ALL;
		return 0;
	}
	if (*s < '0' || *s > '9') {   /* "-1" is not "all" */
		ant_error("%s: '%s' is neither 'all' nor an integer >= 0", opt, s);
		return -1;
	}
	return ant_parse_int64(opt, s, 0, INT64_MAX / 2, out);
}

int64_t ant_keep_events(ant_store *s)
{
	char *v = ant_store_config_get(s, CFG_KEEP_EVENTS);
	int64_t k = ANT_KEEP_EVENTS;

	if (v && strcmp(v, "all") == 0)
		k = EVSTORE_KEEP_ALL;
	else if (v)
		k = ant_store_config_int(s, CFG_KEEP_EVENTS, ANT_KEEP_EVENTS);
	free(v);
	return k < 0 ? EVSTORE_KEEP_ALL : k;
}
