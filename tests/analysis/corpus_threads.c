/* tests/analysis/corpus_threads.c: the analysis on several threads gives exactly what it gives on
 * one. For each trace named on the command line (corpus files, fixtures) and each overlap policy,
 * the whole analysis (ks_analyze, steps, gaps, diagnoses, and a window set afterwards) runs with
 * threads = 1 (the reference: every pass in order on this thread), 2 and 7, and with the tables
 * made later (ks_analysis_opts.tables_later: made once, by the window or by ks_analysis_tables,
 * as ks_insights_run does) on 1 and 2; then everything is compared: the JSON and text reports
 * byte for byte, every slice of every timeline, every GPU launcher link, and the diagnostics
 * (ids, severities, counts, example texts, in order). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/report.h"

#include "corpus_laws.h"


/* One complete run: the analysis and what the CLI computes after it. */
typedef struct run {
    ks_analysis *a;
    ks_steps steps;
    ks_gaps gaps;
    ks_diagnoses dx;
    char *json, *text;
    size_t njson, ntext;
} run;

static void reports(run *r)
{
    ks_insights_view iv = {&r->steps, &r->gaps, &r->dx, NULL, NULL, NULL};
    ks_report_opts ro = {0, KS_SORT_SELF, 0, 0, 0};
    FILE *f = open_memstream(&r->json, &r->njson);
    ks_analyze_json *w = ks_analyze_json_begin(f);
    ks_analyze_json_trace(w, r->a, &iv, &ro);
    ks_analyze_json_end(w);
    fclose(f);
    f = open_memstream(&r->text, &r->ntext);
    ks_analyze_text(f, r->a, &iv, &ro);
    fclose(f);
}

static void insights(run *r)
{
    ks_error err;
    if (ks_steps_find(r->a, NULL, &r->steps, &err) != KS_OK || ks_gaps_find(r->a, &r->steps, NULL, &r->gaps, &err) != KS_OK) {
        fprintf(stderr, "steps/gaps: %s\n", err.msg);
        exit(2);
    }
    ks_diagnose(r->a, &r->steps, &r->gaps, &r->dx);
}

static void run_free(run *r)
{
    ks_diagnoses_free(&r->dx);
    ks_gaps_free(&r->gaps);
    ks_steps_free(&r->steps);
    ks_analysis_free(r->a);
    free(r->json);
    free(r->text);
    memset(r, 0, sizeof *r);
}

/* window: the middle third of the span, set after the analysis (recomputes the tables); later:
 * the tables are not made by ks_analyze but by the window, else by ks_analysis_tables */
static void analyse(const ks_trace *t, const ks_analysis_opts *base, int threads, int window, int later, run *r)
{
    ks_analysis_opts o = *base;
    ks_error err;
    o.threads = threads;
    o.tables_later = later;
    memset(r, 0, sizeof *r);
    if (ks_analyze(t, &o, &r->a, &err) != KS_OK) {
        fprintf(stderr, "analyze: %s\n", err.msg);
        exit(2);
    }
    if (later)
        CHECK(!r->a->ops && !r->a->nops && !r->a->nkernels && !r->a->nlabels, "tables made before they were asked for");
    ks_ns first, last;
    if (window && ks_trace_span(t, &first, &last) && last - first >= 3) {
        ks_ns third = (last - first) / 3;
        if (ks_analysis_set_window(r->a, first + third, last - third, &err) != KS_OK) {
            fprintf(stderr, "window: %s\n", err.msg);
            exit(2);
        }
    }
    ks_analysis_tables(r->a); /* nothing when they are made */
    insights(r);
    reports(r);
}

static int same_slice(const ks_timeline *p, const ks_slice *x, const ks_timeline *q, const ks_slice *y)
{
    return ks_slice_ts(p, x) == ks_slice_ts(q, y) && ks_slice_end(p, x) == ks_slice_end(q, y) && x->ev == y->ev && x->parent == y->parent &&
           x->depth == y->depth && ks_slice_lane(p, x) == ks_slice_lane(q, y) && x->flags == y->flags;
}

