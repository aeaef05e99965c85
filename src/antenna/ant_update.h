/*
 * ant_update.h: the antenna's update engine behind one call.
 *
 * ant_update() reads every source (LIRS, DI, Atom with its RFC 5005
 * archives), then checks the pages that are due, concurrently, and
 * records in the store what changed: fetch -> analyse (ant_page.h, ant_feed.h)
 * -> decide (ant_detect.h) -> save (ant_store.h, and an update event for the
 * Atom bridge, atom_evstore.h).  Every record a source gives is kept
 * (ant_store_srcrec); a relay source's ('add --relay') records of pages
 * not watched here are what the store publishes as relayed pages, and
 * the news among them are update events too (update_sources.c,
 * relay_news()).
 *
 * Policy-free: every setting is a field of ant_update_opts (the command
 * fills them from its options and the database's config), the engine
 * prints nothing (progress goes to the optional callbacks), and fetching
 * goes through an ant_fetcher, so that tests drive the engine without a
 * network (tests/unit/antenna/t_update.c).
 */
#ifndef ANT_UPDATE_H
#define ANT_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"
#include "ant_detect.h"
#include "ant_fetch.h"
#include "ant_render.h"
#include "ant_sitemap.h"
#include "ant_source_budget.h"
#include "ant_store.h"

/* Checks (page saves and relays) per transaction: kill -9 loses at most
 * one batch, never consistency. */
#define ANT_UPDATE_BATCH 256
/* Due pages read, fetched, decided and committed at a time (opts
 * page_batch): the run's memory is that of a batch (about 1 KiB a page,
 * plus the first answers of the pages awaiting a re-fetch, at most two
 * batches of them), whatever the number of pages watched.  Each seam
 * costs a query, a commit, the drain of the last transfers and new
 * connections (some 80 ms measured on loopback): a few thousand pages
 * make that a few per cent of the run. */
#define ANT_UPDATE_PAGE_BATCH 5000
/* First answers held at once while their page waits for its re-fetch
 * (opts max_held): each holds the page's analysis, some 12 KiB, so this
 * bounds that part of the run's memory (about 12 MiB) whatever the share
 * of pages that seem changed.  Beyond it a page is decided on its first
 * answer alone (what changes from check to check is still learned). */
#define ANT_UPDATE_MAX_HELD 1000
/* RFC 5005 archives fetched per Atom source and run (--max-archives). */
#define ANT_UPDATE_MAX_ARCHIVES 50
/* Milliseconds between a page's answer that seems changed and the second
 * fetch that tells per-request noise from news (ant_detect.h). */
#define ANT_UPDATE_REFETCH_PAUSE_MS 2000
/* Several checkers over one PostgreSQL (opts lease_seconds, --lease): how
 * long a claim of servers and their due pages holds.  A checker killed
 * mid-batch holds its pages this long; a batch must end within it (one
 * claim is at most ANT_UPDATE_CLAIM_MAX pages). */
#define ANT_UPDATE_LEASE 300
/* Several checkers: milliseconds a run spends at most resolving the
 * hosts of pages whose server is not known yet (new pages: once in their
 * life), each a server by its address; past it, the rest by their
 * registrable domain (update_lease.c). */
#define ANT_UPDATE_RESOLVE_MS 30000
/* Pages per claim at most (a smaller --page-batch is used as it is): a
 * claim is a share of the work, and several checkers end together when
 * the shares are small. */
#define ANT_UPDATE_CLAIM_MAX 1000
/* Archives followed (already read, so not fetched) per source and run:
 * a bound on a cycle of prev-archive links. */
#define ANT_UPDATE_MAX_WALK 100000

/*
 * The engine's one way to the network: runs n requests and calls done
 * once per request as each finishes, on the calling thread, with the same
 * contract as ant_fetch_run() (ant_fetch.h); returns 0, or a negative code
 * (LB_ENET) when transfers could not be set up at all.  self is the
 * fetcher's own state.
 */
typedef struct ant_fetcher {
	int (*run)(void *self, const ant_fetch_limits *limits, const ant_fetch_req *reqs,
		   size_t n, ant_fetch_done_fn done, void *ctx);
	void *self;
} ant_fetcher;

