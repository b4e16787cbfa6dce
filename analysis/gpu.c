/* analysis/gpu.c: GPU figures per device inside the window: span (first work start .. last work
 * end), busy = union of kernel, memcpy and memset intervals over all streams of the device, idle =
 * span - busy, and the union of each class. Communication (kinesift/comm.h: by kernel name,
 * collective metadata or launching op) is added by ks_gpu_comm once the links exist: its union,
 * and the exposed part, when no other kernel (compute) runs on the device, so that
 * comm - exposed is the communication overlapped by compute. Annotations and syncs are not work.
 * No GPU work at all = not observed, with the reason; never zero.
 * Device activity: the events of other accelerators on device tracks (mtia_ccp_events, hpu_op,
 * unknown categories carrying args.device/stream; vocab/kinds.c) are not kernels or copies,
 * and kinesift cannot tell which of them compute: per device their span and union ("recorded
 * activity", waits included) and the union per event name, reported as uninterpreted. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "algo/msort.h"
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
    ks_device_activity_build(a);
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
            uint8_t kind = ks_gpuwork_event(a->trace, e)->kind;
            if (kind == KS_K_KERNEL) {
                d->kernels++;
                ks_ivs_add_merge(&d->kernel, s, en); /* every kernel, communication included */
            } else if (kind == KS_K_MEMCPY) {
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
            a->gpu_reason =
                a->ndevice_activity
                    ? "not observed: the trace has no kernel, memcpy or memset events; its device tracks hold "
                      "events of another accelerator (such as MTIA's mtia_ccp_events), which kinesift does not "
                      "interpret as kernels or copies: see the device activity (span, busy and idle per device)"
                : device_tracks ? "not observed: the trace has no kernel, memcpy or memset events (its device "
                                  "tracks hold no work kinesift can measure: annotations, synchronisations or "
                                  "instants)"
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
            if (ks_gpuwork_event(a->trace, e)->kind != KS_K_KERNEL || !ks_gpuwork_clip(a, e, &s, &en))
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

/* ---- device activity kinesift cannot interpret ---------------------------------------------- */

typedef struct dev_iv {
    int32_t device;
    uint16_t cat;
    ks_str name;
    ks_ns a, b;
} dev_iv;

static inline int iv_time_before(const dev_iv *p, const dev_iv *q)
{
    if (p->device != q->device)
        return p->device < q->device;
    return p->a != q->a ? p->a < q->a : p->b < q->b;
}

static inline int iv_name_before(const dev_iv *p, const dev_iv *q)
{
    if (p->device != q->device)
        return p->device < q->device;
    if (p->cat != q->cat)
        return p->cat < q->cat;
    return p->name != q->name ? p->name < q->name : p->a < q->a;
}

/* Stable natural merge sorts (algo/msort.h): the intervals come track after track, each track's in
 * time order, and the name order of a device's intervals is runs of the time order. Stable, as
 * glibc's qsort (a merge sort) was: equal keys keep their order, so the categories' first-seen
 * order is unchanged. */
KS_MSORT_DEFINE(sort_iv_time, dev_iv, iv_time_before)
KS_MSORT_DEFINE(sort_iv_name, dev_iv, iv_name_before)

static int cmp_name_busy(const void *x, const void *y)
{
    const ks_device_name *p = x, *q = y;
    if (p->busy_ns != q->busy_ns)
        return p->busy_ns > q->busy_ns ? -1 : 1;
    if (p->cat != q->cat)
        return p->cat < q->cat ? -1 : 1;
    return (p->name > q->name) - (p->name < q->name);
}

/* the label of the process of a track: process_labels ("MTIA 17"), else process_name */
static ks_str process_label(const ks_trace *t, const ks_track *tr)
{
    const ks_process *p = &t->procs[tr->process];
    return p->labels ? p->labels : p->name;
}

static void add_cat(ks_device_activity *d, uint16_t cat)
{
    for (size_t i = 0; i < d->ncats; i++)
        if (d->cats[i] == cat)
            return;
    d->cats = ks_xrealloc(d->cats, (d->ncats + 1) * sizeof *d->cats);
    d->cats[d->ncats++] = cat;
}

/* per device: its first track's label and how many tracks hold such events */
typedef struct dev_meta {
    int32_t device;
    ks_str label;
    uint32_t tracks;
} dev_meta;

static dev_meta *meta_of(dev_meta **m, size_t *n, size_t *cap, int32_t device)
{
    for (size_t i = 0; i < *n; i++)
        if ((*m)[i].device == device)
            return &(*m)[i];
    KS_GROW(*m, *cap, *n + 1);
    dev_meta *x = &(*m)[(*n)++];
    memset(x, 0, sizeof *x);
    x->device = device;
    return x;
}

/* the events of kind KS_K_DEVICE_OTHER on device tracks, clipped to the window, and per track
 * holding any, its device's meta */
static dev_iv *collect_other(const ks_analysis *a, size_t *nout, dev_meta **meta, size_t *nmeta)
{
    const ks_trace *t = a->trace;
    dev_iv *v = NULL;
    size_t n = 0, cap = 0, mcap = 0;
    const ks_track *tr;
    for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        size_t before = n;
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (e->kind != KS_K_DEVICE_OTHER || e->ph != 'X')
                continue;
            ks_ns s, en; /* the window rule of GPU work (gpuwork.c) */
            if (!ks_window_clip(a->win_start, a->win_end, e->ts, ks_event_dur(e), &s, &en))
                continue;
            dev_iv x = {tr->device, e->cat, e->name, s, en};
            KS_PUSH(v, n, cap, x);
        }
        if (n > before) {
            dev_meta *m = meta_of(meta, nmeta, &mcap, tr->device);
            if (!m->tracks)
                m->label = process_label(t, tr);
            m->tracks++;
        }
    }
    *nout = n;
    return v;
}

