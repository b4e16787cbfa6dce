/* fuzz/fuzz_scan.c: the fast scanner of array elements (json/scan.h) against yajl. The first byte
 * picks the call that cancels (none for most inputs); the rest is the buffer. Whenever the scanner
 * accepts it, yajl must make the very same calls with the same arguments and consumed offsets and
 * end with the same status (fuzz/scan_diff.h). Refusals are fine: yajl reads those bytes. */
#include "fuzz/fuzz.h"
#include "fuzz/scan_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    uint32_t sel = fuzz_take(&in, 1);
    long cancel_at = sel < 224 ? -1 : (long)(sel - 224);
    scan_diff d = scan_compare(in.p, in.n, cancel_at);
    FUZZ_CHECK(d.same, "%s", d.why);
    return 0;
}
