/*
 * ant_target.h: the addresses an operator gives the antenna, checked
 * from their bytes alone (rules/target.c): the contact (init --contact),
 * a notification target (antenna notify --add), the SMTP server's URL
 * (init --smtp).  The settings table and the notifications both check
 * with these, so an address one accepts the other takes.
 */
#ifndef ANT_TARGET_H
#define ANT_TARGET_H

#include <stddef.h>

#include "lb_error.h"

#define ANT_TARGET_MAX 2048          /* bytes of one notification target */
#define ANT_TARGET_MAX_COUNT 32      /* notification targets per antenna */
#define ANT_TARGET_MAX_CONTACT 200   /* bytes of the contact (it goes into every request) */

enum { ANT_TARGET_MAIL = 1, ANT_TARGET_WEBHOOK = 2 };

/* ANT_TARGET_MAIL or ANT_TARGET_WEBHOOK for a well-formed notification
 * target, else LB_EINVAL with the reason in err: a mailto: with one plain
 * address (no display name, no second address, no header fields, no
 * CR/LF or space), or an absolute http(s) URL without spaces or controls. */
int ant_target_kind(const char *target, lb_error *err);
/* Nonzero when url is an smtp:// or smtps:// URL with a host. */
int ant_target_smtp_url_ok(const char *url);
/*
 * The operator's contact: an http or https URL or a mailto: address,
 * printable ASCII without blanks (it goes into a header as written: no
 * CR, LF or other control character), at most ANT_TARGET_MAX_CONTACT
 * bytes.  0, or LB_EINVAL with err saying why.
 */
int ant_target_contact_check(const char *contact, lb_error *err);

/*
 * What a URL given to 'antenna add' as a page really is: a LIRS file, an
 * Atom or RSS feed, a sitemap, which the antenna reads as a source
 * (add --lirs, --atom, --sitemap) or as a page's feed (add --feed).
 * ant_target_url_format(): from the last segment of the URL's path alone
 * (lirs.gz, *.lirs, *.lirs.gz; sitemap.xml, sitemap*.xml, sitemap*.xml.gz;
 * *.atom), 0 when the name says nothing.  ant_target_body_format(): from
 * a fetched body's first element (after a BOM, blanks, the XML
 * declaration, comments and a DOCTYPE) or its "LIRS," first record; a
 * gzip body is url's format by its name; 0 for anything else (HTML).
 */
enum { ANT_TARGET_LIRS = 1, ANT_TARGET_ATOM, ANT_TARGET_RSS, ANT_TARGET_SITEMAP };
int ant_target_url_format(const char *url);
int ant_target_body_format(const char *body, size_t len, const char *url);
/* "a LIRS file", "an Atom feed", "an RSS feed", "a sitemap". */
const char *ant_target_format_name(int format);
/* The 'antenna add' that reads url as what it is, into buf:
 * "antenna add --lirs URL"; for an RSS feed "antenna add --feed URL PAGE". */
const char *ant_target_format_add(int format, const char *url, char *buf, size_t size);

#endif
