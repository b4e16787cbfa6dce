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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/comm.h"
#include "kinesift/ranks.h"
#include "ranks/ranks_int.h"

void ks_ranks_opts_init(ks_ranks_opts *o)
{
    o->align = 1;
    o->align_tolerance = 20000;
    o->straggler_pct = 5.0;
}

/* one call of one rank */
typedef struct entry {
    const ks_rank_coll *c;
    size_t rank;
} entry;

/* a column: the same collective on every rank that entered it */
typedef struct col {
    const ks_rank_coll *rep; /* the first call put in it: its identity */
    int64_t step, call, index;
    size_t pos;              /* order among the columns of its group */
    size_t pg;               /* index of its process group's first entry */
    ks_match_arrival *arr;
    size_t narr, cap;
    size_t match;            /* its ks_match, SIZE_MAX none */
} col;

typedef struct cols {
    col **v;
    size_t n, cap;
} cols;

static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int d = strcmp(a->c->pg, b->c->pg);
    if (d)
        return d;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->c->start != b->c->start)
        return a->c->start < b->c->start ? -1 : 1;
    return (a->c->end > b->c->end) - (a->c->end < b->c->end);
}

/* the same call: the same name, and the same size and Seq where both record them */
static int same_call(const ks_rank_coll *a, const ks_rank_coll *b)
{
    return !strcmp(a->name, b->name) && (a->bytes < 0 || b->bytes < 0 || a->bytes == b->bytes) &&
           (a->seq < 0 || b->seq < 0 || a->seq == b->seq);
}

static col *new_col(cols *cs, const ks_rank_coll *rep, int64_t step, size_t pg)
{
    col *c = ks_xcalloc(1, sizeof *c);
    c->rep = rep;
    c->step = step;
    c->pg = pg;
    c->match = SIZE_MAX;
    (void)cs;
    return c;
}

static void col_add(col *c, const entry *e)
{
    for (size_t j = 0; j < c->narr; j++)
        if (c->arr[j].rank == e->rank) /* the same rank twice under one Seq: keep its first */
            return;
    KS_GROW(c->arr, c->cap, c->narr + 1);
    c->arr[c->narr++] = (ks_match_arrival){e->rank, e->c->start, 0, e->c};
}

typedef struct eq_ctx {
    col **a;
    const entry *b;
} eq_ctx;

static int eq_cb(void *ctx, size_t i, size_t j)
{
    eq_ctx *q = ctx;
    return same_call(q->a[i]->rep, q->b[j].c);
}

/* one step of one group: each rank's calls aligned on the consensus so far (the rank with the
 * most calls first); a call no column takes opens a new one where it falls */
static void align_group(const entry *e, size_t ne, int64_t step, size_t pg, cols *out)
{
    /* ranks' runs (e is sorted by rank, then start) */
    size_t best = 0, bestn = 0;
    for (size_t a = 0; a < ne;) {
        size_t b = a;
        while (b < ne && e[b].rank == e[a].rank)
            b++;
        if (b - a > bestn) {
            bestn = b - a;
            best = a;
        }
        a = b;
    }
    col **cons = ks_xcalloc(ne + 1, sizeof *cons);
    size_t nc = 0;
    for (size_t i = best; i < best + bestn; i++) {
        cons[nc] = new_col(out, e[i].c, step, pg);
        col_add(cons[nc++], &e[i]);
    }
    col **next = ks_xcalloc(ne + 1, sizeof *next);
    long *pair = ks_xcalloc(ne + 1, sizeof *pair);
    for (size_t a = 0; a < ne;) {
        size_t b = a;
        while (b < ne && e[b].rank == e[a].rank)
            b++;
        if (a == best) {
            a = b;
            continue;
        }
        eq_ctx q = {cons, &e[a]};
        ks_seq_align(nc, b - a, eq_cb, &q, pair);
        size_t nn = 0, i = 0;
        for (size_t j = 0; j < b - a; j++) {
            if (pair[j] < 0) {
                next[nn] = new_col(out, e[a + j].c, step, pg);
                col_add(next[nn++], &e[a + j]);
                continue;
            }
            while (i < (size_t)pair[j])
                next[nn++] = cons[i++];
            col_add(cons[i], &e[a + j]);
            next[nn++] = cons[i++];
        }
        while (i < nc)
            next[nn++] = cons[i++];
        col **t = cons;
        cons = next;
        next = t;
        nc = nn;
        a = b;
    }
    for (size_t i = 0; i < nc; i++)
        KS_PUSH(out->v, out->n, out->cap, cons[i]);
    free(cons);
    free(next);
    free(pair);
}

