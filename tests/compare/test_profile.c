/* tests/compare/test_profile.c: the per-step samples of gate on fixtures/compare/steps.json
 * (values derived by hand in fixtures/compare/gen.py), the capture settings and their
 * comparison, and validate results read as inputs. */
#include "ks_test.h"

#include "kinesift/compare.h"

typedef struct loaded {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
} loaded;

static void load(const char *fixture, loaded *l, int warmup)
{
    ks_error err;
    l->t = ks_test_load(ks_fixture(fixture));
    assert_int_equal(ks_analyze(l->t, NULL, &l->a, &err), KS_OK);
    ks_step_opts so;
    ks_step_opts_init(&so);
    so.warmup = warmup;
    assert_int_equal(ks_steps_find(l->a, &so, &l->st, &err), KS_OK);
}

static void unload(loaded *l)
{
    ks_steps_free(&l->st);
    ks_analysis_free(l->a);
    ks_trace_free(l->t);
}

static void all_equal(const double *v, size_t n, double want)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] < want - 1e-6 || v[i] > want + 1e-6)
            fail_msg("sample %zu = %.6f, want %.6f", i, v[i], want);
}

static const ks_sample_series *series(const ks_profile *p, ks_metric m, const char *name)
{
    const ks_sample_series *s = ks_profile_series(p, m, name);
    if (!s)
        fail_msg("no series %s %s", ks_metric_name(m), name);
    assert_int_equal(s->n, p->n);
    return s;
}

static void per_step_samples(void **state)
{
    (void)state;
    loaded l;
    load("compare/steps.json", &l, -1);
    const char *ops[] = {"aten::mm", "bwd"}, *kernels[] = {"gemm"};
    ks_profile_opts po = {1, ops, 2, kernels, 1};
    ks_profile p;
    ks_error err;
    assert_int_equal(ks_profile_build(l.a, &l.st, &po, &p, &err), KS_OK);
    assert_int_equal(p.nsteps, 6);
    assert_int_equal(p.n, 6);
    assert_int_equal(p.nwarmup + p.nunfinished, 0);
    assert_true(p.has_rank && p.rank == 0);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(p.step_numbers[i], (int64_t)i + 1);
    all_equal(p.step_time, 6, 90000);         /* host 80 us, widened to the kernel's end at +90 */
    assert_non_null(p.gpu_idle);
    all_equal(p.gpu_idle, 6, 100.0 * 40 / 90); /* busy 50 of 90 */
    all_equal(p.launches, 5, 2);               /* gemm (by its launch) + orphan (by its start) */
    assert_true(p.launches[5] == 1);           /* the last orphan starts after the last step ends */
    const ks_sample_series *fwd = series(&p, KS_METRIC_LABEL, "fwd");
    for (size_t i = 0; i < 6; i++)
        assert_true(fwd->v[i] == 1000.0 * (20 + (double)i)); /* the nested fwd counted once */
    all_equal(series(&p, KS_METRIC_LABEL, "opt")->v, 6, 5000);   /* after the host end, same step */
    all_equal(series(&p, KS_METRIC_LABEL, "bwd")->v, 6, 30000);  /* second thread */
    all_equal(series(&p, KS_METRIC_LABEL, "setup")->v, 6, 0);    /* before the first step */
    all_equal(series(&p, KS_METRIC_GPU_LABEL, "gfwd")->v, 6, 50000);
    all_equal(series(&p, KS_METRIC_OP, "aten::mm")->v, 6, 4000);
    all_equal(series(&p, KS_METRIC_OP, "bwd")->v, 6, 30000); /* an op check may name a label too */
    all_equal(series(&p, KS_METRIC_KERNEL_TIME, "gemm")->v, 6, 50000); /* normalised name */
    assert_null(ks_profile_series(&p, KS_METRIC_LABEL, "ProfilerStep#1")); /* steps are not labels */
    assert_null(ks_profile_series(&p, KS_METRIC_OP, "cudaLaunchKernel"));  /* not asked for */
    assert_null(ks_profile_series(&p, KS_METRIC_GPU_LABEL, "fwd"));
    ks_profile_free(&p);
    unload(&l);
}

static void warmup_steps_give_no_sample(void **state)
{
    (void)state;
    loaded l;
    load("compare/steps.json", &l, 2);
    ks_profile p;
    ks_error err;
    assert_int_equal(ks_profile_build(l.a, &l.st, NULL, &p, &err), KS_OK);
    assert_int_equal(p.nsteps, 6);
    assert_int_equal(p.nwarmup, 2);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.step_numbers[0], 3);
    const ks_sample_series *fwd = series(&p, KS_METRIC_LABEL, "fwd");
    assert_true(fwd->v[0] == 22000 && fwd->v[3] == 25000);
    ks_profile_free(&p);
    unload(&l);
}

