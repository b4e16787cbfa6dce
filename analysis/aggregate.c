/* analysis/aggregate.c: the tables of `analyze`: one row per operator (name + category) over every
 * CPU-side slice, per labelled range (user_annotation on CPU threads, gpu_user_annotation on GPU
 * streams), and per GPU work name. Instances are those starting in the window. Self times come
 * from the nesting, inclusive times are per-track unions, percentiles are exact, GPU time per row
 * is both the union of the GPU intervals and their plain sum (each GPU event counted once per
 * row, so recursion does not count twice).
 *
 * Memory: a trace may hold a million names, so a row is accumulated compactly (row_acc, 80 bytes:
 * the counts, the self and inclusive sums, where its durations are) and its GPU credit, which
 * most rows never get, is a separate record made on the first credit (gpu_acc). The public row
 * (ks_op_row) is made at the end, while the accumulators are released from the end of the array. */
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/intervals.h"
#include "analysis/analysis_int.h"
#include "analysis/timeline.h"
#include "common/util.h"

/* The GPU work credited to a row, in start order (only rows credited have one). */
typedef struct gpu_acc {
    ks_sweep direct, sub;
    uint64_t last_direct, last_sub; /* serial of the last GPU event credited */
    ks_ns direct_sum, sub_sum;
} gpu_acc;

enum { ROW_INCL_OPEN = 1, ROW_ONE = 2 };

typedef struct row_acc {
    ks_str name;
    uint16_t cat;
    uint8_t kind;
    uint8_t bits;              /* ROW_INCL_OPEN: [incl_a, incl_b) is open (incl_add); ROW_ONE */
    uint32_t incl_tl;          /* incl: the union of the instances on track incl_tl so far */
    uint32_t gpu;              /* 1 + its gpu_acc in table.gpu, 0 none */
    uint32_t next;             /* 1 + the next row of the same name (another category), 0 none */
    uint64_t count;            /* instances added (count_instances: instances to come) */
    uint64_t unfinished;
    ks_ns self_ns, incl_ns;    /* incl_ns: without the open interval */
    union {
        size_t at;             /* its durations: table.durs[at .. at + count) (32 bits each) */
        ks_ns one;             /* the duration of a row of one instance (no room in table.durs) */
    } dur;
    ks_ns incl_a, incl_b;
} row_acc;

_Static_assert(sizeof(row_acc) == 80, "row_acc: 80 bytes per row (a trace may hold a million names)");

/* The inclusive time of a row is the union of its instances per track, summed over tracks: a
 * sweep (intervals.h, ks_sweep) whose total is incl_ns itself, 24 bytes less per row. The pieces
 * are not negative, so adding them one by one saturates exactly as adding their sum would. */
static void incl_close(row_acc *r)
{
    if (r->bits & ROW_INCL_OPEN)
        r->incl_ns = ks_sat_add(r->incl_ns, ks_sat_sub(r->incl_b, r->incl_a));
    r->bits &= (uint8_t)~ROW_INCL_OPEN;
}

/* add [a, b); a is not before the start of the previous interval of the same track */
static void incl_add(row_acc *r, ks_ns a, ks_ns b)
{
    if ((r->bits & ROW_INCL_OPEN) && a <= r->incl_b) {
        if (b > r->incl_b)
            r->incl_b = b;
        return;
    }
    incl_close(r);
    r->bits |= ROW_INCL_OPEN;
    r->incl_a = a;
    r->incl_b = b;
}

/* A duration of 2^32 - 1 ns or more (4.29 s: a step, a long label), kept beside the table's 32-bit
 * durations, which hold DUR_WIDE in its place. */
typedef struct wide_dur {
    uint32_t row;              /* its row's index in table.r */
    ks_ns d;
} wide_dur;

#define DUR_WIDE UINT32_MAX

typedef struct table {
    row_acc *r;
    size_t n, cap;
    uint32_t *by_name;         /* per name id: 1 + its first row (the others through next), 0 none */
    gpu_acc *gpu;
    size_t ngpu, gpu_cap;
    uint32_t *durs;            /* instance durations in ns, row after row (ks_big_alloc); nearly all
                                * fit 32 bits, the others are DUR_WIDE here and in wide */
    size_t ndurs;
    wide_dur *wide;            /* the durations of DUR_WIDE, in the order they came */
    size_t nwide, wide_cap;
} table;

