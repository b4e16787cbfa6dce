/* analysis/aggregate.c: the tables of `analyze`: one row per operator (name + category) over every
 * CPU-side slice, per labelled range (user_annotation on CPU threads, gpu_user_annotation on GPU
 * streams), and per GPU work name. Instances are those starting in the window. Self times come
 * from the nesting, inclusive times are per-track unions, percentiles are exact, GPU time per row
 * is both the union of the GPU intervals and their plain sum (each GPU event counted once per
 * row, so recursion does not count twice). */
#include <stdlib.h>
#include <string.h>

#include "analysis/intervals.h"
#include "analysis/priv.h"
#include "analysis/timeline.h"
#include "common/i64map.h"
#include "common/util.h"

typedef struct row_acc {
    ks_op_row row;
    ks_ns *durs;
    size_t ndurs, cap;
    uint32_t incl_tl;          /* incl: the union of the instances on track incl_tl so far */
    ks_sweep incl;
    ks_sweep gdirect, gsub;    /* GPU work credited, in start order */
    uint64_t last_direct, last_sub; /* serial of the last GPU event credited */
} row_acc;

typedef struct table {
    row_acc *r;
    size_t n, cap;
    ks_i64map index;           /* (name << 16 | cat) -> row */
} table;

static row_acc *row_for(table *tb, const ks_event *e)
{
    int64_t key = ((int64_t)e->name << 16) | e->cat;
    uint64_t *v = ks_i64map_get(&tb->index, key);
    if (v)
        return &tb->r[*v];
    KS_GROW(tb->r, tb->cap, tb->n + 1);
    row_acc *r = &tb->r[tb->n];
    memset(r, 0, sizeof *r);
    r->row.name = e->name;
    r->row.cat = e->cat;
    r->row.kind = e->kind;
    ks_i64map_put(&tb->index, key, tb->n);
    tb->n++;
    return r;
}

/* slices come track by track, in start order within a track: one sweep per track */
static void add_instance(row_acc *r, uint32_t tl, const ks_slice *s, ks_ns self)
{
    r->row.count++;
    r->row.self_ns += self;
    if (s->flags & (KS_SF_UNFINISHED | KS_SF_UNCLOSED))
        r->row.unfinished++;
    KS_PUSH(r->durs, r->ndurs, r->cap, s->end - s->ts);
    if (r->incl_tl != tl) {
        r->row.incl_ns += ks_sweep_finish(&r->incl);
        r->incl_tl = tl;
    }
    ks_sweep_add(&r->incl, s->ts, s->end);
}

/* Which tables a slice belongs to. */
static int is_op_kind(int kind)
{
    return ks_kind_is_cpu_side((ks_kind)kind) || kind == KS_K_OTHER;
}

typedef struct agg {
    ks_analysis *a;
    table ops, labels;
} agg;

static void cpu_pass(agg *g)
{
    ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    ks_ns *self = NULL; /* self time per slice of the current track */
    size_t self_cap = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (!tl->n)
            continue;
        KS_GROW(self, self_cap, tl->n);
        for (size_t i = 0; i < tl->n; i++)
            self[i] = tl->s[i].end - tl->s[i].ts;
        for (size_t i = 0; i < tl->n; i++)
            if (tl->s[i].parent >= 0)
                self[tl->s[i].parent] -= tl->s[i].end - tl->s[i].ts;
        int gpu_track = tr->kind == KS_TRACK_GPU;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            if (s->ts < a->win_start || s->ts >= a->win_end)
                continue;
            const ks_event *e = &tr->ev[s->ev];
            if (!gpu_track && e->kind != KS_K_TRACE_SPAN && is_op_kind(e->kind))
                add_instance(row_for(&g->ops, e), (uint32_t)k, s, self[i]);
            if ((!gpu_track && e->kind == KS_K_USER_ANNOTATION) || (gpu_track && e->kind == KS_K_GPU_ANNOTATION))
                add_instance(row_for(&g->labels, e), (uint32_t)k, s, self[i]);
        }
    }
    free(self);
}

/* GPU work arrives in start order over all streams (gpu_pass), so unions are swept */
static void credit(row_acc *r, ks_ns a, ks_ns b, uint64_t serial, int direct)
{
    if (direct) {
        if (r->last_direct == serial)
            return;
        r->last_direct = serial;
        ks_sweep_add(&r->gdirect, a, b);
        r->row.gpu_direct_sum_ns += b - a;
    } else {
        if (r->last_sub == serial)
            return;
        r->last_sub = serial;
        ks_sweep_add(&r->gsub, a, b);
        r->row.gpu_subtree_sum_ns += b - a;
    }
}

