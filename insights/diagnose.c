/* insights/diagnose.c: observations turned into hypotheses. Each diagnosis states what might be
 * going on, the evidence (numbers, affected steps), a confidence, the next check that would confirm
 * it and what would refute it; where a built-in `kinesift validate` pair reproduces the pattern, the
 * matching command with sizes taken from the trace. Nothing here is stated as a fact.
 *
 * Impact first: each diagnosis carries the most step time it could save (impact_ns), an upper bound
 * computed from the data inside one denominator: the active steps (their union), else the GPU
 * span (first to last GPU work, all devices), else the window. The table below says, per kind, how
 * the bound is computed. Diagnoses are ranked by it; those under the floor (default 1 % of the
 * denominator) are counted, not listed, unless asked for. Caveats (warnings about the capture or
 * about what a figure means) claim no saving: impact -1, never hidden, listed last.
 * Cross-checks: a diagnosis about GPU idle time needs the GPU idle (sync_in_loop measures the
 * idle time after the blocking calls, small_launches the idle time of the scope and leaves out
 * graph launches); GPU diagnoses need at least KS_DX_MIN_GPU_NS of GPU work in the scope.
 * The checks only read the analysis: with the analysis's threads they run side by side, each into
 * its own list, merged in one fixed order (run_checks), so the result never depends on threads.
 * Used by cli/insights.c (analyze, report, annotate) and by the tests. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/intervals.h"
#include "analysis/gpuwork_index.h"
#include "analysis/passes.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"
#include "algo/pool.h"
#include "analysis/timeline.h"
#include "common/util.h"
#include "insights/diagnose_int.h"
#include "insights/insights_int.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"

/* Every kind: its id, whether it is a caveat, and how its impact is computed (JSON
 * impact_basis, docs/insights.md). */
#define KS_DX_KINDS(X)                                                                                   \
    X(INPUT, "input_pipeline", 0, "GPU idle time spent while the launching thread was inside data-loading ranges (window), at most the denominator") \
    X(PROLOGUE, "cpu_before_gpu", 0, "GPU idle time from each active step's start to its first GPU work, inside the denominator") \
    X(UPLOAD, "repeated_upload", 0, "GPU time of the recurring copies inside the denominator") \
    X(SMALL, "small_launches", 0, "the smaller of the GPU idle time and the launch calls' time of the short non-graph kernels, inside the denominator") \
    X(SYNC, "sync_in_loop", 0, "the smaller of the GPU idle time from the end of each blocking call to the next GPU work (inside the GPU span and the denominator) and the time the calls waited on a busy GPU") \
    X(PAGEABLE, "pageable_copy", 0, "GPU time of the pageable copies inside the denominator") \
    X(OP, "dominant_op", 0, "self time of the operator inside the denominator") \
    X(KERNEL, "dominant_kernel", 0, "GPU time of the kernel inside the denominator") \
    X(COMM, "exposed_communication", 0, "exposed communication time of the device (window), at most the denominator") \
    X(HOST, "host_bound", 0, "GPU idle time whose next work was launched after the GPU went idle (HTA host wait, window), less the part in blocking calls and in data loading (input_pipeline's), at most the denominator") \
    X(OVERHEAD, "profiler_overhead", 0, "time of the profiler's own overhead events inside the denominator") \
    X(INIT, "init_in_capture", 1, "caveat: no saving claimed") \
    X(CAPTURE, "graph_capture", 1, "caveat: no saving claimed") \
    X(RANGE, "profiler_range", 1, "caveat: no saving claimed") \
    X(WAIT, "unexplained_wait", 1, "caveat: no saving claimed") \
    X(BUSY, "busy_is_not_efficiency", 1, "caveat: no saving claimed")

enum {
#define KS_DX_ENUM(e, id, caveat, basis) DX_##e,
    KS_DX_KINDS(KS_DX_ENUM)
#undef KS_DX_ENUM
    DX_COUNT
};

static const ks_dx_kind dx_kinds[DX_COUNT] = {
#define KS_DX_ROW(e, id, caveat, basis) {id, caveat, basis},
    KS_DX_KINDS(KS_DX_ROW)
#undef KS_DX_ROW
};

/* What every diagnosis looks at (insights/diagnose_int.h). */
typedef ks_dx_ctx dctx;

static const char *dur(char *b, size_t n, ks_ns v)
{
    ks_fmt_ns(b, n, v);
    return b;
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

static ks_diagnosis *add(ks_diagnoses *d, int kind, const char *confidence, ks_ns impact)
{
    return ks_dx_add(d, &dx_kinds[kind], confidence, impact);
}

/* the active step containing t, or NULL */
static const ks_step *step_at(const ks_steps *st, ks_ns t)
{
    for (size_t i = 0; st && i < st->n; i++)
        if (t >= st->v[i].start && t < st->v[i].end)
            return &st->v[i];
    return NULL;
}

static int active(const ks_step *s)
{
    return s && ks_step_active(s);
}

static int in_window(const ks_analysis *a, ks_ns t)
{
    return t >= a->win_start && t < a->win_end;
}

static ks_ns cap(ks_ns v, ks_ns most)
{
    return v < most ? v : most;
}

/* the path's kinds that are a thread's own time (its work, its waits, its blocking calls' return),
 * and the GPU's */
#define CP_THREAD ((1u << KS_CP_CPU) | (1u << KS_CP_SYNC) | (1u << KS_CP_THREAD_WAIT) | (1u << KS_CP_UNMODELED))
#define CP_GPU (1u << KS_CP_GPU)

/* cudaStreamBeginCapture / hipStreamBeginCapture calls of the whole trace: a name of the string
 * table looked at once, the events only when one is such a call */
static uint64_t begin_captures(const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    size_t names = ks_strtab_count(t->strings);
    uint8_t *is = ks_xcalloc(names ? names : 1, 1);
    int any = 0;
    for (size_t i = 1; i < names; i++) {
        const char *nm = ks_trace_str(t, (ks_str)i);
        if (nm && (!strncmp(nm, "cudaStreamBeginCapture", 22) || !strncmp(nm, "hipStreamBeginCapture", 21)))
            is[i] = 1, any = 1;
    }
    uint64_t n = 0;
    const ks_track *tr;
    for (size_t k = 0; any && (tr = ks_track_next(t, KS_TRACK_CPU, &k)); k++) {
        for (size_t i = 0; i < tr->n; i++)
            n += tr->ev[i].name < names && is[tr->ev[i].name] && ks_kind_is_launch_api(tr->ev[i].kind);
    }
    free(is);
    return n;
}

static void dctx_init(dctx *c, const ks_analysis *a, const ks_steps *st, const ks_gaps *g, const ks_critpath *cp)
{
    memset(c, 0, sizeof *c);
    c->a = a;
    c->st = st;
    c->g = g;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_ivs_reserve(&c->gpu, gw->n ? gw->n : 1);
    for (size_t j = 0; j < gw->n; j++) {
        ks_ns s, e;
        if (ks_gpuwork_clip(a, &gw->v[j], &s, &e))
            ks_ivs_add(&c->gpu, s, e);
    }
    ks_ivs_normalize(&c->gpu);
    if (st && st->nactive) {
        for (size_t i = 0; i < st->n; i++)
            if (active(&st->v[i]))
                ks_ivs_add(&c->scope, st->v[i].start, st->v[i].end);
        c->denom_name = "active steps";
    } else if (c->gpu.n) {
        ks_ivs_add(&c->scope, c->gpu.v[0].a, c->gpu.v[c->gpu.n - 1].b);
        c->denom_name = "GPU span";
    } else {
        ks_ivs_add(&c->scope, a->win_start, ks_sat_add(a->win_start, a->window_ns));
        /* the default window names itself (insights/window.c); an asked-for one is "window" */
        int named = a->window_basis && (!strcmp(a->window_basis, "CPU span") || !strcmp(a->window_basis, "device span"));
        c->denom_name = named ? a->window_basis : "window";
    }
    ks_ivs_normalize(&c->scope);
    c->denom = ks_ivs_length(&c->scope);
    ks_ivs both = {0};
    ks_ivs_intersect(&c->scope, &c->gpu, &both);
    c->gpu_busy = ks_ivs_length(&both);
    ks_ivs_free(&both);
    c->gpu_idle = c->gpu.n ? ks_sat_sub(c->denom, c->gpu_busy) : 0;
    c->gpu_enough = c->gpu_busy >= KS_DX_MIN_GPU_NS;
    c->begin_captures = begin_captures(a);
    ks_dx_path_init(c, cp);
}

static void dctx_free(dctx *c)
{
    ks_ivs_free(&c->scope);
    ks_ivs_free(&c->gpu);
    ks_dx_path_free(c);
}

/* ---- GPU idle while loading input ---------------------------------------------------------- */

static void input_pipeline(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_gaps *g = c->g;
    const ks_steps *st = c->st;
    ks_ns data = 0, idle = 0;
    for (size_t i = 0; i < g->n; i++) {
        data = ks_sat_add(data, g->dev[i].data_loading_ns);
        idle = ks_sat_add(idle, g->dev[i].idle_ns);
    }
    if (!data || data < idle / 10 || data < a->window_ns / 50)
        return;
    double share = (double)data / (double)idle;
    ks_diagnosis *x = add(out, DX_INPUT, share >= 0.5 ? "high" : share >= 0.25 ? "medium" : "low", cap(data, c->denom));
    char b1[32], b2[32], b3[96];
    ks_buf names = {0};
    const ks_trace *t = a->trace;
    for (size_t i = 0, shown = 0; i < g->n && shown < 3; i++)
        for (size_t j = 0; j < g->dev[i].nby_label && shown < 3; j++)
            if (g->dev[i].by_label[j].name && g->dev[i].by_label[j].data) {
                ks_buf_printf(&names, "%s\"%s\" (%s)", shown ? ", " : "", ks_trace_str(t, g->dev[i].by_label[j].name),
                              dur(b2, sizeof b2, g->dev[i].by_label[j].total_ns));
                shown++;
            }
    x->hypothesis = ks_xasprintf("The input pipeline may be starving the GPU: it waits while the CPU thread that "
                           "feeds it is loading data.");
    x->evidence = ks_xasprintf("GPU idle for %s while the launching thread was inside data-loading ranges: %.0f%% of "
                         "all GPU idle time (%s of idle in the window), %s. Data-loading labels during the gaps: %s.",
                         dur(b1, sizeof b1, data), 100.0 * share, dur(b2, sizeof b2, idle),
                         ks_dx_share(b3, sizeof b3, c, data), names.n ? ks_buf_cstr(&names) : "none");
    x->next_check = ks_xasprintf("Run the same compute on batches prepared in advance (load a few batches once, keep "
                           "them on the GPU and loop over them) and compare the step time.");
    x->refuted_if = ks_xasprintf("steps on prepared batches take as long as now, or the GPU stays idle as long.");
    ks_buf_free(&names);
    /* the item: the gap time the launching thread spent loading data (any thread's path there:
     * the spans are the launching thread's, and the path may run on another thread that waited
     * for it) */
    ks_dx_item pit = {0};
    pit.kinds = CP_THREAD;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->dev[i].ndata_spans; j++)
            ks_dx_item_add(&pit, g->dev[i].data_spans[2 * j], g->dev[i].data_spans[2 * j + 1], UINT32_MAX);
    ks_dx_on_path(c, x, &pit);
    for (size_t i = 0; st && i < st->n; i++)
        if (active(&st->v[i]) && st->v[i].idle_ns > st->v[i].wall_ns / 10)
            ks_dx_add_step(x, st->v[i].number);
}