/* The row of (name, cat): the rows of one name are a list (a name nearly always has one
 * category); the row found moves to its front. */
static row_acc *row_for(table *tb, const ks_event *e)
{
    uint32_t *link = &tb->by_name[e->name];
    for (uint32_t i = *link; i; link = &tb->r[i - 1].next, i = *link) {
        row_acc *r = &tb->r[i - 1];
        if (r->cat != e->cat)
            continue;
        if (link != &tb->by_name[e->name]) {
            *link = r->next;
            r->next = tb->by_name[e->name];
            tb->by_name[e->name] = i;
        }
        return r;
    }
    KS_GROW(tb->r, tb->cap, tb->n + 1);
    row_acc *r = &tb->r[tb->n];
    memset(r, 0, sizeof *r);
    r->name = e->name;
    r->cat = e->cat;
    r->kind = e->kind;
    r->next = tb->by_name[e->name];
    tb->by_name[e->name] = (uint32_t)++tb->n;
    return r;
}

/* slices come track by track, in start order within a track: one sweep per track (the self time
 * comes apart: add_self) */
static void add_instance(table *tb, row_acc *r, uint32_t tl, const ks_timeline *line, const ks_slice *s)
{
    if (s->flags & (KS_SF_UNFINISHED | KS_SF_UNCLOSED))
        r->unfinished++;
    ks_ns ts = ks_slice_ts(line, s), end = ks_slice_end(line, s);
    ks_ns d = ks_sat_sub(end, ts);
    if (r->bits & ROW_ONE) {
        r->dur.one = d; /* its only instance: count_instances gave it no room */
    } else if (d < DUR_WIDE) {
        tb->durs[r->dur.at + r->count] = (uint32_t)d; /* room counted by count_instances */
    } else {
        tb->durs[r->dur.at + r->count] = DUR_WIDE;
        wide_dur w = {(uint32_t)(r - tb->r), d};
        KS_PUSH(tb->wide, tb->nwide, tb->wide_cap, w);
    }
    r->count++;
    if (r->incl_tl != tl) {
        incl_close(r);
        r->incl_tl = tl;
    }
    incl_add(r, ts, end);
}

/* Which tables a slice belongs to. */
static int is_op_kind(int kind)
{
    return ks_kind_is_cpu_side((ks_kind)kind) || kind == KS_K_OTHER;
}

int ks_is_op_slice_kind(int kind)
{
    return kind != KS_K_TRACE_SPAN && is_op_kind(kind);
}

/* An instance of the ops table: a CPU-side slice (not a trace span) on a thread. */
static int in_ops(int gpu_track, const ks_event *e)
{
    return !gpu_track && ks_is_op_slice_kind(e->kind);
}

/* An instance of the labels table: a user_annotation on a thread, a gpu_user_annotation on a
 * stream. */
static int in_labels(int gpu_track, const ks_event *e)
{
    return gpu_track ? e->kind == KS_K_GPU_ANNOTATION : e->kind == KS_K_USER_ANNOTATION;
}

/* Counted in the window: the slice starts in it (its start is its event's; the rule of
 * analysis_int.h). */
static int in_window(const ks_analysis *a, const ks_event *e)
{
    return ks_window_starts_in(a->win_start, a->win_end, e->ts);
}

struct ks_agg {
    ks_analysis *a;
    table ops, labels;
};
typedef struct ks_agg agg;

/* The rows of every instance in the window, and the room for their durations: one array per
 * table, cut in one piece per row (rows never grow, the array is written once). */
static void count_instances(agg *g)
{
    ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        int gpu_track = tr->kind == KS_TRACK_GPU;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            if (!in_window(a, e))
                continue;
            if (in_ops(gpu_track, e))
                row_for(&g->ops, e)->count++;
            if (in_labels(gpu_track, e))
                row_for(&g->labels, e)->count++;
        }
    }
    table *tables[2] = {&g->ops, &g->labels};
    for (int j = 0; j < 2; j++) {
        table *tb = tables[j];
        size_t total = 0;
        for (size_t i = 0; i < tb->n; i++) {
            row_acc *r = &tb->r[i];
            if (r->count == 1) { /* most rows of a trace of a million names: 8 bytes less each */
                r->bits |= ROW_ONE;
            } else {
                r->dur.at = total;
                total += r->count;
            }
            r->count = 0;
        }
        tb->ndurs = total;
        tb->durs = ks_big_alloc(ks_mul(total, sizeof *tb->durs));
    }
}

