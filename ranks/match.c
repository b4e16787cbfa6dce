/* ranks/match.c: collectives matched across ranks, clock offsets, waits and the straggler.
 *
 * The same collective is the n-th call of the same "Collective name" on the same process group
 * (its name, else its ranks) on every rank that calls it; where the trace numbers them ("Seq"),
 * that number is n. Clocks: every rank leaves a synchronising collective within a few us, so the
 * offset of rank r is the median over the collectives it shares with the reference (the lowest
 * rank with collectives) of (its end - the reference's end); the residuals say how far that holds
 * (the spread). Waits: after alignment, each rank waits from its own arrival (kernel start) to the
 * last arrival; that wait is attributed to the last arrival. The transfer itself is the last
 * arrival's own kernel. Bus bandwidth as nccl-tests define it (kinesift/comm.h). Without a shared
 * collective a rank is not aligned (offset 0, said so); the waits it takes part in rest on its
 * own clock agreeing with the others. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/comm.h"
#include "kinesift/ranks.h"

void ks_ranks_opts_init(ks_ranks_opts *o)
{
    o->align = 1;
    o->align_tolerance = 20000;
    o->straggler_pct = 5.0;
}

typedef struct entry {
    const ks_rank_coll *c;
    size_t rank;
    int64_t index;
} entry;

static int key_cmp(const ks_rank_coll *a, const ks_rank_coll *b)
{
    int d = strcmp(a->name, b->name);
    return d ? d : strcmp(a->pg, b->pg);
}

static int cmp_by_rank(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int d = key_cmp(a->c, b->c);
    if (d)
        return d;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->c->start > b->c->start) - (a->c->start < b->c->start);
}

static int cmp_by_index(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int d = key_cmp(a->c, b->c);
    if (d)
        return d;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* every collective of every rank, numbered: Seq where the whole key has it, else the ordinal */
static entry *numbered(const ks_rank *v, size_t n, size_t *ne)
{
    size_t total = 0;
    for (size_t r = 0; r < n; r++)
        total += v[r].ncolls;
    entry *e = ks_xcalloc(total + 1, sizeof *e);
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < v[r].ncolls; i++)
            e[k++] = (entry){&v[r].colls[i], r, 0};
    qsort(e, total, sizeof *e, cmp_by_rank);
    for (size_t a = 0; a < total;) {
        size_t b = a;
        int all_seq = 1;
        while (b < total && !key_cmp(e[a].c, e[b].c))
            all_seq &= e[b++].c->seq >= 0;
        int64_t ord = 0;
        for (size_t i = a; i < b; i++) {
            ord = i > a && e[i].rank == e[i - 1].rank ? ord + 1 : 0;
            e[i].index = all_seq ? e[i].c->seq : ord;
        }
        a = b;
    }
    qsort(e, total, sizeof *e, cmp_by_index);
    *ne = total;
    return e;
}

/* keys where some rank made fewer calls than another */
static void unmatched(const entry *e, size_t ne, size_t n, ks_ranks *out)
{
    int64_t *cnt = ks_xcalloc(n, sizeof *cnt);
    size_t cap = 0;
    for (size_t a = 0; a < ne;) {
        size_t b = a;
        memset(cnt, 0, n * sizeof *cnt);
        while (b < ne && !key_cmp(e[a].c, e[b].c))
            cnt[e[b++].rank]++;
        int64_t most = 0;
        for (size_t r = 0; r < n; r++)
            if (cnt[r] > most)
                most = cnt[r];
        for (size_t r = 0; r < n; r++)
            if (cnt[r] && cnt[r] < most) {
                KS_GROW(out->um, cap, out->num + 1);
                out->um[out->num++] = (ks_unmatched){e[a].c->name, e[a].c->pg, r, most - cnt[r]};
            }
        a = b;
    }
    free(cnt);
}

