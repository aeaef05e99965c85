/*
 * atom.c: Atom documents and RFC 5005 archiving (atom.h), written through
 * atom_text.c's escaper.
 */
#include "atom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/uri.h>

#include "lb_afile.h"
#include "lb_url.h"

/* ---- the writer: the one path from data to XML --------------------------- */

/*
 * Every Atom document is written by the xw_* functions below.  Element and
 * attribute names, indentation and the XML declaration are literals of
 * this file (xw_markup()); every string that comes from data (URLs,
 * titles, authors, ids, times, summaries) goes through xw_data() and so
 * through atom_xml_escape().  Nothing else in this file writes XML.  Output is
 * streamed to the document's temporary file in XW_FLUSH-byte pieces, so a
 * document of any size costs bounded memory.
 */
#define XW_FLUSH 65536

typedef struct xw {
	lb_afile a;
	lb_buf out;        /* pending output */
	int failed;      /* out of memory or a write error: the document is abandoned */
	int oom;
	int errnum;      /* errno of a write error */
} xw;

static void xw_flush(xw *w)
{
	if (!w->failed && w->out.len && fwrite(w->out.data, 1, w->out.len, w->a.fp) != w->out.len) {
		w->errnum = errno ? errno : EIO;
		w->failed = 1;
	}
	lb_buf_reset(&w->out);
}

/* Literal markup of this file, never data. */
static void xw_markup(xw *w, const char *m)
{
	if (lb_buf_adds(&w->out, m) != 0)
		w->failed = w->oom = 1;
}

static void xw_data(xw *w, const char *s, int mode)
{
	if (atom_xml_escape(&w->out, s, mode) != 0)
		w->failed = w->oom = 1;
	if (w->out.len >= XW_FLUSH)
		xw_flush(w);
}

/* ind<name>text</name>LF */
static void xw_text_elem(xw *w, const char *ind, const char *name, const char *text, int mode)
{
	xw_markup(w, ind);
	xw_markup(w, "<");
	xw_markup(w, name);
	xw_markup(w, ">");
	xw_data(w, text, mode);
	xw_markup(w, "</");
	xw_markup(w, name);
	xw_markup(w, ">\n");
}

static void xw_elem(xw *w, const char *ind, const char *name, const char *text)
{
	xw_text_elem(w, ind, name, text, ATOM_XML_TEXT);
}

/* ind<name>LF or ind</name>LF */
static void xw_tag(xw *w, const char *ind, const char *open_close, const char *name)
{
	xw_markup(w, ind);
	xw_markup(w, open_close);
	xw_markup(w, name);
	xw_markup(w, ">\n");
}

static void xw_date(xw *w, const char *ind, const char *name, int64_t t)
{
	char when[32];

	atom_time(when, sizeof when, t);
	xw_elem(w, ind, name, when);
}

/* An atom:author with its atom:name; ind2 indents the name. */
static void xw_person(xw *w, const char *ind, const char *ind2, const char *name)
{
	xw_tag(w, ind, "<", "author");
	xw_elem(w, ind2, "name", name);
	xw_tag(w, ind, "</", "author");
}

static void xw_link(xw *w, const char *ind, const char *rel, const char *href)
{
	xw_markup(w, ind);
	xw_markup(w, "<link rel=\"");
	xw_data(w, rel, ATOM_XML_ATTR);
	xw_markup(w, "\" href=\"");
	xw_data(w, href, ATOM_XML_ATTR);
	xw_markup(w, "\"/>\n");
}

/* ---- the documents ------------------------------------------------------ */

/* More archives than this in one run are synced together (write_archives). */
#define ATOM_BATCH_SYNC 8
/* Archives due are fetched from the state this many at a time. */
#define ATOM_ARCHIVE_BATCH 256
/* At most this many archives wait, closed, for one syncfs() and their
 * renames (about 150 bytes each): 50,000 pages make 1,000 archives. */
#define ATOM_SYNC_MAX 4096

typedef struct feedctx {
	const atom_cfg *cfg;
	const char *dir;
	char *base;        /* cfg->base with a trailing '/' */
	char *host;        /* lowercased, for tag: URIs and the default author */
	char *tag;         /* "tag:host,YYYY-MM-DD:" (RFC 4151) */
	const char *title, *author;
	const struct sum_words *words;   /* the summaries' language, of the document */
	xw w;              /* the document being written */
	lb_buf tmp, iri, key;
	size_t entries;    /* written into the current document */
	int live;          /* the document is index.atom or current.atom */
	int batch_sync;    /* archives closed unrenamed, one syncfs, then renamed */
	lb_afile *pend;       /* closed temporary files of archives, not yet renamed */
	size_t npend, cappend;
	int related;       /* this document links cfg->related's pages (not an archive) */
	int tz_set;        /* tz holds tz_text() of tz_off (the same for most events) */
	int64_t tz_off;
	char tz[32];
	lb_error *err;     /* never NULL (publish()) */
} feedctx;


static int oom(feedctx *f)
{
	return lb_err_code(f->err, LB_ENOMEM);
}

/* The code of the error a callee has put in f->err. */
static int failed(const feedctx *f)
{
	return f->err->code < 0 ? f->err->code : LB_EIO;
}

