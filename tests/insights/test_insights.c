/* tests/insights/test_insights.c: steps, warm-up, breakdown, GPU idle gaps and their cause,
 * diagnoses, --window, what-if and nvidia-smi telemetry on fixtures/insights/ (written by its
 * gen.py). Every expected figure is derived by hand from the fixture's numbers (in us). */
#include <math.h>

#include "tests/analysis/analysis_test.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"
#include "analysis/passes.h"
#include "common/optsyntax.h"
#include "insights/insights_int.h"

typedef struct bundle {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
    ks_gaps g;
    ks_diagnoses d;
} bundle;

static void load(bundle *b, const char *fixture)
{
    ks_error err;
    memset(b, 0, sizeof *b);
    b->t = ks_test_load(ks_fixture(fixture));
    b->a = analyse(b->t, NULL);
    assert_int_equal(ks_steps_find(b->a, NULL, &b->st, &err), KS_OK);
    assert_int_equal(ks_gaps_find(b->a, &b->st, NULL, &b->g, &err), KS_OK);
    ks_diagnose(b->a, &b->st, &b->g, &b->d);
}

static void unload(bundle *b)
{
    ks_diagnoses_free(&b->d);
    ks_gaps_free(&b->g);
    ks_steps_free(&b->st);
    ks_analysis_free(b->a);
    ks_trace_free(b->t);
}

static const ks_diagnosis *dx(const bundle *b, const char *id)
{
    for (size_t i = 0; i < b->d.n; i++)
        if (!strcmp(b->d.v[i].id, id))
            return &b->d.v[i];
    return NULL;
}

static const ks_gap_cause *cause(const bundle *b, const ks_gap_cause *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (name ? v[i].name && !strcmp(ks_trace_str(b->t, v[i].name), name) : !v[i].name)
            return &v[i];
    fail_msg("no cause %s", name ? name : "(nothing)");
    return NULL;
}

static void steps_warmup_and_breakdown(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/input_pipeline.json");
    assert_int_equal(b.st.n, 5);
    assert_string_equal(b.st.source, "ProfilerStep#N");
    /* walls 300, 100, 100, 100, 100: median 100, MAD 0, so the margin is 25 % of 100 */
    assert_true(b.st.v[0].warmup);
    assert_false(b.st.v[1].warmup);
    assert_int_equal(b.st.nwarmup, 1);
    assert_int_equal(b.st.nactive, 4);
    assert_int_equal(b.st.active_median, 100 * US);
    const ks_step *s = &b.st.v[1];
    assert_int_equal(s->number, 1);
    assert_int_equal(s->start, 300 * US);
    assert_int_equal(s->end, 400 * US);
    assert_int_equal(s->busy_ns, 30 * US);
    assert_int_equal(s->idle_ns, 70 * US);
    /* kernel [365,395); launch [361,363); lecture [300,360) and forward [360,400) are CPU exec */
    assert_int_equal(s->breakdown[KS_ROLE_KERNEL], 30 * US);
    assert_int_equal(s->breakdown[KS_ROLE_RUNTIME], 2 * US);
    assert_int_equal(s->breakdown[KS_ROLE_CPU_EXEC], 68 * US);
    assert_int_equal(s->breakdown[KS_ROLE_OTHER], 0);
    for (size_t i = 0; i < b.st.n; i++) {
        ks_ns sum = 0;
        for (int r = 0; r < KS_ROLE_COUNT; r++)
            sum += b.st.v[i].breakdown[r];
        assert_int_equal(sum, b.st.v[i].wall_ns);
    }
    unload(&b);
}

/* A slice of a hand-made trace, [a, b) in us, and the role it should take. */
typedef struct role_slice {
    int a, b, role;
} role_slice;

/* Each step's breakdown is, us by us, the first role in priority order with a slice open, else
 * Other. */
static void check_point_by_point(const ks_steps *st, const role_slice *sl, size_t n)
{
    for (size_t i = 0; i < st->n; i++) {
        ks_ns want[KS_ROLE_COUNT] = {0};
        for (ks_ns us = st->v[i].start / US; us < st->v[i].end / US; us++) {
            int top = KS_ROLE_OTHER;
            for (size_t j = 0; j < n; j++)
                if (sl[j].a <= us && us < sl[j].b && sl[j].role < top)
                    top = sl[j].role;
            want[top] += US;
        }
        for (int r = 0; r < KS_ROLE_COUNT; r++)
            if (st->v[i].breakdown[r] != want[r])
                fail_msg("step %zu, %s: %lld ns, want %lld", i, ks_role_name((ks_role)r),
                         (long long)st->v[i].breakdown[r], (long long)want[r]);
    }
}

/* The breakdown point by point: every us of a step goes to the first role in priority order with a
 * slice open then, on any thread or stream (the slices below, their roles written by hand), else
 * to Other. Two threads and two streams; a kernel that runs past its step's host end (the step
 * grows to it and the next starts there), a copy and an op across a step boundary, a set on the
 * GPU under a kernel, a communication op and kernel, a data-loader op, a zero-length op, time
 * before the first step. */
