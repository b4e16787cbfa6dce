/* parser/numfast.h: fast paths of parser/number.c for the number forms that fill real traces
 * (short integers, microseconds with at most 3 fraction digits). Each gives exactly the result of
 * the full function (tests/parser/test_number.c compares them on millions of inputs) and hands
 * every other form to it. Internal to parser/. */
#ifndef KS_NUMFAST_H
#define KS_NUMFAST_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kinesift/parse.h"

/* ks_parse_int64 for the common short form -?[0-9]{1,18} (cannot overflow), else the full one. */
static inline int int64_of(const char *s, size_t len, int64_t *v)
{
    size_t i = len && s[0] == '-';
    if (len > i && len - i <= 18) {
        uint64_t acc = 0;
        size_t j = i;
        for (; j < len; j++) {
            unsigned d = (unsigned)((unsigned char)s[j] - '0');
            if (d > 9)
                break;
            acc = acc * 10 + d;
        }
        if (j == len) {
            *v = i ? -(int64_t)acc : (int64_t)acc;
            return KS_NUM_EXACT;
        }
    }
    return ks_parse_int64(s, len, v);
}

/* 1 when the 8 bytes at s are all decimal digits; their value in *v (first byte most
 * significant). The SWAR method of simdjson / Lemire. */
static inline int eight_digits(const char *s, uint64_t *v)
{
    uint64_t w;
    memcpy(&w, s, 8);
    if (((w & 0xF0F0F0F0F0F0F0F0ULL) | (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
        0x3333333333333333ULL)
        return 0;
    w = (w & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
    w = (w & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
    *v = (w & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
    return 1;
}

/* ks_parse_us_to_ns for -?[0-9]{1,16}(.[0-9]{1,3})? whose value fits (exact by construction),
 * else the full one. */
static inline int us_to_ns(const char *s, size_t len, int64_t *ns)
{
    static const uint64_t frac_scale[4] = {1, 100, 10, 1};
    size_t i = len && s[0] == '-', d0 = i;
    uint64_t acc = 0, v;
    while (len - i >= 8 && i - d0 < 16 && eight_digits(s + i, &v)) {
        acc = acc * 100000000 + v;
        i += 8;
    }
    while (i < len && i - d0 < 17 && (unsigned)((unsigned char)s[i] - '0') <= 9)
        acc = acc * 10 + (unsigned)(s[i++] - '0');
    size_t nint = i - d0;
    if (nint == 0 || nint > 16)
        return ks_parse_us_to_ns(s, len, ns);
    uint64_t frac = 0;
    size_t nfrac = 0;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && nfrac < 4 && (unsigned)((unsigned char)s[i] - '0') <= 9) {
            frac = frac * 10 + (unsigned)(s[i++] - '0');
            nfrac++;
        }
        if (nfrac == 0 || nfrac > 3)
            return ks_parse_us_to_ns(s, len, ns);
    }
    if (i != len)
        return ks_parse_us_to_ns(s, len, ns);
    uint64_t u = acc * 1000 + frac * frac_scale[nfrac]; /* < 10^19: no wrap */
    int neg = d0 == 1;
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
        return ks_parse_us_to_ns(s, len, ns);
    *ns = neg ? (int64_t)(0 - u) : (int64_t)u;
    return KS_NUM_EXACT;
}

/* strtod_l(s, NULL, loc) for the text of a JSON number (len < 64), loc a C locale. The forms
 * launch args and counters take, -?[0-9]+(.[0-9]+)? with at most 19 digits, a value below 2^53 and
 * at most 22 fraction digits, are read by the exact fast path of Clinger (1990): the digits and the
 * power of ten are both exact doubles, so one correctly rounded division gives what strtod gives;
 * every other form goes to strtod_l. */
static inline double double_of(const char *s, size_t len, locale_t loc)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = len && s[0] == '-', d0 = i, nfrac = 0;
    uint64_t m = 0;
    while (i < len && (unsigned)((unsigned char)s[i] - '0') <= 9 && i - d0 < 19)
        m = m * 10 + (unsigned)(s[i++] - '0');
    size_t nint = i - d0;
    if (nint && i < len && s[i] == '.') {
        size_t f0 = ++i;
        while (i < len && (unsigned)((unsigned char)s[i] - '0') <= 9 && nint + (i - f0) < 19)
            m = m * 10 + (unsigned)(s[i++] - '0');
        nfrac = i - f0;
        if (!nfrac)
            nint = 0; /* "1.": not a JSON number */
    }
    if (nint && i == len && m <= (1ULL << 53) && nfrac <= 22) {
        double d = (double)m / p10[nfrac];
        return d0 ? -d : d;
    }
    char buf[64];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return strtod_l(buf, NULL, loc);
}

#endif
