/* report/analyze_json.c: `kinesift analyze --format json`, schema "kinesift.analyze/1"
 * (docs/schema-analyze.md). The reference form of every analysis figure: integer ns, GPU figures
 * null with a reason when the trace holds no GPU work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/kernels.h"
#include "kinesift/report.h"
#include "report/report_util.h"
#include "report/report_int.h"

struct ks_analyze_json {
    ks_jw w;
    ks_input_error_list errors;
};

ks_analyze_json *ks_analyze_json_begin(FILE *out)
{
    ks_analyze_json *j = ks_xcalloc(1, sizeof *j);
    ks_jw_open(&j->w, out, 1);
    ks_jw_obj(&j->w);
    ks_jw_kstr(&j->w, "schema", "kinesift.analyze/1");
    ks_jw_kstr(&j->w, "version", ks_version());
    ks_jw_key(&j->w, "traces");
    ks_jw_arr(&j->w);
    return j;
}

void ks_analyze_json_error(ks_analyze_json *j, const char *input, const char *message)
{
    ks_input_error_list_add(&j->errors, input, message);
}

int ks_analyze_json_end(ks_analyze_json *j)
{
    ks_jw_end_arr(&j->w);
    ks_input_error_list_json(&j->w, &j->errors);
    ks_jw_end_obj(&j->w);
    int r = ks_jw_close(&j->w);
    fputc('\n', j->w.out);
    free(j);
    return r;
}

void ks_analyze_json_tree(ks_analyze_json *j, const struct yajl_val_s *trace)
{
    ks_jw_tree_lines(&j->w, trace, ks_shape_line_keys);
}

static void op_rows(ks_jw *w, const ks_analysis *a, const ks_op_row *rows, size_t n, const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    int gpu = a->links.gpu_events > 0;
    const ks_op_row **v = ks_rows_order(rows, n, o->sort);
    size_t lim = o->top && o->top < n ? o->top : n;
    ks_jw_arr(w);
    for (size_t i = 0; i < lim; i++) {
        const ks_op_row *r = v[i];
        ks_jw_obj(w);
        ks_jw_kstr(w, "name", ks_trace_str(t, r->name));
        ks_jw_kstr(w, "cat", ks_trace_cat_name(t, r->cat));
        ks_jw_kstr(w, "kind", ks_kind_name((ks_kind)r->kind));
        ks_jw_kstr(w, "class", ks_work_class_name(ks_analysis_op_class(a, r->name, r->kind)));
        ks_jw_kuint(w, "count", r->count);
        ks_jw_kint(w, "self_ns", r->self_ns);
        ks_jw_kint(w, "incl_ns", r->incl_ns);
        ks_jw_kint(w, "min_ns", ks_op_row_durs(r).min_ns);
        ks_jw_kint(w, "median_ns", ks_op_row_durs(r).median_ns);
        ks_jw_kint(w, "p90_ns", ks_op_row_durs(r).p90_ns);
        ks_jw_kint(w, "p99_ns", ks_op_row_durs(r).p99_ns);
        ks_jw_kint(w, "max_ns", ks_op_row_durs(r).max_ns);
        ks_report_json_int(w, "gpu_direct_ns", ks_op_row_gpu(r).direct_ns, gpu);
        ks_report_json_int(w, "gpu_subtree_ns", ks_op_row_gpu(r).subtree_ns, gpu);
        ks_report_json_int(w, "gpu_direct_sum_ns", ks_op_row_gpu(r).direct_sum_ns, gpu);
        ks_report_json_int(w, "gpu_subtree_sum_ns", ks_op_row_gpu(r).subtree_sum_ns, gpu);
        ks_report_json_share(w, "share", r->incl_ns, a->window_ns);
        ks_jw_kuint(w, "unfinished", r->unfinished);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    free((void *)v);
}

/* a kernel row's launch args (ks_launch_stats): each figure null when no instance recorded it; the
 * whole object null, with the reason, when none recorded any */
