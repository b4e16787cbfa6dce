/* report/kernels_json.c: the kernel view in analyze's JSON (docs/schema-analyze.md, "classes",
 * "shapes"): the GPU time of each work class per device in the analysis window and in every step,
 * and of its tensor-core kernels, and the op calls grouped by shape with their FLOPs, bytes and achieved rates. GPU figures are
 * null with the reason when the trace holds no GPU work in the window, shapes when it recorded
 * none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmtg.h"
#include "common/jsonw.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/kernels.h"
#include "report/report_int.h"
#include "report/report_util.h"

ks_ns ks_kernels_device_busy(const ks_analysis *a, int32_t device)
{
    for (size_t i = 0; a->gpu && i < a->ngpu; i++)
        if (a->gpu[i].device == device)
            return a->gpu[i].busy_ns;
    return 0;
}

/* a row's share of its device's busy time, null without busy time */
static void busy_share(ks_jw *w, const ks_analysis *a, const ks_class_time *r)
{
    ks_ns busy = ks_kernels_device_busy(a, r->device);
    if (busy > 0)
        ks_jw_kdouble(w, "busy_share", (double)r->busy_ns / (double)busy);
    else
        ks_jw_knull(w, "busy_share");
}

static void class_rows(ks_jw *w, const ks_analysis *a, const ks_class_times *ct, int with_share)
{
    ks_jw_arr(w);
    for (size_t i = 0; i < ct->n; i++) {
        const ks_class_time *r = &ct->v[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "device", r->device);
        ks_jw_kstr(w, "class", ks_work_class_name((ks_work_class)r->cls));
        ks_jw_kuint(w, "count", r->count);
        ks_jw_kint(w, "busy_ns", r->busy_ns);
        ks_jw_kint(w, "sum_ns", r->sum_ns);
        if (with_share)
            busy_share(w, a, r);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

/* the tensor-core rows of a window: per device, its kernels whose names mark a tensor-core path */
static void tensor_core_rows(ks_jw *w, const ks_analysis *a, const ks_class_times *ct, int with_share)
{
    ks_jw_arr(w);
    for (size_t i = 0; i < ct->ntc; i++) {
        const ks_class_time *r = &ct->tc[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "device", r->device);
        ks_jw_kuint(w, "count", r->count);
        ks_jw_kint(w, "busy_ns", r->busy_ns);
        ks_jw_kint(w, "sum_ns", r->sum_ns);
        if (with_share)
            busy_share(w, a, r);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

void ks_kernels_json_classes(ks_jw *w, const ks_analysis *a, const ks_insights_view *iv)
{
    ks_jw_key(w, "classes");
    if (!a->gpu) {
        ks_jw_null(w);
        ks_jw_kstr(w, "classes_reason", a->gpu_reason ? a->gpu_reason : "not observed");
        return;
    }
    const ks_steps *st = iv ? iv->steps : NULL;
    size_t nst = st ? st->n : 0;
    ks_ns *win = ks_xmalloc((1 + nst) * 2 * sizeof *win);
    win[0] = a->win_start;
    win[1] = a->win_end;
    for (size_t i = 0; i < nst; i++) {
        win[2 + 2 * i] = st->v[i].start;
        win[3 + 2 * i] = st->v[i].end;
    }
    ks_class_times *ct = ks_xcalloc(1 + nst, sizeof *ct);
    ks_class_times_build(a, win, 1 + nst, ct);
    ks_jw_obj(w);
    ks_jw_key(w, "window");
    class_rows(w, a, &ct[0], 1);
    ks_jw_key(w, "tensor_core");
    tensor_core_rows(w, a, &ct[0], 1);
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    for (size_t i = 0; i < nst; i++) {
        ks_jw_obj(w);
        ks_jw_kint(w, "number", st->v[i].number);
        ks_jw_kint(w, "start_ns", st->v[i].start);
        ks_jw_kint(w, "end_ns", st->v[i].end);
        ks_jw_key(w, "classes");
        class_rows(w, a, &ct[1 + i], 0);
        ks_jw_key(w, "tensor_core");
        tensor_core_rows(w, a, &ct[1 + i], 0);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
    ks_class_times_free(ct, 1 + nst);
    free(ct);
    free(win);
}


/* a shape arg as the array it is (its compact text as the parser kept it), null when absent */
static void atom_raw(ks_row_atoms *a, const ks_trace *t, ks_str id)
{
    if (!id) {
        ks_row_atom_text(a, "null", 4);
        return;
    }
    const char *s = ks_trace_str(t, id);
    ks_row_atom_text(a, s, strlen(s));
    a->m[a->n - 1].raw = 1;
}

#define ATOM_RAW(a, k, t, id) (ATOM_KEY(a, k), atom_raw((a), (t), (id)))

const char *const ks_shape_line_keys[] = {"input_dims", "input_types", "concrete_inputs", NULL};

/* a rate: null (not a number: most rates of an untimed row) written here, a figure by atom_rate */
#define ATOM_RATE(a, k, v)                                                                          \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        ATOM_KEY(a, k);                                                                            \
        if (isfinite(v_))                                                                          \
            atom_rate((a), v_);                                                                    \
        else                                                                                       \
            ks_row_atom_text((a), "null", 4);                                                      \
    } while (0)

/* a figure with 12 significant digits (FLOPs and bytes are exact integers below 2^53: GFLOPs keep
 * every digit); v is a number (ATOM_RATE writes null for the others) */
static void atom_rate(ks_row_atoms *a, double v)
{
    if (a->has_last && v == a->last) {
        ks_row_atom_text(a, a->lt, a->ll);
        return;
    }
    char *b = a->txt[a->n];
    size_t n = ks_fmt_g(b, v, 12);
    ks_row_atom_text(a, b, n);
    a->last = v;
    a->lt = b;
    a->ll = (uint8_t)n;
    a->has_last = 1;
}

/* a figure with 12 significant digits (FLOPs and bytes are exact integers below 2^53: GFLOPs keep
 * every digit), null when not a number */
static void rate(ks_jw *w, const char *k, double v)
{
    if (!isfinite(v)) {
        ks_jw_knull(w, k);
        return;
    }
    char b[32];
    size_t n = ks_fmt_g(b, v, 12);
    ks_jw_key(w, k);
    ks_jw_number_text(w, b, n);
}

const ks_peak *ks_kernels_peak(const ks_analysis *a, int32_t device, const ks_report_opts *o, ks_peak *over)
{
    return ks_peak_of_device(a->trace, device, o ? o->peak_tflops : 0, o ? o->peak_tbps : 0, over);
}

static void roofline(ks_jw *w, const ks_analysis *a, const ks_report_opts *o)
{
    ks_jw_key(w, "roofline");
    ks_jw_arr(w);
    for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
        int32_t dev = a->gpu[i].device;
        ks_peak over;
        const ks_peak *p = ks_kernels_peak(a, dev, o, &over);
        const char *name = NULL;
        for (size_t j = 0; j < a->trace->meta.ndevices; j++)
            if (a->trace->meta.devices[j].id == dev && a->trace->meta.devices[j].name)
                name = ks_trace_str(a->trace, a->trace->meta.devices[j].name);
        ks_jw_obj(w);
        ks_jw_kint(w, "device", dev);
        if (name)
            ks_jw_kstr(w, "device_name", name);
        else
            ks_jw_knull(w, "device_name");
        ks_jw_key(w, "peak");
        if (!p) {
            ks_jw_null(w);
            ks_jw_kstr(w, "peak_reason", name ? "not observed: the device is not in the peak table (docs/analysis.md, "
                                                "\"Peaks and the roofline\"); --peak TFLOPS/TBPS gives one"
                                              : "not observed: the trace has no deviceProperties entry for the device; "
                                                "--peak TFLOPS/TBPS gives one");
        } else {
            ks_jw_obj(w);
            ks_jw_kstr(w, "name", p->name);
            ks_jw_kstr(w, "source", p->source);
            rate(w, "fp64_tflops_per_s", p->fp64);
            rate(w, "fp32_tflops_per_s", p->fp32);
            rate(w, "tf32_tflops_per_s", p->tf32);
            rate(w, "bf16_fp16_tflops_per_s", p->fp16);
            rate(w, "fp8_tflops_per_s", p->fp8);
            rate(w, "tb_per_s", p->tbps);
            ks_jw_end_obj(w);
        }
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

void ks_kernels_json_shapes(ks_jw *w, const ks_analysis *a, const ks_report_opts *o)
{
    if (a->gpu)
        roofline(w, a, o);
    else {
        ks_jw_knull(w, "roofline");
        ks_jw_kstr(w, "roofline_reason", a->gpu_reason ? a->gpu_reason : "not observed");
    }
    const ks_trace *t = a->trace;
    const ks_shapes *sh = ks_analysis_shapes(a);
    ks_jw_key(w, "shapes");
    if (sh->reason) {
        ks_jw_null(w);
        ks_jw_kstr(w, "shapes_reason", sh->reason);
        return;
    }
    size_t lim = o && o->top && o->top < sh->n ? o->top : sh->n;
    int gpu = a->links.gpu_events > 0;
    ks_jw_arr(w);
    ks_row_atoms at;
    for (size_t i = 0; i < lim; i++) {
        const ks_shape_row *r = &sh->v[i];
        int known = r->cost.known, timed = known && r->calls_timed > 0;
        ks_jw_obj(w);
        at.n = 0;
        ATOM_STR(&at, "op", ks_trace_str(t, r->op));
        ATOM_STR(&at, "class", ks_work_class_name((ks_work_class)r->cost.cls));
        ATOM_RAW(&at, "input_dims", t, r->dims);
        ATOM_RAW(&at, "input_types", t, r->types);
        ATOM_RAW(&at, "concrete_inputs", t, r->concrete);
        at.has_last = 0;
        ATOM_INT(&at, "count", (int64_t)r->count);
        if (gpu) {
            ATOM_INT(&at, "calls_timed", (int64_t)r->calls_timed);
            ATOM_INT(&at, "kernel_ns", r->kernel_ns);
        } else { /* no GPU work in the trace: the kernel time is not observed (as the ops rows') */
            ATOM_NULL(&at, "calls_timed");
            ATOM_NULL(&at, "kernel_ns");
        }
        if (r->device >= 0)
            ATOM_INT(&at, "device", r->device);
        else
            ATOM_NULL(&at, "device");
        ATOM_RATE(&at, "gflops_each", known ? r->cost.flops / 1e9 : NAN);
        ATOM_RATE(&at, "bytes_each", known ? r->cost.bytes : NAN);
        ATOM_RATE(&at, "intensity", known && r->cost.bytes > 0 ? r->cost.flops / r->cost.bytes : NAN);
        if (r->cost.why)
            ATOM_STR(&at, "cost_reason", r->cost.why);
        at.has_last = 0;
        ATOM_RATE(&at, "tflops_per_s", timed ? r->tflops.mean : NAN);
        ATOM_RATE(&at, "tflops_per_s_median", timed ? r->tflops.median : NAN);
        ATOM_RATE(&at, "tflops_per_s_min", timed ? r->tflops.min : NAN);
        ATOM_RATE(&at, "tflops_per_s_max", timed ? r->tflops.max : NAN);
        ATOM_RATE(&at, "tb_per_s", timed ? r->tbps.mean : NAN);
        ATOM_RATE(&at, "tb_per_s_median", timed ? r->tbps.median : NAN);
        ATOM_RATE(&at, "tb_per_s_min", timed ? r->tbps.min : NAN);
        ATOM_RATE(&at, "tb_per_s_max", timed ? r->tbps.max : NAN);
        ks_peak over;
        ks_roof f = ks_roof_of(r->device >= 0 ? ks_kernels_peak(a, r->device, o, &over) : NULL, r);
        ATOM_RATE(&at, "roof_tflops_per_s", f.bound && strcmp(f.bound, "memory") == 0 && r->cost.flops <= 0 ? NAN : f.roof);
        ATOM_RATE(&at, "efficiency", f.efficiency);
        if (f.bound)
            ATOM_STR(&at, "bound", f.bound);
        else
            ATOM_NULL(&at, "bound");
        ks_jw_katoms(w, at.m, at.n);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}
