/* report/kernels_text.c: the kernel view in analyze's text report: per device, the GPU time of
 * each work class in the window (the union of the class's work, and its share of the device's busy
 * time; classes on several streams overlap, so the shares may add up to more than 100%), and that
 * of the kernels whose names mark a tensor-core path; the share is n/a on a device without busy
 * time, as the JSON's busy_share is null. */
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "kinesift/kernels.h"
#include "report/report_int.h"
#include "report/report_util.h"

/* a row's share of its device's busy time, "n/a" without busy time (the JSON's null) */
static const char *busy_share(char *b, size_t n, const ks_analysis *a, const ks_class_time *r)
{
    return ks_text_pct(b, n, r->busy_ns, ks_kernels_device_busy(a, r->device));
}

static int cmp_busy(const void *x, const void *y)
{
    const ks_class_time *p = x, *q = y;
    if (p->device != q->device)
        return p->device < q->device ? -1 : 1;
    if (p->busy_ns != q->busy_ns)
        return p->busy_ns > q->busy_ns ? -1 : 1;
    return (p->cls > q->cls) - (p->cls < q->cls);
}

void ks_kernels_text_classes(FILE *out, const ks_analysis *a)
{
    if (!a->gpu)
        return;
    ks_ns w[2] = {a->win_start, a->win_end};
    ks_class_times ct;
    ks_class_times_build(a, w, 1, &ct);
    ks_qsort(ct.v, ct.n, sizeof *ct.v, cmp_busy);
    for (size_t i = 0; i < ct.n; i++) {
        const ks_class_time *r = &ct.v[i];
        char b[32], sh[16];
        ks_fmt_ns(b, sizeof b, r->busy_ns);
        if (!i || ct.v[i - 1].device != r->device)
            fprintf(out, "%s  classes  GPU %d:", i ? "\n" : "", r->device);
        fprintf(out, "%s %s %s (%s)", i && ct.v[i - 1].device == r->device ? "," : "",
                ks_work_class_name((ks_work_class)r->cls), b, busy_share(sh, sizeof sh, a, r));
    }
    for (size_t i = 0; i < ct.ntc; i++) {
        const ks_class_time *r = &ct.tc[i];
        char b[32], sh[16];
        ks_fmt_ns(b, sizeof b, r->busy_ns);
        fprintf(out, "%s  tensor cores  GPU %d: %s (%s)", i || ct.n ? "\n" : "", r->device, b,
                busy_share(sh, sizeof sh, a, r));
    }
    if (ct.n)
        fprintf(out, "\n           (union of each class's work, %% of the device's busy time; classes on several "
                     "streams overlap; tensor cores: kernels whose names say so)\n");
    ks_class_times_free(&ct, 1);
}
