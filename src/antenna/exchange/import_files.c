/*
 * import_files.c: ant_import(): each file read whole (at most max_bytes),
 * its format found, parsed (import*.c, or the LIRS reader for an old
 * antenna's LIRS file) and its entries handed to import_apply.c, all in
 * one transaction that a dry run rolls back.  A tama.cfg brings in the
 * files it names.  A file that cannot be read, or a bad entry, is skipped
 * with an error; a database failure stops the import.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ant_import.h"
#include "ant_store.h"
#include "import_run.h"
#include "lirs.h"
#include "lirs_merge.h"
#include "ant_settings.h"
#include "lb_url.h"

static void on_diag(void *ctx, const ant_imp_diag *d)
{
	ant_imp_note_at(ctx, d->severity, d->line, d->col, "%s", d->message);
}

/* An error that is not about a line of a file: the file cannot be read. */
static void read_error(ant_imp_run *m, const char *msg)
{
	const char *file = m->file;

	m->file = NULL;
	ant_imp_note_at(m, ANT_IMP_ERROR, 0, 0, "%s", msg);
	m->file = file;
}

static int on_entry(void *ctx, const ant_imp_entry *e)
{
	ant_imp_run *m = ctx;
	char *key = NULL;
	int rc;

	if ((rc = ant_imp_apply(m, e)) < 0)
		return ant_imp_fail(m, rc), 1;
	/* jsonl: the page's update times, as a LIRS file's */
	if (e->kind == ANT_IMP_PAGE && (e->last_modified > 0 || e->last_detected > 0)) {
		if (!(key = lb_url_page_key_dup(e->url)))
			return ant_imp_fail(m, LB_ENOMEM), 1;
		rc = ant_imp_take_times(m, &(ant_imp_times){ e->url, e->line, e->last_modified,
							     e->last_detected, NULL, NULL }, key);
		free(key);
		if (rc < 0)
			return ant_imp_fail(m, rc), 1;
	}
	return 0;
}

/* ---- LIRS files: pages and their update times ---------------------------------- */

static int on_record(void *ctx, const lirs_record *r)
{
	ant_imp_run *m = ctx;
	ant_imp_entry e = { .kind = ANT_IMP_PAGE, .url = r->url, .title = r->title, .author = r->author,
			    .group = "", .ignore = "", .charset = "", .line = r->line };
	char *key;
	int rc;

	if (!ant_imp_url_usable(m, &e))
		return 0;
	if ((rc = ant_imp_apply(m, &e)) < 0)
		return ant_imp_fail(m, rc), 1;
	if (!(key = lb_url_page_key_dup(r->url)))
		return ant_imp_fail(m, LB_ENOMEM), 1;
	rc = ant_imp_take_times(m, &(ant_imp_times){ r->url, r->line, r->last_modified, r->last_detected,
						     r->source_url, "lirs" }, key);
	free(key);
	if (rc < 0)
		ant_imp_fail(m, rc);
	return rc < 0;
}

static void on_lirs_diag(void *ctx, const lirs_diag *d)
{
	ant_imp_run *m = ctx;
	char msg[LB_ERROR_MSG + 64];

	if (d->severity != LIRS_SEV_ERROR)
		return;
	snprintf(msg, sizeof msg, "%s [%s]%s", d->message, lirs_rule_id(d->rule),
		 d->skipped ? " (record skipped)" : "");
	ant_imp_note_at(m, ANT_IMP_ERROR, d->line, d->col, "%s", msg);
}

static int import_lirs(ant_imp_run *m, const lb_buf *data)
{
	lirs_reader_opts o = { .filename = m->file, .on_record = on_record, .on_diag = on_lirs_diag,
			       .ctx = m };
	lirs_reader *rd = lirs_reader_new(&o);
	int rc;

	if (!rd)
		return ant_imp_fail(m, LB_ENOMEM);
	rc = lirs_reader_feed(rd, data->data, data->len);
	if (rc == 0)
		rc = lirs_reader_finish(rd);
	lirs_reader_free(rd);
	if (m->rc)
		return m->rc;
	if (rc < 0)
		ant_imp_note(m, ANT_IMP_ERROR, 0, "cannot read the LIRS file: %s", lb_strerror(rc));
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

static int import_file(ant_imp_run *m, const char *path, ant_imp_format from);

/* tama.cfg: the files its $site and $remote_cfg_path name. */
typedef struct ant_imp_tfiles {
	char **path, **name;
	int *remote;
	size_t n;
	int any_remote, oom;
} tfiles;

static void on_tama_file(void *ctx, const ant_imp_tama_file *f)
{
	tfiles *t = ((ant_imp_run *)ctx)->tf;
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

static void tfiles_free(tfiles *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->path[i]);
		free(t->name[i]);
	}
	free(t->path);
	free(t->name);
	free(t->remote);
}

/* Without $remote_cfg_path, tama's default remote.cfg beside tama.cfg. */
static void default_remote(ant_imp_run *m, tfiles *t, const char *dir)
{
	char *def;

	if (t->any_remote || t->oom || !t->n || asprintf(&def, "%s/remote.cfg", dir) < 0)
		return;
	if (access(def, R_OK) == 0) {
		ant_imp_note(m, ANT_IMP_NOTE, 0, "no $remote_cfg_path: reading tama's default '%s'", def);
		on_tama_file(m, &(ant_imp_tama_file){ def, "", 1, 0 });
	}
	free(def);
}

/*
 * Each file tama.cfg names, imported in turn: with several $site files,
 * each one's output name is its pages' group (that was how tama kept lists
 * apart).
 */