static void launch_obj(ks_jw *w, const ks_kernel_row *k)
{
    const ks_launch_stats *l = &k->launch;
    if (!l->recorded) {
        ks_jw_knull(w, "launch");
        ks_jw_kstr(w, "launch_reason", k->kind != KS_K_KERNEL ? "not a kernel"
                                                             : "not observed: the trace records no launch args for it");
        return;
    }
    ks_jw_key(w, "launch");
    ks_jw_obj(w);
    ks_jw_kuint(w, "recorded", l->recorded);
#define RANGE(bit, kmin, kmax, vmin, vmax) \
    do { \
        if (l->has & (bit)) { \
            ks_jw_kint(w, kmin, vmin); \
            ks_jw_kint(w, kmax, vmax); \
        } else { \
            ks_jw_knull(w, kmin); \
            ks_jw_knull(w, kmax); \
        } \
    } while (0)
    RANGE(KS_LAUNCH_REGS, "registers_per_thread_min", "registers_per_thread_max", l->regs_min, l->regs_max);
    RANGE(KS_LAUNCH_SHMEM, "shared_memory_bytes_min", "shared_memory_bytes_max", l->shmem_min, l->shmem_max);
#undef RANGE
    if (l->has & KS_LAUNCH_BLOCKS_SM)
        ks_jw_kdouble(w, "blocks_per_sm", l->blocks_per_sm);
    else
        ks_jw_knull(w, "blocks_per_sm");
    if (l->has & KS_LAUNCH_WARPS_SM)
        ks_jw_kdouble(w, "warps_per_sm", l->warps_per_sm);
    else
        ks_jw_knull(w, "warps_per_sm");
    if (l->has & KS_LAUNCH_OCC) {
        ks_jw_kdouble(w, "est_achieved_occupancy_pct", l->occupancy_pct);
        ks_jw_kdouble(w, "est_achieved_occupancy_pct_min", l->occupancy_min);
        ks_jw_kdouble(w, "est_achieved_occupancy_pct_max", l->occupancy_max);
    } else {
        ks_jw_knull(w, "est_achieved_occupancy_pct");
        ks_jw_knull(w, "est_achieved_occupancy_pct_min");
        ks_jw_knull(w, "est_achieved_occupancy_pct_max");
    }
    for (int g = 0; g < 2; g++) {
        const int64_t *d = g ? l->block : l->grid;
        ks_jw_key(w, g ? "block" : "grid");
        if (!(l->has & (g ? KS_LAUNCH_BLOCK : KS_LAUNCH_GRID))) {
            ks_jw_null(w);
            continue;
        }
        ks_jw_arr(w);
        for (int i = 0; i < 3; i++)
            ks_jw_int(w, d[i]);
        ks_jw_end_arr(w);
    }
    ks_jw_end_obj(w);
}

