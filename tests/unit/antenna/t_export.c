/*
 * t_export.c: ant_export() (ant_export.h) on a store with pages in groups
 * and a LIRS and an Atom source: the OPML read with libxml2, OPML,
 * samidare and JSON Lines read back by the import parsers to the same
 * watch list, JSON Lines read with json-c; a list larger than one chunk; a stream that cannot be written.
 */
#include "tap.h"
#include "t_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "lb_buf.h"
#include "ant_export.h"
#include "ant_import.h"
#include "import_int.h"
#include "ant_store.h"
#include "ant_settings.h"

static char dir[] = "/tmp/t_export.XXXXXX";

static void add_page(ant_store *s, const char *url, const char *title, int by_user,
		     const char *author, const char *group, const char *ignore, const char *cs)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = p.url_key = (char *)url;
	p.title = (char *)title;
	p.title_set_by_user = by_user;
	p.author = (char *)author;
	p.group = (char *)group;
	p.ignore = (char *)ignore;
	p.force_charset = (char *)cs;
	p.created = 1;
	if (ant_store_page_add(s, &p, &err) != 0)
		printf("# page_add: %s\n", err.msg);
}

/* A page the user gave a feed (feed == url: a page that is its own feed). */
static void add_feed_page(ant_store *s, const char *url, const char *feed)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = p.url_key = (char *)url;
	p.title = p.author = p.ignore = p.force_charset = p.only = "";
	p.group = "Zfeeds";
	p.feed_url = (char *)feed;
	p.feed_by_user = 1;
	p.created = 1;
	if (ant_store_page_add(s, &p, &err) != 0)
		printf("# page_add: %s\n", err.msg);
}

static ant_store *make_store(const char *name)
{
	ant_store_source x;
	ant_store *s;
	char path[300];
	lb_error err = LB_ERROR_INIT;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	t_db_map(path, sizeof path);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", err.msg);
		exit(1);
	}
	ant_store_config_set(s, ant_settings[ANT_SET_TITLE].key, "Mine & <yours>", &err);
	/* Added out of order: the export sorts by group, then URL. */
	add_page(s, "http://z.example/", "Zed", 1, "zed", "Tech", "#ad\n.clock\nto/day \\d+", "euc-jp");
	add_page(s, "http://b.example/?a=1&b=2", "Fetched \"B\"", 0, "", "", "", "");
	add_page(s, "http://a.example/", "", 0, "", "Diary", "", "");
	add_page(s, "http://c.example/", "C \xff broken", 1, "", "", "", "");
	add_feed_page(s, "http://f.example/", "http://f.example/index.rdf");
	add_feed_page(s, "http://g.example/feed.atom", "http://g.example/feed.atom");
	ant_store_source_init(&x);
	x.url = x.url_key = "http://peer.example/lirs.gz";
	x.created = 1;
	if (ant_store_source_add(s, &x, &err) != 0)
		printf("# source_add: %s\n", err.msg);
	ant_store_source_init(&x);
	x.url = x.url_key = "http://relay.example/index.atom";
	x.kind = ANT_STORE_SOURCE_ATOM;
	x.created = 1;
	if (ant_store_source_add(s, &x, &err) != 0)
		printf("# source_add: %s\n", err.msg);
	return s;
}

/* The export in format f as a string (malloc'd), its code in *rc. */
static char *export(ant_store *s, ant_export_format f, int *rc, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&text, &n);
	lb_error err = LB_ERROR_INIT;

	*rc = ant_export(s, f, fp, &err);
	if (*rc < 0)
		printf("# %s\n", lb_error_msg(&err));
	fclose(fp);
	if (len)
		*len = n;
	return text;
}

static xmlChar *attr(xmlNode *n, const char *name)
{
	return xmlGetProp(n, (const xmlChar *)name);
}

