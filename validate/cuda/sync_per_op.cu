// validate/cuda/sync_per_op.cu: built-in pair (d), "a device synchronise after every op vs one
// at the end". A step launches `ops` elementwise kernels y = fma(y, a_j, b_j) on `elements`
// floats; sync-each (baseline) calls cudaStreamSynchronize after every launch, as a .item() or
// .cpu() inside a loop does; sync-once synchronises once at the end. Same kernels: the
// outputs must be bit-identical.
#include "wl_common.cuh"

namespace {

struct state {
    int64_t ops, n;
    float *d_x;
    float *d_y[2];
};

const char *const variants[] = {"sync-each", "sync-once"};

void teardown(void *p)
{
    state *s = (state *)p;
    if (!s)
        return;
    cudaFree(s->d_x);
    cudaFree(s->d_y[0]);
    cudaFree(s->d_y[1]);
    free(s);
}

int setup(void **out, int device, int nparams, const char *const *params, char *err,
          size_t errlen)
{
    int64_t v[2];
    if (ks_builtin_params("sync-per-op", nparams, params, v, err, errlen) != 0)
        return KS_WL_ERROR;
    KS_WL_TRY(cudaSetDevice(device), "cudaSetDevice");
    state *s = (state *)calloc(1, sizeof *s);
    if (!s)
        return KS_WL_ERROR;
    *out = s;
    s->ops = v[0];
    s->n = v[1];
    size_t bytes = (size_t)s->n * sizeof(float);
    float *h = (float *)malloc(bytes);
    if (!h) {
        snprintf(err, errlen, "out of host memory");
        return KS_WL_ERROR;
    }
    ks_wl_pattern(h, s->n);
    cudaError_t e = cudaMalloc(&s->d_x, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_y[0], bytes);
    if (e == cudaSuccess) e = cudaMalloc(&s->d_y[1], bytes);
    if (e == cudaSuccess) e = cudaMemcpy(s->d_x, h, bytes, cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return ks_wl_fail(e, "sync-per-op setup", err, errlen);
    return KS_WL_OK;
}

int run(void *p, uint32_t variant, void *stream, char *err, size_t errlen)
{
    state *s = (state *)p;
    cudaStream_t st = (cudaStream_t)stream;
    for (int64_t j = 0; j < s->ops; j++) {
        ks_wl_op_kernel<<<ks_wl_grid(s->n), ks_wl_block, 0, st>>>(s->d_y[variant], s->d_x, s->n,
                                                                   (int)j, j == 0);
        if (variant == 0)
            KS_WL_TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    }
    if (variant == 1)
        KS_WL_TRY(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    KS_WL_TRY(cudaGetLastError(), "launching the kernels");
    return KS_WL_OK;
}

int check(void *p, uint32_t variant, char *err, size_t errlen)
{
    state *s = (state *)p;
    return ks_wl_compare(s->d_y[0], s->d_y[variant], (size_t)s->n * sizeof(float),
                         sizeof(float), err, errlen);
}

const ks_workload table = {
    KS_WORKLOAD_ABI_VERSION, sizeof(ks_workload), "sync-per-op",
    "a stream synchronise after every op (sync-each) vs one at the end (sync-once)", 2,
    variants, setup, run, check, teardown,
};

} // namespace

extern "C" const ks_workload *ks_wl_sync_per_op(void) { return &table; }
