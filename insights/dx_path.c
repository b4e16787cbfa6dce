/* insights/dx_path.c: a diagnosis's impact from the critical path. The item a diagnosis is about
 * (the idle time after its syncs on the syncing thread, the data-loading gaps on the launching
 * thread, a kernel's GPU time...) is given as intervals, each on one track or on any; its time on
 * the critical path of the steps inside the denominator's scope (the union of the path's pieces
 * there that lie in the item, on its track, of the kinds asked for) is the most that removing the
 * item can save as the trace shows it. It replaces the heuristic bound when the path covers the
 * whole scope (impact_source "critical_path"), and never exceeds it; otherwise the heuristic
 * bound stays (impact_source "heuristic"). The pieces are counted as a union, so steps whose
 * widened ends overlap never count the same time twice. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/msort.h"
#include "common/util.h"
#include "insights/diagnose_int.h"
#include "insights/insights_int.h"
#include "kinesift/critpath.h"

const char *const ks_dx_source_path = "critical_path";
const char *const ks_dx_source_heuristic = "heuristic";

void ks_dx_path_init(ks_dx_ctx *c, const struct ks_critpath *cp)
{
    c->cp = cp;
    c->cp_ok = 0;
    c->cp_steps = NULL;
    c->cp_nsteps = 0;
    if (!cp || !cp->n || c->denom <= 0)
        return;
    c->cp_steps = ks_xmalloc(cp->n * sizeof *c->cp_steps);
    /* the steps of the scope: the active ones when the scope is the active steps (the path of
     * step i is cp->v[i]), else all */
    int by_active = c->st && c->st->nactive;
    if (by_active && cp->n != c->st->n)
        return; /* not one path per step: the heuristic bounds stay */
    for (size_t i = 0; i < cp->n; i++) {
        const ks_step *sp = by_active ? &c->st->v[i] : NULL;
        if (!sp || (!sp->warmup && !sp->unfinished && sp->number == cp->v[i].number))
            c->cp_steps[c->cp_nsteps++] = i;
    }
    /* the path must cover the whole scope, else the heuristic bound stays; each step's pieces
     * tile its [start, end) (a law of kinesift/critpath.h), so the steps' union is the pieces' */
    ks_ivs all = {0}, in = {0};
    for (size_t j = 0; j < c->cp_nsteps; j++) {
        const ks_cp_step *s = &cp->v[c->cp_steps[j]];
        if (s->n)
            ks_ivs_add(&all, s->start, s->end);
    }
    ks_ivs_normalize(&all);
    ks_ivs_intersect(&all, &c->scope, &in);
    c->cp_ok = ks_ivs_length(&in) == c->denom;
    ks_ivs_free(&all);
    ks_ivs_free(&in);
}

void ks_dx_path_free(ks_dx_ctx *c)
{
    free(c->cp_steps);
    c->cp_steps = NULL;
    c->cp_nsteps = 0;
}

void ks_dx_item_add(ks_dx_item *it, ks_ns a, ks_ns b, uint32_t track)
{
    if (b <= a)
        return;
    ks_dx_item_iv v = {a, b, track};
    KS_PUSH(it->v, it->n, it->cap, v);
}


/* an item's normalized intervals on one track (UINT32_MAX: any), and where the last piece looked
 * at them (the pieces of a step come in time order: the next one starts at or after it) */
typedef struct group {
    uint32_t track;
    ks_ivs iv;
    size_t at;
} group;

/* [a, b) of a piece against the group's intervals: the overlaps into acc */
static void overlap_into(group *g, ks_ns a, ks_ns b, ks_ivs *acc)
{
    const ks_ivs *item = &g->iv;
    size_t i = g->at;
    if (i <= item->n && (!i || item->v[i - 1].b <= a)) {
        /* the first interval ending after a is at or after the last one found: a few steps on */
        for (size_t step = 1; i < item->n && item->v[i].b <= a; step *= 2) {
            size_t j = i + step < item->n ? i + step : item->n;
            if (item->v[j - 1].b <= a) {
                i = j;
                continue;
            }
            size_t lo = i, hi = j;
            KS_LOWER_BOUND(lo, hi, mid, item->v[mid].b <= a);
            i = lo;
            break;
        }
    } else {
        i = ks_ivs_first_ending_after(item, a);
    }
    g->at = i;
    for (; i < item->n && item->v[i].a < b; i++) {
        ks_ns x = item->v[i].a > a ? item->v[i].a : a, y = item->v[i].b < b ? item->v[i].b : b;
        ks_ivs_add_merge(acc, x, y); /* (the pieces tile their steps: most overlaps touch the last) */
    }
}

