/* tests/compare/test_budget.c: the gate's checks: budget files ("kinesift.budget/1") and check
 * flags. A valid budget gives exactly its checks; every malformed one is refused with a message
 * naming the check, never half-read. */
#include "ks_test.h"

#include <unistd.h>

#include "kinesift/compare.h"
#include "compare/gate_text.h"

static int parse(const char *json, ks_budget *b, ks_error *err)
{
    memset(b, 0, sizeof *b);
    memset(err, 0, sizeof *err);
    return ks_budget_parse(json, strlen(json), "budget.json", b, err);
}

static void valid_budget(void **state)
{
    (void)state;
    ks_budget b;
    ks_error err;
    const char *json = "{\"schema\": \"kinesift.budget/1\", \"threshold_pct\": 4, \"comment\": \"ci\",\n"
                       " \"checks\": [\n"
                       "  {\"metric\": \"step_time\", \"max_growth_pct\": 3},\n"
                       "  {\"metric\": \"label\", \"name\": \"## forward ##\", \"max_growth_pct\": 10.5},\n"
                       "  {\"metric\": \"gpu_idle_share\", \"max_growth_points\": 2},\n"
                       "  {\"metric\": \"kernel_launches\", \"comment\": \"may not grow\"},\n"
                       "  {\"metric\": \"kernel_time\", \"name\": \"gemm\", \"max_growth_pct\": 0}\n"
                       " ]}";
    assert_int_equal(parse(json, &b, &err), KS_OK);
    assert_int_equal(b.n, 5);
    assert_true(b.has_threshold);
    assert_true(b.threshold_pct == 4);
    assert_int_equal(b.v[0].metric, KS_METRIC_STEP_TIME);
    assert_null(b.v[0].name);
    assert_true(b.v[0].has_limit && b.v[0].limit == 3);
    assert_int_equal(b.v[1].metric, KS_METRIC_LABEL);
    assert_string_equal(b.v[1].name, "## forward ##");
    assert_true(b.v[1].limit == 10.5);
    assert_int_equal(b.v[2].metric, KS_METRIC_GPU_IDLE);
    assert_true(b.v[2].limit == 2);
    assert_int_equal(b.v[3].metric, KS_METRIC_LAUNCHES);
    assert_false(b.v[3].has_limit);
    assert_int_equal(b.v[4].metric, KS_METRIC_KERNEL_TIME);
    assert_true(b.v[4].has_limit && b.v[4].limit == 0);
    ks_budget_free(&b);
}

static void refuse(const char *json, const char *want)
{
    ks_budget b;
    ks_error err;
    if (parse(json, &b, &err) == KS_OK)
        fail_msg("accepted: %s", json);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\" (%s)", err.msg, want, json);
    ks_budget_free(&b);
}

static void malformed_budgets(void **state)
{
    (void)state;
    refuse("", "not valid JSON");
    refuse("{\"checks\": [", "not valid JSON");
    refuse("[]", "a budget is a JSON object");
    refuse("{}", "no \"checks\" array");
    refuse("{\"checks\": {}}", "checks must be an array");
    refuse("{\"schema\": \"kinesift.budget/2\", \"checks\": []}", "schema must be");
    refuse("{\"threshold\": 5, \"checks\": []}", "unknown key 'threshold'");
    refuse("{\"threshold_pct\": -1, \"checks\": []}", "threshold_pct must be");
    refuse("{\"checks\": [5]}", "checks[0] is not an object");
    refuse("{\"checks\": [{\"max_growth_pct\": 3}]}", "checks[0]: no \"metric\"");
    refuse("{\"checks\": [{\"metric\": \"step_time\"}, {\"metric\": \"step_median\"}]}",
           "checks[1]: unknown metric 'step_median'");
    refuse("{\"checks\": [{\"metric\": \"label\", \"max_growth_pct\": 3}]}",
           "checks[0]: metric label needs a \"name\"");
    refuse("{\"checks\": [{\"metric\": \"label\", \"name\": \"\"}]}", "needs a \"name\"");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"name\": \"x\"}]}", "metric step_time takes no \"name\"");
    refuse("{\"checks\": [{\"metric\": \"gpu_idle_share\", \"max_growth_pct\": 2}]}",
           "takes max_growth_points, not max_growth_pct");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"max_growth_points\": 2}]}",
           "takes max_growth_pct, not max_growth_points");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"max_growth_pct\": -3}]}", "must be from 0 to 1000");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"max_growth_pct\": \"3\"}]}", "must be a number");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"max_growth_pct\": 3, \"max_growth_points\": 1}]}",
           "give one limit");
    refuse("{\"checks\": [{\"metric\": 3}]}", "metric must be a string");
    refuse("{\"checks\": [{\"metric\": \"step_time\", \"maxgrowth\": 3}]}", "unknown key 'maxgrowth'");
    refuse("{\"checks\": [{\"metric\": \"label\", \"name\": \"a\"}, {\"metric\": \"label\", \"name\": \"a\"}]}",
           "checks[1]: the check label a is given twice");
}

