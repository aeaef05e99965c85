/*
 * page.c: title, charset and text checksum of an HTML page.
 *
 * Steps: pick the charset, convert the bytes to UTF-8 ourselves (invalid
 * bytes become U+FFFD), parse with libxml2's HTML parser (told the input
 * is UTF-8, never to touch the network), walk the tree without recursion,
 * collect the title and the text, remove ignored parts, hash.
 *
 * Charset, first that applies (the WHATWG "encoding sniffing" order, so
 * a BOM beats a wrong server default):
 *   1. a byte order mark (UTF-8, UTF-16LE/BE)           charset_from "bom"
 *   2. the charset parameter of the HTTP Content-Type   "header"
 *   3. <meta charset> or <meta http-equiv=Content-Type> in the first
 *      PAGE_META_SCAN bytes                              "meta"
 *   4. detection: valid UTF-8 is UTF-8; otherwise uchardet, kept only when
 *      it names a Japanese encoding; otherwise whichever of CP932 and
 *      EUC-JP-MS decodes with fewer errors                "detected"
 *   5. UTF-8                                             "default"
 * Shift_JIS is decoded as CP932 and EUC-JP as EUC-JP-MS, supersets that
 * also hold the NEC/IBM extensions (①, ㈱) real pages carry.
 *
 * text_hash is 64-bit FNV-1a over the final UTF-8 text: not cryptographic,
 * only a change detector, stable across runs, machines and charsets.
 */
#include "ant_page.h"
#include "lb_buf.h"
#include "lb_utf8.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <uchardet.h>

/* How far into the page <meta charset> is looked for (HTML says 1024;
 * real Japanese pages put long comments first). */
#define PAGE_META_SCAN 4096
/* How much of the page uchardet sees: enough to decide, bounded in time. */
#define PAGE_DETECT_SCAN (256u << 10)

/* ---- charset names ------------------------------------------------------- */

typedef struct cs_alias {
	const char *name;   /* lowercased label */
	const char *report; /* ant_page_info.charset */
	const char *iconv;  /* what iconv_open gets */
} cs_alias;

static const cs_alias aliases[] = {
	{ "utf-8", "UTF-8", "UTF-8" },
	{ "utf8", "UTF-8", "UTF-8" },
	{ "unicode-1-1-utf-8", "UTF-8", "UTF-8" },
	{ "ascii", "UTF-8", "UTF-8" },
	{ "us-ascii", "UTF-8", "UTF-8" },
	{ "shift_jis", "SHIFT_JIS", "CP932" },
	{ "shift-jis", "SHIFT_JIS", "CP932" },
	{ "sjis", "SHIFT_JIS", "CP932" },
	{ "x-sjis", "SHIFT_JIS", "CP932" },
	{ "ms_kanji", "SHIFT_JIS", "CP932" },
	{ "csshiftjis", "SHIFT_JIS", "CP932" },
	{ "windows-31j", "SHIFT_JIS", "CP932" },
	{ "cp932", "SHIFT_JIS", "CP932" },
	{ "euc-jp", "EUC-JP", "EUC-JP-MS" },
	{ "eucjp", "EUC-JP", "EUC-JP-MS" },
	{ "x-euc-jp", "EUC-JP", "EUC-JP-MS" },
	{ "euc-jp-ms", "EUC-JP", "EUC-JP-MS" },
	{ "cseucpkdfmtjapanese", "EUC-JP", "EUC-JP-MS" },
	{ "iso-2022-jp", "ISO-2022-JP", "ISO-2022-JP" },
	{ "csiso2022jp", "ISO-2022-JP", "ISO-2022-JP" },
	{ "utf-16le", "UTF-16LE", "UTF-16LE" },
	{ "utf-16be", "UTF-16BE", "UTF-16BE" },
};

typedef struct charset {
	char report[32];
	char iconv[32];
} charset;