/* The self time of one slice of the track being added, to its rows (ks_timeline_self_each: each ns
 * of the track's union once, selftime.c). The order does not matter: the sums are of times that
 * are not negative and saturate (docs/robustness.md). */
typedef struct self_to_rows {
    agg *g;
    const ks_timeline *tl;
    int gpu_track;
} self_to_rows;

static void add_self(void *ctx, size_t i, ks_ns self)
{
    self_to_rows *x = ctx;
    const ks_analysis *a = x->g->a;
    const ks_event *e = &x->tl->ev[x->tl->s[i].ev];
    if (!in_window(a, e))
        return;
    if (in_ops(x->gpu_track, e)) {
        row_acc *r = row_for(&x->g->ops, e);
        r->self_ns = ks_sat_add(r->self_ns, self);
    }
    if (in_labels(x->gpu_track, e)) {
        row_acc *r = row_for(&x->g->labels, e);
        r->self_ns = ks_sat_add(r->self_ns, self);
    }
}

static void cpu_pass(agg *g)
{
    ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    count_instances(g);
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (!tl->n)
            continue;
        int gpu_track = tr->kind == KS_TRACK_GPU;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            if (!in_window(a, e))
                continue;
            if (in_ops(gpu_track, e))
                add_instance(&g->ops, row_for(&g->ops, e), (uint32_t)k, tl, s);
            if (in_labels(gpu_track, e))
                add_instance(&g->labels, row_for(&g->labels, e), (uint32_t)k, tl, s);
        }
        self_to_rows x = {g, tl, gpu_track};
        ks_timeline_self_each(tl, add_self, &x);
    }
}

/* GPU work arrives in start order over all streams (gpu_pass), so unions are swept */
static gpu_acc *gpu_of(table *tb, row_acc *r)
{
    if (!r->gpu) {
        KS_GROW(tb->gpu, tb->gpu_cap, tb->ngpu + 1);
        memset(&tb->gpu[tb->ngpu], 0, sizeof *tb->gpu);
        r->gpu = (uint32_t)++tb->ngpu;
    }
    return &tb->gpu[r->gpu - 1];
}

static void credit(table *tb, row_acc *r, ks_ns a, ks_ns b, uint64_t serial, int direct)
{
    gpu_acc *c = gpu_of(tb, r);
    if (direct) {
        if (c->last_direct == serial)
            return;
        c->last_direct = serial;
        ks_sweep_add(&c->direct, a, b);
        c->direct_sum = ks_sat_add(c->direct_sum, ks_sat_sub(b, a));
    } else {
        if (c->last_sub == serial)
            return;
        c->last_sub = serial;
        ks_sweep_add(&c->sub, a, b);
        c->sub_sum = ks_sat_add(c->sub_sum, ks_sat_sub(b, a));
    }
}

/* Credit GPU work [a, b) to slice i of timeline tl and its rows (op and label). */
static void credit_slice(agg *g, const ks_timeline *tl, int32_t i, ks_ns a, ks_ns b, uint64_t serial, int direct)
{
    const ks_trace *t = g->a->trace;
    const ks_track *tr = &t->tracks[tl->track];
    const ks_event *e = &tr->ev[tl->s[i].ev];
    int gpu_track = tr->kind == KS_TRACK_GPU;
    if (in_ops(gpu_track, e))
        credit(&g->ops, row_for(&g->ops, e), a, b, serial, direct);
    if (in_labels(gpu_track, e))
        credit(&g->labels, row_for(&g->labels, e), a, b, serial, direct);
}

/* Credit [a, b) as subtree time to slice i and its ancestors; 1 when slice stop was among them. */
static int credit_chain(agg *g, const ks_timeline *tl, int32_t i, ks_ns a, ks_ns b, uint64_t serial, int32_t stop)
{
    int met = 0;
    for (; i >= 0; i = tl->s[i].parent) {
        credit_slice(g, tl, i, a, b, serial, 0);
        met |= i == stop;
    }
    return met;
}

