/* report/insights_text.c: the text sections for steps, GPU idle gaps, diagnoses and telemetry. */
#include <math.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/report.h"

static const char *fmt(char *b, size_t n, ks_ns v)
{
    ks_fmt_ns(b, n, v);
    return b;
}

static double pct(ks_ns a, ks_ns b)
{
    return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

static void steps_text(FILE *out, const ks_analysis *a, const ks_steps *st)
{
    char b1[32], b2[32], b3[32], b4[32];
    if (!st)
        return;
    if (!st->n) {
        fprintf(out, "\n  Steps: %s\n", st->source);
        return;
    }
    int gpu = a->links.gpu_events > 0;
    fprintf(out, "\n  Steps (%s): %zu, %zu warm-up", st->source, st->n, st->nwarmup);
    if (st->nactive)
        fprintf(out, "; active window: median %s, mean %s, min %s, max %s over %zu steps\n",
                fmt(b1, sizeof b1, st->active_median), fmt(b2, sizeof b2, st->active_mean),
                fmt(b3, sizeof b3, st->active_min), fmt(b4, sizeof b4, st->active_max), st->nactive);
    else
        fprintf(out, "; no active step\n");
    fprintf(out, "  %8s %12s %7s %7s  breakdown (%%): kernel memcpy memset comm runtime data cpu other\n",
            "step", "wall", "busy", "idle");
    for (size_t i = 0; i < st->n; i++) {
        const ks_step *s = &st->v[i];
        char busy[16], idle[16];
        if (gpu) {
            snprintf(busy, sizeof busy, "%.0f%%", pct(s->busy_ns, s->wall_ns));
            snprintf(idle, sizeof idle, "%.0f%%", pct(s->idle_ns, s->wall_ns));
        } else {
            snprintf(busy, sizeof busy, "n/a");
            snprintf(idle, sizeof idle, "n/a");
        }
        fprintf(out, "  %8lld %12s %7s %7s ", (long long)s->number, fmt(b1, sizeof b1, s->wall_ns), busy, idle);
        for (int r = 0; r < KS_ROLE_COUNT; r++)
            fprintf(out, " %5.1f", pct(s->breakdown[r], s->wall_ns));
        fprintf(out, "%s%s\n", s->warmup ? "  warm-up" : "", s->unfinished ? "  unfinished" : "");
    }
}

static void gaps_text(FILE *out, const ks_analysis *a, const ks_gaps *g)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], b3[32], b4[32];
    if (!g)
        return;
    if (!g->dev) {
        fprintf(out, "\n  GPU idle gaps: %s\n", g->reason ? g->reason : "not computed");
        return;
    }
    for (size_t i = 0; i < g->n; i++) {
        const ks_gap_device *d = &g->dev[i];
        fprintf(out, "\n  GPU %d idle gaps >= %s: %llu, %s (of %s idle in all)\n", d->device,
                fmt(b1, sizeof b1, d->threshold_ns), (unsigned long long)d->count, fmt(b2, sizeof b2, d->total_ns),
                fmt(b3, sizeof b3, d->idle_ns));
        fprintf(out, "    HTA classes: host wait %s, kernel wait %s, other %s\n",
                fmt(b1, sizeof b1, d->hta_host_wait_ns), fmt(b2, sizeof b2, d->hta_kernel_wait_ns),
                fmt(b4, sizeof b4, d->hta_other_ns));
        if (!d->count)
            continue;
        fprintf(out, "    GPU idle while the launching CPU thread was in:\n");
        for (size_t j = 0; j < d->nby_cpu && j < 10; j++) {
            const ks_gap_cause *c = &d->by_cpu[j];
            char prev[100];
            const char *n = c->name ? ks_trace_str(t, c->name) : "(nothing: CPU thread idle)";
            ks_fmt_preview(prev, sizeof prev, n, strlen(n), 70);
            fprintf(out, "    %12s %5.1f%% %6llu  %s%s%s%s\n", fmt(b1, sizeof b1, c->total_ns),
                    pct(c->total_ns, d->total_ns), (unsigned long long)c->count, prev, c->name ? " [" : "",
                    c->name ? ks_kind_name((ks_kind)c->kind) : "", c->name ? "]" : "");
        }
        fprintf(out, "    ... by innermost label:");
        for (size_t j = 0; j < d->nby_label && j < 5; j++) {
            const ks_gap_cause *c = &d->by_label[j];
            fprintf(out, "%s %s %.1f%%", j ? "," : "", c->name ? ks_trace_str(t, c->name) : "(no label)",
                    pct(c->total_ns, d->total_ns));
        }
        fputc('\n', out);
    }
}