/* a piece of a kind (and name) the item asks for */
static int wanted(const ks_dx_item *it, unsigned mask, const ks_cp_piece *p)
{
    return (mask & (1u << p->kind)) && (!it->name || p->name == it->name);
}

static inline int iv_before(const ks_dx_item_iv *p, const ks_dx_item_iv *q)
{
    return p->track != q->track ? p->track < q->track : p->a < q->a;
}

/* an item's intervals by track, then start (gathered track by track, mostly: few runs) */
KS_MSORT_DEFINE(sort_ivs, ks_dx_item_iv, iv_before)

/* The pieces of the scope's steps are read as the path keeps them (no copy, no sort): each one
 * of a kind asked for is laid against the item's intervals on its track and on any; the overlaps
 * are united, so the order in which they are found does not change the time. */
ks_ns ks_dx_item_on_path(const ks_dx_ctx *c, ks_dx_item *it)
{
    if (!c->cp_ok || !it->n)
        return 0;
    sort_ivs(it->v, it->n);
    unsigned mask = it->kinds ? it->kinds : ~0u;
    /* the item's intervals per track, by track (UINT32_MAX, any, last) */
    group *gr = NULL;
    size_t ng = 0, cg = 0;
    for (size_t i = 0; i < it->n;) {
        group g = {it->v[i].track, {0}, 0};
        size_t i0 = i;
        for (; i < it->n && it->v[i].track == g.track; i++)
            ;
        ks_ivs_reserve(&g.iv, i - i0);
        for (size_t k = i0; k < i; k++)
            ks_ivs_add(&g.iv, it->v[k].a, it->v[k].b);
        ks_ivs_normalize(&g.iv);
        KS_PUSH(gr, ng, cg, g);
    }
    group *any = ng && gr[ng - 1].track == UINT32_MAX ? &gr[ng - 1] : NULL;
    size_t nby = any ? ng - 1 : ng; /* the groups of one track */
    /* acc sized once: a big ks_ivs that grows maps fresh huge pages at each step */
    ks_ivs acc = {0}, both = {0};
    ks_ivs_reserve(&acc, 2 * it->n + 64);
    const ks_critpath *cp = c->cp;
    for (size_t j = 0; j < c->cp_nsteps; j++) {
        const ks_cp_step *s = &cp->v[c->cp_steps[j]];
        ks_cp_cursor cu = ks_cp_cursor_of(cp, s);
        ks_cp_piece p;
        while (ks_cp_next(&cu, &p)) {
            if (!wanted(it, mask, &p))
                continue;
            if (any)
                overlap_into(any, p.a, p.b, &acc);
            size_t lo = 0, hi = nby;
            KS_LOWER_BOUND(lo, hi, mid, gr[mid].track < p.track);
            if (lo < nby && gr[lo].track == p.track)
                overlap_into(&gr[lo], p.a, p.b, &acc);
        }
    }
    ks_ivs_normalize(&acc);
    ks_ivs_intersect(&acc, &c->scope, &both);
    ks_ns t = ks_ivs_length(&both);
    ks_ivs_free(&acc);
    ks_ivs_free(&both);
    for (size_t g = 0; g < ng; g++)
        ks_ivs_free(&gr[g].iv);
    free(gr);
    return t;
}

void ks_dx_on_path(const ks_dx_ctx *c, ks_diagnosis *x, ks_dx_item *it)
{
    if (x && x->impact_ns >= 0 && c->cp_ok) {
        ks_ns t = ks_dx_item_on_path(c, it);
        x->impact_heuristic_ns = x->impact_ns;
        x->impact_ns = t < x->impact_ns ? t : x->impact_ns;
        x->impact_source = ks_dx_source_path;
        char b1[32], b2[32];
        ks_fmt_ns(b1, sizeof b1, x->impact_ns);
        ks_fmt_ns(b2, sizeof b2, x->impact_heuristic_ns);
        const char *old = x->evidence ? x->evidence : "";
        size_t n = strlen(old) + strlen(c->denom_name) + 160;
        char *ev = ks_xmalloc(n);
        snprintf(ev, n, "%s On the critical path of the %s: %s (the bound claimed; %s without the path).", old,
                 c->denom_name, b1, b2);
        free(x->evidence);
        x->evidence = ev;
    }
    free(it->v);
    memset(it, 0, sizeof *it);
}