void ks_device_activity_build(ks_analysis *a)
{
    dev_meta *meta = NULL;
    size_t n = 0, nmeta = 0, rcap = 0;
    dev_iv *v = collect_other(a, &n, &meta, &nmeta);
    if (!n) {
        free(meta);
        return;
    }
    /* per device, in device order: span, union, categories */
    sort_iv_time(v, n);
    for (size_t i = 0; i < n;) {
        KS_GROW(a->device_activity, rcap, a->ndevice_activity + 1);
        ks_device_activity *d = &a->device_activity[a->ndevice_activity++];
        memset(d, 0, sizeof *d);
        d->device = v[i].device;
        for (size_t j = 0; j < nmeta; j++)
            if (meta[j].device == d->device) {
                d->label = meta[j].label;
                d->tracks = meta[j].tracks;
            }
        ks_sweep sw = {0};
        d->first_ns = v[i].a;
        d->last_ns = v[i].b;
        for (; i < n && v[i].device == d->device; i++) {
            ks_sweep_add(&sw, v[i].a, v[i].b);
            if (v[i].b > d->last_ns)
                d->last_ns = v[i].b;
            add_cat(d, v[i].cat);
            d->events++;
        }
        d->busy_ns = ks_sweep_finish(&sw);
        d->span_ns = ks_sat_sub(d->last_ns, d->first_ns);
        d->idle_ns = ks_sat_sub(d->span_ns, d->busy_ns);
    }
    free(meta);
    /* by name: the union of each (category, name) on each device */
    sort_iv_name(v, n);
    ks_device_activity *row = a->device_activity;
    size_t ncap = 0;
    for (size_t i = 0; i < n;) {
        if (row->device != v[i].device) {
            while (row->device != v[i].device)
                row++;
            ncap = 0;
        }
        size_t j = i;
        ks_sweep sw = {0};
        for (; j < n && v[j].device == v[i].device && v[j].cat == v[i].cat && v[j].name == v[i].name; j++)
            ks_sweep_add(&sw, v[j].a, v[j].b);
        ks_device_name nm = {v[i].name, v[i].cat, j - i, ks_sweep_finish(&sw)};
        KS_PUSH(row->names, row->nnames, ncap, nm);
        i = j;
    }
    for (size_t i = 0; i < a->ndevice_activity; i++)
        qsort(a->device_activity[i].names, a->device_activity[i].nnames, sizeof(ks_device_name), cmp_name_busy);
    free(v);
}

