/* kinesift/store.h: the event store, the contract between the reader and every analysis.
 *
 * One trace = top-level metadata + processes + tracks (one per distinct (pid, tid)) + events.
 * Events live in per-track arrays, in file order, one fixed-size 32-byte record each; names and
 * categories are interned. Only the args later analyses need are kept (External id, correlation,
 * bytes, finished; stream and device for the track's); every other arg is skipped without
 * allocation. Times are int64 ns, parsed from the number text without floating point; a duration
 * keeps 48 bits of them (78 hours).
 *
 * The store is written by the parser (parser/) through the functions below and is read-only for
 * analyses. The public structs are plain data to read; the store's bookkeeping (capacities, the
 * per-track counts and spans) lives behind them, private to store/.
 *
 * Threads (kinesift/common.h): a finished trace is read-only: any number of threads may read one
 * trace at once (the analysis pool does). The functions that add to a trace (strings,
 * categories, diagnostics) are the parser's, on the one thread that builds it. */
#ifndef KINESIFT_STORE_H
#define KINESIFT_STORE_H

#include "kinesift/common.h"
#include "kinesift/diag.h"
#include "kinesift/strtab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- typed pid/tid ------------------------------------------------------------------------ */

/* pid and tid keep their JSON type: never coerced, never merged across types. */
typedef enum ks_id_type {
    KS_ID_NONE = 0, /* field missing */
    KS_ID_INT = 1,  /* integer that fits int64 (negative allowed) */
    KS_ID_UINT = 2, /* integer above INT64_MAX, value stored as uint64 bits */
    KS_ID_STR = 3,  /* JSON string; v = interned id */
    KS_ID_NUM = 4   /* other number text (fraction/exponent); v = interned id of the text */
} ks_id_type;

typedef struct ks_id {
    int64_t v;
    uint8_t type; /* ks_id_type */
} ks_id;

KS_API int ks_id_equal(ks_id a, ks_id b);
/* Render for display ("123", "\"Spans\"" is written as Spans, missing as "-"). */
KS_API void ks_id_format(const ks_strtab *st, ks_id id, char *buf, size_t n);

/* ---- event kinds (from category and, for legacy files, name) ------------------------------ */

typedef enum ks_kind {
    KS_K_OTHER = 0,
    KS_K_CPU_OP,          /* cpu_op; legacy Operator */
    KS_K_USER_ANNOTATION, /* user_annotation (record_function); legacy User */
    KS_K_GPU_ANNOTATION,  /* gpu_user_annotation */
    KS_K_PYTHON,          /* python_function; legacy Python */
    KS_K_RUNTIME,         /* cuda_runtime and other *_runtime; legacy Runtime */
    KS_K_DRIVER,          /* cuda_driver and other *_driver */
    KS_K_KERNEL,          /* kernel; legacy Kernel */
    KS_K_MEMCPY,          /* gpu_memcpy; legacy Memcpy */
    KS_K_MEMSET,          /* gpu_memset; legacy Memset */
    KS_K_SYNC,            /* cuda_sync, xpu_sync: waiting, not work */
    KS_K_CUDA_EVENT,      /* cuda_event */
    KS_K_INSTANT,         /* cpu_instant_event ([memory], [OutOfMemory], ...) */
    KS_K_OVERHEAD,        /* overhead (CUPTI) */
    KS_K_TRACE_SPAN,      /* Trace ("PyTorch Profiler (0)") */
    KS_K_FLOW_LAUNCH,     /* ac2g flows; legacy async_cpu_to_gpu / async_gpu, async / launch */
    KS_K_FLOW_FWDBWD,     /* fwdbwd flows; legacy forward_backward / fwd_bwd */
    KS_K_DEVICE_OTHER,    /* device-side activity of other accelerators (mtia_ccp_events, hpu_op, and
                           * unknown categories carrying args.device/stream: ks_classify_event) */
    KS_K_COUNT
} ks_kind;

KS_API const char *ks_kind_name(ks_kind k);
/* 1 for kinds that are GPU work in busy time: kernel, memcpy, memset. */
KS_API int ks_kind_is_gpu_work(ks_kind k);
/* 1 for kinds that live on GPU streams (work, annotations, syncs, cuda_event). */
KS_API int ks_kind_is_device_side(ks_kind k);
/* 1 for CPU-side complete-event kinds aggregated as "ops" (cpu_op, user_annotation, python,
 * runtime, driver). */