/* LB_EIO or LB_ENOMEM with err when the document being written has failed. */
static int xw_status(feedctx *f)
{
	if (!f->w.failed)
		return 0;
	if (f->w.oom)
		return oom(f);
	errno = f->w.errnum;
	return lb_err_sys(f->err, "cannot write '%s'", f->w.a.path);
}

/* Opens DIR/rel's temporary file for a new document. */
static int doc_begin(feedctx *f, const char *rel)
{
	lb_buf path = LB_BUF_INIT;
	int rc = 0;

	f->w.failed = f->w.oom = f->w.errnum = 0;
	f->entries = 0;
	f->live = strcmp(rel, "index.atom") == 0 || strcmp(rel, "current.atom") == 0;
	lb_buf_reset(&f->w.out);
	if (lb_buf_addf(&path, "%s/%s", f->dir, rel) != 0)
		return oom(f);
	if (lb_afile_open(&f->w.a, path.data) != 0)
		rc = lb_err_sys(f->err, "cannot write '%s'", path.data);
	lb_buf_release(&path);
	return rc;
}

/* Ends the document and replaces DIR/rel with it when ok and all went
 * well; otherwise removes the temporary file.  0, or a negative code with
 * err (!ok: the error already there). */
static int doc_end(feedctx *f, int ok, int nosync)
{
	xw *w = &f->w;
	int st;

	xw_markup(w, "</feed>\n");
	xw_flush(w);
	if (!ok || (st = xw_status(f)) != 0) {
		lb_afile_abort(&w->a);
		return ok ? st : failed(f);
	}
	if (nosync) {   /* renamed after the batch's syncfs (write_batch()) */
		char *path = strdup(w->a.path);
		int rc = lb_afile_close_unrenamed(&w->a);

		lb_afile *v = NULL;

		if (rc == 0 && !(v = lb_grow(f->pend, &f->cappend, f->npend + 1, sizeof *v, 64))) {
			lb_afile_abort(&w->a);
			rc = oom(f);
		} else if (rc != 0) {
			rc = lb_err_sys(f->err, "cannot write '%s'", path ? path : "");
		} else {
			f->pend = v;
			f->pend[f->npend++] = w->a;
		}
		memset(&w->a, 0, sizeof w->a);
		free(path);
		return rc;
	}
	{
		char *path = strdup(w->a.path);
		int rc = lb_afile_commit(&w->a);
		if (rc != 0)
			rc = lb_err_sys(f->err, "cannot write '%s'", path ? path : "");
		free(path);
		return rc;
	}
}

/* f->iri = the IRI for BASE + path (RFC 3987 §3.1 for what is not an IRI). */
static int base_iri(feedctx *f, const char *path)
{
	lb_buf_reset(&f->tmp);
	lb_buf_reset(&f->iri);
	if (lb_buf_adds(&f->tmp, f->base) || lb_buf_adds(&f->tmp, path) ||
	    atom_iri(&f->iri, f->tmp.data, ATOM_IRI_REF))
		return oom(f);
	return 0;
}

/* A link of a feed to one of its documents: BASE + fmt with n. */
typedef struct doclink {
	const char *rel, *fmt;
	long long n;
} doclink;

/* The feed's head, up to its first entry. */
static int doc_head(feedctx *f, const char *id, const char *title, const char *author,
		    const doclink *links, size_t nlinks, const char *marker, int64_t updated)
{
	xw *w = &f->w;
	size_t i;

	xw_markup(w, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		  "<feed xmlns=\"http://www.w3.org/2005/Atom\""
		  " xmlns:fh=\"http://purl.org/syndication/history/1.0\">\n");
	lb_buf_reset(&f->tmp);
	if (lb_buf_adds(&f->tmp, f->tag) || lb_buf_adds(&f->tmp, id))
		return oom(f);
	xw_elem(w, "  ", "id", f->tmp.data);
	xw_elem(w, "  ", "title", title);
	xw_date(w, "  ", "updated", updated);
	xw_person(w, "  ", "    ", author);
	if (base_iri(f, "") != 0)
		return failed(f);
	xw_link(w, "  ", "alternate", f->iri.data);
	for (i = 0; i < nlinks; i++) {
		char path[64];
		snprintf(path, sizeof path, links[i].fmt, links[i].n);
		if (base_iri(f, path) != 0)
			return failed(f);
		xw_link(w, "  ", links[i].rel, f->iri.data);
	}
	for (i = 0; f->live && i < f->cfg->nhubs; i++) {
		lb_buf_reset(&f->iri);
		if (atom_iri(&f->iri, f->cfg->hubs[i], ATOM_IRI_REF))
			return oom(f);
		xw_link(w, "  ", "hub", f->iri.data);
	}
	if (marker) {
		xw_markup(w, "  ");
		xw_markup(w, marker);
		xw_markup(w, "\n");
	}
	xw_markup(w, "  <generator>lirs-antenna</generator>\n");
	return xw_status(f);
}

