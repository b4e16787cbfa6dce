/* analysis/links.c: links from CPU launches (cuda_runtime / cuda_driver calls) to the GPU work
 * they enqueued (kernel, memcpy, memset). The CUPTI correlation id carried by both is the primary
 * key; ac2g flow events (legacy async_gpu / launch too) link what has no correlation. GPU work
 * without a launcher and launches without GPU work are counted, never dropped. */
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/idindex.h"
#include "store/writer.h"
#include "analysis/analysis_int.h"
#include "common/util.h"

/* A launch API call that must produce GPU work. */
static int is_launch_name(const char *n)
{
    if (strstr(n, "HostFunc"))
        return 0;
    return strstr(n, "Launch") != NULL || !strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cudaMemset", 10) ||
           !strncmp(n, "cuMemcpy", 8) || !strncmp(n, "cuMemset", 8) || !strncmp(n, "hipMemcpy", 9) ||
           !strncmp(n, "hipMemset", 9);
}

/* correlation id -> runtime/driver slice: a runtime call wins over a driver call (the driver call
 * it contains), else the first in (track, slice) order wins. The index keeps the smallest value
 * per id, so the value is the packed slice ref with a driver call's rank in the top bit (track
 * indices stay below 2^31). Each thread's launches come in ascending correlation order, so the
 * pairs form one sorted run per thread. */
#define DRIVER_RANK (UINT64_C(1) << 63)

static void index_launches(ks_analysis *a, ks_idindex *corr)
{
    const ks_trace *t = a->trace;
    size_t n = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (t->tracks[a->tl[k].track].kind != KS_TRACK_GPU)
            n += a->tl[k].n; /* a launch is a slice */
    ks_idindex_reserve(corr, n);
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (tr->kind == KS_TRACK_GPU)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_event *e = &tr->ev[tl->s[i].ev];
            if (!ks_kind_is_launch_api(e->kind) || !(e->flags & KS_EF_CORR))
                continue;
            a->links.launches++;
            uint64_t rank = e->kind == KS_K_DRIVER ? DRIVER_RANK : 0;
            ks_idindex_add(corr, ks_event_corr(t, e), rank | ks_ref_pack((uint32_t)k, (int32_t)i));
        }
    }
    ks_idindex_build(corr);
}

/* External id -> the CPU op or annotation that carries it as its own id; made once, by the first
 * pass that needs it (ks_analysis_launching_op), while the others that need it then wait: the
 * passes run on several threads (the tables' GPU credit beside the kernels, the diagnoses) */
static void index_ext_ops(const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        const ks_track *tr = &t->tracks[tl->track];
        for (size_t i = 0; i < tl->n; i++) {
            const ks_event *e = &tr->ev[tl->s[i].ev];
            if ((e->kind == KS_K_CPU_OP || e->kind == KS_K_USER_ANNOTATION) && (e->flags & KS_EF_EXT))
                ks_i64map_put(&a->priv->ext_ops, ks_event_ext(t, e), ks_ref_pack((uint32_t)k, (int32_t)i));
        }
    }
}

/* ---- flows (fallback) ---------------------------------------------------------------------- */

typedef struct flow_end {
    ks_ns ts;
    int64_t id;
} flow_end;

static int cmp_flow_end(const void *x, const void *y)
{
    const flow_end *a = x, *b = y;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

typedef struct flows {
    ks_i64map starts;   /* flow id -> packed (track, ts index) of the 's' event */
    flow_end **ends;    /* per track: 'f' events sorted by ts */
    size_t *nends;
    int built;
} flows;

static void flows_build(const ks_analysis *a, flows *f)
{
    const ks_trace *t = a->trace;
    f->built = 1;
    ks_i64map_init(&f->starts);
    f->ends = ks_xcalloc(t->ntracks, sizeof *f->ends);
    f->nends = ks_xcalloc(t->ntracks, sizeof *f->nends);
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        size_t cap = 0;
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (e->kind != KS_K_FLOW_LAUNCH || !(e->flags & KS_EF_CORR))
                continue;
            if (e->ph == 's')
                ks_i64map_put(&f->starts, ks_event_corr(t, e), ks_ref_pack((uint32_t)k, (int32_t)i));
            else if (e->ph == 'f' || e->ph == 't') {
                flow_end fe = {e->ts, ks_event_corr(t, e)};
                KS_PUSH(f->ends[k], f->nends[k], cap, fe);
            }
        }
        if (f->nends[k] > 1)
            qsort(f->ends[k], f->nends[k], sizeof *f->ends[k], cmp_flow_end);
    }
}

