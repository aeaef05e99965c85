/*
 * import.c: antenna import FILE...: bring another antenna's watch list in
 * (samidare's config.yml, tama's sites.cfg / remote.cfg, OPML) and its
 * last update times (its LIRS file, e.g. sites.lirs.gz).
 *
 * Each file is read whole (at most --max-bytes), parsed by src/import*.c
 * (or the LIRS reader) into entries, and the entries are applied in one
 * transaction: a page is added when its URL key is new; an existing page
 * only gets what it lacks (a title the operator wrote replaces a <title>,
 * never a title the user set; author, group, charset when empty; ignore
 * patterns added), so importing twice changes nothing.  --dry-run runs the
 * same code and rolls the transaction back.  Settings the antenna has no
 * equivalent for are listed with FILE:LINE; bad entries are skipped with
 * an error naming FILE:LINE.
 *
 * Times (LIRS files): a record's Last-Modified is taken when newer than
 * the page's, with its Last-Detected, marked "lirs", and no Atom event
 * (the old antenna announced it already).  Imported pages carry
 * quiet_first (ant_detect.h): their first check is a baseline, so a migration
 * shows the old times at once and no flood of "updated now".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "antenna.h"
#include "lb_buf.h"
#include "ant_detect.h"
#include "ant_import.h"
#include "lb_url.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "ant_limits.h"
#include "ant_page.h"
#include "lb_utf8.h"

static const char help[] =
	"usage: antenna [-d FILE] import [-n] [--from FORMAT] [--group G] [--now EPOCH]\n"
	"                           [--max-bytes N] FILE...\n\n"
	"Add the pages and sources of another antenna's configuration to this one, and\n"
	"carry over the update times of its LIRS file.  FORMAT is found from the\n"
	"content, or given: samidare (config.yml), tama (sites.cfg or remote.cfg),\n"
	"opml, lirs (the old antenna's sites.lirs.gz), jsonl ('antenna export --format\n"
	"jsonl', with its update times).  Import the configuration first, then the\n"
	"LIRS file.  Importing twice adds nothing.  Settings with no\n"
	"equivalent here are listed as FILE:LINE: unmapped: ...  Exit 0 all read,\n"
	"1 some entries or files were skipped (errors on standard error), 2 usage or\n"
	"database errors.\n\n"
	"  -n, --dry-run     print what would change, change nothing\n"
	"  --from FORMAT     samidare, tama, opml, lirs or jsonl, for every FILE\n"
	"  --group G         the group of imported pages that have none\n"
	"  --now EPOCH       the time of the import (default: the clock)\n"
	"  --max-bytes N     largest FILE read (default 64M; K/M/G suffixes)\n";

struct imp {
	ant_store *s;
	const char *file;
	const char *group;
	int dry, allow_file;
	int64_t now;
	ant_imp_format fmt;
	/* counters of one file */
	unsigned added, updated, same, src_added, src_same, timed, errors, unmapped;
	unsigned total_errors;
	int db_failed;
	lb_error err;
	lb_buf tmp;
	struct tfiles *tf;       /* tama.cfg being read */
};

static const char *would(const struct imp *m) { return m->dry ? "would " : ""; }

