/* insights/threads.c: which CPU thread launched the GPU work, and how that work is tied to a step
 * and to the forward op that caused it.
 *
 * Training traces launch most backward kernels from the autograd thread, not from the thread
 * holding ProfilerStep#N. Each GPU work event of the window is tied to a step by the first rule
 * that applies (ks_tie):
 *  - own:  launched by the stepping thread inside the step's annotation (the steps' own rule);
 *  - flow: launched by another thread under a backward op (itself or an ancestor) at which a
 *          `fwdbwd` flow ends; the flow starts at the forward op, and the step is the one whose
 *          annotation holds that forward op's start. The forward op (and every label enclosing
 *          it) is credited with the work;
 *  - time: launched by another thread, no flow: its launch call started while a step's annotation
 *          was open;
 *  - none: anything else (no steps, outside every step, no launch call in the trace).
 * A flow end binds to the innermost op or label open at its time on its thread, a flow start the
 * same way on its own thread (Kineto writes both at the op's start).
 *
 * Counted once: GPU work of one device overlaps (streams), so each event gets as its share the
 * part of its interval (clipped to the window) that no work of the device starting before it
 * covered: a sweep in (start, end) order. The shares of a device add up to its busy time, so the
 * ties add up to the window's GPU busy time exactly, and per step, thread, op and tie the figures
 * are sums of shares. For work on one stream (no overlap) a share is the event's duration.
 * Used by `analyze` (the Threads section) and its tests. */
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "analysis/gpuwork_index.h"
#include "analysis/passes.h"
#include "common/i64map.h"
#include "common/util.h"
#include "kinesift/insights.h"

const char *ks_tie_name(ks_tie t)
{
    static const char *names[KS_TIE_COUNT] = {"own_thread", "flow", "time", "none"};
    return (unsigned)t < KS_TIE_COUNT ? names[t] : "?";
}

typedef struct named_table {
    ks_named_ns *v;
    size_t n, cap;
    ks_i64map ix;
} named_table;

static void named_add(named_table *t, ks_str name, ks_ns ns)
{
    uint64_t *p = ks_i64map_get(&t->ix, (int64_t)name);
    size_t i;
    if (p) {
        i = (size_t)*p;
    } else {
        KS_GROW(t->v, t->cap, t->n + 1);
        memset(&t->v[t->n], 0, sizeof t->v[0]);
        t->v[t->n].name = name;
        ks_i64map_put(&t->ix, (int64_t)name, t->n);
        i = t->n++;
    }
    t->v[i].count++;
    t->v[i].gpu_ns = ks_sat_add(t->v[i].gpu_ns, ns);
}

static int cmp_named(const void *x, const void *y)
{
    const ks_named_ns *a = x, *b = y;
    if (a->gpu_ns != b->gpu_ns)
        return a->gpu_ns < b->gpu_ns ? 1 : -1;
    return (a->name > b->name) - (a->name < b->name);
}

static void named_finish(named_table *t, ks_named_ns **v, size_t *n)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, cmp_named);
    *v = t->v;
    *n = t->n;
    ks_i64map_free(&t->ix);
}

static int op_or_label(int kind)
{
    return kind == KS_K_CPU_OP || kind == KS_K_USER_ANNOTATION;
}

typedef struct ctx {
    const ks_analysis *a;
    const ks_steps *st;
    ks_i64map back_to_fwd;     /* packed backward slice -> packed forward slice */
    uint8_t *flow_end_track;   /* per track: fwdbwd flows end there */
    uint8_t *step_name;        /* per name id: steps carry it */
    int32_t *row_of;           /* per track: index in out->v, -1 none */
    named_table ops, labels;
} ctx;

