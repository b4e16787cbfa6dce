/* compare/diff.c: `kinesift diff`: two analysed traces side by side. Operators and labels are
 * aligned by (name, category), GPU work by (name, kind), kernel names optionally normalised
 * (diff_names.c) so that rows merged by normalisation add up. Each row keeps count, self,
 * inclusive and GPU time of both sides; rows are sorted by absolute impact. The active steps of
 * both sides are compared with the verdict statistics (kinesift/stats.h) and the Mann-Whitney U
 * test, and the capture settings with ks_settings_compare. When each side's window is its active
 * steps, every row also carries its per-step means; when the sides have different numbers of
 * steps, rows are compared per step (6 steps against 5 is not a 17 % drop of every kernel).
 * Step annotations (ProfilerStep#N) are no rows: their numbers differ from trace to trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"

const char *ks_diff_status_name(ks_diff_status s)
{
    switch (s) {
    case KS_DIFF_CHANGED: return "changed";
    case KS_DIFF_ADDED: return "added";
    case KS_DIFF_REMOVED: return "removed";
    case KS_DIFF_SAME: break;
    }
    return "same";
}

void ks_diff_opts_init(ks_diff_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_compare_params_gate(&o->params);
}

/* One side's row before alignment. */
typedef struct item {
    char *name;
    const char *cat;
    ks_diff_side s;
} item;

static int cmp_item(const void *x, const void *y)
{
    const item *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->cat, b->cat);
}

/* "ProfilerStep#N": the step annotation, whose number differs from trace to trace: the steps are
 * compared as steps (ks_diff_steps), not as rows */
static int step_row(const char *name)
{
    static const char p[] = "ProfilerStep#";
    if (strncmp(name, p, sizeof p - 1))
        return 0;
    name += sizeof p - 1;
    if (!*name)
        return 0;
    while (*name >= '0' && *name <= '9')
        name++;
    return !*name;
}

static size_t collect_ops(const ks_analysis *a, const ks_op_row *rows, size_t n, item **out, size_t *steps)
{
    item *v = ks_xcalloc(n ? n : 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const ks_op_row *r = &rows[i];
        const char *name = ks_trace_str(a->trace, r->name);
        if (step_row(name)) {
            (*steps)++;
            continue;
        }
        v[k].name = ks_xstrdup(name);
        v[k].cat = ks_trace_cat_name(a->trace, r->cat);
        v[k].s = (ks_diff_side){1, r->count, r->self_ns, r->incl_ns, ks_op_row_gpu(r).subtree_ns, ks_op_row_gpu(r).direct_ns, 1};
        k++;
    }
    *out = v;
    return k;
}

static size_t collect_kernels(const ks_analysis *a, int normalize, item **out)
{
    size_t n = a->nkernels;
    item *v = ks_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const ks_kernel_row *r = &a->kernels[i];
        const char *nm = ks_trace_str(a->trace, r->name);
        v[i].name = normalize && r->kind == KS_K_KERNEL ? ks_kernel_name_normalize(nm) : ks_xstrdup(nm);
        v[i].cat = ks_kind_name((ks_kind)r->kind);
        v[i].s = (ks_diff_side){1, r->count, 0, r->total_ns, r->total_ns, r->total_ns, 1};
    }
    *out = v;
    return n;
}

/* Sort, then fold rows with the same key (names merged by normalisation) into one. */
static size_t fold(item *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_item);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o && cmp_item(&v[o - 1], &v[i]) == 0) {
            ks_diff_side *d = &v[o - 1].s;
            d->count += v[i].s.count;
            d->self_ns = ks_sat_add(d->self_ns, v[i].s.self_ns);
            d->incl_ns = ks_sat_add(d->incl_ns, v[i].s.incl_ns);
            d->gpu_ns = ks_sat_add(d->gpu_ns, v[i].s.gpu_ns);
            d->gpu_self_ns = ks_sat_add(d->gpu_self_ns, v[i].s.gpu_self_ns);
            d->names += v[i].s.names;
            free(v[i].name);
            continue;
        }
        v[o++] = v[i];
    }
    return o;
}

