/* kinesift/stats.h: the statistics shared by `validate` and `gate` (docs/statistics.md): the
 * summary of one side (type-7 quantiles, IQR, MAD, Tukey outliers), the xoshiro256** generator,
 * the two-sided Mann-Whitney U test, the bootstrap CI of the median ratio, the verdict rule with
 * its reasons and the Holm adjustment, and the JSON form of one compared metric.
 * Samples are durations as doubles (ns); smaller is better. Every result is deterministic for
 * the same inputs and seed, on every platform. */
#ifndef KINESIFT_STATS_H
#define KINESIFT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one side ---------------------------------------------------------------------------- */

/* Noise flags on iqr_rel (torch.utils.benchmark's thresholds). */
enum { KS_NOISE_OK = 0, KS_NOISE_NOISY = 1 /* iqr_rel >= 10 % */,
       KS_NOISE_VERY = 2 /* iqr_rel >= 25 % */ };

/* Descriptive statistics of n samples. A value that cannot be computed (n = 0; stdev for
 * n < 2; cv when the mean is 0; iqr_rel when the median is 0) is NaN: written as JSON null. */
typedef struct ks_summary {
    size_t n;
    double min, max, range, mean, median;
    double stdev;      /* sample standard deviation (n - 1) */
    double cv;         /* stdev / mean */
    double q1, q3;     /* type-7 quantiles 0.25 and 0.75 */
    double iqr;        /* q3 - q1 */
    double iqr_rel;    /* iqr / median */
    double mad;        /* median of |x - median| (unscaled) */
    /* Tukey fences: mild = beyond 1.5 IQR but within 3 IQR of the quartiles; severe = beyond
     * 3 IQR. Reported, never removed. */
    size_t mild_low, mild_high, severe_low, severe_high;
    int noise;         /* KS_NOISE_* */
} ks_summary;

/* Sort ascending (NaN are not allowed). */
KS_API void ks_sort_doubles(double *x, size_t n);
/* Hyndman-Fan type 7 (NumPy default) quantile of sorted x, p in [0, 1]; NaN when n = 0. */
KS_API double ks_quantile_sorted(const double *sorted, size_t n, double p);
/* The same on unsorted x (x is left unchanged). */
KS_API double ks_quantile(const double *x, size_t n, double p);
KS_API double ks_median(const double *x, size_t n);
KS_API double ks_mean(const double *x, size_t n);
KS_API double ks_stdev(const double *x, size_t n);
/* Fill s from x (x is left unchanged). */
KS_API void ks_summarize(const double *x, size_t n, ks_summary *s);

/* ---- the generator ---------------------------------------------------------------------- */

/* xoshiro256** 1.0, its state filled by four successive splitmix64 outputs from the seed. */
typedef struct ks_rng {
    uint64_t s[4];
} ks_rng;

/* The default seed of every bootstrap and interleaving: "kinesift" in ASCII. */
#define KS_STATS_DEFAULT_SEED UINT64_C(0x6b696e6573696674)

KS_API void ks_rng_seed(ks_rng *r, uint64_t seed);
KS_API uint64_t ks_rng_next(ks_rng *r);
/* Unbiased integer in [0, bound), bound >= 1 (Lemire's multiply-shift with rejection). */
KS_API uint64_t ks_rng_below(ks_rng *r, uint64_t bound);
/* Uniform double in [0, 1): the top 53 bits of one output. */
KS_API double ks_rng_double(ks_rng *r);
/* Standard normal deviate (Marsaglia's polar method): for simulations. */
KS_API double ks_rng_normal(ks_rng *r);
/* Fisher-Yates shuffle of n ints (draws ks_rng_below(i + 1) for i = n-1 down to 1). */
KS_API void ks_rng_shuffle(ks_rng *r, int *a, size_t n);

/* ---- Mann-Whitney U ---------------------------------------------------------------------- */

typedef struct ks_mwu {
    double u_a;   /* pairs (a, b) with a > b, plus 1/2 per tie */
    double u_b;   /* na * nb - u_a */
    double z;     /* normal approximation's z (NaN for the exact test) */
    double p;     /* two-sided p */
    int exact;    /* 1: exact null distribution ("mwu-exact"); 0: "mwu-normal" */
    int ties;     /* some value occurs more than once in the pooled sample */
} ks_mwu;

/* Two-sided test with mid-ranks: exact when there are no ties and na, nb <= 50, otherwise the
 * normal approximation with tie-corrected variance and continuity correction. Returns 0, or
 * -1 when a side is empty. */
KS_API int ks_mwu_test(const double *a, size_t na, const double *b, size_t nb, ks_mwu *out);
/* Smallest attainable two-sided p of the exact test: 2 / C(na + nb, na), at most 1. */
KS_API double ks_mwu_min_p(size_t na, size_t nb);
/* "mwu-exact" or "mwu-normal". */
KS_API const char *ks_mwu_name(const ks_mwu *m);

/* A p as text, never "p = 0": "p = 0.0123", or "p < BOUND" when p is 0 (a bound, not a value;
 * bound <= 0: the smallest normal double), "p = -" for NaN (stats/ptext.c). Returns buf. */