static xmlNode *next_el(xmlNode *n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

static int attr_eq(xmlNode *n, const char *name, const char *want)
{
	xmlChar *v = attr(n, name);
	int ok = v && strcmp((char *)v, want) == 0;

	xmlFree(v);
	return ok;
}

static int attr_is(xmlNode *n, const char *name, const char *want)
{
	xmlChar *v = attr(n, name);
	int ok = v && strcmp((char *)v, want) == 0;

	if (!ok)
		printf("# %s=\"%s\", want \"%s\"\n", name, v ? (char *)v : "(none)", want);
	xmlFree(v);
	return ok;
}

static int ns_attr_is(xmlNode *n, const char *name, const char *want)
{
	xmlChar *v = xmlGetNsProp(n, (const xmlChar *)name, (const xmlChar *)ANT_IMP_OPML_NS);
	int ok = v && strcmp((char *)v, want) == 0;

	xmlFree(v);
	return ok;
}

static void test_opml_xml(ant_store *s)
{
	size_t len;
	int rc;
	char *text = export(s, ANT_EXPORT_OPML, &rc, &len);
	xmlDoc *doc;
	xmlNode *root, *head, *body, *o;
	xmlChar *title;

	IS_INT(rc, 0, "opml: written");
	doc = xmlReadMemory(text, (int)len, "export.opml", NULL, XML_PARSE_NONET);
	OK(doc != NULL, "opml: well-formed XML");
	if (!doc) {
		free(text);
		return;
	}
	root = xmlDocGetRootElement(doc);
	OK(root && !strcmp((char *)root->name, "opml") && attr_is(root, "version", "2.0"),
	   "opml: <opml version=\"2.0\">");
	head = next_el(root->children);
	body = head ? next_el(head->next) : NULL;
	title = head ? xmlNodeGetContent(head) : NULL;
	IS_STR((char *)title, "\n    Mine & <yours>\n  ", "opml: the title from the config, escaped");
	xmlFree(title);
	OK(body && !strcmp((char *)body->name, "body"), "opml: a body");
	o = body ? next_el(body->children) : NULL;
	/* no group first, by URL */
	OK(o && attr_is(o, "url", "http://b.example/?a=1&b=2") && attr_is(o, "text", "Fetched \"B\"") &&
	   !xmlHasProp(o, (const xmlChar *)"title") && attr_is(o, "type", "link"),
	   "opml: ungrouped page first; a fetched title is text only");
	o = o ? next_el(o->next) : NULL;
	OK(o && attr_is(o, "url", "http://c.example/") && attr_is(o, "title", "C \xef\xbf\xbd broken"),
	   "opml: then the next ungrouped page; a byte that is not UTF-8 as U+FFFD");
	o = o ? next_el(o->next) : NULL;
	OK(o && attr_is(o, "text", "Diary") && !xmlHasProp(o, (const xmlChar *)"url"),
	   "opml: groups by name: Diary");
	OK(o && next_el(o->children) && attr_is(next_el(o->children), "text", "http://a.example/"),
	   "opml: a page without a title shows its URL");
	o = o ? next_el(o->next) : NULL;
	OK(o && attr_is(o, "text", "Tech"), "opml: then Tech");
	o = o ? next_el(o->children) : NULL;
	OK(o && attr_is(o, "title", "Zed") && ns_attr_is(o, "author", "zed") &&
	   ns_attr_is(o, "ignore", "#ad\n.clock\nto/day \\d+") && ns_attr_is(o, "charset", "euc-jp"),
	   "opml: title, author, ignore (newlines kept) and charset");
	o = o ? next_el(o->parent->next) : NULL;
	OK(o && attr_is(o, "text", "Zfeeds"), "opml: then Zfeeds");
	o = o ? next_el(o->children) : NULL;
	OK(o && attr_is(o, "type", "rss") && attr_is(o, "htmlUrl", "http://f.example/") &&
	   attr_is(o, "xmlUrl", "http://f.example/index.rdf") && !xmlHasProp(o, (const xmlChar *)"url"),
	   "opml: a page with its feed as feed readers write it (type=\"rss\", htmlUrl, xmlUrl)");
	o = o ? next_el(o->next) : NULL;
	OK(o && attr_is(o, "type", "rss") && attr_is(o, "xmlUrl", "http://g.example/feed.atom") &&
	   !xmlHasProp(o, (const xmlChar *)"htmlUrl") && !xmlHasProp(o, (const xmlChar *)"url"),
	   "opml: a page that is its own feed: xmlUrl alone");
	o = body ? next_el(body->children) : NULL;
	for (int i = 0; i < 5 && o; i++)
		o = next_el(o->next);
	OK(o && attr_is(o, "type", "lirs") && attr_is(o, "xmlUrl", "http://peer.example/lirs.gz") &&
	   ns_attr_is(o, "source", "lirs"),
	   "opml: the sources last, by URL; a LIRS one as type=\"lirs\"");
	o = o ? next_el(o->next) : NULL;
	OK(o && attr_is(o, "type", "rss") && attr_is(o, "xmlUrl", "http://relay.example/index.atom") &&
	   ns_attr_is(o, "source", "atom"),
	   "opml: an Atom source as the feed it is (type=\"rss\"), antenna:source=\"atom\"");
	xmlFreeDoc(doc);
	free(text);
}

/* Entries read back by an import parser, one line each. */
static int on_entry(void *ctx, const ant_imp_entry *e)
{
	lb_buf_addf(ctx, "%s|%s|%s|%d|%s|%s|%s|%s|%s\n",
		    e->kind == ANT_IMP_SOURCE ? e->atom ? "atom" : "source" : "page",
		    e->url, e->title, e->title_by_user, e->author, e->group, e->ignore, e->charset,
		    e->feed ? e->feed : "");
	return 0;
}

static void on_diag(void *ctx, const ant_imp_diag *d)
{
	printf("# diag %lu: %s\n", d->line, d->message);
}

/* Every format read back by its parser: every field of a page, and each
 * source with its kind (LIRS or Atom).
 * ignore: the patterns as the import reads them back (samidare's /re/ is
 * a Ruby regular expression: \\d comes back as [0-9]). */
static void test_round_trip(ant_store *s, ant_export_format f, const char *name, const char *ignore)
{
	char want[256];

	lb_buf got = LB_BUF_INIT;
	ant_imp_opts o = { .on_entry = on_entry, .on_diag = on_diag, .ctx = &got };
	size_t len;
	int rc;
	char *text = export(s, f, &rc, &len);

	IS_INT(rc, 0, "%s: written", name);
	IS_INT(f == ANT_EXPORT_OPML ? ant_imp_parse_opml(text, len, &o) :
	       f == ANT_EXPORT_JSONL ? ant_imp_parse_jsonl(text, len, &o) :
	       ant_imp_parse_samidare(text, len, &o), 0, "%s: read back", name);
	/* titles only where the user set them: fetched ones are the page's */
	OK(strstr(got.data, "page|http://b.example/?a=1&b=2|") != NULL,
	   "%s: the ungrouped page", name);
	snprintf(want, sizeof want, "page|http://z.example/|Zed|1|zed|Tech|%s|euc-jp|\n", ignore);
	OK(strstr(got.data, want) != NULL, "%s: every field of a page comes back, ignore patterns too",
	   name);
	OK(strstr(got.data, "page|http://a.example/||0||Diary|||\n") != NULL, "%s: the group comes back",
	   name);
	OK(strstr(got.data, "source|http://peer.example/lirs.gz|") != NULL, "%s: the LIRS source comes back",
	   name);
	OK(strstr(got.data, "atom|http://relay.example/index.atom|") != NULL,
	   "%s: the Atom source comes back as an Atom source", name);
	OK(strstr(got.data, "page|http://f.example/||0||Zfeeds|||http://f.example/index.rdf\n") != NULL,
	   "%s: a page's feed comes back", name);
	OK(strstr(got.data, "page|http://g.example/feed.atom||0||Zfeeds|||http://g.example/feed.atom\n") != NULL,
	   "%s: a page that is its own feed comes back", name);
	OK(strstr(got.data, "http://c.example/|C \xef\xbf\xbd broken|1") != NULL,
	   "%s: a byte that is not UTF-8 comes back as U+FFFD", name);
	free(text);
	lb_buf_release(&got);
}

static void test_jsonl(ant_store *s)
{
	int rc, n = 0, pages = 0, sources = 0, ok = 1;
	char *text = export(s, ANT_EXPORT_JSONL, &rc, NULL), *line, *save = NULL;

	IS_INT(rc, 0, "jsonl: written");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_object *j = json_tokener_parse(line), *v;
		n++;
		if (!j || !json_object_object_get_ex(j, "type", &v)) {
			ok = 0;
			continue;
		}
		if (!strcmp(json_object_get_string(v), "source")) {
			sources++;
		} else if (pages++, json_object_object_get_ex(j, "url", &v) &&
			   !strcmp(json_object_get_string(v), "http://z.example/")) {
			json_object *ign;
			ok &= json_object_object_get_ex(j, "ignore", &ign) &&
			      json_object_array_length(ign) == 3 &&
			      !strcmp(json_object_get_string(json_object_array_get_idx(ign, 2)),
				      "to/day \\d+");
		}
		json_object_put(j);
	}
	OK(ok, "jsonl: every line a JSON object with a type; ignore an array of patterns");
	IS_INT(pages, 6, "jsonl: six pages");
	IS_INT(sources, 2, "jsonl: two sources");
	IS_INT(n, 8, "jsonl: one line each");
	free(text);
}

