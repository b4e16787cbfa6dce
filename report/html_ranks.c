/* report/html_ranks.c: the multi-rank section of `kinesift report`: the rank identity rule, the
 * clock alignment and its warnings, rank x step-time heat maps (median/p90, and every active
 * step), a rank x collective heat map of the waits, the straggler stated as a hypothesis with its
 * evidence and next check, and each rank's memory peak per device with the imbalance per device
 * kind and the device closest to its capacity.
 *
 * Why correct: every figure is a field of the ks_ranks that ranks/ computes (ks_ranks_match), the
 * same ones `kinesift ranks --format json` writes; nothing is re-derived. The one aggregation is
 * for size: with more than HEAT_COLS matched collectives, consecutive collectives share a column
 * and its cell is the sum of the rank's waits at them (waits of one rank at distinct collectives
 * are distinct figures of ks_ranks, summed like its total wait). Each cell carries its exact value
 * (data-ns) and the collectives it covers, so tests/report compares it with the JSON.
 * Cells of a rank that has no observation (no steps, no GPU data, no arrival at the collectives)
 * are hatched and say "not observed", never 0. Colours: a viridis-like sequential scale (reads in
 * the common colour-vision deficiencies and in grey) from the smallest observed value to the
 * largest, with a legend giving both in the unit of the values; the columns are labelled on top.
 * When it does not apply: a single rank (no section). Who: report/html_page.c (ks_html_ranks). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/ranks.h"
#include "report/html.h"
#include "report/report_int.h"

#define HEAT_COLS 100 /* columns at most: the page stays small for long jobs */
#define CELL_H 18
#define LEFT 80
#define COL_H 16 /* the row of column labels */

/* viridis at nine stops */
static const unsigned char viridis[9][3] = {
    {0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b}, {0x2c, 0x72, 0x8e}, {0x21, 0x91, 0x8c},
    {0x28, 0xae, 0x80}, {0x5e, 0xc9, 0x62}, {0xad, 0xdc, 0x30}, {0xfd, 0xe7, 0x25},
};

