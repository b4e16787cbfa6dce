/* stats/runs.c: comparing two sides with the run as the unit (docs/statistics.md section 8).
 *
 * Samples of one run (the steps of one trace, the samples of one validate invocation or block)
 * share a process, allocator state, clocks and neighbours, and two runs of one program differ
 * by more than their samples vary within a run. So:
 *  - with >= 2 runs per side the effect is decided on the per-run medians: Welch's t on their
 *    logs (ratios) or on the medians themselves (points), with the Welch-Satterthwaite df; the
 *    interval est +/- t_q(df) * se is exactly dual to the two-sided t test, so an interval at
 *    level 1 - a excludes the null exactly when p < a (Georges, Buytaert & Eeckhout 2007 and
 *    Kalibera & Jones 2013 take the invocation/execution as the unit in the same way);
 *  - with one run on a side the run-to-run variation cannot be estimated: a moving-block
 *    bootstrap over consecutive samples (blocks of ceil(n^(1/3)) samples, Hall, Horowitz & Jing
 *    1995) estimates the within-run uncertainty of the median ratio without assuming the
 *    samples independent, and the verdict needs the whole interval beyond the limit plus a
 *    margin (p->single_run_margin) that the calibration (tests/compare/test_runs_calibration.c)
 *    shows safe against run effects with a CV of 5 %; nothing else is decided (no pass).
 * The rule: regression when the interval lies above the null (the candidate is slower beyond
 * doubt at the family's level) and the estimate exceeds the limit; pass when the interval lies
 * within the limits; improvement symmetric; else inconclusive. An interval wholly beyond the
 * limit is therefore always a regression.
 * Used by gate (compare/gate.c) and validate (validate/result.c). */
#include "kinesift/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

double ks_lag1_autocorr(const double *x, size_t n)
{
    if (n < 3)
        return NAN;
    double m = ks_mean(x, n), num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        den += (x[i] - m) * (x[i] - m);
        if (i + 1 < n)
            num += (x[i] - m) * (x[i + 1] - m);
    }
    return den > 0 ? num / den : NAN;
}

/* ---- one side's runs ------------------------------------------------------------------------ */

/* Per-run medians of a side (runs without samples skipped); returns their number. */
static size_t run_medians(const ks_runs *r, double *out)
{
    size_t k = 0, off = 0;
    for (size_t i = 0; i < r->nruns; i++) {
        if (r->len[i])
            out[k++] = ks_median(r->x + off, r->len[i]);
        off += r->len[i];
    }
    return k;
}

static size_t total(const ks_runs *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nruns; i++)
        n += r->len[i];
    return n;
}

static size_t nonempty(const ks_runs *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nruns; i++)
        n += r->len[i] > 0;
    return n;
}

static double spread(const double *m, size_t n, int points)
{
    if (n < 2)
        return NAN;
    double lo = m[0], hi = m[0];
    for (size_t i = 1; i < n; i++) {
        lo = m[i] < lo ? m[i] : lo;
        hi = m[i] > hi ? m[i] : hi;
    }
    if (points)
        return hi - lo;
    return lo > 0 ? hi / lo - 1 : NAN;
}

/* ---- >= 2 runs per side: Welch on the per-run medians -------------------------------------- */

/* Welch on the per-run medians: their logs (ratios), the values (points), or, when relative
 * (a ratio metric that some candidate run lacks: log 0), the values with the difference and
 * its interval divided by the baseline mean (the baseline mean's own uncertainty is in se but
 * not in the divisor). */
static void welch(ks_compare *c, const double *ma, size_t na, const double *mb, size_t nb, double level, int relative)
{
    double va = ks_stdev(ma, na), vb = ks_stdev(mb, nb);
    va *= va;
    vb *= vb;
    double sa = va / (double)na, sb = vb / (double)nb;
    c->est = ks_mean(mb, nb) - ks_mean(ma, na);
    c->se = sqrt(sa + sb);
    c->df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
    double lo, hi;
    if (c->se > 0) {
        c->t = c->est / c->se;
        c->p = ks_t_two_sided_p(c->t, c->df);
        double q = ks_t_quantile(1 - (1 - level) / 2, c->df);
        lo = c->est - q * c->se;
        hi = c->est + q * c->se;
    } else { /* every run of each side has the same median: the interval is a point */
        c->df = NAN;
        c->t = c->est == 0 ? 0 : copysign(INFINITY, c->est);
        c->p = c->est == 0 ? 1 : 0;
        lo = hi = c->est;
    }
    if (relative) {
        double m = ks_mean(ma, na);
        c->ci_lo = 1 + lo / m;
        c->ci_hi = 1 + hi / m;
        c->ratio = 1 + c->est / m;
        c->est = log(c->ratio);
    } else {
        c->ci_lo = c->points ? lo : exp(lo);
        c->ci_hi = c->points ? hi : exp(hi);
        c->ratio = c->points ? NAN : exp(c->est);
    }
    c->change = c->points ? NAN : c->ratio - 1;
}

