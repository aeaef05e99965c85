/*
 * antenna.h: the antenna subcommands (one file each) and the helpers only
 * they share (antcmd_: the database path, opening the store, URL keys and
 * checks, history retention).  Messages, option and number parsing are
 * the kit both commands share, cmd/cli.h.
 *
 * Exit statuses: 0 success (update: even when some pages failed), 1 the
 * thing asked for is not there (show/remove of an unknown URL), 2 usage
 * or database errors.  run has its own, for cron (run.c, antenna(1)).
 */
#ifndef ANTCMD_H
#define ANTCMD_H

#include <stdint.h>

#include "ant_store.h"
#include "ant_publish.h"   /* ANT_KEEP_DEFAULT */
#include "ant_settings.h"  /* ANT_SET_*; ant_setting_int(), ant_setting_text(): ant_store.h */
#include "cli.h"

/* Exit status 1: show/remove of a URL that is not watched. */
enum { ANTCMD_NOTFOUND = 1 };

/* trust.c: a source's trust score (ant_trust.h) as list --sources' text
 * fields, its JSON fields (",\"trust\":..."), show's lines; and, after an
 * update, each relay source held back told on standard error.  The
 * appenders return 0 or -1 (out of memory). */
int antcmd_trust_text(lb_buf *o, ant_store *s, const ant_store_source *x);
int antcmd_trust_json(lb_buf *o, ant_store *s, const ant_store_source *x);
void antcmd_trust_show(ant_store *s, const ant_store_source *x, int64_t tz);
void antcmd_trust_report(ant_store *s);

/* "all" -> ATOM_EVSTORE_KEEP_ALL, else an integer >= 0.  0, or -1 (printed). */
int antcmd_parse_keep(const char *opt, const char *s, int64_t *out);

/* --help of init, set, list and update (help.c) */
extern const char antcmd_init_help[], antcmd_set_help[], antcmd_list_help[],
	antcmd_update_help[];
extern const char *antcmd_db_path;  /* -d FILE, $ANTENNA_DB, ./antenna.db */

/* Opens the database (messages printed); NULL on failure. */
ant_store *antcmd_open(int mode);
/* The database and url's key, for a command on one watched URL; NULL after
 * printing why.  The caller frees *key and ant_store_close()s the store. */
ant_store *antcmd_open_url(const char *url, char **key);
/* For a command that takes no operand after its options: the existing
 * database, or NULL (printed: an extra argument or no database) and the
 * command returns CLI_FATAL. */
ant_store *antcmd_open_no_operand(int argc, char **argv, const char *help);
/* An absolute http(s) URL, or file:// when allow_file.  0 ok, -1 (printed). */
int antcmd_check_url(const char *url, int allow_file);
/* Appends pat to list (ant_page.h patterns, one per line) after checking it as
 * --ignore and --only patterns are checked; opt names the option in the
 * message.  0, or -1 (printed). */
int antcmd_add_pattern(lb_buf *list, const char *opt, const char *pat);
/* --range 'START...END': the --only pattern "range:START...END" appended
 * to only (the store keeps it as that pattern).  0, or -1 (printed). */
int antcmd_add_range(lb_buf *only, const char *range);
#define ANTCMD_OPT_RANGE 0x152   /* getopt's value for --range (no short form) */
/* The page texts 'add' and 'set' both take, for their getopt_long tables. */
#define ANTCMD_PAGE_TEXT_OPTIONS \
	{ "title", required_argument, NULL, 't' }, \
	{ "author", required_argument, NULL, 'a' }, \
	{ "group", required_argument, NULL, 'g' }, \
	{ "ignore", required_argument, NULL, 'i' }
/* init --base: url (absolute http(s)) as the URL of a directory: refused
 * (printed, NULL) when its path names a file ("index.html") or it has a
 * query or fragment; a '/' appended (said on stderr) when its path does
 * not end in one.  url itself, or a copy held until the next call. */
const char *antcmd_base_dir(const char *url);
/* Exactly one URL after the options (optind).  0, or -1 (usage printed). */
int antcmd_one_url(int argc, const char *help);
/* The operator's title and author (argv, writable) clipped as any text
 * taken in (ant_limits.h); either may be NULL. */
void antcmd_clip_texts(const char *title, const char *author);
/* The clock, or --now. */
int64_t antcmd_now(int64_t now_opt);
/* A page just added: the update its sources said (ant_update_recall()),
 * at now; prints what was applied.  0, or < 0 with err. */
int antcmd_recall(ant_store *s, const char *url_key, int64_t now, lb_error *err);

/* show's time: "2024-05-06 21:00:00 +0900 (1714996800)" in b, or "never"
 * for t <= 0 (show_learned.c). */
const char *antcmd_when(char *b, size_t n, int64_t t, int64_t tz);
/* show's lines on a page's learned state: volatile blocks, furniture,
 * numbers held or learned as counters (show_learned.c). */
void antcmd_show_learned(const ant_store_page *p, int64_t tz);
/* not_news.c: a --when pattern checked and added to list (one a line): 0,
 * or -1 said. */
