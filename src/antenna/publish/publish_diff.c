/*
 * publish_diff.c: the diff pages of a published site (ant_pubdiff.h):
 * each listed update found in a page's text as DIR/diff/NAME.html, the
 * stale ones removed.  Every text from outside (titles, URLs, the page's
 * lines) goes through the one HTML escaper (html.h).
 */
#include "ant_pubdiff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb_afile.h"
#include "lb_url.h"
#include "atom_evstore.h"
#include "ant_diff.h"
#include "ant_difftext.h"
#include "html.h"
#include "publish_int.h"

/* The words of a diff page, one table per language (publish.c's languages). */
static const struct diff_words {
	const char *lang, *link, *heading, *summary, *too_many, *gap, *back, *updated;
} diff_words_tab[] = {
	{ "ja", "差分", "差分", "%zu 行削除、%zu 行追加", "変更が多すぎて表示できません。",
	  "(変わらない行を省略)", "アンテナに戻る", "更新時刻" },
	{ "en", "diff", "What changed", "%zu lines removed, %zu added", "Too many changes to show.",
	  "(unchanged lines left out)", "Back to the antenna", "Updated" },
};

static const struct diff_words *words_of(const char *lang)
{
	for (size_t i = 0; lang && i < sizeof diff_words_tab / sizeof *diff_words_tab; i++)
		if (strcmp(lang, diff_words_tab[i].lang) == 0)
			return &diff_words_tab[i];
	return &diff_words_tab[0];
}

const char *ant_pub_diff_word(const char *lang)
{
	return words_of(lang)->link;
}

/* Wide lines wrap anywhere (a 360 px phone never scrolls sideways);
 * removed and added lines are marked by colour and by "-"/"+"; dark
 * when the reader's system is (prefers-color-scheme, as index.html). */
static const char style[] =
	"body{font-family:sans-serif;line-height:1.5;margin:0 auto;max-width:50em;padding:0 .6em}\n"
	"h1{font-size:1.2em;overflow-wrap:anywhere}\n"
	"p{overflow-wrap:anywhere}\n"
	".diff{margin:1em 0;border:1px solid #ccc}\n"
	".diff p{margin:0;padding:.1em .4em .1em 1.4em;text-indent:-1em;white-space:pre-wrap;"
	"overflow-wrap:anywhere;word-break:break-word}\n"
	".diff p::before{display:inline-block;width:1em;text-indent:0}\n"
	".diff .del{background:#fee}.diff .del::before{content:\"-\"}\n"
	".diff .add{background:#efe}.diff .add::before{content:\"+\"}\n"
	".diff .ctx::before{content:\" \"}\n"
	".diff .gap{color:#777;background:#f4f4f4}\n"
	"del{background:#fbb}ins{background:#bfb;text-decoration:none}\n"
	/* dark mode as index.html's: the browser's dark colours, darker marks */
	":root{color-scheme:light dark}\n"
	"@media (prefers-color-scheme:dark){body{color:#ddd;background:#181818}a{color:#8ab4f8}"
	".diff{border-color:#333}.diff .del{background:#3a1d1d}.diff .add{background:#1d3a1d}"
	".diff .gap{color:#999;background:#222}del{background:#6b2a2a;color:inherit}"
	"ins{background:#2a5a2a;color:inherit}}\n";

struct diff_page {
	FILE *fp;
	const struct diff_words *w;
};

static void put_esc(FILE *fp, const char *s, size_t n)
{
	lb_buf b = LB_BUF_INIT;

	if (ant_html_escape(&b, s, n) == 0)
		fwrite(b.data, 1, b.len, fp);
	else
		fputs("\xef\xbf\xbd", fp);   /* out of memory: a replacement mark, never raw */
	lb_buf_release(&b);
}

