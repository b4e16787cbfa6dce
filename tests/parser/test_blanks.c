/* tests/parser/test_blanks.c: the indentation-dropping stage (parser/blanks.c) on its own: which
 * blank runs go and which stay, and that every kept output byte maps back to its input offset
 * (through the repair filter's map too). Whole traces read with and without it are compared in
 * test_reader.c. */
#include "ks_test.h"
#include "parser/blanks.h"
#include "json/repair.h"

/* Output byte c maps to input offset at: the byte itself, or, right after a dropped run, the
 * run's first byte (then c is the first byte after the run). */
static int maps_to(const char *text, size_t at, char c)
{
    if (text[at] == c)
        return 1;
    while (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n')
        at++;
    return text[at] == c;
}

/* Filter text (as the repair filter passes valid JSON: unchanged) through the stage; check the
 * output against want and the map of every output byte. */
static void expect(const char *text, const char *want)
{
    size_t n = strlen(text);
    ks_repair_map m0 = {0, 0, 0, 0};
    ks_run in = {text, n, &m0, 1}, out;
    ks_blanks_buf b = {0};
    ks_blanks_run(&in, &b, &out);
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.res, want, out.len);
    size_t hint = 0;
    for (size_t o = 0; o < out.len; o++) {
        size_t at = ks_run_in_offset(&out, o);
        assert_int_equal(ks_run_in_offset_hint(&out, o, &hint), at);
        assert_true(at < n);
        assert_true(maps_to(text, at, out.res[o]));
    }
    ks_blanks_buf_free(&b);
}

static void indentation_after_delimiters_goes(void **state)
{
    (void)state;
    expect("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\":\n     \"x\"\n}",
           "{\"a\": [1,2\n  ],\"b\":\"x\"\n}");
    /* short runs, runs without a line break and runs at the ends stay */
    expect("[1,\n2, 3,  4]", "[1,\n2, 3,  4]");
    expect("\n\n  [1]\n  \n", "\n\n  [1]\n  \n");
}

static void runs_before_tokens_placed_at_their_start_stay(void **state)
{
    (void)state;
    /* after a value (not { [ : ,) and before '/' the blanks stay: yajl reports those errors at
     * the next token's start, which the map would send to the run's start */
    expect("{\"a\": \"x\"\n    7}", "{\"a\": \"x\"\n    7}");
    expect("[1,\n    /x]", "[1,\n    /x]");
    expect("[{}\n    ,\n   2]", "[{}\n    ,2]");
}

/* The offset at the place of a dropped run is its first byte (where yajl's offsets after the
 * token before it point); the next byte maps to the byte after the run. */
static void offsets_at_dropped_runs(void **state)
{
    (void)state;
    const char *text = "[1,\n      2]";
    ks_run in = {text, strlen(text), NULL, 1}, out;
    ks_repair_map m0 = {0, 0, 0, 0};
    in.map = &m0;
    ks_blanks_buf b = {0};
    ks_blanks_run(&in, &b, &out);
    assert_int_equal(out.len, 5); /* [1,2] */
    assert_int_equal(ks_run_in_offset(&out, 3), 3);  /* after ',' = the line break */
    assert_int_equal(ks_run_in_offset(&out, 4), 11); /* after '2' */
    assert_int_equal(ks_run_in_offset(&out, 2), 2);
    ks_blanks_buf_free(&b);
}

/* With repairs in the run, the stage composes its map with the repair filter's. */
static void repairs_and_dropped_runs_together(void **state)
{
    (void)state;
    const char *text = "[\"a\tb\",\n      \"c\"d\",\n    1]";
    ks_repair r;
    ks_repair_init(&r);
    size_t n = strlen(text);
    assert_int_equal(ks_repair_run(&r, text, n, 1), n);
    ks_run in = ks_repair_last_run(&r), out;
    ks_blanks_buf b = {0};
    ks_blanks_run(&in, &b, &out);
    const char *want = "[\"a\\u0009b\",\"c\\\"d\",1]";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.res, want, out.len);
    /* each structural byte and letter maps to its input byte */
    for (size_t o = 0; o < out.len; o++) {
        char c = out.res[o];
        if (c == '[' || c == ']' || c == ',' || c == 'a' || c == 'b' || c == 'c' || c == 'd' || c == '1')
            assert_true(maps_to(text, ks_run_in_offset(&out, o), c));
    }
    ks_blanks_buf_free(&b);
    ks_repair_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(indentation_after_delimiters_goes),
        cmocka_unit_test(runs_before_tokens_placed_at_their_start_stay),
        cmocka_unit_test(offsets_at_dropped_runs),
        cmocka_unit_test(repairs_and_dropped_runs_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
