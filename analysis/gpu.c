/* analysis/gpu.c: GPU figures per device inside the window: span (first work start .. last work
 * end), busy = union of kernel, memcpy and memset intervals over all streams of the device, idle =
 * span - busy, and the union of each class. Communication (kinesift/comm.h: by kernel name,
 * collective metadata or launching op) is added by ks_gpu_comm once the links exist: its union,
 * and the exposed part, when no other kernel (compute) runs on the device, so that
 * comm - exposed is the communication overlapped by compute. Annotations and syncs are not work.
 * No GPU work at all = not observed, with the reason; never zero. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/intervals.h"
#include "analysis/analysis_int.h"
#include "common/util.h"
#include "kinesift/comm.h"

typedef struct dev_acc {
    int32_t device;
    ks_ivs all, kernel, memcpy, memset;
    uint64_t kernels, memcpys, memsets;
    uint32_t streams;
} dev_acc;

static dev_acc *device_acc(const ks_gpuwork *gw, dev_acc **v, size_t *n, size_t *cap, int32_t device)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].device == device)
            return &(*v)[i];
    KS_GROW(*v, *cap, *n + 1);
    dev_acc *d = &(*v)[(*n)++];
    memset(d, 0, sizeof *d);
    d->device = device;
    /* room for every work event of the device's streams: the sets never move while they grow */
    size_t most = ks_gpuwork_device_count(gw, device);
    ks_ivs_reserve(&d->all, most);
    ks_ivs_reserve(&d->kernel, most);
    ks_ivs_reserve(&d->memcpy, most);
    ks_ivs_reserve(&d->memset, most);
    return d;
}

static int cmp_dev(const void *x, const void *y)
{
    const ks_gpu_row *a = x, *b = y;
    return (a->device > b->device) - (a->device < b->device);
}

void ks_gpu_build(ks_analysis *a)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    dev_acc *devs = NULL;
    size_t ndev = 0, cap = 0;
    ks_ns w0 = a->win_start;
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        dev_acc *d = NULL;
        for (size_t i = str->first; i < str->first + str->n; i++) {
            const ks_gpuwork_item *e = &gw->v[i];
            ks_ns s, en;
            if (!ks_gpuwork_clip(a, e, &s, &en))
                continue;
            if (!d) {
                d = device_acc(gw, &devs, &ndev, &cap, str->device);
                d->streams++;
            }
            ks_ivs_add_merge(&d->all, s, en);
            if (e->kind == KS_K_KERNEL) {
                d->kernels++;
                ks_ivs_add_merge(&d->kernel, s, en); /* every kernel, communication included */
            } else if (e->kind == KS_K_MEMCPY) {
                d->memcpys++;
                ks_ivs_add_merge(&d->memcpy, s, en);
            } else {
                d->memsets++;
                ks_ivs_add_merge(&d->memset, s, en);
            }
        }
    }
    if (!gw->n) {
        int device_tracks = gw->gpu_tracks > 0;
        /* the same device tracks as `stats` (the track kind of the store): say why they are empty;
         * a cut file may hold GPU work past the cut: say the input ended first */
        if (a->trace->truncated)
            a->gpu_reason = "not observed: the input was truncated before any kernel, memcpy or memset event "
                            "(see parse.truncated)";
        else
            a->gpu_reason = device_tracks ? "not observed: the trace has no kernel, memcpy or memset events (its device "
                                            "tracks hold other device activity, e.g. another accelerator's categories, "
                                            "which is not counted as GPU work)"
                                          : "not observed: the trace has no kernel, memcpy or memset events";
    } else if (!ndev) {
        a->gpu_reason = "not observed: no GPU work inside the window";
    } else {
        a->gpu = ks_xcalloc(ndev, sizeof *a->gpu);
        a->ngpu = ndev;
        for (size_t i = 0; i < ndev; i++) {
            dev_acc *d = &devs[i];
            ks_gpu_row *g = &a->gpu[i];
            g->device = d->device;
            g->busy_ns = ks_ivs_union(&d->all);
            g->first_ns = d->all.n ? d->all.v[0].a : w0;
            g->last_ns = d->all.n ? d->all.v[d->all.n - 1].b : w0;
            g->span_ns = ks_sat_sub(g->last_ns, g->first_ns);
            g->idle_ns = ks_sat_sub(g->span_ns, g->busy_ns);
            g->kernel_ns = ks_ivs_union(&d->kernel);
            g->memcpy_ns = ks_ivs_union(&d->memcpy);
            g->memset_ns = ks_ivs_union(&d->memset);
            g->kernels = d->kernels;
            g->memcpys = d->memcpys;
            g->memsets = d->memsets;
            g->streams = d->streams;
        }
        qsort(a->gpu, ndev, sizeof *a->gpu, cmp_dev);
    }
    for (size_t i = 0; i < ndev; i++) {
        ks_ivs_free(&devs[i].all);
        ks_ivs_free(&devs[i].kernel);
        ks_ivs_free(&devs[i].memcpy);
        ks_ivs_free(&devs[i].memset);
    }
    free(devs);
}

/* the row of device dev, or NULL (a->gpu is sorted by device) */
static ks_gpu_row *gpu_row(ks_analysis *a, int32_t dev)
{
    for (size_t i = 0; i < a->ngpu; i++)
        if (a->gpu[i].device == dev)
            return &a->gpu[i];
    return NULL;
}

void ks_gpu_comm(ks_analysis *a)
{
    if (!a->gpu)
        return;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_comm_cache cc;
    ks_comm_cache_init(&cc, a);
    /* per device row: communication and compute kernels (kernels that are not communication) */
    ks_ivs *comm = ks_xcalloc(a->ngpu, sizeof *comm), *compute = ks_xcalloc(a->ngpu, sizeof *compute);
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        ks_gpu_row *g = gpu_row(a, str->device);
        if (!g)
            continue;
        size_t d = (size_t)(g - a->gpu);
        for (size_t i = str->first; i < str->first + str->n; i++) {
            const ks_gpuwork_item *e = &gw->v[i];
            ks_ns s, en;
            if (e->kind != KS_K_KERNEL || !ks_gpuwork_clip(a, e, &s, &en))
                continue;
            ks_ivs_add(ks_comm_gpu_event(&cc, e->track, e->ev) ? &comm[d] : &compute[d], s, en);
        }
    }
    for (size_t d = 0; d < a->ngpu; d++) {
        ks_ivs exposed = {0};
        a->gpu[d].comm_ns = ks_ivs_union(&comm[d]);
        ks_ivs_normalize(&compute[d]);
        ks_ivs_subtract(&comm[d], &compute[d], &exposed);
        a->gpu[d].comm_exposed_ns = ks_ivs_length(&exposed);
        ks_ivs_free(&exposed);
        ks_ivs_free(&comm[d]);
        ks_ivs_free(&compute[d]);
    }
    free(comm);
    free(compute);
    ks_comm_cache_free(&cc);
}
