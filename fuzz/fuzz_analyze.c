/* fuzz/fuzz_analyze.c: a parsed trace through the whole analysis (timeline, steps, GPU idle
 * gaps, diagnoses) and the text and JSON reports. The first byte chooses the overlap policy; the
 * rest is the trace. Extreme timestamps, overlaps and nesting must give no undefined behaviour
 * (UBSan) and no memory error. */
#include "fuzz/fuzz.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/report.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    return 0;
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
    ks_analysis *a = NULL;
    ks_steps steps = {0};
    ks_gaps gaps = {0};
    ks_diagnoses dx = {0};
    ks_threads th = {0};
    ks_step_opts so;
    ks_step_opts_init(&so);
    ks_gap_opts go;
    ks_gap_opts_init(&go);
    if (ks_analyze(t, &ao, &a, &err) == KS_OK && ks_steps_find(a, &so, &steps, &err) == KS_OK &&
        ks_gaps_find(a, &steps, &go, &gaps, &err) == KS_OK) {
        ks_diagnose(a, &steps, &gaps, &dx);
        ks_threads_find(a, &steps, &th);
        ks_insights_view iv = {&steps, &gaps, &dx, NULL, &th};
        ks_report_opts ro = {15, (ks_sort_key)(sel / 4 % 4)};
        ks_analyze_text(sink, a, &iv, &ro);
    }
    ks_diagnoses_free(&dx);
    ks_threads_free(&th);
    ks_gaps_free(&gaps);
    ks_steps_free(&steps);
    ks_analysis_free(a);
    ks_trace_free(t);
    return 0;
}
