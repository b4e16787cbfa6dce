/* analysis/timeline.c: the nested timeline of each track.
 *
 * 1. B/E pairs become slices: per track, in (ts, E before B, file order) order, an E closes the
 *    innermost open B with its name (an unnamed E closes the innermost); unmatched E, name
 *    mismatches and B never closed (it ends at the trace end) are counted.
 * 2. Slices are sorted by start, longer first at equal start, then file order (Perfetto's rule).
 * 3. Nesting with half-open intervals: before a slice starts, every open slice that ended at or
 *    before its start is closed (a zero-length slice stays open for another zero-length one at the
 *    same time, so instants stack). A slice that outlives the open slice it starts in is a partial
 *    overlap: by default it moves to the first overflow lane where it nests cleanly (--overlap);
 *    a track gets as many overflow lanes as it needs, so no slice is left out for want of one.
 * 4. Self times (selftime.c) count each ns of the track's union once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "common/limits.h"
#include "algo/msort.h"
#include "analysis/timeline.h"
#include "kinesift/insights.h"
#include "common/util.h"
#include "analysis/analysis_int.h"
#include "common/optsyntax.h"

void ks_analysis_opts_init(ks_analysis_opts *o)
{
    memset(o, 0, sizeof *o);
    o->overlap = KS_OVERLAP_SPILL;
}

int ks_overlap_parse(const char *s, ks_overlap_policy *p, ks_ns *clamp_ns)
{
    *clamp_ns = 0;
    if (!strcmp(s, "spill"))
        *p = KS_OVERLAP_SPILL;
    else if (!strcmp(s, "drop"))
        *p = KS_OVERLAP_DROP;
    else if (!strcmp(s, "truncate"))
        *p = KS_OVERLAP_TRUNCATE;
    else if (!strncmp(s, "clamp:", 6)) {
        ks_ns v; /* a bare number is ns, as clamp:NS says; a unit may be given (clamp:2us) */
        if (ks_duration_parse_unit(s + 6, KS_DUR_BARE_NS, &v) != 0 || v < 0 || s[6] == '+' || s[6] == '-')
            return -1;
        *p = KS_OVERLAP_CLAMP;
        *clamp_ns = v;
    } else
        return -1;
    return 0;
}

/* A slice while its timeline is built: it carries its end, which the nesting reads and the overlap
 * policy may cut, not its start, which is always its event's (read from there: the build holds one
 * of these per slice of the track, 24 bytes). The finished timeline keeps ks_slice (12 bytes, no
 * times) and only the ends that are not their events' (KS_SF_OWN_END): compact(). */
typedef struct bslice {
    ks_ns end;         /* its start is its event's (k->ev[ev].ts): 24 bytes */
    uint32_t ev;
    int32_t parent;
    uint32_t lane;
    uint16_t depth;
    uint8_t flags;
    uint8_t kind;
} bslice;

/* ---- B/E pairing --------------------------------------------------------------------------- */

typedef struct be_ref {
    ks_ns ts;
    uint32_t ev;
    uint8_t is_end;
} be_ref;

static int cmp_be(const void *x, const void *y)
{
    const be_ref *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->is_end != b->is_end)
        return a->is_end ? -1 : 1; /* E first at equal time */
    return (a->ev > b->ev) - (a->ev < b->ev);
}