/* "UTC+9", "UTC+5:30", "UTC-3:30", "UTC" */
static void tz_text(char *buf, size_t len, int64_t off)
{
	int64_t a = off < 0 ? -off : off;

	if (off == 0)
		snprintf(buf, len, "UTC");
	else if (a % 3600 == 0)
		snprintf(buf, len, "UTC%c%lld", off < 0 ? '-' : '+', (long long)(a / 3600));
	else
		snprintf(buf, len, "UTC%c%lld:%02lld", off < 0 ? '-' : '+', (long long)(a / 3600),
			 (long long)(a % 3600 / 60));
}

/* The words of a summary with no excerpt, one table per language: the
 * language is data (atom_cfg.lang; an archive's is sealed with it). */
struct sum_words {
	const char *lang;
	const char *detected, *zone, *sep, *bytes, *unknown, *source;
};
static const struct sum_words sum_tab[] = {
	{ "", "Detected ", "; site time zone ", "; ", " bytes", "size unknown", "; source " },
	{ "ja", "検出 ", "、サイトの時間帯 ", "、",
	  " バイト", "サイズ不明", "、取得元 " },
};

/* The table of lang: "ja", else English (NULL, "", "en"). */
static const struct sum_words *sum_words_of(const char *lang)
{
	for (size_t i = 1; lang && i < sizeof sum_tab / sizeof sum_tab[0]; i++)
		if (strcmp(lang, sum_tab[i].lang) == 0)
			return &sum_tab[i];
	return &sum_tab[0];
}

/* The summary: the change excerpt when there is one, else when it was
 * detected, the site's time zone, size, source, in the document's language. */
static int add_summary(feedctx *f, const atom_ev_event *e)
{
	const struct sum_words *w = f->words ? f->words : &sum_tab[0];
	char when[32];

	if (e->excerpt && *e->excerpt) {   /* what the update added (change excerpt) */
		xw_elem(&f->w, "    ", "summary", e->excerpt);
		return 0;
	}
	atom_time(when, sizeof when, e->last_detected);
	if (!f->tz_set || f->tz_off != e->tz_offset) {   /* perf: one snprintf() per zone */
		tz_text(f->tz, sizeof f->tz, e->tz_offset);
		f->tz_off = e->tz_offset;
		f->tz_set = 1;
	}
	lb_buf_reset(&f->tmp);
	if (lb_buf_adds(&f->tmp, w->detected) || lb_buf_adds(&f->tmp, when) ||
	    lb_buf_adds(&f->tmp, w->zone) || lb_buf_adds(&f->tmp, f->tz) || lb_buf_adds(&f->tmp, w->sep) ||
	    (e->content_length > 0 ? lb_buf_addf(&f->tmp, "%lld%s", (long long)e->content_length, w->bytes)
				   : lb_buf_adds(&f->tmp, w->unknown)) ||
	    (*e->source_url ? lb_buf_adds(&f->tmp, w->source) || lb_buf_adds(&f->tmp, e->source_url) : 0))
		return oom(f);
	xw_elem(&f->w, "    ", "summary", f->tmp.data);
	return 0;
}

/*
 * f->iri = the id of e: the feed's tag, then "url:" (per_url) or
 * "event:LM:", then the URL key with what RFC 4151's specific part does
 * not allow percent-encoded (atom_iri()).
 */
static int entry_id(feedctx *f, const atom_ev_event *e, int per_url)
{
	lb_buf_reset(&f->key);
	lb_buf_reset(&f->iri);
	if (lb_url_key(&f->key, e->url) || lb_buf_adds(&f->iri, f->tag) ||
	    (per_url ? lb_buf_adds(&f->iri, "url:")
		     : lb_buf_addf(&f->iri, "event:%lld:", (long long)e->last_modified)) ||
	    atom_iri(&f->iri, f->key.data, ATOM_IRI_TAG))
		return oom(f);
	return 0;
}

/* cfg's on_current told of current.atom's entry e, whose id is in f->iri. */
static int tell_current(feedctx *f, const atom_ev_event *e)
{
	int rc = f->cfg->on_current(f->cfg->on_current_ctx, e, f->iri.data);

	if (rc != 0)
		return lb_err(f->err, rc < 0 ? rc : LB_ESTOP, "the entry's other writer failed");
	return 0;
}

/* One atom:entry for e.  per_url: the id names the URL, not the event;
 * tell: on_current hears of it (else the caller tells it). */
