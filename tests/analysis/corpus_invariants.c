/* tests/analysis/corpus_invariants.c: properties that must hold on any real trace (run once per
 * corpus file): in every lane of every track the self times add up to the union of the top-level
 * intervals, children lie inside their parents, no time is negative, GPU busy <= span, every GPU
 * work event is counted exactly once, and the order statistics are ordered. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "kinesift/analysis.h"
#include "kinesift/parse.h"

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

static void check_timeline(const ks_trace *t, const ks_timeline *tl)
{
    ks_ns *self = ks_xcalloc(tl->n ? tl->n : 1, sizeof *self);
    for (size_t i = 0; i < tl->n; i++)
        self[i] = tl->s[i].end - tl->s[i].ts;
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        CHECK(s->end >= s->ts, "track %u slice %zu has negative duration", tl->track, i);
        if (i)
            CHECK(tl->s[i - 1].ts <= s->ts, "track %u not sorted at %zu", tl->track, i);
        if (s->parent >= 0) {
            const ks_slice *p = &tl->s[s->parent];
            CHECK((size_t)s->parent < i, "parent after child");
            CHECK(p->lane == s->lane, "parent in another lane");
            CHECK(p->ts <= s->ts && s->end <= p->end, "track %u: child [%" PRId64 ",%" PRId64 ") outside parent [%" PRId64 ",%" PRId64 ")",
                  tl->track, s->ts, s->end, p->ts, p->end);
            CHECK(s->depth == p->depth + 1 || p->depth == UINT16_MAX, "depth");
            self[s->parent] -= s->end - s->ts;
        } else {
            CHECK(s->depth == 0, "top-level depth");
        }
    }
    for (int lane = 0; lane < tl->nlanes; lane++) {
        ks_ns sum_self = 0, sum_top = 0, last_end = INT64_MIN;
        for (size_t i = 0; i < tl->n; i++) {
            if (tl->s[i].lane != lane)
                continue;
            CHECK(self[i] >= 0, "track %u slice %zu: negative self %" PRId64, tl->track, i, self[i]);
            sum_self += self[i];
            if (tl->s[i].parent < 0) {
                CHECK(tl->s[i].ts >= last_end || tl->s[i].ts == tl->s[i].end || last_end == tl->s[i].ts,
                      "top-level slices overlap in lane %d", lane);
                sum_top += tl->s[i].end - tl->s[i].ts;
                if (tl->s[i].end > last_end)
                    last_end = tl->s[i].end;
            }
        }
        CHECK(sum_self == sum_top, "track %u lane %d: self times add up to %" PRId64 ", top-level union %" PRId64,
              tl->track, lane, sum_self, sum_top);
    }
    (void)t;
    free(self);
}

static void check_rows(const ks_op_row *r, size_t n, int gpu)
{
    for (size_t i = 0; i < n; i++) {
        CHECK(r[i].self_ns >= 0 && r[i].incl_ns >= 0, "negative row time");
        CHECK(r[i].min_ns <= r[i].median_ns && r[i].median_ns <= r[i].p90_ns && r[i].p90_ns <= r[i].p99_ns &&
                  r[i].p99_ns <= r[i].max_ns,
              "order statistics out of order");
        CHECK(r[i].count > 0, "row without instances");
        CHECK(r[i].gpu_direct_ns <= r[i].gpu_direct_sum_ns, "union above sum");
        CHECK(r[i].gpu_subtree_ns <= r[i].gpu_subtree_sum_ns, "union above sum");
        CHECK(r[i].gpu_direct_ns <= r[i].gpu_subtree_ns, "direct above subtree");
        CHECK(r[i].gpu_direct_sum_ns <= r[i].gpu_subtree_sum_ns, "direct sum above subtree sum");
        if (!gpu)
            CHECK(r[i].gpu_subtree_sum_ns == 0, "GPU time without GPU events");
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
    for (size_t k = 0; k < a->ntl; k++) {
        check_timeline(t, &a->tl[k]);
        slices += a->tl[k].n;
    }
    /* every GPU work event exactly once */
    uint64_t gpu_events = 0;
    ks_ns gpu_total = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        for (size_t i = 0; i < t->tracks[k].n; i++) {
            const ks_event *e = &t->tracks[k].ev[i];
            if (ks_kind_is_gpu_work(e->kind) && e->ph == 'X') {
                gpu_events++;
                gpu_total += e->dur;
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