/* Resolves a label to a charset iconv can open; 0, or -1 if unusable. */
static int charset_resolve(const char *label, size_t n, charset *cs)
{
	char low[32];
	iconv_t cd;

	while (n && isspace((unsigned char)*label))
		label++, n--;
	while (n && (isspace((unsigned char)label[n - 1]) || label[n - 1] == '"' || label[n - 1] == '\''))
		n--;
	while (n && (*label == '"' || *label == '\''))
		label++, n--;
	if (n == 0 || n >= sizeof low)
		return -1;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)label[i]);
	low[n] = '\0';
	/* HTML: a document that reached us as bytes is not UTF-16 because it
	 * says so in ASCII; treat it as UTF-8. */
	if (strcmp(low, "utf-16") == 0 || strcmp(low, "utf-16le") == 0 || strcmp(low, "utf-16be") == 0)
		snprintf(low, sizeof low, "utf-8");
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (strcmp(low, aliases[i].name) == 0) {
			snprintf(cs->report, sizeof cs->report, "%s", aliases[i].report);
			snprintf(cs->iconv, sizeof cs->iconv, "%s", aliases[i].iconv);
			return 0;
		}
	for (size_t i = 0; i < n; i++)
		low[i] = (char)toupper((unsigned char)low[i]);
	cd = iconv_open("UTF-8", low);
	if (cd == (iconv_t)-1)
		return -1;
	iconv_close(cd);
	snprintf(cs->report, sizeof cs->report, "%s", low);
	snprintf(cs->iconv, sizeof cs->iconv, "%s", low);
	return 0;
}

/* The charset parameter of a Content-Type value, or NULL. */
static const char *find_charset_param(const char *s, const char *end, size_t *n)
{
	static const char key[] = "charset";

	for (const char *p = s; p + sizeof key - 1 < end; p++) {
		const char *v, *e;

		if (strncasecmp(p, key, sizeof key - 1) != 0)
			continue;
		v = p + sizeof key - 1;
		while (v < end && isspace((unsigned char)*v))
			v++;
		if (v >= end || *v != '=')
			continue;
		v++;
		while (v < end && (isspace((unsigned char)*v) || *v == '"' || *v == '\''))
			v++;
		for (e = v; e < end && !strchr(" \t\r\n;\"'>/", *e); e++)
			;
		if (e > v) {
			*n = (size_t)(e - v);
			return v;
		}
	}
	return NULL;
}

static int from_header(const char *content_type, charset *cs)
{
	const char *v;
	size_t n;

	if (!content_type)
		return -1;
	v = find_charset_param(content_type, content_type + strlen(content_type), &n);
	return v ? charset_resolve(v, n, cs) : -1;
}

static size_t from_bom(const unsigned char *b, size_t len, charset *cs)
{
	if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
		charset_resolve("utf-8", 5, cs);
		return 3;
	}
	if (len >= 2 && b[0] == 0xFF && b[1] == 0xFE) {
		snprintf(cs->report, sizeof cs->report, "UTF-16LE");
		snprintf(cs->iconv, sizeof cs->iconv, "UTF-16LE");
		return 2;
	}
	if (len >= 2 && b[0] == 0xFE && b[1] == 0xFF) {
		snprintf(cs->report, sizeof cs->report, "UTF-16BE");
		snprintf(cs->iconv, sizeof cs->iconv, "UTF-16BE");
		return 2;
	}
	return 0;
}

/* <meta charset=X> and <meta http-equiv="Content-Type" content="...; charset=X">:
 * both carry "charset" followed by '=' inside a <meta ...> tag. */
static int from_meta(const char *b, size_t len, charset *cs)
{
	const char *end = b + (len < PAGE_META_SCAN ? len : PAGE_META_SCAN);

	for (const char *p = b; p + 5 < end; p++) {
		const char *tag_end, *v;
		size_t n;

		if (*p != '<' || strncasecmp(p + 1, "meta", 4) != 0 ||
		    !(isspace((unsigned char)p[5]) || p[5] == '/'))
			continue;
		tag_end = memchr(p, '>', (size_t)(end - p));
		if (!tag_end)
			return -1;
		v = find_charset_param(p, tag_end, &n);
		if (v && charset_resolve(v, n, cs) == 0)
			return 0;
		p = tag_end;
	}
	return -1;
}

/* ---- UTF-8 and conversion ------------------------------------------------ */

/* Copies UTF-8, every invalid byte and every NUL (libxml2 would stop
 * there) replaced with U+FFFD.  Returns the number of replacements. */
static size_t utf8_clean(const char *b, size_t len, lb_buf *out, int *oom)
{
	size_t bad = lb_utf8_repair(out, b, len, LB_UTF8_NUL, NULL);

	*oom |= bad == (size_t)-1;
	return bad == (size_t)-1 ? 0 : bad;
}

/* Converts with iconv, each undecodable byte replaced with U+FFFD.
 * Returns the number of replacements, or (size_t)-1 if iconv cannot open
 * the charset or memory runs out. */
