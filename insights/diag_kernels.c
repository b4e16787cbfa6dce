/* insights/diag_kernels.c: the two diagnoses of the kernel view (kinesift/kernels.h), both about
 * GPU work on the critical path of the steps (kinesift/critpath.h), so both run only with it
 * (ks_diagnose_path). Hypotheses, as every diagnosis (insights/diagnose.c runs this among its
 * checks): the evidence, the next check and what refutes it. docs/insights.md, "Kernel view", has
 * the rules.
 *
 * low_efficiency_shape: an op group of the shapes table (ks_shapes_build: name, Input Dims, Input
 * type) of class gemm or attention whose efficiency on its device's roofline (ks_roof_of, the
 * figure of analyze's JSON shapes) is under KS_DX_LOWEFF_MAX, and whose kernels' time on the
 * critical path is at least KS_DX_LOWEFF_MIN_PATH_PCT % of the denominator. The path time of a
 * group: the GPU pieces of the path inside the kernels its calls launched (launch links; each
 * piece clipped to the kernel's [start, end) on its stream and to the denominator's scope). At
 * most KS_DX_LOWEFF_LISTED groups, the most path time first. Impact: that path time (making the
 * kernels faster saves at most their time on the path); it is at most the group's kernel_ns,
 * which the shapes table prints and the evidence repeats.
 *
 * fusable_memory_bound: runs of small memory-bound kernels back to back on one stream. A kernel
 * of the run: a kernel (not communication, kinesift/comm.h) of class elementwise, norm or reduce
 * (ks_analysis_kernel_class), at most KS_DX_FUSE_MAX_KERNEL_NS long, and, where the op that
 * launched it has shapes with FLOPs and bytes (ks_op_cost_of), at most KS_DX_FUSE_MAX_INTENSITY
 * FLOP/byte (under the ridge point of every device of the peak table, even in FP32). A run: at
 * least KS_DX_FUSE_MIN_RUN such kernels that follow one another on one stream (no other work of
 * the stream between them), each starting at most KS_DX_FUSE_MAX_GAP_NS after the previous one
 * ended; its span is the first one's start to the last one's end, and it counts when it starts
 * inside the denominator's scope. Impact: the path time inside the runs' spans on their streams
 * (GPU work, stream gaps and launch latency there: what one fused kernel could remove), at most
 * the runs' spans, which the evidence prints.
 * Who may use it: insights/diagnose.c (the check list). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/msort.h"
#include "analysis/gpuwork_index.h"
#include "analysis/passes.h"
#include "common/util.h"
#include "insights/diagnose_int.h"
#include "insights/insights_int.h"
#include "kinesift/critpath.h"
#include "kinesift/kernels.h"

#define KS_DX_LOWEFF_MAX 0.30          /* efficiency under which a shape is far below its roof */
#define KS_DX_LOWEFF_MIN_PATH_PCT 5    /* its path time, % of the denominator */
#define KS_DX_LOWEFF_LISTED 3          /* groups listed at most */
#define KS_DX_FUSE_MAX_KERNEL_NS 20000 /* a small kernel: 20 us */
#define KS_DX_FUSE_MAX_GAP_NS 10000    /* back to back: 10 us from one's end to the next's start */
#define KS_DX_FUSE_MIN_RUN 3
#define KS_DX_FUSE_MAX_INTENSITY 4.0   /* FLOP/byte */

static const ks_dx_kind k_loweff = {"low_efficiency_shape", 0,
                                    "critical-path time of the GPU kernels the op group's calls launched, inside the "
                                    "denominator (at most the group's kernel_ns)"};
static const ks_dx_kind k_fuse = {"fusable_memory_bound", 0,
                                  "critical-path time (GPU work, stream gaps, launch latency) inside the spans of the "
                                  "runs of small memory-bound kernels on their streams, inside the denominator (at "
                                  "most the runs' spans)"};

/* ---- the helpers: this file's own (insights/diagnose.c calls it, so it calls nothing there) ---- */

/* a new diagnosis of kind k: both kinds claim their item's time on the critical path, at most the
 * time they name */
static ks_diagnosis *add(ks_diagnoses *out, const ks_dx_kind *k, const char *conf, ks_ns impact)
{
    ks_diagnosis *x = ks_dx_add(out, k, conf, impact);
    x->impact_source = ks_dx_source_path;
    return x;
}

