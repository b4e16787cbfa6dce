/* kinesift/validate.h: `kinesift validate` as a library (docs/validate.md): rerun a workload
 * without the profiler, baseline and candidate interleaved in seeded random blocks, and decide
 * with the statistics of kinesift/stats.h.
 *
 *  - the protocol (first run discarded, warm-up, batching, interleaving, throttle marks, stop
 *    rules) runs over a sampling backend: the CUDA-event timer, or a simulated one in tests;
 *  - external commands (`--baseline-cmd/--candidate-cmd`) time themselves and print
 *    `kinesift-sample <ms>` lines; they need no CUDA;
 *  - plugins are shared libraries with the ABI of kinesift/workload.h;
 *  - the report (text, JSON "kinesift.validate/1", raw CSV) is written from the results only.
 * Nothing is ever timed on the CPU and presented as GPU time.
 *
 * Threads (kinesift/common.h): the statistics and the report functions follow the common
 * contract, but a measurement (ks_validate_workload, ks_validate_commands) owns the GPU or the
 * machine while it runs: two at once would time each other, so run one at a time per process. */
#ifndef KINESIFT_VALIDATE_H
#define KINESIFT_VALIDATE_H

#include <stdint.h>
#include <stdio.h>

#include "kinesift/common.h"
#include "kinesift/stats.h"
#include "kinesift/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- protocol ------------------------------------------------------------------------ */

typedef enum ks_sample_status {
    KS_SAMPLE_KEPT,
    KS_SAMPLE_FIRST,     /* the first execution of an arm (or of a command run): discarded */
    KS_SAMPLE_WARMUP,    /* warm-up: counted, never used */
    KS_SAMPLE_THROTTLED, /* SM clock below the throttle share of the rated clock: discarded */
} ks_sample_status;

KS_API const char *ks_sample_status_name(ks_sample_status s); /* kept, first, warmup, throttled */

typedef struct ks_vsample {
    uint32_t arm;         /* 0 = baseline, 1.. = candidates */
    uint32_t block;       /* interleave block of a kept/throttled sample; 0 in warm-up */
    uint32_t run;         /* external commands: the invocation (1-based) of this arm; else 0 */
    uint32_t k;           /* executions per event pair (batch size) */
    int64_t ns;           /* elapsed ns for the k executions */
    int64_t host_ns;      /* host wall time around the event pair; -1 when not measured */
    double sm_clock_mhz;  /* effective SM clock during the sample; NaN when not measured */
    ks_sample_status status;
} ks_vsample;

typedef struct ks_vopts {
    uint32_t samples;         /* target kept samples per arm: 30 */
    uint32_t min_samples;     /* no early stop before this many per arm: 10 */
    uint32_t max_samples;     /* hard cap per arm (kept): 1000 */
    uint32_t warmup_runs;     /* at least 3 warm-up runs per arm ... */
    int64_t warmup_ns;        /* ... and at least 100 ms of them ... */
    int64_t warmup_cap_ns;    /* ... but the time criterion stops at 2 s */
    int64_t timeout_ns;       /* per-arm time budget of the sampling: 15 s */
    double stdrel;            /* early stop when every arm's stdev/mean < 0.5 % ... */
    int64_t stdrel_min_ns;    /* ... after at least 0.5 s of measured time per arm */
    int64_t batch_below_ns;   /* batch when the median single sample is < 20 us ... */
    int64_t batch_target_ns;  /* ... with K so that a sample lasts >= 1 ms */
    uint32_t batch;           /* fixed K (0: automatic) */
    double throttle_share;    /* a sample below 75 % of the rated SM clock is throttled */
    int64_t throttle_pause_ns;/* 50 ms pause after a throttled sample, doubling on repeats */
    uint64_t seed;            /* interleaving order (and the bootstrap): KS_STATS_DEFAULT_SEED */
    int hot;                  /* 1: no L2 flush before samples */
    int device;               /* CUDA device index */
    /* external commands */
    uint32_t min_runs;        /* at least 3 invocations of each command */
    uint32_t max_runs;        /* at most 100 */
    double check_rtol;        /* relative tolerance of kinesift-check numbers: 0 (exact) */
} ks_vopts;

KS_API void ks_vopts_init(ks_vopts *o);

/* A sampling backend. sample() takes one sample of `arm`: k executions between the timing
 * events; it fills ns, host_ns and sm_clock_mhz (status, block and arm are set by the
 * protocol). now() is a monotonic clock in ns for the time budget; pause() waits. */
