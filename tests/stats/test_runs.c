/* tests/stats/test_runs.c: the run-level statistics (stats/runs.c, stats/tdist.c):
 * Student's t tail and quantiles against published table values, Holm-consistent levels
 * against Holm's adjusted p (the interval excludes the null exactly when the adjusted p is
 * below alpha), the Welch comparison re-computed by hand on per-run medians, the single-run
 * block bootstrap (a median read by selection equals ks_median; a regression only beyond the
 * limit plus the margin), the lag-1 autocorrelation, the decision rule's cases, the verdict law
 * over many simulated families (an interval wholly beyond the limit is always a regression, one
 * within it never is, the caveat, and the printed numbers agree), and a clear failure that
 * unrelated passing comparisons do not dilute. */
#include "ks_test.h"

#include <math.h>

#include "kinesift/stats.h"

static void t_distribution(void **state)
{
    (void)state;
    /* two-sided 5 % critical values (any t table) */
    static const struct {
        double df, t975;
    } tab[] = {{1, 12.7062}, {2, 4.3027}, {3, 3.1824}, {4, 2.7764}, {5, 2.5706},
               {10, 2.2281}, {30, 2.0423}, {1000, 1.9623}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        double q = ks_t_quantile(0.975, tab[i].df);
        assert_true(fabs(q - tab[i].t975) < 5e-4);
        assert_true(fabs(ks_t_two_sided_p(tab[i].t975, tab[i].df) - 0.05) < 1e-4);
        assert_true(fabs(ks_t_quantile(0.025, tab[i].df) + q) < 1e-9); /* symmetric */
    }
    /* df = 1 is Cauchy: P(|T| >= t) = 1 - 2 atan(t) / pi */
    for (double t = 0.1; t < 50; t *= 1.7)
        assert_true(fabs(ks_t_two_sided_p(t, 1) - (1 - 2 * atan(t) / M_PI)) < 1e-12);
    /* df = 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2) */
    for (double t = 0.1; t < 50; t *= 1.7)
        assert_true(fabs(ks_t_two_sided_p(t, 2) - (1 - t / sqrt(2 + t * t))) < 1e-12);
    assert_true(ks_t_two_sided_p(0, 5) == 1);
    assert_true(isnan(ks_t_two_sided_p(1, 0)));
    /* fractional df (Welch) lies between its integer neighbours */
    double q25 = ks_t_quantile(0.99, 2.5);
    assert_true(q25 < ks_t_quantile(0.99, 2) && q25 > ks_t_quantile(0.99, 3));
    assert_true(isnan(ks_t_quantile(1, 3)));
}

static void holm_levels_match_holm(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 15);
    for (int trial = 0; trial < 2000; trial++) {
        size_t m = 1 + ks_rng_below(&r, 6);
        double p[6], adj[6], lev[6];
        for (size_t i = 0; i < m; i++)
            p[i] = pow(ks_rng_double(&r), 3) * 0.2;
        ks_holm(p, m, adj);
        ks_holm_levels(p, m, 0.05, lev);
        for (size_t i = 0; i < m; i++) {
            /* a dual interval at level lev excludes the null iff p < 1 - lev */
            int excludes = p[i] < 1 - lev[i];
            assert_int_equal(excludes, adj[i] < 0.05);
            assert_true(lev[i] >= 0.95 - 1e-12 && lev[i] <= 1 - 0.05 / (double)m + 1e-12);
        }
    }
    double one = 0.03, lv;
    ks_holm_levels(&one, 1, 0.05, &lv);
    assert_true(fabs(lv - 0.95) < 1e-15);
    /* the issue's case: four checks, the slowdown's p 0.042 is not the smallest: p 0.126 */
    double p4[4] = {0.01, 0.042, 0.5, 0.8}, a4[4], l4[4];
    ks_holm(p4, 4, a4);
    ks_holm_levels(p4, 4, 0.05, l4);
    assert_true(fabs(a4[1] - 0.126) < 1e-12);
    assert_true(fabs(l4[0] - (1 - 0.05 / 4)) < 1e-12); /* rejected at alpha/4 */
    assert_true(fabs(l4[1] - (1 - 0.05 / 3)) < 1e-12); /* not rejected: alpha/3, and so the rest */
    assert_true(fabs(l4[3] - (1 - 0.05 / 3)) < 1e-12);
}