static void gpu_pass(agg *g)
{
    ks_analysis *a = g->a;
    const ks_trace *t = a->trace;
    int32_t **ev_slice = ks_xcalloc(t->ntracks ? t->ntracks : 1, sizeof *ev_slice);
    for (size_t k = 0; ks_track_next(t, KS_TRACK_GPU, &k); k++)
        ev_slice[k] = ks_timeline_event_slices(t, &a->tl[k]);
    /* GPU work starting in the window, over all streams, in start order (ties by track, event) */
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    size_t n, most;
    uint32_t *order = ks_gpuwork_by_start(a, &n, &most);
    for (size_t w = 0; w < n; w++) {
        uint32_t k = gw->v[order[w]].track;
        size_t i = gw->v[order[w]].ev;
        const ks_track *tr = &t->tracks[k];
        const ks_event *e = &tr->ev[i];
        ks_ns ga = e->ts, gb = e->ts + ks_event_dur(e);
        uint64_t serial = w + 1;
        /* CPU side: the launch call, the op that issued it, and their ancestors */
        ks_slice_ref r = ks_gpuwork_launcher_at(a, order[w]);
        if (r.s >= 0) {
            const ks_timeline *tl = &a->tl[r.tl];
            int32_t op = ks_analysis_launching_op(a, r);
            credit_slice(g, tl, r.s, ga, gb, serial, 1);
            /* the op is most often an ancestor of the call: its chain is then credited already
             * (a row takes one credit per work item: credit() keeps the item's serial) */
            int op_done = credit_chain(g, tl, r.s, ga, gb, serial, op);
            if (op >= 0) {
                credit_slice(g, tl, op, ga, gb, serial, 1);
                if (!op_done)
                    credit_chain(g, tl, op, ga, gb, serial, -1);
            }
        }
        /* GPU side: annotation slices enclosing the work on the same stream */
        const ks_timeline *gtl = &a->tl[k];
        int32_t s = ev_slice[k][i];
        int direct_done = 0;
        for (int32_t p = s >= 0 ? gtl->s[s].parent : -1; p >= 0; p = gtl->s[p].parent) {
            if (gtl->s[p].kind != KS_K_GPU_ANNOTATION)
                continue;
            if (!direct_done) {
                credit_slice(g, gtl, p, ga, gb, serial, 1);
                direct_done = 1;
            }
            credit_slice(g, gtl, p, ga, gb, serial, 0);
        }
    }
    ks_big_free(order, most * sizeof *order);
    for (size_t k = 0; k < t->ntracks; k++)
        if (ev_slice[k])
            ks_big_free(ev_slice[k], t->tracks[k].n * sizeof **ev_slice);
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

static int cmp_wide(const void *x, const void *y)
{
    const wide_dur *a = x, *b = y;
    return (a->row > b->row) - (a->row < b->row);
}

/* Row r's durations as ns into d (room for r->count): the 32-bit ones, then its wide ones (found
 * in tb->wide sorted by row); the order does not matter, they are sorted next. */
static void row_durations(const table *tb, const row_acc *r, ks_ns *d)
{
    const uint32_t *v = tb->durs + r->dur.at;
    size_t m = 0;
    for (size_t i = 0; i < r->count; i++)
        if (v[i] != DUR_WIDE)
            d[m++] = v[i];
    if (m == r->count)
        return;
    uint32_t row = (uint32_t)(r - tb->r);
    size_t lo = 0, hi = tb->nwide;
    KS_LOWER_BOUND(lo, hi, mid, tb->wide[mid].row < row);
    for (size_t k = lo; k < tb->nwide && tb->wide[k].row == row; k++)
        d[m++] = tb->wide[k].d;
}

/* The public row of an accumulated one (its durations put in d, room for its count, and sorted
 * there); its GPU credit, if any, goes to *g, the quantiles of a row of several instances to *q. */
static void make_row(table *tb, row_acc *r, ks_op_row *o, ks_op_gpu *g, ks_op_durs *q, ks_ns *d)
{
    memset(o, 0, sizeof *o);
    o->name = r->name;
    o->cat = r->cat;
    o->kind = r->kind;
    o->count = r->count;
    o->unfinished = r->unfinished;
    o->self_ns = r->self_ns;
    incl_close(r);
    o->incl_ns = r->incl_ns;
    if (r->bits & ROW_ONE) {
        o->durs.one = r->dur.one;
    } else {
        row_durations(tb, r, d);
        ks_sort_ns(d, r->count);
        q->min_ns = d[0];
        q->max_ns = d[r->count - 1];
        q->median_ns = ks_quantile_ns(d, r->count, 50);
        q->p90_ns = ks_quantile_ns(d, r->count, 90);
        q->p99_ns = ks_quantile_ns(d, r->count, 99);
        o->durs.many = q;
    }
    if (r->gpu) {
        gpu_acc *c = &tb->gpu[r->gpu - 1];
        g->direct_ns = ks_sweep_finish(&c->direct);
        g->subtree_ns = ks_sweep_finish(&c->sub);
        g->direct_sum_ns = c->direct_sum;
        g->subtree_sum_ns = c->sub_sum;
        o->gpu = g;
    }
}

/* Heap sort of the rows by cmp_row, in place: no scratch memory while a million rows are alive
 * (qsort's merge sort would take 16 bytes per row more); cmp_row is a total order, so the result
 * is the one order whatever the algorithm. */
static void swap_rows(ks_op_row *x, ks_op_row *y)
{
    ks_op_row t = *x;
    *x = *y;
    *y = t;
}

static void sift_down(ks_op_row *v, size_t root, size_t n)
{
    for (size_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && cmp_row(&v[c], &v[c + 1]) < 0)
            c++;
        if (cmp_row(&v[root], &v[c]) >= 0)
            return;
        swap_rows(&v[root], &v[c]);
    }
}

