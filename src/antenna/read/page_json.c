/*
 * page_json.c: a JSON answer read by its data (ant_page.h, "JSON pages"):
 * parsed with json-c, walked with each object's keys sorted, each leaf
 * value one segment "PATH: VALUE" placed by its path, the operator's
 * json: paths (page_jsonpath.c) and expressions (page_pattern.c) applied
 * on the way.  page.c calls it for a JSON page and makes the excerpt.
 *
 * Bounded before json-c sees a byte: one pass counts the values and
 * objects (json-c spends about 60 bytes on a value and 700 on an object's
 * table: "[{},{},...]" of 8 MiB would ask for 2 GiB) and finds integers
 * too long for 64 bits, which json-c would clamp to the same
 * 18446744073709551615; those are given a ".0" so that json-c keeps their
 * text (as it does every fraction's) and they are compared exactly.  The
 * depth is json-c's own limit (ANT_PAGE_JSON_MAX_DEPTH), so the walk's
 * recursion is bounded too.
 */
#include "ant_noise.h"
#include "ant_page.h"
#include "lb_buf.h"
#include "lb_utf8.h"
#include "page_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

/* ---- what the body is -------------------------------------------------------- */

enum { TYPE_OTHER, TYPE_JSON, TYPE_MAYBE };

/* application/json, anything+json: JSON; none or text/plain: look at it. */
static int type_of(const char *ct)
{
	size_t n;

	if (!ct)
		return TYPE_MAYBE;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	n = strcspn(ct, ";");
	while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	if (!n || (n == 10 && strncasecmp(ct, "text/plain", 10) == 0))
		return TYPE_MAYBE;
	if ((n == 16 && strncasecmp(ct, "application/json", 16) == 0) ||
	    (n > 5 && strncasecmp(ct + n - 5, "+json", 5) == 0))
		return TYPE_JSON;
	return TYPE_OTHER;
}

/* The body after a UTF-8 BOM. */
static void skip_bom(const char **s, size_t *n)
{
	if (*n >= 3 && memcmp(*s, "\xEF\xBB\xBF", 3) == 0) {
		*s += 3;
		*n -= 3;
	}
}

static int json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Does the body start like an object or an array? */
static int looks_like_container(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && json_space(s[i]))
		i++;
	return i < n && (s[i] == '{' || s[i] == '[');
}

/* ---- the charset ------------------------------------------------------------- */

/*
 * JSON is UTF-8 (RFC 8259 §8.1), but a legacy API may say otherwise: the
 * operator's forced charset, a UTF-16 BOM (RFC 7159 allowed it) or the
 * type's charset parameter ("application/json; charset=Shift_JIS") is
 * honoured, else UTF-8.  Never guessed: a guess would read UTF-8 as
 * something else.  *cs is what was picked, *from the word for it.
 */
static void json_charset(const char *body, size_t len, const char *ct, const char *forced,
			 ant_page_charset *cs, const char **from, size_t *bom)
{
	const char *v = ct ? strcasestr(ct, "charset=") : NULL;

	*bom = 0;
	if (forced && *forced && ant_page_charset_resolve(forced, strlen(forced), cs) == 0) {
		*from = "forced";
		return;
	}
	if (len >= 2 && (memcmp(body, "\xFF\xFE", 2) == 0 || memcmp(body, "\xFE\xFF", 2) == 0)) {
		*bom = 2;
		*from = "bom";
		snprintf(cs->report, sizeof cs->report, "%s", body[0] == '\xFF' ? "UTF-16LE" : "UTF-16BE");
		snprintf(cs->iconv, sizeof cs->iconv, "%s", cs->report);   /* the BOM skipped: no "UTF-16" */
		return;
	}
	if (v) {
		v += 8;
		v += strspn(v, "\"' ");
		if (ant_page_charset_resolve(v, strcspn(v, "\"' ;"), cs) == 0) {
			*from = "header";
			return;
		}
	}
	ant_page_charset_resolve("utf-8", 5, cs);
	*from = "default";
}

/* ---- the first pass: sizes and long integers --------------------------------- */

#define BIG_DIGITS 19   /* an integer this long may not fit in 64 bits */

typedef struct scan {
	size_t values, objects;
	size_t big;          /* integers of BIG_DIGITS or more */
} scan;

static int num_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

/* The number token at s[i] (outside strings): its length, and whether it
 * is a long integer. */
