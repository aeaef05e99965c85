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


struct setting { const char *key; const char *value; };

/* The settings' options (ant_settings.h): setting i's option has the
 * code OPT_SETTING + 2i, its no_option OPT_SETTING + 2i + 1. */
#define OPT_SETTING 0x800
#define OPT_NEW_FEEDS 0x7ff

static int new_feeds;   /* --new-feeds: the feeds anew after a --base or --page-size change */

/* v for setting d checked (--base made a directory URL, see
 * antcmd_base_dir()); 0, or CLI_FATAL (printed). */
static int check_value(const ant_setting *d, const char **v)
{
	lb_error err = LB_ERROR_INIT;

	if (ant_setting_check(d, *v, &err) < 0) {
		if (d->type == ANT_SETT_INT || d->type == ANT_SETT_SECONDS || d->type == ANT_SETT_KEEP)
			cli_error("%s", lb_error_msg(&err));
		else
			cli_usage_error(antcmd_init_help, "%s", lb_error_msg(&err));
		return CLI_FATAL;
	}
	if (d->id == ANT_SET_BASE && !(*v = antcmd_base_dir(*v)))
		return CLI_FATAL;
	return 0;
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

/* getopt_long's table: each setting's options (codes OPT_SETTING + ...),
 * the notification targets', --help. */
static void options(struct option *o)
{
	static const struct option rest[] = {
		ANTCMD_NOTIFY_OPTIONS,   /* notify.c */
		{ "new-feeds", no_argument, NULL, OPT_NEW_FEEDS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t n = 0;

	for (size_t i = 0; i < ANT_SET_COUNT; i++) {
		const ant_setting *d = &ant_settings[i];
		if (d->option)
			o[n++] = (struct option){ d->option, d->sets ? no_argument : required_argument, NULL,
						  OPT_SETTING + 2 * (int)i };
		if (d->no_option)
			o[n++] = (struct option){ d->no_option, no_argument, NULL, OPT_SETTING + 2 * (int)i + 1 };
	}
	memcpy(o + n, rest, sizeof rest);
}

/* The options into set (room for one per setting); 0, -1 after --help, or
 * CLI_FATAL (printed). */
static int parse_opts(int argc, char **argv, struct setting *set, size_t *nset)
{
	struct option opts[2 * ANT_SET_COUNT + 8];
	int c;

	options(opts);
	while ((c = cli_getopt(argc, argv, "h", opts, antcmd_init_help)) != -1) {
		if (c == 'h')
			return cli_help(antcmd_init_help), -1;
		if (c == OPT_NEW_FEEDS) {
			new_feeds = 1;
			continue;
		}
		if (c < OPT_SETTING || c >= OPT_SETTING + 2 * ANT_SET_COUNT) {
			int taken = antcmd_notify_opt(c, optarg);   /* notify.c's options */
			if (taken <= 0)
				return CLI_FATAL;
			continue;
		}
		const ant_setting *d = &ant_settings[(c - OPT_SETTING) / 2];
		const char *v = (c - OPT_SETTING) % 2 ? d->no_sets : d->sets ? d->sets : optarg;
		if (v == optarg && check_value(d, &v) != 0)
			return CLI_FATAL;
		if (d->flags & ANT_SETF_NOTIFY) {
			if (antcmd_notify_setting(d, v) < 0)
				return CLI_FATAL;
		} else {
			add_setting(set, nset, d->key, v);
		}
	}
	if (optind < argc)
		return cli_usage_error(antcmd_init_help, "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* --base, --page-size or --new-feeds given: the feeds are checked. */
static int feeds_touched(const struct setting *set, size_t nset)
{
	for (size_t i = 0; i < nset; i++)
		if (!strcmp(set[i].key, ant_settings[ANT_SET_BASE].key) ||
		    !strcmp(set[i].key, ant_settings[ANT_SET_PAGE_SIZE].key))
			return 1;
	return new_feeds;
}

/* The defaults, then the options, in one transaction; old[i] gets what
 * set[i]'s key held before (a setting an older antenna never wrote is its
 * default, written now).  A --base or --page-size the published feeds were
 * not made with is refused with the way out, or with --new-feeds makes
 * them anew (ant_publish.h).  0, 1 when the feeds are made anew, or < 0
 * with err. */
static int write_settings(ant_store *s, const struct setting *set, size_t nset, char **old, lb_error *err)
{
	int rc, moved = 0;

	if ((rc = ant_store_begin(s, err)) < 0)
		return rc;
	for (size_t i = 0; i < nset; i++)
		old[i] = ant_store_config_get(s, set[i].key);
	if ((rc = ant_settings_write_defaults(s, err)) < 0)
		goto fail;
	for (size_t i = 0; i < nset; i++)
		if ((rc = ant_store_config_set(s, set[i].key, set[i].value, err)) < 0)
			goto fail;
	if (feeds_touched(set, nset) && (moved = ant_publish_feeds_moved(s, new_feeds, err)) < 0) {
		rc = moved;
		goto fail;
	}
	if ((rc = ant_store_commit(s, err)) == 0)
		return moved;
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
	char *base = ant_setting_text(s, ANT_SET_BASE);

	if (base && !strcmp(base, ant_settings[ANT_SET_BASE].text))
		cli_error("note: the feeds link http://localhost/ until 'antenna init --base URL' "
			  "names where the published directory is served");
	free(base);
}

int cmd_init(int argc, char **argv)
{
	struct setting set[ANT_SET_COUNT];
	char *old[sizeof set / sizeof *set] = { NULL };
	size_t nset = 0;
	int existed, rc, anew;
	ant_store *s;
	lb_error err = LB_ERROR_INIT;

	if ((rc = parse_opts(argc, argv, set, &nset)) != 0)
		return rc < 0 ? CLI_OK : CLI_FATAL;
	if (!(s = antcmd_open(ANT_STORE_OPEN_CREATE)))
		return CLI_FATAL;
	existed = !ant_store_created(s);   /* a file or a PostgreSQL database */
	if ((rc = anew = write_settings(s, set, nset, old, &err)) < 0 ||
	    (rc = antcmd_notify_apply(s, antcmd_now(0), &err)) < 0)   /* notify.c */
		cli_error("%s", lb_error_msg(&err));
	else if (!existed)
		printf("initialised '%s'\n", antcmd_db_path);
	else
		report_changes(set, nset, old, (size_t)rc);
	if (rc >= 0 && !existed)
		base_note(s);
	if (rc >= 0 && anew == 1)
		printf("the feeds: written anew at the next publish, the same entries under the new "
		       "links; keep the old URL redirecting to the new one for their readers\n");
	for (size_t i = 0; i < nset; i++)
		free(old[i]);
	ant_store_close(s);
	return rc < 0 ? CLI_FATAL : CLI_OK;
}
