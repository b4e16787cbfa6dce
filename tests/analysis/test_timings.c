/* tests/analysis/test_timings.c: the per-phase wall times (kinesift/timings.h) that --timings
 * prints. The record itself (accumulation by name, order of first use, kinds, a full table, NULL),
 * then a real trace parsed (reader thread, with and without workers) and run through the insights
 * pipeline (one thread and two) with a record: every phase is there, none is negative, the
 * sequential phases of each call add up to at most the wall time measured around that call (they
 * follow one another on the calling thread), a phase "within" another is at most it, and a phase
 * on another thread ("beside") at most the wall time around the parse. No figure is expected: the
 * laws hold whatever the machine's speed. */
#include "analysis_test.h"
#include "kinesift/insights.h"
#include "kinesift/timings.h"

#define SLACK_NS 2000000 /* clock reads and rounding: 2 ms */

static void record(void **state)
{
    (void)state;
    ks_timings t;
    ks_timings_init(&t);
    ks_timings_add(&t, "b", 5, 10, KS_TIMING_SEQ);
    ks_timings_add(&t, "a", 7, 0, KS_TIMING_BESIDE);
    char name[2] = "b"; /* the same name in another buffer: the same row */
    ks_timings_add(&t, name, 3, 1, KS_TIMING_SEQ);
    ks_timings_add(&t, "c", -4, 0, KS_TIMING_WITHIN); /* a clock that went back counts 0 */
    assert_int_equal(t.n, 3);
    assert_string_equal(t.phase[0].name, "b");
    assert_int_equal(t.phase[0].ns, 8);
    assert_int_equal(t.phase[0].bytes, 11);
    assert_int_equal(t.phase[0].runs, 2);
    assert_int_equal(t.phase[1].kind, KS_TIMING_BESIDE);
    assert_int_equal(ks_timings_find(&t, "c")->ns, 0);
    assert_null(ks_timings_find(&t, "d"));
    static char names[KS_TIMINGS_MAX + 5][8];
    for (int i = 0; i < KS_TIMINGS_MAX + 5; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        ks_timings_add(&t, names[i], 1, 0, KS_TIMING_SEQ);
    }
    assert_int_equal(t.n, KS_TIMINGS_MAX);
    assert_int_equal(t.dropped, 3 + 5);
    ks_timings_add(NULL, "x", 1, 1, KS_TIMING_SEQ); /* nothing */
    assert_int_equal(ks_timings_start(NULL), 0);
    assert_int_equal(ks_timings_stop(NULL, "x", 0, 0), 0);
    int64_t a = ks_timings_now(), b = ks_timings_now();
    assert_true(a > 0 && b >= a);
}

static int64_t sum_kind(const ks_timings *t, int kind)
{
    int64_t s = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->phase[i].kind == kind)
            s += t->phase[i].ns;
    return s;
}

static void check_laws(const ks_timings *t, int64_t wall)
{
    assert_int_equal(t->dropped, 0);
    for (size_t i = 0; i < t->n; i++) {
        const ks_timing *p = &t->phase[i];
        assert_true(p->ns >= 0);
        assert_true(p->runs >= 1);
        if (p->kind == KS_TIMING_WITHIN) { /* "parent: what" is part of "parent" */
            const char *colon = strchr(p->name, ':');
            assert_non_null(colon);
            char parent[64];
            snprintf(parent, sizeof parent, "%.*s", (int)(colon - p->name), p->name);
            const ks_timing *q = ks_timings_find(t, parent);
            assert_non_null(q);
            assert_true(p->ns <= q->ns + SLACK_NS);
        }
        if (p->kind == KS_TIMING_BESIDE && !strstr(p->name, "summed"))
            assert_true(p->ns <= wall + SLACK_NS);
    }
    assert_true(sum_kind(t, KS_TIMING_SEQ) <= wall + SLACK_NS);
}

static const char *const parse_phases[] = {"parse", "store finish", "read + decompress (reader thread)",
                                           "pre-filter, newlines (reader thread)", "parse: waiting for the reader"};
static const char *const pipeline_phases[] = {"analysis: GPU work index", "analysis: communication, calls",
                                              "steps", "diagnoses"};