static int cmp_step_rank(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->c->step != b->c->step)
        return a->c->step < b->c->step ? -1 : 1;
    return cmp_entry(x, y);
}

static int cmp_seq(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->c->seq != b->c->seq)
        return a->c->seq < b->c->seq ? -1 : 1;
    return cmp_entry(x, y);
}

/* The columns of one process group (entries e[0..ne), sorted by rank then start): by Seq where
 * every call has one, else step by step (where every rank calling the group knows its steps)
 * and by sequence alignment within the step. */
static void group_columns(entry *e, size_t ne, size_t pg, size_t nranks, cols *out)
{
    size_t first = out->n;
    int all_seq = 1;
    for (size_t i = 0; i < ne; i++)
        all_seq &= e[i].c->seq >= 0;
    if (all_seq) {
        ks_qsort(e, ne, sizeof *e, cmp_seq);
        for (size_t a = 0; a < ne;) {
            size_t b = a;
            col *c = new_col(out, e[a].c, -1, pg);
            while (b < ne && e[b].c->seq == e[a].c->seq) {
                if (c->step < 0)
                    c->step = e[b].c->step;
                col_add(c, &e[b++]);
            }
            c->index = e[a].c->seq;
            KS_PUSH(out->v, out->n, out->cap, c);
            a = b;
        }
    } else {
        /* steps are used when every rank calling the group has calls in steps */
        unsigned char *has = ks_xcalloc(nranks + 1, 1), *calls = ks_xcalloc(nranks + 1, 1);
        for (size_t i = 0; i < ne; i++) {
            calls[e[i].rank] = 1;
            has[e[i].rank] |= e[i].c->step >= 0;
        }
        int steps = 1;
        for (size_t r = 0; r < nranks; r++)
            steps &= !calls[r] || has[r];
        free(has);
        free(calls);
        if (steps)
            ks_qsort(e, ne, sizeof *e, cmp_step_rank);
        for (size_t a = 0; a < ne;) {
            size_t b = a;
            while (b < ne && (!steps || e[b].c->step == e[a].c->step))
                b++;
            align_group(e + a, b - a, steps ? e[a].c->step : -1, pg, out);
            a = b;
        }
    }
    /* positions, the k-th call of a name in its step, the n-th of its name in the group (the
     * names of one group are few: a list) */
    typedef struct nc { const char *name; int64_t nth, step, call; } nc;
    nc *names = NULL;
    size_t nn = 0, ncap = 0;
    for (size_t i = first; i < out->n; i++) {
        col *c = out->v[i];
        c->pos = i - first;
        size_t x = 0;
        while (x < nn && strcmp(names[x].name, c->rep->name))
            x++;
        if (x == nn)
            KS_PUSH(names, nn, ncap, ((nc){c->rep->name, 0, c->step, 0}));
        if (names[x].step != c->step) {
            names[x].step = c->step;
            names[x].call = 0;
        }
        c->call = ++names[x].call;
        if (!all_seq)
            c->index = names[x].nth;
        names[x].nth++;
    }
    free(names);
}

