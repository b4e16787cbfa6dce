/* analysis/workclass.c: what kind of work a kernel or an op is (kinesift/kernels.h), decided from
 * names in this one place. Kernel names are vendor names: matched as lower-case substrings, in an
 * order where the more specific rule comes first (a flash-attention kernel is a CUTLASS kernel, an
 * implicit-GEMM convolution names a GEMM, a group-norm kernel runs in aten's elementwise_kernel).
 * A demangled name also holds its return type, template arguments and parameter types, where a
 * library's namespace or a type may spell a rule's word without being what the kernel does: those
 * spellings are masked first (masked_words).
 * Op names are PyTorch's spellings: matched exactly (after an optional "aten::"), then by the
 * few prefixes and words that mark a family (autograd backward nodes, flash_attn::, *convolution*,
 * *conv2d*, *batch_norm*, *rms_norm*, *softmax*).
 * A name matching nothing is "other". The tables and their order are docs/analysis.md
 * "Classes"; the communication rule is kinesift/comm.h's. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "analysis/analysis_int.h"
#include "common/util.h"
#include "kinesift/comm.h"
#include "kinesift/kernels.h"

static const char *const class_names[KS_WC_COUNT] = {
    "gemm", "conv", "attention", "norm", "elementwise", "reduce", "communication",
    "memcpy", "memset", "triton", "other"};

const char *ks_work_class_name(ks_work_class c)
{
    return (unsigned)c < KS_WC_COUNT ? class_names[c] : "other";
}

/* names longer than this are classified by their first LOWER_MAX bytes (a mangled template name
 * says what it is at the front) */
#define LOWER_MAX 2048

/* A kernel name lower-cased, with the set of its pairs of adjacent bytes (hashed to 4096 entries):
 * a word with a pair not in the set is not in the name, and needs no strstr (the rules try up to
 * sixty words on names hundreds of bytes long). Only a filter: strstr decides what passes it.
 * The set is the thread's table of marks (pair_marks): a pair is in it when its entry holds the
 * name's mark. Each name takes the next mark, so that the table is cleared once in 255 names
 * rather than for each; the set is read before the thread lowers another name. */
typedef struct lowered {
    char s[LOWER_MAX + 16]; /* the name, its NUL and zeros to a 16-byte block past it */
    const uint8_t *pairs;
    uint8_t mark;
} lowered;

/* Spellings that hold a rule's word without being evidence of the work, overwritten with '#'
 * before any rule reads the name:
 * - `fbgemm`: FBGEMM-GPU's namespace (fbgemm_gpu::), in the name or the parameter types of its
 *   embedding-bag (TBE), permute, bounds-check and FP8 quantise kernels and of aten kernels run
 *   on its functors: no GEMM. Its GEMMs are CUTLASS or cuBLAS kernels, named so.
 * - `flashinfer`: FlashInfer's namespace, in the names and parameter types of its norm, sampling,
 *   activation and quantisation kernels as well as its attention kernels; those say what they are
 *   (PrefillWith.., DecodeWith.., PODWith.., MergeStates: the attention words).
 * - `convert`, `convers`: type conversions (vllm::_typeConvert in a norm kernel's return type,
 *   NumericConverter), not convolutions.
 * - `reduced_divisor`: cuDNN's integer-division helper, a parameter type of its FFT, norm and
 *   other kernels: no reduction.
 * - `reduceadd`, `reducemultiply`, `reducemean`, `reducemaximum`, `reduceminimum`: aten's
 *   scatter functors (ReduceAdd in scatter_add's and scatter_reduce's
 *   _scatter_gather_elementwise_kernel): an indexed elementwise update, as the same kernel is
 *   without them (a plain scatter or gather), not a reduction over a dimension.
 * - `reshape_and_cache_flash`: vLLM's KV-cache store that writes the cache in flash attention's
 *   layout: a copy, no attention (its other stores name no class's word).
 * cutlass:: types (cutlass::bfloat16_t in a MoE finalise kernel's template arguments) are left to
 * the gemm rule's words, which name CUTLASS's kernels, not its namespace. */
static const char *const masked_words[] = {"fbgemm", "flashinfer", "convert", "convers", "reduced_divisor",
                                           "reduceadd", "reducemultiply", "reducemean", "reducemaximum",
                                           "reduceminimum", "reshape_and_cache_flash", NULL};

static _Thread_local uint8_t pair_marks[4096]; /* a byte per pair, not a bit: one store per byte of the name */
static _Thread_local uint8_t pair_mark;

static inline unsigned pair_of(unsigned char a, unsigned char b)
{
    return ((unsigned)a << 6 ^ b) & 4095u;
}

static int has(const lowered *l, const char *w);

/* the spellings that are no evidence overwritten; the pairs were marked before, and those of a
 * masked spelling stay marked: the filter lets more words through to strstr, never fewer */
static void mask_words(lowered *l)
{
    for (const char *const *w = masked_words; *w; w++) {
        if (!has(l, *w))
            continue;
        size_t n = strlen(*w);
        for (char *p = l->s; (p = strstr(p, *w)) != NULL; p += n)
            memset(p, '#', n);
    }
}

