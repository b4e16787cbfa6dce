/* kinesift/insights.h: where the time goes, step by step: steps and their warm-up, the per-step
 * breakdown, GPU idle gaps with what the CPU was doing during them, diagnoses stated as
 * hypotheses with their evidence and the next check, nvidia-smi telemetry in the same windows, and
 * the what-if projection. Built on a finished ks_analysis (kinesift/analysis.h).
 * docs/insights.md has the definitions.
 *
 * Threads (kinesift/common.h): the insights read the trace and the analysis as const and may run
 * at once on different threads, except ks_telemetry_load with an IANA zone (ks_smi_opts.tz_zone):
 * it sets TZ, process-wide, while it reads, so no other thread may use the time zone then. */
#ifndef KINESIFT_INSIGHTS_H
#define KINESIFT_INSIGHTS_H

#include "kinesift/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- steps --------------------------------------------------------------------------------- */

/* The TensorBoard plugin's step breakdown roles, in its priority order. */
typedef enum ks_role {
    KS_ROLE_KERNEL = 0,
    KS_ROLE_MEMCPY,
    KS_ROLE_MEMSET,
    KS_ROLE_COMM,
    KS_ROLE_RUNTIME,
    KS_ROLE_DATALOADER,
    KS_ROLE_CPU_EXEC,
    KS_ROLE_OTHER,
    KS_ROLE_COUNT
} ks_role;

KS_API const char *ks_role_name(ks_role r);

typedef struct ks_step {
    int64_t number;            /* N of ProfilerStep#N (or the ordinal for --step-label) */
    ks_str name;
    ks_ns host_start, host_end; /* the CPU annotation */
    ks_ns start, end;          /* widened to the end of the GPU work the step launched */
    ks_ns wall_ns, busy_ns, idle_ns;
    ks_ns breakdown[KS_ROLE_COUNT]; /* adds up to wall_ns exactly */
    uint64_t gpu_events;       /* GPU work launched inside the step */
    int warmup;                /* reported apart from the active window */
    int unfinished;            /* the annotation was cut by the end of the capture */
} ks_step;

/* An active step: neither warm-up nor unfinished (the steps the active window is made of). */
static inline int ks_step_active(const ks_step *s)
{
    return !s->warmup && !s->unfinished;
}

typedef struct ks_steps {
    ks_step *v;
    size_t n;
    char source[160];          /* "ProfilerStep#N", "label /REGEX/", or "none" */
    uint32_t track;            /* the thread that marked the steps */
    size_t nwarmup;
    int warmup_forced;         /* --warmup given */
    /* steps found in the trace and left out by the window (ks_steps_restrict): the window line's
     * "N warm-up left out" */
    size_t outside_warmup, outside_unfinished, outside_active;
    /* the active window: steps that are neither warm-up nor unfinished */
    size_t nactive;
    ks_ns active_median, active_mean, active_min, active_max;
} ks_steps;

typedef struct ks_step_opts {
    const char *label_regex;   /* NULL: ProfilerStep#N */
    int warmup;                /* -1: detect; else the number of leading warm-up steps */
} ks_step_opts;

KS_API void ks_step_opts_init(ks_step_opts *o);

/* Find the steps of the analysed trace (the analysis window is ignored: steps are found in the
 * whole trace). No step is not an error: n = 0 and source says why. */
KS_API int ks_steps_find(const ks_analysis *a, const ks_step_opts *o, ks_steps *out, ks_error *err);
KS_API void ks_steps_free(ks_steps *s);
/* Keep only the steps that start inside [w0, w1) (used with --window). */
KS_API void ks_steps_restrict(ks_steps *s, ks_ns w0, ks_ns w1);

/* ---- GPU idle gaps ------------------------------------------------------------------------- */

typedef struct ks_gap_cause {
    ks_str name;               /* 0: nothing (the CPU thread was idle) */
    uint8_t kind;              /* ks_kind of the slice, or KS_K_OTHER for nothing */
    uint8_t data;              /* the name matches the data-loading pattern */
    uint8_t waiting;           /* the launching thread was waiting on another thread (idle, in a
                                * label's own time or in a blocking call while another thread of its
                                * process ran a CPU op); name/kind: where it waited (0 = idle) */
    uint64_t count;            /* gaps in which it appears */
    ks_ns total_ns;
} ks_gap_cause;

