/*
 * page.c: title, charset and text checksum of an HTML page.
 *
 * Steps: pick the charset, convert the bytes to UTF-8 ourselves (invalid
 * bytes become U+FFFD), stream it through libxml2's HTML parser (told the
 * input is UTF-8, never to touch the network) with a SAX handler that
 * builds no tree: a stack of open elements, the title and the text are
 * collected as the events come, with the places where segments start and
 * their blocks' paths; then ignored parts are removed and the text hashed.
 * 0.2 built a tree and walked it: building it, and the malloc behind it,
 * were a third of `antenna update`'s CPU time.
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
#include "ant_noise.h"
#include "ant_limits.h"
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
#include <libxml/parserInternals.h>
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
 * there) replaced with U+FFFD: lb_utf8_repair(LB_UTF8_NUL), with the runs
 * of good bytes copied in one go (every byte of every page passes here).
 * Returns the number of replacements. */
static size_t utf8_clean(const char *b, size_t len, lb_buf *out, int *oom)
{
	const unsigned char *s = (const unsigned char *)b;
	size_t bad = 0;

	size_t run = 0;   /* start of the valid bytes not yet copied: copied in one go */

	if (lb_buf_grow(out, len) < 0) {
		*oom = 1;
		return 0;
	}
	for (size_t i = 0; i < len;) {
		size_t k = s[i] >= 0x01 && s[i] < 0x80 ? 1 : lb_utf8_len(b + i, len - i);

		if (k == 0 || s[i] == 0) {
			*oom |= lb_buf_add(out, s + run, i - run) < 0;
			*oom |= lb_buf_add(out, LB_UTF8_FFFD, 3) < 0;
			bad++;
			i++;
			run = i;
		} else {
			i += k;
		}
	}
	*oom |= lb_buf_add(out, s + run, len - run) < 0;
	return bad;
}

/* The length of the prefix of b that utf8_clean() would copy unchanged:
 * well-formed UTF-8 without NUL. */
static size_t utf8_clean_len(const char *b, size_t len)
{
	const unsigned char *s = (const unsigned char *)b;
	size_t i = 0, k;

	while (i < len) {
		if (s[i] >= 0x01 && s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] == 0 || !(k = lb_utf8_len(b + i, len - i)))
			break;
		i += k;
	}
	return i;
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

/* ---- ignore and only patterns -------------------------------------------------- */

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

/* Compiles a regex pattern into re; 0, or LB_EINVAL with a message that
 * names what the pattern is for ("ignore", "only"). */
static int regex_compile(regex_t *re, const char *pattern, const char *what, lb_error *err)
{
	const char *p = pattern;
	double size = 0;
	int rc;

	while (*p) {   /* an unmatched ')' is regcomp's to report */
		size += regex_size(&p, 0);
		if (*p)
			p++;
	}
	if (size > PAGE_REGEX_MAX_NODES) {
		return lb_err(err, LB_EINVAL, "%s pattern '%.200s' repeats too much (over %d copies)",
			      what, pattern, PAGE_REGEX_MAX_NODES);
	}
	rc = regcomp(re, pattern, REG_EXTENDED);

	if (rc != 0) {
		char msg[128];

		regerror(rc, re, msg, sizeof msg);
		return lb_err(err, LB_EINVAL, "bad %s pattern '%s': %s", what, pattern, msg);
	}
	return 0;
}

static int pattern_check(const char *pattern, const char *what, lb_error *err)
{
	regex_t re;
	int rc;

	if (!pattern || !*pattern)
		return lb_err(err, LB_EINVAL, "empty %s pattern", what);
	if (pattern_kind(pattern) != PAT_REGEX)
		return 0;
	if ((rc = regex_compile(&re, pattern, what, err)) < 0)
		return rc;
	regfree(&re);
	return 0;
}

int ant_page_pattern_check(const char *pattern, lb_error *err)
{
	return pattern_check(pattern, "ignore", err);
}

int ant_page_only_check(const char *pattern, lb_error *err)
{
	return pattern_check(pattern, "only", err);
}


/* A compiled list of patterns (ignore or only). */
typedef struct patterns {
	const char *const *pat;
	size_t n;
	regex_t *re;        /* one per pattern; compiled only for PAT_REGEX */
	unsigned char *kind;
	size_t nsel, nregex;
} patterns;

static void patterns_release(patterns *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->kind && ps->kind[i] == PAT_REGEX)
			regfree(&ps->re[i]);
	free(ps->re);
	free(ps->kind);
	memset(ps, 0, sizeof *ps);
}

