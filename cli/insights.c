/* cli/insights.c: what the commands that analyse one trace share: the options that shape the
 * analysis (overlap, window, steps, warm-up, gaps, data labels, nvidia-smi telemetry, threads) and
 * the call of the library's one pipeline (ks_insights_run) with a phase line. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"

void ks_cli_insight_opts_init(ks_cli_insight_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_insights_opts_init(&o->run);
}

/* one shared option: 0 done, KS_EXIT_USAGE after a usage error, -1 not a shared one */
static int insight_opt(ks_cli_insight_opts *o, ks_load_opts *lo, const char *cmd, int opt, const char *arg)
{
    switch (opt) {
    case 'V':
        if (ks_overlap_parse(arg, &o->run.analysis.overlap, &o->run.analysis.clamp_ns) != 0)
            return ks_cli_usage(cmd, "unknown overlap policy '%s' (spill, drop, truncate, clamp:NS)", arg);
        return 0;
    case 'S': lo->strict = 1; return 0;
    case 'q': lo->quiet = o->quiet = 1; return 0;
    case 'w': o->run.window = arg; return 0;
    case 'L':
        if (ks_cli_regex(cmd, "--step-label", arg))
            return KS_EXIT_USAGE;
        o->run.steps.label_regex = arg;
        return 0;
    case 'W': {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 0 || v > 1000000)
            return ks_cli_usage(cmd, "--warmup needs a number of steps >= 0, not '%s'", arg);
        o->run.steps.warmup = (int)v;
        return 0;
    }
    case 'g':
        if (ks_duration_parse(arg, &o->run.gaps.threshold_ns) != 0 || o->run.gaps.threshold_ns < 0)
            return ks_cli_usage(cmd, "--gap-threshold needs a duration such as 10us or 2ms, not '%s'", arg);
        return 0;
    case 'D':
        if (ks_cli_regex(cmd, "--data-label", arg))
            return KS_EXIT_USAGE;
        o->run.gaps.data_regex = arg;
        return 0;
    case 'm': o->run.smi.path = arg; return 0;
    case 'z':
        if (ks_smi_set_tz(&o->run.smi, arg) != 0)
            return ks_cli_usage(cmd, "--smi-tz wants UTC, +HH:MM or a time zone of the tz database "
                                     "such as Europe/Paris, not '%s'", arg);
        return 0;
    case 'O':
        if (ks_duration_parse(arg, &o->run.smi.offset_ns) != 0)
            return ks_cli_usage(cmd, "--smi-offset needs a duration such as -1.5s, not '%s'", arg);
        return 0;
    case 'G': o->run.smi.gpu = arg; return 0;
    case 'A': o->run.diagnose.all = 1; return 0;
    case 'I': {
        char *end;
        double v = strtod(arg, &end);
        if (end != arg && *end == '%')
            end++;
        if (end == arg || *end || !(v >= 0 && v <= 100))
            return ks_cli_usage(cmd, "--min-impact needs a percentage from 0 to 100 (1, 0.5%%), not '%s'", arg);
        o->run.diagnose.min_impact = v / 100.0;
        return 0;
    }
    case 'j':
        if (ks_cli_threads(arg, &o->run.analysis.threads))
            return ks_cli_usage(cmd, "--threads needs a number from 0 to 64, not '%s'", arg);
        lo->threads = o->run.analysis.threads;
        return 0;
    default: return -1;
    }
}

static int insight_call(void *ctx, const char *cmd, int key, const char *arg)
{
    ks_cli_insight_opts *o = ctx;
    int rc = insight_opt(o, o->lo, cmd, key, arg);
    if (rc)
        return rc < 0 ? ks_cli_usage(cmd, "bad option") : rc;
    /* the options that change analyze's report (a summary keeps the default one) */
    static const char shaping[] = "VwWgDmAI";
    if (o->shaped && strchr(shaping, key))
        *o->shaped = key == 'V' ? "overlap" : key == 'w' ? "window" : key == 'W' ? "warmup"
                   : key == 'g' ? "gap-threshold" : key == 'D' ? "data-label" : key == 'A' ? "all-diagnoses"
                   : key == 'I' ? "min-impact" : "smi";
    return 0;
}