static void diagnoses_text(FILE *out, const ks_diagnoses *d)
{
    char b1[32], b2[32];
    if (!d)
        return;
    fprintf(out, "\n  Diagnoses (hypotheses to check, not conclusions): %zu, ranked by the step time they could "
                 "save (an upper bound) in the %s (%s)\n",
            d->n, d->denominator ? d->denominator : "window", fmt(b1, sizeof b1, d->denominator_ns));
    if (d->hidden)
        fprintf(out, "  (%zu below the floor of %.4g%% of the %s not shown: --all-diagnoses lists them)\n", d->hidden,
                100.0 * d->min_impact, d->denominator ? d->denominator : "window");
    for (size_t i = 0; i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        if (x->impact_ns >= 0)
            fprintf(out, "  [%s, confidence %s, could save at most %s = %.1f%% of the %s%s]\n", x->id, x->confidence,
                    fmt(b2, sizeof b2, x->impact_ns), pct(x->impact_ns, d->denominator_ns), d->denominator,
                    x->below_floor ? ", below the floor" : "");
        else
            fprintf(out, "  [%s, caveat]\n", x->id);
        fprintf(out, "    hypothesis: %s\n", x->hypothesis);
        fprintf(out, "    evidence:   %s\n", x->evidence);
        if (x->nsteps) {
            fprintf(out, "    steps:     ");
            for (size_t j = 0; j < x->nsteps && j < 12; j++)
                fprintf(out, " %lld", (long long)x->steps[j]);
            fprintf(out, "%s\n", x->nsteps > 12 ? " ..." : "");
        }
        if (x->impact_ns >= 0)
            fprintf(out, "    impact:     %s\n", x->impact_basis);
        fprintf(out, "    next check: %s\n", x->next_check);
        fprintf(out, "    refuted if: %s\n", x->refuted_if);
        if (x->validate_cmd)
            fprintf(out, "    measure:    %s\n", x->validate_cmd);
    }
}

static void smi_line(FILE *out, const char *what, const ks_smi_stats *s, const char *unit)
{
    if (!s->n) {
        fprintf(out, "    %-10s no sample\n", what);
        return;
    }
    if (s->util_known)
        fprintf(out, "    %-10s %zu samples: utilization min %.0f mean %.1f max %.0f %s", what, s->n, s->util_min,
                s->util_mean, s->util_max, unit);
    else
        fprintf(out, "    %-10s %zu samples: utilization unknown (N/A)", what, s->n);
    if (s->mem_known)
        fprintf(out, "; memory used %.0f..%.0f MiB\n", s->mem_used_min, s->mem_used_max);
    else
        fprintf(out, "; memory unknown\n");
}

static void telemetry_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv)
{
    const ks_telemetry *tm = iv->telemetry;
    if (!tm)
        return;
    fprintf(out, "\n  nvidia-smi: %zu samples of GPU %s (%s), %llu unknown values (N/A)\n", tm->n,
            tm->gpu && *tm->gpu ? tm->gpu : "-", tm->gpu_match, (unsigned long long)tm->unknown_values);
    if (tm->reason) {
        fprintf(out, "    %s\n", tm->reason);
        return;
    }
    smi_line(out, "window", &tm->window, tm->units_util);
    if (a->gpu && a->ngpu) {
        char b1[32], b2[32];
        fprintf(out, "    trace: GPU busy %.1f%% of its span (%s busy in a %s span)\n",
                pct(a->gpu[0].busy_ns, a->gpu[0].span_ns), fmt(b1, sizeof b1, a->gpu[0].busy_ns),
                fmt(b2, sizeof b2, a->gpu[0].span_ns));
    }
    for (size_t i = 0; iv->steps && i < tm->nsteps && i < iv->steps->n; i++) {
        char what[32];
        snprintf(what, sizeof what, "step %lld", (long long)iv->steps->v[i].number);
        smi_line(out, what, &tm->per_step[i], tm->units_util);
    }
    fprintf(out, "    (utilization.gpu is the share of sample time with at least one kernel running, not "
                 "efficiency)\n");
}

void ks_insights_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv)
{
    if (!iv)
        return;
    steps_text(out, a, iv->steps);
    gaps_text(out, a, iv->gaps);
    telemetry_text(out, a, iv);
    diagnoses_text(out, iv->diagnoses);
}
