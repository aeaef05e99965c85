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
#include "ant_polite.h"
#include "ant_difftext.h"
#include "ant_publish.h"
#include "ant_websub.h"
#include "ant_pagestate.h"
#include "ant_trust.h"
#include "lb_url.h"
#include "lirs.h"


/* The defaults written on creation, so that 'show'/'list' can read them back. */
static const struct { const char *key, *value; } defaults[] = {
	{ CFG_TITLE, "antenna" },
	{ CFG_BASE, "http://localhost/" },
	{ CFG_AUTHOR, "" },
	{ CFG_TZ, "32400" },
	{ CFG_ALLOW_FILE, "0" },
	{ ANT_CFG_ALLOW_PRIVATE, "0" },
	{ CFG_VISITED, "1" },
	{ CFG_MAX_AGE, "28800" },
	{ CFG_MAX_FUTURE, "3600" },
	{ CFG_PAGE_SIZE, "50" },
	{ CFG_LIRS_CHARSET, "euc-jp" },
	{ CFG_KEEP_EVENTS, "10000" },   /* ANT_KEEP_EVENTS */
	{ CFG_LANG, ANT_PUB_LANG_DEFAULT },
	{ ANT_CFG_NEW_HOURS, "3" },   /* ANT_PUB_NEW_HOURS */
	{ ANT_CFG_CONTACT, "" },
	{ ANT_CFG_MIN_DELAY, "0" },         /* ANT_FETCH_DEFAULT_MIN_DELAY_MS */
	{ ANT_CFG_MAX_RETRY_AFTER, "86400" },   /* ANT_FETCH_DEFAULT_MAX_RETRY_AFTER */
};

struct setting { const char *key; const char *value; };

/* Each option: the key it sets and how its value is checked. */
enum check { TEXT, URL, INT, CHARSET, KEEP, LANG, FLAG, HUB, CONTACT };
static const struct rule {
	int c;
	const char *name, *key;
	enum check check;
	int64_t min, max;        /* INT */
	const char *value;       /* FLAG: the value it sets */
} rules[] = {
	{ 't', "--title", CFG_TITLE, TEXT, 0, 0, NULL },
	{ 'a', "--author", CFG_AUTHOR, TEXT, 0, 0, NULL },
	{ 'b', "--base", CFG_BASE, URL, 0, 0, NULL },
	{ 'z', "--tz-offset", CFG_TZ, INT, -43200, 50400, NULL },
	{ 'm', "--max-age", CFG_MAX_AGE, INT, 1, INT64_MAX / 2, NULL },
	{ 'M', "--max-future", CFG_MAX_FUTURE, INT, 1, INT64_MAX / 2, NULL },
	{ 'p', "--page-size", CFG_PAGE_SIZE, INT, 1, 100000, NULL },
	{ 'C', "--charset", CFG_LIRS_CHARSET, CHARSET, 0, 0, NULL },
	{ 'k', "--keep-events", CFG_KEEP_EVENTS, KEEP, 0, 0, NULL },
	{ 'L', "--lang", CFG_LANG, LANG, 0, 0, NULL },
	{ 'H', "--html-limit", ANT_CFG_HTML_LIMIT, INT, 1, 1000000, NULL },
	{ 'G', "--html-pages", ANT_CFG_HTML_PAGES, INT, 1, 1000000, NULL },
	{ 'E', "--current-entries", ANT_CFG_CURRENT_ENTRIES, INT, 1, INT64_MAX / 2, NULL },
	{ 'B', "--current-bytes", ANT_CFG_CURRENT_BYTES, INT, 4096, INT64_MAX / 2, NULL },
	{ 'N', "--new-hours", ANT_CFG_NEW_HOURS, INT, 0, 8760, NULL },
	{ 'T', "--trust-hint", ANT_CFG_TRUST_HINT, INT, 0, 101, NULL },
	{ 'Y', "--trust-relay", ANT_CFG_TRUST_RELAY, INT, 0, 101, NULL },
	{ 'J', "--trust-claims", ANT_CFG_TRUST_CLAIMS, INT, 1, 100, NULL },
	{ 0x101, "--diff-text-max", ANT_CFG_DIFF_TEXT_MAX, INT, 0, 16 << 20, NULL },   /* ant_difftext.h */
	{ 'F', "--allow-file", CFG_ALLOW_FILE, FLAG, 0, 0, "1" },
	{ 'P', "--allow-private", ANT_CFG_ALLOW_PRIVATE, FLAG, 0, 0, "1" },
	{ 'Q', "--no-allow-private", ANT_CFG_ALLOW_PRIVATE, FLAG, 0, 0, "0" },
	{ 'V', "--no-visited-query", CFG_VISITED, FLAG, 0, 0, "0" },
	{ 'W', "--hub", ANT_CFG_HUBS, HUB, 0, 0, NULL },
	{ 'R', "--move-after", ANT_CFG_MOVE_AFTER, INT, 1, 1000, NULL },
	{ 0x100, "--gone-days", ANT_CFG_GONE_DAYS, INT, 1, 3650, NULL },
	{ 'w', "--no-hub", ANT_CFG_HUBS, FLAG, 0, 0, "" },
	{ 'c', "--contact", ANT_CFG_CONTACT, CONTACT, 0, 0, NULL },
	{ 'D', "--min-delay", ANT_CFG_MIN_DELAY, INT, 0, 3600000, NULL },
	{ 'y', "--max-retry-after", ANT_CFG_MAX_RETRY_AFTER, INT, 1, 30 * 86400, NULL },
};

