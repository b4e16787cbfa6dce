/* report/kernels_json.c: the kernel view in analyze's JSON (docs/schema-analyze.md, "classes"):
 * the GPU time of each work class per device in the analysis window and in every step. GPU figures
 * are null with the reason when the trace holds no GPU work in the window. */
#include <stdlib.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/kernels.h"
#include "report/report_int.h"

static ks_ns device_busy(const ks_analysis *a, int32_t device)
{
    for (size_t i = 0; a->gpu && i < a->ngpu; i++)
        if (a->gpu[i].device == device)
            return a->gpu[i].busy_ns;
    return 0;
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
        if (with_share) {
            ks_ns busy = device_busy(a, r->device);
            if (busy > 0)
                ks_jw_kdouble(w, "busy_share", (double)r->busy_ns / (double)busy);
            else
                ks_jw_knull(w, "busy_share");
        }
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
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    for (size_t i = 0; i < nst; i++) {
        ks_jw_obj(w);
        ks_jw_kint(w, "number", st->v[i].number);
        ks_jw_kint(w, "start_ns", st->v[i].start);
        ks_jw_kint(w, "end_ns", st->v[i].end);
        ks_jw_key(w, "classes");
        class_rows(w, a, &ct[1 + i], 0);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
    ks_class_times_free(ct, 1 + nst);
    free(ct);
    free(win);
}

