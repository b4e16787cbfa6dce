/* algo/msort.h: a stable natural merge sort, generated per element type so that the order
 * test and the moves are inlined (qsort's callback and byte copies cost more than the sort).
 * Made for what the analysis sorts: events in file order (already sorted, or nearly: Kineto writes
 * complete events in end order), and concatenations of a few sorted runs (one per track).
 *  - sorted input: one scan, no memory;
 *  - otherwise the maximal non-descending runs are found (short ones are extended to
 *    KS_MSORT_MINRUN elements by insertion sort) and merged pairwise in place, log2(runs) passes.
 *    A merge first leaves where they are the head of the left run that is already before the right
 *    run and the tail of the right run already after the left one (two binary searches), then
 *    copies the shorter of the two middles out and merges into the gap (forward from a copied left
 *    part, backward from a copied right part), as timsort does. Two runs already in order cost one
 *    comparison. Scratch: the longest such middle, not n elements: on Kineto's order (a parent
 *    written after its children) that is the few parents that move, so sorting a track's slices
 *    no longer doubles their memory (docs/performance.md); on random input at most n / 2.
 *
 *     KS_MSORT_DEFINE(name, type, before)
 * defines `static inline void name(type *v, size_t n)`; before(const type *x, const type *y) is
 * nonzero when x must come before y (a strict order). Equal elements keep their order.
 *     KS_MSORT_DEFINE_CTX(name, type, ctxtype, before)
 * defines `static inline void name(const ctxtype *c, type *v, size_t n)`, for an order that needs
 * more than the elements (indices sorted by what they point at): before(c, x, y). Internal. */
#ifndef KS_MSORT_H
#define KS_MSORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "common/util.h"

#define KS_MSORT_MINRUN 32

