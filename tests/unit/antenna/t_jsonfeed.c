/*
 * t_jsonfeed.c: DIR/feed.json (publish_jsonfeed.c): whatever bytes the
 * titles, authors and excerpts hold (a hostile source's), the file is one
 * valid JSON document, read back whole by json-c; items come in the order
 * given with the ids given; a javascript: URL is left out; a feed closed
 * as failed leaves no feed.json and the old one in place.
 */
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "publish_jsonfeed.h"
#include "tap.h"

static char dir[] = "/tmp/t_jsonfeed.XXXXXX";

static json_object *read_feed(void)
{
	char path[256];

	snprintf(path, sizeof path, "%s/feed.json", dir);
	return json_object_from_file(path);
}

static const char *str_at(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* n items of hostile strings (every byte value, bad UTF-8, quotes, NUL-free) */
static int write_feed(size_t n, int ok)
{
	static const char *const hubs[] = { "https://hub.example/\"x\"" };
	ant_jsonfeed_head h = { .title = "t\"\\\x01\xff", .base = "https://a.example/",
				.author = "管理人", .lang = "ja", .hubs = hubs, .nhubs = 1 };
	ant_jsonfeed *jf;
	char title[300], id[64];
	int rc;

	if ((rc = ant_jsonfeed_open(&jf, dir, &h, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		for (int b = 0; b < 255; b++)
			title[b] = (char)((b + i) % 255 + 1);
		title[255] = '\0';
		snprintf(id, sizeof id, "tag:a.example,2024-01-01:url:%zu", i);
		rc = ant_jsonfeed_item(jf, &(atom_ev_event){ .url = i % 2 ? "javascript:alert(1)" :
				"https://b.example/?a=\"1\"", .last_modified = 1700000000 + (int64_t)i,
				.title = title, .author = i % 3 ? "" : "\xe3\x81\x82\xc0\xaf",
				.source_url = "", .excerpt = i % 5 ? NULL : "ex\"</script>\n" }, id);
	}
	return ant_jsonfeed_close(jf, ok && rc == 0, NULL);
}

int main(void)
{
	json_object *o, *items, *it;
	int good = 1;

	TAP_PLAN(9);
	if (!mkdtemp(dir))
		return 1;
	IS_INT(write_feed(5000, 1), 0, "5,000 items of hostile strings written");
	o = read_feed();
	OK(o != NULL, "json-c reads feed.json back whole");
	IS_STR(o ? str_at(o, "version") : "", "https://jsonfeed.org/version/1.1", "version 1.1");
	IS_STR(o ? str_at(o, "feed_url") : "", "https://a.example/feed.json", "feed_url under the base");
	OK(o && json_object_object_get_ex(o, "items", &items) && json_object_array_length(items) == 5000,
	   "every item is there");
	for (size_t i = 0; o && good && i < 5000; i++) {
		char id[64];

		it = json_object_array_get_idx(items, i);
		snprintf(id, sizeof id, "tag:a.example,2024-01-01:url:%zu", i);
		good = !strcmp(str_at(it, "id"), id) && str_at(it, "content_text") &&
		       (i % 2 ? !str_at(it, "url") : !strcmp(str_at(it, "url"), "https://b.example/?a=\"1\""));
	}
	OK(o && good, "in order, with their ids, content_text, and no javascript: url");
	OK(o && !strcmp(str_at(json_object_array_get_idx(items, 0), "content_text"), "ex\"</script>\n"),
	   "an excerpt comes back byte for byte");
	json_object_put(o);
	IS_INT(write_feed(10, 0), 0, "a feed closed as failed");
	o = read_feed();
	OK(o && json_object_object_get_ex(o, "items", &items) && json_object_array_length(items) == 5000,
	   "... leaves the old feed.json in place");
	json_object_put(o);
	{
		char cmd[300];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return 1;
	}
	TAP_DONE();
}
