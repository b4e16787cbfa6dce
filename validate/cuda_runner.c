/* validate/cuda_runner.c: the CUDA-event sampling backend of `validate` (docs/validate.md,
 * after ../shared/docs/statistics.md section 1): one non-default stream; per sample, outside
 * the timed pair, the L2 flush (cudaMemsetAsync of max(2 x L2, 256 MiB), unless --hot) and a
 * timestamp kernel; then cudaEventRecord(start), k run()s of the workload, cudaEventRecord(end),
 * cudaEventSynchronize(end), cudaEventElapsedTime; a second timestamp kernel gives the
 * effective SM clock. Host wall time is taken around the event pair. Before the protocol, the
 * output check of every arm. Nothing here changes a device setting. Part of libkinesift-cuda;
 * libkinesift calls it as ks_cuda_measure through validate/cuda_enable.c. */
#include "kinesift/validate.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "validate/cuda_wl.h"

#define MIB (INT64_C(1) << 20)

typedef struct cuda_ctx {
    const ks_workload *w;
    void *state;
    const uint32_t *variant;   /* per arm */
    cudaStream_t stream;
    cudaEvent_t start, end;
    void *flush;
    int64_t flush_bytes;
    unsigned long long *d_stamps; /* before: [0] ns, [1] cycles, [2] SM; after: [3..5] */
    unsigned flush_value;
    double rated_mhz;
} cuda_ctx;

static int cuda_fail(cudaError_t e, const char *what, ks_error *err)
{
    return ks_error_set(err, "%s: %s (error %d: %s)", what, cudaGetErrorName(e), (int)e,
                        cudaGetErrorString(e));
}

#define TRY(call, what)                                                                       \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return cuda_fail(e_, what, err);                                                  \
    } while (0)

static int64_t host_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t backend_now(void *ctx)
{
    (void)ctx;
    return host_now();
}

static void backend_pause(void *ctx, int64_t ns)
{
    (void)ctx;
    struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&t, &t) != 0)
        ;
}

static int run_workload(cuda_ctx *c, uint32_t arm, ks_error *err)
{
    char msg[256] = "";
    if (c->w->run(c->state, c->variant[arm], c->stream, msg, sizeof msg) != KS_WL_OK)
        return ks_error_set(err, "workload %s, variant %s: run failed: %s", c->w->name,
                            c->w->variants[c->variant[arm]], msg[0] ? msg : "no message");
    return KS_OK;
}

/* Effective SM clock from the two stamps; NaN when they ran on different SMs (separate
 * counters), when the window is too short to trust, or when the value is impossible. */
static double sm_clock(const unsigned long long st[6], double rated_mhz)
{
    if (st[2] != st[5] || st[3] <= st[0] || st[4] <= st[1])
        return NAN;
    double dns = (double)(st[3] - st[0]), dcyc = (double)(st[4] - st[1]);
    if (dns < 100000) /* < 100 us: %globaltimer's granularity would dominate */
        return NAN;
    double mhz = dcyc / dns * 1000.0; /* cycles per ns = GHz -> MHz */
    return rated_mhz > 0 && mhz > 1.5 * rated_mhz ? NAN : mhz;
}