static int patterns_compile(patterns *ps, const char *const *pat, size_t n, const char *what,
			    lb_error *err)
{
	int rc;

	memset(ps, 0, sizeof *ps);
	ps->pat = pat;
	if (!n)
		return 0;
	ps->re = calloc(n, sizeof *ps->re);
	ps->kind = calloc(n, 1);
	if (!ps->re || !ps->kind) {
		patterns_release(ps);
		return lb_err_code(err, LB_ENOMEM);
	}
	for (size_t i = 0; i < n; i++) {
		if (!pat[i] || !*pat[i]) {
			rc = lb_err(err, LB_EINVAL, "empty %s pattern", what);
			goto fail;
		}
		ps->kind[i] = (unsigned char)pattern_kind(pat[i]);
		if (ps->kind[i] == PAT_REGEX && (rc = regex_compile(&ps->re[i], pat[i], what, err)) < 0)
			goto fail;
		ps->n = i + 1;
		if (ps->kind[i] == PAT_REGEX)
			ps->nregex++;
		else
			ps->nsel++;
	}
	return 0;
fail:
	patterns_release(ps);   /* frees the ps->n patterns compiled so far */
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

/* Does an element with this id and class attribute match a selector? */
static int selector_hit(const patterns *ps, const char *id, const char *cls)
{
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->kind[i] == PAT_ID && id && strcmp(id, ps->pat[i] + 1) == 0)
			return 1;
		if (ps->kind[i] == PAT_CLASS && cls && has_class(cls, ps->pat[i] + 1))
			return 1;
	}
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

/* Appends s with runs of whitespace collapsed to one space; *space says
 * whether out already ends in a space (or is empty).  Room is made once
 * per call: this runs over every byte of every page. */
static int add_collapsed(lb_buf *out, const char *s, size_t n, int *space)
{
	char *o;
	int sp = *space;

	if (lb_buf_grow(out, n) < 0)
		return -1;
	o = out->data + out->len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			if (!sp)
				*o++ = ' ';
			sp = 1;
		} else {
			*o++ = (char)c;
			sp = 0;
		}
	}
	*o = '\0';
	out->len = (size_t)(o - out->data);
	*space = sp;
	return 0;
}

/* ---- the SAX walk ---------------------------------------------------------- */

enum {
	EL_BLOCK = 1,   /* its edges separate words ("<p>a</p><p>b</p>" is "a b") */
	EL_SKIP = 2,    /* never text: script, style... */
	EL_TITLE = 4,
	EL_LINK = 8,
	EL_ROOTISH = 16, /* html: not part of a block path */
	EL_KEY = 32      /* body, head: a block for the keys, not for the text */
};

/* Element names the walk cares about, sorted for bsearch.  The HTML
 * parser lowercases names, so strcmp is enough. */
static const struct el_name { const char *name; unsigned char flags; } elements[] = {
	{ "address", EL_BLOCK }, { "article", EL_BLOCK }, { "aside", EL_BLOCK },
	{ "blockquote", EL_BLOCK }, { "body", EL_KEY }, { "br", EL_BLOCK }, { "dd", EL_BLOCK },
	{ "div", EL_BLOCK }, { "dl", EL_BLOCK }, { "dt", EL_BLOCK }, { "fieldset", EL_BLOCK },
	{ "figcaption", EL_BLOCK }, { "figure", EL_BLOCK }, { "footer", EL_BLOCK }, { "form", EL_BLOCK },
	{ "h1", EL_BLOCK }, { "h2", EL_BLOCK }, { "h3", EL_BLOCK }, { "h4", EL_BLOCK },
	{ "h5", EL_BLOCK }, { "h6", EL_BLOCK }, { "head", EL_KEY }, { "header", EL_BLOCK },
	{ "hr", EL_BLOCK }, { "html", EL_ROOTISH }, { "li", EL_BLOCK }, { "link", EL_LINK },
	{ "main", EL_BLOCK }, { "nav", EL_BLOCK }, { "noscript", EL_SKIP }, { "ol", EL_BLOCK },
	{ "p", EL_BLOCK }, { "pre", EL_BLOCK }, { "script", EL_SKIP }, { "section", EL_BLOCK },
	{ "style", EL_SKIP }, { "table", EL_BLOCK }, { "td", EL_BLOCK }, { "template", EL_SKIP },
	{ "th", EL_BLOCK }, { "title", EL_BLOCK | EL_TITLE }, { "tr", EL_BLOCK }, { "ul", EL_BLOCK },
};

static int cmp_el(const void *key, const void *el)
{
	return strcmp(key, ((const struct el_name *)el)->name);
}

static unsigned el_flags_lookup(const char *name)
{
	const struct el_name *e = bsearch(name, elements, sizeof elements / sizeof *elements,
					  sizeof *elements, cmp_el);

	return e ? e->flags : 0;
}

/* The parser hands out names from its dictionary, so one name is one
 * pointer within a parse: a small direct-mapped cache by pointer turns the
 * table lookup into a compare for nearly every element. */
#define EL_CACHE 64

typedef struct frame {
	uint64_t h;          /* FNV-1a state of the path through this element */
	uint32_t path_end;   /* bytes of walk.path through this element */
	uint32_t block;      /* index + 1 of the innermost block frame; 0 none */
	unsigned char flags; /* EL_* */
	unsigned char only;  /* an --only selector matched it */
	unsigned char in;    /* its text is read (inside an --only element, or no selectors) */
	unsigned char title; /* the first <title>: its text children are the title */
	unsigned char virt;  /* the root again, for elements after it closed */
} frame;

/* A place where a segment starts: its byte offset and its block. */
typedef struct bound {
	size_t off;
	uint32_t key;
	uint32_t path;       /* offset in walk.paths */
} bound;

