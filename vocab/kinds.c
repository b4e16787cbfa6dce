/* vocab/kinds.c: the kinds of events: a category (and, for legacy files, a name) to a ks_kind,
 * a kind's name, and which kinds are GPU work, device side or CPU side. Spellings from
 * Kineto's ActivityType.h and the legacy names of 2020-22 files (docs/trace-format.md section 3.1).
 * Device work kinesift can measure is kernel, memcpy, memset; other accelerators' device events
 * (mtia_ccp_events, hpu_op, and any unknown category whose slices carry args.device or
 * args.stream, ks_classify_event) are KS_K_DEVICE_OTHER: device activity it does not interpret. */
#include <string.h>

#include "kinesift/store.h"

typedef struct { const char *cat; ks_kind kind; } cat_map;

static const cat_map cats[] = {
    {"cpu_op", KS_K_CPU_OP},
    {"Operator", KS_K_CPU_OP},
    {"user_annotation", KS_K_USER_ANNOTATION},
    {"User", KS_K_USER_ANNOTATION},
    {"gpu_user_annotation", KS_K_GPU_ANNOTATION},
    {"python_function", KS_K_PYTHON},
    {"Python", KS_K_PYTHON},
    {"cuda_runtime", KS_K_RUNTIME},
    {"Runtime", KS_K_RUNTIME},
    {"cuda_driver", KS_K_DRIVER},
    {"kernel", KS_K_KERNEL},
    {"Kernel", KS_K_KERNEL},
    {"gpu_memcpy", KS_K_MEMCPY},
    {"Memcpy", KS_K_MEMCPY},
    {"gpu_memset", KS_K_MEMSET},
    {"Memset", KS_K_MEMSET},
    {"cuda_sync", KS_K_SYNC},
    {"xpu_sync", KS_K_SYNC},
    {"cuda_event", KS_K_CUDA_EVENT},
    {"cpu_instant_event", KS_K_INSTANT},
    {"overhead", KS_K_OVERHEAD},
    {"Trace", KS_K_TRACE_SPAN},
    {"ac2g", KS_K_FLOW_LAUNCH},
    {"async_cpu_to_gpu", KS_K_FLOW_LAUNCH},
    {"async_gpu", KS_K_FLOW_LAUNCH},
    {"async", KS_K_FLOW_LAUNCH},
    {"fwdbwd", KS_K_FLOW_FWDBWD},
    {"forward_backward", KS_K_FLOW_FWDBWD},
    {"fwd_bwd", KS_K_FLOW_FWDBWD},
    {"mtia_ccp_events", KS_K_DEVICE_OTHER},
    {"hpu_op", KS_K_DEVICE_OTHER},
};

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && !memcmp(s + n - m, suf, m);
}

static ks_kind one(const char *cat, size_t n)
{
    for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++)
        if (strlen(cats[i].cat) == n && !memcmp(cats[i].cat, cat, n))
            return cats[i].kind;
    if (ends_with(cat, n, "_runtime"))
        return KS_K_RUNTIME; /* mtia_runtime, xpu_runtime, privateuse1_runtime, glow_runtime */
    if (ends_with(cat, n, "_driver"))
        return KS_K_DRIVER;
    return KS_K_OTHER;
}

ks_kind ks_classify(const char *cat, size_t catlen, const char *name, size_t namelen)
{
    ks_kind k = KS_K_OTHER;
    if (cat && catlen) {
        k = one(cat, catlen);
        if (k == KS_K_OTHER && memchr(cat, ',', catlen)) {
            /* comma-separated categories: the first known one decides */
            size_t i = 0;
            while (i < catlen && k == KS_K_OTHER) {
                size_t j = i;
                while (j < catlen && cat[j] != ',')
                    j++;
                size_t a = i, b = j;
                while (a < b && cat[a] == ' ')
                    a++;
                while (b > a && cat[b - 1] == ' ')
                    b--;
                k = one(cat + a, b - a);
                i = j + 1;
            }
        }
    }
    if (k == KS_K_OTHER && name && namelen) {
        /* legacy flow names without a known category */
        if ((namelen == 9 && !memcmp(name, "async_gpu", 9)) || (namelen == 4 && !memcmp(name, "ac2g", 4)))
            k = KS_K_FLOW_LAUNCH;
        else if ((namelen == 7 && !memcmp(name, "fwd_bwd", 7)) || (namelen == 6 && !memcmp(name, "fwdbwd", 6)))
            k = KS_K_FLOW_FWDBWD;
    }
    return k;
}

ks_kind ks_classify_event(ks_kind k, char ph, uint32_t flags)
{
    /* an accelerator kinesift has no table for still says where its events ran: a slice of an
     * unknown category placed on a device or stream is device activity (never a CPU op) */
    if (k == KS_K_OTHER && (ph == 'X' || ph == 'B' || ph == 'E') && (flags & (KS_EF_DEVICE | KS_EF_STREAM)))
        return KS_K_DEVICE_OTHER;
    return k;
}

static const char *const kind_names[KS_K_COUNT] = {
    [KS_K_OTHER] = "other",
    [KS_K_CPU_OP] = "cpu_op",
    [KS_K_USER_ANNOTATION] = "user_annotation",
    [KS_K_GPU_ANNOTATION] = "gpu_user_annotation",
    [KS_K_PYTHON] = "python_function",
    [KS_K_RUNTIME] = "runtime",
    [KS_K_DRIVER] = "driver",
    [KS_K_KERNEL] = "kernel",
    [KS_K_MEMCPY] = "memcpy",
    [KS_K_MEMSET] = "memset",
    [KS_K_SYNC] = "sync",
    [KS_K_CUDA_EVENT] = "cuda_event",
    [KS_K_INSTANT] = "instant",
    [KS_K_OVERHEAD] = "overhead",
    [KS_K_TRACE_SPAN] = "trace_span",
    [KS_K_FLOW_LAUNCH] = "flow_launch",
    [KS_K_FLOW_FWDBWD] = "flow_fwdbwd",
    [KS_K_DEVICE_OTHER] = "device_other",
};

const char *ks_kind_name(ks_kind k)
{
    return (k >= 0 && k < KS_K_COUNT) ? kind_names[k] : "?";
}

int ks_kind_is_gpu_work(ks_kind k)
{
    return k == KS_K_KERNEL || k == KS_K_MEMCPY || k == KS_K_MEMSET;
}

int ks_kind_is_device_side(ks_kind k)
{
    return k == KS_K_KERNEL || k == KS_K_MEMCPY || k == KS_K_MEMSET || k == KS_K_GPU_ANNOTATION ||
           k == KS_K_SYNC || k == KS_K_CUDA_EVENT || k == KS_K_DEVICE_OTHER;
}

int ks_kind_is_cpu_side(ks_kind k)
{
    return k == KS_K_CPU_OP || k == KS_K_USER_ANNOTATION || k == KS_K_PYTHON ||
           k == KS_K_RUNTIME || k == KS_K_DRIVER;
}