/* ---- CPU work before a step's first GPU work ------------------------------------------------ */

typedef struct named_time {
    ks_str name;
    ks_ns ns;
} named_time;

static int cmp_named_time(const void *x, const void *y)
{
    const named_time *a = x, *b = y;
    if (a->ns != b->ns)
        return a->ns < b->ns ? 1 : -1;
    return a->name < b->name ? -1 : a->name > b->name;
}

/* The GPU idle at the start of each active step, from the step's start (or the end of GPU work
 * still running from before it) to its first GPU work, while the CPU prepares it: preprocessing,
 * tokenisation, host-side setup. A step counts when that phase is followed by at least two pieces
 * of GPU work and is at least twice the longest idle gap between them: one CPU phase, then the
 * GPU work (idle spread over the whole step is host_bound's). The gaps whose cause is data
 * loading are input_pipeline's and left out, so that the two never claim the same time. */
static void cpu_before_gpu(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    if (!st || !st->nactive || !c->gpu.n || !c->gpu_enough)
        return;
    ks_ivs pro = {0}, data = {0};
    ks_ns longest = 0;
    int64_t longest_step = 0;
    size_t nstep = 0, nwith = 0;
    double share_sum = 0;
    for (size_t k = 0; k < st->n; k++) {
        const ks_step *sp = &st->v[k];
        if (!active(sp))
            continue;
        nstep++;
        ks_ns p0 = sp->host_start;
        size_t i = ks_ivs_first_ending_after(&c->gpu, p0);
        if (i < c->gpu.n && c->gpu.v[i].a <= p0) /* the GPU still runs earlier work */
            p0 = c->gpu.v[i].b, i++;
        if (i >= c->gpu.n)
            continue;
        ks_ns p1 = c->gpu.v[i].a;
        if (p1 <= p0 || p1 >= sp->end)
            continue;
        /* a CPU phase, then the step's GPU work: at least two pieces of GPU work follow in the
         * step, and the phase is at least twice the longest idle gap between them (a step of one
         * kernel, or idle spread over the whole step, is host_bound's pattern) */
        size_t pieces = 0;
        ks_ns widest = 0, len = ks_sat_sub(p1, p0); /* (saturated: extreme timestamps) */
        for (size_t j = i; j < c->gpu.n && c->gpu.v[j].a < sp->end; j++) {
            pieces++;
            ks_ns gap = j > i ? ks_sat_sub(c->gpu.v[j].a, c->gpu.v[j - 1].b) : 0;
            widest = gap > widest ? gap : widest;
        }
        if (pieces < 2 || len / 2 < widest) /* len < 2 * widest, without its overflow */
            continue;
        ks_ivs_add(&pro, p0, p1);
        nwith++;
        share_sum += sp->wall_ns > 0 ? (double)len / (double)sp->wall_ns : 0;
        if (len > longest)
            longest = len, longest_step = sp->number;
    }
    for (size_t i = 0; c->g && i < c->g->n; i++)
        for (size_t j = 0; c->g->dev[i].all && j < c->g->dev[i].count; j++)
            if (c->g->dev[i].all[j].data)
                ks_ivs_add(&data, c->g->dev[i].all[j].start, c->g->dev[i].all[j].end);
    ks_ivs_normalize(&pro);
    ks_ivs_normalize(&data);
    ks_ivs left = {0}, in = {0};
    ks_ivs_subtract(&pro, &data, &left);
    ks_ivs_intersect(&left, &c->scope, &in);
    ks_ns impact = cap(ks_ivs_length(&in), c->gpu_idle), loading = ks_ivs_length(&pro) - ks_ivs_length(&left);
    ks_ivs_free(&data);
    ks_ivs_free(&left);
    /* the item: that phase, on the stepping thread */
    ks_dx_item pit = {0};
    pit.kinds = CP_THREAD;
    for (size_t k = 0; k < in.n; k++)
        ks_dx_item_add(&pit, in.v[k].a, in.v[k].b, st->track);
    ks_ivs_free(&in);
    if (!impact || !ks_mul_ge(impact, 20, c->denom, 1)) {
        ks_ivs_free(&pro);
        free(pit.v);
        return;
    }
    /* what the stepping thread ran then: its outermost slices (under the step's annotation) */
    const ks_trace *t = a->trace;
    named_time *v = NULL;
    size_t n = 0, vcap = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        if (tl->track != st->track)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *sl = &tl->s[i];
            const ks_event *e = &t->tracks[tl->track].ev[sl->ev];
            int outer = sl->parent < 0 ? strncmp(ks_trace_str(t, e->name), "ProfilerStep#", 13) != 0
                                       : tl->s[sl->parent].parent < 0 &&
                                             !strncmp(ks_trace_str(t, t->tracks[tl->track].ev[tl->s[sl->parent].ev].name),
                                                      "ProfilerStep#", 13);
            if (!outer)
                continue;
            ks_ns in_pro = ks_ivs_covered(&pro, ks_slice_ts(tl, sl), ks_slice_end(tl, sl));
            if (!in_pro)
                continue;
            size_t j = 0;
            while (j < n && v[j].name != e->name)
                j++;
            if (j == n) {
                named_time nt = {e->name, 0};
                KS_PUSH(v, n, vcap, nt);
            }
            v[j].ns = ks_sat_add(v[j].ns, in_pro);
        }
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_named_time);
    ks_buf what = {0};
    char b1[32], b2[32], b3[32], b4[96];
    for (size_t j = 0; j < n && j < 3; j++) {
        char prev[72];
        const char *nm = ks_trace_str(t, v[j].name);
        ks_fmt_preview(prev, sizeof prev, nm, strlen(nm), 60);
        ks_buf_printf(&what, "%s%s (%s)", j ? ", " : "", prev, dur(b1, sizeof b1, v[j].ns));
    }
    free(v);
    ks_ivs_free(&pro);
    ks_diagnosis *x = add(out, DX_PROLOGUE, ks_dx_confidence(c, impact), impact);
    x->hypothesis = ks_xasprintf("Each step may begin with CPU work before its first GPU work (preprocessing, "
                           "tokenisation, host-side setup): the GPU idles until the CPU has prepared the step.");
    x->evidence = ks_xasprintf("In %zu of %zu active steps the GPU idles from the step's start to its first GPU work, "
                         "%.0f%% of the step on average, at most %s (step %lld); %s of it outside data loading "
                         "(%s while loading data is input_pipeline's), %s. The stepping thread then: %s.",
                         nwith, nstep, nwith ? 100.0 * share_sum / (double)nwith : 0.0, dur(b2, sizeof b2, longest),
                         (long long)longest_step, dur(b3, sizeof b3, impact), dur(b1, sizeof b1, loading),
                         ks_dx_share(b4, sizeof b4, c, impact), what.n ? ks_buf_cstr(&what) : "no slice recorded");
    x->next_check = ks_xasprintf("Move that work off the step's critical path (prepare inputs in DataLoader workers or "
                           "a background thread, tokenise ahead, keep set-up out of the loop) and check that the "
                           "GPU starts sooner in each step.");
    x->refuted_if = ks_xasprintf("with the preparation done ahead the steps take as long (the GPU work then waits on "
                           "something else).");
    ks_buf_free(&what);
    ks_dx_on_path(c, x, &pit);
    for (size_t k = 0; k < st->n; k++)
        if (active(&st->v[k]))
            ks_dx_add_step(x, st->v[k].number);
}

