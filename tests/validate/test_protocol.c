/* tests/validate/test_protocol.c: the measurement protocol on a simulated backend (no GPU):
 * the first execution discarded, warm-up by count and by time, interleaving in seeded random
 * blocks, batching of short executions, throttle marks and pauses, and every stop rule. */
#include "ks_test.h"

#include <math.h>

#include "kinesift/validate.h"
#include "validate/validate_int.h"

/* A simulated device: each arm's execution takes mean[arm] ns with relative noise `noise`;
 * a sample of k executions advances a fake clock. clock[] gives the SM clock per arm
 * (NaN: not measured); every throttle_every-th sample runs at half clock. */
typedef struct sim {
    ks_rng rng;
    double mean[4];
    double noise;
    double clock_mhz;
    int throttle_every;
    int64_t now;
    int64_t paused;
    int npauses;
    int nsamples;
    int fail_at;      /* fail on this sample (0: never) */
} sim;

static int sim_sample(void *ctx, uint32_t arm, uint32_t k, ks_vsample *s, ks_error *err)
{
    sim *m = ctx;
    if (++m->nsamples == m->fail_at)
        return ks_error_set(err, "simulated failure");
    double v = m->mean[arm] * k * (1 + m->noise * ks_rng_normal(&m->rng));
    s->ns = llround(v);
    s->host_ns = s->ns + 5000;
    s->sm_clock_mhz = m->clock_mhz;
    if (m->throttle_every && m->nsamples % m->throttle_every == 0)
        s->sm_clock_mhz = m->clock_mhz / 2;
    m->now += s->ns + 10000;
    return KS_OK;
}

static int64_t sim_now(void *ctx)
{
    return ((sim *)ctx)->now;
}

static void sim_pause(void *ctx, int64_t ns)
{
    sim *m = ctx;
    m->paused += ns;
    m->npauses++;
    m->now += ns;
}

static ks_vbackend backend(sim *m)
{
    return (ks_vbackend){m, sim_sample, sim_now, sim_pause, m->clock_mhz};
}

static sim make_sim(double a, double b, double noise)
{
    sim m;
    memset(&m, 0, sizeof m);
    ks_rng_seed(&m.rng, 77);
    m.mean[0] = a;
    m.mean[1] = b;
    m.mean[2] = b;
    m.noise = noise;
    m.clock_mhz = NAN;
    return m;
}

static size_t count(const ks_vrun *r, uint32_t arm, ks_sample_status st)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsamples; i++)
        n += r->samples[i].arm == arm && r->samples[i].status == st;
    return n;
}

static void first_and_warmup(void **state)
{
    (void)state;
    ks_vopts o;
    ks_vopts_init(&o);
    /* 50 ms executions: 3 warm-up runs already pass 100 ms; 1 ms ones need 100 */
    sim m = make_sim(50e6, 1e6, 0.01);
    ks_vbackend b = backend(&m);
    ks_vrun r;
    ks_error err;
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(count(&r, 0, KS_SAMPLE_FIRST), 1);
    assert_int_equal(count(&r, 1, KS_SAMPLE_FIRST), 1);
    assert_int_equal(count(&r, 0, KS_SAMPLE_WARMUP), 3);
    size_t w1 = count(&r, 1, KS_SAMPLE_WARMUP);
    assert_true(w1 >= 95 && w1 <= 105); /* until 100 ms of 1 ms (+/- noise) executions */
    /* the first samples taken are the two first executions, then warm-up, then kept */
    assert_int_equal(r.samples[0].status, KS_SAMPLE_FIRST);
    assert_int_equal(r.samples[1].status, KS_SAMPLE_FIRST);
    int seen_kept = 0;
    for (size_t i = 0; i < r.nsamples; i++) {
        if (r.samples[i].status == KS_SAMPLE_KEPT)
            seen_kept = 1;
        else if (seen_kept)
            fail_msg("a warm-up sample after a kept one (%zu)", i);
    }
    assert_int_equal(count(&r, 0, KS_SAMPLE_KEPT), 30);
    assert_int_equal(count(&r, 1, KS_SAMPLE_KEPT), 30);
    assert_string_equal(r.stop, "target");
    assert_int_equal(r.k, 1);
    ks_vrun_free(&r);

    /* the time criterion stops at the 2 s cap: 500 ms executions, 10 runs asked */
    o.warmup_runs = 1;
    o.warmup_ns = 10 * INT64_C(1000000000);
    o.samples = 10;
    m = make_sim(500e6, 500e6, 0.0);
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(count(&r, 0, KS_SAMPLE_WARMUP), 4); /* 4 x 500 ms reaches the cap */
    ks_vrun_free(&r);
}