/* reader: ks_parse_opts.reader_thread (1, or 4: the parser fills every other chunk itself) */
static void one_run(const char *path, int parse_threads, int analysis_threads, int reader)
{
    ks_timings pt, at;
    ks_timings_init(&pt);
    ks_timings_init(&at);
    ks_error err;
    ks_source *src;
    ks_stream *st;
    ks_trace *t = NULL;
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &st, &err) != 1)
        fail_msg("%s: %s", path, err.msg);
    ks_parse_opts po;
    ks_parse_opts_init(&po);
    po.reader_thread = reader;
    po.threads = parse_threads;
    po.timings = &pt;
    int64_t t0 = ks_timings_now();
    assert_int_equal(ks_parse_stream(st, &po, &t, &err), KS_OK);
    int64_t parse_wall = ks_timings_now() - t0;
    ks_source_close(src);
    for (size_t i = 0; i < sizeof parse_phases / sizeof *parse_phases; i++)
        if (!ks_timings_find(&pt, parse_phases[i]))
            fail_msg("no phase '%s' in the parse", parse_phases[i]);
    assert_int_equal(ks_timings_find(&pt, "parse")->bytes, t->bytes);
    /* the thread's reads: all but those of the chunks the parser read itself */
    const ks_timing *rd = ks_timings_find(&pt, "read + decompress (reader thread)");
    if (ks_timings_find(&pt, "parse: reading chunks itself"))
        assert_true(rd->bytes < t->bytes);
    else
        assert_int_equal(rd->bytes, t->bytes);
    assert_int_equal(!!ks_timings_find(&pt, "parse ahead (workers, summed)"), parse_threads > 1);
    /* the main parser's waits for chunks the workers had claimed: within the parse, with workers */
    const ks_timing *ww = ks_timings_find(&pt, "parse: waiting for the workers");
    assert_int_equal(!!ww, parse_threads > 1);
    if (ww)
        assert_true(ww->kind == KS_TIMING_WITHIN && ww->ns <= ks_timings_find(&pt, "parse")->ns);
    /* and its own chunks scanned ahead in those waits instead (parser/split.h): within it too */
    const ks_timing *wa = ks_timings_find(&pt, "parse: own chunks read ahead while waiting");
    assert_int_equal(!!wa, parse_threads > 1);
    if (wa)
        assert_true(wa->kind == KS_TIMING_WITHIN && wa->ns + ww->ns <= ks_timings_find(&pt, "parse")->ns);
    /* the chunks the parser read itself, the thread having none ready: within the parse, beside
     * its waits for the reader */
    const ks_timing *self = ks_timings_find(&pt, "parse: reading chunks itself");
    if (reader == 4)
        assert_non_null(self);
    if (self)
        assert_true(self->kind == KS_TIMING_WITHIN &&
                    self->ns + ks_timings_find(&pt, "parse: waiting for the reader")->ns <=
                        ks_timings_find(&pt, "parse")->ns);
    check_laws(&pt, parse_wall);

    ks_insights_opts io;
    ks_insights_opts_init(&io);
    io.analysis.threads = analysis_threads;
    io.analysis.timings = &at;
    io.window = "steps:4-5"; /* nccl_data has ProfilerStep#4 to #6 */
    ks_insights r;
    t0 = ks_timings_now();
    assert_int_equal(ks_insights_run(t, &io, &r, &err), KS_OK);
    int64_t run_wall = ks_timings_now() - t0;
    for (size_t i = 0; i < sizeof pipeline_phases / sizeof *pipeline_phases; i++)
        if (!ks_timings_find(&at, pipeline_phases[i]))
            fail_msg("no phase '%s' in the pipeline", pipeline_phases[i]);
    /* the tables are made once, for the window (ks_analysis_opts.tables_later): its GPU unions with
     * it, the tables after it, beside the gaps and threads passes and the critical path when there
     * are two threads */
    assert_non_null(ks_timings_find(&at, "analysis: window, GPU unions"));
    assert_null(ks_timings_find(&at, "analysis: window, tables"));
    assert_null(ks_timings_find(&at, "analysis: window (tables again)"));
    assert_null(ks_timings_find(&at, "analysis: links | CPU tables"));
    assert_int_equal(!!ks_timings_find(&at, "analysis: tables"), analysis_threads == 1);
    assert_int_equal(!!ks_timings_find(&at, "tables | gaps, threads | critical path"), analysis_threads > 1);
    assert_int_equal(!!ks_timings_find(&at, "gaps"), analysis_threads == 1);
    assert_int_equal(!!ks_timings_find(&at, "critical path"), analysis_threads == 1);
    if (analysis_threads > 1)
        assert_non_null(ks_timings_find(&at, "analysis: timelines | GPU unions"));
    else
        assert_non_null(ks_timings_find(&at, "analysis: timelines"));
    check_laws(&at, run_wall);
    ks_insights_free(&r);
    ks_trace_free(t);
}

static void real_trace(void **state)
{
    (void)state;
    char path[4096];
    const char *corpus = getenv("KS_CORPUS");
    snprintf(path, sizeof path, "%s/hta/nccl_parser_config/nccl_data.json.gz",
             corpus ? corpus : KS_FIXTURES "/real");
    one_run(path, 1, 1, 1);
    one_run(path, 2, 2, 1);
    one_run(path, 1, 1, 4);
}

/* Not asked for: nothing recorded anywhere (the pipeline takes NULL as "not timed"). */
static void not_asked(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("real/hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz"));
    ks_insights r;
    ks_error err;
    assert_int_equal(ks_insights_run(t, NULL, &r, &err), KS_OK);
    ks_insights_free(&r);
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(record),
        cmocka_unit_test(real_trace),
        cmocka_unit_test(not_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