/* What a CPU thread is doing at an instant (docs/insights.md, "every thread"). */
typedef enum ks_thread_state {
    KS_TS_IDLE = 0,            /* no slice open but step annotations */
    KS_TS_WORK,                /* inside an op, runtime call, Python frame...: running CPU work */
    KS_TS_BLOCKING,            /* inside a blocking call (vocab/calls.c's table) */
    KS_TS_LABEL,               /* in a labelled range's own time (no op below it) */
    KS_TS_COUNT
} ks_thread_state;

KS_API const char *ks_thread_state_name(ks_thread_state s);

/* A piece [start, end) of a gap during which one CPU thread was in one slice (or idle). The
 * pieces of one thread in one gap are disjoint, in time order, and lie inside the gap. */
typedef struct ks_gap_piece {
    ks_ns start, end;
    uint32_t track;            /* the thread (track index) */
    ks_str name;               /* innermost slice that is not a step annotation; 0 = idle */
    uint8_t kind;              /* its ks_kind */
    uint8_t state;             /* ks_thread_state */
} ks_gap_piece;

typedef struct ks_gap {
    ks_ns start, end;
    ks_str cause;              /* what the launching thread spent most of the gap in */
    uint8_t cause_kind;
    uint8_t data;              /* that cause matches the data-loading pattern */
    uint8_t cause_waiting;     /* that cause is "waiting on another thread" */
    int32_t launch_track;      /* the thread the gap is looked at from, -1 none */
    size_t piece0, npieces;    /* its pieces in ks_gap_device.pieces (every thread of the process):
                                * kept for the gaps of longest[] (the same gaps in all[] too) and
                                * for every gap only with ks_gap_opts.all_pieces; else 0, 0 */
} ks_gap;

/* One CPU thread of the launching process, over the gaps of a device. */
typedef struct ks_gap_thread {
    uint32_t track;
    uint64_t launching;        /* gaps looked at from this thread */
    ks_ns state_ns[KS_TS_COUNT]; /* gap time in each state */
    ks_gap_cause *by_cpu;      /* innermost slice during the gaps (name 0 = idle) */
    size_t nby_cpu;
} ks_gap_thread;

typedef struct ks_gap_device {
    int32_t device;
    ks_ns threshold_ns;
    uint64_t count;            /* gaps >= threshold */
    ks_ns total_ns;            /* their total length */
    ks_ns idle_ns;             /* every gap, short ones too (= idle of the device in the window) */
    ks_gap_cause *by_cpu;      /* innermost CPU slice (any kind) */
    size_t nby_cpu;
    ks_gap_cause *by_label;    /* innermost labelled range (user_annotation), name 0 = none */
    size_t nby_label;
    ks_ns data_loading_ns;     /* gap time spent inside a data-loading slice (see data regex) */
    ks_ns *data_spans;         /* that time as [start, end) pairs (2 * ndata_spans values), on the
                                * launching thread of each gap */
    size_t ndata_spans;
    /* HTA's classes over every gap: host wait (the next launch came after the GPU went idle),
     * kernel wait (shorter than the HTA delay), other */
    ks_ns hta_host_wait_ns, hta_kernel_wait_ns, hta_other_ns;
    ks_gap longest[5];
    size_t nlongest;
    ks_gap *all;               /* every gap >= threshold, in time order (count of them) */
    ks_ns waiting_ns;          /* gap time the launching thread waited on another thread */
    ks_gap_thread *threads;    /* every CPU thread of the launching threads' processes */
    size_t nthreads;
    ks_gap_piece *pieces;      /* the pieces of the longest gaps, longest first (with
                                * ks_gap_opts.all_pieces: every gap's, gap after gap) */
    size_t npieces;
} ks_gap_device;

typedef struct ks_gap_opts {
    ks_ns threshold_ns;        /* default 10 us */
    ks_ns hta_kernel_wait_ns;  /* HTA's consecutive_kernel_delay: default 30 us */
    const char *data_regex;    /* names that mean "loading input"; NULL: the default */
    int all_pieces;            /* keep the pieces of every gap, not only of the longest (a piece
                                * per slice change per thread: tens of MB on a long trace) */
} ks_gap_opts;

