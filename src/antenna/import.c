/*
 * import.c: format detection, charset of configuration files, and the
 * common helpers of the importers (see import.h).  The samidare parser is
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
	[IMP_FMT_SAMIDARE] = "samidare",
	[IMP_FMT_TAMA] = "tama",
	[IMP_FMT_OPML] = "opml",
	[IMP_FMT_LIRS] = "lirs",
};

const char *ant_imp_format_name(ant_imp_format f)
{
	return f > IMP_FMT_UNKNOWN && f <= IMP_FMT_LIRS ? names[f] : NULL;
}

ant_imp_format ant_imp_format_from_name(const char *s)
{
	for (int f = IMP_FMT_SAMIDARE; f <= IMP_FMT_LIRS; f++)
		if (strcmp(s, names[f]) == 0)
			return (ant_imp_format)f;
	return IMP_FMT_UNKNOWN;
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
 * The first bytes decide: gzip is a LIRS file; "<" is XML (OPML); tama's
 * first line "Version:" (its Sites#read looks at nothing else); a line
 * "LIRS," is LIRS; YAML's "-" or "---" is samidare; four commas on the
 * first line that is not a comment is tama's older CSV format.
 */
ant_imp_format ant_imp_detect(const char *buf, size_t len)
{
	size_t pos = 0;
	const char *b, *e;

	if (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b)
		return IMP_FMT_LIRS;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < len && isspace((unsigned char)buf[pos]))
		pos++;
	if (pos < len && buf[pos] == '<')
		return IMP_FMT_OPML;
	pos = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	if (next_line(buf, len, &pos, &b, &e) && starts(b, e, "Version:"))
		return IMP_FMT_TAMA;
	if (ant_imp_is_tama_cfg(buf, len))
		return IMP_FMT_TAMA;    /* tama.cfg, which names the files */
	pos = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	while (next_line(buf, len, &pos, &b, &e)) {
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		if (b == e || *b == '#')
			continue;
		if (starts(b, e, "LIRS,"))
			return IMP_FMT_LIRS;
		if ((*b == '-' && (b + 1 == e || b[1] == ' ' || b[1] == '\t' || starts(b, e, "---"))) ||
		    starts(b, e, "URI:"))
			return IMP_FMT_SAMIDARE;
		if (csv_commas(b, e) >= 4)
			return IMP_FMT_TAMA;
		return IMP_FMT_UNKNOWN;
	}
	return IMP_FMT_UNKNOWN;
}

/* Strict conversion of the whole input; 0, or -1 when a byte does not decode. */
static int convert_strict(const char *buf, size_t len, const char *from, lb_buf *out)
{
	iconv_t cd = iconv_open("UTF-8", from);
	char *in = (char *)buf;
	size_t inleft = len;
	int rc = 0;

	lb_buf_reset(out);
	if (cd == (iconv_t)-1)
		return -1;
	while (inleft) {
		char *o;
		size_t oleft;

		if (lb_buf_grow(out, inleft * 3 + 16) < 0) {
			rc = -1;
			break;
		}
		o = out->data + out->len;
		oleft = out->cap - out->len - 1;
		if (iconv(cd, &in, &inleft, &o, &oleft) == (size_t)-1 && errno != E2BIG) {
			rc = -1;
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

/* page.c's rule for "#id" / ".class" patterns (page.h). */
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
		return -1;
	return 0;
}

/* A regular expression page.c would read as "#id" or ".class" is bracketed. */
int ant_imp_add_regex(lb_buf *ign, const char *s, size_t n)
{
	if (n > 1 && (s[0] == '#' || s[0] == '.') && ant_imp_name_ok(s + 1, n - 1)) {
		if (ant_imp_add_pattern(ign, s[0] == '#' ? "[#]" : "[.]", s + 1, n - 1) < 0)
			return -1;
		return 0;
	}
	return ant_imp_add_pattern(ign, "", s, n);
}
