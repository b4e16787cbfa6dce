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

/* 1 when a kernel's name marks a tensor-core (NVIDIA) or matrix-core (AMD) path: cuBLAS/cuDNN xmma,
 * nvjet, CUTLASS tensorop/wmma/wgmma, MMA shapes in the name (s16816, h884), flash-attention and
 * fmha kernels (not xformers' float32 ones), Tensile's MFMA tiles (Cijk_..._MI16x16x1),
 * composable_kernel's xdl, MIOpen's xdlops iGEMM. A name that does not say (a Triton kernel, most
 * generic names) is 0: the share of tensor-core time is a lower bound. */
KS_API int ks_kernel_tensor_core(const char *name, int kind);

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
    /* per device with any, the kernels whose names mark a tensor-core path
     * (ks_kernel_tensor_core): count, union and sum as for a class (cls is KS_WC_COUNT) */
    ks_class_time *tc;
    size_t ntc;
} ks_class_times;

/* The class times of nw windows [w[2i], w[2i+1]) at once, into out[0 .. nw) (one pass over the
 * GPU work; windows may overlap). Counts by the window the event starts in, times the part inside
 * (the window rule of GPU work, analysis/gpuwork.c). */
KS_API void ks_class_times_build(const ks_analysis *a, const ks_ns *w, size_t nw, ks_class_times *out);
KS_API void ks_class_times_free(ks_class_times *out, size_t nw);

/* Classes of the trace's names, decided once per string id for the whole analysis and kept
 * with it (a trace names each kernel thousands of times, and the kernels table, the class times,
 * the ops table and the diagnoses all ask): as ks_kernel_class, ks_kernel_tensor_core and
 * ks_op_class of the name. Safe from several threads at once. */
KS_API ks_work_class ks_analysis_kernel_class(const ks_analysis *a, ks_str name, int kind);
KS_API int ks_analysis_tensor_core(const ks_analysis *a, ks_str name, int kind);
KS_API ks_work_class ks_analysis_op_class(const ks_analysis *a, ks_str name, int kind);
/* A kernels-table row: communication when all its instances are (kernel_row.comm == count). */
KS_API ks_work_class ks_analysis_kernel_row_class(const ks_analysis *a, const ks_kernel_row *r);

/* ---- FLOPs and bytes of an op from its recorded shapes (analysis/flops.c) ------------------- */

/* What one call of an op does, from its name, "Input Dims", "Input type" and "Concrete Inputs"
 * (the compact JSON texts of ks_shape_info): flops (floating-point operations, a multiply-add is
 * two) and bytes (the tensors read and written once, at the sizes of their types). The formulas,
 * hand-worked in tests/analysis/test_flops.c and listed in docs/analysis.md "Shapes and FLOPs":
 * GEMM 2·M·N·K (+ M·N for an added bias: addmm, baddbmm, linear with bias, _scaled_mm with bias),
 * convolution 2·N·Cout·prod(out)·Cin/groups·prod(kernel) (backward: that for each gradient asked
 * for), attention 2·B·H·Nq·Nk·(d + dv) (half when causal; backward 2.5 times), norms 5 (+2 affine)
 * per element, elementwise 1 per output element, reductions 1 per input element; copies move bytes
 * and do no FLOPs. known is 0 for an op without a formula or with shapes it cannot read; flops
 * and bytes are then 0 and mean nothing. A known cost whose bytes the shapes do not give (a
 * convolution's data gradient without the input's size) has bytes NaN. why: when known is 0 or
 * bytes NaN, the reason (static text). */
typedef struct ks_op_cost {
    int known;
    double flops, bytes;
    uint8_t cls;               /* ks_work_class of the op */
    uint8_t dtype_bytes;       /* element size of the first tensor input (0 unknown) */
    char dtype[24];            /* its type as the trace spells it ("c10::BFloat16"), "" unknown */
    const char *why;
} ks_op_cost;

KS_API ks_op_cost ks_op_cost_of(const char *op, const char *dims, const char *types, const char *concrete);

