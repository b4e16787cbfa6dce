/* validate/protocol.c: the measurement protocol of `validate` (docs/validate.md, after
 * ../shared/docs/statistics.md section 1) over any sampling backend: the first execution of
 * each arm discarded; warm-up of at least 3 runs and 100 ms per arm (time criterion capped at
 * 2 s); batch size K when a single execution is shorter than 20 us; then seeded randomised
 * blocks (each block one sample of every arm, shuffled) until the target, the noise criterion,
 * the time budget or the cap; samples under 75 % of the rated SM clock are marked throttled,
 * kept in the raw dump and followed by a pause. */
#include "kinesift/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "validate/validate_int.h"

void ks_vopts_init(ks_vopts *o)
{
    memset(o, 0, sizeof *o);
    o->samples = 30;
    o->min_samples = 10;
    o->max_samples = 1000;
    o->warmup_runs = 3;
    o->warmup_ns = 100 * INT64_C(1000000);
    o->warmup_cap_ns = 2 * INT64_C(1000000000);
    o->timeout_ns = 15 * INT64_C(1000000000);
    o->stdrel = 0.005;
    o->stdrel_min_ns = 500 * INT64_C(1000000);
    o->batch_below_ns = 20000;
    o->batch_target_ns = 1000000;
    o->throttle_share = 0.75;
    o->throttle_pause_ns = 50 * INT64_C(1000000);
    o->seed = KS_STATS_DEFAULT_SEED;
    o->min_runs = 3;
    o->max_runs = 100;
}

const char *ks_sample_status_name(ks_sample_status s)
{
    switch (s) {
    case KS_SAMPLE_KEPT: return "kept";
    case KS_SAMPLE_FIRST: return "first";
    case KS_SAMPLE_WARMUP: return "warmup";
    case KS_SAMPLE_THROTTLED: return "throttled";
    }
    return "?";
}

void ks_vrun_push(ks_vrun *r, const ks_vsample *s)
{
    KS_PUSH(r->samples, r->nsamples, r->cap, *s);
}

void ks_vrun_free(ks_vrun *r)
{
    free(r->samples);
    memset(r, 0, sizeof *r);
}

double *ks_vrun_values(const ks_vrun *r, uint32_t arm, size_t *n, size_t *throttled)
{
    double *v = ks_xmalloc(ks_mul(r->nsamples ? r->nsamples : 1, sizeof *v));
    size_t m = 0, t = 0;
    for (size_t i = 0; i < r->nsamples; i++) {
        const ks_vsample *s = &r->samples[i];
        if (s->arm != arm)
            continue;
        if (s->status == KS_SAMPLE_KEPT)
            v[m++] = (double)s->ns / (double)(s->k ? s->k : 1);
        else if (s->status == KS_SAMPLE_THROTTLED)
            t++;
    }
    *n = m;
    if (throttled)
        *throttled = t;
    return v;
}

/* Per-arm bookkeeping of the protocol. */
typedef struct arm_state {
    uint32_t warm_runs;
    int64_t warm_ns;
    uint32_t kept;
    uint32_t taken;      /* kept + throttled */
    int64_t kept_ns;     /* measured time of the kept samples */
    int64_t spent_ns;    /* wall time spent sampling (the budget) */
    double sum, sumsq;   /* of kept per-execution values, for the noise criterion */
} arm_state;

typedef struct proto {
    const ks_vopts *o;
    const ks_vbackend *b;
    ks_vrun *out;
    ks_error *err;
    uint32_t narms;
    arm_state *arm;
    int64_t pause_ns;    /* the next throttle pause */
} proto;

static int take(proto *p, uint32_t arm, uint32_t k, uint32_t block, ks_sample_status status,
                ks_vsample *s)
{
    memset(s, 0, sizeof *s);
    s->sm_clock_mhz = NAN;
    s->host_ns = -1;
    int64_t t0 = p->b->now(p->b->ctx);
    if (p->b->sample(p->b->ctx, arm, k, s, p->err) != KS_OK)
        return KS_ERR;
    p->arm[arm].spent_ns += p->b->now(p->b->ctx) - t0;
    s->arm = arm;
    s->k = k;
    s->block = block;
    s->status = status;
    if (s->ns < 0)
        return ks_error_set(p->err, "a sample of arm %u is negative (%lld ns)", arm,
                            (long long)s->ns);
    return KS_OK;
}