typedef struct walk {
	lb_buf text;
	lb_buf title;
	lb_buf path;         /* the open elements' path, "body>div#x>p" */
	lb_buf paths;        /* the bounds' block paths, NUL-separated */
	char *feed_href;     /* the page's advertised feed */
	frame *fr;
	size_t nfr, capfr;
	bound *bd;           /* bd[0] is the start of the text; at most ANT_PAGE_MAX_SEGMENTS cuts follow */
	size_t nbd, capbd;
	int want_cuts;
	int key_pending;     /* the last bound's block is taken with its first byte */
	const patterns *ig, *only;
	size_t only_matched;
	size_t skip;         /* > 0: inside a skipped element, its depth */
	unsigned skip_flags; /* that element's EL_* */
	int roots;           /* top-level elements seen */
	int doctype;         /* a DOCTYPE was seen */
	int pre_root;        /* a comment or PI came before the root element */
	frame root;          /* the root element's frame, kept for what follows it */
	int space;           /* text ends in a space */
	int title_space;
	int have_title;
	int oom;
	struct { const void *name; unsigned flags; } cache[EL_CACHE];
} walk;

static unsigned el_flags(walk *w, const xmlChar *name)
{
	/* dictionary strings sit close together: mix the bits (Fibonacci hashing) */
	size_t i = (size_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58);

	if (w->cache[i].name != name) {
		w->cache[i].name = name;
		w->cache[i].flags = el_flags_lookup((const char *)name);
	}
	return w->cache[i].flags;
}

static const uint64_t fnv_basis = 14695981039346656037ull;

