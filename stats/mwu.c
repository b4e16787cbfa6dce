/* stats/mwu.c: the two-sided Mann-Whitney U test (docs/statistics.md section 3): mid-ranks
 * for ties; the exact null distribution when both sides have at most 50 samples (without ties
 * by the recursion over U, with ties by counting the subsets of the pooled mid-ranks: the
 * permutation distribution given the ties); otherwise the normal approximation with
 * tie-corrected variance and continuity correction. */
#include "kinesift/stats.h"

#include <math.h>
#include <stdlib.h>

#include "common/limits.h"
#include "common/util.h"

#define EXACT_MAX KS_LIMIT_MWU_EXACT

typedef struct ranked {
    double v;
    int side; /* 0 = a, 1 = b */
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    double a = ((const ranked *)pa)->v, b = ((const ranked *)pb)->v;
    return (a > b) - (a < b);
}

/* Rank sum of side a with mid-ranks; *tie_term = sum over tie groups of (t^3 - t); when w is
 * given, w[k] = twice the mid-rank of the k-th smallest pooled value (an integer). */
static double rank_sum_a(const double *a, size_t na, const double *b, size_t nb,
                         double *tie_term, long *w)
{
    size_t n = na + nb;
    ranked *r = ks_xmalloc(ks_mul(n, sizeof *r));
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 1};
    qsort(r, n, sizeof *r, cmp_ranked);
    double sum = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i);
        double mid = ((double)(i + 1) + (double)j) / 2; /* mean of ranks i+1 .. j */
        for (size_t k = i; k < j; k++) {
            if (r[k].side == 0)
                sum += mid;
            if (w)
                w[k] = (long)(i + 1 + j); /* 2 * mid */
        }
        ties += t * t * t - t;
        i = j;
    }
    free(r);
    *tie_term = ties;
    return sum;
}

/* P(U <= u) under the null for sizes (m, n), no ties: the recursion
 * f(i, j; u) = i/(i+j) f(i-1, j; u-j) + j/(i+j) f(i, j-1; u), over probabilities (no
 * cancellation, no overflow). Values above u are never needed, so each array stops at u. */