KS_API const char *ks_p_text(char *buf, size_t n, double p, double bound);

/* ---- bootstrap --------------------------------------------------------------------------- */

#define KS_BOOTSTRAP_RESAMPLES 10000

/* Percentile bootstrap CI of median(b) / median(a) at the given level (0.95): `resamples`
 * replicates, each resampling a (na draws) then b (nb draws) with replacement from one
 * generator seeded with `seed`; the bounds are the type-7 quantiles (1 - level) / 2 and
 * (1 + level) / 2 of the replicates. A replicate whose baseline median is 0 counts as +inf (1
 * when both are 0). Returns 0, or -1 when a side is empty (bounds NaN). */
KS_API int ks_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
                                     unsigned resamples, uint64_t seed, double level, double *lo,
                                     double *hi);

/* ---- verdict ----------------------------------------------------------------------------- */

typedef enum ks_verdict {
    KS_VERDICT_FASTER,
    KS_VERDICT_SLOWER,
    KS_VERDICT_NO_CHANGE,
    KS_VERDICT_INCONCLUSIVE,
    KS_VERDICT_DIFFERENT_RESULTS, /* validate: the candidate's output differs */
} ks_verdict;

/* "faster", "slower", "no-change", "inconclusive", "different-results". */
KS_API const char *ks_verdict_name(ks_verdict v);

typedef struct ks_compare_params {
    double threshold;      /* delta: 0.05 (gate) or 0.02 (validate) */
    double alpha;          /* 0.05 */
    size_t min_samples;    /* kept samples per side: 5 (gate) or 9 (validate) */
    double max_discarded;  /* share of samples discarded as throttled per side: 0.10 */
    unsigned resamples;    /* KS_BOOTSTRAP_RESAMPLES */
    double level;          /* confidence level of the CI: 0.95 */
    uint64_t seed;         /* KS_STATS_DEFAULT_SEED */
    /* run-level comparisons (ks_compare_runs) */
    size_t min_runs;       /* runs per side below which the verdict is inconclusive: 1 */
    double single_run_margin; /* one run per side: the change must exceed the limit by this
                              * much more (a fraction, 0.15; points metrics: 100x in points) */
} ks_compare_params;

KS_API void ks_compare_params_gate(ks_compare_params *p);
KS_API void ks_compare_params_validate(ks_compare_params *p);

/* How a comparison was computed (docs/statistics.md section 8). */
typedef enum ks_method {
    KS_METHOD_SAMPLES = 0,   /* samples as independent: U test and bootstrap (ks_compare_samples) */
    KS_METHOD_RUNS,          /* >= 2 runs per side: Welch t on the per-run medians (log scale) */
    KS_METHOD_SINGLE_RUN     /* a side with one run: moving-block bootstrap, limit + margin */
} ks_method;

typedef struct ks_compare {
    ks_summary a, b;         /* baseline, candidate (kept samples) */
    size_t discarded_a, discarded_b;
    double ratio;            /* median_b / median_a (NaN when median_a is 0) */
    double change;           /* ratio - 1 (a fraction: 0.05 = +5 %) */
    double ci_lo, ci_hi;     /* bootstrap CI of the ratio */
    ks_mwu mwu;
    double p;                /* p the decision used: mwu.p, or Holm-adjusted */
    size_t holm_m;           /* > 1 when p is Holm-adjusted across holm_m metrics */
    double min_p;            /* ks_mwu_min_p(n_a, n_b) */
    ks_verdict verdict;
    char reason[512];        /* why (always set) */
    char suggestion[240];    /* what to do next (set for inconclusive; else empty) */
    /* run-level comparisons (ks_compare_runs; KS_METHOD_SAMPLES leaves these as below) */
    ks_method method;
    int points;              /* the effect is a difference (points), not a ratio */
    double ci_level;         /* level of [ci_lo, ci_hi]: p->level, or 1 - alpha / Holm divisor */
    size_t runs_a, runs_b;   /* runs per side */
    double est, se, df, t;   /* runs: effect on the test scale (log ratio, or points), its
                              * standard error, Welch-Satterthwaite df, t = est / se */
    double acf_a, acf_b;     /* single run: lag-1 autocorrelation of each side's samples */
    size_t block;            /* single run: block length of the moving-block bootstrap */
    double margin;           /* single run: the margin applied beyond the limit (0 otherwise) */
    double spread_a, spread_b; /* per-run medians: max/min - 1 (points: max - min); NaN < 2 runs */
    double limit;            /* the limit the decision used (p->threshold; points for points) */
    char caveat[120];        /* runs: set when the verdict is slower or faster but the interval
                              * reaches back across the limit ("the interval reaches below the
                              * +5 % limit"); else empty */
} ks_compare;

/* Compare kept samples a (baseline) and b (candidate); discarded_* count the samples of each
 * side discarded for throttling (precondition: at most max_discarded of each side). Computes
 * everything, then decides with ks_compare_decide. Returns 0 (the verdict may be
 * inconclusive; never fails on small or empty sides). */