static uint64_t fnv_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint32_t fold32(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

/* The innermost block frame, or NULL. */
static const frame *block_frame(const walk *w)
{
	return w->nfr && w->fr[w->nfr - 1].block ? &w->fr[w->fr[w->nfr - 1].block - 1] : NULL;
}

/* The last bound takes the block in effect now: called with the first byte
 * of its segment, so an empty block between does not claim it. */
#define PATH_SHOWN 200
static void bind_block(walk *w)
{
	const frame *b = block_frame(w);
	bound *bd = &w->bd[w->nbd - 1];
	const char *p = w->path.data;
	size_t n = b ? b->path_end : 0;

	w->key_pending = 0;
	bd->key = b ? fold32(b->h) : 0;
	bd->path = (uint32_t)w->paths.len;
	if (n > PATH_SHOWN) {   /* deep nesting: the end of the path tells most */
		p += n - PATH_SHOWN;
		n = PATH_SHOWN;
		w->oom |= lb_buf_adds(&w->paths, "\xe2\x80\xa6") < 0;
	}
	w->oom |= lb_buf_add(&w->paths, p, n) < 0 || lb_buf_addc(&w->paths, '\0') < 0;
}

/* Appends text read inside the walked part. */
static void add_text(walk *w, const char *s, size_t n)
{
	size_t before = w->text.len;

	w->oom |= add_collapsed(&w->text, s, n, &w->space) < 0;
	if (w->key_pending && w->text.len > before && w->want_cuts)
		bind_block(w);
}

/* A block edge ends a segment (for excerpts); at most ANT_PAGE_MAX_SEGMENTS
 * are remembered, the rest of the page is one last segment. */
static void cut(walk *w)
{
	bound *nv;

	if (!w->want_cuts || w->nbd > ANT_PAGE_MAX_SEGMENTS)
		return;
	if (w->bd[w->nbd - 1].off == w->text.len) {
		w->key_pending = 1;   /* nothing since the last cut: a later block takes it */
		return;
	}
	if (!(nv = lb_grow(w->bd, &w->capbd, w->nbd + 1, sizeof *nv, 64))) {
		w->oom = 1;
		return;
	}
	w->bd = nv;
	w->bd[w->nbd++] = (bound){ w->text.len, 0, 0 };
	w->key_pending = 1;
}

static void edge(walk *w)
{
	add_text(w, " ", 1);
	cut(w);
}

/* <link rel="alternate" type="application/atom+xml" href="..."> (or rss+xml):
 * the page advertises a feed (RSS Autodiscovery; HTML "alternate" link). */
static void take_feed_link(walk *w, const xmlChar **atts)
{
	const char *rel = NULL, *type = NULL, *href = NULL;

	if (w->feed_href || !atts)
		return;
	for (; atts[0]; atts += 2) {
		const char *v = atts[1] ? (const char *)atts[1] : "";

		if (!rel && strcmp((const char *)atts[0], "rel") == 0)
			rel = v;
		else if (!type && strcmp((const char *)atts[0], "type") == 0)
			type = v;
		else if (!href && strcmp((const char *)atts[0], "href") == 0)
			href = v;
	}
	if (rel && type && strcasestr(rel, "alternate") &&
	    (strncasecmp(type, "application/atom+xml", 20) == 0 ||
	     strncasecmp(type, "application/rss+xml", 19) == 0) && href && *href &&
	    !(w->feed_href = strdup(href)))
		w->oom = 1;
}

/* A class name as the path shows it (in path_push()'s buffer). */
typedef struct token {
	const char *s;
	size_t n;
} token;

static int cmp_token(const void *a, const void *b)
{
	const token *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/*
 * Copies a name (an id, a class) with each run of digits as one '#':
 * "post-123", "comment-4567", "div-gpt-ad-1234567-0" are numbered by the
 * server and change from entry to entry or from fetch to fetch, while
 * the widget they name stays; the key is the widget's.  Returns the bytes
 * written, at most room.
 */
static size_t name_norm(char *out, size_t room, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o < room; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
			out[o++] = '#';
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

/* Appends ">tag#id.a.b" (names normalised, classes sorted, repeats
 * dropped) to the path. */
#define PATH_MAX_CLASSES 16
#define PATH_NAME_ROOM 512
static void path_push(walk *w, const char *name, const char *id, const char *cls, int first)
{
	char buf[PATH_NAME_ROOM];
	token tok[PATH_MAX_CLASSES];
	size_t nt = 0, used = 0;

	if (!first)
		w->oom |= lb_buf_addc(&w->path, '>') < 0;
	w->oom |= lb_buf_adds(&w->path, name) < 0;
	if (id && *id) {
		size_t k = name_norm(buf, sizeof buf, id, strlen(id));

		w->oom |= lb_buf_addc(&w->path, '#') < 0 || lb_buf_add(&w->path, buf, k) < 0;
	}
	for (const char *p = cls; p && *p && nt < PATH_MAX_CLASSES && used < sizeof buf;) {
		size_t k;

		while (*p && isspace((unsigned char)*p))
			p++;
		k = strcspn(p, " \t\r\n\f\v");
		if (k) {
			tok[nt].s = buf + used;
			tok[nt].n = name_norm(buf + used, sizeof buf - used, p, k);
			used += tok[nt++].n;
		}
		p += k;
	}
	if (nt > 1)
		qsort(tok, nt, sizeof *tok, cmp_token);
	for (size_t i = 0; i < nt; i++) {
		if (i && cmp_token(&tok[i - 1], &tok[i]) == 0)
			continue;
		w->oom |= lb_buf_addc(&w->path, '.') < 0 || lb_buf_add(&w->path, tok[i].s, tok[i].n) < 0;
	}
}

static void sax_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	walk *w = ctx;
	const char *id = NULL, *cls = NULL;
	const frame *up;
	frame *f, *nv;
	unsigned fl;
	int only;

	if (w->skip) {
		w->skip++;
		return;
	}
	if (!w->nfr && w->roots++) {
		/* An element after the root closed (text after </html>): the
		 * tree builder hung it under the root when the root was the
		 * document's first child, else beside it where the walk, which
		 * read the root only, never went.  Same here. */
		if (w->doctype || w->pre_root) {
			w->skip = 1;
			w->skip_flags = 0;
			return;
		}
		if (!(nv = lb_grow(w->fr, &w->capfr, w->nfr + 1, sizeof *nv, 32))) {
			w->oom = 1;
			return;
		}
		w->fr = nv;
		w->fr[w->nfr++] = w->root;
		w->path.len = w->root.path_end;
	}
	fl = el_flags(w, name);
	for (const xmlChar **a = atts; a && a[0]; a += 2) {
		if (!id && strcmp((const char *)a[0], "id") == 0)
			id = a[1] ? (const char *)a[1] : "";
		else if (!cls && strcmp((const char *)a[0], "class") == 0)
			cls = a[1] ? (const char *)a[1] : "";
	}
	if ((fl & EL_SKIP) || (w->ig->nsel && selector_hit(w->ig, id, cls))) {
		w->skip = 1;
		w->skip_flags = fl;
		return;
	}
	only = w->only->nsel && selector_hit(w->only, id, cls);
	w->only_matched += only;
	if (!(nv = lb_grow(w->fr, &w->capfr, w->nfr + 1, sizeof *nv, 32))) {
		w->oom = 1;
		return;
	}
	w->fr = nv;
	up = w->nfr ? &w->fr[w->nfr - 1] : NULL;
	f = &w->fr[w->nfr++];
	f->flags = (unsigned char)fl;
	f->only = (unsigned char)only;
	f->in = (unsigned char)(!w->only->nsel || only || (up && up->in));
	f->title = 0;
	f->virt = 0;
	/* The path starts below <html>: head>title, body>div#x. */
	if (fl & EL_ROOTISH) {
		f->h = fnv_basis;
		f->path_end = (uint32_t)w->path.len;
	} else {
		size_t start = w->path.len;
		int first = !up || (up->flags & EL_ROOTISH);

		path_push(w, (const char *)name, id, cls, first);
		f->h = fnv_add(first ? fnv_basis : up->h, w->path.data + start, w->path.len - start);
		f->path_end = (uint32_t)w->path.len;
	}
	f->block = fl & (EL_BLOCK | EL_KEY) ? (uint32_t)w->nfr : up ? up->block : 0;
	if ((fl & EL_TITLE) && !w->have_title) {
		w->have_title = 1;
		f->title = 1;
	}
	if (w->nfr == 1) {
		w->root = *f;
		w->root.virt = 1;
	}
	if (fl & EL_LINK)
		take_feed_link(w, atts);
	if (((fl & EL_BLOCK) || only) && f->in)
		edge(w);
}

static void sax_end(void *ctx, const xmlChar *name)
{
	walk *w = ctx;
	frame f;

	if (w->skip) {
		/* A skipped block still separates the words around it. */
		if (--w->skip == 0 && (w->skip_flags & EL_BLOCK) && w->nfr && w->fr[w->nfr - 1].in)
			edge(w);
		return;
	}
	if (!w->nfr)
		return;
	f = w->fr[--w->nfr];
	w->path.len = w->nfr ? w->fr[w->nfr - 1].path_end : 0;   /* not NUL-terminated: read by length */
	if (((f.flags & EL_BLOCK) || f.only) && f.in)
		edge(w);
}

/* Bytes of a <title> looked at: ANT_MAX_TITLE characters of up to 4 bytes. */
#define TITLE_TAKEN (4 * (size_t)ANT_MAX_TITLE + 8)

static void sax_text(void *ctx, const xmlChar *ch, int len)
{
	walk *w = ctx;
	const frame *f;

	if (w->skip || !w->nfr || len <= 0)
		return;
	f = &w->fr[w->nfr - 1];
	if (f->virt)   /* text after </html>: the tree builder dropped it */
		return;
	/* A little past ANT_MAX_TITLE characters is enough: ant_clip() cuts it
	 * (an 8 MB <title> is not kept). */
	if (f->title && w->title.len < TITLE_TAKEN) {
		size_t n = (size_t)len < TITLE_TAKEN - w->title.len ? (size_t)len
								   : TITLE_TAKEN - w->title.len;
		w->oom |= add_collapsed(&w->title, (const char *)ch, n, &w->title_space) < 0;
	}
	if (f->in)
		add_text(w, (const char *)ch, (size_t)len);
}

static void sax_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
	((walk *)ctx)->doctype = 1;
}

/* A comment or processing instruction before the root element is the
 * document's first child: what follows the root is then no longer hung
 * under it (sax_start). */
static void sax_comment(void *ctx, const xmlChar *value)
{
	walk *w = ctx;

	if (!w->roots && !w->nfr)
		w->pre_root = 1;
}

static void sax_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	sax_comment(ctx, NULL);
}

