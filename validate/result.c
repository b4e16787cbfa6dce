/* validate/result.c: from measured samples to verdicts: per candidate arm, the comparison with
 * the baseline arm (validate parameters, Holm across the candidates of a workload), the output
 * check overriding the verdict, the cycle-space comparison when the arms ran at different SM
 * clocks, the warnings, and the exit status. */
#include "kinesift/validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "validate/validate_int.h"

const char *ks_check_result_name(ks_check_result r)
{
    switch (r) {
    case KS_CHECK_SAME_VARIANT: return "same-variant";
    case KS_CHECK_MATCH: return "match";
    case KS_CHECK_MISMATCH: return "mismatch";
    case KS_CHECK_NOT_PROVIDED: return "not-provided";
    case KS_CHECK_ERROR: return "error";
    }
    return "?";
}

void ks_vreport_init(ks_vreport *r, const ks_vopts *o, const ks_compare_params *p,
                     const char *timing)
{
    memset(r, 0, sizeof *r);
    r->opts = *o;
    r->params = *p;
    r->timing = timing;
}

static char **dup_strings(int n, const char *const *s)
{
    char **d = ks_xcalloc(n ? (size_t)n : 1, sizeof *d);
    for (int i = 0; i < n; i++)
        d[i] = ks_xstrdup(s[i]);
    return d;
}

ks_vworkload *ks_vreport_add(ks_vreport *r, const char *name, const char *source,
                             uint32_t narms, const char *const *arms, int nparams,
                             const char *const *params)
{
    r->w = ks_xrealloc(r->w, ks_mul(r->nw + 1, sizeof *r->w));
    ks_vworkload *w = &r->w[r->nw++];
    memset(w, 0, sizeof *w);
    w->name = ks_xstrdup(name);
    w->source = ks_xstrdup(source);
    w->narms = narms;
    w->arms = dup_strings((int)narms, arms);
    w->nparams = nparams;
    w->params = dup_strings(nparams, params);
    w->check = ks_xcalloc(narms, sizeof *w->check);
    w->cmp = ks_xcalloc(narms, sizeof *w->cmp);
    w->cycles = ks_xcalloc(narms, sizeof *w->cycles);
    w->has_cycles = ks_xcalloc(narms, sizeof *w->has_cycles);
    w->clock_mean_mhz = ks_xcalloc(narms, sizeof *w->clock_mean_mhz);
    w->host_ratio = ks_xcalloc(narms, sizeof *w->host_ratio);
    for (uint32_t a = 0; a < narms; a++)
        w->check[a].result = KS_CHECK_NOT_PROVIDED;
    w->nvml_before.other_processes = w->nvml_after.other_processes = -1;
    return w;
}

static void warn(ks_vworkload *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void warn(ks_vworkload *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    KS_PUSH(w->warnings, w->nwarnings, w->warnings_cap, ks_xstrdup(buf));
}

/* Mean SM clock of an arm's kept samples; NaN unless every one was measured. */
static double clock_mean(const ks_vrun *r, uint32_t arm)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const ks_vsample *s = &r->samples[i];
        if (s->arm != arm || s->status != KS_SAMPLE_KEPT)
            continue;
        if (isnan(s->sm_clock_mhz))
            return NAN;
        sum += s->sm_clock_mhz;
        n++;
    }
    return n ? sum / (double)n : NAN;
}

/* Median host wall time over median event time of an arm's kept samples. */
static double host_ratio(const ks_vrun *r, uint32_t arm)
{
    double *h = ks_xmalloc(ks_mul(r->nsamples ? r->nsamples : 1, sizeof *h));
    double *d = ks_xmalloc(ks_mul(r->nsamples ? r->nsamples : 1, sizeof *d));
    size_t n = 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const ks_vsample *s = &r->samples[i];
        if (s->arm == arm && s->status == KS_SAMPLE_KEPT && s->host_ns >= 0) {
            h[n] = (double)s->host_ns;
            d[n++] = (double)s->ns;
        }
    }
    double mh = ks_median(h, n), md = ks_median(d, n);
    free(h);
    free(d);
    return n && md > 0 ? mh / md : NAN;
}

