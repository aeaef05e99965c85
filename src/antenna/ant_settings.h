/*
 * ant_settings.h: the antenna's settings, one table (rules/settings.c):
 * a row per setting with the key it is stored under (the config table,
 * ant_store.h), its default, its type and bounds, the `antenna init`
 * option that sets it and a line of help.  Everything reads it: init
 * parses and checks its options against it, `antenna show` lists every
 * row, the library's loaders read a setting through ant_setting_int() or
 * ant_setting_text(), whose only default is the row's.  Adding a setting
 * is adding a row (and its ANT_SET_ name, and its line in antenna(1)).
 */
#ifndef ANT_SETTINGS_H
#define ANT_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"
#include "lirs.h"

/* Japan's time zone, seconds east of UTC: the classic antennas' zone and
 * the default display_tz. */
#define ANT_TZ_JST LIRS_TZ_JST

/* ---- the defaults: each one here, once, for the table's rows and the
 * groups whose behaviour they set (a header of any group includes this
 * one; this one includes none of theirs) ---- */

/* Compressed bytes of each kept text and diff, by default. */
#define ANT_DIFF_TEXT_MAX 32768

/* Milliseconds between the starts of two requests to one server
 * (init --min-delay); 0: none, only per_host bounds a server's share. */
#define ANT_FETCH_DEFAULT_MIN_DELAY_MS 0

/* The longest a 429 or 503 Retry-After keeps us from a server, in
 * seconds (init --max-retry-after): a server cannot ask for more. */
#define ANT_FETCH_DEFAULT_MAX_RETRY_AFTER 86400

/* Checks in a row answered through permanent redirects to one URL before
 * the page moves there (init --move-after, config move_after). */
#define ANT_MOVE_AFTER 3

/* Days of 404, 410 or no such host in a row before a page is gone
 * (init --gone-days, config gone_days); a gone page is checked once in
 * ANT_GONE_INTERVAL seconds (ant_pagestate.h). */
#define ANT_GONE_DAYS 7

/* History retention: update events of archives already written that are
 * kept (atom_evstore.h), about 220 bytes each; "all" in the config keeps
 * every one.  10,000 events are 200 archives of 50, about 2.2 MB. */
#define ANT_KEEP_EVENTS 10000

/* The "new" window's default, in hours (antenna init --new-hours). */
#define ANT_PUB_NEW_HOURS 3

/* Pages an index file lists at most (init --html-limit; ant_publish.h
 * says how the files are cut). */
#define ANT_PUB_PAGE_LIMIT 1000

/* Index files at most (init --html-pages; ant_publish.h). */
#define ANT_PUB_HTML_PAGES 10

/* index.html's language by default (init --lang). */
#define ANT_PUB_LANG_DEFAULT "ja"

/* Notifications (antenna(1) NOTIFICATIONS). */
#define ANT_NOTIFY_TIMEOUT 20            /* s per delivery: --notify-timeout */
#define ANT_NOTIFY_MAX_LISTED 50         /* updates in one digest: --notify-max */
#define ANT_NOTIFY_MAX_AGE (7 * 86400)   /* s pending news are kept: --notify-max-age */
#define ANT_NOTIFY_SMTP_DEFAULT "smtp://localhost"
#define ANT_NOTIFY_FROM_DEFAULT "antenna@localhost"

