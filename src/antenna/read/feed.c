/*
 * feed.c: streaming RSS / Atom reader (see ant_feed.h).  libxml2's SAX2 push
 * parser does the XML; this file keeps a few bounded buffers and a depth.
 */
#include "ant_feed.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/entities.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/uri.h>

#include "atom.h"
#include "lb_buf.h"
#include "lb_date.h"
#include "lb_utf8.h"

#define NS_ATOM "http://www.w3.org/2005/Atom"
#define NS_RSS1 "http://purl.org/rss/1.0/"
#define NS_RSS090 "http://my.netscape.com/rdf/simple/0.9/"
#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define NS_DC "http://purl.org/dc/elements/1.1/"
#define NS_FH "http://purl.org/syndication/history/1.0"

/* The entry field being collected. */
enum field { F_NONE, F_TITLE, F_LINK, F_ID, F_UPDATED, F_PUBLISHED, F_PUBDATE, F_DCDATE, F_SUMMARY,
	     F_HOME };

struct ant_feed_parser {
	ant_feed_opts o;
	xmlParserCtxtPtr ctxt;
	char head[4];              /* the first bytes, before the context exists */
	size_t nhead;
	int depth;                 /* of the element being parsed; root = 1 */
	int entry_depth;           /* 0 = not in an entry */
	int field_depth;           /* 0 = not collecting */
	enum field field;
	int field_html;            /* Atom type="html": the text is escaped markup */
	lb_buf text;                 /* the field's text, capped */
	lb_buf title, link, id;      /* the entry's */
	lb_buf summary;              /* the entry's Atom <summary> */
	lb_buf home;                 /* RSS: the channel's <link> */
	int link_alt;              /* link holds a rel="alternate" href */
	lb_buf updated, published, pubdate, dcdate;
	ant_feed_info info;
	int failed;                /* 0, or the code the parse ended with (ant_feed.h) */
	int ignored_errors;        /* references to declared-but-ignored entities */
	char err[256];
};

/* The parse ends with code (LB_EPARSE, LB_ESTOP or LB_ENOMEM) and the
 * message ant_feed_error() gives; the first failure stands. */
static void fail(ant_feed_parser *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(ant_feed_parser *p, int code, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = code;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	if (p->ctxt)
		xmlStopParser(p->ctxt);
}

static int is(const xmlChar *a, const char *b)
{
	return a && strcmp((const char *)a, b) == 0;
}

/* An attribute value (not NUL-terminated in SAX2) equal to b. */
static int val_is(const xmlChar *v, const xmlChar *end, const char *b)
{
	size_t n = strlen(b);

	return v && (size_t)(end - v) == n && memcmp(v, b, n) == 0;
}

/* RSS elements have no namespace (0.9x, 2.0) or RSS 1.0's / 0.90's. */
static int rss_ns(const xmlChar *uri)
{
	return !uri || is(uri, NS_RSS1) || is(uri, NS_RSS090);
}

/* ---- dates ----------------------------------------------------------------- */

/* n digits into *out: 0, or LB_EPARSE (not n digits). */
static int digits(const char **s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (!isdigit((unsigned char)**s))
			return LB_EPARSE;
		v = v * 10 + (**s - '0');
	}
	*out = v;
	return 0;
}

static int64_t make_time(int y, int mo, int d, int h, int mi, int sec, int64_t off)
{
	if (y < 1000 || y > 9999 || !lb_date_valid(y, mo, d, h, mi, sec))
		return 0;
	if (sec == 60)
		sec = 59;   /* RFC 3339 §5.7 leap second: POSIX time has none */
	return lb_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
}

/* "Z", "+09:00", "-0500" (RFC 3339 wants the colon; W3C-DTF too; some omit it). */
static int zone_numeric(const char **s, int64_t *off)
{
	int sign, h, m;

	if (**s == 'Z' || **s == 'z') {
		(*s)++;
		*off = 0;
		return 0;
	}
	if (**s != '+' && **s != '-')
		return LB_EPARSE;
	sign = **s == '-' ? -1 : 1;
	(*s)++;
	if (digits(s, 2, &h) < 0)
		return LB_EPARSE;
	if (**s == ':')
		(*s)++;
	if (digits(s, 2, &m) < 0 || h > 23 || m > 59)
		return LB_EPARSE;
	*off = sign * (h * 3600 + m * 60);
	return 0;
}

