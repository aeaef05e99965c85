/*
 * sitemap.c: a sitemap body to (loc, lastmod) entries (ant_sitemap.h),
 * streamed: the body is decoded piece by piece (gzip or plain, the cap on
 * decoded bytes stopping a bomb), scanned for a <!DOCTYPE> on the way, and
 * pulled by libxml2's xmlTextReader, which holds one node at a time.
 */
#include "ant_sitemap.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/xmlreader.h>

#include "lb_buf.h"
#include "lb_utf8.h"
#include "lirs.h"
#include "lirs_gunzip.h"
#include "ant_feed.h"
#include "ant_limits.h"

/* Bytes of a <lastmod> kept: a W3C datetime is at most 35. */
#define LASTMOD_MAX 64
/* Entries between two looks at the clock. */
#define CLOCK_EVERY 256

void ant_sitemap_limits_init(ant_sitemap_limits *l)
{
	l->max_bytes = ANT_SITEMAP_MAX_BYTES;
	l->max_urls = ANT_SITEMAP_MAX_URLS;
	l->max_children = ANT_SITEMAP_MAX_CHILDREN;
	l->max_depth = ANT_SITEMAP_MAX_DEPTH;
	l->max_seconds = ANT_SITEMAP_MAX_SECONDS;
}

int ant_sitemap_limit_set(ant_sitemap_limits *l, const char *spec, lb_error *err)
{
	static const struct { const char *name; int64_t min, max; } tab[] = {
		{ "bytes", 1024, (int64_t)1 << 40 }, { "urls", 1, 100000000 },
		{ "children", 0, 1000000 }, { "depth", 0, 16 }, { "seconds", 1, 86400 },
	};
	const char *eq = strchr(spec, '=');
	char *end;
	long long v;

	for (size_t i = 0; eq && i < sizeof tab / sizeof tab[0]; i++) {
		if (strlen(tab[i].name) != (size_t)(eq - spec) || strncmp(spec, tab[i].name, (size_t)(eq - spec)))
			continue;
		v = strtoll(eq + 1, &end, 10);
		if (!isdigit((unsigned char)eq[1]) || *end || v < tab[i].min || v > tab[i].max)
			return lb_err(err, LB_EINVAL, "sitemap limit '%s': %s is a number from %lld to %lld",
				      spec, tab[i].name, (long long)tab[i].min, (long long)tab[i].max);
		switch (i) {
		case 0: l->max_bytes = (uint64_t)v; break;
		case 1: l->max_urls = v; break;
		case 2: l->max_children = v; break;
		case 3: l->max_depth = v; break;
		default: l->max_seconds = v; break;
		}
		return 0;
	}
	return lb_err(err, LB_EINVAL, "sitemap limit '%s': not bytes=N, urls=N, children=N, depth=N "
		      "or seconds=N", spec);
}

/* ---- W3C datetime (https://www.w3.org/TR/NOTE-datetime) ----------------- */

int64_t ant_sitemap_date(const char *s, int *date_only)
{
	size_t n = strlen(s), i;

	if (date_only)
		*date_only = 0;
	/* YYYY, YYYY-MM, YYYY-MM-DD, or that with 'T' and a time with a zone;
	 * ant_feed_parse_date() reads them (and RFC 822, not W3C: refused) */
	for (i = 0; i < 4; i++)
		if (i >= n || !isdigit((unsigned char)s[i]))
			return 0;
	if (strchr(s, ' ') || strchr(s, '\t'))
		return 0;
	if (n != 4 && n != 7 && n != 10 && (n < 11 || s[10] != 'T'))
		return 0;
	if (date_only)
		*date_only = n <= 10;
	return ant_feed_parse_date(s);
}

/* ---- the reader ---------------------------------------------------------- */

