/* tests/analysis/test_gpu.c: CPU->GPU links, GPU time per op and label (direct/subtree, union and
 * sum; an op named by External id only, also asked from several threads at once), per-device
 * unions, the platform vote, and the CPU-only case, on fixtures/analysis/gpu_links.json,
 * cpu_only.json and traces written here. Expected values are derived by hand in the comments. */
#include <pthread.h>

#include "analysis_test.h"
#include "common/util.h"

static void device_unions(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/gpu_links.json"));
    ks_analysis *a = analyse(t, NULL);
    assert_null(a->gpu_reason);
    assert_int_equal(a->ngpu, 1);
    const ks_gpu_row *g = &a->gpu[0];
    assert_int_equal(g->device, 0);
    /* work: K1 [100,200) K2 [150,250) M [300,320) K5 [400,410) nccl [500,600) K6 [700,710);
     * the Stream Sync [800,850) is waiting, not work */
    assert_int_equal(g->first_ns, 100 * US);
    assert_int_equal(g->last_ns, 710 * US);
    assert_int_equal(g->span_ns, 610 * US);
    assert_int_equal(g->busy_ns, 290 * US); /* 150 + 20 + 10 + 100 + 10: K1 and K2 overlap */
    assert_int_equal(g->idle_ns, 320 * US);
    assert_int_equal(g->kernel_ns, 270 * US);
    assert_int_equal(g->memcpy_ns, 20 * US);
    assert_int_equal(g->memset_ns, 0);
    assert_int_equal(g->comm_ns, 100 * US);
    assert_int_equal(g->streams, 2);
    assert_int_equal(g->kernels, 5);
    assert_int_equal(g->memcpys, 1);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void links_and_gpu_time_per_op(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/gpu_links.json"));
    ks_analysis *a = analyse(t, NULL);
    const ks_link_stats *l = &a->links;
    assert_int_equal(l->gpu_events, 6);
    assert_int_equal(l->linked_by_correlation, 3); /* K1, K2, the memcpy */
    assert_int_equal(l->linked_by_flow, 1);        /* K6 through the ac2g flow 77 */
    assert_int_equal(l->unlinked_gpu, 2);          /* K5 (correlation 99 unknown), NCCL */
    assert_int_equal(l->launches, 4);              /* runtime calls carrying a correlation */
    assert_int_equal(l->launches_without_gpu, 1);  /* correlation 3: its kernel is missing */
    assert_int_equal(ks_diag_total(&a->diag, "links.launch_without_gpu"), 1);
    assert_int_equal(ks_diag_total(&a->diag, "links.gpu_without_launch"), 2);

    /* aten::mm launched K1, K2 and the memcpy itself: union 150 + 20, sum 100 + 100 + 20 */
    const ks_op_row *mm = OP(a, "aten::mm");
    assert_int_equal(ks_op_row_gpu(mm).direct_ns, 170 * US);
    assert_int_equal(ks_op_row_gpu(mm).direct_sum_ns, 220 * US);
    assert_int_equal(ks_op_row_gpu(mm).subtree_ns, 170 * US);
    /* the launch calls themselves: K1, K2 and K6 (R3 launched nothing) */
    const ks_op_row *lk = OP(a, "cudaLaunchKernel");
    assert_int_equal(lk->count, 4);
    assert_int_equal(ks_op_row_gpu(lk).direct_ns, 160 * US);
    assert_int_equal(ks_op_row_gpu(lk).direct_sum_ns, 210 * US);
    /* the label: K6 directly (its launch sits right under it), everything in its subtree */
    const ks_op_row *lab = LABEL(a, "outer_label", "user_annotation");
    assert_int_equal(ks_op_row_gpu(lab).direct_ns, 10 * US);
    assert_int_equal(ks_op_row_gpu(lab).subtree_ns, 180 * US);
    assert_int_equal(ks_op_row_gpu(lab).subtree_sum_ns, 230 * US);
    /* its GPU twin on stream 7 [99,321) encloses K1 and the memcpy */
    const ks_op_row *glab = LABEL(a, "outer_label", "gpu_user_annotation");
    assert_int_equal(ks_op_row_gpu(glab).direct_ns, 120 * US);
    assert_int_equal(ks_op_row_gpu(glab).subtree_ns, 120 * US);
    assert_int_equal(glab->self_ns, 102 * US);
    /* the launcher of K1 is the first cudaLaunchKernel, issued by aten::mm */
    const ks_track *s7 = ks_test_track(t, 0, 7);
    ks_slice_ref r = ks_analysis_launcher(a, (uint32_t)(s7 - t->tracks), 0);
    assert_true(r.s >= 0);
    const ks_timeline *tl = &a->tl[r.tl];
    assert_int_equal(ks_event_corr(t, ks_slice_event(t, tl, &tl->s[r.s])), 1);
    int32_t op = ks_analysis_launching_op(a, r);
    assert_string_equal(ks_trace_str(t, ks_slice_event(t, tl, &tl->s[op])->name), "aten::mm");
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* A launch call outside every op and label names its op by External id only: the op gets the
 * kernel as direct and subtree time and the label around the op as subtree time, though neither
 * encloses the call (the op's chain is credited on its own; when the op encloses the call, the
 * call's chain covers it). */
static void op_by_external_id_gets_its_chain(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":90},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::foo\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":40,"
        "\"args\":{\"External id\":5}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":3,"
        "\"args\":{\"External id\":5,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":10,"
        "\"args\":{\"correlation\":1,\"device\":0,\"stream\":7}}]");
    ks_analysis *a = analyse(t, NULL);
    const ks_op_row *foo = OP(a, "aten::foo");
    assert_int_equal(ks_op_row_gpu(foo).direct_ns, 10 * US);
    assert_int_equal(ks_op_row_gpu(foo).subtree_ns, 10 * US);
    const ks_op_row *l = LABEL(a, "L", "user_annotation");
    assert_int_equal(ks_op_row_gpu(l).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(l).subtree_ns, 10 * US);
    const ks_op_row *call = OP(a, "cudaLaunchKernel");
    assert_int_equal(ks_op_row_gpu(call).direct_ns, 10 * US);
    assert_int_equal(ks_op_row_gpu(call).subtree_ns, 10 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* The index of ops by External id is made by the first pass that needs it; passes run on several
 * threads, so four threads asking at once (the index not made yet: no tables) must each get every
 * launch's op, as one thread does. 600 launches outside their ops, 50 analyses. */
typedef struct ask_ctx {
    const ks_analysis *a;
    const ks_slice_ref *launch;
    const int32_t *want;
    size_t n;
    pthread_barrier_t *go;
    int wrong;
} ask_ctx;

static void *ask_all(void *arg)
{
    ask_ctx *c = arg;
    pthread_barrier_wait(c->go);
    for (size_t i = 0; i < c->n; i++)
        c->wrong += ks_analysis_launching_op(c->a, c->launch[i]) != c->want[i];
    return NULL;
}

static void ops_by_external_id_from_many_threads(void **state)
{
    (void)state;
    enum { N = 600, THREADS = 4 };
    ks_buf b = {0};
    ks_buf_puts(&b, "[");
    for (int i = 0; i < N; i++) /* each launch just before its op, on the same thread */
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                          "\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"External id\":%d,\"correlation\":%d}},"
                          "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                          "\"dur\":5,\"args\":{\"External id\":%d}},"
                          "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,"
                          "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}}",
                      i ? "," : "", 10 * i, i + 1, i + 1, i, 10 * i + 3, i + 1, 10 * i + 4, i + 1);
    ks_buf_puts(&b, "]");
    ks_trace *t = ks_test_parse(b.p);
    free(b.p);
    ks_analysis_opts o;
    ks_analysis_opts_init(&o);
    o.tables_later = 1; /* the tables would make the index */
    const ks_track *k = ks_test_track(t, 0, 7);
    ks_slice_ref launch[N];
    int32_t want[N];
    for (int round = 0; round < 50; round++) {
        ks_analysis *a = analyse(t, &o);
        for (size_t i = 0; i < N; i++) {
            launch[i] = ks_analysis_launcher(a, (uint32_t)(k - t->tracks), i);
            assert_true(launch[i].s >= 0);
        }
        if (round == 0) { /* on one thread, checked by name: kernel i was launched for aten::op<i> */
            for (size_t i = 0; i < N; i++) {
                want[i] = ks_analysis_launching_op(a, launch[i]);
                assert_true(want[i] >= 0);
                const ks_timeline *tl = &a->tl[launch[i].tl];
                char name[32];
                snprintf(name, sizeof name, "aten::op%zu", i);
                assert_string_equal(ks_trace_str(t, ks_slice_event(t, tl, &tl->s[want[i]])->name), name);
            }
        } else {
            pthread_barrier_t go;
            pthread_barrier_init(&go, NULL, THREADS);
            ask_ctx c[THREADS];
            pthread_t th[THREADS];
            for (int j = 0; j < THREADS; j++) {
                c[j] = (ask_ctx){a, launch, want, N, &go, 0};
                assert_int_equal(pthread_create(&th[j], NULL, ask_all, &c[j]), 0);
            }
            for (int j = 0; j < THREADS; j++) {
                pthread_join(th[j], NULL);
                if (c[j].wrong)
                    fail_msg("round %d, thread %d: %d launches with another op", round, j, c[j].wrong);
            }
            pthread_barrier_destroy(&go);
        }
        ks_analysis_free(a);
    }
    ks_trace_free(t);
}

/* A runtime call of name n (category c) at ts on the main thread, into b. */
static void put_call(ks_buf *b, const char *c, const char *n, int ts)
{
    ks_buf_printf(b, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}",
                   b->n > 1 ? "," : "", c, n, ts);
}

/* The platform is the one most runtime and driver calls name, each call a vote: more distinct names
 * than ks_analysis_platform remembers verdicts for, and one name under two categories, one of which
 * (mtia_runtime) votes and the other (cuda_runtime, a name that is neither CUDA's nor HIP's) does
 * not. The counts differ by one, so one call counted wrongly changes the answer. */
static void platform_by_votes(void **state)
{
    (void)state;
    for (int cuda = 299; cuda <= 301; cuda += 2) {
        ks_buf b = {0};
        ks_buf_puts(&b, "[");
        int ts = 0;
        for (int i = 0; i < 300; i++) {
            char name[32];
            snprintf(name, sizeof name, "hipOp%d", i); /* 300 names, one call each */
            put_call(&b, "cuda_runtime", name, ts++);
            if (i < cuda)
                put_call(&b, "cuda_runtime", "cudaLaunchKernel", ts++);
        }
        for (int i = 300; i < cuda; i++) /* the CUDA calls beyond the 300th */
            put_call(&b, "cuda_runtime", "cudaLaunchKernel", ts++);
        ks_buf_puts(&b, "]");
        ks_trace *t = ks_test_parse(ks_buf_cstr(&b));
        ks_analysis *a = analyse(t, NULL);
        /* 300 HIP calls against 299, then 301, CUDA calls */
        assert_string_equal(ks_analysis_platform(a), cuda == 299 ? "ROCm" : "CUDA");
        ks_analysis_free(a);
        ks_trace_free(t);
        ks_buf_free(&b);
    }
    /* "launch" under mtia_runtime votes MTIA (3), under cuda_runtime nothing (5): CUDA has 2 */
    ks_buf b = {0};
    ks_buf_puts(&b, "[");
    int ts = 0;
    for (int i = 0; i < 5; i++) {
        put_call(&b, "cuda_runtime", "launch", ts++);
        if (i < 3)
            put_call(&b, "mtia_runtime", "launch", ts++);
        if (i < 2)
            put_call(&b, "cuda_runtime", "cudaLaunchKernel", ts++);
    }
    ks_buf_puts(&b, "]");
    ks_trace *t = ks_test_parse(ks_buf_cstr(&b));
    ks_analysis *a = analyse(t, NULL);
    assert_string_equal(ks_analysis_platform(a), "MTIA");
    ks_analysis_free(a);
    ks_trace_free(t);
    ks_buf_free(&b);
}

static void kernel_table(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/gpu_links.json"));
    ks_analysis *a = analyse(t, NULL);
    assert_int_equal(a->nkernels, 6); /* K1 K2 K5 K6 NCCL memcpy; no Stream Sync */
    uint64_t count = 0, unlinked = 0;
    ks_ns total = 0;
    for (size_t i = 0; i < a->nkernels; i++) {
        const ks_kernel_row *k = &a->kernels[i];
        count += k->count;
        unlinked += k->unlinked;
        total += k->total_ns;
        const char *n = ks_trace_str(t, k->name);
        if (k->kind == KS_K_MEMCPY)
            assert_int_equal(k->bytes, 1024);
        else
            assert_int_equal(k->bytes, -1);
        assert_string_not_equal(n, "Stream Sync");
    }
    assert_int_equal(count, 6);
    assert_int_equal(unlinked, 2);
    assert_int_equal(total, (100 + 100 + 20 + 10 + 100 + 10) * US);
    /* sorted by total time: the two 100 us kernels and the NCCL kernel first */
    assert_int_equal(a->kernels[0].total_ns, 100 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* direct GPU time goes to the innermost operator or label; Python frames get subtree time only */
static void with_stack_direct(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/with_stack.json"));
    ks_analysis *a = analyse(t, NULL);
    /* K1 [200,300): aten::mm, under model.py forward under train.py step */
    const ks_op_row *mm = OP(a, "aten::mm");
    assert_int_equal(ks_op_row_gpu(mm).direct_ns, 100 * US);
    assert_int_equal(ks_op_row_gpu(mm).subtree_ns, 100 * US);
    const ks_op_row *fwd = OP(a, "model.py(20): forward");
    assert_int_equal(ks_op_row_gpu(fwd).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(fwd).direct_sum_ns, 0);
    assert_int_equal(ks_op_row_gpu(fwd).subtree_ns, 100 * US);
    /* K2 [300,350): no op above cuLaunchKernel, the call itself owns it */
    const ks_op_row *run = OP(a, "triton.py(5): run");
    assert_int_equal(ks_op_row_gpu(run).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(run).subtree_ns, 50 * US);
    assert_int_equal(ks_op_row_gpu(OP(a, "cuLaunchKernel")).direct_ns, 50 * US);
    const ks_op_row *step = OP(a, "train.py(10): step");
    assert_int_equal(ks_op_row_gpu(step).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(step).subtree_ns, 150 * US); /* K1 and K2 */
    /* K3 [400,420): the label above the Python frame owns it */
    assert_int_equal(ks_op_row_gpu(LABEL(a, "my_label", "user_annotation")).direct_ns, 20 * US);
    assert_int_equal(ks_op_row_gpu(OP(a, "my_label")).direct_ns, 20 * US);
    const ks_op_row *g = OP(a, "f.py(1): g");
    assert_int_equal(ks_op_row_gpu(g).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(g).subtree_ns, 20 * US);
    /* K4 [450,460): aten::add above the hook's frame owns it */
    assert_int_equal(ks_op_row_gpu(OP(a, "aten::add")).direct_ns, 10 * US);
    assert_int_equal(ks_op_row_gpu(OP(a, "hook.py(3): h")).direct_ns, 0);
    assert_int_equal(ks_op_row_gpu(OP(a, "hook.py(3): h")).subtree_ns, 10 * US);
    /* every ns of GPU work has exactly one direct owner among operators and labels, or its launch
     * call when it has none: 100 + 20 + 10 by ops and labels, 50 by the call */
    ks_ns by_ops = 0;
    for (size_t i = 0; i < a->nops; i++) {
        int kind = a->ops[i].kind;
        if (kind == KS_K_CPU_OP || kind == KS_K_USER_ANNOTATION)
            by_ops += ks_op_row_gpu(&a->ops[i]).direct_sum_ns;
        if (kind == KS_K_PYTHON)
            assert_int_equal(ks_op_row_gpu(&a->ops[i]).direct_sum_ns, 0);
    }
    assert_int_equal(by_ops, 130 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void cpu_only_is_not_observed(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/cpu_only.json"));
    ks_analysis *a = analyse(t, NULL);
    assert_null(a->gpu);
    assert_non_null(a->gpu_reason);
    assert_non_null(strstr(a->gpu_reason, "not observed"));
    assert_int_equal(a->links.gpu_events, 0);
    assert_int_equal(a->nkernels, 0);
    assert_int_equal(OP(a, "aten::add")->self_ns, 20 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void comm_kernel_names(void **state)
{
    (void)state;
    assert_true(ks_is_comm_kernel("ncclKernel_AllReduce_RING_LL_Sum_float"));
    assert_true(ks_is_comm_kernel("ncclDevKernel_AllGather"));
    assert_true(ks_is_comm_kernel("void rcclKernel<...>"));
    assert_true(ks_is_comm_kernel("NCCL"));
    assert_false(ks_is_comm_kernel("volta_sgemm_128x64_nn"));
    assert_false(ks_is_comm_kernel("ncc"));
    assert_false(ks_is_comm_kernel(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_unions),
        cmocka_unit_test(links_and_gpu_time_per_op),
        cmocka_unit_test(kernel_table),
        cmocka_unit_test(platform_by_votes),
        cmocka_unit_test(op_by_external_id_gets_its_chain),
        cmocka_unit_test(ops_by_external_id_from_many_threads),
        cmocka_unit_test(with_stack_direct),
        cmocka_unit_test(cpu_only_is_not_observed),
        cmocka_unit_test(comm_kernel_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
