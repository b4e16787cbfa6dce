/* report/insights_text.c: the text sections for steps, GPU idle gaps, diagnoses and telemetry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_util.h"

static const char *fmt(char *b, size_t n, ks_ns v)
{
    ks_fmt_ns(b, n, v);
    return b;
}

static double pct(ks_ns a, ks_ns b)
{
    return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

/* the steps the table shows when it has more than top rows (top 0: all): the first
 * max(1, top/5) and the last max(1, top/5) (none with top 1), and the slowest of the others
 * (longest wall time, earlier step first on a tie) for the rest: shown[i] set for each */
static void steps_shown(const ks_steps *st, size_t top, unsigned char *shown)
{
    size_t n = st->n;
    if (!top || n <= top) {
        memset(shown, 1, n);
        return;
    }
    memset(shown, 0, n);
    size_t edge = top / 5 ? top / 5 : 1, first = edge, last = top >= 2 ? edge : 0;
    for (size_t i = 0; i < first; i++)
        shown[i] = 1;
    for (size_t i = 0; i < last; i++)
        shown[n - 1 - i] = 1;
    for (size_t k = first + last; k < top; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (!shown[i] && (best == n || st->v[i].wall_ns > st->v[best].wall_ns))
                best = i;
        if (best == n)
            break;
        shown[best] = 1;
    }
}

/* "step wall times: N steps in B equal bins from MIN to MAX: c1 c2 ..." over every step: bin of a
 * step = (wall - min) * B / (max - min + 1), so the bins have equal width and cover [min, max] */
enum { STEP_BINS = 10 };

static void steps_histogram(FILE *out, const ks_steps *st)
{
    char b1[32], b2[32];
    if (st->n < 2)
        return;
    ks_ns lo = st->v[0].wall_ns, hi = lo;
    for (size_t i = 1; i < st->n; i++) {
        lo = st->v[i].wall_ns < lo ? st->v[i].wall_ns : lo;
        hi = st->v[i].wall_ns > hi ? st->v[i].wall_ns : hi;
    }
    uint64_t count[STEP_BINS] = {0};
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t off = (uint64_t)st->v[i].wall_ns - (uint64_t)lo;
        /* off * BINS / range without overflow: off < range <= 2^63 */
        uint64_t bin = range <= UINT64_MAX / STEP_BINS ? off * STEP_BINS / range : off / (range / STEP_BINS + 1);
        count[bin < STEP_BINS ? bin : STEP_BINS - 1]++;
    }
    fprintf(out, "  step wall times: %zu steps in %d equal bins from %s to %s:", st->n, STEP_BINS,
            fmt(b1, sizeof b1, lo), fmt(b2, sizeof b2, hi));
    for (int i = 0; i < STEP_BINS; i++)
        fprintf(out, " %llu", (unsigned long long)count[i]);
    fputc('\n', out);
}

static void step_row(FILE *out, const ks_step *s, int gpu)
{
    char b1[32], busy[16], idle[16];
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

static void steps_text(FILE *out, const ks_analysis *a, const ks_steps *st, size_t top)
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
    steps_histogram(out, st);
    unsigned char *shown = ks_xmalloc(st->n);
    steps_shown(st, top, shown);
    size_t nshown = 0;
    for (size_t i = 0; i < st->n; i++)
        nshown += shown[i];
    if (nshown < st->n)
        fprintf(out, "  %zu of %zu steps shown (--top %zu: the first, the slowest and the last; --top 0 for "
                     "all)\n", nshown, st->n, top);
    fprintf(out, "  %8s %12s %7s %7s  breakdown (%%): kernel memcpy memset comm runtime data cpu other\n",
            "step", "wall", "busy", "idle");
    for (size_t i = 0; i < st->n;) {
        if (shown[i]) {
            step_row(out, &st->v[i++], gpu);
            continue;
        }
        size_t j = i;
        while (j < st->n && !shown[j])
            j++;
        fprintf(out, "  %8s %zu step%s not shown\n", "...", j - i, j - i == 1 ? "" : "s");
        i = j;
    }
    free(shown);
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

static void diagnoses_text(FILE *out, const ks_analysis *a, const ks_diagnoses *d)
{
    if (!d)
        return;
    const char *platform = d->n ? ks_analysis_platform(a) : NULL;
    fprintf(out, "\n  Diagnoses (hypotheses to check, not conclusions): %zu\n", d->n);
    for (size_t i = 0; i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        fprintf(out, "  [%s, confidence %s]\n", x->id, x->confidence);
        fprintf(out, "    hypothesis: %s\n", x->hypothesis);
        fprintf(out, "    evidence:   %s\n", x->evidence);
        if (x->nsteps) {
            fprintf(out, "    steps:     ");
            for (size_t j = 0; j < x->nsteps && j < 12; j++)
                fprintf(out, " %lld", (long long)x->steps[j]);
            fprintf(out, "%s\n", x->nsteps > 12 ? " ..." : "");
        }
        fprintf(out, "    next check: %s\n", x->next_check);
        fprintf(out, "    refuted if: %s\n", x->refuted_if);
        char *by_hand = ks_report_measure_by_hand(platform, x->validate_cmd);
        if (by_hand)
            fprintf(out, "    measure:    %s\n", by_hand);
        else if (x->validate_cmd)
            fprintf(out, "    measure:    %s\n", x->validate_cmd);
        free(by_hand);
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
    if (a->gpu && a->ngpu)
        fprintf(out, "    trace: GPU busy %.1f%% of its span\n", pct(a->gpu[0].busy_ns, a->gpu[0].span_ns));
    for (size_t i = 0; iv->steps && i < tm->nsteps && i < iv->steps->n; i++) {
        char what[32];
        snprintf(what, sizeof what, "step %lld", (long long)iv->steps->v[i].number);
        smi_line(out, what, &tm->per_step[i], tm->units_util);
    }
    fprintf(out, "    (utilization.gpu is the share of sample time with at least one kernel running, not "
                 "efficiency)\n");
}

void ks_insights_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    if (!iv)
        return;
    steps_text(out, a, iv->steps, o ? o->top : 0);
    gaps_text(out, a, iv->gaps);
    telemetry_text(out, a, iv);
    diagnoses_text(out, a, iv->diagnoses);
}