/* More than one chunk (64 KiB): written in pieces, the same bytes. */
static void test_big(void)
{
	ant_store *s = make_store("big.db");
	char url[64];
	lb_error err = LB_ERROR_INIT;
	int rc, ok = 1;
	size_t len;
	char *text;
	xmlDoc *doc;

	ant_store_begin(s, &err);
	for (int i = 0; i < 3000; i++) {
		snprintf(url, sizeof url, "http://many.example/%05d", i);
		add_page(s, url, "a title long enough to fill the chunks", 1, "", "G", "", "");
	}
	ant_store_commit(s, &err);
	text = export(s, ANT_EXPORT_OPML, &rc, &len);
	IS_INT(rc, 0, "big: written");
	OK(len > 3 * 65536, "big: over three chunks (%zu bytes)", len);
	doc = xmlReadMemory(text, (int)len, "big.opml", NULL, XML_PARSE_NONET);
	OK(doc != NULL, "big: well-formed");
	if (doc) {
		xmlNode *g = xmlDocGetRootElement(doc)->children;
		int k = 0;
		while (g && !(g->type == XML_ELEMENT_NODE && !strcmp((char *)g->name, "body")))
			g = g->next;
		for (g = g ? next_el(g->children) : NULL; g; g = next_el(g->next))
			if (attr_eq(g, "text", "G"))
				for (xmlNode *p = next_el(g->children); p; p = next_el(p->next)) {
					snprintf(url, sizeof url, "http://many.example/%05d", k++);
					ok &= attr_eq(p, "url", url);
				}
		OK(ok && k == 3000, "big: every page once, in order (%d)", k);
		xmlFreeDoc(doc);
	}
	free(text);
	free(export(s, ANT_EXPORT_SAMIDARE, &rc, NULL));
	IS_INT(rc, 0, "big: samidare written");
	ant_store_close(s);
}

