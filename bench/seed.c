/*
 * seed: add N watched pages to an antenna database in one transaction.
 *
 *   seed DB URL_PREFIX N [GROUPS [UPDATED]]
 *
 * Page i is URL_PREFIX i ".html", with a Japanese title and author and,
 * when GROUPS > 0, group "グループ (i % GROUPS)".  With UPDATED (an epoch),
 * every page also gets what one `antenna update` at that time records for
 * a changed page: the text rule's update state (Last-Modified UPDATED - i
 * seconds) and one Atom update event (evstore.h), so that `antenna
 * publish` has N pages and N events without N HTTP checks (the pages
 * growth bench, bench/growth-pages.sh); run again with a later UPDATED
 * on the same pages, it is the next update run.  DB must exist
 * (`antenna init`).  One `antenna add` per page costs a process and a
 * transaction each; the benchmarks need thousands of pages, so they go
 * through the library's store API (store.h) the way `antenna add` does,
 * and `antenna update` then checks them like any others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buf.h"
#include "evstore.h"
#include "merge.h"
#include "store.h"

/* What update.c's save_page() and add_event() record for a page whose
 * text changed at lm, checked at now. */
static int mark_updated(store *s, evstore *ev, store_page *p, int64_t lm, int64_t now,
			char *err, size_t errlen)
{
	store_page got;
	ev_event e;
	int r;

	store_page_init(&got);
	if (store_page_get(s, p->url_key, &got, err, errlen) != 1)
		return -1;
	got.st.last_modified = lm;
	got.st.last_detected = now;
	got.st.last_ok = now;
	got.st.last_check = now;
	got.st.content_length = 1500;
	got.st.detected_by = "text";
	got.st.has_hash = 1;
	got.st.text_hash = (uint64_t)lm;
	r = store_page_save(s, &got, err, errlen);
	e = (ev_event){ .url = got.url, .last_modified = lm, .last_detected = now,
			.tz_offset = 32400, .content_length = 1500, .title = got.title,
			.author = got.author, .source_url = got.url };
	if (r == 0 && evstore_add(ev, &e, err, errlen) < 0)
		r = -1;
	store_page_release(&got);
	return r;
}

int main(int argc, char **argv)
{
	store *s;
	char err[512];
	long n, groups, i;
	int64_t updated;
	evstore *ev = NULL;
	lbuf url, key, title, group;
	int rc = 0;

	if (argc < 4) {
		fputs("usage: seed DB URL_PREFIX N [GROUPS [UPDATED]]\n", stderr);
		return 2;
	}
	err[0] = 0;
	n = atol(argv[3]);
	groups = argc > 4 ? atol(argv[4]) : 0;
	updated = argc > 5 ? atoll(argv[5]) : 0;
	if (store_open(&s, argv[1], STORE_OPEN_EXISTING, err, sizeof err) < 0 ||
	    (updated && evstore_attach(&ev, store_db(s), err, sizeof err) < 0) ||
	    store_begin(s, err, sizeof err) < 0) {
		fprintf(stderr, "seed: %s\n", err);
		return 2;
	}
	lbuf_init(&url); lbuf_init(&key); lbuf_init(&title); lbuf_init(&group);
	for (i = 0; i < n && rc == 0; i++) {
		store_page p;
		int r;

		lbuf_reset(&url); lbuf_reset(&key); lbuf_reset(&title); lbuf_reset(&group);
		if (lbuf_addf(&url, "%s%ld.html", argv[2], i) < 0 ||
		    merge_url_key(&key, url.data) < 0 ||
		    lbuf_addf(&title, "日記ページ %ld <&>", i) < 0 ||
		    (groups > 0 && lbuf_addf(&group, "グループ %ld", i % groups) < 0)) {
			fputs("seed: out of memory\n", stderr);
			rc = 2;
			break;
		}
		store_page_init(&p);
		p.url = url.data;
		p.url_key = key.data;
		p.title = title.data;
		p.title_set_by_user = 1;
		p.author = (char *)(i % 3 ? "山田太郎" : "");
		p.group = group.data;
		p.ignore = (char *)"";
		p.source_url = url.data;
		p.created = time(NULL);
		/* 1: already there; with UPDATED that is a later update run */
		if ((r = store_page_add(s, &p, err, sizeof err)) < 0 || (r == 1 && !updated) ||
		    (updated && mark_updated(s, ev, &p, updated - i, updated, err, sizeof err) != 0)) {
			fprintf(stderr, "seed: '%s': %s\n", url.data, err);
			rc = 2;
		}
	}
	if (rc == 0 && store_commit(s, err, sizeof err) < 0) {
		fprintf(stderr, "seed: %s\n", err);
		rc = 2;
	}
	lbuf_release(&url); lbuf_release(&key); lbuf_release(&title); lbuf_release(&group);
	evstore_close(ev);
	store_close(s);
	return rc;
}
