/* t_retention.c: pruning the update history (atom_evstore.h). */
#include "atom_db.h"
#include <stdio.h>
#include <string.h>

#include "atom_evstore.h"
#include "tap.h"

/* A state of n events of distinct URLs, sealed into archives of 5; archive
 * k is recorded as written, and linked when another follows, for k <= done. */
static atom_evstore *state(atom_db **db, int n, int done)
{
	atom_evstore *st = NULL;
	char url[64];
	lb_error err = LB_ERROR_INIT;
	int64_t sealed;

	if (atom_db_open(":memory:", db, ATOM_DB_OPEN_READWRITE | ATOM_DB_OPEN_CREATE) != ATOM_DB_OK || atom_evstore_attach(&st, *db, &err) != 0)
		return NULL;
	for (int i = 1; i <= n; i++) {
		atom_ev_event e = { 0, url, 1000 + i, 2000, 0, 0, "t", "", "", NULL };
		snprintf(url, sizeof url, "http://e%d.example/", i);
		atom_evstore_add(st, &e, &err);
	}
	atom_evstore_seal(st, 5, "T", "A", &sealed, &err);
	for (int k = 1; k <= done; k++)
		atom_evstore_archive_done(st, k, k < sealed, &err);
	return st;
}

static int64_t rows(atom_db *db, const char *table)
{
	char sql[64];
	atom_db_st *s;
	int64_t v = -1;

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	if (atom_db_prepare(db, sql, &s) == ATOM_DB_OK && atom_db_step(s) == ATOM_DB_ROW)
		v = atom_db_column_int64(s, 0);
	atom_db_finalize(s);
	return v;
}

static int count_archive(void *ctx, const atom_ev_archive *a)
{
	(*(int *)ctx)++;
	return 0;
}

int main(void)
{
	TAP_PLAN(30);
	atom_db *db;
	atom_evstore *st;
	lb_error err = LB_ERROR_INIT;
	int64_t pruned, arch, evs, sealed, last, count;
	int n;

	/* 23 events: archives 1-4 (events 1-20), 21-23 not archived */
	st = state(&db, 23, 4);
	OK(st != NULL, "a state of 23 events in 4 archives");
	IS_INT(atom_evstore_retention(st), ATOM_EVSTORE_KEEP_ALL, "a new evstore keeps everything");
	OK(atom_evstore_begin(st, &err) == 0 && atom_evstore_commit(st, &err) == 0,
	   "a commit without a retention");
	IS_INT(rows(db, "ev_events"), 23, "...prunes nothing");
	OK(atom_evstore_prune(st, 0, &pruned, &err) == 0, "prune keeping 0 (%s)", err.msg);
	IS_INT(pruned, 15, "archives 1-3 go: the newest (4) has no next-archive link, so stays");
	IS_INT(rows(db, "ev_events"), 8, "the newest archive and the events after it stay");
	IS_INT(rows(db, "ev_archives"), 1, "the rows of the pruned archives go");
	OK(atom_evstore_pruned(st, &arch, &evs, &err) == 0 && arch == 3 && evs == 15,
	   "pruned: archives 1..%lld, %lld events", (long long)arch, (long long)evs);
	atom_evstore_archived(st, &last, &count, &err);
	OK(last == 20 && count == 4, "the archive count and last archived seq are kept (%lld, %lld)",
	   (long long)count, (long long)last);
	n = 0;
	atom_evstore_each_archive(st, 1, count_archive, &n, &err);
	IS_INT(n, 1, "a walk of every archive sees only those with events");
	/* two more events: archive 5 is seq 21-25, numbered after the pruned ones */
	for (int i = 24; i <= 25; i++) {
		char url[64];
		atom_ev_event e = { 0, url, 1000 + i, 2000, 0, 0, "t", "", "", NULL };
		snprintf(url, sizeof url, "http://e%d.example/", i);
		atom_evstore_add(st, &e, &err);
	}
	OK(atom_evstore_seal(st, 5, "T", "A", &sealed, &err) == 0 && sealed == 1, "seal after pruning");
	atom_evstore_archived(st, &last, &count, &err);
	OK(last == 25 && count == 5, "archive 5 ends at seq 25 (%lld, %lld)", (long long)count, (long long)last);
	OK(atom_evstore_prune(st, 0, &pruned, &err) == 0 && pruned == 0,
	   "archive 4 now lacks its next-archive link: it is due again, nothing goes");
	atom_evstore_close(st);
	atom_db_close(db);

	/* keep 10 of 23: archives whose last event has 10 newer ones: 1 and 2 */
	st = state(&db, 23, 4);
	OK(atom_evstore_prune(st, 10, &pruned, &err) == 0 && pruned == 10,
	   "keep 10: archives 1-2 go (%lld events)", (long long)pruned);
	IS_INT(rows(db, "ev_events"), 13, "at least 10 events stay");
	OK(atom_evstore_prune(st, 10, &pruned, &err) == 0 && pruned == 0, "pruning again changes nothing");
	atom_evstore_close(st);
	atom_db_close(db);

	/* an archive not written yet stops the pruning there */
	st = state(&db, 23, 1);
	OK(atom_evstore_prune(st, 0, &pruned, &err) == 0 && pruned == 5,
	   "only archive 1 is written: only it goes (%lld)", (long long)pruned);
	atom_evstore_close(st);
	atom_db_close(db);

	/* with a retention, the commit that marks archives written prunes */
	st = state(&db, 23, 0);
	atom_evstore_set_retention(st, 0);
	OK(atom_evstore_begin(st, &err) == 0, "begin");
	for (int k = 4; k >= 1; k--)
		atom_evstore_archive_done(st, k, k < 4, &err);
	IS_INT(rows(db, "ev_events"), 23, "nothing is pruned before the commit");
	OK(atom_evstore_commit(st, &err) == 0, "commit (%s)", err.msg);
	IS_INT(rows(db, "ev_events"), 8, "the commit pruned what it made unneeded");
	atom_evstore_set_retention(st, -5);
	IS_INT(atom_evstore_retention(st), ATOM_EVSTORE_KEEP_ALL, "a negative retention keeps all");
	atom_evstore_close(st);
	atom_db_close(db);

	/* withdrawn ('antenna set --not-news'): gone unless an archive sealed it */
	st = state(&db, 23, 4);
	IS_INT(atom_evstore_withdraw(st, "http://e22.example/", 1022, &err), 1, "an event not archived is withdrawn");
	IS_INT(rows(db, "ev_events"), 22, "... its row gone");
	IS_INT(atom_evstore_withdraw(st, "http://e22.example/", 1022, &err), 0, "... once");
	IS_INT(atom_evstore_withdraw(st, "http://e3.example/", 1003, &err), 2, "an archived event is not");
	IS_INT(rows(db, "ev_events"), 22, "... it stays");
	IS_INT(atom_evstore_withdraw(st, "http://e23.example/", 999, &err), 0, "another time is no event");
	OK(atom_evstore_seal(st, 5, "T", "A", &sealed, &err) == 0 && sealed == 0,
	   "the current events after a withdrawal: 2, no archive sealed");
	atom_evstore_close(st);
	atom_db_close(db);
	TAP_DONE();
}
