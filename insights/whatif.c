/* insights/whatif.c: "what if this phase took FACTOR of its time?" A step is replayed on a simple
 * model of its CPU thread and the GPU work it launches, keeping the dependencies:
 *  - CPU time passes in order; time inside the shrunk label (or any CPU time for @cpu) is scaled;
 *  - a launch call makes its GPU work ready when it returns; GPU work runs in order on its stream,
 *    after the launch (plus the launch latency seen in the trace) and after the previous work of
 *    the stream; work launched inside the label (or inside a GPU range of that name, or any work
 *    for @gpu) is scaled;
 *  - a blocking call (synchronize, blocking copy) waits until the GPU work launched so far is done,
 *    plus the overhead it had beyond that wait in the trace;
 *  - a thread that only waits while another thread works, and goes on when that work ends
 *    (waits.c), goes on at the projected end of that work plus the lag it had in the trace; other
 *    waits keep their measured length and are reported.
 * The step ends when both the CPU part and its GPU work have ended. Serial phases therefore add up
 * and overlapped ones do not. Replaying with no change gives the model's own step time, printed
 * beside the measured one: their difference is the model's error on this trace. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/intervals.h"
#include "analysis/gpuwork_index.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"
#include "analysis/timeline.h"
#include "common/util.h"
#include "insights/insights_int.h"


typedef struct gpu_item {
    ks_ns start, dur;          /* as in the trace */
    int64_t stream;
    uint32_t thread;           /* index of the replayed thread that launched it */
    int32_t launch;            /* slice index of its launch on that thread */
    uint8_t scaled_by;         /* index + 1 of the shrink that applies, 0 none */
} gpu_item;

/* one replayed thread */
typedef struct thread_model {
    const ks_timeline *tl;
    ks_ivs *label_cpu;         /* per shrink: union of the label's slices on the thread, less the
                                * time it only waits there (below) */
    uint8_t *launch_shrink;    /* per slice of tl: shrink index + 1 whose label encloses it */
    ks_ivs ops;                /* union of its slices that are not labels (ops, calls, frames) */
    ks_ivs gpu;                /* union of the GPU work it launched */
    ks_ns *marks;              /* starts and ends of its labels, sorted */
    size_t nmarks;
} thread_model;

typedef struct replay {
    const ks_analysis *a;
    const ks_shrink *sh;
    size_t nsh;
    thread_model *th;          /* th[0]: the stepping thread */
    size_t nth;
    int32_t *thread_of;        /* per track: index in th, -1 not replayed */
    gpu_item *items;           /* GPU work launched from the replayed threads, by (thread, launch) */
    size_t nitems;
    ks_wait *waits;            /* every wait of a thread on another (waits.c), by thread, start */
    size_t nwaits;
    uint32_t *by_end;          /* the items by (thread, end): those a wait followed, by two searches */
} replay;

static int name_is(const ks_analysis *a, ks_str name, const char *label)
{
    return name && !strcmp(ks_trace_str(a->trace, name), label);
}

/* per slice: the first shrink whose label is the slice or one of its ancestors */
static void mark_labels(replay *r, thread_model *m)
{
    const ks_timeline *tl = m->tl;
    const ks_track *tr = &r->a->trace->tracks[tl->track];
    m->launch_shrink = ks_xcalloc(tl->n ? tl->n : 1, 1);
    m->label_cpu = ks_xcalloc(r->nsh ? r->nsh : 1, sizeof *m->label_cpu);
    size_t mcap = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        const ks_event *e = &tr->ev[s->ev];
        ks_ns end = ks_slice_end(tl, s);
        if (e->kind != KS_K_USER_ANNOTATION) {
            ks_ivs_add(&m->ops, e->ts, end); /* the slice's start is its event's */
        } else {
            KS_PUSH(m->marks, m->nmarks, mcap, e->ts);
            KS_PUSH(m->marks, m->nmarks, mcap, end);
        }
        uint8_t mk = s->parent >= 0 ? m->launch_shrink[s->parent] : 0;
        for (size_t k = 0; k < r->nsh; k++) {
            if (r->sh[k].label[0] == '@')
                continue;
            if (name_is(r->a, e->name, r->sh[k].label)) {
                if (!mk)
                    mk = (uint8_t)(k + 1);
                ks_ivs_add(&m->label_cpu[k], e->ts, end);
            }
        }
        m->launch_shrink[i] = mk;
    }
    ks_ivs_normalize(&m->ops);
    ks_sort_ns(m->marks, m->nmarks);
    for (size_t k = 0; k < r->nsh; k++) {
        if (!strcmp(r->sh[k].label, "@cpu"))
            ks_ivs_add(&m->label_cpu[k], INT64_MIN / 4, INT64_MAX / 4);
        ks_ivs_normalize(&m->label_cpu[k]);
    }
}

