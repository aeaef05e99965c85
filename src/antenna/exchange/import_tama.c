/*
 * import_tama.c: tama's sites.cfg and remote.cfg (wakaba/tama, lib/sites.rb
 * and lib/remote.rb), both versions tama reads:
 *
 *   "Version: 1.x" on the first line: blocks of "Key: value" lines
 *   separated by empty lines; lines starting with '#' are skipped (they do
 *   not end a block); the key is everything before the first ':',
 *   compared case-insensitively; the block "Version:/Charset:" has no URL
 *   and is skipped.  Sites: URL, Title, Author, Check-URL, Option (comma
 *   separated; NAME or NAME=VALUE; several Option lines add up), Regexp,
 *   Tz.  Remotes: URL, Title, Data-URL, Format (LIRS, DI, HINA), Symbol.
 *
 *   otherwise the older CSV lines (csv_split: ',' separates, '\' escapes
 *   the next character): sites "title,author,url,checkurl,OPT|OPT=V",
 *   remotes "title,url,dataurl,format,symbol".
 *
 * Which of the two files it is: the file name contains "remote", or a
 * block has Data-URL / Format / Symbol, or the CSV's 4th field is a
 * format name.
 */
#include "ant_import.h"
#include "import_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ant_page.h"
#include "atom.h"
#include "lb_url.h"
#include "lirs.h"

#define TAMA_FIELDS 16

typedef struct field {
	char key[24];          /* lowercased; "" for CSV */
	const char *val;
	size_t len;
	unsigned long line;
} field;

typedef struct tctx {
	const ant_imp_opts *o;
	int remote;
	int stop;
	lb_buf url, check, title, author, tmp, ign, only;
} tctx;

static int deliver(tctx *c, const ant_imp_entry *e)
{
	if (c->o->on_entry && c->o->on_entry(c->o->ctx, e))
		c->stop = 1;
	return c->stop ? LB_ESTOP : 0;
}

static int set(lb_buf *b, const char *s, size_t n)
{
	lb_buf_reset(b);
	return lb_buf_add(b, s, n);
}

/* A URL tama would fetch that the antenna cannot: listed, entry skipped. */
static int url_ok(tctx *c, const char *url, unsigned long line)
{
	if (lb_url_is_http(url))
		return 1;
	if (!*url)
		ant_imp_diagf(c->o, ANT_IMP_ERROR, line, 0, "URL is empty: tama stops at this entry too");
	else if (!strncasecmp(url, "ftp://", 6) || !strncasecmp(url, "file://", 7))
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "URL '%s': the antenna checks only http and https", url);
	else
		ant_imp_diagf(c->o, ANT_IMP_ERROR, line, 0, "URL '%s' is not an absolute http or https URL", url);
	return 0;
}

/* Check-URL / Data-URL: relative to URL (tama's URL::new(check, url)). */
static int resolve(tctx *c, lb_buf *out, const char *ref, size_t n, const char *base)
{
	if (set(&c->tmp, ref, n) < 0)
		return LB_ENOMEM;
	if (!n)
		return set(out, base, strlen(base));
	if (atom_resolve(out, base, c->tmp.data, 0) < 0) {
		set(out, c->tmp.data, c->tmp.len);
		return 1;
	}
	return 0;
}

/*
 * The part of a Regexp tama compares: its ( ) groups (lib/sites.rb
 * check_keyword: the groups of the first matching line, joined), so from
 * the first capturing group's '(' to the end of the last one.  Returns 0
 * (the whole expression) when it has no capturing group.
 */
static int regexp_span(const char *s, size_t n, size_t *from, size_t *to)
{
	size_t first = n, last = 0, i = 0;
	unsigned char capt[64];
	int depth = 0;

	while (i < n) {
		if (s[i] == '\\') {
			i += 2;
		} else if (s[i] == '[') {
			i++;
			if (i < n && s[i] == '^') i++;
			if (i < n && s[i] == ']') i++;
			while (i < n && s[i] != ']')
				i += s[i] == '\\' ? 2 : 1;
			i++;
		} else if (s[i] == '(') {
			/* (...), (?<name>...), (?P<name>...), (?'name'...) capture */
			int c = i + 1 >= n || s[i + 1] != '?' ||
				(i + 3 < n && (s[i + 2] == 'P' || s[i + 2] == '\'' ||
					       (s[i + 2] == '<' && s[i + 3] != '=' && s[i + 3] != '!')));
			if (depth < 64)
				capt[depth] = (unsigned char)c;
			if (c && first == n)
				first = i;
			depth++;
			i++;
		} else if (s[i] == ')') {
			if (depth > 0 && --depth < 64 && capt[depth])
				last = i + 1;
			i++;
		} else {
			i++;
		}
	}
	if (first == n || last <= first) {
		*from = 0;
		*to = n;
		return 0;
	}
	*from = first;
	*to = last;
	return 1;
}

