/*
 * fuzz_page: libFuzzer target for ant_page_analyze().
 * The first byte picks the Content-Type charset (none, UTF-8, Shift_JIS,
 * EUC-JP, ISO-2022-JP, UTF-16, an unknown one), whether ignore patterns
 * are used, whether only patterns are (selectors, expressions, both), and
 * whether the segments' excerpt and noise form are made; the rest is the
 * page.
 */
#include "ant_noise.h"
#include "ant_page.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ctypes[] = {
		NULL, "text/html; charset=utf-8", "text/html; charset=Shift_JIS",
		"text/html; charset=EUC-JP", "text/html; charset=ISO-2022-JP",
		"text/html; charset=utf-16", "text/html; charset=x-unknown", "text/html",
	};
	static const char *const ignore[] = { "#counter", ".ad", "[0-9]+ hits", "x*" };
	static const char *const only[] = { "#main", ".entry", "[a-z]+ [0-9]+", "y*" };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	unsigned opt;

	if (size < 1)
		return 0;
	opt = data[0];
	if (!(opt & 0x30)) {
		ant_page_opts o = { .ignore = (opt & 8) ? ignore : NULL, .nignore = (opt & 8) ? 4 : 0 };

		if (ant_page_analyze((const char *)data + 1, size - 1, ctypes[opt & 7], &o, &pi, &err) == 0)
			ant_page_info_release(&pi);
		return 0;
	}
	{
		/* 0x10: selectors, 0x20: expressions, both: all four */
		size_t first = (opt & 0x30) == 0x20 ? 2 : 0, n = (opt & 0x30) == 0x30 ? 4 : 2;
		ant_page_opts o = { .ignore = (opt & 8) ? ignore : NULL, .nignore = (opt & 8) ? 4 : 0,
				    .only = only + first, .nonly = n };

		/* the noise scanner on any bytes, not only a page's UTF-8 text */
		(void)ant_noise_hash((const char *)data + 1, size - 1);
		if (ant_page_analyze((const char *)data + 1, size - 1, ctypes[opt & 7], &o, &pi, &err) < 0)
			return 0;
		if (opt & 0x40) {
			unsigned char *pick = malloc(pi.nseg + 1);
			lb_buf b = LB_BUF_INIT;
			char *x;

			for (size_t i = 0; pick && i < pi.nseg; i++) {
				pick[i] = (unsigned char)(i & 1);
				ant_noise_normalize(pi.text + pi.seg[i].off, pi.seg[i].len, &b);
				(void)ant_page_seg_path(&pi, i);
			}
			if (pick && (x = ant_page_excerpt(&pi, pick, opt & 0x80 ? 3 : 0)))
				free(x);
			free(pick);
			lb_buf_release(&b);
		}
		ant_page_info_release(&pi);
	}
	return 0;
}
