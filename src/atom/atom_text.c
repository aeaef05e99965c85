/*
 * atom_text.c: the text of every Atom document: the project's one XML
 * escaper (atom_xml_escape()), IRIs (atom_iri()), RFC 3339 times
 * (atom_time()) and the one resolver of relative references
 * (atom_resolve()); atom.c's writer puts all data through them.
 */
#include "atom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/uri.h>

#include "lb_date.h"
#include "lb_url.h"
#include "lb_utf8.h"

/* ---- XML escaping (XML 1.0 §2.2 Char, §2.4, §3.3.3) ----------------------- */

/* What utf8_next() says of a byte that starts no character. */
#define NOT_A_CHAR (-1L)

/* The character at s[0..end): its code point and *n its length, or
 * NOT_A_CHAR and *n 1 for a byte that does not start one (lb_utf8_len()). */
static long utf8_next(const unsigned char *s, const unsigned char *end, size_t *n)
{
	uint32_t c;

	*n = lb_utf8_decode((const char *)s, (size_t)(end - s), &c);
	if (!*n) {
		*n = 1;
		return NOT_A_CHAR;
	}
	return (long)c;
}

int atom_xml_escape(lb_buf *out, const char *str, int mode)
{
	const unsigned char *s = (const unsigned char *)(str ? str : ""), *end = s + strlen((const char *)s);
	int rc = 0;

	while (*s && rc == 0) {
		size_t n;
		long c;
		const unsigned char *run = s;

		/* scale: characters kept as they are, copied a run at a
		 * time, not one lb_buf_add() each; the same bytes as the switch. */
		while (*run) {
			if (*run < 0x80) {
				if (*run < 0x20 || *run == '&' || *run == '<' || *run == '>' ||
				    *run == '"' || *run == '\'')
					break;
				run++;
				continue;
			}
			c = utf8_next(run, end, &n);
			if (c < 0 || c == 0xFFFE || c == 0xFFFF)
				break;
			run += n;
		}
		if (run > s) {
			rc = lb_buf_add(out, s, (size_t)(run - s));
			s = run;
			continue;
		}
		c = utf8_next(s, end, &n);

		switch (c) {
		case '&': rc = lb_buf_adds(out, "&amp;"); break;
		case '<': rc = lb_buf_adds(out, "&lt;"); break;
		case '>': rc = lb_buf_adds(out, "&gt;"); break;
		case '"': rc = mode == ATOM_XML_MIN ? lb_buf_addc(out, '"') : lb_buf_adds(out, "&quot;"); break;
		case '\'': rc = mode == ATOM_XML_MIN ? lb_buf_addc(out, '\'') : lb_buf_adds(out, "&apos;"); break;
		case '\t': case '\n': case '\r':
			rc = mode == ATOM_XML_ATTR ? lb_buf_addf(out, "&#%ld;", c) : lb_buf_addc(out, (int)c);
			break;
		case -1:
			rc = lb_buf_adds(out, LB_UTF8_FFFD);
			break;
		case 0xFFFE: case 0xFFFF:
			break;                                  /* not XML Chars: removed */
		default:
			if (c >= 0x20)
				rc = lb_buf_add(out, s, n);
			break;                                  /* other C0: removed */
		}
		s += n;
	}
	return rc;
}

/* ---- IRIs (RFC 3987 §2.2) ------------------------------------------------ */

/* ucschar, and iprivate (allowed only in the query) */
static int is_ucschar(long c)
{
	if ((c >= 0xA0 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF))
		return 1;
	/* planes 1-14: all but the last two code points, plane 14 from E1000 */
	return c >= 0x10000 && c < 0xF0000 && (c & 0xFFFF) <= 0xFFFD && !(c >= 0xE0000 && c < 0xE1000);
}

static int is_iprivate(long c)
{
	return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0x10FFFD && (c & 0xFFFF) <= 0xFFFD);
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ASCII letters, digits and "-._~!$&'()*+,;=:@/": kept in both modes of
 * atom_iri() wherever they are ('%', '?', '#', '[' and ']' are not here:
 * they depend on what follows or came before). */
