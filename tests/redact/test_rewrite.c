/* tests/redact/test_rewrite.c: the streaming engine: numbers and untouched text byte for byte,
 * structure kept, metadata stripped after its literals are learned, keys and escaped strings,
 * Addr mapping, the arrays Kineto leaves without ']', malformed input refused with its
 * position, idempotence, and check mode findings (path, event, never the value). */
#include <yajl/yajl_tree.h>

#include "rd_test.h"

static const char trace[] =
    "{\n"
    "  \"schemaVersion\": 1,\n"
    "  \"host_name\": \"gpu01.corp.example.com\",\n"
    "  \"username\": \"bobsmith\",\n"
    "  \"metadata\": {\"system\": {\"uname\": {\"node\": \"a39ca6b8f513\"},\n"
    "     \"env\": {\"HF_TOKEN\": \"hf_KsSyntheticNotARealToken0123456789\", \"HOME\": \"/home/alicew\"}}},\n"
    "  \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"/home/bobsmith/proj/model.py(88): forward\",\n"
    "   \"pid\": 1, \"tid\": 2, \"ts\": 1669329643132548.123, \"dur\": 10.500, \"id\": \"0x1f\"},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 2, \"ts\": 1.0, \"dur\": 2,\n"
    "   \"args\": {\"Comms Id\": 18446744073709551616, \"External id\": 42, \"Input Dims\": [[2, 3], []],\n"
    "     \"Call stack\": \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py(1501): _call_impl;/home/alicew/x.py(3): f\",\n"
    "     \"note\": \"node a39ca6b8f513 mail bob\\u0040example.com path \\/home\\/carolk\\/z.py\",\n"
    "     \"ghp_0123456789abcdefghijKLMNOPqrstuvwxYZ01\": 5, \"Addr\": 140234567890}},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"s\": \"t\",\n"
    "   \"args\": {\"Addr\": 140234567890, \"Bytes\": -512}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 2, \"ts\": 1e3, \"dur\": 5}\n"
    "  ],\n"
    "  \"INFO\": [\"INFO:2024 /home/bobsmith/run\"],\n"
    "  \"traceName\": \"/home/bobsmith/log/gpu01_1234.1669329643.pt.trace.json\"\n"
    "}\n";

static yajl_val parse(const char *s)
{
    char eb[256];
    yajl_val v = yajl_tree_parse(s, eb, sizeof eb);
    if (!v)
        fail_msg("output does not parse: %s\n%s", eb, s);
    return v;
}

