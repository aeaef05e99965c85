/*
 * seed: add N watched pages to an antenna database in one transaction.
 *
 *   seed DB URL_PREFIX N [GROUPS]
 *
 * Page i is URL_PREFIX i ".html", with a Japanese title and author and,
 * when GROUPS > 0, group "グループ (i % GROUPS)".  DB must exist
 * (`antenna init`).  One `antenna add` per page costs a process and a
 * transaction each; the benchmarks need thousands of pages, so they go
 * through the library's store API (store.h) the way `antenna add` does,
 * and `antenna update` then checks them like any others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buf.h"
#include "merge.h"
#include "store.h"

int main(int argc, char **argv)
{
	store *s;
	char err[512];
	long n, groups, i;
	lbuf url, key, title, group;
	int rc = 0;

	if (argc < 4) {
		fputs("usage: seed DB URL_PREFIX N [GROUPS]\n", stderr);
		return 2;
	}
	err[0] = 0;
	n = atol(argv[3]);
	groups = argc > 4 ? atol(argv[4]) : 0;
	if (store_open(&s, argv[1], STORE_OPEN_EXISTING, err, sizeof err) < 0 ||
	    store_begin(s, err, sizeof err) < 0) {
		fprintf(stderr, "seed: %s\n", err);
		return 2;
	}
	lbuf_init(&url); lbuf_init(&key); lbuf_init(&title); lbuf_init(&group);
	for (i = 0; i < n && rc == 0; i++) {
		store_page p;

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
		if (store_page_add(s, &p, err, sizeof err) != 0) {
			fprintf(stderr, "seed: '%s': %s\n", url.data, err);
			rc = 2;
		}
	}
	if (rc == 0 && store_commit(s, err, sizeof err) < 0) {
		fprintf(stderr, "seed: %s\n", err);
		rc = 2;
	}
	lbuf_release(&url); lbuf_release(&key); lbuf_release(&title); lbuf_release(&group);
	store_close(s);
	return rc;
}