#define KS_MSORT_DEFINE_CTX(name, type, ctxtype, before)                                           \
    /* v[lo, mid) is sorted: insert v[mid, hi) into it */                                          \
    static inline void name##_insert(const ctxtype *c, type *v, size_t lo, size_t mid, size_t hi)  \
    {                                                                                              \
        for (size_t k = mid; k < hi; k++) {                                                        \
            type x = v[k];                                                                         \
            size_t p = k;                                                                          \
            while (p > lo && before(c, &x, &v[p - 1])) {                                           \
                v[p] = v[p - 1];                                                                   \
                p--;                                                                               \
            }                                                                                      \
            v[p] = x;                                                                              \
        }                                                                                          \
    }                                                                                              \
    /* room for m elements in *tmp (capacity *cap) */                                              \
    static inline type *name##_room(type **tmp, size_t *cap, size_t m)                             \
    {                                                                                              \
        if (m > *cap) {                                                                            \
            free(*tmp);                                                                            \
            *tmp = ks_xmalloc(ks_mul(m, sizeof **tmp));                                            \
            *cap = m;                                                                              \
        }                                                                                          \
        return *tmp;                                                                               \
    }                                                                                              \
    /* v[lo, hi) = the stable merge of the sorted runs v[lo, mid) and v[mid, hi), in place */      \
    static inline void name##_merge(const ctxtype *c, type *v, size_t lo, size_t mid, size_t hi, type **tmp, \
                                    size_t *cap)                                                   \
    {                                                                                              \
        if (mid >= hi || !before(c, &v[mid], &v[mid - 1]))                                         \
            return;                                                                                \
        /* i: the first left element that goes after v[mid] (v[lo, i) stays) */                    \
        size_t a = lo, z = mid - 1;                                                                \
        while (a < z) {                                                                            \
            size_t m = a + (z - a) / 2;                                                            \
            if (before(c, &v[mid], &v[m]))                                                         \
                z = m;                                                                             \
            else                                                                                   \
                a = m + 1;                                                                         \
        }                                                                                          \
        size_t i = a;                                                                              \
        /* j: the first right element not before v[mid - 1] (v[j, hi) stays) */                    \
        a = mid + 1, z = hi;                                                                       \
        while (a < z) {                                                                            \
            size_t m = a + (z - a) / 2;                                                            \
            if (before(c, &v[m], &v[mid - 1]))                                                     \
                a = m + 1;                                                                         \
            else                                                                                   \
                z = m;                                                                             \
        }                                                                                          \
        size_t j = a;                                                                              \
        if (mid - i <= j - mid) {                                                                  \
            /* the left middle out; forward into v[i, j): a right element first only when before */ \
            size_t nl = mid - i, p = 0, q = mid, o = i;                                            \
            type *l = name##_room(tmp, cap, nl);                                                   \
            memcpy(l, v + i, nl * sizeof *v);                                                      \
            while (p < nl && q < j)                                                                \
                v[o++] = before(c, &v[q], &l[p]) ? v[q++] : l[p++];                                \
            memcpy(v + o, l + p, (nl - p) * sizeof *v);                                            \
        } else {                                                                                   \
            /* the right middle out; backward from j: a left element last only when after */       \
            size_t nr = j - mid, p = mid, q = nr, o = j;                                           \
            type *r = name##_room(tmp, cap, nr);                                                   \
            memcpy(r, v + mid, nr * sizeof *v);                                                    \
            while (p > i && q > 0)                                                                 \
                v[--o] = before(c, &r[q - 1], &v[p - 1]) ? v[--p] : r[--q];                        \
            memcpy(v + o - q, r, q * sizeof *v);                                                   \
        }                                                                                          \
    }                                                                                              \
    /* end of the run starting at lo, extended to KS_MSORT_MINRUN elements when shorter */         \
    static inline size_t name##_run(const ctxtype *c, type *v, size_t lo, size_t n)                \
    {                                                                                              \
        size_t e = lo + 1;                                                                         \
        while (e < n && !before(c, &v[e], &v[e - 1]))                                              \
            e++;                                                                                   \
        if (e - lo < KS_MSORT_MINRUN && e < n) {                                                   \
            size_t to = n - lo < KS_MSORT_MINRUN ? n : lo + KS_MSORT_MINRUN;                       \
            name##_insert(c, v, lo, e, to);                                                        \
            e = to;                                                                                \
        }                                                                                          \
        return e;                                                                                  \
    }                                                                                              \
    static inline void name(const ctxtype *c, type *v, size_t n)                                   \
    {                                                                                              \
        size_t i = 1;                                                                              \
        while (i < n && !before(c, &v[i], &v[i - 1]))                                              \
            i++;                                                                                   \
        if (i >= n)                                                                                \
            return;                                                                                \
        /* run boundaries: every run but the last holds at least KS_MSORT_MINRUN elements */       \
        size_t *b = ks_xmalloc(ks_mul(n / KS_MSORT_MINRUN + 2, sizeof *b));                        \
        size_t nruns = 0;                                                                          \
        b[0] = 0;                                                                                  \
        for (size_t lo = 0; lo < n; nruns++)                                                       \
            lo = b[nruns + 1] = name##_run(c, v, lo, n);                                           \
        type *tmp = NULL;                                                                          \
        size_t cap = 0;                                                                            \
        while (nruns > 1) {                                                                        \
            size_t o = 0;                                                                          \
            for (size_t r = 0; r < nruns; r += 2, o++) {                                           \
                size_t hi = r + 2 <= nruns ? b[r + 2] : b[r + 1];                                  \
                name##_merge(c, v, b[r], b[r + 1], hi, &tmp, &cap);                                \
                b[o] = b[r];                                                                       \
            }                                                                                      \
            b[o] = n;                                                                              \
            nruns = o;                                                                             \
        }                                                                                          \
        free(tmp);                                                                                 \
        free(b);                                                                                   \
    }

/* The same without a context: before(x, y). */
#define KS_MSORT_DEFINE(name, type, before)                                                        \
    static inline int name##_before(const void *c, const type *x, const type *y)                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return before(x, y);                                                                       \
    }                                                                                              \
    KS_MSORT_DEFINE_CTX(name##_ctx, type, void, name##_before)                                     \
    static inline void name(type *v, size_t n)                                                     \
    {                                                                                              \
        name##_ctx(NULL, v, n);                                                                    \
    }

#endif