typedef struct ks_vbackend {
    void *ctx;
    int (*sample)(void *ctx, uint32_t arm, uint32_t k, ks_vsample *s, ks_error *err);
    int64_t (*now)(void *ctx);
    void (*pause)(void *ctx, int64_t ns);
    double rated_clock_mhz;   /* 0 when unknown: no throttle detection */
} ks_vbackend;

/* What one measurement produced. */
typedef struct ks_vrun {
    uint32_t narms;
    ks_vsample *samples;      /* every sample in the order taken */
    size_t nsamples, cap;
    uint32_t k;               /* batch size of the kept samples */
    uint32_t nblocks;
    /* bit a: most of arm a's warm-up samples measured a clock under the throttle share, so
     * the clock estimate is taken as unreliable for it (SMs idle between the stamps, as in a
     * copy) and none of its samples is marked throttled (warned about in the report) */
    uint32_t clock_unreliable;
    char stop[16];            /* "target", "stdrel", "timeout", "max-samples", "max-runs" */
    char stop_detail[256];
} ks_vrun;

KS_API void ks_vrun_free(ks_vrun *r);

/* Kept values of one arm, per execution (ns / k), in the order taken: malloc'ed array, count
 * in *n; *throttled gets the number of throttled samples. */
KS_API double *ks_vrun_values(const ks_vrun *r, uint32_t arm, size_t *n, size_t *throttled);

/* ---- external commands ----------------------------------------------------------------- */

typedef struct ks_vcheck ks_vcheck;


/* ---- plugins ----------------------------------------------------------------------------- */

typedef struct ks_plugin {
    void *handle;
    const ks_workload *w;
} ks_plugin;

/* dlopen `path`, find KS_WORKLOAD_ENTRY_NAME, check the table. KS_OK or KS_ERR. */
KS_API int ks_plugin_open(const char *path, ks_plugin *p, ks_error *err);
KS_API void ks_plugin_close(ks_plugin *p);
/* Check a workload table: ABI version and size, name, at least two named variants, run(). */
KS_API int ks_workload_check_table(const ks_workload *w, ks_error *err);

/* ---- built-in workload pairs ------------------------------------------------------------- */

typedef struct ks_builtin_param {
    const char *name;        /* the option is --<name> */
    int64_t def, min, max;
    const char *help;
} ks_builtin_param;

typedef struct ks_builtin {
    const char *name;
    const char *summary;
    const char *diagnosis;   /* what `analyze` saw that this pair confirms */
    const ks_builtin_param *params;
    uint32_t nparams;
    const char *const *variants; /* the same names as the table's; [0] the baseline */
    uint32_t nvariants;
} ks_builtin;

/* The four built-in pairs, in order: constant-upload, small-kernels, pageable-copy,
 * sync-per-op. */
KS_API const ks_builtin *ks_builtins(uint32_t *n);
KS_API const ks_builtin *ks_builtin_find(const char *name);
/* The pair's CUDA workload table; NULL when this program has no CUDA backend (ks_cuda_built()
 * is 0: built without CUDA, or not linked with the CUDA part, see docs/validate.md). */
KS_API const ks_workload *ks_builtin_table(const ks_builtin *b);
/* The values of built-in `name`'s parameters, in the registry's order (ks_builtin.params), from
 * "key=value" strings (defaults for those not given). 0, or -1 with a message in err (an unknown
 * key, a malformed or out-of-range value). */
KS_API int ks_builtin_params(const char *name, int n, const char *const *params, int64_t *out, char *err,
                             size_t errlen);

/* ---- CUDA ------------------------------------------------------------------------------- */

typedef struct ks_cuda_info {
    int device;
    char name[256];
    char pci_bus_id[32];
    int cc_major, cc_minor;
    int64_t l2_bytes;
    int64_t global_mem_bytes;
    double rated_clock_mhz;  /* cudaDevAttrClockRate */
    int driver_version;      /* 13000 = 13.0 */
    int runtime_version;
    int sm_count;
} ks_cuda_info;

/* 1 when this program has the CUDA backend: built with CUDA and linked with libkinesift-cuda,
 * as the kinesift command is (libkinesift.so alone carries no CUDA runtime: 0). */
KS_API int ks_cuda_built(void);
/* Probe the runtime, driver and device. KS_OK, or KS_ERR with a one-line cause naming the
 * CUDA error and its number in err->msg ("no NVIDIA driver found (cudaErrorInsufficientDriver,
 * error 35)", "built without CUDA support", ...). *usage is set to 1 when the cause is the
 * user's (a device index beyond the devices present). */
