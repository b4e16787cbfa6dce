/* stats/verdict.c: the verdict rule shared by validate and gate (docs/statistics.md section
 * 3): effect as the median ratio, bootstrap CI, Mann-Whitney p, threshold delta; first match
 * wins; every inconclusive verdict says why and what to try. Also the Holm adjustment across
 * several metrics. */
#include "kinesift/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

const char *ks_verdict_name(ks_verdict v)
{
    switch (v) {
    case KS_VERDICT_FASTER: return "faster";
    case KS_VERDICT_SLOWER: return "slower";
    case KS_VERDICT_NO_CHANGE: return "no-change";
    case KS_VERDICT_DIFFERENT_RESULTS: return "different-results";
    case KS_VERDICT_INCONCLUSIVE: break;
    }
    return "inconclusive";
}

static void params_common(ks_compare_params *p)
{
    p->alpha = 0.05;
    p->max_discarded = 0.10;
    p->resamples = KS_BOOTSTRAP_RESAMPLES;
    p->level = 0.95;
    p->seed = KS_STATS_DEFAULT_SEED;
    p->min_runs = 1;
    p->single_run_margin = 0.15;
}

void ks_compare_params_gate(ks_compare_params *p)
{
    params_common(p);
    p->threshold = 0.05;
    p->min_samples = 5;
}

void ks_compare_params_validate(ks_compare_params *p)
{
    params_common(p);
    p->threshold = 0.02;
    p->min_samples = 9;
}

int ks_compare_samples(const double *a, size_t na, const double *b, size_t nb,
                       size_t discarded_a, size_t discarded_b, const ks_compare_params *p,
                       ks_compare *c)
{
    memset(c, 0, sizeof *c);
    ks_summarize(a, na, &c->a);
    ks_summarize(b, nb, &c->b);
    c->discarded_a = discarded_a;
    c->discarded_b = discarded_b;
    c->ratio = c->a.median != 0 && na && nb ? c->b.median / c->a.median : NAN;
    c->change = c->ratio - 1;
    ks_bootstrap_median_ratio(a, na, b, nb, p->resamples, p->seed, p->level, &c->ci_lo,
                              &c->ci_hi);
    ks_mwu_test(a, na, b, nb, &c->mwu);
    c->p = c->mwu.p;
    c->holm_m = 1;
    c->min_p = ks_mwu_min_p(na, nb);
    c->method = KS_METHOD_SAMPLES;
    c->ci_level = p->level;
    c->runs_a = c->runs_b = 1;
    c->est = c->se = c->df = c->t = c->acf_a = c->acf_b = c->spread_a = c->spread_b = NAN;
    ks_compare_decide(c, p);
    return 0;
}

static double discarded_share(size_t kept, size_t discarded)
{
    return kept + discarded ? (double)discarded / (double)(kept + discarded) : 0;
}

/* The preconditions; returns 1 (and sets the reason) when one fails. */
static int precondition_fails(ks_compare *c, const ks_compare_params *p)
{
    const char *more = "take more samples (validate: --samples; gate: more steps or more "
                       "traces per side)";
    if (c->a.n < p->min_samples || c->b.n < p->min_samples) {
        snprintf(c->reason, sizeof c->reason,
                 "too few samples: %zu baseline, %zu candidate (at least %zu per side needed)",
                 c->a.n, c->b.n, p->min_samples);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return 1;
    }
    double da = discarded_share(c->a.n, c->discarded_a);
    double db = discarded_share(c->b.n, c->discarded_b);
    if (da > p->max_discarded || db > p->max_discarded) {
        snprintf(c->reason, sizeof c->reason,
                 "%.0f %% of the %s samples were discarded as throttled (at most %.0f %% "
                 "allowed)",
                 100 * (da > db ? da : db), da > db ? "baseline" : "candidate",
                 100 * p->max_discarded);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "run on a quieter, cooler device (see the clock-event reasons in the "
                 "report), or rerun when the device is idle");
        return 1;
    }
    if (c->min_p >= p->alpha) {
        snprintf(c->reason, sizeof c->reason,
                 "with %zu and %zu samples the smallest attainable p is %.3g, not below "
                 "alpha %.3g",
                 c->a.n, c->b.n, c->min_p, p->alpha);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return 1;
    }
    if (!(c->a.median > 0) || !isfinite(c->ratio)) {
        snprintf(c->reason, sizeof c->reason,
                 "the baseline median is 0: a ratio of medians is not defined");
        snprintf(c->suggestion, sizeof c->suggestion,
                 "compare a metric that is non-zero in the baseline");
        return 1;
    }
    return 0;
}

