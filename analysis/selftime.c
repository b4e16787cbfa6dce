/* analysis/selftime.c: the self time of every slice of a timeline.
 *
 * What: within a lane, self = duration - total duration of the direct children (children of one
 * lane never overlap each other and lie inside their parent). A slice in an overflow lane (it
 * outlived the slice it started in, --overlap spill / clamp) shares time with the lanes below it;
 * that time is kept by the lower lane, and the spilled slice's self time is only the part of its
 * own self region that no lower lane covers.
 * Why correct: every ns of the union of a track's slices lies in some lane; the lowest lane that
 * covers it has exactly one innermost slice covering it (nesting), and that slice alone counts it.
 * So the self times of a track add up to the length of the union of its slices, each ns once.
 * With U = the union of lanes 0..l-1, the self of slice s in lane l is
 *     self_lane(s) - |s ∩ U| + Σ over its children c of |c ∩ U|
 * (the self region is s minus its children, which lie inside s and do not overlap); never
 * negative, since the children's parts of U lie inside s's.
 * Cost: O(n) for a track with one lane; with overflow lanes, the slices are bucketed by lane once
 * and each lane adds a merge of its top-level slices into the union and a logarithmic lookup per
 * slice.
 * Who: ks_timeline_build (reassigned_ns, once per track) and the tables (aggregate.c), or anyone
 * holding a timeline (public: include/kinesift/analysis.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis/intervals.h"
#include "analysis/timeline.h"
#include "common/util.h"

/* the slices of each overflow lane l >= 1, in timeline (start) order: idx[first[l] .. first[l + 1])
 * (lane 0, nearly every slice, is read from the timeline itself: no index of it) */
static void by_lane(const ks_timeline *tl, uint32_t **idx, size_t **first)
{
    size_t *f = ks_xcalloc((size_t)tl->nlanes + 1, sizeof *f);
    for (size_t i = 0; i < tl->n; i++)
        f[tl->s[i].lane + 1]++;
    f[1] = 0; /* lane 0 is not indexed */
    for (uint32_t l = 0; l < tl->nlanes; l++)
        f[l + 1] += f[l];
    size_t *at = ks_xmalloc(((size_t)tl->nlanes + 1) * sizeof *at);
    memcpy(at, f, ((size_t)tl->nlanes + 1) * sizeof *at);
    uint32_t *v = ks_xmalloc(ks_mul(f[tl->nlanes] ? f[tl->nlanes] : 1, sizeof *v));
    for (size_t i = 0; i < tl->n; i++)
        if (tl->s[i].lane)
            v[at[tl->s[i].lane]++] = (uint32_t)i;
    free(at);
    *idx = v;
    *first = f;
}

/* For every lane l >= 1, in order: call f for each slice of lane l with |slice ∩ U|, U = the union
 * of the lanes below it. The union of lane 0 is its top-level slices (disjoint, in start order):
 * built once, in room reserved for them (never copied while it grows), and taken as U without a
 * merge. */
static void each_covered(const ks_timeline *tl, void (*f)(void *ctx, size_t i, ks_ns cov), void *ctx)
{
    if (tl->nlanes < 2)
        return;
    uint32_t *idx;
    size_t *first;
    by_lane(tl, &idx, &first);
    ks_ivs below = {0}, top = {0}, merged = {0};
    ks_ivs_reserve(&below, tl->n); /* a bound: the part never written costs nothing (intervals.h) */
    for (size_t i = 0; i < tl->n; i++)
        if (tl->s[i].lane == 0 && tl->s[i].parent < 0)
            ks_ivs_add_merge(&below, ks_slice_ts_at(tl, i), ks_slice_end(tl, &tl->s[i]));
    for (uint32_t l = 1; l < tl->nlanes; l++) {
        for (size_t j = first[l]; j < first[l + 1]; j++)
            f(ctx, idx[j], ks_ivs_covered(&below, ks_slice_ts_at(tl, idx[j]), ks_slice_end(tl, &tl->s[idx[j]])));
        if (l + 1 == tl->nlanes)
            break;
        /* U += the top-level slices of lane l (in start order, disjoint) */
        ks_ivs_reset(&top);
        for (size_t j = first[l]; j < first[l + 1]; j++)
            if (tl->s[idx[j]].parent < 0)
                ks_ivs_add_merge(&top, ks_slice_ts_at(tl, idx[j]), ks_slice_end(tl, &tl->s[idx[j]]));
        if (!top.n)
            continue;
        ks_ivs_merge(&below, &top, &merged);
        ks_ivs tmp = below;
        below = merged;
        merged = tmp;
    }
    ks_ivs_free(&below);
    ks_ivs_free(&top);
    ks_ivs_free(&merged);
    free(idx);
    free(first);
}

typedef struct self_ctx {
    const ks_timeline *tl;
    ks_ns *self;
} self_ctx;

static void take_covered(void *ctx, size_t i, ks_ns cov)
{
    self_ctx *c = ctx;
    c->self[i] = ks_sat_sub(c->self[i], cov);
    if (c->tl->s[i].parent >= 0) /* the child's share was never the parent's */
        c->self[c->tl->s[i].parent] = ks_sat_add(c->self[c->tl->s[i].parent], cov);
}

void ks_timeline_self(const ks_timeline *tl, ks_ns *self)
{
    /* saturating: a slice may span more than INT64_MAX ns (docs/robustness.md) */
    for (size_t i = 0; i < tl->n; i++) {
        /* a parent comes before its children (timeline order), so it is set before they take
         * their time from it, in the same order as two passes would */
        ks_ns d = ks_sat_sub(ks_slice_end(tl, &tl->s[i]), ks_slice_ts_at(tl, i));
        self[i] = d;
        if (tl->s[i].parent >= 0)
            self[tl->s[i].parent] = ks_sat_sub(self[tl->s[i].parent], d);
    }
    self_ctx c = {tl, self};
    each_covered(tl, take_covered, &c);
}

typedef struct top_ctx {
    const ks_timeline *tl;
    ks_ns sum;
} top_ctx;

static void add_top_covered(void *ctx, size_t i, ks_ns cov)
{
    top_ctx *c = ctx;
    if (c->tl->s[i].parent < 0) /* a slice's part of U lies inside its top-level ancestor's */
        c->sum = ks_sat_add(c->sum, cov);
}

ks_ns ks_timeline_reassigned(const ks_timeline *tl)
{
    top_ctx c = {tl, 0};
    each_covered(tl, add_top_covered, &c);
    return c.sum;
}
