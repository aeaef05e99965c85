/*
 * update_int.h: what the update engine's files share (ant_update.h); not
 * for commands.
 *
 *   update.c          the run: the lock, the sources then the due pages in
 *                     batches, the re-fetch schedule
 *   update_sources.c  reading the sources (LIRS, HINA-DI, Atom with its
 *                     RFC 5005 archives, relays), and a page added later
 *   update_sitemap.c  reading a sitemap source (its indexes too): each
 *                     <lastmod> of a watched page is a hint
 *   update_srcrec.c   what a source said, remembered; a source's read
 *                     finished (below update_sources.c and update_sitemap.c)
 *   update_check.c    one page's check, step by step
 *   update_text.c     what the check adds to the text rule: the site's
 *                     furniture, the token rule, the page's text state
 *   update_site.c     each site's template for the furniture rule: its
 *                     pages' keys read and kept, a sibling page noted
 *   update_sibling.c  the sibling pages noted, fetched after a batch
 *   update_trust.c    a source's claims as hints, judged by our checks
 *                     (the score itself is rules/trust.c's)
 *   update_lease.c    a checker among several over one PostgreSQL: claims,
 *                     leases, the servers' politeness shared
 *   update_run.c      the run's tools every file above uses: the fetch,
 *                     the transaction, a page saved with its event
 * Each file calls only the ones below it (tests/house/run.sh: no loop).
 */
#ifndef ANT_UPDATE_INT_H
#define ANT_UPDATE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "lb_error.h"
#include "atom_evstore.h"
#include "ant_detect.h"
#include "ant_fetch.h"
#include "ant_furniture.h"
#include "ant_source_budget.h"
#include "ant_store.h"
#include "ant_trust.h"
#include "ant_update.h"

/* What a page's feed said in this run. */
struct upd_feed {
	int usable;              /* a believable newest entry date */
	int64_t newest;          /* that date */
	char *title;             /* the newest entry's title, malloc'd, or NULL */
	int64_t view;            /* an entry on a view of the page (ant_feed_about's
				    view_entry): dates a change the check holds */
};

/* What a page's check found so far, handed from step to step
 * (update_check.c) and parked with the page while a step waits. */
struct upd_found {
	ant_detect_input in;     /* the update rules' input so far */
	char *excerpt;           /* what the page's text added, malloc'd, or NULL */
	char *had_feed;          /* the page's feed before this check, malloc'd, or NULL */
	char errtext[300];       /* why the check failed, when in.failed */
	ant_fail_kind kind;      /* and its kind (ant_outcome.h) */
	int move;                /* the page moves to its redirect_to when saved */
	char *text;              /* the compared text, for the diff page (update_diff.c), malloc'd, or NULL */
	size_t text_len;
	char *added;             /* what the text rule found added, every run of it
				    (the --when patterns read it, ant_when.h), malloc'd, or NULL */
	char *news;              /* the same as ant_taught.h runs ('set --not-news'), malloc'd, or NULL */
};

/* The answer a parked check waits for (struct upd_check). */
enum upd_wait {
	UPD_RUNNING = 0,         /* none: not checked yet, under way, or saved */
	UPD_WAIT_REFETCH,        /* the second fetch of a page that seemed changed */
	UPD_WAIT_FEED,           /* its feed's, fetched beside the page */
	UPD_WAIT_NEW_FEED,       /* the feed it named for the first time (a second round) */
};

struct upd_noise;            /* a first answer kept for the re-fetch (update_check.c) */

/* A page's check in this batch, by the page's index in the batch. */
struct upd_check {
	enum upd_wait wait;
	struct upd_found found;  /* while parked: the check so far */
	int feed_pending;        /* its feed's fetch is under way */
	struct upd_feed feed;
	int64_t asked;           /* UPD_WAIT_REFETCH: monotonic ms of the first answer */
	struct upd_noise *nc;    /* UPD_WAIT_REFETCH: that answer */
	ant_furniture *furn;     /* what its answer's analysis left out as furniture,
				    malloc'd; NULL: nothing (856 bytes, not in every
				    check of a batch) */
	unsigned char *tokens;   /* the token rule's state after this check, malloc'd */
	size_t tokens_len;
	char *held;              /* the text of what this check holds, malloc'd, or NULL */
	int unasked;             /* its small change decided without a second
				    fetch: the page had held still (noise_first) */
};