/* ---- one run on a side: moving-block bootstrap ------------------------------------------------ */

static size_t block_len(size_t n)
{
    size_t b = (size_t)ceil(cbrt((double)n));
    return b < 1 ? 1 : b > n ? n : b;
}

/* One moving-block resample of x (n values) into out: ceil(n / b) blocks of b consecutive
 * values, each starting at a uniform position in [0, n - b], truncated to n. */
static void block_resample(ks_rng *r, const double *x, size_t n, size_t b, double *out)
{
    size_t k = 0;
    while (k < n) {
        size_t s = (size_t)ks_rng_below(r, n - b + 1);
        for (size_t j = 0; j < b && k < n; j++)
            out[k++] = x[s + j];
    }
}

/* The k-th smallest of x (reordered; Hoare's selection with a middle pivot). */
static double kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}

/* Median of x (n >= 1; reordered), as ks_median. */
static double median_inplace(double *x, size_t n)
{
    double hi = kth(x, n, n / 2);
    if (n % 2)
        return hi;
    double lo = x[0];
    for (size_t i = 1; i < n / 2; i++) /* after selection the lower half holds the smaller values */
        lo = x[i] > lo ? x[i] : lo;
    return (lo + hi) / 2;
}

static double effect(double ma, double mb, int points)
{
    if (points)
        return mb - ma;
    if (ma == 0)
        return mb == 0 ? 1 : INFINITY;
    return mb / ma;
}

/* the medians' ratio (difference, for points) and its estimate, from the summaries */
static void set_effect(ks_compare *c)
{
    double e = effect(c->a.median, c->b.median, c->points);
    c->ratio = c->points ? NAN : e;
    c->change = c->points ? NAN : e - 1;
    c->est = c->points ? e : log(e);
}

static void block_bootstrap(ks_compare *c, const ks_runs *a, const ks_runs *b, double level,
                            const ks_compare_params *p)
{
    size_t na = total(a), nb = total(b);
    size_t ba = block_len(na), bb = block_len(nb);
    c->block = ba > bb ? ba : bb;
    double *ra = ks_xmalloc(ks_mul(na, sizeof *ra)), *rb = ks_xmalloc(ks_mul(nb, sizeof *rb));
    unsigned R = p->resamples ? p->resamples : 1;
    double *rep = ks_xmalloc(ks_mul(R, sizeof *rep));
    ks_rng rng;
    ks_rng_seed(&rng, p->seed);
    size_t below = 0, above = 0;
    double null = c->points ? 0 : 1;
    for (unsigned i = 0; i < R; i++) {
        block_resample(&rng, a->x, na, ba, ra);
        block_resample(&rng, b->x, nb, bb, rb);
        rep[i] = effect(median_inplace(ra, na), median_inplace(rb, nb), c->points);
        below += rep[i] <= null;
        above += rep[i] >= null;
    }
    ks_sort_doubles(rep, R);
    c->ci_lo = ks_quantile_sorted(rep, R, (1 - level) / 2);
    c->ci_hi = ks_quantile_sorted(rep, R, (1 + level) / 2);
    double tail = 2.0 * (double)(below < above ? below : above) / (double)R;
    c->p = tail < 1 ? tail : 1;
    set_effect(c);
    free(rep);
    free(ra);
    free(rb);
}

/* ---- the rule --------------------------------------------------------------------------------- */

void ks_compare_fmt(char *buf, size_t n, const ks_compare *c, double v, int percent, int digits)
{
    double null = c->points ? 0 : 1, d = isnan(c->limit) ? 0 : c->limit;
    double bound[3] = {null, c->points ? d : 1 + d, c->points ? -d : 1 - d};
    double x = percent && !c->points ? 100 * (v - 1) : v;
    int sign = c->points || percent;
    for (int k = digits;; k++) {
        snprintf(buf, n, sign ? "%+.*f" : "%.*f", k, x);
        if (k >= 12 || !isfinite(x))
            return;
        double shown = strtod(buf, NULL); /* the C locale: the library never calls setlocale */
        if (percent && !c->points)
            shown = 1 + shown / 100;
        int same = 1;
        for (int i = 0; i < 3; i++)
            same &= (shown > bound[i]) == (v > bound[i]) && (shown < bound[i]) == (v < bound[i]);
        if (same)
            return;
    }
}