static size_t convert(const char *b, size_t len, const char *from, lb_buf *out)
{
	iconv_t cd;
	lb_buf tmp = LB_BUF_INIT;
	char *in = (char *)b;
	size_t inleft = len, bad = 0;
	int oom = 0;

	if (strcmp(from, "UTF-8") == 0) {
		bad = utf8_clean(b, len, out, &oom);
		return oom ? (size_t)-1 : bad;
	}
	cd = iconv_open("UTF-8", from);
	if (cd == (iconv_t)-1)
		return (size_t)-1;
	while (!oom) {
		size_t room, r;
		char *o;

		if (lb_buf_grow(&tmp, inleft * 3 + 64) < 0) {
			oom = 1;
			break;
		}
		room = tmp.cap - tmp.len - 1;
		o = tmp.data + tmp.len;
		r = iconv(cd, inleft ? &in : NULL, &inleft, &o, &room);
		tmp.len = (size_t)(o - tmp.data);
		if (r != (size_t)-1 && inleft == 0)
			break;
		if (r == (size_t)-1 && errno == E2BIG)
			continue;
		if (r == (size_t)-1 && (errno == EILSEQ || errno == EINVAL)) {
			int truncated = errno == EINVAL;

			/* Skip one byte and go on: a stateful decoder
			 * (ISO-2022-JP) resynchronises at the next escape. */
			oom |= lb_buf_add(&tmp, LB_UTF8_FFFD, 3) < 0;
			bad++;
			if (truncated) {
				in += inleft;
				inleft = 0;
			} else {
				in++;
				inleft--;
			}
			if (!inleft)
				break;
			continue;
		}
		break;
	}
	iconv_close(cd);
	/* iconv's UTF-8 is valid, but UTF-16 may hold U+0000. */
	if (!oom)
		utf8_clean(tmp.data, tmp.len, out, &oom);
	lb_buf_release(&tmp);
	return oom ? (size_t)-1 : bad;
}

static size_t decode_errors(const char *b, size_t len, const char *from)
{
	lb_buf out = LB_BUF_INIT;
	size_t bad = convert(b, len, from, &out);

	lb_buf_release(&out);
	return bad;
}

/* ISO-2022-JP is 7-bit, so it is also valid UTF-8: tell it by its
 * escape sequences into JIS X 0208 / 0212 (RFC 1468). */
static int iso2022jp_like(const char *b, size_t len)
{
	int esc = 0;

	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)b[i] >= 0x80)
			return 0;
		if (b[i] == 0x1B && i + 2 < len && b[i + 1] == '$' &&
		    (b[i + 2] == 'B' || b[i + 2] == '@' || b[i + 2] == '('))
			esc = 1;
	}
	return esc;
}

static int from_detection(const char *b, size_t len, charset *cs)
{
	size_t n = len < PAGE_DETECT_SCAN ? len : PAGE_DETECT_SCAN;
	uchardet_t ud;
	const char *name;
	int rc = -1;

	if (iso2022jp_like(b, n))
		return charset_resolve("iso-2022-jp", 11, cs);
	if (lb_utf8_valid(b, len))
		return charset_resolve("utf-8", 5, cs);
	ud = uchardet_new();
	if (ud) {
		if (uchardet_handle_data(ud, b, n) == 0) {
			uchardet_data_end(ud);
			name = uchardet_get_charset(ud);
			if (name && (strcasecmp(name, "SHIFT_JIS") == 0 || strcasecmp(name, "EUC-JP") == 0 ||
				     strcasecmp(name, "ISO-2022-JP") == 0))
				rc = charset_resolve(name, strlen(name), cs);
		}
		uchardet_delete(ud);
	}
	if (rc == 0)
		return 0;
	/* Not UTF-8 and uchardet not sure of a Japanese one (short pages):
	 * the Japanese legacy encoding that fits best. */
	if (decode_errors(b, n, "EUC-JP-MS") < decode_errors(b, n, "CP932"))
		return charset_resolve("euc-jp", 6, cs);
	return charset_resolve("shift_jis", 9, cs);
}

/* ---- ignore patterns ----------------------------------------------------- */

enum { PAT_ID, PAT_CLASS, PAT_REGEX };

/* "#name" and ".name" are selectors only when name is all name
 * characters; ".*foo" and "#[0-9]+" stay regular expressions. */
static int pattern_kind(const char *p)
{
	if ((p[0] == '#' || p[0] == '.') && p[1]) {
		for (const unsigned char *s = (const unsigned char *)p + 1; *s; s++)
			if (!(isalnum(*s) || *s == '-' || *s == '_' || *s >= 0x80))
				return PAT_REGEX;
		return p[0] == '#' ? PAT_ID : PAT_CLASS;
	}
	return PAT_REGEX;
}

