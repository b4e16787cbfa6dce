/* kinesift/analysis.h: the analysis of one trace: the nested timeline of every track, CPU->GPU
 * links, per-device GPU unions, and aggregates per operator, labelled range and kernel.
 *
 * Threads (kinesift/common.h): ks_analyze reads its trace as const, so several analyses of one
 * trace or of different traces may run at once; its own pool threads (ks_analysis_opts.threads)
 * are joined before it returns, and its results do not depend on their number.
 *
 * Definitions (docs/analysis.md has the full text and the comparison with torch, HTA, TraceLens):
 *  - Per track, slices (X, and B/E pairs) are ordered by start, longer first at equal start, then
 *    file order, and nested with half-open intervals. A slice that partially overlaps the slice it
 *    starts in is never dropped silently: by default it moves to an overflow lane of the same track.
 *  - self = duration - total duration of its direct children (children never overlap each other in
 *    a lane and are contained in the parent, so this equals the clipped union), less, for a slice
 *    in an overflow lane, the part of that time that lower lanes cover (they keep it): per track,
 *    the self times add up to the length of the union of its slices. Never negative.
 *  - inclusive of a name = per track, the length of the union of that name's intervals (recursion
 *    is not counted twice), summed over tracks.
 *  - GPU time of a CPU slice: direct = work launched by runtime calls whose innermost enclosing
 *    operator or label (cpu_op, user_annotation; Python frames skipped) is this one, and by the
 *    call itself; subtree = launched by it or any descendant. Reported as the
 *    union of the GPU intervals (TraceLens) and as the plain sum (torch's device time).
 *  - GPU per device: span = first GPU work start .. last end; busy = union of kernel, memcpy and
 *    memset intervals over all its streams; idle = span - busy. Annotations and syncs are not work.
 *  - Other accelerators' device events (MTIA mtia_ccp_events, HPU...): per device the span and
 *    the union of every such event (device_activity), stated as uninterpreted activity.
 * All times are int64 ns. */
#ifndef KINESIFT_ANALYSIS_H
#define KINESIFT_ANALYSIS_H

#include "kinesift/memory.h"
#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ------------------------------------------------------------------------------- */

typedef enum ks_overlap_policy {
    KS_OVERLAP_SPILL = 0, /* move to an overflow lane (Perfetto HEAD) */
    KS_OVERLAP_DROP,      /* leave out of the timeline (Perfetto 2025) */
    KS_OVERLAP_TRUNCATE,  /* cut the slice at its parent's end (B/E behaviour) */
    KS_OVERLAP_CLAMP      /* cut when the excess is <= clamp_ns, else spill */
} ks_overlap_policy;

typedef struct ks_analysis_opts {
    ks_overlap_policy overlap;
    ks_ns clamp_ns;
    int has_window;            /* restrict aggregates to [window_start, window_end) */
    ks_ns window_start, window_end;
    int threads;               /* threads for the passes: 0 = ks_cpus(), at most 8 (one for
                                * traces under 100 000 events); N > 0: N, at most 64; 1 = all on
                                * the calling thread. The results are the same whatever it is. */
    struct ks_timings *timings; /* when not NULL, each pass's wall time is added there
                                 * (kinesift/timings.h); kept for ks_analysis_set_window */
    int tables_later;          /* make the timelines, links and GPU unions only: the tables (ops,
                                * labels, kernels) come from ks_analysis_set_window or
                                * ks_analysis_tables, for a caller that chooses its window from the
                                * timelines first (ks_insights_run): they are made once, not twice */
} ks_analysis_opts;

KS_API void ks_analysis_opts_init(ks_analysis_opts *o);
/* Parse "spill", "drop", "truncate" or "clamp:NS"; 0 on success. */
KS_API int ks_overlap_parse(const char *s, ks_overlap_policy *p, ks_ns *clamp_ns);

/* ---- timeline ------------------------------------------------------------------------------ */