/* which ranks should have made a column's call and did not (or made it alone) */
static void missing_calls(const ks_ranks *rs, col **cv, size_t a, size_t b, ks_ranks *out, size_t *cap)
{
    size_t n = rs->n;
    unsigned char *in = ks_xcalloc(n + 1, 1);
    size_t *lastpos = ks_xcalloc(n + 1, sizeof *lastpos);
    int stepped = 0;
    for (size_t i = a; i < b; i++) {
        stepped |= cv[i]->step >= 0;
        for (size_t j = 0; j < cv[i]->narr; j++) {
            size_t r = cv[i]->arr[j].rank;
            in[r] = 1;
            if (cv[i]->pos + 1 > lastpos[r])
                lastpos[r] = cv[i]->pos + 1;
        }
    }
    unsigned char *here = ks_xcalloc(n + 1, 1);
    for (size_t i = a; i < b; i++) {
        col *c = cv[i];
        memset(here, 0, n);
        for (size_t j = 0; j < c->narr; j++)
            here[c->arr[j].rank] = 1;
        size_t expected = 0;
        for (size_t r = 0; r < n; r++) {
            const ks_rank *x = &rs->v[r];
            int exp = here[r];
            if (!exp && in[r]) {
                if (c->step >= 0)
                    exp = x->first_step < 0 || (x->first_step <= c->step && c->step <= x->last_step);
                else
                    exp = !stepped;
                if (exp && x->truncated) { /* not recorded: cut away or never made, a cut cannot tell */
                    exp = 0;
                    out->st[r].unrecorded++;
                }
            }
            expected += exp;
            here[r] |= exp ? 2 : 0;
        }
        int minority = 2 * c->narr < expected;
        for (size_t r = 0; r < n; r++) {
            if (!(here[r] & 2) || ((here[r] & 1) && !minority) || (!(here[r] & 1) && minority))
                continue;
            ks_unmatched u = {c->rep->name, c->rep->pg, r, 1, c->step, c->call, KS_MISS_EXTRA, c->match, c->rep->start};
            if (!minority)
                u.kind = c->pos + 1 < lastpos[r] ? KS_MISS_SKIPPED : KS_MISS_NEVER_ARRIVED;
            else
                u.match = SIZE_MAX;
            KS_GROW(out->um, *cap, out->num + 1);
            out->um[out->num++] = u;
        }
    }
    free(here);
    free(in);
    free(lastpos);
}

static int cmp_match(const void *x, const void *y)
{
    const ks_match *a = x, *b = y;
    int d = strcmp(a->name, b->name);
    if (!d)
        d = strcmp(a->pg, b->pg);
    if (d)
        return d;
    return (a->index > b->index) - (a->index < b->index);
}

/* every rank's collectives into columns, the columns of two ranks or more into matches (sorted
 * by name, group, index), and the calls missed */
static void match_calls(ks_ranks *out)
{
    const ks_rank *v = out->v;
    size_t n = out->n, total = 0;
    for (size_t r = 0; r < n; r++)
        total += v[r].ncolls;
    entry *e = ks_xcalloc(total + 1, sizeof *e);
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < v[r].ncolls; i++)
            e[k++] = (entry){&v[r].colls[i], r};
    ks_qsort(e, total, sizeof *e, cmp_entry);
    cols cs = {0};
    size_t *gstart = ks_xcalloc(total + 2, sizeof *gstart), ng = 0;
    for (size_t a = 0; a < total;) {
        size_t b = a;
        while (b < total && !strcmp(e[b].c->pg, e[a].c->pg))
            b++;
        gstart[ng++] = cs.n;
        group_columns(e + a, b - a, a, n, &cs);
        a = b;
    }
    gstart[ng] = cs.n;
    /* matches in (name, group, index) order; the columns keep their match */
    size_t mcap = 0;
    for (size_t i = 0; i < cs.n; i++) {
        col *c = cs.v[i];
        if (c->narr < 2)
            continue;
        KS_GROW(out->m, mcap, out->nm + 1);
        ks_match *m = &out->m[out->nm++];
        memset(m, 0, sizeof *m);
        m->name = c->rep->name;
        m->pg = c->rep->pg;
        m->index = c->index;
        m->step = c->step;
        m->call = c->call;
        m->arr = c->arr;
        m->narr = c->narr;
        m->last = i; /* the column, until sorted; the match owns the arrivals from here */
    }
    ks_qsort(out->m, out->nm, sizeof *out->m, cmp_match);
    for (size_t i = 0; i < out->nm; i++) {
        cs.v[out->m[i].last]->match = i;
        /* arrivals in rank order */
        ks_match *m = &out->m[i];
        for (size_t x = 1; x < m->narr; x++)
            for (size_t y = x; y > 0 && m->arr[y - 1].rank > m->arr[y].rank; y--) {
                ks_match_arrival t = m->arr[y];
                m->arr[y] = m->arr[y - 1];
                m->arr[y - 1] = t;
            }
    }
    size_t ucap = 0;
    for (size_t g = 0; g < ng; g++)
        missing_calls(out, cs.v, gstart[g], gstart[g + 1], out, &ucap);
    for (size_t i = 0; i < cs.n; i++) {
        if (cs.v[i]->match == SIZE_MAX)
            free(cs.v[i]->arr);
        free(cs.v[i]);
    }
    free(cs.v);
    free(gstart);
    free(e);
}

