/* insights/critpath.c: the critical path of each step over the dependency graph (depgraph.c).
 *
 * What: from the step's end, the node that ended it (the GPU work launched in the step that ended
 * last, or the stepping thread at the step's host end), then, repeatedly, the edge that released
 * the node (ks_dg_node.bind) and the node it leaves from, until the step's start. Each node gives
 * the piece of it before the point the walk arrived at (CPU, GPU, a blocking call's return), each
 * edge the piece from its point to the node's release (launch latency, a stream's gap, a thread's
 * lag after the work it waited for; program order and a sync's release have none); a queue call
 * released by its batch returns as THREAD_WAIT, and the walk goes on through the pinning. A node
 * that no edge released (the first node of a thread in the graph, work with no launch call, a node
 * whose every edge came from after it, a pin-memory thread's wait for a worker) ends the walk with
 * an UNMODELED piece back to the step's start.
 * CPU pieces are cut by the innermost slice at each time (their names: the top items).
 * Why it is correct: each piece begins where the previous one (in the walk) ended and none is
 * negative (an edge releases a node only from a point at or before its release), and the walk
 * stops at the step's start, so the pieces tile [start, end): the path's length is the step's
 * wall time, and its kinds add up to it.
 * When it does not apply: what the graph leaves out (threads that launched nothing, recorded event
 * waits: depgraph.c) can only show as other kinds or UNMODELED.
 * Who may use it: everyone, through kinesift/critpath.h. */
#include <stdlib.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"
#include "common/util.h"
#include "insights/depgraph.h"
#include "insights/insights_int.h"

_Static_assert(sizeof(ks_cp_packed) == 12, "a packed piece is 12 bytes");
_Static_assert(KS_CP_NKINDS <= 8, "a piece's kind is 3 bits of its packed word");

static const char *const cp_kind_names[KS_CP_NKINDS] = {"cpu", "gpu", "launch_latency", "stream_gap", "sync",
                                                         "thread_wait", "unmodeled"};
static const char *const dep_kind_names[KS_DEP_NKINDS] = {"program", "launch", "stream", "sync", "thread",
                                                          "data_queue"};

const char *ks_cp_kind_name(int kind)
{
    return kind >= 0 && kind < KS_CP_NKINDS ? cp_kind_names[kind] : "?";
}

const char *ks_dep_kind_name(int kind)
{
    return kind >= 0 && kind < KS_DEP_NKINDS ? dep_kind_names[kind] : "?";
}

/* the thread that launched most GPU work, else the CPU thread with most slices */
static uint32_t main_thread(const ks_analysis *a)
{
    size_t *count = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *count);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        ks_slice_ref r = ks_gpuwork_launcher_at(a, j);
        if (r.s >= 0)
            count[r.tl]++;
    }
    uint32_t best = 0;
    size_t bc = 0, bn = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (count[k] > bc || (!bc && !count[k] && a->tl[k].n > bn && a->trace->tracks[k].kind == KS_TRACK_CPU)) {
            bc = count[k];
            bn = a->tl[k].n;
            best = (uint32_t)k;
        }
    free(count);
    return best;
}

uint32_t ks_critpath_thread(const ks_analysis *a, const ks_steps *st)
{
    return st && st->n ? st->track : main_thread(a);
}

typedef struct walk {
    ks_cp_piece *v;
    size_t n, cap;
} walk;

static void piece(walk *w, ks_ns a, ks_ns b, uint32_t track, int kind, int inferred, ks_str name)
{
    if (b <= a)
        return;
    ks_cp_piece p = {a, b, track, (uint8_t)kind, (uint8_t)inferred, name};
    KS_PUSH(w->v, w->n, w->cap, p);
}

static uint32_t node_track(const ks_dg *g, const ks_dg_node *v)
{
    return v->kind == KS_DG_GPU ? g->st[v->lane - g->nth].track : g->th[v->lane].track;
}