static void flows_free(const ks_trace *t, flows *f)
{
    if (!f->built)
        return;
    for (size_t k = 0; k < t->ntracks; k++)
        free(f->ends[k]);
    free(f->ends);
    free(f->nends);
    ks_i64map_free(&f->starts);
}

/* The runtime/driver slice a flow start binds to: the launch call starting at its time, else the
 * innermost slice open then. */
static int32_t bind_start(const ks_analysis *a, const ks_timeline *tl, ks_ns ts)
{
    size_t lo = 0, hi = tl->n;
    KS_LOWER_BOUND(lo, hi, mid, ks_slice_ts_at(tl, mid) < ts);
    for (size_t i = lo; i < tl->n && ks_slice_ts_at(tl, i) == ts; i++)
        if (ks_kind_is_launch_api(tl->s[i].kind))
            return (int32_t)i;
    return ks_timeline_at(a->trace, tl, ts, NULL);
}

static int link_by_flow(const ks_analysis *a, flows *f, uint32_t track, const ks_event *g, ks_slice_ref *out)
{
    if (!f->built)
        flows_build(a, f);
    flow_end *v = f->ends[track];
    size_t n = f->nends[track], lo = 0, hi = n;
    KS_LOWER_BOUND(lo, hi, mid, v[mid].ts < g->ts);
    for (size_t i = lo; i < n && v[i].ts == g->ts; i++) {
        uint64_t *sv = ks_i64map_get(&f->starts, v[i].id);
        if (!sv)
            continue;
        ks_slice_ref se = ks_ref_unpack(*sv);
        const ks_event *s = &a->trace->tracks[se.tl].ev[se.s];
        const ks_timeline *tl = &a->tl[se.tl];
        int32_t b = bind_start(a, tl, s->ts);
        if (b >= 0) {
            out->tl = se.tl;
            out->s = b;
            return 1;
        }
    }
    return 0;
}

/* ---- building ------------------------------------------------------------------------------ */

/* Launch calls that received GPU work: one mark per slice of every CPU timeline, in one array
 * (a trace may have a million one-slice threads: one allocation each cost 40 bytes a thread). */
typedef struct marks {
    uint8_t *v;
    size_t *at;  /* timeline k's marks start at v[at[k]]; NO_MARKS for GPU timelines */
    size_t n;
} marks;

#define NO_MARKS SIZE_MAX

static void marks_init(const ks_analysis *a, marks *m)
{
    const ks_trace *t = a->trace;
    m->at = ks_xmalloc(ks_mul(a->ntl ? a->ntl : 1, sizeof *m->at));
    m->n = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        m->at[k] = t->tracks[a->tl[k].track].kind != KS_TRACK_GPU ? m->n : NO_MARKS;
        if (m->at[k] != NO_MARKS)
            m->n += a->tl[k].n;
    }
    m->v = ks_big_calloc(m->n ? m->n : 1, 1);
}

static void marks_free(marks *m)
{
    ks_big_free(m->v, m->n ? m->n : 1);
    free(m->at);
}

/* The mark of slice s of timeline k (k a CPU timeline). */
static uint8_t *mark(const marks *m, size_t k, size_t s)
{
    return &m->v[m->at[k] + s];
}

