/*
 * fuzz_page_json: libFuzzer target for the JSON reader (page_json.c,
 * page_jsonpath.c) through ant_page_analyze().  The first byte picks the
 * Content-Type (application/json, a +json type in Shift_JIS, none and text/plain: the
 * body sniffed), the json: paths and expressions given to --only and
 * --ignore, and whether a previous version makes an excerpt; the second
 * byte, when 0x80 is set in the first, splits the rest: a JSON path of
 * the fuzzer's own (checked, then used as --only) and the body.
 */
#include "ant_page.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ctypes[] = { "application/json", "application/ld+json; charset=Shift_JIS", NULL,
					      "text/plain; charset=utf-8" };
	static const char *const ignore[] = { "json:$..id", "json:$.meta", "[0-9]{4}-[0-9]{2}" };
	static const char *const only[] = { "json:$.items[*].price", "json:$[*]", "json:$..*", "price: [0-9]+" };
	const char *own[1];
	char path[128];
	ant_page_info pi, p2;
	lb_error err = LB_ERROR_INIT;
	unsigned opt;
	size_t skip = 1;

	if (size < 1)
		return 0;
	opt = data[0];
	if ((opt & 0x80) && size >= 2) {
		size_t n = data[1] % 64 < size - 2 ? data[1] % 64 : size - 2;

		memcpy(path, "json:", 5);
		memcpy(path + 5, data + 2, n);
		path[5 + n] = '\0';
		skip = 2 + n;
		own[0] = path;
		if (strlen(path) != 5 + n || ant_page_only_check(path, &err) < 0)
			own[0] = NULL;
	} else {
		own[0] = NULL;
	}
	{
		ant_page_opts o = { .ignore = (opt & 4) ? ignore : NULL, .nignore = (opt & 4) ? 3 : 0 };
		const char *ct = ctypes[opt & 3];

		if (own[0]) {
			o.only = own;
			o.nonly = 1;
		} else if (opt & 0x18) {
			o.only = only + ((opt >> 3) & 3) - 1;
			o.nonly = 1;
		}
		if (ant_page_analyze((const char *)data + skip, size - skip, ct, &o, &pi, &err) < 0)
			return 0;
		for (size_t i = 0; i < pi.nseg; i++)
			if (strlen(ant_page_seg_path(&pi, i)) == (size_t)-1)
				abort();
		if (opt & 0x20) {   /* the same body as its own previous version: no excerpt */
			ant_page_prev prev = { pi.segs, pi.nsegs, (opt & 0x40) ? 3 : 0 };

			o.prev = &prev;
			if (ant_page_analyze((const char *)data + skip, size - skip, ct, &o, &p2, &err) == 0) {
				if (p2.excerpt || p2.text_hash != pi.text_hash)
					abort();   /* deterministic: the same reading twice */
				ant_page_info_release(&p2);
			}
		}
		ant_page_info_release(&pi);
	}
	return 0;
}