/* The sites' templates (update_site.c, ant_furniture.h). */
#define ANT_TEMPLATE_MAX_AGE (30 * 86400)         /* a page's keys count this long */
#define ANT_TEMPLATE_SIBLING_MAX_AGE (7 * 86400)  /* a sibling's, this long */
#define ANT_TEMPLATE_SIBLING_EVERY (24 * 3600)    /* one sibling asked a site in this */
#define ANT_TEMPLATE_LINK_SCAN (256 * 1024)       /* bytes of a page looked at for its links */
#define ANT_TEMPLATE_SIBLING_BYTES (1024 * 1024)  /* a bigger sibling is not read */

/* A sibling page to fetch for its site's template. */
struct upd_sibling {
	char *site;              /* the origin */
	char *url;               /* NULL: none found (the attempt is kept) */
	char *allow;             /* the page's allow_url (ant_fetch_req.allow_host) */
	char *page;              /* the page that asked for it */
};

/* A site's rows in the store, as update_site.c read them: every page of
 * the batch of that site reads them from here instead of the store.  Our
 * own writes are the only ones during a run (the run lock): one drops the
 * copy; a copy a check still reads (refs) goes when that check is done. */
struct upd_site_rows {
	char *site;              /* NULL: a free slot */
	ant_store_sitepage *rows;   /* newest first, then by URL */
	size_t n;
	unsigned refs, dead, used;
};
#define UPD_SITE_ROWS 8          /* sites whose rows are kept at once */

struct upd_siblings {
	struct upd_sibling *v;
	size_t n;
	struct upd_site_rows rows[UPD_SITE_ROWS];   /* update_site.c, for the batch */
	unsigned tick;
};

/* A site's template as a page's check reads it. */
struct upd_site {
	ant_store_sitepage *rows;
	size_t nrows;
	struct upd_site_rows *copy;   /* the rows borrowed from there instead */
	ant_furniture_page *page;
	ant_furniture_site site;
};

/* One run (ant_update()). */
struct upd {
	ant_store *s;
	const ant_update_opts *o;
	atom_evstore *ev;
	int64_t now;             /* o->now, used everywhere */
	/* the batch: pages carried for their re-fetch first, then those read */
	ant_store_page *pages;
	struct upd_check *chk;   /* one per page of the batch */
	size_t npages;
	size_t batch;            /* pages read per batch (o->page_batch) */
	int64_t after;           /* the last id read: where the next batch starts */
	size_t held, max_held;   /* first answers kept for a re-fetch, and the bound */
	lb_buf key;              /* scratch: a record's URL key */
	/* transaction batching */
	int in_tx;
	unsigned pending;
	int failed_db;
	lb_error err;            /* the run's failure */
	/* the source being read */
	ant_store_source *src;
	int src_first_read;      /* never read successfully before this run */
	int64_t src_entry_floor; /* Atom: the newest entry date read before this run */
	/* trust (update_trust.c): the thresholds, and the source being read's standing */
	ant_trust_limits trust;
	int trust_loaded;
	int src_hints;           /* its claims trigger early checks */
	int src_held;            /* a relay source held back: no events, not published */
	ant_source_budget bud;   /* its budgets and last read (update_budget.c) */
	ant_update_stats st;     /* counters for the summary */
	ant_fetch_limits lim;    /* o->limits with the run's pool */
	ant_fetch_pool *pool;    /* connections and politeness for the whole run */
	struct upd_robots *robots;   /* update_robots.c: each origin's robots.txt */
	struct upd_siblings *tmpl;   /* update_site.c: siblings to fetch after the batch */
	int diff_max_read;       /* update_diff.c: the bound on kept texts, read */
	size_t diff_max;
	struct upd_diffs *diffs; /* update_diff.c: its streams and buffers, kept for the run */
	/* several checkers over one PostgreSQL (update_lease.c) */
	char checker[256];       /* this run's id in the leases */
	int64_t lease_ms;        /* how long a claim holds */
	lb_buf claimed;          /* the servers of the claim, a line each */
	int sharing;             /* claims, not the run lock: answers checked against the lease */
	ant_store_renewer *renewer;   /* the claim's lease kept while worked on */
};

