/* tests/validate/test_extcmd.c: the lines external commands print: `kinesift-sample <ms>`
 * converted exactly to ns (no binary floating point on the way), malformed values refused,
 * other lines ignored; `kinesift-check <value>`. */
#include "ks_test.h"

#include "kinesift/validate.h"
#include "validate/validate_int.h"

static int64_t ns_of(const char *line)
{
    int64_t ns = -1;
    if (ks_extcmd_parse_sample(line, &ns) != 1)
        fail_msg("not a sample: '%s'", line);
    return ns;
}

static void exact_conversion(void **state)
{
    (void)state;
    assert_int_equal(ns_of("kinesift-sample 10"), 10000000);
    assert_int_equal(ns_of("kinesift-sample 10.5\n"), 10500000);
    assert_int_equal(ns_of("  kinesift-sample\t0.0015\r\n"), 1500);
    assert_int_equal(ns_of("kinesift-sample 1e-3"), 1000);
    assert_int_equal(ns_of("kinesift-sample 1.5E2"), 150000000);
    assert_int_equal(ns_of("kinesift-sample +2.000001"), 2000001);
    assert_int_equal(ns_of("kinesift-sample 007.25"), 7250000);
    assert_int_equal(ns_of("kinesift-sample .5"), 500000);
    assert_int_equal(ns_of("kinesift-sample 0"), 0);
    /* 0.1 ms is 100000 ns exactly (0.1 is not exact in binary) */
    assert_int_equal(ns_of("kinesift-sample 0.1"), 100000);
    /* below 1 ns: rounded half away from zero */
    assert_int_equal(ns_of("kinesift-sample 0.0000004"), 0);
    assert_int_equal(ns_of("kinesift-sample 0.0000005"), 1);
    assert_int_equal(ns_of("kinesift-sample 12.3456785"), 12345679);
    assert_int_equal(ns_of("kinesift-sample 12.3456784999"), 12345678);
    /* torch prints floats like this */
    assert_int_equal(ns_of("kinesift-sample 9.876543807983398"), 9876544);
}

static void malformed_and_other_lines(void **state)
{
    (void)state;
    int64_t ns;
    const char *bad[] = {"kinesift-sample", "kinesift-sample abc", "kinesift-sample -1",
                         "kinesift-sample 10ms", "kinesift-sample 1e", "kinesift-sample .",
                         "kinesift-sample 1 2", "kinesift-sample 1e400", "kinesift-sample nan",
                         "kinesift-sample 99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ks_extcmd_parse_sample(bad[i], &ns) != -1)
            fail_msg("accepted '%s'", bad[i]);
    const char *other[] = {"", "epoch 1 loss 0.5", "kinesift-samples 10", "kinesift-check 3",
                           "# kinesift-sample 10"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        assert_int_equal(ks_extcmd_parse_sample(other[i], &ns), 0);
}

static void check_lines(void **state)
{
    (void)state;
    char *v = NULL;
    assert_int_equal(ks_extcmd_parse_check("kinesift-check  3.25 \n", &v), 1);
    assert_string_equal(v, "3.25");
    free(v);
    assert_int_equal(ks_extcmd_parse_check("kinesift-check sha256:abc def", &v), 1);
    assert_string_equal(v, "sha256:abc def");
    free(v);
    assert_int_equal(ks_extcmd_parse_check("kinesift-sample 3", &v), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_conversion),
        cmocka_unit_test(malformed_and_other_lines),
        cmocka_unit_test(check_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
