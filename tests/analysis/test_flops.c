/* tests/analysis/test_flops.c: one call's FLOPs and bytes from its recorded shapes
 * (ks_op_cost_of), worked by hand for every formula. The first four are ops of TraceLens's
 * published reports for the H100 traces we hold (bert-small's addmm, flash attention and add,
 * Falconsai's patch-embedding convolution): their GFLOPS and "Data Moved (MB)" (MiB) columns
 * agree to the last digit, as the comments show. Then the shape args as the parser keeps them,
 * and the order of the shapes table's rows. */
#include <math.h>

#include "analysis_test.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/kernels.h"

#define BF16 "\"c10::BFloat16\""

static ks_op_cost cost(const char *op, const char *dims, const char *types, const char *conc)
{
    ks_op_cost c = ks_op_cost_of(op, dims, types, conc);
    if (!c.known)
        fail_msg("%s %s: not known", op, dims);
    return c;
}

static void gemm(void **state)
{
    (void)state;
    /* addmm(bias[512], A[141,512], B[512,512]): 2*141*512*512 + 141*512 (the bias added) =
     * 73,996,800 (TraceLens: GFLOPS 0.0739968); bytes (512 + 141*512 + 512*512 + 141*512) * 2 =
     * 814,080 (TraceLens: 0.7763671875 MiB) */
    ks_op_cost c = cost("aten::addmm", "[[512],[141,512],[512,512],[],[]]",
                        "[" BF16 "," BF16 "," BF16 ",\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"1\",\"1\"]");
    assert_true(c.flops == 73996800.0);
    assert_true(c.bytes == 814080.0);
    assert_int_equal(c.cls, KS_WC_GEMM);
    assert_int_equal(c.dtype_bytes, 2);
    assert_string_equal(c.dtype, "c10::BFloat16");
    /* mm(A[64,128], B[128,256]) float: 2*64*256*128 = 4,194,304; (8192 + 32768 + 16384) * 4 */
    c = cost("aten::mm", "[[64,128],[128,256]]", "[\"float\",\"float\"]", NULL);
    assert_true(c.flops == 4194304.0);
    assert_true(c.bytes == 229376.0);
    /* bmm(A[4,32,64], B[4,64,16]) half: 2*4*32*16*64 = 262,144; (8192 + 4096 + 2048) * 2 */
    c = cost("aten::bmm", "[[4,32,64],[4,64,16]]", "[\"c10::Half\",\"c10::Half\"]", NULL);
    assert_true(c.flops == 262144.0);
    assert_true(c.bytes == 28672.0);
    /* baddbmm(bias[4,32,16], A[4,32,64], B[4,64,16]) float: 262,144 + 4*32*16 = 264,192;
     * (2048 + 8192 + 4096 + 2048) * 4 = 65,536 */
    c = cost("aten::baddbmm", "[[4,32,16],[4,32,64],[4,64,16],[],[]]", "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 264192.0);
    assert_true(c.bytes == 65536.0);
    /* linear(x[2,10,64], W[32,64], b[32]) float: M = 20, 2*20*32*64 + 20*32 = 82,560;
     * (1280 + 2048 + 32 + 640) * 4 = 16,000 */
    c = cost("aten::linear", "[[2,10,64],[32,64],[32]]", "[\"float\",\"float\",\"float\"]", NULL);
    assert_true(c.flops == 82560.0);
    assert_true(c.bytes == 16000.0);
    /* without the bias: 81,920; (1280 + 2048 + 640) * 4 = 15,872 */
    c = cost("aten::linear", "[[2,10,64],[32,64],[]]", "[\"float\",\"float\",\"\"]", NULL);
    assert_true(c.flops == 81920.0);
    assert_true(c.bytes == 15872.0);
    /* matmul(x[2,3,8,16], W[16,4]) float: rows 2*3*8 = 48, 2*48*4*16 = 6,144;
     * (768 + 64 + 48*4) * 4 = 4,096 */
    c = cost("aten::matmul", "[[2,3,8,16],[16,4]]", "[\"float\",\"float\"]", NULL);
    assert_true(c.flops == 6144.0);
    assert_true(c.bytes == 4096.0);
    /* matmul(x[5,8,16], y[5,16,4]) float: batch 5, 2*5*8*4*16 = 5,120; (640 + 320 + 160) * 4 */
    c = cost("aten::matmul", "[[5,8,16],[5,16,4]]", "[\"float\",\"float\"]", NULL);
    assert_true(c.flops == 5120.0);
    assert_true(c.bytes == 4480.0);
    /* _scaled_mm(A[16,32], B[32,64]) fp8 e4m3, no bias: 2*16*64*32 = 65,536; 512 + 2048 bytes in,
     * the output in a 2-byte type 16*64*2 = 2,048 */
    c = cost("aten::_scaled_mm", "[[16,32],[32,64],[],[],[],[]]",
             "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\",\"\",\"\"]", NULL);
    assert_true(c.flops == 65536.0);
    assert_true(c.bytes == 4608.0);
    /* shapes that do not fit: not known */
    assert_false(ks_op_cost_of("aten::mm", "[[64,128],[127,256]]", "[\"float\",\"float\"]", NULL).known);
    assert_false(ks_op_cost_of("aten::mm", "[[64,128]]", "[\"float\"]", NULL).known);
    assert_false(ks_op_cost_of("aten::mm", "[[64,128],[128,256]]", NULL, NULL).known); /* no type */
    assert_false(ks_op_cost_of("aten::index_select", "[[512,512],[],[141]]", "[\"float\",\"Scalar\",\"long int\"]", NULL).known);
    assert_false(ks_op_cost_of("aten::mm", "[[64,128],[128,", "[\"float\"]", NULL).known);
}

static void attention(void **state)
{
    (void)state;
    /* q, k, v [1,8,141,64] bf16, not causal: 2*1*8*141*141*(64+64) = 40,716,288 (TraceLens:
     * 0.040716288 GFLOPS); q, k, v and the output 4 * 72,192 * 2 = 577,536 (0.55078125 MiB) */
    ks_op_cost c = cost("aten::_scaled_dot_product_flash_attention", "[[1,8,141,64],[1,8,141,64],[1,8,141,64],[],[],[],[]]",
                        "[" BF16 "," BF16 "," BF16 ",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
                        "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"0.125\"]");
    assert_true(c.flops == 40716288.0);
    assert_true(c.bytes == 577536.0);
    /* the same in flash_attn's layout [B, N, H, d] */
    c = cost("aten::_flash_attention_forward", "[[1,141,8,64],[1,141,8,64],[1,141,8,64],[],[],[],[],[],[]]",
             "[" BF16 "," BF16 "," BF16 "]", NULL);
    assert_true(c.flops == 40716288.0);
    /* causal (is_causal, argument 5 of scaled_dot_product_attention): half of
     * 2*2*4*128*128*(64+64) = 33,554,432 */
    c = cost("aten::scaled_dot_product_attention", "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"\",\"Scalar\",\"Scalar\"]", "[\"\",\"\",\"\",\"\",\"0.\",\"True\"]");
    assert_true(c.flops == 16777216.0);
    /* backward (grad_out, q, k, v, out, ...): 2.5 times the forward, 40,716,288 * 2.5; bytes: q, k,
     * v, out, grad_out read and dq, dk, dv written: 2 * 577,536 + 144,384 */
    c = cost("aten::_scaled_dot_product_flash_attention_backward",
             "[[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141,64],[1,8,141],[],[],[],[],[],[],[],[],[]]",
             "[" BF16 "," BF16 "," BF16 "," BF16 "," BF16 ",\"float\"]", NULL);
    assert_true(c.flops == 101790720.0);
    assert_true(c.bytes == 1299456.0);
    assert_int_equal(c.cls, KS_WC_ATTENTION);
}

static void convolution(void **state)
{
    (void)state;
    /* x[4,3,224,224], w[768,3,16,16], stride 16, padding 0: out 14x14;
     * 2*4*768*(14*14)*3*(16*16) = 924,844,032 (TraceLens: 0.924844032 GFLOPS); x + w + out =
     * (602,112 + 589,824 + 602,112) * 2 = 3,588,096 (3.421875 MiB) */
    ks_op_cost c = cost("aten::convolution", "[[4,3,224,224],[768,3,16,16],[768],[],[],[],[],[],[]]",
                        "[" BF16 "," BF16 "," BF16 ",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]",
                        "[\"\",\"\",\"\",\"[16, 16]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\"]");
    assert_true(c.flops == 924844032.0);
    assert_true(c.bytes == 3588096.0);
    /* cudnn_convolution(x, w, padding, stride, dilation, groups): x[1,8,10,10], w[16,8,3,3],
     * padding 1, stride 2: out (10+2-2-1)/2+1 = 5; 2*1*16*25*8*9 = 57,600;
     * (800 + 1152 + 400) * 4 = 9,408 */
    c = cost("aten::cudnn_convolution", "[[1,8,10,10],[16,8,3,3],[],[],[],[]]", "[\"float\",\"float\"]",
             "[\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\"]");
    assert_true(c.flops == 57600.0);
    assert_true(c.bytes == 9408.0);
    /* depthwise, groups 8: w[8,1,3,3], stride 1, padding 1: out 10x10; 2*1*8*100*1*9 = 14,400 */
    c = cost("aten::convolution", "[[1,8,10,10],[8,1,3,3],[],[],[],[],[],[],[]]", "[\"float\",\"float\"]",
             "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"8\"]");
    assert_true(c.flops == 14400.0);
    /* backward with output_mask [False, True, True] (grad_weight only): x[1,1,4,4], w[1,1,3,3]:
     * out 2x2, one forward 2*1*1*4*1*9 = 72; bytes: grad_out 4, x 16, w 9, plus grad_weight 9,
     * all float: 38 * 4 = 152 */
    c = cost("aten::convolution_backward", "[[1,1,2,2],[1,1,4,4],[1,1,3,3],[],[],[],[],[],[],[],[]]",
             "[\"float\",\"float\",\"float\"]",
             "[\"\",\"\",\"\",\"[0]\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[False, True, True]\"]");
    assert_true(c.flops == 72.0);
    assert_true(c.bytes == 152.0);
    assert_int_equal(c.cls, KS_WC_CONV);
}

/* sizes no tensor has: a negative size, or more elements than MAX_NUMEL (2^53), make the op not
 * known rather than a wrapped product (UBSan reports the overflow); the largest that fit are known.
 * Concrete Inputs that push a convolution's output size out of the int64 range: not known either. */
static void extreme_sizes(void **state)
{
    (void)state;
    ks_op_cost c = ks_op_cost_of("aten::add", "[[-4,8],[4,8]]", "[\"float\",\"float\"]", NULL);
    assert_false(c.known);
    /* 2^32 * 2^32 = 2^64 elements: past int64; 2^27 * 2^27 = 2^54: past 2^53 */
    c = ks_op_cost_of("aten::add", "[[4294967296,4294967296],[1]]", "[\"float\",\"float\"]", NULL);
    assert_false(c.known);
    c = ks_op_cost_of("aten::relu", "[[134217728,134217728]]", "[\"float\"]", NULL);
    assert_false(c.known);
    c = ks_op_cost_of("aten::add", "[[9223372036854775807,128],[1]]", "[\"float\",\"float\"]", NULL);
    assert_false(c.known);
    /* 2^53 elements exactly: known, its bytes exact (2^53 * 4 read, 2^53 * 4 written) */
    c = ks_op_cost_of("aten::relu", "[[67108864,134217728]]", "[\"float\"]", NULL);
    assert_true(c.known);
    assert_true(c.bytes == 2.0 * 4.0 * 9007199254740992.0);
    /* a batched matmul whose broadcast batch passes 2^53: [2^27, 1, 2, 2] @ [1, 2^27, 2, 2] */
    c = ks_op_cost_of("aten::matmul", "[[134217728,1,2,2],[1,134217728,2,2]]", "[\"float\",\"float\"]", NULL);
    assert_false(c.known);
    /* a convolution with a stride and a dilation of 2^62: its output size is out of range */
    c = ks_op_cost_of("aten::cudnn_convolution", "[[1,8,10,10],[16,8,3,3],[],[],[],[]]", "[\"float\",\"float\"]",
                      "[\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[4611686018427387904, 4611686018427387904]\",\"1\"]");
    assert_false(c.known);
    c = ks_op_cost_of("aten::cudnn_convolution", "[[1,8,10,10],[16,8,3,3],[],[],[],[]]", "[\"float\",\"float\"]",
                      "[\"\",\"\",\"[-9223372036854775807, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\"]");
    assert_false(c.known);
    /* transposed: x[1,2,5,5], w[2,4,3,3], stride 2^62: (5 - 1) * 2^62 passes int64 */
    c = ks_op_cost_of("aten::convolution", "[[1,2,5,5],[2,4,3,3],[],[],[],[],[],[],[]]", "[\"float\",\"float\"]",
                      "[\"\",\"\",\"\",\"[4611686018427387904, 1]\",\"[0, 0]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"1\"]");
    assert_false(c.known);
}

#define F "\"float\""
#define GL "\"GenericList\""

/* the backward and transposed convolutions of every era, from what they record: grad_output
 * [2,4,3,3] of x [2,2,5,5] by w [4,2,3,3] (stride 1, no padding: out 5-3+1 = 3); one gradient is
 * 2*N*Cout*prod(out)*(Cin/g)*prod(k) = 2*2*4*9*2*9 = 2,592 FLOPs; float: grad_output 72, x 100,
 * w 72 elements */
static void convolution_backward(void **state)
{
    (void)state;
    /* cudnn_convolution_backward_input(self_size, grad_output, weight, padding, stride, dilation,
     * groups, benchmark, deterministic, allow_tf32): all from grad_output and weight (weight[1] is
     * Cin/g); bytes: grad_output + weight read, grad_input (self_size) written: (72 + 72 + 100) * 4 */
    const char *in_dims = "[[],[2,4,3,3],[4,2,3,3],[],[],[],[],[],[],[]]";
    const char *in_types = "[" GL "," F "," F "," GL "," GL "," GL ",\"Int\",\"Bool\",\"Bool\",\"Bool\"]";
    ks_op_cost c = cost("aten::cudnn_convolution_backward_input", in_dims, in_types,
                        "[\"[2, 2, 5, 5]\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\"]");
    assert_true(c.flops == 2592.0);
    assert_true(c.bytes == 976.0);
    assert_null(c.why);
    assert_int_equal(c.cls, KS_WC_CONV);
    /* as PyTorch 1.9 records it, without Concrete Inputs: the FLOPs, and the bytes not observed
     * (the grad_input's size is the int list self_size) */
    c = cost("aten::cudnn_convolution_backward_input", in_dims, in_types, NULL);
    assert_true(c.flops == 2592.0);
    assert_true(isnan(c.bytes));
    assert_non_null(c.why);
    assert_non_null(strstr(c.why, "input's size"));
    /* the resnet50 trace's data gradient of a 1x1 conv: grad_output [32,1024,14,14], weight
     * [1024,256,1,1]: 2*32*1024*196*256 = 3,288,334,336 */
    c = cost("aten::cudnn_convolution_backward_input", "[[],[32,1024,14,14],[1024,256,1,1],[],[],[],[],[],[],[]]",
             in_types, NULL);
    assert_true(c.flops == 3288334336.0);
    /* cudnn_convolution_backward_weight(weight_size, grad_output, self, ...): prod(weight_size) =
     * Cout*(Cin/g)*prod(k) = 72: 2*2*9*72 = 2,592; bytes (72 + 100 + 72) * 4 */
    const char *w_dims = "[[],[2,4,3,3],[2,2,5,5],[],[],[],[],[],[],[]]";
    c = cost("aten::cudnn_convolution_backward_weight", w_dims, in_types,
             "[\"[4, 2, 3, 3]\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\"]");
    assert_true(c.flops == 2592.0);
    assert_true(c.bytes == 976.0);
    /* without Concrete Inputs the kernel size and groups are unknown: not known, with the reason */
    c = ks_op_cost_of("aten::cudnn_convolution_backward_weight", w_dims, in_types, NULL);
    assert_false(c.known);
    assert_non_null(c.why);
    assert_non_null(strstr(c.why, "weight's size"));
    /* a weight_size whose Cout is not grad_output's channels does not fit */
    assert_false(ks_op_cost_of("aten::cudnn_convolution_backward_weight", w_dims, in_types,
                               "[\"[5, 2, 3, 3]\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"\",\"\",\"\"]")
                     .known);
    /* cudnn_convolution_backward(self, grad_output, weight, ..., output_mask[2]): both gradients,
     * 5,184; bytes: grad_output, x, w read, grad_input and grad_weight written: 416 * 4 */
    const char *b_dims = "[[2,2,5,5],[2,4,3,3],[4,2,3,3],[],[],[],[],[],[],[],[]]";
    const char *b_types = "[" F "," F "," F "," GL "," GL "," GL ",\"Int\",\"Bool\",\"Bool\",\"Bool\"," GL "]";
    c = cost("aten::cudnn_convolution_backward", b_dims, b_types,
             "[\"\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"False\",\"False\",\"True\",\"[True, True]\"]");
    assert_true(c.flops == 5184.0);
    assert_true(c.bytes == 1664.0);
    /* output_mask not recorded: which gradients it computed is unknown */
    c = ks_op_cost_of("aten::cudnn_convolution_backward", b_dims, b_types, NULL);
    assert_false(c.known);
    assert_non_null(strstr(c.why, "output_mask"));
    /* thnn_conv2d_backward(grad_output, self, weight, kernel_size, stride, padding, finput,
     * fgrad_input, output_mask[3]) asking for grad_input only: 2,592; bytes (72 + 100 + 72 + 100) * 4 */
    c = cost("aten::thnn_conv2d_backward", "[[2,4,3,3],[2,2,5,5],[4,2,3,3],[],[],[],[],[],[]]",
             "[" F "," F "," F "," GL "," GL "," GL "," F "," F "," GL "]",
             "[\"\",\"\",\"\",\"[3, 3]\",\"[1, 1]\",\"[0, 0]\",\"\",\"\",\"[True, False, False]\"]");
    assert_true(c.flops == 2592.0);
    assert_true(c.bytes == 1376.0);
    /* miopen_convolution_backward_weight and mkldnn_convolution_backward_weights: the same schema
     * as cuDNN's */
    c = cost("aten::miopen_convolution_backward_weight", "[[],[2,4,3,3],[2,2,5,5],[],[],[],[],[],[]]",
             "[" GL "," F "," F "," GL "," GL "," GL ",\"Int\",\"Bool\",\"Bool\"]",
             "[\"[4, 2, 3, 3]\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"False\",\"False\"]");
    assert_true(c.flops == 2592.0);
    /* conv_transpose2d(x[1,4,3,3], w[4,2,3,3], bias, stride 2, padding 0, output_padding 0,
     * groups 1, dilation 1): each input element meets Cout/g*prod(k) = 18 weights:
     * 2*1*9*4*2*9 = 1,296; out (3-1)*2 + (3-1) + 1 = 7: 2*49 = 98 elements; (36 + 72 + 98) * 4 */
    const char *t_dims = "[[1,4,3,3],[4,2,3,3],[],[],[],[],[],[]]";
    const char *t_types = "[" F "," F ",\"\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Int\",\"ScalarList\"]";
    c = cost("aten::conv_transpose2d", t_dims, t_types,
             "[\"\",\"\",\"\",\"[2, 2]\",\"[0, 0]\",\"[0, 0]\",\"1\",\"[1, 1]\"]");
    assert_true(c.flops == 1296.0);
    assert_true(c.bytes == 824.0);
    /* without Concrete Inputs: the FLOPs (they need no stride), not the output's bytes */
    c = cost("aten::conv_transpose2d", t_dims, t_types, NULL);
    assert_true(c.flops == 1296.0);
    assert_true(isnan(c.bytes));
    /* a forward convolution without its stride and padding is not known: no stride of 1 assumed
     * (the resnet50 trace's downsampling 1x1 conv has stride 2) */
    c = ks_op_cost_of("aten::cudnn_convolution", "[[32,512,28,28],[1024,512,1,1],[],[],[],[],[],[],[]]",
                      "[" F "," F "," GL "," GL "," GL ",\"Int\",\"Bool\",\"Bool\",\"Bool\"]", NULL);
    assert_false(c.known);
    assert_non_null(strstr(c.why, "stride"));
    /* conv2d with padding "same" (stride 1): out = in; x[1,2,5,5], w[4,2,3,3]: 2*1*4*25*2*9 = 3,600 */
    c = cost("aten::conv2d", "[[1,2,5,5],[4,2,3,3],[],[],[],[],[]]",
             "[" F "," F ",\"\",\"ScalarList\",\"str\",\"ScalarList\",\"Int\"]",
             "[\"\",\"\",\"\",\"[1, 1]\",\"same\",\"[1, 1]\",\"1\"]");
    assert_true(c.flops == 3600.0);
    /* cat.out(tensors, dim, out): the list's sizes are not recorded, the output is theirs: no
     * FLOPs, its elements read and written, 2 * 18,500 * 4 bytes */
    c = cost("aten::cat", "[[],[],[18500]]", "[\"TensorList\",\"Scalar\",\"float\"]", NULL);
    assert_true(c.flops == 0.0);
    assert_true(c.bytes == 148000.0);
    assert_int_equal(c.cls, KS_WC_ELEMENTWISE);
    /* without the out tensor: not known */
    assert_false(ks_op_cost_of("aten::cat", "[[],[]]", "[\"TensorList\",\"Scalar\"]", NULL).known);
    /* an op without a formula says so */
    c = ks_op_cost_of("aten::index_select", "[[512,512],[],[141]]", "[\"float\",\"Scalar\",\"long int\"]", NULL);
    assert_false(c.known);
    assert_non_null(c.why);
}

static void norms_and_pointwise(void **state)
{
    (void)state;
    /* layer_norm(x[1,141,512], [512], w[512], b[512]): 72,192 elements, 5 per element + 2 for the
     * affine: 505,344; read x, write y, read w and b: 2*72,192*2 + 1024 + 1024 = 290,816 */
    ks_op_cost c = cost("aten::layer_norm", "[[1,141,512],[],[512],[512],[],[]]",
                        "[" BF16 ",\"ScalarList\"," BF16 "," BF16 ",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 505344.0);
    assert_true(c.bytes == 290816.0);
    assert_int_equal(c.cls, KS_WC_NORM);
    /* rms_norm without a weight: 5 per element; x in and out */
    c = cost("aten::rms_norm", "[[4,256],[],[],[]]", "[\"float\",\"\",\"\",\"\"]", NULL);
    assert_true(c.flops == 5120.0);
    assert_true(c.bytes == 8192.0);
    /* vLLM's fused_add_rms_norm(input[888,2880], residual[888,2880], weight[2880], eps) bf16, as the
     * B200 trace records it: 2,557,440 elements, 1 (the add) + 5 + 2 (the weight) each:
     * 20,459,520; input and residual read, both written (4 * 2,557,440 * 2 = 20,459,520) and the
     * weight read (5,760): 20,465,280 */
    c = cost("_C::fused_add_rms_norm", "[[888, 2880], [888, 2880], [2880], []]", "[" BF16 "," BF16 "," BF16 ",\"Scalar\"]", NULL);
    assert_true(c.known);
    assert_int_equal(c.cls, KS_WC_NORM);
    assert_true(c.flops == 20459520.0);
    assert_true(c.bytes == 20465280.0);
    /* SGLang's: the same arguments */
    c = cost("sgl_kernel::fused_add_rmsnorm", "[[888, 2880], [888, 2880], [2880], []]", "[" BF16 "," BF16 "," BF16 ",\"Scalar\"]", NULL);
    assert_true(c.flops == 20459520.0);
    assert_true(c.bytes == 20465280.0);
    /* a residual of another size does not fit the formula */
    c = ks_op_cost_of("_C::fused_add_rms_norm", "[[888, 2880], [888], [2880], []]", "[" BF16 "," BF16 "," BF16 ",\"Scalar\"]", NULL);
    assert_false(c.known);
    /* vLLM's rms_norm(out[4,256], input[4,256], weight[256], eps) float: 1,024 elements, 7 each:
     * 7,168; input read, out written (2 * 4,096), the weight read (1,024): 9,216 */
    c = cost("_C::rms_norm", "[[4,256],[4,256],[256],[]]", "[\"float\",\"float\",\"float\",\"Scalar\"]", NULL);
    assert_true(c.flops == 7168.0);
    assert_true(c.bytes == 9216.0);
    c = cost("sgl_kernel::rmsnorm", "[[4,256],[4,256],[256],[],[]]", "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 7168.0);
    assert_true(c.bytes == 9216.0);
    /* add(x[1,141,512], y[1,141,512], alpha): one FLOP per output element, 72,192; bytes 3 *
     * 72,192 * 2 = 433,152 (TraceLens: 7.2192e-05 GFLOPS, 0.4130859375 MiB) */
    c = cost("aten::add", "[[1,141,512],[1,141,512],[]]", "[" BF16 "," BF16 ",\"Scalar\"]", NULL);
    assert_true(c.flops == 72192.0);
    assert_true(c.bytes == 433152.0);
    assert_int_equal(c.cls, KS_WC_ELEMENTWISE);
    /* mul(x[8,1,16], y[1,4,16]) float broadcasts: the output is as large as the larger input,
     * 128; bytes (128 + 64 + 128) * 4 = 1,280 */
    c = cost("aten::mul_", "[[8,1,16],[1,4,16]]", "[\"float\",\"float\"]", NULL);
    assert_true(c.flops == 128.0);
    assert_true(c.bytes == 1280.0);
    /* an out= form: the out tensor (last, one argument past the functional form's) is the output,
     * written once and not read. clamp_min(self[32,256,56,56], min, out) float, as resnet50's
     * relu_ records it: 25,690,112 elements, one FLOP each; self read and out written, 2 *
     * 25,690,112 * 4 = 205,520,896 bytes (not 3x). mul(self[4,8], other[4,8], out[4,8]): 32
     * FLOPs, (32 + 32 + 32) * 4 = 384 bytes; nan_to_num(self[1024,128], nan, posinf, neginf,
     * out): 131,072 FLOPs, 2 * 524,288 bytes */
    c = cost("aten::clamp_min", "[[32,256,56,56],[],[32,256,56,56]]", "[\"float\",\"Int\",\"float\"]", NULL);
    assert_true(c.flops == 25690112.0);
    assert_true(c.bytes == 205520896.0);
    c = cost("aten::mul", "[[4,8],[4,8],[4,8]]", "[\"float\",\"float\",\"float\"]", NULL);
    assert_true(c.flops == 32.0);
    assert_true(c.bytes == 384.0);
    c = cost("aten::nan_to_num", "[[1024,128],[],[],[],[1024,128]]", "[\"float\",\"Scalar\",\"\",\"\",\"float\"]", NULL);
    assert_true(c.flops == 131072.0);
    assert_true(c.bytes == 1048576.0);
    /* not an out tensor: the functional forms' own last tensors (where(cond, self, other) and
     * add_'s other, in place), and div's rounding mode, a string: each input read, the output
     * written */
    c = cost("aten::where", "[[16],[16],[16]]", "[\"float\",\"float\",\"float\"]", NULL);
    assert_true(c.bytes == 4.0 * 16 * 4);
    c = cost("aten::add_", "[[2048,512,1,1],[2048,512,1,1],[]]", "[\"float\",\"float\",\"Int\"]", NULL);
    assert_true(c.bytes == 3.0 * 1048576 * 4);
    c = cost("aten::div", "[[64],[64],[]]", "[\"float\",\"float\",\"\"]", NULL);
    assert_true(c.bytes == 3.0 * 64 * 4);
    c = cost("aten::div", "[[64],[64],[64]]", "[\"float\",\"float\",\"float\"]", NULL); /* div.out */
    assert_true(c.bytes == 3.0 * 64 * 4);
    /* an out tensor of another size is not the output: mul(self[4,8], other[4,8], w[8]) keeps its
     * three inputs */
    c = cost("aten::mul", "[[4,8],[4,8],[8]]", "[\"float\",\"float\",\"float\"]", NULL);
    assert_true(c.bytes == (32.0 + 32 + 8 + 32) * 4);
    /* a fill writes self and reads nothing: fill_(self[32,64,112,112], value) float, 0 FLOPs,
     * 25,690,112 * 4 = 102,760,448 bytes; zero_ the same */
    c = cost("aten::fill_", "[[32,64,112,112],[]]", "[\"float\",\"Int\"]", NULL);
    assert_true(c.known);
    assert_true(c.flops == 0.0);
    assert_true(c.bytes == 102760448.0);
    c = cost("aten::zero_", "[[1000,2048]]", "[\"float\"]", NULL);
    assert_true(c.flops == 0.0);
    assert_true(c.bytes == 8192000.0);
    /* copy_(dst[1024] half, src[1024] float): no FLOPs; 2048 + 4096 bytes */
    c = cost("aten::copy_", "[[1024],[1024],[]]", "[\"c10::Half\",\"float\",\"Scalar\"]", NULL);
    assert_true(c.flops == 0.0);
    assert_true(c.bytes == 6144.0);
    /* sum(x[64,32]): one FLOP per input element, the input read (the output is not counted) */
    c = cost("aten::sum", "[[64,32],[],[],[]]", "[\"float\",\"\",\"\",\"\"]", NULL);
    assert_true(c.flops == 2048.0);
    assert_true(c.bytes == 8192.0);
    assert_int_equal(c.cls, KS_WC_REDUCE);
    /* _softmax(x[64,32]): 5 per element (max, sub, exp, sum, div); in and out */
    c = cost("aten::_softmax", "[[64,32],[],[]]", "[\"float\",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 10240.0);
    assert_true(c.bytes == 16384.0);
    assert_int_equal(ks_input_type_size("c10::Float8_e5m2"), 1);
    assert_int_equal(ks_input_type_size("long int"), 8);
    assert_int_equal(ks_input_type_size("Scalar"), 0);
}

/* batch norm, forward and backward: 5 FLOPs per element of the input (+2 with the affine weight),
 * the input read and the output written at their own sizes, the weight and the bias read; the
 * running statistics are not counted (docs/analysis.md, "Shapes and FLOPs") */
static void batch_norm(void **state)
{
    (void)state;
    /* batch_norm(x[32,64,28,28], w[64], b[64], running_mean[64], running_var[64], training,
     * momentum, eps, cudnn_enabled) float: 32*64*28*28 = 1,605,632 elements; 7 per element:
     * 11,239,424; bytes 2*1,605,632*4 + 64*4 + 64*4 = 12,845,056 + 512 = 12,845,568 */
    ks_op_cost c = cost("aten::batch_norm", "[[32,64,28,28],[64],[64],[64],[64],[],[],[],[]]",
                        "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\","
                        "\"Scalar\"]",
                        NULL);
    assert_true(c.flops == 11239424.0);
    assert_true(c.bytes == 12845568.0);
    assert_int_equal(c.cls, KS_WC_NORM);
    assert_int_equal(c.dtype_bytes, 4);
    /* cudnn_batch_norm(x[8,16,4,4] bf16, w, b, running stats [16] float): 2,048 elements, 7 each:
     * 14,336; bytes 2*2,048*2 (bf16) + 16*4 + 16*4 (float weight and bias) = 8,320 */
    c = cost("aten::cudnn_batch_norm", "[[8,16,4,4],[16],[16],[16],[16],[],[],[]]",
             "[" BF16 ",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 14336.0);
    assert_true(c.bytes == 8320.0);
    assert_int_equal(c.dtype_bytes, 2);
    /* native_batch_norm without the affine (weight and bias undefined): 5 per element of x[4,8,10],
     * 1,600; bytes x in and out 2*320*4 = 2,560 */
    c = cost("aten::native_batch_norm", "[[4,8,10],[],[],[8],[8],[],[],[]]",
             "[\"float\",\"\",\"\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL);
    assert_true(c.flops == 1600.0);
    assert_true(c.bytes == 2560.0);
    /* native_batch_norm_backward(grad_out, x[32,64,28,28], w[64], running_mean, running_var,
     * save_mean, save_invstd, train, eps, output_mask) float: twice the forward's FLOPs,
     * 2*7*1,605,632 = 22,478,848; bytes: grad_out and x read, grad_input written, 3*6,422,528 =
     * 19,267,584, and the weight 256: 19,267,840 */
    c = cost("aten::native_batch_norm_backward", "[[32,64,28,28],[32,64,28,28],[64],[64],[64],[64],[64],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\","
             "\"ScalarList\"]",
             NULL);
    assert_true(c.flops == 22478848.0);
    assert_true(c.bytes == 19267840.0);
    assert_int_equal(c.cls, KS_WC_NORM);
    /* the same without the weight: 2*5*320 = 3,200 for x[4,8,10]; bytes 3*320*4 = 3,840 */
    c = cost("aten::native_batch_norm_backward", "[[4,8,10],[4,8,10],[],[8],[8],[8],[8],[],[],[]]",
             "[\"float\",\"float\",\"\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\","
             "\"ScalarList\"]",
             NULL);
    assert_true(c.flops == 3200.0);
    assert_true(c.bytes == 3840.0);
    /* cudnn_batch_norm_backward(x, grad_out[2,4,3,3] half, w[4] float, ...): 72 elements, 14 each:
     * 1,008; bytes 3*72*2 + 4*4 = 448 */
    c = cost("aten::cudnn_batch_norm_backward", "[[2,4,3,3],[2,4,3,3],[4],[4],[4],[4],[4],[],[0]]",
             "[\"c10::Half\",\"c10::Half\",\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\","
             "\"unsigned char\"]",
             NULL);
    assert_true(c.flops == 1008.0);
    assert_true(c.bytes == 448.0);
    /* miopen_batch_norm_backward(x, grad_out [1,128,32,32], w[128], ...) float, as TraceLens's
     * normalization test trace records it: 131,072 elements, 14 each: 1,835,008; bytes
     * 3*131,072*4 + 128*4 = 1,573,376 */
    c = cost("aten::miopen_batch_norm_backward", "[[1,128,32,32],[1,128,32,32],[128],[],[],[128],[128],[]]",
             "[\"float\",\"float\",\"float\",\"\",\"\",\"float\",\"float\",\"Scalar\"]", NULL);
    assert_true(c.flops == 1835008.0);
    assert_true(c.bytes == 1573376.0);
    assert_int_equal(c.cls, KS_WC_NORM);
}

/* The rows of the shapes table: by kernel time (none here: 0 each), op name, dims text, then, for
 * groups alike in those (one op and dims, two types), the types in the order their texts first
 * appear in the file (the ids the strings are given), not in the order the calls start: the
 * same two calls swapped in time give the same rows. */
static void shape_rows_order(void **state)
{
    (void)state;
    for (int swap = 0; swap < 2; swap++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"traceEvents\": ["
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,"
                 "\"args\":{\"Input Dims\": [[2, 2]], \"Input type\": [\"int\"]}},"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,"
                 "\"args\":{\"Input Dims\": [[2, 2]], \"Input type\": [\"float\"]}},"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":1,"
                 "\"args\":{\"Input Dims\": [[4]], \"Input type\": [\"float\"]}},"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":22,\"dur\":1,"
                 "\"args\":{\"Input Dims\": [[3]], \"Input type\": [\"float\"]}},"
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::abs\",\"pid\":1,\"tid\":1,\"ts\":24,\"dur\":1,"
                 "\"args\":{\"Input Dims\": [[4]], \"Input type\": [\"float\"]}}"
                 "]}",
                 swap ? 0 : 10, swap ? 10 : 0);
        ks_trace *t = ks_test_parse(text);
        ks_analysis *a = analyse(t, NULL);
        const ks_shapes *sh = ks_analysis_shapes(a);
        static const char *const want[][3] = {{"aten::abs", "[[4]]", "[\"float\"]"},
                                              {"aten::add", "[[3]]", "[\"float\"]"},
                                              {"aten::add", "[[4]]", "[\"float\"]"},
                                              {"aten::mm", "[[2,2]]", "[\"int\"]"},
                                              {"aten::mm", "[[2,2]]", "[\"float\"]"}};
        assert_int_equal(sh->n, 5);
        for (size_t i = 0; i < 5; i++) {
            const ks_shape_row *r = &sh->v[i];
            if (strcmp(ks_trace_str(t, r->op), want[i][0]) || strcmp(ks_trace_str(t, r->dims), want[i][1]) ||
                strcmp(ks_trace_str(t, r->types), want[i][2]))
                fail_msg("swap %d, row %zu: %s %s %s, expected %s %s %s", swap, i, ks_trace_str(t, r->op),
                         ks_trace_str(t, r->dims), ks_trace_str(t, r->types), want[i][0], want[i][1], want[i][2]);
            assert_int_equal(r->count, 1);
        }
        ks_analysis_free(a);
        ks_trace_free(t);
    }
}

/* Every call finds its shape record when the slices come far out of event order: ops nested
 * three deep, each written when it ends (children before their parent, which starts first, as
 * the profiler writes them), on two threads interleaved, one op in five without shape args. Each
 * group's count is the number of calls made with its shapes. */
static void shape_rows_of_nested_ops(void **state)
{
    (void)state;
    enum { TOP = 40, KIDS = 6, GRAND = 5 };
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    int count[3][4] = {{0}}; /* by depth, by the dims' second figure */
    int sep = 0;
    for (int top = 0; top < TOP; top++)
        for (int tid = 1; tid <= 2; tid++) {
            int base = top * 10000, n = 0;
            for (int k = 0; k < KIDS; k++) {
                int kb = base + 1 + k * 1000;
                for (int g = 0; g <= GRAND; g++) {
                    int depth = g < GRAND ? 2 : 1; /* the grandchildren, then their parent */
                    int ts = depth == 2 ? kb + 1 + g * 100 : kb, dur = depth == 2 ? 50 : 900;
                    int with = ++n % 5 != 0, fig = (top + k + g) % 4;
                    ks_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,"
                                      "\"tid\":%d,\"ts\":%d,\"dur\":%d%s",
                                  sep++ ? "," : "", depth, tid, ts, dur, with ? "" : "}");
                    if (with) {
                        ks_buf_printf(&b, ",\"args\":{\"Input Dims\": [[%d, %d]], \"Input type\": [\"float\"]}}",
                                      depth + 1, fig);
                        count[depth][fig]++;
                    }
                }
            }
            ks_buf_printf(&b, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op0\",\"pid\":1,\"tid\":%d,"
                              "\"ts\":%d,\"dur\":9000,\"args\":{\"Input Dims\": [[1, %d]], \"Input type\": "
                              "[\"float\"]}}",
                          tid, base, top % 4);
            count[0][top % 4]++;
        }
    ks_buf_puts(&b, "]}");
    ks_buf_cstr(&b);
    ks_trace *t = ks_test_parse(b.p);
    ks_analysis *a = analyse(t, NULL);
    const ks_shapes *sh = ks_analysis_shapes(a);
    int seen = 0;
    for (size_t i = 0; i < sh->n; i++) {
        const ks_shape_row *r = &sh->v[i];
        int depth, d1, fig;
        assert_int_equal(sscanf(ks_trace_str(t, r->op), "aten::op%d", &depth), 1);
        assert_int_equal(sscanf(ks_trace_str(t, r->dims), "[[%d,%d]]", &d1, &fig), 2);
        assert_int_equal(d1, depth + 1);
        if ((int)r->count != count[depth][fig])
            fail_msg("aten::op%d [[%d,%d]]: %d calls, expected %d", depth, d1, fig, (int)r->count,
                     count[depth][fig]);
        seen += count[depth][fig] > 0;
    }
    int groups = 0;
    for (int d = 0; d < 3; d++)
        for (int f = 0; f < 4; f++)
            groups += count[d][f] > 0;
    assert_int_equal(seen, groups);
    assert_int_equal((int)sh->n, groups);
    ks_analysis_free(a);
    ks_trace_free(t);
    free(b.p);
}

/* the parser keeps the shape args as compact JSON text; an object inside one drops it, counted */
static void recorded_shapes(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,"
        "\"args\":{\"Input Dims\": [ [64, 128] , [128,256], [], [[1], [2]] ], \"Input type\": [\"float\", \"a\\\"b\"],"
        "\"Concrete Inputs\": [\"\", \"[1, 1]\"], \"External id\": 3}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1,"
        "\"args\":{\"Input Dims\": [[2], {\"x\": [1]}]}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1}"
        "]}");
    assert_int_equal(t->nshapes, 1);
    const ks_shape_info *si = ks_trace_shape(t, 0, 0);
    assert_non_null(si);
    assert_string_equal(ks_trace_str(t, si->dims), "[[64,128],[128,256],[],[[1],[2]]]");
    assert_string_equal(ks_trace_str(t, si->types), "[\"float\",\"a\\\"b\"]");
    assert_string_equal(ks_trace_str(t, si->concrete), "[\"\",\"[1, 1]\"]");
    assert_null(ks_trace_shape(t, 0, 1));
    assert_null(ks_trace_shape(t, 0, 2));
    assert_int_equal(ks_diag_total(&t->diag, "parse.shape_args_skipped"), 1);
    /* the events themselves are whole: External id read after the shapes */
    assert_int_equal(t->tracks[0].n, 3);
    assert_true(t->tracks[0].ev[0].flags & KS_EF_EXT);
    ks_trace_free(t);
}

/* the compact text of every kind of value, and the limit: a text of KS_LIMIT_SHAPE_TEXT - 1 bytes
 * is kept, one byte more is dropped and counted; literals and escapes as JSON writes them */
static void recorded_shape_edges(void **state)
{
    (void)state;
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    for (int e = 0; e < 2; e++) {
        /* "[1,1,...,1]": 2m + 1 bytes; "[10,1,...,1]": 2m + 2 */
        size_t m = (KS_LIMIT_SHAPE_TEXT - 2) / 2;
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"name\":\"aten::cat\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                          "\"dur\":1,\"args\":{\"Input Dims\": [%s",
                      e ? "," : "", 2 * e, e ? "10" : "1");
        for (size_t i = 1; i < m; i++)
            ks_buf_puts(&b, ", 1");
        ks_buf_puts(&b, "]}}");
    }
    ks_buf_puts(&b, ",{\"ph\":\"X\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
                    "\"args\":{\"Input type\": [\"a\\u0001b\\\\c\", \"\\n\", true, false, null, -1.5e3, []]}}]}");
    ks_trace *t = ks_test_parse(ks_buf_cstr(&b));
    ks_buf_free(&b);
    assert_int_equal(t->nshapes, 2);
    const ks_shape_info *si = ks_trace_shape(t, 0, 0);
    assert_non_null(si);
    assert_int_equal(strlen(ks_trace_str(t, si->dims)), KS_LIMIT_SHAPE_TEXT - 1);
    assert_null(ks_trace_shape(t, 0, 1));
    assert_int_equal(ks_diag_total(&t->diag, "parse.shape_args_skipped"), 1);
    si = ks_trace_shape(t, 0, 2);
    assert_non_null(si);
    assert_string_equal(ks_trace_str(t, si->types),
                        "[\"a\\u0001b\\\\c\",\"\\u000a\",true,false,null,-1.5e3,[]]");
    ks_trace_free(t);
}

/* The values of a shape arg one by one (an escape in the array keeps the fast scanner from handing
 * it over whole: the parser's calls per value): strings of 0 to 20 bytes with a quote, a backslash,
 * a control byte or a two-byte UTF-8 letter at every position, and numbers of 1 to 20 digits. The
 * compact text escapes what JSON must ('"' and '\\' with a backslash, control bytes as \u00XX)
 * and keeps the rest, numbers as the trace writes them: each expected text built so here. */
static void recorded_shape_values(void **state)
{
    (void)state;
    static const char *const special[][2] = {/* the byte(s), in the trace, in the compact text */
                                             {"\"", "\\\""}, {"\\", "\\\\"}, {"\x01", "\\u0001"},
                                             {"\xc3\xa9", "\xc3\xa9"}};
    ks_buf b = {0}, want = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    size_t nev = 0;
    for (size_t len = 0; len <= 20; len++)
        for (size_t at = 0; at <= len; at++) /* at == len: no special byte */
            for (size_t k = 0; k < (at < len ? 4u : 1u); k++) {
                ks_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,"
                                  "\"ts\":%zu,\"dur\":1,\"args\":{\"Input type\": [\"\\u0002\", \"",
                              nev ? "," : "", 2 * nev);
                for (size_t i = 0; i < len; i++) {
                    if (i != at)
                        ks_buf_putc(&b, (char)('a' + i % 26));
                    else if (k == 0)
                        ks_buf_puts(&b, "\\\"");
                    else if (k == 1)
                        ks_buf_puts(&b, "\\\\");
                    else if (k == 2)
                        ks_buf_puts(&b, "\\u0001");
                    else
                        ks_buf_puts(&b, special[3][0]);
                }
                /* and a number of len digits (1 for 0) */
                ks_buf_puts(&b, "\", ");
                for (size_t i = 0; i < (len ? len : 1); i++)
                    ks_buf_putc(&b, (char)('1' + i % 9));
                ks_buf_puts(&b, ", -1.5e-07]}}");
                nev++;
            }
    ks_buf_puts(&b, "]}");
    ks_trace *t = ks_test_parse(ks_buf_cstr(&b));
    ks_buf_free(&b);
    assert_int_equal(t->nshapes, nev);
    size_t e = 0;
    for (size_t len = 0; len <= 20; len++)
        for (size_t at = 0; at <= len; at++)
            for (size_t k = 0; k < (at < len ? 4u : 1u); k++) {
                want.n = 0;
                ks_buf_puts(&want, "[\"\\u0002\",\"");
                for (size_t i = 0; i < len; i++) {
                    if (i != at)
                        ks_buf_putc(&want, (char)('a' + i % 26));
                    else
                        ks_buf_puts(&want, special[k][1]);
                }
                ks_buf_puts(&want, "\",");
                for (size_t i = 0; i < (len ? len : 1); i++)
                    ks_buf_putc(&want, (char)('1' + i % 9));
                ks_buf_puts(&want, ",-1.5e-07]");
                const ks_shape_info *si = ks_trace_shape(t, 0, (uint32_t)e);
                assert_non_null(si);
                if (strcmp(ks_trace_str(t, si->types), ks_buf_cstr(&want)))
                    fail_msg("%zu bytes, special %zu at %zu: %s, expected %s", len, k, at, ks_trace_str(t, si->types),
                             ks_buf_cstr(&want));
                e++;
            }
    ks_buf_free(&want);
    ks_trace_free(t);
}

/* Shape args met again byte for byte take the id the parser remembered for them (shapememo.c):
 * the same text under another key, the same compact text written with other blanks, texts that
 * differ by a byte, and a grid (never remembered) between them; each event's texts as its own
 * compaction gives them, whichever came first. */
static void recorded_shapes_again(void **state)
{
    (void)state;
    static const char *const ev[][3] = {/* Input Dims, Input type, Concrete Inputs as written */
                                        {"[[1, 2], [3]]", "[\"float\", \"int\"]", "[[1, 2], [3]]"},
                                        {"[[1, 2], [3]]", "[\"float\", \"int\"]", "[\"\", \"1\"]"},
                                        {"[[1,2],[3]]", "[\"float\",\"int\"]", "[[1, 2], [3]]"},
                                        {"[[1, 2], [4]]", "[\"float\", \"int \"]", "[\"\", \"1\"]"},
                                        {"[\n  [1, 2],\n  [3]\n]", "[\"float\", \"int\"]", "[[1, 2], [3]]"},
                                        {"[[1, 2], [3]]", "[\"float\", \"int\"]", "[[1, 2], [3]]"}};
    static const char *const want[][3] = {{"[[1,2],[3]]", "[\"float\",\"int\"]", "[[1,2],[3]]"},
                                          {"[[1,2],[3]]", "[\"float\",\"int\"]", "[\"\",\"1\"]"},
                                          {"[[1,2],[3]]", "[\"float\",\"int\"]", "[[1,2],[3]]"},
                                          {"[[1,2],[4]]", "[\"float\",\"int \"]", "[\"\",\"1\"]"},
                                          {"[[1,2],[3]]", "[\"float\",\"int\"]", "[[1,2],[3]]"},
                                          {"[[1,2],[3]]", "[\"float\",\"int\"]", "[[1,2],[3]]"}};
    enum { V = sizeof ev / sizeof ev[0], N = 40 * V };
    ks_buf b = {0};
    ks_buf_puts(&b, "{\"traceEvents\": [");
    for (size_t i = 0; i < N; i++)
        ks_buf_printf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":%zu,"
                          "\"dur\":1,\"args\":{\"Input Dims\": %s, \"grid\": [1, 2, 3], \"Input type\": %s, "
                          "\"Concrete Inputs\": %s}}",
                      i ? "," : "", 2 * i, ev[i % V][0], ev[i % V][1], ev[i % V][2]);
    ks_buf_puts(&b, "]}");
    /* read by yajl's calls, then through the fast scanner, which hands the arrays over whole (the
     * reader thread on, chunks of 700 bytes whose middles the main parser scans) */
    for (int scan = 0; scan < 2; scan++) {
        ks_parse_opts o;
        ks_parse_info info = {0};
        ks_parse_opts_init(&o);
        o.reader_thread = scan ? 2 : -1;
        o.threads = 1;
        o.chunk_size = 700;
        o.info = &info;
        ks_trace *t = NULL;
        ks_error err;
        assert_int_equal(ks_parse_buffer("again", b.p, b.n, &o, &t, &err), KS_OK);
        assert_int_equal(t->nshapes, N);
        if (scan)
            assert_true(info.units_own > 0);
        for (size_t i = 0; i < N; i++) {
            const ks_shape_info *si = ks_trace_shape(t, 0, (uint32_t)i);
            assert_non_null(si);
            const ks_str got[3] = {si->dims, si->types, si->concrete};
            for (int k = 0; k < 3; k++)
                if (strcmp(ks_trace_str(t, got[k]), want[i % V][k]))
                    fail_msg("scan %d, event %zu, arg %d: %s, expected %s", scan, i, k, ks_trace_str(t, got[k]),
                             want[i % V][k]);
            /* one id per compact text */
            if ((si->dims == ks_trace_shape(t, 0, 0)->dims) != (i % V != 3))
                fail_msg("scan %d, event %zu: Input Dims of another id", scan, i);
        }
        ks_trace_free(t);
    }
    ks_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recorded_shapes),
        cmocka_unit_test(shape_rows_order),
        cmocka_unit_test(shape_rows_of_nested_ops),
        cmocka_unit_test(recorded_shape_edges),
        cmocka_unit_test(recorded_shape_values),
        cmocka_unit_test(recorded_shapes_again),
        cmocka_unit_test(gemm),
        cmocka_unit_test(attention),
        cmocka_unit_test(convolution),
        cmocka_unit_test(convolution_backward),
        cmocka_unit_test(extreme_sizes),
        cmocka_unit_test(norms_and_pointwise),
        cmocka_unit_test(batch_norm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
