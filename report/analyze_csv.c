/* report/analyze_csv.c: `kinesift analyze --format csv`: every table in one CSV, one row per table
 * row, told apart by the "section" column (op, label, kernel, gpu); integer ns. */
#include <stdlib.h>

#include "kinesift/report.h"
#include "report/report_util.h"

void ks_analyze_csv_header(FILE *out)
{
    fputs("source,section,name,cat,count,self_ns,incl_ns,min_ns,median_ns,p90_ns,p99_ns,max_ns,"
          "gpu_direct_ns,gpu_subtree_ns,total_ns,device,span_ns,busy_ns,idle_ns\n",
          out);
}

static void rows(FILE *out, const ks_analysis *a, const char *section, const ks_op_row *r, size_t n,
                 const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    int gpu = a->links.gpu_events > 0;
    ks_op_row *v = ks_rows_sorted(r, n, o->sort);
    size_t lim = o->top && o->top < n ? o->top : n;
    for (size_t i = 0; i < lim; i++) {
        ks_csv_field(out, t->source);
        fprintf(out, ",%s,", section);
        ks_csv_field(out, ks_trace_str(t, v[i].name));
        fputc(',', out);
        ks_csv_field(out, ks_trace_cat_name(t, v[i].cat));
        fprintf(out, ",%llu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,", (unsigned long long)v[i].count,
                (long long)v[i].self_ns, (long long)v[i].incl_ns, (long long)v[i].min_ns,
                (long long)v[i].median_ns, (long long)v[i].p90_ns, (long long)v[i].p99_ns,
                (long long)v[i].max_ns);
        if (gpu)
            fprintf(out, "%lld,%lld,,,,,\n", (long long)v[i].gpu_direct_ns, (long long)v[i].gpu_subtree_ns);
        else
            fputs(",,,,,,\n", out);
    }
    free(v);
}

void ks_analyze_csv_trace(FILE *out, const ks_analysis *a, const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    rows(out, a, "op", a->ops, a->nops, o);
    rows(out, a, "label", a->labels, a->nlabels, o);
    size_t lim = o->top && o->top < a->nkernels ? o->top : a->nkernels;
    for (size_t i = 0; i < lim; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        ks_csv_field(out, t->source);
        fputs(",kernel,", out);
        ks_csv_field(out, ks_trace_str(t, k->name));
        fprintf(out, ",%s,%llu,,,%lld,%lld,%lld,,%lld,,,%lld,,,,\n", ks_kind_name((ks_kind)k->kind),
                (unsigned long long)k->count, (long long)k->min_ns, (long long)k->median_ns,
                (long long)k->p90_ns, (long long)k->max_ns, (long long)k->total_ns);
    }
    for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        ks_csv_field(out, t->source);
        fprintf(out, ",gpu,device %d,,,,,,,,,,,,%lld,%d,%lld,%lld,%lld\n", g->device, (long long)g->kernel_ns,
                g->device, (long long)g->span_ns, (long long)g->busy_ns, (long long)g->idle_ns);
    }
}