/* ---- the path's pieces, by stream ------------------------------------------------------------ */

/* A piece of the path where the path keeps it (piece k of step cp->v[step]): the index holds no
 * copy of the pieces, only where they are (8 bytes a piece; a copy took 24, 25 MB on the dense
 * 1 GiB shape beside the path's own 15). (A step has fewer than 2^32 pieces: 48 GB of them.) */
typedef struct pref {
    uint32_t step, k;
} pref;

/* The GPU work, stream gap and launch latency pieces of the scope's steps by track, then start,
 * then the path's order: track i's are v[at[i] .. at[i + 1]) (i < ntracks). */
typedef struct path_index {
    const ks_critpath *cp;
    pref *v;
    size_t n;
    size_t *at;
    size_t ntracks;
} path_index;

static inline ks_cp_piece piece_of(const ks_critpath *cp, pref r)
{
    return ks_critpath_piece(cp, &cp->v[r.step], r.k);
}

static inline int piece_before(const ks_critpath *cp, const pref *p, const pref *q)
{
    return piece_of(cp, *p).a < piece_of(cp, *q).a;
}

/* a track's pieces by start (they come in time order, step after step: one scan) */
KS_MSORT_DEFINE_CTX(sort_pieces, pref, ks_critpath, piece_before)

static int path_piece_kept(const ks_cp_piece *p)
{
    return (p->kind == KS_CP_GPU || p->kind == KS_CP_STREAM_GAP || p->kind == KS_CP_LAUNCH) && p->b > p->a;
}

/* the index of the pieces of GPU work, stream gap and launch latency of the steps in the scope (the
 * active steps when there are steps; the one window path else): counted per track, then placed */
static void path_build(const ks_dx_ctx *c, path_index *pi)
{
    const ks_critpath *cp = c->cp;
    size_t ntracks = c->a->trace->ntracks;
    pi->cp = cp;
    pi->ntracks = ntracks;
    pi->at = ks_xcalloc(ntracks + 2, sizeof *pi->at);
    pi->v = NULL;
    pi->n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < cp->n; i++) {
            const ks_cp_step *s = &cp->v[i];
            if (c->st && c->st->n == cp->n && !ks_step_active(&c->st->v[i]))
                continue;
            ks_cp_cursor cu = ks_cp_cursor_of(cp, s);
            ks_cp_piece p;
            for (size_t k = 0; ks_cp_next(&cu, &p); k++) {
                if (!path_piece_kept(&p) || p.track >= ntracks || k > UINT32_MAX)
                    continue;
                if (!pass)
                    pi->at[p.track + 2]++;
                else
                    pi->v[pi->at[p.track + 1]++] = (pref){(uint32_t)i, (uint32_t)k};
            }
        }
        if (!pass) {
            for (size_t t = 0; t < ntracks; t++)
                pi->at[t + 2] += pi->at[t + 1];
            pi->n = pi->at[ntracks + 1];
            pi->v = ks_xmalloc(ks_mul(pi->n ? pi->n : 1, sizeof *pi->v));
        }
    }
    /* at[t + 1] is now the end of track t's pieces, at[t] its start */
    for (size_t t = 0; t < ntracks; t++)
        sort_pieces(cp, pi->v + pi->at[t], pi->at[t + 1] - pi->at[t]);
}

static void path_free(path_index *pi)
{
    free(pi->v);
    free(pi->at);
}

/* The path's time in [x, y) on track, in the scope: GPU work alone, or with the stream gaps and
 * launch latency. Pieces of one track are disjoint (the path is one chain in time). */
static ks_ns path_on(const ks_dx_ctx *c, const path_index *pi, uint32_t track, ks_ns x, ks_ns y, int gpu_only)
{
    if (track >= pi->ntracks)
        return 0;
    const ks_critpath *cp = pi->cp;
    size_t first = pi->at[track], end = pi->at[track + 1];
    size_t lo = first, hi = end;
    KS_LOWER_BOUND(lo, hi, mid, piece_of(cp, pi->v[mid]).a < x); /* the first starting at or after x */
    if (lo > first && piece_of(cp, pi->v[lo - 1]).b > x)
        lo--; /* the one covering x */
    ks_ns t = 0;
    for (size_t i = lo; i < end; i++) {
        ks_cp_piece pc = piece_of(cp, pi->v[i]);
        const ks_cp_piece *p = &pc;
        if (p->a >= y)
            break;
        if (gpu_only && p->kind != KS_CP_GPU)
            continue;
        ks_ns a = p->a > x ? p->a : x, b = p->b < y ? p->b : y;
        if (b > a)
            t = ks_sat_add(t, ks_ivs_covered(&c->scope, a, b));
    }
    return t;
}

