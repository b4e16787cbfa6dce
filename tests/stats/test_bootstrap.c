/* tests/stats/test_bootstrap.c: the bootstrap CI of the median ratio is the documented
 * algorithm (bounds equal to those of the independent implementation in stats_ref.py), is
 * deterministic for a seed, and behaves at the edges. */
#include "ks_test.h"

#include <math.h>

#include "kinesift/stats.h"

#define REL(a, b, tol) assert_true(fabs((a) - (b)) <= (tol) * fabs(b))

static const double A[] = {10.0, 10.4, 9.8, 10.1, 10.3, 9.9, 10.2, 10.6, 9.7};
static const double B[] = {8.1, 8.3, 7.9, 8.0, 8.4, 8.2, 7.8, 8.6, 8.05, 8.15};

static void matches_reference(void **state)
{
    (void)state;
    double lo, hi;
    assert_int_equal(ks_bootstrap_median_ratio(A, 9, B, 10, 1000, 7, 0.95, &lo, &hi), 0);
    REL(lo, 0.7794117647058825, 1e-12);
    REL(hi, 0.8316326530612242, 1e-12);
    ks_bootstrap_median_ratio(A, 9, B, 10, 2000, KS_STATS_DEFAULT_SEED, 0.95, &lo, &hi);
    REL(lo, 0.779126213592233, 1e-12);
    REL(hi, 0.8333333333333333, 1e-12);
}

static void deterministic_for_a_seed(void **state)
{
    (void)state;
    double lo1, hi1, lo2, hi2, lo3, hi3;
    ks_bootstrap_median_ratio(A, 9, B, 10, KS_BOOTSTRAP_RESAMPLES, 123, 0.95, &lo1, &hi1);
    ks_bootstrap_median_ratio(A, 9, B, 10, KS_BOOTSTRAP_RESAMPLES, 123, 0.95, &lo2, &hi2);
    assert_true(lo1 == lo2 && hi1 == hi2);
    /* the point estimate 8.125 / 10.1 lies inside */
    assert_true(lo1 < 8.125 / 10.1 && 8.125 / 10.1 < hi1);
    /* a narrower level gives a narrower interval from the same replicates */
    ks_bootstrap_median_ratio(A, 9, B, 10, KS_BOOTSTRAP_RESAMPLES, 123, 0.5, &lo3, &hi3);
    assert_true(lo3 >= lo1 && hi3 <= hi1 && lo3 < hi3);
    /* another seed draws other resamples (the bounds may or may not move: check the inputs
     * are order independent instead) */
    double Ar[9];
    for (int i = 0; i < 9; i++)
        Ar[i] = A[8 - i];
    ks_bootstrap_median_ratio(Ar, 9, B, 10, KS_BOOTSTRAP_RESAMPLES, 123, 0.95, &lo2, &hi2);
    assert_true(lo1 == lo2 && hi1 == hi2);
}

static void edges(void **state)
{
    (void)state;
    double lo, hi;
    const double c[] = {5, 5, 5, 5, 5};
    ks_bootstrap_median_ratio(c, 5, c, 5, 500, 1, 0.95, &lo, &hi);
    assert_true(lo == 1 && hi == 1);
    /* a baseline of zeros: every replicate is +inf (b > 0), never NaN */
    const double z[] = {0, 0, 0};
    ks_bootstrap_median_ratio(z, 3, c, 5, 200, 1, 0.95, &lo, &hi);
    assert_true(isinf(lo) && isinf(hi));
    ks_bootstrap_median_ratio(z, 3, z, 3, 200, 1, 0.95, &lo, &hi);
    assert_true(lo == 1 && hi == 1);
    assert_int_equal(ks_bootstrap_median_ratio(c, 5, NULL, 0, 200, 1, 0.95, &lo, &hi), -1);
    assert_true(isnan(lo) && isnan(hi));
    /* one sample per side: the only replicate is the ratio itself */
    const double one = 4, two = 6;
    ks_bootstrap_median_ratio(&one, 1, &two, 1, 100, 1, 0.95, &lo, &hi);
    assert_true(lo == 1.5 && hi == 1.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_reference),
        cmocka_unit_test(deterministic_for_a_seed),
        cmocka_unit_test(edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
