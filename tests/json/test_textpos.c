/* tests/json/test_textpos.c: json/textpos.c, the line and column of a byte of a streamed text
 * (shared by the parser and the redactor's rewrite), against a plain count from the text's start:
 * for every way of cutting the text into a dropped part and a window, every byte's line and
 * column must be those of the count; the vector newline count must be a byte loop's. */
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
        ks_text_win w = {text + cut, n - cut, cut, 0, -1, 0, 0, -1};
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

/* A window whose first bytes were counted by its reader (upto, upto_lines, upto_last): every byte's
 * line and column, and the newlines before it, are the plain count's for every cut, every upto and
 * texts with newlines everywhere, rarely, only before upto, only after it, or none. */
static void known_count_from_the_end(void **state)
{
    (void)state;
    enum { N = 300 };
    static char text[N];
    unsigned seed = 99;
    for (int kind = 0; kind < 5; kind++) {
        for (size_t i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            int nl = kind == 0 ? (seed >> 16) % 3 == 0 : kind == 1 ? (seed >> 16) % 97 == 0
                   : kind == 2 ? i < 40 && i % 9 == 0 : kind == 3 ? i > 260 && i % 5 == 0 : 0;
            text[i] = nl ? '\n' : 'x';
        }
        for (size_t cut = 0; cut < N; cut += 7) {
            ks_text_win w = {text + cut, N - cut, cut, 0, -1, 0, 0, -1};
            ks_text_count(text, cut, 0, &w.lines, &w.last_nl);
            for (size_t upto = 1; upto <= N - cut; upto += 3) {
                w.upto = upto;
                w.upto_lines = 0;
                w.upto_last = -1;
                ks_text_count(text + cut, upto, cut, &w.upto_lines, &w.upto_last);
                for (size_t at = cut; at <= N; at++) {
                    uint64_t l, c, wl, wc, lines, plain_lines;
                    int64_t last, plain_last;
                    naive(text, at, &l, &c);
                    ks_text_line_col(&w, at, &wl, &wc);
                    if (wl != l || wc != c)
                        fail_msg("kind %d cut %zu upto %zu at %zu: %llu:%llu, not %llu:%llu", kind, cut,
                                 upto, at, (unsigned long long)wl, (unsigned long long)wc,
                                 (unsigned long long)l, (unsigned long long)c);
                    ks_text_lines_before(&w, at, &lines, &last);
                    plain_lines = 0;
                    plain_last = -1;
                    ks_text_count(text, at, 0, &plain_lines, &plain_last);
                    assert_int_equal(lines, plain_lines);
                    assert_int_equal(last, plain_last);
                }
            }
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

/* The vector count against a byte loop: every length and alignment around the 16-byte steps and the
 * 255-step blocks, texts of newlines only (every byte lane at its maximum) and random ones. */
static void newlines_vector_count(void **state)
{
    (void)state;
    enum { N = 16 * 255 * 3 + 40 };
    static char text[N + 16];
    unsigned seed = 12345;
    for (int kind = 0; kind < 3; kind++) {
        for (size_t i = 0; i < sizeof text; i++) {
            seed = seed * 1103515245u + 12345u;
            text[i] = kind == 0 ? '\n' : kind == 1 ? ((seed >> 16) % 5 == 0 ? '\n' : (char)(seed >> 8))
                                                     : (char)(seed >> 24); /* any byte, '\n' + 128 too */
        }
        static const size_t lens[] = {0, 1, 15, 16, 17, 31, 32, 33, 4079, 4080, 4081, 8160, 8161, N};
        for (size_t off = 0; off < 16; off++)
            for (size_t j = 0; j < sizeof lens / sizeof *lens; j++) {
                uint64_t want = 0;
                for (size_t i = 0; i < lens[j]; i++)
                    want += text[off + i] == '\n';
                assert_int_equal(ks_text_newlines(text + off, lens[j]), want);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(newlines_vector_count),
        cmocka_unit_test(every_cut_every_byte),
        cmocka_unit_test(known_count_from_the_end),
        cmocka_unit_test(count_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
