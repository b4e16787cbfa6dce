/* report/gate_text.c: the text report of `kinesift gate` (standard output): the result line,
 * the inputs and parameters, one row per check, then why each check that did not pass is what
 * it is, the per-trace medians (so that one odd run shows), each distinct suggestion once, and
 * the warnings. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "compare/gate_text.h"
#include "report/report_util.h"

static void side_line(FILE *out, const char *role, const ks_gate_side *s, int validate)
{
    if (validate)
        fprintf(out, "%-9s  %zu validate result%s\n", role, s->inputs, s->inputs == 1 ? "" : "s");
    else
        fprintf(out, "%-9s  %zu trace%s, %zu step%s: %zu sample%s (%zu warm-up and %zu unfinished left out)\n",
                role, s->inputs, s->inputs == 1 ? "" : "s", s->steps, s->steps == 1 ? "" : "s", s->samples,
                s->samples == 1 ? "" : "s", s->warmup, s->unfinished);
}

static void row(FILE *out, const ks_gate_result *r)
{
    char lim[24], ma[32], mb[32], ch[32], ci[48], p[24], lev[16];
    if (r->status == KS_GATE_ERROR) {
        fprintf(out, "  " KS_TEXT_LEFT "error\t%s\n", r->title);
        return;
    }
    ks_gate_fmt_limit(lim, sizeof lim, r);
    ks_gate_fmt_value(ma, sizeof ma, r->unit, r->cmp.a.median);
    ks_gate_fmt_value(mb, sizeof mb, r->unit, r->cmp.b.median);
    ks_gate_fmt_change(ch, sizeof ch, r);
    ks_gate_fmt_ci(ci, sizeof ci, r);
    if (isnan(r->cmp.p))
        snprintf(p, sizeof p, "-");
    else if (r->cmp.p > 0)
        snprintf(p, sizeof p, "%.3g", r->cmp.p);
    else /* a bound, never 0 (ks_p_text) */
        snprintf(p, sizeof p, "<%.2g", ks_compare_p_bound(&r->cmp, &r->params));
    snprintf(lev, sizeof lev, "%.4g%%", 100 * r->cmp.ci_level);
    fprintf(out, "  " KS_TEXT_LEFT "%s\t" KS_TEXT_LEFT "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%zu\t%zu\t%zu\t%zu\t%s\n",
            ks_gate_status_name(r->status), lim, ma, mb, ch, ci, lev, p, r->cmp.runs_a, r->cmp.runs_b, r->cmp.a.n,
            r->cmp.b.n, r->title);
}

static void per_trace(FILE *out, const char *role, const ks_gate_result *r, const ks_trace_median *m, size_t n)
{
    if (n < 2)
        return;
    fprintf(out, "    %s medians per run:", role);
    for (size_t i = 0; i < n; i++) {
        char v[32];
        ks_gate_fmt_value(v, sizeof v, r->unit, m[i].median);
        fprintf(out, "%s %s (%zu) %s", i ? ";" : "", v, m[i].n, m[i].source);
    }
    fputc('\n', out);
}

/* Each distinct suggestion once, after the details, with the checks it is for (several checks
 * short of samples all get the same one). */
static void suggestions(FILE *out, const ks_gate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        const char *sg = g->r[i].status == KS_GATE_ERROR ? "" : g->r[i].cmp.suggestion;
        int seen = !sg[0];
        for (size_t j = 0; j < i && !seen; j++)
            seen = g->r[j].status != KS_GATE_ERROR && !strcmp(g->r[j].cmp.suggestion, sg);
        if (seen)
            continue;
        fputs("  suggestion for ", out);
        for (size_t j = i, k = 0; j < g->n; j++)
            if (g->r[j].status != KS_GATE_ERROR && !strcmp(g->r[j].cmp.suggestion, sg))
                fprintf(out, "%s%s", k++ ? ", " : "", g->r[j].title);
        fprintf(out, ": %s\n", sg);
    }
}

static void details(FILE *out, const ks_gate_result *r)
{
    if (r->status == KS_GATE_ERROR) {
        fprintf(out, "  %s: error: %s\n", r->title, r->error);
        return;
    }
    if (r->status == KS_GATE_PASS && r->nper_a < 2 && r->nper_b < 2)
        return;
    fprintf(out, "  %s: %s%s%s: %s\n", r->title, ks_gate_status_name(r->status), r->cmp.caveat[0] ? "; " : "",
            r->cmp.caveat, r->cmp.reason);
    per_trace(out, "baseline", r, r->per_a, r->nper_a);
    per_trace(out, "candidate", r, r->per_b, r->nper_b);
}

void ks_gate_text(FILE *final, const ks_gate *g, int inconclusive_fails, size_t width)
{
    char sum[1024];
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final); /* fitted to the width at the end (report/textfit.c) */
    ks_gate_fmt_summary(sum, sizeof sum, g, inconclusive_fails);
    fprintf(out, "kinesift gate: %s\n", sum);
    side_line(out, "baseline", &g->base, g->is_validate);
    side_line(out, "candidate", &g->cand, g->is_validate);
    if (g->input_error && !g->n) {
        for (size_t i = 0; i < g->nwarnings; i++)
            fprintf(out, "warning: %s\n", g->warnings[i]);
        ks_text_end(&tb, final, width);
        return;
    }
    size_t m = g->n ? g->r[0].cmp.holm_m : 0;
    fprintf(out, "rule: docs/statistics.md section 8: the run is the unit (one input = one run); default limit +%.3g %%, "
                 "alpha %.3g, >= %zu samples and >= %zu runs per side; >= 2 runs: Welch t on per-run medians; 1 run: "
                 "block bootstrap (%u resamples, seed 0x%016" PRIx64 "), limit + %.3g points%s%s\n",
            100 * g->opts.params.threshold, g->opts.params.alpha, g->opts.params.min_samples,
            g->opts.params.min_runs, g->opts.params.resamples, g->opts.params.seed,
            100 * g->opts.params.single_run_margin,
            m > 1 ? "; p Holm-adjusted, intervals at Holm-consistent levels" : "",
            g->default_set ? "; default checks (no budget, no check flags)" : "");
    fprintf(out, "\n  " KS_TEXT_LEFT "verdict\t" KS_TEXT_LEFT "limit\tbaseline\tcandidate\tchange\tinterval\tlevel\tp\tr_b\tr_c\tn_b\t"
                 "n_c\tcheck\n");
    for (size_t i = 0; i < g->n; i++)
        row(out, &g->r[i]);
    int any = 0;
    for (size_t i = 0; i < g->n; i++) {
        const ks_gate_result *r = &g->r[i];
        if (r->status == KS_GATE_PASS && r->nper_a < 2 && r->nper_b < 2)
            continue;
        if (!any++)
            fputc('\n', out);
        details(out, r);
    }
    suggestions(out, g);
    if (g->nwarnings)
        fputc('\n', out);
    for (size_t i = 0; i < g->nwarnings; i++)
        fprintf(out, "warning: %s\n", g->warnings[i]);
    ks_text_end(&tb, final, width);
}