void ks_device_activity_free(ks_analysis *a)
{
    for (size_t i = 0; i < a->ndevice_activity; i++) {
        free(a->device_activity[i].cats);
        free(a->device_activity[i].names);
    }
    free(a->device_activity);
    a->device_activity = NULL;
    a->ndevice_activity = 0;
}

/* ---- the platform ---------------------------------------------------------------------------- */

enum { PLAT_CUDA, PLAT_ROCM, PLAT_MTIA, PLAT_XPU, PLAT_HPU, PLAT_OTHER, PLAT_N };
static const char *const plat_names[PLAT_N] = {"CUDA", "ROCm", "MTIA", "XPU", "HPU", "another accelerator"};

static int starts(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

/* the platform of one runtime/driver call or device event, from its category and name; -1 none */
static int event_platform(const char *cat, const char *name, int kind)
{
    if (kind == KS_K_DEVICE_OTHER)
        return starts(cat, "mtia_") ? PLAT_MTIA : starts(cat, "hpu_") ? PLAT_HPU : starts(cat, "xpu_") ? PLAT_XPU
                                                                                                       : PLAT_OTHER;
    if (starts(cat, "mtia_"))
        return PLAT_MTIA;
    if (starts(cat, "xpu_"))
        return PLAT_XPU;
    if (starts(cat, "hpu_"))
        return PLAT_HPU;
    if (starts(name, "hip") || starts(name, "hsa") || starts(name, "roctx"))
        return PLAT_ROCM;
    if (starts(name, "cuda") || (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z'))
        return PLAT_CUDA;
    return starts(cat, "cuda_") || !strcmp(cat, "Runtime") ? -1 : PLAT_OTHER;
}

/* A remembered verdict of event_platform: a trace names its runtime calls with a few dozen names,
 * so a small table indexed by the name's id answers almost every call without comparing strings
 * (the verdict depends on the category, the name and whether the kind is KS_K_DEVICE_OTHER, all
 * three kept and compared). */
#define PLAT_MEMO 256
typedef struct plat_memo {
    ks_str name;
    uint16_t cat;
    int8_t other; /* the kind was KS_K_DEVICE_OTHER */
    int8_t plat;  /* event_platform's answer; PLAT_N: the entry is empty */
} plat_memo;

static int memo_platform(plat_memo *m, const ks_trace *t, const ks_event *e)
{
    plat_memo *x = &m[(e->name ^ (e->name >> 8)) % PLAT_MEMO]; /* a name under two categories: one entry */
    int8_t other = e->kind == KS_K_DEVICE_OTHER;
    if (x->plat == PLAT_N || x->name != e->name || x->cat != e->cat || x->other != other) {
        x->name = e->name;
        x->cat = e->cat;
        x->other = other;
        x->plat = (int8_t)event_platform(ks_trace_cat_name(t, e->cat), ks_trace_str(t, e->name), e->kind);
    }
    return x->plat;
}

const char *ks_analysis_platform(const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    uint64_t votes[PLAT_N] = {0};
    plat_memo memo[PLAT_MEMO];
    for (size_t i = 0; i < PLAT_MEMO; i++)
        memo[i].plat = PLAT_N;
    /* the runtime and driver calls, and the device events, by what they are named */
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (e->kind != KS_K_RUNTIME && e->kind != KS_K_DRIVER && e->kind != KS_K_DEVICE_OTHER)
                continue;
            int p = memo_platform(memo, t, e);
            if (p >= 0)
                votes[p]++;
        }
    }
    int best = -1;
    for (int p = 0; p < PLAT_N; p++)
        if (votes[p] && (best < 0 || votes[p] > votes[best]))
            best = p;
    if (best >= 0)
        return plat_names[best];
    /* none: the versions in the metadata (hip_runtime_version, cuda_runtime_version, cupti_version) */
    for (size_t i = 0; i < t->meta.nentries; i++) {
        const char *key = ks_trace_str(t, t->meta.entries[i].key);
        if (starts(key, "hip_") || starts(key, "roctracer"))
            return plat_names[PLAT_ROCM];
        if (starts(key, "cuda_") || starts(key, "cupti"))
            return plat_names[PLAT_CUDA];
    }
    return NULL;
}