static int add_entry_as(feedctx *f, const atom_ev_event *e, int per_url, int tell)
{
	xw *w = &f->w;
	const char *title = *e->title ? e->title : e->url;
	int rc;

	if (entry_id(f, e, per_url) != 0)
		return failed(f);
	if (tell && per_url && f->cfg->on_current && (rc = tell_current(f, e)) != 0)
		return rc;
	xw_markup(w, "  <entry>\n");
	/* ATOM_XML_MIN: an id's bytes stay what they always were (' unescaped) */
	xw_text_elem(w, "    ", "id", f->iri.data, ATOM_XML_MIN);
	xw_elem(w, "    ", "title", title);
	if (atom_resolve(&f->tmp, f->base, e->url, 0) == 0) {
		lb_buf_reset(&f->iri);
		if (atom_iri(&f->iri, f->tmp.data, ATOM_IRI_REF) != 0)
			return oom(f);
		xw_link(w, "    ", "alternate", f->iri.data);
	} else {
		/* RFC 4287 §4.1.2: no alternate link, so some content */
		xw_elem(w, "    ", "content", e->url);
	}
	if (f->related && f->cfg->related) {   /* the diff page (atom_cfg.related) */
		lb_buf_reset(&f->tmp);
		if (f->cfg->related(f->cfg->related_ctx, e, &f->tmp) == 1) {
			lb_buf_reset(&f->iri);
			if (lb_buf_adds(&f->iri, f->base) < 0 || atom_iri(&f->iri, f->tmp.data, ATOM_IRI_REF) != 0)
				return oom(f);
			xw_link(w, "    ", "related", f->iri.data);
		}
	}
	xw_date(w, "    ", "updated", e->last_modified);
	if (*e->author)
		xw_person(w, "    ", "      ", e->author);
	if (add_summary(f, e) != 0)
		return failed(f);
	xw_markup(w, "  </entry>\n");
	f->entries++;
	return xw_status(f);
}

static int add_entry(feedctx *f, const atom_ev_event *e, int per_url)
{
	return add_entry_as(f, e, per_url, 1);
}

static int add_event_cb(void *ctx, const atom_ev_event *e)
{
	return add_entry(ctx, e, 0);
}

static int add_current_cb(void *ctx, const atom_ev_event *e)
{
	return add_entry(ctx, e, 1);
}

/* Archive a.n: a pure function of its events, its title and author, the
 * base and whether archive n+1 exists (RFC 5005 §4: it must not change). */
static int write_archive(feedctx *f, atom_evstore *st, const atom_ev_archive *a)
{
	doclink links[4];
	size_t k = 0;
	char rel[64];
	int64_t max;
	int any, ok;
	int rc;

	if ((rc = atom_evstore_max_lm(st, a->first_seq, a->last_seq, &max, &any, f->err)) != 0)
		return rc;
	links[k++] = (doclink){ "current", "index.atom", 0 };
	links[k++] = (doclink){ "self", "archive/%lld.atom", a->n };
	if (a->n > 1)
		links[k++] = (doclink){ "prev-archive", "archive/%lld.atom", a->n - 1 };
	if (a->has_next)
		links[k++] = (doclink){ "next-archive", "archive/%lld.atom", a->n + 1 };
	snprintf(rel, sizeof rel, "archive/%lld.atom", (long long)a->n);
	if (doc_begin(f, rel) != 0)
		return failed(f);
	f->words = sum_words_of(a->lang);   /* as sealed, not as configured now */
	ok = doc_head(f, "events", a->title, a->author, links, k, "<fh:archive/>", max) == 0 &&
	     atom_evstore_each_event(st, a->first_seq, a->last_seq, add_event_cb, f, f->err) == 0;
	f->words = sum_words_of(f->cfg->lang);
	return doc_end(f, ok, f->batch_sync);
}

typedef struct alist {
	atom_ev_archive *v;
	size_t n, cap;
	int all;           /* every archive, not only those due */
	int64_t lowest;    /* the lowest n seen */
	size_t seen;
} alist;

static int collect_archive(void *ctx, const atom_ev_archive *a)
{
	alist *l = ctx;
	atom_ev_archive *v;

	l->seen++;
	l->lowest = a->n;
	if (!l->all && a->written && (a->next_linked || !a->has_next))
		return 0;   /* nothing due */
	if (!(v = lb_grow(l->v, &l->cap, l->n + 1, sizeof *v, 16)))
		return LB_ENOMEM;
	l->v = v;
	l->v[l->n] = *a;
	l->v[l->n].title = strdup(a->title);
	l->v[l->n].author = strdup(a->author);
	l->v[l->n].lang = strdup(a->lang ? a->lang : "");
	if (!l->v[l->n].title || !l->v[l->n].author || !l->v[l->n].lang) {
		free((char *)l->v[l->n].title);
		free((char *)l->v[l->n].author);
		free((char *)l->v[l->n].lang);
		return LB_ENOMEM;
	}
	l->n++;
	return 0;
}

static void alist_clear(alist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->v[i].title);
		free((char *)l->v[i].author);
		free((char *)l->v[i].lang);
	}
	l->n = 0;
	l->seen = 0;
}

/*
 * The archives closed unrenamed (batch_sync): one syncfs() puts their
 * data on disk, then each is renamed to its name, newest first, so a
 * next-archive link never points at a file not there yet, then the
 * archive directory is synced for the names.  A crash leaves no archive
 * under its name whose data is not on disk (perf).  With rc
 * != 0 they are removed.  Returns rc, or LB_EIO with err.
 */
