/* tests/json/test_repair.c: the repairing pre-filter (repair.c) on its own: valid JSON passes
 * byte for byte, each malformation is repaired and counted, and decisions that need look-ahead
 * wait for more input instead of guessing. */
#include "ks_test.h"
#include "json/repair.h"

static char *run_all(ks_repair *r, const char *in)
{
    size_t n = strlen(in);
    size_t used = ks_repair_run(r, in, n, 1);
    assert_int_equal(used, n);
    char *s = malloc(r->res_len + 1);
    memcpy(s, r->res, r->res_len);
    s[r->res_len] = 0;
    return s;
}

static void expect_repair(const char *in, const char *want, int kind, uint64_t count)
{
    ks_repair r;
    ks_repair_init(&r);
    char *got = run_all(&r, in);
    assert_string_equal(got, want);
    if (kind >= 0)
        assert_int_equal(r.count[kind], count);
    free(got);
    ks_repair_free(&r);
}

static void valid_json_is_unchanged(void **state)
{
    (void)state;
    const char *in = "{\"a\": \"x\\\"y\\\\z\\u00e9\", \"b\": [1, 2.5, \"\xc3\xa9\"], \"c\": {\"d\": null}}";
    ks_repair r;
    ks_repair_init(&r);
    char *got = run_all(&r, in);
    assert_string_equal(got, in);
    for (int k = 0; k < KS_REPAIR_NKINDS; k++)
        assert_int_equal(r.count[k], 0);
    free(got);
    ks_repair_free(&r);
}

static void unescaped_quote(void **state)
{
    (void)state;
    expect_repair("{\"name\": \"say \"hi\" now\", \"x\": 1}",
                  "{\"name\": \"say \\\"hi\\\" now\", \"x\": 1}", KS_REPAIR_QUOTE, 2);
    /* a quote followed by blanks then a letter is still inside */
    expect_repair("[\"a\" b\"]", "[\"a\\\" b\"]", KS_REPAIR_QUOTE, 1);
}

static void control_characters(void **state)
{
    (void)state;
    expect_repair("[\"a\nb\tc\"]", "[\"a\\u000ab\\u0009c\"]", KS_REPAIR_CONTROL, 2);
}

static void invalid_escapes(void **state)
{
    (void)state;
    expect_repair("[\"C:\\Users\\me\\_x\"]", "[\"C:\\\\Users\\\\me\\\\_x\"]", KS_REPAIR_ESCAPE, 3);
    /* \u with too few hex digits */
    expect_repair("[\"\\u12g4\"]", "[\"\\\\u12g4\"]", KS_REPAIR_ESCAPE, 1);
}

static void invalid_utf8(void **state)
{
    (void)state;
    expect_repair("[\"a\xff" "b\xc3\"]", "[\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"]", KS_REPAIR_UTF8, 2);
    /* overlong encoding and surrogate */
    expect_repair("[\"\xc0\xaf\xed\xa0\x80\"]",
                  "[\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"]",
                  KS_REPAIR_UTF8, 5);
}

static void trailing_commas(void **state)
{
    (void)state;
    expect_repair("[{\"a\": 1,}, {\"b\": 2}, \n]", "[{\"a\": 1}, {\"b\": 2} \n]", KS_REPAIR_COMMA, 2);
    /* a comma inside a string is not touched */
    expect_repair("[\"a,]\"]", "[\"a,]\"]", KS_REPAIR_COMMA, 0);
}

static void lookahead_waits_for_input(void **state)
{
    (void)state;
    ks_repair r;
    ks_repair_init(&r);
    /* a quote at the end of the buffer: undecided until more input arrives */
    const char *a = "[\"abc\"";
    size_t used = ks_repair_run(&r, a, strlen(a), 0);
    assert_int_equal(used, 5);
    assert_int_equal(r.res_len, 5);
    /* a cut UTF-8 sequence and a cut escape wait too */
    ks_repair_reset(&r);
    const char *b = "[\"ab\xc3";
    assert_int_equal(ks_repair_run(&r, b, strlen(b), 0), 4);
    ks_repair_reset(&r);
    const char *c = "[\"ab\\u00";
    assert_int_equal(ks_repair_run(&r, c, strlen(c), 0), 4);
    /* a comma followed only by blanks waits */
    ks_repair_reset(&r);
    const char *d = "[1,   ";
    assert_int_equal(ks_repair_run(&r, d, strlen(d), 0), 2);
    ks_repair_free(&r);
}