/* groups of equal (key, index) with two ranks or more */
static void groups(const entry *e, size_t ne, ks_ranks *out)
{
    size_t cap = 0;
    for (size_t a = 0; a < ne;) {
        size_t b = a + 1;
        while (b < ne && !key_cmp(e[a].c, e[b].c) && e[b].index == e[a].index)
            b++;
        /* the same rank twice under one Seq: keep its first */
        size_t k = 0;
        ks_match_arrival *arr = ks_xcalloc(b - a, sizeof *arr);
        for (size_t i = a; i < b; i++)
            if (!k || arr[k - 1].rank != e[i].rank)
                arr[k++] = (ks_match_arrival){e[i].rank, e[i].c->start, 0, e[i].c};
        if (k < 2) {
            free(arr);
        } else {
            KS_GROW(out->m, cap, out->nm + 1);
            ks_match *m = &out->m[out->nm++];
            memset(m, 0, sizeof *m);
            m->name = e[a].c->name;
            m->pg = e[a].c->pg;
            m->index = e[a].index;
            m->arr = arr;
            m->narr = k;
        }
        a = b;
    }
}

static void align(ks_ranks *out)
{
    size_t ref = SIZE_MAX;
    for (size_t r = 0; r < out->n && ref == SIZE_MAX; r++)
        if (out->v[r].ncolls)
            ref = r;
    ks_ns *d = ks_xcalloc(out->nm + 1, sizeof *d);
    for (size_t r = 0; r < out->n; r++) {
        ks_rank_stat *s = &out->st[r];
        if (r == ref) {
            s->aligned = 1;
            continue;
        }
        size_t nd = 0;
        for (size_t i = 0; i < out->nm && ref != SIZE_MAX; i++) {
            const ks_match *m = &out->m[i];
            const ks_rank_coll *cr = NULL, *cf = NULL;
            for (size_t j = 0; j < m->narr; j++) {
                if (m->arr[j].rank == r)
                    cr = m->arr[j].c;
                if (m->arr[j].rank == ref)
                    cf = m->arr[j].c;
            }
            if (cr && cf)
                d[nd++] = ks_sat_sub(cr->end, cf->end);
        }
        if (!nd || !out->o.align)
            continue;
        ks_sort_ns(d, nd);
        s->offset = d[(nd - 1) / 2];
        s->aligned = 1;
        for (size_t i = 0; i < nd; i++) {
            ks_ns res = d[i] > s->offset ? d[i] - s->offset : s->offset - d[i];
            if (res > s->residual)
                s->residual = res;
        }
        if (s->residual > out->spread)
            out->spread = s->residual;
    }
    free(d);
    out->untrusted = out->spread > out->o.align_tolerance;
}

static void waits(ks_ranks *out)
{
    for (size_t i = 0; i < out->nm; i++) {
        ks_match *m = &out->m[i];
        ks_ns last = INT64_MIN;
        size_t who = SIZE_MAX;
        for (size_t j = 0; j < m->narr; j++) {
            ks_match_arrival *a = &m->arr[j];
            a->arrival = a->c->start - out->st[a->rank].offset;
            if (a->arrival > last) {
                last = a->arrival;
                who = j;
            } else if (a->arrival == last)
                who = SIZE_MAX;
        }
        m->last_arrival = last;
        m->last = who == SIZE_MAX ? SIZE_MAX : m->arr[who].rank;
        const ks_rank_coll *lc = m->arr[who == SIZE_MAX ? 0 : who].c;
        m->after_ns = ks_sat_sub(lc->end, lc->start);
        m->bytes = lc->bytes;
        m->group = lc->group_size >= 0 ? lc->group_size : (int64_t)m->narr;
        for (size_t j = 0; j < m->narr; j++) {
            ks_match_arrival *a = &m->arr[j];
            a->wait = last - a->arrival;
            m->wait_ns += a->wait;
            out->st[a->rank].wait += a->wait;
            if (m->bytes < 0 && a->c->bytes >= 0)
                m->bytes = a->c->bytes;
        }
        out->total_wait = ks_sat_add(out->total_wait, m->wait_ns);
        if (m->last != SIZE_MAX) {
            out->st[m->last].caused = ks_sat_add(out->st[m->last].caused, m->wait_ns);
            out->st[m->last].times_last++;
        }
        m->algbw = m->busbw = -1;
        if (m->bytes >= 0 && m->after_ns > 0) {
            int64_t num, den;
            ks_coll_busbw_factor(ks_coll_kind_of(m->name), m->group, &num, &den);
            m->algbw = (double)m->bytes / (double)m->after_ns; /* bytes/ns = GB/s */
            m->busbw = num ? m->algbw * (double)num / (double)den : -1;
        }
    }
}

