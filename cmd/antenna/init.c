/*
 * init.c: antenna init: create the database and set the configuration.
 * Run again on an existing database it changes only the options given,
 * and says which changed ("nothing changed" when none did).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "antenna.h"
#include "ant_publish.h"
#include "lb_url.h"
#include "lirs.h"

static const char help[] =
	"usage: antenna [-d FILE] init [--title T] [--base URL] [--author A] [--tz-offset SECONDS]\n"
	"                         [--allow-file] [--no-visited-query] [--max-age SECONDS]\n"
	"                         [--max-future SECONDS] [--page-size N] [--charset euc-jp|euc-jp-ms]\n"
	"                         [--keep-events N|all] [--lang ja|en] [--html-limit N]\n\n"
	"Create the antenna's database (or change the options given on an existing one,\n"
	"and say what changed).\n\n"
	"  --title T            the antenna's name (default \"antenna\")\n"
	"  --base URL           where the published directory is served (default\n"
	"                       http://localhost/); feeds need absolute links\n"
	"  --author A           the antenna's author, also the feeds' author\n"
	"  --tz-offset SECONDS  time zone of the listing, seconds east of UTC (default\n"
	"                       32400, JST)\n"
	"  --allow-file         allow file:///... pages and sources (demos, tests)\n"
	"  --no-visited-query   do not append ?MMDDHHMM to links in index.html\n"
	"  --max-age SECONDS    freshness of LIRS records read and written (default 28800)\n"
	"  --max-future SECONDS clock skew tolerated in LIRS sources' records: a time later\n"
	"                       than now plus this drops the record (default 3600)\n"
	"  --page-size N        Atom entries per archive document (default 50)\n"
	"  --charset CS         lirs.gz's encoding: euc-jp (default; strict JIS X\n"
	"                       0208/0212, NEC and IBM extensions as readable forms,\n"
	"                       ① as (1), 髙 as 高) or euc-jp-ms (keep their codes)\n"
	"  --keep-events N      history kept: at least the N newest update events of\n"
	"                       Atom archives already written (default 10000); older\n"
	"                       ones are pruned at publish; 'all' keeps every one\n"
	"  --lang ja|en         the language of index.html's words and of the Atom\n"
	"                       summaries (default ja, Japanese); archives already\n"
	"                       sealed keep theirs\n"
	"  --html-limit N       updates listed in index.html (default 1000); the rest\n"
	"                       follow in index-2.html, index-3.html, ... (each file\n"
	"                       also stops before 1 MB)\n";

/* The defaults written on creation, so that 'show'/'list' can read them back. */
static const struct { const char *key, *value; } defaults[] = {
	{ CFG_TITLE, "antenna" },
	{ CFG_BASE, "http://localhost/" },
	{ CFG_AUTHOR, "" },
	{ CFG_TZ, "32400" },
	{ CFG_ALLOW_FILE, "0" },
	{ CFG_VISITED, "1" },
	{ CFG_MAX_AGE, "28800" },
	{ CFG_MAX_FUTURE, "3600" },
	{ CFG_PAGE_SIZE, "50" },
	{ CFG_LIRS_CHARSET, "euc-jp" },
	{ CFG_KEEP_EVENTS, "10000" },   /* ANT_KEEP_EVENTS */
	{ CFG_LANG, ANT_PUB_LANG_DEFAULT },
};

struct setting { const char *key; const char *value; };

