/*
 * import_jsonl.c: what 'antenna export --format jsonl' writes (export.c),
 * read back: one JSON object per line (json-c), blank lines skipped.
 *
 *   {"type":"page", "url", "title", "title_set_by_user", "author",
 *    "group", "ignore": [patterns], "force_charset", "only": [patterns],
 *    "feed_url" (or null; older exports call it "feed"),
 *    "check_url" (or null), "no_auto_ignore", "last_modified",
 *    "last_detected", "when": [patterns], "taught": [runs] (ant_taught.h
 *    lines), "render" (the last three only when set)}
 *   {"type":"source", "url", "kind": "lirs", "atom" or "sitemap" (no kind: lirs),
 *    "relay": true for a relay source (no relay: false)}
 *
 * The times come with the page (ANT_IMP_PAGE entries carry them), so an
 * export read into a new database exports the same bytes.  A line that
 * is not a JSON object, a key of the wrong type, or a string with an
 * escaped NUL (\u0000: C strings would end there, so a URL would be cut)
 * skips that line with an error; a key we do not know is listed once as
 * unmapped.
 */
#include "ant_import.h"
#include "import_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lb_buf.h"
#include "ant_page.h"
#include "ant_taught.h"
#include "ant_when.h"

#define JSONL_MAX_UNKNOWN 32

typedef struct jctx {
	const ant_imp_opts *o;
	unsigned long line;
	int bad;                 /* this line is skipped: an error was given */
	lb_buf ign, only, when, taught;
	char *unknown[JSONL_MAX_UNKNOWN];   /* keys listed as unmapped already */
	size_t nunknown;
} jctx;

static void bad(jctx *c, const char *fmt, const char *key)
{
	if (!c->bad)
		ant_imp_diagf(c->o, ANT_IMP_ERROR, c->line, 0, fmt, key);
	c->bad = 1;
}

/* The string v, or NULL (an error) when it holds a NUL. */
static const char *no_nul(jctx *c, json_object *v, const char *key)
{
	const char *s = json_object_get_string(v);

	if (strlen(s) != (size_t)json_object_get_string_len(v)) {
		bad(c, "\"%s\" contains a NUL character (\\u0000); line skipped", key);
		return NULL;
	}
	return s;
}

/* The string at key: "" when absent or null; NULL (an error) for another type. */
static const char *str(jctx *c, json_object *obj, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return "";
	if (!json_object_is_type(v, json_type_string)) {
		bad(c, "\"%s\" is not a string; line skipped", key);
		return NULL;
	}
	return no_nul(c, v, key);
}

static int boolean(jctx *c, json_object *obj, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		bad(c, "\"%s\" is not true or false; line skipped", key);
		return 0;
	}
	return json_object_get_boolean(v);
}

static int64_t integer(jctx *c, json_object *obj, const char *key)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_int) || (n = json_object_get_int64(v)) < 0) {
		bad(c, "\"%s\" is not a time (seconds since 1970); line skipped", key);
		return 0;
	}
	return n;
}

/* A list of ant_page.h patterns into out, one per line; check: the rule
 * 'antenna add' applies to them.  A pattern it refuses is listed. */
static void patterns(jctx *c, json_object *obj, const char *key, lb_buf *out,
		     int (*check)(const char *, lb_error *))
{
	json_object *v;
	lb_error err = LB_ERROR_INIT;

	lb_buf_reset(out);
	if (!json_object_object_get_ex(obj, key, &v) || !v)
		return;
	if (!json_object_is_type(v, json_type_array)) {
		bad(c, "\"%s\" is not a list of patterns; line skipped", key);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *p = json_object_array_get_idx(v, i);
		const char *s = p && json_object_is_type(p, json_type_string) ? no_nul(c, p, key) : NULL;
		if (!s) {
			bad(c, "\"%s\" is not a list of patterns; line skipped", key);
			return;
		}
		if (!*s)
			continue;
		if (strchr(s, '\n') || check(s, &err) < 0)
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, c->line, 0, "%s: %.255s", key,
				      strchr(s, '\n') ? "a pattern is one line" : lb_error_msg(&err));
		else if (ant_imp_add_pattern(out, "", s, strlen(s)) < 0)
			c->bad = 1;
	}
}

static const char *const known[] = {
	"type", "url", "title", "title_set_by_user", "author", "group", "ignore", "force_charset",
	"last_modified", "last_detected", "kind", "only", "feed_url", "feed", "check_url",
	"no_auto_ignore", "relay", "moved_from", "moved_at", "ignore_robots", "when", "taught",
	"render",
};

/* A taught run (ant_taught.h) as export wrote it: one line that parses. */
static int taught_check(const char *line, lb_error *err)
{
	ant_taught_run r;

	return ant_taught_parse(line, &r, 1) == 1 ? 0 : lb_err(err, LB_EINVAL, "not a taught run");
}

/* Keys we do not read, listed once each. */
static void unknown_keys(jctx *c, json_object *obj)
{
	json_object_object_foreach(obj, k, v) {
		size_t i;
		(void)v;
		for (i = 0; i < sizeof known / sizeof *known && strcmp(k, known[i]); i++)
			;
		if (i < sizeof known / sizeof *known)
			continue;
		for (i = 0; i < c->nunknown && strcmp(k, c->unknown[i]); i++)
			;
		if (i < c->nunknown)
			continue;
		if (c->nunknown < JSONL_MAX_UNKNOWN)
			if ((c->unknown[c->nunknown] = strdup(k)))
				c->nunknown++;
		ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, c->line, 0, "\"%.100s\": not a setting this antenna reads", k);
	}
}