static void fmt_effect(char *buf, size_t n, const ks_compare *c, double v)
{
    ks_compare_fmt(buf, n, c, v, 0, c->points ? 3 : 4);
    if (c->points) {
        size_t len = strlen(buf);
        snprintf(buf + len, n > len ? n - len : 0, " pt");
    }
}

/* Verdict slower (faster) while the interval reaches below +limit (above -limit): say so. */
static void set_caveat(ks_compare *c)
{
    double d = c->limit;
    char lim[32];
    if (c->points)
        snprintf(lim, sizeof lim, "%+.3g pt", c->verdict == KS_VERDICT_SLOWER ? d : -d);
    else
        snprintf(lim, sizeof lim, "%+.3g %%", 100 * (c->verdict == KS_VERDICT_SLOWER ? d : -d));
    if (c->verdict == KS_VERDICT_SLOWER && c->ci_lo < (c->points ? d : 1 + d))
        snprintf(c->caveat, sizeof c->caveat, "the interval reaches below the %s limit", lim);
    else if (c->verdict == KS_VERDICT_FASTER && c->ci_hi > (c->points ? -d : 1 - d))
        snprintf(c->caveat, sizeof c->caveat, "the interval reaches above the %s limit", lim);
}

static int preconditions_fail(ks_compare *c, const ks_compare_params *p)
{
    const char *more = "profile more runs per side (CI: 3 or more, interleaved), each with enough active steps";
    if (c->a.n < p->min_samples || c->b.n < p->min_samples) {
        snprintf(c->reason, sizeof c->reason,
                 "too few samples: %zu baseline, %zu candidate (at least %zu per side needed)", c->a.n, c->b.n,
                 p->min_samples);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return 1;
    }
    size_t ka = c->a.n + c->discarded_a, kb = c->b.n + c->discarded_b;
    double da = ka ? (double)c->discarded_a / (double)ka : 0, db = kb ? (double)c->discarded_b / (double)kb : 0;
    if (da > p->max_discarded || db > p->max_discarded) {
        snprintf(c->reason, sizeof c->reason,
                 "%.0f %% of the %s samples were discarded as throttled (at most %.0f %% allowed)",
                 100 * (da > db ? da : db), da > db ? "baseline" : "candidate", 100 * p->max_discarded);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "run on a quieter, cooler device, or rerun when the device is idle");
        return 1;
    }
    if (c->runs_a < p->min_runs || c->runs_b < p->min_runs) {
        snprintf(c->reason, sizeof c->reason,
                 "%zu baseline and %zu candidate runs: at least %zu per side required (--runs-per-side-min)",
                 c->runs_a, c->runs_b, p->min_runs);
        snprintf(c->suggestion, sizeof c->suggestion, "%s", more);
        return 1;
    }
    if (!c->points && (!(c->a.median > 0) || isnan(c->ratio) || isinf(c->ratio) || isnan(c->ci_lo))) {
        snprintf(c->reason, sizeof c->reason,
                 "a median of the baseline or the candidate (per run or pooled) is 0: a ratio is not defined");
        snprintf(c->suggestion, sizeof c->suggestion, "compare a metric that is non-zero on both sides");
        return 1;
    }
    return 0;
}

static void decide_single(ks_compare *c, const ks_compare_params *p, const char *iv)
{
    double d = p->threshold, m = c->margin, L = 100 * c->ci_level;
    double up = c->points ? d + m : 1 + d + m, down = c->points ? -(d + m) : 1 - d - m;
    if (c->ci_lo > up) {
        c->verdict = KS_VERDICT_SLOWER;
        snprintf(c->reason, sizeof c->reason,
                 "one run per side, and the %.4g %% block-bootstrap interval %s lies above the limit plus the "
                 "single-run margin (%s)", L, iv, c->points ? "points" : "ratio");
        return;
    }
    if (c->ci_hi < down) {
        c->verdict = KS_VERDICT_FASTER;
        snprintf(c->reason, sizeof c->reason,
                 "one run per side, and the %.4g %% block-bootstrap interval %s lies below the limit minus the "
                 "single-run margin", L, iv);
        return;
    }
    char u[32], dn[32];
    fmt_effect(u, sizeof u, c, up);
    fmt_effect(dn, sizeof dn, c, down);
    snprintf(c->reason, sizeof c->reason,
             "one run per side: a change cannot be told from run-to-run variation; the %.4g %% block-bootstrap "
             "interval %s (within-run noise only) would have to lie beyond %s or %s (the limit plus the single-run "
             "margin)", L, iv, u, dn);
    snprintf(c->suggestion, sizeof c->suggestion,
             "profile 3 or more runs per side, interleaving baseline and candidate runs");
}

