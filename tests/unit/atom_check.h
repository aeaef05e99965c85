/*
 * atom_check.h: what every Atom document the project writes must be,
 * checked in-process (shared by t_atom_prop.c and fuzz/fuzz_atom.c):
 *   - well-formed XML by libxml2's parser (no recovery, any error fails),
 *   - valid against RFC 4287's RELAX NG schema (tests/atom/atom.rng, by
 *     libxml2's xmlRelaxNG),
 *   - every atom:id a valid IRI (RFC 3987 §2.2), entry ids tag: URIs
 *     (RFC 4151 §2.1), every link href made of IRI characters only.
 * Header-only, like tap.h.  The IRI grammar is written out here again on
 * purpose: it must not share code with the writer it checks.
 */
#ifndef ATOM_CHECK_H
#define ATOM_CHECK_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

typedef struct ac_ctx {
	xmlRelaxNGPtr schema;
	char msg[512];        /* why the last check failed */
	int errors;           /* libxml2 errors during one check */
	void (*on_id)(void *ctx, const char *id);   /* each entry id (may be NULL) */
	void *id_ctx;
} ac_ctx;

static void ac_fail(ac_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ac_fail(ac_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->msg[0])
		return;   /* keep the first */
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
}

static void ac_on_error(void *ctx, xmlErrorPtr e)
{
	ac_ctx *c = ctx;

	size_t n = e->message ? strcspn(e->message, "\n") : 1;

	c->errors++;
	ac_fail(c, "libxml2 line %d: %.*s", e->line, (int)n, e->message ? e->message : "?");
}

/* 0, or -1 with c->msg: the schema cannot be loaded. */
static int ac_init(ac_ctx *c, const char *rng_path)
{
	xmlRelaxNGParserCtxtPtr p;

	memset(c, 0, sizeof *c);
	xmlInitParser();
	xmlSetStructuredErrorFunc(c, (xmlStructuredErrorFunc)ac_on_error);
	p = xmlRelaxNGNewParserCtxt(rng_path);
	c->schema = p ? xmlRelaxNGParse(p) : NULL;
	if (p)
		xmlRelaxNGFreeParserCtxt(p);
	if (!c->schema) {
		ac_fail(c, "cannot load the schema '%s'", rng_path);
		return -1;
	}
	c->msg[0] = '\0';
	return 0;
}

static void ac_done(ac_ctx *c)
{
	if (c->schema)
		xmlRelaxNGFree(c->schema);
	xmlSetStructuredErrorFunc(NULL, NULL);
}

/* ---- RFC 3987 --------------------------------------------------------- */

/* One strictly decoded UTF-8 character at s, or -1 (invalid); *n bytes. */
static long ac_utf8(const unsigned char *s, size_t *n)
{
	long c, min;
	size_t len, i;

	if (s[0] < 0x80) { *n = 1; return s[0]; }
	if ((s[0] & 0xE0) == 0xC0) { len = 2; c = s[0] & 0x1F; min = 0x80; }
	else if ((s[0] & 0xF0) == 0xE0) { len = 3; c = s[0] & 0x0F; min = 0x800; }
	else if ((s[0] & 0xF8) == 0xF0) { len = 4; c = s[0] & 0x07; min = 0x10000; }
	else return -1;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (s[i] & 0x3F);
	}
	*n = len;
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return -1;
	return c;
}

/* ucschar (RFC 3987 §2.2) */
static int ac_ucschar(long c)
{
	static const long r[][2] = {
		{ 0xA0, 0xD7FF }, { 0xF900, 0xFDCF }, { 0xFDF0, 0xFFEF },
		{ 0x10000, 0x1FFFD }, { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
		{ 0x40000, 0x4FFFD }, { 0x50000, 0x5FFFD }, { 0x60000, 0x6FFFD },
		{ 0x70000, 0x7FFFD }, { 0x80000, 0x8FFFD }, { 0x90000, 0x9FFFD },
		{ 0xA0000, 0xAFFFD }, { 0xB0000, 0xBFFFD }, { 0xC0000, 0xCFFFD },
		{ 0xD0000, 0xDFFFD }, { 0xE1000, 0xEFFFD },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (c >= r[i][0] && c <= r[i][1])
			return 1;
	return 0;
}

/* iprivate */
static int ac_iprivate(long c)
{
	return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) ||
	       (c >= 0x100000 && c <= 0x10FFFD);
}

static int ac_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Checks s[0..) as a run of ipchar / "/" / "?" (and, after the first "?",
 * iprivate: iquery; with frag_ok a single "#" starting ifragment).
 * extra: more ASCII allowed (the authority's "[" "]").  1 when valid.
 */
static int ac_ipchars(const char *str, int frag_ok, const char *extra, char *why, size_t wlen)
{
	const unsigned char *s = (const unsigned char *)str;
	int query = 0, frag = 0;

	while (*s) {
		size_t n = 1;
		long c = ac_utf8(s, &n);

		if (c < 0) {
			snprintf(why, wlen, "invalid UTF-8 at byte %d", (int)(s - (const unsigned char *)str));
			return 0;
		}
		if (c == '%') {
			if (!ac_hex(s[1]) || !ac_hex(s[2])) {
				snprintf(why, wlen, "'%%' not followed by two hex digits");
				return 0;
			}
			n = 3;
		} else if (c == '#' && frag_ok && !frag) {
			frag = 1;
		} else if (c == '?') {
			query = 1;
		} else if (c < 0x80) {
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			      strchr("-._~!$&'()*+,;=:@/", (int)c) || (extra && strchr(extra, (int)c)))) {
				snprintf(why, wlen, "character 0x%02lX not allowed", c);
				return 0;
			}
		} else if (!ac_ucschar(c) && !(query && !frag && ac_iprivate(c))) {
			snprintf(why, wlen, "U+%04lX not allowed", c);
			return 0;
		}
		s += n;
	}
	return 1;
}

