/*
 * fuzz_selector: libFuzzer target for the css:, xpath: and range: patterns
 * (ant_page.h): the CSS-to-XPath translator (page_css.c) and the pattern
 * check over any bytes; then, when the pattern compiles, the page
 * analysis with it as an --only and as an --ignore pattern over a small
 * fixed page (the tree walk, libxml2's XPath under ANT_PAGE_XPATH_OPS).
 * The first byte picks the kind (css:, xpath:, range:, none); the rest,
 * up to the first NUL, is the pattern.
 */
#include "ant_page.h"
#include "lb_buf.h"
#include "page_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char page[] =
	"<!DOCTYPE html><html><head><title>t</title></head><body><div id=\"main\" class=\"a b\">"
	"<h1>Head</h1><p lang=\"en-GB\" data-x=\"it's\">One 120円</p><ul><li>a</li><li class=\"b\">b</li>"
	"<li>c</li></ul><table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table></div>"
	"<div class=\"foot\">Next: 3 May ... Contact</div></body></html>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefix[] = { "css:", "xpath:", "range:", "" };
	lb_buf pat = LB_BUF_INIT, x = LB_BUF_INIT;
	lb_error err = LB_ERROR_INIT;
	const char *pats[1];
	ant_page_info pi;

	if (size < 1)
		return 0;
	lb_buf_adds(&pat, prefix[data[0] & 3]);
	lb_buf_add(&pat, data + 1, strnlen((const char *)data + 1, size - 1));
	if ((data[0] & 3) == 0)
		(void)ant_page_css_xpath(pat.data + 4, "only", &x, &err);
	if (ant_page_only_check(pat.data, &err) == 0 && (data[0] & 3) != 3) {
		ant_page_opts o = { .only = pats, .nonly = 1 };

		pats[0] = pat.data;
		if (data[0] & 4) {
			o.ignore = pats, o.nignore = 1;
			o.only = NULL, o.nonly = 0;
		}
		ant_page_analyze(page, sizeof page - 1, "text/html; charset=utf-8", &o, &pi, &err);
		ant_page_info_release(&pi);
	}
	lb_buf_release(&pat);
	lb_buf_release(&x);
	return 0;
}
