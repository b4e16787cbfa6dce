/* tests/common/test_cpufeat.c: the CPU features the vector paths are chosen by (common/cpufeat.h)
 * agree with GCC's own reading of the CPU (__builtin_cpu_supports, which runs CPUID here), on
 * whatever machine runs the test: a feature glibc reports that the CPU lacks would run an
 * instruction it does not have, one it leaves out would take the slow path for nothing. */
#include "ks_test.h"
#include "common/cpufeat.h"

static void features_agree_with_cpuid(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    assert_int_equal(ks_cpu_has_avx2(), __builtin_cpu_supports("avx2") != 0);
    assert_int_equal(ks_cpu_has_ssse3_popcnt(),
                     __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("popcnt"));
    /* every x86-64 CPU since 2008 has SSSE3 and POPCNT: the machines that run these tests do */
    assert_int_equal(ks_cpu_has_ssse3_popcnt(), 1);
#else
    assert_int_equal(ks_cpu_has_avx2(), 0);
    assert_int_equal(ks_cpu_has_ssse3_popcnt(), 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features_agree_with_cpuid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