/* An entry or feed id: "tag:" DNSname "," date ":" specific (RFC 4151 §2.1,
 * the specific part in its IRI form).  1 when valid. */
static int ac_tag_ok(const char *id, char *why, size_t wlen)
{
	const char *p = id + 4, *q;
	int d = 0;

	if (strncmp(id, "tag:", 4) != 0) {
		snprintf(why, wlen, "not a tag: URI");
		return 0;
	}
	for (q = p; *q && *q != ','; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-' || *q == '.')) {
			snprintf(why, wlen, "authority is not a lowercase DNS name");
			return 0;
		}
	if (q == p || *q != ',') {
		snprintf(why, wlen, "no authority");
		return 0;
	}
	for (p = q + 1; p[d] >= '0' && p[d] <= '9'; d++)
		;
	if (d != 4 || p[4] != '-' || p[7] != '-' || p[10] != ':') {
		snprintf(why, wlen, "no YYYY-MM-DD date");
		return 0;
	}
	return ac_ipchars(p + 11, 0, NULL, why, wlen);
}

/* A link's href: "http" ["s"] "://" then IRI characters only.  1 when valid. */
static int ac_href_ok(const char *href, char *why, size_t wlen)
{
	const char *p = strstr(href, "://"), *end;
	char auth[4096];

	if (!p || (strncmp(href, "http://", 7) != 0 && strncmp(href, "https://", 8) != 0 &&
		   strncasecmp(href, "http://", 7) != 0 && strncasecmp(href, "https://", 8) != 0)) {
		snprintf(why, wlen, "not an absolute http(s) IRI");
		return 0;
	}
	p += 3;
	end = p + strcspn(p, "/?#");
	if ((size_t)(end - p) >= sizeof auth) {
		snprintf(why, wlen, "authority too long for the checker");
		return 0;
	}
	memcpy(auth, p, (size_t)(end - p));
	auth[end - p] = '\0';
	return ac_ipchars(auth, 0, "[]", why, wlen) && ac_ipchars(end, 1, NULL, why, wlen);
}

/* ---- a document -------------------------------------------------------- */

static int ac_is(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static void ac_walk(ac_ctx *c, xmlNodePtr feed)
{
	char why[128];

	for (xmlNodePtr n = feed->children; n; n = n->next) {
		if (ac_is(n, "id") || ac_is(n, "entry")) {
			xmlNodePtr idn = n;
			if (ac_is(n, "entry"))
				for (idn = n->children; idn && !ac_is(idn, "id"); idn = idn->next)
					;
			xmlChar *id = idn ? xmlNodeGetContent(idn) : NULL;
			if (!id || !ac_tag_ok((const char *)id, why, sizeof why))
				ac_fail(c, "id '%s' is not a valid tag IRI: %s", id ? (char *)id : "", why);
			else if (ac_is(n, "entry") && c->on_id)
				c->on_id(c->id_ctx, (const char *)id);
			xmlFree(id);
		}
		if (ac_is(n, "link") || ac_is(n, "entry")) {
			xmlNodePtr l = ac_is(n, "link") ? n : n->children;
			for (; l; l = ac_is(n, "link") ? NULL : l->next) {
				if (!ac_is(l, "link"))
					continue;
				xmlChar *h = xmlGetProp(l, (const xmlChar *)"href");
				if (!h || !ac_href_ok((const char *)h, why, sizeof why))
					ac_fail(c, "href '%s' is not an IRI: %s", h ? (char *)h : "", why);
				xmlFree(h);
			}
		}
	}
}

/* 1 when the file at path is all it must be; 0 with c->msg. */
static int ac_check_file(ac_ctx *c, const char *path)
{
	xmlDocPtr doc;
	xmlRelaxNGValidCtxtPtr v;
	int valid;

	c->msg[0] = '\0';
	c->errors = 0;
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	if (!doc || c->errors) {
		ac_fail(c, "not well-formed");
		if (doc)
			xmlFreeDoc(doc);
		return 0;
	}
	v = xmlRelaxNGNewValidCtxt(c->schema);
	xmlRelaxNGSetValidStructuredErrors(v, (xmlStructuredErrorFunc)ac_on_error, c);
	valid = xmlRelaxNGValidateDoc(v, doc) == 0;
	xmlRelaxNGFreeValidCtxt(v);
	if (!valid)
		ac_fail(c, "not valid against RFC 4287's schema");
	else
		ac_walk(c, xmlDocGetRootElement(doc));
	xmlFreeDoc(doc);
	return c->msg[0] == '\0';
}

/* Removes PATH and everything below it: the scratch directories both
 * users write their Atom documents into. */
static void ac_rm_rf(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char p[4096];

	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", path, e->d_name);
			ac_rm_rf(p);
		}
	closedir(d);
	rmdir(path);
}

#endif
