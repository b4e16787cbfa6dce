/* analysis/gpuwork.c: the GPU-work index of an analysis, and the window rule of GPU work.
 *
 * What: every kernel, memcpy and memset of a trace (kind ks_kind_is_gpu_work, complete events,
 * ph 'X') on a GPU track, once, in the order the passes used to visit them (track order, then
 * file order), as its place in the store (8 bytes: its times and kind are its event's, its device
 * its track's), grouped per stream with the stream's device and id; built once per
 * analysis (ks_analyze) and kept when the window changes. The launching CPU slice of an item is
 * ks_gpuwork_launcher (the links pass fills it after the index is built). And the two window rules
 * every pass over GPU work applies, here only:
 *  - a count belongs to the window its event starts in: ts in [w0, w1) (ks_window_starts_in:
 *    the kernels, ops and labels tables, diagnoses, flame graphs);
 *  - a time is the part inside the window (ks_window_clip: GPU unions, communication, idle gaps):
 *    an event straddling an edge is cut at it; a zero-length event is in when it lies in
 *    [w0, w1) (at w0 included, at w1 not: the same at the edge as inside). It covers no time
 *    (no union grows) but it is counted (kernels per device) and is a point of work between
 *    idle gaps.
 * Why it is correct: the items name the events the passes read, in the order they read them, so
 * a pass over the index visits what its loop over the tracks visited; the rules are the ones those
 * loops wrote out, stated once.
 * When it does not apply: events that are not GPU work (annotations, syncs, instants on GPU
 * tracks) are not in it: passes over those still walk the tracks or the timelines.
 * Who may use it: the analysis passes and the rooms after analysis/ (through analysis/analysis_int.h);
 * read-only once ks_analyze has returned (safe from several threads). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "algo/msort.h"
#include "common/hugemem.h"
#include "common/util.h"

int ks_window_clip(ks_ns w0, ks_ns w1, ks_ns ts, ks_ns dur, ks_ns *s, ks_ns *e)
{
    ks_ns en = ts + dur;
    if (en < w0 || ts >= w1 || (en == w0 && dur > 0))
        return 0;
    *s = ts < w0 ? w0 : ts;
    *e = en > w1 ? w1 : en;
    return 1;
}

void ks_gpuwork_build(const ks_trace *t, ks_gpuwork *w)
{
    memset(w, 0, sizeof *w);
    size_t most = 0;
    const ks_track *tr;
    for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        most += tr->n;
        w->gpu_tracks++;
    }
    w->v = ks_xmalloc(ks_mul(most ? most : 1, sizeof *w->v));
    w->streams = ks_xmalloc(ks_mul(w->gpu_tracks ? w->gpu_tracks : 1, sizeof *w->streams));
    for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        size_t first = w->n;
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (!ks_kind_is_gpu_work(e->kind) || e->ph != 'X')
                continue;
            ks_gpuwork_item it = {(uint32_t)k, (uint32_t)i};
            w->v[w->n++] = it;
        }
        if (w->n > first) {
            ks_gpuwork_stream s = {(uint32_t)k, tr->device, tr->stream, first, w->n - first};
            w->streams[w->nstreams++] = s;
        }
    }
}

void ks_gpuwork_free(ks_gpuwork *w)
{
    free(w->v);
    free(w->streams);
    memset(w, 0, sizeof *w);
}

const ks_gpuwork *ks_gpuwork_of(const ks_analysis *a)
{
    return &a->priv->gpuwork;
}

size_t ks_gpuwork_device_count(const ks_gpuwork *w, int32_t device)
{
    size_t n = 0;
    for (size_t s = 0; s < w->nstreams; s++)
        if (w->streams[s].device == device)
            n += w->streams[s].n;
    return n;
}

/* ---- the work in time order, as indices ---------------------------------------------------- */

/* by start; a stable sort keeps equal starts in item order */
static inline int start_before(const ks_analysis *a, const uint32_t *x, const uint32_t *y)
{
    const ks_gpuwork_item *v = a->priv->gpuwork.v;
    return ks_gpuwork_ts(a->trace, &v[*x]) < ks_gpuwork_ts(a->trace, &v[*y]);
}

/* each stream's work is in start order already: the sort merges one run per stream */
KS_MSORT_DEFINE_CTX(sort_by_start, uint32_t, ks_analysis, start_before)

uint32_t *ks_gpuwork_by_start(const ks_analysis *a, size_t *n, size_t *most)
{
    const ks_gpuwork *w = ks_gpuwork_of(a);
    *most = w->n;
    uint32_t *v = ks_big_alloc(ks_mul(*most, sizeof *v));
    *n = 0;
    for (size_t j = 0; j < w->n; j++)
        if (ks_gpuwork_starts_in(a, &w->v[j]))
            v[(*n)++] = (uint32_t)j;
    sort_by_start(a, v, *n);
    return v;
}

ks_gpuwork_iv ks_gpuwork_iv_at(const ks_analysis *a, uint32_t i)
{
    const ks_gpuwork_item *it = &ks_gpuwork_of(a)->v[i];
    ks_gpuwork_iv x = {0, 0, it->track, it->ev, i};
    (void)ks_gpuwork_clip(a, it, &x.a, &x.b);
    return x;
}

static inline int part_before(const ks_analysis *a, const uint32_t *x, const uint32_t *y)
{
    ks_gpuwork_iv p = ks_gpuwork_iv_at(a, *x), q = ks_gpuwork_iv_at(a, *y);
    return ks_gpuwork_iv_before(&p, &q);
}

/* stable (equal parts keep their stream order), and each stream's work is in start order already:
 * the sort merges one run per stream */
KS_MSORT_DEFINE_CTX(sort_by_part, uint32_t, ks_analysis, part_before)

uint32_t *ks_gpuwork_device_by_time(const ks_analysis *a, int32_t device, size_t *n, size_t *most)
{
    const ks_gpuwork *w = ks_gpuwork_of(a);
    *most = ks_gpuwork_device_count(w, device);
    uint32_t *v = ks_big_alloc(ks_mul(*most, sizeof *v));
    *n = 0;
    for (size_t k = 0; k < w->nstreams; k++) {
        const ks_gpuwork_stream *str = &w->streams[k];
        for (size_t i = str->first; str->device == device && i < str->first + str->n; i++) {
            ks_ns s, e;
            if (ks_gpuwork_clip(a, &w->v[i], &s, &e))
                v[(*n)++] = (uint32_t)i;
        }
    }
    sort_by_part(a, v, *n);
    return v;
}