/* ---- update_run.c: the run's means ---- */

/* The one way to the network: the caller's fetcher (tests), else libcurl. */
int ant_upd_fetch(struct upd *u, const ant_fetch_req *reqs, size_t n, ant_fetch_done_fn done,
		  void *ctx);
/* The pages' way: reqs[i] whose render[i] is set (a page added with
 * --render) are rendered by headless chromium (ant_render.h), one at a
 * time under the machine's render lock, after the others are fetched and
 * outside their transfers; the others go to ant_upd_fetch().  done() is
 * called for every request either way. */
int ant_upd_fetch_pages(struct upd *u, const ant_fetch_req *reqs, const unsigned char *render,
			size_t n, ant_fetch_done_fn done, void *ctx);
/* The run's transaction: begun when needed, committed every
 * ANT_UPDATE_BATCH writes (tick) or at a seam (commit).  A failure sets
 * u->failed_db and u->err; LB_EDB (or the store's code) is returned. */
int ant_upd_tx_need(struct upd *u);
int ant_upd_tx_commit(struct upd *u);
void ant_upd_tx_tick(struct upd *u);
/* Moves p to p->redirect_to (ant_store_page_move()); 0 or < 0. */
int ant_upd_move_page(struct upd *u, ant_store_page *p);
/* The page written, with an update event when event is set. */
int ant_upd_save_page(struct upd *u, ant_store_page *p, int event);
/* The update event of a saved page, as it stands (the one builder of a
 * page's event: a check's and a recall's; borrowed strings). */
atom_ev_event ant_upd_event_of_page(const ant_store_page *p, int64_t tz);
/* *dst = a copy of v (NULL: none); out of memory, *dst is kept. */
void ant_upd_set_str(char **dst, const char *v);
int64_t ant_upd_mono_ms(void);
/* An answer that is no answer: a transport error, a status below 200 or
 * from 400. */
int ant_upd_http_failed(const ant_fetch_result *res);
/* Why it failed: the fetcher's words, else "HTTP status N" in b[n]. */
const char *ant_upd_error_text(const ant_fetch_result *res, char *b, size_t n);
/* Validators: replaced by a 200's (even by none), refreshed by a 304's. */
void ant_upd_take_validators(char **etag, char **lm, const ant_fetch_result *res);

/* ---- update_lease.c: a checker among several (PostgreSQL) ---- */

/* Before the pages: the run's checker id and lease, every page's server
 * known.  0 or LB_EDB (u->failed_db). */
int ant_upd_shared_begin(struct upd *u);
/* The next claim into out (max pages): 1 with *n pages, leased; 0 when
 * nothing is left to claim and no other checker holds a server (waiting
 * while one does); LB_EDB (u->failed_db). */
int ant_upd_claim(struct upd *u, ant_store_page *out, size_t max, size_t *n);
/* After a claim's batch is committed: the servers' waits written, the
 * pages and servers given back.  0 or LB_EDB. */
int ant_upd_release(struct upd *u);
/* After the last claim: the renewals stopped. */
void ant_upd_shared_end(struct upd *u);
/* Before anything of p's answer is written: 1 p is still this checker's
 * (always, unshared), its row locked until the transaction ends; 0
 * another checker took it once this one's lease ran out (counted; the
 * answer is dropped, nothing written) or the database failed
 * (u->failed_db). */
int ant_upd_lease_held(struct upd *u, const ant_store_page *p);

