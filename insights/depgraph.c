/* insights/depgraph.c: the dependency graph of a trace: what waits for what.
 *
 * What: the replayed threads are the stepping thread, every CPU thread that launched GPU work, and
 * a data loader's pin-memory thread (pick_threads). Each one's time, from its first slice to its
 * last end, is cut into nodes:
 *  - a blocking call (synchronize, blocking copy: ks_is_blocking_call, not inside another) is a
 *    WAIT_GPU node: it is released when the last of the GPU work it waited for ended, then
 *    returns;
 *  - a gap of at least KS_WAIT_MIN_NS in the thread's ops (its slices other than labels), between
 *    two starts or ends of its labels (the thread ran code there), while another replayed thread
 *    is busy for a tenth of it is a wait on that thread: WAIT_THREAD when
 *    the thread went on within max(KS_WAIT_TOL_NS, a tenth of the gap) after a slice of the other
 *    thread began or ended (the main thread in `## backward ##` until the autograd thread's last op
 *    ends; the autograd thread until the main thread calls backward), else IDLE (not modelled:
 *    kept at its length);
 *  - with a pin-memory thread: each _MultiProcessingDataLoaderIter.__next__ of the stepping thread
 *    is a WAIT_QUEUE node (released by its batch, then returns); the pin-memory thread's time is a
 *    node per batch (pin_batches), its pauses of at least KS_WAIT_MIN_NS waits for a worker
 *    process (WAIT_EXT: released by nothing of the graph, replayed no earlier than measured), and
 *    no other thread's gap is a wait on it;
 *  - the rest is CPU work (RUN), the untraced time between ops included.
 * Every kernel, memcpy and memset is a GPU node. Edges: program order on a thread; launch call ->
 * its work (the link of the analysis: correlation, else flow), from the launch point (the call's
 * end, or the work's start when it started first; a blocking call's start); order on a stream
 * (by start); blocking call <- the work it waited for (of each stream, the last piece launched
 * before the call, or by it, that ended before it returned; only the stream a Stream Sync with the
 * call's correlation names, when there is one, or for an Event Sync the last piece launched on
 * its wait_on_stream before the cudaEventRecord call wait_on_cuda_event_record_corr_id names:
 * recorded, else inferred); a stream's first work launched after a cudaStreamWaitEvent <- the
 * last work launched on the event's stream before its cudaEventRecord (Stream Wait Event:
 * recorded); waiting thread <- the other thread's node holding the point it went on after
 * (inferred); queue call k <- the pin-memory thread's node holding the end of batch k - d (first in,
 * first out: queue_edges; inferred). An edge from a point where its thread was waiting, before that
 * wait was released (a launch nested in a blocking call, a mark where the thread began to wait),
 * leaves from where the wait began: from the wait, it would leave before it was released
 * (edge_source).
 * Each node's release: the latest of its incoming edges' points (plus nothing), at most its start;
 * that edge released it (bind). An edge's lag is what the replay adds to its point: the measured
 * distance for the edge that released the node, for the others the least of that distance and
 * what such an edge needs (a launch: the median latency of the launches that released their work;
 * the rest nothing), so a replay without scaling gives every node its measured times, and faster
 * work moves the nodes after it by what their other edges allow.
 * Why it is correct: every edge goes from a point at or before its target's release in measured
 * time, so the graph is acyclic except for ties of zero-length nodes (replayed at their measured
 * release, counted); an edge whose point is after its target's release (clocks out of order) never
 * releases it (counted in clock_order) and keeps its (negative) measured distance as its lag.
 * When it does not apply: threads that launched no GPU work (other than the stepping thread and a
 * pin-memory thread) are not in the graph, so waits on them are not seen, nor are a data loader's
 * worker processes (their batches are the pin-memory thread's waits, fixed in time); an event wait
 * whose record call is unknown (Kineto writes -1) or on no replayed thread is inferred from the
 * times like any other; a stream wait of a stream on another is recorded only where the trace has
 * the Stream Wait Event.
 * Who may use it: insights/ (critpath.c, whatif.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/msort.h"
#include "analysis/gpuwork_index.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"
#include "vocab/labels.h"
#include "analysis/timeline.h"
#include "common/hugemem.h"
#include "common/i64map.h"
#include "common/util.h"
#include "insights/depgraph.h"
#include "insights/insights_int.h"

/* the sizes the graph's memory per event rests on (docs/performance.md, "Memory per event") */
_Static_assert(sizeof(ks_dg_node) == 40, "a graph node is 40 bytes");
_Static_assert(sizeof(ks_dg_edge) == 16, "a graph edge is 16 bytes");

/* ---- threads ------------------------------------------------------------------------------- */

static void pick_threads(ks_dg *g, uint32_t stepping)
{
    const ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    g->thread_of = ks_xmalloc(ks_mul(t->ntracks ? t->ntracks : 1, sizeof *g->thread_of));
    for (size_t k = 0; k < t->ntracks; k++)
        g->thread_of[k] = -1;
    size_t cap = 0;
    ks_dg_thread m0 = {stepping, 0, 0};
    KS_PUSH(g->th, g->nth, cap, m0);
    g->thread_of[stepping] = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t i = 0; i < gw->n; i++) {
        ks_slice_ref l = ks_gpuwork_launcher_at(a, i);
        if (l.s < 0 || g->thread_of[l.tl] >= 0)
            continue;
        ks_dg_thread m = {l.tl, 0, 0};
        g->thread_of[l.tl] = (int32_t)g->nth;
        KS_PUSH(g->th, g->nth, cap, m);
    }
    /* a data loader's pin-memory thread: one CPU thread, not replayed yet, whose top-level slices
     * are the batches it pinned (and the runtime calls of pinned allocations); two such threads
     * (two loaders) would make the order of the batches ambiguous: none is taken */
    g->pin = -1;
    int32_t pin = -1;
    for (size_t k = 0; k < a->ntl && k < t->ntracks; k++) {
        const ks_timeline *tl = &a->tl[k];
        if (g->thread_of[k] >= 0 || t->tracks[tl->track].kind != KS_TRACK_CPU || !tl->n)
            continue;
        const ks_track *tr = &t->tracks[tl->track];
        size_t pins = 0, other = 0;
        for (size_t i = 0; i < tl->n && !other; i++) {
            const ks_slice *s = &tl->s[i];
            if (s->parent >= 0 || (s->flags & KS_SF_SPILLED))
                continue;
            if (ks_is_pin_memory_name(ks_trace_str(t, tr->ev[s->ev].name)))
                pins++;
            else if (s->kind != KS_K_RUNTIME)
                other++;
        }
        if (!pins || other)
            continue;
        if (pin >= 0)
            return;
        pin = (int32_t)k;
    }
    if (pin < 0)
        return;
    ks_dg_thread m = {(uint32_t)pin, 0, 0};
    g->pin = (int32_t)g->nth;
    g->thread_of[pin] = g->pin;
    KS_PUSH(g->th, g->nth, cap, m);
}

static inline int ns_before(const ks_ns *x, const ks_ns *y)
{
    return *x < *y;
}

/* a thread's slices' ends in their starts' order: runs in order but for the parents that end after
 * their children (a natural merge sort moves those few, with scratch for them alone; a radix sort
 * wrote a second array of every end: 17 MB on the dense 1 GiB shape's main thread) */
KS_MSORT_DEFINE(sort_ends, ks_ns, ns_before)

/* per thread: its ops (slices that are not labels) and its slices' starts and ends (the marks:
 * where it ran code). The starts are the timeline's, in order; the ends are sorted here. */
typedef struct thread_info {
    ks_ivs ops;
    const ks_timeline *tl;
    ks_ns *ends;           /* every slice's end (at least its start), sorted */
    size_t n;
    ks_ns first, last;     /* its span */
} thread_info;

static void thread_info_make(const ks_dg *g, size_t j, thread_info *ti)
{
    const ks_timeline *tl = &g->a->tl[g->th[j].track];
    memset(ti, 0, sizeof *ti);
    ti->tl = tl;
    ti->n = tl->n;
    ti->ends = ks_big_alloc(ks_mul(tl->n + 1, sizeof *ti->ends));
    ti->first = INT64_MAX;
    ti->last = INT64_MIN;
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        ks_ns ts = ks_slice_ts(tl, s), end = ks_slice_end(tl, s);
        if (end < ts)
            end = ts;
        /* (in start order: merged as they come, the set stays as small as its union) */
        /* (the pin-memory thread is busy in its labels too: a `pin_memory` label is its work) */
        if (s->kind != KS_K_USER_ANNOTATION || (int32_t)j == g->pin)
            ks_ivs_add_merge(&ti->ops, ts, end);
        ti->ends[i] = end;
        ti->first = ts < ti->first ? ts : ti->first;
        ti->last = end > ti->last ? end : ti->last;
    }
    ks_ivs_normalize(&ti->ops);
    sort_ends(ti->ends, ti->n);
}

