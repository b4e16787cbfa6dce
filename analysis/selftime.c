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
 * Cost: O(n) for lane 0; each overflow lane adds a pass over the slices, one merge of the union
 * and a logarithmic lookup per slice of the lane.
 * Who: ks_timeline_build (reassigned_ns, once per track) and the tables (aggregate.c), or anyone
 * holding a timeline (public: include/kinesift/analysis.h). */
#include <string.h>

#include "analysis/intervals.h"
#include "analysis/timeline.h"

/* the top-level slices of lane l, in start order (they do not overlap) */
static void lane_top(const ks_timeline *tl, uint32_t l, ks_ivs *out)
{
    ks_ivs_reset(out);
    for (size_t i = 0; i < tl->n; i++)
        if (tl->s[i].lane == l && tl->s[i].parent < 0)
            ks_ivs_add_merge(out, tl->s[i].ts, tl->s[i].end);
}

/* For every lane l >= 1, in order: call f for each slice of lane l with |slice ∩ U|, U = the union
 * of the lanes below it. */
static void each_covered(const ks_timeline *tl, void (*f)(void *ctx, size_t i, ks_ns cov), void *ctx)
{
    if (tl->nlanes < 2)
        return;
    ks_ivs below = {0}, top = {0}, merged = {0};
    lane_top(tl, 0, &below);
    for (uint32_t l = 1; l < tl->nlanes; l++) {
        for (size_t i = 0; i < tl->n; i++)
            if (tl->s[i].lane == l)
                f(ctx, i, ks_ivs_covered(&below, tl->s[i].ts, tl->s[i].end));
        if (l + 1 == tl->nlanes)
            break;
        lane_top(tl, l, &top);
        ks_ivs_merge(&below, &top, &merged);
        ks_ivs tmp = below;
        below = merged;
        merged = tmp;
    }
    ks_ivs_free(&below);
    ks_ivs_free(&top);
    ks_ivs_free(&merged);
}

typedef struct self_ctx {
    const ks_timeline *tl;
    ks_ns *self;
} self_ctx;

static void take_covered(void *ctx, size_t i, ks_ns cov)
{
    self_ctx *c = ctx;
    c->self[i] -= cov;
    if (c->tl->s[i].parent >= 0)
        c->self[c->tl->s[i].parent] += cov; /* the child's share was never the parent's */
}

void ks_timeline_self(const ks_timeline *tl, ks_ns *self)
{
    for (size_t i = 0; i < tl->n; i++)
        self[i] = tl->s[i].end - tl->s[i].ts;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->s[i].parent >= 0)
            self[tl->s[i].parent] -= tl->s[i].end - tl->s[i].ts;
    self_ctx c = {tl, self};
    each_covered(tl, take_covered, &c);
}

static void add_top_covered(void *ctx, size_t i, ks_ns cov)
{
    ks_timeline *tl = ctx;
    if (tl->s[i].parent < 0) /* a slice's part of U lies inside its top-level ancestor's */
        tl->reassigned_ns += cov;
}

void ks_timeline_reassigned(ks_timeline *tl)
{
    tl->reassigned_ns = 0;
    each_covered(tl, add_top_covered, tl);
}
