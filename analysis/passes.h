/* analysis/passes.h: what the later rooms drive or read of an analysis beyond the public
 * ks_analysis: the window and its tables set in steps (insights/run.c), the communication rule
 * per GPU event, packed slice references, and --window specifications resolved. */
#ifndef KS_ANALYSIS_PASSES_H
#define KS_ANALYSIS_PASSES_H

#include "kinesift/analysis.h"
#include "kinesift/insights.h" /* ks_steps, for ks_window_parse */
#include "kinesift/kernels.h"  /* ks_op_cost, ks_work_class */

/* analyze.c, for insights/run.c: the window set and its GPU unions made (and communication), the
 * tables (ops, labels, kernels) left for ks_analysis_tables_untimed, which may then run beside
 * passes that read only the timelines, links, GPU work and GPU rows (gaps, threads). The row
 * "analysis: window, GPU unions" of --timings. */
int ks_analysis_set_window_unions(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err);
/* The threads the passes may use (ks_analysis_opts.threads resolved; 1: on the caller's). */
int ks_analysis_threads(const ks_analysis *a);
/* ks_analysis_tables without its --timings row (the caller times it; it may run on any thread). */
void ks_analysis_tables_untimed(ks_analysis *a);

/* comm.c: whether GPU event ev of track is communication (kinesift/comm.h): a kernel named as
 * one, carrying collective metadata, or launched by a communication op (needs the links: without
 * them only name and metadata count). The caches are per name id; one cache per thread.
 * ks_comm_mark, called by ks_analyze once the links are made, applies the rule to every event
 * of the GPU tracks and keeps the answers (priv->comm), which ks_comm_gpu_event then reads: the
 * launching op of a kernel is looked up once per analysis, not once per pass that asks (tables,
 * GPU unions of each window, step breakdown, ranks). */
typedef struct ks_comm_cache {
    const ks_analysis *a;
    uint8_t *by_kernel;       /* 0 unknown, 1 no, 2 yes */
    uint8_t *by_op;           /* NULL when no string of the trace names a communication op */
} ks_comm_cache;
void ks_comm_cache_init(ks_comm_cache *c, const ks_analysis *a);
void ks_comm_cache_free(ks_comm_cache *c);
int ks_comm_gpu_event(ks_comm_cache *c, uint32_t track, uint32_t ev);

/* A slice reference (timeline, slice) packed into 64 bits, for id maps and sorts. */
static inline uint64_t ks_ref_pack(uint32_t tl, int32_t s)
{
    return ((uint64_t)tl << 32) | (uint32_t)s;
}

static inline ks_slice_ref ks_ref_unpack(uint64_t v)
{
    ks_slice_ref r = {(uint32_t)(v >> 32), (int32_t)(uint32_t)v};
    return r;
}

/* window_spec.c: --window "steps:A-B", "steps:A", or a time range "T1:T2" relative to the first
 * event, with units ns/us/ms/s ("1.5ms:20ms"; an empty end means the end of the trace). */
int ks_window_parse(const char *spec, const ks_analysis *a, const ks_steps *steps, ks_ns *w0, ks_ns *w1,
                    ks_error *err);

/* shapes.c, for the diagnoses: the row of s (an index of s->v, from ks_shapes_build on a) whose
 * calls launched each item of the GPU work index (ks_gpuwork_of(a)->v, in its order), SIZE_MAX for
 * work that no grouped call launched. A malloc'ed array of ks_gpuwork_of(a)->n entries. */
struct ks_shapes;
size_t *ks_shapes_row_of_work(const ks_analysis *a, const struct ks_shapes *s);

/* flops.c: ks_op_cost_of for an op whose class is known (the analysis's memo of the op's name,
 * ks_analysis_op_class: the same class ks_op_class gives) */
ks_op_cost ks_op_cost_classed(const char *op, ks_work_class cls, const char *dims, const char *types,
                              const char *concrete);

#endif