static int set_defaults(ant_store *s, lb_error *err)
{
	for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
		char *v = ant_store_config_get(s, defaults[i].key);
		int rc = v ? 0 : ant_store_config_set(s, defaults[i].key, defaults[i].value, err);
		free(v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The value of option r checked (*v: --base as a directory URL, see
 * antcmd_base_dir()); 0, or CLI_FATAL (printed). */
static int check_value(const struct rule *r, const char **v)
{
	int64_t n;

	switch (r->check) {
	case URL:
		if (!lb_url_is_http(*v))
			return cli_usage_error(antcmd_init_help, "--base: '%s' is not an absolute http or https URL", *v);
		return (*v = antcmd_base_dir(*v)) ? 0 : CLI_FATAL;
	case INT:
		return cli_parse_int64(r->name, *v, r->min, r->max, &n) < 0 ? CLI_FATAL : 0;
	case CHARSET:
		if (strcmp(*v, "euc-jp") && strcmp(*v, "euc-jp-ms"))
			return cli_usage_error(antcmd_init_help, "--charset: '%s' is not euc-jp or euc-jp-ms", *v);
		return 0;
	case KEEP:
		return antcmd_parse_keep(r->name, *v, &n) < 0 ? CLI_FATAL : 0;
	case HUB:
		if (!lb_url_is_http(*v) || strpbrk(*v, "\n\r\t "))
			return cli_usage_error(antcmd_init_help, "--hub: '%s' is not an absolute http or https URL", *v);
		return 0;
	case CONTACT: {
		lb_error err = LB_ERROR_INIT;

		if (ant_polite_contact_check(*v, &err) < 0)
			return cli_usage_error(antcmd_init_help, "%s", lb_error_msg(&err));
		return 0;
	}
	case LANG:
		if (!ant_pub_lang_known(*v))
			return cli_usage_error(antcmd_init_help, "--lang: '%s' is not ja or en", *v);
		return 0;
	default:
		return 0;
	}
}

/* key = value at the end of set; an option given again counts where it
 * was given last, so that set never holds more than one per key. */
static void add_setting(struct setting *set, size_t *nset, const char *key, const char *value)
{
	for (size_t i = 0; i < *nset; i++)
		if (!strcmp(set[i].key, key)) {
			memmove(&set[i], &set[i + 1], (*nset - i - 1) * sizeof *set);
			(*nset)--;
			break;
		}
	set[(*nset)++] = (struct setting){ key, value };
}

/* The options into set (room for one per rule); 0, -1 after --help, or
 * CLI_FATAL (printed). */
static int parse_opts(int argc, char **argv, struct setting *set, size_t *nset)
{
	static const struct option opts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "base", required_argument, NULL, 'b' },
		{ "author", required_argument, NULL, 'a' },
		{ "tz-offset", required_argument, NULL, 'z' },
		{ "allow-file", no_argument, NULL, 'F' },
		{ "allow-private", no_argument, NULL, 'P' },
		{ "no-allow-private", no_argument, NULL, 'Q' },
		{ "no-visited-query", no_argument, NULL, 'V' },
		{ "max-age", required_argument, NULL, 'm' },
		{ "max-future", required_argument, NULL, 'M' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "charset", required_argument, NULL, 'C' },
		{ "keep-events", required_argument, NULL, 'k' },
		{ "lang", required_argument, NULL, 'L' },
		{ "html-limit", required_argument, NULL, 'H' },
		{ "html-pages", required_argument, NULL, 'G' },
		{ "current-entries", required_argument, NULL, 'E' },
		{ "current-bytes", required_argument, NULL, 'B' },
		{ "new-hours", required_argument, NULL, 'N' },
		{ "hub", required_argument, NULL, 'W' },
		{ "move-after", required_argument, NULL, 'R' },
		{ "gone-days", required_argument, NULL, 0x100 },
		{ "no-hub", no_argument, NULL, 'w' },
		ANTCMD_NOTIFY_OPTIONS,   /* notify.c */
		{ "trust-hint", required_argument, NULL, 'T' },
		{ "trust-relay", required_argument, NULL, 'Y' },
		{ "trust-claims", required_argument, NULL, 'J' },
		{ "contact", required_argument, NULL, 'c' },
		{ "min-delay", required_argument, NULL, 'D' },
		{ "max-retry-after", required_argument, NULL, 'y' },
		{ "diff-text-max", required_argument, NULL, 0x101 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = cli_getopt(argc, argv, "h", opts, antcmd_init_help)) != -1) {
		const struct rule *r = NULL;
		const char *v = optarg;
		if (c == 'h')
			return cli_help(antcmd_init_help), -1;
		int taken = antcmd_notify_opt(c, optarg);   /* notify.c's options */
		if (taken < 0)
			return CLI_FATAL;
		if (taken)
			continue;
		for (size_t i = 0; i < sizeof rules / sizeof *rules && !r; i++)
			r = rules[i].c == c ? &rules[i] : NULL;
		if (!r || check_value(r, &v) != 0)
			return CLI_FATAL;
		add_setting(set, nset, r->key, r->check == FLAG ? r->value : v);
	}
	if (optind < argc)
		return cli_usage_error(antcmd_init_help, "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* The defaults, then the options, in one transaction; old[i] gets what
 * set[i]'s key held before (a setting an older antenna never wrote is its
 * default, written now).  0, or < 0 with err. */
static int write_settings(ant_store *s, const struct setting *set, size_t nset, char **old, lb_error *err)
{
	int rc;

	if ((rc = ant_store_begin(s, err)) < 0)
		return rc;
	for (size_t i = 0; i < nset; i++)
		old[i] = ant_store_config_get(s, set[i].key);
	if ((rc = set_defaults(s, err)) < 0)
		goto fail;
	for (size_t i = 0; i < nset; i++)
		if ((rc = ant_store_config_set(s, set[i].key, set[i].value, err)) < 0)
			goto fail;
	if ((rc = ant_store_commit(s, err)) == 0)
		return 0;
fail:
	ant_store_rollback(s);
	return rc;
}

/* On an existing database: each setting that changed, or "nothing changed". */
static void report_changes(const struct setting *set, size_t nset, char *const *old, size_t changed)
{

	for (size_t i = 0; i < nset; i++) {
		if (old[i] && strcmp(old[i], set[i].value) == 0)
			continue;
		printf("%s: %s%s%s -> '%s'\n", set[i].key, old[i] ? "'" : "",
		       old[i] ? old[i] : "(unset)", old[i] ? "'" : "", set[i].value);
		changed++;
	}
	if (!changed)
		printf("'%s': nothing changed\n", antcmd_db_path);
}

/* The feeds' links are absolute: a new antenna without --base is told
 * where they point. */
static void base_note(ant_store *s)
{
	char *base = ant_store_config_get(s, CFG_BASE);

	if (base && !strcmp(base, "http://localhost/"))
		cli_error("note: the feeds link http://localhost/ until 'antenna init --base URL' "
			  "names where the published directory is served");
	free(base);
}

int cmd_init(int argc, char **argv)
{
	struct setting set[sizeof rules / sizeof *rules];
	char *old[sizeof set / sizeof *set] = { NULL };
	size_t nset = 0;
	int existed, rc;
	ant_store *s;
	lb_error err = LB_ERROR_INIT;

	if ((rc = parse_opts(argc, argv, set, &nset)) != 0)
		return rc < 0 ? CLI_OK : CLI_FATAL;
	existed = access(antcmd_db_path, F_OK) == 0;
	if (!(s = antcmd_open(ANT_STORE_OPEN_CREATE)))
		return CLI_FATAL;
	if ((rc = write_settings(s, set, nset, old, &err)) < 0 ||
	    (rc = antcmd_notify_apply(s, antcmd_now(0), &err)) < 0)   /* notify.c */
		cli_error("%s", lb_error_msg(&err));
	else if (!existed)
		printf("initialised '%s'\n", antcmd_db_path);
	else
		report_changes(set, nset, old, (size_t)rc);
	if (rc >= 0 && !existed)
		base_note(s);
	for (size_t i = 0; i < nset; i++)
		free(old[i]);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
