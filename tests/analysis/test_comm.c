/* tests/analysis/test_comm.c: the communication classification (kinesift/comm.h): kernel and op
 * names, collective kinds, nccl-tests bus bandwidth factors, dtype sizes, and the collective
 * metadata the parser keeps (ks_trace.colls) making a kernel communication whatever its name. */
#include <ctype.h>

#include "analysis_test.h"
#include "analysis/analysis_int.h"
#include "kinesift/comm.h"
#include "kinesift/insights.h"

static void kernel_names(void **state)
{
    (void)state;
    assert_true(ks_comm_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"));
    assert_true(ks_comm_kernel_name("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"));
    assert_true(ks_comm_kernel_name("void rcclKernel<...>"));
    assert_true(ks_comm_kernel_name("HcclAllReduce"));
    assert_true(ks_comm_kernel_name("mscclKernel_Sum_float"));
    assert_false(ks_comm_kernel_name("volta_sgemm_128x64_nn"));
    assert_false(ks_comm_kernel_name("ncc"));
    assert_false(ks_comm_kernel_name(""));
    assert_int_equal(ks_is_comm_kernel("NCCL"), 1);
    /* at either end, any case; "ccl" after another letter, or alone, is none of them */
    assert_true(ks_comm_kernel_name("NcCl"));
    assert_true(ks_comm_kernel_name("void all_reduce_msCCL"));
    assert_false(ks_comm_kernel_name("ccl_kernel"));
    assert_false(ks_comm_kernel_name("sccl_kernel"));
    assert_false(ks_comm_kernel_name("xccl"));
    assert_false(ks_comm_kernel_name("n"));
    assert_false(ks_comm_kernel_name("nc"));
    assert_false(ks_comm_kernel_name("ncc\x01l"));
}

/* the word test, against the plain definition (each word compared lower-cased at every position)
 * on names drawn from the letters the words are made of, a few others and bytes with 0x20 set or
 * cleared: what ks_comm_kernel_name finds in one pass is what that finds */
static int plain_has(const char *s, const char *w)
{
    size_t n = strlen(w), len = strlen(s);
    for (size_t i = 0; i + n <= len; i++) {
        size_t j = 0;
        while (j < n && tolower((unsigned char)s[i + j]) == w[j])
            j++;
        if (j == n)
            return 1;
    }
    return 0;
}

static void kernel_names_as_defined(void **state)
{
    (void)state;
    static const char alphabet[] = "nrhmsclNRHMSCLxX_ \x0c\x03\x4c\x6c\xce\xcc";
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    char name[24];
    for (int k = 0; k < 200000; k++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t len = (size_t)(seed >> 59) % 12;
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            name[i] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
        }
        name[len] = 0;
        int want = plain_has(name, "nccl") || plain_has(name, "rccl") || plain_has(name, "hccl") ||
                   plain_has(name, "msccl");
        if (ks_comm_kernel_name(name) != want)
            fail_msg("\"%s\": %d, the definition says %d", name, ks_comm_kernel_name(name), want);
    }
}