/* An instance of the label whose own time is at least 90 % of it, while another replayed thread
 * runs an op inside it, only waits there (`## backward ##` on the main thread, the autograd thread
 * doing the work): all its own time is waiting. Added to wait (normalized again). */
static void wait_only_instances(const replay *r, size_t j, size_t k, const ks_ivs *others, ks_ivs *wait)
{
    const thread_model *m = &r->th[j];
    const ks_track *tr = &r->a->trace->tracks[m->tl->track];
    int added = 0;
    for (size_t i = 0; i < m->tl->n; i++) {
        const ks_slice *s = &m->tl->s[i];
        ks_ns ts = ks_slice_ts(m->tl, s), end = ks_slice_end(m->tl, s);
        if (end <= ts || !name_is(r->a, tr->ev[s->ev].name, r->sh[k].label))
            continue;
        ks_ns len = ks_sat_sub(end, ts), busy = ks_ivs_covered(&m->ops, ts, end);
        if ((len - busy) * 10 < len * 9 || !ks_ivs_covered(others, ts, end))
            continue;
        ks_ns x = ts;
        /* the own time: [ts, end) less the thread's ops */
        for (size_t q = 0; q < m->ops.n && x < end; q++) {
            if (m->ops.v[q].b <= x)
                continue;
            if (m->ops.v[q].a >= end)
                break;
            ks_ivs_add(wait, x, m->ops.v[q].a);
            x = m->ops.v[q].b;
        }
        ks_ivs_add(wait, x, end);
        added = 1;
    }
    if (added)
        ks_ivs_normalize(wait);
}

/* A label's own time (no op of its thread below it) while another replayed thread runs an op is
 * waiting, not CPU work (the main thread in `## backward ##` while the autograd thread works):
 * it is taken out of the label's scaled time and reported. */
static void take_out_waiting(replay *r, ks_whatif *out)
{
    ks_ivs others = {0}, own = {0}, wait = {0}, rest = {0};
    ks_ns *best = ks_xcalloc(r->nsh ? r->nsh : 1, sizeof *best);
    for (size_t j = 0; j < r->nth; j++) {
        ks_ivs_reset(&others);
        for (size_t i = 0; i < r->nth; i++)
            for (size_t q = 0; i != j && q < r->th[i].ops.n; q++)
                ks_ivs_add(&others, r->th[i].ops.v[q].a, r->th[i].ops.v[q].b);
        ks_ivs_normalize(&others);
        for (size_t k = 0; k < r->nsh; k++) {
            ks_ivs *lab = &r->th[j].label_cpu[k];
            if (r->sh[k].label[0] == '@' || !lab->n)
                continue;
            out->label_own_ns[k] = ks_sat_add(out->label_own_ns[k], ks_ivs_length(lab));
            ks_ivs_subtract(lab, &r->th[j].ops, &own);
            ks_ivs_intersect(&own, &others, &wait);
            wait_only_instances(r, j, k, &others, &wait);
            ks_ns w = ks_ivs_length(&wait);
            if (!w)
                continue;
            out->label_wait_ns[k] = ks_sat_add(out->label_wait_ns[k], w);
            if (w > best[k]) {
                best[k] = w;
                out->label_wait_track[k] = r->th[j].tl->track;
            }
            ks_ivs_subtract(lab, &wait, &rest);
            ks_ivs tmp = *lab;
            *lab = rest;
            rest = tmp;
        }
    }
    free(best);
    ks_ivs_free(&others);
    ks_ivs_free(&own);
    ks_ivs_free(&wait);
    ks_ivs_free(&rest);
}

static int cmp_item(const void *x, const void *y)
{
    const gpu_item *p = x, *q = y;
    if (p->thread != q->thread)
        return p->thread < q->thread ? -1 : 1;
    if (p->launch != q->launch)
        return p->launch < q->launch ? -1 : 1;
    return (p->start > q->start) - (p->start < q->start);
}

