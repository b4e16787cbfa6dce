/* insights/gaps.c: GPU idle gaps and what the CPU was doing during them.
 *
 * Per device, the idle intervals between the union of its GPU work (all streams) inside the
 * window. Each gap is looked at from the CPU thread that launched the work ending it (else the
 * device's main launching thread): the gap is split by the innermost slice active on that thread
 * (any kind: a label, an op, cudaStreamSynchronize, a Python frame) or nothing, and by the
 * innermost labelled range, giving the "GPU idle while X" tables. Step annotations are
 * transparent. Every gap (short ones too) also gets HTA's class: host wait when the next launch
 * call started after the GPU went idle, kernel wait when shorter than HTA's delay, other (which
 * includes every gap ending in work whose launch is not in the trace: both other classes need
 * the launch call). The gap tables count gaps longer than the threshold (HTA's rule).
 *
 * Every CPU thread of the launching thread's process is split the same way (the gap's pieces),
 * and each instant gets a state: idle, working (an op, runtime call, Python frame), in a
 * blocking call, or in a label's own time. The launching thread is **waiting on another thread**
 * where it is idle or in a blocking call while another thread of its process is working or in a
 * label, or in a label's own time (which may be uninstrumented work) while another thread is
 * working: the backward thread idle while the main thread is in `## backward ##` or the
 * optimizer, the main thread inside `## backward ##` while the autograd thread launches.
 * A thread's pieces are disjoint and inside the gap by construction (they split [g0, g1) in
 * order), which the corpus tests check. Every gap's pieces are counted into the per-thread
 * tables; only the five longest gaps keep them (a piece per slice change per thread adds up to
 * tens of MB on a long trace, where the reports show the longest gaps' only), unless
 * ks_gap_opts.all_pieces asks for all. */
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/hugemem.h"
#include "analysis/gpuwork_index.h"
#include "vocab/calls.h"
#include "common/i64map.h"
#include "common/regex.h"
#include "common/util.h"
#include "kinesift/insights.h"

#define DEFAULT_DATA_REGEX                                                                        \
    "dataloader|data_?load|load(ing)?_?(data|batch|input)|read_?batch|next_?batch|lecture|collate|" \
    "__next__|prefetch|fetch_?batch"

void ks_gap_opts_init(ks_gap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threshold_ns = 10000;
    o->hta_kernel_wait_ns = 30000;
}


typedef struct cause_table {
    ks_gap_cause *v;
    size_t n, cap;
    ks_i64map ix;
} cause_table;

static ks_gap_cause *cause(cause_table *t, ks_str name, uint8_t kind, uint8_t waiting)
{
    int64_t key = (name ? ((int64_t)name << 9) | ((int64_t)kind << 1) : -2) | waiting;
    uint64_t *p = ks_i64map_get(&t->ix, key);
    if (p)
        return &t->v[*p];
    KS_GROW(t->v, t->cap, t->n + 1);
    ks_gap_cause *c = &t->v[t->n];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = name ? kind : KS_K_OTHER;
    c->waiting = waiting;
    ks_i64map_put(&t->ix, key, t->n++);
    return c;
}

/* the causes of one gap: few, so a plain list */
typedef struct gap_causes {
    ks_gap_cause *v;
    size_t n, cap;
} gap_causes;

/* per thread of a device: its causes, and the last gap that counted each */
typedef struct thread_acc {
    cause_table causes;
    size_t *last_gap;          /* per cause: 1 + index of the last gap counted */
    size_t last_cap;
} thread_acc;

typedef struct gap_ctx {
    const ks_analysis *a;
    ks_regex *data_re;
    uint8_t *data_cache;       /* per name id: 0 unknown, 1 no, 2 yes */
    uint8_t *step_name;        /* per name id: 1 when steps carry that name */
    uint8_t *blocking;         /* per name id: 0 unknown, 1 no, 2 yes */
    /* per gap */
    gap_causes cpu, label;
    ks_ns data_ns;
    ks_ns *dsp;                /* the device's data-loading spans so far: [x, y) pairs */
    size_t ndsp, cdsp;
    uint32_t launch_track;     /* the thread the gap is looked at from */
    ks_gap_piece *pcs;         /* the gap's pieces, every thread */
    size_t npcs, cpcs;
    ks_ivs work;               /* other threads' time in ops (working) in the gap */
    ks_ivs busy;               /* other threads' time in ops or labels in the gap */
} gap_ctx;

static ks_gap_cause *gap_cause(gap_causes *t, ks_str name, uint8_t kind, uint8_t waiting)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].name == name && (!name || t->v[i].kind == kind) && t->v[i].waiting == waiting)
            return &t->v[i];
    KS_GROW(t->v, t->cap, t->n + 1);
    ks_gap_cause *c = &t->v[t->n++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = name ? kind : KS_K_OTHER;
    c->waiting = waiting;
    return c;
}

