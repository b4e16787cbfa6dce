/* compare/gate_profile.c: the per-step samples `gate` compares, from one analysed trace.
 *
 * Every active step (neither warm-up nor unfinished) gives one sample of each metric: its
 * widened wall time, its GPU idle share (idle / wall, in points), the kernels launched in it, and
 * for every labelled range (and the operators and kernels a check names) the time that range
 * took in that step. A slice belongs to the step in which it starts: CPU-side slices by the host
 * partition (host start of step i up to the host start of step i + 1; the last step up to its
 * widened end, so a backward pass running past the step annotation still counts), GPU-side
 * slices by the widened partition, kernels by the start of their launch call (their own start
 * when none is linked). Time of a range in a step = per track, the union of its instances
 * attributed to the step (recursion once), summed over tracks: the analysis' inclusive time
 * restricted to the step. Kernel time is the plain sum of durations, as in the kernel table. */
#include <stdlib.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "common/i64map.h"
#include "common/util.h"
#include "kinesift/compare.h"

/* Accumulator of one series: the interval being merged on the current track. */
typedef struct acc {
    int has;
    size_t step;
    ks_ns a, b;
} acc;

typedef struct builder {
    const ks_analysis *a;
    const ks_steps *st;
    const ks_profile_opts *o;
    ks_profile *p;
    long *sample;          /* step index -> sample index, or -1 */
    ks_ns host_last_end;   /* end of the last host partition */
    acc *acc;              /* parallel to p->series */
    size_t acc_cap;
    ks_i64map labels;      /* (name id << 1 | on GPU) -> series index + 1, 0 = not a label row */
    ks_i64map ops;         /* name id -> series index + 1, 0 = not followed */
    ks_i64map kernels;     /* name id -> series index + 1, 0 = not followed */
} builder;

/* Step index whose partition holds t, or -1. starts are the partition starts (sorted). */
static long part_of(const ks_steps *st, int host, ks_ns t, ks_ns last_end)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        ks_ns s = host ? st->v[mid].host_start : st->v[mid].start;
        if (s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return -1;
    if (lo == st->n && t >= last_end)
        return -1;
    return (long)lo - 1;
}

static long host_step(const builder *b, ks_ns t)
{
    return part_of(b->st, 1, t, b->host_last_end);
}

static long gpu_step(const builder *b, ks_ns t)
{
    return part_of(b->st, 0, t, b->st->n ? b->st->v[b->st->n - 1].end : 0);
}

static size_t add_series(builder *b, ks_metric m, const char *name)
{
    ks_profile *p = b->p;
    KS_GROW(p->series, p->cap, p->nseries + 1);
    ks_sample_series *s = &p->series[p->nseries];
    memset(s, 0, sizeof *s);
    s->metric = m;
    s->name = ks_xstrdup(name);
    s->n = p->n;
    s->v = ks_xcalloc(p->n ? p->n : 1, sizeof *s->v);
    KS_GROW(b->acc, b->acc_cap, p->nseries + 1);
    memset(&b->acc[p->nseries], 0, sizeof *b->acc);
    return p->nseries++;
}

static void flush(builder *b, size_t si)
{
    acc *c = &b->acc[si];
    if (c->has) {
        long k = b->sample[c->step];
        if (k >= 0)
            b->p->series[si].v[k] += (double)ks_sat_sub(c->b, c->a); /* a slice may span int64 */
    }
    c->has = 0;
}

static void credit(builder *b, size_t si, long step, ks_ns ts, ks_ns end)
{
    acc *c = &b->acc[si];
    if (c->has && c->step == (size_t)step && ts < c->b) {
        if (end > c->b)
            c->b = end;
        return;
    }
    flush(b, si);
    *c = (acc){1, (size_t)step, ts, end};
}

/* Is the name of a step annotation (not a label row of its own). */
static int is_step_name(const ks_steps *st, ks_str name)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].name == name)
            return 1;
    return 0;
}

/* Series index of a label (user_annotation on CPU, gpu_user_annotation on GPU), or -1. */
static long label_series(builder *b, const ks_event *e, int gpu)
{
    int64_t key = ((int64_t)e->name << 1) | gpu;
    uint64_t *v = ks_i64map_get(&b->labels, key);
    if (v)
        return (long)*v - 1;
    long si = -1;
    if (!is_step_name(b->st, e->name))
        si = (long)add_series(b, gpu ? KS_METRIC_GPU_LABEL : KS_METRIC_LABEL, ks_trace_str(b->a->trace, e->name));
    ks_i64map_put(&b->labels, key, (uint64_t)(si + 1));
    return si;
}

static long op_series(builder *b, const ks_event *e)
{
    if (!b->o || !b->o->nops)
        return -1;
    uint64_t *v = ks_i64map_get(&b->ops, e->name);
    if (v)
        return (long)*v - 1;
    const char *nm = ks_trace_str(b->a->trace, e->name);
    long si = -1;
    for (size_t i = 0; i < b->o->nops && si < 0; i++)
        if (!strcmp(nm, b->o->ops[i]))
            si = (long)add_series(b, KS_METRIC_OP, nm);
    ks_i64map_put(&b->ops, e->name, (uint64_t)(si + 1));
    return si;
}

