/* tests/validate/test_report.c: from samples to the report: comparisons per candidate with
 * Holm across candidates, the output check overriding the verdict, the cycle-space comparison
 * when clocks differ, warnings, exit codes, and the JSON (kinesift.validate/1) and CSV forms,
 * read back. Samples are made here, as a simulated run would produce them. */
#include "ks_test.h"
#include "common/optsyntax.h"

#include <math.h>
#include <yajl/yajl_tree.h>

#include "kinesift/validate.h"
#include "validate/validate_int.h"
#ifdef KS_HAVE_CUDA
#include "validate/cuda_wl.h"
#endif

/* Fill w's run: arm a gets n kept samples around mean[a] (+/- 1 %), clock[a] MHz, after one
 * first and three warm-up samples. */
static void fill_run(ks_vworkload *w, const double *mean, const double *clock, int n)
{
    ks_vrun *r = &w->run;
    r->narms = w->narms;
    r->k = 1;
    for (uint32_t a = 0; a < w->narms; a++)
        for (int i = 0; i < 4; i++) {
            ks_vsample s = {a, 0, 0, 1, llround(mean[a] * 3), -1, NAN,
                            i ? KS_SAMPLE_WARMUP : KS_SAMPLE_FIRST};
            ks_vrun_push(r, &s);
        }
    for (int i = 0; i < n; i++)
        for (uint32_t a = 0; a < w->narms; a++) {
            double v = mean[a] * (1 + 0.01 * ((i * 7) % n - (n - 1) / 2.0) / n);
            ks_vsample s = {a, (uint32_t)i, 0, 1, llround(v), llround(v) + 2000, clock[a],
                            KS_SAMPLE_KEPT};
            ks_vrun_push(r, &s);
        }
    r->nblocks = (uint32_t)n;
    snprintf(r->stop, sizeof r->stop, "target");
}

static ks_vreport make_report(void)
{
    ks_vopts o;
    ks_vopts_init(&o);
    ks_compare_params p;
    ks_compare_params_validate(&p);
    ks_vreport r;
    ks_vreport_init(&r, &o, &p, "cuda-events");
    r.has_device = 1;
    snprintf(r.device.name, sizeof r.device.name, "Simulated GPU");
    r.device.rated_clock_mhz = 1980;
    r.device.driver_version = 13000;
    r.device.runtime_version = 13000;
    return r;
}

static void comparisons_and_checks(void **state)
{
    (void)state;
    ks_vreport r = make_report();
    const char *arms[] = {"launches", "fused", "graph"};
    const char *params[] = {"kernels=64", "elements=65536"};
    ks_vworkload *w = ks_vreport_add(&r, "small-kernels", "builtin", 3, arms, 2, params);
    double mean[] = {160000, 2000, 90000}, clock[] = {1980, 1980, 1980};
    fill_run(w, mean, clock, 30);
    w->check[1].result = KS_CHECK_MATCH;
    w->check[2].result = KS_CHECK_MATCH;
    ks_vworkload_compare(w, &r.params);
    assert_int_equal(w->cmp[0].verdict, KS_VERDICT_FASTER);
    assert_int_equal(w->cmp[1].verdict, KS_VERDICT_FASTER);
    assert_int_equal(w->cmp[0].holm_m, 2);
    assert_true(fabs(w->cmp[0].ratio - 2000.0 / 160000) < 1e-3);
    assert_int_equal(w->cmp[0].a.n, 30); /* warm-up and first samples are not kept */
    assert_false(w->has_cycles[0]);
    assert_int_equal(ks_vreport_exit_code(&r), 0);
    /* a mismatching output: different-results, exit 1 */
    w->check[2].result = KS_CHECK_MISMATCH;
    snprintf(w->check[2].detail, sizeof w->check[2].detail, "element 5 differs");
    ks_vworkload_compare(w, &r.params);
    assert_int_equal(w->cmp[1].verdict, KS_VERDICT_DIFFERENT_RESULTS);
    assert_non_null(strstr(w->cmp[1].reason, "element 5 differs"));
    assert_int_equal(ks_vreport_exit_code(&r), 1);
    ks_vreport_free(&r);
}

