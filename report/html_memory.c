/* report/html_memory.c: the memory chart of the HTML report, inline SVG: per device the allocated
 * and reserved bytes over time (ks_mem_device.timeline: downsampled, every peak kept) as step lines,
 * the steps' CPU annotations shaded, the peak marked. Without allocator events, one line saying
 * why (the memory pass's reason). Every figure comes from the memory pass (kinesift/memory.h); the
 * exact values are in data attributes (data-peak-bytes, data-peak-ns...) to be checked against the
 * JSON. The SVG has role="img", <title> and <desc>; each shape a <title>. */
#include <stdint.h>
#include <string.h>

#include "common/util.h"
#include "report/html.h"
#include "report/report_int.h"

#define W 960.0
#define H 220.0
#define LEFT 80.0
#define RIGHT 10.0
#define TOP 14.0
#define BOTTOM 30.0

static void html_bytes(FILE *out, int64_t v)
{
    char b[32];
    if (v < 0) {
        fputc('-', out);
        v = -v;
    }
    ks_fmt_bytes(b, sizeof b, (uint64_t)v);
    fputs(b, out);
}

typedef struct frame {
    ks_ns t0, t1;
    int64_t lo, hi;
} frame;

static double fx(const frame *f, ks_ns t)
{
    double span = (double)(f->t1 - f->t0);
    return LEFT + (span > 0 ? (double)(t - f->t0) / span : 0.0) * (W - LEFT - RIGHT);
}

static double fy(const frame *f, int64_t v)
{
    double span = (double)(f->hi - f->lo);
    return H - BOTTOM - (span > 0 ? (double)(v - f->lo) / span : 0.0) * (H - BOTTOM - TOP);
}

/* a step line through the points (the level holds until the next event) */
static void series(FILE *out, const frame *f, const ks_mem_device *d, int reserved, const char *colour,
                   const char *what)
{
    fprintf(out, "<path data-series=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", what, colour);
    int open = 0;
    for (size_t i = 0; i < d->ntimeline; i++) {
        const ks_mem_point *p = &d->timeline[i];
        int64_t v = reserved ? p->reserved : p->allocated;
        if (v < 0)
            continue;
        double x = fx(f, p->ts), y = fy(f, v);
        if (!open)
            fprintf(out, "M%.2f %.2f", x, y);
        else
            fprintf(out, "H%.2fV%.2f", x, y);
        open = 1;
    }
    if (open)
        fprintf(out, "H%.2f", fx(f, f->t1));
    fprintf(out, "\"><title>%s</title></path>", what);
}