/* the number of marks of ti at or before y: of its starts, of its ends */
static size_t starts_upto(const thread_info *ti, ks_ns y)
{
    size_t lo = 0, hi = ti->n;
    KS_LOWER_BOUND(lo, hi, mid, ks_slice_ts_at(ti->tl, mid) <= y);
    return lo;
}

static size_t ends_upto(const thread_info *ti, ks_ns y)
{
    size_t lo = 0, hi = ti->n;
    KS_LOWER_BOUND(lo, hi, mid, ti->ends[mid] <= y);
    return lo;
}

/* the last mark of ti at or before y; 0 when none (q unset) */
static int last_mark(const thread_info *ti, ks_ns y, ks_ns *q)
{
    size_t s = starts_upto(ti, y), e = ends_upto(ti, y);
    if (!s && !e)
        return 0;
    ks_ns a = s ? ks_slice_ts_at(ti->tl, s - 1) : INT64_MIN, b = e ? ti->ends[e - 1] : INT64_MIN;
    *q = a > b ? a : b;
    return 1;
}

/* ---- nodes of one thread ------------------------------------------------------------------- */

typedef struct special {
    ks_ns a, b;
    int32_t slice;         /* a blocking call's slice (or a queue call's), -1 for a gap */
    int32_t on;            /* a gap: the thread it waits on (-1: IDLE) */
    int32_t busy;          /* a gap: the first other thread busy in it (IDLE: the one it waited on) */
    ks_ns q;               /* a gap: the point of `on` it went on after */
    int kind;              /* KS_DG_WAIT_QUEUE, KS_DG_WAIT_EXT; 0: by slice and on */
} special;

/* by start; at one start a call before a gap (a gap inside the call is left out) */
static int cmp_special(const void *x, const void *y)
{
    const special *p = x, *q = y;
    if (p->a != q->a)
        return (p->a > q->a) - (p->a < q->a);
    return (p->slice < 0) - (q->slice < 0);
}

/* per name id: 0 not known yet, 1 not a blocking call, 2 a blocking call (one string compare per
 * name, not per slice) */
static _Thread_local uint8_t *tl_blocking;

static int blocking_slice(const ks_analysis *a, const ks_timeline *tl, size_t i)
{
    const ks_slice *s = &tl->s[i];
    if (!ks_kind_is_launch_api(s->kind))
        return 0;
    const ks_track *tr = &a->trace->tracks[tl->track];
    ks_str nm = tr->ev[s->ev].name;
    if (tl_blocking && !tl_blocking[nm])
        tl_blocking[nm] = ks_is_blocking_call(ks_trace_str(a->trace, nm)) ? 2 : 1;
    return tl_blocking ? tl_blocking[nm] == 2 : ks_is_blocking_call(ks_trace_str(a->trace, nm));
}

/* the gap [x, y) of thread j: a wait on the thread whose latest mark before y lies close enough */
static void classify_gap(const ks_dg *g, const thread_info *ti, size_t j, ks_ns x, ks_ns y, special *sp)
{
    ks_ns len = ks_sat_sub(y, x), tol = len / 10 > KS_WAIT_TOL_NS ? len / 10 : KS_WAIT_TOL_NS;
    sp->on = -2; /* CPU work */
    sp->busy = -1;
    sp->q = INT64_MIN;
    for (size_t k = 0; k < g->nth; k++) {
        /* (a wait on the pin-memory thread is a queue call's, made from the batches) */
        if (k == j || (int32_t)k == g->pin || ks_ivs_covered(&ti[k].ops, x, y) < len / 10)
            continue;
        if (sp->on == -2) {
            sp->on = -1; /* another thread worked meanwhile: at least a wait */
            sp->busy = (int32_t)k;
        }
        ks_ns q;
        if (!last_mark(&ti[k], y, &q))
            continue;
        if (q < x || ks_sat_sub(y, q) > tol || q <= sp->q)
            continue;
        sp->on = (int32_t)k;
        sp->q = q;
    }
}

static void push_node(ks_dg *g, size_t *cap, ks_ns a, ks_ns start, ks_ns end, uint32_t lane, int32_t ref, int kind)
{
    ks_dg_node v = {a, start, end, ref, -1, 0, lane, (uint32_t)kind};
    KS_PUSH(g->v, g->n, *cap, v);
}

typedef struct pending {
    uint32_t node;
    int32_t on;
    ks_ns q;
} pending;

/* The batches of the pin-memory thread and the calls that take them. A batch is pinned as one
 * top-level slice per tensor, so a batch of m tensors is m slices in a row (the gaps between them
 * are no clue: a thread that never waits for its workers pins the next batch as soon as it handed
 * one over). m is read off the calls that waited: such a call returned just after the last slice
 * of its batch ended (the last slice ending inside the call), and between two such calls i < i'
 * with slices j < j' every batch has (j' - j) / (i' - i) slices; the waits must all agree on it,
 * else (or with fewer than two waits) one slice is one batch. The batches end at the slices
 * congruent to a waited one modulo m; the slices before the first such end make the first
 * batch. */
typedef struct pin_batches {
    ks_ns *start, *end;    /* per batch: its first slice's start, its last slice's end (made
                            * non-decreasing), in order */
    size_t n;
    size_t per;            /* m: slices per batch */
    struct pin_call {
        ks_ns a, b;
        int32_t slice;
    } *calls;              /* the stepping thread's queue calls, in order, none inside another */
    size_t ncalls;
} pin_batches;

static void pin_batches_make(const ks_dg *g, pin_batches *pb)
{
    memset(pb, 0, sizeof *pb);
    pb->per = 1;
    if (g->pin < 0)
        return;
    const ks_trace *t = g->a->trace;
    size_t cap = 0;
    const ks_timeline *tl = &g->a->tl[g->th[0].track];
    const ks_track *tr = &t->tracks[tl->track];
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        ks_ns ts = ks_slice_ts(tl, s), end = ks_slice_end(tl, s);
        if ((s->flags & KS_SF_SPILLED) || end < ts || (pb->ncalls && ts < pb->calls[pb->ncalls - 1].b) ||
            !ks_is_queue_next_label(ks_trace_str(t, tr->ev[s->ev].name)))
            continue;
        struct pin_call c = {ts, end, (int32_t)i};
        KS_PUSH(pb->calls, pb->ncalls, cap, c);
    }
    /* the pinning slices */
    ks_ns *ss = NULL, *se = NULL;
    size_t ns = 0, cs = 0, ce = 0, ne = 0;
    tl = &g->a->tl[g->th[g->pin].track];
    tr = &t->tracks[tl->track];
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        if (s->parent >= 0 || (s->flags & KS_SF_SPILLED) || !ks_is_pin_memory_name(ks_trace_str(t, tr->ev[s->ev].name)))
            continue;
        ks_ns e = ks_slice_end(tl, s);
        if (ne && e < se[ne - 1])
            e = se[ne - 1];
        KS_PUSH(ss, ns, cs, ks_slice_ts(tl, s));
        KS_PUSH(se, ne, ce, e);
    }
    /* the waits: (call, its last slice ending inside it) */
    int64_t i0 = -1, j0 = -1, i1 = -1, j1 = -1;
    int agree = 1;
    size_t nw = 0;
    for (size_t i = 0, j = 0; i < pb->ncalls; i++) {
        while (j < ne && se[j] <= pb->calls[i].b)
            j++;
        if (!j || se[j - 1] < pb->calls[i].a)
            continue;
        if (nw++ == 0) {
            i0 = (int64_t)i;
            j0 = (int64_t)j - 1;
        } else if (nw == 2) {
            i1 = (int64_t)i;
            j1 = (int64_t)j - 1;
        } else if ((j1 - j0) * ((int64_t)i - i0) != ((int64_t)j - 1 - j0) * (i1 - i0)) {
            agree = 0;
        }
    }
    if (nw >= 2 && agree && j1 > j0 && (j1 - j0) % (i1 - i0) == 0)
        pb->per = (size_t)((j1 - j0) / (i1 - i0));
    size_t r = nw ? (size_t)j0 % pb->per : pb->per - 1;
    pb->start = ks_xmalloc(ks_mul(ne ? ne : 1, sizeof *pb->start)); /* a batch has a slice at least */
    pb->end = ks_xmalloc(ks_mul(ne ? ne : 1, sizeof *pb->end));
    for (size_t j = 0, first = 0; j < ne; j++) {
        if (j % pb->per != r)
            continue;
        pb->start[pb->n] = ss[first];
        pb->end[pb->n++] = se[j];
        first = j + 1;
    }
    free(ss);
    free(se);
}

static void pin_batches_free(pin_batches *pb)
{
    free(pb->start);
    free(pb->end);
    free(pb->calls);
}

/* CPU work [x, y) of a thread, cut at the points given (the steps' host bounds on the stepping
 * thread: a step's replay begins with a node of its own) */
