/*
 * ant_outcome.h: the kind of a page's failure, as data (rules/outcome.c).
 *
 * A failed check leaves two things on the page: last_error, the words the
 * operator reads in 'antenna show' and 'list' (free to be reworded), and
 * fail_kind, what went wrong as one of the values below.  Everything that
 * decides on a failure -- the visitor's phrase in index.html
 * (publish_error.c), the robots-excluded and gone states (ant_pagestate.h),
 * trust -- reads the kind, never the words.  The kind is stored in the
 * pages table by its name (column fail_kind, schema 13).
 */
#ifndef ANT_OUTCOME_H
#define ANT_OUTCOME_H


/* The first values are fetch.c's ANT_FETCH_ERR_* (ant_fetch.h), same
 * numbers; then the antenna's own.  Names in comments. */
typedef enum {
	ANT_FAIL_NONE = 0,           /* (null): the last check succeeded */
	ANT_FAIL_DNS = 1,            /* "dns": the host did not resolve */
	ANT_FAIL_CONNECT = 2,        /* "connect": refused, unreachable */
	ANT_FAIL_TIMEOUT = 3,        /* "timeout" */
	ANT_FAIL_TLS = 4,            /* "tls" */
	ANT_FAIL_TOO_BIG = 5,        /* "too-big": the body over --max-body */
	ANT_FAIL_REDIRECTS = 6,      /* "redirects": too many */
	ANT_FAIL_PROTOCOL = 7,       /* "protocol": a scheme not allowed */
	ANT_FAIL_OTHER = 8,          /* "other": the transfer failed otherwise */
	ANT_FAIL_HEADER_TOO_BIG = 9, /* "header-too-big" */
	ANT_FAIL_INTERNAL = 10,      /* "internal": an internal address refused */
	ANT_FAIL_DEFERRED = 11,      /* "deferred": not sent, the server asked us to
					wait (Retry-After): waiting */
	ANT_FAIL_HTTP = 32,          /* "http": an HTTP error status (4xx, 5xx, or
					none usable): last_error is its status line */
	ANT_FAIL_LOCAL = 33,         /* "local": the request could not be made here
					(out of memory, curl refused it) */
	ANT_FAIL_CHECK = 34,         /* "check": an answer came but could not be
					checked (the --only part missing, a
					pattern over its limits): our own words */
	ANT_FAIL_GONE = 35,          /* "gone": 404, 410 or no such host for
					gone_days (ant_pagestate.h): checked daily */
	ANT_FAIL_ROBOTS = 36,        /* "robots-excluded": not fetched, robots.txt
					disallows it (ant_robots.h) */
} ant_fail_kind;

/* The kind's stable name ("dns", ..., "robots-excluded"), NULL for
 * ANT_FAIL_NONE and for a value of no kind. */
const char *ant_fail_kind_name(ant_fail_kind k);
/* The kind of a name (ant_fail_kind_name()); ANT_FAIL_NONE for NULL or a
 * name of no kind. */
ant_fail_kind ant_fail_kind_parse(const char *name);
/* A fetch answer's kind: ant_fetch_fail_kind() (ant_fetch.h). */

#endif
