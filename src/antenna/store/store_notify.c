/*
 * store_notify.c: the SQL of notifications (ant_notify.h): the targets
 * and, for each, the update events (atom_evstore.h's ev_events, read
 * only) it has not been told of.
 */
#include "store_int.h"
#include "ant_target.h"

#include <stdlib.h>
#include <string.h>

void ant_notify_target_release(ant_notify_target *t)
{
	free(t->target);
	free(t->group);
	free(t->last_error);
	memset(t, 0, sizeof *t);
}

void ant_notify_digest_release(ant_notify_digest *d)
{
	for (size_t i = 0; i < d->n; i++) {
		ant_notify_item *it = &d->items[i];
		free(it->url);
		free(it->title);
		free(it->excerpt);
		free(it->source);
		free(it->method);
		free(it->url_key);
	}
	free(d->items);
	memset(d, 0, sizeof *d);
}

/* The events table is made by the first update (atom_evstore_attach()):
 * before it, nothing is pending. */
static int have_events(ant_store *s)
{
	return ant_st_pragma_int(s, "SELECT count(*) FROM sqlite_master"
				    " WHERE type = 'table' AND name = 'ev_events'") > 0;
}

static int64_t newest_seq(ant_store *s)
{
	int64_t n = have_events(s) ? ant_st_pragma_int(s, "SELECT coalesce(max(seq), 0) FROM ev_events") : 0;

	return n > 0 ? n : 0;
}

struct add_args { const char *target, *group; int64_t now, seq; };

static void bind_add(atom_db_st *st, const void *arg)
{
	const struct add_args *a = arg;

	ant_st_bind_text(st, 1, a->target);
	ant_st_bind_text(st, 2, a->group);
	atom_db_bind_int64(st, 3, a->seq);
	atom_db_bind_int64(st, 4, a->now);
}

int ant_store_notify_add(ant_store *s, const char *target, const char *group, int64_t now,
			 lb_error *err)
{
	struct add_args a = { target, group, now, newest_seq(s) };
	int64_t n;
	int rc;

	if ((rc = ant_st_run(s, "UPDATE notify_targets SET grp = ?2 WHERE target = ?1",
			     bind_add, &a, err)) != 0)
		return rc < 0 ? rc : 0;
	if ((rc = ant_st_count(s, "SELECT count(*) FROM notify_targets WHERE ?1 = ?1", 0, &n, err)) < 0)
		return rc;
	if (n >= ANT_TARGET_MAX_COUNT)
		return lb_err(err, LB_ETOOBIG, "'%s': already %d notification targets (the most)",
			      target, ANT_TARGET_MAX_COUNT);
	rc = ant_st_run(s, "INSERT INTO notify_targets(target, grp, after_seq, created)"
			   " VALUES(?1, ?2, ?3, ?4)", bind_add, &a, err);
	return rc < 0 ? rc : 1;
}

static void bind_target(atom_db_st *st, const void *arg)
{
	ant_st_bind_text(st, 1, arg);
}

int ant_store_notify_remove(ant_store *s, const char *target, int all, lb_error *err)
{
	if (all)
		return ant_st_run(s, "DELETE FROM notify_targets", NULL, NULL, err);
	return ant_st_run(s, "DELETE FROM notify_targets WHERE target = ?1", bind_target, target, err);
}

/* The events after ?1, detected at ?2 or later, of group ?3 (NULL: any). */
#define PENDING \
	" FROM ev_events e LEFT JOIN pages p ON p.key_hash = ant_key_hash(e.url_key)" \
	" AND coalesce(p.url_key, p.url) = e.url_key" \
	" WHERE e.seq > ?1 AND e.last_detected >= ?2 AND (CAST(?3 AS TEXT) IS NULL OR p.grp = ?3)"

