/* kinesift/memory.h: the allocator's memory per device, from the [memory] instants a trace
 * captured with profile_memory=True carries (ks_trace.mems): the allocated and reserved bytes over
 * time, the peak and what was live at it, the TensorBoard plugin's per-op figures, and per step.
 * Made by ks_analyze (analysis/memory.c) over the whole trace, whatever the window; the per-step
 * rows by ks_memory_steps (insights/memory_steps.c). docs/analysis.md, "Memory", has the
 * definitions.
 *
 * Definitions:
 *  - A device is (Device Type, Device Id) as the events give them (c10::DeviceType: 0 CPU, 1 CUDA,
 *    6 HIP...; Device Id -1 for the CPU).
 *  - The events of a device in time order (ties: track, then file order); the level after an event
 *    is its own Total Allocated (Total Reserved), else the level before it plus its Bytes (reserved
 *    unchanged). Traces before PyTorch 1.10 carry no totals: the level is then the running sum of
 *    Bytes from 0 at the first event (basis KS_MEM_BASIS_NET), and the peaks are not observed.
 *  - The peak is the largest Total Allocated (Total Reserved) an event of the device carries,
 *    exactly; its time is the first event carrying it.
 *  - Each event belongs to the innermost operator or labelled range (cpu_op, user_annotation; not
 *    ProfilerStep#N, not Python frames) open on its thread at its time, half-open ([start, end)):
 *    the plugin's rule; [no op] when none. Per op (the plugin's MemoryMetrics): allocations (events
 *    with Bytes > 0), their bytes, and the increase (the sum of Bytes, frees negative), self (the
 *    op's own events) and inclusive (its subtree's; an event counts once per name however deep
 *    the name recurs).
 *  - Live at the peak: the allocations (by Addr) not freed by the peak event, grouped by the op
 *    that made them; what the Total Allocated holds beyond them was allocated before the capture.
 *  - Laws: Total Allocated of an event = the previous event's + its Bytes (a break is an event
 *    the profiler dropped, or a tie of timestamps the file does not order), and the increases of
 *    the ops add up to the sum of Bytes, which equals the change of Total Allocated where nothing
 *    breaks. Breaks are counted, not smoothed over. */
#ifndef KINESIFT_MEMORY_H
#define KINESIFT_MEMORY_H

#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a device's level is. */
typedef enum ks_mem_basis {
    KS_MEM_BASIS_TOTAL = 0,    /* the allocator's Total Allocated */
    KS_MEM_BASIS_NET           /* the running sum of Bytes since the first event (no totals) */
} ks_mem_basis;

/* One event of a device, in time order, with the levels after it. */
typedef struct ks_mem_event {
    ks_ns ts;
    int64_t bytes;             /* its Bytes (0 when absent) */
    int64_t addr;              /* its Addr (KS_MEM_ADDR in has) */
    int64_t level;             /* allocated after it (basis of the device) */
    int64_t reserved;          /* reserved after it (-1: no event so far carried Total Reserved) */
    ks_str op;                 /* the op or label it belongs to; 0: [no op] */
    uint32_t track;            /* its thread */
    uint32_t mem;              /* its record: ks_trace.mems[mem] */
    uint8_t op_kind;           /* KS_K_CPU_OP or KS_K_USER_ANNOTATION; KS_K_OTHER for [no op] */
    uint8_t has;               /* ks_mem_has of its record */
} ks_mem_event;

/* A point of the downsampled timeline: the levels after the event at ts. */
typedef struct ks_mem_point {
    ks_ns ts;
    int64_t allocated;         /* level (basis of the device) */
    int64_t reserved;          /* -1: not recorded */
} ks_mem_point;

/* Per op (name and kind) on one device: the plugin's MemoryMetrics. */
typedef struct ks_mem_op {
    ks_str name;               /* 0: [no op] */
    uint8_t kind;              /* KS_K_CPU_OP, KS_K_USER_ANNOTATION, KS_K_OTHER ([no op]) */
    uint64_t self_allocs, incl_allocs;           /* allocations */
    int64_t self_alloc_bytes, incl_alloc_bytes;  /* their bytes */
    int64_t self_net_bytes, incl_net_bytes;      /* increase: the sum of Bytes */
} ks_mem_op;

enum ks_mem_live_what {
    KS_MEM_LIVE_OP = 0,        /* allocations an op (or [no op], name 0) made in the capture */
    KS_MEM_LIVE_BEFORE         /* allocated before the capture (the peak less the rest) */
};

/* Allocations live at the peak made by one op. */
typedef struct ks_mem_live {
    ks_str op;                 /* 0: [no op] (what KS_MEM_LIVE_OP), none (KS_MEM_LIVE_BEFORE) */
    uint8_t kind;              /* the op's kind */
    uint8_t what;              /* ks_mem_live_what */
    uint64_t count;            /* allocations (0 for KS_MEM_LIVE_BEFORE) */
    int64_t bytes;
} ks_mem_live;

