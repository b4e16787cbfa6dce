/* tests/parser/test_chunking.c: parse.h promises the same trace, diagnostics, positions, repair
 * counts and errors whatever the chunking and the reader thread. Hostile inputs (cut in
 * a string, in a number, a lexical error, an unescaped quote, a missing ',' after a long token)
 * are parsed with chunks of 1, 2, 3, 7, 4096 bytes and 256 KiB, the reader thread off, on, and on
 * with every optional step, tolerant and strict; the complete rendering of each result
 * (trace_digest.h) must equal the one of a plain read. A few positions are also checked against
 * values worked out by hand. */
#include "ks_test.h"
#include "json/repair.h"
#include "trace_digest.h"

static const char broken_last[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    " {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1, \"args\": {\"dims\": [[1, 2], [3]]}},\n"
    " {\"ph\": \"X\", \"name\": \"b]\", \"ts\": 2 \"dur\": 1, \"pid\": 1, \"tid\": 1, \"args\": {\"dims\": [[1], [2, 3]], \"s\": \"]\\\"]\"}}\n"
    "],\n"
    " \"traceName\": \"t.json\", \"deviceProperties\": [{\"id\": 0, \"name\": \"H100\"}], \"baseTimeNanoseconds\": 5}\n";
static const char broken_last_bare[] =
    "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1 \"pid\": 1, \"args\": {\"d\": [[1], []]}}]\n";

static const char *const hostile[] = {
    /* the event resumed at after an error is named at its '{', several lines before its end */
    "[\n {\"ph\": \"X\", \"name\": \"a\" \"ts\": 1},\n  {\n   \"name\": \"n\",\n   \"ts\": 2,\n"
    "   \"pid\": 1\n  }\n]\n",
    broken_last,
    broken_last_bare,
    /* cut inside a string holding repairs (raw tab, unescaped quote) */
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"b\tc\" d\", \"ts\": 3, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"e\tf\"g\th",
    /* cut inside a number */
    "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"b\", \"ts\": 12345.6",
    /* lexical errors: an invalid character, a misspelt literal, a malformed number */
    "{\"traceEvents\": [\n"
    " {\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2 @, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"i\", \"name\": \"c\", \"ts\": 3, \"pid\": 1, \"tid\": 1, \"s\": trux},\n"
    " {\"ph\": \"i\", \"name\": \"d\", \"ts\": 4.e, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"i\", \"name\": \"e\", \"ts\": 5, \"pid\": 1, \"tid\": 1}\n"
    "], \"after\": 1}\n",
    /* unescaped quotes and control characters everywhere */
    "[{\"ph\": \"X\", \"name\": \"x\"y\"z\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"\"\", \"ts\": 2, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"q\r\n\", \"ts\": 3, \"dur\": 1, \"pid\": \"2\", \"tid\": 1}]\n",
    /* a missing ',' after a long string, a long number and a closed object (yajl names these
     * errors from the offending token's length and the feed it began in) */
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"name\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" \"bbbbbbbbbbbbbbbbbbbbbbbb\", \"ts\": 1},\n"
    " {\"ph\": \"X\", \"name\": \"c\", \"ts\": 12345678901234567890 \"dddddddddddddddddddddd\"},\n"
    " {\"ph\": \"i\", \"name\": \"e\", \"ts\": 5, \"pid\": 1, \"tid\": 1}\n"
    " {\"ph\": \"i\", \"name\": \"f\tg\", \"ts\": 6, \"pid\": 1, \"tid\": 1} \"hhhhhhhhhhhhhhhhhhhhh\",\n"
    " {\"ph\": \"i\", \"name\": \"i\", \"ts\": 7, \"pid\": 1, \"tid\": 1, \"args\": {\"k\": [1, 2] 3}},\n"
    " {\"ph\": \"i\", \"name\": \"j\", \"ts\": 8, \"pid\": 1, \"tid\": 1}\n"
    "], \"host\": \"x\"\n",
    /* an error in the metadata before the events, and trailing garbage */
    "{\"a\": \"b\" \"c\": 1, \"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, "
    "\"tid\": 1}]} \"garbage\" x",
    /* trailing garbage longer than a chunk: read to the end all the same (the byte count) */
    "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}]\n"
    "x garbage garbage garbage garbage garbage garbage garbage garbage garbage\n",
    /* a trailing comma before a '}' that does not close the array: the comma is removed (a
     * repair) and the offending token is the '}' after it, also when a read ends at the comma */
    "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1},\n  }{\"ph\": \"i\"},\n"
    " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n",
    /* the same, cut: the complete events end at the last '}', before the dropped comma */
    "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1},\n }{\"ph\": \"i\"",
    /* an invalid byte right before a dropped trailing comma: named at itself */
    "[{\"ph\": \"i\", \"name\": \"a\", \"tid\": \xb7,\n    },\n"
    " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n",
    /* a token refused after a separator ("invalid object key"), a dropped trailing comma right
     * after it: named at the token's end, before the comma */
    "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1,{,}, \"pid\": 1},\n"
    " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n",
    /* the first key after a resynchronisation is long and holds repairs: its bytes stay until
     * it is accepted (the repairs' lines and columns) */
    "[{\"ph\": \"i\", \"name\": \"a\" \"ts\": 1},\n  {\n   \"id\"93459,\n\"long key long key long key\": 1,"
    " \"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n",
    /* long runs of blanks after an accepted token (and after the ',' or ':' among them) are not
     * kept in the window: a missing ',' after them, a trailing comma before them, a value after a
     * key and its ':' across them, an error after them are named the same whatever the chunking */
    "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}\n                                                                                                    \n\t\r\n                                                            "
    "{\"ph\": \"i\"},                                                                                          \n {\"ph\": \"i\", \"name\":                                                                      \n                                                                      \"b\", \"ts\": 2,\n                                                                                "
    "\"pid\"                                                  :                                                                      1, \"tid\": 1},                                                                                                    \n]\n",
    "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}                                                                                                                        ,                                                                                                                        "
    "\n                                                                                            \"x\"                                                                                , {\"ph\": \"i\", \"name\": \"b\", \"ts\":                                                                                          @, \"pid\": 1}]\n                                                                                                    , 7",
    /* --strict stops at the first repair yajl has lexed, unless an error can still be named
     * before it: a string with raw control characters after a value with no ',' between (the
     * missing ',' comes first), after the trace (trailing garbage), in a key after '{', in a value
     * after ':' and after ',' */
    "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1} \"x\x01\x02\x03\x04\x05\x06\x07\","
    " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n",
    "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}]}\n"
    "  \"y\x01\x02\x03\x04\x05\"",
    "[{\"k\x01\x02\x03\x04\x05\x06\": 1, \"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1},\n"
    " {\"ph\": \"i\", \"name\":\n \"b\x01\x02\x03\x04\x05\x06\x07\x08\", \"ts\": 2, \"pid\": 1, \"tid\": 1},"
    " \"c\x01\x02\x03\x04\"]\n",
    /* metadata after the events cut by an error */
    "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}],\n"
    " \"a\": 1 2, \"b\": \"long long long long long long long long long long long\"}\n",
};

static char *digest(const char *s, size_t chunk, int reader, int strict)
{
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = chunk;
    o.reader_thread = reader;
    o.threads = 1;
    o.strict = strict;
    return digest_parse(s, strlen(s), &o);
}

static void same_result_whatever_the_chunking(void **state)
{
    (void)state;
    static const size_t chunks[] = {1, 2, 3, 7, 4096, 256 * 1024};
    static const int readers[] = {-1, 1, 2};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
        for (int strict = 0; strict < 2; strict++) {
            char *ref = digest(hostile[i], 0, -1, strict);
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
                for (size_t r = 0; r < 3; r++) {
                    char *got = digest(hostile[i], chunks[c], readers[r], strict);
                    if (strcmp(ref, got))
                        fail_msg("input %zu strict %d chunk %zu reader %d: line %zu differs\n--- plain\n%s"
                                 "--- chunked\n%s", i, strict, chunks[c], readers[r],
                                 digest_first_diff_line(ref, got), ref, got);
                    free(got);
                }
            free(ref);
        }
}

/* s[0 .. len) read with chunks of chunk bytes on this thread; the parse must succeed. */
static ks_trace *parse_chunked(const char *s, size_t len, size_t chunk)
{
    ks_parse_opts o;
    ks_parse_opts_init(&o);
    o.chunk_size = chunk;
    o.reader_thread = -1;
    ks_trace *t;
    ks_error err;
    assert_int_equal(ks_parse_buffer("x", s, len, &o, &t, &err), KS_OK);
    return t;
}

/* The first example of diagnostic id, parsed with chunks of chunk bytes. */
static ks_diag_example first_example(const char *s, size_t chunk, const char *id, uint64_t *count)
{
    ks_trace *t = parse_chunked(s, strlen(s), chunk);
    const ks_diag_kind *k = ks_diag_get(&t->diag, id);
    assert_non_null(k);
    ks_diag_example ex;
    memset(&ex, 0, sizeof ex);
    if (k->nexamples)
        ex = k->ex[0];
    *count = k->count;
    ks_trace_free(t);
    return ex;
}

/* "after array element, I expect ',' or ']'": the position is the offending token's first byte,
 * here the '{' of line 3 (byte 56, column 2), whatever the chunking; the skipped bytes run from it
 * to the '"' of the next event's first key. */
static void missing_comma_named_at_the_offending_token(void **state)
{
    (void)state;
    const char *s = "[\n"
                    " {\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}\n"
                    " {\"ph\": \"i\", \"name\": \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"},\n"
                    " {\"ph\": \"i\", \"name\": \"c\", \"ts\": 3, \"pid\": 1, \"tid\": 1}]\n";
    const char *brace = strchr(strchr(s, '}'), '{');
    uint64_t want = (uint64_t)(brace - s);
    const char *next = strstr(brace, ",\n {") + 3;
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        uint64_t n;
        ks_diag_example ex = first_example(s, chunk, "parse.skipped_event", &n);
        assert_int_equal(ex.byte, want);
        assert_int_equal(ex.line, 3);
        assert_int_equal(ex.column, 2);
        first_example(s, chunk, "parse.resync_bytes_skipped", &n);
        assert_int_equal(n, (uint64_t)(next + 1 - brace));
    }
}