static int rename_pending(feedctx *f, int rc)
{
	lb_buf adir = LB_BUF_INIT;
	size_t i;

	if (rc == 0 && f->npend && lb_afile_syncdir(f->dir) != 0)
		rc = lb_err_sys(f->err, "cannot sync '%s'", f->dir);
	for (i = 0; i < f->npend; i++) {
		if (rc != 0) {
			lb_afile_abort(&f->pend[i]);
		} else {
			char *path = strdup(f->pend[i].path);

			if (lb_afile_rename(&f->pend[i]) != 0)
				rc = lb_err_sys(f->err, "cannot write '%s'", path ? path : "");
			free(path);
		}
	}
	if (rc == 0 && f->npend) {
		if (lb_buf_addf(&adir, "%s/archive", f->dir) != 0)
			rc = oom(f);
		else if (lb_afile_fsyncdir(adir.data) != 0)
			rc = lb_err_sys(f->err, "cannot sync '%s'", adir.data);
	}
	f->npend = 0;
	lb_buf_release(&adir);
	return rc;
}

/* Writes one batch of archives (newest first) and records them as on
 * disk: a record that commits only with the run's transaction, after the
 * sync (write_archives()). */
static int write_batch(feedctx *f, atom_evstore *st, alist *l, atom_stats *stats)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < l->n; i++)
		rc = write_archive(f, st, &l->v[i]);
	if (f->npend + ATOM_ARCHIVE_BATCH > ATOM_SYNC_MAX || rc != 0)
		rc = rename_pending(f, rc);
	for (i = 0; rc == 0 && i < l->n; i++) {
		rc = atom_evstore_archive_done(st, l->v[i].n, l->v[i].has_next, f->err);
		stats->archives_written += rc == 0;
	}
	return rc;
}

/* Writes the archives due, the newest first, so a next-archive link is
 * only ever written once its target is on disk; ATOM_ARCHIVE_BATCH at a
 * time, so memory does not grow with their number. */
static int write_archives(feedctx *f, atom_evstore *st, atom_stats *stats)
{
	alist l = { NULL, 0, 0, 0, -1, 0 };
	struct stat sb;
	lb_buf p = LB_BUF_INIT;
	int64_t due, below = -1;
	int rc;

	if (lb_buf_addf(&p, "%s/index.atom", f->dir) != 0)
		return oom(f);
	l.all = stat(p.data, &sb) != 0;   /* a new DIR: write every archive */
	lb_buf_release(&p);
	if ((rc = atom_evstore_count_archives(st, l.all, &due, f->err)) != 0)
		return rc;
	/* A usual run writes one or two archives: an fsync each.  A first run
	 * (or a rebuild) writes thousands: then one syncfs() for up to
	 * ATOM_SYNC_MAX of them before their renames (rename_pending()) is
	 * far cheaper, though it also flushes others' dirty data on
	 * the same filesystem.  A crash leaves no archive under its name
	 * whose data is not on disk.  Either way the record that they are on
	 * disk commits only after the sync (write_all()'s transaction), so a
	 * crash before it just rewrites them, byte for byte. */
	f->batch_sync = due > ATOM_BATCH_SYNC;
	do {
		alist_clear(&l);
		rc = atom_evstore_each_archive_desc(st, l.all, below, ATOM_ARCHIVE_BATCH, collect_archive, &l,
					       f->err);
		if (rc == LB_ENOMEM)
			rc = oom(f);
		if (rc == 0)
			rc = write_batch(f, st, &l, stats);
		below = l.lowest;
	} while (rc == 0 && l.seen == ATOM_ARCHIVE_BATCH);
	rc = rename_pending(f, rc);
	alist_clear(&l);
	free(l.v);
	return rc;
}

/* index.atom: the events after the newest archive (RFC 5005 §4). */
static int write_index(feedctx *f, atom_evstore *st)
{
	doclink links[2];
	size_t k = 0;
	int64_t last, count, max;
	int any, ok;
	int rc;

	if ((rc = atom_evstore_archived(st, &last, &count, f->err)) != 0 ||
	    (rc = atom_evstore_max_lm(st, last + 1, -1, &max, &any, f->err)) != 0)
		return rc;
	/* empty: updated is the newest archive's */
	if (!any && count > 0 &&
	    (rc = atom_evstore_max_lm(st, last - f->cfg->page_size + 1, last, &max, &any, f->err)) != 0)
		return rc;
	links[k++] = (doclink){ "self", "index.atom", 0 };
	if (count > 0)
		links[k++] = (doclink){ "prev-archive", "archive/%lld.atom", count };
	if (doc_begin(f, "index.atom") != 0)
		return failed(f);
	f->related = 1;
	ok = doc_head(f, "events", f->title, f->author, links, k, NULL, any ? max : f->cfg->now) == 0 &&
	     atom_evstore_each_event(st, last + 1, -1, add_event_cb, f, f->err) == 0;
	f->related = 0;
	return doc_end(f, ok, 0);
}

/* Where current.atom's records come from: an array (the antenna, one
 * event per URL) or a staged run (lirs atom, its winner per URL). */
typedef struct cursrc {
	const atom_ev_event *v;
	size_t n;
	atom_ev_run *run;
	atom_cur_each_fn each;   /* when set: the records streamed, newest first */
	void *ctx;
} cursrc;

/*
 * A streamed current.atom.  It is a complete feed (RFC 5005 §2,
 * fh:complete) while its records fit cfg's caps (entries and bytes);
 * past them it holds only the newest records and is no longer complete:
 * no fh:complete, so no reader drops what it does not list, and a
 * prev-archive link to the newest archive, as index.atom has (RFC 5005
 * §4: the archived feed's history).  The head says which, and its date is
 * the newest record's: both known only at the end, so the entries are
 * spooled to a temporary file first and copied after the head.
 */