KS_API int ks_kind_is_cpu_side(ks_kind k);

/* ---- event record ------------------------------------------------------------------------- */

#define KS_NO_DUR INT64_MIN /* the event has no duration (instants, flows, B, E, C) */

enum ks_event_flags {
    KS_EF_EXT = 1u << 0,        /* the event has an "External id": ks_event_ext */
    KS_EF_CORR = 1u << 1,       /* a "correlation" (or the flow id for s/t/f): ks_event_corr */
    KS_EF_BYTES = 1u << 2,      /* "bytes" recorded: ks_event_bytes */
    KS_EF_UNFINISHED = 1u << 3, /* args.finished == false: end set to the capture end */
    KS_EF_TS_INEXACT = 1u << 4, /* ts/dur needed rounding (more than 3 fraction digits...) */
    KS_EF_REPAIRED = 1u << 5,   /* a string of this event was repaired */
    KS_EF_BP_E = 1u << 6,       /* flow: "bp": "e" (bind to the enclosing slice) */
    KS_EF_FLOW_STRID = 1u << 7, /* flow id was a string (parsed as hex, or hashed) */
    KS_EF_SCOPE_G = 1u << 8,    /* instant with "s": "g" */
    KS_EF_SCOPE_P = 1u << 9,    /* instant with "s": "p" */
    KS_EF_STREAM = 1u << 10,    /* the event carried args.stream (kept on the track) */
    KS_EF_DEVICE = 1u << 11,    /* the event carried args.device (kept on the track) */
    KS_EF_BAD_UTF8 = 1u << 12,  /* a string of this event held invalid UTF-8 (replaced) */
    KS_EF_NEG_TS = 1u << 13,    /* ts < 0 (kept; Perfetto drops these) */
    KS_EF_EXT_WIDE = 1u << 14,  /* ext32 is the index of "External id" in the trace's wide_ids */
    KS_EF_CORR_WIDE = 1u << 15  /* corr32 is the index of the correlation in the trace's wide_ids */
};

/* One event: 32 bytes (a 1 GiB trace holds ~6 million; what few events carry lives beside them:
 * "bytes" (ks_event_bytes), and ids that do not fit 32 bits).
 *
 * The duration is read with ks_event_dur (KS_NO_DUR when there is none) and ks_event_end, never
 * from dur_lo/dur_hi: 48 bits of ns, up to KS_EVENT_MAX_DUR (78 hours; the parser skips a longer
 * "dur" with a diagnostic, as it skips one past the int64 range). Writers set it with
 * ks_event_set_dur.
 *
 * The "External id" and the correlation are read with ks_event_ext and ks_event_corr, never from
 * ext32/corr32: an id that fits int32 (PyTorch's counters and CUPTI's correlation ids nearly always
 * do) is kept in the record, any other (a correlation past 2^31, a flow id hashed from a string)
 * in the trace's wide_ids, the record keeping its index (KS_EF_EXT_WIDE, KS_EF_CORR_WIDE). Either
 * way the id read back is the exact int64 of the file. Writers set both with ks_event_set_ids.
 *
 * args.stream and args.device are not kept per event: they name the track's stream and device
 * (ks_track.stream, .device; ks_trace_append_device), and KS_EF_STREAM / KS_EF_DEVICE say the event
 * carried them. */
typedef struct ks_event {
    ks_ns ts;        /* start, ns (relative or absolute as in the file) */
    ks_str name;     /* interned name (0 = none) */
    uint32_t dur_lo; /* the duration's low 32 bits: ks_event_dur */
    int32_t ext32;   /* "External id" (KS_EF_EXT): ks_event_ext */
    int32_t corr32;  /* "correlation", or flow id of s/t/f (KS_EF_CORR): ks_event_corr */
    uint16_t cat;    /* category id: index into ks_trace.cats */
    uint16_t flags;  /* ks_event_flags */
    uint16_t dur_hi; /* the duration's high 16 bits; KS_DUR_HI_NONE: no duration */
    uint8_t ph;      /* phase character ('X', 'B', 'E', 'i', 'C', 's', 'f', ...) */
    uint8_t kind;    /* ks_kind */
} ks_event;

