/* report/gate_json.c: `kinesift gate --json FILE`, schema "kinesift.gate/1": the shape of
 * docs/statistics.md section 4.2 ({"tool","version","mode","status","seed","threshold","alpha",
 * "context","metrics":[{"name","unit","baseline":{stats+raw},"candidate":{...},"ratio","ci","p",
 * "test","verdict","reason"}],"exit_code"}), plus per check its status, limit, rank and the
 * per-input medians. Durations are integer ns; points and kernel counts are numbers. */
#include <math.h>
#include <string.h>

#include "common/jsonw.h"
#include "kinesift/compare.h"
#include "stats/stats_json.h"

static void side_json(ks_jw *w, const char *key, const ks_gate_side *s, const char **src)
{
    ks_jw_key(w, key);
    ks_jw_obj(w);
    ks_jw_key(w, "inputs");
    ks_jw_arr(w);
    for (size_t i = 0; i < s->inputs; i++)
        ks_jw_str(w, src[i]);
    ks_jw_end_arr(w);
    ks_jw_kuint(w, "samples", s->samples);
    ks_jw_kuint(w, "steps", s->steps);
    ks_jw_kuint(w, "warmup_steps", s->warmup);
    ks_jw_kuint(w, "unfinished_steps", s->unfinished);
    ks_jw_end_obj(w);
}

static void context(ks_jw *w, const ks_gate *g)
{
    ks_jw_key(w, "context");
    ks_jw_obj(w);
    ks_jw_kstr(w, "inputs", g->is_validate ? "validate-results" : "traces");
    side_json(w, "baseline", &g->base, g->base_sources);
    side_json(w, "candidate", &g->cand, g->cand_sources);
    ks_jw_kbool(w, "default_set", g->default_set);
    ks_jw_kdouble(w, "label_share", g->opts.label_share);
    ks_jw_kdouble(w, "idle_points", g->opts.idle_points);
    ks_jw_kbool(w, "allow_mismatch", g->opts.allow_mismatch);
    ks_jw_key(w, "settings_mismatch");
    ks_jw_arr(w);
    for (size_t i = 0; i < g->nmismatch; i++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "setting", g->mismatch[i].what);
        ks_jw_kstr(w, "a", g->mismatch[i].a);
        ks_jw_kstr(w, "b", g->mismatch[i].b);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    if (g->nmismatch)
        ks_jw_kstr(w, "settings_mismatch_between", g->mismatch_where);
    else
        ks_jw_knull(w, "settings_mismatch_between");
    ks_jw_key(w, "warnings");
    ks_jw_arr(w);
    for (size_t i = 0; i < g->nwarnings; i++)
        ks_jw_str(w, g->warnings[i]);
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

/* A side of a check in points or kernels: the keys of ks_summary_json, as numbers. */
static void summary_plain(ks_jw *w, const ks_summary *s, const double *x, size_t n)
{
    ks_summary_json_as(w, s, x, n, 0);
}

static void side_stats(ks_jw *w, const char *key, const ks_gate_result *r, const ks_summary *s, const double *x,
                       size_t n, const ks_trace_median *m, size_t nm)
{
    ks_jw_key(w, key);
    ks_jw_obj(w);
    if (!strcmp(r->unit, "ns"))
        ks_summary_json(w, s, x, n);
    else
        summary_plain(w, s, x, n);
    ks_jw_key(w, "per_input");
    ks_jw_arr(w);
    for (size_t i = 0; i < nm; i++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "source", m[i].source);
        ks_jw_kuint(w, "n", m[i].n);
        if (!strcmp(r->unit, "ns") && !isnan(m[i].median))
            ks_jw_kint(w, "median", llround(m[i].median));
        else
            ks_jw_kdouble(w, "median", m[i].median);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

/* The decision keys of a points check (ks_compare_json's keys, CI of the difference). */
static void points_json(ks_jw *w, const ks_gate_result *r)
{
    const ks_compare *c = &r->cmp;
    ks_jw_knull(w, "ratio");
    ks_jw_knull(w, "change");
    ks_jw_kdouble(w, "difference", r->diff);
    ks_jw_key(w, "ci");
    ks_jw_arr(w);
    ks_jw_double(w, r->diff_lo);
    ks_jw_double(w, r->diff_hi);
    ks_jw_end_arr(w);
    ks_jw_kstr(w, "ci_of", "difference");
    ks_compare_json_test(w, c, &r->params, r->limit);
    ks_compare_json_verdict(w, c);
}

static void metric(ks_jw *w, const ks_gate_result *r)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", r->title);
    ks_jw_kstr(w, "check", ks_metric_name(r->metric));
    if (r->name)
        ks_jw_kstr(w, "label", r->name);
    else
        ks_jw_knull(w, "label");
    if (r->has_rank && r->rank != INT64_MIN)
        ks_jw_kint(w, "rank", r->rank);
    else
        ks_jw_knull(w, "rank");
    ks_jw_kstr(w, "unit", r->unit);
    ks_jw_kstr(w, "status", ks_gate_status_name(r->status));
    ks_jw_kbool(w, "default_check", r->from_default);
    ks_jw_kdouble(w, "limit", r->limit);
    ks_jw_kstr(w, "limit_unit", ks_metric_points(r->metric) ? "points" : "fraction");
    if (r->status == KS_GATE_ERROR) {
        ks_jw_knull(w, "verdict");
        ks_jw_kstr(w, "reason", r->error);
        ks_jw_end_obj(w);
        return;
    }
    side_stats(w, "baseline", r, &r->cmp.a, r->a, r->na, r->per_a, r->nper_a);
    side_stats(w, "candidate", r, &r->cmp.b, r->b, r->nb, r->per_b, r->nper_b);
    if (ks_metric_points(r->metric))
        points_json(w, r);
    else
        ks_compare_json(w, &r->cmp, &r->params);
    ks_jw_end_obj(w);
}

int ks_gate_json(FILE *out, const ks_gate *g, int inconclusive_fails)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "kinesift.gate/1");
    ks_jw_kstr(&w, "tool", "kinesift");
    ks_jw_kstr(&w, "version", ks_version());
    ks_jw_kstr(&w, "mode", "gate");
    ks_jw_kstr(&w, "status", ks_gate_overall(g));
    ks_jw_kuint(&w, "seed", g->opts.params.seed);
    ks_jw_kdouble(&w, "threshold", g->opts.params.threshold);
    ks_jw_kdouble(&w, "alpha", g->opts.params.alpha);
    ks_jw_kuint(&w, "min_samples", g->opts.params.min_samples);
    ks_jw_kuint(&w, "runs_per_side_min", g->opts.params.min_runs);
    ks_jw_kdouble(&w, "single_run_margin", g->opts.params.single_run_margin);
    ks_jw_kuint(&w, "bootstrap_resamples", g->opts.params.resamples);
    ks_jw_kstr(&w, "on_inconclusive", inconclusive_fails ? "fail" : "warn");
    context(&w, g);
    ks_jw_key(&w, "metrics");
    ks_jw_arr(&w);
    for (size_t i = 0; i < g->n; i++)
        metric(&w, &g->r[i]);
    ks_jw_end_arr(&w);
    if (g->input_error)
        ks_jw_kstr(&w, "error", g->error);
    else
        ks_jw_knull(&w, "error");
    ks_jw_kint(&w, "exit_code", ks_gate_exit(g, inconclusive_fails));
    ks_jw_end_obj(&w);
    int rc = ks_jw_close(&w);
    return rc != 0 || ferror(out) ? -1 : 0;
}
