/* tests/report/test_tables.c: a JSON writer's values into column tables (report/tables.c, the
 * rule of kinesift/tables.h) on a hand-written document that has every case (nested tables,
 * flattened objects, arrays of scalars, empty arrays, nulls, a column of two kinds, an integer
 * column meeting a double), and the runs of report/tables_run.c and redact/tables.c on a real
 * trace and on bad inputs: tables as the JSON says, errors with the message. Under ASan too (the
 * Python binding's tests run in the plain build only). */
#include "ks_test.h"

#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "common/jsonw.h"
#include "kinesift/tables.h"
#include "report/tables_build.h"

static long col_of(const ks_tables *t, size_t tb, const char *name)
{
    for (size_t c = 0; c < ks_tables_columns(t, tb); c++)
        if (!strcmp(ks_tables_column_name(t, tb, c), name))
            return (long)c;
    return -1;
}

static const int64_t *ints(const ks_tables *t, size_t tb, const char *name)
{
    long c = col_of(t, tb, name);
    assert_true(c >= 0);
    assert_int_equal(ks_tables_column_type(t, tb, (size_t)c), KS_COL_INT64);
    return ks_tables_column_data(t, tb, (size_t)c);
}

/* cell row of a text column, as a NUL-terminated copy in buf */
static const char *text(const ks_tables *t, size_t tb, const char *name, size_t row, char *buf, size_t n)
{
    long c = col_of(t, tb, name);
    assert_true(c >= 0);
    const int64_t *off = ks_tables_column_offsets(t, tb, (size_t)c);
    assert_non_null(off);
    if (!ks_tables_column_valid(t, tb, (size_t)c)[row])
        return NULL;
    size_t len = (size_t)(off[row + 1] - off[row]);
    assert_true(len < n);
    memcpy(buf, (const char *)ks_tables_column_data(t, tb, (size_t)c) + off[row], len);
    buf[len] = 0;
    return buf;
}

