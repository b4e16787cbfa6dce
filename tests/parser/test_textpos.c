/* tests/parser/test_textpos.c: json/textpos.c, the line and column of a byte of a streamed text
 * (shared by the parser and the redactor's rewrite), against a plain count from the text's start:
 * for every way of cutting the text into a dropped part and a window, every byte's line and
 * column must be those of the count. */
#include "ks_test.h"
#include "json/textpos.h"

/* 1-based line and column of byte at, counted from the start of s. */
static void naive(const char *s, size_t at, uint64_t *line, uint64_t *col)
{
    uint64_t l = 1, c = 1;
    for (size_t i = 0; i < at; i++) {
        if (s[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static void every_cut_every_byte(void **state)
{
    (void)state;
    static const char text[] = "\n{\"a\": 1,\r\n \"b\":\n\n  [1, 2]}\nx\n\n";
    size_t n = sizeof text - 1;
    for (size_t cut = 0; cut <= n; cut++) {
        ks_text_win w = {text + cut, n - cut, cut, 0, -1};
        ks_text_count(text, cut, 0, &w.lines, &w.last_nl);
        for (size_t at = cut; at <= n; at++) {
            uint64_t l, c, wl, wc;
            naive(text, at, &l, &c);
            ks_text_line_col(&w, at, &wl, &wc);
            assert_int_equal(wl, l);
            assert_int_equal(wc, c);
        }
    }
}

/* Counting in pieces gives the count of the whole. */
static void count_in_pieces(void **state)
{
    (void)state;
    char text[1000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = i % 7 == 3 || i % 13 == 0 ? '\n' : 'x';
    uint64_t whole = 0;
    int64_t whole_last = -1;
    ks_text_count(text, sizeof text, 0, &whole, &whole_last);
    for (size_t step = 1; step < 40; step++) {
        uint64_t lines = 0;
        int64_t last = -1;
        for (size_t i = 0; i < sizeof text; i += step) {
            size_t k = sizeof text - i < step ? sizeof text - i : step;
            ks_text_count(text + i, k, i, &lines, &last);
        }
        assert_int_equal(lines, whole);
        assert_int_equal(last, whole_last);
    }
    assert_int_equal(whole_last, 997); /* 997 % 7 == 3 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_cut_every_byte),
        cmocka_unit_test(count_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
