/* analysis/gpuwork_index.h: the GPU work index of an analysis (gpuwork.c), as the passes of later
 * rooms read it: every kernel, memcpy and memset once, per stream, with its launch, and the window
 * rule of GPU work (a count goes to the window its event starts in, a time is the part inside). */
#ifndef KS_ANALYSIS_GPUWORK_INDEX_H
#define KS_ANALYSIS_GPUWORK_INDEX_H

#include "kinesift/analysis.h"

/* One GPU work event: its place in the store, 8 bytes (its times, kind and device are read from
 * the event and its track: ks_gpuwork_event, ks_gpuwork_ts, ks_gpuwork_dur, ks_gpuwork_device). */
typedef struct ks_gpuwork_item {
    uint32_t track, ev;        /* t->tracks[track].ev[ev] */
} ks_gpuwork_item;

static inline const ks_event *ks_gpuwork_event(const ks_trace *t, const ks_gpuwork_item *it)
{
    return &t->tracks[it->track].ev[it->ev];
}
/* its start, and its duration as stored (KS_NO_DUR when the event has none) */
static inline ks_ns ks_gpuwork_ts(const ks_trace *t, const ks_gpuwork_item *it)
{
    return ks_gpuwork_event(t, it)->ts;
}
static inline ks_ns ks_gpuwork_dur(const ks_trace *t, const ks_gpuwork_item *it)
{
    return ks_event_dur(ks_gpuwork_event(t, it));
}
/* its track's device (-1 unknown) */
static inline int32_t ks_gpuwork_device(const ks_trace *t, const ks_gpuwork_item *it)
{
    return t->tracks[it->track].device;
}

/* The items of one GPU track (stream) that holds work: v[first .. first + n). */
typedef struct ks_gpuwork_stream {
    uint32_t track;
    int32_t device;
    int64_t stream;
    size_t first, n;
} ks_gpuwork_stream;

typedef struct ks_gpuwork {
    ks_gpuwork_item *v;        /* by track, then file order: the order of the store */
    size_t n;
    ks_gpuwork_stream *streams; /* GPU tracks holding work, in track order */
    size_t nstreams;
    size_t gpu_tracks;         /* GPU tracks, with or without work */
} ks_gpuwork;

/* The analysis' index (read-only). */
const ks_gpuwork *ks_gpuwork_of(const ks_analysis *a);
/* Items on the streams of one device. */
size_t ks_gpuwork_device_count(const ks_gpuwork *w, int32_t device);
/* One piece of GPU work [a, b) with its place in the store, for the passes that sort the work by
 * time (gaps, threads): by start, then end; with a stable sort, equal pieces keep stream order. */
typedef struct ks_gpuwork_iv {
    ks_ns a, b;
    uint32_t track, ev;
    uint32_t item;             /* its index in the GPU work index */
} ks_gpuwork_iv;
static inline int ks_gpuwork_iv_before(const ks_gpuwork_iv *p, const ks_gpuwork_iv *q)
{
    return p->a != q->a ? p->a < q->a : p->b < q->b;
}

/* The GPU work in time order, as indices into the index's items (4 bytes an item, not a copy of
 * each; ks_big_free(v, *most * sizeof *v)):
 *  - by_start: the items starting in the analysed window, every device, by start; equal starts in
 *    item order, i.e. by (track, event) (the tables' GPU pass);
 *  - device_by_time: the items of one device with a part in the window, by (start, end) of that
 *    part; equal parts in stream order (gaps, threads: ks_gpuwork_iv_at gives the part). */
uint32_t *ks_gpuwork_by_start(const ks_analysis *a, size_t *n, size_t *most);
uint32_t *ks_gpuwork_device_by_time(const ks_analysis *a, int32_t device, size_t *n, size_t *most);
/* Item i's part in the window (it has one: device_by_time keeps only those) and its event. */
ks_gpuwork_iv ks_gpuwork_iv_at(const ks_analysis *a, uint32_t i);

/* The window rules of GPU work (gpuwork.c says why), for [w0, w1):
 * a count belongs to the window its event starts in; */
static inline int ks_window_starts_in(ks_ns w0, ks_ns w1, ks_ns ts)
{
    return ts >= w0 && ts < w1;
}
/* a time is its part inside the window: 1 with [*s, *e) the part of [ts, ts + dur) inside (an
 * event across an edge is cut at it; a zero-length one counts in [w0, w1)), 0 when none. */
int ks_window_clip(ks_ns w0, ks_ns w1, ks_ns ts, ks_ns dur, ks_ns *s, ks_ns *e);

/* The same for an item and the analysed window. */
static inline int ks_gpuwork_starts_in(const ks_analysis *a, const ks_gpuwork_item *it)
{
    return ks_window_starts_in(a->win_start, a->win_end, ks_gpuwork_ts(a->trace, it));
}
static inline int ks_gpuwork_clip(const ks_analysis *a, const ks_gpuwork_item *it, ks_ns *s, ks_ns *e)
{
    const ks_event *ev = ks_gpuwork_event(a->trace, it);
    return ks_window_clip(a->win_start, a->win_end, ev->ts, ks_event_dur(ev), s, e);
}
/* The launching runtime/driver slice of item i of the index, or s = -1 (none, or before the links
 * pass). */
static inline ks_slice_ref ks_gpuwork_launcher_at(const ks_analysis *a, size_t i)
{
    ks_slice_ref none = {0, -1};
    return a->gpu_launch ? a->gpu_launch[i] : none;
}

/* The launching slice of an item of the index (ks_gpuwork_launcher_at). */
static inline ks_slice_ref ks_gpuwork_launcher(const ks_analysis *a, const ks_gpuwork_item *it)
{
    return ks_gpuwork_launcher_at(a, (size_t)(it - ks_gpuwork_of(a)->v));
}

#endif
