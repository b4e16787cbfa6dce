/* common/fmtg.c: "%.Pg" without printf (see fmtg.h). A double is m * 2^e with an integer m below
 * 2^53; scaled by 10^s so that prec digits stand before the point, it is q + r/d in integers of
 * 128 bits: q's digits, rounded by comparing 2r with d (a half to even), and the decimal exponent
 * x of the rounded value choose between "%e" and "%f" as C's "%g" does (x < -4 or x >= prec:
 * exponent form), trailing zeros of the fraction dropped. 10^s is 5^s * 2^s, so |s| <= 27 keeps
 * every product below 2^128; outside that, snprintf. */
#include "common/fmtg.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "00" to "99", for two digits at a time */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

#define MAX_SCALE 27

/* the k (at most 9) last decimal digits of v into d[0, k), zeros before them, two at a time */
static inline void digits(char *d, uint32_t v, int k)
{
    for (; k >= 2; k -= 2) {
        memcpy(d + k - 2, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (k)
        d[0] = (char)('0' + v % 10);
}

size_t ks_fmt_g(char *b, double v, int prec)
{
#if defined(__SIZEOF_INT128__) && defined(__STDC_IEC_559__)
    __extension__ typedef unsigned __int128 u128;
    static const uint64_t p10[19] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                                     100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                                     1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
                                     1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
                                     1000000000000000000ULL};
    static const uint64_t p5s[MAX_SCALE + 1] = {
        1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL, 9765625ULL,
        48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL, 152587890625ULL,
        762939453125ULL, 3814697265625ULL, 19073486328125ULL, 95367431640625ULL, 476837158203125ULL,
        2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL, 298023223876953125ULL,
        1490116119384765625ULL, 7450580596923828125ULL}; /* 5^s: 5^27 < 2^64 */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63), be = (int)((bits >> 52) & 0x7ff);
    uint64_t m = bits & ((1ULL << 52) - 1);
    size_t n = 0;
    if (prec < 1 || prec > 17 || be == 0x7ff || (be == 0 && m))
        goto slow; /* NaN, infinities, subnormals */
    if (neg)
        b[n++] = '-';
    if (be == 0) { /* zero */
        b[n++] = '0';
        b[n] = 0;
        return n;
    }
    m |= 1ULL << 52;
    int e = be - 1075; /* v = m * 2^e, 2^(be-1023) <= |v| < 2^(be-1022) */
    /* x: floor(log10 |v|), estimated from the binary exponent (78913 / 2^18 ~ log10 2) and set
     * right by the digits' count below */
    long t = (long)(be - 1023) * 78913;
    int x = (int)(t >= 0 ? t >> 18 : -((-t + (1L << 18) - 1) >> 18));
    uint64_t lo = p10[prec - 1], hi = p10[prec], q = 0;
    int up = 0;
    for (int tries = 0;; tries++) {
        int s = prec - 1 - x; /* |v| * 10^s has prec digits before the point */
        if (tries > 2 || s > MAX_SCALE || s < -MAX_SCALE)
            goto slow;
        u128 num, den;
        if (s >= 0) {
            num = (u128)m;
            num *= p5s[s]; /* below 2^53 * 5^27 < 2^116 */
            int sh = e + s;
            if (sh >= 0) {
                if (sh > 60 || (num >> (127 - sh)))
                    goto slow;
                num <<= sh;
                q = num >> 64 ? UINT64_MAX : (uint64_t)num;
                up = 0;
            } else {
                int k = -sh;
                if (k > 126)
                    goto slow;
                u128 r = num & (((u128)1 << k) - 1), half = (u128)1 << (k - 1);
                u128 qq = num >> k;
                q = qq >> 64 ? UINT64_MAX : (uint64_t)qq;
                up = r > half || (r == half && (q & 1));
            }
        } else {
            uint64_t p5 = p5s[-s];
            int sh = e + s; /* v / 10^-s = m * 2^(e+s) / 5^-s */
            if (sh >= 0) {
                if (sh > 70)
                    goto slow;
                num = (u128)m << sh;
                den = p5;
            } else {
                if (-sh > 64)
                    goto slow;
                num = m;
                den = (u128)p5 << -sh;
            }
            u128 qq = num / den, r = num % den;
            q = qq >> 64 ? UINT64_MAX : (uint64_t)qq;
            up = 2 * r > den || (2 * r == den && (q & 1));
        }
        if (q >= hi)
            x++;
        else if (q < lo)
            x--;
        else
            break;
    }
    q += (uint64_t)up;
    if (q == hi) { /* 9.99...95 rounds to 10: one digit more, the exponent with it */
        q = lo;
        x++;
    }
    char d[20];
    if (prec > 8) { /* the low 8 digits (two halves of 4) and the others apart, in 32-bit arithmetic */
        uint32_t low = (uint32_t)(q % 100000000u), a = low / 10000, b = low % 10000;
        char *e = d + prec - 8;
        memcpy(e, digit_pairs + 2 * (a / 100), 2);
        memcpy(e + 2, digit_pairs + 2 * (a % 100), 2);
        memcpy(e + 4, digit_pairs + 2 * (b / 100), 2);
        memcpy(e + 6, digit_pairs + 2 * (b % 100), 2);
        digits(d, (uint32_t)(q / 100000000u), prec - 8);
    } else
        digits(d, (uint32_t)q, prec);
    if (x < -4 || x >= prec) { /* d.ddde+XX */
        int nd = prec;
        while (nd > 1 && d[nd - 1] == '0')
            nd--;
        b[n++] = d[0];
        if (nd > 1) {
            b[n++] = '.';
            memcpy(b + n, d + 1, (size_t)nd - 1);
            n += (size_t)nd - 1;
        }
        b[n++] = 'e';
        b[n++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100) {
            b[n++] = (char)('0' + ax / 100);
            ax %= 100;
        }
        b[n++] = (char)('0' + ax / 10);
        b[n++] = (char)('0' + ax % 10);
    } else if (x >= 0) { /* ddd.ddd: x + 1 digits before the point */
        int nd = prec;
        while (nd > x + 1 && d[nd - 1] == '0')
            nd--;
        memcpy(b + n, d, (size_t)x + 1);
        n += (size_t)x + 1;
        if (nd > x + 1) {
            b[n++] = '.';
            memcpy(b + n, d + x + 1, (size_t)(nd - x - 1));
            n += (size_t)(nd - x - 1);
        }
    } else { /* 0.000ddd */
        int nd = prec;
        while (nd > 1 && d[nd - 1] == '0')
            nd--;
        b[n++] = '0';
        b[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            b[n++] = '0';
        memcpy(b + n, d, (size_t)nd);
        n += (size_t)nd;
    }
    b[n] = 0;
    return n;
slow:
#endif
    return (size_t)snprintf(b, 32, "%.*g", prec, v);
}
