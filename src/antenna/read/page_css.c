/*
 * page_css.c: a CSS selector (the subset ant_page.h lists for "css:"
 * patterns) translated to an XPath 1.0 expression over libxml2's HTML
 * tree, as Python's cssselect does: Debian 12 has no maintained C library
 * that matches CSS selectors against a libxml2 tree (lexbor and libcss
 * are not packaged; libmodest brings its own HTML tree), and libxml2's
 * XPath, which the page's xpath: patterns use anyway, can say all of it.
 *
 * Each selector becomes one step over every element of the page, with
 * what stands left of its last compound as conditions on the element's
 * relatives, right to left:
 *   E F -> F and ancestor::*[E]          E > F -> F and parent::*[E]
 *   E + F -> F and preceding-sibling::*[1]/self::*[E]
 *   E ~ F -> F and preceding-sibling::*[E]
 * so each element is looked at once: the left-to-right paths cssselect
 * writes (E//F, E/following-sibling::*) make libxml2 merge and de-duplicate
 * node-sets, quadratic or worse past its step count (li ~ li over 5000
 * items: 27 s before ANT_PAGE_XPATH_OPS stopped it; like this, 1 s).
 *   tag  -> self::tag      #x    -> @id='x'
 *   .x   -> contains(concat(' ', normalize-space(@class), ' '), ' x ')
 *   [a], [a=v], [a~=v], [a|=v], [a^=v], [a$=v], [a*=v] (Selectors 3 §6.3)
 *   :first-child -> not(preceding-sibling::*[1]) (a positional step libxml2
 *   stops early), :last-child, :only-child, :nth-child(an+b|odd|even)
 *   (by count(preceding-sibling::*): quadratic in a parent's children, so
 *   bounded by ANT_PAGE_XPATH_OPS, about 6000 siblings; :nth-child(3)
 *   alone is positional), :not(compound), lists with ','
 * HTML's parser lowercases element and attribute names, so the selector's
 * are lowercased too; attribute values are compared as written.  Pure: no
 * I/O.
 */
#include "page_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CSS_MAX_COMPOUNDS 64      /* compounds of one selector list, at most */
#define CSS_MAX_NTH 1000000       /* |a| and |b| of :nth-child(an+b), at most */

typedef struct css {
	const char *src;     /* the whole selector, for messages */
	const char *p;       /* where the parse stands */
	lb_buf *out;
	int oom;
	const char *fail;    /* what went wrong; NULL while all is well */
	const char *at;      /* where */
	int compounds;
} css;

static void put(css *c, const char *s)
{
	c->oom |= lb_buf_adds(c->out, s) < 0;
}

static void putn(css *c, const char *s, size_t n)
{
	c->oom |= lb_buf_add(c->out, s, n) < 0;
}

static int bad(css *c, const char *why)
{
	if (!c->fail) {
		c->fail = why;
		c->at = c->p;
	}
	return LB_EINVAL;
}

static void skip_ws(css *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' || *c->p == '\f')
		c->p++;
}

/* An XPath 1.0 string literal: it has no escapes, so a value with both
 * quotes is a concat() of pieces. */
static void put_literal(css *c, const char *s, size_t n)
{
	if (!memchr(s, '\'', n)) {
		put(c, "'"), putn(c, s, n), put(c, "'");
	} else if (!memchr(s, '"', n)) {
		put(c, "\""), putn(c, s, n), put(c, "\"");
	} else {
		put(c, "concat(''");
		for (size_t i = 0, k; i < n; i += k) {
			if (s[i] == '\'') {
				put(c, ",\"'\"");
				k = 1;
			} else {
				k = strcspn(s + i, "'");
				k = k < n - i ? k : n - i;
				put(c, ",'"), putn(c, s + i, k), put(c, "'");
			}
		}
		put(c, ")");
	}
}

static int ident_char(unsigned char ch)
{
	return isalnum(ch) || ch == '-' || ch == '_' || ch >= 0x80;
}

/* A CSS identifier (an id, a class, an unquoted value) into buf, its
 * backslash escapes of one punctuation character undone.  Its length, or
 * -1. */
static long ident(css *c, lb_buf *buf)
{
	lb_buf_reset(buf);
	while (*c->p) {
		unsigned char ch = (unsigned char)*c->p;

		if (ch == '\\') {
			unsigned char e = (unsigned char)c->p[1];

			if (!e || isxdigit(e) || e == '\n')
				return bad(c, "hexadecimal escapes are not supported");
			c->oom |= lb_buf_addc(buf, e) < 0;
			c->p += 2;
		} else if (ident_char(ch)) {
			c->oom |= lb_buf_addc(buf, ch) < 0;
			c->p++;
		} else {
			break;
		}
	}
	return buf->len ? (long)buf->len : bad(c, "expected a name");
}

