/* tests/parser/test_compact.c: the shape text's compaction 16 bytes a step (parser/compact.c)
 * against the byte loop it stands in for (values.c, ks_ps_cap_raw), byte for byte: random texts
 * of brackets, commas, numbers, blanks of the four kinds and strings (blanks, brackets and commas
 * inside them kept), of every length from 0 to 80 and some of thousands, from outside and from
 * inside a string, with output limits that cut them anywhere (texts over 16 bytes end in a step
 * over their last 16, texts under it in a step over a copy); nothing written at or past the
 * limit. On x86-64 with SSSE3 the steps must do the work (a text of 47 bytes, far from the limit,
 * all of it). */
#include "ks_test.h"
#include "parser/compact.h"

/* values.c's byte loop: from s + i, o + *m, up to the limit; returns where it stopped */
static size_t bytes(const char *s, size_t i, size_t n, char *o, size_t *m, size_t mmax, unsigned *in)
{
    while (i < n && *m < mmax) {
        unsigned char c = (unsigned char)s[i++];
        if (!*in && (c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            continue;
        o[(*m)++] = (char)c;
        *in ^= c == '"';
    }
    return i;
}

static size_t random_text(char *b, size_t n, uint64_t *r)
{
    static const char *const out[] = {"[", "]", ",", ", ", "\n", "\n        ", "\t", "\r\n", "  ",
                                      "1", "2048", "-7", "0.5", "true", "null", "[]"};
    static const char in[] = "ab [],{}:\t\n\r 09xyz";
    size_t k = 0;
    while (k < n) {
        if (ks_test_rnd(r) % 5 == 0) { /* a string, possibly left open at the end */
            b[k++] = '"';
            size_t len = (size_t)(ks_test_rnd(r) % 24);
            for (size_t j = 0; j < len && k < n; j++)
                b[k++] = in[ks_test_rnd(r) % (sizeof in - 1)];
            if (k < n)
                b[k++] = '"';
        } else {
            const char *t = out[ks_test_rnd(r) % (sizeof out / sizeof *out)];
            for (size_t j = 0; t[j] && k < n; j++)
                b[k++] = t[j];
        }
    }
    return k;
}

/* One text both ways: the steps then the byte loop, and the byte loop alone. */
static void same(const char *s, size_t n, size_t mmax, unsigned in0)
{
    char want[9000], got[9000 + 64];
    size_t wm = 0, gm = 0;
    unsigned win = in0, gin = in0;
    size_t wi = bytes(s, 0, n, want, &wm, mmax, &win);
    memset(got, 0x5a, sizeof got);
    size_t gi = ks_ps_compact_blocks(s, n, got, &gm, mmax, &gin);
    assert_true(gi <= n);
    assert_true(gm <= mmax);
    gi = bytes(s, gi, n, got, &gm, mmax, &gin);
    assert_int_equal(gi, wi);
    assert_int_equal(gm, wm);
    assert_int_equal(gin, win);
    assert_memory_equal(got, want, wm);
    for (size_t k = mmax; k < sizeof got; k++)
        assert_int_equal((unsigned char)got[k], 0x5a); /* nothing written at or past the limit */
}

static void random_texts_as_the_byte_loop(void **state)
{
    (void)state;
    uint64_t r = 0x9e3779b97f4a7c15ull;
    char s[8200];
    for (size_t n = 0; n <= 80; n++)
        for (int rep = 0; rep < 60; rep++) {
            size_t len = random_text(s, n, &r);
            same(s, len, 8191, 0);
            same(s, len, 8191, 1);
            same(s, len, (size_t)(ks_test_rnd(&r) % 64), rep & 1); /* a limit that cuts it */
        }
    for (int rep = 0; rep < 40; rep++) {
        size_t len = random_text(s, 1000 + (size_t)(ks_test_rnd(&r) % 7000), &r);
        same(s, len, 8191, 0);
        same(s, len, 100 + (size_t)(ks_test_rnd(&r) % 8000), 0);
    }
    /* a text whose compact form is longer than the limit: cut there, the rest left */
    memset(s, '1', sizeof s);
    same(s, sizeof s, 8191, 0);
}

static void blanks_outside_strings_go(void **state)
{
    (void)state;
    const char *t = "[[1, 2048],\n        [\"a b\", \"\\t\"],\r\n\t[]]     \"  x  \" ,  [ 3 ]";
    char o[256];
    size_t m = 0;
    unsigned in = 0;
    size_t i = ks_ps_compact_blocks(t, strlen(t), o, &m, 200, &in);
    i = bytes(t, i, strlen(t), o, &m, 200, &in);
    assert_int_equal(i, strlen(t));
    o[m] = 0;
    assert_string_equal(o, "[[1,2048],[\"a b\",\"\\t\"],[]]\"  x  \",[3]");
    assert_int_equal(in, 0);
}

static void the_steps_do_the_work(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("ssse3") || !__builtin_cpu_supports("popcnt"))
        skip();
    const char *t = "[[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]";
    char o[128];
    size_t m = 0;
    unsigned in = 0;
    assert_int_equal(ks_ps_compact_blocks(t, strlen(t), o, &m, 100, &in), strlen(t));
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_texts_as_the_byte_loop),
        cmocka_unit_test(blanks_outside_strings_go),
        cmocka_unit_test(the_steps_do_the_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
