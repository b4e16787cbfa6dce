/* analysis/flops.c: what one call of an op does (kinesift/kernels.h, ks_op_cost_of): its FLOPs and
 * the bytes of the tensors it reads and writes, from the op's name and its recorded shapes (the
 * compact JSON text of "Input Dims", "Input type" and "Concrete Inputs" that the parser keeps).
 * The argument positions are the aten schemas' (native_functions.yaml); a Concrete Inputs entry is
 * the text PyTorch printed for a non-tensor argument ("[16, 16]", "False", "1"). An op without a
 * formula, or whose shapes do not fit its schema, is not known: no figure rather than a wrong one. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/passes.h"
#include "common/util.h"
#include "kinesift/kernels.h"

#define MAX_ARGS 24
#define MAX_RANK 8
/* the most elements a tensor of Input Dims may have (2^53: exact as a double); a tensor with more,
 * or with a negative size, is not a tensor the formulas can reason about: its op is not known */
#define MAX_NUMEL (INT64_C(1) << 53)

/* one argument of Input Dims: a tensor's sizes (rank 0: a scalar or an empty entry) */
typedef struct arg {
    int rank;
    int list;              /* a list of tensors, or deeper: not read */
    int64_t d[MAX_RANK];
} arg;

typedef struct args {
    int n;
    arg v[MAX_ARGS];
    char type[MAX_ARGS][24];   /* "Input type" entries */
    char conc[MAX_ARGS][48];   /* "Concrete Inputs" entries (strings), "" when none */
} args;

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    return s;
}

/* strtoll(s, end, 10) for the plain decimal integers of the parser's compact text, without the
 * library call (half of a parse); anything else, and anything near the range's ends, is
 * strtoll's */
static long long dims_int(const char *s, char **end)
{
    const char *p = s;
    int neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return strtoll(s, end, 10);
    unsigned long long v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v >= (1ULL << 58))
            return strtoll(s, end, 10);
        v = v * 10 + (unsigned)(*p - '0');
    }
    *end = (char *)p;
    return neg ? -(long long)v : (long long)v;
}

/* "[[141,512],[512,512],[]]": 0 on success */
static int parse_dims(const char *s, args *a)
{
    a->n = 0;
    s = skip_ws(s);
    if (*s++ != '[')
        return -1;
    s = skip_ws(s);
    if (*s == ']')
        return 0;
    for (;;) {
        if (a->n == MAX_ARGS)
            return -1;
        arg *x = &a->v[a->n++];
        memset(x, 0, sizeof *x);
        s = skip_ws(s);
        if (*s == '[') {
            s++;
            s = skip_ws(s);
            while (*s && *s != ']') {
                if (*s == '[') { /* a list of tensors: skip it */
                    x->list = 1;
                    int depth = 0;
                    do {
                        if (*s == '[')
                            depth++;
                        else if (*s == ']')
                            depth--;
                        s++;
                    } while (*s && depth > 0);
                } else {
                    char *end;
                    long long v = dims_int(s, &end);
                    if (end == s)
                        return -1;
                    if (x->rank < MAX_RANK)
                        x->d[x->rank] = v;
                    else
                        x->list = 1;
                    x->rank++;
                    s = end;
                }
                s = skip_ws(s);
                if (*s == ',')
                    s = skip_ws(s + 1);
            }
            if (*s != ']')
                return -1;
            s++;
            int64_t n = 1;
            for (int i = 0; i < x->rank && i < MAX_RANK; i++)
                if (x->d[i] < 0 || __builtin_mul_overflow(n, x->d[i], &n) || n > MAX_NUMEL)
                    return -1;
        } else {
            /* a number or literal where a list was expected: a scalar */
            while (*s && *s != ',' && *s != ']')
                s++;
        }
        s = skip_ws(s);
        if (*s == ',') {
            s++;
            continue;
        }
        return *s == ']' ? 0 : -1;
    }
}

/* ["float","Scalar",""] into the fields of width bytes at out (each truncated to its field); the
 * count, or -1 */
static int parse_strings(const char *s, char *out, size_t width, int max)
{
    int n = 0;
    s = skip_ws(s);
    if (*s++ != '[')
        return -1;
    for (;;) {
        s = skip_ws(s);
        if (*s == ']')
            return n;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s != '"' || n == max)
            return -1;
        s++;
        size_t k = 0;
        char *o = out + (size_t)n * width;
        while (*s && *s != '"') {
            char c = *s++;
            if (c == '\\' && *s)
                c = *s++;
            if (k + 1 < width)
                o[k++] = c;
        }
        o[k] = 0;
        if (*s != '"')
            return -1;
        s++;
        n++;
    }
}

/* its elements: at most MAX_NUMEL (parse_dims refuses more) */
static int64_t numel(const arg *x)
{
    int64_t n = 1;
    for (int i = 0; i < x->rank && i < MAX_RANK; i++)
        n *= x->d[i];
    return n;
}

int ks_input_type_size(const char *t)
{
    static const struct {
        const char *name;
        int size;
    } sizes[] = {
        {"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2}, {"long int", 8},
        {"int", 4}, {"short int", 2}, {"bool", 1}, {"unsigned char", 1}, {"signed char", 1},
        {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1},
        {"c10::Float8_e5m2fnuz", 1}, {"c10::Float8_e8m0fnu", 1}, {"c10::Float4_e2m1fn_x2", 1},
        {"c10::complex<float>", 8}, {"c10::complex<double>", 16}, {"c10::complex<c10::Half>", 4},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) /* the first byte before a call */
        if (t[0] == sizes[i].name[0] && !strcmp(t, sizes[i].name))
            return sizes[i].size;
    return 0;
}

/* the ints of a Concrete Inputs text ("[16, 16]", "1"): up to max, the count */
static int conc_ints(const char *s, int64_t *v, int max)
{
    int n = 0;
    while (*s && n < max) {
        if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))) {
            char *end;
            v[n++] = strtoll(s, &end, 10);
            s = end;
        } else
            s++;
    }
    return n;
}

