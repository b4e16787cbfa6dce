/* insights/diagnose_int.h: what a diagnosis check needs, shared by insights/diagnose.c and the
 * files that add checks beside it. Internal to insights/ and its tests.
 *
 * To add a diagnosis: write its check in a file of its own (insights/dx_NAME.c),
 *     static const ks_dx_kind kind = {"my_id", 0, "how its impact is computed"};
 *     void ks_dx_my_check(const ks_dx_ctx *c, ks_diagnoses *out)
 *     {
 *         ... ks_diagnosis *x = ks_dx_add(out, &kind, ks_dx_confidence(c, impact), impact); ...
 *     }
 * declare it at the end of this header, and add one row to KS_DX_CHECKS in insights/diagnose.c.
 * The helpers below are defined in insights/dx_common.c (and dx_path.c), not in diagnose.c, so a
 * check's file depends on them and not on the file that runs it. A check only reads the analysis and writes only into `out` (checks run side by side on the
 * analysis's threads); every figure it states names its denominator (ks_dx_share). */
#ifndef KS_INSIGHTS_DIAGNOSE_INT_H
#define KS_INSIGHTS_DIAGNOSE_INT_H

#include "algo/intervals.h"
#include "kinesift/insights.h"

/* a kind of diagnosis: its id, whether it is a caveat (no saving claimed: impact -1), and how its
 * impact is computed (JSON impact_basis, docs/insights.md) */
typedef struct ks_dx_kind {
    const char *id;
    int caveat;
    const char *basis;
} ks_dx_kind;

/* What every diagnosis looks at: the denominator's scope and the GPU work. */
typedef struct ks_dx_ctx {
    const ks_analysis *a;
    const ks_steps *st;
    const ks_gaps *g;
    ks_ivs scope;              /* normalized: the active steps, else the GPU span, else the window */
    ks_ns denom;               /* its length */
    const char *denom_name;
    ks_ivs gpu;                /* union of the GPU work (kernel, memcpy, memset) of every device */
    ks_ns gpu_busy;            /* its length inside the scope */
    ks_ns gpu_idle;            /* scope time with no GPU work (0 without GPU work) */
    int gpu_enough;            /* at least KS_DX_MIN_GPU_NS of GPU work in the scope */
    uint64_t begin_captures;   /* cudaStreamBeginCapture / hipStreamBeginCapture calls in the
                                * whole trace: it captures CUDA/HIP graphs */
    const struct ks_critpath *cp; /* the critical path of each step, or NULL (the checks that
                                   * need it do not run) */
    double peak_tflops, peak_tbps; /* --peak (ks_diagnose_opts), 0: the peak table's */
    int cp_ok;                 /* the path of the scope's steps covers the whole scope */
    size_t *cp_steps, cp_nsteps; /* the indexes (in cp->v) of the scope's steps */
} ks_dx_ctx;

/* the item a diagnosis is about, as intervals each on one track (UINT32_MAX: any), for its time
 * on the critical path (insights/dx_path.c) */
typedef struct ks_dx_item_iv {
    ks_ns a, b;
    uint32_t track;
} ks_dx_item_iv;

typedef struct ks_dx_item {
    ks_dx_item_iv *v;
    size_t n, cap;
    unsigned kinds;            /* the path's kinds that count, 1u << ks_cp_kind each; 0: any */
    ks_str name;               /* only the path's pieces of that name (0: any) */
} ks_dx_item;

/* the least GPU work (busy time in the scope) for a diagnosis about the GPU: 100 us */
#define KS_DX_MIN_GPU_NS 100000

/* ---- insights/dx_common.c ------------------------------------------------------------------- */
/* a new diagnosis of kind k in out (impact clamped at 0; -1 for a caveat); its impact_source is
 * "heuristic" until ks_dx_on_path makes it the item's time on the critical path */
ks_diagnosis *ks_dx_add(ks_diagnoses *out, const ks_dx_kind *k, const char *confidence, ks_ns impact);
/* "12.5% of the active steps (40.2 ms)" into b ("n/a of the window (0 ns)" of nothing) */
const char *ks_dx_share(char *b, size_t n, const ks_dx_ctx *c, ks_ns v);
/* "high" (>= 10 % of the denominator), "medium" (>= 3 %), else "low" */
const char *ks_dx_confidence(const ks_dx_ctx *c, ks_ns impact);
/* the step's number among the affected steps (once) */
void ks_dx_add_step(ks_diagnosis *x, int64_t number);
/* 1 when t lies inside the denominator's scope */
int ks_dx_in_scope(const ks_dx_ctx *c, ks_ns t);

/* the critical path of the scope (insights/dx_path.c): set up once by ks_diagnose_with */
void ks_dx_path_init(ks_dx_ctx *c, const struct ks_critpath *cp);
void ks_dx_path_free(ks_dx_ctx *c);
void ks_dx_item_add(ks_dx_item *it, ks_ns a, ks_ns b, uint32_t track);
/* the item's time on the critical path of the scope (0 without a path covering the scope) */
ks_ns ks_dx_item_on_path(const ks_dx_ctx *c, ks_dx_item *it);
/* x's impact becomes the item's time on the critical path when the path covers the scope (at
 * most the heuristic bound it had: impact_source "critical_path", the evidence saying both);
 * else it stays (impact_source "heuristic"). Frees the item. */
void ks_dx_on_path(const ks_dx_ctx *c, ks_diagnosis *x, ks_dx_item *it);
extern const char *const ks_dx_source_path, *const ks_dx_source_heuristic;

/* ---- the checks of other files (one row each in KS_DX_CHECKS, insights/diagnose.c) ---------- */

/* insights/diag_kernels.c: low_efficiency_shape and fusable_memory_bound (both need c->cp) */
void ks_dx_kernel_view(const ks_dx_ctx *c, ks_diagnoses *out);

#endif