static void chunked_equals_whole(void **state)
{
    (void)state;
    const char *in = "[{\"n\": \"a\"b\", \"p\": \"C:\\x\\y\", \"u\": \"\xe2\x82\xac\xff\", \"c\": \"l\nm\",},]";
    ks_repair whole;
    ks_repair_init(&whole);
    char *want = run_all(&whole, in);
    /* feed in every chunk size from 1 to 7 bytes, re-offering the unconsumed tail */
    for (size_t step = 1; step <= 7; step++) {
        ks_repair r;
        ks_repair_init(&r);
        ks_buf out = {0};
        size_t n = strlen(in), avail = 0, pos = 0;
        while (pos < n) {
            avail = avail + step > n - pos ? n - pos : avail + step;
            int eof = pos + avail == n;
            size_t used = ks_repair_run(&r, in + pos, avail, eof);
            ks_buf_put(&out, r.res, r.res_len);
            pos += used;
            avail -= used;
        }
        assert_string_equal(ks_buf_cstr(&out), want);
        for (int k = 0; k < KS_REPAIR_NKINDS; k++)
            assert_int_equal(r.count[k], whole.count[k]);
        ks_buf_free(&out);
        ks_repair_free(&r);
    }
    free(want);
    ks_repair_free(&whole);
}

static void offsets_map_back(void **state)
{
    (void)state;
    ks_repair r;
    ks_repair_init(&r);
    const char *in = "[\"a\nb\", 1,]"; /* control char grows by 5, trailing comma shrinks by 1 */
    char *out = run_all(&r, in);
    /* the '1' is at input offset 8 and output offset 13 */
    assert_int_equal(out[13], '1');
    assert_int_equal(ks_repair_in_offset(&r, 13), 8);
    /* the closing bracket is at input 10, output 14 */
    assert_int_equal(out[14], ']');
    assert_int_equal(ks_repair_in_offset(&r, 14), 10);
    free(out);
    ks_repair_free(&r);
}

/* The 64-byte block path (32-byte AVX2 vectors where the CPU has them, else 16-byte SSE2 ones)
 * must agree with the byte-by-byte path and with the 16-byte path on any input: random texts
 * built from JSON-ish fragments, valid and broken, in every chunking. Each run's newline count
 * (the blocks count theirs as they are classified) is that of the bytes it consumed. */
static void blocks_agree_with_bytes(void **state)
{
    (void)state;
    static const char *const frags[] = {
        "{", "}", "[", "]", ",", ":", " ", "\n    ", "\"name\"", "\"ph\": \"X\"", "\"a\"b\"", "\\",
        "\\n", "\\u00e9", "\\q", "\"", "\t", "\x01", "\xc3\xa9", "\xff", "123.456", ", ]", ",\n}",
        "\"k\": \"v\", ", "\"x\" ", "\"y\"\n,", "abcdefghijklmnopqrstuvwxyz0123456789",
    };
    const size_t nf = sizeof frags / sizeof frags[0];
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 400; round++) {
        ks_buf text = {0};
        int len = 20 + round % 300;
        for (int k = 0; k < len; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            /* odd rounds draw mostly from the valid fragments at the end of the list, so that
             * whole clean blocks occur and the fast path is taken */
            size_t f = (seed >> 33) % nf;
            if (round % 2 && f < nf - 4 && (seed >> 20) % 8)
                f = nf - 4 + (seed >> 40) % 4;
            ks_buf_puts(&text, frags[f]);
        }
        const char *in = ks_buf_cstr(&text);
        size_t n = text.n;
        ks_buf outs[3] = {{0}, {0}, {0}};
        uint64_t counts[3][KS_REPAIR_NKINDS];
        for (int mode = 0; mode < 3; mode++) { /* the CPU's widest block path, bytes, 16-byte blocks */
            ks_repair r;
            ks_repair_init(&r);
            r.no_blocks = mode == 1;
            r.narrow_blocks = mode == 2;
            size_t pos = 0, step = 70 + (size_t)round % 200, avail = 0;
            while (pos < n) {
                avail = avail + step > n - pos ? n - pos : avail + step;
                int eof = pos + avail == n;
                size_t used = ks_repair_run(&r, in + pos, avail, eof);
                ks_buf_put(&outs[mode], r.res, r.res_len);
                uint64_t nl = 0; /* the run's newlines: those of the bytes it consumed */
                for (size_t i = 0; i < used; i++)
                    nl += in[pos + i] == '\n';
                if (r.newlines != nl)
                    fail_msg("round %d, mode %d, run at %zu: %llu newlines counted, %llu in the bytes", round, mode,
                             pos, (unsigned long long)r.newlines, (unsigned long long)nl);
                pos += used;
                avail -= used;
            }
            memcpy(counts[mode], r.count, sizeof r.count);
            ks_repair_free(&r);
        }
        for (int mode = 1; mode < 3; mode++) {
            assert_int_equal(outs[0].n, outs[mode].n);
            assert_memory_equal(outs[0].p, outs[mode].p, outs[0].n);
            assert_memory_equal(counts[0], counts[mode], sizeof counts[0]);
            ks_buf_free(&outs[mode]);
        }
        ks_buf_free(&outs[0]);
        ks_buf_free(&text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_json_is_unchanged),
        cmocka_unit_test(unescaped_quote),
        cmocka_unit_test(control_characters),
        cmocka_unit_test(invalid_escapes),
        cmocka_unit_test(invalid_utf8),
        cmocka_unit_test(trailing_commas),
        cmocka_unit_test(lookahead_waits_for_input),
        cmocka_unit_test(chunked_equals_whole),
        cmocka_unit_test(offsets_map_back),
        cmocka_unit_test(blocks_agree_with_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
