/*
 * fuzz_page: libFuzzer target for ant_page_analyze().
 * The first byte picks the Content-Type charset (none, UTF-8, Shift_JIS,
 * EUC-JP, ISO-2022-JP, UTF-16, an unknown one) and whether ignore
 * patterns are used; the rest is the page.
 */
#include "ant_page.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ctypes[] = {
		NULL, "text/html; charset=utf-8", "text/html; charset=Shift_JIS",
		"text/html; charset=EUC-JP", "text/html; charset=ISO-2022-JP",
		"text/html; charset=utf-16", "text/html; charset=x-unknown", "text/html",
	};
	static const char *const ignore[] = { "#counter", ".ad", "[0-9]+ hits", "x*" };
	ant_page_info pi;
	lb_error err = LB_ERROR_INIT;
	unsigned opt;

	if (size < 1)
		return 0;
	opt = data[0];
	if (ant_page_analyze((const char *)data + 1, size - 1, ctypes[opt & 7],
			 (opt & 8) ? ignore : NULL, (opt & 8) ? 4 : 0, &pi, &err) == 0)
		ant_page_info_release(&pi);
	return 0;
}