/* credit len ns to a cause (saturated: spans of extreme timestamps do not fit int64 ns) */
static void add_cause(gap_causes *t, ks_str name, uint8_t kind, uint8_t waiting, ks_ns len)
{
    ks_gap_cause *c = gap_cause(t, name, kind, waiting);
    c->total_ns = ks_sat_add(c->total_ns, len);
}

static int is_blocking(gap_ctx *g, ks_str name)
{
    if (!g->blocking[name])
        g->blocking[name] = ks_is_blocking_call(ks_trace_str(g->a->trace, name)) ? 2 : 1;
    return g->blocking[name] == 2;
}

const char *ks_thread_state_name(ks_thread_state s)
{
    static const char *names[KS_TS_COUNT] = {"idle", "working", "blocking_call", "label_self"};
    return (unsigned)s < KS_TS_COUNT ? names[s] : "?";
}

static int is_step(const gap_ctx *g, const ks_event *e)
{
    return g->step_name[e->name];
}

static int is_data(gap_ctx *g, ks_str name)
{
    if (!g->data_cache[name]) {
        const char *n = ks_trace_str(g->a->trace, name);
        g->data_cache[name] = ks_regex_match(g->data_re, n, strlen(n), NULL) ? 2 : 1;
    }
    return g->data_cache[name] == 2;
}

/* What the open slices of stack[0 .. i] come to (level i of a stack): the innermost non-step
 * slice's event, the innermost non-step label's, and whether a non-step slice is data loading.
 * Level i follows from level i - 1 and slice i alone, so each push costs one step and each piece
 * none, where a walk of the whole stack per piece cost its depth (Python stacks are deep). */
typedef struct level {
    const ks_event *inner, *label;
    int data;
} level;

static level level_push(gap_ctx *g, const level *below, const ks_event *e)
{
    level l = below ? *below : (level){NULL, NULL, 0};
    if (is_step(g, e))
        return l;
    l.inner = e;
    if (e->kind == KS_K_USER_ANNOTATION)
        l.label = e;
    if (!l.data && e->name && is_data(g, e->name))
        l.data = 1;
    return l;
}

/* Attribute [x, y) to the innermost non-step slice of the stack, and to the innermost label (top:
 * the stack's top level, NULL when it is empty). */
static void emit(gap_ctx *g, const ks_timeline *tl, const level *top, ks_ns x, ks_ns y)
{
    if (y <= x)
        return;
    const ks_event *inner = top ? top->inner : NULL, *label = top ? top->label : NULL;
    int data = top ? top->data : 0;
    uint8_t state = KS_TS_IDLE;
    if (inner)
        state = inner->kind == KS_K_USER_ANNOTATION                ? KS_TS_LABEL
                : inner->name && is_blocking(g, inner->name) ? KS_TS_BLOCKING
                                                             : KS_TS_WORK;
    ks_gap_piece pc = {x, y, tl->track, inner ? inner->name : 0, inner ? inner->kind : KS_K_OTHER, state};
    KS_PUSH(g->pcs, g->npcs, g->cpcs, pc);
    if (tl->track != g->launch_track)
        return;
    ks_ns len = ks_sat_sub(y, x);
    add_cause(&g->label, label ? label->name : 0, KS_K_USER_ANNOTATION, 0, len);
    if (data) {
        g->data_ns = ks_sat_add(g->data_ns, len);
        KS_PUSH(g->dsp, g->ndsp, g->cdsp, x);
        KS_PUSH(g->dsp, g->ndsp, g->cdsp, y);
    }
}

/* The launching thread's pieces become its causes; where it only waits (idle, a label's own time,
 * a blocking call) while another thread of its process works, "waiting on another thread". */
static void launching_causes(gap_ctx *g, size_t p0)
{
    ks_ivs_reset(&g->work);
    ks_ivs_reset(&g->busy);
    for (size_t i = p0; i < g->npcs; i++) {
        const ks_gap_piece *pc = &g->pcs[i];
        if (pc->track == g->launch_track)
            continue;
        if (pc->state == KS_TS_WORK)
            ks_ivs_add(&g->work, pc->start, pc->end);
        if (pc->state == KS_TS_WORK || pc->state == KS_TS_LABEL)
            ks_ivs_add(&g->busy, pc->start, pc->end);
    }
    ks_ivs_normalize(&g->work);
    ks_ivs_normalize(&g->busy);
    for (size_t i = p0; i < g->npcs; i++) {
        const ks_gap_piece *pc = &g->pcs[i];
        if (pc->track != g->launch_track)
            continue;
        ks_ns len = ks_sat_sub(pc->end, pc->start), waited = 0;
        /* idle or blocked: waiting while another thread runs an op or is in a label; in a label's
         * own time (which may be uninstrumented work): only while another thread runs an op */
        if (pc->state == KS_TS_IDLE || pc->state == KS_TS_BLOCKING)
            waited = ks_ivs_covered(&g->busy, pc->start, pc->end);
        else if (pc->state == KS_TS_LABEL)
            waited = ks_ivs_covered(&g->work, pc->start, pc->end);
        if (waited)
            add_cause(&g->cpu, pc->name, pc->kind, 1, waited);
        if (len > waited)
            add_cause(&g->cpu, pc->name, pc->kind, 0, len - waited);
    }
}