KS_API void ks_gap_opts_init(ks_gap_opts *o);

typedef struct ks_gaps {
    ks_gap_device *dev;
    size_t n;
    const char *reason;        /* not observed: why */
} ks_gaps;

KS_API int ks_gaps_find(const ks_analysis *a, const ks_steps *steps, const ks_gap_opts *o, ks_gaps *out, ks_error *err);
KS_API void ks_gaps_free(ks_gaps *g);

/* What the launching thread did in the gaps (one cause), as every report and diagnosis says it:
 * "forward [cpu_op]" (sep between the name and its kind), "(nothing: CPU thread idle)",
 * "launching thread waiting on another thread (idle)" or "... (in forward [cpu_op])"; the name
 * cut to a preview of width bytes. */
KS_API void ks_gap_cause_text(char *buf, size_t n, const ks_trace *t, const ks_gap_cause *c, size_t width,
                              const char *sep);

/* ---- threads: who launched the GPU work, tied to steps and forward ops ---------------------- */

/* How GPU work was tied to a step (docs/insights.md, "Threads"). */
typedef enum ks_tie {
    KS_TIE_OWN = 0,            /* launched by the stepping thread inside the step's annotation */
    KS_TIE_FLOW,               /* launched by another thread under a backward op whose fwdbwd flow
                                * starts at a forward op inside the step */
    KS_TIE_TIME,               /* launched by another thread, no flow: its launch call ran while
                                * the step's annotation was open */
    KS_TIE_NONE,               /* not tied: outside every step, no steps, or no launch call */
    KS_TIE_COUNT
} ks_tie;

KS_API const char *ks_tie_name(ks_tie t);

typedef struct ks_thread_row {
    uint32_t track;
    const char *role;          /* "steps" (holds the steps; "main" without steps: launches most),
                                * "backward"
                                * (fwdbwd flows end there), "other" */
    uint64_t gpu_events;       /* GPU work it launched in the window */
    ks_ns gpu_ns[KS_TIE_COUNT]; /* its share of the GPU busy time, by tie */
} ks_thread_row;

typedef struct ks_named_ns {
    ks_str name;
    uint64_t count;            /* GPU events */
    ks_ns gpu_ns;              /* share of the GPU busy time */
} ks_named_ns;

typedef struct ks_threads {
    const char *reason;        /* not observed: why (no GPU work); NULL otherwise */
    ks_thread_row *v;          /* every CPU thread that launched GPU work in the window */
    size_t n;
    ks_ns busy_ns;             /* GPU busy time of the window, summed over devices */
    ks_ns tied_ns[KS_TIE_COUNT]; /* by tie; they add up to busy_ns */
    ks_ns no_launch_ns;        /* part of tied_ns[KS_TIE_NONE]: GPU work without a launch call */
    ks_ns (*step_ns)[KS_TIE_COUNT]; /* per step (parallel to the steps): GPU time tied to it */
    size_t nsteps;
    uint64_t flows;            /* fwdbwd flows whose both ends bind to an op */
    ks_named_ns *by_forward_op; /* other threads' GPU time tied by a flow, per forward op name */
    size_t nby_forward_op;
    ks_named_ns *labels;       /* per label enclosing those forward ops (each label in the chain) */
    size_t nlabels;
} ks_threads;

/* Each GPU work event's share of the busy time is the part of it no earlier-starting work of its
 * device covered (a sweep in start order), so every figure above is counted once. */
KS_API int ks_threads_find(const ks_analysis *a, const ks_steps *steps, ks_threads *out);
KS_API void ks_threads_free(ks_threads *t);

/* ---- diagnoses ----------------------------------------------------------------------------- */

