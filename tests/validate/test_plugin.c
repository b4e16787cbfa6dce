/* tests/validate/test_plugin.c: loading workload plugins: a valid one, and every refusal
 * (wrong ABI version, short table, one variant, no entry point, not a library). The plugins
 * are built from plugin_cpu.c by tests/validate/meson.build; their directory is in
 * KS_TEST_PLUGIN_DIR. */
#include "ks_test.h"

#include "kinesift/validate.h"

static const char *plugin(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/lib%s.so", getenv("KS_TEST_PLUGIN_DIR"), name);
    return buf;
}

static void loads_a_valid_plugin(void **state)
{
    (void)state;
    ks_plugin p;
    ks_error err;
    assert_int_equal(ks_plugin_open(plugin("ks_test_plugin_ok"), &p, &err), KS_OK);
    assert_string_equal(p.w->name, "cpu-test");
    assert_int_equal(p.w->nvariants, 2);
    assert_string_equal(p.w->variants[1], "fast");
    assert_null(p.w->check);
    ks_plugin_close(&p);
    assert_null(p.handle);
}

static void refuses(const char *name, const char *expect)
{
    ks_plugin p;
    ks_error err;
    assert_int_equal(ks_plugin_open(plugin(name), &p, &err), KS_ERR);
    if (!strstr(err.msg, expect))
        fail_msg("%s: '%s' does not say '%s'", name, err.msg, expect);
    assert_null(p.handle);
}

static void refusals(void **state)
{
    (void)state;
    refuses("ks_test_plugin_badabi", "ABI version 99");
    refuses("ks_test_plugin_small", "table of 16 bytes");
    refuses("ks_test_plugin_onevariant", "at least two variants");
    refuses("ks_test_plugin_noentry", "no kinesift_workload_v1() exported");
    refuses("does_not_exist", "does_not_exist");
}

static void table_checks(void **state)
{
    (void)state;
    static const char *const v[] = {"a", ""};
    ks_workload w = {KS_WORKLOAD_ABI_VERSION, sizeof w, "t", "", 2, v, NULL, NULL, NULL, NULL};
    ks_error err;
    assert_int_equal(ks_workload_check_table(&w, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "variant 1 has no name"));
    static const char *const v2[] = {"a", "b"};
    w.variants = v2;
    assert_int_equal(ks_workload_check_table(&w, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "no run()"));
    assert_int_equal(ks_workload_check_table(NULL, &err), KS_ERR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_a_valid_plugin),
        cmocka_unit_test(refusals),
        cmocka_unit_test(table_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
