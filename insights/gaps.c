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
 * the launch call). The gap tables count gaps longer than the threshold (HTA's rule). */
#include <stdlib.h>
#include <string.h>

#include "analysis/hugemem.h"
#include "analysis/msort.h"
#include "analysis/analysis_int.h"
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

typedef struct work {
    ks_ns a, b;
    uint32_t track;
    uint32_t ev;
} work;

static inline int work_before(const work *p, const work *q)
{
    return p->a != q->a ? p->a < q->a : p->b < q->b;
}

/* stable (equal intervals keep their stream order), and each stream's work is in start order
 * already: the sort merges one run per stream */
KS_MSORT_DEFINE(sort_work, work, work_before)

typedef struct cause_table {
    ks_gap_cause *v;
    size_t n, cap;
    ks_i64map ix;
} cause_table;

static ks_gap_cause *cause(cause_table *t, ks_str name, uint8_t kind)
{
    int64_t key = name ? ((int64_t)name << 8) | kind : -1;
    uint64_t *p = ks_i64map_get(&t->ix, key);
    if (p)
        return &t->v[*p];
    KS_GROW(t->v, t->cap, t->n + 1);
    ks_gap_cause *c = &t->v[t->n];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = name ? kind : KS_K_OTHER;
    ks_i64map_put(&t->ix, key, t->n++);
    return c;
}

/* the causes of one gap: few, so a plain list */
typedef struct gap_causes {
    ks_gap_cause *v;
    size_t n, cap;
} gap_causes;

typedef struct gap_ctx {
    const ks_analysis *a;
    ks_regex *data_re;
    uint8_t *data_cache;       /* per name id: 0 unknown, 1 no, 2 yes */
    uint8_t *step_name;        /* per name id: 1 when steps carry that name */
    /* per gap */
    gap_causes cpu, label;
    ks_ns data_ns;
} gap_ctx;

static ks_gap_cause *gap_cause(gap_causes *t, ks_str name, uint8_t kind)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].name == name && (!name || t->v[i].kind == kind))
            return &t->v[i];
    KS_GROW(t->v, t->cap, t->n + 1);
    ks_gap_cause *c = &t->v[t->n++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = name ? kind : KS_K_OTHER;
    return c;
}

/* credit len ns to a cause (saturated: spans of extreme timestamps do not fit int64 ns) */
static void add_cause(gap_causes *t, ks_str name, uint8_t kind, ks_ns len)
{
    ks_gap_cause *c = gap_cause(t, name, kind);
    c->total_ns = ks_sat_add(c->total_ns, len);
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

/* Attribute [x, y) to the innermost non-step slice of the stack, and to the innermost label. */
static void emit(gap_ctx *g, const ks_timeline *tl, const int32_t *stack, size_t n, ks_ns x, ks_ns y)
{
    if (y <= x)
        return;
    const ks_track *tr = &g->a->trace->tracks[tl->track];
    const ks_event *inner = NULL, *label = NULL;
    int data = 0;
    for (size_t i = n; i-- > 0;) {
        const ks_event *e = &tr->ev[tl->s[stack[i]].ev];
        if (is_step(g, e))
            continue;
        if (!inner)
            inner = e;
        if (!label && e->kind == KS_K_USER_ANNOTATION)
            label = e;
        if (!data && e->name && is_data(g, e->name))
            data = 1;
    }
    ks_ns len = ks_sat_sub(y, x);
    add_cause(&g->cpu, inner ? inner->name : 0, inner ? inner->kind : 0, len);
    add_cause(&g->label, label ? label->name : 0, KS_K_USER_ANNOTATION, len);
    if (data)
        g->data_ns = ks_sat_add(g->data_ns, len);
}

/* Split [g0, g1) by what thread timeline tl was doing (lane 0). */
static void attribute(gap_ctx *g, const ks_timeline *tl, ks_ns g0, ks_ns g1)
{
    const ks_trace *t = g->a->trace;
    int32_t *stack = NULL;
    size_t n = 0, cap = 0;
    /* the slices open at g0, outermost first */
    for (int32_t i = ks_timeline_at(t, tl, g0, NULL); i >= 0; i = tl->s[i].parent)
        KS_PUSH(stack, n, cap, i);
    for (size_t i = 0; i < n / 2; i++) {
        int32_t x = stack[i];
        stack[i] = stack[n - 1 - i];
        stack[n - 1 - i] = x;
    }
    ks_ns cur = g0;
    size_t lo = 0, hi = tl->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tl->s[mid].ts <= g0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t j = lo; j < tl->n && tl->s[j].ts < g1; j++) {
        const ks_slice *s = &tl->s[j];
        if (s->lane != 0)
            continue;
        while (n && tl->s[stack[n - 1]].end <= s->ts) {
            emit(g, tl, stack, n, cur, tl->s[stack[n - 1]].end);
            if (tl->s[stack[n - 1]].end > cur)
                cur = tl->s[stack[n - 1]].end;
            n--;
        }
        emit(g, tl, stack, n, cur, s->ts);
        if (s->ts > cur)
            cur = s->ts;
        KS_PUSH(stack, n, cap, (int32_t)j);
    }
    while (n && tl->s[stack[n - 1]].end < g1) {
        emit(g, tl, stack, n, cur, tl->s[stack[n - 1]].end);
        if (tl->s[stack[n - 1]].end > cur)
            cur = tl->s[stack[n - 1]].end;
        n--;
    }
    emit(g, tl, stack, n, cur, g1);
    free(stack);
}