/*
 * The parse: libxml2's HTML parser with a SAX handler that builds no tree.
 * The pull parser over the whole buffer, not the push parser: the body is
 * in memory already, and libxml2 2.9's push parser splits and closes some
 * malformed markup differently from htmlReadMemory(), which made the
 * text_hash of every page until 0.3; this is htmlReadMemory() (htmlDoRead:
 * options, then UTF-8 forced) with our handler in place of the tree
 * builder, so the events are the ones that built that tree.
 */
static int parse_and_walk(const char *utf8, size_t len, walk *w)
{
	htmlParserCtxtPtr ctxt;
	xmlCharEncodingHandlerPtr hdlr;

	if (len == 0)
		return 0;
	if (len > (size_t)0x7fffffff)
		return -1;
	xmlInitParser();   /* as htmlReadMemory() did: once, then a check of a flag */
	if (!(ctxt = htmlCreateMemoryParserCtxt(utf8, (int)len)))
		return -1;
	if (ctxt->sax) {
		memset(ctxt->sax, 0, sizeof *ctxt->sax);
		ctxt->sax->startElement = sax_start;
		ctxt->sax->endElement = sax_end;
		ctxt->sax->characters = sax_text;
		/* what the tree builder makes a CDATA node, the walk read as text */
		ctxt->sax->cdataBlock = sax_text;
		ctxt->sax->internalSubset = sax_doctype;
		ctxt->sax->comment = sax_comment;
		ctxt->sax->processingInstruction = sax_pi;
		ctxt->sax->initialized = 1;
	}
	ctxt->userData = w;
	htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT);
	if ((hdlr = xmlFindCharEncodingHandler("UTF-8")))
		xmlSwitchToEncoding(ctxt, hdlr);
	htmlParseDocument(ctxt);
	if (ctxt->myDoc)   /* never, without a startDocument handler */
		xmlFreeDoc(ctxt->myDoc);
	xmlFreeParserCtxt(ctxt);
	/* Elements a broken page leaves open close at its end. */
	while (w->skip)
		sax_end(w, NULL);
	while (w->nfr)
		sax_end(w, NULL);
	return 0;
}

/* Removes every match of every regex pattern from [s, s+n) into out
 * (emptied first), re-collapsed.  tmp is scratch. */
static int remove_regex(lb_buf *text, const patterns *ig, lb_buf *tmp)
{
	for (size_t i = 0; i < ig->n; i++) {
		const char *p = text->data;
		int space = 1, eflags = 0;
		regmatch_t m;
		lb_buf swap;

		if (ig->kind[i] != PAT_REGEX)
			continue;
		lb_buf_reset(tmp);
		while (*p && regexec(&ig->re[i], p, 1, &m, eflags) == 0) {
			if (add_collapsed(tmp, p, (size_t)m.rm_so, &space) < 0)
				return -1;
			if (m.rm_eo == m.rm_so) {  /* empty match: keep one byte */
				if (!p[m.rm_eo])
					break;
				if (add_collapsed(tmp, p + m.rm_eo, 1, &space) < 0)
					return -1;
				p += m.rm_eo + 1;
			} else {
				p += m.rm_eo;
			}
			eflags = REG_NOTBOL;
		}
		if (add_collapsed(tmp, p, strlen(p), &space) < 0)
			return -1;
		swap = *text;
		*text = *tmp;
		*tmp = swap;
	}
	return 0;
}