/*
 * glibc's regcomp() copies a repeated expression once per repetition, so
 * "(a{999}){999}" or "a++++..." asks for gigabytes: the size of the
 * expression after those copies is estimated first (sequences add,
 * repetitions multiply) and refused past PAGE_REGEX_MAX_NODES.
 */
#define PAGE_REGEX_MAX_NODES 100000

static double regex_size(const char **pp, int depth);

/* One atom: a character, an escape, a bracket expression or a group. */
static double regex_atom(const char **pp, int depth)
{
	const char *p = *pp;
	double n = 1;

	if (*p == '(') {
		p++;
		n = depth > 100 ? 1e12 : regex_size(&p, depth + 1);
		if (*p == ')')
			p++;
	} else if (*p == '[') {
		p++;
		if (*p == '^') p++;
		if (*p == ']') p++;
		while (*p && *p != ']') {
			if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
				const char *e = strstr(p + 2, p[1] == ':' ? ":]" : p[1] == '.' ? ".]" : "=]");
				p = e ? e + 2 : p + 1;
			} else {
				p++;
			}
		}
		if (*p) p++;
	} else if (*p == '\\' && p[1]) {
		p += 2;
	} else {
		p++;
	}
	*pp = p;
	return n;
}

/* The factor of the repetitions that follow an atom. */
static double regex_repeats(const char **pp)
{
	const char *p = *pp;
	double f = 1;

	for (;;) {
		if (*p == '*' || *p == '?') {
			p++;
		} else if (*p == '+') {
			f *= 2;
			p++;
		} else if (*p == '{' && (p[1] >= '0' && p[1] <= '9')) {
			unsigned long m = strtoul(p + 1, (char **)&p, 10), n = m;
			if (*p == ',') {
				p++;
				n = *p >= '0' && *p <= '9' ? strtoul(p, (char **)&p, 10) : m + 1;
			}
			if (*p == '}') p++;
			f *= (double)(n > m ? n : m) + 1;
		} else {
			break;
		}
	}
	*pp = p;
	return f;
}

static double regex_size(const char **pp, int depth)
{
	double total = 0;

	while (**pp && **pp != ')') {
		if (**pp == '|') {
			(*pp)++;
			continue;
		}
		double a = regex_atom(pp, depth);
		total += a * regex_repeats(pp);
		if (total > 1e12)
			total = 1e12;
	}
	return total;
}

/* Compiles a regex pattern into re; 0, or LB_EINVAL with a message. */
static int regex_compile(regex_t *re, const char *pattern, lb_error *err)
{
	const char *p = pattern;
	double size = 0;
	int rc;

	while (*p) {   /* an unmatched ')' is regcomp's to report */
		size += regex_size(&p, 0);
		if (*p)
			p++;
	}
	if (size > PAGE_REGEX_MAX_NODES)
		return lb_err(err, LB_EINVAL, "ignore pattern '%.200s' repeats too much (over %d copies)",
			      pattern, PAGE_REGEX_MAX_NODES);
	rc = regcomp(re, pattern, REG_EXTENDED);

	if (rc != 0) {
		char msg[128];

		regerror(rc, re, msg, sizeof msg);
		return lb_err(err, LB_EINVAL, "bad ignore pattern '%s': %s", pattern, msg);
	}
	return 0;
}

int ant_page_pattern_check(const char *pattern, lb_error *err)
{
	regex_t re;
	int rc;

	if (!pattern || !*pattern)
		return lb_err(err, LB_EINVAL, "empty ignore pattern");
	if (pattern_kind(pattern) != PAT_REGEX)
		return 0;
	if ((rc = regex_compile(&re, pattern, err)) < 0)
		return rc;
	regfree(&re);
	return 0;
}

typedef struct ignores {
	const char *const *pat;
	size_t n;
	regex_t *re;        /* one per pattern; compiled only for PAT_REGEX */
	unsigned char *kind;
} ignores;

static void ignores_release(ignores *ig)
{
	for (size_t i = 0; i < ig->n; i++)
		if (ig->kind && ig->kind[i] == PAT_REGEX)
			regfree(&ig->re[i]);
	free(ig->re);
	free(ig->kind);
}

static int ignores_compile(ignores *ig, const char *const *pat, size_t n, lb_error *err)
{
	int rc;

	memset(ig, 0, sizeof *ig);
	ig->pat = pat;
	if (!n)
		return 0;
	ig->re = calloc(n, sizeof *ig->re);
	ig->kind = calloc(n, 1);
	if (!ig->re || !ig->kind) {
		ignores_release(ig);
		return lb_err_code(err, LB_ENOMEM);
	}
	for (size_t i = 0; i < n; i++) {
		if (!pat[i] || !*pat[i]) {
			rc = lb_err(err, LB_EINVAL, "empty ignore pattern");
			goto fail;
		}
		ig->kind[i] = (unsigned char)pattern_kind(pat[i]);
		if (ig->kind[i] == PAT_REGEX && (rc = regex_compile(&ig->re[i], pat[i], err)) < 0)
			goto fail;
		ig->n = i + 1;
	}
	return 0;
fail:
	ignores_release(ig);   /* frees the ig->n patterns compiled so far */
	return rc;
}

