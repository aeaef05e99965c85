/*
 * import_opml.c: an OPML outline (OPML 2.0, and the 1.0 feed lists feed
 * readers write), read with libxml2's streaming reader (no network, no
 * external entities).
 *
 *   <outline> with htmlUrl, url (type="link") or xmlUrl is an entry: a
 *   page at htmlUrl, else url, else xmlUrl; type="lirs" (what 'antenna
 *   export' writes for LIRS sources) is a LIRS source at xmlUrl (or url);
 *   antenna:source="atom" (an Atom source, written as a type="rss"
 *   outline for feed readers), "sitemap" (a type="link" outline) or
 *   "lirs" is a source of that kind;
 *   antenna:relay="1" makes it a relay source ('add --relay').
 *   title, else text (unless it is the URL), is the title; a title
 *   attribute is the operator's title.
 *   <outline> without a URL is a folder: the outlines inside it are in the
 *   group named by its title or text; nested folders are joined with "/".
 *   An entry with a page URL and an xmlUrl is that page with xmlUrl as its
 *   feed ('antenna add --feed').  An outline with only an xmlUrl (a feed
 *   reader's subscription) is a page at the feed's URL with that feed as
 *   its feed, and a note: the site's URL is not known without fetching
 *   the feed.  antenna export writes such a page back the same way.
 *   antenna:author, antenna:ignore and antenna:only (patterns, one per
 *   line), antenna:charset, antenna:check-url, antenna:no-auto-ignore
 *   ("1"), antenna:when (patterns, one per line) and antenna:render ("1"),
 *   in the namespace ANT_IMP_OPML_NS, carry what OPML has no attribute for
 *   (the taught noise only JSON Lines carries).
 */
#include "ant_import.h"
#include "import_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/xmlreader.h>

#include "lb_url.h"
#include "lirs.h"
#include "ant_page.h"
#include "ant_when.h"

typedef struct octx {
	const ant_imp_opts *o;
	xmlTextReaderPtr r;
	lb_buf group;
	size_t glen[ANT_IMPORT_MAX_DEPTH + 1];   /* group length before each folder */
	int folder[ANT_IMPORT_MAX_DEPTH + 1];    /* depth d is a folder outline */
	int stop, err, seen_root;
	lb_buf ign, only, when;
} octx;

static void on_error(void *arg, xmlErrorPtr e)
{
	octx *c = arg;
	char msg[512];
	size_t n;

	if (!e || c->err)
		return;
	snprintf(msg, sizeof msg, "%s", e->message ? e->message : "error");
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	ant_imp_diagf(c->o, ANT_IMP_ERROR, (unsigned long)(e->line > 0 ? e->line : 0),
		  (unsigned long)(e->int2 > 0 ? e->int2 : 0), "not well-formed XML: %s", msg);
	c->err = 1;
}

static char *attr(octx *c, const char *name)
{
	return (char *)xmlTextReaderGetAttribute(c->r, (const xmlChar *)name);
}

static char *attr_ns(octx *c, const char *name)
{
	return (char *)xmlTextReaderGetAttributeNs(c->r, (const xmlChar *)name,
						   (const xmlChar *)ANT_IMP_OPML_NS);
}

static int nonempty(const char *s) { return s && *s; }

/* antenna:ignore or antenna:only: one pattern per line, each checked as
 * 'antenna add --ignore' does, into out. */
static void patterns_attr(octx *c, lb_buf *out, const char *what, const char *v, unsigned long line)
{
	lb_error err = LB_ERROR_INIT;

	lb_buf_reset(out);
	while (v && *v) {
		size_t n = strcspn(v, "\n");
		lb_buf tmp = LB_BUF_INIT;
		if (n && lb_buf_add(&tmp, v, n) == 0) {
			if ((out == &c->only ? ant_page_only_check(tmp.data, &err)
					     : out == &c->when ? ant_when_check(tmp.data, &err)
					     : ant_page_pattern_check(tmp.data, &err)) < 0)
				ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "%s pattern '%s': %.255s", what, tmp.data,
					      lb_error_msg(&err));
			else
				ant_imp_add_pattern(out, "", tmp.data, tmp.len);
		}
		lb_buf_release(&tmp);
		v += n + (v[n] == '\n');
	}
}

