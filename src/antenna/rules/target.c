/*
 * target.c: the addresses an operator gives the antenna (ant_target.h):
 * the contact that goes into our User-Agent, the notification targets,
 * the SMTP server's URL.  Checked from their bytes alone, before they
 * are stored or used, so that none can carry a header line or a space
 * into a request or a mail.
 */
#include "ant_target.h"

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
