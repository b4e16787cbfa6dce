/* report/analyze_csv.c: `kinesift analyze --format csv`: every table in one CSV, one row per table
 * row, told apart by the "section" column: window (the analysis window: how it was chosen, its
 * basis, which every share is of), op, label, kernel, gpu, device (device activity
 * kinesift does not interpret), step, gap, gap_cpu, gap_label, gap_longest, diagnosis, memory,
 * memory_live, memory_op, memory_step, error (an input not read). One header for all: a section fills the columns it has and leaves the others
 * empty, as it does for a figure not observed. Columns only ever get added at the end, so a
 * reader that selects rows by section and columns by name keeps working (docs/analysis.md,
 * "CSV"). Integer ns; the same rows and values as the JSON (docs/schema-analyze.md). */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/critpath.h"
#include "kinesift/report.h"
#include "report/report_int.h"
#include "report/report_util.h"

/* the columns, in header order */
enum col {
    C_SOURCE, C_SECTION, C_NAME, C_CAT, C_COUNT, C_SELF, C_INCL, C_MIN, C_MEDIAN, C_P90, C_P99, C_MAX,
    C_GPU_DIRECT, C_GPU_SUBTREE, C_TOTAL, C_DEVICE, C_SPAN, C_BUSY, C_IDLE,
    /* steps */
    C_NUMBER, C_START, C_END, C_WALL, C_WARMUP, C_UNFINISHED, C_ROLE0,
    /* gaps */
    C_THRESHOLD = C_ROLE0 + KS_ROLE_COUNT, C_HTA_HOST, C_HTA_KERNEL, C_HTA_OTHER, C_DATA_LOADING,
    /* diagnoses */
    C_HYPOTHESIS, C_EVIDENCE, C_NEXT_CHECK, C_REFUTED_IF, C_VALIDATE, C_BY_HAND, C_STEPS,
    C_ERROR,
    /* the critical path of a step: its kinds (kinesift/critpath.h), the part on inferred edges */
    C_CP0, C_CP_INFERRED = C_CP0 + KS_CP_NKINDS,
    /* memory */
    C_DEVICE_TYPE, C_ALLOCS, C_ALLOC_BYTES, C_INCREASE, C_SELF_ALLOCS, C_SELF_ALLOC_BYTES, C_SELF_INCREASE,
    C_PEAK_ALLOC, C_PEAK_RESERVED, C_CAPACITY, C_START_BYTES, C_END_BYTES, C_GROWTH, C_PEAK_BYTES, C_LAW_BREAKS,
    /* the critical path's GPU time in collectives (may be waiting for peers) */
    C_CP_COLLECTIVE,
    C_N
};

static const char *const col_names[C_N] = {
    "source", "section", "name", "cat", "count", "self_ns", "incl_ns", "min_ns", "median_ns", "p90_ns", "p99_ns",
    "max_ns", "gpu_direct_ns", "gpu_subtree_ns", "total_ns", "device", "span_ns", "busy_ns", "idle_ns",
    "number", "start_ns", "end_ns", "wall_ns", "warmup", "unfinished",
    "kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns", "cpu_exec_ns",
    "other_ns",
    [C_THRESHOLD] = "threshold_ns", "hta_host_wait_ns", "hta_kernel_wait_ns", "hta_other_ns", "data_loading_ns",
    "hypothesis", "evidence", "next_check", "refuted_if", "validate", "measure_by_hand", "steps", "error",
    "path_cpu_ns", "path_gpu_ns", "path_launch_latency_ns", "path_stream_gap_ns", "path_sync_ns",
    "path_thread_wait_ns", "path_unmodeled_ns", "path_inferred_ns",
    "device_type", "allocations", "allocated_bytes", "increase_bytes", "self_allocations", "self_allocated_bytes",
    "self_increase_bytes", "peak_allocated_bytes", "peak_reserved_bytes", "capacity_bytes", "start_bytes",
    "end_bytes", "growth_bytes", "peak_bytes", "law_breaks", "path_collective_ns"};

/* one row: each field NULL (empty) or a string it owns */
typedef struct row {
    char *f[C_N];
} row;

static void set_str(row *r, int c, const char *s)
{
    free(r->f[c]);
    r->f[c] = s ? ks_xstrdup(s) : NULL;
}