typedef struct ks_diagnosis {
    const char *id;            /* input_pipeline, repeated_upload, small_launches, sync_in_loop,
                                * pageable_copy, dominant_op, dominant_kernel, exposed_communication,
                                * host_bound, profiler_overhead, low_efficiency_shape,
                                * fusable_memory_bound; caveats: init_in_capture,
                                * graph_capture, profiler_range, busy_is_not_efficiency
                                * (docs/insights.md has the table) */
    char *hypothesis;
    char *evidence;
    const char *confidence;    /* low, medium, high; "n/a" for caveats */
    char *next_check;
    char *refuted_if;
    char *validate_cmd;        /* the matching `kinesift validate` command, or NULL */
    int64_t *steps;            /* affected steps (numbers) */
    size_t nsteps;
    ks_ns impact_ns;           /* the most step time it could save inside the denominator's scope,
                                * an upper bound from the data; -1 for a caveat (a warning about
                                * the capture or the figures, no saving claimed) */
    const char *impact_basis;  /* how impact_ns is computed for this kind without a critical path */
    const char *impact_source; /* "critical_path": impact_ns is the item's time on the critical path
                                * of the scope (at most the heuristic bound); "heuristic": the
                                * bound of impact_basis (no path covering the scope); NULL for a
                                * caveat */
    ks_ns impact_heuristic_ns; /* the heuristic bound (impact_basis); -1 for a caveat */
    int below_floor;           /* impact under the floor: listed only with all (--all-diagnoses) */
    const char *subject;       /* the op or kernel named (dominant_op, dominant_kernel,
                                * low_efficiency_shape; a string of
                                * the trace), else NULL */
} ks_diagnosis;

typedef struct ks_diagnoses {
    ks_diagnosis *v;           /* by impact, largest first; caveats last */
    size_t n;
    const char *denominator;   /* the scope of impacts and shares: "active steps", "GPU span"
                                * (no active step) or "window" (no GPU work either) */
    ks_ns denominator_ns;      /* its length */
    double min_impact;         /* the floor, a fraction of denominator_ns */
    size_t hidden;             /* diagnoses below the floor left out (0 with all) */
} ks_diagnoses;

typedef struct ks_diagnose_opts {
    double min_impact;         /* floor as a fraction of the denominator; default 0.01 (1 %) */
    int all;                   /* keep the diagnoses below the floor (marked below_floor) */
    double peak_tflops, peak_tbps; /* the roofline's peaks for every device (--peak), as
                                    * ks_peak_of_device takes them; 0: the peak table's */
    const struct ks_critpath *critpath; /* the steps' critical path (kinesift/critpath.h): the
                                * impacts become the items' time on it; NULL: heuristic bounds */
} ks_diagnose_opts;

KS_API void ks_diagnose_opts_init(ks_diagnose_opts *o);
/* The diagnoses of the analysed window, with the default options. */
KS_API void ks_diagnose(const ks_analysis *a, const ks_steps *steps, const ks_gaps *gaps, ks_diagnoses *out);
KS_API void ks_diagnose_with(const ks_analysis *a, const ks_steps *steps, const ks_gaps *gaps,
                             const ks_diagnose_opts *o, ks_diagnoses *out);
/* The same with the critical path of the steps (kinesift/critpath.h, built on the same steps):
 * the diagnoses about GPU work on the path (low_efficiency_shape, fusable_memory_bound) run only
 * with it. ks_insights_run gives it. */
struct ks_critpath;
KS_API void ks_diagnose_path(const ks_analysis *a, const ks_steps *steps, const ks_gaps *gaps,
                             const struct ks_critpath *cp, const ks_diagnose_opts *o, ks_diagnoses *out);
KS_API void ks_diagnoses_free(ks_diagnoses *d);

/* ---- telemetry (nvidia-smi --query-gpu CSV) ------------------------------------------------ */

typedef struct ks_smi_sample {
    ks_ns t;                   /* absolute Unix time, ns (after tz and offset) */
    uint32_t gpu;              /* index into ks_telemetry.uuids */
    double util;               /* utilization.gpu in %, NaN = unknown (N/A, [Not Supported]) */
    double mem_used, mem_total; /* MiB, NaN = unknown */
} ks_smi_sample;

typedef struct ks_smi_stats {
    size_t n;                  /* samples inside the window */
    size_t util_known, mem_known;
    double util_min, util_mean, util_max;   /* NaN when util_known = 0 */
    double mem_used_min, mem_used_max;      /* NaN when mem_known = 0 */
} ks_smi_stats;