KS_API int ks_compare_samples(const double *a, size_t na, const double *b, size_t nb,
                              size_t discarded_a, size_t discarded_b, const ks_compare_params *p,
                              ks_compare *c);
/* (Re)apply the rule of statistics.md section 3 to c using c->p; sets verdict, reason and
 * suggestion. */
KS_API void ks_compare_decide(ks_compare *c, const ks_compare_params *p);
/* Holm step-down adjustment of m p-values (adj may alias p). */
KS_API void ks_holm(const double *p, size_t m, double *adj);
/* Holm-adjust the p of m comparisons (from their mwu.p), then re-decide each. */
KS_API void ks_compare_holm(ks_compare *c, size_t m, const ks_compare_params *p);
/* ---- the run as the unit (stats/runs.c, stats/tdist.c) ---------------------------- */

/* Samples of one side, run after run: run i holds len[i] consecutive values of x, in the
 * order taken (a trace's steps; a validate invocation's kept samples). */
typedef struct ks_runs {
    const double *x;
    const size_t *len;
    size_t nruns;
} ks_runs;

/* Compare two sides with the run as the unit (docs/statistics.md section 8): with >= 2 runs on
 * each side, Welch's t on the per-run medians (their logs for ratios; points as they are), the
 * interval est +/- t(1 - (1 - level)/2, df) * se; with one run on a side, a moving-block
 * bootstrap of the median ratio (difference) over consecutive samples, at `level`, and a limit
 * widened by p->single_run_margin. p->threshold is the limit (a fraction, or points when
 * points). level: 1 - alpha, or the Holm-consistent level of ks_holm_levels. Fills c (the
 * summaries of the pooled samples included) and decides. Returns 0. */
KS_API int ks_compare_runs(const ks_runs *a, const ks_runs *b, int points, double level,
                           const ks_compare_params *p, ks_compare *c);
/* The rule on c's interval (first match wins; statistics.md section 8). */
KS_API void ks_compare_runs_decide(ks_compare *c, const ks_compare_params *p);

/* One comparison of a family decided together by ks_compare_runs_family. */
typedef struct ks_runs_pair {
    ks_runs a, b;                    /* baseline and candidate, run after run */
    int points;                      /* the effect is a difference in points */
    const ks_compare_params *params; /* its parameters; threshold = its limit */
    size_t discarded_a, discarded_b; /* samples discarded as throttled (validate), or 0 */
    ks_compare *c;                   /* filled and decided */
} ks_runs_pair;

/* Compare and decide m comparisons as one family, with the run as the unit (statistics.md
 * section 8): each by ks_compare_runs at level 1 - alpha; with m > 1 the raw p values are
 * Holm-adjusted and every interval recomputed at its Holm-consistent level (ks_holm_levels)
 * before the decision, so that the printed interval, the adjusted p and the verdict agree. The
 * one code path of gate (all checks of a gate) and validate (the candidates of a workload,
 * interleaved blocks or command runs as the runs). */
KS_API void ks_compare_runs_family(const ks_runs_pair *f, size_t m, double alpha);

/* Format v (a ratio bound or estimate of c, or points) with `digits` decimals, as a signed
 * change in percent when percent (100 (v - 1)), and with as many more decimals as needed (up
 * to 12) for the printed value to lie on the same side of every decision boundary of c (the
 * null, +limit, -limit) as v itself: a printed interval or estimate never seems to contradict
 * the verdict. Points are written with a sign. */
KS_API void ks_compare_fmt(char *buf, size_t n, const ks_compare *c, double v, int percent, int digits);
/* Holm-consistent confidence levels for m raw p values: sorting p ascending, j = the first
 * position (1-based) with p(j) >= alpha / (m - j + 1) (m + 1 when none); the check at
 * position k gets level 1 - alpha / (m - min(k, j) + 1). An interval at that level excludes
 * the null exactly when the Holm-adjusted p is below alpha (for a test dual to the interval). */
KS_API void ks_holm_levels(const double *p, size_t m, double alpha, double *level);
/* Two-sided tail P(|T| >= t) of Student's t with df > 0 (fractional allowed); NaN otherwise. */
KS_API double ks_t_two_sided_p(double t, double df);
/* The q-quantile of Student's t with df degrees of freedom. */
KS_API double ks_t_quantile(double q, double df);
/* The test behind c's p: the U test's name, "welch-runs" or "block-bootstrap"; NULL when no
 * test could be made. */
KS_API const char *ks_compare_test_name(const ks_compare *c);
/* The bound of a p printed as 0 (ks_p_text): 2/R for the block bootstrap (R resamples), the
 * smallest normal double for a tail that underflows (stats/ptext.c). */
KS_API double ks_compare_p_bound(const ks_compare *c, const ks_compare_params *p);
/* Lag-1 autocorrelation of x (NaN when n < 3 or x is constant). */
KS_API double ks_lag1_autocorr(const double *x, size_t n);

/* Override the verdict with different-results (validate's output check failed). */
KS_API void ks_compare_set_different(ks_compare *c, const char *why);

#ifdef __cplusplus
}
#endif
#endif
