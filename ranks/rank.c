/* ranks/rank.c: one rank's trace reduced to what the cross-rank analysis needs (ks_rank): step
 * times, GPU unions per device (busy, compute = kernels that are not communication, communication,
 * exposed communication = communication minus compute on the same device), host wait, its
 * collective kernels with their metadata and what ran on the device before each, and each
 * device's memory peaks. Everything is
 * copied out, so the trace and its analysis can be freed right after. Communication is decided by
 * ks_comm_gpu_event (analysis/comm.c), the one rule every pass uses. */
#include <stdlib.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "analysis/passes.h"
#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/analysis.h"
#include "kinesift/comm.h"
#include "kinesift/insights.h"
#include "kinesift/ranks.h"
#include "ranks/ranks_int.h"

/* every reason a ks_rank may carry (summaries map their text back onto these) */
static const char *const reasons[] = {
    "not observed: the trace has no kernel, memcpy or memset events",
    "not observed: no communication kernel",
    "not observed: no GPU data",
    "not observed: no active step (all warm-up or unfinished)",
    "not observed: no step annotations",
    /* the memory pass's reason (analysis/memory.c), and a summary written before peaks were kept */
    "not observed: the trace has no [memory] events (captured without profile_memory=True)",
    KS_RANK_MEM_OLD_SUMMARY,
};

const char *ks_rank_reason(const char *text)
{
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (!strcmp(text, reasons[i]))
            return reasons[i];
    return "not observed (reason unknown to this version)";
}

typedef struct kev {
    ks_ns a, b;
    ks_str name;
    uint32_t track, ev;
    int comm;
} kev;

typedef struct dev_acc {
    int32_t device;
    ks_ivs all, compute, comm;
    kev *k;
    size_t nk, kcap;
} dev_acc;

static dev_acc *dev_of(dev_acc **v, size_t *n, size_t *cap, int32_t device)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].device == device)
            return &(*v)[i];
    KS_GROW(*v, *cap, *n + 1);
    dev_acc *d = &(*v)[(*n)++];
    memset(d, 0, sizeof *d);
    d->device = device;
    return d;
}

/* The collective metadata of a kernel: its own, else that of its launching op or an op around
 * it (record_param_comms carries it around nccl:all_reduce). */
static const ks_coll_info *coll_of(const ks_analysis *a, uint32_t k, uint32_t ev)
{
    const ks_trace *t = a->trace;
    if (!t->ncolls)
        return NULL;
    const ks_coll_info *c = ks_trace_coll(t, k, ev);
    if (c)
        return c;
    ks_slice_ref r = ks_analysis_launcher(a, k, ev);
    if (r.s < 0)
        return NULL;
    const ks_timeline *tl = &a->tl[r.tl];
    for (int32_t s = r.s, depth = 0; s >= 0 && depth < 8; s = tl->s[s].parent, depth++)
        if ((c = ks_trace_coll(t, tl->track, tl->s[s].ev)))
            return c;
    return NULL;
}

/* Every kernel (and copy) of the trace into the per-device sets and kernel lists. */
static void collect_devices(const ks_analysis *a, dev_acc **devs, size_t *ndev, uint64_t *kernels)
{
    const ks_trace *t = a->trace;
    size_t cap = 0;
    ks_comm_cache cc;
    ks_comm_cache_init(&cc, a);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *g = &gw->v[j];
        uint32_t k = g->track, i = g->ev;
        const ks_event *e = &t->tracks[k].ev[i];
        dev_acc *d = dev_of(devs, ndev, &cap, ks_gpuwork_device(t, g));
        ks_ivs_add(&d->all, e->ts, e->ts + ks_event_dur(e));
        if (e->kind != KS_K_KERNEL)
            continue;
        (*kernels)++;
        int comm = ks_comm_gpu_event(&cc, k, i);
        ks_ivs_add(comm ? &d->comm : &d->compute, e->ts, e->ts + ks_event_dur(e));
        KS_GROW(d->k, d->kcap, d->nk + 1);
        d->k[d->nk++] = (kev){e->ts, e->ts + ks_event_dur(e), e->name, k, i, comm};
    }
    ks_comm_cache_free(&cc);
}

static int cmp_kev(const void *x, const void *y)
{
    const kev *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->track != q->track)
        return p->track < q->track ? -1 : 1;
    return (p->ev > q->ev) - (p->ev < q->ev);
}