static void test_numbers_and_structure(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_redact_result res;
    char *out = rd_redact_ok(rd, trace, &res);
    yajl_val v = parse(out);
    const char *ev[] = {"traceEvents", NULL};
    yajl_val events = yajl_tree_get(v, ev, yajl_t_array);
    assert_non_null(events);
    assert_int_equal(YAJL_GET_ARRAY(events)->len, 4);
    assert_int_equal(res.events, 4);
    /* every number keeps its text */
    const char *nums[] = {"1669329643132548.123", "\"dur\": 10.500", "\"ts\": 1.0",
                          "18446744073709551616", "\"External id\": 42", "\"ts\": 1e3",
                          "\"Bytes\": -512", "\"id\": \"0x1f\"", "[[2, 3], []]",
                          "\"name\": \"ProfilerStep#3\""};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        assert_contains(out, nums[i]);
    /* stripped and pseudonymised */
    assert_contains(out, "\"metadata\": \"__stripped__\"");
    assert_contains(out, "\"INFO\": \"__stripped__\"");
    assert_contains(out, "\"username\": \"user-");
    assert_contains(out, "\"host_name\": \"host-");
    assert_contains(out, "\"traceName\": \"host-");
    assert_contains(out, "_1234.1669329643.pt.trace.json\"");
    assert_contains(out, "torch/nn/modules/module.py(1501): _call_impl;<path-");
    assert_contains(out, "[REDACTED:github-token]");
    assert_contains(out, "@example.invalid");
    const char *gone[] = {"bobsmith", "alicew", "carolk", "a39ca6b8f513", "KsSynthetic", "gpu01",
                          "corp.example", "bob@", "bob\\u0040", "ghp_", "140234567890", "/usr/lib"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        assert_not_contains(out, gone[i]);
    /* equal addresses stay equal, in [2^51, 2^52) */
    const char *p = strstr(out, "\"Addr\": "), *q = p ? strstr(p + 1, "\"Addr\": ") : NULL;
    assert_non_null(q);
    unsigned long long a1 = strtoull(p + 8, NULL, 10), a2 = strtoull(q + 8, NULL, 10);
    assert_true(a1 == a2);
    assert_true(a1 >= (1ULL << 51) && a1 < (1ULL << 52));
    yajl_tree_free(v);

    /* idempotent: a second run with the same key changes nothing at all */
    char *again = rd_redact_ok(rd, out, &res);
    assert_string_equal(again, out);
    assert_int_equal(res.strings_rewritten, 0);
    free(again);
    free(out);
    ks_redactor_free(rd);
}

/* a clean trace comes out byte for byte: whitespace, key order, escapes, numbers */
static void test_verbatim(void **state)
{
    (void)state;
    const char *clean = "[ {\"ph\":\"X\",  \"name\" : \"aten::mm\\n\\t\\\"x\\\"\", \"ts\":\t0.000,"
                        "\"dur\":1E+2,\"args\":{\"a\":[true,false,null,{}],\"deep\":"
                        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}\n"
                        "  ]  \n";
    ks_redactor *rd = rd_new();
    char *out = rd_redact_ok(rd, clean, NULL);
    assert_string_equal(out, clean);
    free(out);
    ks_redactor_free(rd);
}

/* Kineto arrays may lack the closing ']' (and keep a trailing comma) */
static void test_unterminated_array(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_redact_result res;
    char *out = rd_redact_ok(rd, "[{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"name\":\"/home/bobsmith/x.py\"},\n",
                             &res);
    assert_true(res.closed_array);
    yajl_val v = parse(out);
    assert_true(YAJL_IS_ARRAY(v) && YAJL_GET_ARRAY(v)->len == 1);
    assert_not_contains(out, "bobsmith");
    yajl_tree_free(v);
    free(out);
    ks_redactor_free(rd);
}

/* OpenSSL failing (here: an unknown digest, so EVP_MAC_init fails for real) fails the run closed:
 * no output, an error naming the keyed hash with its position, no abort, and no token made of a
 * value's bytes ever reaches the caller. */
static void test_crypto_failure_fails_closed(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_rd_pseudo_test_digest(rd->pn, "no-such-digest");
    ks_error err;
    memset(&err, 0, sizeof err);
    char *out = rd_redact_text(rd, trace, NULL, &err);
    if (out)
        fail_msg("redacted although the keyed hash failed:\n%s", out);
    assert_true(ks_rd_pseudo_failed(rd->pn));
    assert_int_equal(rd->failed, KS_RD_FAIL_CRYPTO);
    assert_true(err.has_pos);
    assert_non_null(strstr(err.msg, "HMAC-SHA256"));
    ks_redactor_free(rd);
}

static void expect_error(const char *json, uint64_t line, uint64_t col, const char *what)
{
    ks_redactor *rd = rd_new();
    ks_error err;
    memset(&err, 0, sizeof err);
    char *out = rd_redact_text(rd, json, NULL, &err);
    if (out)
        fail_msg("accepted: %s", json);
    assert_true(err.has_pos);
    if (line)
        assert_int_equal(err.line, line);
    if (col)
        assert_int_equal(err.column, col);
    assert_non_null(strstr(err.msg, what));
    ks_redactor_free(rd);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_error("{\n \"traceEvents\": [\n  {\"ph\": \"X\" \"ts\": 1}\n]}\n", 3, 0, "parse error");
    expect_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}]", 1, 0, "truncated");
    expect_error("{\"traceEvents\": []} trailing", 1, 0, "trailing garbage");
    ks_redactor *rd = rd_new();
    ks_error err;
    assert_null(rd_redact_text(rd, "   \n", NULL, &err));
    assert_non_null(strstr(err.msg, "empty"));
    ks_redactor_free(rd);
}

