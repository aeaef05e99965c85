/*
 * ant_robots.h: robots.txt (RFC 9309, the Robots Exclusion Protocol).
 *
 * The parser (robots.c) has no I/O: bytes in, the rules of the group that
 * applies to our product token out, and a verdict per URL path.  The
 * fetching and caching per origin (robots_fetch.c) fetch robots.txt once
 * per origin and run, keep it in the database for at most
 * ANT_ROBOTS_MAX_AGE, and decide for the update engine whether a page may
 * be fetched.
 */
#ifndef ANT_ROBOTS_H
#define ANT_ROBOTS_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"
#include "ant_outcome.h"

/* Our product token (RFC 9309 §2.2.1), matched case-insensitively. */
#define ANT_ROBOTS_PRODUCT "lirs-antenna"
/* Bytes of a robots.txt parsed (RFC 9309 §2.5: at least 500 KiB); the
 * rest is ignored, and a line cut by the limit too. */
#define ANT_ROBOTS_MAX_BYTES (500u << 10)
/* Seconds a fetched robots.txt is used (RFC 9309 §2.4: at most 24 hours). */
#define ANT_ROBOTS_MAX_AGE 86400
/* Redirects followed to reach robots.txt (RFC 9309 §2.3.1.2: at least 5). */
#define ANT_ROBOTS_MAX_REDIRECTS 5
/* Seconds before a page disallowed by robots.txt is considered again. */
#define ANT_ROBOTS_RECHECK 3600

/* A page's last_error when robots.txt kept it from being fetched starts
 * with this (the operator's words); its kind is ANT_FAIL_ROBOTS, which
 * ant_robots_excluded() tells apart from a failure. */
#define ANT_ROBOTS_ERROR_PREFIX "robots.txt: "

typedef struct ant_robots ant_robots;

/* What a parse saw (for `antenna show` and the tests). */
typedef struct ant_robots_info {
	size_t lines;            /* lines read */
	size_t groups;           /* groups seen (all agents) */
	size_t rules;            /* rules kept: those of the group that applies */
	int matched;             /* 1: a group names our token, 0: the '*' group
				    applies, -1: none (everything allowed) */
	int truncated;           /* the file was longer than max_bytes */
} ant_robots_info;

/* What decided a verdict: the rule, 0-length pattern when none matched. */
typedef struct ant_robots_rule {
	int allow;               /* 1 Allow, 0 Disallow */
	size_t line;             /* 1-based line of the rule in the file; 0 none */
	const char *pattern;     /* normalised (§2.2.2), borrowed from the rules */
} ant_robots_rule;

/*
 * Parses body[0..len) for the product token agent (NULL: ANT_ROBOTS_PRODUCT)
 * reading at most max_bytes (0: ANT_ROBOTS_MAX_BYTES).  Any bytes parse:
 * a UTF-8 BOM is skipped, lines end at LF, CR or CRLF, '#' starts a
 * comment, unknown lines and rules outside a group are ignored (§2.2).
 * Returns 0 and *out (ant_robots_free()), or LB_ENOMEM.
 */
int ant_robots_parse(const char *body, size_t len, const char *agent, size_t max_bytes,
		     ant_robots **out, ant_robots_info *info);

/* A set of rules that allows everything (4xx, §2.3.1.3) or nothing
 * (5xx or unreachable, §2.3.1.4).  NULL out of memory. */
ant_robots *ant_robots_all(int allow);

void ant_robots_free(ant_robots *r);

/*
 * Whether path (a URL's path and query, "/a/b?c"; "" counts as "/") may
 * be fetched: the longest matching rule decides, Allow on a tie
 * (§2.2.2); no match allows; "/robots.txt" is always allowed (§2.2.2).
 * Returns 1 allowed, 0 disallowed; *why (may be NULL) says which rule.
 */
int ant_robots_allowed(const ant_robots *r, const char *path, ant_robots_rule *why);

/*
 * The origin of an http(s) URL, "scheme://host:port" in lower case with
 * the port always written, into out (size n), and where its path starts
 * in url (*path; "" when the URL has none).  Returns 0, or LB_EINVAL when
 * url is not an http(s) URL with a host, LB_ETOOBIG when out is too small.
 */
int ant_robots_origin(const char *url, char *out, size_t n, const char **path);

/* Normalises a path or pattern for comparison (§2.2.2), appending to a
 * malloc'd string: %XX of an unreserved character is decoded, other %xx
 * get upper-case hex digits, bytes outside printable ASCII are encoded.
 * NULL out of memory. */
char *ant_robots_normalise(const char *s, size_t n);

/* Whether a page's failure kind (ant_outcome.h) says robots.txt kept it
 * from being fetched (state robots-excluded rather than failing). */
int ant_robots_excluded(ant_fail_kind kind);

/* ---- the cache per origin and the per-page override (store_robots.c) ---- */

typedef struct ant_store ant_store;

/* What an origin's robots.txt fetch decided (table robots). */
enum {
	ANT_ROBOTS_RULES = 0,    /* 2xx: the body's rules */
	ANT_ROBOTS_ALLOW_ALL = 1,    /* 4xx or too many redirects (§2.3.1.2/3) */
	ANT_ROBOTS_DISALLOW_ALL = 2  /* 5xx, or an answer not usable (§2.3.1.4) */
};

typedef struct ant_robots_cached {
	int64_t fetched;         /* when; 0: never */
	long status;             /* HTTP status; 0 none */
	int verdict;             /* ANT_ROBOTS_* */
	char *error;             /* why not usable, or NULL */
	char *body;              /* the first max_bytes + 1 bytes of a 2xx's body, or NULL */
	size_t len;
} ant_robots_cached;

void ant_robots_cached_release(ant_robots_cached *c);
/* The row of origin: 1 found (*out filled), 0 none, < 0 (LB_EDB, LB_ENOMEM). */
int ant_store_robots_get(ant_store *s, const char *origin, ant_robots_cached *out, lb_error *err);
/* Keeps c as origin's row, replacing the last (in the caller's transaction). */
int ant_store_robots_put(ant_store *s, const char *origin, const ant_robots_cached *c, lb_error *err);
/* Whether the operator set 'antenna set URL --ignore-robots' on page id:
 * 1 or 0, < 0 on error. */
int ant_store_robots_ignore_get(ant_store *s, int64_t page_id, lb_error *err);
/* Sets or clears it; a change makes the page due now. */
int ant_store_robots_ignore_set(ant_store *s, int64_t page_id, int ignore, lb_error *err);
/* ant_store_robots_ignore_set(.., 1, ..) on the page of url_key (import). */
int ant_store_robots_ignore_key(ant_store *s, const char *url_key, lb_error *err);
/* The ids of the pages that ignore robots.txt, ascending, malloc'd
 * (*ids NULL when none): the update reads them once. */
int ant_store_robots_ignored(ant_store *s, int64_t **ids, size_t *n, lb_error *err);

#endif