static ks_str node_name(const ks_dg *g, const ks_dg_node *v)
{
    const ks_analysis *a = g->a;
    if (v->kind == KS_DG_GPU)
        return ks_gpuwork_event(a->trace, &ks_gpuwork_of(a)->v[v->ref])->name;
    if (v->kind == KS_DG_WAIT_GPU) {
        const ks_timeline *tl = &a->tl[g->th[v->lane].track];
        return a->trace->tracks[tl->track].ev[tl->s[v->ref].ev].name;
    }
    return 0;
}

/* the longest launch latency or stream gap the path gives as such (KS_LATENCY_MIN_NS) */
static ks_ns latency_bound(const ks_dg *g)
{
    ks_ns typ = g->launch_typ > 0 ? g->launch_typ : 0;
    ks_ns b = typ > INT64_MAX / KS_LATENCY_TYPICAL ? INT64_MAX : typ * KS_LATENCY_TYPICAL;
    return b > KS_LATENCY_MIN_NS ? b : KS_LATENCY_MIN_NS;
}

/* the path of [S, E) backwards from point p of node v (pieces pushed latest first) */
static void walk_back(const ks_dg *g, size_t v, ks_ns p, ks_ns S, walk *w)
{
    int inferred = 0;
    for (size_t guard = 0; guard <= g->n + 1; guard++) {
        const ks_dg_node *n = &g->v[v];
        uint32_t tr = node_track(g, n);
        ks_ns lo = n->start;
        /* a queue call released by its batch: its return is the lag after the other thread's work */
        int queued = n->kind == KS_DG_WAIT_QUEUE && n->bind >= 0 && g->e[n->bind].kind == KS_DEP_DATA_QUEUE;
        int kind = n->kind == KS_DG_GPU ? KS_CP_GPU : n->kind == KS_DG_WAIT_GPU ? KS_CP_SYNC
                 : n->kind == KS_DG_IDLE || n->kind == KS_DG_WAIT_EXT ? KS_CP_UNMODELED
                 : queued ? KS_CP_THREAD_WAIT : KS_CP_CPU;
        if (n->kind == KS_DG_IDLE)
            lo = n->a;
        if (p < lo) {
            /* the point lies in the node's wait: the thread waited there; back along the thread */
            piece(w, n->a > S ? n->a : S, p, tr, n->kind == KS_DG_WAIT_GPU ? KS_CP_SYNC
                  : n->kind == KS_DG_WAIT_EXT ? KS_CP_UNMODELED : KS_CP_THREAD_WAIT, inferred, 0);
            if (n->kind == KS_DG_GPU || n->a <= S || v == g->th[n->lane].n0)
                goto out;
            p = n->a;
            v--;
            continue;
        }
        piece(w, lo > S ? lo : S, p, tr, kind, inferred | queued, node_name(g, n));
        if (lo <= S)
            return;
        if (n->bind < 0) {
            piece(w, S, lo, tr, KS_CP_UNMODELED, 0, 0);
            return;
        }
        const ks_dg_edge *e = &g->e[n->bind];
        int gk = e->kind == KS_DEP_LAUNCH ? KS_CP_LAUNCH : e->kind == KS_DEP_STREAM ? KS_CP_STREAM_GAP
               : e->kind == KS_DEP_SYNC ? KS_CP_SYNC
               : e->kind == KS_DEP_THREAD || e->kind == KS_DEP_DATA_QUEUE ? KS_CP_THREAD_WAIT : KS_CP_CPU;
        if (gk == KS_CP_LAUNCH || gk == KS_CP_STREAM_GAP) {
            /* the GPU's latency up to the bound; past it, a wait for what the trace does not show */
            ks_ns cut = ks_sat_add(e->q, latency_bound(g));
            if (cut < lo) {
                piece(w, cut > S ? cut : S, lo, tr, KS_CP_UNMODELED, 0, 0);
                lo = cut;
            }
            piece(w, e->q > S ? e->q : S, lo, tr, gk, e->inferred, node_name(g, n));
        } else {
            piece(w, e->q > S ? e->q : S, lo, tr, gk, e->inferred, 0);
        }
        if (e->q <= S)
            return;
        inferred = e->inferred;
        v = e->src;
        p = e->q;
    }
out:
    if (w->n && w->v[w->n - 1].a > S)
        piece(w, S, w->v[w->n - 1].a, g->th[0].track, KS_CP_UNMODELED, 0, 0);
}

