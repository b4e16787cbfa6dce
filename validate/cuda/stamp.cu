// validate/cuda/stamp.cu: the timestamp kernel of the throttle detection (after nvbench's
// timestamps_kernel): one thread reads %globaltimer (ns) and clock64 (SM cycles); two of them
// around a sample, outside the timed event pair, give the effective SM clock.
#include <cuda_runtime.h>

#include "validate/cuda_wl.h"

__global__ void ks_stamp_kernel(unsigned long long *out)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    long long c = clock64();
    out[0] = t;
    out[1] = (unsigned long long)c;
}

extern "C" int ks_cuda_stamp(unsigned long long *out, void *stream)
{
    ks_stamp_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(out);
    return (int)cudaGetLastError();
}