static int conc_true(const char *s)
{
    return !strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "1");
}

/* bytes of argument i at its own type's size (the first tensor's size when its type is unknown) */
static double arg_bytes(const args *a, int i, int fallback)
{
    if (i >= a->n || a->v[i].list || !a->v[i].rank)
        return 0;
    int sz = ks_input_type_size(a->type[i]);
    return (double)numel(&a->v[i]) * (double)(sz ? sz : fallback);
}

static int is_tensor(const args *a, int i)
{
    return i < a->n && !a->v[i].list && a->v[i].rank > 0;
}

/* ---- the families --------------------------------------------------------------------------- */

static int gemm2(ks_op_cost *c, int64_t m, int64_t n, int64_t k, int64_t batch, int bias, double bytes)
{
    if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
        return 0;
    c->flops = 2.0 * (double)batch * (double)m * (double)n * (double)k + (bias ? (double)batch * (double)m * (double)n : 0);
    c->bytes = bytes;
    return 1;
}

static int cost_gemm(const char *op, const args *a, ks_op_cost *c, int e)
{
    if (!strcmp(op, "mm") || !strcmp(op, "_scaled_mm")) {
        if (!is_tensor(a, 0) || !is_tensor(a, 1) || a->v[0].rank != 2 || a->v[1].rank != 2 || a->v[0].d[1] != a->v[1].d[0])
            return 0;
        int64_t m = a->v[0].d[0], k = a->v[0].d[1], n = a->v[1].d[1];
        /* _scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum) */
        int bias = !strcmp(op, "_scaled_mm") && is_tensor(a, 4);
        double out = (double)m * (double)n * (double)(strcmp(op, "_scaled_mm") ? e : 2);
        return gemm2(c, m, n, k, 1, bias, arg_bytes(a, 0, e) + arg_bytes(a, 1, e) + out + (bias ? arg_bytes(a, 4, e) : 0));
    }
    if (!strcmp(op, "addmm") || !strcmp(op, "_addmm_activation")) {
        /* addmm(self, mat1, mat2, beta, alpha) */
        if (!is_tensor(a, 1) || !is_tensor(a, 2) || a->v[1].rank != 2 || a->v[2].rank != 2 || a->v[1].d[1] != a->v[2].d[0])
            return 0;
        int64_t m = a->v[1].d[0], k = a->v[1].d[1], n = a->v[2].d[1];
        return gemm2(c, m, n, k, 1, 1,
                     arg_bytes(a, 0, e) + arg_bytes(a, 1, e) + arg_bytes(a, 2, e) + (double)m * (double)n * e);
    }
    if (!strcmp(op, "bmm") || !strcmp(op, "baddbmm")) {
        int o = !strcmp(op, "baddbmm"); /* baddbmm(self, batch1, batch2, beta, alpha) */
        if (!is_tensor(a, o) || !is_tensor(a, o + 1) || a->v[o].rank != 3 || a->v[o + 1].rank != 3 ||
            a->v[o].d[2] != a->v[o + 1].d[1] || a->v[o].d[0] != a->v[o + 1].d[0])
            return 0;
        int64_t b = a->v[o].d[0], m = a->v[o].d[1], k = a->v[o].d[2], n = a->v[o + 1].d[2];
        return gemm2(c, m, n, k, b, o,
                     (o ? arg_bytes(a, 0, e) : 0) + arg_bytes(a, o, e) + arg_bytes(a, o + 1, e) +
                         (double)b * (double)m * (double)n * e);
    }
    if (!strcmp(op, "linear")) {
        /* linear(input, weight[N, K], bias[N]?) */
        if (!is_tensor(a, 0) || !is_tensor(a, 1) || a->v[1].rank != 2)
            return 0;
        const arg *x = &a->v[0];
        int64_t k = x->d[x->rank - 1], n = a->v[1].d[0];
        if (k != a->v[1].d[1])
            return 0;
        int64_t m = numel(x) / (k ? k : 1);
        int bias = is_tensor(a, 2);
        return gemm2(c, m, n, k, 1, bias,
                     arg_bytes(a, 0, e) + arg_bytes(a, 1, e) + arg_bytes(a, 2, e) + (double)m * (double)n * e);
    }
    if (!strcmp(op, "matmul")) {
        if (!is_tensor(a, 0) || !is_tensor(a, 1))
            return 0;
        const arg *x = &a->v[0], *y = &a->v[1];
        if (x->rank == 1 && y->rank == 1)
            return x->d[0] == y->d[0] && gemm2(c, 1, 1, x->d[0], 1, 0, arg_bytes(a, 0, e) + arg_bytes(a, 1, e) + e);
        int64_t k = x->d[x->rank - 1];
        int64_t m = x->rank >= 2 ? x->d[x->rank - 2] : 1;
        int64_t ky = y->rank >= 2 ? y->d[y->rank - 2] : y->d[0];
        int64_t n = y->rank >= 2 ? y->d[y->rank - 1] : 1;
        if (k != ky)
            return 0;
        /* the batch: the broadcast of both batch shapes (a 2-D right side folds into rows) */
        int64_t batch = 1;
        if (y->rank <= 2) {
            m = numel(x) / (k ? k : 1);
        } else {
            int bx = x->rank - 2 > 0 ? x->rank - 2 : 0, by = y->rank - 2, nb = bx > by ? bx : by;
            for (int i = 0; i < nb; i++) {
                int64_t dx = i < nb - bx ? 1 : x->d[i - (nb - bx)], dy = i < nb - by ? 1 : y->d[i - (nb - by)];
                if (__builtin_mul_overflow(batch, dx > dy ? dx : dy, &batch) || batch > MAX_NUMEL)
                    return 0;
            }
        }
        return gemm2(c, m, n, k, batch, 0,
                     arg_bytes(a, 0, e) + arg_bytes(a, 1, e) + (double)batch * (double)m * (double)n * e);
    }
    return 0;
}

