/* insights/breakdown.c: the step time breakdown of the TensorBoard plugin (docs/peer-definitions.md
 * section 3.1): each role's intervals are merged over all threads and streams, then inside the
 * step each role takes what is left in the priority order Kernel > Memcpy > Memset >
 * Communication > Runtime > DataLoader > CPU Exec; the rest is Other, so the roles add up to the
 * step's wall time exactly. Differences from the plugin, on purpose: cuda_driver calls count as
 * Runtime, python_function frames as CPU Exec, and gpu_user_annotation (GPU-side ranges) is not
 * CPU execution. */
#include <stdlib.h>
#include <string.h>

#include "insights/breakdown.h"
#include "analysis/passes.h"
#include "vocab/kinds.h"
#include "common/util.h"
#include "kinesift/comm.h"
#include "vocab/labels.h"

const char *ks_role_name(ks_role r)
{
    static const char *const n[KS_ROLE_COUNT] = {"kernel", "memcpy", "memset", "communication",
                                                 "runtime", "dataloader", "cpu_exec", "other"};
    return r < KS_ROLE_COUNT ? n[r] : "?";
}

/* What classifying slices by role needs; the caches are per name id. */
typedef struct role_ctx {
    const ks_analysis *a;
    const ks_steps *st;
    uint8_t *by_name;  /* 1 + the role a name-classified CPU slice takes (comm/dataloader ops) */
    ks_comm_cache comm; /* which kernels are communication (analysis/comm.c) */
} role_ctx;

/* The role slice i of timeline k takes, or -1. */
static int slice_role(role_ctx *c, size_t k, size_t i)
{
    const ks_trace *t = c->a->trace;
    const ks_timeline *tl = &c->a->tl[k];
    const ks_track *tr = &t->tracks[tl->track];
    const ks_slice *s = &tl->s[i];
    const ks_event *e = &tr->ev[s->ev];
    if (tr->kind == KS_TRACK_GPU) {
        if (e->kind == KS_K_KERNEL)
            return ks_comm_gpu_event(&c->comm, tl->track, s->ev) ? KS_ROLE_COMM : KS_ROLE_KERNEL;
        if (e->kind == KS_K_MEMCPY)
            return KS_ROLE_MEMCPY;
        if (e->kind == KS_K_MEMSET)
            return KS_ROLE_MEMSET;
        return -1;
    }
    if (tr->kind != KS_TRACK_CPU)
        return -1;
    if (ks_kind_is_launch_api(e->kind))
        return KS_ROLE_RUNTIME;
    if (e->kind != KS_K_CPU_OP && e->kind != KS_K_USER_ANNOTATION && e->kind != KS_K_PYTHON)
        return -1;
    if (!c->by_name[e->name]) {
        const char *n = ks_trace_str(t, e->name);
        /* (step names were marked up front: no scan of the steps per name) */
        c->by_name[e->name] = (uint8_t)(1 + (ks_comm_op_name(n) ? KS_ROLE_COMM
                                             : ks_is_dataloader_label(n) ? KS_ROLE_DATALOADER : KS_ROLE_CPU_EXEC));
    }
    int role = c->by_name[e->name] - 1;
    return role == KS_ROLE_COUNT ? -1 : role; /* a step annotation takes none */
}

static void role_ctx_init(role_ctx *c, const ks_analysis *a, const ks_steps *st)
{
    size_t names = ks_strtab_count(a->trace->strings);
    c->a = a;
    c->st = st;
    c->by_name = ks_xcalloc(names ? names : 1, 1);
    for (size_t i = 0; i < st->n; i++) /* a step annotation takes no role */
        if (st->v[i].name < names)
            c->by_name[st->v[i].name] = (uint8_t)(1 + KS_ROLE_COUNT);
    ks_comm_cache_init(&c->comm, a);
}

static void role_ctx_free(role_ctx *c)
{
    free(c->by_name);
    ks_comm_cache_free(&c->comm);
}

