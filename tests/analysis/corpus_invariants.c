/* tests/analysis/corpus_invariants.c: properties that must hold on any real trace (run once per
 * corpus file, under every --overlap policy): in every lane of every track the lane's own self
 * times add up to the union of its top-level intervals; per track the self times the analysis
 * reports add up to the length of the union of the track's slices (each ns belongs to one slice:
 * spilled slices do not count again what the main lane counts), and under spill that union is the
 * union of the track's raw slices; the per-name inclusive time is the union of that name's
 * intervals per track; children lie inside their parents, no time is negative, GPU busy <= span,
 * every GPU work event is counted exactly once, and the order statistics are ordered. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "kinesift/store.h"
#include "kinesift/analysis.h"
#include "kinesift/parse.h"

#include "analysis/timeline.h"
#include "corpus_laws.h"


/* ks_timeline_self_each gives each slice once, with ks_timeline_self's value */
typedef struct each_check {
    const ks_timeline *tl;
    const ks_ns *self;
    uint8_t *seen;
    size_t n;
} each_check;

static void check_each(void *ctx, size_t i, ks_ns self)
{
    each_check *c = ctx;
    CHECK(i < c->tl->n && !c->seen[i], "track %u: slice %zu given twice or out of range", c->tl->track, i);
    CHECK(self == c->self[i], "track %u slice %zu: self %" PRId64 " one by one, %" PRId64 " all at once",
          c->tl->track, i, self, c->self[i]);
    c->seen[i] = 1;
    c->n++;
}

/* per track: the reported self times add up to the union of the timeline's slices; with spill
 * that is the union of the raw slices (X events and B/E pairs), nothing lost */
static void check_conservation(const ks_trace *t, const ks_timeline *tl, const ks_ns *lane_self, int spill)
{
    const ks_track *k = &t->tracks[tl->track];
    iv *v = ks_xcalloc(tl->n + k->n + 1, sizeof *v);
    ks_ns *self = ks_xcalloc(tl->n + 1, sizeof *self);
    ks_timeline_self(tl, self);
    each_check ec = {tl, self, ks_xcalloc(tl->n + 1, 1), 0};
    ks_timeline_self_each(tl, check_each, &ec);
    CHECK(ec.n == tl->n, "track %u: %zu of %zu slices given their self time one by one", tl->track, ec.n, tl->n);
    free(ec.seen);
    ks_ns sum = 0, sum_lane = 0;
    for (size_t i = 0; i < tl->n; i++) {
        CHECK(self[i] >= 0, "track %u slice %zu: negative self %" PRId64, tl->track, i, self[i]);
        CHECK(self[i] <= lane_self[i], "track %u slice %zu: self above its lane's", tl->track, i);
        sum += self[i];
        sum_lane += lane_self[i];
        v[i].a = ks_slice_ts_at(tl, i);
        v[i].b = ks_slice_end(tl, &tl->s[i]);
    }
    ks_ns u = union_length(v, tl->n);
    CHECK(sum == u, "track %u: self times add up to %" PRId64 ", the union of its slices is %" PRId64 " (%" PRId64 " more)",
          tl->track, sum, u, sum - u);
    ks_ns re = ks_timeline_overlaps_of(tl)->reassigned_ns;
    CHECK(sum_lane - sum == re, "track %u: reassigned %" PRId64 ", lanes counted %" PRId64 " more", tl->track, re,
          sum_lane - sum);
    if (spill) {
        size_t n = 0;
        for (size_t i = 0; i < k->n; i++)
            if (k->ev[i].ph == 'X' && ks_event_has_dur(&k->ev[i])) {
                v[n].a = k->ev[i].ts;
                v[n++].b = k->ev[i].ts + ks_event_dur(&k->ev[i]);
            }
        for (size_t i = 0; i < tl->n; i++)
            if (tl->s[i].flags & KS_SF_BE) {
                v[n].a = ks_slice_ts_at(tl, i);
                v[n++].b = ks_slice_end(tl, &tl->s[i]);
            }
        ks_ns raw = union_length(v, n);
        CHECK(raw == u, "track %u: spill lost time: raw union %" PRId64 ", timeline union %" PRId64, tl->track, raw, u);
        const ks_timeline_overlaps *ov = ks_timeline_overlaps_of(tl);
        CHECK(ov->clipped_ns == 0 && ov->dropped_ns == 0 && ov->dropped == 0, "spill cut or dropped time");
    }
    free(self);
    free(v);
}