/* ---- the same host->device copy every step ------------------------------------------------- */

typedef struct copy_group {
    int64_t bytes;
    uint64_t copies;
    ks_ns total;
    int64_t last_step;
    size_t steps;
} copy_group;

static void repeated_upload(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    const ks_trace *t = a->trace;
    copy_group *v = NULL;
    size_t n = 0, vcap = 0;
    int64_t largest = -1;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t w = 0; w < gw->n; w++) {
        const ks_gpuwork_item *it = &gw->v[w];
        {
            const ks_event *e = &t->tracks[it->track].ev[it->ev];
            int64_t bytes;
            if (e->kind != KS_K_MEMCPY || !ks_event_bytes(t, it->track, it->ev, &bytes) ||
                !ks_gpuwork_starts_in(a, it) || !ks_dx_in_scope(c, e->ts) || !strstr(ks_trace_str(t, e->name), "HtoD"))
                continue;
            const ks_step *s = step_at(st, e->ts);
            if (bytes > largest)
                largest = bytes;
            size_t j = 0;
            while (j < n && v[j].bytes != bytes)
                j++;
            if (j == n) {
                copy_group gnew = {bytes, 0, 0, INT64_MIN, 0};
                KS_PUSH(v, n, vcap, gnew);
            }
            v[j].copies++;
            v[j].total = ks_sat_add(v[j].total, ks_event_dur(e));
            if (s && s->number != v[j].last_step) {
                v[j].last_step = s->number;
                v[j].steps++;
            }
        }
    }
    size_t nact = st ? st->nactive : 0;
    /* the largest upload of a step is most likely its input batch: prefer any other candidate */
    const copy_group *best = NULL;
    for (int pass = 0; pass < 2 && !best; pass++)
        for (size_t j = 0; j < n; j++) {
            int every_step = nact >= 3 && v[j].steps >= 3 && (double)v[j].steps >= 0.8 * (double)nact;
            int repeated = !nact && v[j].copies >= 3;
            if (!(every_step || repeated) || (pass == 0 && v[j].bytes == largest))
                continue;
            if (!best || v[j].total > best->total)
                best = &v[j];
        }
    if (best && c->gpu_enough) {
        int is_largest = best->bytes == largest;
        /* the copies' own GPU time is all that removing them saves: a few bytes are not "medium" */
        const char *conf = is_largest ? "low" : ks_mul_ge(best->total, 20, c->denom, 1) ? "medium" : "low";
        ks_diagnosis *x = add(out, DX_UPLOAD, conf, best->total);
        char b1[32], b2[96];
        double per = nact ? (double)best->copies / (double)(best->steps ? best->steps : 1) : (double)best->copies;
        x->hypothesis = ks_xasprintf("A constant may be rebuilt on the host and uploaded again every step: the same "
                               "host-to-device copy of %lld bytes recurs.", (long long)best->bytes);
        x->evidence = ks_xasprintf("%llu copies of %lld bytes (%.1f per step in %zu of %zu active steps), %s in all, "
                             "%s.%s",
                             (unsigned long long)best->copies, (long long)best->bytes, per, best->steps, nact,
                             dur(b1, sizeof b1, best->total), ks_dx_share(b2, sizeof b2, c, best->total),
                             is_largest ? " It is also the largest upload of each step, so it may well be the "
                                          "input batch, which must change every step." : "");
        x->next_check = ks_xasprintf("Create that tensor once on the device, outside the loop, and check that the "
                               "outputs stay identical; then compare the step time.");
        x->refuted_if = ks_xasprintf("the uploaded data differs from step to step (it is input, not a constant), or "
                               "moving it changes the outputs.");
        long long uploads = (long long)(per + 0.5);
        x->validate_cmd = ks_xasprintf("kinesift validate constant-upload --bytes %lld --uploads %lld",
                                 (long long)(best->bytes > 0 ? best->bytes : 1), uploads > 0 ? uploads : 1);
        /* the item: those copies' GPU time */
        ks_dx_item pit = {0};
        pit.kinds = CP_GPU;
        for (size_t w = 0; w < gw->n; w++) {
            const ks_gpuwork_item *gi = &gw->v[w];
            const ks_event *e = &t->tracks[gi->track].ev[gi->ev];
            int64_t bytes;
            if (e->kind == KS_K_MEMCPY && ks_event_bytes(t, gi->track, gi->ev, &bytes) && bytes == best->bytes &&
                ks_gpuwork_starts_in(a, gi) && ks_dx_in_scope(c, e->ts) && strstr(ks_trace_str(t, e->name), "HtoD"))
                ks_dx_item_add(&pit, e->ts, ks_sat_add(e->ts, ks_event_dur(e)), UINT32_MAX);
        }
        ks_dx_on_path(c, x, &pit);
        for (size_t i = 0; st && i < st->n; i++)
            if (active(&st->v[i]))
                ks_dx_add_step(x, st->v[i].number);
    }
    free(v);
}

/* ---- many small launches ------------------------------------------------------------------- */

static ks_ns median_ns(ks_ns *v, size_t n)
{
    if (!n)
        return 0;
    ks_sort_ns(v, n);
    return v[n / 2];
}

/* 1 when the launcher r is a graph launch (cudaGraphLaunch, hipGraphLaunch) */
static int graph_launch(const ks_analysis *a, ks_slice_ref r)
{
    if (r.s < 0)
        return 0;
    const ks_timeline *tl = &a->tl[r.tl];
    const ks_event *e = ks_slice_event(a->trace, tl, &tl->s[r.s]);
    return ks_launch_call_kind(ks_trace_str(a->trace, e->name)) == KS_LAUNCH_GRAPH;
}

static void small_launches(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    const ks_trace *t = a->trace;
    size_t nk = 0, nl = 0, nshort = 0, ngraph = 0, most = 1 + ks_gpuwork_of(a)->n;
    ks_ns launch_total = 0;
    ks_ns *kd = ks_big_alloc(ks_mul(most, sizeof *kd)), *ld = ks_big_alloc(ks_mul(most, sizeof *ld));
    ks_dx_item pit = {0}; /* the item: the launch calls, on their threads */
    pit.kinds = CP_THREAD;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t w = 0; w < gw->n; w++) {
        const ks_gpuwork_item *it = &gw->v[w];
        {
            const ks_event *e = &t->tracks[it->track].ev[it->ev];
            if (e->kind != KS_K_KERNEL || e->ph != 'X' || !in_window(a, e->ts) || !ks_dx_in_scope(c, e->ts))
                continue;
            nk++;
            if (ks_event_dur(e) >= 10000)
                continue;
            ks_slice_ref r = ks_gpuwork_launcher(a, it);
            if (graph_launch(a, r)) { /* already one launch for many kernels */
                ngraph++;
                continue;
            }
            kd[nshort++] = ks_event_dur(e);
            if (r.s >= 0) {
                ks_ns l = ks_sat_sub(ks_slice_end(&a->tl[r.tl], &a->tl[r.tl].s[r.s]), ks_slice_ts_at(&a->tl[r.tl], r.s));
                ld[nl++] = l;
                launch_total = ks_sat_add(launch_total, l);
                ks_dx_item_add(&pit, ks_slice_ts_at(&a->tl[r.tl], r.s), ks_slice_end(&a->tl[r.tl], &a->tl[r.tl].s[r.s]),
                               a->tl[r.tl].track);
            }
        }
    }
    ks_ns mk = median_ns(kd, nshort), ml = median_ns(ld, nl);
    ks_big_free(kd, most * sizeof *kd);
    ks_big_free(ld, most * sizeof *ld);
    /* cross-checks: graph launches are no launch overhead to remove, and a GPU that is never
     * idle does not wait on launches */
    if (nk < 100 || nshort * 2 < nk || !nl || 2 * ml < mk || !c->gpu_enough || !ks_mul_ge(c->gpu_idle, 10, c->denom, 1)) {
        free(pit.v);
        return;
    }
    ks_ns impact = cap(launch_total, c->gpu_idle);
    double idle_share = pct((double)c->gpu_idle, (double)c->denom) / 100.0;
    ks_diagnosis *x = add(out, DX_SMALL,
                          idle_share >= 0.3 && ks_mul_ge((int64_t)nshort, 10, (int64_t)nk, 8) ? "high" : "medium",
                          impact);
    char b1[32], b2[32], b3[32], b4[96];
    size_t nact = st ? st->nactive : 0;
    double per_step = nact ? (double)nk / (double)nact : (double)nk;
    x->hypothesis = ks_xasprintf("The GPU work may be fragmented into many small launches whose launch cost is "
                           "comparable to the work itself.");
    x->evidence = ks_xasprintf("%zu of %zu kernels run under 10 us (median %s) while their launch calls take a median "
                         "%s on the CPU (%s in all); the GPU is idle %s; %zu short kernels launched by graph "
                         "launches are left out.",
                         nshort, nk, dur(b1, sizeof b1, mk), dur(b2, sizeof b2, ml), dur(b3, sizeof b3, launch_total),
                         ks_dx_share(b4, sizeof b4, c, c->gpu_idle), ngraph);
    x->next_check = ks_xasprintf("Group the work (fused kernels, torch.compile) or capture the step in a CUDA graph, "
                           "and compare the whole step time, not only the kernel time.");
    x->refuted_if = ks_xasprintf("the step with grouped launches or a CUDA graph is not faster.");
    long long kern = (long long)(per_step + 0.5);
    x->validate_cmd = ks_xasprintf("kinesift validate small-kernels --kernels %lld",
                             kern < 1 ? 1 : kern > 100000 ? 100000 : kern);
    ks_dx_on_path(c, x, &pit);
    for (size_t i = 0; st && i < st->n; i++)
        if (active(&st->v[i]))
            ks_dx_add_step(x, st->v[i].number);
}

