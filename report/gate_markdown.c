/* report/gate_markdown.c: `kinesift gate --markdown FILE` (and --github-summary): a GitHub step
 * summary: the one-line result, one table row per check (median A, median B, change, the
 * interval with its level, p, runs per side, verdict), then a collapsed block with the per-side statistics and the reasons. Kept small
 * (no raw samples: they are in --json). Every name is escaped (ks_md_escape). */
#include <math.h>
#include <stdio.h>

#include "kinesift/compare.h"
#include "report/report_int.h"
#include "compare/gate_text.h"

static void cell(FILE *out, const char *s)
{
    fputs(" ", out);
    ks_md_escape(out, s);
    fputs(" |", out);
}

static void check_row(FILE *out, const ks_gate_result *r)
{
    char ma[32] = "-", mb[32] = "-", ch[32] = "-", ci[80] = "-", p[24] = "-", lim[24], runs[48] = "-";
    ks_gate_fmt_limit(lim, sizeof lim, r);
    if (r->status != KS_GATE_ERROR) {
        ks_gate_fmt_value(ma, sizeof ma, r->unit, r->cmp.a.median);
        ks_gate_fmt_value(mb, sizeof mb, r->unit, r->cmp.b.median);
        ks_gate_fmt_change(ch, sizeof ch, r);
        char iv[48];
        ks_gate_fmt_ci(iv, sizeof iv, r);
        snprintf(ci, sizeof ci, "%s (%.4g %%)", iv, 100 * r->cmp.ci_level);
        snprintf(runs, sizeof runs, "%zu / %zu", r->cmp.runs_a, r->cmp.runs_b);
        if (!isnan(r->cmp.p))
            snprintf(p, sizeof p, "%.3g", r->cmp.p);
    }
    fputs("|", out);
    cell(out, r->title);
    cell(out, lim);
    cell(out, ma);
    cell(out, mb);
    cell(out, ch);
    cell(out, ci);
    cell(out, p);
    cell(out, runs);
    fputs(" **", out);
    ks_md_escape(out, ks_gate_status_name(r->status));
    fputs("**", out);
    if (r->status != KS_GATE_ERROR && r->cmp.caveat[0]) {
        fputs(" (", out);
        ks_md_escape(out, r->cmp.caveat);
        fputs(")", out);
    }
    fputs(" |\n", out);
}

static void side_row(FILE *out, const ks_gate_result *r, const char *role, const ks_summary *s)
{
    char v[6][32];
    double x[6] = {s->min, s->q1, s->median, s->q3, s->max, s->mad};
    for (int i = 0; i < 6; i++)
        ks_gate_fmt_value(v[i], sizeof v[i], r->unit, x[i]);
    fputs("|", out);
    cell(out, r->title);
    cell(out, role);
    fprintf(out, " %zu |", s->n);
    for (int i = 0; i < 6; i++)
        cell(out, v[i]);
    if (isnan(s->iqr_rel))
        fputs(" - |\n", out);
    else
        fprintf(out, " %.1f %% |\n", 100 * s->iqr_rel);
}

static void details(FILE *out, const ks_gate *g)
{
    fputs("\n<details><summary>Per-side statistics and reasons</summary>\n\n", out);
    fputs("| check | side | n | min | q1 | median | q3 | max | MAD | IQR/median |\n", out);
    fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", out);
    for (size_t i = 0; i < g->n; i++) {
        const ks_gate_result *r = &g->r[i];
        if (r->status == KS_GATE_ERROR)
            continue;
        side_row(out, r, "baseline", &r->cmp.a);
        side_row(out, r, "candidate", &r->cmp.b);
    }
    fputs("\n", out);
    for (size_t i = 0; i < g->n; i++) {
        const ks_gate_result *r = &g->r[i];
        fputs("- ", out);
        ks_md_escape(out, r->title);
        fputs(": ", out);
        if (r->status != KS_GATE_ERROR && r->cmp.caveat[0]) {
            ks_md_escape(out, r->cmp.caveat);
            fputs("; ", out);
        }
        ks_md_escape(out, r->status == KS_GATE_ERROR ? r->error : r->cmp.reason);
        fputs("\n", out);
    }
    for (size_t i = 0; i < g->nwarnings; i++) {
        fputs("- warning: ", out);
        ks_md_escape(out, g->warnings[i]);
        fputs("\n", out);
    }
    fprintf(out, "\nRule: docs/statistics.md section 8 (the run is the unit: Welch t on per-run medians with 2 or "
                 "more runs per side; one run per side: block bootstrap, %u resamples, seed 0x%016llx, inconclusive "
                 "unless beyond the limit plus %.3g points; alpha %.3g%s).\n\n</details>\n",
            g->opts.params.resamples, (unsigned long long)g->opts.params.seed,
            100 * g->opts.params.single_run_margin, g->opts.params.alpha,
            g->n && g->r[0].cmp.holm_m > 1 ? ", p Holm-adjusted and intervals at Holm-consistent levels" : "");
}

int ks_gate_markdown(FILE *out, const ks_gate *g, int inconclusive_fails)
{
    char sum[1024];
    ks_gate_fmt_summary(sum, sizeof sum, g, inconclusive_fails);
    fputs("### kinesift gate: ", out);
    ks_md_escape(out, sum);
    fputs("\n\n", out);
    if (g->n) {
        fputs("| check | limit | median A | median B | change | interval (level) | p | runs | verdict |\n", out);
        fputs("|---|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
        for (size_t i = 0; i < g->n; i++)
            check_row(out, &g->r[i]);
        details(out, g);
    }
    return ferror(out) ? -1 : 0;
}
