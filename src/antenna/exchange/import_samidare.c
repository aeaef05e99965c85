/*
 * import_samidare.c: samidare's config.yml (akr/samidare, main.rb).
 *
 * samidare loads the file with Ruby's YAML and flattens it
 * (Samidare#config_flatten): the top level is a list; in a list,
 *   - a string is a page URI;
 *   - a mapping with a URI key is one page (the defaults so far, then its
 *     own keys);
 *   - a mapping without URI sets defaults for the rest of that list
 *     (nested lists included), merged over the defaults so far;
 *   - a nested list inherits the defaults so far, and its own defaults end
 *     with it.
 * Keys that do not start with an uppercase letter are dropped by samidare
 * (load_config): we list them.  The YAML is read with libyaml, which
 * resolves anchors and aliases; the walk is bounded in depth and nodes.
 */
#include "ant_import.h"
#include "import_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include <yaml.h>

#include "ant_page.h"
#include "ant_when.h"

enum act {
	A_URI, A_TITLE, A_AUTHOR, A_GROUP, A_LINK, A_CLASS, A_ID, A_TEXT, A_FORCE,
	A_UPDATEINFO, A_UNMAPPED,
	/* keys of ours (antenna export), which samidare keeps for templates */
	A_OCLASS, A_OID, A_OTEXT, A_FEED, A_CHECK, A_NOAUTO, A_RELAY, A_WHEN, A_RENDER,
};

static const struct skey {
	const char *name;
	enum act act;
	const char *why;    /* for A_UNMAPPED */
} keys[] = {
	{ "URI", A_URI, NULL },
	{ "Title", A_TITLE, NULL },
	{ "Author", A_AUTHOR, NULL },
	{ "Group", A_GROUP, NULL },
	{ "LinkURI", A_LINK, NULL },
	{ "IgnoreClass", A_CLASS, NULL },
	{ "IgnoreID", A_ID, NULL },
	{ "IgnoreText", A_TEXT, NULL },
	{ "ForceCharset", A_FORCE, NULL },
	{ "UpdateInfo", A_UPDATEINFO, NULL },
	{ "OnlyClass", A_OCLASS, NULL },
	{ "OnlyID", A_OID, NULL },
	{ "OnlyText", A_OTEXT, NULL },
	{ "FeedURI", A_FEED, NULL },
	{ "CheckURI", A_CHECK, NULL },
	{ "NoAutoIgnore", A_NOAUTO, NULL },
	{ "Relay", A_RELAY, NULL },
	{ "When", A_WHEN, NULL },
	{ "Render", A_RENDER, NULL },
	{ "IgnorePath", A_UNMAPPED, "the antenna leaves out parts by #id, .class or a text pattern, not by element path" },
	{ "IgnoreElement", A_UNMAPPED, "the antenna leaves out parts by #id, .class or a text pattern, not by element name" },
	{ "DefaultCharset", A_UNMAPPED, "the antenna takes the charset from the header, a BOM, <meta> or detection" },
	{ "MinimumInterval", A_UNMAPPED, "the antenna schedules its checks itself (5 min to 24 h after the last change)" },
	{ "MaximumInterval", A_UNMAPPED, "the antenna schedules its checks itself (5 min to 24 h after the last change)" },
	{ "Periodical", A_UNMAPPED, "the antenna schedules its checks itself (5 min to 24 h after the last change)" },
	{ "RelatedURI", A_UNMAPPED, "a page has one URL in the antenna" },
	{ "UserAgent", A_UNMAPPED, "the antenna sends one User-Agent for all pages" },
	{ "Header", A_UNMAPPED, "the antenna sends no extra request headers" },
	{ "Timeout", A_UNMAPPED, "the timeout is 'antenna update --timeout', for all pages" },
	{ "UseIfModifiedSince", A_UNMAPPED, "the antenna always sends the server's validators" },
	{ "LogMeta", A_UNMAPPED, "samidare's logging has no counterpart" },
	{ "NumLogs", A_UNMAPPED, "samidare's logging has no counterpart" },
	{ "LogExpire", A_UNMAPPED, "samidare's logging has no counterpart" },
	{ "UpdateElement", A_UNMAPPED, "the antenna does not read update times from links" },
};

