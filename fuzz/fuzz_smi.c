/* fuzz/fuzz_smi.c: the nvidia-smi CSV reader (ks_telemetry_load) on outside bytes, aligned on a
 * fixed trace. The first byte sets --smi-tz (UTC or a whole-hour offset), the next four a signed
 * --smi-offset in ms, the next one --smi-gpu (none, index 0, or a UUID); the rest is the CSV, read
 * from a memory file. Every kept sample's GPU is a known one; window statistics stay in order. */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fixture.h"

static fuzz_fixture fx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_fixture_load(&fx);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fx.a)
        LLVMFuzzerInitialize(NULL, NULL);
    fuzz_in in = {data, size};
    ks_smi_opts o;
    memset(&o, 0, sizeof o);
    o.tz_set = 1;
    o.tz_offset_ns = ((int)fuzz_take(&in, 1) % 27 - 13) * 3600LL * 1000000000LL;
    o.offset_ns = (int32_t)fuzz_take(&in, 4) * 1000000LL;
    uint32_t g = fuzz_take(&in, 1) % 3;
    o.gpu = g == 0 ? NULL : g == 1 ? "0" : "GPU-0b5e1d6c-0000-4000-8000-000000000001";

    int fd = memfd_create("smi", 0);
    FUZZ_CHECK(fd >= 0, "memfd_create");
    FUZZ_CHECK(write(fd, in.p, in.n) == (ssize_t)in.n, "write");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    o.path = path;
    ks_telemetry tm;
    ks_error err;
    if (ks_telemetry_load(&o, fx.a, &fx.steps, &tm, &err) == KS_OK) {
        for (size_t i = 0; i < tm.n; i++)
            FUZZ_CHECK(tm.s[i].gpu < tm.nuuids, "sample %zu: gpu %u of %zu", i, tm.s[i].gpu, tm.nuuids);
        const ks_smi_stats *w = &tm.window;
        FUZZ_CHECK(w->util_known <= w->n && w->mem_known <= w->n, "more known values than samples");
        if (w->util_known)
            FUZZ_CHECK(!(w->util_min > w->util_mean) && !(w->util_mean > w->util_max), "min/mean/max out of order");
        ks_telemetry_free(&tm);
    } else {
        FUZZ_CHECK(err.msg[0], "error without a message");
    }
    close(fd);
    return 0;
}
