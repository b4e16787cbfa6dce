/* insights/window.c: the default analysis window, the denominator of every share of a report
 * when no --window is given (docs/insights.md, "The window").
 *
 * In order: the active steps (first start to last end of the steps that are neither warm-up nor
 * unfinished, as steps.c marks them); without one, the GPU span (first start to last end of the
 * GPU work: kernels, copies, sets); without GPU work, the span of the device activity kinesift
 * does not interpret (MTIA, HPU...); without either, the CPU span: first start to last end of the
 * trace's events, leaving out the profiler's own rows (its span `PyTorch Profiler (N)`, category
 * Trace, and the instant `Iteration Start: PyTorch Profiler`), which mark the profiler's start and
 * stop rather than the program's work.
 * Why it is correct: each choice is a first-start / last-end pair over the rows it names; for a
 * span of rows the window runs to last end + 1 ns (as the whole trace does) so that a zero-length
 * row at the very end lies inside, its length staying last end - first start; and a
 * step window is exactly `--window steps:A-B` over the active steps, which are consecutive
 * (warm-up steps lead, unfinished steps trail).
 * Who may use it: insights/run.c, before the tables are recomputed for the window. */
#include <stdio.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "common/util.h"
#include "insights/insights_int.h"

/* the active steps' span, and what of the steps it leaves out */
static int active_steps(const ks_steps *st, ks_window_choice *w)
{
    size_t first = SIZE_MAX, last = 0, warm = 0, unfinished = 0; /* steps are in time order */
    for (size_t i = 0; st && i < st->n; i++) {
        const ks_step *s = &st->v[i];
        if (s->warmup || s->unfinished) {
            warm += (size_t)(s->warmup != 0);
            unfinished += (size_t)(s->warmup == 0);
            continue;
        }
        if (first == SIZE_MAX || s->start < st->v[first].start)
            first = i;
        if (first == i || s->end > w->end)
            w->end = s->end;
        last = i;
    }
    if (first == SIZE_MAX)
        return 0;
    w->start = st->v[first].start;
    w->basis = "active steps";
    size_t n = st->nactive;
    char left[96] = "";
    if (warm && unfinished)
        snprintf(left, sizeof left, "; %zu warm-up and %zu unfinished left out", warm, unfinished);
    else if (warm || unfinished)
        snprintf(left, sizeof left, "; %zu %s left out", warm + unfinished, warm ? "warm-up" : "unfinished");
    char nums[64];
    if (st->v[first].number == st->v[last].number)
        snprintf(nums, sizeof nums, "active step %lld", (long long)st->v[first].number);
    else
        snprintf(nums, sizeof nums, "active steps %lld-%lld", (long long)st->v[first].number,
                 (long long)st->v[last].number);
    snprintf(w->why, sizeof w->why, "%s (%zu step%s%s)", nums, n, n == 1 ? "" : "s", left);
    return 1;
}

static int gpu_span(const ks_analysis *a, ks_window_choice *w)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_event *ev = ks_gpuwork_event(a->trace, &gw->v[j]);
        ks_ns s = ev->ts, e = ks_sat_add(ev->ts, ks_event_dur(ev));
        if (!j || s < w->start)
            w->start = s;
        if (!j || e > w->end)
            w->end = e;
    }
    if (!gw->n)
        return 0;
    w->basis = "GPU span";
    w->span = 1;
    snprintf(w->why, sizeof w->why, "GPU span (no active step: first to last GPU work, %zu events)", gw->n);
    return 1;
}

/* the device activity's extent (computed over the whole trace: no window is set yet) */
static int device_span(const ks_analysis *a, ks_window_choice *w)
{
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        const ks_device_activity *d = &a->device_activity[i];
        if (!i || d->first_ns < w->start)
            w->start = d->first_ns;
        if (!i || d->last_ns > w->end)
            w->end = d->last_ns;
    }
    if (!a->ndevice_activity)
        return 0;
    w->basis = "device span";
    w->span = 1;
    snprintf(w->why, sizeof w->why, "device span (no active step, no GPU work: first to last device event)");
    return 1;
}

static int cpu_span(const ks_analysis *a, ks_window_choice *w)
{
    const ks_trace *t = a->trace;
    int any = 0;
    uint64_t profiler = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            /* the profiler's own rows: its span, and Kineto's "Iteration Start: PyTorch Profiler" */
            if (e->kind == KS_K_TRACE_SPAN ||
                (e->ph == 'i' && !strncmp(ks_trace_str(t, e->name), "Iteration Start: ", 17))) {
                profiler++;
                continue;
            }
            ks_ns s = e->ts, en = ks_event_end(e);
            if (!any || s < w->start)
                w->start = s;
            if (!any || en > w->end)
                w->end = en;
            any = 1;
        }
    }
    if (!any)
        return 0;
    w->basis = "CPU span";
    w->span = 1;
    snprintf(w->why, sizeof w->why, "CPU span (no active step, no device work: first to last event%s)",
             profiler ? ", the profiler's own span rows left out" : "");
    return 1;
}

int ks_window_default(const ks_analysis *a, const ks_steps *st, ks_window_choice *w)
{
    memset(w, 0, sizeof *w);
    if (!active_steps(st, w) && !gpu_span(a, w) && !device_span(a, w) && !cpu_span(a, w))
        return 0;
    if (w->end <= w->start)
        w->end = ks_sat_add(w->start, 1);
    return 1;
}