static const unsigned char iri_plain[256] = {
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1,
	['-'] = 1, ['.'] = 1, ['_'] = 1, ['~'] = 1, ['!'] = 1, ['$'] = 1, ['&'] = 1,
	['\''] = 1, ['('] = 1, [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, [';'] = 1,
	['='] = 1, [':'] = 1, ['@'] = 1, ['/'] = 1,
};

int atom_iri(lb_buf *out, const char *str, int mode)
{
	/* RFC 4151's specific part: pchar / "/" / "?"; an IRI reference may
	 * also hold "#" (once) and "[" "]" (the authority's IP literal) */
	static const char tag_ok[] = "-._~!$&'()*+,;=:@/?";
	static const char ref_ok[] = "-._~!$&'()*+,;=:@/?#[]";
	const unsigned char *s = (const unsigned char *)(str ? str : ""), *auth = NULL, *auth_end = NULL;
	const unsigned char *end = s + strlen((const char *)s);
	int rc = 0, query = 0, frag = 0;

	if (mode == ATOM_IRI_REF && (auth = (const unsigned char *)strstr((const char *)s, "://"))) {
		auth += 3;
		auth_end = auth + strcspn((const char *)auth, "/?#");
	}

	while (*s && rc == 0) {
		size_t n = 1, i;
		long c = *s;
		int keep;

		if (iri_plain[*s]) {
			/* perf: a run of characters every mode keeps and
			 * no state depends on, copied at once; the same bytes as the
			 * loop below one at a time */
			const unsigned char *run = s + 1;

			while (iri_plain[*run])
				run++;
			rc = lb_buf_add(out, s, (size_t)(run - s));
			s = run;
			continue;
		}
		if (c < 0x80) {
			keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			       (c && strchr(mode == ATOM_IRI_REF ? ref_ok : tag_ok, (int)c));
			/* a "%" that starts an escape stays in a reference, is data in a tag */
			if (c == '%' && mode == ATOM_IRI_REF && is_hex(s[1]) && is_hex(s[2]))
				keep = 1;
			if (c == '#' && frag)
				keep = 0;
			if (c == '[' || c == ']')   /* only in an IP literal */
				keep = keep && auth && s >= auth && s < auth_end;
		} else {
			c = utf8_next(s, end, &n);
			keep = c >= 0 && (is_ucschar(c) || (query && !frag && is_iprivate(c)));
		}
		if (keep)
			rc = lb_buf_add(out, s, n);
		for (i = 0; !keep && i < n && rc == 0; i++) {   /* the UTF-8 bytes (RFC 3987 §3.1) */
			char pct[3] = { '%', "0123456789ABCDEF"[s[i] >> 4], "0123456789ABCDEF"[s[i] & 15] };
			rc = lb_buf_add(out, pct, 3);
		}
		query |= c == '?';
		frag |= c == '#' && keep;
		s += n;
	}
	return rc;
}

void atom_time(char *buf, size_t len, int64_t t)
{
	char b[21];
	lb_tm tm;
	size_t k = 20;

	if (t < -62167219200LL)
		t = -62167219200LL;   /* 0000-01-01T00:00:00Z */
	if (t > 253402300799LL)
		t = 253402300799LL;   /* 9999-12-31T23:59:59Z */
	lb_date_split(t, &tm);
	lb_date_iso(b, &tm);
	memcpy(b + 19, "Z", 2);   /* RFC 3339 §5.6: UTC */
	if (len) {
		k = k < len - 1 ? k : len - 1;
		memcpy(buf, b, k);
		buf[k] = '\0';
	}
}

/* "http://host..." or "https://host...", scheme in any case, host
 * nonempty: a target worth keeping.  Looser than lb_url_is_http() on
 * purpose: an IRI's raw UTF-8 or a space is percent-encoded on output
 * (atom_iri()), not a reason to drop the link. */
static int is_http(const char *u)
{
	size_t n = lb_url_http_prefix(u);

	return n && u[n] && !strchr("/?#", u[n]);
}

static int is_file(const char *u)
{
	return lb_url_scheme_len(u) == 4 && strncasecmp(u, "file", 4) == 0;
}

int atom_resolve(lb_buf *out, const char *base, const char *ref, unsigned flags)
{
	xmlChar *r;
	int rc;

	lb_buf_reset(out);
	/* RFC 3986 §5.2.2: a reference with a scheme is its own target; taken
	 * as written, even where libxml2's stricter parser would refuse it */
	if (is_http(ref))
		return lb_buf_adds(out, ref);
	if (!*ref)
		return LB_EINVAL;
	/* NULL for a reference libxml2 cannot parse (or, rarely, out of
	 * memory: it does not say which) */
	r = xmlBuildURI((const xmlChar *)ref, (const xmlChar *)base);
	if (!r)
		return LB_EINVAL;
	rc = is_http((const char *)r) ||
	     ((flags & ATOM_RESOLVE_FILE) && base && is_file(base) && is_file((const char *)r))
		? lb_buf_adds(out, (const char *)r) : LB_EINVAL;
	xmlFree(r);
	return rc;
}