#define KS_DUR_HI_NONE 0xFFFFu
/* The longest duration an event keeps: 2^48 - 2^32 - 1 ns (78 hours). */
#define KS_EVENT_MAX_DUR ((ks_ns)(((uint64_t)0xFFFEu << 32) | 0xFFFFFFFFu))

/* The duration in ns, or KS_NO_DUR. */
static inline ks_ns ks_event_dur(const ks_event *e)
{
    return e->dur_hi == KS_DUR_HI_NONE ? KS_NO_DUR : (ks_ns)(((uint64_t)e->dur_hi << 32) | e->dur_lo);
}
static inline int ks_event_has_dur(const ks_event *e) { return e->dur_hi != KS_DUR_HI_NONE; }
/* Set the duration: KS_NO_DUR, or 0 .. KS_EVENT_MAX_DUR: 1. Any other value: 0, and the event is
 * left as it was (the parser skips such events with a diagnostic before they get here). */
static inline int ks_event_set_dur(ks_event *e, ks_ns d)
{
    if (d == KS_NO_DUR) {
        e->dur_hi = KS_DUR_HI_NONE;
        e->dur_lo = 0;
        return 1;
    }
    if (d < 0 || d > KS_EVENT_MAX_DUR)
        return 0;
    e->dur_hi = (uint16_t)((uint64_t)d >> 32);
    e->dur_lo = (uint32_t)d;
    return 1;
}
static inline ks_ns ks_event_end(const ks_event *e)
{
    return ks_event_has_dur(e) ? e->ts + ks_event_dur(e) : e->ts;
}

/* ---- tracks and processes ----------------------------------------------------------------- */

typedef enum ks_track_kind {
    KS_TRACK_CPU = 0, /* host thread */
    KS_TRACK_GPU = 1, /* GPU stream (kernels, copies, annotations, syncs) */
    KS_TRACK_OTHER = 2 /* spans, markers, overhead, counters only */
} ks_track_kind;

typedef struct ks_process {
    ks_id pid;
    ks_str name;      /* process_name */
    ks_str labels;    /* process_labels ("CPU", "GPU 0") */
    int32_t sort_index;
    uint8_t has_sort_index;
} ks_process;

/* A track: one distinct (pid, tid). 64 bytes of plain data; the store's own bookkeeping (the
 * capacity of ev, the counts that decide the kind, the time span folded while appending) is kept
 * beside it, private to store/ (store.c). Events are added with ks_trace_append only. */
typedef struct ks_track {
    ks_id tid;
    ks_event *ev;       /* events in file order */
    size_t n;
    int64_t stream;     /* GPU tracks: stream id (-1 unknown) */
    uint32_t process;   /* index into ks_trace.procs; the track's pid is that process's
                         * (ks_track_pid) */
    ks_str name;        /* thread_name */
    int32_t sort_index;
    int32_t device;     /* GPU tracks: device index (-1 unknown) */
    uint8_t has_sort_index;
    uint8_t kind;       /* ks_track_kind, set when the trace is finished */
} ks_track;

/* ---- counters (ph C): each numeric args key is a series ----------------------------------- */

typedef struct ks_counter_sample {
    ks_ns ts;
    uint32_t series; /* index into ks_trace.series */
    double value;    /* counter values are measurements, not times: double is fine */
} ks_counter_sample;

typedef struct ks_series {
    uint32_t track;
    ks_str name; /* "<event name> <key>" as Perfetto names it */
} ks_series;

/* ---- top-level metadata ------------------------------------------------------------------- */

typedef struct ks_device_prop {
    int64_t id;
    ks_str name;
    int64_t total_global_mem;
    int64_t compute_major, compute_minor, num_sms;
} ks_device_prop;

typedef struct ks_meta_entry {
    ks_str key;
    ks_str value;     /* raw JSON text of a scalar value (strings without quotes) */
    uint8_t is_string;
} ks_meta_entry;

