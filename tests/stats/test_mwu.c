/* tests/stats/test_mwu.c: the two-sided Mann-Whitney U test against textbook examples and
 * exact values (counts of arrangements by hand or by tests/validate/stats_ref.py, which
 * computes them with exact integers). */
#include "ks_test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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

static void exact_with_ties_textbook(void **state)
{
    (void)state;
    /* Hollander & Wolfe's depression-scale data (R's wilcox.test example, unpaired): W = 58,
     * ties present. R's normal approximation gives 0.1329; the exact permutation p given the
     * ties counts the 48 620 ways to choose side a: 6 316 lie as far from the mean U (40.5) as
     * 58 does, p = 6316/48620 (enumerated by hand in Python, itertools.combinations). */
    double x[] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
    double y[] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
    ks_mwu m;
    ks_mwu_test(x, 9, y, 9, &m);
    assert_true(m.exact && m.ties);
    assert_true(m.u_a == 58);
    REL(m.p, 6316.0 / 48620, 1e-12);
    assert_string_equal(ks_mwu_name(&m), "mwu-exact");
    /* many ties: U = 7.5 of 72; 129 of the 24 310 choices are as far from 36 */
    double a[] = {1, 2, 2, 3, 3, 3, 4, 5}, b[] = {3, 4, 4, 5, 5, 6, 7, 7, 8};
    ks_mwu_test(a, 8, b, 9, &m);
    assert_true(m.exact && m.ties && m.u_a == 7.5);
    REL(m.p, 129.0 / 24310, 1e-12);
}

/* the exact p with ties equals the enumeration of every choice of side a, on random samples
 * of few distinct values (many ties), sizes 1..7 a side */
static double enumerate_p(const double *a, size_t na, const double *b, size_t nb)
{
    double pool[16], r[16];
    size_t n = na + nb;
    for (size_t i = 0; i < na; i++)
        pool[i] = a[i];
    for (size_t i = 0; i < nb; i++)
        pool[na + i] = b[i];
    for (size_t i = 0; i < n; i++) { /* mid-rank: 1 + below + (equal - 1) / 2 */
        double below = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            below += pool[j] < pool[i];
            equal += pool[j] == pool[i];
        }
        r[i] = 1 + below + (equal - 1) / 2;
    }
    double ua = 0, mean = (double)na * (double)nb / 2, far, hit = 0, all = 0;
    for (size_t i = 0; i < na; i++)
        ua += r[i];
    ua -= (double)na * (double)(na + 1) / 2;
    far = fabs(ua - mean);
    for (unsigned mask = 0; mask < 1u << n; mask++) {
        if ((size_t)__builtin_popcount(mask) != na)
            continue;
        double u = 0;
        for (size_t i = 0; i < n; i++)
            if (mask >> i & 1)
                u += r[i];
        u -= (double)na * (double)(na + 1) / 2;
        all++;
        hit += fabs(u - mean) >= far - 1e-9;
    }
    return hit / all;
}

static void exact_with_ties_enumerated(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int t = 0; t < 300; t++) {
        double a[8], b[8];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t na = 1 + (x >> 33) % 7, nb = 1 + (x >> 40) % 7;
        int distinct = 2 + (int)((x >> 50) % 4);
        for (size_t i = 0; i < na + nb; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            double v = (double)((x >> 33) % (uint64_t)distinct);
            if (i < na)
                a[i] = v;
            else
                b[i - na] = v;
        }
        ks_mwu m;
        ks_mwu_test(a, na, b, nb, &m);
        assert_true(m.exact);
        double want = enumerate_p(a, na, b, nb);
        if (fabs(m.p - want) > 1e-12 * (want > 1e-300 ? want : 1))
            fail_msg("sizes %zu, %zu: p %.17g, enumerated %.17g", na, nb, m.p, want);
    }
}

static void normal_tie_correction(void **state)
{
    (void)state;
    /* more than 50 a side with ties: the normal approximation. Side a is 1, 2, 2, 3, 3, 3, 4, 5
     * seven times (56), side b 3, 4, 4, 5, 5, 6, 7, 7, 8 seven times (63): U_a = 49 * 7.5 =
     * 367.5 (every copy of a pair of the 8 x 9 sample counts again), of mn = 3528. The tie
     * term sums t^3 - t over the values' counts t (7 times those of the small sample), and
     * sigma^2 = mn/12 (n + 1 - ties / (n (n - 1))) with n = 119, z with the continuity
     * correction: the formula of docs/statistics.md, worked here from the counts. */
    double a[56], b[63];
    double a0[] = {1, 2, 2, 3, 3, 3, 4, 5}, b0[] = {3, 4, 4, 5, 5, 6, 7, 7, 8};
    for (int c = 0; c < 7; c++) {
        memcpy(a + 8 * c, a0, sizeof a0);
        memcpy(b + 9 * c, b0, sizeof b0);
    }
    double ties = 0;
    for (int v = 1; v <= 8; v++) {
        double t = 0;
        for (int i = 0; i < 56; i++)
            t += a[i] == v;
        for (int i = 0; i < 63; i++)
            t += b[i] == v;
        ties += t * t * t - t;
    }
    double mn = 56.0 * 63, n = 119;
    double sigma = sqrt(mn / 12 * ((n + 1) - ties / (n * (n - 1))));
    double z = (fabs(367.5 - mn / 2) - 0.5) / sigma;
    ks_mwu m;
    ks_mwu_test(a, 56, b, 63, &m);
    assert_true(!m.exact && m.ties);
    assert_true(m.u_a == 367.5);
    REL(m.z, z, 1e-12);
    REL(m.p, erfc(z / sqrt(2.0)), 1e-12);
    assert_string_equal(ks_mwu_name(&m), "mwu-normal");
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
        cmocka_unit_test(exact_with_ties_textbook),
        cmocka_unit_test(exact_with_ties_enumerated),
        cmocka_unit_test(normal_tie_correction),
        cmocka_unit_test(normal_large_and_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