/* ASCII letters lower-cased as tolower does in the C locale (the library never calls setlocale):
 * first the bytes (a loop the compiler widens), then their pairs, sixteen indices at a time, then
 * the spellings that are no evidence masked */
static void lower(const char *s, lowered *out)
{
    size_t n = strnlen(s, LOWER_MAX - 1);
    unsigned char *d = (unsigned char *)out->s;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)(u[i] + ((unsigned char)(u[i] - 'A') < 26u ? 32u : 0u));
    memset(d + n, 0, 16);
    if (++pair_mark == 0) { /* the marks wrapped: every entry cleared, then mark 1 */
        memset(pair_marks, 0, sizeof pair_marks);
        pair_mark = 1;
    }
    uint8_t mark = pair_mark;
    uint8_t *pm = pair_marks;
    out->pairs = pm;
    out->mark = mark;
    for (size_t i = 1; i < n; i += 16) {
        uint16_t idx[16];
#ifdef __SSE2__
        /* the pairs (d[i + k - 1], d[i + k]) of the block (the reads stay in s: n + 15 at most) */
        __m128i z = _mm_setzero_si128(), m12 = _mm_set1_epi16(4095);
        __m128i prev = _mm_loadu_si128((const __m128i *)(const void *)(d + i - 1));
        __m128i cur = _mm_loadu_si128((const __m128i *)(const void *)(d + i));
        __m128i lo = _mm_xor_si128(_mm_slli_epi16(_mm_unpacklo_epi8(prev, z), 6), _mm_unpacklo_epi8(cur, z));
        __m128i hi = _mm_xor_si128(_mm_slli_epi16(_mm_unpackhi_epi8(prev, z), 6), _mm_unpackhi_epi8(cur, z));
        _mm_storeu_si128((__m128i *)(void *)idx, _mm_and_si128(lo, m12));
        _mm_storeu_si128((__m128i *)(void *)(idx + 8), _mm_and_si128(hi, m12));
#else
        for (size_t k = 0; k < 16; k++)
            idx[k] = (uint16_t)pair_of(d[i + k - 1], d[i + k]);
#endif
        if (n - i >= 16)
            for (size_t k = 0; k < 16; k++)
                pm[idx[k]] = mark;
        else
            for (size_t k = 0; k < n - i; k++)
                pm[idx[k]] = mark;
    }
    mask_words(out);
}

/* 1 when the word is in the lowered name: every pair of it in the set (names hundreds of bytes
 * long hold most pairs of a few: a word's first three alone sent twice as many words to strstr),
 * then strstr */
static int has(const lowered *l, const char *w)
{
    for (int k = 0; w[k] && w[k + 1]; k++) {
        if (l->pairs[pair_of((unsigned char)w[k], (unsigned char)w[k + 1])] != l->mark)
            return 0;
    }
    return strstr(l->s, w) != NULL;
}

static int any_of(const lowered *l, const char *const *words)
{
    for (; *words; words++)
        if (has(l, *words))
            return 1;
    return 0;
}

/* kernel-name rules, in order: the first that matches decides */
static const char *const k_attention[] = {"flash", "fmha", "attention", "attn", "mha_fwd", "mha_bwd",
                                          "sdpa", "prefillwith", "decodewith", "podwith", "mergestate", NULL};
static const char *const k_conv[] = {"conv", "fprop", "dgrad", "wgrad", "scudnn", "winograd", "igemm_fwd",
                                     "igemm_bwd", "igemm_wrw", "cask_cudnn", "im2col", "col2im", NULL};
static const char *const k_reduce_first[] = {"reduce_kernel<", NULL}; /* aten's ReduceOp<..NormTwoOps..> */
static const char *const k_norm[] = {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm",
                                     "batchnorm", "group_norm", "groupnorm", "instance_norm", "instancenorm",
                                     "bn_fw", "bn_bw", "gammabeta", "rowwisemoments", "computefusedparams",
                                     "computebackwardfusedparams", "computeinternalgradients", "welford", NULL};
static const char *const k_elementwise_first[] = {"subtensorop", NULL}; /* MIOpen's: not a tensor op */
static const char *const k_gemm[] = {"gemm", "gemv", "cutlass_", "cutlass::kernel", "cutlass::device_kernel",
                                     "cublas", "xmma", "nvjet", "hipblaslt", "tensile", "matmul", "wvsplitk",
                                     "splitkreduce", "dot_kernel", "tensorop", "wmma", NULL};
static const char *const k_reduce[] = {"reduce", "reduction", "softmax", "argmax", "argmin", "nll_loss",
                                       "cross_entropy", "logsumexp", NULL};
static const char *const k_elementwise[] = {"elementwise", "multi_tensor_apply", "copy", "fill", "act_and_mul",
                                            "rotary", "dropout", "transpose", "nchwtonhwc",
                                            "nhwctonchw", "quant", NULL};