static void check_timeline(const ks_trace *t, const ks_timeline *tl, int spill)
{
    ks_ns *self = ks_xcalloc(tl->n ? tl->n : 1, sizeof *self);
    for (size_t i = 0; i < tl->n; i++)
        self[i] = ks_slice_end(tl, &tl->s[i]) - ks_slice_ts_at(tl, i);
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        CHECK(ks_slice_end(tl, s) >= ks_slice_ts(tl, s), "track %u slice %zu has negative duration", tl->track, i);
        /* the end kept by the timeline is for the slices that do not end where their events do */
        const ks_event *se = &t->tracks[tl->track].ev[s->ev];
        if (s->flags & KS_SF_OWN_END)
            CHECK((s->flags & KS_SF_BE) || !ks_event_has_dur(se) || ks_slice_ts(tl, s) + ks_event_dur(se) != ks_slice_end(tl, s),
                  "track %u slice %zu keeps an end its event gives", tl->track, i);
        else
            CHECK(ks_event_has_dur(se) && !(s->flags & (KS_SF_BE | KS_SF_TRUNCATED)),
                  "track %u slice %zu: a B/E or cut slice reads its end from its event", tl->track, i);
        CHECK(s->kind == t->tracks[tl->track].ev[s->ev].kind, "track %u slice %zu: kind %u, its event's %u",
              tl->track, i, s->kind, t->tracks[tl->track].ev[s->ev].kind);
        if (i)
            CHECK(ks_slice_ts_at(tl, i - 1) <= ks_slice_ts(tl, s), "track %u not sorted at %zu", tl->track, i);
        if (s->parent >= 0) {
            const ks_slice *p = &tl->s[s->parent];
            CHECK((size_t)s->parent < i, "parent after child");
            CHECK(ks_slice_lane(tl, p) == ks_slice_lane(tl, s), "parent in another lane");
            CHECK(!(s->flags & KS_SF_SPILLED) == !ks_slice_lane(tl, s), "spilled flag and lane disagree");
            CHECK(ks_slice_ts(tl, p) <= ks_slice_ts(tl, s) && ks_slice_end(tl, s) <= ks_slice_end(tl, p), "track %u: child [%" PRId64 ",%" PRId64 ") outside parent [%" PRId64 ",%" PRId64 ")",
                  tl->track, ks_slice_ts(tl, s), ks_slice_end(tl, s), ks_slice_ts(tl, p), ks_slice_end(tl, p));
            CHECK(s->depth == p->depth + 1 || p->depth == UINT16_MAX, "depth");
            self[s->parent] -= ks_slice_end(tl, s) - ks_slice_ts(tl, s);
        } else {
            CHECK(s->depth == 0, "top-level depth");
        }
    }
    for (uint32_t lane = 0; lane < tl->nlanes; lane++) {
        ks_ns sum_self = 0, sum_top = 0, last_end = INT64_MIN;
        for (size_t i = 0; i < tl->n; i++) {
            if (ks_slice_lane(tl, &tl->s[i]) != lane)
                continue;
            CHECK(self[i] >= 0, "track %u slice %zu: negative self %" PRId64, tl->track, i, self[i]);
            sum_self += self[i];
            if (tl->s[i].parent < 0) {
                CHECK(ks_slice_ts_at(tl, i) >= last_end || ks_slice_ts_at(tl, i) == ks_slice_end(tl, &tl->s[i]) || last_end == ks_slice_ts_at(tl, i),
                      "top-level slices overlap in lane %u", lane);
                sum_top += ks_slice_end(tl, &tl->s[i]) - ks_slice_ts_at(tl, i);
                if (ks_slice_end(tl, &tl->s[i]) > last_end)
                    last_end = ks_slice_end(tl, &tl->s[i]);
            }
        }
        CHECK(sum_self == sum_top, "track %u lane %u: self times add up to %" PRId64 ", top-level union %" PRId64,
              tl->track, lane, sum_self, sum_top);
    }
    check_conservation(t, tl, self, spill);
    free(self);
}

