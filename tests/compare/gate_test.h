/* tests/compare/gate_test.h: synthetic gate inputs for the cmocka tests: profiles filled with
 * seeded normal samples, as ks_profile_build would leave them. */
#ifndef KS_GATE_TEST_H
#define KS_GATE_TEST_H

#include "ks_test.h"

#include "kinesift/compare.h"

/* n samples of mean * (1 + cv * N(0,1)) into a new array. */
static inline double *gt_samples(ks_rng *r, size_t n, double mean, double cv)
{
    double *v = ks_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = mean * (1 + cv * ks_rng_normal(r));
    return v;
}

/* A trace profile of n steps: step time 100 ms (CV cv, times factor), GPU idle 10 points,
 * 50 kernels per step. */
static inline void gt_profile(ks_profile *p, const char *source, ks_rng *r, size_t n, double factor, double cv)
{
    memset(p, 0, sizeof *p);
    p->source = ks_xstrdup(source);
    p->n = p->nsteps = n;
    snprintf(p->steps_source, sizeof p->steps_source, "ProfilerStep#N");
    p->step_numbers = ks_xcalloc(n ? n : 1, sizeof *p->step_numbers);
    p->step_time = gt_samples(r, n, 100e6 * factor, cv);
    p->gpu_idle = gt_samples(r, n, 10, cv);
    p->launches = ks_xcalloc(n ? n : 1, sizeof *p->launches);
    for (size_t i = 0; i < n; i++)
        p->launches[i] = 50;
    p->settings.gpu_activity = p->settings.runtime_activity = 1;
}

static inline ks_sample_series *gt_series(ks_profile *p, ks_metric m, const char *name, ks_rng *r, double mean,
                                          double cv)
{
    KS_GROW(p->series, p->cap, p->nseries + 1);
    ks_sample_series *s = &p->series[p->nseries++];
    memset(s, 0, sizeof *s);
    s->metric = m;
    s->name = ks_xstrdup(name);
    s->n = p->n;
    s->v = gt_samples(r, p->n, mean, cv);
    return s;
}

#endif