/* Split [g0, g1) by what thread timeline tl was doing (lane 0). */
static void attribute(gap_ctx *g, const ks_timeline *tl, ks_ns g0, ks_ns g1)
{
    const ks_trace *t = g->a->trace;
    const ks_event *ev = t->tracks[tl->track].ev;
    int32_t *stack = NULL;
    level *lv = NULL; /* lv[i]: level i of the stack */
    size_t n = 0, cap = 0, lcap = 0;
    /* the slices open at g0, outermost first */
    for (int32_t i = ks_timeline_at(t, tl, g0, NULL); i >= 0; i = tl->s[i].parent)
        KS_PUSH(stack, n, cap, i);
    for (size_t i = 0; i < n / 2; i++) {
        int32_t x = stack[i];
        stack[i] = stack[n - 1 - i];
        stack[n - 1 - i] = x;
    }
    KS_GROW(lv, lcap, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        lv[i] = level_push(g, i ? &lv[i - 1] : NULL, &ev[tl->s[stack[i]].ev]);
#define TOP (n ? &lv[n - 1] : NULL)
    ks_ns cur = g0;
    size_t lo = 0, hi = tl->n;
    KS_LOWER_BOUND(lo, hi, mid, ks_slice_ts_at(tl, mid) <= g0);
    for (size_t j = lo; j < tl->n && ks_slice_ts_at(tl, j) < g1; j++) {
        const ks_slice *s = &tl->s[j];
        if (s->lane != 0)
            continue;
        ks_ns ts = ks_slice_ts(tl, s);
        for (ks_ns e; n && (e = ks_slice_end(tl, &tl->s[stack[n - 1]])) <= ts; n--) {
            emit(g, tl, TOP, cur, e);
            if (e > cur)
                cur = e;
        }
        emit(g, tl, TOP, cur, ts);
        if (ts > cur)
            cur = ts;
        KS_GROW(lv, lcap, n + 1);
        lv[n] = level_push(g, TOP, &ev[s->ev]);
        KS_PUSH(stack, n, cap, (int32_t)j);
    }
    for (ks_ns e; n && (e = ks_slice_end(tl, &tl->s[stack[n - 1]])) < g1; n--) {
        emit(g, tl, TOP, cur, e);
        if (e > cur)
            cur = e;
    }
    emit(g, tl, TOP, cur, g1);
#undef TOP
    free(lv);
    free(stack);
}

static void merge_causes(gap_ctx *g, cause_table *dst, gap_causes *gap)
{
    for (size_t i = 0; i < gap->n; i++) {
        ks_gap_cause *c = cause(dst, gap->v[i].name, gap->v[i].kind, gap->v[i].waiting);
        c->data = c->name && is_data(g, c->name);
        c->count++;
        c->total_ns = ks_sat_add(c->total_ns, gap->v[i].total_ns);
    }
}

static int cmp_cause(const void *x, const void *y)
{
    const ks_gap_cause *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    return (a->name > b->name) - (a->name < b->name);
}

/* a gap's length, saturated (epoch-scale and far-negative times in one trace) */
static ks_ns gap_len(const ks_gap *gp)
{
    return ks_sat_sub(gp->end, gp->start);
}

/* What one of the longest gaps keeps beside d->longest[i]: its index in d->all and, unless every
 * gap's pieces go to d->pieces, a copy of its own. */
typedef struct kept {
    size_t index;
    ks_gap_piece *v;
    size_t n, cap;
} kept;

/* gp (d->all[index]) among the five longest, longest first, with its pieces pcs[0 .. npcs) when
 * they are to be copied (NULL: they are in d->pieces already) */
static void keep_longest(ks_gap_device *d, kept *k, const ks_gap *gp, size_t index, const ks_gap_piece *pcs,
                         size_t npcs)
{
    size_t at = d->nlongest;
    if (at < 5)
        d->nlongest++;
    else if (gap_len(gp) > gap_len(&d->longest[4]))
        at = 4;
    else
        return;
    d->longest[at] = *gp;
    k[at].index = index;
    k[at].n = 0;
    if (pcs && npcs) {
        KS_GROW(k[at].v, k[at].cap, npcs);
        memcpy(k[at].v, pcs, npcs * sizeof *pcs);
        k[at].n = npcs;
    }
    for (size_t i = at; i > 0; i--) {
        if (gap_len(&d->longest[i]) <= gap_len(&d->longest[i - 1]))
            break;
        ks_gap x = d->longest[i];
        d->longest[i] = d->longest[i - 1];
        d->longest[i - 1] = x;
        kept y = k[i];
        k[i] = k[i - 1];
        k[i - 1] = y;
    }
}

/* The longest gaps' pieces into d->pieces, longest first; each gap (in longest and in all) told
 * where its are. Frees the copies. */
static void place_longest(ks_gap_device *d, kept *k)
{
    size_t total = 0;
    for (size_t i = 0; i < d->nlongest; i++)
        total += k[i].n;
    d->pieces = total ? ks_xmalloc(total * sizeof *d->pieces) : NULL;
    d->npieces = 0;
    for (size_t i = 0; i < d->nlongest; i++) {
        ks_gap *gp = &d->longest[i];
        gp->piece0 = d->npieces;
        gp->npieces = k[i].n;
        if (k[i].n)
            memcpy(d->pieces + d->npieces, k[i].v, k[i].n * sizeof *d->pieces);
        d->npieces += k[i].n;
        d->all[k[i].index].piece0 = gp->piece0;
        d->all[k[i].index].npieces = gp->npieces;
    }
    for (size_t i = 0; i < 5; i++)
        free(k[i].v);
}

/* the CPU timeline that launched most of this device's work */
static int32_t main_thread(const ks_analysis *a, const uint32_t *order, size_t n)
{
    size_t *count = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *count);
    for (size_t i = 0; i < n; i++) {
        ks_slice_ref r = ks_gpuwork_launcher_at(a, order[i]);
        if (r.s >= 0)
            count[r.tl]++;
    }
    int32_t best = -1;
    size_t bc = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (count[k] > bc) {
            bc = count[k];
            best = (int32_t)k;
        }
    free(count);
    return best;
}

