/*
 * import_apply.c: ant_import(), the entries of other antennas' files
 * (import*.c, the LIRS reader) applied to the database in one transaction.
 *
 * A page is added when its URL key is new; an existing page only gets what
 * it lacks (a title the operator wrote replaces a <title>, never a title
 * the user set; author, group, charset when empty; ignore patterns added),
 * so importing twice changes nothing.  A dry run runs the same code and
 * rolls the transaction back.  Times (LIRS files, jsonl): a record's
 * Last-Modified is taken when newer than the page's, under the drop rules
 * of merge and the relay (lirs_merge_check_at()), with its Last-Detected,
 * and no Atom event (the old antenna announced it already).  Imported
 * pages carry quiet_first (ant_detect.h): their first check is a
 * baseline.  Everything said goes through on_note; nothing is printed.
 * The files themselves are read in import_files.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ant_import.h"
#include "ant_limits.h"
#include "ant_robots.h"
#include "ant_update.h"
#include "import_run.h"
#include "lb_url.h"
#include "lb_utf8.h"
#include "lirs_merge.h"

const char *ant_imp_would(const ant_imp_run *m) { return m->o->dry_run ? "would " : ""; }

void ant_imp_vnote(ant_imp_run *m, ant_imp_severity sev, const char *file, unsigned long line,
		   unsigned long col, const char *fmt, va_list ap)
{
	ant_import_note n = { sev, file, line, col, "" };
	va_list aq;
	int len;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	lb_buf_reset(&m->msg);
	if (len >= 0 && lb_buf_grow(&m->msg, (size_t)len + 1) == 0) {
		vsnprintf(m->msg.data, (size_t)len + 1, fmt, ap);
		m->msg.len = (size_t)len;
		n.message = m->msg.data;
	}
	if (sev == ANT_IMP_ERROR && file)
		m->f.errors++;
	else if (sev == ANT_IMP_UNMAPPED)
		m->f.unmapped++;
	if (m->o->on_note)
		m->o->on_note(m->o->ctx, &n);
}

void ant_imp_note(ant_imp_run *m, ant_imp_severity sev, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ant_imp_vnote(m, sev, m->file, line, 0, fmt, ap);
	va_end(ap);
}

void ant_imp_note_at(ant_imp_run *m, ant_imp_severity sev, unsigned long line, unsigned long col,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ant_imp_vnote(m, sev, m->file, line, col, fmt, ap);
	va_end(ap);
}

void ant_imp_report(ant_imp_run *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ant_imp_vnote(m, ANT_IMP_REPORT, NULL, 0, 0, fmt, ap);
	va_end(ap);
}

int ant_imp_fail(ant_imp_run *m, int rc)
{
	if (!m->rc)
		m->rc = rc < 0 ? rc : LB_EDB;
	if (rc == LB_ENOMEM)
		lb_err_code(m->err, LB_ENOMEM);
	return m->rc;
}

static int set_str(char **dst, const char *v)
{
	char *n = strdup(v);

	if (!n)
		return LB_ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

/* Adds the patterns of add that p->ignore lacks; 1 when any was added. */
static int union_ignore(ant_store_page *p, const char *add, lb_buf *tmp)
{
	int changed = 0;

	lb_buf_reset(tmp);
	lb_buf_adds(tmp, p->ignore);
	while (*add) {
		size_t n = strcspn(add, "\n");
		int have = 0;
		for (const char *q = p->ignore; *q && !have;) {
			size_t k = strcspn(q, "\n");
			have = k == n && !memcmp(q, add, n);
			q += k + (q[k] == '\n');
		}
		if (n && !have) {
			if (tmp->len)
				lb_buf_addc(tmp, '\n');
			lb_buf_add(tmp, add, n);
			changed = 1;
		}
		add += n + (add[n] == '\n');
	}
	if (changed && set_str(&p->ignore, tmp->data) < 0)
		return LB_ENOMEM;
	return changed;
}

/* The texts an entry gives an existing page that lacks them; the names
 * of the changed fields appended to ch. */