static void breakdown_point_by_point(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":0,\"tid\":1,\"ts\":100,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::zero_\",\"pid\":0,\"tid\":1,\"ts\":60,\"dur\":0},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":0,\"tid\":1,\"ts\":80,\"dur\":5,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":0,\"tid\":1,\"ts\":135,\"dur\":2,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::early\",\"pid\":0,\"tid\":2,\"ts\":-20,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":0,\"tid\":2,\"ts\":50,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":0,\"tid\":2,\"ts\":150,\"dur\":20},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nccl:all_reduce\",\"pid\":0,\"tid\":2,\"ts\":175,\"dur\":15},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":90,\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":138,\"dur\":22,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"pid\":0,\"tid\":7,\"ts\":180,\"dur\":15,\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":8,\"ts\":100,\"dur\":10,\"args\":{\"device\":0,\"stream\":8}},"
        "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":8,\"ts\":120,\"dur\":25,\"args\":{\"device\":0,\"stream\":8}}]");
    static const role_slice sl[] = {{10, 40, KS_ROLE_CPU_EXEC}, {80, 85, KS_ROLE_RUNTIME}, {135, 137, KS_ROLE_RUNTIME},
              {-20, 10, KS_ROLE_CPU_EXEC}, {50, 150, KS_ROLE_CPU_EXEC}, {150, 170, KS_ROLE_DATALOADER},
              {175, 190, KS_ROLE_COMM}, {90, 130, KS_ROLE_KERNEL}, {138, 160, KS_ROLE_MEMCPY},
              {180, 195, KS_ROLE_COMM}, {100, 110, KS_ROLE_MEMSET}, {120, 145, KS_ROLE_MEMSET}};
    ks_analysis *a = analyse(t, NULL);
    ks_steps st;
    ks_error err;
    assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
    assert_int_equal(st.n, 2);
    assert_int_equal(st.v[0].end, 130 * US); /* grown to its kernel's end */
    assert_int_equal(st.v[1].start, 130 * US);
    check_point_by_point(&st, sl, sizeof sl / sizeof sl[0]);
    /* the two steps, by hand: [0,130): cpu exec 0-40 (an op from before the step) and 50-80,
     * 85-90, runtime 80-85 (over the cpu op), kernel 90-130 (the set 100-110 under it), other
     * 40-50. [130,200): set 130-138 (the launch 135-137 under it), copy
     * 138-160, data loader 160-170 (150-160 under the copy), other 170-175, comm 175-195 (op and
     * kernel), other 195-200 */
    const ks_ns *b0 = st.v[0].breakdown, *b1 = st.v[1].breakdown;
    assert_int_equal(b0[KS_ROLE_CPU_EXEC], 75 * US);
    assert_int_equal(b0[KS_ROLE_RUNTIME], 5 * US);
    assert_int_equal(b0[KS_ROLE_KERNEL], 40 * US);
    assert_int_equal(b0[KS_ROLE_MEMSET], 0);
    assert_int_equal(b0[KS_ROLE_OTHER], 10 * US);
    assert_int_equal(b1[KS_ROLE_MEMSET], 8 * US);
    assert_int_equal(b1[KS_ROLE_RUNTIME], 0);
    assert_int_equal(b1[KS_ROLE_MEMCPY], 22 * US);
    assert_int_equal(b1[KS_ROLE_DATALOADER], 10 * US);
    assert_int_equal(b1[KS_ROLE_COMM], 20 * US);
    assert_int_equal(b1[KS_ROLE_OTHER], 10 * US);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* Nested slices: an op inside an op of its role takes nothing the outer one does not (the sweep
 * leaves it out), but one that outlives its parent (a partial overlap, kept in an overflow lane)
 * and one of another role inside (a launch, a data-loader op) take their own time. */
static void breakdown_with_nested_slices(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":200},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::outer\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":60},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::inner\",\"pid\":0,\"tid\":1,\"ts\":20,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::innermost\",\"pid\":0,\"tid\":1,\"ts\":25,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":0,\"tid\":1,\"ts\":30,\"dur\":4},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::late\",\"pid\":0,\"tid\":1,\"ts\":60,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::inside_late\",\"pid\":0,\"tid\":1,\"ts\":80,\"dur\":20},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::wrap\",\"pid\":0,\"tid\":2,\"ts\":120,\"dur\":60},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":0,\"tid\":2,\"ts\":130,\"dur\":20},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::in_loader\",\"pid\":0,\"tid\":2,\"ts\":135,\"dur\":5}]");
    static const role_slice sl[] = {{10, 70, KS_ROLE_CPU_EXEC},    {20, 50, KS_ROLE_CPU_EXEC},
                                    {25, 35, KS_ROLE_CPU_EXEC},    {30, 34, KS_ROLE_RUNTIME},
                                    {60, 110, KS_ROLE_CPU_EXEC},   {80, 100, KS_ROLE_CPU_EXEC},
                                    {120, 180, KS_ROLE_CPU_EXEC},  {130, 150, KS_ROLE_DATALOADER},
                                    {135, 140, KS_ROLE_CPU_EXEC}};
    ks_analysis *a = analyse(t, NULL);
    ks_steps st;
    ks_error err;
    assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
    assert_int_equal(st.n, 1);
    check_point_by_point(&st, sl, sizeof sl / sizeof sl[0]);
    /* by hand: cpu exec 10-30, 34-110 (aten::late outlives aten::outer by 40 us), 120-130, 150-180 */
    assert_int_equal(st.v[0].breakdown[KS_ROLE_CPU_EXEC], 136 * US);
    assert_int_equal(st.v[0].breakdown[KS_ROLE_RUNTIME], 4 * US);
    assert_int_equal(st.v[0].breakdown[KS_ROLE_DATALOADER], 20 * US);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}


/* A gap is reported when it is longer than the threshold (HTA's rule): exactly 10 us is not, 10.001
 * us is. Neither kernel's launch is in the trace, so both gaps are HTA "other" (host wait and
 * kernel wait need the launch call). */
static void gap_threshold_is_strict(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":40.001,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}}]");
    ks_analysis *a = analyse(t, NULL);
    ks_steps st;
    ks_gaps g;
    ks_error err;
    assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
    assert_int_equal(ks_gaps_find(a, &st, NULL, &g, &err), KS_OK);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.dev[0].threshold_ns, 10 * US);
    assert_int_equal(g.dev[0].count, 1);
    assert_int_equal(g.dev[0].total_ns, 10001);
    assert_int_equal(g.dev[0].idle_ns, 20001);
    assert_int_equal(g.dev[0].hta_other_ns, 20001);
    assert_int_equal(g.dev[0].hta_host_wait_ns + g.dev[0].hta_kernel_wait_ns, 0);
    ks_gaps_free(&g);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void gaps_attributed_to_data_loading(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/input_pipeline.json");
    assert_int_equal(b.g.n, 1);
    const ks_gap_device *d = &b.g.dev[0];
    /* four gaps of 70 us: 5 us of forward, 60 reading, 1 forward, 2 launching, 2 forward */
    assert_int_equal(d->count, 4);
    assert_int_equal(d->total_ns, 280 * US);
    assert_int_equal(d->idle_ns, 280 * US);
    assert_int_equal(d->data_loading_ns, 240 * US);
    const ks_gap_cause *c = cause(&b, d->by_cpu, d->nby_cpu, "lecture_batch_cpu");
    assert_int_equal(c->total_ns, 240 * US);
    assert_int_equal(c->count, 4);
    assert_int_equal(cause(&b, d->by_cpu, d->nby_cpu, "forward")->total_ns, 32 * US);
    assert_int_equal(cause(&b, d->by_cpu, d->nby_cpu, "cudaLaunchKernel")->total_ns, 8 * US);
    assert_int_equal(cause(&b, d->by_label, d->nby_label, "forward")->total_ns, 40 * US);
    assert_ptr_equal(&d->by_cpu[0], c); /* largest first */
    /* every next kernel was launched after the GPU went idle: host wait */
    assert_int_equal(d->hta_host_wait_ns, 280 * US);
    const ks_diagnosis *x = dx(&b, "input_pipeline");
    assert_non_null(x);
    assert_string_equal(x->confidence, "high"); /* 240 of 280 us of idle time */
    assert_int_equal(x->nsteps, 4);              /* the active steps, not the warm-up */
    assert_int_equal(x->steps[0], 1);
    assert_non_null(strstr(x->evidence, "lecture_batch_cpu"));
    assert_non_null(x->next_check);
    assert_non_null(x->refuted_if);
    unload(&b);
}