void ks_compare_runs_decide(ks_compare *c, const ks_compare_params *p)
{
    c->reason[0] = c->suggestion[0] = c->caveat[0] = '\0';
    c->limit = p->threshold;
    c->verdict = KS_VERDICT_INCONCLUSIVE;
    if (preconditions_fail(c, p))
        return;
    char lo[32], hi[32], iv[72], lim_hi[32], lim_lo[32], est[32], pt[32];
    double d = p->threshold, L = 100 * c->ci_level, null = c->points ? 0 : 1;
    ks_p_text(pt, sizeof pt, c->p, ks_compare_p_bound(c, p));
    fmt_effect(lo, sizeof lo, c, c->ci_lo);
    fmt_effect(hi, sizeof hi, c, c->ci_hi);
    snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
    if (c->method == KS_METHOD_SINGLE_RUN) {
        decide_single(c, p, iv);
        return;
    }
    double up = c->points ? d : 1 + d, down = c->points ? -d : 1 - d;
    double e = c->points ? c->est : c->ratio;
    fmt_effect(lim_hi, sizeof lim_hi, c, up);
    fmt_effect(lim_lo, sizeof lim_lo, c, down);
    fmt_effect(est, sizeof est, c, e);
    if (c->ci_lo > null && e > up) {
        c->verdict = KS_VERDICT_SLOWER;
        snprintf(c->reason, sizeof c->reason,
                 "over %zu + %zu runs the %.4g %% interval %s lies above %s (slower beyond doubt; %s) and the "
                 "estimate %s exceeds the limit %s", c->runs_a, c->runs_b, L, iv, c->points ? "0" : "1", pt, est,
                 lim_hi);
    } else if (c->ci_hi < null && e < down) {
        c->verdict = KS_VERDICT_FASTER;
        snprintf(c->reason, sizeof c->reason,
                 "over %zu + %zu runs the %.4g %% interval %s lies below %s (faster beyond doubt; %s) and the "
                 "estimate %s is beyond %s", c->runs_a, c->runs_b, L, iv, c->points ? "0" : "1", pt, est, lim_lo);
    }
    if (c->verdict != KS_VERDICT_INCONCLUSIVE) {
        set_caveat(c);
    } else if (c->ci_lo >= down && c->ci_hi <= up) {
        c->verdict = KS_VERDICT_NO_CHANGE;
        snprintf(c->reason, sizeof c->reason, "over %zu + %zu runs the %.4g %% interval %s lies within [%s, %s]",
                 c->runs_a, c->runs_b, L, iv, lim_lo, lim_hi);
    } else if (c->ci_lo > null || c->ci_hi < null) {
        snprintf(c->reason, sizeof c->reason,
                 "over %zu + %zu runs the change is significant (%s) but its estimate %s is within the limits "
                 "and its %.4g %% interval %s reaches beyond them", c->runs_a, c->runs_b, pt, est, L, iv);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "more runs per side narrow the interval; or check whether the limit fits this effect");
    } else {
        snprintf(c->reason, sizeof c->reason,
                 "over %zu + %zu runs no significant change (%s) and the %.4g %% interval %s reaches beyond "
                 "[%s, %s]", c->runs_a, c->runs_b, pt, L, iv, lim_lo, lim_hi);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "more runs per side (the run-to-run variation decides the width), or a quieter machine");
    }
}