static void sort_rows(ks_op_row *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end > 1; end--) {
        swap_rows(&v[0], &v[end - 1]);
        sift_down(v, 0, end - 1);
    }
}

_Static_assert(sizeof(ks_op_row) == 56 && sizeof(ks_op_row) % _Alignof(ks_op_gpu) == 0 &&
                   sizeof(ks_op_gpu) % _Alignof(ks_op_durs) == 0,
               "ks_op_row: 56 bytes, and its GPU credits and quantiles may follow the rows in one block");

#define RELEASE_ROWS 8192 /* accumulators given back at a time while the public rows are made */

/* The public rows, then their GPU credits, then the quantiles of the rows of several instances,
 * in one block (*out; ks_analysis frees it). */
static void finish_table(table *tb, ks_op_row **out, size_t *nout)
{
    free(tb->by_name); /* no more lookups */
    tb->by_name = NULL;
    size_t n = 0, ngpu = 0, nq = 0, most = 0;
    for (size_t i = 0; i < tb->n; i++) {
        const row_acc *r = &tb->r[i];
        n += r->count != 0; /* rows seen only through GPU credit have no instance in the window */
        ngpu += r->count != 0 && r->gpu;
        nq += r->count > 1;
        if (r->count > 1 && r->count > most)
            most = r->count;
    }
    if (tb->nwide > 1)
        qsort(tb->wide, tb->nwide, sizeof *tb->wide, cmp_wide);
    ks_ns *d = ks_big_alloc(ks_mul(most, sizeof *d)); /* one row's durations at a time */
    ks_op_row *rows = ks_xmalloc(ks_mul(n, sizeof *rows) + ks_mul(ngpu, sizeof(ks_op_gpu)) +
                                 ks_mul(nq, sizeof(ks_op_durs)) + 1);
    ks_op_gpu *gpu = (ks_op_gpu *)(void *)(rows + n);
    ks_op_durs *q = (ks_op_durs *)(void *)(gpu + ngpu);
    /* from the last accumulator down, shrinking their array as the public rows grow: the two
     * arrays are not both whole at once (the order does not matter: cmp_row is a total order on
     * rows, whose (name, cat) are distinct) */
    size_t j = n, jg = ngpu, jq = nq;
    for (size_t i = tb->n; i-- > 0;) {
        row_acc *r = &tb->r[i];
        if (r->count)
            make_row(tb, r, &rows[--j], r->gpu ? &gpu[--jg] : NULL, r->count > 1 ? &q[--jq] : NULL, d);
        if (i && i % RELEASE_ROWS == 0)
            tb->r = ks_xrealloc(tb->r, i * sizeof *tb->r);
    }
    ks_big_free(d, most * sizeof *d);
    ks_big_free(tb->durs, tb->ndurs * sizeof *tb->durs);
    free(tb->wide);
    free(tb->r);
    free(tb->gpu);
    sort_rows(rows, n);
    *out = rows;
    *nout = n;
}

