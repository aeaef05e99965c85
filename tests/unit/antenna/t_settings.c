/*
 * t_settings.c: the settings table (ant_settings.h): every row whole and
 * in its place, the defaults the library relied on before the table,
 * values refused by type and bounds (with init's words), and a round trip
 * through a real SQLite file (getters, defaults written on creation,
 * reopened).
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ant_settings.h"
#include "ant_notify.h"
#include "atom_evstore.h"

static char dir[] = "/tmp/t_settings.XXXXXX";

static void rows(void)
{
	int whole = 1, unique = 1;

	for (size_t i = 0; i < ANT_SET_COUNT; i++) {
		const ant_setting *d = &ant_settings[i];
		if (d->id != (ant_setting_id)i || !d->key || !d->help ||
		    (!d->option && !(d->flags & ANT_SETF_STATE)))
			whole = 0;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ant_settings[j].key, d->key) ||
			    (d->option && ant_settings[j].option && !strcmp(ant_settings[j].option, d->option)))
				unique = 0;
	}
	IS_INT(ANT_SET_COUNT, 37, "37 settings");
	OK(whole, "every row is in its place, with a key, a help line and an option (or is state)");
	OK(unique, "no two rows share a key or an option");
	OK(ant_setting_by_key("display_tz") == &ant_settings[ANT_SET_TZ], "by_key finds display_tz");
	OK(ant_setting_by_key("no_such") == NULL, "by_key: an unknown key is none");
}

static void defaults(void)
{
	char b[32];

	IS_INT(ANT_TZ_JST, 32400, "ANT_TZ_JST is JST");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_TZ], b, sizeof b), "32400", "display_tz: JST");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_TITLE], b, sizeof b), "antenna", "title");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_BASE], b, sizeof b), "http://localhost/", "base");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_MAX_AGE], b, sizeof b), "28800", "max_age");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_PAGE_SIZE], b, sizeof b), "50", "atom_page_size");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_KEEP_EVENTS], b, sizeof b), "10000", "keep_events");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_HTML_LIMIT], b, sizeof b), "1000", "html_limit");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_VISITED], b, sizeof b), "1", "visited_query");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_NOTIFY_MAX_AGE], b, sizeof b), "604800",
	       "notify_max_age");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_SMTP], b, sizeof b), "smtp://localhost", "smtp_url");
	OK(ant_setting_default(&ant_settings[ANT_SET_HUBS], b, sizeof b) == NULL, "websub_hubs: none");
	IS_STR(ant_setting_default(&ant_settings[ANT_SET_MAX_RETRY_AFTER], b, sizeof b), "86400",
	       "max_retry_after");
}

static void check(ant_setting_id id, const char *v, int ok, const char *msg)
{
	lb_error err = LB_ERROR_INIT;
	int rc = ant_setting_check(&ant_settings[id], v, &err);

	if (ok)
		IS_INT(rc, 0, "%s: '%s' taken", ant_settings[id].key, v);
	else
		IS_STR(rc < 0 ? lb_error_msg(&err) : "(taken)", msg, "%s: '%s' refused", ant_settings[id].key, v);
}

static void bounds(void)
{
	check(ANT_SET_PAGE_SIZE, "50", 1, NULL);
	check(ANT_SET_PAGE_SIZE, "0", 0, "--page-size: '0' is out of range [1, 100000]");
	check(ANT_SET_PAGE_SIZE, "100001", 0, "--page-size: '100001' is out of range [1, 100000]");
	check(ANT_SET_PAGE_SIZE, "5x", 0, "--page-size: '5x' is not an integer");
	check(ANT_SET_TZ, "-43200", 1, NULL);
	check(ANT_SET_TZ, "50401", 0, "--tz-offset: '50401' is out of range [-43200, 50400]");
	check(ANT_SET_LANG, "de", 0, "--lang: 'de' is not ja or en");
	check(ANT_SET_LIRS_CHARSET, "euc-jp-ms", 1, NULL);
	check(ANT_SET_LIRS_CHARSET, "sjis", 0, "--charset: 'sjis' is not euc-jp or euc-jp-ms");
	check(ANT_SET_KEEP_EVENTS, "all", 1, NULL);
	check(ANT_SET_KEEP_EVENTS, "-1", 0, "--keep-events: '-1' is neither 'all' nor an integer >= 0");
	check(ANT_SET_BASE, "ftp://x/", 0, "--base: 'ftp://x/' is not an absolute http or https URL");
	check(ANT_SET_SMTP, "http://x/", 0, "--smtp: 'http://x/' is not an smtp:// or smtps:// URL");
	check(ANT_SET_SMTP_TLS, "never", 0, "--smtp-tls: 'never' is not try or require");
	check(ANT_SET_SMTP_FROM, "a@b.example", 1, NULL);
	check(ANT_SET_ALLOW_FILE, "2", 0, "--allow-file: '2' is not 0 or 1");
	check(ANT_SET_TRUST_HINT, "102", 0, "--trust-hint: '102' is out of range [0, 101]");
}

static void round_trip(const char *path)
{
	lb_error err = LB_ERROR_INIT;
	ant_store *s;
	char *v;

	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, NULL) < 0) {
		OK(0, "open %s", path);
		return;
	}
	IS_INT(ant_setting_int(s, ANT_SET_TZ), 32400, "unset: display_tz is the table's default");
	IS_INT(ant_setting_is_set(s, ANT_SET_TZ), 0, "... and is not set");
	v = ant_setting_text(s, ANT_SET_TITLE);
	IS_STR(v, "antenna", "unset: title is the table's default");
	free(v);
	OK(ant_setting_text(s, ANT_SET_HUBS) == NULL, "unset: websub_hubs is none");
	IS_INT(ant_settings_write_defaults(s, &err), 0, "the creation defaults written");
	IS_INT(ant_setting_is_set(s, ANT_SET_TZ), 1, "display_tz is written on creation");
	IS_INT(ant_setting_is_set(s, ANT_SET_HTML_LIMIT), 0, "html_limit is not (as before the table)");
	IS_INT(ant_setting_set(s, ANT_SET_PAGE_SIZE, "0", &err), LB_EINVAL, "set refuses a value out of bounds");
	IS_INT(ant_setting_set(s, ANT_SET_PAGE_SIZE, "7", &err), 0, "set takes 7");
	IS_INT(ant_setting_set(s, ANT_SET_KEEP_EVENTS, "all", &err), 0, "set takes keep_events all");
	IS_INT(ant_setting_set_int(s, ANT_SET_TZ, 0, &err), 0, "set_int takes display_tz 0");
	IS_INT(ant_setting_set(s, ANT_SET_TITLE, "Mine", &err), 0, "set takes a title");
	ant_store_close(s);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_EXISTING, NULL) < 0) {
		OK(0, "reopen %s", path);
		return;
	}
	IS_INT(ant_setting_int(s, ANT_SET_PAGE_SIZE), 7, "reopened: atom_page_size 7");
	IS_INT(ant_setting_int(s, ANT_SET_KEEP_EVENTS), ATOM_EVSTORE_KEEP_ALL, "reopened: keep_events all");
	IS_INT(ant_setting_int(s, ANT_SET_TZ), 0, "reopened: display_tz 0");
	v = ant_store_config_get(s, "atom_page_size");
	IS_STR(v, "7", "stored under its old key, atom_page_size");
	free(v);
	v = ant_setting_text(s, ANT_SET_TITLE);
	IS_STR(v, "Mine", "reopened: the title");
	free(v);
	ant_store_config_set(s, "notify_max", "lots", &err);
	IS_INT(ant_setting_int(s, ANT_SET_NOTIFY_MAX), ANT_NOTIFY_MAX_LISTED, "a stored non-number reads as the default");
	ant_store_close(s);
}

int main(void)
{
	char path[256];

	TAP_PLAN(5 + 13 + 17 + 18);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/a.db", dir);
	t_db_map(path, sizeof path);
	rows();
	defaults();
	bounds();
	round_trip(path);
	unlink(path);
	rmdir(dir);
	TAP_DONE();
}
