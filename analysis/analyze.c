/* analysis/analyze.c: runs the analysis passes over one trace, in order: timelines (every track),
 * CPU->GPU links, per-device GPU unions, aggregate tables, the memory pass; and turns what they found into
 * diagnostics. One ks_analysis feeds every report writer. */
#include <stdlib.h>
#include <string.h>

#include "algo/pool.h"
#include "analysis/analysis_int.h"
#include "analysis/timeline.h"
#include "common/hugemem.h"
#include "common/util.h"
#include "kinesift/timings.h"

static void overlap_class(ks_analysis *a, const ks_timeline_stats *st, int cls, const char *id,
                          ks_severity sev, const char *what)
{
    const ks_trace *t = a->trace;
    if (!st->count[cls])
        return;
    ks_diag_count(&a->diag, id, sev, st->count[cls] - st->nworst[cls]);
    for (size_t i = 0; i < st->nworst[cls]; i++) {
        const ks_overlap_example *x = &st->worst[cls][i];
        char tid[64];
        ks_id_format(t->strings, t->tracks[x->track].tid, tid, sizeof tid);
        ks_diag_add(&a->diag, id, sev, "tid %s: \"%s\" [%s] [%lld, %lld) outlives \"%s\" [%lld, %lld) by %lld ns: %s",
                    tid, ks_trace_str(t, x->name), ks_trace_cat_name(t, x->cat), (long long)x->ts,
                    (long long)x->end, ks_trace_str(t, x->parent_name), (long long)x->parent_ts,
                    (long long)x->parent_end, (long long)x->excess, what);
    }
}

static void overlap_diagnostics(ks_analysis *a, const ks_timeline_stats *st, const ks_analysis_opts *o)
{
    const char *what = o->overlap == KS_OVERLAP_DROP ? "dropped" : o->overlap == KS_OVERLAP_TRUNCATE ? "truncated"
                     : o->overlap == KS_OVERLAP_CLAMP ? "clamped or moved to an overflow lane" : "moved to an overflow lane";
    overlap_class(a, st, KS_OV_CPU, "timeline.partial_overlap", KS_SEV_WARNING, what);
    overlap_class(a, st, KS_OV_GPU, "timeline.gpu_overlap", KS_SEV_INFO, what);
    overlap_class(a, st, KS_OV_PYTHON, "timeline.python_frame_cut", KS_SEV_INFO,
                  "the Python frame was cut at the slice's start");
    if (st->ncats) {
        a->overlaps = ks_xmalloc(ks_mul(st->ncats, sizeof *a->overlaps));
        memcpy(a->overlaps, st->cats, st->ncats * sizeof *a->overlaps);
        a->noverlaps = st->ncats;
    }
}

/* What the overlap policy did to self times, over all tracks (docs/analysis.md, "Self and
 * inclusive time"): one line in the text report, the same figures in JSON (self_time). */
static void self_time_diagnostic(ks_analysis *a)
{
    ks_ns re = 0, clipped = 0, dropped_ns = 0;
    uint64_t dropped = 0;
    uint32_t lanes = 1;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_timeline_overlaps *ov = ks_timeline_overlaps_of(tl);
        re = ks_sat_add(re, ov->reassigned_ns);
        clipped = ks_sat_add(clipped, ov->clipped_ns);
        dropped += ov->dropped;
        dropped_ns = ks_sat_add(dropped_ns, ov->dropped_ns);
        if (tl->nlanes > lanes)
            lanes = tl->nlanes;
    }
    if (!re && !clipped && !dropped)
        return;
    ks_diag_add(&a->diag, "timeline.self_time", KS_SEV_INFO,
                "each ns of a track is one slice's self time: %lld ns that slices in overflow lanes (at most %u "
                "lanes on a track) share with lower lanes were re-assigned to the lower lane; %lld ns cut off "
                "truncated slices; %llu slices (%lld ns) dropped",
                (long long)re, (unsigned)lanes, (long long)clipped, (unsigned long long)dropped,
                (long long)dropped_ns);
}

static void free_tables(ks_analysis *a)
{
    free(a->ops);
    free(a->labels);
    free(a->kernels);
    free(a->gpu);
    ks_device_activity_free(a);
    if (a->priv)
        ks_shapes_memo_free(a);
    a->ops = a->labels = NULL;
    a->kernels = NULL;
    a->gpu = NULL;
    a->nops = a->nlabels = a->nkernels = a->ngpu = 0;
    a->gpu_reason = NULL;
}

/* ---- the passes, on one thread or several --------------------------------------------------- */

/* Tracks of fewer events than this take their slices from one array for all of them (a trace may
 * hold a million one-event tracks: an allocation each would cost its header and a call); the
 * others get an array of their own, sized to their events and given back down to their slices. */