/* Markup in a pattern: "<x", "</", "<!" (tama matched the HTML source). */
static int names_markup(const char *s)
{
	for (; (s = strchr(s, '<')); s++)
		if (isalpha((unsigned char)s[1]) || s[1] == '/' || s[1] == '!')
			return 1;
	return 0;
}

/* Regexp (or Option REGEXP=): the part tama compares becomes an --only
 * pattern over the page's text, in POSIX syntax; what cannot be mapped is
 * listed, and the entry is watched whole. */
static void site_regexp(tctx *c, const char *v, size_t n, unsigned long line)
{
	lb_buf msg = LB_BUF_INIT;
	size_t from, to;
	char why[160];
	lb_error err = LB_ERROR_INIT;
	int groups, rc;

	lb_buf_reset(&c->only);
	if (!n)
		return;
	groups = regexp_span(v, n, &from, &to);
	/* flags before the groups still change what they match */
	for (size_t i = 0; i + 2 < from; i++)
		if (v[i] == '\\')
			i++;
		else if (v[i] == '(' && v[i + 1] == '?' && (isalpha((unsigned char)v[i + 2]) || v[i + 2] == '-') &&
			 v[i + 2] != 'P') {
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0,
				  "Regexp %.*s: inline flags %.3s have no POSIX equivalent: the whole page is watched",
				  (int)n, v, v + i);
			return;
		}
	rc = ant_imp_perl_to_ere(v + from, to - from, &c->tmp, why, sizeof why);
	if (rc == LB_ENOMEM)
		return;
	if (rc < 0) {
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0,
			  "Regexp %.*s: %s has no POSIX equivalent: the whole page is watched", (int)n, v, why);
		return;
	}
	if (ant_page_only_check(c->tmp.data, &err) < 0) {
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "Regexp %.*s: %.255s: the whole page is watched",
			  (int)n, v, lb_error_msg(&err));
		return;
	}
	if (ant_imp_add_regex(&c->only, c->tmp.data, c->tmp.len) < 0)
		return;
	lb_buf_addf(&msg, "Regexp %.*s: only the text matching '%s' decides (--only)", (int)n, v, c->only.data);
	if (!groups)
		lb_buf_adds(&msg, "; it has no ( ) group: the whole match is watched");
	else if (from && to < n)
		lb_buf_addf(&msg, "; '%.*s' before and '%.*s' after the ( ) are left out", (int)from, v,
			    (int)(n - to), v + to);
	else if (from || to < n)
		lb_buf_addf(&msg, "; '%.*s' %s the ( ) is left out", from ? (int)from : (int)(n - to),
			    from ? v : v + to, from ? "before" : "after");
	if (names_markup(c->only.data))
		lb_buf_adds(&msg, "; it names markup, but --only matches the page's text, not its HTML");
	ant_imp_diagf(c->o, ANT_IMP_NOTE, line, 0, "%s", msg.data);
	lb_buf_release(&msg);
}

/* One option of a site (GET, DI, NO_REMOTE, TZ=, REGEXP=, ...). */
static void site_option(tctx *c, const char *s, size_t n, unsigned long line, int *di)
{
	size_t k = 0;

	while (k < n && s[k] != '=')
		k++;
	if (k == 3 && !strncmp(s, "GET", 3))
		ant_imp_diagf(c->o, ANT_IMP_NOTE, line, 0, "Option GET: the antenna always checks with GET and the server's validators");
	else if (k == 9 && !strncmp(s, "NO_REMOTE", 9))
		ant_imp_diagf(c->o, ANT_IMP_NOTE, line, 0, "Option NO_REMOTE: the antenna always checks pages itself; LIRS sources only make them due earlier");
	else if (k == 2 && !strncmp(s, "DI", 2))
		*di = 1;
	else if (k == 2 && !strncasecmp(s, "TZ", 2))
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "Option %.*s: the display time zone is the antenna's ('antenna init --tz-offset')", (int)n, s);
	else if (k == 6 && !strncasecmp(s, "REGEXP", 6))
		site_regexp(c, s + (n > 7 ? 7 : n), n > 7 ? n - 7 : 0, line);
	else if (n)
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "Option '%.*s' is not one tama knows", (int)n, s);
}