/* Size in bytes of an "Input type" spelling ("float" 4, "c10::BFloat16" 2, "c10::Float8_e4m3fn"
 * 1, "long int" 8...); 0 when unknown. */
KS_API int ks_input_type_size(const char *type);

/* ---- ops grouped by shape (analysis/shapes.c) ------------------------------------------------ */

/* Achieved rates over the calls of a group that launched GPU work: mean, median, min, max of each
 * call's FLOPs (or bytes) over that call's kernel time, in TFLOP/s (or TB/s). */
typedef struct ks_rate {
    double mean, median, min, max;
} ks_rate;

/* One group of op calls with the same (name, Input Dims, Input type), starting in the window.
 * kernel_ns: the direct kernel time (the union of the GPU work each call launched itself, by the
 * launch links, added over the calls); calls_timed: the calls that launched any. cost: one call's
 * FLOPs and bytes (the first call's Concrete Inputs); device: the device of its first kernel
 * (-1 none). */
typedef struct ks_shape_row {
    ks_str op, dims, types, concrete;
    uint64_t count, calls_timed;
    ks_ns kernel_ns;
    int32_t device;
    ks_op_cost cost;
    ks_rate tflops, tbps;      /* meaningful when cost.known and calls_timed > 0 */
} ks_shape_row;

typedef struct ks_shapes {
    ks_shape_row *v;           /* by kernel_ns, longest first (then op, dims) */
    size_t n;
    const char *reason;        /* non-NULL: not observed, why (no shapes recorded) */
} ks_shapes;

KS_API void ks_shapes_build(const ks_analysis *a, ks_shapes *out);
KS_API void ks_shapes_free(ks_shapes *s);
/* The analysis's shapes table (ks_shapes_build), built once by whichever asks first (the JSON
 * table, the roofline, the diagnoses) and kept until the window changes or the analysis is freed;
 * not to be freed. Safe from several threads at once. */
KS_API const ks_shapes *ks_analysis_shapes(const ks_analysis *a);

/* ---- device peaks (analysis/peaks.c) ------------------------------------------------------- */

/* Dense peaks of one accelerator from its vendor's datasheet (source): TFLOP/s per data type (0:
 * the part has no such path) and memory bandwidth in TB/s. */
typedef struct ks_peak {
    const char *name;
    double fp64, fp32, tf32, fp16, fp8;  /* fp16: FP16 and BF16 tensor/matrix cores */
    double tbps;
    const char *source;
} ks_peak;

/* The table row for a deviceProperties name and totalGlobalMem (bytes; 0 unknown), or NULL. */
KS_API const ks_peak *ks_peak_match(const char *device_name, int64_t total_mem);
/* The peak TFLOP/s an op of this cost can reach on p: by its first input's type (BFloat16/Half:
 * fp16, Float8: fp8, float: fp32, or tf32 for convolutions, double: fp64); 0 when unknown. */
KS_API double ks_peak_tflops(const ks_peak *p, const ks_op_cost *c);
/* The peaks of a device of t: the table's row for its deviceProperties (NULL when the device has
 * none or the table does not know it), or, when tflops and tbps are both > 0 (--peak), those for
 * every data type, written into *over and named "--peak". */
KS_API const ks_peak *ks_peak_of_device(const ks_trace *t, int32_t device, double tflops, double tbps, ks_peak *over);

/* Where a shape group stands on p's roofline: its roof (min(peak compute for its type, intensity
 * x bandwidth) in TFLOP/s; for an op without FLOPs, the bandwidth in TB/s), its mean achieved rate
 * over the roof (efficiency), and which bound the roof is ("compute", "memory"); NaN and NULL when
 * not known (no peak, no cost, no timed call). */
typedef struct ks_roof {
    double roof, efficiency;
    const char *bound;
} ks_roof;

KS_API ks_roof ks_roof_of(const ks_peak *p, const ks_shape_row *r);

#ifdef __cplusplus
}
#endif
#endif
