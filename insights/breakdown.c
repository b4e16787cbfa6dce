/* insights/breakdown.c: the step time breakdown of the TensorBoard plugin (peer-definitions.md
 * section 3.1): each role's intervals are merged over all threads and streams, then inside the
 * step each role takes what is left in the priority order Kernel > Memcpy > Memset >
 * Communication > Runtime > DataLoader > CPU Exec; the rest is Other, so the roles add up to the
 * step's wall time exactly. Differences from the plugin, on purpose: cuda_driver calls count as
 * Runtime, python_function frames as CPU Exec, and gpu_user_annotation (GPU-side ranges) is not
 * CPU execution. */
#include <stdlib.h>
#include <string.h>

#include "insights/breakdown.h"
#include "analysis/intervals.h"
#include "analysis/analysis_int.h"
#include "common/util.h"
#include "kinesift/comm.h"

const char *ks_role_name(ks_role r)
{
    static const char *const n[KS_ROLE_COUNT] = {"kernel", "memcpy", "memset", "communication",
                                                 "runtime", "dataloader", "cpu_exec", "other"};
    return r < KS_ROLE_COUNT ? n[r] : "?";
}

static int is_dataloader(const char *n)
{
    return !strncmp(n, "enumerate(DataLoader)#", 22) || !strncmp(n, "enumerate(DataPipe)#", 20);
}

/* What classifying slices by role needs; the caches are per name id. */
typedef struct role_ctx {
    const ks_analysis *a;
    const ks_steps *st;
    uint8_t *by_name;  /* 1 + the role a name-classified CPU slice takes (comm/dataloader ops) */
    ks_comm_cache comm; /* which kernels are communication (analysis/comm.c) */
} role_ctx;

/* Add the slices of timeline k to the role sets. */
static void track_roles(role_ctx *c, size_t k, ks_ivs roles[KS_ROLE_COUNT])
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    uint8_t *by_name = c->by_name;
    const ks_timeline *tl = &a->tl[k];
    const ks_track *tr = &t->tracks[tl->track];
    for (size_t i = 0; i < tl->n; i++) {
        const ks_slice *s = &tl->s[i];
        const ks_event *e = &tr->ev[s->ev];
        if (i + 16 < tl->n) /* slices are in start order, events in file order */
            __builtin_prefetch(&tr->ev[tl->s[i + 16].ev]);
        int role = -1;
        if (tr->kind == KS_TRACK_GPU) {
            if (e->kind == KS_K_KERNEL)
                role = ks_comm_gpu_event(&c->comm, tl->track, s->ev) ? KS_ROLE_COMM : KS_ROLE_KERNEL;
            else if (e->kind == KS_K_MEMCPY)
                role = KS_ROLE_MEMCPY;
            else if (e->kind == KS_K_MEMSET)
                role = KS_ROLE_MEMSET;
        } else if (tr->kind == KS_TRACK_CPU) {
            if (ks_kind_is_launch_api(e->kind))
                role = KS_ROLE_RUNTIME;
            else if (e->kind == KS_K_CPU_OP || e->kind == KS_K_USER_ANNOTATION || e->kind == KS_K_PYTHON) {
                if (!by_name[e->name]) {
                    const char *n = ks_trace_str(t, e->name);
                    /* (step names were marked up front: no scan of the steps per name) */
                    by_name[e->name] = (uint8_t)(1 + (ks_comm_op_name(n) ? KS_ROLE_COMM
                                                      : is_dataloader(n) ? KS_ROLE_DATALOADER : KS_ROLE_CPU_EXEC));
                }
                role = by_name[e->name] - 1;
                if (role == KS_ROLE_COUNT) /* a step annotation */
                    continue;
            }
        }
        if (role >= 0)
            ks_ivs_add_merge(&roles[role], ks_slice_ts(tl, s), ks_slice_end(tl, s));
    }
}

/* Room in roles[] for every slice that may take a role: the sets never move while they grow. */
static void reserve_roles(const ks_analysis *a, ks_ivs roles[KS_ROLE_COUNT])
{
    size_t gpu = 0, cpu = 0;
    for (size_t k = 0; k < a->ntl; k++) {
        uint8_t kind = a->trace->tracks[a->tl[k].track].kind;
        if (kind == KS_TRACK_GPU)
            gpu += a->tl[k].n;
        else if (kind == KS_TRACK_CPU)
            cpu += a->tl[k].n;
    }
    for (int r = 0; r < KS_ROLE_OTHER; r++)
        ks_ivs_reserve(&roles[r], r == KS_ROLE_COMM ? gpu + cpu : r < KS_ROLE_COMM ? gpu : cpu);
}

static void role_ctx_init(role_ctx *c, const ks_analysis *a, const ks_steps *st)
{
    size_t names = ks_strtab_count(a->trace->strings);
    c->a = a;
    c->st = st;
    c->by_name = ks_xcalloc(names, 1);
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

/* Each role's intervals over all threads and streams, normalized. */
static void role_intervals(const ks_analysis *a, const ks_steps *st, ks_ivs roles[KS_ROLE_COUNT])
{
    role_ctx c;
    role_ctx_init(&c, a, st);
    reserve_roles(a, roles);
    for (size_t k = 0; k < a->ntl; k++)
        track_roles(&c, k, roles);
    role_ctx_free(&c);
    for (int r = 0; r < KS_ROLE_OTHER; r++)
        ks_ivs_normalize(&roles[r]);
}

/* the part of normalized set s inside [a, b) */
static void window_of(const ks_ivs *s, ks_ns a, ks_ns b, ks_ivs *out)
{
    ks_ivs_reset(out);
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < s->n && s->v[i].a < b; i++)
        ks_ivs_add(out, s->v[i].a < a ? a : s->v[i].a, s->v[i].b > b ? b : s->v[i].b);
}

void ks_breakdown_steps(const ks_analysis *a, ks_steps *st)
{
    ks_ivs roles[KS_ROLE_COUNT];
    memset(roles, 0, sizeof roles);
    role_intervals(a, st, roles);
    ks_ivs left = {0}, part = {0}, next = {0}, tmp = {0};
    for (size_t i = 0; i < st->n; i++) {
        ks_step *s = &st->v[i];
        ks_ivs_reset(&left);
        ks_ivs_add(&left, s->start, s->end);
        for (int r = 0; r < KS_ROLE_OTHER; r++) {
            window_of(&roles[r], s->start, s->end, &tmp);
            ks_ivs_intersect(&left, &tmp, &part);
            s->breakdown[r] = ks_ivs_length(&part);
            ks_ivs_subtract(&left, &tmp, &next);
            ks_ivs t = left;
            left = next;
            next = t;
        }
        s->breakdown[KS_ROLE_OTHER] = ks_ivs_length(&left);
    }
    for (int r = 0; r < KS_ROLE_COUNT; r++)
        ks_ivs_free(&roles[r]);
    ks_ivs_free(&left);
    ks_ivs_free(&part);
    ks_ivs_free(&next);
    ks_ivs_free(&tmp);
}