static void op_names(void **state)
{
    (void)state;
    const char *yes[] = {"record_param_comms", "c10d::allreduce_", "nccl:all_reduce", "gloo:broadcast",
                         "hccl:all_gather", "symm_mem::one_shot_all_reduce", "vllm::all_reduce",
                         "trtllm::allreduce", "_c10d_functional::all_gather_into_tensor"};
    const char *no[] = {"aten::mm", "ProfilerStep#3", "cudaLaunchKernel", "reduce", "aten::all",
                        "::all_reduce", "my_nccl_helper"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_true(ks_comm_op_name(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(ks_comm_op_name(no[i]));
}

static void kinds_and_busbw(void **state)
{
    (void)state;
    assert_int_equal(ks_coll_kind_of("allreduce"), KS_COLL_ALLREDUCE);
    assert_int_equal(ks_coll_kind_of("all_reduce"), KS_COLL_ALLREDUCE);
    assert_int_equal(ks_coll_kind_of("_allgather_base"), KS_COLL_ALLGATHER);
    assert_int_equal(ks_coll_kind_of("reduce_scatter_tensor_coalesced"), KS_COLL_REDUCESCATTER);
    assert_int_equal(ks_coll_kind_of("ncclDevKernel_ReduceScatter_Sum_f32"), KS_COLL_REDUCESCATTER);
    assert_int_equal(ks_coll_kind_of("broadcast"), KS_COLL_BROADCAST);
    assert_int_equal(ks_coll_kind_of("reduce"), KS_COLL_REDUCE);
    assert_int_equal(ks_coll_kind_of("all_to_all"), KS_COLL_ALLTOALL);
    assert_int_equal(ks_coll_kind_of("wait"), KS_COLL_OTHER);
    int64_t num, den;
    ks_coll_busbw_factor(KS_COLL_ALLREDUCE, 8, &num, &den); /* 2 * 7 / 8 */
    assert_int_equal(num, 14);
    assert_int_equal(den, 8);
    ks_coll_busbw_factor(KS_COLL_ALLGATHER, 4, &num, &den);
    assert_int_equal(num, 3);
    assert_int_equal(den, 4);
    ks_coll_busbw_factor(KS_COLL_ALLTOALL, 4, &num, &den);
    assert_int_equal(num, 3);
    ks_coll_busbw_factor(KS_COLL_BROADCAST, 4, &num, &den);
    assert_int_equal(num, 1);
    assert_int_equal(den, 1);
    ks_coll_busbw_factor(KS_COLL_OTHER, 4, &num, &den);
    assert_int_equal(num, 0);
    assert_int_equal(ks_dtype_size("Float"), 4);
    assert_int_equal(ks_dtype_size("BFloat16"), 2);
    assert_int_equal(ks_dtype_size("Double"), 8);
    assert_int_equal(ks_dtype_size("Float8_e4m3fn"), 1);
    assert_int_equal(ks_dtype_size("Mystery"), 0);
}

/* a kernel without a communication name but with collective metadata is communication; the
 * metadata is kept as written */
static const char *coll_trace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"two_shot_all_reduce_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":200,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"Collective name\":\"allreduce\","
    "\"In msg nelems\":1024,\"Out msg nelems\":1024,\"dtype\":\"BFloat16\",\"Group size\":4,"
    "\"Process Group Name\":\"3\",\"Process Group Ranks\":\"[0, 1, 2, 3]\",\"Seq\":17}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_Broadcast\",\"pid\":0,\"tid\":7,"
    "\"ts\":300,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}}"
    "]}";

static void metadata_kept(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(coll_trace);
    assert_int_equal(t->ncolls, 1);
    const ks_coll_info *c = &t->colls[0];
    assert_ptr_equal(ks_trace_coll(t, c->track, 1), c);
    assert_null(ks_trace_coll(t, c->track, 0));
    assert_string_equal(ks_trace_str(t, c->name), "allreduce");
    assert_string_equal(ks_trace_str(t, c->pg_name), "3");
    assert_string_equal(ks_trace_str(t, c->pg_ranks), "[0, 1, 2, 3]");
    assert_string_equal(ks_trace_str(t, c->dtype), "BFloat16");
    assert_int_equal(c->in_nelems, 1024);
    assert_int_equal(c->out_nelems, 1024);
    assert_int_equal(c->group_size, 4);
    assert_int_equal(c->seq, 17);
    /* communication: the metadata kernel [200,230) and the NCCL one [300,310) = 40 us */
    ks_analysis *a = analyse(t, NULL);
    assert_int_equal(a->ngpu, 1);
    assert_int_equal(a->gpu[0].comm_ns, 40 * US);
    assert_int_equal(a->gpu[0].kernel_ns, 90 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* Hand-worked: "multimem_all_reduce_kernel" has no communication name and no metadata; it is
 * launched (correlation 1) by a cudaLaunchKernel inside "symm_mem::multimem_all_reduce_", so it
 * is communication: [100, 300) on stream 7. A compute kernel "gemm" (correlation 2, launched
 * under aten::mm) runs [250, 400) on stream 8 of the same device. comm = 200 us; exposed = the
 * part with no compute kernel = [100, 250) = 150 us; overlapped = 50 us. The kernel row of the
 * all-reduce counts its one instance as communication, gemm none. With 1 and 3 threads alike. */
static const char *launched_trace =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"symm_mem::multimem_all_reduce_\",\"pid\":1,\"tid\":1,"
    "\"ts\":10,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,"
    "\"dur\":5,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":42,"
    "\"dur\":5,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"multimem_all_reduce_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":100,\"dur\":200,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":8,\"ts\":250,\"dur\":150,"
    "\"args\":{\"device\":0,\"stream\":8,\"correlation\":2}}"
    "]}";

static void launched_by_comm_op(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(launched_trace);
    for (int threads = 1; threads <= 3; threads += 2) {
        ks_analysis_opts o;
        ks_analysis_opts_init(&o);
        o.threads = threads;
        ks_analysis *a = analyse(t, &o);
        assert_int_equal(a->ngpu, 1);
        assert_int_equal(a->gpu[0].comm_ns, 200 * US);
        assert_int_equal(a->gpu[0].comm_exposed_ns, 150 * US);
        assert_int_equal(a->gpu[0].kernel_ns, 300 * US);
        assert_int_equal(a->nkernels, 2);
        for (size_t i = 0; i < a->nkernels; i++)
            assert_int_equal(a->kernels[i].comm,
                             strcmp(ks_trace_str(t, a->kernels[i].name), "gemm") ? 1 : 0);
        /* a window over the compute part only: [260, 400) holds 40 us of communication, all of it
         * under the gemm */
        ks_error err;
        assert_int_equal(ks_analysis_set_window(a, 260 * US, 400 * US, &err), KS_OK);
        assert_int_equal(a->gpu[0].comm_ns, 40 * US);
        assert_int_equal(a->gpu[0].comm_exposed_ns, 0);
        ks_analysis_free(a);
    }
    ks_trace_free(t);
}

/* The marks ks_analyze makes right after the links (analysis/comm.c, ks_comm_mark) are the rule's
 * answers: each event of each GPU track is marked as the rule, asked again with the marks hidden,
 * says; by hand: of launched_trace's kernels the all-reduce (launched by a communication op) is
 * marked, gemm is not; of coll_trace's, the kernel with collective metadata and the NCCL one. On
 * one thread and on three (the links then run beside the tables' CPU pass). */
static void check_marks(const ks_analysis *a, const char *const *comm_names)
{
    const ks_trace *t = a->trace;
    assert_non_null(a->priv->comm);
    ks_comm_cache marked, rule;
    ks_comm_cache_init(&marked, a);
    size_t kernels = 0;
    for (uint32_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        if (tr->kind != KS_TRACK_GPU) {
            assert_null(a->priv->comm[k]);
            continue;
        }
        assert_non_null(a->priv->comm[k]);
        for (uint32_t i = 0; i < tr->n; i++) {
            int m = ks_comm_gpu_event(&marked, k, i);
            uint8_t **keep = a->priv->comm;
            a->priv->comm = NULL;
            ks_comm_cache_init(&rule, a);
            assert_int_equal(m, ks_comm_gpu_event(&rule, k, i));
            ks_comm_cache_free(&rule);
            a->priv->comm = keep;
            if (tr->ev[i].kind != KS_K_KERNEL) {
                assert_int_equal(m, 0);
                continue;
            }
            kernels++;
            int named = 0;
            for (size_t j = 0; comm_names[j]; j++)
                named |= !strcmp(ks_trace_str(t, tr->ev[i].name), comm_names[j]);
            assert_int_equal(m, named);
        }
    }
    assert_true(kernels >= 2);
    ks_comm_cache_free(&marked);
}

static void marks_follow_the_rule(void **state)
{
    (void)state;
    static const char *const launched[] = {"multimem_all_reduce_kernel", NULL};
    static const char *const coll[] = {"two_shot_all_reduce_kernel", "ncclKernel_Broadcast", NULL};
    const char *traces[] = {launched_trace, coll_trace};
    const char *const *names[] = {launched, coll};
    for (int i = 0; i < 2; i++) {
        ks_trace *t = ks_test_parse(traces[i]);
        for (int threads = 1; threads <= 3; threads += 2) {
            ks_analysis_opts o;
            ks_analysis_opts_init(&o);
            o.threads = threads;
            ks_analysis *a = analyse(t, &o);
            check_marks(a, names[i]);
            ks_analysis_free(a);
        }
        ks_trace_free(t);
    }
}

/* Hand-worked: ncclKernel_SendRecv [0, 800) us and a compute kernel gemm [800, 900) on one stream.
 * The NCCL kernel holds 89 % of the GPU busy time, but it is communication: no dominant_kernel
 * (compute advice) names it, and gemm (100 of 900 us, 11 %) is under the 40 % that dominance
 * needs. Exposed communication = 800 us of the 900 us span (89 %, over the 5 % floor):
 * exposed_communication is stated. */
static void comm_kernel_gets_no_compute_advice(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_SendRecv\",\"pid\":0,\"tid\":7,\"ts\":0,"
        "\"dur\":800,\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":800,\"dur\":100,"
        "\"args\":{\"device\":0,\"stream\":7}}]}");
    ks_analysis *a = analyse(t, NULL);
    ks_steps st;
    ks_error err;
    ks_diagnoses d;
    assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
    ks_diagnose(a, &st, NULL, &d);
    assert_int_equal(a->gpu[0].comm_exposed_ns, 800 * US);
    int exposed = 0;
    for (size_t i = 0; i < d.n; i++) {
        assert_string_not_equal(d.v[i].id, "dominant_kernel");
        if (!strcmp(d.v[i].id, "exposed_communication")) {
            exposed++;
            assert_non_null(strstr(d.v[i].evidence, "(89% of the GPU span"));
        }
    }
    assert_int_equal(exposed, 1);
    ks_diagnoses_free(&d);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_names),
        cmocka_unit_test(kernel_names_as_defined),
        cmocka_unit_test(op_names),
        cmocka_unit_test(kinds_and_busbw),
        cmocka_unit_test(metadata_kept),
        cmocka_unit_test(launched_by_comm_op),
        cmocka_unit_test(marks_follow_the_rule),
        cmocka_unit_test(comm_kernel_gets_no_compute_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