typedef struct ks_telemetry {
    ks_smi_sample *s;
    size_t n;
    char **uuids;              /* every GPU of the CSV, in order of appearance */
    size_t nuuids;
    const char *gpu;           /* the GPU kept (its UUID, or index); NULL when the CSV has no row */
    char gpu_match[160];       /* why that GPU: "--smi-gpu", "the trace's device 0", ... */
    char units_util[16], units_mem[16];     /* as the header gave them ("%", "MiB") */
    const char *reason;        /* not aligned / not observed: why (NULL when usable) */
    ks_ns trace_to_unix;       /* add to a trace timestamp to get Unix ns */
    ks_smi_stats window;       /* the analysis window */
    ks_smi_stats *per_step;    /* parallel to the steps */
    size_t nsteps;
    uint64_t unknown_values;   /* N/A and [Not Supported] fields seen */
} ks_telemetry;

typedef struct ks_smi_opts {
    const char *path;
    int tz_set;                /* --smi-tz given (UTC, +HH:MM or an IANA zone) */
    ks_ns tz_offset_ns;        /* local time = UTC + offset (when tz_zone is NULL) */
    const char *tz_zone;       /* IANA zone ("Europe/Paris"): offsets and DST from the tz database.
                                * Sets TZ while the CSV is read (ks_telemetry_load is then not
                                * thread-safe against other users of the time zone) */
    ks_ns offset_ns;           /* --smi-offset: added to every smi timestamp (clock skew) */
    const char *gpu;           /* --smi-gpu: keep one GPU (UUID, PCI bus id, or index: the CSV's
                                * index column, else the order of appearance) */
} ks_smi_opts;

/* Set the time zone of the CSV's timestamps from text: "UTC", "Z", an offset ("+02:00",
 * "-0530") or a zone of the tz database ("Europe/Paris"; $TZDIR or /usr/share/zoneinfo). 0 and
 * tz_set, tz_offset_ns, tz_zone set (tz_zone points into spec); -1 and o unchanged when spec is
 * none of these (insights/smi_tz.c). */
KS_API int ks_smi_set_tz(ks_smi_opts *o, const char *spec);


/* Read the CSV and align it on the trace (baseTimeNanoseconds + ts). Input errors (unreadable
 * file, bad header or row) return KS_ERR with the line; an unaligned trace is not an error
 * (reason is set). */
KS_API int ks_telemetry_load(const ks_smi_opts *o, const ks_analysis *a, const ks_steps *steps, ks_telemetry *out,
                             ks_error *err);
KS_API void ks_telemetry_free(ks_telemetry *t);

/* ---- what-if ------------------------------------------------------------------------------- */

typedef struct ks_shrink {
    const char *label;         /* a slice name; "@gpu" = all GPU work, "@cpu" = all CPU time */
    double factor;             /* new time = factor * old time */
} ks_shrink;

typedef struct ks_whatif_step {
    int64_t number;
    ks_ns measured_ns;         /* the step's wall time in the trace */
    ks_ns model_ns;            /* the model replaying the step unchanged (its calibration) */
    ks_ns projected_ns;        /* the model with the shrink applied */
    ks_ns label_cpu_ns, label_gpu_ns; /* time the model scaled */
    ks_ns other_threads_gpu_ns; /* GPU work (sum of durations) launched in the step by threads
                                * other than the stepping thread: modeled on their own thread */
    ks_ns unmodeled_gpu_ns;    /* GPU work starting in the step whose launch call is not in the
                                * trace: not in the model */
    ks_ns waits_modeled_ns;    /* time threads waited on another thread in the step, the wait's end
                                * following that thread's projected end (ks_whatif_wait) */
    ks_ns waits_unmodeled_ns;  /* time a thread only waited while another worked, but went on
                                * later than that work's end: kept at its measured length */
} ks_whatif_step;

/* The waits of one thread on another over the replayed steps (docs/insights.md, "What-if"). */
typedef struct ks_whatif_wait {
    uint32_t track, on_track;  /* the waiting thread, the thread whose work it waits on */
    int modeled;               /* its end follows the projected end of that work */
    uint64_t count;
    ks_ns wait_ns;             /* total length */
    ks_ns lag_ns;              /* total time from the end of that work to the wait's end (kept) */
    int queue;                 /* waits for the next batch of a data loader's queue, pinned by the
                                * other thread (a pin-memory thread: it may itself have waited for
                                * a worker process); modelled */
} ks_whatif_wait;