/* bind every fwdbwd flow: its end's op -> its start's op */
static uint64_t bind_flows(ctx *c)
{
    const ks_trace *t = c->a->trace;
    ks_i64map starts;
    ks_i64map_init(&starts);
    uint64_t bound = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        for (size_t i = 0; i < t->tracks[k].n; i++) {
            const ks_event *e = &t->tracks[k].ev[i];
            if (e->kind == KS_K_FLOW_FWDBWD && e->ph == 's' && (e->flags & KS_EF_CORR))
                ks_i64map_put(&starts, ks_event_corr(t, e), ks_ref_pack((uint32_t)k, (int32_t)i));
        }
    for (size_t k = 0; k < t->ntracks && k < c->a->ntl; k++)
        for (size_t i = 0; i < t->tracks[k].n; i++) {
            const ks_event *e = &t->tracks[k].ev[i];
            if (e->kind != KS_K_FLOW_FWDBWD || (e->ph != 'f' && e->ph != 't') || !(e->flags & KS_EF_CORR))
                continue;
            uint64_t *sv = ks_i64map_get(&starts, ks_event_corr(t, e));
            if (!sv)
                continue;
            ks_slice_ref sr = ks_ref_unpack(*sv);
            if (sr.tl >= c->a->ntl)
                continue;
            const ks_event *se = &t->tracks[sr.tl].ev[sr.s];
            int32_t fwd = ks_timeline_at(t, &c->a->tl[sr.tl], se->ts, op_or_label);
            int32_t bwd = ks_timeline_at(t, &c->a->tl[k], e->ts, op_or_label);
            if (fwd < 0 || bwd < 0)
                continue;
            ks_i64map_put(&c->back_to_fwd, (int64_t)ks_ref_pack((uint32_t)k, bwd), ks_ref_pack(sr.tl, fwd));
            c->flow_end_track[k] = 1;
            bound++;
        }
    ks_i64map_free(&starts);
    return bound;
}

/* the step whose annotation is open at t, or -1 */
static ptrdiff_t step_at(const ks_steps *st, ks_ns t)
{
    if (!st || !st->n)
        return -1;
    size_t lo = 0, hi = st->n;
    KS_LOWER_BOUND(lo, hi, mid, st->v[mid].host_start <= t);
    if (!lo)
        return -1;
    const ks_step *s = &st->v[lo - 1];
    return t < s->host_end ? (ptrdiff_t)(lo - 1) : -1;
}

/* the forward op tied to a launch on another thread: the first ancestor (or the launch itself)
 * at which a fwdbwd flow ends */
static int find_forward(const ctx *c, ks_slice_ref r, ks_slice_ref *fwd)
{
    const ks_timeline *tl = &c->a->tl[r.tl];
    for (int32_t i = r.s; i >= 0; i = tl->s[i].parent) {
        uint64_t *v = ks_i64map_get(&c->back_to_fwd, (int64_t)ks_ref_pack(r.tl, i));
        if (v) {
            *fwd = ks_ref_unpack(*v);
            return 1;
        }
    }
    return 0;
}

/* credit a share to the forward op and to each distinct label enclosing it */
static void credit_forward(ctx *c, ks_slice_ref f, ks_ns share)
{
    const ks_trace *t = c->a->trace;
    const ks_timeline *tl = &c->a->tl[f.tl];
    const ks_track *tr = &t->tracks[tl->track];
    named_add(&c->ops, tr->ev[tl->s[f.s].ev].name, share);
    ks_str seen[32];
    size_t nseen = 0;
    for (int32_t i = f.s; i >= 0; i = tl->s[i].parent) {
        const ks_event *e = &tr->ev[tl->s[i].ev];
        if (e->kind != KS_K_USER_ANNOTATION || !e->name || c->step_name[e->name])
            continue;
        int dup = 0;
        for (size_t j = 0; j < nseen; j++)
            dup |= seen[j] == e->name;
        if (dup)
            continue;
        if (nseen < 32)
            seen[nseen++] = e->name;
        named_add(&c->labels, e->name, share);
    }
}

static int cmp_row(const void *x, const void *y)
{
    const ks_thread_row *a = x, *b = y;
    return (a->track > b->track) - (a->track < b->track);
}

static ks_thread_row *row(ctx *c, ks_threads *out, size_t *cap, uint32_t track)
{
    if (c->row_of[track] < 0) {
        KS_GROW(out->v, *cap, out->n + 1);
        memset(&out->v[out->n], 0, sizeof out->v[0]);
        out->v[out->n].track = track;
        c->row_of[track] = (int32_t)out->n++;
    }
    return &out->v[c->row_of[track]];
}

