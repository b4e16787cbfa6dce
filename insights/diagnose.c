/* insights/diagnose.c: observations turned into hypotheses. Each diagnosis states what might be
 * going on, the evidence (numbers, affected steps), a confidence, the next check that would confirm
 * it and what would refute it; where a built-in `kinesift validate` pair reproduces the pattern, the
 * matching command with sizes taken from the trace. Nothing here is stated as a fact. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hugemem.h"
#include "analysis/intervals.h"
#include "analysis/analysis_int.h"
#include "common/util.h"
#include "kinesift/insights.h"

static char *fmtdup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmtdup(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = ks_xmalloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    return s;
}

static const char *dur(char *b, size_t n, ks_ns v)
{
    ks_fmt_ns(b, n, v);
    return b;
}

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

static ks_diagnosis *add(ks_diagnoses *d, const char *id, const char *confidence)
{
    d->v = ks_xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    ks_diagnosis *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    x->id = id;
    x->confidence = confidence;
    return x;
}

static void add_step(ks_diagnosis *x, int64_t number)
{
    for (size_t i = 0; i < x->nsteps; i++)
        if (x->steps[i] == number)
            return;
    x->steps = ks_xrealloc(x->steps, (x->nsteps + 1) * sizeof *x->steps);
    x->steps[x->nsteps++] = number;
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
    return s && !s->warmup && !s->unfinished;
}

static int in_window(const ks_analysis *a, ks_ns t)
{
    return t >= a->win_start && t < a->win_end;
}

/* ---- GPU idle while loading input ---------------------------------------------------------- */

static void input_pipeline(const ks_analysis *a, const ks_steps *st, const ks_gaps *g, ks_diagnoses *out)
{
    ks_ns data = 0, idle = 0;
    for (size_t i = 0; i < g->n; i++) {
        data = ks_sat_add(data, g->dev[i].data_loading_ns);
        idle = ks_sat_add(idle, g->dev[i].idle_ns);
    }
    if (!data || data < idle / 10 || data < a->window_ns / 50)
        return;
    double share = (double)data / (double)idle;
    ks_diagnosis *x = add(out, "input_pipeline", share >= 0.5 ? "high" : share >= 0.25 ? "medium" : "low");
    char b1[32], b2[32];
    ks_buf names = {0};
    const ks_trace *t = a->trace;
    for (size_t i = 0, shown = 0; i < g->n && shown < 3; i++)
        for (size_t j = 0; j < g->dev[i].nby_label && shown < 3; j++)
            if (g->dev[i].by_label[j].name && g->dev[i].by_label[j].data) {
                ks_buf_printf(&names, "%s\"%s\" (%s)", shown ? ", " : "", ks_trace_str(t, g->dev[i].by_label[j].name),
                              dur(b2, sizeof b2, g->dev[i].by_label[j].total_ns));
                shown++;
            }
    x->hypothesis = fmtdup("The input pipeline may be starving the GPU: it waits while the CPU thread that "
                           "feeds it is loading data.");
    x->evidence = fmtdup("GPU idle for %s while the launching thread was inside data-loading ranges: %.0f%% of "
                         "all GPU idle time and %.0f%% of the window. Data-loading labels during the gaps: %s.",
                         dur(b1, sizeof b1, data), 100.0 * share, pct((double)data, (double)a->window_ns),
                         names.n ? ks_buf_cstr(&names) : "none");
    x->next_check = fmtdup("Run the same compute on batches prepared in advance (load a few batches once, keep "
                           "them on the GPU and loop over them) and compare the step time.");
    x->refuted_if = fmtdup("steps on prepared batches take as long as now, or the GPU stays idle as long.");
    ks_buf_free(&names);
    for (size_t i = 0; st && i < st->n; i++)
        if (active(&st->v[i]) && st->v[i].idle_ns > st->v[i].wall_ns / 10)
            add_step(x, st->v[i].number);
}

/* ---- the same host->device copy every step ------------------------------------------------- */

typedef struct copy_group {
    int64_t bytes;
    uint64_t copies;
    ks_ns total;
    int64_t last_step;
    size_t steps;
} copy_group;

