/*
 * ant_settings.h: the antenna's settings, one table (store/settings.c):
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

#include "ant_store.h"
#include "lb_error.h"
#include "lirs.h"

/* Japan's time zone, seconds east of UTC: the classic antennas' zone and
 * the default display_tz. */
#define ANT_TZ_JST LIRS_TZ_JST

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
	ANT_SETT_CONTACT,   /* ant_polite_contact_check() */
	ANT_SETT_SMTP_URL,  /* smtp:// or smtps:// (ant_notify_smtp_url_ok()) */
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

/* The setting as stored, else its default: a number (a value that is not
 * one reads as the default; KEEP's "all" reads as -1), or a malloc'd text
 * (NULL: a text setting without a default left unset, or out of memory). */
int64_t ant_setting_int(ant_store *s, ant_setting_id id);
char *ant_setting_text(ant_store *s, ant_setting_id id);
/* 1 when the setting holds a value of its own (even one equal to its default). */
int ant_setting_is_set(ant_store *s, ant_setting_id id);
/* Stored after ant_setting_check(): 0, or < 0 with err. */
int ant_setting_set(ant_store *s, ant_setting_id id, const char *v, lb_error *err);
int ant_setting_set_int(ant_store *s, ant_setting_id id, int64_t v, lb_error *err);
/* Each ANT_SETF_CREATE setting not yet stored written as its default. */
int ant_settings_write_defaults(ant_store *s, lb_error *err);

#endif