static size_t number_at(const char *s, size_t n, size_t i, int *big)
{
	size_t j = i, digits = 0;
	int frac = 0;

	while (j < n && num_char(s[j])) {
		digits += s[j] >= '0' && s[j] <= '9';
		frac |= s[j] == '.' || s[j] == 'e' || s[j] == 'E';
		j++;
	}
	*big = !frac && digits >= BIG_DIGITS;
	return j - i;
}

/* The first byte at or after i that is outside strings (n when none):
 * a string, its escapes included, is stepped over whole. */
static size_t outside(const char *s, size_t n, size_t i)
{
	for (; i < n && s[i] == '"'; i++)
		for (i++; i < n && s[i] != '"'; i++)
			i += s[i] == '\\';
	return i < n ? i : n;
}

/* One pass outside strings: values (commas and containers bound them),
 * objects, long integers. */
static void scan_body(const char *s, size_t n, scan *sc)
{
	int big;

	memset(sc, 0, sizeof *sc);
	sc->values = 1;
	for (size_t i = outside(s, n, 0); i < n; i = outside(s, n, i + 1)) {
		char c = s[i];

		if (c == ',' || c == '[') {
			sc->values++;
		} else if (c == '{') {
			sc->values++;
			sc->objects++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			i += number_at(s, n, i, &big) - 1;
			sc->big += big;
		}
	}
}

/* The body with ".0" after each long integer (outside strings). */
static int widen_ints(const char *s, size_t n, lb_buf *out)
{
	size_t from = 0;
	int big;

	for (size_t i = outside(s, n, 0); i < n; i = outside(s, n, i + 1)) {
		if (s[i] != '-' && (s[i] < '0' || s[i] > '9'))
			continue;
		i += number_at(s, n, i, &big) - 1;
		if (big && (lb_buf_add(out, s + from, i + 1 - from) < 0 || lb_buf_adds(out, ".0") < 0))
			return LB_ENOMEM;
		if (big)
			from = i + 1;
	}
	return lb_buf_add(out, s + from, n - from) < 0 ? LB_ENOMEM : 0;
}

/* ---- parsing -------------------------------------------------------------------- */

/*
 * The document into *doc (json_object_put() it; NULL is a document that
 * is null): 0, LB_EPARSE with err when it is not JSON or over the limits,
 * LB_ENOMEM.
 */