static void repeated_upload(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out)
{
    const ks_trace *t = a->trace;
    copy_group *v = NULL;
    size_t n = 0, cap = 0;
    int64_t largest = -1;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        if (gw->v[j].kind != KS_K_MEMCPY || !ks_gpuwork_starts_in(a, &gw->v[j]))
            continue;
        {
            const ks_event *e = &t->tracks[gw->v[j].track].ev[gw->v[j].ev];
            if (!(e->flags & KS_EF_BYTES) || !strstr(ks_trace_str(t, e->name), "HtoD"))
                continue;
            const ks_step *s = step_at(st, e->ts);
            if (st && st->n && !active(s))
                continue;
            if (e->aux > largest)
                largest = e->aux;
            size_t j = 0;
            while (j < n && v[j].bytes != e->aux)
                j++;
            if (j == n) {
                copy_group gnew = {e->aux, 0, 0, INT64_MIN, 0};
                KS_PUSH(v, n, cap, gnew);
            }
            v[j].copies++;
            v[j].total = ks_sat_add(v[j].total, e->dur);
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
    if (best) {
        int is_largest = best->bytes == largest;
        ks_diagnosis *x = add(out, "repeated_upload", is_largest ? "low" : "medium");
        char b1[32];
        double per = nact ? (double)best->copies / (double)best->steps : (double)best->copies;
        x->hypothesis = fmtdup("A constant may be rebuilt on the host and uploaded again every step: the same "
                               "host-to-device copy of %lld bytes recurs.", (long long)best->bytes);
        x->evidence = fmtdup("%llu copies of %lld bytes (%.1f per step in %zu of %zu active steps), %s in all, "
                             "%.1f%% of the window.%s",
                             (unsigned long long)best->copies, (long long)best->bytes, per, best->steps, nact,
                             dur(b1, sizeof b1, best->total), pct((double)best->total, (double)a->window_ns),
                             is_largest ? " It is also the largest upload of each step, so it may well be the "
                                          "input batch, which must change every step." : "");
        x->next_check = fmtdup("Create that tensor once on the device, outside the loop, and check that the "
                               "outputs stay identical; then compare the step time.");
        x->refuted_if = fmtdup("the uploaded data differs from step to step (it is input, not a constant), or "
                               "moving it changes the outputs.");
        long long uploads = (long long)(per + 0.5);
        x->validate_cmd = fmtdup("kinesift validate constant-upload --bytes %lld --uploads %lld",
                                 (long long)(best->bytes > 0 ? best->bytes : 1), uploads > 0 ? uploads : 1);
        for (size_t i = 0; st && i < st->n; i++)
            if (active(&st->v[i]))
                add_step(x, st->v[i].number);
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

static void small_launches(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    size_t nk = 0, nl = 0, nshort = 0, most = 1 + gw->n;
    ks_ns *kd = ks_big_alloc(ks_mul(most, sizeof *kd)), *ld = ks_big_alloc(ks_mul(most, sizeof *ld));
    for (size_t j = 0; j < gw->n; j++) {
        {
            const ks_gpuwork_item *e = &gw->v[j];
            if (e->kind != KS_K_KERNEL || !ks_gpuwork_starts_in(a, e))
                continue;
            if (e->dur < 10000) {
                kd[nshort++] = e->dur;
                ks_slice_ref r = ks_gpuwork_launcher(a, e);
                if (r.s >= 0)
                    ld[nl++] = a->tl[r.tl].s[r.s].end - a->tl[r.tl].s[r.s].ts;
            }
            nk++;
        }
    }
    ks_ns mk = median_ns(kd, nshort), ml = median_ns(ld, nl);
    ks_big_free(kd, most * sizeof *kd);
    ks_big_free(ld, most * sizeof *ld);
    if (nk < 100 || nshort * 2 < nk || !nl || 2 * ml < mk)
        return;
    double idle_share = 0;
    if (a->gpu && a->ngpu)
        idle_share = a->gpu[0].span_ns ? (double)a->gpu[0].idle_ns / (double)a->gpu[0].span_ns : 0;
    ks_diagnosis *x = add(out, "small_launches", idle_share >= 0.3 && ks_mul_ge((int64_t)nshort, 10, (int64_t)nk, 8) ? "high" : "medium");
    char b1[32], b2[32];
    size_t nact = st ? st->nactive : 0;
    double per_step = nact ? (double)nk / (double)(st->n ? st->n : 1) : (double)nk;
    x->hypothesis = fmtdup("The GPU work may be fragmented into many small launches whose launch cost is "
                           "comparable to the work itself.");
    x->evidence = fmtdup("%zu of %zu kernels run under 10 us (median %s) while their launch calls take a median "
                         "%s on the CPU; the GPU is idle %.0f%% of its span.",
                         nshort, nk, dur(b1, sizeof b1, mk), dur(b2, sizeof b2, ml), 100.0 * idle_share);
    x->next_check = fmtdup("Group the work (fused kernels, torch.compile) or capture the step in a CUDA graph, "
                           "and compare the whole step time, not only the kernel time.");
    x->refuted_if = fmtdup("the step with grouped launches or a CUDA graph is not faster.");
    long long kern = (long long)(per_step + 0.5);
    x->validate_cmd = fmtdup("kinesift validate small-kernels --kernels %lld",
                             kern < 1 ? 1 : kern > 100000 ? 100000 : kern);
    for (size_t i = 0; st && i < st->n; i++)
        if (active(&st->v[i]))
            add_step(x, st->v[i].number);
}

/* ---- one operator dominates ---------------------------------------------------------------- */

static void dominant(const ks_analysis *a, ks_diagnoses *out)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32];
    for (size_t i = 0; i < a->nops; i++) {
        const ks_op_row *r = &a->ops[i];
        if (r->kind != KS_K_CPU_OP)
            continue;
        if (ks_mul_ge(r->self_ns, 10, a->window_ns, 3)) {
            ks_diagnosis *x = add(out, "dominant_op", "medium");
            x->hypothesis = fmtdup("One operator dominates the CPU time: \"%s\"; its input shapes or its "
                                   "algorithm may be the cause.", ks_trace_str(t, r->name));
            x->evidence = fmtdup("%s self time in %llu calls (median %s), %.0f%% of the window.",
                                 dur(b1, sizeof b1, r->self_ns), (unsigned long long)r->count,
                                 dur(b2, sizeof b2, r->median_ns), pct((double)r->self_ns, (double)a->window_ns));
            x->next_check = fmtdup("Time that operator alone with the same inputs (record_shapes gives the "
                                   "shapes) and compare alternatives: dtype, layout, a fused or library variant.");
            x->refuted_if = fmtdup("alone it takes a small part of what the trace shows: the cost then comes "
                                   "from what surrounds it (contention, synchronisation).");
        }
        break; /* ops are sorted by self time: only the first can dominate */
    }
    if (!a->gpu || !a->nkernels)
        return;
    /* the largest compute kernel: communication (any instance, kinesift/comm.h) is never the
     * subject of compute advice; it is what exposed_communication is about */
    const ks_kernel_row *k = NULL;
    for (size_t i = 0; i < a->nkernels && !k; i++)
        if (a->kernels[i].kind == KS_K_KERNEL && !a->kernels[i].comm)
            k = &a->kernels[i];
    if (!k)
        return;
    ks_ns busy = 0;
    for (size_t i = 0; i < a->ngpu; i++)
        busy = ks_sat_add(busy, a->gpu[i].busy_ns);
    if (k->kind == KS_K_KERNEL && busy && ks_mul_ge(k->total_ns, 10, busy, 4)) {
        ks_diagnosis *x = add(out, "dominant_kernel", "medium");
        x->hypothesis = fmtdup("One kernel dominates the GPU time: \"%s\"; the operator that launches it may "
                               "use unsuited shapes or an unsuited algorithm.", ks_trace_str(t, k->name));
        x->evidence = fmtdup("%s in %llu launches (median %s), %.0f%% of the GPU busy time.",
                             dur(b1, sizeof b1, k->total_ns), (unsigned long long)k->count,
                             dur(b2, sizeof b2, k->median_ns), pct((double)k->total_ns, (double)busy));
        x->next_check = fmtdup("Benchmark the launching operator alone with its inputs and compare kernels "
                               "(precision, tensor cores, layout).");
        x->refuted_if = fmtdup("the kernel already runs close to the device's peak throughput for its work.");
    }
}

/* ---- synchronisation in the loop ----------------------------------------------------------- */


static void sync_in_loop(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out)
{
    const ks_trace *t = a->trace;
    ks_ns total = 0;
    uint64_t calls = 0, items = 0, hip = 0;
    int64_t *steps = NULL;
    size_t nsteps = 0, cap = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (tr->kind != KS_TRACK_CPU)
            continue;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_slice *s = &tl->s[i];
            if (!in_window(a, s->ts))
                continue;
            const ks_event *e = &tr->ev[s->ev];
            const char *n = ks_trace_str(t, e->name);
            if (e->kind == KS_K_CPU_OP && !strcmp(n, "aten::item"))
                items++;
            int platform = ks_kind_is_launch_api(e->kind) ? ks_blocking_call_platform(n) : 0;
            if (!platform)
                continue;
            calls++;
            hip += platform == KS_PLATFORM_HIP;
            total = ks_sat_add(total, ks_sat_sub(s->end, s->ts));
            const ks_step *sp = step_at(st, s->ts);
            if (active(sp) && (!nsteps || steps[nsteps - 1] != sp->number))
                KS_PUSH(steps, nsteps, cap, sp->number);
        }
    }
    size_t nact = st ? st->nactive : 0;
    int every_step = nact >= 2 && nsteps * 2 >= nact;
    if (!calls || (!ks_mul_ge(total, 20, a->window_ns, 1) && !(every_step && ks_mul_ge(total, 100, a->window_ns, 1)))) {
        free(steps);
        return;
    }
    double share = (double)total / (double)a->window_ns;
    /* one blocking call at the end of a capture is not "in the loop" */
    const char *conf = nact >= 2 && !every_step ? "low" : share >= 0.2 ? "high" : share >= 0.05 ? "medium" : "low";
    ks_diagnosis *x = add(out, "sync_in_loop", conf);
    char b1[32];
    x->hypothesis = fmtdup("The host may be waiting on a synchronisation in the loop (an explicit synchronize, "
                           "a blocking copy, .item()), which stops it from queueing work ahead of the GPU.");
    x->evidence = fmtdup("%llu blocking calls (synchronize calls, synchronous copies: cudaStreamSynchronize, "
                         "hipMemcpyWithStream, cuMemcpyDtoH...) "
                         "take %s, %.0f%% of the window, in %zu of %zu active steps; %llu .item() calls.",
                         (unsigned long long)calls, dur(b1, sizeof b1, total), 100.0 * share, nsteps, nact,
                         (unsigned long long)items);
    x->next_check = fmtdup("Remove or defer the synchronisation (keep values on the GPU, call .item() every N "
                           "steps, use non_blocking copies) and compare the step time.");
    x->refuted_if = fmtdup("without it the step is not shorter: the wait then only moves to the next "
                           "synchronisation point, and the GPU work itself is the limit.");
    /* GPU work items between two blocking calls */
    long long ops = calls ? (long long)(a->links.gpu_events / calls) : 1;
    if (hip * 2 > calls) { /* validate runs on CUDA only: name the measurement to make by hand */
        char *nc = fmtdup("%s (kinesift validate runs on CUDA only: on ROCm, time %lld GPU ops with and without "
                          "a hipDeviceSynchronize after each, by hand.)", x->next_check, ops < 1 ? 1 : ops);
        free(x->next_check);
        x->next_check = nc;
    } else
        x->validate_cmd = fmtdup("kinesift validate sync-per-op --ops %lld", ops < 1 ? 1 : ops > 100000 ? 100000 : ops);
    for (size_t i = 0; i < nsteps; i++)
        add_step(x, steps[i]);
    free(steps);
}