typedef struct ant_update_opts {
	int64_t now;               /* the time of this run (the caller's clock or --now) */
	int force;                 /* check every page, due or not */
	ant_fetch_limits limits;   /* transfers; allow_file lets file:// through */
	size_t excerpt_max;        /* characters kept of what an update added */
	int64_t max_archives;      /* see ANT_UPDATE_MAX_ARCHIVES */
	int64_t max_age;           /* records older than this are stale (LIRS 2.1 §4) */
	int64_t max_future;        /* records and entries dated later are refused,
				      a page's Last-Modified or Date not believed */
	int64_t tz;                /* seconds east of UTC given to update events */
	ant_source_limits budget;  /* per source and run: news made events, records
				      read (ant_source_budget.h); -1: no bound */
	int64_t keep_records;      /* an Atom source's records remembered (ant_store.h,
				      ant_store_srcrec): the history retention,
				      keep_events; < 0 = all */
	int lock_wait;             /* seconds to wait for the run lock */
	double regex_seconds;      /* the operator's --ignore/--only patterns' time on
				      one page (ant_page.h); 0: ANT_PAGE_MAX_REGEX_SECONDS */
	const ant_fetcher *fetcher;   /* NULL: ant_fetch_run(), libcurl */
	/* Sitemap sources ('add --sitemap'): their bounds (ant_sitemap.h; set
	 * by ant_update_opts_init()), and where a sitemap's bad entries are
	 * told ("WHERE:LINE: MSG", at most ANT_SITEMAP_MAX_DIAGS per file; msg
	 * quotes outside text: lb_term() it); NULL: not told, only counted. */
	ant_sitemap_limits sitemap;
	void (*on_warning)(void *ctx, const char *where, unsigned long line, const char *msg);
	/* Automatic ignoring (ant_detect.h): a page whose text seems
	 * changed in small parts only is fetched again after this pause, and
	 * what differs between the answers is learned volatile.  -1: never
	 * re-fetch (learning across checks still goes on); pages with
	 * no_auto_ignore learn nothing either way. */
	int64_t refetch_pause_ms;
	/* Due pages per batch (ANT_UPDATE_PAGE_BATCH; 0: that).  A page
	 * awaiting its re-fetch when its batch ends is carried into the next
	 * one, whose fetching is its pause; at most page_batch are carried. */
	size_t page_batch;
	/* First answers held for a re-fetch at once (ANT_UPDATE_MAX_HELD;
	 * 0: that). */
	size_t max_held;
	/* robots.txt (ant_robots.h): how long an origin's answer is used
	 * (0: ANT_ROBOTS_MAX_AGE) and bytes of it parsed (0: ANT_ROBOTS_MAX_BYTES) */
	int64_t robots_max_age;
	size_t robots_max_bytes;
	/* Progress, for a verbose command; either may be NULL.  The source or
	 * page is borrowed, and already holds its new state (last_error). */
	void (*on_source)(void *ctx, const ant_store_source *src, int notmodified);
	void (*on_page)(void *ctx, const ant_store_page *p, const ant_detect_outcome *out);
	/* A page moved (ant_pagestate.h): from its old URL to its new one;
	 * merged: into a page already watched there.  May be NULL. */
	void (*on_move)(void *ctx, const char *from, const char *to, int merged);
	void *ctx;
	/* Pages added with --render (ant_render.h): their bounds; zero: the
	 * defaults.  Rendered one at a time after the batch's transfers. */
	ant_render_limits render;
	/* Moved and gone pages (ant_pagestate.h): 0 = ANT_MOVE_AFTER, ANT_GONE_DAYS. */
	int64_t move_after, gone_days;
	/* On PostgreSQL (ant_store_shared()): > 0 shares the pages with other
	 * checkers by claims held this long (--lease; 0: the run lock, one
	 * checker, as on SQLite), and this checker's id in the leases (NULL:
	 * host:pid:start). */
	int64_t lease_seconds;
	const char *checker;
} ant_update_opts;

