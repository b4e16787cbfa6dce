/* analysis/calls.c: which CUDA/HIP API calls block the host until the GPU is done (used by the
 * sync diagnosis and by the what-if replay). */
#include <string.h>

#include "analysis/priv.h"

int ks_is_blocking_call(const char *n)
{
    static const char *const names[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                        "cudaMemcpy", "cuCtxSynchronize", "cuStreamSynchronize",
                                        "hipDeviceSynchronize", "hipStreamSynchronize", "hipMemcpy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(n, names[i]))
            return 1;
    return 0;
}