static void interleaved_random_blocks(void **state)
{
    (void)state;
    ks_vopts o;
    ks_vopts_init(&o);
    sim m = make_sim(1e6, 1e6, 0.01);
    ks_vbackend b = backend(&m);
    ks_vrun r, r2;
    ks_error err;
    assert_int_equal(ks_protocol_run(&o, 3, &b, &r, &err), KS_OK);
    assert_int_equal(r.nblocks, 30);
    /* every block holds each arm exactly once, in a shuffled order */
    int orders[6] = {0};
    uint32_t block = UINT32_MAX;
    int pos = 0, seen[3] = {0}, first[3];
    for (size_t i = 0; i < r.nsamples; i++) {
        const ks_vsample *s = &r.samples[i];
        if (s->status != KS_SAMPLE_KEPT)
            continue;
        if (s->block != block) {
            assert_true(block == UINT32_MAX || (seen[0] == 1 && seen[1] == 1 && seen[2] == 1));
            block = s->block;
            pos = 0;
            memset(seen, 0, sizeof seen);
        }
        first[pos++] = (int)s->arm;
        seen[s->arm]++;
        if (pos == 3)
            orders[first[0] * 2 + (first[1] > first[2])]++;
    }
    int distinct = 0;
    for (int i = 0; i < 6; i++)
        distinct += orders[i] > 0;
    assert_true(distinct >= 4); /* 30 shuffles of 3 arms: not one fixed order */
    assert_true(orders[0] < 30);
    /* the same seed gives the same order; another seed another one */
    sim m2 = make_sim(1e6, 1e6, 0.01);
    b = backend(&m2);
    assert_int_equal(ks_protocol_run(&o, 3, &b, &r2, &err), KS_OK);
    assert_int_equal(r.nsamples, r2.nsamples);
    for (size_t i = 0; i < r.nsamples; i++)
        assert_int_equal(r.samples[i].arm, r2.samples[i].arm);
    ks_vrun_free(&r2);
    o.seed = 12345;
    m2 = make_sim(1e6, 1e6, 0.01);
    b = backend(&m2);
    assert_int_equal(ks_protocol_run(&o, 3, &b, &r2, &err), KS_OK);
    int differ = 0;
    for (size_t i = 0; i < r.nsamples && i < r2.nsamples; i++)
        differ += r.samples[i].arm != r2.samples[i].arm;
    assert_true(differ > 0);
    ks_vrun_free(&r2);
    ks_vrun_free(&r);
}

static void batching_short_executions(void **state)
{
    (void)state;
    ks_vopts o;
    ks_vopts_init(&o);
    /* 5 us and 8 us executions: K from the fastest arm, 1 ms / 5 us = 200 */
    sim m = make_sim(8000, 5000, 0.0);
    ks_vbackend b = backend(&m);
    ks_vrun r;
    ks_error err;
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(r.k, 200);
    size_t n;
    double *v = ks_vrun_values(&r, 1, &n, NULL);
    assert_int_equal(n, 30);
    assert_true(fabs(v[0] - 5000) < 1e-9); /* per execution, not per batch */
    free(v);
    for (size_t i = 0; i < r.nsamples; i++)
        if (r.samples[i].status == KS_SAMPLE_KEPT)
            assert_int_equal(r.samples[i].k, 200);
    /* warm-up: 3 single executions, then batches: 100 ms of 5 us executions in a few dozen
     * samples, not 20 000 */
    size_t warm = 0;
    int64_t warm_execs = 0, warm_ns = 0;
    for (size_t i = 0; i < r.nsamples; i++)
        if (r.samples[i].arm == 1 && r.samples[i].status == KS_SAMPLE_WARMUP) {
            if (warm < 3)
                assert_int_equal(r.samples[i].k, 1);
            warm++;
            warm_execs += r.samples[i].k;
            warm_ns += r.samples[i].ns;
        }
    assert_true(warm > 3 && warm < 110);
    assert_true(warm_execs >= 3 && warm_ns >= 100000000);
    ks_vrun_free(&r);
    /* a fixed --batch wins */
    o.batch = 7;
    m = make_sim(8000, 5000, 0.0);
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(r.k, 7);
    ks_vrun_free(&r);
    /* no warm-up at all: K from nothing measured is 1, not a million */
    o.batch = 0;
    o.warmup_runs = 0;
    o.warmup_ns = 0;
    m = make_sim(8000, 5000, 0.0);
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(r.k, 1);
    assert_int_equal(count(&r, 0, KS_SAMPLE_WARMUP), 0);
    ks_vrun_free(&r);
}