typedef struct ks_meta {
    ks_str schema_version;      /* raw text, 0 if absent */
    ks_str display_time_unit;
    ks_str trace_name;
    int has_base_time;
    int64_t base_time_ns;       /* baseTimeNanoseconds */
    int has_rank, has_world_size;
    int64_t rank, world_size;   /* distributedInfo */
    ks_str backend;             /* distributedInfo.backend */
    ks_device_prop *devices;    /* deviceProperties */
    size_t ndevices;
    ks_meta_entry *entries;     /* other top-level scalars: host_name, with_stack, ... */
    size_t nentries;
} ks_meta;

/* ---- collective metadata ------------------------------------------------------------------ */

/* The collective args of an event (PyTorch writes them on NCCL kernels and on record_param_comms):
 * kept only for events whose args have "Collective name". Absent numbers are -1, absent strings 0. */
typedef struct ks_coll_info {
    uint32_t track, ev;        /* the event: t->tracks[track].ev[ev] */
    ks_str name;               /* "Collective name" */
    ks_str pg_name;            /* "Process Group Name" */
    ks_str pg_ranks;           /* "Process Group Ranks" (text, "[0, 1]") */
    ks_str dtype;              /* "dtype" */
    int64_t in_nelems, out_nelems; /* "In msg nelems", "Out msg nelems" */
    int64_t group_size;        /* "Group size" */
    int64_t seq;               /* "Seq" */
} ks_coll_info;

/* ---- recorded shapes ---------------------------------------------------------------------- */

/* The shape args of an op (PyTorch writes them with record_shapes=True): kept only for events whose
 * args have "Input Dims", "Input type" or "Concrete Inputs". Each is the value's JSON text, compact
 * (no blanks: "[[141,512],[512,512],[]]", "[\"float\",\"Scalar\"]"), interned; 0 when absent, or
 * when the value held an object or was longer than KS_LIMIT_SHAPE_TEXT (counted:
 * parse.shape_args_skipped). */
typedef struct ks_shape_info {
    uint32_t track, ev;        /* the event: t->tracks[track].ev[ev] */
    ks_str dims;               /* "Input Dims" */
    ks_str types;              /* "Input type" */
    ks_str concrete;           /* "Concrete Inputs" */
} ks_shape_info;

/* ---- memory records ([memory] instants of profile_memory=True) --------------------------- */

enum ks_mem_has {
    KS_MEM_BYTES = 1u << 0,     /* "Bytes" (negative: a free) */
    KS_MEM_ALLOCATED = 1u << 1, /* "Total Allocated" (PyTorch 1.10+) */
    KS_MEM_RESERVED = 1u << 2,  /* "Total Reserved" */
    KS_MEM_ADDR = 1u << 3,      /* "Addr" */
    KS_MEM_TYPE = 1u << 4,      /* "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP...) */
    KS_MEM_ID = 1u << 5         /* "Device Id" (-1 for the CPU) */
};

/* The args of an allocator event: kept for every event whose args carry "Total Allocated",
 * "Total Reserved", "Addr", "Device Type" or "Device Id" (cpu_instant_event [memory] and
 * [OutOfMemory]), each number exact as written (an integer that fits int64; any other value is
 * left out and its has bit clear). */
typedef struct ks_mem_info {
    uint32_t track, ev;        /* the event: t->tracks[track].ev[ev] */
    int64_t bytes;             /* "Bytes" */
    int64_t allocated;         /* "Total Allocated" */
    int64_t reserved;          /* "Total Reserved" */
    int64_t addr;              /* "Addr" (an address above INT64_MAX keeps its 64 bits) */
    int32_t device_type;       /* "Device Type" */
    int32_t device_id;         /* "Device Id" */
    uint32_t has;              /* ks_mem_has */
} ks_mem_info;

/* ---- recorded waits (cuda_sync Event Sync, Stream Wait Event) ---------------------------- */

/* What a CUDA event wait waited for, as Kineto records it on its cuda_sync event: kept for every
 * event whose args carry "wait_on_stream" or "wait_on_cuda_event_record_corr_id" with an integer
 * (-1, Kineto's "unknown", is kept as written; the has bits say which were seen). */
enum ks_sync_has {
    KS_SYNC_STREAM = 1u << 0,     /* "wait_on_stream": the stream the recorded event was on */
    KS_SYNC_RECORD = 1u << 1      /* "wait_on_cuda_event_record_corr_id": the correlation of the
                                   * cudaEventRecord call that recorded it */
};