/* An optional URL attribute: NULL (listed) when it is not http(s). */
static const char *url_attr(octx *c, const char *what, const char *v, unsigned long line)
{
	if (!nonempty(v))
		return NULL;
	if (lb_url_is_http(v))
		return v;
	ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "%s '%s' is not an absolute http or https URL", what, v);
	return NULL;
}

static void outline(octx *c, int depth)
{
	char *html = attr(c, "htmlUrl"), *url = attr(c, "url"), *xml = attr(c, "xmlUrl");
	char *type = attr(c, "type"), *title = attr(c, "title"), *text = attr(c, "text");
	char *author = attr_ns(c, "author"), *ign = attr_ns(c, "ignore"), *cs = attr_ns(c, "charset");
	char *only = attr_ns(c, "only"), *check = attr_ns(c, "check-url"), *noauto = attr_ns(c, "no-auto-ignore");
	unsigned long line = (unsigned long)xmlTextReaderGetParserLineNumber(c->r);
	char *skind = attr_ns(c, "source"), *relay = attr_ns(c, "relay");
	char *when = attr_ns(c, "when"), *render = attr_ns(c, "render");
	int atom = skind && !strcmp(skind, "atom"), sitemap = skind && !strcmp(skind, "sitemap");
	int source = atom || sitemap || (skind && !strcmp(skind, "lirs")) || (type && !strcasecmp(type, "lirs"));
	const char *u = source ? (nonempty(xml) ? xml : url)
			       : nonempty(html) ? html : nonempty(url) ? url : xml;
	const char *name = nonempty(title) ? title : text;
	lb_error err = LB_ERROR_INIT;

	if (depth <= ANT_IMPORT_MAX_DEPTH)
		c->folder[depth] = 0;
	if (!nonempty(u)) {
		/* A folder: its outlines are in its group. */
		if (depth <= ANT_IMPORT_MAX_DEPTH && !xmlTextReaderIsEmptyElement(c->r)) {
			c->folder[depth] = 1;
			c->glen[depth] = c->group.len;
			if (nonempty(name)) {
				if (c->group.len)
					lb_buf_addc(&c->group, '/');
				lb_buf_adds(&c->group, name);
			}
		}
		goto out;
	}
	if (!lb_url_is_http(u)) {
		ant_imp_diagf(c->o, ANT_IMP_ERROR, line, 0, "URL '%s' is not an absolute http or https URL", u);
		goto out;
	}
	ant_imp_entry e = { .kind = source ? ANT_IMP_SOURCE : ANT_IMP_PAGE, .atom = atom, .url = u, .title = "", .author = "",
			.group = c->group.data, .ignore = "", .charset = "", .line = line };
	e.sitemap = sitemap;
	e.relay = source && nonempty(relay) && strcmp(relay, "0") && strcmp(relay, "false");
	if (!source) {
		if (nonempty(name) && strcmp(name, u)) {
			e.title = name;
			e.title_by_user = nonempty(title);
		}
		e.author = author ? author : "";
		patterns_attr(c, &c->ign, "ignore", ign, line);
		e.ignore = c->ign.data;
		patterns_attr(c, &c->only, "only", only, line);
		e.only = c->only.data;
		/* a page with its feed (htmlUrl or url, and xmlUrl): a feed
		 * reader's subscription, or what 'antenna export' writes for
		 * a page given --feed */
		if (nonempty(xml))
			e.feed = url_attr(c, "xmlUrl", xml, line);
		/* a feed alone: its site is not known without fetching it */
		if (u == xml)
			ant_imp_diagf(c->o, ANT_IMP_NOTE, line, 0,
				      "'%s' has only an xmlUrl: the feed is watched as the page and as its feed",
				      xml);
		e.check_url = url_attr(c, "antenna:check-url", check, line);
		e.no_auto_ignore = nonempty(noauto) && strcmp(noauto, "0") && strcmp(noauto, "false");
		patterns_attr(c, &c->when, "when", when, line);
		e.when = c->when.data;
		e.render = nonempty(render) && strcmp(render, "0") && strcmp(render, "false");
		if (nonempty(cs)) {
			if (ant_page_charset_check(cs, &err) < 0)
				ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "antenna:charset: %.127s",
					      lb_error_msg(&err));
			else
				e.charset = cs;
		}
	}
	if (c->o->on_entry && c->o->on_entry(c->o->ctx, &e))
		c->stop = 1;
