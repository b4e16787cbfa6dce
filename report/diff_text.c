/* report/diff_text.c: the text report of `kinesift diff`: the two inputs, comparability
 * warnings, the step time distributions (median ratio, bootstrap CI and p, Mann-Whitney U),
 * then per table (operators, labels, GPU work) the rows with the largest absolute impact: count and
 * the two times of the table's impact (operators: self and GPU direct; labels: inclusive and GPU
 * subtree; GPU work: its time) before, after and the change, and the names that appeared or
 * disappeared; a table without any change is one line, "no change". When the sides have
 * different numbers of active steps the rows are per-step means, the totals beside them. Fitted
 * to the terminal's width (report/textfit.c: names shortened in the middle, whole in JSON, CSV
 * and Markdown). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "report/report_util.h"

/* names longer than this are shortened in the middle here (JSON and CSV keep them whole) */
enum { NAME_MAX_TEXT = 80 };

/* One figure of both sides as three cells: "1.234 ms\t1.300 ms\t+5.3 %" ("-" for an absent side,
 * "new" when before is 0). */
static void time_cells(FILE *out, int present_b, ks_ns b, int present_a, ks_ns a)
{
    char x[32] = "-", y[32] = "-", pct[24] = "";
    if (present_b)
        ks_fmt_ns(x, sizeof x, b);
    if (present_a)
        ks_fmt_ns(y, sizeof y, a);
    if (present_b && present_a && b > 0)
        snprintf(pct, sizeof pct, "%+.1f %%", 100.0 * (double)(a - b) / (double)b);
    else if (present_b && present_a && a != b)
        snprintf(pct, sizeof pct, "new");
    fprintf(out, "\t%s\t%s\t%s", x, y, pct);
}

static void count_cells(FILE *out, const ks_diff_row *r)
{
    char x[24] = "-", y[24] = "-";
    if (r->before.present)
        snprintf(x, sizeof x, "%" PRIu64, r->before.count);
    if (r->after.present)
        snprintf(y, sizeof y, "%" PRIu64, r->after.count);
    fprintf(out, "\t%s\t%s", x, y);
}

/* per step: the means of the count and of the row's main time */
static void step_cells(FILE *out, const ks_diff_row *r)
{
    char x[24] = "-", y[24] = "-";
    if (r->before.present)
        snprintf(x, sizeof x, "%.4g", r->per_step.count_before);
    if (r->after.present)
        snprintf(y, sizeof y, "%.4g", r->per_step.count_after);
    fprintf(out, "\t%s\t%s", x, y);
    time_cells(out, r->before.present, llround(r->per_step.ns_before), r->after.present, llround(r->per_step.ns_after));
}

enum { T_OPS, T_LABELS, T_KERNELS };

/* the two times a table shows (its impact's basis): ops self and GPU direct, labels inclusive
 * and GPU subtree, kernels their total */
static void row(FILE *out, const ks_diff_row *r, int table, int by_step)
{
    char nb[NAME_MAX_TEXT + 8], merged[48] = "";
    const char *name = ks_text_name(r->name, NAME_MAX_TEXT, nb, sizeof nb);
    uint32_t names = r->before.names > r->after.names ? r->before.names : r->after.names;
    if (names > 1)
        snprintf(merged, sizeof merged, " (%u names merged)", names);
    fprintf(out, "  " KS_TEXT_LEFT "%s", ks_diff_status_name(r->status));
    const ks_diff_side *b = &r->before, *a = &r->after;
    if (by_step) { /* per-step means, then the total of the main time */
        step_cells(out, r);
        ks_ns tb = table == T_OPS ? b->self_ns : b->incl_ns, ta = table == T_OPS ? a->self_ns : a->incl_ns;
        time_cells(out, b->present, tb, a->present, ta);
    } else {
        count_cells(out, r);
        if (table == T_OPS) {
            time_cells(out, b->present, b->self_ns, a->present, a->self_ns);
            time_cells(out, b->present, b->gpu_self_ns, a->present, a->gpu_self_ns);
        } else if (table == T_LABELS) {
            time_cells(out, b->present, b->incl_ns, a->present, a->incl_ns);
            time_cells(out, b->present, b->gpu_ns, a->present, a->gpu_ns);
        } else {
            time_cells(out, b->present, b->incl_ns, a->present, a->incl_ns);
        }
    }
    fprintf(out, "\t%s" KS_TEXT_KEEP " [%s]%s\n", name, r->cat, merged);
}