void ks_links_build(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    ks_idindex corr;
    ks_idindex_init(&corr);
    index_launches(a, &corr);
    marks used;
    marks_init(a, &used);
    flows f;
    memset(&f, 0, sizeof f);
    /* one launcher per GPU work event, in the order of the GPU work index (gpuwork.c: the GPU work
     * of the GPU tracks, track by track in file order) */
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    a->gpu_launch = ks_xmalloc(ks_mul(gw->n ? gw->n : 1, sizeof *a->gpu_launch));
    for (size_t sk = 0; sk < gw->nstreams; sk++) {
        const ks_gpuwork_stream *str = &gw->streams[sk];
        uint32_t k = str->track;
        size_t cursor = 0; /* a stream's work comes in launch order: ascending correlation ids */
        for (size_t j = str->first; j < str->first + str->n; j++) {
            const ks_event *g = ks_gpuwork_event(t, &gw->v[j]);
            ks_slice_ref r = {0, -1};
            a->gpu_launch[j] = r;
            a->links.gpu_events++;
            const uint64_t *v = (g->flags & KS_EF_CORR) ? ks_idindex_find(&corr, ks_event_corr(t, g), &cursor) : NULL;
            if (v) {
                r = ks_ref_unpack(*v & ~DRIVER_RANK);
                a->links.linked_by_correlation++;
                *mark(&used, r.tl, (size_t)r.s) = 1;
            } else if (link_by_flow(a, &f, k, g, &r)) {
                a->links.linked_by_flow++;
                if (used.at[r.tl] != NO_MARKS)
                    *mark(&used, r.tl, (size_t)r.s) = 1;
            } else {
                a->links.unlinked_gpu++;
                ks_diag_add(&a->diag, "links.gpu_without_launch", KS_SEV_INFO,
                            "%s \"%s\" at %lld ns (correlation %lld) has no CPU launch in the trace",
                            ks_kind_name((ks_kind)g->kind), ks_trace_str(t, g->name), (long long)g->ts,
                            (g->flags & KS_EF_CORR) ? (long long)ks_event_corr(t, g) : -1LL);
                continue;
            }
            a->gpu_launch[j] = r;
        }
    }
    /* launch calls whose GPU work never appeared */
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (tr->kind == KS_TRACK_GPU)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_event *e = &tr->ev[tl->s[i].ev];
            if (!ks_kind_is_launch_api(e->kind) || !(e->flags & KS_EF_CORR) || *mark(&used, k, i))
                continue;
            /* a driver call inside the runtime call that received the work */
            if (e->kind == KS_K_DRIVER && tl->s[i].parent >= 0 && *mark(&used, k, (size_t)tl->s[i].parent))
                continue;
            const char *n = ks_trace_str(t, e->name);
            if (!is_launch_name(n))
                continue;
            if (a->links.gpu_events == 0)
                continue; /* no GPU activity recorded at all: nothing to miss */
            a->links.launches_without_gpu++;
            ks_diag_add(&a->diag, "links.launch_without_gpu", KS_SEV_INFO,
                        "\"%s\" at %lld ns (correlation %lld): its GPU work is not in the trace", n,
                        (long long)e->ts, (long long)ks_event_corr(t, e));
        }
    }
    flows_free(t, &f);
    marks_free(&used);
    ks_idindex_free(&corr);
}

/* The event's place in the GPU work index: its stream (by track, in track order), then the event
 * among the stream's (in file order): two searches by halves. */
ks_slice_ref ks_analysis_launcher(const ks_analysis *a, uint32_t track, size_t i)
{
    ks_slice_ref none = {0, -1};
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    if (!a->gpu_launch)
        return none;
    size_t lo = 0, hi = gw->nstreams;
    KS_LOWER_BOUND(lo, hi, mid, gw->streams[mid].track < track);
    if (lo == gw->nstreams || gw->streams[lo].track != track)
        return none;
    const ks_gpuwork_stream *str = &gw->streams[lo];
    lo = str->first;
    hi = str->first + str->n;
    KS_LOWER_BOUND(lo, hi, mid, gw->v[mid].ev < i);
    return lo < str->first + str->n && gw->v[lo].ev == i ? a->gpu_launch[lo] : none;
}

int32_t ks_analysis_launching_op(const ks_analysis *a, ks_slice_ref r)
{
    if (r.s < 0)
        return -1;
    const ks_timeline *tl = &a->tl[r.tl];
    const ks_track *tr = &a->trace->tracks[tl->track];
    /* the innermost operator or label (cpu_op, user_annotation, their legacy names): Python frames
     * (with_stack) and runtime/driver calls between it and the launch are skipped, as TraceLens
     * does; they get the work as subtree time only */
    int32_t i = r.s;
    while (i >= 0 && !ks_kind_launches_directly(tl->s[i].kind))
        i = tl->s[i].parent;
    if (i >= 0)
        return i;
    /* no enclosing op (e.g. the call started a little before its op and spilled): the External id
     * names the op that issued it */
    const ks_event *e = &tr->ev[tl->s[r.s].ev];
    if (e->flags & KS_EF_EXT) {
        if (!atomic_load_explicit(&a->priv->ext_ops_built, memory_order_acquire)) {
            pthread_mutex_lock(&a->priv->ext_ops_mu);
            if (!atomic_load_explicit(&a->priv->ext_ops_built, memory_order_relaxed)) {
                index_ext_ops(a);
                atomic_store_explicit(&a->priv->ext_ops_built, 1, memory_order_release);
            }
            pthread_mutex_unlock(&a->priv->ext_ops_mu);
        }
        uint64_t *v = ks_i64map_get(&a->priv->ext_ops, ks_event_ext(a->trace, e));
        if (v) {
            ks_slice_ref o = ks_ref_unpack(*v);
            if (o.tl == r.tl)
                return o.s;
        }
    }
    return -1;
}