/* An element or attribute name: letters, digits, '-', '_', lowercased;
 * it must start with a letter or '_' to be an XPath name too. */
static int xml_name(css *c, char *name, size_t room)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*c->p) && *c->p != '_')
		return bad(c, "expected a name");
	while (isalnum((unsigned char)*c->p) || *c->p == '-' || *c->p == '_') {
		if (n + 1 >= room)
			return bad(c, "name too long");
		name[n++] = (char)tolower((unsigned char)*c->p++);
	}
	name[n] = '\0';
	return 0;
}

/* " and " between the parts of a compound's condition. */
static void and(css *c, int *first)
{
	if (!*first)
		put(c, " and ");
	*first = 0;
}

static int attribute(css *c, lb_buf *val)
{
	char name[128], op = '=';
	const char *v;
	size_t n;

	c->p++;   /* '[' */
	skip_ws(c);
	if (xml_name(c, name, sizeof name) < 0)
		return LB_EINVAL;
	skip_ws(c);
	if (*c->p == ']') {
		c->p++;
		put(c, "@"), put(c, name);
		return 0;
	}
	if (strchr("~|^$*", *c->p) && *c->p && c->p[1] == '=')
		op = *c->p++;
	if (*c->p != '=')
		return bad(c, "expected '=', '~=', '|=', '^=', '$=', '*=' or ']'");
	c->p++;
	skip_ws(c);
	if (*c->p == '"' || *c->p == '\'') {
		const char *e = strchr(c->p + 1, *c->p);

		if (!e)
			return bad(c, "unterminated string");
		lb_buf_reset(val);
		c->oom |= lb_buf_add(val, c->p + 1, (size_t)(e - c->p - 1)) < 0;
		c->p = e + 1;
	} else if (ident(c, val) < 0) {
		return LB_EINVAL;
	}
	skip_ws(c);
	if (*c->p != ']')
		return bad(c, "expected ']'");
	c->p++;
	v = val->data;
	n = val->len;
	switch (op) {
	case '=':
		put(c, "@"), put(c, name), put(c, "="), put_literal(c, v, n);
		break;
	case '~':   /* one of its space-separated words; never an empty one */
		if (!n || memchr(v, ' ', n))
			return put(c, "false()"), 0;
		put(c, "contains(concat(' ',normalize-space(@"), put(c, name);
		put(c, "),' '),concat(' ',"), put_literal(c, v, n), put(c, ",' '))");
		break;
	case '|':
		put(c, "(@"), put(c, name), put(c, "="), put_literal(c, v, n);
		put(c, " or starts-with(@"), put(c, name), put(c, ",concat("), put_literal(c, v, n);
		put(c, ",'-')))");
		break;
	case '^':
		if (!n)
			return put(c, "false()"), 0;
		put(c, "starts-with(@"), put(c, name), put(c, ","), put_literal(c, v, n), put(c, ")");
		break;
	case '$':
		if (!n)
			return put(c, "false()"), 0;
		put(c, "substring(@"), put(c, name), put(c, ",string-length(@"), put(c, name);
		lb_buf_addf(c->out, ")-%zu)=", n - 1) < 0 ? (void)(c->oom = 1) : (void)0;
		put_literal(c, v, n);
		break;
	case '*':
		if (!n)
			return put(c, "false()"), 0;
		put(c, "contains(@"), put(c, name), put(c, ","), put_literal(c, v, n), put(c, ")");
		break;
	}
	return 0;
}

/* A bounded integer of :nth-child(); *ok 0 when there is none. */
static long nth_int(css *c, int *ok)
{
	long v = 0;

	*ok = 0;
	while (isdigit((unsigned char)*c->p)) {
		v = v * 10 + (*c->p++ - '0');
		*ok = 1;
		if (v > CSS_MAX_NTH)
			return bad(c, "number too big");
	}
	return v;
}

/* :nth-child(an+b): the position p (1-based among element siblings) is
 * a*n+b for some n >= 0 (Selectors 3 §6.6.5.2). */
static int nth_xpath(css *c, long a, long b);

