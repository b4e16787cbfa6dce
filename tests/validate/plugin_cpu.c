/* tests/validate/plugin_cpu.c: a workload plugin for the loader tests, built several ways by
 * -D flags: a valid table (its run() does no GPU work: it is never timed without a GPU), a
 * wrong ABI version, a table too small, one variant only, and no entry point at all. */
#include <stdio.h>

#include "kinesift/workload.h"

#ifndef NO_ENTRY
static const char *const variants[] = {"slow", "fast"};

static int setup(void **state, int device, int n, const char *const *params, char *err,
                 size_t errlen)
{
    (void)device, (void)n, (void)params, (void)err, (void)errlen;
    *state = NULL;
    return KS_WL_OK;
}

static int run(void *state, uint32_t variant, void *stream, char *err, size_t errlen)
{
    (void)state, (void)variant, (void)stream;
    snprintf(err, errlen, "the CPU test plugin does not run");
    return KS_WL_ERROR;
}

static const ks_workload table = {
#ifdef BAD_ABI
    KS_WORKLOAD_ABI_VERSION + 98,
#else
    KS_WORKLOAD_ABI_VERSION,
#endif
#ifdef SMALL_TABLE
    16,
#else
    sizeof(ks_workload),
#endif
    "cpu-test", "a test table",
#ifdef ONE_VARIANT
    1,
#else
    2,
#endif
    variants, setup, run, NULL, NULL,
};

const ks_workload *kinesift_workload_v1(void);
const ks_workload *kinesift_workload_v1(void)
{
    return &table;
}
#else
int not_a_workload(void);
int not_a_workload(void)
{
    return 0;
}
#endif