/* the class of a kernel name already lower-cased (not communication, not a copy or a set) */
static ks_work_class kernel_class_lowered(const lowered *l)
{
    const char *s = l->s;
    if (has(l, "triton"))
        return KS_WC_TRITON;
    if (any_of(l, k_attention))
        return KS_WC_ATTENTION;
    if (any_of(l, k_conv))
        return KS_WC_CONV;
    if (any_of(l, k_reduce_first))
        return KS_WC_REDUCE;
    if (any_of(l, k_norm))
        return KS_WC_NORM;
    if (any_of(l, k_elementwise_first))
        return KS_WC_ELEMENTWISE;
    /* hipBLASLt/Tensile kernels: Cijk_Ailk_Bljk_... (case matters: lower-cased here) */
    if (!strncmp(s, "cijk_", 5) || any_of(l, k_gemm) || !strncmp(s, "bmm_", 4))
        return KS_WC_GEMM;
    if (any_of(l, k_reduce))
        return KS_WC_REDUCE;
    if (any_of(l, k_elementwise))
        return KS_WC_ELEMENTWISE;
    return KS_WC_OTHER;
}

ks_work_class ks_kernel_class(const char *name, int kind)
{
    if (kind == KS_K_MEMCPY)
        return KS_WC_MEMCPY;
    if (kind == KS_K_MEMSET)
        return KS_WC_MEMSET;
    if (!name || !*name)
        return KS_WC_OTHER;
    if (ks_comm_kernel_name(name))
        return KS_WC_COMM;
    lowered l;
    lower(name, &l);
    return kernel_class_lowered(&l);
}

/* Kernel names that mark a tensor-core (NVIDIA) or matrix-core (AMD MFMA/WMMA) path: cuBLAS's and
 * cuDNN's xmma kernels, cuBLASLt's nvjet, CUTLASS tensorop/wmma/wgmma instantiations, the MMA
 * instruction shapes vendors put in names (s16816, h884...), flash-attention and TensorRT-LLM fmha
 * kernels, Tensile's MFMA kernels (a "_MI" tile: Cijk_..._MI16x16x1), composable_kernel's xdl and
 * MIOpen's xdlops iGEMM (gtcx). MIOpen's SubTensorOp is elementwise work, not a tensor op. */
static const char *const k_tensor[] = {"xmma", "hmma", "wmma", "gmma", "tensor16x8", "16816", "16832", "1688gemm",
                                       "884gemm", "nvjet", "flash_fwd", "flash_bwd", "fmhasm", "fmha_v2", "mfma",
                                       "xdl", "_gtcx", NULL};

/* 1 when s holds an MMA instruction's shape as TensorRT-LLM's generated kernels write it: _m or
 * _mma, then MxNxK in digits, then '_' or the end (_m128x16x32; their CTA tile is _t128x16x256,
 * the epilogue's _et128x16) */
static int mma_shape(const char *s)
{
    for (const char *p = s; (p = strstr(p, "_m")) != NULL; p += 2) {
        const char *q = p + 2;
        if (!strncmp(q, "ma", 2))
            q += 2;
        int dims = 0;
        for (;;) {
            const char *d = q;
            while (*q >= '0' && *q <= '9')
                q++;
            if (q == d)
                break;
            if (++dims == 3 || *q != 'x')
                break;
            q++;
        }
        if (dims == 3 && (*q == '_' || !*q))
            return 1;
    }
    return 0;
}

/* 1 when a kernel name already lower-cased (not communication) marks a tensor-core path */
static int tensor_core_lowered(const lowered *l)
{
    const char *s = l->s;
    if (any_of(l, k_tensor))
        return 1;
    if (has(l, "tensorop"))
        for (const char *p = s; (p = strstr(p, "tensorop")) != NULL; p++)
            if (p < s + 3 || strncmp(p - 3, "sub", 3) != 0)
                return 1;
    /* xformers' memory-efficient attention runs its float32 kernels on the CUDA cores */
    if (has(l, "fmha_cutlass") && !strstr(s, "_f32"))
        return 1;
    if (!strncmp(s, "cijk_", 5))
        for (const char *p = s; (p = strstr(p, "_mi")) != NULL; p++)
            if (p[3] >= '0' && p[3] <= '9')
                return 1;
    /* TensorRT-LLM's generated GEMMs (trtllm-gen: bmm_..., gemm_..., GemmKernel_..., the
     * block-scaled FP8/FP4 MoE ones among them) name the MMA instruction they issue */
    if ((!strncmp(s, "bmm_", 4) || !strncmp(s, "gemm", 4)) && mma_shape(s))
        return 1;
    return 0;
}

int ks_kernel_tensor_core(const char *name, int kind)
{
    if (kind != KS_K_KERNEL || !name || !*name || ks_comm_kernel_name(name))
        return 0;
    lowered l;
    lower(name, &l);
    return tensor_core_lowered(&l);
}

/* ---- ops ------------------------------------------------------------------------------------ */

typedef struct op_rule {
    const char *name;          /* without "aten::" */
    uint8_t cls;
} op_rule;

