/* insights/whatif.c: "what if this phase took FACTOR of its time?" A step is replayed on a simple
 * model of its CPU thread and the GPU work it launches, keeping the dependencies:
 *  - CPU time passes in order; time inside the shrunk label (or any CPU time for @cpu) is scaled;
 *  - a launch call makes its GPU work ready when it returns; GPU work runs in order on its stream,
 *    after the launch (plus the launch latency seen in the trace) and after the previous work of
 *    the stream; work launched inside the label (or inside a GPU range of that name, or any work
 *    for @gpu) is scaled;
 *  - a blocking call (synchronize, blocking copy) waits until the GPU work launched so far is done,
 *    plus the overhead it had beyond that wait in the trace.
 * The step ends when both the CPU part and its GPU work have ended. Serial phases therefore add up
 * and overlapped ones do not. Replaying with no change gives the model's own step time, printed
 * beside the measured one: their difference is the model's error on this trace. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hugemem.h"
#include "analysis/intervals.h"
#include "analysis/analysis_int.h"
#include "analysis/timeline.h"
#include "common/util.h"
#include "kinesift/insights.h"


typedef struct gpu_item {
    ks_ns start, dur;          /* as in the trace */
    int64_t stream;
    int32_t launch;            /* slice index of its launch on the replayed thread */
    uint8_t scaled_by;         /* index + 1 of the shrink that applies, 0 none */
} gpu_item;

typedef struct replay {
    const ks_analysis *a;
    const ks_timeline *tl;     /* the replayed thread */
    const ks_shrink *sh;
    size_t nsh;
    ks_ivs *label_cpu;         /* per shrink: union of the label's slices on the thread */
    uint8_t *launch_shrink;    /* per slice of tl: shrink index + 1 whose label encloses it */
    gpu_item *items;           /* GPU work launched from the thread, by start */
    size_t nitems;
} replay;

static int name_is(const ks_analysis *a, ks_str name, const char *label)
{
    return name && !strcmp(ks_trace_str(a->trace, name), label);
}

/* per slice: the first shrink whose label is the slice or one of its ancestors */
static void mark_labels(replay *r)
{
    const ks_timeline *tl = r->tl;
    const ks_track *tr = &r->a->trace->tracks[tl->track];
    r->launch_shrink = ks_xcalloc(tl->n ? tl->n : 1, 1);
    r->label_cpu = ks_xcalloc(r->nsh ? r->nsh : 1, sizeof *r->label_cpu);
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        uint8_t m = s->parent >= 0 ? r->launch_shrink[s->parent] : 0;
        for (size_t k = 0; k < r->nsh; k++) {
            if (r->sh[k].label[0] == '@')
                continue;
            if (name_is(r->a, tr->ev[s->ev].name, r->sh[k].label)) {
                if (!m)
                    m = (uint8_t)(k + 1);
                ks_ivs_add(&r->label_cpu[k], s->ts, s->end);
            }
        }
        r->launch_shrink[i] = m;
    }
    for (size_t k = 0; k < r->nsh; k++) {
        if (!strcmp(r->sh[k].label, "@cpu"))
            ks_ivs_add(&r->label_cpu[k], INT64_MIN / 4, INT64_MAX / 4);
        ks_ivs_normalize(&r->label_cpu[k]);
    }
}

static int cmp_item(const void *x, const void *y)
{
    const gpu_item *p = x, *q = y;
    if (p->launch != q->launch)
        return p->launch < q->launch ? -1 : 1;
    return (p->start > q->start) - (p->start < q->start);
}

/* a GPU work slice inside a gpu_user_annotation named after a shrink */
static uint8_t gpu_range_shrink(const replay *r, const ks_timeline *gtl, const int32_t *ev_slice, size_t ev)
{
    const ks_track *tr = &r->a->trace->tracks[gtl->track];
    int32_t s = ev_slice[ev];
    for (int32_t p = s >= 0 ? gtl->s[s].parent : -1; p >= 0; p = gtl->s[p].parent)
        for (size_t k = 0; k < r->nsh; k++)
            if (r->sh[k].label[0] != '@' && tr->ev[gtl->s[p].ev].kind == KS_K_GPU_ANNOTATION &&
                name_is(r->a, tr->ev[gtl->s[p].ev].name, r->sh[k].label))
                return (uint8_t)(k + 1);
    return 0;
}