/* a + b * c, or 0 with *bad set where a step leaves the int64 range (Concrete Inputs are read as
 * the trace wrote them) */
static int64_t fma_checked(int64_t a, int64_t b, int64_t c, int *bad)
{
    int64_t r;
    if (__builtin_mul_overflow(b, c, &r) || __builtin_add_overflow(a, r, &r)) {
        *bad = 1;
        return 0;
    }
    return r;
}

/* a convolution's output size along one dimension: (in + 2p - d(k - 1) - 1) / s + 1; -1 when not
 * known (s <= 0, or out of range) */
static int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d)
{
    int bad = 0;
    int64_t x = fma_checked(fma_checked(in - 1, 2, p, &bad), d, 1 - k, &bad);
    return s <= 0 || bad ? -1 : x / s + 1;
}

/* a transposed convolution's: (in - 1)s - 2p + d(k - 1) + op + 1; -1 when out of range */
static int64_t conv_tout(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op)
{
    int bad = 0;
    int64_t x = fma_checked(fma_checked(fma_checked(1, in - 1, s, &bad), -2, p, &bad), d, k - 1, &bad);
    x = fma_checked(x, op, 1, &bad);
    return bad ? -1 : x;
}

enum { CV_FWD, CV_BWD, CV_BWD_INPUT, CV_BWD_WEIGHT };

/* One convolution op's schema (native_functions.yaml, every era's spelling): the Input Dims
 * positions of its input, weight and grad_output tensors, and the Concrete Inputs positions of
 * its stride, padding, dilation, output_padding and transposed arguments and of the int list that
 * stands for a tensor it does not take (self_size of a *_backward_input, weight_size of a
 * *_backward_weight); -1: the op has none (a missing dilation is 1, a missing output_padding 0).
 * tr: 0 never transposed, 1 always, 2 as its transposed argument says; gr: the Concrete Inputs
 * position of groups, read for a transposed forward's output (its channels are weight[1]·groups). CV_BWD ops take output_mask
 * (which gradients to compute) last. */
typedef struct conv_layout {
    const char *op;
    int8_t kind, x, w, gout, st, pd, dl, opad, targ, size, tr, gr;
} conv_layout;