struct streamed {
	feedctx *f;
	FILE *spool;
	long end;          /* bytes of whole entries in the spool */
	size_t room;       /* the byte cap less the head's and the end's bound */
	int64_t updated;   /* the first (newest) record's Last-Modified */
	int capped;        /* a record was left out */
};

/* add_streamed_cb()'s "enough": a positive return stops the records. */
#define STREAM_CAPPED 1

static int add_streamed_cb(void *ctx, const atom_ev_event *e)
{
	struct streamed *s = ctx;
	feedctx *f = s->f;
	long pos;
	int rc;

	if (f->cfg->current_max_entries > 0 && f->entries >= (size_t)f->cfg->current_max_entries) {
		s->capped = 1;
		return STREAM_CAPPED;
	}
	if (!f->entries)
		s->updated = e->last_modified;
	if ((rc = add_entry_as(f, e, 1, 0)) != 0)   /* told once it is kept */
		return rc;
	xw_flush(&f->w);
	if ((rc = xw_status(f)) != 0)
		return rc;
	if ((pos = ftell(s->spool)) < 0)
		return lb_err_sys(f->err, "cannot write current.atom's spool");
	if (f->cfg->current_max_bytes > 0 && (size_t)pos > s->room) {
		f->entries--;   /* not copied: the spool ends for us at s->end */
		s->capped = 1;
		return STREAM_CAPPED;
	}
	s->end = pos;
	if (f->cfg->on_current && (entry_id(f, e, 1) != 0 || (rc = tell_current(f, e)) != 0))
		return rc ? rc : failed(f);
	return 0;
}

/* The head: complete, or the newest records with the archives' link. */
static int streamed_head(feedctx *f, atom_evstore *st, const struct streamed *s)
{
	doclink links[2] = { { "self", "current.atom", 0 } };
	int64_t last, count = 0;
	int rc;

	if (s->capped && (rc = atom_evstore_archived(st, &last, &count, f->err)) != 0)
		return rc;
	if (count > 0)
		links[1] = (doclink){ "prev-archive", "archive/%lld.atom", count };
	return doc_head(f, "current", f->title, f->author, links, count > 0 ? 2 : 1,
			s->capped ? NULL : "<fh:complete/>", f->entries ? s->updated : f->cfg->now);
}

/* Appends the spool's first n bytes to the document. */
static int copy_spool(feedctx *f, FILE *spool, long n)
{
	char buf[65536];
	size_t k;

	if (fflush(spool) != 0 || fseek(spool, 0, SEEK_SET) != 0)
		return lb_err_sys(f->err, "cannot read current.atom's spool");
	for (; n > 0; n -= (long)k) {
		k = fread(buf, 1, (size_t)n < sizeof buf ? (size_t)n : sizeof buf, spool);
		if (k == 0)
			return lb_err_sys(f->err, "cannot read current.atom's spool");
		if (fwrite(buf, 1, k, f->w.a.fp) != k)
			return lb_err_sys(f->err, "cannot write '%s'", f->w.a.path);
	}
	return 0;
}

/* The bytes of the head and the end, at most: the head measured as a
 * complete feed's, plus room for the prev-archive link instead. */
static size_t head_bound(feedctx *f)
{
	size_t n;

	lb_buf_reset(&f->w.out);
	if (doc_head(f, "current", f->title, f->author, NULL, 0, "<fh:complete/>", 0) != 0)
		return SIZE_MAX;
	n = f->w.out.len + 2 * strlen(f->base) + 256;
	lb_buf_reset(&f->w.out);
	return n;
}

static int write_streamed(feedctx *f, atom_evstore *st, const cursrc *src, atom_stats *stats)
{
	struct streamed s = { .f = f };
	FILE *out;
	size_t bound;
	int rc;

	if (doc_begin(f, "current.atom") != 0)
		return failed(f);
	if ((bound = head_bound(f)) == SIZE_MAX || !(s.spool = tmpfile())) {
		rc = bound == SIZE_MAX ? failed(f) : lb_err_sys(f->err, "cannot spool current.atom");
		doc_end(f, 0, 0);
		return rc;
	}
	s.room = (size_t)f->cfg->current_max_bytes > bound ? (size_t)f->cfg->current_max_bytes - bound : 0;
	out = f->w.a.fp;
	f->w.a.fp = s.spool;   /* the entries first, into the spool */
	f->related = 1;   /* the diff pages (atom_cfg.related) */
	rc = src->each(src->ctx, add_streamed_cb, &s, f->err);
	f->related = 0;
	lb_buf_reset(&f->w.out);   /* a refused entry's last bytes */
	f->w.a.fp = out;
	if (rc == STREAM_CAPPED || rc == 0)
		rc = streamed_head(f, st, &s);
	if (rc == 0) {
		xw_flush(&f->w);
		if ((rc = xw_status(f)) == 0)
			rc = copy_spool(f, s.spool, s.end);
	}
	fclose(s.spool);
	stats->current_entries = f->entries;
	stats->current_capped = s.capped;
	if (rc != 0) {
		doc_end(f, 0, 0);   /* the temporary file removed */
		return rc;
	}
	return doc_end(f, 1, 0);
}