static void push_run(ks_dg *g, size_t *cap, ks_ns x, ks_ns y, uint32_t lane, const ks_ns *cuts, size_t ncuts)
{
    size_t lo = 0, hi = ncuts;
    KS_LOWER_BOUND(lo, hi, mid, cuts[mid] <= x);
    for (size_t k = lo; k < ncuts && cuts[k] < y; k++) {
        push_node(g, cap, x, x, cuts[k], lane, -1, KS_DG_RUN);
        x = cuts[k];
    }
    push_node(g, cap, x, x, y, lane, -1, KS_DG_RUN);
}

static void thread_nodes(ks_dg *g, const thread_info *ti, size_t j, size_t *cap, pending **pw, size_t *npw, size_t *cpw,
                         const ks_ns *cuts, size_t ncuts, const pin_batches *pb)
{
    const ks_analysis *a = g->a;
    const ks_timeline *tl = &a->tl[g->th[j].track];
    const thread_info *me = &ti[j];
    special *sp = NULL;
    size_t nsp = 0, csp = 0;
    g->th[j].n0 = g->n;
    if (me->first > me->last) {
        g->th[j].n1 = g->n;
        return;
    }
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        if ((s->flags & KS_SF_SPILLED) || !blocking_slice(a, tl, i))
            continue;
        int inner = 0;
        for (int32_t p = s->parent; p >= 0 && !inner; p = tl->s[p].parent)
            inner = blocking_slice(a, tl, (size_t)p);
        ks_ns ts = ks_slice_ts(tl, s), end = ks_slice_end(tl, s);
        if (inner || end < ts || (nsp && ts < sp[nsp - 1].b))
            continue;
        special x = {ts, end, (int32_t)i, -1, -1, INT64_MIN, 0};
        KS_PUSH(sp, nsp, csp, x);
    }
    /* with a pin-memory thread: the stepping thread's calls taking a batch from its queue */
    for (size_t k = 0; j == 0 && k < pb->ncalls; k++) {
        special x = {pb->calls[k].a, pb->calls[k].b, pb->calls[k].slice, -1, -1, INT64_MIN, KS_DG_WAIT_QUEUE};
        KS_PUSH(sp, nsp, csp, x);
    }
    /* the gaps of its ops (ops are busy, so no blocking call lies in one) */
    ks_ns prev = me->first;
    size_t ls = 0, le = 0; /* the marks at or before the point reached: of the starts, of the ends (the
                            * gaps come in time order: the two only move on) */
    for (size_t q = 0; q <= me->ops.n; q++) {
        ks_ns x = prev, y = q < me->ops.n ? me->ops.v[q].a : me->last;
        if (q < me->ops.n)
            prev = me->ops.v[q].b > prev ? me->ops.v[q].b : prev;
        if (y <= x || q == me->ops.n)
            continue;
        /* the thread ran code at its own labels' starts and ends: each piece between two of them
         * is a wait of its own (`## backward ##` ends when backward() returns) */
        for (ks_ns px = x; px < y;) {
            /* the next mark after px: the next start or the next end, whichever comes first */
            while (ls < me->n && ks_slice_ts_at(me->tl, ls) <= px)
                ls++;
            while (le < me->n && me->ends[le] <= px)
                le++;
            ks_ns nx = ls < me->n ? ks_slice_ts_at(me->tl, ls) : INT64_MAX;
            if (le < me->n && me->ends[le] < nx)
                nx = me->ends[le];
            ks_ns py = nx < y ? nx : y;
            if (ks_sat_sub(py, px) >= KS_WAIT_MIN_NS) {
                special s = {px, py, -1, -1, -1, INT64_MIN, 0};
                /* the pin-memory thread's pauses: waits for a worker process's next batch */
                if ((int32_t)j == g->pin)
                    s.kind = KS_DG_WAIT_EXT;
                else
                    classify_gap(g, ti, j, px, py, &s);
                if (s.on != -2 || s.kind)
                    KS_PUSH(sp, nsp, csp, s);
            }
            px = py;
        }
    }
    if (nsp > 1)
        qsort(sp, nsp, sizeof *sp, cmp_special);
    ks_ns cur = me->first;
    uint32_t lane = (uint32_t)j;
    if ((int32_t)j == g->pin) {
        cuts = pb->start; /* the pin-memory thread: a node per batch, from its first slice */
        ncuts = pb->n;
    } else if (j) {
        cuts = NULL;
        ncuts = 0;
    }
    for (size_t k = 0; k < nsp; k++) {
        if (sp[k].a < cur)
            continue;
        if (sp[k].a > cur)
            push_run(g, cap, cur, sp[k].a, lane, cuts, ncuts);
        if (sp[k].kind == KS_DG_WAIT_QUEUE) {
            push_node(g, cap, sp[k].a, sp[k].a, sp[k].b, lane, sp[k].slice, KS_DG_WAIT_QUEUE);
        } else if (sp[k].kind == KS_DG_WAIT_EXT) {
            push_node(g, cap, sp[k].a, sp[k].b, sp[k].b, lane, -1, KS_DG_WAIT_EXT);
        } else if (sp[k].slice >= 0) {
            push_node(g, cap, sp[k].a, sp[k].a, sp[k].b, lane, sp[k].slice, KS_DG_WAIT_GPU);
        } else if (sp[k].on >= 0) {
            push_node(g, cap, sp[k].a, sp[k].b, sp[k].b, lane, -1, KS_DG_WAIT_THREAD);
            pending p = {(uint32_t)(g->n - 1), sp[k].on, sp[k].q};
            KS_PUSH(*pw, *npw, *cpw, p);
        } else {
            push_node(g, cap, sp[k].a, sp[k].a, sp[k].b, lane, sp[k].busy, KS_DG_IDLE);
        }
        cur = sp[k].b;
    }
    if (me->last > cur)
        push_run(g, cap, cur, me->last, lane, cuts, ncuts);
    g->th[j].n1 = g->n;
    /* a thread other than the stepping one that begins within KS_WAIT_START_TOL_NS after a slice
     * of another began or ended was started by it (the autograd thread by the first backward) */
    if (j && (int32_t)j != g->pin && g->n > g->th[j].n0) {
        ks_ns best = INT64_MIN;
        int32_t on = -1;
        for (size_t k = 0; k < g->nth; k++) {
            ks_ns q;
            if (k == j || (int32_t)k == g->pin || !last_mark(&ti[k], me->first, &q) ||
                ks_sat_sub(me->first, q) > KS_WAIT_START_TOL_NS || q <= best)
                continue;
            best = q;
            on = (int32_t)k;
        }
        if (on >= 0) {
            pending p = {(uint32_t)g->th[j].n0, on, best};
            KS_PUSH(*pw, *npw, *cpw, p);
        }
    }
    free(sp);
}

int64_t ks_dg_node_at(const ks_dg *g, size_t j, ks_ns q)
{
    size_t lo = g->th[j].n0, hi = g->th[j].n1;
    if (lo == hi)
        return -1;
    size_t first = lo;
    KS_LOWER_BOUND(lo, hi, mid, g->v[mid].a < q);
    return lo > first ? (int64_t)lo - 1 : (int64_t)first;
}

/* The node of thread j an edge leaves from at point q, q moved to where it leaves: the node holding
 * q; when q lies in the waiting part of a wait, before its release (a mark where the thread began
 * to wait, a launch nested in a blocking call before the work it waited for ended), the node before
 * that wait at its end, where the wait began: an edge from the wait itself would leave it before it
 * was released (a cycle through whatever released it), and the replay places the point relative to
 * the wait's beginning. -1: none, or the wait opens the thread (nothing of the graph comes before
 * the point: it stays where it was, and the edge is not made). */
static int64_t edge_source(const ks_dg *g, size_t j, ks_ns *q)
{
    int64_t src = ks_dg_node_at(g, j, *q);
    if (src < 0)
        return -1;
    const ks_dg_node *v = &g->v[src];
    if (v->kind == KS_DG_RUN || *q >= (v->kind == KS_DG_IDLE ? v->end : v->start))
        return src;
    if (src == (int64_t)g->th[j].n0)
        return -1;
    *q = v->a; /* the end of the node before it: a run, or a wait at its release or later */
    return src - 1;
}

/* ---- GPU nodes ----------------------------------------------------------------------------- */

typedef struct gnode {
    ks_ns ts, end;
    uint32_t item;
} gnode;

static int cmp_gnode(const void *x, const void *y)
{
    const gnode *p = x, *q = y;
    if (p->ts != q->ts)
        return p->ts < q->ts ? -1 : 1;
    if (p->end != q->end)
        return p->end < q->end ? -1 : 1;
    return (p->item > q->item) - (p->item < q->item);
}

