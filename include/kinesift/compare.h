/* kinesift/compare.h: comparing runs (docs/diff-gate.md).
 *
 *  - `diff`: two traces side by side: operators, labelled ranges and kernels aligned by name
 *    (kernel names optionally normalised), with count, self, inclusive and GPU time before and
 *    after, sorted by absolute impact; the per-step wall time distributions (active window,
 *    warm-up apart) with the median ratio, its bootstrap CI and the Mann-Whitney p; warnings
 *    when the captures are not comparable.
 *  - `gate`: checks (a budget file, flags, or the documented default set) over per-step samples
 *    pooled from several traces per side (or over the samples of `kinesift validate` results),
 *    each decided with the verdict rule of docs/statistics.md (kinesift/stats.h), Holm-adjusted
 *    across checks; the exit status CI acts on.
 *
 * Per-step samples come from the steps of kinesift/insights.h (ProfilerStep#N widened to their
 * GPU work). A slice belongs to the step in which it starts: CPU-side slices by the host
 * partition (host start of step i .. host start of step i+1; the last step up to its widened
 * end), GPU-side slices by the widened partition, kernels by the start of their launch call
 * (their own start when they have none). Warm-up and unfinished steps give no sample.
 * All times are int64 ns inside; samples are doubles (kinesift/stats.h works on doubles). */
#ifndef KINESIFT_COMPARE_H
#define KINESIFT_COMPARE_H

#include <stdio.h>

#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kernel names -------------------------------------------------------------------------- */

/* A kernel name without its template arguments (every balanced <...>), its trailing argument
 * list (...) and a leading "void ": "void at::native::k<4, F<float> >(int, F<float>)" becomes
 * "at::native::k". Parentheses elsewhere ("(anonymous namespace)") are kept; a name whose angle
 * brackets do not balance keeps them. Returns a malloc'ed string (never empty: the name itself
 * when nothing would be left). */
KS_API char *ks_kernel_name_normalize(const char *name);

/* ---- comparability of two captures --------------------------------------------------------- */

/* Profiler settings as the trace records them. Kineto writes with_stack, record_shapes, ... only
 * when set, so an absent key reads as off (0); -1 = not applicable (a validate result). */
typedef struct ks_trace_settings {
    signed char with_stack, record_shapes, profile_memory, with_modules, with_flops;
    signed char gpu_activity;     /* kernel, memcpy or memset events present */
    signed char runtime_activity; /* CUDA/HIP runtime or driver events present */
    char devices[256];            /* distinct deviceProperties names joined by ", "; "" = not recorded */
} ks_trace_settings;

KS_API void ks_settings_read(const ks_trace *t, ks_trace_settings *s);

#define KS_SETTINGS_MAX 8

typedef struct ks_mismatch {
    char what[32];                /* "with_stack", ..., "activities: GPU", "device" */
    char a[256], b[256];          /* the two values as text */
} ks_mismatch;

/* The settings in which a and b differ (devices only when both are recorded; -1 skips a flag);
 * writes at most KS_SETTINGS_MAX entries and returns their number. */
KS_API size_t ks_settings_compare(const ks_trace_settings *a, const ks_trace_settings *b, ks_mismatch *out);

/* ---- diff ---------------------------------------------------------------------------------- */

typedef enum ks_diff_status {
    KS_DIFF_SAME = 0,  /* present on both sides, every figure equal */
    KS_DIFF_CHANGED,
    KS_DIFF_ADDED,     /* only after */
    KS_DIFF_REMOVED    /* only before */
} ks_diff_status;

KS_API const char *ks_diff_status_name(ks_diff_status s); /* same, changed, added, removed */

typedef struct ks_diff_side {
    int present;
    uint64_t count;
    ks_ns self_ns;     /* ops and labels: CPU self; kernels: 0 */
    ks_ns incl_ns;     /* ops and labels: inclusive; kernels: total GPU time */
    ks_ns gpu_ns;      /* ops and labels: GPU subtree (union); kernels: total GPU time */
    ks_ns gpu_self_ns; /* ops and labels: GPU direct (union); kernels: total GPU time */
    uint32_t names;    /* distinct trace names merged into this row (> 1 when normalised) */
} ks_diff_side;

/* A row's per-step means: its count and its main time (ops: self; labels: inclusive; kernels:
 * total) divided by the side's active steps (ks_diff.steps_before / steps_after). */
typedef struct ks_diff_per_step {
    int defined;       /* both sides' windows are their active steps (ks_diff.per_step) */
    double count_before, count_after, ns_before, ns_after;
    double delta_pct;  /* 100 (ns_after - ns_before) / ns_before; NaN when ns_before is 0 */
} ks_diff_per_step;