/* current.atom: a complete feed (RFC 5005 §2) of the records given. */
static int write_current(feedctx *f, atom_evstore *st, const cursrc *src, atom_stats *stats)
{
	doclink self = { "self", "current.atom", 0 };
	int64_t max = 0;
	int any = 0, ok;
	size_t i;
	int rc;

	if (src->each)
		return write_streamed(f, st, src, stats);
	if (src->run) {
		if ((rc = atom_ev_run_max_lm(src->run, &max, &any, f->err)) != 0)
			return rc;
	} else {
		for (i = 0; i < src->n; i++)
			if (!any++ || src->v[i].last_modified > max)
				max = src->v[i].last_modified;
	}
	if (doc_begin(f, "current.atom") != 0)
		return failed(f);
	ok = doc_head(f, "current", f->title, f->author, &self, 1, "<fh:complete/>",
		      any ? max : f->cfg->now) == 0;
	if (ok && src->run)
		ok = atom_ev_run_each_latest(src->run, add_current_cb, f, f->err) == 0;
	for (i = 0; ok && !src->run && i < src->n; i++)
		ok = add_entry(f, &src->v[i], 1) == 0;
	stats->current_entries = f->entries;
	return doc_end(f, ok, 0);
}

/* Base URL, host and tag prefix from cfg; LB_EINVAL with err when base is bad. */
static int feed_setup(feedctx *f, const atom_cfg *cfg)
{
	xmlURIPtr u = xmlParseURI(cfg->base ? cfg->base : "");
	size_t i, n;
	int rc = -1;

	if (!u || !u->scheme || !u->server || !*u->server ||
	    !lb_url_http_port(u->scheme, strlen(u->scheme))) {
		rc = lb_err(f->err, LB_EINVAL, "base '%s' is not an absolute http or https URL",
			    cfg->base ? cfg->base : "");
		goto out;
	}
	n = strlen(cfg->base);
	f->base = malloc(n + 2);
	f->host = strdup(u->server);
	if (!f->base || !f->host) {
		rc = oom(f);
		goto out;
	}
	/* the base names a directory: "https://x/feeds" means "https://x/feeds/" */
	memcpy(f->base, cfg->base, n + 1);
	if (n == 0 || cfg->base[n - 1] != '/')
		memcpy(f->base + n, "/", 2);
	for (i = 0; f->host[i]; i++)
		if (f->host[i] >= 'A' && f->host[i] <= 'Z')
			f->host[i] = (char)(f->host[i] - 'A' + 'a');
	rc = 0;
out:
	if (u)
		xmlFreeURI(u);
	return rc;
}

/* A setting fixed at the state's first run: set it, or check it. */
static int fixed_meta(feedctx *f, atom_evstore *st, const char *key, const char *want,
		      const char *option, char **got)
{
	int r = atom_evstore_meta_get(st, key, got, f->err);

	if (r < 0)
		return r;
	if (r == 0) {
		*got = strdup(want);
		if (!*got)
			return oom(f);
		return atom_evstore_meta_set(st, key, want, f->err);
	}
	if (option && strcmp(*got, want) != 0)
		return lb_err(f->err, LB_EINVAL, "%s '%s' differs from '%s' this state was made with"
			      " (archives must not change)", option, want, *got);
	return 0;
}

/* f->tag = "tag:host,date:" (RFC 4151 §2.1); the host as an IRI: the
 * host of the state's first run, kept when the base moves
 * (atom_evstore_reseal()), so that the ids do not change. */
static int make_tag(feedctx *f, const char *host, const char *date)
{
	lb_buf t = LB_BUF_INIT;

	if (lb_buf_adds(&t, "tag:") || atom_iri(&t, host, ATOM_IRI_REF) || lb_buf_addf(&t, ",%s:", date)) {
		lb_buf_release(&t);
		return oom(f);
	}
	f->tag = lb_buf_detach(&t, NULL);
	return f->tag ? 0 : oom(f);
}

/* The new events of a run: an array, or staged (or neither). */
typedef struct newsrc {
	const atom_ev_event *v;
	size_t n;
	atom_ev_run *run;
} newsrc;

