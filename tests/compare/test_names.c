/* tests/compare/test_names.c: kernel name normalisation (diff --normalize-kernels, gate
 * --normalize-kernels): template arguments, argument lists and the return type go; other
 * parentheses and unbalanced names stay. */
#include "ks_test.h"

#include "kinesift/compare.h"

static void expect(const char *in, const char *want)
{
    char *got = ks_kernel_name_normalize(in);
    if (strcmp(got, want) != 0)
        fail_msg("normalize(\"%s\") = \"%s\", want \"%s\"", in, got, want);
    free(got);
}

static void pytorch_kernels(void **state)
{
    (void)state;
    expect("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
           "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
           "at::native::vectorized_elementwise_kernel");
    expect("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int>, "
           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<int>, at::detail::Array<char*, 3>)",
           "at::native::vectorized_elementwise_kernel");
    /* a lambda inside the template arguments, with parentheses of its own */
    expect("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::MulFunctor<float> "
           ">(at::TensorIteratorBase&, at::native::MulFunctor<float> const&)::{lambda(int)#1}>(int, "
           "at::native::gpu_kernel_impl<at::native::MulFunctor<float> >(at::TensorIteratorBase&, "
           "at::native::MulFunctor<float> const&)::{lambda(int)#1})",
           "at::native::elementwise_kernel");
    expect("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x3_tn_align4>("
           "cutlass_80_tensorop_s1688gemm_128x128_16x3_tn_align4::Params)",
           "cutlass::Kernel");
}

static void plain_names_unchanged(void **state)
{
    (void)state;
    expect("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn");
    expect("triton_poi_fused_add_0", "triton_poi_fused_add_0");
    expect("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

static void other_parentheses_kept(void **state)
{
    (void)state;
    expect("void at::native::(anonymous namespace)::upsample_kernel<float>(int, float*)",
           "at::native::(anonymous namespace)::upsample_kernel");
    expect("void k<int>", "k");
    expect("  void spaced<2> ( int )  ", "spaced");
}

static void degenerate_names(void **state)
{
    (void)state;
    expect("a<b", "a<b");          /* unbalanced: the angle bracket stays */
    expect("a>b<c", "a>b<c");
    expect("(int)", "(int)");      /* nothing would be left: the name itself */
    expect("<>", "<>");
    expect("void", "void");
    expect("", "");
    expect("f(a(b)", "f(a(b)");    /* unbalanced parentheses: kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pytorch_kernels),
        cmocka_unit_test(plain_names_unchanged),
        cmocka_unit_test(other_parentheses_kept),
        cmocka_unit_test(degenerate_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