static int backend_sample(void *ctx, uint32_t arm, uint32_t k, ks_vsample *s, ks_error *err)
{
    cuda_ctx *c = ctx;
    if (c->flush) /* a different byte every time, so nothing can be elided */
        TRY(cudaMemsetAsync(c->flush, (int)(c->flush_value++ & 0xff), (size_t)c->flush_bytes,
                            c->stream),
            "L2 flush");
    TRY((cudaError_t)ks_cuda_stamp(c->d_stamps, c->stream), "timestamp kernel");
    TRY(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
    int64_t t0 = host_now();
    TRY(cudaEventRecord(c->start, c->stream), "cudaEventRecord");
    for (uint32_t i = 0; i < k; i++)
        if (run_workload(c, arm, err) != KS_OK)
            return KS_ERR;
    TRY(cudaEventRecord(c->end, c->stream), "cudaEventRecord");
    TRY(cudaEventSynchronize(c->end), "cudaEventSynchronize");
    int64_t t1 = host_now();
    TRY((cudaError_t)ks_cuda_stamp(c->d_stamps + 3, c->stream), "timestamp kernel");
    unsigned long long st[6];
    TRY(cudaMemcpyAsync(st, c->d_stamps, sizeof st, cudaMemcpyDeviceToHost, c->stream),
        "reading the timestamps");
    TRY(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
    float ms = 0;
    /* not-ready or no-timing errors are hard errors, never a zero sample */
    TRY(cudaEventElapsedTime(&ms, c->start, c->end), "cudaEventElapsedTime");
    s->ns = llround((double)ms * 1e6);
    s->host_ns = t1 - t0;
    s->sm_clock_mhz = sm_clock(st, c->rated_mhz);
    return KS_OK;
}

/* Run variant 0 then each arm's variant, and check() the latter against the former. */
static int output_checks(cuda_ctx *c, uint32_t narms, ks_vcheck *check, ks_error *err)
{
    for (uint32_t a = 0; a < narms; a++) {
        ks_vcheck *ck = &check[a];
        uint32_t v = c->variant[a];
        ck->detail[0] = '\0';
        if (v == 0) {
            ck->result = KS_CHECK_SAME_VARIANT;
            continue;
        }
        if (!c->w->check) {
            ck->result = KS_CHECK_NOT_PROVIDED;
            snprintf(ck->detail, sizeof ck->detail, "the workload has no check()");
            continue;
        }
        char msg[256] = "";
        if (c->w->run(c->state, 0, c->stream, msg, sizeof msg) != KS_WL_OK)
            return ks_error_set(err, "workload %s, variant %s: run failed: %s", c->w->name,
                                c->w->variants[0], msg);
        TRY(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
        if (run_workload(c, a, err) != KS_OK)
            return KS_ERR;
        TRY(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
        int r = c->w->check(c->state, v, msg, sizeof msg);
        ck->result = r == KS_WL_OK ? KS_CHECK_MATCH
                     : r == KS_WL_MISMATCH ? KS_CHECK_MISMATCH : KS_CHECK_ERROR;
        snprintf(ck->detail, sizeof ck->detail, "%s",
                 msg[0] ? msg : r == KS_WL_OK ? "outputs equal" : "no message");
    }
    return KS_OK;
}

static int64_t flush_size(const ks_cuda_info *dev)
{
    int64_t b = 2 * dev->l2_bytes;
    return b > 256 * MIB ? b : 256 * MIB;
}

static void release(cuda_ctx *c)
{
    if (c->flush)
        cudaFree(c->flush);
    if (c->d_stamps)
        cudaFree(c->d_stamps);
    if (c->start)
        cudaEventDestroy(c->start);
    if (c->end)
        cudaEventDestroy(c->end);
    if (c->stream)
        cudaStreamDestroy(c->stream);
}

static int prepare(cuda_ctx *c, const ks_vopts *o, const ks_cuda_info *dev, ks_error *err)
{
    TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    TRY(cudaEventCreate(&c->start), "cudaEventCreate");
    TRY(cudaEventCreate(&c->end), "cudaEventCreate");
    TRY(cudaMalloc((void **)&c->d_stamps, 6 * sizeof(unsigned long long)), "cudaMalloc");
    if (!o->hot) {
        c->flush_bytes = flush_size(dev);
        cudaError_t e = cudaMalloc(&c->flush, (size_t)c->flush_bytes);
        if (e != cudaSuccess) {
            c->flush = NULL;
            return ks_error_set(err, "cannot allocate the %lld MiB L2 flush buffer (%s, error "
                                     "%d): use --hot to measure without flushing",
                                (long long)(c->flush_bytes / MIB), cudaGetErrorName(e), (int)e);
        }
    }
    return KS_OK;
}

int ks_cudart_measure(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                      int nparams, const char *const *params, const uint32_t *arms,
                      uint32_t narms, ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes,
                      ks_error *err)
{
    memset(out, 0, sizeof *out);
    *flush_bytes = 0;
    cuda_ctx c = {.w = w, .variant = arms, .rated_mhz = dev->rated_clock_mhz};
    TRY(cudaSetDevice(dev->device), "cudaSetDevice");
    char msg[256] = "";
    if (w->setup(&c.state, dev->device, nparams, params, msg, sizeof msg) != KS_WL_OK) {
        ks_error_set(err, "workload %s: setup failed: %s", w->name, msg[0] ? msg : "no message");
        if (c.state && w->teardown)
            w->teardown(c.state);
        return KS_ERR;
    }
    int rc = prepare(&c, o, dev, err);
    if (rc == KS_OK)
        rc = output_checks(&c, narms, check, err);
    if (rc == KS_OK) {
        ks_vbackend b = {&c, backend_sample, backend_now, backend_pause, dev->rated_clock_mhz};
        rc = ks_protocol_run(o, narms, &b, out, err);
    }
    *flush_bytes = c.flush ? c.flush_bytes : 0;
    if (w->teardown)
        w->teardown(c.state);
    release(&c);
    return rc;
}
