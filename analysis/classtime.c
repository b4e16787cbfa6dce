/* analysis/classtime.c: GPU time per work class (kinesift/kernels.h) per device, in any number of
 * windows at once (the analysis window, every step). One pass over the GPU work index: each event's
 * class (communication by the comm rule of kinesift/comm.h, else by its name or kind), then for
 * each window it overlaps, its part inside goes to the union of its (device, class) and to the
 * plain sum, and it counts where it starts (the window rule of GPU work, gpuwork.c); a kernel whose
 * name marks a tensor-core path goes to its device's tensor-core row as well. Windows are
 * searched by their starts: those starting before the event's end and ending after its start,
 * found by walking back at most the longest window's length. A few windows far longer than the
 * others (the analysis window among the steps) are left out of that walk and checked for every
 * event: in it, their length would make every event walk back over every window (on a 1 GiB trace
 * of 435 steps and 2 million kernels, 0.3 s of a 3.5 s run). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/kernels.h"

typedef struct acc {
    ks_ivs ivs;
    uint64_t count;
    ks_ns sum;
    int used;
} acc;

typedef struct win_ref {
    ks_ns a, b;
    size_t i;
} win_ref;

static int cmp_win(const void *x, const void *y)
{
    const win_ref *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

static int cmp_len_desc(const void *x, const void *y)
{
    const win_ref *p = x, *q = y;
    ks_ns lp = ks_sat_sub(p->b, p->a), lq = ks_sat_sub(q->b, q->a);
    if (lp != lq)
        return lp > lq ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* windows left out of the walk: at most this many, each longer than LONG_FACTOR times the median */
#define LONG_MAX_WINDOWS 16
#define LONG_FACTOR 4

static int cmp_row(const void *x, const void *y)
{
    const ks_class_time *p = x, *q = y;
    if (p->device != q->device)
        return p->device < q->device ? -1 : 1;
    return (p->cls > q->cls) - (p->cls < q->cls);
}

/* One piece of GPU work and where its parts go; its class found at its first window. */
typedef struct event_ctx {
    const ks_analysis *a;
    ks_comm_cache *comm;
    const ks_gpuwork_item *it;
    const ks_event *e;
    int cls, tc;       /* class (-1: not yet), tensor-core kernel */
    size_t dev;        /* its device's index */
    size_t per_win, ndev;
    acc *accs, *tcs;
} event_ctx;

/* The part of the work inside window wr, if any, to its (window, device, class) and, for a
 * tensor-core kernel, to its (window, device) tensor-core row. Each window's sums take the events
 * in stream order, whatever the order the windows are visited in. */
static inline void add_to_window(event_ctx *x, const win_ref *wr)
{
    const ks_event *e = x->e;
    ks_ns s, en;
    if (!ks_window_clip(wr->a, wr->b, e->ts, ks_event_dur(e), &s, &en))
        return;
    if (x->cls < 0) {
        int is_comm = e->kind == KS_K_KERNEL && ks_comm_gpu_event(x->comm, x->it->track, x->it->ev);
        x->cls = is_comm ? KS_WC_COMM : (int)ks_analysis_kernel_class(x->a, e->name, e->kind);
        x->tc = !is_comm && ks_analysis_tensor_core(x->a, e->name, e->kind);
    }
    int starts = ks_window_starts_in(wr->a, wr->b, e->ts);
    acc *c = &x->accs[wr->i * x->per_win + x->dev * KS_WC_COUNT + (size_t)x->cls];
    for (int pass = 0; pass < 1 + x->tc; pass++, c = &x->tcs[wr->i * x->ndev + x->dev]) {
        c->used = 1;
        ks_ivs_add(&c->ivs, s, en);
        c->sum = ks_sat_add(c->sum, en - s);
        if (starts)
            c->count++;
    }
}