static void colour(char *buf, size_t n, ks_ns v, ks_ns max)
{
    double x = max > 0 ? (double)v / (double)max : 0.0;
    if (x < 0)
        x = 0;
    if (x > 1)
        x = 1;
    double p = x * 8.0;
    int i = (int)p;
    if (i > 7)
        i = 7;
    double f = p - i;
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = (int)(viridis[i][k] + f * (viridis[i + 1][k] - viridis[i][k]) + 0.5);
    snprintf(buf, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* one heat map cell: value v when observed, else why not */
typedef struct cell {
    ks_ns v;
    const char *na; /* non-NULL: not observed, the reason */
    char what[96];  /* the column, for titles */
} cell;

static void legend(FILE *out, ks_ns min, ks_ns max, const char *unit_what)
{
    char a[32], b[32], c[16];
    fputs("<p class=\"heatlegend\">", out);
    ks_html_text(out, unit_what);
    fputs(": <svg width=\"260\" height=\"16\" role=\"img\"><title>colour scale</title><desc>dark purple is the "
          "smallest value, yellow the largest</desc>",
          out);
    for (int i = 0; i < 20; i++) {
        colour(c, sizeof c, i, 19);
        fprintf(out, "<rect x=\"%d\" y=\"2\" width=\"13\" height=\"12\" fill=\"%s\"/>", i * 13, c);
    }
    ks_fmt_ns(a, sizeof a, min);
    ks_fmt_ns(b, sizeof b, max);
    fprintf(out, "</svg> <span data-field=\"legend_min\" data-ns=\"%" PRId64 "\">%s</span> to "
                 "<span data-field=\"legend_max\" data-ns=\"%" PRId64 "\">%s</span>; "
                 "<span class=\"sw na\"></span>not observed</p>\n", min, a, max, b);
}

/* the heat map as SVG and as a table (which reads with JavaScript and SVG off) */
static void heat(FILE *out, const char *map, const char *title, const char *desc, const ks_ranks *r, const cell *cells,
                 size_t ncols, const char *unit_what)
{
    /* the scale runs from the smallest observed value to the largest */
    ks_ns max = 0, min = 0;
    int any = 0;
    for (size_t i = 0; i < r->n * ncols; i++)
        if (!cells[i].na) {
            if (!any || cells[i].v > max)
                max = cells[i].v;
            if (!any || cells[i].v < min)
                min = cells[i].v;
            any = 1;
        }
    int cw = (int)(760 / (ncols ? ncols : 1));
    cw = cw > 60 ? 60 : cw < 6 ? 6 : cw;
    /* a row of column labels on top (each shortened to its column's width, whole in its title) */
    int w = LEFT + cw * (int)ncols + 10, hgt = CELL_H * (int)r->n + 24 + COL_H;
    fprintf(out, "<figure><svg class=\"heat\" data-map=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                 "role=\"img\"><title>", map, w, hgt, w, hgt);
    ks_html_text(out, title);
    fputs("</title><desc>", out);
    ks_html_text(out, desc);
    fputs("</desc><defs><pattern id=\"na-", out);
    fprintf(out, "%s\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" "
                 "fill=\"#fff\"/><path d=\"M0 6L6 0\" stroke=\"#999\"/></pattern></defs>", map);
    char b[32], c[16];
    for (size_t j = 0; j < ncols; j++) {
        const char *what = cells[j].what;
        size_t fit = (size_t)(cw / 7 > 1 ? cw / 7 : 1), len = strlen(what);
        fprintf(out, "<text class=\"ax col\" data-col=\"%zu\" x=\"%d\" y=\"%d\" text-anchor=\"middle\"><title>", j,
                LEFT + cw * (int)j + cw / 2, COL_H - 4);
        ks_html_text(out, what);
        fputs("</title>", out);
        if (len <= fit)
            ks_html_text(out, what);
        else {
            char cut[96];
            size_t k = fit > 1 ? fit - 1 : 1;
            while (k > 1 && ((unsigned char)what[k] & 0xC0) == 0x80) /* not inside a UTF-8 character */
                k--;
            snprintf(cut, sizeof cut, "%.*s", (int)k, what);
            ks_html_text(out, cut);
            fputs("\xe2\x80\xa6", out);
        }
        fputs("</text>", out);
    }
    for (size_t i = 0; i < r->n; i++) {
        int y = 4 + COL_H + CELL_H * (int)i;
        fprintf(out, "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %" PRId64 "</text>", LEFT - 6,
                y + 13, r->v[i].rank);
        for (size_t j = 0; j < ncols; j++) {
            const cell *x = &cells[i * ncols + j];
            int xx = LEFT + cw * (int)j;
            if (x->na) {
                fprintf(out, "<rect data-map=\"%s\" data-rank=\"%" PRId64 "\" data-col=\"%zu\" data-na=\"1\" x=\"%d\" "
                             "y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#na-%s)\"><title>rank %" PRId64 ", ",
                        map, r->v[i].rank, j, xx, y, cw, CELL_H - 1, map, r->v[i].rank);
                ks_html_text(out, x->what);
                fputs(": not observed (", out);
                ks_html_text(out, x->na);
                fputs(")</title></rect>", out);
            } else {
                colour(c, sizeof c, x->v - min, max - min);
                ks_fmt_ns(b, sizeof b, x->v);
                fprintf(out, "<rect data-map=\"%s\" data-rank=\"%" PRId64 "\" data-col=\"%zu\" data-ns=\"%" PRId64 "\" "
                             "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>rank %" PRId64 ", ",
                        map, r->v[i].rank, j, x->v, xx, y, cw, CELL_H - 1, c, r->v[i].rank);
                ks_html_text(out, x->what);
                fprintf(out, ": %s</title></rect>", b);
            }
        }
    }
    fprintf(out, "<text class=\"ax\" x=\"%d\" y=\"%d\">", LEFT, hgt - 4);
    ks_html_text(out, "columns labelled on top; the same figures as a table below");
    fputs("</text></svg><figcaption>", out);
    ks_html_text(out, desc);
    fputs("</figcaption></figure>\n", out);
    legend(out, min, max, unit_what);
    fprintf(out, "<details><summary>The same figures as a table</summary><table class=\"sortable\" data-map=\"%s\">"
                 "<thead><tr><th class=\"name\">rank</th>", map);
    for (size_t j = 0; j < ncols; j++) {
        fputs("<th>", out);
        ks_html_text(out, cells[j].what);
        fputs("</th>", out);
    }
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < r->n; i++) {
        fprintf(out, "<tr><td class=\"name\" data-v=\"%" PRId64 "\">%" PRId64 "</td>", r->v[i].rank, r->v[i].rank);
        for (size_t j = 0; j < ncols; j++) {
            const cell *x = &cells[i * ncols + j];
            if (x->na) {
                fputs("<td class=\"none\">not observed</td>", out);
            } else {
                fprintf(out, "<td class=\"num\" data-v=\"%" PRId64 "\">", x->v);
                ks_html_ns(out, x->v);
                fputs("</td>", out);
            }
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></details>\n", out);
}

static void step_map(FILE *out, const ks_ranks *r)
{
    static const char *const cols[] = {"median step", "p90 step"};
    cell *cells = ks_xcalloc(r->n * 2, sizeof *cells);
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < 2; j++) {
            cell *x = &cells[i * 2 + j];
            snprintf(x->what, sizeof x->what, "%s", cols[j]);
            if (!r->v[i].steps)
                x->na = r->v[i].steps_reason ? r->v[i].steps_reason : "no steps";
            else
                x->v = j ? r->v[i].step_p90 : r->v[i].step_median;
        }
    heat(out, "step", "Step time per rank", "Each rank's median and 90th percentile active step "
         "duration; every step is in the next map.",
         r, cells, 2, "step time");
    free(cells);
}

/* n items in at most HEAT_COLS columns: *per consecutive items a column (at least 1) */
static size_t columns(size_t n, size_t *per)
{
    *per = (n + HEAT_COLS - 1) / HEAT_COLS;
    if (*per < 1)
        *per = 1;
    return (n + *per - 1) / *per;
}

/* rank x step: each active step's wall time, step k of every rank in column k; past HEAT_COLS
 * steps, consecutive steps share a column and the cell is the longest of them (one step's time,
 * not a new figure) */
static void step_series_map(FILE *out, const ks_ranks *r)
{
    size_t most = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].steps > most)
            most = r->v[i].steps;
    if (!most)
        return;
    size_t per, ncols = columns(most, &per);
    cell *cells = ks_xcalloc(r->n * ncols, sizeof *cells);
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        for (size_t j = 0; j < ncols; j++) {
            cell *c = &cells[i * ncols + j];
            size_t lo = j * per, hi = (j + 1) * per > most ? most : (j + 1) * per;
            if (hi - lo == 1)
                snprintf(c->what, sizeof c->what, "step %zu", lo + 1);
            else
                snprintf(c->what, sizeof c->what, "steps %zu-%zu (longest)", lo + 1, hi);
            if (!x->steps)
                c->na = x->steps_reason ? x->steps_reason : "no steps";
            else if (!x->step_ns)
                c->na = "per-step times not in a kinesift.summary/1";
            else if (lo >= x->steps)
                c->na = "the rank has fewer active steps";
            else
                for (size_t k = lo; k < hi && k < x->steps; k++)
                    if (x->step_ns[k] > c->v)
                        c->v = x->step_ns[k];
        }
    }
    heat(out, "steps", "Step time per rank and step", "Rank x step: the wall time of each active step (warm-up and "
         "unfinished steps left out), the k-th active step of every rank in column k.", r, cells, ncols, "step time");
    free(cells);
}