/* One shown line (ant_diff_show_fn) as a paragraph. */
static int put_line(void *ctx, int op, const ant_diff_word *w, size_t n)
{
	struct diff_page *d = ctx;
	const char *cls = op == ANT_DIFF_DEL ? "del" : op == ANT_DIFF_ADD ? "add" : op == ANT_DIFF_GAP ? "gap" : "ctx";
	int whole = n == 1 && w[0].op == ANT_DIFF_SAME && op != ANT_DIFF_SAME;

	fprintf(d->fp, "<p class=\"%s\">", cls);
	if (op == ANT_DIFF_GAP)
		fputs(d->w->gap, d->fp);
	if (whole)   /* a line removed or added whole */
		fputs(op == ANT_DIFF_DEL ? "<del>" : "<ins>", d->fp);
	for (size_t i = 0; i < n; i++) {
		const char *tag = w[i].op == ANT_DIFF_DEL ? "del" : w[i].op == ANT_DIFF_ADD ? "ins" : NULL;

		if (tag)
			fprintf(d->fp, "<%s>", tag);
		put_esc(d->fp, w[i].s, w[i].len);
		if (tag)
			fprintf(d->fp, "</%s>", tag);
	}
	if (whole)
		fputs(op == ANT_DIFF_DEL ? "</del>" : "</ins>", d->fp);
	return fputs("</p>\n", d->fp) < 0 ? LB_EIO : 0;
}

static void put_head(FILE *fp, const ant_pub_site *site, const struct diff_words *w, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"", fp);
	ant_html_fputs(fp, w->lang);
	fputs("\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"robots\" content=\"noindex\">\n<title>", fp);
	ant_html_fputs(fp, w->heading);
	fputs(": ", fp);
	ant_html_fputs(fp, title);
	fputs(" - ", fp);
	ant_html_fputs(fp, ant_pub_str_or(site->title, ""));
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

/* The page for row r, its diff d, into fp. */
static int write_page(FILE *fp, const ant_pub_site *site, const ant_store_diffrow *r, const ant_diff *d)
{
	struct diff_page dp = { fp, words_of(site->lang) };
	const char *title = *r->title ? r->title : r->url;
	char when[32];
	int rc;

	put_head(fp, site, dp.w, title);
	fputs("<p><a href=\"../index.html\">", fp);
	ant_html_fputs(fp, dp.w->back);
	fputs("</a></p>\n<h1>", fp);
	ant_html_fputs(fp, dp.w->heading);
	fputs(": ", fp);
	if (lb_url_is_http(r->url)) {
		fputs("<a href=\"", fp);
		ant_html_fputs(fp, r->url);
		fputs("\">", fp);
		ant_html_fputs(fp, title);
		fputs("</a>", fp);
	} else {
		ant_html_fputs(fp, title);
	}
	ant_pub_format_time(when, sizeof when, r->diff_time, site->display_tz);
	fputs("</h1>\n<p>", fp);
	ant_html_fputs(fp, dp.w->updated);
	fputs(" ", fp);
	ant_html_fputs(fp, when);
	fputs(" · ", fp);
	if (d->too_many)
		ant_html_fputs(fp, dp.w->too_many);
	else
		fprintf(fp, dp.w->summary, d->removed, d->added);
	fputs("</p>\n<div class=\"diff\">\n", fp);
	rc = ant_diff_show(d, ANT_DIFF_MAX_CELLS, put_line, &dp);
	fputs("</div>\n</body>\n</html>\n", fp);
	return rc;
}

/* "HHHHHHHHHHHHHHHH-T.html": the name of a diff page. */
static void page_name(char *b, size_t n, int64_t key_hash, int64_t t)
{
	snprintf(b, n, "%016" PRIx64 "-%" PRId64 ".html", (uint64_t)key_hash, t);
}

/* Diff pages closed unrenamed, then made durable by one syncfs() and
 * renamed together: one fsync per page made a first publish of 50,000
 * of them take minutes. */
#define DIFF_SYNC_BATCH 512

/* Updates (their pages' key hashes and times): a set open addressed, as
 * big as the listing, never as the site. */
struct listed {
	int64_t *h, *t;           /* t == 0: a free slot (an update's time is > 0) */
	size_t cap, n;
};

static size_t slot_of(const struct listed *l, int64_t h, int64_t t)
{
	uint64_t x = (uint64_t)h ^ ((uint64_t)t * 0x9e3779b97f4a7c15u);

	x ^= x >> 31;
	return (size_t)(x * 0xbf58476d1ce4e5b9u >> 17) & (l->cap - 1);
}

