/* stats/stats_json.c: the JSON form of one side and of one compared metric
 * (docs/statistics.md section 4.2), shared by validate and gate. Durations are integer ns
 * (rounded); a value that could not be computed is null. */
#include "kinesift/stats.h"

#include <math.h>

#include "common/jsonw.h"
#include "stats/stats_json.h"

static void ns_value(ks_jw *w, double v)
{
    if (!isfinite(v) || fabs(v) >= 9.2e18)
        ks_jw_null(w);
    else
        ks_jw_int(w, llround(v));
}

/* a duration as integer ns, or a plain number (points, counts) */
static void value(ks_jw *w, double v, int ns)
{
    if (ns)
        ns_value(w, v);
    else
        ks_jw_double(w, v);
}

static void kv(ks_jw *w, const char *k, double v, int ns)
{
    ks_jw_key(w, k);
    value(w, v, ns);
}

static const char *noise_name(int noise)
{
    return noise == KS_NOISE_VERY ? "very-noisy" : noise == KS_NOISE_NOISY ? "noisy" : "ok";
}

void ks_summary_json_as(ks_jw *w, const ks_summary *s, const double *x, size_t n, int ns)
{
    ks_jw_kuint(w, "n", s->n);
    kv(w, "min", s->min, ns);
    kv(w, "max", s->max, ns);
    kv(w, "range", s->range, ns);
    kv(w, "mean", s->mean, ns);
    kv(w, "median", s->median, ns);
    kv(w, "stdev", s->stdev, ns);
    ks_jw_kdouble(w, "cv", s->cv);
    kv(w, "q1", s->q1, ns);
    kv(w, "q3", s->q3, ns);
    kv(w, "iqr", s->iqr, ns);
    ks_jw_kdouble(w, "iqr_rel", s->iqr_rel);
    kv(w, "mad", s->mad, ns);
    ks_jw_key(w, "outliers");
    ks_jw_obj(w);
    ks_jw_kuint(w, "mild_low", s->mild_low);
    ks_jw_kuint(w, "mild_high", s->mild_high);
    ks_jw_kuint(w, "severe_low", s->severe_low);
    ks_jw_kuint(w, "severe_high", s->severe_high);
    ks_jw_end_obj(w);
    ks_jw_kstr(w, "noise", noise_name(s->noise));
    if (x) {
        ks_jw_key(w, "samples");
        ks_jw_arr(w);
        for (size_t i = 0; i < n; i++)
            value(w, x[i], ns);
        ks_jw_end_arr(w);
    }
}

void ks_summary_json(ks_jw *w, const ks_summary *s, const double *x, size_t n)
{
    ks_summary_json_as(w, s, x, n, 1);
}

void ks_compare_json_test(ks_jw *w, const ks_compare *c, const ks_compare_params *p, double threshold)
{
    ks_jw_kdouble(w, "ci_level", c->ci_level > 0 ? c->ci_level : p->level);
    ks_jw_kuint(w, "bootstrap_resamples", p->resamples);
    ks_jw_kdouble(w, "p", c->p);
    /* a p of 0 is a bound: p < p_below (ks_compare_p_bound); null when p is a value */
    if (c->p == 0)
        ks_jw_kdouble(w, "p_below", ks_compare_p_bound(c, p));
    else
        ks_jw_knull(w, "p_below");
    ks_jw_kdouble(w, "p_raw", c->mwu.p);
    ks_jw_kuint(w, "holm_m", c->holm_m);
    ks_jw_kdouble(w, "min_p", c->min_p);
    ks_jw_kdouble(w, "u", c->mwu.u_a);
    ks_jw_kdouble(w, "z", c->mwu.z);
    const char *test = ks_compare_test_name(c);
    if (!test)
        ks_jw_knull(w, "test");
    else
        ks_jw_kstr(w, "test", test);
    ks_jw_kdouble(w, "threshold", threshold);
    ks_jw_kdouble(w, "alpha", p->alpha);
    ks_jw_kuint(w, "min_samples", p->min_samples);
    if (c->method == KS_METHOD_SAMPLES)
        return;
    ks_jw_key(w, "runs");
    ks_jw_obj(w);
    ks_jw_kstr(w, "method", c->method == KS_METHOD_RUNS ? "per-run medians, Welch t" : "one run: block bootstrap");
    ks_jw_kuint(w, "baseline", c->runs_a);
    ks_jw_kuint(w, "candidate", c->runs_b);
    ks_jw_kuint(w, "min_runs", p->min_runs);
    ks_jw_kdouble(w, "estimate", c->est);
    ks_jw_kdouble(w, "se", c->se);
    ks_jw_kdouble(w, "df", c->df);
    ks_jw_kdouble(w, "t", c->t);
    ks_jw_kdouble(w, "median_spread_baseline", c->spread_a);
    ks_jw_kdouble(w, "median_spread_candidate", c->spread_b);
    ks_jw_kdouble(w, "lag1_autocorr_baseline", c->acf_a);
    ks_jw_kdouble(w, "lag1_autocorr_candidate", c->acf_b);
    if (c->method == KS_METHOD_SINGLE_RUN) {
        ks_jw_kuint(w, "block", c->block);
        ks_jw_kdouble(w, "margin", c->margin);
    } else {
        ks_jw_knull(w, "block");
        ks_jw_knull(w, "margin");
    }
    ks_jw_end_obj(w);
}

void ks_compare_json_verdict(ks_jw *w, const ks_compare *c)
{
    ks_jw_kstr(w, "verdict", ks_verdict_name(c->verdict));
    ks_jw_kbool(w, "interval_crosses_limit", c->caveat[0] != '\0');
    if (c->caveat[0])
        ks_jw_kstr(w, "caveat", c->caveat);
    else
        ks_jw_knull(w, "caveat");
    ks_jw_kstr(w, "reason", c->reason);
    if (c->suggestion[0])
        ks_jw_kstr(w, "suggestion", c->suggestion);
    else
        ks_jw_knull(w, "suggestion");
}

void ks_compare_json(ks_jw *w, const ks_compare *c, const ks_compare_params *p)
{
    ks_jw_kdouble(w, "ratio", c->ratio);
    ks_jw_kdouble(w, "change", c->change);
    ks_jw_key(w, "ci");
    ks_jw_arr(w);
    ks_jw_double(w, c->ci_lo);
    ks_jw_double(w, c->ci_hi);
    ks_jw_end_arr(w);
    ks_compare_json_test(w, c, p, p->threshold);
    ks_jw_kuint(w, "discarded_baseline", c->discarded_a);
    ks_jw_kuint(w, "discarded_candidate", c->discarded_b);
    ks_compare_json_verdict(w, c);
}

void ks_compare_json_metric(ks_jw *w, const char *name, const ks_compare *c,
                            const ks_compare_params *p, const double *a, size_t na,
                            const double *b, size_t nb)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", name);
    ks_jw_kstr(w, "unit", "ns");
    ks_jw_key(w, "baseline");
    ks_jw_obj(w);
    ks_summary_json(w, &c->a, a, na);
    ks_jw_end_obj(w);
    ks_jw_key(w, "candidate");
    ks_jw_obj(w);
    ks_summary_json(w, &c->b, b, nb);
    ks_jw_end_obj(w);
    ks_compare_json(w, c, p);
    ks_jw_end_obj(w);
}
