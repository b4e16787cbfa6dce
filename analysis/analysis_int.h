/* analysis/analysis_int.h: what the analysis passes share beyond the public ks_analysis: id lookups and
 * the entry points of each pass. Internal. */
#ifndef KS_ANALYSIS_INT_H
#define KS_ANALYSIS_INT_H

#include "common/i64map.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h" /* ks_steps, for ks_window_parse */

/* ---- the GPU-work index (gpuwork.c): every kernel, memcpy and memset once, built per analysis */

/* One GPU work event: its place in the store, 8 bytes (its times, kind and device are read from
 * the event and its track: ks_gpuwork_event, ks_gpuwork_ts, ks_gpuwork_dur, ks_gpuwork_device). */
typedef struct ks_gpuwork_item {
    uint32_t track, ev;        /* t->tracks[track].ev[ev] */
} ks_gpuwork_item;

static inline const ks_event *ks_gpuwork_event(const ks_trace *t, const ks_gpuwork_item *it)
{
    return &t->tracks[it->track].ev[it->ev];
}
/* its start, and its duration as stored (KS_NO_DUR when the event has none) */
static inline ks_ns ks_gpuwork_ts(const ks_trace *t, const ks_gpuwork_item *it)
{
    return ks_gpuwork_event(t, it)->ts;
}
static inline ks_ns ks_gpuwork_dur(const ks_trace *t, const ks_gpuwork_item *it)
{
    return ks_event_dur(ks_gpuwork_event(t, it));
}
/* its track's device (-1 unknown) */
static inline int32_t ks_gpuwork_device(const ks_trace *t, const ks_gpuwork_item *it)
{
    return t->tracks[it->track].device;
}

/* The items of one GPU track (stream) that holds work: v[first .. first + n). */
typedef struct ks_gpuwork_stream {
    uint32_t track;
    int32_t device;
    int64_t stream;
    size_t first, n;
} ks_gpuwork_stream;

typedef struct ks_gpuwork {
    ks_gpuwork_item *v;        /* by track, then file order: the order of the store */
    size_t n;
    ks_gpuwork_stream *streams; /* GPU tracks holding work, in track order */
    size_t nstreams;
    size_t gpu_tracks;         /* GPU tracks, with or without work */
} ks_gpuwork;

void ks_gpuwork_build(const ks_trace *t, ks_gpuwork *w);
void ks_gpuwork_free(ks_gpuwork *w);
/* The analysis' index (read-only). */
const ks_gpuwork *ks_gpuwork_of(const ks_analysis *a);
/* Items on the streams of one device. */
size_t ks_gpuwork_device_count(const ks_gpuwork *w, int32_t device);
/* One piece of GPU work [a, b) with its place in the store, for the passes that sort the work by
 * time (gaps, threads): by start, then end; with a stable sort, equal pieces keep stream order. */
typedef struct ks_gpuwork_iv {
    ks_ns a, b;
    uint32_t track, ev;
    uint32_t item;             /* its index in the GPU work index */
} ks_gpuwork_iv;
static inline int ks_gpuwork_iv_before(const ks_gpuwork_iv *p, const ks_gpuwork_iv *q)
{
    return p->a != q->a ? p->a < q->a : p->b < q->b;
}

/* The GPU work in time order, as indices into the index's items (4 bytes an item, not a copy of
 * each; ks_big_free(v, *most * sizeof *v)):
 *  - by_start: the items starting in the analysed window, every device, by start; equal starts in
 *    item order, i.e. by (track, event) (the tables' GPU pass);
 *  - device_by_time: the items of one device with a part in the window, by (start, end) of that
 *    part; equal parts in stream order (gaps, threads: ks_gpuwork_iv_at gives the part). */
uint32_t *ks_gpuwork_by_start(const ks_analysis *a, size_t *n, size_t *most);
uint32_t *ks_gpuwork_device_by_time(const ks_analysis *a, int32_t device, size_t *n, size_t *most);
/* Item i's part in the window (it has one: device_by_time keeps only those) and its event. */
ks_gpuwork_iv ks_gpuwork_iv_at(const ks_analysis *a, uint32_t i);

/* The window rules of GPU work (gpuwork.c says why), for [w0, w1):
 * a count belongs to the window its event starts in; */
static inline int ks_window_starts_in(ks_ns w0, ks_ns w1, ks_ns ts)
{
    return ts >= w0 && ts < w1;
}
/* a time is its part inside the window: 1 with [*s, *e) the part of [ts, ts + dur) inside (an
 * event across an edge is cut at it; a zero-length one counts in [w0, w1)), 0 when none. */