static void site_options(tctx *c, const char *s, size_t n, int sep, unsigned long line, int *di)
{
	while (n) {
		const char *e = memchr(s, sep, n);
		size_t k = e ? (size_t)(e - s) : n;
		site_option(c, s, k, line, di);
		if (!e)
			break;
		n -= k + 1;
		s = e + 1;
	}
}

/*
 * A site: a page, and with Option DI its DI file as a source.  Check-URL
 * (relative to URL) is what tama fetches while URL is what it shows and
 * links: the page's check URL.
 */
static void site(tctx *c, const field *f, size_t nf, unsigned long line, int csv)
{
	ant_imp_entry e = { .kind = ANT_IMP_PAGE, .title = "", .author = "", .group = "", .ignore = "",
			.charset = "", .line = line };
	const field *check = NULL;
	int di = 0, check_ok = 0;

	lb_buf_reset(&c->url);
	lb_buf_reset(&c->only);
	for (size_t i = 0; i < nf; i++) {
		const field *x = &f[i];
		if (!strcmp(x->key, "url")) set(&c->url, x->val, x->len);
		else if (!strcmp(x->key, "title")) set(&c->title, x->val, x->len), e.title = c->title.data;
		else if (!strcmp(x->key, "author")) set(&c->author, x->val, x->len), e.author = c->author.data;
		else if (!strcmp(x->key, "check-url")) check = x;
		else if (!strcmp(x->key, "option")) site_options(c, x->val, x->len, csv ? '|' : ',', x->line, &di);
		else if (!strcmp(x->key, "regexp")) site_regexp(c, x->val, x->len, x->line);
		else if (!strcmp(x->key, "tz"))
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, x->line, 0, "Tz %.*s: the display time zone is the antenna's ('antenna init --tz-offset')", (int)x->len, x->val);
		else if (x->key[0])
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, x->line, 0, "'%s' is not a key tama reads", x->key);
	}
	if (!url_ok(c, c->url.data, line))
		return;
	e.url = c->url.data;
	e.title_by_user = *e.title != '\0';
	e.only = c->only.data;
	if (check && check->len) {
		if (resolve(c, &c->check, check->val, check->len, c->url.data) != 0 ||
		    !lb_url_is_http(c->check.data))
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, check->line, 0, "Check-URL '%s': the antenna checks only http and https", c->check.data);
		else
			check_ok = 1;
	}
	if (check_ok && !di && strcmp(c->check.data, c->url.data))
		e.check_url = c->check.data;
	if (deliver(c, &e) < 0)
		return;
	if (di && (check_ok || !check || !check->len)) {
		ant_imp_entry s = { .kind = ANT_IMP_SOURCE, .url = check_ok ? c->check.data : c->url.data,
				.title = "", .author = "", .group = "", .ignore = "", .charset = "", .line = line };
		ant_imp_diagf(c->o, ANT_IMP_NOTE, line, 0, "Option DI: '%s' is read as a DI source", s.url);
		deliver(c, &s);
	}
}

/* A remote antenna: its data file becomes a source. */
static void remote(tctx *c, const field *f, size_t nf, unsigned long line)
{
	ant_imp_entry e = { .kind = ANT_IMP_SOURCE, .title = "", .author = "", .group = "", .ignore = "",
			.charset = "", .line = line };
	const field *data = NULL, *fmt = NULL, *named = NULL;

	lb_buf_reset(&c->url);
	for (size_t i = 0; i < nf; i++) {
		const field *x = &f[i];
		if (!strcmp(x->key, "url")) set(&c->url, x->val, x->len);
		else if (!strcmp(x->key, "data-url")) data = x;
		else if (!strcmp(x->key, "format")) fmt = x;
		else if ((!strcmp(x->key, "title") || !strcmp(x->key, "symbol")) && x->len) named = x;
		else if (x->key[0] && strcmp(x->key, "title") && strcmp(x->key, "symbol"))
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, x->line, 0, "'%s' is not a key tama reads", x->key);
	}
	if (!url_ok(c, c->url.data, line))
		return;
	if (resolve(c, &c->check, data ? data->val : "", data ? data->len : 0, c->url.data) != 0 ||
	    !lb_url_is_http(c->check.data)) {
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, data ? data->line : line, 0, "Data-URL '%s': the antenna reads sources only over http and https", c->check.data);
		return;
	}
	if (!fmt || !((fmt->len == 4 && !memcmp(fmt->val, "LIRS", 4)) || (fmt->len == 2 && !memcmp(fmt->val, "DI", 2)) ||
		      (fmt->len == 4 && !memcmp(fmt->val, "HINA", 4)))) {
		ant_imp_diagf(c->o, ANT_IMP_ERROR, fmt ? fmt->line : line, 0, "Format '%.*s' is not LIRS, DI or HINA",
			  fmt ? (int)fmt->len : 0, fmt ? fmt->val : "");
		return;
	}
	if (named)
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, named->line, 0, "Title and Symbol of '%s': a source has no name in the antenna", c->url.data);
	e.url = c->check.data;
	deliver(c, &e);
}