static int under_share(const proto *p, const ks_vsample *s)
{
    return p->b->rated_clock_mhz > 0 && !isnan(s->sm_clock_mhz) &&
           s->sm_clock_mhz < p->o->throttle_share * p->b->rated_clock_mhz;
}

static int is_throttled(const proto *p, const ks_vsample *s)
{
    return s->arm < 32 && !(p->out->clock_unreliable >> s->arm & 1) && under_share(p, s);
}

/* An arm whose warm-up clocks were mostly under the share (at least 3 measured): its clock
 * estimate is not trusted for throttle marks. */
static void judge_clocks(proto *p)
{
    for (uint32_t a = 0; a < p->narms && a < 32; a++) {
        size_t measured = 0, under = 0;
        for (size_t i = 0; i < p->out->nsamples; i++) {
            const ks_vsample *s = &p->out->samples[i];
            if (s->arm != a || s->status != KS_SAMPLE_WARMUP || isnan(s->sm_clock_mhz))
                continue;
            measured++;
            under += under_share(p, s);
        }
        if (measured >= 3 && 2 * under > measured)
            p->out->clock_unreliable |= UINT32_C(1) << a;
    }
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Median single-execution time (ns / k) of an arm's warm-up samples; 0 when none. */
static int64_t warmup_median(const ks_vrun *r, uint32_t arm)
{
    int64_t *v = ks_xmalloc(ks_mul(r->nsamples ? r->nsamples : 1, sizeof *v));
    size_t n = 0;
    for (size_t i = 0; i < r->nsamples; i++)
        if (r->samples[i].arm == arm && r->samples[i].status == KS_SAMPLE_WARMUP)
            v[n++] = r->samples[i].ns / (r->samples[i].k ? r->samples[i].k : 1);
    int64_t m = 0;
    if (n) {
        qsort(v, n, sizeof *v, cmp_i64);
        m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    free(v);
    return m;
}

/* Executions per sample so that a sample of executions of `median` ns lasts the target. */
static uint32_t batch_for(const ks_vopts *o, int64_t median)
{
    if (median >= o->batch_below_ns)
        return 1;
    if (median < 1)
        median = 1;
    int64_t k = (o->batch_target_ns + median - 1) / median;
    return (uint32_t)(k > 1000000 ? 1000000 : k);
}

/* Discard the first execution of each arm, then warm up round-robin: at least warmup_runs
 * executions and warmup_ns of them. Once an arm has had warmup_runs single executions, its
 * further warm-up samples are batched like the measurement will be, so that 100 ms of 2 us
 * kernels do not take 50 000 samples. */
static int warm_up(proto *p)
{
    ks_vsample s;
    for (uint32_t a = 0; a < p->narms; a++) {
        if (take(p, a, 1, 0, KS_SAMPLE_FIRST, &s) != KS_OK)
            return KS_ERR;
        ks_vrun_push(p->out, &s);
    }
    for (;;) {
        int more = 0;
        for (uint32_t a = 0; a < p->narms; a++) {
            arm_state *st = &p->arm[a];
            int need_runs = st->warm_runs < p->o->warmup_runs;
            int need_time = st->warm_ns < p->o->warmup_ns && st->warm_ns < p->o->warmup_cap_ns;
            if (!need_runs && !need_time)
                continue;
            more = 1;
            int64_t med = need_runs ? 0 : warmup_median(p->out, a);
            uint32_t k = med > 0 ? batch_for(p->o, med) : 1;
            if (take(p, a, k, 0, KS_SAMPLE_WARMUP, &s) != KS_OK)
                return KS_ERR;
            st->warm_runs += k;
            st->warm_ns += s.ns;
            ks_vrun_push(p->out, &s);
        }
        if (!more)
            return KS_OK;
    }
}

/* K: fixed, or chosen from the fastest arm so that a sample lasts >= batch_target. */
static uint32_t choose_batch(proto *p)
{
    if (p->o->batch)
        return p->o->batch;
    int64_t fastest = INT64_MAX;
    for (uint32_t a = 0; a < p->narms; a++) {
        int64_t m = warmup_median(p->out, a);
        if (m > 0 && m < fastest) /* 0: no warm-up (--warmup-runs 0 --warmup-ms 0) */
            fastest = m;
    }
    return fastest == INT64_MAX ? 1 : batch_for(p->o, fastest);
}

/* Relative stdev of an arm's kept values. */
static double stdrel(const arm_state *st)
{
    if (st->kept < 2)
        return INFINITY;
    double n = st->kept, mean = st->sum / n;
    double var = (st->sumsq - n * mean * mean) / (n - 1);
    return mean > 0 ? sqrt(var > 0 ? var : 0) / mean : INFINITY;
}

/* Decide after a block whether to stop (stop.c's rules); sets out->stop. */
static int should_stop(proto *p)
{
    const ks_vopts *o = p->o;
    ks_vstop_tally t = {.narms = p->narms, .least = UINT32_MAX, .cap_taken = 1, .who = "arm"};
    for (uint32_t a = 0; a < p->narms; a++) {
        const arm_state *st = &p->arm[a];
        t.done += st->kept >= o->samples;
        t.quiet += st->kept >= o->min_samples && st->kept_ns >= o->stdrel_min_ns &&
                   stdrel(st) < o->stdrel;
        t.timeout += st->spent_ns >= o->timeout_ns;
        t.capped += st->kept >= o->max_samples || st->taken >= 2 * o->max_samples;
        if (st->kept < t.least)
            t.least = st->kept;
    }
    return ks_vstop_decide(o, &t, p->out);
}

static int sample_block(proto *p, uint32_t block, int *order, ks_rng *rng)
{
    for (uint32_t a = 0; a < p->narms; a++)
        order[a] = (int)a;
    ks_rng_shuffle(rng, order, p->narms);
    for (uint32_t i = 0; i < p->narms; i++) {
        uint32_t a = (uint32_t)order[i];
        ks_vsample s;
        if (take(p, a, p->out->k, block, KS_SAMPLE_KEPT, &s) != KS_OK)
            return KS_ERR;
        p->arm[a].taken++;
        if (is_throttled(p, &s)) {
            s.status = KS_SAMPLE_THROTTLED;
            ks_vrun_push(p->out, &s);
            p->b->pause(p->b->ctx, p->pause_ns);
            if (p->pause_ns < 32 * p->o->throttle_pause_ns)
                p->pause_ns *= 2;
            continue;
        }
        p->pause_ns = p->o->throttle_pause_ns;
        arm_state *st = &p->arm[a];
        double v = (double)s.ns / (double)s.k;
        st->kept++;
        st->kept_ns += s.ns;
        st->sum += v;
        st->sumsq += v * v;
        ks_vrun_push(p->out, &s);
    }
    return KS_OK;
}

int ks_protocol_run(const ks_vopts *o, uint32_t narms, const ks_vbackend *b, ks_vrun *out,
                    ks_error *err)
{
    memset(out, 0, sizeof *out);
    out->narms = narms;
    if (narms < 2)
        return ks_error_set(err, "a comparison needs at least two arms");
    proto p = {o, b, out, err, narms, ks_xcalloc(narms, sizeof(arm_state)),
               o->throttle_pause_ns};
    int *order = ks_xmalloc(ks_mul(narms, sizeof *order));
    int rc = warm_up(&p);
    if (rc == KS_OK) {
        judge_clocks(&p);
        out->k = choose_batch(&p);
        ks_rng rng;
        ks_rng_seed(&rng, o->seed);
        for (uint32_t a = 0; a < narms; a++)
            p.arm[a].spent_ns = 0; /* the budget counts the sampling phase */
        for (uint32_t block = 0; rc == KS_OK; block++) {
            rc = sample_block(&p, block, order, &rng);
            out->nblocks = block + 1;
            if (rc == KS_OK && should_stop(&p))
                break;
        }
    }
    free(order);
    free(p.arm);
    return rc;
}
