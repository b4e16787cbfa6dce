/* tests/insights/test_diagnose.c: the diagnoses' impact, ranking and floor, and the classes added
 * for the diagnoses (host-bound, set-up calls in the capture, graph capture, profiler overhead,
 * allocator growth, the minimum GPU work, launch calls apart from other runtime calls), on the
 * hand-written traces of fixtures/insights/ (gen.py), and the shares the evidence states. Every
 * expected figure is worked out by hand from the fixture's numbers (us) in the comment beside it. */
#include "tests/analysis/analysis_test.h"
#include "insights/diagnose_int.h"
#include "kinesift/insights.h"

typedef struct bundle {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
    ks_gaps g;
    ks_diagnoses d;
} bundle;

static void load_with(bundle *b, const char *fixture, const ks_diagnose_opts *o)
{
    ks_error err;
    memset(b, 0, sizeof *b);
    b->t = ks_test_load(ks_fixture(fixture));
    b->a = analyse(b->t, NULL);
    assert_int_equal(ks_steps_find(b->a, NULL, &b->st, &err), KS_OK);
    assert_int_equal(ks_gaps_find(b->a, &b->st, NULL, &b->g, &err), KS_OK);
    if (o)
        ks_diagnose_with(b->a, &b->st, &b->g, o, &b->d);
    else
        ks_diagnose(b->a, &b->st, &b->g, &b->d);
}

static void load(bundle *b, const char *fixture)
{
    load_with(b, fixture, NULL);
}

static void unload(bundle *b)
{
    ks_diagnoses_free(&b->d);
    ks_gaps_free(&b->g);
    ks_steps_free(&b->st);
    ks_analysis_free(b->a);
    ks_trace_free(b->t);
}

/* the ids in rank order, space-separated */
static void ids(const ks_diagnoses *d, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; i < d->n; i++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? " " : "", d->v[i].id);
}

static const ks_diagnosis *dx(const bundle *b, const char *id)
{
    for (size_t i = 0; i < b->d.n; i++)
        if (!strcmp(b->d.v[i].id, id))
            return &b->d.v[i];
    return NULL;
}

/* host_bound.json: 4 steps of 100 us; the op python_overhead [s, s+60), a launch at s+61, the
 * kernel [s+65, s+95). Denominator: the 4 active steps, 400 us. GPU span [65, 395) = 330 us, busy
 * 4 x 30 = 120, idle 210 (three gaps of 70 us), each ended by work launched at s+161, after the
 * GPU went idle at s+95: host wait 210 us = 100 % of the idle, 63.6 % of the span; impact 210 us =
 * 52.5 % of the active steps. The op's self time, 4 x 60 = 240 us (60 %), ranks first; the
 * kernel, 120 us, last. */
static void host_bound_is_found_and_ranked(void **state)
{
    (void)state;
    bundle b;
    char order[256];
    load(&b, "insights/host_bound.json");
    assert_string_equal(b.d.denominator, "active steps");
    assert_int_equal(b.d.denominator_ns, 400000);
    ids(&b.d, order, sizeof order);
    assert_string_equal(order, "dominant_op host_bound dominant_kernel");
    const ks_diagnosis *x = dx(&b, "host_bound");
    assert_int_equal(x->impact_ns, 210000);
    assert_string_equal(x->confidence, "high"); /* >= 10 % of the denominator */
    assert_non_null(strstr(x->evidence, "52.5% of the active steps (400.000 us)"));
    assert_non_null(strstr(x->evidence, "python_overhead"));
    assert_int_equal(x->nsteps, 4); /* each step idles 70 of its 100 us */
    assert_int_equal(dx(&b, "dominant_op")->impact_ns, 240000);
    assert_int_equal(dx(&b, "dominant_kernel")->impact_ns, 120000);
    assert_null(strstr(dx(&b, "dominant_op")->hypothesis, "allocator"));
    unload(&b);
}

/* init_capture.json: no steps; 3000 us of cudaDeviceGetStreamPriorityRange and 1000 us of
 * cudaMalloc, then one 500 us kernel [4005, 4505). Window 4505 us, set-up 4000 us (88.8 % >= 25 %):
 * init_in_capture, a caveat (no impact), none of it inside the GPU span, the denominator. */
