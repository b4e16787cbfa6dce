/* report/html_roofline.c: the roofline chart of the HTML report, inline SVG: per device with GPU
 * work, arithmetic intensity (FLOP/byte) across and achieved TFLOP/s up, both logarithmic, with
 * the device's roofs from the peak table (kinesift/kernels.h, ks_peak_of_device): the bandwidth
 * roof (intensity x TB/s) and one compute roof per data type the shapes use, each to the ridge
 * point. Every op group of the shapes table (ks_shapes_build) on that device with an efficiency
 * (ks_roof_of: a peak, FLOPs, a timed call) and FLOPs > 0 is a point at (its intensity, its mean
 * TFLOP/s), its area proportional to its kernel time; ops without FLOPs (copies) have no place on
 * these axes and are left out (the caption counts them). A device the table does not know has no
 * roofline: the text says so. The axes span whole decades around the points and the ridge. Every
 * figure is the shapes table's of analyze's JSON; this file only places them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/kernels.h"
#include "report/html.h"
#include "report/report_int.h"

#define RW 720.0
#define RH 420.0
#define RL 70.0  /* left margin: the y labels */
#define RR 20.0
#define RT 14.0
#define RB 44.0  /* bottom: the x labels and the axis title */
#define PW (RW - RL - RR)
#define PH (RH - RT - RB)

typedef struct axes {
    double x0, x1, y0, y1; /* log10 of the ends */
} axes;

static double px(const axes *ax, double v)
{
    return RL + (log10(v) - ax->x0) / (ax->x1 - ax->x0) * PW;
}

static double py(const axes *ax, double v)
{
    return RT + PH - (log10(v) - ax->y0) / (ax->y1 - ax->y0) * PH;
}

static void grow(double *lo, double *hi, double v)
{
    if (v > 0 && isfinite(v)) {
        if (v < *lo)
            *lo = v;
        if (v > *hi)
            *hi = v;
    }
}

/* "1e-3", "0.01", "0.1", "1", "10", "100", "1e3", ... */
static void decade_label(FILE *out, int e)
{
    if (e >= -2 && e <= 2)
        fprintf(out, "%g", pow(10, e));
    else
        fprintf(out, "1e%d", e);
}

static const char *type_name(const ks_peak *p, double peak)
{
    if (peak == p->fp16)
        return "BF16/FP16";
    if (peak == p->fp8)
        return "FP8";
    if (peak == p->tf32)
        return "TF32";
    if (peak == p->fp32)
        return "FP32";
    if (peak == p->fp64)
        return "FP64";
    return "compute";
}

