/* tests/cli/test_lazylib.c: what a run says when libarchive or libcrypto cannot be loaded
 * (common/lazylib.c). This program is built from lazylib.c itself with other libraries named
 * (tests/cli/meson.build): one that does not exist for libarchive, and the C library (which lacks
 * every OpenSSL function) for libcrypto. Each load must fail with one line naming the library,
 * the loader's reason and what needs it, the same line at the second call (a failed load is kept,
 * not retried), and leave the table empty. */
#include "ks_test.h"
#include "common/lazylib.h"

static void one_line(const char *m)
{
    assert_null(strchr(m, '\n'));
    assert_true(strlen(m) > 20);
}

static void missing_library(void **state)
{
    (void)state;
    ks_error e, again;
    assert_int_equal(ks_archive_load(&e), KS_ERR);
    one_line(e.msg);
    if (!strstr(e.msg, "cannot load libarchive (" KS_LAZYLIB_TEST_ARCHIVE) ||
        !strstr(e.msg, "No such file") || !strstr(e.msg, "reads standard input, archives"))
        fail_msg("%s", e.msg);
    assert_int_equal(ks_archive_load(&again), KS_ERR);
    assert_string_equal(again.msg, e.msg);
    assert_null(ks_ar.archive_read_new);
}

static void library_without_the_functions(void **state)
{
    (void)state;
    ks_error e;
    assert_int_equal(ks_crypto_load(&e), KS_ERR);
    one_line(e.msg);
    if (!strstr(e.msg, "cannot load OpenSSL's libcrypto: " KS_LAZYLIB_TEST_CRYPTO " lacks OpenSSL_version") ||
        !strstr(e.msg, "HMAC-SHA256"))
        fail_msg("%s", e.msg);
    assert_null(ks_crypto.EVP_MAC_fetch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_library),
        cmocka_unit_test(library_without_the_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