typedef struct ks_diff_row {
    char *name;        /* the name (normalised kernels: the normalised name) */
    char *cat;         /* category text: cpu_op, user_annotation, kernel, gpu_memcpy, ... */
    ks_diff_side before, after;
    ks_ns impact_ns;   /* the sort key, see ks_diff_build */
    ks_diff_status status;
    ks_diff_per_step per_step;
} ks_diff_row;

typedef struct ks_diff_table {
    ks_diff_row *v;
    size_t n;
    size_t added, removed, changed;
} ks_diff_table;

typedef struct ks_diff_steps {
    double *before, *after;       /* active wall times, ns, in step order */
    size_t nbefore, nafter;
    size_t warmup_before, warmup_after, unfinished_before, unfinished_after;
    char source_before[160], source_after[160];
    ks_compare cmp;               /* median ratio after/before, block-bootstrap CI and p (one run
                                   * per side), verdict; cmp.mwu's u and z are the U test's */
    ks_mwu mwu;                   /* Mann-Whitney U of the step times (exact for small samples
                                   * without ties); p is its own, not the verdict's */
} ks_diff_steps;

typedef struct ks_diff_opts {
    int normalize_kernels;
    size_t text_width;            /* the text report's columns (ks_report_opts.width); 0 = no limit */
    ks_compare_params params;     /* ks_compare_params_gate() by default */
} ks_diff_opts;

KS_API void ks_diff_opts_init(ks_diff_opts *o);

typedef struct ks_diff {
    char *before_source, *after_source;
    ks_ns before_window_ns, after_window_ns;
    /* Per step: the window of each side is its active steps (the default window, or --window
     * steps:A-B), so that a table's figures divided by the side's steps are per-step means.
     * by_step: the sides have different numbers of them, so the rows are compared per step
     * (status and impact from the per-step means; totals beside them). */
    int per_step, by_step;
    size_t steps_before, steps_after;  /* active steps inside each window */
    size_t step_rows;                  /* step annotation rows (ProfilerStep#N) left out of the tables */
    ks_diff_table ops, labels, kernels;
    ks_diff_steps steps;
    ks_trace_settings before_settings, after_settings;
    ks_mismatch mismatch[KS_SETTINGS_MAX];
    size_t nmismatch;
    ks_diff_opts opts;
} ks_diff;

/* Align the tables of two analyses and compare their steps. Rows are sorted by impact, largest
 * first (ties by name, then category): ops: |d self| + |d GPU direct| (both add up over the
 * table without double counting); labels: the larger of |d inclusive| and |d GPU subtree|;
 * kernels: |d total|; with by_step, the same of the per-step means (ns per step), and a row is
 * "same" when its per-step means are. Step annotations (ProfilerStep#N) are not rows.
 * Returns KS_OK. */
KS_API int ks_diff_build(const ks_analysis *before, const ks_steps *sbefore, const ks_analysis *after,
                         const ks_steps *safter, const ks_diff_opts *o, ks_diff *out, ks_error *err);
KS_API void ks_diff_free(ks_diff *d);

/* Writers (report/diff_*.c). top: rows per table (0 = all). JSON schema "kinesift.diff/1". */
KS_API void ks_diff_text(FILE *out, const ks_diff *d, size_t top);
KS_API int ks_diff_json(FILE *out, const ks_diff *d, size_t top);
KS_API void ks_diff_csv(FILE *out, const ks_diff *d, size_t top);
KS_API void ks_diff_markdown(FILE *out, const ks_diff *d, size_t top);

/* ---- gate: checks and budgets ---------------------------------------------------------------- */

typedef enum ks_metric {
    KS_METRIC_STEP_TIME = 0, /* widened step wall time */
    KS_METRIC_LABEL,         /* inclusive time of a user_annotation per step */
    KS_METRIC_GPU_LABEL,     /* inclusive time of a gpu_user_annotation per step */
    KS_METRIC_OP,            /* inclusive time of an operator (any CPU-side slice) per step */
    KS_METRIC_KERNEL_TIME,   /* total GPU time of a kernel name per step */
    KS_METRIC_GPU_IDLE,      /* GPU idle share of the step, in percent points */
    KS_METRIC_LAUNCHES,      /* kernels launched per step */
    KS_METRIC_VALIDATE,      /* one arm of a `kinesift validate` result: "WORKLOAD/VARIANT" */
    KS_METRIC_COUNT
} ks_metric;

/* Budget names: step_time, label, gpu_label, op, kernel_time, gpu_idle_share, kernel_launches,
 * validate. */
KS_API const char *ks_metric_name(ks_metric m);
KS_API int ks_metric_named(ks_metric m);   /* 1 when a check of this metric needs a name */
KS_API int ks_metric_points(ks_metric m);  /* 1 when its limit is in points (gpu_idle_share) */