static ks_ns absdiff(ks_ns x, ks_ns y)
{
    return x > y ? x - y : y - x;
}

enum { T_OPS, T_LABELS, T_KERNELS };

static ks_ns impact(int table, const ks_diff_side *b, const ks_diff_side *a)
{
    if (table == T_OPS)
        return absdiff(a->self_ns, b->self_ns) + absdiff(a->gpu_self_ns, b->gpu_self_ns);
    if (table == T_LABELS) {
        ks_ns i = absdiff(a->incl_ns, b->incl_ns), g = absdiff(a->gpu_ns, b->gpu_ns);
        return i > g ? i : g;
    }
    return absdiff(a->incl_ns, b->incl_ns);
}

static ks_diff_status status_of(const ks_diff_side *b, const ks_diff_side *a)
{
    if (!b->present)
        return KS_DIFF_ADDED;
    if (!a->present)
        return KS_DIFF_REMOVED;
    if (b->count == a->count && b->self_ns == a->self_ns && b->incl_ns == a->incl_ns && b->gpu_ns == a->gpu_ns &&
        b->gpu_self_ns == a->gpu_self_ns)
        return KS_DIFF_SAME;
    return KS_DIFF_CHANGED;
}

static int cmp_row(const void *x, const void *y)
{
    const ks_diff_row *a = x, *b = y;
    if (a->impact_ns != b->impact_ns)
        return a->impact_ns < b->impact_ns ? 1 : -1;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->cat, b->cat);
}

static void push_row(ks_diff_table *t, size_t *cap, int table, const item *b, const item *a)
{
    static const ks_diff_side none;
    KS_GROW(t->v, *cap, t->n + 1);
    ks_diff_row *r = &t->v[t->n++];
    memset(r, 0, sizeof *r); /* per_step stays undefined unless both sides have a step window */
    const item *any = b ? b : a;
    r->name = ks_xstrdup(any->name);
    r->cat = ks_xstrdup(any->cat);
    r->before = b ? b->s : none;
    r->after = a ? a->s : none;
    r->impact_ns = impact(table, &r->before, &r->after);
    r->status = status_of(&r->before, &r->after);
    t->added += r->status == KS_DIFF_ADDED;
    t->removed += r->status == KS_DIFF_REMOVED;
    t->changed += r->status == KS_DIFF_CHANGED;
}

/* Merge-join the two sorted sides into t, then sort by impact. Frees both item arrays. */
static void align(int table, item *b, size_t nb, item *a, size_t na, ks_diff_table *t)
{
    nb = fold(b, nb);
    na = fold(a, na);
    size_t cap = 0, i = 0, j = 0;
    memset(t, 0, sizeof *t);
    while (i < nb || j < na) {
        int c = i >= nb ? 1 : j >= na ? -1 : cmp_item(&b[i], &a[j]);
        if (c == 0)
            push_row(t, &cap, table, &b[i++], &a[j++]);
        else if (c < 0)
            push_row(t, &cap, table, &b[i++], NULL);
        else
            push_row(t, &cap, table, NULL, &a[j++]);
    }
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, cmp_row);
    for (i = 0; i < nb; i++)
        free(b[i].name);
    for (j = 0; j < na; j++)
        free(a[j].name);
    free(b);
    free(a);
}

/* ---- per step ------------------------------------------------------------------------------ */

/* 1 when the analysis window is exactly the active steps (first start to last end), *n of them */
static int step_window(const ks_analysis *a, const ks_steps *st, size_t *n)
{
    ks_ns first = 0, last = 0;
    *n = 0;
    for (size_t i = 0; st && i < st->n; i++) {
        const ks_step *s = &st->v[i];
        if (s->warmup || s->unfinished)
            continue;
        if (!*n || s->start < first)
            first = s->start;
        if (!*n || s->end > last)
            last = s->end;
        (*n)++;
    }
    return *n && a->win_start == first && a->win_end >= last && a->win_end <= ks_sat_add(last, 1);
}