static void test_rule(void **state)
{
    (void)state;
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    ks_tables_doc d;
    FILE *f = ks_tables_doc_begin(&d, t, 1);
    ks_jw w;
    ks_jw_open(&w, f, 0);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "x/1");
    ks_jw_key(&w, "rows");
    ks_jw_arr(&w);
    for (int i = 0; i < 3; i++) {
        ks_jw_obj(&w);
        ks_jw_kint(&w, "ns", i == 1 ? INT64_MAX : -i);
        if (i != 1)
            ks_jw_kdouble(&w, "share", 0.25 * i);
        else
            ks_jw_knull(&w, "share");
        ks_jw_key(&w, "mix"); /* an integer, a string, a bool: JSON cells */
        if (i == 0)
            ks_jw_int(&w, 7);
        else if (i == 1)
            ks_jw_str(&w, "a\"b");
        else
            ks_jw_bool(&w, 1);
        ks_jw_kint(&w, "grow", 3); /* an integer column that meets a double */
        ks_jw_key(&w, "o");
        ks_jw_obj(&w);
        ks_jw_kbool(&w, "flag", i == 2);
        ks_jw_key(&w, "deep");
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "name", i == 0 ? "bad\xff utf" : "n");
        ks_jw_end_obj(&w);
        ks_jw_end_obj(&w);
        int64_t v[2] = {i, i + 1};
        ks_jw_kints(&w, "list", v, (size_t)i); /* [] first, then scalars */
        ks_jw_key(&w, "kids");
        ks_jw_arr(&w);
        for (int k = 0; k < i; k++) {
            ks_jw_obj(&w);
            ks_jw_kint(&w, "k", k);
            ks_jw_end_obj(&w);
        }
        ks_jw_end_arr(&w);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "more"); /* after a table: the root row again */
    ks_jw_obj(&w);
    ks_jw_kdouble(&w, "grow", 1.5);
    ks_jw_end_obj(&w);
    ks_jw_end_obj(&w);
    assert_int_equal(ks_jw_close(&w), 0);
    ks_tables_doc_end(&d, t);

    assert_null(ks_tables_error(t));
    size_t len;
    const char *json = ks_tables_json(t, &len);
    assert_true(len > 0 && json[0] == '{');
    long root = ks_tables_find(t, ""), rows = ks_tables_find(t, "rows"), kids = ks_tables_find(t, "rows.kids");
    assert_int_equal(root, 0);
    assert_true(rows > 0 && kids > 0);
    assert_int_equal(ks_tables_find(t, "rows.list"), -1); /* arrays of scalars are cells */
    assert_int_equal(ks_tables_rows(t, 0), 1);
    assert_int_equal(ks_tables_rows(t, (size_t)rows), 3);
    assert_int_equal(ks_tables_rows(t, (size_t)kids), 3); /* 0 + 1 + 2 */
    char b[64];
    assert_string_equal(text(t, 0, "schema", 0, b, sizeof b), "x/1");
    const int64_t *ns = ints(t, (size_t)rows, "ns");
    assert_true(ns[0] == 0 && ns[1] == INT64_MAX && ns[2] == -2);
    long share = col_of(t, (size_t)rows, "share");
    assert_int_equal(ks_tables_column_type(t, (size_t)rows, (size_t)share), KS_COL_DOUBLE);
    const uint8_t *valid = ks_tables_column_valid(t, (size_t)rows, (size_t)share);
    assert_true(valid[0] && !valid[1] && valid[2]);
    assert_true(((const double *)ks_tables_column_data(t, (size_t)rows, (size_t)share))[2] == 0.5);
    long mix = col_of(t, (size_t)rows, "mix");
    assert_int_equal(ks_tables_column_type(t, (size_t)rows, (size_t)mix), KS_COL_JSON);
    assert_string_equal(text(t, (size_t)rows, "mix", 0, b, sizeof b), "7");
    assert_string_equal(text(t, (size_t)rows, "mix", 1, b, sizeof b), "\"a\\\"b\"");
    assert_string_equal(text(t, (size_t)rows, "mix", 2, b, sizeof b), "true");
    long flag = col_of(t, (size_t)rows, "o.flag");
    assert_int_equal(ks_tables_column_type(t, (size_t)rows, (size_t)flag), KS_COL_BOOL);
    assert_int_equal(((const int64_t *)ks_tables_column_data(t, (size_t)rows, (size_t)flag))[2], 1);
    assert_string_equal(text(t, (size_t)rows, "o.deep.name", 0, b, sizeof b), "bad\xef\xbf\xbd utf");
    assert_string_equal(text(t, (size_t)rows, "list", 0, b, sizeof b), "[]");
    assert_string_equal(text(t, (size_t)rows, "list", 2, b, sizeof b), "[2,3]");
    const int64_t *parent = ints(t, (size_t)kids, "_parent");
    assert_true(parent[0] == 1 && parent[1] == 2 && parent[2] == 2);
    assert_true(ints(t, (size_t)kids, "k")[2] == 1);
    /* a table, not a cell; but an empty array is the cell "[]" (its kind is not known) */
    assert_string_equal(text(t, (size_t)rows, "kids", 0, b, sizeof b), "[]");
    assert_null(text(t, (size_t)rows, "kids", 1, b, sizeof b));
    assert_true(col_of(t, (size_t)rows, "o") < 0);        /* flattened */
    long g = col_of(t, 0, "more.grow");
    assert_int_equal(ks_tables_column_type(t, 0, (size_t)g), KS_COL_DOUBLE);
    g = col_of(t, (size_t)rows, "grow");
    assert_int_equal(ks_tables_column_type(t, (size_t)rows, (size_t)g), KS_COL_INT64);
    ks_tables_free(t);
}

/* a fixture's path (a static buffer: copy it before the next call) */
static const char *fixture(const char *rel)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s", KS_FIXTURES, rel);
    return p;
}

