/* report/html_charts.c: the two charts of the HTML report, inline SVG written here.
 *  - step bars: one stacked bar per step, the step's breakdown (which adds up to its wall time)
 *    in the role colours, warm-up steps hatched and labelled;
 *  - GPU strip: per device, the analysis window with the span of its GPU work and every idle gap
 *    of at least the gap threshold, coloured by what the launching CPU thread was doing. Gaps
 *    closer than a pixel are drawn as one rectangle (its tooltip says how many, their idle time
 *    and the cause of most of it), so the strip has at most one rectangle per pixel column
 *    whatever the trace; gaps under the threshold are not drawn (the caption says so).
 *  - critical path: per step (the first KS_HTML_PATH_ROWS), its path along the step's time, the
 *    pieces coloured by kind (CPU, GPU, launch latency, stream gap, sync, thread wait,
 *    unmodelled); pieces closer than a pixel are one rectangle in the colour of most of its time
 *    (its tooltip gives the time of each kind), so a row has at most one rectangle per pixel
 *    column; each row carries the path's time by kind.
 * Every figure comes from the steps, gaps and critical path results; this file only places them. Each SVG has
 * role="img", <title> and <desc>; each shape a <title> (the tooltip, without JavaScript too). */
#include <string.h>

#include "common/util.h"
#include "kinesift/critpath.h"
#include "report/html.h"
#include "report/report_util.h"

#define W 960.0
#define LEFT 80.0
#define RIGHT 10.0
#define PLOT_W (W - LEFT - RIGHT)

static void legend_item(FILE *out, const char *colour, const char *name)
{
    fprintf(out, "<li><span class=\"sw\" style=\"background:%s\"></span>", colour);
    ks_html_text(out, name);
    fputs("</li>", out);
}

/* ---- step bars -------------------------------------------------------------------------- */

static void step_bar(FILE *out, const ks_analysis *a, const ks_step *s, double x, double bw, double y0,
                     double scale, int id)
{
    fprintf(out, "<g data-step=\"%lld\" data-wall-ns=\"%lld\"%s>", (long long)s->number, (long long)s->wall_ns,
            s->warmup ? " data-warmup=\"1\"" : "");
    double y = y0;
    for (int r = 0; r < KS_ROLE_COUNT; r++) {
        ks_ns v = s->breakdown[r];
        if (v <= 0)
            continue;
        double h = (double)v * scale;
        y -= h;
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" data-role=\"%s\" "
                     "data-ns=\"%lld\"><title>",
                x, y, bw, h, ks_html_role_colour((ks_role)r), ks_role_name((ks_role)r), (long long)v);
        ks_html_text(out, ks_trace_str(a->trace, s->name));
        fprintf(out, "%s: %s ", s->warmup ? " (warm-up)" : "", ks_role_name((ks_role)r));
        ks_html_ns(out, v);
        char s1[16];
        fprintf(out, " (%s of ", ks_text_pct(s1, sizeof s1, v, s->wall_ns));
        ks_html_ns(out, s->wall_ns);
        fputs(")</title></rect>", out);
    }
    if (s->warmup)
        fprintf(out, "<rect class=\"warm\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                     "fill=\"url(#hatch%d)\" pointer-events=\"none\"/>",
                x, y, bw, y0 - y, id);
    fputs("</g>", out);
}

