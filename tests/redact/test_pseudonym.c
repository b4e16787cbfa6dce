/* tests/redact/test_pseudonym.c: HMAC-SHA256 against RFC 4231, keyed tokens (deterministic,
 * class-separated, key-dependent), collision lengthening, distinct counts, key loading. */
#include <unistd.h>

#include "rd_test.h"

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_vector(const void *key, size_t kl, const void *msg, size_t ml, const char *want)
{
    unsigned char out[32];
    char h[65];
    assert_int_equal(ks_rd_hmac_sha256(key, kl, msg, ml, out), 0);
    hex(out, 32, h);
    assert_string_equal(h, want);
}

/* RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (HMAC-SHA-256) */
static void test_rfc4231(void **state)
{
    (void)state;
    unsigned char k1[20], k3[20], k4[25], k6[131], d3[50], d4[50];
    memset(k1, 0x0b, sizeof k1);
    check_vector(k1, 20, "Hi There", 8,
                 "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    check_vector("Jefe", 4, "what do ya want for nothing?", 28,
                 "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(k3, 0xaa, sizeof k3);
    memset(d3, 0xdd, sizeof d3);
    check_vector(k3, 20, d3, 50,
                 "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    for (int i = 0; i < 25; i++)
        k4[i] = (unsigned char)(i + 1);
    memset(d4, 0xcd, sizeof d4);
    check_vector(k4, 25, d4, 50,
                 "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    memset(k6, 0xaa, sizeof k6);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    check_vector(k6, 131, m6, strlen(m6),
                 "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *m7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the HMAC "
                     "algorithm.";
    check_vector(k6, 131, m7, strlen(m7),
                 "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

/* the token of a value is HMAC(key, class || 0 || value), first 8 hex digits */
static void test_token_is_hmac(void **state)
{
    (void)state;
    ks_rd_pseudo *p = ks_rd_pseudo_new(rd_test_key, sizeof rd_test_key);
    ks_buf b = {0};
    ks_rd_pseudo_append(p, KS_CLS_USER, "bob", 3, &b);
    unsigned char d[32];
    char h[65];
    assert_int_equal(ks_rd_hmac_sha256(rd_test_key, sizeof rd_test_key, "user\0bob", 8, d), 0);
    hex(d, 32, h);
    char want[32];
    snprintf(want, sizeof want, "user-%.8s", h);
    assert_string_equal(ks_buf_cstr(&b), want);
    assert_true(ks_rd_is_token(b.p, b.n));
    /* cached: the same again */
    b.n = 0;
    ks_rd_pseudo_append(p, KS_CLS_USER, "bob", 3, &b);
    assert_string_equal(ks_buf_cstr(&b), want);
    ks_buf_free(&b);
    ks_rd_pseudo_free(p);
}

static char *token(ks_rd_pseudo *p, int cls, const char *v)
{
    ks_buf b = {0};
    ks_rd_pseudo_append(p, cls, v, strlen(v), &b);
    ks_buf_cstr(&b);
    return b.p;
}

static void test_classes_and_keys(void **state)
{
    (void)state;
    unsigned char other[32];
    memcpy(other, rd_test_key, 32);
    other[0] ^= 1;
    ks_rd_pseudo *a = ks_rd_pseudo_new(rd_test_key, 32), *b = ks_rd_pseudo_new(rd_test_key, 32);
    ks_rd_pseudo *c = ks_rd_pseudo_new(other, 32);
    char *u1 = token(a, KS_CLS_USER, "alice"), *u2 = token(b, KS_CLS_USER, "alice");
    char *h1 = token(a, KS_CLS_HOST, "alice"), *u3 = token(c, KS_CLS_USER, "alice");
    assert_string_equal(u1, u2);                    /* deterministic per key */
    assert_string_not_equal(u1 + 5, h1 + 5);        /* class-separated */
    assert_string_not_equal(u1, u3);                /* key-dependent */
    assert_int_equal(strncmp(h1, "host-", 5), 0);
    free(u1), free(u2), free(h1), free(u3);
    assert_int_equal(ks_rd_pseudo_distinct(a, KS_CLS_USER), 1);
    assert_int_equal(ks_rd_pseudo_distinct(a, KS_CLS_HOST), 1);
    ks_rd_pseudo_free(a);
    ks_rd_pseudo_free(b);
    ks_rd_pseudo_free(c);
}

/* 300000 values in one class: 8 hex digits collide (n^2 / 2^33 ~ 10 expected; 5 with this key); every value
 * must still get its own token, and a token once given stays. */
static void test_collisions(void **state)
{
    (void)state;
    ks_rd_pseudo *p = ks_rd_pseudo_new(rd_test_key, 32);
    const size_t n = 300000;
    char **tok = ks_xcalloc(n, sizeof *tok);
    char v[32];
    for (size_t i = 0; i < n; i++) {
        snprintf(v, sizeof v, "host%zu", i);
        tok[i] = token(p, KS_CLS_HOST, v);
    }
    assert_true(ks_rd_pseudo_collisions(p, KS_CLS_HOST) > 0);
    assert_true(ks_rd_pseudo_hexlen(p, KS_CLS_HOST) >= 12);
    assert_int_equal(ks_rd_pseudo_distinct(p, KS_CLS_HOST), n);
    /* all distinct */
    qsort(tok, n, sizeof *tok, (int (*)(const void *, const void *))strcmp);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(tok[i - 1], tok[i]))
            fail_msg("two values share %s", tok[i]);
    /* the first value keeps its 8-digit token */
    char *again = token(p, KS_CLS_HOST, "host0");
    assert_int_equal(strlen(again), 5 + 8);
    free(again);
    for (size_t i = 0; i < n; i++)
        free(tok[i]);
    free(tok);
    ks_rd_pseudo_free(p);
}

static void test_key_load(void **state)
{
    (void)state;
    char path[] = "/tmp/ks-redact-key-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "short\n", 6), 6);
    close(fd);
    unsigned char *key;
    size_t len;
    ks_redact_key_source src;
    ks_error err;
    assert_int_equal(ks_redact_key_load(path, &key, &len, &src, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "at least 32"));
    const char *k64 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    FILE *f = fopen(path, "w");
    fprintf(f, "%s\n", k64);
    fclose(f);
    assert_int_equal(ks_redact_key_load(path, &key, &len, &src, &err), KS_OK);
    assert_int_equal(src, KS_KEY_FILE);
    assert_int_equal(len, 64); /* the newline is not part of the key */
    assert_memory_equal(key, k64, 64);
    ks_redact_key_free(key, len);
    unlink(path);
    setenv(KS_REDACT_KEY_ENV, k64, 1);
    assert_int_equal(ks_redact_key_load(NULL, &key, &len, &src, &err), KS_OK);
    assert_int_equal(src, KS_KEY_ENV);
    assert_int_equal(len, 64);
    ks_redact_key_free(key, len);
    setenv(KS_REDACT_KEY_ENV, "too short", 1);
    assert_int_equal(ks_redact_key_load(NULL, &key, &len, &src, &err), KS_ERR);
    unsetenv(KS_REDACT_KEY_ENV);
    assert_int_equal(ks_redact_key_load(NULL, &key, &len, &src, &err), KS_OK);
    assert_int_equal(src, KS_KEY_RANDOM);
    assert_null(key);
}

/* two random keys give different tokens */
static void test_random_key(void **state)
{
    (void)state;
    ks_rd_pseudo *a = ks_rd_pseudo_new(NULL, 0), *b = ks_rd_pseudo_new(NULL, 0);
    char *x = token(a, KS_CLS_USER, "carol"), *y = token(b, KS_CLS_USER, "carol");
    assert_string_not_equal(x, y);
    free(x);
    free(y);
    ks_rd_pseudo_free(a);
    ks_rd_pseudo_free(b);
}

static void test_tokens(void **state)
{
    (void)state;
    assert_true(ks_rd_is_token("user-1a2b3c4d", 13));
    assert_true(ks_rd_is_token("host-1a2b3c4d5e6f", 17));
    assert_false(ks_rd_is_token("user-1a2b3c4", 12));     /* 7 digits */
    assert_false(ks_rd_is_token("user-1a2b3c4dx", 14));
    assert_false(ks_rd_is_token("user-1A2B3C4D", 13));    /* uppercase: not ours */
    assert_true(ks_rd_is_token("<path-0123abcd>", 15));
    assert_true(ks_rd_is_token("email-0123abcd@example.invalid", 30));
    assert_false(ks_rd_is_token("email-0123abcd@example.com", 26));
    assert_true(ks_rd_is_token("[REDACTED:github-token]", 23));
    assert_true(ks_rd_is_token("__stripped__", 12));
    const char *s = "run by user-0123abcd now";
    assert_true(ks_rd_in_token(s, strlen(s), 12, 4));
    assert_false(ks_rd_in_token(s, strlen(s), 0, 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4231),
        cmocka_unit_test(test_token_is_hmac),
        cmocka_unit_test(test_classes_and_keys),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_key_load),
        cmocka_unit_test(test_random_key),
        cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