static void collect_items(replay *r, uint32_t thread)
{
    const ks_analysis *a = r->a;
    const ks_trace *t = a->trace;
    size_t cap = 0;
    int gpu_all = 0;
    for (size_t k = 0; k < r->nsh; k++)
        if (!strcmp(r->sh[k].label, "@gpu"))
            gpu_all = (int)k + 1;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t k = 0; k < gw->nstreams; k++) {
        const ks_gpuwork_stream *str = &gw->streams[k];
        const ks_track *tr = &t->tracks[str->track];
        const ks_timeline *gtl = &a->tl[str->track];
        int32_t *ev_slice = ks_timeline_event_slices(t, gtl);
        for (size_t j = str->first; j < str->first + str->n; j++) {
            const ks_gpuwork_item *e = &gw->v[j];
            ks_slice_ref l = ks_gpuwork_launcher(a, e);
            if (l.s < 0 || l.tl != thread)
                continue;
            gpu_item it = {e->ts, e->dur, str->stream, l.s, 0};
            it.scaled_by = r->launch_shrink[l.s];
            if (!it.scaled_by)
                it.scaled_by = gpu_range_shrink(r, gtl, ev_slice, e->ev);
            if (!it.scaled_by && gpu_all)
                it.scaled_by = (uint8_t)gpu_all;
            KS_PUSH(r->items, r->nitems, cap, it);
        }
        ks_big_free(ev_slice, tr->n * sizeof *ev_slice);
    }
    if (r->nitems > 1)
        qsort(r->items, r->nitems, sizeof *r->items, cmp_item);
}

/* CPU time of [x, y) after scaling (apply: 0 = unchanged) */
static ks_ns cpu_time(const replay *r, ks_ns x, ks_ns y, int apply, ks_ns *label_ns)
{
    if (y <= x)
        return 0;
    double t = (double)(y - x);
    for (size_t k = 0; k < r->nsh; k++) {
        ks_ns in = ks_ivs_covered(&r->label_cpu[k], x, y);
        if (label_ns)
            *label_ns += in;
        if (apply)
            t -= (1.0 - r->sh[k].factor) * (double)in;
    }
    return t < 0 ? 0 : (ks_ns)llround(t);
}

typedef struct stream_state {
    int64_t stream;
    ks_ns free_orig, free_sim;
} stream_state;

static stream_state *stream_of(stream_state **v, size_t *n, size_t *cap, int64_t id, ks_ns t0)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].stream == id)
            return &(*v)[i];
    stream_state s = {id, t0, t0};
    KS_PUSH(*v, *n, *cap, s);
    return &(*v)[*n - 1];
}

/* first item launched by slice i (items are sorted by launch), or nitems */
static size_t first_item(const replay *r, int32_t i)
{
    size_t lo = 0, hi = r->nitems;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->items[mid].launch < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct special {
    int32_t slice;
    uint8_t blocking;
} special;

static int cmp_special(const void *x, const void *y, void *ctx)
{
    const ks_timeline *tl = ctx;
    const ks_slice *a = &tl->s[((const special *)x)->slice], *b = &tl->s[((const special *)y)->slice];
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    ks_ns da = a->end - a->ts, db = b->end - b->ts;
    if (da != db)
        return da < db ? -1 : 1; /* at equal start, the call that returns first went first */
    return (a->ev > b->ev) - (a->ev < b->ev);
}

/* The replayed calls of [S, H): launch calls that launched work, and blocking calls; a call
 * inside another one (a driver call inside its runtime call) is not replayed twice. */
static special *specials(const replay *r, ks_ns S, ks_ns H, size_t *n)
{
    const ks_timeline *tl = r->tl;
    const ks_track *tr = &r->a->trace->tracks[tl->track];
    special *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < tl->n && tl->s[i].ts < H; i++) {
        const ks_slice *s = &tl->s[i];
        if (s->ts < S || s->lane != 0)
            continue;
        const ks_event *e = &tr->ev[s->ev];
        if (!ks_kind_is_launch_api(e->kind))
            continue;
        int blocking = ks_is_blocking_call(ks_trace_str(r->a->trace, e->name));
        size_t f = first_item(r, (int32_t)i);
        int launches = f < r->nitems && r->items[f].launch == (int32_t)i;
        if (!blocking && !launches)
            continue;
        special sp = {(int32_t)i, (uint8_t)blocking};
        KS_PUSH(v, *n, cap, sp);
    }
    if (*n > 1)
        qsort_r(v, *n, sizeof *v, cmp_special, (void *)tl);
    return v;
}

