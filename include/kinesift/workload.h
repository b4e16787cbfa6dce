/* kinesift/workload.h: the versioned ABI of a `kinesift validate` workload (docs/validate.md).
 *
 * A workload is a shared library exporting one function, KS_WORKLOAD_ENTRY_NAME, that returns
 * a table: its name, its variants (variant 0 is the baseline, the others are candidates) and
 * four callbacks. kinesift loads it with dlopen (`kinesift validate --workload ./libmine.so`),
 * checks the ABI version, and calls, on one thread:
 *
 *   setup(&state, device, params)          once; allocate and fill inputs on `device`
 *   for each candidate variant v:          the output check, untimed
 *       run(state, 0, stream); sync; run(state, v, stream); sync; check(state, v)
 *   run(state, v, stream) ...              first run, warm-up, timed samples (interleaved)
 *   teardown(state)                        once
 *
 * run() must enqueue all its GPU work on `stream` (a cudaStream_t, passed as void *), or make
 * `stream` wait for it (cudaStreamWaitEvent) before returning: kinesift records its timing
 * events on that stream around run(). run() may block the host (a synchronising copy, a
 * stream synchronise) when that is what is being measured. It must not change clocks or any
 * device setting. A plugin that links its own CUDA runtime should call cudaSetDevice(device)
 * in setup.
 *
 * This header needs no CUDA header and no kinesift library; plain C, also usable from C++. */
#ifndef KINESIFT_WORKLOAD_H
#define KINESIFT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_WORKLOAD_ABI_VERSION 1u
/* The exported entry point: const ks_workload *kinesift_workload_v1(void); */
#define KS_WORKLOAD_ENTRY_NAME "kinesift_workload_v1"

/* Return codes of the callbacks. */
enum { KS_WL_OK = 0, KS_WL_MISMATCH = 1, KS_WL_ERROR = -1 };

typedef struct ks_workload {
    uint32_t abi_version;          /* KS_WORKLOAD_ABI_VERSION */
    uint32_t size;                 /* sizeof(ks_workload) as the plugin was compiled */
    const char *name;              /* short name, e.g. "axpy" */
    const char *description;       /* one line */
    uint32_t nvariants;            /* >= 2 */
    const char *const *variants;   /* nvariants names; [0] is the baseline */
    /* Parameters are "key=value" strings from `--param key=value` (and the built-ins' own
     * options). Return KS_WL_OK, or KS_WL_ERROR with a one-line message in err (an unknown
     * key, a bad value, an allocation failure). *state is the plugin's; when setup fails
     * after setting it, teardown(*state) is still called. */
    int (*setup)(void **state, int device, int nparams, const char *const *params, char *err,
                 size_t errlen);
    /* Enqueue one execution of `variant` on `stream`. KS_WL_OK or KS_WL_ERROR (message in
     * err). */
    int (*run)(void *state, uint32_t variant, void *stream, char *err, size_t errlen);
    /* Compare the output of the latest run(variant) with that of the latest run(0), exactly
     * or within the tolerance the workload declares (say it in the message). KS_WL_OK: equal;
     * KS_WL_MISMATCH: different (what differs, in err); KS_WL_ERROR: could not check.
     * May be NULL: the report then says the output was not checked. */
    int (*check)(void *state, uint32_t variant, char *err, size_t errlen);
    void (*teardown)(void *state); /* may be NULL */
} ks_workload;

typedef const ks_workload *(*ks_workload_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