/* The run's counts, for the command's summary line. */
typedef struct ant_update_stats {
	/* pages; failed: not the deferred ones (a server's Retry-After: not
	 * asked, waiting) nor those still gone (ant_pagestate.h: a page gone
	 * fails once, in the run that finds it gone, then is checked daily) */
	unsigned checked, updated, unchanged, failed, deferred, still_gone;
	unsigned feeds_checked, feeds_failed;
	unsigned sources, sources_failed, atom_sources;  /* atom_sources: of sources */
	unsigned archives_read;
	unsigned refetched;      /* second fetches of pages that seemed changed */
	unsigned unasked;        /* such pages not fetched again: they had held
				    still at their last check (update_check.c) */
	unsigned learned;        /* parts of pages learned volatile in this run */
	unsigned when_quiet;     /* updates without the page's --when words (ant_when.h):
				    seen, not announced (counted in unchanged) */
	unsigned links_quiet;    /* changes only of an article's links to other pages
				    (ant_page_picks_links_only()): seen, not announced */
	unsigned moved, gone;    /* pages moved in this run; found gone in it */
	unsigned robots_fetched;   /* robots.txt files asked for (update_robots.c) */
	unsigned robots_excluded;  /* due pages robots.txt kept from being fetched */
	int64_t records_read, records_merged, records_ignored, records_skipped;
	int64_t records_relayed; /* pages the relay sources relay (not watched
				    here; published as relayed), each source's */
	int64_t news_held;       /* relayed news over a source's budget: no event */
	unsigned sources_same;   /* bodies not read again: the same as last read */
	unsigned sources_churning, sources_cut;   /* flagged; stopped at max_records */
	long connections;        /* opened by the run's transfers (ant_fetch.h pool) */
	unsigned claims, servers_claimed;   /* on PostgreSQL: claims made, servers in them */
	unsigned lease_waits;    /* pauses while another checker held servers */
	unsigned lease_renewals; /* a claim's lease renewed while worked on */
	unsigned lease_lost;     /* answers dropped: the page another checker's once the lease ran out */
	int sources_skipped;     /* on PostgreSQL: another checker was reading the sources */
	unsigned pages;          /* watched */
	int64_t next_due;        /* after the run, when the next page is due (now when
				    one still is); 0 when no page is watched */
} ant_update_stats;

/*
 * Zeroes *o and sets the defaults: now 0 (the caller must set it), the
 * fetch defaults (ant_fetch.h), excerpt_max ANT_PAGE_EXCERPT_MAX, max_archives
 * ANT_UPDATE_MAX_ARCHIVES, max_age and max_future the LIRS defaults,
 * tz JST, keep_records ANT_KEEP_EVENTS, lock_wait ANT_STORE_LOCK_WAIT, refetch_pause_ms
 * ANT_UPDATE_REFETCH_PAUSE_MS, page_batch ANT_UPDATE_PAGE_BATCH.
 */
void ant_update_opts_init(ant_update_opts *o);
/*
 * The settings antenna init keeps in the database (antenna(1)
 * "CONFIGURATION": max_age, max_future, display_tz, keep_events,
 * allow_file, allow_private) over o's values; allow_file only adds
 * (--allow-file).
 */
void ant_update_config(ant_store *s, ant_update_opts *o);

/*
 * One update run over store (opened by the caller, not closed here): takes
 * the run lock (held until ant_store_close()), reads the sources, checks
 * the due pages in batches of opts->page_batch, each committed before the
 * next is read (memory bounded whatever the number of pages).  A page or source that fails is no failure
 * of the run: its error is recorded with it and counted in *stats.
 * Returns 0, or a negative LB_E* code (err, when not NULL, says why):
 * LB_EBUSY another run holds the lock, LB_EDB the database, LB_ENET
 * transfers could not be set up, LB_EIO, LB_ENOMEM.  stats may be NULL;
 * it is filled in either case.
 */
int ant_update(ant_store *store, const ant_update_opts *opts, ant_update_stats *stats,
	       lb_error *err);

/*
 * A page just added (antenna add, antenna import), by its URL key: what
 * the sources said of that URL when they were read (ant_store.h,
 * ant_store_srcrec) is relayed into it as ant_update() would have done.
 * The newest record still usable at opts->now (the future rule; for LIRS
 * and HINA-DI records also the 8-hour rule, opts->max_age) that is newer
 * than the page's update wins: marked "lirs" or "atom", credited to its
 * source, its title filling a title still unknown, the source's excerpt
 * (an Atom entry's summary) as the page's, and an update event.  A page
 * that knows a newer update keeps it.  In the caller's transaction, if
 * any.  Returns 1 applied, 0 nothing to apply or no such page, < 0 an
 * LB_E* code (LB_EDB, LB_ENOMEM).
 */
int ant_update_recall(ant_store *store, const char *url_key, const ant_update_opts *opts,
		      lb_error *err);

#endif
