/* report/html_page.c: `kinesift report`: one self-contained HTML page of analyze's figures.
 *
 * What: a summary line per trace (window, steps, GPU busy share, the first diagnosis), then per
 * trace the step bars, the critical path of each step, the GPU strip (html_charts.c), the
 * diagnoses with evidence, next check and validate command, the top ops, labels and kernels
 * (self, inclusive, GPU time, with bars in the cells, sortable), and the nvidia-smi lines when telemetry was given.
 * Why correct: every figure is a field of the analysis results, the same ones analyze's JSON
 * writes, printed with ks_fmt_ns (the text report's units) and its exact integer in data-ns next
 * to it (tests/report compares them with the JSON). The page loads nothing: styles and the small
 * script are inline, a Content-Security-Policy meta tag forbids every fetch, and it reads with
 * JavaScript off (the script only sorts tables and shows tooltips sooner than <title> does).
 * Size: tables are cut to --top rows and the charts are bounded by steps and pixel columns, so
 * the page does not grow with the number of events.
 * With several ranks of one job, the multi-rank section (html_ranks.c) follows the summaries.
 * Who: cli/cmd_report.c. Sections of each trace are kept in memory until the end, so that the
 * summaries of all traces come first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "report/html.h"
#include "report/report_util.h"

struct ks_html {
    FILE *out;
    char *summary, *body;       /* open_memstream buffers */
    size_t nsummary, nbody;
    FILE *fs, *fb;
    char *ranks;                /* the multi-rank section, or NULL */
    size_t nranks;
    int ntraces;
};