/* sorted by name (strcmp): bsearch */
static const op_rule op_rules[] = {
    {"_addmm_activation", KS_WC_GEMM},
    {"_batch_norm_impl_index", KS_WC_NORM},
    {"_batch_norm_impl_index_backward", KS_WC_NORM},
    {"_batch_norm_no_update", KS_WC_NORM},
    {"_batch_norm_with_update", KS_WC_NORM},
    {"_batch_norm_with_update_functional", KS_WC_NORM},
    {"_cat", KS_WC_ELEMENTWISE},
    {"_conv_depthwise2d", KS_WC_CONV},
    {"_conv_depthwise2d_backward", KS_WC_CONV},
    {"_convolution", KS_WC_CONV},
    {"_convolution_double_backward", KS_WC_CONV},
    {"_convolution_mode", KS_WC_CONV},
    {"_convolution_nogroup", KS_WC_CONV},
    {"_efficient_attention_backward", KS_WC_ATTENTION},
    {"_efficient_attention_forward", KS_WC_ATTENTION},
    {"_flash_attention_backward", KS_WC_ATTENTION},
    {"_flash_attention_forward", KS_WC_ATTENTION},
    {"_foreach_add", KS_WC_ELEMENTWISE},
    {"_foreach_addcdiv", KS_WC_ELEMENTWISE},
    {"_foreach_addcmul", KS_WC_ELEMENTWISE},
    {"_foreach_div", KS_WC_ELEMENTWISE},
    {"_foreach_lerp", KS_WC_ELEMENTWISE},
    {"_foreach_mul", KS_WC_ELEMENTWISE},
    {"_foreach_sqrt", KS_WC_ELEMENTWISE},
    {"_foreach_sub", KS_WC_ELEMENTWISE},
    {"_fused_adam", KS_WC_ELEMENTWISE},
    {"_fused_adamw", KS_WC_ELEMENTWISE},
    {"_fused_rms_norm", KS_WC_NORM},
    {"_fused_rms_norm_backward", KS_WC_NORM},
    {"_grouped_mm", KS_WC_GEMM},
    {"_log_softmax", KS_WC_REDUCE},
    {"_log_softmax_backward_data", KS_WC_REDUCE},
    {"_native_batch_norm_legit", KS_WC_NORM},
    {"_native_batch_norm_legit_functional", KS_WC_NORM},
    {"_native_batch_norm_legit_no_training", KS_WC_NORM},
    {"_nnpack_spatial_convolution", KS_WC_CONV},
    {"_scaled_dot_product_cudnn_attention", KS_WC_ATTENTION},
    {"_scaled_dot_product_cudnn_attention_backward", KS_WC_ATTENTION},
    {"_scaled_dot_product_efficient_attention", KS_WC_ATTENTION},
    {"_scaled_dot_product_efficient_attention_backward", KS_WC_ATTENTION},
    {"_scaled_dot_product_flash_attention", KS_WC_ATTENTION},
    {"_scaled_dot_product_flash_attention_backward", KS_WC_ATTENTION},
    {"_scaled_grouped_mm", KS_WC_GEMM},
    {"_scaled_mm", KS_WC_GEMM},
    {"_slow_conv2d_backward", KS_WC_CONV},
    {"_slow_conv2d_forward", KS_WC_CONV},
    {"_softmax", KS_WC_REDUCE},
    {"_softmax_backward_data", KS_WC_REDUCE},
    {"_to_copy", KS_WC_ELEMENTWISE},
    {"abs", KS_WC_ELEMENTWISE},
    {"add", KS_WC_ELEMENTWISE},
    {"addbmm", KS_WC_GEMM},
    {"addcdiv", KS_WC_ELEMENTWISE},
    {"addcmul", KS_WC_ELEMENTWISE},
    {"addmm", KS_WC_GEMM},
    {"addmv", KS_WC_GEMM},
    {"all", KS_WC_REDUCE},
    {"amax", KS_WC_REDUCE},
    {"amin", KS_WC_REDUCE},
    {"any", KS_WC_REDUCE},
    {"argmax", KS_WC_REDUCE},
    {"argmin", KS_WC_REDUCE},
    {"baddbmm", KS_WC_GEMM},
    {"batch_norm", KS_WC_NORM},
    {"batch_norm_backward", KS_WC_NORM},
    {"batch_norm_backward_elemt", KS_WC_NORM},
    {"batch_norm_backward_reduce", KS_WC_NORM},
    {"batch_norm_elemt", KS_WC_NORM},
    {"batch_norm_gather_stats", KS_WC_NORM},
    {"batch_norm_gather_stats_with_counts", KS_WC_NORM},
    {"batch_norm_stats", KS_WC_NORM},
    {"batch_norm_update_stats", KS_WC_NORM},
    {"binary_cross_entropy", KS_WC_REDUCE},
    {"binary_cross_entropy_backward", KS_WC_REDUCE},
    {"binary_cross_entropy_with_logits", KS_WC_REDUCE},
    {"bitwise_and", KS_WC_ELEMENTWISE},
    {"bitwise_not", KS_WC_ELEMENTWISE},
    {"bitwise_or", KS_WC_ELEMENTWISE},
    {"bmm", KS_WC_GEMM},
    {"cat", KS_WC_ELEMENTWISE},
    {"ceil", KS_WC_ELEMENTWISE},
    {"clamp", KS_WC_ELEMENTWISE},
    {"clamp_max", KS_WC_ELEMENTWISE},
    {"clamp_min", KS_WC_ELEMENTWISE},
    {"clone", KS_WC_ELEMENTWISE},
    {"concat", KS_WC_ELEMENTWISE},
    {"concatenate", KS_WC_ELEMENTWISE},
    {"conv1d", KS_WC_CONV},
    {"conv2d", KS_WC_CONV},
    {"conv3d", KS_WC_CONV},
    {"conv_depthwise3d", KS_WC_CONV},
    {"conv_depthwise3d_backward", KS_WC_CONV},
    {"conv_tbc", KS_WC_CONV},
    {"conv_tbc_backward", KS_WC_CONV},
    {"conv_transpose1d", KS_WC_CONV},
    {"conv_transpose2d", KS_WC_CONV},
    {"conv_transpose3d", KS_WC_CONV},
    {"convolution", KS_WC_CONV},
    {"convolution_backward", KS_WC_CONV},
    {"convolution_backward_overrideable", KS_WC_CONV},
    {"convolution_overrideable", KS_WC_CONV},
    {"copy", KS_WC_ELEMENTWISE},
    {"cos", KS_WC_ELEMENTWISE},
    {"cross_entropy_loss", KS_WC_REDUCE},
    {"cudnn_batch_norm", KS_WC_NORM},
    {"cudnn_batch_norm_backward", KS_WC_NORM},
    {"cudnn_convolution", KS_WC_CONV},
    {"cudnn_convolution_add_relu", KS_WC_CONV},
    {"cudnn_convolution_backward", KS_WC_CONV},
    {"cudnn_convolution_backward_bias", KS_WC_CONV},
    {"cudnn_convolution_backward_input", KS_WC_CONV},
    {"cudnn_convolution_backward_weight", KS_WC_CONV},
    {"cudnn_convolution_relu", KS_WC_CONV},
    {"cudnn_convolution_transpose", KS_WC_CONV},
    {"cudnn_convolution_transpose_backward", KS_WC_CONV},
    {"cudnn_convolution_transpose_backward_input", KS_WC_CONV},
    {"cudnn_convolution_transpose_backward_weight", KS_WC_CONV},
    {"cumprod", KS_WC_REDUCE},
    {"cumsum", KS_WC_REDUCE},
    {"div", KS_WC_ELEMENTWISE},
    {"dot", KS_WC_GEMM},
    {"dropout", KS_WC_ELEMENTWISE},
    {"elu", KS_WC_ELEMENTWISE},
    {"elu_backward", KS_WC_ELEMENTWISE},
    {"eq", KS_WC_ELEMENTWISE},
    {"erf", KS_WC_ELEMENTWISE},
    {"exp", KS_WC_ELEMENTWISE},
    {"expm1", KS_WC_ELEMENTWISE},
    {"fill", KS_WC_ELEMENTWISE},
    {"floor", KS_WC_ELEMENTWISE},
    {"ge", KS_WC_ELEMENTWISE},
    {"gelu", KS_WC_ELEMENTWISE},
    {"gelu_backward", KS_WC_ELEMENTWISE},
    {"group_norm", KS_WC_NORM},
    {"gt", KS_WC_ELEMENTWISE},
    {"hardsigmoid", KS_WC_ELEMENTWISE},
    {"hardswish", KS_WC_ELEMENTWISE},
    {"hardswish_backward", KS_WC_ELEMENTWISE},
    {"hardtanh", KS_WC_ELEMENTWISE},
    {"hardtanh_backward", KS_WC_ELEMENTWISE},
    {"huber_loss", KS_WC_REDUCE},
    {"huber_loss_backward", KS_WC_REDUCE},
    {"instance_norm", KS_WC_NORM},
    {"kl_div", KS_WC_REDUCE},
    {"l1_loss", KS_WC_REDUCE},
    {"layer_norm", KS_WC_NORM},
    {"le", KS_WC_ELEMENTWISE},
    {"leaky_relu", KS_WC_ELEMENTWISE},
    {"leaky_relu_backward", KS_WC_ELEMENTWISE},
    {"lerp", KS_WC_ELEMENTWISE},
    {"linalg_norm", KS_WC_REDUCE},
    {"linalg_vector_norm", KS_WC_REDUCE},
    {"linear", KS_WC_GEMM},
    {"log", KS_WC_ELEMENTWISE},
    {"log10", KS_WC_ELEMENTWISE},
    {"log1p", KS_WC_ELEMENTWISE},
    {"log2", KS_WC_ELEMENTWISE},
    {"log_softmax", KS_WC_REDUCE},
    {"logical_and", KS_WC_ELEMENTWISE},
    {"logical_not", KS_WC_ELEMENTWISE},
    {"logical_or", KS_WC_ELEMENTWISE},
    {"logit", KS_WC_ELEMENTWISE},
    {"logit_backward", KS_WC_ELEMENTWISE},
    {"logsumexp", KS_WC_REDUCE},
    {"lt", KS_WC_ELEMENTWISE},
    {"masked_fill", KS_WC_ELEMENTWISE},
    {"matmul", KS_WC_GEMM},
    {"max", KS_WC_REDUCE},
    {"maximum", KS_WC_ELEMENTWISE},
    {"mean", KS_WC_REDUCE},
    {"min", KS_WC_REDUCE},
    {"minimum", KS_WC_ELEMENTWISE},
    {"miopen_batch_norm", KS_WC_NORM},
    {"miopen_batch_norm_backward", KS_WC_NORM},
    {"miopen_convolution", KS_WC_CONV},
    {"miopen_convolution_add_relu", KS_WC_CONV},
    {"miopen_convolution_backward", KS_WC_CONV},
    {"miopen_convolution_backward_bias", KS_WC_CONV},
    {"miopen_convolution_backward_input", KS_WC_CONV},
    {"miopen_convolution_backward_weight", KS_WC_CONV},
    {"miopen_convolution_relu", KS_WC_CONV},
    {"miopen_convolution_transpose", KS_WC_CONV},
    {"miopen_convolution_transpose_backward", KS_WC_CONV},
    {"miopen_convolution_transpose_backward_input", KS_WC_CONV},
    {"miopen_convolution_transpose_backward_weight", KS_WC_CONV},
    {"miopen_depthwise_convolution", KS_WC_CONV},
    {"miopen_depthwise_convolution_backward", KS_WC_CONV},
    {"miopen_depthwise_convolution_backward_input", KS_WC_CONV},
    {"miopen_depthwise_convolution_backward_weight", KS_WC_CONV},
    {"mish", KS_WC_ELEMENTWISE},
    {"mkldnn_convolution", KS_WC_CONV},
    {"mkldnn_convolution_backward", KS_WC_CONV},
    {"mkldnn_convolution_backward_input", KS_WC_CONV},
    {"mkldnn_convolution_backward_weights", KS_WC_CONV},
    {"mkldnn_convolution_transpose", KS_WC_CONV},
    {"mm", KS_WC_GEMM},
    {"mse_loss", KS_WC_REDUCE},
    {"mse_loss_backward", KS_WC_REDUCE},
    {"mul", KS_WC_ELEMENTWISE},
    {"mv", KS_WC_GEMM},
    {"nan_to_num", KS_WC_ELEMENTWISE},
    {"native_batch_norm", KS_WC_NORM},
    {"native_batch_norm_backward", KS_WC_NORM},
    {"native_dropout", KS_WC_ELEMENTWISE},
    {"native_dropout_backward", KS_WC_ELEMENTWISE},
    {"native_group_norm", KS_WC_NORM},
    {"native_group_norm_backward", KS_WC_NORM},
    {"native_layer_norm", KS_WC_NORM},
    {"native_layer_norm_backward", KS_WC_NORM},
    {"ne", KS_WC_ELEMENTWISE},
    {"neg", KS_WC_ELEMENTWISE},
    {"nll_loss", KS_WC_REDUCE},
    {"nll_loss2d", KS_WC_REDUCE},
    {"nll_loss2d_backward", KS_WC_REDUCE},
    {"nll_loss2d_forward", KS_WC_REDUCE},
    {"nll_loss_backward", KS_WC_REDUCE},
    {"nll_loss_forward", KS_WC_REDUCE},
    {"nll_loss_nd", KS_WC_REDUCE},
    {"norm", KS_WC_REDUCE},
    {"pow", KS_WC_ELEMENTWISE},
    {"prod", KS_WC_REDUCE},
    {"reciprocal", KS_WC_ELEMENTWISE},
    {"relu", KS_WC_ELEMENTWISE},
    {"remainder", KS_WC_ELEMENTWISE},
    {"rms_norm", KS_WC_NORM},
    {"round", KS_WC_ELEMENTWISE},
    {"rsqrt", KS_WC_ELEMENTWISE},
    {"rsub", KS_WC_ELEMENTWISE},
    {"scaled_dot_product_attention", KS_WC_ATTENTION},
    {"sigmoid", KS_WC_ELEMENTWISE},
    {"sigmoid_backward", KS_WC_ELEMENTWISE},
    {"sign", KS_WC_ELEMENTWISE},
    {"silu", KS_WC_ELEMENTWISE},
    {"silu_backward", KS_WC_ELEMENTWISE},
    {"sin", KS_WC_ELEMENTWISE},
    {"slow_conv2d_backward", KS_WC_CONV},
    {"slow_conv2d_forward", KS_WC_CONV},
    {"slow_conv3d", KS_WC_CONV},
    {"slow_conv3d_backward", KS_WC_CONV},
    {"slow_conv3d_forward", KS_WC_CONV},
    {"slow_conv_dilated2d", KS_WC_CONV},
    {"slow_conv_dilated2d_backward", KS_WC_CONV},
    {"slow_conv_dilated3d", KS_WC_CONV},
    {"slow_conv_dilated3d_backward", KS_WC_CONV},
    {"slow_conv_transpose2d", KS_WC_CONV},
    {"slow_conv_transpose2d_backward", KS_WC_CONV},
    {"slow_conv_transpose3d", KS_WC_CONV},
    {"slow_conv_transpose3d_backward", KS_WC_CONV},
    {"smooth_l1_loss", KS_WC_REDUCE},
    {"smooth_l1_loss_backward", KS_WC_REDUCE},
    {"softmax", KS_WC_REDUCE},
    {"softplus", KS_WC_ELEMENTWISE},
    {"softplus_backward", KS_WC_ELEMENTWISE},
    {"sqrt", KS_WC_ELEMENTWISE},
    {"square", KS_WC_ELEMENTWISE},
    {"stack", KS_WC_ELEMENTWISE},
    {"std", KS_WC_REDUCE},
    {"sub", KS_WC_ELEMENTWISE},
    {"sum", KS_WC_REDUCE},
    {"tanh", KS_WC_ELEMENTWISE},
    {"tanh_backward", KS_WC_ELEMENTWISE},
    {"thnn_conv2d", KS_WC_CONV},
    {"thnn_conv2d_backward", KS_WC_CONV},
    {"thnn_conv2d_forward", KS_WC_CONV},
    {"thnn_conv_depthwise2d", KS_WC_CONV},
    {"thnn_conv_depthwise2d_backward", KS_WC_CONV},
    {"thnn_conv_depthwise2d_forward", KS_WC_CONV},
    {"threshold_backward", KS_WC_ELEMENTWISE},
    {"trunc", KS_WC_ELEMENTWISE},
    {"var", KS_WC_REDUCE},
    {"var_mean", KS_WC_REDUCE},
    {"where", KS_WC_ELEMENTWISE},
    {"zero", KS_WC_ELEMENTWISE},
};

