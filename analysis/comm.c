/* analysis/comm.c: the one place that decides what is communication (kinesift/comm.h), the kind
 * of a collective, its bus bandwidth factor (nccl-tests, doc/PERFORMANCE.md) and the size of a
 * dtype. Names are matched case-insensitively where vendors vary the case (kernels), exactly where
 * PyTorch spells them one way (op prefixes). A name that matches nothing is not communication:
 * callers add what launched a kernel and its collective metadata (ks_trace_coll). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "common/hugemem.h"
#include "common/util.h"
#include "kinesift/analysis.h"
#include "kinesift/comm.h"

/* ASCII byte c is letter l (lower case), in either case: of all bytes only l and its upper case
 * have l's bits once 0x20 is set */
static inline int is_letter(unsigned char c, char l)
{
    return (c | 0x20) == (unsigned char)l;
}

/* nccl, rccl, hccl or msccl in the name, any case: one pass for their common "ccl", then the
 * letters before it (kernel names run to hundreds of bytes: a pass per word, each comparing with
 * tolower at every position, cost ~30 instructions a byte) */
int ks_comm_kernel_name(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    if (!s[0])
        return 0;
    for (size_t i = 1; s[i] && s[i + 1]; i++) {
        if (!is_letter(s[i], 'c') || !is_letter(s[i + 1], 'c') || !s[i + 2] || !is_letter(s[i + 2], 'l'))
            continue;
        if (is_letter(s[i - 1], 'n') || is_letter(s[i - 1], 'r') || is_letter(s[i - 1], 'h') ||
            (i >= 2 && is_letter(s[i - 2], 'm') && is_letter(s[i - 1], 's')))
            return 1;
    }
    return 0;
}

int ks_is_comm_kernel(const char *name)
{
    return ks_comm_kernel_name(name);
}

int ks_comm_op_name(const char *n)
{
    static const struct {
        const char *s;
        size_t n;
    } prefix[] = {{"nccl:", 5}, {"gloo:", 5}, {"hccl:", 5}, {"mpi:", 4}, {"ucc:", 4}, {"c10d::", 6},
                  {"c10d_functional::", 17}, {"_c10d_functional::", 18}, {"symm_mem::", 10},
                  {"record_param_comms", 18}};
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++) /* the first byte before a call */
        if (n[0] == prefix[i].s[0] && !strncmp(n, prefix[i].s, prefix[i].n))
            return 1;
    /* custom all-reduce ops of serving stacks: NAMESPACE::all_reduce / allreduce (vllm::all_reduce,
     * trtllm::allreduce, sgl_kernel::all_reduce...) */
    const char *c = strstr(n, "::");
    if (c && c != n) {
        const char *op = c + 2;
        if (!strncmp(op, "all_reduce", 10) || !strncmp(op, "allreduce", 9) ||
            !strncmp(op, "custom_all_reduce", 17) || !strncmp(op, "all_gather", 10) ||
            !strncmp(op, "reduce_scatter", 14) || !strncmp(op, "all_to_all", 10))
            return 1;
    }
    return 0;
}

/* s without '_' and in lower case, at most n - 1 characters */
static void squash(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; *s && j + 1 < n; s++)
        if (*s != '_')
            out[j++] = (char)tolower((unsigned char)*s);
    out[j] = 0;
}

ks_coll_kind ks_coll_kind_of(const char *name)
{
    char b[256];
    squash(name, b, sizeof b);
    /* order matters: reducescatter before reduce, allreduce before reduce */
    if (strstr(b, "reducescatter"))
        return KS_COLL_REDUCESCATTER;
    if (strstr(b, "allreduce"))
        return KS_COLL_ALLREDUCE;
    if (strstr(b, "allgather"))
        return KS_COLL_ALLGATHER;
    if (strstr(b, "alltoall"))
        return KS_COLL_ALLTOALL;
    if (strstr(b, "broadcast"))
        return KS_COLL_BROADCAST;
    if (strstr(b, "sendrecv") || strstr(b, "send") || strstr(b, "recv"))
        return KS_COLL_SENDRECV;
    if (strstr(b, "barrier"))
        return KS_COLL_BARRIER;
    if (strstr(b, "reduce"))
        return KS_COLL_REDUCE;
    return KS_COLL_OTHER;
}

