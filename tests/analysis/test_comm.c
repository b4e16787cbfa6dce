/* tests/analysis/test_comm.c: the communication classification (kinesift/comm.h): kernel and op
 * names, collective kinds, nccl-tests bus bandwidth factors, dtype sizes, and the collective
 * metadata the parser keeps (ks_trace.colls) making a kernel communication whatever its name. */
#include "analysis_test.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_names),
        cmocka_unit_test(op_names),
        cmocka_unit_test(kinds_and_busbw),
        cmocka_unit_test(metadata_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