/* the two header rows: what each group of cells is, then before / after / change */
static void header(FILE *out, int table, int by_step)
{
    static const char *const what[3][2] = {{"self", "GPU direct"}, {"inclusive", "GPU subtree"}, {"GPU time", NULL}};
    const char *main_time = what[table][0];
    const char *name = table == T_KERNELS ? "name [kind]" : "name [category]";
    if (by_step) {
        fprintf(out, "  \tcount per step\t\t%s per step\t\t\t%s in all\t\t\t\n", main_time, main_time);
        fprintf(out, "  " KS_TEXT_LEFT "status\tbefore\tafter\tbefore\tafter\tchange\tbefore\tafter\tchange\t%s\n", name);
        return;
    }
    fprintf(out, "  \tcount\t\t%s\t\t", main_time);
    if (what[table][1])
        fprintf(out, "\t%s\t\t", what[table][1]);
    fprintf(out, "\t\n");
    fprintf(out, "  " KS_TEXT_LEFT "status\tbefore\tafter\tbefore\tafter\tchange");
    if (what[table][1])
        fprintf(out, "\tbefore\tafter\tchange");
    fprintf(out, "\t%s\n", name);
}

static void appeared(FILE *out, const ks_diff_table *t, ks_diff_status st, const char *what, size_t top)
{
    size_t n = st == KS_DIFF_ADDED ? t->added : t->removed, shown = 0;
    if (!n)
        return;
    fprintf(out, "  %s (%zu):", what, n);
    for (size_t i = 0; i < t->n && (!top || shown < top); i++)
        if (t->v[i].status == st) {
            char nb[NAME_MAX_TEXT + 8];
            fprintf(out, "%s %s", shown++ ? "," : "", ks_text_name(t->v[i].name, NAME_MAX_TEXT, nb, sizeof nb));
        }
    if (shown < n)
        fprintf(out, ", ... (%zu more)", n - shown);
    fputc('\n', out);
}

static int unchanged(const ks_diff_table *t)
{
    return !t->changed && !t->added && !t->removed;
}

static void table(FILE *out, const ks_diff *d, const char *title, const ks_diff_table *t, int kind, size_t top)
{
    if (t->n && unchanged(t)) { /* rows of "same" say nothing (an A/A pair) */
        fprintf(out, "\n%s: %zu rows, no change%s\n", title, t->n, d->by_step ? " per step" : "");
        return;
    }
    size_t shown = top && top < t->n ? top : t->n;
    fprintf(out, "\n%s: %zu rows, %zu changed, %zu added, %zu removed%s; %s%zu by absolute impact%s\n", title, t->n,
            t->changed, t->added, t->removed, d->by_step ? " per step" : "", shown < t->n ? "top " : "all ", shown,
            d->by_step ? " per step" : "");
    if (!t->n)
        return;
    header(out, kind, d->by_step);
    for (size_t i = 0; i < shown; i++)
        row(out, &t->v[i], kind, d->by_step);
    appeared(out, t, KS_DIFF_ADDED, "appeared", top);
    appeared(out, t, KS_DIFF_REMOVED, "disappeared", top);
}