static int merge_texts(ant_imp_run *m, ant_store_page *p, const ant_imp_entry *e, const char *group,
		       lb_buf *ch)
{
	if (*e->title && e->title_by_user && !p->title_set_by_user && strcmp(p->title, e->title)) {
		if (set_str(&p->title, e->title) < 0) return LB_ENOMEM;
		p->title_set_by_user = 1;
		lb_buf_adds(ch, " title");
	} else if (*e->title && !e->title_by_user && !*p->title) {
		if (set_str(&p->title, e->title) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " title");
	} else if (*e->title && e->title_by_user && p->title_set_by_user && strcmp(p->title, e->title)) {
		ant_imp_note(m, ANT_IMP_NOTE, e->line, "title of '%s' kept: '%s' (the file says '%s')",
			     p->url, p->title, e->title);
	}
	if (*e->author && !*p->author) {
		if (set_str(&p->author, e->author) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " author");
	}
	if (*group && !*p->group) {
		if (set_str(&p->group, group) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " group");
	}
	return 0;
}

/* What an entry adds to an existing page; the names of the changed fields
 * in ch; *rebase: the ANT_REBASE_* the changes need (ant_store.h: a
 * changed region is no update of the page).  1 changed, 0 not, < 0 error. */
static int merge_into(ant_imp_run *m, ant_store_page *p, const ant_imp_entry *e, const char *group,
		      lb_buf *ch, unsigned *rebase)
{
	int r;

	lb_buf_reset(ch);
	if ((r = merge_texts(m, p, e, group, ch)) < 0 || (r = union_ignore(p, e->ignore, &m->tmp)) < 0)
		return r;
	if (r) {
		lb_buf_adds(ch, " ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (*e->charset && !*p->force_charset) {
		if (set_str(&p->force_charset, e->charset) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " charset");
		*rebase |= ANT_REBASE_TEXT;
	}
	/* the region, the feed, the check URL: when the page has none */
	if (e->only && *e->only && !*p->only) {
		if (set_str(&p->only, e->only) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " only");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (e->feed && *e->feed && !p->feed_by_user) {
		if (!p->feed_url || strcmp(p->feed_url, e->feed))
			*rebase |= ANT_REBASE_FEED;
		if (set_str(&p->feed_url, e->feed) < 0) return LB_ENOMEM;
		p->feed_by_user = 1;
		lb_buf_adds(ch, " feed");
	}
	if (e->check_url && *e->check_url && !p->check_url) {
		if (set_str(&p->check_url, e->check_url) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " check-url");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (e->no_auto_ignore && !p->no_auto_ignore) {
		p->no_auto_ignore = 1;
		lb_buf_adds(ch, " no-auto-ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	/* the words that must appear and the taught noise: when the page has
	 * none (the taught runs are hashes of the page's own text; they
	 * change no comparison already made: no rebaseline) */
	if (e->when && *e->when && !*p->when) {
		if (set_str(&p->when, e->when) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " when");
	}
	if (e->taught && *e->taught && !*p->taught) {
		if (set_str(&p->taught, e->taught) < 0) return LB_ENOMEM;
		lb_buf_adds(ch, " taught-noise");
	}
	if (e->render && !p->render) {
		p->render = 1;
		lb_buf_adds(ch, " render");
	}
	return ch->len > 0;
}

int ant_imp_url_usable(ant_imp_run *m, const ant_imp_entry *e)
{
	if (strlen(e->url) > ANT_MAX_URL) {
		ant_imp_note(m, ANT_IMP_ERROR, e->line, "URL longer than %d bytes; skipped", ANT_MAX_URL);
		return 0;
	}
	if (lb_url_is_http(e->url) || (m->allow_file && !strncmp(e->url, "file:///", 8)))
		return 1;
	ant_imp_note(m, ANT_IMP_ERROR, e->line, "'%s' is not an absolute http or https URL; skipped", e->url);
	return 0;
}

/*
 * A source already here with another kind than the file's (an Atom source
 * that an older export wrote as LIRS, say), or relaying where the file's
 * does not (or the other way), is kept as it is, with a note: the kind
 * decides how its body is read and relay what is published, so changing
 * either is the user's call.
 */
static int entry_kind(const ant_imp_entry *e)
{
	return e->atom ? ANT_STORE_SOURCE_ATOM : e->sitemap ? ANT_STORE_SOURCE_SITEMAP : ANT_STORE_SOURCE_LIRS;
}

static const char *kind_words(int kind)
{
	return kind == ANT_STORE_SOURCE_ATOM ? "an Atom" : kind == ANT_STORE_SOURCE_SITEMAP ? "a sitemap"
											: "a LIRS";
}

static int kind_differs(ant_imp_run *m, const ant_imp_entry *e, const char *key)
{
	const char *k = ant_store_source_kind_name(entry_kind(e));

	ant_store_source *v = NULL;
	size_t n = 0;
	int rc = ant_store_sources_load(m->s, &v, &n, m->err);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (strcmp(v[i].url_key, key) != 0)
			continue;
		if ((v[i].relay != 0) != (e->relay != 0))
			ant_imp_note(m, ANT_IMP_NOTE, e->line, "'%s' is %sa relay source here, %sin the file: kept "
				     "('antenna remove' it and 'add%s' it to change)", v[i].url,
				     v[i].relay ? "" : "not ", v[i].relay ? "not " : "",
				     e->relay ? (e->atom ? " --atom --relay" : " --lirs --relay")
					      : (e->atom ? " --atom" : e->sitemap ? " --sitemap" : " --lirs"));
		if (v[i].kind != entry_kind(e))
			ant_imp_note(m, ANT_IMP_NOTE, e->line, "'%s' is %s source here, %s source in the file: kept "
				     "('antenna remove' it and 'add --%s' it to change)", v[i].url,
				     kind_words(v[i].kind), kind_words(entry_kind(e)), k);
	}
	ant_store_sources_free(v, n);
	return rc;
}

static int add_source(ant_imp_run *m, const ant_imp_entry *e, const char *key)
{
	ant_store_source src;
	int rc;

	ant_store_source_init(&src);
	src.url = (char *)e->url;
	src.url_key = (char *)key;
	src.created = m->o->now;
	src.kind = entry_kind(e);
	src.relay = e->relay && !e->sitemap;   /* a sitemap gives hints, never pages */
	if (e->relay && e->sitemap)
		ant_imp_note(m, ANT_IMP_NOTE, e->line, "'%s' is a sitemap: never a relay source (its dates "
			     "are hints for the pages watched here)", e->url);
	if ((rc = ant_store_source_add(m->s, &src, m->err)) < 0)
		return rc;
	if (rc > 0) {
		m->f.src_same++;
		return kind_differs(m, e, key);
	}
	m->f.src_added++;
	ant_imp_report(m, "%sadd source %s%s%s", ant_imp_would(m), e->url,
		       e->atom ? " (Atom)" : e->sitemap ? " (sitemap)" : "",
		       e->relay ? " (relay)" : "");
	return 0;
}

/* One "; name 'value'" of an added page (newlines shown as spaces). */
static void detail(lb_buf *b, const char *name, const char *v, const char *tail)
{
	if (!*v)
		return;
	lb_buf_addf(b, "; %s '", name);
	for (; *v; v++)
		lb_buf_addc(b, *v == '\n' ? ' ' : *v);
	lb_buf_addf(b, "'%s", tail);
}

/* "add page URL; title '...'; ...": what the page was added with. */
static void report_added(ant_imp_run *m, const ant_imp_entry *e, const ant_store_page *p)
{
	lb_buf b = LB_BUF_INIT;

	lb_buf_addf(&b, "%sadd page %s", ant_imp_would(m), e->url);
	detail(&b, "title", e->title, e->title_by_user ? "" : " (until the page's <title>)");
	detail(&b, "author", e->author, "");
	detail(&b, "group", p->group, "");
	detail(&b, "ignore", e->ignore, "");
	detail(&b, "charset", e->charset, "");
	detail(&b, "only", p->only, "");
	detail(&b, "feed", p->feed_url ? p->feed_url : "", "");
	detail(&b, "check-url", p->check_url ? p->check_url : "", "");
	if (p->no_auto_ignore)
		lb_buf_adds(&b, "; no-auto-ignore");
	detail(&b, "when", p->when, "");
	if (*p->taught)
		lb_buf_adds(&b, "; taught noise");
	if (p->render)
		lb_buf_adds(&b, "; render");
	ant_imp_report(m, "%s", b.data);
	lb_buf_release(&b);
}

/* A page just added: what its sources said of it when they were read
 * (ant_update_recall(), with the database's settings). */
static int recall(ant_imp_run *m, const char *key)
{
	ant_update_opts o;
	ant_store_page p;
	int rc;

	ant_update_opts_init(&o);
	ant_update_config(m->s, &o);
	o.now = m->o->now;
	if ((rc = ant_update_recall(m->s, key, &o, m->err)) <= 0)
		return rc;
	if (ant_store_page_get(m->s, key, &p, m->err) > 0) {
		char when[40];
		time_t t = (time_t)p.st.last_modified;
		struct tm tm;
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		ant_imp_report(m, "  updated %s, as source '%s' said", when, p.source_url);
		ant_store_page_release(&p);
	}
	return 0;
}

static int add_page(ant_imp_run *m, const ant_imp_entry *e, const char *key, const char *group)
{
	ant_store_page p;
	int rc;

	ant_store_page_init(&p);
	p.url = (char *)e->url;
	p.url_key = (char *)key;
	p.title = (char *)e->title;
	p.title_set_by_user = e->title_by_user && *e->title;
	p.author = (char *)e->author;
	p.group = (char *)group;
	p.ignore = (char *)e->ignore;
	p.force_charset = (char *)e->charset;
	p.source_url = (char *)e->url;
	p.created = m->o->now;
	p.imported = m->o->now;
	p.only = (char *)(e->only ? e->only : "");
	p.feed_url = (char *)(e->feed && *e->feed ? e->feed : NULL);
	p.feed_by_user = p.feed_url != NULL;
	p.check_url = (char *)(e->check_url && *e->check_url ? e->check_url : NULL);
	p.no_auto_ignore = e->no_auto_ignore;
	p.when = (char *)(e->when ? e->when : "");
	p.taught = (char *)(e->taught ? e->taught : "");
	p.render = e->render;
	if ((rc = ant_store_page_add(m->s, &p, m->err)) != 0)
		return rc;
	/* where it moved from: an export of a moved page keeps it */
	if (e->moved_from && lb_url_is_http(e->moved_from) &&
	    (rc = ant_store_page_set_moved(m->s, key, e->moved_from, e->moved_at, m->err)) < 0)
		return rc;
	m->f.added++;
	report_added(m, e, &p);
	return recall(m, key);
}

/* A feed or check URL of an entry: usable, or listed and dropped. */
static const char *extra_url(ant_imp_run *m, const ant_imp_entry *e, const char *what, const char *u)
{
	if (!u || !*u)
		return NULL;
	if (strlen(u) > ANT_MAX_URL) {
		ant_imp_note(m, ANT_IMP_ERROR, e->line, "%s of '%s' longer than %d bytes; left out", what, e->url,
			     ANT_MAX_URL);
		return NULL;
	}
	if (lb_url_is_http(u) || (m->allow_file && !strncmp(u, "file:///", 8)))
		return u;
	ant_imp_note(m, ANT_IMP_ERROR, e->line, "%s '%s' of '%s' is not an absolute http or https URL; left out",
		     what, u, e->url);
	return NULL;
}

/* An entry for a page that is here already. */
static int update_page(ant_imp_run *m, ant_store_page *p, const ant_imp_entry *e, const char *group)
{
	lb_buf ch = LB_BUF_INIT;
	unsigned rebase = 0;
	int rc = merge_into(m, p, e, group, &ch, &rebase);

	if (rc == 0)
		m->f.same++;
	if (rc > 0 && (rc = ant_store_page_set_config(m->s, p, m->err)) == 0 && rebase)
		rc = ant_store_page_rebaseline(m->s, p->id, rebase, m->err);
	if (rc == 0 && ch.len) {
		m->f.updated++;
		ant_imp_report(m, "%supdate page %s:%s", ant_imp_would(m), p->url, ch.data);
	}
	lb_buf_release(&ch);
	return rc;
}

/* One entry into the database; 0, or < 0 on a database error. */
static int apply(ant_imp_run *m, const ant_imp_entry *in)
{
	ant_imp_entry ent = *in, *e = &ent;
	const char *group = *e->group ? e->group : m->group ? m->group : "";
	ant_store_page p;
	char *key;
	int rc;

	if (!ant_imp_url_usable(m, e))
		return 0;
	if (e->kind == ANT_IMP_PAGE) {
		e->feed = extra_url(m, e, "feed", e->feed);
		e->check_url = extra_url(m, e, "check URL", e->check_url);
	}
	if (!(key = lb_url_page_key_dup(e->url)))
		return lb_err_code(m->err, LB_ENOMEM);
	if (e->kind == ANT_IMP_SOURCE) {
		rc = add_source(m, e, key);
		free(key);
		return rc;
	}
	rc = ant_store_page_get(m->s, key, &p, m->err);
	if (rc == 0)
		rc = add_page(m, e, key, group);
	else if (rc > 0)
		rc = update_page(m, &p, e, group);
	if (rc >= 0 && e->ignore_robots)   /* the operator's override carried (ant_robots.h) */
		rc = ant_store_robots_ignore_key(m->s, key, m->err);
	ant_store_page_release(&p);
	free(key);
	return rc < 0 ? rc : 0;
}

/* text, or a clipped copy in *own when it is longer than max characters. */
static const char *clipped(const char *text, size_t max, char **own)
{
	size_t n = strlen(text);

	if (lb_utf8_prefix(text, n, max) == n)
		return text;
	*own = ant_clip(text, max);
	return *own ? *own : "";
}

int ant_imp_apply(ant_imp_run *m, const ant_imp_entry *e0)
{
	ant_imp_entry e = *e0;
	char *title = NULL, *author = NULL;
	int rc;

	/* the texts from the file clipped as any text taken in (ant_limits.h) */
	e.title = clipped(e0->title, ANT_MAX_TITLE, &title);
	e.author = clipped(e0->author, ANT_MAX_AUTHOR, &author);
	rc = apply(m, &e);
	free(title);
	free(author);
	return rc;
}

static void fmt_utc(char *b, size_t n, int64_t t)
{
	time_t x = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&x, &tm))
		snprintf(b, n, "%lld", (long long)t);
	else
		strftime(b, n, "%Y-%m-%d %H:%M UTC", &tm);
}

/*
 * The drop rules of merge and the relay (lirs_merge_check_at()): a record
 * with a time from a clock that runs ahead is dropped, not clamped.  A
 * time that is unknown (0) is not checked: the other one stands for it.
 * Staleness is no rule here: an old antenna's times are its history.
 * 1 when the record may be taken.
 */
static int times_usable(ant_imp_run *m, const ant_imp_times *r)
{
	lirs_record rec = { 0 };

	rec.url = (char *)r->url;
	rec.last_modified = r->last_modified > 0 ? r->last_modified : r->last_detected;
	rec.last_detected = r->last_detected > 0 ? r->last_detected : rec.last_modified;
	if (lirs_merge_check_at(&rec, m->o->now, -1, m->skew) != LIRS_MERGE_FUTURE)
		return 1;
	ant_imp_note(m, ANT_IMP_NOTE, r->line, "%s of '%s' is in the future: not taken",
		     lirs_merge_future(r->last_modified, m->o->now, m->skew) ? "Last-Modified" : "Last-Detected",
		     r->url);
	return 0;
}

/* The times of a page that has none as new: its last check, from jsonl. */
static int take_checked(ant_imp_run *m, ant_store_page *p, const ant_imp_times *r)
{
	char when[40];
	int rc;

	if (r->last_modified > 0 || r->last_detected <= p->st.last_detected)
		return 0;
	p->st.last_detected = r->last_detected;
	if ((rc = ant_store_page_save(m->s, p, m->err)) == 0) {
		m->f.timed++;
		fmt_utc(when, sizeof when, r->last_detected);
		ant_imp_report(m, "%supdate page %s: last checked %s", ant_imp_would(m), p->url, when);
	}
	return rc;
}

int ant_imp_take_times(ant_imp_run *m, const ant_imp_times *r, const char *key)
{
	ant_store_page p;
	char when[40];
	int rc;

	/* a LIRS record without a time says nothing; a page in jsonl that
	 * was checked but never seen updated has its last check */
	if (r->last_modified <= 0 && (r->by || r->last_detected <= 0))
		return 0;
	if (!times_usable(m, r))
		return 0;
	if ((rc = ant_store_page_get(m->s, key, &p, m->err)) <= 0)
		return rc;
	if (ant_detect_imported(&p.st, r->last_modified, r->last_detected, r->by)) {
		if (r->source_url && lb_url_is_http(r->source_url) && strlen(r->source_url) <= ANT_MAX_URL)
			rc = set_str(&p.source_url, r->source_url);
		if (rc >= 0)
			rc = ant_store_page_save(m->s, &p, m->err);
		if (rc == 0) {
			m->f.timed++;
			fmt_utc(when, sizeof when, r->last_modified);
			ant_imp_report(m, "%supdate page %s: last modified %s", ant_imp_would(m), p.url, when);
		}
	} else {
		rc = take_checked(m, &p, r);
	}
	ant_store_page_release(&p);
	return rc < 0 ? rc : 0;
}