static void gpu_nodes(ks_dg *g, size_t *cap)
{
    const ks_analysis *a = g->a;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    g->g0 = g->n;
    g->st = ks_xcalloc(gw->nstreams ? gw->nstreams : 1, sizeof *g->st);
    gnode *tmp = NULL;
    size_t ctmp = 0;
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *s = &gw->streams[k];
        size_t n = 0;
        KS_GROW(tmp, ctmp, s->n);
        for (size_t i = s->first; i < s->first + s->n; i++) {
            const ks_event *e = ks_gpuwork_event(a->trace, &gw->v[i]);
            ks_ns d = ks_event_dur(e);
            gnode x = {e->ts, ks_sat_add(e->ts, d < 0 ? 0 : d), (uint32_t)i};
            tmp[n++] = x;
        }
        /* (a stream's work is nearly always in order already: checked in one pass) */
        size_t sorted = 1;
        while (sorted < n && cmp_gnode(&tmp[sorted - 1], &tmp[sorted]) <= 0)
            sorted++;
        if (sorted < n)
            qsort(tmp, n, sizeof *tmp, cmp_gnode);
        g->st[g->nst].track = s->track;
        g->st[g->nst].n0 = g->n;
        for (size_t i = 0; i < n; i++) {
            push_node(g, cap, tmp[i].ts, tmp[i].ts, tmp[i].end, (uint32_t)(g->nth + g->nst), (int32_t)tmp[i].item,
                      KS_DG_GPU);
        }
        g->st[g->nst].n1 = g->n;
        g->nst++;
    }
    free(tmp);
}

/* ---- edges --------------------------------------------------------------------------------- */

/* The edges of a node, in the order they are made: program order on its thread or order on its
 * stream (from the node before it in its lane), its launch (a GPU node), then the waits: sync,
 * stream wait, thread. The first two are one each at most, known per node (the lane, the launch
 * found per GPU node); the waits, made as they are found, wait in an edge_buf with their targets
 * until sort_edges puts every edge by target. */
typedef struct edge_buf {
    struct made_edge {
        ks_dg_edge e;
        uint32_t dst;
    } *v;
    size_t n, cap;
    uint32_t *lsrc;        /* per GPU node: the node its launch edge leaves from (UINT32_MAX: none) */
    ks_ns *lq;             /* per GPU node: the launch point (INT64_MIN: none) */
} edge_buf;

static void push_edge(ks_dg *g, edge_buf *eb, size_t src, size_t dst, ks_ns q, int kind, int inferred)
{
    struct made_edge e = {{q, (uint32_t)src, (uint8_t)kind, (uint8_t)inferred, 0}, (uint32_t)dst};
    KS_PUSH(eb->v, eb->n, eb->cap, e);
    g->edges[kind][inferred ? 1 : 0]++;
}

/* the launch point of item i: the call's end, or the work's start when it began first, never
 * before the call's start; a blocking call's start */
static ks_ns launch_point(const ks_dg *g, ks_slice_ref l, ks_ns work_ts)
{
    const ks_timeline *tl = &g->a->tl[l.tl];
    const ks_slice *s = &tl->s[l.s];
    ks_ns ts = ks_slice_ts(tl, s), end = ks_slice_end(tl, s);
    if (blocking_slice(g->a, tl, (size_t)l.s))
        return ts;
    ks_ns q = end < work_ts ? end : work_ts;
    return q < ts ? ts : q;
}

/* ---- recorded waits ------------------------------------------------------------------------ */

/* What a wait with a given correlation waited for, as the trace records it: a Stream Sync names its
 * stream (the work launched before the call); an Event Sync or a Stream Wait Event names the stream
 * the event was recorded on and the cudaEventRecord call (wait_on_stream,
 * wait_on_cuda_event_record_corr_id: the work launched on that stream before that call). */
typedef struct rec_wait {
    int64_t stream;        /* the stream waited on */
    int32_t device;        /* its device (-1 unknown) */
    ks_ns before;          /* the work was launched before this point (the cudaEventRecord call's
                            * start); INT64_MAX: before the waiting call */
    ks_ns call;            /* a Stream Wait Event: the cudaStreamWaitEvent call's start */
    int64_t waiter;        /* a Stream Wait Event: the waiting stream; -1 */
} rec_wait;

typedef struct rec_waits {
    ks_i64map by_corr;     /* correlation of the waiting call -> index in v */
    rec_wait *v;
    size_t n, cap;
} rec_waits;

/* the start of every runtime call of a replayed thread whose correlation is a key of want (its
 * value becomes the call's start plus one; 0: not found) */
static void call_starts(const ks_dg *g, ks_i64map *want)
{
    const ks_trace *t = g->a->trace;
    for (size_t j = 0; j < g->nth; j++) {
        const ks_track *tr = &t->tracks[g->a->tl[g->th[j].track].track];
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (e->kind != KS_K_RUNTIME || !(e->flags & KS_EF_CORR))
                continue;
            uint64_t *p = ks_i64map_get(want, ks_event_corr(t, e));
            if (p && !*p)
                *p = (uint64_t)(e->ts - INT64_MIN) + 1;
        }
    }
}

static ks_ns found_start(const ks_i64map *m, int64_t corr)
{
    uint64_t *p = ks_i64map_get(m, corr);
    return p && *p ? (ks_ns)(*p - 1 + (uint64_t)INT64_MIN) : INT64_MIN;
}

