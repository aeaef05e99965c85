/*
 * atom.c: XML escaping, Atom documents and RFC 5005 archiving (atom.h).
 */
#include "atom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libxml/uri.h>

#include "afile.h"
#include "merge.h"

/* ---- XML escaping (XML 1.0 §2.2 Char, §2.4, §3.3.3) ----------------------- */

/* Decodes one UTF-8 sequence at s: the code point, or -1 when invalid.
 * *n gets the bytes used (1 for an invalid byte). */
static long utf8_next(const unsigned char *s, size_t *n)
{
	long c;
	size_t len, i;

	*n = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xC2 && s[0] <= 0xDF) { len = 2; c = s[0] & 0x1F; }
	else if (s[0] >= 0xE0 && s[0] <= 0xEF) { len = 3; c = s[0] & 0x0F; }
	else if (s[0] >= 0xF0 && s[0] <= 0xF4) { len = 4; c = s[0] & 0x07; }
	else return -1;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates (RFC 3629 §3), beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
	    (c >= 0xD800 && c <= 0xDFFF))
		return -1;
	*n = len;
	return c;
}

int xml_escape(lbuf *out, const char *str, int attr)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	int rc = 0;

	while (*s && rc == 0) {
		size_t n;
		long c;
		const unsigned char *run = s;

		/* scale (issue 10): characters kept as they are, copied a run at a
		 * time, not one lbuf_add() each; the same bytes as the switch. */
		while (*run) {
			if (*run < 0x80) {
				if (*run < 0x20 || *run == '&' || *run == '<' || *run == '>' ||
				    *run == '"' || *run == '\'')
					break;
				run++;
				continue;
			}
			c = utf8_next(run, &n);
			if (c < 0 || c == 0xFFFE || c == 0xFFFF)
				break;
			run += n;
		}
		if (run > s) {
			rc = lbuf_add(out, s, (size_t)(run - s));
			s = run;
			continue;
		}
		c = utf8_next(s, &n);

		switch (c) {
		case '&': rc = lbuf_adds(out, "&amp;"); break;
		case '<': rc = lbuf_adds(out, "&lt;"); break;
		case '>': rc = lbuf_adds(out, "&gt;"); break;
		case '"': rc = lbuf_adds(out, "&quot;"); break;
		case '\'': rc = lbuf_adds(out, "&apos;"); break;
		case '\t': case '\n': case '\r':
			rc = attr ? lbuf_addf(out, "&#%ld;", c) : lbuf_addc(out, (int)c);
			break;
		case -1:
			rc = lbuf_adds(out, "\xEF\xBF\xBD");   /* U+FFFD */
			break;
		case 0xFFFE: case 0xFFFF:
			break;                                  /* not XML Chars: removed */
		default:
			if (c >= 0x20)
				rc = lbuf_add(out, s, n);
			break;                                  /* other C0: removed */
		}
		s += n;
	}
	return rc;
}

void atom_time(char *buf, size_t len, int64_t t)
{
	struct tm tm;
	time_t tt;

	if (t < -62167219200LL)
		t = -62167219200LL;   /* 0000-01-01T00:00:00Z */
	if (t > 253402300799LL)
		t = 253402300799LL;   /* 9999-12-31T23:59:59Z */
	tt = (time_t)t;
	gmtime_r(&tt, &tm);
	/* scale (issue 10): digits by hand, snprintf() was a tenth of a
	 * publish; the same text "%04d-%02d-%02dT%02d:%02d:%02dZ" */
	{
		char b[21];
		int v[6] = { tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			     tm.tm_hour, tm.tm_min, tm.tm_sec };
		static const char sep[] = "--T::Z";
		size_t k = 0;

		b[k++] = (char)('0' + v[0] / 1000 % 10);
		b[k++] = (char)('0' + v[0] / 100 % 10);
		for (int i = 0; i < 6; i++) {
			b[k++] = (char)('0' + v[i] / 10 % 10);
			b[k++] = (char)('0' + v[i] % 10);
			b[k++] = sep[i];
		}
		if (len) {
			k = k < len - 1 ? k : len - 1;
			memcpy(buf, b, k);
			buf[k] = '\0';
		}
	}
}