/* ---- version 1: blocks ----------------------------------------------------- */

static void block(tctx *c, field *f, size_t nf, unsigned long line)
{
	int has_url = 0, other = 0;

	for (size_t i = 0; i < nf; i++) {
		if (!strcmp(f[i].key, "url") && f[i].len)
			has_url = 1;
		else if (strcmp(f[i].key, "version") && strcmp(f[i].key, "charset"))
			other = 1;
	}
	if (!has_url) {
		if (other)
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, line, 0, "a block without URL: tama skips it too");
		return;
	}
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].key, "version") || !strcmp(f[i].key, "charset"))
			f[i].key[0] = '\0';
	if (c->remote)
		remote(c, f, nf, line);
	else
		site(c, f, nf, line, 0);
}

static int next_line(const char *buf, size_t len, size_t *pos, const char **b, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	*b = buf + *pos;
	nl = memchr(*b, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *b) : len - *pos;
	*pos += *n + (nl != NULL);
	if (*n && (*b)[*n - 1] == '\r')
		(*n)--;          /* Ruby's chomp! */
	return 1;
}

static void parse_v1(tctx *c, const char *buf, size_t len)
{
	field f[TAMA_FIELDS];
	size_t nf = 0, pos = 0, n;
	unsigned long ln = 0, start = 0;
	const char *b;
	int more = 1;

	while (!c->stop && more) {
		more = next_line(buf, len, &pos, &b, &n);
		ln++;
		if (more && n && b[0] == '#')
			continue;
		if (!more || n == 0) {
			if (nf)
				block(c, f, nf, start);
			nf = 0;
			continue;
		}
		if (!nf)
			start = ln;
		const char *colon = memchr(b, ':', n);
		if (!colon) {
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, ln, 1, "a line without ':': tama ignores it too");
			continue;
		}
		if (nf == TAMA_FIELDS) {
			ant_imp_diagf(c->o, ANT_IMP_ERROR, ln, 1, "more than %d lines in one block", TAMA_FIELDS);
			continue;
		}
		size_t kl = (size_t)(colon - b), i;
		for (i = 0; i < kl && i + 1 < sizeof f[nf].key; i++)
			f[nf].key[i] = (char)tolower((unsigned char)b[i]);
		f[nf].key[i] = '\0';
		if (kl >= sizeof f[nf].key)
			snprintf(f[nf].key, sizeof f[nf].key, "%.*s...", (int)sizeof f[nf].key - 4, b);
		const char *v = colon + 1;
		while (v < b + n && isspace((unsigned char)*v))
			v++;
		f[nf].val = v;
		f[nf].len = (size_t)(b + n - v);
		f[nf].line = ln;
		nf++;
	}
}

/* ---- version 0: CSV lines -------------------------------------------------- */

/* tama's csv_split: ',' splits, '\' takes the next character literally. */
static size_t csv_split(const char *s, size_t n, lb_buf *fields, size_t *off, size_t max)
{
	size_t nf = 0;

	lb_buf_reset(fields);
	off[nf++] = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			lb_buf_addc(fields, s[++i]);
		} else if (s[i] == ',') {
			lb_buf_addc(fields, '\0');
			if (nf < max)
				off[nf++] = fields->len;
		} else {
			lb_buf_addc(fields, s[i]);
		}
	}
	lb_buf_addc(fields, '\0');
	return nf;
}