/* ---- pageable copies ----------------------------------------------------------------------- */

static void pageable_copies(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out)
{
    const ks_trace *t = a->trace;
    ks_ns total = 0;
    uint64_t copies = 0;
    copy_group *v = NULL; /* by size: the size that costs most is the one to measure */
    size_t n = 0, cap = 0;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        if (gw->v[j].kind != KS_K_MEMCPY || !ks_gpuwork_starts_in(a, &gw->v[j]))
            continue;
        {
            const ks_event *e = &t->tracks[gw->v[j].track].ev[gw->v[j].ev];
            if (!strstr(ks_trace_str(t, e->name), "Pageable"))
                continue;
            copies++;
            total = ks_sat_add(total, e->dur);
            int64_t b = (e->flags & KS_EF_BYTES) ? e->aux : 0;
            size_t j = 0;
            while (j < n && v[j].bytes != b)
                j++;
            if (j == n) {
                copy_group gnew = {b, 0, 0, INT64_MIN, 0};
                KS_PUSH(v, n, cap, gnew);
            }
            v[j].copies++;
            v[j].total = ks_sat_add(v[j].total, e->dur);
        }
    }
    const copy_group *big = NULL;
    for (size_t j = 0; j < n; j++)
        if (!big || v[j].total > big->total)
            big = &v[j];
    if (!copies || total * 20 < a->window_ns) {
        free(v);
        return;
    }
    ks_diagnosis *x = add(out, "pageable_copy", "medium");
    char b1[32];
    x->hypothesis = fmtdup("Copies from pageable host memory may be slowing transfers and serialising them with "
                           "the host.");
    x->evidence = fmtdup("%llu copies from or to pageable memory take %s, %.0f%% of the window; most of that "
                         "time goes to %llu copies of %lld bytes.",
                         (unsigned long long)copies, dur(b1, sizeof b1, total),
                         pct((double)total, (double)a->window_ns), (unsigned long long)big->copies,
                         (long long)big->bytes);
    x->next_check = fmtdup("Allocate the host buffers pinned (pin_memory=True in the DataLoader, "
                           "tensor.pin_memory()) with non_blocking copies and compare.");
    x->refuted_if = fmtdup("pinned copies are not faster for these sizes.");
    size_t steps = st && st->nactive ? st->nactive : 1;
    long long per = (long long)(big->copies / steps);
    x->validate_cmd = fmtdup("kinesift validate pageable-copy --bytes %lld --copies %lld",
                             big->bytes > 0 ? (long long)big->bytes : 1, per > 0 ? per : 1);
    free(v);
}