/* strings the reader's pre-filter repairs (Windows back-slashes, raw control characters)
 * are redacted, not refused */
static void test_repaired(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_redact_result res;
    char *out = rd_redact_ok(
        rd, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"C:\\Users\\winuserq\\p\\t.py\"}]}",
        &res);
    assert_true(res.repairs > 0);
    assert_not_contains(out, "winuserq");
    assert_contains(out, "t.py");
    yajl_val v = parse(out);
    yajl_tree_free(v);
    free(out);
    ks_redactor_free(rd);
}

static void test_options(void **state)
{
    (void)state;
    char *drop[] = {"Module Hierarchy"}, *keep[] = {"kernel_file"}, *meta[] = {"tw_job"};
    ks_redact_opts o;
    ks_redact_opts_init(&o);
    o.shapes = 1;
    o.drop_args = drop;
    o.ndrop_args = 1;
    o.keep_args = keep;
    o.nkeep_args = 1;
    o.keep_meta = meta;
    o.nkeep_meta = 1;
    o.keep_logs = 1;
    ks_redactor *rd = rd_new_opts(&o);
    const char *in = "{\"tw_job\": \"job on 10.0.0.1\", \"INFO\": [\"log from 10.0.0.2\"], \"traceEvents\": ["
                     "{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"op\", \"args\": {"
                     "\"Input Dims\": [[1, 2]], \"Input Strides\": [[2, 1]], \"Concrete Inputs\": [\"\", \"7\"],"
                     "\"Input type\": [\"float\"], \"Module Hierarchy\": \"top.enc\","
                     "\"kernel_file\": \"/tmp/torchinductor_keepme/a/b.py\"}}]}";
    char *out = rd_redact_ok(rd, in, NULL);
    assert_contains(out, "\"Input Dims\": \"__stripped__\"");
    assert_contains(out, "\"Input Strides\": \"__stripped__\"");
    assert_contains(out, "\"Concrete Inputs\": \"__stripped__\"");
    assert_contains(out, "\"Input type\": [\"float\"]");
    assert_contains(out, "\"Module Hierarchy\": \"__stripped__\"");
    assert_contains(out, "/tmp/torchinductor_keepme/a/b.py");
    assert_contains(out, "\"tw_job\": \"job on host-");
    assert_contains(out, "\"INFO\": [\"log from host-");
    assert_int_equal(ks_redact_count(rd, "shapes"), 3);
    assert_int_equal(ks_redact_count(rd, "drop-arg"), 1);
    free(out);
    ks_redactor_free(rd);
}

typedef struct collected {
    ks_buf text; /* every finding, flattened */
    int n, in_key;
    int64_t event_of_stack;
} collected;

static void collect(void *ctx, const ks_redact_finding *f)
{
    collected *c = ctx;
    c->n++;
    c->in_key += f->in_key;
    ks_buf_printf(&c->text, "%s|%s|%lld|%s|%llu|%zu\n", f->rule, f->cls, (long long)f->event,
                  f->path, (unsigned long long)f->byte, f->length);
    if (!strcmp(f->path, "traceEvents[1].args[\"Call stack\"]"))
        c->event_of_stack = f->event;
}