static void wait_map(FILE *out, const ks_ranks *r)
{
    size_t per, ncols = columns(r->nm, &per);
    cell *cells = ks_xcalloc(r->n * ncols, sizeof *cells);
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < ncols; j++)
            cells[i * ncols + j].na = r->v[i].colls_reason ? r->v[i].colls_reason : "no arrival at these collectives";
    for (size_t k = 0; k < r->nm; k++) {
        const ks_match *m = &r->m[k];
        size_t j = k / per;
        for (size_t a = 0; a < m->narr; a++) {
            cell *x = &cells[m->arr[a].rank * ncols + j];
            if (x->na) {
                x->na = NULL;
                x->v = 0;
            }
            x->v += m->arr[a].wait;
        }
    }
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < ncols; j++) {
            size_t lo = j * per, hi = (j + 1) * per > r->nm ? r->nm : (j + 1) * per;
            cell *x = &cells[i * ncols + j];
            if (hi - lo == 1)
                snprintf(x->what, sizeof x->what, "#%zu %.60s %" PRId64, lo, r->m[lo].name, r->m[lo].index);
            else
                snprintf(x->what, sizeof x->what, "#%zu-#%zu", lo, hi - 1);
        }
    char desc[256];
    snprintf(desc, sizeof desc, "Rank x collective: each rank's wait at the matched collectives (last arrival minus "
             "its own arrival), %zu collectives in order%s.", r->nm,
             per > 1 ? ", consecutive ones summed per column" : "");
    fprintf(out, "<p data-field=\"wait_columns\" data-per=\"%zu\" data-collectives=\"%zu\"></p>\n", per, r->nm);
    heat(out, "wait", "Collective wait per rank", desc, r, cells, ncols, "wait");
    free(cells);
}