/* The text without its leading and trailing spaces, as a view. */
static void trimmed(const lb_buf *b, size_t *start, size_t *len)
{
	size_t s = 0, e = b->len;

	while (e && b->data[e - 1] == ' ')
		e--;
	while (s < e && b->data[s] == ' ')
		s++;
	*start = s;
	*len = e - s;
}

static void trim(lb_buf *b)
{
	size_t start, len;

	if (!b->cap)   /* still the static "" */
		return;
	trimmed(b, &start, &len);
	if (start)
		memmove(b->data, b->data + start, len);
	b->len = len;
	b->data[len] = '\0';
}

/* 64-bit FNV-1a (Fowler/Noll/Vo), offset basis and prime from the spec. */
uint64_t ant_page_hash64(const void *p, size_t n)
{
	return fnv_add(fnv_basis, p, n);
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

/* ---- segments and change excerpts ------------------------------------------ */

static uint32_t seg_hash(const char *s, size_t n)
{
	return fold32(ant_page_hash64(s, n));
}

/* Length of the sentence at s (through its terminator), at most n. */
static size_t sentence_len(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c == '.' || c == '!' || c == '?') && i + 1 < n && s[i + 1] == ' ')
			return i + 1;
		/* 。(E3 80 82) ．！？(EF BC 8E, 81, 9F) */
		if ((c == 0xE3 || c == 0xEF) && i + 3 <= n) {
			unsigned char b = (unsigned char)s[i + 1], d = (unsigned char)s[i + 2];

			if ((c == 0xE3 && b == 0x80 && d == 0x82) ||
			    (c == 0xEF && b == 0xBC && (d == 0x8E || d == 0x81 || d == 0x9F)))
				return i + 3;
		}
	}
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

typedef struct segctx {
	ant_page_seg *seg;
	size_t n, cap;
	uint32_t *prev;           /* sorted copy */
	size_t nprev;
	lb_buf excerpt;
	size_t max;
	int state;                /* 0 looking, 1 in the first new run, 2 done */
	lb_buf own;               /* the segments' text when it is not the page's text */
	lb_buf blk, tmp;          /* scratch for one block */
	const patterns *ig, *only;
	size_t only_matched;
	int oom;
} segctx;

/* One segment: s is in base (the page's text or c->own) at s - base. */
static void take_sentence(segctx *c, const char *base, const char *s, size_t n, const bound *b)
{
	uint32_t h;
	ant_page_seg *nv;
	int known;

	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || c->n >= ANT_PAGE_MAX_SEGMENTS)
		return;
	h = seg_hash(s, n);
	if (!(nv = lb_grow(c->seg, &c->cap, c->n + 1, sizeof *nv, 64))) {
		c->oom = 1;
		return;
	}
	c->seg = nv;
	c->seg[c->n++] = (ant_page_seg){ b->key, ant_noise_hash(s, n), h, (uint32_t)(s - base),
					 (uint32_t)n, b->path };
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

/* Cuts [s, s+n) of base in sentences. */
static void take_sentences(segctx *c, const char *base, const char *s, size_t n, const bound *b)
{
	size_t off = 0, k;

	while (off < n && !c->oom) {
		k = sentence_len(s + off, n - off);
		take_sentence(c, base, s + off, k, b);
		off += k;
	}
}

/* Appends [s, s+n) to c->own, collapsed, a space before it unless first;
 * returns its offset there. */
static size_t own_add(segctx *c, const char *s, size_t n)
{
	size_t at;
	int space = 1;

	if (c->own.len)
		c->oom |= lb_buf_addc(&c->own, ' ') < 0;
	at = c->own.len;
	c->oom |= add_collapsed(&c->own, s, n, &space) < 0;
	while (c->own.len > at && c->own.data[c->own.len - 1] == ' ')
		c->own.data[--c->own.len] = '\0';
	return at;
}

/* Segment [a, b) of the text: ignore patterns applied, cut in sentences;
 * with --only expressions, each match is a segment instead. */
