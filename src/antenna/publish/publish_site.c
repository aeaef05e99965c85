/*
 * publish_site.c: the whole site from the database (ant_publish.h's
 * ant_publish_site()):
 *   DIR/index.html, DIR/lirs.gz,
 *   DIR/sites.di.gz                       the writers of publish.c
 *   DIR/index.atom, archive/N.atom,
 *   DIR/current.atom                      atom.h over the update events
 *                                         that 'update' recorded (evstore)
 *   DIR/feed.json                         current.atom's entries as JSON
 *                                         Feed (publish_jsonfeed.c)
 * The time of each publish is kept (config "last_publish"), and the seq
 * of the newest update event then ("last_publish_seq"), so index.html
 * marks new the updates *found* since the previous publish: the events
 * added after it (an update that happened before the
 * previous publish but was found after it is new too).
 *
 * Nothing here holds all the pages: index.html (and its index-N.html),
 * lirs.gz and sites.di.gz read the published rows one at a time from
 * one SQL query each (ant_store_published_each(): the watched pages and
 * the relayed records), index.html on a second connection in a second
 * thread, the record files on a third in a third, while this one writes
 * the Atom files from the events; current.atom streams
 * the same rows, newest first, when its turn comes.  The "new" marks are
 * an EXISTS against the events, read in a snapshot taken before the
 * Atom writer's retention may prune them.  Each file is replaced
 * atomically on its own; a failure in either leaves last_publish
 * unchanged.
 *
 * History retention (config "keep_events"): the Atom files' events are
 * pruned in the transaction that records their archive as complete,
 * keeping at least that many of the newest (atom_evstore.h).
 */
#include "ant_limits.h"
#include "ant_publish.h"
#include "ant_websub.h"
#include "ant_pubdiff.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lb_afile.h"
#include "lb_buf.h"
#include "atom.h"
#include "atom_evstore.h"
#include "lirs.h"
#include "publish_jsonfeed.h"
#include "ant_settings.h"

struct site_cfg {
	char *title, *base, *author, *lang;
	ant_pub_site site;
	ant_pub_lirs_counts counts;
	int64_t page_size;
	int64_t current_entries, current_bytes;   /* current.atom's caps */
	int64_t keep_events;     /* ATOM_EVSTORE_KEEP_ALL or >= 0 */
	int64_t seq_now;         /* the newest event's seq before this publish */
	int64_t prev_seq;        /* and at the previous publish, -1 unknown */
	ant_store *store;        /* the Atom writer's connection */
	ant_pub_html_counts html;
	ant_websub_hubs hubs;    /* named in the live feeds (ant_websub.h) */
	const char *dir;         /* DIR */
	ant_pub_diffset *diffs;  /* the diff pages' links (ant_pubdiff.h) */
};

/* The lirs_charset setting (antenna init --charset): 1 for euc-jp-ms. */
static int lirs_charset_ms(ant_store *s)
{
	char *v = ant_setting_text(s, ANT_SET_LIRS_CHARSET);
	int ms = v && !strcmp(v, "euc-jp-ms");

	free(v);
	return ms;
}

static void cfg_load(ant_store *s, struct site_cfg *c, int64_t now)
{
	int64_t limit;

	c->title = ant_setting_text(s, ANT_SET_TITLE);
	c->base = ant_setting_text(s, ANT_SET_BASE);
	c->author = ant_setting_text(s, ANT_SET_AUTHOR);
	c->lang = ant_setting_text(s, ANT_SET_LANG);
	ant_pub_site_defaults(&c->site);
	if (c->lang && ant_pub_lang_known(c->lang))
		c->site.lang = c->lang;
	c->site.title = c->title ? c->title : "antenna";
	c->site.base = c->base ? c->base : "http://localhost/";
	c->site.author = c->author ? c->author : "";
	c->site.now = now;
	c->site.prev_publish = ant_setting_int(s, ANT_SET_LAST_PUBLISH);
	c->site.new_window = 3600 * ant_setting_int(s, ANT_SET_NEW_HOURS);
	c->site.display_tz = ant_setting_int(s, ANT_SET_TZ);
	c->site.visited_query = ant_setting_int(s, ANT_SET_VISITED) != 0;
	c->site.max_age = ant_setting_int(s, ANT_SET_MAX_AGE);
	c->site.lirs_euc_jp_ms = lirs_charset_ms(s);
	memset(&c->counts, 0, sizeof c->counts);
	c->site.lirs_counts = &c->counts;
	limit = ant_setting_int(s, ANT_SET_HTML_LIMIT);
	c->site.page_limit = limit > 0 ? (size_t)limit : 0;   /* 0: the default */
	limit = ant_setting_int(s, ANT_SET_HTML_PAGES);
	c->site.html_pages = limit > 0 ? (size_t)limit : 0;
	c->current_entries = ant_setting_int(s, ANT_SET_CURRENT_ENTRIES);
	c->current_bytes = ant_setting_int(s, ANT_SET_CURRENT_BYTES);
	memset(&c->html, 0, sizeof c->html);
	c->site.html_counts = &c->html;
	c->store = s;
	c->page_size = ant_setting_int(s, ANT_SET_PAGE_SIZE);
	c->keep_events = ant_setting_int(s, ANT_SET_KEEP_EVENTS);
	c->seq_now = 0;
	c->diffs = NULL;
	ant_websub_hubs_load(s, &c->hubs);
}