static int cmp_item(const ks_cp_item *p, const ks_cp_item *q)
{
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return (p->name > q->name) - (p->name < q->name);
}

/* p before q among the top items: more time first, then by kind and name */
static int item_before(const ks_cp_item *p, const ks_cp_item *q)
{
    if (p->ns != q->ns)
        return p->ns > q->ns;
    return cmp_item(p, q) < 0;
}

/* the room of the top items, kept from step to step: per name and kind (slot[2 * name + kind], kind
 * KS_CP_CPU or KS_CP_GPU), 1 + the index of its item in v (0: none in this step) */
typedef struct items {
    uint32_t *slot;
    ks_cp_item *v;
    size_t n, cap;
} items;

/* 1 when GPU work of that name is a collective (comm: per string id, 0 not yet known, 1 no, 2 yes) */
static int collective(const ks_analysis *a, uint8_t *comm, ks_str name)
{
    if (!name)
        return 0;
    if (!comm[name])
        comm[name] = ks_is_comm_kernel(ks_trace_str(a->trace, name)) ? 2 : 1;
    return comm[name] == 2;
}

/* Where the pieces of a step go as they are made, in time order (each written once, where it is
 * kept: no array of the step's pieces is made): added to the step's sums and to its names' items,
 * and appended to the path's pieces, packed while they can be (each beginning where the one before
 * ended, the first at the step's start, on a track below 2^28; the high words of their ends kept
 * from the first piece that needs them), else whole from then on. */
typedef struct sink {
    ks_critpath *cp;
    ks_cp_step *s;         /* the step being built (s->n: its pieces so far) */
    const ks_analysis *a;
    uint8_t *comm;
    items *it;
    size_t cap;            /* the capacity of the kept pieces */
    ks_ns at;              /* where the step's last piece ended (its start before the first) */
} sink;

/* the pieces kept so far (the steps before, and this one's so far), whole from now on */
static void go_wide(sink *k)
{
    ks_critpath *cp = k->cp;
    size_t cap = cp->npieces + cp->npieces / 2 + 8;
    ks_cp_piece *w = ks_xmalloc(ks_mul(cap, sizeof *w));
    for (size_t i = 0; i < cp->n; i++)
        for (size_t j = 0; j < cp->v[i].n; j++)
            w[cp->v[i].first + j] = ks_critpath_piece(cp, &cp->v[i], j);
    free(cp->packed);
    free(cp->end_hi);
    cp->packed = NULL;
    cp->end_hi = NULL;
    cp->wide = w;
    k->cap = cap;
}

static void emit(sink *k, ks_ns a, ks_ns b, uint32_t track, int kind, int inferred, ks_str name)
{
    if (b <= a)
        return;
    ks_cp_step *s = k->s;
    ks_critpath *cp = k->cp;
    ks_ns d = ks_sat_sub(b, a);
    uint8_t kd = (uint8_t)kind, inf = (uint8_t)inferred;
    s->by_kind[kd] = ks_sat_add(s->by_kind[kd], d);
    if (inf)
        s->inferred_ns = ks_sat_add(s->inferred_ns, d);
    if (kd == KS_CP_GPU && collective(k->a, k->comm, name))
        s->collective_ns = ks_sat_add(s->collective_ns, d);
    if (kd == KS_CP_CPU || kd == KS_CP_GPU) {
        items *it = k->it;
        uint32_t *sl = &it->slot[2 * (size_t)name + kd];
        if (*sl) {
            it->v[*sl - 1].ns = ks_sat_add(it->v[*sl - 1].ns, d);
        } else {
            ks_cp_item x = {name, kd, 0, d};
            KS_PUSH(it->v, it->n, it->cap, x);
            *sl = (uint32_t)it->n;
        }
    }
    if (!cp->wide && (a != k->at || track >= (1u << 28) || kd >= 8 || inf >= 2))
        go_wide(k);
    k->at = b;
    if (cp->wide) {
        ks_cp_piece p = {a, b, track, kd, inf, name};
        KS_PUSH(cp->wide, cp->npieces, k->cap, p);
    } else {
        size_t had = k->cap;
        KS_GROW(cp->packed, k->cap, cp->npieces + 1);
        if (cp->end_hi && k->cap != had)
            cp->end_hi = ks_xrealloc(cp->end_hi, ks_mul(k->cap, sizeof *cp->end_hi));
        uint64_t off = (uint64_t)b - (uint64_t)s->start; /* (b > start: exact, unsigned) */
        if (off > UINT32_MAX && !cp->end_hi)
            cp->end_hi = ks_xcalloc(k->cap, sizeof *cp->end_hi);
        if (cp->end_hi)
            cp->end_hi[cp->npieces] = (uint32_t)(off >> 32);
        ks_cp_packed x = {(uint32_t)off, track << 4 | (uint32_t)inf << 3 | kd, name};
        cp->packed[cp->npieces++] = x;
    }
    s->n++;
}

