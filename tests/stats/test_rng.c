/* tests/stats/test_rng.c: the generator is the specified one. Expected values come from the
 * published splitmix64 test vector and from an independent Python implementation of
 * xoshiro256** and Lemire's bounded draw (docs/statistics.md, appendix). */
#include "ks_test.h"

#include <math.h>

#include "kinesift/stats.h"

static void seeding_is_splitmix64(void **state)
{
    (void)state;
    /* splitmix64 from 1234567: the widely published first outputs */
    ks_rng r;
    ks_rng_seed(&r, 1234567);
    assert_true(r.s[0] == UINT64_C(6457827717110365317));
    assert_true(r.s[1] == UINT64_C(3203168211198807973));
    assert_true(r.s[2] == UINT64_C(9817491932198370423));
    assert_true(r.s[3] == UINT64_C(4593380528125082431));
}

static void xoshiro_outputs(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 0);
    assert_true(ks_rng_next(&r) == UINT64_C(11091344671253066420));
    assert_true(ks_rng_next(&r) == UINT64_C(13793997310169335082));
    assert_true(ks_rng_next(&r) == UINT64_C(1900383378846508768));
    assert_true(ks_rng_next(&r) == UINT64_C(7684712102626143532));
    ks_rng_seed(&r, KS_STATS_DEFAULT_SEED);
    assert_true(ks_rng_next(&r) == UINT64_C(5285426111579857525));
    assert_true(ks_rng_next(&r) == UINT64_C(17789067738237672505));
}

static void bounded_draws(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 42);
    const uint64_t want[] = {0, 3, 6, 9, 9, 7, 7, 8, 7, 5};
    for (int i = 0; i < 10; i++)
        assert_true(ks_rng_below(&r, 10) == want[i]);
    /* a bound just above 2^63 rejects almost half the outputs: the rejection path */
    ks_rng_seed(&r, 42);
    const uint64_t big = (UINT64_C(1) << 63) + 1;
    assert_true(ks_rng_below(&r, big) == UINT64_C(9147776489032658738));
    assert_true(ks_rng_below(&r, big) == UINT64_C(7099593415032875292));
    assert_true(ks_rng_below(&r, big) == UINT64_C(6633989454467100377));
    assert_true(ks_rng_below(&r, 1) == 0);
}

static void bounded_draws_are_uniform(void **state)
{
    (void)state;
    /* chi-square over 7 cells, 70 000 draws: 6 degrees of freedom, 99.9 % point 22.46 */
    ks_rng r;
    ks_rng_seed(&r, 9);
    unsigned cnt[7] = {0};
    for (int i = 0; i < 70000; i++)
        cnt[ks_rng_below(&r, 7)]++;
    double chi = 0;
    for (int i = 0; i < 7; i++)
        chi += (cnt[i] - 10000.0) * (cnt[i] - 10000.0) / 10000.0;
    assert_true(chi < 22.46);
}

static void doubles_and_normals(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 3);
    double sum = 0, ss = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        double u = ks_rng_double(&r);
        assert_true(u >= 0 && u < 1);
        double z = ks_rng_normal(&r);
        sum += z;
        ss += z * z;
    }
    /* mean within 4 standard errors of 0, variance within 5 % of 1 */
    assert_true(fabs(sum / n) < 4 / sqrt(n));
    assert_true(fabs(ss / n - 1) < 0.05);
}

static void shuffle_is_a_permutation(void **state)
{
    (void)state;
    ks_rng r, r2;
    ks_rng_seed(&r, 11);
    ks_rng_seed(&r2, 11);
    int a[10], b[10], seen[10] = {0};
    for (int i = 0; i < 10; i++)
        a[i] = b[i] = i;
    ks_rng_shuffle(&r, a, 10);
    ks_rng_shuffle(&r2, b, 10);
    int moved = 0;
    for (int i = 0; i < 10; i++) {
        seen[a[i]]++;
        assert_int_equal(a[i], b[i]); /* same seed, same order */
        moved += a[i] != i;
    }
    for (int i = 0; i < 10; i++)
        assert_int_equal(seen[i], 1);
    assert_true(moved > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeding_is_splitmix64),
        cmocka_unit_test(xoshiro_outputs),
        cmocka_unit_test(bounded_draws),
        cmocka_unit_test(bounded_draws_are_uniform),
        cmocka_unit_test(doubles_and_normals),
        cmocka_unit_test(shuffle_is_a_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