static void init_in_capture_is_a_caveat(void **state)
{
    (void)state;
    bundle b;
    char order[256];
    load(&b, "insights/init_capture.json");
    assert_string_equal(b.d.denominator, "GPU span");
    assert_int_equal(b.d.denominator_ns, 500000);
    ids(&b.d, order, sizeof order);
    assert_string_equal(order, "dominant_kernel init_in_capture busy_is_not_efficiency");
    const ks_diagnosis *x = dx(&b, "init_in_capture");
    assert_int_equal(x->impact_ns, -1);
    assert_string_equal(x->confidence, "n/a");
    assert_non_null(strstr(x->hypothesis, "89% of the window"));
    assert_non_null(strstr(x->evidence, "2 set-up calls"));
    assert_non_null(strstr(x->evidence, "take 4.000 ms of the 4.505 ms window; 0 ns of it inside the GPU span"));
    unload(&b);
}

/* graph_capture.json: 20 launches inside a stream capture run nothing (of 21 calls with a
 * correlation id, 20 have no GPU work; 3 capture calls); the replay's 150 kernels of 2 us are
 * launched by one cudaGraphLaunch: short kernels, many, but graph launches, so no small_launches.
 * GPU span [220, 967) = 747 us, busy 300 us (40.2 %). */
static void graph_capture_and_graph_launches(void **state)
{
    (void)state;
    bundle b;
    char order[256];
    load(&b, "insights/graph_capture.json");
    ids(&b.d, order, sizeof order);
    assert_string_equal(order, "dominant_kernel graph_capture");
    const ks_diagnosis *x = dx(&b, "graph_capture");
    assert_int_equal(x->impact_ns, -1);
    assert_non_null(strstr(x->evidence, "3 stream-capture calls"));
    assert_non_null(strstr(x->evidence, "20 of 21 calls with a correlation id have no GPU work"));
    assert_int_equal(b.d.denominator_ns, 747000);
    assert_int_equal(dx(&b, "dominant_kernel")->impact_ns, 300000);
    /* the launch counts: 20 kernel launches, 1 graph launch; 3 other runtime calls */
    assert_int_equal(b.a->links.launch_calls, 21);
    assert_int_equal(b.a->links.other_runtime_calls, 3);
    unload(&b);
}

/* overhead.json: one kernel [10, 1010), a 100 us "overhead" event [210, 310) inside the GPU span:
 * 10 % of it, impact 100 us ("high" from 10 %); a cuda_profiler_range event: a caveat. */
static void profiler_overhead_and_range(void **state)
{
    (void)state;
    bundle b;
    char order[256];
    load(&b, "insights/overhead.json");
    ids(&b.d, order, sizeof order);
    assert_string_equal(order, "dominant_kernel profiler_overhead profiler_range busy_is_not_efficiency");
    const ks_diagnosis *x = dx(&b, "profiler_overhead");
    assert_int_equal(x->impact_ns, 100000);
    assert_string_equal(x->confidence, "high");
    assert_int_equal(dx(&b, "profiler_range")->impact_ns, -1);
    unload(&b);
}

/* alloc_growth.json: 3 steps of 1000 us; aten::empty [s, s+500) with a cudaMalloc [s+10, s+60)
 * under it: 450 us of self time per step, 1350 of 3000 us (45 % >= 30 %): dominant_op, stated
 * as allocator growth; 3 allocator calls under it (150 us). */
static void dominant_op_tells_allocator_growth(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/alloc_growth.json");
    const ks_diagnosis *x = dx(&b, "dominant_op");
    assert_non_null(x);
    assert_int_equal(x->impact_ns, 1350000);
    assert_non_null(strstr(x->hypothesis, "allocator"));
    assert_non_null(strstr(x->evidence, "3 allocator calls under it take 150.000 us"));
    assert_non_null(strstr(x->next_check, "memory_stats"));
    assert_int_equal(x, &b.d.v[0]); /* 1350 us, before host_bound (1240) and the kernel (1140) */
    assert_int_equal(dx(&b, "host_bound")->impact_ns, 1240000);
    unload(&b);
}

