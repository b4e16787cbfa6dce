// examples/event_timer.cu: an external command for `kinesift validate --baseline-cmd ...
// --candidate-cmd ...`, in CUDA C++ for machines without PyTorch: it times each iteration of
// its own loop with CUDA events and prints `kinesift-sample <ms>` per iteration, then
// `kinesift-check <checksum>` of its output. An iteration applies 64 elementwise ops to 1 M
// floats: one kernel per op, or (--fused) all ops in one kernel; the results are
// bit-identical.
//   kinesift validate --baseline-cmd "./event_timer" --candidate-cmd "./event_timer --fused"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int kOps = 64, kBlock = 256;
static const long long kN = 1 << 20;

__device__ float coef_a(int j) { return 1.0f - (float)(j % 8) / 1024.0f; }
__device__ float coef_b(int j) { return (float)(j % 1024) / 1024.0f; }

__global__ void op(float *y, const float *x, int j)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < kN)
        y[i] = fmaf(j == 0 ? x[i] : y[i], coef_a(j), coef_b(j));
}

__global__ void fused(float *y, const float *x)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < kN) {
        float v = x[i];
        for (int j = 0; j < kOps; j++)
            v = fmaf(v, coef_a(j), coef_b(j));
        y[i] = v;
    }
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "event_timer: %s: %s (%d)\n", what, cudaGetErrorName(e), (int)e);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int fuse = argc > 1 && !strcmp(argv[1], "--fused");
    int iters = 40;
    float *x, *y;
    check(cudaMalloc(&x, kN * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&y, kN * sizeof(float)), "cudaMalloc");
    float *h = (float *)malloc(kN * sizeof(float));
    for (long long i = 0; i < kN; i++)
        h[i] = 0.5f + (float)(i % 1024) / 1024.0f;
    check(cudaMemcpy(x, h, kN * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    cudaStream_t s;
    cudaEvent_t start, end;
    check(cudaStreamCreate(&s), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    unsigned grid = (unsigned)((kN + kBlock - 1) / kBlock);
    for (int it = 0; it < iters; it++) {
        check(cudaEventRecord(start, s), "cudaEventRecord");
        if (fuse)
            fused<<<grid, kBlock, 0, s>>>(y, x);
        else
            for (int j = 0; j < kOps; j++)
                op<<<grid, kBlock, 0, s>>>(y, x, j);
        check(cudaEventRecord(end, s), "cudaEventRecord");
        check(cudaEventSynchronize(end), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
        printf("kinesift-sample %.6f\n", ms);
    }
    check(cudaMemcpy(h, y, kN * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    double sum = 0;
    for (long long i = 0; i < kN; i++)
        sum += h[i];
    printf("kinesift-check %.17g\n", sum);
    free(h);
    return 0;
}
