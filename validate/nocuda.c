/* validate/nocuda.c: the CUDA entry points of libkinesift, which hold no CUDA code: they call the
 * backend installed by ks_cuda_install (validate/validate_int.h; libkinesift-cuda's
 * ks_cuda_enable installs it), and without one -- the shared library, a build without CUDA
 * (-Dcuda=disabled, or no nvcc), a program that does not link libkinesift-cuda -- validate
 * refuses every GPU workload with "built without CUDA support" and exit 77; external commands
 * still work. */
#include "kinesift/validate.h"

#include <string.h>

#include "validate/validate_int.h"

static const ks_cuda_ops *installed;

void ks_cuda_install(const ks_cuda_ops *ops)
{
    installed = ops;
}

const ks_cuda_ops *ks_cuda_ops_installed(void)
{
    return installed;
}

int ks_cuda_built(void)
{
    return installed != NULL;
}

int ks_cuda_probe(int device, ks_cuda_info *info, int *usage, ks_error *err)
{
    if (installed)
        return installed->probe(device, info, usage, err);
    memset(info, 0, sizeof *info);
    *usage = 0;
    return ks_error_set(err, "built without CUDA support");
}

int ks_cuda_measure(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                    int nparams, const char *const *params, const uint32_t *arms,
                    uint32_t narms, ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes,
                    ks_error *err)
{
    if (installed)
        return installed->measure(o, dev, w, nparams, params, arms, narms, out, check,
                                  flush_bytes, err);
    memset(out, 0, sizeof *out);
    *flush_bytes = 0;
    return ks_error_set(err, "built without CUDA support");
}

const ks_workload *ks_builtin_table(const ks_builtin *b)
{
    return installed ? installed->builtin(b->name) : NULL;
}
