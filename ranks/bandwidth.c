/* ranks/bandwidth.c: the bandwidth of the matched collectives by message size, and the rank x
 * collective duration matrix. A call's time outside waiting is the last arrival's own kernel
 * (ks_match.after_ns: it waited for nobody), so algbw = bytes / that time and busbw = algbw x the
 * nccl-tests factor of its kind and group size (ks_match, ranks/match.c). Sizes are grouped in
 * powers of 4 from 1 kB ([0, 1 kB), [1 kB, 4 kB), ...), one row per collective name and size;
 * each row gives the median transfer, algbw and busbw of its calls. The matrix has one column per
 * (name, group); a cell is the sum of that rank's kernel durations over the matched calls (its
 * waits included: the matrix says where each rank sat), -1 when it made none. */
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/util.h"
#include "ranks/ranks_int.h"

typedef struct bwk {
    const char *name;
    int64_t lo;
    size_t m;
} bwk;

static int cmp_bwk(const void *x, const void *y)
{
    const bwk *a = x, *b = y;
    int d = strcmp(a->name, b->name);
    if (d)
        return d;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return (a->m > b->m) - (a->m < b->m);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_d(double *v, size_t n)
{
    if (!n)
        return -1;
    ks_qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int64_t bucket(int64_t bytes)
{
    if (bytes < 1024)
        return 0;
    int64_t lo = 1024;
    while (lo <= (INT64_MAX >> 2) && lo * 4 <= bytes)
        lo *= 4;
    return lo;
}

static void by_size(ks_ranks *r)
{
    bwk *k = ks_xcalloc(r->nm + 1, sizeof *k);
    size_t nk = 0, cap = 0;
    for (size_t i = 0; i < r->nm; i++)
        if (r->m[i].bytes >= 0)
            k[nk++] = (bwk){r->m[i].name, bucket(r->m[i].bytes), i};
    ks_qsort(k, nk, sizeof *k, cmp_bwk);
    ks_ns *t = ks_xcalloc(nk + 1, sizeof *t);
    double *al = ks_xcalloc(nk + 1, sizeof *al), *bu = ks_xcalloc(nk + 1, sizeof *bu);
    for (size_t a = 0; a < nk;) {
        size_t b = a, na = 0, nb = 0;
        while (b < nk && !strcmp(k[b].name, k[a].name) && k[b].lo == k[a].lo) {
            const ks_match *m = &r->m[k[b].m];
            t[b - a] = m->after_ns;
            if (m->algbw >= 0)
                al[na++] = m->algbw;
            if (m->busbw >= 0)
                bu[nb++] = m->busbw;
            b++;
        }
        ks_sort_ns(t, b - a);
        ks_bw_row row = {k[a].name, k[a].lo, k[a].lo ? k[a].lo * 4 : 1024, b - a, ks_quantile_ns(t, b - a, 50),
                         median_d(al, na), median_d(bu, nb)};
        KS_PUSH(r->bw, r->nbw, cap, row);
        a = b;
    }
    free(t);
    free(al);
    free(bu);
    free(k);
}

static void matrix(ks_ranks *r)
{
    ks_dur_matrix *d = &r->dm;
    size_t cap = 0, cap2 = 0, n2 = 0;
    for (size_t i = 0; i < r->nm; i++)
        if (!i || strcmp(r->m[i].name, r->m[i - 1].name) || strcmp(r->m[i].pg, r->m[i - 1].pg)) {
            KS_PUSH(d->name, d->ncols, cap, r->m[i].name);
            KS_PUSH(d->pg, n2, cap2, r->m[i].pg);
        }
    d->ns = ks_xcalloc(r->n * d->ncols + 1, sizeof *d->ns);
    for (size_t i = 0; i < r->n * d->ncols; i++)
        d->ns[i] = -1;
    size_t c = 0;
    for (size_t i = 0; i < r->nm; i++) {
        if (i && (strcmp(r->m[i].name, r->m[i - 1].name) || strcmp(r->m[i].pg, r->m[i - 1].pg)))
            c++;
        for (size_t j = 0; j < r->m[i].narr; j++) {
            const ks_match_arrival *a = &r->m[i].arr[j];
            ks_ns *cell = &d->ns[a->rank * d->ncols + c];
            *cell = ks_sat_add(*cell < 0 ? 0 : *cell, ks_sat_sub(a->c->end, a->c->start));
        }
    }
}

void ks_ranks_bandwidth(ks_ranks *r)
{
    by_size(r);
    matrix(r);
}