static void repeated_upload_is_found(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/repeated_upload.json");
    const ks_diagnosis *x = dx(&b, "repeated_upload");
    assert_non_null(x);
    /* the 4096-byte copy, not the 1 MiB input batch, which is the largest upload of each step;
     * 5 copies of 2 us: 10 us of the 500 us of active steps (2 %, over the 1 % floor, under the
     * 5 % that makes it "medium") */
    assert_non_null(strstr(x->hypothesis, "4096 bytes"));
    assert_string_equal(x->confidence, "low");
    assert_int_equal(x->impact_ns, 10000);
    assert_int_equal(x->below_floor, 0);
    assert_string_equal(b.d.denominator, "active steps");
    assert_int_equal(b.d.denominator_ns, 500000);
    assert_string_equal(x->validate_cmd, "kinesift validate constant-upload --bytes 4096 --uploads 1");
    assert_int_equal(x->nsteps, 5);
    assert_null(dx(&b, "small_launches"));
    assert_null(dx(&b, "sync_in_loop"));
    unload(&b);
}

static void tiny_kernels_are_found(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/tiny_kernels.json");
    const ks_diagnosis *x = dx(&b, "small_launches");
    assert_non_null(x);
    assert_string_equal(x->confidence, "high");
    assert_string_equal(x->validate_cmd, "kinesift validate small-kernels --kernels 100");
    assert_non_null(strstr(x->evidence, "200 of 200 kernels"));
    /* 2 steps of 600 us, 200 kernels of 2 us: the GPU idles 800 us of the 1200; the 200 launch
     * calls take 4 us each, 800 us: the bound is the smaller, 800 us */
    assert_int_equal(x->impact_ns, 800000);
    unload(&b);
}

static void sync_in_the_loop_is_found(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/sync_loop.json");
    const ks_diagnosis *x = dx(&b, "sync_in_loop");
    assert_non_null(x);
    /* 4 x 48 us of cudaDeviceSynchronize in 400 us of active steps, in every step, 45 us of each
     * waiting on the busy GPU (kernel [s+5, s+50), sync [s+3, s+51)); after each the GPU is idle
     * until the next step's kernel at s+105: 54 us, three times (nothing follows the last one):
     * 162 us = 40.5 % of the active steps */
    assert_string_equal(x->confidence, "high");
    assert_int_equal(x->impact_ns, 162000);
    assert_non_null(strstr(x->evidence, "take 192.000 us"));
    assert_non_null(strstr(x->evidence, "180.000 us of it waiting on a busy GPU"));
    assert_non_null(strstr(x->evidence, "40.5% of the active steps (400.000 us)"));
    assert_non_null(strstr(x->evidence, "in 4 of 4 active steps"));
    assert_string_equal(x->validate_cmd, "kinesift validate sync-per-op --ops 1");
    assert_int_equal(x->nsteps, 4);
    assert_null(dx(&b, "input_pipeline"));
    unload(&b);
}

/* Hand-worked: a kernel [0, 40) us, one blocking call [10, 60), and a second kernel [100, 120):
 * no steps, so the denominator is the GPU span [0, 120). The call takes 50 us (over the 5 % floor),
 * 30 of them waiting on the busy GPU ([10, 40)), and the GPU is idle 40 us after it, until 100: the
 * bound is the smaller, 30 us, 25.0 % of the GPU span (idle in all: 120 - 40 - 20 = 60 us), so
 * sync_in_loop is stated. With the first kernel running [0, 100) instead, the call only waits for a busy GPU
 * that goes on at once: no idle time after it, no diagnosis. The call is taken from one table
 * for both platforms: a HIP call gets no validate command (validate runs on CUDA) but a by-hand
 * measurement in next_check; a driver call with a version suffix (cuMemcpyDtoH_v2) is a CUDA
 * blocking call with the validate command; an Async copy blocks nothing. */
static const ks_diagnosis *sync_dx(const char *call, const char *cat, int busy, ks_diagnoses *d, ks_trace **t,
                                   ks_analysis **a)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"traceEvents\":["
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":%d,"
             "\"args\":{\"device\":0,\"stream\":7}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":20,"
             "\"args\":{\"device\":0,\"stream\":7}},"
             "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50}]}",
             busy ? 100 : 40, cat, call);
    *t = ks_test_parse(json);
    *a = analyse(*t, NULL);
    ks_diagnose(*a, NULL, NULL, d);
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->v[i].id, "sync_in_loop"))
            return &d->v[i];
    return NULL;
}

