/* analysis/folded.c: the call-path tree behind `analyze --format folded` (flame graphs).
 *
 * What: per CPU thread, each op/label slice is a frame under the frames of its enclosing
 * op/label slices; identical paths of all threads share one node. CPU metric: every slice the
 * ops table counts (kind, start in the window) adds its self time, as the ops table computes it
 * (ks_timeline_self), to its own node. GPU metric: every GPU work event the kernels table counts
 * adds its duration to a leaf frame named after it, under the op that launched it
 * (ks_analysis_launching_op), under [unlinked] when it has no launcher.
 * Why correct: each slice, and each GPU event, adds its figure to exactly one node, so the node
 * values add up to the sums of the ops' self_ns and of the kernels' total_ns (the test checks it).
 * Hidden Python frames are transparent: their self time goes to the node of the nearest displayed
 * ancestor, which is where a flame graph without them shows that time.
 * ProfilerStep#N annotations are one frame, ProfilerStep#*, so that the steps add up.
 * When not: slices of GPU streams (gpu_user_annotation) are not frames; threads are merged.
 * Who: report/analyze_folded.c. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "common/i64map.h"
#include "common/util.h"
#include "kinesift/analysis.h"

typedef struct tree {
    ks_folded *f;
    size_t cap;
    ks_i64map ix;              /* (parent << 32 | frame key) -> node */
} tree;

static int32_t node(tree *t, int32_t parent, ks_str name, uint8_t frame)
{
    uint32_t key = frame == KS_FRAME_NAME ? (uint32_t)name : 0xffffff00u | frame;
    int64_t k = (int64_t)(((uint64_t)(uint32_t)parent << 32) | key);
    uint64_t *p = ks_i64map_get(&t->ix, k);
    if (p)
        return (int32_t)*p;
    KS_GROW(t->f->v, t->cap, t->f->n + 1);
    ks_folded_node *x = &t->f->v[t->f->n];
    x->parent = parent;
    x->name = frame == KS_FRAME_NAME ? name : 0;
    x->frame = frame;
    x->value = 0;
    ks_i64map_put(&t->ix, k, t->f->n);
    return (int32_t)t->f->n++;
}

static int shown(const ks_event *e, int python_frames)
{
    return ks_is_op_slice_kind(e->kind) && (python_frames || e->kind != KS_K_PYTHON);
}

/* The node of every slice of a CPU timeline: its own when shown, else its nearest shown
 * ancestor's (0: the root). Parents come before their children in a timeline. */
static int32_t *slice_nodes(tree *t, const ks_analysis *a, const ks_timeline *tl, int python_frames)
{
    const ks_track *tr = &a->trace->tracks[tl->track];
    int32_t *nd = ks_xmalloc(ks_mul(tl->n ? tl->n : 1, sizeof *nd));
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        int32_t up = s->parent >= 0 ? nd[s->parent] : 0;
        const ks_event *e = &tr->ev[s->ev];
        int64_t num;
        if (!shown(e, python_frames))
            nd[i] = up;
        else if (e->kind == KS_K_USER_ANNOTATION && ks_match_profiler_step(ks_trace_str(a->trace, e->name), &num))
            nd[i] = node(t, up, 0, KS_FRAME_STEP);
        else
            nd[i] = node(t, up, e->name, KS_FRAME_NAME);
    }
    return nd;
}

static void cpu_values(tree *t, const ks_analysis *a, const ks_timeline *tl, const int32_t *nd)
{
    ks_ns *self = ks_xmalloc(ks_mul(tl->n ? tl->n : 1, sizeof *self));
    ks_timeline_self(tl, self);
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        ks_ns ts = ks_slice_ts(tl, s);
        if (ts < a->win_start || ts >= a->win_end || !ks_is_op_slice_kind(s->kind))
            continue;
        int32_t n = nd[i] ? nd[i] : node(t, 0, 0, KS_FRAME_PYTHON);
        t->f->v[n].value = ks_sat_add(t->f->v[n].value, self[i]); /* (saturated, as the ops table) */
    }
    free(self);
}

static void gpu_values(tree *t, const ks_analysis *a, int32_t **nd)
{
    const ks_trace *tr = a->trace;
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *g = &gw->v[j];
        if (!ks_gpuwork_starts_in(a, g))
            continue;
        const ks_event *e = &tr->tracks[g->track].ev[g->ev];
        ks_slice_ref r = ks_gpuwork_launcher(a, g);
        int32_t up;
        if (r.s < 0) {
            up = node(t, 0, 0, KS_FRAME_UNLINKED);
        } else {
            int32_t op = ks_analysis_launching_op(a, r);
            up = op >= 0 && nd[r.tl] ? nd[r.tl][op] : 0;
            if (!up)
                up = node(t, 0, 0, KS_FRAME_NO_OP);
        }
        int32_t leaf = node(t, up, e->name, KS_FRAME_NAME); /* may move t->f->v */
        t->f->v[leaf].value = ks_sat_add(t->f->v[leaf].value, ks_event_dur(e));
    }
}

void ks_folded_build(const ks_analysis *a, ks_folded_metric m, int python_frames, ks_folded *out)
{
    memset(out, 0, sizeof *out);
    tree t = {out, 0, {0}};
    ks_i64map_init(&t.ix);
    node(&t, -1, 0, KS_FRAME_NAME); /* the root */
    const ks_trace *tr = a->trace;
    int32_t **nd = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *nd);
    for (size_t k = 0; k < a->ntl; k++) {
        const ks_timeline *tl = &a->tl[k];
        if (tr->tracks[tl->track].kind == KS_TRACK_GPU || !tl->n)
            continue;
        nd[k] = slice_nodes(&t, a, tl, python_frames);
        if (m == KS_FOLDED_CPU)
            cpu_values(&t, a, tl, nd[k]);
    }
    if (m == KS_FOLDED_GPU)
        gpu_values(&t, a, nd);
    for (size_t k = 0; k < a->ntl; k++)
        free(nd[k]);
    free(nd);
    ks_i64map_free(&t.ix);
}

void ks_folded_free(ks_folded *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}
