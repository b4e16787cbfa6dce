/* tests/cli/test_lazylib.c: what a run says when libarchive, libcrypto, ISA-L or PCRE2 cannot be
 * loaded (common/lazylib.c). This program is built from lazylib.c itself with other libraries
 * named (tests/cli/meson.build): ones that do not exist for libarchive, ISA-L and PCRE2, and the C
 * library (which lacks every OpenSSL function) for libcrypto. Each load must fail with one line
 * naming the library, the loader's reason and what needs it, the same line at the second call (a
 * failed load is kept, not retried), and leave the table empty. A gzip decoder made without ISA-L
 * (source/gunzip.c) says the same line at its first read, and decodes nothing; a regular
 * expression compiled without PCRE2 (common/regex.c) is refused with the same line. */
#include "ks_test.h"
#include "common/lazylib.h"
#include "common/regex.h"
#include "source/gunzip.h"

static void one_line(const char *m)
{
    assert_null(strchr(m, '\n'));
    assert_true(strlen(m) > 20);
}

/* load fails for a library that is not installed: one line that starts with start (the library
 * and the file tried), says the loader's "No such file" and what needs it (use), and the same
 * line again at a second call */
static void not_installed(int (*load)(ks_error *), const char *start, const char *use, ks_error *e)
{
    ks_error again;
    assert_int_equal(load(e), KS_ERR);
    one_line(e->msg);
    if (strncmp(e->msg, start, strlen(start)) || !strstr(e->msg, "No such file") || !strstr(e->msg, use))
        fail_msg("%s", e->msg);
    assert_int_equal(load(&again), KS_ERR);
    assert_string_equal(again.msg, e->msg);
}

static void missing_library(void **state)
{
    (void)state;
    ks_error e;
    not_installed(ks_archive_load, "cannot load libarchive (" KS_LAZYLIB_TEST_ARCHIVE,
                  "reads standard input, archives", &e);
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

static ssize_t no_more(void *ctx, const void **buf, ks_error *err)
{
    (void)ctx;
    (void)buf;
    (void)err;
    return 0;
}

static void gzip_without_isal(void **state)
{
    (void)state;
    ks_error e, r;
    not_installed(ks_isal_load, "cannot load ISA-L (" KS_LAZYLIB_TEST_ISAL, "decodes gzip input", &e);
    assert_null(ks_isal.isal_inflate);
    /* a whole gzip member of "{}" (gzip -n): the decoder refuses it for the library, not the bytes */
    static const unsigned char gz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xab, 0xae, 5, 0,
                                       0x43, 0xbf, 0xa6, 0xa3, 2, 0, 0, 0};
    ks_gunzip *g = ks_gunzip_new(gz, sizeof gz, no_more, NULL);
    char out[16];
    int integrity = -1;
    assert_int_equal(ks_gunzip_read(g, out, sizeof out, &integrity, &r), KS_ERR);
    assert_int_equal(integrity, 0);
    assert_string_equal(r.msg, e.msg);
    assert_int_equal(ks_gunzip_read(g, out, sizeof out, &integrity, &r), KS_ERR);
    assert_string_equal(r.msg, e.msg);
    ks_gunzip_free(g);
}

static void regex_without_pcre2(void **state)
{
    (void)state;
    ks_error e, r;
    not_installed(ks_pcre2_load, "cannot load PCRE2 (" KS_LAZYLIB_TEST_PCRE2, "matches regular expressions", &e);
    assert_null(ks_pcre2.pcre2_compile_8);
    assert_null(ks_regex_new("ProfilerStep#([0-9]+)", KS_REGEX_UTF, &r));
    assert_string_equal(r.msg, e.msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_library),
        cmocka_unit_test(library_without_the_functions),
        cmocka_unit_test(gzip_without_isal),
        cmocka_unit_test(regex_without_pcre2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