static void kernel_rows(ks_jw *w, const ks_analysis *a, const ks_report_opts *o)
{
    const ks_trace *t = a->trace;
    size_t lim = o->top && o->top < a->nkernels ? o->top : a->nkernels;
    ks_ns span = 0; /* the denominator of share: the devices' GPU spans */
    for (size_t i = 0; a->gpu && i < a->ngpu; i++)
        span = ks_sat_add(span, a->gpu[i].span_ns);
    ks_jw_arr(w);
    for (size_t i = 0; i < lim; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        ks_jw_obj(w);
        ks_jw_kstr(w, "name", ks_trace_str(t, k->name));
        ks_jw_kstr(w, "kind", ks_kind_name((ks_kind)k->kind));
        ks_work_class kc = ks_analysis_kernel_row_class(a, k);
        ks_jw_kstr(w, "class", ks_work_class_name(kc));
        ks_jw_kbool(w, "tensor_core", kc != KS_WC_COMM && ks_analysis_tensor_core(a, k->name, k->kind));
        ks_jw_kuint(w, "count", k->count);
        ks_jw_kint(w, "total_ns", k->total_ns);
        ks_jw_kint(w, "min_ns", k->min_ns);
        ks_jw_kint(w, "median_ns", k->median_ns);
        ks_jw_kint(w, "p90_ns", k->p90_ns);
        ks_jw_kint(w, "max_ns", k->max_ns);
        ks_jw_kuint(w, "unlinked", k->unlinked);
        ks_jw_kuint(w, "comm", k->comm);
        if (k->bytes >= 0)
            ks_jw_kint(w, "bytes", k->bytes);
        else
            ks_jw_knull(w, "bytes");
        ks_report_json_share(w, "share", k->total_ns, span);
        launch_obj(w, k);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void gpu_rows(ks_jw *w, const ks_analysis *a)
{
    if (!a->gpu) {
        ks_jw_knull(w, "gpu");
        ks_jw_kstr(w, "gpu_reason", a->gpu_reason ? a->gpu_reason : "not observed");
        return;
    }
    ks_jw_key(w, "gpu");
    ks_jw_arr(w);
    for (size_t i = 0; i < a->ngpu; i++) {
        const ks_gpu_row *g = &a->gpu[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "device", g->device);
        ks_jw_kint(w, "span_ns", g->span_ns);
        ks_jw_kint(w, "busy_ns", g->busy_ns);
        ks_jw_kint(w, "idle_ns", g->idle_ns);
        ks_jw_kint(w, "kernel_ns", g->kernel_ns);
        ks_jw_kint(w, "memcpy_ns", g->memcpy_ns);
        ks_jw_kint(w, "memset_ns", g->memset_ns);
        ks_jw_kint(w, "comm_ns", g->comm_ns);
        ks_jw_kint(w, "comm_exposed_ns", g->comm_exposed_ns);
        ks_jw_kint(w, "first_ns", g->first_ns);
        ks_jw_kint(w, "last_ns", g->last_ns);
        ks_jw_kuint(w, "kernels", g->kernels);
        ks_jw_kuint(w, "memcpys", g->memcpys);
        ks_jw_kuint(w, "memsets", g->memsets);
        ks_jw_kuint(w, "streams", g->streams);
        ks_report_json_share(w, "busy_share", g->busy_ns, g->span_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

/* the device activity kinesift cannot interpret (docs/analysis.md, "Other accelerators") */
static void device_activity(ks_jw *w, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    ks_jw_key(w, "device_activity");
    ks_jw_arr(w);
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        const ks_device_activity *d = &a->device_activity[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "device", d->device);
        if (d->label)
            ks_jw_kstr(w, "label", ks_trace_str(t, d->label));
        else
            ks_jw_knull(w, "label");
        ks_jw_key(w, "categories");
        ks_jw_arr(w);
        for (size_t j = 0; j < d->ncats; j++)
            ks_jw_str(w, ks_trace_cat_name(t, d->cats[j]));
        ks_jw_end_arr(w);
        ks_jw_kbool(w, "interpreted", 0);
        ks_jw_kstr(w, "meaning", KS_DEVICE_ACTIVITY_MEANING);
        ks_jw_kuint(w, "tracks", d->tracks);
        ks_jw_kuint(w, "events", d->events);
        ks_jw_kint(w, "first_ns", d->first_ns);
        ks_jw_kint(w, "last_ns", d->last_ns);
        ks_jw_kint(w, "span_ns", d->span_ns);
        ks_jw_kint(w, "busy_ns", d->busy_ns);
        ks_jw_kint(w, "idle_ns", d->idle_ns);
        ks_report_json_share(w, "busy_share", d->busy_ns, d->span_ns);
        ks_jw_key(w, "by_name");
        ks_jw_arr(w);
        for (size_t j = 0; j < d->nnames; j++) {
            ks_jw_obj(w);
            ks_jw_kstr(w, "name", ks_trace_str(t, d->names[j].name));
            ks_jw_kstr(w, "cat", ks_trace_cat_name(t, d->names[j].cat));
            ks_jw_kuint(w, "count", d->names[j].count);
            ks_jw_kint(w, "busy_ns", d->names[j].busy_ns);
            ks_jw_end_obj(w);
        }
        ks_jw_end_arr(w);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void links(ks_jw *w, const ks_link_stats *l)
{
    ks_jw_key(w, "links");
    ks_jw_obj(w);
    ks_jw_kuint(w, "gpu_events", l->gpu_events);
    ks_jw_kuint(w, "linked_by_correlation", l->linked_by_correlation);
    ks_jw_kuint(w, "linked_by_flow", l->linked_by_flow);
    ks_jw_kuint(w, "unlinked_gpu", l->unlinked_gpu);
    ks_jw_kuint(w, "launches", l->launches);
    ks_jw_kuint(w, "launches_without_gpu", l->launches_without_gpu);
    ks_jw_kuint(w, "launch_calls", l->launch_calls);
    ks_jw_kuint(w, "other_runtime_calls", l->other_runtime_calls);
    ks_jw_end_obj(w);
}

static void overlaps(ks_jw *w, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    ks_jw_key(w, "overlaps");
    ks_jw_arr(w);
    for (size_t i = 0; i < a->noverlaps; i++) {
        const ks_overlap_row *r = &a->overlaps[i];
        ks_jw_obj(w);
        ks_report_json_id(w, "pid", t, ks_track_pid(t, &t->tracks[r->track]));
        ks_report_json_id(w, "tid", t, t->tracks[r->track].tid);
        ks_jw_kstr(w, "cat", ks_trace_cat_name(t, r->cat));
        ks_jw_kuint(w, "count", r->count);
        ks_jw_kint(w, "excess_ns", r->excess_ns);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

/* what the overlap policy did to self times (docs/schema-analyze.md) */
static void self_time(ks_jw *w, const ks_analysis *a)
{
    ks_ns re = 0, clipped = 0, dropped_ns = 0;
    uint64_t spilled = 0, truncated = 0, dropped = 0;
    uint32_t lanes = a->ntl ? 1 : 0;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_timeline_overlaps *ov = ks_timeline_overlaps_of(tl);
        re = ks_sat_add(re, ov->reassigned_ns);
        clipped = ks_sat_add(clipped, ov->clipped_ns);
        dropped_ns = ks_sat_add(dropped_ns, ov->dropped_ns);
        spilled += ov->spilled;
        truncated += ov->truncated;
        dropped += ov->dropped;
        if (tl->nlanes > lanes)
            lanes = tl->nlanes;
    }
    ks_jw_key(w, "self_time");
    ks_jw_obj(w);
    ks_jw_kint(w, "reassigned_ns", re);
    ks_jw_kint(w, "clipped_ns", clipped);
    ks_jw_kuint(w, "spilled", spilled);
    ks_jw_kuint(w, "truncated", truncated);
    ks_jw_kuint(w, "dropped", dropped);
    ks_jw_kint(w, "dropped_ns", dropped_ns);
    ks_jw_kuint(w, "max_lanes", lanes);
    ks_jw_end_obj(w);
}

/* what each share of this trace is a share of (docs/schema-analyze.md, "share_of") */
static void share_of(ks_jw *w, const ks_analysis *a, const ks_insights_view *iv)
{
    char b[160];
    const char *basis = ks_report_window_basis(a);
    ks_jw_key(w, "share_of");
    ks_jw_obj(w);
    snprintf(b, sizeof b, "%s: window.span_ns (inclusive time, per-thread unions added: above 1 when the "
                          "name runs on several threads at once)", basis);
    ks_jw_kstr(w, "ops", b);
    ks_jw_kstr(w, "labels", b);
    ks_jw_kstr(w, "kernels", "GPU span: gpu[].span_ns added over the devices (clipped to the window)");
    ks_jw_kstr(w, "gpu", "the device's GPU span: gpu[].span_ns");
    ks_jw_kstr(w, "device_activity", "the device's span: device_activity[].span_ns");
    ks_jw_kstr(w, "gaps", "the device's gaps: gaps[].total_ns");
    ks_jw_kstr(w, "steps", "the step's wall time: steps[].wall_ns");
    const ks_diagnoses *d = iv ? iv->diagnoses : NULL;
    snprintf(b, sizeof b, "%s: diagnoses_summary.denominator_ns", d && d->denominator ? d->denominator : "window");
    ks_jw_kstr(w, "diagnoses", b);
    ks_jw_end_obj(w);
}

void ks_analyze_json_trace(ks_analyze_json *j, const ks_analysis *a, const ks_insights_view *iv,
                           const ks_report_opts *o)
{
    ks_jw *w = &j->w;
    const ks_trace *t = a->trace;
    ks_jw_obj(w);
    ks_jw_kstr(w, "source", t->source);
    ks_jw_key(w, "window");
    ks_jw_obj(w);
    if (a->has_events || a->has_window) {
        ks_jw_kint(w, "start_ns", a->win_start);
        ks_jw_kint(w, "end_ns", a->win_last);
        ks_jw_kint(w, "span_ns", a->window_ns);
    } else {
        ks_jw_knull(w, "start_ns");
        ks_jw_knull(w, "end_ns");
        ks_jw_knull(w, "span_ns");
    }
    ks_jw_kstr(w, "kind", ks_report_window_kind(a));
    ks_jw_kstr(w, "basis", ks_report_window_basis(a));
    ks_jw_kstr(w, "chosen", ks_report_window_why(a));
    ks_jw_end_obj(w);
    share_of(w, a, iv);
    gpu_rows(w, a);
    ks_kernels_json_classes(w, a, iv);
    device_activity(w, a);
    ks_jw_key(w, "ops");
    op_rows(w, a, a->ops, a->nops, o);
    ks_jw_key(w, "labels");
    op_rows(w, a, a->labels, a->nlabels, o);
    ks_jw_key(w, "kernels");
    kernel_rows(w, a, o);
    ks_kernels_json_shapes(w, a, o);
    links(w, &a->links);
    overlaps(w, a);
    self_time(w, a);
    ks_memory_json(w, a);
    ks_insights_json(w, a, iv);
    ks_jw_key(w, "diagnostics");
    ks_report_json_diagnostics(w, &t->diag, &a->diag);
    ks_jw_end_obj(w);
}