/* ---- one operator dominates ---------------------------------------------------------------- */

/* Self time per name of the CPU ops starting inside the scope (ks_timeline_self), and the time
 * of allocator calls (cudaMalloc, cudaFree...) under instances of each name. */
typedef struct op_scope {
    ks_ns *self;               /* per name id */
    ks_ns *alloc;              /* allocator calls under instances of the name */
    uint64_t *calls, *alloc_calls;
    size_t names;
} op_scope;

/* the self time of one slice of the track being scanned, to its name (ks_timeline_self_each) */
typedef struct scope_self {
    const dctx *c;
    op_scope *o;
    const ks_timeline *tl;
} scope_self;

static void add_scope_self(void *ctx, size_t i, ks_ns self)
{
    scope_self *x = ctx;
    const ks_event *e = &x->tl->ev[x->tl->s[i].ev];
    if (e->kind != KS_K_CPU_OP || !in_window(x->c->a, e->ts) || !ks_dx_in_scope(x->c, e->ts) || e->name >= x->o->names)
        return;
    x->o->self[e->name] = ks_sat_add(x->o->self[e->name], self); /* in any order: not negative */
}

static void op_scope_build(const dctx *c, op_scope *o)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    o->names = ks_strtab_count(t->strings);
    size_t nn = o->names ? o->names : 1;
    o->self = ks_xcalloc(nn, sizeof *o->self);
    o->alloc = ks_xcalloc(nn, sizeof *o->alloc);
    o->calls = ks_xcalloc(nn, sizeof *o->calls);
    o->alloc_calls = ks_xcalloc(nn, sizeof *o->alloc_calls);
    uint8_t *is_alloc = ks_xcalloc(nn, 1); /* 0 unknown, 1 no, 2 yes */
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        const ks_track *tr = &t->tracks[tl->track];
        if (!tl->n)
            continue;
        scope_self x = {c, o, tl};
        ks_timeline_self_each(tl, add_scope_self, &x);
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            if (!in_window(a, e->ts) || !ks_dx_in_scope(c, e->ts) || e->name >= o->names) /* the slice's start */
                continue;
            if (e->kind == KS_K_CPU_OP) {
                o->calls[e->name]++;
            } else if (ks_kind_is_launch_api(e->kind)) {
                if (!is_alloc[e->name])
                    is_alloc[e->name] = (uint8_t)(1 + ks_is_alloc_call(ks_trace_str(t, e->name)));
                if (is_alloc[e->name] < 2)
                    continue;
                /* every enclosing op counts the call once */
                for (int32_t p = s->parent; p >= 0; p = tl->s[p].parent) {
                    const ks_event *pe = &tr->ev[tl->s[p].ev];
                    if (pe->kind == KS_K_CPU_OP && pe->name < o->names) {
                        o->alloc[pe->name] = ks_sat_add(o->alloc[pe->name], ks_slice_end(tl, s) - e->ts);
                        o->alloc_calls[pe->name]++;
                    }
                }
            }
        }
    }
    free(is_alloc);
}

static void op_scope_free(op_scope *o)
{
    free(o->self);
    free(o->alloc);
    free(o->calls);
    free(o->alloc_calls);
}

static void dominant_op(const dctx *c, ks_diagnoses *out)
{
    const ks_trace *t = c->a->trace;
    op_scope o;
    op_scope_build(c, &o);
    size_t best = 0;
    for (size_t i = 1; i < o.names; i++)
        if (o.self[i] > o.self[best])
            best = i;
    if (o.names && o.self[best] && ks_mul_ge(o.self[best], 10, c->denom, 3)) {
        char b1[32], b2[32], b3[96];
        const char *name = ks_trace_str(t, (ks_str)best);
        /* allocator growth: the caching allocator asks the driver for memory under this op */
        int growth = o.alloc_calls[best] > 0;
        ks_diagnosis *x = add(out, DX_OP, "medium", o.self[best]);
        x->subject = name;
        if (growth)
            x->hypothesis = ks_xasprintf("One operator dominates the CPU time: \"%s\", and it calls the device "
                                   "allocator (cudaMalloc/cudaFree): the caching allocator may still be growing "
                                   "(or emptying its cache), which a steady state does not do.", name);
        else
            x->hypothesis = ks_xasprintf("One operator dominates the CPU time: \"%s\"; its input shapes or its "
                                   "algorithm may be the cause.", name);
        x->evidence = ks_xasprintf("%s self time in %llu calls, %s; %llu allocator calls under it take %s.",
                             dur(b1, sizeof b1, o.self[best]), (unsigned long long)o.calls[best],
                             ks_dx_share(b3, sizeof b3, c, o.self[best]), (unsigned long long)o.alloc_calls[best],
                             dur(b2, sizeof b2, o.alloc[best]));
        if (growth) {
            x->next_check = ks_xasprintf("Profile later steps (after the allocator has reached its size), or check "
                                   "torch.cuda.memory_stats() for num_alloc_retries and segment growth; "
                                   "expandable_segments or a fixed allocation up front avoid the growth.");
            x->refuted_if = ks_xasprintf("the allocator calls stay in every later step as well: the cost is then "
                                   "fragmentation or empty_cache(), not growth.");
        } else {
            x->next_check = ks_xasprintf("Time that operator alone with the same inputs (record_shapes gives the "
                                   "shapes) and compare alternatives: dtype, layout, a fused or library variant.");
            x->refuted_if = ks_xasprintf("alone it takes a small part of what the trace shows: the cost then comes "
                                   "from what surrounds it (contention, synchronisation).");
        }
        /* the item: the op's self time (the path's CPU time under it as the innermost slice) */
        ks_dx_item pit = {0};
        pit.kinds = 1u << KS_CP_CPU;
        pit.name = (ks_str)best;
        for (size_t k = 0; k < c->scope.n; k++)
            ks_dx_item_add(&pit, c->scope.v[k].a, c->scope.v[k].b, UINT32_MAX);
        ks_dx_on_path(c, x, &pit);
    }
    op_scope_free(&o);
}

static void dominant_kernel(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    if (!a->gpu || !a->nkernels || !c->gpu_enough)
        return;
    /* the largest compute kernel: communication (any instance, kinesift/comm.h) is never the
     * subject of compute advice; it is what exposed_communication is about */
    const ks_kernel_row *k = NULL;
    for (size_t i = 0; i < a->nkernels && !k; i++)
        if (a->kernels[i].kind == KS_K_KERNEL && !a->kernels[i].comm)
            k = &a->kernels[i];
    if (!k)
        return;
    ks_ns total = 0;
    uint64_t count = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t w = 0; w < gw->n; w++) {
        const ks_gpuwork_item *it = &gw->v[w];
        {
            const ks_event *e = &t->tracks[it->track].ev[it->ev];
            if (e->kind == KS_K_KERNEL && e->ph == 'X' && e->name == k->name && in_window(a, e->ts) &&
                ks_dx_in_scope(c, e->ts)) {
                total = ks_sat_add(total, ks_event_dur(e));
                count++;
            }
        }
    }
    if (!total || !ks_mul_ge(total, 10, c->gpu_busy, 4))
        return;
    ks_diagnosis *x = add(out, DX_KERNEL, "medium", total);
    x->subject = ks_trace_str(t, k->name);
    char b1[32], b2[32], b3[32], b4[96];
    x->hypothesis = ks_xasprintf("One kernel dominates the GPU time: \"%s\"; the operator that launches it may "
                           "use unsuited shapes or an unsuited algorithm.", ks_trace_str(t, k->name));
    x->evidence = ks_xasprintf("%s in %llu launches (median %s over the window), %.0f%% of the GPU busy time (%s), %s.",
                         dur(b1, sizeof b1, total), (unsigned long long)count, dur(b2, sizeof b2, k->median_ns),
                         pct((double)total, (double)c->gpu_busy), dur(b3, sizeof b3, c->gpu_busy),
                         ks_dx_share(b4, sizeof b4, c, total));
    x->next_check = ks_xasprintf("Benchmark the launching operator alone with its inputs and compare kernels "
                           "(precision, tensor cores, layout).");
    x->refuted_if = ks_xasprintf("the kernel already runs close to the device's peak throughput for its work.");
    ks_dx_item pit = {0}; /* the item: the kernel's GPU time */
    pit.kinds = CP_GPU;
    pit.name = k->name;
    for (size_t j = 0; j < c->scope.n; j++)
        ks_dx_item_add(&pit, c->scope.v[j].a, c->scope.v[j].b, UINT32_MAX);
    ks_dx_on_path(c, x, &pit);
}