/* a side divided by its steps, rounded to the ns (the ranking's per-step figures) */
static ks_diff_side per_step_side(const ks_diff_side *s, size_t n)
{
    ks_diff_side r = *s;
    double d = (double)n;
    r.self_ns = llround((double)s->self_ns / d);
    r.incl_ns = llround((double)s->incl_ns / d);
    r.gpu_ns = llround((double)s->gpu_ns / d);
    r.gpu_self_ns = llround((double)s->gpu_self_ns / d);
    return r;
}

/* the per-step means of every row; with by_step, status and impact from them, and the table
 * sorted again */
static void per_step_rows(int table, ks_diff_table *t, size_t nb, size_t na, int by_step)
{
    if (by_step)
        t->changed = t->added = t->removed = 0;
    for (size_t i = 0; i < t->n; i++) {
        ks_diff_row *r = &t->v[i];
        ks_diff_per_step *p = &r->per_step;
        ks_ns tb = table == T_OPS ? r->before.self_ns : r->before.incl_ns;
        ks_ns ta = table == T_OPS ? r->after.self_ns : r->after.incl_ns;
        p->defined = 1;
        p->count_before = r->before.present ? (double)r->before.count / (double)nb : 0;
        p->count_after = r->after.present ? (double)r->after.count / (double)na : 0;
        p->ns_before = r->before.present ? (double)tb / (double)nb : 0;
        p->ns_after = r->after.present ? (double)ta / (double)na : 0;
        p->delta_pct = r->before.present && r->after.present && tb > 0
                           ? 100.0 * (p->ns_after - p->ns_before) / p->ns_before
                           : NAN;
        if (!by_step)
            continue;
        ks_diff_side b = per_step_side(&r->before, nb), a = per_step_side(&r->after, na);
        r->impact_ns = impact(table, &b, &a);
        r->status = status_of(&b, &a);
        /* counts compared exactly: count_b / nb == count_a / na */
        if (r->status == KS_DIFF_SAME && r->before.count * (uint64_t)na != r->after.count * (uint64_t)nb)
            r->status = KS_DIFF_CHANGED;
        if (r->status == KS_DIFF_CHANGED && r->before.count * (uint64_t)na == r->after.count * (uint64_t)nb &&
            b.self_ns == a.self_ns && b.incl_ns == a.incl_ns && b.gpu_ns == a.gpu_ns && b.gpu_self_ns == a.gpu_self_ns)
            r->status = KS_DIFF_SAME;
        t->added += r->status == KS_DIFF_ADDED;
        t->removed += r->status == KS_DIFF_REMOVED;
        t->changed += r->status == KS_DIFF_CHANGED;
    }
    if (by_step && t->n)
        qsort(t->v, t->n, sizeof *t->v, cmp_row);
}

/* The active steps (neither warm-up nor unfinished) as doubles. */
static double *active_walls(const ks_steps *s, size_t *n, size_t *warm, size_t *unfinished)
{
    double *v = ks_xmalloc(ks_mul(s && s->n ? s->n : 1, sizeof *v));
    *n = *warm = *unfinished = 0;
    for (size_t i = 0; s && i < s->n; i++) {
        if (s->v[i].warmup)
            (*warm)++;
        else if (s->v[i].unfinished)
            (*unfinished)++;
        else
            v[(*n)++] = (double)s->v[i].wall_ns;
    }
    return v;
}