/* the ops table of a real trace against the document's own text, read by yajl */
static void test_analyze(void **state)
{
    (void)state;
    ks_tables_opts *o = ks_tables_opts_new();
    assert_int_equal(ks_tables_opts_set(o, "threads", "2"), 0);
    assert_int_equal(ks_tables_opts_set(o, "top", "nope"), -1);
    assert_non_null(strstr(ks_tables_opts_error(o), "top"));
    assert_int_equal(ks_tables_opts_set(o, "colour", "red"), -1);
    ks_tables *t = ks_tables_analyze(fixture("real/hta/trace_compare/base/base.json.gz"), o);
    ks_tables_opts_free(o);
    assert_null(ks_tables_error(t));
    size_t len;
    const char *json = ks_tables_json(t, &len);
    char *copy = ks_xstrndup(json, len), eb[256];
    yajl_val doc = yajl_tree_parse(copy, eb, sizeof eb);
    assert_non_null(doc);
    const char *path[] = {"traces", NULL};
    yajl_val traces = yajl_tree_get(doc, path, yajl_t_array);
    assert_int_equal(YAJL_GET_ARRAY(traces)->len, 1);
    const char *opsp[] = {"ops", NULL};
    yajl_val ops = yajl_tree_get(YAJL_GET_ARRAY(traces)->values[0], opsp, yajl_t_array);
    long tb = ks_tables_find(t, "traces.ops");
    assert_true(tb > 0);
    size_t n = YAJL_GET_ARRAY(ops)->len;
    assert_true(n > 0);
    assert_int_equal(ks_tables_rows(t, (size_t)tb), n);
    const int64_t *self = ints(t, (size_t)tb, "self_ns");
    char b[512];
    for (size_t i = 0; i < n; i++) {
        const char *sp[] = {"self_ns", NULL}, *np[] = {"name", NULL};
        yajl_val row = YAJL_GET_ARRAY(ops)->values[i];
        assert_true(self[i] == YAJL_GET_INTEGER(yajl_tree_get(row, sp, yajl_t_number)));
        assert_string_equal(text(t, (size_t)tb, "name", i, b, sizeof b), YAJL_GET_STRING(yajl_tree_get(row, np, yajl_t_string)));
    }
    yajl_tree_free(doc);
    free(copy);
    ks_tables_free(t);
}

