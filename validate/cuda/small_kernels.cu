// validate/cuda/small_kernels.cu: built-in pair (b), "many small kernel launches vs one fused
// kernel vs a CUDA graph replay". A step applies `kernels` elementwise ops y = fma(y, a_j, b_j)
// to `elements` floats: launches (baseline) launches one kernel per op; fused runs the whole
// chain in one kernel; graph replays the same launches captured once as a CUDA graph. The fma
// chain is the same in all three, so the outputs must be bit-identical.
#include "wl_common.cuh"

namespace {

struct state {
    int64_t kernels, n;
    float *d_x;
    float *d_y[3];
    cudaStream_t capture;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

const char *const variants[] = {"launches", "fused", "graph"};

void enqueue_ops(state *s, float *y, cudaStream_t st)
{
    for (int64_t j = 0; j < s->kernels; j++)
        ks_wl_op_kernel<<<ks_wl_grid(s->n), ks_wl_block, 0, st>>>(y, s->d_x, s->n, (int)j,
                                                                   j == 0);
}

void teardown(void *p)
{
    state *s = (state *)p;
    if (!s)
        return;
    if (s->exec)
        cudaGraphExecDestroy(s->exec);
    if (s->graph)
        cudaGraphDestroy(s->graph);
    if (s->capture)
        cudaStreamDestroy(s->capture);
    cudaFree(s->d_x);
    for (int i = 0; i < 3; i++)
        cudaFree(s->d_y[i]);
    free(s);
}

int setup(void **out, int device, int nparams, const char *const *params, char *err,
          size_t errlen)
{
    int64_t v[2];
    if (ks_builtin_params("small-kernels", nparams, params, v, err, errlen) != 0)
        return KS_WL_ERROR;
    KS_WL_TRY(cudaSetDevice(device), "cudaSetDevice");
    state *s = (state *)calloc(1, sizeof *s);
    if (!s)
        return KS_WL_ERROR;
    *out = s;
    s->kernels = v[0];
    s->n = v[1];
    size_t bytes = (size_t)s->n * sizeof(float);
    float *h = (float *)malloc(bytes);
    if (!h) {
        snprintf(err, errlen, "out of host memory");
        return KS_WL_ERROR;
    }
    ks_wl_pattern(h, s->n);
    cudaError_t e = cudaMalloc(&s->d_x, bytes);
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaMalloc(&s->d_y[i], bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(s->d_x, h, bytes, cudaMemcpyHostToDevice);
    free(h);
    if (e != cudaSuccess)
        return ks_wl_fail(e, "small-kernels setup", err, errlen);
    // capture the launches once, on a stream of our own; one launch beforehand loads the
    // kernel's module (lazy loading) outside the capture
    KS_WL_TRY(cudaStreamCreateWithFlags(&s->capture, cudaStreamNonBlocking), "cudaStreamCreate");
    ks_wl_op_kernel<<<ks_wl_grid(s->n), ks_wl_block, 0, s->capture>>>(s->d_y[2], s->d_x, s->n,
                                                                       0, 1);
    KS_WL_TRY(cudaStreamSynchronize(s->capture), "cudaStreamSynchronize");
    KS_WL_TRY(cudaStreamBeginCapture(s->capture, cudaStreamCaptureModeThreadLocal),
              "cudaStreamBeginCapture");
    enqueue_ops(s, s->d_y[2], s->capture);
    KS_WL_TRY(cudaStreamEndCapture(s->capture, &s->graph), "cudaStreamEndCapture");
    KS_WL_TRY(cudaGraphInstantiate(&s->exec, s->graph, 0), "cudaGraphInstantiate");
    return KS_WL_OK;
}

int run(void *p, uint32_t variant, void *stream, char *err, size_t errlen)
{
    state *s = (state *)p;
    cudaStream_t st = (cudaStream_t)stream;
    if (variant == 0)
        enqueue_ops(s, s->d_y[0], st);
    else if (variant == 1)
        ks_wl_fused_kernel<<<ks_wl_grid(s->n), ks_wl_block, 0, st>>>(s->d_y[1], s->d_x, s->n,
                                                                      (int)s->kernels);
    else
        KS_WL_TRY(cudaGraphLaunch(s->exec, st), "cudaGraphLaunch");
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
    KS_WORKLOAD_ABI_VERSION, sizeof(ks_workload), "small-kernels",
    "many small kernel launches (launches) vs one fused kernel (fused) vs a CUDA graph (graph)",
    3, variants, setup, run, check, teardown,
};

} // namespace

extern "C" const ks_workload *ks_wl_small_kernels(void) { return &table; }