/* One writer for a page's JSON: export and list name the feed feed_url;
 * an export leaves out what checks found, list keeps it. */
static void test_page_json(void)
{
	ant_store_page p;
	lb_buf o = LB_BUF_INIT;

	ant_store_page_init(&p);
	p.url = "http://f.example/";
	p.title = p.author = p.group = p.ignore = p.force_charset = p.only = "";
	p.feed_url = "http://f.example/index.rdf";
	p.excerpt = "new";
	p.feed_by_user = 1;
	IS_INT(ant_export_page_json(&o, &p, ANT_EXPORT_JSON_CONFIG), 0, "page json: config written");
	OK(strstr(o.data, "\"feed_url\":\"http://f.example/index.rdf\"") && !strstr(o.data, "\"feed\":") &&
	   !strstr(o.data, "excerpt") && !strncmp(o.data, "{\"type\":\"page\",\"url\":", 21),
	   "page json: an export names the feed feed_url, leaves the check's findings out");
	lb_buf_reset(&o);
	IS_INT(ant_export_page_json(&o, &p, ANT_EXPORT_JSON_STATE), 0, "page json: state written");
	OK(strstr(o.data, "\"feed_url\":\"http://f.example/index.rdf\"") && strstr(o.data, "\"excerpt\":\"new\"") &&
	   !strncmp(o.data, "{\"url\":", 7), "page json: list names it feed_url too, with what checks found");
	/* a feed found on the page is no setting: an export leaves it to be found again */
	p.feed_by_user = 0;
	lb_buf_reset(&o);
	ant_export_page_json(&o, &p, ANT_EXPORT_JSON_CONFIG);
	OK(strstr(o.data, "\"feed_url\":null") != NULL, "page json: a found feed is not exported");
	lb_buf_release(&o);
}

/* import reads feed_url, and "feed" as older exports wrote it. */
static void test_jsonl_feed_keys(void)
{
	static const char in[] =
		"{\"type\":\"page\",\"url\":\"http://new.example/\",\"feed_url\":\"http://new.example/f.xml\"}\n"
		"{\"type\":\"page\",\"url\":\"http://old.example/\",\"feed\":\"http://old.example/f.xml\"}\n";
	lb_buf got = LB_BUF_INIT;
	ant_imp_opts o = { .on_entry = on_entry, .on_diag = on_diag, .ctx = &got };

	IS_INT(ant_imp_parse_jsonl(in, sizeof in - 1, &o), 0, "jsonl keys: read");
	OK(got.data && strstr(got.data, "page|http://new.example/||0|||||http://new.example/f.xml\n"),
	   "jsonl keys: feed_url read");
	OK(got.data && strstr(got.data, "page|http://old.example/||0|||||http://old.example/f.xml\n"),
	   "jsonl keys: an older export's feed read");
	lb_buf_release(&got);
}

