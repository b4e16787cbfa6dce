/* validate/nvml.c: read-only NVML queries (SM clock, temperature, clock-event reasons, other
 * compute processes), with libnvidia-ml.so.1 loaded at run time by dlopen so that kinesift
 * neither links nor needs it. Only getters are looked up: nothing here can change a clock,
 * a power limit or any other device setting. */
#include "kinesift/validate.h"
#include "validate/validate_int.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The few NVML types and constants used (nvml.h is not needed to build). */
typedef int nvml_ret;
typedef void *nvml_dev;
typedef struct nvml_proc {
    unsigned int pid;
    unsigned long long used_memory;
    unsigned int gpu_instance, compute_instance;
} nvml_proc;
enum { NVML_OK = 0, NVML_INSUFFICIENT_SIZE = 7, NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };

typedef struct nvml_api {
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*by_pci)(const char *, nvml_dev *);
    nvml_ret (*by_index)(unsigned int, nvml_dev *);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*max_clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*temperature)(nvml_dev, int, unsigned int *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*procs)(nvml_dev, unsigned int *, nvml_proc *);
} nvml_api;

static void *sym(void *lib, const char *name)
{
    return dlsym(lib, name);
}

#define LOAD(field, name) memcpy(&a->field, &(void *){sym(a->lib, name)}, sizeof(void *))

static int load(nvml_api *a, char *reason, size_t n)
{
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        snprintf(reason, n, "libnvidia-ml.so.1 not loadable");
        return -1;
    }
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    LOAD(by_index, "nvmlDeviceGetHandleByIndex_v2");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(max_clock, "nvmlDeviceGetMaxClockInfo");
    LOAD(temperature, "nvmlDeviceGetTemperature");
    LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!a->reasons)
        LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    LOAD(procs, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!a->init || !a->shutdown || !a->by_index || !a->clock) {
        dlclose(a->lib);
        snprintf(reason, n, "libnvidia-ml.so.1 lacks the functions needed");
        return -1;
    }
    return 0;
}

static int count_other_processes(const nvml_api *a, nvml_dev d)
{
    if (!a->procs)
        return -1;
    nvml_proc p[64];
    unsigned int n = 64;
    if (a->procs(d, &n, p) != NVML_OK)
        return -1;
    int others = 0;
    for (unsigned int i = 0; i < n; i++)
        others += p[i].pid != (unsigned int)getpid();
    return others;
}

void ks_nvml_read(const char *pci_bus_id, ks_nvml_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->other_processes = -1;
    nvml_api a;
    if (load(&a, s->reason, sizeof s->reason) != 0)
        return;
    nvml_ret r = a.init();
    if (r != NVML_OK) {
        snprintf(s->reason, sizeof s->reason, "nvmlInit failed (NVML error %d)", r);
        dlclose(a.lib);
        return;
    }
    nvml_dev d = NULL;
    if (pci_bus_id && pci_bus_id[0] && a.by_pci)
        r = a.by_pci(pci_bus_id, &d);
    else
        r = a.by_index(0, &d);
    if (r != NVML_OK) {
        snprintf(s->reason, sizeof s->reason, "NVML does not find the device (NVML error %d)",
                 r);
    } else {
        s->ok = a.clock(d, NVML_CLOCK_SM, &s->sm_clock_mhz) == NVML_OK;
        if (!s->ok)
            snprintf(s->reason, sizeof s->reason, "NVML gives no SM clock");
        if (a.max_clock)
            a.max_clock(d, NVML_CLOCK_SM, &s->sm_clock_max_mhz);
        if (a.temperature)
            a.temperature(d, NVML_TEMPERATURE_GPU, &s->temperature_c);
        unsigned long long reasons = 0;
        if (a.reasons && a.reasons(d, &reasons) == NVML_OK)
            s->clock_event_reasons = reasons;
        s->other_processes = count_other_processes(&a, d);
    }
    a.shutdown();
    dlclose(a.lib);
}

void ks_nvml_reasons(uint64_t mask, char *buf, size_t n)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {
        {0x1, "gpu-idle"},
        {0x2, "applications-clocks-setting"},
        {0x4, "sw-power-cap"},
        {0x8, "hw-slowdown"},
        {0x10, "sync-boost"},
        {0x20, "sw-thermal-slowdown"},
        {0x40, "hw-thermal-slowdown"},
        {0x80, "hw-power-brake-slowdown"},
        {0x100, "display-clock-setting"},
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(mask & names[i].bit))
            continue;
        int w = snprintf(buf + len, n > len ? n - len : 0, "%s%s", len ? "," : "",
                         names[i].name);
        if (w > 0)
            len += (size_t)w;
        mask &= ~names[i].bit;
    }
    if (mask && len < n)
        snprintf(buf + len, n - len, "%sother(0x%llx)", len ? "," : "",
                 (unsigned long long)mask);
}