/* the step's top items: the KS_CP_TOP largest of its names' items, in order. No sort: the order of
 * the items (time, then kind and name) is total, so the first KS_CP_TOP are what a sort would give;
 * a name's sum is the same in any order (saturating adds of non-negative times). */
static void top_items(ks_cp_step *s, items *it, const ks_analysis *a, uint8_t *comm)
{
    size_t nt = 0;
    for (size_t i = 0; i < it->n; i++) {
        const ks_cp_item *x = &it->v[i];
        it->slot[2 * (size_t)x->name + x->kind] = 0;
        if (nt == KS_CP_TOP && !item_before(x, &s->top[nt - 1]))
            continue;
        size_t k = nt < KS_CP_TOP ? nt++ : nt - 1;
        for (; k && item_before(x, &s->top[k - 1]); k--)
            s->top[k] = s->top[k - 1];
        s->top[k] = *x;
    }
    s->ntop = nt;
    it->n = 0;
    for (size_t i = 0; i < s->ntop; i++)
        s->top[i].collective = s->top[i].kind == KS_CP_GPU && collective(a, comm, s->top[i].name);
}

/* the innermost slice of thread track over [x, y), cut where it changes (in time order) */
static void cpu_pieces(const ks_analysis *a, const ks_cp_piece *p, sink *out)
{
    const ks_timeline *tl = &a->tl[p->track];
    const ks_track *tr = &a->trace->tracks[tl->track];
    ks_ns x = p->a, y = p->b;
    size_t lo = 0, hi = tl->n;
    KS_LOWER_BOUND(lo, hi, mid, ks_slice_ts_at(tl, mid) < x);
    /* the slices holding x: the chain up from the last one starting before x */
    int32_t stack[64];
    int depth = 0;
    int32_t chain[64];
    int nc = 0;
    for (int32_t s = lo ? (int32_t)lo - 1 : -1; s >= 0 && nc < 64; s = tl->s[s].parent)
        if (ks_slice_end(tl, &tl->s[s]) > x && !(tl->s[s].flags & KS_SF_SPILLED))
            chain[nc++] = s;
    while (nc)
        stack[depth++] = chain[--nc];
    ks_ns cur = x;
#define TOP_NAME (depth ? tr->ev[tl->s[stack[depth - 1]].ev].name : 0)
    for (size_t i = lo; i < tl->n && ks_slice_ts_at(tl, i) < y; i++) {
        const ks_slice *s = &tl->s[i];
        if (s->flags & KS_SF_SPILLED)
            continue;
        ks_ns ts = ks_slice_ts(tl, s);
        while (depth && ks_slice_end(tl, &tl->s[stack[depth - 1]]) <= ts) {
            ks_ns e = ks_slice_end(tl, &tl->s[stack[depth - 1]]);
            if (e > cur) {
                emit(out, cur, e, p->track, p->kind, p->inferred, TOP_NAME);
                cur = e;
            }
            depth--;
        }
        if (ts > cur) {
            emit(out, cur, ts, p->track, p->kind, p->inferred, TOP_NAME);
            cur = ts;
        }
        if (depth < 64)
            stack[depth++] = (int32_t)i;
    }
    while (depth && ks_slice_end(tl, &tl->s[stack[depth - 1]]) < y) {
        ks_ns e = ks_slice_end(tl, &tl->s[stack[depth - 1]]);
        if (e > cur) {
            emit(out, cur, e, p->track, p->kind, p->inferred, TOP_NAME);
            cur = e;
        }
        depth--;
    }
    emit(out, cur, y, p->track, p->kind, p->inferred, TOP_NAME);
#undef TOP_NAME
}