void ks_html_step_bars(FILE *out, const ks_analysis *a, const ks_steps *st, int id)
{
    if (!st || !st->n) {
        fprintf(out, "<p class=\"none\">No steps: ");
        ks_html_text(out, st ? st->source : "not computed");
        fputs("</p>\n", out);
        return;
    }
    const double H = 240, TOP = 14, BOTTOM = 36, y0 = H - BOTTOM;
    ks_ns max = 1;
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].wall_ns > max)
            max = st->v[i].wall_ns;
    double scale = (y0 - TOP) / (double)max;
    double slot = PLOT_W / (double)st->n, bw = slot > 4 ? slot * 0.8 : slot;
    fprintf(out, "<figure class=\"chart\" data-chart=\"steps\">\n<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" "
                 "width=\"%.0f\" height=\"%.0f\" aria-labelledby=\"st%d-t st%d-d\">",
            W, H, W, H, id, id);
    fprintf(out, "<title id=\"st%d-t\">Step time breakdown, %zu steps</title><desc id=\"st%d-d\">One bar per "
                 "step, its height the step's wall time, stacked by what the step spent its time on (kernel, "
                 "memcpy, memset, communication, runtime, data loading, CPU, other). Warm-up steps are "
                 "hatched.</desc>",
            id, st->n, id);
    fprintf(out, "<defs><pattern id=\"hatch%d\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                 "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"6\" fill=\"#fff\" "
                 "fill-opacity=\"0.7\"/></pattern></defs>",
            id);
    for (int k = 0; k <= 2; k++) { /* y axis: 0, half, max */
        ks_ns v = (ks_ns)((__int128)max * k / 2); /* max may be near INT64_MAX */
        double y = y0 - (double)v * scale;
        fprintf(out, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" class=\"grid\"/><text x=\"%.0f\" "
                     "y=\"%.2f\" class=\"ax\" text-anchor=\"end\">",
                LEFT, W - RIGHT, y, y, LEFT - 6, y + 4);
        ks_html_ns(out, v);
        fputs("</text>", out);
    }
    size_t every = st->n / 20 + 1;
    for (size_t i = 0; i < st->n; i++) {
        const ks_step *s = &st->v[i];
        double x = LEFT + slot * (double)i + (slot - bw) / 2;
        step_bar(out, a, s, x, bw, y0, scale, id);
        if (i % every == 0)
            fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" class=\"ax\" text-anchor=\"middle\">%lld</text>", x + bw / 2,
                    y0 + 14, (long long)s->number);
        if (s->warmup && bw >= 10)
            fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" class=\"ax\" text-anchor=\"middle\">W</text>", x + bw / 2,
                    y0 + 28);
    }
    fputs("</svg>\n<figcaption><ul class=\"legend\">", out);
    for (int r = 0; r < KS_ROLE_COUNT; r++)
        legend_item(out, ks_html_role_colour((ks_role)r), ks_role_name((ks_role)r));
    fputs("<li><span class=\"sw warm\"></span>warm-up (hatched, W)</li></ul>Step numbers below the bars; each bar "
          "adds up to the step's wall time (steps: ",
          out);
    ks_html_text(out, st->source);
    fputs(").</figcaption>\n</figure>\n", out);
}

/* ---- critical path ---------------------------------------------------------------------- */

typedef struct path_run {
    double x0, x1;
    ks_ns a, b;
    ks_ns by[KS_CP_NKINDS];
} path_run;

static void path_flush(FILE *out, const path_run *r, double y, double h)
{
    int best = 0;
    for (int k = 1; k < KS_CP_NKINDS; k++)
        if (r->by[k] > r->by[best])
            best = k;
    double w = r->x1 - r->x0 < 0.5 ? 0.5 : r->x1 - r->x0;
    fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" data-kind=\"%s\" "
                 "data-ns=\"%lld\"><title>",
            r->x0, y, w, h, ks_html_path_colour(best), ks_cp_kind_name(best), (long long)ks_sat_sub(r->b, r->a));
    int first = 1;
    for (int k = 0; k < KS_CP_NKINDS; k++) {
        if (!r->by[k])
            continue;
        fprintf(out, "%s%s ", first ? "" : ", ", ks_cp_kind_name(k));
        ks_html_ns(out, r->by[k]);
        first = 0;
    }
    fputs("</title></rect>", out);
}