static int set_defaults(ant_store *s, lb_error *err)
{
	for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
		char *v = ant_store_config_get(s, defaults[i].key);
		int rc = v ? 0 : ant_store_config_set(s, defaults[i].key, defaults[i].value, err);
		free(v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int cmd_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "base", required_argument, NULL, 'b' },
		{ "author", required_argument, NULL, 'a' },
		{ "tz-offset", required_argument, NULL, 'z' },
		{ "allow-file", no_argument, NULL, 'F' },
		{ "no-visited-query", no_argument, NULL, 'V' },
		{ "max-age", required_argument, NULL, 'm' },
		{ "max-future", required_argument, NULL, 'M' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "charset", required_argument, NULL, 'C' },
		{ "keep-events", required_argument, NULL, 'k' },
		{ "lang", required_argument, NULL, 'L' },
		{ "html-limit", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct setting set[sizeof opts / sizeof *opts];
	const size_t maxset = sizeof set / sizeof *set;
	char *old[sizeof opts / sizeof *opts] = { NULL };
	size_t nset = 0;
	int64_t v;
	int existed;
	int c, rc = CLI_OK;
	ant_store *s;
	lb_error err = LB_ERROR_INIT;

	while ((c = cli_getopt(argc, argv, "h", opts, help)) != -1) {
		struct setting *x = &set[nset < maxset ? nset : maxset - 1];
		switch (c) {
		case 'h': return cli_help(help);
		case 't': *x = (struct setting){ CFG_TITLE, optarg }; break;
		case 'a': *x = (struct setting){ CFG_AUTHOR, optarg }; break;
		case 'b':
			if (!lb_url_is_http(optarg))
				return cli_usage_error(help, "--base: '%s' is not an absolute http or https URL", optarg);
			*x = (struct setting){ CFG_BASE, optarg };
			break;
		case 'z':
			if (cli_parse_int64("--tz-offset", optarg, -43200, 50400, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ CFG_TZ, optarg };
			break;
		case 'm':
			if (cli_parse_int64("--max-age", optarg, 1, INT64_MAX / 2, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ CFG_MAX_AGE, optarg };
			break;
		case 'M':
			if (cli_parse_int64("--max-future", optarg, 1, INT64_MAX / 2, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ CFG_MAX_FUTURE, optarg };
			break;
		case 'p':
			if (cli_parse_int64("--page-size", optarg, 1, 100000, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ CFG_PAGE_SIZE, optarg };
			break;
		case 'C':
			if (strcmp(optarg, "euc-jp") && strcmp(optarg, "euc-jp-ms"))
				return cli_usage_error(help, "--charset: '%s' is not euc-jp or euc-jp-ms", optarg);
			*x = (struct setting){ CFG_LIRS_CHARSET, optarg };
			break;
		case 'k':
			if (antcmd_parse_keep("--keep-events", optarg, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ CFG_KEEP_EVENTS, optarg };
			break;
		case 'L':
			if (!ant_pub_lang_known(optarg))
				return cli_usage_error(help, "--lang: '%s' is not ja or en", optarg);
			*x = (struct setting){ CFG_LANG, optarg };
			break;
		case 'H':
			if (cli_parse_int64("--html-limit", optarg, 1, 1000000, &v) < 0)
				return CLI_FATAL;
			*x = (struct setting){ ANT_CFG_HTML_LIMIT, optarg };
			break;
		case 'F': *x = (struct setting){ CFG_ALLOW_FILE, "1" }; break;
		case 'V': *x = (struct setting){ CFG_VISITED, "0" }; break;
		default: return CLI_FATAL;
		}
		if (nset < maxset)
			nset++;
	}
	if (optind < argc)
		return cli_usage_error(help, "unexpected argument '%s'", argv[optind]);
	existed = access(antcmd_db_path, F_OK) == 0;
	if (!(s = antcmd_open(ANT_STORE_OPEN_CREATE)))
		return CLI_FATAL;
	if (ant_store_begin(s, &err) < 0)
		goto fail;
	/* what was there before, to say what changed (a setting an older
	 * antenna never wrote is its default, written now) */
	for (size_t i = 0; i < nset; i++)
		old[i] = ant_store_config_get(s, set[i].key);
	if (set_defaults(s, &err) < 0)
		goto fail;
	for (size_t i = 0; i < nset; i++)
		if (ant_store_config_set(s, set[i].key, set[i].value, &err) < 0)
			goto fail;
	if (ant_store_commit(s, &err) < 0)
		goto fail;
	if (!existed) {
		printf("initialised '%s'\n", antcmd_db_path);
	} else {
		size_t changed = 0;

		for (size_t i = 0; i < nset; i++) {
			int later = 0;   /* the same key given again: only the last counts */
			for (size_t k = i + 1; k < nset; k++)
				later |= strcmp(set[k].key, set[i].key) == 0;
			if (later || (old[i] && strcmp(old[i], set[i].value) == 0))
				continue;
			printf("%s: %s%s%s -> '%s'\n", set[i].key, old[i] ? "'" : "",
			       old[i] ? old[i] : "(unset)", old[i] ? "'" : "", set[i].value);
			changed++;
		}
		if (!changed)
			printf("'%s': nothing changed\n", antcmd_db_path);
	}
	for (size_t i = 0; i < nset; i++)
		free(old[i]);
	ant_store_close(s);
	return rc;
fail:
	for (size_t i = 0; i < nset; i++)
		free(old[i]);
	cli_error("%s", lb_error_msg(&err));
	ant_store_rollback(s);
	ant_store_close(s);
	return CLI_FATAL;
}
