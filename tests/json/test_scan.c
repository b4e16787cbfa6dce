/* tests/json/test_scan.c: the fast scanner of array elements (json/scan.h) against yajl itself.
 * Hand-made cases say what it must accept (so the parser's workers use it on real traces) and what
 * it must leave to yajl; on every case it accepts, and on thousands of damaged copies of an events
 * array, yajl must make the very same callback calls, with the same arguments and consumed offsets,
 * and end with the same status (fuzz/scan_diff.h), also when a callback cancels. */
#include "ks_test.h"
#include "fuzz/scan_diff.h"

/* The scanner's verdict on text, checked against yajl when it accepts. */
static int verdict(const char *text, long cancel_at)
{
    scan_diff d = scan_compare((const unsigned char *)text, strlen(text), cancel_at);
    if (!d.same)
        fail_msg("%s: %s", text, d.why);
    return d.scan;
}

static void accepts_what_kineto_writes(void **state)
{
    (void)state;
    static const char *ok[] = {
        "",
        "  ",
        "{}",
        "{}, ",
        "{\"ph\": \"X\", \"ts\": 1.5, \"dur\": 2, \"args\": {\"Input Dims\": [[1, 2], []], \"a\": null}},\n  ",
        "{\"name\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"}, {\"x\": \"\\u00e9\\u0000\\u20ac\\u0041\\udc00\"},",
        "{\"n\": [0, -0, 12, -3.25, 1e5, 1E+5, 2.5e-3, -0.0E0]}, {\"t\": [true, false, null]}",
        "{\"k\\u00e9y\": \"\xc3\xa9\xff\xfe raw bytes >= 0x80 pass\"},",
        "{\"deep\": [[[[[[[[{\"a\": [{}]}]]]]]]]]},",
        "[1, 2], \"s\", 3 ,",
        "{ \"a\" : 1 , \"b\" : [ ] , \"c\" : { } } ,\r\n\t",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (verdict(ok[i], -1) != KS_JSCAN_OK)
            fail_msg("refused: %s", ok[i]);
}

static void leaves_the_rest_to_yajl(void **state)
{
    (void)state;
    static const char *refused[] = {
        "]",                          /* the array closes: the main parser's */
        "{}, ]",
        "{\"a\": 1,}",                /* not JSON */
        "{\"a\" 1}",
        "{,}",
        "[1,]",
        "{\"a\": 01}",
        "{\"a\": -}",
        "{\"a\": 1.}",
        "{\"a\": 1e}",
        "{\"a\": tru}",
        "{\"a\": truex}",
        "{\"a\": nul}",
        "{\"a\": \"x\x01y\"}",        /* a raw control character */
        "{\"a\": \"\\x\"}",           /* an invalid escape */
        "{\"a\": \"\\u12G4\"}",
        "{\"a\": \"\\ud83d\\ude00\"}", /* a surrogate pair: yajl decodes it its own way */
        "{\"a\": \"unterminated",
        "{\"a\": 1",                  /* cut inside an element */
        "12",                         /* a number may go on in the next buffer */
        "true",
        "{\"a\":\v1}",                /* yajl's extra blanks */
        "{\"a\": 1} /* c */,",
        "{} {}",
        "'a'",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (verdict(refused[i], -1) != KS_JSCAN_REFUSED)
            fail_msg("accepted: %s", refused[i]);
    /* deeper than KS_JSCAN_DEPTH */
    char deep[2 * KS_JSCAN_DEPTH + 8];
    size_t n = 0;
    for (int i = 0; i <= KS_JSCAN_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i <= KS_JSCAN_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = 0;
    assert_int_equal(verdict(deep, -1), KS_JSCAN_REFUSED);
    /* KS_JSCAN_DEPTH containers exactly are scanned */
    n = 0;
    for (int i = 0; i < KS_JSCAN_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i < KS_JSCAN_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = 0;
    assert_int_equal(verdict(deep, -1), KS_JSCAN_OK);
}

static void cancels_where_yajl_does(void **state)
{
    (void)state;
    const char *t = "{\"ph\": \"X\", \"args\": {\"a\": [1, \"s\\n\", true]}}, {\"ph\": \"i\"},";
    for (long k = 0; k < 17; k++)
        assert_int_equal(verdict(t, k), KS_JSCAN_CANCELED);
    assert_int_equal(verdict(t, 17), KS_JSCAN_OK); /* 17 calls in all */
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void)
{
    return ks_test_rnd(&rng);
}

/* Damaged copies of an events array: each edit overwrites, inserts or deletes a byte from a pool of
 * the bytes that matter to a JSON lexer; whatever the scanner accepts, yajl must agree with. */
static void damaged_copies_agree(void **state)
{
    (void)state;
    static const char base[] =
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<float, 128>(\\\"x\\\")\", \"pid\": 0, "
        "\"tid\": \"stream 7\", \"ts\": 1700000000123.456, \"dur\": 2.5e1, \"args\": {\"External id\": 12, "
        "\"grid\": [128, 1, 1], \"est. achieved occupancy %\": 100, \"ok\": true, \"no\": null}},\n"
        "  {\"ph\": \"f\", \"id\": -3, \"bp\": \"e\", \"name\": \"caf\\u00e9 \xc3\xa9\", \"ts\": 0},\n  ";
    static const char pool[] = "\"\\{}[],:0123456789.eE+-tfnu \n\x01\x0b\xc3/aA";
    size_t accepted = 0;
    for (int i = 0; i < 20000; i++) {
        char b[sizeof base + 16];
        size_t n = sizeof base - 1;
        memcpy(b, base, n);
        n = ks_test_damage(b, n, pool, 1 + (int)(rnd() % 3), &rng);
        long cancel = rnd() % 8 == 0 ? (long)(rnd() % 40) : -1;
        scan_diff d = scan_compare((const unsigned char *)b, n, cancel);
        if (!d.same)
            fail_msg("copy %d (%zu bytes): %s", i, n, d.why);
        accepted += d.scan != KS_JSCAN_REFUSED;
    }
    /* many edits keep valid JSON (a digit for a digit, a letter inside a string): those were
     * compared, not only refused */
    assert_true(accepted > 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_what_kineto_writes),
        cmocka_unit_test(leaves_the_rest_to_yajl),
        cmocka_unit_test(cancels_where_yajl_does),
        cmocka_unit_test(damaged_copies_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