static void cfg_free(struct site_cfg *c)
{
	free(c->title);
	free(c->base);
	free(c->author);
	free(c->lang);
	ant_websub_hubs_free(&c->hubs);
}

/* The seq of the newest update event now (kept for the next publish's
 * "new" marks) and at the previous publish (-1: an older database that
 * did not keep it; then last_modified after last_publish says "new"). */
static int read_seqs(ant_store *s, struct site_cfg *c, lb_error *err)
{
	atom_evstore *ev = NULL;
	int rc;

	c->prev_seq = ant_setting_int(s, ANT_SET_LAST_PUBLISH_SEQ);
	/* attach creates the ev_* tables the "new" marks are read from */
	if ((rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0)
		rc = atom_evstore_max_seq(ev, &c->seq_now, err);
	atom_evstore_close(ev);
	return rc;
}

/*
 * index.html, lirs.gz and sites.di.gz are written by a second thread on a
 * connection of its own (WAL: it reads beside the Atom writer's
 * transaction) while this one writes the Atom files from the events.
 */
struct side {
	const char *dir;
	struct site_cfg *c;
	ant_store *s2;           /* the second connection, its snapshot taken */
	int rc;                  /* 0, or the code of err */
	lb_error err;
};

/*
 * The published rows (ant_store_published_each()) as the writers' pages:
 * a stream over one connection, one row at a time.
 */
struct pub_stream {
	ant_store *s;
	const struct site_cfg *c;
	ant_pub_fn fn;           /* the writer's */
	atom_ev_event_fn evfn;   /* or the Atom writer's */
	void *ctx;
	lb_buf title, author;    /* the clipped copies */
	lb_buf diff;             /* the row's diff page link */
	int want_diff;           /* index.html's rows link them */
};

/* A title or author an older version kept whole is cut here too
 * (ant_limits.h): no published file carries more. */
static const char *clipped(lb_buf *b, const char *s, size_t max)
{
	lb_buf_reset(b);
	if (lb_buf_adds(b, s) < 0)
		return NULL;
	return ant_clip_inplace(b->data, max);
}

static int row_to_pub(void *ctx, const ant_store_pubrow *r)
{
	struct pub_stream *ps = ctx;
	ant_pub_page v = {
		.url = r->url, .group = r->group,
		.title = clipped(&ps->title, r->title, ANT_MAX_TITLE),
		.author = clipped(&ps->author, r->author, ANT_MAX_AUTHOR),
		.last_modified = r->last_modified, .last_detected = r->last_detected,
		.tz_offset = ps->c->site.display_tz, .content_length = r->content_length,
		.detected_by = r->detected_by ? r->detected_by : "",
		.source_url = r->source_url, .last_error = r->last_error, .fail_kind = r->fail_kind,
		.excerpt = r->excerpt, .found = r->found,
		.diff = r->relayed || !ps->want_diff ? NULL :
			ant_pub_diff_href_in(&ps->diff, ps->c->diffs, r->url_key, r->last_modified,
					     r->detected_by),
	};

	if (!v.title || !v.author)
		return LB_ENOMEM;
	if (ps->fn)
		return ps->fn(ps->ctx, &v);
	return ps->evfn(ps->ctx, &(atom_ev_event){
		.url = v.url, .last_modified = v.last_modified,
		.last_detected = v.last_detected, .tz_offset = v.tz_offset,
		.content_length = v.content_length, .title = v.title,
		.author = v.author, .source_url = v.source_url, .excerpt = v.excerpt });
}

static int stream_rows(struct pub_stream *ps, int order, int64_t limit, lb_error *err)
{
	ant_store_pubq q = {
		.order = order == ANT_PUB_FRESH ? ANT_PUBQ_RECENT :
			 order == ANT_PUB_ANY ? ANT_PUBQ_ANY : ANT_PUBQ_LISTING,
		.limit = limit,
		.fresh_only = order == ANT_PUB_FRESH,
		.fresh_since = ps->c->site.now - ps->c->site.max_age,
		/* only index.html marks what is new */
		.found_after = order == ANT_PUB_FRESH ? -1 : ps->c->prev_seq,
	};
	int rc;

	lb_buf_init(&ps->title);
	lb_buf_init(&ps->author);
	lb_buf_init(&ps->diff);
	ps->want_diff = order != ANT_PUB_FRESH;   /* index.html's passes, not the record files' */
	rc = ant_store_published_each(ps->s, &q, row_to_pub, ps, err);
	lb_buf_release(&ps->diff);
	lb_buf_release(&ps->title);
	lb_buf_release(&ps->author);
	if (rc == LB_ENOMEM)
		rc = lb_err_code(err, LB_ENOMEM);
	return rc;
}

/* ant_pub_src's each: the pages for index.html, lirs.gz, sites.di.gz */
static int pages_each(void *sctx, int order, ant_pub_fn fn, void *ctx, lb_error *err)
{
	const struct side *w = sctx;
	struct pub_stream ps = { .s = w->s2, .c = w->c, .fn = fn, .ctx = ctx };
	const ant_pub_site *site = &w->c->site;
	/* index.html's files hold at most this many: SQLite sorts only them */
	int64_t listed = (int64_t)(site->html_pages ? site->html_pages : ANT_PUB_HTML_PAGES) *
			 (int64_t)(site->page_limit ? site->page_limit : ANT_PUB_PAGE_LIMIT);

	return stream_rows(&ps, order, order == ANT_PUB_LISTING ? listed + 1 : 0, err);
}

/* atom_cur_each_fn: current.atom, one entry per page with a fresh update,
 * newest first, from the Atom writer's own connection */
static int fresh_each(void *sctx, atom_ev_event_fn fn, void *ctx, lb_error *err)
{
	const struct site_cfg *c = sctx;
	struct pub_stream ps = { .s = c->store, .c = c, .evfn = fn, .ctx = ctx };

	/* one more than the cap: the writer learns that it is not complete */
	return stream_rows(&ps, ANT_PUB_FRESH, c->current_entries > 0 ? c->current_entries + 1 : 0,
			   err);
}

/* Archives of a pruned history whose file DIR lacks: they cannot be
 * written again, and must not be written differently (RFC 5005 §4). */
static void find_lost(atom_evstore *ev, const char *dir, ant_publish_result *res)
{
	int64_t pruned, n;
	char path[4096];
	struct stat sb;

	if (atom_evstore_pruned(ev, &pruned, NULL, NULL) != 0 || pruned == 0)
		return;
	for (n = 1; n <= pruned; n++) {
		snprintf(path, sizeof path, "%s/archive/%lld.atom", dir, (long long)n);
		if (stat(path, &sb) == 0)
			continue;
		if (!res->lost++)
			res->lost_first = n;
		res->lost_last = n;
	}
}

/* index.html and its files on one side thread, lirs.gz and sites.di.gz
 * (a million records: gzip's seconds) on another. */
static void *write_html(void *arg)
{
	struct side *w = arg;
	ant_pub_src src = { pages_each, w };

	w->rc = ant_publish_html_src(w->dir, &w->c->site, &src, &w->err);
	return NULL;
}

static void *write_records(void *arg)
{
	struct side *w = arg;
	ant_pub_src src = { pages_each, w };

	w->rc = ant_publish_records_src(w->dir, &w->c->site, &src, &w->err);
	return NULL;
}

/* The diff pages no longer listed removed, on a third thread: no store,
 * only DIR/diff, which the other writers never touch. */
struct prune {
	const char *dir;
	struct site_cfg *c;
	ant_pub_diff_counts *counts;
};

static void *prune_diffs(void *arg)
{
	struct prune *p = arg;

	ant_pub_diffs_prune(p->dir, p->c->diffs, p->counts);
	return NULL;
}

/* The feeds' base and page size (ev_meta, fixed at their first publish)
 * against the settings now: 0, or LB_EINVAL with the way out in err. */
static int feeds_moved(atom_evstore *ev, const char *base, int64_t page_size, lb_error *err)
{
	char *was_base = NULL, *was_size = NULL, size[32];
	size_t n = strlen(base);
	int rc;

	snprintf(size, sizeof size, "%lld", (long long)page_size);
	if ((rc = atom_evstore_meta_get(ev, "atom_base", &was_base, err)) >= 0 &&
	    (rc = atom_evstore_meta_get(ev, "atom_page_size", &was_size, err)) >= 0)
		rc = 0;
	if (rc == 0 && was_base && (strncmp(was_base, base, n) != 0 ||
				    strcmp(was_base + n, n && base[n - 1] == '/' ? "" : "/") != 0))
		rc = lb_err(err, LB_EINVAL, "the feeds were published under --base '%s', the setting is "
			    "now '%s', and their archives never change: 'antenna init --base %s' keeps "
			    "them; 'antenna init --base %s --new-feeds' writes them anew under it",
			    was_base, base, was_base, base);
	else if (rc == 0 && was_size && strcmp(was_size, size) != 0)
		rc = lb_err(err, LB_EINVAL, "the feeds were published with --page-size %s, the setting "
			    "is now %s, and their archives never change: 'antenna init --page-size %s' "
			    "keeps them; 'antenna init --page-size %s --new-feeds' writes them anew",
			    was_size, size, was_size, size);
	free(was_base);
	free(was_size);
	return rc;
}

int ant_publish_feeds_moved(ant_store *s, int anew, lb_error *err)
{
	char *base = ant_setting_text(s, ANT_SET_BASE);
	atom_evstore *ev = NULL;
	int rc;

	if (!base)
		return lb_err_code(err, LB_ENOMEM);
	if ((rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0) {
		rc = feeds_moved(ev, base, ant_setting_int(s, ANT_SET_PAGE_SIZE), err);
		if (rc == LB_EINVAL && anew)
			rc = atom_evstore_reseal(ev, err) < 0 ? LB_EDB : 1;
	}
	atom_evstore_close(ev);
	free(base);
	return rc;
}

/* The Atom files, and feed.json beside current.atom, entry for entry. */
static int write_atom(ant_store *s, const char *dir, const struct site_cfg *c,
		      ant_publish_result *res, lb_error *err)
{
	atom_evstore *ev = NULL;
	ant_jsonfeed *jf = NULL;
	lb_buf base = LB_BUF_INIT;
	atom_cfg ac = { .base = c->site.base, .title = c->site.title,
			.author = *c->site.author ? c->site.author : NULL,
			.page_size = c->page_size, .now = c->site.now, .lang = c->site.lang,
			.hubs = c->hubs.v, .nhubs = c->hubs.n, .on_current = ant_jsonfeed_item,
			.current_max_entries = c->current_entries,
			.current_max_bytes = c->current_bytes,
			.related = ant_pub_diff_related_in, .related_ctx = c->diffs };
	atom_stats stats;
	char path[4096];
	struct stat sb;
	int rc, fresh;

	snprintf(path, sizeof path, "%s/index.atom", dir);
	fresh = stat(path, &sb) != 0;    /* atom_publish() then writes every archive */
	if (lb_buf_adds(&base, c->site.base) < 0 ||
	    (base.len && base.data[base.len - 1] != '/' && lb_buf_adds(&base, "/") < 0))
		return lb_err_code(err, LB_ENOMEM);
	rc = ant_jsonfeed_open(&jf, dir, &(ant_jsonfeed_head){ .title = c->site.title,
				.base = base.data, .author = c->site.author, .lang = c->site.lang,
				.hubs = c->hubs.v, .nhubs = c->hubs.n, .dir = dir }, err);
	ac.on_current_ctx = jf;
	if (rc == 0 && (rc = atom_evstore_attach(&ev, ant_store_db(s), err)) == 0 &&
	    (rc = feeds_moved(ev, base.data, c->page_size, err)) == 0) {
		atom_evstore_set_retention(ev, c->keep_events);
		rc = atom_publish_later(ev, dir, &ac, NULL, 0, fresh_each, (void *)c, &stats, err);
		if (rc == 0 && fresh)
			find_lost(ev, dir, res);
		res->current_entries = stats.current_entries;
		res->current_capped = stats.current_capped;
	}
	atom_evstore_close(ev);
	if (jf) {
		int jrc = ant_jsonfeed_close(jf, rc == 0, rc == 0 ? err : NULL);

		rc = rc ? rc : jrc;
	}
	lb_buf_release(&base);
	return rc;
}

/* The second connection, its snapshot taken now: the "new" marks read
 * the events the Atom writer's retention may prune meanwhile. */
static int side_open(struct side *w, ant_store *s, lb_error *err)
{
	int rc;

	if ((rc = ant_store_open(&w->s2, ant_store_path(s), ANT_STORE_OPEN_EXISTING, err)) == 0)
		rc = ant_store_read_begin(w->s2, err);
	return rc;
}

/* ---- DIR: made one level deep, cleared of a killed publish's files ---- */

/* 1 when name[0..n) is a decimal number without a leading zero. */
static int is_number(const char *name, size_t n)
{
	if (!n || name[0] == '0')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)name[i]))
			return 0;
	return 1;
}