static void blocking_calls_of_every_platform(void **state)
{
    (void)state;
    static const struct { const char *call, *cat; int found, validate; } c[] = {
        {"hipMemcpyWithStream", "cuda_runtime", 1, 0}, {"hipStreamSynchronize", "cuda_runtime", 1, 0},
        {"hipEventSynchronize", "cuda_runtime", 1, 0}, {"cuMemcpyDtoH_v2", "cuda_driver", 1, 1},
        {"cudaMemcpy2D", "cuda_runtime", 1, 1},        {"cudaStreamSynchronize", "cuda_runtime", 1, 1},
        {"cudaMemcpyAsync", "cuda_runtime", 0, 0},     {"cuMemcpyDtoHAsync_v2", "cuda_driver", 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        for (int busy = 0; busy < 2; busy++) {
            ks_diagnoses d;
            ks_trace *t;
            ks_analysis *a;
            const ks_diagnosis *x = sync_dx(c[i].call, c[i].cat, busy, &d, &t, &a);
            if (!c[i].found || busy) {
                assert_null(x);
            } else {
                assert_non_null(x);
                assert_int_equal(x->impact_ns, 30000);
                assert_string_equal(d.denominator, "GPU span");
                assert_non_null(strstr(x->evidence, "30.000 us of it waiting on a busy GPU"));
                assert_non_null(strstr(x->evidence, "the GPU is idle 40.000 us until its next work (of 60.000 us GPU "
                                                    "idle in all); the smaller, 30.000 us, is 25.0% of the GPU span "
                                                    "(120.000 us)"));
                if (c[i].validate) {
                    assert_non_null(x->validate_cmd);
                } else {
                    assert_null(x->validate_cmd);
                    assert_non_null(strstr(x->next_check, "on ROCm"));
                }
            }
            ks_diagnoses_free(&d);
            ks_analysis_free(a);
            ks_trace_free(t);
        }
}

static void cpu_only_trace(void **state)
{
    (void)state;
    bundle b;
    load(&b, "analysis/cpu_only.json");
    assert_int_equal(b.st.n, 1);
    assert_null(b.g.dev);
    assert_non_null(strstr(b.g.reason, "not observed"));
    for (size_t i = 0; i < b.d.n; i++)
        assert_string_not_equal(b.d.v[i].id, "input_pipeline");
    unload(&b);
    /* and a trace without any step: one window, not a failure */
    load(&b, "analysis/nesting.json");
    assert_int_equal(b.st.n, 0);
    assert_non_null(strstr(b.st.source, "the window has no step"));
    unload(&b);
}

/* the default window of the pipeline (fixtures/insights/gen.py, M and N; us) */
static void default_window(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("insights/default_window.json"));
    ks_insights_opts o;
    ks_insights r;
    ks_error err;
    ks_insights_opts_init(&o);
    o.depth = KS_INSIGHTS_STEPS;
    /* active steps 2-5: from step 2's start (3000) to step 5's end, widened by its kernel (5200) */
    assert_int_equal(ks_insights_run(t, &o, &r, &err), KS_OK);
    assert_int_equal(r.a->win_start, 3000 * US);
    assert_int_equal(r.a->win_end, 5200 * US);
    assert_int_equal(r.a->window_ns, 2200 * US);
    assert_string_equal(r.a->window_basis, "active steps");
    assert_string_equal(r.a->window_why, "active steps 2-5 (4 steps; 1 warm-up left out)");
    assert_int_equal(r.steps.n, 4);
    for (size_t i = 0; i < r.a->nops; i++) /* the op before the steps is out, the one inside in */
        assert_string_not_equal(ks_trace_str(t, r.a->ops[i].name), "aten::before");
    ks_insights_free(&r);
    /* without steps: the GPU span [4800, 5200), ending 1 ns after it so an instant at 5200 is in */
    o.steps.label_regex = "^no such label$";
    assert_int_equal(ks_insights_run(t, &o, &r, &err), KS_OK);
    assert_int_equal(r.a->win_start, 4800 * US);
    assert_int_equal(r.a->window_ns, 400 * US);
    assert_int_equal(r.a->win_last, 5200 * US);
    assert_int_equal(r.a->win_end, 5200 * US + 1);
    assert_string_equal(r.a->window_basis, "GPU span");
    ks_insights_free(&r);
    /* --window trace: the whole trace, stretched by the profiler's span [0, 10000) */
    o.steps.label_regex = NULL;
    o.window = "trace";
    assert_int_equal(ks_insights_run(t, &o, &r, &err), KS_OK);
    assert_int_equal(r.a->win_start, 0);
    assert_int_equal(r.a->window_ns, 10000 * US);
    assert_string_equal(r.a->window_basis, "trace");
    assert_int_equal(r.steps.n, 5);
    ks_insights_free(&r);
    ks_trace_free(t);
    /* no step, no GPU work: the CPU span [1000, 4000), not the profiler's span nor its instant */
    t = ks_test_load(ks_fixture("insights/default_window_cpu.json"));
    o.window = NULL;
    assert_int_equal(ks_insights_run(t, &o, &r, &err), KS_OK);
    assert_int_equal(r.a->win_start, 1000 * US);
    assert_int_equal(r.a->window_ns, 3000 * US);
    assert_string_equal(r.a->window_basis, "CPU span");
    ks_insights_free(&r);
    ks_trace_free(t);
}

static void windows(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/input_pipeline.json");
    ks_ns w0, w1;
    ks_error err;
    assert_int_equal(ks_window_parse("steps:2-3", b.a, &b.st, &w0, &w1, &err), KS_OK);
    assert_int_equal(w0, 400 * US);
    assert_int_equal(w1, 600 * US);
    assert_int_equal(ks_window_parse("steps:1", b.a, &b.st, &w0, &w1, &err), KS_OK);
    assert_int_equal(w1 - w0, 100 * US);
    assert_int_equal(ks_window_parse("100us:0.3ms", b.a, &b.st, &w0, &w1, &err), KS_OK);
    assert_int_equal(w0, 100 * US);
    assert_int_equal(w1, 300 * US);
    assert_int_equal(ks_window_parse("steps:9", b.a, &b.st, &w0, &w1, &err), KS_ERR);
    assert_int_equal(ks_window_parse("5ms:1ms", b.a, &b.st, &w0, &w1, &err), KS_ERR);
    assert_int_equal(ks_window_parse("bogus", b.a, &b.st, &w0, &w1, &err), KS_ERR);
    /* restricted to steps 2-3, the tables hold two kernels and the steps two entries */
    assert_int_equal(ks_window_parse("steps:2-3", b.a, &b.st, &w0, &w1, &err), KS_OK);
    assert_int_equal(ks_analysis_set_window(b.a, w0, w1, &err), KS_OK);
    ks_steps_restrict(&b.st, w0, w1);
    assert_int_equal(b.st.n, 2);
    assert_int_equal(b.a->nkernels, 1);
    assert_int_equal(b.a->kernels[0].count, 2);
    assert_int_equal(b.a->gpu[0].busy_ns, 60 * US);
    unload(&b);
    ks_ns d;
    assert_int_equal(ks_duration_parse("-1.5s", &d), 0);
    assert_int_equal(d, -1500000000LL);
    assert_int_equal(ks_duration_parse("250ms", &d), 0);
    assert_int_equal(d, 250000000LL);
    assert_int_equal(ks_duration_parse("10us", &d), 0);
    assert_int_equal(d, 10000);
    assert_int_not_equal(ks_duration_parse("10 parsecs", &d), 0);
    assert_int_not_equal(ks_duration_parse("0.5ns", &d), 0);
    /* a bare number is microseconds (the trace's unit, what --help says); clamp:NS keeps ns */
    assert_int_equal(ks_duration_parse("5", &d), 0);
    assert_int_equal(d, 5000);
    assert_int_equal(ks_duration_parse("1.5", &d), 0);
    assert_int_equal(d, 1500);
    assert_int_equal(ks_duration_parse("2ms", &d), 0);
    assert_int_equal(d, 2000000);
    assert_int_not_equal(ks_duration_parse("0.0005", &d), 0);
    assert_int_equal(ks_duration_parse_unit("5", KS_DUR_BARE_NS, &d), 0);
    assert_int_equal(d, 5);
    ks_overlap_policy pol;
    assert_int_equal(ks_overlap_parse("clamp:2000", &pol, &d), 0);
    assert_int_equal(d, 2000);
    assert_int_equal(ks_overlap_parse("clamp:2us", &pol, &d), 0);
    assert_int_equal(d, 2000);
    assert_int_not_equal(ks_overlap_parse("clamp:-5", &pol, &d), 0);
    ks_ns tz;
    assert_int_equal(ks_tz_parse("+02:00", &tz), 0);
    assert_int_equal(tz, 7200LL * 1000000000LL);
    assert_int_equal(ks_tz_parse("-0530", &tz), 0);
    assert_int_equal(tz, -19800LL * 1000000000LL);
    assert_int_equal(ks_tz_parse("UTC", &tz), 0);
    assert_int_equal(tz, 0);
    assert_int_not_equal(ks_tz_parse("Europe/Paris", &tz), 0);
    /* the public reading of --smi-tz: an offset, else a zone (when the tz database is here) */
    ks_smi_opts smi;
    memset(&smi, 0, sizeof smi);
    assert_int_equal(ks_smi_set_tz(&smi, "-0530"), 0);
    assert_true(smi.tz_set && !smi.tz_zone);
    assert_int_equal(smi.tz_offset_ns, -19800LL * 1000000000LL);
    if (ks_tz_zone_check("Europe/Paris") == 0) {
        assert_int_equal(ks_smi_set_tz(&smi, "Europe/Paris"), 0);
        assert_string_equal(smi.tz_zone, "Europe/Paris");
        assert_int_equal(ks_smi_set_tz(&smi, "UTC"), 0); /* the last one given wins */
        assert_null(smi.tz_zone);
        assert_int_equal(smi.tz_offset_ns, 0);
    }
    ks_smi_opts before = smi;
    assert_int_not_equal(ks_smi_set_tz(&smi, "../etc/passwd"), 0);
    assert_int_not_equal(ks_smi_set_tz(&smi, "+25:99x"), 0);
    assert_memory_equal(&smi, &before, sizeof smi);
}

static ks_ns project(const ks_analysis *a, const ks_steps *st, const char *label, double f, ks_ns *model)
{
    ks_shrink sh = {label, f};
    ks_whatif w;
    ks_error err;
    assert_int_equal(ks_whatif_run(a, st, &sh, 1, &w, &err), KS_OK);
    assert_int_equal(w.n, 1);
    ks_ns p = w.v[0].projected_ns;
    *model = w.v[0].model_ns;
    assert_int_equal(w.v[0].measured_ns, 100LL * 1000000000LL);
    ks_whatif_free(&w);
    return p;
}

static void whatif_seed_example(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/whatif_seed.json");
    const ks_ns S = 1000000000LL;
    ks_ns model;
    /* CPU preparation 60 s, GPU 20 s, export 20 s: 100 s */
    assert_int_equal(project(b.a, &b.st, "prep", 1.0, &model), 100 * S);
    assert_int_equal(model, 100 * S);
    /* preparation halved: 70 s */
    assert_int_equal(project(b.a, &b.st, "prep", 0.5, &model), 70 * S);
    /* GPU halved: 90 s, by its label or as @gpu */
    assert_int_equal(project(b.a, &b.st, "gpu_phase", 0.5, &model), 90 * S);
    assert_int_equal(project(b.a, &b.st, "@gpu", 0.5, &model), 90 * S);
    /* export removed: 80 s */
    assert_int_equal(project(b.a, &b.st, "export", 0.0, &model), 80 * S);
    ks_shrink bad = {"prep", -1};
    ks_whatif w;
    ks_error err;
    assert_int_equal(ks_whatif_run(b.a, &b.st, &bad, 1, &w, &err), KS_ERR);
    /* a label that matches nothing is an error naming the closest names, not "+0.0 %":
     * ("exprt" is one letter from export, farther from every other name of the fixture) */
    ks_shrink none = {"exprt", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &none, 1, &w, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "exprt"));
    assert_non_null(strstr(err.msg, "closest: 'export'"));
    ks_shrink at = {"@disk", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &at, 1, &w, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "@cpu and @gpu"));
    unload(&b);
}

