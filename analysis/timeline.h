/* analysis/timeline.h: building the nested timeline of one track (see timeline.c). Internal. */
#ifndef KS_TIMELINE_H
#define KS_TIMELINE_H

#include "common/limits.h"
#include "kinesift/analysis.h"

#define KS_WORST_OVERLAPS KS_LIMIT_WORST_OVERLAPS

typedef struct ks_overlap_example {
    uint32_t track;
    ks_str name, parent_name;
    uint16_t cat;
    ks_ns ts, end, parent_ts, parent_end;
    ks_ns excess;
} ks_overlap_example;

/* Classes of partial overlaps, reported apart. */
enum { KS_OV_CPU = 0, KS_OV_GPU = 1, KS_OV_PYTHON = 2, KS_OV_NCLASSES = 3 };

/* What nesting found over all tracks. */
typedef struct ks_timeline_stats {
    uint64_t unmatched_end, end_mismatch, unclosed, duplicates;
    uint64_t count[KS_OV_NCLASSES];
    ks_ns overlap_ns[KS_OV_NCLASSES];
    ks_overlap_example worst[KS_OV_NCLASSES][KS_WORST_OVERLAPS]; /* largest excess first */
    size_t nworst[KS_OV_NCLASSES];
    ks_overlap_row *cats;
    size_t ncats, cats_cap;
} ks_timeline_stats;

/* Build the timeline of one track into *tl. When tl->s is set on entry it is the room for the
 * slices (as many as the track has events; the caller owns it, analyze.c's small tracks), else the
 * slices get an array of their own (freed by ks_timeline_free). */
void ks_timeline_build(const ks_trace *t, uint32_t track, const ks_analysis_opts *o, ks_ns trace_end,
                       ks_timeline *tl, ks_diag *d, ks_timeline_stats *st);
/* 1 when nothing was counted. */
int ks_timeline_stats_empty(const ks_timeline_stats *st);
/* Add src (what later tracks found) to dst: the same result as building those tracks with dst. */
void ks_timeline_stats_merge(ks_timeline_stats *dst, const ks_timeline_stats *src);
void ks_timeline_free(ks_timeline *tl);
/* tl's overlap counts for writing, made (zero) on the first count (timeline.c) */
ks_timeline_overlaps *ks_timeline_ov(ks_timeline *tl);
/* The time slices of overflow lanes share with lower lanes: the track's reassigned_ns
 * (selftime.c). */
ks_ns ks_timeline_reassigned(const ks_timeline *tl);
/* The self time of every slice of tl, each once, as ks_timeline_self gives it, through
 * f(ctx, i, self) without a value per slice: a slice comes when its self time is final (after its
 * children, so not in timeline order), every slice of a lane before the next lane's remaining
 * ones at the end (selftime.c). For sums that do not depend on the order. */
void ks_timeline_self_each(const ks_timeline *tl, void (*f)(void *ctx, size_t i, ks_ns self), void *ctx);
/* For each event of the timeline's track, the index of its slice (-1: not a slice). Free it with
 * ks_big_free(v, n * sizeof *v), n = the track's event count (hugemem.h). */
int32_t *ks_timeline_event_slices(const ks_trace *t, const ks_timeline *tl);

#endif
