/*
 * settings.c: the settings table (ant_settings.h): one row per setting,
 * and the check of a value against its row's type and bounds.  No I/O:
 * the store reads and writes them (store/store_settings.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ant_settings.h"
#include "ant_target.h"
#include "ant_trust.h"
#include "atom.h"
#include "atom_evstore.h"
#include "lb_num.h"
#include "lb_url.h"
#include "lirs_merge.h"

#define BIG (INT64_MAX / 2)
#define C ANT_SETF_CREATE
#define N ANT_SETF_NOTIFY

/* Text settings: ROW_T; numbers: ROW_N; the rest of the fields named. */
#define ROW_T(id, key, type, dflt, opt, flags, help) \
	[id] = { id, key, type, dflt, 0, 0, 0, NULL, opt, NULL, NULL, NULL, flags, help }
#define ROW_N(id, key, type, dflt, min, max, opt, flags, help) \
	[id] = { id, key, type, NULL, dflt, min, max, NULL, opt, NULL, NULL, NULL, flags, help }

const ant_setting ant_settings[ANT_SET_COUNT] = {
	ROW_T(ANT_SET_TITLE, "title", ANT_SETT_TEXT, "antenna", "title", C,
	      "the antenna's name"),
	ROW_T(ANT_SET_BASE, "base", ANT_SETT_URL, "http://localhost/", "base", C,
	      "the URL of the published directory (the feeds' absolute links)"),
	ROW_T(ANT_SET_AUTHOR, "author", ANT_SETT_TEXT, "", "author", C,
	      "the antenna's author, also the feeds' author"),
	[ANT_SET_LANG] = { ANT_SET_LANG, "lang", ANT_SETT_CHOICE, ANT_PUB_LANG_DEFAULT, 0, 0, 0,
			   "ja|en", "lang", NULL, NULL, NULL, C,
			   "the language of index.html and the Atom summaries" },
	ROW_N(ANT_SET_TZ, "display_tz", ANT_SETT_SECONDS, ANT_TZ_JST, -43200, 50400, "tz-offset", C,
	      "time zone of the listing, seconds east of UTC (JST)"),
	ROW_N(ANT_SET_MAX_AGE, "max_age", ANT_SETT_SECONDS, LIRS_DEFAULT_MAX_AGE, 1, BIG, "max-age", C,
	      "freshness of LIRS records read and written"),
	ROW_N(ANT_SET_MAX_FUTURE, "max_future", ANT_SETT_SECONDS, LIRS_DEFAULT_MAX_FUTURE, 1, BIG,
	      "max-future", C, "clock skew tolerated in LIRS sources' records"),
	ROW_N(ANT_SET_PAGE_SIZE, "atom_page_size", ANT_SETT_INT, ATOM_DEFAULT_PAGE_SIZE, 1, 100000,
	      "page-size", C, "entries per Atom archive page"),
	[ANT_SET_LIRS_CHARSET] = { ANT_SET_LIRS_CHARSET, "lirs_charset", ANT_SETT_CHOICE, "euc-jp", 0, 0, 0,
				   "euc-jp|euc-jp-ms", "charset", NULL, NULL, NULL, C,
				   "the published LIRS files' encoding (euc-jp strict, or euc-jp-ms)" },
	ROW_N(ANT_SET_KEEP_EVENTS, "keep_events", ANT_SETT_KEEP, ANT_KEEP_EVENTS, 0, BIG, "keep-events", C,
	      "update events kept for the feeds (all: every one)"),
	ROW_N(ANT_SET_HTML_LIMIT, "html_limit", ANT_SETT_INT, ANT_PUB_PAGE_LIMIT, 1, 1000000, "html-limit", 0,
	      "entries per HTML file"),
	ROW_N(ANT_SET_NEW_HOURS, "new_hours", ANT_SETT_INT, ANT_PUB_NEW_HOURS, 0, 8760, "new-hours", C,
	      "hours an update is marked new in index.html"),
	[ANT_SET_ALLOW_FILE] = { ANT_SET_ALLOW_FILE, "allow_file", ANT_SETT_BOOL, NULL, 0, 0, 1, NULL,
				 "allow-file", "1", NULL, NULL, C, "allow file:///... pages and sources" },
	[ANT_SET_ALLOW_PRIVATE] = { ANT_SET_ALLOW_PRIVATE, "allow_private", ANT_SETT_BOOL, NULL, 0, 0, 1, NULL,
				    "allow-private", "1", "no-allow-private", "0", C,
				    "let redirects, feeds and links reach internal addresses" },
	[ANT_SET_VISITED] = { ANT_SET_VISITED, "visited_query", ANT_SETT_BOOL, NULL, 1, 0, 1, NULL,
			      "no-visited-query", "0", NULL, NULL, C,
			      "append ?MMDDHHMM to the links of index.html" },
	[ANT_SET_HUBS] = { ANT_SET_HUBS, "websub_hubs", ANT_SETT_HUBS, NULL, 0, 0, 0, NULL,
			   "hub", NULL, "no-hub", "", 0, "the WebSub hubs the live feeds name, one a line" },
	ROW_N(ANT_SET_MOVE_AFTER, "move_after", ANT_SETT_INT, ANT_MOVE_AFTER, 1, 1000, "move-after", 0,
	      "checks a permanent redirect must hold before the page moves"),
	ROW_N(ANT_SET_GONE_DAYS, "gone_days", ANT_SETT_INT, ANT_GONE_DAYS, 1, 3650, "gone-days", 0,
	      "days a page must be gone (404, 410) before it is said gone"),
	ROW_T(ANT_SET_SMTP, "smtp_url", ANT_SETT_SMTP_URL, ANT_NOTIFY_SMTP_DEFAULT, "smtp", N,
	      "the SMTP server of mail notifications"),
	ROW_T(ANT_SET_SMTP_FROM, "smtp_from", ANT_SETT_MAIL, ANT_NOTIFY_FROM_DEFAULT, "smtp-from", N,
	      "the From: address of mail notifications"),
	ROW_T(ANT_SET_SMTP_PASSWORD_FILE, "smtp_password_file", ANT_SETT_TEXT, NULL, "smtp-password-file", N,
	      "a file holding the SMTP password"),
	[ANT_SET_SMTP_TLS] = { ANT_SET_SMTP_TLS, "smtp_tls", ANT_SETT_CHOICE, "try", 0, 0, 0, "try|require",
			       "smtp-tls", NULL, NULL, NULL, N,
			       "STARTTLS when offered (try) or always (require)" },
	ROW_N(ANT_SET_NOTIFY_TIMEOUT, "notify_timeout", ANT_SETT_SECONDS, ANT_NOTIFY_TIMEOUT, 1, 600,
	      "notify-timeout", N, "seconds one delivery may take"),
	ROW_N(ANT_SET_NOTIFY_MAX, "notify_max", ANT_SETT_INT, ANT_NOTIFY_MAX_LISTED, 1, 1000,
	      "notify-max", N, "updates listed in one notification"),
	ROW_N(ANT_SET_NOTIFY_MAX_AGE, "notify_max_age", ANT_SETT_SECONDS, ANT_NOTIFY_MAX_AGE, 1, 366 * 86400,
	      "notify-max-age", N, "seconds pending news are kept"),
	ROW_N(ANT_SET_HTML_PAGES, "html_pages", ANT_SETT_INT, ANT_PUB_HTML_PAGES, 1, 1000000, "html-pages", 0,
	      "HTML files at most"),
	ROW_N(ANT_SET_CURRENT_ENTRIES, "current_entries", ANT_SETT_INT, ATOM_CURRENT_MAX_ENTRIES, 1, BIG,
	      "current-entries", 0, "entries of current.atom at most"),
	ROW_N(ANT_SET_CURRENT_BYTES, "current_bytes", ANT_SETT_INT, ATOM_CURRENT_MAX_BYTES, 4096, BIG,
	      "current-bytes", 0, "bytes of current.atom at most"),
	ROW_N(ANT_SET_TRUST_HINT, "trust_hint_min", ANT_SETT_INT, ANT_TRUST_HINT_MIN, 0, 101, "trust-hint", 0,
	      "per cent: a source scored below it triggers no early check"),
	ROW_N(ANT_SET_TRUST_RELAY, "trust_relay_min", ANT_SETT_INT, ANT_TRUST_RELAY_MIN, 0, 101, "trust-relay", 0,
	      "per cent: a relay source scored below it is held back"),
	ROW_N(ANT_SET_TRUST_CLAIMS, "trust_min_claims", ANT_SETT_INT, ANT_TRUST_MIN_CLAIMS, 1, 100,
	      "trust-claims", 0, "judged claims before a source's score counts"),
	ROW_N(ANT_SET_DIFF_TEXT_MAX, "diff_text_max", ANT_SETT_INT, ANT_DIFF_TEXT_MAX, 0, 16 << 20,
	      "diff-text-max", 0, "bytes of each text kept for the diff pages (0: none)"),
	ROW_T(ANT_SET_CONTACT, "contact", ANT_SETT_CONTACT, "", "contact", C,
	      "a URL or address in the User-Agent"),
	ROW_N(ANT_SET_MIN_DELAY, "min_delay_ms", ANT_SETT_INT, ANT_FETCH_DEFAULT_MIN_DELAY_MS, 0, 3600000,
	      "min-delay", C, "milliseconds between requests to one server"),
	ROW_N(ANT_SET_MAX_RETRY_AFTER, "max_retry_after", ANT_SETT_SECONDS, ANT_FETCH_DEFAULT_MAX_RETRY_AFTER,
	      1, 30 * 86400, "max-retry-after", C, "the longest Retry-After honoured"),
	ROW_N(ANT_SET_LAST_PUBLISH, "last_publish", ANT_SETT_INT, 0, 0, BIG, NULL, ANT_SETF_STATE,
	      "when publish last ran"),
	ROW_N(ANT_SET_LAST_PUBLISH_SEQ, "last_publish_seq", ANT_SETT_INT, -1, -1, BIG, NULL, ANT_SETF_STATE,
	      "the newest event's seq at the last publish"),
};