/* ---- kernels ------------------------------------------------------------------------------- */

/* a launch figure's duration-weighted mean: sum of w*x, of w, of x and the count */
typedef struct wmean {
    double wx, w, x;
    uint64_t n;
} wmean;

typedef struct krow_acc {
    ks_kernel_row row;
    ks_ns *durs;
    size_t ndurs, cap;
    int has_bytes;
    wmean blocks, warps, occ;
    ks_ns grid_dur, block_dur; /* the duration of the instance the grid (block) is from, -1 none */
} krow_acc;

static void wmean_add(wmean *m, double x, ks_ns dur)
{
    m->wx += x * (double)dur;
    m->w += (double)dur;
    m->x += x;
    m->n++;
}

static double wmean_of(const wmean *m)
{
    return m->w > 0 ? m->wx / m->w : m->x / (double)m->n;
}

/* one instance's launch args into its row */
static void launch_add(krow_acc *r, const ks_launch_args *l, ks_ns dur)
{
    ks_launch_stats *s = &r->row.launch;
    s->recorded++;
    if (l->has & KS_LAUNCH_REGS) {
        if (!(s->has & KS_LAUNCH_REGS) || l->registers < s->regs_min)
            s->regs_min = l->registers;
        if (!(s->has & KS_LAUNCH_REGS) || l->registers > s->regs_max)
            s->regs_max = l->registers;
    }
    if (l->has & KS_LAUNCH_SHMEM) {
        if (!(s->has & KS_LAUNCH_SHMEM) || l->shared_mem < s->shmem_min)
            s->shmem_min = l->shared_mem;
        if (!(s->has & KS_LAUNCH_SHMEM) || l->shared_mem > s->shmem_max)
            s->shmem_max = l->shared_mem;
    }
    if (l->has & KS_LAUNCH_BLOCKS_SM)
        wmean_add(&r->blocks, l->blocks_per_sm, dur);
    if (l->has & KS_LAUNCH_WARPS_SM)
        wmean_add(&r->warps, l->warps_per_sm, dur);
    if (l->has & KS_LAUNCH_OCC) {
        if (!(s->has & KS_LAUNCH_OCC) || l->occupancy_pct < s->occupancy_min)
            s->occupancy_min = l->occupancy_pct;
        if (!(s->has & KS_LAUNCH_OCC) || l->occupancy_pct > s->occupancy_max)
            s->occupancy_max = l->occupancy_pct;
        wmean_add(&r->occ, l->occupancy_pct, dur);
    }
    if ((l->has & KS_LAUNCH_GRID) && dur > r->grid_dur) {
        memcpy(s->grid, l->grid, sizeof s->grid);
        r->grid_dur = dur;
    }
    if ((l->has & KS_LAUNCH_BLOCK) && dur > r->block_dur) {
        memcpy(s->block, l->block, sizeof s->block);
        r->block_dur = dur;
    }
    s->has |= l->has;
}

static int cmp_krow(const void *x, const void *y)
{
    const ks_kernel_row *a = x, *b = y;
    if (a->total_ns != b->total_ns)
        return a->total_ns < b->total_ns ? 1 : -1;
    return (a->name > b->name) - (a->name < b->name);
}


/* One row per (name, kind) of GPU work in the window, in first-seen order, with the room for its
 * durations (count_instances does the same for the other tables). */