/* The floor: repeated_upload.json's 4096-byte constant costs 10 us of 500 us of active steps
 * (2 %). At a 3 % floor it is hidden and counted; with all it is listed, marked below the floor;
 * at 2 % exactly it is shown (the floor is "less than"). */
static void the_floor_hides_and_counts(void **state)
{
    (void)state;
    bundle b;
    ks_diagnose_opts o;
    ks_diagnose_opts_init(&o);
    assert_true(o.min_impact == 0.01);
    o.min_impact = 0.03;
    load_with(&b, "insights/repeated_upload.json", &o);
    assert_null(dx(&b, "repeated_upload"));
    assert_int_equal(b.d.hidden, 1);
    unload(&b);
    o.all = 1;
    load_with(&b, "insights/repeated_upload.json", &o);
    assert_non_null(dx(&b, "repeated_upload"));
    assert_int_equal(dx(&b, "repeated_upload")->below_floor, 1);
    assert_int_equal(b.d.hidden, 0);
    unload(&b);
    o.all = 0;
    o.min_impact = 0.02;
    load_with(&b, "insights/repeated_upload.json", &o);
    assert_non_null(dx(&b, "repeated_upload"));
    assert_int_equal(b.d.hidden, 0);
    unload(&b);
}

/* A 2 us kernel in a 10 s capture: 100 % busy of a 2 us span, but under the 100 us of GPU work a
 * GPU diagnosis needs: no busy_is_not_efficiency, no dominant_kernel. */
static void tiny_gpu_work_gets_no_gpu_diagnosis(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\":["
                                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":0,"
                                "\"dur\":10000000},"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100,"
                                "\"dur\":2,\"args\":{\"device\":0,\"stream\":7}}]}");
    ks_analysis *a = analyse(t, NULL);
    ks_diagnoses d;
    ks_diagnose(a, NULL, NULL, &d);
    for (size_t i = 0; i < d.n; i++) {
        assert_string_not_equal(d.v[i].id, "busy_is_not_efficiency");
        assert_string_not_equal(d.v[i].id, "dominant_kernel");
    }
    assert_string_equal(d.denominator, "GPU span");
    assert_int_equal(d.denominator_ns, 2000);
    ks_diagnoses_free(&d);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* Kernels [0, 200) and [900, 1000) us, a cudaStreamSynchronize [300, 800) between them: no steps,
 * the GPU span is 1000 us, 300 busy. The call waits 500 us with no GPU work recorded (50 % >= 5 %):
 * unexplained_wait, a caveat. After it the GPU idles [800, 900), 100 us, but the call waited 0 us
 * on a busy GPU: without it the host could have queued nothing earlier, so sync_in_loop's bound,
 * min(100, 0), is 0 and it is not stated; dominant_kernel (the one kernel name: 300 us) is. */