static int listed_has(const struct listed *l, int64_t h, int64_t t)
{
	for (size_t i = l->cap ? slot_of(l, h, t) : 0; l->cap && l->t[i]; i = (i + 1) & (l->cap - 1))
		if (l->h[i] == h && l->t[i] == t)
			return 1;
	return 0;
}

/* 1 added, 0 there already, LB_ENOMEM. */
static int listed_add(struct listed *l, int64_t h, int64_t t)
{
	size_t i;

	if (listed_has(l, h, t))
		return 0;
	if ((l->n + 1) * 2 > l->cap) {   /* at most half full: doubled, entries moved */
		struct listed g = { 0 };

		g.cap = l->cap ? l->cap * 2 : 1024;
		g.h = malloc(g.cap * sizeof *g.h);
		g.t = calloc(g.cap, sizeof *g.t);
		if (!g.h || !g.t) {
			free(g.h);
			free(g.t);
			return LB_ENOMEM;
		}
		for (size_t k = 0; k < l->cap; k++)
			if (l->t[k])
				listed_add(&g, l->h[k], l->t[k]);
		free(l->h);
		free(l->t);
		*l = g;
	}
	for (i = slot_of(l, h, t); l->t[i]; i = (i + 1) & (l->cap - 1))
		;
	l->h[i] = h;
	l->t[i] = t;
	l->n++;
	return 1;
}

/* The updates the site lists (seen: looked up once, in both lists) and
 * those of them with a page in DIR/diff (pages: the links). */
struct ant_pub_diffset {
	struct listed seen, pages;
};

void ant_pub_diffset_free(ant_pub_diffset *set)
{
	if (!set)
		return;
	free(set->seen.h);
	free(set->seen.t);
	free(set->pages.h);
	free(set->pages.t);
	free(set);
}

/* The listed updates with no page yet: their URL keys (NUL ended, one
 * after another in keys) and times, written after the walk, when the
 * stale pages are known (publish_diff.c's recycling). */
struct todo {
	lb_buf keys;
	size_t *at;
	int64_t *t;
	size_t n, cap;
};

struct pass {
	ant_store *s;
	const char *dir;          /* DIR/diff */
	struct listed have;       /* the pages DIR/diff held before */
	int64_t *stale_h, *stale_t;   /* of them, the updates no longer listed */
	size_t nstale;
	struct todo todo;
	lb_afile pend[DIFF_SYNC_BATCH];
	size_t npend;
	const ant_pub_site *site;
	ant_pub_diff_counts *counts;
	ant_pub_diffset *set;
	size_t max;               /* --diff-text-max: a pending diff is made within it */
	lb_buf raw, path;
	lb_error *err;
};

/* The pages waiting: one syncfs(), their renames, the directory's fsync.
 * A crash before leaves only temporary files (removed at the next publish). */
static int flush_pending(struct pass *p)
{
	int rc = 0;

	if (!p->npend)
		return 0;
	if (lb_afile_syncdir(p->dir) != 0)
		rc = lb_err_sys(p->err, "cannot sync '%s'", p->dir);
	for (size_t i = 0; i < p->npend; i++) {
		if (rc < 0)
			lb_afile_abort(&p->pend[i]);
		else if (lb_afile_rename(&p->pend[i]) != 0)
			rc = lb_err_sys(p->err, "cannot write '%s'", p->pend[i].path);
		else
			p->counts->written++;
	}
	p->npend = 0;
	if (rc == 0 && lb_afile_fsyncdir(p->dir) != 0)
		rc = lb_err_sys(p->err, "cannot sync '%s'", p->dir);
	return rc;
}

/* A stale page's file (an update no longer listed) opened as the
 * temporary file of the page name: renamed, then written over in place
 * and cut to its new end (cut_to_end()).  Its inode and block are
 * reused, where unlinking it and creating another frees and allocates a
 * block (a discard on a disk mounted so: one synchronous round trip per
 * page, which made publishing 10,000 new updates wait seconds on a busy
 * machine).  A crash leaves it as a temporary file, removed by the next
 * publish.  0, or 1 when there is none (or it is gone). */