static void tie_one(ctx *c, ks_threads *out, size_t *cap, const ks_gpuwork_iv *w, ks_ns share)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    ks_slice_ref r = ks_gpuwork_launcher_at(a, w->item);
    if (r.s < 0) {
        out->no_launch_ns = ks_sat_add(out->no_launch_ns, share);
        out->tied_ns[KS_TIE_NONE] = ks_sat_add(out->tied_ns[KS_TIE_NONE], share);
        return;
    }
    ks_thread_row *th = row(c, out, cap, r.tl);
    th->gpu_events++;
    ks_ns launch_ts = ks_slice_ts_at(&a->tl[r.tl], r.s);
    int stepping = st && st->n && r.tl == st->track;
    ks_tie tie = KS_TIE_NONE;
    ptrdiff_t step = -1;
    ks_slice_ref f;
    if (stepping) {
        step = step_at(st, launch_ts);
        tie = step >= 0 ? KS_TIE_OWN : KS_TIE_NONE;
    } else if (find_forward(c, r, &f)) {
        credit_forward(c, f, share);
        step = st && st->n && f.tl == st->track ? step_at(st, ks_slice_ts_at(&a->tl[f.tl], f.s)) : -1;
        tie = step >= 0 ? KS_TIE_FLOW : KS_TIE_NONE;
    }
    if (!stepping && step < 0) {
        step = step_at(st, launch_ts);
        tie = step >= 0 ? KS_TIE_TIME : KS_TIE_NONE;
    }
    th->gpu_ns[tie] = ks_sat_add(th->gpu_ns[tie], share);
    out->tied_ns[tie] = ks_sat_add(out->tied_ns[tie], share);
    if (step >= 0)
        out->step_ns[step][tie] = ks_sat_add(out->step_ns[step][tie], share);
}

/* one device: the shares by a sweep in start order, each tied */
static void device(ctx *c, ks_threads *out, size_t *cap, int32_t dev)
{
    const ks_analysis *a = c->a;
    size_t n, most;
    uint32_t *order = ks_gpuwork_device_by_time(a, dev, &n, &most);
    ks_ns cur = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        ks_gpuwork_iv w = ks_gpuwork_iv_at(a, order[i]);
        ks_ns from = w.a > cur ? w.a : cur;
        ks_ns share = w.b > from ? ks_sat_sub(w.b, from) : 0;
        if (w.b > cur)
            cur = w.b;
        out->busy_ns = ks_sat_add(out->busy_ns, share);
        tie_one(c, out, cap, &w, share);
    }
    ks_big_free(order, most * sizeof *order);
}

int ks_threads_find(const ks_analysis *a, const ks_steps *st, ks_threads *out)
{
    memset(out, 0, sizeof *out);
    if (!a->gpu) {
        out->reason = a->gpu_reason ? a->gpu_reason : "not observed: no GPU work";
        return KS_OK;
    }
    const ks_trace *t = a->trace;
    ctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.st = st;
    ks_i64map_init(&c.back_to_fwd);
    ks_i64map_init(&c.ops.ix);
    ks_i64map_init(&c.labels.ix);
    c.flow_end_track = ks_xcalloc(t->ntracks ? t->ntracks : 1, 1);
    c.step_name = ks_xcalloc(ks_strtab_count(t->strings), 1);
    for (size_t i = 0; st && i < st->n; i++)
        c.step_name[st->v[i].name] = 1;
    c.row_of = ks_xmalloc(ks_mul(t->ntracks ? t->ntracks : 1, sizeof *c.row_of));
    for (size_t k = 0; k < t->ntracks; k++)
        c.row_of[k] = -1;
    out->flows = bind_flows(&c);
    out->nsteps = st ? st->n : 0;
    out->step_ns = ks_xcalloc(out->nsteps ? out->nsteps : 1, sizeof *out->step_ns);
    size_t cap = 0;
    for (size_t d = 0; d < a->ngpu; d++)
        device(&c, out, &cap, a->gpu[d].device);
    /* roles; the rows in track order */
    size_t most = 0;
    uint32_t main_track = UINT32_MAX;
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].gpu_events > most) {
            most = out->v[i].gpu_events;
            main_track = out->v[i].track;
        }
    if (st && st->n)
        main_track = st->track;
    for (size_t i = 0; i < out->n; i++) {
        ks_thread_row *r = &out->v[i];
        r->role = r->track == main_track ? (st && st->n ? "steps" : "main")
                  : c.flow_end_track[r->track] ? "backward"
                                               : "other";
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_row);
    named_finish(&c.ops, &out->by_forward_op, &out->nby_forward_op);
    named_finish(&c.labels, &out->labels, &out->nlabels);
    ks_i64map_free(&c.back_to_fwd);
    free(c.flow_end_track);
    free(c.step_name);
    free(c.row_of);
    return KS_OK;
}

void ks_threads_free(ks_threads *t)
{
    free(t->v);
    free(t->step_ns);
    free(t->by_forward_op);
    free(t->labels);
    memset(t, 0, sizeof *t);
}
