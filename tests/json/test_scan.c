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

/* Numbers of every length up to 24 digits before and 12 after the point, ending at the end of the
 * text or followed by each kind of byte (those that end a value and those that do not, ':' and
 * '/' beside the digits, bytes whose sum with 6 carries): the scanner's digit runs, 8 bytes at a
 * time, against yajl; an element followed by ',' or a blank is accepted. */
static void numbers_of_every_length_agree(void **state)
{
    (void)state;
    static const char *const after[] = {"", ",", "}", "]", " ", "\n", ":", "/", "a", ".", "e", "\xfa", "\xff"};
    char text[96];
    for (int nint = 1; nint <= 24; nint++)
        for (int nfrac = -1; nfrac <= 12; nfrac++)
            for (size_t k = 0; k < sizeof after / sizeof *after; k++) {
                size_t n = 0;
                for (int i = 0; i < nint; i++)
                    text[n++] = (char)('1' + (i * 7 + nfrac + 3) % 9);
                if (nfrac >= 0) {
                    text[n++] = '.';
                    for (int i = 0; i < nfrac; i++)
                        text[n++] = (char)('0' + (i * 3 + nint) % 10);
                }
                snprintf(text + n, sizeof text - n, "%s", after[k]);
                int v = verdict(text, -1);
                if (nfrac != 0 && (k == 1 || k == 4 || k == 5) && v != KS_JSCAN_OK)
                    fail_msg("refused: %s", text);
            }
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

/* The whole-array mode (ks_jscan.want_raw, raw_array): the calls are yajl's but for the arrays
 * the key callback asked for whole, each handed over once as its bytes when it holds no object and
 * no escape; the others get their calls. */
typedef struct raw_log {
    ks_buf log;
    ks_jscan *s;
} raw_log;

static int rl_put(void *c, const char *what, const void *p, size_t n)
{
    raw_log *r = c;
    ks_buf_printf(&r->log, "%s:", what);
    if (p)
        ks_buf_put(&r->log, p, n);
    ks_buf_puts(&r->log, "\n");
    return 1;
}
static int rl_null(void *c) { return rl_put(c, "null", NULL, 0); }
static int rl_bool(void *c, int b) { return rl_put(c, b ? "true" : "false", NULL, 0); }
static int rl_number(void *c, const char *s, size_t n) { return rl_put(c, "num", s, n); }
static int rl_string(void *c, const unsigned char *s, size_t n) { return rl_put(c, "str", s, n); }
static int rl_start_map(void *c) { return rl_put(c, "{", NULL, 0); }
static int rl_end_map(void *c) { return rl_put(c, "}", NULL, 0); }
static int rl_start_array(void *c) { return rl_put(c, "[", NULL, 0); }
static int rl_end_array(void *c) { return rl_put(c, "]", NULL, 0); }
static int rl_key(void *c, const unsigned char *s, size_t n)
{
    raw_log *r = c;
    if (n == 1 && s[0] == 'k')
        r->s->want_raw = 1;
    return rl_put(c, "key", s, n);
}
static int rl_raw(void *c, const unsigned char *s, size_t n)
{
    raw_log *r = c;
    ks_buf_printf(&r->log, "raw@%zu:", r->s->consumed);
    ks_buf_put(&r->log, s, n);
    ks_buf_puts(&r->log, "\n");
    return 1;
}
static const yajl_callbacks raw_callbacks = {
    rl_null, rl_bool, NULL, NULL, rl_number, rl_string, rl_start_map, rl_key, rl_end_map, rl_start_array, rl_end_array,
};

static char *raw_run(const char *text, int with_raw, int *rc)
{
    ks_jscan s = {0};
    s.raw_array = with_raw ? rl_raw : NULL;
    raw_log r = {{0}, &s};
    *rc = ks_jscan_elements(&s, &raw_callbacks, &r, (const unsigned char *)text, strlen(text));
    ks_jscan_free(&s);
    ks_buf_cstr(&r.log);
    return r.log.p;
}

static void whole_arrays_when_asked(void **state)
{
    (void)state;
    const char *text = "{\"k\": [[1, 2],\n [], \"a b\", true, false, null, -1.5e3], \"j\": [1], "
                       "\"k\": [{\"x\": 1}], \"k\": [\"a\\\"b\"], \"k\": 5, \"k\" : [ ], \"j\": 2}, ";
    const char *whole = "[[1, 2],\n [], \"a b\", true, false, null, -1.5e3]";
    size_t end1 = (size_t)(strstr(text, whole) - text) + strlen(whole);
    size_t end2 = (size_t)(strstr(text, "[ ]") - text) + 3;
    char want[1024];
    snprintf(want, sizeof want,
             "{:\nkey:k\nraw@%zu:%s\nkey:j\n[:\nnum:1\n]:\nkey:k\n[:\n{:\nkey:x\nnum:1\n}:\n]:\n"
             "key:k\n[:\nstr:a\"b\n]:\nkey:k\nnum:5\nkey:k\nraw@%zu:[ ]\nkey:j\nnum:2\n}:\n",
             end1, whole, end2);
    int rc;
    char *got = raw_run(text, 1, &rc);
    assert_int_equal(rc, KS_JSCAN_OK);
    assert_string_equal(got, want);
    free(got);
    /* no raw_array: yajl's calls throughout, as scan_compare checks them */
    got = raw_run(text, 0, &rc);
    assert_int_equal(rc, KS_JSCAN_OK);
    assert_null(strstr(got, "raw@"));
    assert_int_equal(verdict(text, -1), KS_JSCAN_OK);
    free(got);
    /* an array deeper than the scanner goes: not whole, refused as without the mode */
    ks_buf deep = {0};
    ks_buf_puts(&deep, "{\"k\": ");
    for (int i = 0; i < KS_JSCAN_DEPTH; i++)
        ks_buf_puts(&deep, "[");
    for (int i = 0; i < KS_JSCAN_DEPTH; i++)
        ks_buf_puts(&deep, "]");
    ks_buf_puts(&deep, "}");
    got = raw_run(ks_buf_cstr(&deep), 1, &rc);
    assert_int_equal(rc, KS_JSCAN_REFUSED);
    assert_null(strstr(got, "raw@"));
    free(got);
    ks_buf_free(&deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_what_kineto_writes),
        cmocka_unit_test(leaves_the_rest_to_yajl),
        cmocka_unit_test(numbers_of_every_length_agree),
        cmocka_unit_test(cancels_where_yajl_does),
        cmocka_unit_test(damaged_copies_agree),
        cmocka_unit_test(whole_arrays_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