static void test_check_mode(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_source *src;
    ks_stream *st;
    ks_error err;
    assert_int_equal(ks_source_open_memory("t", trace, strlen(trace), &src, &err), KS_OK);
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    collected c = {0};
    c.event_of_stack = -2;
    ks_redact_result res;
    assert_int_equal(ks_redact_check_stream(rd, st, collect, &c, &res, &err), KS_OK);
    ks_source_close(src);
    const char *text = ks_buf_cstr(&c.text);
    assert_int_equal(res.findings, (uint64_t)c.n);
    assert_int_equal(c.event_of_stack, 1);
    assert_true(c.in_key >= 1);
    assert_contains(text, "sensitive-key|secret|-1|metadata.system.env.HF_TOKEN|");
    assert_contains(text, "metadata|structure|-1|metadata|");
    assert_contains(text, "username|user|-1|username|");
    assert_contains(text, "github-token|secret|1|traceEvents[1].args[<key with a finding>]|");
    assert_contains(text, "email|email|1|traceEvents[1].args.note|");
    assert_contains(text, "addr|addr|2|traceEvents[2].args.Addr|");
    /* never a value */
    const char *gone[] = {"bobsmith", "KsSynthetic", "ghp_", "example.com"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        assert_not_contains(text, gone[i]);
    ks_buf_free(&c.text);

    /* the redacted trace is clean */
    char *out = rd_redact_ok(rd, trace, NULL);
    assert_int_equal(ks_source_open_memory("t", out, strlen(out), &src, &err), KS_OK);
    assert_int_equal(ks_source_next(src, &st, &err), 1);
    collected d = {0};
    assert_int_equal(ks_redact_check_stream(rd, st, collect, &d, &res, &err), KS_OK);
    ks_source_close(src);
    if (d.n)
        fail_msg("redacted output not clean:\n%s", ks_buf_cstr(&d.text));
    ks_buf_free(&d.text);
    free(out);
    ks_redactor_free(rd);
}

/* a user learned from the 2nd event is flagged as late: earlier strings may hold it */
static void test_late_literals(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    ks_redact_result res;
    char *out = rd_redact_ok(rd, "[{\"name\": \"run of latefellow\"}, {\"name\": \"/home/latefellow/a/b.py\"}]",
                             &res);
    assert_true(res.late_literals);
    free(out);
    /* learned before it could have been seen: not late */
    out = rd_redact_ok(rd, "[{\"name\": \"/home/earlygal/a/b.py\"}, {\"name\": \"by earlygal\"}]", &res);
    assert_false(res.late_literals);
    assert_not_contains(out, "earlygal");
    free(out);
    ks_redactor_free(rd);
}

/* strings, keys, escapes and numbers cut by the 256 KiB chunk boundary, at every offset around
 * it: the output parses, keeps its numbers and loses the user */
static void test_chunk_boundaries(void **state)
{
    (void)state;
    const size_t chunk = 256 * 1024;
    ks_redactor *rd = rd_new();
    for (size_t shift = 0; shift < 48; shift += 3) {
        ks_buf in = {0};
        ks_buf_puts(&in, "{\"traceEvents\": [");
        size_t pad = chunk - 40 + shift;
        ks_buf_puts(&in, "{\"ph\": \"i\", \"ts\": 1, \"name\": \"");
        while (in.n < pad)
            ks_buf_putc(&in, 'x');
        ks_buf_puts(&in, "\"},\n{\"ph\": \"X\", \"ts\": 123456789.125, \"dur\": 17.250, "
                         "\"name\": \"\\/home\\/chunkuser\\/p\\/q.py(3): f \\\"q\\\"\", "
                         "\"args\": {\"mail chunkuser\\u0040example.com\": 12345678901234567890}}]}");
        ks_buf_cstr(&in);
        ks_redact_result res;
        char *out = rd_redact_ok(rd, in.p, &res);
        yajl_val v = parse(out);
        yajl_tree_free(v);
        assert_int_equal(res.events, 2);
        assert_not_contains(out, "chunkuser");
        assert_contains(out, "\"ts\": 123456789.125, \"dur\": 17.250");
        assert_contains(out, "12345678901234567890");
        assert_contains(out, "/q.py(3): f \\\"q\\\"");
        /* and idempotent across the boundary too */
        char *again = rd_redact_ok(rd, out, NULL);
        assert_string_equal(again, out);
        free(again);
        free(out);
        ks_buf_free(&in);
    }
    ks_redactor_free(rd);
}

/* redact accepts the nesting the parser (stats) accepts: 5000 levels redact to themselves; the
 * limit is the parser's, 2^20 levels, refused with the position of the bracket past it */
static void nest(ks_buf *in, int depth)
{
    in->n = 0;
    for (int i = 0; i < depth; i++)
        ks_buf_putc(in, '[');
    for (int i = 0; i < depth; i++)
        ks_buf_putc(in, ']');
    ks_buf_cstr(in);
}

static void test_depth_limit(void **state)
{
    (void)state;
    ks_buf in = {0};
    nest(&in, 5000);
    ks_redactor *rd = rd_new();
    ks_error err;
    char *out = rd_redact_text(rd, in.p, NULL, &err);
    assert_non_null(out);
    assert_string_equal(out, in.p);
    free(out);
    nest(&in, (1 << 20) + 1);
    assert_null(rd_redact_text(rd, in.p, NULL, &err));
    assert_non_null(strstr(err.msg, "nested deeper"));
    assert_true(err.has_pos && err.line == 1 && err.column == (1 << 20));
    ks_buf_free(&in);
    ks_redactor_free(rd);
}

/* Step names by the one ProfilerStep#N rule (kinesift/store.h): kept verbatim when they are
 * nothing else; a name with more after the digits is scanned like any name. */
static void test_profiler_step_names(void **state)
{
    (void)state;
    ks_redactor *rd = rd_new();
    char *out = rd_redact_ok(rd,
                             "{\"traceEvents\": ["
                             "{\"ph\": \"X\", \"name\": \"ProfilerStep # 12\", \"ts\": 1, \"dur\": 1},"
                             "{\"ph\": \"X\", \"name\": \"ProfilerStep#3 bob@corp.example.com\", "
                             "\"ts\": 1, \"dur\": 1}]}",
                             NULL);
    assert_contains(out, "\"name\": \"ProfilerStep # 12\"");
    assert_contains(out, "\"name\": \"ProfilerStep#3 ");
    assert_not_contains(out, "bob@corp");
    free(out);
    ks_redactor_free(rd);
}

/* One string much longer than the engine's chunk (plain letters, and raw control characters that
 * the pre-filter turns into six-byte escapes): the work yajl does (bytes_lexed, a token cut by a
 * feed counted again from its start) stays within a constant of the filtered bytes, at two sizes,
 * and the second size costs about 4 times the first (16 when each feed lexes the token again). */
static uint64_t lexed_for(char fill, size_t n, uint64_t *filtered)
{
    static const char head[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"/home/longuser/";
    static const char tail[] = "\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1}]}\n";
    size_t hl = sizeof head - 1, tl = sizeof tail - 1;
    char *json = ks_xmalloc(hl + n + tl + 1);
    memcpy(json, head, hl);
    memset(json + hl, fill, n);
    memcpy(json + hl + n, tail, tl + 1);
    ks_redactor *rd = rd_new();
    ks_redact_result res;
    char *out = rd_redact_ok(rd, json, &res);
    assert_not_contains(out, "longuser");
    *filtered = hl + tl + (fill < 0x20 ? 6 * n : n);
    free(out);
    free(json);
    ks_redactor_free(rd);
    return res.bytes_lexed;
}

static void test_long_string_linear(void **state)
{
    (void)state;
    const char fills[] = {'x', 0x01};
    for (size_t i = 0; i < sizeof fills; i++) {
        uint64_t f1, f2;
        uint64_t small = lexed_for(fills[i], 1u << 20, &f1);
        uint64_t large = lexed_for(fills[i], 4u << 20, &f2);
        if (small > 3 * f1 || large > 3 * f2 || large > 6 * small)
            fail_msg("fill 0x%02x: lexed %llu of %llu filtered bytes, %llu of %llu (ratio %.1f)",
                     (unsigned)fills[i], (unsigned long long)small, (unsigned long long)f1,
                     (unsigned long long)large, (unsigned long long)f2,
                     (double)large / (double)small);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_and_structure), cmocka_unit_test(test_verbatim),
        cmocka_unit_test(test_unterminated_array),
        cmocka_unit_test(test_crypto_failure_fails_closed),    cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_repaired),              cmocka_unit_test(test_options),
        cmocka_unit_test(test_check_mode),            cmocka_unit_test(test_late_literals),
        cmocka_unit_test(test_chunk_boundaries),      cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_profiler_step_names),   cmocka_unit_test(test_long_string_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