static void rec_waits_make(const ks_dg *g, rec_waits *rw)
{
    const ks_trace *t = g->a->trace;
    memset(rw, 0, sizeof *rw);
    ks_i64map_init(&rw->by_corr);
    ks_str ss = ks_strtab_find(t->strings, "Stream Sync", 11);
    ks_str swe = ks_strtab_find(t->strings, "Stream Wait Event", 17);
    const ks_track *tr;
    for (size_t k = 0; ss && (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        if (tr->stream < 0)
            continue;
        int64_t stream = tr->stream >= 1000000 ? tr->stream - 1000000 : tr->stream;
        for (size_t i = 0; i < tr->n; i++)
            if (tr->ev[i].kind == KS_K_SYNC && tr->ev[i].name == ss && (tr->ev[i].flags & KS_EF_CORR)) {
                rec_wait w = {stream, tr->device, INT64_MAX, INT64_MIN, -1};
                ks_i64map_put(&rw->by_corr, ks_event_corr(t, &tr->ev[i]), rw->n);
                KS_PUSH(rw->v, rw->n, rw->cap, w);
            }
    }
    if (!t->nsyncs)
        return;
    /* the calls the event waits name: the cudaEventRecord calls, the cudaStreamWaitEvent calls */
    ks_i64map want;
    ks_i64map_init(&want);
    for (size_t i = 0; i < t->nsyncs; i++) {
        const ks_sync_info *x = &t->syncs[i];
        const ks_event *e = &t->tracks[x->track].ev[x->ev];
        if ((x->has & (KS_SYNC_STREAM | KS_SYNC_RECORD)) != (KS_SYNC_STREAM | KS_SYNC_RECORD) || x->wait_stream < 0 ||
            x->record_corr < 0 || e->kind != KS_K_SYNC || !(e->flags & KS_EF_CORR))
            continue;
        if (!ks_i64map_get(&want, x->record_corr))
            ks_i64map_put(&want, x->record_corr, 0);
        if (e->name == swe && !ks_i64map_get(&want, ks_event_corr(t, e)))
            ks_i64map_put(&want, ks_event_corr(t, e), 0);
    }
    call_starts(g, &want);
    for (size_t i = 0; i < t->nsyncs; i++) {
        const ks_sync_info *x = &t->syncs[i];
        const ks_track *tr = &t->tracks[x->track];
        const ks_event *e = &tr->ev[x->ev];
        if ((x->has & (KS_SYNC_STREAM | KS_SYNC_RECORD)) != (KS_SYNC_STREAM | KS_SYNC_RECORD) || x->wait_stream < 0 ||
            x->record_corr < 0 || e->kind != KS_K_SYNC || !(e->flags & KS_EF_CORR))
            continue;
        ks_ns rec = found_start(&want, x->record_corr);
        if (rec == INT64_MIN)
            continue; /* the record call is not in a replayed thread: the wait stays inferred */
        rec_wait w = {x->wait_stream, tr->device, rec, INT64_MIN, -1};
        if (e->name == swe) {
            w.call = found_start(&want, ks_event_corr(t, e));
            w.waiter = tr->stream >= 1000000 ? tr->stream - 1000000 : tr->stream;
            if (w.call == INT64_MIN || w.waiter < 0)
                continue;
        }
        ks_i64map_put(&rw->by_corr, ks_event_corr(t, e), rw->n);
        KS_PUSH(rw->v, rw->n, rw->cap, w);
    }
    ks_i64map_free(&want);
}

static void rec_waits_free(rec_waits *rw)
{
    ks_i64map_free(&rw->by_corr);
    free(rw->v);
}

/* stream k is the stream a recorded wait names */
static int stream_is(const ks_dg *g, size_t k, const rec_wait *w, int64_t stream)
{
    const ks_track *tr = &g->a->trace->tracks[g->st[k].track];
    return tr->stream == stream && (w->device < 0 || tr->device < 0 || tr->device == w->device);
}

/* the start of the call that launched GPU node i, INT64_MIN when none */
static ks_ns launch_start(const ks_dg *g, size_t i)
{
    ks_slice_ref l = ks_gpuwork_launcher_at(g->a, (size_t)g->v[i].ref);
    if (l.s < 0)
        return INT64_MIN;
    const ks_timeline *tl = &g->a->tl[l.tl];
    return ks_slice_ts(tl, &tl->s[l.s]);
}

/* the blocking call of node w waits for: of each stream (or the one recorded), the last work
 * launched before the call (or the recorded cudaEventRecord call), or by it, that ended by the
 * call's end */
static void sync_edges(ks_dg *g, edge_buf *cap, size_t w, const ks_ns *lq, const rec_waits *rw)
{
    const ks_analysis *a = g->a;
    ks_dg_node *v = &g->v[w];
    const ks_timeline *tl = &a->tl[g->th[v->lane].track];
    const ks_event *ce = &a->trace->tracks[tl->track].ev[tl->s[v->ref].ev];
    const rec_wait *rec = NULL;
    if (ce->flags & KS_EF_CORR) {
        uint64_t *p = ks_i64map_get(&rw->by_corr, ks_event_corr(a->trace, ce));
        if (p && rw->v[*p].waiter < 0)
            rec = &rw->v[*p];
    }
    ks_ns release = v->a;
    for (size_t k = 0; k < g->nst; k++) {
        const ks_dg_stream *s = &g->st[k];
        if (rec && !stream_is(g, k, rec, rec->stream))
            continue;
        size_t lo = s->n0, hi = s->n1;
        KS_LOWER_BOUND(lo, hi, mid, g->v[mid].start <= v->end);
        for (size_t i = lo, tries = 0; i > s->n0 && tries < 8; i--, tries++) {
            const ks_dg_node *x = &g->v[i - 1];
            if (rec && rec->before != INT64_MAX) {
                /* an event: the last work launched before its cudaEventRecord call */
                ks_ns ls = launch_start(g, i - 1);
                if (ls == INT64_MIN || ls >= rec->before)
                    continue;
            } else {
                ks_slice_ref l = ks_gpuwork_launcher_at(a, (size_t)x->ref);
                int by_it = l.s == v->ref && g->thread_of[l.tl] == (int32_t)v->lane;
                if (!by_it && lq[i - 1 - g->g0] > v->a)
                    continue;
            }
            if (x->end <= v->end) {
                push_edge(g, cap, i - 1, w, x->end, KS_DEP_SYNC, !rec);
                release = x->end > release ? x->end : release;
            }
            break;
        }
    }
    v->start = release;
}

/* a stream that waited for an event (Stream Wait Event): the first work on it launched after the
 * cudaStreamWaitEvent call waits for the last work launched on the recorded stream before the
 * cudaEventRecord call (recorded). One that would end after the waiting work began contradicts
 * the times: left out, counted with the edges out of clock order. */
static void stream_wait_edges(ks_dg *g, edge_buf *cap, const rec_waits *rw)
{
    for (size_t r = 0; r < rw->n; r++) {
        const rec_wait *w = &rw->v[r];
        if (w->waiter < 0)
            continue;
        int64_t src = -1, dst = -1;
        for (size_t k = 0; k < g->nst && dst < 0; k++) {
            const ks_dg_stream *s = &g->st[k];
            if (!stream_is(g, k, w, w->waiter))
                continue;
            size_t lo = s->n0, hi = s->n1;
            KS_LOWER_BOUND(lo, hi, mid, g->v[mid].start < w->call);
            for (size_t i = lo, tries = 0; i < s->n1 && tries < 64; i++, tries++) {
                if (launch_start(g, i) > w->call) {
                    dst = (int64_t)i;
                    break;
                }
            }
        }
        /* the work waited for began before the waiting work did */
        for (size_t k = 0; k < g->nst && dst >= 0 && src < 0; k++) {
            const ks_dg_stream *s = &g->st[k];
            if (!stream_is(g, k, w, w->stream))
                continue;
            size_t lo = s->n0, hi = s->n1;
            KS_LOWER_BOUND(lo, hi, mid, g->v[mid].start <= g->v[dst].start);
            for (size_t i = lo, tries = 0; i > s->n0 && tries < 64; i--, tries++) {
                ks_ns ls = launch_start(g, i - 1);
                if (ls != INT64_MIN && ls < w->before) {
                    src = (int64_t)(i - 1);
                    break;
                }
            }
        }
        if (src < 0 || dst < 0)
            continue;
        if (g->v[src].end > g->v[dst].start) {
            g->clock_order++;
            continue;
        }
        push_edge(g, cap, (size_t)src, (size_t)dst, g->v[src].end, KS_DEP_SYNC, 0);
    }
}

/* The batches of the pin-memory thread (its top-level pinning slices, in order) go first in, first
 * out to the stepping thread's queue calls: call i takes batch i - d, d the least shift (at least
 * 0: the first calls may take batches pinned before the trace) under which no call returns before
 * its batch was pinned. A call that waited returned just after its batch ended, so a smaller shift
 * would give it a batch pinned after it returned: the waits fix d; when no call waited (the batches
 * were ready), the least shift ties each call to the latest batch it can have. Each call is
 * released no earlier than its batch's end (the point of the edge: the node of the pin-memory
 * thread holding it); a batch ended before the call began does not release it. */
static void queue_edges(ks_dg *g, edge_buf *cap, const pin_batches *pb)
{
    if (g->pin < 0)
        return;
    const ks_ns *be = pb->end; /* the batches' ends, in order (the thread pins one at a time) */
    size_t nb = pb->n;
    /* the shift: per call i, the batches ended by its return (cnt): d >= i + 1 - cnt */
    int64_t d = 0, i = 0;
    size_t cnt = 0;
    for (size_t v = g->th[0].n0; v < g->th[0].n1; v++) {
        if (g->v[v].kind != KS_DG_WAIT_QUEUE)
            continue;
        while (cnt < nb && be[cnt] <= g->v[v].end)
            cnt++;
        if (i + 1 - (int64_t)cnt > d)
            d = i + 1 - (int64_t)cnt;
        i++;
    }
    i = 0;
    for (size_t v = g->th[0].n0; v < g->th[0].n1; v++) {
        ks_dg_node *n = &g->v[v];
        if (n->kind != KS_DG_WAIT_QUEUE)
            continue;
        int64_t b = i++ - d;
        if (b < 0 || (size_t)b >= nb)
            continue;
        ks_ns q = be[b];
        int64_t src = edge_source(g, (size_t)g->pin, &q);
        if (src < 0)
            continue;
        push_edge(g, cap, (size_t)src, v, q, KS_DEP_DATA_QUEUE, 1);
        ks_ns rel = be[b] < n->end ? be[b] : n->end;
        n->start = rel > n->a ? rel : n->a;
    }
}

static void make_edges(ks_dg *g, const pending *pw, size_t npw, edge_buf *cap, const pin_batches *pb)
{
    const ks_analysis *a = g->a;
    for (size_t j = 0; j < g->nth; j++)
        if (g->th[j].n1 > g->th[j].n0)
            g->edges[KS_DEP_PROGRAM][0] += g->th[j].n1 - g->th[j].n0 - 1;
    for (size_t k = 0; k < g->nst; k++)
        if (g->st[k].n1 > g->st[k].n0)
            g->edges[KS_DEP_STREAM][0] += g->st[k].n1 - g->st[k].n0 - 1;
    size_t ngpu = g->n - g->g0;
    ks_ns *lq = ks_xmalloc(ks_mul(ngpu ? ngpu : 1, sizeof *lq));
    uint32_t *lsrc = ks_xmalloc(ks_mul(ngpu ? ngpu : 1, sizeof *lsrc));
    g->launched = ks_xcalloc(ngpu ? ngpu : 1, 1);
    for (size_t i = g->g0; i < g->n; i++) {
        ks_slice_ref l = ks_gpuwork_launcher_at(a, (size_t)g->v[i].ref);
        lq[i - g->g0] = INT64_MIN;
        lsrc[i - g->g0] = UINT32_MAX;
        if (l.s < 0 || g->thread_of[l.tl] < 0) {
            g->unlaunched++;
            continue;
        }
        ks_ns q = launch_point(g, l, g->v[i].start);
        int64_t src = ks_dg_node_at(g, (size_t)g->thread_of[l.tl], q);
        if (src < 0) {
            g->unlaunched++;
            continue;
        }
        lq[i - g->g0] = q;
        lsrc[i - g->g0] = (uint32_t)src;
        g->launched[i - g->g0] = 1;
        g->edges[KS_DEP_LAUNCH][0]++;
    }
    cap->lq = lq;
    cap->lsrc = lsrc;
    rec_waits rw;
    rec_waits_make(g, &rw);
    for (size_t i = 0; i < g->g0; i++)
        if (g->v[i].kind == KS_DG_WAIT_GPU)
            sync_edges(g, cap, i, lq, &rw);
    stream_wait_edges(g, cap, &rw);
    rec_waits_free(&rw);
    queue_edges(g, cap, pb);
    /* a launch inside a blocking call or a queue call before it was released (known only now: the
     * edges above set their releases, the sync edges from these launch points) leaves where the
     * call began; in a call that opens its thread, it is not placed: the work counts as launched
     * by no replayed thread */
    for (size_t i = g->g0; i < g->n; i++) {
        uint32_t src = lsrc[i - g->g0];
        if (src == UINT32_MAX || g->v[src].kind == KS_DG_RUN)
            continue;
        ks_ns q = lq[i - g->g0];
        int64_t to = edge_source(g, g->v[src].lane, &q);
        if (to == (int64_t)src)
            continue;
        if (to < 0) {
            lq[i - g->g0] = INT64_MIN;
            lsrc[i - g->g0] = UINT32_MAX;
            g->launched[i - g->g0] = 0;
            g->edges[KS_DEP_LAUNCH][0]--;
            g->unlaunched++;
            continue;
        }
        lq[i - g->g0] = q;
        lsrc[i - g->g0] = (uint32_t)to;
    }
    for (size_t k = 0; k < npw; k++) {
        /* a point where that thread was itself waiting leaves it where the wait began (else a
         * wait on each other would be a cycle); in the wait that opens it (only a thread's start:
         * a gap's wait is on a thread that worked within it, so its last mark follows that
         * wait), the thread started there starts as measured, with no edge */
        ks_ns q = pw[k].q;
        int64_t src = edge_source(g, (size_t)pw[k].on, &q);
        if (src >= 0)
            push_edge(g, cap, (size_t)src, pw[k].node, q, KS_DEP_THREAD, 1);
    }
}

/* node i has an edge from the node before it in its lane (program or stream order) */
static int has_order_edge(const ks_dg *g, size_t i)
{
    const ks_dg_node *v = &g->v[i];
    return i > (v->kind == KS_DG_GPU ? g->st[v->lane - g->nth].n0 : g->th[v->lane].n0);
}

/* node i has a launch edge */
static int has_launch_edge(const ks_dg *g, const edge_buf *eb, size_t i)
{
    return i >= g->g0 && eb->lsrc[i - g->g0] != UINT32_MAX;
}

/* the edges by target, each node's first in p0, in the order they were made (program or stream,
 * launch, then the waits in the order found: a counting sort, stable) */
static void sort_edges(ks_dg *g, edge_buf *eb)
{
    for (size_t i = 0; i < g->n; i++)
        g->v[i].p0 = 0;
    size_t ne = eb->n;
    /* p0 first counts the edges of the node before */
    for (size_t i = 0; i < g->n; i++) {
        uint32_t c = (uint32_t)has_order_edge(g, i) + (uint32_t)has_launch_edge(g, eb, i);
        ne += c;
        if (i + 1 < g->n)
            g->v[i + 1].p0 += c;
    }
    for (size_t i = 0; i < eb->n; i++)
        if (eb->v[i].dst + 1 < g->n)
            g->v[eb->v[i].dst + 1].p0++;
    for (size_t i = 1; i < g->n; i++)
        g->v[i].p0 += g->v[i - 1].p0;
    g->ne = ne;
    g->e = ks_xmalloc(ks_mul(g->ne ? g->ne : 1, sizeof *g->e));
    uint32_t *at = ks_xmalloc(ks_mul(g->n ? g->n : 1, sizeof *at));
    for (size_t i = 0; i < g->n; i++) {
        uint32_t k = g->v[i].p0;
        if (has_order_edge(g, i)) {
            ks_dg_edge e = {g->v[i - 1].end, (uint32_t)(i - 1), g->v[i].kind == KS_DG_GPU ? KS_DEP_STREAM : KS_DEP_PROGRAM,
                            0, 0};
            g->e[k++] = e;
        }
        if (has_launch_edge(g, eb, i)) {
            ks_dg_edge e = {eb->lq[i - g->g0], eb->lsrc[i - g->g0], KS_DEP_LAUNCH, 0, 0};
            g->e[k++] = e;
        }
        at[i] = k;
    }
    for (size_t i = 0; i < eb->n; i++)
        g->e[at[eb->v[i].dst]++] = eb->v[i].e;
    free(at);
    free(eb->v);
    free(eb->lq);
    free(eb->lsrc);
    memset(eb, 0, sizeof *eb);
}

/* each node's incoming edges, the edge that released it, and every edge's lag */
static void bind_edges(ks_dg *g, edge_buf *eb)
{
    sort_edges(g, eb);
    ks_ns *lat = NULL;
    size_t nlat = 0, clat = 0;
    for (size_t i = 0; i < g->n; i++) {
        ks_dg_node *v = &g->v[i];
        int32_t best = -1;
        /* (a wait for a worker process: what released it is not in the graph) */
        for (uint32_t k = v->p0; v->kind != KS_DG_WAIT_EXT && k < ks_dg_in_end(g, i); k++) {
            const ks_dg_edge *e = &g->e[k];
            if (e->q > v->start) {
                g->clock_order++;
                continue;
            }
            /* the latest point; at equal points the later kind (launch, sync, thread over order) */
            if (best < 0 || e->q > g->e[best].q || (e->q == g->e[best].q && e->kind >= g->e[best].kind))
                best = (int32_t)k;
        }
        v->bind = best;
        if (best >= 0 && g->e[best].kind == KS_DEP_LAUNCH)
            KS_PUSH(lat, nlat, clat, ks_sat_sub(v->start, g->e[best].q));
    }
    if (nlat) {
        ks_sort_ns(lat, nlat);
        g->launch_typ = lat[nlat / 2];
    }
    free(lat);
    for (size_t i = 0; i < g->n; i++) {
        ks_dg_node *v = &g->v[i];
        int unlaunched = v->kind == KS_DG_GPU && !g->launched[i - g->g0];
        for (uint32_t k = v->p0; k < ks_dg_in_end(g, i); k++) {
            ks_dg_edge *e = &g->e[k];
            ks_ns gap = ks_sat_sub(v->start, e->q);
            ks_ns need = e->kind == KS_DEP_LAUNCH ? g->launch_typ : 0;
            /* work no replayed thread launched keeps its distance to the work before it */
            e->measured = (int32_t)k == v->bind || gap < 0 || unlaunched || gap < need;
        }
    }
}

/* node i's edge e, as bind_edges weighs it: counted when out of clock order, else kept in best[i]
 * (has[i]) when it releases i last so far */
static inline void consider(ks_dg *g, size_t i, const ks_dg_edge *e, ks_dg_edge *best, uint8_t *has)
{
    const ks_dg_node *v = &g->v[i];
    if (v->kind == KS_DG_WAIT_EXT)
        return;
    if (e->q > v->start) {
        g->clock_order++;
        return;
    }
    if (!has[i] || e->q > best[i].q || (e->q == best[i].q && e->kind >= best[i].kind)) {
        best[i] = *e;
        has[i] = 1;
    }
}

/* bind_edges for a graph that is walked, not replayed (the critical path): each node's binding edge
 * found over the same edges in the same order (its order edge, its launch edge, then the waits in
 * the order made), but without laying every edge out by target: g->e keeps the binding edges alone
 * (each measured, as bind_edges marks a node's bind), node i's at p0 when it has one. On the dense
 * 1 GiB shape the edges by target were 17 MB beside the waits' buffer and the nodes. */
static void bind_only(ks_dg *g, edge_buf *eb)
{
    size_t n = g->n ? g->n : 1;
    ks_dg_edge *best = ks_xmalloc(ks_mul(n, sizeof *best));
    uint8_t *has = ks_xcalloc(n, 1);
    for (size_t i = 0; i < g->n; i++) {
        if (has_order_edge(g, i)) {
            ks_dg_edge e = {g->v[i - 1].end, (uint32_t)(i - 1), g->v[i].kind == KS_DG_GPU ? KS_DEP_STREAM : KS_DEP_PROGRAM,
                            0, 0};
            consider(g, i, &e, best, has);
        }
        if (has_launch_edge(g, eb, i)) {
            ks_dg_edge e = {eb->lq[i - g->g0], eb->lsrc[i - g->g0], KS_DEP_LAUNCH, 0, 0};
            consider(g, i, &e, best, has);
        }
    }
    for (size_t k = 0; k < eb->n; k++)
        consider(g, eb->v[k].dst, &eb->v[k].e, best, has);
    free(eb->v);
    free(eb->lq);
    free(eb->lsrc);
    memset(eb, 0, sizeof *eb);
    ks_ns *lat = NULL;
    size_t nlat = 0, clat = 0, k = 0;
    for (size_t i = 0; i < g->n; i++) {
        ks_dg_node *v = &g->v[i];
        v->p0 = (uint32_t)k;
        v->bind = -1;
        if (!has[i])
            continue;
        best[k] = best[i]; /* (k <= i: nothing unread is overwritten) */
        best[k].measured = 1;
        if (best[k].kind == KS_DEP_LAUNCH)
            KS_PUSH(lat, nlat, clat, ks_sat_sub(v->start, best[k].q));
        v->bind = (int32_t)k++;
    }
    free(has);
    if (nlat) {
        ks_sort_ns(lat, nlat);
        g->launch_typ = lat[nlat / 2];
    }
    free(lat);
    g->ne = k;
    g->e = ks_xrealloc(best, ks_mul(k ? k : 1, sizeof *best));
}

void ks_dg_build(const ks_analysis *a, uint32_t stepping, const ks_steps *st, int binds_only, ks_dg *g)
{
    memset(g, 0, sizeof *g);
    g->a = a;
    tl_blocking = ks_xcalloc((size_t)ks_strtab_count(a->trace->strings) + 1, 1);
    pick_threads(g, stepping);
    pin_batches pb;
    pin_batches_make(g, &pb);
    thread_info *ti = ks_xcalloc(g->nth, sizeof *ti);
    for (size_t j = 0; j < g->nth; j++)
        thread_info_make(g, j, &ti[j]);
    size_t cap = 0, npw = 0, cpw = 0;
    pending *pw = NULL;
    size_t ncuts = 0;
    ks_ns *cuts = ks_xmalloc(ks_mul(st && st->n ? 2 * st->n : 1, sizeof *cuts));
    for (size_t i = 0; st && i < st->n; i++) {
        cuts[ncuts++] = st->v[i].host_start;
        cuts[ncuts++] = st->v[i].host_end;
    }
    ks_sort_ns(cuts, ncuts);
    for (size_t j = 0; j < g->nth; j++)
        thread_nodes(g, ti, j, &cap, &pw, &npw, &cpw, cuts, ncuts, &pb);
    free(cuts);
    /* (the threads' ops and marks are not needed past their nodes: freed before the edges are made) */
    for (size_t j = 0; j < g->nth; j++) {
        ks_ivs_free(&ti[j].ops);
        ks_big_free(ti[j].ends, (ti[j].n + 1) * sizeof *ti[j].ends);
    }
    free(ti);
    gpu_nodes(g, &cap);
    /* the nodes are kept while the graph is: without their growth slack */
    if (cap > g->n)
        g->v = ks_xrealloc(g->v, (g->n ? g->n : 1) * sizeof *g->v);
    edge_buf eb = {0};
    make_edges(g, pw, npw, &eb, &pb);
    pin_batches_free(&pb);
    if (binds_only)
        bind_only(g, &eb);
    else
        bind_edges(g, &eb);
    free(pw);
    free(tl_blocking);
    tl_blocking = NULL;
}

void ks_dg_free(ks_dg *g)
{
    free(g->v);
    free(g->e);
    free(g->th);
    free(g->st);
    free(g->thread_of);
    free(g->launched);
    memset(g, 0, sizeof *g);
}

/* ---- scaling ------------------------------------------------------------------------------- */

/* 1 + the first shrink naming slice i of tl or one of its ancestors (names: per shrink its id) */
static uint8_t named_up(const ks_trace *t, const ks_timeline *tl, int32_t i, const ks_str *names, size_t nsh)
{
    const ks_track *tr = &t->tracks[tl->track];
    for (int32_t p = i; p >= 0; p = tl->s[p].parent)
        for (size_t k = 0; k < nsh; k++)
            if (names[k] && tr->ev[tl->s[p].ev].name == names[k])
                return (uint8_t)(k + 1);
    return 0;
}

/* 1 + the first shrink naming a GPU range holding event ev of a GPU track */
static uint8_t gpu_range(const ks_dg *g, const ks_timeline *gtl, int32_t s, const ks_str *names, size_t nsh)
{
    const ks_track *tr = &g->a->trace->tracks[gtl->track];
    for (int32_t p = s >= 0 ? gtl->s[s].parent : -1; p >= 0; p = gtl->s[p].parent)
        if (gtl->s[p].kind == KS_K_GPU_ANNOTATION)
            for (size_t k = 0; k < nsh; k++)
                if (names[k] && tr->ev[gtl->s[p].ev].name == names[k])
                    return (uint8_t)(k + 1);
    return 0;
}

void ks_dg_scale_make(const ks_dg *g, const ks_shrink *sh, size_t nsh, ks_dg_scale *sc)
{
    const ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    memset(sc, 0, sizeof *sc);
    sc->sh = sh;
    sc->nsh = nsh;
    size_t ngpu = g->n - g->g0;
    sc->gpu_factor = ks_xmalloc(ks_mul(ngpu ? ngpu : 1, sizeof *sc->gpu_factor));
    sc->gpu_by = ks_xcalloc(ngpu ? ngpu : 1, 1);
    for (size_t i = 0; i < ngpu; i++)
        sc->gpu_factor[i] = 1.0;
    if (!nsh)
        return;
    ks_str *names = ks_xcalloc(nsh, sizeof *names);
    int cpu_all = 0, gpu_all = 0;
    for (size_t k = 0; k < nsh; k++) {
        if (!strcmp(sh[k].label, "@cpu"))
            cpu_all = cpu_all ? cpu_all : (int)k + 1;
        else if (!strcmp(sh[k].label, "@gpu"))
            gpu_all = gpu_all ? gpu_all : (int)k + 1;
        else if (sh[k].label[0] != '@')
            names[k] = ks_strtab_find(t->strings, sh[k].label, strlen(sh[k].label));
    }
    sc->cover = ks_xcalloc(ks_mul(g->nth, nsh), sizeof *sc->cover);
    for (size_t j = 0; j < g->nth; j++) {
        const ks_timeline *tl = &a->tl[g->th[j].track];
        const ks_track *tr = &t->tracks[tl->track];
        for (size_t i = 0; i < tl->n; i++) {
            ks_str nm = tr->ev[tl->s[i].ev].name;
            for (size_t k = 0; k < nsh; k++)
                if (names[k] && nm == names[k])
                    ks_ivs_add(&sc->cover[j * nsh + k], ks_slice_ts(tl, &tl->s[i]), ks_slice_end(tl, &tl->s[i]));
        }
        if (cpu_all)
            ks_ivs_add(&sc->cover[j * nsh + (size_t)(cpu_all - 1)], INT64_MIN / 4, INT64_MAX / 4);
        for (size_t k = 0; k < nsh; k++)
            ks_ivs_normalize(&sc->cover[j * nsh + k]);
    }
    /* GPU work: launched inside a shrunk slice, inside a GPU range of that name, or @gpu */
    int32_t **ev_slice = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *ev_slice);
    for (size_t i = g->g0; i < g->n; i++) {
        size_t item = (size_t)g->v[i].ref;
        uint8_t by = 0;
        ks_slice_ref l = ks_gpuwork_launcher_at(a, item);
        if (l.s >= 0)
            by = named_up(t, &a->tl[l.tl], l.s, names, nsh);
        if (!by) {
            const ks_gpuwork_item *it = &ks_gpuwork_of(a)->v[item];
            const ks_timeline *gtl = &a->tl[it->track];
            if (!ev_slice[it->track])
                ev_slice[it->track] = ks_timeline_event_slices(t, gtl);
            by = gpu_range(g, gtl, ev_slice[it->track][it->ev], names, nsh);
        }
        if (!by && gpu_all)
            by = (uint8_t)gpu_all;
        sc->gpu_by[i - g->g0] = by;
        if (by)
            sc->gpu_factor[i - g->g0] = sh[by - 1].factor;
    }
    for (size_t k = 0; k < a->ntl; k++)
        if (ev_slice[k])
            ks_big_free(ev_slice[k], t->tracks[k].n * sizeof **ev_slice);
    free(ev_slice);
    free(names);
}