/* a GPU work slice inside a gpu_user_annotation named after a shrink */
static uint8_t gpu_range_shrink(const replay *r, const ks_timeline *gtl, const int32_t *ev_slice, size_t ev)
{
    const ks_track *tr = &r->a->trace->tracks[gtl->track];
    int32_t s = ev_slice[ev];
    for (int32_t p = s >= 0 ? gtl->s[s].parent : -1; p >= 0; p = gtl->s[p].parent)
        for (size_t k = 0; k < r->nsh; k++)
            if (r->sh[k].label[0] != '@' && gtl->s[p].kind == KS_K_GPU_ANNOTATION &&
                name_is(r->a, tr->ev[gtl->s[p].ev].name, r->sh[k].label))
                return (uint8_t)(k + 1);
    return 0;
}

/* The replayed threads: the stepping thread, then every CPU thread that launched GPU work. */
static void pick_threads(replay *r, uint32_t stepping)
{
    const ks_analysis *a = r->a;
    const ks_trace *t = a->trace;
    r->thread_of = ks_xmalloc(ks_mul(t->ntracks ? t->ntracks : 1, sizeof *r->thread_of));
    for (size_t k = 0; k < t->ntracks; k++)
        r->thread_of[k] = -1;
    size_t cap = 0;
    thread_model m0 = {&a->tl[stepping], NULL, NULL, {0}, {0}, NULL, 0};
    KS_PUSH(r->th, r->nth, cap, m0);
    r->thread_of[stepping] = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t i = 0; i < gw->n; i++) {
        ks_slice_ref l = ks_gpuwork_launcher(a, &gw->v[i]);
        if (l.s < 0 || r->thread_of[l.tl] >= 0)
            continue;
        thread_model m = {&a->tl[l.tl], NULL, NULL, {0}, {0}, NULL, 0};
        r->thread_of[l.tl] = (int32_t)r->nth;
        KS_PUSH(r->th, r->nth, cap, m);
    }
}

static void collect_items(replay *r)
{
    const ks_analysis *a = r->a;
    const ks_trace *t = a->trace;
    size_t cap = 0;
    int gpu_all = 0;
    for (size_t k = 0; k < r->nsh; k++)
        if (!strcmp(r->sh[k].label, "@gpu"))
            gpu_all = (int)k + 1;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        const ks_track *tr = &t->tracks[str->track];
        const ks_timeline *gtl = &a->tl[str->track];
        int32_t *ev_slice = ks_timeline_event_slices(t, gtl);
        for (size_t j = str->first; j < str->first + str->n; j++) {
            const ks_gpuwork_item *e = &gw->v[j];
            ks_slice_ref l = ks_gpuwork_launcher(a, e);
            if (l.s < 0 || r->thread_of[l.tl] < 0)
                continue;
            uint32_t th = (uint32_t)r->thread_of[l.tl];
            const ks_event *ge = ks_gpuwork_event(t, e);
            gpu_item it = {ge->ts, ks_event_dur(ge), str->stream, th, l.s, 0};
            it.scaled_by = r->th[th].launch_shrink[l.s];
            if (!it.scaled_by)
                it.scaled_by = gpu_range_shrink(r, gtl, ev_slice, e->ev);
            if (!it.scaled_by && gpu_all)
                it.scaled_by = (uint8_t)gpu_all;
            KS_PUSH(r->items, r->nitems, cap, it);
        }
        ks_big_free(ev_slice, tr->n * sizeof *ev_slice);
    }
    if (r->nitems > 1)
        qsort(r->items, r->nitems, sizeof *r->items, cmp_item);
}

/* where an item's GPU work ended, as measured (saturated, as the analysis's ends are) */
static ks_ns item_end(const gpu_item *g)
{
    return ks_sat_add(g->start, g->dur);
}

static int cmp_by_end(const void *x, const void *y, void *ctx)
{
    const gpu_item *items = ctx;
    const gpu_item *p = &items[*(const uint32_t *)x], *q = &items[*(const uint32_t *)y];
    if (p->thread != q->thread)
        return p->thread < q->thread ? -1 : 1;
    ks_ns a = item_end(p), b = item_end(q);
    return (a > b) - (a < b);
}