/* the clock of rank r against the reference's: y = a + b x over the shared collectives' ends
 * (x = the reference's end - t0, y = r's end - the reference's end); Theil-Sen (the median of the
 * pairwise slopes, over 64 points at most, evenly spread) then the median intercept, so that a
 * few odd collectives move neither. A slope beyond KS_LIMIT_DRIFT_PPM is no clock's: b 0 (the
 * intercept the ends' median) and the slope in *rejected, in ppm (else 0). */
static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void fit(const ks_ns *x, const ks_ns *y, size_t n, ks_ns *a, double *b, double *rejected)
{
    *b = 0;
    *rejected = 0;
    if (n >= 3 && x[n - 1] - x[0] > 0) {
        size_t k = n < KS_LIMIT_FIT_POINTS ? n : KS_LIMIT_FIT_POINTS, np = 0;
        double *sl = ks_xcalloc(k * (k - 1) / 2 + 1, sizeof *sl);
        for (size_t i = 0; i < k; i++)
            for (size_t j = i + 1; j < k; j++) {
                size_t p = i * (n - 1) / (k - 1), q = j * (n - 1) / (k - 1);
                if (x[q] != x[p])
                    sl[np++] = (double)(y[q] - y[p]) / (double)(x[q] - x[p]);
            }
        if (np) {
            ks_qsort(sl, np, sizeof *sl, cmp_dbl);
            *b = np % 2 ? sl[np / 2] : (sl[np / 2 - 1] + sl[np / 2]) / 2;
        }
        free(sl);
        if (fabs(*b * 1e6) > KS_LIMIT_DRIFT_PPM) { /* no clock's: the offset alone, the ends' median */
            *rejected = *b * 1e6;
            *b = 0;
        }
    }
    ks_ns *r = ks_xcalloc(n + 1, sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = y[i] - (ks_ns)llround(*b * (double)x[i]);
    ks_sort_ns(r, n);
    *a = r[(n - 1) / 2];
    free(r);
}

/* the correction of a time t on rank r's clock: offset + drift since t0 */
static ks_ns correction(const ks_ranks *out, size_t r, ks_ns t)
{
    const ks_rank_stat *s = &out->st[r];
    double x = (double)(t - s->offset - out->t0);
    return s->offset + (ks_ns)llround(s->drift_ppm * 1e-6 * x);
}

typedef struct pt {
    ks_ns x, y;
} pt;

static int cmp_pt(const void *p, const void *q)
{
    const pt *a = p, *b = q;
    return (a->x > b->x) - (a->x < b->x);
}

static void align(ks_ranks *out)
{
    size_t ref = SIZE_MAX;
    for (size_t r = 0; r < out->n && ref == SIZE_MAX; r++)
        if (out->v[r].ncolls)
            ref = r;
    out->t0 = ref == SIZE_MAX ? 0 : out->v[ref].colls[0].end;
    pt *p = ks_xcalloc(out->nm + 1, sizeof *p);
    ks_ns *x = ks_xcalloc(out->nm + 1, sizeof *x), *y = ks_xcalloc(out->nm + 1, sizeof *y);
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
                p[nd++] = (pt){ks_sat_sub(cf->end, out->t0), ks_sat_sub(cr->end, cf->end)};
        }
        if (!nd || !out->o.align)
            continue;
        ks_qsort(p, nd, sizeof *p, cmp_pt);
        for (size_t i = 0; i < nd; i++) {
            x[i] = p[i].x;
            y[i] = p[i].y;
        }
        double b;
        fit(x, y, nd, &s->offset, &b, &s->slope_ppm);
        s->drift_ppm = b * 1e6;
        s->aligned = 1;
        for (size_t i = 0; i < nd; i++) {
            ks_ns d = y[i] - s->offset - (ks_ns)llround(b * (double)x[i]);
            ks_ns res = d < 0 ? -d : d;
            if (res > s->residual)
                s->residual = res;
        }
        if (s->residual > out->spread)
            out->spread = s->residual;
    }
    free(p);
    free(x);
    free(y);
    out->untrusted = out->spread > out->o.align_tolerance;
}