static void waiting_on_an_idle_gpu(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\":["
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,"
                                "\"dur\":200,\"args\":{\"device\":0,\"stream\":7}},"
                                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":900,"
                                "\"dur\":100,\"args\":{\"device\":0,\"stream\":7}},"
                                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\","
                                "\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":500}]}");
    ks_analysis *a = analyse(t, NULL);
    ks_diagnoses d;
    ks_diagnose(a, NULL, NULL, &d);
    char order[256];
    ids(&d, order, sizeof order);
    assert_string_equal(order, "dominant_kernel unexplained_wait");
    assert_int_equal(d.v[0].impact_ns, 300000);
    assert_int_equal(d.v[1].impact_ns, -1);
    assert_non_null(strstr(d.v[1].evidence, "500.000 us of it with no GPU work recorded, 50.0% of the GPU span"));
    ks_diagnoses_free(&d);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* cpu_prologue.json: 4 steps of 1000 us; each syncs 6 us at its start on an idle GPU, runs
 * preprocess [s+10, s+590), then three kernels [s+600, s+700), [s+705, s+805), [s+810, s+990).
 * Denominator: the active steps, 4000 us. The GPU idles from each step's start to s+600: 600 us,
 * 4 x 600 = 2400 us = 60.0 % (the kernels after it leave gaps of 5 us, far below 600 / 2), none of
 * it loading data: cpu_before_gpu, first, high. The stepping thread's outer slices in those
 * 600 us: preprocess 4 x 580 = 2320 us, the sync 4 x 6 = 24 us, the launches [s+591, s+593),
 * [s+595, s+597), [s+599, s+600) 4 x 5 = 20 us. The syncs waited 0 us on a busy GPU: removing
 * them saves nothing, so no sync_in_loop (the idle after them, 3 x 594 us, is the CPU's). */
static void cpu_work_before_the_first_gpu_work(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/cpu_prologue.json");
    assert_int_equal(b.d.denominator_ns, 4000000);
    const ks_diagnosis *x = dx(&b, "cpu_before_gpu");
    assert_non_null(x);
    assert_ptr_equal(x, &b.d.v[0]);
    assert_int_equal(x->impact_ns, 2400000);
    assert_string_equal(x->confidence, "high");
    assert_non_null(strstr(x->evidence, "In 4 of 4 active steps"));
    assert_non_null(strstr(x->evidence, "60% of the step on average, at most 600.000 us (step 0)"));
    assert_non_null(strstr(x->evidence, "60.0% of the active steps (4.000 ms)"));
    assert_non_null(strstr(x->evidence, "preprocess (2.320 ms), cudaStreamSynchronize (24.000 us), "
                                        "cudaLaunchKernel (20.000 us)"));
    assert_int_equal(x->nsteps, 4);
    assert_null(dx(&b, "sync_in_loop"));
    unload(&b);
    /* host_bound.json: one kernel per step, the idle spread over the step: host_bound's, not this */
    load(&b, "insights/host_bound.json");
    assert_null(dx(&b, "cpu_before_gpu"));
    unload(&b);
}

/* input_pipeline.json (test_insights.c, gaps_attributed_to_data_loading), the whole trace
 * analysed: the GPU idles in four gaps of 70 us between the five steps' kernels, each ended by
 * work launched after it went idle (HTA host wait 280 us), 60 us of each with the thread in
 * lecture_batch_cpu (240 us). The host time is mostly data loading: input_pipeline claims 240 us,
 * host_bound what is left, 280 - 240 = 40 us, so input_pipeline ranks above host_bound (before,
 * host_bound claimed all 280 us and ranked first). */
static void input_pipeline_above_host_bound(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/input_pipeline.json");
    const ks_diagnosis *in = dx(&b, "input_pipeline"), *host = dx(&b, "host_bound");
    assert_non_null(in);
    assert_non_null(host);
    assert_int_equal(in->impact_ns, 240000);
    assert_int_equal(host->impact_ns, 40000);
    assert_true(in < host); /* ranked first */
    assert_non_null(strstr(host->evidence, "less 240.000 us of it in data loading (input_pipeline's), 40.000 us is left"));
    unload(&b);
}

/* host_bound_capture.json: host_bound.json's steps 1000 us later, after a stream capture at
 * 0..35 us (the begin and end calls: 2 stream-capture calls; only 2 of 6 launches run nothing,
 * too few for the old rule of 10). The trace captures graphs: the graph_capture caveat is stated,
 * and host_bound, still 210 us, does not advise CUDA graphs. */
static void a_capture_gets_its_caveat(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/host_bound_capture.json");
    const ks_diagnosis *cap = dx(&b, "graph_capture"), *host = dx(&b, "host_bound");
    assert_non_null(cap);
    assert_int_equal(cap->impact_ns, -1);
    assert_non_null(strstr(cap->evidence, "1 begin-capture calls in the trace, 2 stream-capture calls"));
    assert_non_null(host);
    assert_int_equal(host->impact_ns, 210000);
    assert_null(strstr(host->next_check, "CUDA graphs,"));
    assert_non_null(strstr(host->next_check, "already captures CUDA/HIP graphs (1 stream captures)"));
    unload(&b);
    load(&b, "insights/host_bound.json"); /* no capture: no caveat, graphs advised */
    assert_null(dx(&b, "graph_capture"));
    assert_non_null(strstr(dx(&b, "host_bound")->next_check, "CUDA graphs,"));
    unload(&b);
}

/* The checks run side by side when the analysis has threads (diagnose.c, run_checks): the list is
 * the same as on one thread, item by item and in the same order, on the fixtures of
 * fixtures/insights and the example; together they make at least 6 kinds of diagnosis (caveats
 * included), so several checks that ran on different threads are merged. */
static void same_diagnoses_on_any_threads(void **state)
{
    (void)state;
    static const char *const fixtures[] = {
        "insights/alloc_growth.json", "insights/default_window.json", "insights/default_window_cpu.json",
        "insights/graph_capture.json", "insights/host_bound.json", "insights/init_capture.json",
        "insights/input_pipeline.json", "insights/overhead.json", "insights/repeated_upload.json",
        "insights/sync_loop.json", "insights/threads.json", "insights/tiny_kernels.json",
        "insights/cpu_prologue.json", "insights/host_bound_capture.json",
        "insights/whatif_seed.json", "insights/whatif_waits.json", "example/train_step.json"};
    char seen[1024] = " ";
    size_t kinds = 0;
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        ks_trace *t = ks_test_load(ks_fixture(fixtures[f]));
        ks_diagnoses d[2];
        for (int k = 0; k < 2; k++) {
            ks_analysis_opts o;
            ks_analysis_opts_init(&o);
            o.threads = k ? 3 : 1;
            ks_analysis *a = analyse(t, &o);
            ks_steps st;
            ks_gaps g;
            ks_error err;
            assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
            assert_int_equal(ks_gaps_find(a, &st, NULL, &g, &err), KS_OK);
            ks_diagnose_opts dop;
            ks_diagnose_opts_init(&dop);
            dop.all = 1; /* the floor hides nothing: every diagnosis made is compared */
            ks_diagnose_with(a, &st, &g, &dop, &d[k]);
            ks_gaps_free(&g);
            ks_steps_free(&st);
            ks_analysis_free(a);
        }
        assert_int_equal(d[0].n, d[1].n);
        for (size_t i = 0; i < d[0].n; i++) {
            const ks_diagnosis *x = &d[0].v[i], *y = &d[1].v[i];
            assert_string_equal(x->id, y->id);
            assert_string_equal(x->confidence, y->confidence);
            assert_int_equal(x->impact_ns, y->impact_ns);
            assert_string_equal(x->hypothesis, y->hypothesis);
            assert_string_equal(x->evidence, y->evidence);
            assert_int_equal(x->nsteps, y->nsteps);
            char key[64];
            snprintf(key, sizeof key, " %s ", x->id);
            if (!strstr(seen, key) && strlen(seen) + strlen(key) < sizeof seen) {
                strcat(seen, key + 1);
                kinds++;
            }
        }
        ks_diagnoses_free(&d[0]);
        ks_diagnoses_free(&d[1]);
        ks_trace_free(t);
    }
    assert_true(kinds >= 6);
}