static void file_error(struct imp *m, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void file_error(struct imp *m, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	if (line)
		fprintf(stderr, "%s:%lu: error: ", m->file, line);
	else
		fprintf(stderr, "%s: error: ", m->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	m->errors++;
}

static void on_diag(void *ctx, const ant_imp_diag *d)
{
	struct imp *m = ctx;
	FILE *fp = d->severity == ANT_IMP_ERROR ? stderr : stdout;

	fprintf(fp, "%s", m->file);
	if (d->line)
		fprintf(fp, ":%lu", d->line);
	if (d->line && d->col)
		fprintf(fp, ":%lu", d->col);
	fprintf(fp, ": %s: %s\n", d->severity == ANT_IMP_ERROR ? "error" :
		d->severity == ANT_IMP_UNMAPPED ? "unmapped" : "note", d->message);
	if (d->severity == ANT_IMP_ERROR)
		m->errors++;
	else if (d->severity == ANT_IMP_UNMAPPED)
		m->unmapped++;
}

static int set_str(char **dst, const char *v)
{
	char *n = strdup(v);

	if (!n)
		return -1;
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
		return -1;
	return changed;
}

/* What an entry adds to an existing page; the names of the changed fields in ch. */
/* *rebase: the ANT_REBASE_* the changes need (ant_store.h: a changed region
 * is no update of the page). */
static int merge_into(struct imp *m, ant_store_page *p, const ant_imp_entry *e, const char *group, lb_buf *ch,
		      unsigned *rebase)
{
	int r;

	lb_buf_reset(ch);
	if (*e->title && e->title_by_user && !p->title_set_by_user && strcmp(p->title, e->title)) {
		if (set_str(&p->title, e->title) < 0) return -1;
		p->title_set_by_user = 1;
		lb_buf_adds(ch, " title");
	} else if (*e->title && !e->title_by_user && !*p->title) {
		if (set_str(&p->title, e->title) < 0) return -1;
		lb_buf_adds(ch, " title");
	} else if (*e->title && e->title_by_user && p->title_set_by_user && strcmp(p->title, e->title)) {
		printf("%s:%lu: note: title of '%s' kept: '%s' (the file says '%s')\n", m->file,
		       e->line, p->url, p->title, e->title);
	}
	if (*e->author && !*p->author) {
		if (set_str(&p->author, e->author) < 0) return -1;
		lb_buf_adds(ch, " author");
	}
	if (*group && !*p->group) {
		if (set_str(&p->group, group) < 0) return -1;
		lb_buf_adds(ch, " group");
	}
	if ((r = union_ignore(p, e->ignore, &m->tmp)) < 0)
		return -1;
	if (r) {
		lb_buf_adds(ch, " ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (*e->charset && !*p->force_charset) {
		if (set_str(&p->force_charset, e->charset) < 0) return -1;
		lb_buf_adds(ch, " charset");
		*rebase |= ANT_REBASE_TEXT;
	}
	/* the region, the feed, the check URL: when the page has none */
	if (e->only && *e->only && !*p->only) {
		if (set_str(&p->only, e->only) < 0) return -1;
		lb_buf_adds(ch, " only");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (e->feed && *e->feed && !p->feed_by_user) {
		if (!p->feed_url || strcmp(p->feed_url, e->feed))
			*rebase |= ANT_REBASE_FEED;
		if (set_str(&p->feed_url, e->feed) < 0) return -1;
		p->feed_by_user = 1;
		lb_buf_adds(ch, " feed");
	}
	if (e->check_url && *e->check_url && !p->check_url) {
		if (set_str(&p->check_url, e->check_url) < 0) return -1;
		lb_buf_adds(ch, " check-url");
		*rebase |= ANT_REBASE_TEXT;
	}
	if (e->no_auto_ignore && !p->no_auto_ignore) {
		p->no_auto_ignore = 1;
		lb_buf_adds(ch, " no-auto-ignore");
		*rebase |= ANT_REBASE_TEXT;
	}
	return ch->len > 0;
}

static int url_usable(struct imp *m, const ant_imp_entry *e)
{
	if (strlen(e->url) > ANT_MAX_URL) {
		file_error(m, e->line, "URL longer than %d bytes; skipped", ANT_MAX_URL);
		return 0;
	}
	if (lb_url_is_http(e->url) || (m->allow_file && !strncmp(e->url, "file:///", 8)))
		return 1;
	file_error(m, e->line, "'%s' is not an absolute http or https URL; skipped", e->url);
	return 0;
}

/*
 * A source already here with another kind than the file's (an Atom source
 * that an older export wrote as LIRS, say), or relaying where the file's
 * does not (or the other way), is kept as it is, with a note: the kind
 * decides how its body is read and relay what is published, so changing
 * either is the user's call.
 */
static int kind_differs(struct imp *m, const ant_imp_entry *e, const char *key)
{
	ant_store_source *v = NULL;
	size_t n = 0;
	int rc = ant_store_sources_load(m->s, &v, &n, &m->err);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (strcmp(v[i].url_key, key) != 0)
			continue;
		if ((v[i].relay != 0) != (e->relay != 0))
			printf("%s:%lu: note: '%s' is %sa relay source here, %sin the file: kept "
			       "('antenna remove' it and 'add%s' it to change)\n", m->file, e->line, v[i].url,
			       v[i].relay ? "" : "not ", v[i].relay ? "not " : "",
			       e->relay ? (e->atom ? " --atom --relay" : " --lirs --relay")
					: (e->atom ? " --atom" : " --lirs"));
		if ((v[i].kind == ANT_STORE_SOURCE_ATOM) != (e->atom != 0))
			printf("%s:%lu: note: '%s' is %s source here, %s source in the file: kept "
			       "('antenna remove' it and 'add %s' it to change)\n", m->file, e->line, v[i].url,
			       v[i].kind == ANT_STORE_SOURCE_ATOM ? "an Atom" : "a LIRS",
			       e->atom ? "an Atom" : "a LIRS", e->atom ? "--atom" : "--lirs");
	}
	ant_store_sources_free(v, n);
	return rc;
}

static int add_source(struct imp *m, const ant_imp_entry *e, const char *key)
{
	ant_store_source src;
	int rc;

	ant_store_source_init(&src);
	src.url = (char *)e->url;
	src.url_key = (char *)key;
	src.created = m->now;
	src.kind = e->atom ? ANT_STORE_SOURCE_ATOM : ANT_STORE_SOURCE_LIRS;
	src.relay = e->relay;
	rc = ant_store_source_add(m->s, &src, &m->err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		m->src_same++;
		rc = kind_differs(m, e, key);
	} else {
		m->src_added++;
		printf("%sadd source %s%s%s\n", would(m), e->url, e->atom ? " (Atom)" : "",
		       e->relay ? " (relay)" : "");
	}
	return rc < 0 ? -1 : 0;
}

/* One "; name 'value'" of an added page (newlines shown as spaces). */
static void detail(const char *name, const char *v, const char *tail)
{
	if (!*v)
		return;
	printf("; %s '", name);
	for (; *v; v++)
		putchar(*v == '\n' ? ' ' : *v);
	printf("'%s", tail);
}

static int add_page(struct imp *m, const ant_imp_entry *e, const char *key, const char *group)
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
	p.created = m->now;
	p.imported = m->now;
	p.only = (char *)(e->only ? e->only : "");
	p.feed_url = (char *)(e->feed && *e->feed ? e->feed : NULL);
	p.feed_by_user = p.feed_url != NULL;
	p.check_url = (char *)(e->check_url && *e->check_url ? e->check_url : NULL);
	p.no_auto_ignore = e->no_auto_ignore;
	rc = ant_store_page_add(m->s, &p, &m->err);
	if (rc == 0) {
		m->added++;
		printf("%sadd page %s", would(m), e->url);
		detail("title", e->title, e->title_by_user ? "" : " (until the page's <title>)");
		detail("author", e->author, "");
		detail("group", group, "");
		detail("ignore", e->ignore, "");
		detail("charset", e->charset, "");
		detail("only", p.only, "");
		detail("feed", p.feed_url ? p.feed_url : "", "");
		detail("check-url", p.check_url ? p.check_url : "", "");
		if (p.no_auto_ignore)
			printf("; no-auto-ignore");
		putchar('\n');
		/* what the sources said of it when they were read */
		rc = antcmd_recall(m->s, key, m->now, &m->err);
	}
	return rc;
}

/* A feed or check URL of an entry: usable, or listed and dropped. */
static const char *extra_url(struct imp *m, const ant_imp_entry *e, const char *what, const char *u)
{
	if (!u || !*u)
		return NULL;
	if (strlen(u) > ANT_MAX_URL) {
		file_error(m, e->line, "%s of '%s' longer than %d bytes; left out", what, e->url, ANT_MAX_URL);
		return NULL;
	}
	if (lb_url_is_http(u) || (m->allow_file && !strncmp(u, "file:///", 8)))
		return u;
	file_error(m, e->line, "%s '%s' of '%s' is not an absolute http or https URL; left out", what, u, e->url);
	return NULL;
}

/* One entry into the database; 0, or -1 on a database error. */
static int apply(struct imp *m, const ant_imp_entry *in)
{
	ant_imp_entry ent = *in, *e = &ent;
	const char *group = *e->group ? e->group : m->group ? m->group : "";
	ant_store_page p;
	lb_buf ch = LB_BUF_INIT;
	unsigned rebase = 0;
	char *key;
	int rc;

	if (!url_usable(m, e))
		return 0;
	if (e->kind == ANT_IMP_PAGE) {
		e->feed = extra_url(m, e, "feed", e->feed);
		e->check_url = extra_url(m, e, "check URL", e->check_url);
	}
	if (!(key = antcmd_url_key(e->url)))
		return lb_err_code(&m->err, LB_ENOMEM);
	if (e->kind == ANT_IMP_SOURCE) {
		rc = add_source(m, e, key);
		free(key);
		return rc;
	}
	rc = ant_store_page_get(m->s, key, &p, &m->err);
	if (rc == 0)
		rc = add_page(m, e, key, group) < 0 ? -1 : 0;
	else if (rc > 0 && (rc = merge_into(m, &p, e, group, &ch, &rebase)) > 0) {
		rc = ant_store_page_set_config(m->s, &p, &m->err);
		if (rc == 0 && rebase)
			rc = ant_store_page_rebaseline(m->s, p.id, rebase, &m->err);
		if (rc == 0) {
			m->updated++;
			printf("%supdate page %s:%s\n", would(m), p.url, ch.data);
		}
	} else if (rc == 0 || rc > 0) {
		m->same++;
	}
	if (rc > 0)
		rc = 0;
	ant_store_page_release(&p);
	lb_buf_release(&ch);
	free(key);
	return rc;
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

/* apply() with the texts from the file clipped as any text taken in
 * (ant_limits.h). */
static int apply_clipped(struct imp *m, const ant_imp_entry *e0)
{
	ant_imp_entry e = *e0;
	char *title = NULL, *author = NULL;
	int rc;

	e.title = clipped(e0->title, ANT_MAX_TITLE, &title);
	e.author = clipped(e0->author, ANT_MAX_AUTHOR, &author);
	rc = apply(m, &e);
	free(title);
	free(author);
	return rc;
}

/* One record's times (a LIRS record's, or a page's in jsonl). */
typedef struct times {
	const char *url;
	unsigned long line;
	int64_t last_modified, last_detected;
	const char *source_url;  /* who announced it (LIRS), or NULL */
	const char *by;          /* detected_by: "lirs", or NULL (jsonl does not say) */
} times;
static int take_times(struct imp *m, const times *r, const char *key);

static int on_entry(void *ctx, const ant_imp_entry *e)
{
	struct imp *m = ctx;
	char *key = NULL;

	if (apply_clipped(m, e) < 0)
		goto failed;
	/* jsonl: the page's update times, as a LIRS file's */
	if (e->kind == ANT_IMP_PAGE && (e->last_modified > 0 || e->last_detected > 0)) {
		if (!(key = antcmd_url_key(e->url)) ||
		    take_times(m, &(times){ e->url, e->line, e->last_modified, e->last_detected, NULL, NULL },
			       key) < 0)
			goto failed;
		free(key);
	}
	return 0;
failed:
	free(key);
	m->db_failed = 1;
	return 1;
}

/* ---- LIRS files: pages and their update times ---------------------------------- */

static void fmt_utc(char *b, size_t n, int64_t t)
{
	time_t x = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&x, &tm))
		snprintf(b, n, "%lld", (long long)t);
	else
		strftime(b, n, "%Y-%m-%d %H:%M UTC", &tm);
}

/* The record's times, when newer than the page's: no event, no recheck. */
static int take_times(struct imp *m, const times *r, const char *key)
{
	ant_store_page p;
	char when[40];
	int rc;

	int64_t skew = ant_store_config_int(m->s, CFG_MAX_FUTURE, LIRS_DEFAULT_MAX_FUTURE);

	/* a LIRS record without a time says nothing; a page in jsonl that
	 * was checked but never seen updated has its last check */
	if (r->last_modified <= 0 && (r->by || r->last_detected <= 0))
		return 0;
	/* the clock-skew rule of merge and the relay (lirs_merge_check_at) */
	if (r->last_modified > m->now + skew) {
		printf("%s:%lu: note: Last-Modified of '%s' is in the future: not taken\n",
		       m->file, r->line, r->url);
		return 0;
	}
	if ((rc = ant_store_page_get(m->s, key, &p, &m->err)) <= 0)
		return rc;
	if (r->last_modified > p.st.last_modified) {
		p.st.last_modified = r->last_modified;
		if (r->last_detected > p.st.last_detected && r->last_detected <= m->now + skew)
			p.st.last_detected = r->last_detected;
		p.st.detected_by = r->by;
		if (r->source_url && lb_url_is_http(r->source_url) && strlen(r->source_url) <= ANT_MAX_URL &&
		    set_str(&p.source_url, r->source_url) < 0)
			rc = -1;
		else
			rc = ant_store_page_save(m->s, &p, &m->err);
		if (rc == 0) {
			m->timed++;
			fmt_utc(when, sizeof when, r->last_modified);
			printf("%supdate page %s: last modified %s\n", would(m), p.url, when);
		}
	} else if (r->last_modified <= 0 && r->last_detected > p.st.last_detected &&
		   r->last_detected <= m->now + skew) {
		p.st.last_detected = r->last_detected;
		if ((rc = ant_store_page_save(m->s, &p, &m->err)) == 0) {
			m->timed++;
			fmt_utc(when, sizeof when, r->last_detected);
			printf("%supdate page %s: last checked %s\n", would(m), p.url, when);
		}
	}
	ant_store_page_release(&p);
	return rc < 0 ? -1 : 0;
}

static int on_record(void *ctx, const lirs_record *r)
{
	struct imp *m = ctx;
	ant_imp_entry e = { .kind = ANT_IMP_PAGE, .url = r->url, .title = r->title, .author = r->author,
			.group = "", .ignore = "", .charset = "", .line = r->line };
	char *key;
	int rc;

	if (!url_usable(m, &e))
		return 0;
	if (apply_clipped(m, &e) < 0 || !(key = antcmd_url_key(r->url))) {
		m->db_failed = 1;
		return 1;
	}
	rc = take_times(m, &(times){ r->url, r->line, r->last_modified, r->last_detected, r->source_url,
				     "lirs" }, key);
	free(key);
	if (rc < 0)
		m->db_failed = 1;
	return rc < 0;
}

static void on_lirs_diag(void *ctx, const lirs_diag *d)
{
	struct imp *m = ctx;

	if (d->severity != LIRS_SEV_ERROR)
		return;
	fprintf(stderr, "%s:%lu:%lu: error: %s [%s]%s\n", m->file, d->line, d->col, d->message,
		lirs_rule_id(d->rule), d->skipped ? " (record skipped)" : "");
	m->errors++;
}

static int import_lirs(struct imp *m, const lb_buf *data)
{
	lirs_reader_opts o = { .filename = m->file, .on_record = on_record, .on_diag = on_lirs_diag,
			       .ctx = m };
	lirs_reader *rd = lirs_reader_new(&o);
	int rc;

	if (!rd)
		return lb_err_code(&m->err, LB_ENOMEM);
	rc = lirs_reader_feed(rd, data->data, data->len);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	lirs_reader_free(rd);
	if (m->db_failed)
		return -1;
	if (rc < 0)
		file_error(m, 0, "cannot read the LIRS file: %s", lirs_strerror(rc));
	return 0;
}

/* ---- files --------------------------------------------------------------------- */

static int read_all(const char *path, size_t max, lb_buf *out, lb_error *err)
{
	FILE *fp = fopen(path, "rb");
	char b[65536];
	size_t n;

	lb_buf_reset(out);
	if (!fp)
		return lb_err_sys(err, "cannot open '%s'", path);
	while ((n = fread(b, 1, sizeof b, fp)) > 0) {
		if (out->len + n > max) {
			fclose(fp);
			return lb_err(err, LB_ETOOBIG, "'%s' is larger than %zu bytes (--max-bytes)", path, max);
		}
		if (lb_buf_add(out, b, n) < 0) {
			fclose(fp);
			return lb_err_code(err, LB_ENOMEM);
		}
	}
	if (ferror(fp)) {
		int rc = lb_err_sys(err, "cannot read '%s'", path);

		fclose(fp);
		return rc;
	}
	fclose(fp);
	return 0;
}

/* tama's "Charset:" header line says how a version 1 file is written. */
static const char *tama_charset(const lb_buf *raw, char *b, size_t n)
{
	const char *p = raw->data, *end = raw->data + raw->len;

	for (int line = 0; p < end && line < 8; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (e - p > 8 && !strncasecmp(p, "charset:", 8)) {
			const char *v = p + 8;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' '))
				e--;
			snprintf(b, n, "%.*s", (int)(e - v), v);
			return b;
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

static int import_file(struct imp *m, const char *path, ant_imp_format from, size_t max);

/* tama.cfg: the files its $site and $remote_cfg_path name. */
typedef struct tfiles {
	char **path, **name;
	int *remote;
	size_t n;
	int any_remote, oom;
} tfiles;

static void on_tama_file(void *ctx, const ant_imp_tama_file *f)
{
	tfiles *t = ((struct imp *)ctx)->tf;
	char **np = realloc(t->path, (t->n + 1) * sizeof *np), **nn;
	int *nr;

	if (np) t->path = np;
	nn = np ? realloc(t->name, (t->n + 1) * sizeof *nn) : NULL;
	if (nn) t->name = nn;
	nr = nn ? realloc(t->remote, (t->n + 1) * sizeof *nr) : NULL;
	if (nr) t->remote = nr;
	if (!nr) {
		t->oom = 1;
		return;
	}
	t->path[t->n] = strdup(f->path);
	t->name[t->n] = strdup(f->name);
	if (!t->path[t->n] || !t->name[t->n]) {
		free(t->path[t->n]);
		free(t->name[t->n]);
		t->oom = 1;
		return;
	}
	t->remote[t->n++] = f->remote;
	t->any_remote |= f->remote;
}

/*
 * Each file tama.cfg names, imported in turn: with several $site files,
 * each one's output name is its pages' group (that was how tama kept lists
 * apart).  Without $remote_cfg_path, tama's default remote.cfg beside it.
 */
static int import_tama_cfg(struct imp *m, const lb_buf *utf8, size_t max)
{
	ant_imp_opts o = { .on_diag = on_diag, .ctx = m };
	tfiles t = { 0 };
	const char *file = m->file, *group = m->group;
	char *dir = strdup(file), *slash;
	size_t nsites = 0;
	int rc = 0;

	if (!dir)
		return lb_err_code(&m->err, LB_ENOMEM);
	slash = strrchr(dir, '/');
	if (slash) *slash = '\0'; else strcpy(dir, ".");
	m->tf = &t;
	if (ant_imp_parse_tama_cfg(utf8->data, utf8->len, dir, on_tama_file, &o) < 0)
		m->total_errors++;
	if (!t.any_remote && !t.oom && t.n) {
		char *def;
		if (asprintf(&def, "%s/remote.cfg", dir) >= 0) {
			if (access(def, R_OK) == 0) {
				printf("%s: note: no $remote_cfg_path: reading tama's default '%s'\n", file, def);
				on_tama_file(m, &(ant_imp_tama_file){ def, "", 1, 0 });
			}
			free(def);
		}
	}
	for (size_t i = 0; i < t.n; i++)
		nsites += !t.remote[i];
	printf("%s (tama.cfg): %zu site file%s, %d remote file\n", file, nsites, nsites == 1 ? "" : "s",
	       t.any_remote);
	for (size_t i = 0; i < t.n && rc == 0; i++) {
		m->group = nsites > 1 && *t.name[i] ? t.name[i] : group;
		rc = import_file(m, t.path[i], ANT_IMP_FMT_TAMA, max);
	}
	m->group = group;
	m->file = file;
	for (size_t i = 0; i < t.n; i++) {
		free(t.path[i]);
		free(t.name[i]);
	}
	free(t.path); free(t.name); free(t.remote); free(dir);
	if (t.oom)
		return lb_err_code(&m->err, LB_ENOMEM);
	return rc;
}

static int import_config(struct imp *m, const lb_buf *raw, size_t max)
{
	ant_imp_opts o = { .on_entry = on_entry, .on_diag = on_diag, .ctx = m, .name_hint = m->file };
	lb_buf utf8 = LB_BUF_INIT;
	char hb[32];
	const char *hint = m->fmt == ANT_IMP_FMT_TAMA ? tama_charset(raw, hb, sizeof hb) : NULL;
	int rc = 0;

	if (m->fmt == ANT_IMP_FMT_OPML) {
		/* XML says its own encoding. */
		rc = ant_imp_parse_opml(raw->data, raw->len, &o);
	} else if (!ant_imp_to_utf8(raw->data, raw->len, hint, &utf8)) {
		file_error(m, 0, "not UTF-8, EUC-JP or Shift_JIS text");
		return 0;
	} else if (m->fmt == ANT_IMP_FMT_SAMIDARE) {
		rc = ant_imp_parse_samidare(utf8.data, utf8.len, &o);
	} else if (m->fmt == ANT_IMP_FMT_JSONL) {
		rc = ant_imp_parse_jsonl(utf8.data, utf8.len, &o);
	} else if (ant_imp_is_tama_cfg(utf8.data, utf8.len)) {
		rc = import_tama_cfg(m, &utf8, max);
		lb_buf_release(&utf8);
		return rc < 0 ? -1 : 1;     /* each file had its summary */
	} else {
		rc = ant_imp_parse_tama(utf8.data, utf8.len, &o);
	}
	lb_buf_release(&utf8);
	if (m->db_failed)
		return -1;
	if (rc < 0 && !m->errors)
		file_error(m, 0, "cannot read the file");
	return 0;
}

static void summary(const struct imp *m)
{
	printf("%s (%s): %s%u page%s added, %u updated, %u unchanged; %u source%s added, %u already there",
	       m->file, ant_imp_format_name(m->fmt), m->dry ? "dry run: " : "", m->added,
	       m->added == 1 ? "" : "s", m->updated, m->same, m->src_added,
	       m->src_added == 1 ? "" : "s", m->src_same);
	if (m->fmt == ANT_IMP_FMT_LIRS || m->fmt == ANT_IMP_FMT_JSONL)
		printf("; %u update time%s taken", m->timed, m->timed == 1 ? "" : "s");
	printf("; %u unmapped, %u error%s\n", m->unmapped, m->errors, m->errors == 1 ? "" : "s");
}

static int import_file(struct imp *m, const char *path, ant_imp_format from, size_t max)
{
	lb_buf raw = LB_BUF_INIT;
	int rc = 0;

	m->file = path;
	m->added = m->updated = m->same = m->src_added = m->src_same = 0;
	m->timed = m->errors = m->unmapped = 0;
	if (read_all(path, max, &raw, &m->err) < 0) {
		cli_error("%s", lb_error_msg(&m->err));
		m->total_errors++;
		lb_buf_release(&raw);
		return 0;
	}
	m->fmt = from ? from : ant_imp_detect(raw.data, raw.len);
	if (m->fmt == ANT_IMP_FMT_UNKNOWN) {
		file_error(m, 0, "cannot tell the format (samidare, tama, opml, lirs or jsonl): use --from");
	} else if (m->fmt == ANT_IMP_FMT_LIRS) {
		rc = import_lirs(m, &raw);
	} else {
		rc = import_config(m, &raw, max);
	}
	lb_buf_release(&raw);
	if (rc == 0 && m->fmt != ANT_IMP_FMT_UNKNOWN)
		summary(m);
	if (rc > 0)
		rc = 0;
	else
		m->total_errors += m->errors;
	return rc;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "group", required_argument, NULL, 'g' },
		{ "now", required_argument, NULL, 'N' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct imp m = { .tmp = LB_BUF_INIT };
	ant_imp_format from = ANT_IMP_FMT_UNKNOWN;
	size_t max = ANT_IMPORT_DEFAULT_MAX_BYTES;
	int64_t now = 0;
	int c, rc = 0;

	while ((c = cli_getopt(argc, argv, "hn", opts, help)) != -1) {
		switch (c) {
		case 'h': return cli_help(help);
		case 'n': m.dry = 1; break;
		case 'g': m.group = optarg; break;
		case 'f':
			if (!(from = ant_imp_format_from_name(optarg)))
				return cli_usage_error(help, "--from: '%s' is not samidare, tama, opml, lirs or jsonl", optarg);
			break;
		case 'N':
			if (cli_parse_int64("--now", optarg, 1, INT64_MAX / 2, &now) < 0)
				return CLI_FATAL;
			break;
		case 'B':
			if (cli_parse_size("--max-bytes", optarg, &max) < 0)
				return CLI_FATAL;
			break;
		default: return CLI_FATAL;
		}
	}
	if (optind >= argc)
		return cli_usage_error(help, "a FILE to import is needed");
	if (m.group && strchr(m.group, '\n'))
		return cli_usage_error(help, "--group: a group cannot contain a newline");
	/* Lines in the order they happen, errors (stderr) among them. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!(m.s = antcmd_open(ANT_STORE_OPEN_EXISTING)))
		return CLI_FATAL;
	m.now = antcmd_now(now);
	m.allow_file = ant_store_config_int(m.s, CFG_ALLOW_FILE, 0) != 0;
	/* An update running now would write its older view of the pages back. */
	if (ant_store_lock(m.s, ANT_STORE_LOCK_WAIT, &m.err) < 0 ||
	    ant_store_begin(m.s, &m.err) < 0) {
		cli_error("%s", lb_error_msg(&m.err));
		ant_store_close(m.s);
		return CLI_FATAL;
	}
	for (int i = optind; i < argc && rc == 0; i++)
		rc = import_file(&m, argv[i], from, max);
	if (rc < 0 || m.dry) {
		ant_store_rollback(m.s);
	} else if (ant_store_commit(m.s, &m.err) < 0) {
		ant_store_rollback(m.s);
		rc = -1;
	}
	if (rc < 0)
		cli_error("%s", lb_error_msg(&m.err));
	ant_store_close(m.s);
	lb_buf_release(&m.tmp);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error("cannot write to standard output"), CLI_FATAL;
	return rc < 0 ? CLI_FATAL : m.total_errors ? ANTCMD_NOTFOUND : CLI_OK;
}
