/*
 * target.c: the addresses an operator gives the antenna (ant_target.h):
 * the contact that goes into our User-Agent, the notification targets,
 * the SMTP server's URL.  Checked from their bytes alone, before they
 * are stored or used, so that none can carry a header line or a space
 * into a request or a mail.
 */
#include "ant_target.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lb_url.h"

/* An address as SMTP takes it (RFC 5321 §4.1.2, the plain forms): one
 * '@' with text either side, no space, control, quote, angle bracket,
 * comma, semicolon or backslash, so that it can stand in a header and in
 * "RCPT TO:<...>" as it is. */
static int plain_address(const char *a)
{
	const char *at = strchr(a, '@');

	if (!at || at == a || !at[1] || strchr(at + 1, '@') || strlen(a) > 254)
		return 0;
	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		if (*p <= ' ' || *p == 0x7f || strchr("<>()[]\\,;:\"?&=%", *p))
			return 0;
	return 1;
}

int ant_target_kind(const char *t, lb_error *err)
{
	if (strlen(t) > ANT_TARGET_MAX)
		return lb_err(err, LB_EINVAL, "notification target longer than %d bytes",
			      ANT_TARGET_MAX);
	if (!strncmp(t, "mailto:", 7)) {
		if (!plain_address(t + 7))
			return lb_err(err, LB_EINVAL, "'%s': not one plain address (mailto:NAME@HOST)", t);
		return ANT_TARGET_MAIL;
	}
	if (strncmp(t, "http://", 7) && strncmp(t, "https://", 8))
		return lb_err(err, LB_EINVAL, "'%s': not mailto:ADDRESS or an http(s):// URL", t);
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return lb_err(err, LB_EINVAL, "'%s': a space or control character in the URL", t);
	if (!t[strncmp(t, "https", 5) ? 7 : 8] || t[strncmp(t, "https", 5) ? 7 : 8] == '/')
		return lb_err(err, LB_EINVAL, "'%s': no host in the URL", t);
	return ANT_TARGET_WEBHOOK;
}

int ant_target_smtp_url_ok(const char *u)
{
	size_t k = !strncmp(u, "smtp://", 7) ? 7 : !strncmp(u, "smtps://", 8) ? 8 : 0;

	if (!k || !u[k] || u[k] == '/')
		return 0;
	for (const unsigned char *p = (const unsigned char *)u; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

int ant_target_contact_check(const char *c, lb_error *err)
{
	size_t n = c ? strlen(c) : 0;

	if (!n)
		return lb_err(err, LB_EINVAL, "--contact: empty");
	if (n > ANT_TARGET_MAX_CONTACT)
		return lb_err(err, LB_EINVAL, "--contact: %zu bytes, over %d", n, ANT_TARGET_MAX_CONTACT);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)c[i] <= 0x20 || (unsigned char)c[i] >= 0x7f)
			return lb_err_at(err, LB_EINVAL, 1, i + 1,
					 "--contact: byte %zu is a %s: only printable ASCII goes into "
					 "the User-Agent (percent-encode the rest)", i + 1,
					 (unsigned char)c[i] >= 0x7f ? "non-ASCII byte" :
					 c[i] == ' ' ? "space" : "control character");
	if (strncasecmp(c, "mailto:", 7) == 0) {
		const char *at = strchr(c + 7, '@');

		if (!at || at == c + 7 || !at[1])
			return lb_err(err, LB_EINVAL, "--contact: '%s' is not a mailto:USER@HOST address", c);
		return 0;
	}
	if (!lb_url_is_http(c))
		return lb_err(err, LB_EINVAL, "--contact: '%s' is not an http or https URL "
			      "nor a mailto: address", c);
	return 0;
}

/* ---- what a page URL really is ------------------------------------------------- */

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

int ant_target_url_format(const char *url)
{
	const char *end = url + strcspn(url, "?#"), *name = end;
	size_t n;

	while (name > url && name[-1] != '/')
		name--;
	n = (size_t)(end - name);
	if ((n == 7 && strncasecmp(name, "lirs.gz", 7) == 0) || ends_with(name, n, ".lirs") ||
	    ends_with(name, n, ".lirs.gz"))
		return ANT_TARGET_LIRS;
	if (n >= 11 && strncasecmp(name, "sitemap", 7) == 0 &&
	    (ends_with(name, n, ".xml") || ends_with(name, n, ".xml.gz")))
		return ANT_TARGET_SITEMAP;
	if (ends_with(name, n, ".atom"))
		return ANT_TARGET_ATOM;
	return 0;
}

/* Skips s past what precedes the first element: blanks, "<?...?>",
 * "<!--...-->" and "<!...>"; NULL when the body ends first. */
static const char *first_element(const char *s, const char *end)
{
	while (s < end) {
		const char *close;

		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			s++;
			continue;
		}
		if (*s != '<' || end - s < 2)
			return NULL;
		if (s[1] == '?')
			close = memmem(s, (size_t)(end - s), "?>", 2);
		else if (end - s >= 4 && memcmp(s, "<!--", 4) == 0)
			close = memmem(s, (size_t)(end - s), "-->", 3);
		else if (s[1] == '!')
			close = memchr(s, '>', (size_t)(end - s));
		else
			return s + 1;
		if (!close)
			return NULL;
		s = close + (s[1] == '!' && s[2] == '-' ? 3 : s[1] == '?' ? 2 : 1);
	}
	return NULL;
}

static int is_name(const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(end - s) > n && strncmp(s, name, n) == 0 &&
	       strchr(" \t\r\n>/", s[n]) != NULL;
}

int ant_target_body_format(const char *body, size_t len, const char *url)
{
	const char *s = body, *end;

	if (!body)
		return 0;
	if (len > 4096)
		len = 4096;
	end = body + len;
	if (len >= 2 && (unsigned char)s[0] == 0x1f && (unsigned char)s[1] == 0x8b)
		return url ? ant_target_url_format(url) : 0;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	if ((size_t)(end - s) >= 5 && memcmp(s, "LIRS,", 5) == 0)
		return ANT_TARGET_LIRS;
	if (!(s = first_element(s, end)))
		return 0;
	if (is_name(s, end, "feed"))
		return ANT_TARGET_ATOM;
	if (is_name(s, end, "rss") || is_name(s, end, "rdf:RDF"))
		return ANT_TARGET_RSS;
	if (is_name(s, end, "urlset") || is_name(s, end, "sitemapindex"))
		return ANT_TARGET_SITEMAP;
	return 0;
}

const char *ant_target_format_name(int format)
{
	switch (format) {
	case ANT_TARGET_LIRS: return "a LIRS file";
	case ANT_TARGET_ATOM: return "an Atom feed";
	case ANT_TARGET_RSS: return "an RSS feed";
	case ANT_TARGET_SITEMAP: return "a sitemap";
	default: return "a page";
	}
}

const char *ant_target_format_add(int format, const char *url, char *buf, size_t size)
{
	if (format == ANT_TARGET_RSS)
		snprintf(buf, size, "antenna add --feed %s PAGE (the page it is about)", url);
	else
		snprintf(buf, size, "antenna add %s %s", format == ANT_TARGET_LIRS ? "--lirs" :
			 format == ANT_TARGET_ATOM ? "--atom" : "--sitemap", url);
	return buf;
}
