/* report/whatif.c: the `kinesift whatif` report: per step the measured time, the model's replay
 * without change (its calibration) and the projection with the shrinks applied; which waits of a
 * thread on another the model follows and how much waiting it keeps as measured. */
#include <stdio.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_int.h"
#include "report/report_util.h"

static const char *fmt(char *buf, size_t n, ks_ns v)
{
    ks_fmt_ns(buf, n, v);
    return buf;
}

/* a thread's tid, and its pid, as the JSON writes them */
static const char *tid(char *buf, size_t n, const ks_trace *t, uint32_t track)
{
    ks_id_format(t->strings, t->tracks[track].tid, buf, n);
    return buf;
}

static const char *pid(char *buf, size_t n, const ks_trace *t, uint32_t track)
{
    ks_id_format(t->strings, ks_track_pid(t, &t->tracks[track]), buf, n);
    return buf;
}

/* the waits of a thread on another: modelled (the end follows that work) or kept as measured */
static void waits_note(FILE *out, const ks_analysis *a, const ks_whatif *w, int shared)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], id[140], on[140];
    for (size_t i = 0; i < w->nwaits; i++) {
        const ks_whatif_wait *x = &w->waits[i];
        if (x->queue) {
            fprintf(out, "  wait modelled: %s waited in the data loader's __next__ for a batch that %s "
                         "pinned, %llu time%s, %s in all; each ends when its batch is pinned in the projection "
                         "(the pinning waited for the worker processes as measured, never less).\n",
                    ks_text_thread(id, sizeof id, t, x->track, shared),
                    ks_text_thread(on, sizeof on, t, x->on_track, shared), (unsigned long long)x->count,
                    x->count == 1 ? "" : "s", fmt(b1, sizeof b1, x->wait_ns));
            continue;
        }
        fprintf(out, "  wait %s: %s only waited while %s worked, %llu time%s, %s in all; ",
                x->modeled ? "modelled" : "NOT modelled", ks_text_thread(id, sizeof id, t, x->track, shared),
                ks_text_thread(on, sizeof on, t, x->on_track, shared), (unsigned long long)x->count,
                x->count == 1 ? "" : "s", fmt(b1, sizeof b1, x->wait_ns));
        if (x->modeled)
            fprintf(out, "each ends at the projected end of that thread's work plus the lag it had (%s in all).\n",
                    fmt(b2, sizeof b2, x->lag_ns));
        else
            fprintf(out, "it went on %s (in all) after that work had ended, longer than the tolerance (max(50 us, "
                         "10%% of the wait)): kept at its measured length.\n", fmt(b2, sizeof b2, x->lag_ns));
    }
    for (size_t i = 0; i < w->n; i++) {
        const ks_whatif_step *s = &w->v[i];
        if (!s->waits_unmodeled_ns)
            continue;
        char step[24];
        snprintf(step, sizeof step, s->number >= 0 ? "step %lld" : "the window", (long long)s->number);
        fprintf(out, "  %s: %s (%.1f%% of its measured time) is waiting the model could not tie to the work "
                     "waited on: its projection keeps it and may be too long.\n", step,
                fmt(b1, sizeof b1, s->waits_unmodeled_ns),
                s->measured_ns > 0 ? 100.0 * (double)s->waits_unmodeled_ns / (double)s->measured_ns : 0.0);
    }
}

/* which threads the model replays, what it leaves out, and labels that are waiting, not work */
static void threads_note(FILE *out, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh, size_t nsh)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], id[140];
    int shared = ks_text_tids_shared(t);
    ks_ns other = 0, unmodeled = 0;
    for (size_t i = 0; i < w->n; i++) {
        other = ks_sat_add(other, w->v[i].other_threads_gpu_ns);
        unmodeled = ks_sat_add(unmodeled, w->v[i].unmodeled_gpu_ns);
    }
    fprintf(out, "  threads replayed: %s (stepping)", ks_text_thread(id, sizeof id, t, w->track, shared));
    for (size_t j = 1; j < w->nthreads; j++)
        fprintf(out, ", %s", ks_text_thread(id, sizeof id, t, w->threads[j], shared));
    fprintf(out, "\n");
    if (w->nthreads > 1)
        fprintf(out, "  %s of GPU work in the steps was launched by the other threads: each thread is replayed with "
                     "its waits on the others, and their work shares the streams (and @gpu).\n",
                fmt(b1, sizeof b1, other));
    waits_note(out, a, w, shared);
    if (unmodeled)
        fprintf(out, "  %s of GPU work in the steps has no launch call in the trace: it keeps its distance to the "
                     "work before it on its stream.\n",
                fmt(b1, sizeof b1, unmodeled));
    for (size_t k = 0; k < nsh; k++)
        if (w->label_wait_ns && w->label_wait_ns[k] > 0)
            fprintf(out, "  %s: %s of its %s is time a thread (%s) only waits in it while another thread runs ops: "
                         "that is not CPU work to shrink and is not scaled; shrink the ops the other thread runs "
                         "(or @gpu) instead.\n",
                    sh[k].label, fmt(b1, sizeof b1, w->label_wait_ns[k]), fmt(b2, sizeof b2, w->label_own_ns[k]),
                    ks_text_thread(id, sizeof id, t, w->label_wait_track[k], shared));
}

