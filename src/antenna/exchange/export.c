/*
 * export.c: the watch list as OPML, samidare's config.yml or JSON Lines
 * (ant_export.h), beside the readers of the same formats (import_*.c).
 *
 * Each writer appends to x->o and hands it to the stream every
 * EXPORT_CHUNK bytes (after a page or a source), and the pages come one
 * at a time from the store (ant_store_pages_each_grouped), so memory
 * stays flat however many pages there are.
 */
#include "ant_export.h"
#include "ant_pagestate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "atom.h"
#include "lb_buf.h"
#include "lb_utf8.h"
#include "lirs_jsonw.h"
#include "ant_import.h"
#include "import_int.h"
#include "ant_settings.h"

#define EXPORT_CHUNK 65536

typedef struct ex {
	ant_store *store;
	lb_error *err;             /* the store's failure */
	int walk_rc;               /* < 0: reading the pages failed */
	lb_buf group;              /* opml: the group of the page before */
	int seen;                  /* opml: a page was written (group is its group) */
	int in_group;              /* opml: its <outline> is open */
	yaml_emitter_t *e;         /* samidare: the emitter */
	ant_store_source *s;
	size_t ns;
	char *title;
	lb_buf o;
	FILE *out;
	int sink_errno;            /* writing to out failed: its errno (or EIO) */
	int sink_failed;
	const char *yaml_problem;  /* libyaml's reason, when it refused */
} ex;

/* Hands what x->o holds to the stream, when it holds EXPORT_CHUNK bytes
 * (or anything, with force); 0, or LB_ESINK when the write failed. */
static int flush(ex *x, int force)
{
	if (x->o.len == 0 || (!force && x->o.len < EXPORT_CHUNK))
		return 0;
	errno = 0;
	if (fwrite(x->o.data, 1, x->o.len, x->out) != x->o.len) {
		x->sink_failed = 1;
		x->sink_errno = errno ? errno : EIO;
		return LB_ESINK;
	}
	lb_buf_reset(&x->o);
	return 0;
}

/* Calls fn for each page in group order (no group first), then by URL;
 * 0, LB_ESTOP when fn failed (returned 1; failure() tells why), or the
 * store's code (kept in x->walk_rc). */
static int each_page(ex *x, ant_store_page_fn fn)
{
	int rc = ant_store_pages_each_grouped(x->store, fn, x, x->err);

	if (rc < 0)
		x->walk_rc = rc;
	return rc < 0 ? rc : rc ? LB_ESTOP : 0;
}

/* ---- OPML -------------------------------------------------------------------- */

static int xattr(lb_buf *o, const char *name, const char *v)
{
	return lb_buf_addf(o, " %s=\"", name) < 0 || atom_xml_escape(o, v, 1) < 0 || lb_buf_addc(o, '"') < 0 ? LB_ENOMEM : 0;
}

/* A page the user gave a feed: type="rss", htmlUrl the page, xmlUrl its
 * feed (as feed readers write it), or xmlUrl alone for a page that is its
 * own feed (what a feed-only outline imports as); else type="link" url. */
static int opml_page(lb_buf *o, const ant_store_page *p, const char *indent)
{
	int feed = p->feed_by_user && p->feed_url;
	int feed_only = feed && !strcmp(p->feed_url, p->url);

	if (lb_buf_addf(o, "%s<outline", indent) < 0 || xattr(o, "text", *p->title ? p->title : p->url) < 0 ||
	    (p->title_set_by_user && *p->title && xattr(o, "title", p->title) < 0) ||
	    xattr(o, "type", feed ? "rss" : "link") < 0 ||
	    (!feed_only && xattr(o, feed ? "htmlUrl" : "url", p->url) < 0) ||
	    (feed && xattr(o, "xmlUrl", p->feed_url) < 0) ||
	    (*p->author && xattr(o, "antenna:author", p->author) < 0) ||
	    (*p->ignore && xattr(o, "antenna:ignore", p->ignore) < 0) ||
	    (*p->force_charset && xattr(o, "antenna:charset", p->force_charset) < 0) ||
	    (*p->only && xattr(o, "antenna:only", p->only) < 0) ||
	    (p->check_url && xattr(o, "antenna:check-url", p->check_url) < 0) ||
	    (p->no_auto_ignore && xattr(o, "antenna:no-auto-ignore", "1") < 0) ||
	    (*p->when && xattr(o, "antenna:when", p->when) < 0) ||
	    (p->render && xattr(o, "antenna:render", "1") < 0))
		return LB_ENOMEM;
	return lb_buf_adds(o, "/>\n");
}