/* the top KS_RANK_TOP names of acc (ids in touched) into c->before, then acc cleared */
static void take_top(const ks_trace *t, ks_ns *acc, ks_str *touched, size_t nt, ks_rank_coll *c)
{
    for (size_t i = 0; i < nt; i++) {
        ks_str id = touched[i];
        ks_ns v = acc[id];
        for (int j = 0; j < KS_RANK_TOP; j++) {
            if (!c->before[j] || v > c->before_ns[j]) {
                free(c->before[KS_RANK_TOP - 1]);
                memmove(&c->before[j + 1], &c->before[j], (KS_RANK_TOP - 1 - j) * sizeof c->before[0]);
                memmove(&c->before_ns[j + 1], &c->before_ns[j], (KS_RANK_TOP - 1 - j) * sizeof c->before_ns[0]);
                c->before[j] = ks_xstrdup(ks_trace_str(t, id));
                c->before_ns[j] = v;
                break;
            }
        }
    }
    for (size_t i = 0; i < nt; i++)
        acc[touched[i]] = 0;
}

/* The step a collective belongs to: the one whose CPU annotation holds its launch, else (no
 * launcher) the one whose span, widened to its GPU work, holds the kernel's start; -1 none. */
static int64_t step_of(const ks_analysis *a, const ks_steps *st, const kev *k)
{
    if (!st || !st->n)
        return -1;
    ks_slice_ref r = ks_analysis_launcher(a, k->track, k->ev);
    if (r.s >= 0) {
        const ks_timeline *tl = &a->tl[r.tl];
        ks_ns at = a->trace->tracks[tl->track].ev[tl->s[r.s].ev].ts;
        for (size_t i = 0; i < st->n; i++)
            if (st->v[i].host_start <= at && at < st->v[i].host_end)
                return st->v[i].number;
        return -1;
    }
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].start <= k->a && k->a < st->v[i].end)
            return st->v[i].number;
    return -1;
}

static void fill_coll(const ks_analysis *a, const ks_steps *st, const kev *k, ks_rank_coll *c)
{
    const ks_trace *t = a->trace;
    const ks_coll_info *ci = coll_of(a, k->track, k->ev);
    memset(c, 0, sizeof *c);
    c->start = k->a;
    c->end = k->b;
    c->seq = c->bytes = c->group_size = -1;
    c->step = step_of(a, st, k);
    if (ci && ci->name) {
        c->name = ks_xstrdup(ks_trace_str(t, ci->name));
        c->pg = ks_xstrdup(ci->pg_name ? ks_trace_str(t, ci->pg_name) : ci->pg_ranks ? ks_trace_str(t, ci->pg_ranks) : "");
        c->seq = ci->seq;
        c->group_size = ci->group_size;
        int sz = ci->dtype ? ks_dtype_size(ks_trace_str(t, ci->dtype)) : 0;
        if (sz && ci->in_nelems >= 0 && ci->in_nelems <= INT64_MAX / 16)
            c->bytes = ci->in_nelems * sz;
    } else {
        c->name = ks_xstrdup(ks_coll_kind_name(ks_coll_kind_of(ks_trace_str(t, k->name))));
        c->pg = ks_xstrdup("");
    }
}

/* The collectives of every device, in start order, each with the compute kernels that started on
 * its device since the previous collective there. */
static void collectives(const ks_analysis *a, const ks_steps *st, dev_acc *devs, size_t ndev, ks_rank *r)
{
    const ks_trace *t = a->trace;
    size_t names = ks_strtab_count(t->strings), cap = 0;
    ks_ns *acc = ks_xcalloc(names, sizeof *acc);
    ks_str *touched = NULL;
    size_t nt = 0, tcap = 0;
    for (size_t d = 0; d < ndev; d++) {
        dev_acc *dv = &devs[d];
        ks_qsort(dv->k, dv->nk, sizeof *dv->k, cmp_kev);
        for (size_t i = 0; i < dv->nk; i++) {
            const kev *k = &dv->k[i];
            if (!k->comm) {
                if (!acc[k->name])
                    KS_PUSH(touched, nt, tcap, k->name);
                acc[k->name] = ks_sat_add(acc[k->name], ks_sat_sub(k->b, k->a));
                continue;
            }
            KS_GROW(r->colls, cap, r->ncolls + 1);
            ks_rank_coll *c = &r->colls[r->ncolls++];
            fill_coll(a, st, k, c);
            take_top(t, acc, touched, nt, c);
            nt = 0;
        }
        for (size_t i = 0; i < nt; i++)
            acc[touched[i]] = 0;
        nt = 0;
    }
    free(acc);
    free(touched);
}