static void pair_begin_end(const ks_trace *t, const ks_track *k, ks_ns trace_end, bslice **out,
                           size_t *n, size_t *cap, ks_diag *d, ks_timeline_stats *st)
{
    be_ref *v = NULL;
    size_t nv = 0, cv = 0;
    for (size_t i = 0; i < k->n; i++) {
        uint8_t ph = k->ev[i].ph;
        if (ph == 'B' || ph == 'E') {
            be_ref r = {k->ev[i].ts, (uint32_t)i, ph == 'E'};
            KS_PUSH(v, nv, cv, r);
        }
    }
    if (!nv)
        return;
    qsort(v, nv, sizeof *v, cmp_be);
    uint32_t *open = NULL;
    size_t nopen = 0, copen = 0;
    for (size_t i = 0; i < nv; i++) {
        const ks_event *e = &k->ev[v[i].ev];
        if (!v[i].is_end) {
            KS_PUSH(open, nopen, copen, v[i].ev);
            continue;
        }
        if (!nopen) {
            st->unmatched_end++;
            ks_diag_add(d, "timeline.unmatched_end", KS_SEV_WARNING,
                        "'E' at %lld ns on track %u (\"%s\") closes nothing", (long long)e->ts,
                        (unsigned)(k - t->tracks), ks_trace_str(t, e->name));
            continue;
        }
        size_t m = nopen; /* innermost open B with the same name (an unnamed E matches any) */
        while (m > 0 && e->name && k->ev[open[m - 1]].name != e->name)
            m--;
        if (m == 0) {
            st->unmatched_end++;
            ks_diag_add(d, "timeline.unmatched_end", KS_SEV_WARNING,
                        "'E' \"%s\" at %lld ns matches no open 'B' on its track", ks_trace_str(t, e->name),
                        (long long)e->ts);
            continue;
        }
        if (m != nopen) {
            st->end_mismatch++;
            ks_diag_add(d, "timeline.end_name_mismatch", KS_SEV_WARNING,
                        "'E' \"%s\" at %lld ns closes a 'B' below the innermost open one (\"%s\")",
                        ks_trace_str(t, e->name), (long long)e->ts,
                        ks_trace_str(t, k->ev[open[nopen - 1]].name));
        }
        uint32_t b = open[m - 1];
        memmove(open + m - 1, open + m, (nopen - m) * sizeof *open);
        nopen--;
        bslice s = {.end = e->ts, .ev = b, .parent = -1, .flags = KS_SF_BE, .kind = k->ev[b].kind};
        KS_PUSH(*out, *n, *cap, s);
    }
    for (size_t i = 0; i < nopen; i++) {
        const ks_event *b = &k->ev[open[i]];
        st->unclosed++;
        ks_diag_add(d, "timeline.unclosed_begin", KS_SEV_WARNING,
                    "'B' \"%s\" at %lld ns never closed: ends at the trace end", ks_trace_str(t, b->name),
                    (long long)b->ts);
        bslice s = {.end = trace_end > b->ts ? trace_end : b->ts, .ev = open[i], .parent = -1,
                      .flags = KS_SF_BE | KS_SF_UNCLOSED, .kind = b->kind};
        KS_PUSH(*out, *n, *cap, s);
    }
    free(open);
    free(v);
}

/* ---- sorting ------------------------------------------------------------------------------- */

/* start, longer first, file order: a strict total order (a slice's event is its own) */
static inline int slice_before(const ks_event *ev, const bslice *a, const bslice *b)
{
    ks_ns at = ev[a->ev].ts, bt = ev[b->ev].ts;
    if (at != bt)
        return at < bt;
    if (a->end != b->end) /* the same start: the later end is the longer slice (no span that
                           * could overflow: fuzz/regress/analyze/slice-order-span-overflow) */
        return a->end > b->end;
    return a->ev < b->ev;
}

/* Kineto writes complete events in end order, children before their parent: short runs that a
 * merge sort with inlined comparisons handles far faster than qsort */
KS_MSORT_DEFINE_CTX(sort_slices, bslice, ks_event, slice_before)

/* ---- nesting ------------------------------------------------------------------------------- */

/* A slice looks for a lane among the first LANE_SCAN only (first fit), so that placing one costs
 * at most that many checks however many lanes a hostile track needs; past them it opens a new lane.
 * Nothing is ever left out: a new lane is empty, so the slice nests there at top level. */
#define LANE_SCAN KS_LIMIT_LANE_SCAN

typedef struct lane {
    int32_t *stack;
    size_t n, cap;
} lane;