typedef struct name_iv {
    int64_t key; /* name << 16 | cat */
    ks_ns a, b;
} name_iv;

static int cmp_name_iv(const void *x, const void *y)
{
    const name_iv *p = x, *q = y;
    if (p->key != q->key)
        return (p->key > q->key) - (p->key < q->key);
    return (p->a > q->a) - (p->a < q->a);
}

/* inclusive per op row = Σ over CPU tracks of the union of that (name, cat)'s intervals */
static void check_inclusive(const ks_trace *t, const ks_analysis *a)
{
    size_t total = 0;
    for (size_t k = 0; k < a->ntl; k++)
        total += a->tl[k].n;
    name_iv *v = ks_xcalloc(total + 1, sizeof *v);
    iv *u = ks_xcalloc(total + 1, sizeof *u);
    int64_t *keys = ks_xcalloc(a->nops + 1, sizeof *keys);
    ks_ns *want = ks_xcalloc(a->nops + 1, sizeof *want);
    for (size_t r = 0; r < a->nops; r++)
        keys[r] = ((int64_t)a->ops[r].name << 16) | a->ops[r].cat;
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        const ks_track *tr = &t->tracks[tl->track];
        if (tr->kind == KS_TRACK_GPU)
            continue;
        size_t n = 0;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_event *e = &tr->ev[tl->s[i].ev];
            v[n].key = ((int64_t)e->name << 16) | e->cat;
            v[n].a = ks_slice_ts_at(tl, i);
            v[n++].b = ks_slice_end(tl, &tl->s[i]);
        }
        qsort(v, n, sizeof *v, cmp_name_iv);
        for (size_t i = 0; i < n;) {
            size_t j = i, m = 0;
            for (; j < n && v[j].key == v[i].key; j++) {
                u[m].a = v[j].a;
                u[m++].b = v[j].b;
            }
            ks_ns len = union_length(u, m);
            for (size_t r = 0; r < a->nops; r++)
                if (keys[r] == v[i].key)
                    want[r] += len;
            i = j;
        }
    }
    for (size_t r = 0; r < a->nops; r++)
        CHECK(a->ops[r].incl_ns == want[r], "\"%s\": inclusive %" PRId64 ", union of its intervals %" PRId64,
              ks_trace_str(t, a->ops[r].name), a->ops[r].incl_ns, want[r]);
    free(v);
    free(u);
    free(keys);
    free(want);
}

/* the timelines and inclusive times under policy p */
static void check_policy(const ks_trace *t, const char *policy)
{
    ks_analysis_opts o;
    ks_analysis_opts_init(&o);
    ks_error err;
    if (ks_overlap_parse(policy, &o.overlap, &o.clamp_ns) != 0) {
        CHECK(0, "policy %s", policy);
        return;
    }
    ks_analysis *a;
    if (ks_analyze(t, &o, &a, &err) != KS_OK) {
        CHECK(0, "analyze --overlap %s: %s", policy, err.msg);
        return;
    }
    int before = failures;
    for (size_t k = 0; k < a->ntl; k++)
        check_timeline(t, &a->tl[k], o.overlap == KS_OVERLAP_SPILL);
    check_inclusive(t, a);
    if (failures != before)
        fprintf(stderr, "(under --overlap %s)\n", policy);
    ks_analysis_free(a);
}

