/* stats/stats_int.h: the xoshiro256** step and the bounded draw as inline functions, for
 * the bootstrap's inner loop (the same algorithm as ks_rng_next / ks_rng_below in rng.c,
 * which are defined from these). Private to stats/ and its tests. */
#ifndef KS_RNG_INLINE_H
#define KS_RNG_INLINE_H

#include "kinesift/stats.h"

static inline uint64_t ks_rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t ks_xoshiro_next(ks_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = ks_rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ks_rotl64(s[3], 45);
    return result;
}

/* The 128-bit product of a and b as (hi, lo). */
static inline void ks_mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
    unsigned __int128 m = (unsigned __int128)a * b;
    *hi = (uint64_t)(m >> 64);
    *lo = (uint64_t)m;
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
#endif
}

/* Lemire's multiply-shift with rejection: unbiased in [0, bound). */
static inline uint64_t ks_xoshiro_below(ks_rng *r, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    uint64_t hi, lo;
    ks_mul128(ks_xoshiro_next(r), bound, &hi, &lo);
    if (lo < bound) {
        uint64_t t = (0 - bound) % bound; /* 2^64 mod bound */
        while (lo < t)
            ks_mul128(ks_xoshiro_next(r), bound, &hi, &lo);
    }
    return hi;
}

#endif