/* Is this a class token of the space-separated list? */
static int has_class(const char *list, const char *cls)
{
	size_t n = strlen(cls);

	for (const char *p = list; *p;) {
		size_t k;

		while (*p && isspace((unsigned char)*p))
			p++;
		k = strcspn(p, " \t\r\n\f");
		if (k == n && strncmp(p, cls, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

static int element_ignored(xmlNode *el, const ignores *ig)
{
	xmlChar *id = NULL, *cls = NULL;
	int hit = 0;

	for (size_t i = 0; i < ig->n && !hit; i++) {
		if (ig->kind[i] == PAT_ID) {
			if (!id)
				id = xmlGetProp(el, (const xmlChar *)"id");
			hit = id && strcmp((char *)id, ig->pat[i] + 1) == 0;
		} else if (ig->kind[i] == PAT_CLASS) {
			if (!cls)
				cls = xmlGetProp(el, (const xmlChar *)"class");
			hit = cls && has_class((char *)cls, ig->pat[i] + 1);
		}
	}
	xmlFree(id);
	xmlFree(cls);
	return hit;
}

/* ---- text ---------------------------------------------------------------- */

/* Appends s with runs of whitespace collapsed to one space; *space says
 * whether out already ends in a space (or is empty). */
static int add_collapsed(lb_buf *out, const char *s, size_t n, int *space)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			if (!*space && lb_buf_addc(out, ' ') < 0)
				return -1;
			*space = 1;
		} else {
			if (lb_buf_addc(out, c) < 0)
				return -1;
			*space = 0;
		}
	}
	return 0;
}

static int skipped_element(const xmlNode *n)
{
	static const char *const skip[] = { "script", "style", "noscript", "template" };

	for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
		if (strcasecmp((const char *)n->name, skip[i]) == 0)
			return 1;
	return 0;
}

/* Elements whose edges separate words ("<p>a</p><p>b</p>" is "a b"). */
static int block_element(const xmlNode *n)
{
	static const char *const block[] = {
		"address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
		"fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
		"h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
		"table", "td", "th", "title", "tr", "ul",
	};
	for (size_t i = 0; i < sizeof block / sizeof *block; i++)
		if (strcasecmp((const char *)n->name, block[i]) == 0)
			return 1;
	return 0;
}

typedef struct walk {
	lb_buf text;
	lb_buf title;
	char *feed_href;  /* the page's advertised feed */
	size_t *cuts;     /* text offsets of block edges (segments), bounded */
	size_t ncuts, capcuts;
	int want_cuts;
	const struct ignores *ig;
	int space;        /* text ends in a space */
	int have_title;
	int oom;
} walk;

static void take_title(walk *w, xmlNode *el)
{
	int space = 1;

	w->have_title = 1;
	for (xmlNode *c = el->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
			w->oom |= add_collapsed(&w->title, (char *)c->content,
						strlen((char *)c->content), &space) < 0;
}

/* A block edge ends a segment (for excerpts); at most PAGE_MAX_SEGMENTS
 * are remembered, the rest of the page is one last segment. */
static void cut(walk *w)
{
	size_t *nv;

	if (!w->want_cuts || w->ncuts >= PAGE_MAX_SEGMENTS ||
	    (w->ncuts && w->cuts[w->ncuts - 1] == w->text.len) || !w->text.len)
		return;
	if (!(nv = lb_grow(w->cuts, &w->capcuts, w->ncuts + 1, sizeof *nv, 64))) {
		w->oom = 1;
		return;
	}
	w->cuts = nv;
	w->cuts[w->ncuts++] = w->text.len;
}

/* <link rel="alternate" type="application/atom+xml" href="..."> (or rss+xml):
 * the page advertises a feed (RSS Autodiscovery; HTML "alternate" link). */
static void take_feed_link(walk *w, xmlNode *el)
{
	xmlChar *rel, *type, *href;
	int hit;

	if (w->feed_href || strcasecmp((const char *)el->name, "link") != 0)
		return;
	rel = xmlGetProp(el, (const xmlChar *)"rel");
	type = xmlGetProp(el, (const xmlChar *)"type");
	hit = rel && type && strcasestr((const char *)rel, "alternate") &&
	      (strncasecmp((const char *)type, "application/atom+xml", 20) == 0 ||
	       strncasecmp((const char *)type, "application/rss+xml", 19) == 0);
	if (hit && (href = xmlGetProp(el, (const xmlChar *)"href"))) {
		if (*href && !(w->feed_href = strdup((const char *)href)))
			w->oom = 1;
		xmlFree(href);
	}
	xmlFree(rel);
	xmlFree(type);
}

/* Visits an element on the way down; returns 1 to enter its children. */
static int enter(walk *w, xmlNode *n, const ignores *ig)
{
	if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
		if (n->content)
			w->oom |= add_collapsed(&w->text, (char *)n->content,
						strlen((char *)n->content), &w->space) < 0;
		return 0;
	}
	if (n->type != XML_ELEMENT_NODE || !n->name)
		return 0;
	if (skipped_element(n) || (ig->n && element_ignored(n, ig)))
		return 0;
	if (!w->have_title && strcasecmp((const char *)n->name, "title") == 0)
		take_title(w, n);
	take_feed_link(w, n);
	if (block_element(n)) {
		w->oom |= add_collapsed(&w->text, " ", 1, &w->space) < 0;
		cut(w);
	}
	return 1;
}

static void leave(walk *w, xmlNode *n)
{
	if (n->type == XML_ELEMENT_NODE && n->name && block_element(n)) {
		w->oom |= add_collapsed(&w->text, " ", 1, &w->space) < 0;
		cut(w);
	}
}

/* Depth-first without recursion: a page of 100000 nested elements must
 * not exhaust the stack. */
static void walk_tree(walk *w, xmlNode *root, const ignores *ig)
{
	xmlNode *n = root;

	while (n && !w->oom) {
		if (enter(w, n, ig) && n->children) {
			n = n->children;
			continue;
		}
		for (;;) {
			leave(w, n);
			if (n == root)
				return;
			if (n->next) {
				n = n->next;
				break;
			}
			n = n->parent;
			if (!n)
				return;
		}
	}
}

/* Removes every match of every regex pattern, then re-collapses. */
static int remove_regex(lb_buf *text, const ignores *ig)
{
	for (size_t i = 0; i < ig->n; i++) {
		lb_buf out = LB_BUF_INIT;
		const char *p = text->data;
		int space = 1, eflags = 0;
		regmatch_t m;

		if (ig->kind[i] != PAT_REGEX)
			continue;
		while (*p && regexec(&ig->re[i], p, 1, &m, eflags) == 0) {
			if (add_collapsed(&out, p, (size_t)m.rm_so, &space) < 0)
				goto oom;
			if (m.rm_eo == m.rm_so) {  /* empty match: keep one byte */
				if (!p[m.rm_eo])
					break;
				if (add_collapsed(&out, p + m.rm_eo, 1, &space) < 0)
					goto oom;
				p += m.rm_eo + 1;
			} else {
				p += m.rm_eo;
			}
			eflags = REG_NOTBOL;
		}
		if (add_collapsed(&out, p, strlen(p), &space) < 0)
			goto oom;
		lb_buf_release(text);
		*text = out;
		continue;
oom:
		lb_buf_release(&out);
		return -1;
	}
	return 0;
}

static void trim(lb_buf *b)
{
	size_t start = 0;

	while (b->len && b->data[b->len - 1] == ' ')
		b->data[--b->len] = '\0';
	while (start < b->len && b->data[start] == ' ')
		start++;
	if (start) {
		memmove(b->data, b->data + start, b->len - start + 1);
		b->len -= start;
	}
}

/* 64-bit FNV-1a (Fowler/Noll/Vo), offset basis and prime from the spec. */
uint64_t ant_page_hash64(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* ---- the entry point ----------------------------------------------------- */

static void pick_charset(const char *body, size_t len, const char *content_type,
			 const char *forced, ant_page_info *out, size_t *skip, charset *cs)
{
	*skip = 0;
	if (forced && *forced && charset_resolve(forced, strlen(forced), cs) == 0)
		out->charset_from = "forced";   /* the operator's word beats everything */
	else if ((*skip = from_bom((const unsigned char *)body, len, cs)))
		out->charset_from = "bom";
	else if (from_header(content_type, cs) == 0)
		out->charset_from = "header";
	else if (from_meta(body, len, cs) == 0)
		out->charset_from = "meta";
	else if (len && from_detection(body, len, cs) == 0)
		out->charset_from = "detected";
	else {
		charset_resolve("utf-8", 5, cs);
		out->charset_from = "default";
	}
	snprintf(out->charset, sizeof out->charset, "%s", cs->report);
}

static int parse_and_walk(const lb_buf *utf8, const ignores *ig, walk *w)
{
	htmlDocPtr doc;
	xmlNode *root;

	if (utf8->len == 0)
		return 0;
	if (utf8->len > (size_t)0x7fffffff)
		return -1;
	doc = htmlReadMemory(utf8->data, (int)utf8->len, NULL, "UTF-8",
			     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			     HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT);
	if (!doc)
		return 0;
	root = xmlDocGetRootElement(doc);
	if (root)
		walk_tree(w, root, ig);
	xmlFreeDoc(doc);
	return 0;
}

/* ---- segments and excerpts (issue 9) --------------------------------------- */

static uint32_t seg_hash(const char *s, size_t n)
{
	uint64_t h = ant_page_hash64(s, n);

	return (uint32_t)(h ^ (h >> 32));
}

/* Length of the sentence at s (through its terminator), at most n. */
static size_t sentence_len(const char *s, size_t n)
{
	static const char *const full[] = { "\xe3\x80\x82", "\xef\xbc\x8e", "\xef\xbc\x81",
					    "\xef\xbc\x9f" };   /* 。．！？ */
	for (size_t i = 0; i < n; i++) {
		if ((s[i] == '.' || s[i] == '!' || s[i] == '?') && i + 1 < n && s[i + 1] == ' ')
			return i + 1;
		for (size_t k = 0; k < 4; k++)
			if (i + 3 <= n && memcmp(s + i, full[k], 3) == 0)
				return i + 3;
	}
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

typedef struct segctx {
	uint32_t *segs;
	size_t n, cap;
	uint32_t *prev;           /* sorted copy */
	size_t nprev;
	lb_buf excerpt;
	size_t max;
	int state;                /* 0 looking, 1 in the first new run, 2 done */
	int oom;
} segctx;

static void take_sentence(segctx *c, const char *s, size_t n)
{
	uint32_t h, *nv;
	int known;

	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || c->n >= PAGE_MAX_SEGMENTS)
		return;
	h = seg_hash(s, n);
	if (!(nv = lb_grow(c->segs, &c->cap, c->n + 1, sizeof *nv, 64))) {
		c->oom = 1;
		return;
	}
	c->segs = nv;
	c->segs[c->n++] = h;
	if (!c->nprev || c->state == 2)
		return;
	known = bsearch(&h, c->prev, c->nprev, sizeof h, cmp_u32) != NULL;
	if (known) {
		c->state = c->state ? 2 : 0;
		return;
	}
	/* the first run of new sentences, a little past max (clipped later) */
	if (c->excerpt.len > 4 * c->max) {
		c->state = 2;
		return;
	}
	c->state = 1;
	c->oom |= (c->excerpt.len && lb_buf_addc(&c->excerpt, ' ') < 0) ||
		  lb_buf_add(&c->excerpt, s, n) < 0;
}

/* Segment [a, b) of the text: ignore patterns applied, cut in sentences. */
static int take_segment(segctx *c, const char *text, size_t a, size_t b, const ignores *ig)
{
	lb_buf seg = LB_BUF_INIT;
	size_t off = 0, k;

	if (lb_buf_add(&seg, text + a, b - a) < 0 || remove_regex(&seg, ig) < 0) {
		lb_buf_release(&seg);
		return -1;
	}
	while (off < seg.len && !c->oom) {
		k = sentence_len(seg.data + off, seg.len - off);
		take_sentence(c, seg.data + off, k);
		off += k;
	}
	lb_buf_release(&seg);
	return c->oom ? -1 : 0;
}

static int segments(walk *w, const ant_page_prev *prev, ant_page_info *out)
{
	segctx c = { .excerpt = LB_BUF_INIT, .max = prev && prev->excerpt_max ? prev->excerpt_max
						 : PAGE_EXCERPT_MAX };
	size_t a = 0;
	int rc = 0;

	if (prev && prev->nsegs) {
		if (!(c.prev = malloc(prev->nsegs * sizeof *c.prev)))
			return -1;
		memcpy(c.prev, prev->segs, prev->nsegs * sizeof *c.prev);
		qsort(c.prev, prev->nsegs, sizeof *c.prev, cmp_u32);
		c.nprev = prev->nsegs;
	}
	for (size_t i = 0; i <= w->ncuts && rc == 0; i++) {
		size_t b = i < w->ncuts ? w->cuts[i] : w->text.len;
		if (b > a)
			rc = take_segment(&c, w->text.data, a, b, w->ig);
		a = b;
	}
	out->segs = c.segs;
	out->nsegs = c.n;
	if (rc == 0 && c.excerpt.len && !(out->excerpt = ant_page_clip(c.excerpt.data, c.max)))
		rc = -1;
	lb_buf_release(&c.excerpt);
	free(c.prev);
	return rc;
}

char *ant_page_clip(const char *s, size_t max)
{
	lb_buf b = LB_BUF_INIT;
	size_t chars = 0, n = strlen(s), before;
	int space = 1;

	if (!max)
		max = PAGE_EXCERPT_MAX;
	while (n) {
		size_t k = lb_utf8_len(s, n);
		if (!k) {               /* an invalid byte is dropped */
			s++, n--;
			continue;
		}
		before = b.len;
		if (add_collapsed(&b, s, k, &space) < 0)
			goto oom;
		chars += b.len > before;
		if (chars > max) {
			b.len = before;
			while (b.len && b.data[b.len - 1] == ' ')
				b.len--;
			b.data[b.len] = '\0';
			if (lb_buf_adds(&b, "\xe2\x80\xa6") < 0)   /* … */
				goto oom;
			break;
		}
		s += k, n -= k;
	}
	while (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	return lb_buf_detach(&b, NULL);
oom:
	lb_buf_release(&b);
	return NULL;
}

/* ---- the entry point (shared) ------------------------------------------------ */

static int analyze(const char *body, size_t len, const char *content_type, const char *forced,
		   const char *const *ignore, size_t nignore, const ant_page_prev *prev, int want_segs,
		   ant_page_info *out, lb_error *err)
{
	walk w = { LB_BUF_INIT, LB_BUF_INIT, NULL, NULL, 0, 0, want_segs, NULL, 1, 0, 0 };
	lb_buf utf8 = LB_BUF_INIT;
	ignores ig;
	charset cs;
	size_t skip;
	int rc;

	memset(out, 0, sizeof *out);
	if (!body)
		len = 0, body = "";
	if ((rc = ignores_compile(&ig, ignore, nignore, err)) < 0)
		return rc;
	w.ig = &ig;
	pick_charset(body, len, content_type, forced, out, &skip, &cs);
	if (convert(body + skip, len - skip, cs.iconv, &utf8) == (size_t)-1 ||
	    parse_and_walk(&utf8, &ig, &w) < 0 || w.oom ||
	    (want_segs && segments(&w, prev, out) < 0) || remove_regex(&w.text, &ig) < 0) {
		rc = lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
		ant_page_info_release(out);
		free(w.feed_href);
		goto out;
	}
	trim(&w.text);
	trim(&w.title);
	out->text_hash = ant_page_hash64(w.text.data, w.text.len);
	out->text_len = w.text.len;
	out->title = w.title.len ? lb_buf_detach(&w.title, NULL) : NULL;
	out->feed_href = w.feed_href;
	rc = 0;
out:
	lb_buf_release(&w.title);
	lb_buf_release(&w.text);
	lb_buf_release(&utf8);
	free(w.cuts);
	ignores_release(&ig);
	return rc;
}

int ant_page_analyze(const char *body, size_t len, const char *content_type,
		 const char *const *ignore, size_t nignore, ant_page_info *out,
		 lb_error *err)
{
	return analyze(body, len, content_type, NULL, ignore, nignore, NULL, 0, out, err);
}

int ant_page_analyze_forced(const char *body, size_t len, const char *content_type,
			const char *forced, const char *const *ignore, size_t nignore,
			ant_page_info *out, lb_error *err)
{
	return analyze(body, len, content_type, forced, ignore, nignore, NULL, 0, out, err);
}

int ant_page_analyze_excerpt(const char *body, size_t len, const char *content_type,
			 const char *forced, const char *const *ignore, size_t nignore,
			 const ant_page_prev *prev, ant_page_info *out, lb_error *err)
{
	return analyze(body, len, content_type, forced, ignore, nignore, prev, 1, out, err);
}

int ant_page_charset_check(const char *label, lb_error *err)
{
	charset cs;

	if (charset_resolve(label, strlen(label), &cs) == 0)
		return 0;
	return lb_err(err, LB_EINVAL, "unknown charset '%s'", label);
}

void ant_page_info_release(ant_page_info *p)
{
	if (!p)
		return;
	free(p->title);
	p->title = NULL;
	free(p->feed_href);
	p->feed_href = NULL;
	free(p->segs);
	p->segs = NULL;
	p->nsegs = 0;
	free(p->excerpt);
	p->excerpt = NULL;
}
