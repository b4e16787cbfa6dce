/* analysis/shapes.c: op calls grouped by (name, Input Dims, Input type) (kinesift/kernels.h,
 * ks_shapes_build). A call's kernel time is direct: the union of the GPU work whose launch it
 * encloses innermost (ks_analysis_launching_op, TraceLens's kernel launcher), so that a kernel
 * counts for one call only and an op's children keep theirs. Each call's FLOPs and bytes
 * (analysis/flops.c) over its own kernel time give its achieved rates; a group reports their
 * mean, median, min and max. The calls of a group are those starting in the analysis window; their
 * kernels count whole. Without any recorded shape (record_shapes off) the result is not observed,
 * with the reason. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "algo/msort.h"
#include "analysis/passes.h"
#include "common/i64map.h"
#include "common/util.h"
#include "kinesift/kernels.h"

typedef struct work_iv {
    uint64_t key;      /* (timeline << 32) | op slice */
    ks_ns a, b;
    int32_t device;
} work_iv;

typedef struct call {
    ks_str op, dims, types, concrete;
    ks_ns kernel_ns;   /* 0: no direct GPU work */
    int32_t device;
} call;

static int cmp_work(const void *x, const void *y)
{
    const work_iv *p = x, *q = y;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return (p->a > q->a) - (p->a < q->a);
}

static int cmp_call(const void *x, const void *y)
{
    const call *p = x, *q = y;
    if (p->op != q->op)
        return p->op < q->op ? -1 : 1;
    if (p->dims != q->dims)
        return p->dims < q->dims ? -1 : 1;
    return (p->types > q->types) - (p->types < q->types);
}

static inline int call_before(const call *p, const call *q)
{
    return cmp_call(p, q) < 0;
}

/* the calls by (op, dims, types), equal ones in their order (as qsort's merge sort kept them) */
KS_MSORT_DEFINE(sort_calls, call, call_before)

static int cmp_double(const void *x, const void *y)
{
    double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

/* the rows by kernel time, the most first, then by op name and dims text (strcmp); rows equal in
 * all three keep their order */
static inline int row_before(const ks_trace *t, const ks_shape_row *p, const ks_shape_row *q)
{
    if (p->kernel_ns != q->kernel_ns)
        return p->kernel_ns > q->kernel_ns;
    int c = p->op == q->op ? 0 : strcmp(ks_trace_str(t, p->op), ks_trace_str(t, q->op));
    if (c)
        return c < 0;
    return p->dims != q->dims && strcmp(ks_trace_str(t, p->dims), ks_trace_str(t, q->dims)) < 0;
}

KS_MSORT_DEFINE_CTX(sort_rows, ks_shape_row, ks_trace, row_before)

static ks_rate rate_of(double *v, size_t n)
{
    ks_rate r = {NAN, NAN, NAN, NAN};
    if (!n)
        return r;
    ks_qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    r.mean = sum / (double)n;
    r.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    r.min = v[0];
    r.max = v[n - 1];
    return r;
}

/* 1 when the op slice is a call ks_shapes_build groups: a CPU op starting in the window, with
 * shapes */
static int grouped_call(const ks_analysis *a, const ks_timeline *tl, const ks_slice *s)
{
    const ks_trace *t = a->trace;
    if (s->kind != KS_K_CPU_OP || t->tracks[tl->track].kind != KS_TRACK_CPU ||
        !ks_window_starts_in(a->win_start, a->win_end, tl->ev[s->ev].ts))
        return 0;
    const ks_shape_info *si = ks_trace_shape(t, tl->track, s->ev);
    return si && (si->dims || si->types);
}

/* the direct kernel time of every op slice that launched GPU work and is a grouped call: key ->
 * ns, device (the work of other ops is left out before the sort: no group asks for it) */
static void direct_times(const ks_analysis *a, ks_i64map *ns, ks_i64map *dev)
{
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    work_iv *w = ks_xmalloc((gw->n ? gw->n : 1) * sizeof *w);
    size_t n = 0;
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        for (size_t i = str->first; i < str->first + str->n; i++) {
            const ks_gpuwork_item *it = &gw->v[i];
            ks_slice_ref r = ks_analysis_launcher(a, it->track, it->ev);
            int32_t op = ks_analysis_launching_op(a, r);
            if (op < 0 || !grouped_call(a, &a->tl[r.tl], &a->tl[r.tl].s[op]))
                continue;
            const ks_event *e = ks_gpuwork_event(t, it);
            w[n].key = ((uint64_t)r.tl << 32) | (uint32_t)op;
            w[n].a = e->ts;
            w[n].b = ks_sat_add(e->ts, ks_event_dur(e));
            w[n].device = str->device;
            n++;
        }
    }
    ks_qsort(w, n, sizeof *w, cmp_work);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        ks_ns total = 0, cur_a = w[i].a, cur_b = w[i].b;
        for (j = i + 1; j < n && w[j].key == w[i].key; j++) {
            if (w[j].a > cur_b) {
                total += cur_b - cur_a;
                cur_a = w[j].a;
                cur_b = w[j].b;
            } else if (w[j].b > cur_b)
                cur_b = w[j].b;
        }
        total += cur_b - cur_a;
        ks_i64map_put(ns, (int64_t)w[i].key, (uint64_t)total);
        ks_i64map_put(dev, (int64_t)w[i].key, (uint64_t)(uint32_t)w[i].device);
        i = j;
    }
    free(w);
}

