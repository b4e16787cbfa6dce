/* stats/rng.c: the one generator of the statistics (docs/statistics.md section 3):
 * xoshiro256** 1.0 (Blackman & Vigna), its state filled by splitmix64 from a 64-bit seed, with
 * unbiased bounded draws by Lemire's multiply-shift method with rejection. Fixed and specified
 * so that every platform draws the same numbers for the same seed. */
#include "kinesift/stats.h"

#include <math.h>

#include "stats/stats_int.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void ks_rng_seed(ks_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t ks_rng_next(ks_rng *r)
{
    return ks_xoshiro_next(r);
}

uint64_t ks_rng_below(ks_rng *r, uint64_t bound)
{
    return ks_xoshiro_below(r, bound);
}

double ks_rng_double(ks_rng *r)
{
    return (double)(ks_rng_next(r) >> 11) * 0x1.0p-53;
}

double ks_rng_normal(ks_rng *r)
{
    double u, v, s;
    do {
        u = 2 * ks_rng_double(r) - 1;
        v = 2 * ks_rng_double(r) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    return u * sqrt(-2 * log(s) / s); /* the second deviate (v) is not kept: simpler state */
}

void ks_rng_shuffle(ks_rng *r, int *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)ks_rng_below(r, i);
        int t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}
