/*
 * ant_detect.h: the antenna's update decision and check scheduling.  Pure
 * logic over numbers: no I/O, no clock (the caller passes "now"), so every
 * rule is unit-tested (tests/unit/antenna/t_detect.c).
 *
 * The rules, in the order the classic antennas tried them
 * (doc/NOTES-lirs-in-the-wild.md, "How antennas detect an update"):
 *   header  a trusted Last-Modified newer than the one seen before, on a
 *           body that shows a change: the noise-proof rule's verdict when
 *           it decided, else the text checksum (a new Last-Modified on the
 *           same text, or on one with only noise moved, is no update: a
 *           header dates a change and makes none); a Last-Modified at or
 *           after the response's Date is "now" from a dynamic page and is
 *           not trusted.  A 304 says the page is the last answer: a change
 *           held then (noise_updated, by the caller) is confirmed;
 *   text    the checksum of the page's text changed (ant_page.h removes tags,
 *           scripts, comments and the ignored parts, and is charset-blind,
 *           so a charset flip or an ignored-part change is no update);
 *           With segments the text rule is ant_detect_noise_decide():
 *           the multiset of (block, normalised text) keys against the last
 *           check's, learned volatile blocks left out (see below).
 *   size    only when the page has no text checksum (not HTML, or it could
 *           not be analysed): Content-Length, else the body length, changed.
 *   feed    when the page has a feed (advertised by a <link
 *           rel="alternate"> or given with 'add --feed') that speaks of
 *           the page -- an entry whose link is the page, or the page being
 *           the feed's home (ant_feed_match()) -- with a believable date,
 *           the newest such date dates a change: a newer one is an update
 *           at that time (mark F) when the body shows a change; on a body
 *           that shows none (a 304, the same text, only noise moved) it is
 *           no update, only the feed's newest seen (a feed entry, like a
 *           Last-Modified, dates a change and makes none).  A site-wide feed's other entries never date the
 *           page (the caller passes no feed_usable then: the rules above
 *           decide), and no feed overrules a text change the noise-proof
 *           rule confirmed: that is an update, dated when first seen.
 * When the rule is not the header or the feed, the update time is the
 * detection time.  A page's first check is a quiet baseline (added or
 * imported alike): it takes a trusted Last-Modified or the feed's date
 * about the page, else the time stays unknown, and it is never an update.
 */
#ifndef ANT_DETECT_H
#define ANT_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "lb_error.h"

/* Scheduling limits (antenna(1)): interval ~ time since the last change. */
#define ANT_DETECT_MIN_INTERVAL 300          /* 5 minutes */
#define ANT_DETECT_MAX_INTERVAL 86400        /* 24 hours */
/* A Retry-After longer than this is capped (a week). */
#define ANT_DETECT_MAX_RETRY_AFTER (7 * 86400)

/* What the antenna remembers of a page between checks. */
typedef struct ant_detect_state {
	int64_t last_modified;   /* update time; 0 = no known update */
	int64_t last_detected;   /* last successful check (or relayed LIRS Last-Detected) */
	int64_t last_ok;         /* our own last successful check; 0 = never */
	int64_t last_check;      /* our own last attempt */
	int64_t lm_header_time;  /* last trusted Last-Modified header; 0 = none */
	int64_t content_length;  /* header value or body length; -1 = unknown */
	uint64_t text_hash;
	int has_hash;
	const char *detected_by; /* "header", "text", "size", "lirs", "feed", "atom" or NULL (static strings) */
	long last_status;        /* HTTP status of the last answer, 0 = none */
	int64_t next_check;      /* due at or after this; 0 = now */
	int64_t interval;        /* seconds between checks */
	int error_count;         /* consecutive failed checks */
	int recheck;             /* a LIRS source reported a newer update */
	int quiet_first;         /* imported (antenna import); every page's first
				    check is now a quiet baseline (ant_detect_apply) */
	int64_t feed_time;       /* the page's feed's newest entry date seen; 0 = none */
} ant_detect_state;

