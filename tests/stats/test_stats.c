/* tests/stats/test_stats.c: the descriptive statistics of one side against hand-checked
 * values (type-7 quantiles as NumPy computes them, sample stdev, MAD, Tukey fences). */
#include "ks_test.h"

#include <math.h>

#include "kinesift/stats.h"

static void near(double a, double b) { assert_true(fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1)); }
#define NEAR(a, b) near((a), (b))

static void quantiles_type7(void **state)
{
    (void)state;
    /* NumPy: np.quantile([1,2,3,4], [0, .25, .5, .75, 1]) = 1, 1.75, 2.5, 3.25, 4 */
    double x[] = {4, 1, 3, 2};
    NEAR(ks_quantile(x, 4, 0), 1);
    NEAR(ks_quantile(x, 4, 0.25), 1.75);
    NEAR(ks_quantile(x, 4, 0.5), 2.5);
    NEAR(ks_quantile(x, 4, 0.75), 3.25);
    NEAR(ks_quantile(x, 4, 1), 4);
    assert_true(x[0] == 4 && x[1] == 1); /* input untouched */
    /* h = (n-1) p = 9 * 0.1 = 0.9: 10 + 0.9 * (20 - 10) = 19 */
    double y[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    NEAR(ks_quantile(y, 10, 0.1), 19);
    NEAR(ks_quantile(y, 10, 0.975), 97.75);
    NEAR(ks_median(y, 10), 55);
    double one = 7;
    NEAR(ks_quantile(&one, 1, 0.3), 7);
    assert_true(isnan(ks_quantile(NULL, 0, 0.5)));
    /* +inf stays +inf between equal order statistics (bootstrap ratios) */
    double inf[] = {1, INFINITY, INFINITY};
    assert_true(isinf(ks_quantile_sorted(inf, 3, 0.9)));
}

static void summary_values(void **state)
{
    (void)state;
    /* 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, stdev sqrt(32/7) */
    double x[] = {9, 4, 2, 5, 4, 7, 4, 5};
    ks_summary s;
    ks_summarize(x, 8, &s);
    assert_int_equal(s.n, 8);
    NEAR(s.min, 2);
    NEAR(s.max, 9);
    NEAR(s.range, 7);
    NEAR(s.mean, 5);
    NEAR(s.median, 4.5);
    NEAR(s.stdev, sqrt(32.0 / 7));
    NEAR(s.cv, sqrt(32.0 / 7) / 5);
    NEAR(s.q1, 4);     /* h = 1.75 -> 4 + .75 * 0 */
    NEAR(s.q3, 5.5);   /* h = 5.25 -> 5 + .25 * 2 */
    NEAR(s.iqr, 1.5);
    NEAR(s.iqr_rel, 1.5 / 4.5);
    /* |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> sorted .5 x5, 2.5, 2.5, 4.5: median .5 */
    NEAR(s.mad, 0.5);
    /* fences: mild [1.75, 7.75], severe [-0.5, 10]: 9 is a mild high outlier */
    assert_int_equal(s.mild_high, 1);
    assert_int_equal(s.mild_low + s.severe_low + s.severe_high, 0);
    assert_int_equal(s.noise, KS_NOISE_VERY);
}

static void summary_outliers_and_noise(void **state)
{
    (void)state;
    /* 100 x 20, q1 = q3 = 100 would make every other value an outlier; use a spread */
    double x[12] = {100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 200, 10};
    ks_summary s;
    ks_summarize(x, 12, &s);
    /* sorted 10,100..109,200: q1 = h 2.75 -> 101.75, q3 = h 8.25 -> 107.25, iqr 5.5 */
    NEAR(s.q1, 101.75);
    NEAR(s.q3, 107.25);
    /* severe below 101.75 - 16.5 = 85.25: 10; severe above 107.25 + 16.5 = 123.75: 200 */
    assert_int_equal(s.severe_low, 1);
    assert_int_equal(s.severe_high, 1);
    assert_int_equal(s.mild_low + s.mild_high, 0);
    assert_int_equal(s.noise, KS_NOISE_OK); /* 5.5 / 104.5 < 10 % */
    double noisy[] = {100, 100, 112, 112}; /* q1 100, q3 112, median 106: 11.3 % */
    ks_summarize(noisy, 4, &s);
    assert_int_equal(s.noise, KS_NOISE_NOISY);
}

static void summary_degenerate(void **state)
{
    (void)state;
    ks_summary s;
    ks_summarize(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median) && isnan(s.mean) && isnan(s.stdev));
    double one = 42;
    ks_summarize(&one, 1, &s);
    NEAR(s.median, 42);
    NEAR(s.range, 0);
    assert_true(isnan(s.stdev) && isnan(s.cv));
    double zeros[] = {0, 0, 0};
    ks_summarize(zeros, 3, &s);
    assert_true(isnan(s.cv) && isnan(s.iqr_rel));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_type7),
        cmocka_unit_test(summary_values),
        cmocka_unit_test(summary_outliers_and_noise),
        cmocka_unit_test(summary_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