static int pending(ant_store *s, const ant_notify_target *t, int64_t since, int64_t *n, lb_error *err)
{
	atom_db_st *st;
	int rc;

	*n = 0;
	if (!have_events(s))
		return 0;
	if ((rc = ant_st_prep(s, &st, "SELECT count(*)" PENDING, err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, t->after_seq);
	atom_db_bind_int64(st, 2, since);
	ant_st_bind_text(st, 3, t->group);
	if (atom_db_step(st) == ATOM_DB_ROW)
		*n = atom_db_column_int64(st, 0);
	else
		rc = ant_st_dberr(s, err, "cannot count the pending notifications");
	atom_db_finalize(st);
	return rc;
}

int ant_store_notify_each(ant_store *s, int64_t since, ant_notify_target_fn fn, void *ctx,
			  lb_error *err)
{
	atom_db_st *st;
	int rc, stop = 0;

	if ((rc = ant_st_prep(s, &st, "SELECT id, target, grp, after_seq, created, last_try,"
				      " last_ok, sent, last_error FROM notify_targets ORDER BY id", err)) < 0)
		return rc;
	while (!stop && (rc = atom_db_step(st)) == ATOM_DB_ROW) {
		ant_notify_target t = {
			.id = atom_db_column_int64(st, 0), .target = ant_st_col_dup(st, 1, 0),
			.group = ant_st_col_dup(st, 2, 1), .after_seq = atom_db_column_int64(st, 3),
			.created = atom_db_column_int64(st, 4), .last_try = atom_db_column_int64(st, 5),
			.last_ok = atom_db_column_int64(st, 6), .sent = atom_db_column_int64(st, 7),
			.last_error = ant_st_col_dup(st, 8, 1),
		};
		int r = !t.target ? LB_ENOMEM : pending(s, &t, since, &t.pending, err);

		if (r == 0)
			stop = fn(ctx, &t);
		ant_notify_target_release(&t);
		if (r < 0) {
			atom_db_finalize(st);
			return r;
		}
	}
	rc = rc == ATOM_DB_ROW || rc == ATOM_DB_DONE ? 0 : ant_st_dberr(s, err, "cannot read the notification targets");
	atom_db_finalize(st);
	return rc;
}

/* One row of the digest's query into it (strings copied). */
static int take_item(atom_db_st *st, ant_notify_item *it)
{
	*it = (ant_notify_item){
		.url = ant_st_col_dup(st, 0, 0), .title = ant_st_col_dup(st, 1, 0),
		.excerpt = ant_st_col_dup(st, 2, 0), .source = ant_st_col_dup(st, 3, 0),
		.method = ant_st_col_dup(st, 4, 0),
		.last_modified = atom_db_column_int64(st, 5), .last_detected = atom_db_column_int64(st, 6),
		.url_key = ant_st_col_dup(st, 7, 0),
	};
	return it->url && it->title && it->excerpt && it->source && it->method && it->url_key ?
	       0 : LB_ENOMEM;
}

int ant_store_notify_digest(ant_store *s, const ant_notify_target *t, int64_t since, size_t max,
			    ant_notify_digest *d, lb_error *err)
{
	atom_db_st *st;
	int64_t count;
	int rc;

	memset(d, 0, sizeof *d);
	d->upto = t->after_seq;
	if (!have_events(s))
		return 0;
	d->upto = newest_seq(s);
	if ((rc = pending(s, t, since, &count, err)) < 0 || count == 0)
		return rc;
	if (!(d->items = calloc(max ? max : 1, sizeof *d->items)))
		return LB_ENOMEM;
	if ((rc = ant_st_prep(s, &st, "SELECT e.url, e.title, e.excerpt, e.source_url,"
				      " CASE p.detected_by WHEN 1 THEN 'header' WHEN 2 THEN 'text'"
				      " WHEN 3 THEN 'size' WHEN 4 THEN 'lirs' WHEN 5 THEN 'feed'"
				      " WHEN 6 THEN 'atom' ELSE CASE WHEN p.id IS NULL THEN 'relay'"
				      " ELSE '' END END, e.last_modified, e.last_detected, e.url_key" PENDING
				      " ORDER BY e.last_modified DESC, e.seq DESC LIMIT ?4", err)) < 0)
		return rc;
	atom_db_bind_int64(st, 1, t->after_seq);
	atom_db_bind_int64(st, 2, since);
	ant_st_bind_text(st, 3, t->group);
	atom_db_bind_int64(st, 4, (int64_t)max);
	while (rc == 0 && (rc = atom_db_step(st)) == ATOM_DB_ROW)
		rc = take_item(st, &d->items[d->n++]);
	if (rc == ATOM_DB_DONE)
		rc = 0;
	else if (rc > 0)
		rc = ant_st_dberr(s, err, "cannot read the pending notifications");
	atom_db_finalize(st);
	d->more = count - (int64_t)d->n;
	return rc;
}

const char ant_notify_nothing[] = "nothing pending";

struct tried_args { int64_t id, now, upto; const char *error; };

static void bind_tried(atom_db_st *st, const void *arg)
{
	const struct tried_args *a = arg;

	atom_db_bind_int64(st, 1, a->id);
	atom_db_bind_int64(st, 2, a->now);
	atom_db_bind_int64(st, 3, a->upto);
	ant_st_bind_text(st, 4, a->error);
}

int ant_store_notify_tried(ant_store *s, int64_t id, int64_t now, int64_t upto, const char *error,
			   lb_error *err)
{
	struct tried_args a = { id, now, upto, error };
	int rc = ant_st_run(s, error == ANT_NOTIFY_NOTHING ?
			    "UPDATE notify_targets SET after_seq = max(after_seq, ?3) WHERE id = ?1" :
			    error ?
			    "UPDATE notify_targets SET last_try = ?2, last_error = ?4 WHERE id = ?1" :
			    "UPDATE notify_targets SET last_try = ?2, last_ok = ?2, last_error = NULL,"
			    " after_seq = max(after_seq, ?3), sent = sent + 1 WHERE id = ?1",
			    bind_tried, &a, err);

	return rc < 0 ? rc : 0;
}