/* One key: value in effect for an entry. */
typedef struct kv {
	yaml_node_t *key, *val;
} kv;

typedef struct kvs {
	kv *v;
	size_t n, cap;
} kvs;

/* A flattened entry waiting for the end: samidare merges entries with the
 * same URI (load_config: the later keys win, the first place is kept). */
typedef struct pending {
	const char *uri;         /* NULL: a bare string, see bare */
	yaml_node_t *at;
	kvs kv;
	const char *bare;
} pending;

typedef struct sctx {
	const ant_imp_opts *o;
	yaml_document_t *doc;
	unsigned char *reported;  /* per node: its key was listed already */
	size_t nnodes;
	unsigned long visited;
	int stop;
	int failed;              /* 0, or the LB_E* code that stopped the read */
	lb_buf ign, only, when, tmp;
	pending *pend;
	size_t npend, cappend;
} sctx;

static unsigned long line_of(const yaml_node_t *n) { return n->start_mark.line + 1; }
static unsigned long col_of(const yaml_node_t *n) { return n->start_mark.column + 1; }

static const char *sval(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Ruby's YAML reads a plain "", "~" or "null" as nil. */
static int is_null(const yaml_node_t *n)
{
	const char *s = sval(n);

	if (!n)
		return 1;
	if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int first_report(sctx *c, yaml_node_t *n)
{
	size_t i = (size_t)(n - c->doc->nodes.start);

	if (i >= c->nnodes || c->reported[i])
		return 0;
	c->reported[i] = 1;
	return 1;
}

static int kvs_set(kvs *s, yaml_node_t *key, yaml_node_t *val)
{
	const char *k = sval(key);

	for (size_t i = 0; k && i < s->n; i++)
		if (!strcmp(sval(s->v[i].key), k)) {
			s->v[i].key = key;
			s->v[i].val = val;
			return 0;
		}
	if (!k)
		return 0;
	kv *nv = lb_grow(s->v, &s->cap, s->n + 1, sizeof *s->v, 8);
	if (!nv)
		return LB_ENOMEM;
	s->v = nv;
	s->v[s->n++] = (kv){ key, val };
	return 0;
}

static int kvs_copy(kvs *dst, const kvs *src)
{
	dst->n = dst->cap = 0;
	dst->v = NULL;
	if (!src->n)
		return 0;
	if (!(dst->v = malloc(src->n * sizeof *src->v)))
		return LB_ENOMEM;
	memcpy(dst->v, src->v, src->n * sizeof *src->v);
	dst->n = dst->cap = src->n;
	return 0;
}

static yaml_node_t *node(sctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

/* A mapping's pairs set over s; *has_uri tells whether URI is among them. */
static int merge_mapping(sctx *c, kvs *s, yaml_node_t *m, int *has_uri)
{
	*has_uri = 0;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
		if (!k || !v)
			continue;
		if (!sval(k)) {
			if (first_report(c, k))
				ant_imp_diagf(c->o, ANT_IMP_ERROR, line_of(k), col_of(k),
					  "key is not text: samidare's keys are names like URI or Title");
			continue;
		}
		if (!strcmp(sval(k), "URI"))
			*has_uri = 1;
		if (kvs_set(s, k, v) < 0)
			return LB_ENOMEM;
	}
	return 0;
}

static const struct skey *find_key(const char *k)
{
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (!strcmp(keys[i].name, k))
			return &keys[i];
	return NULL;
}

/* Whitespace-separated words of s, as samidare's split(/\s+/). */
static void words(sctx *c, lb_buf *out, const kv *x, const char *prefix, const char *what)
{
	const char *s = sval(x->val);

	lb_buf_reset(&c->tmp);
	while (s && *s) {
		size_t n;
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
			s++;
		n = strcspn(s, " \t\n\r\f\v");
		if (!n)
			break;
		if (!ant_imp_name_ok(s, n)) {
			if ((c->tmp.len && lb_buf_adds(&c->tmp, "', '") < 0) || lb_buf_add(&c->tmp, s, n) < 0)
				c->failed = LB_ENOMEM;
		} else if (ant_imp_add_pattern(out, prefix, s, n) < 0) {
			c->failed = LB_ENOMEM;
		}
		s += n;
	}
	if (c->tmp.len && first_report(c, x->val))
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->val), col_of(x->val),
			  "%s: %s '%s': characters the antenna's %s%s patterns do not take",
			  sval(x->key), what, c->tmp.data, prefix, what);
}

