/* tests/ranks/test_summary_stream.c: the streaming reader of a summary (ranks/summary_stream.c)
 * keeps what its readers read, drops the rest, and reads the same whatever the size of its reads:
 * each text is read in pieces of 1 byte to 64 KiB and every result (the kept tree written out, or
 * the error, position included) must equal the one of the text read whole. The texts put long
 * strings (kept and dropped, with escapes and UTF-8), long comments, numbers and nesting across the
 * piece boundaries. */
#include <yajl/yajl_tree.h>

#include "ks_test.h"
#include "common/util.h"
#include "kinesift/ranks.h"
#include "ranks/ranks_int.h"

static const size_t CHUNKS[] = {1, 2, 3, 5, 7, 13, 64, 1000, 4095, 4096, 4097, 65536};

/* the tree written out, keys and all (a number as its text) */
static void dump(ks_buf *b, const struct yajl_val_s *v)
{
    if (!v) {
        ks_buf_puts(b, "<none>");
        return;
    }
    switch (v->type) {
    case yajl_t_string: ks_buf_printf(b, "s(%zu:%s)", strlen(v->u.string), v->u.string); break;
    case yajl_t_number: ks_buf_printf(b, "n(%s,%d)", v->u.number.r, YAJL_IS_INTEGER(v)); break;
    case yajl_t_true: ks_buf_puts(b, "T"); break;
    case yajl_t_false: ks_buf_puts(b, "F"); break;
    case yajl_t_null: ks_buf_puts(b, "N"); break;
    case yajl_t_object:
        ks_buf_puts(b, "{");
        for (size_t i = 0; i < v->u.object.len; i++) {
            ks_buf_printf(b, "%s=", v->u.object.keys[i]);
            dump(b, v->u.object.values[i]);
            ks_buf_puts(b, ";");
        }
        ks_buf_puts(b, "}");
        break;
    case yajl_t_array:
        ks_buf_puts(b, "[");
        for (size_t i = 0; i < v->u.array.len; i++) {
            dump(b, v->u.array.values[i]);
            ks_buf_puts(b, ",");
        }
        ks_buf_puts(b, "]");
        break;
    default: ks_buf_puts(b, "?"); break;
    }
}

/* both lines of text read in pieces of chunk bytes (0: whole): the trees, or the first error */
static char *read_all(const char *text, size_t chunk)
{
    ks_sum_reader *r = ks_sum_reader_open("t", NULL, text, strlen(text));
    if (chunk)
        ks_sum_reader_chunk(r, chunk);
    ks_buf b = {0};
    ks_error err;
    for (int line = 0; line < 2; line++) {
        struct yajl_val_s *v;
        if (ks_sum_read_line(r, line, &v, &err) != KS_OK) {
            ks_buf_printf(&b, "error: %s", err.msg);
            break;
        }
        dump(&b, v);
        ks_buf_puts(&b, "\n");
        yajl_tree_free(v);
    }
    ks_sum_reader_close(r);
    ks_buf_putc(&b, 0);
    return b.p;
}

static char *same_whatever_the_reads(const char *text)
{
    char *whole = read_all(text, 0);
    for (size_t i = 0; i < sizeof CHUNKS / sizeof *CHUNKS; i++) {
        char *got = read_all(text, CHUNKS[i]);
        if (strcmp(got, whole)) {
            print_error("reads of %zu bytes:\n%.400s\nwhole:\n%.400s\n", CHUNKS[i], got, whole);
            fail();
        }
        free(got);
    }
    return whole;
}

static char *repeat(const char *s, size_t n)
{
    ks_buf b = {0};
    for (size_t i = 0; i < n; i++)
        ks_buf_puts(&b, s);
    ks_buf_putc(&b, 0);
    return b.p;
}

/* kept: line 1's fields (a collective's, step_ns; memory of the wrong type kept empty), the
 * report's JSON trace object whole, its text; dropped: unknown keys, long or not */
