/* report/diff_json.c: `kinesift diff --format json`, schema "kinesift.diff/1": both inputs with
 * their capture settings, the settings that differ, the step comparison (the metric object of
 * docs/statistics.md section 4.2) and the three aligned tables, every row with both sides
 * (null when absent), the deltas and the delta percentages (null when the before value is 0), and
 * per_step (per-step means, null when a side's window is not its active steps). */
#include <math.h>
#include <string.h>

#include "common/jsonw.h"
#include "kinesift/compare.h"
#include "stats/stats_json.h"

static void settings(ks_jw *w, const ks_trace_settings *s)
{
    ks_jw_key(w, "settings");
    ks_jw_obj(w);
    ks_jw_kbool(w, "with_stack", s->with_stack > 0);
    ks_jw_kbool(w, "record_shapes", s->record_shapes > 0);
    ks_jw_kbool(w, "profile_memory", s->profile_memory > 0);
    ks_jw_kbool(w, "with_modules", s->with_modules > 0);
    ks_jw_kbool(w, "with_flops", s->with_flops > 0);
    ks_jw_kbool(w, "gpu_activity", s->gpu_activity > 0);
    ks_jw_kbool(w, "runtime_activity", s->runtime_activity > 0);
    if (s->devices[0])
        ks_jw_kstr(w, "devices", s->devices);
    else
        ks_jw_knull(w, "devices");
    ks_jw_end_obj(w);
}

static void input(ks_jw *w, const char *key, const char *src, ks_ns window, const ks_trace_settings *s)
{
    ks_jw_key(w, key);
    ks_jw_obj(w);
    ks_jw_kstr(w, "source", src);
    ks_jw_kint(w, "window_ns", window);
    settings(w, s);
    ks_jw_end_obj(w);
}

static void side(ks_jw *w, const char *key, const ks_diff_side *s, int kernels)
{
    ks_jw_key(w, key);
    if (!s->present) {
        ks_jw_null(w);
        return;
    }
    ks_jw_obj(w);
    ks_jw_kuint(w, "count", s->count);
    if (kernels) {
        ks_jw_kint(w, "total_ns", s->incl_ns);
    } else {
        ks_jw_kint(w, "self_ns", s->self_ns);
        ks_jw_kint(w, "incl_ns", s->incl_ns);
        ks_jw_kint(w, "gpu_ns", s->gpu_ns);
        ks_jw_kint(w, "gpu_direct_ns", s->gpu_self_ns);
    }
    ks_jw_kuint(w, "names", s->names);
    ks_jw_end_obj(w);
}

static void pct(ks_jw *w, const char *k, const ks_diff_row *r, ks_ns b, ks_ns a)
{
    if (r->before.present && r->after.present && b > 0)
        ks_jw_kdouble(w, k, 100.0 * (double)(a - b) / (double)b);
    else
        ks_jw_knull(w, k);
}

static void delta(ks_jw *w, const char *k, const ks_diff_row *r, ks_ns b, ks_ns a)
{
    ks_jw_kint(w, k, (r->after.present ? a : 0) - (r->before.present ? b : 0));
}

static void per_step(ks_jw *w, const ks_diff_row *r);

static void row(ks_jw *w, const ks_diff_row *r, int kernels)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", r->name);
    ks_jw_kstr(w, kernels ? "kind" : "category", r->cat);
    ks_jw_kstr(w, "status", ks_diff_status_name(r->status));
    side(w, "before", &r->before, kernels);
    side(w, "after", &r->after, kernels);
    ks_jw_key(w, "delta");
    ks_jw_obj(w);
    ks_jw_kint(w, "count", (int64_t)(r->after.present ? r->after.count : 0) -
                               (int64_t)(r->before.present ? r->before.count : 0));
    if (kernels) {
        delta(w, "total_ns", r, r->before.incl_ns, r->after.incl_ns);
        pct(w, "total_pct", r, r->before.incl_ns, r->after.incl_ns);
    } else {
        delta(w, "self_ns", r, r->before.self_ns, r->after.self_ns);
        pct(w, "self_pct", r, r->before.self_ns, r->after.self_ns);
        delta(w, "incl_ns", r, r->before.incl_ns, r->after.incl_ns);
        pct(w, "incl_pct", r, r->before.incl_ns, r->after.incl_ns);
        delta(w, "gpu_ns", r, r->before.gpu_ns, r->after.gpu_ns);
        pct(w, "gpu_pct", r, r->before.gpu_ns, r->after.gpu_ns);
    }
    ks_jw_end_obj(w);
    ks_jw_kint(w, "impact_ns", r->impact_ns);
    per_step(w, r);
    ks_jw_end_obj(w);
}

