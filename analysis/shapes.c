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
#include "common/util.h"
#include "kinesift/kernels.h"

typedef struct work_iv {
    uint64_t key;      /* (timeline << 32) | op slice */
    ks_ns a, b;
    int32_t device;
    uint32_t item;     /* its index in the GPU work (ks_gpuwork.v) */
} work_iv;

/* the direct kernel time of one grouped call (one key of the work), its device */
typedef struct key_time {
    uint64_t key;
    ks_ns ns;
    int32_t device;
    uint32_t group;    /* the group of the call, once known (UINT32_MAX: none) */
} key_time;

/* a call with direct GPU work (the others are only counted in their group) */
typedef struct call {
    ks_ns kernel_ns;
    int32_t device;
    uint32_t group;    /* its group, in the order groups were first met */
} call;

/* a group while the calls are gathered: its key, first call's Concrete Inputs, its calls, those
 * with GPU work */
typedef struct group {
    ks_str op, dims, types, concrete;
    uint32_t ncalls, ntimed, first; /* first: its first timed call among the timed calls by group */
} group;

static inline int work_before(const work_iv *p, const work_iv *q)
{
    return p->key != q->key ? p->key < q->key : p->a < q->a;
}

/* the work by key, then start (equal ones in their order) */
KS_MSORT_DEFINE(sort_work, work_iv, work_before)

static inline int double_before(const double *p, const double *q)
{
    return *p < *q;
}

KS_MSORT_DEFINE(sort_doubles, double, double_before)

/* A row's place in the order of the rows: by kernel time, the most first, then by op name and dims
 * text (strcmp), then by the ids of (op, dims, types), which no two groups share: a total order,
 * so the rows' order does not depend on the order the groups were met in. The op name is its rank
 * among the rows' op names (each name compared once), the dims text read once. */
typedef struct row_key {
    ks_ns kernel_ns;
    uint32_t op_rank;
    uint32_t o;        /* the row's index before the sort */
    uint64_t dims_pre; /* the dims text's first 8 bytes, big-endian (zeros past its end) */
    uint64_t op_dims;  /* op << 32 | dims */
    ks_str types;
    const char *dims_s;
} row_key;

static inline int key_before(const row_key *p, const row_key *q)
{
    if (p->kernel_ns != q->kernel_ns)
        return p->kernel_ns > q->kernel_ns;
    if (p->op_rank != q->op_rank)
        return p->op_rank < q->op_rank;
    if (p->dims_pre != q->dims_pre) /* strcmp's order on the first 8 bytes */
        return p->dims_pre < q->dims_pre;
    if ((uint32_t)p->op_dims != (uint32_t)q->op_dims) { /* two dims texts (equal ids: one text) */
        int c = strcmp(p->dims_s, q->dims_s);
        if (c)
            return c < 0;
    }
    return p->op_dims != q->op_dims ? p->op_dims < q->op_dims : p->types < q->types;
}

/* the first 8 bytes of s as a big-endian number, zeros past its end */
static uint64_t prefix8(const char *s)
{
    uint64_t v = 0;
    int i = 0;
    for (; i < 8 && s[i]; i++)
        v = v << 8 | (unsigned char)s[i];
    return i ? v << (8 * (8 - i)) : 0;
}

KS_MSORT_DEFINE(sort_keys, row_key, key_before)

/* an op name of the rows: its text, its index among the distinct ops, its id */
typedef struct op_name {
    const char *s;
    uint32_t u;
    ks_str op;
} op_name;

static inline int name_before(const op_name *p, const op_name *q)
{
    return strcmp(p->s, q->s) < 0;
}

KS_MSORT_DEFINE(sort_names, op_name, name_before)

