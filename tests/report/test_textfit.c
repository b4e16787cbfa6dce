/* tests/report/test_textfit.c: a text table laid out for a width (report/textfit.c, through the
 * public ks_text_fit). Cases worked out by hand: a table that fits is one table, its cells aligned
 * and its names beside the rows; a table wider than the width comes in blocks of columns, each
 * repeating the first column and the names, each block ending where a heading starts, every line
 * within the width; a name that cannot keep its least room goes under its row, and then every
 * row's name does. */
#include "ks_test.h"
#include "kinesift/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the text ks_text_fit writes for `in` at `width` (malloc'ed) */
static char *fit(const char *in, size_t width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    ks_text_fit(m, in, strlen(in), width);
    fclose(m);
    return buf;
}

static size_t widest(const char *s)
{
    size_t w = 0, n = 0;
    for (; *s; s++)
        if (*s == '\n')
            w = n > w ? n : w, n = 0;
        else
            n++;
    return n > w ? n : w;
}

static void fits_whole(void **state)
{
    (void)state;
    /* widths 2, 3, 2; cells right-aligned but the marked one, one space apart; names two after */
    char *out = fit("  \x01k\ta\tb\tname\n  x\t1\t22\tfirst\n  yy\t333\t4\tsecond\n", 80);
    assert_string_equal(out, "  k    a  b  name\n"
                             "   x   1 22  first\n"
                             "  yy 333  4  second\n");
    free(out);
}

/* three groups under headings ("g1" over a, b; "g2" over c, d; "g3" over e): 10-column cells */
#define ROW(k, n) k "\t" "aaaaaaaaaa\tbbbbbbbbbb\tcccccccccc\tdddddddddd\teeeeeeeeee\t" n "\n"
static const char wide[] = "\tg1\t\tg2\t\tg3\t\n"
                           "key\ta\tb\tc\td\te\tname\n" ROW("r1", "one") ROW("r2", "two");

static void blocks_at_headings(void **state)
{
    (void)state;
    /* whole: 3 + 5 * 11 = 58 columns of cells, + "  name" */
    char *out = fit(wide, 0);
    assert_int_equal(widest(out), 3 + 5 * 11 + 2 + 4);
    free(out);
    /* at 40: key (3) + a, b (22) = 25, + c would be 36 and + d 47: the block ends before c's
     * heading, since "g2" spans c and d; the names (3 columns) keep their room (at most 24) */
    out = fit(wide, 40);
    assert_true(widest(out) <= 40);
    /* three blocks, each with the key column, the headings in their own block */
    size_t blocks = 0;
    for (const char *p = out; (p = strstr(p, "key ")); p++)
        blocks++;
    assert_int_equal(blocks, 3);
    const char *g1 = strstr(out, "g1"), *g2 = strstr(out, "g2"), *g3 = strstr(out, "g3");
    const char *c = strstr(out, "cccccccccc"), *e = strstr(out, "eeeeeeeeee");
    assert_non_null(g1);
    assert_non_null(g2);
    assert_non_null(g3);
    assert_true(g1 < g2 && g2 < g3 && g2 < c && c < g3 && g3 < e);
    /* every row of every block names its row */
    size_t ones = 0;
    for (const char *p = out; (p = strstr(p, " r1 ")); p++) {
        const char *eol = strchr(p, '\n');
        assert_non_null(eol);
        assert_memory_equal(eol - 3, "one", 3);
        ones++;
    }
    assert_int_equal(ones, 3);
    /* a blank line between the blocks, none inside one */
    size_t blank = 0;
    for (const char *p = out; (p = strstr(p, "\n\n")); p++)
        blank++;
    assert_int_equal(blank, 2);
    free(out);
}

static void names_under_together(void **state)
{
    (void)state;
    /* at 30 columns the first row's name (20 columns) has 12 beside it, less than the 24 a name
     * keeps: it goes under the row, four columns in, and so do the others, though they fit */
    char *out = fit("  \x01key\tvalue\tname\n  \x01" "a\t1234567890\tfirst name, 20 chars\n  \x01" "b\t1\tb\n", 30);
    assert_string_equal(out, "  key      value\n"
                             "      name\n"
                             "  a   1234567890\n"
                             "      first name, 20 chars\n"
                             "  b            1\n"
                             "      b\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fits_whole),
        cmocka_unit_test(blocks_at_headings),
        cmocka_unit_test(names_under_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
