/* validate/cuda_probe.c: is there a usable CUDA device, and what is it (docs/validate.md,
 * "No GPU"). The causes of ../shared/docs/statistics.md section 5, each naming the CUDA error
 * and its number: no driver, a driver too old, no device, a driver/runtime mismatch. Built
 * only with CUDA (the runtime is linked statically, so this runs on machines without any CUDA
 * library: the first call then returns cudaErrorInsufficientDriver). Part of libkinesift-cuda;
 * libkinesift calls it as ks_cuda_probe through validate/cuda_enable.c. */
#include "kinesift/validate.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "validate/cuda_wl.h"

static void version_text(int v, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The one-line cause of a failed cudaGetDeviceCount. */
static int unavailable(cudaError_t e, ks_error *err)
{
    const char *name = cudaGetErrorName(e);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    switch (e) {
    case cudaErrorInsufficientDriver:
        if (driver <= 0)
            return ks_error_set(err, "no NVIDIA driver found (%s, error %d)", name, (int)e);
        {
            char found[16], need[16];
            version_text(driver, found, sizeof found);
            version_text(runtime, need, sizeof need);
            return ks_error_set(err, "driver too old (found CUDA %s, need %s) (%s, error %d)",
                                found, need, name, (int)e);
        }
    case cudaErrorNoDevice:
        return ks_error_set(err, "no CUDA device (%s, error %d)", name, (int)e);
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return ks_error_set(err, "driver/runtime mismatch (%s, error %d)", name, (int)e);
    default:
        return ks_error_set(err, "CUDA is not usable (%s, error %d: %s)", name, (int)e,
                            cudaGetErrorString(e));
    }
}

static int64_t attr(int device, enum cudaDeviceAttr a)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

int ks_cudart_probe(int device, ks_cuda_info *info, int *usage, ks_error *err)
{
    memset(info, 0, sizeof *info);
    *usage = 0;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return unavailable(e, err);
    if (count == 0)
        return unavailable(cudaErrorNoDevice, err);
    if (device < 0 || device >= count) {
        *usage = 1;
        return ks_error_set(err, "no CUDA device %d (%d found: 0 to %d)", device, count,
                            count - 1);
    }
    struct cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess)
        return unavailable(e, err);
    info->device = device;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, device);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->global_mem_bytes = (int64_t)p.totalGlobalMem;
    info->l2_bytes = attr(device, cudaDevAttrL2CacheSize);
    info->rated_clock_mhz = (double)attr(device, cudaDevAttrClockRate) / 1000.0;
    info->sm_count = (int)attr(device, cudaDevAttrMultiProcessorCount);
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return KS_OK;
}