/* ---- the sweep ------------------------------------------------------------------------------
 *
 * Every instant of a step goes to the first role in priority order that has a slice open then (on
 * any thread or stream), else to Other: the plugin's "each role takes what the roles before it
 * left" read point by point. One sweep over all role slices in start order (a merge of the
 * timelines, each already in start order) keeps the count of open slices per role and a heap of
 * their ends; between two consecutive times the top role takes the time. The time each role has
 * taken since the first step boundary is kept per role (unsigned: the whole int64 range fits),
 * read at every step start and end, and a step's share of a role is the difference. A slice inside
 * its parent with the parent's role is left out of the sweep: it changes no count from 0 and adds
 * no time (most nested ops). Memory: one cursor per timeline and the slices open at once, where
 * sets of every slice took 16 bytes each. */

typedef struct cursor {
    ks_ns ts;                  /* start of the timeline's next role slice */
    uint32_t k;                /* the timeline */
    uint32_t role;
    size_t i;                  /* that slice */
} cursor;

typedef struct open_end {
    ks_ns end;
    uint32_t role;
} open_end;

typedef struct sweep {
    role_ctx c;
    cursor *cur;               /* min-heap by ts: one per timeline with a role slice still to come */
    size_t ncur;
    open_end *open;            /* min-heap by end: the role slices open now */
    size_t nopen, open_cap;
    uint64_t count[KS_ROLE_OTHER];
    uint64_t taken[KS_ROLE_COUNT]; /* ns each role took from q[0] to `at` */
    ks_ns at;                  /* the time attributed so far */
    ks_ns *q;                  /* step starts and ends, sorted */
    size_t nq, qi;
    uint64_t (*taken_at)[KS_ROLE_COUNT]; /* taken[] at q[j] */
} sweep;

static int cursor_before(const cursor *x, const cursor *y)
{
    return x->ts < y->ts || (x->ts == y->ts && x->k < y->k);
}

static void cursor_down(sweep *w, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < w->ncur && cursor_before(&w->cur[l], &w->cur[m]))
            m = l;
        if (r < w->ncur && cursor_before(&w->cur[r], &w->cur[m]))
            m = r;
        if (m == i)
            return;
        cursor t = w->cur[i];
        w->cur[i] = w->cur[m];
        w->cur[m] = t;
        i = m;
    }
}

/* Move c to its timeline's next slice with a role and a length from slice i on: 0 when none. */
static int cursor_seek(sweep *w, cursor *c, size_t i)
{
    const ks_timeline *tl = &w->c.a->tl[c->k];
    for (; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        if (i + 16 < tl->n) /* slices are in start order, events in file order */
            __builtin_prefetch(&tl->ev[tl->s[i + 16].ev]);
        int role = slice_role(&w->c, c->k, i);
        ks_ns ts = ks_slice_ts(tl, s), end = ks_slice_end(tl, s);
        if (role < 0 || end <= ts)
            continue; /* no role, or no time to take */
        /* inside a parent of its role it adds nothing (most nested ops): a slice lies within its
         * parent, which the timeline places in its lane only then (a partial overlap spills it
         * to another lane or is cut to the parent's end) */
        if (s->parent >= 0 && slice_role(&w->c, c->k, (size_t)s->parent) == role)
            continue;
        c->i = i;
        c->ts = ts;
        c->role = (uint32_t)role;
        return 1;
    }
    return 0;
}