static void device_chart(FILE *out, const ks_analysis *a, const ks_shapes *sh, int32_t dev, int id, int k)
{
    const ks_trace *t = a->trace;
    ks_peak over;
    const ks_peak *p = ks_peak_of_device(t, dev, 0, 0, &over);
    const char *name = NULL;
    for (size_t j = 0; j < t->meta.ndevices; j++)
        if (t->meta.devices[j].id == dev && t->meta.devices[j].name)
            name = ks_trace_str(t, t->meta.devices[j].name);
    fprintf(out, "<h4>GPU %d", dev);
    if (name) {
        fputs(": ", out);
        ks_html_text(out, name);
    }
    fputs("</h4>\n", out);
    if (!p) {
        fprintf(out, "<p class=\"none\" data-roofline=\"none\" data-roofline-device=\"%d\">No roofline: unknown device (%s",
                dev, name ? "kinesift knows no peaks for it: docs/analysis.md, \"Peaks and the roofline\"" : "no deviceProperties entry");
        fputs("; <code>kinesift analyze --peak TFLOPS/TBPS</code> gives one).</p>\n", out);
        return;
    }
    /* the points, the compute peaks they use, and the axes' ends */
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    double peaks[5];
    size_t npeaks = 0, npoints = 0, no_flops = 0;
    ks_ns longest = 0;
    for (size_t i = 0; i < sh->n; i++) {
        const ks_shape_row *r = &sh->v[i];
        if (r->device != dev)
            continue;
        ks_roof f = ks_roof_of(p, r);
        if (!isfinite(f.efficiency))
            continue;
        if (!(r->cost.flops > 0) || !(r->cost.bytes > 0) || !(r->tflops.mean > 0)) {
            no_flops++;
            continue;
        }
        npoints++;
        grow(&xlo, &xhi, r->cost.flops / r->cost.bytes);
        grow(&ylo, &yhi, r->tflops.mean);
        if (r->kernel_ns > longest)
            longest = r->kernel_ns;
        double pk = ks_peak_tflops(p, &r->cost);
        size_t j = 0;
        while (j < npeaks && peaks[j] != pk)
            j++;
        if (j == npeaks && npeaks < 5)
            peaks[npeaks++] = pk;
    }
    if (!npoints) {
        fprintf(out, "<p class=\"none\" data-roofline=\"empty\" data-roofline-device=\"%d\">No roofline: no op group on this "
                     "device has FLOPs and a timed call (%s).</p>\n",
                dev, sh->n ? "none of the op groups by shape in analyze's JSON has a formula and kernel time" : "no shapes");
        return;
    }
    for (size_t j = 0; j < npeaks; j++) {
        grow(&ylo, &yhi, peaks[j]);
        grow(&xlo, &xhi, peaks[j] / p->tbps); /* the ridge point */
    }
    axes ax = {floor(log10(xlo)), ceil(log10(xhi)), floor(log10(ylo)), ceil(log10(yhi))};
    if (ax.x1 <= ax.x0)
        ax.x1 = ax.x0 + 1;
    if (ax.y1 <= ax.y0)
        ax.y1 = ax.y0 + 1;
    int cid = id * 100 + k;
    fprintf(out, "<figure class=\"chart\" data-chart=\"roofline\" data-device=\"%d\">\n<svg role=\"img\" viewBox=\"0 0 "
                 "%.0f %.0f\" width=\"%.0f\" height=\"%.0f\" aria-labelledby=\"rf%d-t rf%d-d\" data-x-log10=\"%g %g\" "
                 "data-y-log10=\"%g %g\" data-plot=\"%g %g %g %g\">",
            dev, RW, RH, RW, RH, cid, cid, ax.x0, ax.x1, ax.y0, ax.y1, RL, RT, PW, PH);
    fprintf(out, "<title id=\"rf%d-t\">Roofline of GPU %d, ", cid, dev);
    ks_html_text(out, p->name);
    fputs(" (peak: ", out);
    ks_html_text(out, p->source);
    fprintf(out, ")</title><desc id=\"rf%d-d\">Arithmetic intensity (FLOP/byte, log scale) across, achieved TFLOP/s "
                 "(log scale) up: %zu op groups as points sized by their kernel time, under the bandwidth roof (%g TB/s) "
                 "and the compute roofs of their data types.</desc>",
            cid, npoints, p->tbps);
    /* the plot area, framed; the grid and the decade labels */
    fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#999\" "
                 "data-frame=\"plot\"/>",
            RL, RT, PW, PH);

    for (int e = (int)ax.x0; e <= (int)ax.x1; e++) {
        double x = RL + (e - ax.x0) / (ax.x1 - ax.x0) * PW;
        fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\" class=\"grid\"/><text x=\"%.2f\" y=\"%.2f\" "
                     "class=\"ax\" text-anchor=\"middle\">",
                x, x, RT, RT + PH, x, RT + PH + 14);
        decade_label(out, e);
        fputs("</text>", out);
    }
    for (int e = (int)ax.y0; e <= (int)ax.y1; e++) {
        double y = RT + PH - (e - ax.y0) / (ax.y1 - ax.y0) * PH;
        fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\" class=\"grid\"/><text x=\"%.2f\" y=\"%.2f\" "
                     "class=\"ax\" text-anchor=\"end\">",
                RL, RL + PW, y, y, RL - 4, y + 4);
        decade_label(out, e);
        fputs("</text>", out);
    }
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" class=\"ax\" text-anchor=\"middle\">arithmetic intensity "
                 "(FLOP/byte)</text><text x=\"12\" y=\"%.2f\" class=\"ax\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 12 %.2f)\">achieved TFLOP/s</text>",
            RL + PW / 2, RH - 6, RT + PH / 2, RT + PH / 2);
    /* the roofs: the bandwidth line from the left edge to the highest ridge, each compute roof from
     * its ridge to the right edge */
    double top = 0;
    for (size_t j = 0; j < npeaks; j++)
        if (peaks[j] > top)
            top = peaks[j];
    double xl = pow(10, ax.x0), xr = pow(10, ax.x1);
    double bx0 = xl, by0 = xl * p->tbps;
    if (by0 < pow(10, ax.y0)) { /* enter the plot at its bottom edge */
        by0 = pow(10, ax.y0);
        bx0 = by0 / p->tbps;
    }
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#D55E00\" stroke-width=\"2\" "
                 "data-roof=\"bandwidth\" data-tb-per-s=\"%g\"><title>bandwidth roof: %g TB/s</title></line>",
            px(&ax, bx0), py(&ax, by0), px(&ax, top / p->tbps), py(&ax, top), p->tbps, p->tbps);
    for (size_t j = 0; j < npeaks; j++) {
        double ridge = peaks[j] / p->tbps;
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#0072B2\" stroke-width=\"2\" "
                     "data-roof=\"compute\" data-tflops-per-s=\"%g\"><title>%s compute roof: %g TFLOP/s (ridge at %.3g "
                     "FLOP/byte)</title></line><text x=\"%.2f\" y=\"%.2f\" class=\"ax\" text-anchor=\"end\">%s %g "
                     "TFLOP/s</text>",
                px(&ax, ridge), py(&ax, peaks[j]), px(&ax, xr), py(&ax, peaks[j]), peaks[j], type_name(p, peaks[j]),
                peaks[j], ridge, RL + PW - 2, py(&ax, peaks[j]) - 4, type_name(p, peaks[j]), peaks[j]);
    }
    /* the points, the longest last (on top) is not needed: smaller drawn last, so none hides */
    for (size_t i = 0; i < sh->n; i++) {
        const ks_shape_row *r = &sh->v[i]; /* longest kernel time first */
        if (r->device != dev)
            continue;
        ks_roof f = ks_roof_of(p, r);
        if (!isfinite(f.efficiency) || !(r->cost.flops > 0) || !(r->cost.bytes > 0) || !(r->tflops.mean > 0))
            continue;
        double in = r->cost.flops / r->cost.bytes;
        double rad = 2.0 + 10.0 * sqrt(longest > 0 ? (double)r->kernel_ns / (double)longest : 0);
        fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"#009E73\" fill-opacity=\"0.55\" stroke=\"#004D38\" "
                     "data-intensity=\"%.12g\" data-tflops-per-s=\"%.12g\" data-kernel-ns=\"%lld\" "
                     "data-efficiency=\"%.12g\"><title>",
                px(&ax, in), py(&ax, r->tflops.mean), rad, in, r->tflops.mean, (long long)r->kernel_ns, f.efficiency);
        ks_html_text_cut(out, ks_trace_str(t, r->op), 80);
        fputc(' ', out);
        ks_html_text_cut(out, r->dims ? ks_trace_str(t, r->dims) : "", 120);
        fprintf(out, ": %.4g TFLOP/s at %.4g FLOP/byte, %.1f%% of its %s roof (%.4g TFLOP/s); kernel time ",
                r->tflops.mean, in, 100.0 * f.efficiency, f.bound, f.roof);
        ks_html_ns(out, r->kernel_ns);
        fprintf(out, " in %llu calls</title></circle>", (unsigned long long)r->count);
    }
    fputs("</svg>\n<figcaption><ul class=\"legend\">", out);
    fputs("<li><span class=\"sw\" style=\"background:#D55E00\"></span>bandwidth roof</li>"
          "<li><span class=\"sw\" style=\"background:#0072B2\"></span>compute roof per data type</li>"
          "<li><span class=\"sw\" style=\"background:#009E73\"></span>an op group (area: its kernel time)</li>",
          out);
    fputs("</ul>Peaks: ", out);
    ks_html_text(out, p->name);
    fputs(", ", out);
    ks_html_text(out, p->source);
    fprintf(out, ". %zu op group%s drawn", npoints, npoints == 1 ? "" : "s");
    if (no_flops)
        fprintf(out, "; %zu without FLOPs (copies, bandwidth only) left out", no_flops);
    fputs(".</figcaption>\n</figure>\n", out);
}

void ks_html_roofline(FILE *out, const ks_analysis *a, int id)
{
    if (!a->gpu || !a->ngpu) {
        fputs("<p class=\"none\">No roofline: ", out);
        ks_html_text(out, a->gpu_reason ? a->gpu_reason : "no GPU work");
        fputs("</p>\n", out);
        return;
    }
    const ks_shapes *sh = ks_analysis_shapes(a);
    if (sh->reason) {
        fputs("<p class=\"none\" data-roofline=\"none\">No roofline: ", out);
        ks_html_text(out, sh->reason);
        fputs("</p>\n", out);
        return;
    }
    for (size_t i = 0; i < a->ngpu; i++)
        device_chart(out, a, sh, a->gpu[i].device, id, (int)i);
}