static int nth_child(css *c)
{
	long a = 0, b = 0;
	int ok, sign = 1;

	skip_ws(c);
	if (strncasecmp(c->p, "odd", 3) == 0 && !ident_char((unsigned char)c->p[3])) {
		a = 2, b = 1, c->p += 3;
	} else if (strncasecmp(c->p, "even", 4) == 0 && !ident_char((unsigned char)c->p[4])) {
		a = 2, b = 0, c->p += 4;
	} else {
		if (*c->p == '-' || *c->p == '+')
			sign = *c->p++ == '-' ? -1 : 1;
		long v = nth_int(c, &ok);

		if (v < 0)
			return LB_EINVAL;
		if (*c->p == 'n' || *c->p == 'N') {
			c->p++;
			a = sign * (ok ? v : 1);
			skip_ws(c);
			if (*c->p == '+' || *c->p == '-') {
				int s = *c->p++ == '-' ? -1 : 1;

				skip_ws(c);
				if ((b = nth_int(c, &ok)) < 0)
					return LB_EINVAL;
				if (!ok)
					return bad(c, "expected a number after the sign");
				b *= s;
			}
		} else if (ok) {
			b = sign * v;
		} else {
			return bad(c, "expected an+b, odd or even");
		}
	}
	skip_ws(c);
	if (*c->p != ')')
		return bad(c, "expected ')'");
	c->p++;
	return nth_xpath(c, a, b);
}

/* The position p = count(preceding-sibling::*) + 1 is a*n + b for some
 * n >= 0; "at least k elements before" is preceding-sibling::*[k], a
 * step libxml2 stops at the k-th. */
static int nth_xpath(css *c, long a, long b)
{
	const char *cnt = "count(preceding-sibling::*)";
	int rc = 0;

	if (a == 0 || (a < 0 && b < 1)) {   /* p = b, or nothing */
		if (b < 1)
			return put(c, "false()"), 0;
		if (b > 1)
			rc = lb_buf_addf(c->out, "preceding-sibling::*[%ld] and ", b - 1);
		return rc < 0 || lb_buf_addf(c->out, "not(preceding-sibling::*[%ld])", b) < 0 ? (c->oom = 1, 0) : 0;
	}
	if (a > 0) {   /* p >= b and (p - b) mod a = 0 */
		if (b > 1)
			rc = lb_buf_addf(c->out, "preceding-sibling::*[%ld] and ", b - 1);
		/* p - b = count + 1 - b, never negative here */
		if (rc >= 0 && a > 1)
			rc = lb_buf_addf(c->out, "(%s%c%ld) mod %ld=0", cnt, 1 - b < 0 ? '-' : '+',
					 1 - b < 0 ? b - 1 : 1 - b, a);
		else if (rc >= 0)
			rc = lb_buf_addf(c->out, "true()");
		return rc < 0 ? (c->oom = 1, 0) : 0;
	}
	/* a < 0: p <= b and (b - p) mod -a = 0 */
	rc = lb_buf_addf(c->out, "not(preceding-sibling::*[%ld])", b);
	if (rc >= 0 && a < -1)
		rc = lb_buf_addf(c->out, " and (%ld-%s) mod %ld=0", b - 1, cnt, -a);
	return rc < 0 ? (c->oom = 1, 0) : 0;
}

static int compound(css *c, int in_not, lb_buf *val);

static int pseudo(css *c, int in_not, lb_buf *val)
{
	static const struct { const char *name; const char *xpath; } simple[] = {
		{ "first-child", "not(preceding-sibling::*[1])" },
		{ "last-child", "not(following-sibling::*[1])" },
		{ "only-child", "not(preceding-sibling::*[1]) and not(following-sibling::*[1])" },
	};
	char name[32];

	c->p++;   /* ':' */
	if (xml_name(c, name, sizeof name) < 0)
		return LB_EINVAL;
	for (size_t i = 0; i < sizeof simple / sizeof *simple; i++)
		if (strcmp(name, simple[i].name) == 0)
			return put(c, "("), put(c, simple[i].xpath), put(c, ")"), 0;
	if (*c->p != '(')
		return bad(c, "unknown pseudo-class (first-child, last-child, only-child, nth-child(), not())");
	c->p++;
	if (strcmp(name, "nth-child") == 0)
		return nth_child(c);
	if (strcmp(name, "not") != 0)
		return bad(c, "unknown pseudo-class (first-child, last-child, only-child, nth-child(), not())");
	if (in_not)
		return bad(c, ":not() inside :not()");
	skip_ws(c);
	put(c, "not(");
	if (compound(c, 1, val) < 0)
		return LB_EINVAL;
	skip_ws(c);
	if (*c->p != ')')
		return bad(c, "expected ')' (:not() takes one compound selector)");
	c->p++;
	put(c, ")");
	return 0;
}

