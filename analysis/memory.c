/* analysis/memory.c: the memory pass: the allocator events of a trace (ks_trace.mems, the
 * [memory] instants of profile_memory=True) per device, in time order, with the level after each,
 * the peak and what was live at it, the ops' figures (the TensorBoard plugin's MemoryMetrics) and
 * the laws that tie Bytes to Total Allocated (kinesift/memory.h has the definitions).
 * Why it is correct: every figure is an exact int64 of the file or a sum of them; the peaks are
 * the events' own totals, never a derived level; an event belongs to one op by the plugin's
 * half-open rule on the track's timeline; the ops' increases add up to the sum of Bytes by
 * construction ([no op] holds the rest), and whether that sum is the change of Total Allocated is
 * a law checked event by event, its breaks counted.
 * Cost: a sort of the device's events, one timeline lookup per event (O(log n + depth)), an
 * ancestor walk for the inclusive figures, and one replay by Addr to the peak.
 * Who may use it: ks_analyze (analyze.c); the library's users through ks_analysis.memory. */
#include <stdlib.h>
#include <string.h>

#include "algo/msort.h"
#include "analysis/analysis_int.h"
#include "common/i64map.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/memory.h"

static const char *type_name(int32_t type)
{
    static const char *names[] = {"CPU", "CUDA", "MKLDNN", "OPENGL", "OPENCL", "IDEEP", "HIP", "FPGA",
                                  "MAIA", "XLA", "Vulkan", "Metal", "XPU", "MPS", "Meta", "HPU",
                                  "VE", "Lazy", "IPU", "MTIA", "PrivateUse1"};
    if (type >= 0 && (size_t)type < sizeof names / sizeof names[0])
        return names[type];
    return NULL;
}

/* ---- devices: the records grouped and put in time order ---------------------------------- */

typedef struct mkey {
    int32_t type, id;
    uint32_t mem;              /* index in t->mems */
    ks_ns ts;
} mkey;

static inline int mkey_before(const mkey *a, const mkey *b)
{
    if (a->type != b->type)
        return a->type < b->type;
    if (a->id != b->id)
        return a->id < b->id;
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return a->mem < b->mem; /* mems are sorted by (track, ev) */
}

/* the keys come in (track, ev) order: a device's events are runs in time order, one per track */
KS_MSORT_DEFINE(sort_mkeys, mkey, mkey_before)

/* ---- which op an event belongs to --------------------------------------------------------- */

static int op_kind(int kind)
{
    return kind == KS_K_CPU_OP || kind == KS_K_USER_ANNOTATION;
}

static int is_op_slice(const ks_trace *t, const ks_timeline *tl, int32_t i)
{
    const ks_slice *s = &tl->s[i];
    if (!op_kind(s->kind))
        return 0;
    if (s->kind == KS_K_USER_ANNOTATION) {
        const char *n = ks_trace_str(t, tl->ev[s->ev].name);
        if (n[0] == 'P' && ks_match_profiler_step(n, NULL))
            return 0;
    }
    return 1;
}

/* The innermost op slice of tl open at ts, or -1. */
static int32_t op_at(const ks_trace *t, const ks_timeline *tl, ks_ns ts)
{
    int32_t i = ks_timeline_at(t, tl, ts, op_kind);
    while (i >= 0 && !is_op_slice(t, tl, i)) {
        i = tl->s[i].parent;
        while (i >= 0 && (!op_kind(tl->s[i].kind) || ks_slice_end(tl, &tl->s[i]) <= ts))
            i = tl->s[i].parent;
    }
    return i;
}

/* ---- per-op rows ---------------------------------------------------------------------------- */

typedef struct op_table {
    ks_i64map idx;             /* name | kind << 32 -> row */
    ks_mem_op *v;
    size_t n, cap;
} op_table;

