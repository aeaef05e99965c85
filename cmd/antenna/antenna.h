/*
 * antenna.h: the antenna subcommands (one file each) and what they share:
 * the database path, messages, option parsing, URL checks.
 *
 * Exit statuses: 0 success (update: even when some pages failed), 1 the
 * thing asked for is not there (show/remove of an unknown URL), 2 usage
 * or database errors.
 */
#ifndef ANTENNA_H
#define ANTENNA_H

#include <getopt.h>
#include <stdint.h>

#include "ant_store.h"

enum { ANT_OK = 0, ANT_NOTFOUND = 1, ANT_FATAL = 2 };
#define ANT_BADOPT (-2)

/* Config keys (antenna init; antenna(1) "CONFIGURATION"). */
#define CFG_TITLE "title"
#define CFG_BASE "base"
#define CFG_AUTHOR "author"
#define CFG_TZ "display_tz"
#define CFG_ALLOW_FILE "allow_file"
#define CFG_VISITED "visited_query"
#define CFG_MAX_AGE "max_age"
#define CFG_MAX_FUTURE "max_future"
#define CFG_LAST_PUBLISH "last_publish"
#define CFG_PAGE_SIZE "atom_page_size"
#define CFG_LIRS_CHARSET "lirs_charset"   /* euc-jp (strict) or euc-jp-ms */
#define CFG_KEEP_EVENTS "keep_events"

/* History retention: update events of archives already written that are
 * kept (evstore.h), about 220 bytes each; "all" in the config keeps every
 * one.  10,000 events are 200 archives of 50, about 2.2 MB. */
#define ANT_KEEP_EVENTS 10000
#define ANT_KEEP_DEFAULT INT64_MIN    /* no --keep-events given */
/* "all" -> EVSTORE_KEEP_ALL, else an integer >= 0.  0, or -1 (printed). */
int ant_parse_keep(const char *opt, const char *s, int64_t *out);
/* The database's keep_events (ANT_KEEP_EVENTS when unset). */
int64_t ant_keep_events(ant_store *s);

extern const char *ant_prog;     /* "antenna update": message prefix */
extern const char *ant_db_path;  /* -d FILE, $ANTENNA_DB, ./antenna.db */

void ant_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getopt_long with our messages (see cmd/lirs/common.h's cli_getopt). */
int ant_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *help);
int ant_usage_error(const char *help, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ant_help(const char *help);
int ant_parse_int64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out);

/* Opens the database (messages printed); NULL on failure. */
ant_store *ant_open(int mode);
/* malloc'd lirs_merge_url_key() of url; NULL when out of memory. */
char *ant_url_key(const char *url);
/* The database and url's key, for a command on one watched URL; NULL after
 * printing why.  The caller frees *key and ant_store_close()s the store. */
ant_store *ant_open_url(const char *url, char **key);
/* For a command that takes no operand after its options: the existing
 * database, or NULL (printed: an extra argument or no database) and the
 * command returns ANT_FATAL. */
ant_store *ant_open_no_operand(int argc, char **argv, const char *help);
/* An absolute http(s) URL, or file:// when allow_file.  0 ok, -1 (printed). */
int ant_check_url(const char *url, int allow_file);
/* "8M", "64K", "1G" or a plain byte count > 0 into *out: 0, or -1. */
int ant_parse_bytes(const char *s, size_t *out);
/* The clock, or --now. */
int64_t ant_now(int64_t now_opt);

int cmd_add(int argc, char **argv);
int cmd_check_db(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_update(int argc, char **argv);

#endif