/* "http://host..." or "https://host...", scheme in any case, host nonempty. */
static int is_http(const char *u)
{
	size_t n;

	if (strncasecmp(u, "http://", 7) == 0)
		n = 7;
	else if (strncasecmp(u, "https://", 8) == 0)
		n = 8;
	else
		return 0;
	return u[n] && !strchr("/?#", u[n]);
}

int atom_resolve(lbuf *out, const char *base, const char *ref)
{
	xmlChar *r;
	int rc;

	lbuf_reset(out);
	if (is_http(ref))
		return lbuf_adds(out, ref);
	if (!*ref)
		return -1;
	r = xmlBuildURI((const xmlChar *)ref, (const xmlChar *)base);
	if (!r)
		return -1;
	rc = is_http((const char *)r) ? lbuf_adds(out, (const char *)r) : -1;
	xmlFree(r);
	return rc;
}

/* ---- the documents ------------------------------------------------------ */

typedef struct feedctx {
	const atom_cfg *cfg;
	const char *dir;
	char *base;        /* cfg->base with a trailing '/' */
	char *host;        /* lowercased, for tag: URIs and the default author */
	char *tag;         /* "tag:host,YYYY-MM-DD:" (RFC 4151) */
	const char *title, *author;
	lbuf body, doc, tmp, key;
	int64_t max_updated;
	int any;
	int batch_sync;    /* archives written with nosync, then one syncfs */
	char *err;
	size_t errlen;
} feedctx;

/* More archives than this in one run are synced together (write_archives). */
#define ATOM_BATCH_SYNC 8

static int oom(feedctx *f)
{
	snprintf(f->err, f->errlen, "out of memory");
	return -1;
}

/* Appends the tag: URI specific part for s: characters outside RFC 4151's
 * pchar / "/" / "?" are percent-encoded; non-ASCII is kept (an IRI). */
static int add_tag_part(lbuf *b, const char *s)
{
	static const char ok[] = "-._~!$&'()*+,;=:@/?";
	int rc = 0;

	for (; *s && rc == 0; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || (c && strchr(ok, c)))
			rc = lbuf_addc(b, c);
		else
			rc = lbuf_addf(b, "%%%02X", c);
	}
	return rc;
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

static int add_elem(lbuf *b, const char *indent, const char *name, const char *text)
{
	return lbuf_addf(b, "%s<%s>", indent, name) || xml_escape(b, text, 0) ||
	       lbuf_addf(b, "</%s>\n", name);
}

static int add_link(lbuf *b, const char *indent, const char *rel, const char *href)
{
	return lbuf_addf(b, "%s<link rel=\"%s\" href=\"", indent, rel) || xml_escape(b, href, 1) ||
	       lbuf_adds(b, "\"/>\n");
}

/* The summary: when it was detected, the site's time zone, size, source. */
static int add_summary(feedctx *f, lbuf *b, const ev_event *e)
{
	char when[32], tz[32];

	if (e->excerpt && *e->excerpt)   /* what the update added (issue 9) */
		return add_elem(b, "    ", "summary", e->excerpt);
	atom_time(when, sizeof when, e->last_detected);
	tz_text(tz, sizeof tz, e->tz_offset);
	lbuf_reset(&f->tmp);
	if (lbuf_addf(&f->tmp, "Detected %s; site time zone %s; ", when, tz) ||
	    (e->content_length > 0 ? lbuf_addf(&f->tmp, "%lld bytes", (long long)e->content_length)
				   : lbuf_adds(&f->tmp, "size unknown")) ||
	    (*e->source_url ? lbuf_addf(&f->tmp, "; source %s", e->source_url) : 0))
		return -1;
	return add_elem(b, "    ", "summary", f->tmp.data);
}