static int64_t parse_3339(const char *s)
{
	int y, mo = 1, d = 1, h = 0, mi = 0, sec = 0;
	int64_t off = 0;

	if (digits(&s, 4, &y) < 0)
		return 0;
	if (*s == '-' && (s++, digits(&s, 2, &mo) < 0))
		return 0;
	if (*s == '-' && (s++, digits(&s, 2, &d) < 0))
		return 0;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if (digits(&s, 2, &h) < 0 || *s++ != ':' || digits(&s, 2, &mi) < 0)
			return 0;
		if (*s == ':') {
			s++;
			if (digits(&s, 2, &sec) < 0)
				return 0;
			if (*s == '.' || *s == ',')
				for (s++; isdigit((unsigned char)*s); s++)
					;
		}
		if (zone_numeric(&s, &off) < 0)
			return 0;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s ? 0 : make_time(y, mo, d, h, mi, sec, off);
}

/* RFC 822 §5 zones, and the ones Japanese and US feeds write. */
static int zone_named(const char *z, size_t n, int64_t *off)
{
	static const struct { const char *name; int hours; } tab[] = {
		{ "GMT", 0 }, { "UT", 0 }, { "UTC", 0 }, { "Z", 0 },
		{ "EST", -5 }, { "EDT", -4 }, { "CST", -6 }, { "CDT", -5 },
		{ "MST", -7 }, { "MDT", -6 }, { "PST", -8 }, { "PDT", -7 },
		{ "JST", 9 }, { "KST", 9 }, { "CET", 1 }, { "CEST", 2 }, { "BST", 1 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
		if (strlen(tab[i].name) == n && strncasecmp(z, tab[i].name, n) == 0) {
			*off = tab[i].hours * 3600;
			return 0;
		}
	/* RFC 1123 §5.2.14: military zones mean nothing; take them as UTC. */
	if (n == 1 && isalpha((unsigned char)*z)) {
		*off = 0;
		return 0;
	}
	return LB_EPARSE;
}

static int64_t parse_822(const char *s)
{
	int d, mo, y, h, mi, sec = 0, nd;
	int64_t off = 0;
	const char *z;

	while (isspace((unsigned char)*s))
		s++;
	if (isalpha((unsigned char)*s)) {            /* day of week */
		while (isalpha((unsigned char)*s))
			s++;
		if (*s == ',')
			s++;
		while (isspace((unsigned char)*s))
			s++;
	}
	if (!isdigit((unsigned char)s[0]))
		return 0;
	nd = isdigit((unsigned char)s[1]) ? 2 : 1;
	if (digits(&s, nd, &d) < 0 || !isspace((unsigned char)*s++))
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!(mo = lb_date_month(s)))
		return 0;
	for (s += 3; isalpha((unsigned char)*s) || *s == '.'; s++)   /* "Sept", "Nov." */
		;
	while (isspace((unsigned char)*s))
		s++;
	nd = 0;
	while (isdigit((unsigned char)s[nd]))
		nd++;
	if ((nd != 2 && nd != 4) || digits(&s, nd, &y) < 0)
		return 0;
	if (nd == 2)                                  /* RFC 2822 §4.3 */
		y += y < 50 ? 2000 : 1900;
	while (isspace((unsigned char)*s))
		s++;
	if (digits(&s, 2, &h) < 0 || *s++ != ':' || digits(&s, 2, &mi) < 0)
		return 0;
	if (*s == ':' && (s++, digits(&s, 2, &sec) < 0))
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	z = s;
	if (*s == '+' || *s == '-') {
		if (zone_numeric(&s, &off) < 0)
			return 0;
	} else if (*s) {
		while (isalpha((unsigned char)*s))
			s++;
		if (zone_named(z, (size_t)(s - z), &off) < 0)
			return 0;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s ? 0 : make_time(y, mo, d, h, mi, sec, off);
}

int64_t ant_feed_parse_date(const char *s)
{
	while (s && isspace((unsigned char)*s))
		s++;
	if (!s || !*s)
		return 0;
	/* Some RSS feeds write ISO dates in pubDate; some Atom ones RFC 822. */
	if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
	    isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]))
		return parse_3339(s);
	return parse_822(s);
}