/* Bytes after the trace are named at their first byte (not one past it, where yajl stops after an
 * invalid byte), whatever the chunking: zero padding after a trace (a preallocated file) is "NUL
 * byte at byte N" with N its first zero, also when a read ends right after that zero. */
static void trailing_garbage_named_at_its_first_byte(void **state)
{
    (void)state;
    static const char s[] = "[{\"ph\": \"i\", \"ts\": 1, \"pid\": 1, \"tid\": 1}\n]\n\0\0\0\0";
    const size_t len = sizeof s - 1, nul = strlen(s);
    char want[64];
    snprintf(want, sizeof want, "NUL byte at byte %zu", nul);
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        ks_trace *t = parse_chunked(s, len, chunk);
        const ks_diag_kind *k = ks_diag_get(&t->diag, "parse.trailing_garbage");
        assert_non_null(k);
        assert_int_equal(k->ex[0].byte, nul);
        assert_int_equal(k->ex[0].line, 3);
        assert_int_equal(k->ex[0].column, 1);
        assert_non_null(strstr(k->ex[0].text, want));
        ks_trace_free(t);
    }
}

/* A token yajl refuses (here '{' where a key belongs) is named by yajl at its end: a zero byte
 * there is not the offender, so the words are yajl's whatever the chunking. */
