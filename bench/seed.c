/*
 * seed: add N watched pages to an antenna database in one transaction.
 *
 *   seed [--first K] DB URL_PREFIX N [GROUPS [UPDATED]]
 *
 * Page i (K <= i < K + N; K is 0 unless given) is URL_PREFIX i ".html", with a Japanese title and author and,
 * when GROUPS > 0, group "グループ (i % GROUPS)".  With UPDATED (an epoch),
 * every page also gets what one `antenna update` at that time records for
 * a changed page: the text rule's update state (Last-Modified UPDATED - i
 * seconds) and one Atom update event (atom_evstore.h), so that `antenna
 * publish` has N pages and N events without N HTTP checks (the pages
 * growth bench, bench/growth-pages.sh); run again with a later UPDATED
 * on the same pages, it is the next update run.  DB must exist
 * (`antenna init`).  One `antenna add` per page costs a process and a
 * transaction each; the benchmarks need thousands of pages, so they go
 * through the library's store API (ant_store.h) the way `antenna add` does,
 * and `antenna update` then checks them like any others.  --first K gives
 * one shard of a federation its share of the pages (tests/federation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lb_buf.h"
#include "atom_evstore.h"
#include "lirs_merge.h"
#include "ant_store.h"

/* What update.c's ant_upd_save_page() and add_event() record for a page whose
 * text changed at lm, checked at now. */
static int mark_updated(ant_store *s, atom_evstore *ev, ant_store_page *p, int64_t lm, int64_t now,
			lb_error *err)
{
	ant_store_page got;
	atom_ev_event e;
	int r;

	ant_store_page_init(&got);
	if (ant_store_page_get(s, p->url_key, &got, err) != 1)
		return -1;
	got.st.last_modified = lm;
	got.st.last_detected = now;
	got.st.last_ok = now;
	got.st.last_check = now;
	got.st.content_length = 1500;
	got.st.detected_by = "text";
	got.st.has_hash = 1;
	got.st.text_hash = (uint64_t)lm;
	r = ant_store_page_save(s, &got, err);
	e = (atom_ev_event){ .url = got.url, .last_modified = lm, .last_detected = now,
			.tz_offset = 32400, .content_length = 1500, .title = got.title,
			.author = got.author, .source_url = got.url };
	if (r == 0 && atom_evstore_add(ev, &e, err) < 0)
		r = -1;
	ant_store_page_release(&got);
	return r;
}

int main(int argc, char **argv)
{
	ant_store *s;
	lb_error err = LB_ERROR_INIT;
	long n, groups, i, first = 0;
	int64_t updated;
	atom_evstore *ev = NULL;
	lb_buf url, key, title, group;
	int rc = 0;

	if (argc > 2 && strcmp(argv[1], "--first") == 0) {
		first = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4) {
		fputs("usage: seed [--first K] DB URL_PREFIX N [GROUPS [UPDATED]]\n", stderr);
		return 2;
	}
	n = atol(argv[3]);
	groups = argc > 4 ? atol(argv[4]) : 0;
	updated = argc > 5 ? atoll(argv[5]) : 0;
	if (ant_store_open(&s, argv[1], ANT_STORE_OPEN_EXISTING, &err) < 0 ||
	    (updated && atom_evstore_attach(&ev, ant_store_db(s), &err) < 0) ||
	    ant_store_begin(s, &err) < 0) {
		fprintf(stderr, "seed: %s\n", lb_error_msg(&err));
		return 2;
	}
	lb_buf_init(&url); lb_buf_init(&key); lb_buf_init(&title); lb_buf_init(&group);
	for (i = first; i < first + n && rc == 0; i++) {
		ant_store_page p;
		int r;

		lb_buf_reset(&url); lb_buf_reset(&key); lb_buf_reset(&title); lb_buf_reset(&group);
		if (lb_buf_addf(&url, "%s%ld.html", argv[2], i) < 0 ||
		    lb_url_key(&key, url.data) < 0 ||
		    lb_buf_addf(&title, "日記ページ %ld <&>", i) < 0 ||
		    (groups > 0 && lb_buf_addf(&group, "グループ %ld", i % groups) < 0)) {
			fputs("seed: out of memory\n", stderr);
			rc = 2;
			break;
		}
		ant_store_page_init(&p);
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
		if ((r = ant_store_page_add(s, &p, &err)) < 0 || (r == 1 && !updated) ||
		    (updated && mark_updated(s, ev, &p, updated - i, updated, &err) != 0)) {
			fprintf(stderr, "seed: '%s': %s\n", url.data, lb_error_msg(&err));
			rc = 2;
		}
	}
	if (rc == 0 && ant_store_commit(s, &err) < 0) {
		fprintf(stderr, "seed: %s\n", lb_error_msg(&err));
		rc = 2;
	}
	lb_buf_release(&url); lb_buf_release(&key); lb_buf_release(&title); lb_buf_release(&group);
	atom_evstore_close(ev);
	ant_store_close(s);
	return rc;
}