static int cmp_rule(const void *k, const void *r)
{
    return strcmp(k, ((const op_rule *)r)->name);
}

/* autograd backward nodes ("autograd::engine::evaluate_function: AddmmBackward0", "MmBackward0") */
typedef struct node_rule {
    const char *word;
    uint8_t cls;
} node_rule;

static const node_rule node_rules[] = {
    {"AttentionBackward", KS_WC_ATTENTION}, {"FlashAttn", KS_WC_ATTENTION},
    {"ConvolutionBackward", KS_WC_CONV},    {"ConvolutionTransposeBackward", KS_WC_CONV},
    {"Conv1DBackward", KS_WC_CONV},         {"Conv2DBackward", KS_WC_CONV},
    {"Conv3DBackward", KS_WC_CONV},         {"ConvDepthwise2DBackward", KS_WC_CONV},
    {"ConvDepthwise3DBackward", KS_WC_CONV}, {"ConvTranspose2DBackward", KS_WC_CONV},
    {"ConvTranspose3DBackward", KS_WC_CONV}, {"ConvDilated2DBackward", KS_WC_CONV},
    {"ConvDilated3DBackward", KS_WC_CONV},  {"ConvTbcBackward", KS_WC_CONV},
    {"NormBackward", KS_WC_NORM},
    {"AddmmBackward", KS_WC_GEMM},          {"MmBackward", KS_WC_GEMM},
    {"BmmBackward", KS_WC_GEMM},            {"LinearBackward", KS_WC_GEMM},
    {"SoftmaxBackward", KS_WC_REDUCE},      {"SumBackward", KS_WC_REDUCE},
    {"MeanBackward", KS_WC_REDUCE},
};