typedef struct ks_whatif {
    ks_whatif_step *v;
    size_t n;
    uint32_t track;            /* the stepping thread (the first replayed) */
    uint32_t *threads;         /* every thread replayed: the stepping thread, then each other
                                * thread that launched GPU work */
    size_t nthreads;
    ks_ns *label_wait_ns;      /* per shrink: time a thread spent in the label's own time while
                                * another replayed thread ran an op (waiting, not CPU work: never
                                * scaled) */
    ks_ns *label_own_ns;       /* per shrink: the label's time on its threads (union) */
    uint32_t *label_wait_track; /* per shrink: the thread with most of that waiting */
    ks_whatif_wait *waits;     /* per (thread, thread waited on, modeled), in the replayed steps */
    size_t nwaits;
} ks_whatif;

/* Replay each step (or the whole window when there are no steps) with the shrinks applied. On an
 * error (KS_ERR, err set) out holds nothing: ks_whatif_free on it is harmless. */
KS_API int ks_whatif_run(const ks_analysis *a, const ks_steps *steps, const ks_shrink *sh, size_t nsh, ks_whatif *out,
                         ks_error *err);
KS_API void ks_whatif_free(ks_whatif *w);

/* ---- the pipeline: every pass over one trace, in one order (insights/run.c) --------------- */

/* How far ks_insights_run goes. */
typedef enum ks_insights_depth {
    KS_INSIGHTS_ALL = 0,       /* analysis, steps, window, gaps, telemetry (with smi.path), diagnoses */
    KS_INSIGHTS_STEPS          /* analysis, steps and window only (whatif, diff, gate) */
} ks_insights_depth;

typedef struct ks_insights_opts {
    ks_analysis_opts analysis; /* its window fields are left to `window` below */
    ks_step_opts steps;
    ks_gap_opts gaps;
    ks_smi_opts smi;           /* smi.path NULL: no telemetry */
    ks_diagnose_opts diagnose; /* the impact floor, --all-diagnoses */
    const char *window;        /* a ks_window_parse SPEC ("steps:2-5", "1ms:20ms") or "trace" (the
                                * whole trace); NULL: the default window, the active steps, else
                                * the GPU span, else the CPU span without the profiler's own span
                                * (docs/insights.md, "The window") */
    int whole_trace;           /* with window NULL: the whole trace rather than the default */
    int steps_or_trace;        /* with window NULL: the active steps when there are some, else the
                                * whole trace (whatif: a replay without steps needs the launch
                                * calls before the first GPU work) */
    ks_insights_depth depth;
} ks_insights_opts;

/* Everything the passes found about one trace; the writers read it. */
typedef struct ks_insights {
    ks_analysis *a;
    ks_steps steps;            /* restricted to the window when one was given */
    ks_gaps gaps;
    ks_threads threads;        /* who launched the GPU work, tied to the steps */
    ks_diagnoses diagnoses;
    ks_telemetry telemetry;
    int have_telemetry;
    int telemetry_failed;         /* the error is about the nvidia-smi CSV (it names it), not the trace */
    struct ks_critpath *critpath; /* the critical path of each step (kinesift/critpath.h); NULL at
                                   * depth KS_INSIGHTS_STEPS */
} ks_insights;

KS_API void ks_insights_opts_init(ks_insights_opts *o);
/* Run the passes over t in the order that gives the figures of `kinesift analyze --format json`:
 * analysis, steps, window (the tables made once, for it, and the steps restricted to it), gaps,
 * threads, telemetry, diagnoses. KS_ERR with err set; free out in any case (ks_insights_free). Every
 * command that reports on one trace goes through it, so their figures are the same. */
KS_API int ks_insights_run(const ks_trace *t, const ks_insights_opts *o, ks_insights *out, ks_error *err);
KS_API void ks_insights_free(ks_insights *r);

#ifdef __cplusplus
}
#endif
#endif