static int open_stale(struct pass *p, lb_afile *f, const char *path)
{
	char old[64];
	struct stat sb;
	int fd;
	mode_t um;

	while (p->nstale) {
		p->nstale--;
		page_name(old, sizeof old, p->stale_h[p->nstale], p->stale_t[p->nstale]);
		lb_buf_reset(&p->path);
		memset(f, 0, sizeof *f);
		if (lb_buf_addf(&p->path, "%s/%s", p->dir, old) < 0 || !(f->path = strdup(path)) ||
		    !(f->tmp = malloc(strlen(path) + sizeof ".tmp.reuse"))) {
			free(f->path);
			return LB_ENOMEM;
		}
		strcpy(f->tmp, path);
		strcat(f->tmp, ".tmp.reuse");   /* a page name is written once a publish */
		if (rename(p->path.data, f->tmp) != 0) {
			free(f->path);
			free(f->tmp);
			continue;   /* gone: another one */
		}
		p->counts->removed++;   /* its update's page is gone, as pruning counts it */
		/* a file linked elsewhere too (a backup made with cp -al or
		 * rsync --link-dest) is never written over: unlinked (its
		 * blocks stay, no discard); nor another user's */
		if ((fd = open(f->tmp, O_WRONLY | O_CLOEXEC)) < 0 || fstat(fd, &sb) != 0 || sb.st_nlink != 1 ||
		    sb.st_uid != geteuid() || !(f->fp = fdopen(fd, "wb"))) {
			if (fd >= 0)
				close(fd);
			unlink(f->tmp);
			free(f->path);
			free(f->tmp);
			continue;
		}
		/* as lb_afile_open() makes a new one: 0644 less the umask */
		um = umask(0);
		umask(um);
		fchmod(fd, 0644 & ~um);
		setvbuf(f->fp, NULL, _IOFBF, 1 << 16);
		return 0;
	}
	memset(f, 0, sizeof *f);
	return 1;
}

/* The output for page name: a stale page's file when there is one, else
 * a new temporary file (ant_pub_open_out()). */
static int open_page(struct pass *p, lb_afile *f, const char *name, char **path, int *reused)
{
	int rc;

	lb_buf_reset(&p->path);
	if (lb_buf_addf(&p->path, "%s/%s", p->dir, name) < 0 || !(*path = strdup(p->path.data)))
		return lb_err_code(p->err, LB_ENOMEM);
	if ((rc = open_stale(p, f, *path)) <= 0) {
		*reused = rc == 0;
		return rc < 0 ? lb_err_code(p->err, rc) : 0;
	}
	free(*path);
	return ant_pub_open_out(f, p->dir, name, path, p->err);
}

/* A reused file is longer than its new text maybe: cut at the end written. */
static int cut_to_end(lb_afile *f, int reused)
{
	off_t end;

	if (!reused)
		return 0;
	if (fflush(f->fp) != 0 || (end = ftello(f->fp)) < 0 || ftruncate(fileno(f->fp), end) != 0)
		return LB_EIO;
	return 0;
}

/* ant_store_diff_fn: the row's page written (it is missing). */
static int write_diff(void *ctx, const ant_store_diffrow *r)
{
	struct pass *p = ctx;
	char name[64], *path = NULL;
	ant_diff d;
	lb_afile f;
	int rc, reused = 0;

	page_name(name, sizeof name, r->key_hash, r->diff_time);
	if (ant_difftext_read_kept(r->diff, r->diff_len, r->text, r->text_len, p->max, &p->raw, &d) < 0)
		return 0;   /* an unreadable row costs its page, not the publish */
	if (!d.n && !d.too_many) {   /* a pending diff: nothing shown changed */
		ant_diff_release(&d);
		return 0;
	}
	if ((rc = open_page(p, &f, name, &path, &reused)) == 0) {
		rc = write_page(f.fp, p->site, r, &d);
		if (rc == 0)
			rc = cut_to_end(&f, reused);
		if (rc == LB_ENOMEM) {
			lb_afile_abort(&f);
			rc = lb_err_code(p->err, rc);
		} else if (rc < 0 || lb_afile_close_unrenamed(&f) != 0) {
			lb_afile_abort(&f);   /* a failed close has released f already */
			rc = lb_err_sys(p->err, "cannot write '%s'", path);
		} else if ((rc = listed_add(&p->set->pages, r->key_hash, r->diff_time)) < 0) {
			lb_afile_abort(&f);
			rc = lb_err_code(p->err, rc);
		} else {
			p->pend[p->npend++] = f;
			p->counts->listed++;
			rc = 0;
		}
	}
	free(path);
	ant_diff_release(&d);
	if (rc == 0 && p->npend == DIFF_SYNC_BATCH)
		rc = flush_pending(p);
	return rc;
}

