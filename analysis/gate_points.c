/* analysis/gate_points.c: the verdict rule of docs/statistics.md section 3 on a difference
 * scale, for shares measured in percent points (the GPU idle share of a step): a ratio of
 * shares would turn 1 % -> 2 % idle into "+100 %", so the effect is the difference of the
 * medians, its 95 % CI is the percentile bootstrap of that difference (the same generator,
 * seed and resampling order as the ratio: a's draws, then b's, per replicate), the test is
 * the same two-sided Mann-Whitney U, and the threshold is in points. First match wins:
 * inconclusive (preconditions) / faster / slower / no-change / inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"

/* Median of one resample of sorted v[0..n) (n draws with replacement). */
static double resample_median(ks_rng *r, const double *v, size_t n, uint32_t *count)
{
    memset(count, 0, n * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[ks_rng_below(r, n)]++;
    size_t lo = (n - 1) / 2, hi = n / 2, seen = 0, i = 0;
    while (seen + count[i] <= lo)
        seen += count[i++];
    double x = v[i];
    while (seen + count[i] <= hi)
        seen += count[i++];
    return (x + v[i]) / 2;
}

static void bootstrap_diff(const double *a, size_t na, const double *b, size_t nb, const ks_compare_params *p,
                           double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (!na || !nb || !p->resamples)
        return;
    double *sa = ks_xmalloc(ks_mul(na, sizeof *sa)), *sb = ks_xmalloc(ks_mul(nb, sizeof *sb));
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    ks_sort_doubles(sa, na);
    ks_sort_doubles(sb, nb);
    uint32_t *count = ks_xmalloc(ks_mul(na > nb ? na : nb, sizeof *count));
    double *rep = ks_xmalloc(ks_mul(p->resamples, sizeof *rep));
    ks_rng r;
    ks_rng_seed(&r, p->seed);
    for (unsigned i = 0; i < p->resamples; i++) {
        double ma = resample_median(&r, sa, na, count);
        rep[i] = resample_median(&r, sb, nb, count) - ma;
    }
    ks_sort_doubles(rep, p->resamples);
    *lo = ks_quantile_sorted(rep, p->resamples, (1 - p->level) / 2);
    *hi = ks_quantile_sorted(rep, p->resamples, (1 + p->level) / 2);
    free(rep);
    free(count);
    free(sa);
    free(sb);
}

void ks_decide_points(ks_compare *c, double diff, double lo, double hi, double limit, const ks_compare_params *p)
{
    c->reason[0] = c->suggestion[0] = '\0';
    c->verdict = KS_VERDICT_INCONCLUSIVE;
    const char *more = "more steps or more traces per side";
    if (c->a.n < p->min_samples || c->b.n < p->min_samples) {
        snprintf(c->reason, sizeof c->reason,
                 "too few samples: %zu baseline, %zu candidate (at least %zu per side needed)", c->a.n, c->b.n,
                 p->min_samples);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return;
    }
    if (c->min_p >= p->alpha) {
        snprintf(c->reason, sizeof c->reason,
                 "with %zu and %zu samples the smallest attainable p is %.3g, not below alpha %.3g", c->a.n, c->b.n,
                 c->min_p, p->alpha);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return;
    }
    int sig = c->p < p->alpha;
    double L = 100 * p->level;
    if (sig && hi < -limit) {
        c->verdict = KS_VERDICT_FASTER;
        snprintf(c->reason, sizeof c->reason,
                 "p = %.3g < %.3g and the %.0f %% CI [%+.3f, %+.3f] points of the difference lies below -%.3g points",
                 c->p, p->alpha, L, lo, hi, limit);
    } else if (sig && lo > limit) {
        c->verdict = KS_VERDICT_SLOWER;
        snprintf(c->reason, sizeof c->reason,
                 "p = %.3g < %.3g and the %.0f %% CI [%+.3f, %+.3f] points of the difference lies above +%.3g points",
                 c->p, p->alpha, L, lo, hi, limit);
    } else if (lo >= -limit && hi <= limit) {
        c->verdict = KS_VERDICT_NO_CHANGE;
        snprintf(c->reason, sizeof c->reason, "the %.0f %% CI [%+.3f, %+.3f] points lies within +/- %.3g points", L,
                 lo, hi, limit);
    } else if (sig) {
        snprintf(c->reason, sizeof c->reason,
                 "the difference %+.3f points is significant (p = %.3g) but its %.0f %% CI [%+.3f, %+.3f] overlaps "
                 "+/- %.3g points", diff, c->p, L, lo, hi, limit);
        snprintf(c->suggestion, sizeof c->suggestion, "take more samples to narrow the CI");
    } else {
        snprintf(c->reason, sizeof c->reason,
                 "no significant difference (p = %.3g) and the %.0f %% CI [%+.3f, %+.3f] points is wider than "
                 "+/- %.3g points", c->p, L, lo, hi, limit);
        snprintf(c->suggestion, sizeof c->suggestion, "take more samples, or expect a larger effect");
    }
}

void ks_compare_points(const double *a, size_t na, const double *b, size_t nb, double limit,
                       const ks_compare_params *p, ks_compare *c, double *diff, double *lo, double *hi)
{
    memset(c, 0, sizeof *c);
    ks_summarize(a, na, &c->a);
    ks_summarize(b, nb, &c->b);
    c->ratio = c->change = c->ci_lo = c->ci_hi = NAN;
    *diff = na && nb ? c->b.median - c->a.median : NAN;
    bootstrap_diff(a, na, b, nb, p, lo, hi);
    if (ks_mwu_test(a, na, b, nb, &c->mwu) != 0)
        c->mwu.p = NAN;
    c->p = c->mwu.p;
    c->holm_m = 1;
    c->min_p = ks_mwu_min_p(na, nb);
    ks_decide_points(c, *diff, *lo, *hi, limit, p);
}
