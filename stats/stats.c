/* stats/stats.c: descriptive statistics of one side (docs/statistics.md section 2): type-7
 * quantiles, median, mean, sample standard deviation, CV, quartiles, IQR, MAD and Tukey
 * outlier counts. */
#include "kinesift/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void ks_sort_doubles(double *x, size_t n)
{
    if (n > 1)
        qsort(x, n, sizeof *x, cmp_double);
}

double ks_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0)
        return NAN;
    if (p <= 0)
        return x[0];
    if (p >= 1)
        return x[n - 1];
    double h = (double)(n - 1) * p;
    size_t j = (size_t)floor(h);
    double g = h - (double)j;
    if (j + 1 >= n || g == 0 || x[j] == x[j + 1])
        return x[j]; /* also keeps +inf from turning into NaN */
    return x[j] + g * (x[j + 1] - x[j]);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = ks_xmalloc(ks_mul(n ? n : 1, sizeof *s));
    if (n)
        memcpy(s, x, n * sizeof *s);
    ks_sort_doubles(s, n);
    return s;
}

double ks_quantile(const double *x, size_t n, double p)
{
    double *s = sorted_copy(x, n);
    double q = ks_quantile_sorted(s, n, p);
    free(s);
    return q;
}

double ks_median(const double *x, size_t n)
{
    return ks_quantile(x, n, 0.5);
}

double ks_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

double ks_stdev(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double m = ks_mean(x, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    return sqrt(ss / (double)(n - 1));
}

/* Median absolute deviation from the median of sorted x. */
static double mad_sorted(const double *x, size_t n, double median)
{
    double *d = ks_xmalloc(ks_mul(n, sizeof *d));
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(x[i] - median);
    ks_sort_doubles(d, n);
    double m = ks_quantile_sorted(d, n, 0.5);
    free(d);
    return m;
}

static void count_outliers(const double *x, size_t n, ks_summary *s)
{
    double mild_lo = s->q1 - 1.5 * s->iqr, mild_hi = s->q3 + 1.5 * s->iqr;
    double sev_lo = s->q1 - 3 * s->iqr, sev_hi = s->q3 + 3 * s->iqr;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < sev_lo)
            s->severe_low++;
        else if (x[i] < mild_lo)
            s->mild_low++;
        else if (x[i] > sev_hi)
            s->severe_high++;
        else if (x[i] > mild_hi)
            s->mild_high++;
    }
}

void ks_summarize(const double *x, size_t n, ks_summary *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0) {
        s->min = s->max = s->range = s->mean = s->median = NAN;
        s->stdev = s->cv = s->q1 = s->q3 = s->iqr = s->iqr_rel = s->mad = NAN;
        return;
    }
    double *v = sorted_copy(x, n);
    s->min = v[0];
    s->max = v[n - 1];
    s->range = s->max - s->min;
    s->mean = ks_mean(v, n);
    s->median = ks_quantile_sorted(v, n, 0.5);
    s->stdev = ks_stdev(v, n);
    s->cv = s->mean != 0 ? s->stdev / s->mean : NAN;
    s->q1 = ks_quantile_sorted(v, n, 0.25);
    s->q3 = ks_quantile_sorted(v, n, 0.75);
    s->iqr = s->q3 - s->q1;
    s->iqr_rel = s->median != 0 ? s->iqr / s->median : NAN;
    s->mad = mad_sorted(v, n, s->median);
    count_outliers(v, n, s);
    if (s->iqr_rel >= 0.25)
        s->noise = KS_NOISE_VERY;
    else if (s->iqr_rel >= 0.10)
        s->noise = KS_NOISE_NOISY;
    free(v);
}