void ks_html_critpath(FILE *out, const struct ks_critpath *cp, int id)
{
    if (!cp || !cp->n) {
        fputs("<p class=\"none\">No critical path (no timed events).</p>\n", out);
        return;
    }
    size_t n = cp->n < KS_HTML_PATH_ROWS ? cp->n : KS_HTML_PATH_ROWS;
    ks_ns max = 1;
    for (size_t i = 0; i < n; i++)
        if (ks_sat_sub(cp->v[i].end, cp->v[i].start) > max)
            max = ks_sat_sub(cp->v[i].end, cp->v[i].start);
    const double ROW = n > 20 ? 8 : 16, TOP = 6, BOTTOM = 10, H = TOP + ROW * (double)n + BOTTOM;
    fprintf(out, "<figure class=\"chart\" data-chart=\"critical_path\">\n<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" "
                 "width=\"%.0f\" height=\"%.0f\" aria-labelledby=\"cp%d-t cp%d-d\">",
            W, H, W, H, id, id);
    fprintf(out, "<title id=\"cp%d-t\">Critical path of %zu %s</title><desc id=\"cp%d-d\">One row per step, "
                 "from its start to its end: what the step waited for at each moment (CPU work, GPU work, launch "
                 "latency, a stream's gap, a synchronize's return, a thread's wait on another, time no dependency "
                 "explains), coloured by kind.</desc>",
            id, n, cp->v[0].number < 0 ? "the window" : "steps", id);
    for (size_t i = 0; i < n; i++) {
        const ks_cp_step *s = &cp->v[i];
        double y = TOP + ROW * (double)i;
        double scale = PLOT_W / (double)max;
        fprintf(out, "<g data-path-step=\"%lld\" data-wall-ns=\"%lld\"", (long long)s->number,
                (long long)ks_sat_sub(s->end, s->start));
        for (int k = 0; k < KS_CP_NKINDS; k++)
            fprintf(out, " data-%s-ns=\"%lld\"", ks_cp_kind_name(k), (long long)s->by_kind[k]);
        fputs(">", out);
        if (s->number >= 0 && (n <= 20 || i % 5 == 0))
            fprintf(out, "<text x=\"%.0f\" y=\"%.2f\" class=\"ax\" text-anchor=\"end\">%lld</text>", LEFT - 6,
                    y + ROW - 2, (long long)s->number);
        path_run r = {0};
        int open = 0;
        for (size_t k = 0; k < s->n; k++) {
            ks_cp_piece pc = ks_critpath_piece(cp, s, k);
            const ks_cp_piece *p = &pc;
            double x0 = LEFT + (double)ks_sat_sub(p->a, s->start) * scale;
            double x1 = LEFT + (double)ks_sat_sub(p->b, s->start) * scale;
            ks_ns d = ks_sat_sub(p->b, p->a);
            /* a new rectangle when the run is a pixel wide and this piece is of another kind */
            int same = open && r.by[p->kind] == ks_sat_sub(r.b, r.a);
            if (open && !same && r.x1 - r.x0 >= 1) {
                path_flush(out, &r, y + 1, ROW - 2);
                open = 0;
            }
            if (!open) {
                memset(&r, 0, sizeof r);
                r.x0 = x0;
                r.a = p->a;
                open = 1;
            }
            r.x1 = x1;
            r.b = p->b;
            r.by[p->kind] = ks_sat_add(r.by[p->kind], d);
        }
        if (open)
            path_flush(out, &r, y + 1, ROW - 2);
        fputs("</g>", out);
    }
    fputs("</svg>\n<figcaption><ul class=\"legend\">", out);
    for (int k = 0; k < KS_CP_NKINDS; k++)
        legend_item(out, ks_html_path_colour(k), ks_cp_kind_name(k));
    fprintf(out, "</ul>Each row is a step's critical path from its start to its end (docs/analysis.md, \"Critical "
                 "path\"), rows to the scale of the longest; ");
    if (n < cp->n)
        fprintf(out, "the first %zu of %zu steps.", n, cp->n);
    else
        fputs("every step.", out);
    fputs("</figcaption>\n</figure>\n", out);
}

/* ---- GPU strip -------------------------------------------------------------------------- */

typedef struct run {
    double x0, x1;
    size_t count;
    ks_ns idle, start, end;
    ks_ns by_class[KS_GAP_NCLASSES];
    const ks_gap *first;
} run;

static double xpos(const ks_analysis *a, ks_ns t)
{
    return LEFT + PLOT_W * (double)ks_sat_sub(t, a->win_start) / (double)(a->window_ns > 0 ? a->window_ns : 1);
}

static void flush(FILE *out, const ks_analysis *a, const run *r, double y, double h)
{
    if (!r->count)
        return;
    int best = 0;
    for (int c = 1; c < KS_GAP_NCLASSES; c++)
        if (r->by_class[c] > r->by_class[best])
            best = c;
    double w = r->x1 - r->x0 < 1 ? 1 : r->x1 - r->x0;
    fprintf(out, "<rect class=\"gap\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                 "data-count=\"%zu\" data-ns=\"%lld\" data-cause=\"%d\"><title>",
            r->x0, y, w, h, ks_html_gap_class_colour(best), r->count, (long long)r->idle, best);
    if (r->count == 1) {
        const ks_gap *g = r->first;
        fputs("GPU idle gap of ", out);
        ks_html_ns(out, r->idle);
        fputs(" at +", out);
        ks_html_ns(out, ks_sat_sub(g->start, a->win_start));
        fputs(": the CPU thread was in ", out);
        ks_html_text_cut(out, g->cause ? ks_trace_str(a->trace, g->cause) : "nothing (idle)", 160);
        fprintf(out, " (%s)", ks_html_gap_class_name(best));
    } else {
        fprintf(out, "%zu GPU idle gaps, ", r->count);
        ks_html_ns(out, r->idle);
        fputs(" idle in all, from +", out);
        ks_html_ns(out, ks_sat_sub(r->start, a->win_start));
        fputs(" to +", out);
        ks_html_ns(out, ks_sat_sub(r->end, a->win_start));
        fprintf(out, "; most of it: %s", ks_html_gap_class_name(best));
    }
    fputs("</title></rect>", out);
}