/* One step on one device (ks_memory_steps): over the step's CPU annotation [host_start, host_end). */
typedef struct ks_mem_step {
    int64_t number;            /* the step's number */
    int64_t start_level;       /* level before the step (before the device's first event: the level
                                * there, its level less its Bytes) */
    int64_t end_level;         /* level at the step's end */
    int64_t peak_level;        /* the most inside the step (start_level included) */
    ks_ns peak_ns;             /* its time: the step's start when no event in it is higher */
    int64_t peak_reserved;     /* -1: not recorded */
    uint64_t events;           /* the device's events in the step */
} ks_mem_step;

typedef struct ks_mem_device {
    int32_t device_type;       /* Device Type (-1 absent) */
    int32_t device_id;         /* Device Id (-1 for the CPU; INT32_MIN absent) */
    const char *type_name;     /* "CPU", "CUDA", "HIP", "XPU", "MTIA"...; NULL for a number c10
                                * does not name (or none: device_type -1) */
    uint8_t basis;             /* ks_mem_basis */
    uint8_t has_reserved;      /* some event carries Total Reserved (the CPU's, always 0, is not
                                * counted: its allocator reserves nothing) */
    uint64_t events, allocs, frees;
    int64_t alloc_bytes;       /* the sum of the allocations' Bytes */
    int64_t free_bytes;        /* of the frees' (positive) */
    int64_t net_bytes;         /* the sum of Bytes */
    /* the peak (KS_MEM_BASIS_TOTAL; -1 otherwise): the most Total Allocated / Reserved of an event */
    int64_t peak_allocated, peak_reserved;
    ks_ns peak_ns, peak_reserved_ns;
    size_t peak_event;         /* index in ev[] of the peak (of the highest level, net basis) */
    int64_t peak_level;        /* the highest level (= peak_allocated with totals) */
    ks_str peak_op;            /* the op of the peak event (0: [no op]) */
    uint8_t peak_op_kind;
    ks_str *peak_path;         /* the ops open at the peak on its thread, outermost first */
    size_t npeak_path;
    int64_t reserved_at_peak;  /* reserved after the peak event, -1 not recorded */
    int has_peak_step;         /* ks_memory_steps found a step around the peak */
    int64_t peak_step;
    int64_t capacity;          /* deviceProperties totalGlobalMem of an accelerator; -1 unknown */
    int64_t start_level;       /* before the first event: its level less its Bytes */
    int64_t end_level;         /* after the last event */
    uint64_t law_breaks;       /* events whose Total Allocated is not the previous one's + Bytes */
    uint64_t law_checked;      /* events that could be checked (both totals and Bytes known) */
    uint64_t unpaired_frees;   /* frees of an Addr not allocated in the capture before them */
    ks_mem_event *ev;          /* every event of the device, in time order */
    size_t nev;
    ks_mem_point *timeline;    /* downsampled (KS_LIMIT_MEMORY_POINTS), every peak kept */
    size_t ntimeline;
    ks_mem_live *live;         /* live at the peak, by bytes, largest first */
    size_t nlive;
    ks_mem_op *ops;            /* every op with an event, by allocated bytes (inclusive), largest first */
    size_t nops;
    ks_mem_step *steps;        /* ks_memory_steps: per step */
    size_t nsteps;
} ks_mem_device;

typedef struct ks_memory {
    ks_mem_device *dev;        /* by device type, then id */
    size_t n;
    const char *reason;        /* not observed: why (no [memory] event); NULL otherwise */
    uint64_t events;           /* allocator events of the trace */
} ks_memory;

/* The memory pass over a trace (run by ks_analyze: ks_analysis.memory); the timelines tl[] of
 * the analysis name the ops. Always returns a ks_memory (reason set when there is nothing). */
struct ks_timeline;
KS_API ks_memory *ks_memory_build(const ks_trace *t, const struct ks_timeline *tl, size_t ntl);
KS_API void ks_memory_free(ks_memory *m);

/* The level of device d just before time ts (after every event before ts): d->start_level before
 * its first event. The index of the first event at or after ts in *next when not NULL. */
KS_API int64_t ks_mem_level_before(const ks_mem_device *d, ks_ns ts, size_t *next);

/* The per-step rows of every device (and the step of each peak), for the steps given (replacing
 * those of an earlier call); the steps' CPU annotations bound them. */
struct ks_steps;
KS_API void ks_memory_steps(ks_memory *m, const struct ks_steps *st);

#ifdef __cplusplus
}
#endif
#endif