typedef struct ks_sync_info {
    uint32_t track, ev;        /* the event: t->tracks[track].ev[ev] */
    int64_t wait_stream;       /* "wait_on_stream" */
    int64_t record_corr;       /* "wait_on_cuda_event_record_corr_id" */
    uint32_t has;              /* ks_sync_has */
} ks_sync_info;

/* ---- kernel launch args ------------------------------------------------------------------- */

/* What Kineto records of a kernel's launch (CUPTI's kernel record): kept for events whose args have
 * any of them, each only when it is a number (an array of three integers for grid and block);
 * `has` says which (KS_LAUNCH_*). */
enum {
    KS_LAUNCH_REGS = 1,        /* "registers per thread" */
    KS_LAUNCH_SHMEM = 2,       /* "shared memory" (bytes: static + dynamic) */
    KS_LAUNCH_BLOCKS_SM = 4,   /* "blocks per SM" */
    KS_LAUNCH_WARPS_SM = 8,    /* "warps per SM" */
    KS_LAUNCH_OCC = 16,        /* "est. achieved occupancy %" */
    KS_LAUNCH_GRID = 32,       /* "grid" */
    KS_LAUNCH_BLOCK = 64       /* "block" */
};

typedef struct ks_launch_args {
    uint8_t has;               /* KS_LAUNCH_* bits */
    int32_t registers;
    int64_t shared_mem;
    double blocks_per_sm, warps_per_sm, occupancy_pct;
    int64_t grid[3], block[3];
} ks_launch_args;

/* The launch args of one event as the trace keeps them: the event and its args, an index into
 * ks_trace.launch_args. Kernels launched alike (the same args, bit for bit) share one entry of
 * launch_args, so a record is 12 bytes (the args beside their event took 96). */
typedef struct ks_launch_info {
    uint32_t track, ev;        /* the event: t->tracks[track].ev[ev] */
    uint32_t args;             /* its args: t->launch_args[args] */
} ks_launch_info;

/* ---- the trace ---------------------------------------------------------------------------- */

typedef struct ks_trace {
    char *source;              /* "path", "-", or "archive.tar:member/path" */
    char *filter;              /* how it was stored: "none", "gzip", "tar/gzip", "zip"... */
    uint64_t bytes;            /* decompressed bytes read */
    int container;             /* '{' object, '[' array, 0 unknown */
    int truncated;             /* the input ended inside the trace */
    uint64_t truncated_at;     /* byte offset where the committed part ends */

    ks_strtab *strings;
    ks_str *cats;              /* category id -> interned text; cats[0] = "" */
    size_t ncats;

    ks_process *procs;
    size_t nprocs;
    ks_track *tracks;
    size_t ntracks;

    ks_counter_sample *counters;
    size_t ncounters;
    ks_series *series;
    size_t nseries;

    ks_coll_info *colls;       /* sorted by (track, ev) once the trace is finished */
    size_t ncolls;

    ks_shape_info *shapes;     /* recorded shapes, sorted by (track, ev) once the trace is finished */
    size_t nshapes;

    ks_launch_info *launches;  /* kernel launch args, sorted by (track, ev) once the trace is finished */
    size_t nlaunches;
    ks_launch_args *launch_args; /* the distinct launch args, in the order they were first seen */
    size_t nlaunch_args;

    int64_t *wide_ids;         /* event ids that do not fit 32 bits (KS_EF_EXT_WIDE, ...) */
    size_t nwide_ids;

    ks_mem_info *mems;         /* allocator events, sorted by (track, ev) once finished */
    size_t nmems;

    ks_sync_info *syncs;       /* recorded waits, sorted by (track, ev) once finished */
    size_t nsyncs;

    uint64_t events;           /* events committed to tracks */
    uint64_t by_phase[128];    /* every event read, by phase character (M and ignored included) */
    uint64_t phase_other;      /* phases outside ASCII or longer than one character */
    uint64_t *by_cat;          /* events per category id (parallel to cats) */

    ks_meta meta;
    ks_diag diag;
    /* (the capacities of these arrays and the other bookkeeping are private to store/) */
} ks_trace;

/* The next track of that kind (KS_TRACK_CPU, KS_TRACK_GPU) at or after *k, with *k set to its
 * index, or NULL when none is left: the walk over one kind of track is
 *     const ks_track *tr;
 *     for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) ... */