/* ---- synchronisation in the loop ----------------------------------------------------------- */

/* The GPU idle time from t to the next GPU work (0 when the GPU is busy at t, never works again,
 * or has not worked yet: idle outside the GPU span is not idle the device's figures count). */
static ks_iv idle_after(const dctx *c, ks_ns t)
{
    ks_iv none = {t, t};
    size_t i = ks_ivs_first_ending_after(&c->gpu, t);
    if (i == c->gpu.n || i == 0 || c->gpu.v[i].a <= t)
        return none;
    ks_iv r = {t, c->gpu.v[i].a};
    return r;
}

/* Blocking calls that wait while the trace shows the GPU idle: they wait on something the trace
 * does not record (GPU work the profiler missed, such as graph kernels on some platforms, another
 * process, a peer rank). A caveat: the idle time there is not what it seems. */
static void unexplained_wait(const dctx *c, uint64_t calls, ks_ns total, ks_ns waited_idle, ks_diagnoses *out)
{
    char b1[32], b2[32], b3[96];
    ks_diagnosis *x = add(out, DX_WAIT, "n/a", -1);
    x->hypothesis = ks_xasprintf("Blocking calls wait while the trace shows the GPU idle: they wait on something the "
                           "trace does not record (GPU work the profiler missed, such as graph kernels, another "
                           "process on the device, a peer rank), so the GPU idle time here may not be idle.");
    x->evidence = ks_xasprintf("%llu blocking calls take %s; %s of it with no GPU work recorded, %s.",
                         (unsigned long long)calls, dur(b1, sizeof b1, total), dur(b2, sizeof b2, waited_idle),
                         ks_dx_share(b3, sizeof b3, c, waited_idle));
    x->next_check = ks_xasprintf("Look at the device with a system-wide tool (nsys, rocprof, nvidia-smi during the run) "
                           "over the same interval, and check the trace for graph launches whose kernels are "
                           "missing.");
    x->refuted_if = ks_xasprintf("the device is really idle during those calls: the wait is then on the host side "
                           "(a lock, I/O behind the call).");
}

static void sync_in_loop(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    const ks_trace *t = a->trace;
    ks_ns total = 0, waited_busy = 0, waited_idle = 0;
    uint64_t calls = 0, items = 0, hip = 0;
    int64_t *steps = NULL;
    size_t nsteps = 0, scap = 0;
    ks_ivs after = {0};
    ks_dx_item pit = {0}; /* the item: the idle time after the calls, on the thread that made them */
    pit.kinds = CP_THREAD;
    /* per name id: 0 not looked up yet, else 1 + ks_blocking_call_platform (a table of ~30 names
     * compared per runtime call was 3% of analyze on a dense trace) */
    uint8_t *platform_of = ks_xcalloc(ks_strtab_count(t->strings) + 1, 1);
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        const ks_track *tr = &t->tracks[tl->track];
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            ks_ns ts = ks_slice_ts(tl, s);
            if (!in_window(a, ts) || !ks_dx_in_scope(c, ts))
                continue;
            const ks_event *e = &tr->ev[s->ev];
            const char *n = ks_trace_str(t, e->name);
            if (e->kind == KS_K_CPU_OP && !strcmp(n, "aten::item"))
                items++;
            int platform = 0;
            if (ks_kind_is_launch_api(e->kind)) {
                if (!platform_of[e->name])
                    platform_of[e->name] = (uint8_t)(1 + ks_blocking_call_platform(n));
                platform = platform_of[e->name] - 1;
            }
            if (!platform)
                continue;
            calls++;
            hip += platform == KS_PLATFORM_HIP;
            ks_ns end = ks_slice_end(tl, s);
            total = ks_sat_add(total, ks_sat_sub(end, ts));
            ks_ns busy = ks_ivs_covered(&c->gpu, ts, end);
            waited_busy = ks_sat_add(waited_busy, busy);
            waited_idle = ks_sat_add(waited_idle, ks_sat_sub(ks_ivs_covered(&c->scope, ts, end), busy));
            ks_iv idle = idle_after(c, end);
            ks_ivs_add(&after, idle.a, idle.b);
            ks_dx_item_add(&pit, idle.a, idle.b, tl->track);
            const ks_step *sp = step_at(st, ts);
            if (active(sp) && (!nsteps || steps[nsteps - 1] != sp->number))
                KS_PUSH(steps, nsteps, scap, sp->number);
        }
    }
    free(platform_of);
    ks_ivs_normalize(&after);
    ks_ivs in = {0};
    ks_ivs_intersect(&after, &c->scope, &in);
    ks_ns idle = ks_ivs_length(&in);
    ks_ivs_free(&in);
    ks_ivs_free(&after);
    size_t nact = st ? st->nactive : 0;
    int every_step = nact >= 2 && nsteps * 2 >= nact;
    if (c->gpu_enough && ks_mul_ge(waited_idle, 20, c->denom, 1))
        unexplained_wait(c, calls, total, waited_idle, out);
    /* cross-check: a sync that only waits for a busy GPU, which resumes at once after it, costs
     * nothing; the GPU must be idle after the syncs */
    if (!calls || !idle || !c->gpu.n ||
        (!ks_mul_ge(total, 20, c->denom, 1) && !(every_step && ks_mul_ge(total, 100, c->denom, 1)))) {
        free(steps);
        free(pit.v);
        return;
    }
    /* What removing the syncs could save: the host would queue ahead instead of waiting, so at
     * most the time the calls waited on a busy GPU, and never more than the GPU idle after them.
     * A short sync followed by long CPU work (preprocessing) waited on nothing: the idle after
     * it is the host's, not the sync's (cpu_before_gpu, host_bound). */
    ks_ns impact = cap(cap(idle, waited_busy), c->gpu_idle);
    if (!impact || (!ks_mul_ge(impact, 20, c->denom, 1) && !(every_step && ks_mul_ge(impact, 100, c->denom, 1)))) {
        free(steps);
        free(pit.v);
        return;
    }
    /* one blocking call at the end of a capture is not "in the loop" */
    const char *conf = nact >= 2 && !every_step ? "low" : ks_dx_confidence(c, impact);
    ks_diagnosis *x = add(out, DX_SYNC, conf, impact);
    char b1[32], b2[32], b3[32], b4[96], b5[32], b6[32];
    x->hypothesis = ks_xasprintf("The host may be waiting on a synchronisation in the loop (an explicit synchronize, "
                           "a blocking copy, .item()), which stops it from queueing work ahead of the GPU: "
                           "the GPU then idles after each sync until new work arrives.");
    x->evidence = ks_xasprintf("%llu blocking calls (synchronize calls, synchronous copies: cudaStreamSynchronize, "
                         "hipMemcpyWithStream, cuMemcpyDtoH...) take %s in %zu of %zu active steps, %s of it "
                         "waiting on a busy GPU; after them the GPU is idle %s until its next work (of %s GPU "
                         "idle in all); the smaller, %s, is %s; %llu .item() calls.",
                         (unsigned long long)calls, dur(b1, sizeof b1, total), nsteps, nact,
                         dur(b2, sizeof b2, waited_busy), dur(b3, sizeof b3, idle), dur(b5, sizeof b5, c->gpu_idle),
                         dur(b6, sizeof b6, impact), ks_dx_share(b4, sizeof b4, c, impact), (unsigned long long)items);
    x->next_check = ks_xasprintf("Remove or defer the synchronisation (keep values on the GPU, call .item() every N "
                           "steps, use non_blocking copies) and compare the step time.");
    x->refuted_if = ks_xasprintf("without it the step is not shorter: the wait then only moves to the next "
                           "synchronisation point, and the GPU work itself is the limit.");
    /* GPU work items between two blocking calls */
    long long ops = calls ? (long long)(a->links.gpu_events / calls) : 1;
    if (hip * 2 > calls) { /* validate runs on CUDA only: name the measurement to make by hand */
        char *nc = ks_xasprintf("%s (kinesift validate runs on CUDA only: on ROCm, time %lld GPU ops with and without "
                          "a hipDeviceSynchronize after each, by hand.)", x->next_check, ops < 1 ? 1 : ops);
        free(x->next_check);
        x->next_check = nc;
    } else
        x->validate_cmd = ks_xasprintf("kinesift validate sync-per-op --ops %lld", ops < 1 ? 1 : ops > 100000 ? 100000 : ops);
    for (size_t i = 0; i < nsteps; i++)
        ks_dx_add_step(x, steps[i]);
    free(steps);
    ks_dx_on_path(c, x, &pit);
}

