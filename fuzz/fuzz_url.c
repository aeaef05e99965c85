/*
 * fuzz_url: libFuzzer target for the URL parsers the merge and the
 * antenna key records by: lb_url_key() must never crash and must be
 * idempotent (a key is its own key), and lb_url_is_http() must agree
 * about a URL and its key.
 */
#include "lb_buf.h"
#include "lb_url.h"
#include "lirs.h"
#include "lirs_merge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lb_buf url = LB_BUF_INIT, k1 = LB_BUF_INIT, k2 = LB_BUF_INIT;

	if (memchr(data, '\0', size))
		return 0;
	lb_buf_add(&url, data, size);
	if (lb_url_key(&k1, url.data) != 0 || lb_url_key(&k2, k1.data) != 0)
		abort();
	if (strcmp(k1.data, k2.data) != 0)
		abort();
	if (lb_url_is_http(url.data) != lb_url_is_http(k1.data))
		abort();
	lb_buf_release(&url);
	lb_buf_release(&k1);
	lb_buf_release(&k2);
	return 0;
}