const ant_setting *ant_setting_by_key(const char *key)
{
	for (size_t i = 0; key && i < ANT_SET_COUNT; i++)
		if (!strcmp(ant_settings[i].key, key))
			return &ant_settings[i];
	return NULL;
}

static int is_text(ant_setting_type t)
{
	return t != ANT_SETT_INT && t != ANT_SETT_SECONDS && t != ANT_SETT_BOOL && t != ANT_SETT_KEEP;
}

const char *ant_setting_default(const ant_setting *d, char *b, size_t n)
{
	if (is_text(d->type))
		return d->text;
	snprintf(b, n, "%lld", (long long)d->num);
	return b;
}

/* The words of cli_parse_int64() (cmd/cli.c), for the same messages. */
static int check_int(const char *opt, const char *s, int64_t min, int64_t max, lb_error *err)
{
	int64_t n;
	int rc = lb_num_int64(s, min, max, &n);

	if (rc == LB_EINVAL)
		return lb_err(err, LB_EINVAL, "%s: '%s' is not an integer", opt, s);
	if (rc < 0)
		return lb_err(err, LB_EINVAL, "%s: '%s' is out of range [%lld, %lld]", opt, s,
			      (long long)min, (long long)max);
	return 0;
}

/* "a|b|c" as "a, b or c"; 1 when v is one of them. */
static int choice(const char *choices, const char *v, char *words, size_t n)
{
	size_t len = strlen(v), k = 0;
	int found = 0;

	words[0] = '\0';
	for (const char *p = choices; *p; ) {
		size_t w = strcspn(p, "|");
		const char *next = p + w + (p[w] == '|');
		found |= w == len && !strncmp(p, v, w);
		k += (size_t)snprintf(words + k, k < n ? n - k : 0, "%s%.*s",
				      p == choices ? "" : *next ? ", " : " or ", (int)w, p);
		p = next;
	}
	return found;
}

