/* report/analyze_text.c: the human-readable `kinesift analyze` report: window, GPU busy/idle per
 * device, CPU->GPU links, the top operators, labels and GPU work, overlaps and diagnostics. A
 * subset of the JSON figures, in readable units, fitted to the terminal's width (report/textfit.c:
 * tables as tab-separated cells, names shortened in the middle, long lines wrapped). */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_int.h"
#include "report/report_util.h"

/* names longer than this are shortened in the tables (ks_text_short_name; JSON and CSV keep them) */
enum { TEXT_NAME_MAX = 90 };

static const char *fmt(char *buf, size_t n, ks_ns v)
{
    ks_fmt_ns(buf, n, v);
    return buf;
}

static void window_line(FILE *out, const ks_analysis *a, const ks_insights_view *iv)
{
    char b[32];
    if (!a->has_events && !a->has_window) {
        fprintf(out, "  window   no timed events\n");
        return;
    }
    fprintf(out, "  window   %s, %s [%lld, %lld) ns\n", ks_report_window_why(a), fmt(b, sizeof b, a->window_ns),
            (long long)a->win_start, (long long)a->win_last);
    if (a->window_basis && a->window_basis[0] != '-' && strcmp(a->window_basis, "trace") && strcmp(a->window_basis, "window")) {
        fprintf(out, "           (the default; --window SPEC or --window trace changes it; \"of the %s\" is of this window",
                a->window_basis);
        /* but the diagnoses' "active steps" are the steps' union: the window less the gaps between steps */
        const ks_diagnoses *d = iv ? iv->diagnoses : NULL;
        if (ks_report_diagnoses_union(a, d))
            fprintf(out, ", but in the diagnoses of their union: the window less the gaps between steps, %s",
                    fmt(b, sizeof b, d->denominator_ns));
        fprintf(out, ")\n");
    }
}

static void gpu_lines(FILE *out, const ks_analysis *a)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], s1[16], s2[16];
    if (!a->gpu) {
        fprintf(out, "  GPU      %s\n", a->gpu_reason ? a->gpu_reason : "not observed");
        return;
    }
    for (size_t i = 0; i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        fprintf(out, "  GPU %-4d busy %s of its %s GPU span (%s), idle %s (%s)", g->device,
                fmt(b1, sizeof b1, g->busy_ns), fmt(b2, sizeof b2, g->span_ns), ks_text_pct(s1, sizeof s1, g->busy_ns, g->span_ns),
                fmt(b3, sizeof b3, g->idle_ns), ks_text_pct(s2, sizeof s2, g->idle_ns, g->span_ns));
        /* a share of a span much shorter than the window is stated with its absolute size */
        if (ks_mul_ge(a->window_ns, 1, g->span_ns, 2))
            fprintf(out, "; the span is only %s of the %s: %s busy in a %s window",
                    ks_text_share(s1, sizeof s1, g->span_ns, a->window_ns, 2, 1),
                    ks_report_window_basis(a),
                    fmt(b1, sizeof b1, g->busy_ns), fmt(b4, sizeof b4, a->window_ns));
        fputc('\n', out);
        fprintf(out, "           kernel %s, memcpy %s, memset %s, communication %s; %llu kernels, %llu "
                     "memcpy, %llu memset on %u stream%s\n",
                fmt(b4, sizeof b4, g->kernel_ns), fmt(b5, sizeof b5, g->memcpy_ns),
                fmt(b6, sizeof b6, g->memset_ns), fmt(b7, sizeof b7, g->comm_ns),
                (unsigned long long)g->kernels, (unsigned long long)g->memcpys,
                (unsigned long long)g->memsets, g->streams, g->streams == 1 ? "" : "s");
        if (g->comm_ns)
            fprintf(out, "           communication %s: exposed %s (no compute kernel running), overlapped with "
                         "compute %s (%s of the communication)\n",
                    fmt(b1, sizeof b1, g->comm_ns), fmt(b2, sizeof b2, g->comm_exposed_ns),
                    fmt(b3, sizeof b3, ks_sat_sub(g->comm_ns, g->comm_exposed_ns)),
                    ks_text_pct(s1, sizeof s1, ks_sat_sub(g->comm_ns, g->comm_exposed_ns), g->comm_ns));
    }
    fprintf(out, "           (busy = union of kernel, memcpy and memset time; high busy time says nothing "
                 "about useful work per unit of time)\n");
}