typedef struct ks_check {
    ks_metric metric;
    char *name;          /* label, op, kernel or validate metric; NULL for the others */
    int has_limit;       /* 0: the default (--threshold, or 2 points for gpu_idle_share) */
    double limit;        /* max growth in percent, or in points for gpu_idle_share */
} ks_check;

typedef struct ks_budget {
    ks_check *v;
    size_t n, cap;
    int has_threshold;
    double threshold_pct; /* "threshold_pct": default limit of the growth checks */
} ks_budget;

/* Parse a budget file's text ("kinesift.budget/1", docs/diff-gate.md). Unknown keys, wrong
 * types, unknown metrics, missing or superfluous names, negative limits and repeated checks are
 * errors (the message names the check). name is used in messages. */
KS_API int ks_budget_parse(const char *text, size_t len, const char *name, ks_budget *b, ks_error *err);
KS_API int ks_budget_load(const char *path, ks_budget *b, ks_error *err);
/* A check given as a flag: "PCT" for step_time, gpu_idle_share, kernel_launches; "NAME=PCT"
 * (split at the last '=') for the named metrics. */
KS_API int ks_budget_add_arg(ks_budget *b, ks_metric m, const char *arg, ks_error *err);
/* Add a check (name copied; may be NULL); KS_ERR when the same check is already there. */
KS_API int ks_budget_add(ks_budget *b, ks_metric m, const char *name, int has_limit, double limit, ks_error *err);
KS_API void ks_budget_free(ks_budget *b);

/* ---- gate: per-step samples of one input ------------------------------------------------------ */

typedef struct ks_sample_series {
    ks_metric metric;    /* LABEL, GPU_LABEL, OP, KERNEL_TIME or VALIDATE */
    char *name;
    double *v;           /* one value per sample */
    size_t n;
    size_t discarded;    /* validate: throttled samples of this arm */
} ks_sample_series;

typedef struct ks_profile {
    char *source;
    int is_validate;     /* built from a validate result (no step metrics) */
    int has_rank;
    int64_t rank;
    ks_trace_settings settings;
    char steps_source[160];
    size_t nsteps, nwarmup, nunfinished; /* steps found, and those left out */
    size_t n;            /* samples = active steps */
    int64_t *step_numbers;
    double *step_time;   /* ns */
    double *gpu_idle;    /* percent points; NULL when the trace has no GPU work */
    double *launches;    /* kernels */
    ks_sample_series *series;   /* every label and GPU label; the ops and kernels asked for */
    size_t nseries, cap;
} ks_profile;

typedef struct ks_profile_opts {
    int normalize_kernels;
    const char *const *ops;     /* operator names to follow */
    size_t nops;
    const char *const *kernels; /* kernel names (compared after normalisation when asked) */
    size_t nkernels;
} ks_profile_opts;

KS_API int ks_profile_build(const ks_analysis *a, const ks_steps *st, const ks_profile_opts *o, ks_profile *out,
                            ks_error *err);
/* 1 when the text (the start of a file) is a `kinesift validate --format json` result. */
KS_API int ks_is_validate_result(const char *head, size_t len);
/* One series per (workload, arm) of a validate result, named "WORKLOAD/VARIANT", holding the
 * kept values per execution in the order taken; throttled samples count as discarded. */
KS_API int ks_profile_from_validate(const char *source, const char *text, size_t len, ks_profile *out, ks_error *err);
/* Look at a path (decompressed): 1 with its whole text in *text (malloc'ed, NUL-terminated) when
 * it is a validate result; 0 when it is something else (a trace, an archive); KS_ERR when it
 * cannot be read. */
KS_API int ks_validate_result_read(const char *path, char **text, size_t *len, ks_error *err);
KS_API void ks_profile_free(ks_profile *p);
/* The series of (metric, name), or NULL. */
KS_API const ks_sample_series *ks_profile_series(const ks_profile *p, ks_metric m, const char *name);

/* ---- gate: decisions (docs/statistics.md section 8; kinesift/stats.h ks_compare_runs) -------- */

typedef enum ks_gate_status {
    KS_GATE_PASS = 0,        /* no-change */
    KS_GATE_IMPROVEMENT,     /* faster */
    KS_GATE_REGRESSION,      /* slower */
    KS_GATE_INCONCLUSIVE,
    KS_GATE_ERROR            /* the check could not be evaluated (input error) */
} ks_gate_status;

KS_API const char *ks_gate_status_name(ks_gate_status s); /* pass, improvement, regression, inconclusive, error */

typedef struct ks_trace_median {
    const char *source;  /* the profile's source */
    size_t n;
    double median;       /* NaN when n = 0 */
} ks_trace_median;