static void set_int(row *r, int c, long long v)
{
    free(r->f[c]);
    r->f[c] = ks_xasprintf("%lld", v);
}

static void set_uint(row *r, int c, unsigned long long v)
{
    free(r->f[c]);
    r->f[c] = ks_xasprintf("%llu", v);
}

static row *row_new(const char *source, const char *section)
{
    row *r = ks_xcalloc(1, sizeof *r);
    set_str(r, C_SOURCE, source);
    set_str(r, C_SECTION, section);
    return r;
}

/* write the row and free it */
static void row_put(FILE *out, row *r)
{
    for (int c = 0; c < C_N; c++) {
        if (c)
            fputc(',', out);
        if (r->f[c])
            ks_csv_field(out, r->f[c]);
        free(r->f[c]);
    }
    fputc('\n', out);
    free(r);
}

void ks_analyze_csv_header(FILE *out)
{
    _Static_assert(C_ROLE0 + KS_ROLE_COUNT == C_THRESHOLD, "one column per role");
    for (int c = 0; c < C_N; c++)
        fprintf(out, "%s%s", c ? "," : "", col_names[c]);
    fputc('\n', out);
}

void ks_analyze_csv_error(FILE *out, const char *input, const char *message)
{
    row *r = row_new(input, "error");
    set_str(r, C_ERROR, message);
    row_put(out, r);
}

static void op_rows(FILE *out, const ks_analysis *a, const char *section, const ks_op_row *rs, size_t n,
                    const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    int gpu = a->links.gpu_events > 0;
    const ks_op_row **v = ks_rows_order(rs, n, o->sort);
    size_t lim = o->top && o->top < n ? o->top : n;
    for (size_t i = 0; i < lim; i++) {
        row *r = row_new(t->source, section);
        set_str(r, C_NAME, ks_trace_str(t, v[i]->name));
        set_str(r, C_CAT, ks_trace_cat_name(t, v[i]->cat));
        set_uint(r, C_COUNT, v[i]->count);
        set_int(r, C_SELF, v[i]->self_ns);
        set_int(r, C_INCL, v[i]->incl_ns);
        set_int(r, C_MIN, ks_op_row_durs(v[i]).min_ns);
        set_int(r, C_MEDIAN, ks_op_row_durs(v[i]).median_ns);
        set_int(r, C_P90, ks_op_row_durs(v[i]).p90_ns);
        set_int(r, C_P99, ks_op_row_durs(v[i]).p99_ns);
        set_int(r, C_MAX, ks_op_row_durs(v[i]).max_ns);
        if (gpu) {
            set_int(r, C_GPU_DIRECT, ks_op_row_gpu(v[i]).direct_ns);
            set_int(r, C_GPU_SUBTREE, ks_op_row_gpu(v[i]).subtree_ns);
        }
        row_put(out, r);
    }
    free((void *)v);
}

static void kernel_rows(FILE *out, const ks_analysis *a, const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    size_t lim = o->top && o->top < a->nkernels ? o->top : a->nkernels;
    for (size_t i = 0; i < lim; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        row *r = row_new(t->source, "kernel");
        set_str(r, C_NAME, ks_trace_str(t, k->name));
        set_str(r, C_CAT, ks_kind_name((ks_kind)k->kind));
        set_uint(r, C_COUNT, k->count);
        set_int(r, C_MIN, k->min_ns);
        set_int(r, C_MEDIAN, k->median_ns);
        set_int(r, C_P90, k->p90_ns);
        set_int(r, C_MAX, k->max_ns);
        set_int(r, C_TOTAL, k->total_ns);
        row_put(out, r);
    }
}