/* ---- low_efficiency_shape --------------------------------------------------------------------- */

typedef struct cand {
    size_t row;
    ks_ns path;
    ks_roof roof;
    const ks_peak *peak;
} cand;

static inline int cand_before(const cand *p, const cand *q)
{
    return p->path != q->path ? p->path > q->path : p->row < q->row;
}

KS_MSORT_DEFINE(sort_cands, cand, cand_before)

static void low_efficiency(const ks_dx_ctx *c, const ks_shapes *sh, const size_t *row_of, const path_index *pi,
                           ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    cand *cv = ks_xcalloc(sh->n ? sh->n : 1, sizeof *cv);
    ks_peak *over = ks_xcalloc(sh->n ? sh->n : 1, sizeof *over);
    uint8_t *is_cand = ks_xcalloc(sh->n ? sh->n : 1, 1);
    size_t ncand = 0;
    for (size_t i = 0; i < sh->n; i++) {
        const ks_shape_row *r = &sh->v[i];
        cv[i].row = i;
        if ((r->cost.cls != KS_WC_GEMM && r->cost.cls != KS_WC_ATTENTION) || r->device < 0)
            continue;
        cv[i].peak = ks_peak_of_device(t, r->device, c->peak_tflops, c->peak_tbps, &over[i]);
        cv[i].roof = ks_roof_of(cv[i].peak, r);
        if (!isfinite(cv[i].roof.efficiency) || cv[i].roof.efficiency >= KS_DX_LOWEFF_MAX)
            continue;
        is_cand[i] = 1;
        ncand++;
    }
    if (ncand) {
        for (size_t w = 0; w < gw->n; w++) {
            size_t r = row_of[w];
            if (r == SIZE_MAX || !is_cand[r])
                continue;
            const ks_event *e = ks_gpuwork_event(t, &gw->v[w]);
            cv[r].path = ks_sat_add(cv[r].path,
                                    path_on(c, pi, gw->v[w].track, e->ts, ks_sat_add(e->ts, ks_event_dur(e)), 1));
        }
        for (size_t i = 0; i < sh->n; i++)
            if (!is_cand[i])
                cv[i].path = 0;
        sort_cands(cv, sh->n);
        for (size_t k = 0; k < sh->n && k < KS_DX_LOWEFF_LISTED; k++) {
            const cand *x0 = &cv[k];
            if (!x0->path || !ks_mul_ge(x0->path, 100, c->denom, KS_DX_LOWEFF_MIN_PATH_PCT))
                break;
            const ks_shape_row *r = &sh->v[x0->row];
            ks_diagnosis *x = add(out, &k_loweff, ks_dx_confidence(c, x0->path), x0->path);
            x->subject = ks_trace_str(t, r->op);
            char b1[32], b2[32], b3[96];
            const char *dims = r->dims ? ks_trace_str(t, r->dims) : "[]";
            const char *types = r->types ? ks_trace_str(t, r->types) : "[]";
            x->hypothesis =
                ks_xasprintf("The %s calls of shape %.200s run far below the roofline of GPU %d (%.0f%% of their roof) "
                          "while their kernels take %.1f%% of the critical path: a better kernel, layout or precision "
                          "for this shape would shorten the steps.",
                          ks_trace_str(t, r->op), dims, r->device, 100.0 * x0->roof.efficiency,
                          c->denom > 0 ? 100.0 * (double)x0->path / (double)c->denom : 0.0);
            ks_fmt_ns(b1, sizeof b1, r->kernel_ns);
            ks_fmt_ns(b2, sizeof b2, x0->path);
            x->evidence = ks_xasprintf(
                "%s %.200s %.120s (%s): %llu calls, %llu timed, kernel time %s (kernel_ns), %.3g GFLOP and "
                "%.4g bytes a call; %.4g TFLOP/s mean against a %s-bound roof of %.4g TFLOP/s on %s (%s), "
                "efficiency %.1f%%; %s of its kernel time on the critical path, %s.",
                ks_trace_str(t, r->op), dims, types, ks_work_class_name((ks_work_class)r->cost.cls),
                (unsigned long long)r->count, (unsigned long long)r->calls_timed, b1, r->cost.flops / 1e9, r->cost.bytes,
                r->tflops.mean, x0->roof.bound, x0->roof.roof, x0->peak->name, x0->peak->source,
                100.0 * x0->roof.efficiency, b2, ks_dx_share(b3, sizeof b3, c, x0->path));
            x->next_check = ks_xasprintf(
                "Benchmark %s alone with these shapes and types (torch.utils.benchmark) and compare with the roof; "
                "look at its kernels in the kernels table (tensor_core, the launch args: blocks and warps per SM, "
                "occupancy), try dims padded to multiples of 64, another precision or backend (cuBLASLt, "
                "flash/cuDNN attention), or batching the calls.",
                ks_trace_str(t, r->op));
            x->refuted_if = ks_xasprintf(
                "the op alone with the same shapes reaches no more than this on the device (the peak used is not "
                "what the part reaches: give the measured one with --peak), or a faster kernel for it leaves the "
                "step time unchanged (another path takes over).");
        }
    }
    free(is_cand);
    free(over);
    free(cv);
}