#define SMALL_TRACK 4096

/* Point the timeline of every small track at its room in one array: as many slices as the track
 * has events, since an event makes one slice at most (ks_timeline_build). The slack of a track
 * (events that are no slice: instants, flows) lies at the end of its room. */
static void small_tracks_room(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    size_t n = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (t->tracks[k].n < SMALL_TRACK)
            n += t->tracks[k].n;
    if (!n)
        return;
    a->priv->room = ks_xmalloc_big(ks_mul(n, sizeof *a->priv->room));
    a->priv->room_n = n;
    size_t at = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        size_t m = t->tracks[k].n;
        if (m && m < SMALL_TRACK) {
            a->tl[k].s = a->priv->room + at;
            at += m;
        }
    }
}

static int in_room(const struct ks_analysis_priv *p, const ks_slice *s)
{
    uintptr_t v = (uintptr_t)s, b = (uintptr_t)p->room;
    return p->room && v >= b && v < b + p->room_n * sizeof *p->room;
}

/* Below this many events the passes run on the calling thread unless threads were asked for:
 * starting threads would cost more than they save. Measured (docs/performance.md,
 * "Threads"): the passes after parsing on two threads against one, 15 runs each, took +16 %
 * at 8 500 events and +4 % at 16 000, then -20 % at 25 000 and -13 % at 69 000 and 76 000. */
#define PARALLEL_MIN_EVENTS 20000

/* What one track's timeline found, when tracks are built in parallel (NULL when nothing). */
typedef struct track_found {
    ks_timeline_stats st;
    ks_diag diag;
} track_found;

typedef struct build_ctx {
    ks_analysis *a;
    const ks_analysis_opts *o;
    ks_ns trace_end;
    uint32_t *order;        /* the tracks, most events first */
    track_found **found;    /* per track */
    ks_agg *agg;
} build_ctx;

static void build_track(build_ctx *c, uint32_t k)
{
    ks_timeline_stats st;
    ks_diag d;
    memset(&st, 0, sizeof st);
    ks_diag_init(&d);
    ks_timeline_build(c->a->trace, k, c->o, c->trace_end, &c->a->tl[k], &d, &st);
    if (ks_timeline_stats_empty(&st) && !d.n)
        return;
    track_found *f = ks_xmalloc(sizeof *f);
    f->st = st;
    f->diag = d;
    c->found[k] = f;
}

/* phase 1: every track's timeline (longest first), and the GPU unions, which need no timeline */
static void phase_timelines(void *ctx, size_t i)
{
    build_ctx *c = ctx;
    if (i < c->a->ntl)
        build_track(c, c->order[i]);
    else
        ks_gpu_build(c->a);
}

/* The links, and which GPU events are communication (which needs them: comm.c). */
static void links_build(ks_analysis *a)
{
    ks_links_build(a);
    ks_comm_mark(a);
}

/* phase 2: links beside the CPU pass of the tables */
static void phase_links(void *ctx, size_t i)
{
    build_ctx *c = ctx;
    if (i == 0)
        links_build(c->a);
    else
        ks_aggregate_cpu(c->agg);
}

/* phase 3: GPU time of the rows beside the kernel table */
static void phase_gpu_time(void *ctx, size_t i)
{
    build_ctx *c = ctx;
    if (i == 0)
        ks_aggregate_gpu(c->agg);
    else
        ks_kernels_build(c->a);
}

/* a new window: the GPU unions beside the CPU pass of the tables */
static void phase_window(void *ctx, size_t i)
{
    build_ctx *c = ctx;
    if (i == 0)
        ks_gpu_build(c->a);
    else
        ks_aggregate_cpu(c->agg);
}

static int cmp_track_size(const void *x, const void *y, void *ctx)
{
    const ks_trace *t = ctx;
    uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;
    size_t np = t->tracks[p].n, nq = t->tracks[q].n;
    if (np != nq)
        return np > nq ? -1 : 1;
    return (p > q) - (p < q);
}

/* Append what src counted to dst, as if it had been counted in dst after what dst holds. */
static void diag_append(ks_diag *dst, const ks_diag *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const ks_diag_kind *k = &src->kinds[i];
        ks_diag_count(dst, k->id, k->severity, k->count - k->nexamples);
        for (size_t j = 0; j < k->nexamples; j++)
            ks_diag_add(dst, k->id, k->severity, "%s", k->ex[j].text);
    }
}

/* The timelines of every track, then what they found merged in track order: the same statistics,
 * examples and diagnostics, in the same order, as building them one after the other. */
