/* report/insights_json.c: the sections kinesift/insights.h adds to "kinesift.analyze/1": steps,
 * steps_summary, gaps, diagnoses and telemetry (docs/schema-analyze.md). GPU figures are null when
 * the trace has no GPU work; telemetry is null unless --smi was given. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/critpath.h"
#include "kinesift/report.h"
#include "report/report_int.h"
#include "report/report_util.h"

static void ties_json(ks_jw *w, const ks_ns *v)
{
    ks_jw_obj(w);
    for (int k = 0; k < KS_TIE_COUNT; k++)
        ks_jw_kint(w, ks_tie_name((ks_tie)k), v[k]);
    ks_jw_end_obj(w);
}

/* a step's critical path: its length, by kind, the inferred part, the top names */
static void step_path_json(ks_jw *w, const ks_analysis *a, const ks_critpath *cp, size_t i, const char *key)
{
    ks_jw_key(w, key);
    if (!cp || i >= cp->n) {
        ks_jw_null(w);
        return;
    }
    const ks_cp_step *s = &cp->v[i];
    ks_jw_obj(w);
    ks_jw_kint(w, "length_ns", ks_sat_sub(s->end, s->start));
    char kk[40];
    for (int k = 0; k < KS_CP_NKINDS; k++) {
        snprintf(kk, sizeof kk, "%s_ns", ks_cp_kind_name(k));
        ks_jw_kint(w, kk, s->by_kind[k]);
    }
    ks_jw_kint(w, "inferred_ns", s->inferred_ns);
    ks_jw_kint(w, "collective_ns", s->collective_ns);
    ks_jw_kuint(w, "pieces", s->n);
    ks_jw_key(w, "top");
    ks_jw_arr(w);
    for (size_t k = 0; k < s->ntop; k++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "kind", ks_cp_kind_name(s->top[k].kind));
        ks_jw_key(w, "name");
        if (s->top[k].name)
            ks_jw_str(w, ks_trace_str(a->trace, s->top[k].name));
        else
            ks_jw_null(w);
        ks_jw_kint(w, "ns", s->top[k].ns);
        ks_jw_kbool(w, "collective", s->top[k].collective);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

/* the graph the paths were walked on */
static void graph_json(ks_jw *w, const ks_analysis *a, const ks_critpath *cp)
{
    ks_jw_key(w, "dependency_graph");
    if (!cp) {
        ks_jw_null(w);
        return;
    }
    ks_jw_obj(w);
    ks_jw_kuint(w, "nodes", cp->nodes);
    ks_jw_key(w, "edges");
    ks_jw_obj(w);
    for (int k = 0; k < KS_DEP_NKINDS; k++) {
        /* (the data loader's queue edges only where the graph has a pin-memory thread's batches) */
        if (k == KS_DEP_DATA_QUEUE && !cp->edges[k][0] && !cp->edges[k][1])
            continue;
        ks_jw_key(w, ks_dep_kind_name(k));
        ks_jw_obj(w);
        ks_jw_kuint(w, "recorded", cp->edges[k][0]);
        ks_jw_kuint(w, "inferred", cp->edges[k][1]);
        ks_jw_end_obj(w);
    }
    ks_jw_end_obj(w);
    ks_jw_kuint(w, "clock_order_edges", cp->clock_order);
    ks_jw_kuint(w, "unlaunched_gpu_work", cp->unlaunched_gpu);
    /* without steps, the path of the window */
    step_path_json(w, a, cp->n == 1 && cp->v[0].number == -1 ? cp : NULL, 0, "window_critical_path");
    ks_jw_end_obj(w);
}

static void steps_json(ks_jw *w, const ks_analysis *a, const ks_steps *st, const ks_threads *th, const ks_critpath *cp)
{
    int gpu = a->links.gpu_events > 0;
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    for (size_t i = 0; st && i < st->n; i++) {
        const ks_step *s = &st->v[i];
        ks_jw_obj(w);
        ks_jw_kuint(w, "index", i);
        ks_jw_kint(w, "number", s->number);
        ks_jw_kstr(w, "name", ks_trace_str(a->trace, s->name));
        ks_jw_kint(w, "start_ns", s->start);
        ks_jw_kint(w, "end_ns", s->end);
        ks_jw_kint(w, "host_start_ns", s->host_start);
        ks_jw_kint(w, "host_end_ns", s->host_end);
        ks_jw_kint(w, "wall_ns", s->wall_ns);
        ks_report_json_int(w, "busy_ns", s->busy_ns, gpu);
        ks_report_json_int(w, "idle_ns", s->idle_ns, gpu);
        ks_jw_kbool(w, "warmup", s->warmup);
        ks_jw_kbool(w, "unfinished", s->unfinished);
        ks_jw_kuint(w, "gpu_events", s->gpu_events);
        ks_jw_key(w, "gpu_tied_ns");
        if (th && !th->reason && th->nsteps == st->n) {
            ks_jw_obj(w);
            for (int k = 0; k < KS_TIE_NONE; k++)
                ks_jw_kint(w, ks_tie_name((ks_tie)k), th->step_ns[i][k]);
            ks_jw_end_obj(w);
        } else {
            ks_jw_null(w);
        }
        ks_jw_key(w, "breakdown");
        ks_jw_obj(w);
        for (int r = 0; r < KS_ROLE_COUNT; r++) {
            ks_report_json_int(w, ks_role_name((ks_role)r), s->breakdown[r], ks_report_role_observed(a, r));
        }
        ks_jw_end_obj(w);
        step_path_json(w, a, cp && cp->n == st->n ? cp : NULL, i, "critical_path");
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "steps_summary");
    ks_jw_obj(w);
    ks_jw_kstr(w, "source", st ? st->source : "not computed");
    ks_jw_kuint(w, "count", st ? st->n : 0);
    ks_jw_kuint(w, "warmup", st ? st->nwarmup : 0);
    ks_jw_key(w, "outside_window"); /* found in the trace, left out by the window */
    ks_jw_obj(w);
    ks_jw_kuint(w, "warmup", st ? st->outside_warmup : 0);
    ks_jw_kuint(w, "unfinished", st ? st->outside_unfinished : 0);
    ks_jw_kuint(w, "active", st ? st->outside_active : 0);
    ks_jw_end_obj(w);
    ks_jw_kstr(w, "warmup_rule", st && st->warmup_forced ? "--warmup" : "leading outliers above median + max(3 * 1.4826 * MAD, 25% of median)");
    ks_jw_key(w, "active");
    if (st && st->nactive) {
        ks_jw_obj(w);
        ks_jw_kuint(w, "count", st->nactive);
        ks_jw_kint(w, "median_ns", st->active_median);
        ks_jw_kint(w, "mean_ns", st->active_mean);
        ks_jw_kint(w, "min_ns", st->active_min);
        ks_jw_kint(w, "max_ns", st->active_max);
        ks_jw_end_obj(w);
    } else {
        ks_jw_null(w);
    }
    ks_jw_end_obj(w);
}

static void causes(ks_jw *w, const ks_trace *t, const ks_gap_cause *c, size_t n, ks_ns total, const char *none)
{
    ks_jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "what", c[i].name ? ks_trace_str(t, c[i].name) : none);
        ks_jw_kstr(w, "kind", c[i].name ? ks_kind_name((ks_kind)c[i].kind) : "none");
        ks_jw_kbool(w, "waiting_on_other_thread", c[i].waiting);
        ks_jw_kuint(w, "count", c[i].count);
        ks_jw_kint(w, "total_ns", c[i].total_ns);
        ks_report_json_share(w, "share", c[i].total_ns, total);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void thread_id(ks_jw *w, const ks_trace *t, uint32_t track)
{
    char id[64];
    const ks_track *tr = &t->tracks[track];
    ks_id_format(t->strings, ks_track_pid(t, tr), id, sizeof id);
    ks_jw_kstr(w, "pid", id);
    ks_id_format(t->strings, tr->tid, id, sizeof id);
    ks_jw_kstr(w, "tid", id);
    if (tr->name)
        ks_jw_kstr(w, "thread_name", ks_trace_str(t, tr->name));
    else
        ks_jw_knull(w, "thread_name");
}

/* every CPU thread of the launching process over the device's gaps */
static void gap_threads_json(ks_jw *w, const ks_trace *t, const ks_gap_device *d)
{
    ks_jw_arr(w);
    for (size_t i = 0; i < d->nthreads; i++) {
        const ks_gap_thread *th = &d->threads[i];
        ks_jw_obj(w);
        thread_id(w, t, th->track);
        ks_jw_kuint(w, "launching_gaps", th->launching);
        ks_jw_key(w, "state_ns");
        ks_jw_obj(w);
        for (int s = 0; s < KS_TS_COUNT; s++)
            ks_jw_kint(w, ks_thread_state_name((ks_thread_state)s), th->state_ns[s]);
        ks_jw_end_obj(w);
        ks_jw_key(w, "by_cpu_activity");
        causes(w, t, th->by_cpu, th->nby_cpu, d->total_ns, "(nothing: CPU thread idle)");
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

/* What every thread of the process did during one gap, piece by piece: the members thread_id and
 * the calls one by one write, at once (ks_jw_katoms). A gap's pieces come thread by thread, so a
 * thread's pid and tid are made into text once for its run of pieces: the longest gaps hold
 * thousands of pieces of a few threads (3 478 on HTA's nccl trace, 82 % of its JSON), where the
 * ids' text and the calls one by one cost ~4 000 instructions a row. */
static void gap_pieces_json(ks_jw *w, const ks_trace *t, const ks_gap_device *d, const ks_gap *gp)
{
    ks_jw_key(w, "threads");
    ks_jw_arr(w);
    char pid[64], tid[64];
    const char *tname = NULL;
    uint32_t track = UINT32_MAX;
    ks_row_atoms at;
    for (size_t i = gp->piece0; i < gp->piece0 + gp->npieces && i < d->npieces; i++) {
        const ks_gap_piece *pc = &d->pieces[i];
        if (pc->track != track) {
            const ks_track *tr = &t->tracks[pc->track];
            ks_id_format(t->strings, ks_track_pid(t, tr), pid, sizeof pid);
            ks_id_format(t->strings, tr->tid, tid, sizeof tid);
            tname = tr->name ? ks_trace_str(t, tr->name) : NULL;
            track = pc->track;
        }
        at.n = 0;
        ATOM_STR(&at, "pid", pid);
        ATOM_STR(&at, "tid", tid);
        if (tname)
            ATOM_STR(&at, "thread_name", tname);
        else
            ATOM_NULL(&at, "thread_name");
        ATOM_INT(&at, "start_ns", pc->start);
        ATOM_INT(&at, "end_ns", pc->end);
        ATOM_STR(&at, "state", ks_thread_state_name((ks_thread_state)pc->state));
        if (pc->name)
            ATOM_STR(&at, "what", ks_trace_str(t, pc->name));
        else
            ATOM_NULL(&at, "what");
        ks_jw_obj(w);
        ks_jw_katoms(w, at.m, at.n);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void gaps_json(ks_jw *w, const ks_analysis *a, const ks_gaps *g)
{
    const ks_trace *t = a->trace;
    if (!g || !g->dev) {
        ks_jw_knull(w, "gaps");
        ks_jw_kstr(w, "gaps_reason", g && g->reason ? g->reason : "not computed");
        return;
    }
    ks_jw_key(w, "gaps");
    ks_jw_arr(w);
    for (size_t i = 0; i < g->n; i++) {
        const ks_gap_device *d = &g->dev[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "device", d->device);
        ks_jw_kint(w, "threshold_ns", d->threshold_ns);
        ks_jw_kuint(w, "count", d->count);
        ks_jw_kint(w, "total_ns", d->total_ns);
        ks_jw_kint(w, "idle_ns", d->idle_ns);
        ks_jw_kint(w, "data_loading_ns", d->data_loading_ns);
        ks_jw_key(w, "by_cpu_activity");
        causes(w, t, d->by_cpu, d->nby_cpu, d->total_ns, "(nothing: CPU thread idle)");
        ks_jw_key(w, "by_label");
        causes(w, t, d->by_label, d->nby_label, d->total_ns, "(no label)");
        ks_jw_kint(w, "waiting_on_other_thread_ns", d->waiting_ns);
        ks_jw_key(w, "threads");
        gap_threads_json(w, t, d);
        ks_jw_key(w, "hta");
        ks_jw_obj(w);
        ks_jw_kint(w, "host_wait_ns", d->hta_host_wait_ns);
        ks_jw_kint(w, "kernel_wait_ns", d->hta_kernel_wait_ns);
        ks_jw_kint(w, "other_ns", d->hta_other_ns);
        ks_jw_end_obj(w);
        ks_jw_key(w, "longest");
        ks_jw_arr(w);
        for (size_t j = 0; j < d->nlongest; j++) {
            ks_jw_obj(w);
            ks_jw_kint(w, "start_ns", d->longest[j].start);
            ks_jw_kint(w, "end_ns", d->longest[j].end);
            ks_jw_kint(w, "dur_ns", ks_sat_sub(d->longest[j].end, d->longest[j].start));
            ks_jw_kstr(w, "while", d->longest[j].cause ? ks_trace_str(t, d->longest[j].cause) : "(nothing)");
            ks_jw_kbool(w, "waiting_on_other_thread", d->longest[j].cause_waiting);
            gap_pieces_json(w, t, d, &d->longest[j]);
            ks_jw_end_obj(w);
        }
        ks_jw_end_arr(w);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void diagnoses_json(ks_jw *w, const ks_analysis *a, const ks_diagnoses *d)
{
    const char *platform = d && d->n ? ks_analysis_platform(a) : NULL;
    ks_jw_key(w, "diagnoses");
    ks_jw_arr(w);
    for (size_t i = 0; d && i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        ks_jw_obj(w);
        ks_jw_kstr(w, "id", x->id);
        /* a caveat claims no saving and has no confidence; memory_growth claims no time either */
        ks_jw_kstr(w, "kind", x->impact_ns >= 0 || strcmp(x->confidence, "n/a") ? "diagnosis" : "caveat");
        ks_jw_kstr(w, "hypothesis", x->hypothesis);
        ks_jw_kstr(w, "evidence", x->evidence);
        ks_jw_kstr(w, "confidence", x->confidence);
        if (x->impact_ns >= 0) {
            ks_jw_kint(w, "impact_ns", x->impact_ns);
            ks_report_json_share(w, "impact_share", x->impact_ns, d->denominator_ns);
        } else {
            ks_jw_knull(w, "impact_ns");
            ks_jw_knull(w, "impact_share");
        }
        ks_jw_kstr(w, "impact_basis", x->impact_basis);
        if (x->impact_source)
            ks_jw_kstr(w, "impact_source", x->impact_source);
        else
            ks_jw_knull(w, "impact_source");
        if (x->impact_ns >= 0 && x->impact_heuristic_ns >= 0)
            ks_jw_kint(w, "impact_heuristic_ns", x->impact_heuristic_ns);
        else
            ks_jw_knull(w, "impact_heuristic_ns");
        ks_jw_kbool(w, "below_floor", x->below_floor);
        if (x->subject)
            ks_jw_kstr(w, "subject", x->subject);
        else
            ks_jw_knull(w, "subject");
        ks_jw_kstr(w, "next_check", x->next_check);
        ks_jw_kstr(w, "refuted_if", x->refuted_if);
        char *by_hand = ks_report_measure_by_hand(platform, x->validate_cmd);
        if (x->validate_cmd && !by_hand)
            ks_jw_kstr(w, "validate", x->validate_cmd);
        else
            ks_jw_knull(w, "validate");
        if (by_hand)
            ks_jw_kstr(w, "measure_by_hand", by_hand);
        else
            ks_jw_knull(w, "measure_by_hand");
        free(by_hand);
        ks_jw_key(w, "steps");
        ks_jw_arr(w);
        for (size_t j = 0; j < x->nsteps; j++)
            ks_jw_int(w, x->steps[j]);
        ks_jw_end_arr(w);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_key(w, "diagnoses_summary");
    ks_jw_obj(w);
    ks_jw_kstr(w, "denominator", d && d->denominator ? d->denominator : "window");
    ks_jw_kint(w, "denominator_ns", d ? d->denominator_ns : 0);
    ks_jw_kdouble(w, "min_impact", d ? d->min_impact : 0.01);
    ks_jw_kuint(w, "shown", d ? d->n : 0);
    ks_jw_kuint(w, "hidden", d ? d->hidden : 0);
    ks_jw_end_obj(w);
}

static void smi_stats(ks_jw *w, const ks_smi_stats *s)
{
    ks_jw_obj(w);
    ks_jw_kuint(w, "samples", s->n);
    ks_jw_kdouble(w, "util_min", s->util_min);
    ks_jw_kdouble(w, "util_mean", s->util_mean);
    ks_jw_kdouble(w, "util_max", s->util_max);
    ks_jw_kdouble(w, "mem_used_min", s->mem_used_min);
    ks_jw_kdouble(w, "mem_used_max", s->mem_used_max);
    ks_jw_end_obj(w);
}

static void telemetry_json(ks_jw *w, const ks_analysis *a, const ks_insights_view *iv)
{
    const ks_telemetry *tm = iv ? iv->telemetry : NULL;
    if (!tm) {
        ks_jw_knull(w, "telemetry");
        return;
    }
    ks_jw_key(w, "telemetry");
    ks_jw_obj(w);
    ks_jw_kstr(w, "utilization_meaning", "share of sample time with at least one kernel running, not efficiency");
    ks_jw_kstr(w, "util_unit", tm->units_util);
    ks_jw_kstr(w, "mem_unit", tm->units_mem);
    ks_jw_kuint(w, "samples", tm->n);
    ks_jw_kuint(w, "unknown_values", tm->unknown_values);
    ks_jw_key(w, "gpus");
    ks_jw_arr(w);
    for (size_t i = 0; i < tm->nuuids; i++)
        ks_jw_str(w, tm->uuids[i]);
    ks_jw_end_arr(w);
    if (tm->gpu)
        ks_jw_kstr(w, "gpu", tm->gpu);
    else
        ks_jw_knull(w, "gpu");
    ks_jw_kstr(w, "gpu_match", tm->gpu_match);
    if (tm->reason)
        ks_jw_kstr(w, "reason", tm->reason);
    else
        ks_jw_knull(w, "reason");
    ks_jw_key(w, "window");
    if (tm->reason && !tm->window.n)
        ks_jw_null(w);
    else {
        smi_stats(w, &tm->window);
    }
    ks_jw_key(w, "trace_busy_share");
    if (a->gpu && a->ngpu && a->gpu[0].span_ns)
        ks_jw_double(w, (double)a->gpu[0].busy_ns / (double)a->gpu[0].span_ns);
    else
        ks_jw_null(w);
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    const ks_steps *st = iv->steps;
    for (size_t i = 0; i < tm->nsteps && st && i < st->n; i++) {
        ks_jw_obj(w);
        ks_jw_kint(w, "number", st->v[i].number);
        ks_jw_key(w, "smi");
        smi_stats(w, &tm->per_step[i]);
        ks_jw_key(w, "trace_busy_share");
        if (a->links.gpu_events && st->v[i].wall_ns)
            ks_jw_double(w, (double)st->v[i].busy_ns / (double)st->v[i].wall_ns);
        else
            ks_jw_null(w);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

static void named_json(ks_jw *w, const char *key, const ks_trace *t, const ks_named_ns *v, size_t n)
{
    ks_jw_key(w, key);
    ks_jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "name", ks_trace_str(t, v[i].name));
        ks_jw_kuint(w, "gpu_events", v[i].count);
        ks_jw_kint(w, "gpu_ns", v[i].gpu_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void threads_json(ks_jw *w, const ks_analysis *a, const ks_threads *th)
{
    const ks_trace *t = a->trace;
    if (!th || th->reason) {
        ks_jw_knull(w, "threads");
        ks_jw_kstr(w, "threads_reason", th && th->reason ? th->reason : "not computed");
        return;
    }
    ks_jw_key(w, "threads");
    ks_jw_obj(w);
    ks_jw_kint(w, "gpu_busy_ns", th->busy_ns);
    ks_jw_key(w, "tied_ns");
    ties_json(w, th->tied_ns);
    ks_jw_kint(w, "no_launch_ns", th->no_launch_ns);
    ks_jw_kuint(w, "fwdbwd_flows", th->flows);
    ks_jw_key(w, "launchers");
    ks_jw_arr(w);
    for (size_t i = 0; i < th->n; i++) {
        ks_jw_obj(w);
        thread_id(w, t, th->v[i].track);
        ks_jw_kstr(w, "role", th->v[i].role);
        ks_jw_kuint(w, "gpu_events", th->v[i].gpu_events);
        ks_jw_key(w, "gpu_ns");
        ties_json(w, th->v[i].gpu_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    named_json(w, "by_forward_op", t, th->by_forward_op, th->nby_forward_op);
    named_json(w, "labels_via_flow", t, th->labels, th->nlabels);
    ks_jw_end_obj(w);
}

void ks_insights_json(ks_jw *w, const ks_analysis *a, const ks_insights_view *iv)
{
    steps_json(w, a, iv ? iv->steps : NULL, iv ? iv->threads : NULL, iv ? iv->critpath : NULL);
    graph_json(w, a, iv ? iv->critpath : NULL);
    threads_json(w, a, iv ? iv->threads : NULL);
    gaps_json(w, a, iv ? iv->gaps : NULL);
    diagnoses_json(w, a, iv ? iv->diagnoses : NULL);
    telemetry_json(w, a, iv);
}