static void throttled_samples(void **state)
{
    (void)state;
    ks_vopts o;
    ks_vopts_init(&o);
    sim m = make_sim(2e6, 2e6, 0.01);
    m.clock_mhz = 1980;
    m.throttle_every = 10;
    ks_vbackend b = backend(&m);
    ks_vrun r;
    ks_error err;
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    size_t t = count(&r, 0, KS_SAMPLE_THROTTLED) + count(&r, 1, KS_SAMPLE_THROTTLED);
    assert_true(t > 0);
    assert_int_equal(m.npauses, (int)t);
    assert_true(m.paused >= (int64_t)t * 50000000);
    /* kept samples still reach the target; throttled ones stay in the raw dump */
    assert_int_equal(count(&r, 0, KS_SAMPLE_KEPT), 30);
    size_t n, thr;
    free(ks_vrun_values(&r, 0, &n, &thr));
    assert_int_equal(thr, count(&r, 0, KS_SAMPLE_THROTTLED));
    assert_int_equal(r.clock_unreliable, 0);
    ks_vrun_free(&r);
    /* an arm whose clock reads low all the time, warm-up included (SMs idle between the
     * stamps, as in a copy): not trusted, nothing marked */
    m = make_sim(2e6, 2e6, 0.01);
    m.clock_mhz = 1980;
    m.throttle_every = 1; /* every sample at half clock */
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(r.clock_unreliable, 3);
    assert_int_equal(count(&r, 0, KS_SAMPLE_THROTTLED) + count(&r, 1, KS_SAMPLE_THROTTLED), 0);
    assert_int_equal(m.npauses, 0);
    ks_vrun_free(&r);
    /* without a rated clock there is no throttle detection */
    m = make_sim(2e6, 2e6, 0.01);
    m.clock_mhz = 1980;
    m.throttle_every = 10;
    b = backend(&m);
    b.rated_clock_mhz = 0;
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_int_equal(count(&r, 0, KS_SAMPLE_THROTTLED), 0);
    ks_vrun_free(&r);
}

static void stop_rules(void **state)
{
    (void)state;
    ks_vopts o;
    ks_vopts_init(&o);
    ks_vrun r;
    ks_error err;
    /* very steady 100 ms executions: below 0.5 % after 0.5 s and 10 samples */
    sim m = make_sim(100e6, 100e6, 0.0001);
    ks_vbackend b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_string_equal(r.stop, "stdrel");
    assert_int_equal(count(&r, 0, KS_SAMPLE_KEPT), 10);
    ks_vrun_free(&r);
    /* 1 s noisy executions: the 15 s budget ends it before 30 */
    m = make_sim(1e9, 1e9, 0.05);
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_OK);
    assert_string_equal(r.stop, "timeout");
    size_t kept = count(&r, 0, KS_SAMPLE_KEPT);
    assert_true(kept >= 14 && kept <= 16);
    assert_non_null(strstr(r.stop_detail, "target of 30 was not met"));
    ks_vrun_free(&r);
    /* a backend error stops everything */
    m = make_sim(1e6, 1e6, 0.01);
    m.fail_at = 50;
    b = backend(&m);
    assert_int_equal(ks_protocol_run(&o, 2, &b, &r, &err), KS_ERR);
    assert_string_equal(err.msg, "simulated failure");
    ks_vrun_free(&r);
    assert_int_equal(ks_protocol_run(&o, 1, &b, &r, &err), KS_ERR);
    ks_vrun_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_and_warmup),
        cmocka_unit_test(interleaved_random_blocks),
        cmocka_unit_test(batching_short_executions),
        cmocka_unit_test(throttled_samples),
        cmocka_unit_test(stop_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
