/*
 * t_published.c: ant_store_published_each() (ant_store.h), what antenna
 * publish lists, on a real SQLite file: the watched pages and one relayed
 * record per URL key the relay sources gave: a watched page wins over any
 * record, the newest fresh record among relay sources wins, stale records
 * and sources that are not relays give nothing; the two orders, the
 * freshness filter and the "new" marks from the update events.
 */
#include "tap.h"
#include "t_db.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atom_db.h"

#include "atom_evstore.h"
#include "ant_store.h"

#define NOW 1700000000
#define MAX_AGE (8 * 3600)

static char dir[] = "/tmp/t_published.XXXXXX";

static void add_page(ant_store *s, const char *url, int64_t lm, int64_t ld, const char *grp)
{
	ant_store_page p;
	lb_error err = LB_ERROR_INIT;

	ant_store_page_init(&p);
	p.url = p.url_key = (char *)url;
	p.title = (char *)"";
	p.group = (char *)grp;
	p.created = 1;
	if (ant_store_page_add(s, &p, &err) != 0 || ant_store_page_get(s, url, &p, &err) != 1) {
		printf("# %s\n", err.msg);
		return;
	}
	p.st.last_modified = lm;
	p.st.last_detected = ld;
	p.st.detected_by = "header";
	ant_store_page_save(s, &p, &err);
	ant_store_page_release(&p);
}

static int64_t add_source(ant_store *s, const char *url, int kind, int relay)
{
	ant_store_source src;
	ant_store_source *all;
	size_t n;
	int64_t id = -1;

	ant_store_source_init(&src);
	src.url = src.url_key = (char *)url;
	src.kind = kind;
	src.relay = relay;
	src.created = 1;
	ant_store_source_add(s, &src, NULL);
	if (ant_store_sources_load(s, &all, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(all[i].url, url) == 0)
				id = all[i].id;
		ant_store_sources_free(all, n);
	}
	return id;
}

static void put(ant_store *s, int64_t src, const char *url, int64_t lm, int64_t ld,
		const char *title)
{
	ant_store_srcrec r = { .url_key = url, .source_id = src, .url = url,
			       .last_modified = lm, .last_detected = ld, .title = title,
			       .excerpt = "" };
	lb_error err = LB_ERROR_INIT;

	if (ant_store_srcrec_put(s, &r, &err) != 0)
		printf("# %s\n", err.msg);
}

/* What the rows were, one line each: "url by source_url title/author/size found" */
struct seen {
	char text[4096];
	int n, relayed;
};

static int collect(void *ctx, const ant_store_pubrow *r)
{
	struct seen *v = ctx;
	size_t len = strlen(v->text);

	snprintf(v->text + len, sizeof v->text - len, "%s %s %s %s/%s/%lld %d\n", r->url,
		 r->detected_by ? r->detected_by : "-", r->source_url, r->title, r->author,
		 (long long)r->content_length, r->found);
	v->n++;
	v->relayed += r->relayed;
	return 0;
}

static struct seen run(ant_store *s, int order, int fresh_only, int64_t found_after)
{
	ant_store_pubq q = { .order = order, .fresh_only = fresh_only,
			     .fresh_since = NOW - MAX_AGE, .found_after = found_after };
	struct seen v;
	lb_error err = LB_ERROR_INIT;

	memset(&v, 0, sizeof v);
	if (ant_store_published_each(s, &q, collect, &v, &err) != 0)
		printf("# %s\n", err.msg);
	return v;
}