void ks_shapes_build(const ks_analysis *a, ks_shapes *out)
{
    memset(out, 0, sizeof *out);
    const ks_trace *t = a->trace;
    if (!t->nshapes) {
        out->reason = "not observed: the trace holds no Input Dims or Input type (recorded with record_shapes off)";
        return;
    }
    ks_i64map ns, dev;
    ks_i64map_init(&ns);
    ks_i64map_init(&dev);
    direct_times(a, &ns, &dev);
    call *calls = NULL;
    size_t ncalls = 0, cap = 0;
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        if (!tl->n)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            if (s->kind != KS_K_CPU_OP)
                continue;
            const ks_event *e = &tl->ev[s->ev];
            if (!ks_window_starts_in(a->win_start, a->win_end, e->ts))
                continue;
            const ks_shape_info *si = ks_trace_shape(t, tl->track, s->ev);
            if (!si || (!si->dims && !si->types))
                continue;
            KS_GROW(calls, cap, ncalls + 1);
            call *c = &calls[ncalls++];
            c->op = e->name;
            c->dims = si->dims;
            c->types = si->types;
            c->concrete = si->concrete;
            uint64_t key = ((uint64_t)k << 32) | (uint32_t)i;
            uint64_t *v = ks_i64map_get(&ns, (int64_t)key);
            c->kernel_ns = v ? (ks_ns)*v : 0;
            uint64_t *d = ks_i64map_get(&dev, (int64_t)key);
            c->device = d ? (int32_t)(uint32_t)*d : -1;
        }
    }
    ks_i64map_free(&ns);
    ks_i64map_free(&dev);
    sort_calls(calls, ncalls);
    double *fl = ks_xmalloc((ncalls ? ncalls : 1) * sizeof *fl), *by = ks_xmalloc((ncalls ? ncalls : 1) * sizeof *by);
    size_t rcap = 0;
    for (size_t i = 0; i < ncalls;) {
        size_t j = i;
        while (j < ncalls && !cmp_call(&calls[i], &calls[j]))
            j++;
        KS_GROW(out->v, rcap, out->n + 1);
        ks_shape_row *r = &out->v[out->n++];
        memset(r, 0, sizeof *r);
        r->op = calls[i].op;
        r->dims = calls[i].dims;
        r->types = calls[i].types;
        r->concrete = calls[i].concrete;
        r->device = -1;
        r->cost = ks_op_cost_classed(ks_trace_str(t, r->op), ks_analysis_op_class(a, r->op, KS_K_CPU_OP),
                                     r->dims ? ks_trace_str(t, r->dims) : NULL,
                                     r->types ? ks_trace_str(t, r->types) : NULL,
                                     r->concrete ? ks_trace_str(t, r->concrete) : NULL);
        size_t nt = 0;
        for (size_t x = i; x < j; x++) {
            r->count++;
            if (!calls[x].kernel_ns)
                continue;
            if (r->device < 0)
                r->device = calls[x].device;
            r->calls_timed++;
            r->kernel_ns = ks_sat_add(r->kernel_ns, calls[x].kernel_ns);
            /* FLOPs per ns is GFLOP/s: / 1000 for TFLOP/s (bytes: TB/s) */
            fl[nt] = r->cost.flops / (double)calls[x].kernel_ns / 1000.0;
            by[nt] = r->cost.bytes / (double)calls[x].kernel_ns / 1000.0;
            nt++;
        }
        ks_rate none = {NAN, NAN, NAN, NAN};
        r->tflops = r->cost.known ? rate_of(fl, nt) : none;
        r->tbps = r->cost.known && isfinite(r->cost.bytes) ? rate_of(by, nt) : none;
        i = j;
    }
    free(fl);
    free(by);
    free(calls);
    sort_rows(t, out->v, out->n);
}

