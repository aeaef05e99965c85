/*
 * import.c: format detection, charset of configuration files, and the
 * common helpers of the importers (see ant_import.h).  The samidare parser is
 * in import_samidare.c, tama's in import_tama.c, OPML in import_opml.c.
 */
#include "ant_import.h"
#include "import_int.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lb_buf.h"
#include "lb_utf8.h"

static const char *const names[] = {
	[ANT_IMP_FMT_SAMIDARE] = "samidare",
	[ANT_IMP_FMT_TAMA] = "tama",
	[ANT_IMP_FMT_OPML] = "opml",
	[ANT_IMP_FMT_LIRS] = "lirs",
	[ANT_IMP_FMT_JSONL] = "jsonl",
};

const char *ant_import_format_name(ant_imp_format f)
{
	return f > ANT_IMP_FMT_UNKNOWN && f <= ANT_IMP_FMT_JSONL ? names[f] : NULL;
}

ant_imp_format ant_import_format_from_name(const char *s)
{
	for (int f = ANT_IMP_FMT_SAMIDARE; f <= ANT_IMP_FMT_JSONL; f++)
		if (strcmp(s, names[f]) == 0)
			return (ant_imp_format)f;
	return ANT_IMP_FMT_UNKNOWN;
}

/* The next line of buf from *pos: [*b, *e) without its line end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **b, const char **e)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	*b = buf + *pos;
	nl = memchr(*b, '\n', len - *pos);
	*e = nl ? nl : buf + len;
	*pos = nl ? (size_t)(nl - buf) + 1 : len;
	if (*e > *b && (*e)[-1] == '\r')
		(*e)--;
	return 1;
}

static int starts(const char *b, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - b) >= n && strncasecmp(b, s, n) == 0;
}

/* Commas that tama's csv_split() would split on (not after a backslash). */
static int csv_commas(const char *b, const char *e)
{
	int n = 0;

	for (; b < e; b++) {
		if (*b == '\\' && b + 1 < e)
			b++;
		else if (*b == ',')
			n++;
	}
	return n;
}

/*
 * The first bytes decide: gzip is a LIRS file; "<" is XML (OPML); "{" is
 * JSON Lines (antenna export --format jsonl); tama's first line "Version:" (its Sites#read looks at nothing else); a line
 * "LIRS," is LIRS; YAML's "-" or "---" is samidare; four commas on the
 * first line that is not a comment is tama's older CSV format.
 */
ant_imp_format ant_imp_detect(const char *buf, size_t len)
{
	size_t pos = 0;
	const char *b, *e;

	if (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b)
		return ANT_IMP_FMT_LIRS;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < len && isspace((unsigned char)buf[pos]))
		pos++;
	if (pos < len && buf[pos] == '<')
		return ANT_IMP_FMT_OPML;
	if (pos < len && buf[pos] == '{')
		return ANT_IMP_FMT_JSONL;
	pos = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	if (next_line(buf, len, &pos, &b, &e) && starts(b, e, "Version:"))
		return ANT_IMP_FMT_TAMA;
	if (ant_imp_is_tama_cfg(buf, len))
		return ANT_IMP_FMT_TAMA;    /* tama.cfg, which names the files */
	pos = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	while (next_line(buf, len, &pos, &b, &e)) {
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		if (b == e || *b == '#')
			continue;
		if (starts(b, e, "LIRS,"))
			return ANT_IMP_FMT_LIRS;
		if ((*b == '-' && (b + 1 == e || b[1] == ' ' || b[1] == '\t' || starts(b, e, "---"))) ||
		    starts(b, e, "URI:"))
			return ANT_IMP_FMT_SAMIDARE;
		if (csv_commas(b, e) >= 4)
			return ANT_IMP_FMT_TAMA;
		return ANT_IMP_FMT_UNKNOWN;
	}
	return ANT_IMP_FMT_UNKNOWN;
}