int ant_feed_date_ok(int64_t t, int64_t now, int64_t skew)
{
	if (t < ANT_FEED_MIN_TIME)
		return 0;
	return now <= 0 || t <= now + (skew > 0 ? skew : ANT_FEED_DEFAULT_SKEW);
}

/* ---- text ------------------------------------------------------------------ */

/* Appends at most up to ANT_FEED_MAX_TEXT bytes; the rest is dropped. */
static void text_add(ant_feed_parser *p, const xmlChar *s, int len)
{
	size_t room = ANT_FEED_MAX_TEXT - p->text.len;

	if (len <= 0 || p->text.len >= ANT_FEED_MAX_TEXT)
		return;
	if ((size_t)len > room)
		len = (int)room;
	if (lb_buf_add(&p->text, s, (size_t)len) < 0)
		fail(p, LB_ENOMEM, "out of memory");
}

/* dst = src with whitespace runs collapsed and trimmed, cut at a UTF-8
 * character boundary (a capped text may end mid-character). */
static void take_text(ant_feed_parser *p, lb_buf *dst, const lb_buf *src)
{
	size_t n = lb_utf8_clip(src->data, src->len);
	int space = 1;

	lb_buf_reset(dst);
	for (size_t i = 0; i < n; i++) {
		char c = src->data[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (!space && lb_buf_addc(dst, ' ') < 0)
				fail(p, LB_ENOMEM, "out of memory");
			space = 1;
		} else {
			if (lb_buf_addc(dst, c) < 0)
				fail(p, LB_ENOMEM, "out of memory");
			space = 0;
		}
	}
	if (dst->len && dst->data[dst->len - 1] == ' ')
		dst->data[--dst->len] = '\0';
}

/* An Atom text construct of type="html" (RFC 4287 §3.1.1.2) holds escaped
 * markup: a title or summary shown as "<p>Hi</p>" is worse than none.
 * libxml2's HTML parser reads it forgivingly (no network, no errors
 * printed); its text is kept, with a space for each element boundary
 * so that "a<br>b" does not become "ab". */
static void html_chars(void *ctx, const xmlChar *s, int len)
{
	lb_buf *b = ctx;

	if (len > 0 && b->len < ANT_FEED_MAX_TEXT)
		lb_buf_add(b, s, (size_t)len);
}

static void html_boundary(void *ctx, const xmlChar *name, const xmlChar **a)
{
	html_chars(ctx, (const xmlChar *)" ", 1);
}

static void take_html(ant_feed_parser *p, lb_buf *dst)
{
	htmlSAXHandler sax;
	htmlParserCtxtPtr c;
	lb_buf plain = LB_BUF_INIT;

	memset(&sax, 0, sizeof sax);
	sax.characters = html_chars;
	sax.startElement = html_boundary;
	if (!(c = htmlCreatePushParserCtxt(&sax, &plain, NULL, 0, NULL, XML_CHAR_ENCODING_UTF8))) {
		fail(p, LB_ENOMEM, "out of memory");
		return;
	}
	htmlCtxtUseOptions(c, HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_RECOVER);
	if (p->text.len)
		htmlParseChunk(c, p->text.data, (int)p->text.len, 0);
	htmlParseChunk(c, NULL, 0, 1);
	htmlFreeParserCtxt(c);
	take_text(p, dst, &plain);
	lb_buf_release(&plain);
}

static char *dup_or_null(const lb_buf *b)
{
	return b->len ? strdup(b->data) : NULL;
}

/* ---- SAX handlers ------------------------------------------------------------ */

static const xmlChar **attr(int nattr, const xmlChar **a, const char *name)
{
	/* libxml2 SAX2: 5 pointers per attribute; only used for short
	 * enumerated values (rel), compared by prefix of the value */
	for (int i = 0; i < nattr; i++, a += 5)
		if (is(a[0], name) && !a[2])
			return a;
	return NULL;
}