/* ---- update_robots.c ---- */

/* Before a batch is fetched: the robots.txt of the origin of every page
 * i with due[i] is known (database or fetched).  0 or < 0. */
int ant_upd_robots_prepare(struct upd *u, const unsigned char *due);
/* 1: fetch p; 0: robots.txt keeps it out (or its server is unreachable),
 * which is recorded as p's check. */
int ant_upd_robots_gate(struct upd *u, ant_store_page *p);
/* 1: fetch p's feed; 0: the robots.txt of its origin, known in this run
 * (the page's own, mostly), disallows it: p's feed_error says so and the
 * page's own text decides its check.  A feed on an origin not asked in
 * this run is fetched (its robots.txt is not asked for a feed). */
int ant_upd_robots_feed(struct upd *u, ant_store_page *p);
/* 1: url (a sibling page, update_sibling.c) may be fetched: its origin's
 * robots.txt, known in this run, allows it; 0: not, or not known. */
int ant_upd_robots_url(struct upd *u, const char *url);
void ant_upd_robots_free(struct upd *u);

/* ---- update_sources.c ---- */

/* Every source read, in one fetch run for LIRS and DI, one by one for
 * Atom; 0, or LB_ENOMEM / the fetcher's code when transfers could not be
 * set up. */
int ant_upd_read_sources(struct upd *u, ant_store_source *srcs, size_t n);

/* ---- update_srcrec.c ---- */

/* What SRC says of the URL with key KEY, kept in source_records (the
 * path every source's records take; ant_store_srcrec): 0 or < 0. */
int ant_upd_remember(struct upd *u, const ant_store_source *src, const char *key, const char *url,
		     int64_t lm, int64_t ld);
/* The same with the record's title, excerpt, author and length; with
 * news (a page not watched here), *news says whether a relay source's
 * record is news to relay (an update event).  0 or < 0. */
int ant_upd_remember_record(struct upd *u, const ant_store_source *src, const char *key,
			    const char *url, int64_t lm, int64_t ld, const char *title,
			    const char *excerpt, const char *author, int64_t length, int *news);
/* Counts and state of a source read, saved in one transaction. */
void ant_upd_source_finish(struct upd *u, ant_store_source *src, int notmodified);

/* ---- update_sitemap.c ---- */

/* A sitemap source read (its index's children too, within
 * u->o->sitemap), its state saved. */
void ant_upd_read_sitemap(struct upd *u, ant_store_source *src);
/*
 * A sitemap says the watched page p changed at `when`: update_trust.c's hint
 * (ant_upd_trust_hint(): a claim our next check judges, the page checked
 * in this run when the source is believed; dated by it only when the page
 * cannot be checked), the page saved.  A page never checked is due anyway
 * (no claim).  1 hinted, 0 not, < 0 error.
 */
int ant_upd_source_hint(struct upd *u, const ant_store_source *src, ant_store_page *p, int64_t when);

/* ---- update_trust.c: sources' claims are hints, judged by our checks ---- */

/* Before a source's records: its standing (u->src_hints, u->src_held). */
void ant_upd_trust_source(struct upd *u, const ant_store_source *src);
/* After them, in the source's transaction: its standing kept. */
void ant_upd_trust_finish(struct upd *u, const ant_store_source *src);
/* The source being read says watched page p was updated at lm (detected
 * at ld).  A hint: a claim for our checks to judge, and the page due now
 * when the source is believed; dated by it only when the page cannot be
 * checked (then *dated, and an event is the caller's).  1 when p changed
 * (to be saved), 0 not, < 0 the database's failure. */
int ant_upd_trust_hint(struct upd *u, ant_store_page *p, int64_t lm, int64_t ld, int *dated);
/* Our check of p (out) judges the sources' claims pending for it. */
void ant_upd_trust_checked(struct upd *u, const ant_store_page *p, const ant_detect_outcome *out);
/* The newest time a believed source (LIRS, HINA-DI, Atom, sitemap; its
 * trust not below --trust-hint, or not scored yet) gives page p after
 * `after`, never after our clock: it dates a change our check holds
 * (update_text.c).  0 when none. */