static void welch_by_hand(void **state)
{
    (void)state;
    /* three runs per side of 5 samples; the per-run medians are 100, 102, 98 and 110, 111, 109 */
    double a[15] = {90, 100, 100, 105, 120, 102, 102, 101, 103, 90, 98, 97, 99, 98, 98};
    double b[15] = {110, 110, 110, 112, 100, 111, 120, 111, 105, 111, 109, 109, 109, 120, 90};
    size_t la[3] = {5, 5, 5}, lb[3] = {5, 5, 5};
    ks_runs ra = {a, la, 3}, rb = {b, lb, 3};
    ks_compare_params p;
    ks_compare_params_gate(&p);
    ks_compare c;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_int_equal(c.method, KS_METHOD_RUNS);
    assert_int_equal(c.runs_a, 3);
    double ma[3] = {log(100), log(102), log(98)}, mb[3] = {log(110), log(111), log(109)};
    double mean_a = (ma[0] + ma[1] + ma[2]) / 3, mean_b = (mb[0] + mb[1] + mb[2]) / 3;
    double va = 0, vb = 0;
    for (int i = 0; i < 3; i++) {
        va += (ma[i] - mean_a) * (ma[i] - mean_a) / 2;
        vb += (mb[i] - mean_b) * (mb[i] - mean_b) / 2;
    }
    double se = sqrt(va / 3 + vb / 3), df = pow(va / 3 + vb / 3, 2) / (pow(va / 3, 2) / 2 + pow(vb / 3, 2) / 2);
    assert_true(fabs(c.est - (mean_b - mean_a)) < 1e-12);
    assert_true(fabs(c.se - se) < 1e-12);
    assert_true(fabs(c.df - df) < 1e-9);
    double q = ks_t_quantile(0.975, df);
    assert_true(fabs(c.ci_lo - exp(mean_b - mean_a - q * se)) < 1e-12);
    assert_true(fabs(c.ratio - exp(mean_b - mean_a)) < 1e-12);
    assert_true(fabs(c.spread_a - (102.0 / 98 - 1)) < 1e-12);
    /* the interval excludes 1 exactly when p < 0.05 (duality), and the verdict follows it */
    assert_int_equal(c.ci_lo > 1, c.p < 0.05);
    assert_int_equal(c.verdict, KS_VERDICT_SLOWER); /* +9 %, interval above 1 */
    /* at a level so high that the interval reaches 1: inconclusive, never slower */
    ks_compare_runs(&ra, &rb, 0, 1 - c.p / 2, &p, &c);
    assert_true(c.ci_lo < 1);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    /* --runs-per-side-min */
    p.min_runs = 4;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "at least 4 per side required"));
}

static void single_run(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 3);
    double a[31], b[31];
    for (int i = 0; i < 31; i++) {
        a[i] = 100 * (1 + 0.02 * ks_rng_normal(&r));
        b[i] = 130 * (1 + 0.02 * ks_rng_normal(&r));
    }
    size_t la = 31, lb = 31;
    ks_runs ra = {a, &la, 1}, rb = {b, &lb, 1};
    ks_compare_params p;
    ks_compare_params_gate(&p);
    ks_compare c;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_int_equal(c.method, KS_METHOD_SINGLE_RUN);
    assert_int_equal(c.block, 4); /* ceil(31^(1/3)) */
    assert_true(fabs(c.ratio - ks_median(b, 31) / ks_median(a, 31)) < 1e-12);
    assert_true(c.ci_lo <= c.ratio && c.ratio <= c.ci_hi);
    assert_int_equal(c.verdict, KS_VERDICT_SLOWER); /* +30 %: beyond 5 % + 15 % */
    for (int i = 0; i < 31; i++)
        b[i] = b[i] / 130 * 112; /* +12 %: beyond the limit, not beyond the margin */
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_true(c.ci_lo > 1.05);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "one run per side"));
    ks_compare_runs(&ra, &ra, 0, 0.95, &p, &c); /* A/A: never a pass from one run */
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    /* even n: the selected median is the mean of the two middle values */
    la = lb = 30;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_true(fabs(c.ratio - ks_median(b, 30) / ks_median(a, 30)) < 1e-12);
    /* the same seed gives the same interval */
    double lo = c.ci_lo;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_true(c.ci_lo == lo);
    /* Fewer samples a side than the verdict needs (5): no interval and no p, the ratio alone. With
     * 2 a side the block (ceil(2^(1/3)) = 2) is the whole sample, every resample the sample itself:
     * the interval would be one point and the p "< 2/R", for two steps against two. */
    for (size_t n = 1; n < p.min_samples; n++) {
        la = lb = n;
        ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
        assert_true(isnan(c.ci_lo) && isnan(c.ci_hi) && isnan(c.p) && isnan(c.mwu.p));
        assert_true(fabs(c.ratio - ks_median(b, n) / ks_median(a, n)) < 1e-12);
        assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
        assert_non_null(strstr(c.reason, "too few samples"));
    }
    la = 5, lb = 4; /* one side short is enough */
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_true(isnan(c.ci_lo) && isnan(c.p));
    la = lb = 5;
    ks_compare_runs(&ra, &rb, 0, 0.95, &p, &c);
    assert_true(c.ci_lo <= c.ratio && c.ratio <= c.ci_hi && !isnan(c.p));
}

