// validate/cuda/pageable_copy.cu: built-in pair (c), "pageable vs pinned host memory for
// copies". A step makes `copies` host-to-device copies of `bytes` bytes with cudaMemcpyAsync on
// the stream: from malloc'ed (pageable) memory in the baseline, from cudaMallocHost'ed
// (pinned) memory in the candidate. Both sources hold the same bytes, so the device buffers
// must end up identical.
#include "wl_common.cuh"

namespace {

struct state {
    size_t bytes;
    int64_t copies;
    unsigned char *h_pageable, *h_pinned;
    unsigned char *d_buf[2];
};

const char *const variants[] = {"pageable", "pinned"};

void teardown(void *p)
{
    state *s = (state *)p;
    if (!s)
        return;
    free(s->h_pageable);
    if (s->h_pinned)
        cudaFreeHost(s->h_pinned);
    cudaFree(s->d_buf[0]);
    cudaFree(s->d_buf[1]);
    free(s);
}

int setup(void **out, int device, int nparams, const char *const *params, char *err,
          size_t errlen)
{
    int64_t v[2];
    if (ks_builtin_params("pageable-copy", nparams, params, v, err, errlen) != 0)
        return KS_WL_ERROR;
    KS_WL_TRY(cudaSetDevice(device), "cudaSetDevice");
    state *s = (state *)calloc(1, sizeof *s);
    if (!s)
        return KS_WL_ERROR;
    *out = s;
    s->bytes = (size_t)v[0];
    s->copies = v[1];
    s->h_pageable = (unsigned char *)malloc(s->bytes);
    if (!s->h_pageable) {
        snprintf(err, errlen, "out of host memory (%zu bytes)", s->bytes);
        return KS_WL_ERROR;
    }
    for (size_t i = 0; i < s->bytes; i++) // touch every page: no first-touch faults in samples
        s->h_pageable[i] = (unsigned char)(i * 131 + 7);
    KS_WL_TRY(cudaMallocHost((void **)&s->h_pinned, s->bytes), "cudaMallocHost");
    memcpy(s->h_pinned, s->h_pageable, s->bytes);
    KS_WL_TRY(cudaMalloc((void **)&s->d_buf[0], s->bytes), "cudaMalloc");
    KS_WL_TRY(cudaMalloc((void **)&s->d_buf[1], s->bytes), "cudaMalloc");
    return KS_WL_OK;
}

int run(void *p, uint32_t variant, void *stream, char *err, size_t errlen)
{
    state *s = (state *)p;
    const unsigned char *src = variant == 0 ? s->h_pageable : s->h_pinned;
    for (int64_t c = 0; c < s->copies; c++)
        KS_WL_TRY(cudaMemcpyAsync(s->d_buf[variant], src, s->bytes, cudaMemcpyHostToDevice,
                                  (cudaStream_t)stream),
                  "cudaMemcpyAsync");
    return KS_WL_OK;
}

int check(void *p, uint32_t variant, char *err, size_t errlen)
{
    state *s = (state *)p;
    return ks_wl_compare(s->d_buf[0], s->d_buf[variant], s->bytes, 1, err, errlen);
}

const ks_workload table = {
    KS_WORKLOAD_ABI_VERSION, sizeof(ks_workload), "pageable-copy",
    "host-to-device copies from pageable (pageable) vs pinned (pinned) memory", 2, variants,
    setup, run, check, teardown,
};

} // namespace

extern "C" const ks_workload *ks_wl_pageable_copy(void) { return &table; }
