/* insights/whatif.c: "what if this phase took FACTOR of its time?" The dependency graph of the
 * trace (depgraph.c) is replayed twice: without change (the model: every node at its measured
 * times, so the model reproduces each measured step) and with the shrinks applied, every edge kept:
 *  - CPU time of a thread inside a slice of the label's (or op's) name is scaled, on any replayed
 *    thread (@cpu: all CPU time); a thread's waits (a blocking call until the GPU work it waited
 *    for ended, a thread until the other thread's work it waited for ended) are not CPU time and
 *    move with what they wait for; a wait not modelled keeps its length;
 *  - GPU work launched inside such a slice, or inside a GPU range of that name, is scaled (@gpu:
 *    all GPU work); it starts when its launch point, its stream and the lag of each allow;
 *  - so work off the critical path gives no gain, work partly on it a partial one.
 * A step is matched by its own ProfilerStep range on the stepping thread: it begins where that
 * range begins (no earlier than the previous step ended) and ends when the range and the GPU work
 * launched inside it have ended, as insights/steps.c measures it, in each replay; a label belongs
 * to the step that ran it. When the steps take batches from a data loader's pin-memory thread
 * (data_queue edges) they wait for batches that come at the workers' pace, so they are replayed
 * together (replay_steps_together). Factors are
 * refused outside [0, KS_LIMIT_WHATIF_FACTOR]; times saturate.
 * Who may use it: the whatif command (kinesift/insights.h). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gpuwork_index.h"
#include "vocab/calls.h"
#include "vocab/kinds.h"
#include "common/limits.h"
#include "common/util.h"
#include "insights/depgraph.h"
#include "insights/insights_int.h"

/* edit distance of two names, case-insensitive, cut off at cap (enough to rank the closest) */
static size_t name_distance(const char *x, const char *y, size_t cap)
{
    size_t m = strlen(y), row[65];
    if (m > 64)
        m = 64;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; x[i - 1] && i <= 256; i++) {
        size_t diag = row[0], best;
        row[0] = best = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t sub = diag + (tolower((unsigned char)x[i - 1]) != tolower((unsigned char)y[j - 1]));
            size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < v ? sub : v;
            diag = up;
            best = row[j] < best ? row[j] : best;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[m];
}

static int cmp_str(const void *x, const void *y)
{
    ks_str p = *(const ks_str *)x, q = *(const ks_str *)y;
    return (p > q) - (p < q);
}

/* the distinct names a label can match: the replayed threads' slices and the GPU ranges */
static ks_str *label_names(const ks_dg *g, size_t *n)
{
    const ks_trace *t = g->a->trace;
    ks_str *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++)
            if (tr->ev[i].name && (g->thread_of[k] >= 0 || tr->ev[i].kind == KS_K_GPU_ANNOTATION))
                KS_PUSH(v, *n, cap, tr->ev[i].name);
    }
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (!u || v[u - 1] != v[i])
            v[u++] = v[i];
    *n = u;
    return v;
}

/* A label that matches no slice of the replayed threads and no GPU range would project "+0.0 %":
 * an error naming the closest names instead (and an @ label other than @cpu/@gpu). */