static char *attr_dup(int nattr, const xmlChar **a, const char *name)
{
	for (int i = 0; i < nattr; i++, a += 5)
		if (is(a[0], name) && !a[2]) {
			size_t n = (size_t)(a[4] - a[3]);
			char *s;
			if (n > ANT_FEED_MAX_TEXT)
				n = ANT_FEED_MAX_TEXT;
			if ((s = malloc(n + 1))) {
				memcpy(s, a[3], n);
				s[n] = '\0';
			}
			return s;
		}
	return NULL;
}

static void entry_begin(ant_feed_parser *p, int nattr, const xmlChar **a)
{
	p->entry_depth = p->depth;
	lb_buf_reset(&p->title);
	lb_buf_reset(&p->link);
	lb_buf_reset(&p->id);
	lb_buf_reset(&p->summary);
	lb_buf_reset(&p->updated);
	lb_buf_reset(&p->published);
	lb_buf_reset(&p->pubdate);
	lb_buf_reset(&p->dcdate);
	p->link_alt = 0;
	/* RSS 1.0 items are named by rdf:about */
	for (int i = 0; i < nattr; i++)
		if (is(a[5 * i], "about") && is(a[5 * i + 2], NS_RDF)) {
			size_t n = (size_t)(a[5 * i + 4] - a[5 * i + 3]);
			if (lb_buf_add(&p->id, a[5 * i + 3], n > ANT_FEED_MAX_TEXT ? ANT_FEED_MAX_TEXT : n) < 0)
				fail(p, LB_ENOMEM, "out of memory");
		}
}

/* Atom link: rel defaults to "alternate" (RFC 4287 §4.2.7.2). */
static void atom_link(ant_feed_parser *p, int nattr, const xmlChar **a, int in_entry)
{
	const xmlChar **ra = attr(nattr, a, "rel");
#define REL(x) (ra && val_is(ra[3], ra[4], x))
	char *href = attr_dup(nattr, a, "href"), **slot = NULL;

	if (!href)
		return;
	if (in_entry) {
		if ((!ra || REL("alternate")) && !p->link_alt) {
			lb_buf_reset(&p->link);
			if (lb_buf_adds(&p->link, href) < 0)
				fail(p, LB_ENOMEM, "out of memory");
			p->link_alt = 1;
		}
		free(href);
		return;
	}
	if (REL("prev-archive") || REL("previous"))
		slot = &p->info.prev_archive;
	else if (REL("next-archive"))
		slot = &p->info.next_archive;
	else if (REL("current"))
		slot = &p->info.current;
	else if (REL("self"))
		slot = &p->info.self;
	else if ((!ra || REL("alternate")) && !p->info.home)
		slot = &p->info.home;   /* the feed's home: the first alternate */
	/* "prev-archive" wins over the older "previous" (RFC 5005 §4). */
	if (slot && (!*slot || REL("prev-archive"))) {
		free(*slot);
		*slot = href;
	} else {
		free(href);
	}
#undef REL
}

static enum field entry_field(ant_feed_parser *p, const xmlChar *name, const xmlChar *uri)
{
	int atom = is(uri, NS_ATOM);

	if (is(uri, NS_DC) && is(name, "date"))
		return F_DCDATE;
	if (p->info.kind == ANT_FEED_ATOM ? !atom : !(rss_ns(uri) || atom))
		return F_NONE;
	if (is(name, "title"))
		return F_TITLE;
	if (is(name, "link") && !atom)
		return F_LINK;
	if (is(name, "id") || (is(name, "guid") && !atom))
		return F_ID;
	if (is(name, "updated") && atom)
		return F_UPDATED;
	if (is(name, "published") && atom)
		return F_PUBLISHED;
	if (is(name, "summary") && atom)
		return F_SUMMARY;
	if (is(name, "pubDate") && !atom)
		return F_PUBDATE;
	return F_NONE;
}

static void root_element(ant_feed_parser *p, const xmlChar *name, const xmlChar *uri)
{
	if (is(name, "feed") && is(uri, NS_ATOM))
		p->info.kind = ANT_FEED_ATOM;
	else if (is(name, "rss") && !uri)
		p->info.kind = ANT_FEED_RSS;
	else if (is(name, "RDF") && is(uri, NS_RDF))
		p->info.kind = ANT_FEED_RDF;
	else
		fail(p, LB_EPARSE, "not an RSS or Atom feed: the root element is <%s>", (const char *)name);
}

