/* fuzz/fuzz_analyze.c: a parsed trace through the whole analysis (timeline, steps, GPU idle
 * gaps, threads, diagnoses) and the text and JSON reports, the JSON also as the Python binding's
 * column tables (report/tables.c, built from the writer's values beside its text). The first byte chooses the overlap
 * policy (bits 0-1), the sort key (bits 2-3) and the path (bits 4-5): the passes called one by one
 * on the whole trace, or ks_insights_run as the command runs them (the tables made once, for the
 * default window, for `--window trace`, or for a window of the middle of the span); bit 6 runs
 * the chosen path twice, on one thread and on three (the passes side by side: timelines, tables,
 * diagnoses), and requires the same reports byte for byte; bit 7 keeps every gap's pieces
 * (ks_gap_opts.all_pieces) on the passes path; the rest is the trace. Extreme
 * timestamps, overlaps and nesting must give no undefined behaviour (UBSan) and no memory
 * error. */
#include "fuzz/fuzz.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/report.h"
#include "report/tables_build.h"

static FILE *sink, *out; /* out: where the reports go (sink, or a memory stream) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    return 0;
}

static void reports(const ks_analysis *a, const ks_insights_view *iv, uint32_t sel)
{
    ks_report_opts ro = {15, (ks_sort_key)(sel / 4 % 4), 0, 0, (size_t)(sel % 3) * 40};
    ks_analyze_text(out, a, iv, &ro);
    /* the JSON through the tables' sink: its text must come out as the writer alone writes it */
    ks_tables *tb = ks_xcalloc(1, sizeof *tb);
    ks_tables_doc d;
    ks_analyze_json *w = ks_analyze_json_begin(ks_tables_doc_begin(&d, tb, 1));
    ks_analyze_json_trace(w, a, iv, &ro);
    ks_analyze_json_end(w);
    ks_tables_doc_end(&d, tb);
    size_t len;
    const char *json = ks_tables_json(tb, &len);
    fwrite(json, 1, len, out);
    for (size_t i = 0; i < ks_tables_count(tb); i++) /* every column as long as its table */
        for (size_t c = 0; c < ks_tables_columns(tb, i); c++) {
            const int64_t *off = ks_tables_column_offsets(tb, i, c);
            size_t n = ks_tables_rows(tb, i);
            if (!ks_tables_column_valid(tb, i, c) || (off && (off[0] != 0 || off[n] < off[0])))
                __builtin_trap();
        }
    ks_tables_free(tb);
}

/* the passes one by one, on the whole trace (the tables made by ks_analyze) */
static void passes(const ks_trace *t, const ks_analysis_opts *ao, uint32_t sel)
{
    ks_error err;
    ks_analysis *a = NULL;
    ks_steps steps = {0};
    ks_gaps gaps = {0};
    ks_diagnoses dx = {0};
    ks_threads th = {0};
    ks_step_opts so;
    ks_step_opts_init(&so);
    ks_gap_opts go;
    ks_gap_opts_init(&go);
    go.all_pieces = (sel >> 7) & 1;
    if (ks_analyze(t, ao, &a, &err) == KS_OK && ks_steps_find(a, &so, &steps, &err) == KS_OK &&
        ks_gaps_find(a, &steps, &go, &gaps, &err) == KS_OK) {
        ks_diagnose(a, &steps, &gaps, &dx);
        ks_threads_find(a, &steps, &th);
        ks_insights_view iv = {&steps, &gaps, &dx, NULL, &th, NULL};
        reports(a, &iv, sel);
    }
    ks_diagnoses_free(&dx);
    ks_threads_free(&th);
    ks_gaps_free(&gaps);
    ks_steps_free(&steps);
    ks_analysis_free(a);
}

/* as the command runs them: mode 1 the default window, 2 the whole trace, 3 the middle of the span */
static void insights(const ks_trace *t, const ks_analysis_opts *ao, uint32_t sel, int mode)
{
    ks_insights_opts io;
    ks_insights_opts_init(&io);
    io.analysis = *ao;
    char spec[96];
    ks_ns first, last;
    if (mode == 2) {
        io.window = "trace";
    } else if (mode == 3 && ks_trace_span(t, &first, &last) && (__int128)last - first >= 4 &&
               (__int128)last - first <= INT64_MAX) {
        ks_ns q = (last - first) / 4; /* a window in ns from the trace's first timestamp */
        snprintf(spec, sizeof spec, "%lldns:%lldns", (long long)q, (long long)(3 * q));
        io.window = spec;
    }
    ks_insights r;
    ks_error err;
    if (ks_insights_run(t, &io, &r, &err) == KS_OK) {
        ks_insights_view iv = {&r.steps, &r.gaps, &r.diagnoses, NULL, &r.threads, r.critpath};
        reports(r.a, &iv, sel);
    }
    ks_insights_free(&r);
}

static void run(const ks_trace *t, const ks_analysis_opts *ao, uint32_t sel, int mode)
{
    if (mode == 0)
        passes(t, ao, sel);
    else
        insights(t, ao, sel, mode);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink)
        LLVMFuzzerInitialize(NULL, NULL);
    fuzz_in in = {data, size};
    uint32_t sel = fuzz_take(&in, 1);
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    po.chunk_size = FUZZ_CHUNK; /* small buffers: the result does not depend on it (fuzz_parse) */
    ks_trace *t = NULL;
    ks_error err;
    if (ks_parse_buffer("fuzz", in.p, in.n, &po, &t, &err) != KS_OK)
        return 0;
    ks_analysis_opts ao;
    ks_analysis_opts_init(&ao);
    static const char *const policies[] = {"spill", "drop", "truncate", "clamp:1000"};
    ks_ns clamp = 0;
    (void)ks_overlap_parse(policies[sel % 4], &ao.overlap, &clamp);
    int mode = (int)(sel / 16 % 4);
    if (!(sel & 64)) {
        out = sink;
        run(t, &ao, sel, mode);
    } else {
        /* the reports on one thread and on three: the same bytes */
        char *text[2] = {NULL, NULL};
        size_t len[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            ao.threads = k ? 3 : 1;
            out = open_memstream(&text[k], &len[k]);
            if (!out)
                abort();
            run(t, &ao, sel, mode);
            fclose(out);
        }
        if (len[0] != len[1] || memcmp(text[0], text[1], len[0]))
            __builtin_trap();
        free(text[0]);
        free(text[1]);
    }
    ks_trace_free(t);
    return 0;
}