struct smctx {
	const ant_sitemap_opts *o;
	ant_sitemap_info *info;
	lb_error *err;
	xmlTextReaderPtr r;
	/* input */
	lirs_gunzip *gz;
	const char *in;
	size_t inlen;
	char tail[9];            /* the last bytes read, for a <!DOCTYPE> cut in two */
	size_t ntail;
	int code;                /* the first failure, told in err */
	/* the document */
	const xmlChar *ns;       /* the root's namespace (interned by the reader's dictionary) */
	int in_entry;            /* inside a <url> or <sitemap> */
	unsigned long line;      /* its line */
	int field;               /* 0 none, 1 <loc>, 2 <lastmod> */
	lb_buf loc, lastmod;
	int loc_long;            /* <loc> was over ANT_MAX_URL bytes */
};

static int fail(struct smctx *c, int code, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct smctx *c, int code, unsigned long line, const char *fmt, ...)
{
	char msg[LB_ERROR_MSG];
	va_list ap;

	if (c->code)
		return c->code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->code = code;
	return lb_err_at(c->err, code, line, 0, "%s", msg);
}

static void diag(struct smctx *c, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diag(struct smctx *c, unsigned long line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	if (!c->o->on_diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->o->on_diag(c->o->ctx, line, msg);
}

/* A <!DOCTYPE> anywhere in the decoded bytes (with the tail of the last
 * piece, for one cut in two): the sitemap is refused before libxml2 reads
 * its declarations. */
static int has_doctype(struct smctx *c, const char *buf, size_t n)
{
	char seam[18];
	size_t k = n < 8 ? n : 8;

	memcpy(seam, c->tail, c->ntail);
	memcpy(seam + c->ntail, buf, k);
	if (memmem(seam, c->ntail + k, "<!DOCTYPE", 9) || memmem(buf, n, "<!DOCTYPE", 9))
		return 1;
	if (n >= 8) {
		memcpy(c->tail, buf + n - 8, 8);
		c->ntail = 8;
	} else {
		size_t keep = c->ntail + n > 8 ? 8 - n : c->ntail;

		memmove(c->tail, c->tail + c->ntail - keep, keep);
		memcpy(c->tail + keep, buf, n);
		c->ntail = keep + n;
	}
	return 0;
}

/* libxml2's read callback (xmlInputReadCallback): the next decoded bytes,
 * 0 at the end, IO_FAILED on a failure (told in c->err). */
#define IO_FAILED (-1)

static int io_read(void *ctx, char *buf, int len)
{
	struct smctx *c = ctx;
	int64_t n;

	if (c->code)
		return IO_FAILED;
	if (c->o->step && (size_t)len > c->o->step)
		len = (int)c->o->step;
	n = lirs_gunzip_read(c->gz, &c->in, &c->inlen, buf, (size_t)len);
	c->info->bytes = lirs_gunzip_total(c->gz);
	if (n == LB_ETOOBIG)
		return fail(c, LB_ETOOBIG, 0, "over %" PRIu64 " bytes %s (a sitemap's limit: "
			    "a bomb?)", c->o->max_bytes ? c->o->max_bytes : ANT_SITEMAP_MAX_BYTES,
			    lirs_gunzip_was_gzip(c->gz) ? "decompressed" : "long"), IO_FAILED;
	if (n < 0)
		return fail(c, (int)n, 0, "bad gzip data: %s", lb_strerror((int)n)), IO_FAILED;
	if (n > 0 && has_doctype(c, buf, (size_t)n))
		return fail(c, LB_EPARSE, 0, "a <!DOCTYPE> in a sitemap: refused (entities are "
			    "not expanded; an entity bomb?)"), IO_FAILED;
	return (int)n;
}

static int io_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static void on_error(void *arg, xmlErrorPtr e)
{
	struct smctx *c = arg;
	char msg[400];
	size_t n;

	if (!e || e->level < XML_ERR_ERROR || c->code)
		return;
	snprintf(msg, sizeof msg, "%s", e->message ? e->message : "error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (e->line > 0)
		fail(c, LB_EPARSE, (unsigned long)e->line, "line %d: not well-formed XML: %s", e->line, msg);
	else
		fail(c, LB_EPARSE, 0, "not well-formed XML: %s", msg);
}

static int in_ns(struct smctx *c)
{
	const xmlChar *ns = xmlTextReaderConstNamespaceUri(c->r);

	return (!ns && !c->ns) || (ns && c->ns && xmlStrEqual(ns, c->ns));
}

static void trim(lb_buf *b)
{
	size_t i = 0, n = b->len;

	if (!n)
		return;   /* maybe lb_buf's static "": never written */
	while (n && isspace((unsigned char)b->data[n - 1]))
		n--;
	while (i < n && isspace((unsigned char)b->data[i]))
		i++;
	memmove(b->data, b->data + i, n - i);
	b->len = n - i;
	b->data[b->len] = '\0';
}

/* The root: <urlset> or <sitemapindex>, whose namespace its entries share
 * (an <image:loc> inside a <url> is not the page's). */
static int root(struct smctx *c, const char *name, unsigned long line)
{
	if (!strcmp(name, "urlset"))
		c->info->kind = ANT_SITEMAP_URLSET;
	else if (!strcmp(name, "sitemapindex"))
		c->info->kind = ANT_SITEMAP_INDEX;
	else
		return fail(c, LB_EPARSE, line, "line %lu: the root element is <%.64s>, not <urlset> or "
			    "<sitemapindex>: not a sitemap", line, name);
	c->ns = xmlTextReaderConstNamespaceUri(c->r);
	return 0;
}

static int start_element(struct smctx *c)
{
	const char *name = (const char *)xmlTextReaderConstLocalName(c->r);
	int depth = xmlTextReaderDepth(c->r);
	xmlNodePtr nd = xmlTextReaderCurrentNode(c->r);
	/* the node's own line: the parser's is where it has read ahead to */
	unsigned long line = nd ? (unsigned long)xmlGetLineNo(nd) : 0;
	const char *entry = c->info->kind == ANT_SITEMAP_INDEX ? "sitemap" : "url";

	if (!name)
		return 0;
	if (depth == 0)
		return root(c, name, line);
	if (depth == 1 && in_ns(c) && !strcmp(name, entry)) {
		c->in_entry = 1;
		c->line = line;
		c->loc_long = 0;
		lb_buf_reset(&c->loc);
		lb_buf_reset(&c->lastmod);
		if (xmlTextReaderIsEmptyElement(c->r))
			c->in_entry = 2;   /* ends here: no END_ELEMENT comes */
	} else if (depth == 2 && c->in_entry && in_ns(c)) {
		c->field = !strcmp(name, "loc") ? 1 : !strcmp(name, "lastmod") ? 2 : 0;
		if (c->field && xmlTextReaderIsEmptyElement(c->r))
			c->field = 0;
	}
	return 0;
}

/* Text of <loc> (at most ANT_MAX_URL bytes kept) or <lastmod>. */
static int text(struct smctx *c)
{
	const char *v = (const char *)xmlTextReaderConstValue(c->r);
	lb_buf *b = c->field == 1 ? &c->loc : &c->lastmod;
	size_t max = c->field == 1 ? ANT_MAX_URL + 64 : LASTMOD_MAX, n;

	if (!v || xmlTextReaderDepth(c->r) != 3)
		return 0;
	n = strlen(v);
	if (b->len + n > max) {
		n = b->len < max ? max - b->len : 0;
		c->loc_long |= c->field == 1;
	}
	return lb_buf_add(b, v, n) < 0 ? fail(c, LB_ENOMEM, 0, "out of memory") : 0;
}

static int entry_done(struct smctx *c)
{
	ant_sitemap_entry e = { .kind = c->info->kind, .line = c->line };
	int64_t max = c->o->max_urls > 0 ? c->o->max_urls : ANT_SITEMAP_MAX_URLS;

	c->in_entry = c->field = 0;
	if (++c->info->entries > max)
		return fail(c, LB_ETOOBIG, c->line, "line %lu: more than %" PRId64 " entries (a sitemap's "
			    "limit): the rest is not read", c->line, max);
	trim(&c->loc);
	trim(&c->lastmod);
	if (!c->loc.len || c->loc_long || c->loc.len > ANT_MAX_URL) {
		c->info->bad_locs++;
		diag(c, c->line, c->loc.len ? "<loc> over %d bytes: entry skipped" :
			 "no <loc>: entry skipped", ANT_MAX_URL);
		return 0;
	}
	e.loc = c->loc.data;
	e.lastmod_text = c->lastmod.data;
	if (c->lastmod.len && !(e.lastmod = ant_sitemap_date(c->lastmod.data, &e.date_only))) {
		c->info->bad_dates++;
		diag(c, c->line, "<lastmod> '%.*s' is not a W3C datetime: date left out",
		     (int)lb_utf8_clip(c->lastmod.data, 40), c->lastmod.data);
	}
	if (c->o->deadline_ms && c->info->entries % CLOCK_EVERY == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 > c->o->deadline_ms)
			return fail(c, LB_ETOOBIG, c->line, "line %lu: out of time (a sitemap's limit): "
				    "the rest is not read", c->line);
	}
	if (c->o->on_entry && c->o->on_entry(c->o->ctx, &e))
		return fail(c, LB_ESTOP, c->line, "stopped");
	return 0;
}

static int node(struct smctx *c)
{
	int t = xmlTextReaderNodeType(c->r);
	int rc = 0;

	if (t == XML_READER_TYPE_ELEMENT) {
		rc = start_element(c);
		if (rc == 0 && c->in_entry == 2)
			rc = entry_done(c);
	} else if ((t == XML_READER_TYPE_TEXT || t == XML_READER_TYPE_CDATA ||
		    t == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) && c->field) {
		rc = text(c);
	} else if (t == XML_READER_TYPE_END_ELEMENT) {
		int depth = xmlTextReaderDepth(c->r);

		if (depth == 2)
			c->field = 0;
		else if (depth == 1 && c->in_entry)
			rc = entry_done(c);
	} else if (t == XML_READER_TYPE_DOCUMENT_TYPE) {
		rc = fail(c, LB_EPARSE, 0, "a <!DOCTYPE> in a sitemap: refused");
	}
	return rc;
}

int ant_sitemap_parse(const char *body, size_t len, const ant_sitemap_opts *o,
		      ant_sitemap_info *info, lb_error *err)
{
	struct smctx c = { .o = o, .info = info, .err = err, .in = body, .inlen = len,
			   .loc = LB_BUF_INIT, .lastmod = LB_BUF_INIT };
	/* errors raised outside the parser (the input's encoding conversion)
	 * go to the thread's handler, stderr by default: ours while reading */
	xmlStructuredErrorFunc old = xmlStructuredError;
	void *oldctx = xmlStructuredErrorContext;
	int rc = 1;

	memset(info, 0, sizeof *info);
	if (len == 0)
		return lb_err(err, LB_EPARSE, "an empty body: not a sitemap");
	if (!(c.gz = lirs_gunzip_new(o->max_bytes ? o->max_bytes : ANT_SITEMAP_MAX_BYTES)))
		return lb_err(err, LB_ENOMEM, "out of memory");
	xmlSetStructuredErrorFunc(&c, on_error);   /* the reader reads as it is made */
	/* NONET, no NOENT (no substitution), no DTDLOAD, no DTDATTR */
	c.r = xmlReaderForIO(io_read, io_close, &c, NULL, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			     XML_PARSE_BIG_LINES);
	if (!c.r) {
		xmlSetStructuredErrorFunc(oldctx, old);
		lirs_gunzip_free(c.gz);
		return c.code ? c.code : lb_err(err, LB_ENOMEM, "out of memory");
	}
	xmlTextReaderSetStructuredErrorHandler(c.r, on_error, &c);
	while (!c.code && (rc = xmlTextReaderRead(c.r)) == 1)
		node(&c);
	if (!c.code && rc < 0)
		fail(&c, LB_EPARSE, 0, "not well-formed XML");
	if (!c.code && info->kind == ANT_SITEMAP_UNKNOWN)
		fail(&c, LB_EPARSE, 0, "no <urlset> or <sitemapindex>: not a sitemap");
	info->gzip = lirs_gunzip_was_gzip(c.gz);
	info->bytes = lirs_gunzip_total(c.gz);
	xmlFreeTextReader(c.r);
	xmlSetStructuredErrorFunc(oldctx, old);
	lirs_gunzip_free(c.gz);
	lb_buf_release(&c.loc);
	lb_buf_release(&c.lastmod);
	return c.code;
}