/* Ruby's \d; glibc's regex knows \s \S \w \W itself, not \d. */
static const char *ruby_class(char c)
{
	return c == 'd' ? "[0-9]" : c == 'D' ? "[^0-9]" : NULL;
}

/* IgnoreText: /re/ /re/ ..., as samidare scans it (%r{/((?:[^/\\]|\\.)*)/}). */
static void regexes(sctx *c, lb_buf *out, const kv *x)
{
	const char *s = sval(x->val);

	while (s && (s = strchr(s, '/'))) {
		const char *p = s + 1;
		lb_buf_reset(&c->tmp);
		while (*p && *p != '/') {
			if (*p == '\\' && p[1]) {
				const char *cls = ruby_class(p[1]);
				if (p[1] == '/')
					lb_buf_addc(&c->tmp, '/');
				else if (cls)
					lb_buf_adds(&c->tmp, cls);
				else
					lb_buf_add(&c->tmp, p, 2);
				p += 2;
			} else {
				lb_buf_addc(&c->tmp, *p++);
			}
		}
		if (*p != '/')
			break;     /* no closing slash: samidare finds nothing either */
		s = p + 1;
		if (strchr(c->tmp.data, '\n') || ant_page_pattern_check(c->tmp.data, NULL) < 0) {
			if (first_report(c, x->val))
				ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->val), col_of(x->val),
					  "%s: /%s/ is not a POSIX extended regular expression",
					  sval(x->key), c->tmp.data);
			continue;
		}
		if (ant_imp_add_regex(out, c->tmp.data, c->tmp.len) < 0)
			c->failed = LB_ENOMEM;
	}
}

static void unmapped(sctx *c, const kv *x, const char *why)
{
	const char *v = sval(x->val);

	if (!first_report(c, x->key))
		return;
	if (v)
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->key), col_of(x->key), "%s: %.200s: %s",
			  sval(x->key), v, why);
	else
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->key), col_of(x->key), "%s: %s",
			  sval(x->key), why);
}

/* Text of a key that must be text; NULL (listed once) when it is not. */
static const char *text_of(sctx *c, const kv *x)
{
	if (is_null(x->val))
		return NULL;
	if (!sval(x->val)) {
		if (first_report(c, x->val))
			ant_imp_diagf(c->o, ANT_IMP_ERROR, line_of(x->val), col_of(x->val),
				  "%s: a list or mapping where samidare wants text", sval(x->key));
		return NULL;
	}
	return sval(x->val);
}

/*
 * A URI that names a feed by its look (samidare tells by the content, which
 * an import cannot fetch): a last path segment ending in .rdf, .rss, .xml,
 * .atom, or "rss", "rdf", "atom", "feed" as a word of the path or query
 * (/feed/, index.rdf, ?mode=rss).
 */