/* words that make any op name a convolution after the table (lower case: op names, not nodes) */
static const char *const conv_words[] = {"convolution", "conv1d", "conv2d", "conv3d", "conv_depthwise",
                                         "conv_transpose", "conv_tbc", "slow_conv", "thnn_conv"};

ks_work_class ks_op_class(const char *name, int kind)
{
    if (!name || !*name || kind == KS_K_PYTHON)
        return KS_WC_OTHER;
    if (kind == KS_K_RUNTIME || kind == KS_K_DRIVER) /* cudaMemcpyAsync, hipMemsetD32Async... */
        return strstr(name, "Memcpy") || strstr(name, "memcpy") ? KS_WC_MEMCPY
             : strstr(name, "Memset") || strstr(name, "memset") ? KS_WC_MEMSET
                                                                 : KS_WC_OTHER;
    if (ks_comm_op_name(name))
        return KS_WC_COMM;
    if (!strncmp(name, "triton", 6))
        return KS_WC_TRITON;
    const char *n = name;
    if (!strncmp(n, "aten::", 6))
        n += 6;
    char buf[128];
    size_t len = strlen(n);
    if (len && len < sizeof buf) {
        /* in-place variants (add_, mul_): the op's class */
        memcpy(buf, n, len + 1);
        if (buf[len - 1] == '_' && len > 1)
            buf[len - 1] = 0;
        const op_rule *r = bsearch(buf, op_rules, sizeof op_rules / sizeof op_rules[0], sizeof op_rules[0],
                                   cmp_rule);
        if (r)
            return (ks_work_class)r->cls;
    }
    /* every node word holds "Backward" but "FlashAttn": a name with neither matches none */
    if (strstr(name, "Backward") || strstr(name, "FlashAttn"))
        for (size_t i = 0; i < sizeof node_rules / sizeof node_rules[0]; i++)
            if (strstr(name, node_rules[i].word))
                return (ks_work_class)node_rules[i].cls;
    if (!strncmp(name, "flash_attn", 10) || strstr(name, "attention") || strstr(name, "::mha_") ||
        strstr(name, "fmha"))
        return KS_WC_ATTENTION;
    /* every backend's and era's convolution, forward or backward, whatever the table lacks
     * (cudnn_convolution_transpose_backward_weight, quantized::conv2d_relu, _causal_conv1d_fwd) */
    if (strstr(name, "conv")) /* in every word of conv_words */
        for (size_t i = 0; i < sizeof conv_words / sizeof conv_words[0]; i++)
            if (strstr(name, conv_words[i]))
                return KS_WC_CONV;
    if (strstr(name, "norm") && (strstr(name, "rms_norm") || strstr(name, "rmsnorm") || strstr(name, "layer_norm") ||
                                 strstr(name, "batch_norm") || strstr(name, "group_norm") ||
                                 strstr(name, "instance_norm")))
        return KS_WC_NORM;
    if (strstr(name, "softmax")) /* _masked_softmax, _safe_softmax, topk_softmax */
        return KS_WC_REDUCE;
    return KS_WC_OTHER;
}

