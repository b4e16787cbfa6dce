/* report/diff_markdown.c: `kinesift diff --format markdown` (a pull-request comment or a step
 * summary): warnings, the step comparison, then one table per section with the rows of largest
 * impact. Names are escaped (ks_md_escape): kernel names are full of < and >. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "report/report_int.h"

static void cell_ns(FILE *out, int present, ks_ns v)
{
    char b[32] = "-";
    if (present)
        ks_fmt_ns(b, sizeof b, v);
    fprintf(out, " %s |", b);
}

static void cell_pct(FILE *out, const ks_diff_row *r, ks_ns b, ks_ns a)
{
    if (r->before.present && r->after.present && b > 0)
        fprintf(out, " %+.1f %% |", 100.0 * (double)(a - b) / (double)b);
    else
        fputs(" - |", out);
}

static void cell_count(FILE *out, int present, uint64_t v)
{
    if (present)
        fprintf(out, " %" PRIu64 " |", v);
    else
        fputs(" - |", out);
}

static void row(FILE *out, const ks_diff_row *r, int kernels)
{
    fputs("| ", out);
    ks_md_escape(out, r->name);
    fputs(" | ", out);
    ks_md_escape(out, r->cat);
    fprintf(out, " | %s |", ks_diff_status_name(r->status));
    cell_count(out, r->before.present, r->before.count);
    cell_count(out, r->after.present, r->after.count);
    if (!kernels) {
        cell_ns(out, r->before.present, r->before.self_ns);
        cell_ns(out, r->after.present, r->after.self_ns);
        cell_pct(out, r, r->before.self_ns, r->after.self_ns);
    }
    cell_ns(out, r->before.present, r->before.incl_ns);
    cell_ns(out, r->after.present, r->after.incl_ns);
    cell_pct(out, r, r->before.incl_ns, r->after.incl_ns);
    if (!kernels) {
        cell_ns(out, r->before.present, r->before.gpu_ns);
        cell_ns(out, r->after.present, r->after.gpu_ns);
        cell_pct(out, r, r->before.gpu_ns, r->after.gpu_ns);
    }
    fputs("\n", out);
}

static void table(FILE *out, const char *title, const ks_diff_table *t, int kernels, size_t top)
{
    fprintf(out, "\n#### %s: %zu changed, %zu added, %zu removed (of %zu)\n\n", title, t->changed, t->added,
            t->removed, t->n);
    if (!t->n)
        return;
    if (kernels)
        fputs("| name | kind | status | count before | count after | time before | time after | change |\n"
              "|---|---|---|---:|---:|---:|---:|---:|\n", out);
    else
        fputs("| name | category | status | count before | count after | self before | self after | self change | "
              "incl before | incl after | incl change | GPU before | GPU after | GPU change |\n"
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", out);
    for (size_t i = 0; i < t->n && (!top || i < top); i++)
        row(out, &t->v[i], kernels);
}

static void steps(FILE *out, const ks_diff *d)
{
    const ks_diff_steps *s = &d->steps;
    const ks_compare *c = &s->cmp;
    fputs("\n#### Steps (active window)\n\n", out);
    if (!s->nbefore || !s->nafter) {
        fprintf(out, "No comparison: %zu active steps before, %zu after.\n", s->nbefore, s->nafter);
        return;
    }
    char mb[32], ma[32];
    ks_fmt_ns(mb, sizeof mb, llround(c->a.median));
    ks_fmt_ns(ma, sizeof ma, llround(c->b.median));
    fputs("| steps before | steps after | median before | median after | ratio | 95 % interval (one run per side) | p | verdict |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
    char iv[64] = "-", pv[32] = "-"; /* no interval or p: too few steps for the bootstrap */
    if (!isnan(c->ci_lo))
        snprintf(iv, sizeof iv, "[%.4f, %.4f]", c->ci_lo, c->ci_hi);
    if (!isnan(c->mwu.p))
        snprintf(pv, sizeof pv, "%.3g", c->mwu.p);
    fprintf(out, "| %zu | %zu | %s | %s | %.4f | %s | %s | %s |\n\n", s->nbefore, s->nafter, mb, ma, c->ratio, iv, pv,
            ks_verdict_name(c->verdict));
    ks_md_escape(out, c->reason);
    fputs("\n", out);
}

void ks_diff_markdown(FILE *out, const ks_diff *d, size_t top)
{
    fputs("### kinesift diff\n\n- before: ", out);
    ks_md_escape(out, d->before_source);
    fputs("\n- after: ", out);
    ks_md_escape(out, d->after_source);
    fputs("\n", out);
    for (size_t i = 0; i < d->nmismatch; i++) {
        fputs("- **warning**: the captures differ in ", out);
        ks_md_escape(out, d->mismatch[i].what);
        fputs(" (", out);
        ks_md_escape(out, d->mismatch[i].a);
        fputs(" before, ", out);
        ks_md_escape(out, d->mismatch[i].b);
        fputs(" after): not comparable\n", out);
    }
    steps(out, d);
    table(out, "Operators", &d->ops, 0, top);
    table(out, "Labels", &d->labels, 0, top);
    table(out, "GPU work", &d->kernels, 1, top);
}