static void build_parallel(build_ctx *c, ks_timeline_stats *st, int threads)
{
    ks_analysis *a = c->a;
    c->order = ks_xmalloc(ks_mul(a->ntl ? a->ntl : 1, sizeof *c->order));
    c->found = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *c->found);
    for (size_t k = 0; k < a->ntl; k++)
        c->order[k] = (uint32_t)k;
    qsort_r(c->order, a->ntl, sizeof *c->order, cmp_track_size, (void *)a->trace);
    ks_pool_run(a->ntl + 1, threads, phase_timelines, c);
    for (size_t k = 0; k < a->ntl; k++) {
        track_found *f = c->found[k];
        if (!f)
            continue;
        diag_append(&a->diag, &f->diag);
        ks_timeline_stats_merge(st, &f->st);
        ks_diag_free(&f->diag);
        free(f->st.cats);
        free(f);
    }
    free(c->found);
    free(c->order);
}

int ks_analyze(const ks_trace *t, const ks_analysis_opts *opts, ks_analysis **out, ks_error *err)
{
    ks_analysis_opts defaults;
    if (!opts) {
        ks_analysis_opts_init(&defaults);
        opts = &defaults;
    }
    *out = NULL;
    ks_ns first = 0, last = 0;
    int any = ks_trace_span(t, &first, &last);
    if (opts->has_window && opts->window_end <= opts->window_start)
        return ks_error_set(err, "empty window: end (%lld ns) is not after start (%lld ns)",
                            (long long)opts->window_end, (long long)opts->window_start);
    ks_analysis *a = ks_xcalloc(1, sizeof *a);
    a->priv = ks_xcalloc(1, sizeof *a->priv);
    ks_i64map_init(&a->priv->ext_ops);
    pthread_mutex_init(&a->priv->ext_ops_mu, NULL);
    atomic_init(&a->priv->ext_ops_built, 0);
    /* automatic: small traces stay on this thread; a number asked for is used as given */
    a->priv->threads = opts->threads > 0 ? ks_pool_threads(opts->threads)
                     : t->events < PARALLEL_MIN_EVENTS ? 1 : ks_pool_threads(0);
    ks_diag_init(&a->diag);
    a->trace = t;
    a->has_events = any;
    ks_class_memo_init(a);
    ks_timings *tm = a->priv->timings = opts->timings;
    int64_t t0 = ks_timings_start(tm);
    ks_gpuwork_build(t, &a->priv->gpuwork);
    t0 = ks_timings_stop(tm, "analysis: GPU work index", t0, 0);
    if (opts->has_window) {
        a->has_window = 1;
        a->win_start = opts->window_start;
        a->win_end = opts->window_end;
        a->window_ns = ks_sat_sub(a->win_end, a->win_start);
        a->win_last = a->win_end;
        a->window_basis = "window";
    } else {
        /* the whole trace; +1 so that a zero-length event at the very end still starts inside
         * (saturated: a span of extreme timestamps does not fit int64 ns) */
        a->win_start = first;
        a->win_end = ks_sat_add(last, 1);
        a->window_ns = ks_sat_sub(last, first);
        a->win_last = last;
        a->window_basis = "trace";
    }
    a->ntl = t->ntracks;
    a->tl = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *a->tl);
    small_tracks_room(a);
    ks_timeline_stats st;
    memset(&st, 0, sizeof st);
    build_ctx c = {a, opts, last, NULL, NULL, NULL};
    int threads = a->priv->threads;
    if (threads > 1) {
        build_parallel(&c, &st, threads);
    } else {
        for (size_t k = 0; k < t->ntracks; k++)
            ks_timeline_build(t, (uint32_t)k, opts, last, &a->tl[k], &a->diag, &st);
    }
    overlap_diagnostics(a, &st, opts);
    self_time_diagnostic(a);
    if (st.duplicates)
        ks_diag_count(&a->diag, "timeline.exact_duplicates", KS_SEV_INFO, st.duplicates);
    free(st.cats);
    t0 = ks_timings_stop(tm, threads > 1 ? "analysis: timelines | GPU unions" : "analysis: timelines", t0, 0);
    if (opts->tables_later) {
        links_build(a);
        t0 = ks_timings_stop(tm, "analysis: links", t0, 0);
        if (threads <= 1) {
            ks_gpu_build(a);
            t0 = ks_timings_stop(tm, "analysis: GPU unions", t0, 0);
        }
    } else if (threads > 1) {
        a->priv->tables_made = 1;
        c.agg = ks_aggregate_begin(a);
        ks_pool_run(2, threads, phase_links, &c);
        t0 = ks_timings_stop(tm, "analysis: links | CPU tables", t0, 0);
        ks_pool_run(2, threads, phase_gpu_time, &c);
        ks_aggregate_end(c.agg);
        t0 = ks_timings_stop(tm, "analysis: GPU time of rows | kernels", t0, 0);
    } else {
        a->priv->tables_made = 1;
        links_build(a);
        t0 = ks_timings_stop(tm, "analysis: links", t0, 0);
        ks_gpu_build(a);
        t0 = ks_timings_stop(tm, "analysis: GPU unions", t0, 0);
        ks_aggregate_build(a);
        t0 = ks_timings_stop(tm, "analysis: tables", t0, 0);
    }
    ks_gpu_comm(a);
    ks_calls_count(a);
    t0 = ks_timings_stop(tm, "analysis: communication, calls", t0, 0);
    a->memory = ks_memory_build(t, a->tl, a->ntl);
    ks_timings_stop(tm, "analysis: memory", t0, 0);
    *out = a;
    return KS_OK;
}