int ant_setting_check(const ant_setting *d, const char *v, lb_error *err)
{
	char opt[64], words[128], m[ANT_TARGET_MAX + 8];

	snprintf(opt, sizeof opt, d->option ? "--%s" : "%s", d->option ? d->option : d->key);
	if (!v)
		return lb_err(err, LB_EINVAL, "%s: no value", opt);
	switch (d->type) {
	case ANT_SETT_TEXT:
		return 0;
	case ANT_SETT_URL: case ANT_SETT_HUBS:
		if (!lb_url_is_http(v) || (d->type == ANT_SETT_HUBS && strpbrk(v, "\n\r\t ")))
			return lb_err(err, LB_EINVAL, "%s: '%s' is not an absolute http or https URL", opt, v);
		return 0;
	case ANT_SETT_INT: case ANT_SETT_SECONDS:
		return check_int(opt, v, d->min, d->max, err);
	case ANT_SETT_BOOL:
		if (strcmp(v, "0") && strcmp(v, "1"))
			return lb_err(err, LB_EINVAL, "%s: '%s' is not 0 or 1", opt, v);
		return 0;
	case ANT_SETT_CHOICE:
		if (!choice(d->choices, v, words, sizeof words))
			return lb_err(err, LB_EINVAL, "%s: '%s' is not %s", opt, v, words);
		return 0;
	case ANT_SETT_KEEP:
		if (!strcmp(v, "all"))
			return 0;
		if (*v < '0' || *v > '9')   /* "-1" is not "all" */
			return lb_err(err, LB_EINVAL, "%s: '%s' is neither 'all' nor an integer >= 0", opt, v);
		return check_int(opt, v, d->min, d->max, err);
	case ANT_SETT_CONTACT:
		return ant_target_contact_check(v, err) < 0 ? LB_EINVAL : 0;
	case ANT_SETT_SMTP_URL:
		if (!ant_target_smtp_url_ok(v))
			return lb_err(err, LB_EINVAL, "%s: '%s' is not an smtp:// or smtps:// URL", opt, v);
		return 0;
	case ANT_SETT_MAIL:
		snprintf(m, sizeof m, "mailto:%s", v);
		if (strlen(v) > 254 || ant_target_kind(m, NULL) != ANT_TARGET_MAIL)
			return lb_err(err, LB_EINVAL, "%s: '%s' is not one plain address", opt, v);
		return 0;
	}
	return lb_err(err, LB_EINVAL, "%s: unknown type", opt);
}