void ant_detect_state_init(ant_detect_state *st);

/* What one check brought back (from ant_fetch_result and ant_page_info). */
typedef struct ant_detect_input {
	int failed;              /* no usable answer: transport error or HTTP error */
	long status;             /* HTTP status, 0 = none */
	int64_t lm_time;         /* parsed Last-Modified, 0 = none */
	int64_t date_time;       /* parsed Date, 0 = none */
	int64_t content_length;  /* header, -1 = none */
	int64_t body_len;        /* bytes of the (decoded) body */
	int has_hash;            /* the body was analysed as HTML text */
	uint64_t text_hash;
	int64_t retry_after;     /* seconds, 0 = none */
	int feed_usable;         /* the page's feed answered with a believable newest
				    entry date (a 304 counts with the date seen before) */
	int64_t feed_time;       /* that date */
	int64_t max_future;      /* the --max-future rule (lirs_merge_future()):
				    0 = LIRS_DEFAULT_MAX_FUTURE, < 0 = off */
	/* The noise-proof text rule (ant_detect_noise_decide()), when it could
	 * decide: it beats the text checksum. */
	int noise_decided;
	int noise_updated;       /* its verdict */
	int64_t noise_time;      /* the update time when earlier than now (a held
				    change confirmed); 0 = now */
	int no_news;             /* the text rules found no news in the page's own
				    text: nothing changed in it but clocks (a stamp
				    moved to a moment since the last check, an
				    age: ant_tokens.h), maybe the site's furniture
				    around it; a new Last-Modified dates no change */
	/* The page is gone (ant_pagestate.h): its next check this many
	 * seconds after now, whatever the rules would schedule; 0 = not gone. */
	int64_t gone_interval;
} ant_detect_input;

typedef struct ant_detect_outcome {
	int updated;             /* an update event: last_modified changed */
	const char *rule;        /* the rule that decided, or NULL */
	int first;               /* the page's first successful check */
	int unchanged;           /* success, nothing new (304 or same content) */
} ant_detect_outcome;

/* Is a Last-Modified trustworthy?  Not when it is the response's Date or
 * later, nor our clock or later when there is no Date; and not when it is
 * more than max_future ahead of our clock (the one --max-future rule,
 * lirs_merge_future()): such a header counts as no Last-Modified, the
 * other rules decide.  A Date that far ahead (a server whose clock runs
 * ahead) counts as no Date. */
int ant_detect_lm_believable(int64_t lm_time, int64_t date_time, int64_t now,
			     int64_t max_future);
/* ant_detect_lm_believable() with the default max_future. */
int ant_detect_lm_trusted(int64_t lm_time, int64_t date_time, int64_t now);

/*
 * Applies one check made at time now to *st and says what happened.  On a
 * failure the page's update state is kept; only the error count, status
 * and schedule change.
 */
void ant_detect_apply(ant_detect_state *st, const ant_detect_input *in, int64_t now,
		  ant_detect_outcome *out);

/*
 * A LIRS source reports (lm, ld) for a watched page.  When lm is newer
 * than the page's update time the record wins (merge rule: greater
 * Last-Modified), the page takes it as a "lirs" update and is flagged for
 * re-checking by the antenna itself.  The caller first drops records the
 * merge rule refuses (lirs_merge_check_at(): unusable, from the future, stale),
 * so that lirs merge and the antenna treat a record alike; a time within
 * --max-future but after now is clamped to now (no page is dated after our
 * clock).  The update engine calls it only for a page it cannot check
 * (update_trust.c).  Returns 1 when the record won.
 */
int ant_detect_relay(ant_detect_state *st, int64_t lm, int64_t ld, int64_t now);