const char *ks_coll_kind_name(ks_coll_kind k)
{
    static const char *const n[] = {"other", "allreduce", "allgather", "reducescatter",
                                    "broadcast", "reduce", "alltoall", "sendrecv", "barrier"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "other";
}

void ks_coll_busbw_factor(ks_coll_kind k, int64_t n, int64_t *num, int64_t *den)
{
    *num = 0;
    *den = 1;
    if (n < 1)
        return;
    switch (k) {
    case KS_COLL_ALLREDUCE:
        *num = 2 * (n - 1);
        *den = n;
        break;
    case KS_COLL_ALLGATHER: case KS_COLL_REDUCESCATTER: case KS_COLL_ALLTOALL:
        *num = n - 1;
        *den = n;
        break;
    case KS_COLL_BROADCAST: case KS_COLL_REDUCE: case KS_COLL_SENDRECV:
        *num = 1;
        break;
    default:
        break;
    }
}

int ks_dtype_size(const char *d)
{
    static const struct { const char *name; int size; } t[] = {
        {"Float", 4}, {"float", 4}, {"float32", 4}, {"Int", 4}, {"int", 4}, {"int32", 4},
        {"UInt32", 4}, {"Half", 2}, {"half", 2}, {"float16", 2}, {"BFloat16", 2},
        {"bfloat16", 2}, {"Short", 2}, {"int16", 2}, {"UInt16", 2}, {"Double", 8},
        {"double", 8}, {"float64", 8}, {"Long", 8}, {"long", 8}, {"int64", 8}, {"UInt64", 8},
        {"ComplexFloat", 8}, {"ComplexHalf", 4}, {"ComplexDouble", 16}, {"Byte", 1},
        {"uint8", 1}, {"Char", 1}, {"int8", 1}, {"Bool", 1}, {"bool", 1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(d, t[i].name))
            return t[i].size;
    if (!strncmp(d, "Float8", 6) || !strncmp(d, "float8", 6))
        return 1;
    return 0;
}

const ks_coll_info *ks_trace_coll(const ks_trace *t, uint32_t track, uint32_t ev)
{
    size_t lo = 0, hi = t->ncolls;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const ks_coll_info *c = &t->colls[mid];
        if (c->track < track || (c->track == track && c->ev < ev))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->ncolls && t->colls[lo].track == track && t->colls[lo].ev == ev)
        return &t->colls[lo];
    return NULL;
}

/* ---- one GPU event: communication or not (every pass that splits GPU work asks here) ------- */

void ks_comm_cache_init(ks_comm_cache *c, const ks_analysis *a)
{
    c->a = a;
    c->by_kernel = c->by_op = NULL;
}

/* the caches of the rule below, made on its first use (most callers read the marks instead) */
static void cache_fill(ks_comm_cache *c)
{
    const ks_trace *t = c->a->trace;
    uint32_t n = ks_strtab_count(t->strings);
    c->by_kernel = ks_xcalloc(n ? n : 1, 1);
    /* no string names a communication op: no kernel can be one by its launching op */
    for (uint32_t i = 1; i < n && !c->by_op; i++)
        if (ks_comm_op_name(ks_trace_str(t, i)))
            c->by_op = ks_xcalloc(n, 1);
}

void ks_comm_cache_free(ks_comm_cache *c)
{
    free(c->by_kernel);
    free(c->by_op);
    c->by_kernel = c->by_op = NULL;
}

/* The rule itself, for one event. */
static int comm_rule(ks_comm_cache *c, uint32_t track, uint32_t ev)
{
    const ks_analysis *a = c->a;
    const ks_trace *t = a->trace;
    const ks_event *e = &t->tracks[track].ev[ev];
    if (e->kind != KS_K_KERNEL)
        return 0;
    if (!c->by_kernel)
        cache_fill(c);
    if (!c->by_kernel[e->name])
        c->by_kernel[e->name] = ks_comm_kernel_name(ks_trace_str(t, e->name)) ? 2 : 1;
    if (c->by_kernel[e->name] == 2 || (t->ncolls && ks_trace_coll(t, track, ev)))
        return 1;
    if (!c->by_op || !a->gpu_launch)
        return 0;
    ks_slice_ref r = ks_analysis_launcher(a, track, ev);
    int32_t op = ks_analysis_launching_op(a, r);
    if (op < 0)
        return 0;
    ks_str name = ks_slice_event(t, &a->tl[r.tl], &a->tl[r.tl].s[op])->name;
    if (!c->by_op[name])
        c->by_op[name] = ks_comm_op_name(ks_trace_str(t, name)) ? 2 : 1;
    return c->by_op[name] == 2;
}

int ks_comm_gpu_event(ks_comm_cache *c, uint32_t track, uint32_t ev)
{
    uint8_t *const *m = c->a->priv->comm;
    if (m && m[track])
        return m[track][ev];
    return comm_rule(c, track, ev);
}

void ks_comm_mark(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    ks_comm_cache c;
    ks_comm_cache_init(&c, a);
    uint8_t **m = ks_xcalloc(t->ntracks ? t->ntracks : 1, sizeof *m);
    const ks_track *tr;
    for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_GPU, &k)); k++) {
        if (!tr->n)
            continue;
        m[k] = ks_big_calloc(tr->n, 1);
        for (uint32_t i = 0; i < tr->n; i++)
            if (tr->ev[i].kind == KS_K_KERNEL)
                m[k][i] = (uint8_t)comm_rule(&c, (uint32_t)k, i);
    }
    /* the answers by name are kept too: the class memo reads them (workclass.c) */
    a->priv->comm_names = c.by_kernel;
    c.by_kernel = NULL;
    ks_comm_cache_free(&c);
    a->priv->comm = m;
}

void ks_comm_marks_free(ks_analysis *a)
{
    free(a->priv->comm_names);
    a->priv->comm_names = NULL;
    uint8_t **m = a->priv->comm;
    if (!m)
        return;
    for (size_t k = 0; k < a->trace->ntracks; k++)
        ks_big_free(m[k], a->trace->tracks[k].n);
    free(m);
    a->priv->comm = NULL;
}