/* 1 when name is one of the files a publish writes in DIR (in_archive:
 * in DIR/archive): index.html, index-N.html, lirs.gz, sites.di.gz,
 * index.atom, current.atom, feed.json; archive/N.atom. */
static int is_ours(const char *name, size_t n, int in_archive)
{
	static const char *const fixed[] = {
		"index.html", "lirs.gz", "sites.di.gz", "index.atom", "current.atom", "feed.json",
	};

	if (in_archive)
		return n > 5 && memcmp(name + n - 5, ".atom", 5) == 0 && is_number(name, n - 5);
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		if (strlen(fixed[i]) == n && memcmp(name, fixed[i], n) == 0)
			return 1;
	return n > 11 && memcmp(name, "index-", 6) == 0 && memcmp(name + n - 5, ".html", 5) == 0 &&
	       is_number(name + 6, n - 11) && !(n == 12 && name[6] == '1');
}

/* 1 when name is the temporary file lb_afile_open() makes for one of our
 * files: TARGET.tmp.XXXXXX, the X's six of mkstemp(3)'s letters and digits. */
static int is_our_tmp(const char *name, int in_archive)
{
	size_t n = strlen(name);

	if (n < 12 || memcmp(name + n - 11, ".tmp.", 5) != 0)
		return 0;
	for (size_t i = n - 6; i < n; i++)
		if (!isalnum((unsigned char)name[i]))
			return 0;
	return is_ours(name, n - 11, in_archive);
}