static int parse(const char *s, size_t n, json_object **doc, lb_error *err)
{
	lb_buf wide = LB_BUF_INIT;
	json_tokener *tok;
	enum json_tokener_error je;
	scan sc;
	size_t end;
	int rc = 0;

	*doc = NULL;
	skip_bom(&s, &n);
	if (n > INT_MAX)
		return lb_err(err, LB_EPARSE, "cannot read JSON: over %d bytes", INT_MAX);
	scan_body(s, n, &sc);
	if (sc.values > ANT_PAGE_JSON_MAX_VALUES || sc.objects > ANT_PAGE_JSON_MAX_OBJECTS)
		return lb_err(err, LB_EPARSE, "cannot read JSON: over %d values or %d objects "
			      "(ANT_PAGE_JSON_MAX_VALUES, ANT_PAGE_JSON_MAX_OBJECTS)",
			      ANT_PAGE_JSON_MAX_VALUES, ANT_PAGE_JSON_MAX_OBJECTS);
	if (sc.big) {
		if (widen_ints(s, n, &wide) < 0 || wide.len > INT_MAX) {
			lb_buf_release(&wide);
			return lb_err(err, LB_ENOMEM, "cannot read JSON: out of memory");
		}
		s = wide.data;
		n = wide.len;
	}
	if (!(tok = json_tokener_new_ex(ANT_PAGE_JSON_MAX_DEPTH))) {
		lb_buf_release(&wide);
		return lb_err(err, LB_ENOMEM, "cannot read JSON: out of memory");
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*doc = json_tokener_parse_ex(tok, s, (int)n);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	while (je == json_tokener_success && end < n && json_space(s[end]))
		end++;
	if (je == json_tokener_continue)
		rc = lb_err(err, LB_EPARSE, "cannot read JSON: it ends early");
	else if (je != json_tokener_success)
		rc = lb_err(err, LB_EPARSE, "cannot read JSON: %s at byte %zu%s", json_tokener_error_desc(je),
			    end + 1, je == json_tokener_error_depth ? " (ANT_PAGE_JSON_MAX_DEPTH)" : "");
	else if (end < n)
		rc = lb_err(err, LB_EPARSE, "cannot read JSON: more after the value at byte %zu", end + 1);
	if (rc < 0) {
		json_object_put(*doc);
		*doc = NULL;
	}
	json_tokener_free(tok);
	lb_buf_release(&wide);
	return rc;
}

/* ---- numbers ------------------------------------------------------------------- */

#define PLAIN_ZEROS 21   /* an integer with more zeros than this is written 1e22 */

/*
 * A JSON number's text as its decimal value: no leading or trailing zeros,
 * no "+", no "-0"; plain when short (150, 0.015, 12345678901234567890123),
 * else d.ddde±N.  Text that is not a JSON number (NaN, Infinity, which
 * json-c takes) and exponents of more than 9 digits are kept as written.
 */
/* The value sign * a[0..n) * 10^ex (a without leading or trailing zeros,
 * n > 0) written as number_text() says. */
static int write_decimal(lb_buf *out, int neg, const char *a, size_t n, long long ex)
{
	long long point = (long long)n + ex;   /* digits before the decimal point */
	int rc = neg ? lb_buf_addc(out, '-') : 0;

	if (ex >= 0 && ex <= PLAIN_ZEROS) {             /* 150, 12345678901234567890123 */
		rc |= lb_buf_add(out, a, n);
		for (long long z = 0; z < ex; z++)
			rc |= lb_buf_addc(out, '0');
	} else if (ex < 0 && point > 0) {               /* 19.99 */
		rc |= lb_buf_add(out, a, (size_t)point) | lb_buf_addc(out, '.') |
		      lb_buf_add(out, a + point, n - (size_t)point);
	} else if (ex < 0 && point > -6) {              /* 0.00015 */
		rc |= lb_buf_adds(out, "0.");
		for (long long z = point; z < 0; z++)
			rc |= lb_buf_addc(out, '0');
		rc |= lb_buf_add(out, a, n);
	} else {                                        /* 1.5e-10, 1e999 */
		rc |= lb_buf_add(out, a, 1);
		if (n > 1)
			rc |= lb_buf_addc(out, '.') | lb_buf_add(out, a + 1, n - 1);
		rc |= lb_buf_addf(out, "e%lld", point - 1);
	}
	return rc ? LB_ENOMEM : 0;
}

/* The exponent after 'e' at p into *ex: 0, or LB_ETOOBIG when it is not
 * one we read (more than 9 digits: the number is kept as written). */
static int exponent(const char *p, long long *ex)
{
	int neg = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	while (*p == '0' && isdigit((unsigned char)p[1]))
		p++;
	if (!isdigit((unsigned char)*p) || strspn(p, "0123456789") != strlen(p) || strlen(p) > 9)
		return LB_ETOOBIG;
	*ex = strtoll(p, NULL, 10) * (neg ? -1 : 1);
	return 0;
}

static int number_text(lb_buf *out, const char *t, lb_buf *d)
{
	const char *p = t, *ip, *fp = "", *a;
	size_t ni, nf = 0, n;
	long long ex = 0;
	int neg = 0;

	if (*p == '-')
		neg = 1, p++;
	ip = p;
	while (isdigit((unsigned char)*p))
		p++;
	ni = (size_t)(p - ip);
	if (*p == '.') {
		fp = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		nf = (size_t)(p - fp);
	}
	if (!ni || (*p && *p != 'e' && *p != 'E') || (*p && exponent(p + 1, &ex) < 0))
		return lb_buf_adds(out, t);
	/* the digits as one integer A, the value A * 10^ex (d is scratch) */
	lb_buf_reset(d);
	if (lb_buf_add(d, ip, ni) < 0 || lb_buf_add(d, fp, nf) < 0)
		return LB_ENOMEM;
	ex -= (long long)nf;
	for (a = d->data, n = d->len; n && *a == '0'; a++, n--)
		;
	while (n && a[n - 1] == '0')
		n--, ex++;
	return n ? write_decimal(out, neg, a, n, ex) : lb_buf_addc(out, '0');
}

/* ---- the walk ------------------------------------------------------------------- */

#define PATH_SHOWN 200    /* bytes of a path in a segment's text (its end kept) */
#define KEY_SHOWN 100     /* bytes of one key in a path */

typedef struct jwalk {
	const ant_page_patterns *ig, *only;
	size_t np;             /* ig->n + only->n: a state set each, per depth */
	uint64_t *st;          /* [depth * np + i] */
	size_t *hits;          /* per --only pattern: nodes its path matched */
	size_t rx_hits;        /* --only expressions' matches */
	lb_buf path;           /* the node's path as shown, "$.items[*].price" */
	lb_buf line, tmp, val; /* scratch for one leaf */
	lb_buf num;            /* scratch for a number's digits */
	lb_buf text, paths;    /* what ant_page_info gets */
	ant_page_seg *seg;
	size_t nseg, capseg;
	int arrays;            /* arrays above the node */
	size_t tail;           /* leaves past the segments, folded into one */
	uint32_t tail_raw, tail_norm;
	uint64_t hash;         /* text_hash */
	size_t text_len;
	ant_page_budget *budget;
	lb_error *err;
	int rc;
} jwalk;

static uint32_t hash32(const char *s, size_t n)
{
	uint64_t h = ant_page_fnv_add(ANT_PAGE_FNV_BASIS, s, n);

	return (uint32_t)(h ^ (h >> 32));
}

static void nomem(jwalk *w)
{
	if (!w->rc)
		w->rc = LB_ENOMEM;
}

/* One segment of text s[0..n) at the node's path. */
static void emit(jwalk *w, const char *s, size_t n)
{
	uint32_t raw, norm;
	ant_page_seg *nv;
	const char *p = w->path.data;
	size_t pn = w->path.len;

	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	if (!n)
		return;
	w->hash = ant_page_fnv_add(ant_page_fnv_add(w->hash, s, n), "\n", 1);
	w->text_len += n + 1;
	raw = hash32(s, n);
	/* a value with no array above it has a path of its own: compared as
	 * text is (its numbers, dates and times normalised: a change only in
	 * them is held a check, a stamp moved forward is no change); in an
	 * array its siblings share its path and normalised text, and the
	 * rules would take its numbers for a calendar's cells (ant_tokens.h):
	 * it is compared exactly, a new value is new */
	norm = w->arrays ? raw : ant_noise_hash(s, n);
	if (w->nseg + 1 >= ANT_PAGE_MAX_SEGMENTS) {   /* the last one is the rest's */
		w->tail++;
		w->tail_raw += raw;
		w->tail_norm += norm;
		return;
	}
	if (!(nv = lb_grow(w->seg, &w->capseg, w->nseg + 1, sizeof *nv, 64)))
		return nomem(w);
	w->seg = nv;
	nv[w->nseg++] = (ant_page_seg){ hash32(p, pn), norm, raw, (uint32_t)w->text.len, (uint32_t)n,
					(uint32_t)w->paths.len, 0, 0 };
	if (pn > PATH_SHOWN) {
		size_t cut = pn - PATH_SHOWN;

		while (cut < pn && ((unsigned char)p[cut] & 0xC0) == 0x80)
			cut++;
		p += cut;
		pn -= cut;
		if (lb_buf_adds(&w->paths, "\xe2\x80\xa6") < 0)
			nomem(w);
	}
	/* a key's bytes as UTF-8 ('antenna show' prints the path) */
	if (lb_buf_add(&w->text, s, n) < 0 || lb_buf_addc(&w->text, '\n') < 0 ||
	    lb_utf8_repair(&w->paths, p, pn, LB_UTF8_NUL, NULL) == (size_t)-1 ||
	    lb_buf_addc(&w->paths, '\0') < 0)
		nomem(w);
}

/* The leaf's value as text into w->val. */
static int value_text(jwalk *w, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return lb_buf_adds(&w->val, "null");
	case json_type_boolean:
		return lb_buf_adds(&w->val, json_object_get_boolean(o) ? "true" : "false");
	case json_type_int: {   /* json-c's own are written canonically */
		int64_t v = json_object_get_int64(o);

		return v == INT64_MAX ? lb_buf_addf(&w->val, "%" PRIu64, json_object_get_uint64(o))
				      : lb_buf_addf(&w->val, "%" PRId64, v);
	}
	case json_type_double:   /* its text as written (json-c keeps it) */
		return number_text(&w->val, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), &w->num);
	case json_type_string:
		if (!json_object_get_string_len(o))
			return lb_buf_adds(&w->val, "\"\"");
		return lb_buf_add(&w->val, json_object_get_string(o), (size_t)json_object_get_string_len(o));
	default:
		return 0;
	}
}