/*
 * A source: a LIRS one as type="lirs" (as before), an Atom one as the feed
 * it is (type="rss", which feed readers subscribe to) with
 * antenna:source="atom", which tells import_opml.c it is a source; a
 * sitemap as a link (type="link", url: it is no feed) with
 * antenna:source="sitemap".
 */
static int opml_source(lb_buf *o, const ant_store_source *s)
{
	int atom = s->kind == ANT_STORE_SOURCE_ATOM, sm = s->kind == ANT_STORE_SOURCE_SITEMAP;

	if (lb_buf_adds(o, "    <outline") < 0 || xattr(o, "text", s->url) < 0 ||
	    xattr(o, "type", atom ? "rss" : sm ? "link" : "lirs") < 0 ||
	    xattr(o, sm ? "url" : "xmlUrl", s->url) < 0 ||
	    xattr(o, "antenna:source", ant_store_source_kind_name(s->kind)) < 0 ||
	    (s->relay && xattr(o, "antenna:relay", "1") < 0))
		return LB_ENOMEM;
	return lb_buf_adds(o, "/>\n");
}

/* A page, in its group's <outline> (opened when the group changes). */
static int opml_each(void *ctx, const ant_store_page *p)
{
	ex *x = ctx;
	lb_buf *o = &x->o;
	if (!x->seen || strcmp(x->group.data, p->group)) {
		x->seen = 1;
		if (x->in_group && lb_buf_adds(o, "    </outline>\n") < 0)
			return 1;
		lb_buf_reset(&x->group);
		if (lb_buf_adds(&x->group, p->group) < 0)
			return 1;
		x->in_group = *p->group != '\0';
		if (x->in_group && (lb_buf_adds(o, "    <outline") < 0 || xattr(o, "text", p->group) < 0 ||
				    lb_buf_adds(o, ">\n") < 0))
			return 1;
	}
	return opml_page(o, p, x->in_group ? "      " : "    ") < 0 || flush(x, 0) < 0;
}

static int opml(ex *x)
{
	lb_buf *o = &x->o;
	int rc;

	if (lb_buf_adds(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\"") < 0 ||
	    xattr(o, "xmlns:antenna", ANT_IMP_OPML_NS) < 0 || lb_buf_adds(o, ">\n  <head>\n    <title>") < 0 ||
	    atom_xml_escape(o, x->title ? x->title : "antenna", 0) < 0 ||
	    lb_buf_adds(o, "</title>\n  </head>\n  <body>\n") < 0)
		return LB_ENOMEM;
	if ((rc = each_page(x, opml_each)) < 0)
		return rc;
	if (x->in_group && lb_buf_adds(o, "    </outline>\n") < 0)
		return LB_ENOMEM;
	for (size_t i = 0; i < x->ns; i++)
		if ((rc = opml_source(o, &x->s[i])) < 0 || (rc = flush(x, 0)) < 0)
			return rc;
	return lb_buf_adds(o, "  </body>\n</opml>\n");
}

/* ---- samidare's config.yml (libyaml's emitter) -------------------------------- */

/* libyaml's output handler: 1 on success. */
static int yw(void *data, unsigned char *buf, size_t n)
{
	ex *x = data;

	return lb_buf_add(&x->o, buf, n) == 0 && flush(x, 0) == 0;
}

static int yscalar(yaml_emitter_t *e, const char *s)
{
	yaml_event_t ev;
	lb_buf b = LB_BUF_INIT;
	int rc = LB_EINVAL;     /* libyaml refused it (or memory ran out: failure() tells) */

	/* U+FFFD for each byte that is not UTF-8: libyaml refuses such text */
	if (lb_utf8_repair(&b, s, strlen(s), 0, NULL) != (size_t)-1 && b.len < 0x7fffffff &&
	    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)b.data, (int)b.len, 1, 1,
					 YAML_ANY_SCALAR_STYLE))
		rc = yaml_emitter_emit(e, &ev) ? 0 : LB_EINVAL;
	lb_buf_release(&b);
	return rc;
}

static int ykv(yaml_emitter_t *e, const char *k, const char *v)
{
	return !*v ? 0 : yscalar(e, k) < 0 || yscalar(e, v) < 0 ? LB_EINVAL : 0;
}