static void straggler(FILE *out, const ks_ranks *r)
{
    fputs("<h3>Straggler</h3>\n", out);
    if (r->straggler == SIZE_MAX) {
        fputs("<p class=\"none\" data-field=\"straggler\">No straggler: no matched collective had a single last "
              "arrival.</p>\n", out);
        return;
    }
    const ks_rank *x = &r->v[r->straggler];
    const ks_rank_stat *s = &r->st[r->straggler];
    double sh = r->total_wait > 0 ? (double)s->caused / (double)r->total_wait : -1;
    fprintf(out, "<dl class=\"diag\" data-field=\"straggler\" data-rank=\"%" PRId64 "\" data-times-last=\"%" PRIu64
                 "\" data-caused-ns=\"%" PRId64 "\" data-total-wait-ns=\"%" PRId64 "\" data-confidence=\"%s\">"
                 "<dt>Hypothesis (confidence %s)</dt><dd>rank %" PRId64 " is the straggler: it arrived last at %" PRIu64
                 " of %zu matched collectives and the others waited ",
            x->rank, s->times_last, s->caused, r->total_wait, ks_ranks_confidence(r), ks_ranks_confidence(r), x->rank,
            s->times_last, r->nm);
    ks_html_ns(out, s->caused);
    if (sh >= 0)
        fprintf(out, " for it (%.1f%% of all waiting)", 100.0 * sh);
    fputs(r->untrusted ? "; the clocks disagree, so this may be an alignment artefact.</dd>" : ".</dd>", out);
    if (r->nevidence) {
        fputs("<dt>Evidence</dt><dd>kernels and ops that take longer on it than on the median rank<ul>", out);
        for (size_t t = 0; t < r->nevidence; t++) {
            const ks_evidence *e = &r->evidence[t];
            fprintf(out, "<li data-field=\"evidence\" data-ns=\"%" PRId64 "\" data-median-ns=\"%" PRId64 "\">%s <code>",
                    e->ns, e->median_ns, e->op ? "op" : "kernel");
            ks_html_text_cut(out, e->name, 120);
            fputs("</code> ", out);
            ks_html_ns(out, e->ns);
            fputs(" against ", out);
            ks_html_ns(out, e->median_ns);
            fputs("</li>", out);
        }
        fputs("</ul></dd>", out);
    }
    fputs("<dt>Next check</dt><dd><code>kinesift diff ", out);
    ks_html_text(out, r->v[r->straggler == 0 && r->n > 1 ? 1 : 0].source);
    fputc(' ', out);
    ks_html_text(out, x->source);
    fputs("</code>: what it runs before the collective that the others do not, or longer; refuted if its kernels "
          "before the collectives take as long as the others' (then look at its host: data loading, CPU ops).</dd>"
          "</dl>\n", out);
}

static void bytes_cell(FILE *out, int64_t v, const char *na)
{
    char b[32];
    if (v < 0) {
        fprintf(out, "<td class=\"none\">%s</td>", na);
        return;
    }
    ks_fmt_bytes(b, sizeof b, (uint64_t)v);
    fprintf(out, "<td class=\"num\" data-v=\"%" PRId64 "\">%s</td>", v, b);
}

