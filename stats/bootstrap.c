/* stats/bootstrap.c: percentile bootstrap CI of the median ratio (docs/statistics.md
 * section 3). Each replicate draws n_a indices into the sorted baseline, then n_b into the
 * sorted candidate, from one xoshiro256** generator; the median of a resample is read from the
 * counts of the drawn indices (no sorting per replicate), which is what keeps 10 000 resamples
 * fast. The bounds are type-7 quantiles of the replicate ratios, found by selection (the
 * same values a full sort would give). */
#include "kinesift/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "stats/stats_int.h"

/* Median of one resample of the sorted values v[0..n): n draws with replacement. */
static double resample_median(ks_rng *r, const double *v, size_t n, uint32_t *count)
{
    memset(count, 0, n * sizeof *count);
    ks_rng st = *r; /* a local copy stays in registers: the loop touches only count[] */
    for (size_t i = 0; i < n; i++)
        count[ks_xoshiro_below(&st, n)]++;
    *r = st;
    size_t lo = (n - 1) / 2, hi = n / 2; /* ranks of the middle value(s), 0-based */
    size_t seen = 0, i = 0;
    while (seen + count[i] <= lo)
        seen += count[i++];
    double a = v[i];
    while (seen + count[i] <= hi)
        seen += count[i++];
    double b = v[i];
    return a == b ? a : (a + b) / 2;
}

static inline void swap_d(double *x, size_t i, size_t j)
{
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
}

/* Quickselect with a three-way partition (many replicates are equal): reorders x so that x[k]
 * is the k-th smallest (0-based), with nothing larger before it and nothing smaller after. */
static void select_kth(double *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* [lo, hi) holds the k-th */
    while (hi - lo > 1) {
        double a = x[lo], b = x[lo + (hi - lo) / 2], c = x[hi - 1];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > */
        while (i < gt) {
            if (x[i] < pivot)
                swap_d(x, lt++, i++);
            else if (x[i] > pivot)
                swap_d(x, i, --gt);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

/* Type-7 quantile of unsorted x (reordered), as ks_quantile_sorted on the sorted values. */
static double select_quantile(double *x, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t j = (size_t)floor(h);
    double g = h - (double)j;
    select_kth(x, n, j);
    double a = x[j];
    if (j + 1 >= n || g == 0)
        return a;
    double b = x[j + 1];
    for (size_t i = j + 2; i < n; i++) /* the next order statistic: the least of the rest */
        if (x[i] < b)
            b = x[i];
    return a == b ? a : a + g * (b - a);
}

static double ratio_of(double ma, double mb)
{
    if (ma == 0)
        return mb == 0 ? 1 : INFINITY;
    return mb / ma;
}

int ks_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb,
                              unsigned resamples, uint64_t seed, double level, double *lo,
                              double *hi)
{
    *lo = *hi = NAN;
    if (na == 0 || nb == 0 || resamples == 0)
        return -1;
    double *va = ks_xmalloc(ks_mul(na, sizeof *va));
    double *vb = ks_xmalloc(ks_mul(nb, sizeof *vb));
    memcpy(va, a, na * sizeof *va);
    memcpy(vb, b, nb * sizeof *vb);
    ks_sort_doubles(va, na);
    ks_sort_doubles(vb, nb);
    uint32_t *count = ks_xmalloc(ks_mul(na > nb ? na : nb, sizeof *count));
    double *rep = ks_xmalloc(ks_mul(resamples, sizeof *rep));
    ks_rng r;
    ks_rng_seed(&r, seed);
    for (unsigned k = 0; k < resamples; k++) {
        double ma = resample_median(&r, va, na, count);
        double mb = resample_median(&r, vb, nb, count);
        rep[k] = ratio_of(ma, mb);
    }
    double tail = (1 - level) / 2;
    *lo = select_quantile(rep, resamples, tail);
    *hi = select_quantile(rep, resamples, 1 - tail);
    free(rep);
    free(count);
    free(va);
    free(vb);
    return 0;
}