static void parse_v0(tctx *c, const char *buf, size_t len, lb_buf *fields)
{
	static const char *const skeys[] = { "title", "author", "url", "check-url", "option" };
	static const char *const rkeys[] = { "title", "url", "data-url", "format", "symbol" };
	size_t pos = 0, n, off[6];
	unsigned long ln = 0;
	const char *b;

	while (!c->stop && next_line(buf, len, &pos, &b, &n)) {
		field f[5];
		size_t nf;

		ln++;
		if (n == 0 || b[0] == '#')
			continue;
		nf = csv_split(b, n, fields, off, 6);
		for (size_t i = 0; i < 5; i++) {
			snprintf(f[i].key, sizeof f[i].key, "%s", c->remote ? rkeys[i] : skeys[i]);
			f[i].val = i < nf ? fields->data + off[i] : "";
			f[i].len = strlen(f[i].val);
			f[i].line = ln;
		}
		if (nf > 5)
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, ln, 0, "fields after the 5th: tama ignores them too");
		if (c->remote)
			remote(c, f, 5, ln);
		else
			site(c, f, 5, ln, 1);
	}
}

/* Which file: remote.cfg by its name, its keys or its format field. */
static int is_remote(const char *buf, size_t len, const char *hint, int v1)
{
	const char *base = hint ? strrchr(hint, '/') : NULL;
	size_t pos = 0, n, off[6];
	const char *b;
	lb_buf tmp = LB_BUF_INIT;
	int r = 0;

	base = base ? base + 1 : hint;
	if (base && strstr(base, "remote"))
		return 1;
	if (base && strstr(base, "sites"))
		return 0;
	while (!r && next_line(buf, len, &pos, &b, &n)) {
		if (!n || b[0] == '#')
			continue;
		if (v1)
			r = (n > 9 && !strncasecmp(b, "data-url:", 9)) || (n > 7 && !strncasecmp(b, "format:", 7)) ||
			    (n > 7 && !strncasecmp(b, "symbol:", 7));
		else if (csv_split(b, n, &tmp, off, 6) >= 4) {
			const char *fmt = tmp.data + off[3];
			r = !strcmp(fmt, "LIRS") || !strcmp(fmt, "DI") || !strcmp(fmt, "HINA");
			break;
		}
	}
	lb_buf_release(&tmp);
	return r;
}

int ant_imp_parse_tama(const char *buf, size_t len, const ant_imp_opts *o)
{
	tctx c = { .o = o, .url = LB_BUF_INIT, .check = LB_BUF_INIT, .title = LB_BUF_INIT,
		   .author = LB_BUF_INIT, .tmp = LB_BUF_INIT, .ign = LB_BUF_INIT, .only = LB_BUF_INIT };
	lb_buf fields = LB_BUF_INIT;
	size_t pos = 0, n;
	const char *b;
	int v1 = next_line(buf, len, &pos, &b, &n) && n >= 8 && !strncasecmp(b, "Version:", 8);

	c.remote = is_remote(buf, len, o->name_hint, v1);
	if (v1)
		parse_v1(&c, buf, len);
	else
		parse_v0(&c, buf, len, &fields);
	lb_buf_release(&c.url); lb_buf_release(&c.check); lb_buf_release(&c.title);
	lb_buf_release(&c.author); lb_buf_release(&c.tmp); lb_buf_release(&c.ign);
	lb_buf_release(&c.only);
	lb_buf_release(&fields);
	return c.stop ? LB_ESTOP : 0;
}

/* ---- tama.cfg: which files hold the sites ------------------------------------ */

int ant_imp_is_tama_cfg(const char *buf, size_t len)
{
	size_t pos = 0, n;
	const char *b;

	while (next_line(buf, len, &pos, &b, &n)) {
		while (n && (*b == ' ' || *b == '\t'))
			b++, n--;
		if (n > 5 && !strncmp(b, "$site", 5) && (b[5] == ' ' || b[5] == '=' || b[5] == '\t'))
			return 1;
	}
	return 0;
}

typedef struct rb {
	const char *p, *end;
	unsigned long line;
} rb;

/* Skips blanks, newlines and # comments. */
static void rb_skip(rb *r)
{
	while (r->p < r->end) {
		if (*r->p == '\n')
			r->line++, r->p++;
		else if (*r->p == ' ' || *r->p == '\t' || *r->p == '\r')
			r->p++;
		else if (*r->p == '#')
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		else
			break;
	}
}

