// validate/cuda/stamp.cu: the timestamp kernel of the throttle detection (after nvbench's
// timestamps_kernel): one thread reads %globaltimer (ns), clock64 (SM cycles) and %smid; two
// of them around a sample, outside the timed event pair, give the effective SM clock (only
// when both ran on the same SM: each SM has its own cycle counter).
#include <cuda_runtime.h>

#include "validate/cuda_wl.h"

__global__ void ks_stamp_kernel(unsigned long long *out)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    long long c = clock64();
    out[0] = t;
    out[1] = (unsigned long long)c;
    out[2] = sm;
}

extern "C" int ks_cuda_stamp(unsigned long long *out, void *stream)
{
    ks_stamp_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(out);
    return (int)cudaGetLastError();
}
