/* insights/dx_common.c: what every diagnosis check shares (insights/diagnose_int.h): a new
 * diagnosis of a kind, its confidence from its impact, a share that names its denominator, its
 * steps, and whether a time lies in the denominator's scope. In a file of their own so that the
 * checks of other files (diag_memory.c, diag_kernels.c) call them without depending on
 * diagnose.c, which calls them. */
#include "insights/diagnose_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/util.h"
#include "kinesift/insights.h"

ks_diagnosis *ks_dx_add(ks_diagnoses *d, const ks_dx_kind *k, const char *confidence, ks_ns impact)
{
    d->v = ks_xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    ks_diagnosis *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    x->id = k->id;
    x->confidence = confidence;
    x->impact_basis = k->basis;
    x->impact_ns = k->caveat ? -1 : impact < 0 ? 0 : impact;
    x->impact_heuristic_ns = x->impact_ns;
    x->impact_source = k->caveat ? NULL : ks_dx_source_heuristic;
    return x;
}

const char *ks_dx_confidence(const ks_dx_ctx *c, ks_ns impact)
{
    return ks_mul_ge(impact, 10, c->denom, 1) ? "high" : ks_mul_ge(impact, 100, c->denom, 3) ? "medium" : "low";
}

const char *ks_dx_share(char *b, size_t n, const ks_dx_ctx *c, ks_ns v)
{
    char d[32];
    ks_fmt_ns(d, sizeof d, c->denom);
    if (c->denom > 0)
        snprintf(b, n, "%.1f%% of the %s (%s)", 100.0 * (double)v / (double)c->denom, c->denom_name, d);
    else /* a share of nothing is not observed, as everywhere in the reports */
        snprintf(b, n, "n/a of the %s (%s)", c->denom_name, d);
    return b;
}

void ks_dx_add_step(ks_diagnosis *x, int64_t number)
{
    for (size_t i = 0; i < x->nsteps; i++)
        if (x->steps[i] == number)
            return;
    x->steps = ks_xrealloc(x->steps, (x->nsteps + 1) * sizeof *x->steps);
    x->steps[x->nsteps++] = number;
}

int ks_dx_in_scope(const ks_dx_ctx *c, ks_ns t)
{
    size_t i = ks_ivs_first_ending_after(&c->scope, t);
    return i < c->scope.n && c->scope.v[i].a <= t;
}