static ks_rate rate_of(double *v, size_t n)
{
    ks_rate r = {NAN, NAN, NAN, NAN};
    if (!n)
        return r;
    sort_doubles(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    r.mean = sum / (double)n;
    r.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    r.min = v[0];
    r.max = v[n - 1];
    return r;
}

/* The GPU work whose launching op is a CPU op starting in the window (a grouped call when it has
 * shapes), sorted by that op's key, and per key the union of its work (the direct kernel time)
 * and the device of its first piece; the work of other ops is left out before the sort: no group
 * asks for it. */
static work_iv *direct_times(const ks_analysis *a, size_t *nw, key_time **kt, size_t *nkt)
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
            if (op < 0)
                continue;
            const ks_timeline *tl = &a->tl[r.tl];
            const ks_slice *s = &tl->s[op];
            /* a CPU op starting in the window: a call if it has shapes (the calls' walk says) */
            if (s->kind != KS_K_CPU_OP || t->tracks[tl->track].kind != KS_TRACK_CPU ||
                !ks_window_starts_in(a->win_start, a->win_end, tl->ev[s->ev].ts))
                continue;
            const ks_event *e = ks_gpuwork_event(t, it);
            w[n].key = ((uint64_t)r.tl << 32) | (uint32_t)op;
            w[n].a = e->ts;
            w[n].b = ks_sat_add(e->ts, ks_event_dur(e));
            w[n].device = str->device;
            w[n].item = (uint32_t)i;
            n++;
        }
    }
    sort_work(w, n);
    key_time *out = ks_xmalloc((n ? n : 1) * sizeof *out);
    size_t m = 0;
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
        out[m].key = w[i].key;
        out[m].ns = total;
        out[m].device = w[i].device;
        out[m].group = UINT32_MAX;
        m++;
        i = j;
    }
    *nw = n;
    *kt = out;
    *nkt = m;
    return w;
}

/* the first shape record of a track (t->shapes is sorted by track, then event) */
static size_t first_shape(const ks_trace *t, uint32_t track)
{
    size_t lo = 0, hi = t->nshapes;
    KS_LOWER_BOUND(lo, hi, mid, t->shapes[mid].track < track);
    return lo;
}

/* The first index of t->shapes[first, end) (one track's records, in event order) whose event is
 * ev or after it (end: none), searched outward from at, where the previous search ended
 * (KS_GALLOP_BOUND). The slices come in time order, their events mostly near the previous one's (a
 * child op is recorded just before its parent, which starts first): a few steps each, where a
 * search of the track's records from its start took ~250 instructions a slice on resnet50. */
static size_t shape_at(const ks_trace *t, size_t first, size_t end, size_t at, uint32_t ev)
{
    size_t lo;
    KS_GALLOP_BOUND(lo, first, end, at, mid, t->shapes[mid].ev < ev);
    return lo;
}

/* The slot of (op, dims, types) in an open-addressed table of the groups, ht[hcap] (group + 1; 0
 * empty; hcap a power of two): the group's, or the empty one where it goes. */
static uint32_t *group_slot(uint32_t *ht, size_t hcap, const group *gs, ks_str op, ks_str dims, ks_str types)
{
    uint64_t h = ks_hash_u64(((uint64_t)op << 32 | dims) ^ ks_hash_u64(types));
    for (size_t i = (size_t)h & (hcap - 1);; i = (i + 1) & (hcap - 1)) {
        const group *x = ht[i] ? &gs[ht[i] - 1] : NULL;
        if (!x || (x->op == op && x->dims == dims && x->types == types))
            return &ht[i];
    }
}