/* A compound selector ("li.item:nth-child(2)") as a condition on the
 * context element: "true()" when it is only "*". */
static int compound(css *c, int in_not, lb_buf *val)
{
	char name[128];
	int first = 1;

	if (++c->compounds > CSS_MAX_COMPOUNDS)
		return bad(c, "too many compound selectors");
	if (*c->p == '*') {
		c->p++;
	} else if (isalpha((unsigned char)*c->p) || *c->p == '_') {
		if (xml_name(c, name, sizeof name) < 0)
			return LB_EINVAL;
		and(c, &first);
		put(c, "self::"), put(c, name);
	} else if (!strchr("#.[:", *c->p) || !*c->p) {
		return bad(c, "expected a selector");
	}
	for (;;) {
		long n;

		if (*c->p == '#' || *c->p == '.') {
			int id = *c->p++ == '#';

			if ((n = ident(c, val)) < 0)
				return LB_EINVAL;
			and(c, &first);
			if (id) {
				put(c, "@id="), put_literal(c, val->data, val->len);
			} else {
				put(c, "contains(concat(' ',normalize-space(@class),' '),concat(' ',");
				put_literal(c, val->data, val->len);
				put(c, ",' '))");
			}
		} else if (*c->p == '[') {
			and(c, &first);
			if (attribute(c, val) < 0)
				return LB_EINVAL;
		} else if (*c->p == ':') {
			and(c, &first);
			if (pseudo(c, in_not, val) < 0)
				return LB_EINVAL;
		} else {
			break;
		}
	}
	if (first)
		put(c, "true()");
	return 0;
}

/* A complex selector: compounds joined by combinators, each compound's
 * condition in its own buffer, then written right to left (see the top
 * of the file). */
static int complex_sel(css *c, lb_buf *val)
{
	lb_buf part[CSS_MAX_COMPOUNDS], *out = c->out;
	char comb[CSS_MAX_COMPOUNDS];
	size_t n = 0;
	int rc = 0;

	for (;;) {
		const char *before;

		if (n == CSS_MAX_COMPOUNDS) {
			rc = bad(c, "too many compound selectors");
			break;
		}
		lb_buf_init(&part[n]);
		c->out = &part[n++];
		if ((rc = compound(c, 0, val)) < 0)
			break;
		before = c->p;
		skip_ws(c);
		if (!*c->p || *c->p == ',')
			break;
		if (*c->p == '>' || *c->p == '+' || *c->p == '~') {
			comb[n - 1] = *c->p++;
			skip_ws(c);
		} else if (c->p > before) {
			comb[n - 1] = ' ';
		} else {
			rc = bad(c, "unexpected character");
			break;
		}
	}
	c->out = out;
	if (rc == 0) {
		put(c, "//*[");
		for (size_t i = n; i-- > 0;) {
			putn(c, part[i].data, part[i].len);
			if (i)
				put(c, comb[i - 1] == '>' ? " and parent::*["
				       : comb[i - 1] == '+' ? " and preceding-sibling::*[1]/self::*["
				       : comb[i - 1] == '~' ? " and preceding-sibling::*[" : " and ancestor::*[");
		}
		for (size_t i = 0; i < n; i++)
			put(c, "]");
	}
	for (size_t i = 0; i < n; i++)
		lb_buf_release(&part[i]);
	return rc;
}

int ant_page_css_xpath(const char *sel, const char *what, lb_buf *out, lb_error *err)
{
	lb_buf val = LB_BUF_INIT;
	css c = { sel, sel, out, 0, NULL, NULL, 0 };

	lb_buf_reset(out);
	if (strlen(sel) > ANT_PAGE_MAX_SELECTOR)
		return lb_err(err, LB_EINVAL, "%s pattern 'css:%.60s...' is too long (over %d bytes)", what,
			      sel, ANT_PAGE_MAX_SELECTOR);
	skip_ws(&c);
	for (;;) {
		if (complex_sel(&c, &val) < 0)
			break;
		skip_ws(&c);
		if (!*c.p)
			break;
		c.p++;   /* ',' */
		skip_ws(&c);
		put(&c, " | ");
	}
	lb_buf_release(&val);
	if (c.oom)
		return lb_err(err, LB_ENOMEM, "%s pattern 'css:%.200s': out of memory", what, sel);
	if (c.fail)
		return lb_err(err, LB_EINVAL, "bad %s pattern 'css:%.200s': %s at '%.40s'", what, sel, c.fail,
			      *c.at ? c.at : "(end)");
	return 0;
}