static int looks_like_feed(const char *u)
{
	static const char *const ext[] = { ".rdf", ".rss", ".xml", ".atom" };
	static const char *const word[] = { "rss", "rdf", "atom", "feed" };
	const char *path = strstr(u, "://"), *end, *seg;

	path = path ? strchr(path + 3, '/') : NULL;
	if (!path)
		return 0;
	end = path + strcspn(path, "#");
	seg = path;
	for (const char *q = path; q < end && *q != '?'; q++)
		if (*q == '/')
			seg = q + 1;
	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		size_t k = strlen(ext[i]), n = strcspn(seg, "?#");
		if (n >= k && !strncasecmp(seg + n - k, ext[i], k))
			return 1;
	}
	for (const char *q = path; q < end;) {
		size_t n;
		while (q < end && !isalnum((unsigned char)*q))
			q++;
		for (n = 0; q + n < end && isalnum((unsigned char)q[n]); n++)
			;
		for (size_t i = 0; i < sizeof word / sizeof *word; i++)
			if (n == strlen(word[i]) && !strncasecmp(q, word[i], n))
				return 1;
		q += n;
	}
	return 0;
}

/* When (ours, antenna export): the --when patterns, one a line, each
 * checked (ant_when.h); a bad one is listed and left out. */
static void when_lines(sctx *c, const kv *x, const char *v)
{
	lb_error err = LB_ERROR_INIT;

	while (*v) {
		size_t n = strcspn(v, "\n");

		lb_buf_reset(&c->tmp);
		if (n && lb_buf_add(&c->tmp, v, n) == 0) {
			if (ant_when_check(c->tmp.data, &err) < 0) {
				if (first_report(c, x->val))
					ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->val), col_of(x->val),
						      "When: %.255s", lb_error_msg(&err));
			} else {
				ant_imp_add_pattern(&c->when, "", c->tmp.data, c->tmp.len);
			}
		}
		v += n + (v[n] == '\n');
	}
}