/* The settings, in the table's order (the order `antenna show` lists). */
typedef enum ant_setting_id {
	ANT_SET_TITLE, ANT_SET_BASE, ANT_SET_AUTHOR, ANT_SET_LANG, ANT_SET_TZ,
	ANT_SET_MAX_AGE, ANT_SET_MAX_FUTURE, ANT_SET_PAGE_SIZE, ANT_SET_LIRS_CHARSET,
	ANT_SET_KEEP_EVENTS, ANT_SET_HTML_LIMIT, ANT_SET_NEW_HOURS, ANT_SET_ALLOW_FILE,
	ANT_SET_ALLOW_PRIVATE, ANT_SET_VISITED, ANT_SET_HUBS, ANT_SET_MOVE_AFTER,
	ANT_SET_GONE_DAYS, ANT_SET_SMTP, ANT_SET_SMTP_FROM, ANT_SET_SMTP_PASSWORD_FILE,
	ANT_SET_SMTP_TLS, ANT_SET_NOTIFY_TIMEOUT, ANT_SET_NOTIFY_MAX, ANT_SET_NOTIFY_MAX_AGE,
	ANT_SET_HTML_PAGES, ANT_SET_CURRENT_ENTRIES, ANT_SET_CURRENT_BYTES,
	ANT_SET_TRUST_HINT, ANT_SET_TRUST_RELAY, ANT_SET_TRUST_CLAIMS, ANT_SET_DIFF_TEXT_MAX,
	ANT_SET_CONTACT, ANT_SET_MIN_DELAY, ANT_SET_MAX_RETRY_AFTER,
	ANT_SET_LAST_PUBLISH, ANT_SET_LAST_PUBLISH_SEQ,
	ANT_SET_COUNT
} ant_setting_id;

/* What a value may be (ant_setting_check()). */
typedef enum ant_setting_type {
	ANT_SETT_TEXT,      /* any text */
	ANT_SETT_URL,       /* an absolute http or https URL */
	ANT_SETT_HUBS,      /* http(s) URLs, one a line; each option adds none but its own */
	ANT_SETT_INT,       /* an integer in [min, max] */
	ANT_SETT_SECONDS,   /* the same, in seconds */
	ANT_SETT_BOOL,      /* 0 or 1 */
	ANT_SETT_CHOICE,    /* one of the words of choices ("a|b") */
	ANT_SETT_KEEP,      /* "all" or an integer >= 0 */
	ANT_SETT_CONTACT,   /* ant_target_contact_check() */
	ANT_SETT_SMTP_URL,  /* smtp:// or smtps:// (ant_target_smtp_url_ok()) */
	ANT_SETT_MAIL       /* one plain mail address */
} ant_setting_type;

/* flags */
#define ANT_SETF_CREATE 1u   /* written (as its default) when init creates the database */
#define ANT_SETF_STATE  2u   /* the library's own record, no option (`show` leaves it out) */
#define ANT_SETF_NOTIFY 4u   /* applied with init's --notify targets, in the order given */

typedef struct ant_setting {
	ant_setting_id id;
	const char *key;        /* as stored in the config table */
	ant_setting_type type;
	const char *text;       /* the default of a text type; NULL: none ("(none)" shown) */
	int64_t num;            /* the default of a number (INT, SECONDS, BOOL, KEEP) */
	int64_t min, max;       /* INT, SECONDS */
	const char *choices;    /* CHOICE: "a|b" */
	const char *option;     /* init's option, without "--"; NULL: none */
	const char *sets;       /* non-NULL: option takes no value and sets this */
	const char *no_option;  /* a second option, taking no value, that sets no_sets */
	const char *no_sets;
	unsigned flags;         /* ANT_SETF_* */
	const char *help;       /* one line */
} ant_setting;

/* The table: ANT_SET_COUNT rows, row i being setting i. */
extern const ant_setting ant_settings[ANT_SET_COUNT];
/* The row of a stored key, or NULL. */
const ant_setting *ant_setting_by_key(const char *key);
/* The default as text into b (a number's digits; NULL for none). */
const char *ant_setting_default(const ant_setting *d, char *b, size_t n);
/* v is a value d may hold: 0, or LB_EINVAL with a message that names
 * init's option ("--page-size: '0' is out of range [1, 100000]"). */
int ant_setting_check(const ant_setting *d, const char *v, lb_error *err);

/* Reading and writing a setting take the store: ant_store.h
 * (ant_setting_int(), ant_setting_text(), ...). */

#endif