static void settings_compared(void **state)
{
    (void)state;
    loaded s, b, a;
    load("compare/steps.json", &s, -1);
    load("compare/before.json", &b, -1);
    load("compare/after.json", &a, -1);
    ks_trace_settings ss, sb, sa;
    ks_settings_read(s.t, &ss);
    ks_settings_read(b.t, &sb);
    ks_settings_read(a.t, &sa);
    assert_string_equal(ss.devices, "Test GPU");
    assert_string_equal(sb.devices, "");
    assert_true(ss.gpu_activity == 1 && ss.runtime_activity == 1 && ss.with_stack == 0);
    assert_true(sa.with_stack == 1 && sb.with_stack == 0);
    ks_mismatch m[KS_SETTINGS_MAX];
    assert_int_equal(ks_settings_compare(&sb, &sb, m), 0);
    assert_int_equal(ks_settings_compare(&ss, &sb, m), 0); /* a device not recorded is no mismatch */
    assert_int_equal(ks_settings_compare(&sb, &sa, m), 1);
    assert_string_equal(m[0].what, "with_stack");
    assert_string_equal(m[0].a, "off");
    assert_string_equal(m[0].b, "on");
    ks_trace_settings other = ss;
    snprintf(other.devices, sizeof other.devices, "Other GPU");
    other.gpu_activity = 0;
    assert_int_equal(ks_settings_compare(&ss, &other, m), 2);
    assert_string_equal(m[0].what, "activities: GPU");
    assert_string_equal(m[1].what, "device");
    assert_string_equal(m[1].b, "Other GPU");
    other.gpu_activity = -1; /* not applicable (validate results): skipped */
    assert_int_equal(ks_settings_compare(&ss, &other, m), 1);
    unload(&s);
    unload(&b);
    unload(&a);
}

static const char validate_json[] =
    "{\n  \"schema\": \"kinesift.validate/1\",\n  \"status\": \"ok\",\n"
    "  \"context\": {\"device\": {\"name\": \"NVIDIA H200\"}},\n"
    "  \"workloads\": [{\"name\": \"small-kernels\", \"arms\": [\n"
    "    {\"arm\": 0, \"variant\": \"launches\"}, {\"arm\": 1, \"variant\": \"fused\"}],\n"
    "   \"raw\": [\n"
    "    {\"arm\": 0, \"k\": 1, \"ns\": 999, \"status\": \"first\"},\n"
    "    {\"arm\": 0, \"k\": 1, \"ns\": 500, \"status\": \"warmup\"},\n"
    "    {\"arm\": 0, \"k\": 4, \"ns\": 4000, \"status\": \"kept\"},\n"
    "    {\"arm\": 1, \"k\": 4, \"ns\": 2000, \"status\": \"kept\"},\n"
    "    {\"arm\": 1, \"k\": 4, \"ns\": 2002, \"status\": \"throttled\"},\n"
    "    {\"arm\": 0, \"k\": 4, \"ns\": 4004, \"status\": \"kept\"},\n"
    "    {\"arm\": 1, \"k\": 4, \"ns\": 2006, \"status\": \"kept\"}]}],\n"
    "  \"metrics\": []\n}\n";

static void validate_results(void **state)
{
    (void)state;
    assert_true(ks_is_validate_result(validate_json, strlen(validate_json)));
    assert_true(ks_is_validate_result("\xEF\xBB\xBF {\"schema\":\"kinesift.validate/1\"", 35));
    assert_false(ks_is_validate_result("{\"traceEvents\": []}", 19));
    assert_false(ks_is_validate_result("{\"schema\": \"kinesift.gate/1\"}", 29));
    assert_false(ks_is_validate_result("[{\"schema\": \"kinesift.validate/1\"}]", 36));
    ks_profile p;
    ks_error err;
    assert_int_equal(ks_profile_from_validate("v.json", validate_json, strlen(validate_json), &p, &err), KS_OK);
    assert_true(p.is_validate);
    assert_int_equal(p.nseries, 2);
    assert_string_equal(p.settings.devices, "NVIDIA H200");
    const ks_sample_series *a = ks_profile_series(&p, KS_METRIC_VALIDATE, "small-kernels/launches");
    const ks_sample_series *b = ks_profile_series(&p, KS_METRIC_VALIDATE, "small-kernels/fused");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->n, 2); /* first and warm-up samples are not samples */
    assert_true(a->v[0] == 1000 && a->v[1] == 1001); /* per execution: ns / k, in order */
    assert_int_equal(a->discarded, 0);
    assert_int_equal(b->n, 2);
    assert_true(b->v[0] == 500 && b->v[1] == 501.5);
    assert_int_equal(b->discarded, 1);
    ks_profile_free(&p);

    const char *unavailable = "{\"schema\": \"kinesift.validate/1\", \"status\": \"unavailable\", "
                              "\"reason\": \"no CUDA device\", \"exit_code\": 77}";
    assert_int_equal(ks_profile_from_validate("u.json", unavailable, strlen(unavailable), &p, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "status unavailable: no CUDA device"));
    ks_profile_free(&p);
    const char *broken = "{\"schema\": \"kinesift.validate/1\", \"status\": \"ok\", \"workloads\": [{\"name\": "
                         "\"w\", \"arms\": [{\"arm\": 0, \"variant\": \"a\"}], \"raw\": [{\"arm\": 0}]}]}";
    assert_int_equal(ks_profile_from_validate("b.json", broken, strlen(broken), &p, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "raw[0] lacks"));
    ks_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_step_samples),
        cmocka_unit_test(warmup_steps_give_no_sample),
        cmocka_unit_test(settings_compared),
        cmocka_unit_test(validate_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