static ks_mem_op *op_row(op_table *o, ks_str name, int kind)
{
    int64_t key = (int64_t)((uint64_t)name | (uint64_t)kind << 32);
    uint64_t *p = ks_i64map_get(&o->idx, key);
    if (p)
        return &o->v[*p];
    KS_GROW(o->v, o->cap, o->n + 1);
    ks_mem_op *r = &o->v[o->n];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->kind = (uint8_t)kind;
    ks_i64map_put(&o->idx, key, o->n);
    return &o->v[o->n++];
}

static void op_add(ks_mem_op *r, const ks_mem_event *e, int self)
{
    int alloc = e->bytes > 0;
    if (self) {
        r->self_allocs += (uint64_t)alloc;
        r->self_alloc_bytes += alloc ? e->bytes : 0;
        r->self_net_bytes += e->bytes;
    }
    r->incl_allocs += (uint64_t)alloc;
    r->incl_alloc_bytes += alloc ? e->bytes : 0;
    r->incl_net_bytes += e->bytes;
}

/* The event's op (self) and every distinct op name above it (inclusive). */
static void attribute(const ks_trace *t, const ks_timeline *tl, ks_mem_event *e, op_table *o)
{
    int32_t i = tl ? op_at(t, tl, e->ts) : -1;
    if (i < 0) {
        e->op = 0;
        e->op_kind = KS_K_OTHER;
        op_add(op_row(o, 0, KS_K_OTHER), e, 1);
        return;
    }
    const ks_slice *s = &tl->s[i];
    e->op = tl->ev[s->ev].name;
    e->op_kind = s->kind;
    op_add(op_row(o, e->op, s->kind), e, 1);
    /* the ancestors: each distinct (name, kind) once (recursion is not counted twice) */
    enum { SEEN = 64 };
    int64_t seen[SEEN];
    size_t nseen = 0;
    seen[nseen++] = (int64_t)((uint64_t)e->op | (uint64_t)s->kind << 32);
    for (int32_t p = s->parent; p >= 0; p = tl->s[p].parent) {
        if (!is_op_slice(t, tl, p) || ks_slice_end(tl, &tl->s[p]) <= e->ts)
            continue;
        const ks_slice *q = &tl->s[p];
        int64_t key = (int64_t)((uint64_t)tl->ev[q->ev].name | (uint64_t)q->kind << 32);
        size_t j = 0;
        while (j < nseen && seen[j] != key)
            j++;
        if (j < nseen)
            continue;
        if (nseen < SEEN)
            seen[nseen++] = key;
        else {
            /* deeper than SEEN distinct names: look the rest up on the way (rare) */
            int dup = 0;
            for (int32_t r = s->parent; r != p && !dup; r = tl->s[r].parent)
                dup = is_op_slice(t, tl, r) && ks_slice_end(tl, &tl->s[r]) > e->ts &&
                      tl->ev[tl->s[r].ev].name == tl->ev[q->ev].name && tl->s[r].kind == q->kind;
            if (dup)
                continue;
        }
        op_add(op_row(o, tl->ev[q->ev].name, q->kind), e, 0);
    }
}

