/*
 * atom.h: the Atom writer (RFC 4287) and the RFC 5005 document set.
 *
 *   DIR/index.atom      subscription document (RFC 5005 §4): the events
 *                       not yet archived, newest first, prev-archive link
 *   DIR/archive/N.atom  archive documents, N = 1.. oldest first, page_size
 *                       events each, fh:archive; written once when full,
 *                       later only the next-archive link is added, once
 *   DIR/current.atom    complete feed (RFC 5005 §2, fh:complete): one entry
 *                       per URL, the records fresh now; streamed
 *                       (atom_publish_later()) and past its caps, the
 *                       newest records only, not complete, with the
 *                       archives' prev-archive link (RFC 5005 §4)
 *
 * An archive's bytes are a pure function of its events, the title and
 * author it was sealed with, the base URL and whether archive N+1 exists:
 * no run time, no program version.  All files are replaced atomically.
 * This file holds the project's one XML escaper and its one writer of
 * Atom documents (atom.c's xw_* functions): no other code writes XML.
 */
#ifndef ATOM_H
#define ATOM_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"
#include "atom_evstore.h"

#define ATOM_DEFAULT_PAGE_SIZE 50

/*
 * current.atom's caps (atom_cfg), for a feed readers can fetch: 10,000
 * entries are about 4.5 MB; the bytes bound titles and summaries of any
 * length.  Past either, current.atom lists the newest records that fit
 * and says it is not complete (no fh:complete; a prev-archive link to the
 * newest archive, so the RFC 5005 §4 history is found from it).
 */
#define ATOM_CURRENT_MAX_ENTRIES 10000
#define ATOM_CURRENT_MAX_BYTES 10000000

/* atom_xml_escape() modes */
enum {
	ATOM_XML_TEXT = 0,  /* character data: & < > " ' escaped */
	ATOM_XML_ATTR = 1,  /* an attribute value: also TAB, LF, CR as references */
	ATOM_XML_MIN = 2    /* character data, only & < > escaped (XML 1.0 §2.4):
	                  for ids, whose bytes must stay what they were */
};

/*
 * Appends s as XML character data or an attribute value (mode above):
 * escapes & < > " ', removes characters XML 1.0 §2.2 forbids (C0 controls
 * other than TAB, LF, CR; U+FFFE, U+FFFF) and writes U+FFFD for each byte
 * that is not valid UTF-8 (surrogates and overlong forms included).  In
 * attributes TAB, LF and CR become character references so they survive
 * attribute-value normalisation.  The only way data gets into an Atom
 * document.  Returns 0, or -1 when out of memory.
 */
int atom_xml_escape(lb_buf *out, const char *s, int mode);

/* atom_iri() modes */
enum {
	ATOM_IRI_TAG = 0,   /* RFC 4151's specific part: ipchar / "/" / "?"; "%" is data */
	ATOM_IRI_REF = 1    /* an IRI reference: also "#" (once), "[" "]" in the
	                  authority, and "%" when it starts an escape */
};
/*
 * Appends s to out as an IRI (RFC 3987 §2.2): every byte of what the mode
 * does not allow is percent-encoded (the UTF-8 bytes of a character not
 * allowed, each byte of invalid UTF-8: RFC 3987 §3.1), so a string that
 * was already allowed comes out byte for byte, and distinct strings stay
 * distinct.  Non-ASCII is kept when it is a ucschar (iprivate: in the
 * query only).  Returns 0, or -1 when out of memory.
 */
int atom_iri(lb_buf *out, const char *s, int mode);

/* RFC 3339 UTC ("2024-01-02T03:04:05Z") into buf (at least 21 bytes);
 * t is clamped to years 0000-9999. */
void atom_time(char *buf, size_t len, int64_t t);

/*
 * The one resolver of relative references (RFC 3986 §5.2), for every
 * layer that links libxml2: ref against base into out (reset first).
 * One policy: a ref that is already "http(s)://" and a host is taken as
 * written (RFC 3986 §5.2.2; an IRI's UTF-8 stays, atom_iri() escapes it
 * on output); an empty ref is none; anything else is resolved by
 * libxml2's xmlBuildURI().  The result must be http: or https: with a
 * host; with ATOM_RESOLVE_FILE a file: result of a file: base is kept
 * too (the antenna's --allow-file sites, tests and local mirrors).
 * Returns 0; LB_EINVAL when there is no such result (an empty ref, one
 * that does not parse, a target that is not http(s)); LB_ENOMEM.  On
 * failure out holds nothing useful.
 */