static void refused_token_before_nul_keeps_its_words(void **state)
{
    (void)state;
    static const char s[] = "[{\"ph\": \"i\", \"ts\": 1,{\0 \"pid\": 1},\n"
                            " {\"ph\": \"i\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]";
    for (size_t chunk = 1; chunk <= 64; chunk++) {
        ks_trace *t = parse_chunked(s, sizeof s - 1, chunk);
        const ks_diag_kind *k = ks_diag_get(&t->diag, "parse.skipped_event");
        assert_non_null(k);
        assert_non_null(strstr(k->ex[0].text, "invalid object key"));
        assert_int_equal(k->ex[0].byte, (uint64_t)(strstr(s, ",{") + 2 - s)); /* just after the { */
        assert_int_equal(t->events, 1);
        ks_trace_free(t);
    }
}

/* A repair inside the offending token of a syntax error is not counted (the token is skipped),
 * also when the chunk that held the repair was settled before the error was seen. */
static void repair_in_skipped_token_not_counted(void **state)
{
    (void)state;
    const char *s = "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1} \"x\ty\",\n"
                    " {\"ph\": \"i\", \"name\": \"c\", \"ts\": 3, \"pid\": 1, \"tid\": 1}]";
    for (size_t chunk = 1; chunk <= 80; chunk++) {
        ks_trace *t = parse_chunked(s, strlen(s), chunk);
        assert_null(ks_diag_get(&t->diag, ks_repair_kind_id(KS_REPAIR_CONTROL)));
        assert_int_equal(t->events, 2);
        ks_trace_free(t);
    }
}

/* A 64 MiB string (a token far longer than a chunk, fed in doubling parts) arrives whole, with
 * the reader thread and without; the metadata after the events is read too. */
