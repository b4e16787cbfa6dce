/* report/diff_text.c: the text report of `kinesift diff`: the two inputs, comparability
 * warnings, the step time distributions (median ratio, CI, U test), then per table (operators,
 * labels, GPU work) the rows with the largest absolute impact: count, self, inclusive and GPU
 * time before -> after with the change, and the names that appeared or disappeared (long names
 * shortened in the middle); a table without any change is one line, "no change". */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "report/report_util.h"

/* names longer than this are shortened in the middle here (JSON and CSV keep them whole) */
enum { NAME_MAX_TEXT = 80 };

/* "1.234 ms -> 1.300 ms (+5.3 %)" into buf. */
static void change_cell(char *buf, size_t n, int present_b, ks_ns b, int present_a, ks_ns a)
{
    char x[32] = "-", y[32] = "-", pct[24] = "";
    if (present_b)
        ks_fmt_ns(x, sizeof x, b);
    if (present_a)
        ks_fmt_ns(y, sizeof y, a);
    if (present_b && present_a && b > 0)
        snprintf(pct, sizeof pct, " (%+.1f %%)", 100.0 * (double)(a - b) / (double)b);
    else if (present_b && present_a && a != b)
        snprintf(pct, sizeof pct, " (new)");
    snprintf(buf, n, "%s -> %s%s", x, y, pct);
}

static void count_cell(char *buf, size_t n, const ks_diff_row *r)
{
    char x[24] = "-", y[24] = "-";
    if (r->before.present)
        snprintf(x, sizeof x, "%" PRIu64, r->before.count);
    if (r->after.present)
        snprintf(y, sizeof y, "%" PRIu64, r->after.count);
    snprintf(buf, n, "%s -> %s", x, y);
}

static void op_row(FILE *out, const ks_diff_row *r)
{
    char c[48], s[80], i[80], g[80];
    count_cell(c, sizeof c, r);
    change_cell(s, sizeof s, r->before.present, r->before.self_ns, r->after.present, r->after.self_ns);
    change_cell(i, sizeof i, r->before.present, r->before.incl_ns, r->after.present, r->after.incl_ns);
    change_cell(g, sizeof g, r->before.present, r->before.gpu_ns, r->after.present, r->after.gpu_ns);
    char nb[NAME_MAX_TEXT + 8];
    fprintf(out, "  %-8s %-14s %-36s %-36s %-36s %s [%s]\n", ks_diff_status_name(r->status), c, s, i, g,
            ks_text_name(r->name, NAME_MAX_TEXT, nb, sizeof nb), r->cat);
}

static void kernel_row(FILE *out, const ks_diff_row *r)
{
    char c[48], t[80], merged[48] = "";
    count_cell(c, sizeof c, r);
    change_cell(t, sizeof t, r->before.present, r->before.incl_ns, r->after.present, r->after.incl_ns);
    uint32_t names = r->before.names > r->after.names ? r->before.names : r->after.names;
    if (names > 1)
        snprintf(merged, sizeof merged, " (%u names merged)", names);
    char nb[NAME_MAX_TEXT + 8];
    fprintf(out, "  %-8s %-16s %-40s %s [%s]%s\n", ks_diff_status_name(r->status), c, t,
            ks_text_name(r->name, NAME_MAX_TEXT, nb, sizeof nb), r->cat, merged);
}

static void appeared(FILE *out, const ks_diff_table *t, ks_diff_status st, const char *what, size_t top)
{
    size_t n = st == KS_DIFF_ADDED ? t->added : t->removed, shown = 0;
    if (!n)
        return;
    fprintf(out, "  %s (%zu):", what, n);
    for (size_t i = 0; i < t->n && (!top || shown < top); i++)
        if (t->v[i].status == st)
        {
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

static void table(FILE *out, const char *title, const ks_diff_table *t, int kernels, size_t top)
{
    if (t->n && unchanged(t)) { /* rows of "same" say nothing (an A/A pair) */
        fprintf(out, "\n%s: %zu rows, no change\n", title, t->n);
        return;
    }
    size_t shown = top && top < t->n ? top : t->n;
    fprintf(out, "\n%s: %zu rows, %zu changed, %zu added, %zu removed; %s%zu by absolute impact\n", title, t->n,
            t->changed, t->added, t->removed, shown < t->n ? "top " : "all ", shown);
    if (!t->n)
        return;
    if (kernels)
        fprintf(out, "  %-8s %-16s %-40s %s\n", "status", "count", "total GPU time", "name [kind]");
    else
        fprintf(out, "  %-8s %-14s %-36s %-36s %-36s %s\n", "status", "count", "self", "inclusive", "GPU (subtree)",
                "name [category]");
    for (size_t i = 0; i < shown; i++)
        kernels ? kernel_row(out, &t->v[i]) : op_row(out, &t->v[i]);
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
    fprintf(out, "  median ratio after/before %.4f (%+.2f %%), %.4g %% block-bootstrap interval [%.4f, %.4f] (blocks of "
                 "%zu steps, %u resamples, seed 0x%016" PRIx64 "), p = %.3g; lag-1 autocorrelation %.2f / %.2f\n",
            c->ratio, 100 * c->change, 100 * c->ci_level, c->ci_lo, c->ci_hi, c->block, d->opts.params.resamples,
            d->opts.params.seed, c->mwu.p, c->acf_a, c->acf_b);
    fprintf(out, "  verdict at +/- %.3g %%: %s: %s\n", 100 * d->opts.params.threshold, ks_verdict_name(c->verdict),
            c->reason);
}

void ks_diff_text(FILE *out, const ks_diff *d, size_t top)
{
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
    if (unchanged(&d->ops) && unchanged(&d->labels) && unchanged(&d->kernels))
        fprintf(out, "  no change: the same operators, labels and GPU work, with the same counts and times\n");
    steps(out, d);
    table(out, "Operators", &d->ops, 0, top);
    table(out, "Labels", &d->labels, 0, top);
    table(out, "GPU work", &d->kernels, 1, top);
}
