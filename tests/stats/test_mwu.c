/* tests/stats/test_mwu.c: the two-sided Mann-Whitney U test against textbook examples and
 * exact values (counts of arrangements by hand or by tests/validate/stats_ref.py, which
 * computes them with exact integers). */
#include "ks_test.h"

#include <math.h>

#include "kinesift/stats.h"

#define REL(a, b, tol) assert_true(fabs((a) - (b)) <= (tol) * fabs(b))

static void exact_small_textbook(void **state)
{
    (void)state;
    /* The males/females example of the U test (also scipy's documentation): U = 17 of 20;
     * P(U <= 3) = (1 + 1 + 2 + 3) / C(9, 4) = 7 / 126, two-sided p = 1/9. */
    double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    ks_mwu m;
    assert_int_equal(ks_mwu_test(males, 5, females, 4, &m), 0);
    assert_true(m.exact && !m.ties);
    assert_true(m.u_a == 17 && m.u_b == 3);
    REL(m.p, 1.0 / 9, 1e-12);
    assert_string_equal(ks_mwu_name(&m), "mwu-exact");
    /* swapping the sides gives the same two-sided p */
    ks_mwu s;
    ks_mwu_test(females, 4, males, 5, &s);
    assert_true(s.u_a == 3);
    REL(s.p, 1.0 / 9, 1e-12);
}

static void exact_separation_and_min_p(void **state)
{
    (void)state;
    /* complete separation: p is the smallest attainable 2 / C(n_a + n_b, n_a) */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    ks_mwu m;
    ks_mwu_test(a, 3, b, 3, &m);
    REL(m.p, 0.1, 1e-12);
    REL(ks_mwu_min_p(3, 3), 0.1, 1e-12);
    REL(ks_mwu_min_p(4, 4), 2.0 / 70, 1e-12);
    REL(ks_mwu_min_p(5, 5), 2.0 / 252, 1e-12);
    REL(ks_mwu_min_p(9, 9), 2.0 / 48620, 1e-12);
    REL(ks_mwu_min_p(30, 30), 1.6911233892144735e-17, 1e-9);
    assert_true(ks_mwu_min_p(1, 1) == 1);
    /* 30 vs 30 separated: the exact test reaches the minimum */
    double x[30], y[30];
    for (int i = 0; i < 30; i++) {
        x[i] = 100 + i;
        y[i] = 200 + i;
    }
    ks_mwu_test(x, 30, y, 30, &m);
    assert_true(m.exact);
    REL(m.p, 1.6911233892144735e-17, 1e-9);
}

static void exact_medium(void **state)
{
    (void)state;
    /* 12 vs 15, no ties: U = 100; exact p = 0.6483031961831262 (stats_ref.py, exact
     * fraction of arrangements) */
    double a[] = {62.29, 74.179, 79.519, 94.245, 73.99, 92.232,
                  2.901, 46.562, 94.336, 64.897, 90.09, 11.321};
    double b[] = {66.907, 44.657, 74.376, 77.394, 21.311, 41.673, 47.948, 111.635,
                  96.573, 35.96, 99.715, 33.877, 81.745, 32.67, 20.177};
    ks_mwu m;
    ks_mwu_test(a, 12, b, 15, &m);
    assert_true(m.exact);
    assert_true(m.u_a == 100);
    REL(m.p, 0.6483031961831262, 1e-10);
}

static void normal_with_ties_textbook(void **state)
{
    (void)state;
    /* Hollander & Wolfe's depression-scale data (R's wilcox.test example, unpaired):
     * W = 58, ties present, R reports p-value = 0.1329 (normal approximation with
     * correction); exact value 0.13291945818531886 from the formula in stats_ref.py. */
    double x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
    double y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
    ks_mwu m;
    ks_mwu_test(x, 9, y, 9, &m);
    assert_true(!m.exact && m.ties);
    assert_true(m.u_a == 58);
    REL(m.p, 0.13291945818531886, 1e-9);
    assert_true(fabs(m.p - 0.1329) < 5e-5);
    assert_string_equal(ks_mwu_name(&m), "mwu-normal");
}

static void normal_tie_correction(void **state)
{
    (void)state;
    /* many ties: U = 7.5; tie groups 2 (x2), 3 (x4), 4 (x3), 5 (x3), 7 (x2): tie term
     * 6 + 60 + 24 + 24 + 6 = 120; sigma^2 = 72/12 (18 - 120/272);
     * z = (|7.5 - 36| - 0.5) / sigma = 2.727939278646863, p = 0.006373133838085877 */
    double a[] = {1, 2, 2, 3, 3, 3, 4, 5}, b[] = {3, 4, 4, 5, 5, 6, 7, 7, 8};
    ks_mwu m;
    ks_mwu_test(a, 8, b, 9, &m);
    assert_true(!m.exact);
    assert_true(m.u_a == 7.5);
    REL(m.z, 2.727939278646863, 1e-12);
    REL(m.p, 0.006373133838085877, 1e-9);
}

static void normal_large_and_degenerate(void **state)
{
    (void)state;
    /* more than 50 per side: the normal approximation, even without ties */
    double males[] = {19, 22, 16, 29, 24};
    double big_a[55], big_b[55];
    for (int i = 0; i < 55; i++) {
        big_a[i] = i;
        big_b[i] = i + 0.5;
    }
    ks_mwu m;
    ks_mwu_test(big_a, 55, big_b, 55, &m);
    assert_true(!m.exact && !m.ties);
    assert_true(m.p > 0.8); /* U = 1485 of 3025: no difference */
    /* identical values on both sides: p = 1, no division by zero */
    double same[] = {5, 5, 5}, same2[] = {5, 5};
    ks_mwu_test(same, 3, same2, 2, &m);
    assert_true(m.p == 1);
    assert_int_equal(ks_mwu_test(males, 5, NULL, 0, &m), -1);
    assert_true(isnan(m.p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_small_textbook),
        cmocka_unit_test(exact_separation_and_min_p),
        cmocka_unit_test(exact_medium),
        cmocka_unit_test(normal_with_ties_textbook),
        cmocka_unit_test(normal_tie_correction),
        cmocka_unit_test(normal_large_and_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