static void autocorrelation(void **state)
{
    (void)state;
    double alt[8] = {1, -1, 1, -1, 1, -1, 1, -1}, lin[5] = {1, 2, 3, 4, 5}, k[4] = {2, 2, 2, 2};
    /* sum of (x_i - m)(x_i+1 - m) over sum of (x_i - m)^2 */
    assert_true(fabs(ks_lag1_autocorr(alt, 8) - (-7.0 / 8)) < 1e-12);
    assert_true(fabs(ks_lag1_autocorr(lin, 5) - ((-2 * -1) + (-1 * 0) + 0 + (1 * 2)) / 10.0) < 1e-12);
    assert_true(isnan(ks_lag1_autocorr(k, 4)));
    assert_true(isnan(ks_lag1_autocorr(lin, 2)));
}

/* Side-preserving formatting (hand-worked): 4 decimals unless a boundary (1, 1 +/- limit)
 * would be crossed or reached by rounding; then as many more as it takes. */
static void printed_on_its_side(void **state)
{
    (void)state;
    ks_compare c;
    memset(&c, 0, sizeof c);
    c.limit = 0.05;
    char b[48];
    ks_compare_fmt(b, sizeof b, &c, 1.123456, 0, 4);
    assert_string_equal(b, "1.1235");
    ks_compare_fmt(b, sizeof b, &c, 1.05, 0, 4); /* on the boundary: stays on it */
    assert_string_equal(b, "1.0500");
    ks_compare_fmt(b, sizeof b, &c, 1.050001, 0, 4);
    assert_string_equal(b, "1.050001");
    ks_compare_fmt(b, sizeof b, &c, 1.04999, 0, 4);
    assert_string_equal(b, "1.04999");
    ks_compare_fmt(b, sizeof b, &c, 1.00004, 0, 4);
    assert_string_equal(b, "1.00004");
    ks_compare_fmt(b, sizeof b, &c, 0.949996, 0, 4);
    assert_string_equal(b, "0.949996");
    ks_compare_fmt(b, sizeof b, &c, 1.098, 1, 2); /* percent */
    assert_string_equal(b, "+9.80");
    ks_compare_fmt(b, sizeof b, &c, 1.0499999, 1, 2);
    assert_string_equal(b, "+4.99999");
    c.points = 1;
    c.limit = 2;
    ks_compare_fmt(b, sizeof b, &c, 2.0004, 0, 2);
    assert_string_equal(b, "+2.0004");
    ks_compare_fmt(b, sizeof b, &c, -0.3, 0, 2);
    assert_string_equal(b, "-0.30");
}

/* The printed number read back (C locale). */
static double shown(const ks_compare *c, double v, int percent, int digits)
{
    char b[48];
    ks_compare_fmt(b, sizeof b, c, v, percent, digits);
    double x = strtod(b, NULL);
    return percent ? 1 + x / 100 : x;
}

/* The verdict law, over many simulated families (1 to 5 comparisons, 1 to 6 runs a side, ratio
 * and points effects, limits 2 to 10 %, true effects from -25 % to +25 %, run CVs up to 8 %):
 *  - an interval wholly beyond the limit is always slower (faster): never inconclusive;
 *  - an interval wholly within the limits is never slower or faster (it is no-change);
 *  - slower means the interval excludes the null and the estimate is beyond the limit, and the
 *    Holm-adjusted p is below alpha; a caveat is set exactly when that interval reaches back
 *    across the limit;
 *  - one run on a side: never no-change; slower (faster) only beyond the limit plus the margin;
 *  - the printed interval and estimate (read back) satisfy the same inequalities. */