static void kept_and_dropped(void **state)
{
    (void)state;
    char *lng = repeat("a\\u00e9\xc3\xa9\\\"\xf0\x9d\x84\x9e", 900);  /* ~ 14 KB: past the cut */
    char *note = repeat("*\"/ ", 3000);
    char *text = ks_xasprintf(
        "{\"schema\":\"x\",\"zz\":\"%s\",/*%s*/\"collectives\":[{\"name\":\"n\",\"junk\":[1,{\"a\":\"%s\"}],"
        "\"before\":[[\"k\",1,{\"deep\":[1]}]]}],\"memory\":{\"a\":\"%s\"},\"step_ns\":[1,-0,1e3,9223372036854775808],"
        "\"%s\":1}\n"
        "// a comment %s\n{\"analyze\":{\"json\":{\"k\":\"%s\",\"n\":[1.5,-0,true,null,{}]},\"text\":\"%s\","
        "\"x\":\"%s\",\"csv\":\"c\"}} /* the end */ \n",
        lng, note, lng, lng, lng, note, lng, lng, lng);
    char *got = same_whatever_the_reads(text);
    /* the long kept strings arrive decoded: 900 x (a é é " 𝄞) = 900 x 10 bytes */
    char *k = repeat("a\xc3\xa9\xc3\xa9\"\xf0\x9d\x84\x9e", 900);
    char *want = ks_xasprintf("{schema=s(1:x);collectives=[{name=s(1:n);before=[[s(1:k),n(1,1),{},],];},];memory={};"
                              "step_ns=[n(1,1),n(-0,1),n(1e3,0),n(9223372036854775808,0),];}\n"
                              "{analyze={json={k=s(9000:%s);n=[n(1.5,0),n(-0,1),T,N,{},];};text=s(9000:%s);"
                              "csv=s(1:c);};}\n",
                              k, k);
    assert_string_equal(got, want);
    free(want);
    free(k);
    free(got);
    free(text);
    free(note);
    free(lng);
}

/* errors this reader names itself: the same message and byte whatever the reads */
static void errors(void **state)
{
    (void)state;
    char *pad = repeat("b", 5000);
    char *deep = repeat("[", 128);
    char *digits = repeat("7", 5000);
    const char *bad[] = {"\x01", "\xc3(", "\\q", "\\u12g4", "\xff"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        /* in a dropped string past the cut: refused here, at the byte */
        char *text = ks_xasprintf("{\"schema\":\"x\"}\n{\"analyze\":{\"x\":\"%s%s\"}}\n", pad, bad[i]);
        char *got = same_whatever_the_reads(text);
        assert_non_null(strstr(got, "error: t: not a summary: its analyze report: lexical error"));
        assert_non_null(strstr(got, "(line 2, column "));
        free(got);
        free(text);
        /* in a kept string past the cut: yajl says so, when it is given the string */
        text = ks_xasprintf("{\"source\":\"%s%s\"}\n", pad, bad[i]);
        got = same_whatever_the_reads(text);
        assert_non_null(strstr(got, "error: t: not a summary: lexical error"));
        free(got);
        free(text);
    }
    /* a raw newline in a kept string held across reads: yajl's error, placed in the string */
    char *nl = ks_xasprintf("{\"schema\":\"x\"}\n{\"analyze\":{\"text\":\"%s\n\"}}\n", pad);
    char *nlgot = same_whatever_the_reads(nl);
    assert_non_null(strstr(nlgot, "invalid character inside string at byte 5035 (line 2, column 5021)"));
    free(nlgot);
    free(nl);
    char *text = ks_xasprintf("{\"x\":%s}\n", deep);
    char *got = same_whatever_the_reads(text);
    assert_string_equal(got, "error: t: not a summary: nested deeper than 128 levels at byte 132 (line 1, column 133)");
    free(got);
    free(text);
    text = ks_xasprintf("{\"schema\":\"x\"}\n{\"analyze\":{\"x\":[%s]}}", digits);
    got = same_whatever_the_reads(text);
    assert_string_equal(got, "{schema=s(1:x);}\nerror: t: not a summary: its analyze report: a number longer than "
                             "4096 bytes at byte 4128 (line 2, column 4114)");
    free(got);
    free(text);
    /* yajl's errors: refused whatever the reads (yajl places them by its own feeds) */
    const char *broken[] = {"{\"schema\":\"x\"", "{\"schema\":\"x\"}\n{\"analyze\":{\"text\":\"abc", "{\"a\":1,}",
                            "{\"a\" 1}", "{} {}", "/x", "{\"schema\":\"x\"}\n{\"analyze\":1}\n{}"};
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        char *whole = read_all(broken[i], 0);
        assert_non_null(strstr(whole, "error: t: not a summary: "));
        for (size_t c = 0; c < sizeof CHUNKS / sizeof *CHUNKS; c++) {
            char *g = read_all(broken[i], CHUNKS[c]);
            size_t cut = (size_t)(strstr(whole, " at byte ") - whole);
            assert_true(strstr(whole, " at byte ") && !strncmp(g, whole, cut));
            free(g);
        }
        free(whole);
    }
    free(digits);
    free(deep);
    free(pad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_and_dropped),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