/* A leaf read: "PATH: VALUE", repaired and collapsed, the expressions
 * applied, then one segment (or one per --only expression's match). */
static void leaf(jwalk *w, json_object *o)
{
	int space = 1, rc;
	size_t shown = w->path.len > PATH_SHOWN ? w->path.len - PATH_SHOWN : 0;

	while (shown < w->path.len && shown && ((unsigned char)w->path.data[shown] & 0xC0) == 0x80)
		shown++;
	lb_buf_reset(&w->val);
	lb_buf_reset(&w->tmp);
	lb_buf_reset(&w->line);
	if ((shown && lb_buf_adds(&w->val, "\xe2\x80\xa6") < 0) ||
	    lb_buf_add(&w->val, w->path.data + shown, w->path.len - shown) < 0 ||
	    lb_buf_adds(&w->val, ": ") < 0 || value_text(w, o) < 0 ||
	    lb_utf8_repair(&w->tmp, w->val.data, w->val.len, LB_UTF8_NUL, NULL) == (size_t)-1 ||
	    ant_page_add_collapsed(&w->line, w->tmp.data, w->tmp.len, &space) < 0)
		return nomem(w);
	if (w->ig->nregex &&
	    (rc = ant_page_remove_regex(&w->line, w->ig, &w->tmp, w->budget, w->err)) < 0) {
		w->rc = rc;
		return;
	}
	if (!w->only->nregex)
		return emit(w, w->line.data, w->line.len);
	{
		ant_page_only_iter it;
		size_t so, eo;

		if (ant_page_only_begin(&it, w->only, w->line.data, w->line.len) < 0)
			return nomem(w);
		while (!w->rc && (rc = ant_page_only_next(&it, w->budget, &so, &eo, w->err)) > 0) {
			w->rx_hits++;
			emit(w, w->line.data + so, eo - so);
		}
		if (rc < 0)
			w->rc = rc;
		ant_page_only_end(&it);
	}
}