static void table(ks_jw *w, const char *key, const ks_diff_table *t, int kernels, size_t top)
{
    ks_jw_key(w, key);
    ks_jw_obj(w);
    ks_jw_kuint(w, "rows_total", t->n);
    ks_jw_kuint(w, "changed", t->changed);
    ks_jw_kuint(w, "added", t->added);
    ks_jw_kuint(w, "removed", t->removed);
    ks_jw_key(w, "rows");
    ks_jw_arr(w);
    for (size_t i = 0; i < t->n && (!top || i < top); i++)
        row(w, &t->v[i], kernels);
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

static void steps(ks_jw *w, const ks_diff *d)
{
    const ks_diff_steps *s = &d->steps;
    ks_jw_key(w, "steps");
    ks_jw_obj(w);
    ks_jw_kstr(w, "source_before", s->source_before);
    ks_jw_kstr(w, "source_after", s->source_after);
    ks_jw_kuint(w, "warmup_before", s->warmup_before);
    ks_jw_kuint(w, "warmup_after", s->warmup_after);
    ks_jw_kuint(w, "unfinished_before", s->unfinished_before);
    ks_jw_kuint(w, "unfinished_after", s->unfinished_after);
    ks_jw_kuint(w, "seed", d->opts.params.seed);
    ks_jw_key(w, "comparison");
    ks_compare_json_metric(w, "step_time", &s->cmp, &d->opts.params, s->before, s->nbefore, s->after, s->nafter);
    /* the rank test of the step times, beside the bootstrap's p the verdict uses */
    ks_jw_key(w, "mann_whitney");
    if (isnan(s->mwu.p)) {
        ks_jw_null(w);
    } else {
        ks_jw_obj(w);
        ks_jw_kstr(w, "test", ks_mwu_name(&s->mwu));
        ks_jw_kdouble(w, "u", s->mwu.u_a);
        ks_jw_kdouble(w, "u_after", s->mwu.u_b);
        ks_jw_kdouble(w, "z", s->mwu.z);
        ks_jw_kdouble(w, "p", s->mwu.p);
        ks_jw_kdouble(w, "min_p", ks_mwu_min_p(s->nbefore, s->nafter));
        ks_jw_kbool(w, "ties", s->mwu.ties);
        ks_jw_end_obj(w);
    }
    ks_jw_end_obj(w);
}

static void per_step(ks_jw *w, const ks_diff_row *r)
{
    const ks_diff_per_step *p = &r->per_step;
    ks_jw_key(w, "per_step");
    if (!p->defined) {
        ks_jw_null(w);
        return;
    }
    ks_jw_obj(w);
    ks_jw_kdouble(w, "count_before", p->count_before);
    ks_jw_kdouble(w, "count_after", p->count_after);
    ks_jw_kdouble(w, "ns_before", p->ns_before);
    ks_jw_kdouble(w, "ns_after", p->ns_after);
    if (isnan(p->delta_pct))
        ks_jw_knull(w, "delta_pct");
    else
        ks_jw_kdouble(w, "delta_pct", p->delta_pct);
    ks_jw_end_obj(w);
}

int ks_diff_json(FILE *out, const ks_diff *d, size_t top)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "kinesift.diff/1");
    ks_jw_kstr(&w, "tool", "kinesift");
    ks_jw_kstr(&w, "version", ks_version());
    input(&w, "before", d->before_source, d->before_window_ns, &d->before_settings);
    input(&w, "after", d->after_source, d->after_window_ns, &d->after_settings);
    ks_jw_key(&w, "settings_mismatch");
    ks_jw_arr(&w);
    for (size_t i = 0; i < d->nmismatch; i++) {
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "setting", d->mismatch[i].what);
        ks_jw_kstr(&w, "before", d->mismatch[i].a);
        ks_jw_kstr(&w, "after", d->mismatch[i].b);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_kbool(&w, "normalize_kernels", d->opts.normalize_kernels);
    /* per step: each side's window is its active steps; by_step: their numbers differ, so rows
     * are compared by their per-step means (status, impact_ns and the order) */
    ks_jw_key(&w, "per_step");
    ks_jw_obj(&w);
    ks_jw_kbool(&w, "defined", d->per_step);
    ks_jw_kbool(&w, "by_step", d->by_step);
    ks_jw_kuint(&w, "steps_before", d->steps_before);
    ks_jw_kuint(&w, "steps_after", d->steps_after);
    ks_jw_kuint(&w, "step_rows_left_out", d->step_rows);
    ks_jw_end_obj(&w);
    steps(&w, d);
    table(&w, "ops", &d->ops, 0, top);
    table(&w, "labels", &d->labels, 0, top);
    table(&w, "kernels", &d->kernels, 1, top);
    ks_jw_end_obj(&w);
    int rc = ks_jw_close(&w);
    return rc != 0 || ferror(out) ? -1 : 0;
}