enum ks_slice_flags {
    KS_SF_BE = 1u << 0,         /* made from a B/E pair (ev = the B event) */
    KS_SF_UNCLOSED = 1u << 1,   /* B without E: ends at the trace end */
    KS_SF_UNFINISHED = 1u << 2, /* "finished": false */
    KS_SF_TRUNCATED = 1u << 3,  /* cut by the overlap policy */
    KS_SF_SPILLED = 1u << 4,    /* lives in an overflow lane (lane > 0) */
    KS_SF_OWN_END = 1u << 5     /* ends elsewhere than its event does (a B/E pair, a cut slice): the
                                 * timeline keeps that end (ks_slice_end) */
};

/* One slice: 12 bytes (a 1 GiB trace holds ~4 million). It covers [ks_slice_ts, ks_slice_end) and
 * keeps neither time: its start is always its event's (for a B/E pair, the B's), and nearly every
 * slice ends where its event does (start + the event's duration); the few that do not (B/E pairs,
 * slices cut by the overlap policy) are flagged KS_SF_OWN_END and their timeline keeps their ends.
 * Read the times with ks_slice_ts and ks_slice_end, never by other means. Nor does it keep its
 * lane: nearly every slice is in the main lane (0), and those in an overflow lane are flagged
 * KS_SF_SPILLED, their numbers kept by the timeline (ks_slice_lane). */
typedef struct ks_slice {
    uint32_t ev;       /* index of its event in the track's ev[] */
    int32_t parent;    /* index of the parent slice in the same timeline, -1 at top level */
    uint16_t depth;    /* 0 at top level (UINT16_MAX deeper than that) */
    uint8_t flags;     /* ks_slice_flags */
    uint8_t kind;      /* its event's ks_kind, here so that a walk up the nesting reads no event */
} ks_slice;

/* What the overlap policy did on one track (partial overlaps and what became of them). Most tracks
 * have none, so a timeline carries these only when one is not zero: read them through
 * ks_timeline_overlaps_of, which gives all zeros for the others. */
typedef struct ks_timeline_overlaps {
    uint64_t spilled, dropped, truncated;
    ks_ns reassigned_ns; /* time a spilled slice shares with lower lanes: the lower lane keeps it */
    ks_ns clipped_ns;    /* time cut off slices by truncate / clamp (gone from the track) */
    ks_ns dropped_ns;    /* total duration of the slices the drop policy left out */
    /* the lanes (1.., as many as the track needs) of its slices in overflow lanes, KS_SF_SPILLED:
     * slice spill_slice[j] is in lane spill_lane[j], j < nspill, in slice order (ks_slice_lane);
     * only spills make them, so a track with any has its counts here */
    uint32_t *spill_slice, *spill_lane;
    size_t nspill;
} ks_timeline_overlaps;

/* One track's slices, sorted by (ts, longer first, file order). 48 bytes: a trace may hold a
 * million tracks (docs/robustness.md). */
typedef struct ks_timeline {
    uint32_t track;
    uint32_t nlanes;   /* 1 + number of overflow lanes used */
    ks_slice *s;
    size_t n;
    ks_timeline_overlaps *ov; /* NULL when all its counts are zero (ks_timeline_overlaps_of) */
    const ks_event *ev;       /* the track's events (the trace's ks_track.ev) */
    ks_ns *own_end;           /* own_end[i]: the end of slice i when it is KS_SF_OWN_END; NULL when
                               * no slice of the track is */
} ks_timeline;

/* The start of slice s of timeline tl: its event's. */
static inline ks_ns ks_slice_ts(const ks_timeline *tl, const ks_slice *s)
{
    return tl->ev[s->ev].ts;
}

/* The end of slice s of timeline tl: its half-open interval is [ks_slice_ts, ks_slice_end). */
static inline ks_ns ks_slice_end(const ks_timeline *tl, const ks_slice *s)
{
    if (s->flags & KS_SF_OWN_END)
        return tl->own_end[s - tl->s];
    const ks_event *e = &tl->ev[s->ev];
    return e->ts + ks_event_dur(e);
}

/* The lane of slice s of timeline tl: 0 the main lane, 1.. the overflow lanes (KS_SF_SPILLED; a
 * binary search among those). */