static void exit_codes(void **state)
{
    (void)state;
    ks_vreport r = make_report();
    const char *arms[] = {"a", "b"};
    ks_vworkload *w = ks_vreport_add(&r, "x", "builtin", 2, arms, 0, NULL);
    double same[] = {1e6, 1e6}, clock[] = {NAN, NAN};
    fill_run(w, same, clock, 30);
    ks_vworkload_compare(w, &r.params);
    assert_int_equal(w->cmp[0].verdict, KS_VERDICT_NO_CHANGE);
    assert_int_equal(ks_vreport_exit_code(&r), 0);
    r.expect_faster = 1; /* confirming a gain: no-change is a finding */
    assert_int_equal(ks_vreport_exit_code(&r), 1);
    r.expect_faster = 0;
    /* a second workload, slower, and a third, inconclusive: 1 wins over 3 */
    ks_vworkload *w2 = ks_vreport_add(&r, "y", "builtin", 2, arms, 0, NULL);
    double slower[] = {1e6, 1.5e6};
    fill_run(w2, slower, clock, 30);
    ks_vworkload_compare(w2, &r.params);
    assert_int_equal(w2->cmp[0].verdict, KS_VERDICT_SLOWER);
    ks_vworkload *w3 = ks_vreport_add(&r, "z", "builtin", 2, arms, 0, NULL);
    fill_run(w3, same, clock, 5); /* 5 < 9 samples */
    ks_vworkload_compare(w3, &r.params);
    assert_int_equal(w3->cmp[0].verdict, KS_VERDICT_INCONCLUSIVE);
    assert_int_equal(ks_vreport_exit_code(&r), 1);
    r.w[1].cmp[0].verdict = KS_VERDICT_FASTER;
    assert_int_equal(ks_vreport_exit_code(&r), 3);
    ks_vreport_free(&r);
}

static void cycle_space_and_warnings(void **state)
{
    (void)state;
    ks_vreport r = make_report();
    const char *arms[] = {"a", "b"};
    ks_vworkload *w = ks_vreport_add(&r, "x", "builtin", 2, arms, 0, NULL);
    /* b is 10 % faster in time but ran at a 10 % higher clock: the same in cycles */
    double mean[] = {1e6, 1e6 / 1.1}, clock[] = {1500, 1650};
    fill_run(w, mean, clock, 30);
    w->nvml_before.other_processes = 2;
    w->run.clock_unreliable = 2;
    ks_vworkload_compare(w, &r.params);
    assert_int_equal(w->cmp[0].verdict, KS_VERDICT_FASTER);
    assert_true(w->has_cycles[0]);
    assert_int_equal(w->cycles[0].verdict, KS_VERDICT_NO_CHANGE);
    assert_true(fabs(w->clock_mean_mhz[1] - 1650) < 1e-9);
    int clocks = 0, procs = 0, unreliable = 0;
    for (size_t i = 0; i < w->nwarnings; i++) {
        clocks += strstr(w->warnings[i], "mean SM clock") != NULL;
        procs += strstr(w->warnings[i], "other compute processes") != NULL;
        unreliable += strncmp(w->warnings[i], "b: most warm-up samples", 23) == 0;
    }
    assert_int_equal(clocks, 1);
    assert_int_equal(procs, 1);
    assert_int_equal(unreliable, 1);
    ks_vreport_free(&r);
}

static yajl_val at(yajl_val v, const char *a, const char *b, const char *c)
{
    const char *path[] = {a, b, c, NULL};
    return yajl_tree_get(v, path, yajl_t_any);
}

