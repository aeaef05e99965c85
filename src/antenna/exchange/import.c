/*
 * import.c: format detection and the charset of configuration files (see
 * ant_import.h).  The samidare parser is in import_samidare.c, tama's in
 * import_tama.c, OPML in import_opml.c; the helpers they share are
 * import_common.c's.
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