/* What the gaps of one device keep per thread and per process. A thread is counted in a gap in
 * one of two ways: split by attribute (the threads active in the gap: the launching thread, those
 * with a slice meeting it, every thread in a gap whose pieces are kept), or, when none of its
 * slices meets the gap (quiet), as one idle piece the whole gap, which the end adds for all such
 * gaps at once (quiet_threads): so a gap costs its active threads, not every thread of its
 * process (8 000 threads and 8 000 gaps were 64 million pieces). */
typedef struct dev_threads {
    thread_acc *acc;           /* per slot of d->threads */
    size_t acc_cap;
    int32_t *slot_of;          /* per track: its slot, -1 none */
    /* per slot: the gaps it was active in (their count and total length) */
    uint64_t *active_n;
    unsigned __int128 *active_len;
    /* per process: 1 + the index of the first gap looked at from one of its threads (0: none
     * yet), the gaps since and their total length */
    uint64_t *proc_n;
    unsigned __int128 *proc_len;
    uint8_t *proc_seen;
} dev_threads;

/* the device's entry for CPU thread track k */
static size_t thread_slot(ks_gap_device *d, dev_threads *dt, uint32_t k)
{
    if (dt->slot_of[k] >= 0)
        return (size_t)dt->slot_of[k];
    thread_acc **acc = &dt->acc;
    size_t *cap = &dt->acc_cap;
    size_t c = *cap;
    KS_GROW(d->threads, *cap, d->nthreads + 1);
    if (*cap != c) {
        *acc = realloc(*acc, *cap * sizeof **acc);
        if (!*acc)
            abort();
    }
    memset(&d->threads[d->nthreads], 0, sizeof d->threads[0]);
    d->threads[d->nthreads].track = k;
    if (*cap != c) {
        dt->active_n = ks_xrealloc(dt->active_n, *cap * sizeof *dt->active_n);
        dt->active_len = ks_xrealloc(dt->active_len, *cap * sizeof *dt->active_len);
    }
    memset(&(*acc)[d->nthreads], 0, sizeof **acc);
    ks_i64map_init(&(*acc)[d->nthreads].causes.ix);
    dt->active_n[d->nthreads] = 0;
    dt->active_len[d->nthreads] = 0;
    dt->slot_of[k] = (int32_t)d->nthreads;
    return d->nthreads++;
}

/* The CPU threads' activity, to find the threads a gap does not leave quiet: per thread the union
 * of its slices as closed intervals, all of them by start. A sweep over a device's gaps (in time
 * order) keeps those started by the gap's end in a heap by their end, and drops those that ended
 * before its start: what is left meets the gap. */