static const char css[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1000px;color:#1a1a1a;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}"
    "h3{font-size:1.05em;margin-top:1.5em}code{background:#f2f2f2;padding:0 .2em;word-break:break-all}"
    "table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:2px 6px;text-align:right;"
    "border-bottom:1px solid #eee;vertical-align:top}th{background:#f6f6f6;cursor:pointer;position:sticky;top:0}"
    "td.name,th.name{text-align:left;word-break:break-all}td.num{white-space:nowrap;position:relative}"
    "td.num .bar{position:absolute;left:0;top:3px;bottom:3px;background:#56B4E9;opacity:.35;z-index:-1}"
    "td.num{z-index:0}svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}.ax{fill:#333}"
    ".grid{stroke:#ddd}.legend{list-style:none;padding:0;margin:.3em 0;display:flex;flex-wrap:wrap;gap:.3em 1em}"
    ".sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:-.1em;border:1px solid #666}"
    ".sw.warm{background:repeating-linear-gradient(45deg,#999 0 2px,#fff 2px 4px)}"
    "figcaption{font-size:12px;color:#444}.summary li{margin:.3em 0}.diag{border-left:4px solid #E69F00;"
    "padding:.2em .8em;margin:.8em 0;background:#fffaf0}.diag dt{font-weight:600}.diag dd{margin:0 0 .3em 1em}"
    ".none{color:#555;font-style:italic}.warn{border-left:4px solid #D55E00;padding:.2em .8em;background:#fff3ee}"
    ".sw.na{background:repeating-linear-gradient(45deg,#999 0 1px,#fff 1px 4px)}#tip{position:fixed;pointer-events:none;background:#222;color:#fff;"
    "padding:3px 6px;border-radius:3px;font-size:12px;max-width:420px;display:none;z-index:9}";

/* sort a table by a column (data-ns or text), and tooltips from <title>; all optional */
static const char js[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){th.tabIndex=0;"
    "function go(){var tb=th.closest('table').tBodies[0],rows=Array.from(tb.rows),d=th.dataset.dir==='a'?'d':'a';"
    "th.dataset.dir=d;rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i],p=x.dataset.v,q=y.dataset.v,r;"
    "if(p!==undefined&&q!==undefined)r=Number(p)-Number(q);else r=x.textContent.localeCompare(y.textContent);"
    "return d==='a'?r:-r;});rows.forEach(function(r){tb.appendChild(r);});}"
    "th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter')go();});});"
    "var tip=document.getElementById('tip');document.querySelectorAll('svg rect').forEach(function(r){"
    "var t=r.querySelector('title');if(!t)return;r.addEventListener('mousemove',function(e){tip.textContent="
    "t.textContent;tip.style.display='block';tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});"
    "r.addEventListener('mouseleave',function(){tip.style.display='none';});});";

ks_html *ks_html_begin(FILE *out)
{
    ks_html *h = ks_xcalloc(1, sizeof *h);
    h->out = out;
    h->fs = open_memstream(&h->summary, &h->nsummary);
    h->fb = open_memstream(&h->body, &h->nbody);
    if (!h->fs || !h->fb) {
        if (h->fs)
            fclose(h->fs);
        if (h->fb)
            fclose(h->fb);
        free(h->summary);
        free(h->body);
        free(h);
        return NULL;
    }
    return h;
}

static void summary(FILE *f, const ks_analysis *a, const ks_insights_view *iv, int id)
{
    fprintf(f, "<li data-trace=\"%d\"><a href=\"#t%d\">", id, id);
    ks_html_text(f, a->trace->source);
    fputs("</a>: window <span data-field=\"window\">", f);
    ks_html_text(f, ks_report_window_why(a));
    fputs("</span>, ", f);
    if (a->has_events || a->has_window)
        ks_html_ns_span(f, "span_ns", a->window_ns);
    else
        fputs("<span data-field=\"span_ns\">no timed events</span>", f);
    const ks_steps *st = iv ? iv->steps : NULL;
    if (st && st->n) {
        fprintf(f, "; <span data-field=\"steps\" data-n=\"%zu\">%zu steps</span> (%zu warm-up", st->n, st->n,
                st->nwarmup);
        if (st->nactive) {
            fputs(", active median ", f);
            ks_html_ns_span(f, "active_median_ns", st->active_median);
        }
        fputs(")", f);
    } else {
        fputs("; no steps", f);
    }
    if (a->gpu) {
        char s1[16];
        for (size_t i = 0; i < a->ngpu; i++)
            fprintf(f, "; GPU %d busy <span data-field=\"busy_share\" data-device=\"%d\" data-busy-ns=\"%lld\" "
                       "data-span-ns=\"%lld\">%s</span>",
                    a->gpu[i].device, a->gpu[i].device, (long long)a->gpu[i].busy_ns, (long long)a->gpu[i].span_ns,
                    ks_text_pct(s1, sizeof s1, a->gpu[i].busy_ns, a->gpu[i].span_ns));
    } else {
        fputs("; GPU ", f);
        ks_html_text(f, a->gpu_reason ? a->gpu_reason : "not observed");
    }
    const ks_diagnoses *d = iv ? iv->diagnoses : NULL;
    if (d && d->n) {
        fprintf(f, "; first diagnosis: <strong data-field=\"top_diagnosis\">%s</strong> (%s): ", d->v[0].id,
                d->v[0].confidence);
        ks_html_text(f, d->v[0].hypothesis);
    } else {
        fputs("; no diagnosis", f);
    }
    fputs("</li>\n", f);
}

static void diagnoses(FILE *f, const ks_analysis *a, const ks_diagnoses *d)
{
    if (!d || !d->n) {
        fputs("<p class=\"none\">No diagnosis.</p>\n", f);
        return;
    }
    fputs("<p>Hypotheses to check, not conclusions.</p>\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        fprintf(f, "<div class=\"diag\" data-diagnosis=\"%s\"><h4>%s, confidence %s</h4><dl>", x->id, x->id,
                x->confidence);
        static const char *const keys[] = {"hypothesis", "evidence", "next check", "refuted if"};
        const char *vals[] = {x->hypothesis, x->evidence, x->next_check, x->refuted_if};
        for (int k = 0; k < 4; k++) {
            fprintf(f, "<dt>%s</dt><dd>", keys[k]);
            ks_html_text(f, vals[k]);
            fputs("</dd>", f);
        }
        if (x->nsteps) {
            fputs("<dt>steps</dt><dd>", f);
            for (size_t j = 0; j < x->nsteps; j++)
                fprintf(f, "%s%lld", j ? " " : "", (long long)x->steps[j]);
            fputs("</dd>", f);
        }
        char *by_hand = x->validate_cmd ? ks_report_measure_by_hand(ks_analysis_platform(a), x->validate_cmd) : NULL;
        if (by_hand) {
            fputs("<dt>measure</dt><dd>", f);
            ks_html_text(f, by_hand);
            fputs("</dd>", f);
        } else if (x->validate_cmd) {
            fputs("<dt>measure</dt><dd><code>", f);
            ks_html_text(f, x->validate_cmd);
            fputs("</code></dd>", f);
        }
        free(by_hand);
        fputs("</dl></div>\n", f);
    }
}

/* other accelerators' device activity (kinesift/analysis.h ks_device_activity): one line each */
static void device_activity(FILE *f, const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        const ks_device_activity *d = &a->device_activity[i];
        fprintf(f, "<p class=\"device\" data-device=\"%d\">Device %d", d->device, d->device);
        if (d->label) {
            fputs(" (", f);
            ks_html_text(f, ks_trace_str(t, d->label));
            fputc(')', f);
        }
        fputs(": busy ", f);
        ks_html_ns_span(f, "busy_ns", d->busy_ns);
        fputs(" of ", f);
        ks_html_ns_span(f, "span_ns", d->span_ns);
        fputs(" span, idle ", f);
        ks_html_ns_span(f, "idle_ns", d->idle_ns);
        fprintf(f, "; %llu events. ", (unsigned long long)d->events);
        ks_html_text(f, KS_DEVICE_ACTIVITY_MEANING);
        fputs(".</p>\n", f);
    }
}