void ks_dg_scale_free(const ks_dg *g, ks_dg_scale *sc)
{
    if (sc->cover)
        for (size_t i = 0; i < g->nth * sc->nsh; i++)
            ks_ivs_free(&sc->cover[i]);
    free(sc->cover);
    free(sc->gpu_factor);
    free(sc->gpu_by);
    memset(sc, 0, sizeof *sc);
}

/* a double of ns as ns: rounded, within [0, INT64_MAX / 2] */
static ks_ns ns_of(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= (double)(INT64_MAX / 2))
        return INT64_MAX / 2;
    return (ks_ns)llround(x);
}

ks_ns ks_dg_scaled(const ks_dg *g, const ks_dg_scale *sc, size_t j, ks_ns x, ks_ns y)
{
    (void)g;
    ks_ns len = ks_sat_sub(y, x);
    if (len <= 0)
        return 0;
    if (!sc || !sc->nsh || !sc->cover)
        return len;
    double t = (double)len;
    int any = 0;
    for (size_t k = 0; k < sc->nsh; k++) {
        const ks_ivs *c = &sc->cover[j * sc->nsh + k];
        if (!c->n || sc->sh[k].factor == 1.0)
            continue;
        ks_ns in = ks_ivs_covered(c, x, y);
        if (in) {
            t -= (1.0 - sc->sh[k].factor) * (double)in;
            any = 1;
        }
    }
    return any ? ns_of(t) : len;
}