static void on_start(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri,
		     int nns, const xmlChar **ns, int nattr, int ndef, const xmlChar **a)
{
	ant_feed_parser *p = ctx;

	if (p->failed)
		return;
	p->depth++;
	if (p->depth == 1) {
		root_element(p, name, uri);
		return;
	}
	if (p->field_depth)
		return;    /* markup inside a field (Atom xhtml): its text counts */
	if (!p->entry_depth) {
		int atom = p->info.kind == ANT_FEED_ATOM;
		if ((atom && is(name, "entry") && is(uri, NS_ATOM)) ||
		    (!atom && is(name, "item") && rss_ns(uri)))
			entry_begin(p, nattr, a);
		else if (p->depth == 2 && is(name, "link") && is(uri, NS_ATOM))
			atom_link(p, nattr, a, 0);
		else if (is(name, "archive") && is(uri, NS_FH))
			p->info.archive = 1;
		else if (!atom && p->depth == 3 && is(name, "link") && rss_ns(uri) && !p->info.home) {
			/* channel/link: the feed's home (RSS 2.0, RSS 1.0) */
			p->field = F_HOME;
			p->field_depth = p->depth;
			p->field_html = 0;
			lb_buf_reset(&p->text);
		}
		return;
	}
	if (p->depth != p->entry_depth + 1)
		return;
	if (is(name, "link") && is(uri, NS_ATOM)) {
		atom_link(p, nattr, a, 1);
		return;
	}
	p->field = entry_field(p, name, uri);
	if (p->field != F_NONE) {
		const xmlChar **type = attr(nattr, a, "type");
		p->field_depth = p->depth;
		p->field_html = p->info.kind == ANT_FEED_ATOM && type && type[4] - type[3] == 4 &&
				strncmp((const char *)type[3], "html", 4) == 0;
		lb_buf_reset(&p->text);
	}
}

static lb_buf *field_buf(ant_feed_parser *p)
{
	switch (p->field) {
	case F_TITLE: return &p->title;
	case F_LINK: return &p->link;
	case F_ID: return &p->id;
	case F_UPDATED: return &p->updated;
	case F_PUBLISHED: return &p->published;
	case F_PUBDATE: return &p->pubdate;
	case F_DCDATE: return &p->dcdate;
	case F_SUMMARY: return &p->summary;
	case F_HOME: return &p->home;
	default: return NULL;
	}
}

/* The first date given, in the order of preference; 0 when none. */
static int64_t entry_date(ant_feed_parser *p, int *bad)
{
	const lb_buf *order[4];
	int n = 0;
	int64_t t;

	if (p->info.kind == ANT_FEED_ATOM) {
		order[n++] = &p->updated;
		order[n++] = &p->published;
		order[n++] = &p->dcdate;
	} else {
		order[n++] = &p->pubdate;
		order[n++] = &p->dcdate;
		order[n++] = &p->updated;
	}
	*bad = 0;
	for (int i = 0; i < n; i++) {
		if (!order[i]->len)
			continue;
		t = ant_feed_parse_date(order[i]->data);
		if (ant_feed_date_ok(t, p->o.now, p->o.skew))
			return t;
		*bad = 1;
		return 0;
	}
	return 0;
}

static void entry_end(ant_feed_parser *p)
{
	ant_feed_entry e = { p->title.data, p->link.data, p->id.data, 0, 0, p->summary.data };

	p->entry_depth = 0;
	e.date = entry_date(p, &e.bad_date);
	p->info.entries++;
	p->info.bad_dates += e.bad_date;
	if (e.date) {
		p->info.dated++;
		if (e.date > p->info.newest) {
			p->info.newest = e.date;
			free(p->info.newest_title);
			free(p->info.newest_link);
			p->info.newest_title = dup_or_null(&p->title);
			p->info.newest_link = dup_or_null(&p->link);
		}
	}
	if (p->o.on_entry && p->o.on_entry(p->o.ctx, &e)) {
		fail(p, LB_ESTOP, "stopped");
	}
}