/* a time cell: the bar is the value's share of the column's largest shown value */
static void ns_cell(FILE *f, const char *field, ks_ns v, ks_ns max, int observed)
{
    if (!observed) {
        fprintf(f, "<td class=\"num\" data-field=\"%s\">n/a</td>", field);
        return;
    }
    fprintf(f, "<td class=\"num\" data-field=\"%s\" data-v=\"%lld\" data-ns=\"%lld\"><span class=\"bar\" "
               "style=\"width:%.1f%%\"></span>",
            field, (long long)v, (long long)v, max > 0 ? 100.0 * (double)v / (double)max : 0.0);
    ks_html_ns(f, v);
    fputs("</td>", f);
}

static void count_cell(FILE *f, uint64_t n)
{
    fprintf(f, "<td class=\"num\" data-field=\"count\" data-v=\"%llu\">%llu</td>", (unsigned long long)n,
            (unsigned long long)n);
}

static void name_cell(FILE *f, const char *name, const char *kind)
{
    fputs("<td class=\"name\">", f);
    ks_html_text_cut(f, name, 300);
    fputs(" <small>[", f);
    ks_html_text(f, kind);
    fputs("]</small></td>", f);
}

static void op_table(FILE *f, const ks_analysis *a, const char *table, const char *title, const ks_op_row *rows,
                     size_t n, const ks_report_opts *o)
{
    if (!n) {
        fprintf(f, "<h3>%s</h3><p class=\"none\">none in the window</p>\n", title);
        return;
    }
    const ks_trace *t = a->trace;
    int gpu = a->links.gpu_events > 0;
    const ks_op_row **v = ks_rows_order(rows, n, o->sort);
    size_t lim = o->top && o->top < n ? o->top : n;
    ks_ns mx[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < lim; i++) {
        ks_ns c[4] = {v[i]->self_ns, v[i]->incl_ns, ks_op_row_gpu(v[i]).direct_ns, ks_op_row_gpu(v[i]).subtree_ns};
        for (int k = 0; k < 4; k++)
            if (c[k] > mx[k])
                mx[k] = c[k];
    }
    fprintf(f, "<h3>%s: top %zu of %zu</h3>\n<table class=\"sortable\" data-table=\"%s\"><thead><tr>"
               "<th class=\"name\" scope=\"col\">name [category]</th><th scope=\"col\">self</th><th scope=\"col\">"
               "inclusive</th><th scope=\"col\">count</th><th scope=\"col\">median</th><th scope=\"col\">GPU direct"
               "</th><th scope=\"col\">GPU subtree</th></tr></thead><tbody>\n",
            title, lim, n, table);
    for (size_t i = 0; i < lim; i++) {
        const ks_op_row *r = v[i];
        fputs("<tr data-name=\"", f);
        ks_html_text(f, ks_trace_str(t, r->name));
        fputs("\" data-cat=\"", f);
        ks_html_text(f, ks_trace_cat_name(t, r->cat));
        fputs("\">", f);
        name_cell(f, ks_trace_str(t, r->name), ks_trace_cat_name(t, r->cat));
        ns_cell(f, "self_ns", r->self_ns, mx[0], 1);
        ns_cell(f, "incl_ns", r->incl_ns, mx[1], 1);
        count_cell(f, r->count);
        ns_cell(f, "median_ns", ks_op_row_durs(r).median_ns, 0, 1);
        ns_cell(f, "gpu_direct_ns", ks_op_row_gpu(r).direct_ns, mx[2], gpu);
        ns_cell(f, "gpu_subtree_ns", ks_op_row_gpu(r).subtree_ns, mx[3], gpu);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    free((void *)v);
}

static void kernel_table(FILE *f, const ks_analysis *a, const ks_report_opts *o)
{
    if (!a->nkernels) {
        fputs("<h3>GPU work</h3><p class=\"none\">none in the window</p>\n", f);
        return;
    }
    const ks_trace *t = a->trace;
    size_t lim = o->top && o->top < a->nkernels ? o->top : a->nkernels;
    ks_ns mx = a->kernels[0].total_ns;
    for (size_t i = 0; i < lim; i++)
        if (a->kernels[i].total_ns > mx)
            mx = a->kernels[i].total_ns;
    fprintf(f, "<h3>GPU work: top %zu of %zu by total time</h3>\n<table class=\"sortable\" data-table=\"kernels\">"
               "<thead><tr><th class=\"name\" scope=\"col\">name [kind]</th><th scope=\"col\">total</th>"
               "<th scope=\"col\">share of the GPU span</th><th scope=\"col\">count</th><th scope=\"col\">median</th>"
               "<th scope=\"col\">max</th></tr></thead><tbody>\n",
            lim, a->nkernels);
    ks_ns span = 0; /* the denominator of the share, as in JSON: the devices' GPU spans added */
    for (size_t i = 0; a->gpu && i < a->ngpu; i++)
        span = ks_sat_add(span, a->gpu[i].span_ns);
    for (size_t i = 0; i < lim; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        fputs("<tr data-name=\"", f);
        ks_html_text(f, ks_trace_str(t, k->name));
        fprintf(f, "\" data-kind=\"%s\">", ks_kind_name((ks_kind)k->kind));
        name_cell(f, ks_trace_str(t, k->name), ks_kind_name((ks_kind)k->kind));
        ns_cell(f, "total_ns", k->total_ns, mx, 1);
        char s1[16];
        fprintf(f, "<td class=\"num\" data-v=\"%lld\">%s</td>", (long long)k->total_ns,
                ks_text_pct(s1, sizeof s1, k->total_ns, span));
        count_cell(f, k->count);
        ns_cell(f, "median_ns", k->median_ns, 0, 1);
        ns_cell(f, "max_ns", k->max_ns, 0, 1);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void smi_row(FILE *f, const char *what, const ks_smi_stats *s, const char *unit)
{
    fputs("<tr><th scope=\"row\" class=\"name\">", f);
    ks_html_text(f, what);
    fprintf(f, "</th><td>%zu</td>", s->n);
    if (s->n && s->util_known)
        fprintf(f, "<td>%.0f</td><td>%.1f</td><td>%.0f %s</td>", s->util_min, s->util_mean, s->util_max, unit);
    else
        fputs("<td colspan=\"3\">unknown</td>", f);
    if (s->n && s->mem_known)
        fprintf(f, "<td>%.0f..%.0f MiB</td></tr>\n", s->mem_used_min, s->mem_used_max);
    else
        fputs("<td>unknown</td></tr>\n", f);
}

static void telemetry(FILE *f, const ks_insights_view *iv)
{
    const ks_telemetry *tm = iv->telemetry;
    if (!tm)
        return;
    fprintf(f, "<h3>nvidia-smi telemetry</h3>\n<p>%zu samples of %zu GPU%s, %llu unknown values (N/A). "
               "utilization.gpu is the share of sample time with a kernel running, not efficiency.</p>\n",
            tm->n, tm->nuuids, tm->nuuids == 1 ? "" : "s", (unsigned long long)tm->unknown_values);
    if (tm->reason) {
        fputs("<p class=\"none\">", f);
        ks_html_text(f, tm->reason);
        fputs("</p>\n", f);
        return;
    }
    fputs("<table data-table=\"telemetry\"><thead><tr><th class=\"name\" scope=\"col\">when</th><th scope=\"col\">"
          "samples</th><th scope=\"col\">util min</th><th scope=\"col\">mean</th><th scope=\"col\">max</th>"
          "<th scope=\"col\">memory used</th></tr></thead><tbody>\n",
          f);
    smi_row(f, "window", &tm->window, tm->units_util);
    for (size_t i = 0; iv->steps && i < tm->nsteps && i < iv->steps->n; i++) {
        char what[32];
        snprintf(what, sizeof what, "step %lld", (long long)iv->steps->v[i].number);
        smi_row(f, what, &tm->per_step[i], tm->units_util);
    }
    fputs("</tbody></table>\n", f);
}

void ks_html_trace(ks_html *h, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    int id = ++h->ntraces;
    FILE *f = h->fb;
    summary(h->fs, a, iv, id);
    fprintf(f, "<section class=\"trace\" id=\"t%d\" data-trace=\"%d\">\n<h2>", id, id);
    ks_html_text(f, a->trace->source);
    fputs("</h2>\n<p>Window ", f);
    if (a->has_events || a->has_window) {
        ks_html_ns_span(f, "span_ns", a->window_ns);
        fprintf(f, " (%s, [%lld, %lld) ns).", a->has_window ? "restricted" : "whole trace", (long long)a->win_start,
                (long long)(a->win_start + a->window_ns));
    } else {
        fputs("without timed events.", f);
    }
    fputs("</p>\n<h3>Step breakdown</h3>\n", f);
    ks_html_step_bars(f, a, iv ? iv->steps : NULL, id);
    fputs("<h3>Critical path</h3>\n", f);
    ks_html_critpath(f, iv ? iv->critpath : NULL, id);
    fputs("<h3>GPU activity</h3>\n", f);
    ks_html_gpu_strip(f, a, iv ? iv->gaps : NULL, id);
    fputs("<h3>Roofline</h3>\n", f);
    ks_html_roofline(f, a, id);
    fputs("<h3>Memory</h3>\n", f);
    ks_html_memory(f, a, iv ? iv->steps : NULL, id);
    device_activity(f, a);
    fputs("<h3>Diagnoses</h3>\n", f);
    diagnoses(f, a, iv ? iv->diagnoses : NULL);
    op_table(f, a, "ops", "Operators", a->ops, a->nops, o);
    op_table(f, a, "labels", "Labels (record_function)", a->labels, a->nlabels, o);
    kernel_table(f, a, o);
    if (iv)
        telemetry(f, iv);
    fputs("</section>\n", f);
}

void ks_html_ranks(ks_html *h, const struct ks_ranks *r)
{
    FILE *f = open_memstream(&h->ranks, &h->nranks);
    if (!f)
        return;
    ks_html_ranks_section(f, r);
    fclose(f);
}

int ks_html_end(ks_html *h, const char *title)
{
    int bad = fclose(h->fs) != 0;
    bad |= fclose(h->fb) != 0;
    FILE *out = h->out;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    ks_html_text(out, title);
    fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<h1>", css);
    ks_html_text(out, title);
    fprintf(out, "</h1>\n<p>kinesift %s: the figures of <code>kinesift analyze</code>, drawn. Times in the units "
                 "of the text report; hover a shape for its figures.</p>\n<ul class=\"summary\">\n",
            ks_version());
    if (h->summary)
        fwrite(h->summary, 1, h->nsummary, out);
    fputs("</ul>\n", out);
    if (h->ranks)
        fwrite(h->ranks, 1, h->nranks, out);
    if (h->body)
        fwrite(h->body, 1, h->nbody, out);
    fprintf(out, "<div id=\"tip\" role=\"tooltip\"></div>\n<script>%s</script>\n</body></html>\n", js);
    free(h->summary);
    free(h->body);
    free(h->ranks);
    free(h);
    return bad || ferror(out) ? -1 : 0;
}