static void device_rows(FILE *out, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        row *r = row_new(t->source, "gpu");
        char name[32];
        snprintf(name, sizeof name, "device %d", g->device);
        set_str(r, C_NAME, name);
        set_int(r, C_TOTAL, g->kernel_ns);
        set_int(r, C_DEVICE, g->device);
        set_int(r, C_SPAN, g->span_ns);
        set_int(r, C_BUSY, g->busy_ns);
        set_int(r, C_IDLE, g->idle_ns);
        set_int(r, C_START, g->first_ns);
        set_int(r, C_END, g->last_ns);
        row_put(out, r);
    }
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        const ks_device_activity *d = &a->device_activity[i];
        row *r = row_new(t->source, "device");
        set_str(r, C_NAME, d->label ? ks_trace_str(t, d->label) : NULL);
        ks_buf cats = {0};
        for (size_t j = 0; j < d->ncats; j++) {
            const char *c = ks_trace_cat_name(t, d->cats[j]);
            if (j)
                ks_buf_put(&cats, ";", 1);
            ks_buf_put(&cats, c, strlen(c));
        }
        ks_buf_put(&cats, "", 1);
        set_str(r, C_CAT, cats.p);
        free(cats.p);
        set_uint(r, C_COUNT, d->events);
        set_int(r, C_DEVICE, d->device);
        set_int(r, C_SPAN, d->span_ns);
        set_int(r, C_BUSY, d->busy_ns);
        set_int(r, C_IDLE, d->idle_ns);
        set_int(r, C_START, d->first_ns);
        set_int(r, C_END, d->last_ns);
        row_put(out, r);
    }
}

static void step_rows(FILE *out, const ks_analysis *a, const ks_steps *st, const ks_critpath *cp)
{
    const ks_trace *t = a->trace;
    int gpu = a->links.gpu_events > 0;
    for (size_t i = 0; st && i < st->n; i++) {
        const ks_step *s = &st->v[i];
        row *r = row_new(t->source, "step");
        set_str(r, C_NAME, ks_trace_str(t, s->name));
        set_uint(r, C_COUNT, s->gpu_events);
        set_int(r, C_NUMBER, s->number);
        set_int(r, C_START, s->start);
        set_int(r, C_END, s->end);
        set_int(r, C_WALL, s->wall_ns);
        if (gpu) {
            set_int(r, C_BUSY, s->busy_ns);
            set_int(r, C_IDLE, s->idle_ns);
        }
        set_int(r, C_WARMUP, s->warmup);
        set_int(r, C_UNFINISHED, s->unfinished);
        for (int k = 0; k < KS_ROLE_COUNT; k++) {
            if (ks_report_role_observed(a, k))
                set_int(r, C_ROLE0 + k, s->breakdown[k]);
        }
        const ks_cp_step *p = cp && cp->n == st->n ? &cp->v[i] : NULL;
        for (int k = 0; p && k < KS_CP_NKINDS; k++)
            set_int(r, C_CP0 + k, p->by_kind[k]);
        if (p) {
            set_int(r, C_CP_INFERRED, p->inferred_ns);
            set_int(r, C_CP_COLLECTIVE, p->collective_ns);
        }
        row_put(out, r);
        /* the names with most time on its path: section critical_path, cat = cpu or gpu */
        for (size_t k = 0; p && k < p->ntop; k++) {
            row *x = row_new(t->source, "critical_path");
            set_str(x, C_NAME, p->top[k].name ? ks_trace_str(t, p->top[k].name) : NULL);
            set_str(x, C_CAT, ks_cp_kind_name(p->top[k].kind));
            set_int(x, C_NUMBER, s->number);
            set_int(x, C_TOTAL, p->top[k].ns);
            row_put(out, x);
        }
    }
}

static void cause_rows(FILE *out, const ks_analysis *a, const char *section, int32_t device, const ks_gap_cause *c,
                       size_t n, const char *none)
{
    const ks_trace *t = a->trace;
    for (size_t i = 0; i < n; i++) {
        row *r = row_new(t->source, section);
        set_str(r, C_NAME, c[i].name ? ks_trace_str(t, c[i].name) : none);
        set_str(r, C_CAT, c[i].name ? ks_kind_name((ks_kind)c[i].kind) : "none");
        set_uint(r, C_COUNT, c[i].count);
        set_int(r, C_TOTAL, c[i].total_ns);
        set_int(r, C_DEVICE, device);
        row_put(out, r);
    }
}