void ks_shapes_free(ks_shapes *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

const ks_shapes *ks_analysis_shapes(const ks_analysis *a)
{
    ks_shapes *s = atomic_load_explicit(&a->priv->shapes, memory_order_acquire);
    if (s)
        return s;
    ks_shapes *mine = ks_xmalloc(sizeof *mine);
    ks_shapes_build(a, mine);
    /* two threads may build it at once: the first kept, the other freed */
    if (atomic_compare_exchange_strong_explicit(&a->priv->shapes, &s, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    ks_shapes_free(mine);
    free(mine);
    return s;
}

void ks_shapes_memo_free(ks_analysis *a)
{
    ks_shapes *s = atomic_exchange_explicit(&a->priv->shapes, NULL, memory_order_acq_rel);
    if (s) {
        ks_shapes_free(s);
        free(s);
    }
}

/* ---- which group launched each piece of GPU work (for the diagnoses) ----------------------- */

typedef struct row_key {
    ks_str op, dims, types;
    size_t row;
} row_key;

static int cmp_key(const void *x, const void *y)
{
    const row_key *p = x, *q = y;
    if (p->op != q->op)
        return p->op < q->op ? -1 : 1;
    if (p->dims != q->dims)
        return p->dims < q->dims ? -1 : 1;
    return (p->types > q->types) - (p->types < q->types);
}

size_t *ks_shapes_row_of_work(const ks_analysis *a, const struct ks_shapes *s)
{
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    size_t *out = ks_xmalloc((gw->n ? gw->n : 1) * sizeof *out);
    for (size_t i = 0; i < gw->n; i++)
        out[i] = SIZE_MAX;
    if (!s->n)
        return out;
    row_key *keys = ks_xmalloc(s->n * sizeof *keys);
    for (size_t i = 0; i < s->n; i++) {
        keys[i].op = s->v[i].op;
        keys[i].dims = s->v[i].dims;
        keys[i].types = s->v[i].types;
        keys[i].row = i;
    }
    ks_qsort(keys, s->n, sizeof *keys, cmp_key);
    for (size_t i = 0; i < gw->n; i++) {
        const ks_gpuwork_item *it = &gw->v[i];
        ks_slice_ref r = ks_analysis_launcher(a, it->track, it->ev);
        int32_t op = ks_analysis_launching_op(a, r);
        if (op < 0)
            continue;
        const ks_timeline *tl = &a->tl[r.tl];
        const ks_slice *sl = &tl->s[op];
        if (!grouped_call(a, tl, sl))
            continue;
        const ks_event *e = &tl->ev[sl->ev];
        const ks_shape_info *si = ks_trace_shape(t, tl->track, sl->ev);
        row_key k = {e->name, si->dims, si->types, 0};
        const row_key *f = bsearch(&k, keys, s->n, sizeof *keys, cmp_key);
        if (f)
            out[i] = f->row;
    }
    free(keys);
    return out;
}