/* Kept values of an arm in SM cycles per execution (ns x MHz / 1000). */
static double *cycle_values(const ks_vrun *r, uint32_t arm, size_t *n)
{
    double *v = ks_xmalloc(ks_mul(r->nsamples ? r->nsamples : 1, sizeof *v));
    size_t m = 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const ks_vsample *s = &r->samples[i];
        if (s->arm == arm && s->status == KS_SAMPLE_KEPT)
            v[m++] = (double)s->ns / (double)(s->k ? s->k : 1) * s->sm_clock_mhz / 1000.0;
    }
    *n = m;
    return v;
}

static void apply_check(ks_vworkload *w, uint32_t a)
{
    const ks_vcheck *base = &w->check[0], *ck = &w->check[a];
    ks_compare *c = &w->cmp[a - 1];
    if (base->result == KS_CHECK_MISMATCH || ck->result == KS_CHECK_MISMATCH) {
        ks_compare_set_different(c, ck->result == KS_CHECK_MISMATCH ? ck->detail
                                                                    : base->detail);
    } else if (base->result == KS_CHECK_ERROR || ck->result == KS_CHECK_ERROR) {
        c->verdict = KS_VERDICT_INCONCLUSIVE;
        snprintf(c->reason, sizeof c->reason, "the output check could not run: %s",
                 ck->result == KS_CHECK_ERROR ? ck->detail : base->detail);
        snprintf(c->suggestion, sizeof c->suggestion,
                 "fix the workload's check() before comparing speed");
    }
}

static void side_warnings(ks_vworkload *w, uint32_t a, const ks_summary *s, size_t throttled)
{
    if (s->noise)
        warn(w, "%s: %s samples (IQR/median %.1f %%)", w->arms[a],
             s->noise == KS_NOISE_VERY ? "very noisy" : "noisy", 100 * s->iqr_rel);
    if (throttled)
        warn(w, "%s: %zu samples discarded as throttled (SM clock under the throttle share of "
                "the rated clock); they are in the raw dump",
             w->arms[a], throttled);
    if (w->host_ratio[a] > 1.5)
        warn(w, "%s: the host wall time per sample is %.2f x the event time: work outside the "
                "timed stream (CPU-side or another stream) is not in the GPU timing",
             w->arms[a], w->host_ratio[a]);
}

/* The unit of comparison (docs/statistics.md section 8) is the interleaved block: a block holds
 * one sample of every arm (the device protocol; the per-arm median of a block is that sample)
 * or one run of every command (external commands; each run is its own process, and its median
 * is that of its kept samples). Fills len with the number of arm's kept samples in each block,
 * in the order taken (that of ks_vrun_values); returns the number of blocks with kept samples. */
static size_t block_lengths(const ks_vrun *r, uint32_t arm, size_t *len)
{
    size_t k = 0;
    uint32_t cur = 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const ks_vsample *s = &r->samples[i];
        if (s->arm != arm || s->status != KS_SAMPLE_KEPT)
            continue;
        if (!k || s->block != cur) {
            cur = s->block;
            len[k++] = 0;
        }
        len[k - 1]++;
    }
    return k;
}

/* Every candidate compared with the baseline, blocks as the runs, in one family (Holm across the
 * candidates, intervals at Holm-consistent levels): the code path of gate. Then, for the
 * candidates whose mean SM clock differs from the baseline's by more than 2 %, the same in SM
 * cycles (a family of those). */