/* A share in a diagnosis's evidence names its denominator and size; of a denominator of 0 it is
 * not observed (n/a), never 0.0%. */
static void evidence_shares_name_their_denominator(void **state)
{
    (void)state;
    char b[96];
    ks_dx_ctx c;
    memset(&c, 0, sizeof c);
    c.denom_name = "window";
    c.denom = 200;
    assert_string_equal(ks_dx_share(b, sizeof b, &c, 50), "25.0% of the window (200 ns)");
    c.denom = 0;
    assert_string_equal(ks_dx_share(b, sizeof b, &c, 50), "n/a of the window (0 ns)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_bound_is_found_and_ranked),
        cmocka_unit_test(init_in_capture_is_a_caveat),
        cmocka_unit_test(graph_capture_and_graph_launches),
        cmocka_unit_test(profiler_overhead_and_range),
        cmocka_unit_test(dominant_op_tells_allocator_growth),
        cmocka_unit_test(the_floor_hides_and_counts),
        cmocka_unit_test(tiny_gpu_work_gets_no_gpu_diagnosis),
        cmocka_unit_test(waiting_on_an_idle_gpu),
        cmocka_unit_test(same_diagnoses_on_any_threads),
        cmocka_unit_test(cpu_work_before_the_first_gpu_work),
        cmocka_unit_test(input_pipeline_above_host_bound),
        cmocka_unit_test(a_capture_gets_its_caveat),
        cmocka_unit_test(evidence_shares_name_their_denominator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
