/* stats/tdist.c: Student's t distribution for the run-level comparison (stats/runs.c):
 * the two-sided tail probability P(|T| >= t) with df degrees of freedom (df may be fractional:
 * Welch-Satterthwaite), and its inverse. P(|T| >= t) = I_x(df/2, 1/2) with x = df/(df + t^2),
 * the regularized incomplete beta function evaluated by its continued fraction (modified
 * Lentz; Numerical Recipes 6.4, which converges for x < (a+1)/(a+b+2) and uses the symmetry
 * I_x(a,b) = 1 - I_{1-x}(b,a) otherwise). The quantile is found by bisection on the monotone
 * tail probability (200 halvings: exact to double precision); tests/stats/test_runs.c checks
 * both against published table values. Correct for df > 0; NaN otherwise. Used by runs.c. */
#include "kinesift/stats.h"

#include <math.h>

static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-16;
    double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 10000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < eps)
            break;
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b), 0 <= x <= 1. */
static double inc_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double ks_t_two_sided_p(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    if (isinf(t))
        return 0;
    return inc_beta(df / 2, 0.5, df / (df + t * t));
}

double ks_t_quantile(double q, double df)
{
    if (!(df > 0) || !(q > 0) || !(q < 1))
        return NAN;
    if (q == 0.5)
        return 0;
    double tail = q > 0.5 ? 2 * (1 - q) : 2 * q; /* two-sided tail probability of |t| */
    double lo = 0, hi = 1;
    while (ks_t_two_sided_p(hi, df) > tail && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200; i++) {
        double mid = lo + (hi - lo) / 2;
        if (mid == lo || mid == hi)
            break;
        if (ks_t_two_sided_p(mid, df) > tail)
            lo = mid;
        else
            hi = mid;
    }
    double t = lo + (hi - lo) / 2;
    return q > 0.5 ? t : -t;
}