static krow_acc *kernel_rows(const ks_analysis *a, uint32_t (*index)[3], size_t *nrows, ks_ns **durs,
                             size_t *ndurs)
{
    const ks_trace *t = a->trace;
    krow_acc *v = NULL;
    size_t n = 0, cap = 0, total = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *it = &gw->v[j];
        if (!ks_gpuwork_starts_in(a, it))
            continue;
        const ks_event *e = &t->tracks[it->track].ev[it->ev];
        uint32_t *ix = &index[e->name][e->kind - KS_K_KERNEL];
        if (!*ix) {
            KS_GROW(v, cap, n + 1);
            krow_acc *r = &v[n];
            memset(r, 0, sizeof *r);
            r->row.name = e->name;
            r->row.kind = e->kind;
            r->row.bytes = -1;
            r->grid_dur = r->block_dur = -1;
            *ix = (uint32_t)++n;
        }
        v[*ix - 1].cap++;
        total++;
    }
    *durs = ks_big_alloc(ks_mul(total, sizeof **durs));
    *ndurs = total;
    for (size_t i = 0, o = 0; i < n; i++) {
        v[i].durs = *durs + o;
        o += v[i].cap;
    }
    *nrows = n;
    return v;
}

void ks_kernels_build(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    /* per name id and kind: row + 1, 0 none */
    uint32_t(*index)[3] = ks_xcalloc(ks_strtab_count(t->strings) + 1, sizeof *index);
    size_t n, ndurs;
    ks_ns *durs;
    krow_acc *v = kernel_rows(a, index, &n, &durs, &ndurs);
    ks_comm_cache cc;
    ks_comm_cache_init(&cc, a);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *it = &gw->v[j];
        if (!ks_gpuwork_starts_in(a, it))
            continue;
        const ks_event *e = &t->tracks[it->track].ev[it->ev];
        krow_acc *r = &v[index[e->name][e->kind - KS_K_KERNEL] - 1];
        r->row.count++;
        r->row.total_ns = ks_sat_add(r->row.total_ns, ks_event_dur(e));
        r->durs[r->ndurs++] = ks_event_dur(e);
        if (ks_gpuwork_launcher(a, it).s < 0)
            r->row.unlinked++;
        if (ks_comm_gpu_event(&cc, it->track, it->ev))
            r->row.comm++;
        if (t->nlaunches && e->kind == KS_K_KERNEL) {
            const ks_launch_args *l = ks_trace_launch(t, it->track, it->ev);
            if (l)
                launch_add(r, l, ks_event_dur(e));
        }
        int64_t bytes;
        if (ks_event_bytes(t, it->track, it->ev, &bytes)) {
            r->row.bytes = (r->has_bytes ? r->row.bytes : 0) + bytes;
            r->has_bytes = 1;
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
        if (r->blocks.n)
            r->row.launch.blocks_per_sm = wmean_of(&r->blocks);
        if (r->warps.n)
            r->row.launch.warps_per_sm = wmean_of(&r->warps);
        if (r->occ.n)
            r->row.launch.occupancy_pct = wmean_of(&r->occ);
        a->kernels[i] = r->row;
    }
    a->nkernels = n;
    qsort(a->kernels, n, sizeof *a->kernels, cmp_krow);
    ks_big_free(durs, ndurs * sizeof *durs);
    free(v);
    free(index);
    ks_comm_cache_free(&cc);
}

/* ---- the passes in order ------------------------------------------------------------------- */

static void table_init(table *tb, size_t nnames)
{
    memset(tb, 0, sizeof *tb);
    tb->by_name = ks_xcalloc(nnames ? nnames : 1, sizeof *tb->by_name);
}

ks_agg *ks_aggregate_begin(ks_analysis *a)
{
    agg *g = ks_xcalloc(1, sizeof *g);
    g->a = a;
    size_t nnames = ks_strtab_count(a->trace->strings);
    table_init(&g->ops, nnames);
    table_init(&g->labels, nnames);
    return g;
}

void ks_aggregate_cpu(ks_agg *g)
{
    cpu_pass(g);
}

void ks_aggregate_gpu(ks_agg *g)
{
    gpu_pass(g);
}

void ks_aggregate_end(ks_agg *g)
{
    finish_table(&g->ops, &g->a->ops, &g->a->nops);
    finish_table(&g->labels, &g->a->labels, &g->a->nlabels);
    free(g);
}

void ks_aggregate_build(ks_analysis *a)
{
    ks_agg *g = ks_aggregate_begin(a);
    ks_aggregate_cpu(g);
    ks_aggregate_gpu(g);
    ks_aggregate_end(g);
    ks_kernels_build(a);
}