static double exact_cdf(size_t m, size_t n, long u)
{
    size_t maxu = m * n;
    if (u < 0)
        return 0;
    if ((size_t)u >= maxu)
        return 1;
    /* layer[i][j] is an array of min(i*j, u)+1 probabilities; keep two layers (i-1, i). */
    size_t stride = (size_t)u + 1;
    double *prev = ks_xcalloc(ks_mul(n + 1, stride), sizeof *prev);
    double *cur = ks_xcalloc(ks_mul(n + 1, stride), sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j * stride] = 1; /* i = 0: U = 0 */
    for (size_t i = 1; i <= m; i++) {
        cur[0] = 1; /* j = 0 */
        for (size_t j = 1; j <= n; j++) {
            double *f = cur + j * stride;
            const double *left = prev + j * stride;   /* (i-1, j) */
            const double *down = cur + (j - 1) * stride; /* (i, j-1) */
            double pa = (double)i / (double)(i + j), pb = (double)j / (double)(i + j);
            size_t top = i * j < (size_t)u ? i * j : (size_t)u; /* only P(U <= u) is needed */
            for (size_t v = 0; v <= top; v++) {
                double x = 0;
                if (v >= j && v - j <= (i - 1) * j)
                    x += pa * left[v - j];
                if (v <= i * (j - 1))
                    x += pb * down[v];
                f[v] = x;
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    const double *f = prev + n * stride;
    double c = 0;
    for (long v = 0; v <= u; v++)
        c += f[v];
    free(prev);
    free(cur);
    return c < 1 ? c : 1;
}

/* With ties: the two-sided p of the permutation distribution of U given the pooled mid-ranks
 * (w: twice each of the n = m + k mid-ranks, an integer), P(|2U - mk| >= |2u - mk|) over the
 * C(n, m) equally likely choices of side a. c[j][s] is the number of j-subsets of the ranks seen
 * so far with doubled rank sum s, counted in doubles (C(100, 50) ~ 1e29 is far inside their
 * range, and each count is a sum of positive terms); O(n * m * sum of w) time, ~5e7 additions
 * at 50 and 50. */
static double exact_ties_p(const long *w, size_t n, size_t m, double u2)
{
    long top = 0;
    for (size_t i = 0; i < n; i++)
        top += w[i];
    size_t stride = (size_t)top + 1;
    double *c = ks_xcalloc(ks_mul(m + 1, stride), sizeof *c);
    c[0] = 1;
    for (size_t i = 0; i < n; i++) {
        size_t jmax = i + 1 < m ? i + 1 : m;
        for (size_t j = jmax; j >= 1; j--) {
            double *to = c + j * stride;
            const double *from = c + (j - 1) * stride;
            for (long s = top; s >= w[i]; s--)
                to[s] += from[s - w[i]];
        }
    }
    const double *row = c + m * stride; /* every m-subset: C(n, m) in all */
    double all = 0, tail = 0;
    double mk2 = (double)m * (double)(n - m); /* the mean of 2U */
    double far = fabs(u2 - mk2) - 1e-9;      /* 2U is an integer: no rounding at the edge */
    long base = (long)(m * (m + 1));          /* 2U = S - m(m+1) */
    for (long s = 0; s <= top; s++) {
        if (row[s] == 0)
            continue;
        all += row[s];
        if (fabs((double)(s - base) - mk2) >= far)
            tail += row[s];
    }
    free(c);
    double p = all > 0 ? tail / all : 1;
    return p < 1 ? p : 1;
}

int ks_mwu_test(const double *a, size_t na, const double *b, size_t nb, ks_mwu *out)
{
    out->u_a = out->u_b = out->z = out->p = NAN;
    out->exact = out->ties = 0;
    if (na == 0 || nb == 0)
        return -1;
    double tie_term;
    int small = na <= EXACT_MAX && nb <= EXACT_MAX;
    long *w = small ? ks_xmalloc(ks_mul(na + nb, sizeof *w)) : NULL;
    double ra = rank_sum_a(a, na, b, nb, &tie_term, w);
    double mn = (double)na * (double)nb;
    out->u_a = ra - (double)na * ((double)na + 1) / 2;
    out->u_b = mn - out->u_a;
    out->ties = tie_term > 0;
    if (small) {
        out->exact = 1;
        if (!out->ties) {
            long u = lround(out->u_a < out->u_b ? out->u_a : out->u_b);
            double p = 2 * exact_cdf(na, nb, u);
            out->p = p < 1 ? p : 1;
        } else {
            out->p = exact_ties_p(w, na + nb, na, 2 * out->u_a);
        }
        free(w);
        return 0;
    }
    double n = (double)(na + nb);
    double var = mn / 12 * ((n + 1) - tie_term / (n * (n - 1)));
    double dev = fabs(out->u_a - mn / 2) - 0.5;
    if (var <= 0) { /* every value identical */
        out->z = 0;
        out->p = 1;
        return 0;
    }
    out->z = (dev > 0 ? dev : 0) / sqrt(var);
    double p = erfc(out->z / sqrt(2.0));
    out->p = p < 1 ? p : 1;
    return 0;
}

double ks_mwu_min_p(size_t na, size_t nb)
{
    if (na == 0 || nb == 0)
        return 1;
    /* C(na + nb, na) as a product of ratios, in log space to avoid overflow */
    size_t k = na < nb ? na : nb, n = na + nb;
    double lc = 0;
    for (size_t i = 1; i <= k; i++)
        lc += log((double)(n - k + i)) - log((double)i);
    double p = 2 * exp(-lc);
    return p < 1 ? p : 1;
}

const char *ks_mwu_name(const ks_mwu *m)
{
    return m->exact ? "mwu-exact" : "mwu-normal";
}