/* fixtures/insights/threads.json (gen.py G), worked by hand in us. GPU work on one stream:
 * conv_fwd [40,140) and relu_fwd [170,190) launched by tid 1 in aten::conv / aten::relu; orphan
 * [140,150) without a launch call; relu_bwd [420,460) and conv_bwd [600,800) launched by tid 2
 * under ReluBackward0 / ConvBackward0, whose fwdbwd flows start at aten::relu / aten::conv; acc
 * [860,870) launched by tid 2 in AccumulateGrad (no flow) at 855, inside the step [0,1000); adam
 * [960,990) launched by tid 1. Nothing overlaps, so each share is the duration. */
static const ks_named_ns *named(const bundle *b, const ks_named_ns *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ks_trace_str(b->t, v[i].name), name))
            return &v[i];
    fail_msg("no row %s", name);
    return NULL;
}

static const ks_thread_row *thread_row(const bundle *b, const ks_threads *th, const char *tid)
{
    for (size_t i = 0; i < th->n; i++) {
        char id[64];
        ks_id_format(b->t->strings, b->t->tracks[th->v[i].track].tid, id, sizeof id);
        if (!strcmp(id, tid))
            return &th->v[i];
    }
    fail_msg("no thread %s", tid);
    return NULL;
}

static void threads_tie_backward_work(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/threads.json");
    ks_threads th;
    assert_int_equal(ks_threads_find(b.a, &b.st, &th), KS_OK);
    const ks_ns us = 1000;
    /* busy 100 + 10 + 20 + 40 + 200 + 10 + 30 */
    assert_int_equal(th.busy_ns, 410 * us);
    assert_int_equal(th.tied_ns[KS_TIE_OWN], 150 * us);  /* conv_fwd, relu_fwd, adam */
    assert_int_equal(th.tied_ns[KS_TIE_FLOW], 240 * us); /* relu_bwd, conv_bwd */
    assert_int_equal(th.tied_ns[KS_TIE_TIME], 10 * us);  /* acc */
    assert_int_equal(th.tied_ns[KS_TIE_NONE], 10 * us);  /* orphan */
    assert_int_equal(th.no_launch_ns, 10 * us);
    assert_int_equal(th.flows, 2);
    assert_int_equal(th.nsteps, 1);
    assert_int_equal(th.step_ns[0][KS_TIE_OWN], 150 * us);
    assert_int_equal(th.step_ns[0][KS_TIE_FLOW], 240 * us);
    assert_int_equal(th.step_ns[0][KS_TIE_TIME], 10 * us);
    assert_int_equal(th.n, 2);
    const ks_thread_row *main = thread_row(&b, &th, "1"), *bwd = thread_row(&b, &th, "2");
    assert_string_equal(main->role, "steps");
    assert_string_equal(bwd->role, "backward");
    assert_int_equal(main->gpu_ns[KS_TIE_OWN], 150 * us);
    assert_int_equal(bwd->gpu_ns[KS_TIE_FLOW], 240 * us);
    assert_int_equal(bwd->gpu_ns[KS_TIE_TIME], 10 * us);
    assert_int_equal(bwd->gpu_events, 3);
    /* per forward op, and per label enclosing it (point 4: labels get other threads' work) */
    assert_int_equal(th.nby_forward_op, 2);
    assert_int_equal(named(&b, th.by_forward_op, th.nby_forward_op, "aten::conv")->gpu_ns, 200 * us);
    assert_int_equal(named(&b, th.by_forward_op, th.nby_forward_op, "aten::relu")->gpu_ns, 40 * us);
    assert_int_equal(th.nlabels, 1);
    assert_int_equal(named(&b, th.labels, th.nlabels, "## forward ##")->gpu_ns, 240 * us);
    ks_threads_free(&th);
    unload(&b);
}