static void gap_rows(FILE *out, const ks_analysis *a, const ks_gaps *g)
{
    const ks_trace *t = a->trace;
    for (size_t i = 0; g && g->dev && i < g->n; i++) {
        const ks_gap_device *d = &g->dev[i];
        row *r = row_new(t->source, "gap");
        set_uint(r, C_COUNT, d->count);
        set_int(r, C_TOTAL, d->total_ns);
        set_int(r, C_DEVICE, d->device);
        set_int(r, C_IDLE, d->idle_ns);
        set_int(r, C_THRESHOLD, d->threshold_ns);
        set_int(r, C_HTA_HOST, d->hta_host_wait_ns);
        set_int(r, C_HTA_KERNEL, d->hta_kernel_wait_ns);
        set_int(r, C_HTA_OTHER, d->hta_other_ns);
        set_int(r, C_DATA_LOADING, d->data_loading_ns);
        row_put(out, r);
        cause_rows(out, a, "gap_cpu", d->device, d->by_cpu, d->nby_cpu, "(nothing: CPU thread idle)");
        cause_rows(out, a, "gap_label", d->device, d->by_label, d->nby_label, "(no label)");
        for (size_t j = 0; j < d->nlongest; j++) {
            const ks_gap *x = &d->longest[j];
            r = row_new(t->source, "gap_longest");
            set_str(r, C_NAME, x->cause ? ks_trace_str(t, x->cause) : "(nothing)");
            set_int(r, C_DEVICE, d->device);
            set_int(r, C_START, x->start);
            set_int(r, C_END, x->end);
            set_int(r, C_WALL, ks_sat_sub(x->end, x->start));
            row_put(out, r);
        }
    }
}

static void diagnosis_rows(FILE *out, const ks_analysis *a, const ks_diagnoses *d)
{
    const ks_trace *t = a->trace;
    const char *platform = d && d->n ? ks_analysis_platform(a) : NULL;
    for (size_t i = 0; d && i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        row *r = row_new(t->source, "diagnosis");
        set_str(r, C_NAME, x->id);
        set_str(r, C_CAT, x->confidence);
        set_uint(r, C_COUNT, x->nsteps);
        set_str(r, C_HYPOTHESIS, x->hypothesis);
        set_str(r, C_EVIDENCE, x->evidence);
        set_str(r, C_NEXT_CHECK, x->next_check);
        set_str(r, C_REFUTED_IF, x->refuted_if);
        char *by_hand = ks_report_measure_by_hand(platform, x->validate_cmd);
        set_str(r, C_VALIDATE, by_hand ? NULL : x->validate_cmd);
        set_str(r, C_BY_HAND, by_hand);
        free(by_hand);
        ks_buf steps = {0};
        for (size_t j = 0; j < x->nsteps; j++) {
            char b[32];
            int n = snprintf(b, sizeof b, "%s%lld", j ? " " : "", (long long)x->steps[j]);
            ks_buf_put(&steps, b, (size_t)n);
        }
        ks_buf_put(&steps, "", 1);
        set_str(r, C_STEPS, steps.p);
        free(steps.p);
        row_put(out, r);
    }
}

/* the analysis window: how it was chosen (name), its basis (cat: the denominator's name), span */
static void window_row(FILE *out, const ks_analysis *a)
{
    row *r = row_new(a->trace->source, "window");
    set_str(r, C_NAME, ks_report_window_why(a));
    set_str(r, C_CAT, ks_report_window_basis(a));
    if (a->has_events || a->has_window) {
        set_int(r, C_START, a->win_start);
        set_int(r, C_END, a->win_last);
        set_int(r, C_SPAN, a->window_ns);
    }
    row_put(out, r);
}

/* memory: a row per device (memory), per op of it (memory_op), per step (memory_step), per group
 * live at its peak (memory_live); the JSON's memory list, the same values */
static row *mem_row(const ks_analysis *a, const char *section, const ks_mem_device *d)
{
    row *r = row_new(a->trace->source, section);
    char lab[64];
    ks_mem_device_label(lab, sizeof lab, d);
    set_str(r, C_DEVICE_TYPE, lab);
    if (d->device_id != INT32_MIN)
        set_int(r, C_DEVICE, d->device_id);
    return r;
}

/* the device's own row: its peak, its totals and the levels the law checks */
static void memory_device_row(FILE *out, const ks_analysis *a, const ks_mem_device *d)
{
    const ks_trace *t = a->trace;
    row *r = mem_row(a, "memory", d);
    set_str(r, C_NAME, ks_mem_op_text(t, d->peak_op));
    set_str(r, C_CAT, ks_mem_basis_text(d));
    set_uint(r, C_COUNT, d->events);
    set_int(r, C_START, d->peak_ns);
    if (d->has_peak_step)
        set_int(r, C_NUMBER, d->peak_step);
    set_uint(r, C_ALLOCS, d->allocs);
    set_int(r, C_ALLOC_BYTES, d->alloc_bytes);
    set_int(r, C_INCREASE, d->net_bytes);
    if (d->basis == KS_MEM_BASIS_TOTAL)
        set_int(r, C_PEAK_ALLOC, d->peak_allocated);
    if (d->has_reserved)
        set_int(r, C_PEAK_RESERVED, d->peak_reserved);
    if (d->capacity > 0)
        set_int(r, C_CAPACITY, d->capacity);
    set_int(r, C_START_BYTES, d->start_level);
    set_int(r, C_END_BYTES, d->end_level);
    set_int(r, C_PEAK_BYTES, d->peak_level);
    set_uint(r, C_LAW_BREAKS, d->law_breaks);
    row_put(out, r);
}