static void open_push(sweep *w, ks_ns end, uint32_t role)
{
    KS_GROW(w->open, w->open_cap, w->nopen + 1);
    size_t i = w->nopen++;
    while (i && w->open[(i - 1) / 2].end > end) {
        w->open[i] = w->open[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->open[i] = (open_end){end, role};
}

static void open_pop(sweep *w)
{
    open_end last = w->open[--w->nopen];
    size_t i = 0;
    for (;;) {
        size_t m = 2 * i + 1;
        if (m >= w->nopen)
            break;
        if (m + 1 < w->nopen && w->open[m + 1].end < w->open[m].end)
            m++;
        if (w->open[m].end >= last.end)
            break;
        w->open[i] = w->open[m];
        i = m;
    }
    if (w->nopen)
        w->open[i] = last;
}

/* The role that takes the time while the counts are as they are. */
static int top_role(const sweep *w)
{
    for (int r = 0; r < KS_ROLE_OTHER; r++)
        if (w->count[r])
            return r;
    return KS_ROLE_OTHER;
}

/* Attribute [at, y) to the top role (y >= at), reading taken[] at each step boundary up to y. */
static void advance(sweep *w, ks_ns y)
{
    int r = top_role(w);
    for (; w->qi < w->nq && w->q[w->qi] <= y; w->qi++) {
        memcpy(w->taken_at[w->qi], w->taken, sizeof w->taken);
        w->taken_at[w->qi][r] += (uint64_t)w->q[w->qi] - (uint64_t)w->at;
    }
    w->taken[r] += (uint64_t)y - (uint64_t)w->at;
    w->at = y;
}

static int cmp_ns(const void *x, const void *y)
{
    ks_ns a = *(const ks_ns *)x, b = *(const ks_ns *)y;
    return (a > b) - (a < b);
}

static void sweep_run(sweep *w)
{
    const ks_analysis *a = w->c.a;
    w->cur = ks_xmalloc(ks_mul(a->ntl ? a->ntl : 1, sizeof *w->cur));
    for (size_t k = 0; k < a->ntl; k++) {
        cursor c = {.k = (uint32_t)k};
        if (cursor_seek(w, &c, 0))
            w->cur[w->ncur++] = c;
    }
    for (size_t i = w->ncur; i-- > 0;)
        cursor_down(w, i);
    w->at = w->q[0];
    while (w->qi < w->nq) {
        int has_start = w->ncur > 0, has_end = w->nopen > 0;
        if (!has_start && !has_end) {
            advance(w, w->q[w->nq - 1] > w->at ? w->q[w->nq - 1] : w->at); /* Other to the last */
            break;
        }
        ks_ns t = !has_end ? w->cur[0].ts : !has_start ? w->open[0].end
                : w->cur[0].ts < w->open[0].end ? w->cur[0].ts : w->open[0].end;
        if (t >= w->at)
            advance(w, t);
        while (w->nopen && w->open[0].end == t) {
            w->count[w->open[0].role]--;
            open_pop(w);
        }
        while (w->ncur && w->cur[0].ts == t) {
            cursor *c = &w->cur[0];
            const ks_timeline *tl = &a->tl[c->k];
            w->count[c->role]++;
            open_push(w, ks_slice_end(tl, &tl->s[c->i]), c->role);
            if (!cursor_seek(w, c, c->i + 1))
                *c = w->cur[--w->ncur];
            if (w->ncur)
                cursor_down(w, 0);
        }
    }
    free(w->cur);
    free(w->open);
}

/* The time role r took in [x, y): the difference of taken[] at the two boundaries, as a saturated
 * ks_ns. */
static ks_ns taken_in(const sweep *w, ks_ns x, ks_ns y, int r)
{
    ks_ns *p = bsearch(&x, w->q, w->nq, sizeof *w->q, cmp_ns), *e = bsearch(&y, w->q, w->nq, sizeof *w->q, cmp_ns);
    uint64_t d = w->taken_at[e - w->q][r] - w->taken_at[p - w->q][r];
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (ks_ns)d;
}

void ks_breakdown_steps(const ks_analysis *a, ks_steps *st)
{
    if (!st->n)
        return;
    sweep w;
    memset(&w, 0, sizeof w);
    role_ctx_init(&w.c, a, st);
    w.q = ks_xmalloc(ks_mul(2 * st->n, sizeof *w.q));
    for (size_t i = 0; i < st->n; i++) {
        w.q[w.nq++] = st->v[i].start;
        w.q[w.nq++] = st->v[i].end;
    }
    qsort(w.q, w.nq, sizeof *w.q, cmp_ns);
    w.taken_at = ks_xmalloc(ks_mul(w.nq, sizeof *w.taken_at));
    sweep_run(&w);
    for (size_t i = 0; i < st->n; i++) {
        ks_step *s = &st->v[i];
        for (int r = 0; r < KS_ROLE_COUNT; r++)
            s->breakdown[r] = s->end > s->start ? taken_in(&w, s->start, s->end, r) : 0;
    }
    role_ctx_free(&w.c);
    free(w.q);
    free(w.taken_at);
}