/* ---- fusable_memory_bound --------------------------------------------------------------------- */

/* a stream's work by start, then index (file order mostly is: one scan): the indexes alone (4
 * bytes an item; a copy of each start beside it took 16), the starts read from the events */
static inline int order_before(const ks_analysis *a, const uint32_t *p, const uint32_t *q)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_ns tp = ks_gpuwork_event(a->trace, &gw->v[*p])->ts, tq = ks_gpuwork_event(a->trace, &gw->v[*q])->ts;
    return tp != tq ? tp < tq : *p < *q;
}

KS_MSORT_DEFINE_CTX(sort_order, uint32_t, ks_analysis, order_before)

/* 1 for a small memory-bound kernel (the rule above) */
static int fusable(const ks_dx_ctx *c, ks_comm_cache *comm, const ks_shapes *sh, const size_t *row_of, size_t w)
{
    const ks_analysis *a = c->a;
    const ks_gpuwork_item *it = &ks_gpuwork_of(a)->v[w];
    const ks_event *e = ks_gpuwork_event(a->trace, it);
    if (e->kind != KS_K_KERNEL || ks_event_dur(e) > KS_DX_FUSE_MAX_KERNEL_NS)
        return 0;
    ks_work_class cls = ks_analysis_kernel_class(a, e->name, e->kind);
    if (cls != KS_WC_ELEMENTWISE && cls != KS_WC_NORM && cls != KS_WC_REDUCE)
        return 0;
    if (ks_comm_gpu_event(comm, it->track, it->ev))
        return 0;
    if (row_of[w] != SIZE_MAX) {
        const ks_op_cost *k = &sh->v[row_of[w]].cost;
        if (k->known && k->bytes > 0 && k->flops / k->bytes > KS_DX_FUSE_MAX_INTENSITY)
            return 0;
    }
    return 1;
}