/* A Ruby string literal ("..." with \ escapes and #{$tama_cfg_dirname}, or '...'). */
static int rb_string(rb *r, const char *dir, lb_buf *out, const ant_imp_opts *o)
{
	static const char var[] = "#{$tama_cfg_dirname}";
	char q;

	lb_buf_reset(out);
	rb_skip(r);
	if (r->p >= r->end || (*r->p != '"' && *r->p != '\''))
		return LB_EPARSE;
	q = *r->p++;
	while (r->p < r->end && *r->p != q) {
		if (*r->p == '\\' && r->p + 1 < r->end) {
			lb_buf_addc(out, r->p[1]);
			r->p += 2;
		} else if (q == '"' && (size_t)(r->end - r->p) >= sizeof var - 1 &&
			   !memcmp(r->p, var, sizeof var - 1)) {
			lb_buf_adds(out, dir);
			r->p += sizeof var - 1;
		} else if (q == '"' && r->end - r->p > 1 && r->p[0] == '#' && r->p[1] == '{') {
			ant_imp_diagf(o, ANT_IMP_UNMAPPED, r->line, 0, "a Ruby expression in a file name: only #{$tama_cfg_dirname} is understood");
			return LB_EPARSE;
		} else {
			if (*r->p == '\n')
				r->line++;
			lb_buf_addc(out, *r->p++);
		}
	}
	if (r->p >= r->end)
		return LB_EPARSE;
	r->p++;
	return 0;
}

/* The position just after "$name" assigned with '=' (not '=='), or NULL. */
static const char *rb_assign(const char *buf, size_t len, const char *name, unsigned long *line)
{
	size_t pos = 0, n, k = strlen(name);
	const char *b;

	*line = 0;
	while (next_line(buf, len, &pos, &b, &n)) {
		(*line)++;
		while (n && (*b == ' ' || *b == '\t'))
			b++, n--;
		if (n > k && !strncmp(b, name, k) && (b[k] == ' ' || b[k] == '=' || b[k] == '\t')) {
			const char *e = b + k;
			while (e < b + n && (*e == ' ' || *e == '\t'))
				e++;
			if (e < b + n && *e == '=' && (e + 1 == b + n || e[1] != '='))
				return e + 1;
		}
	}
	return NULL;
}

int ant_imp_parse_tama_cfg(const char *buf, size_t len, const char *dir,
		       void (*on_file)(void *ctx, const ant_imp_tama_file *f), const ant_imp_opts *o)
{
	lb_buf path = LB_BUF_INIT, name = LB_BUF_INIT;
	unsigned long line;
	const char *at = rb_assign(buf, len, "$site", &line);
	rb r;
	int rc = 0;

	if (!at) {
		ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "no '$site = { ... }' in this tama.cfg");
		return LB_EPARSE;
	}
	r = (rb){ at, buf + len, line };
	rb_skip(&r);
	if (r.p >= r.end || *r.p != '{') {
		ant_imp_diagf(o, ANT_IMP_ERROR, r.line, 0, "$site is not a { \"SITES-FILE\" => \"NAME\" } hash: "
			      "each key is a site list file (sites.cfg), each value its output's name");
		return LB_EPARSE;
	}
	r.p++;
	for (;;) {
		unsigned long l;
		rb_skip(&r);
		if (r.p < r.end && *r.p == '}')
			break;
		l = r.line;
		if (rb_string(&r, dir, &path, o) < 0 || (rb_skip(&r), r.end - r.p < 2) ||
		    memcmp(r.p, "=>", 2) || (r.p += 2, rb_string(&r, dir, &name, o) < 0)) {
			ant_imp_diagf(o, ANT_IMP_ERROR, r.line, 0, "$site: expected \"SITES-FILE\" => \"NAME\": "
				      "each key is a site list file, e.g. "
				      "\"#{$tama_cfg_dirname}/sites.cfg\" => \"sites\"");
			rc = LB_EPARSE;
			break;
		}
		on_file(o->ctx, &(ant_imp_tama_file){ path.data, name.data, 0, l });
		rb_skip(&r);
		if (r.p < r.end && *r.p == ',')
			r.p++;
	}
	if (rc == 0 && (at = rb_assign(buf, len, "$remote_cfg_path", &line))) {
		r = (rb){ at, buf + len, line };
		if (rb_string(&r, dir, &path, o) == 0)
			on_file(o->ctx, &(ant_imp_tama_file){ path.data, "", 1, line });
		else
			ant_imp_diagf(o, ANT_IMP_ERROR, line, 0, "$remote_cfg_path is not a string");
	}
	lb_buf_release(&path);
	lb_buf_release(&name);
	return rc;
}