void ks_whatif_text(FILE *final, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh, size_t nsh,
                    size_t width)
{
    char b1[32], b2[32], b3[32], b4[32];
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final); /* fitted to the width at the end (report/textfit.c) */
    fprintf(out, "== %s\n  shrink:", a->trace->source);
    for (size_t k = 0; k < nsh; k++)
        fprintf(out, " %s x %g", sh[k].label, sh[k].factor);
    fprintf(out, "\n  step\tmeasured\tmodel\tprojected\tchange\tscaled (CPU / GPU)\n");
    for (size_t i = 0; i < w->n; i++) {
        const ks_whatif_step *s = &w->v[i];
        char step[24];
        if (s->number >= 0)
            snprintf(step, sizeof step, "%lld", (long long)s->number);
        else
            snprintf(step, sizeof step, "window");
        ks_fmt_ns(b1, sizeof b1, s->measured_ns);
        ks_fmt_ns(b2, sizeof b2, s->model_ns);
        ks_fmt_ns(b3, sizeof b3, s->projected_ns);
        ks_fmt_ns(b4, sizeof b4, s->label_cpu_ns);
        char g[32];
        ks_fmt_ns(g, sizeof g, s->label_gpu_ns);
        fprintf(out, "  %s\t%s\t%s\t%s\t%+.1f%%\t%s / %s\n", step, b1, b2, b3,
                s->model_ns ? 100.0 * ((double)s->projected_ns / (double)s->model_ns - 1.0) : 0.0, b4, g);
    }
    fprintf(out, "  model: the dependency graph of the trace (what waits for what) replayed with every edge "
                 "kept; \"model\" is the replay without change (the measured time: work off the critical path "
                 "gives no gain).\n");
    threads_note(out, a, w, sh, nsh);
    ks_text_end(&tb, final, width);
}

void ks_whatif_json_trace(ks_jw *w, const ks_analysis *a, const ks_whatif *wi, const ks_shrink *sh, size_t nsh)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "source", a->trace->source);
    ks_jw_key(w, "shrink");
    ks_jw_arr(w);
    for (size_t k = 0; k < nsh; k++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "label", sh[k].label);
        ks_jw_kdouble(w, "factor", sh[k].factor);
        ks_jw_kint(w, "label_ns", wi->label_own_ns ? wi->label_own_ns[k] : 0);
        ks_jw_kint(w, "waiting_ns", wi->label_wait_ns ? wi->label_wait_ns[k] : 0);
        if (wi->label_wait_ns && wi->label_wait_ns[k] > 0) {
            char id[64];
            ks_jw_kstr(w, "waiting_tid", tid(id, sizeof id, a->trace, wi->label_wait_track[k]));
            ks_jw_kstr(w, "waiting_pid", pid(id, sizeof id, a->trace, wi->label_wait_track[k]));
        } else {
            ks_jw_knull(w, "waiting_tid");
            ks_jw_knull(w, "waiting_pid");
        }
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "threads");
    ks_jw_arr(w);
    for (size_t j = 0; j < wi->nthreads; j++) {
        char id[64];
        ks_jw_str(w, tid(id, sizeof id, a->trace, wi->threads[j]));
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "thread_pids"); /* the pid of each of threads, in its order */
    ks_jw_arr(w);
    for (size_t j = 0; j < wi->nthreads; j++) {
        char id[64];
        ks_jw_str(w, pid(id, sizeof id, a->trace, wi->threads[j]));
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    for (size_t i = 0; i < wi->n; i++) {
        const ks_whatif_step *s = &wi->v[i];
        ks_jw_obj(w);
        if (s->number >= 0)
            ks_jw_kint(w, "number", s->number);
        else
            ks_jw_knull(w, "number");
        ks_jw_kint(w, "measured_ns", s->measured_ns);
        ks_jw_kint(w, "model_ns", s->model_ns);
        ks_jw_kint(w, "projected_ns", s->projected_ns);
        ks_jw_kint(w, "scaled_cpu_ns", s->label_cpu_ns);
        ks_jw_kint(w, "scaled_gpu_ns", s->label_gpu_ns);
        ks_jw_kint(w, "other_threads_gpu_ns", s->other_threads_gpu_ns);
        ks_jw_kint(w, "unmodeled_gpu_ns", s->unmodeled_gpu_ns);
        ks_jw_kint(w, "waits_modeled_ns", s->waits_modeled_ns);
        ks_jw_kint(w, "waits_unmodeled_ns", s->waits_unmodeled_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "waits");
    ks_jw_arr(w);
    for (size_t i = 0; i < wi->nwaits; i++) {
        const ks_whatif_wait *x = &wi->waits[i];
        char id[64];
        ks_jw_obj(w);
        ks_jw_kstr(w, "tid", tid(id, sizeof id, a->trace, x->track));
        ks_jw_kstr(w, "pid", pid(id, sizeof id, a->trace, x->track));
        ks_jw_kstr(w, "on_tid", tid(id, sizeof id, a->trace, x->on_track));
        ks_jw_kstr(w, "on_pid", pid(id, sizeof id, a->trace, x->on_track));
        ks_jw_kbool(w, "modeled", x->modeled);
        ks_jw_kstr(w, "kind", x->queue ? "data_queue" : "thread");
        ks_jw_kuint(w, "count", x->count);
        ks_jw_kint(w, "wait_ns", x->wait_ns);
        ks_jw_kint(w, "lag_ns", x->lag_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}