/* Strict conversion of the whole input; 0, LB_EPARSE when a byte does not decode, LB_EICONV, LB_ENOMEM. */
static int convert_strict(const char *buf, size_t len, const char *from, lb_buf *out)
{
	iconv_t cd = iconv_open("UTF-8", from);
	char *in = (char *)buf;
	size_t inleft = len;
	int rc = 0;

	lb_buf_reset(out);
	if (cd == (iconv_t)-1)
		return LB_EICONV;
	while (inleft) {
		char *o;
		size_t oleft;

		if (lb_buf_grow(out, inleft * 3 + 16) < 0) {
			rc = LB_ENOMEM;
			break;
		}
		o = out->data + out->len;
		oleft = out->cap - out->len - 1;
		if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1 && errno != E2BIG) {
			rc = LB_EPARSE;     /* not text in this charset */
			break;
		}
		out->len = (size_t)(o - out->data);
	}
	iconv_close(cd);
	if (out->cap)
		out->data[out->len] = '\0';
	return rc;
}

const char *ant_imp_to_utf8(const char *buf, size_t len, const char *hint, lb_buf *out)
{
	static char used[32];

	lb_buf_reset(out);
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		buf += 3, len -= 3;
	if (memchr(buf, '\0', len))
		return NULL;
	if (lb_utf8_valid(buf, len))
		return lb_buf_add(out, buf, len) < 0 ? NULL : "UTF-8";
	if (hint && *hint && strlen(hint) < sizeof used) {
		const char *from = hint;
		if (!strcasecmp(hint, "euc-jp") || !strcasecmp(hint, "eucjp") || !strcasecmp(hint, "x-euc-jp"))
			from = "EUC-JP-MS";
		else if (!strcasecmp(hint, "shift_jis") || !strcasecmp(hint, "sjis") ||
			 !strcasecmp(hint, "shift-jis") || !strcasecmp(hint, "windows-31j"))
			from = "CP932";
		if (convert_strict(buf, len, from, out) == 0) {
			snprintf(used, sizeof used, "%s", hint);
			return used;
		}
	}
	if (convert_strict(buf, len, "EUC-JP-MS", out) == 0)
		return "EUC-JP";
	if (convert_strict(buf, len, "CP932", out) == 0)
		return "SHIFT_JIS";
	lb_buf_reset(out);
	return NULL;
}

/* ---- helpers for the parsers (import_int.h) ------------------------------ */

void ant_imp_diagf(const ant_imp_opts *o, ant_imp_severity sev, unsigned long line, unsigned long col,
	       const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	ant_imp_diag d = { sev, line, col, msg };

	if (!o->on_diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	o->on_diag(o->ctx, &d);
}

/* page.c's rule for "#id" / ".class" patterns (ant_page.h). */
int ant_imp_name_ok(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || c == '-' || c == '_' || c >= 0x80))
			return 0;
	}
	return 1;
}

int ant_imp_add_pattern(lb_buf *ign, const char *prefix, const char *s, size_t n)
{
	if ((ign->len && lb_buf_addc(ign, '\n') < 0) || lb_buf_adds(ign, prefix) < 0 ||
	    lb_buf_add(ign, s, n) < 0)
		return LB_ENOMEM;
	return 0;
}

/* A regular expression page.c would read as "#id" or ".class" is bracketed. */
int ant_imp_add_regex(lb_buf *ign, const char *s, size_t n)
{
	if (n > 1 && (s[0] == '#' || s[0] == '.') && ant_imp_name_ok(s + 1, n - 1)) {
		if (ant_imp_add_pattern(ign, s[0] == '#' ? "[#]" : "[.]", s + 1, n - 1) < 0)
			return LB_ENOMEM;
		return 0;
	}
	return ant_imp_add_pattern(ign, "", s, n);
}

/* ---- Perl regular expressions as POSIX extended ones ------------------------ */

static int ere_special(int c)
{
	return c && strchr(".[]()*+?{}|^$\\", c) != NULL;
}

