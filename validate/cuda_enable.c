/* validate/cuda_enable.c: the entry point of libkinesift-cuda (validate/meson.build): installs
 * the CUDA backend -- the probe (cuda_probe.c), the CUDA-event runner (cuda_runner.c) and the
 * built-in pairs' tables (cuda/<pair>.cu) -- into libkinesift (validate/validate_int.h). The
 * kinesift command calls it first thing when built with CUDA; a program that never calls it
 * (or links only libkinesift) gets the refusal of validate/nocuda.c. Calling it again is
 * harmless. */
#include <string.h>

#include "validate/cuda_wl.h"
#include "validate/validate_int.h"

static const struct {
    const char *name;                 /* the registry's name (validate/builtin.c) */
    const ks_workload *(*table)(void);
} pairs[] = {
    {"constant-upload", ks_wl_constant_upload},
    {"small-kernels", ks_wl_small_kernels},
    {"pageable-copy", ks_wl_pageable_copy},
    {"sync-per-op", ks_wl_sync_per_op},
};

static const ks_workload *builtin(const char *name)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (!strcmp(pairs[i].name, name))
            return pairs[i].table();
    return NULL;
}

static const ks_cuda_ops ops = {ks_cudart_probe, ks_cudart_measure, builtin};

void ks_cuda_enable(void)
{
    ks_cuda_install(&ops);
}