static inline uint32_t ks_slice_lane(const ks_timeline *tl, const ks_slice *s)
{
    if (!(s->flags & KS_SF_SPILLED))
        return 0;
    uint32_t i = (uint32_t)(s - tl->s);
    size_t lo = 0, hi = tl->ov->nspill;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->ov->spill_slice[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return tl->ov->spill_lane[lo];
}

/* Slice i of timeline tl's start (ks_slice_ts). */
static inline ks_ns ks_slice_ts_at(const ks_timeline *tl, size_t i)
{
    return tl->ev[tl->s[i].ev].ts;
}

/* The overlap counts of a timeline; all zeros when it has none. Never NULL. */
KS_API const ks_timeline_overlaps *ks_timeline_overlaps_of(const ks_timeline *tl);

/* Innermost slice of the timeline active at time t in lane 0 (ts <= t < end), optionally only of
 * kinds for which accept(kind) is true; -1 when none. O(log n + depth). */
KS_API int32_t ks_timeline_at(const ks_trace *tr, const ks_timeline *tl, ks_ns t, int (*accept)(int kind));

/* The self time of every slice into self[0 .. tl->n): every ns of the union of the track's slices
 * belongs to exactly one slice, the innermost one of the lowest lane covering it, so the self
 * times of a track add up to the length of the union of its slices. O(n) when the track has one
 * lane; each overflow lane adds a pass. The figure the ops and labels tables sum, and the flame
 * graphs' (analysis/folded.c). */
KS_API void ks_timeline_self(const ks_timeline *tl, ks_ns *self);

/* ---- results ------------------------------------------------------------------------------- */

/* The GPU work credited to an operator or labelled range: unions of the intervals of the GPU
 * events it launched itself (direct) or through its subtree, and their plain sums (torch's
 * device time). */
typedef struct ks_op_gpu {
    ks_ns direct_ns, subtree_ns;         /* unions of GPU intervals */
    ks_ns direct_sum_ns, subtree_sum_ns; /* sums */
} ks_op_gpu;

/* The instance durations of a row: exact quantiles (type 7, linear interpolation, rounded half
 * up; ks_quantile_ns). */
typedef struct ks_op_durs {
    ks_ns min_ns, median_ns, p90_ns, p99_ns, max_ns;
} ks_op_durs;

/* One row per operator (name + category) or labelled range. 56 bytes: a trace may hold a million
 * names (docs/robustness.md), most of them seen once, and most rows have no GPU credit; read the
 * durations through ks_op_row_durs and the GPU credit through ks_op_row_gpu. */
typedef struct ks_op_row {
    ks_str name;
    uint16_t cat;
    uint8_t kind;              /* ks_kind */
    uint64_t count;            /* instances starting in the window */
    uint64_t unfinished;       /* instances flagged unfinished / unclosed */
    ks_ns self_ns, incl_ns;
    union {
        const ks_op_durs *many; /* count >= 2 */
        ks_ns one;              /* count == 1: its duration */
    } durs;
    const ks_op_gpu *gpu;      /* NULL when no GPU work is credited to it */
} ks_op_row;

/* The durations of a row's instances (all zero for a row of none). */
static inline ks_op_durs ks_op_row_durs(const ks_op_row *r)
{
    ks_op_durs d = {0, 0, 0, 0, 0};
    if (r->count == 1)
        d.min_ns = d.median_ns = d.p90_ns = d.p99_ns = d.max_ns = r->durs.one;
    else if (r->count > 1 && r->durs.many)
        d = *r->durs.many;
    return d;
}

/* The GPU credit of a row, all zeros when it has none (whether the trace has GPU events at all is
 * ks_analysis.gpu_events: without them these zeros are not observed, and reports print N/A). */
static inline ks_op_gpu ks_op_row_gpu(const ks_op_row *r)
{
    ks_op_gpu none = {0, 0, 0, 0};
    return r->gpu ? *r->gpu : none;
}

/* The launch args of a kernel row's instances (ks_launch_info), over those that recorded each:
 * registers per thread and shared memory (bytes) as min and max; blocks per SM, warps per SM and
 * Kineto's estimated achieved occupancy as means weighted by each instance's duration (plain means
 * when every instance lasted 0 ns), the occupancy's min and max too; grid and block of the longest
 * instance that recorded them. has: the KS_LAUNCH_* bits seen at least once; a figure whose bit is
 * missing is not observed. */
typedef struct ks_launch_stats {
    uint64_t recorded;         /* instances with any launch arg */
    uint8_t has;
    int32_t regs_min, regs_max;
    int64_t shmem_min, shmem_max;
    double blocks_per_sm, warps_per_sm, occupancy_pct, occupancy_min, occupancy_max;
    int64_t grid[3], block[3];
} ks_launch_stats;

/* One row per GPU work name (kernel, memcpy or memset). */
typedef struct ks_kernel_row {
    ks_str name;
    uint8_t kind;              /* KS_K_KERNEL, KS_K_MEMCPY or KS_K_MEMSET */
    uint64_t count;
    uint64_t unlinked;         /* instances without a CPU launcher */
    uint64_t comm;             /* instances that are communication (kinesift/comm.h) */
    ks_ns total_ns;            /* sum of durations */
    ks_ns min_ns, median_ns, p90_ns, max_ns;
    int64_t bytes;             /* total bytes (memcpy/memset), -1 when not recorded */
    ks_launch_stats launch;    /* kernels: their launch args, where the trace recorded them */
} ks_kernel_row;

/* GPU figures of one device, clipped to the window. */
typedef struct ks_gpu_row {
    int32_t device;
    ks_ns first_ns, last_ns;   /* first work start, last work end */
    ks_ns span_ns, busy_ns, idle_ns;
    ks_ns kernel_ns, memcpy_ns, memset_ns, comm_ns; /* unions per class; comm: kinesift/comm.h, by
                                * kernel name, collective metadata or launching op */
    ks_ns comm_exposed_ns;     /* communication while no other kernel (compute) runs on the device */
    uint64_t kernels, memcpys, memsets;
    uint32_t streams;
} ks_gpu_row;

/* Activity of one device that kinesift cannot interpret: the complete (X) events of another
 * accelerator's categories on its device tracks (kind KS_K_DEVICE_OTHER: mtia_ccp_events,
 * hpu_op, or an unknown category whose events carry args.device or args.stream), clipped to the
 * window. kinesift does not know which of them compute, copy or wait, so busy_ns is the union of
 * all of them ("the device recorded something"), not GPU busy time; by name, the union of each
 * event name, to tell them apart by hand. */
typedef struct ks_device_name {
    ks_str name;
    uint16_t cat;
    uint64_t count;
    ks_ns busy_ns;             /* union of this name's intervals on the device */
} ks_device_name;

typedef struct ks_device_activity {
    int32_t device;            /* as for GPU rows: args.device, else the process label, else pid */
    ks_str label;              /* process_labels, else process_name, of its first track; 0: none */
    uint16_t *cats;            /* the categories of its events (ncats of them, by id) */
    size_t ncats;
    uint32_t tracks;           /* device tracks holding such events */
    uint64_t events;
    ks_ns first_ns, last_ns, span_ns, busy_ns, idle_ns; /* idle = span - busy */
    ks_device_name *names;     /* by busy_ns, longest first (then name id) */
    size_t nnames;
} ks_device_activity;

/* CPU -> GPU linking. */
typedef struct ks_link_stats {
    uint64_t gpu_events;       /* kernel + memcpy + memset */
    uint64_t linked_by_correlation;
    uint64_t linked_by_flow;
    uint64_t unlinked_gpu;     /* GPU work whose launch is missing */
    uint64_t launches;         /* runtime/driver calls carrying a correlation id */
    uint64_t launches_without_gpu; /* launch API calls whose GPU work is missing */
    uint64_t launch_calls;     /* runtime/driver calls that launch device work: kernel, graph,
                                * copy and set launches (vocab/calls.c) */
    uint64_t other_runtime_calls; /* every other runtime/driver call (cudaEventQuery,
                                * cudaFuncSetAttribute...): not launches */
} ks_link_stats;

/* Partial overlaps per track and category. */
typedef struct ks_overlap_row {
    uint32_t track;
    uint16_t cat;              /* category of the slice that outlived its parent */
    uint64_t count;
    ks_ns excess_ns;           /* total time by which those slices outlived their parent */
} ks_overlap_row;

/* Reference to a slice: timeline index (= track index) and slice index. */
typedef struct ks_slice_ref {
    uint32_t tl;
    int32_t s;                 /* -1: none */
} ks_slice_ref;

typedef struct ks_analysis {
    const ks_trace *trace;
    ks_ns win_start, win_end;  /* the analysed window [win_start, win_end) */
    ks_ns window_ns;           /* its length (the trace span when no window was given); saturated at
                                * INT64_MAX when extreme timestamps make it longer */
    ks_ns win_last;            /* the end shown for it: win_end, or the last event's end for a
                                * whole trace (win_start + window_ns when that does not overflow) */
    int has_window;            /* restricted by the caller */
    int has_events;            /* any timed event at all */
    /* what the window is, which is the denominator every share of it names: "trace" (ks_analyze
     * alone), "window" (ks_analysis_set_window), and from ks_insights_run "active steps", "GPU
     * span", "CPU span" (its default, docs/insights.md "The window") or "--window" */
    const char *window_basis;
    char window_why[192];      /* how it was chosen, one line: "active steps 3-7 (5 steps; 1
                                * warm-up step before it left out)"; "" when not said */

    ks_timeline *tl;           /* one per track, index = track index */
    size_t ntl;

    /* launcher (the runtime/driver slice) of every GPU work event (kernel, memcpy, memset), or
     * s = -1: one per event of the analysis' GPU work index, in its order (GPU tracks in track
     * order, then file order); ks_analysis_launcher finds an event's */
    ks_slice_ref *gpu_launch;

    ks_op_row *ops;            /* every CPU-side complete event kind, by (name, cat) */
    size_t nops;
    ks_op_row *labels;         /* user_annotation and gpu_user_annotation */
    size_t nlabels;
    ks_kernel_row *kernels;
    size_t nkernels;
    ks_gpu_row *gpu;           /* NULL when gpu_reason is set */
    size_t ngpu;
    const char *gpu_reason;    /* why GPU figures are not observed, or NULL */
    ks_link_stats links;
    ks_overlap_row *overlaps;  /* partial overlaps by (track, category) */
    size_t noverlaps;

    ks_diag diag;              /* what the analysis found (overlaps, B/E mismatches, links) */
    struct ks_analysis_priv *priv; /* lookup tables of the passes */

    /* device activity kinesift cannot interpret (ks_device_activity), by device; set whatever
     * gpu is (a device may have GPU work and other events: those are not in its GPU row) */
    ks_device_activity *device_activity;
    size_t ndevice_activity;

    /* the allocator's memory per device over the whole trace (kinesift/memory.h), never NULL after
     * ks_analyze; memory->reason says when the trace has none */
    ks_memory *memory;
} ks_analysis;

/* The timeline of the next track of that kind (KS_TRACK_CPU, KS_TRACK_GPU) at or after *k, with *k
 * set to its index, or NULL when none is left: the walk over one kind of track is
 *     const ks_timeline *tl;
 *     for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) ... */
static inline const ks_timeline *ks_timeline_next(const ks_analysis *a, int kind, size_t *k)
{
    for (; *k < a->ntl; ++*k)
        if (a->trace->tracks[a->tl[*k].track].kind == kind)
            return &a->tl[*k];
    return NULL;
}

KS_API int ks_analyze(const ks_trace *t, const ks_analysis_opts *o, ks_analysis **out, ks_error *err);
KS_API void ks_analysis_free(ks_analysis *a);
/* Restrict the tables (ops, labels, kernels, GPU rows) to [start, end) and recompute them; the
 * timelines and links are kept. */
KS_API int ks_analysis_set_window(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err);
/* Make the tables over the current window if they are not made yet (ks_analysis_opts.tables_later);
 * nothing otherwise. */
KS_API void ks_analysis_tables(ks_analysis *a);

/* kinesift's one duration syntax (the times of a window SPEC, ks_insights_opts.window, and
 * every time option of the command): a signed decimal with a unit ("-1.5s", "250ms", "10us",
 * "42ns"); a bare number ("42") is microseconds, the unit of the trace format. 0 and *ns on
 * success; -1 for anything else, and for a value below a nanosecond or beyond int64 ns. */
KS_API int ks_duration_parse(const char *s, ks_ns *ns);

/* The platform the trace was recorded on: "CUDA", "ROCm", "MTIA", "XPU", "HPU" or "another
 * accelerator", by the names of most of its runtime/driver calls and device events (hip... ROCm,
 * cuda... and cuLaunch... CUDA, mtia_... categories MTIA), else by the runtime versions in its
 * metadata; NULL when nothing says. `kinesift validate` runs on CUDA only: reports offer it for
 * CUDA traces (and traces that do not say), else name the measurement to make by hand. */
KS_API const char *ks_analysis_platform(const ks_analysis *a);

/* The launcher (runtime/driver slice) of GPU event i of track k, or s = -1 (also for an event that
 * is not GPU work). */
KS_API ks_slice_ref ks_analysis_launcher(const ks_analysis *a, uint32_t track, size_t i);

/* The op that launched: the innermost operator or label (cpu_op, user_annotation) enclosing the
 * runtime/driver slice, Python frames and other calls skipped; else the op carrying the call's
 * External id on the same thread; else -1. */
KS_API int32_t ks_analysis_launching_op(const ks_analysis *a, ks_slice_ref r);

/* 1 for the slices the ops table counts: CPU-side kinds and other, not the profiler's span. */
KS_API int ks_is_op_slice_kind(int kind);

/* The event of a slice. */
static inline const ks_event *ks_slice_event(const ks_trace *t, const ks_timeline *tl, const ks_slice *s)
{
    return &t->tracks[tl->track].ev[s->ev];
}

/* ---- call paths for flame graphs (analysis/folded.c) ---------------------------------------- */

/* What a path is worth: the CPU self time of its slices (the ops table's self_ns, summed per call
 * path), or the GPU work (the kernels table's total_ns) launched under it. */
typedef enum ks_folded_metric { KS_FOLDED_CPU = 0, KS_FOLDED_GPU } ks_folded_metric;

enum ks_folded_frame {
    KS_FRAME_NAME = 0,      /* a slice name (name) */
    KS_FRAME_PYTHON,        /* "[python]": self time of top-level Python frames when they are hidden */
    KS_FRAME_UNLINKED,      /* "[unlinked]": GPU work without a CPU launcher */
    KS_FRAME_NO_OP,         /* "[no op]": launched by a runtime call outside any op */
    KS_FRAME_STEP           /* "ProfilerStep#*": every ProfilerStep#N annotation, so steps merge */
};

/* A node of the call-path tree: node 0 is the root (no frame); every other node is its parent's
 * path plus one frame. value is what the path itself (not its children) is worth. */
typedef struct ks_folded_node {
    int32_t parent;
    ks_str name;
    uint8_t frame;             /* ks_folded_frame */
    ks_ns value;
} ks_folded_node;

typedef struct ks_folded {
    ks_folded_node *v;         /* in creation order: a parent before its children */
    size_t n;
} ks_folded;

/* Paths of ops and labels per CPU thread (threads merged); Python frames are frames only when
 * python_frames is set, else their self time goes to the nearest enclosing op (or [python]).
 * GPU: each GPU work event of the kernels table is a leaf frame (its name) under the op that
 * launched it. The values add up to the sum of the ops' self_ns, or of the kernels' total_ns. */
KS_API void ks_folded_build(const ks_analysis *a, ks_folded_metric m, int python_frames, ks_folded *out);
KS_API void ks_folded_free(ks_folded *f);

/* 1 for communication kernels by name: ks_comm_kernel_name of kinesift/comm.h (kept for callers
 * of the first API). */
KS_API int ks_is_comm_kernel(const char *name);

#ifdef __cplusplus
}
#endif
#endif
