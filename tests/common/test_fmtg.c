/* tests/common/test_fmtg.c: ks_fmt_g (common/fmtg.c) writes what snprintf's "%.*g" writes: the
 * edge cases (zeros of both signs, subnormals, the smallest and largest doubles, the "%e"/"%f"
 * boundaries 1e-5 and 1e-4, 10^prec and just below it, values that round up to the next power of
 * ten, exact halves at the last digit that round to even, 1e15+1, 1e21, NaN and infinities), every
 * power of ten and of two, integers and integers over 1e9 (FLOPs and GFLOPs), and millions of
 * drawn doubles (random bits over every exponent, and values near the halves) at every precision
 * from 1 to 17, 6 and 12 (the writers' two) most. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ks_test.h"
#include "common/fmtg.h"

static uint64_t next(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x ^ (*x >> 29);
}

static long checked;

/* ks_fmt_g against snprintf for one value and precision; the failing value named */
static void same(double v, int prec)
{
    char want[64], got[40];
    memset(got, 'x', sizeof got);
    int wn = snprintf(want, sizeof want, "%.*g", prec, v);
    size_t gn = ks_fmt_g(got, v, prec);
    if ((size_t)wn != gn || strcmp(want, got) != 0) {
        char bits[64];
        snprintf(bits, sizeof bits, "%a", v);
        fail_msg("%%.%dg of %s: snprintf \"%s\", ks_fmt_g \"%s\" (%zu)", prec, bits, want, got, gn);
    }
    checked++;
}

static void all_precisions(double v)
{
    for (int p = 1; p <= 17; p++) {
        same(v, p);
        same(-v, p);
    }
}

static void edge_cases(void **state)
{
    (void)state;
    const double edges[] = {0.0, -0.0, 1.0, 0.5, 1.5, 2.5, 0.1, 0.2, 0.3, 1e-7, 1e-5, 1e-4, 9.99995e-5,
                            0.000099999999999995, 1e21, 1e22, 1e23, 1e15 + 1, 1e16 + 2, 9007199254740993.0,
                            999999.5, 9999995.0, 999999.4999, 99999.95, 999999999999.5, 1234567890125.0,
                            1234567890135.0, 123456789012.5, 9.9999999999995, 0.99999999999995, 3.0e-16,
                            1e-16, 1e-17, 1e38, 1e39, 3.4e38, DBL_MIN, DBL_MAX, DBL_EPSILON, DBL_TRUE_MIN,
                            4.9e-324, 2.2250738585072009e-308, 123.456, 1.0 / 3.0, 2.0 / 3.0, M_PI, 6.02214076e23,
                            1.602176634e-19, 65536.0, 4294967296.0, 18446744073709551616.0};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        all_precisions(edges[i]);
    for (int p = 1; p <= 17; p++) {
        same(NAN, p);
        same(-NAN, p);
        same(INFINITY, p);
        same(-INFINITY, p);
    }
    /* precision 0 (as 1, in C) is snprintf's */
    same(1.0 / 3.0, 0);
    same(0.0, 0);
}

static void powers(void **state)
{
    (void)state;
    for (int e = -330; e <= 310; e++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", e);
        double v = strtod(t, NULL);
        all_precisions(v);
        all_precisions(nextafter(v, 0));
        all_precisions(nextafter(v, INFINITY));
    }
    for (int e = -1074; e <= 1023; e++) {
        double v = ldexp(1.0, e);
        all_precisions(v);
        all_precisions(nextafter(v, 0));
    }
    /* 10^prec and the values that round up to it, where the exponent grows by one */
    for (int p = 1; p <= 17; p++) {
        double ten = pow(10, p), d = ten;
        for (int i = 0; i < 64; i++)
            d = nextafter(d, 0);
        for (int i = 0; i < 128; i++, d = nextafter(d, INFINITY)) {
            same(d, p);
            same(d / 1e9, p);
            same(d * 1e-20, p);
            same(d - 0.5, p);
        }
    }
}

/* the figures the reports write: integers (bytes, FLOPs) and integers over 1e9 (GFLOPs), rates */
static void integers_and_ratios(void **state)
{
    (void)state;
    uint64_t x = 42;
    for (int i = 0; i < 100000; i++) {
        uint64_t r = next(&x);
        double v = (double)(r >> (next(&x) % 64));
        same(v, 12);
        same(v / 1e9, 12);
        same(v, 6);
        same(v / 1e9, 6);
        double q = (double)(next(&x) % 1000000000) / (double)(next(&x) % 1000000 + 1);
        same(q, 12);
        same(q, 6);
        same(q / 1000.0, 12);
    }
    /* exact halves at the last digit: n + 0.5 over powers of two, integers ending in 5 */
    for (int i = 0; i < 100000; i++) {
        uint64_t n = next(&x) % 100000000000000ULL;
        same((double)n + 0.5, 12);
        same((double)(n * 10 + 5), 12);
        same((double)(n % 10000000) + 0.5, 6);
        same((double)(n % 100000000 * 10 + 5), 6);
        same(ldexp((double)(n | 1), -(int)(next(&x) % 60)), 12);
    }
}

static void drawn_bits(void **state)
{
    (void)state;
    uint64_t x = 7;
    for (int i = 0; i < 600000; i++) {
        uint64_t b = next(&x);
        double v;
        memcpy(&v, &b, sizeof v);
        same(v, 12);
        same(v, 6);
        if (i % 8 == 0)
            same(v, (int)(next(&x) % 17) + 1);
    }
    /* mantissa bits drawn, exponents where the arithmetic is exact (1e-16 .. 1e38) */
    for (int i = 0; i < 600000; i++) {
        double v = ldexp((double)(next(&x) >> 11) / 9007199254740992.0 + 1.0, (int)(next(&x) % 180) - 55);
        same(v, 12);
        same(v, 6);
        same(v, (int)(next(&x) % 17) + 1);
    }
    assert_true(checked > 3000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edge_cases),
        cmocka_unit_test(powers),
        cmocka_unit_test(integers_and_ratios),
        cmocka_unit_test(drawn_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