static int cmp_coll(const void *x, const void *y)
{
    const ks_rank_coll *p = x, *q = y;
    if (p->start != q->start)
        return p->start < q->start ? -1 : 1;
    return (p->end > q->end) - (p->end < q->end);
}

static void gpu_figures(const ks_analysis *a, const ks_steps *st, ks_rank *r)
{
    dev_acc *devs = NULL;
    size_t ndev = 0;
    collect_devices(a, &devs, &ndev, &r->kernels);
    if (!ndev)
        r->gpu_reason = reasons[0];
    ks_ivs ex = {0};
    for (size_t d = 0; d < ndev; d++) {
        dev_acc *dv = &devs[d];
        r->gpu_busy += ks_ivs_union(&dv->all);
        if (dv->all.n)
            r->gpu_span += dv->all.v[dv->all.n - 1].b - dv->all.v[0].a;
        r->compute += ks_ivs_union(&dv->compute);
        r->comm += ks_ivs_union(&dv->comm);
        ks_ivs_subtract(&dv->comm, &dv->compute, &ex);
        r->exposed += ks_ivs_length(&ex);
    }
    ks_ivs_free(&ex);
    collectives(a, st, devs, ndev, r);
    for (size_t d = 0; d < ndev; d++)
        if (devs[d].all.n) {
            ks_ns e = devs[d].all.v[devs[d].all.n - 1].b;
            if (e > r->last_ns)
                r->last_ns = e;
        }
    if (r->ncolls > 1)
        ks_qsort(r->colls, r->ncolls, sizeof *r->colls, cmp_coll);
    if (!r->ncolls)
        r->colls_reason = ndev ? reasons[1] : reasons[2];
    for (size_t d = 0; d < ndev; d++) {
        ks_ivs_free(&devs[d].all);
        ks_ivs_free(&devs[d].compute);
        ks_ivs_free(&devs[d].comm);
        free(devs[d].k);
    }
    free(devs);
}

static void step_figures(const ks_steps *st, ks_rank *r)
{
    ks_ns *w = ks_xcalloc(st->n + 1, sizeof *w);
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        if (ks_step_active(&st->v[i]))
            w[n++] = st->v[i].wall_ns;
    r->steps = n;
    r->first_step = r->last_step = -1;
    for (size_t i = 0; i < st->n; i++) {
        if (r->first_step < 0 || st->v[i].number < r->first_step)
            r->first_step = st->v[i].number;
        if (st->v[i].number > r->last_step)
            r->last_step = st->v[i].number;
    }
    if (n) {
        r->step_ns = ks_xcalloc(n, sizeof *r->step_ns);
        memcpy(r->step_ns, w, n * sizeof *w);
        ks_sort_ns(w, n);
        r->step_median = ks_quantile_ns(w, n, 50);
        r->step_p90 = ks_quantile_ns(w, n, 90);
    } else
        r->steps_reason = st->n ? reasons[3] : reasons[4];
    free(w);
}

static void host_wait(const ks_analysis *a, const ks_steps *st, ks_rank *r)
{
    ks_gap_opts go;
    ks_gap_opts_init(&go);
    ks_gaps g = {0};
    ks_error err;
    r->host_wait = -1;
    if (ks_gaps_find(a, st, &go, &g, &err) == KS_OK && !g.reason) {
        r->host_wait = 0;
        for (size_t i = 0; i < g.n; i++)
            r->host_wait = ks_sat_add(r->host_wait, g.dev[i].hta_host_wait_ns);
    }
    ks_gaps_free(&g);
}

static int cmp_name(const void *x, const void *y)
{
    const ks_rank_name *p = x, *q = y;
    if (p->op != q->op)
        return p->op - q->op;
    if (p->ns != q->ns)
        return p->ns > q->ns ? -1 : 1;
    return strcmp(p->name, q->name);
}

