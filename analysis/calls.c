/* analysis/calls.c: which CUDA/HIP runtime and driver API calls block the host until the GPU is
 * done (the sync diagnosis and the what-if replay ask here; one table for every platform).
 * Synchronize calls and the synchronous copies; their asynchronous forms (...Async) do not block
 * and are not listed. Driver names carry version or per-thread-stream suffixes (cuMemcpyDtoH_v2,
 * cudaMemcpy_ptds): a suffix of that form is ignored. A call not in the table is taken as
 * non-blocking: a blocking call missing here is missed, never invented. */
#include <string.h>

#include "analysis/analysis_int.h"

static const struct {
    const char *name;
    int platform; /* KS_PLATFORM_CUDA or KS_PLATFORM_HIP */
} blocking[] = {
    {"cudaDeviceSynchronize", KS_PLATFORM_CUDA}, {"cudaStreamSynchronize", KS_PLATFORM_CUDA},
    {"cudaEventSynchronize", KS_PLATFORM_CUDA},  {"cudaMemcpy", KS_PLATFORM_CUDA},
    {"cudaMemcpy2D", KS_PLATFORM_CUDA},          {"cudaMemcpy3D", KS_PLATFORM_CUDA},
    {"cudaMemcpyToSymbol", KS_PLATFORM_CUDA},    {"cudaMemcpyFromSymbol", KS_PLATFORM_CUDA},
    {"cudaMemcpyPeer", KS_PLATFORM_CUDA},        {"cuCtxSynchronize", KS_PLATFORM_CUDA},
    {"cuStreamSynchronize", KS_PLATFORM_CUDA},   {"cuEventSynchronize", KS_PLATFORM_CUDA},
    {"cuMemcpy", KS_PLATFORM_CUDA},              {"cuMemcpyDtoH", KS_PLATFORM_CUDA},
    {"cuMemcpyHtoD", KS_PLATFORM_CUDA},          {"cuMemcpy2D", KS_PLATFORM_CUDA},
    {"cuMemcpy3D", KS_PLATFORM_CUDA},            {"hipDeviceSynchronize", KS_PLATFORM_HIP},
    {"hipStreamSynchronize", KS_PLATFORM_HIP},   {"hipEventSynchronize", KS_PLATFORM_HIP},
    {"hipMemcpy", KS_PLATFORM_HIP},              {"hipMemcpyWithStream", KS_PLATFORM_HIP},
    {"hipMemcpy2D", KS_PLATFORM_HIP},            {"hipMemcpy3D", KS_PLATFORM_HIP},
    {"hipMemcpyDtoH", KS_PLATFORM_HIP},          {"hipMemcpyHtoD", KS_PLATFORM_HIP},
    {"hipMemcpyToSymbol", KS_PLATFORM_HIP},      {"hipMemcpyFromSymbol", KS_PLATFORM_HIP},
    {"hipCtxSynchronize", KS_PLATFORM_HIP},
};

/* 1 when rest is empty or a version/per-thread suffix: _v2, _v3, _ptds, _ptsz */
static int plain_suffix(const char *rest)
{
    return !*rest || !strcmp(rest, "_v2") || !strcmp(rest, "_v3") || !strcmp(rest, "_ptds") ||
           !strcmp(rest, "_ptsz") || !strcmp(rest, "_v2_ptds") || !strcmp(rest, "_v2_ptsz");
}

int ks_blocking_call_platform(const char *n)
{
    for (size_t i = 0; i < sizeof blocking / sizeof blocking[0]; i++) {
        size_t len = strlen(blocking[i].name);
        if (!strncmp(n, blocking[i].name, len) && plain_suffix(n + len))
            return blocking[i].platform;
    }
    return 0;
}

int ks_is_blocking_call(const char *n)
{
    return ks_blocking_call_platform(n) != 0;
}