/* the path of [S, E) given its frontier: the step's GPU work that ended last (node last_gpu) when
 * it ended after H (at H too when ties: a window, whose H is its end, ends with the GPU work that
 * ended at it), else the stepping thread at H; its pieces into k (its step) */
static void step_path(const ks_dg *g, ks_ns S, ks_ns H, ks_ns E, int64_t last_gpu, int ties, walk *tmp, sink *k)
{
    tmp->n = 0; /* (it keeps its capacity from step to step) */
    if (E > S) {
        ks_ns from = INT64_MIN;
        /* (what ended the step before its start, a window that begins after the work it shows:
         * nothing of the graph explains the step) */
        if (last_gpu >= 0 && (g->v[last_gpu].end > H || (ties && g->v[last_gpu].end == H)) &&
            g->v[last_gpu].end <= E && g->v[last_gpu].end > S) {
            from = g->v[last_gpu].end;
            piece(tmp, from, E, g->th[0].track, KS_CP_UNMODELED, 0, 0);
            walk_back(g, (size_t)last_gpu, from, S, tmp);
        } else {
            int64_t v = ks_dg_node_at(g, 0, H < E ? H : E);
            from = H < E ? H : E;
            if (v >= 0 && g->v[v].a < from && (from < g->v[v].end ? from : g->v[v].end) > S) {
                ks_ns p = from < g->v[v].end ? from : g->v[v].end;
                piece(tmp, p, E, g->th[0].track, KS_CP_UNMODELED, 0, 0);
                walk_back(g, (size_t)v, p, S, tmp);
            } else {
                piece(tmp, S, E, g->th[0].track, KS_CP_UNMODELED, 0, 0);
            }
        }
    }
    ks_cp_step *s = k->s;
    s->first = k->cp->npieces;
    k->at = S;
    for (size_t i = tmp->n; i-- > 0;) {
        const ks_cp_piece *p = &tmp->v[i];
        if (p->kind == KS_CP_CPU)
            cpu_pieces(g->a, p, k);
        else
            emit(k, p->a, p->b, p->track, p->kind, p->inferred, p->name);
    }
    top_items(s, k->it, g->a, k->comm);
}