/* Replay [S, H) of the thread (H = the host end) and return the end time; apply = scale or not. */
static ks_ns replay_step(const replay *r, ks_ns S, ks_ns H, int apply, ks_ns *label_cpu, ks_ns *label_gpu)
{
    const ks_timeline *tl = r->tl;
    stream_state *ss = NULL;
    size_t nss = 0, css = 0, nsp;
    ks_ns t = S, x = S, gpu_done_sim = S, gpu_done_orig = S, covered = S;
    special *sp = specials(r, S, H, &nsp);
    for (size_t k = 0; k < nsp; k++) {
        const ks_slice *s = &tl->s[sp[k].slice];
        int blocking = sp[k].blocking;
        if (s->ts < covered)
            continue;
        t += cpu_time(r, x, s->ts, apply, label_cpu);
        /* a blocking call's time is waiting, recomputed below; a launch call's is CPU time */
        if (!blocking)
            t += cpu_time(r, s->ts, s->end, apply, label_cpu);
        x = s->end;
        ks_ns call_end_orig = blocking ? s->ts : s->end;
        for (size_t it = first_item(r, sp[k].slice); it < r->nitems && r->items[it].launch == sp[k].slice; it++) {
            const gpu_item *g = &r->items[it];
            stream_state *sst = stream_of(&ss, &nss, &css, g->stream, S);
            ks_ns ready_orig = call_end_orig > sst->free_orig ? call_end_orig : sst->free_orig;
            ks_ns latency = g->start > ready_orig ? g->start - ready_orig : 0;
            ks_ns ready = t > sst->free_sim ? t : sst->free_sim;
            ks_ns d = g->dur;
            if (g->scaled_by) {
                if (label_gpu)
                    *label_gpu += g->dur;
                if (apply)
                    d = (ks_ns)llround((double)g->dur * r->sh[g->scaled_by - 1].factor);
            }
            ks_ns start = ready + latency;
            sst->free_sim = start + d;
            sst->free_orig = g->start + g->dur;
            if (sst->free_sim > gpu_done_sim)
                gpu_done_sim = sst->free_sim;
            if (sst->free_orig > gpu_done_orig)
                gpu_done_orig = sst->free_orig;
        }
        if (blocking) {
            /* waits for the GPU work launched so far, plus the overhead it had beyond that wait */
            ks_ns waited_until = gpu_done_orig > s->ts ? gpu_done_orig : s->ts;
            ks_ns overhead = s->end > waited_until ? s->end - waited_until : 0;
            t = (gpu_done_sim > t ? gpu_done_sim : t) + overhead;
        }
        covered = s->end > covered ? s->end : covered;
    }
    t += cpu_time(r, x, H, apply, label_cpu);
    free(ss);
    free(sp);
    return t > gpu_done_sim ? t : gpu_done_sim;
}

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