int64_t ant_upd_trust_corroborates(struct upd *u, const ant_store_page *p, int64_t after);
/* A page we cannot check (its check failed, robots.txt keeps us out):
 * dated by the newest record of a believed source (LIRS, HINA-DI, Atom,
 * sitemap) newer than its update time and than our last successful check
 * (it saw the page after an older claim).  A quiet first check with no
 * time of its own (first): the newest such record up to now, a sitemap's
 * excepted (it cannot refute them).  Never after our clock; its source URL
 * the source's, ant_detect_relay()'s mark, its schedule kept.  1 when
 * dated, 0 not. */
int ant_upd_trust_date(struct upd *u, ant_store_page *p, int first);
/* ---- update_budget.c: a source's budgets (ant_source_budget.h) ---- */

/* The source's turn begins: its row loaded into u->bud (0 or < 0). */
int ant_upd_budget_begin(struct upd *u, ant_store_source *src);
/* 1: the body is the one read last (not read again; a hina.txt's records
 * detected again), 0: read it. */
int ant_upd_budget_same(struct upd *u, const ant_fetch_result *res);
/* A body is about to be read (a LIRS body, an Atom source's run). */
void ant_upd_budget_read(struct upd *u);
/* The body just read, remembered by its digest (by_fetch: hina.txt). */
void ant_upd_budget_body(struct upd *u, const ant_fetch_result *res, int by_fetch);
/* 1: read one more record, 0: the body's budget is spent (stop). */
int ant_upd_budget_record(struct upd *u);
/* 1: this news may be an update event, 0: over the budget (held). */
int ant_upd_budget_news(struct upd *u);
/* A record the source had before (had), with a newer Last-Modified. */
void ant_upd_budget_seen(struct upd *u, int had, int newer);
/* The source's turn is over, in the run's transaction: churn, the pages
 * it relays, the row written, the run's counts. */
void ant_upd_budget_finish(struct upd *u, ant_store_source *src);

/* ---- update_check.c: a page's check, resumed by each answer ---- */

/* The fetch callbacks (ant_fetch.h) of a page (req->user: the page), its
 * feed, and its second fetch.  A batch's run on fetch's helper thread
 * (limits->done_aside), one at a time. */
void ant_upd_page_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res);
void ant_upd_feed_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res);
void ant_upd_refetch_done(void *ctx, const ant_fetch_req *req, const ant_fetch_result *res);
/* A check parked for the feed it named for the first time, once that
 * feed's round is over (read or not): decided and saved. */
void ant_upd_new_feed_read(struct upd *u, ant_store_page *p);
/* Frees what the page's check holds, parked or not, and zeroes it. */
void ant_upd_check_release(struct upd_check *c);

/* update_text.c.  The site's furniture out of info's segments (not with
 * --only or --no-auto-ignore); 0 or LB_ENOMEM. */
int ant_upd_furniture(struct upd *u, const ant_store_page *p, const ant_fetch_result *res,
		      ant_page_info *info, ant_furniture *f, int keep);

/* Did the page's last check leave furniture out (its text state says so)? */
int ant_upd_had_furniture(const ant_store_page *p);

/* Did the page hold still at its last checks (found as the check before,
 * clocks and furniture aside; a 304 counts: the token state's quiet
 * checks, as the stillness rule counts them), enough of them for its
 * small change to be decided without a second fetch? */
int ant_upd_was_still(const ant_store_page *p);

/* Did the operator name the part of the page read (--only patterns)?
 * Then a change there is news in its own check, numbers and small swaps
 * included (ANT_DETECT_WATCHED, ANT_TOKENS_WATCHED). */
int ant_upd_watched(const ant_store_page *p);

/* ---- update_site.c ---- */

/* The template of p's site (its other pages' keys, fresh) into *t
 * (released by ant_upd_site_release()); with res, the page the only
 * one known of its site, a sibling is noted in u->tmpl. */