int ks_compare_runs(const ks_runs *a, const ks_runs *b, int points, double level, const ks_compare_params *p,
                    ks_compare *c)
{
    memset(c, 0, sizeof *c);
    size_t na = total(a), nb = total(b);
    ks_summarize(a->x, na, &c->a);
    ks_summarize(b->x, nb, &c->b);
    c->points = points;
    c->ci_level = level;
    c->holm_m = 1;
    c->runs_a = nonempty(a);
    c->runs_b = nonempty(b);
    c->ratio = c->change = c->ci_lo = c->ci_hi = c->est = c->se = c->df = c->t = NAN;
    c->p = c->min_p = NAN;
    c->mwu.p = c->mwu.z = c->mwu.u_a = c->mwu.u_b = NAN;
    c->acf_a = ks_lag1_autocorr(a->x, na);
    c->acf_b = ks_lag1_autocorr(b->x, nb);
    double *ma = ks_xmalloc(ks_mul(a->nruns ? a->nruns : 1, sizeof *ma));
    double *mb = ks_xmalloc(ks_mul(b->nruns ? b->nruns : 1, sizeof *mb));
    size_t ka = run_medians(a, ma), kb = run_medians(b, mb);
    c->spread_a = spread(ma, ka, points);
    c->spread_b = spread(mb, kb, points);
    c->method = ka >= 2 && kb >= 2 ? KS_METHOD_RUNS : KS_METHOD_SINGLE_RUN;
    int usable = na && nb, relative = 0;
    if (usable && c->method == KS_METHOD_RUNS && !points) {
        int pos_a = 1, pos_b = 1, neg_b = 0;
        for (size_t i = 0; i < ka; i++)
            pos_a &= ma[i] > 0;
        for (size_t i = 0; i < kb; i++)
            pos_b &= mb[i] > 0, neg_b |= mb[i] < 0;
        usable = pos_a && !neg_b;
        relative = usable && !pos_b; /* a candidate run without the metric: no log */
        for (size_t i = 0; usable && !relative && i < ka; i++)
            ma[i] = log(ma[i]);
        for (size_t i = 0; usable && !relative && i < kb; i++)
            mb[i] = log(mb[i]);
    }
    if (usable && c->method == KS_METHOD_RUNS) {
        welch(c, ma, ka, mb, kb, level, relative);
    } else if (usable) {
        c->margin = points ? 100 * p->single_run_margin : p->single_run_margin;
        /* Too few samples for the verdict are too few for the bootstrap: with 2 a side every
         * block resample is the sample itself (its interval one point, its p "< 2/R"), with 3 or
         * 4 a few distinct ones. The effect alone then; no interval, no p. */
        if (points || c->a.median > 0) {
            if (na >= p->min_samples && nb >= p->min_samples)
                block_bootstrap(c, a, b, level, p);
            else
                set_effect(c);
        }
    }
    c->mwu.p = c->p; /* the raw p, before any multiplicity adjustment */
    free(ma);
    free(mb);
    ks_compare_runs_decide(c, p);
    return 0;
}

const char *ks_compare_test_name(const ks_compare *c)
{
    if (isnan(c->mwu.p))
        return NULL;
    switch (c->method) {
    case KS_METHOD_RUNS: return "welch-runs";
    case KS_METHOD_SINGLE_RUN: return "block-bootstrap";
    case KS_METHOD_SAMPLES: break;
    }
    return ks_mwu_name(&c->mwu);
}

/* ---- a family of comparisons ------------------------------------------------------------------- */

static void family_one(const ks_runs_pair *x, double level)
{
    ks_compare_runs(&x->a, &x->b, x->points, level, x->params, x->c);
    x->c->discarded_a = x->discarded_a;
    x->c->discarded_b = x->discarded_b;
    ks_compare_runs_decide(x->c, x->params); /* the throttle precondition sees the discards */
}

void ks_compare_runs_family(const ks_runs_pair *f, size_t m, double alpha)
{
    for (size_t i = 0; i < m; i++)
        family_one(&f[i], 1 - alpha);
    if (m < 2)
        return;
    double *raw = ks_xmalloc(ks_mul(m, sizeof *raw)), *adj = ks_xmalloc(ks_mul(m, sizeof *adj));
    double *lev = ks_xmalloc(ks_mul(m, sizeof *lev));
    for (size_t i = 0; i < m; i++)
        raw[i] = f[i].c->mwu.p;
    ks_holm(raw, m, adj);
    ks_holm_levels(raw, m, alpha, lev);
    for (size_t i = 0; i < m; i++) {
        family_one(&f[i], lev[i]);
        f[i].c->p = isnan(raw[i]) ? NAN : adj[i];
        f[i].c->holm_m = m;
        ks_compare_runs_decide(f[i].c, f[i].params);
    }
    free(raw);
    free(adj);
    free(lev);
}