/*
 * The other doors to a page's schedule, decided here too:
 *
 * ant_detect_keep_out: a page not fetched at now because its site asks
 * so (robots.txt): checked without a status, its re-check flag cleared,
 * considered again after `again` seconds; its update state and error
 * count are kept.
 *
 * ant_detect_claim: a believed source claims an update newer than our
 * last check (trust.c): the page is re-checked at the next run.  Returns
 * 1 when that is new, 0 when it was already flagged.
 *
 * ant_detect_imported: an import says the page was updated at lm (seen
 * at ld, by rule `by`, borrowed: a static name): taken when newer than
 * the page's update time (the merge rule), ld only when later than ours.
 * Returns 1 when taken.
 */
void ant_detect_keep_out(ant_detect_state *st, int64_t now, int64_t again);
int ant_detect_claim(ant_detect_state *st);
int ant_detect_imported(ant_detect_state *st, int64_t lm, int64_t ld, const char *by);

/* The page is due at now (or force). */
int ant_detect_due(const ant_detect_state *st, int64_t now, int force);

/* Schedules the next check after a success / a failure (used by ant_detect_apply). */
void ant_detect_schedule_ok(ant_detect_state *st, int64_t now);
void ant_detect_schedule_error(ant_detect_state *st, int64_t now, int64_t retry_after);

/* ---- the noise-proof text rule ----------------------------------------------
 *
 * A page's text is a multiset of segments, each keyed by its block (a hash
 * of its place: element path with ids and classes, no positions) and its
 * normalised text (volatile tokens -- numbers, times, dates, weekdays,
 * relative times -- replaced; ant_page.h).  A check is compared with the last
 * one as multisets, so the same items in another order, or changed only in
 * volatile tokens, are no update.  A key the last check did not have (or
 * had fewer of) is news; keys that disappeared alone are no update (an
 * entry deleted, an item scrolled off: the page has nothing new to read).
 * The words decide, the place is the tie-breaker: a text new in one block
 * that left another block in the same check only had its markup changed
 * (a calendar's "today" class moving, an item losing its "new" class, an
 * id renumbered) and is neither new nor lost (detect_noise_cmp.c).  The
 * place stays in the key because the rest of the rule names blocks.
 *
 * Volatile words: when only some words of a block differ between an
 * answer and its re-fetch (a per-request token, a random id, a nonce
 * beside the author's words), those runs of words are learned, known by
 * the words around them (ant_detect_wblock), and masked out of the
 * block's norms from then on (detect_noise_words.c): the block is not
 * learned whole and its other words' edits are news.  A block whose news
 * is a few segments replaced one for one is re-fetched whatever its size,
 * for this.  A block learning its first volatile words cannot compare the
 * segments holding them with the last check's (their hashes hold the old
 * token) and leaves those out of that check's news only.  A block most of
 * whose text differs, or whose differing words are whole segments, is a
 * widget for the block rules below.
 *
 * Volatile blocks are learned per page and then take no part in the
 * decision or the excerpt:
 *   re-fetch  when a check brings news in small blocks only, the caller
 *             fetches the page again after a short pause
 *             (ant_detect_verdict.refetch); a block whose keys differ between
 *             the two answers is held back for the check (the author may
 *             have saved in between); when it differs again between the
 *             two answers of a later check (within ANT_NOISE_WINDOW) it is a
 *             per-request widget (counter, clock, rotating ad, random
 *             token) and is learned; when the next check finds it changed
 *             and steady, its change was real and is announced then.  A
 *             block too big to be volatile loses only the keys that differ
 *             (a post that arrived between the two answers), its other
 *             news stands.
 *   checks    a small block (at most ANT_NOISE_LONE_SEGS segments) whose
 *             content is replaced 1:1 while nothing else on the page is new
 *             is held back, not announced; when it is replaced again at a
 *             later check (within ANT_NOISE_WINDOW), or its new text is one
 *             it showed before, it is a rotating widget (quote of the day,
 *             weather) and becomes volatile; when the next check finds it
 *             unchanged the change was real and is announced then, dated
 *             when it was first seen.  Beside other news, a small swap is
 *             part of the update when it is next to that news in the
 *             document (a new entry's heading), else it is only watched.
 * A learned block whose text then stays the same for ANT_NOISE_UNLEARN
 * is unlearned: it takes part again (a widget removed, a part that has
 * become text).
 * Never more than ANT_NOISE_VOLATILE_PCT percent of a page's text is
 * learned volatile, so a page that really changes on every check (or its
 * main text) is announced every time.
 * The rule is detect_noise.c; the comparison it decides from,
 * detect_noise_cmp.c; the volatile words, detect_noise_words.c; the
 * stored state (encode, decode), detect_noise_blob.c.
 */