static void compare_timelines(const char *what, const ks_analysis *x, const ks_analysis *y)
{
    CHECK(x->ntl == y->ntl, "%s: %zu vs %zu timelines", what, x->ntl, y->ntl);
    for (size_t k = 0; k < x->ntl && k < y->ntl; k++) {
        const ks_timeline *p = &x->tl[k], *q = &y->tl[k];
        const ks_timeline_overlaps *po = ks_timeline_overlaps_of(p), *qo = ks_timeline_overlaps_of(q);
        CHECK(p->track == q->track && p->n == q->n && p->nlanes == q->nlanes && !p->ov == !q->ov &&
                  po->spilled == qo->spilled && po->dropped == qo->dropped && po->truncated == qo->truncated &&
                  po->reassigned_ns == qo->reassigned_ns && po->clipped_ns == qo->clipped_ns &&
                  po->dropped_ns == qo->dropped_ns,
              "%s: timeline %zu differs (%zu vs %zu slices)", what, k, p->n, q->n);
        size_t bad = 0;
        for (size_t i = 0; i < p->n && i < q->n; i++)
            bad += !same_slice(p, &p->s[i], q, &q->s[i]);
        CHECK(!bad, "%s: timeline %zu: %zu slices differ", what, k, bad);
        const ks_track *tr = &x->trace->tracks[k];
        for (size_t i = 0; tr->kind == KS_TRACK_GPU && i < tr->n; i++) {
            ks_slice_ref r = ks_analysis_launcher(x, (uint32_t)k, i), s = ks_analysis_launcher(y, (uint32_t)k, i);
            if (r.s != s.s || (r.s >= 0 && r.tl != s.tl)) {
                CHECK(0, "%s: track %zu event %zu: launcher %u/%d vs %u/%d", what, k, i, r.tl, r.s, s.tl, s.s);
                break;
            }
        }
    }
}

static void compare_diag(const char *what, const ks_diag *x, const ks_diag *y)
{
    CHECK(x->n == y->n, "%s: %zu vs %zu diagnostic kinds", what, x->n, y->n);
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        const ks_diag_kind *p = &x->kinds[i], *q = &y->kinds[i];
        CHECK(!strcmp(p->id, q->id) && p->severity == q->severity && p->count == q->count &&
                  p->nexamples == q->nexamples,
              "%s: diagnostic %zu: %s x%" PRIu64 " vs %s x%" PRIu64, what, i, p->id, p->count, q->id, q->count);
        for (size_t j = 0; j < p->nexamples && j < q->nexamples; j++)
            CHECK(!strcmp(p->ex[j].text, q->ex[j].text), "%s: %s example %zu: \"%s\" vs \"%s\"", what, p->id, j,
                  p->ex[j].text, q->ex[j].text);
    }
}

static void compare_text(const char *what, const char *kind, const char *x, size_t nx, const char *y, size_t ny)
{
    size_t i = 0;
    while (i < nx && i < ny && x[i] == y[i])
        i++;
    CHECK(nx == ny && i == nx, "%s: %s reports differ at byte %zu (%zu vs %zu bytes)", what, kind, i, nx, ny);
}

static void compare(const char *what, const run *x, const run *y)
{
    compare_timelines(what, x->a, y->a);
    compare_diag(what, &x->a->diag, &y->a->diag);
    compare_text(what, "JSON", x->json, x->njson, y->json, y->njson);
    compare_text(what, "text", x->text, x->ntext, y->text, y->ntext);
}

static void check_trace(const char *path)
{
    ks_error err;
    ks_source *src;
    ks_stream *st;
    ks_trace *t = NULL;
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &st, &err) != 1 ||
        ks_parse_stream(st, NULL, &t, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    ks_source_close(src);
    static const char *const policies[] = {"spill", "drop", "truncate", "clamp:2000"};
    static const int threads[] = {2, 7};
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
        for (int window = 0; window < 2; window++) {
            ks_analysis_opts o;
            ks_analysis_opts_init(&o);
            if (ks_overlap_parse(policies[p], &o.overlap, &o.clamp_ns) != 0)
                exit(2);
            run ref, par;
            analyse(t, &o, 1, window, 0, &ref);
            for (size_t j = 0; j < sizeof threads / sizeof *threads; j++) {
                char what[600];
                snprintf(what, sizeof what, "%s (%s%s, %d threads)", path, policies[p], window ? ", window" : "",
                         threads[j]);
                analyse(t, &o, threads[j], window, 0, &par);
                compare(what, &ref, &par);
                run_free(&par);
            }
            for (int j = 1; j <= 2; j++) {
                char what[600];
                snprintf(what, sizeof what, "%s (%s%s, %d threads, tables later)", path, policies[p],
                         window ? ", window" : "", j);
                analyse(t, &o, j, window, 1, &par);
                compare(what, &ref, &par);
                run_free(&par);
            }
            run_free(&ref);
        }
    printf("ok: %s: %" PRIu64 " events, %zu tracks: 1, 2 and 7 threads and the tables made later agree\n", path,
           t->events, t->ntracks);
    ks_trace_free(t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: corpus_threads TRACE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        check_trace(argv[i]);
    return failures ? 1 : 0;
}