/* ---- pageable copies ----------------------------------------------------------------------- */

static void pageable_copies(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_steps *st = c->st;
    const ks_trace *t = a->trace;
    ks_ns total = 0;
    uint64_t copies = 0;
    copy_group *v = NULL; /* by size: the size that costs most is the one to measure */
    ks_dx_item pit = {0}; /* the item: the copies' GPU time */
    pit.kinds = CP_GPU;
    size_t n = 0, vcap = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t w = 0; w < gw->n; w++) {
        const ks_gpuwork_item *it = &gw->v[w];
        {
            const ks_event *e = &t->tracks[it->track].ev[it->ev];
            if (e->kind != KS_K_MEMCPY || !in_window(a, e->ts) || !ks_dx_in_scope(c, e->ts) ||
                !strstr(ks_trace_str(t, e->name), "Pageable"))
                continue;
            copies++;
            total = ks_sat_add(total, ks_event_dur(e));
            ks_dx_item_add(&pit, e->ts, ks_sat_add(e->ts, ks_event_dur(e)), UINT32_MAX);
            int64_t b = 0;
            ks_event_bytes(t, it->track, it->ev, &b);
            size_t j = 0;
            while (j < n && v[j].bytes != b)
                j++;
            if (j == n) {
                copy_group gnew = {b, 0, 0, INT64_MIN, 0};
                KS_PUSH(v, n, vcap, gnew);
            }
            v[j].copies++;
            v[j].total = ks_sat_add(v[j].total, ks_event_dur(e));
        }
    }
    const copy_group *big = NULL;
    for (size_t j = 0; j < n; j++)
        if (!big || v[j].total > big->total)
            big = &v[j];
    if (!copies || !c->gpu_enough || !ks_mul_ge(total, 20, c->denom, 1)) {
        free(v);
        free(pit.v);
        return;
    }
    ks_diagnosis *x = add(out, DX_PAGEABLE, "medium", total);
    char b1[32], b2[96];
    x->hypothesis = ks_xasprintf("Copies from pageable host memory may be slowing transfers and serialising them with "
                           "the host.");
    x->evidence = ks_xasprintf("%llu copies from or to pageable memory take %s, %s; most of that "
                         "time goes to %llu copies of %lld bytes.",
                         (unsigned long long)copies, dur(b1, sizeof b1, total), ks_dx_share(b2, sizeof b2, c, total),
                         (unsigned long long)big->copies, (long long)big->bytes);
    x->next_check = ks_xasprintf("Allocate the host buffers pinned (pin_memory=True in the DataLoader, "
                           "tensor.pin_memory()) with non_blocking copies and compare.");
    x->refuted_if = ks_xasprintf("pinned copies are not faster for these sizes.");
    size_t steps = st && st->nactive ? st->nactive : 1;
    long long per = (long long)(big->copies / steps);
    x->validate_cmd = ks_xasprintf("kinesift validate pageable-copy --bytes %lld --copies %lld",
                             big->bytes > 0 ? (long long)big->bytes : 1, per > 0 ? per : 1);
    free(v);
    ks_dx_on_path(c, x, &pit);
}

/* ---- exposed communication ----------------------------------------------------------------- */

/* Communication while no compute kernel runs on the device (ks_gpu_row.comm_exposed_ns) is time
 * overlap could hide: a hypothesis when it reaches 5 % of the device's GPU span; that part is
 * the most overlap could save on the device. */
static void exposed_communication(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    char b1[32], b2[32], b3[32], b4[96];
    for (size_t i = 0; a->gpu && c->gpu_enough && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        if (!g->span_ns || !g->comm_exposed_ns || !ks_mul_ge(g->comm_exposed_ns, 20, g->span_ns, 1))
            continue;
        ks_ns impact = cap(g->comm_exposed_ns, c->denom);
        ks_diagnosis *x = add(out, DX_COMM, "medium", impact);
        x->hypothesis = ks_xasprintf("Communication on GPU %d is not overlapped with compute for part of its time: the device waits "
                               "on collectives (or on the slowest rank) for %s.",
                               g->device, dur(b1, sizeof b1, g->comm_exposed_ns));
        x->evidence = ks_xasprintf("%s of communication kernels, %s of it with no compute kernel running "
                             "(%.0f%% of the GPU span of %s; %s); at most that much could be hidden by overlap.",
                             dur(b2, sizeof b2, g->comm_ns), dur(b1, sizeof b1, g->comm_exposed_ns),
                             pct((double)g->comm_exposed_ns, (double)g->span_ns), dur(b3, sizeof b3, g->span_ns),
                             ks_dx_share(b4, sizeof b4, c, impact));
        x->next_check = ks_xasprintf("Compare the same collectives on every rank (kinesift ranks): a long wait on one "
                               "rank only points at imbalance; otherwise check bucket sizes and overlap "
                               "(DDP/FSDP prefetch, async collectives).");
        x->refuted_if = ks_xasprintf("the collectives' bus bandwidth is already near the link's and no compute is "
                               "available to overlap them.");
        /* the item: the path's GPU time in collectives on this device's streams */
        ks_dx_item pit = {0};
        pit.kinds = CP_GPU;
        const ks_trace *t = a->trace;
        for (size_t j = 0; c->cp_ok && j < c->cp_nsteps; j++) {
            const ks_cp_step *s = &c->cp->v[c->cp_steps[j]];
            ks_cp_cursor cu = ks_cp_cursor_of(c->cp, s);
            ks_cp_piece pc;
            while (ks_cp_next(&cu, &pc)) {
                const ks_cp_piece *p = &pc;
                if (p->kind == KS_CP_GPU && p->track < t->ntracks && t->tracks[p->track].device == g->device &&
                    p->name && ks_is_comm_kernel(ks_trace_str(t, p->name)))
                    ks_dx_item_add(&pit, p->a, p->b, p->track);
            }
        }
        ks_dx_on_path(c, x, &pit);
    }
}

/* ---- host-bound: the GPU waits for the host to launch ------------------------------------ */

/* GPU idle dominated by host time: in most of the idle time, the launch of the work ending the
 * gap began after the GPU went idle (HTA's host wait): the host, not the GPU, sets the pace. */
static void host_bound(const dctx *c, ks_diagnoses *out)
{
    const ks_gaps *g = c->g;
    const ks_trace *t = c->a->trace;
    ks_ns wait = 0, blocked = 0, idle = 0, span = 0, data = 0;
    const ks_gap_device *top = NULL;
    for (size_t i = 0; i < g->n; i++) {
        wait = ks_sat_add(wait, g->dev[i].hta_host_wait_ns);
        data = ks_sat_add(data, g->dev[i].data_loading_ns);
        idle = ks_sat_add(idle, g->dev[i].idle_ns);
        if (!top || g->dev[i].idle_ns > top->idle_ns)
            top = &g->dev[i];
        /* a launching thread blocked in a synchronising call is waiting, not working: that part
         * of the gaps is no host time (sync_in_loop is about it) */
        for (size_t j = 0; j < g->dev[i].nby_cpu; j++) {
            const ks_gap_cause *gc = &g->dev[i].by_cpu[j];
            if (gc->name && ks_kind_is_launch_api(gc->kind) && ks_is_blocking_call(ks_trace_str(t, gc->name)))
                blocked = ks_sat_add(blocked, gc->total_ns);
        }
    }
    ks_ns host = wait > blocked ? wait - blocked : 0;
    for (size_t i = 0; c->a->gpu && i < c->a->ngpu; i++)
        span = ks_sat_add(span, c->a->gpu[i].span_ns);
    if (!top || !c->gpu_enough || !span || !ks_mul_ge(idle, 10, span, 3) || !ks_mul_ge(host, 2, idle, 1))
        return;
    /* the gap time spent loading data is input_pipeline's: the launch work is what is left, so
     * that when loading dominates the host time, input_pipeline ranks first */
    ks_ns impact = cap(ks_sat_sub(host, cap(data, host)), c->denom);
    ks_diagnosis *x = add(out, DX_HOST, ks_dx_confidence(c, impact), impact);
    char b1[32], b2[32], b3[32], b4[96];
    ks_buf what = {0};
    for (size_t j = 0, shown = 0; j < top->nby_cpu && shown < 3; j++, shown++) {
        char cause[200];
        ks_gap_cause_text(cause, sizeof cause, t, &top->by_cpu[j], 60, " ");
        ks_buf_printf(&what, "%s%s (%s)", shown ? ", " : "", cause, dur(b4, sizeof b4, top->by_cpu[j].total_ns));
    }
    x->hypothesis = ks_xasprintf("The job may be host-bound (launch-bound): the GPU idles waiting for the host to "
                           "launch its next work, so CPU time per step, not GPU time, sets the pace.");
    char b5[32], b6[96], b7[32], b8[32];
    x->evidence = ks_xasprintf("GPU idle %s of %s of GPU span; in %s of it (%.0f%%) the next work was launched only "
                         "after the GPU had gone idle (HTA host wait, %s, less %s with the launching thread "
                         "blocked in a synchronising call); less %s of it in data loading (input_pipeline's), "
                         "%s is left: %s. The launching thread during the gaps: %s.",
                         dur(b1, sizeof b1, idle), dur(b2, sizeof b2, span), dur(b3, sizeof b3, host),
                         pct((double)host, (double)idle), dur(b5, sizeof b5, wait), dur(b4, sizeof b4, blocked),
                         dur(b7, sizeof b7, cap(data, host)), dur(b8, sizeof b8, impact),
                         ks_dx_share(b6, sizeof b6, c, impact), what.n ? ks_buf_cstr(&what) : "no gap above the threshold");
    if (c->begin_captures) /* graphs are already captured: advising them says nothing */
        x->next_check = ks_xasprintf("The trace already captures CUDA/HIP graphs (%llu stream captures): cut the host "
                               "time outside the captured parts (capture more of the step, fewer Python-level "
                               "ops, larger batches) and check that the GPU idle time shrinks; the GPU idle gaps "
                               "(analyze's \"GPU N idle gaps\", the report's GPU activity strip) show what the "
                               "CPU thread was doing.",
                               (unsigned long long)c->begin_captures);
    else
        x->next_check = ks_xasprintf("Cut the host time per step (CUDA graphs, torch.compile mode=\"reduce-overhead\", "
                               "fewer Python-level ops, larger batches) and check that the GPU idle time "
                               "shrinks; the GPU idle gaps (analyze's \"GPU N idle gaps\", the report's GPU activity "
                               "strip) show what the CPU thread was doing.");
    x->refuted_if = ks_xasprintf("with less host work per step the GPU stays idle as long (it then waits on "
                           "something else: a sync, another rank, input).");
    ks_buf_free(&what);
    for (size_t i = 0; c->st && i < c->st->n; i++)
        if (active(&c->st->v[i]) && ks_mul_ge(c->st->v[i].idle_ns, 10, c->st->v[i].wall_ns, 3))
            ks_dx_add_step(x, c->st->v[i].number);
    /* the item: the gaps outside data loading, the launching thread's own time in them (not its
     * blocking calls: sync_in_loop's) */
    ks_dx_item pit = {0};
    pit.kinds = (1u << KS_CP_CPU) | (1u << KS_CP_THREAD_WAIT) | (1u << KS_CP_UNMODELED);
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; g->dev[i].all && j < g->dev[i].count; j++)
            if (!g->dev[i].all[j].data)
                ks_dx_item_add(&pit, g->dev[i].all[j].start, g->dev[i].all[j].end,
                               g->dev[i].all[j].launch_track >= 0 ? (uint32_t)g->dev[i].all[j].launch_track : UINT32_MAX);
    ks_dx_on_path(c, x, &pit);
}