static int cmp_op(const void *x, const void *y)
{
    const ks_mem_op *a = x, *b = y;
    if (a->incl_alloc_bytes != b->incl_alloc_bytes)
        return a->incl_alloc_bytes > b->incl_alloc_bytes ? -1 : 1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

/* ---- live at the peak ------------------------------------------------------------------------ */

typedef struct live_acc {
    ks_str op;
    uint8_t kind;
    int64_t bytes;
} live_acc;

static int cmp_live(const void *x, const void *y)
{
    const ks_mem_live *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->what != b->what)
        return a->what < b->what ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

/* Group what the map holds live by op (the allocations of the capture still live at the peak). */
static int64_t group_live(ks_mem_device *d, const ks_i64map *live)
{
    ks_i64map ops; /* op key -> index in d->live */
    ks_i64map_init(&ops);
    int64_t tracked = 0;
    for (size_t s = 0; s < live->cap; s++) {
        if (!live->used[s] || live->vals[s] == UINT64_MAX)
            continue;
        const ks_mem_event *e = &d->ev[live->vals[s]];
        int64_t key = (int64_t)((uint64_t)e->op | (uint64_t)e->op_kind << 32);
        uint64_t *p = ks_i64map_get(&ops, key);
        if (!p) {
            d->live = ks_xrealloc(d->live, (d->nlive + 1) * sizeof *d->live);
            ks_mem_live *l = &d->live[d->nlive];
            memset(l, 0, sizeof *l);
            l->op = e->op;
            l->kind = e->op_kind;
            l->what = KS_MEM_LIVE_OP;
            ks_i64map_put(&ops, key, d->nlive++);
            p = ks_i64map_get(&ops, key);
        }
        d->live[*p].count++;
        d->live[*p].bytes += e->bytes;
        tracked += e->bytes;
    }
    ks_i64map_free(&ops);
    return tracked;
}

/* Replay the allocations by Addr (an allocation lives until a free of its Addr): what is live
 * just after the peak event, by op; and the frees of an Addr not allocated before them. */
static void live_at_peak(ks_mem_device *d)
{
    ks_i64map live; /* addr -> event index of its allocation, UINT64_MAX once freed */
    ks_i64map_init(&live);
    int64_t tracked = 0;
    for (size_t i = 0; i < d->nev; i++) {
        const ks_mem_event *e = &d->ev[i];
        if ((e->has & KS_MEM_ADDR) && e->bytes) {
            uint64_t *p = ks_i64map_get(&live, e->addr);
            if (e->bytes > 0)
                ks_i64map_put(&live, e->addr, i);
            else if (p && *p != UINT64_MAX)
                *p = UINT64_MAX;
            else
                d->unpaired_frees++;
        }
        if (i == d->peak_event)
            tracked = group_live(d, &live);
    }
    if (d->basis == KS_MEM_BASIS_TOTAL && d->peak_allocated > tracked) {
        d->live = ks_xrealloc(d->live, (d->nlive + 1) * sizeof *d->live);
        ks_mem_live *l = &d->live[d->nlive++];
        memset(l, 0, sizeof *l);
        l->kind = KS_K_OTHER;
        l->what = KS_MEM_LIVE_BEFORE;
        l->bytes = d->peak_allocated - tracked;
    }
    if (d->nlive > 1)
        qsort(d->live, d->nlive, sizeof *d->live, cmp_live);
    ks_i64map_free(&live);
}

/* ---- the downsampled timeline ---------------------------------------------------------------- */

static void push_point(ks_mem_device *d, const ks_mem_event *e)
{
    d->timeline[d->ntimeline].ts = e->ts;
    d->timeline[d->ntimeline].allocated = e->level;
    d->timeline[d->ntimeline].reserved = e->reserved;
    d->ntimeline++;
}

/* Every event when there are few; else per bucket of time, the events of its highest level, its
 * highest reserved and its last, in time order: every peak is a point. */
static void downsample(ks_mem_device *d)
{
    size_t cap = KS_LIMIT_MEMORY_POINTS;
    d->timeline = ks_xmalloc(ks_mul(d->nev < cap ? d->nev : cap, sizeof *d->timeline));
    if (d->nev <= cap) {
        for (size_t i = 0; i < d->nev; i++) {
            d->timeline[i].ts = d->ev[i].ts;
            d->timeline[i].allocated = d->ev[i].level;
            d->timeline[i].reserved = d->ev[i].reserved;
        }
        d->ntimeline = d->nev;
        return;
    }
    size_t buckets = cap / 3;
    ks_ns t0 = d->ev[0].ts, t1 = d->ev[d->nev - 1].ts;
    __int128 span = (__int128)t1 - t0 + 1;
    size_t i = 0;
    for (size_t b = 0; b < buckets && i < d->nev; b++) {
        ks_ns end = (ks_ns)(t0 + (span * (__int128)(b + 1) + (__int128)buckets - 1) / (__int128)buckets);
        if (b == buckets - 1)
            end = t1 + (t1 < INT64_MAX); /* the last bucket takes the rest */
        size_t first = i, hi = i, hr = i;
        while (i < d->nev && (d->ev[i].ts < end || b == buckets - 1)) {
            if (d->ev[i].level > d->ev[hi].level)
                hi = i;
            if (d->ev[i].reserved > d->ev[hr].reserved)
                hr = i;
            i++;
        }
        if (i == first)
            continue;
        size_t pick[3] = {hi, hr, i - 1};
        /* in time order, each once */
        for (int a = 0; a < 3; a++)
            for (int c = a + 1; c < 3; c++)
                if (pick[c] < pick[a]) {
                    size_t x = pick[a];
                    pick[a] = pick[c];
                    pick[c] = x;
                }
        for (int a = 0; a < 3; a++)
            if ((a == 0 || pick[a] != pick[a - 1]) && d->ntimeline < cap)
                push_point(d, &d->ev[pick[a]]);
    }
}

/* The ops open at the peak on its thread, outermost first. */
static void peak_path(const ks_trace *t, const ks_timeline *tl, ks_ns ts, ks_mem_device *d)
{
    int32_t i = tl ? op_at(t, tl, ts) : -1;
    size_t n = 0;
    for (int32_t p = i; p >= 0; p = tl->s[p].parent)
        n += is_op_slice(t, tl, p) && ks_slice_end(tl, &tl->s[p]) > ts;
    if (!n)
        return;
    d->peak_path = ks_xmalloc(ks_mul(n, sizeof *d->peak_path));
    d->npeak_path = n;
    for (int32_t p = i; p >= 0; p = tl->s[p].parent)
        if (is_op_slice(t, tl, p) && ks_slice_end(tl, &tl->s[p]) > ts)
            d->peak_path[--n] = tl->ev[tl->s[p].ev].name;
}

/* ---- one device ------------------------------------------------------------------------------ */

static void device_build(const ks_trace *t, const ks_timeline *tl, size_t ntl, const mkey *k, size_t n,
                         ks_mem_device *d)
{
    memset(d, 0, sizeof *d);
    d->device_type = k[0].type;
    d->device_id = k[0].id;
    d->type_name = type_name(d->device_type);
    d->ev = ks_xmalloc(ks_mul(n, sizeof *d->ev));
    d->nev = n;
    d->events = n;
    d->capacity = -1;
    d->peak_allocated = d->peak_reserved = -1;
    d->reserved_at_peak = -1;
    int all_totals = 1;
    for (size_t i = 0; i < n; i++)
        all_totals &= (t->mems[k[i].mem].has & KS_MEM_ALLOCATED) != 0;
    d->basis = all_totals ? KS_MEM_BASIS_TOTAL : KS_MEM_BASIS_NET;
    op_table o;
    memset(&o, 0, sizeof o);
    ks_i64map_init(&o.idx);
    int64_t level = 0, reserved = -1;
    int have_prev_total = 0;
    int64_t prev_total = 0;
    for (size_t i = 0; i < n; i++) {
        const ks_mem_info *m = &t->mems[k[i].mem];
        ks_mem_event *e = &d->ev[i];
        e->ts = k[i].ts;
        e->bytes = (m->has & KS_MEM_BYTES) ? m->bytes : 0;
        e->addr = (m->has & KS_MEM_ADDR) ? m->addr : 0;
        e->track = m->track;
        e->mem = k[i].mem;
        e->has = (uint8_t)m->has;
        if (e->bytes > 0) {
            d->allocs++;
            d->alloc_bytes += e->bytes;
        } else if (e->bytes < 0) {
            d->frees++;
            d->free_bytes -= e->bytes;
        }
        d->net_bytes += e->bytes;
        if (d->basis == KS_MEM_BASIS_TOTAL) {
            if (i == 0)
                d->start_level = m->allocated - e->bytes;
            level = m->allocated;
            if (have_prev_total && (m->has & KS_MEM_BYTES)) {
                d->law_checked++;
                d->law_breaks += m->allocated != prev_total + e->bytes;
            }
            have_prev_total = 1;
            prev_total = m->allocated;
            if (m->allocated > d->peak_allocated || i == 0) {
                d->peak_allocated = m->allocated;
                d->peak_ns = e->ts;
                d->peak_event = i;
            }
        } else {
            level += e->bytes;
            if (i == 0 || level > d->peak_level)
                d->peak_event = i;
        }
        if (m->has & KS_MEM_RESERVED) {
            d->has_reserved = 1;
            reserved = m->reserved;
            if (m->reserved > d->peak_reserved) {
                d->peak_reserved = m->reserved;
                d->peak_reserved_ns = e->ts;
            }
        }
        e->level = level;
        e->reserved = reserved;
        if (i == 0 || level > d->peak_level)
            d->peak_level = level;
        attribute(t, m->track < ntl ? &tl[m->track] : NULL, e, &o);
    }
    if (d->device_type == 0 && d->has_reserved && d->peak_reserved == 0) {
        /* the CPU allocator caches nothing: its Total Reserved is always 0, not a reserve */
        d->has_reserved = 0;
        d->peak_reserved = -1;
        for (size_t i = 0; i < n; i++)
            d->ev[i].reserved = -1;
    }
    d->end_level = level;
    const ks_mem_event *pk = &d->ev[d->peak_event];
    if (d->basis == KS_MEM_BASIS_NET)
        d->peak_ns = pk->ts;
    d->peak_op = pk->op;
    d->peak_op_kind = pk->op_kind;
    peak_path(t, pk->track < ntl ? &tl[pk->track] : NULL, pk->ts, d);
    d->reserved_at_peak = pk->reserved;
    if (d->device_type > 0)
        for (size_t j = 0; j < t->meta.ndevices; j++)
            if (t->meta.devices[j].id == d->device_id && t->meta.devices[j].total_global_mem > 0)
                d->capacity = t->meta.devices[j].total_global_mem;
    if (o.n > 1)
        qsort(o.v, o.n, sizeof *o.v, cmp_op);
    d->ops = o.v;
    d->nops = o.n;
    ks_i64map_free(&o.idx);
    live_at_peak(d);
    downsample(d);
}

ks_memory *ks_memory_build(const ks_trace *t, const ks_timeline *tl, size_t ntl)
{
    ks_memory *m = ks_xcalloc(1, sizeof *m);
    m->events = t->nmems;
    if (!t->nmems) {
        m->reason = "not observed: the trace has no [memory] events (captured without profile_memory=True)";
        return m;
    }
    mkey *k = ks_xmalloc(ks_mul(t->nmems, sizeof *k));
    for (size_t i = 0; i < t->nmems; i++) {
        const ks_mem_info *r = &t->mems[i];
        k[i].type = (r->has & KS_MEM_TYPE) ? r->device_type : -1;
        k[i].id = (r->has & KS_MEM_ID) ? r->device_id : INT32_MIN;
        k[i].mem = (uint32_t)i;
        k[i].ts = t->tracks[r->track].ev[r->ev].ts;
    }
    sort_mkeys(k, t->nmems);
    size_t ndev = 0;
    for (size_t i = 0; i < t->nmems; i++)
        ndev += i == 0 || k[i].type != k[i - 1].type || k[i].id != k[i - 1].id;
    m->dev = ks_xcalloc(ndev, sizeof *m->dev);
    for (size_t i = 0, j; i < t->nmems; i = j) {
        for (j = i + 1; j < t->nmems && k[j].type == k[i].type && k[j].id == k[i].id; j++)
            ;
        device_build(t, tl, ntl, k + i, j - i, &m->dev[m->n++]);
    }
    free(k);
    return m;
}

int64_t ks_mem_level_before(const ks_mem_device *d, ks_ns ts, size_t *next)
{
    size_t lo = 0, hi = d->nev;
    KS_LOWER_BOUND(lo, hi, mid, d->ev[mid].ts < ts);
    if (next)
        *next = lo;
    return lo ? d->ev[lo - 1].level : d->start_level;
}

void ks_memory_free(ks_memory *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        ks_mem_device *d = &m->dev[i];
        free(d->ev);
        free(d->timeline);
        free(d->live);
        free(d->ops);
        free(d->steps);
        free(d->peak_path);
    }
    free(m->dev);
    free(m);
}