void ant_upd_site_load(const struct upd *u, const ant_store_page *p, const ant_fetch_result *res,
		       struct upd_site *t);
void ant_upd_site_release(struct upd_site *t);
/* The sites' rows read for the batch, dropped (after each batch, and at
 * the end of the run). */
void ant_upd_site_forget(const struct upd *u);
/* Is url still the only page of site kept (no other watched page's keys,
 * fresh)?  A batch's other pages of the site may have come since it
 * noted a sibling. */
int ant_upd_site_alone(struct upd *u, const char *site, const char *url);
/* url's keys (info's; NULL: none, a failed sibling's attempt) kept for its
 * site.  0 or < 0. */
int ant_upd_site_keep(struct upd *u, const char *url, int sibling, const ant_page_info *info);
/* Is info (a sibling's answer) the page url itself under another URL
 * ("/" and "/index.html"): 9 of 10 keys the same as url's kept ones? */
int ant_upd_site_same_page(struct upd *u, const char *site, const char *url, const ant_page_info *info);
/* The first link of body (len bytes, at base) to another page of site,
 * malloc'd, or NULL. */
char *ant_upd_site_sibling(const char *base, const char *site, const char *body, size_t len);

/* ---- update_sibling.c ---- */

/* The siblings noted in this batch fetched (robots.txt and the run's
 * politeness as any check) and their keys kept.  0 or < 0. */
int ant_upd_siblings(struct upd *u);
void ant_upd_siblings_free(struct upd *u);
/* The noise rule's state from the page's column (empty and LB_EPARSE when none). */
int ant_upd_noise_of(const ant_store_page *p, ant_detect_noise *ns);
/* The token rule after the noise rule's verdict v: in->noise_* and
 * *excerpt completed; its state kept for ant_upd_keep_text(). */
void ant_upd_tokens(struct upd *u, ant_store_page *p, ant_detect_noise *ns, const ant_page_info *info,
		    const ant_detect_verdict *v, ant_detect_input *in, char **excerpt);
/* Changes held at an earlier check confirmed by a 304 (from 0: *excerpt,
 * when NULL, gets the held text kept then), or those held at this check
 * released when another rule announced it (from = now; excerpt NULL); the
 * page's column rewritten.  The earliest first sighting of those
 * confirmed, 0 none. */
int64_t ant_upd_held_confirm(struct upd *u, ant_store_page *p, int64_t from, char **excerpt);
/* The page's feed has an entry on a view of the page (its diff, a
 * revision), or a newer entry about the page, dated t: a change held in
 * this check, when t is after our last check, is confirmed (in->noise_*,
 * dated t, never after our clock). */
void ant_upd_feed_confirms(struct upd *u, ant_store_page *p, ant_detect_input *in, int64_t t);
/* The page's column: the noise rule's blob, the token state, the furniture. */
void ant_upd_keep_text(struct upd *u, ant_store_page *p, const unsigned char *noise, size_t noise_len);

/* update_diff.c.  The compared text of an analysed answer of p into
 * f->text (ns: the parts learned volatile, left out); not built when the
 * text rule found no change and p's text is kept already (nothing to
 * write). */
void ant_upd_diff_text(struct upd *u, const ant_store_page *p, const ant_page_info *info,
		       const ant_detect_noise *ns,
		       struct upd_found *f);
/* The page's kept text and diff after the decision (ant_difftext.h);
 * a failure costs the diff page only. */
void ant_upd_diff_save(struct upd *u, ant_store_page *p, const struct upd_found *f,
		       const ant_detect_outcome *out);
/* The text kept for p's diff (the text of its last update, or of its
 * first check), unpacked into a buffer of the run (valid until the next
 * call into this file): its bytes, NULL (*len 0) when none is kept. */
const char *ant_upd_diff_kept(struct upd *u, const ant_store_page *p, size_t *len);
/* What the two above kept for the run (zlib's streams, buffers), freed. */
void ant_upd_diff_free(struct upd *u);

#endif