int antcmd_add_when(lb_buf *list, const char *pat);
/* set's options of what the operator means: --when (replaces the list;
 * --no-when clears it), --render/--no-render, --not-news, --forget-noise. */
struct antcmd_meaning {
	lb_buf when;             /* the patterns given, one per line */
	int when_given;          /* --when seen (even ''), or --no-when */
	int when_cleared;        /* --no-when */
	int render;              /* -1 not given, 1 --render, 0 --no-render */
	int not_news, forget;
	lb_buf said;             /* what --not-news did, for the operator */
};
enum { ANTCMD_OPT_WHEN = 1000, ANTCMD_OPT_NO_WHEN, ANTCMD_OPT_RENDER, ANTCMD_OPT_NO_RENDER,
       ANTCMD_OPT_NOT_NEWS, ANTCMD_OPT_FORGET_NOISE };
#define ANTCMD_MEANING_OPTIONS \
	{ "when", required_argument, NULL, ANTCMD_OPT_WHEN }, \
	{ "no-when", no_argument, NULL, ANTCMD_OPT_NO_WHEN }, \
	{ "render", no_argument, NULL, ANTCMD_OPT_RENDER }, \
	{ "no-render", no_argument, NULL, ANTCMD_OPT_NO_RENDER }, \
	{ "not-news", no_argument, NULL, ANTCMD_OPT_NOT_NEWS }, \
	{ "forget-noise", no_argument, NULL, ANTCMD_OPT_FORGET_NOISE }
#define ANTCMD_MEANING_INIT { LB_BUF_INIT, 0, 0, -1, 0, 0, LB_BUF_INIT }
/* Option c (getopt's) with arg: 1 taken, 0 not one of these, -1 refused (said). */
int antcmd_meaning_opt(struct antcmd_meaning *m, int c, const char *arg);
/* Options that exclude each other: 0, or -1 said (a usage error). */
int antcmd_meaning_check(const struct antcmd_meaning *m);
int antcmd_meaning_given(const struct antcmd_meaning *m);
void antcmd_meaning_release(struct antcmd_meaning *m);
/* m's settings on p: the names of what changed to ch, the ANT_REBASE_*
 * needed to *rebase.  -1 out of memory. */
int antcmd_set_meaning(ant_store_page *p, const struct antcmd_meaning *m, lb_buf *ch, unsigned *rebase);
/* 'set --not-news' on p (read in the caller's transaction): its last
 * announced update taken back, its event withdrawn, what it added learned
 * as taught noise; what was done said in said.  0 or < 0 with err
 * (LB_ENOTFOUND: no update to take back). */
int antcmd_not_news(ant_store *s, ant_store_page *p, lb_buf *said, lb_error *err);
/* The noise the operator taught ('set --not-news'), apart from what was learned. */
void antcmd_show_taught(const ant_store_page *p);
/* show's lines on where the page is: moved, gone (show_where.c) */
void antcmd_show_whereabouts(const ant_store_page *p, int64_t tz);
/* robots.txt (robots.c): set's --ignore-robots (1) or --no-ignore-robots
 * (0) on page p, with its warning, the change named in ch; show's line. */
int antcmd_robots_set(ant_store *s, const ant_store_page *p, int ignore, lb_buf *ch, lb_error *err);
void antcmd_show_robots(ant_store *s, const ant_store_page *p);
/* wait.c: show's line of the page's server wait (Retry-After) and how to
 * lift it; set --server HOST --clear-wait (argc, argv: no operand left). */
void antcmd_show_wait(ant_store *s, const ant_store_page *p, int64_t tz);
int antcmd_clear_wait(int argc, char **argv, const char *server, int clear);
/* update's side: --robots-max-age (ANTCMD_OPT_ROBOTS_AGE) and
 * --robots-max-bytes (ANTCMD_OPT_ROBOTS_BYTES), codes no letter takes, into
 * u (0, or -1 said); whether p was kept out (not a failure); the summary's
 * words for the pages kept out. */
struct ant_update_opts;
struct ant_update_stats;
#define ANTCMD_OPT_ROBOTS_AGE 0x200
#define ANTCMD_OPT_ROBOTS_BYTES 0x201
#define ANTCMD_ROBOTS_LONGOPTS \
	{ "robots-max-age", required_argument, NULL, ANTCMD_OPT_ROBOTS_AGE }, \
	{ "robots-max-bytes", required_argument, NULL, ANTCMD_OPT_ROBOTS_BYTES }
#define ANTCMD_ROBOTS_HELP \
	"  --robots-max-age S, --robots-max-bytes BYTES  robots.txt (antenna(1) ROBOTS.TXT)\n" \
	"                       is used S seconds (86400), BYTES of it read (500K)\n"
int antcmd_robots_opt(int c, const char *arg, struct ant_update_opts *u);
/* shared.c: several checkers over one PostgreSQL: update --lease S, and
 * the summary's share of this checker. */