/* ---- replay -------------------------------------------------------------------------------- */

ks_ns ks_dg_map(const ks_dg *g, const ks_dg_scale *sc, size_t v, ks_ns q, const ks_ns *s0, const ks_ns *s1)
{
    const ks_dg_node *n = &g->v[v];
    ks_ns r;
    switch (n->kind) {
    case KS_DG_RUN:
        r = ks_sat_add(s0[v], ks_dg_scaled(g, sc, n->lane, n->a, q));
        break;
    case KS_DG_GPU:
        r = q >= n->end ? s1[v] : ks_sat_add(s0[v], ks_sat_sub(q, n->start));
        break;
    case KS_DG_WAIT_GPU:
    case KS_DG_WAIT_QUEUE:
        r = q <= n->start ? s0[v] : ks_sat_add(s0[v], ks_sat_sub(q, n->start));
        break;
    case KS_DG_IDLE:
        r = ks_sat_add(s0[v], ks_sat_sub(q, n->a));
        break;
    default:
        r = s0[v];
        break;
    }
    return r > s1[v] ? s1[v] : r < s0[v] ? s0[v] : r;
}

static void replay_node(const ks_dg *g, const ks_dg_scale *sc, size_t i, const uint32_t *done, uint32_t stamp,
                        ks_ns *s0, ks_ns *s1)
{
    const ks_dg_node *v = &g->v[i];
    ks_ns r = INT64_MIN;
    uint32_t k1 = ks_dg_in_end(g, i);
    for (uint32_t k = v->p0; k < k1; k++) {
        const ks_dg_edge *e = &g->e[k];
        /* a node not replayed (outside the range, or not reached yet in a cycle) is as measured */
        ks_ns p = done[e->src] == stamp ? ks_dg_map(g, sc, e->src, e->q, s0, s1) : e->q;
        p = ks_sat_add(p, ks_dg_lag(g, v, e));
        r = p > r ? p : r;
    }
    /* (a wait for a worker process ends no earlier than it did: the batch came from outside) */
    if (v->p0 == k1 || (v->kind == KS_DG_WAIT_EXT && r < v->start))
        r = v->start;
    s0[i] = r;
    switch (v->kind) {
    case KS_DG_RUN:
        s1[i] = ks_sat_add(r, ks_dg_scaled(g, sc, v->lane, v->a, v->end));
        break;
    case KS_DG_WAIT_GPU:
    case KS_DG_WAIT_QUEUE:
        s1[i] = ks_sat_add(r, ks_dg_scaled(g, sc, v->lane, v->start, v->end));
        break;
    case KS_DG_IDLE:
        s1[i] = ks_sat_add(r, ks_sat_sub(v->end, v->a));
        break;
    case KS_DG_GPU: {
        ks_ns d = ks_sat_sub(v->end, v->start);
        double f = sc && sc->gpu_factor ? sc->gpu_factor[i - g->g0] : 1.0;
        s1[i] = ks_sat_add(r, f == 1.0 ? d : ns_of(f * (double)d));
        break;
    }
    default:
        s1[i] = r;
        break;
    }
}