const ks_option *ks_cli_insight_table(ks_cli_insight_opts *o, ks_load_opts *lo, int all, char overlap_short)
{
    const ks_option analysis[] = {
        KS_OPT_CALL("overlap", overlap_short, insight_call, o, 'V', "a slice that outlives its parent"),
        KS_OPT_CALL("window", 0, insight_call, o, 'w', "restrict to steps:A-B or START:END"),
        KS_OPT_CALL("step-label", 0, insight_call, o, 'L', "steps are the annotations matching REGEX"),
        KS_OPT_CALL("warmup", 0, insight_call, o, 'W', "the first N steps are warm-up"),
        KS_OPT_CALL("threads", 0, insight_call, o, 'j', "threads for reading and analysis"),
        KS_OPT_CALL_FLAG("strict", 0, insight_call, o, 'S', "malformed input is an error"),
        KS_OPT_CALL_FLAG("quiet", 'q', insight_call, o, 'q', "no progress line, no warnings"),
    };
    const ks_option insight[] = {
        KS_OPT_CALL("gap-threshold", 0, insight_call, o, 'g', "GPU idle gaps longer than DUR"),
        KS_OPT_CALL("data-label", 0, insight_call, o, 'D', "names that mean loading input"),
        KS_OPT_CALL("smi", 0, insight_call, o, 'm', "nvidia-smi samples"),
        KS_OPT_CALL("smi-tz", 0, insight_call, o, 'z', "time zone of those samples"),
        KS_OPT_CALL("smi-offset", 0, insight_call, o, 'O', "added to every sample time"),
        KS_OPT_CALL("smi-gpu", 0, insight_call, o, 'G', "the GPU of the CSV to use"),
        KS_OPT_CALL_FLAG("all-diagnoses", 0, insight_call, o, 'A', "list diagnoses under the floor too"),
        KS_OPT_CALL("min-impact", 0, insight_call, o, 'I', "the floor of a listed diagnosis, % of the steps"),
    };
    _Static_assert(sizeof analysis / sizeof *analysis + sizeof insight / sizeof *insight <
                       sizeof o->table / sizeof *o->table,
                   "ks_cli_insight_opts.table holds the shared options and the end mark");
    size_t n = 0;
    o->lo = lo;
    for (size_t i = 0; i < sizeof analysis / sizeof *analysis; i++)
        o->table[n++] = analysis[i];
    for (size_t i = 0; all && i < sizeof insight / sizeof *insight; i++)
        o->table[n++] = insight[i];
    o->table[n] = (ks_option)KS_OPT_END();
    return o->table;
}

int ks_cli_insight_check(const ks_cli_insight_opts *o, const char *cmd)
{
    if (o->run.smi.path && !o->run.smi.tz_set)
        return ks_cli_usage(cmd, "--smi needs --smi-tz (UTC, +HH:MM or a zone such as Europe/Paris): "
                                 "nvidia-smi timestamps carry no time zone");
    return 0;
}

int ks_cli_insights_run(const ks_cli_insight_opts *o, const ks_trace *tr, ks_cli_insights *r, ks_error *err)
{
    memset(r, 0, sizeof *r);
    ks_cli_phase ph; /* after a long read, say that the analysis works too */
    ks_cli_phase_begin(&ph, "analysing", tr->source);
    int rc = ks_insights_run(tr, &o->run, &r->in, err);
    ks_cli_phase_end(&ph);
    r->iv.steps = &r->in.steps;
    r->iv.gaps = &r->in.gaps;
    r->iv.threads = &r->in.threads;
    r->iv.critpath = r->in.critpath;
    r->iv.diagnoses = &r->in.diagnoses;
    r->iv.telemetry = r->in.have_telemetry ? &r->in.telemetry : NULL;
    return rc;
}

void ks_cli_insights_error(const ks_cli_insights *r, const ks_trace *tr, const ks_error *err)
{
    /* a telemetry error is about the CSV, which the message names with its line */
    ks_cli_error(r->in.telemetry_failed ? NULL : tr->source, err);
}

void ks_cli_insights_free(ks_cli_insights *r)
{
    ks_insights_free(&r->in);
    memset(r, 0, sizeof *r);
}