static void fusable_runs(const ks_dx_ctx *c, const ks_shapes *sh, const size_t *row_of, const path_index *pi,
                         ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_comm_cache comm;
    ks_comm_cache_init(&comm, a);
    uint64_t runs = 0, kernels = 0;
    ks_ns kernel_ns = 0, span_ns = 0, path_ns = 0;
    /* the longest run */
    size_t best_n = 0, best_first = 0;
    ks_ns best_span = 0;
    const ks_gpuwork_stream *best_str = NULL;
    uint32_t *ord = NULL;
    size_t ocap = 0;
#define ORD_TS(i) (ks_gpuwork_event(t, &gw->v[ord[i]])->ts)
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        KS_GROW(ord, ocap, str->n);
        for (size_t i = 0; i < str->n; i++)
            ord[i] = (uint32_t)(str->first + i);
        sort_order(a, ord, str->n);
        for (size_t i = 0; i < str->n;) {
            if (!fusable(c, &comm, sh, row_of, ord[i])) {
                i++;
                continue;
            }
            size_t j = i + 1;
            ks_ns end = ks_sat_add(ORD_TS(i), ks_event_dur(ks_gpuwork_event(t, &gw->v[ord[i]])));
            ks_ns sum = ks_sat_sub(end, ORD_TS(i));
            while (j < str->n && ks_sat_sub(ORD_TS(j), end) <= KS_DX_FUSE_MAX_GAP_NS &&
                   fusable(c, &comm, sh, row_of, ord[j])) {
                const ks_event *e = ks_gpuwork_event(t, &gw->v[ord[j]]);
                ks_ns e_end = ks_sat_add(e->ts, ks_event_dur(e));
                sum = ks_sat_add(sum, ks_event_dur(e));
                if (e_end > end)
                    end = e_end;
                j++;
            }
            if (j - i >= KS_DX_FUSE_MIN_RUN && ks_dx_in_scope(c, ORD_TS(i))) {
                ks_ns span = ks_ivs_covered(&c->scope, ORD_TS(i), end);
                runs++;
                kernels += j - i;
                kernel_ns = ks_sat_add(kernel_ns, sum);
                span_ns = ks_sat_add(span_ns, span);
                path_ns = ks_sat_add(path_ns, path_on(c, pi, str->track, ORD_TS(i), end, 0));
                if (span > best_span) {
                    best_span = span;
                    best_n = j - i;
                    best_first = ord[i];
                    best_str = str;
                }
            }
            i = j;
        }
    }
#undef ORD_TS
    free(ord);
    ks_comm_cache_free(&comm);
    if (!runs || !path_ns)
        return;
    ks_diagnosis *x = add(out, &k_fuse, ks_dx_confidence(c, path_ns), path_ns);
    char b1[32], b2[32], b3[32], b4[96], b5[32];
    ks_fmt_ns(b1, sizeof b1, kernel_ns);
    ks_fmt_ns(b2, sizeof b2, span_ns);
    ks_fmt_ns(b3, sizeof b3, path_ns);
    ks_fmt_ns(b5, sizeof b5, best_span);
    const ks_event *first = ks_gpuwork_event(t, &gw->v[best_first]);
    x->hypothesis = ks_xasprintf("Chains of small memory-bound kernels (elementwise, norm, reduce) run back to back on "
                              "a stream: fused into fewer kernels they would read and write their intermediate "
                              "tensors once and pay fewer launches, shortening the steps.");
    x->evidence = ks_xasprintf(
        "%llu run%s of %llu kernels (each of class elementwise, norm or reduce, at most %d us long and %g FLOP/byte "
        "where its op's shapes say, at most %d us after the previous one on its stream, %d or more in a run): their "
        "kernels take %s, the runs span %s, %s of which on the critical path, %s. The longest run: %zu kernels "
        "over %s on GPU %d stream %lld, starting with \"%.160s\".",
        (unsigned long long)runs, runs == 1 ? "" : "s", (unsigned long long)kernels, KS_DX_FUSE_MAX_KERNEL_NS / 1000,
        KS_DX_FUSE_MAX_INTENSITY, KS_DX_FUSE_MAX_GAP_NS / 1000, KS_DX_FUSE_MIN_RUN, b1, b2, b3,
        ks_dx_share(b4, sizeof b4, c, path_ns), best_n, b5, best_str->device, (long long)best_str->stream,
        ks_trace_str(t, first->name));
    x->next_check = ks_xasprintf(
        "Compile the region that launches them (torch.compile: Inductor fuses chains of pointwise ops and "
        "reductions into one Triton kernel) or use fused ops (fused norms and activations, the optimizer's "
        "foreach/fused=True), then compare the step time and the kernels per step.");
    x->refuted_if = ks_xasprintf(
        "the kernels of a run do not work on one another's outputs (nothing to keep out of memory), or the region "
        "compiled or fused keeps the same step time: the runs' time is then bandwidth a fused kernel still needs.");
}

void ks_dx_kernel_view(const ks_dx_ctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    if (!c->cp || !a->gpu || !c->gpu_enough)
        return;
    const ks_shapes *sh = ks_analysis_shapes(a); /* without shapes: no rows, the kernel classes decide */
    size_t *row_of = ks_shapes_row_of_work(a, sh);
    path_index pi;
    path_build(c, &pi);
    low_efficiency(c, sh, row_of, &pi, out);
    fusable_runs(c, sh, row_of, &pi, out);
    path_free(&pi);
    free(row_of);
}
