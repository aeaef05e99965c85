/*
 * update_run.c: the update run's tools (update_int.h, "the run's
 * means"): the one way to the network, the run's transaction, a page
 * saved with its update event or moved to its redirect, and what an
 * answer says.  Below every step of the engine (update.c's batches,
 * update_sources.c, update_sitemap.c, update_check.c, update_robots.c,
 * update_trust.c, update_budget.c, update_diff.c): they call it, and it
 * calls none of them, so the engine's files call one way only.
 */
#include "ant_update.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_buf.h"
#include "lb_url.h"
#include "atom_evstore.h"
#include "ant_limits.h"
#include "ant_render.h"
#include "update_int.h"

int64_t ant_upd_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ant_upd_fetch(struct upd *u, const ant_fetch_req *reqs, size_t n, ant_fetch_done_fn done,
		  void *ctx)
{
	const ant_fetcher *f = u->o->fetcher;

	if (f)
		return f->run(f->self, &u->lim, reqs, n, done, ctx);
	return ant_fetch_run(&u->lim, reqs, n, done, ctx);
}

/* One page rendered (ant_render.h), its answer to done() as a fetch's:
 * its server's politeness kept as a fetch keeps it (a Retry-After defers
 * it, --min-delay spaces it from the last request), the lock taken for
 * this render only, so that other runs take turns. */
static void render_one(struct upd *u, const ant_fetch_req *req, ant_fetch_done_fn done, void *ctx)
{
	ant_fetch_result res;
	long host = -1;
	int lock, rc;

	memset(&res, 0, sizeof res);
	res.content_length = -1;
	if ((rc = ant_fetch_polite_begin(&u->lim, req->url, &host, &res)) != 0) {
		if (rc < 0) {
			res.err = ANT_FETCH_ERR_OTHER;
			res.local = 1;
			snprintf(res.error, sizeof res.error, "out of memory");
		}
		res.body = strdup("");
	} else if ((lock = ant_render_lock(&u->o->render, 0)) < 0) {
		res.err = ANT_FETCH_ERR_OTHER;
		res.local = 1;
		res.body = strdup("");
		snprintf(res.error, sizeof res.error, "no render slot: another render held it too long");
	} else {
		ant_render(&u->lim, &u->o->render, req, &res, NULL);
		ant_render_unlock(lock);
	}
	ant_fetch_polite_end(&u->lim, host);
	done(ctx, req, &res);
	ant_render_result_release(&res);
}

int ant_upd_fetch_pages(struct upd *u, const ant_fetch_req *reqs, const unsigned char *render,
			size_t n, ant_fetch_done_fn done, void *ctx)
{
	ant_fetch_req *plain = calloc(n ? n : 1, sizeof *plain);
	size_t k = 0;
	int rc;

	if (!plain)
		return LB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!render || !render[i])
			plain[k++] = reqs[i];
	rc = k ? ant_upd_fetch(u, plain, k, done, ctx) : 0;
	free(plain);
	for (size_t i = 0; rc == 0 && render && i < n; i++)
		if (render[i])
			render_one(u, &reqs[i], done, ctx);
	return rc;
}

/* ---- transactions ------------------------------------------------------ */

/* Once the database failed, nothing more is written in this run: the
 * run ends with that failure (u->err). */
int ant_upd_tx_need(struct upd *u)
{
	int rc;

	if (u->failed_db)
		return LB_EDB;
	if (!u->in_tx) {
		if ((rc = ant_store_begin(u->s, &u->err)) < 0) {
			u->failed_db = 1;
			return rc;
		}
		u->in_tx = 1;
	}
	return 0;
}

int ant_upd_tx_commit(struct upd *u)
{
	int rc;

	if (!u->in_tx)
		return u->failed_db ? LB_EDB : 0;
	u->in_tx = 0;
	u->pending = 0;
	if ((rc = ant_store_commit(u->s, &u->err)) < 0) {
		ant_store_rollback(u->s);
		u->failed_db = 1;
		return rc;
	}
	return 0;
}

/* Called after each write: commits every ANT_UPDATE_BATCH. */
void ant_upd_tx_tick(struct upd *u)
{
	if (++u->pending >= ANT_UPDATE_BATCH)
		ant_upd_tx_commit(u);
}

void ant_upd_set_str(char **dst, const char *v)
{
	char *n = v ? strdup(v) : NULL;

	if (v && !n)
		return;   /* out of memory: keep the old value */
	free(*dst);
	*dst = n;
}

/* One update event for the Atom bridge, in the current transaction. */
atom_ev_event ant_upd_event_of_page(const ant_store_page *p, int64_t tz)
{
	return (atom_ev_event){
		.url = p->url,
		.last_modified = p->st.last_modified,
		.last_detected = p->st.last_detected,
		.tz_offset = tz,
		.content_length = p->st.content_length > 0 ? p->st.content_length : 0,
		.title = p->title ? p->title : "",
		.author = p->author ? p->author : "",
		.source_url = p->source_url ? p->source_url : p->url,
		.excerpt = p->excerpt,
	};
}

static int add_event(struct upd *u, const ant_store_page *p)
{
	atom_ev_event e = ant_upd_event_of_page(p, u->o->tz);

	/* A second update of the page in the same second: the event of that
	 * second takes the latest excerpt and title, unless it is sealed. */
	int rc = atom_evstore_put(u->ev, &e, &u->err);

	if (rc < 0)
		u->failed_db = 1;
	return rc;
}

int ant_upd_save_page(struct upd *u, ant_store_page *p, int event)
{
	int rc;

	if ((rc = ant_upd_tx_need(u)) < 0)
		return rc;
	/* A title or author kept whole by an older version is cut now. */
	ant_clip_inplace(p->title, ANT_MAX_TITLE);
	ant_clip_inplace(p->author, ANT_MAX_AUTHOR);
	if ((rc = ant_store_page_save(u->s, p, &u->err)) < 0) {
		u->failed_db = 1;
		return rc;
	}
	if (event && (rc = add_event(u, p)) < 0)
		return rc;
	ant_upd_tx_tick(u);
	return 0;
}

/* The page moves to its redirect_to (ant_pagestate.h), in the run's
 * transaction, after its check was saved: the row keeps its history. */
int ant_upd_move_page(struct upd *u, ant_store_page *p)
{
	lb_buf key = LB_BUF_INIT;
	int rc;

	if ((rc = ant_upd_tx_need(u)) < 0)
		return rc;
	if (lb_url_key(&key, p->redirect_to) < 0)
		return lb_err_code(&u->err, LB_ENOMEM);
	rc = ant_store_page_move(u->s, p->id, p->redirect_to, key.data, u->now, &u->err);
	lb_buf_release(&key);
	if (rc < 0) {
		u->failed_db = 1;
		return rc;
	}
	u->st.moved++;
	if (u->o->on_move)
		u->o->on_move(u->o->ctx, p->url, p->redirect_to, rc == 1);
	ant_upd_tx_tick(u);
	return 0;
}

int ant_upd_http_failed(const ant_fetch_result *res)
{
	return res->err != ANT_FETCH_OK || res->status >= 400 || res->status < 200;
}

const char *ant_upd_error_text(const ant_fetch_result *res, char *b, size_t n)
{
	if (res->error[0])
		return res->error;
	snprintf(b, n, "HTTP status %ld", res->status);
	return b;
}

void ant_upd_take_validators(char **etag, char **lm, const ant_fetch_result *res)
{
	if (res->status != 304 || res->etag)
		ant_upd_set_str(etag, res->etag);
	if (res->status != 304 || res->last_modified)
		ant_upd_set_str(lm, res->last_modified);
}