static void verdict_law(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 2026);
    size_t seen[5] = {0}, caveats = 0, beyond = 0, within = 0;
    for (int fam = 0; fam < 1500; fam++) {
        size_t m = 1 + ks_rng_below(&r, 5);
        ks_compare_params pr[5];
        ks_compare c[5];
        ks_runs_pair f[5];
        double *x[5][2];
        size_t len[5][2][6];
        for (size_t i = 0; i < m; i++) {
            ks_compare_params_gate(&pr[i]);
            pr[i].resamples = 300; /* single-run cases: a coarse bootstrap is enough for the law */
            pr[i].seed = (uint64_t)fam * 7 + i;
            int points = ks_rng_below(&r, 4) == 0;
            pr[i].threshold = points ? 1 + 3 * ks_rng_double(&r) : 0.02 + 0.08 * ks_rng_double(&r);
            double effect = -0.25 + 0.5 * ks_rng_double(&r), cv_run = 0.08 * ks_rng_double(&r);
            for (int s = 0; s < 2; s++) {
                size_t runs = ks_rng_below(&r, 8) == 0 ? 1 : 2 + ks_rng_below(&r, 5), n = 6 + ks_rng_below(&r, 20);
                x[i][s] = ks_xmalloc(runs * n * sizeof **x[i]);
                for (size_t k = 0; k < runs; k++) {
                    len[i][s][k] = n;
                    double level = points ? 10 + (s ? 10 * effect : 0) + 10 * cv_run * ks_rng_normal(&r)
                                          : 100 * (1 + (s ? effect : 0)) * (1 + cv_run * ks_rng_normal(&r));
                    for (size_t j = 0; j < n; j++)
                        x[i][s][k * n + j] = level + (points ? 0.2 : 2) * ks_rng_normal(&r);
                }
                ks_runs side = {x[i][s], len[i][s], runs};
                if (s)
                    f[i].b = side;
                else
                    f[i].a = side;
            }
            f[i].points = points;
            f[i].params = &pr[i];
            f[i].discarded_a = f[i].discarded_b = 0;
            f[i].c = &c[i];
        }
        ks_compare_runs_family(f, m, 0.05);
        for (size_t i = 0; i < m; i++) {
            const ks_compare *k = &c[i];
            int pts = k->points;
            double d = pr[i].threshold, null = pts ? 0 : 1, up = pts ? d : 1 + d, down = pts ? -d : 1 - d;
            double e = pts ? k->est : k->ratio;
            ks_verdict v = k->verdict;
            seen[v]++;
            assert_int_equal(k->holm_m, m);
            if (k->method == KS_METHOD_SINGLE_RUN) {
                assert_true(v != KS_VERDICT_NO_CHANGE);
                double mg = pts ? 100 * pr[i].single_run_margin : pr[i].single_run_margin;
                assert_int_equal(v == KS_VERDICT_SLOWER, k->ci_lo > up + mg);
                assert_int_equal(v == KS_VERDICT_FASTER, k->ci_hi < down - mg);
                assert_true(k->caveat[0] == '\0');
                continue;
            }
            if (k->ci_lo > up) {
                assert_int_equal(v, KS_VERDICT_SLOWER);
                beyond++;
            }
            if (k->ci_hi < down)
                assert_int_equal(v, KS_VERDICT_FASTER);
            if (k->ci_lo >= down && k->ci_hi <= up) {
                assert_int_equal(v, KS_VERDICT_NO_CHANGE);
                within++;
            }
            if (v == KS_VERDICT_SLOWER || v == KS_VERDICT_FASTER) {
                int slower = v == KS_VERDICT_SLOWER;
                assert_true(slower ? k->ci_lo > null && e > up : k->ci_hi < null && e < down);
                assert_true(k->p < 0.05);
                int crosses = slower ? k->ci_lo < up : k->ci_hi > down;
                assert_int_equal(k->caveat[0] != '\0', crosses);
                caveats += crosses;
                if (crosses)
                    assert_non_null(strstr(k->caveat, slower ? "reaches below the +" : "reaches above the -"));
                /* printed */
                double lo = shown(k, k->ci_lo, 0, 4), hi = shown(k, k->ci_hi, 0, 4), es = shown(k, e, 0, 4);
                double pc = pts ? es : shown(k, e, 1, 2);
                assert_true(slower ? lo > null && es > up && pc > up : hi < null && es < down && pc < down);
                assert_int_equal(slower ? lo < up : hi > down, crosses);
            } else {
                assert_true(k->caveat[0] == '\0');
            }
            if (v == KS_VERDICT_NO_CHANGE)
                assert_true(shown(k, k->ci_lo, 0, 4) >= down && shown(k, k->ci_hi, 0, 4) <= up);
            if (v == KS_VERDICT_INCONCLUSIVE) { /* the printed interval shows why: not wholly beyond, not within */
                double lo = shown(k, k->ci_lo, 0, 4), hi = shown(k, k->ci_hi, 0, 4);
                assert_false(lo > up || hi < down);
                assert_false(lo >= down && hi <= up);
            }
            /* Welch: the interval excludes the null exactly when the Holm-adjusted p < alpha */
            if (fabs(k->p - 0.05) > 1e-9)
                assert_int_equal(k->ci_lo > null || k->ci_hi < null, k->p < 0.05);
        }
        for (size_t i = 0; i < m; i++) {
            free(x[i][0]);
            free(x[i][1]);
        }
    }
    /* every branch of the law was exercised */
    assert_true(seen[KS_VERDICT_SLOWER] > 50 && seen[KS_VERDICT_FASTER] > 50 && seen[KS_VERDICT_NO_CHANGE] > 50 &&
                seen[KS_VERDICT_INCONCLUSIVE] > 50);
    assert_true(caveats > 20 && beyond > 50 && within > 50);
}