/* A killed publish (or a crash) leaves its temporary files; they are ours
 * by their names alone, removed at the next publish, never a file of any
 * other name.  A publish running into the same DIR at this moment loses
 * the temporary files it has written so far: its first rename then fails
 * and it reports an error, its listing never mixed (publish.c). */
static void remove_our_tmp(const char *dir, int in_archive)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	lb_buf path = LB_BUF_INIT;

	while (d && (e = readdir(d)) != NULL) {
		if (!is_our_tmp(e->d_name, in_archive))
			continue;
		lb_buf_reset(&path);
		if (lb_buf_addf(&path, "%s/%s", dir, e->d_name) == 0)
			unlink(path.data);
	}
	if (d)
		closedir(d);
	lb_buf_release(&path);
}

/* DIR, made when missing, but only its last level: a mistyped
 * '/srv/wwww/antenna' must not create a tree of directories nobody
 * serves (and spend the "new" marks of a publish on it).  Then what a
 * killed publish left in DIR and DIR/archive is removed. */
static int prepare_dir(const char *dir, lb_error *err)
{
	struct stat sb;
	lb_buf sub = LB_BUF_INIT;
	size_t n = strlen(dir);
	int rc = 0;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (stat(dir, &sb) != 0) {
		size_t k = n;

		while (k > 0 && dir[k - 1] != '/')
			k--;
		while (k > 1 && dir[k - 1] == '/')
			k--;
		if (lb_buf_add(&sub, k ? dir : ".", k ? k : 1) < 0)
			return lb_err_code(err, LB_ENOMEM);
		if (stat(sub.data, &sb) != 0)
			rc = lb_err(err, LB_ENOTFOUND, "cannot create '%s': its parent directory '%s' "
				    "does not exist (create it first; only the last level is made)",
				    dir, sub.data);
		else if (!S_ISDIR(sb.st_mode))
			errno = ENOTDIR;
		if (rc == 0 && (!S_ISDIR(sb.st_mode) || (mkdir(dir, 0755) != 0 && errno != EEXIST)))
			rc = lb_err_sys(err, "cannot create '%s'", dir);
		lb_buf_release(&sub);
		if (rc < 0)
			return rc;
	} else if (!S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		return lb_err_sys(err, "cannot create '%s'", dir);
	}
	remove_our_tmp(dir, 0);
	if (lb_buf_addf(&sub, "%s/archive", dir) < 0)
		return lb_err_code(err, LB_ENOMEM);
	remove_our_tmp(sub.data, 1);
	lb_buf_release(&sub);
	return 0;
}