#define ANT_NOISE_MAX_VOLATILE 32     /* learned blocks kept per page */
#define ANT_NOISE_MAX_SUSPECTS 16     /* small blocks seen changing, kept per page */
#define ANT_NOISE_MAX_SEEN 4          /* texts remembered per such block */
#define ANT_NOISE_PATH 64             /* bytes of a learned block's path kept */
#define ANT_NOISE_SAMPLE 64           /* bytes of its text kept */
#define ANT_NOISE_VOLATILE_PCT 40     /* of the page's text, at most */
#define ANT_NOISE_LONE_SEGS 3         /* segments of a "small" swapped block */
#define ANT_NOISE_SMALL_PCT 20        /* of the page's text, a small block's at most */
#define ANT_NOISE_WINDOW (7 * 86400)  /* a second swap (or race) within this: volatile */
#define ANT_NOISE_UNLEARN (14 * 86400) /* a learned block unchanged this long is unlearned */
#define ANT_NOISE_MAX_KEYS 512        /* = ANT_PAGE_MAX_SEGMENTS */
#define ANT_NOISE_MAX_WBLOCKS 16      /* blocks with volatile words kept per page */
#define ANT_NOISE_MAX_WCTX 4          /* runs of volatile words kept per block */
#define ANT_NOISE_WORD_PCT 50         /* of a block's text differing, at most, for
					 its words to be volatile (more: the block) */
#define ANT_NOISE_EDGE 0x45444745u    /* a segment's edge, as a neighbouring word */
/* Bits of a segment's text hash the rule keeps (and stores: 3 bytes a
 * key, not 4).  A change is missed only when every new text of a block
 * hashes like one that left it: about 1 in 16 million per replaced
 * segment; a key that is new, or more often there than before, is news
 * whatever it collides with. */
#define ANT_NOISE_NORM_BITS 24
#define ANT_NOISE_NORM_MASK ((1u << ANT_NOISE_NORM_BITS) - 1)

/* One segment of a check, in document order (from ant_page.h's ant_page_seg). */
typedef struct ant_detect_seg {
	uint32_t block;          /* hash of its place */
	uint32_t norm;           /* hash of its normalised text */
	uint32_t len;            /* bytes of its text */
	const char *text;        /* its text (len bytes, borrowed), for the volatile
				    words; NULL: not known (none are masked, none
				    learned) */
} ant_detect_seg;

enum { ANT_NOISE_REFETCH = 1, ANT_NOISE_CHECKS = 2 };

/* A block learned volatile. */
typedef struct ant_detect_vblock {
	uint32_t block;
	int64_t since;           /* when it was learned */
	int how;                 /* ANT_NOISE_REFETCH or ANT_NOISE_CHECKS */
	char path[ANT_NOISE_PATH];    /* its place, "body>div#side>p" (ant_page.h), its
					 end kept when long; "" unknown */
	char sample[ANT_NOISE_SAMPLE];/* its text when learned, clipped; "" none */
	int64_t changed;         /* its text last seen changing; 0 = not known yet */
	uint32_t sig;            /* its text then (an order-blind sum of its norms) */
} ant_detect_vblock;

