/* report/diff_csv.c: `kinesift diff --format csv`: one header, then one row per aligned table
 * row with a "section" column (op, label, kernel). A side that lacks the row has empty fields;
 * delta percentages are empty when the before value is 0. Kernel rows carry their total GPU
 * time in the incl and gpu columns and no self time. The step statistics are in the text, JSON
 * and Markdown forms. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kinesift/compare.h"
#include "report/report_util.h"

static void field(FILE *out, const char *s)
{
    ks_csv_field(out, s);
}

static void num(FILE *out, int present, int64_t v)
{
    if (present)
        fprintf(out, ",%" PRId64, v);
    else
        fputs(",", out);
}

static void triple(FILE *out, const ks_diff_row *r, ks_ns b, ks_ns a, int skip)
{
    if (skip) {
        fputs(",,,,", out);
        return;
    }
    num(out, r->before.present, b);
    num(out, r->after.present, a);
    fprintf(out, ",%" PRId64, (r->after.present ? a : 0) - (r->before.present ? b : 0));
    if (r->before.present && r->after.present && b > 0)
        fprintf(out, ",%.3f", 100.0 * (double)(a - b) / (double)b);
    else
        fputs(",", out);
}

static void rows(FILE *out, const char *section, const ks_diff_table *t, int kernels, size_t top)
{
    for (size_t i = 0; i < t->n && (!top || i < top); i++) {
        const ks_diff_row *r = &t->v[i];
        fprintf(out, "%s,%s,", section, ks_diff_status_name(r->status));
        field(out, r->name);
        fputc(',', out);
        field(out, r->cat);
        num(out, r->before.present, (int64_t)r->before.count);
        num(out, r->after.present, (int64_t)r->after.count);
        triple(out, r, r->before.self_ns, r->after.self_ns, kernels);
        triple(out, r, r->before.incl_ns, r->after.incl_ns, 0);
        triple(out, r, r->before.gpu_ns, r->after.gpu_ns, 0);
        fprintf(out, ",%" PRId64 "\n", r->impact_ns);
    }
}

void ks_diff_csv(FILE *out, const ks_diff *d, size_t top)
{
    fputs("section,status,name,category,count_before,count_after,self_before_ns,self_after_ns,self_delta_ns,"
          "self_delta_pct,incl_before_ns,incl_after_ns,incl_delta_ns,incl_delta_pct,gpu_before_ns,gpu_after_ns,"
          "gpu_delta_ns,gpu_delta_pct,impact_ns\n",
          out);
    rows(out, "op", &d->ops, 0, top);
    rows(out, "label", &d->labels, 0, top);
    rows(out, "kernel", &d->kernels, 1, top);
}