/* One atom:entry for e.  per_url: the id names the URL, not the event. */
static int add_entry(feedctx *f, const ev_event *e, int per_url)
{
	lbuf *b = &f->body;
	char when[32];
	const char *title = *e->title ? e->title : e->url;

	lbuf_reset(&f->key);
	if (merge_url_key(&f->key, e->url) != 0)
		return oom(f);
	atom_time(when, sizeof when, e->last_modified);
	if (lbuf_adds(b, "  <entry>\n    <id>") || lbuf_adds(b, f->tag) ||
	    (per_url ? lbuf_adds(b, "url:") : lbuf_addf(b, "event:%lld:", (long long)e->last_modified)) ||
	    add_tag_part(b, f->key.data) || lbuf_adds(b, "</id>\n") ||
	    add_elem(b, "    ", "title", title))
		return oom(f);
	if (atom_resolve(&f->tmp, f->base, e->url) == 0) {
		if (add_link(b, "    ", "alternate", f->tmp.data))
			return oom(f);
	} else if (add_elem(b, "    ", "content", e->url)) {
		/* RFC 4287 §4.1.2: no alternate link, so some content */
		return oom(f);
	}
	if (lbuf_addf(b, "    <updated>%s</updated>\n", when) ||
	    (*e->author && (lbuf_adds(b, "    <author>\n") || add_elem(b, "      ", "name", e->author) ||
			    lbuf_adds(b, "    </author>\n"))) ||
	    add_summary(f, b, e) || lbuf_adds(b, "  </entry>\n"))
		return oom(f);
	if (!f->any || e->last_modified > f->max_updated)
		f->max_updated = e->last_modified;
	f->any = 1;
	return 0;
}

static int add_entry_cb(void *ctx, const ev_event *e)
{
	return add_entry(ctx, e, 0);
}

/* The head into f->doc; write_file() adds f->body and the end tag. */
static int build_doc(feedctx *f, const char *id, const char *title, const char *author,
		     const char *links, const char *marker, int64_t updated)
{
	char when[32];

	atom_time(when, sizeof when, updated);
	lbuf_reset(&f->doc);
	if (lbuf_adds(&f->doc, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		      "<feed xmlns=\"http://www.w3.org/2005/Atom\""
		      " xmlns:fh=\"http://purl.org/syndication/history/1.0\">\n") ||
	    lbuf_adds(&f->doc, "  <id>") || xml_escape(&f->doc, f->tag, 0) ||
	    xml_escape(&f->doc, id, 0) || lbuf_adds(&f->doc, "</id>\n") ||
	    add_elem(&f->doc, "  ", "title", title) ||
	    lbuf_addf(&f->doc, "  <updated>%s</updated>\n  <author>\n", when) ||
	    add_elem(&f->doc, "    ", "name", author) || lbuf_adds(&f->doc, "  </author>\n") ||
	    add_link(&f->doc, "  ", "alternate", f->base) || lbuf_adds(&f->doc, links) ||
	    (marker && lbuf_addf(&f->doc, "  %s\n", marker)) ||
	    lbuf_adds(&f->doc, "  <generator>lirs-antenna</generator>\n"))
		return oom(f);
	return 0;
}

