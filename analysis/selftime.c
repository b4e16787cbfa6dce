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
 * Who: ks_timeline_build (reassigned_ns, once per track); the tables (aggregate.c) and the
 * diagnoses through ks_timeline_self_each (analysis/timeline.h), or anyone holding a timeline
 * (ks_timeline_self, public: include/kinesift/analysis.h). */
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "analysis/timeline.h"
#include "common/util.h"

/* the slices of each overflow lane l >= 1, in timeline (start) order: idx[first[l] .. first[l + 1])
 * (lane 0, nearly every slice, is read from the timeline itself: no index of it) */
static void by_lane(const ks_timeline *tl, uint32_t **idx, size_t **first)
{
    size_t *f = ks_xcalloc((size_t)tl->nlanes + 1, sizeof *f);
    for (size_t i = 0; i < tl->n; i++)
        f[ks_slice_lane(tl, &tl->s[i]) + 1]++;
    f[1] = 0; /* lane 0 is not indexed */
    for (uint32_t l = 0; l < tl->nlanes; l++)
        f[l + 1] += f[l];
    size_t *at = ks_xmalloc(((size_t)tl->nlanes + 1) * sizeof *at);
    memcpy(at, f, ((size_t)tl->nlanes + 1) * sizeof *at);
    uint32_t *v = ks_xmalloc(ks_mul(f[tl->nlanes] ? f[tl->nlanes] : 1, sizeof *v));
    for (size_t i = 0; i < tl->n; i++)
        if (tl->s[i].flags & KS_SF_SPILLED)
            v[at[ks_slice_lane(tl, &tl->s[i])]++] = (uint32_t)i;
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
        if (!(tl->s[i].flags & KS_SF_SPILLED) && tl->s[i].parent < 0)
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

/* ---- the same without a value per slice ------------------------------------------------------
 *
 * A slice's self time is final once its last child has come (children follow their parent in
 * timeline order, inside one lane): each lane keeps the chain of its open slices, a slice closes
 * when the next slice of its lane is not its descendant, and its self time is given then. The
 * time an overflow-lane slice shares with the lanes below it (each_covered) is found first, for
 * those slices only, and applied in ks_timeline_self's order: a slice's own share taken, then its
 * children's given back. */

typedef struct open_slice {
    uint32_t i;
    ks_ns self;                /* duration less the children's so far */
    ks_ns cov_own;             /* its share of the lanes below (overflow lanes; 0 in lane 0) */
    ks_ns cov_children;        /* its children's shares, given back when it closes */
} open_slice;

typedef struct lane_chain {
    open_slice *v;
    size_t n, cap;
} lane_chain;

typedef struct cov_item {
    uint32_t i;
    ks_ns cov;
} cov_item;

typedef struct cov_list {
    cov_item *v;
    size_t n, cap;
} cov_list;

static void collect_covered(void *ctx, size_t i, ks_ns cov)
{
    cov_list *c = ctx;
    cov_item it = {(uint32_t)i, cov};
    KS_PUSH(c->v, c->n, c->cap, it);
}

static int cmp_cov(const void *x, const void *y)
{
    const cov_item *a = x, *b = y;
    return (a->i > b->i) - (a->i < b->i);
}

/* the innermost open slice of a lane closes: its self time is final */
static void close_top(lane_chain *ch, void (*f)(void *ctx, size_t i, ks_ns self), void *ctx)
{
    open_slice *o = &ch->v[--ch->n];
    ks_ns self = ks_sat_add(ks_sat_sub(o->self, o->cov_own), o->cov_children);
    f(ctx, o->i, self);
}

void ks_timeline_self_each(const ks_timeline *tl, void (*f)(void *ctx, size_t i, ks_ns self), void *ctx)
{
    cov_list cov = {0};
    each_covered(tl, collect_covered, &cov); /* lane by lane: into timeline order */
    if (cov.n > 1)
        qsort(cov.v, cov.n, sizeof *cov.v, cmp_cov);
    lane_chain *lanes = ks_xcalloc(tl->nlanes ? tl->nlanes : 1, sizeof *lanes);
    size_t next_cov = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        lane_chain *ch = &lanes[ks_slice_lane(tl, s)];
        while (ch->n && (int32_t)ch->v[ch->n - 1].i != s->parent)
            close_top(ch, f, ctx);
        ks_ns d = ks_sat_sub(ks_slice_end(tl, s), ks_slice_ts(tl, s));
        ks_ns c = 0;
        if (next_cov < cov.n && cov.v[next_cov].i == i)
            c = cov.v[next_cov++].cov;
        if (ch->n) { /* its parent: the duration taken, the share given back at its close */
            open_slice *p = &ch->v[ch->n - 1];
            p->self = ks_sat_sub(p->self, d);
            p->cov_children = ks_sat_add(p->cov_children, c);
        }
        open_slice o = {(uint32_t)i, d, c, 0};
        KS_PUSH(ch->v, ch->n, ch->cap, o);
    }
    for (uint32_t l = 0; l < tl->nlanes; l++) {
        while (lanes[l].n)
            close_top(&lanes[l], f, ctx);
        free(lanes[l].v);
    }
    free(lanes);
    free(cov.v);
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