#define ATOM_RESOLVE_FILE 1u
int atom_resolve(lb_buf *out, const char *base, const char *ref, unsigned flags);

typedef struct atom_cfg {
	const char *base;      /* absolute http(s) URL where DIR is served */
	const char *title;     /* NULL = "<host> updates" */
	const char *author;    /* feed-level author; NULL = the base's host */
	int64_t page_size;     /* 0 = ATOM_DEFAULT_PAGE_SIZE */
	int64_t now;           /* Unix time: updated of empty feeds, tag date */
	const char *lang;      /* the summaries' language: NULL, "" or "en" English
	                          (`lirs atom`), "ja" Japanese (the antenna's
	                          default); sealed with each archive, whose file
	                          keeps it when written again (atom_evstore.h) */
	/* WebSub (W3C): the hubs named in the live documents (index.atom,
	 * current.atom) as <link rel="hub">, never in a sealed archive. */
	const char *const *hubs;
	size_t nhubs;
	/* When set, called with each entry of current.atom and the id it was
	 * given, in the document's order (the antenna's JSON Feed mirrors
	 * current.atom entry for entry); its nonzero return stops the write. */
	int (*on_current)(void *ctx, const atom_ev_event *e, const char *id);
	void *on_current_ctx;
	int64_t current_max_entries;  /* a streamed current.atom's caps (above): */
	int64_t current_max_bytes;    /* 0 = none; arrays and runs are never capped */
	/* When set: a page showing what an entry's update changed (the
	 * antenna's diff page), as a path under base into out: 1, or 0 for
	 * none.  Written as <link rel="related"> in index.atom and
	 * current.atom only: an archive's bytes never change. */
	int (*related)(void *ctx, const atom_ev_event *e, lb_buf *out);
	void *related_ctx;
} atom_cfg;

typedef struct atom_stats {
	size_t events_added;       /* new events recorded this run */
	int64_t archives_sealed;   /* archives that filled this run */
	int64_t archives_written;  /* archive files written (new, rewritten) */
	int64_t archives_total;
	size_t current_entries;
	int current_capped;        /* current.atom left records out: not complete */
} atom_stats;

/*
 * One run: records the new events (atom_evstore_add_run(), may be n_new = 0
 * when the caller added them itself), seals full archives, then writes
 * the archives still due, index.atom and current.atom (from cur[0..n_cur),
 * one entry each: the caller passes one event per URL) under dir.
 * The state remembers the base URL, the page size and the tag date of its
 * first run and refuses another base or page size.  When dir/index.atom
 * is missing every archive is written again (same bytes).  Returns 0, or
 * a negative LB_E* code with err.
 */
int atom_publish(atom_evstore *st, const char *dir, const atom_cfg *cfg,
		 const atom_ev_event *new_ev, size_t n_new,
		 const atom_ev_event *cur, size_t n_cur,
		 atom_stats *stats, lb_error *err);
/*
 * The same, with current.atom's records streamed by each(ctx, fn, fnctx,
 * err) only when current.atom is written, after the archives and
 * index.atom: each calls fn for every record, newest (Last-Modified)
 * first, since the first one dates the feed; so a site of any size is
 * written with one record in memory.  each returns 0, fn's nonzero
 * return, or a negative LB_E* code with err.
 */
typedef int (*atom_cur_each_fn)(void *ctx, atom_ev_event_fn fn, void *fnctx, lb_error *err);
int atom_publish_later(atom_evstore *st, const char *dir, const atom_cfg *cfg,
		       const atom_ev_event *new_ev, size_t n_new, atom_cur_each_fn each, void *ctx,
		       atom_stats *stats, lb_error *err);
/*
 * The same for a run staged with atom_ev_run_add() (`lirs atom`): its events
 * are added as atom_evstore_add_run() would add them, current.atom lists its
 * record per URL (atom_ev_run_each_latest()).  Every document is streamed to
 * its file, so memory does not grow with the events or the archives.
 */
int atom_publish_run(atom_evstore *st, const char *dir, const atom_cfg *cfg, atom_ev_run *run,
		     atom_stats *stats, lb_error *err);

#endif
