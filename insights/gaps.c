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
#include <stdio.h>
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
#include "insights/insights_int.h"

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
    uint64_t splits;           /* gaps split on one thread (attribute), for the tests */
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
 * a blocking call) while another thread of its process works, "waiting on another thread".
 * steady_work, steady_label: another thread works, or is in a label's own time, the whole gap
 * [g0, g1) without a piece here (the plan added it). */
static void launching_causes(gap_ctx *g, ks_ns g0, ks_ns g1, int steady_work, int steady_label)
{
    ks_ivs_reset(&g->work);
    ks_ivs_reset(&g->busy);
    if (steady_work)
        ks_ivs_add(&g->work, g0, g1);
    if (steady_work || steady_label)
        ks_ivs_add(&g->busy, g0, g1);
    for (size_t i = 0; i < g->npcs; i++) {
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
    for (size_t i = 0; i < g->npcs; i++) {
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
    g->splits++;
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
        if (s->flags & KS_SF_SPILLED)
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

/* longest first; ties by name, kind and waiting (a total order: the tables do not depend on the
 * order their causes were met in) */
static int cmp_cause(const void *x, const void *y)
{
    const ks_gap_cause *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->waiting > b->waiting) - (a->waiting < b->waiting);
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

/* What the gaps of one device keep per thread. A CPU thread of the launching thread's process is
 * counted in a gap in one of two ways: split by attribute (the launching thread, every thread in a
 * gap whose pieces are kept, a thread one of whose slices starts or ends inside the gap), or, when
 * it is steady there (no slice of it starts or ends inside), as the one piece its open slices give
 * the whole gap. The steady gaps of a thread come in runs with no start or end of its slices from
 * the first gap's start to the last one's end: its open slices stay the same through a run, so a
 * run is split once and added for all its gaps at once (plan_thread). A gap so costs the threads
 * whose slices change in it, not every thread of its process: 8 000 threads, each with a slice
 * open across 8 000 gaps, were 64 million splits (and 8 000 threads quiet in 8 000 gaps, 64
 * million pieces, before that). */
typedef struct dev_threads {
    thread_acc *acc;           /* per slot of d->threads */
    size_t acc_cap;
    int32_t *slot_of;          /* per track: its slot, -1 none */
    uint8_t *proc_seen;        /* per process: its threads have their slots */
} dev_threads;

/* the device's entry for CPU thread track k */
static size_t thread_slot(ks_gap_device *d, dev_threads *dt, uint32_t k)
{
    if (dt->slot_of[k] >= 0)
        return (size_t)dt->slot_of[k];
    size_t c = dt->acc_cap;
    KS_GROW(d->threads, dt->acc_cap, d->nthreads + 1);
    if (dt->acc_cap != c)
        dt->acc = ks_xrealloc(dt->acc, dt->acc_cap * sizeof *dt->acc);
    memset(&d->threads[d->nthreads], 0, sizeof d->threads[0]);
    d->threads[d->nthreads].track = k;
    memset(&dt->acc[d->nthreads], 0, sizeof *dt->acc);
    ks_i64map_init(&dt->acc[d->nthreads].causes.ix);
    dt->slot_of[k] = (int32_t)d->nthreads;
    return d->nthreads++;
}

/* len ns in state, as cause (name, kind), counted in ngaps gaps of thread slot s (a piece, or a
 * run of steady gaps) */
static void thread_piece(ks_gap_device *d, dev_threads *dt, size_t s, uint8_t state, ks_str name, uint8_t kind,
                         ks_ns len, uint64_t ngaps, size_t gap_index)
{
    ks_gap_thread *th = &d->threads[s];
    thread_acc *ta = &dt->acc[s];
    th->state_ns[state] = ks_sat_add(th->state_ns[state], len);
    size_t before = ta->causes.n;
    ks_gap_cause *c = cause(&ta->causes, name, kind, 0);
    size_t ci = (size_t)(c - ta->causes.v);
    if (ta->causes.n != before) {
        KS_GROW(ta->last_gap, ta->last_cap, ta->causes.n);
        ta->last_gap[ci] = 0;
    }
    c->total_ns = ks_sat_add(c->total_ns, len);
    if (!gap_index) {
        c->count += ngaps; /* a steady run: none of its gaps is split on this thread */
    } else if (ta->last_gap[ci] != gap_index) {
        ta->last_gap[ci] = gap_index;
        c->count++;
    }
}

/* a gap over the threshold: its bounds and the thread it is looked at from (-1: none) */
typedef struct gap_at {
    ks_ns g0, g1;
    int32_t thread;
} gap_at;

/* Where the threads' slices change, for the gaps of one device (plan_device): per gap, how many
 * steady threads work, and how many are in a label's own time, the whole gap (the launching thread
 * waits on them), and the threads split in it besides the launching one, by track:
 * split[first[i] .. first[i + 1]). Each gap belongs to the process of its launching thread;
 * positions number the gaps of one process. */
typedef struct plan {
    uint32_t *nwork, *nlabel;  /* per gap */
    size_t *first;             /* per gap, + 1 */
    uint32_t *split;
    /* per process: its gaps (pgap[pfirst[p] .. pfirst[p + 1]), in time order) and CPU threads
     * (ptrack[tfirst[p] .. tfirst[p + 1]), by track); per gap its position among its process's */
    size_t *pfirst, *pgap, *tfirst, *pos;
    uint32_t *ptrack;
    /* per track: the gaps looked at from it (lgap[lfirst[k] .. lfirst[k + 1])) */
    size_t *lfirst, *lgap;
    /* the planning of one thread: per position its marks, the positions marked, per position the
     * running counts of steady threads working and in labels (differences), the lengths so far */
    uint8_t *mark;
    size_t *marked, nmarked, cmarked;
    int64_t *dwork, *dlabel;
    unsigned __int128 *plen;
    struct pair { size_t gap; uint32_t track; } *pairs;
    size_t npairs, cpairs;
} plan;

enum { MARK_CUT = 1, MARK_SPLIT = 2 };

static void mark(plan *pl, size_t q, uint8_t what)
{
    if (!pl->mark[q])
        KS_PUSH(pl->marked, pl->nmarked, pl->cmarked, q);
    pl->mark[q] |= what;
}

/* A start or end of a slice at c, for the thread being planned: the gap it falls inside is split
 * on the thread (MARK_SPLIT), one it falls before, after the gap before it, ends a run of steady
 * gaps before that one (MARK_CUT; at the gap's start too: the slices open at a gap's start are
 * those started at or before it and not ended by it). gap[0 .. m): the process's gaps; from: a
 * position at or before the first gap ending after c. */
static size_t mark_change(plan *pl, const gap_at *gaps, const size_t *gap, size_t m, size_t from, ks_ns c)
{
    size_t lo = from, hi = m;
    if (lo < m && gaps[gap[lo]].g1 <= c) {
        /* gallop: a slice's end is most often in the next gap or before it */
        size_t step = 1;
        lo++;
        while (lo + step < m && gaps[gap[lo + step]].g1 <= c) {
            lo += step + 1;
            step *= 2;
        }
        hi = lo + step < m ? lo + step : m;
        KS_LOWER_BOUND(lo, hi, mid, gaps[gap[mid]].g1 <= c);
    }
    if (lo < m)
        mark(pl, lo, gaps[gap[lo]].g0 < c ? MARK_SPLIT : MARK_CUT);
    return lo;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

/* Plan thread k of a process whose gaps are gap[0 .. m) (top: the positions of the gaps whose
 * pieces are kept): the gaps it is split in go to pl->pairs; each run of steady gaps is split at
 * its first gap alone, its piece added to the thread's tables for the whole run and counted in
 * the run's working or label counts. */
static void plan_thread(gap_ctx *g, ks_gap_device *d, dev_threads *dt, plan *pl, const gap_at *gaps, const size_t *gap,
                        size_t m, const size_t *top, size_t ntop, uint32_t k)
{
    const ks_timeline *tl = &g->a->tl[k];
    pl->nmarked = 0;
    for (size_t i = 0; i < ntop; i++)
        mark(pl, top[i], MARK_SPLIT);
    for (size_t i = pl->lfirst[k]; i < pl->lfirst[k + 1]; i++)
        mark(pl, pl->pos[pl->lgap[i]], MARK_SPLIT);
    size_t j = 0; /* the first gap ending after the current slice's start */
    for (size_t i = 0; i < tl->n && j < m; i++) {
        ks_ns ts = ks_slice_ts_at(tl, i), e = ks_slice_end(tl, &tl->s[i]);
        j = mark_change(pl, gaps, gap, m, j, ts);
        mark_change(pl, gaps, gap, m, e >= ts ? j : 0, e);
    }
    if (pl->nmarked > 1)
        qsort(pl->marked, pl->nmarked, sizeof *pl->marked, cmp_size);
    size_t s = (size_t)dt->slot_of[k], q0 = 0;
    for (size_t i = 0; i <= pl->nmarked; i++) {
        size_t q = i < pl->nmarked ? pl->marked[i] : m;
        if (q > q0) {
            /* the steady run q0 .. q: its first gap's one piece */
            g->npcs = 0;
            attribute(g, tl, gaps[gap[q0]].g0, gaps[gap[q0]].g1);
            const ks_gap_piece *pc = &g->pcs[0];
            unsigned __int128 sum = pl->plen[q] - pl->plen[q0];
            ks_ns len = sum > (unsigned __int128)INT64_MAX ? INT64_MAX : (ks_ns)sum;
            thread_piece(d, dt, s, pc->state, pc->name, pc->kind, len, q - q0, 0);
            if (pc->state == KS_TS_WORK) {
                pl->dwork[q0]++;
                pl->dwork[q]--;
            } else if (pc->state == KS_TS_LABEL) {
                pl->dlabel[q0]++;
                pl->dlabel[q]--;
            }
            g->npcs = 0;
        }
        if (i == pl->nmarked)
            break;
        q0 = q;
        if (pl->mark[q] & MARK_SPLIT) {
            q0 = q + 1;
            size_t gi = gap[q];
            if (gaps[gi].thread != (int32_t)k) {
                int kept = 0;
                for (size_t t = 0; t < ntop; t++)
                    kept |= top[t] == q;
                if (!kept) {
                    struct pair p = {gi, k};
                    KS_PUSH(pl->pairs, pl->npairs, pl->cpairs, p);
                }
            }
        }
        pl->mark[q] = 0;
    }
}

/* The plan of one device's gaps (ng of them; top: the indices of those whose pieces are kept). */
static void plan_device(gap_ctx *g, ks_gap_device *d, dev_threads *dt, plan *pl, const gap_at *gaps, size_t ng,
                        const size_t *top, size_t ntop)
{
    const ks_trace *t = g->a->trace;
    size_t np = t->nprocs, ntr = t->ntracks < g->a->ntl ? t->ntracks : g->a->ntl;
    memset(pl, 0, sizeof *pl);
    pl->nwork = ks_xcalloc(ng + 1, sizeof *pl->nwork);
    pl->nlabel = ks_xcalloc(ng + 1, sizeof *pl->nlabel);
    pl->first = ks_xcalloc(ng + 1, sizeof *pl->first);
    pl->pfirst = ks_xcalloc(np + 1, sizeof *pl->pfirst);
    pl->tfirst = ks_xcalloc(np + 1, sizeof *pl->tfirst);
    pl->lfirst = ks_xcalloc(ntr + 1, sizeof *pl->lfirst);
    pl->pgap = ks_xmalloc((ng + 1) * sizeof *pl->pgap);
    pl->lgap = ks_xmalloc((ng + 1) * sizeof *pl->lgap);
    pl->pos = ks_xmalloc((ng + 1) * sizeof *pl->pos);
    pl->ptrack = ks_xmalloc((ntr + 1) * sizeof *pl->ptrack);
    /* counting sorts: gaps by process and by launching thread, CPU threads by process */
    for (size_t i = 0; i < ng; i++)
        if (gaps[i].thread >= 0) {
            pl->pfirst[t->tracks[gaps[i].thread].process + 1]++;
            pl->lfirst[gaps[i].thread + 1]++;
        }
    for (size_t k = 0; k < ntr; k++)
        if (t->tracks[k].kind == KS_TRACK_CPU)
            pl->tfirst[t->tracks[k].process + 1]++;
    for (size_t p = 0; p < np; p++) {
        pl->pfirst[p + 1] += pl->pfirst[p];
        pl->tfirst[p + 1] += pl->tfirst[p];
    }
    for (size_t k = 0; k < ntr; k++)
        pl->lfirst[k + 1] += pl->lfirst[k];
    size_t *pfill = ks_xmalloc((np + 1) * sizeof *pfill), *lfill = ks_xmalloc((ntr + 1) * sizeof *lfill);
    memcpy(pfill, pl->pfirst, (np + 1) * sizeof *pfill);
    memcpy(lfill, pl->lfirst, (ntr + 1) * sizeof *lfill);
    for (size_t i = 0; i < ng; i++)
        if (gaps[i].thread >= 0) {
            uint32_t p = t->tracks[gaps[i].thread].process;
            pl->pos[i] = pfill[p] - pl->pfirst[p];
            pl->pgap[pfill[p]++] = i;
            pl->lgap[lfill[gaps[i].thread]++] = i;
        }
    memcpy(pfill, pl->tfirst, (np + 1) * sizeof *pfill);
    for (size_t k = 0; k < ntr; k++)
        if (t->tracks[k].kind == KS_TRACK_CPU)
            pl->ptrack[pfill[t->tracks[k].process]++] = (uint32_t)k;
    free(pfill);
    free(lfill);
    size_t most = 0;
    for (size_t p = 0; p < np; p++)
        if (pl->pfirst[p + 1] - pl->pfirst[p] > most)
            most = pl->pfirst[p + 1] - pl->pfirst[p];
    pl->mark = ks_xcalloc(most + 1, 1);
    pl->dwork = ks_xmalloc((most + 1) * sizeof *pl->dwork);
    pl->dlabel = ks_xmalloc((most + 1) * sizeof *pl->dlabel);
    pl->plen = ks_xmalloc((most + 1) * sizeof *pl->plen);
    uint32_t saved = g->launch_track;
    g->launch_track = UINT32_MAX; /* no thread's causes: the planning splits for the pieces alone */
    for (size_t p = 0; p < np; p++) {
        const size_t *gap = pl->pgap + pl->pfirst[p];
        size_t m = pl->pfirst[p + 1] - pl->pfirst[p];
        if (!m)
            continue;
        size_t ptop[5], nptop = 0;
        for (size_t i = 0; i < ntop; i++)
            if (gaps[top[i]].thread >= 0 && t->tracks[gaps[top[i]].thread].process == p)
                ptop[nptop++] = pl->pos[top[i]];
        pl->plen[0] = 0;
        for (size_t q = 0; q < m; q++) {
            pl->plen[q + 1] = pl->plen[q] + (uint64_t)ks_sat_sub(gaps[gap[q]].g1, gaps[gap[q]].g0);
            pl->dwork[q] = pl->dlabel[q] = 0;
        }
        pl->dwork[m] = pl->dlabel[m] = 0;
        for (size_t i = pl->tfirst[p]; i < pl->tfirst[p + 1]; i++)
            plan_thread(g, d, dt, pl, gaps, gap, m, ptop, nptop, pl->ptrack[i]);
        int64_t w = 0, l = 0;
        for (size_t q = 0; q < m; q++) {
            w += pl->dwork[q];
            l += pl->dlabel[q];
            pl->nwork[gap[q]] = (uint32_t)w;
            pl->nlabel[gap[q]] = (uint32_t)l;
        }
    }
    g->launch_track = saved;
    /* the split threads by gap (a stable counting sort: by track within a gap, as planned) */
    for (size_t i = 0; i < pl->npairs; i++)
        pl->first[pl->pairs[i].gap + 1]++;
    for (size_t i = 0; i < ng; i++)
        pl->first[i + 1] += pl->first[i];
    pl->split = ks_xmalloc((pl->npairs + 1) * sizeof *pl->split);
    size_t *fill = ks_xmalloc((ng + 1) * sizeof *fill);
    memcpy(fill, pl->first, (ng + 1) * sizeof *fill);
    for (size_t i = 0; i < pl->npairs; i++)
        pl->split[fill[pl->pairs[i].gap]++] = pl->pairs[i].track;
    free(fill);
    free(pl->pairs);
    pl->pairs = NULL;
}

static void plan_free(plan *pl)
{
    free(pl->nwork);
    free(pl->nlabel);
    free(pl->first);
    free(pl->split);
    free(pl->pfirst);
    free(pl->pgap);
    free(pl->tfirst);
    free(pl->pos);
    free(pl->ptrack);
    free(pl->lfirst);
    free(pl->lgap);
    free(pl->mark);
    free(pl->marked);
    free(pl->dwork);
    free(pl->dlabel);
    free(pl->plen);
    free(pl->pairs);
}

/* Split gap gi, [g0, g1), on the CPU threads of the launching thread's process: every one when
 * full (the gap's pieces are kept), else the launching thread and those the plan splits in it
 * (the steady ones were added by the plan); the gap's pieces (left in g->pcs) go to the
 * per-thread tables, (launching thread) the gap's causes and, with all_pieces, the device's
 * list. */
static void every_thread(gap_ctx *g, ks_gap_device *d, dev_threads *dt, const plan *pl, size_t gi, ks_ns g0,
                         ks_ns g1, size_t *cap_pieces, int all_pieces, int full)
{
    const ks_trace *t = g->a->trace;
    uint32_t proc = t->tracks[g->launch_track].process;
    size_t ntr = t->ntracks < g->a->ntl ? t->ntracks : g->a->ntl;
    g->npcs = 0;
    int steady_work = 0, steady_label = 0;
    if (full) {
        for (size_t k = 0; k < ntr; k++)
            if (t->tracks[k].kind == KS_TRACK_CPU && t->tracks[k].process == proc)
                attribute(g, &g->a->tl[k], g0, g1);
    } else {
        /* the launching thread among the split ones, by track */
        int done = 0;
        for (size_t i = pl->first[gi]; i <= pl->first[gi + 1]; i++) {
            uint32_t k = i < pl->first[gi + 1] ? pl->split[i] : UINT32_MAX;
            if (!done && g->launch_track < k) {
                attribute(g, &g->a->tl[g->launch_track], g0, g1);
                done = 1;
            }
            if (k != UINT32_MAX)
                attribute(g, &g->a->tl[k], g0, g1);
        }
        steady_work = pl->nwork[gi] > 0;
        steady_label = pl->nlabel[gi] > 0;
    }
    launching_causes(g, g0, g1, steady_work, steady_label);
    for (size_t i = 0; i < g->npcs; i++) {
        const ks_gap_piece *pc = &g->pcs[i];
        thread_piece(d, dt, thread_slot(d, dt, pc->track), pc->state, pc->name, pc->kind,
                     ks_sat_sub(pc->end, pc->start), 1, gi + 1);
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

/* The gaps of one device over the threshold (in time order), with the thread each is looked at
 * from: the launching thread of the work ending it, else fallback. */
static gap_at *list_gaps(const ks_analysis *a, const ks_gap_opts *o, const uint32_t *order, size_t n,
                         int32_t fallback, size_t *ng)
{
    gap_at *v = NULL;
    size_t cap = 0;
    *ng = 0;
    ks_ns cur_end = ks_gpuwork_iv_at(a, order[0]).b;
    for (size_t i = 1; i < n; i++) {
        ks_gpuwork_iv w = ks_gpuwork_iv_at(a, order[i]);
        if (w.a <= cur_end) {
            if (w.b > cur_end)
                cur_end = w.b;
            continue;
        }
        ks_ns g0 = cur_end, g1 = w.a;
        cur_end = w.b;
        if (ks_sat_sub(g1, g0) <= o->threshold_ns)
            continue;
        ks_slice_ref r = ks_gpuwork_launcher_at(a, w.item);
        gap_at x = {g0, g1, r.s >= 0 ? (int32_t)r.tl : fallback};
        KS_PUSH(v, *ng, cap, x);
    }
    return v;
}

/* The indices (among the gaps over the threshold) of the five longest, as keep_longest will find
 * them: their pieces are kept, so they are split on every thread. */
static void longest_five(const gap_at *gaps, size_t ng, size_t idx[5], size_t *nidx)
{
    ks_ns lens[5];
    size_t m = 0;
    for (size_t gi = 0; gi < ng; gi++) {
        ks_ns len = ks_sat_sub(gaps[gi].g1, gaps[gi].g0);
        size_t at = m;
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
static void device_gaps(gap_ctx *g, const ks_gap_opts *o, const uint32_t *order, size_t n, ks_gap_device *d)
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
    dt.proc_seen = ks_xcalloc(t->nprocs ? t->nprocs : 1, 1);
    size_t ng, top[5], ntop = 0;
    gap_at *gaps = list_gaps(a, o, order, n, fallback, &ng);
    longest_five(gaps, ng, top, &ntop);
    /* the slots: every thread of a process from its first gap, in track order, then the launching
     * thread (which need not be a CPU thread) */
    for (size_t i = 0; i < ng; i++) {
        if (gaps[i].thread < 0)
            continue;
        uint32_t proc = t->tracks[gaps[i].thread].process;
        if (!dt.proc_seen[proc]) {
            dt.proc_seen[proc] = 1;
            for (size_t k = 0; k < ntr; k++)
                if (t->tracks[k].kind == KS_TRACK_CPU && t->tracks[k].process == proc)
                    thread_slot(d, &dt, (uint32_t)k);
        }
        thread_slot(d, &dt, (uint32_t)gaps[i].thread);
    }
    plan pl;
    memset(&pl, 0, sizeof pl);
    if (!o->all_pieces)
        plan_device(g, d, &dt, &pl, gaps, ng, top, ntop);
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
        size_t gi = d->count - 1;
        int32_t thread = gaps[gi].thread;
        g->cpu.n = g->label.n = 0;
        g->data_ns = 0;
        g->npcs = 0;
        size_t piece0 = d->npieces;
        if (thread >= 0) {
            int full = o->all_pieces;
            for (size_t j = 0; j < ntop && !full; j++)
                full = top[j] == gi;
            g->launch_track = (uint32_t)thread;
            every_thread(g, d, &dt, &pl, gi, g0, g1, &cap_pieces, o->all_pieces, full);
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
    plan_free(&pl);
    free(gaps);
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
    free(dt.proc_seen);
}

int ks_gaps_find(const ks_analysis *a, const ks_steps *steps, const ks_gap_opts *opts, ks_gaps *out, ks_error *err)
{
    return ks_gaps_find_counted(a, steps, opts, out, err, NULL);
}

int ks_gaps_find_counted(const ks_analysis *a, const ks_steps *steps, const ks_gap_opts *opts, ks_gaps *out,
                         ks_error *err, uint64_t *splits)
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
    for (size_t d = 0; d < a->ngpu; d++) {
        ks_gap_device *dev = &out->dev[d];
        dev->device = a->gpu[d].device;
        dev->threshold_ns = opts->threshold_ns;
        size_t n, most;
        uint32_t *order = ks_gpuwork_device_by_time(a, dev->device, &n, &most);
        if (n)
            device_gaps(&g, opts, order, n, dev);
        ks_big_free(order, most * sizeof *order);
    }
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
    if (splits)
        *splits = g.splits;
    return KS_OK;
}

void ks_gap_cause_text(char *buf, size_t n, const ks_trace *t, const ks_gap_cause *c, size_t width,
                       const char *sep)
{
    char prev[128] = ""; /* width bytes (at most 100), control bytes as \xNN, "..." */
    if (c->name) {
        const char *nm = ks_trace_str(t, c->name);
        ks_fmt_preview(prev, sizeof prev, nm, strlen(nm), width < 100 ? width : 100);
    }
    if (c->waiting && c->name)
        snprintf(buf, n, "launching thread waiting on another thread (in %s [%s])", prev, ks_kind_name((ks_kind)c->kind));
    else if (c->waiting)
        snprintf(buf, n, "launching thread waiting on another thread (idle)");
    else if (c->name)
        snprintf(buf, n, "%s%s[%s]", prev, sep, ks_kind_name((ks_kind)c->kind));
    else
        snprintf(buf, n, "(nothing: CPU thread idle)");
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