/* One line's object; nonzero when on_entry stopped. */
static int object(jctx *c, json_object *obj)
{
	ant_imp_entry e = { .kind = ANT_IMP_PAGE, .line = c->line, .title = "", .author = "", .group = "",
			    .ignore = "", .charset = "" };
	const char *type = str(c, obj, "type");
	lb_error err = LB_ERROR_INIT;

	if (!type)
		return 0;
	if (!(e.url = str(c, obj, "url")))
		return 0;
	if (!*e.url) {
		bad(c, "no \"url\"%s; line skipped", "");
		return 0;
	}
	unknown_keys(c, obj);
	if (!strcmp(type, "source")) {
		const char *kind = str(c, obj, "kind");
		if (!kind)
			return 0;
		if (*kind && ant_store_source_kind_of(kind) < 0) {
			bad(c, "\"kind\" is '%s', not lirs, atom or sitemap; line skipped", kind);
			return 0;
		}
		e.kind = ANT_IMP_SOURCE;
		e.atom = !strcmp(kind, "atom");
		e.sitemap = !strcmp(kind, "sitemap");
		e.relay = boolean(c, obj, "relay");
	} else if (!strcmp(type, "page")) {
		const char *cs;
		e.title = str(c, obj, "title");
		e.title_by_user = boolean(c, obj, "title_set_by_user");
		e.author = str(c, obj, "author");
		e.group = str(c, obj, "group");
		cs = str(c, obj, "force_charset");
		e.last_modified = integer(c, obj, "last_modified");
		e.last_detected = integer(c, obj, "last_detected");
		patterns(c, obj, "ignore", &c->ign, ant_page_pattern_check);
		e.ignore = c->ign.data;
		patterns(c, obj, "only", &c->only, ant_page_only_check);
		e.only = c->only.data;
		e.feed = str(c, obj, json_object_object_get_ex(obj, "feed_url", NULL) ? "feed_url" : "feed");
		e.check_url = str(c, obj, "check_url");
		e.no_auto_ignore = boolean(c, obj, "no_auto_ignore");
		e.moved_from = str(c, obj, "moved_from");
		e.moved_at = integer(c, obj, "moved_at");
		e.ignore_robots = boolean(c, obj, "ignore_robots");
		patterns(c, obj, "when", &c->when, ant_when_check);
		e.when = c->when.data;
		patterns(c, obj, "taught", &c->taught, taught_check);
		e.taught = c->taught.data;
		e.render = boolean(c, obj, "render");
		if (c->bad || !e.moved_from || !e.title || !e.author || !e.group || !cs)
			return 0;
		if (*cs && ant_page_charset_check(cs, &err) < 0)
			ant_imp_diagf(c->o, ANT_IMP_UNMAPPED, c->line, 0, "force_charset: %.127s", lb_error_msg(&err));
		else
			e.charset = cs;
	} else {
		bad(c, "\"type\" is '%s', not page or source; line skipped", type);
		return 0;
	}
	if (c->bad)
		return 0;
	return c->o->on_entry && c->o->on_entry(c->o->ctx, &e);
}

int ant_imp_parse_jsonl(const char *buf, size_t len, const ant_imp_opts *o)
{
	jctx c = { .o = o, .ign = LB_BUF_INIT, .only = LB_BUF_INIT, .when = LB_BUF_INIT,
		   .taught = LB_BUF_INIT };
	json_tokener *tok = json_tokener_new();
	const char *p = buf, *end = buf + len;
	int stop = 0;

	if (!tok)
		return ant_imp_diagf(o, ANT_IMP_ERROR, 0, 0, "out of memory"), LB_ENOMEM;
	while (p < end && !stop) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *b = p;
		json_object *obj;

		c.line++;
		c.bad = 0;
		p = nl ? nl + 1 : end;
		while (b < e && (*b == ' ' || *b == '\t' || *b == '\r'))
			b++;
		if (b == e)
			continue;
		if (e - b > 0x7fffffff) {
			ant_imp_diagf(o, ANT_IMP_ERROR, c.line, 0, "line too long; skipped");
			continue;
		}
		json_tokener_reset(tok);
		obj = json_tokener_parse_ex(tok, b, (int)(e - b));
		if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
		    (size_t)json_tokener_get_parse_end(tok) != (size_t)(e - b) ||
		    !json_object_is_type(obj, json_type_object)) {
			size_t rest = obj ? (size_t)json_tokener_get_parse_end(tok) : 0;
			int trailing = obj && rest < (size_t)(e - b) && strspn(b + rest, " \t\r") == (size_t)(e - b) - rest;
			if (!trailing || !json_object_is_type(obj, json_type_object)) {
				ant_imp_diagf(o, ANT_IMP_ERROR, c.line, 0, "not a JSON object; line skipped");
				json_object_put(obj);
				continue;
			}
		}
		stop = object(&c, obj);
		json_object_put(obj);
	}
	json_tokener_free(tok);
	lb_buf_release(&c.ign);
	lb_buf_release(&c.only);
	lb_buf_release(&c.when);
	lb_buf_release(&c.taught);
	for (size_t i = 0; i < c.nunknown; i++)
		free(c.unknown[i]);
	return stop ? LB_ESTOP : 0;
}