out:
	xmlFree(html); xmlFree(url); xmlFree(xml); xmlFree(type); xmlFree(title);
	xmlFree(text); xmlFree(author); xmlFree(ign); xmlFree(cs);
	xmlFree(only); xmlFree(check); xmlFree(noauto);
	xmlFree(skind);
	xmlFree(relay);
	xmlFree(when);
	xmlFree(render);
}

static void element(octx *c)
{
	const char *name = (const char *)xmlTextReaderConstLocalName(c->r);
	int depth = xmlTextReaderDepth(c->r);
	unsigned long line = (unsigned long)xmlTextReaderGetParserLineNumber(c->r);

	if (!c->seen_root) {
		c->seen_root = 1;
		if (!name || strcmp(name, "opml")) {
			ant_imp_diagf(c->o, ANT_IMP_ERROR, line, 0, "the root element is <%s>, not <opml>", name ? name : "?");
			c->err = 1;
		}
		return;
	}
	if (!name || strcmp(name, "outline"))
		return;
	if (depth > ANT_IMPORT_MAX_DEPTH + 2) {
		ant_imp_diagf(c->o, ANT_IMP_ERROR, line, 0, "outlines nested deeper than %d", ANT_IMPORT_MAX_DEPTH);
		c->err = 1;
		return;
	}
	outline(c, depth);
}

static void end_element(octx *c)
{
	const char *name = (const char *)xmlTextReaderConstLocalName(c->r);
	int depth = xmlTextReaderDepth(c->r);

	if (name && !strcmp(name, "outline") && depth >= 0 && depth <= ANT_IMPORT_MAX_DEPTH &&
	    c->folder[depth]) {
		c->group.len = c->glen[depth];
		if (c->group.cap)    /* still the static "" when no folder had a name */
			c->group.data[c->group.len] = '\0';
		c->folder[depth] = 0;
	}
}

int ant_imp_parse_opml(const char *buf, size_t len, const ant_imp_opts *o)
{
	octx c = { .o = o, .group = LB_BUF_INIT, .ign = LB_BUF_INIT, .only = LB_BUF_INIT, .when = LB_BUF_INIT };
	int rc = 0;

	if (len > 0x7fffffff)
		return ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "file too large for the XML parser"), LB_ETOOBIG;
	c.r = xmlReaderForMemory(buf, (int)len, NULL, NULL,
				 XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!c.r)
		return ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "out of memory"), LB_ENOMEM;
	xmlTextReaderSetStructuredErrorHandler(c.r, on_error, &c);
	while (!c.stop && !c.err && (rc = xmlTextReaderRead(c.r)) == 1) {
		int t = xmlTextReaderNodeType(c.r);
		if (t == XML_READER_TYPE_ELEMENT)
			element(&c);
		else if (t == XML_READER_TYPE_END_ELEMENT)
			end_element(&c);
	}
	if (!c.stop && !c.err && rc < 0)
		ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "not well-formed XML");
	if (!c.stop && !c.err && rc == 0 && !c.seen_root)
		ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "no <opml> element"), c.err = 1;
	xmlFreeTextReader(c.r);
	lb_buf_release(&c.group);
	lb_buf_release(&c.ign);
	lb_buf_release(&c.only);
	lb_buf_release(&c.when);
	return c.stop ? LB_ESTOP : c.err || rc < 0 ? LB_EPARSE : 0;
}
