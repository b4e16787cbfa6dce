/* vocab/calls.c: which CUDA/HIP runtime and driver API calls block the host until the GPU is
 * done (the sync diagnosis and the what-if replay ask here; one table for every platform).
 * Synchronize calls and the synchronous copies; their asynchronous forms (...Async) do not block
 * and are not listed. Driver names carry version or per-thread-stream suffixes (cuMemcpyDtoH_v2,
 * cudaMemcpy_ptds): a suffix of that form is ignored. A call not in the table is taken as
 * non-blocking: a blocking call missing here is missed, never invented. The second table tells
 * launches (kernel, graph, copy, set) from the other runtime calls, for the links line. */
#include <stdlib.h>
#include <string.h>

#include "vocab/calls.h"
#include "common/util.h"

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

/* ---- launches apart from other runtime calls ------------------------------------------------ */

/* Prefixes of the calls that put work on a device: kernel launches (runtime, driver, HIP module
 * and extension forms), graph launches, copies and sets (synchronous or not). Every other
 * runtime/driver call (cudaEventQuery, cudaFuncSetAttribute, cudaStreamGetPriority...) is not a
 * launch. cudaLaunchHostFunc queues host code, not device work: it is not a launch. */
static const struct {
    const char *prefix;
    int kind;
} launch_prefixes[] = {
    {"cudaLaunchHostFunc", 0},           {"cuLaunchHostFunc", 0},
    {"cudaGraphLaunch", KS_LAUNCH_GRAPH}, {"cuGraphLaunch", KS_LAUNCH_GRAPH},
    {"hipGraphLaunch", KS_LAUNCH_GRAPH}, {"cudaLaunch", KS_LAUNCH_KERNEL},
    {"cuLaunch", KS_LAUNCH_KERNEL},      {"hipLaunch", KS_LAUNCH_KERNEL},
    {"hipExtLaunch", KS_LAUNCH_KERNEL},  {"hipModuleLaunch", KS_LAUNCH_KERNEL},
    {"hipExtModuleLaunch", KS_LAUNCH_KERNEL}, {"hipHccModuleLaunch", KS_LAUNCH_KERNEL},
    {"cudaMemcpy", KS_LAUNCH_MEMCPY},    {"cuMemcpy", KS_LAUNCH_MEMCPY},
    {"hipMemcpy", KS_LAUNCH_MEMCPY},     {"cudaMemset", KS_LAUNCH_MEMSET},
    {"cuMemset", KS_LAUNCH_MEMSET},      {"hipMemset", KS_LAUNCH_MEMSET},
};

int ks_launch_call_kind(const char *n)
{
    for (size_t i = 0; i < sizeof launch_prefixes / sizeof launch_prefixes[0]; i++)
        if (!strncmp(n, launch_prefixes[i].prefix, strlen(launch_prefixes[i].prefix)))
            return launch_prefixes[i].kind;
    return 0;
}


/* ---- set-up calls and graph capture ---------------------------------------------------------- */

/* Calls that set a process up rather than run its steps: device memory reservations and their
 * release (the caching allocator growing or emptying), pinned host memory, stream creation and
 * stream-priority queries, module loading, context creation. Each can legitimately appear in a
 * step; a capture in which they take most of the time records start-up, not the steady state. */
static const char *const init_prefixes[] = {
    "cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister",
    "cudaStreamCreate", "cudaDeviceGetStreamPriorityRange", "cudaStreamGetPriority",
    "cudaGetDeviceProperties", "cudaSetDevice", "cudaDeviceSetLimit", "cuInit", "cuMemAlloc",
    "cuMemFree", "cuMemHostAlloc", "cuMemCreate", "cuMemMap", "cuModuleLoad", "cuLibraryLoad",
    "cuDevicePrimaryCtxRetain", "cuCtxCreate", "cuStreamCreate", "hipMalloc", "hipFree",
    "hipHostMalloc", "hipHostFree", "hipHostRegister", "hipStreamCreate",
    "hipDeviceGetStreamPriorityRange", "hipStreamGetPriority", "hipGetDeviceProperties",
    "hipSetDevice", "hipModuleLoad", "hipExtMallocWithFlags",
};

static int has_prefix(const char *n, const char *const *v, size_t nv)
{
    for (size_t i = 0; i < nv; i++)
        if (!strncmp(n, v[i], strlen(v[i])))
            return 1;
    return 0;
}

int ks_is_init_call(const char *n)
{
    return has_prefix(n, init_prefixes, sizeof init_prefixes / sizeof init_prefixes[0]);
}

/* Stream capture into a graph: launches between begin and end capture are recorded into the
 * graph, not run; they run when the graph is launched (cudaGraphLaunch). */
static const char *const capture_prefixes[] = {
    "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaGraphInstantiate", "cuStreamBeginCapture",
    "cuStreamEndCapture", "cuGraphInstantiate", "hipStreamBeginCapture", "hipStreamEndCapture",
    "hipGraphInstantiate",
};

int ks_is_capture_call(const char *n)
{
    return has_prefix(n, capture_prefixes, sizeof capture_prefixes / sizeof capture_prefixes[0]);
}

/* Allocator calls only (a subset of the set-up calls): what allocator growth shows as. */
int ks_is_alloc_call(const char *n)
{
    static const char *const v[] = {"cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemFree", "hipMalloc",
                                    "hipFree", "hipExtMallocWithFlags"};
    return has_prefix(n, v, sizeof v / sizeof v[0]);
}
