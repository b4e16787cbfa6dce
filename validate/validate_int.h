/* validate/validate_int.h: what validate/ shares beyond kinesift/validate.h. Internal: for the
 * library's validate/ sources, the CUDA library (libkinesift-cuda), the kinesift command and the
 * tests; nothing here is exported by libkinesift.so.
 *
 * The CUDA part of validate (validate/cuda_*.c and validate/cuda/ *.cu, with the static CUDA
 * runtime) is its own static library, libkinesift-cuda, so that libkinesift.so carries no CUDA
 * runtime. The library reaches it only through the table below, installed by ks_cuda_enable()
 * (validate/cuda_wl.h) before any validation; with no table installed (the shared library, a
 * build without CUDA, a program that does not link libkinesift-cuda) every GPU workload is
 * refused with "built without CUDA support" (validate/nocuda.c). Not thread-safe: install once,
 * before other threads use validate. */
#ifndef KS_VALIDATE_INT_H
#define KS_VALIDATE_INT_H

#include "kinesift/validate.h"

typedef struct ks_cuda_ops {
    /* ks_cuda_probe and ks_cuda_measure of kinesift/validate.h */
    int (*probe)(int device, ks_cuda_info *info, int *usage, ks_error *err);
    int (*measure)(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                   int nparams, const char *const *params, const uint32_t *arms, uint32_t narms,
                   ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes, ks_error *err);
    /* the table of the built-in pair with this registry name (validate/builtin.c); NULL when
     * there is none */
    const ks_workload *(*builtin)(const char *name);
} ks_cuda_ops;

/* Install the CUDA backend (NULL: none, the refusal). */
void ks_cuda_install(const ks_cuda_ops *ops);
/* The installed backend, or NULL. */
const ks_cuda_ops *ks_cuda_ops_installed(void);

#endif