static void json_and_csv(void **state)
{
    (void)state;
    ks_vreport r = make_report();
    const char *arms[] = {"per-step", "hoisted"};
    const char *params[] = {"bytes=262144", "uploads=8"};
    ks_vworkload *w = ks_vreport_add(&r, "constant-upload", "builtin", 2, arms, 2, params);
    double mean[] = {300000, 25000}, clock[] = {1980, 1975};
    fill_run(w, mean, clock, 12);
    w->check[1].result = KS_CHECK_MATCH;
    w->flush_bytes = 256 << 20;
    ks_vworkload_compare(w, &r.params);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ks_vreport_json(f, &r), 0);
    fclose(f);
    char err[256];
    yajl_val v = yajl_tree_parse(buf, err, sizeof err);
    if (!v)
        fail_msg("invalid JSON: %s", err);
    assert_string_equal(YAJL_GET_STRING(at(v, "schema", NULL, NULL)), "kinesift.validate/1");
    assert_string_equal(YAJL_GET_STRING(at(v, "status", NULL, NULL)), "ok");
    assert_int_equal(YAJL_GET_INTEGER(at(v, "exit_code", NULL, NULL)), 0);
    assert_string_equal(YAJL_GET_STRING(at(v, "context", "timing", NULL)), "cuda-events");
    assert_string_equal(YAJL_GET_STRING(at(v, "context", "cache", NULL)), "cold");
    assert_string_equal(YAJL_GET_STRING(at(v, "context", "device", "name")), "Simulated GPU");
    yajl_val metrics = at(v, "metrics", NULL, NULL);
    assert_true(YAJL_IS_ARRAY(metrics) && metrics->u.array.len == 1);
    yajl_val m = metrics->u.array.values[0];
    assert_string_equal(YAJL_GET_STRING(at(m, "name", NULL, NULL)), "constant-upload/hoisted");
    assert_string_equal(YAJL_GET_STRING(at(m, "verdict", NULL, NULL)), "faster");
    assert_string_equal(YAJL_GET_STRING(at(m, "check", NULL, NULL)), "match");
    assert_true(YAJL_IS_NULL(at(m, "cycle_space", NULL, NULL)));
    yajl_val samples = at(m, "candidate", "samples", NULL);
    assert_int_equal(samples->u.array.len, 12);
    assert_int_equal(YAJL_GET_INTEGER(at(m, "baseline", "n", NULL)), 12);
    yajl_val wl = at(v, "workloads", NULL, NULL)->u.array.values[0];
    assert_string_equal(YAJL_GET_STRING(at(wl, "params", "bytes", NULL)), "262144");
    yajl_val raw = at(wl, "raw", NULL, NULL);
    assert_int_equal(raw->u.array.len, 2 * (4 + 12));
    assert_string_equal(YAJL_GET_STRING(at(raw->u.array.values[0], "status", NULL, NULL)),
                        "first");
    assert_true(YAJL_IS_NULL(at(raw->u.array.values[0], "host_ns", NULL, NULL)));
    yajl_val arm1 = at(wl, "arms", NULL, NULL)->u.array.values[1];
    assert_int_equal(YAJL_GET_INTEGER(at(arm1, "warmup", NULL, NULL)), 3);
    assert_int_equal(YAJL_GET_INTEGER(at(arm1, "kept", NULL, NULL)), 12);
    assert_string_equal(YAJL_GET_STRING(at(arm1, "check", "result", NULL)), "match");
    assert_int_equal(YAJL_GET_INTEGER(at(wl, "flush_bytes", NULL, NULL)), 256 << 20);
    assert_false(YAJL_IS_TRUE(at(wl, "nvml", "before", "available")));
    yajl_tree_free(v);
    free(buf);

    /* CSV: a header and one line per raw sample */
    f = open_memstream(&buf, &len);
    assert_int_equal(ks_vreport_csv(f, &r), 0);
    fclose(f);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    assert_int_equal(lines, 1 + 2 * 16);
    assert_non_null(strstr(buf, "constant-upload,1,candidate,hoisted,"));
    free(buf);

    /* the refusal */
    f = open_memstream(&buf, &len);
    ks_vreport_json_status(f, "unavailable", "no CUDA device (cudaErrorNoDevice, error 100)",
                           77);
    fclose(f);
    v = yajl_tree_parse(buf, err, sizeof err);
    assert_non_null(v);
    assert_string_equal(YAJL_GET_STRING(at(v, "status", NULL, NULL)), "unavailable");
    assert_null(at(v, "metrics", NULL, NULL));
    yajl_tree_free(v);
    free(buf);
    /* the text form names the verdict */
    f = open_memstream(&buf, &len);
    ks_vreport_text(f, &r);
    fclose(f);
    assert_non_null(strstr(buf, "verdict: faster"));
    assert_non_null(strstr(buf, "Simulated GPU"));
    free(buf);
    ks_vreport_free(&r);
}