static int ymap(yaml_emitter_t *e, int start)
{
	yaml_event_t ev;

	if (start)
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
	else
		yaml_mapping_end_event_initialize(&ev);
	return yaml_emitter_emit(e, &ev) ? 0 : LB_EINVAL;
}

/* The page's patterns as samidare's IgnoreID, IgnoreClass and IgnoreText. */
static int split_ignore(const char *ign, lb_buf *id, lb_buf *cls, lb_buf *text)
{
	while (*ign) {
		size_t n = strcspn(ign, "\n");
		/* "#[0-9]+ hits" is a regular expression (ant_page.h), not an id */
		int name = n > 1 && (ign[0] == '#' || ign[0] == '.') && ant_imp_name_ok(ign + 1, n - 1);
		lb_buf *b = name && ign[0] == '#' ? id : name ? cls : text;
		if (b->len && lb_buf_addc(b, ' ') < 0)
			return LB_ENOMEM;
		if (b == text) {
			/* samidare's /re/: a '/' inside is written \/ */
			if (lb_buf_addc(b, '/') < 0)
				return LB_ENOMEM;
			for (size_t i = 0; i < n; i++) {
				if (ign[i] == '\\' && i + 1 < n) {
					if (lb_buf_add(b, ign + i, 2) < 0)
						return LB_ENOMEM;
					i++;
				} else if ((ign[i] == '/' && lb_buf_adds(b, "\\/") < 0) ||
					   (ign[i] != '/' && lb_buf_addc(b, ign[i]) < 0)) {
					return LB_ENOMEM;
				}
			}
			if (lb_buf_addc(b, '/') < 0)
				return LB_ENOMEM;
		} else if (lb_buf_add(b, ign + 1, n - 1) < 0) {
			return LB_ENOMEM;
		}
		ign += n + (ign[n] == '\n');
	}
	return 0;
}

/*
 * A page; what samidare has no key for in keys of ours, which samidare
 * keeps for its templates and import_samidare.c reads: OnlyID, OnlyClass,
 * OnlyText (as the Ignore* keys), FeedURI, CheckURI, NoAutoIgnore, When
 * (the --when patterns, one a line), Render.  The taught noise only JSON
 * Lines carries.
 */
static int yaml_page(yaml_emitter_t *e, const ant_store_page *p)
{
	lb_buf id = LB_BUF_INIT, cls = LB_BUF_INIT, text = LB_BUF_INIT;
	lb_buf oid = LB_BUF_INIT, ocls = LB_BUF_INIT, otext = LB_BUF_INIT;
	int rc = split_ignore(p->ignore, &id, &cls, &text);

	if (rc == 0)
		rc = split_ignore(p->only, &oid, &ocls, &otext);
	if (rc == 0)
		rc = ymap(e, 1) < 0 || ykv(e, "URI", p->url) < 0 ||
		     (p->title_set_by_user && ykv(e, "Title", p->title) < 0) ||
		     ykv(e, "Author", p->author) < 0 || ykv(e, "Group", p->group) < 0 ||
		     ykv(e, "IgnoreID", id.data) < 0 || ykv(e, "IgnoreClass", cls.data) < 0 ||
		     ykv(e, "IgnoreText", text.data) < 0 || ykv(e, "ForceCharset", p->force_charset) < 0 ||
		     ykv(e, "OnlyID", oid.data) < 0 || ykv(e, "OnlyClass", ocls.data) < 0 ||
		     ykv(e, "OnlyText", otext.data) < 0 ||
		     (p->feed_by_user && p->feed_url && ykv(e, "FeedURI", p->feed_url) < 0) ||
		     (p->check_url && ykv(e, "CheckURI", p->check_url) < 0) ||
		     (p->no_auto_ignore && ykv(e, "NoAutoIgnore", "true") < 0) ||
		     ykv(e, "When", p->when) < 0 ||
		     (p->render && ykv(e, "Render", "true") < 0) ||
		     ymap(e, 0) < 0 ? LB_EINVAL : 0;
	lb_buf_release(&id);
	lb_buf_release(&cls);
	lb_buf_release(&text);
	lb_buf_release(&oid);
	lb_buf_release(&ocls);
	lb_buf_release(&otext);
	return rc;
}

/* A source's kind as the formats name it: samidare's UpdateInfo ("lirs";
 * "atom" is ours: samidare fetches such an entry and reads nothing from
 * it), jsonl's "kind". */
static const char *source_kind(const ant_store_source *s)
{
	return ant_store_source_kind_name(s->kind);   /* "sitemap" is ours too */
}