/* the distinct names a label can match: the replayed thread's slices and the GPU ranges */
static ks_str *label_names(const replay *r, size_t *n)
{
    const ks_trace *t = r->a->trace;
    ks_str *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t k = 0; k < t->ntracks; k++) {
        const ks_track *tr = &t->tracks[k];
        for (size_t i = 0; i < tr->n; i++)
            if (tr->ev[i].name && (k == r->tl->track || tr->ev[i].kind == KS_K_GPU_ANNOTATION))
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

/* A label that matches no slice of the replayed thread and no GPU range would project "+0.0 %":
 * an error naming the closest names instead (and an @ label other than @cpu/@gpu). */
static int check_labels(const replay *r, ks_error *err)
{
    for (size_t k = 0; k < r->nsh; k++) {
        const char *l = r->sh[k].label;
        if (l[0] == '@') {
            if (strcmp(l, "@cpu") && strcmp(l, "@gpu"))
                return ks_error_set(err, "--shrink %s: the only @ labels are @cpu and @gpu", l);
            continue;
        }
        int found = r->label_cpu[k].n > 0;
        for (size_t i = 0; !found && i < r->nitems; i++)
            found = r->items[i].scaled_by == k + 1;
        if (found)
            continue;
        size_t n, best[3] = {0}, nb = 0;
        size_t dist[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
        ks_str *names = label_names(r, &n);
        for (size_t i = 0; i < n; i++) {
            size_t d = name_distance(ks_trace_str(r->a->trace, names[i]), l, nb < 3 ? 64 : dist[2]);
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
            snprintf(near + len, sizeof near - len, "%s'%.150s'", j ? ", " : "", ks_trace_str(r->a->trace, names[best[j]]));
        }
        free(names);
        return ks_error_set(err, "--shrink %s: no range or op of that name on the stepping thread nor a GPU range%s%s",
                            l, nb ? "; closest: " : "", near);
    }
    return KS_OK;
}

static uint32_t main_thread(const ks_analysis *a)
{
    size_t *count = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *count);
    const ks_trace *t = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        ks_slice_ref r = ks_gpuwork_launcher(a, &gw->v[j]);
        if (r.s >= 0)
            count[r.tl]++;
    }
    uint32_t best = 0;
    size_t bc = 0, bn = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (count[k] > bc || (!bc && !count[k] && a->tl[k].n > bn && t->tracks[k].kind == KS_TRACK_CPU)) {
            bc = count[k];
            bn = a->tl[k].n;
            best = (uint32_t)k;
        }
    free(count);
    return best;
}

int ks_whatif_run(const ks_analysis *a, const ks_steps *st, const ks_shrink *sh, size_t nsh, ks_whatif *out,
                  ks_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < nsh; k++)
        if (!(sh[k].factor >= 0) || !isfinite(sh[k].factor))
            return ks_error_set(err, "--shrink %s: the factor must be a number >= 0", sh[k].label);
    if (nsh > 250)
        return ks_error_set(err, "too many --shrink options");
    if (!a->ntl)
        return ks_error_set(err, "the trace has no timed events");
    replay r;
    memset(&r, 0, sizeof r);
    r.a = a;
    r.sh = sh;
    r.nsh = nsh;
    uint32_t thread = st && st->n ? st->track : main_thread(a);
    r.tl = &a->tl[thread];
    out->track = thread;
    mark_labels(&r);
    collect_items(&r, thread);
    int rc = check_labels(&r, err);
    size_t n = rc != KS_OK ? 0 : st && st->n ? st->n : 1;
    if (n) {
        out->v = ks_xcalloc(n, sizeof *out->v);
        out->n = n;
    }
    for (size_t i = 0; i < n; i++) {
        ks_whatif_step *w = &out->v[i];
        ks_ns S, H, E;
        if (st && st->n) {
            S = st->v[i].start;
            H = st->v[i].host_end;
            E = st->v[i].end;
            w->number = st->v[i].number;
        } else {
            S = a->win_start;
            H = a->win_last;
            E = H;
            w->number = -1;
        }
        w->measured_ns = E - S;
        w->model_ns = replay_step(&r, S, H, 0, NULL, NULL) - S;
        w->projected_ns = replay_step(&r, S, H, 1, &w->label_cpu_ns, &w->label_gpu_ns) - S;
    }
    for (size_t k = 0; k < nsh; k++)
        ks_ivs_free(&r.label_cpu[k]);
    free(r.label_cpu);
    free(r.launch_shrink);
    free(r.items);
    return rc;
}

void ks_whatif_free(ks_whatif *w)
{
    free(w->v);
    memset(w, 0, sizeof *w);
}