/* Why a comparison that passed the preconditions is still undecided. */
static void explain_inconclusive(ks_compare *c, const ks_compare_params *p)
{
    double d = 100 * p->threshold;
    int noisy = c->a.noise || c->b.noise;
    char pt[32];
    ks_p_text(pt, sizeof pt, c->p, 0);
    if (c->p < p->alpha) {
        snprintf(c->reason, sizeof c->reason,
                 "the difference is significant (%s) but the %.0f %% CI [%.4f, %.4f] of "
                 "the ratio %.4f overlaps the threshold 1 %c %.3g %%",
                 pt, 100 * p->level, c->ci_lo, c->ci_hi, c->ratio,
                 c->ratio < 1 ? '-' : '+', d);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "the effect is close to the threshold: take more samples to narrow the CI, "
                 "or check whether a %.3g %% threshold (--threshold) fits this effect", d);
        return;
    }
    if ((c->ci_hi < 1 - p->threshold) || (c->ci_lo > 1 + p->threshold)) {
        snprintf(c->reason, sizeof c->reason,
                 "the %.0f %% CI [%.4f, %.4f] lies beyond the threshold but the U test is not "
                 "significant (%s, alpha %.3g)",
                 100 * p->level, c->ci_lo, c->ci_hi, pt, p->alpha);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "take more samples; look at the raw values for a few extreme outliers");
        return;
    }
    snprintf(c->reason, sizeof c->reason,
             "no significant difference (%s) and the %.0f %% CI [%.4f, %.4f] is wider "
             "than 1 +/- %.3g %%",
             pt, 100 * p->level, c->ci_lo, c->ci_hi, d);
    snprintf(c->suggestion, sizeof c->suggestion,
             "%s; or expect a larger effect",
             noisy ? "the samples are noisy (IQR/median >= 10 %): reduce noise (--hot, batch "
                     "mode, a quieter device) or take more samples"
                   : "take more samples, or reduce noise (--hot, batch mode, a quieter device)");
}

void ks_compare_decide(ks_compare *c, const ks_compare_params *p)
{
    c->reason[0] = c->suggestion[0] = c->caveat[0] = '\0';
    c->limit = p->threshold;
    c->verdict = KS_VERDICT_INCONCLUSIVE;
    if (precondition_fails(c, p))
        return;
    double d = p->threshold;
    char pt[32];
    ks_p_text(pt, sizeof pt, c->p, 0);
    if (c->p < p->alpha && c->ci_hi < 1 - d) {
        c->verdict = KS_VERDICT_FASTER;
        snprintf(c->reason, sizeof c->reason,
                 "%s < %.3g and the %.0f %% CI [%.4f, %.4f] lies below 1 - %.3g %%", pt,
                 p->alpha, 100 * p->level, c->ci_lo, c->ci_hi, 100 * d);
    } else if (c->p < p->alpha && c->ci_lo > 1 + d) {
        c->verdict = KS_VERDICT_SLOWER;
        snprintf(c->reason, sizeof c->reason,
                 "%s < %.3g and the %.0f %% CI [%.4f, %.4f] lies above 1 + %.3g %%", pt,
                 p->alpha, 100 * p->level, c->ci_lo, c->ci_hi, 100 * d);
    } else if (c->ci_lo >= 1 - d && c->ci_hi <= 1 + d) {
        c->verdict = KS_VERDICT_NO_CHANGE;
        snprintf(c->reason, sizeof c->reason,
                 "the %.0f %% CI [%.4f, %.4f] lies within 1 +/- %.3g %%", 100 * p->level,
                 c->ci_lo, c->ci_hi, 100 * d);
    } else {
        explain_inconclusive(c, p);
    }
}

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *pa, const void *pb)
{
    const pidx *a = pa, *b = pb;
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->i > b->i) - (a->i < b->i);
}

/* the p values in ascending order with their positions (a NaN p counts as 1), for Holm's steps */
static pidx *holm_order(const double *p, size_t m)
{
    pidx *s = ks_xmalloc(ks_mul(m, sizeof *s));
    for (size_t i = 0; i < m; i++)
        s[i] = (pidx){isnan(p[i]) ? 1 : p[i], i};
    qsort(s, m, sizeof *s, cmp_pidx);
    return s;
}

void ks_holm(const double *p, size_t m, double *adj)
{
    if (m == 0)
        return;
    pidx *s = holm_order(p, m);
    double run = 0;
    for (size_t k = 0; k < m; k++) {
        double v = (double)(m - k) * s[k].p;
        if (v > 1)
            v = 1;
        if (v > run)
            run = v;
        adj[s[k].i] = run;
    }
    free(s);
}

void ks_holm_levels(const double *p, size_t m, double alpha, double *level)
{
    if (!m)
        return;
    pidx *s = holm_order(p, m);
    size_t j = m + 1;
    for (size_t k = 1; k <= m && j > m; k++)
        if (!(s[k - 1].p < alpha / (double)(m - k + 1)))
            j = k;
    for (size_t k = 1; k <= m; k++)
        level[s[k - 1].i] = 1 - alpha / (double)(m - (k < j ? k : j) + 1);
    free(s);
}

void ks_compare_holm(ks_compare *c, size_t m, const ks_compare_params *p)
{
    double *raw = ks_xmalloc(ks_mul(m ? m : 1, sizeof *raw));
    for (size_t i = 0; i < m; i++)
        raw[i] = c[i].mwu.p;
    ks_holm(raw, m, raw);
    for (size_t i = 0; i < m; i++) {
        c[i].p = isnan(c[i].mwu.p) ? NAN : raw[i];
        c[i].holm_m = m;
        if (c[i].verdict != KS_VERDICT_DIFFERENT_RESULTS)
            ks_compare_decide(&c[i], p);
    }
    free(raw);
}

void ks_compare_set_different(ks_compare *c, const char *why)
{
    c->verdict = KS_VERDICT_DIFFERENT_RESULTS;
    c->caveat[0] = '\0';
    snprintf(c->reason, sizeof c->reason, "the candidate's output differs from the baseline's: %s",
             why ? why : "mismatch");
    snprintf(c->suggestion, sizeof c->suggestion,
             "fix the candidate (or declare a tolerance) before comparing speed");
}