static void take_block(segctx *c, const char *text, size_t a, size_t e, const bound *b)
{
	const char *p;
	int eflags = 0;

	if (!c->ig->nregex && !c->only->nregex) {   /* no copy: the segments are the page's text */
		take_sentences(c, text, text + a, e - a, b);
		return;
	}
	lb_buf_reset(&c->blk);
	if (lb_buf_add(&c->blk, text + a, e - a) < 0 || remove_regex(&c->blk, c->ig, &c->tmp) < 0) {
		c->oom = 1;
		return;
	}
	if (!c->only->nregex) {
		size_t at = own_add(c, c->blk.data, c->blk.len);

		take_sentences(c, c->own.data, c->own.data + at, c->own.len - at, b);
		return;
	}
	/* The leftmost match of any only expression, again after it. */
	p = c->blk.data;
	while (*p && !c->oom) {
		regmatch_t best = { -1, -1 }, m;
		size_t at;

		for (size_t i = 0; i < c->only->n; i++)
			if (c->only->kind[i] == PAT_REGEX &&
			    regexec(&c->only->re[i], p, 1, &m, eflags) == 0 &&
			    (best.rm_so < 0 || m.rm_so < best.rm_so ||
			     (m.rm_so == best.rm_so && m.rm_eo > best.rm_eo)))
				best = m;
		if (best.rm_so < 0)
			break;
		if (best.rm_eo > best.rm_so) {
			c->only_matched++;
			at = own_add(c, p + best.rm_so, (size_t)(best.rm_eo - best.rm_so));
			take_sentence(c, c->own.data, c->own.data + at, c->own.len - at, b);
			p += best.rm_eo;
		} else {
			if (!p[best.rm_eo])
				break;
			p += best.rm_eo + 1;
		}
		eflags = REG_NOTBOL;
	}
}

static int segments(walk *w, const ant_page_prev *prev, segctx *c)
{
	c->max = prev && prev->excerpt_max ? prev->excerpt_max : ANT_PAGE_EXCERPT_MAX;
	if (prev && prev->nsegs) {
		if (!(c->prev = malloc(prev->nsegs * sizeof *c->prev)))
			return -1;
		memcpy(c->prev, prev->segs, prev->nsegs * sizeof *c->prev);
		qsort(c->prev, prev->nsegs, sizeof *c->prev, cmp_u32);
		c->nprev = prev->nsegs;
	}
	for (size_t i = 0; i < w->nbd && !c->oom; i++) {
		size_t a = w->bd[i].off, e = i + 1 < w->nbd ? w->bd[i + 1].off : w->text.len;

		if (e > a)
			take_block(c, w->text.data, a, e, &w->bd[i]);
	}
	return c->oom ? -1 : 0;
}

static void segctx_release(segctx *c)
{
	free(c->seg);
	free(c->prev);
	lb_buf_release(&c->excerpt);
	lb_buf_release(&c->own);
	lb_buf_release(&c->blk);
	lb_buf_release(&c->tmp);
}