typedef struct ks_gate_result {
    ks_metric metric;
    char *name;              /* NULL for unnamed metrics */
    char *title;             /* "step_time", "label ## forward ##", with " [rank R]" when per rank */
    int from_default;        /* part of the default set */
    int has_rank;
    int64_t rank;
    const char *unit;        /* "ns", "points" or "kernels" */
    double limit;            /* max growth: a fraction (0.05), or points for gpu_idle_share */
    double *a, *b;           /* pooled samples: baseline, candidate */
    size_t na, nb;
    ks_trace_median *per_a, *per_b;
    size_t nper_a, nper_b;
    size_t discarded_a, discarded_b; /* validate inputs: throttled samples per side */
    ks_compare cmp;          /* the statistics (ks_compare_runs: each input is one run); for
                              * points metrics ratio is NaN and ci is the difference's */
    double diff, diff_lo, diff_hi; /* points metrics: the difference (b - a) and its interval */
    ks_compare_params params;      /* the parameters of this check (threshold = limit) */
    ks_gate_status status;
    char error[1024];        /* status error: why */
    /* sources in per_a/per_b point into the profiles: they must outlive the gate */
} ks_gate_result;

typedef struct ks_gate_opts {
    ks_compare_params params;   /* ks_compare_params_gate(); threshold = default growth limit */
    double idle_points;         /* default limit of gpu_idle_share: 2 points */
    double label_share;         /* default set: labels taking >= this share of a step (0.05) */
    int allow_mismatch;
} ks_gate_opts;

KS_API void ks_gate_opts_init(ks_gate_opts *o);

typedef struct ks_gate_side {
    size_t inputs;           /* profiles */
    size_t samples;          /* active steps (traces) or kept samples (validate), all metrics' max */
    size_t steps, warmup, unfinished;
} ks_gate_side;

typedef struct ks_gate {
    ks_gate_result *r;
    size_t n;
    ks_gate_opts opts;
    int is_validate;         /* the inputs are validate results */
    int default_set;         /* no budget and no flags: the default set ran */
    ks_gate_side base, cand;
    const char **base_sources, **cand_sources;
    ks_mismatch mismatch[KS_SETTINGS_MAX];
    size_t nmismatch;
    char mismatch_where[320]; /* which two inputs differ */
    char **warnings;
    size_t nwarnings, warnings_cap;
    int input_error;         /* the gate could not run: error says why (exit 2) */
    char error[2048];
} ks_gate;

/* Run the checks of b (the default set when b holds none) over the pooled profiles: per rank
 * when the inputs carry several ranks. Returns KS_OK, or KS_ERR when the gate cannot run
 * (settings mismatch without allow_mismatch, validate results mixed with traces, an empty side,
 * ranks on one side only); then out->input_error is set with the message (also in err) and the
 * writers still report it. A check that cannot be evaluated (a name found on neither side) has
 * status error. */
KS_API int ks_gate_run(const ks_profile *base, size_t nbase, const ks_profile *cand, size_t ncand, const ks_budget *b,
                       const ks_gate_opts *o, ks_gate *out, ks_error *err);
/* Mark a gate that never ran (an unreadable input...) as an input error, for the writers. */
KS_API void ks_gate_set_error(ks_gate *g, const char *msg);
KS_API void ks_gate_free(ks_gate *g);

/* The exit status of docs/statistics.md section 4.1 with precedence 2 > 1 > 3 > 0: 2 when
 * input_error or any status is error, else 1 when any is a regression, else 3 when any is
 * inconclusive (0 when inconclusive_fails is 0: --on-inconclusive=warn), else 0. */
KS_API int ks_gate_exit_code(const ks_gate_status *s, size_t n, int input_error, int inconclusive_fails);
KS_API int ks_gate_exit(const ks_gate *g, int inconclusive_fails);

/* The overall result as found (error, regression, inconclusive, pass: --on-inconclusive changes
 * the exit status, not this word). */
KS_API const char *ks_gate_overall(const ks_gate *g);

/* Writers (report/gate_*.c); the file writers return 0 or -1 on a write error. JSON schema
 * "kinesift.gate/1" with the metric objects of docs/statistics.md section 4.2. */
/* The text fits `width` columns (0: no limit). */
KS_API void ks_gate_text(FILE *out, const ks_gate *g, int inconclusive_fails, size_t width);
KS_API int ks_gate_json(FILE *out, const ks_gate *g, int inconclusive_fails);
KS_API int ks_gate_junit(FILE *out, const ks_gate *g);
KS_API int ks_gate_markdown(FILE *out, const ks_gate *g, int inconclusive_fails);

#ifdef __cplusplus
}
#endif
#endif
