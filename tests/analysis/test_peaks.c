/* tests/analysis/test_peaks.c: the device peak table (ks_peak_match) matched from the names the
 * drivers write in deviceProperties (those of the real traces we hold, and the spellings of the
 * other parts of the table), with the total memory deciding where one name covers two parts, and
 * the peak an op is held to by its data type (ks_peak_tflops). Expected rows are the datasheet
 * figures of docs/analysis.md, "Peaks and the roofline". */
#include "analysis_test.h"
#include "kinesift/kernels.h"

#define GIB (1024LL * 1024 * 1024)

static const char *match(const char *name, int64_t mem)
{
    const ks_peak *p = ks_peak_match(name, mem);
    return p ? p->name : NULL;
}

static void names_of_the_real_traces(void **state)
{
    (void)state;
    /* tracelens/h100: "NVIDIA H100 80GB HBM3", the SXM part */
    const ks_peak *p = ks_peak_match("NVIDIA H100 80GB HBM3", 85018279936LL);
    assert_non_null(p);
    assert_string_equal(p->name, "NVIDIA H100 SXM");
    assert_true(p->fp16 == 989.4 && p->fp32 == 66.9 && p->tbps == 3.35);
    assert_non_null(p->source);
    /* tracelens/b200 */
    assert_string_equal(match("NVIDIA B200", 191503138816LL), "NVIDIA B200");
    /* hta: an A100 of 40 GB whose board name says neither SXM nor PCIe: the SXM part by memory */
    p = ks_peak_match("NVIDIA A100-PG509-200", 42297524224LL);
    assert_non_null(p);
    assert_string_equal(p->name, "NVIDIA A100 SXM 40GB");
    assert_true(p->tbps == 1.555 && p->fp8 == 0);
    assert_string_equal(match("Tesla V100-SXM2-32GB", 34079637504LL), "NVIDIA V100 SXM2");
    assert_string_equal(match("AMD Instinct MI300X", 206141652992LL), "AMD Instinct MI300X");
    assert_string_equal(match("AMD Instinct MI210", 68702699520LL), "AMD Instinct MI210");
    /* hta/amd_trace: an MI250 that ROCm names "AMD Radeon Graphics": not matched, no roofline */
    assert_null(match("AMD Radeon Graphics", 68702699520LL));
    /* hta/mtia_inference_trace */
    assert_null(match("ARTEMIS", 0));
}

static void other_spellings(void **state)
{
    (void)state;
    assert_string_equal(match("NVIDIA H100 PCIe", 85520809984LL), "NVIDIA H100 PCIe");
    assert_null(match("NVIDIA H100 NVL", 100485038080LL));
    assert_string_equal(match("NVIDIA H200", 150754820096LL), "NVIDIA H200 SXM");
    assert_null(match("NVIDIA H200 NVL", 150754820096LL));
    /* A100: the memory picks the row, for either spelling of PCIe */
    assert_string_equal(match("NVIDIA A100-SXM4-80GB", 85 * GIB), "NVIDIA A100 SXM 80GB");
    assert_string_equal(match("NVIDIA A100-SXM4-40GB", 40 * GIB), "NVIDIA A100 SXM 40GB");
    assert_string_equal(match("NVIDIA A100-PCIE-40GB", 40 * GIB), "NVIDIA A100 PCIe 40GB");
    assert_string_equal(match("NVIDIA A100 80GB PCIe", 80 * GIB), "NVIDIA A100 PCIe 80GB");
    assert_true(ks_peak_match("NVIDIA A100-SXM4-80GB", 85 * GIB)->tbps == 2.039);
    assert_true(ks_peak_match("NVIDIA A100 80GB PCIe", 80 * GIB)->tbps == 1.935);
    /* the memory decides and is not known: no row rather than a guess */
    assert_null(match("NVIDIA A100-SXM4-40GB", 0));
    assert_string_equal(match("Tesla V100-PCIE-16GB", 16 * GIB), "NVIDIA V100 PCIe");
    assert_string_equal(match("NVIDIA L4", 23 * GIB), "NVIDIA L4");
    assert_string_equal(match("NVIDIA L40S", 48 * GIB), "NVIDIA L40S");
    assert_null(match("NVIDIA L40", 48 * GIB));
    assert_string_equal(match("AMD Instinct MI250X", 64 * GIB), "AMD Instinct MI250X");
    assert_string_equal(match("AMD Instinct MI250X / MI250", 64 * GIB), "AMD Instinct MI250X");
    assert_null(match("NVIDIA GeForce RTX 4090", 24 * GIB));
    assert_null(match("", 0));
    assert_null(match(NULL, 80 * GIB));
}

static ks_op_cost typed(const char *type, ks_work_class cls)
{
    ks_op_cost c = {0};
    c.known = 1;
    c.flops = 1e9;
    c.bytes = 1e6;
    c.cls = (uint8_t)cls;
    snprintf(c.dtype, sizeof c.dtype, "%s", type);
    c.dtype_bytes = (uint8_t)ks_input_type_size(type);
    return c;
}

static void peak_by_type(void **state)
{
    (void)state;
    const ks_peak *h = ks_peak_match("NVIDIA H100 80GB HBM3", 85018279936LL);
    const ks_peak *a = ks_peak_match("NVIDIA A100-SXM4-80GB", 85 * GIB);
    assert_non_null(h);
    assert_non_null(a);
    ks_op_cost c = typed("c10::BFloat16", KS_WC_GEMM);
    assert_true(ks_peak_tflops(h, &c) == 989.4);
    c = typed("c10::Half", KS_WC_ATTENTION);
    assert_true(ks_peak_tflops(h, &c) == 989.4);
    /* float: FP32 for matmuls, TF32 for convolutions (cuDNN's default) */
    c = typed("float", KS_WC_GEMM);
    assert_true(ks_peak_tflops(h, &c) == 66.9);
    c = typed("float", KS_WC_CONV);
    assert_true(ks_peak_tflops(h, &c) == 494.7);
    c = typed("double", KS_WC_GEMM);
    assert_true(ks_peak_tflops(h, &c) == 33.5);
    c = typed("c10::Float8_e4m3fn", KS_WC_GEMM);
    assert_true(ks_peak_tflops(h, &c) == 1978.9);
    /* the A100 has no FP8 path: held to its BF16/FP16 peak */
    assert_true(ks_peak_tflops(a, &c) == 312);
    /* an integer type, or no type: no compute peak */
    c = typed("long int", KS_WC_ELEMENTWISE);
    assert_true(ks_peak_tflops(h, &c) == 0);
    c = typed("", KS_WC_GEMM);
    assert_true(ks_peak_tflops(h, &c) == 0);
    c = typed("c10::BFloat16", KS_WC_GEMM);
    assert_true(ks_peak_tflops(NULL, &c) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_of_the_real_traces),
        cmocka_unit_test(other_spellings),
        cmocka_unit_test(peak_by_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