static void merge_causes(gap_ctx *g, cause_table *dst, gap_causes *gap)
{
    for (size_t i = 0; i < gap->n; i++) {
        ks_gap_cause *c = cause(dst, gap->v[i].name, gap->v[i].kind);
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

static void keep_longest(ks_gap_device *d, const ks_gap *gp)
{
    size_t n = d->nlongest;
    if (n < 5)
        d->longest[d->nlongest++] = *gp;
    else if (gap_len(gp) > gap_len(&d->longest[4]))
        d->longest[4] = *gp;
    else
        return;
    for (size_t i = d->nlongest - 1; i > 0; i--) {
        if (gap_len(&d->longest[i]) <= gap_len(&d->longest[i - 1]))
            break;
        ks_gap x = d->longest[i];
        d->longest[i] = d->longest[i - 1];
        d->longest[i - 1] = x;
    }
}

/* the CPU timeline that launched most of this device's work */
static int32_t main_thread(const ks_analysis *a, const work *w, size_t n)
{
    size_t *count = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *count);
    for (size_t i = 0; i < n; i++) {
        ks_slice_ref r = ks_analysis_launcher(a, w[i].track, w[i].ev);
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

static void device_gaps(gap_ctx *g, const ks_gap_opts *o, work *w, size_t n, ks_gap_device *d)
{
    const ks_analysis *a = g->a;
    sort_work(w, n);
    int32_t fallback = main_thread(a, w, n);
    cause_table cpu = {0}, label = {0};
    size_t cap_all = 0;
    ks_i64map_init(&cpu.ix);
    ks_i64map_init(&label.ix);
    ks_ns cur_end = w[0].b;
    for (size_t i = 1; i < n; i++) {
        if (w[i].a <= cur_end) {
            if (w[i].b > cur_end)
                cur_end = w[i].b;
            continue;
        }
        ks_ns g0 = cur_end, g1 = w[i].a, len = ks_sat_sub(g1, g0);
        cur_end = w[i].b;
        d->idle_ns = ks_sat_add(d->idle_ns, len);
        ks_slice_ref r = ks_analysis_launcher(a, w[i].track, w[i].ev);
        if (r.s >= 0 && a->tl[r.tl].s[r.s].ts >= g0)
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
        if (thread >= 0) {
            attribute(g, &a->tl[thread], g0, g1);
        } else {
            add_cause(&g->cpu, 0, 0, len);
            add_cause(&g->label, 0, 0, len);
        }
        d->data_loading_ns = ks_sat_add(d->data_loading_ns, g->data_ns);
        merge_causes(g, &cpu, &g->cpu);
        merge_causes(g, &label, &g->label);
        ks_gap gp = {g0, g1, 0, KS_K_OTHER, 0};
        ks_ns most = -1;
        for (size_t c = 0; c < g->cpu.n; c++)
            if (g->cpu.v[c].total_ns > most) {
                most = g->cpu.v[c].total_ns;
                gp.cause = g->cpu.v[c].name;
                gp.cause_kind = g->cpu.v[c].kind;
            }
        gp.data = gp.cause && is_data(g, gp.cause);
        keep_longest(d, &gp);
        KS_GROW(d->all, cap_all, d->count);
        d->all[d->count - 1] = gp;
    }
    if (cpu.n > 1)
        qsort(cpu.v, cpu.n, sizeof *cpu.v, cmp_cause);
    if (label.n > 1)
        qsort(label.v, label.n, sizeof *label.v, cmp_cause);
    d->by_cpu = cpu.v;
    d->nby_cpu = cpu.n;
    d->by_label = label.v;
    d->nby_label = label.n;
    ks_i64map_free(&cpu.ix);
    ks_i64map_free(&label.ix);
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
    g.data_re = ks_regex_new(opts->data_regex ? opts->data_regex : DEFAULT_DATA_REGEX, 1, err);
    if (!g.data_re)
        return KS_ERR;
    g.data_cache = ks_xcalloc(ks_strtab_count(t->strings), 1);
    out->dev = ks_xcalloc(a->ngpu, sizeof *out->dev);
    out->n = a->ngpu;
    for (size_t d = 0; d < a->ngpu; d++) {
        ks_gap_device *dev = &out->dev[d];
        dev->device = a->gpu[d].device;
        dev->threshold_ns = opts->threshold_ns;
        const ks_gpuwork *gw = ks_gpuwork_of(a);
        size_t n = 0, most = ks_gpuwork_device_count(gw, dev->device);
        work *w = ks_big_alloc(ks_mul(most, sizeof *w));
        for (size_t k = 0; k < gw->nstreams; k++) {
            const ks_gpuwork_stream *str = &gw->streams[k];
            for (size_t i = str->first; str->device == dev->device && i < str->first + str->n; i++) {
                ks_ns s, en;
                if (!ks_gpuwork_clip(a, &gw->v[i], &s, &en))
                    continue;
                work x = {s, en, gw->v[i].track, gw->v[i].ev};
                w[n++] = x;
            }
        }
        if (n)
            device_gaps(&g, opts, w, n, dev);
        ks_big_free(w, most * sizeof *w);
    }
    free(g.cpu.v);
    free(g.label.v);
    free(g.data_cache);
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
    }
    free(g->dev);
    memset(g, 0, sizeof *g);
}