void ks_dg_replayer_init(const ks_dg *g, ks_dg_replayer *r)
{
    size_t n = g->n ? g->n : 1;
    memset(r, 0, sizeof *r);
    r->g = g;
    r->out0 = ks_xcalloc(n + 1, sizeof *r->out0);
    r->succ = ks_xmalloc(ks_mul(g->ne ? g->ne : 1, sizeof *r->succ));
    r->indeg = ks_xmalloc(ks_mul(n, sizeof *r->indeg));
    r->in = ks_xcalloc(n, sizeof *r->in);
    r->done = ks_xcalloc(n, sizeof *r->done);
    r->queue = ks_xmalloc(ks_mul(2 * n, sizeof *r->queue)); /* each node once, and once more forced */
    r->sub = ks_xmalloc(ks_mul(n, sizeof *r->sub));
    for (size_t k = 0; k < g->ne; k++)
        r->out0[g->e[k].src + 1]++;
    for (size_t i = 0; i < g->n; i++)
        r->out0[i + 1] += r->out0[i];
    uint32_t *fill = ks_xmalloc(ks_mul(n, sizeof *fill));
    memcpy(fill, r->out0, n * sizeof *fill);
    for (size_t i = 0; i < g->n; i++)
        for (uint32_t k = g->v[i].p0; k < ks_dg_in_end(g, i); k++)
            r->succ[fill[g->e[k].src]++] = (uint32_t)i;
    free(fill);
}

void ks_dg_replayer_free(ks_dg_replayer *r)
{
    free(r->out0);
    free(r->succ);
    free(r->indeg);
    free(r->in);
    free(r->done);
    free(r->queue);
    free(r->sub);
    memset(r, 0, sizeof *r);
}

/* the nodes of one lane (v[n0 .. n1), whose releases are in order) released in [lo, hi) */
static void lane_range(const ks_dg *g, size_t n0, size_t n1, ks_ns lo, ks_ns hi, ks_dg_replayer *r)
{
    size_t a = n0, b = n1;
    KS_LOWER_BOUND(a, b, mid, g->v[mid].start < lo);
    for (size_t i = a; i < n1 && g->v[i].start < hi; i++) {
        r->in[i] = r->stamp;
        r->sub[r->nsub++] = (uint32_t)i;
    }
}

uint64_t ks_dg_replay_range(ks_dg_replayer *r, const ks_dg_scale *sc, ks_ns lo, ks_ns hi, ks_ns pin_lo, ks_ns *s0,
                            ks_ns *s1)
{
    const ks_dg *g = r->g;
    if (!g->n)
        return 0;
    if (++r->stamp == 0) { /* wrapped: clear the stamps */
        memset(r->in, 0, g->n * sizeof *r->in);
        memset(r->done, 0, g->n * sizeof *r->done);
        r->stamp = 1;
    }
    uint32_t stamp = r->stamp;
    r->nsub = 0;
    for (size_t j = 0; j < g->nth; j++)
        lane_range(g, g->th[j].n0, g->th[j].n1, (int32_t)j == g->pin && pin_lo < lo ? pin_lo : lo, hi, r);
    for (size_t k = 0; k < g->nst; k++)
        lane_range(g, g->st[k].n0, g->st[k].n1, lo, hi, r);
    size_t qt = 0, qh = 0;
    for (size_t k = 0; k < r->nsub; k++) {
        uint32_t i = r->sub[k];
        uint32_t d = 0;
        for (uint32_t q = g->v[i].p0; q < ks_dg_in_end(g, i); q++)
            d += r->in[g->e[q].src] == stamp;
        r->indeg[i] = d;
        if (!d)
            r->queue[qt++] = i;
    }
    size_t processed = 0, next = 0;
    uint64_t forced = 0;
    while (processed < r->nsub) {
        if (qh == qt) {
            while (next < r->nsub && r->done[r->sub[next]] == stamp)
                next++;
            r->queue[qt++] = r->sub[next]; /* a cycle: replayed with what is known */
            forced++;
        }
        uint32_t i = r->queue[qh++];
        if (r->done[i] == stamp)
            continue;
        replay_node(g, sc, i, r->done, stamp, s0, s1);
        r->done[i] = stamp;
        processed++;
        for (uint32_t k = r->out0[i]; k < r->out0[i + 1]; k++) {
            uint32_t x = r->succ[k];
            if (r->in[x] == stamp && r->indeg[x] && !--r->indeg[x] && r->done[x] != stamp)
                r->queue[qt++] = x;
        }
    }
    return forced;
}

uint64_t ks_dg_replay(const ks_dg *g, const ks_dg_scale *sc, ks_ns *s0, ks_ns *s1)
{
    ks_dg_replayer r;
    ks_dg_replayer_init(g, &r);
    uint64_t f = ks_dg_replay_range(&r, sc, INT64_MIN, INT64_MAX, INT64_MIN, s0, s1);
    ks_dg_replayer_free(&r);
    return f;
}

/* ---- steps --------------------------------------------------------------------------------- */

int32_t *ks_dg_item_steps(const ks_dg *g, const ks_steps *st)
{
    const ks_analysis *a = g->a;
    size_t ngpu = g->n - g->g0;
    int32_t *v = ks_xmalloc(ks_mul(ngpu ? ngpu : 1, sizeof *v));
    for (size_t i = g->g0; i < g->n; i++) {
        v[i - g->g0] = -1;
        ks_slice_ref r = ks_gpuwork_launcher_at(a, (size_t)g->v[i].ref);
        if (r.s < 0 || !st || !st->n)
            continue;
        const ks_slice *ls = &a->tl[r.tl].s[r.s];
        ks_ns ts = ks_slice_ts(&a->tl[r.tl], ls), end = ks_slice_end(&a->tl[r.tl], ls);
        size_t lo = 0, hi = st->n;
        KS_LOWER_BOUND(lo, hi, mid, st->v[mid].host_start <= ts);
        if (lo && end <= st->v[lo - 1].host_end)
            v[i - g->g0] = (int32_t)(lo - 1);
    }
    return v;
}