static int write_file(feedctx *f, const char *rel, int nosync)
{
	lbuf path = LBUF_INIT;
	afile a;
	int rc = -1;

	if (lbuf_addf(&path, "%s/%s", f->dir, rel) != 0)
		return oom(f);
	if (afile_open(&a, path.data) != 0) {
		snprintf(f->err, f->errlen, "cannot write '%s': %s", path.data, strerror(errno));
		goto out;
	}
	a.nosync = nosync;
	if (fwrite(f->doc.data, 1, f->doc.len, a.fp) != f->doc.len ||
	    (f->body.len && fwrite(f->body.data, 1, f->body.len, a.fp) != f->body.len) ||
	    fputs("</feed>\n", a.fp) == EOF) {
		snprintf(f->err, f->errlen, "cannot write '%s': %s", path.data, strerror(errno));
		afile_abort(&a);
		goto out;
	}
	if (afile_commit(&a) != 0) {
		snprintf(f->err, f->errlen, "cannot write '%s': %s", path.data, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	lbuf_release(&path);
	return rc;
}

/* Appends a link to BASE + rel path. */
static int link_to(feedctx *f, lbuf *links, const char *rel, const char *fmt, long long n)
{
	char path[64];

	snprintf(path, sizeof path, fmt, n);
	lbuf_reset(&f->tmp);
	if (lbuf_addf(&f->tmp, "%s%s", f->base, path) || add_link(links, "  ", rel, f->tmp.data))
		return oom(f);
	return 0;
}

/* Archive a.n: a pure function of its events, its title and author, the
 * base and whether archive n+1 exists (RFC 5005 §4: it must not change). */
static int write_archive(feedctx *f, evstore *st, const ev_archive *a)
{
	lbuf links = LBUF_INIT;
	char rel[64];
	int rc = -1;

	lbuf_reset(&f->body);
	f->any = 0;
	if (evstore_each_event(st, a->first_seq, a->last_seq, add_entry_cb, f, f->err, f->errlen) != 0)
		goto out;
	if (link_to(f, &links, "current", "index.atom", 0) ||
	    link_to(f, &links, "self", "archive/%lld.atom", a->n) ||
	    (a->n > 1 && link_to(f, &links, "prev-archive", "archive/%lld.atom", a->n - 1)) ||
	    (a->has_next && link_to(f, &links, "next-archive", "archive/%lld.atom", a->n + 1)))
		goto out;
	if (build_doc(f, "events", a->title, a->author, links.data, "<fh:archive/>", f->max_updated))
		goto out;
	snprintf(rel, sizeof rel, "archive/%lld.atom", (long long)a->n);
	rc = write_file(f, rel, f->batch_sync);
out:
	lbuf_release(&links);
	return rc;
}

typedef struct alist {
	ev_archive *v;
	size_t n, cap;
	int all;       /* every archive, not only those due */
} alist;

static int collect_archive(void *ctx, const ev_archive *a)
{
	alist *l = ctx;
	ev_archive *v;

	if (!l->all && a->written && (a->next_linked || !a->has_next))
		return 0;   /* nothing due */
	if (!(v = lgrow(l->v, &l->cap, l->n + 1, sizeof *v, 16)))
		return -2;
	l->v = v;
	l->v[l->n] = *a;
	l->v[l->n].title = strdup(a->title);
	l->v[l->n].author = strdup(a->author);
	if (!l->v[l->n].title || !l->v[l->n].author) {
		free((char *)l->v[l->n].title);
		free((char *)l->v[l->n].author);
		return -2;
	}
	l->n++;
	return 0;
}

static void alist_free(alist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->v[i].title);
		free((char *)l->v[i].author);
	}
	free(l->v);
}

/* Writes the archives due, the newest first, so a next-archive link is
 * only ever written once its target is on disk. */
static int write_archives(feedctx *f, evstore *st, atom_stats *stats)
{
	alist l = { NULL, 0, 0, 0 };
	struct stat sb;
	lbuf p = LBUF_INIT;
	int all, rc;
	size_t i;

	if (lbuf_addf(&p, "%s/index.atom", f->dir) != 0)
		return oom(f);
	all = stat(p.data, &sb) != 0;   /* a new DIR: write every archive */
	lbuf_release(&p);
	l.all = all;
	rc = evstore_each_archive(st, all, collect_archive, &l, f->err, f->errlen);
	if (rc == -2)
		rc = oom(f);
	/* A usual run writes one or two archives: an fsync each.  A first run
	 * (or a rebuild) writes thousands: then one syncfs() for them all is
	 * far cheaper, though it also flushes others' dirty data on the same
	 * filesystem.  Either way they are recorded as on disk only after the
	 * sync, so a crash before it just rewrites them, byte for byte. */
	f->batch_sync = l.n > ATOM_BATCH_SYNC;
	for (i = l.n; rc == 0 && i-- > 0;)
		rc = write_archive(f, st, &l.v[i]);
	if (rc == 0 && f->batch_sync && afile_syncdir(f->dir) != 0) {
		snprintf(f->err, f->errlen, "cannot sync '%s': %s", f->dir, strerror(errno));
		rc = -1;
	}
	for (i = l.n; rc == 0 && i-- > 0;) {
		rc = evstore_archive_done(st, l.v[i].n, l.v[i].has_next, f->err, f->errlen);
		stats->archives_written += rc == 0;
	}
	alist_free(&l);
	return rc;
}