/* An escaped NUL would cut a C string: the line is refused, by its number. */
static unsigned long nul_lines;   /* bit n: line n refused for a NUL */
static void on_nul_diag(void *ctx, const ant_imp_diag *d)
{
	if (d->severity == ANT_IMP_ERROR && strstr(d->message, "NUL"))
		nul_lines |= 1ul << d->line;
}

static void test_jsonl_nul(void)
{
	static const char in[] =
		"{\"type\":\"page\",\"url\":\"http://ok.example/\"}\n"
		"{\"type\":\"page\",\"url\":\"http://evil.example/\\u0000.attacker.example/\"}\n"
		"{\"type\":\"page\",\"url\":\"http://t.example/\",\"ignore\":[\"a\\u0000b\"]}\n";
	lb_buf got = LB_BUF_INIT;
	ant_imp_opts o = { .on_entry = on_entry, .on_diag = on_nul_diag, .ctx = &got };

	IS_INT(ant_imp_parse_jsonl(in, sizeof in - 1, &o), 0, "jsonl NUL: read");
	OK(got.data && strstr(got.data, "http://ok.example/") && !strstr(got.data, "evil") &&
	   !strstr(got.data, "t.example"), "jsonl NUL: the lines with a NUL are skipped, not cut");
	IS_INT(nul_lines, (1ul << 2) | (1ul << 3), "jsonl NUL: each error names its line (2 and 3)");
	lb_buf_release(&got);
}

static void test_errors(ant_store *s)
{
	lb_error err = LB_ERROR_INIT;
	FILE *ro = fopen("/dev/null", "r");    /* every write fails (EBADF) */

	IS_INT(ant_export_format_from_name("opml"), ANT_EXPORT_OPML, "format: opml");
	IS_INT(ant_export_format_from_name("samidare"), ANT_EXPORT_SAMIDARE, "format: samidare");
	IS_INT(ant_export_format_from_name("jsonl"), ANT_EXPORT_JSONL, "format: jsonl");
	IS_INT(ant_export_format_from_name("yaml"), LB_EINVAL, "format: unknown");
	for (int f = ANT_EXPORT_OPML; f <= ANT_EXPORT_JSONL; f++) {
		lb_error_clear(&err);
		IS_INT(ant_export(s, f, ro, &err), LB_ESINK, "format %d: a stream that cannot be written", f);
		OK(err.code == LB_ESINK && err.sys != 0, "format %d: err holds the code and errno", f);
	}
	fclose(ro);
	/* a full disk: the message says so (unbuffered: the export's own write fails) */
	FILE *full = fopen("/dev/full", "w");

	if (!full) {
		SKIP("no /dev/full", "/dev/full: LB_ESINK");
		SKIP("no /dev/full", "/dev/full: err->sys is ENOSPC");
		SKIP("no /dev/full", "/dev/full: the message says why");
		return;
	}
	setvbuf(full, NULL, _IONBF, 0);
	lb_error_clear(&err);
	IS_INT(ant_export(s, ANT_EXPORT_JSONL, full, &err), LB_ESINK, "/dev/full: LB_ESINK");
	IS_INT(err.sys, ENOSPC, "/dev/full: err->sys is ENOSPC");
	OK(strstr(lb_error_msg(&err), strerror(ENOSPC)) != NULL, "/dev/full: the message says why (%s)",
	   lb_error_msg(&err));
	fclose(full);
}

int main(void)
{
	TAP_PLAN(80);
	ant_store *s;
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	s = make_store("export.db");
	test_opml_xml(s);
	test_round_trip(s, ANT_EXPORT_OPML, "opml", "#ad\n.clock\nto/day \\d+");
	test_round_trip(s, ANT_EXPORT_SAMIDARE, "samidare", "#ad\n.clock\nto/day [0-9]+");
	test_round_trip(s, ANT_EXPORT_JSONL, "jsonl", "#ad\n.clock\nto/day \\d+");
	test_jsonl(s);
	test_errors(s);
	test_page_json();
	test_jsonl_feed_keys();
	test_jsonl_nul();
	ant_store_close(s);
	test_big();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	xmlCleanupParser();
	TAP_DONE();
}