/* Credit GPU work [a, b) to slice i of timeline tl and its rows (op and label). */
static void credit_slice(agg *g, const ks_timeline *tl, int32_t i, ks_ns a, ks_ns b, uint64_t serial, int direct)
{
    const ks_trace *t = g->a->trace;
    const ks_track *tr = &t->tracks[tl->track];
    const ks_event *e = &tr->ev[tl->s[i].ev];
    int gpu_track = tr->kind == KS_TRACK_GPU;
    if (!gpu_track && e->kind != KS_K_TRACE_SPAN && is_op_kind(e->kind))
        credit(row_for(&g->ops, e), a, b, serial, direct);
    if ((!gpu_track && e->kind == KS_K_USER_ANNOTATION) || (gpu_track && e->kind == KS_K_GPU_ANNOTATION))
        credit(row_for(&g->labels, e), a, b, serial, direct);
}

static void credit_chain(agg *g, const ks_timeline *tl, int32_t i, ks_ns a, ks_ns b, uint64_t serial)
{
    for (; i >= 0; i = tl->s[i].parent)
        credit_slice(g, tl, i, a, b, serial, 0);
}

typedef struct work_ref {
    ks_ns ts;
    uint32_t track, ev;
} work_ref;

static int cmp_work_ref(const void *x, const void *y)
{
    const work_ref *p = x, *q = y;
    if (p->ts != q->ts)
        return p->ts < q->ts ? -1 : 1;
    if (p->track != q->track)
        return p->track < q->track ? -1 : 1;
    return (p->ev > q->ev) - (p->ev < q->ev);
}

/* GPU work starting in the window, over all streams, in start order */
static work_ref *gpu_work_in_order(const ks_analysis *a, size_t *n)
{
    const ks_trace *t = a->trace;
    work_ref *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        if (tr->kind != KS_TRACK_GPU)
            continue;
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (!ks_kind_is_gpu_work(e->kind) || e->ph != 'X' || e->ts < a->win_start || e->ts >= a->win_end)
                continue;
            work_ref w = {e->ts, (uint32_t)k, (uint32_t)i};
            KS_PUSH(v, *n, cap, w);
        }
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_work_ref);
    return v;
}

static void gpu_pass(agg *g)
{
    ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    int32_t **ev_slice = ks_xcalloc(t->ntracks ? t->ntracks : 1, sizeof *ev_slice);
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].kind == KS_TRACK_GPU)
            ev_slice[k] = ks_timeline_event_slices(t, &a->tl[k]);
    size_t n;
    work_ref *work = gpu_work_in_order(a, &n);
    for (size_t w = 0; w < n; w++) {
        uint32_t k = work[w].track;
        size_t i = work[w].ev;
        const ks_track *tr = &t->tracks[k];
        const ks_event *e = &tr->ev[i];
        ks_ns ga = e->ts, gb = e->ts + e->dur;
        uint64_t serial = w + 1;
        /* CPU side: the launch call, the op that issued it, and their ancestors */
        ks_slice_ref r = ks_analysis_launcher(a, k, i);
        if (r.s >= 0) {
            const ks_timeline *tl = &a->tl[r.tl];
            credit_slice(g, tl, r.s, ga, gb, serial, 1);
            credit_chain(g, tl, r.s, ga, gb, serial);
            int32_t op = ks_analysis_launching_op(a, r);
            if (op >= 0) {
                credit_slice(g, tl, op, ga, gb, serial, 1);
                credit_chain(g, tl, op, ga, gb, serial);
            }
        }
        /* GPU side: annotation slices enclosing the work on the same stream */
        const ks_timeline *gtl = &a->tl[k];
        int32_t s = ev_slice[k][i];
        int direct_done = 0;
        for (int32_t p = s >= 0 ? gtl->s[s].parent : -1; p >= 0; p = gtl->s[p].parent) {
            if (tr->ev[gtl->s[p].ev].kind != KS_K_GPU_ANNOTATION)
                continue;
            if (!direct_done) {
                credit_slice(g, gtl, p, ga, gb, serial, 1);
                direct_done = 1;
            }
            credit_slice(g, gtl, p, ga, gb, serial, 0);
        }
    }
    free(work);
    for (size_t k = 0; k < t->ntracks; k++)
        free(ev_slice[k]);
    free(ev_slice);
}