static inline const ks_track *ks_track_next(const ks_trace *t, int kind, size_t *k)
{
    for (; *k < t->ntracks; ++*k)
        if (t->tracks[*k].kind == kind)
            return &t->tracks[*k];
    return NULL;
}

/* The pid of track k of t. */
static inline ks_id ks_track_pid(const ks_trace *t, const ks_track *k)
{
    return t->procs[k->process].pid;
}

/* An id from its 32-bit field v: v itself, or (is_wide) the entry v of the table of wide ids. */
static inline int64_t ks_event_id_in(const int64_t *wide, int32_t v, int is_wide)
{
    return is_wide ? wide[(uint32_t)v] : v;
}

/* The "External id" of an event of t (meaningful when KS_EF_EXT is set). */
static inline int64_t ks_event_ext(const ks_trace *t, const ks_event *e)
{
    return ks_event_id_in(t->wide_ids, e->ext32, e->flags & KS_EF_EXT_WIDE);
}

/* The correlation (the flow id of s/t/f) of an event of t (meaningful when KS_EF_CORR is set). */
static inline int64_t ks_event_corr(const ks_trace *t, const ks_event *e)
{
    return ks_event_id_in(t->wide_ids, e->corr32, e->flags & KS_EF_CORR_WIDE);
}

/* Lifecycle (the parser calls these; tests may build stores by hand). */
KS_API ks_trace *ks_trace_new(const char *source);
KS_API void ks_trace_free(ks_trace *t);

/* Intern a category; returns its id (stable, small). */
KS_API uint16_t ks_trace_cat(ks_trace *t, const char *s, size_t len);
KS_API const char *ks_trace_cat_name(const ks_trace *t, uint16_t cat);
/* The text of an interned string. */
KS_API const char *ks_trace_str(const ks_trace *t, ks_str id);

/* Find or create the process / track for a typed pid (and tid). */
KS_API uint32_t ks_trace_process(ks_trace *t, ks_id pid);
KS_API uint32_t ks_trace_track(ks_trace *t, ks_id pid, ks_id tid);
/* Find without creating: 1 and *out when the track exists. */
KS_API int ks_trace_track_find(const ks_trace *t, ks_id pid, ks_id tid, uint32_t *out);
/* Append an event to a track; returns a pointer valid until the next append to that track. The
 * caller may still edit that event until then (or until ks_trace_finish). */
KS_API ks_event *ks_trace_append(ks_trace *t, uint32_t track, const ks_event *e);
/* The same for a device-side event that carried args.stream / args.device (KS_EF_STREAM,
 * KS_EF_DEVICE): the first such values of a track become its stream and device. */
KS_API ks_event *ks_trace_append_device(ks_trace *t, uint32_t track, const ks_event *e, int64_t stream,
                                        int32_t device);
/* Set the "External id" and correlation of an event about to be appended to t (the flags
 * KS_EF_EXT / KS_EF_CORR say which are present; give 0 for an absent one): in the record when
 * they fit 32 bits, else in t->wide_ids (ks_event_ext, ks_event_corr). The event then belongs to
 * t: appended to another trace, its wide ids would be read from the wrong table. */
KS_API void ks_event_set_ids(ks_trace *t, ks_event *e, int64_t ext, int64_t corr);
/* Record "bytes" (memcpy/memset) of the event just appended to the track, and flag it
 * KS_EF_BYTES: few events have it, so it lives beside the records (ks_event_bytes). Once per event:
 * called again for it before any other event's bytes, the new value replaces the old (the store
 * keeps one entry per event and does not look further back). */