static void on_end(void *ctx, const xmlChar *name, const xmlChar *prefix, const xmlChar *uri)
{
	ant_feed_parser *p = ctx;

	if (p->failed)
		return;
	if (p->field_depth == p->depth) {
		lb_buf *dst = field_buf(p);
		if (dst && p->field_html)
			take_html(p, dst);
		else if (dst)
			take_text(p, dst, &p->text);
		if (p->field == F_HOME && !p->info.home && !(p->info.home = dup_or_null(&p->home)) &&
		    p->home.len)
			fail(p, LB_ENOMEM, "out of memory");
		p->field_depth = 0;
		p->field = F_NONE;
	} else if (p->entry_depth == p->depth) {
		entry_end(p);
	}
	p->depth--;
}

static void on_chars(void *ctx, const xmlChar *s, int len)
{
	ant_feed_parser *p = ctx;

	if (p->field_depth && !p->failed)
		text_add(p, s, len);
}

/* Only the five predefined entities exist: declared ones are never
 * expanded (no billion laughs), external ones never loaded. */
static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name)
{
	return xmlGetPredefinedEntity(name);
}

static xmlEntityPtr on_get_pentity(void *ctx, const xmlChar *name)
{
	return NULL;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *publicId,
			   const xmlChar *systemId, xmlChar *content)
{
	((ant_feed_parser *)ctx)->info.entity_decls++;
}

static void on_serror(void *ctx, xmlErrorPtr e)
{
	ant_feed_parser *p = ctx;

	/* Warnings (an undeclared entity in a document with a DTD) are no failure. */
	if (!e || e->level < XML_ERR_ERROR)
		return;
	if (e->code == XML_WAR_UNDECLARED_ENTITY || e->code == XML_ERR_UNDECLARED_ENTITY) {
		/* a declared (so ignored) entity: its reference reads as nothing */
		if (p->info.entity_decls) {
			p->ignored_errors++;
			return;
		}
	}
	fail(p, LB_EPARSE, "malformed XML at line %d: %.*s", e->line,
	     e->message ? (int)strcspn(e->message, "\n") : 0, e->message ? e->message : "");
}

/* ---- the parser ---------------------------------------------------------- */

ant_feed_parser *ant_feed_parser_new(const ant_feed_opts *o)
{
	ant_feed_parser *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	if (o)
		p->o = *o;
	lb_buf_init(&p->text);
	lb_buf_init(&p->title);
	lb_buf_init(&p->link);
	lb_buf_init(&p->id);
	lb_buf_init(&p->summary);
	lb_buf_init(&p->home);
	lb_buf_init(&p->updated);
	lb_buf_init(&p->published);
	lb_buf_init(&p->pubdate);
	lb_buf_init(&p->dcdate);
	return p;
}

static int make_ctxt(ant_feed_parser *p)
{
	static xmlSAXHandler sax;

	if (!sax.initialized) {
		/* Set once; every field is a constant, so racing threads write the same. */
		sax.startElementNs = on_start;
		sax.endElementNs = on_end;
		sax.characters = on_chars;
		sax.cdataBlock = on_chars;
		sax.getEntity = on_get_entity;
		sax.getParameterEntity = on_get_pentity;
		sax.entityDecl = on_entity_decl;
		sax.serror = on_serror;
		sax.initialized = XML_SAX2_MAGIC;
	}
	p->ctxt = xmlCreatePushParserCtxt(&sax, p, p->head, (int)p->nhead, NULL);
	if (!p->ctxt) {
		fail(p, LB_ENOMEM, "out of memory");
		return LB_ENOMEM;
	}
	/* No NOENT (no substitution), no DTDLOAD, no HUGE: libxml2's own
	 * amplification limits stay on too.  RECOVER only so that a reference
	 * to an ignored entity does not stop the parse: on_serror() fails the
	 * document on every other error. */
	xmlCtxtUseOptions(p->ctxt, XML_PARSE_NONET | XML_PARSE_RECOVER);
	return 0;
}