typedef struct act {
    ks_ns a, b;
    uint32_t track;
} act;

typedef struct sweep {
    act *v;
    size_t n, next;
    act *heap;
    size_t nheap, heap_cap;
    uint64_t *stamp;           /* per track: the gap number that listed it last */
    uint64_t gapno;
    uint32_t *list;            /* the active threads of the current gap, by track */
    size_t nlist, list_cap;
} sweep;

static int cmp_act(const void *x, const void *y)
{
    const act *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->track > b->track) - (a->track < b->track);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static void sweep_init(sweep *sw, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    size_t ntr = t->ntracks < a->ntl ? t->ntracks : a->ntl, cap = 0;
    memset(sw, 0, sizeof *sw);
    sw->stamp = ks_xcalloc(ntr ? ntr : 1, sizeof *sw->stamp);
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)) && k < ntr; k++) {
        if (!tl->n)
            continue;
        act cur = {ks_slice_ts_at(tl, 0), ks_slice_end(tl, &tl->s[0]), (uint32_t)k};
        for (size_t i = 1; i < tl->n; i++) {
            ks_ns ts = ks_slice_ts_at(tl, i), e = ks_slice_end(tl, &tl->s[i]);
            if (ts <= cur.b) {
                if (e > cur.b)
                    cur.b = e;
                continue;
            }
            KS_PUSH(sw->v, sw->n, cap, cur);
            cur = (act){ts, e, (uint32_t)k};
        }
        KS_PUSH(sw->v, sw->n, cap, cur);
    }
    if (sw->n > 1)
        qsort(sw->v, sw->n, sizeof *sw->v, cmp_act);
}

static void sweep_free(sweep *sw)
{
    free(sw->v);
    free(sw->heap);
    free(sw->stamp);
    free(sw->list);
}

static void heap_push(sweep *sw, act x)
{
    KS_GROW(sw->heap, sw->heap_cap, sw->nheap + 1);
    size_t i = sw->nheap++;
    while (i > 0 && sw->heap[(i - 1) / 2].b > x.b) {
        sw->heap[i] = sw->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sw->heap[i] = x;
}

static void heap_pop(sweep *sw)
{
    act x = sw->heap[--sw->nheap];
    size_t i = 0, n = sw->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && sw->heap[c + 1].b < sw->heap[c].b)
            c++;
        if (sw->heap[c].b >= x.b)
            break;
        sw->heap[i] = sw->heap[c];
        i = c;
    }
    if (n)
        sw->heap[i] = x;
}

/* The threads of process proc with a slice meeting [g0, g1], and launch, into sw->list by track
 * (gaps come in time order within a device; sweep_device restarts it for the next). */
static void sweep_active(sweep *sw, const ks_trace *t, uint32_t proc, uint32_t launch, ks_ns g0, ks_ns g1)
{
    while (sw->next < sw->n && sw->v[sw->next].a <= g1)
        heap_push(sw, sw->v[sw->next++]);
    while (sw->nheap && sw->heap[0].b < g0)
        heap_pop(sw);
    sw->gapno++;
    sw->nlist = 0;
    sw->stamp[launch] = sw->gapno;
    KS_PUSH(sw->list, sw->nlist, sw->list_cap, launch);
    for (size_t i = 0; i < sw->nheap; i++) {
        uint32_t k = sw->heap[i].track;
        if (sw->stamp[k] != sw->gapno && t->tracks[k].process == proc) {
            sw->stamp[k] = sw->gapno;
            KS_PUSH(sw->list, sw->nlist, sw->list_cap, k);
        }
    }
    if (sw->nlist > 1)
        qsort(sw->list, sw->nlist, sizeof *sw->list, cmp_u32);
}

static void sweep_device(sweep *sw)
{
    sw->next = 0;
    sw->nheap = 0;
}

/* Split [g0, g1) on the CPU threads of the launching thread's process: every one when full (the
 * gap's pieces are kept), else those active in it (dev_threads: the quiet ones are added at the
 * end); the gap's pieces (left in g->pcs) go to the per-thread tables, (launching thread) the
 * gap's causes and, with all_pieces, the device's list. */