int ant_publish_site(ant_store *s, const char *dir, const ant_publish_opts *o,
		     ant_publish_result *res, lb_error *err)
{
	struct site_cfg c;
	struct side w = { .dir = dir, .c = &c }, w2 = { .dir = dir, .c = &c };
	struct prune pr = { .dir = dir, .c = &c, .counts = &res->diffs };
	lb_error aerr = LB_ERROR_INIT;
	pthread_t th, th2, th3;
	int threaded, threaded2, pruned, arc, rc = 0;

	memset(res, 0, sizeof *res);
	cfg_load(s, &c, o->now);
	if (o->keep_events != ANT_KEEP_DEFAULT)
		c.keep_events = o->keep_events;
	if (o->html_limit > 0)
		c.site.page_limit = o->html_limit;
	if (o->html_pages > 0)
		c.site.html_pages = (size_t)o->html_pages;
	if (o->current_entries > 0)
		c.current_entries = o->current_entries;
	if (o->current_bytes > 0)
		c.current_bytes = o->current_bytes;
	res->keep_events = c.keep_events;
	/* DIR first, so the two writers do not race to create it */
	if ((rc = prepare_dir(dir, err)) < 0)
		goto out;
	c.dir = dir;
	/* the diff pages before the listing that links them (publish_diff.c) */
	if ((rc = read_seqs(s, &c, err)) < 0 ||
	    (rc = ant_pub_diffs(s, dir, &c.site, c.current_entries, &res->diffs, &c.diffs, err)) < 0 ||
	    (rc = side_open(&w, s, err)) < 0 || (rc = side_open(&w2, s, err)) < 0)
		goto out;
	pruned = pthread_create(&th3, NULL, prune_diffs, &pr) == 0;
	threaded = pthread_create(&th, NULL, write_html, &w) == 0;
	if (!threaded)
		write_html(&w);
	threaded2 = pthread_create(&th2, NULL, write_records, &w2) == 0;
	if (!threaded2)
		write_records(&w2);
	arc = write_atom(s, dir, &c, res, &aerr);
	if (threaded)
		pthread_join(th, NULL);
	if (threaded2)
		pthread_join(th2, NULL);
	if (pruned)
		pthread_join(th3, NULL);
	else
		prune_diffs(&pr);
	res->pages = c.html.pages;
	res->news = c.seq_now > (c.prev_seq > 0 ? c.prev_seq : 0);
	res->html_files = c.html.files;
	res->html_listed = c.html.listed;
	res->counts = c.counts;
	if (w.rc < 0)
		rc = lb_err(err, w.rc, "%s", w.err.msg);
	else if (w2.rc < 0)
		rc = lb_err(err, w2.rc, "%s", w2.err.msg);
	else if (arc < 0)
		rc = lb_err(err, arc, "%s", aerr.msg);
	else if ((rc = ant_store_begin(s, err)) == 0) {
		if ((rc = ant_setting_set_int(s, ANT_SET_LAST_PUBLISH, o->now, err)) == 0 &&
		    (rc = ant_setting_set_int(s, ANT_SET_LAST_PUBLISH_SEQ, c.seq_now, err)) == 0)
			rc = ant_store_commit(s, err);
		if (rc < 0)
			ant_store_rollback(s);
	}
out:
	ant_store_close(w.s2);
	ant_store_close(w2.s2);
	ant_pub_diffset_free(c.diffs);
	cfg_free(&c);
	return rc;
}