static void compare_blocks(ks_vworkload *w, const ks_compare_params *p)
{
    uint32_t nc = w->narms - 1;
    size_t cap = w->run.nsamples + 1;
    ks_runs *runs = ks_xcalloc(w->narms, sizeof *runs), *cyc = ks_xcalloc(w->narms, sizeof *cyc);
    size_t **len = ks_xcalloc(w->narms, sizeof *len), *thr = ks_xcalloc(w->narms, sizeof *thr);
    ks_runs_pair *f = ks_xcalloc(nc ? nc : 1, sizeof *f);
    for (uint32_t a = 0; a < w->narms; a++) {
        size_t n;
        len[a] = ks_xmalloc(ks_mul(cap, sizeof **len));
        runs[a] = (ks_runs){ks_vrun_values(&w->run, a, &n, &thr[a]), len[a], block_lengths(&w->run, a, len[a])};
        cyc[a] = (ks_runs){cycle_values(&w->run, a, &n), len[a], runs[a].nruns};
    }
    for (uint32_t a = 1; a < w->narms; a++)
        f[a - 1] = (ks_runs_pair){runs[0], runs[a], 0, p, thr[0], thr[a], &w->cmp[a - 1]};
    ks_compare_runs_family(f, nc, p->alpha);
    size_t k = 0;
    for (uint32_t a = 1; a < w->narms; a++) {
        double ca = w->clock_mean_mhz[0], cb = w->clock_mean_mhz[a];
        if (isnan(ca) || isnan(cb) || fabs(cb / ca - 1) <= 0.02)
            continue;
        f[k++] = (ks_runs_pair){cyc[0], cyc[a], 0, p, thr[0], thr[a], &w->cycles[a - 1]};
        w->has_cycles[a - 1] = 1;
        warn(w, "%s ran at a mean SM clock of %.0f MHz, the baseline at %.0f MHz (%+.1f %%): the comparison is also "
                "made in SM cycles (cycle_space)", w->arms[a], cb, ca, 100 * (cb / ca - 1));
    }
    ks_compare_runs_family(f, k, p->alpha);
    for (uint32_t a = 0; a < w->narms; a++) {
        free((double *)runs[a].x);
        free((double *)cyc[a].x);
        free(len[a]);
    }
    free(runs);
    free(cyc);
    free(len);
    free(thr);
    free(f);
}

void ks_vworkload_compare(ks_vworkload *w, const ks_compare_params *p)
{
    for (size_t i = 0; i < w->nwarnings; i++) /* computed afresh */
        free(w->warnings[i]);
    w->nwarnings = 0;
    memset(w->has_cycles, 0, w->narms * sizeof *w->has_cycles);
    for (uint32_t a = 0; a < w->narms; a++) {
        w->clock_mean_mhz[a] = clock_mean(&w->run, a);
        w->host_ratio[a] = host_ratio(&w->run, a);
    }
    compare_blocks(w, p);
    for (uint32_t a = 1; a < w->narms; a++)
        apply_check(w, a);
    for (uint32_t a = 0; a < w->narms; a++) {
        size_t n, t;
        free(ks_vrun_values(&w->run, a, &n, &t));
        side_warnings(w, a, a == 0 ? &w->cmp[0].a : &w->cmp[a - 1].b, t);
    }
    for (uint32_t a = 0; a < w->narms && a < 32; a++)
        if (w->run.clock_unreliable >> a & 1)
            warn(w, "%s: most warm-up samples measured an SM clock under the throttle share of "
                    "the rated clock; taken as an unreliable estimate (SMs idle between the "
                    "stamps?), so no sample of it was marked throttled: check the NVML "
                    "clock-event reasons",
                 w->arms[a]);
    if (w->nvml_before.other_processes > 0 || w->nvml_after.other_processes > 0)
        warn(w, "other compute processes were running on the device (%d before, %d after): "
                "they compete for it",
             w->nvml_before.other_processes, w->nvml_after.other_processes);
}

int ks_vreport_exit_code(const ks_vreport *r)
{
    int finding = 0, inconclusive = 0;
    for (uint32_t i = 0; i < r->nw; i++) {
        const ks_vworkload *w = &r->w[i];
        for (uint32_t a = 0; a + 1 < w->narms; a++) {
            ks_verdict v = w->cmp[a].verdict;
            if (v == KS_VERDICT_SLOWER || v == KS_VERDICT_DIFFERENT_RESULTS)
                finding = 1;
            else if (v == KS_VERDICT_INCONCLUSIVE)
                inconclusive = 1;
            else if (r->expect_faster && v == KS_VERDICT_NO_CHANGE)
                finding = 1;
        }
    }
    return finding ? 1 : inconclusive ? 3 : 0;
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

void ks_vreport_free(ks_vreport *r)
{
    for (uint32_t i = 0; i < r->nw; i++) {
        ks_vworkload *w = &r->w[i];
        free(w->name);
        free(w->source);
        free_strings(w->arms, w->narms);
        free_strings(w->params, (size_t)w->nparams);
        free_strings(w->warnings, w->nwarnings);
        ks_vrun_free(&w->run);
        free(w->check);
        free(w->cmp);
        free(w->cycles);
        free(w->has_cycles);
        free(w->clock_mean_mhz);
        free(w->host_ratio);
    }
    free(r->w);
    memset(r, 0, sizeof *r);
}