static void every_thread(gap_ctx *g, ks_gap_device *d, dev_threads *dt, sweep *sw, size_t gap_index, ks_ns g0,
                         ks_ns g1, size_t *cap_pieces, int all_pieces, int full)
{
    const ks_trace *t = g->a->trace;
    uint32_t proc = t->tracks[g->launch_track].process;
    size_t ntr = t->ntracks < g->a->ntl ? t->ntracks : g->a->ntl;
    ks_ns len = ks_sat_sub(g1, g0);
    if (!dt->proc_seen[proc]) {
        /* every thread of the process has a piece in each of its gaps: its slot from the first,
         * in track order */
        dt->proc_seen[proc] = 1;
        for (size_t k = 0; k < ntr; k++)
            if (t->tracks[k].kind == KS_TRACK_CPU && t->tracks[k].process == proc)
                thread_slot(d, dt, (uint32_t)k);
    }
    dt->proc_n[proc]++;
    dt->proc_len[proc] += (uint64_t)len;
    g->npcs = 0;
    if (full) {
        for (size_t k = 0; k < ntr; k++)
            if (t->tracks[k].kind == KS_TRACK_CPU && t->tracks[k].process == proc) {
                attribute(g, &g->a->tl[k], g0, g1);
                size_t s = (size_t)dt->slot_of[k];
                dt->active_n[s]++;
                dt->active_len[s] += (uint64_t)len;
            }
    } else {
        sweep_active(sw, t, proc, g->launch_track, g0, g1);
        for (size_t i = 0; i < sw->nlist; i++) {
            uint32_t k = sw->list[i];
            attribute(g, &g->a->tl[k], g0, g1);
            size_t s = (size_t)dt->slot_of[k];
            dt->active_n[s]++;
            dt->active_len[s] += (uint64_t)len;
        }
    }
    launching_causes(g, 0);
    for (size_t i = 0; i < g->npcs; i++) {
        const ks_gap_piece *pc = &g->pcs[i];
        size_t s = thread_slot(d, dt, pc->track);
        ks_gap_thread *th = &d->threads[s];
        thread_acc *ta = &dt->acc[s];
        ks_ns plen = ks_sat_sub(pc->end, pc->start);
        th->state_ns[pc->state] = ks_sat_add(th->state_ns[pc->state], plen);
        size_t before = ta->causes.n;
        ks_gap_cause *c = cause(&ta->causes, pc->name, pc->kind, 0);
        size_t ci = (size_t)(c - ta->causes.v);
        if (ta->causes.n != before) {
            KS_GROW(ta->last_gap, ta->last_cap, ta->causes.n);
            ta->last_gap[ci] = 0;
        }
        c->total_ns = ks_sat_add(c->total_ns, plen);
        if (ta->last_gap[ci] != gap_index + 1) {
            ta->last_gap[ci] = gap_index + 1;
            c->count++;
        }
    }
    /* the slot first: thread_slot may move d->threads, which the index expression would read
     * before it (fuzz/regress/analyze/gap-launching-thread-slot) */
    size_t ls = thread_slot(d, dt, g->launch_track);
    d->threads[ls].launching++;
    if (!all_pieces || !g->npcs)
        return; /* the longest keep theirs (keep_longest); no pieces: d->pieces may still be NULL */
    KS_GROW(d->pieces, *cap_pieces, d->npieces + g->npcs);
    memcpy(d->pieces + d->npieces, g->pcs, g->npcs * sizeof *g->pcs);
    d->npieces += g->npcs;
}

/* The gaps in which a thread was quiet: each an idle piece the whole gap, all added at once (the
 * sums saturate as the piece-by-piece ones do: lengths are never negative). */
static void quiet_threads(const ks_trace *t, ks_gap_device *d, dev_threads *dt)
{
    for (size_t i = 0; i < d->nthreads; i++) {
        uint32_t proc = t->tracks[d->threads[i].track].process;
        uint64_t n = dt->proc_n[proc] - dt->active_n[i];
        if (!n)
            continue;
        unsigned __int128 q = dt->proc_len[proc] - dt->active_len[i];
        ks_ns len = q > (unsigned __int128)INT64_MAX ? INT64_MAX : (ks_ns)q;
        ks_gap_thread *th = &d->threads[i];
        th->state_ns[KS_TS_IDLE] = ks_sat_add(th->state_ns[KS_TS_IDLE], len);
        ks_gap_cause *c = cause(&dt->acc[i].causes, 0, KS_K_OTHER, 0);
        c->total_ns = ks_sat_add(c->total_ns, len);
        c->count += n;
    }
}

/* The indices (among the gaps over the threshold) of the five longest, as keep_longest will find
 * them: their pieces are kept, so they are split on every thread. */
