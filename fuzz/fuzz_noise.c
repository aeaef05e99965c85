/*
 * fuzz_noise: libFuzzer target for the noise state's blob decoder
 * (ant_detect_noise_decode(), src/antenna/detect_noise_blob.c): it reads
 * what the database holds, and a damaged or foreign file must give an
 * error, never a crash.  A blob that decodes must encode again and decode
 * to the same state (the keys sorted, the volatile blocks and suspects
 * kept), and the decided state must stay usable: a check against it runs.
 */
#include "ant_detect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ant_detect_noise n, m;
	ant_detect_verdict v;
	unsigned char *blob;
	size_t len;
	ant_detect_seg segs[3] = { { 7, 1, 10, NULL }, { 7, 2, 10, NULL }, { 9, 5, 100, NULL } };

	if (ant_detect_noise_decode(&n, data, size) < 0)
		return 0;
	if (ant_detect_noise_encode(&n, &blob, &len) == 0) {
		if (ant_detect_noise_decode(&m, blob, len) != 0 || m.nkeys != n.nkeys ||
		    m.nvol != n.nvol || m.nsus != n.nsus || m.has_keys != n.has_keys ||
		    (n.nkeys && memcmp(m.keys, n.keys, n.nkeys * sizeof *n.keys) != 0))
			abort();
		ant_detect_noise_release(&m);
		free(blob);
	}
	memset(&v, 0, sizeof v);
	if (ant_detect_noise_decide(&n, segs, 3, NULL, 0, 1, 1700000000, &v) == 0)
		ant_detect_verdict_release(&v);
	ant_detect_noise_release(&n);
	return 0;
}