static int yaml_each(void *ctx, const ant_store_page *p)
{
	ex *x = ctx;

	return yaml_page(x->e, p) < 0;
}

static int samidare(ex *x)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int rc = LB_EINVAL;     /* libyaml refused; failure() tells the sink apart */

	if (lb_buf_adds(&x->o, "# samidare config.yml written by 'antenna export --format samidare'\n") < 0 ||
	    !yaml_emitter_initialize(&e))
		return LB_ENOMEM;
	yaml_emitter_set_output(&e, yw, x);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	x->e = &e;
	if (each_page(x, yaml_each) < 0)
		goto out;
	for (size_t i = 0; i < x->ns; i++)
		if (ymap(&e, 1) < 0 || ykv(&e, "URI", x->s[i].url) < 0 ||
		    ykv(&e, "UpdateInfo", source_kind(&x->s[i])) < 0 ||
		    (x->s[i].relay && ykv(&e, "Relay", "true") < 0) || ymap(&e, 0) < 0)
			goto out;
	yaml_sequence_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (yaml_emitter_emit(&e, &ev) && yaml_emitter_flush(&e))
		rc = 0;
out:
	if (rc < 0 && e.problem && !x->sink_failed)
		x->yaml_problem = e.problem;
	yaml_emitter_delete(&e);
	return rc;
}

/* ---- JSON Lines ------------------------------------------------------------------ */

/* What a check found out: 'antenna list' shows it, an export leaves it out. */
static int json_state(lb_buf *o, const ant_store_page *p)
{
	if (lb_json_next_strz_or_null(o, "source_url", p->source_url) < 0 ||
	    lb_json_next_strz_or_null(o, "detected_by", p->st.detected_by) < 0 ||
	    lb_json_next_strz_or_null(o, "last_error", p->last_error) < 0 ||
	    lb_json_next_strz_or_null(o, "fail_kind", p->last_error ? ant_fail_kind_name(p->fail_kind) : NULL) < 0 ||
	    lb_json_next_int(o, "last_check", p->st.last_check) < 0 ||
	    lb_json_next_int(o, "last_status", p->st.last_status) < 0 ||
	    lb_json_next_int(o, "error_count", p->st.error_count) < 0 ||
	    lb_json_next_int(o, "next_check", p->st.next_check) < 0 ||
	    lb_json_next_strz_or_null(o, "excerpt", p->excerpt) < 0 ||
	    lb_json_next_strz_or_null(o, "state", ant_page_state_name(ant_page_state_of(p))) < 0 ||
	    lb_json_next_strz_or_null(o, "redirect_to", p->redirect_to) < 0 ||
	    lb_json_next_int(o, "redirect_count", p->redirect_count) < 0 ||
	    lb_json_next_int(o, "failing_since", p->failing_since) < 0 ||
	    lb_json_next_int(o, "gone_at", p->gone_at) < 0)
		return LB_ENOMEM;
	return 0;
}

/* Where the page moved from, both in an export (import carries it) and
 * in 'list'. */
static int json_moved(lb_buf *o, const ant_store_page *p)
{
	if (!p->moved_from)
		return 0;
	return lb_json_next_strz_or_null(o, "moved_from", p->moved_from) < 0 ||
	       lb_json_next_int(o, "moved_at", p->moved_at) < 0 ? LB_ENOMEM : 0;
}

/* What the operator means (schema 16), each only when set: the --when
 * patterns, the noise taught by 'set --not-news' (its runs as stored,
 * ant_taught.h), the render flag; in 'list', the --when that matched. */
static int json_meaning(lb_buf *o, const ant_store_page *p, int all)
{
	return (p->when && *p->when && lb_json_next_lines(o, "when", p->when) < 0) ||
	       (p->taught && *p->taught && lb_json_next_lines(o, "taught", p->taught) < 0) ||
	       (p->render && lb_json_next_bool(o, "render", 1) < 0) ||
	       (all && p->when_hit && lb_json_next_strz_or_null(o, "when_hit", p->when_hit) < 0) ? LB_ENOMEM : 0;
}