static int max_cb(void *ctx, const ev_event *e)
{
	feedctx *f = ctx;

	if (!f->any || e->last_modified > f->max_updated)
		f->max_updated = e->last_modified;
	f->any = 1;
	return 0;
}

/* index.atom: the events after the newest archive (RFC 5005 §4). */
static int write_index(feedctx *f, evstore *st)
{
	lbuf links = LBUF_INIT;
	int64_t last, count;
	int rc = -1;

	if (evstore_archived(st, &last, &count, f->err, f->errlen) != 0)
		return -1;
	lbuf_reset(&f->body);
	f->any = 0;
	if (evstore_each_event(st, last + 1, -1, add_entry_cb, f, f->err, f->errlen) != 0)
		goto out;
	if (!f->any && count > 0) {
		/* empty: updated is the newest archive's */
		if (evstore_each_event(st, last - f->cfg->page_size + 1, last, max_cb, f, f->err, f->errlen) != 0)
			goto out;
	}
	if (link_to(f, &links, "self", "index.atom", 0) ||
	    (count > 0 && link_to(f, &links, "prev-archive", "archive/%lld.atom", count)))
		goto out;
	if (build_doc(f, "events", f->title, f->author, links.data, NULL,
		      f->any ? f->max_updated : f->cfg->now) == 0)
		rc = write_file(f, "index.atom", 0);
out:
	lbuf_release(&links);
	return rc;
}

/* current.atom: a complete feed (RFC 5005 §2) of the records given. */
static int write_current(feedctx *f, const ev_event *cur, size_t n)
{
	lbuf links = LBUF_INIT;
	size_t i;
	int rc = -1;

	lbuf_reset(&f->body);
	f->any = 0;
	for (i = 0; i < n; i++)
		if (add_entry(f, &cur[i], 1) != 0)
			goto out;
	if (link_to(f, &links, "self", "current.atom", 0))
		goto out;
	if (build_doc(f, "current", f->title, f->author, links.data, "<fh:complete/>",
		      f->any ? f->max_updated : f->cfg->now) == 0)
		rc = write_file(f, "current.atom", 0);
out:
	lbuf_release(&links);
	return rc;
}