/* The same fixture's gaps (> 10 us): G1 [150,170) ends in relu_fwd (tid 1); G2 [190,420),
 * G3 [460,600), G4 [800,860) end in tid 2's work; G5 [870,960) ends in adam (tid 1). In G2-G4
 * tid 2 is idle until its op starts (210, 40, 50 us) while tid 1 is in ## forward ## or
 * ## backward ## (a label): waiting on another thread, 300 us. In G5 tid 1 is in ## backward ##
 * for 30 us while tid 2 is idle: not waiting. */
static void gaps_every_thread(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/threads.json");
    const ks_ns us = 1000;
    assert_int_equal(b.g.n, 1);
    const ks_gap_device *d = &b.g.dev[0];
    assert_int_equal(d->count, 5);
    assert_int_equal(d->total_ns, 540 * us);
    assert_int_equal(d->waiting_ns, 300 * us);
    const ks_gap_cause *w = NULL;
    for (size_t i = 0; i < d->nby_cpu; i++)
        if (d->by_cpu[i].waiting)
            w = &d->by_cpu[i];
    assert_non_null(w);
    assert_int_equal(w->name, 0);
    assert_int_equal(w->total_ns, 300 * us);
    assert_int_equal(w->count, 3);
    assert_int_equal(cause(&b, d->by_cpu, d->nby_cpu, "ConvBackward0")->total_ns, 98 * us);
    assert_int_equal(cause(&b, d->by_cpu, d->nby_cpu, "aten::add_")->total_ns, 58 * us);
    const ks_gap_cause *bw = cause(&b, d->by_cpu, d->nby_cpu, "## backward ##");
    assert_int_equal(bw->total_ns, 30 * us);
    assert_false(bw->waiting);
    assert_int_equal(cause(&b, d->by_cpu, d->nby_cpu, "cudaLaunchKernel")->count, 5);
    /* every thread of the process, with its states */
    assert_int_equal(d->nthreads, 2);
    for (size_t i = 0; i < d->nthreads; i++) {
        const ks_gap_thread *th = &d->threads[i];
        char id[64];
        ks_id_format(b.t->strings, b.t->tracks[th->track].tid, id, sizeof id);
        if (!strcmp(id, "1")) {
            assert_int_equal(th->state_ns[KS_TS_WORK], 90 * us);
            assert_int_equal(th->state_ns[KS_TS_LABEL], 450 * us);
            assert_int_equal(th->state_ns[KS_TS_IDLE], 0);
            assert_int_equal(th->launching, 2);
            assert_int_equal(cause(&b, th->by_cpu, th->nby_cpu, "## backward ##")->total_ns, 350 * us);
        } else {
            assert_string_equal(id, "2");
            assert_int_equal(th->state_ns[KS_TS_WORK], 130 * us);
            assert_int_equal(th->state_ns[KS_TS_IDLE], 410 * us);
            assert_int_equal(th->launching, 3);
        }
    }
    /* G2's pieces: tid 2 idle [190,400), in ReluBackward0 and its launch call to 420 */
    const ks_gap *g2 = &d->all[1];
    assert_int_equal(g2->start, 190 * us);
    assert_true(g2->cause_waiting);
    ks_ns idle2 = 0;
    for (size_t i = g2->piece0; i < g2->piece0 + g2->npieces; i++)
        if (d->pieces[i].state == KS_TS_IDLE)
            idle2 += d->pieces[i].end - d->pieces[i].start;
    assert_int_equal(idle2, 210 * us);
    unload(&b);
}

/* T threads of one process, each inside one python_function "outer" across the whole trace and
 * one 3 us op (thread i in gap (37 i) mod (G - 1)); tid 1 launches G kernels of 50 us, 100 us
 * apart: G - 1 gaps of 50 us, each [100 g + 55, 100 g + 105) us, with the launch call
 * [100 (g + 1), + 2) inside. By hand: every thread works the whole of every gap, in "outer" but
 * for its op's 3 us; tid 1 is idle 48 us of each gap while the others work: waiting. The threads
 * steady in a gap are split once for their run of gaps, not once a gap: the splits grow with
 * threads + gaps (T x (G - 1) = 80 000 when every thread was split in every gap). */
static void gaps_steady_threads_split_once(void **state)
{
    (void)state;
    enum { T = 200, G = 401 };
    const ks_ns us = 1000;
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\":[");
    for (int i = 0; i < T; i++)
        ks_buf_printf(&b,
                      "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"outer\",\"pid\":1,\"tid\":%d,\"ts\":0,"
                      "\"dur\":%d},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":%d,"
                      "\"ts\":%d,\"dur\":3},",
                      i + 2, G * 100 + 10, i + 2, (i * 37 % (G - 1)) * 100 + 65);
    for (int g = 0; g < G; g++)
        ks_buf_printf(&b,
                      "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                      "\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
                      "\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":50,\"args\":{\"correlation\":%d,\"device\":0,"
                      "\"stream\":7}}",
                      g ? "," : "", g * 100, g + 1, g * 100 + 5, g + 1);
    ks_buf_puts(&b, "]}");
    ks_trace *t = NULL;
    ks_error err;
    assert_int_equal(ks_parse_buffer("steady", b.p, b.n, NULL, &t, &err), KS_OK);
    ks_buf_free(&b);
    ks_analysis *a = analyse(t, NULL);
    ks_steps st;
    ks_gaps gp;
    uint64_t splits = 0;
    assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
    assert_int_equal(ks_gaps_find_counted(a, &st, NULL, &gp, &err, &splits), KS_OK);
    assert_int_equal(gp.n, 1);
    const ks_gap_device *d = &gp.dev[0];
    assert_int_equal(d->count, G - 1);
    assert_int_equal(d->total_ns, (G - 1) * 50 * us);
    assert_int_equal(d->waiting_ns, (G - 1) * 48 * us);
    assert_int_equal(d->nthreads, T + 1);
    for (size_t i = 0; i < d->nthreads; i++) {
        const ks_gap_thread *th = &d->threads[i];
        if (th->launching) {
            assert_int_equal(th->launching, G - 1);
            assert_int_equal(th->state_ns[KS_TS_IDLE], (G - 1) * 48 * us);
            continue;
        }
        assert_int_equal(th->state_ns[KS_TS_WORK], (G - 1) * 50 * us);
        assert_int_equal(th->nby_cpu, 2);
        const ks_gap_cause *outer = &th->by_cpu[0], *op = &th->by_cpu[1];
        assert_string_equal(ks_trace_str(t, outer->name), "outer");
        assert_int_equal(outer->total_ns, (G - 1) * 50 * us - 3 * us);
        assert_int_equal(outer->count, G - 1);
        assert_string_equal(ks_trace_str(t, op->name), "op");
        assert_int_equal(op->total_ns, 3 * us);
        assert_int_equal(op->count, 1);
    }
    /* per thread: its op's gap, the five longest (all of one length: the first five) and up to
     * seven runs between them; per gap: the launching thread */
    assert_true(splits <= 13 * T + G);
    ks_gaps_free(&gp);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* whatif on threads.json: @gpu scales the work of both threads (400 us launched, the orphan is
 * not modeled); ## backward ## on tid 1 is waiting (no op of tid 1 in it, tid 2's ops inside),
 * so none of its 600 us is scaled and the projection is the model's. */
