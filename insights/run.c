/* insights/run.c: ks_insights_run, the one pipeline of the passes over a trace: analysis, steps,
 * the window, the memory of each step, gaps, telemetry and diagnoses, in the order that gives the figures of
 * `analyze --format json`. Without --window the window is the default of insights/window.c (the
 * active steps, else the GPU span, else the CPU span), which every share then names.
 * Why it is correct: it is the sequence every command wrote out for itself before (the CLI's
 * analyze, report, annotate, summarize, whatif, diff and gate), once: a window needs the steps
 * (steps:A-B), the tables are recomputed for it and the steps restricted to it before gaps,
 * telemetry and diagnoses read them. With more than one thread the tables, the gaps and threads
 * passes and the critical path run side by side (beside_task): none reads what another writes.
 * When it does not apply: passes over several traces (diff's pairing, ranks) run it per trace and
 * combine the results themselves.
 * Who may use it: the CLI and library users; one call per trace, several traces on several
 * threads at once (each call owns its results; telemetry with an IANA zone sets TZ, see
 * ks_smi_opts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/passes.h"
#include "algo/pool.h"
#include "common/util.h"
#include "insights/insights_int.h"
#include "kinesift/critpath.h"
#include "kinesift/timings.h"

void ks_insights_opts_init(ks_insights_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_analysis_opts_init(&o->analysis);
    ks_step_opts_init(&o->steps);
    ks_gap_opts_init(&o->gaps);
    ks_diagnose_opts_init(&o->diagnose);
}

/* the window asked for (--window SPEC; "trace": the whole trace, as analysed) */
static int explicit_window(const ks_insights_opts *o, ks_insights *r, ks_error *err)
{
    if (!strcmp(o->window, "trace")) {
        snprintf(r->a->window_why, sizeof r->a->window_why, "whole trace (--window trace)");
        return KS_OK;
    }
    ks_ns w0 = 0, w1 = 0;
    if (ks_window_parse(o->window, r->a, &r->steps, &w0, &w1, err) != KS_OK ||
        ks_analysis_set_window_unions(r->a, w0, w1, err) != KS_OK)
        return KS_ERR;
    ks_steps_restrict(&r->steps, w0, w1);
    r->a->window_basis = "--window";
    snprintf(r->a->window_why, sizeof r->a->window_why, "--window %s", o->window);
    return KS_OK;
}

/* no --window: the active steps, else the GPU span, else the CPU span (insights/window.c) */
static int default_window(ks_insights *r, ks_error *err)
{
    ks_window_choice w;
    if (!ks_window_default(r->a, &r->steps, &w))
        return KS_OK; /* no event: nothing to restrict */
    /* a span of rows ends 1 ns after its last row, as the whole trace does, so that a zero-length
     * row at the very end is inside; its length stays last end - first start */
    ks_ns end = w.span ? ks_sat_add(w.end, 1) : w.end;
    if (ks_analysis_set_window_unions(r->a, w.start, end, err) != KS_OK)
        return KS_ERR;
    if (w.span && w.end > w.start) {
        r->a->window_ns = ks_sat_sub(w.end, w.start);
        r->a->win_last = w.end;
    }
    ks_steps_restrict(&r->steps, w.start, end);
    r->a->window_basis = w.basis;
    snprintf(r->a->window_why, sizeof r->a->window_why, "%s", w.why);
    return KS_OK;
}

/* the analysis and steps of t, restricted to the window; the tables are not made yet */
static int steps_in_window(const ks_trace *t, const ks_insights_opts *o, ks_insights *r, ks_error *err)
{
    ks_timings *tm = o->analysis.timings;
    /* the steps and the window come from the timelines: the tables are made once, for the window */
    ks_analysis_opts ao = o->analysis;
    ao.tables_later = 1;
    if (ks_analyze(t, &ao, &r->a, err) != KS_OK)
        return KS_ERR;
    int64_t t0 = ks_timings_start(tm);
    if (ks_steps_find(r->a, &o->steps, &r->steps, err) != KS_OK)
        return KS_ERR;
    ks_timings_stop(tm, "steps", t0, 0);
    if (o->window)
        return explicit_window(o, r, err);
    if (!o->whole_trace && !(o->steps_or_trace && !r->steps.nactive))
        return default_window(r, err);
    return KS_OK; /* the whole trace: no window is set */
}

/* Up to this many events the critical path joins the batch below; past it, it runs after, alone:
 * on dense_1g (6 M events) beside the others it raised the peak RSS from 310-313 MiB to 310-332
 * MiB, by the order its memory met theirs (the target there is 0.3x the input). */
#define CRITPATH_BESIDE_MAX_EVENTS 1000000

