// examples/axpy_plugin.cu: an example `kinesift validate` workload plugin (ABI:
// include/kinesift/workload.h). z = a * x + y on n floats, two ways:
//   two-kernels (baseline): t = a * x in one kernel, z = t + y in a second (t goes through
//                           memory: 2 launches, 5 n floats of traffic)
//   fused (candidate):      z = fma(a, x, y) in one kernel (3 n floats of traffic)
// The fused result may differ in the last bit (one rounding instead of two), so check()
// declares a tolerance: |z_fused - z_baseline| <= 1e-6 |z_baseline|.
//
// Build:  nvcc -shared -Xcompiler -fPIC -cudart static -I include
//              -o libks_example_axpy.so examples/axpy_plugin.cu   (one line)
// Run:    kinesift validate --workload ./libks_example_axpy.so --param n=16777216
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinesift/workload.h"

namespace {

struct axpy {
    long long n;
    float a;
    float *x, *y, *t, *z[2];
};

const char *const variants[] = {"two-kernels", "fused"};

__global__ void fill(float *x, float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        x[i] = 1.0f + (float)(i % 1000) / 1000.0f;
        y[i] = 0.5f - (float)(i % 777) / 777.0f;
    }
}

__global__ void scale(float *t, const float *x, float a, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        t[i] = __fmul_rn(a, x[i]);
}

__global__ void add(float *z, const float *t, const float *y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        z[i] = __fadd_rn(t[i], y[i]);
}

__global__ void fused(float *z, const float *x, const float *y, float a, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        z[i] = fmaf(a, x[i], y[i]);
}

unsigned grid(long long n)
{
    long long g = (n + 255) / 256;
    return (unsigned)(g > 4096 ? 4096 : g);
}

int fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s (%d)", what, cudaGetErrorName(e), (int)e);
    return KS_WL_ERROR;
}

int setup(void **state, int device, int nparams, const char *const *params, char *err,
          size_t errlen)
{
    axpy *s = (axpy *)calloc(1, sizeof *s);
    if (!s)
        return KS_WL_ERROR;
    *state = s;
    s->n = 1 << 24;
    s->a = 2.0f;
    for (int i = 0; i < nparams; i++) {
        if (!strncmp(params[i], "n=", 2))
            s->n = atoll(params[i] + 2);
        else if (!strncmp(params[i], "a=", 2))
            s->a = (float)atof(params[i] + 2);
        else {
            snprintf(err, errlen, "unknown parameter '%s' (n=ELEMENTS, a=SCALE)", params[i]);
            return KS_WL_ERROR;
        }
    }
    if (s->n < 1) {
        snprintf(err, errlen, "n must be at least 1");
        return KS_WL_ERROR;
    }
    cudaError_t e = cudaSetDevice(device); // this plugin links its own CUDA runtime
    size_t bytes = (size_t)s->n * sizeof(float);
    float **bufs[] = {&s->x, &s->y, &s->t, &s->z[0], &s->z[1]};
    for (int i = 0; i < 5 && e == cudaSuccess; i++)
        e = cudaMalloc((void **)bufs[i], bytes);
    if (e != cudaSuccess)
        return fail(e, "setup", err, errlen);
    fill<<<grid(s->n), 256>>>(s->x, s->y, s->n);
    e = cudaDeviceSynchronize();
    return e == cudaSuccess ? KS_WL_OK : fail(e, "fill", err, errlen);
}

int run(void *state, uint32_t variant, void *stream, char *err, size_t errlen)
{
    axpy *s = (axpy *)state;
    cudaStream_t st = (cudaStream_t)stream; // everything on kinesift's timing stream
    if (variant == 0) {
        scale<<<grid(s->n), 256, 0, st>>>(s->t, s->x, s->a, s->n);
        add<<<grid(s->n), 256, 0, st>>>(s->z[0], s->t, s->y, s->n);
    } else {
        fused<<<grid(s->n), 256, 0, st>>>(s->z[1], s->x, s->y, s->a, s->n);
    }
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? KS_WL_OK : fail(e, "launch", err, errlen);
}

int check(void *state, uint32_t variant, char *err, size_t errlen)
{
    axpy *s = (axpy *)state;
    size_t bytes = (size_t)s->n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
    int rc = KS_WL_OK;
    cudaError_t e = cudaErrorMemoryAllocation;
    if (a && b)
        e = cudaMemcpy(a, s->z[0], bytes, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(b, s->z[variant], bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        rc = fail(e, "reading the outputs", err, errlen);
    } else {
        for (long long i = 0; i < s->n; i++)
            if (fabsf(a[i] - b[i]) > 1e-6f * fabsf(a[i])) {
                snprintf(err, errlen, "z[%lld] = %.9g, baseline %.9g (tolerance 1e-6 relative)",
                         i, b[i], a[i]);
                rc = KS_WL_MISMATCH;
                break;
            }
        if (rc == KS_WL_OK)
            snprintf(err, errlen, "equal within 1e-6 relative");
    }
    free(a);
    free(b);
    return rc;
}

void teardown(void *state)
{
    axpy *s = (axpy *)state;
    if (!s)
        return;
    float *bufs[] = {s->x, s->y, s->t, s->z[0], s->z[1]};
    for (int i = 0; i < 5; i++)
        cudaFree(bufs[i]);
    free(s);
}

const ks_workload table = {
    KS_WORKLOAD_ABI_VERSION, sizeof(ks_workload), "axpy",
    "z = a x + y: two kernels through memory (two-kernels) vs one fused kernel (fused)",
    2, variants, setup, run, check, teardown,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const ks_workload *kinesift_workload_v1(void)
{
    return &table;
}
