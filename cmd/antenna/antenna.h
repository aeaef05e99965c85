/*
 * antenna.h: the antenna subcommands (one file each) and the helpers only
 * they share (antcmd_: the database path, opening the store, URL keys and
 * checks, history retention).  Messages, option and number parsing are
 * the kit both commands share, cmd/cli.h.
 *
 * Exit statuses: 0 success (update: even when some pages failed), 1 the
 * thing asked for is not there (show/remove of an unknown URL), 2 usage
 * or database errors.
 */
#ifndef ANTCMD_H
#define ANTCMD_H

#include <stdint.h>

#include "ant_store.h"
#include "cli.h"

/* Exit status 1: show/remove of a URL that is not watched. */
enum { ANTCMD_NOTFOUND = 1 };

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
#define ANTCMD_KEEP_EVENTS 10000
#define ANTCMD_KEEP_DEFAULT INT64_MIN    /* no --keep-events given */
/* "all" -> EVSTORE_KEEP_ALL, else an integer >= 0.  0, or -1 (printed). */
int antcmd_parse_keep(const char *opt, const char *s, int64_t *out);
/* The database's keep_events (ANTCMD_KEEP_EVENTS when unset). */
int64_t antcmd_keep_events(ant_store *s);

extern const char *antcmd_db_path;  /* -d FILE, $ANTENNA_DB, ./antenna.db */

/* Opens the database (messages printed); NULL on failure. */
ant_store *antcmd_open(int mode);
/* malloc'd lirs_merge_url_key() of url; NULL when out of memory. */
char *antcmd_url_key(const char *url);
/* The database and url's key, for a command on one watched URL; NULL after
 * printing why.  The caller frees *key and ant_store_close()s the store. */
ant_store *antcmd_open_url(const char *url, char **key);
/* For a command that takes no operand after its options: the existing
 * database, or NULL (printed: an extra argument or no database) and the
 * command returns CLI_FATAL. */
ant_store *antcmd_open_no_operand(int argc, char **argv, const char *help);
/* An absolute http(s) URL, or file:// when allow_file.  0 ok, -1 (printed). */
int antcmd_check_url(const char *url, int allow_file);
/* The clock, or --now. */
int64_t antcmd_now(int64_t now_opt);

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