void ks_shapes_build(const ks_analysis *a, ks_shapes *out)
{
    memset(out, 0, sizeof *out);
    const ks_trace *t = a->trace;
    if (!t->nshapes) {
        out->reason = "not observed: the trace holds no Input Dims or Input type (recorded with record_shapes off)";
        return;
    }
    size_t nw, nkt;
    key_time *kt;
    work_iv *w = direct_times(a, &nw, &kt, &nkt);
    call *calls = NULL;
    size_t ncalls = 0, cap = 0, ki = 0;
    group *gs = NULL;
    size_t ngs = 0, gcap = 0;
    size_t hcap = 1024;
    uint32_t *ht = ks_xcalloc(hcap, sizeof *ht); /* group + 1, 0 empty */
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        if (!tl->n)
            continue;
        /* the track's shape records, t->shapes[first, end) in event order, searched from where
         * the previous slice's search ended (shape_at) */
        size_t first = first_shape(t, tl->track), end = first, n = t->nshapes, at = first;
        KS_LOWER_BOUND(end, n, mid, t->shapes[mid].track <= tl->track);
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            if (s->kind != KS_K_CPU_OP)
                continue;
            const ks_event *e = &tl->ev[s->ev];
            if (!ks_window_starts_in(a->win_start, a->win_end, e->ts))
                continue;
            at = shape_at(t, first, end, at, s->ev);
            const ks_shape_info *si = at < end && t->shapes[at].ev == s->ev ? &t->shapes[at] : NULL;
            if (!si || (!si->dims && !si->types))
                continue;
            /* the keys of the work come in this loop's order: walked beside it */
            uint64_t key = ((uint64_t)k << 32) | (uint32_t)i;
            while (ki < nkt && kt[ki].key < key)
                ki++;
            int timed = ki < nkt && kt[ki].key == key;
            /* its group */
            if (2 * (ngs + 1) > hcap) {
                size_t ncap = hcap * 2;
                uint32_t *nt = ks_xcalloc(ncap, sizeof *nt);
                for (size_t g = 0; g < ngs; g++)
                    *group_slot(nt, ncap, gs, gs[g].op, gs[g].dims, gs[g].types) = (uint32_t)g + 1;
                free(ht);
                ht = nt;
                hcap = ncap;
            }
            uint32_t *slot = group_slot(ht, hcap, gs, e->name, si->dims, si->types);
            if (!*slot) {
                KS_GROW(gs, gcap, ngs + 1);
                gs[ngs] = (group){e->name, si->dims, si->types, si->concrete, 0, 0, 0};
                *slot = (uint32_t)++ngs;
            }
            uint32_t g = *slot - 1;
            gs[g].ncalls++;
            if (timed) {
                kt[ki].group = g;
                if (kt[ki].ns) {
                    KS_GROW(calls, cap, ncalls + 1);
                    calls[ncalls++] = (call){kt[ki].ns, kt[ki].device, g};
                    gs[g].ntimed++;
                }
            }
        }
    }
    free(ht);
    /* the calls by group, each group's in their order */
    size_t *byg = ks_xmalloc((ncalls ? ncalls : 1) * sizeof *byg);
    for (size_t g = 0, at = 0; g < ngs; g++) {
        gs[g].first = (uint32_t)at;
        at += gs[g].ntimed;
        gs[g].ntimed = 0;
    }
    for (size_t i = 0; i < ncalls; i++) {
        group *x = &gs[calls[i].group];
        byg[x->first + x->ntimed++] = i;
    }
    /* the groups as rows, in the order they were met (their order by key below), and the rows'
     * distinct ops: an open-addressed table of op ids (the op's index in names + 1; 0 empty) */
    ks_shape_row *rows = ks_xmalloc((ngs ? ngs : 1) * sizeof *rows);
    row_key *keys = ks_xmalloc((ngs ? ngs : 1) * sizeof *keys);
    op_name *names = ks_xmalloc((ngs ? ngs : 1) * sizeof *names);
    size_t nnames = 0, ocap = 16;
    while (ocap < 2 * ngs)
        ocap *= 2;
    uint32_t *oh = ks_xcalloc(ocap, sizeof *oh);
    double *fl = ks_xmalloc((ncalls ? ncalls : 1) * sizeof *fl), *by = ks_xmalloc((ncalls ? ncalls : 1) * sizeof *by);
    for (size_t o = 0; o < ngs; o++) {
        const group *x = &gs[o];
        ks_shape_row *r = &rows[o];
        memset(r, 0, sizeof *r);
        size_t h = (size_t)ks_hash_u64(x->op) & (ocap - 1);
        while (oh[h] && names[oh[h] - 1].op != x->op)
            h = (h + 1) & (ocap - 1);
        if (!oh[h]) { /* a new op */
            names[nnames] = (op_name){ks_trace_str(t, x->op), (uint32_t)nnames, x->op};
            oh[h] = (uint32_t)++nnames;
        }
        keys[o].op_rank = oh[h] - 1; /* for now: the op's index; its rank below */
        keys[o].o = (uint32_t)o;
        keys[o].op_dims = (uint64_t)x->op << 32 | x->dims;
        keys[o].types = x->types;
        keys[o].dims_s = ks_trace_str(t, x->dims);
        keys[o].dims_pre = prefix8(keys[o].dims_s);
        r->op = x->op;
        r->dims = x->dims;
        r->types = x->types;
        r->concrete = x->concrete;
        r->device = -1;
        r->cost = ks_op_cost_classed(ks_trace_str(t, r->op), ks_analysis_op_class(a, r->op, KS_K_CPU_OP),
                                     r->dims ? ks_trace_str(t, r->dims) : NULL,
                                     r->types ? ks_trace_str(t, r->types) : NULL,
                                     r->concrete ? ks_trace_str(t, r->concrete) : NULL);
        size_t nt = 0;
        r->count = x->ncalls;
        for (size_t y = x->first; y < x->first + x->ntimed; y++) {
            const call *c = &calls[byg[y]];
            if (r->device < 0)
                r->device = c->device;
            r->calls_timed++;
            r->kernel_ns = ks_sat_add(r->kernel_ns, c->kernel_ns);
            /* FLOPs per ns is GFLOP/s: / 1000 for TFLOP/s (bytes: TB/s) */
            fl[nt] = r->cost.flops / (double)c->kernel_ns / 1000.0;
            by[nt] = r->cost.bytes / (double)c->kernel_ns / 1000.0;
            nt++;
        }
        ks_rate none = {NAN, NAN, NAN, NAN};
        r->tflops = r->cost.known ? rate_of(fl, nt) : none;
        r->tbps = r->cost.known && isfinite(r->cost.bytes) ? rate_of(by, nt) : none;
        keys[o].kernel_ns = r->kernel_ns;
    }
    free(fl);
    free(by);
    free(byg);
    free(calls);
    /* the ops' ranks by name (equal names, were there two ids of one text, one rank), then the rows */
    sort_names(names, nnames);
    uint32_t *rank = ks_xmalloc((nnames ? nnames : 1) * sizeof *rank);
    for (size_t i = 0, r = 0; i < nnames; i++) {
        if (i && strcmp(names[i - 1].s, names[i].s) != 0)
            r = i;
        rank[names[i].u] = (uint32_t)r;
    }
    for (size_t o = 0; o < ngs; o++)
        keys[o].op_rank = rank[keys[o].op_rank];
    free(rank);
    free(names);
    free(oh);
    sort_keys(keys, ngs);
    /* the rows put in their order where they are (a sorted copy would be as much fresh memory
     * again, a page fault per 4 KiB: ~20 rows), and which row each piece of GPU work's launching
     * call is in */
    uint32_t *row_of_group = ks_xmalloc((ngs ? ngs : 1) * sizeof *row_of_group);
    uint32_t *to = ks_xmalloc((ngs ? ngs : 1) * sizeof *to);
    for (size_t i = 0; i < ngs; i++)
        row_of_group[keys[i].o] = to[keys[i].o] = (uint32_t)i;
    for (size_t o = 0; o < ngs; o++)
        while (to[o] != o) { /* the row at o belongs at to[o]: swap it there */
            uint32_t d = to[o];
            ks_shape_row r = rows[d];
            rows[d] = rows[o];
            rows[o] = r;
            to[o] = to[d];
            to[d] = d;
        }
    free(to);
    out->v = rows;
    out->n = ngs;
    free(keys);
    free(gs);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    out->nwork = gw->n;
    out->work_row = ks_xmalloc((gw->n ? gw->n : 1) * sizeof *out->work_row);
    for (size_t i = 0; i < gw->n; i++)
        out->work_row[i] = SIZE_MAX;
    for (size_t i = 0, j = 0; i < nw; i++) {
        while (kt[j].key != w[i].key)
            j++;
        if (kt[j].group != UINT32_MAX)
            out->work_row[w[i].item] = row_of_group[kt[j].group];
    }
    free(row_of_group);
    free(kt);
    free(w);
}

void ks_shapes_free(ks_shapes *s)
{
    free(s->v);
    free(s->work_row);
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

size_t *ks_shapes_row_of_work(const ks_analysis *a, const struct ks_shapes *s)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    size_t *out = ks_xmalloc((gw->n ? gw->n : 1) * sizeof *out);
    for (size_t i = 0; i < gw->n; i++)
        out[i] = s->work_row && i < s->nwork ? s->work_row[i] : SIZE_MAX;
    return out;
}
