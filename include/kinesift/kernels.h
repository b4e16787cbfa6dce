/* kinesift/kernels.h: the kernel view. What kind of work each kernel and op is (its class: gemm,
 * conv, attention, norm, elementwise, reduce, communication, memcpy, memset, triton, other), and
 * the GPU time of each class per device in a window.
 *
 * Classes are decided from names only, in one place (analysis/workclass.c): kernel names of the
 * vendor libraries (cuBLAS/cuBLASLt, CUTLASS, sm90_xmma, nvjet, cuDNN, hipBLASLt/Tensile Cijk_,
 * MIOpen, flash/fmha/efficient attention, Triton/Inductor, NCCL/RCCL, aten's elementwise and
 * reduce kernels) and op names (aten:: operators, autograd backward nodes, flash_attn::, vllm::,
 * communication ops of kinesift/comm.h). A kernel that is communication by kinesift/comm.h's rule
 * (its name, its collective metadata or the op that launched it) is communication whatever its
 * name says otherwise. docs/analysis.md, "Classes", lists the rules and how they differ from
 * TraceLens's op categories. */
#ifndef KINESIFT_KERNELS_H
#define KINESIFT_KERNELS_H

#include "kinesift/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_work_class {
    KS_WC_GEMM = 0,
    KS_WC_CONV,
    KS_WC_ATTENTION,
    KS_WC_NORM,
    KS_WC_ELEMENTWISE,
    KS_WC_REDUCE,
    KS_WC_COMM,
    KS_WC_MEMCPY,
    KS_WC_MEMSET,
    KS_WC_TRITON,
    KS_WC_OTHER,
    KS_WC_COUNT
} ks_work_class;

/* "gemm", "conv", "attention", "norm", "elementwise", "reduce", "communication", "memcpy",
 * "memset", "triton", "other". */
KS_API const char *ks_work_class_name(ks_work_class c);

/* The class of GPU work by its kind (KS_K_MEMCPY, KS_K_MEMSET) and, for kernels, its name. */
KS_API ks_work_class ks_kernel_class(const char *name, int kind);

/* The class of a CPU-side op or range (kind: ks_kind) by its name: operators and annotations by
 * PyTorch's op names (an "aten::" prefix is optional); runtime and driver calls are memcpy or
 * memset when they copy or set (cudaMemcpyAsync, hipMemsetAsync...), else other; Python frames are
 * other (a frame's name is source text, not an op). */
KS_API ks_work_class ks_op_class(const char *name, int kind);

/* GPU time of one class on one device, in a window: count of its events starting in the window,
 * the union of their intervals clipped to it (busy_ns: classes run concurrently on several streams,
 * so the busy times of a device's classes may add up to more than its busy time) and their plain
 * sum (sum_ns). */
typedef struct ks_class_time {
    int32_t device;
    uint8_t cls;               /* ks_work_class */
    uint64_t count;
    ks_ns busy_ns, sum_ns;
} ks_class_time;

/* The class times of one window: rows by (device, class), only classes with work in it. */
typedef struct ks_class_times {
    ks_class_time *v;
    size_t n;
} ks_class_times;

/* The class times of nw windows [w[2i], w[2i+1]) at once, into out[0 .. nw) (one pass over the
 * GPU work; windows may overlap). Counts by the window the event starts in, times the part inside
 * (the window rule of GPU work, analysis/gpuwork.c). */
KS_API void ks_class_times_build(const ks_analysis *a, const ks_ns *w, size_t nw, ks_class_times *out);
KS_API void ks_class_times_free(ks_class_times *out, size_t nw);

/* Classes of names, remembered per interned string (a trace names each kernel thousands of
 * times). One per thread: it is not safe to share while it fills. */
typedef struct ks_class_cache {
    const ks_trace *t;
    uint8_t *kernel, *op;      /* per string id: class + 1, 0 not yet decided */
    size_t n;
} ks_class_cache;

KS_API void ks_class_cache_init(ks_class_cache *c, const ks_trace *t);
KS_API void ks_class_cache_free(ks_class_cache *c);
KS_API ks_work_class ks_class_of_kernel_name(ks_class_cache *c, ks_str name, int kind);
KS_API ks_work_class ks_class_of_op_name(ks_class_cache *c, ks_str name, int kind);
/* A kernels-table row: communication when all its instances are (kernel_row.comm == count). */
KS_API ks_work_class ks_kernel_row_class(ks_class_cache *c, const ks_kernel_row *r);


#ifdef __cplusplus
}
#endif
#endif