/* close the open slices of lane l that end before s starts */
static void pop_ended(lane *l, const ks_event *ev, const bslice *all, const bslice *s, ks_ns s_ts)
{
    while (l->n) {
        const bslice *top = &all[l->stack[l->n - 1]];
        int both_zero = top->end == ev[top->ev].ts && s->end == s_ts;
        if (top->end < s_ts || (top->end == s_ts && !both_zero))
            l->n--;
        else
            break;
    }
}

/* keep the KS_WORST_OVERLAPS largest excesses, the earliest first among equals */
static void keep_worst(ks_timeline_stats *st, int cls, const ks_overlap_example *ex)
{
    ks_overlap_example *w = st->worst[cls];
    size_t n = st->nworst[cls];
    if (n < KS_WORST_OVERLAPS)
        w[st->nworst[cls]++] = *ex;
    else if (ex->excess > w[n - 1].excess)
        w[n - 1] = *ex;
    else
        return;
    for (size_t i = st->nworst[cls] - 1; i > 0 && w[i].excess > w[i - 1].excess; i--) {
        ks_overlap_example tmp = w[i];
        w[i] = w[i - 1];
        w[i - 1] = tmp;
    }
}

static void note_overlap(const ks_trace *t, const ks_track *k, const bslice *s, const bslice *p,
                         int cls, ks_timeline_stats *st)
{
    ks_ns excess = ks_sat_sub(s->end, p->end);
    st->count[cls]++;
    st->overlap_ns[cls] = ks_sat_add(st->overlap_ns[cls], excess);
    ks_overlap_example ex = {(uint32_t)(k - t->tracks), k->ev[s->ev].name, k->ev[p->ev].name,
                             k->ev[s->ev].cat, k->ev[s->ev].ts, s->end, k->ev[p->ev].ts, p->end, excess};
    keep_worst(st, cls, &ex);
}

static void count_overlap_cat(ks_timeline_stats *st, uint32_t track, uint16_t cat, ks_ns excess)
{
    for (size_t i = 0; i < st->ncats; i++)
        if (st->cats[i].track == track && st->cats[i].cat == cat) {
            st->cats[i].count++;
            st->cats[i].excess_ns = ks_sat_add(st->cats[i].excess_ns, excess);
            return;
        }
    ks_overlap_row r = {track, cat, 1, excess};
    KS_PUSH(st->cats, st->ncats, st->cats_cap, r);
}

