/*
 * fuzz_import: libFuzzer target for the configuration parsers of antenna
 * import (src/import*.c).  The first byte picks the parser (0 samidare,
 * 1 tama, 2 OPML, 3 detection and the charset guess, then whatever was
 * detected, 4 JSON Lines), the rest is the file.  Every entry must have a URL and
 * non-NULL strings; ignore patterns must each pass ant_page_pattern_check();
 * diagnostics must have a message.  Seeds: tests/import/cases/ and the
 * peers' fixtures in tests/import/.
 */
#include "lb_buf.h"
#include "ant_import.h"
#include "import_int.h"
#include "ant_page.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int on_entry(void *ctx, const ant_imp_entry *e)
{
	lb_error err = LB_ERROR_INIT;

	(void)ctx;
	if (!e->url || !e->title || !e->author || !e->group || !e->ignore || !e->charset)
		abort();
	if (strlen(e->url) == 0)
		abort();
	for (const char *p = e->ignore; *p;) {
		size_t n = strcspn(p, "\n");
		char *one = strndup(p, n);
		if (!one || ant_page_pattern_check(one, &err) < 0)
			abort();
		free(one);
		p += n + (p[n] == '\n');
	}
	return 0;
}

static void on_diag(void *ctx, const ant_imp_diag *d)
{
	(void)ctx;
	if (!d->message || !*d->message)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ant_imp_opts o = { .on_entry = on_entry, .on_diag = on_diag, .name_hint = NULL };
	const char *buf = (const char *)data + 1;
	lb_buf u = LB_BUF_INIT;
	ant_imp_format f;

	if (size < 1)
		return 0;
	size--;
	switch (data[0] % 5) {
	case 0: f = ANT_IMP_FMT_SAMIDARE; break;
	case 1: f = ANT_IMP_FMT_TAMA; break;
	case 2: f = ANT_IMP_FMT_OPML; break;
	case 4: f = ANT_IMP_FMT_JSONL; break;
	default: f = ant_imp_detect(buf, size); break;
	}
	if (f == ANT_IMP_FMT_OPML) {
		ant_imp_parse_opml(buf, size, &o);
	} else if (f == ANT_IMP_FMT_SAMIDARE || f == ANT_IMP_FMT_TAMA || f == ANT_IMP_FMT_JSONL) {
		/* The command hands the parsers UTF-8, as here. */
		if (ant_imp_to_utf8(buf, size, data[0] & 0x80 ? "shift_jis" : NULL, &u)) {
			if (f == ANT_IMP_FMT_SAMIDARE)
				ant_imp_parse_samidare(u.data, u.len, &o);
			else if (f == ANT_IMP_FMT_JSONL)
				ant_imp_parse_jsonl(u.data, u.len, &o);
			else
				ant_imp_parse_tama(u.data, u.len, &o);
		}
	}
	lb_buf_release(&u);
	return 0;
}