/* what was live at the peak, by group */
static void memory_live_rows(FILE *out, const ks_analysis *a, const ks_mem_device *d)
{
    for (size_t j = 0; j < d->nlive; j++) {
        const ks_mem_live *l = &d->live[j];
        row *r = mem_row(a, "memory_live", d);
        set_str(r, C_NAME, l->what == KS_MEM_LIVE_BEFORE ? "[before the capture]" : ks_mem_op_text(a->trace, l->op));
        if (l->what != KS_MEM_LIVE_BEFORE) {
            set_str(r, C_CAT, ks_mem_kind_text(l->kind));
            set_uint(r, C_ALLOCS, l->count);
        }
        set_int(r, C_ALLOC_BYTES, l->bytes);
        row_put(out, r);
    }
}

/* the ops that allocate, the first --top of them */
static void memory_op_rows(FILE *out, const ks_analysis *a, const ks_mem_device *d, const ks_report_opts *o)
{
    size_t lim = o->top && o->top < d->nops ? o->top : d->nops;
    for (size_t j = 0; j < lim; j++) {
        const ks_mem_op *p = &d->ops[j];
        row *r = mem_row(a, "memory_op", d);
        set_str(r, C_NAME, ks_mem_op_text(a->trace, p->name));
        set_str(r, C_CAT, ks_mem_kind_text(p->kind));
        set_uint(r, C_ALLOCS, p->incl_allocs);
        set_int(r, C_ALLOC_BYTES, p->incl_alloc_bytes);
        set_int(r, C_INCREASE, p->incl_net_bytes);
        set_uint(r, C_SELF_ALLOCS, p->self_allocs);
        set_int(r, C_SELF_ALLOC_BYTES, p->self_alloc_bytes);
        set_int(r, C_SELF_INCREASE, p->self_net_bytes);
        row_put(out, r);
    }
}

/* each step's levels */
static void memory_step_rows(FILE *out, const ks_analysis *a, const ks_mem_device *d)
{
    for (size_t j = 0; j < d->nsteps; j++) {
        const ks_mem_step *s = &d->steps[j];
        row *r = mem_row(a, "memory_step", d);
        set_int(r, C_NUMBER, s->number);
        set_uint(r, C_COUNT, s->events);
        set_int(r, C_START_BYTES, s->start_level);
        set_int(r, C_END_BYTES, s->end_level);
        set_int(r, C_GROWTH, s->end_level - s->start_level);
        set_int(r, C_PEAK_BYTES, s->peak_level);
        if (s->peak_reserved >= 0)
            set_int(r, C_PEAK_RESERVED, s->peak_reserved);
        row_put(out, r);
    }
}

static void memory_rows(FILE *out, const ks_analysis *a, const ks_report_opts *o)
{
    const ks_memory *m = a->memory;
    for (size_t i = 0; m && i < m->n; i++) {
        const ks_mem_device *d = &m->dev[i];
        memory_device_row(out, a, d);
        memory_live_rows(out, a, d);
        memory_op_rows(out, a, d, o);
        memory_step_rows(out, a, d);
    }
}

void ks_analyze_csv_trace(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    window_row(out, a);
    op_rows(out, a, "op", a->ops, a->nops, o);
    op_rows(out, a, "label", a->labels, a->nlabels, o);
    kernel_rows(out, a, o);
    device_rows(out, a);
    step_rows(out, a, iv ? iv->steps : NULL, iv ? iv->critpath : NULL);
    gap_rows(out, a, iv ? iv->gaps : NULL);
    diagnosis_rows(out, a, iv ? iv->diagnoses : NULL);
    memory_rows(out, a, o);
}