/* Nest the sorted slices v[0 .. *n) of one track; drops (policy drop) are removed from the array. */
static void nest(const ks_trace *t, const ks_track *k, const ks_analysis_opts *o, ks_timeline *tl, bslice *v,
                 size_t *n, ks_timeline_stats *st)
{
    /* as many lanes as the track needs: no slice is ever left out for want of one */
    lane *lanes = ks_xcalloc(1, sizeof *lanes);
    size_t nlanes = 1, cap_lanes = 1;
    size_t out = 0;
    int gpu = k->kind == KS_TRACK_GPU;
    for (size_t i = 0; i < *n; i++) {
        bslice s = v[i];
        ks_ns s_ts = k->ev[s.ev].ts;
        int placed = 0;
        int s_python = s.kind == KS_K_PYTHON;
        for (size_t l = 0; !placed; l++) {
            if (l == LANE_SCAN && nlanes > LANE_SCAN)
                l = nlanes; /* none of the first LANE_SCAN lanes takes it: a lane of its own */
            if (l >= nlanes) {
                KS_GROW(lanes, cap_lanes, l + 1);
                memset(&lanes[l], 0, sizeof lanes[l]);
                nlanes = l + 1;
            }
            lane *ln = &lanes[l];
            pop_ended(ln, k->ev, v, &s, s_ts);
            /* A Python frame (with_stack) that a non-Python slice outlives is the one that is off:
             * the Python tracer records frame exits late (pytorch #174555), e.g. the frame of
             * _record_function_enter_new ends after its record_function range began. The frame is
             * cut at the slice's start and the slice nests where it belongs. */
            while (l == 0 && !s_python && ln->n) {
                bslice *top = &v[ln->stack[ln->n - 1]];
                if (s.end <= top->end || top->kind != KS_K_PYTHON || k->ev[top->ev].ts >= s_ts)
                    break;
                note_overlap(t, k, &s, top, KS_OV_PYTHON, st);
                top->end = s_ts;
                top->flags |= KS_SF_TRUNCATED;
                ks_timeline_ov(tl)->truncated++;
                ln->n--;
            }
            if (ln->n && s.end > v[ln->stack[ln->n - 1]].end) {
                /* partial overlap with the innermost open slice of this lane */
                const bslice *p = &v[ln->stack[ln->n - 1]];
                if (l == 0) {
                    note_overlap(t, k, &s, p, gpu ? KS_OV_GPU : KS_OV_CPU, st);
                    count_overlap_cat(st, (uint32_t)(k - t->tracks), k->ev[s.ev].cat, ks_sat_sub(s.end, p->end));
                    ks_overlap_policy pol = o->overlap;
                    if (pol == KS_OVERLAP_CLAMP)
                        pol = (ks_sat_sub(s.end, p->end) <= o->clamp_ns) ? KS_OVERLAP_TRUNCATE : KS_OVERLAP_SPILL;
                    if (pol == KS_OVERLAP_DROP) {
                        ks_timeline_overlaps *ov = ks_timeline_ov(tl);
                        ov->dropped++;
                        ov->dropped_ns = ks_sat_add(ov->dropped_ns, ks_sat_sub(s.end, s_ts));
                        placed = -1;
                        break;
                    }
                    if (pol == KS_OVERLAP_TRUNCATE) {
                        ks_timeline_overlaps *ov = ks_timeline_ov(tl);
                        ov->clipped_ns = ks_sat_add(ov->clipped_ns, ks_sat_sub(s.end, p->end));
                        s.end = p->end;
                        s.flags |= KS_SF_TRUNCATED;
                        ov->truncated++;
                    } else {
                        ks_timeline_ov(tl)->spilled++;
                        continue;
                    }
                } else {
                    continue;
                }
            }
            s.lane = (uint32_t)l;
            if (l)
                s.flags |= KS_SF_SPILLED;
            s.parent = ln->n ? ln->stack[ln->n - 1] : -1;
            s.depth = (uint16_t)(ln->n > UINT16_MAX ? UINT16_MAX : ln->n);
            placed = 1;
        }
        if (placed < 0)
            continue;
        /* the stacks hold output indices (out <= i), so parents are output indices even after
         * a drop has shifted the array */
        v[out] = s;
        KS_PUSH(lanes[s.lane].stack, lanes[s.lane].n, lanes[s.lane].cap, (int32_t)out);
        out++;
    }
    *n = out;
    tl->nlanes = (uint32_t)nlanes;
    for (size_t l = 0; l < nlanes; l++)
        free(lanes[l].stack);
    free(lanes);
}

static int slice_kind_ok(uint8_t ph)
{
    return ph == 'X';
}

/* The finished slice of b, and whether its end is its own (not its event's: a B/E pair, a slice
 * the overlap policy or a late Python frame cut, an end that the event's duration does not give). */
static ks_slice finish_slice(const ks_track *k, const bslice *b, int *own)
{
    ks_slice s = {.ev = b->ev, .parent = b->parent, .depth = b->depth, .flags = b->flags, .kind = b->kind};
    const ks_event *e = &k->ev[b->ev];
    *own = (b->flags & KS_SF_BE) || !ks_event_has_dur(e) || e->ts + ks_event_dur(e) != b->end;
    if (*own)
        s.flags |= KS_SF_OWN_END;
    return s;
}

/* Turn the built slices v[0 .. n) into tl's: 12-byte slices written over v from its start (slice i
 * lands at or before where v[i] was read, so nothing unread is overwritten; memcpy, as the two
 * types share the bytes), the ends that are not their events' in tl->own_end, and the lanes of
 * the slices in overflow lanes in the overlaps' spill_slice and spill_lane. */