static void check_flags(void **state)
{
    (void)state;
    ks_budget b = {0};
    ks_error err;
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_STEP_TIME, "3", &err), KS_OK);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LABEL, "## forward ##=10", &err), KS_OK);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LABEL, "a=b=2.5", &err), KS_OK); /* split at the last '=' */
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_GPU_IDLE, "2", &err), KS_OK);
    assert_int_equal(b.n, 4);
    assert_string_equal(b.v[1].name, "## forward ##");
    assert_true(b.v[1].limit == 10);
    assert_string_equal(b.v[2].name, "a=b");
    assert_true(b.v[2].limit == 2.5);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_STEP_TIME, "4", &err), KS_ERR);
    assert_non_null(strstr(err.msg, "given twice"));
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LAUNCHES, "x", &err), KS_ERR);
    assert_non_null(strstr(err.msg, "--kernel-launches wants a limit"));
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LAUNCHES, "-1", &err), KS_ERR);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_GPU_IDLE, "101", &err), KS_ERR);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LABEL, "fwd", &err), KS_ERR);
    assert_non_null(strstr(err.msg, "--label wants NAME=LIMIT"));
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_LABEL, "=5", &err), KS_ERR);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_OP, "aten::mm=", &err), KS_ERR);
    assert_int_equal(ks_budget_add_arg(&b, KS_METRIC_OP, "aten::mm=5%", &err), KS_ERR);
    assert_int_equal(b.n, 4);
    ks_budget_free(&b);
}

static void metric_names(void **state)
{
    (void)state;
    for (int m = 0; m < KS_METRIC_COUNT; m++) {
        ks_metric back;
        assert_int_equal(ks_metric_parse(ks_metric_name((ks_metric)m), &back), 0);
        assert_int_equal(back, m);
    }
    ks_metric x;
    assert_int_equal(ks_metric_parse("steps", &x), -1);
    assert_true(ks_metric_named(KS_METRIC_LABEL) && ks_metric_named(KS_METRIC_VALIDATE));
    assert_false(ks_metric_named(KS_METRIC_STEP_TIME) || ks_metric_named(KS_METRIC_LAUNCHES));
    assert_true(ks_metric_points(KS_METRIC_GPU_IDLE));
    assert_false(ks_metric_points(KS_METRIC_STEP_TIME));
}

static void budget_file(void **state)
{
    (void)state;
    char path[] = "/tmp/ks_budget_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *json = "{\"checks\": [{\"metric\": \"op\", \"name\": \"aten::mm\", \"max_growth_pct\": 7}]}\n";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    ks_budget b = {0};
    ks_error err;
    assert_int_equal(ks_budget_load(path, &b, &err), KS_OK);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.v[0].metric, KS_METRIC_OP);
    assert_false(b.has_threshold);
    ks_budget_free(&b);
    unlink(path);
    assert_int_equal(ks_budget_load(path, &b, &err), KS_ERR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_budget),   cmocka_unit_test(malformed_budgets), cmocka_unit_test(check_flags),
        cmocka_unit_test(metric_names),   cmocka_unit_test(budget_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