/* "{n}", "{n,}" or "{n,m}" at s: its length, else 0 (Perl reads '{' literally). */
static size_t interval_len(const char *s, const char *end)
{
	const char *p = s + 1;

	if (p >= end || !isdigit((unsigned char)*p))
		return 0;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p < end && *p == ',')
		for (p++; p < end && isdigit((unsigned char)*p); p++)
			;
	return p < end && *p == '}' ? (size_t)(p + 1 - s) : 0;
}

static int unmappable(char *why, size_t whylen, const char *fmt, const char *s, size_t n)
{
	snprintf(why, whylen, fmt, (int)n, s);
	return LB_EINVAL;
}

/* A bracket expression from s (at '['): its POSIX form appended to out;
 * *len gets its length in s.  0, LB_EINVAL (why), LB_ENOMEM. */
static int bracket(const char *s, const char *end, lb_buf *out, size_t *len, char *why, size_t whylen)
{
	const char *p = s + 1;
	lb_buf body = LB_BUF_INIT;
	int neg = 0, close = 0, dash = 0, caret = 0, rc = 0;

	if (p < end && *p == '^')
		neg = 1, p++;
	if (p < end && *p == ']')    /* a ']' first is literal in both */
		close = 1, p++;
	while (p < end && *p != ']' && rc == 0) {
		if (*p == '[' && p + 1 < end && p[1] == ':') {
			const char *q = p + 2;
			while (q + 1 < end && !(q[0] == ':' && q[1] == ']'))
				q++;
			if (q + 1 >= end) {
				rc = unmappable(why, whylen, "an unclosed [%.*s", p, 2);
				break;
			}
			rc = lb_buf_add(&body, p, (size_t)(q + 2 - p)) < 0 ? LB_ENOMEM : 0;
			p = q + 2;
		} else if (*p == '\\' && p + 1 < end) {
			char c = p[1];
			const char *cls = c == 'd' ? "0-9" : c == 's' ? "[:space:]" : c == 'w' ? "[:alnum:]_" :
					  c == 't' || c == 'n' || c == 'r' || c == 'f' || c == 'v' ? "[:space:]" : NULL;
			if (cls)
				rc = lb_buf_adds(&body, cls) < 0 ? LB_ENOMEM : 0;
			else if (c == ']')
				close = 1;
			else if (c == '-')
				dash = 1;
			else if (c == '^')
				caret = 1;
			else if (c == '\\' || (ispunct((unsigned char)c) && c != '['))
				rc = lb_buf_addc(&body, c) < 0 ? LB_ENOMEM : 0;
			else
				rc = unmappable(why, whylen, "%.*s in a bracket expression", p, 2);
			p += 2;
		} else if (*p == '[') {
			rc = unmappable(why, whylen, "a nested bracket %.*s", p, 1);
		} else {
			rc = lb_buf_addc(&body, *p++) < 0 ? LB_ENOMEM : 0;
		}
	}
	if (rc == 0 && p >= end)
		rc = unmappable(why, whylen, "an unclosed bracket %.*s", s, 1);
	if (rc == 0 && !body.len && !close && !dash && !caret)
		rc = unmappable(why, whylen, "an empty bracket %.*s", s, 2);
	if (rc == 0 && caret && !neg && !close && !dash && !body.len) {
		/* "[\^]": '^' first in brackets would negate */
		rc = lb_buf_adds(out, "\\^") < 0 ? LB_ENOMEM : 0;
	} else if (rc == 0 && (lb_buf_addc(out, '[') < 0 || (neg && lb_buf_addc(out, '^') < 0) ||
			(close && lb_buf_addc(out, ']') < 0) || lb_buf_add(out, body.data, body.len) < 0 ||
			(caret && lb_buf_addc(out, '^') < 0) || (dash && lb_buf_addc(out, '-') < 0) ||
			lb_buf_addc(out, ']') < 0))
		rc = LB_ENOMEM;
	lb_buf_release(&body);
	*len = (size_t)(p + 1 - s);
	return rc;
}

/* Just after the first c from s, or end. */
static const char *after(const char *s, const char *end, char c)
{
	const char *q = memchr(s, c, (size_t)(end - s));

	return q ? q + 1 : end;
}

