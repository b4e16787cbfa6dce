// validate/cuda/constant_upload.cu: built-in pair (a), "a constant uploaded every step vs
// once". A step runs `uploads` kernels y = fma(y, x * c) that read a constant c of `bytes`
// bytes. per-step (baseline) copies c from pageable host memory before each kernel, as
// torch.tensor(values, device="cuda") inside the loop does; hoisted (candidate) uploaded it
// once in setup. Same kernels, same values: the outputs must be bit-identical.
#include "wl_common.cuh"

namespace {

struct state {
    int64_t n;          // floats in the constant (and in x, y)
    int64_t uploads;
    float *h_const;     // pageable
    float *d_x, *d_c_step, *d_c_once;
    float *d_y[2];
};

const char *const variants[] = {"per-step", "hoisted"};

__global__ void use_constant(float *y, const float *x, const float *c, int64_t n, int first)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = fmaf(first ? 0.0f : y[i], 0.5f, x[i] * c[i]);
}

void teardown(void *p)
{
    state *s = (state *)p;
    if (!s)
        return;
    cudaFree(s->d_x);
    cudaFree(s->d_c_step);
    cudaFree(s->d_c_once);
    cudaFree(s->d_y[0]);
    cudaFree(s->d_y[1]);
    free(s->h_const);
    free(s);
}

int setup(void **out, int device, int nparams, const char *const *params, char *err,
          size_t errlen)
{
    int64_t v[2];
    if (ks_builtin_params("constant-upload", nparams, params, v, err, errlen) != 0)
        return KS_WL_ERROR;
    KS_WL_TRY(cudaSetDevice(device), "cudaSetDevice");
    state *s = (state *)calloc(1, sizeof *s);
    if (!s)
        return KS_WL_ERROR;
    *out = s;
    s->n = v[0] / 4 > 0 ? v[0] / 4 : 1;
    s->uploads = v[1];
    size_t bytes = (size_t)s->n * sizeof(float);
    s->h_const = (float *)malloc(bytes);
    float *h_x = (float *)malloc(bytes);
    if (!s->h_const || !h_x) {
        free(h_x);
        snprintf(err, errlen, "out of host memory");
        return KS_WL_ERROR;
    }
    ks_wl_pattern(h_x, s->n);
    for (int64_t i = 0; i < s->n; i++)
        s->h_const[i] = 1.0f + (float)(i % 7) / 8.0f;
    cudaError_t e = cudaMalloc(&s->d_x, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_c_step, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_c_once, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_y[0], bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_y[1], bytes);
    if (e == cudaSuccess) e = cudaMemcpy(s->d_x, h_x, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(s->d_c_once, s->h_const, bytes, cudaMemcpyHostToDevice);
    free(h_x);
    if (e != cudaSuccess)
        return ks_wl_fail(e, "constant-upload setup", err, errlen);
    return KS_WL_OK;
}

int run(void *p, uint32_t variant, void *stream, char *err, size_t errlen)
{
    state *s = (state *)p;
    cudaStream_t st = (cudaStream_t)stream;
    size_t bytes = (size_t)s->n * sizeof(float);
    for (int64_t u = 0; u < s->uploads; u++) {
        const float *c = s->d_c_once;
        if (variant == 0) {
            KS_WL_TRY(cudaMemcpyAsync(s->d_c_step, s->h_const, bytes, cudaMemcpyHostToDevice,
                                      st),
                      "uploading the constant");
            c = s->d_c_step;
        }
        use_constant<<<ks_wl_grid(s->n), ks_wl_block, 0, st>>>(s->d_y[variant], s->d_x, c, s->n,
                                                                u == 0);
    }
    KS_WL_TRY(cudaGetLastError(), "launching the kernel");
    return KS_WL_OK;
}

int check(void *p, uint32_t variant, char *err, size_t errlen)
{
    state *s = (state *)p;
    return ks_wl_compare(s->d_y[0], s->d_y[variant], (size_t)s->n * sizeof(float),
                         sizeof(float), err, errlen);
}

const ks_workload table = {
    KS_WORKLOAD_ABI_VERSION, sizeof(ks_workload), "constant-upload",
    "a constant uploaded every step (per-step) vs once (hoisted)", 2, variants,
    setup, run, check, teardown,
};

} // namespace

extern "C" const ks_workload *ks_wl_constant_upload(void) { return &table; }