/* "text" 0: the same tables, cell for cell, and no text */
static void test_without_text(void **state)
{
    (void)state;
    ks_tables *t[2];
    for (int k = 0; k < 2; k++) {
        ks_tables_opts *o = ks_tables_opts_new();
        assert_int_equal(ks_tables_opts_set(o, "threads", "1"), 0);
        assert_int_equal(ks_tables_opts_set(o, "text", "maybe"), -1);
        assert_int_equal(ks_tables_opts_set(o, "text", k ? "0" : "1"), 0);
        t[k] = ks_tables_analyze(fixture("real/hta/trace_compare/base/base.json.gz"), o);
        ks_tables_opts_free(o);
        assert_null(ks_tables_error(t[k]));
    }
    size_t len[2];
    ks_tables_json(t[0], &len[0]);
    assert_true(len[0] > 1000);
    assert_string_equal(ks_tables_json(t[1], &len[1]), "");
    assert_int_equal(len[1], 0);
    size_t nt = ks_tables_count(t[0]), cells = 0;
    assert_true(nt > 10);
    assert_int_equal(ks_tables_count(t[1]), nt);
    for (size_t i = 0; i < nt; i++) {
        assert_string_equal(ks_tables_name(t[0], i), ks_tables_name(t[1], i));
        size_t rows = ks_tables_rows(t[0], i), cols = ks_tables_columns(t[0], i);
        assert_int_equal(ks_tables_rows(t[1], i), rows);
        assert_int_equal(ks_tables_columns(t[1], i), cols);
        for (size_t j = 0; j < cols; j++) {
            int type = ks_tables_column_type(t[0], i, j);
            assert_string_equal(ks_tables_column_name(t[0], i, j), ks_tables_column_name(t[1], i, j));
            assert_int_equal(ks_tables_column_type(t[1], i, j), type);
            assert_memory_equal(ks_tables_column_valid(t[0], i, j), ks_tables_column_valid(t[1], i, j), rows + !rows);
            size_t bytes = rows * 8;
            if (type == KS_COL_STRING || type == KS_COL_JSON) {
                const int64_t *off = ks_tables_column_offsets(t[0], i, j);
                assert_memory_equal(off, ks_tables_column_offsets(t[1], i, j), (rows + 1) * sizeof *off);
                bytes = (size_t)off[rows];
            }
            if (bytes)
                assert_memory_equal(ks_tables_column_data(t[0], i, j), ks_tables_column_data(t[1], i, j), bytes);
            cells += rows;
        }
    }
    assert_true(cells > 1000);
    ks_tables_free(t[0]);
    ks_tables_free(t[1]);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char dir[] = "/tmp/ks_tables_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char empty[600], bin[600], missing[600];
    snprintf(empty, sizeof empty, "%s/empty.json", dir);
    snprintf(bin, sizeof bin, "%s/bin.json", dir);
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    FILE *f = fopen(empty, "w");
    fclose(f);
    f = fopen(bin, "w");
    fputs("\x01\x02 not json at all", f);
    fclose(f);
    const char *bad[] = {empty, bin, missing, dir, "-"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ks_tables *t = ks_tables_analyze(bad[i], NULL);
        const char *msg = ks_tables_error(t);
        assert_non_null(msg);
        if (i < 4)
            assert_memory_equal(msg, bad[i], strlen(bad[i]));
        uint64_t pos[3];
        if (i == 1) {
            assert_int_equal(ks_tables_error_at(t, pos), 1);
            assert_true(pos[0] == 0 && pos[1] == 1 && pos[2] == 1);
        }
        assert_int_equal(ks_tables_count(t), 0);
        ks_tables_free(t);
        t = ks_tables_stats(bad[i], NULL);
        assert_non_null(ks_tables_error(t));
        ks_tables_free(t);
    }
    const char *two[] = {bin, empty};
    ks_tables *t = ks_tables_ranks(two, 2, NULL);
    assert_non_null(ks_tables_error(t));
    ks_tables_free(t);
    t = ks_tables_diff(empty, bin, NULL);
    assert_non_null(ks_tables_error(t));
    ks_tables_free(t);
    unlink(empty);
    unlink(bin);
    rmdir(dir);
}

static void test_other_runs(void **state)
{
    (void)state;
    char base[600], test[600], rdir[600];
    snprintf(base, sizeof base, "%s", fixture("real/hta/trace_compare/base/base.json.gz"));
    snprintf(test, sizeof test, "%s", fixture("real/hta/trace_compare/test/test.json.gz"));
    snprintf(rdir, sizeof rdir, "%s", fixture("real/hta/timeline_analysis"));
    ks_tables *t = ks_tables_stats(base, NULL);
    assert_null(ks_tables_error(t));
    assert_int_equal(ks_tables_rows(t, (size_t)ks_tables_find(t, "traces")), 1);
    ks_tables_free(t);
    t = ks_tables_diff(base, test, NULL);
    assert_null(ks_tables_error(t));
    assert_true(ks_tables_count(t) > 1);
    ks_tables_free(t);
    const char *ranks[] = {rdir};
    t = ks_tables_ranks(ranks, 1, NULL);
    assert_null(ks_tables_error(t));
    ks_tables_free(t);
    char out[] = "/tmp/ks_tables_redact_XXXXXX";
    assert_non_null(mkdtemp(out));
    char dst[600];
    snprintf(dst, sizeof dst, "%s/out.json.gz", out);
    t = ks_tables_redact(base, dst, NULL);
    assert_null(ks_tables_error(t));
    assert_true(ks_tables_find(t, "") == 0);
    ks_tables_free(t);
    t = ks_tables_redact(base, dst, NULL); /* never over an existing file */
    assert_non_null(ks_tables_error(t));
    ks_tables_free(t);
    unlink(dst);
    rmdir(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_analyze),
        cmocka_unit_test(test_without_text),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_other_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