/* ---- exposed communication ----------------------------------------------------------------- */

/* Communication while no compute kernel runs on the device (ks_gpu_row.comm_exposed_ns) is time
 * overlap could hide: a hypothesis when it reaches 5 % of the device's GPU span; that part is
 * the most overlap could save on the device. */
static void exposed_communication(const ks_analysis *a, ks_diagnoses *out)
{
    char b1[32], b2[32], b3[32];
    for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        if (!g->span_ns || !g->comm_exposed_ns || !ks_mul_ge(g->comm_exposed_ns, 20, g->span_ns, 1))
            continue;
        ks_diagnosis *x = add(out, "exposed_communication", "medium");
        x->hypothesis = fmtdup("Communication on GPU %d is not overlapped with compute for part of its time: the device waits "
                               "on collectives (or on the slowest rank) for %s.",
                               g->device, dur(b1, sizeof b1, g->comm_exposed_ns));
        x->evidence = fmtdup("%s of communication kernels, %s of it with no compute kernel running "
                             "(%.0f%% of the GPU span of %s); at most that much could be hidden by overlap.",
                             dur(b2, sizeof b2, g->comm_ns), dur(b1, sizeof b1, g->comm_exposed_ns),
                             pct((double)g->comm_exposed_ns, (double)g->span_ns), dur(b3, sizeof b3, g->span_ns));
        x->next_check = fmtdup("Compare the same collectives on every rank (kinesift ranks): a long wait on one "
                               "rank only points at imbalance; otherwise check bucket sizes and overlap "
                               "(DDP/FSDP prefetch, async collectives).");
        x->refuted_if = fmtdup("the collectives' bus bandwidth is already near the link's and no compute is "
                               "available to overlap them.");
    }
}