/* each rank's memory peaks per device (exact bytes in data-v), then per device kind the imbalance
 * and the device closest to its capacity: the figures of ks_ranks (ranks/memory.c) */
static void memory(FILE *out, const ks_ranks *r)
{
    char lab[64], dev[64], b1[32], b2[32];
    fputs("<h3>Memory peaks</h3>\n", out);
    if (!r->mem_ranks) {
        fputs("<p class=\"none\" data-field=\"memory\">Memory not observed on any rank (", out);
        ks_html_text(out, r->n && r->v[0].mem_reason ? r->v[0].mem_reason : "no [memory] events");
        fputs(").</p>\n", out);
        return;
    }
    fputs("<p>The most Total Allocated and Total Reserved of each device's allocator events, per rank; the share "
          "is of the device's <code>totalGlobalMem</code> (deviceProperties) where the trace gives it.</p>\n"
          "<table class=\"sortable\" data-field=\"memory\"><thead><tr><th>rank</th><th class=\"name\">device</th>"
          "<th>peak allocated</th><th>peak reserved</th><th>capacity</th><th>allocated share</th></tr></thead>"
          "<tbody>\n", out);
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        for (size_t j = 0; j < x->nmem; j++) {
            const ks_rank_mem *m = &x->mem[j];
            ks_rank_mem_label(lab, sizeof lab, m);
            fprintf(out, "<tr data-rank=\"%" PRId64 "\"><td data-v=\"%" PRId64 "\">%" PRId64 "</td><td class=\"name\">",
                    x->rank, x->rank, x->rank);
            ks_html_text(out, lab);
            fputs("</td>", out);
            bytes_cell(out, m->peak_allocated, "not observed (no Total Allocated)");
            bytes_cell(out, m->peak_reserved, "not observed");
            bytes_cell(out, m->capacity, "unknown");
            if (m->peak_allocated >= 0 && m->capacity > 0) {
                double sh = (double)m->peak_allocated / (double)m->capacity;
                fprintf(out, "<td class=\"num\" data-v=\"%.6g\">%.1f%%</td>", sh, 100.0 * sh);
            } else
                fputs("<td class=\"none\">n/a</td>", out);
            fputs("</tr>\n", out);
        }
        if (!x->nmem) {
            fprintf(out, "<tr data-rank=\"%" PRId64 "\"><td data-v=\"%" PRId64 "\">%" PRId64 "</td>"
                         "<td class=\"none\" colspan=\"5\">not observed: ", x->rank, x->rank, x->rank);
            ks_html_text(out, x->mem_reason ? x->mem_reason : "");
            fputs("</td></tr>\n", out);
        }
    }
    fputs("</tbody></table>\n<ul class=\"diag\">\n", out);
    for (size_t i = 0; i < r->nmk; i++) {
        const ks_mem_kind *k = &r->mk[i];
        ks_mem_kind_label(lab, sizeof lab, k);
        fprintf(out, "<li data-field=\"memory_kind\" data-device-type=\"%d\"", (int)k->device_type);
        if (!k->devices) {
            fputs(">", out);
            ks_html_text(out, lab);
            fputs(": peaks not observed (the events carry no Total Allocated).</li>\n", out);
            continue;
        }
        ks_fmt_bytes(b1, sizeof b1, (uint64_t)k->max_allocated);
        ks_fmt_bytes(b2, sizeof b2, (uint64_t)k->median_allocated);
        fprintf(out, " data-max=\"%" PRId64 "\" data-max-rank=\"%" PRId64 "\" data-median=\"%" PRId64 "\">", k->max_allocated,
                r->v[k->max_rank].rank, k->median_allocated);
        ks_html_text(out, lab);
        ks_mem_kind_device_label(dev, sizeof dev, k, k->max_device);
        fprintf(out, ": peak allocated max %s (rank %" PRId64 ", ", b1, r->v[k->max_rank].rank);
        ks_html_text(out, dev);
        fprintf(out, "), median %s", b2);
        if (k->imbalance >= 0)
            fprintf(out, ", imbalance <strong>%.3f&times;</strong> (max/median)", k->imbalance);
        else
            fputs(", imbalance n/a (median 0)", out);
        fprintf(out, " over %zu device(s) of %zu rank(s). ", k->devices, k->ranks);
        if (k->cap_rank == SIZE_MAX)
            fputs("Closest to its capacity: not observed (capacity unknown: deviceProperties gives no totalGlobalMem).", out);
        else {
            ks_fmt_bytes(b1, sizeof b1, (uint64_t)k->cap_allocated);
            ks_fmt_bytes(b2, sizeof b2, (uint64_t)k->cap_capacity);
            ks_mem_kind_device_label(dev, sizeof dev, k, k->cap_device);
            fprintf(out, "Closest to its capacity: <span data-field=\"closest\" data-rank=\"%" PRId64 "\">rank %" PRId64
                         ", ", r->v[k->cap_rank].rank, r->v[k->cap_rank].rank);
            ks_html_text(out, dev);
            fprintf(out, "</span>, %s of %s (%.1f%%)", b1, b2, 100.0 * k->cap_share);
            if (k->no_capacity)
                fprintf(out, "; capacity unknown for %zu device(s)", k->no_capacity);
            fputc('.', out);
        }
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

void ks_html_ranks_section(FILE *out, const ks_ranks *r)
{
    char b1[32], b2[32];
    fprintf(out, "<section id=\"ranks\" data-ranks=\"%zu\"><h2>Ranks of one job (%zu)</h2>\n", r->n, r->n);
    fputs("<p>Figures of <code>kinesift ranks</code>. Rank identity: <code>distributedInfo.rank</code> in the trace, "
          "else the file name (<code>rank-3</code>, <code>rank_3</code>, <code>rank3</code>, <code>_3.</code>), else "
          "the input order; each rank's rule:</p>\n<table class=\"sortable\" data-field=\"identity\"><thead><tr>"
          "<th>rank</th><th class=\"name\">rule</th><th class=\"name\">source</th><th>clock offset</th></tr></thead>"
          "<tbody>\n", out);
    for (size_t i = 0; i < r->n; i++) {
        fprintf(out, "<tr><td data-v=\"%" PRId64 "\">%" PRId64 "</td><td class=\"name\">%s</td><td class=\"name\">",
                r->v[i].rank, r->v[i].rank, ks_rank_rule_name(r->v[i].rule));
        ks_html_text(out, r->v[i].source);
        fprintf(out, "</td><td class=\"num\" data-v=\"%" PRId64 "\">", r->st[i].offset);
        if (r->st[i].aligned || !r->o.align)
            ks_html_ns(out, r->st[i].offset);
        else
            fputs("not aligned (no collective shared with the reference)", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    ks_fmt_ns(b1, sizeof b1, r->spread);
    ks_fmt_ns(b2, sizeof b2, r->o.align_tolerance);
    if (!r->o.align)
        fputs("<p class=\"warn\" data-field=\"alignment\">Clock alignment off: waits use each rank's own clock.</p>\n",
              out);
    else if (r->untrusted)
        fprintf(out, "<p class=\"warn\" data-field=\"untrusted\" data-spread-ns=\"%" PRId64 "\">Waits not trustworthy: "
                     "the clock offsets spread %s, above the tolerance %s.</p>\n", r->spread, b1, b2);
    else
        fprintf(out, "<p data-field=\"alignment\" data-spread-ns=\"%" PRId64 "\">Clock offsets agree within %s "
                     "(tolerance %s).</p>\n", r->spread, b1, b2);
    if (r->num)
        fprintf(out, "<p class=\"warn\" data-field=\"unmatched\">%zu call(s) were made on some ranks and "
                     "not on others; they are left out of the waits (kinesift ranks names them).</p>\n", r->num);
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].truncated)
            fprintf(out, "<p class=\"warn\" data-field=\"truncated\" data-rank=\"%" PRId64 "\">Rank %" PRId64
                         ": its trace is cut at byte %" PRIu64 "; it is kept out of the straggler.</p>\n",
                    r->v[i].rank, r->v[i].rank, r->v[i].cut_byte);
    step_map(out, r);
    step_series_map(out, r);
    if (r->nm)
        wait_map(out, r);
    else
        fputs("<p class=\"none\" data-field=\"wait\">No collective was matched across the ranks: no wait map.</p>\n",
              out);
    straggler(out, r);
    memory(out, r);
    fputs("</section>\n", out);
}