/* other accelerators' device events: span, busy, idle per device, said to be uninterpreted */
static void device_lines(FILE *out, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], b3[32], s1[16], s2[16];
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        const ks_device_activity *d = &a->device_activity[i];
        fprintf(out, "  device %d%s%s%s: busy %s of %s span (%s), idle %s (%s); %llu events on %u track%s (",
                d->device, d->label ? " (" : "", d->label ? ks_trace_str(t, d->label) : "", d->label ? ")" : "",
                fmt(b1, sizeof b1, d->busy_ns), fmt(b2, sizeof b2, d->span_ns), ks_text_pct(s1, sizeof s1, d->busy_ns, d->span_ns),
                fmt(b3, sizeof b3, d->idle_ns), ks_text_pct(s2, sizeof s2, d->idle_ns, d->span_ns), (unsigned long long)d->events,
                d->tracks, d->tracks == 1 ? "" : "s");
        for (size_t j = 0; j < d->ncats; j++)
            fprintf(out, "%s%s", j ? ", " : "", ks_trace_cat_name(t, d->cats[j]));
        fprintf(out, ")\n           by name (union each):");
        for (size_t j = 0; j < d->nnames && j < 6; j++) {
            char nb[64];
            const char *n = ks_trace_str(t, d->names[j].name);
            fprintf(out, "%s %s %s x%llu", j ? "," : "", ks_text_name(n, 40, nb, sizeof nb),
                    fmt(b1, sizeof b1, d->names[j].busy_ns), (unsigned long long)d->names[j].count);
        }
        fprintf(out, "%s\n", d->nnames > 6 ? ", ..." : "");
    }
    if (a->ndevice_activity)
        fprintf(out, "           (%s)\n", KS_DEVICE_ACTIVITY_MEANING);
}

static void links_line(FILE *out, const ks_analysis *a)
{
    const ks_link_stats *l = &a->links;
    if (!l->gpu_events && !l->launches && !l->launch_calls && !l->other_runtime_calls)
        return;
    fprintf(out, "  links    %llu GPU events: %llu linked by correlation, %llu by flow, %llu without a "
                 "launch; %llu launch calls (kernel, graph, copy and set launches), %llu other runtime "
                 "calls; %llu calls with a correlation id have no GPU work\n",
            (unsigned long long)l->gpu_events, (unsigned long long)l->linked_by_correlation,
            (unsigned long long)l->linked_by_flow, (unsigned long long)l->unlinked_gpu,
            (unsigned long long)l->launch_calls, (unsigned long long)l->other_runtime_calls,
            (unsigned long long)l->launches_without_gpu);
}

static const char *sort_name(ks_sort_key k)
{
    switch (k) {
    case KS_SORT_INCL: return "inclusive time";
    case KS_SORT_GPU: return "GPU subtree time";
    case KS_SORT_COUNT: return "count";
    default: return "self time";
    }
}