/* the first item of thread th (in by_end) ending after t */
static size_t first_ending_after(const replay *r, uint32_t th, ks_ns t)
{
    size_t lo = 0, hi = r->nitems;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const gpu_item *g = &r->items[r->by_end[mid]];
        if (g->thread < th || (g->thread == th && item_end(g) <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* each thread's GPU work, then the waits of the threads on each other */
static void find_waits(replay *r)
{
    for (size_t i = 0; i < r->nitems; i++)
        ks_ivs_add(&r->th[r->items[i].thread].gpu, r->items[i].start, ks_sat_add(r->items[i].start, r->items[i].dur));
    ks_wait_thread *wt = ks_xcalloc(r->nth ? r->nth : 1, sizeof *wt);
    for (size_t j = 0; j < r->nth; j++) {
        ks_ivs_normalize(&r->th[j].gpu);
        wt[j].ops = &r->th[j].ops;
        wt[j].gpu = &r->th[j].gpu;
        wt[j].marks = r->th[j].marks;
        wt[j].nmarks = r->th[j].nmarks;
    }
    r->nwaits = ks_waits_find(wt, r->nth, &r->waits);
    free(wt);
    r->by_end = ks_xmalloc(ks_mul(r->nitems ? r->nitems : 1, sizeof *r->by_end));
    for (size_t i = 0; i < r->nitems; i++)
        r->by_end[i] = (uint32_t)i;
    if (r->nitems > 1)
        qsort_r(r->by_end, r->nitems, sizeof *r->by_end, cmp_by_end, r->items);
}

/* CPU time of [x, y) on thread m after scaling (apply: 0 = unchanged) */
static ks_ns cpu_time(const replay *r, const thread_model *m, ks_ns x, ks_ns y, int apply, ks_ns *label_ns)
{
    if (y <= x)
        return 0;
    double t = (double)(y - x);
    for (size_t k = 0; k < r->nsh; k++) {
        ks_ns in = ks_ivs_covered(&m->label_cpu[k], x, y);
        if (label_ns)
            *label_ns += in;
        if (apply)
            t -= (1.0 - r->sh[k].factor) * (double)in;
    }
    return t < 0 ? 0 : (ks_ns)llround(t);
}

typedef struct stream_state {
    int64_t stream;
    ks_ns free_orig, free_sim;
} stream_state;

static stream_state *stream_of(stream_state **v, size_t *n, size_t *cap, int64_t id, ks_ns t0)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].stream == id)
            return &(*v)[i];
    stream_state s = {id, t0, t0};
    KS_PUSH(*v, *n, *cap, s);
    return &(*v)[*n - 1];
}