static void builtin_registry(void **state)
{
    (void)state;
    uint32_t n;
    const ks_builtin *b = ks_builtins(&n);
    assert_int_equal(n, 4);
    assert_string_equal(b[0].name, "constant-upload");
    assert_ptr_equal(ks_builtin_find("sync-per-op"), &b[3]);
    assert_null(ks_builtin_find("nope"));
    int64_t v[2];
    char err[256];
    const char *p1[] = {"bytes=4k"};
    assert_int_equal(ks_builtin_params("constant-upload", 1, p1, v, err, sizeof err), 0);
    assert_int_equal(v[0], 4096);
    assert_int_equal(v[1], 8); /* default */
    const char *p2[] = {"kernels=0"};
    assert_int_equal(ks_builtin_params("small-kernels", 1, p2, v, err, sizeof err), -1);
    assert_non_null(strstr(err, "--kernels wants an integer from 1"));
    const char *p3[] = {"copies=2"};
    assert_int_equal(ks_builtin_params("sync-per-op", 1, p3, v, err, sizeof err), -1);
    assert_non_null(strstr(err, "no parameter 'copies'"));
    int64_t s;
    assert_int_equal(ks_parse_size("64M", &s), 0);
    assert_int_equal(s, 64 << 20);
    assert_int_equal(ks_parse_size("2GiB", &s), 0);
    assert_int_equal(s, INT64_C(2) << 30);
    assert_int_equal(ks_parse_size("10KB", &s), 0);
    assert_int_equal(s, 10240);
    assert_int_equal(ks_parse_size("-1", &s), -1);
    assert_int_equal(ks_parse_size("1T", &s), -1);
    assert_int_equal(ks_parse_size("", &s), -1);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(b[i].nvariants >= 2);
        /* without the CUDA backend (libkinesift-cuda) there is no table */
        ks_cuda_install(NULL);
        assert_null(ks_builtin_table(&b[i]));
#ifdef KS_HAVE_CUDA
        /* the CUDA tables agree with the registry */
        ks_cuda_enable();
        const ks_workload *t = ks_builtin_table(&b[i]);
        assert_non_null(t);
        ks_error e;
        assert_int_equal(ks_workload_check_table(t, &e), KS_OK);
        assert_string_equal(t->name, b[i].name);
        assert_int_equal(t->nvariants, b[i].nvariants);
        for (uint32_t j = 0; j < t->nvariants; j++)
            assert_string_equal(t->variants[j], b[i].variants[j]);
        assert_non_null(t->check);
        ks_cuda_install(NULL);
#endif
    }
}

