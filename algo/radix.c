/* algo/radix.c: ks_sort_ns (intervals.h), the sort behind every exact percentile: a least
 * significant digit radix sort, one byte per pass, passes whose byte is the same in every value
 * skipped (durations rarely use more than 5 of the 8 bytes). Linear in n where qsort with a
 * comparison callback is n log n calls; short arrays go through insertion sort. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/intervals.h"
#include "common/util.h"

#define RADIX_MIN 64 /* below this, insertion sort */

static void insertion_sort(ks_ns *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        ks_ns x = v[i];
        size_t p = i;
        while (p > 0 && v[p - 1] > x) {
            v[p] = v[p - 1];
            p--;
        }
        v[p] = x;
    }
}

/* the value as an unsigned key with the same order */
static inline uint64_t key(ks_ns x)
{
    return (uint64_t)x ^ (UINT64_C(1) << 63);
}

void ks_sort_ns(ks_ns *v, size_t n)
{
    if (n < RADIX_MIN) {
        insertion_sort(v, n);
        return;
    }
    size_t (*count)[256] = ks_xcalloc(8, sizeof *count);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key(v[i]);
        for (int d = 0; d < 8; d++)
            count[d][(k >> (8 * d)) & 0xff]++;
    }
    ks_ns *tmp = ks_big_alloc(ks_mul(n, sizeof *tmp));
    ks_ns *src = v, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        size_t *c = count[d];
        if (c[(key(v[0]) >> (8 * d)) & 0xff] == n)
            continue; /* every value has the same byte here */
        size_t pos = 0;
        for (int b = 0; b < 256; b++) {
            size_t m = c[b];
            c[b] = pos;
            pos += m;
        }
        for (size_t i = 0; i < n; i++)
            dst[c[(key(src[i]) >> (8 * d)) & 0xff]++] = src[i];
        ks_ns *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    ks_big_free(tmp, n * sizeof *tmp);
    free(count);
}