void ks_class_times_build(const ks_analysis *a, const ks_ns *w, size_t nw, ks_class_times *out)
{
    memset(out, 0, nw * sizeof *out);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    if (!nw || !gw->n)
        return;
    const ks_trace *t = a->trace;
    /* the devices of the GPU work, in stream order */
    int32_t *devs = ks_xmalloc((gw->nstreams ? gw->nstreams : 1) * sizeof *devs);
    size_t ndev = 0;
    size_t *dev_of = ks_xmalloc((gw->nstreams ? gw->nstreams : 1) * sizeof *dev_of);
    for (size_t k = 0; k < gw->nstreams; k++) {
        size_t d = 0;
        while (d < ndev && devs[d] != gw->streams[k].device)
            d++;
        if (d == ndev)
            devs[ndev++] = gw->streams[k].device;
        dev_of[k] = d;
    }
    win_ref *ws = ks_xmalloc(nw * sizeof *ws);
    for (size_t i = 0; i < nw; i++) {
        ws[i].a = w[2 * i];
        ws[i].b = w[2 * i + 1];
        ws[i].i = i;
    }
    /* the long ones first: those far longer than the median go apart (ws[0, nlong)) */
    qsort(ws, nw, sizeof *ws, cmp_len_desc);
    ks_ns median = ks_sat_sub(ws[nw / 2].b, ws[nw / 2].a);
    size_t nlong = 0;
    while (nlong < nw && nlong < LONG_MAX_WINDOWS && median > 0 &&
           ks_sat_sub(ws[nlong].b, ws[nlong].a) / LONG_FACTOR > median)
        nlong++;
    win_ref *walk = ws + nlong;
    size_t nwalk = nw - nlong;
    ks_ns longest = nwalk ? ks_sat_sub(walk[0].b, walk[0].a) : 0;
    qsort(walk, nwalk, sizeof *walk, cmp_win);
    size_t per_win = ndev * KS_WC_COUNT;
    acc *accs = ks_xcalloc(ks_mul(nw, per_win), sizeof *accs);
    acc *tcs = ks_xcalloc(ks_mul(nw, ndev), sizeof *tcs); /* tensor-core kernels, per window and device */
    ks_comm_cache comm;
    ks_comm_cache_init(&comm, a);
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        for (size_t i = str->first; i < str->first + str->n; i++) {
            const ks_gpuwork_item *it = &gw->v[i];
            const ks_event *e = ks_gpuwork_event(t, it);
            ks_ns ts = e->ts, dur = ks_event_dur(e), end = ks_sat_add(ts, dur);
            /* the last window of the walk starting at or before the event's end (a zero-length
             * event at a window's start is inside it) */
            size_t lo = 0, hi = nwalk;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (walk[mid].a <= end)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            event_ctx ev = {a, &comm, it, e, -1, 0, dev_of[k], per_win, ndev, accs, tcs};
            for (size_t q = 0; q < nlong; q++)
                add_to_window(&ev, &ws[q]);
            for (size_t j = lo; j-- > 0;) {
                if (ks_sat_add(walk[j].a, longest) < ts)
                    break;
                add_to_window(&ev, &walk[j]);
            }
        }
    }
    for (size_t i = 0; i < nw; i++) {
        ks_class_times *o = &out[i];
        o->v = ks_xmalloc(per_win * sizeof *o->v);
        for (size_t x = 0; x < per_win; x++) {
            acc *c = &accs[i * per_win + x];
            if (!c->used)
                continue;
            ks_class_time *r = &o->v[o->n++];
            r->device = devs[x / KS_WC_COUNT];
            r->cls = (uint8_t)(x % KS_WC_COUNT);
            r->count = c->count;
            r->sum_ns = c->sum;
            r->busy_ns = ks_ivs_union(&c->ivs);
            ks_ivs_free(&c->ivs);
        }
        if (!o->n) {
            free(o->v);
            o->v = NULL;
        }
        if (o->n > 1)
            qsort(o->v, o->n, sizeof *o->v, cmp_row);
        o->tc = ks_xmalloc((ndev ? ndev : 1) * sizeof *o->tc);
        for (size_t d = 0; d < ndev; d++) {
            acc *c = &tcs[i * ndev + d];
            if (!c->used)
                continue;
            ks_class_time *r = &o->tc[o->ntc++];
            r->device = devs[d];
            r->cls = KS_WC_COUNT;
            r->count = c->count;
            r->sum_ns = c->sum;
            r->busy_ns = ks_ivs_union(&c->ivs);
            ks_ivs_free(&c->ivs);
        }
        if (!o->ntc) {
            free(o->tc);
            o->tc = NULL;
        }
        if (o->ntc > 1)
            qsort(o->tc, o->ntc, sizeof *o->tc, cmp_row);
    }
    free(tcs);
    ks_comm_cache_free(&comm);
    free(accs);
    free(ws);
    free(devs);
    free(dev_of);
}

void ks_class_times_free(ks_class_times *out, size_t nw)
{
    for (size_t i = 0; i < nw; i++) {
        free(out[i].v);
        free(out[i].tc);
        out[i].v = out[i].tc = NULL;
        out[i].n = out[i].ntc = 0;
    }
}
