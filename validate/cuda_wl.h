/* validate/cuda_wl.h: what the CUDA sources of validate (validate/cuda/<pair>.cu, compiled
 * by nvcc) and the C sources share: the built-in workload tables and the timestamp kernel's
 * launcher (ks_builtin_params, in kinesift/validate.h, parses the built-ins' parameters).
 * Internal; C linkage. */
#ifndef KS_CUDA_WL_H
#define KS_CUDA_WL_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/validate.h"
#include "kinesift/workload.h"

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

#ifdef __cplusplus
}
#endif
#endif