/* A small block seen swapping its content, not (yet) volatile. */
typedef struct ant_detect_suspect {
	uint32_t block;
	int64_t last;            /* its last swap */
	int changes;             /* swaps seen */
	int64_t pending;         /* a held change: when first seen; 0 = none */
	uint32_t pending_norm;   /* its new text */
	uint32_t seen[ANT_NOISE_MAX_SEEN];  /* texts it showed, newest first */
	int nseen;
	int64_t raced;           /* it differed between two answers of one check,
				    then; held back, not learned; 0 = never */
	uint32_t raced_sig;      /* its text in the second answer (a sum of norms):
				    found so at the next check, the change was real */
} ant_detect_suspect;

/* Volatile words: a run of words that differed between an answer and its
 * re-fetch, known by its neighbours (the words just before and after it,
 * ANT_NOISE_EDGE at a segment's edge, digits folded) and its length. */
typedef struct ant_detect_wctx {
	uint32_t left, right;    /* hashes of the neighbouring words */
	unsigned char words;     /* words in the run */
	uint32_t last;           /* what it masked at the last check (a sum of the
				    runs' hashes; 0 = not yet): the same again, the
				    words are the author's and the context goes */
} ant_detect_wctx;

/* A block with volatile words: its other words still count. */
typedef struct ant_detect_wblock {
	uint32_t block;
	int64_t since;           /* when its words were first learned */
	int64_t seen;            /* a volatile word last found (and masked) */
	ant_detect_wctx ctx[ANT_NOISE_MAX_WCTX];   /* newest first */
	int nctx;
	char path[ANT_NOISE_PATH];    /* as ant_detect_vblock's */
	char sample[ANT_NOISE_SAMPLE];/* its text, the volatile words as "…" */
} ant_detect_wblock;

/* What is remembered of a page's text between checks. */
typedef struct ant_detect_noise {
	uint64_t *keys;          /* last check's multiset: block << 32 | norm (its
				    ANT_NOISE_NORM_BITS), sorted,
				    volatile blocks left out; malloc'd */
	size_t nkeys;
	int has_keys;            /* a check with segments was seen */
	ant_detect_vblock vol[ANT_NOISE_MAX_VOLATILE];
	size_t nvol;
	ant_detect_suspect sus[ANT_NOISE_MAX_SUSPECTS];
	size_t nsus;
	ant_detect_wblock words[ANT_NOISE_MAX_WBLOCKS];  /* blocks with volatile words */
	size_t nwords;
} ant_detect_noise;

/* init: every byte cleared.  clear: empty, its keys not freed (none
 * yet), the counts cleared and the entries past them left as they are
 * (never read: an entry added is cleared then, ant_detect_noise_decode()
 * clears each it reads), so that the state of every page's check is not
 * cleared whole (10 KB).  release: the keys freed, then clear. */
void ant_detect_noise_init(ant_detect_noise *n);
void ant_detect_noise_clear(ant_detect_noise *n);
void ant_detect_noise_release(ant_detect_noise *n);

/* *dst = *src as far as it is read: the counts, the keys' pointer (not
 * copied: shared) and the entries up to the counts (a state is 10 KB,
 * mostly entries unused). */
void ant_detect_noise_copy(ant_detect_noise *dst, const ant_detect_noise *src);

/* The state as a compact blob (little-endian, versioned) and back.  encode:
 * 0 and a malloc'd *blob, or LB_ENOMEM.  decode: 0, or LB_EPARSE when the
 * blob is not one, cut or damaged (then *n is empty: the next check is a
 * baseline). */
int ant_detect_noise_encode(const ant_detect_noise *n, unsigned char **blob, size_t *len);
int ant_detect_noise_decode(ant_detect_noise *n, const void *blob, size_t len);

/* Would ant_detect_noise_confirm(from) of the blob decoded confirm a held
 * swap (a suspect's pending at or after from)?  1 yes, 0 no, LB_EPARSE
 * when the blob does not decode.  Read in place, no key kept: a 304's
 * check (most pages, most checks) holds nothing, and decodes nothing. */
int ant_detect_noise_holds(const void *blob, size_t len, int64_t from);