/* One flattened entry: its keys decide what it becomes. */
static void emit_now(sctx *c, const kvs *s, yaml_node_t *at, const char *bare_uri)
{
	ant_imp_entry e = { .kind = ANT_IMP_PAGE, .title = "", .author = "", .group = "",
			.ignore = "", .charset = "", .line = line_of(at) };
	const char *uri = bare_uri, *link = NULL, *feed = NULL, *check = NULL;
	lb_error err = LB_ERROR_INIT;

	lb_buf_reset(&c->ign);
	lb_buf_reset(&c->only);
	lb_buf_reset(&c->when);
	for (size_t i = 0; i < s->n; i++) {
		const kv *x = &s->v[i];
		const char *k = sval(x->key), *v;
		const struct skey *sk;

		if (!(k[0] >= 'A' && k[0] <= 'Z')) {
			unmapped(c, x, "samidare drops keys that do not start with an uppercase letter");
			continue;
		}
		if (!(sk = find_key(k))) {
			unmapped(c, x, "not a samidare setting (samidare keeps it only for its templates)");
			continue;
		}
		if (sk->act == A_UNMAPPED) {
			unmapped(c, x, sk->why);
			continue;
		}
		if (!(v = text_of(c, x)))
			continue;
		switch (sk->act) {
		case A_URI: uri = v; break;
		case A_LINK: link = v; break;
		case A_TITLE: e.title = v; e.title_by_user = 1; break;
		case A_AUTHOR: e.author = v; break;
		case A_GROUP: e.group = v; break;
		case A_CLASS: words(c, &c->ign, x, ".", "class"); break;
		case A_ID: words(c, &c->ign, x, "#", "id"); break;
		case A_TEXT: regexes(c, &c->ign, x); break;
		case A_OCLASS: words(c, &c->only, x, ".", "class"); break;
		case A_OID: words(c, &c->only, x, "#", "id"); break;
		case A_OTEXT: regexes(c, &c->only, x); break;
		case A_FEED: feed = v; break;
		case A_CHECK: check = v; break;
		case A_NOAUTO: e.no_auto_ignore = strcmp(v, "false") && strcmp(v, "no") && strcmp(v, "0"); break;
		case A_RELAY: e.relay = strcmp(v, "false") && strcmp(v, "no") && strcmp(v, "0"); break;
		case A_WHEN: when_lines(c, x, v); break;
		case A_RENDER: e.render = strcmp(v, "false") && strcmp(v, "no") && strcmp(v, "0"); break;
		case A_FORCE:
			if (ant_page_charset_check(v, &err) < 0) {
				if (first_report(c, x->val))
					ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line_of(x->val), col_of(x->val),
						  "ForceCharset: %.127s", lb_error_msg(&err));
			} else {
				e.charset = v;
			}
			break;
		case A_UPDATEINFO:
			/* "atom" is ours (antenna export): samidare fetches such
			 * an entry and reads nothing from it */
			if (!strcmp(v, "lirs") || !strcmp(v, "atom") || !strcmp(v, "sitemap")) {
				e.kind = ANT_IMP_SOURCE;
				e.atom = v[0] == 'a';
				e.sitemap = v[0] == 's';
			} else {
				unmapped(c, x, "only 'lirs' (another antenna's LIRS file), 'atom' (its Atom feed) and 'sitemap' are read; the URI is watched as a page");
			}
			break;
		default: break;
		}
	}
	if (!uri)
		return;
	if (!*uri) {
		ant_imp_diagf(c->o, ANT_IMP_ERROR, e.line, 0, "URI is empty");
		return;
	}
	e.url = uri;
	if (link && e.kind == ANT_IMP_PAGE && strcmp(link, uri)) {
		/* samidare fetches URI and shows LinkURI: a feed URI is the
		 * page's feed, another one the URL it is checked at. */
		e.url = link;
		if (looks_like_feed(uri)) {
			e.feed = uri;
			ant_imp_diagf(c->o, ANT_IMP_NOTE, e.line, 0,
				  "LinkURI: the antenna watches '%s' with '%s' as its feed", link, uri);
		} else {
			e.check_url = uri;
			ant_imp_diagf(c->o, ANT_IMP_NOTE, e.line, 0,
				  "LinkURI: the antenna shows '%s' and checks it at '%s'", link, uri);
		}
	}
	e.ignore = c->ign.data;
	e.only = c->only.data;
	e.when = c->when.data;
	if (feed)
		e.feed = feed;
	if (check)
		e.check_url = check;
	if (c->failed || (c->o->on_entry && c->o->on_entry(c->o->ctx, &e)))
		c->stop = 1;
}

/* The URI an entry will have: its URI key, else the bare string. */
static const char *uri_of(const kvs *s, const char *bare)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(sval(s->v[i].key), "URI"))
			return sval(s->v[i].val);
	return bare;
}

static void emit(sctx *c, const kvs *s, yaml_node_t *at, const char *bare)
{
	const char *uri = uri_of(s, bare);
	kvs copy;

	for (size_t i = 0; uri && i < c->npend; i++) {
		pending *p = &c->pend[i];
		if (p->uri && !strcmp(p->uri, uri)) {
			for (size_t j = 0; j < s->n; j++)
				if (kvs_set(&p->kv, s->v[j].key, s->v[j].val) < 0)
					c->stop = c->failed = LB_ENOMEM;
			ant_imp_diagf(c->o, ANT_IMP_NOTE, line_of(at), 0,
				  "'%s' again (first at line %lu): merged, the later settings win, as samidare does",
				  uri, line_of(p->at));
			return;
		}
	}
	pending *np = lb_grow(c->pend, &c->cappend, c->npend + 1, sizeof *c->pend, 16);
	if (!np || kvs_copy(&copy, s) < 0) {
		if (np)
			c->pend = np;
		c->stop = c->failed = LB_ENOMEM;
		return;
	}
	c->pend = np;
	c->pend[c->npend++] = (pending){ uri, at, copy, bare };
}