/* first item launched by slice i of thread th (items are sorted by thread, launch), or nitems */
static size_t first_item(const replay *r, uint32_t th, int32_t i)
{
    size_t lo = 0, hi = r->nitems;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const gpu_item *g = &r->items[mid];
        if (g->thread < th || (g->thread == th && g->launch < i))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct special {
    ks_ns ts, dur;             /* a wait's end: ts = its end, dur = -1 (before a call at that time) */
    uint32_t thread;
    int32_t slice;
    uint32_t ev;
    uint8_t blocking;
    int32_t wait;              /* index of a modeled wait whose end this is, -1 for a call */
} special;

static int cmp_special(const void *x, const void *y)
{
    const special *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur < b->dur ? -1 : 1; /* at equal start, the call that returns first went first */
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

/* The replayed calls of every thread: launch calls that launched work, and blocking calls, from S
 * to H on the stepping thread and to E on the others; a call inside another one (a driver call
 * inside its runtime call) is not replayed twice; and the ends of the modeled waits inside the
 * same bounds. In start order over all threads. */
static special *specials(const replay *r, ks_ns S, ks_ns H, ks_ns E, size_t *n)
{
    special *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t j = 0; j < r->nth; j++) {
        const ks_timeline *tl = r->th[j].tl;
        const ks_track *tr = &r->a->trace->tracks[tl->track];
        ks_ns end = j ? E : H;
        for (size_t i = 0; i < tl->n && ks_slice_ts_at(tl, i) < end; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            if (e->ts < S || s->lane != 0) /* the slice's start is its event's */
                continue;
            if (!ks_kind_is_launch_api(e->kind))
                continue;
            int blocking = ks_is_blocking_call(ks_trace_str(r->a->trace, e->name));
            size_t f = first_item(r, (uint32_t)j, (int32_t)i);
            int launches = f < r->nitems && r->items[f].thread == j && r->items[f].launch == (int32_t)i;
            if (!blocking && !launches)
                continue;
            special sp = {e->ts, ks_sat_sub(ks_slice_end(tl, s), e->ts), (uint32_t)j, (int32_t)i, s->ev, (uint8_t)blocking, -1};
            KS_PUSH(v, *n, cap, sp);
        }
    }
    for (size_t k = 0; k < r->nwaits; k++) {
        const ks_wait *w = &r->waits[k];
        if (w->modeled && w->start >= S && w->end <= (w->thread ? E : H)) {
            special sp = {w->end, -1, w->thread, -1, 0, 0, (int32_t)k};
            KS_PUSH(v, *n, cap, sp);
        }
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_special);
    return v;
}

typedef struct thread_clock {
    ks_ns t, x, covered;       /* simulated time, position in the trace, end of the last call */
} thread_clock;

/* The end of a modeled wait: the projected end of the work waited on (the other thread's clock at
 * the end of its last op; with its GPU work, also that work's end as replayed) plus the lag the
 * trace had. Without scaling that is the wait's own end; scaling down only moves it earlier. */
static void wait_end(const replay *r, const ks_wait *w, thread_clock *c, const ks_ns *sim_end, int apply,
                     ks_ns *label_cpu)
{
    thread_clock *tc = &c[w->thread], *oc = &c[w->on];
    ks_ns at_start = tc->t + cpu_time(r, &r->th[w->thread], tc->x, w->start, apply, label_cpu);
    ks_ns p = w->done_cpu == INT64_MIN ? INT64_MIN
            : oc->x < w->done_cpu ? oc->t + cpu_time(r, &r->th[w->on], oc->x, w->done_cpu, apply, NULL) : oc->t;
    /* its GPU work that ended in (start, done], as replayed (as measured when not replayed here) */
    for (size_t k = w->gpu ? first_ending_after(r, w->on, w->start) : r->nitems; k < r->nitems; k++) {
        uint32_t it = r->by_end[k];
        const gpu_item *g = &r->items[it];
        ks_ns end = item_end(g);
        if (g->thread != w->on || end > w->done)
            break;
        ks_ns q = sim_end[it] != INT64_MIN ? sim_end[it] : end;
        if (q > p)
            p = q;
    }
    if (p == INT64_MIN) /* nothing replayed to follow: as measured */
        p = w->done;
    ks_ns e = ks_sat_add(p, ks_sat_sub(w->end, w->done));
    tc->t = e > at_start ? e : at_start;
    tc->x = w->end;
    tc->covered = w->end > tc->covered ? w->end : tc->covered;
}

/* Replay the step [S, H) (H = the host end; E = the step end for the other threads) and return
 * its end; apply = scale or not. Each thread keeps its own clock; GPU work shares the streams;
 * a blocking call waits for all GPU work launched so far, by any thread. */
static ks_ns replay_step(const replay *r, ks_ns S, ks_ns H, ks_ns E, int apply, ks_ns *label_cpu, ks_ns *label_gpu)
{
    stream_state *ss = NULL;
    size_t nss = 0, css = 0, nsp;
    ks_ns gpu_done_sim = S, gpu_done_orig = S;
    thread_clock *c = ks_xcalloc(r->nth, sizeof *c);
    for (size_t j = 0; j < r->nth; j++)
        c[j].t = c[j].x = c[j].covered = S;
    ks_ns *sim_end = ks_xmalloc(ks_mul(r->nitems ? r->nitems : 1, sizeof *sim_end));
    for (size_t i = 0; i < r->nitems; i++)
        sim_end[i] = INT64_MIN;
    special *sp = specials(r, S, H, E, &nsp);
    for (size_t k = 0; k < nsp; k++) {
        if (sp[k].wait >= 0) {
            wait_end(r, &r->waits[sp[k].wait], c, sim_end, apply, label_cpu);
            continue;
        }
        const thread_model *m = &r->th[sp[k].thread];
        thread_clock *tc = &c[sp[k].thread];
        ks_ns ts = sp[k].ts, end = sp[k].ts + sp[k].dur;
        int blocking = sp[k].blocking;
        if (ts < tc->covered)
            continue;
        tc->t += cpu_time(r, m, tc->x, ts, apply, label_cpu);
        /* a blocking call's time is waiting, recomputed below; a launch call's is CPU time */
        if (!blocking)
            tc->t += cpu_time(r, m, ts, end, apply, label_cpu);
        tc->x = end;
        ks_ns call_end_orig = blocking ? ts : end;
        for (size_t it = first_item(r, sp[k].thread, sp[k].slice);
             it < r->nitems && r->items[it].thread == sp[k].thread && r->items[it].launch == sp[k].slice; it++) {
            const gpu_item *g = &r->items[it];
            stream_state *sst = stream_of(&ss, &nss, &css, g->stream, S);
            ks_ns ready_orig = call_end_orig > sst->free_orig ? call_end_orig : sst->free_orig;
            ks_ns latency = g->start > ready_orig ? g->start - ready_orig : 0;
            ks_ns ready = tc->t > sst->free_sim ? tc->t : sst->free_sim;
            ks_ns d = g->dur;
            if (g->scaled_by) {
                if (label_gpu)
                    *label_gpu += g->dur;
                if (apply)
                    d = (ks_ns)llround((double)g->dur * r->sh[g->scaled_by - 1].factor);
            }
            ks_ns start = ready + latency;
            sst->free_sim = start + d;
            sim_end[it] = sst->free_sim;
            sst->free_orig = item_end(g);
            if (sst->free_sim > gpu_done_sim)
                gpu_done_sim = sst->free_sim;
            if (sst->free_orig > gpu_done_orig)
                gpu_done_orig = sst->free_orig;
        }
        if (blocking) {
            /* waits for the GPU work launched so far, plus the overhead it had beyond that wait */
            ks_ns waited_until = gpu_done_orig > ts ? gpu_done_orig : ts;
            ks_ns overhead = end > waited_until ? end - waited_until : 0;
            tc->t = (gpu_done_sim > tc->t ? gpu_done_sim : tc->t) + overhead;
        }
        tc->covered = end > tc->covered ? end : tc->covered;
    }
    c[0].t += cpu_time(r, &r->th[0], c[0].x, H, apply, label_cpu);
    ks_ns done = gpu_done_sim;
    for (size_t j = 0; j < r->nth; j++)
        done = c[j].t > done ? c[j].t : done;
    free(ss);
    free(sp);
    free(c);
    free(sim_end);
    return done;
}

/* edit distance of two names, case-insensitive, cut off at cap (enough to rank the closest) */
static size_t name_distance(const char *x, const char *y, size_t cap)
{
    size_t m = strlen(y), row[65];
    if (m > 64)
        m = 64;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; x[i - 1] && i <= 256; i++) {
        size_t diag = row[0], best;
        row[0] = best = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t sub = diag + (tolower((unsigned char)x[i - 1]) != tolower((unsigned char)y[j - 1]));
            size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < v ? sub : v;
            diag = up;
            best = row[j] < best ? row[j] : best;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[m];
}

static int cmp_str(const void *x, const void *y)
{
    ks_str p = *(const ks_str *)x, q = *(const ks_str *)y;
    return (p > q) - (p < q);
}

/* the distinct names a label can match: the replayed threads' slices and the GPU ranges */
static ks_str *label_names(const replay *r, size_t *n)
{
    const ks_trace *t = r->a->trace;
    ks_str *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++)
            if (tr->ev[i].name && (r->thread_of[k] >= 0 || tr->ev[i].kind == KS_K_GPU_ANNOTATION))
                KS_PUSH(v, *n, cap, tr->ev[i].name);
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    *n = u;
    return v;
}