int ant_export_page_json(lb_buf *o, const ant_store_page *p, ant_export_json what)
{
	int all = what == ANT_EXPORT_JSON_STATE;

	if (lb_buf_adds(o, all ? "{" : "{\"type\":\"page\",") < 0 || lb_json_key(o, "url") < 0 ||
	    lb_json_strz(o, p->url) < 0 || lb_json_next_strz_or_null(o, "title", p->title) < 0 ||
	    (!all && lb_json_next_bool(o, "title_set_by_user", p->title_set_by_user) < 0) ||
	    lb_json_next_strz_or_null(o, "author", p->author) < 0 ||
	    lb_json_next_strz_or_null(o, "group", p->group) < 0 ||
	    lb_json_next_int(o, "last_modified", p->st.last_modified) < 0 ||
	    lb_json_next_int(o, "last_detected", p->st.last_detected) < 0 || (all && json_state(o, p) < 0) ||
	    json_moved(o, p) < 0 ||
	    /* an export keeps the feed the user gave; a found one is found again */
	    lb_json_next_strz_or_null(o, "feed_url", all || p->feed_by_user ? p->feed_url : NULL) < 0 ||
	    (all && lb_json_next_strz_or_null(o, "feed_error", p->feed_error) < 0) ||
	    lb_json_next_strz_or_null(o, "check_url", p->check_url) < 0 ||
	    lb_json_next_lines(o, "ignore", p->ignore) < 0 || lb_json_next_lines(o, "only", p->only) < 0 ||
	    (!all && lb_json_next_strz_or_null(o, "force_charset", p->force_charset) < 0) ||
	    lb_json_next_bool(o, "no_auto_ignore", p->no_auto_ignore) < 0 ||
	    (p->ignore_robots && lb_json_next_bool(o, "ignore_robots", 1) < 0) ||   /* only when set */
	    json_meaning(o, p, all) < 0 ||
	    lb_buf_adds(o, "}\n") < 0)
		return LB_ENOMEM;
	return 0;
}

static int json_each(void *ctx, const ant_store_page *p)
{
	ex *x = ctx;

	return ant_export_page_json(&x->o, p, ANT_EXPORT_JSON_CONFIG) < 0 || flush(x, 0) < 0;
}

static int jsonl(ex *x)
{
	int rc;

	if ((rc = each_page(x, json_each)) < 0)
		return rc;
	for (size_t i = 0; i < x->ns; i++) {
		if (lb_buf_adds(&x->o, "{\"type\":\"source\"") < 0 || lb_json_next_key(&x->o, "url") < 0 ||
		    lb_json_strz(&x->o, x->s[i].url) < 0 || lb_json_next_key(&x->o, "kind") < 0 ||
		    lb_json_strz(&x->o, source_kind(&x->s[i])) < 0 || lb_json_next_key(&x->o, "relay") < 0 ||
		    lb_buf_adds(&x->o, x->s[i].relay ? "true}\n" : "false}\n") < 0)
			return LB_ENOMEM;
		if ((rc = flush(x, 0)) < 0)
			return rc;
	}
	return 0;
}

int ant_export_format_from_name(const char *s)
{
	if (!strcmp(s, "opml"))
		return ANT_EXPORT_OPML;
	if (!strcmp(s, "samidare"))
		return ANT_EXPORT_SAMIDARE;
	if (!strcmp(s, "jsonl"))
		return ANT_EXPORT_JSONL;
	return LB_EINVAL;
}

/* The code and message of a writer's failure. */
static int failure(ex *x, lb_error *err)
{
	if (x->walk_rc < 0)
		return x->walk_rc;   /* err says why */
	if (x->sink_failed) {
		lb_err(err, LB_ESINK, "%s: %s", lb_strerror(LB_ESINK), strerror(x->sink_errno));
		if (err)
			err->sys = x->sink_errno;
		return LB_ESINK;
	}
	if (x->yaml_problem)
		return lb_err(err, LB_EINVAL, "cannot write YAML: %s", x->yaml_problem);
	return lb_err_code(err, LB_ENOMEM);
}

int ant_export(ant_store *s, ant_export_format f, FILE *out, lb_error *err)
{
	ex x = { .store = s, .err = err, .o = LB_BUF_INIT, .group = LB_BUF_INIT, .out = out };
	int rc;

	if ((rc = ant_store_sources_load(s, &x.s, &x.ns, err)) < 0)
		return rc;
	x.title = ant_setting_text(s, ANT_SET_TITLE);
	rc = f == ANT_EXPORT_OPML ? opml(&x) : f == ANT_EXPORT_SAMIDARE ? samidare(&x) : jsonl(&x);
	if (rc == 0)
		rc = flush(&x, 1);
	if (rc < 0)
		rc = failure(&x, err);
	ant_store_sources_free(x.s, x.ns);
	free(x.title);
	lb_buf_release(&x.o);
	lb_buf_release(&x.group);
	return rc;
}