/* Three passes side by side: the gaps and the threads, the tables, the critical path. None reads
 * the tables (ops, labels, kernels), and the tables write nothing the others read (the GPU rows and
 * their communication are made with the window, before; ks_analysis_set_window_unions); the gaps
 * and the critical path read only the timelines, the GPU work and the steps, and write their own
 * results. So their results are the same in any order. Item 0, the gaps, goes to the caller at
 * once (the longest of the three on nccl_data and the b200 eager trace, the tables on the H100 and
 * resnet50 traces); the critical path, last, to whichever thread is free first. */
typedef struct beside_ctx {
    ks_insights *r;
    const ks_insights_opts *o;
    int rc, cp_rc;
    ks_error err, cp_err;
} beside_ctx;

static int gaps_and_threads(ks_insights *r, const ks_insights_opts *o, ks_error *err)
{
    if (ks_gaps_find(r->a, &r->steps, &o->gaps, &r->gaps, err) != KS_OK)
        return KS_ERR;
    return ks_threads_find(r->a, &r->steps, &r->threads);
}

static void beside_task(void *ctx, size_t i)
{
    beside_ctx *c = ctx;
    if (i == 0)
        c->rc = gaps_and_threads(c->r, c->o, &c->err);
    else if (i == 1)
        ks_analysis_tables_untimed(c->r->a);
    else
        c->cp_rc = ks_critpath_build(c->r->a, &c->r->steps, c->r->critpath, &c->cp_err);
}

int ks_insights_run(const ks_trace *t, const ks_insights_opts *o, ks_insights *r, ks_error *err)
{
    ks_insights_opts defaults;
    if (!o) {
        ks_insights_opts_init(&defaults);
        o = &defaults;
    }
    memset(r, 0, sizeof *r);
    if (steps_in_window(t, o, r, err) != KS_OK)
        return KS_ERR;
    ks_memory_steps(r->a->memory, &r->steps);
    if (o->depth == KS_INSIGHTS_STEPS) {
        ks_analysis_tables(r->a);
        return KS_OK;
    }
    ks_timings *tm = o->analysis.timings;
    if (ks_analysis_threads(r->a) <= 1)
        ks_analysis_tables(r->a); /* its own --timings row, before gaps and threads */
    r->critpath = ks_xcalloc(1, sizeof *r->critpath);
    int beside = ks_analysis_threads(r->a) > 1;
    int cp_beside = beside && t->events <= CRITPATH_BESIDE_MAX_EVENTS, cp_rc = KS_OK;
    ks_error cp_err;
    int64_t t0 = ks_timings_start(tm);
    if (beside) {
        beside_ctx c;
        memset(&c, 0, sizeof c);
        c.r = r;
        c.o = o;
        c.rc = c.cp_rc = KS_OK;
        ks_pool_run(cp_beside ? 3 : 2, ks_analysis_threads(r->a), beside_task, &c);
        t0 = ks_timings_stop(tm, cp_beside ? "tables | gaps, threads | critical path"
                                           : "analysis: tables | gaps, threads", t0, 0);
        if (c.rc != KS_OK) {
            *err = c.err;
            return KS_ERR;
        }
        cp_rc = c.cp_rc;
        cp_err = c.cp_err;
    } else {
        if (ks_gaps_find(r->a, &r->steps, &o->gaps, &r->gaps, err) != KS_OK)
            return KS_ERR;
        t0 = ks_timings_stop(tm, "gaps", t0, 0);
        if (ks_threads_find(r->a, &r->steps, &r->threads) != KS_OK)
            return KS_ERR;
        t0 = ks_timings_stop(tm, "threads", t0, 0);
    }
    if (o->smi.path) {
        if (ks_telemetry_load(&o->smi, r->a, &r->steps, &r->telemetry, err) != KS_OK) {
            r->telemetry_failed = 1;
            return KS_ERR;
        }
        r->have_telemetry = 1;
        t0 = ks_timings_stop(tm, "telemetry", t0, 0);
    }
    if (!cp_beside) {
        cp_rc = ks_critpath_build(r->a, &r->steps, r->critpath, &cp_err);
        t0 = ks_timings_stop(tm, "critical path", t0, 0);
    }
    if (cp_rc != KS_OK) {
        *err = cp_err;
        return KS_ERR;
    }
    ks_diagnose_path(r->a, &r->steps, &r->gaps, r->critpath, &o->diagnose, &r->diagnoses);
    ks_timings_stop(tm, "diagnoses", t0, 0);
    return KS_OK;
}

void ks_insights_free(ks_insights *r)
{
    if (r->critpath)
        ks_critpath_free(r->critpath);
    free(r->critpath);
    ks_diagnoses_free(&r->diagnoses);
    ks_telemetry_free(&r->telemetry);
    ks_gaps_free(&r->gaps);
    ks_threads_free(&r->threads);
    ks_steps_free(&r->steps);
    ks_analysis_free(r->a);
    memset(r, 0, sizeof *r);
}