int ant_feed_parse_chunk(ant_feed_parser *p, const char *buf, size_t len)
{
	if (p->failed)
		return p->failed;
	/* libxml2 guesses the encoding from the first four bytes. */
	while (!p->ctxt && len && p->nhead < sizeof p->head) {
		p->head[p->nhead++] = *buf++;
		len--;
	}
	if (!p->ctxt && p->nhead == sizeof p->head && make_ctxt(p) < 0)
		return p->failed;
	while (len && !p->failed) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;
		xmlParseChunk(p->ctxt, buf, n, 0);
		buf += n;
		len -= (size_t)n;
	}
	return p->failed;
}

int ant_feed_parse_finish(ant_feed_parser *p, ant_feed_info *out)
{
	if (!p->failed && !p->ctxt)
		make_ctxt(p);   /* fewer than four bytes: let libxml2 say so */
	if (!p->failed && p->ctxt) {
		xmlParseChunk(p->ctxt, NULL, 0, 1);
		if (!p->failed && !p->ctxt->wellFormed && !p->ignored_errors)
			fail(p, LB_EPARSE, "malformed XML");
	}
	if (!p->failed && p->info.kind == ANT_FEED_NONE)
		fail(p, LB_EPARSE, "not an RSS or Atom feed: empty document");
	*out = p->info;
	memset(&p->info, 0, sizeof p->info);
	return p->failed;
}

const char *ant_feed_error(const ant_feed_parser *p)
{
	return p->err;
}

void ant_feed_parser_free(ant_feed_parser *p)
{
	if (!p)
		return;
	if (p->ctxt) {
		/* libxml2 keeps declared entities in a document of its own even
		 * in SAX mode ("expat compatibility"); it is ours to free. */
		if (p->ctxt->myDoc)
			xmlFreeDoc(p->ctxt->myDoc);
		xmlFreeParserCtxt(p->ctxt);
	}
	lb_buf_release(&p->text);
	lb_buf_release(&p->title);
	lb_buf_release(&p->link);
	lb_buf_release(&p->id);
	lb_buf_release(&p->summary);
	lb_buf_release(&p->home);
	lb_buf_release(&p->updated);
	lb_buf_release(&p->published);
	lb_buf_release(&p->pubdate);
	lb_buf_release(&p->dcdate);
	ant_feed_info_release(&p->info);
	free(p);
}

void ant_feed_info_release(ant_feed_info *fi)
{
	if (!fi)
		return;
	free(fi->newest_title);
	free(fi->newest_link);
	free(fi->prev_archive);
	free(fi->next_archive);
	free(fi->current);
	free(fi->self);
	free(fi->home);
	memset(fi, 0, sizeof *fi);
}

int ant_feed_parse(const char *buf, size_t len, const ant_feed_opts *o, ant_feed_info *out,
	       lb_error *err)
{
	ant_feed_parser *p = ant_feed_parser_new(o);
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (!p)
		return lb_err_code(err, LB_ENOMEM);
	for (size_t off = 0; off < len && rc == 0; off += ANT_FEED_CHUNK)
		rc = ant_feed_parse_chunk(p, buf + off, len - off < ANT_FEED_CHUNK ? len - off : ANT_FEED_CHUNK);
	/* a chunk's failure is the document's: finish returns it too */
	if ((rc = ant_feed_parse_finish(p, out)) < 0)
		rc = lb_err(err, rc, "%s", ant_feed_error(p));
	ant_feed_parser_free(p);
	return rc;
}

/* ---- URLs and sniffing --------------------------------------------------- */

char *ant_feed_resolve(const char *base, const char *href)
{
	lb_buf b = LB_BUF_INIT;

	if (!href || strlen(href) > ANT_FEED_MAX_TEXT || atom_resolve(&b, base, href, ATOM_RESOLVE_FILE) < 0) {
		lb_buf_release(&b);
		return NULL;
	}
	return lb_buf_detach(&b, NULL);
}

int ant_feed_looks_like(const char *content_type, const char *body, size_t len)
{
	size_t n = len < 512 ? len : 512;

	if (content_type && (strcasestr(content_type, "rss") || strcasestr(content_type, "atom") ||
			     strcasestr(content_type, "xml")))
		return 1;
	return body && (memmem(body, n, "<rss", 4) || memmem(body, n, "<feed", 5) ||
			memmem(body, n, "<rdf:RDF", 8));
}