static void longest_five(const ks_analysis *a, const ks_gap_opts *o, const uint32_t *order, size_t n,
                         size_t idx[5], size_t *nidx)
{
    ks_ns lens[5];
    size_t m = 0, count = 0;
    ks_ns cur_end = ks_gpuwork_iv_at(a, order[0]).b;
    for (size_t i = 1; i < n; i++) {
        ks_gpuwork_iv w = ks_gpuwork_iv_at(a, order[i]);
        if (w.a <= cur_end) {
            if (w.b > cur_end)
                cur_end = w.b;
            continue;
        }
        ks_ns len = ks_sat_sub(w.a, cur_end);
        cur_end = w.b;
        if (len <= o->threshold_ns)
            continue;
        size_t at = m, gi = count++;
        if (at < 5)
            m++;
        else if (len > lens[4])
            at = 4;
        else
            continue;
        lens[at] = len;
        idx[at] = gi;
        for (size_t j = at; j > 0 && lens[j] > lens[j - 1]; j--) {
            ks_ns x = lens[j];
            lens[j] = lens[j - 1];
            lens[j - 1] = x;
            size_t y = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = y;
        }
    }
    *nidx = m;
}

/* the gaps of one device; order: its work by time (ks_gpuwork_device_by_time), n > 0 */
static void device_gaps(gap_ctx *g, const ks_gap_opts *o, const uint32_t *order, size_t n, ks_gap_device *d,
                        sweep *sw)
{
    const ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    int32_t fallback = main_thread(a, order, n);
    cause_table cpu = {0}, label = {0};
    size_t cap_all = 0, cap_pieces = 0;
    size_t ntr = t->ntracks < a->ntl ? t->ntracks : a->ntl;
    dev_threads dt;
    memset(&dt, 0, sizeof dt);
    dt.slot_of = ks_xmalloc((ntr ? ntr : 1) * sizeof *dt.slot_of);
    for (size_t k = 0; k < ntr; k++)
        dt.slot_of[k] = -1;
    dt.proc_n = ks_xcalloc(t->nprocs ? t->nprocs : 1, sizeof *dt.proc_n);
    dt.proc_len = ks_xcalloc(t->nprocs ? t->nprocs : 1, sizeof *dt.proc_len);
    dt.proc_seen = ks_xcalloc(t->nprocs ? t->nprocs : 1, 1);
    size_t top[5], ntop = 0;
    longest_five(a, o, order, n, top, &ntop);
    sweep_device(sw);
    kept k[5];
    memset(k, 0, sizeof k);
    ks_i64map_init(&cpu.ix);
    ks_i64map_init(&label.ix);
    ks_ns cur_end = ks_gpuwork_iv_at(a, order[0]).b;
    for (size_t i = 1; i < n; i++) {
        ks_gpuwork_iv w = ks_gpuwork_iv_at(a, order[i]);
        if (w.a <= cur_end) {
            if (w.b > cur_end)
                cur_end = w.b;
            continue;
        }
        ks_ns g0 = cur_end, g1 = w.a, len = ks_sat_sub(g1, g0);
        cur_end = w.b;
        d->idle_ns = ks_sat_add(d->idle_ns, len);
        ks_slice_ref r = ks_gpuwork_launcher_at(a, w.item);
        if (r.s >= 0 && ks_slice_ts_at(&a->tl[r.tl], r.s) >= g0)
            d->hta_host_wait_ns = ks_sat_add(d->hta_host_wait_ns, len);
        else if (r.s >= 0 && len < o->hta_kernel_wait_ns)
            d->hta_kernel_wait_ns = ks_sat_add(d->hta_kernel_wait_ns, len);
        else
            d->hta_other_ns = ks_sat_add(d->hta_other_ns, len);
        if (len <= o->threshold_ns) /* reported when longer than the threshold (HTA's rule) */
            continue;
        d->count++;
        d->total_ns = ks_sat_add(d->total_ns, len);
        int32_t thread = r.s >= 0 ? (int32_t)r.tl : fallback;
        g->cpu.n = g->label.n = 0;
        g->data_ns = 0;
        g->npcs = 0;
        size_t piece0 = d->npieces;
        if (thread >= 0) {
            int full = o->all_pieces;
            for (size_t j = 0; j < ntop && !full; j++)
                full = top[j] == d->count - 1;
            g->launch_track = (uint32_t)thread;
            every_thread(g, d, &dt, sw, d->count - 1, g0, g1, &cap_pieces, o->all_pieces, full);
        } else {
            add_cause(&g->cpu, 0, 0, 0, len);
            add_cause(&g->label, 0, 0, 0, len);
        }
        d->data_loading_ns = ks_sat_add(d->data_loading_ns, g->data_ns);
        merge_causes(g, &cpu, &g->cpu);
        merge_causes(g, &label, &g->label);
        ks_gap gp = {g0, g1, 0, KS_K_OTHER, 0, 0, thread, piece0, d->npieces - piece0};
        ks_ns most = -1;
        for (size_t c = 0; c < g->cpu.n; c++) {
            if (g->cpu.v[c].waiting)
                d->waiting_ns = ks_sat_add(d->waiting_ns, g->cpu.v[c].total_ns);
            if (g->cpu.v[c].total_ns > most) {
                most = g->cpu.v[c].total_ns;
                gp.cause = g->cpu.v[c].name;
                gp.cause_kind = g->cpu.v[c].kind;
                gp.cause_waiting = g->cpu.v[c].waiting;
            }
        }
        gp.data = gp.cause && is_data(g, gp.cause);
        KS_GROW(d->all, cap_all, d->count);
        d->all[d->count - 1] = gp;
        keep_longest(d, k, &gp, d->count - 1, o->all_pieces ? NULL : g->pcs, g->npcs);
    }
    quiet_threads(t, d, &dt);
    if (!o->all_pieces)
        place_longest(d, k);
    if (cpu.n > 1)
        qsort(cpu.v, cpu.n, sizeof *cpu.v, cmp_cause);
    if (label.n > 1)
        qsort(label.v, label.n, sizeof *label.v, cmp_cause);
    d->by_cpu = cpu.v;
    d->nby_cpu = cpu.n;
    d->by_label = label.v;
    d->data_spans = g->dsp;
    d->ndata_spans = g->ndsp / 2;
    g->dsp = NULL;
    g->ndsp = g->cdsp = 0;
    d->nby_label = label.n;
    ks_i64map_free(&cpu.ix);
    ks_i64map_free(&label.ix);
    for (size_t i = 0; i < d->nthreads; i++) {
        thread_acc *ta = &dt.acc[i];
        if (ta->causes.n > 1)
            qsort(ta->causes.v, ta->causes.n, sizeof *ta->causes.v, cmp_cause);
        d->threads[i].by_cpu = ta->causes.v;
        d->threads[i].nby_cpu = ta->causes.n;
        ks_i64map_free(&ta->causes.ix);
        free(ta->last_gap);
    }
    free(dt.acc);
    free(dt.slot_of);
    free(dt.active_n);
    free(dt.active_len);
    free(dt.proc_n);
    free(dt.proc_len);
    free(dt.proc_seen);
}

