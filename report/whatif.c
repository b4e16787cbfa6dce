/* report/whatif.c: the `kinesift whatif` report: per step the measured time, the model's replay
 * without change (its calibration) and the projection with the shrinks applied. */
#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_int.h"

void ks_whatif_text(FILE *out, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh, size_t nsh)
{
    char b1[32], b2[32], b3[32], b4[32];
    fprintf(out, "== %s\n  shrink:", a->trace->source);
    for (size_t k = 0; k < nsh; k++)
        fprintf(out, " %s x %g", sh[k].label, sh[k].factor);
    fprintf(out, "\n  %8s %12s %12s %12s %9s  %s\n", "step", "measured", "model", "projected", "change",
            "scaled (CPU / GPU)");
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
        fprintf(out, "  %8s %12s %12s %12s %+8.1f%%  %s / %s\n", step, b1, b2, b3,
                s->model_ns ? 100.0 * ((double)s->projected_ns / (double)s->model_ns - 1.0) : 0.0, b4, g);
    }
    fprintf(out, "  model: serial CPU phases add, GPU work overlaps the CPU until a blocking call waits for "
                 "it; \"model\" is the replay without change, compare it with \"measured\" before trusting "
                 "\"projected\".\n");
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
        ks_jw_end_obj(w);
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
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}
