/* cli/insights.c: what analyze, report and annotate share: the options that shape the analysis
 * (overlap, window, steps, warm-up, gaps, data labels, nvidia-smi telemetry, threads) and the run
 * of the analysis passes over one trace, in the one order that gives the figures of
 * `analyze --format json` (analysis, steps, window, gaps, telemetry, diagnoses). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"

void ks_cli_insight_opts_init(ks_cli_insight_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_analysis_opts_init(&o->ao);
    ks_step_opts_init(&o->so);
    ks_gap_opts_init(&o->go);
}

int ks_cli_insight_opt(ks_cli_insight_opts *o, ks_load_opts *lo, const char *cmd, int opt, const char *arg)
{
    switch (opt) {
    case 'V':
        if (ks_overlap_parse(arg, &o->ao.overlap, &o->ao.clamp_ns) != 0)
            return ks_cli_usage(cmd, "unknown overlap policy '%s' (spill, drop, truncate, clamp:NS)", arg);
        return 0;
    case 'S': lo->strict = 1; return 0;
    case 'q': lo->quiet = o->quiet = 1; return 0;
    case 'w': o->window = arg; return 0;
    case 'L':
        if (ks_cli_regex(cmd, "--step-label", arg))
            return KS_EXIT_USAGE;
        o->so.label_regex = arg;
        return 0;
    case 'W': {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 0)
            return ks_cli_usage(cmd, "--warmup needs a number of steps >= 0, not '%s'", arg);
        o->so.warmup = (int)v;
        return 0;
    }
    case 'g':
        if (ks_duration_parse(arg, &o->go.threshold_ns) != 0 || o->go.threshold_ns < 0)
            return ks_cli_usage(cmd, "--gap-threshold needs a duration such as 10us or 2ms, not '%s'", arg);
        return 0;
    case 'D':
        if (ks_cli_regex(cmd, "--data-label", arg))
            return KS_EXIT_USAGE;
        o->go.data_regex = arg;
        return 0;
    case 'm': o->smi.path = arg; return 0;
    case 'z':
        if (ks_tz_parse(arg, &o->smi.tz_offset_ns) != 0) {
            if (ks_tz_zone_check(arg) != 0)
                return ks_cli_usage(cmd, "--smi-tz wants UTC, +HH:MM or a time zone of the tz database "
                                         "such as Europe/Paris, not '%s'", arg);
            o->smi.tz_zone = arg;
        }
        o->smi.tz_set = 1;
        return 0;
    case 'O':
        if (ks_duration_parse(arg, &o->smi.offset_ns) != 0)
            return ks_cli_usage(cmd, "--smi-offset needs a duration such as -1.5s, not '%s'", arg);
        return 0;
    case 'G': o->smi.gpu = arg; return 0;
    case 'j':
        if (ks_cli_threads(arg, &o->ao.threads))
            return ks_cli_usage(cmd, "--threads needs a number from 0 to 64, not '%s'", arg);
        lo->threads = o->ao.threads;
        return 0;
    default: return -1;
    }
}

int ks_cli_insight_check(const ks_cli_insight_opts *o, const char *cmd)
{
    if (o->smi.path && !o->smi.tz_set)
        return ks_cli_usage(cmd, "--smi needs --smi-tz (UTC, +HH:MM or a zone such as Europe/Paris): "
                                 "nvidia-smi timestamps carry no time zone");
    return 0;
}

/* the passes, in the order of `analyze --format json` */
static int run_passes(const ks_cli_insight_opts *o, const ks_trace *tr, ks_cli_insights *r, ks_error *err)
{
    if (ks_analyze(tr, &o->ao, &r->a, err) != KS_OK || ks_steps_find(r->a, &o->so, &r->steps, err) != KS_OK)
        return KS_ERR;
    if (o->window) {
        ks_ns w0 = 0, w1 = 0;
        if (ks_window_parse(o->window, r->a, &r->steps, &w0, &w1, err) != KS_OK ||
            ks_analysis_set_window(r->a, w0, w1, err) != KS_OK)
            return KS_ERR;
        ks_steps_restrict(&r->steps, w0, w1);
    }
    if (ks_gaps_find(r->a, &r->steps, &o->go, &r->gaps, err) != KS_OK ||
        ks_threads_find(r->a, &r->steps, &r->threads) != KS_OK)
        return KS_ERR;
    if (o->smi.path) {
        if (ks_telemetry_load(&o->smi, r->a, &r->steps, &r->tm, err) != KS_OK) {
            r->smi_failed = 1;
            return KS_ERR;
        }
        r->have_tm = 1;
    }
    ks_diagnose(r->a, &r->steps, &r->gaps, &r->dx);
    r->iv.steps = &r->steps;
    r->iv.gaps = &r->gaps;
    r->iv.threads = &r->threads;
    r->iv.diagnoses = &r->dx;
    r->iv.telemetry = r->have_tm ? &r->tm : NULL;
    return KS_OK;
}

int ks_cli_insights_run(const ks_cli_insight_opts *o, const ks_trace *tr, ks_cli_insights *r, ks_error *err)
{
    memset(r, 0, sizeof *r);
    ks_cli_phase ph; /* after a long read, say that the analysis works too */
    ks_cli_phase_begin(&ph, "analysing", tr->source);
    int rc = run_passes(o, tr, r, err);
    ks_cli_phase_end(&ph);
    return rc;
}

void ks_cli_insights_error(const ks_cli_insights *r, const ks_trace *tr, const ks_error *err)
{
    /* a telemetry error is about the CSV, which the message names with its line */
    ks_cli_error(r->smi_failed ? NULL : tr->source, err);
}

void ks_cli_insights_free(ks_cli_insights *r)
{
    ks_diagnoses_free(&r->dx);
    ks_telemetry_free(&r->tm);
    ks_gaps_free(&r->gaps);
    ks_threads_free(&r->threads);
    ks_steps_free(&r->steps);
    ks_analysis_free(r->a);
    memset(r, 0, sizeof *r);
}