int ks_window_clip(ks_ns w0, ks_ns w1, ks_ns ts, ks_ns dur, ks_ns *s, ks_ns *e);

/* The same for an item and the analysed window. */
static inline int ks_gpuwork_starts_in(const ks_analysis *a, const ks_gpuwork_item *it)
{
    return ks_window_starts_in(a->win_start, a->win_end, ks_gpuwork_ts(a->trace, it));
}
static inline int ks_gpuwork_clip(const ks_analysis *a, const ks_gpuwork_item *it, ks_ns *s, ks_ns *e)
{
    const ks_event *ev = ks_gpuwork_event(a->trace, it);
    return ks_window_clip(a->win_start, a->win_end, ev->ts, ks_event_dur(ev), s, e);
}
/* The launching runtime/driver slice of item i of the index, or s = -1 (none, or before the links
 * pass). */
static inline ks_slice_ref ks_gpuwork_launcher_at(const ks_analysis *a, size_t i)
{
    ks_slice_ref none = {0, -1};
    return a->gpu_launch ? a->gpu_launch[i] : none;
}

struct ks_analysis_priv {
    int threads;         /* for the passes (pool.h); 1: one after the other on the caller's */
    int ext_ops_built;   /* ext_ops is built on first need (few traces need it) */
    ks_i64map ext_ops;   /* (External id) -> packed slice ref of the CPU op carrying it */
    ks_gpuwork gpuwork;  /* every GPU work event, built before the passes */
    struct ks_timings *timings; /* ks_analysis_opts.timings (NULL: not timed) */
    int tables_made;     /* ops, labels, kernels are made for the current window */
    ks_slice *room;      /* the slices of the small tracks, one array (analyze.c, small_tracks_room) */
    size_t room_n;
    uint8_t **comm;      /* per GPU track, 1 for each event that is communication (comm.c,
                          * ks_comm_mark, made with the links); NULL before */
};

/* The launching slice of an item of the index (ks_gpuwork_launcher_at). */
static inline ks_slice_ref ks_gpuwork_launcher(const ks_analysis *a, const ks_gpuwork_item *it)
{
    return ks_gpuwork_launcher_at(a, (size_t)(it - a->priv->gpuwork.v));
}

static inline uint64_t ks_ref_pack(uint32_t tl, int32_t s)
{
    return ((uint64_t)tl << 32) | (uint32_t)s;
}

static inline ks_slice_ref ks_ref_unpack(uint64_t v)
{
    ks_slice_ref r = {(uint32_t)(v >> 32), (int32_t)(uint32_t)v};
    return r;
}

/* analyze.c, for insights/run.c: the window set and its GPU unions made (and communication), the
 * tables (ops, labels, kernels) left for ks_analysis_tables_untimed, which may then run beside
 * passes that read only the timelines, links, GPU work and GPU rows (gaps, threads). The row
 * "analysis: window, GPU unions" of --timings. */
int ks_analysis_set_window_unions(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err);
/* ks_analysis_tables without its --timings row (the caller times it; it may run on any thread). */
void ks_analysis_tables_untimed(ks_analysis *a);

/* links.c: CPU launch <-> GPU work (fills a->gpu_launch, a->links, priv->ext_ops). */
void ks_links_build(ks_analysis *a);
/* gpu.c: per-device unions in the window (fills a->gpu / a->gpu_reason); ks_gpu_comm (needs
 * the links and ks_gpu_build) adds each device's communication, exposed communication included. */
void ks_gpu_build(ks_analysis *a);
void ks_gpu_comm(ks_analysis *a);
/* gpu.c: a->device_activity, the events of other accelerators on device tracks (called by
 * ks_gpu_build); ks_device_activity_free empties it. */
void ks_device_activity_build(ks_analysis *a);
void ks_device_activity_free(ks_analysis *a);

/* comm.c: whether GPU event ev of track is communication (kinesift/comm.h): a kernel named as
 * one, carrying collective metadata, or launched by a communication op (needs the links: without
 * them only name and metadata count). The caches are per name id; one cache per thread.
 * ks_comm_mark, called by ks_analyze once the links are made, applies the rule to every event
 * of the GPU tracks and keeps the answers (priv->comm), which ks_comm_gpu_event then reads: the
 * launching op of a kernel is looked up once per analysis, not once per pass that asks (tables,
 * GPU unions of each window, step breakdown, ranks). ks_comm_marks_free frees them. */