int ks_critpath_build(const ks_analysis *a, const ks_steps *st, ks_critpath *cp, ks_error *err)
{
    (void)err;
    memset(cp, 0, sizeof *cp);
    if (!a->ntl || !a->has_events)
        return KS_OK;
    ks_dg g;
    uint32_t th = ks_critpath_thread(a, st);
    ks_dg_build(a, th, st, 1, &g); /* the walk follows each node's bind alone */
    cp->track = th;
    cp->nodes = g.n;
    memcpy(cp->edges, g.edges, sizeof cp->edges);
    cp->clock_order = g.clock_order;
    cp->unlaunched_gpu = g.unlaunched;
    size_t n = st && st->n ? st->n : 1;
    cp->v = ks_xcalloc(n, sizeof *cp->v);
    int32_t *step_of = ks_dg_item_steps(&g, st);
    int64_t *last = ks_xmalloc(n * sizeof *last);
    for (size_t i = 0; i < n; i++)
        last[i] = -1;
    for (size_t i = g.g0; i < g.n; i++) {
        int32_t k = st && st->n ? step_of[i - g.g0] : (g.launched[i - g.g0] ? 0 : -1);
        if (k >= 0 && (last[k] < 0 || g.v[i].end > g.v[last[k]].end))
            last[k] = (int64_t)i;
    }
    walk tmp = {0};
    size_t nstr = (size_t)ks_strtab_count(a->trace->strings) + 1;
    uint8_t *comm = ks_xcalloc(nstr, 1);
    items it = {ks_xcalloc(ks_mul(nstr, 2 * sizeof *it.slot), 1), NULL, 0, 0};
    sink k = {cp, NULL, a, comm, &it, 0, 0};
    for (size_t i = 0; i < n; i++) {
        ks_cp_step *s = &cp->v[cp->n++];
        ks_ns S, H, E;
        if (st && st->n) {
            S = st->v[i].start;
            E = st->v[i].end;
            H = st->v[i].host_end;
            s->number = st->v[i].number;
        } else {
            S = a->win_start;
            E = a->win_last;
            H = E;
            s->number = -1;
            if (last[0] >= 0 && g.v[last[0]].end > E)
                last[0] = -1;
        }
        s->start = S;
        s->end = E;
        k.s = s;
        step_path(&g, S, H, E, last[i], !(st && st->n), &tmp, &k);
    }
    /* the pieces are kept as long as the analysis: without their growth slack */
    if (cp->npieces && k.cap > cp->npieces) {
        if (cp->wide)
            cp->wide = ks_xrealloc(cp->wide, cp->npieces * sizeof *cp->wide);
        else
            cp->packed = ks_xrealloc(cp->packed, cp->npieces * sizeof *cp->packed);
        if (cp->end_hi)
            cp->end_hi = ks_xrealloc(cp->end_hi, cp->npieces * sizeof *cp->end_hi);
    }
    free(comm);
    free(it.slot);
    free(it.v);
    free(tmp.v);
    free(last);
    free(step_of);
    ks_dg_free(&g);
    return KS_OK;
}

void ks_critpath_free(ks_critpath *cp)
{
    free(cp->v);
    free(cp->packed);
    free(cp->end_hi);
    free(cp->wide);
    memset(cp, 0, sizeof *cp);
}

/* the end of packed piece i, from its step's start */
static uint64_t packed_end(const ks_critpath *cp, size_t i)
{
    return cp->packed[i].end | (cp->end_hi ? (uint64_t)cp->end_hi[i] << 32 : 0);
}

ks_cp_piece ks_critpath_piece(const ks_critpath *cp, const ks_cp_step *s, size_t k)
{
    if (cp->wide)
        return cp->wide[s->first + k];
    const ks_cp_packed *x = &cp->packed[s->first + k];
    /* (unsigned: a step may span more than INT64_MAX ns on a hostile trace) */
    ks_cp_piece p = {k ? (ks_ns)((uint64_t)s->start + packed_end(cp, s->first + k - 1)) : s->start,
                     (ks_ns)((uint64_t)s->start + packed_end(cp, s->first + k)), x->tk >> 4, (uint8_t)(x->tk & 7),
                     (uint8_t)(x->tk >> 3 & 1), x->name};
    return p;
}

ks_ns ks_critpath_overlap(const ks_critpath *cp, size_t i, ks_ns x, ks_ns y, int kind, uint32_t track)
{
    if (!cp || i >= cp->n)
        return 0;
    const ks_cp_step *s = &cp->v[i];
    ks_ns t = 0;
    for (size_t k = 0; k < s->n; k++) {
        ks_cp_piece pc = ks_critpath_piece(cp, s, k);
        const ks_cp_piece *p = &pc;
        if ((kind >= 0 && p->kind != kind) || (track != UINT32_MAX && p->track != track))
            continue;
        ks_ns a = p->a > x ? p->a : x, b = p->b < y ? p->b : y;
        if (b > a)
            t = ks_sat_add(t, ks_sat_sub(b, a));
    }
    return t;
}

ks_ns ks_critpath_named(const ks_critpath *cp, size_t i, int kind, ks_str name)
{
    if (!cp || i >= cp->n)
        return 0;
    const ks_cp_step *s = &cp->v[i];
    ks_ns t = 0;
    for (size_t k = 0; k < s->n; k++) {
        ks_cp_piece p = ks_critpath_piece(cp, s, k);
        if (p.kind == kind && p.name == name)
            t = ks_sat_add(t, ks_sat_sub(p.b, p.a));
    }
    return t;
}