/* ---- what the capture itself records ------------------------------------------------------- */

/* Time of the CPU slices of every thread matching a predicate, as a union (threads overlap). */
static void cpu_calls(const dctx *c, int (*match)(const char *), ks_ivs *out, uint64_t *n)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    size_t names = ks_strtab_count(t->strings);
    uint8_t *is = ks_xcalloc(names ? names : 1, 1);
    *n = 0;
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        const ks_track *tr = &t->tracks[tl->track];
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            const ks_event *e = &tr->ev[s->ev];
            if (!ks_kind_is_launch_api(e->kind) || e->name >= names || !in_window(a, e->ts))
                continue;
            if (!is[e->name])
                is[e->name] = (uint8_t)(1 + !!match(ks_trace_str(t, e->name)));
            if (is[e->name] == 2) {
                ks_ivs_add(out, e->ts, ks_slice_end(tl, s));
                (*n)++;
            }
        }
    }
    free(is);
    ks_ivs_clip(out, a->win_start, a->win_end);
    ks_ivs_normalize(out);
}

/* Set-up calls taking a large part of the window: the capture records start-up. */
static void init_in_capture(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    ks_ivs v = {0};
    uint64_t n = 0;
    cpu_calls(c, ks_is_init_call, &v, &n);
    ks_ns total = ks_ivs_length(&v), inside = 0;
    ks_ivs in = {0};
    ks_ivs_intersect(&v, &c->scope, &in);
    inside = ks_ivs_length(&in);
    ks_ivs_free(&in);
    ks_ivs_free(&v);
    if (!total || !ks_mul_ge(total, 4, a->window_ns, 1))
        return;
    ks_diagnosis *x = add(out, DX_INIT, "n/a", -1);
    char b1[32], b2[32], b3[32], b4[96];
    x->hypothesis = ks_xasprintf("The capture records initialisation more than the steady state: set-up calls "
                           "(device allocations and frees, stream creation, stream-priority queries, module "
                           "loading) take %.0f%% of the window, so window-wide figures describe start-up.",
                           pct((double)total, (double)a->window_ns));
    x->evidence = ks_xasprintf("%llu set-up calls (cudaMalloc, cudaFree, cudaDeviceGetStreamPriorityRange, "
                         "hipMalloc...) take %s of the %s window; %s of it inside the %s (%s), where it "
                         "costs step time.",
                         (unsigned long long)n, dur(b1, sizeof b1, total), dur(b2, sizeof b2, a->window_ns),
                         dur(b3, sizeof b3, inside), c->denom_name, ks_dx_share(b4, sizeof b4, c, inside));
    x->next_check = ks_xasprintf("Start the profiler after a few iterations (torch.profiler schedule with wait and "
                           "warmup steps) and analyse that capture; with --window, restrict this one to the "
                           "steady part.");
    x->refuted_if = ks_xasprintf("the same calls recur in every step of a later capture: they are then part of the "
                           "loop (allocator churn), and the per-step figures hold.");
}

/* Launch calls that ran nothing, beside stream-capture calls: the trace recorded the capture of
 * a graph, whose kernels run only when the graph is replayed. */
static void graph_capture(const dctx *c, ks_diagnoses *out)
{
    const ks_link_stats *l = &c->a->links;
    ks_ivs v = {0};
    uint64_t n = 0;
    cpu_calls(c, ks_is_capture_call, &v, &n);
    ks_ivs_free(&v);
    /* any cudaStreamBeginCapture / hipStreamBeginCapture in the trace (the window may leave the
     * capture out: vLLM's piecewise capture runs before the steps it profiles) */
    if (!c->begin_captures)
        return;
    ks_diagnosis *x = add(out, DX_CAPTURE, "n/a", -1);
    x->hypothesis = ks_xasprintf("The trace records the capture of a CUDA/HIP graph: launches inside a stream capture "
                           "are recorded into the graph, not run, so their GPU work is missing here and the "
                           "timing of this part says nothing about the replay; the launch overhead a graph "
                           "removes is already removed where its replays run.");
    x->evidence = ks_xasprintf("%llu begin-capture calls in the trace, %llu stream-capture calls (begin/end capture, "
                         "instantiate) in the window; %llu of %llu calls with a correlation id have no GPU work.",
                         (unsigned long long)c->begin_captures, (unsigned long long)n,
                         (unsigned long long)l->launches_without_gpu, (unsigned long long)l->launches);
    x->next_check = ks_xasprintf("Profile the replay (iterations that call cudaGraphLaunch after the capture) and "
                           "analyse that trace; its kernels carry the graph launch as their launcher.");
    x->refuted_if = ks_xasprintf("the launches without GPU work lie outside any capture (the profiler then lost "
                           "GPU activity: check the trace's diagnostics).");
}

/* The profiler's own overhead events (Kineto's "overhead" category: activity buffer requests,
 * lazy function loading) and CUPTI range profiling (kernels serialised and replayed). */
static void profiler_overhead(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    ks_ivs v = {0};
    uint64_t n = 0, ranges = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (e->ph != 'X' || !in_window(a, e->ts))
                continue;
            if (e->kind == KS_K_OVERHEAD) {
                ks_ivs_add(&v, e->ts, ks_sat_add(e->ts, ks_event_dur(e)));
                n++;
            } else if (e->kind == KS_K_OTHER && !strcmp(ks_trace_cat_name(t, e->cat), "cuda_profiler_range"))
                ranges++;
        }
    }
    ks_ivs_normalize(&v);
    ks_ivs in = {0};
    ks_ivs_intersect(&v, &c->scope, &in);
    ks_ns total = ks_ivs_length(&v), inside = ks_ivs_length(&in);
    ks_ivs_free(&in);
    ks_ivs_free(&v);
    char b1[32], b2[32], b3[96];
    if (n) {
        ks_diagnosis *x = add(out, DX_OVERHEAD, ks_dx_confidence(c, inside), inside);
        x->hypothesis = ks_xasprintf("The profiler itself adds time the trace shows: its overhead events (activity "
                               "buffer requests, lazy function loading) lengthen the steps they fall in.");
        x->evidence = ks_xasprintf("%llu overhead events take %s (union), %s of it inside the %s: %s.",
                             (unsigned long long)n, dur(b1, sizeof b1, total), dur(b2, sizeof b2, inside),
                             c->denom_name, ks_dx_share(b3, sizeof b3, c, inside));
        x->next_check = ks_xasprintf("Time the same steps without the profiler (wall clock around the loop) and "
                               "compare with the traced step time.");
        x->refuted_if = ks_xasprintf("the untraced steps take as long as the traced ones.");
    }

    if (ranges) {
        ks_diagnosis *x = add(out, DX_RANGE, "n/a", -1);
        x->hypothesis = ks_xasprintf("The trace was taken with CUPTI range profiling (performance counters), which "
                               "serialises kernels and may replay them: kernel times and overlap here are "
                               "not those of a normal run.");
        x->evidence = ks_xasprintf("%llu cuda_profiler_range events.", (unsigned long long)ranges);
        x->next_check = ks_xasprintf("Take timing figures from a capture without counter collection; keep this one "
                               "for the counters.");
        x->refuted_if = ks_xasprintf("a capture without counters shows the same kernel times.");
    }
}