static const conv_layout conv_layouts[] = {
    /* op                                          kind           x   w  go  st  pd  dl  op  ta  sz tr  gr */
    {"_conv_depthwise2d",                          CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
    {"_conv_depthwise2d_backward",                 CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"_convolution",                               CV_FWD,        0,  1, -1,  3,  4,  5,  7,  6, -1, 2,  8},
    {"_convolution_mode",                          CV_FWD,        0,  1, -1,  3,  4,  5, -1, -1, -1, 0, -1},
    {"_convolution_nogroup",                       CV_FWD,        0,  1, -1,  3,  4,  5,  7,  6, -1, 2, -1},
    {"_nnpack_spatial_convolution",                CV_FWD,        0,  1, -1,  4,  3, -1, -1, -1, -1, 0, -1},
    {"_slow_conv2d_backward",                      CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"_slow_conv2d_forward",                       CV_FWD,        0,  1, -1,  4,  5, -1, -1, -1, -1, 0, -1},
    {"conv1d",                                     CV_FWD,        0,  1, -1,  3,  4,  5, -1, -1, -1, 0, -1},
    {"conv2d",                                     CV_FWD,        0,  1, -1,  3,  4,  5, -1, -1, -1, 0, -1},
    {"conv3d",                                     CV_FWD,        0,  1, -1,  3,  4,  5, -1, -1, -1, 0, -1},
    {"conv_depthwise3d",                           CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
    {"conv_depthwise3d_backward",                  CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"conv_transpose1d",                           CV_FWD,        0,  1, -1,  3,  4,  7,  5, -1, -1, 1,  6},
    {"conv_transpose2d",                           CV_FWD,        0,  1, -1,  3,  4,  7,  5, -1, -1, 1,  6},
    {"conv_transpose3d",                           CV_FWD,        0,  1, -1,  3,  4,  7,  5, -1, -1, 1,  6},
    {"convolution",                                CV_FWD,        0,  1, -1,  3,  4,  5,  7,  6, -1, 2,  8},
    {"convolution_backward",                       CV_BWD,        1,  2,  0, -1, -1, -1, -1,  7, -1, 2, -1},
    {"convolution_backward_overrideable",          CV_BWD,        1,  2,  0, -1, -1, -1, -1,  6, -1, 2, -1},
    {"convolution_overrideable",                   CV_FWD,        0,  1, -1,  3,  4,  5,  7,  6, -1, 2,  8},
    {"cudnn_convolution",                          CV_FWD,        0,  1, -1,  3,  2,  4, -1, -1, -1, 0, -1},
    {"cudnn_convolution_add_relu",                 CV_FWD,        0,  1, -1,  5,  6,  7, -1, -1, -1, 0, -1},
    {"cudnn_convolution_backward",                 CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 0, -1},
    {"cudnn_convolution_backward_input",           CV_BWD_INPUT, -1,  2,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"cudnn_convolution_backward_weight",          CV_BWD_WEIGHT, 2, -1,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"cudnn_convolution_relu",                     CV_FWD,        0,  1, -1,  3,  4,  5, -1, -1, -1, 0, -1},
    {"cudnn_convolution_transpose",                CV_FWD,        0,  1, -1,  4,  2,  5,  3, -1, -1, 1,  6},
    {"cudnn_convolution_transpose_backward",       CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 1, -1},
    {"cudnn_convolution_transpose_backward_input", CV_BWD_INPUT, -1,  1,  0,  3,  2,  4, -1, -1, -1, 1, -1},
    {"cudnn_convolution_transpose_backward_weight", CV_BWD_WEIGHT, 2, -1, 1,  4,  3,  5, -1, -1,  0, 1, -1},
    {"miopen_convolution",                         CV_FWD,        0,  1, -1,  4,  3,  5, -1, -1, -1, 0, -1},
    {"miopen_convolution_backward",                CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 0, -1},
    {"miopen_convolution_backward_input",          CV_BWD_INPUT, -1,  2,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"miopen_convolution_backward_weight",         CV_BWD_WEIGHT, 2, -1,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"miopen_convolution_transpose",               CV_FWD,        0,  1, -1,  5,  3,  6,  4, -1, -1, 1,  7},
    {"miopen_convolution_transpose_backward",      CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 1, -1},
    {"miopen_convolution_transpose_backward_input", CV_BWD_INPUT, -1, 1,  0,  3,  2,  4, -1, -1, -1, 1, -1},
    {"miopen_convolution_transpose_backward_weight", CV_BWD_WEIGHT, 2, -1, 1, 4,  3,  5, -1, -1,  0, 1, -1},
    {"miopen_depthwise_convolution",               CV_FWD,        0,  1, -1,  4,  3,  5, -1, -1, -1, 0, -1},
    {"miopen_depthwise_convolution_backward",      CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 0, -1},
    {"miopen_depthwise_convolution_backward_input", CV_BWD_INPUT, -1, 2,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"miopen_depthwise_convolution_backward_weight", CV_BWD_WEIGHT, 2, -1, 1, 4,  3,  5, -1, -1,  0, 0, -1},
    {"mkldnn_convolution",                         CV_FWD,        0,  1, -1,  4,  3,  5, -1, -1, -1, 0, -1},
    {"mkldnn_convolution_backward",                CV_BWD,        0,  2,  1, -1, -1, -1, -1, -1, -1, 0, -1},
    {"mkldnn_convolution_backward_input",          CV_BWD_INPUT, -1,  2,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"mkldnn_convolution_backward_weights",        CV_BWD_WEIGHT, 2, -1,  1,  4,  3,  5, -1, -1,  0, 0, -1},
    {"slow_conv2d_backward",                       CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"slow_conv3d",                                CV_FWD,        0,  1, -1,  4,  5, -1, -1, -1, -1, 0, -1},
    {"slow_conv3d_backward",                       CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"slow_conv3d_forward",                        CV_FWD,        0,  1, -1,  4,  5, -1, -1, -1, -1, 0, -1},
    {"slow_conv_dilated2d",                        CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
    {"slow_conv_dilated2d_backward",               CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"slow_conv_dilated3d",                        CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
    {"slow_conv_dilated3d_backward",               CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"slow_conv_transpose2d",                      CV_FWD,        0,  1, -1,  4,  5,  7,  6, -1, -1, 1, -1},
    {"slow_conv_transpose2d_backward",             CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 1, -1},
    {"slow_conv_transpose3d",                      CV_FWD,        0,  1, -1,  4,  5,  7,  6, -1, -1, 1, -1},
    {"slow_conv_transpose3d_backward",             CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 1, -1},
    {"thnn_conv2d",                                CV_FWD,        0,  1, -1,  4,  5, -1, -1, -1, -1, 0, -1},
    {"thnn_conv2d_backward",                       CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"thnn_conv2d_forward",                        CV_FWD,        0,  1, -1,  4,  5, -1, -1, -1, -1, 0, -1},
    {"thnn_conv_depthwise2d",                      CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
    {"thnn_conv_depthwise2d_backward",             CV_BWD,        1,  2,  0, -1, -1, -1, -1, -1, -1, 0, -1},
    {"thnn_conv_depthwise2d_forward",              CV_FWD,        0,  1, -1,  4,  5,  6, -1, -1, -1, 0, -1},
};

static const char *const why_geometry =
    "not observed: the convolution's stride, padding, dilation or transposed flag is not recorded (no Concrete Inputs)";
static const char *const why_mask =
    "not observed: output_mask (which gradients the backward computes) is not recorded (no Concrete Inputs)";
static const char *const why_wsize =
    "not observed: the weight's size is an int list, not in Input Dims, and not recorded (no Concrete Inputs)";
static const char *const why_insize =
    "bytes not observed: the input's size is an int list, not in Input Dims, and not recorded (no Concrete Inputs)";
static const char *const why_tout =
    "bytes not observed: the transposed convolution's output size needs its stride, padding, output_padding and "
    "dilation (no Concrete Inputs)";

/* the sp per-dimension values of Concrete Inputs entry i (one value: every dimension) into v;
 * 0 when the op has no such argument (v keeps its default), 1 read, -1 not recorded */
static int conv_param(const args *a, int i, int sp, int64_t *v)
{
    if (i < 0)
        return 0;
    int64_t r[MAX_RANK];
    int n = i < a->n ? conc_ints(a->conc[i], r, MAX_RANK) : 0;
    if (n <= 0)
        return -1;
    for (int k = 0; k < sp; k++)
        v[k] = r[n == 1 ? 0 : k < n ? k : n - 1];
    return 1;
}

/* 1 when both tensors have the rank of a convolution's (batch, channels, spatial...) */
static int conv_pair(const args *a, int p, int q)
{
    return is_tensor(a, p) && is_tensor(a, q) && a->v[p].rank >= 3 && a->v[p].rank == a->v[q].rank &&
           a->v[p].rank <= MAX_RANK;
}

/* the product of dimensions from..rank-1 */
static double dims_from(const int64_t *d, int from, int rank)
{
    double p = 1;
    for (int i = from; i < rank; i++)
        p *= (double)d[i];
    return p;
}

/* A convolution's FLOPs: 2·N·Cout·∏out·(Cin/groups)·∏kernel (transposed: 2·N·Cin·∏in·(Cout/groups)·
 * ∏kernel), each a weight's [first, second, kernel...] sizes times N and the spatial sizes of the
 * side the kernel slides over; a backward, that for each gradient it computes. Bytes: the tensors
 * read and the gradients or the output written. What the recorded shapes and Concrete Inputs do
 * not give is not known, with its reason; nothing is assumed in its place (a stride of 1). */
static int cost_conv(const char *op, const args *a, ks_op_cost *c, int e)
{
    const conv_layout *l = NULL;
    for (size_t i = 0; i < sizeof conv_layouts / sizeof conv_layouts[0] && !l; i++)
        if (!strcmp(op, conv_layouts[i].op))
            l = &conv_layouts[i];
    if (!l)
        return 0;
    int tr = l->tr;
    if (tr == 2) {
        if (l->targ >= a->n || !a->conc[l->targ][0]) {
            c->why = why_geometry;
            return 0;
        }
        tr = conc_true(a->conc[l->targ]);
    }
    if (l->kind == CV_FWD) {
        if (!conv_pair(a, l->x, l->w))
            return 0;
        const arg *x = &a->v[l->x], *wt = &a->v[l->w];
        int sp = x->rank - 2;
        int64_t st[MAX_RANK], pd[MAX_RANK], dl[MAX_RANK], op_[MAX_RANK];
        for (int i = 0; i < sp; i++)
            st[i] = 1, pd[i] = 0, dl[i] = 1, op_[i] = 0;
        int same = 0;
        if (l->pd >= 0 && l->pd < a->n && !strcmp(a->conc[l->pd], "same"))
            same = 1;
        else if (!(l->pd >= 0 && l->pd < a->n && !strcmp(a->conc[l->pd], "valid")) && conv_param(a, l->pd, sp, pd) < 0)
            same = -1;
        int geo = same >= 0 && conv_param(a, l->st, sp, st) >= 0 && conv_param(a, l->dl, sp, dl) >= 0 &&
                  conv_param(a, l->opad, sp, op_) >= 0;
        double n = (double)x->d[0], w = (double)wt->d[0] * (double)wt->d[1] * dims_from(wt->d, 2, wt->rank);
        double bytes = arg_bytes(a, l->x, e) + arg_bytes(a, l->w, e);
        if (tr) {
            /* weight [Cin, Cout/g, k...]: each input element meets Cout/g·∏k weights */
            if (x->d[1] != wt->d[0])
                return 0;
            c->flops = 2.0 * n * dims_from(x->d, 2, x->rank) * w;
            int64_t g = 1;
            double outn = n * (double)wt->d[1];
            if (geo && conv_param(a, l->gr, 1, &g) >= 0 && g > 0) {
                outn *= (double)g;
                for (int i = 0; i < sp; i++) {
                    int64_t o = conv_tout(x->d[2 + i], wt->d[2 + i], st[i], pd[i], dl[i], op_[i]);
                    if (o <= 0)
                        return 0;
                    outn *= (double)o;
                }
                c->bytes = bytes + outn * e;
            } else {
                c->bytes = NAN;
                c->why = why_tout;
            }
            return 1;
        }
        if (!geo) {
            c->why = why_geometry;
            return 0;
        }
        double outn = n * (double)wt->d[0];
        for (int i = 0; i < sp; i++) {
            int64_t o = same > 0 ? x->d[2 + i] : conv_out(x->d[2 + i], wt->d[2 + i], st[i], pd[i], dl[i]);
            if (o <= 0)
                return 0;
            outn *= (double)o;
        }
        /* outn = N·Cout·∏out; the weight's Cout·(Cin/g)·∏k over its Cout */
        c->flops = 2.0 * outn * (double)wt->d[1] * dims_from(wt->d, 2, wt->rank);
        c->bytes = bytes + outn * e;
        return 1;
    }
    if (l->kind == CV_BWD) {
        if (!conv_pair(a, l->x, l->w) || !conv_pair(a, l->gout, l->w))
            return 0;
        const arg *x = &a->v[l->x], *wt = &a->v[l->w], *go = &a->v[l->gout];
        if (x->d[0] != go->d[0] || (tr ? x->d[1] != wt->d[0] : go->d[1] != wt->d[0]))
            return 0;
        /* output_mask [grad_input, grad_weight(, grad_bias)] */
        const char *m = a->n ? a->conc[a->n - 1] : "";
        if (*m != '[') {
            c->why = why_mask;
            return 0;
        }
        int gi = strncmp(skip_ws(m + 1), "False", 5) != 0;
        const char *comma = strchr(m, ',');
        int gw = comma ? strncmp(skip_ws(comma + 1), "False", 5) != 0 : 1;
        double one = 2.0 * (double)x->d[0] * dims_from((tr ? x : go)->d, 2, x->rank) * (double)wt->d[0] *
                     (double)wt->d[1] * dims_from(wt->d, 2, wt->rank);
        c->flops = one * (gi + gw);
        c->bytes = arg_bytes(a, l->gout, e) + arg_bytes(a, l->x, e) + arg_bytes(a, l->w, e) +
                   (gi ? arg_bytes(a, l->x, e) : 0) + (gw ? arg_bytes(a, l->w, e) : 0);
        return gi + gw > 0;
    }
    if (l->kind == CV_BWD_INPUT) {
        /* grad_input from grad_output and the weight */
        if (!conv_pair(a, l->gout, l->w))
            return 0;
        const arg *wt = &a->v[l->w], *go = &a->v[l->gout];
        int sp = go->rank - 2;
        double wn = (double)wt->d[0] * (double)wt->d[1] * dims_from(wt->d, 2, wt->rank);
        double bytes = arg_bytes(a, l->gout, e) + arg_bytes(a, l->w, e);
        if (!tr) {
            if (go->d[1] != wt->d[0])
                return 0;
            c->flops = 2.0 * (double)go->d[0] * dims_from(go->d, 2, go->rank) * wn;
            int64_t s[MAX_RANK];
            int ns = l->size >= 0 && l->size < a->n ? conc_ints(a->conc[l->size], s, MAX_RANK) : 0;
            if (ns == go->rank && s[0] == go->d[0])
                c->bytes = bytes + dims_from(s, 0, ns) * e;
            else {
                c->bytes = NAN;
                c->why = why_insize;
            }
            return 1;
        }
        /* transposed: grad_input is the plain convolution of grad_output by the weight */
        if (wt->d[1] <= 0 || go->d[1] % wt->d[1])
            return 0;
        int64_t st[MAX_RANK], pd[MAX_RANK], dl[MAX_RANK];
        for (int i = 0; i < sp; i++)
            st[i] = 1, pd[i] = 0, dl[i] = 1;
        if (conv_param(a, l->st, sp, st) < 0 || conv_param(a, l->pd, sp, pd) < 0 || conv_param(a, l->dl, sp, dl) < 0) {
            c->why = why_geometry;
            return 0;
        }
        double outn = (double)go->d[0] * (double)wt->d[0];
        for (int i = 0; i < sp; i++) {
            int64_t o = conv_out(go->d[2 + i], wt->d[2 + i], st[i], pd[i], dl[i]);
            if (o <= 0)
                return 0;
            outn *= (double)o;
        }
        c->flops = 2.0 * outn * (double)wt->d[1] * dims_from(wt->d, 2, wt->rank);
        c->bytes = bytes + outn * e;
        return 1;
    }
    /* CV_BWD_WEIGHT: grad_weight from grad_output and the input; the weight's size from Concrete
     * Inputs */
    if (!conv_pair(a, l->gout, l->x))
        return 0;
    const arg *x = &a->v[l->x], *go = &a->v[l->gout];
    int64_t ws[MAX_RANK];
    int nw = l->size >= 0 && l->size < a->n ? conc_ints(a->conc[l->size], ws, MAX_RANK) : 0;
    if (nw == 0) {
        c->why = why_wsize;
        return 0;
    }
    if (nw != x->rank || x->d[0] != go->d[0] || ws[0] != (tr ? x->d[1] : go->d[1]))
        return 0;
    c->flops = 2.0 * (double)x->d[0] * dims_from((tr ? x : go)->d, 2, x->rank) * dims_from(ws, 0, nw);
    c->bytes = arg_bytes(a, l->gout, e) + arg_bytes(a, l->x, e) + dims_from(ws, 0, nw) * e;
    return 1;
}

typedef struct attn_layout {
    const char *op;
    int q, k, v;          /* argument positions */
    int bnhd;             /* 1: [B, N, H, d] (flash_attn layout), 0: [B, H, N, d] */
    int causal;           /* Concrete Inputs position of is_causal, -1 none */
    int backward;
} attn_layout;

static const attn_layout attn[] = {
    {"scaled_dot_product_attention", 0, 1, 2, 0, 5, 0},
    {"_scaled_dot_product_flash_attention", 0, 1, 2, 0, 4, 0},
    {"_scaled_dot_product_efficient_attention", 0, 1, 2, 0, 6, 0},
    {"_scaled_dot_product_cudnn_attention", 0, 1, 2, 0, 6, 0},
    {"_flash_attention_forward", 0, 1, 2, 1, 8, 0},
    {"_efficient_attention_forward", 0, 1, 2, 1, -1, 0},
    {"_scaled_dot_product_flash_attention_backward", 1, 2, 3, 0, 11, 1},
    {"_scaled_dot_product_efficient_attention_backward", 1, 2, 3, 0, 10, 1},
    {"_scaled_dot_product_cudnn_attention_backward", 1, 2, 3, 0, 14, 1},
    {"_flash_attention_backward", 1, 2, 3, 1, 10, 1},
    {"_efficient_attention_backward", 1, 2, 3, 1, -1, 1},
};

static int cost_attention(const char *op, const args *a, ks_op_cost *c, int e)
{
    const attn_layout *l = NULL;
    for (size_t i = 0; i < sizeof attn / sizeof attn[0]; i++)
        if (!strcmp(op, attn[i].op))
            l = &attn[i];
    if (!l || !is_tensor(a, l->q) || !is_tensor(a, l->k) || !is_tensor(a, l->v) || a->v[l->q].rank != 4 ||
        a->v[l->k].rank != 4 || a->v[l->v].rank != 4)
        return 0;
    const arg *q = &a->v[l->q], *k = &a->v[l->k], *v = &a->v[l->v];
    int64_t b = q->d[0], h = l->bnhd ? q->d[2] : q->d[1], nq = l->bnhd ? q->d[1] : q->d[2], d = q->d[3];
    int64_t nk = l->bnhd ? k->d[1] : k->d[2], dv = v->d[3];
    double f = 2.0 * (double)b * (double)h * (double)nq * (double)nk * (double)(d + dv);
    if (l->causal >= 0 && l->causal < a->n && conc_true(a->conc[l->causal]))
        f /= 2;
    double out = (double)b * (double)h * (double)nq * (double)dv * e;
    double bytes = arg_bytes(a, l->q, e) + arg_bytes(a, l->k, e) + arg_bytes(a, l->v, e) + out;
    if (l->backward) {
        f *= 2.5;                     /* dQ, dK, dV, dP and the recomputed P: 5 matmuls for 2 */
        bytes = 2 * bytes + out;      /* read q, k, v, out, grad_out; write dq, dk, dv */
    }
    c->flops = f;
    c->bytes = bytes;
    return 1;
}

static int cost_norm(const char *op, const args *a, ks_op_cost *c, int e)
{
    /* the input and the affine parameters' positions; fused_add: the serving stacks' residual add
     * and RMS norm in place, (input, residual, weight, eps): input + residual read, their sum
     * written to residual and its norm to input */
    int x = 0, w = -1, bb = -1, backward = 0, fused_add = 0;
    if (!strcmp(op, "layer_norm") || !strcmp(op, "native_layer_norm"))
        w = 2, bb = 3;
    else if (!strcmp(op, "rms_norm") || !strcmp(op, "_fused_rms_norm"))
        w = 2;
    else if (!strcmp(op, "_C::rms_norm") || !strcmp(op, "sgl_kernel::rmsnorm"))
        x = 1, w = 2; /* vLLM's and SGLang's (out, input, weight, eps) */
    else if (!strcmp(op, "_C::fused_add_rms_norm") || !strcmp(op, "sgl_kernel::fused_add_rmsnorm"))
        w = 2, fused_add = 1;
    else if (!strcmp(op, "batch_norm") || !strcmp(op, "native_batch_norm") || !strcmp(op, "cudnn_batch_norm") ||
             !strcmp(op, "_native_batch_norm_legit") || !strcmp(op, "_native_batch_norm_legit_no_training") ||
             !strcmp(op, "miopen_batch_norm"))
        w = 1, bb = 2;
    else if (!strcmp(op, "group_norm") || !strcmp(op, "native_group_norm"))
        w = !strcmp(op, "group_norm") ? 2 : 1, bb = w + 1;
    else if (!strcmp(op, "native_layer_norm_backward"))
        x = 1, w = 5, backward = 1;
    else if (!strcmp(op, "native_batch_norm_backward") || !strcmp(op, "cudnn_batch_norm_backward") ||
             !strcmp(op, "miopen_batch_norm_backward"))
        x = 1, w = 2, backward = 1;
    else
        return 0;
    if (!is_tensor(a, x) || (fused_add && (!is_tensor(a, 1) || numel(&a->v[1]) != numel(&a->v[x]))))
        return 0;
    double n = (double)numel(&a->v[x]);
    int affine = w >= 0 && is_tensor(a, w);
    double f = 5 * n + (affine ? 2 * n : 0) + (fused_add ? n : 0);
    double bytes = (fused_add ? 4 : 2) * arg_bytes(a, x, e) + (w >= 0 ? arg_bytes(a, w, e) : 0) +
                   (bb >= 0 ? arg_bytes(a, bb, e) : 0);
    if (backward) {
        f *= 2;
        bytes += arg_bytes(a, x, e); /* read grad_out and input, write grad_input */
    }
    c->flops = f;
    c->bytes = bytes;
    return 1;
}

/* The argument counts of an elementwise op's functional forms (bit k: k arguments), by name,
 * sorted. Its out= form has one more, the out tensor last: recorded among the inputs, it is the
 * output, written once and not read (clamp_min(self, min, out) under clamp_min_ in resnet50's
 * trace, mul(self, other, out), nan_to_num(self, nan, posinf, neginf, out)). In-place forms (name_)
 * take self as the output and no out tensor. */
#define AR(k) (1u << (k))
typedef struct functional_form {
    const char *op;
    uint8_t arities;
} functional_form;
static const functional_form functional_args[] = {
    {"abs", AR(1)},         {"add", AR(3)},          {"addcdiv", AR(4)},       {"addcmul", AR(4)},
    {"bitwise_and", AR(2)}, {"bitwise_not", AR(1)},  {"bitwise_or", AR(2)},    {"ceil", AR(1)},
    {"clamp", AR(3)},       {"clamp_max", AR(2)},    {"clamp_min", AR(2)},     {"cos", AR(1)},
    {"div", AR(2) | AR(3)}, {"elu", AR(4)},          {"eq", AR(2)},            {"erf", AR(1)},
    {"exp", AR(1)},         {"expm1", AR(1)},        {"floor", AR(1)},         {"ge", AR(2)},
    {"gelu", AR(2)},        {"gelu_backward", AR(3)}, {"gt", AR(2)},           {"hardsigmoid", AR(1)},
    {"hardswish", AR(1)},   {"hardtanh", AR(3)},     {"hardtanh_backward", AR(4)}, {"le", AR(2)},
    {"leaky_relu", AR(2)},  {"leaky_relu_backward", AR(4)}, {"lerp", AR(3)},   {"log", AR(1)},
    {"log10", AR(1)},       {"log1p", AR(1)},        {"log2", AR(1)},          {"logical_and", AR(2)},
    {"logical_not", AR(1)}, {"logical_or", AR(2)},   {"logit", AR(2)},         {"logit_backward", AR(3)},
    {"lt", AR(2)},          {"maximum", AR(2)},      {"minimum", AR(2)},       {"mish", AR(1)},
    {"mul", AR(2)},         {"nan_to_num", AR(4)},   {"ne", AR(2)},            {"neg", AR(1)},
    {"pow", AR(2)},         {"reciprocal", AR(1)},   {"remainder", AR(2)},     {"round", AR(1) | AR(2)},
    {"rsqrt", AR(1)},       {"rsub", AR(3)},         {"sigmoid", AR(1)},       {"sigmoid_backward", AR(2)},
    {"sign", AR(1)},        {"silu", AR(1)},         {"silu_backward", AR(2)}, {"sin", AR(1)},
    {"softplus", AR(3)},    {"softplus_backward", AR(4)}, {"sqrt", AR(1)},     {"square", AR(1)},
    {"sub", AR(3)},         {"tanh", AR(1)},         {"tanh_backward", AR(2)}, {"threshold_backward", AR(3)},
    {"trunc", AR(1)},       {"where", AR(3)},
};
#undef AR

static int cmp_functional(const void *k, const void *e)
{
    return strcmp((const char *)k, ((const functional_form *)e)->op);
}

/* 1 when the call's last argument is an out tensor of outn elements (functional_args; no form
 * takes 8 arguments) */
static int has_out_tensor(const char *op, const args *a, int64_t outn)
{
    if (a->n < 2 || a->n > 8 || !is_tensor(a, a->n - 1) || numel(&a->v[a->n - 1]) != outn)
        return 0;
    const functional_form *f = bsearch(op, functional_args, sizeof functional_args / sizeof functional_args[0],
                                       sizeof functional_args[0], cmp_functional);
    return f && (f->arities >> (a->n - 1) & 1u);
}

/* elementwise and reductions: by the op's class */
static int cost_pointwise(const char *op, const args *a, ks_op_cost *c, int e, ks_work_class cls)
{
    /* the output: as large as the largest tensor input (a broadcast never shrinks one) */
    int64_t outn = 0;
    double in = 0;
    int tensors = 0;
    for (int i = 0; i < a->n; i++) {
        if (!is_tensor(a, i))
            continue;
        tensors++;
        in += arg_bytes(a, i, e);
        if (numel(&a->v[i]) > outn)
            outn = numel(&a->v[i]);
    }
    if (!tensors)
        return 0;
    int copy = !strcmp(op, "copy") || !strcmp(op, "_to_copy") || !strcmp(op, "clone") || !strcmp(op, "contiguous");
    if (!strcmp(op, "cat") || !strcmp(op, "_cat") || !strcmp(op, "concat") || !strcmp(op, "concatenate") ||
        !strcmp(op, "stack")) {
        /* (tensors, dim, out): the list's sizes are not recorded; its elements are the output's,
         * read once and written once: with an out tensor, twice its bytes */
        c->flops = 0;
        c->bytes = 2 * in;
        return tensors == 1 && !is_tensor(a, 0) && !is_tensor(a, 1);
    }
    if (cls == KS_WC_REDUCE) {
        const arg *x = NULL;
        for (int i = 0; i < a->n && !x; i++)
            if (is_tensor(a, i))
                x = &a->v[i];
        double n = (double)numel(x);
        int softmax = strstr(op, "softmax") != NULL;
        c->flops = softmax ? 5 * n : n; /* max, sub, exp, sum, div */
        c->bytes = in + (softmax ? n * e : 0);
        return 1;
    }
    /* copy_(self, src): reads src, writes self; a fill (fill_, zero_) writes self and reads nothing */
    if (!strcmp(op, "fill") || !strcmp(op, "zero")) {
        c->flops = 0;
        c->bytes = arg_bytes(a, 0, e);
        return is_tensor(a, 0);
    }
    if (has_out_tensor(op, a, outn)) /* the output, counted below */
        in -= arg_bytes(a, a->n - 1, e);
    c->flops = copy ? 0 : (double)outn;
    c->bytes = !strcmp(op, "copy") ? arg_bytes(a, 0, e) + arg_bytes(a, 1, e) : in + (double)outn * e;
    return 1;
}

ks_op_cost ks_op_cost_of(const char *op, const char *dims, const char *types, const char *concrete)
{
    return ks_op_cost_classed(op, op ? ks_op_class(op, KS_K_CPU_OP) : KS_WC_OTHER, dims, types, concrete);
}

ks_op_cost ks_op_cost_classed(const char *op, ks_work_class cls, const char *dims, const char *types,
                              const char *concrete)
{
    ks_op_cost c;
    memset(&c, 0, sizeof c);
    c.cls = (uint8_t)cls;
    if (cls != KS_WC_GEMM && cls != KS_WC_CONV && cls != KS_WC_ATTENTION && cls != KS_WC_NORM &&
        cls != KS_WC_ELEMENTWISE && cls != KS_WC_REDUCE) {
        c.why = "no FLOPs formula for the op's class";
        return c;
    }
    if (!op || !dims) {
        c.why = "not observed: no Input Dims";
        return c;
    }
    /* on the stack, and only the fields read cleared: an op's cost is asked once per shape group,
     * and clearing the whole of it cost more than the rest of the call. The types and concrete
     * inputs are read for the a->n arguments of Input Dims alone (every read checks i < a->n). */
    args as, *a = &as;
    a->n = 0;
    if (parse_dims(dims, a) != 0) {
        c.why = "not observed: Input Dims not readable as a list of sizes";
        goto out;
    }
    for (int i = 0; i < a->n; i++)
        a->type[i][0] = a->conc[i][0] = 0;
    /* a types text that does not parse gives no type at all (a concrete one keeps what parsed) */
    if (types && parse_strings(types, a->type[0], sizeof a->type[0], MAX_ARGS) < 0)
        for (int i = 0; i < a->n; i++)
            a->type[i][0] = 0;
    if (concrete && (cls == KS_WC_CONV || cls == KS_WC_ATTENTION)) /* the formulas that read them */
        parse_strings(concrete, a->conc[0], sizeof a->conc[0], MAX_ARGS);
    /* the element size: the first tensor argument's type */
    int e = 0;
    for (int i = 0; i < a->n && !e; i++)
        if (is_tensor(a, i) && (e = ks_input_type_size(a->type[i])) != 0) {
            memcpy(c.dtype, a->type[i], strnlen(a->type[i], sizeof c.dtype - 1)); /* c: zeroed */
            c.dtype_bytes = (uint8_t)e;
        }
    if (!e) {
        c.why = "not observed: no tensor input has a known element type (Input type)";
        goto out; /* no type: no bytes, and a cost without bytes is not known */
    }
    const char *n = !strncmp(op, "aten::", 6) ? op + 6 : op;
    char name[96];
    size_t len = strlen(n);
    if (len >= sizeof name)
        goto out;
    memcpy(name, n, len + 1);
    if (len > 1 && name[len - 1] == '_') /* in-place: the op's cost */
        name[len - 1] = 0;
    switch (c.cls) {
    case KS_WC_GEMM: c.known = cost_gemm(name, a, &c, e); break;
    case KS_WC_CONV: c.known = cost_conv(name, a, &c, e); break;
    case KS_WC_ATTENTION: c.known = cost_attention(name, a, &c, e); break;
    case KS_WC_NORM: c.known = cost_norm(name, a, &c, e); break;
    case KS_WC_ELEMENTWISE:
    case KS_WC_REDUCE: c.known = cost_pointwise(name, a, &c, e, (ks_work_class)c.cls); break;
    default: break;
    }
out:
    if (!c.known) {
        c.flops = c.bytes = 0;
        if (!c.why)
            c.why = "no FLOPs formula for the op, or its shapes do not fit the formula's arguments";
    } else if (isfinite(c.bytes))
        c.why = NULL;
    return c;
}
