/* algo/intervals.c: interval sets (see intervals.h) and exact integer quantiles. */
#include "algo/intervals.h"
#include "common/hugemem.h"
#include "algo/msort.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* The storage is a ks_big_alloc array of cap intervals (hugemem.h): moved, never realloc'ed. */
static void grow_to(ks_ivs *s, size_t need)
{
    ks_big_grow((void **)&s->v, &s->cap, s->n, need, sizeof *s->v);
}

void ks_ivs_reserve(ks_ivs *s, size_t n)
{
    if (n > s->cap)
        grow_to(s, n);
}

void ks_ivs_add(ks_ivs *s, ks_ns a, ks_ns b)
{
    if (b <= a)
        return;
    if (s->n == s->cap)
        grow_to(s, s->n + 1);
    s->v[s->n].a = a;
    s->v[s->n].b = b;
    s->n++;
}

static inline int iv_before(const ks_iv *p, const ks_iv *q)
{
    return p->a != q->a ? p->a < q->a : p->b < q->b;
}

/* sets are usually filled track after track, each in start order: the sort merges those runs */
KS_MSORT_DEFINE(sort_ivs, ks_iv, iv_before)

void ks_ivs_normalize(ks_ivs *s)
{
    if (s->n < 2)
        return;
    sort_ivs(s->v, s->n);
    size_t o = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i].a <= s->v[o].b) {
            if (s->v[i].b > s->v[o].b)
                s->v[o].b = s->v[i].b;
        } else {
            s->v[++o] = s->v[i];
        }
    }
    s->n = o + 1;
}

ks_ns ks_ivs_length(const ks_ivs *s)
{
    ks_ns t = 0;
    for (size_t i = 0; i < s->n; i++)
        t = ks_sat_add(t, ks_sat_sub(s->v[i].b, s->v[i].a));
    return t;
}

ks_ns ks_ivs_union(ks_ivs *s)
{
    ks_ivs_normalize(s);
    return ks_ivs_length(s);
}

void ks_ivs_clip(ks_ivs *s, ks_ns w0, ks_ns w1)
{
    size_t o = 0;
    for (size_t i = 0; i < s->n; i++) {
        ks_ns a = s->v[i].a < w0 ? w0 : s->v[i].a;
        ks_ns b = s->v[i].b > w1 ? w1 : s->v[i].b;
        if (b > a) {
            s->v[o].a = a;
            s->v[o].b = b;
            o++;
        }
    }
    s->n = o;
}

ks_ns ks_ivs_covered(const ks_ivs *s, ks_ns x, ks_ns y)
{
    if (y <= x || !s->n)
        return 0;
    ks_ns t = 0;
    for (size_t i = ks_ivs_first_ending_after(s, x); i < s->n && s->v[i].a < y; i++) {
        ks_ns a = s->v[i].a < x ? x : s->v[i].a;
        ks_ns b = s->v[i].b > y ? y : s->v[i].b;
        if (b > a)
            t = ks_sat_add(t, ks_sat_sub(b, a)); /* spans of extreme timestamps saturate */
    }
    return t;
}

void ks_ivs_subtract(const ks_ivs *a, const ks_ivs *b, ks_ivs *out)
{
    assert(out != a && out != b); /* out is written while a and b are read */
    ks_ivs_reset(out);
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        ks_ns cur = a->v[i].a, end = a->v[i].b;
        while (j < b->n && b->v[j].b <= cur)
            j++;
        size_t k = j;
        while (k < b->n && b->v[k].a < end) {
            if (b->v[k].a > cur)
                ks_ivs_add(out, cur, b->v[k].a);
            if (b->v[k].b > cur)
                cur = b->v[k].b;
            if (cur >= end)
                break;
            k++;
        }
        if (cur < end)
            ks_ivs_add(out, cur, end);
    }
}

void ks_ivs_intersect(const ks_ivs *a, const ks_ivs *b, ks_ivs *out)
{
    assert(out != a && out != b);
    ks_ivs_reset(out);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        ks_ns lo = a->v[i].a > b->v[j].a ? a->v[i].a : b->v[j].a;
        ks_ns hi = a->v[i].b < b->v[j].b ? a->v[i].b : b->v[j].b;
        if (hi > lo)
            ks_ivs_add(out, lo, hi);
        if (a->v[i].b < b->v[j].b)
            i++;
        else
            j++;
    }
}

void ks_ivs_merge(const ks_ivs *a, const ks_ivs *b, ks_ivs *out)
{
    assert(out != a && out != b);
    ks_ivs_reset(out);
    for (size_t i = 0; i < a->n; i++)
        ks_ivs_add(out, a->v[i].a, a->v[i].b);
    for (size_t i = 0; i < b->n; i++)
        ks_ivs_add(out, b->v[i].a, b->v[i].b);
    ks_ivs_normalize(out);
}

void ks_ivs_reset(ks_ivs *s)
{
    s->n = 0;
}

void ks_ivs_free(ks_ivs *s)
{
    ks_big_free(s->v, s->cap * sizeof *s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

ks_ns ks_quantile_ns(const ks_ns *x, size_t n, int percent)
{
    assert(x && n > 0); /* a quantile of nothing is not observed: the caller says so */
    if (percent <= 0)
        return x[0];
    if (percent >= 100)
        return x[n - 1];
    /* h = (n - 1) * p / 100 = lo + rem / 100 */
    unsigned __int128 h = (unsigned __int128)(n - 1) * (unsigned)percent;
    size_t lo = (size_t)(h / 100);
    unsigned rem = (unsigned)(h % 100);
    if (!rem || lo + 1 >= n)
        return x[lo];
    __int128 d = (__int128)x[lo + 1] - x[lo];
    __int128 add = (d * rem + 50) / 100; /* d >= 0 for sorted input */
    return (ks_ns)(x[lo] + add);
}
