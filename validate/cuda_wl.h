/* validate/cuda_wl.h: what the CUDA sources of validate (validate/cuda/<pair>.cu, compiled
 * by nvcc) and the C sources share: the built-in workload tables and the timestamp kernel's
 * launcher (ks_builtin_params, in kinesift/validate.h, parses the built-ins' parameters), and
 * the entry points of libkinesift-cuda, the static library that holds them with the CUDA
 * runtime (validate/meson.build). Internal; C linkage. */
#ifndef KS_CUDA_WL_H
#define KS_CUDA_WL_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/validate.h"
#include "kinesift/workload.h"
#include "validate/validate_int.h" /* ks_cuda_ops; kinesift/validate.h: ks_builtin_params */

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in pairs (validate/cuda/<name>.cu); see validate/builtin.c for their parameters. */
const ks_workload *ks_wl_constant_upload(void);
const ks_workload *ks_wl_small_kernels(void);
const ks_workload *ks_wl_pageable_copy(void);
const ks_workload *ks_wl_sync_per_op(void);

/* Enqueue the timestamp kernel on stream: out[0] = %globaltimer (ns), out[1] = clock64 (SM
 * cycles), out[2] = %smid. Returns a cudaError_t value (0 = success). validate/cuda/stamp.cu */
int ks_cuda_stamp(unsigned long long *out, void *stream);

/* The CUDA backend's implementations of ks_cuda_probe (validate/cuda_probe.c) and
 * ks_cuda_measure (validate/cuda_runner.c), with their contracts (kinesift/validate.h). */
int ks_cudart_probe(int device, ks_cuda_info *info, int *usage, ks_error *err);
int ks_cudart_measure(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                      int nparams, const char *const *params, const uint32_t *arms,
                      uint32_t narms, ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes,
                      ks_error *err);

/* Install the CUDA backend into libkinesift (validate/cuda_enable.c; validate/validate_int.h):
 * from then on ks_cuda_built() is 1 and ks_cuda_probe, ks_cuda_measure and ks_builtin_table
 * use CUDA. The one function of libkinesift-cuda a program calls; the kinesift command calls it
 * first thing in main when built with CUDA (KS_HAVE_CUDA). */
void ks_cuda_enable(void);

#ifdef __cplusplus
}
#endif
#endif