static ks_ns median_of(const ks_ranks *out, int compute)
{
    ks_ns *v = ks_xcalloc(out->n + 1, sizeof *v);
    size_t k = 0;
    for (size_t r = 0; r < out->n; r++) {
        const ks_rank *x = &out->v[r];
        if (compute ? !x->gpu_reason : x->steps > 0)
            v[k++] = compute ? x->compute : x->step_median;
    }
    ks_ns med = -1;
    if (k) {
        ks_sort_ns(v, k);
        med = ks_quantile_ns(v, k, 50);
    }
    free(v);
    return med;
}

/* what the straggler ran before the collectives it arrived last at: summed, top few */
static void evidence(ks_ranks *out)
{
    typedef struct { const char *name; ks_ns ns; } acc;
    acc *a = NULL;
    size_t na = 0, cap = 0;
    for (size_t i = 0; i < out->nm; i++) {
        const ks_match *m = &out->m[i];
        if (m->last != out->straggler)
            continue;
        for (size_t j = 0; j < m->narr; j++)
            if (m->arr[j].rank == m->last)
                for (int t = 0; t < KS_RANK_TOP && m->arr[j].c->before[t]; t++) {
                    size_t x = 0;
                    while (x < na && strcmp(a[x].name, m->arr[j].c->before[t]))
                        x++;
                    if (x == na) {
                        KS_GROW(a, cap, na + 1);
                        a[na++] = (acc){m->arr[j].c->before[t], 0};
                    }
                    a[x].ns += m->arr[j].c->before_ns[t];
                }
    }
    for (int t = 0; t < KS_RANK_TOP; t++) {
        size_t best = SIZE_MAX;
        for (size_t x = 0; x < na; x++)
            if (a[x].ns > 0 && (best == SIZE_MAX || a[x].ns > a[best].ns ||
                                (a[x].ns == a[best].ns && strcmp(a[x].name, a[best].name) < 0)))
                best = x;
        if (best == SIZE_MAX)
            break;
        out->evidence[t] = ks_xstrdup(a[best].name);
        out->evidence_ns[t] = a[best].ns;
        a[best].ns = 0;
    }
    free(a);
}

static void stragglers(ks_ranks *out)
{
    out->straggler = SIZE_MAX;
    ks_ns best = 0;
    for (size_t r = 0; r < out->n; r++)
        if (out->st[r].caused > best) {
            best = out->st[r].caused;
            out->straggler = r;
        }
    if (out->straggler != SIZE_MAX)
        evidence(out);
    out->step_median = median_of(out, 0);
    out->compute_median = median_of(out, 1);
    double f = 1.0 + out->o.straggler_pct / 100.0;
    for (size_t r = 0; r < out->n; r++) {
        const ks_rank *x = &out->v[r];
        if (x->steps && out->step_median > 0 && (double)x->step_median > f * (double)out->step_median)
            out->st[r].slow_step = 1;
        if (!x->gpu_reason && out->compute_median > 0 && (double)x->compute > f * (double)out->compute_median)
            out->st[r].slow_compute = 1;
    }
}

void ks_ranks_match(const ks_rank *v, size_t n, const ks_ranks_opts *o, ks_ranks *out)
{
    memset(out, 0, sizeof *out);
    if (o)
        out->o = *o;
    else
        ks_ranks_opts_init(&out->o);
    out->v = v;
    out->n = n;
    out->st = ks_xcalloc(n + 1, sizeof *out->st);
    size_t ne;
    entry *e = numbered(v, n, &ne);
    unmatched(e, ne, n, out);
    groups(e, ne, out);
    free(e);
    align(out);
    waits(out);
    stragglers(out);
}

void ks_ranks_free(ks_ranks *r)
{
    for (size_t i = 0; i < r->nm; i++)
        free(r->m[i].arr);
    free(r->m);
    free(r->um);
    free(r->st);
    for (int t = 0; t < KS_RANK_TOP; t++)
        free(r->evidence[t]);
    memset(r, 0, sizeof *r);
}