static void diff_steps(const ks_steps *sb, const ks_steps *sa, const ks_compare_params *p, ks_diff_steps *d)
{
    d->before = active_walls(sb, &d->nbefore, &d->warmup_before, &d->unfinished_before);
    d->after = active_walls(sa, &d->nafter, &d->warmup_after, &d->unfinished_after);
    snprintf(d->source_before, sizeof d->source_before, "%s", sb ? sb->source : "none");
    snprintf(d->source_after, sizeof d->source_after, "%s", sa ? sa->source : "none");
    /* one trace per side is one run per side: the gate's rule for that case (statistics.md
     * section 8), so that diff's reference verdict is the one gate would give */
    size_t lb = d->nbefore, la = d->nafter;
    ks_runs rb = {d->before, &lb, 1}, ra = {d->after, &la, 1};
    ks_compare_runs(&rb, &ra, 0, 1 - p->alpha, p, &d->cmp);
    /* the rank test beside the bootstrap: its U (and z) in the comparison, its own p apart */
    if (!ks_mwu_test(d->before, d->nbefore, d->after, d->nafter, &d->mwu)) {
        d->cmp.mwu.u_a = d->mwu.u_a;
        d->cmp.mwu.u_b = d->mwu.u_b;
        d->cmp.mwu.z = d->mwu.z;
        d->cmp.mwu.exact = d->mwu.exact;
        d->cmp.mwu.ties = d->mwu.ties;
    } else {
        d->mwu.u_a = d->mwu.u_b = d->mwu.z = d->mwu.p = NAN;
    }
}

int ks_diff_build(const ks_analysis *before, const ks_steps *sbefore, const ks_analysis *after,
                  const ks_steps *safter, const ks_diff_opts *o, ks_diff *d, ks_error *err)
{
    (void)err;
    memset(d, 0, sizeof *d);
    if (o)
        d->opts = *o;
    else
        ks_diff_opts_init(&d->opts);
    d->before_source = ks_xstrdup(before->trace->source ? before->trace->source : "-");
    d->after_source = ks_xstrdup(after->trace->source ? after->trace->source : "-");
    d->before_window_ns = before->window_ns;
    d->after_window_ns = after->window_ns;
    item *b, *a;
    size_t steps = 0;
    size_t nb = collect_ops(before, before->ops, before->nops, &b, &steps);
    size_t na = collect_ops(after, after->ops, after->nops, &a, &steps);
    align(T_OPS, b, nb, a, na, &d->ops);
    nb = collect_ops(before, before->labels, before->nlabels, &b, &steps);
    na = collect_ops(after, after->labels, after->nlabels, &a, &steps);
    align(T_LABELS, b, nb, a, na, &d->labels);
    nb = collect_kernels(before, d->opts.normalize_kernels, &b);
    na = collect_kernels(after, d->opts.normalize_kernels, &a);
    align(T_KERNELS, b, nb, a, na, &d->kernels);
    d->step_rows = steps;
    int wb = step_window(before, sbefore, &d->steps_before), wa = step_window(after, safter, &d->steps_after);
    d->per_step = wb && wa;
    d->by_step = d->per_step && d->steps_before != d->steps_after;
    if (d->per_step) {
        per_step_rows(T_OPS, &d->ops, d->steps_before, d->steps_after, d->by_step);
        per_step_rows(T_LABELS, &d->labels, d->steps_before, d->steps_after, d->by_step);
        per_step_rows(T_KERNELS, &d->kernels, d->steps_before, d->steps_after, d->by_step);
    }
    diff_steps(sbefore, safter, &d->opts.params, &d->steps);
    ks_settings_read(before->trace, &d->before_settings);
    ks_settings_read(after->trace, &d->after_settings);
    d->nmismatch = ks_settings_compare(&d->before_settings, &d->after_settings, d->mismatch);
    return KS_OK;
}

static void table_free(ks_diff_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].name);
        free(t->v[i].cat);
    }
    free(t->v);
    memset(t, 0, sizeof *t);
}

void ks_diff_free(ks_diff *d)
{
    if (!d)
        return;
    table_free(&d->ops);
    table_free(&d->labels);
    table_free(&d->kernels);
    free(d->steps.before);
    free(d->steps.after);
    free(d->before_source);
    free(d->after_source);
    memset(d, 0, sizeof *d);
}