static void nvml_read_only(void **state)
{
    (void)state;
    char buf[256];
    ks_nvml_reasons(0x1 | 0x40, buf, sizeof buf);
    assert_string_equal(buf, "gpu-idle,hw-thermal-slowdown");
    ks_nvml_reasons(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    ks_nvml_reasons(0x4 | 0x10000, buf, sizeof buf);
    assert_string_equal(buf, "sw-power-cap,other(0x10000)");
    ks_nvml_snapshot s;
    ks_nvml_read(NULL, &s);
    if (s.ok)
        assert_true(s.sm_clock_mhz > 0);
    else
        assert_true(s.reason[0] != '\0'); /* e.g. no libnvidia-ml.so.1 on a CI machine */
}

/* A device-protocol table: arm a's kept sample of block i is mean[a] x (1 + cv N(0,1)); `per`
 * samples of each arm per block (the protocol takes 1). */
static void fill_blocks(ks_vworkload *w, const double *mean, double cv, int blocks, int per, ks_rng *r)
{
    ks_vrun *run = &w->run;
    run->narms = w->narms;
    run->k = 1;
    for (uint32_t a = 0; a < w->narms; a++) {
        ks_vsample s = {a, 0, 0, 1, llround(mean[a]), -1, NAN, KS_SAMPLE_FIRST};
        ks_vrun_push(run, &s);
    }
    for (int i = 0; i < blocks; i++)
        for (uint32_t a = 0; a < w->narms; a++)
            for (int j = 0; j < per; j++) {
                double v = mean[a] * (1 + cv * ks_rng_normal(r));
                ks_vsample s = {a, (uint32_t)i, 0, 1, llround(v), -1, NAN, KS_SAMPLE_KEPT};
                ks_vrun_push(run, &s);
            }
    run->nblocks = (uint32_t)blocks;
    snprintf(run->stop, sizeof run->stop, "target");
}

/* The device protocol decides with the interleaved block as the run (docs/statistics.md
 * section 8), through the family code gate uses: Welch on the logs of the per-block values
 * (re-computed here by hand), a throttled sample leaving its block out for that arm; Holm with
 * Holm-consistent levels across candidates; a table of one block decided as gate decides one
 * run per side (never no-change; beyond the limit plus the margin only); and in simulation
 * (400 A/A tables of 30 blocks, sample CV 2 %) at most 5 % slower, a 5 % slowdown slower in
 * at least 90 %. */
static void blocks_are_the_runs(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 15);
    ks_vreport rep = make_report();
    const char *arms[] = {"a", "b"};
    ks_vworkload *w = ks_vreport_add(&rep, "x", "builtin", 2, arms, 0, NULL);
    double mean[] = {1e6, 1.03e6};
    fill_blocks(w, mean, 0.01, 20, 1, &r);
    for (size_t i = 0; i < w->run.nsamples; i++) /* block 5 of b: throttled */
        if (w->run.samples[i].arm == 1 && w->run.samples[i].block == 5)
            w->run.samples[i].status = KS_SAMPLE_THROTTLED;
    ks_vworkload_compare(w, &rep.params);
    const ks_compare *c = &w->cmp[0];
    double la[20], lb[20];
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < w->run.nsamples; i++) {
        const ks_vsample *s = &w->run.samples[i];
        if (s->status == KS_SAMPLE_KEPT)
            *(s->arm ? &lb[nb++] : &la[na++]) = log((double)s->ns);
    }
    assert_int_equal(na, 20);
    assert_int_equal(nb, 19);
    double ma = 0, mb = 0, va = 0, vb = 0;
    for (size_t i = 0; i < na; i++)
        ma += la[i] / (double)na;
    for (size_t i = 0; i < nb; i++)
        mb += lb[i] / (double)nb;
    for (size_t i = 0; i < na; i++)
        va += (la[i] - ma) * (la[i] - ma) / (double)(na - 1);
    for (size_t i = 0; i < nb; i++)
        vb += (lb[i] - mb) * (lb[i] - mb) / (double)(nb - 1);
    double sa = va / (double)na, sb = vb / (double)nb, se = sqrt(sa + sb);
    double df = (sa + sb) * (sa + sb) / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
    double q = ks_t_quantile(0.975, df), est = mb - ma;
    assert_int_equal(c->method, KS_METHOD_RUNS);
    assert_int_equal(c->runs_a, 20);
    assert_int_equal(c->runs_b, 19);
    assert_int_equal(c->discarded_b, 1);
    assert_true(fabs(c->est - est) < 1e-12 && fabs(c->df - df) < 1e-9);
    assert_true(fabs(c->ci_lo - exp(est - q * se)) < 1e-12 && fabs(c->ci_hi - exp(est + q * se)) < 1e-12);
    assert_true(fabs(c->p - ks_t_two_sided_p(est / se, df)) < 1e-12);
    int slower = exp(est - q * se) > 1 && exp(est) > 1.02;
    assert_int_equal(c->verdict, slower ? KS_VERDICT_SLOWER : KS_VERDICT_INCONCLUSIVE);
    assert_string_equal(ks_compare_test_name(c), "welch-runs");

    /* two candidates: Holm, intervals at the Holm-consistent levels */
    const char *arms3[] = {"a", "b", "c"};
    ks_vworkload *w3 = ks_vreport_add(&rep, "y", "builtin", 3, arms3, 0, NULL);
    double mean3[] = {1e6, 0.9e6, 1.004e6};
    fill_blocks(w3, mean3, 0.01, 30, 1, &r);
    ks_vworkload_compare(w3, &rep.params);
    double raw[2] = {w3->cmp[0].mwu.p, w3->cmp[1].mwu.p}, lev[2], adj[2];
    ks_holm(raw, 2, adj);
    ks_holm_levels(raw, 2, 0.05, lev);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w3->cmp[i].holm_m, 2);
        assert_true(fabs(w3->cmp[i].ci_level - lev[i]) < 1e-12 && fabs(w3->cmp[i].p - adj[i]) < 1e-12);
    }
    assert_int_equal(w3->cmp[0].verdict, KS_VERDICT_FASTER);

    /* one block of 40 samples per arm: gate's one-run rule */
    const struct {
        double b;
        ks_verdict want;
    } one[] = {{1.0, KS_VERDICT_INCONCLUSIVE}, {1.10, KS_VERDICT_INCONCLUSIVE}, {1.40, KS_VERDICT_SLOWER}};
    for (size_t i = 0; i < 3; i++) {
        ks_vworkload *w1 = ks_vreport_add(&rep, "z", "builtin", 2, arms, 0, NULL);
        double m1[] = {1e6, 1e6 * one[i].b};
        fill_blocks(w1, m1, 0.01, 1, 40, &r);
        ks_vworkload_compare(w1, &rep.params);
        assert_int_equal(w1->cmp[0].method, KS_METHOD_SINGLE_RUN);
        assert_int_equal(w1->cmp[0].verdict, one[i].want);
    }
    ks_vreport_free(&rep);

    /* simulation: A/A and a 5 % slowdown, 30 blocks, sample CV 2 % */
    int aa_slower = 0, slow_found = 0;
    for (int t = 0; t < 400; t++) {
        ks_vreport sim = make_report();
        ks_vreport_add(&sim, "aa", "builtin", 2, arms, 0, NULL);
        ks_vreport_add(&sim, "slow", "builtin", 2, arms, 0, NULL); /* may move the first */
        ks_vworkload *x = &sim.w[0], *y = &sim.w[1];
        double same[] = {1e6, 1e6}, slow[] = {1e6, 1.05e6};
        fill_blocks(x, same, 0.02, 30, 1, &r);
        fill_blocks(y, slow, 0.02, 30, 1, &r);
        ks_vworkload_compare(x, &sim.params);
        ks_vworkload_compare(y, &sim.params);
        aa_slower += x->cmp[0].verdict == KS_VERDICT_SLOWER;
        slow_found += y->cmp[0].verdict == KS_VERDICT_SLOWER;
        ks_vreport_free(&sim);
    }
    print_message("validate by blocks: A/A slower %d of 400; +5 %% slower %d of 400\n", aa_slower, slow_found);
    assert_true(aa_slower <= 20);
    assert_true(slow_found >= 360);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(comparisons_and_checks),
        cmocka_unit_test(exit_codes),
        cmocka_unit_test(cycle_space_and_warnings),
        cmocka_unit_test(json_and_csv),
        cmocka_unit_test(builtin_registry),
        cmocka_unit_test(nvml_read_only),
        cmocka_unit_test(blocks_are_the_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