static void waits(ks_ranks *out)
{
    ks_ns *lastat = ks_xcalloc(out->n + 1, sizeof *lastat);
    for (size_t r = 0; r < out->n; r++)
        out->st[r].last_match = SIZE_MAX;
    for (size_t i = 0; i < out->nm; i++) {
        ks_match *m = &out->m[i];
        ks_ns last = INT64_MIN;
        size_t who = SIZE_MAX;
        for (size_t j = 0; j < m->narr; j++) {
            ks_match_arrival *a = &m->arr[j];
            a->arrival = a->c->start - correction(out, a->rank, a->c->start);
            if (a->arrival > last) {
                last = a->arrival;
                who = j;
            } else if (a->arrival == last)
                who = SIZE_MAX;
            ks_rank_stat *s = &out->st[a->rank];
            s->dur = ks_sat_add(s->dur, ks_sat_sub(a->c->end, a->c->start));
            if (s->last_match == SIZE_MAX || a->arrival > lastat[a->rank]) {
                s->last_match = i;
                lastat[a->rank] = a->arrival;
            }
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
    free(lastat);
    /* when the others entered a call a rank missed: the first aligned arrival */
    for (size_t i = 0; i < out->num; i++) {
        ks_unmatched *u = &out->um[i];
        if (u->match != SIZE_MAX)
            u->at = out->m[u->match].arr[0].arrival;
        else
            u->at = u->at - correction(out, u->rank, u->at);
        if (u->match != SIZE_MAX)
            for (size_t j = 1; j < out->m[u->match].narr; j++)
                if (out->m[u->match].arr[j].arrival < u->at)
                    u->at = out->m[u->match].arr[j].arrival;
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

/* the time of a name on rank r: per active step when every rank has steps, else in all; 0 when
 * it is not among the rank's longest */
static ks_ns name_time(const ks_rank *x, const char *name, int op, int per_step)
{
    for (size_t i = 0; i < x->nnames; i++)
        if (x->names[i].op == op && !strcmp(x->names[i].name, name))
            return per_step ? x->names[i].ns / (ks_ns)x->steps : x->names[i].ns;
    return 0;
}

/* the straggler's kernels and ops whose time exceeds the median rank's by more than
 * straggler_pct, the largest excess first */
static void evidence(ks_ranks *out)
{
    const ks_rank *s = &out->v[out->straggler];
    int per_step = 1;
    size_t nr = 0;
    for (size_t r = 0; r < out->n; r++)
        if (!out->v[r].truncated && out->v[r].nnames) {
            per_step &= out->v[r].steps > 0;
            nr++;
        }
    if (nr < 2)
        return;
    ks_ns *t = ks_xcalloc(out->n + 1, sizeof *t);
    double f = 1.0 + out->o.straggler_pct / 100.0;
    for (size_t i = 0; i < s->nnames; i++) {
        const ks_rank_name *nm = &s->names[i];
        size_t k = 0;
        for (size_t r = 0; r < out->n; r++)
            if (!out->v[r].truncated && out->v[r].nnames)
                t[k++] = name_time(&out->v[r], nm->name, nm->op, per_step);
        ks_sort_ns(t, k);
        ks_ns med = ks_quantile_ns(t, k, 50), mine = name_time(s, nm->name, nm->op, per_step);
        if (mine <= 0 || (double)mine <= f * (double)med)
            continue;
        ks_evidence ev = {nm->name, nm->op, mine, med};
        /* insert by excess, largest first (ties: name) */
        size_t at = out->nevidence;
        while (at > 0) {
            const ks_evidence *p = &out->evidence[at - 1];
            ks_ns xp = p->ns - p->median_ns, xe = mine - med;
            if (xp > xe || (xp == xe && strcmp(p->name, ev.name) <= 0))
                break;
            at--;
        }
        if (at >= KS_RANK_EVIDENCE)
            continue;
        size_t last = out->nevidence < KS_RANK_EVIDENCE ? out->nevidence : KS_RANK_EVIDENCE - 1;
        memmove(&out->evidence[at + 1], &out->evidence[at], (last - at) * sizeof ev);
        out->evidence[at] = ev;
        if (out->nevidence < KS_RANK_EVIDENCE)
            out->nevidence++;
    }
    free(t);
}

/* the straggler: the rank that caused most waiting, a rank whose trace was cut excepted (its
 * arrivals near its end are not the whole story) */
static void stragglers(ks_ranks *out)
{
    out->straggler = SIZE_MAX;
    ks_ns best = 0;
    for (size_t r = 0; r < out->n; r++)
        if (!out->v[r].truncated && out->st[r].caused > best) {
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
        if (x->truncated)
            continue;
        if (x->steps && out->step_median > 0 && (double)x->step_median > f * (double)out->step_median)
            out->st[r].slow_step = 1;
        if (!x->gpu_reason && out->compute_median > 0 && (double)x->compute > f * (double)out->compute_median)
            out->st[r].slow_compute = 1;
    }
}

const char *ks_miss_kind_name(ks_miss_kind k)
{
    return k == KS_MISS_SKIPPED ? "skipped" : k == KS_MISS_NEVER_ARRIVED ? "never arrived" : "extra";
}

static int cmp_um(const void *x, const void *y)
{
    const ks_unmatched *a = x, *b = y;
    if (a->at != b->at)
        return a->at < b->at ? -1 : 1;
    int d = strcmp(a->pg, b->pg);
    if (!d)
        d = strcmp(a->name, b->name);
    if (d)
        return d;
    return (a->rank > b->rank) - (a->rank < b->rank);
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
    out->world = -1;
    for (size_t r = 0; r < n; r++) {
        if (v[r].world_size > out->world)
            out->world = v[r].world_size;
        out->truncated += v[r].truncated != 0;
    }
    match_calls(out);
    align(out);
    waits(out);
    if (out->num > 1)
        ks_qsort(out->um, out->num, sizeof *out->um, cmp_um);
    stragglers(out);
    ks_ranks_bandwidth(out);
    ks_ranks_memory(out);
    out->waits_trusted = !out->untrusted;
}

void ks_ranks_free(ks_ranks *r)
{
    for (size_t i = 0; i < r->nm; i++)
        free(r->m[i].arr);
    free(r->m);
    free(r->um);
    free(r->st);
    free(r->bw);
    free(r->dm.name);
    free(r->dm.pg);
    free(r->dm.ns);
    free(r->mk);
    memset(r, 0, sizeof *r);
}