static void device_chart(FILE *out, const ks_analysis *a, const ks_mem_device *d, const ks_steps *st, int id,
                         size_t k)
{
    const ks_trace *t = a->trace;
    char lab[64];
    ks_mem_device_label(lab, sizeof lab, d);
    if (!d->ntimeline)
        return;
    frame f = {d->timeline[0].ts, d->timeline[d->ntimeline - 1].ts, 0, 1};
    for (size_t i = 0; i < d->ntimeline; i++) {
        const ks_mem_point *p = &d->timeline[i];
        f.lo = p->allocated < f.lo ? p->allocated : f.lo;
        f.hi = p->allocated > f.hi ? p->allocated : f.hi;
        f.hi = p->reserved > f.hi ? p->reserved : f.hi;
    }
    if (f.t1 <= f.t0)
        f.t1 = f.t0 + 1;
    int total = d->basis == KS_MEM_BASIS_TOTAL;
    fprintf(out, "<figure class=\"chart\" data-chart=\"memory\" data-device-type=\"%d\" data-device=\"%d\" "
                 "data-peak-bytes=\"%lld\" data-peak-ns=\"%lld\" data-basis=\"%s\">\n"
                 "<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                 "aria-labelledby=\"mem%d-%zu-t mem%d-%zu-d\">",
            (int)d->device_type, (int)d->device_id, (long long)d->peak_level, (long long)d->peak_ns,
            ks_mem_basis_text(d), W, H, W, H, id, k, id, k);
    fprintf(out, "<title id=\"mem%d-%zu-t\">Memory of ", id, k);
    ks_html_text(out, lab);
    fprintf(out, "</title><desc id=\"mem%d-%zu-d\">%s over time from the allocator events%s, steps shaded, the "
                 "peak marked.</desc>",
            id, k, total ? "Allocated and reserved bytes" : "The running sum of Bytes since the first event",
            d->has_reserved ? "" : " (no reserve recorded)");
    for (int q = 0; q <= 2; q++) { /* y axis: low, middle, high */
        int64_t v = f.lo + (f.hi - f.lo) / 2 * q;
        if (q == 2)
            v = f.hi;
        double y = fy(&f, v);
        fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" class=\"grid\"/><text x=\"%.0f\" "
                     "y=\"%.2f\" class=\"ax\" text-anchor=\"end\">",
                LEFT, W - RIGHT, y, y, LEFT - 6, y + 4);
        html_bytes(out, v);
        fputs("</text>", out);
    }
    for (size_t i = 0; st && i < st->n; i++) {
        const ks_step *s = &st->v[i];
        if (s->host_end <= f.t0 || s->host_start >= f.t1)
            continue;
        ks_ns s0 = s->host_start > f.t0 ? s->host_start : f.t0, s1 = s->host_end < f.t1 ? s->host_end : f.t1;
        double x0 = fx(&f, s0), x1 = fx(&f, s1);
        fprintf(out, "<rect class=\"memstep\" data-step=\"%lld\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%.0f\" "
                     "fill=\"%s\" fill-opacity=\"0.35\"><title>",
                (long long)s->number, x0, TOP, x1 - x0 > 0.5 ? x1 - x0 : 0.5, H - BOTTOM - TOP,
                i % 2 ? "#d9d9d9" : "#ececec");
        ks_html_text(out, ks_trace_str(t, s->name));
        for (size_t j = 0; j < d->nsteps; j++)
            if (d->steps[j].number == s->number) {
                fputs(": ", out);
                html_bytes(out, d->steps[j].start_level);
                fputs(" to ", out);
                html_bytes(out, d->steps[j].end_level);
                fputs(", peak ", out);
                html_bytes(out, d->steps[j].peak_level);
                break;
            }
        fputs("</title></rect>", out);
    }
    if (d->has_reserved)
        series(out, &f, d, 1, "#E69F00", "reserved");
    series(out, &f, d, 0, "#0072B2", total ? "allocated" : "bytes since the first event");
    double px = fx(&f, d->peak_ns), py = fy(&f, d->peak_level);
    fprintf(out, "<circle class=\"peak\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"#D55E00\"><title>peak ", px, py);
    html_bytes(out, d->peak_level);
    fputs(" at ", out);
    ks_html_ns(out, d->peak_ns - a->win_start);
    fputs(" from the window's start", out);
    if (d->has_peak_step)
        fprintf(out, ", step %lld", (long long)d->peak_step);
    fputs(", in ", out);
    ks_html_text(out, ks_mem_op_text(t, d->peak_op));
    fputs("</title></circle>", out);
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" class=\"ax\" text-anchor=\"%s\">peak ", px + (px > W / 2 ? -6 : 6),
            py < TOP + 10 ? py + 14 : py - 6, px > W / 2 ? "end" : "start");
    html_bytes(out, d->peak_level);
    fputs("</text>", out);
    fputs("</svg>\n<figcaption><ul class=\"legend\"><li><span class=\"sw\" style=\"background:#0072B2\"></span>", out);
    fputs(total ? "allocated" : "bytes since the first event (no Total Allocated)", out);
    fputs("</li>", out);
    if (d->has_reserved)
        fputs("<li><span class=\"sw\" style=\"background:#E69F00\"></span>reserved</li>", out);
    fputs("<li><span class=\"sw\" style=\"background:#ececec\"></span>steps</li></ul>", out);
    ks_html_text(out, lab);
    fputs(": peak ", out);
    html_bytes(out, d->peak_level);
    if (d->capacity > 0 && total)
        fprintf(out, " of a %.1f GB device (%.2f%%)", (double)d->capacity / 1e9,
                100.0 * (double)d->peak_allocated / (double)d->capacity);
    fprintf(out, "; %llu events%s.</figcaption>\n</figure>\n", (unsigned long long)d->nev,
            d->ntimeline < d->nev ? " (drawn from a downsampled timeline that keeps every peak)" : "");
}

void ks_html_memory(FILE *out, const ks_analysis *a, const ks_steps *st, int id)
{
    const ks_memory *m = a->memory;
    if (!m || m->reason || !m->n) {
        fputs("<p class=\"none\">Memory ", out);
        ks_html_text(out, m && m->reason ? m->reason : "not observed");
        fputs("</p>\n", out);
        return;
    }
    for (size_t k = 0; k < m->n; k++)
        device_chart(out, a, &m->dev[k], st, id, k);
}