int ant_imp_perl_to_ere(const char *s, size_t n, lb_buf *out, char *why, size_t whylen)
{
	const char *p = s, *end = s + n;
	int quant = 0;     /* the last thing written was a quantifier */

	lb_buf_reset(out);
	while (p < end) {
		int was_quant = quant;
		int rc = 0;

		quant = 0;
		if (was_quant && (*p == '?')) {          /* lazy: greedy is as good for a region */
			p++;
			continue;
		}
		if (was_quant && *p == '+')
			return unmappable(why, whylen, "a possessive quantifier %.*s", p - 1, 2);
		if (*p == '\\') {
			char c = p + 1 < end ? p[1] : '\0';
			const char *cls = c == 'd' ? "[0-9]" : c == 'D' ? "[^0-9]" : c == 's' ? "[[:space:]]" :
					  c == 'S' ? "[^[:space:]]" : c == 'w' ? "[[:alnum:]_]" : c == 'W' ? "[^[:alnum:]_]" :
					  c == 't' || c == 'n' || c == 'r' || c == 'f' || c == 'v' ? "[[:space:]]" : NULL;
			if (!c)
				return unmappable(why, whylen, "a trailing backslash%.*s", p, 0);
			if (cls)
				rc = lb_buf_adds(out, cls);
			else if (c >= '1' && c <= '9')
				return unmappable(why, whylen, "a back-reference %.*s", p, 2);
			else if (isalnum((unsigned char)c))
				return unmappable(why, whylen, "%.*s", p, 2);
			else if (ere_special(c))
				rc = lb_buf_add(out, p, 2);
			else
				rc = lb_buf_addc(out, c);     /* \/ \- \: \< ...: the character itself */
			p += 2;
		} else if (*p == '[') {
			size_t len;
			int r = bracket(p, end, out, &len, why, whylen);
			if (r < 0)
				return r;
			p += len;
		} else if (*p == '(' && p + 1 < end && p[1] == '?') {
			const char *q = p + 2;
			if (q < end && *q == ':')
				p += 3;
			else if (q + 1 < end && ((*q == 'P' && q[1] == '<') ||
						 (*q == '<' && q[1] != '=' && q[1] != '!')))
				p = after(q, end, '>');     /* a named group: a group */
			else if (q < end && *q == '\'')
				p = after(q + 1, end, '\'');
			else if (q < end && (*q == '=' || *q == '!' || (*q == '<' && q + 1 < end)))
				return unmappable(why, whylen, "a lookaround %.*s", p, *q == '<' ? 4 : 3);
			else if (q < end && *q == '>')
				return unmappable(why, whylen, "an atomic group %.*s", p, 3);
			else if (q < end && *q == '#')
				return unmappable(why, whylen, "a comment %.*s", p, 3);
			else
				return unmappable(why, whylen, "inline flags %.*s", p, q < end ? 3 : 2);
			rc = lb_buf_addc(out, '(');
		} else if (*p == '{') {
			size_t len = interval_len(p, end);
			if (!len && p + 2 < end && p[1] == ',' && isdigit((unsigned char)p[2]) &&
			    (len = interval_len(p + 1, end))) {
				/* Ruby's {,n} is {0,n}: ",n}" read as if the "," were the "{" */
				rc = lb_buf_adds(out, "{0") < 0 || lb_buf_add(out, p + 1, len) < 0 ? LB_ENOMEM : 0;
				p += 1 + len;
				quant = 1;
			} else if (len) {
				rc = lb_buf_add(out, p, len);
				p += len;
				quant = 1;
			} else {
				rc = lb_buf_adds(out, "\\{");
				p++;
			}
		} else if (*p == '}') {
			rc = lb_buf_adds(out, "\\}");
			p++;
		} else {
			quant = *p == '*' || *p == '+' || *p == '?';
			rc = lb_buf_addc(out, *p++);
		}
		if (rc < 0)
			return LB_ENOMEM;
	}
	return 0;
}