/* the KS_RANK_NAMES longest compute kernels (total) and CPU ops (self) of the window */
static void names(const ks_analysis *a, ks_rank *r)
{
    const ks_trace *t = a->trace;
    size_t cap = 0;
    ks_rank_name *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < a->nkernels; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        if (k->kind == KS_K_KERNEL && k->comm < k->count && k->total_ns > 0)
            KS_PUSH(v, n, cap, ((ks_rank_name){(char *)ks_trace_str(t, k->name), 0, k->total_ns}));
    }
    for (size_t i = 0; i < a->nops; i++)
        if (a->ops[i].self_ns > 0)
            KS_PUSH(v, n, cap, ((ks_rank_name){(char *)ks_trace_str(t, a->ops[i].name), 1, a->ops[i].self_ns}));
    if (n > 1)
        ks_qsort(v, n, sizeof *v, cmp_name);
    r->names = ks_xcalloc(2 * KS_RANK_NAMES + 1, sizeof *r->names);
    size_t kept[2] = {0, 0};
    for (size_t i = 0; i < n; i++)
        if (kept[v[i].op] < KS_RANK_NAMES) {
            kept[v[i].op]++;
            r->names[r->nnames] = v[i];
            r->names[r->nnames++].name = ks_xstrdup(v[i].name);
        }
    free(v);
}

/* each device's memory peaks, exact bytes, as the memory pass found them (kinesift/memory.h) */
static void memory_peaks(const ks_analysis *a, ks_rank *r)
{
    const ks_memory *m = a->memory;
    if (!m || m->reason || !m->n) {
        r->mem_reason = ks_rank_reason(m && m->reason ? m->reason : reasons[5]);
        return;
    }
    r->mem = ks_xcalloc(m->n, sizeof *r->mem);
    for (size_t i = 0; i < m->n; i++) {
        const ks_mem_device *d = &m->dev[i];
        ks_rank_mem *x = &r->mem[r->nmem++];
        x->device_type = d->device_type;
        x->device_id = d->device_id;
        x->type_name = d->type_name ? ks_xstrdup(d->type_name) : NULL;
        /* a negative total (a broken trace) is no peak either */
        x->peak_allocated = d->basis == KS_MEM_BASIS_TOTAL && d->peak_allocated >= 0 ? d->peak_allocated : -1;
        x->peak_reserved = d->has_reserved && d->peak_reserved >= 0 ? d->peak_reserved : -1;
        x->capacity = d->capacity > 0 ? d->capacity : -1;
    }
}

int ks_rank_from_trace(const ks_trace *t, const ks_rank_opts *o, ks_rank *r, ks_error *err)
{
    memset(r, 0, sizeof *r);
    r->source = ks_xstrdup(t->source ? t->source : "-");
    r->rank = t->meta.has_rank ? t->meta.rank : -1;
    r->world_size = t->meta.has_world_size ? t->meta.world_size : -1;
    r->name_rank = ks_rank_from_name(r->source);
    ks_analysis_opts ao;
    ks_analysis_opts_init(&ao);
    ao.threads = 1;
    ks_analysis *a = NULL;
    ks_steps st = {0};
    ks_step_opts so;
    ks_step_opts_init(&so);
    so.label_regex = o ? o->step_label : NULL;
    if (ks_analyze(t, &ao, &a, err) != KS_OK || ks_steps_find(a, &so, &st, err) != KS_OK) {
        ks_analysis_free(a);
        ks_rank_free(r); /* its source: nothing is left to the caller on an error */
        return KS_ERR;
    }
    step_figures(&st, r);
    gpu_figures(a, &st, r);
    names(a, r);
    memory_peaks(a, r);
    r->truncated = t->truncated;
    r->cut_byte = t->truncated_at;
    if (r->gpu_reason) /* no GPU work: the end of its last event */
        for (size_t k = 0; k < t->ntracks; k++)
            for (size_t i = 0; i < t->tracks[k].n; i++) {
                ks_ns e = t->tracks[k].ev[i].ts + ks_event_dur(&t->tracks[k].ev[i]);
                if (e > r->last_ns)
                    r->last_ns = e;
            }
    host_wait(a, &st, r);
    ks_steps_free(&st);
    ks_analysis_free(a);
    return KS_OK;
}

void ks_rank_free(ks_rank *r)
{
    for (size_t i = 0; i < r->ncolls; i++) {
        free(r->colls[i].name);
        free(r->colls[i].pg);
        for (int j = 0; j < KS_RANK_TOP; j++)
            free(r->colls[i].before[j]);
    }
    free(r->colls);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i].name);
    free(r->names);
    for (size_t i = 0; i < r->nmem; i++)
        free(r->mem[i].type_name);
    free(r->mem);
    free(r->step_ns);
    free(r->source);
    memset(r, 0, sizeof *r);
}