/* ---- busy is not useful work --------------------------------------------------------------- */

static void busy_caveat(const ks_analysis *a, ks_diagnoses *out)
{
    for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        if (!g->span_ns || !ks_mul_ge(g->busy_ns, 10, g->span_ns, 8))
            continue;
        ks_diagnosis *x = add(out, "busy_is_not_efficiency", "n/a");
        x->hypothesis = fmtdup("GPU %d is busy %.0f%% of its span; that alone says nothing about useful output: "
                               "busy kernels can be slow, redundant or in the wrong precision.",
                               g->device, pct((double)g->busy_ns, (double)g->span_ns));
        x->evidence = fmtdup("busy %.0f%% (union of kernel, memcpy and memset time).",
                             pct((double)g->busy_ns, (double)g->span_ns));
        x->next_check = fmtdup("Compare the achieved throughput (samples/s, FLOP/s, bytes/s) with the device's "
                               "peak for this precision, and the top kernels' efficiency.");
        x->refuted_if = fmtdup("the achieved throughput is close to what the device can deliver.");
        return;
    }
}

void ks_diagnose(const ks_analysis *a, const ks_steps *st, const ks_gaps *g, ks_diagnoses *out)
{
    memset(out, 0, sizeof *out);
    if (!a->has_events || a->window_ns <= 0)
        return;
    if (g && g->n)
        input_pipeline(a, st, g, out);
    repeated_upload(a, st, out);
    small_launches(a, st, out);
    sync_in_loop(a, st, out);
    pageable_copies(a, st, out);
    dominant(a, out);
    exposed_communication(a, out);
    busy_caveat(a, out);
}

void ks_diagnoses_free(ks_diagnoses *d)
{
    for (size_t i = 0; i < d->n; i++) {
        ks_diagnosis *x = &d->v[i];
        free(x->hypothesis);
        free(x->evidence);
        free(x->next_check);
        free(x->refuted_if);
        free(x->validate_cmd);
        free(x->steps);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}
