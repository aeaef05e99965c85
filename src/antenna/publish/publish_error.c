/*
 * publish_error.c: a page's last error in the words of index.html's
 * language (priv/publish_error.h).
 *
 * update stores what went wrong in full ("cannot resolve host: Could not
 * resolve host: example.jp", "TLS handshake failed: OpenSSL/3.0.19:
 * error:0A00010B..."): the operator needs it, in 'antenna show'.  A visitor
 * needs to know only that the page could not be read, and roughly why, in
 * the page's language: the page's failure kind (ant_outcome.h) decides,
 * never the words, so that rewording a message changes no index.html.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "publish_error.h"

/* One row per kind that has a phrase, in each language ("%s" in
 * TOO_BIG's: the limit, "8 MiB").  Every failure of a fetch or a check
 * has one: the operator's words (an internal address, libcurl's English,
 * "init --allow-private allows it", a pattern's limits) never reach the
 * page.  Only an HTTP status shows last_error as it is, the status line
 * ("404 Not Found"), and a page of no kind (a database older than the
 * kinds). */
static const struct {
	ant_fail_kind kind;
	const char *ja, *en;
} phrase_tab[] = {
	{ ANT_FAIL_GONE, "ページがなくなりました", "the page is gone" },   /* ant_pagestate.h */
	{ ANT_FAIL_DNS, "サーバが見つかりません", "server not found" },
	{ ANT_FAIL_CONNECT, "接続できません", "cannot connect" },
	{ ANT_FAIL_TIMEOUT, "時間切れ", "timed out" },
	{ ANT_FAIL_TLS, "TLS エラー", "TLS error" },
	{ ANT_FAIL_TOO_BIG, "%s を超えました", "over %s" },
	{ ANT_FAIL_HEADER_TOO_BIG, "ヘッダが大きすぎます", "header too large" },
	{ ANT_FAIL_REDIRECTS, "転送が多すぎます", "too many redirects" },
	{ ANT_FAIL_PROTOCOL, "扱えない URL です", "URL scheme not allowed" },
	{ ANT_FAIL_OTHER, "読み込みに失敗しました", "transfer failed" },
	{ ANT_FAIL_LOCAL, "読み込みに失敗しました", "transfer failed" },
	{ ANT_FAIL_INTERNAL, "接続できません", "cannot connect" },   /* an internal address */
	{ ANT_FAIL_CHECK, "ページを確かめられませんでした", "the page could not be checked" },
	{ ANT_FAIL_DEFERRED, "サーバの求めにより待機中です", "waiting, as the server asked" },
};

/* "over 8388608 bytes" in the text: the limit as "8 MiB" (KiB below a
 * MiB, bytes below a KiB; one decimal when not whole), into m. */
static void limit_size(char *m, size_t n, const char *error)
{
	const char *o = strstr(error, "over ");
	unsigned long long v = o ? strtoull(o + 5, NULL, 10) : 0;
	unsigned long long u = v >= 1024 * 1024 ? 1024 * 1024 : v >= 1024 ? 1024 : 1;
	const char *unit = u == 1 ? "bytes" : u == 1024 ? "KiB" : "MiB";

	if (v % u == 0)
		snprintf(m, n, "%llu %s", v / u, unit);
	else
		snprintf(m, n, "%.1f %s", (double)v / (double)u, unit);
}

const char *ant_pub_error_phrase(char *b, size_t n, ant_fail_kind kind, const char *error,
				 const char *lang)
{
	int ja = !lang || strcmp(lang, "en") != 0;
	char size[48];

	for (size_t i = 0; i < sizeof phrase_tab / sizeof *phrase_tab; i++) {
		if (phrase_tab[i].kind != kind)
			continue;
		if (kind == ANT_FAIL_TOO_BIG && !strstr(error, "over "))   /* no limit in the words */
			snprintf(b, n, "%s", ja ? "大きすぎます" : "too large");
		else {
			limit_size(size, sizeof size, error);
			/* the format is the table's own, one "%s" at most */
			snprintf(b, n, ja ? phrase_tab[i].ja : phrase_tab[i].en, size);
		}
		return b;
	}
	return error;   /* "404 Not Found", "HTTP status 599" */
}