/* 1 when name is a diff page's (or its temporary file's) name; its key
 * hash and time then in *h and *t (a temporary file: *t = -1). */
static int parse_name(const char *name, int64_t *h, int64_t *t)
{
	uint64_t x = 0;
	int64_t v = 0;
	size_t i;

	for (i = 0; i < 16; i++) {
		char c = name[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return 0;
		x = x << 4 | (uint64_t)d;
	}
	if (name[i++] != '-' || name[i] < '0' || name[i] > '9')
		return 0;
	for (; name[i] >= '0' && name[i] <= '9'; i++)
		v = v * 10 + (name[i] - '0');
	if (strncmp(name + i, ".html", 5) != 0)
		return 0;
	*h = (int64_t)x;
	*t = name[i + 5] == '\0' ? v : strncmp(name + i + 5, ".tmp.", 5) == 0 ? -1 : -2;
	return *t != -2;
}

/* ant_store_pub_fn: a listed row (index.html's files or current.atom):
 * its update's diff page kept when DIR/diff has it, else its URL key and
 * time kept for write_missing().  Only a watched page's own update has
 * one (ant_pub_diff_href()). */
static int each_listed(void *ctx, const ant_store_pubrow *r)
{
	struct pass *p = ctx;
	struct todo *td = &p->todo;
	int64_t h;
	int rc;

	if (r->relayed || !r->detected_by || !strcmp(r->detected_by, "lirs") ||
	    !strcmp(r->detected_by, "atom") || r->last_modified <= 0)
		return 0;
	h = (int64_t)ant_page_hash64(r->url_key, strlen(r->url_key));
	if ((rc = listed_add(&p->set->seen, h, r->last_modified)) <= 0)
		return rc < 0 ? lb_err_code(p->err, rc) : 0;   /* in both lists: seen */
	if (listed_has(&p->have, h, r->last_modified)) {   /* written by an earlier publish: its name says which update */
		p->counts->listed++;
		return listed_add(&p->set->pages, h, r->last_modified) < 0 ? lb_err_code(p->err, LB_ENOMEM) : 0;
	}
	if (td->n == td->cap) {
		size_t cap = td->cap ? td->cap * 2 : 256;
		size_t *at = realloc(td->at, cap * sizeof *at);
		int64_t *t;

		if (at)
			td->at = at;
		if (!at || !(t = realloc(td->t, cap * sizeof *t)))
			return lb_err_code(p->err, LB_ENOMEM);
		td->t = t;
		td->cap = cap;
	}
	td->at[td->n] = td->keys.len;
	td->t[td->n] = r->last_modified;
	if (lb_buf_add(&td->keys, r->url_key, strlen(r->url_key) + 1) < 0)
		return lb_err_code(p->err, LB_ENOMEM);
	td->n++;
	return 0;
}

/* The pages DIR/diff holds (final names only) into p->have. */
static int scan_have(struct pass *p)
{
	DIR *dd = opendir(p->dir);
	struct dirent *e;
	int64_t h, t;
	int rc = 0;

	while (dd && rc >= 0 && (e = readdir(dd)) != NULL)
		if (parse_name(e->d_name, &h, &t) && t > 0)
			rc = listed_add(&p->have, h, t);
	if (dd)
		closedir(dd);
	return rc < 0 ? lb_err_code(p->err, rc) : 0;
}

/* The pages held whose updates are no longer listed: the files the new
 * pages are written into (open_stale()). */
static int find_stale(struct pass *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->have.cap; i++)
		n += p->have.t[i] && !listed_has(&p->set->seen, p->have.h[i], p->have.t[i]);
	if (!n || p->todo.n == 0)
		return 0;
	if (!(p->stale_h = malloc(n * sizeof *p->stale_h)) || !(p->stale_t = malloc(n * sizeof *p->stale_t)))
		return lb_err_code(p->err, LB_ENOMEM);
	for (size_t i = 0; i < p->have.cap; i++)
		if (p->have.t[i] && !listed_has(&p->set->seen, p->have.h[i], p->have.t[i])) {
			p->stale_h[p->nstale] = p->have.h[i];
			p->stale_t[p->nstale++] = p->have.t[i];
		}
	return 0;
}

