/* algo/intervals.h: sets of half-open time intervals [a, b) and their unions, the arithmetic
 * behind every "time" figure that must not add up overlapping rows. Internal to the library. */
#ifndef KS_INTERVALS_H
#define KS_INTERVALS_H

#include <stddef.h>

#include "common/util.h"
#include "kinesift/common.h"

typedef struct ks_iv {
    ks_ns a, b;
} ks_iv;

typedef struct ks_ivs {
    ks_iv *v;      /* ks_big_alloc'ed (hugemem.h): grown and freed only by the functions below */
    size_t n, cap;
} ks_ivs;

/* Room for n intervals in all (an upper bound is fine: big sets live on huge pages, hugemem.h,
 * where the part never written costs no memory). */
void ks_ivs_reserve(ks_ivs *s, size_t n);
/* Append [a, b); empty or reversed intervals are ignored. */
void ks_ivs_add(ks_ivs *s, ks_ns a, ks_ns b);
/* The same, merged into the last interval when it starts inside it: adding intervals in start
 * order (one track's slices) keeps the set as small as its union. Inline: called per slice. */
static inline void ks_ivs_add_merge(ks_ivs *s, ks_ns a, ks_ns b)
{
    if (b <= a)
        return;
    if (s->n && a >= s->v[s->n - 1].a && a <= s->v[s->n - 1].b) {
        if (b > s->v[s->n - 1].b)
            s->v[s->n - 1].b = b;
        return;
    }
    if (s->n < s->cap) {
        s->v[s->n].a = a;
        s->v[s->n].b = b;
        s->n++;
        return;
    }
    ks_ivs_add(s, a, b);
}
/* Sort by start and merge overlapping or touching intervals, in place. */
void ks_ivs_normalize(ks_ivs *s);
/* Total length (the set must be normalized). */
ks_ns ks_ivs_length(const ks_ivs *s);
/* Normalize, then total length. */
ks_ns ks_ivs_union(ks_ivs *s);
/* Keep only the parts inside [w0, w1) (normalized or not). */
void ks_ivs_clip(ks_ivs *s, ks_ns w0, ks_ns w1);
/* Length of [x, y) covered by the normalized set. O(log n + k). */
ks_ns ks_ivs_covered(const ks_ivs *s, ks_ns x, ks_ns y);
/* The first interval of a normalized s (disjoint, in order) that ends after x; s->n when none. */
static inline size_t ks_ivs_first_ending_after(const ks_ivs *s, ks_ns x)
{
    size_t lo = 0, hi = s->n;
    KS_LOWER_BOUND(lo, hi, mid, s->v[mid].b <= x);
    return lo;
}
/* out = a minus b (both normalized); out normalized. */
void ks_ivs_subtract(const ks_ivs *a, const ks_ivs *b, ks_ivs *out);
/* out = a intersected with b (both normalized); out normalized. */
void ks_ivs_intersect(const ks_ivs *a, const ks_ivs *b, ks_ivs *out);
/* out = a united with b (both normalized); out normalized. */
void ks_ivs_merge(const ks_ivs *a, const ks_ivs *b, ks_ivs *out);
void ks_ivs_reset(ks_ivs *s);
void ks_ivs_free(ks_ivs *s);

/* The length of a union of intervals that arrive in start order, in constant memory. */
typedef struct ks_sweep {
    int open;
    ks_ns a, b, total;
} ks_sweep;

/* Add [a, b); a must not be before the start of the previous interval added. */
static inline void ks_sweep_add(ks_sweep *s, ks_ns a, ks_ns b)
{
    if (s->open && a <= s->b) {
        if (b > s->b)
            s->b = b;
        return;
    }
    if (s->open)
        s->total = ks_sat_add(s->total, ks_sat_sub(s->b, s->a));
    s->open = 1;
    s->a = a;
    s->b = b;
}

/* The union's length so far; the sweep is reset. */
static inline ks_ns ks_sweep_finish(ks_sweep *s)
{
    ks_ns t = ks_sat_add(s->total, s->open ? ks_sat_sub(s->b, s->a) : 0);
    s->open = 0;
    s->total = 0;
    return t;
}

/* Exact quantile of sorted int64 values (type 7, linear interpolation, rounded half up),
 * q given in percent (50 = median). n must be > 0. */
ks_ns ks_quantile_ns(const ks_ns *sorted, size_t n, int percent);
/* Sort int64 values ascending. */
void ks_sort_ns(ks_ns *v, size_t n);

#endif