int ks_gaps_find(const ks_analysis *a, const ks_steps *steps, const ks_gap_opts *opts, ks_gaps *out, ks_error *err)
{
    ks_gap_opts defaults;
    if (!opts) {
        ks_gap_opts_init(&defaults);
        opts = &defaults;
    }
    memset(out, 0, sizeof *out);
    const ks_trace *t = a->trace;
    if (!a->gpu) {
        out->reason = a->gpu_reason ? a->gpu_reason : "not observed: no GPU work";
        return KS_OK;
    }
    gap_ctx g;
    memset(&g, 0, sizeof g);
    g.a = a;
    g.step_name = ks_xcalloc(ks_strtab_count(t->strings), 1);
    for (size_t i = 0; steps && i < steps->n; i++)
        g.step_name[steps->v[i].name] = 1;
    g.data_re = ks_regex_new(opts->data_regex ? opts->data_regex : DEFAULT_DATA_REGEX,
                             KS_REGEX_UTF | KS_REGEX_CASELESS, err);
    if (!g.data_re)
        return KS_ERR;
    g.data_cache = ks_xcalloc(ks_strtab_count(t->strings), 1);
    g.blocking = ks_xcalloc(ks_strtab_count(t->strings), 1);
    out->dev = ks_xcalloc(a->ngpu, sizeof *out->dev);
    out->n = a->ngpu;
    sweep sw;
    sweep_init(&sw, a);
    for (size_t d = 0; d < a->ngpu; d++) {
        ks_gap_device *dev = &out->dev[d];
        dev->device = a->gpu[d].device;
        dev->threshold_ns = opts->threshold_ns;
        size_t n, most;
        uint32_t *order = ks_gpuwork_device_by_time(a, dev->device, &n, &most);
        if (n)
            device_gaps(&g, opts, order, n, dev, &sw);
        ks_big_free(order, most * sizeof *order);
    }
    sweep_free(&sw);
    free(g.cpu.v);
    free(g.label.v);
    free(g.data_cache);
    free(g.blocking);
    free(g.pcs);
    free(g.dsp);
    ks_ivs_free(&g.work);
    ks_ivs_free(&g.busy);
    free(g.step_name);
    ks_regex_free(g.data_re);
    return KS_OK;
}

void ks_gaps_free(ks_gaps *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->dev[i].by_cpu);
        free(g->dev[i].by_label);
        free(g->dev[i].all);
        free(g->dev[i].data_spans);
        for (size_t j = 0; j < g->dev[i].nthreads; j++)
            free(g->dev[i].threads[j].by_cpu);
        free(g->dev[i].threads);
        free(g->dev[i].pieces);
    }
    free(g->dev);
    memset(g, 0, sizeof *g);
}