/* The listed updates without a page: each one's written from its diff,
 * in the order listed. */
static int write_missing(struct pass *p)
{
	int rc = 0;

	for (size_t i = 0; i < p->todo.n && rc >= 0; i++)
		rc = ant_store_diff_of(p->s, p->todo.keys.data + p->todo.at[i], p->todo.t[i], write_diff, p, p->err);
	return rc < 0 ? rc : 0;
}

/* The pages of updates no longer listed (and a killed publish's
 * temporary files) go; files of other names are left alone.  The set
 * decides: no query per file. */
void ant_pub_diffs_prune(const char *dir, const ant_pub_diffset *set, ant_pub_diff_counts *counts)
{
	lb_buf sub = LB_BUF_INIT, path = LB_BUF_INIT;
	struct dirent *e;
	DIR *dd = NULL;
	int64_t h, t;

	if (set && lb_buf_addf(&sub, "%s/%s", dir, ANT_PUB_DIFF_DIR) == 0)
		dd = opendir(sub.data);
	while (dd && (e = readdir(dd)) != NULL) {
		if (!parse_name(e->d_name, &h, &t) || (t > 0 && listed_has(&set->pages, h, t)))
			continue;
		lb_buf_reset(&path);
		if (lb_buf_addf(&path, "%s/%s", sub.data, e->d_name) == 0 && unlink(path.data) == 0)
			counts->removed += t >= 0;
	}
	if (dd)
		closedir(dd);
	lb_buf_release(&path);
	lb_buf_release(&sub);
}

/* The rows the site lists, in the writers' orders and caps (publish_site.c):
 * index.html's files (html_pages files of page_limit entries) and
 * current.atom (current_entries; 0: every fresh one). */
static int walk_listed(struct pass *p, int64_t current_entries)
{
	const ant_pub_site *site = p->site;
	ant_store_pubq q = {
		.order = ANT_PUBQ_LISTING, .found_after = -1,
		.limit = (int64_t)(site->html_pages ? site->html_pages : ANT_PUB_HTML_PAGES) *
			 (int64_t)(site->page_limit ? site->page_limit : ANT_PUB_PAGE_LIMIT),
	};
	int rc;

	if ((rc = ant_store_published_each(p->s, &q, each_listed, p, p->err)) != 0)
		return rc;
	q = (ant_store_pubq){ .order = ANT_PUBQ_RECENT, .fresh_only = 1, .found_after = -1,
			      .fresh_since = site->now - site->max_age,
			      .limit = current_entries > 0 ? current_entries : 0 };
	return ant_store_published_each(p->s, &q, each_listed, p, p->err);
}

/* The bound a pending diff is made within: the update's, --diff-text-max
 * (its default when the texts are off now: the rows were kept before). */
static size_t diff_max(ant_store *s)
{
	int64_t v = ant_setting_int(s, ANT_SET_DIFF_TEXT_MAX);

	return v > 0 ? (size_t)v : ANT_DIFF_TEXT_MAX;
}