/* ---- busy is not useful work --------------------------------------------------------------- */

static void busy_caveat(const dctx *c, ks_diagnoses *out)
{
    const ks_analysis *a = c->a;
    char b1[32], b2[32];
    for (size_t i = 0; a->gpu && c->gpu_enough && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        if (!g->span_ns || !ks_mul_ge(g->busy_ns, 10, g->span_ns, 8))
            continue;
        ks_diagnosis *x = add(out, DX_BUSY, "n/a", -1);
        x->hypothesis = ks_xasprintf("GPU %d is busy %.0f%% of its span; that alone says nothing about useful output: "
                               "busy kernels can be slow, redundant or in the wrong precision.",
                               g->device, pct((double)g->busy_ns, (double)g->span_ns));
        x->evidence = ks_xasprintf("busy %s of a %s span, %.0f%% (union of kernel, memcpy and memset time).",
                             dur(b1, sizeof b1, g->busy_ns), dur(b2, sizeof b2, g->span_ns),
                             pct((double)g->busy_ns, (double)g->span_ns));
        x->next_check = ks_xasprintf("Compare the achieved throughput (samples/s, FLOP/s, bytes/s) with the device's "
                               "peak for this precision, and the top kernels' efficiency.");
        x->refuted_if = ks_xasprintf("the achieved throughput is close to what the device can deliver.");
        return;
    }
}

/* ---- ranking and the floor ------------------------------------------------------------------ */

static void diagnosis_free(ks_diagnosis *x)
{
    free(x->hypothesis);
    free(x->evidence);
    free(x->next_check);
    free(x->refuted_if);
    free(x->validate_cmd);
    free(x->steps);
}

/* by impact, largest first, caveats last; equal impacts keep the order they were found in */
static void rank(ks_diagnoses *d)
{
    for (size_t i = 1; i < d->n; i++) { /* insertion sort: stable, a dozen items at most */
        ks_diagnosis x = d->v[i];
        size_t j = i;
        while (j > 0 && d->v[j - 1].impact_ns < x.impact_ns)
            d->v[j] = d->v[j - 1], j--;
        d->v[j] = x;
    }
}

static void apply_floor(ks_diagnoses *d, const ks_diagnose_opts *o)
{
    size_t keep = 0;
    for (size_t i = 0; i < d->n; i++) {
        ks_diagnosis *x = &d->v[i];
        /* impact < min_impact * denominator, in exact arithmetic on the 1e-6 grid of the option */
        int64_t ppm = (int64_t)llround(o->min_impact * 1e6);
        x->below_floor = x->impact_ns >= 0 && !ks_mul_ge(x->impact_ns, 1000000, d->denominator_ns, ppm);
        if (x->below_floor && !o->all) {
            diagnosis_free(x);
            d->hidden++;
            continue;
        }
        d->v[keep++] = *x;
    }
    d->n = keep;
}

void ks_diagnose_opts_init(ks_diagnose_opts *o)
{
    o->min_impact = 0.01;
    o->all = 0;
    o->peak_tflops = o->peak_tbps = 0;
    o->critpath = NULL;
}

/* ---- the checks, on one thread or several --------------------------------------------------- */

typedef void (*check_fn)(const dctx *c, ks_diagnoses *out);

static void memory_growth(const dctx *c, ks_diagnoses *out)
{
    ks_memory_growth_check(c->a, c->st, out); /* insights/diag_memory.c */
}

static void kernel_view(const dctx *c, ks_diagnoses *out)
{
    if (c->cp)
        ks_dx_kernel_view(c, out); /* insights/diag_kernels.c */
}

/* Every check: its function, its cost rank (the order checks are handed to threads: the longest
 * first, measured on the bench shapes: dominant_op, which takes the self time of every CPU slice,
 * is 40-50 % of all; then the ones that walk every launch or kernel, so that on two threads the
 * rest runs beside dominant_op), and whether it needs the idle gaps. The rows' order is the order
 * their diagnoses are listed in before ranking (rank() keeps it among equal impacts). A check of
 * another file (insights/diagnose_int.h) is one more row. */
#define KS_DX_CHECKS(X)                                                                          \
    X(input_pipeline, 5, 1)                                                                      \
    X(host_bound, 6, 1)                                                                          \
    X(cpu_before_gpu, 6, 0)                                                                      \
    X(repeated_upload, 10, 0)                                                                    \
    X(small_launches, 12, 0)                                                                     \
    X(sync_in_loop, 11, 0)                                                                       \
    X(pageable_copies, 4, 0)                                                                     \
    X(dominant_op, 13, 0)                                                                        \
    X(dominant_kernel, 3, 0)                                                                     \
    X(exposed_communication, 2, 0)                                                               \
    X(profiler_overhead, 7, 0)                                                                   \
    X(init_in_capture, 9, 0)                                                                     \
    X(graph_capture, 8, 0)                                                                       \
    X(kernel_view, 12, 0)                                                                        \
    X(busy_caveat, 1, 0)                                                                         \
    X(memory_growth, 0, 0)

static const struct check {
    check_fn run;
    unsigned char cost;
    unsigned char gaps; /* runs only with the idle gaps */
} checks[] = {
#define KS_DX_CHECK_ROW(fn, cost, gaps) {fn, cost, gaps},
    KS_DX_CHECKS(KS_DX_CHECK_ROW)
#undef KS_DX_CHECK_ROW
};
#define NCHECKS (sizeof checks / sizeof checks[0])

typedef struct checks_run {
    const dctx *c;
    size_t order[NCHECKS];      /* the rows by cost, highest first */
    ks_diagnoses part[NCHECKS]; /* what each check found, apart */
} checks_run;

static void check_task(void *ctx, size_t i)
{
    checks_run *r = ctx;
    size_t k = r->order[i];
    if (checks[k].gaps && !(r->c->g && r->c->g->n))
        return;
    checks[k].run(r->c, &r->part[k]);
}

/* The checks read the analysis and write only their own part, so they may run side by side;
 * their diagnoses are then appended in the order of checks[], whatever ran where: the same list
 * on any number of threads. */
static void run_checks(const dctx *c, ks_diagnoses *out)
{
    checks_run r;
    memset(&r, 0, sizeof r);
    r.c = c;
    for (size_t i = 0; i < NCHECKS; i++) { /* insertion by cost, stable */
        size_t j = i;
        while (j > 0 && checks[r.order[j - 1]].cost < checks[i].cost)
            r.order[j] = r.order[j - 1], j--;
        r.order[j] = i;
    }
    ks_pool_run(NCHECKS, ks_analysis_threads(c->a), check_task, &r);
    for (size_t k = 0; k < NCHECKS; k++) {
        ks_diagnoses *p = &r.part[k];
        if (!p->n)
            continue;
        out->v = ks_xrealloc(out->v, (out->n + p->n) * sizeof *out->v);
        memcpy(out->v + out->n, p->v, p->n * sizeof *p->v);
        out->n += p->n;
        free(p->v);
    }
}

void ks_diagnose_with(const ks_analysis *a, const ks_steps *st, const ks_gaps *g, const ks_diagnose_opts *o,
                      ks_diagnoses *out)
{
    ks_diagnose_path(a, st, g, o->critpath, o, out);
}

void ks_diagnose_path(const ks_analysis *a, const ks_steps *st, const ks_gaps *g, const struct ks_critpath *cp,
                      const ks_diagnose_opts *o, ks_diagnoses *out)
{
    memset(out, 0, sizeof *out);
    out->min_impact = o->min_impact;
    out->denominator = "window";
    if (!a->has_events || a->window_ns <= 0)
        return;
    dctx c;
    dctx_init(&c, a, st, g, cp);
    c.peak_tflops = o->peak_tflops;
    c.peak_tbps = o->peak_tbps;
    out->denominator = c.denom_name;
    out->denominator_ns = c.denom;
    if (c.denom > 0) {
        run_checks(&c, out);
        rank(out);
        apply_floor(out, o);
    }
    dctx_free(&c);
}

void ks_diagnose(const ks_analysis *a, const ks_steps *st, const ks_gaps *g, ks_diagnoses *out)
{
    ks_diagnose_opts o;
    ks_diagnose_opts_init(&o);
    ks_diagnose_with(a, st, g, &o, out);
}

void ks_diagnoses_free(ks_diagnoses *d)
{
    for (size_t i = 0; i < d->n; i++)
        diagnosis_free(&d->v[i]);
    free(d->v);
    memset(d, 0, sizeof *d);
}