typedef struct ks_comm_cache {
    const ks_analysis *a;
    uint8_t *by_kernel;       /* 0 unknown, 1 no, 2 yes */
    uint8_t *by_op;           /* NULL when no string of the trace names a communication op */
} ks_comm_cache;
void ks_comm_cache_init(ks_comm_cache *c, const ks_analysis *a);
void ks_comm_cache_free(ks_comm_cache *c);
int ks_comm_gpu_event(ks_comm_cache *c, uint32_t track, uint32_t ev);
void ks_comm_mark(ks_analysis *a);
void ks_comm_marks_free(ks_analysis *a);
/* aggregate.c: ops, labels and kernels tables: ks_aggregate_build does it all; the steps apart,
 * for running them beside other passes: begin, cpu (needs the timelines), gpu (needs the links),
 * end (fills a->ops and a->labels, frees g); ks_kernels_build (needs the links) is independent
 * of the other four. */
typedef struct ks_agg ks_agg;
void ks_aggregate_build(ks_analysis *a);
ks_agg *ks_aggregate_begin(ks_analysis *a);
void ks_aggregate_cpu(ks_agg *g);
void ks_aggregate_gpu(ks_agg *g);
void ks_aggregate_end(ks_agg *g);
void ks_kernels_build(ks_analysis *a);

/* 1 for runtime/driver calls that block the host until the GPU is done: synchronize calls and the
 * synchronous copies, CUDA and HIP, runtime and driver (calls.c). */
int ks_is_blocking_call(const char *name);
/* The platform of a blocking call (its table, calls.c), or 0 when it does not block. */
enum { KS_PLATFORM_CUDA = 1, KS_PLATFORM_HIP = 2 };
int ks_blocking_call_platform(const char *name);

/* What a runtime/driver call launches (calls.c): a kernel, a graph, a copy, a set, or 0 for any
 * other call (cudaEventQuery, cudaFuncSetAttribute, cudaStreamGetPriority...). */
enum { KS_LAUNCH_KERNEL = 1, KS_LAUNCH_GRAPH = 2, KS_LAUNCH_MEMCPY = 3, KS_LAUNCH_MEMSET = 4 };
int ks_launch_call_kind(const char *name);
/* Set-up calls (allocator growth, pinned memory, stream creation and priority queries, module
 * loading), stream-capture calls (begin/end capture, instantiate) and allocator calls alone. */
int ks_is_init_call(const char *name);
int ks_is_capture_call(const char *name);
int ks_is_alloc_call(const char *name);
/* Fill a->links.launch_calls and other_runtime_calls over the whole trace (calls.c). */
void ks_calls_count(ks_analysis *a);

/* 1 for runtime and driver kinds. */
static inline int ks_kind_is_launch_api(int k)
{
    return k == KS_K_RUNTIME || k == KS_K_DRIVER;
}

/* 1 for the kinds that own the GPU work launched under them directly (docs/analysis.md): operators
 * and labels (cpu_op, user_annotation and their legacy names); never Python frames. */
static inline int ks_kind_launches_directly(int k)
{
    return k == KS_K_CPU_OP || k == KS_K_USER_ANNOTATION;
}

/* Events on GPU tracks: the most a pass over GPU work can collect. */
static inline size_t ks_gpu_track_events(const ks_trace *t)
{
    size_t n = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].kind == KS_TRACK_GPU)
            n += t->tracks[k].n;
    return n;
}

/* ---- the option syntax of the commands (analysis/window.c) --------------------------------
 * Parsers of --window, --smi-tz-style offsets and every duration option: the kinesift
 * command's syntax, not part of the installed API. */
/* --window: "steps:A-B", "steps:A", or a time range "T1:T2" relative to the first event, with
 * units ns/us/ms/s ("1.5ms:20ms"; an empty end means the end of the trace). */
int ks_window_parse(const char *spec, const ks_analysis *a, const ks_steps *steps, ks_ns *w0, ks_ns *w1,
                    ks_error *err);
/* Parse "UTC", "Z", "+02:00", "-0530"; 0 on success. */
int ks_tz_parse(const char *s, ks_ns *offset_ns);
/* (ks_duration_parse, the one duration syntax, is public: kinesift/analysis.h) */
/* The same where a bare number has another unit (clamp:NS takes nanoseconds). */
enum { KS_DUR_BARE_US = 0, KS_DUR_BARE_NS = 1 };
int ks_duration_parse_unit(const char *s, int bare_unit, ks_ns *ns);

#endif
