/* validate/nocuda.c: the CUDA entry points of a build without CUDA support
 * (-Dcuda=disabled, or no nvcc): validate refuses every GPU workload with "built without CUDA
 * support" and exit 77; external commands still work. */
#include "kinesift/validate.h"

#include <string.h>

int ks_cuda_built(void)
{
    return 0;
}

int ks_cuda_probe(int device, ks_cuda_info *info, int *usage, ks_error *err)
{
    (void)device;
    memset(info, 0, sizeof *info);
    *usage = 0;
    return ks_error_set(err, "built without CUDA support");
}

int ks_cuda_measure(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                    int nparams, const char *const *params, const uint32_t *arms,
                    uint32_t narms, ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes,
                    ks_error *err)
{
    (void)o, (void)dev, (void)w, (void)nparams, (void)params, (void)arms, (void)narms;
    (void)check;
    memset(out, 0, sizeof *out);
    *flush_bytes = 0;
    return ks_error_set(err, "built without CUDA support");
}