/* A label that matches no slice of the replayed threads and no GPU range would project "+0.0 %":
 * an error naming the closest names instead (and an @ label other than @cpu/@gpu). */
static int check_labels(const replay *r, const ks_whatif *out, ks_error *err)
{
    for (size_t k = 0; k < r->nsh; k++) {
        const char *l = r->sh[k].label;
        if (l[0] == '@') {
            if (strcmp(l, "@cpu") && strcmp(l, "@gpu"))
                return ks_error_set(err, "--shrink %s: the only @ labels are @cpu and @gpu", l);
            continue;
        }
        int found = out->label_own_ns[k] > 0; /* before the waiting was taken out */
        for (size_t j = 0; !found && j < r->nth; j++)
            found = r->th[j].label_cpu[k].n > 0;
        for (size_t i = 0; !found && i < r->nitems; i++)
            found = r->items[i].scaled_by == k + 1;
        if (found)
            continue;
        size_t n, best[3] = {0}, nb = 0;
        size_t dist[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
        ks_str *names = label_names(r, &n);
        for (size_t i = 0; i < n; i++) {
            size_t d = name_distance(ks_trace_str(r->a->trace, names[i]), l, nb < 3 ? 64 : dist[2]);
            size_t j = nb < 3 ? nb++ : 3;
            if (j == 3 && d >= dist[2])
                continue;
            if (j == 3)
                j = 2;
            for (; j > 0 && dist[j - 1] > d; j--) {
                dist[j] = dist[j - 1];
                best[j] = best[j - 1];
            }
            dist[j] = d;
            best[j] = i;
        }
        char near[600] = "";
        for (size_t j = 0; j < nb; j++) {
            size_t len = strlen(near);
            snprintf(near + len, sizeof near - len, "%s'%.150s'", j ? ", " : "", ks_trace_str(r->a->trace, names[best[j]]));
        }
        free(names);
        return ks_error_set(err, "--shrink %s: no range or op of that name on the replayed threads nor a GPU range%s%s",
                            l, nb ? "; closest: " : "", near);
    }
    return KS_OK;
}

static uint32_t main_thread(const ks_analysis *a)
{
    size_t *count = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *count);
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        ks_slice_ref r = ks_gpuwork_launcher(a, &gw->v[j]);
        if (r.s >= 0)
            count[r.tl]++;
    }
    uint32_t best = 0;
    size_t bc = 0, bn = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (count[k] > bc || (!bc && !count[k] && a->tl[k].n > bn && t->tracks[k].kind == KS_TRACK_CPU)) {
            bc = count[k];
            bn = a->tl[k].n;
            best = (uint32_t)k;
        }
    free(count);
    return best;
}