static int check_labels(const ks_dg *g, const ks_dg_scale *sc, ks_error *err)
{
    for (size_t k = 0; k < sc->nsh; k++) {
        const char *l = sc->sh[k].label;
        if (l[0] == '@') {
            if (strcmp(l, "@cpu") && strcmp(l, "@gpu"))
                return ks_error_set(err, "--shrink %s: the only @ labels are @cpu and @gpu", l);
            continue;
        }
        int found = 0;
        for (size_t j = 0; !found && j < g->nth; j++)
            found = sc->cover[j * sc->nsh + k].n > 0;
        for (size_t i = g->g0; !found && i < g->n; i++)
            found = sc->gpu_by[i - g->g0] == k + 1;
        if (found)
            continue;
        size_t n, best[3] = {0}, nb = 0;
        size_t dist[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
        ks_str *names = label_names(g, &n);
        for (size_t i = 0; i < n; i++) {
            size_t d = name_distance(ks_trace_str(g->a->trace, names[i]), l, nb < 3 ? 64 : dist[2]);
            size_t j = nb < 3 ? nb++ : 3;
            if (j == 3 && d >= dist[2])
                continue;
            if (j == 3)
                j = 2;
            for (; j > 0 && dist[j - 1] > d; j--) {
                dist[j] = dist[j - 1];
                best[j] = best[j - 1];
            }
            dist[j] = d;
            best[j] = i;
        }
        char near[600] = "";
        for (size_t j = 0; j < nb; j++) {
            size_t len = strlen(near);
            snprintf(near + len, sizeof near - len, "%s'%.150s'", j ? ", " : "", ks_trace_str(g->a->trace, names[best[j]]));
        }
        free(names);
        return ks_error_set(err, "--shrink %s: no range or op of that name on the replayed threads nor a GPU range%s%s",
                            l, nb ? "; closest: " : "", near);
    }
    return KS_OK;
}


/* The replay of step i (of the window without steps): the nodes that begin in it from its host
 * start (the window's start) to its end are replayed, the earlier ones kept as measured, so each
 * step starts as it did and ends when its host range and the GPU work launched in it (the rule of
 * insights/steps.c) have ended as replayed; returns its length. Without steps: from the window's
 * start to the last end of the nodes that began in it, the time after them as measured. */
static ks_ns replay_step(ks_dg_replayer *rp, const ks_dg_scale *sc, const ks_steps *st, const int32_t *step_of,
                         size_t i, ks_ns *s0, ks_ns *s1)
{
    const ks_dg *g = rp->g;
    const ks_analysis *a = g->a;
    if (!st || !st->n) {
        ks_ns S = a->win_start, E = a->win_last, last = INT64_MIN, end = S;
        ks_dg_replay_range(rp, sc, S, ks_sat_add(E, 1), S, s0, s1);
        for (size_t k = 0; k < rp->nsub; k++) {
            uint32_t v = rp->sub[k];
            if (g->v[v].end <= E && g->v[v].end > last) {
                last = g->v[v].end;
                end = s1[v];
            }
        }
        if (last == INT64_MIN)
            return ks_sat_sub(E, S);
        end = ks_sat_add(end, ks_sat_sub(E, last));
        return end > S ? ks_sat_sub(end, S) : 0;
    }
    const ks_step *s = &st->v[i];
    ks_dg_replay_range(rp, sc, s->host_start, ks_sat_add(s->end, 1), s->host_start, s0, s1);
    ks_ns end = s->host_end;
    int64_t h = ks_dg_node_at(g, 0, s->host_end);
    if (h >= 0 && rp->in[h] == rp->stamp && s->host_end >= g->v[h].a && s->host_end <= g->v[h].end)
        end = ks_dg_map(g, sc, (size_t)h, s->host_end, s0, s1);
    for (size_t k = 0; k < rp->nsub; k++) {
        uint32_t v = rp->sub[k];
        if (v >= g->g0 && step_of[v - g->g0] == (int32_t)i && s1[v] > end)
            end = s1[v];
    }
    return end > s->start ? ks_sat_sub(end, s->start) : 0;
}

/* Where point q of the stepping thread lies in the replay (q itself when its node was not
 * replayed). */
static ks_ns main_at(const ks_dg_replayer *rp, const ks_dg_scale *sc, ks_ns q, const ks_ns *s0, const ks_ns *s1)
{
    const ks_dg *g = rp->g;
    int64_t h = ks_dg_node_at(g, 0, q);
    /* (at or before the thread's first node: where it began, released or not) */
    if (h >= 0 && rp->in[h] == rp->stamp && q > g->v[h].a && q <= g->v[h].end)
        return ks_dg_map(g, sc, (size_t)h, q, s0, s1);
    return q;
}

/* The replay of the steps with a data loader's pin-memory thread: the steps wait for batches that
 * come at their own pace (a faster step waits longer for the next one), so a step is not replayed
 * alone but the steps' span at once, from the first step's host start (the pin-memory thread from
 * the batch its first queue call took); each step begins where its ProfilerStep range begins in
 * that replay and ends by the rule of replay_step. len[i]: the length of step i. */
static void replay_steps_together(ks_dg_replayer *rp, const ks_dg_scale *sc, const ks_steps *st,
                                  const int32_t *step_of, ks_ns *s0, ks_ns *s1, ks_ns *len)
{
    const ks_dg *g = rp->g;
    ks_ns lo = st->v[0].host_start, hi = st->v[0].end, pin_lo = lo;
    for (size_t i = 1; i < st->n; i++)
        hi = st->v[i].end > hi ? st->v[i].end : hi;
    for (int64_t v = ks_dg_node_at(g, 0, lo); v >= 0 && (size_t)v < g->th[0].n1; v++) {
        const ks_dg_node *n = &g->v[v];
        if (n->kind != KS_DG_WAIT_QUEUE || n->a < lo)
            continue;
        for (uint32_t k = n->p0; k < ks_dg_in_end(g, (size_t)v); k++)
            if (g->e[k].kind == KS_DEP_DATA_QUEUE && g->v[g->e[k].src].start < pin_lo)
                pin_lo = g->v[g->e[k].src].start;
        break;
    }
    ks_dg_replay_range(rp, sc, lo, ks_sat_add(hi, 1), pin_lo, s0, s1);
    ks_ns *end = ks_xmalloc(ks_mul(st->n, sizeof *end));
    for (size_t i = 0; i < st->n; i++)
        end[i] = main_at(rp, sc, st->v[i].host_end, s0, s1);
    for (size_t k = 0; k < rp->nsub; k++) {
        uint32_t v = rp->sub[k];
        int32_t i = v >= g->g0 ? step_of[v - g->g0] : -1;
        if (i >= 0 && s1[v] > end[i])
            end[i] = s1[v];
    }
    for (size_t i = 0; i < st->n; i++) {
        const ks_step *s = &st->v[i];
        ks_ns start = ks_sat_add(s->start, ks_sat_sub(main_at(rp, sc, s->host_start, s0, s1), s->host_start));
        len[i] = end[i] > start ? ks_sat_sub(end[i], start) : 0;
    }
    free(end);
}

/* a wait [a, end) of step i: of the stepping thread inside its host range, of the others inside
 * its range */
static int in_step(const ks_dg_node *v, ks_ns end, ks_ns hs, ks_ns he, ks_ns S, ks_ns E)
{
    return v->lane == 0 ? v->a >= hs && end <= he : v->a >= S && end <= E;
}

/* add a wait of one thread on another to the rows per thread pair */
static void wait_row(ks_whatif *out, size_t *cap, uint32_t tr, uint32_t on, int modeled, int queue, ks_ns len,
                     ks_ns lag)
{
    size_t r = 0;
    while (r < out->nwaits && (out->waits[r].track != tr || out->waits[r].on_track != on ||
                               out->waits[r].modeled != modeled || out->waits[r].queue != queue))
        r++;
    if (r == out->nwaits) {
        ks_whatif_wait x = {tr, on, modeled, 0, 0, 0, queue};
        KS_PUSH(out->waits, out->nwaits, *cap, x);
    }
    out->waits[r].count++;
    out->waits[r].wait_ns = ks_sat_add(out->waits[r].wait_ns, len);
    out->waits[r].lag_ns = ks_sat_add(out->waits[r].lag_ns, lag < len ? lag : len);
}

/* the time scaled, GPU work by who launched it, and the waits, per step; the waits per thread pair */
static void step_figures(const ks_dg *g, const ks_dg_scale *sc, const ks_steps *st, const int32_t *step_of,
                         ks_whatif *out, size_t *wcap)
{
    const ks_analysis *a = g->a;
    int steps = st && st->n;
    for (size_t i = 0; i < out->n; i++) {
        ks_whatif_step *w = &out->v[i];
        ks_ns S = steps ? st->v[i].start : a->win_start, E = steps ? st->v[i].end : a->win_last;
        ks_ns hs = steps ? st->v[i].host_start : S, he = steps ? st->v[i].host_end : E;
        for (size_t k = 0; k < g->g0; k++) {
            const ks_dg_node *v = &g->v[k];
            if (v->kind == KS_DG_WAIT_QUEUE && v->start > v->a && in_step(v, v->start, hs, he, S, E) &&
                v->bind >= 0 && g->e[v->bind].kind == KS_DEP_DATA_QUEUE) {
                /* a wait for the pin-memory thread's batch (the edge that released it) */
                ks_ns len = ks_sat_sub(v->start, v->a);
                w->waits_modeled_ns = ks_sat_add(w->waits_modeled_ns, len);
                wait_row(out, wcap, g->th[v->lane].track, g->th[g->v[g->e[v->bind].src].lane].track, 1, 1, len, 0);
            }
            if (v->kind == KS_DG_RUN || v->kind == KS_DG_WAIT_GPU || v->kind == KS_DG_WAIT_QUEUE) {
                /* its CPU time inside the step's range */
                ks_ns x = v->kind == KS_DG_RUN ? v->a : v->start, y = v->end;
                ks_ns lo = v->lane == 0 ? hs : S, hi = v->lane == 0 ? he : E;
                x = x > lo ? x : lo;
                y = y < hi ? y : hi;
                for (size_t q = 0; q < sc->nsh && x < y; q++)
                    w->label_cpu_ns = ks_sat_add(w->label_cpu_ns, ks_ivs_covered(&sc->cover[v->lane * sc->nsh + q], x, y));
                continue;
            }
            if (v->kind == KS_DG_WAIT_EXT || !in_step(v, v->kind == KS_DG_IDLE ? v->end : v->start, hs, he, S, E))
                continue;
            int modeled = v->kind == KS_DG_WAIT_THREAD;
            ks_ns len = ks_sat_sub(modeled ? v->start : v->end, v->a), lag = len;
            uint32_t on = UINT32_MAX;
            for (uint32_t q = v->p0; modeled && q < ks_dg_in_end(g, k); q++)
                if (g->e[q].kind == KS_DEP_THREAD) {
                    on = g->v[g->e[q].src].lane;
                    lag = ks_sat_sub(v->start, g->e[q].q);
                }
            if (!modeled && v->ref >= 0) {
                /* the lag: since the other thread's last node before the end ended */
                on = (uint32_t)v->ref;
                int64_t o = ks_dg_node_at(g, on, v->end);
                if (o >= 0 && g->v[o].end <= v->end && g->v[o].end >= v->a)
                    lag = ks_sat_sub(v->end, g->v[o].end);
            }
            if (on == UINT32_MAX || len <= 0)
                continue;
            if (modeled)
                w->waits_modeled_ns = ks_sat_add(w->waits_modeled_ns, len);
            else
                w->waits_unmodeled_ns = ks_sat_add(w->waits_unmodeled_ns, len);
            wait_row(out, wcap, g->th[v->lane].track, g->th[on].track, modeled, 0, len, lag);
        }
        for (size_t k = g->g0; k < g->n; k++) {
            const ks_dg_node *v = &g->v[k];
            ks_ns d = ks_sat_sub(v->end, v->start);
            int mine = steps ? step_of[k - g->g0] == (int32_t)i
                             : g->launched[k - g->g0] && v->start >= S && v->start < E;
            if (mine && sc->gpu_by[k - g->g0])
                w->label_gpu_ns = ks_sat_add(w->label_gpu_ns, d);
            if (v->start < S || v->start >= E)
                continue;
            if (!g->launched[k - g->g0]) {
                w->unmodeled_gpu_ns = ks_sat_add(w->unmodeled_gpu_ns, d);
            } else {
                ks_slice_ref l = ks_gpuwork_launcher_at(a, (size_t)v->ref);
                if (g->thread_of[l.tl] > 0)
                    w->other_threads_gpu_ns = ks_sat_add(w->other_threads_gpu_ns, d);
            }
        }
    }
}

/* per shrink: the label's time on its threads, and the part of it a thread only waited */
static void label_waits(const ks_dg *g, const ks_dg_scale *sc, ks_whatif *out)
{
    ks_ns *best = ks_xcalloc(sc->nsh ? sc->nsh : 1, sizeof *best);
    for (size_t j = 0; j < g->nth; j++)
        for (size_t k = 0; k < sc->nsh; k++) {
            const ks_ivs *c = &sc->cover[j * sc->nsh + k];
            if (sc->sh[k].label[0] == '@' || !c->n)
                continue;
            out->label_own_ns[k] = ks_sat_add(out->label_own_ns[k], ks_ivs_length(c));
            ks_ns w = 0;
            for (size_t i = g->th[j].n0; i < g->th[j].n1; i++) {
                const ks_dg_node *v = &g->v[i];
                if (v->kind == KS_DG_WAIT_THREAD || v->kind == KS_DG_IDLE || v->kind == KS_DG_WAIT_QUEUE ||
                    v->kind == KS_DG_WAIT_EXT)
                    w = ks_sat_add(w, ks_ivs_covered(c, v->a, v->kind == KS_DG_IDLE ? v->end : v->start));
            }
            out->label_wait_ns[k] = ks_sat_add(out->label_wait_ns[k], w);
            if (w > best[k]) {
                best[k] = w;
                out->label_wait_track[k] = g->th[j].track;
            }
        }
    free(best);
}

int ks_whatif_run(const ks_analysis *a, const ks_steps *st, const ks_shrink *sh, size_t nsh, ks_whatif *out,
                  ks_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < nsh; k++)
        if (!(sh[k].factor >= 0) || !(sh[k].factor <= KS_LIMIT_WHATIF_FACTOR))
            return ks_error_set(err, "--shrink %s: the factor must be a number from 0 to %d", sh[k].label,
                                KS_LIMIT_WHATIF_FACTOR);
    if (nsh > KS_LIMIT_WHATIF_SHRINKS)
        return ks_error_set(err, "too many --shrink options (at most %d)", KS_LIMIT_WHATIF_SHRINKS);
    if (!a->ntl)
        return ks_error_set(err, "the trace has no timed events");
    ks_dg g;
    ks_dg_build(a, ks_critpath_thread(a, st), st, 0, &g);
    ks_dg_scale none, sc;
    ks_dg_scale_make(&g, NULL, 0, &none);
    ks_dg_scale_make(&g, sh, nsh, &sc);
    int rc = check_labels(&g, &sc, err);
    size_t n = rc != KS_OK ? 0 : st && st->n ? st->n : 1;
    if (n) {
        out->track = g.th[0].track;
        out->nthreads = g.nth;
        out->threads = ks_xcalloc(g.nth, sizeof *out->threads);
        for (size_t j = 0; j < g.nth; j++)
            out->threads[j] = g.th[j].track;
        out->label_wait_ns = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_wait_ns);
        out->label_own_ns = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_own_ns);
        out->label_wait_track = ks_xcalloc(nsh ? nsh : 1, sizeof *out->label_wait_track);
        out->v = ks_xcalloc(n, sizeof *out->v);
        out->n = n;
        size_t nn = g.n ? g.n : 1;
        ks_ns *s0 = ks_xmalloc(ks_mul(nn, sizeof *s0)), *s1 = ks_xmalloc(ks_mul(nn, sizeof *s1));
        int32_t *step_of = ks_dg_item_steps(&g, st);
        ks_dg_replayer rp;
        ks_dg_replayer_init(&g, &rp);
        /* (steps replayed together only when some call takes its batches from the queue) */
        int together = g.edges[KS_DEP_DATA_QUEUE][1] > 0 && st && st->n;
        ks_ns *len = together ? ks_xmalloc(ks_mul(n, 2 * sizeof *len)) : NULL;
        if (together) {
            replay_steps_together(&rp, &none, st, step_of, s0, s1, len);
            replay_steps_together(&rp, &sc, st, step_of, s0, s1, len + n);
        }
        for (size_t i = 0; i < n; i++) {
            ks_whatif_step *w = &out->v[i];
            ks_ns S = st && st->n ? st->v[i].start : a->win_start, E = st && st->n ? st->v[i].end : a->win_last;
            w->number = st && st->n ? st->v[i].number : -1;
            w->measured_ns = ks_sat_sub(E, S);
            w->model_ns = together ? len[i] : replay_step(&rp, &none, st, step_of, i, s0, s1);
            w->projected_ns = together ? len[n + i] : replay_step(&rp, &sc, st, step_of, i, s0, s1);
        }
        free(len);
        ks_dg_replayer_free(&rp);
        size_t wcap = 0;
        step_figures(&g, &sc, st, step_of, out, &wcap);
        label_waits(&g, &sc, out);
        free(step_of);
        free(s0);
        free(s1);
    }
    ks_dg_scale_free(&g, &sc);
    ks_dg_scale_free(&g, &none);
    ks_dg_free(&g);
    if (rc != KS_OK)
        ks_whatif_free(out);
    return rc;
}

void ks_whatif_free(ks_whatif *w)
{
    free(w->v);
    free(w->threads);
    free(w->label_wait_ns);
    free(w->label_own_ns);
    free(w->label_wait_track);
    free(w->waits);
    memset(w, 0, sizeof *w);
}