KS_API void ks_trace_set_bytes(ks_trace *t, uint32_t track, int64_t bytes);
/* The "bytes" of event ev of the track: 1 and *bytes when recorded (KS_EF_BYTES), else 0. */
KS_API int ks_event_bytes(const ks_trace *t, uint32_t track, uint32_t ev, int64_t *bytes);
/* Find or create the counter series (track, name); returns its index into ks_trace.series. */
KS_API uint32_t ks_trace_series(ks_trace *t, uint32_t track, ks_str name);
/* Append a counter sample (ks_trace.counters). */
KS_API void ks_trace_add_counter(ks_trace *t, ks_ns ts, uint32_t series, double value);
/* Append the collective metadata of an event (ks_trace.colls; c->track, c->ev name the event). */
KS_API void ks_trace_add_coll(ks_trace *t, const ks_coll_info *c);
/* Append the recorded shapes of an event (ks_trace.shapes; s->track, s->ev name the event). */
KS_API void ks_trace_add_shape(ks_trace *t, const ks_shape_info *s);
/* The recorded shapes of event ev of track k of a finished trace, or NULL (search by halves). */
KS_API const ks_shape_info *ks_trace_shape(const ks_trace *t, uint32_t track, uint32_t ev);
/* Append the launch args of event ev of the track (ks_trace.launches; args shared with any event
 * launched alike, ks_trace.launch_args). */
KS_API void ks_trace_add_launch(ks_trace *t, uint32_t track, uint32_t ev, const ks_launch_args *a);
/* The launch args of event ev of track k of a finished trace, or NULL (search by halves). */
KS_API const ks_launch_args *ks_trace_launch(const ks_trace *t, uint32_t track, uint32_t ev);

/* Append the allocator args of an event (ks_trace.mems; m->track, m->ev name the event). */
KS_API void ks_trace_add_mem(ks_trace *t, const ks_mem_info *m);
/* Append the recorded wait of an event (ks_trace.syncs; w->track, w->ev name the event). */
KS_API void ks_trace_add_sync(ks_trace *t, const ks_sync_info *w);
/* The recorded wait of event ev of track k of a finished trace, or NULL (search by halves). */
KS_API const ks_sync_info *ks_trace_sync(const ks_trace *t, uint32_t track, uint32_t ev);

/* Classify a category (and name, for legacy spellings) into a ks_kind. */
KS_API ks_kind ks_classify(const char *cat, size_t catlen, const char *name, size_t namelen);
/* The kind of one event from its category's kind k: a slice (X, B, E) of a category kinesift
 * does not know (KS_K_OTHER) that carries args.device or args.stream (KS_EF_DEVICE,
 * KS_EF_STREAM) is an accelerator's device activity, KS_K_DEVICE_OTHER; else k. */
KS_API ks_kind ks_classify_event(ks_kind k, char ph, uint32_t flags);

/* Called once after parsing: sets track kinds/devices/streams, releases spare capacity and the
 * bookkeeping of writing. The trace is read only from then on: appending an event or making a
 * new track after it aborts (a caller's bug, not an input's). */
KS_API void ks_trace_finish(ks_trace *t);

/* Look up a top-level scalar ("with_stack", "host_name"); NULL when absent. */
KS_API const ks_meta_entry *ks_meta_find(const ks_trace *t, const char *key);

/* Time span over all events with a timestamp (first start .. last end); 0 when none. Costs one
 * step per track (the span is folded in while appending). */
KS_API int ks_trace_span(const ks_trace *t, ks_ns *first, ks_ns *last);

/* Number of ProfilerStep#N annotations on CPU tracks (user_annotation; Operator in 2020-21 files). */
KS_API size_t ks_trace_step_count(const ks_trace *t);

/* Elements of "traceEvents" read: every event counted by phase (by_phase, phase_other) and
 * those skipped before they had one (the diagnostics marked uncounted_event in kinesift/diag.h:
 * empty, without "ph", not an object). */
KS_API uint64_t ks_trace_events_read(const ks_trace *t);
/* The one ProfilerStep#N rule (the analysis finds steps by it; redact keeps such names
 * verbatim): the whole name is "ProfilerStep", optional blanks (space, tab), '#', optional
 * blanks, then one or more ASCII digits to the end. Nothing may follow the digits (a name with
 * more after them is not a step, and redact scans it like any name). N saturates at INT64_MAX.
 * Returns 1 and N (when n is not NULL) for a step name, else 0. */
KS_API int ks_match_profiler_step(const char *name, int64_t *n);
/* The same rule on s[0..len) (not NUL-terminated). */
KS_API int ks_match_profiler_step_n(const char *s, size_t len, int64_t *n);

/* Bytes of memory held by the store (records, strings, tables). */
KS_API size_t ks_trace_memory(const ks_trace *t);

#ifdef __cplusplus
}
#endif
#endif