/* A family of 4 and of 12 where one comparison is a clear slowdown (3 runs a side, run CV 0.5 %,
 * +30 %, raw p far below alpha / m) and the rest are unrelated comparisons without a change: the clear one stays
 * slower, at level 1 - alpha / m, with its interval above the limit. */
static void clear_failure_not_diluted(void **state)
{
    (void)state;
    const size_t sizes[] = {4, 12};
    for (size_t t = 0; t < 2; t++) {
        size_t m = sizes[t];
        ks_rng r;
        ks_rng_seed(&r, 77 + t);
        ks_compare_params p;
        ks_compare_params_gate(&p);
        ks_compare c[12];
        ks_runs_pair f[12];
        double x[12][2][3 * 20];
        size_t len[3] = {20, 20, 20};
        for (size_t i = 0; i < m; i++) {
            for (int s = 0; s < 2; s++)
                for (size_t k = 0; k < 3; k++) {
                    double level = 100 * (i == 0 && s ? 1.30 : 1) * (1 + 0.005 * ks_rng_normal(&r));
                    for (size_t j = 0; j < 20; j++)
                        x[i][s][k * 20 + j] = level * (1 + 0.01 * ks_rng_normal(&r));
                }
            f[i] = (ks_runs_pair){{x[i][0], len, 3}, {x[i][1], len, 3}, 0, &p, 0, 0, &c[i]};
        }
        ks_compare_runs_family(f, m, 0.05);
        assert_true(c[0].mwu.p < 0.05 / (double)m / 100); /* p tiny */
        assert_int_equal(c[0].verdict, KS_VERDICT_SLOWER);
        assert_true(fabs(c[0].ci_level - (1 - 0.05 / (double)m)) < 1e-12);
        assert_true(c[0].ci_lo > 1.05);
        assert_true(c[0].caveat[0] == '\0');
        for (size_t i = 1; i < m; i++) /* with 12, some intervals at 1 - alpha / 11 are too wide to pass */
            assert_true(m == 4 ? c[i].verdict == KS_VERDICT_NO_CHANGE
                               : c[i].verdict == KS_VERDICT_NO_CHANGE || c[i].verdict == KS_VERDICT_INCONCLUSIVE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_distribution), cmocka_unit_test(holm_levels_match_holm),
        cmocka_unit_test(welch_by_hand),  cmocka_unit_test(single_run),
        cmocka_unit_test(autocorrelation), cmocka_unit_test(printed_on_its_side),
        cmocka_unit_test(verdict_law), cmocka_unit_test(clear_failure_not_diluted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