int antcmd_lease_opt(const char *arg, struct ant_update_opts *u);
void antcmd_shared_summary(const struct ant_update_stats *st);
/* publish on a shared antenna (PostgreSQL): one at a time; a second
 * waits for the first up to wait_seconds (publish --wait; default
 * ANTCMD_PUBLISH_WAIT; 0: not at all), then stops with a message naming
 * the other publisher.  0 go on, -1 stop (said). */
#define ANTCMD_PUBLISH_WAIT 60
int antcmd_publish_lock(ant_store *s, int wait_seconds);
/* render.c: update's --render-timeout, --render-memory, --render-settle,
 * --render-jobs (ant_render.h), codes no letter takes, into u's render
 * limits (0, or -1 said). */
#define ANTCMD_OPT_RENDER_TIMEOUT 0x210
#define ANTCMD_OPT_RENDER_MEMORY 0x211
#define ANTCMD_OPT_RENDER_SETTLE 0x212
#define ANTCMD_OPT_RENDER_JOBS 0x213
#define ANTCMD_RENDER_LONGOPTS \
	{ "render-timeout", required_argument, NULL, ANTCMD_OPT_RENDER_TIMEOUT }, \
	{ "render-memory", required_argument, NULL, ANTCMD_OPT_RENDER_MEMORY }, \
	{ "render-settle", required_argument, NULL, ANTCMD_OPT_RENDER_SETTLE }, \
	{ "render-jobs", required_argument, NULL, ANTCMD_OPT_RENDER_JOBS }
int antcmd_render_opt(int c, const char *arg, struct ant_update_opts *u);
int antcmd_robots_kept_out(const ant_store_page *p);
void antcmd_robots_summary(const struct ant_update_stats *st);
/* t as "YYYY-MM-DD HH:MM ZONE" in the antenna's time zone tz (seconds east
 * of UTC), the zone named as index.html names it: "JST" for +09:00, else
 * "UTC+05:30", "UTC"; "-" padded to that width when t is 0. */
void antcmd_time(char *b, size_t n, int64_t t, int64_t tz);

int cmd_add(int argc, char **argv);
int cmd_check_db(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_publish(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_update(int argc, char **argv);
/* How far the last cmd_update() got, for run's exit status: its options
 * refused (or --help), the update not run (database, lock), or run, with
 * the pages and sources that failed (a page's feed is not counted). */
enum { ANTCMD_UPD_USAGE, ANTCMD_UPD_NOT_RUN, ANTCMD_UPD_RAN };
struct antcmd_update_outcome {
	int stage;
	unsigned failed;
};
extern struct antcmd_update_outcome antcmd_update_outcome;

/* sitemap.c: 'update --sitemap-limit NAME=N' into *l (0, or -1 told),
 * and the ant_update_opts.on_warning that tells a sitemap's bad entries. */
struct ant_sitemap_limits;
int antcmd_sitemap_limit(struct ant_sitemap_limits *l, const char *spec);
void antcmd_sitemap_warning(void *ctx, const char *where, unsigned long line, const char *msg);
/* update's options (update.c), which run passes on to it. */
extern const char cmd_update_shortopts[];
extern const struct option cmd_update_longopts[];

/* Notifications (notify.c, ant_notify.h): init's target options, for its
 * getopt_long table; each taken by antcmd_notify_opt() (1 taken, 0 not
 * one of them, -1 refused and printed), and the settings the table marks
 * ANT_SETF_NOTIFY kept by antcmd_notify_setting() (checked by init);
 * both applied, in the order given, after init's other settings by
 * antcmd_notify_apply() (the changes, said; or < 0 with err). */
enum { ANTCMD_OPT_NOTIFY = 0x400, ANTCMD_OPT_NO_NOTIFY, ANTCMD_OPT_NOTIFY_GROUP };
#define ANTCMD_NOTIFY_OPTIONS \
	{ "notify", required_argument, NULL, ANTCMD_OPT_NOTIFY }, \
	{ "no-notify", required_argument, NULL, ANTCMD_OPT_NO_NOTIFY }, \
	{ "notify-group", required_argument, NULL, ANTCMD_OPT_NOTIFY_GROUP }
int antcmd_notify_opt(int c, const char *arg);
int antcmd_notify_setting(const ant_setting *d, const char *v);
int antcmd_notify_apply(ant_store *s, int64_t now, lb_error *err);
/* After update's run (with the run lock held): the pending news sent to
 * each target, a line for each (failures on standard error; never an
 * exit status).  run sets antcmd_notify_later so that update leaves it
 * to antcmd_notify_after_run(), after the publish (at update's --now,
 * antcmd_notify_now). */
void antcmd_notify_send(ant_store *s, int64_t now, int quiet, const char *dir);
extern int antcmd_notify_later;
extern int64_t antcmd_notify_now;
void antcmd_notify_after_run(int quiet, const char *dir);
/* antenna show without a URL: the settings, then the targets
 * (show_settings.c); CLI_OK or CLI_FATAL (printed). */
int antcmd_show_settings(void);
/* show's settings view: the targets with their state.  0 or < 0 with err. */
int antcmd_show_notify(ant_store *s, int64_t tz, int64_t now, lb_error *err);

#endif