static void emit_all(sctx *c)
{
	for (size_t i = 0; i < c->npend; i++) {
		if (!c->stop)
			emit_now(c, &c->pend[i].kv, c->pend[i].at, c->pend[i].bare);
		free(c->pend[i].kv.v);
	}
	free(c->pend);
}

static void flatten(sctx *c, yaml_node_t *seq, const kvs *defaults, int depth)
{
	kvs def;

	if (depth > ANT_IMPORT_MAX_DEPTH) {
		ant_imp_diagf(c->o, ANT_IMP_ERROR, line_of(seq), col_of(seq),
			  "lists nested deeper than %d (or a list that contains itself)", ANT_IMPORT_MAX_DEPTH);
		c->stop = c->failed = LB_ETOOBIG;
		return;
	}
	if (kvs_copy(&def, defaults) < 0) {
		c->stop = c->failed = LB_ENOMEM;
		return;
	}
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     !c->stop && it < seq->data.sequence.items.top; it++) {
		yaml_node_t *n = node(c, *it);
		int has_uri;

		if (!n)
			continue;
		if (++c->visited > ANT_IMPORT_MAX_NODES) {
			ant_imp_diagf(c->o, ANT_IMP_ERROR, line_of(n), col_of(n),
				  "more than %d entries after aliases are expanded", ANT_IMPORT_MAX_NODES);
			c->stop = c->failed = LB_ETOOBIG;
			break;
		}
		if (n->type == YAML_SEQUENCE_NODE) {
			flatten(c, n, &def, depth + 1);
		} else if (n->type == YAML_SCALAR_NODE) {
			if (!is_null(n))
				emit(c, &def, n, sval(n));   /* the string is the URI */
		} else if (n->type == YAML_MAPPING_NODE) {
			kvs one;
			if (kvs_copy(&one, &def) < 0 || merge_mapping(c, &one, n, &has_uri) < 0) {
				free(one.v);
				c->stop = c->failed = LB_ENOMEM;
				break;
			}
			if (has_uri) {
				emit(c, &one, n, NULL);
				free(one.v);
			} else {
				free(def.v);
				def = one;     /* defaults for the rest of this list */
			}
		}
	}
	free(def.v);
}

int ant_imp_parse_samidare(const char *buf, size_t len, const ant_imp_opts *o)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	sctx c = { .o = o, .doc = &doc, .ign = LB_BUF_INIT, .only = LB_BUF_INIT, .when = LB_BUF_INIT,
		    .tmp = LB_BUF_INIT };
	kvs none = { 0 };
	int rc = 0;

	if (!yaml_parser_initialize(&p))
		return ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "out of memory"), LB_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&p, &doc)) {
		ant_imp_diagf(o, ANT_IMP_ERROR, p.problem_mark.line + 1, p.problem_mark.column + 1,
			  "not YAML: %s%s%s", p.problem ? p.problem : "error",
			  p.context ? " " : "", p.context ? p.context : "");
		yaml_parser_delete(&p);
		return LB_EPARSE;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && root->type != YAML_SEQUENCE_NODE) {
		ant_imp_diagf(o, ANT_IMP_ERROR, line_of(root), col_of(root),
			  "samidare's config is a YAML list (lines starting with '- ')");
		rc = LB_EPARSE;
	} else if (root) {
		c.nnodes = (size_t)(doc.nodes.top - doc.nodes.start);
		if (!(c.reported = calloc(c.nnodes ? c.nnodes : 1, 1))) {
			ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "out of memory");
			rc = LB_ENOMEM;
		} else {
			flatten(&c, root, &none, 0);
			emit_all(&c);
			if (c.stop || c.failed)
				rc = c.failed ? c.failed : LB_ESTOP;
		}
	}
	free(c.reported);
	lb_buf_release(&c.ign);
	lb_buf_release(&c.only);
	lb_buf_release(&c.when);
	lb_buf_release(&c.tmp);
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return rc;
}