static void long_string_whole(void **state)
{
    (void)state;
    const size_t n = (size_t)64 << 20;
    const char *head = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1, \"name\": \"";
    const char *tail = "\"}], \"host\": \"h\"}";
    size_t hl = strlen(head), tl = strlen(tail);
    char *buf = malloc(hl + n + tl);
    assert_non_null(buf);
    memcpy(buf, head, hl);
    for (size_t i = 0; i < n; i++)
        buf[hl + i] = (char)('a' + i % 26);
    memcpy(buf + hl + n, tail, tl);
    for (int reader = -1; reader <= 1; reader += 2) {
        ks_parse_opts o;
        ks_parse_opts_init(&o);
        o.reader_thread = reader;
        o.threads = 1;
        ks_trace *t;
        ks_error err;
        assert_int_equal(ks_parse_buffer("long", buf, hl + n + tl, &o, &t, &err), KS_OK);
        assert_int_equal(t->events, 1);
        assert_false(t->truncated);
        const ks_event *e = NULL;
        for (size_t i = 0; i < t->ntracks; i++)
            if (t->tracks[i].n)
                e = &t->tracks[i].ev[0];
        assert_non_null(e);
        const char *name = ks_trace_str(t, e->name);
        assert_int_equal(strlen(name), n);
        assert_memory_equal(name, buf + hl, n);
        assert_int_equal(t->meta.nentries, 1);
        assert_string_equal(ks_trace_str(t, t->meta.entries[0].value), "h");
        ks_trace_free(t);
    }
    free(buf);
}

/* A malformed last event: the event is skipped (counted), the file is complete (not truncated)
 * and the metadata after traceEvents is read; the ']' inside the broken event's strings and
 * nested arrays do not end the events early. */
/* --strict stops at the first repair yajl lexed only when no error can be named before it: after
 * a value with no ',' between, the missing ',' at the string's start is the error, at every read
 * size; in a key after '{' the repair is, at its own byte. */
static void strict_first_error_before_a_repaired_string(void **state)
{
    (void)state;
    static const char missing[] =
        "[{\"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1} \"x\x01\x02\x03\x04\x05\x06\","
        " {\"ph\": \"i\", \"name\": \"b\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]\n";
    static const char key[] = "[{\"k\x01\x02\x03\": 1, \"ph\": \"i\", \"name\": \"a\", \"ts\": 1, \"pid\": 1, \"tid\": 1}]\n";
    static const size_t chunks[] = {1, 3, 7, 60, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
        for (int reader = -1; reader <= 1; reader += 2) {
            ks_parse_opts o;
            ks_parse_opts_init(&o);
            o.chunk_size = chunks[c];
            o.reader_thread = reader;
            o.threads = 1;
            o.strict = 1;
            ks_trace *t;
            ks_error err;
            assert_int_equal(ks_parse_buffer("x", missing, strlen(missing), &o, &t, &err), KS_ERR);
            assert_non_null(strstr(err.msg, "I expect ','"));
            assert_int_equal(err.byte, (uint64_t)(strchr(missing, '}') + 2 - missing));
            assert_int_equal(ks_parse_buffer("x", key, strlen(key), &o, &t, &err), KS_ERR);
            assert_non_null(strstr(err.msg, "repaired_control_character"));
            assert_int_equal(err.byte, 4);
        }
}

static void broken_last_event_keeps_metadata(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(broken_last);
    assert_false(t->truncated);
    assert_int_equal(t->events, 1);
    const ks_diag_kind *k = ks_diag_get(&t->diag, "parse.skipped_event");
    assert_non_null(k);
    assert_int_equal(k->count, 1);
    assert_null(ks_diag_get(&t->diag, "parse.truncated"));
    assert_string_equal(ks_trace_str(t, t->meta.trace_name), "t.json");
    assert_int_equal(t->meta.ndevices, 1);
    assert_true(t->meta.has_base_time);
    assert_int_equal(t->meta.base_time_ns, 5);
    ks_trace_free(t);

    t = ks_test_parse(broken_last_bare);
    assert_false(t->truncated);
    assert_int_equal(t->events, 1);
    assert_null(ks_diag_get(&t->diag, "parse.array_unclosed"));
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_result_whatever_the_chunking),
        cmocka_unit_test(missing_comma_named_at_the_offending_token),
        cmocka_unit_test(repair_in_skipped_token_not_counted),
        cmocka_unit_test(trailing_garbage_named_at_its_first_byte),
        cmocka_unit_test(refused_token_before_nul_keeps_its_words),
        cmocka_unit_test(broken_last_event_keeps_metadata),
        cmocka_unit_test(long_string_whole),
        cmocka_unit_test(strict_first_error_before_a_repaired_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