typedef struct ant_detect_verdict {
	int baseline;            /* no earlier multiset: nothing to compare with */
	int news;                /* keys new since the last check, outside volatile blocks */
	int refetch;             /* (scan) a second answer would tell noise from news */
	int updated;             /* (decide) the text rule says: an update */
	int64_t since;           /* (decide) the update time when a held change is
				    confirmed: when it was first seen; 0 = now */
	int held;                /* (decide) a small swap held until the next check */
	unsigned char *pick;     /* (decide) per segment: 1 = what the update added,
				    for the excerpt; malloc'd, NULL when nothing */
	unsigned char *aside;    /* (decide) per segment: 1 = a small swap's news
				    announced with the rest but not next to it (a
				    commit's message apart from its byline); the
				    excerpt's when the pick says only who and when;
				    malloc'd, NULL when none */
	uint32_t learned[ANT_NOISE_MAX_VOLATILE];  /* (decide) blocks learned now */
	size_t nlearned;
	uint32_t wlearned[ANT_NOISE_MAX_WBLOCKS];  /* (decide) blocks whose volatile
						      words were learned now */
	size_t nwlearned;
	size_t nunlearned;       /* (decide) learned blocks unlearned now, steady for
				    ANT_NOISE_UNLEARN */
} ant_detect_verdict;

void ant_detect_verdict_release(ant_detect_verdict *v);

/*
 * Should the page be fetched again before deciding?  Fills v->baseline,
 * v->news and v->refetch; changes nothing.  learn = 0 (--no-auto-ignore)
 * never asks for a re-fetch.
 */
void ant_detect_noise_scan(const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			   int learn, int64_t now, ant_detect_verdict *v);

/*
 * Decides the check whose segments are cur: second (may be NULL) is the
 * re-fetched answer's.  Learns volatile blocks (when learn), keeps cur's
 * multiset as the next check's reference and fills *v (release it).
 * learn may carry ANT_DETECT_WATCHED (with 1, learning on): the operator
 * named the part read (--only), so a small swap there is news at once,
 * never held or learned as a rotating widget (a price, the next meeting's
 * date); what differs between the two answers of one check is still
 * held back as a race.
 * Returns 0, or LB_ENOMEM (then *n is unchanged and v says baseline).
 */
#define ANT_DETECT_WATCHED 2
int ant_detect_noise_decide(ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			    const ant_detect_seg *second, size_t nsecond, int learn, int64_t now,
			    ant_detect_verdict *v);

/* Keeps in pick only the first run of picked segments (document order;
 * segments of volatile blocks do not break a run): the excerpt shows the
 * first thing the update added, as the excerpts always did. */
void ant_detect_pick_first_run(const ant_detect_noise *n, const ant_detect_seg *cur, size_t ncur,
			       unsigned char *pick);

/* Describes a learned block for 'antenna show': its path (the end is kept
 * when too long) and its text (the start is kept), on character boundaries;
 * either may be NULL.  A block with volatile words takes its path (its
 * sample, its text with those words masked, the rule writes). */
void ant_detect_noise_label(ant_detect_noise *n, uint32_t block, const char *path, const char *text);

/*
 * Small swaps held at a check (ant_detect_suspect.pending) confirmed by
 * something other than the next answer's text (held.c): a 304 to our
 * conditional request (from 0: every held change; cur NULL), or a source
 * dating a change of the page within the check that held them (from =
 * that check's now: those held then).  They are no longer held; pick (may
 * be NULL) marks the segments of cur that show them, for the excerpt.
 * Returns the earliest first sighting of those confirmed, 0 when none.
 */
int64_t ant_detect_noise_confirm(ant_detect_noise *n, int64_t from, const ant_detect_seg *cur,
				 size_t ncur, unsigned char *pick);

/* The learned block, or NULL. */
const ant_detect_vblock *ant_detect_noise_find(const ant_detect_noise *n, uint32_t block);

/* The block with learned volatile words, or NULL (its words take part). */
const ant_detect_wblock *ant_detect_noise_words(const ant_detect_noise *n, uint32_t block);

#endif
