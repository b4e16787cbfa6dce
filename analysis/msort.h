/* analysis/msort.h: a stable natural merge sort, generated per element type so that the order
 * test and the moves are inlined (qsort's callback and byte copies cost more than the sort).
 * Made for what the analysis sorts: events in file order (already sorted, or nearly: Kineto writes
 * complete events in end order), and concatenations of a few sorted runs (one per track).
 *  - sorted input: one scan, no memory;
 *  - otherwise the maximal non-descending runs are found (short ones are extended to
 *    KS_MSORT_MINRUN elements by insertion sort) and merged pairwise, log2(runs) passes through a
 *    scratch array of n elements; two adjacent runs already in order are copied, not merged.
 *
 *     KS_MSORT_DEFINE(name, type, before)
 * defines `static inline void name(type *v, size_t n)`; before(const type *x, const type *y) is
 * nonzero when x must come before y (a strict order). Equal elements keep their order. Internal. */
#ifndef KS_MSORT_H
#define KS_MSORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "common/util.h"

#define KS_MSORT_MINRUN 32

#define KS_MSORT_DEFINE(name, type, before)                                                        \
    /* v[lo, mid) is sorted: insert v[mid, hi) into it */                                         \
    static inline void name##_insert(type *v, size_t lo, size_t mid, size_t hi)                   \
    {                                                                                              \
        for (size_t k = mid; k < hi; k++) {                                                        \
            type x = v[k];                                                                         \
            size_t p = k;                                                                          \
            while (p > lo && before(&x, &v[p - 1])) {                                              \
                v[p] = v[p - 1];                                                                   \
                p--;                                                                               \
            }                                                                                      \
            v[p] = x;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* dst[lo, hi) = the merge of the sorted runs src[lo, mid) and src[mid, hi) */                 \
    static inline void name##_merge(const type *src, size_t lo, size_t mid, size_t hi, type *dst) \
    {                                                                                              \
        if (mid >= hi || !before(&src[mid], &src[mid - 1])) {                                      \
            memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src);                                   \
            return;                                                                                \
        }                                                                                          \
        size_t i = lo, j = mid, o = lo;                                                            \
        while (i < mid && j < hi)                                                                  \
            dst[o++] = before(&src[j], &src[i]) ? src[j++] : src[i++];                             \
        memcpy(dst + o, src + i, (mid - i) * sizeof *src);                                         \
        o += mid - i;                                                                              \
        memcpy(dst + o, src + j, (hi - j) * sizeof *src);                                          \
    }                                                                                              \
    /* end of the run starting at lo, extended to KS_MSORT_MINRUN elements when shorter */         \
    static inline size_t name##_run(type *v, size_t lo, size_t n)                                 \
    {                                                                                              \
        size_t e = lo + 1;                                                                         \
        while (e < n && !before(&v[e], &v[e - 1]))                                                 \
            e++;                                                                                   \
        if (e - lo < KS_MSORT_MINRUN && e < n) {                                                   \
            size_t to = n - lo < KS_MSORT_MINRUN ? n : lo + KS_MSORT_MINRUN;                       \
            name##_insert(v, lo, e, to);                                                           \
            e = to;                                                                                \
        }                                                                                          \
        return e;                                                                                  \
    }                                                                                              \
    static inline void name(type *v, size_t n)                                                     \
    {                                                                                              \
        size_t i = 1;                                                                              \
        while (i < n && !before(&v[i], &v[i - 1]))                                                 \
            i++;                                                                                   \
        if (i >= n)                                                                                \
            return;                                                                                \
        /* run boundaries: every run but the last holds at least KS_MSORT_MINRUN elements */       \
        size_t *b = ks_xmalloc(ks_mul(n / KS_MSORT_MINRUN + 2, sizeof *b));                        \
        size_t nruns = 0;                                                                          \
        b[0] = 0;                                                                                  \
        for (size_t lo = 0; lo < n; nruns++)                                                       \
            lo = b[nruns + 1] = name##_run(v, lo, n);                                              \
        type *tmp = nruns > 1 ? ks_big_alloc(ks_mul(n, sizeof *tmp)) : NULL;                           \
        type *src = v, *dst = tmp;                                                                 \
        while (nruns > 1) {                                                                        \
            size_t o = 0;                                                                          \
            for (size_t r = 0; r < nruns; r += 2, o++) {                                           \
                size_t hi = r + 2 <= nruns ? b[r + 2] : b[r + 1];                                  \
                name##_merge(src, b[r], b[r + 1], hi, dst);                                        \
                b[o] = b[r];                                                                       \
            }                                                                                      \
            b[o] = n;                                                                              \
            nruns = o;                                                                             \
            type *t = src;                                                                         \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != v)                                                                              \
            memcpy(v, src, n * sizeof *v);                                                         \
        if (tmp)                                                                                   \
            ks_big_free(tmp, n * sizeof *tmp);                                                     \
        free(b);                                                                                   \
    }

#endif