static int cmp_row(const void *x, const void *y)
{
    const ks_op_row *a = x, *b = y;
    if (a->self_ns != b->self_ns)
        return a->self_ns < b->self_ns ? 1 : -1;
    if (a->incl_ns != b->incl_ns)
        return a->incl_ns < b->incl_ns ? 1 : -1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->cat > b->cat) - (a->cat < b->cat);
}

static void finish_table(table *tb, ks_op_row **out, size_t *nout)
{
    ks_op_row *rows = ks_xcalloc(tb->n ? tb->n : 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < tb->n; i++) {
        row_acc *r = &tb->r[i];
        r->row.incl_ns += ks_sweep_finish(&r->incl);
        if (r->ndurs) {
            ks_sort_ns(r->durs, r->ndurs);
            r->row.min_ns = r->durs[0];
            r->row.max_ns = r->durs[r->ndurs - 1];
            r->row.median_ns = ks_quantile_ns(r->durs, r->ndurs, 50);
            r->row.p90_ns = ks_quantile_ns(r->durs, r->ndurs, 90);
            r->row.p99_ns = ks_quantile_ns(r->durs, r->ndurs, 99);
        }
        r->row.gpu_direct_ns = ks_sweep_finish(&r->gdirect);
        r->row.gpu_subtree_ns = ks_sweep_finish(&r->gsub);
        if (r->row.count) /* rows seen only through GPU credit have no instance in the window */
            rows[n++] = r->row;
        free(r->durs);
    }
    qsort(rows, n, sizeof *rows, cmp_row);
    free(tb->r);
    ks_i64map_free(&tb->index);
    *out = rows;
    *nout = n;
}

/* ---- kernels ------------------------------------------------------------------------------- */

typedef struct krow_acc {
    ks_kernel_row row;
    ks_ns *durs;
    size_t ndurs, cap;
    int has_bytes;
} krow_acc;

static int cmp_krow(const void *x, const void *y)
{
    const ks_kernel_row *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    return (a->name > b->name) - (a->name < b->name);
}

static void kernel_pass(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    krow_acc *v = NULL;
    size_t n = 0, cap = 0;
    ks_i64map index;
    ks_i64map_init(&index);
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        if (tr->kind != KS_TRACK_GPU)
            continue;
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (!ks_kind_is_gpu_work(e->kind) || e->ph != 'X' || e->ts < a->win_start || e->ts >= a->win_end)
                continue;
            int64_t key = ((int64_t)e->name << 8) | e->kind;
            uint64_t *ix = ks_i64map_get(&index, key);
            krow_acc *r;
            if (ix) {
                r = &v[*ix];
            } else {
                KS_GROW(v, cap, n + 1);
                r = &v[n];
                memset(r, 0, sizeof *r);
                r->row.name = e->name;
                r->row.kind = e->kind;
                r->row.bytes = -1;
                ks_i64map_put(&index, key, n++);
            }
            r->row.count++;
            r->row.total_ns += e->dur;
            KS_PUSH(r->durs, r->ndurs, r->cap, e->dur);
            if (ks_analysis_launcher(a, (uint32_t)k, i).s < 0)
                r->row.unlinked++;
            if (e->flags & KS_EF_BYTES) {
                r->row.bytes = (r->has_bytes ? r->row.bytes : 0) + e->aux;
                r->has_bytes = 1;
            }
        }
    }
    a->kernels = ks_xcalloc(n ? n : 1, sizeof *a->kernels);
    for (size_t i = 0; i < n; i++) {
        krow_acc *r = &v[i];
        ks_sort_ns(r->durs, r->ndurs);
        r->row.min_ns = r->durs[0];
        r->row.max_ns = r->durs[r->ndurs - 1];
        r->row.median_ns = ks_quantile_ns(r->durs, r->ndurs, 50);
        r->row.p90_ns = ks_quantile_ns(r->durs, r->ndurs, 90);
        a->kernels[i] = r->row;
        free(r->durs);
    }
    a->nkernels = n;
    qsort(a->kernels, n, sizeof *a->kernels, cmp_krow);
    free(v);
    ks_i64map_free(&index);
}

void ks_aggregate_build(ks_analysis *a)
{
    agg g;
    memset(&g, 0, sizeof g);
    g.a = a;
    ks_i64map_init(&g.ops.index);
    ks_i64map_init(&g.labels.index);
    cpu_pass(&g);
    gpu_pass(&g);
    finish_table(&g.ops, &a->ops, &a->nops);
    finish_table(&g.labels, &a->labels, &a->nlabels);
    kernel_pass(a);
}