/* ---- the analysis's memo ----------------------------------------------------------------- */

/* The classes of the trace's names, decided once per string id for the whole analysis (the
 * kernels table, the class times of every window, the ops table and the diagnoses all ask):
 * per id a kernel entry (class + 1 in the low 4 bits, | 0x80 when tensor-core; 0 not yet decided)
 * and an op entry (class + 1). Whether a kernel name is communication, ks_comm_mark has already
 * asked of every kernel name (priv->comm_names): its answer is read, not asked again. Entries are filled on first need from any thread: the answer depends on the name
 * alone, so two threads filling one entry store the same byte (relaxed atomics, no lock). A name's
 * kind changes the answer only for copies and sets (answered without the memo) and for runtime,
 * driver and Python names as ops (likewise). */

void ks_class_memo_init(ks_analysis *a)
{
    size_t n = ks_strtab_count(a->trace->strings);
    a->priv->nclass = n;
    a->priv->kclass = ks_xcalloc(n ? n : 1, sizeof *a->priv->kclass);
    a->priv->oclass = ks_xcalloc(n ? n : 1, sizeof *a->priv->oclass);
}

void ks_class_memo_free(ks_analysis *a)
{
    free((void *)a->priv->kclass);
    free((void *)a->priv->oclass);
    a->priv->kclass = a->priv->oclass = NULL;
    a->priv->nclass = 0;
}

