/* tests/analysis/corpus_critpath.c: laws of the dependency graph and the critical path that must
 * hold on any trace (run once per corpus file and on the hand-written fixtures):
 *  - per step, the path's pieces tile [start, end) of the step: each longer than zero, each
 *    beginning where the one before ended, the first at the step's start, the last at its end, so
 *    the path's length is the step's wall time (ks_steps' wall_ns); the kinds add up to it; the
 *    inferred part is at most it; a GPU piece lies inside a GPU work event of its stream, a CPU
 *    piece inside the span of its thread's slices;
 *  - the graph replayed without scaling gives every node its measured start and end;
 *  - replayed with every CPU time and every GPU work halved (@cpu=0.5, @gpu=0.5), no node ends
 *    later than measured: faster work never delays anything;
 *  - every node's release edge leaves from a point at or before its release (no negative edge);
 *  - the pieces read one after another (ks_cp_next) are those read one by one (ks_critpath_piece);
 *  - a step's top items are the KS_CP_TOP names (per kind) with most CPU or GPU time on its path,
 *    each with the time of its pieces, most first (ties by kind, then name);
 *  - an item's time on the path (ks_dx_item_on_path) is the union of its overlaps with the
 *    path's pieces of the kinds asked for, on its track or on any, found piece by piece;
 *  - every diagnosis's impact, with the path, is at most the denominator (the active steps' wall
 *    time, else the span it names) and at most the heuristic bound its evidence prints; it comes
 *    from the path whenever the path covers the denominator; a diagnosis about GPU idle time
 *    claims at most the active steps' idle time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinesift/analysis.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/store.h"
#include "insights/depgraph.h"
#include "insights/diagnose_int.h"
#include "insights/insights_int.h"

#include "corpus_laws.h"

/* 1 when [a, b) lies inside one GPU work event of GPU track k */
static int inside_gpu_work(const ks_trace *t, uint32_t k, ks_ns a, ks_ns b)
{
    const ks_track *tr = &t->tracks[k];
    for (size_t i = 0; i < tr->n; i++) {
        const ks_event *e = &tr->ev[i];
        if (ks_kind_is_gpu_work((ks_kind)e->kind) && e->ph == 'X' && e->ts <= a && b <= e->ts + ks_event_dur(e))
            return 1;
    }
    return 0;
}

/* the names of a step's path with their CPU or GPU time, found by sorting its pieces */
typedef struct named {
    ks_str name;
    uint8_t kind;
    ks_ns ns;
} named;

static int cmp_named(const void *x, const void *y)
{
    const named *p = x, *q = y;
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return (p->name > q->name) - (p->name < q->name);
}

static int cmp_named_ns(const void *x, const void *y)
{
    const named *p = x, *q = y;
    if (p->ns != q->ns)
        return p->ns > q->ns ? -1 : 1;
    return cmp_named(x, y);
}

