/* fuzz/fuzz_validate.c: a `validate --json` result read as a gate input (ks_is_validate_result,
 * ks_profile_from_validate) from outside bytes. Crashes, memory errors and undefined behaviour
 * are the findings; an error must say something. */
#include "fuzz/fuzz.h"
#include "kinesift/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)ks_is_validate_result((const char *)data, size);
    ks_profile p;
    memset(&p, 0, sizeof p);
    ks_error err;
    if (ks_profile_from_validate("fuzz", (const char *)data, size, &p, &err) != KS_OK)
        FUZZ_CHECK(err.msg[0], "error without a message");
    ks_profile_free(&p);
    return 0;
}