int ant_pub_diffs(ant_store *s, const char *dir, const ant_pub_site *site, int64_t current_entries,
		  ant_pub_diff_counts *counts, ant_pub_diffset **set, lb_error *err)
{
	struct pass p = { .s = s, .site = site, .counts = counts, .err = err };
	lb_buf sub = LB_BUF_INIT;
	int rc;

	memset(counts, 0, sizeof *counts);
	*set = NULL;
	if (lb_buf_addf(&sub, "%s/%s", dir, ANT_PUB_DIFF_DIR) < 0 || !(p.set = calloc(1, sizeof *p.set)))
		return lb_err_code(err, LB_ENOMEM);
	p.dir = sub.data;
	p.max = diff_max(s);
	lb_buf_init(&p.raw);
	lb_buf_init(&p.path);
	lb_buf_init(&p.todo.keys);
	rc = scan_have(&p);
	if (rc == 0)
		rc = walk_listed(&p, current_entries);
	if (rc == LB_ENOMEM)
		rc = lb_err_code(err, rc);
	if (rc == 0)
		rc = find_stale(&p);
	if (rc == 0)
		rc = write_missing(&p);
	if (rc == 0)
		rc = flush_pending(&p);
	for (size_t i = 0; i < p.npend; i++)   /* after a failure: only temporary files */
		lb_afile_abort(&p.pend[i]);
	if (rc == 0)
		*set = p.set;
	else
		ant_pub_diffset_free(p.set);
	lb_buf_release(&p.raw);
	lb_buf_release(&p.path);
	lb_buf_release(&p.todo.keys);
	free(p.todo.at);
	free(p.todo.t);
	free(p.have.h);
	free(p.have.t);
	free(p.stale_h);
	free(p.stale_t);
	lb_buf_release(&sub);
	return rc;
}

/* Relayed updates are other antennas': never diffed here. */
static int may_have_diff(const char *url_key, int64_t last_modified, const char *detected_by)
{
	return detected_by && strcmp(detected_by, "lirs") && strcmp(detected_by, "atom") && url_key &&
	       last_modified > 0;
}

const char *ant_pub_diff_href_in(lb_buf *out, const ant_pub_diffset *set, const char *url_key,
				 int64_t last_modified, const char *detected_by)
{
	char name[64];
	int64_t h;

	if (!set || !may_have_diff(url_key, last_modified, detected_by))
		return NULL;
	h = (int64_t)ant_page_hash64(url_key, strlen(url_key));
	if (!listed_has(&set->pages, h, last_modified))
		return NULL;
	page_name(name, sizeof name, h, last_modified);
	lb_buf_reset(out);
	return lb_buf_addf(out, "%s/%s", ANT_PUB_DIFF_DIR, name) < 0 ? NULL : out->data;
}

int ant_pub_diff_related_in(void *set, const struct atom_ev_event *e, lb_buf *out)
{
	lb_buf key = LB_BUF_INIT;
	const char *href = NULL;

	if (lb_url_key(&key, e->url) == 0)
		href = ant_pub_diff_href_in(out, set, key.data, e->last_modified, "");
	lb_buf_release(&key);
	return href != NULL;
}

const char *ant_pub_diff_href(lb_buf *out, const char *dir, const char *url_key, int64_t last_modified,
			      const char *detected_by)
{
	char name[64];
	struct stat sb;

	if (!may_have_diff(url_key, last_modified, detected_by))
		return NULL;
	page_name(name, sizeof name, (int64_t)ant_page_hash64(url_key, strlen(url_key)), last_modified);
	lb_buf_reset(out);
	if (lb_buf_addf(out, "%s/%s/%s", dir, ANT_PUB_DIFF_DIR, name) < 0 || stat(out->data, &sb) != 0)
		return NULL;
	lb_buf_reset(out);
	return lb_buf_addf(out, "%s/%s", ANT_PUB_DIFF_DIR, name) < 0 ? NULL : out->data;
}

int ant_pub_diff_related(void *dir, const struct atom_ev_event *e, lb_buf *out)
{
	lb_buf key = LB_BUF_INIT;
	const char *href = NULL;

	if (lb_url_key(&key, e->url) == 0)
		href = ant_pub_diff_href(out, dir, key.data, e->last_modified, "");
	lb_buf_release(&key);
	return href != NULL;
}