/* a kernel name's entry: one comm check and one lowering for both answers */
static uint8_t kernel_entry(const ks_analysis *a, ks_str name)
{
    const struct ks_analysis_priv *p = a->priv;
    if (name >= p->nclass) { /* not an id of the trace's table: decided each time */
        const char *s = ks_trace_str(a->trace, name);
        return (uint8_t)((ks_kernel_class(s, KS_K_KERNEL) + 1) | (ks_kernel_tensor_core(s, KS_K_KERNEL) ? 0x80 : 0));
    }
    uint8_t v = atomic_load_explicit(&p->kclass[name], memory_order_relaxed);
    if (v)
        return v;
    const char *s = ks_trace_str(a->trace, name);
    uint8_t known = p->comm_names ? p->comm_names[name] : 0; /* 0 not asked, 1 no, 2 yes */
    if (!s || !*s)
        v = KS_WC_OTHER + 1;
    else if (known ? known == 2 : ks_comm_kernel_name(s))
        v = KS_WC_COMM + 1;
    else {
        lowered low;
        lower(s, &low);
        v = (uint8_t)((kernel_class_lowered(&low) + 1) | (tensor_core_lowered(&low) ? 0x80 : 0));
    }
    atomic_store_explicit(&p->kclass[name], v, memory_order_relaxed);
    return v;
}

ks_work_class ks_analysis_kernel_class(const ks_analysis *a, ks_str name, int kind)
{
    if (kind == KS_K_MEMCPY)
        return KS_WC_MEMCPY;
    if (kind == KS_K_MEMSET)
        return KS_WC_MEMSET;
    return (ks_work_class)((kernel_entry(a, name) & 0x0f) - 1);
}

int ks_analysis_tensor_core(const ks_analysis *a, ks_str name, int kind)
{
    return kind == KS_K_KERNEL && (kernel_entry(a, name) & 0x80);
}

ks_work_class ks_analysis_op_class(const ks_analysis *a, ks_str name, int kind)
{
    const struct ks_analysis_priv *p = a->priv;
    if (kind == KS_K_PYTHON || kind == KS_K_RUNTIME || kind == KS_K_DRIVER || name >= p->nclass)
        return ks_op_class(ks_trace_str(a->trace, name), kind);
    uint8_t v = atomic_load_explicit(&p->oclass[name], memory_order_relaxed);
    if (!v) {
        v = (uint8_t)(ks_op_class(ks_trace_str(a->trace, name), kind) + 1);
        atomic_store_explicit(&p->oclass[name], v, memory_order_relaxed);
    }
    return (ks_work_class)(v - 1);
}

ks_work_class ks_analysis_kernel_row_class(const ks_analysis *a, const ks_kernel_row *r)
{
    if (r->kind == KS_K_KERNEL && r->count && r->comm == r->count)
        return KS_WC_COMM;
    return ks_analysis_kernel_class(a, r->name, r->kind);
}