/* Can the key be written after a '.' and read back by page_jsonpath.c? */
static int dot_key(const char *k, size_t n)
{
	if (!n || (n == 1 && *k == '*'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strchr(".[]'\"\\", k[i]) || (unsigned char)k[i] <= ' ')
			return 0;
	return 1;
}

/* Appends ".key" or "['key']" (a long key cut, "…" after it). */
static int push_key(lb_buf *p, const char *k, size_t n)
{
	size_t shown = n > KEY_SHOWN ? lb_utf8_clip(k, KEY_SHOWN) : n;
	int rc;

	if (dot_key(k, shown)) {
		rc = lb_buf_addc(p, '.') | lb_buf_add(p, k, shown);
	} else {
		rc = lb_buf_adds(p, "['");
		for (size_t i = 0; i < shown; i++)
			rc |= (k[i] == '\'' || k[i] == '\\' ? lb_buf_addc(p, '\\') : 0) | lb_buf_addc(p, k[i]);
		rc |= lb_buf_adds(p, "']");
	}
	if (shown < n)
		rc |= lb_buf_adds(p, "\xe2\x80\xa6");
	return rc ? LB_ENOMEM : 0;
}

struct member { const char *key; json_object *val; };

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

static void walk(jwalk *w, json_object *o, size_t depth, int in);

/* The child's states from the node's (depth), then the child walked. */
static void child(jwalk *w, json_object *c, size_t depth, int in, const char *key, size_t klen,
		  size_t index, size_t alen)
{
	const uint64_t *st = w->st + depth * w->np;
	uint64_t *cs = w->st + (depth + 1) * w->np;

	for (size_t i = 0; i < w->np; i++) {
		const ant_page_patterns *ps = i < w->ig->n ? w->ig : w->only;
		size_t j = i < w->ig->n ? i : i - w->ig->n;

		cs[i] = ps->kind[j] == ANT_PAGE_PAT_JSON ? ant_page_jpath_step(&ps->jp[j], st[i], key, klen, index, alen) : 0;
	}
	walk(w, c, depth + 1, in);
}

static void walk_object(jwalk *w, json_object *o, size_t depth, int in)
{
	size_t n = (size_t)json_object_object_length(o), i = 0, keep = w->path.len;
	struct member *m;

	if (!n)
		return;
	if (!(m = malloc(n * sizeof *m)))
		return nomem(w);
	json_object_object_foreach(o, k, v) {
		if (i < n)
			m[i++] = (struct member){ k, v };
	}
	qsort(m, i, sizeof *m, cmp_member);
	for (size_t j = 0; j < i && !w->rc; j++) {
		size_t klen = strlen(m[j].key);

		if (push_key(&w->path, m[j].key, klen) < 0) {
			nomem(w);
			break;
		}
		child(w, m[j].val, depth, in, m[j].key, klen, 0, 0);
		w->path.len = keep;
		w->path.data[keep] = '\0';
	}
	free(m);
}

static void walk(jwalk *w, json_object *o, size_t depth, int in)
{
	const uint64_t *st = w->st + depth * w->np;
	size_t keep = w->path.len;

	if (w->rc || depth > ANT_PAGE_JSON_MAX_DEPTH + 1)
		return;
	for (size_t i = 0; i < w->ig->n; i++)
		if (w->ig->kind[i] == ANT_PAGE_PAT_JSON && ant_page_jpath_matches(&w->ig->jp[i], st[i]))
			return;
	for (size_t i = 0; i < w->only->n; i++)
		if (w->only->kind[i] == ANT_PAGE_PAT_JSON &&
		    ant_page_jpath_matches(&w->only->jp[i], st[w->ig->n + i])) {
			w->hits[i]++;
			in = 1;
		}
	if (json_object_get_type(o) == json_type_object) {
		walk_object(w, o, depth, in);
	} else if (json_object_get_type(o) == json_type_array) {
		size_t n = json_object_array_length(o);

		if (lb_buf_adds(&w->path, "[*]") < 0)
			return nomem(w);
		w->arrays++;
		for (size_t i = 0; i < n && !w->rc; i++) {
			w->path.len = keep + 3;
			child(w, json_object_array_get_idx(o, i), depth, in, NULL, 0, i, n);
		}
		w->arrays--;
		w->path.len = keep;
		w->path.data[keep] = '\0';
	} else if (in) {
		leaf(w, o);
	}
}

/* The rest of the leaves, past ANT_PAGE_MAX_SEGMENTS - 1, as one segment:
 * its hashes are sums, blind to their order. */
static void emit_tail(jwalk *w)
{
	char t[64];
	ant_page_seg *nv;
	size_t n;

	if (!w->tail)
		return;
	n = (size_t)snprintf(t, sizeof t, "\xe2\x80\xa6 and %zu more values", w->tail);
	if (!(nv = lb_grow(w->seg, &w->capseg, w->nseg + 1, sizeof *nv, 64)))
		return nomem(w);
	w->seg = nv;
	nv[w->nseg++] = (ant_page_seg){ hash32("$\xe2\x80\xa6", 4), w->tail_norm, w->tail_raw,
					(uint32_t)w->text.len, (uint32_t)n, (uint32_t)w->paths.len, 0, 0 };
	if (lb_buf_add(&w->text, t, n) < 0 || lb_buf_addc(&w->text, '\n') < 0 ||
	    lb_buf_adds(&w->paths, "$\xe2\x80\xa6") < 0 || lb_buf_addc(&w->paths, '\0') < 0)
		nomem(w);
}

/* The first --only JSON path that matched nothing: LB_ENOTFOUND naming it. */
static int only_missing(const jwalk *w, lb_error *err)
{
	for (size_t i = 0; i < w->only->n; i++)
		if (w->only->kind[i] == ANT_PAGE_PAT_JSON && !w->hits[i])
			return lb_err(err, LB_ENOTFOUND, "only pattern '%.200s' matches nothing on this page",
				      w->only->pat[i]);
	return 0;
}

static void jwalk_release(jwalk *w)
{
	free(w->st);
	free(w->hits);
	free(w->seg);
	lb_buf_release(&w->path);
	lb_buf_release(&w->line);
	lb_buf_release(&w->tmp);
	lb_buf_release(&w->val);
	lb_buf_release(&w->num);
	lb_buf_release(&w->text);
	lb_buf_release(&w->paths);
}

/* The walk's results into out. */
static int take(jwalk *w, ant_page_info *out)
{
	size_t matched = w->rx_hits;

	for (size_t i = 0; i < w->only->n; i++)
		matched += w->hits[i];
	out->only_matched = w->only->n ? matched : 1;
	out->text_hash = w->hash;
	out->text_len = w->text_len ? w->text_len - 1 : 0;
	out->seg = w->seg;
	out->nseg = w->nseg;
	w->seg = NULL;
	if (!(out->text = lb_buf_detach(&w->text, NULL)) || !(out->paths = lb_buf_detach(&w->paths, NULL)))
		return LB_ENOMEM;
	out->json = 1;
	return 0;
}

/* The document parsed and walked into out (ant_page_json_read(), the
 * body UTF-8 by now). */
static int read_doc(const char *body, size_t len, int sniff, const ant_page_patterns *ig,
		    const ant_page_patterns *only, ant_page_budget *budget, ant_page_info *out,
		    lb_error *err)
{
	jwalk w = { .ig = ig, .only = only, .path = LB_BUF_INIT, .line = LB_BUF_INIT,
		    .tmp = LB_BUF_INIT, .val = LB_BUF_INIT, .num = LB_BUF_INIT, .text = LB_BUF_INIT,
		    .paths = LB_BUF_INIT, .hash = ANT_PAGE_FNV_BASIS, .budget = budget, .err = err };
	json_object *doc;
	int rc;

	skip_bom(&body, &len);
	if (sniff && !looks_like_container(body, len))
		return 1;
	if ((rc = parse(body, len, &doc, sniff ? NULL : err)) < 0)
		return sniff && rc == LB_EPARSE ? 1 : rc;
	w.np = ig->n + only->n;
	w.st = calloc((ANT_PAGE_JSON_MAX_DEPTH + 3) * (w.np ? w.np : 1), sizeof *w.st);
	w.hits = calloc(only->n ? only->n : 1, sizeof *w.hits);
	if (!w.st || !w.hits || lb_buf_addc(&w.path, '$') < 0) {
		rc = LB_ENOMEM;
	} else {
		for (size_t i = 0; i < w.np; i++)
			w.st[i] = 1;   /* the root: no step matched yet */
		walk(&w, doc, 0, !(only->njson || only->nsel));
		emit_tail(&w);
		rc = w.rc ? w.rc : only_missing(&w, err);
		if (rc == 0)
			rc = take(&w, out);
	}
	if (rc == LB_ENOMEM)
		rc = lb_err(err, LB_ENOMEM, "cannot analyze page: out of memory");
	json_object_put(doc);
	jwalk_release(&w);
	return rc;
}

int ant_page_json_read(const char *body, size_t len, const char *content_type, const char *forced,
		       const ant_page_patterns *ig, const ant_page_patterns *only,
		       ant_page_budget *budget, ant_page_info *out, lb_error *err)
{
	ant_page_charset cs;
	lb_buf conv = LB_BUF_INIT;
	const char *from;
	size_t bom;
	int t = type_of(content_type), rc;

	if (t == TYPE_OTHER)
		return 1;
	json_charset(body, len, content_type, forced, &cs, &from, &bom);
	if (strcmp(cs.iconv, "UTF-8") != 0) {
		if ((rc = ant_page_to_utf8(body + bom, len - bom, cs.iconv, &conv)) < 0) {
			lb_buf_release(&conv);
			return rc == LB_ENOMEM ? lb_err(err, rc, "cannot analyze page: out of memory")
					       : lb_err(err, LB_EPARSE, "cannot read JSON: cannot convert from '%s'",
							cs.iconv);
		}
		body = conv.data;
		len = conv.len;
	}
	rc = read_doc(body, len, t == TYPE_MAYBE, ig, only, budget, out, err);
	lb_buf_release(&conv);
	if (rc == 0) {
		snprintf(out->charset, sizeof out->charset, "%s", cs.report);
		out->charset_from = from;
	}
	return rc;
}

int ant_page_is_json(const char *body, size_t len, const char *content_type)
{
	static const ant_page_patterns none;
	ant_page_budget b = { 0 };
	ant_page_info pi;
	int t = type_of(content_type), rc;

	if (t != TYPE_MAYBE)
		return t == TYPE_JSON;
	if (!body)
		return 0;
	/* read as the analysis would: its charset, its sniffing */
	memset(&pi, 0, sizeof pi);
	rc = ant_page_json_read(body, len, content_type, NULL, &none, &none, &b, &pi, NULL);
	free(pi.seg);   /* what take() fills; page.c's release would call back up */
	free(pi.text);
	free(pi.paths);
	return rc == 0;
}