static void whatif_every_thread(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/threads.json");
    const ks_ns us = 1000;
    ks_shrink gpu = {"@gpu", 0.5};
    ks_whatif w;
    ks_error err;
    assert_int_equal(ks_whatif_run(b.a, &b.st, &gpu, 1, &w, &err), KS_OK);
    assert_int_equal(w.nthreads, 2);
    assert_int_equal(w.v[0].measured_ns, 1000 * us);
    assert_int_equal(w.v[0].model_ns, 1000 * us);
    assert_int_equal(w.v[0].label_gpu_ns, 400 * us);
    assert_int_equal(w.v[0].other_threads_gpu_ns, 250 * us);
    assert_int_equal(w.v[0].unmodeled_gpu_ns, 10 * us);
    ks_whatif_free(&w);
    ks_shrink back = {"## backward ##", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &back, 1, &w, &err), KS_OK);
    assert_int_equal(w.label_own_ns[0], 600 * us);
    assert_int_equal(w.label_wait_ns[0], 600 * us);
    assert_int_equal(w.v[0].label_cpu_ns, 0);
    assert_int_equal(w.v[0].projected_ns, w.v[0].model_ns);
    char id[64];
    ks_id_format(b.t->strings, b.t->tracks[w.label_wait_track[0]].tid, id, sizeof id);
    assert_string_equal(id, "1");
    ks_whatif_free(&w);
    /* a label of the other thread is found (ops of every replayed thread can be shrunk) */
    ks_shrink conv = {"ConvBackward0", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &conv, 1, &w, &err), KS_OK);
    assert_int_equal(w.v[0].label_gpu_ns, 200 * us);
    assert_int_equal(w.label_wait_ns[0], 0);
    ks_whatif_free(&w);
    unload(&b);
}

/* whatif_waits.json (gen.py O; us): tid 1 waits [200, 650) (its `## backward ##`: the gap of its
 * ops [100, 650) is cut at the starts and ends of its labels) on tid 2, whose bwd, kernel k2 [300, 600)
 * and synchronize end at 600; tid 1 goes on at 650. With @gpu=0.5, by hand: k1 runs [110, 160);
 * k2, launched at 262 after 38 us of latency, runs [300, 450); the synchronize returns at 450; the
 * wait ends at 450 + the 50 us lag = 500; opt runs from 500, and the host part ends at
 * 500 + (1000 - 650) = 850; k3 ends at 585. Step 1: 850. Step 2's wait [1200, 1650) ends 150 us
 * after tid 2's work (over the max(50 us, 45 us) tolerance): not modelled, 450 us kept, step 2
 * stays 1000. (tid 2's wait [600, 1250) for tid 1's second backward lies in neither step.) */
static void whatif_waits_between_threads(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/whatif_waits.json");
    const ks_ns us = 1000;
    ks_shrink gpu = {"@gpu", 0.5};
    ks_whatif w;
    ks_error err;
    assert_int_equal(ks_whatif_run(b.a, &b.st, &gpu, 1, &w, &err), KS_OK);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.v[0].measured_ns, 1000 * us);
    assert_int_equal(w.v[0].model_ns, 1000 * us);
    assert_int_equal(w.v[0].projected_ns, 850 * us);
    assert_int_equal(w.v[0].waits_modeled_ns, 450 * us);
    assert_int_equal(w.v[0].waits_unmodeled_ns, 0);
    assert_int_equal(w.v[1].model_ns, 1000 * us);
    assert_int_equal(w.v[1].projected_ns, 1000 * us);
    assert_int_equal(w.v[1].waits_modeled_ns, 0);
    assert_int_equal(w.v[1].waits_unmodeled_ns, 450 * us);
    assert_int_equal(w.nwaits, 2);
    for (size_t i = 0; i < w.nwaits; i++) {
        char id[64], on[64];
        ks_id_format(b.t->strings, b.t->tracks[w.waits[i].track].tid, id, sizeof id);
        ks_id_format(b.t->strings, b.t->tracks[w.waits[i].on_track].tid, on, sizeof on);
        assert_string_equal(id, "1");
        assert_string_equal(on, "2");
        assert_int_equal(w.waits[i].count, 1);
        assert_int_equal(w.waits[i].wait_ns, 450 * us);
        assert_int_equal(w.waits[i].lag_ns, (w.waits[i].modeled ? 50 : 150) * us);
    }
    ks_whatif_free(&w);
    /* no scaling: the projection is the measured time exactly */
    ks_shrink none[2] = {{"@gpu", 1.0}, {"@cpu", 1.0}};
    assert_int_equal(ks_whatif_run(b.a, &b.st, none, 2, &w, &err), KS_OK);
    for (size_t i = 0; i < w.n; i++)
        assert_int_equal(w.v[i].projected_ns, w.v[i].measured_ns);
    ks_whatif_free(&w);
    /* the CPU at half speed: never longer, and shorter */
    ks_shrink cpu = {"@cpu", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &cpu, 1, &w, &err), KS_OK);
    for (size_t i = 0; i < w.n; i++)
        assert_true(w.v[i].projected_ns < w.v[i].measured_ns);
    ks_whatif_free(&w);
    unload(&b);
}

/* pin_memory.json (gen.py Q; us): tid 3 pins batch 0 [200, 500) and batch 1 [600, 900) (idle
 * [500, 600) until its worker delivered it); tid 1 takes batch 0 in __next__ [250, 530) and batch 1
 * in __next__ [1000, 1030). By hand: one data_queue edge each (first in, first out), the first
 * releasing the call at 500. Step 0's path [250, 1000): tid 3's pinning [250, 500) (cpu,
 * inferred: reached through the queue), the call's return [500, 530) (thread_wait, inferred),
 * tid 1's work [530, 1000); step 1's: tid 1's cpu only (the batch was ready). With @cpu=0.5:
 * batch 0 pinned [200, 350) (replayed from before the step: the step waited for it), the call
 * returns at 365, the host part of step 0 ends at 365 + 470 / 2 = 600 (k1 ends at 515): 350 us;
 * batch 1 is pinned no earlier than its worker delivered it: [600, 750); step 1's call waits for
 * it from 600 and returns at 765, its host part ends at 765 + 770 / 2 = 1150: 550 us. With
 * aten::linear=0.5: step 0 ends at 530 + 270 = 800 (550 us), step 1's call waits for batch 1 until
 * 900, returns at 930, ends at 930 + 535: 665 us. */