static int import_tama_cfg(ant_imp_run *m, const lb_buf *utf8)
{
	ant_imp_opts o = { .on_diag = on_diag, .ctx = m };
	tfiles t = { 0 };
	const char *file = m->file, *group = m->group;
	char *dir = strdup(file), *slash;
	size_t nsites = 0;
	int rc = 0;

	if (!dir)
		return ant_imp_fail(m, LB_ENOMEM);
	slash = strrchr(dir, '/');
	if (slash) *slash = '\0'; else strcpy(dir, ".");
	m->tf = &t;
	if (ant_imp_parse_tama_cfg(utf8->data, utf8->len, dir, on_tama_file, &o) < 0)
		m->total_errors++;
	default_remote(m, &t, dir);
	for (size_t i = 0; i < t.n; i++)
		nsites += !t.remote[i];
	ant_imp_report(m, "%s (tama.cfg): %zu site file%s, %d remote file", file, nsites,
		       nsites == 1 ? "" : "s", t.any_remote);
	for (size_t i = 0; i < t.n && rc == 0; i++) {
		m->group = nsites > 1 && *t.name[i] ? t.name[i] : group;
		rc = import_file(m, t.path[i], ANT_IMP_FMT_TAMA);
	}
	m->group = group;
	m->file = file;
	if (t.oom && rc == 0)
		rc = ant_imp_fail(m, LB_ENOMEM);
	tfiles_free(&t);
	free(dir);
	return rc;
}

/* A configuration file: 0 read (the summary follows), 1 a tama.cfg
 * (each file had its summary), < 0 a failure. */
static int import_config(ant_imp_run *m, const lb_buf *raw)
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
		ant_imp_note(m, ANT_IMP_ERROR, 0, "not UTF-8, EUC-JP or Shift_JIS text");
		return 0;
	} else if (m->fmt == ANT_IMP_FMT_SAMIDARE) {
		rc = ant_imp_parse_samidare(utf8.data, utf8.len, &o);
	} else if (m->fmt == ANT_IMP_FMT_JSONL) {
		rc = ant_imp_parse_jsonl(utf8.data, utf8.len, &o);
	} else if (ant_imp_is_tama_cfg(utf8.data, utf8.len)) {
		rc = import_tama_cfg(m, &utf8);
		lb_buf_release(&utf8);
		return rc < 0 ? rc : 1;
	} else {
		rc = ant_imp_parse_tama(utf8.data, utf8.len, &o);
	}
	lb_buf_release(&utf8);
	if (m->rc)
		return m->rc;
	if (rc < 0 && !m->f.errors)
		ant_imp_note(m, ANT_IMP_ERROR, 0, "cannot read the file");
	return 0;
}

static void add_stats(ant_import_stats *t, const ant_import_stats *f)
{
	t->added += f->added;
	t->updated += f->updated;
	t->same += f->same;
	t->src_added += f->src_added;
	t->src_same += f->src_same;
	t->timed += f->timed;
	t->unmapped += f->unmapped;
}

static int import_file(ant_imp_run *m, const char *path, ant_imp_format from)
{
	size_t max = m->o->max_bytes ? m->o->max_bytes : ANT_IMPORT_DEFAULT_MAX_BYTES;
	lb_buf raw = LB_BUF_INIT;
	lb_error rerr = LB_ERROR_INIT;
	int rc = 0;

	m->file = path;
	memset(&m->f, 0, sizeof m->f);
	if (read_all(path, max, &raw, &rerr) < 0) {
		read_error(m, lb_error_msg(&rerr));
		m->total_errors++;
		lb_buf_release(&raw);
		return 0;
	}
	m->fmt = from ? from : ant_imp_detect(raw.data, raw.len);
	if (m->fmt == ANT_IMP_FMT_UNKNOWN)
		ant_imp_note(m, ANT_IMP_ERROR, 0, "cannot tell the format (samidare, tama, opml, lirs or jsonl): use --from");
	else if (m->fmt == ANT_IMP_FMT_LIRS)
		rc = import_lirs(m, &raw);
	else
		rc = import_config(m, &raw);
	lb_buf_release(&raw);
	if (rc == 0 && m->fmt != ANT_IMP_FMT_UNKNOWN) {
		if (m->o->on_file)
			m->o->on_file(m->o->ctx, path, m->fmt, &m->f);
		add_stats(&m->sum, &m->f);
	}
	if (rc > 0)
		return 0;
	m->total_errors += m->f.errors;
	return rc;
}

int ant_import(ant_store *s, const ant_import_opts *o, ant_import_stats *total, lb_error *err)
{
	ant_imp_run m = { .s = s, .o = o, .group = o->group, .err = err, .tmp = LB_BUF_INIT,
			  .msg = LB_BUF_INIT };
	int rc;

	m.allow_file = ant_setting_int(s, ANT_SET_ALLOW_FILE) != 0;
	m.skew = ant_setting_int(s, ANT_SET_MAX_FUTURE);
	/* An update running now would write its older view of the pages back. */
	if ((rc = ant_store_lock(s, ANT_STORE_LOCK_WAIT, err)) < 0 || (rc = ant_store_begin(s, err)) < 0)
		return rc;
	for (size_t i = 0; i < o->nfiles && rc == 0; i++)
		rc = import_file(&m, o->files[i], o->from);
	if (rc < 0 || o->dry_run)
		ant_store_rollback(s);
	else if ((rc = ant_store_commit(s, err)) < 0)
		ant_store_rollback(s);
	if (total) {
		*total = m.sum;
		total->errors = m.total_errors;
	}
	lb_buf_release(&m.tmp);
	lb_buf_release(&m.msg);
	return rc;
}
