/* tests/analysis/test_kernels.c: the kernel view. Work classes of real kernel and op names (each
 * expected class is the vendor's meaning of the name, written by hand), every entry of the op
 * table found (a table out of order would lose some to the search by halves), and the GPU time per
 * class per device in overlapping windows on a trace written here, worked out in the comments. */
#include "analysis_test.h"
#include "common/util.h"
#include "kinesift/kernels.h"

typedef struct named {
    const char *name;
    ks_work_class cls;
} named;

static void kernel_names(void **state)
{
    (void)state;
    static const named k[] = {
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", KS_WC_GEMM},
        {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)", KS_WC_GEMM},
        {"nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", KS_WC_GEMM},
        {"ampere_sgemm_128x64_nn", KS_WC_GEMM},
        {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1", KS_WC_GEMM},
        {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>>>", KS_WC_GEMM},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(pytorch_flash::Flash_fwd_params)", KS_WC_ATTENTION},
        {"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext", KS_WC_ATTENTION},
        {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", KS_WC_ATTENTION},
        {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4", KS_WC_CONV},
        {"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64", KS_WC_CONV},
        {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistage", KS_WC_CONV},
        {"cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", KS_WC_CONV},
        {"igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2", KS_WC_CONV},
        {"MIOpenBatchNormFwdTrainSpatial", KS_WC_NORM},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float)", KS_WC_NORM},
        {"void at::native::batch_norm_collect_statistics_kernel<at::native::Var, float, float, float, int>()", KS_WC_NORM},
        {"void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::GroupNormKernelImplInternal>>()", KS_WC_NORM},
        {"std::enable_if<(((8)>(0))), void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*)", KS_WC_NORM},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4> >()", KS_WC_REDUCE},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, thrust::pair<float, float> >, unsigned int, float, 2> >()", KS_WC_REDUCE},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*, int, int, int)", KS_WC_REDUCE},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >()", KS_WC_ELEMENTWISE},
        {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>>()", KS_WC_ELEMENTWISE},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>(float*)", KS_WC_ELEMENTWISE},
        {"triton_poi_fused__unsafe_view_mul_silu_2", KS_WC_TRITON},
        {"triton_red_fused_add_mean_mul_pow_rsqrt_0", KS_WC_TRITON},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", KS_WC_COMM},
        {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>()", KS_WC_OTHER},
        {"", KS_WC_OTHER},
        /* a library's namespace or a type in the name spells a rule's word: not the work */
        {"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, long>, fbgemm_gpu::FixedDivisor, long)", KS_WC_OTHER},
        {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)", KS_WC_OTHER},
        {"void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor const&, long, long)::{lambda(unsigned char)#1}, at::detail::Array<char*, 2> >(int, fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor const&, long, long)::{lambda(unsigned char)#1}, at::detail::Array<char*, 2>)", KS_WC_ELEMENTWISE},
        {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, float const*, int, int, unsigned char*, bool)", KS_WC_ELEMENTWISE},
        {"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)", KS_WC_NORM},
        {"void tensorrt_llm::kernels::quantize_with_block_size<(tensorrt_llm::BlockScaleQuantizationType)2, __nv_bfloat16, 32, true>(int, int, int, int, __nv_bfloat16 const*, float const*, unsigned int*, unsigned int*, flashinfer::QuantizationSFLayout)", KS_WC_ELEMENTWISE},
        {"void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams<cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true>)", KS_WC_OTHER},
        {"SubTensorOpWithCastTensor1d", KS_WC_ELEMENTWISE},
        {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)", KS_WC_OTHER},
        {"void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, float, float)", KS_WC_NORM},
        {"void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceAdd>(at::TensorIterator&, long, long, long, at::native::ReduceAdd const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceAdd>(at::TensorIterator&, long, long, long, at::native::ReduceAdd const&)::{lambda(int)#1})", KS_WC_ELEMENTWISE},
        {"void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceMaximum>(at::TensorIterator&, long, long, long, at::native::ReduceMaximum const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()<at::native::ReduceMaximum>(at::TensorIterator&, long, long, long, at::native::ReduceMaximum const&)::{lambda(int)#1})", KS_WC_ELEMENTWISE},
        {"void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<false, at::native::OpaqueType<4> >::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<false, at::native::OpaqueType<4> >::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{lambda(int)#1})", KS_WC_ELEMENTWISE},
        {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, (vllm::Fp8KVCacheDataType)1>(__nv_bfloat16 const*, __nv_bfloat16 const*, unsigned char*, unsigned char*, long const*, long, long, long, long, int, int, int, float const*, float const*)", KS_WC_OTHER},
        {"void vllm::reshape_and_cache_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long const*, int, int, int, int, int, int, float const*, float const*)", KS_WC_OTHER},
        /* a reduction that says so still is one; the store's cache layout is no attention, the attention over it is */
        {"void cub::DeviceReduceByKeyKernel<cub::DispatchReduceByKey<long*, long*, cub::ConstantInputIterator<int, int>, int*, int*, cub::Equality, cub::Sum, int>::PtxReduceByKeyPolicy>()", KS_WC_REDUCE},
        {"void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>()", KS_WC_ATTENTION},
        /* the namespace masked, the kernel's own name says attention */
        {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1, 128u, 1u, 8u>, flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>>(flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", KS_WC_ATTENTION},
        {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 8u, 16u, 1u, 4u>(flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", KS_WC_ATTENTION},
        {"void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16>(__nv_bfloat16*, float*, unsigned int, unsigned int, __nv_bfloat16*, float*)", KS_WC_ATTENTION},
        /* CUTLASS's kernels still name their work */
        {"void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::MatrixShape<4, 128>>>(Params)", KS_WC_GEMM},
        {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>>>(Params)", KS_WC_GEMM},
        {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f", KS_WC_GEMM},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        ks_work_class c = ks_kernel_class(k[i].name, KS_K_KERNEL);
        if (c != k[i].cls)
            fail_msg("%s: %s, expected %s", k[i].name, ks_work_class_name(c), ks_work_class_name(k[i].cls));
    }
    assert_int_equal(ks_kernel_class("Memcpy HtoD (Pageable -> Device)", KS_K_MEMCPY), KS_WC_MEMCPY);
    assert_int_equal(ks_kernel_class("Memset (Device)", KS_K_MEMSET), KS_WC_MEMSET);
    assert_string_equal(ks_work_class_name(KS_WC_COMM), "communication");
    assert_string_equal(ks_work_class_name(KS_WC_COUNT), "other");
}

/* The deciding word at every offset of a name, at its end, after a name that held it and past the
 * 2047 bytes a name is read by: the pairs filter (workclass.c) marks each name's pairs sixteen at
 * a time in a table kept per thread, cleared once in 255 names; a word at a block's tail, in a name
 * after a clearing, must be found, and the pairs of the name before must not find one. */
static void kernel_words_at_every_offset(void **state)
{
    (void)state;
    static char name[2100];
    for (int round = 0; round < 3; round++) /* 900 names: the marks wrap three times */
        for (size_t pad = 0; pad < 100; pad++) {
            memset(name, 'q', pad);
            strcpy(name + pad, "gemm");
            if (ks_kernel_class(name, KS_K_KERNEL) != KS_WC_GEMM)
                fail_msg("gemm after %zu bytes: %s", pad, ks_work_class_name(ks_kernel_class(name, KS_K_KERNEL)));
            strcpy(name + pad, "xmma_q");
            if (!ks_kernel_tensor_core(name, KS_K_KERNEL))
                fail_msg("xmma after %zu bytes: not a tensor-core kernel", pad);
            name[pad] = 0; /* the same bytes without the word */
            if (ks_kernel_class(name, KS_K_KERNEL) != KS_WC_OTHER)
                fail_msg("%zu bytes without a word: %s", pad, ks_work_class_name(ks_kernel_class(name, KS_K_KERNEL)));
            if (ks_kernel_tensor_core(name, KS_K_KERNEL))
                fail_msg("%zu bytes without a word: a tensor-core kernel", pad);
        }
    memset(name, 'q', 2043);
    strcpy(name + 2043, "gemm"); /* 2047 bytes: all read */
    assert_int_equal(ks_kernel_class(name, KS_K_KERNEL), KS_WC_GEMM);
    memset(name, 'q', 2044);
    strcpy(name + 2044, "gemm"); /* the last 'm' past what is read */
    assert_int_equal(ks_kernel_class(name, KS_K_KERNEL), KS_WC_OTHER);
}

/* tensor-core kernels by name: each expected answer is what the vendor's name says about the
 * instruction path (MMA shapes, xmma, MFMA tiles), written by hand */
static void tensor_core_names(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
        "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8",
        "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
        "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(Params)",
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
        "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn",
        "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn",
        "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistageINS_4arch15OpClassTensorOpE",
        "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(pytorch_flash::Flash_fwd_params)",
        "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::half_t>>(Flash_bwd_params)",
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
        "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1",
        "igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2",
        "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor>>()",
        /* trtllm-gen: the MMA instruction's shape (_m128x16x32), block-scaled FP4/FP8 (MxE2m1, MxE4m3) */
        "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
        "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
        "GemmKernel_Bfloat16_E4m3_Fp32_tile128x128x128_epilogueTile128x64_mma128x64x32_cluster1x1x1_dsFp8_sm100a",
        NULL};
    static const char *const no[] = {
        "ampere_sgemm_128x64_nn",
        "ampere_gcgemm_64x64_nt",
        "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1",
        "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>>>",
        "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
        "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_AF0EM1",
        "SubTensorOpWithCastTensor1d",
        "igemm_fwd_gtc_nhwc_fp32_bx0_ex1_bt64x64x16",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >()",
        "triton_tem_fused_mm_0",
        "bmm_tn", /* a batched GEMM without an MMA shape in its name */
        "bmm_E4m3_t128x16x256_et128x16_m128x16_sm100f", /* two dimensions: not an MMA shape */
        "scale_kernel_m128x16x32_sm100f", /* the shape alone, not a trtllm-gen GEMM */
        "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "",
        NULL};
    for (size_t i = 0; yes[i]; i++)
        if (!ks_kernel_tensor_core(yes[i], KS_K_KERNEL))
            fail_msg("%s: not a tensor-core kernel", yes[i]);
    for (size_t i = 0; no[i]; i++)
        if (ks_kernel_tensor_core(no[i], KS_K_KERNEL))
            fail_msg("%s: a tensor-core kernel", no[i]);
    assert_false(ks_kernel_tensor_core("Memcpy HtoD (xmma)", KS_K_MEMCPY));
    assert_false(ks_kernel_tensor_core(NULL, KS_K_KERNEL));
}

static void op_names(void **state)
{
    (void)state;
    static const named o[] = {
        /* the first, the last and entries around the middle of the op table, and in-place forms */
        {"aten::_addmm_activation", KS_WC_GEMM}, {"aten::zero_", KS_WC_ELEMENTWISE},
        {"aten::mm", KS_WC_GEMM}, {"aten::addmm", KS_WC_GEMM}, {"aten::bmm", KS_WC_GEMM},
        {"aten::baddbmm", KS_WC_GEMM}, {"aten::matmul", KS_WC_GEMM}, {"aten::linear", KS_WC_GEMM},
        {"aten::_scaled_mm", KS_WC_GEMM}, {"aten::convolution", KS_WC_CONV},
        {"aten::cudnn_convolution", KS_WC_CONV}, {"aten::convolution_backward", KS_WC_CONV},
        {"aten::_scaled_dot_product_flash_attention", KS_WC_ATTENTION},
        {"aten::_scaled_dot_product_efficient_attention_backward", KS_WC_ATTENTION},
        {"aten::_flash_attention_forward", KS_WC_ATTENTION},
        {"aten::native_layer_norm", KS_WC_NORM}, {"aten::native_batch_norm_backward", KS_WC_NORM},
        {"aten::add_", KS_WC_ELEMENTWISE}, {"aten::mul", KS_WC_ELEMENTWISE}, {"aten::copy_", KS_WC_ELEMENTWISE},
        {"aten::sum", KS_WC_REDUCE}, {"aten::_softmax", KS_WC_REDUCE}, {"aten::all", KS_WC_REDUCE},
        {"aten::index_select", KS_WC_OTHER}, {"aten::empty", KS_WC_OTHER}, {"aten::_", KS_WC_OTHER},
        {"autograd::engine::evaluate_function: AddmmBackward0", KS_WC_GEMM},
        {"ConvolutionBackward0", KS_WC_CONV}, {"NativeLayerNormBackward0", KS_WC_NORM},
        {"flash_attn::_flash_attn_forward", KS_WC_ATTENTION}, {"vllm::rms_norm", KS_WC_NORM},
        {"nccl:all_reduce", KS_WC_COMM}, {"c10d::allreduce_", KS_WC_COMM},
        {"triton_poi_fused_add_0", KS_WC_TRITON}, {"mm", KS_WC_GEMM},
        /* the convolutions of every backend and era, forward and backward (in the table) */
        {"aten::cudnn_convolution_backward_input", KS_WC_CONV}, {"aten::cudnn_convolution_backward_weight", KS_WC_CONV},
        {"aten::cudnn_convolution_backward", KS_WC_CONV}, {"aten::cudnn_convolution_transpose_backward", KS_WC_CONV},
        {"aten::miopen_convolution_backward_weight", KS_WC_CONV}, {"aten::miopen_depthwise_convolution", KS_WC_CONV},
        {"aten::mkldnn_convolution_backward", KS_WC_CONV}, {"aten::thnn_conv2d_backward", KS_WC_CONV},
        {"aten::slow_conv2d_backward", KS_WC_CONV}, {"aten::_slow_conv2d_forward", KS_WC_CONV},
        {"aten::_conv_depthwise2d", KS_WC_CONV}, {"aten::convolution_overrideable", KS_WC_CONV},
        {"aten::convolution_backward_overrideable", KS_WC_CONV}, {"aten::_convolution_double_backward", KS_WC_CONV},
        {"aten::cudnn_convolution_relu", KS_WC_CONV}, {"aten::cudnn_convolution_add_relu", KS_WC_CONV},
        /* ... and by the words of the family where the table has no entry */
        {"aten::mkldnn_convolution_pointwise", KS_WC_CONV}, {"quantized::conv2d_relu", KS_WC_CONV},
        {"DaoAILab::_causal_conv1d_fwd_cpp", KS_WC_CONV}, {"aten::conv_transpose2d_input", KS_WC_CONV},
        {"aten::conv_depthwise2d_backward_x", KS_WC_CONV}, {"prims::convert_element_type", KS_WC_OTHER},
        /* autograd nodes of the convolutions of every era */
        {"CudnnConvolutionBackward", KS_WC_CONV}, {"ThnnConv2DBackward", KS_WC_CONV},
        {"SlowConv2DBackward0", KS_WC_CONV}, {"CudnnConvolutionTransposeBackward0", KS_WC_CONV},
        {"ConvDepthwise2DBackward0", KS_WC_CONV}, {"SlowConvDilated2DBackward0", KS_WC_CONV},
        /* norms, softmaxes and losses, cat */
        {"aten::batch_norm_backward", KS_WC_NORM}, {"aten::batch_norm_gather_stats_with_counts", KS_WC_NORM},
        {"aten::_batch_norm_with_update", KS_WC_NORM}, {"aten::native_instance_norm", KS_WC_NORM},
        {"aten::_log_softmax_backward_data", KS_WC_REDUCE}, {"aten::_masked_softmax", KS_WC_REDUCE},
        {"aten::nll_loss_nd", KS_WC_REDUCE}, {"aten::mse_loss", KS_WC_REDUCE},
        {"aten::cat", KS_WC_ELEMENTWISE}, {"aten::_cat", KS_WC_ELEMENTWISE}, {"aten::stack", KS_WC_ELEMENTWISE},
        {"aten::embedding_dense_backward", KS_WC_OTHER}, {"aten::max_pool2d_with_indices_backward", KS_WC_OTHER},
    };
    for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
        ks_work_class c = ks_op_class(o[i].name, KS_K_CPU_OP);
        if (c != o[i].cls)
            fail_msg("%s: %s, expected %s", o[i].name, ks_work_class_name(c), ks_work_class_name(o[i].cls));
    }
    /* a Python frame's name is source text; runtime calls copy, set, or neither */
    assert_int_equal(ks_op_class("torch/nn/functional.py(2889): layer_norm", KS_K_PYTHON), KS_WC_OTHER);
    assert_int_equal(ks_op_class("cudaMemcpyAsync", KS_K_RUNTIME), KS_WC_MEMCPY);
    assert_int_equal(ks_op_class("hipMemsetAsync", KS_K_RUNTIME), KS_WC_MEMSET);
    assert_int_equal(ks_op_class("cudaLaunchKernel", KS_K_RUNTIME), KS_WC_OTHER);
}

/* device 0, streams 7 and 8 (us): gemm A [100,200) s7, gemm B [150,250) s8, add [300,310) s7,
 * nccl [400,500) s7, memcpy [600,620) s7, flash [700,750) s8; device 1: gemm C [100,130) s9 */
static const char *const class_trace =
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_xmma_gemm_bf16\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":100,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":0,\"tid\":8,\"ts\":150,\"dur\":100,\"args\":{\"device\":0,\"stream\":8}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::vectorized_elementwise_kernel<4, add>\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":100,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":600,\"dur\":20,\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":8,\"ts\":700,\"dur\":50,\"args\":{\"device\":0,\"stream\":8}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nvjet_tst_64x16\",\"pid\":1,\"tid\":9,\"ts\":100,\"dur\":30,\"args\":{\"device\":1,\"stream\":9}}"
    "]}";

static const ks_class_time *row(const ks_class_times *ct, int32_t device, ks_work_class c)
{
    for (size_t i = 0; i < ct->n; i++)
        if (ct->v[i].device == device && ct->v[i].cls == c)
            return &ct->v[i];
    return NULL;
}

/* Many short windows beside two long ones (the window among the steps): the long ones are kept
 * out of the walk over the windows (classtime.c); every window's rows must be what it gets alone. */
static void class_times_long_and_short_windows(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(class_trace);
    ks_analysis *a = analyse(t, NULL);
    enum { NS = 40 };
    ks_ns w[2 * (NS + 2)];
    w[0] = 0, w[1] = 1000 * US;          /* long */
    w[2] = 90 * US, w[3] = 800 * US;     /* long */
    for (int i = 0; i < NS; i++) {       /* 25 us each, overlapping their neighbours by 5 us */
        w[4 + 2 * i] = (ks_ns)i * 20 * US + 90 * US;
        w[5 + 2 * i] = w[4 + 2 * i] + 25 * US;
    }
    ks_class_times ct[NS + 2];
    ks_class_times_build(a, w, NS + 2, ct);
    for (int i = 0; i < NS + 2; i++) {
        ks_class_times one;
        ks_class_times_build(a, &w[2 * i], 1, &one);
        assert_int_equal(ct[i].n, one.n);
        assert_int_equal(ct[i].ntc, one.ntc);
        for (size_t r = 0; r < one.n + one.ntc; r++) {
            const ks_class_time *x = r < one.n ? &ct[i].v[r] : &ct[i].tc[r - one.n];
            const ks_class_time *y = r < one.n ? &one.v[r] : &one.tc[r - one.n];
            assert_int_equal(x->device, y->device);
            assert_int_equal(x->cls, y->cls);
            assert_int_equal(x->count, y->count);
            assert_int_equal(x->busy_ns, y->busy_ns);
            assert_int_equal(x->sum_ns, y->sum_ns);
        }
        ks_class_times_free(&one, 1);
    }
    /* the window over everything: all six classes of device 0 and device 1's gemm */
    assert_int_equal(ct[0].n, 6);
    ks_class_times_free(ct, NS + 2);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void class_times(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(class_trace);
    ks_analysis *a = analyse(t, NULL);
    ks_ns w[] = {0, 1000 * US, 0, 220 * US, 180 * US, 420 * US};
    ks_class_times ct[3];
    ks_class_times_build(a, w, 3, ct);
    /* the whole trace: gemm on device 0 is A u B = [100,250): 150 us busy, 200 us summed */
    const ks_class_time *g = row(&ct[0], 0, KS_WC_GEMM);
    assert_non_null(g);
    assert_int_equal(g->count, 2);
    assert_int_equal(g->busy_ns, 150 * US);
    assert_int_equal(g->sum_ns, 200 * US);
    assert_int_equal(row(&ct[0], 0, KS_WC_ELEMENTWISE)->busy_ns, 10 * US);
    assert_int_equal(row(&ct[0], 0, KS_WC_COMM)->busy_ns, 100 * US);
    assert_int_equal(row(&ct[0], 0, KS_WC_MEMCPY)->busy_ns, 20 * US);
    assert_int_equal(row(&ct[0], 0, KS_WC_ATTENTION)->sum_ns, 50 * US);
    assert_int_equal(row(&ct[0], 1, KS_WC_GEMM)->busy_ns, 30 * US);
    assert_null(row(&ct[0], 0, KS_WC_NORM));
    assert_int_equal(ct[0].n, 6); /* five classes on device 0, one on device 1 */
    assert_int_equal(ct[0].v[0].device, 0);
    assert_int_equal(ct[0].v[5].device, 1);
    /* [0,220): A whole, B [150,220): union [100,220) 120 us, sum 170 us, both start inside */
    g = row(&ct[1], 0, KS_WC_GEMM);
    assert_int_equal(g->busy_ns, 120 * US);
    assert_int_equal(g->sum_ns, 170 * US);
    assert_int_equal(g->count, 2);
    assert_null(row(&ct[1], 0, KS_WC_COMM));
    /* [180,420): A [180,200) and B [180,250): union 70 us, sum 90 us, neither starts inside; the
     * add whole, the nccl kernel's first 20 us */
    g = row(&ct[2], 0, KS_WC_GEMM);
    assert_int_equal(g->busy_ns, 70 * US);
    assert_int_equal(g->sum_ns, 90 * US);
    assert_int_equal(g->count, 0);
    assert_int_equal(row(&ct[2], 0, KS_WC_ELEMENTWISE)->count, 1);
    assert_int_equal(row(&ct[2], 0, KS_WC_COMM)->busy_ns, 20 * US);
    assert_null(row(&ct[2], 1, KS_WC_GEMM));
    /* tensor cores: the xmma gemm A [100,200) and flash [700,750) on device 0 (not the sgemm B,
     * not the nccl kernel), nvjet [100,130) on device 1; the whole trace: 150 us, 2 kernels */
    assert_int_equal(ct[0].ntc, 2);
    assert_int_equal(ct[0].tc[0].device, 0);
    assert_int_equal(ct[0].tc[0].count, 2);
    assert_int_equal(ct[0].tc[0].busy_ns, 150 * US);
    assert_int_equal(ct[0].tc[0].sum_ns, 150 * US);
    assert_int_equal(ct[0].tc[1].device, 1);
    assert_int_equal(ct[0].tc[1].busy_ns, 30 * US);
    /* [0,220): A whole, nvjet whole */
    assert_int_equal(ct[1].ntc, 2);
    assert_int_equal(ct[1].tc[0].busy_ns, 100 * US);
    assert_int_equal(ct[1].tc[0].count, 1);
    /* [180,420): A's last 20 us on device 0, started before: counted 0; nothing on device 1 */
    assert_int_equal(ct[2].ntc, 1);
    assert_int_equal(ct[2].tc[0].device, 0);
    assert_int_equal(ct[2].tc[0].busy_ns, 20 * US);
    assert_int_equal(ct[2].tc[0].count, 0);
    ks_class_times_free(ct, 3);
    assert_null(ct[0].v);
    assert_null(ct[0].tc);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* launch args: kernel K three times (10, 30 and 0 us), kernel L once without args; K's first
 * instance writes "blocks per SM" as the string "inf" (not kept) and a grid of two numbers (not
 * kept). By hand: registers 32..64, shared memory 0..4096; blocks per SM over the two that have it,
 * weighted 30 and 0: 3; warps per SM (10*2 + 30*4 + 0*8) / 40 = 3.5; occupancy
 * (10*50 + 30*25 + 0*100) / 40 = 31.25, min 25, max 100; grid and block of the longest (30 us). */
static const char *const launch_trace =
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,"
    "\"registers per thread\":32,\"shared memory\":0,\"blocks per SM\":\"inf\",\"warps per SM\":2,"
    "\"est. achieved occupancy %\":50,\"grid\":[1,2],\"block\":[64,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,"
    "\"registers per thread\":64,\"shared memory\":4096,\"blocks per SM\":3,\"warps per SM\":4.0,"
    "\"est. achieved occupancy %\":25,\"grid\":[ 132, 1, 1 ],\"block\":[256,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":0,\"args\":{\"device\":0,\"stream\":7,"
    "\"registers per thread\":40,\"blocks per SM\":1e1,\"warps per SM\":8,"
    "\"est. achieved occupancy %\":100,\"grid\":[9,9,9],\"block\":[32,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"L\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}"
    "]}";

static void launch_args(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(launch_trace);
    assert_int_equal(t->nlaunches, 3);
    const ks_launch_args *l = ks_trace_launch(t, 0, 0);
    assert_non_null(l);
    assert_int_equal(l->has, KS_LAUNCH_REGS | KS_LAUNCH_SHMEM | KS_LAUNCH_WARPS_SM | KS_LAUNCH_OCC | KS_LAUNCH_BLOCK);
    assert_null(ks_trace_launch(t, 0, 3));
    ks_analysis *a = analyse(t, NULL);
    assert_int_equal(a->nkernels, 2);
    const ks_kernel_row *k = &a->kernels[0], *m = &a->kernels[1];
    assert_string_equal(ks_trace_str(t, k->name), "K");
    const ks_launch_stats *s = &k->launch;
    assert_int_equal(s->recorded, 3);
    assert_int_equal(s->regs_min, 32);
    assert_int_equal(s->regs_max, 64);
    assert_int_equal(s->shmem_min, 0);
    assert_int_equal(s->shmem_max, 4096);
    assert_true(s->blocks_per_sm == 3.0);
    assert_true(s->warps_per_sm == 3.5);
    assert_true(s->occupancy_pct == 31.25);
    assert_true(s->occupancy_min == 25.0 && s->occupancy_max == 100.0);
    assert_true(s->grid[0] == 132 && s->grid[1] == 1 && s->grid[2] == 1);
    assert_true(s->block[0] == 256);
    assert_int_equal(s->has, KS_LAUNCH_REGS | KS_LAUNCH_SHMEM | KS_LAUNCH_BLOCKS_SM | KS_LAUNCH_WARPS_SM | KS_LAUNCH_OCC |
                                 KS_LAUNCH_GRID | KS_LAUNCH_BLOCK);
    assert_string_equal(ks_trace_str(t, m->name), "L");
    assert_int_equal(m->launch.recorded, 0);
    assert_int_equal(m->launch.has, 0);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* grid texts at the edges of what is kept: integers >= 0 (18 digits read by the parser itself, 19
 * by strtoll), three of them, nothing else, blanks anywhere between; each expected answer worked
 * out from that rule. Parsed through yajl (a buffer read at once) and through the fast scanner,
 * which hands the array over whole (a reader thread with small chunks: the main parser scans its
 * own units), with the same answers. */
static void launch_dims_edges(void **state)
{
    (void)state;
    static const struct {
        const char *grid;
        int kept;
        int64_t x;
    } g[] = {
        {"[0,0,0]", 1, 0},
        {"[123456789012345678,2,3]", 1, 123456789012345678LL},
        {"[1234567890123456789,2,3]", 1, 1234567890123456789LL},
        {"[99999999999999999999,1,1]", 0, 0}, /* past int64 */
        {"[-1,1,1]", 0, 0},
        {"[1.5,1,1]", 0, 0},
        {"[1e3,1,1]", 0, 0},
        {"[1,2,3,4]", 0, 0},
        {"[1,2]", 0, 0},
        {"[\"1\",2,3]", 0, 0},
        {"[7, 8, -9]", 0, 0},
        {"[7, 8, 9]", 1, 7},
        {"[\n      7,\n      8,\n      9\n    ]", 1, 7},
        {"[ 1 ,\t2\r\n, 3 ]", 1, 1},
        {"[1, 2, 3.0]", 0, 0},
        {"[1, 2, 3, []]", 0, 0},
        {"[[1], 2, 3]", 0, 0},
        {"[1 , 2 , 1234567890123456789 ]", 1, 1},
    };
    enum { N = sizeof g / sizeof g[0] };
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    for (size_t i = 0; i < N; i++)
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":1,"
                          "\"args\":{\"registers per thread\":32,\"grid\":%s}}",
                      i ? "," : "", 10 * i, g[i].grid);
    ks_buf_puts(&b, "]}");
    for (int scan = 0; scan < 2; scan++) {
        ks_trace *t = NULL;
        if (!scan)
            t = ks_test_parse(ks_buf_cstr(&b));
        else {
            ks_parse_opts o;
            ks_parse_opts_init(&o);
            o.chunk_size = 512;
            o.reader_thread = 1;
            o.threads = 1;
            ks_parse_info info;
            memset(&info, 0, sizeof info);
            o.info = &info;
            ks_error err;
            assert_int_equal(ks_parse_buffer("edges", b.p, b.n, &o, &t, &err), KS_OK);
            assert_true(info.units_own > 0); /* the scanner read some of the events */
        }
        for (size_t i = 0; i < N; i++) {
            const ks_launch_args *l = ks_trace_launch(t, 0, (uint32_t)i);
            assert_non_null(l);
            if (!!(l->has & KS_LAUNCH_GRID) != g[i].kept)
                fail_msg("scan %d %s: %s", scan, g[i].grid, g[i].kept ? "not kept" : "kept");
            if (g[i].kept && l->grid[0] != g[i].x)
                fail_msg("scan %d %s: %lld", scan, g[i].grid, (long long)l->grid[0]);
        }
        assert_true(ks_trace_launch(t, 0, 2)->grid[1] == 2 && ks_trace_launch(t, 0, 2)->grid[2] == 3);
        assert_true(ks_trace_launch(t, 0, 11)->grid[2] == 9);
        assert_true(ks_trace_launch(t, 0, 12)->grid[1] == 8 && ks_trace_launch(t, 0, 12)->grid[2] == 9);
        assert_true(ks_trace_launch(t, 0, 13)->grid[1] == 2 && ks_trace_launch(t, 0, 13)->grid[2] == 3);
        assert_true(ks_trace_launch(t, 0, 17)->grid[2] == 1234567890123456789LL);
        ks_trace_free(t);
    }
    ks_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_names),
        cmocka_unit_test(kernel_words_at_every_offset),
        cmocka_unit_test(tensor_core_names),
        cmocka_unit_test(op_names),
        cmocka_unit_test(class_times),
        cmocka_unit_test(class_times_long_and_short_windows),
        cmocka_unit_test(launch_args),
        cmocka_unit_test(launch_dims_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