static void test_relayed(ant_store *s)
{
	int64_t r1 = add_source(s, "http://r1.example/lirs.gz", ANT_STORE_SOURCE_LIRS, 1);
	int64_t r2 = add_source(s, "http://r2.example/index.atom", ANT_STORE_SOURCE_ATOM, 1);
	int64_t plain = add_source(s, "http://plain.example/lirs.gz", ANT_STORE_SOURCE_LIRS, 0);
	struct seen v;

	add_page(s, "http://w.example/a", NOW - 500, NOW - 100, "");
	add_page(s, "http://w.example/old", NOW - 90000, NOW - 90000, "g");
	add_page(s, "http://w.example/never", 0, 0, "");
	/* watched wins, even over a newer record */
	put(s, r1, "http://w.example/a", NOW - 10, NOW - 10, "relay's A");
	/* newest Last-Modified wins */
	put(s, r1, "http://x.example/b", NOW - 300, NOW - 60, "b from r1");
	put(s, r2, "http://x.example/b", NOW - 200, NOW - 60, "b from r2");
	/* same Last-Modified: the later Last-Detected */
	put(s, r1, "http://x.example/c", NOW - 400, NOW - 30, "c from r1");
	put(s, r2, "http://x.example/c", NOW - 400, NOW - 90, "c from r2");
	/* stale: left out */
	put(s, r1, "http://x.example/d", NOW - 40000, NOW - MAX_AGE - 1, "d");
	/* a fresh older record beats a stale newer one */
	put(s, r1, "http://x.example/f", NOW - 600, NOW - 60, "f from r1");
	put(s, r2, "http://x.example/f", NOW - 5, NOW - MAX_AGE - 10, "f from r2");
	/* a source that is not a relay: never published */
	put(s, plain, "http://x.example/e", NOW - 1, NOW - 1, "e");
	atom_db_exec(ant_store_db(s), "UPDATE source_records SET author='Au', content_length=1234"
		     " WHERE url_key='http://x.example/b'");

	v = run(s, ANT_PUBQ_RECENT, 1, -1);
	IS_STR(v.text,
	       "http://x.example/b atom http://r2.example/index.atom b from r2/Au/1234 0\n"
	       "http://x.example/c lirs http://r1.example/lirs.gz c from r1//0 0\n"
	       "http://w.example/a header http://w.example/a //0 0\n"
	       "http://x.example/f lirs http://r1.example/lirs.gz f from r1//0 0\n",
	       "fresh, newest first: watched wins, newest wins, fresh wins, stale and non-relay left out");
	IS_INT(v.relayed, 3, "three relayed rows");

	v = run(s, ANT_PUBQ_LISTING, 0, -1);
	IS_INT(v.n, 6, "the listing: every watched page and the relayed ones");
	OK(strstr(v.text, "http://w.example/old header") &&
	   strstr(v.text, "http://w.example/never header"), "a stale or never updated watched page is listed");
	OK(strstr(v.text, "http://w.example/old") < strstr(v.text, "http://w.example/never"),
	   "the pages without a fresh update last: dated before undated");
	OK(!strstr(v.text, "x.example/d") && !strstr(v.text, "x.example/e"),
	   "the listing leaves out stale and non-relay records too");

	/* when the relay stops being one, its records go */
	atom_db_exec(ant_store_db(s), "UPDATE sources SET relay=0");
	v = run(s, ANT_PUBQ_RECENT, 1, -1);
	IS_INT(v.relayed, 0, "no relay source: no relayed row");
	atom_db_exec(ant_store_db(s), "UPDATE sources SET relay=1 WHERE url LIKE 'http://r%'");
}

static void test_found(ant_store *s)
{
	atom_evstore *ev = NULL;
	atom_ev_event e = { .url = "http://w.example/a", .last_modified = NOW - 500,
			    .last_detected = NOW - 100, .title = "", .author = "", .source_url = "" };
	int64_t seq = 0;
	struct seen v;

	OK(atom_evstore_attach(&ev, ant_store_db(s), NULL) == 0 &&
	   atom_evstore_max_seq(ev, &seq, NULL) == 0, "events attached");
	IS_INT(atom_evstore_add(ev, &e, NULL), 1, "an event of page a");
	atom_evstore_max_seq(ev, &seq, NULL);
	atom_evstore_close(ev);
	v = run(s, ANT_PUBQ_RECENT, 1, seq - 1);
	OK(strstr(v.text, "http://w.example/a header http://w.example/a //0 1\n") != NULL,
	   "found since the previous publish: 1");
	OK(strstr(v.text, "http://x.example/c lirs http://r1.example/lirs.gz c from r1//0 -1\n") != NULL,
	   "no event since: -1");
	v = run(s, ANT_PUBQ_RECENT, 1, seq);
	OK(strstr(v.text, "http://w.example/a header http://w.example/a //0 -1\n") != NULL,
	   "the event came before the previous publish: -1");
}

int main(void)
{
	char path[300];
	ant_store *s = NULL;
	lb_error err = LB_ERROR_INIT;

	TAP_PLAN(12);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/antenna.db", dir);
	t_db_map(path, sizeof path);
	if (ant_store_open(&s, path, ANT_STORE_OPEN_CREATE, &err) < 0) {
		printf("# %s\n", err.msg);
		return 1;
	}
	test_relayed(s);
	test_found(s);
	ant_store_close(s);
	unlink(path);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	if (system(path) != 0)
		return 1;
	TAP_DONE();
}
