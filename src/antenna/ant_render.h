/*
 * ant_render.h: one page read through Debian's headless chromium, for a
 * page whose content exists only after its scripts run ('add --render').
 * The DOM chromium holds once the page settled (--dump-dom after the
 * load event and a virtual-time budget for its timers and fetches) is
 * handed back as an ant_fetch_result, so the caller analyses it like any
 * fetched body.
 *
 * The browser reaches nothing our own fetches refuse (ant_fetch.h,
 * ant_addr.h): it is started with --proxy-server naming a forward proxy
 * of ours on 127.0.0.1 (render_proxy.c, a thread of the caller's
 * process) and --proxy-bypass-list=<-loopback>, so that every request --
 * the page, its redirects, scripts, XHR and fetch(), images, iframes,
 * WebSockets -- goes through it.  The proxy resolves each host itself and
 * connects only to the address it judged: an internal one is refused
 * unless the fetch limits' allow_private, or the host and port are the
 * request's allow_host.  One refusal fails the whole render
 * (ANT_FETCH_ERR_INTERNAL, the reason in words): a page that asks an
 * internal address is not shown half-read.  Plain-text tunnels (ws://
 * through CONNECT) are closed; file: and other schemes are never asked
 * of a proxy and chromium refuses them to an http(s) page; WebRTC is kept
 * to proxied UDP, i.e. none; background networking, component updates,
 * sync, extensions and the like are off.
 *
 * Bounds, per render: a wall-clock limit (the whole process group
 * killed), a memory limit (the resident size of every process of the
 * group, summed, polled from /proc), the DOM's size (the fetch limits'
 * max_body), a fresh profile in a temporary folder removed after.  No
 * process of the render outlives it: the group is killed and reaped (the
 * caller's process is made the subreaper of the group's orphans for the
 * render's time).  Renders at once across processes: ant_render_lock().
 *
 * Robots.txt, politeness and whether the page is due are the caller's,
 * as for any fetch; the User-Agent is the fetch limits' (ant_fetch_user_agent()).
 */
#ifndef ANT_RENDER_H
#define ANT_RENDER_H

#include <stddef.h>

#include "ant_fetch.h"

/* Limits: named, documented in antenna(1) and the README, overridable
 * (antenna update --render-timeout, --render-memory, --render-settle,
 * --render-jobs). */
#define ANT_RENDER_DEFAULT_TIMEOUT 30       /* seconds, the whole render */
#define ANT_RENDER_DEFAULT_SETTLE_MS 3000   /* virtual ms the page's timers and
					       fetches get after its load */
#define ANT_RENDER_DEFAULT_MAX_MB 1024      /* MiB resident, the browser's processes summed */
#define ANT_RENDER_DEFAULT_JOBS 1           /* renders at once on this machine */
#define ANT_RENDER_LOCK_WAIT 600            /* seconds ant_render_lock() waits */
/* Connections the proxy serves at once for one render (beyond: closed). */
#define ANT_RENDER_MAX_CONNS 64

/* What chromium is run: ANTENNA_CHROMIUM, else Debian's binary
 * /usr/lib/chromium/chromium (its launcher /usr/bin/chromium adds the
 * system's extensions), else chromium on PATH. */
#define ANT_RENDER_BROWSER "/usr/lib/chromium/chromium"
/* The error when none is found: what the operator must do. */
#define ANT_RENDER_NO_BROWSER "--render needs chromium: apt-get install chromium"

typedef struct ant_render_limits {
	long timeout;      /* seconds; 0 = ANT_RENDER_DEFAULT_TIMEOUT */
	long settle_ms;    /* 0 = ANT_RENDER_DEFAULT_SETTLE_MS; < 0 = none */
	long max_mb;       /* 0 = ANT_RENDER_DEFAULT_MAX_MB */
	long jobs;         /* renders at once (ant_render_lock); 0 = ANT_RENDER_DEFAULT_JOBS */
	const char *browser;   /* NULL: as ANT_RENDER_BROWSER says */
} ant_render_limits;

/* What one render cost, for the caller's log and the tests. */
typedef struct ant_render_stats {
	double seconds;          /* wall clock, browser start to last process reaped */
	long peak_kb;            /* the largest sum of the group's resident sizes seen */
	long peak_procs;         /* the most processes of the group seen at once */
	unsigned requests;       /* requests the proxy was asked */
	unsigned refused;        /* of which refused by the guard */
	long leftover;           /* processes of the group still there after (0) */
} ant_render_stats;

/*
 * Renders req->url (http or https) with the fetch limits fl (allow_private,
 * user_agent and contact, max_body, connect_timeout) and the render
 * limits rl (NULL: the defaults).  res is filled as ant_fetch_run() fills
 * one (release it with ant_render_result_release()): status 200 and the
 * DOM, serialized as UTF-8 (content_type "text/html; charset=utf-8"), or
 * the page's own HTTP status when it answered plain http with one >= 400
 * (over https the proxy sees no status); err ANT_FETCH_ERR_INTERNAL
 * (refused: error names the address and host), _TIMEOUT, _TOO_BIG (DOM
 * over max_body), _CONNECT or _DNS (the page's own server), _PROTOCOL
 * (not http(s)), _OTHER (no browser: ANT_RENDER_NO_BROWSER; over the
 * memory limit; the browser failed: the last line it printed) with
 * error in words.  No validators: a render is always a full one.  st may
 * be NULL.  Returns 0, or LB_ENOMEM / LB_EIO when it could not be tried
 * (res still filled, err ANT_FETCH_ERR_OTHER, local set).
 */
int ant_render(const ant_fetch_limits *fl, const ant_render_limits *rl, const ant_fetch_req *req,
	       ant_fetch_result *res, ant_render_stats *st);
void ant_render_result_release(ant_fetch_result *res);

/* The browser that would be run, malloc'd, or NULL when none is found. */
char *ant_render_browser(const ant_render_limits *rl);

/*
 * One of rl->jobs slots to render on this machine, held from return to
 * ant_render_unlock(): a lock file (flock) in $TMPDIR, else /tmp,
 * "lirs-antenna-render.N.lock", so that renders of several antennas and
 * runs on one machine take turns.  Waits at most wait_s seconds (0:
 * ANT_RENDER_LOCK_WAIT).  Returns the held slot's descriptor (>= 0), or
 * LB_EBUSY (waited too long), LB_EIO.
 */
int ant_render_lock(const ant_render_limits *rl, long wait_s);
void ant_render_unlock(int lock);

#endif