char *ant_page_clip(const char *s, size_t max)
{
	lb_buf b = LB_BUF_INIT;
	size_t chars = 0, n = strlen(s), before;
	int space = 1;

	if (!max)
		max = ANT_PAGE_EXCERPT_MAX;
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

char *ant_page_excerpt(const ant_page_info *p, const unsigned char *pick, size_t max_chars)
{
	lb_buf b = LB_BUF_INIT;
	char *x = NULL;
	size_t max = max_chars ? max_chars : ANT_PAGE_EXCERPT_MAX;

	if (!p || !pick || !p->text)
		return NULL;
	for (size_t i = 0; i < p->nseg; i++) {
		if (!pick[i])
			continue;
		/* a little past max is enough: ant_page_clip() cuts it */
		if (b.len > 4 * max + 8)
			break;
		if ((b.len && lb_buf_addc(&b, ' ') < 0) ||
		    lb_buf_add(&b, p->text + p->seg[i].off, p->seg[i].len) < 0)
			goto out;
	}
	if (b.len)
		x = ant_page_clip(b.data, max);
out:
	lb_buf_release(&b);
	return x;
}

const char *ant_page_seg_path(const ant_page_info *p, size_t i)
{
	if (!p || i >= p->nseg || !p->paths)
		return "";
	return p->paths + p->seg[i].path;
}

/* ---- the entry point (shared) ------------------------------------------------ */

static int analyze(const char *body, size_t len, const char *content_type, const ant_page_opts *o,
		   int want_segs, ant_page_info *out, lb_error *err)
{
	walk w = { .text = LB_BUF_INIT, .title = LB_BUF_INIT, .path = LB_BUF_INIT,
		   .paths = LB_BUF_INIT, .space = 1, .title_space = 1 };
	segctx c = { .excerpt = LB_BUF_INIT, .own = LB_BUF_INIT, .blk = LB_BUF_INIT,
		     .tmp = LB_BUF_INIT };
	lb_buf utf8 = LB_BUF_INIT, tmp = LB_BUF_INIT;
	patterns ig, only;
	charset cs;
	size_t skip, start, tlen;
	int rc;

	memset(out, 0, sizeof *out);
	if (!body)
		len = 0, body = "";
	if ((rc = patterns_compile(&ig, o->ignore, o->nignore, "ignore", err)) < 0)
		return rc;
	if ((rc = patterns_compile(&only, o->only, o->nonly, "only", err)) < 0) {
		patterns_release(&ig);
		return rc;
	}
	/* --only expressions need the segments: they are the text. */
	want_segs |= only.nregex > 0;
	w.ig = &ig;
	w.only = &only;
	w.want_cuts = want_segs;
	c.ig = &ig;
	c.only = &only;
	rc = LB_ENOMEM;
	if (want_segs) {
		if (!(w.bd = malloc(64 * sizeof *w.bd)))
			goto fail;
		w.capbd = 64;
		w.bd[0] = (bound){ 0, 0, 0 };
		w.nbd = 1;
		w.key_pending = 1;
	}
	pick_charset(body, len, content_type, o->forced_charset, out, &skip, &cs);
	if (strcmp(cs.iconv, "UTF-8") == 0 && utf8_clean_len(body + skip, len - skip) == len - skip) {
		/* Most pages: UTF-8 with nothing to repair, parsed where it is. */
		if (parse_and_walk(body + skip, len - skip, &w) < 0 || w.oom)
			goto fail;
	} else if (convert(body + skip, len - skip, cs.iconv, &utf8) == (size_t)-1 ||
		   parse_and_walk(utf8.data, utf8.len, &w) < 0 || w.oom) {
		goto fail;
	}
	lb_buf_release(&utf8);   /* the largest buffer goes first */
	if (want_segs) {
		if (w.key_pending && w.nbd == 1)
			bind_block(&w);  /* an empty page: one bound, no block */
		if (segments(&w, o->prev, &c) < 0 || w.oom)
			goto fail;
	}
	if (only.nregex) {
		/* The text is the matches, one space between. */
		trimmed(&c.own, &start, &tlen);
		out->text_hash = ant_page_hash64(c.own.data + start, tlen);
		out->text_len = tlen;
	} else {
		if (remove_regex(&w.text, &ig, &tmp) < 0)
			goto fail;
		trimmed(&w.text, &start, &tlen);
		out->text_hash = ant_page_hash64(w.text.data + start, tlen);
		out->text_len = tlen;
	}
	out->only_matched = only.n ? w.only_matched + c.only_matched : 1;
	if (want_segs) {
		out->nsegs = out->nseg = c.n;
		if (c.n && !(out->segs = malloc(c.n * sizeof *out->segs)))
			goto fail;
		for (size_t i = 0; i < c.n; i++)
			out->segs[i] = c.seg[i].raw;
		out->seg = c.seg;
		c.seg = NULL;
		if (c.excerpt.len && !(out->excerpt = ant_page_clip(c.excerpt.data, c.max)))
			goto fail;
		/* The segments point into the page's text unless patterns made their own. */
		if (!ig.nregex && !only.nregex)
			out->text = lb_buf_detach(&w.text, NULL);
		else
			out->text = lb_buf_detach(&c.own, NULL);
		out->paths = lb_buf_detach(&w.paths, NULL);
		if (!out->text || !out->paths)
			goto fail;
	}
	trim(&w.title);
	if (w.title.len && !(out->title = ant_clip(w.title.data, ANT_MAX_TITLE)))
		goto fail;
	if (out->title && !*out->title) {
		free(out->title);
		out->title = NULL;
	}
	out->feed_href = w.feed_href;
	w.feed_href = NULL;
	rc = 0;
	goto out;
fail:
	ant_page_info_release(out);
	rc = lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
out:
	free(w.feed_href);
	free(w.fr);
	free(w.bd);
	lb_buf_release(&w.title);
	lb_buf_release(&w.text);
	lb_buf_release(&w.path);
	lb_buf_release(&w.paths);
	lb_buf_release(&utf8);
	lb_buf_release(&tmp);
	segctx_release(&c);
	patterns_release(&ig);
	patterns_release(&only);
	return rc;
}

int ant_page_analyze2(const char *body, size_t len, const char *content_type,
		      const ant_page_opts *o, ant_page_info *out, lb_error *err)
{
	static const ant_page_opts defaults;

	return analyze(body, len, content_type, o ? o : &defaults, 1, out, err);
}

/* The entry points before ant_page_analyze2(): no --only. */
static int analyze_old(const char *body, size_t len, const char *content_type, const char *forced,
		       const char *const *ignore, size_t nignore, const ant_page_prev *prev,
		       int want_segs, ant_page_info *out, lb_error *err)
{
	ant_page_opts o = { forced, ignore, nignore, NULL, 0, prev };

	return analyze(body, len, content_type, &o, want_segs, out, err);
}

int ant_page_analyze(const char *body, size_t len, const char *content_type,
		 const char *const *ignore, size_t nignore, ant_page_info *out,
		 lb_error *err)
{
	return analyze_old(body, len, content_type, NULL, ignore, nignore, NULL, 0, out, err);
}

int ant_page_analyze_forced(const char *body, size_t len, const char *content_type,
			const char *forced, const char *const *ignore, size_t nignore,
			ant_page_info *out, lb_error *err)
{
	return analyze_old(body, len, content_type, forced, ignore, nignore, NULL, 0, out, err);
}

int ant_page_analyze_excerpt(const char *body, size_t len, const char *content_type,
			 const char *forced, const char *const *ignore, size_t nignore,
			 const ant_page_prev *prev, ant_page_info *out, lb_error *err)
{
	return analyze_old(body, len, content_type, forced, ignore, nignore, prev, 1, out, err);
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
	free(p->feed_href);
	free(p->segs);
	free(p->excerpt);
	free(p->seg);
	free(p->text);
	free(p->paths);
	memset(p, 0, sizeof *p);
}