static void slices(builder *b)
{
    const ks_analysis *a = b->a;
    const ks_trace *t = a->trace;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        int gpu = tr->kind == KS_TRACK_GPU;
        if (!gpu && tr->kind != KS_TRACK_CPU)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            long label = -1, op = -1;
            if (!gpu && e->kind == KS_K_USER_ANNOTATION)
                label = label_series(b, e, 0);
            else if (gpu && e->kind == KS_K_GPU_ANNOTATION)
                label = label_series(b, e, 1);
            if (!gpu && (ks_kind_is_cpu_side((ks_kind)e->kind) || e->kind == KS_K_OTHER))
                op = op_series(b, e); /* any CPU-side slice, user annotations too */
            if (label < 0 && op < 0)
                continue;
            long step = gpu ? gpu_step(b, e->ts) : host_step(b, e->ts); /* the slice's start is its event's */
            if (step < 0)
                continue;
            if (label >= 0)
                credit(b, (size_t)label, step, e->ts, ks_slice_end(tl, s));
            if (op >= 0)
                credit(b, (size_t)op, step, e->ts, ks_slice_end(tl, s));
        }
        for (size_t si = 0; si < b->p->nseries; si++)
            flush(b, si);
    }
}

static long kernel_series(builder *b, const ks_event *e)
{
    if (!b->o || !b->o->nkernels)
        return -1;
    uint64_t *v = ks_i64map_get(&b->kernels, e->name);
    if (v)
        return (long)*v - 1;
    const char *raw = ks_trace_str(b->a->trace, e->name);
    char *nm = b->o->normalize_kernels ? ks_kernel_name_normalize(raw) : ks_xstrdup(raw);
    long si = -1;
    for (size_t i = 0; i < b->o->nkernels && si < 0; i++) {
        if (strcmp(nm, b->o->kernels[i]) != 0)
            continue;
        const ks_sample_series *have = ks_profile_series(b->p, KS_METRIC_KERNEL_TIME, nm);
        si = have ? (long)(have - b->p->series) : (long)add_series(b, KS_METRIC_KERNEL_TIME, nm);
    }
    free(nm);
    ks_i64map_put(&b->kernels, e->name, (uint64_t)(si + 1));
    return si;
}

/* Kernels: launches per step, and the time of the kernels a check names. */
static void kernels(builder *b)
{
    const ks_analysis *a = b->a;
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *g = &gw->v[j];
        const ks_event *e = ks_gpuwork_event(t, g);
        if (e->kind != KS_K_KERNEL || !ks_event_has_dur(e))
            continue;
        ks_slice_ref r = ks_gpuwork_launcher(a, g);
        long step = r.s >= 0 ? host_step(b, ks_slice_ts_at(&a->tl[r.tl], r.s)) : gpu_step(b, e->ts);
        long smp = step >= 0 ? b->sample[step] : -1;
        if (smp < 0)
            continue;
        b->p->launches[smp] += 1;
        long si = kernel_series(b, e);
        if (si >= 0)
            b->p->series[si].v[smp] += (double)ks_event_dur(e);
    }
}

static void steps(builder *b)
{
    const ks_steps *st = b->st;
    ks_profile *p = b->p;
    b->sample = ks_xmalloc(ks_mul(st->n ? st->n : 1, sizeof *b->sample));
    p->nsteps = st->n;
    snprintf(p->steps_source, sizeof p->steps_source, "%s", st->source);
    for (size_t i = 0; i < st->n; i++) {
        b->sample[i] = -1;
        if (st->v[i].warmup)
            p->nwarmup++;
        else if (st->v[i].unfinished)
            p->nunfinished++;
        else
            b->sample[i] = (long)p->n++;
    }
    size_t n = p->n ? p->n : 1;
    p->step_numbers = ks_xcalloc(n, sizeof *p->step_numbers);
    p->step_time = ks_xcalloc(n, sizeof *p->step_time);
    p->launches = ks_xcalloc(n, sizeof *p->launches);
    if (p->settings.gpu_activity)
        p->gpu_idle = ks_xcalloc(n, sizeof *p->gpu_idle);
    for (size_t i = 0; i < st->n; i++) {
        long k = b->sample[i];
        if (k < 0)
            continue;
        const ks_step *s = &st->v[i];
        p->step_numbers[k] = s->number;
        p->step_time[k] = (double)s->wall_ns;
        if (p->gpu_idle)
            p->gpu_idle[k] = s->wall_ns > 0 ? 100.0 * (double)s->idle_ns / (double)s->wall_ns : 0;
    }
    if (st->n) {
        const ks_step *last = &st->v[st->n - 1];
        b->host_last_end = last->end > last->host_end ? last->end : last->host_end;
    }
}

int ks_profile_build(const ks_analysis *a, const ks_steps *st, const ks_profile_opts *o, ks_profile *p,
                     ks_error *err)
{
    (void)err;
    memset(p, 0, sizeof *p);
    const ks_trace *t = a->trace;
    p->source = ks_xstrdup(t->source ? t->source : "-");
    p->has_rank = t->meta.has_rank;
    p->rank = t->meta.rank;
    ks_settings_read(t, &p->settings);
    builder b = {0};
    b.a = a;
    b.st = st;
    b.o = o;
    b.p = p;
    ks_i64map_init(&b.labels);
    ks_i64map_init(&b.ops);
    ks_i64map_init(&b.kernels);
    steps(&b);
    if (st->n) {
        slices(&b);
        kernels(&b);
    }
    ks_i64map_free(&b.labels);
    ks_i64map_free(&b.ops);
    ks_i64map_free(&b.kernels);
    free(b.acc);
    free(b.sample);
    return KS_OK;
}

void ks_profile_free(ks_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nseries; i++) {
        free(p->series[i].name);
        free(p->series[i].v);
    }
    free(p->series);
    free(p->source);
    free(p->step_numbers);
    free(p->step_time);
    free(p->gpu_idle);
    free(p->launches);
    memset(p, 0, sizeof *p);
}

const ks_sample_series *ks_profile_series(const ks_profile *p, ks_metric m, const char *name)
{
    for (size_t i = 0; i < p->nseries; i++)
        if (p->series[i].metric == m && !strcmp(p->series[i].name, name))
            return &p->series[i];
    return NULL;
}