static void check_rows(const ks_op_row *r, size_t n, int gpu)
{
    for (size_t i = 0; i < n; i++) {
        CHECK(r[i].self_ns >= 0 && r[i].incl_ns >= 0, "negative row time");
        ks_op_durs d = ks_op_row_durs(&r[i]);
        CHECK(d.min_ns <= d.median_ns && d.median_ns <= d.p90_ns && d.p90_ns <= d.p99_ns && d.p99_ns <= d.max_ns,
              "order statistics out of order");
        /* one instance: its duration is its inclusive time (the union of one interval); more: the
         * union of the instances is at least the longest */
        CHECK(r[i].count != 1 || (d.min_ns == r[i].incl_ns && d.max_ns == r[i].incl_ns),
              "one instance: duration is not its inclusive time");
        CHECK(d.max_ns <= r[i].incl_ns, "longest instance above the inclusive time");
        CHECK(r[i].count < 2 || r[i].durs.many, "several instances without quantiles");
        CHECK(r[i].count > 0, "row without instances");
        ks_op_gpu g = ks_op_row_gpu(&r[i]);
        CHECK(g.direct_ns <= g.direct_sum_ns, "union above sum");
        CHECK(g.subtree_ns <= g.subtree_sum_ns, "union above sum");
        CHECK(g.direct_ns <= g.subtree_ns, "direct above subtree");
        CHECK(g.direct_sum_ns <= g.subtree_sum_ns, "direct sum above subtree sum");
        if (!gpu)
            CHECK(ks_op_row_gpu(&r[i]).subtree_sum_ns == 0, "GPU time without GPU events");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: corpus_invariants TRACE\n");
        return 2;
    }
    ks_source *src;
    ks_stream *st;
    ks_trace *t;
    ks_error err;
    if (ks_source_open(argv[1], &src, &err) != KS_OK || ks_source_next(src, &st, &err) != 1 ||
        ks_parse_stream(st, NULL, &t, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.msg);
        return 1;
    }
    ks_source_close(src);
    ks_analysis *a;
    if (ks_analyze(t, NULL, &a, &err) != KS_OK) {
        fprintf(stderr, "analyze: %s\n", err.msg);
        return 1;
    }
    size_t slices = 0;
    for (size_t k = 0; k < a->ntl; k++)
        slices += a->tl[k].n;
    const char *policies[] = {"spill", "drop", "truncate", "clamp:1000"};
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
        check_policy(t, policies[i]);
    /* every GPU work event exactly once */
    uint64_t gpu_events = 0;
    ks_ns gpu_total = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        for (size_t i = 0; i < t->tracks[k].n; i++) {
            const ks_event *e = &t->tracks[k].ev[i];
            if (ks_kind_is_gpu_work(e->kind) && e->ph == 'X') {
                gpu_events++;
                gpu_total += ks_event_dur(e);
            }
        }
    uint64_t kcount = 0;
    ks_ns ktotal = 0;
    for (size_t i = 0; i < a->nkernels; i++) {
        kcount += a->kernels[i].count;
        ktotal += a->kernels[i].total_ns;
    }
    CHECK(kcount == gpu_events, "kernel rows count %" PRIu64 " GPU events, the trace has %" PRIu64, kcount, gpu_events);
    CHECK(ktotal == gpu_total, "kernel rows total %" PRId64 " != %" PRId64, ktotal, gpu_total);
    CHECK(a->links.gpu_events == gpu_events, "links saw %" PRIu64, a->links.gpu_events);
    CHECK(a->links.linked_by_correlation + a->links.linked_by_flow + a->links.unlinked_gpu == gpu_events,
          "every GPU event is linked or counted as unlinked");
    if (gpu_events) {
        CHECK(a->gpu != NULL && !a->gpu_reason, "GPU rows expected");
        for (size_t i = 0; a->gpu && i < a->ngpu; i++) {
            const ks_gpu_row *g = &a->gpu[i];
            CHECK(g->busy_ns <= g->span_ns, "busy %" PRId64 " > span %" PRId64, g->busy_ns, g->span_ns);
            CHECK(g->idle_ns >= 0 && g->idle_ns == g->span_ns - g->busy_ns, "idle");
            CHECK(g->kernel_ns <= g->busy_ns && g->memcpy_ns <= g->busy_ns && g->memset_ns <= g->busy_ns,
                  "class above busy");
            CHECK(g->comm_ns <= g->kernel_ns, "comm above kernel");
            CHECK(g->busy_ns <= g->kernel_ns + g->memcpy_ns + g->memset_ns, "busy above the classes");
        }
    } else {
        CHECK(a->gpu == NULL && a->gpu_reason != NULL, "no GPU work must read not observed");
    }
    check_rows(a->ops, a->nops, gpu_events > 0);
    check_rows(a->labels, a->nlabels, gpu_events > 0);
    printf("%s: %zu tracks, %zu slices, %" PRIu64 " GPU events, %zu ops, %s\n", argv[1], a->ntl, slices,
           gpu_events, a->nops, failures ? "FAILED" : "ok");
    ks_analysis_free(a);
    ks_trace_free(t);
    return failures ? 1 : 0;
}