/* Transaction 1: events in, settings checked, full archives sealed. */
static int record(feedctx *f, atom_evstore *st, const newsrc *ev, atom_stats *stats)
{
	char ps[32], today[32], *base = NULL, *size = NULL, *date = NULL, *host = NULL;
	int rc;

	snprintf(ps, sizeof ps, "%lld", (long long)f->cfg->page_size);
	atom_time(today, sizeof today, f->cfg->now);
	today[10] = '\0';
	if ((rc = atom_evstore_begin(st, f->err)) != 0)
		return rc;
	atom_evstore_set_lang(st, f->cfg->lang);   /* sealed with the new archives */
	if ((rc = fixed_meta(f, st, "atom_base", f->base, "base", &base)) != 0 ||
	    (rc = fixed_meta(f, st, "atom_page_size", ps, "page size", &size)) != 0 ||
	    (rc = fixed_meta(f, st, "atom_tag_date", today, NULL, &date)) != 0 ||
	    (rc = fixed_meta(f, st, "atom_tag_host", f->host, NULL, &host)) != 0 ||
	    (rc = make_tag(f, host, date)) != 0)
		goto out;
	if ((rc = ev->run ? atom_evstore_add_staged(st, ev->run, &stats->events_added, f->err)
			  : atom_evstore_add_run(st, ev->v, ev->n, &stats->events_added, f->err)) != 0 ||
	    (rc = atom_evstore_seal(st, f->cfg->page_size, f->title, f->author, &stats->archives_sealed,
			 f->err)) != 0)
		goto out;
	rc = atom_evstore_commit(st, f->err);
out:
	if (rc != 0)
		atom_evstore_rollback(st);
	free(base);
	free(size);
	free(date);
	free(host);
	return rc;
}

/* Transaction 2: the files, with the bookkeeping of what is on disk. */
static int write_all(feedctx *f, atom_evstore *st, const cursrc *cur, atom_stats *stats)
{
	lb_buf p = LB_BUF_INIT;
	int64_t last;
	int rc;

	if (lb_buf_addf(&p, "%s/archive", f->dir) != 0)
		return oom(f);
	if (lb_mkdir_p(p.data, 0755) != 0) {
		rc = lb_err_sys(f->err, "cannot create '%s'", p.data);
		lb_buf_release(&p);
		return rc;
	}
	lb_buf_release(&p);
	if ((rc = atom_evstore_begin(st, f->err)) != 0)
		return rc;
	if ((rc = write_archives(f, st, stats)) != 0 || (rc = write_index(f, st)) != 0 ||
	    (rc = write_current(f, st, cur, stats)) != 0 ||
	    (rc = atom_evstore_archived(st, &last, &stats->archives_total, f->err)) != 0 ||
	    (rc = atom_evstore_commit(st, f->err)) != 0) {
		atom_evstore_rollback(st);
		return rc;
	}
	return 0;
}

static int publish(atom_evstore *st, const char *dir, const atom_cfg *cfg, const newsrc *ev,
		   const cursrc *cur, atom_stats *stats, lb_error *err)
{
	atom_cfg c = *cfg;
	feedctx f;
	lb_buf title = LB_BUF_INIT;
	lb_error local = LB_ERROR_INIT;
	int rc;

	memset(stats, 0, sizeof *stats);
	memset(&f, 0, sizeof f);
	lb_buf_init(&f.w.out);
	lb_buf_init(&f.tmp);
	lb_buf_init(&f.iri);
	lb_buf_init(&f.key);
	f.err = err ? err : &local;   /* callees' codes are read back from it */
	lb_error_clear(f.err);
	f.dir = dir;
	if (c.page_size == 0)
		c.page_size = ATOM_DEFAULT_PAGE_SIZE;
	f.cfg = &c;
	if (c.page_size < 1)
		return lb_err(err, LB_EINVAL, "page size must be at least 1");
	if ((rc = feed_setup(&f, &c)) != 0)
		goto out;
	if (!c.title && lb_buf_addf(&title, "%s updates", f.host) != 0) {
		rc = oom(&f);
		goto out;
	}
	f.title = c.title ? c.title : title.data;
	f.author = c.author && *c.author ? c.author : f.host;
	f.words = sum_words_of(c.lang);
	if ((rc = record(&f, st, ev, stats)) == 0)
		rc = write_all(&f, st, cur, stats);
out:
	lb_buf_release(&title);
	lb_buf_release(&f.w.out);
	lb_buf_release(&f.tmp);
	lb_buf_release(&f.iri);
	lb_buf_release(&f.key);
	while (f.npend)   /* none left but on an early error */
		lb_afile_abort(&f.pend[--f.npend]);
	free(f.pend);
	free(f.base);
	free(f.host);
	free(f.tag);
	return rc;
}

int atom_publish(atom_evstore *st, const char *dir, const atom_cfg *cfg,
		 const atom_ev_event *new_ev, size_t n_new,
		 const atom_ev_event *cur, size_t n_cur,
		 atom_stats *stats, lb_error *err)
{
	newsrc ev = { new_ev, n_new, NULL };
	cursrc c = { cur, n_cur, NULL, NULL, NULL };

	return publish(st, dir, cfg, &ev, &c, stats, err);
}

int atom_publish_later(atom_evstore *st, const char *dir, const atom_cfg *cfg,
		       const atom_ev_event *new_ev, size_t n_new, atom_cur_each_fn each, void *ctx,
		       atom_stats *stats, lb_error *err)
{
	newsrc ev = { new_ev, n_new, NULL };
	cursrc c = { NULL, 0, NULL, each, ctx };

	return publish(st, dir, cfg, &ev, &c, stats, err);
}

int atom_publish_run(atom_evstore *st, const char *dir, const atom_cfg *cfg, atom_ev_run *run,
		     atom_stats *stats, lb_error *err)
{
	newsrc ev = { NULL, 0, run };
	cursrc c = { NULL, 0, run, NULL, NULL };

	return publish(st, dir, cfg, &ev, &c, stats, err);
}
