// validate/cuda/wl_common.cuh: what the built-in workloads share: error reporting into the
// callback's message buffer, the elementwise step y = fma(y, a_j, b_j) with its coefficients,
// and an exact comparison of two device buffers.
#ifndef KS_WL_COMMON_CUH
#define KS_WL_COMMON_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate/cuda_wl.h"

// Report a failed CUDA call: "what: cudaErrorX (N)" into err; returns KS_WL_ERROR.
static inline int ks_wl_fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s (%d)", what, cudaGetErrorName(e), (int)e);
    return KS_WL_ERROR;
}

#define KS_WL_TRY(call, what)                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return ks_wl_fail(e_, what, err, errlen);                                         \
    } while (0)

static const int ks_wl_block = 256;

static inline unsigned ks_wl_grid(int64_t n)
{
    int64_t g = (n + ks_wl_block - 1) / ks_wl_block;
    return (unsigned)(g > 65535 * 16 ? 65535 * 16 : g);
}

// Coefficients of op j: a = 1 - 2^-10 (j % 8), b = j / 1024 (exact in float).
__host__ __device__ static inline float ks_wl_a(int j) { return 1.0f - (float)(j % 8) / 1024.0f; }
__host__ __device__ static inline float ks_wl_b(int j) { return (float)(j % 1024) / 1024.0f; }

// One op: y = fma(first ? x : y, a_j, b_j), grid-stride.
static __global__ void ks_wl_op_kernel(float *y, const float *x, int64_t n, int j, int first)
{
    float a = ks_wl_a(j), b = ks_wl_b(j);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = fmaf(first ? x[i] : y[i], a, b);
}

// All ops 0..L-1 in one kernel: the same fma chain, so the result is bit-identical.
static __global__ void ks_wl_fused_kernel(float *y, const float *x, int64_t n, int nops)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        for (int j = 0; j < nops; j++)
            v = fmaf(v, ks_wl_a(j), ks_wl_b(j));
        y[i] = v;
    }
}

// Fill x with a deterministic pattern in [0.5, 1.5).
static inline void ks_wl_pattern(float *h, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        h[i] = 0.5f + (float)((i * 2654435761u) % 1024) / 1024.0f;
}

// Compare n bytes of two device buffers exactly; KS_WL_OK, KS_WL_MISMATCH or KS_WL_ERROR.
static inline int ks_wl_compare(const void *d0, const void *d1, size_t n, size_t elem,
                                char *err, size_t errlen)
{
    unsigned char *h0 = (unsigned char *)malloc(n), *h1 = (unsigned char *)malloc(n);
    if (!h0 || !h1) {
        free(h0);
        free(h1);
        snprintf(err, errlen, "out of host memory for the output check");
        return KS_WL_ERROR;
    }
    cudaError_t e = cudaMemcpy(h0, d0, n, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(h1, d1, n, cudaMemcpyDeviceToHost);
    int rc = KS_WL_OK;
    if (e != cudaSuccess) {
        rc = ks_wl_fail(e, "copying the outputs back", err, errlen);
    } else if (memcmp(h0, h1, n) != 0) {
        size_t i = 0;
        while (i < n && h0[i] == h1[i])
            i++;
        snprintf(err, errlen, "outputs differ first at element %zu (exact comparison)",
                 i / elem);
        rc = KS_WL_MISMATCH;
    }
    free(h0);
    free(h1);
    return rc;
}

#endif