/* The tables over the window set in a, the GPU unions again (they are per window) beside them. */
static void make_tables(ks_analysis *a)
{
    if (a->priv->threads > 1) {
        build_ctx c = {a, NULL, 0, NULL, NULL, ks_aggregate_begin(a)};
        ks_pool_run(2, a->priv->threads, phase_window, &c);
        ks_pool_run(2, a->priv->threads, phase_gpu_time, &c);
        ks_aggregate_end(c.agg);
    } else {
        ks_gpu_build(a);
        ks_aggregate_build(a);
    }
    ks_gpu_comm(a);
    a->priv->tables_made = 1;
}

/* Free the tables and restrict the analysis to [start, end). */
static int set_window(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err)
{
    if (end <= start)
        return ks_error_set(err, "empty window: end (%lld ns) is not after start (%lld ns)", (long long)end,
                            (long long)start);
    free_tables(a);
    a->priv->tables_made = 0;
    a->has_window = 1;
    a->win_start = start;
    a->win_end = end;
    a->window_ns = ks_sat_sub(end, start);
    a->win_last = end;
    a->window_basis = "window";
    a->window_why[0] = 0;
    return KS_OK;
}

int ks_analysis_set_window(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err)
{
    ks_timings *tm = a->priv->timings;
    int64_t t0 = ks_timings_start(tm);
    int again = a->priv->tables_made;
    if (set_window(a, start, end, err) != KS_OK)
        return KS_ERR;
    make_tables(a);
    ks_timings_stop(tm, again ? "analysis: window (tables again)" : "analysis: window, tables", t0, 0);
    return KS_OK;
}

int ks_analysis_set_window_unions(ks_analysis *a, ks_ns start, ks_ns end, ks_error *err)
{
    int64_t t0 = ks_timings_start(a->priv->timings);
    if (set_window(a, start, end, err) != KS_OK)
        return KS_ERR;
    ks_gpu_build(a);
    ks_gpu_comm(a);
    ks_timings_stop(a->priv->timings, "analysis: window, GPU unions", t0, 0);
    return KS_OK;
}

int ks_analysis_threads(const ks_analysis *a)
{
    return a->priv->threads;
}

void ks_analysis_tables_untimed(ks_analysis *a)
{
    if (a->priv->tables_made)
        return;
    if (a->priv->threads > 1) {
        build_ctx c = {a, NULL, 0, NULL, NULL, ks_aggregate_begin(a)};
        ks_aggregate_cpu(c.agg);
        ks_pool_run(2, a->priv->threads, phase_gpu_time, &c);
        ks_aggregate_end(c.agg);
    } else {
        ks_aggregate_build(a);
    }
    a->priv->tables_made = 1;
}

/* the tables of the window ks_analyze (or ks_analysis_set_window_unions) made the GPU unions for:
 * those are kept */
void ks_analysis_tables(ks_analysis *a)
{
    if (a->priv->tables_made)
        return;
    int64_t t0 = ks_timings_start(a->priv->timings);
    ks_analysis_tables_untimed(a);
    ks_timings_stop(a->priv->timings, "analysis: tables", t0, 0);
}

void ks_analysis_free(ks_analysis *a)
{
    if (!a)
        return;
    for (size_t k = 0; k < a->ntl; k++) {
        if (a->priv && in_room(a->priv, a->tl[k].s))
            a->tl[k].s = NULL; /* freed with the room */
        ks_timeline_free(&a->tl[k]);
    }
    free(a->gpu_launch);
    free(a->tl);
    free_tables(a);
    free(a->overlaps);
    ks_memory_free(a->memory);
    ks_diag_free(&a->diag);
    if (a->priv) {
        ks_comm_marks_free(a);
        ks_class_memo_free(a);
        free(a->priv->room);
        ks_i64map_free(&a->priv->ext_ops);
        pthread_mutex_destroy(&a->priv->ext_ops_mu);
        ks_gpuwork_free(&a->priv->gpuwork);
        free(a->priv);
    }
    free(a);
}