static void check_top(const char *path, const ks_critpath *cp, size_t i)
{
    const ks_cp_step *s = &cp->v[i];
    named *v = malloc((s->n ? s->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < s->n; k++) {
        ks_cp_piece p = ks_critpath_piece(cp, s, k);
        if (p.kind == KS_CP_CPU || p.kind == KS_CP_GPU)
            v[n++] = (named){p.name, p.kind, p.b - p.a};
    }
    qsort(v, n, sizeof *v, cmp_named);
    size_t u = 0;
    for (size_t k = 0; k < n; k++) {
        if (u && v[u - 1].kind == v[k].kind && v[u - 1].name == v[k].name)
            v[u - 1].ns += v[k].ns;
        else
            v[u++] = v[k];
    }
    qsort(v, u, sizeof *v, cmp_named_ns);
    CHECK(s->ntop == (u < KS_CP_TOP ? u : KS_CP_TOP), "%s: step %zu: %zu top items of %zu names", path, i, s->ntop, u);
    for (size_t k = 0; k < s->ntop && k < u; k++)
        CHECK(s->top[k].name == v[k].name && s->top[k].kind == v[k].kind && s->top[k].ns == v[k].ns,
              "%s: step %zu top item %zu: name %u kind %d %lld ns, the pieces give name %u kind %d %lld ns", path, i,
              k, s->top[k].name, s->top[k].kind, (long long)s->top[k].ns, v[k].name, v[k].kind, (long long)v[k].ns);
    free(v);
}

/* ks_dx_item_on_path against the overlaps found piece by piece, for items of the middle third of
 * the first steps: on any track (CPU and GPU pieces), on the stepping thread (any kind) */
static void check_item_on_path(const char *path, const ks_analysis *a, const ks_critpath *cp)
{
    if (!cp->n)
        return;
    ks_dx_ctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    for (size_t i = 0; i < cp->n; i++)
        if (cp->v[i].n)
            ks_ivs_add(&c.scope, cp->v[i].start, cp->v[i].end);
    ks_ivs_normalize(&c.scope);
    c.denom = ks_ivs_length(&c.scope);
    ks_dx_path_init(&c, cp);
    for (int form = 0; form < 2 && c.cp_ok; form++) {
        ks_dx_item it = {0};
        uint32_t track = form ? cp->track : UINT32_MAX;
        it.kinds = form ? 0 : (1u << KS_CP_CPU | 1u << KS_CP_GPU);
        size_t nsteps = cp->n < 16 ? cp->n : 16;
        for (size_t i = 0; i < nsteps; i++) {
            ks_ns len = cp->v[i].end - cp->v[i].start;
            ks_dx_item_add(&it, cp->v[i].start + len / 3, cp->v[i].start + 2 * (len / 3), track);
        }
        ks_ivs want = {0};
        for (size_t j = 0; j < cp->n; j++)
            for (size_t k = 0; k < cp->v[j].n; k++) {
                ks_cp_piece p = ks_critpath_piece(cp, &cp->v[j], k);
                if ((form && p.track != track) || (!form && p.kind != KS_CP_CPU && p.kind != KS_CP_GPU))
                    continue;
                for (size_t q = 0; q < it.n; q++) {
                    ks_ns x = p.a > it.v[q].a ? p.a : it.v[q].a, y = p.b < it.v[q].b ? p.b : it.v[q].b;
                    if (y > x)
                        ks_ivs_add(&want, x, y);
                }
            }
        ks_ns expect = ks_ivs_union(&want), got = ks_dx_item_on_path(&c, &it);
        CHECK(got == expect, "%s: item %d on the path: %lld ns, piece by piece %lld ns", path, form, (long long)got,
              (long long)expect);
        ks_ivs_free(&want);
        free(it.v);
    }
    ks_dx_path_free(&c);
    ks_ivs_free(&c.scope);
}

static void check_path(const char *path, const ks_analysis *a, const ks_steps *st, const ks_critpath *cp)
{
    const ks_trace *t = a->trace;
    CHECK(cp->n == (st->n ? st->n : 1), "%s: %zu paths for %zu steps", path, cp->n, st->n);
    for (size_t i = 0; i < cp->n; i++) {
        const ks_cp_step *s = &cp->v[i];
        ks_ns wall = st->n ? st->v[i].wall_ns : s->end - s->start;
        if (st->n)
            CHECK(s->start == st->v[i].start && s->end == st->v[i].end, "%s: step %zu bounds", path, i);
        ks_ns sum = 0, kinds = 0, at = s->start;
        ks_cp_cursor cu = ks_cp_cursor_of(cp, s);
        for (size_t k = 0; k < s->n; k++) {
            ks_cp_piece pc = ks_critpath_piece(cp, s, k), pn;
            const ks_cp_piece *p = &pc;
            CHECK(ks_cp_next(&cu, &pn) && pn.a == p->a && pn.b == p->b && pn.track == p->track &&
                      pn.kind == p->kind && pn.inferred == p->inferred && pn.name == p->name,
                  "%s: step %zu piece %zu read in order differs", path, i, k);
            CHECK(p->b > p->a, "%s: step %zu piece %zu empty or negative [%lld, %lld)", path, i, k, (long long)p->a,
                  (long long)p->b);
            CHECK(p->a == at, "%s: step %zu piece %zu begins at %lld, the path was at %lld", path, i, k,
                  (long long)p->a, (long long)at);
            CHECK(p->kind < KS_CP_NKINDS, "%s: kind", path);
            at = p->b;
            sum += p->b - p->a;
            if (p->kind == KS_CP_GPU)
                CHECK(t->tracks[p->track].kind == KS_TRACK_GPU && inside_gpu_work(t, p->track, p->a, p->b),
                      "%s: step %zu GPU piece [%lld, %lld) not inside GPU work of its stream", path, i,
                      (long long)p->a, (long long)p->b);
            if (p->kind == KS_CP_CPU) {
                const ks_timeline *tl = &a->tl[p->track];
                CHECK(tl->n && ks_slice_ts_at(tl, 0) <= p->a, "%s: CPU piece before its thread's first slice", path);
            }
        }
        if (s->n)
            CHECK(at == s->end, "%s: step %zu path ends at %lld, the step at %lld", path, i, (long long)at,
                  (long long)s->end);
        CHECK(sum == wall, "%s: step %zu (#%lld): path %lld ns, wall %lld ns", path, i, (long long)s->number,
              (long long)sum, (long long)wall);
        for (int k = 0; k < KS_CP_NKINDS; k++) {
            CHECK(s->by_kind[k] >= 0, "%s: negative kind", path);
            kinds += s->by_kind[k];
        }
        CHECK(kinds == wall, "%s: step %zu kinds add up to %lld, wall %lld", path, i, (long long)kinds,
              (long long)wall);
        CHECK(s->inferred_ns >= 0 && s->inferred_ns <= wall, "%s: inferred", path);
        ks_cp_piece extra;
        CHECK(!ks_cp_next(&cu, &extra), "%s: step %zu: a piece after the last read in order", path, i);
        for (size_t k = 0; k + 1 < s->ntop; k++)
            CHECK(s->top[k].ns >= s->top[k + 1].ns, "%s: top items not in order", path);
        check_top(path, cp, i);
    }
    check_item_on_path(path, a, cp);
}

static void check_graph(const char *path, const ks_analysis *a, const ks_steps *st)
{
    ks_dg g;
    ks_dg_build(a, ks_critpath_thread(a, st), st, 0, &g);
    /* the graph the critical path walks keeps each node's binding edge alone: the same edge, found
     * over the same edges, and the same counts as the whole graph's */
    ks_dg b;
    ks_dg_build(a, ks_critpath_thread(a, st), st, 1, &b);
    CHECK(b.n == g.n && b.clock_order == g.clock_order && b.launch_typ == g.launch_typ &&
              !memcmp(b.edges, g.edges, sizeof b.edges),
          "%s: the thinned graph's nodes or counts differ", path);
    for (size_t i = 0; i < g.n && b.n == g.n; i++) {
        const ks_dg_node *v = &g.v[i], *w = &b.v[i];
        int same = (v->bind < 0) == (w->bind < 0) && v->start == w->start;
        if (same && v->bind >= 0) {
            const ks_dg_edge *x = &g.e[v->bind], *y = &b.e[w->bind];
            same = x->q == y->q && x->src == y->src && x->kind == y->kind && x->inferred == y->inferred &&
                   (uint32_t)w->bind == w->p0 && w->p0 < ks_dg_in_end(&b, i);
        }
        CHECK(same, "%s: node %zu: the thinned graph binds it otherwise", path, i);
    }
    ks_dg_free(&b);
    ks_ns *s0 = malloc((g.n ? g.n : 1) * sizeof *s0), *s1 = malloc((g.n ? g.n : 1) * sizeof *s1);
    ks_dg_scale none;
    ks_dg_scale_make(&g, NULL, 0, &none);
    ks_dg_replay(&g, &none, s0, s1);
    size_t moved = 0;
    for (size_t i = 0; i < g.n; i++) {
        const ks_dg_node *v = &g.v[i];
        if (s0[i] != v->start || s1[i] != v->end) {
            if (!moved++)
                fprintf(stderr, "%s: node %zu (kind %d) [%lld, %lld) replayed at [%lld, %lld)\n", path, i, v->kind,
                        (long long)v->start, (long long)v->end, (long long)s0[i], (long long)s1[i]);
        }
        if (v->bind >= 0)
            CHECK(g.e[v->bind].q <= v->start && (uint32_t)v->bind >= v->p0 && (uint32_t)v->bind < ks_dg_in_end(&g, i),
                  "%s: node %zu released from after it", path, i);
        CHECK(v->start <= v->end && v->a <= v->start, "%s: node %zu times out of order", path, i);
    }
    CHECK(!moved, "%s: %zu nodes moved in a replay without scaling", path, moved);
    ks_shrink half[2] = {{"@cpu", 0.5}, {"@gpu", 0.5}};
    ks_dg_scale sc;
    ks_dg_scale_make(&g, half, 2, &sc);
    ks_dg_replay(&g, &sc, s0, s1);
    size_t later = 0;
    for (size_t i = 0; i < g.n; i++)
        if (s1[i] > g.v[i].end && !later++)
            fprintf(stderr, "%s: node %zu (kind %d) ends at %lld halved, %lld measured\n", path, i, g.v[i].kind,
                    (long long)s1[i], (long long)g.v[i].end);
    CHECK(!later, "%s: %zu nodes end later with everything halved", path, later);
    ks_dg_scale_free(&g, &sc);
    ks_dg_scale_free(&g, &none);
    free(s0);
    free(s1);
    ks_dg_free(&g);
}

/* the diagnoses' impacts against the figures they name */
static void check_diagnoses(const char *path, const ks_analysis *a, const ks_steps *st, const ks_critpath *cp)
{
    ks_gaps g;
    ks_gap_opts go;
    ks_error err;
    ks_gap_opts_init(&go);
    if (ks_gaps_find(a, st, &go, &g, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    ks_diagnose_opts o;
    ks_diagnose_opts_init(&o);
    o.all = 1;
    o.critpath = cp;
    ks_diagnoses d;
    ks_diagnose_with(a, st, &g, &o, &d);
    /* the active steps' idle time, when they do not overlap */
    ks_ns idle = 0, last_end = INT64_MIN;
    int disjoint = 1;
    for (size_t i = 0; i < st->n; i++)
        if (!st->v[i].warmup && !st->v[i].unfinished) {
            disjoint &= st->v[i].start >= last_end;
            last_end = st->v[i].end;
            idle += st->v[i].idle_ns;
        }
    for (size_t i = 0; i < d.n; i++) {
        const ks_diagnosis *x = &d.v[i];
        if (x->impact_ns < 0) {
            CHECK(!x->impact_source, "%s: %s: a caveat with an impact source", path, x->id);
            continue;
        }
        CHECK(x->impact_source && (!strcmp(x->impact_source, "critical_path") || !strcmp(x->impact_source, "heuristic")),
              "%s: %s: impact source", path, x->id);
        CHECK(x->impact_ns <= d.denominator_ns, "%s: %s claims %lld ns of a %lld ns %s", path, x->id,
              (long long)x->impact_ns, (long long)d.denominator_ns, d.denominator);
        CHECK(x->impact_ns <= x->impact_heuristic_ns, "%s: %s claims %lld ns over its printed bound %lld ns", path,
              x->id, (long long)x->impact_ns, (long long)x->impact_heuristic_ns);
        if (!strcmp(d.denominator, "active steps"))
            CHECK(!strcmp(x->impact_source, "critical_path"), "%s: %s: the path covers the active steps, source %s",
                  path, x->id, x->impact_source);
        int about_idle = !strcmp(x->id, "sync_in_loop") || !strcmp(x->id, "small_launches") ||
                         !strcmp(x->id, "cpu_before_gpu") || !strcmp(x->id, "input_pipeline") ||
                         !strcmp(x->id, "host_bound");
        if (about_idle && disjoint && !strcmp(d.denominator, "active steps"))
            CHECK(x->impact_ns <= idle, "%s: %s claims %lld ns, the active steps idle %lld ns", path, x->id,
                  (long long)x->impact_ns, (long long)idle);
    }
    ks_diagnoses_free(&d);
    ks_gaps_free(&g);
}

static void check_file(const char *path)
{
    ks_source *src;
    ks_stream *stream;
    ks_trace *t = NULL;
    ks_error err;
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &stream, &err) != 1 ||
        ks_parse_stream(stream, NULL, &t, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    ks_source_close(src);
    ks_analysis *a = NULL;
    ks_steps st = {0};
    ks_critpath cp;
    if (ks_analyze(t, NULL, &a, &err) != KS_OK || ks_steps_find(a, NULL, &st, &err) != KS_OK ||
        ks_critpath_build(a, &st, &cp, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    check_path(path, a, &st, &cp);
    check_graph(path, a, &st);
    check_diagnoses(path, a, &st, &cp);
    ks_ns unmodeled = 0, wall = 0;
    for (size_t i = 0; i < cp.n; i++) {
        unmodeled += cp.v[i].by_kind[KS_CP_UNMODELED];
        wall += cp.v[i].end - cp.v[i].start;
    }
    printf("%s: %zu steps, %llu nodes, unmodeled %.1f %% of the path, %llu clock-order edges\n", path, cp.n,
           (unsigned long long)cp.nodes, wall ? 100.0 * (double)unmodeled / (double)wall : 0.0,
           (unsigned long long)cp.clock_order);
    ks_critpath_free(&cp);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        check_file(argv[i]);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