static void steps(FILE *out, const ks_diff *d)
{
    const ks_diff_steps *s = &d->steps;
    const ks_compare *c = &s->cmp;
    char mb[32] = "-", ma[32] = "-";
    if (s->nbefore)
        ks_fmt_ns(mb, sizeof mb, llround(c->a.median));
    if (s->nafter)
        ks_fmt_ns(ma, sizeof ma, llround(c->b.median));
    fprintf(out, "\nSteps (active window; warm-up and unfinished steps apart)\n");
    char qb[24] = "-", qa[24] = "-";
    if (!isnan(c->a.iqr_rel))
        snprintf(qb, sizeof qb, "%.1f %%", 100 * c->a.iqr_rel);
    if (!isnan(c->b.iqr_rel))
        snprintf(qa, sizeof qa, "%.1f %%", 100 * c->b.iqr_rel);
    fprintf(out, "  before: %zu steps (%s), median %s, IQR/median %s; %zu warm-up, %zu unfinished\n", s->nbefore,
            s->source_before, mb, qb, s->warmup_before, s->unfinished_before);
    fprintf(out, "  after:  %zu steps (%s), median %s, IQR/median %s; %zu warm-up, %zu unfinished\n", s->nafter,
            s->source_after, ma, qa, s->warmup_after, s->unfinished_after);
    if (!s->nbefore || !s->nafter) {
        fprintf(out, "  no comparison: a side has no active step\n");
        return;
    }
    char pt[32], pu[32], acf_before[16] = "n/a", acf_after[16] = "n/a"; /* NaN: too few steps, or all alike */
    ks_p_text(pt, sizeof pt, c->mwu.p, ks_compare_p_bound(c, &d->opts.params));
    if (!isnan(c->acf_a))
        snprintf(acf_before, sizeof acf_before, "%.2f", c->acf_a);
    if (!isnan(c->acf_b))
        snprintf(acf_after, sizeof acf_after, "%.2f", c->acf_b);
    if (isnan(c->ci_lo))
        fprintf(out, "  median ratio after/before %.4f (%+.2f %%); no bootstrap interval or p: %zu and %zu steps (it "
                     "needs %zu a side); lag-1 autocorrelation %s / %s\n",
                c->ratio, 100 * c->change, s->nbefore, s->nafter, d->opts.params.min_samples, acf_before, acf_after);
    else
        fprintf(out, "  median ratio after/before %.4f (%+.2f %%), %.4g %% block-bootstrap interval [%.4f, %.4f] (blocks "
                     "of %zu steps, %u resamples, seed 0x%016" PRIx64 "), bootstrap %s; lag-1 autocorrelation %s / %s\n",
                c->ratio, 100 * c->change, 100 * c->ci_level, c->ci_lo, c->ci_hi, c->block, d->opts.params.resamples,
                d->opts.params.seed, pt, acf_before, acf_after);
    if (!isnan(s->mwu.p)) {
        ks_p_text(pu, sizeof pu, s->mwu.p, 0);
        fprintf(out, "  Mann-Whitney U = %.1f (after: %.1f), %s two-sided %s%s\n", s->mwu.u_a, s->mwu.u_b,
                s->mwu.exact ? "exact" : "normal approximation,", pu,
                s->mwu.exact ? "" : s->mwu.ties ? " (ties)" : " (more than 50 steps a side)");
    }
    fprintf(out, "  verdict at +/- %.3g %%: %s: %s\n", 100 * d->opts.params.threshold, ks_verdict_name(c->verdict),
            c->reason);
}

void ks_diff_text(FILE *final, const ks_diff *d, size_t top)
{
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final);
    char wb[32], wa[32];
    ks_fmt_ns(wb, sizeof wb, d->before_window_ns);
    ks_fmt_ns(wa, sizeof wa, d->after_window_ns);
    fprintf(out, "kinesift diff\n  before  %s (window %s)\n  after   %s (window %s)\n", d->before_source, wb,
            d->after_source, wa);
    if (d->opts.normalize_kernels)
        fprintf(out, "  kernel names normalised (template arguments and argument lists removed)\n");
    for (size_t i = 0; i < d->nmismatch; i++)
        fprintf(out, "warning: the captures differ in %s: %s before, %s after: their numbers are not comparable\n",
                d->mismatch[i].what, d->mismatch[i].a, d->mismatch[i].b);
    if (d->by_step)
        fprintf(out, "  per step: the sides have %zu and %zu active steps, so rows are compared by their per-step "
                     "means (count and time divided by the side's steps), the totals beside them\n",
                d->steps_before, d->steps_after);
    if (d->step_rows)
        fprintf(out, "  %zu step annotation rows (ProfilerStep#N) left out of the tables: the steps are compared "
                     "below\n", d->step_rows);
    if (unchanged(&d->ops) && unchanged(&d->labels) && unchanged(&d->kernels))
        fprintf(out, "  no change%s: the same operators, labels and GPU work, with the same counts and times\n",
                d->by_step ? " per step" : "");
    steps(out, d);
    table(out, d, "Operators", &d->ops, T_OPS, top);
    table(out, d, "Labels", &d->labels, T_LABELS, top);
    table(out, d, "GPU work", &d->kernels, T_KERNELS, top);
    ks_text_end(&tb, final, d->opts.text_width);
}