static void device_row(FILE *out, const ks_analysis *a, const ks_gpu_row *gr, const ks_gap_device *d, double y,
                       double h)
{
    fprintf(out, "<g data-device=\"%d\"><text x=\"%.0f\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">GPU %d</text>",
            gr->device, LEFT - 6, y + h / 2 + 4, gr->device);
    fprintf(out, "<rect class=\"busy\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#0072B2\" "
                 "data-ns=\"%lld\"><title>GPU %d: busy ",
            xpos(a, gr->first_ns), y, xpos(a, gr->last_ns) - xpos(a, gr->first_ns), h, (long long)gr->busy_ns,
            gr->device);
    ks_html_ns(out, gr->busy_ns);
    fputs(" of a ", out);
    ks_html_ns(out, gr->span_ns);
    char s1[16];
    fprintf(out, " span (%s); gaps shorter than the threshold are inside the blue</title></rect>",
            ks_text_pct(s1, sizeof s1, gr->busy_ns, gr->span_ns));
    run r;
    memset(&r, 0, sizeof r);
    for (size_t i = 0; d && i < d->count; i++) {
        const ks_gap *g = &d->all[i];
        double x0 = xpos(a, g->start), x1 = xpos(a, g->end);
        if (r.count && x0 - r.x1 >= 1.0) {
            flush(out, a, &r, y, h);
            memset(&r, 0, sizeof r);
        }
        if (!r.count) {
            r.x0 = x0;
            r.start = g->start;
            r.first = g;
        }
        r.x1 = x1;
        r.end = g->end;
        r.count++;
        r.idle = ks_sat_add(r.idle, ks_sat_sub(g->end, g->start));
        r.by_class[ks_html_gap_class(g)] = ks_sat_add(r.by_class[ks_html_gap_class(g)], ks_sat_sub(g->end, g->start));
    }
    flush(out, a, &r, y, h);
    fputs("</g>", out);
}

void ks_html_gpu_strip(FILE *out, const ks_analysis *a, const ks_gaps *g, int id)
{
    if (!a->gpu || !a->ngpu) {
        fputs("<p class=\"none\">GPU: ", out);
        ks_html_text(out, a->gpu_reason ? a->gpu_reason : "not observed");
        fputs("</p>\n", out);
        return;
    }
    const double ROW = 28, TOP = 6, AXIS = 22;
    double H = TOP + ROW * (double)a->ngpu + AXIS;
    ks_ns threshold = g && g->n ? g->dev[0].threshold_ns : 0;
    fprintf(out, "<figure class=\"chart\" data-chart=\"gpu\">\n<svg role=\"img\" viewBox=\"0 0 %.0f %.0f\" "
                 "width=\"%.0f\" height=\"%.0f\" aria-labelledby=\"gs%d-t gs%d-d\">",
            W, H, W, H, id, id);
    fprintf(out, "<title id=\"gs%d-t\">GPU activity over the window, %zu device%s</title><desc id=\"gs%d-d\">One "
                 "row per GPU: blue from its first to its last work, idle gaps of at least ",
            id, a->ngpu, a->ngpu == 1 ? "" : "s", id);
    ks_html_ns(out, threshold);
    fputs(" coloured by what the CPU thread that launched the next work was doing.</desc>", out);
    double ya = TOP + ROW * (double)a->ngpu;
    for (int k = 0; k <= 4; k++) {
        ks_ns t = (ks_ns)((__int128)a->window_ns * k / 4); /* a window may span int64 */
        double x = LEFT + PLOT_W * k / 4.0;
        fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.0f\" y2=\"%.0f\" class=\"grid\"/><text x=\"%.2f\" "
                     "y=\"%.0f\" class=\"ax\" text-anchor=\"%s\">+",
                x, x, TOP, ya, x, ya + 14, k == 0 ? "start" : k == 4 ? "end" : "middle");
        ks_html_ns(out, t);
        fputs("</text>", out);
    }
    for (size_t i = 0; i < a->ngpu; i++) {
        const ks_gap_device *d = NULL;
        for (size_t j = 0; g && j < g->n; j++)
            if (g->dev[j].device == a->gpu[i].device)
                d = &g->dev[j];
        device_row(out, a, &a->gpu[i], d, TOP + ROW * (double)i, ROW - 8);
    }
    fputs("</svg>\n<figcaption><ul class=\"legend\">", out);
    legend_item(out, "#0072B2", "GPU work (gaps under the threshold inside)");
    for (int c = 0; c < KS_GAP_NCLASSES; c++)
        legend_item(out, ks_html_gap_class_colour(c), ks_html_gap_class_name(c));
    fputs("</ul>Idle gaps of at least ", out);
    ks_html_ns(out, threshold);
    fputs(" by what the launching CPU thread was doing; gaps less than a pixel apart are drawn as one (its "
          "tooltip gives the count), at least a pixel wide.</figcaption>\n</figure>\n",
          out);
}