/* GPU work as (start, duration), sorted by start, with prefix sums: the total of the work starting
 * in [S, E) by two binary searches */
typedef struct started {
    ks_ns *ts, *sum;           /* sum[i] = total duration of the first i */
    size_t n;
} started;

static int cmp_pair(const void *x, const void *y)
{
    const ks_ns *p = x, *q = y;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

static void started_build(started *s, ks_ns *pairs, size_t n)
{
    if (n > 1)
        qsort(pairs, n, 2 * sizeof *pairs, cmp_pair);
    s->n = n;
    s->ts = ks_xmalloc(ks_mul(n ? n : 1, sizeof *s->ts));
    s->sum = ks_xmalloc(ks_mul(n + 1, sizeof *s->sum));
    s->sum[0] = 0;
    for (size_t i = 0; i < n; i++) {
        s->ts[i] = pairs[2 * i];
        s->sum[i + 1] = ks_sat_add(s->sum[i], pairs[2 * i + 1]);
    }
    free(pairs);
}

static size_t started_before(const started *s, ks_ns t)
{
    size_t lo = 0, hi = s->n;
    KS_LOWER_BOUND(lo, hi, mid, s->ts[mid] < t);
    return lo;
}

static ks_ns started_in(const started *s, ks_ns S, ks_ns E)
{
    return ks_sat_sub(s->sum[started_before(s, E)], s->sum[started_before(s, S)]);
}

/* GPU work launched by the other replayed threads, and GPU work without a launch call (not in the
 * model) */
static void coverage_build(const replay *r, started *others, started *unmodeled)
{
    ks_ns *p = NULL, *q = NULL;
    size_t np = 0, cp = 0, nq = 0, cq = 0;
    for (size_t i = 0; i < r->nitems; i++)
        if (r->items[i].thread) {
            KS_PUSH(p, np, cp, r->items[i].start);
            KS_PUSH(p, np, cp, r->items[i].dur);
        }
    const ks_gpuwork *gw = ks_gpuwork_of(r->a);
    for (size_t i = 0; i < gw->n; i++)
        if (ks_gpuwork_launcher(r->a, &gw->v[i]).s < 0) {
            KS_PUSH(q, nq, cq, ks_gpuwork_ts(r->a->trace, &gw->v[i]));
            KS_PUSH(q, nq, cq, ks_gpuwork_dur(r->a->trace, &gw->v[i]));
        }
    started_build(others, p, np / 2);
    started_build(unmodeled, q, nq / 2);
}

/* the waits inside the step [S, end of each thread's replay): their time on the step, and one row
 * per (thread, thread waited on, modeled) over the steps */
static void count_waits(const replay *r, ks_ns S, ks_ns H, ks_ns E, ks_whatif_step *st, ks_whatif *out, size_t *cap)
{
    for (size_t k = 0; k < r->nwaits; k++) {
        const ks_wait *w = &r->waits[k];
        if (w->start < S || w->end > (w->thread ? E : H))
            continue;
        ks_ns len = ks_sat_sub(w->end, w->start);
        if (w->modeled)
            st->waits_modeled_ns = ks_sat_add(st->waits_modeled_ns, len);
        else
            st->waits_unmodeled_ns = ks_sat_add(st->waits_unmodeled_ns, len);
        uint32_t tr = r->th[w->thread].tl->track, on = r->th[w->on].tl->track;
        size_t i = 0;
        while (i < out->nwaits &&
               (out->waits[i].track != tr || out->waits[i].on_track != on || out->waits[i].modeled != w->modeled))
            i++;
        if (i == out->nwaits) {
            ks_whatif_wait x = {tr, on, w->modeled, 0, 0, 0};
            KS_PUSH(out->waits, out->nwaits, *cap, x);
        }
        out->waits[i].count++;
        out->waits[i].wait_ns = ks_sat_add(out->waits[i].wait_ns, len);
        out->waits[i].lag_ns = ks_sat_add(out->waits[i].lag_ns, w->end - w->done);
    }
}

int ks_whatif_run(const ks_analysis *a, const ks_steps *st, const ks_shrink *sh, size_t nsh, ks_whatif *out,
                  ks_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < nsh; k++)
        if (!(sh[k].factor >= 0) || !isfinite(sh[k].factor))
            return ks_error_set(err, "--shrink %s: the factor must be a number >= 0", sh[k].label);
    if (nsh > 250)
        return ks_error_set(err, "too many --shrink options");
    if (!a->ntl)
        return ks_error_set(err, "the trace has no timed events");
    replay r;
    memset(&r, 0, sizeof r);
    r.a = a;
    r.sh = sh;
    r.nsh = nsh;
    uint32_t thread = st && st->n ? st->track : main_thread(a);
    out->track = thread;
    pick_threads(&r, thread);
    for (size_t j = 0; j < r.nth; j++)
        mark_labels(&r, &r.th[j]);
    out->nthreads = r.nth;
    out->threads = ks_xcalloc(r.nth, sizeof *out->threads);
    for (size_t j = 0; j < r.nth; j++)
        out->threads[j] = r.th[j].tl->track;
    out->label_wait_ns = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_wait_ns);
    out->label_own_ns = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_own_ns);
    out->label_wait_track = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_wait_track);
    take_out_waiting(&r, out);
    collect_items(&r);
    find_waits(&r);
    int rc = check_labels(&r, out, err);
    size_t n = rc != KS_OK ? 0 : st && st->n ? st->n : 1;
    if (n) {
        out->v = ks_xcalloc(n, sizeof *out->v);
        out->n = n;
    }
    started others = {0}, unmodeled = {0};
    size_t wcap = 0;
    if (n)
        coverage_build(&r, &others, &unmodeled);
    for (size_t i = 0; i < n; i++) {
        ks_whatif_step *w = &out->v[i];
        ks_ns S, H, E;
        if (st && st->n) {
            S = st->v[i].start;
            H = st->v[i].host_end;
            E = st->v[i].end;
            w->number = st->v[i].number;
        } else {
            S = a->win_start;
            H = a->win_last;
            E = H;
            w->number = -1;
        }
        w->measured_ns = E - S;
        w->model_ns = replay_step(&r, S, H, E, 0, NULL, NULL) - S;
        w->projected_ns = replay_step(&r, S, H, E, 1, &w->label_cpu_ns, &w->label_gpu_ns) - S;
        w->other_threads_gpu_ns = started_in(&others, S, E);
        w->unmodeled_gpu_ns = started_in(&unmodeled, S, E);
        count_waits(&r, S, H, E, w, out, &wcap);
    }
    free(others.ts);
    free(others.sum);
    free(unmodeled.ts);
    free(unmodeled.sum);
    for (size_t j = 0; j < r.nth; j++) {
        for (size_t k = 0; k < nsh; k++)
            ks_ivs_free(&r.th[j].label_cpu[k]);
        free(r.th[j].label_cpu);
        free(r.th[j].launch_shrink);
        ks_ivs_free(&r.th[j].ops);
        ks_ivs_free(&r.th[j].gpu);
        free(r.th[j].marks);
    }
    free(r.waits);
    free(r.by_end);
    free(r.th);
    free(r.thread_of);
    free(r.items);
    if (rc != KS_OK) /* an error leaves nothing to free (freeing again is harmless) */
        ks_whatif_free(out);
    return rc;
}

void ks_whatif_free(ks_whatif *w)
{
    free(w->v);
    free(w->threads);
    free(w->label_wait_ns);
    free(w->label_own_ns);
    free(w->label_wait_track);
    free(w->waits);
    memset(w, 0, sizeof *w);
}