static void op_table(FILE *out, const ks_analysis *a, const char *title, const ks_op_row *rows, size_t n,
                     const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    if (!n)
        return;
    int gpu = a->links.gpu_events > 0;
    const ks_op_row **v = ks_rows_order(rows, n, o->sort);
    size_t lim = o->top && o->top < n ? o->top : n;
    size_t granges = 0;
    fprintf(out, "\n  Top %zu %s by %s (of %zu)\n", lim, title, sort_name(o->sort), n);
    fprintf(out, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", "self", "inclusive", "count", "median", "p90", "GPU direct",
            "GPU subtree", KS_TEXT_LEFT "name [category]");
    for (size_t i = 0; i < lim; i++) {
        const ks_op_row *r = v[i];
        char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
        char preview[TEXT_NAME_MAX + 64];
        ks_text_short_name(ks_trace_str(t, r->name), TEXT_NAME_MAX, 0, preview, sizeof preview);
        int gpu_range = r->kind == KS_K_GPU_ANNOTATION;
        granges += gpu_range;
        fprintf(out, "  %s\t%s\t%llu\t%s\t%s\t%s\t%s\t%s" KS_TEXT_KEEP " [%s]%s%s\n", fmt(b1, sizeof b1, r->self_ns),
                fmt(b2, sizeof b2, r->incl_ns), (unsigned long long)r->count, fmt(b3, sizeof b3, ks_op_row_durs(r).median_ns),
                fmt(b4, sizeof b4, ks_op_row_durs(r).p90_ns), gpu ? fmt(b5, sizeof b5, ks_op_row_gpu(r).direct_ns) : "n/a",
                gpu ? fmt(b6, sizeof b6, ks_op_row_gpu(r).subtree_ns) : "n/a", preview, ks_trace_cat_name(t, r->cat),
                gpu_range ? " (GPU range)" : "", r->unfinished ? " (unfinished instances)" : "");
    }
    if (granges)
        fprintf(out, "  (GPU range: a gpu_user_annotation row is a labelled range on a GPU stream, not CPU time: "
                     "inclusive is the range's length on its stream, self the part of it with no work of that "
                     "stream inside, GPU direct/subtree the GPU work inside it)\n");
    free((void *)v);
}

static void kernel_table(FILE *out, const ks_analysis *a, const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    if (!a->nkernels)
        return;
    size_t lim = o->top && o->top < a->nkernels ? o->top : a->nkernels;
    ks_ns span = 0; /* the denominator of the share: the devices' GPU spans */
    for (size_t i = 0; a->gpu && i < a->ngpu; i++)
        span = ks_sat_add(span, a->gpu[i].span_ns);
    char bs[32];
    fprintf(out, "\n  Top %zu GPU work by total time (of %zu); share: of the GPU span (%s%s)\n", lim, a->nkernels,
            fmt(bs, sizeof bs, span), a->ngpu > 1 ? ", the devices' spans added" : "");
    fprintf(out, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", "total", "share", "count", "median", "p90", "max",
            "name [kind]");
    for (size_t i = 0; i < lim; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        char b1[32], b2[32], b3[32], b4[32], s1[16];
        char preview[TEXT_NAME_MAX + 64];
        ks_text_short_name(ks_trace_str(t, k->name), TEXT_NAME_MAX, 1, preview, sizeof preview);
        fprintf(out, "  %s\t%s\t%llu\t%s\t%s\t%s\t%s" KS_TEXT_KEEP " [%s]\n", fmt(b1, sizeof b1, k->total_ns),
                ks_text_pct(s1, sizeof s1, k->total_ns, span), (unsigned long long)k->count, fmt(b2, sizeof b2, k->median_ns),
                fmt(b3, sizeof b3, k->p90_ns), fmt(b4, sizeof b4, k->max_ns), preview,
                ks_kind_name((ks_kind)k->kind));
    }
}

void ks_analyze_text(FILE *final, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final); /* fitted to o->width at the end (report/textfit.c) */
    const ks_trace *t = a->trace;
    fprintf(out, "== %s\n", t->source);
    window_line(out, a, iv);
    gpu_lines(out, a);
    ks_kernels_text_classes(out, a);
    device_lines(out, a);
    links_line(out, a);
    op_table(out, a, "operators", a->ops, a->nops, o);
    op_table(out, a, "labels", a->labels, a->nlabels, o);
    kernel_table(out, a, o);
    ks_memory_text(out, a, o ? o->top : 0);
    ks_insights_text_to(out, a, iv, o);
    fprintf(out, "\n  Diagnostics\n");
    ks_report_text_diagnostics_at(out, &t->diag, &a->diag, "    ", a->win_start);
    ks_text_end(&tb, final, o->width);
}