KS_API int ks_cuda_probe(int device, ks_cuda_info *info, int *usage, ks_error *err);

/* NVML, loaded at run time, read-only. */
typedef struct ks_nvml_snapshot {
    int ok;                       /* 0: not available (reason says why) */
    char reason[128];
    unsigned sm_clock_mhz;        /* current SM clock */
    unsigned sm_clock_max_mhz;
    unsigned temperature_c;
    uint64_t clock_event_reasons; /* nvmlClocksEventReasons bit mask */
    int other_processes;          /* compute processes on the device other than this one; -1 unknown */
} ks_nvml_snapshot;

/* ---- running (what the CLI calls) -------------------------------------------------------- */

typedef struct ks_vreport ks_vreport;

/* Measure workload w on the device of r (r->device, probed), NVML read before and after,
 * and add it with its comparisons to r. arms are variant indices (arm 0 the baseline). KS_OK
 * or KS_ERR (a CUDA or workload error, in err). */
KS_API int ks_validate_workload(ks_vreport *r, const ks_workload *w, const char *source, int nparams,
                                const char *const *params, const uint32_t *arms, uint32_t narms,
                                ks_error *err);
/* Run two (or more) external commands and add the result to r. KS_OK or KS_ERR. */
KS_API int ks_validate_commands(ks_vreport *r, const char *const *cmds, uint32_t ncmds,
                                ks_error *err);

/* ---- results and report ------------------------------------------------------------------ */

/* The output check of one arm against the baseline. */
typedef enum ks_check_result {
    KS_CHECK_SAME_VARIANT, /* the arm runs the baseline's variant */
    KS_CHECK_MATCH,
    KS_CHECK_MISMATCH,
    KS_CHECK_NOT_PROVIDED,
    KS_CHECK_ERROR,
} ks_check_result;

struct ks_vcheck {
    ks_check_result result;
    char detail[256];
};

KS_API const char *ks_check_result_name(ks_check_result r); /* same-variant, match, ... */

/* One measured workload: its arms, samples and comparisons. */
typedef struct ks_vworkload {
    char *name;
    char *source;              /* "builtin", "plugin:PATH" or "commands" */
    uint32_t narms;
    char **arms;               /* variant name (or command) per arm */
    char **params;             /* "key=value" */
    int nparams;
    ks_vrun run;
    ks_vcheck *check;          /* per arm; [0] unused */
    ks_compare *cmp;           /* per candidate arm (narms - 1) */
    ks_compare *cycles;        /* per candidate: the same in cycle space, when has_cycles */
    int *has_cycles;
    double *clock_mean_mhz;    /* per arm, NaN when not measured */
    double *host_ratio;        /* per arm: median host_ns / median ns, NaN when unknown */
    ks_nvml_snapshot nvml_before, nvml_after;
    int64_t flush_bytes;       /* 0 when hot or not applicable */
    char **warnings;           /* one line each, set by ks_vworkload_compare */
    size_t nwarnings, warnings_cap;
} ks_vworkload;

struct ks_vreport {
    ks_vopts opts;
    ks_compare_params params;
    const char *timing;        /* "cuda-events" or "command" */
    int has_device;
    ks_cuda_info device;
    ks_vworkload *w;
    uint32_t nw;
    int expect_faster;         /* --expect faster */
};

KS_API void ks_vreport_init(ks_vreport *r, const ks_vopts *o, const ks_compare_params *p,
                            const char *timing);
KS_API void ks_vreport_free(ks_vreport *r);

/* Exit status: 1 when a verdict is slower or different-results (or, with --expect faster,
 * anything but faster that is not inconclusive), else 3 when one is inconclusive, else 0. */
KS_API int ks_vreport_exit_code(const ks_vreport *r);

KS_API void ks_vreport_text(FILE *out, const ks_vreport *r);
/* JSON "kinesift.validate/1" (docs/validate.md); 0 or -1 on a write error. */
KS_API int ks_vreport_json(FILE *out, const ks_vreport *r);
/* The JSON of a run that produced no result: {"schema","tool","version","mode","status",
 * "reason","exit_code"} with status "unavailable" (no GPU: exit 77) or "error" (exit 2). */
KS_API int ks_vreport_json_status(FILE *out, const char *status, const char *reason, int exit_code);
/* Every raw sample as CSV (workload,arm,variant,index,block,run,k,ns,per_exec_ns,host_ns,
 * sm_clock_mhz,status). 0 or -1. */
KS_API int ks_vreport_csv(FILE *out, const ks_vreport *r);

#ifdef __cplusplus
}
#endif
#endif