/* Base URL, host and tag prefix from cfg; -1 with err when base is bad. */
static int feed_setup(feedctx *f, const atom_cfg *cfg)
{
	xmlURIPtr u = xmlParseURI(cfg->base ? cfg->base : "");
	size_t i, n;
	int rc = -1;

	if (!u || !u->scheme || !u->server || !*u->server ||
	    (strcasecmp(u->scheme, "http") != 0 && strcasecmp(u->scheme, "https") != 0)) {
		snprintf(f->err, f->errlen, "base '%s' is not an absolute http or https URL",
			 cfg->base ? cfg->base : "");
		goto out;
	}
	n = strlen(cfg->base);
	f->base = malloc(n + 2);
	f->host = strdup(u->server);
	if (!f->base || !f->host) {
		oom(f);
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
static int fixed_meta(feedctx *f, evstore *st, const char *key, const char *want,
		      const char *option, char **got)
{
	int r = evstore_meta_get(st, key, got, f->err, f->errlen);

	if (r < 0)
		return -1;
	if (r == 0) {
		*got = strdup(want);
		if (!*got)
			return oom(f);
		return evstore_meta_set(st, key, want, f->err, f->errlen);
	}
	if (option && strcmp(*got, want) != 0) {
		snprintf(f->err, f->errlen, "%s '%s' differs from '%s' this state was made with"
			 " (archives must not change)", option, want, *got);
		return -1;
	}
	return 0;
}

/* Transaction 1: events in, settings checked, full archives sealed. */
static int record(feedctx *f, evstore *st, const ev_event *ev, size_t n, atom_stats *stats)
{
	char ps[32], today[32], *base = NULL, *size = NULL, *date = NULL;
	int rc = -1;

	snprintf(ps, sizeof ps, "%lld", (long long)f->cfg->page_size);
	atom_time(today, sizeof today, f->cfg->now);
	today[10] = '\0';
	if (evstore_begin(st, f->err, f->errlen) != 0)
		return -1;
	if (fixed_meta(f, st, "atom_base", f->base, "base", &base) ||
	    fixed_meta(f, st, "atom_page_size", ps, "page size", &size) ||
	    fixed_meta(f, st, "atom_tag_date", today, NULL, &date))
		goto out;
	f->tag = malloc(strlen(f->host) + strlen(date) + 8);
	if (!f->tag) {
		oom(f);
		goto out;
	}
	/* RFC 4151: tag:authority,date:specific */
	sprintf(f->tag, "tag:%s,%s:", f->host, date);
	if (evstore_add_run(st, ev, n, &stats->events_added, f->err, f->errlen) != 0 ||
	    evstore_seal(st, f->cfg->page_size, f->title, f->author, &stats->archives_sealed,
			 f->err, f->errlen) != 0)
		goto out;
	rc = evstore_commit(st, f->err, f->errlen);
out:
	if (rc != 0)
		evstore_rollback(st);
	free(base);
	free(size);
	free(date);
	return rc;
}

/* Transaction 2: the files, with the bookkeeping of what is on disk. */
static int write_all(feedctx *f, evstore *st, const ev_event *cur, size_t n, atom_stats *stats)
{
	lbuf p = LBUF_INIT;
	int64_t last;

	if (lbuf_addf(&p, "%s/archive", f->dir) != 0)
		return oom(f);
	if (mkdir_p(p.data, 0755) != 0) {
		snprintf(f->err, f->errlen, "cannot create '%s': %s", p.data, strerror(errno));
		lbuf_release(&p);
		return -1;
	}
	lbuf_release(&p);
	if (evstore_begin(st, f->err, f->errlen) != 0)
		return -1;
	if (write_archives(f, st, stats) != 0 || write_index(f, st) != 0 ||
	    write_current(f, cur, n) != 0 ||
	    evstore_archived(st, &last, &stats->archives_total, f->err, f->errlen) != 0 ||
	    evstore_commit(st, f->err, f->errlen) != 0) {
		evstore_rollback(st);
		return -1;
	}
	stats->current_entries = n;
	return 0;
}

int atom_publish(evstore *st, const char *dir, const atom_cfg *cfg,
		 const ev_event *new_ev, size_t n_new,
		 const ev_event *cur, size_t n_cur,
		 atom_stats *stats, char *err, size_t errlen)
{
	atom_cfg c = *cfg;
	feedctx f;
	lbuf title = LBUF_INIT;
	int rc = -1;

	memset(stats, 0, sizeof *stats);
	memset(&f, 0, sizeof f);
	/* scale (issue 10): never NULL, an empty index.atom fwrite()s body.data */
	lbuf_init(&f.body);
	lbuf_init(&f.doc);
	lbuf_init(&f.tmp);
	lbuf_init(&f.key);
	f.err = err;
	f.errlen = errlen;
	f.dir = dir;
	if (c.page_size == 0)
		c.page_size = ATOM_DEFAULT_PAGE_SIZE;
	f.cfg = &c;
	if (c.page_size < 1) {
		snprintf(err, errlen, "page size must be at least 1");
		return -1;
	}
	if (feed_setup(&f, &c) != 0)
		goto out;
	if (!c.title && lbuf_addf(&title, "%s updates", f.host) != 0) {
		oom(&f);
		goto out;
	}
	f.title = c.title ? c.title : title.data;
	f.author = c.author && *c.author ? c.author : f.host;
	if (record(&f, st, new_ev, n_new, stats) == 0 && write_all(&f, st, cur, n_cur, stats) == 0)
		rc = 0;
out:
	lbuf_release(&title);
	lbuf_release(&f.body);
	lbuf_release(&f.doc);
	lbuf_release(&f.tmp);
	lbuf_release(&f.key);
	free(f.base);
	free(f.host);
	free(f.tag);
	return rc;
}