static void pin_memory_queue(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/pin_memory.json");
    const ks_ns us = 1000;
    ks_critpath cp;
    ks_error err;
    assert_int_equal(ks_critpath_build(b.a, &b.st, &cp, &err), KS_OK);
    assert_int_equal(cp.edges[KS_DEP_DATA_QUEUE][0], 0);
    assert_int_equal(cp.edges[KS_DEP_DATA_QUEUE][1], 2);
    assert_int_equal(cp.edges[KS_DEP_THREAD][1], 0);
    assert_int_equal(cp.n, 2);
    const ks_cp_step *s0 = &cp.v[0], *s1 = &cp.v[1];
    assert_int_equal(s0->by_kind[KS_CP_UNMODELED], 0);
    assert_int_equal(s0->by_kind[KS_CP_CPU], 720 * us);
    assert_int_equal(s0->by_kind[KS_CP_THREAD_WAIT], 30 * us);
    assert_int_equal(s0->inferred_ns, 280 * us);
    /* tid 3's pinning on the path, on its own track */
    uint32_t pin_track = UINT32_MAX;
    for (size_t k = 0; k < s0->n; k++) {
        ks_cp_piece p = ks_critpath_piece(&cp, s0, k);
        char id[64];
        ks_id_format(b.t->strings, b.t->tracks[p.track].tid, id, sizeof id);
        if (!strcmp(id, "3"))
            pin_track = p.track;
    }
    assert_int_not_equal(pin_track, UINT32_MAX);
    assert_int_equal(ks_critpath_overlap(&cp, 0, 0, 1000 * us, KS_CP_CPU, pin_track), 250 * us);
    assert_int_equal(s1->by_kind[KS_CP_CPU], 800 * us);
    assert_int_equal(s1->by_kind[KS_CP_THREAD_WAIT], 0);
    ks_critpath_free(&cp);
    ks_shrink cpu = {"@cpu", 0.5};
    ks_whatif w;
    assert_int_equal(ks_whatif_run(b.a, &b.st, &cpu, 1, &w, &err), KS_OK);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.nthreads, 2);
    assert_int_equal(w.v[0].model_ns, 750 * us);
    assert_int_equal(w.v[1].model_ns, 800 * us);
    assert_int_equal(w.v[0].projected_ns, 350 * us);
    assert_int_equal(w.v[1].projected_ns, 550 * us);
    assert_int_equal(w.v[0].waits_modeled_ns, 250 * us);
    assert_int_equal(w.v[0].waits_unmodeled_ns, 0);
    /* the wait is one row of its own: the main thread's __next__ on the pin-memory thread's batch */
    assert_int_equal(w.nwaits, 1);
    assert_true(w.waits[0].queue && w.waits[0].modeled);
    assert_int_equal(w.waits[0].track, w.threads[0]);
    assert_int_equal(w.waits[0].on_track, w.threads[1]);
    assert_int_equal(w.waits[0].count, 1);
    assert_int_equal(w.waits[0].wait_ns, 250 * us);
    ks_whatif_free(&w);
    ks_shrink lin = {"aten::linear", 0.5};
    assert_int_equal(ks_whatif_run(b.a, &b.st, &lin, 1, &w, &err), KS_OK);
    assert_int_equal(w.v[0].projected_ns, 550 * us);
    assert_int_equal(w.v[1].projected_ns, 665 * us);
    ks_whatif_free(&w);
    unload(&b);
}

static void telemetry_aligned_with_skew(void **state)
{
    (void)state;
    bundle b;
    load(&b, "insights/telemetry.json");
    ks_smi_opts o;
    memset(&o, 0, sizeof o);
    char path[4096];
    snprintf(path, sizeof path, "%s", ks_fixture("insights/smi.csv"));
    o.path = path;
    ks_telemetry tm;
    ks_error err;
    /* without a time zone: refused */
    assert_int_equal(ks_telemetry_load(&o, b.a, &b.st, &tm, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "--smi-tz"));
    o.tz_set = 1;
    assert_int_equal(ks_tz_parse("+02:00", &o.tz_offset_ns), 0);
    assert_int_equal(ks_duration_parse("-1.5s", &o.offset_ns), 0);
    assert_int_equal(ks_telemetry_load(&o, b.a, &b.st, &tm, &err), KS_OK);
    assert_null(tm.reason);
    assert_int_equal(tm.n, 6);
    assert_int_equal(tm.unknown_values, 2);
    assert_string_equal(tm.units_util, "%");
    assert_string_equal(tm.units_mem, "MiB");
    /* samples at 0.25 .. 2.75 s: two per step */
    assert_int_equal(tm.nsteps, 3);
    assert_int_equal(tm.per_step[0].n, 2);
    assert_true(tm.per_step[0].util_min == 10 && tm.per_step[0].util_max == 20 && tm.per_step[0].util_mean == 15);
    /* step 1: utilization N/A in one sample, memory [Not Supported] in the other: unknown, not 0 */
    assert_int_equal(tm.per_step[1].util_known, 1);
    assert_true(tm.per_step[1].util_mean == 40);
    assert_int_equal(tm.per_step[1].mem_known, 1);
    assert_true(tm.per_step[1].mem_used_max == 1200);
    assert_int_equal(tm.window.util_known, 5);
    assert_true(fabs(tm.window.util_mean - 36.0) < 1e-9);
    ks_telemetry_free(&tm);
    /* without the skew correction the samples land 1.5 s late (1.75 .. 4.25 s): none in step 0,
     * the first one alone in step 1 */
    o.offset_ns = 0;
    assert_int_equal(ks_telemetry_load(&o, b.a, &b.st, &tm, &err), KS_OK);
    assert_int_equal(tm.per_step[0].n, 0);
    assert_int_equal(tm.per_step[1].n, 1);
    assert_true(tm.per_step[1].util_mean == 10);
    assert_int_equal(tm.per_step[2].n, 2);
    ks_telemetry_free(&tm);
    unload(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_warmup_and_breakdown),
        cmocka_unit_test(breakdown_point_by_point),
        cmocka_unit_test(breakdown_with_nested_slices),
        cmocka_unit_test(gap_threshold_is_strict),
        cmocka_unit_test(gaps_attributed_to_data_loading),
        cmocka_unit_test(repeated_upload_is_found),
        cmocka_unit_test(tiny_kernels_are_found),
        cmocka_unit_test(sync_in_the_loop_is_found),
        cmocka_unit_test(blocking_calls_of_every_platform),
        cmocka_unit_test(cpu_only_trace),
        cmocka_unit_test(windows),
        cmocka_unit_test(default_window),
        cmocka_unit_test(whatif_seed_example),
        cmocka_unit_test(threads_tie_backward_work),
        cmocka_unit_test(gaps_every_thread),
        cmocka_unit_test(gaps_steady_threads_split_once),
        cmocka_unit_test(whatif_every_thread),
        cmocka_unit_test(whatif_waits_between_threads),
        cmocka_unit_test(pin_memory_queue),
        cmocka_unit_test(telemetry_aligned_with_skew),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