static void compact(const ks_track *k, ks_timeline *tl, bslice *v, size_t n, ks_slice *out)
{
    ks_timeline_overlaps *ov = NULL;
    if (tl->nlanes > 1) {
        ov = ks_timeline_ov(tl);
        for (size_t i = 0; i < n; i++)
            ov->nspill += v[i].lane != 0;
        ov->spill_slice = ks_xmalloc(ks_mul(ov->nspill, sizeof *ov->spill_slice));
        ov->spill_lane = ks_xmalloc(ks_mul(ov->nspill, sizeof *ov->spill_lane));
        ov->nspill = 0;
    }
    for (size_t i = 0; i < n; i++) {
        bslice b;
        memcpy(&b, &v[i], sizeof b);
        int own;
        ks_slice s = finish_slice(k, &b, &own);
        if (own) {
            if (!tl->own_end)
                tl->own_end = ks_xmalloc(ks_mul(n, sizeof *tl->own_end));
            tl->own_end[i] = b.end;
        }
        if (b.lane) {
            ov->spill_slice[ov->nspill] = (uint32_t)i;
            ov->spill_lane[ov->nspill++] = b.lane;
        }
        memcpy(&out[i], &s, sizeof s);
    }
}

_Static_assert(sizeof(ks_slice) == 12, "ks_slice is 12 bytes (kinesift/analysis.h)");
_Static_assert(sizeof(bslice) == 24, "a slice being built is 24 bytes");

/* a track this small is built on the stack (a trace may hold a million one-event tracks) */
#define STACK_SLICES 64

void ks_timeline_build(const ks_trace *t, uint32_t track, const ks_analysis_opts *o, ks_ns trace_end,
                       ks_timeline *tl, ks_diag *d, ks_timeline_stats *st)
{
    const ks_track *k = &t->tracks[track];
    /* one slice per X or B event at most: the room the caller gave (tl->s set), else reserve that
     * and give back what is unused at the end (the pages never written cost nothing, and the array
     * is never copied while it grows); the pushes below never pass cap. The slices are built with
     * their ends (bslice) and compacted into tl->s at the end: in place when the array is their
     * own, from a buffer of the build's when they go to the caller's room. */
    ks_slice *room = tl->s;
    memset(tl, 0, sizeof *tl);
    tl->track = track;
    tl->ev = k->ev;
    size_t cap = k->n, n = 0;
    bslice stack[STACK_SLICES];
    bslice *v = !cap ? NULL : !room ? ks_xmalloc_big(ks_mul(cap, sizeof *v))
                : cap <= STACK_SLICES ? stack : ks_xmalloc(ks_mul(cap, sizeof *v));
    for (size_t i = 0; i < k->n; i++) {
        const ks_event *e = &k->ev[i];
        if (!slice_kind_ok(e->ph) || !ks_event_has_dur(e))
            continue;
        bslice s = {.end = e->ts + ks_event_dur(e), .ev = (uint32_t)i, .parent = -1,
                    .flags = (uint8_t)((e->flags & KS_EF_UNFINISHED) ? KS_SF_UNFINISHED : 0), .kind = e->kind};
        v[n++] = s;
    }
    pair_begin_end(t, k, trace_end, &v, &n, &cap, d, st);
    sort_slices(k->ev, v, n);
    nest(t, k, o, tl, v, &n, st);
    /* exact duplicates nest inside their twin: report them */
    for (size_t i = 0; i < n; i++) {
        const bslice *s = &v[i];
        if (s->parent >= 0) {
            const bslice *p = &v[s->parent];
            if (k->ev[p->ev].ts == k->ev[s->ev].ts && p->end == s->end && k->ev[p->ev].name == k->ev[s->ev].name)
                st->duplicates++;
        }
    }
    tl->n = n;
    if (room) {
        compact(k, tl, v, n, room);
        tl->s = room;
        if (v != stack)
            free(v);
    } else if (v) {
        compact(k, tl, v, n, (ks_slice *)(void *)v);
        tl->s = ks_xrealloc(v, ks_mul(n ? n : 1, sizeof *tl->s));
    }
    ks_ns re = ks_timeline_reassigned(tl);
    if (re)
        ks_timeline_ov(tl)->reassigned_ns = re;
}

int ks_timeline_stats_empty(const ks_timeline_stats *st)
{
    uint64_t any = st->unmatched_end | st->end_mismatch | st->unclosed | st->duplicates | st->ncats;
    for (int c = 0; c < KS_OV_NCLASSES; c++)
        any |= st->count[c];
    return !any;
}

void ks_timeline_stats_merge(ks_timeline_stats *dst, const ks_timeline_stats *src)
{
    dst->unmatched_end += src->unmatched_end;
    dst->end_mismatch += src->end_mismatch;
    dst->unclosed += src->unclosed;
    dst->duplicates += src->duplicates;
    for (int c = 0; c < KS_OV_NCLASSES; c++) {
        dst->count[c] += src->count[c];
        dst->overlap_ns[c] = ks_sat_add(dst->overlap_ns[c], src->overlap_ns[c]);
        /* src's list is the best of its examples in order: offering it in that order after the
         * earlier tracks' keeps exactly what offering every example one by one keeps */
        for (size_t i = 0; i < src->nworst[c]; i++)
            keep_worst(dst, c, &src->worst[c][i]);
    }
    for (size_t i = 0; i < src->ncats; i++) {
        const ks_overlap_row *r = &src->cats[i];
        size_t j = 0;
        while (j < dst->ncats && (dst->cats[j].track != r->track || dst->cats[j].cat != r->cat))
            j++;
        if (j < dst->ncats) {
            dst->cats[j].count += r->count;
            dst->cats[j].excess_ns = ks_sat_add(dst->cats[j].excess_ns, r->excess_ns);
        } else {
            KS_PUSH(dst->cats, dst->ncats, dst->cats_cap, *r);
        }
    }
}

void ks_timeline_free(ks_timeline *tl)
{
    free(tl->s);
    if (tl->ov) {
        free(tl->ov->spill_slice);
        free(tl->ov->spill_lane);
    }
    free(tl->ov);
    free(tl->own_end);
    tl->s = NULL;
    tl->ov = NULL;
    tl->own_end = NULL;
    tl->n = 0;
}

ks_timeline_overlaps *ks_timeline_ov(ks_timeline *tl)
{
    if (!tl->ov)
        tl->ov = ks_xcalloc(1, sizeof *tl->ov);
    return tl->ov;
}

const ks_timeline_overlaps *ks_timeline_overlaps_of(const ks_timeline *tl)
{
    static const ks_timeline_overlaps none;
    return tl->ov ? tl->ov : &none;
}

int32_t *ks_timeline_event_slices(const ks_trace *t, const ks_timeline *tl)
{
    size_t n = t->tracks[tl->track].n;
    int32_t *v = ks_big_alloc(ks_mul(n, sizeof *v));
    for (size_t i = 0; i < n; i++)
        v[i] = -1;
    for (size_t i = 0; i < tl->n; i++)
        v[tl->s[i].ev] = (int32_t)i;
    return v;
}

int32_t ks_timeline_at(const ks_trace *tr, const ks_timeline *tl, ks_ns t, int (*accept)(int kind))
{
    (void)tr; /* the slices carry their events' kinds; the trace stays in the signature (public API) */
    /* last slice starting at or before t */
    size_t lo = 0, hi = tl->n;
    KS_LOWER_BOUND(lo, hi, mid, ks_slice_ts_at(tl, mid) <= t);
    if (!lo)
        return -1;
    int32_t i = (int32_t)lo - 1;
    while (i >= 0 && (tl->s[i].flags & KS_SF_SPILLED))
        i--;
    while (i >= 0) {
        const ks_slice *s = &tl->s[i];
        if (ks_slice_end(tl, s) > t && (!accept || accept(s->kind)))
            return i;
        i = s->parent;
    }
    return -1;
}
